// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input from a raw UDP socket, at a listener and at an established
 * connection:
 *
 * - client Initials protected with the real Initial keys (RFC 9001 5.2,
 *   done here with GnuTLS) that carry bad frames: the server closes with
 *   the RFC 9000 error code, which we read from its Initial, and neither
 *   poll() nor accept() sees a request;
 * - client Initials that cannot start a connection (PING only, a close,
 *   CRYPTO data not at offset 0, a bad tag, junk): poll() on the listener
 *   stays quiet, each is counted as a drop, and a server that polls and
 *   then accepts blocking serves the real client that comes next;
 * - random bytes, truncated and over-long headers, bad Length varints,
 *   and short headers with the connection's DCID but a bad tag: the
 *   connection survives and moves data both ways afterwards, and every
 *   datagram is counted as a drop in /proc/net/quic/snmp;
 * - 1-RTT packets protected with the client's real key (caught on its
 *   way to the kernel: we define setsockopt()) that carry ACK_FREQUENCY
 *   frames with bad values (draft-ietf-quic-ack-frequency): the server
 *   closes with the draft's error code, which the client reports.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "kselftest_harness.h"
#include "quic_common.h"
#include "quic_conn_common.h"
#include "quic_initial.h"

#define PSK_FILE	"/tmp/quic_hostile_test.psk"
#define SNMP		"/proc/net/quic/snmp"
#define CID_LEN		8	/* the length of the CIDs quic.ko issues */
#define UP_LEN		65536	/* client to server, after the junk */
#define DOWN_LEN	4096	/* server to client */

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 13 + (i >> 9));
}

static long drops(void)
{
	return proc_value(SNMP, "QuicInDropMalformed", 1) +
	       proc_value(SNMP, "QuicInDropNoConnection", 1) +
	       proc_value(SNMP, "QuicInDropDecrypt", 1) +
	       proc_value(SNMP, "QuicInDropBacklog", 1) +
	       proc_value(SNMP, "QuicListenOverflows", 1);
}

/* Wait up to 10 s for drops() to reach @want and QuicInDropDecrypt
 * @decrypt: junk sent is dropped in softirq, which a loaded or debug
 * kernel may leave to ksoftirqd, or at the release of a socket that a
 * thread holds.
 */
static void wait_drops(long want, long decrypt)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (drops() >= want &&
		    proc_value(SNMP, "QuicInDropDecrypt", 1) >= decrypt)
			return;
		usleep(10000);
	}
}

FIXTURE(hostile) {
	int lfd;	/* the listener */
	int u;		/* the raw UDP socket we attack from */
	struct sockaddr_storage laddr;
	socklen_t llen;
};

FIXTURE_VARIANT(hostile) {
	int family;
};

#define QUIC_FIXTURE		hostile
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(hostile)
{
	struct sockaddr_storage ss;
	socklen_t len;

	srandom(7);
	/* Fresh counters, and a budget of stateless answers of its own
	 * for each test, whatever the one before sent.
	 */
	ASSERT_EQ(0, own_netns());
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	self->lfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, self->lfd);
	self->llen = make_addr(&self->laddr, variant->family,
			       loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&self->laddr,
			  self->llen));
	ASSERT_EQ(0, getsockname(self->lfd, (struct sockaddr *)&self->laddr,
				 &self->llen));
	ASSERT_EQ(0, listen(self->lfd, 4));
	self->u = socket(variant->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->u);
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->u, (struct sockaddr *)&ss, len));
}

FIXTURE_TEARDOWN(hostile)
{
	close(self->u);
	close(self->lfd);
	unlink(PSK_FILE);
}

/* Our Initial key derivation against RFC 9001 Appendix A.1. */
TEST_F(hostile, initial_keys)
{
	static const uint8_t dcid[] = {
		0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };
	static const uint8_t ckey[] = {
		0x1f, 0x36, 0x96, 0x13, 0xdd, 0x76, 0xd5, 0x46,
		0x77, 0x30, 0xef, 0xcb, 0xe3, 0xb1, 0xa2, 0x2d };
	static const uint8_t shp[] = {
		0xc2, 0x06, 0xb8, 0xd9, 0xb9, 0xf0, 0xf3, 0x76,
		0x44, 0x43, 0x0b, 0x49, 0x0e, 0xea, 0xa3, 0x14 };
	struct qi_keys c, s;

	ASSERT_EQ(0, qi_derive(dcid, sizeof(dcid), "client in", &c));
	ASSERT_EQ(0, qi_derive(dcid, sizeof(dcid), "server in", &s));
	EXPECT_EQ(0, memcmp(c.key, ckey, sizeof(ckey)));
	EXPECT_EQ(0, memcmp(s.hp, shp, sizeof(shp)));
}

struct bad_initial {
	const char *what;
	uint8_t frames[16];
	size_t len;
	int64_t code;
};

/* RFC 9000 12.4 and 19: unknown types and bad encodings are
 * FRAME_ENCODING_ERROR (0x07); a frame the packet type may not carry is
 * PROTOCOL_VIOLATION (0x0a). PADDING comes first, so a frame cut short
 * at the end of the packet stays cut short.
 */
static const struct bad_initial bad_initials[] = {
	{ "unknown frame type", { 0x3f }, 1, 0x07 },
	{ "unknown two-byte frame type", { 0x40, 0x80 }, 2, 0x07 },
	{ "STREAM in an Initial", { 0x0a, 0x00, 0x01, 'x' }, 4, 0x0a },
	{ "HANDSHAKE_DONE in an Initial", { 0x1e }, 1, 0x0a },
	{ "CRYPTO with a truncated offset", { 0x06, 0x40 }, 2, 0x07 },
	{ "CRYPTO longer than the packet", { 0x06, 0x00, 0x44, 0x00 }, 4,
	  0x07 },
	{ "ACK with a truncated range count", { 0x02, 0x00, 0x00, 0x80 }, 4,
	  0x07 },
};

/* A client Initial that decrypts but carries a bad frame: the server
 * answers with CONNECTION_CLOSE and the RFC's code, and makes no request:
 * poll() on the listener stays quiet and accept() hands out no socket.
 */
TEST_F(hostile, bad_frames_in_initial)
{
	uint8_t dcid[CID_LEN], scid[CID_LEN], pkt[1500];
	struct pollfd pfd = { .fd = self->u, .events = POLLIN };
	struct pollfd lpfd = { .fd = self->lfd, .events = POLLIN };
	long opened = proc_value(SNMP, "QuicConnOpened", 1);
	const uint8_t *payload;
	size_t i, plen;
	ssize_t n;

	for (i = 0; i < ARRAY_SIZE(bad_initials); i++) {
		const struct bad_initial *b = &bad_initials[i];

		fill_random(dcid, sizeof(dcid));
		fill_random(scid, sizeof(scid));
		ASSERT_EQ(1200, qi_build(pkt, 1200, dcid, sizeof(dcid), scid,
					 sizeof(scid), b->frames, b->len));
		ASSERT_EQ(1200, sendto(self->u, pkt, 1200, 0,
				       (struct sockaddr *)&self->laddr,
				       self->llen));
		ASSERT_EQ(1, poll(&pfd, 1, 10000)) {
			TH_LOG("%s: no answer", b->what);
		}
		/* Answered: the listener made its decision. */
		EXPECT_EQ(0, poll(&lpfd, 1, 0)) {
			TH_LOG("%s: the listener polls readable", b->what);
		}
		EXPECT_EQ(-1, accept_nb(self->lfd)) {
			TH_LOG("%s: accepted", b->what);
		}
		EXPECT_EQ(EAGAIN, errno);
		n = recv(self->u, pkt, sizeof(pkt), 0);
		ASSERT_LT(0, n);
		ASSERT_EQ(0, qi_open(pkt, n, dcid, sizeof(dcid), &payload,
				     &plen)) {
			TH_LOG("%s: answer does not open", b->what);
		}
		EXPECT_EQ(b->code, qi_close_code(payload, plen)) {
			TH_LOG("%s", b->what);
		}
	}
	EXPECT_EQ(opened, proc_value(SNMP, "QuicConnOpened", 1));
}

struct dead_initial {
	const char *what;
	uint8_t frames[8];
	size_t len;
	int damage;		/* 1: flip the tag's last byte; 2: junk body */
	const char *counter;	/* the drop counter it moves */
};

/* Client Initials that start no connection: no ClientHello from offset
 * 0, or nothing that decrypts.
 */
static const struct dead_initial dead_initials[] = {
	{ "PING only", { 0x01 }, 1, 0, "QuicInDropNoConnection" },
	{ "CONNECTION_CLOSE only", { 0x1c, 0x00, 0x00, 0x00 }, 4, 0,
	  "QuicInDropNoConnection" },
	{ "CRYPTO from offset 100 only", { 0x06, 0x40, 0x64, 0x01, 0x01 }, 5,
	  0, "QuicInDropNoConnection" },
	{ "CRYPTO from offset 0, empty", { 0x06, 0x00, 0x00, 0x01 }, 4, 0,
	  "QuicInDropNoConnection" },
	{ "a ClientHello start with a bad tag",
	  { 0x06, 0x00, 0x04, 0x01, 0x00, 0x01, 0x00 }, 7, 1,
	  "QuicInDropDecrypt" },
	{ "junk", { 0x01 }, 1, 2, "QuicInDropDecrypt" },
};

/* CRYPTO at offset 0: a handshake message header, type ClientHello. */
static const uint8_t hello_start[] = { 0x06, 0x00, 0x04, 0x01, 0x00, 0x01,
				       0x00 };

struct poll_accept {
	int lfd;
	int fd;
	int polled;
	int ret;
};

/* The loop of most servers: poll() the listener, then a blocking
 * accept() (bounded by the listener's SO_RCVTIMEO), then the handshake.
 */
static void *poll_accept_main(void *p)
{
	struct poll_accept *a = p;
	struct pollfd pfd = { .fd = a->lfd, .events = POLLIN };

	a->polled = poll(&pfd, 1, 20000);
	if (a->polled != 1) {
		a->ret = -ETIMEDOUT;
		return NULL;
	}
	a->fd = accept(a->lfd, NULL, NULL);
	if (a->fd < 0) {
		a->ret = -errno;
		return NULL;
	}
	a->ret = quic_server_handshake(a->fd, PSK_FILE, NULL, NULL);
	return NULL;
}

/* Each Initial that cannot start a connection, alone at the listener:
 * poll() must not report POLLIN (a blocking accept() after it would wait
 * for the next client), and it is counted as a drop. A request whose
 * client closes before accept() is handed out. A real client then gets
 * through a server that polls and accepts blocking.
 */
TEST_F(hostile, dead_initials_wake_no_listener)
{
	struct poll_accept a = { .lfd = self->lfd, .fd = -1 };
	struct pollfd lpfd = { .fd = self->lfd, .events = POLLIN };
	uint8_t dcid[CID_LEN], scid[CID_LEN], pkt[1200];
	struct timeval tv = { .tv_sec = 10 };
	size_t i, hdr = 1 + 4 + 1 + CID_LEN + 1 + CID_LEN + 1 + 2 + 4;
	long before;
	pthread_t th;
	int cfd;

	ASSERT_EQ(0, setsockopt(self->lfd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				sizeof(tv)));
	for (i = 0; i < ARRAY_SIZE(dead_initials); i++) {
		const struct dead_initial *d = &dead_initials[i];

		fill_random(dcid, sizeof(dcid));
		fill_random(scid, sizeof(scid));
		ASSERT_EQ(1200, qi_build(pkt, 1200, dcid, sizeof(dcid), scid,
					 sizeof(scid), d->frames, d->len));
		if (d->damage == 1)
			pkt[sizeof(pkt) - 1] ^= 0x80;
		else if (d->damage == 2)
			fill_random(pkt + hdr, sizeof(pkt) - hdr);
		before = proc_value(SNMP, d->counter, 1);
		ASSERT_EQ(1200, sendto(self->u, pkt, 1200, 0,
				       (struct sockaddr *)&self->laddr,
				       self->llen));
		EXPECT_EQ(0, poll(&lpfd, 1, 500)) {
			TH_LOG("%s: the listener polls readable", d->what);
			/* Clear it, so that the next one is seen alone. */
			accept_nb(self->lfd);
		}
		EXPECT_LT(before, proc_value(SNMP, d->counter, 1)) {
			TH_LOG("%s: not counted in %s", d->what, d->counter);
		}
	}

	/* A ClientHello start, then the client's close before accept():
	 * poll() reports it and accept() hands the socket out, closed,
	 * rather than drop it and wait for another client.
	 */
	fill_random(dcid, sizeof(dcid));
	ASSERT_EQ(1200, qi_build(pkt, 1200, dcid, sizeof(dcid), scid,
				 sizeof(scid), hello_start, sizeof(hello_start)));
	ASSERT_EQ(1200, sendto(self->u, pkt, 1200, 0,
			       (struct sockaddr *)&self->laddr, self->llen));
	ASSERT_EQ(1200, qi_build_pn(pkt, 1200, dcid, sizeof(dcid), scid,
				    sizeof(scid), dead_initials[1].frames,
				    dead_initials[1].len, 1));
	ASSERT_EQ(1200, sendto(self->u, pkt, 1200, 0,
			       (struct sockaddr *)&self->laddr, self->llen));
	ASSERT_EQ(1, poll(&lpfd, 1, 5000));
	usleep(100000);		/* the close parks on the request too */
	cfd = accept(self->lfd, NULL, NULL);
	EXPECT_LE(0, cfd) {
		TH_LOG("accept: %s", strerror(errno));
	}
	if (cfd >= 0)
		close(cfd);

	cfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, pthread_create(&th, NULL, poll_accept_main, &a));
	ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&self->laddr, self->llen));
	EXPECT_EQ(0, quic_client_handshake(cfd, PSK_FILE, NULL, NULL));
	pthread_join(th, NULL);
	EXPECT_EQ(1, a.polled);
	EXPECT_EQ(0, a.ret) {
		TH_LOG("server: %s", strerror(-a.ret));
	}
	if (a.fd >= 0)
		close(a.fd);
	close(cfd);
}

/* close() of a connection still in its handshake (quic-api.rst 5.8): a
 * transport CONNECTION_CLOSE at the Initial level with APPLICATION_ERROR
 * (0x0c) whatever code the application stored, HTTP/3's H3_NO_ERROR
 * (0x100) among them; only a code set as a TLS alert (frame CRYPTO, a
 * CRYPTO_ERROR code: RFC 9001 4.8) goes as itself.
 */
TEST_F(hostile, close_in_handshake_code)
{
	static const struct {
		const char *what;
		uint32_t code;
		uint8_t frame;
		int64_t want;
	} cases[] = {
		{ "H3_NO_ERROR", 0x100, 0, 0x0c },
		{ "an alert's code without frame CRYPTO", 0x128, 0, 0x0c },
		{ "frame CRYPTO without an alert's code", 0x1234, 0x06, 0x0c },
		{ "handshake_failure as an alert", 0x128, 0x06, 0x128 },
	};
	uint8_t dcid[CID_LEN], scid[CID_LEN], pkt[1500];
	struct pollfd pfd = { .fd = self->u, .events = POLLIN };
	struct quic_connection_close cc;
	const uint8_t *payload;
	int64_t code;
	size_t i, plen;
	int afd, k;
	ssize_t n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fill_random(dcid, sizeof(dcid));
		fill_random(scid, sizeof(scid));
		ASSERT_EQ(1200, qi_build(pkt, 1200, dcid, sizeof(dcid), scid,
					 sizeof(scid), hello_start,
					 sizeof(hello_start)));
		ASSERT_EQ(1200, sendto(self->u, pkt, 1200, 0,
				       (struct sockaddr *)&self->laddr,
				       self->llen));
		afd = accept(self->lfd, NULL, NULL);
		ASSERT_LE(0, afd);
		memset(&cc, 0, sizeof(cc));
		cc.errcode = cases[i].code;
		cc.frame = cases[i].frame;
		ASSERT_EQ(0, setsockopt(afd, SOL_QUIC,
					QUIC_SOCKOPT_CONNECTION_CLOSE, &cc,
					sizeof(cc)));
		ASSERT_EQ(0, close(afd));
		/* The close, past any ACK the server sent before it. */
		code = -1;
		for (k = 0; k < 8 && code < 0; k++) {
			if (poll(&pfd, 1, 5000) != 1)
				break;
			n = recv(self->u, pkt, sizeof(pkt), 0);
			if (n > 0 && !qi_open(pkt, n, dcid, sizeof(dcid),
					      &payload, &plen))
				code = qi_close_code(payload, plen);
		}
		EXPECT_EQ(cases[i].want, code) {
			TH_LOG("%s", cases[i].what);
		}
	}
}

struct peer {
	int lfd;
	int fd;
	int ret;
	size_t got;
	int bad;
};

static void *server_main(void *p)
{
	static unsigned char buf[65536];
	struct peer *a = p;
	uint32_t flags;
	int64_t sid = 0;
	ssize_t n, i;

	a->fd = accept(a->lfd, NULL, NULL);
	if (a->fd < 0) {
		a->ret = -errno;
		return NULL;
	}
	a->ret = quic_server_handshake(a->fd, PSK_FILE, NULL, NULL);
	if (a->ret)
		return NULL;
	/* One byte first: the client learns our CID from it. */
	flags = 0;
	n = quic_recvmsg(a->fd, buf, 1, &sid, &flags);
	if (n != 1) {
		a->ret = -EIO;
		return NULL;
	}
	/* Then, after the junk, UP_LEN bytes and a FIN on stream 4. */
	for (;;) {
		flags = 0;
		n = quic_recvmsg(a->fd, buf, sizeof(buf), &sid, &flags);
		if (n < 0) {
			a->ret = -errno;
			return NULL;
		}
		for (i = 0; i < n; i++)
			if (buf[i] != pattern(a->got + i))
				a->bad++;
		a->got += n;
		if (flags & MSG_QUIC_STREAM_FIN)
			break;
	}
	for (i = 0; i < DOWN_LEN; i++)
		buf[i] = pattern(i);
	n = quic_sendmsg(a->fd, buf, DOWN_LEN, sid, MSG_QUIC_STREAM_FIN);
	if (n != DOWN_LEN)
		a->ret = n < 0 ? -errno : -EIO;
	return NULL;
}

static void send_to(int u, const void *b, size_t n,
		    const struct sockaddr_storage *ss, socklen_t len,
		    int *count)
{
	if (sendto(u, b, n, 0, (const struct sockaddr *)ss, len) == (ssize_t)n)
		(*count)++;
	/* Let loopback's softirq keep up: its backlog drops, not ours. */
	if (!(*count % 32))
		usleep(1000);
}

/* Junk at both ends of an established connection, then data both ways. */
TEST_F(hostile, junk_at_connection)
{
	struct peer a = { .lfd = self->lfd, .fd = -1 };
	struct sockaddr_storage cs;
	socklen_t clen = sizeof(cs);
	uint8_t dcid[CID_LEN], b[1500];
	static unsigned char up[UP_LEN], down[DOWN_LEN];
	long before, decrypt;
	int cfd, ps, i, n, sent = 0, bad = 0;
	uint32_t flags = 0;
	int64_t sid = 4;
	pthread_t th;
	ssize_t r;
	size_t got;

	ps = lo_sniffer();
	ASSERT_LE(0, ps);
	cfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, pthread_create(&th, NULL, server_main, &a));
	ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&self->laddr, self->llen));
	ASSERT_EQ(0, quic_client_handshake(cfd, PSK_FILE, NULL, NULL));
	ASSERT_EQ(0, getsockname(cfd, (struct sockaddr *)&cs, &clen));
	ASSERT_EQ(1, quic_sendmsg(cfd, "x", 1, -1, MSG_QUIC_STREAM_NEW));
	ASSERT_EQ(0, sniff_short_dcid(ps, variant->family,
				      addr_port(&self->laddr), dcid, CID_LEN));
	close(ps);

	before = drops();
	decrypt = proc_value(SNMP, "QuicInDropDecrypt", 1);
	for (i = 0; i < 200; i++) {		/* random bytes */
		n = 1 + random() % sizeof(b);
		fill_random(b, n);
		send_to(self->u, b, n, &self->laddr, self->llen, &sent);
		send_to(self->u, b, n, &cs, clen, &sent);
	}
	for (i = 1; i < 40; i++) {		/* truncated long headers */
		fill_random(b, sizeof(b));
		b[0] = 0xc0;
		b[1] = 0; b[2] = 0; b[3] = 0; b[4] = 1;
		b[5] = CID_LEN;
		memcpy(b + 6, dcid, CID_LEN);
		send_to(self->u, b, i, &self->laddr, self->llen, &sent);
	}
	for (i = 21; i < 256; i += 9) {		/* over-long CIDs */
		fill_random(b, sizeof(b));
		b[0] = 0xc0 | (random() & 0x3f);
		b[1] = 0; b[2] = 0; b[3] = 0; b[4] = 1;
		b[5] = i;
		send_to(self->u, b, 1200, &self->laddr, self->llen, &sent);
		b[5] = CID_LEN;
		b[6 + CID_LEN] = i;
		send_to(self->u, b, 1200, &self->laddr, self->llen, &sent);
	}
	for (i = 0; i < 16; i++) {	/* Length beyond the datagram, bad varints */
		fill_random(b, sizeof(b));
		b[0] = 0xe0;			/* Handshake */
		b[1] = 0; b[2] = 0; b[3] = 0; b[4] = 1;
		b[5] = CID_LEN;
		memcpy(b + 6, dcid, CID_LEN);
		b[14] = 0;
		if (i & 1) {
			b[15] = 0x7f;		/* Length 16383 */
			b[16] = 0xff;
			n = 100;
		} else {
			b[15] = 0xc0;		/* an 8-byte varint, cut */
			n = 18;
		}
		send_to(self->u, b, n, &self->laddr, self->llen, &sent);
	}
	for (i = 0; i < 100; i++) {	/* our DCID, a bad tag */
		n = 1 + CID_LEN + 4 + 16 + random() % 1100;
		fill_random(b, n);
		b[0] = 0x40 | (b[0] & 0x3f);
		memcpy(b + 1, dcid, CID_LEN);
		send_to(self->u, b, n, &self->laddr, self->llen, &sent);
	}
	wait_drops(before + sent, decrypt + 100);
	/* Nothing of it made a connection. */
	EXPECT_EQ(-1, accept_nb(self->lfd));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_LE(before + sent, drops()) {
		TH_LOG("%d junk datagrams, %ld drops counted", sent,
		       drops() - before);
	}
	EXPECT_LE(decrypt + 100, proc_value(SNMP, "QuicInDropDecrypt", 1));

	/* The connection is intact: UP_LEN up with FIN, DOWN_LEN back. */
	for (i = 0; i < UP_LEN; i++)
		up[i] = pattern(i);
	r = quic_sendmsg(cfd, up, UP_LEN, sid,
			 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN);
	EXPECT_EQ(UP_LEN, r) {
		TH_LOG("sendmsg: %s", strerror(errno));
	}
	for (got = 0; got < DOWN_LEN; got += r) {
		flags = 0;
		r = quic_recvmsg(cfd, down + got, DOWN_LEN - got, &sid, &flags);
		if (r <= 0)
			break;
	}
	pthread_join(th, NULL);
	EXPECT_EQ(0, a.ret) {
		TH_LOG("server: %s", strerror(-a.ret));
	}
	EXPECT_EQ((size_t)UP_LEN, a.got);
	EXPECT_EQ(0, a.bad);
	EXPECT_EQ((size_t)DOWN_LEN, got);
	for (i = 0; i < DOWN_LEN; i++)
		if (down[i] != pattern(i))
			bad++;
	EXPECT_EQ(0, bad);
	if (a.fd >= 0)
		close(a.fd);
	close(cfd);
}

/* The 1-RTT send secrets installed, by socket: the client's is forged with. */
#define SECRETS_MAX	8
static struct {
	int fd;
	struct quic_crypto_secret s;
} app_secrets[SECRETS_MAX];
static pthread_mutex_t app_secrets_lock = PTHREAD_MUTEX_INITIALIZER;

/* Ours, in front of libc's for libquic too: the call goes on as is. */
int setsockopt(int fd, int level, int opt, const void *val, socklen_t len)
{
	const struct quic_crypto_secret *s = val;
	int i;

	if (level == SOL_QUIC && opt == QUIC_SOCKOPT_CRYPTO_SECRET &&
	    len >= sizeof(*s) && s->send && s->level == QUIC_CRYPTO_APP) {
		pthread_mutex_lock(&app_secrets_lock);
		for (i = 0; i < SECRETS_MAX; i++) {
			if (app_secrets[i].fd && app_secrets[i].fd != fd + 1)
				continue;
			app_secrets[i].fd = fd + 1;
			app_secrets[i].s = *s;
			break;
		}
		pthread_mutex_unlock(&app_secrets_lock);
	}
	return syscall(SYS_setsockopt, fd, level, opt, val, len);
}

static const struct quic_crypto_secret *app_secret(int fd)
{
	const struct quic_crypto_secret *s = NULL;
	int i;

	pthread_mutex_lock(&app_secrets_lock);
	for (i = 0; i < SECRETS_MAX; i++)
		if (app_secrets[i].fd == fd + 1)
			s = &app_secrets[i].s;
	pthread_mutex_unlock(&app_secrets_lock);
	return s;
}

#define TLS_AES_128_GCM	51	/* TLS_CIPHER_AES_GCM_128 of <linux/tls.h> */

/*
 * A 1-RTT packet (key phase 0, a 4-byte packet number) to @dcid with
 * the frames @f of @flen bytes, last: PADDING goes first, so a frame cut
 * short stays cut short. Return: its length, or -1.
 */
static int forge_1rtt(uint8_t *out, const struct quic_crypto_secret *s,
		      const uint8_t *dcid, uint64_t pn, const uint8_t *f,
		      size_t flen)
{
	uint8_t nonce[QI_IV_LEN], mask[16], pt[64];
	size_t p = 0, pn_off, ptlen = sizeof(pt), ctlen;
	gnutls_aead_cipher_hd_t h;
	gnutls_datum_t key;
	struct qi_keys k;
	int i, ret;

	if (s->type != TLS_AES_128_GCM || flen > ptlen ||
	    qi_expand_label(s->secret, "quic key", k.key, QI_KEY_LEN) ||
	    qi_expand_label(s->secret, "quic iv", k.iv, QI_IV_LEN) ||
	    qi_expand_label(s->secret, "quic hp", k.hp, QI_KEY_LEN))
		return -1;
	out[p++] = 0x40 | 3;
	memcpy(out + p, dcid, CID_LEN);
	p += CID_LEN;
	pn_off = p;
	for (i = 0; i < 4; i++)
		out[p++] = (uint8_t)(pn >> (8 * (3 - i)));
	memset(pt, 0, ptlen - flen);
	memcpy(pt + ptlen - flen, f, flen);
	key.data = k.key;
	key.size = QI_KEY_LEN;
	if (gnutls_aead_cipher_init(&h, GNUTLS_CIPHER_AES_128_GCM, &key))
		return -1;
	qi_nonce(&k, pn, nonce);
	ctlen = ptlen + QI_TAG_LEN;
	ret = gnutls_aead_cipher_encrypt(h, nonce, QI_IV_LEN, out, p,
					 QI_TAG_LEN, pt, ptlen, out + p,
					 &ctlen);
	gnutls_aead_cipher_deinit(h);
	if (ret || qi_hp_mask(&k, out + pn_off + 4, mask))
		return -1;
	out[0] ^= mask[0] & 0x1f;
	for (i = 0; i < 4; i++)
		out[pn_off + i] ^= mask[1 + i];
	return p + ctlen;
}

/*
 * Send @b (@n bytes) to @to as a UDP datagram from @from's address and
 * port, through a raw socket: the peer cannot tell it from @from's own.
 * Return: 0, or -1.
 */
static int send_as(int family, const struct sockaddr_storage *from,
		   const struct sockaddr_storage *to, const uint8_t *b,
		   size_t n)
{
	struct sockaddr_storage src = *from, dst = *to;
	uint8_t d[1500];
	int fd, off = 6, ret = -1;
	socklen_t len;

	if (n + 8 > sizeof(d))
		return -1;
	fd = socket(family, SOCK_RAW, IPPROTO_UDP);
	if (fd < 0)
		return -1;
	/* IPv6 wants a checksum: the kernel writes it at offset 6. */
	if (family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_CHECKSUM, &off, sizeof(off)))
		goto out;
	d[0] = addr_port(from) >> 8;
	d[1] = addr_port(from) & 0xff;
	d[2] = addr_port(to) >> 8;
	d[3] = addr_port(to) & 0xff;
	d[4] = (n + 8) >> 8;
	d[5] = (n + 8) & 0xff;
	d[6] = 0;			/* IPv4: no checksum */
	d[7] = 0;
	memcpy(d + 8, b, n);
	if (family == AF_INET) {
		((struct sockaddr_in *)&src)->sin_port = 0;
		((struct sockaddr_in *)&dst)->sin_port = 0;
		len = sizeof(struct sockaddr_in);
	} else {
		((struct sockaddr_in6 *)&src)->sin6_port = 0;
		((struct sockaddr_in6 *)&dst)->sin6_port = 0;
		len = sizeof(struct sockaddr_in6);
	}
	if (bind(fd, (struct sockaddr *)&src, len))
		goto out;
	if (sendto(fd, d, n + 8, 0, (struct sockaddr *)&dst, len) ==
	    (ssize_t)(n + 8))
		ret = 0;
out:
	close(fd);
	return ret;
}

/* Data read within @ms, notifications skipped: its length, or -1. */
static ssize_t ackf_read(int fd, char *buf, size_t len, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint32_t flags;
	int64_t sid;
	ssize_t n;
	int i;

	for (i = 0; i < ms / 50; i++) {
		if (poll(&pfd, 1, 50) != 1)
			continue;
		flags = 0;
		n = quic_recvmsg(fd, buf, len, &sid, &flags);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n >= 0 && (flags & MSG_QUIC_NOTIFICATION))
			continue;
		return n;
	}
	return -1;
}

/* The error code of the peer's CONNECTION_CLOSE, within @ms; 0 if none. */
static uint32_t ackf_close_code(int fd, int ms)
{
	struct quic_connection_close cc;
	socklen_t len;
	int i;

	for (i = 0; i < ms / 50; i++) {
		memset(&cc, 0, sizeof(cc));
		len = sizeof(cc);
		if (!getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE,
				&cc, &len) && cc.errcode)
			return cc.errcode;
		usleep(50000);
	}
	return 0;
}

static const struct ackf_case {
	const char *what;
	uint8_t f[16];
	size_t len;
	uint32_t err;
} ackf_cases[] = {
	/* Request Max Ack Delay 0 us, below our min_ack_delay. */
	{ "delay_below_min", { 0x40, 0xaf, 0x00, 0x09, 0x00, 0x03 }, 6,
	  QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION },
	/* 1 ms: below our min_ack_delay of two jiffies at any HZ. */
	{ "delay_1ms", { 0x40, 0xaf, 0x00, 0x09, 0x43, 0xe8, 0x03 }, 7,
	  QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION },
	/* The Reordering Threshold missing. */
	{ "cut_short", { 0x40, 0xaf, 0x00, 0x09, 0x80, 0x00, 0x61, 0xa8 }, 8,
	  QUIC_TRANSPORT_ERROR_FRAME_ENCODING },
	/* A varint cut in the middle. */
	{ "cut_varint", { 0x40, 0xaf, 0x00, 0x09, 0x80, 0x00 }, 6,
	  QUIC_TRANSPORT_ERROR_FRAME_ENCODING },
};

/*
 * ACK_FREQUENCY with bad values from a client (draft-ietf-quic-ack-frequency
 * 4): the server closes with the draft's error, which the client reports.
 * The forged packet carries the client's address, port and key, and a
 * packet number the client has not used. (Good values are taken between
 * our own ends in every transfer: conn's ack_frequency test.)
 */
TEST_F(hostile, ack_frequency_bad_values)
{
	struct quic_pair_server a = { .psk = PSK_FILE, .lfd = self->lfd };
	const struct quic_crypto_secret *sec;
	uint8_t dcid[CID_LEN], b[256];
	struct sockaddr_storage cs;
	socklen_t clen;
	unsigned int i;
	pthread_t th;
	uint32_t code;
	char buf[8];
	int cfd, ps, n;

	for (i = 0; i < ARRAY_SIZE(ackf_cases); i++) {
		const struct ackf_case *c = &ackf_cases[i];

		a.fd = -1;
		ps = lo_sniffer();
		ASSERT_LE(0, ps);
		cfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
		ASSERT_LE(0, cfd);
		ASSERT_EQ(0, pthread_create(&th, NULL, quic_pair_server_main,
					    &a));
		ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&self->laddr,
				     self->llen));
		ASSERT_EQ(0, quic_client_handshake(cfd, PSK_FILE, NULL, NULL));
		pthread_join(th, NULL);
		ASSERT_EQ(0, a.ret);
		clen = sizeof(cs);
		ASSERT_EQ(0, getsockname(cfd, (struct sockaddr *)&cs, &clen));
		ASSERT_EQ(1, quic_sendmsg(cfd, "x", 1, -1,
					  MSG_QUIC_STREAM_NEW));
		ASSERT_EQ(0, sniff_short_dcid(ps, variant->family,
					      addr_port(&self->laddr), dcid,
					      CID_LEN));
		close(ps);
		ASSERT_EQ(1, ackf_read(a.fd, buf, sizeof(buf), 5000));
		sec = app_secret(cfd);
		ASSERT_NE(NULL, sec);
		if (sec->type != TLS_AES_128_GCM)
			SKIP(return, "cipher %u, not AES-128-GCM", sec->type);
		n = forge_1rtt(b, sec, dcid, 1000 + i, c->f, c->len);
		ASSERT_LT(0, n);
		ASSERT_EQ(0, send_as(variant->family, &cs, &self->laddr, b, n));

		code = ackf_close_code(cfd, 5000);
		EXPECT_EQ(c->err, code) {
			TH_LOG("%s: closed with %#x", c->what, code);
		}
		close(a.fd);
		close(cfd);
	}
}

TEST_HARNESS_MAIN
