// SPDX-License-Identifier: GPL-2.0
/*
 * The counters of /proc/net/quic/snmp, each provoked on its own: every
 * test runs in a network namespace of its own, so that its counters start
 * at zero, and checks both the counter it provokes and that the counters
 * it must not touch stayed at zero.
 *
 * - QuicInDropBacklog: datagrams that arrive while the user holds the
 *   socket and its backlog is full (the socket is held deterministically:
 *   a sendmsg() faults on a userfaultfd page while it holds the socket
 *   lock), and datagrams beyond what a pending request parks;
 * - QuicListenOverflows: client Initials for a full accept queue;
 * - QuicConnOpened and QuicConnClosed: only connections that reached
 *   ESTABLISHED are counted, at both ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "kselftest_harness.h"
#include "quic_common.h"
#include "quic_conn_common.h"
#include "quic_initial.h"

#define PSK_FILE	"/tmp/quic_counters_test.psk"
#define SNMP		"/proc/net/quic/snmp"
#define CID_LEN		8	/* the length of the CIDs quic.ko issues */
#define REQ_MAX_SKBS	8	/* datagrams a pending request parks */
#define JUNK		64	/* junk datagrams of the backlog test */

static long snmp(const char *name)
{
	return proc_value(SNMP, name, 1);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait up to 10 s for counter @name to reach @want; its last value. */
static long snmp_wait(const char *name, long want)
{
	long v = -1;
	int i;

	for (i = 0; i < 1000; i++) {
		v = snmp(name);
		if (v >= want)
			break;
		sleep_ms(10);
	}
	return v;
}

FIXTURE(counters) {
	int u;		/* a raw UDP socket */
};

FIXTURE_VARIANT(counters) {
	int family;
};

#define QUIC_FIXTURE		counters
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(counters)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	ASSERT_EQ(0, own_netns()) {
		TH_LOG("network namespace: %s", strerror(errno));
	}
	/* quic.ko is loaded and the namespace's counters are all zero. */
	fd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, snmp("QuicInPackets"));
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	self->u = socket(variant->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->u);
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->u, (struct sockaddr *)&ss, len));
	srandom(11);
}

FIXTURE_TEARDOWN(counters)
{
	close(self->u);
	unlink(PSK_FILE);
}

/* Expect every counter in the NULL-terminated @names to be zero. */
#define EXPECT_ZERO(...) do { \
	static const char *const _names[] = { __VA_ARGS__, NULL }; \
	int _i; \
	for (_i = 0; _names[_i]; _i++) { \
		EXPECT_EQ(0, snmp(_names[_i])) { \
			TH_LOG("%s moved", _names[_i]); \
		} \
	} \
} while (0)

static int listener(int family, int backlog, struct sockaddr_storage *ss,
		    socklen_t *len)
{
	int fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);

	*len = make_addr(ss, family, loopback(family), 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)ss, *len) ||
	    getsockname(fd, (struct sockaddr *)ss, len) ||
	    listen(fd, backlog))
		return -1;
	return fd;
}

/* net.quic.retry_threshold -1 in the test's own namespace: no Retry. */
static int no_retry(void)
{
	FILE *f = fopen("/proc/sys/net/quic/retry_threshold", "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "-1\n") > 0;
	return fclose(f) || !ok ? -1 : 0;
}

/* A client Initial, protected with the Initial keys of @dcid, with a
 * CRYPTO frame at offset 0 (the first bytes of a ClientHello: what a
 * listener needs to hand out a socket) and a PING.
 */
static int send_initial(int u, const uint8_t *dcid,
			const struct sockaddr_storage *ss, socklen_t len)
{
	static const uint8_t frames[] = {
		0x06, 0x00, 0x04, 0x01, 0x00, 0x01, 0x00,	/* CRYPTO */
		0x01,						/* PING */
	};
	uint8_t scid[CID_LEN], pkt[1200];

	fill_random(scid, sizeof(scid));
	if (qi_build(pkt, sizeof(pkt), dcid, CID_LEN, scid, sizeof(scid),
		     frames, sizeof(frames)) != sizeof(pkt))
		return -1;
	return sendto(u, pkt, sizeof(pkt), 0, (const struct sockaddr *)ss,
		      len) == sizeof(pkt) ? 0 : -1;
}

/* A full accept queue: the next client's Initial is a listen overflow,
 * not a datagram "for no connection"; a pending request parks at most
 * REQ_MAX_SKBS datagrams and drops the rest as backlog drops.
 */
TEST_F(counters, listen_overflow_and_request_queue)
{
	uint8_t dcid[CID_LEN], other[CID_LEN];
	struct sockaddr_storage ss;
	socklen_t len;
	int lfd, i, n;

	/* With Retries off (this namespace's threshold -1), as TCP without
	 * SYN cookies: a full queue drops. As on TCP, a backlog of 1 queues
	 * two requests.
	 */
	ASSERT_EQ(0, no_retry());
	lfd = listener(variant->family, 1, &ss, &len);
	ASSERT_LE(0, lfd);
	fill_random(dcid, sizeof(dcid));
	ASSERT_EQ(0, send_initial(self->u, dcid, &ss, len));
	for (n = 1; n < 3; n++) {
		fill_random(other, sizeof(other));
		ASSERT_EQ(0, send_initial(self->u, other, &ss, len));
		ASSERT_EQ(n + 1, snmp_wait("QuicInPackets", n + 1));
	}
	EXPECT_EQ(1, snmp_wait("QuicListenOverflows", 1));
	/* The first client's retransmissions park on its request. */
	for (i = 1; i < REQ_MAX_SKBS + 3; i++) {
		ASSERT_EQ(0, send_initial(self->u, dcid, &ss, len));
		n++;
	}
	EXPECT_EQ(n, snmp_wait("QuicInPackets", n));
	EXPECT_EQ(3, snmp_wait("QuicInDropBacklog", 3));
	EXPECT_EQ(1, snmp("QuicListenOverflows"));
	EXPECT_ZERO("QuicInDropNoConnection", "QuicInDropMalformed",
		    "QuicInDropDecrypt", "QuicConnOpened", "QuicConnClosed");
	close(lfd);
}

/* Connections that never reach ESTABLISHED are neither opened nor
 * closed: a client closed before its handshake, and a server socket
 * accept() made from a lone Initial. A real pair counts one opened and
 * one closed connection at each end.
 */
TEST_F(counters, conn_opened_closed)
{
	struct sockaddr_storage ss;
	uint8_t dcid[CID_LEN];
	int lfd, fd, cfd, sfd;
	socklen_t len;

	lfd = listener(variant->family, 4, &ss, &len);
	ASSERT_LE(0, lfd);
	fd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, connect(fd, (struct sockaddr *)&ss, len));
	EXPECT_EQ(0, close(fd));

	fill_random(dcid, sizeof(dcid));
	ASSERT_EQ(0, send_initial(self->u, dcid, &ss, len));
	fd = accept(lfd, NULL, NULL);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, close(fd));
	close(lfd);
	EXPECT_ZERO("QuicConnOpened", "QuicConnClosed");

	ASSERT_EQ(0, quic_pair_open(variant->family, PSK_FILE, NULL, &cfd,
				    &sfd));
	EXPECT_EQ(2, snmp("QuicConnOpened"));
	EXPECT_EQ(0, snmp("QuicConnClosed"));
	close(cfd);
	EXPECT_EQ(2, snmp_wait("QuicConnClosed", 2));	/* the close reached sfd */
	close(sfd);
	EXPECT_EQ(2, snmp("QuicConnOpened"));
	EXPECT_EQ(2, snmp("QuicConnClosed"));
}

/* Junk for an established connection while its user holds the socket:
 * the backlog takes what its receive buffer and the connection window
 * allow, the rest is counted as backlog drops; what the backlog took fails to decrypt once the
 * socket is released. Nothing is counted "for no connection".
 */
TEST_F(counters, backlog_full)
{
	struct held_send h = { .sid = -1, .flags = MSG_QUIC_STREAM_NEW };
	struct sockaddr_storage ss;
	uint8_t dcid[CID_LEN], b[1200];
	int ps, cfd, sfd, rcvbuf = 4096, i;
	socklen_t len = sizeof(ss);
	long in;

	struct quic_transport_param tp = { .max_data = 8192 };

	ps = lo_sniffer();
	ASSERT_LE(0, ps);

	/* The backlog holds rcvbuf plus the connection window: a small
	 * window, so that the junk below overflows it.
	 */
	ASSERT_EQ(0, quic_pair_open(variant->family, PSK_FILE, &tp, &cfd,
				    &sfd));
	ASSERT_EQ(0, getsockname(sfd, (struct sockaddr *)&ss, &len));
	/* A short-header packet of the client's carries the server's CID. */
	ASSERT_EQ(1, quic_sendmsg(cfd, "x", 1, -1, MSG_QUIC_STREAM_NEW));
	ASSERT_EQ(0, sniff_short_dcid(ps, variant->family, addr_port(&ss), dcid,
				      CID_LEN));
	close(ps);
	ASSERT_EQ(0, setsockopt(sfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				sizeof(rcvbuf)));

	/* The server's sendmsg() faults on its page, holding the socket. */
	h.fd = sfd;
	h.len = sysconf(_SC_PAGESIZE);
	if (held_send_start(&h)) {
		if (errno != ETIMEDOUT)
			SKIP(return, "userfaultfd: %s", strerror(errno));
		ASSERT_TRUE(0) {
			TH_LOG("sendmsg() did not fault: %zd", h.ret);
		}
	}

	in = snmp("QuicInPackets");
	for (i = 0; i < JUNK; i++) {
		fill_random(b, sizeof(b));
		b[0] = 0x40 | (b[0] & 0x3f);
		memcpy(b + 1, dcid, CID_LEN);
		ASSERT_EQ(sizeof(b), sendto(self->u, b, sizeof(b), 0,
					    (struct sockaddr *)&ss, len));
		if (!(i % 16))
			sleep_ms(1);	/* loopback's own backlog: not ours */
	}
	EXPECT_LE(in + JUNK, snmp_wait("QuicInPackets", in + JUNK));
	/* Still held: everything so far went to the backlog or was dropped. */
	EXPECT_LT(0, snmp("QuicInDropBacklog"));

	EXPECT_EQ((ssize_t)h.len, held_send_release(&h)) {
		TH_LOG("sendmsg: %s", strerror(h.err));
	}
	for (i = 0; i < 1000; i++) {
		if (snmp("QuicInDropBacklog") + snmp("QuicInDropDecrypt") >=
		    JUNK)
			break;
		sleep_ms(10);
	}
	/* The junk, and whatever the client sent meanwhile. */
	EXPECT_LE(JUNK, snmp("QuicInDropBacklog") + snmp("QuicInDropDecrypt"));
	EXPECT_ZERO("QuicInDropNoConnection", "QuicInDropMalformed",
		    "QuicListenOverflows", "QuicConnClosed");
	close(cfd);
	close(sfd);
}

TEST_HARNESS_MAIN
