// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC connection IDs and closing, over established loopback connections
 * (quic-api.rst 5.6, 5.8 and 5.11; RFC 9000 sections 5.1, 6, 10):
 * QUIC_SOCKOPT_CONNECTION_ID get and set, NEW_CONNECTION_ID and
 * RETIRE_CONNECTION_ID seen through it and through CONNECTION_ID events,
 * the idle timeout, close codes and reason phrases, shutdown(), Stateless
 * Reset, Version Negotiation to a raw UDP socket, the MIB counters of
 * connections opened and closed, and which end may move its address
 * (RFC 9000 9): a server's preferred address, no established server, a
 * client that drops packets from a server address it does not know, a
 * server whose client a NAT rebinds and whose first PATH_CHALLENGE to
 * the new port is lost.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "quic_conn_common.h"

#define PSK_FILE	"/tmp/quic_conn_test.psk"
#define SNMP		"/proc/net/quic/snmp"

FIXTURE(conn) {
	int cfd;
	int sfd;
};

FIXTURE_VARIANT(conn) {
	int family;
};

#define QUIC_FIXTURE		conn
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(conn)
{
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	self->cfd = -1;
	self->sfd = -1;
}

FIXTURE_TEARDOWN(conn)
{
	if (self->sfd >= 0)
		close(self->sfd);
	if (self->cfd >= 0)
		close(self->cfd);
	unlink(PSK_FILE);
}

/* An established pair; @tp (or NULL) applies to both sides. */
static int pair(struct __test_metadata *_metadata, int family,
		const struct quic_transport_param *tp, int *cfd, int *sfd)
{
	int ret = quic_pair_open(family, PSK_FILE, tp, cfd, sfd);

	if (ret)
		TH_LOG("handshake: %s", strerror(-ret));
	return ret;
}

static int get_cid(int fd, int dest, struct quic_connection_id_info *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	info->dest = dest;
	return getopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_ID, info,
			  &len);
}

static int set_cid(int fd, int dest, uint32_t active, uint32_t prior_to)
{
	struct quic_connection_id_info info = {
		.dest = dest, .active = active, .prior_to = prior_to,
	};

	return setopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_ID, &info,
			  sizeof(info));
}

static int event_on(int fd, int type)
{
	return quic_pair_event(fd, type, 1) ? errno : 0;
}

/* Wait up to @ms for @events on @fd; the revents, or 0. */
static int wait_fd(int fd, short events, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	if (poll(&pfd, 1, ms) != 1)
		return 0;
	return pfd.revents;
}

/* Read one message; *@notif says whether it was an event. The length,
 * or -errno.
 */
static ssize_t read_msg(int fd, void *buf, size_t len, int *notif)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	char cbuf[256];
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT);

	if (n < 0)
		return -errno;
	*notif = !!(m.msg_flags & MSG_QUIC_NOTIFICATION);
	return n;
}

static int so_error(int fd)
{
	socklen_t len = sizeof(int);
	int err = -1;

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		return -1;
	return err;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The CONNECTION_ID option: EINVAL unless established or with a short
 * buffer; both sets start at number 0.
 */
TEST_F(conn, cid_get)
{
	struct quic_connection_id_info info;
	socklen_t len;
	int fd;

	fd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, get_cid(fd, 0, &info));
	EXPECT_EQ(EINVAL, set_cid(fd, 0, 0, 1));
	close(fd);
	ASSERT_EQ(0, pair(_metadata, variant->family, NULL, &self->cfd,
			  &self->sfd));
	len = 0;
	EXPECT_EQ(EINVAL, getopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_ID, &info, &len));
	len = sizeof(info) - 1;
	EXPECT_EQ(EINVAL, getopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_ID, &info, &len));
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_ID, &info, 4));
	{
		char big[64] = {};

		len = sizeof(big);
		EXPECT_EQ(0, getopt_err(self->cfd, SOL_QUIC,
					QUIC_SOCKOPT_CONNECTION_ID, big, &len));
		EXPECT_EQ(sizeof(info), len);
	}
	EXPECT_EQ(0, get_cid(self->cfd, 0, &info));
	EXPECT_EQ(0U, info.active);
	EXPECT_EQ(0U, info.prior_to);
	EXPECT_EQ(0, get_cid(self->sfd, 1, &info));
	EXPECT_EQ(0U, info.active);
	EXPECT_EQ(0U, info.prior_to);
}

/* Each side issues NEW_CONNECTION_IDs up to the other's limit (7 by
 * default): the client can switch to the server's ID 6 but 7 does not
 * exist. Retiring the client's ID 0 reaches the server (its active ID
 * moves to 1), comes back as RETIRE_CONNECTION_ID (a CONNECTION_ID event
 * on the client), and data still flows on the new IDs.
 */
TEST_F(conn, new_cid)
{
	struct quic_connection_id_info info;
	unsigned char buf[128];
	int i, notif, err = -1;
	uint32_t flags = 0;
	int64_t sid;
	ssize_t n;

	ASSERT_EQ(0, pair(_metadata, variant->family, NULL, &self->cfd,
			  &self->sfd));
	ASSERT_EQ(0, event_on(self->cfd, QUIC_EVENT_CONNECTION_ID));
	for (i = 0; i < 100 && err; i++) {
		err = set_cid(self->cfd, 1, 6, 0);
		if (err)
			msleep(20);
	}
	EXPECT_EQ(0, err);
	EXPECT_EQ(EINVAL, set_cid(self->cfd, 1, 7, 0));
	EXPECT_EQ(EINVAL, set_cid(self->cfd, 1, 5, 0));	/* not forward */
	EXPECT_EQ(0, get_cid(self->cfd, 1, &info));
	EXPECT_EQ(6U, info.active);
	EXPECT_EQ(0, set_cid(self->cfd, 1, 0, 0));	/* no change */

	EXPECT_EQ(EINVAL, set_cid(self->cfd, 0, 0, 100));
	EXPECT_EQ(EINVAL, set_cid(self->cfd, 0, 0, 0xfffffff0));
	EXPECT_EQ(0, set_cid(self->cfd, 0, 0, 1));
	EXPECT_EQ(0, get_cid(self->cfd, 0, &info));
	EXPECT_EQ(1U, info.prior_to);
	EXPECT_EQ(EINVAL, set_cid(self->cfd, 0, 0, 1));	/* not above */

	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, get_cid(self->sfd, 1, &info));
		if (info.prior_to == 1)
			break;
		msleep(20);
	}
	EXPECT_EQ(1U, info.prior_to);
	EXPECT_EQ(1U, info.active);

	/* The server's RETIRE_CONNECTION_ID of number 0. */
	EXPECT_NE(0, wait_fd(self->cfd, POLLIN, 3000) & POLLIN);
	n = read_msg(self->cfd, buf, sizeof(buf), &notif);
	ASSERT_EQ((ssize_t)(1 + sizeof(info)), n);
	EXPECT_EQ(1, notif);
	EXPECT_EQ(QUIC_EVENT_CONNECTION_ID, buf[0]);
	memcpy(&info, buf + 1, sizeof(info));
	EXPECT_EQ(0, info.dest);
	EXPECT_EQ(1U, info.prior_to);

	/* The server now sends to the client's ID 1, the client to the
	 * server's ID 6.
	 */
	n = quic_sendmsg(self->sfd, "ping", 4, -1,
			 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN);
	EXPECT_EQ(4, n);
	EXPECT_NE(0, wait_fd(self->cfd, POLLIN, 3000) & POLLIN);
	n = quic_recvmsg(self->cfd, buf, sizeof(buf), &sid, &flags);
	EXPECT_EQ(4, n);
	EXPECT_EQ(0, memcmp(buf, "ping", 4));
	n = quic_sendmsg(self->cfd, "pong", 4, -1,
			 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN);
	EXPECT_EQ(4, n);
	EXPECT_NE(0, wait_fd(self->sfd, POLLIN, 3000) & POLLIN);
	flags = 0;
	n = quic_recvmsg(self->sfd, buf, sizeof(buf), &sid, &flags);
	EXPECT_EQ(4, n);
}

/* A 1 s max_idle_timeout on both sides closes both, silently: an
 * all-zero CONNECTION_CLOSE event, ETIMEDOUT, then ENOTCONN.
 */
TEST_F_TIMEOUT(conn, idle_timeout, 90)
{
	struct quic_connection_close cc;
	unsigned char buf[128];
	int notif, fds[2], i;
	ssize_t n;

	struct quic_transport_param tp = { .max_idle_timeout = 1000000 };

	/* The event is enabled before the handshake (the accepted socket
	 * inherits it): on a loaded machine the second may pass before
	 * the test could ask afterwards.
	 */
	ASSERT_EQ(0, quic_pair_open_events(variant->family, PSK_FILE, &tp,
					   1U << QUIC_EVENT_CONNECTION_CLOSE,
					   &self->cfd, &self->sfd));
	fds[0] = self->cfd;
	fds[1] = self->sfd;
	/* The timeout is at least three PTOs (RFC 9000 10.1), and a PTO
	 * under TCG can be seconds: wait generously, it is only a bound.
	 */
	for (i = 0; i < 2; i++) {
		EXPECT_NE(0, wait_fd(fds[i], POLLIN, 30000) & POLLHUP);
		n = read_msg(fds[i], buf, sizeof(buf), &notif);
		ASSERT_EQ((ssize_t)(1 + sizeof(cc)), n);
		EXPECT_EQ(1, notif);
		EXPECT_EQ(QUIC_EVENT_CONNECTION_CLOSE, buf[0]);
		memcpy(&cc, buf + 1, sizeof(cc));
		EXPECT_EQ(0U, cc.errcode);
		EXPECT_EQ(0, cc.phrase[0]);
		EXPECT_EQ(ETIMEDOUT, so_error(fds[i]));
		EXPECT_EQ(-ENOTCONN, read_msg(fds[i], buf, sizeof(buf),
					      &notif));
	}
}

/* close() sends the code and phrase set with CONNECTION_CLOSE; the peer
 * reports them in its event and its getsockopt.
 */
TEST_F(conn, close_code_phrase)
{
	struct quic_connection_close cc = { .errcode = 42 }, got;
	unsigned char buf[128];
	socklen_t len;
	int notif;
	ssize_t n;

	strcpy((char *)cc.phrase, "bye bye");
	ASSERT_EQ(0, pair(_metadata, variant->family, NULL, &self->cfd,
			  &self->sfd));
	ASSERT_EQ(0, event_on(self->sfd, QUIC_EVENT_CONNECTION_CLOSE));
	ASSERT_EQ(0, setopt_err(self->cfd, SOL_QUIC,
				QUIC_SOCKOPT_CONNECTION_CLOSE, &cc,
				sizeof(cc)));
	EXPECT_EQ(0, close(self->cfd));
	self->cfd = -1;

	EXPECT_NE(0, wait_fd(self->sfd, POLLIN, 3000) & POLLIN);
	n = read_msg(self->sfd, buf, sizeof(buf), &notif);
	ASSERT_EQ((ssize_t)(1 + sizeof(got)), n);
	EXPECT_EQ(1, notif);
	EXPECT_EQ(QUIC_EVENT_CONNECTION_CLOSE, buf[0]);
	memcpy(&got, buf + 1, sizeof(got));
	EXPECT_EQ(42U, got.errcode);
	EXPECT_STREQ("bye bye", (char *)got.phrase);
	memset(&got, 0, sizeof(got));
	len = sizeof(got);
	EXPECT_EQ(0, getopt_err(self->sfd, SOL_QUIC,
				QUIC_SOCKOPT_CONNECTION_CLOSE, &got, &len));
	EXPECT_EQ(42U, got.errcode);
	EXPECT_STREQ("bye bye", (char *)got.phrase);
	EXPECT_EQ(ECONNRESET, so_error(self->sfd));
	EXPECT_EQ(-ENOTCONN, read_msg(self->sfd, buf, sizeof(buf), &notif));
}

#define LINGER_LEN	(1024 * 1024)

struct linger_reader {
	int fd;
	size_t got;
	int fin;
	int bad;
};

static void *linger_reader_main(void *p)
{
	static unsigned char buf[65536];
	struct linger_reader *r = p;
	uint32_t flags;
	int64_t sid;
	ssize_t n, i;

	for (;;) {
		flags = 0;
		n = quic_recvmsg(r->fd, buf, sizeof(buf), &sid, &flags);
		if (n < 0)
			break;
		if (flags & MSG_QUIC_NOTIFICATION)
			continue;
		for (i = 0; i < n; i++)
			if (buf[i] != (unsigned char)(r->got + i))
				r->bad++;
		r->got += n;
		if (flags & MSG_QUIC_STREAM_FIN) {
			r->fin = 1;
			break;
		}
	}
	return NULL;
}

/* close() with SO_LINGER waits for the peer to acknowledge what was
 * queued, sending lost packets again: with netem dropping 10% of the
 * packets on lo, the reader still gets every byte and the FIN. (Without
 * SO_LINGER, close() sends once and what is lost stays lost.) In a
 * network namespace of its own, so that netem touches no other lo.
 */
TEST_F(conn, linger_close)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 60 };
	struct linger_reader r = { .fd = -1 };
	unsigned char *buf;
	pthread_t th;
	size_t i;

	ASSERT_EQ(0, own_netns()) {
		TH_LOG("network namespace: %s", strerror(errno));
	}
	ASSERT_EQ(0, pair(_metadata, variant->family, NULL, &self->cfd,
			  &self->sfd));
	buf = malloc(LINGER_LEN);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < LINGER_LEN; i++)
		buf[i] = (unsigned char)i;
	r.fd = self->sfd;
	if (system("tc qdisc add dev lo root netem loss 10% 2>/dev/null")) {
		free(buf);
		SKIP(return, "no tc or netem");
	}
	ASSERT_EQ(0, pthread_create(&th, NULL, linger_reader_main, &r));
	EXPECT_EQ(LINGER_LEN, quic_sendmsg(self->cfd, buf, LINGER_LEN, -1,
					   MSG_QUIC_STREAM_NEW |
					   MSG_QUIC_STREAM_FIN));
	ASSERT_EQ(0, setsockopt(self->cfd, SOL_SOCKET, SO_LINGER, &lg,
				sizeof(lg)));
	EXPECT_EQ(0, close(self->cfd));
	self->cfd = -1;
	/* A lost CONNECTION_CLOSE must not leave the reader waiting. */
	shutdown(self->sfd, SHUT_RDWR);
	pthread_join(th, NULL);
	EXPECT_EQ((size_t)LINGER_LEN, r.got);
	EXPECT_EQ(1, r.fin);
	EXPECT_EQ(0, r.bad);
	free(buf);
}

/* shutdown(SHUT_WR) sends the close and ends the connection on both
 * sides; then ENOTCONN. On a listener, as on TCP, SHUT_WR does nothing
 * and SHUT_RD stops it (socket.c tests the wakeups).
 */
TEST_F(conn, shutdown)
{
	struct sockaddr_storage ss;
	unsigned char buf[16];
	socklen_t len;
	int notif, lfd;

	lfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, lfd);
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, listen(lfd, 4));
	EXPECT_EQ(0, shutdown(lfd, SHUT_WR));
	EXPECT_EQ(0, shutdown(lfd, SHUT_RD));
	EXPECT_EQ(-1, shutdown(lfd, SHUT_RDWR));
	EXPECT_EQ(ENOTCONN, errno);
	close(lfd);

	ASSERT_EQ(0, pair(_metadata, variant->family, NULL, &self->cfd,
			  &self->sfd));
	EXPECT_EQ(0, shutdown(self->cfd, SHUT_WR));
	EXPECT_EQ(-1, shutdown(self->cfd, SHUT_WR));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-ENOTCONN, read_msg(self->cfd, buf, sizeof(buf), &notif));
	EXPECT_NE(0, wait_fd(self->sfd, POLLIN, 3000) & POLLHUP);
	EXPECT_EQ(-ENOTCONN, read_msg(self->sfd, buf, sizeof(buf), &notif));
	EXPECT_EQ(ECONNRESET, so_error(self->sfd));
}

/* A recv() and a poll() blocked in other threads on a connection with
 * nothing to read are woken by its shutdown(SHUT_RD): EOF (ENOTCONN,
 * quic-api.rst 9.11) and POLLHUP.
 */
TEST_F(conn, shutdown_wakes_readers)
{
	struct blocked_call r = { .fd = -1, .op = BLOCKED_RECV };
	struct blocked_call p = { .fd = -1, .op = BLOCKED_POLL };

	ASSERT_EQ(0, pair(_metadata, variant->family, NULL, &self->cfd,
			  &self->sfd));
	r.fd = self->sfd;
	p.fd = self->sfd;
	ASSERT_EQ(0, blocked_call_start(&r));
	ASSERT_EQ(0, blocked_call_start(&p));
	EXPECT_EQ(1, blocked_call_asleep(&r));
	EXPECT_EQ(1, blocked_call_asleep(&p));
	EXPECT_EQ(0, shutdown(self->sfd, SHUT_RD));
	ASSERT_EQ(1, blocked_call_finish(&r));
	ASSERT_EQ(1, blocked_call_finish(&p));
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(ENOTCONN, r.err);
	EXPECT_EQ(1, p.ret);
	EXPECT_NE(0, p.revents & POLLHUP);
}

/* shutdown(SHUT_RD) ends the server's connection without a word; the
 * client's next packet meets no connection and draws a Stateless Reset
 * with the token the server advertised: the client closes with a
 * CRYPTO_ERROR event.
 */
TEST_F(conn, stateless_reset)
{
	struct quic_connection_close cc;
	unsigned char buf[128];
	int notif;
	ssize_t n;

	struct quic_transport_param tp = { .stateless_reset = 1 };

	ASSERT_EQ(0, pair(_metadata, variant->family, &tp, &self->cfd,
			  &self->sfd));
	ASSERT_EQ(0, event_on(self->cfd, QUIC_EVENT_CONNECTION_CLOSE));
	msleep(100);	/* let the handshake's last packets settle */
	EXPECT_EQ(0, shutdown(self->sfd, SHUT_RD));
	n = quic_sendmsg(self->cfd, "x", 1, -1, MSG_QUIC_STREAM_NEW);
	EXPECT_EQ(1, n);
	EXPECT_NE(0, wait_fd(self->cfd, POLLIN, 10000) & POLLHUP);
	n = read_msg(self->cfd, buf, sizeof(buf), &notif);
	ASSERT_EQ((ssize_t)(1 + sizeof(cc)), n);
	EXPECT_EQ(1, notif);
	memcpy(&cc, buf + 1, sizeof(cc));
	EXPECT_EQ((unsigned int)QUIC_TRANSPORT_ERROR_CRYPTO, cc.errcode);
	EXPECT_EQ(ECONNRESET, so_error(self->cfd));
}

/* lo's received packets in this namespace (/proc/net/dev). */
static long lo_rx_packets(void)
{
	return proc_value("/proc/net/dev", "lo:", 2);
}

/* Wait up to @ms for @fn() to reach @want; its last value. */
static long wait_value(long (*fn)(void), long want, int ms)
{
	long v;

	while ((v = fn()) < want && ms > 0) {
		msleep(20);
		ms -= 20;
	}
	return v;
}

static long resets_sent(void)
{
	return proc_value(SNMP, "QuicOutStatelessReset", 1);
}

/* The same Stateless Reset, arriving while a user holds the client's
 * socket: it waits in the socket's backlog and is processed when the
 * user lets go, as any datagram (it was dropped, and the client learnt
 * of the reset only from a later one, a round trip after its next
 * packet). The client's sendmsg() holds the lock, its data page faulting
 * into a userfaultfd; netem delays lo by 300 ms, so that the reset to
 * the client's earlier packet arrives while it is held, and nothing the
 * client sends once released can draw another before the check.
 */
TEST_F(conn, stateless_reset_while_held)
{
	struct quic_transport_param tp = { .stateless_reset = 1 };
	struct held_send h = { .sid = 0, .len = 64 };
	long base, rx;

	ASSERT_EQ(0, own_netns());
	ASSERT_EQ(0, pair(_metadata, variant->family, &tp, &self->cfd,
			  &self->sfd));
	msleep(100);	/* let the handshake's last packets settle */
	if (system("tc qdisc add dev lo root netem delay 300ms 2>/dev/null"))
		SKIP(return, "no tc or netem");

	base = resets_sent();
	EXPECT_EQ(0, shutdown(self->sfd, SHUT_RD));
	/* Stream 0, whose data the held sendmsg() then adds to. */
	EXPECT_EQ(1, quic_sendmsg(self->cfd, "x", 1, -1, MSG_QUIC_STREAM_NEW));
	h.fd = self->cfd;
	if (held_send_start(&h)) {
		if (errno != ETIMEDOUT)
			SKIP(return, "no userfaultfd: %s", strerror(errno));
		ASSERT_TRUE(0) {
			TH_LOG("sendmsg() did not fault: %zd", h.ret);
		}
	}
	/* The server answers "x" with a reset, which lo delivers to the
	 * client 300 ms later.
	 */
	EXPECT_LE(base + 1, wait_value(resets_sent, base + 1, 10000));
	rx = lo_rx_packets();
	EXPECT_LE(rx + 1, wait_value(lo_rx_packets, rx + 1, 10000));
	msleep(100);	/* the receiving softirq */
	EXPECT_EQ(0, proc_value(SNMP, "QuicInStatelessReset", 1));

	EXPECT_EQ(64, held_send_release(&h));
	/* Released: the reset was processed on the way out. */
	EXPECT_EQ(1, proc_value(SNMP, "QuicInStatelessReset", 1));
	EXPECT_EQ(ECONNRESET, so_error(self->cfd));
}

/* Received within @ms on @fd, or -1. */
static ssize_t udp_recv(int fd, unsigned char *buf, size_t len, int ms)
{
	if (!(wait_fd(fd, POLLIN, ms) & POLLIN))
		return -1;
	return recv(fd, buf, len, MSG_DONTWAIT);
}

/* A listener answers an unknown version in a 1200-byte datagram with
 * Version Negotiation listing v1; not a short datagram, not a VN.
 */
TEST_F(conn, version_negotiation)
{
	static unsigned char pkt[1200], buf[1500];
	struct sockaddr_storage ss;
	socklen_t len;
	int lfd, ufd, i, found = 0;
	ssize_t n;

	lfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, lfd);
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(0, listen(lfd, 4));
	ufd = socket(variant->family, SOCK_DGRAM, IPPROTO_UDP);
	ASSERT_LE(0, ufd);
	ASSERT_EQ(0, connect(ufd, (struct sockaddr *)&ss, len));

	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0xc0;
	pkt[1] = 0x1a; pkt[2] = 0x2a; pkt[3] = 0x3a; pkt[4] = 0x4a;
	pkt[5] = 8;
	memcpy(pkt + 6, "DCIDDCID", 8);
	pkt[14] = 5;
	memcpy(pkt + 15, "SCIDS", 5);
	ASSERT_EQ(100, send(ufd, pkt, 100, 0));
	EXPECT_EQ(-1, udp_recv(ufd, buf, sizeof(buf), 300));
	ASSERT_EQ((ssize_t)sizeof(pkt), send(ufd, pkt, sizeof(pkt), 0));
	n = udp_recv(ufd, buf, sizeof(buf), 2000);
	ASSERT_LE(7 + 5 + 8 + 4, n);
	EXPECT_EQ(0x80, buf[0] & 0x80);
	EXPECT_EQ(0, buf[1] | buf[2] | buf[3] | buf[4]);
	EXPECT_EQ(5, buf[5]);
	EXPECT_EQ(0, memcmp(buf + 6, "SCIDS", 5));
	EXPECT_EQ(8, buf[11]);
	EXPECT_EQ(0, memcmp(buf + 12, "DCIDDCID", 8));
	EXPECT_EQ(0, (n - 20) % 4);
	for (i = 20; i + 4 <= n; i += 4)
		if (!buf[i] && !buf[i + 1] && !buf[i + 2] && buf[i + 3] == 1)
			found = 1;
	EXPECT_EQ(1, found);

	/* A Version Negotiation packet is never answered. */
	memset(pkt + 1, 0, 4);
	ASSERT_EQ((ssize_t)sizeof(pkt), send(ufd, pkt, sizeof(pkt), 0));
	EXPECT_EQ(-1, udp_recv(ufd, buf, sizeof(buf), 300));
	close(ufd);
	close(lfd);
}

struct pref_server {
	int lfd;
	int fd;
	int ret;
	struct sockaddr_storage pref;
	socklen_t pref_len;
};

/* accept(), offer the preferred address, then the handshake. */
static void *pref_server_main(void *p)
{
	struct pref_server *a = p;

	a->fd = accept(a->lfd, NULL, NULL);
	if (a->fd < 0) {
		a->ret = -errno;
		return NULL;
	}
	if (setsockopt(a->fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_MIGRATION,
		       &a->pref, a->pref_len)) {
		a->ret = -errno;
		return NULL;
	}
	a->ret = quic_server_handshake(a->fd, PSK_FILE, NULL, NULL);
	return NULL;
}

/* Read from @fd for up to @ms until a CONNECTION_MIGRATION event; its
 * local_migration byte, or -1. Stream data read meanwhile is counted in
 * *@data.
 */
static int wait_migration(int fd, int ms, size_t *data)
{
	unsigned char buf[256];
	int notif, i;
	ssize_t n;

	for (i = 0; i < ms / 50; i++) {
		if (!wait_fd(fd, POLLIN, 50))
			continue;
		n = read_msg(fd, buf, sizeof(buf), &notif);
		if (n == -EAGAIN)
			continue;
		if (n < 0)
			return -1;
		if (!notif) {
			*data += n;
			continue;
		}
		if (n >= 2 && buf[0] == QUIC_EVENT_CONNECTION_MIGRATION)
			return buf[1];
	}
	return -1;
}

static int same_addr(const struct sockaddr_storage *a, socklen_t alen,
		     const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return alen >= sizeof(*a4) && a4->sin_port == b4->sin_port &&
		       a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return alen >= sizeof(*a6) && a6->sin6_port == b6->sin6_port &&
	       !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr));
}

/* How a preferred-address test is set up and what it expects. */
struct pref_case {
	int lfamily;		/* the server's sockets */
	const char *laddr;	/* the server's address */
	int pfamily;		/* the preferred address */
	const char *paddr;
	int cfamily;		/* the client's socket */
	int v6only;		/* IPV6_V6ONLY on the client's socket */
	int moves;		/* the client is to move there */
	int cmoved;		/* its event's local_migration byte */
};

/* A server on pc->laddr offers pc->paddr (a free port there) before the
 * handshake; the client connects to pc->laddr. If it is to move, both
 * raise CONNECTION_MIGRATION and name the preferred address exactly as
 * given (the client's getpeername(), the server's getsockname()); if not,
 * neither moves and no event comes. Either way data flows both ways
 * afterwards.
 */
static void pref_run(struct __test_metadata *_metadata,
		     const struct pref_case *pc, int *cfd, int *sfd)
{
	struct pref_server a = { .fd = -1 };
	struct sockaddr_storage ss, got;
	socklen_t len, glen;
	size_t data = 0;
	char buf[16];
	pthread_t th;
	uint32_t flags;
	int64_t sid;
	int u, i;

	/* A free UDP port on the preferred address. */
	u = socket(pc->pfamily, SOCK_DGRAM, IPPROTO_UDP);
	ASSERT_LE(0, u);
	a.pref_len = make_addr(&a.pref, pc->pfamily, pc->paddr, 0);
	ASSERT_EQ(0, bind(u, (struct sockaddr *)&a.pref, a.pref_len));
	ASSERT_EQ(0, getsockname(u, (struct sockaddr *)&a.pref, &a.pref_len));
	close(u);

	a.lfd = socket(pc->lfamily, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, a.lfd);
	*cfd = socket(pc->cfamily, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, *cfd);
	if (pc->v6only)
		ASSERT_EQ(0, setsockopt(*cfd, SOL_IPV6, IPV6_V6ONLY, &pc->v6only,
					sizeof(pc->v6only)));
	ASSERT_EQ(0, event_on(a.lfd, QUIC_EVENT_CONNECTION_MIGRATION));
	ASSERT_EQ(0, event_on(*cfd, QUIC_EVENT_CONNECTION_MIGRATION));
	len = make_addr(&ss, strchr(pc->laddr, ':') ? AF_INET6 : AF_INET,
			pc->laddr, 0);
	ASSERT_EQ(0, bind(a.lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(a.lfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(0, listen(a.lfd, 4));
	ASSERT_EQ(0, pthread_create(&th, NULL, pref_server_main, &a));
	ASSERT_EQ(0, connect(*cfd, (struct sockaddr *)&ss, len));
	/* Only a server offers one. */
	if (pc->cfamily == pc->pfamily)
		EXPECT_EQ(EINVAL, setopt_err(*cfd, SOL_QUIC,
					     QUIC_SOCKOPT_CONNECTION_MIGRATION,
					     &a.pref, a.pref_len));
	EXPECT_EQ(0, quic_client_handshake(*cfd, PSK_FILE, NULL, NULL));
	pthread_join(th, NULL);
	close(a.lfd);
	ASSERT_EQ(0, a.ret) {
		TH_LOG("server: %s", strerror(-a.ret));
	}
	*sfd = a.fd;

	EXPECT_EQ(pc->moves ? pc->cmoved : -1,
		  wait_migration(*cfd, pc->moves ? 10000 : 2000, &data));
	glen = sizeof(got);
	ASSERT_EQ(0, getpeername(*cfd, (struct sockaddr *)&got, &glen));
	EXPECT_TRUE(same_addr(&got, glen, pc->moves ? &a.pref : &ss));
	if (pc->moves && pc->cmoved) {
		/* Our side of the new path is of its family. */
		glen = sizeof(got);
		ASSERT_EQ(0, getsockname(*cfd, (struct sockaddr *)&got, &glen));
		EXPECT_EQ(pc->pfamily, got.ss_family);
	}
	/* The server moves with the first packet that arrives there. */
	for (i = 0; i < 3; i++) {
		flags = MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN;
		ASSERT_EQ(4, quic_sendmsg(*cfd, "ping", 4, 4 * i, flags));
	}
	if (pc->moves) {
		EXPECT_EQ(1, wait_migration(*sfd, 10000, &data));
		glen = sizeof(got);
		ASSERT_EQ(0, getsockname(*sfd, (struct sockaddr *)&got,
					 &glen));
		EXPECT_TRUE(same_addr(&got, glen, &a.pref));
	} else {
		EXPECT_EQ(-1, wait_migration(*sfd, 1000, &data));
		EXPECT_LT(0, data);
	}
	/* And data flows back, from there. */
	flags = MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN;
	ASSERT_EQ(4, quic_sendmsg(*sfd, "pong", 4, 1, flags));
	for (i = 0; i < 100; i++) {
		if (!wait_fd(*cfd, POLLIN, 100))
			continue;
		flags = 0;
		if (quic_recvmsg(*cfd, buf, sizeof(buf), &sid, &flags) == 4 &&
		    !(flags & MSG_QUIC_NOTIFICATION))
			break;
	}
	EXPECT_GT(100, i);
	EXPECT_EQ(0, memcmp(buf, "pong", 4));
}

/* The server's preferred address (quic-api.rst 5.9, RFC 9000 9.6): set
 * after accept() and before the handshake, it goes in the server's
 * transport parameters; on HANDSHAKE_DONE the client validates it and
 * moves there, and the server follows the first packet that arrives
 * there. Both raise CONNECTION_MIGRATION (local_migration 0 on the
 * client, whose peer moved; 1 on the server), the client's getpeername()
 * and the server's getsockname() return the preferred address, and data
 * still flows both ways. IPv4 moves to 127.0.0.2, IPv6 to another port
 * of ::1. A client cannot offer one (EINVAL).
 */
TEST_F(conn, preferred_address)
{
	struct pref_case pc = {
		.lfamily = variant->family,
		.laddr = loopback(variant->family),
		.pfamily = variant->family,
		.paddr = variant->family == AF_INET ? "127.0.0.2" : "::1",
		.cfamily = variant->family,
		.moves = 1,
	};

	pref_run(_metadata, &pc, &self->cfd, &self->sfd);
}

/* RFC 9000 18.2 carries a preferred address of each family, and 9.6 lets
 * the client choose: one of the other family only, offered by a server
 * on AF_INET6 sockets (IPv4: on 127.0.0.1 offering ::1; IPv6: on ::1
 * offering 127.0.0.1), takes a dual-stack (AF_INET6) client there from a
 * local address of that family: its event says its local address moved
 * too, getsockname() is of that family, getpeername() the preferred
 * address as given, and data flows both ways from there.
 */
TEST_F(conn, preferred_address_other_family)
{
	int other = variant->family == AF_INET ? AF_INET6 : AF_INET;
	struct pref_case pc = {
		.lfamily = AF_INET6,
		.laddr = loopback(variant->family),
		.pfamily = other,
		.paddr = loopback(other),
		.cfamily = AF_INET6,
		.moves = 1,
		.cmoved = 1,
	};

	pref_run(_metadata, &pc, &self->cfd, &self->sfd);
}

/* A client whose socket cannot carry the other family (an AF_INET one
 * offered only ::1; an IPV6_V6ONLY one offered only 127.0.0.1) stays
 * where it is: no event, getpeername() the server's address, data flows.
 */
TEST_F(conn, preferred_address_other_family_unusable)
{
	int other = variant->family == AF_INET ? AF_INET6 : AF_INET;
	struct pref_case pc = {
		.lfamily = AF_INET6,
		.laddr = loopback(variant->family),
		.pfamily = other,
		.paddr = loopback(other),
		.cfamily = variant->family,
		.v6only = variant->family == AF_INET6,
	};

	pref_run(_metadata, &pc, &self->cfd, &self->sfd);
}

/* A free UDP port on @addr, written into *@ss: its length. */
static socklen_t free_addr(int family, const char *addr,
			   struct sockaddr_storage *ss)
{
	socklen_t len = make_addr(ss, family, addr, 0);
	int u = socket(family, SOCK_DGRAM, IPPROTO_UDP);

	if (u < 0 || bind(u, (struct sockaddr *)ss, len) ||
	    getsockname(u, (struct sockaddr *)ss, &len))
		len = 0;
	if (u >= 0)
		close(u);
	return len;
}

/* Stream data from @fd within @ms: its length, or -1 (events skipped). */
static ssize_t wait_data(int fd, void *buf, size_t len, int ms)
{
	int notif, i;
	ssize_t n;

	for (i = 0; i < ms / 50; i++) {
		if (!wait_fd(fd, POLLIN, 50))
			continue;
		n = read_msg(fd, buf, len, &notif);
		if (n == -EAGAIN || (n >= 0 && notif))
			continue;
		return n < 0 ? -1 : n;
	}
	return -1;
}

/* RFC 9000 9: only a client moves its address, once established; a
 * server offers a preferred address before the handshake instead. An
 * established server's CONNECTION_MIGRATION fails with EOPNOTSUPP, to a
 * good address as to its own, and the connection carries on where it
 * was.
 */
TEST_F(conn, server_migration_eopnotsupp)
{
	struct sockaddr_storage ss, got;
	socklen_t len, glen;
	char buf[16];

	ASSERT_EQ(0, pair(_metadata, variant->family, NULL, &self->cfd,
			  &self->sfd));
	len = free_addr(variant->family, loopback(variant->family), &ss);
	ASSERT_LT(0, len);
	EXPECT_EQ(EOPNOTSUPP, setopt_err(self->sfd, SOL_QUIC,
					 QUIC_SOCKOPT_CONNECTION_MIGRATION,
					 &ss, len));
	glen = sizeof(got);
	ASSERT_EQ(0, getsockname(self->sfd, (struct sockaddr *)&got, &glen));
	EXPECT_NE(addr_port(&ss), addr_port(&got));
	ASSERT_EQ(4, quic_sendmsg(self->sfd, "pong", 4, 1,
				  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN));
	EXPECT_EQ(4, wait_data(self->cfd, buf, sizeof(buf), 5000));
}

/* CONNECTION_MIGRATION to the peer's own address and port, or to a
 * broadcast address, is a bad address: EINVAL, and nothing moves.
 */
TEST_F(conn, migration_to_peer_or_broadcast_einval)
{
	struct sockaddr_storage ss, got;
	socklen_t len, glen;
	char buf[16];

	ASSERT_EQ(0, pair(_metadata, variant->family, NULL, &self->cfd,
			  &self->sfd));
	len = sizeof(ss);
	ASSERT_EQ(0, getpeername(self->cfd, (struct sockaddr *)&ss, &len));
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_MIGRATION,
				     &ss, len));
	len = sizeof(ss);
	ASSERT_EQ(0, getpeername(self->sfd, (struct sockaddr *)&ss, &len));
	EXPECT_EQ(EINVAL, setopt_err(self->sfd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_MIGRATION,
				     &ss, len));
	if (variant->family == AF_INET) {
		/* lo's broadcast address, and the limited one */
		len = make_addr(&ss, AF_INET, "127.255.255.255", 4433);
		EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
					     QUIC_SOCKOPT_CONNECTION_MIGRATION,
					     &ss, len));
		len = make_addr(&ss, AF_INET, "255.255.255.255", 4433);
		EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC,
					     QUIC_SOCKOPT_CONNECTION_MIGRATION,
					     &ss, len));
	}
	len = sizeof(ss);
	ASSERT_EQ(0, getpeername(self->cfd, (struct sockaddr *)&ss, &len));
	glen = sizeof(got);
	ASSERT_EQ(0, getsockname(self->cfd, (struct sockaddr *)&got, &glen));
	EXPECT_NE(addr_port(&ss), addr_port(&got));
	ASSERT_EQ(4, quic_sendmsg(self->cfd, "ping", 4, 0,
				  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN));
	EXPECT_EQ(4, wait_data(self->sfd, buf, sizeof(buf), 5000));
}

/*
 * The relay's way back to the client: from @front, the address the
 * client connected to, or, while @rogue_on is set, from @rogue, an
 * address the server never had.
 */
struct rogue_relay {
	struct udp_relay r;
	int rogue;
	int rogue_on;
};

static int rogue_back(struct udp_relay *r, int from, const unsigned char *buf,
		      ssize_t n)
{
	struct rogue_relay *x = r->priv;

	return __atomic_load_n(&x->rogue_on, __ATOMIC_ACQUIRE) ? x->rogue :
								 r->front;
}

/*
 * RFC 9000 9: "clients MUST discard incoming packets from an unknown
 * server address". Through a relay, the server's 1-RTT packets reach the
 * client from another address: the client drops them, unanswered, and
 * counts them in QuicInDropUnknownAddress; the data they carried arrives
 * once the server's packets come from its address again.
 */
TEST_F(conn, client_drops_unknown_server_address)
{
	struct quic_pair_server a = { .psk = PSK_FILE, .fd = -1 };
	struct rogue_relay r = {
		.r = { .front = -1, .up = -1, .up2 = -1 }, .rogue = -1,
	};
	struct sockaddr_storage ls, fs;
	socklen_t llen, flen;
	long before, after;
	pthread_t th;
	char buf[16];

	a.lfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, a.lfd);
	llen = make_addr(&ls, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(a.lfd, (struct sockaddr *)&ls, llen));
	ASSERT_EQ(0, getsockname(a.lfd, (struct sockaddr *)&ls, &llen));
	ASSERT_EQ(0, listen(a.lfd, 4));
	r.r.front = loopback_udp(variant->family, NULL, 0, 0);
	r.rogue = loopback_udp(variant->family, NULL, 0, 0);
	r.r.up = loopback_udp(variant->family, &ls, llen, 0);
	r.r.back = rogue_back;
	r.r.priv = &r;
	ASSERT_LE(0, r.r.front);
	ASSERT_LE(0, r.rogue);
	ASSERT_LE(0, r.r.up);
	flen = sizeof(fs);
	ASSERT_EQ(0, getsockname(r.r.front, (struct sockaddr *)&fs, &flen));
	ASSERT_EQ(0, udp_relay_start(&r.r));
	ASSERT_EQ(0, pthread_create(&th, NULL, quic_pair_server_main, &a));
	self->cfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, self->cfd);
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&fs, flen));
	EXPECT_EQ(0, quic_client_handshake(self->cfd, PSK_FILE, NULL, NULL));
	pthread_join(th, NULL);
	close(a.lfd);
	self->sfd = a.fd;
	ASSERT_EQ(0, a.ret);

	ASSERT_EQ(4, quic_sendmsg(self->cfd, "ping", 4, 0,
				  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN));
	ASSERT_EQ(4, wait_data(self->sfd, buf, sizeof(buf), 5000));
	before = proc_value(SNMP, "QuicInDropUnknownAddress", 1);

	/* The server's packets come from elsewhere: nothing gets through. */
	__atomic_store_n(&r.rogue_on, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(4, quic_sendmsg(self->sfd, "pong", 4, 1,
				  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN));
	EXPECT_EQ(-1, wait_data(self->cfd, buf, sizeof(buf), 1500));
	after = proc_value(SNMP, "QuicInDropUnknownAddress", 1);
	EXPECT_LE(0, before);
	EXPECT_LT(before, after);

	/* From the server's address again: the data is sent again. */
	__atomic_store_n(&r.rogue_on, 0, __ATOMIC_RELEASE);
	EXPECT_EQ(4, wait_data(self->cfd, buf, sizeof(buf), 15000));
	EXPECT_EQ(0, memcmp(buf, "pong", 4));

	udp_relay_stop(&r.r);
	close(r.rogue);
}

/*
 * A NAT between a client and a server (a udp_relay): the client's
 * datagrams go on to the server from r.up, or, once @moved is set, from
 * r.up2, another port, as a NAT that rebinds the client does; the
 * server's come back to the client from r.front whichever port they
 * reached. The first @drop datagrams the server sends to the new port
 * are lost.
 */
struct nat {
	struct udp_relay r;
	int moved;
	int drop;
	int dropped;
};

static int nat_fwd(struct udp_relay *r)
{
	struct nat *x = r->priv;

	return __atomic_load_n(&x->moved, __ATOMIC_ACQUIRE) ? r->up2 : r->up;
}

static int nat_back(struct udp_relay *r, int from, const unsigned char *buf,
		    ssize_t n)
{
	struct nat *x = r->priv;

	if (from == r->up2 && x->dropped < x->drop) {
		__atomic_add_fetch(&x->dropped, 1, __ATOMIC_RELEASE);
		return -1;
	}
	return r->front;
}

#define NAT_SIZE	(512 * 1024)
#define NAT_CHUNK	(16 * 1024)
#define NAT_MOVE_AT	(64 * 1024)

static unsigned char nat_byte(size_t off)
{
	return (unsigned char)(off * 131 + (off >> 9));
}

/* The server's side of the download: NAT_SIZE bytes on stream 1. */
static void *nat_sender_main(void *p)
{
	static unsigned char buf[NAT_CHUNK];
	int fd = *(int *)p;
	size_t off, i;
	ssize_t n;

	for (off = 0; off < NAT_SIZE; off += NAT_CHUNK) {
		for (i = 0; i < NAT_CHUNK; i++)
			buf[i] = nat_byte(off + i);
		n = quic_sendmsg(fd, buf, NAT_CHUNK, 1,
				 (off ? 0 : MSG_QUIC_STREAM_NEW) |
				 (off + NAT_CHUNK < NAT_SIZE ? 0 :
				  MSG_QUIC_STREAM_FIN));
		if (n != NAT_CHUNK)
			break;
	}
	return NULL;
}

/*
 * RFC 9000 9.3, 8.2 and RFC 9002 6.2.2.1: a NAT rebinds the client in the
 * middle of a download and the server's PATH_CHALLENGE to the new port is
 * lost. The server, held by the anti-amplification limit of the new
 * address, answers the client's next datagrams, challenges again, and the
 * download completes on the new path, validated; nothing fails. The
 * client takes NAT_MOVE_AT bytes of the stream at a time, so the download
 * is still on when the NAT moves, whatever the ACK policy: the client
 * sends MAX_STREAM_DATA from the new port as it reads.
 */
TEST_F_TIMEOUT(conn, nat_rebinding_challenge_lost, 120)
{
	struct quic_pair_server a = { .psk = PSK_FILE, .fd = -1 };
	struct nat r = { .r = { .front = -1, .up = -1, .up2 = -1 }, .drop = 1 };
	struct quic_transport_param tp = {
		.max_stream_data_bidi_remote = NAT_MOVE_AT,
	};
	struct timeval tmo = { .tv_sec = 30 };
	static unsigned char buf[NAT_CHUNK];
	long migrated, failed, pto;
	struct sockaddr_storage ls, fs;
	socklen_t llen, flen;
	pthread_t th, tx;
	size_t got = 0, i;
	int notif, bad = 0;
	ssize_t n;

	/* A namespace of its own: what the closing connections send after
	 * the test spends no stateless-reply budget of the tests after it.
	 */
	ASSERT_EQ(0, own_netns());
	a.lfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, a.lfd);
	llen = make_addr(&ls, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(a.lfd, (struct sockaddr *)&ls, llen));
	ASSERT_EQ(0, getsockname(a.lfd, (struct sockaddr *)&ls, &llen));
	ASSERT_EQ(0, listen(a.lfd, 4));
	r.r.front = loopback_udp(variant->family, NULL, 0, 0);
	r.r.up = loopback_udp(variant->family, &ls, llen, 0);
	r.r.up2 = loopback_udp(variant->family, &ls, llen, 0);
	r.r.fwd = nat_fwd;
	r.r.back = nat_back;
	r.r.priv = &r;
	ASSERT_LE(0, r.r.front);
	ASSERT_LE(0, r.r.up);
	ASSERT_LE(0, r.r.up2);
	flen = sizeof(fs);
	ASSERT_EQ(0, getsockname(r.r.front, (struct sockaddr *)&fs, &flen));
	ASSERT_EQ(0, udp_relay_start(&r.r));
	ASSERT_EQ(0, pthread_create(&th, NULL, quic_pair_server_main, &a));
	self->cfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, self->cfd);
	ASSERT_EQ(0, setsockopt(self->cfd, SOL_QUIC,
				QUIC_SOCKOPT_TRANSPORT_PARAM, &tp, sizeof(tp)));
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&fs, flen));
	EXPECT_EQ(0, quic_client_handshake(self->cfd, PSK_FILE, NULL, NULL));
	pthread_join(th, NULL);
	close(a.lfd);
	self->sfd = a.fd;
	ASSERT_EQ(0, a.ret);
	migrated = proc_value(SNMP, "QuicPathMigrations", 1);
	failed = proc_value(SNMP, "QuicPathValidationFailed", 1);
	pto = proc_value(SNMP, "QuicPtoExpired", 1);
	ASSERT_LE(0, migrated);
	ASSERT_LE(0, failed);
	/* A stalled sender is shut down: EPIPE, not SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);

	ASSERT_EQ(0, setsockopt(self->sfd, SOL_SOCKET, SO_SNDTIMEO, &tmo,
				sizeof(tmo)));
	ASSERT_EQ(0, pthread_create(&tx, NULL, nat_sender_main, &self->sfd));
	while (got < NAT_SIZE) {
		if (got >= NAT_MOVE_AT)
			__atomic_store_n(&r.moved, 1, __ATOMIC_RELEASE);
		/* Well past any PTO and the challenge's tries. */
		if (!wait_fd(self->cfd, POLLIN, 20000))
			break;
		n = read_msg(self->cfd, buf, sizeof(buf), &notif);
		if (n == -EAGAIN || (n >= 0 && notif))
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < (size_t)n; i++)
			bad |= buf[i] != nat_byte(got + i);
		got += n;
	}
	EXPECT_EQ(NAT_SIZE, got) {
		TH_LOG("download stalled after the NAT rebinding: PTOs %ld, validations failed %ld",
		       proc_value(SNMP, "QuicPtoExpired", 1) - pto,
		       proc_value(SNMP, "QuicPathValidationFailed", 1) -
		       failed);
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(1, __atomic_load_n(&r.dropped, __ATOMIC_ACQUIRE));
	/* The one challenge sent first was lost: another validated. */
	EXPECT_LT(migrated, proc_value(SNMP, "QuicPathMigrations", 1));
	EXPECT_EQ(failed, proc_value(SNMP, "QuicPathValidationFailed", 1));

	if (got < NAT_SIZE)
		shutdown(self->sfd, SHUT_RDWR);	/* unblock the sender */
	pthread_join(tx, NULL);
	/* The closes pass the NAT before it goes, not later to its ports,
	 * which later tests may bind: it relays while datagrams come.
	 */
	close(self->sfd);
	self->sfd = -1;
	close(self->cfd);
	self->cfd = -1;
	for (i = 0; i < 20; i++) {
		if (wait_fd(r.r.front, POLLIN, 50))
			msleep(50);
	}
	udp_relay_stop(&r.r);
}

/* Many listeners, more than the namespace's listener hash has buckets:
 * each port still finds its own (seen by its Version Negotiation reply
 * to an unknown version), including after others closed.
 */
TEST_F(conn, many_listeners)
{
	static unsigned char pkt[1200], buf[1500];
	struct sockaddr_storage ss[80];
	socklen_t len[80];
	int lfd[80], ufd, i, k;

	/* Its own namespace: 40 Version Negotiations in a row fit the
	 * stateless-reply budget (100 a second) only if no test before
	 * spent any of it.
	 */
	ASSERT_EQ(0, own_netns());
	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0xc0;
	pkt[1] = 0x1a; pkt[2] = 0x2a; pkt[3] = 0x3a; pkt[4] = 0x4a;
	pkt[5] = 8;
	memcpy(pkt + 6, "DCIDDCID", 8);
	for (i = 0; i < 80; i++) {
		lfd[i] = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
		ASSERT_LE(0, lfd[i]);
		len[i] = make_addr(&ss[i], variant->family,
				   loopback(variant->family), 0);
		ASSERT_EQ(0, bind(lfd[i], (struct sockaddr *)&ss[i], len[i]));
		ASSERT_EQ(0, getsockname(lfd[i], (struct sockaddr *)&ss[i],
					 &len[i]));
		ASSERT_EQ(0, listen(lfd[i], 4));
	}
	/* Every other one closes: the rest stay in their buckets. */
	for (i = 1; i < 80; i += 2)
		close(lfd[i]);
	for (i = 0; i < 80; i += 2) {
		ufd = socket(variant->family, SOCK_DGRAM, IPPROTO_UDP);
		ASSERT_LE(0, ufd);
		ASSERT_EQ(0, connect(ufd, (struct sockaddr *)&ss[i], len[i]));
		ASSERT_EQ((ssize_t)sizeof(pkt), send(ufd, pkt, sizeof(pkt), 0));
		k = udp_recv(ufd, buf, sizeof(buf), 2000);
		EXPECT_LE(7 + 8 + 4, k) {
			TH_LOG("listener %d: no Version Negotiation", i);
		}
		close(ufd);
		close(lfd[i]);
	}
}

/* Both ends count an opened connection, and a closed one once the close
 * reached the server.
 */
TEST_F(conn, mib_counters)
{
	long opened, closed, o, c = -1;
	int i;

	opened = proc_value(SNMP, "QuicConnOpened", 1);
	closed = proc_value(SNMP, "QuicConnClosed", 1);
	ASSERT_LE(0, opened);
	ASSERT_LE(0, closed);
	ASSERT_EQ(0, pair(_metadata, variant->family, NULL, &self->cfd,
			  &self->sfd));
	o = proc_value(SNMP, "QuicConnOpened", 1);
	EXPECT_EQ(opened + 2, o);
	EXPECT_EQ(closed, proc_value(SNMP, "QuicConnClosed", 1));
	close(self->cfd);
	self->cfd = -1;
	for (i = 0; i < 100; i++) {
		c = proc_value(SNMP, "QuicConnClosed", 1);
		if (c == closed + 2)
			break;
		msleep(20);
	}
	EXPECT_EQ(closed + 2, c);
	close(self->sfd);
	self->sfd = -1;
	EXPECT_EQ(closed + 2, proc_value(SNMP, "QuicConnClosed", 1));
}

TEST_HARNESS_MAIN
