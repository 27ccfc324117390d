// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC streams between two kernel QUIC sockets over loopback, after a PSK
 * handshake (quic_conn_common.h): unidirectional streams both ways, FIN,
 * RESET_STREAM and STOP_SENDING seen by the peer with their application
 * error codes, a sender blocked by flow control (EAGAIN/ENOSPC when
 * non-blocking) that resumes when the receiver reads, 1000 concurrent
 * bidirectional streams, a 100 MiB transfer checked with SHA-256, data
 * datagrams of the size the path MTU search confirmed, and the errno
 * rules of QUIC_SOCKOPT_STREAM_OPEN, _STREAM_RESET and
 * _STREAM_STOP_SENDING.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <gnutls/crypto.h>
#include <netinet/quic.h>

#include "kselftest_harness.h"
#include "quic_common.h"
#include "quic_conn_common.h"

#define PSK_FILE	"/tmp/quic_streams_test.psk"

/* Client-initiated stream IDs (RFC 9000 2.1). */
#define CBIDI(n)	((int64_t)(n) * 4)
#define CUNI(n)		((int64_t)(n) * 4 + 2)
#define SUNI(n)		((int64_t)(n) * 4 + 3)

/* Concurrent streams of the many_streams test (and the stream limit). */
#define STREAMS		1000
/* Stream receive window of the flow fixture. */
#define FLOW_WINDOW	16384
/* The SHA-256 checked transfer: 100 MiB, or QUIC_STREAMS_BIG_MIB MiB. */
#define BIG_LEN		big_len()

static size_t big_len(void)
{
	const char *e = getenv("QUIC_STREAMS_BIG_MIB");
	long mib = e ? strtol(e, NULL, 10) : 0;

	return (size_t)(mib > 0 ? mib : 100) << 20;
}

/* Windows and stream limit of both sides (0: the defaults). */
struct pair_params {
	int family;
	uint64_t max_data;
	uint64_t max_stream_data;
	uint16_t max_streams_bidi;
};

FIXTURE(streams) {
	int cfd;
	int sfd;
};

FIXTURE_VARIANT(streams) {
	int family;
};

#define QUIC_FIXTURE		streams
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

static void pair_setup(struct __test_metadata *_metadata,
		       const struct pair_params *p, int *cfd, int *sfd)
{
	struct quic_transport_param tp = {};
	int ret;

	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	tp.max_data = p->max_data;
	tp.max_stream_data_bidi_local = p->max_stream_data;
	tp.max_stream_data_bidi_remote = p->max_stream_data;
	tp.max_stream_data_uni = p->max_stream_data;
	tp.max_streams_bidi = p->max_streams_bidi;
	ret = quic_pair_open(p->family, PSK_FILE, &tp, cfd, sfd);
	ASSERT_EQ(0, ret) {
		TH_LOG("handshake: %s", strerror(-ret));
	}
}

static void pair_teardown(int cfd, int sfd)
{
	if (cfd >= 0)
		close(cfd);
	if (sfd >= 0)
		close(sfd);
	unlink(PSK_FILE);
}

FIXTURE_SETUP(streams)
{
	const struct pair_params p = {
		.family = variant->family,
		.max_streams_bidi = STREAMS,
	};

	pair_setup(_metadata, &p, &self->cfd, &self->sfd);
}

FIXTURE_TEARDOWN(streams)
{
	pair_teardown(self->cfd, self->sfd);
}

/* Small receive windows, to see a sender blocked by flow control. */
FIXTURE(flow) {
	int cfd;
	int sfd;
};

FIXTURE_VARIANT(flow) {
	int family;
};

#define QUIC_FIXTURE		flow
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(flow)
{
	const struct pair_params p = {
		.family = variant->family,
		.max_data = FLOW_WINDOW * 2,
		.max_stream_data = FLOW_WINDOW,
	};

	pair_setup(_metadata, &p, &self->cfd, &self->sfd);
}

FIXTURE_TEARDOWN(flow)
{
	pair_teardown(self->cfd, self->sfd);
}

/* One stream read or event, as recvmsg() returned it. */
struct item {
	ssize_t n;
	int64_t sid;
	uint32_t flags;
	unsigned char buf[256];
};

static ssize_t get_item(int fd, struct item *it, int flags)
{
	it->flags = flags;
	it->sid = -1;
	it->n = quic_recvmsg(fd, it->buf, sizeof(it->buf), &it->sid,
			     &it->flags);
	return it->n;
}

/* The next stream item, skipping events. */
static ssize_t get_data(int fd, struct item *it, int flags)
{
	while (get_item(fd, it, flags) >= 0 &&
	       (it->flags & MSG_QUIC_NOTIFICATION))
		;
	return it->n;
}

/* Wait up to @ms ms for a STREAM_UPDATE event for @sid with @state,
 * skipping stream data and other events; fill @u.
 */
static int wait_update_ms(int fd, int64_t sid, uint8_t state,
			  struct quic_stream_update *u, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct item it;
	int i;

	for (i = 0; i < ms / 10; i++) {
		if (get_item(fd, &it, MSG_DONTWAIT) < 0) {
			if (errno != EAGAIN)
				return -errno;
			poll(&pfd, 1, 10);
			continue;
		}
		if (!(it.flags & MSG_QUIC_NOTIFICATION) ||
		    it.buf[0] != QUIC_EVENT_STREAM_UPDATE ||
		    it.n != 1 + (ssize_t)sizeof(*u))
			continue;
		memcpy(u, it.buf + 1, sizeof(*u));
		if (u->id == sid && u->state == state)
			return 0;
	}
	return -ETIMEDOUT;
}

static int wait_update(int fd, int64_t sid, uint8_t state,
		       struct quic_stream_update *u)
{
	return wait_update_ms(fd, sid, state, u, 5000);
}

/* Read one stream to its FIN into @buf (at most @len bytes). */
static ssize_t read_to_fin(int fd, int64_t sid, void *buf, size_t len)
{
	size_t got = 0;
	uint32_t flags;
	int64_t s;
	ssize_t n;

	for (;;) {
		flags = 0;
		n = quic_recvmsg(fd, (char *)buf + got, len - got, &s, &flags);
		if (n < 0)
			return -1;
		if (s != sid) {
			errno = EBADMSG;
			return -1;
		}
		got += n;
		if (flags & MSG_QUIC_STREAM_FIN)
			return got;
		if (got == len) {
			errno = EMSGSIZE;
			return -1;
		}
	}
}

/* Unidirectional streams both ways: the client's first is 2, the
 * server's 3; neither side can send on the other's.
 */
TEST_F(streams, unidirectional)
{
	char buf[64];

	EXPECT_EQ(5, quic_sendmsg(self->cfd, "hello", 5, -1,
				  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_UNI |
				  MSG_QUIC_STREAM_FIN));
	EXPECT_EQ(5, read_to_fin(self->sfd, CUNI(0), buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
	/* The server cannot send on the client's unidirectional stream. */
	EXPECT_EQ(-1, quic_sendmsg(self->sfd, "x", 1, CUNI(0), 0));
	EXPECT_TRUE(errno == EINVAL || errno == ENOSTR);

	EXPECT_EQ(6, quic_sendmsg(self->sfd, "world!", 6, SUNI(0),
				  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN));
	EXPECT_EQ(6, read_to_fin(self->cfd, SUNI(0), buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "world!", 6));
	EXPECT_EQ(-1, quic_sendmsg(self->cfd, "x", 1, SUNI(0), 0));
	EXPECT_TRUE(errno == EINVAL || errno == ENOSTR);

	/* A second stream each, several sends before the FIN. */
	EXPECT_EQ(3, quic_sendmsg(self->cfd, "abc", 3, CUNI(1),
				  MSG_QUIC_STREAM_NEW));
	EXPECT_EQ(3, quic_sendmsg(self->cfd, "def", 3, CUNI(1),
				  MSG_QUIC_STREAM_FIN));
	EXPECT_EQ(6, read_to_fin(self->sfd, CUNI(1), buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "abcdef", 6));
}

/* FIN: a bare FIN after data reads as a zero-length chunk with the FIN
 * flag; the reply on the same bidirectional stream ends it both ways and
 * nothing more is readable.
 */
TEST_F(streams, fin)
{
	struct item it;

	EXPECT_EQ(4, quic_sendmsg(self->cfd, "ping", 4, -1,
				  MSG_QUIC_STREAM_NEW));
	ASSERT_EQ(4, get_item(self->sfd, &it, 0));
	EXPECT_EQ(CBIDI(0), it.sid);
	EXPECT_FALSE(it.flags & MSG_QUIC_STREAM_FIN);
	EXPECT_EQ(0, quic_sendmsg(self->cfd, NULL, 0, CBIDI(0),
				  MSG_QUIC_STREAM_FIN));
	ASSERT_EQ(0, get_item(self->sfd, &it, 0));
	EXPECT_EQ(CBIDI(0), it.sid);
	EXPECT_TRUE(it.flags & MSG_QUIC_STREAM_FIN);
	/* Finished: no more data on it, and nothing else to read. */
	EXPECT_EQ(-1, quic_sendmsg(self->cfd, "x", 1, CBIDI(0), 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, get_item(self->sfd, &it, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);

	EXPECT_EQ(4, quic_sendmsg(self->sfd, "pong", 4, CBIDI(0),
				  MSG_QUIC_STREAM_FIN));
	ASSERT_EQ(4, get_item(self->cfd, &it, 0));
	EXPECT_EQ(CBIDI(0), it.sid);
	EXPECT_TRUE(it.flags & MSG_QUIC_STREAM_FIN);
	EXPECT_EQ(0, memcmp(it.buf, "pong", 4));
}

/* Set the MTU of lo (in the test's own namespace); 0 or -1. */
static int lo_mtu(int mtu)
{
	struct ifreq ifr = { .ifr_name = "lo", .ifr_mtu = mtu };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, SIOCSIFMTU, &ifr);
	close(fd);
	return ret;
}

/*
 * Wait until the client sends datagrams larger than @size: its path MTU
 * search confirmed them. A DATAGRAM frame of @size is refused with
 * EMSGSIZE until then (quic-api.rst 5.5); small ones keep packets, and
 * so the search, going. 0, or -1 if it never happened.
 */
static int wait_dgram_size(int cfd, int sfd, size_t size)
{
	static char buf[16384];
	struct item it;
	int i;

	for (i = 0; i < 600; i++) {
		if (quic_sendmsg(cfd, buf, size, -1,
				 MSG_QUIC_DATAGRAM | MSG_DONTWAIT) == (ssize_t)size)
			return 0;
		if (errno != EMSGSIZE && errno != EAGAIN)
			return -1;
		quic_sendmsg(cfd, buf, 64, -1, MSG_QUIC_DATAGRAM | MSG_DONTWAIT);
		while (get_item(sfd, &it, MSG_DONTWAIT) >= 0)
			;
		usleep(50000);
	}
	return -1;
}

/*
 * The last chunk of a stream, queued for a large datagram size and cut
 * when the path falls back to 1200 bytes, keeps its FIN on its last piece.
 * The client's datagrams grow past 8000 bytes (lo's MTU is 65536), lo
 * shrinks to 1500 bytes, and 256 KiB and the FIN are sent: the first
 * datagrams are too big to leave, the sender falls back at a PTO and cuts
 * every chunk. Before, the first piece of the last chunk went out with
 * the FIN and the server closed with FINAL_SIZE_ERROR.
 */
TEST(fin_after_mtu_fallback)
{
	struct timeval tv = { .tv_sec = 120 };
	static const int fams[] = { AF_INET, AF_INET6 };
	struct quic_transport_param tp = {
		.max_datagram_frame_size = 65535,
	};
	static unsigned char out[256 << 10], in[(256 << 10) + 1];
	uint32_t flags;
	unsigned int f;
	int cfd, sfd, ret;
	size_t got;
	int64_t sid;
	ssize_t n;

	ASSERT_EQ(0, own_netns());
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	fill_random(out, sizeof(out));
	for (f = 0; f < ARRAY_SIZE(fams); f++) {
		ASSERT_EQ(0, lo_mtu(65536));
		ret = quic_pair_open(fams[f], PSK_FILE, &tp, &cfd, &sfd);
		ASSERT_EQ(0, ret) {
			TH_LOG("handshake: %s", strerror(-ret));
		}
		ASSERT_EQ(0, wait_dgram_size(cfd, sfd, 8000)) {
			TH_LOG("family %d: datagrams never grew", fams[f]);
		}
		ASSERT_EQ(0, lo_mtu(1500));
		ASSERT_EQ(0, setsockopt(sfd, SOL_SOCKET, SO_RCVTIMEO, &tv,
					sizeof(tv)));
		ASSERT_EQ((ssize_t)sizeof(out),
			  quic_sendmsg(cfd, out, sizeof(out), -1,
				       MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN));
		for (got = 0;;) {
			flags = 0;
			n = quic_recvmsg(sfd, in + got, sizeof(in) - got, &sid,
					 &flags);
			if (n < 0 || (flags & MSG_QUIC_STREAM_FIN))
				break;
			if (flags & (MSG_QUIC_DATAGRAM | MSG_QUIC_NOTIFICATION))
				continue;
			got += n;
		}
		EXPECT_LE(0, n) {
			TH_LOG("family %d: read %zu bytes, then %s", fams[f],
			       got, strerror(errno));
		}
		if (n > 0)
			got += n;
		EXPECT_EQ(sizeof(out), got);
		EXPECT_EQ(0, memcmp(in, out, sizeof(out)));
		close(cfd);
		close(sfd);
	}
	unlink(PSK_FILE);
}

/*
 * A relay (udp_relay) that counts the sizes of the datagrams the server
 * sends while @count is set. The server's 1-RTT datagrams leave in GSO
 * batches; the relay's socket receives them one datagram at a time, as
 * any receiver on the path would.
 */
struct size_relay {
	struct udp_relay r;
	int count;
	unsigned int sizes[65536];
};

static int size_back(struct udp_relay *r, int from, const unsigned char *buf,
		     ssize_t n)
{
	struct size_relay *x = r->priv;

	if (__atomic_load_n(&x->count, __ATOMIC_ACQUIRE))
		x->sizes[n]++;
	return r->front;
}

/* The relay's sockets hold a few GSO batches. */
#define SIZE_RELAY_RCVBUF	(4 << 20)

/*
 * A client and a server of @family, @tp applied to both, connected
 * through the relay @r, which runs once this returns 0.
 */
static int relay_pair_open(int family, const struct quic_transport_param *tp,
			   struct size_relay *r, int *cfd, int *sfd)
{
	struct quic_pair_server a = { .psk = PSK_FILE, .fd = -1 };
	struct sockaddr_storage ls, fs;
	socklen_t llen, flen = sizeof(fs);
	pthread_t th;
	int ret = -1;

	r->r.front = -1;
	r->r.up = -1;
	r->r.up2 = -1;
	r->r.back = size_back;
	r->r.priv = r;
	*sfd = -1;
	*cfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	a.lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	llen = make_addr(&ls, family, loopback(family), 0);
	if (*cfd < 0 || a.lfd < 0 ||
	    setsockopt(a.lfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, tp,
		       sizeof(*tp)) ||
	    setsockopt(*cfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, tp,
		       sizeof(*tp)) ||
	    bind(a.lfd, (struct sockaddr *)&ls, llen) ||
	    getsockname(a.lfd, (struct sockaddr *)&ls, &llen) ||
	    listen(a.lfd, 4))
		goto out;
	r->r.front = loopback_udp(family, NULL, 0, SIZE_RELAY_RCVBUF);
	r->r.up = loopback_udp(family, &ls, llen, SIZE_RELAY_RCVBUF);
	if (r->r.front < 0 || r->r.up < 0 ||
	    getsockname(r->r.front, (struct sockaddr *)&fs, &flen) ||
	    udp_relay_start(&r->r))
		goto out;
	if (pthread_create(&th, NULL, quic_pair_server_main, &a)) {
		udp_relay_stop(&r->r);
		goto out;
	}
	ret = connect(*cfd, (struct sockaddr *)&fs, flen) ? -errno :
	      quic_client_handshake(*cfd, PSK_FILE, NULL, NULL);
	if (ret)
		shutdown(a.lfd, SHUT_RDWR);
	pthread_join(th, NULL);
	*sfd = a.fd;
	if (!ret)
		ret = a.ret;
out:
	if (a.lfd >= 0)
		close(a.lfd);
	if (ret) {
		udp_relay_stop(&r->r);
		if (*cfd >= 0)
			close(*cfd);
		if (*sfd >= 0)
			close(*sfd);
		*cfd = -1;
		*sfd = -1;
	}
	return ret;
}

/* Read DATAGRAM items from @fd until one of @len bytes: 0, or -1. */
static int wait_datagram_len(int fd, size_t len)
{
	static char buf[16384];
	uint32_t flags;
	int64_t sid;
	ssize_t n;

	do {
		flags = 0;
		n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
		if (n < 0)
			return -1;
	} while (!(flags & MSG_QUIC_DATAGRAM) || (size_t)n != len);
	return 0;
}

#define FULL_LEN	(1024 * 1024)

/*
 * Once the path MTU search has confirmed a datagram size, a bulk sender's
 * datagrams take all of it: STREAM data is cut so that a packet with one
 * chunk and nothing else is exactly that size. lo's MTU is 1500 bytes,
 * which the server's search confirms (1472 bytes of UDP payload over IPv4,
 * 1452 over IPv6: a DATAGRAM frame that fills it is taken); then the
 * server sends 1 MiB on a stream, queued at once, and the relay sees every
 * data datagram at exactly that size but the one with the last bytes, and
 * none larger. Datagrams of half the size or less are the ACK and control
 * frames. Before, every data datagram was 44 bytes or more short.
 */
TEST(full_size_datagrams)
{
	struct timeval tv = { .tv_sec = 120 };
	static const int fams[] = { AF_INET, AF_INET6 };
	struct quic_transport_param tp = {
		.max_datagram_frame_size = 65535,
		.max_data = 4 << 20,
		.max_stream_data_uni = 4 << 20,
	};
	static unsigned char out[FULL_LEN], in[FULL_LEN + 1];
	unsigned int full, data, over, s, dgram;
	int cfd, sfd, ret, val = 8 << 20;
	struct size_relay *r;
	char seen[512];
	size_t off;
	unsigned int f;

	ASSERT_EQ(0, own_netns());
	ASSERT_EQ(0, lo_mtu(1500));
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	fill_random(out, sizeof(out));
	for (f = 0; f < ARRAY_SIZE(fams); f++) {
		dgram = 1500 - (fams[f] == AF_INET ? 20 : 40) - 8;
		r = calloc(1, sizeof(*r));
		ASSERT_NE(NULL, r);
		ret = relay_pair_open(fams[f], &tp, r, &cfd, &sfd);
		ASSERT_EQ(0, ret) {
			TH_LOG("handshake: %s", strerror(-ret));
		}
		ASSERT_EQ(0, setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv,
					sizeof(tv)));
		/* A short header with the client's 8-byte ID and a 4-byte
		 * packet number, the tag, and the frame's type and Length.
		 */
		ASSERT_EQ(0, wait_dgram_size(sfd, cfd, dgram - 32)) {
			TH_LOG("family %d: the search never confirmed %u",
			       fams[f], dgram);
		}
		ASSERT_EQ(0, wait_datagram_len(cfd, dgram - 32));
		__atomic_store_n(&r->count, 1, __ATOMIC_RELEASE);

		ASSERT_EQ(0, setsockopt(sfd, SOL_SOCKET, SO_SNDBUFFORCE, &val,
					sizeof(val)));
		ASSERT_EQ(FULL_LEN, quic_sendmsg(sfd, out, FULL_LEN, SUNI(0),
						 MSG_QUIC_STREAM_NEW |
						 MSG_QUIC_STREAM_FIN));
		EXPECT_EQ(FULL_LEN, read_to_fin(cfd, SUNI(0), in, sizeof(in)));
		EXPECT_EQ(0, memcmp(in, out, FULL_LEN));
		udp_relay_stop(&r->r);

		full = r->sizes[dgram];
		data = 0;
		over = 0;
		off = 0;
		seen[0] = 0;
		for (s = dgram / 2 + 1; s < ARRAY_SIZE(r->sizes); s++) {
			if (!r->sizes[s])
				continue;
			data += r->sizes[s];
			if (s > dgram)
				over += r->sizes[s];
			if (off < sizeof(seen) - 32)
				off += snprintf(seen + off, sizeof(seen) - off,
						" %u x%u", s, r->sizes[s]);
		}
		TH_LOG("family %d: %u data datagrams, sizes (x count):%s",
		       fams[f], data, seen);
		EXPECT_EQ(0, over);
		/* All but the last chunk's (and a copy of it, sent again). */
		EXPECT_LE(data, full + 2);
		EXPECT_LT(FULL_LEN / dgram, full);
		free(r);
		close(cfd);
		close(sfd);
	}
	unlink(PSK_FILE);
}

/*
 * A sender whose peer grants far more credit than its send buffer holds
 * queues no more than the send buffer per call: one non-blocking
 * sendmsg() of 32 MiB, with 256 MiB of stream credit and a 128 KiB send
 * buffer, takes at most the buffer, and SIOCOUTQ stays within twice it
 * (the chunks' own overhead). Before, the whole 32 MiB was queued.
 */
TEST(send_within_sndbuf)
{
	struct quic_transport_param tp = {
		.max_data = 536870911,
		.max_stream_data_bidi_local = 268435455,
		.max_stream_data_bidi_remote = 268435455,
		.max_stream_data_uni = 268435455,
	};
	size_t big = 32 << 20;
	int cfd, sfd, ret, val = 65536;
	socklen_t len = sizeof(val);
	char *buf;
	ssize_t n;

	buf = calloc(1, big);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	ret = quic_pair_open(AF_INET, PSK_FILE, &tp, &cfd, &sfd);
	ASSERT_EQ(0, ret) {
		TH_LOG("handshake: %s", strerror(-ret));
	}
	ASSERT_EQ(0, setsockopt(cfd, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val)));
	ASSERT_EQ(0, getsockopt(cfd, SOL_SOCKET, SO_SNDBUF, &val, &len));
	n = quic_sendmsg(cfd, buf, big, -1,
			 MSG_QUIC_STREAM_NEW | MSG_DONTWAIT);
	EXPECT_LT(0, n);
	EXPECT_GE(val, n);
	n = -1;
	EXPECT_EQ(0, ioctl(cfd, SIOCOUTQ, &n));
	EXPECT_GE(2 * val, n) {
		TH_LOG("SIOCOUTQ %zd, SO_SNDBUF %d", n, val);
	}
	close(cfd);
	close(sfd);
	unlink(PSK_FILE);
	free(buf);
}

/* The queue ioctls on a connection: data that arrived and is not read
 * shows in the receiver's SIOCINQ, and once it arrived nothing is left
 * unsent at the sender (SIOCOUTQNSD).
 */
TEST_F(streams, queue_ioctls)
{
	struct pollfd pfd = { .fd = self->sfd, .events = POLLIN };
	static unsigned char buf[4096];
	struct item it;
	int val, i;

	memset(buf, 'q', sizeof(buf));
	ASSERT_EQ((ssize_t)sizeof(buf),
		  quic_sendmsg(self->cfd, buf, sizeof(buf), -1,
			       MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN));
	/* Readable once the first packet is in: until the path MTU search
	 * confirms more than 1200 bytes, 4 KiB take several, and the reader
	 * may be woken before the last. SIOCINQ grows to all of it unread.
	 */
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	for (i = 0; i < 1000; i++) {
		val = -1;
		ASSERT_EQ(0, ioctl(self->sfd, SIOCINQ, &val));
		if (val >= (int)sizeof(buf))
			break;
		usleep(10000);
	}
	EXPECT_LE((int)sizeof(buf), val);
	val = -1;
	EXPECT_EQ(0, ioctl(self->cfd, SIOCOUTQNSD, &val));
	EXPECT_EQ(0, val);
	val = -1;
	EXPECT_EQ(0, ioctl(self->cfd, SIOCOUTQ, &val));
	EXPECT_LE(0, val);
	while (get_data(self->sfd, &it, MSG_DONTWAIT) > 0)
		;
}

/* The STREAM_UPDATE events of a stream that ends normally: first data
 * and all data received on the receiver, all data acknowledged on the
 * sender, each with the final size where known.
 */
TEST_F(streams, fin_events)
{
	struct quic_stream_update u;

	ASSERT_EQ(0, quic_pair_event(self->cfd, QUIC_EVENT_STREAM_UPDATE, 1));
	ASSERT_EQ(0, quic_pair_event(self->sfd, QUIC_EVENT_STREAM_UPDATE, 1));
	EXPECT_EQ(4, quic_sendmsg(self->cfd, "data", 4, -1,
				  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_UNI));
	ASSERT_EQ(0, wait_update(self->sfd, CUNI(0),
				 QUIC_STREAM_RECV_STATE_RECV, &u));
	EXPECT_EQ(0, u.finalsz);
	EXPECT_EQ(0, quic_sendmsg(self->cfd, NULL, 0, CUNI(0),
				  MSG_QUIC_STREAM_FIN));
	ASSERT_EQ(0, wait_update(self->sfd, CUNI(0),
				 QUIC_STREAM_RECV_STATE_RECVD, &u));
	EXPECT_EQ(4, u.finalsz);
	ASSERT_EQ(0, wait_update(self->cfd, CUNI(0),
				 QUIC_STREAM_SEND_STATE_RECVD, &u));
	EXPECT_EQ(0, u.finalsz);	/* quic-api.rst 5.6: 0 for this one */
	/* Turned off, none come. */
	ASSERT_EQ(0, quic_pair_event(self->sfd, QUIC_EVENT_STREAM_UPDATE, 0));
	EXPECT_EQ(1, quic_sendmsg(self->cfd, "x", 1, CUNI(1),
				  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN));
	EXPECT_EQ(-ETIMEDOUT, wait_update_ms(self->sfd, CUNI(1),
					     QUIC_STREAM_RECV_STATE_RECVD, &u,
					     300));
}

/* RESET_STREAM: the receiver gets a RECV_STATE_RESET_RECVD event with the
 * code and final size, and no error from recvmsg() (quic-api.rst 5.4:
 * the unread data is gone, the connection goes on); the sender, once its
 * reset is acknowledged, a SEND_STATE_RESET_RECVD event.
 */
TEST_F(streams, reset)
{
	struct quic_errinfo ei = { .stream_id = CBIDI(0), .errcode = 42 };
	struct quic_stream_update u;
	struct item it;

	ASSERT_EQ(0, quic_pair_event(self->cfd, QUIC_EVENT_STREAM_UPDATE, 1));
	ASSERT_EQ(0, quic_pair_event(self->sfd, QUIC_EVENT_STREAM_UPDATE, 1));
	EXPECT_EQ(10, quic_sendmsg(self->cfd, "0123456789", 10, -1,
				   MSG_QUIC_STREAM_NEW));
	ASSERT_EQ(10, get_data(self->sfd, &it, 0));
	EXPECT_EQ(0, setsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET,
				&ei, sizeof(ei)));
	/* Reset: no more sends, no second reset. */
	EXPECT_EQ(-1, quic_sendmsg(self->cfd, "x", 1, CBIDI(0), 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_RESET, &ei,
				     sizeof(ei)));

	ASSERT_EQ(0, wait_update(self->sfd, CBIDI(0),
				 QUIC_STREAM_RECV_STATE_RESET_RECVD, &u));
	EXPECT_EQ(42, u.errcode);
	EXPECT_EQ(10, u.finalsz);
	EXPECT_EQ(-1, get_item(self->sfd, &it, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);

	ASSERT_EQ(0, wait_update(self->cfd, CBIDI(0),
				 QUIC_STREAM_SEND_STATE_RESET_RECVD, &u));
	EXPECT_EQ(42, u.errcode);
	EXPECT_EQ(10, u.finalsz);

	/* The other direction of the stream still works. */
	EXPECT_EQ(2, quic_sendmsg(self->sfd, "ok", 2, CBIDI(0),
				  MSG_QUIC_STREAM_FIN));
	ASSERT_EQ(2, get_data(self->cfd, &it, 0));
	EXPECT_EQ(CBIDI(0), it.sid);
	EXPECT_TRUE(it.flags & MSG_QUIC_STREAM_FIN);
}

/* STOP_SENDING: the sender answers with RESET_STREAM carrying the
 * receiver's code (RFC 9000 3.5): a SEND_STATE_RESET_SENT event on the
 * sender, RECV_STATE_RESET_RECVD on the receiver, both with that code.
 */
TEST_F(streams, stop_sending)
{
	struct quic_errinfo ei = { .stream_id = CBIDI(0), .errcode = 7 };
	struct quic_stream_update u;
	struct item it;
	int err;

	ASSERT_EQ(0, quic_pair_event(self->cfd, QUIC_EVENT_STREAM_UPDATE, 1));
	ASSERT_EQ(0, quic_pair_event(self->sfd, QUIC_EVENT_STREAM_UPDATE, 1));
	EXPECT_EQ(3, quic_sendmsg(self->cfd, "abc", 3, -1,
				  MSG_QUIC_STREAM_NEW));
	ASSERT_EQ(3, get_data(self->sfd, &it, 0));
	EXPECT_EQ(0, setsockopt(self->sfd, SOL_QUIC,
				QUIC_SOCKOPT_STREAM_STOP_SENDING, &ei,
				sizeof(ei)));
	/* Outstanding (EAGAIN), or already answered by the reset (EINVAL). */
	err = setopt_err(self->sfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_STOP_SENDING,
			 &ei, sizeof(ei));
	EXPECT_TRUE(err == EAGAIN || err == EINVAL) {
		TH_LOG("second STOP_SENDING: %s", strerror(err));
	}

	ASSERT_EQ(0, wait_update(self->cfd, CBIDI(0),
				 QUIC_STREAM_SEND_STATE_RESET_SENT, &u));
	EXPECT_EQ(7, u.errcode);
	EXPECT_EQ(3, u.finalsz);
	EXPECT_EQ(-1, quic_sendmsg(self->cfd, "x", 1, CBIDI(0), 0));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, wait_update(self->sfd, CBIDI(0),
				 QUIC_STREAM_RECV_STATE_RESET_RECVD, &u));
	EXPECT_EQ(7, u.errcode);
	EXPECT_EQ(3, u.finalsz);
	EXPECT_EQ(-1, get_item(self->sfd, &it, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(EINVAL, setopt_err(self->sfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_STOP_SENDING, &ei,
				     sizeof(ei)));
}

/* Every option of this file: lengths, IDs, directions and states. */
TEST_F(streams, sockopt_errors)
{
	struct quic_errinfo ei = {};
	struct quic_stream_info si;
	unsigned char big[4097] = {};
	socklen_t len;
	int fd, i;

	/* Directions that do not exist. */
	memset(&si, 0, sizeof(si));
	EXPECT_EQ(ENOPROTOOPT, setopt_err(self->cfd, SOL_QUIC,
					  QUIC_SOCKOPT_STREAM_OPEN, &si,
					  sizeof(si)));
	len = sizeof(ei);
	EXPECT_EQ(ENOPROTOOPT, getopt_err(self->cfd, SOL_QUIC,
					  QUIC_SOCKOPT_STREAM_RESET, &ei,
					  &len));
	EXPECT_EQ(ENOPROTOOPT, getopt_err(self->cfd, SOL_QUIC,
					  QUIC_SOCKOPT_STREAM_STOP_SENDING,
					  &ei, &len));
	/* Over-long, negative and unreadable arguments. */
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_RESET, big,
				     sizeof(big)));
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_STOP_SENDING, big,
				     sizeof(big)));
	EXPECT_EQ(EFAULT, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_RESET, NULL,
				     sizeof(ei)));
	len = -1;
	EXPECT_EQ(EINVAL, getopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_OPEN, &si, &len));
	len = sizeof(si);
	EXPECT_EQ(EFAULT, getopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_OPEN, NULL, &len));

	/* STREAM_OPEN: bad flags, the peer's streams, the stream limit. */
	si.stream_id = -1;
	si.stream_flags = MSG_QUIC_DATAGRAM;
	len = sizeof(si);
	EXPECT_EQ(EINVAL, getopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_OPEN, &si, &len));
	si.stream_id = 1;
	si.stream_flags = 0;
	EXPECT_EQ(EINVAL, getopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_OPEN, &si, &len));
	si.stream_id = CBIDI(STREAMS);	/* the limit */
	si.stream_flags = MSG_QUIC_STREAM_DONTWAIT;
	EXPECT_EQ(EAGAIN, getopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_OPEN, &si, &len));
	/* -1 opens the next stream of the type; a larger buffer gets 16. */
	si.stream_id = -1;
	si.stream_flags = 0;
	len = 32;
	EXPECT_EQ(0, getsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN,
				&si, &len));
	EXPECT_EQ(sizeof(si), len);
	EXPECT_EQ(CBIDI(0), si.stream_id);
	si.stream_id = -1;
	si.stream_flags = MSG_QUIC_STREAM_UNI;
	EXPECT_EQ(0, getsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN,
				&si, &len));
	EXPECT_EQ(CUNI(0), si.stream_id);
	si.stream_id = CBIDI(5);	/* opens 1 to 5 */
	si.stream_flags = 0;
	EXPECT_EQ(0, getsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN,
				&si, &len));
	EXPECT_EQ(CBIDI(5), si.stream_id);
	/* An open stream that has not sent can be opened again. */
	EXPECT_EQ(0, getsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN,
				&si, &len));

	/* STREAM_RESET: bad IDs, wrong direction, not opened. */
	ei.stream_id = -5;
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_RESET, &ei,
				     sizeof(ei)));
	ei.stream_id = SUNI(0);	/* the server's unidirectional stream */
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_RESET, &ei,
				     sizeof(ei)));
	ei.stream_id = CBIDI(40);
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_RESET, &ei,
				     sizeof(ei)));
	ei.stream_id = 1;	/* the server's bidirectional stream: not open */
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_RESET, &ei,
				     sizeof(ei)));
	/* A short argument reads as zero beyond it: stream 0, code 0. */
	ei.stream_id = CBIDI(0);
	EXPECT_EQ(0, setsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET,
				&ei, sizeof(ei.stream_id)));
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_RESET, &ei,
				     sizeof(ei)));

	/* STOP_SENDING: our unidirectional stream cannot receive. */
	ei.stream_id = CUNI(0);
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_STOP_SENDING, &ei,
				     sizeof(ei)));
	ei.stream_id = CBIDI(41);
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_STOP_SENDING, &ei,
				     sizeof(ei)));
	ei.stream_id = -1;
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_STOP_SENDING, &ei,
				     sizeof(ei)));
	ei.stream_id = CBIDI(1);
	ei.errcode = 9;
	EXPECT_EQ(0, setsockopt(self->cfd, SOL_QUIC,
				QUIC_SOCKOPT_STREAM_STOP_SENDING, &ei,
				sizeof(ei)));

	/* A stream closed both ways and freed: ENOSTR. */
	EXPECT_EQ(1, quic_sendmsg(self->cfd, "x", 1, CUNI(0),
				  MSG_QUIC_STREAM_FIN));
	ei.stream_id = CUNI(0);
	for (i = 0; i < 200; i++) {
		if (setopt_err(self->cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET,
			       &ei, sizeof(ei)) == ENOSTR)
			break;
		usleep(10000);
	}
	EXPECT_EQ(ENOSTR, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_RESET, &ei,
				     sizeof(ei)));
	EXPECT_EQ(-1, quic_sendmsg(self->cfd, "x", 1, CUNI(0), 0));
	EXPECT_EQ(ENOSTR, errno);

	/* Without a connection. */
	fd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, fd);
	ei.stream_id = 0;
	EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET,
				     &ei, sizeof(ei)));
	EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
				     QUIC_SOCKOPT_STREAM_STOP_SENDING, &ei,
				     sizeof(ei)));
	si.stream_id = -1;
	si.stream_flags = 0;
	len = sizeof(si);
	EXPECT_EQ(EPIPE, getopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN,
				    &si, &len));
	close(fd);
}

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 13 + (i >> 12));
}

struct sender {
	int fd;
	int64_t sid;
	size_t off;	/* stream offset of the first byte */
	size_t len;
	size_t sent;
	int err;
	int done;	/* read and written with __atomic builtins */
};

/* Blocking sends of @len pattern bytes, then the FIN. */
static void *sender_main(void *p)
{
	struct sender *a = p;
	unsigned char buf[4096];
	size_t i, n;
	ssize_t r;

	while (a->sent < a->len) {
		n = a->len - a->sent;
		if (n > sizeof(buf))
			n = sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = pattern(a->off + a->sent + i);
		r = quic_sendmsg(a->fd, buf, n, a->sid,
				 a->sent + n == a->len ? MSG_QUIC_STREAM_FIN : 0);
		if (r < 0) {
			a->err = errno;
			break;
		}
		__atomic_store_n(&a->sent, a->sent + r, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A receiver that does not read stops the sender at the stream window:
 * a non-blocking send gives EAGAIN (ENOSPC with a stream cmsg) and a
 * blocking one waits; it resumes as soon as the receiver reads.
 */
TEST_F(flow, blocked_sender)
{
	struct sender a = { .fd = self->cfd, .sid = CBIDI(0) };
	unsigned char buf[4096];
	size_t total, got, i;
	uint32_t flags;
	int again = 0, bad = 0;
	pthread_t th;
	int64_t sid;
	ssize_t n;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = pattern(i);
	ASSERT_EQ(1000, quic_sendmsg(self->cfd, buf, 1000, -1,
				     MSG_QUIC_STREAM_NEW));
	total = 1000;
	while (again < 5 && total < 8 * FLOW_WINDOW) {
		for (i = 0; i < sizeof(buf); i++)
			buf[i] = pattern(total + i);
		/* No stream cmsg: the active stream, EAGAIN when blocked. */
		n = send(self->cfd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0) {
			total += n;
			continue;
		}
		ASSERT_EQ(EAGAIN, errno);
		again++;
		usleep(20000);
	}
	/* The peer's stream window, exactly. */
	EXPECT_EQ(FLOW_WINDOW, total);
	EXPECT_EQ(-1, quic_sendmsg(self->cfd, buf, 10, CBIDI(0), MSG_DONTWAIT));
	EXPECT_EQ(ENOSPC, errno);

	a.off = total;
	a.len = 6 * FLOW_WINDOW;
	ASSERT_EQ(0, pthread_create(&th, NULL, sender_main, &a));
	usleep(300000);
	EXPECT_EQ(0, __atomic_load_n(&a.done, __ATOMIC_ACQUIRE));
	EXPECT_EQ(0, __atomic_load_n(&a.sent, __ATOMIC_RELAXED));

	got = 0;
	for (;;) {
		flags = 0;
		n = quic_recvmsg(self->sfd, buf, sizeof(buf), &sid, &flags);
		if (n < 0) {
			TH_LOG("recvmsg: %s", strerror(errno));
			break;
		}
		EXPECT_EQ(CBIDI(0), sid);
		for (i = 0; i < (size_t)n; i++)
			bad += buf[i] != pattern(got + i);
		got += n;
		if (flags & MSG_QUIC_STREAM_FIN)
			break;
	}
	pthread_join(th, NULL);
	EXPECT_EQ(0, a.err);
	EXPECT_EQ(a.len, a.sent);
	EXPECT_EQ(total + a.len, got);
	EXPECT_EQ(0, bad);
}

/* A non-blocking send with FIN that flow control cuts short keeps its
 * stream active and its FIN pending (quic-api.rst 5.2): the rest goes on
 * with stream ID -1, and only the send that queues the last byte queues
 * the FIN and gives the stream up.
 */
TEST_F(flow, partial_fin)
{
	static unsigned char buf[4 * FLOW_WINDOW], rbuf[4 * FLOW_WINDOW];
	struct pollfd pfd = { .fd = self->sfd, .events = POLLIN };
	size_t len = sizeof(buf), sent = 0, got = 0, i;
	int fin_seen = 0, bad = 0, rounds = 0;
	uint32_t flags;
	int64_t sid;
	ssize_t n;

	for (i = 0; i < len; i++)
		buf[i] = pattern(i);
	n = quic_sendmsg(self->cfd, buf, len, -1,
			 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN |
			 MSG_DONTWAIT);
	ASSERT_LT(0, n) {
		TH_LOG("first send: %s", strerror(errno));
	}
	/* The peer's stream window took part of it, not all. */
	ASSERT_GT((ssize_t)len, n);
	sent = n;
	while (got < len || !fin_seen) {
		ASSERT_GT(10000, ++rounds);
		if (sent < len) {
			n = quic_sendmsg(self->cfd, buf + sent, len - sent, -1,
					 MSG_QUIC_STREAM_FIN | MSG_DONTWAIT);
			if (n >= 0) {
				sent += n;
			} else {
				/* Flow control, or a full send buffer. */
				ASSERT_TRUE(errno == ENOSPC ||
					    errno == EAGAIN) {
					TH_LOG("send at %zu: %s", sent,
					       strerror(errno));
				}
			}
		}
		if (poll(&pfd, 1, 100) != 1)
			continue;
		flags = MSG_DONTWAIT;
		n = quic_recvmsg(self->sfd, rbuf + got, len - got, &sid,
				 &flags);
		if (n < 0) {
			ASSERT_EQ(EAGAIN, errno);
			continue;
		}
		if (flags & MSG_QUIC_NOTIFICATION)
			continue;
		EXPECT_EQ(CBIDI(0), sid);
		got += n;
		if (flags & MSG_QUIC_STREAM_FIN) {
			/* Not before the last byte. */
			EXPECT_EQ(len, got);
			fin_seen = 1;
		}
	}
	for (i = 0; i < len; i++)
		bad += rbuf[i] != pattern(i);
	EXPECT_EQ(0, bad);
	/* The stream is finished: -1 now opens the next one. */
	EXPECT_EQ(3, quic_sendmsg(self->cfd, "abc", 3, -1,
				  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN));
	EXPECT_EQ(3, read_to_fin(self->sfd, CBIDI(1), rbuf, sizeof(rbuf)));
}

/* STREAMS bidirectional streams open at once: the client sends on each
 * without ending any, then ends them all; the server reads every stream
 * to its FIN and answers on it; the client reads every answer.
 */
TEST_F_TIMEOUT(streams, many_streams, 300)
{
	static size_t got[STREAMS];
	static char data[STREAMS][32];
	char msg[32], want[32];
	int i, fins, len;
	struct item it;
	size_t idx;

	memset(got, 0, sizeof(got));
	for (i = 0; i < STREAMS; i++) {
		len = snprintf(msg, sizeof(msg), "stream %d", i);
		ASSERT_EQ(len, quic_sendmsg(self->cfd, msg, len, CBIDI(i),
					    MSG_QUIC_STREAM_NEW)) {
			TH_LOG("stream %d: %s", i, strerror(errno));
		}
	}
	for (i = 0; i < STREAMS; i++)
		ASSERT_EQ(0, quic_sendmsg(self->cfd, NULL, 0, CBIDI(i),
					  MSG_QUIC_STREAM_FIN));
	for (fins = 0; fins < STREAMS; ) {
		ASSERT_LE(0, get_item(self->sfd, &it, 0)) {
			TH_LOG("server recvmsg: %s", strerror(errno));
		}
		ASSERT_EQ(0, it.sid % 4);
		idx = it.sid / 4;
		ASSERT_GT(STREAMS, idx);
		ASSERT_GE(sizeof(data[0]), got[idx] + it.n);
		memcpy(data[idx] + got[idx], it.buf, it.n);
		got[idx] += it.n;
		if (!(it.flags & MSG_QUIC_STREAM_FIN))
			continue;
		fins++;
		len = snprintf(want, sizeof(want), "stream %zu", idx);
		EXPECT_EQ((size_t)len, got[idx]);
		EXPECT_EQ(0, memcmp(want, data[idx], len));
		len = snprintf(msg, sizeof(msg), "reply %zu", idx);
		ASSERT_EQ(len, quic_sendmsg(self->sfd, msg, len, it.sid,
					    MSG_QUIC_STREAM_FIN));
	}
	memset(got, 0, sizeof(got));
	for (fins = 0; fins < STREAMS; ) {
		ASSERT_LE(0, get_item(self->cfd, &it, 0)) {
			TH_LOG("client recvmsg: %s", strerror(errno));
		}
		idx = it.sid / 4;
		ASSERT_GT(STREAMS, idx);
		ASSERT_GE(sizeof(data[0]), got[idx] + it.n);
		memcpy(data[idx] + got[idx], it.buf, it.n);
		got[idx] += it.n;
		if (!(it.flags & MSG_QUIC_STREAM_FIN))
			continue;
		fins++;
		len = snprintf(want, sizeof(want), "reply %zu", idx);
		EXPECT_EQ((size_t)len, got[idx]);
		EXPECT_EQ(0, memcmp(want, data[idx], len));
	}
	/* Every stream is closed: a new one can be opened past the
	 * initial limit only thanks to MAX_STREAMS.
	 */
	for (i = 0; i < 100; i++) {
		if (quic_sendmsg(self->cfd, "x", 1, CBIDI(STREAMS),
				 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN |
				 MSG_QUIC_STREAM_DONTWAIT) == 1)
			break;
		EXPECT_EQ(EAGAIN, errno);
		usleep(20000);
	}
	EXPECT_GT(100, i);
}

/* Pseudo-random bytes that depend only on the stream offset. */
static void big_fill(unsigned char *b, size_t off, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t x = ((off + i) >> 3) * 0x9e3779b97f4a7c15ULL + 1;

		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ULL;
		x ^= x >> 32;
		b[i] = (unsigned char)(x >> (((off + i) & 7) * 8));
	}
}

struct big_sender {
	int fd;
	int err;
	size_t sent;
	unsigned char digest[32];
};

static void *big_sender_main(void *p)
{
	struct big_sender *a = p;
	static unsigned char buf[65536];
	gnutls_hash_hd_t h;
	uint32_t flags;
	size_t n;
	ssize_t r;

	if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256)) {
		a->err = EINVAL;
		return NULL;
	}
	while (a->sent < BIG_LEN) {
		n = BIG_LEN - a->sent;
		if (n > sizeof(buf))
			n = sizeof(buf);
		big_fill(buf, a->sent, n);
		flags = a->sent ? 0 : MSG_QUIC_STREAM_NEW;
		if (a->sent + n == BIG_LEN)
			flags |= MSG_QUIC_STREAM_FIN;
		r = quic_sendmsg(a->fd, buf, n, CBIDI(0), flags);
		if (r < 0) {
			a->err = errno;
			break;
		}
		gnutls_hash(h, buf, r);
		a->sent += r;
	}
	gnutls_hash_deinit(h, a->digest);
	return NULL;
}

/* 100 MiB on one stream; both ends hash what they sent and read. */
TEST_F_TIMEOUT(streams, transfer_100m, 900)
{
	struct big_sender a = { .fd = self->cfd };
	static unsigned char buf[65536];
	unsigned char digest[32];
	struct timespec t0, t1;
	gnutls_hash_hd_t h;
	size_t got = 0;
	uint32_t flags;
	pthread_t th;
	int64_t sid;
	double secs;
	ssize_t n;

	ASSERT_EQ(0, gnutls_hash_init(&h, GNUTLS_DIG_SHA256));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, pthread_create(&th, NULL, big_sender_main, &a));
	for (;;) {
		flags = 0;
		n = quic_recvmsg(self->sfd, buf, sizeof(buf), &sid, &flags);
		if (n < 0) {
			TH_LOG("recvmsg after %zu bytes: %s", got,
			       strerror(errno));
			break;
		}
		EXPECT_EQ(CBIDI(0), sid);
		gnutls_hash(h, buf, n);
		got += n;
		if (flags & MSG_QUIC_STREAM_FIN)
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(th, NULL);
	gnutls_hash_deinit(h, digest);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	TH_LOG("%zu bytes in %.2f s: %.1f MB/s", got, secs,
	       got / secs / 1e6);
	EXPECT_EQ(0, a.err);
	EXPECT_EQ(BIG_LEN, a.sent);
	EXPECT_EQ(BIG_LEN, got);
	EXPECT_EQ(0, memcmp(digest, a.digest, sizeof(digest)));
}

TEST_HARNESS_MAIN
