// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC stream data sent without a copy into the send queue: sendfile()
 * and splice() to a stream socket (the chunks reference the pages), and
 * MSG_ZEROCOPY with SO_ZEROCOPY (the user's pages are pinned, and the
 * completions come on the error queue once the peer acknowledged every
 * byte). Each transfer is checked by SHA-256 at the receiver, over a
 * clean lo and over one losing packets (netem). And the bad input:
 * MSG_ZEROCOPY without SO_ZEROCOPY (the flag is ignored, as on TCP),
 * SO_ZEROCOPY with a short option or a bad value, sendfile() to a
 * listener, an unconnected socket, a connection without a stream.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/crypto.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "quic_conn_common.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY	60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY	0x4000000
#endif

#define PSK_FILE	"/tmp/quic_zerocopy_test.psk"
#define DATA_FILE	"/tmp/quic_zerocopy_test.data"
#define BIG		(16 << 20)
#define LOSSY		(4 << 20)
#define ZC_SEND		(64 << 10)

FIXTURE(zc) {
	int cfd;
	int sfd;
};

FIXTURE_VARIANT(zc) {
	int family;
};

#define QUIC_FIXTURE		zc
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(zc)
{
	signal(SIGPIPE, SIG_IGN);
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	self->cfd = -1;
	self->sfd = -1;
}

FIXTURE_TEARDOWN(zc)
{
	if (self->sfd >= 0)
		close(self->sfd);
	if (self->cfd >= 0)
		close(self->cfd);
	unlink(PSK_FILE);
	unlink(DATA_FILE);
}

/* @n bytes of a pattern no page repeats, and their SHA-256. */
static unsigned char *pattern(size_t n, unsigned char *digest)
{
	unsigned char *p = malloc(n);
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
	gnutls_hash_fast(GNUTLS_DIG_SHA256, p, n, digest);
	return p;
}

/* The server reads one stream to its FIN, hashing what it gets. */
struct reader {
	int fd;
	size_t got;
	int fin;
	int err;
	unsigned char digest[32];
};

static void *reader_main(void *p)
{
	struct reader *r = p;
	gnutls_hash_hd_t h;
	unsigned char *buf = malloc(1 << 16);
	uint32_t flags;
	int64_t sid;
	ssize_t n;

	if (!buf || gnutls_hash_init(&h, GNUTLS_DIG_SHA256)) {
		r->err = ENOMEM;
		free(buf);
		return NULL;
	}
	for (;;) {
		flags = 0;
		n = quic_recvmsg(r->fd, buf, 1 << 16, &sid, &flags);
		if (n < 0) {
			r->err = errno;
			break;
		}
		if (flags & MSG_QUIC_NOTIFICATION)
			continue;
		gnutls_hash(h, buf, n);
		r->got += n;
		if (flags & MSG_QUIC_STREAM_FIN) {
			r->fin = 1;
			break;
		}
	}
	gnutls_hash_deinit(h, r->digest);
	free(buf);
	return NULL;
}

/* Open the client's next stream, making it the active one: a send
 * without a stream ID (sendfile(), splice()) goes on it.
 */
static int open_stream(int fd)
{
	struct quic_stream_info si = { .stream_id = -1 };
	socklen_t len = sizeof(si);

	return getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN, &si, &len);
}

/* The FIN of the active stream, with no data. */
static int send_fin(int fd)
{
	return send(fd, NULL, 0, MSG_QUIC_STREAM_FIN) ? -1 : 0;
}

static int lossy_lo(void)
{
	return system("tc qdisc add dev lo root netem loss 5% 2>/dev/null");
}

enum how { BY_SENDFILE, BY_SPLICE, BY_ZEROCOPY };

struct splice_writer {
	int fd;
	const unsigned char *p;
	size_t n;
};

static void *splice_writer_main(void *arg)
{
	struct splice_writer *w = arg;
	size_t done = 0;
	ssize_t n;

	while (done < w->n) {
		n = write(w->fd, w->p + done, w->n - done);
		if (n <= 0)
			break;
		done += n;
	}
	close(w->fd);
	return NULL;
}

/* MSG_ZEROCOPY completions on the error queue: the IDs they cover, added
 * to *@ids; -1 on a malformed one.
 */
static int zc_drain(int fd, uint64_t *ids, int *copied)
{
	char ctrl[256];
	struct msghdr msg = { .msg_control = ctrl,
			      .msg_controllen = sizeof(ctrl) };
	struct sock_extended_err *ee;
	struct cmsghdr *cm;

	while (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0) {
		cm = CMSG_FIRSTHDR(&msg);
		if (!cm || !((cm->cmsg_level == SOL_IP &&
			      cm->cmsg_type == IP_RECVERR) ||
			     (cm->cmsg_level == SOL_IPV6 &&
			      cm->cmsg_type == IPV6_RECVERR)))
			return -1;
		ee = (struct sock_extended_err *)CMSG_DATA(cm);
		if (ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee->ee_errno ||
		    ee->ee_data < ee->ee_info)
			return -1;
		if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
			(*copied)++;
		*ids += ee->ee_data - ee->ee_info + 1;
		msg.msg_controllen = sizeof(ctrl);
	}
	return errno == EAGAIN ? 0 : -1;
}

/* Send @n bytes of the pattern on the client's active stream @how, and
 * the FIN; the server's SHA-256 must be the pattern's.
 */
static void transfer(struct __test_metadata *_metadata, int cfd, int sfd,
		     enum how how, size_t n)
{
	struct reader r = { .fd = sfd };
	unsigned char digest[32];
	unsigned char *p;
	uint64_t ids = 0, calls = 0;
	int copied = 0, i;
	pthread_t th;
	size_t done = 0;
	ssize_t ret;

	p = pattern(n, digest);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, open_stream(cfd));
	ASSERT_EQ(0, pthread_create(&th, NULL, reader_main, &r));
	if (how == BY_SENDFILE) {
		int fd = open(DATA_FILE, O_RDWR | O_CREAT | O_TRUNC, 0600);
		off_t off = 0;

		ASSERT_LE(0, fd);
		ASSERT_EQ((ssize_t)n, write(fd, p, n));
		while (done < n) {
			ret = sendfile(cfd, fd, &off, n - done);
			if (ret <= 0)
				break;
			done += ret;
		}
		EXPECT_EQ((off_t)n, off);
		close(fd);
	} else if (how == BY_SPLICE) {
		struct splice_writer w = { .p = p, .n = n };
		pthread_t wt;
		int pfd[2];

		ASSERT_EQ(0, pipe(pfd));
		w.fd = pfd[1];
		ASSERT_EQ(0, pthread_create(&wt, NULL, splice_writer_main, &w));
		while (done < n) {
			ret = splice(pfd[0], NULL, cfd, NULL, n - done,
				     SPLICE_F_MOVE | SPLICE_F_MORE);
			if (ret <= 0)
				break;
			done += ret;
		}
		pthread_join(wt, NULL);
		close(pfd[0]);
	} else {
		while (done < n) {
			size_t k = n - done < ZC_SEND ? n - done : ZC_SEND;

			ret = send(cfd, p + done, k, MSG_ZEROCOPY);
			if (ret <= 0)
				break;
			done += ret;
			calls++;
			ASSERT_EQ(0, zc_drain(cfd, &ids, &copied));
		}
	}
	EXPECT_EQ(n, done) {
		TH_LOG("sent %zu of %zu: %s", done, n, strerror(errno));
	}
	EXPECT_EQ(0, send_fin(cfd));
	pthread_join(th, NULL);
	EXPECT_EQ(0, r.err);
	EXPECT_EQ(n, r.got);
	EXPECT_EQ(1, r.fin);
	EXPECT_EQ(0, memcmp(digest, r.digest, sizeof(digest)));
	if (how == BY_ZEROCOPY) {
		/* Each send's completion, once the peer acknowledged its
		 * last byte: the reader has them all, the ACKs follow.
		 */
		for (i = 0; i < 300 && ids < calls; i++) {
			poll(&(struct pollfd){ .fd = cfd, .events = 0 }, 1,
			     100);
			ASSERT_EQ(0, zc_drain(cfd, &ids, &copied));
		}
		EXPECT_EQ(calls, ids);
		EXPECT_EQ(0, copied);
	}
	free(p);
}

static int zc_on(int fd)
{
	int one = 1;

	return setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one));
}

TEST_F_TIMEOUT(zc, sendfile, 300)
{
	ASSERT_EQ(0, quic_pair_open(variant->family, PSK_FILE, NULL,
				    &self->cfd, &self->sfd));
	transfer(_metadata, self->cfd, self->sfd, BY_SENDFILE, BIG);
}

TEST_F_TIMEOUT(zc, splice, 300)
{
	ASSERT_EQ(0, quic_pair_open(variant->family, PSK_FILE, NULL,
				    &self->cfd, &self->sfd));
	transfer(_metadata, self->cfd, self->sfd, BY_SPLICE, BIG);
}

TEST_F_TIMEOUT(zc, msg_zerocopy, 300)
{
	ASSERT_EQ(0, quic_pair_open(variant->family, PSK_FILE, NULL,
				    &self->cfd, &self->sfd));
	if (zc_on(self->cfd)) {
		ASSERT_EQ(EOPNOTSUPP, errno);
		SKIP(return, "SO_ZEROCOPY: the core takes it from TCP and UDP only (6.1)");
	}
	transfer(_metadata, self->cfd, self->sfd, BY_ZEROCOPY, BIG);
}

/* With 5% of the packets lost on lo: what is sent again comes from the
 * same pages (a chunk split by a smaller packet included).
 */
TEST_F_TIMEOUT(zc, lossy_sendfile_splice, 300)
{
	ASSERT_EQ(0, own_netns());
	ASSERT_EQ(0, quic_pair_open(variant->family, PSK_FILE, NULL,
				    &self->cfd, &self->sfd));
	if (lossy_lo())
		SKIP(return, "no tc or netem");
	transfer(_metadata, self->cfd, self->sfd, BY_SENDFILE, LOSSY);
	transfer(_metadata, self->cfd, self->sfd, BY_SPLICE, LOSSY);
}

TEST_F_TIMEOUT(zc, lossy_msg_zerocopy, 300)
{
	ASSERT_EQ(0, own_netns());
	ASSERT_EQ(0, quic_pair_open(variant->family, PSK_FILE, NULL,
				    &self->cfd, &self->sfd));
	if (zc_on(self->cfd)) {
		ASSERT_EQ(EOPNOTSUPP, errno);
		SKIP(return, "SO_ZEROCOPY: the core takes it from TCP and UDP only (6.1)");
	}
	if (lossy_lo())
		SKIP(return, "no tc or netem");
	transfer(_metadata, self->cfd, self->sfd, BY_ZEROCOPY, LOSSY);
}

/* Without SO_ZEROCOPY, MSG_ZEROCOPY is ignored, as on TCP: the data is
 * copied, and nothing comes on the error queue.
 */
TEST_F(zc, msg_zerocopy_without_so_zerocopy)
{
	struct reader r = { .fd = -1 };
	unsigned char digest[32], *p;
	struct pollfd pfd;
	pthread_t th;
	int val = -1;
	socklen_t len = sizeof(val);

	ASSERT_EQ(0, quic_pair_open(variant->family, PSK_FILE, NULL,
				    &self->cfd, &self->sfd));
	ASSERT_EQ(0, getsockopt(self->cfd, SOL_SOCKET, SO_ZEROCOPY, &val,
				&len));
	EXPECT_EQ(0, val);
	p = pattern(1 << 20, digest);
	ASSERT_NE(NULL, p);
	r.fd = self->sfd;
	ASSERT_EQ(0, pthread_create(&th, NULL, reader_main, &r));
	EXPECT_EQ(1 << 20, quic_sendmsg(self->cfd, p, 1 << 20, -1,
					MSG_QUIC_STREAM_NEW |
					MSG_QUIC_STREAM_FIN | MSG_ZEROCOPY));
	pthread_join(th, NULL);
	EXPECT_EQ((size_t)1 << 20, r.got);
	EXPECT_EQ(0, memcmp(digest, r.digest, sizeof(digest)));
	free(p);
	usleep(200000);	/* the ACKs */
	pfd.fd = self->cfd;
	pfd.events = 0;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
}

/* SO_ZEROCOPY: a short option, a value other than 0 and 1. */
TEST_F(zc, so_zerocopy_bad)
{
	int fd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	int val = 1, ret;
	socklen_t len = sizeof(val);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &val, 2));
	EXPECT_EQ(EINVAL, errno);
	val = 2;
	ret = setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &val, sizeof(val));
	EXPECT_EQ(-1, ret);
	val = 1;
	if (setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &val, sizeof(val))) {
		/* 6.1: the core refuses SO_ZEROCOPY for any value. */
		EXPECT_EQ(EOPNOTSUPP, errno);
		close(fd);
		return;
	}
	val = 2;
	EXPECT_EQ(-1, setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &val,
				 sizeof(val)));
	EXPECT_EQ(EINVAL, errno);
	val = -1;
	ASSERT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &val, &len));
	EXPECT_EQ(1, val);
	/* Other SOL_SOCKET options still go to the core. */
	val = 65536;
	EXPECT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val)));
	val = 0;
	EXPECT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &val,
				sizeof(val)));
	close(fd);
}

/* sendfile() to a listener, to a socket never connected, and on a
 * connection with no active stream: EPIPE, EPIPE, EINVAL, as sendmsg()
 * without a stream ID gives.
 */
TEST_F(zc, sendfile_bad_socket)
{
	struct sockaddr_storage ss;
	unsigned char buf[4096] = { 1 };
	int fd, lfd, ufd;
	off_t off = 0;
	socklen_t len;

	fd = open(DATA_FILE, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)sizeof(buf), write(fd, buf, sizeof(buf)));

	lfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, lfd);
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, listen(lfd, 4));
	EXPECT_EQ(-1, sendfile(lfd, fd, &off, sizeof(buf)));
	EXPECT_EQ(EPIPE, errno);
	EXPECT_EQ(0, off);
	close(lfd);

	ufd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, ufd);
	EXPECT_EQ(-1, sendfile(ufd, fd, &off, sizeof(buf)));
	EXPECT_EQ(EPIPE, errno);
	close(ufd);

	ASSERT_EQ(0, quic_pair_open(variant->family, PSK_FILE, NULL,
				    &self->cfd, &self->sfd));
	EXPECT_EQ(-1, sendfile(self->cfd, fd, &off, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, off);
	/* With a stream open, the same sendfile() goes. */
	ASSERT_EQ(0, open_stream(self->cfd));
	EXPECT_EQ((ssize_t)sizeof(buf), sendfile(self->cfd, fd, &off,
						 sizeof(buf)));
	close(fd);
}

TEST_HARNESS_MAIN
