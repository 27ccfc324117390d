// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC handshakes between two kernel QUIC sockets over loopback, driven by
 * libquic (tools/lib/quic) with a pre-shared key or a self-signed
 * certificate made at test time: the server accepts the
 * client's first Initial, both ends run the TLS 1.3 handshake through
 * CRYPTO frames and reach ESTABLISHED, then close. The transfer test then
 * moves 1 MiB over one bidirectional stream (poll() reports it, a
 * non-blocking read after the FIN gives EAGAIN). handshake_reordered
 * passes the server's Handshake flight out of order through a relay.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/tls.h>
#include <gnutls/gnutls.h>
#include <netinet/quic.h>

#include "kselftest_harness.h"
#include "quic_common.h"
#include "quic_conn_common.h"
#include "test_cert.h"

#define PSK_FILE	"/tmp/quic_handshake_test.psk"
#define PSK2_FILE	"/tmp/quic_handshake_test2.psk"	/* another key */

#define KEY_FILE	"/tmp/quic_handshake_test.key"
#define CERT_FILE	"/tmp/quic_handshake_test.crt"

struct server_arg {
	const char *key;
	const char *cert;
	int lfd;
	int fd;
	int ret;
	int done[2];	/* pipe: the server's result, for the client to wait */
	int xfer;	/* after the handshake, read one stream to its FIN */
	size_t got;	/* bytes read */
	int64_t sid;	/* their stream */
	int bad;	/* bytes that differ from the pattern */
	int polled;	/* poll() reported POLLIN before the first read */
	int again;	/* errno of a non-blocking read after the FIN */
	uint32_t version;	/* QUIC_SOCKOPT_CONFIG's after the handshake */
};

/* The last server's struct server_arg version, for the version tests. */
static uint32_t server_version;

#define XFER_LEN	(1024 * 1024)

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + (i >> 10));
}

static int server_read_stream(struct server_arg *a)
{
	static unsigned char buf[65536];
	struct pollfd pfd = { .fd = a->fd, .events = POLLIN };
	uint32_t flags;
	int64_t sid;
	ssize_t n, i;

	a->polled = poll(&pfd, 1, 10000) == 1 && (pfd.revents & POLLIN);
	for (;;) {
		flags = 0;
		n = quic_recvmsg(a->fd, buf, sizeof(buf), &sid, &flags);
		if (n < 0)
			return -errno;
		a->sid = sid;
		for (i = 0; i < n; i++)
			if (buf[i] != pattern(a->got + i))
				a->bad++;
		a->got += n;
		if (flags & MSG_QUIC_STREAM_FIN)
			break;
	}
	flags = MSG_DONTWAIT;
	if (quic_recvmsg(a->fd, buf, sizeof(buf), &sid, &flags) < 0)
		a->again = errno;
	return 0;
}

static void *server_main(void *p)
{
	struct server_arg *a = p;
	char c;

	a->fd = accept(a->lfd, NULL, NULL);
	if (a->fd < 0)
		a->ret = -errno;
	else
		a->ret = quic_server_handshake(a->fd, a->key, a->cert, NULL);
	/* As an application would: a failed handshake closes the socket,
	 * which sends the peer CONNECTION_CLOSE with the TLS alert.
	 */
	if (a->ret && a->fd >= 0) {
		close(a->fd);
		a->fd = -1;
	}
	if (!a->ret) {
		struct quic_config cfg = {};
		socklen_t len = sizeof(cfg);

		if (!getsockopt(a->fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
				&len))
			a->version = cfg.version;
		server_version = a->version;
	}
	if (!a->ret && a->xfer)
		a->ret = server_read_stream(a);
	c = a->ret ? 1 : 0;
	if (write(a->done[1], &c, 1) != 1)
		a->ret = -EIO;
	return NULL;
}

FIXTURE(hs) {
	int lfd;
	int cfd;
};

FIXTURE_VARIANT(hs) {
	int family;
};

#define QUIC_FIXTURE		hs
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(hs)
{
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	self->lfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, self->lfd);
	self->cfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, self->cfd);
}

FIXTURE_TEARDOWN(hs)
{
	close(self->cfd);
	close(self->lfd);
	unlink(PSK_FILE);
	unlink(PSK2_FILE);
}

/* One handshake: both sides return 0 (ESTABLISHED) and close cleanly;
 * or, when !ok, both sides fail with an error instead of waiting forever.
 */
static void run_handshake(struct __test_metadata *_metadata, int lfd, int cfd,
			  int family, const char *key, const char *cert,
			  bool ok)
{
	struct sockaddr_storage ss, peer;
	struct server_arg a = { .fd = -1, .key = key, .cert = cert };
	socklen_t len = sizeof(ss), plen = sizeof(peer);
	pthread_t th;
	char c = 1;
	int ret;

	len = make_addr(&ss, family, loopback(family), 0);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(0, listen(lfd, 4));
	ASSERT_EQ(0, pipe(a.done));
	a.lfd = lfd;
	ASSERT_EQ(0, pthread_create(&th, NULL, server_main, &a));

	ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&ss, len));
	EXPECT_EQ(0, getpeername(cfd, (struct sockaddr *)&peer, &plen));
	ret = quic_client_handshake(cfd, cert ? NULL : key, NULL, NULL);
	EXPECT_EQ(ok, !ret) {
		TH_LOG("client handshake: %s", strerror(-ret));
	}
	/* Close only once the server is done with the handshake. */
	EXPECT_EQ(1, read(a.done[0], &c, 1));
	pthread_join(th, NULL);
	EXPECT_EQ(ok, !a.ret) {
		TH_LOG("server handshake: %s", strerror(-a.ret));
	}
	EXPECT_EQ(ok, !c);
	if (a.fd >= 0)
		EXPECT_EQ(0, close(a.fd));
	close(a.done[0]);
	close(a.done[1]);
}

/* Whether the peer's transport parameters carried version_information: a
 * TRANSPORT_PARAM get with remote = 1 reports its absence as
 * disable_compatible_version. -1 if the get fails.
 */
static int peer_version_info(int fd)
{
	struct quic_transport_param p = { .remote = 1 };
	socklen_t len = sizeof(p);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len))
		return -1;
	return !p.disable_compatible_version;
}

TEST_F(hs, psk)
{
	run_handshake(_metadata, self->lfd, self->cfd, variant->family,
		      PSK_FILE, NULL, true);
}

/* QUIC v2 (RFC 9369) from the client's first Initial: the server
 * answers in v2, both ends complete, and the server's socket reports v2
 * in use.
 */
TEST_F(hs, version_2)
{
	struct quic_config cfg = { .version = QUIC_VERSION_V2 };

	ASSERT_EQ(0, setsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
				sizeof(cfg)));
	server_version = 0;
	run_handshake(_metadata, self->lfd, self->cfd, variant->family,
		      PSK_FILE, NULL, true);
	EXPECT_EQ((uint32_t)QUIC_VERSION_V2, server_version);
	EXPECT_EQ(1, peer_version_info(self->cfd));
}

#define SNMP	"/proc/net/quic/snmp"

static long snmp(const char *key)
{
	return proc_value(SNMP, key, 1);
}

/* Compatible version negotiation (RFC 9368 2.3): a server configured for
 * v2 moves a v1 client that lists v2 among its Available Versions to v2
 * with its first flight; both ends then report v2, and both count the
 * change.
 */
TEST_F(hs, compatible_v1_to_v2)
{
	struct quic_config cfg = { .version = QUIC_VERSION_V2 }, got = {};
	socklen_t len = sizeof(got);
	long was = snmp("QuicVersionChanged");

	ASSERT_EQ(0, setsockopt(self->lfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
				sizeof(cfg)));
	server_version = 0;
	run_handshake(_metadata, self->lfd, self->cfd, variant->family,
		      PSK_FILE, NULL, true);
	EXPECT_EQ((uint32_t)QUIC_VERSION_V2, server_version);
	ASSERT_EQ(0, getsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &got,
				&len));
	EXPECT_EQ((uint32_t)QUIC_VERSION_V2, got.version);
	EXPECT_EQ(was + 2, snmp("QuicVersionChanged"));
	EXPECT_EQ(1, peer_version_info(self->cfd));
}

/* The same server, and a client that disabled compatible negotiation:
 * it sends no version_information, and the connection stays on v1 (the
 * server, configured for v2, reports v1 in use). The server sends its
 * own all the same (RFC 9368 3: both directions).
 */
TEST_F(hs, compatible_disabled)
{
	struct quic_config cfg = { .version = QUIC_VERSION_V2 }, got = {};
	struct quic_transport_param tp = {};
	socklen_t len = sizeof(tp);

	ASSERT_EQ(0, setsockopt(self->lfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
				sizeof(cfg)));
	ASSERT_EQ(0, getsockopt(self->cfd, SOL_QUIC,
				QUIC_SOCKOPT_TRANSPORT_PARAM, &tp, &len));
	tp.disable_compatible_version = 1;
	ASSERT_EQ(0, setsockopt(self->cfd, SOL_QUIC,
				QUIC_SOCKOPT_TRANSPORT_PARAM, &tp, sizeof(tp)));
	server_version = 0;
	run_handshake(_metadata, self->lfd, self->cfd, variant->family,
		      PSK_FILE, NULL, true);
	EXPECT_EQ((uint32_t)QUIC_VERSION_V1, server_version);
	len = sizeof(got);
	ASSERT_EQ(0, getsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &got,
				&len));
	EXPECT_EQ(0U, got.version);
	EXPECT_EQ(1, peer_version_info(self->cfd));
}

/* Version Negotiation (RFC 9000 6): a client configured with a greased
 * version (0x?a?a?a?a) gets a Version Negotiation from the listener,
 * sends its first flight again in v1, and the handshake completes. The
 * client's new ClientHello has no version_information; the server's
 * has, for the client to check (RFC 9368 4).
 */
TEST_F(hs, version_negotiation)
{
	struct quic_config cfg = { .version = 0x1a2a3a4a }, got = {};
	socklen_t len = sizeof(got);
	long was = snmp("QuicInVersionNegotiation");

	ASSERT_EQ(0, setsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
				sizeof(cfg)));
	server_version = 0;
	run_handshake(_metadata, self->lfd, self->cfd, variant->family,
		      PSK_FILE, NULL, true);
	EXPECT_EQ(0U, server_version);
	EXPECT_EQ(was + 1, snmp("QuicInVersionNegotiation"));
	ASSERT_EQ(0, getsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &got,
				&len));
	EXPECT_EQ((uint32_t)QUIC_VERSION_V1, got.version);
	EXPECT_EQ(1, peer_version_info(self->cfd));
}

/*
 * Bad input for a client's version negotiation, from a fake server: a
 * plain UDP socket on loopback that our client connects to. It reads the
 * long headers of the client's Initials and answers with hand-made
 * packets: Version Negotiation (RFC 9000 17.2.1) and a forged v2 Initial.
 */
#define VERSION_GREASE	0x1a2a3a4aU	/* one we do not speak */
#define WAIT_MS		10000		/* for a datagram: a bound, not a test */

/* The invariant fields of a long header (RFC 8999 5.1). */
struct long_hdr {
	unsigned char first;
	uint32_t version;
	unsigned char dcid_len;
	unsigned char dcid[20];
	unsigned char scid_len;
	unsigned char scid[20];
};

struct fake {
	int u;				/* the fake server's UDP socket */
	struct sockaddr_storage peer;	/* the client's address */
	socklen_t plen;
	int cfd;			/* the client */
	int ret;			/* its quic_client_handshake() */
	pthread_t th;
};

static void *fake_client_main(void *p)
{
	struct fake *f = p;

	f->ret = quic_client_handshake(f->cfd, PSK_FILE, NULL, NULL);
	return NULL;
}

/*
 * Connect @cfd, configured for @version (0 for the default) and an idle
 * timeout of @idle_us, to a fake server on loopback of @family, and start
 * its handshake in a thread.
 */
static void fake_start(struct __test_metadata *_metadata, struct fake *f,
		       int family, int cfd, uint32_t version, uint32_t idle_us)
{
	struct quic_config cfg = { .version = version };
	struct quic_transport_param tp = {};
	struct sockaddr_storage ss;
	socklen_t len = sizeof(tp);

	f->cfd = cfd;
	f->ret = 0;
	f->plen = 0;
	if (version)
		ASSERT_EQ(0, setsockopt(cfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG,
					&cfg, sizeof(cfg)));
	ASSERT_EQ(0, getsockopt(cfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM,
				&tp, &len));
	tp.max_idle_timeout = idle_us;
	ASSERT_EQ(0, setsockopt(cfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM,
				&tp, sizeof(tp)));
	f->u = socket(family, SOCK_DGRAM, 0);
	ASSERT_LE(0, f->u);
	len = make_addr(&ss, family, loopback(family), 0);
	ASSERT_EQ(0, bind(f->u, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(f->u, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, pthread_create(&f->th, NULL, fake_client_main, f));
}

/* Close the client, which ends its handshake, and wait for it. */
static int fake_end(struct fake *f)
{
	shutdown(f->cfd, SHUT_RDWR);
	pthread_join(f->th, NULL);
	close(f->u);
	return f->ret;
}

static int parse_long(const unsigned char *b, size_t n, struct long_hdr *h)
{
	size_t off = 6;

	if (n < 7 || !(b[0] & 0x80) || b[5] > sizeof(h->dcid))
		return -1;
	h->first = b[0];
	h->version = (uint32_t)b[1] << 24 | b[2] << 16 | b[3] << 8 | b[4];
	h->dcid_len = b[5];
	if (n < off + h->dcid_len + 1)
		return -1;
	memcpy(h->dcid, b + off, h->dcid_len);
	off += h->dcid_len;
	h->scid_len = b[off++];
	if (h->scid_len > sizeof(h->scid) || n < off + h->scid_len)
		return -1;
	memcpy(h->scid, b + off, h->scid_len);
	return 0;
}

/* The long header of the next datagram of the client, which is where
 * answers go from now on; -1 if none came within WAIT_MS.
 */
static int fake_recv(struct fake *f, struct long_hdr *h)
{
	struct pollfd pfd = { .fd = f->u, .events = POLLIN };
	unsigned char b[2048];
	ssize_t n;

	for (;;) {
		if (poll(&pfd, 1, WAIT_MS) != 1)
			return -1;
		f->plen = sizeof(f->peer);
		n = recvfrom(f->u, b, sizeof(b), MSG_DONTWAIT,
			     (struct sockaddr *)&f->peer, &f->plen);
		if (n > 0 && !parse_long(b, n, h))
			return 0;
	}
}

/* Forget the datagrams queued so far: those a PTO sent meanwhile. */
static void fake_drain(struct fake *f)
{
	unsigned char b[2048];

	while (recv(f->u, b, sizeof(b), MSG_DONTWAIT) > 0)
		;
}

static void fake_send(struct __test_metadata *_metadata, struct fake *f,
		      const unsigned char *b, size_t len)
{
	ASSERT_EQ((ssize_t)len, sendto(f->u, b, len, 0,
				       (struct sockaddr *)&f->peer, f->plen));
}

static size_t put_cid(unsigned char *b, const unsigned char *cid,
		      unsigned int len)
{
	b[0] = len;
	memcpy(b + 1, cid, len);
	return 1 + len;
}

static size_t put_be32(unsigned char *b, uint32_t v)
{
	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
	return 4;
}

/*
 * Send the client a Version Negotiation answering the Initial whose
 * header is @h (its DCID is @h's SCID and the other way round), listing
 * the @n versions @v.
 */
static void fake_vn(struct __test_metadata *_metadata, struct fake *f,
		    const struct long_hdr *h, const uint32_t *v, int n)
{
	unsigned char b[128];
	size_t len = 0;
	int i;

	b[len++] = 0x80 | (random() & 0x7f);	/* the rest is unused */
	len += put_be32(b + len, 0);
	len += put_cid(b + len, h->scid, h->scid_len);
	len += put_cid(b + len, h->dcid, h->dcid_len);
	for (i = 0; i < n; i++)
		len += put_be32(b + len, v[i]);
	fake_send(_metadata, f, b, len);
}

/* The next Initial of the client, in @h: the test fails if none came. */
static void next_initial(struct __test_metadata *_metadata, struct fake *f,
			 struct long_hdr *h)
{
	ASSERT_EQ(0, fake_recv(f, h)) {
		TH_LOG("no Initial from the client");
	}
}

/* QUIC_SOCKOPT_CONFIG's version on @fd. */
static uint32_t config_version(int fd)
{
	struct quic_config cfg = {};
	socklen_t len = sizeof(cfg);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, &len))
		return ~0U;
	return cfg.version;
}

static int so_error(int fd)
{
	socklen_t len = sizeof(int);
	int err = -1;

	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	return err;
}

/* SNMP's @key once it is at least @min; its value after WAIT_MS if not. */
static long snmp_reach(const char *key, long min)
{
	long v;
	int i;

	for (i = 0; (v = snmp(key)) < min && i < WAIT_MS / 10; i++)
		usleep(10000);
	return v;
}

/* A Version Negotiation that lists none of our versions ends the
 * connection: the handshake fails, the socket error is EPROTONOSUPPORT,
 * and the socket reports a VERSION_NEGOTIATION_ERROR close. Its short idle timeout
 * bounds the wait if the client did not act on the packet.
 */
TEST_F_TIMEOUT(hs, vn_no_common_version, 60)
{
	static const uint32_t none[] = { 0x0a0a0a0a, 0xff00001d };
	long vn = snmp("QuicInVersionNegotiation");
	struct quic_connection_close cc = {};
	socklen_t len = sizeof(cc);
	struct long_hdr h;
	struct fake f;

	fake_start(_metadata, &f, variant->family, self->cfd, VERSION_GREASE,
		   3000000);
	next_initial(_metadata, &f, &h);
	EXPECT_EQ(VERSION_GREASE, h.version);
	fake_vn(_metadata, &f, &h, none, 2);
	pthread_join(f.th, NULL);
	close(f.u);
	EXPECT_NE(0, f.ret);
	/* recvmsg() gives ENOTCONN on a closed connection: the reason is
	 * the socket error.
	 */
	EXPECT_EQ(EPROTONOSUPPORT, so_error(self->cfd));
	EXPECT_EQ(vn + 1, snmp("QuicInVersionNegotiation"));
	ASSERT_EQ(0, getsockopt(self->cfd, SOL_QUIC,
				QUIC_SOCKOPT_CONNECTION_CLOSE, &cc, &len));
	EXPECT_EQ((uint32_t)QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION,
		  cc.errcode);
}

/* Version Negotiation the client must ignore (RFC 9000 6.2), before and
 * after one it acts upon:
 *  - one that lists the version the client sent (and v1 too);
 *  - one that does not echo the client's DCID in its SCID;
 *  - one to a DCID that is not the client's SCID: no connection has it;
 *  - one after a Version Negotiation was acted upon.
 * The ignored ones change nothing: the client goes on sending Initials
 * of its version, with no socket error. Those that reach the connection
 * count as malformed, the one to no connection as such. The one that
 * lists v2 alone makes the client send its first flight again in v2.
 */
TEST_F_TIMEOUT(hs, vn_ignored, 120)
{
	static const uint32_t own[] = { VERSION_GREASE, QUIC_VERSION_V1 };
	static const uint32_t v1[] = { QUIC_VERSION_V1 };
	static const uint32_t v2[] = { QUIC_VERSION_V2 };
	long vn = snmp("QuicInVersionNegotiation");
	long malformed, noconn;
	struct long_hdr h, bad;
	struct fake f;
	int i;

	fake_start(_metadata, &f, variant->family, self->cfd, VERSION_GREASE,
		   20000000);
	next_initial(_metadata, &f, &h);
	ASSERT_EQ(VERSION_GREASE, h.version);
	EXPECT_EQ(VERSION_GREASE, config_version(self->cfd));

	malformed = snmp("QuicInDropMalformed");
	noconn = snmp("QuicInDropNoConnection");
	fake_vn(_metadata, &f, &h, own, 2);
	bad = h;
	bad.dcid[0] ^= 0xff;	/* the SCID of the VN */
	fake_vn(_metadata, &f, &bad, v1, 1);
	bad = h;
	bad.scid[0] ^= 0xff;	/* the DCID of the VN */
	fake_vn(_metadata, &f, &bad, v1, 1);
	/* The first two reach the connection and are dropped there. */
	EXPECT_LE(malformed + 2, snmp_reach("QuicInDropMalformed",
					    malformed + 2));
	EXPECT_LE(noconn + 1, snmp_reach("QuicInDropNoConnection",
					 noconn + 1));
	/* Its next Initial, a PTO later, is as the first. */
	fake_drain(&f);
	next_initial(_metadata, &f, &h);
	EXPECT_EQ(VERSION_GREASE, h.version);
	EXPECT_EQ(0, so_error(self->cfd));
	EXPECT_EQ(vn, snmp("QuicInVersionNegotiation"));
	EXPECT_EQ(VERSION_GREASE, config_version(self->cfd));

	/* v2 alone: the first flight goes again, in v2. A PTO's Initial
	 * may have crossed the Version Negotiation: skip those.
	 */
	fake_drain(&f);
	fake_vn(_metadata, &f, &h, v2, 1);
	for (i = 0; i < 4; i++) {
		next_initial(_metadata, &f, &h);
		if (h.version != VERSION_GREASE)
			break;
	}
	EXPECT_EQ((uint32_t)QUIC_VERSION_V2, h.version);
	EXPECT_EQ(0x10, h.first & 0x30) {	/* a v2 Initial */
		TH_LOG("first byte %#x", h.first);
	}
	EXPECT_EQ(vn + 1, snmp("QuicInVersionNegotiation"));
	EXPECT_EQ((uint32_t)QUIC_VERSION_V2, config_version(self->cfd));

	/* A second one, valid but too late, is ignored too. */
	malformed = snmp("QuicInDropMalformed");
	fake_vn(_metadata, &f, &h, v1, 1);
	EXPECT_LE(malformed + 1, snmp_reach("QuicInDropMalformed",
					    malformed + 1));
	fake_drain(&f);
	next_initial(_metadata, &f, &h);
	EXPECT_EQ((uint32_t)QUIC_VERSION_V2, h.version);
	EXPECT_EQ(0, so_error(self->cfd));
	EXPECT_EQ(vn + 1, snmp("QuicInVersionNegotiation"));
	EXPECT_EQ((uint32_t)QUIC_VERSION_V2, config_version(self->cfd));
	EXPECT_NE(0, fake_end(&f));
}

/* A v1 client that receives an Initial of v2 tries v2's Initial keys on
 * it (compatible negotiation, RFC 9368 2.3): a forged one, with the
 * client's SCID as its DCID and random bytes for the rest, does not
 * open, and the client stays on v1, with its DCID.
 */
TEST_F_TIMEOUT(hs, forged_v2_initial, 60)
{
	long changed = snmp("QuicVersionChanged");
	long decrypt = snmp("QuicInDropDecrypt");
	unsigned char b[1400], scid[8];
	struct long_hdr h, first;
	size_t len = 0;
	struct fake f;

	fake_start(_metadata, &f, variant->family, self->cfd, 0, 20000000);
	next_initial(_metadata, &f, &h);
	ASSERT_EQ((uint32_t)QUIC_VERSION_V1, h.version);
	first = h;

	fill_random(scid, sizeof(scid));
	b[len++] = 0xd0 | 3;	/* v2 Initial (RFC 9369 3.2), 4-byte PN */
	len += put_be32(b + len, QUIC_VERSION_V2);
	len += put_cid(b + len, h.scid, h.scid_len);
	len += put_cid(b + len, scid, sizeof(scid));
	b[len++] = 0;		/* no token */
	b[len++] = 0x40 | (1200 >> 8);	/* Length 1200, a 2-byte varint */
	b[len++] = 1200 & 0xff;
	fill_random(b + len, 1200);
	len += 1200;
	fake_drain(&f);
	fake_send(_metadata, &f, b, len);
	EXPECT_LE(decrypt + 1, snmp_reach("QuicInDropDecrypt", decrypt + 1));

	/* Its next Initial, a PTO later, is of v1 still. */
	next_initial(_metadata, &f, &h);
	EXPECT_EQ((uint32_t)QUIC_VERSION_V1, h.version);
	EXPECT_EQ(0x00, h.first & 0x30) {	/* a v1 Initial */
		TH_LOG("first byte %#x", h.first);
	}
	EXPECT_EQ(first.dcid_len, h.dcid_len);
	EXPECT_EQ(0, memcmp(h.dcid, first.dcid, first.dcid_len)) {
		TH_LOG("the client took the forged packet's SCID");
	}
	EXPECT_EQ(0U, config_version(self->cfd));
	EXPECT_EQ(changed, snmp("QuicVersionChanged"));
	EXPECT_EQ(0, so_error(self->cfd));
	EXPECT_NE(0, fake_end(&f));
}

/*
 * A forged Version Negotiation (RFC 9368 4). A relay between the client
 * and a real listener answers the client's greased Initials with a
 * Version Negotiation of its own that lists v2 alone, and passes the
 * rest. The client, which prefers v1, sends its first flight again in
 * v2, which the listener takes; the server's version_information then
 * lists v1 too: the client would have picked v1, so the Version
 * Negotiation was forged, and it closes with VERSION_NEGOTIATION_ERROR.
 */
struct vn_relay {
	int u;		/* the client's peer */
	int s;		/* connected to the listener */
	int stop[2];	/* pipe: written to end the relay */
	struct sockaddr_storage client;
	socklen_t clen;
	int forged;	/* Version Negotiations sent */
	pthread_t th;
};

static void *vn_relay_main(void *p)
{
	static const uint32_t v2 = QUIC_VERSION_V2;
	struct vn_relay *r = p;
	unsigned char b[2048], vn[128];
	struct long_hdr h;
	size_t len;
	ssize_t n;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = r->u, .events = POLLIN },
			{ .fd = r->s, .events = POLLIN },
			{ .fd = r->stop[0], .events = POLLIN },
		};

		if (poll(pfd, 3, 100) < 0 || pfd[2].revents)
			break;
		if (pfd[0].revents & POLLIN) {
			r->clen = sizeof(r->client);
			n = recvfrom(r->u, b, sizeof(b), 0,
				     (struct sockaddr *)&r->client, &r->clen);
			if (n <= 0)
				continue;
			if (parse_long(b, n, &h) || h.version != VERSION_GREASE) {
				send(r->s, b, n, 0);
				continue;
			}
			len = 0;
			vn[len++] = 0x80;
			len += put_be32(vn + len, 0);
			len += put_cid(vn + len, h.scid, h.scid_len);
			len += put_cid(vn + len, h.dcid, h.dcid_len);
			len += put_be32(vn + len, v2);
			sendto(r->u, vn, len, 0, (struct sockaddr *)&r->client,
			       r->clen);
			r->forged++;
		}
		if (pfd[1].revents & POLLIN) {
			n = recv(r->s, b, sizeof(b), 0);
			if (n > 0 && r->clen)
				sendto(r->u, b, n, 0,
				       (struct sockaddr *)&r->client, r->clen);
		}
	}
	return NULL;
}

TEST_F_TIMEOUT(hs, vn_forged_downgrade, 90)
{
	struct quic_config cfg = { .version = VERSION_GREASE };
	struct server_arg a = { .fd = -1, .key = PSK_FILE };
	struct quic_connection_close cc = {};
	struct sockaddr_storage ss, rs;
	socklen_t len, rlen, cclen = sizeof(cc);
	struct vn_relay r = {};
	pthread_t th;
	char c = 0;
	int ret;

	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(self->lfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(0, listen(self->lfd, 4));

	r.u = socket(variant->family, SOCK_DGRAM, 0);
	r.s = socket(variant->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, r.u);
	ASSERT_LE(0, r.s);
	rlen = make_addr(&rs, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(r.u, (struct sockaddr *)&rs, rlen));
	ASSERT_EQ(0, getsockname(r.u, (struct sockaddr *)&rs, &rlen));
	ASSERT_EQ(0, connect(r.s, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, pipe(r.stop));
	ASSERT_EQ(0, pthread_create(&r.th, NULL, vn_relay_main, &r));

	ASSERT_EQ(0, pipe(a.done));
	a.lfd = self->lfd;
	ASSERT_EQ(0, pthread_create(&th, NULL, server_main, &a));
	ASSERT_EQ(0, setsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
				sizeof(cfg)));
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&rs, rlen));
	ret = quic_client_handshake(self->cfd, PSK_FILE, NULL, NULL);
	EXPECT_NE(0, ret);
	EXPECT_LE(1, r.forged);
	/* It did act on the forged packet: its version is v2 now. */
	EXPECT_EQ((uint32_t)QUIC_VERSION_V2, config_version(self->cfd));
	EXPECT_NE(0, so_error(self->cfd));
	ASSERT_EQ(0, getsockopt(self->cfd, SOL_QUIC,
				QUIC_SOCKOPT_CONNECTION_CLOSE, &cc, &cclen));
	EXPECT_EQ((uint32_t)QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION,
		  cc.errcode);
	/* The server's handshake fails too, on the client's close. */
	EXPECT_EQ(1, read(a.done[0], &c, 1));
	pthread_join(th, NULL);
	EXPECT_NE(0, a.ret);
	ASSERT_EQ(1, write(r.stop[1], "x", 1));
	pthread_join(r.th, NULL);
	if (a.fd >= 0)
		close(a.fd);
	close(a.done[0]);
	close(a.done[1]);
	close(r.stop[0]);
	close(r.stop[1]);
	close(r.u);
	close(r.s);
}

TEST_F(hs, certificate)
{
	ASSERT_EQ(0, quic_test_make_cert(CERT_FILE, KEY_FILE));
	run_handshake(_metadata, self->lfd, self->cfd, variant->family,
		      KEY_FILE, CERT_FILE, true);
	unlink(KEY_FILE);
	unlink(CERT_FILE);
}

/*
 * A server flight that arrives out of order (RFC 9000 7.5). A relay
 * between the client and the server holds the first datagram of the
 * server's that begins with a Handshake packet, passes the next one, and
 * lets the held one go only once the client has answered that one. The
 * client must keep the data beyond the gap and acknowledge its packet at
 * once, so its answer carries an ACK frame; a client that dropped the
 * data and left the packet unacknowledged sent nothing until its PTO,
 * a bare PING, and the server never learnt which piece was missing. A
 * certificate with many names makes the flight several datagrams long.
 */
#define BIG_CERT_NAMES	100

/* A QUIC variable-length integer at *@p of @b (@n bytes); -1 if cut. */
static long long get_varint(const unsigned char *b, size_t n, size_t *p)
{
	size_t len, i;
	long long v;

	if (*p >= n)
		return -1;
	len = (size_t)1 << (b[*p] >> 6);
	if (*p + len > n)
		return -1;
	v = b[*p] & 0x3f;
	for (i = 1; i < len; i++)
		v = v << 8 | b[*p + i];
	*p += len;
	return v;
}

#define LH_INITIAL	0
#define LH_HANDSHAKE	2

/* The Length field (RFC 9000 17.2) of the first QUIC v1 Handshake packet
 * in datagram @b, among its coalesced long-header packets, or -1; only
 * the first packet is looked at when @first.
 */
static long long handshake_len(const unsigned char *b, size_t n, bool first)
{
	size_t p, off = 0;
	long long len, tok;
	int type;

	while (off + 7 <= n && (b[off] & 0x80)) {
		type = (b[off] >> 4) & 3;
		p = off + 5;
		p += 1 + b[p];				/* DCID */
		if (p >= n)
			return -1;
		p += 1 + b[p];				/* SCID */
		if (type == LH_INITIAL) {
			tok = get_varint(b, n, &p);
			if (tok < 0)
				return -1;
			p += tok;
		} else if (type != LH_HANDSHAKE) {
			return -1;
		}
		len = get_varint(b, n, &p);
		if (len < 0)
			return -1;
		if (type == LH_HANDSHAKE)
			return len;
		if (first)
			return -1;
		off = p + len;
	}
	return -1;
}

struct relay {
	int u;		/* the client's peer */
	int s;		/* connected to the server */
	int stop[2];	/* pipe: written to end the relay */
	struct sockaddr_storage client;
	socklen_t clen;
	unsigned char held[2048];
	ssize_t held_len;
	bool released;
	long long answer;	/* Length of the client's answer, or -1 */
	pthread_t th;
};

/* The relay's forwarding: see above. */
static void *relay_main(void *p)
{
	int srv_hs = 0, cli_hs = 0, cli_hs_passed = -1;
	struct relay *r = p;
	unsigned char b[2048];
	time_t deadline = 0;
	ssize_t n;

	r->answer = -1;
	for (;;) {
		/* Until the client acknowledged the server's Handshake packets
		 * before the held one, the next one waits at the server end;
		 * after it, everything does until the client answers (what
		 * the server sends again meanwhile would fill the gap).
		 */
		bool wait = (r->held_len && cli_hs_passed < 0 && srv_hs &&
			     !cli_hs) || (cli_hs_passed >= 0 && !r->released);
		struct pollfd pfd[3] = {
			{ .fd = r->u, .events = POLLIN },
			{ .fd = wait ? -1 : r->s, .events = POLLIN },
			{ .fd = r->stop[0], .events = POLLIN },
		};

		if (poll(pfd, 3, 100) < 0 || pfd[2].revents)
			break;
		/* A bound, in case no answer comes: the test fails then. */
		if (r->held_len && !r->released && time(NULL) > deadline) {
			sendto(r->u, r->held, r->held_len, 0,
			       (struct sockaddr *)&r->client, r->clen);
			r->released = true;
		}
		if (pfd[0].revents & POLLIN) {
			r->clen = sizeof(r->client);
			n = recvfrom(r->u, b, sizeof(b), 0,
				     (struct sockaddr *)&r->client, &r->clen);
			if (n <= 0)
				continue;
			send(r->s, b, n, 0);
			if (handshake_len(b, n, false) < 0)
				continue;
			cli_hs++;
			if (cli_hs_passed >= 0 && cli_hs > cli_hs_passed &&
			    !r->released) {
				r->answer = handshake_len(b, n, false);
				sendto(r->u, r->held, r->held_len, 0,
				       (struct sockaddr *)&r->client, r->clen);
				r->released = true;
			}
		}
		if (pfd[1].revents & POLLIN) {
			n = recv(r->s, b, sizeof(b), 0);
			if (n <= 0 || !r->clen)
				continue;
			if (!r->held_len && handshake_len(b, n, true) >= 0) {
				memcpy(r->held, b, n);
				r->held_len = n;
				deadline = time(NULL) + WAIT_MS / 1000;
				continue;
			}
			if (r->held_len && cli_hs_passed < 0)
				cli_hs_passed = cli_hs;
			if (handshake_len(b, n, false) >= 0)
				srv_hs++;
			sendto(r->u, b, n, 0, (struct sockaddr *)&r->client,
			       r->clen);
		}
	}
	return NULL;
}

TEST_F(hs, handshake_reordered)
{
	struct server_arg a = { .fd = -1, .key = KEY_FILE, .cert = CERT_FILE };
	struct sockaddr_storage ss, rs;
	socklen_t len, rlen;
	struct relay r = {};
	pthread_t th;
	char c = 1;
	int ret;

	ASSERT_EQ(0, quic_test_make_cert_names(CERT_FILE, KEY_FILE,
					       BIG_CERT_NAMES));
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(self->lfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(0, listen(self->lfd, 4));

	r.u = socket(variant->family, SOCK_DGRAM, 0);
	r.s = socket(variant->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, r.u);
	ASSERT_LE(0, r.s);
	rlen = make_addr(&rs, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(r.u, (struct sockaddr *)&rs, rlen));
	ASSERT_EQ(0, getsockname(r.u, (struct sockaddr *)&rs, &rlen));
	ASSERT_EQ(0, connect(r.s, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, pipe(r.stop));
	ASSERT_EQ(0, pthread_create(&r.th, NULL, relay_main, &r));

	ASSERT_EQ(0, pipe(a.done));
	a.lfd = self->lfd;
	ASSERT_EQ(0, pthread_create(&th, NULL, server_main, &a));
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&rs, rlen));
	ret = quic_client_handshake(self->cfd, NULL, NULL, NULL);
	EXPECT_EQ(0, ret) {
		TH_LOG("client handshake: %s", strerror(-ret));
	}
	EXPECT_EQ(1, read(a.done[0], &c, 1));
	pthread_join(th, NULL);
	EXPECT_EQ(0, a.ret);
	EXPECT_EQ(0, c);
	ASSERT_EQ(1, write(r.stop[1], "x", 1));
	pthread_join(r.th, NULL);

	/* A datagram was held back and passed later ... */
	EXPECT_TRUE(r.released);
	/* ... after an answer that acknowledged the one after it: the
	 * Handshake packet's Length is its 4-byte packet number, the
	 * 16-byte tag and the frames, and an ACK frame takes at least 5
	 * bytes where a bare PING takes 1.
	 */
	EXPECT_LE(4 + 16 + 5, r.answer) {
		TH_LOG("the client's answer to the packet after a gap: Length %lld",
		       r.answer);
	}
	if (a.fd >= 0)
		close(a.fd);
	close(a.done[0]);
	close(a.done[1]);
	close(r.stop[0]);
	close(r.stop[1]);
	close(r.u);
	close(r.s);
	unlink(KEY_FILE);
	unlink(CERT_FILE);
}

/* Junk at a listener and at a connection's port: Initials that queue
 * requests (which accept() drops as they do not decrypt), random long and
 * short headers. The kernel drops what it cannot use and keeps working.
 */
TEST_F(hs, hostile)
{
	static unsigned char buf[1500];
	struct sockaddr_storage ss, cs;
	socklen_t len = sizeof(ss), clen = sizeof(cs);
	int u, i, fd, n, accepted = 0;

	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(self->lfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(0, listen(self->lfd, 4));
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(self->cfd, (struct sockaddr *)&cs, &clen));
	u = socket(variant->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, u);
	srandom(42);
	for (i = 0; i < 2000; i++) {
		n = 1 + random() % sizeof(buf);
		fill_random(buf, n);
		switch (i % 4) {
		case 0:	/* a client Initial of v1, random inside */
			n = 1200 + random() % 200;
			fill_random(buf, n);
			buf[0] = 0xc0 | (buf[0] & 0x0f);
			buf[1] = 0; buf[2] = 0; buf[3] = 0; buf[4] = 1;
			buf[5] = 8 + random() % 13;
			buf[6 + buf[5]] = random() % 21;
			break;
		case 1:	/* a short header */
			buf[0] = 0x40 | (buf[0] & 0x3f);
			break;
		}
		sendto(u, buf, n, 0, (struct sockaddr *)&ss, len);
		sendto(u, buf, n, 0, (struct sockaddr *)&cs, clen);
	}
	usleep(200000);
	for (i = 0; i < 8; i++) {
		fd = accept_nb(self->lfd);
		if (fd < 0)
			break;
		accepted++;
		EXPECT_EQ(0, close(fd));
	}
	/* None of the junk Initials decrypts: accept() hands out none. */
	EXPECT_EQ(0, accepted);
	EXPECT_EQ(0, close(u));
}

/* The role probe of libquic: TOKEN get works on a client only. */
TEST_F(hs, role_probe)
{
	struct sockaddr_storage ss;
	unsigned char token[128];
	socklen_t len, tlen = sizeof(token);

	/* A socket that neither listens nor was accepted is a client
	 * (quic-api.rst 5.10): its token, empty, reads back at any time.
	 */
	EXPECT_EQ(0, getsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				token, &tlen));
	EXPECT_EQ(0U, tlen);
	len = make_addr(&ss, variant->family, loopback(variant->family), 4433);
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&ss, len));
	tlen = sizeof(token);
	EXPECT_EQ(0, getsockopt(self->cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				token, &tlen));
	EXPECT_EQ(0U, tlen);
	/* connect() sends nothing and a second one fails. */
	EXPECT_EQ(-1, connect(self->cfd, (struct sockaddr *)&ss, len));
	EXPECT_EQ(EINVAL, errno);
	tlen = sizeof(token);
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, listen(self->lfd, 1));
	EXPECT_EQ(-1, getsockopt(self->lfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				 token, &tlen));
}

/* A listener without requests: non-blocking accept gives EAGAIN. */
TEST_F(hs, accept_nonblock)
{
	struct sockaddr_storage ss;
	socklen_t len;

	EXPECT_EQ(-1, accept_nb(self->lfd));
	EXPECT_EQ(EINVAL, errno);
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&ss, len));
	EXPECT_EQ(-1, listen(self->lfd, 0));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, listen(self->lfd, 2));
	EXPECT_EQ(-1, accept_nb(self->lfd));
	EXPECT_EQ(EAGAIN, errno);
}

/* After a PSK handshake the client sends 1 MiB on a new bidirectional
 * stream with FIN; the server reads it all, in order, up to the FIN.
 */
static void run_transfer(struct __test_metadata *_metadata, int lfd, int cfd,
			 int family, const char *key, const char *cert)
{
	struct server_arg a = { .fd = -1, .key = key, .cert = cert, .xfer = 1 };
	struct sockaddr_storage ss;
	unsigned char *buf;
	socklen_t len;
	pthread_t th;
	size_t i, off;
	ssize_t n;
	char c = 1;

	buf = malloc(XFER_LEN);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < XFER_LEN; i++)
		buf[i] = pattern(i);
	len = make_addr(&ss, family, loopback(family), 0);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(0, listen(lfd, 4));
	ASSERT_EQ(0, pipe(a.done));
	a.lfd = lfd;
	ASSERT_EQ(0, pthread_create(&th, NULL, server_main, &a));
	ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, quic_client_handshake(cfd, cert ? NULL : key, NULL, NULL));
	/* Two sends: the first opens stream 0, the second ends it. */
	n = quic_sendmsg(cfd, buf, XFER_LEN / 2, -1, MSG_QUIC_STREAM_NEW);
	EXPECT_EQ(XFER_LEN / 2, n) {
		TH_LOG("sendmsg: %s", strerror(errno));
	}
	off = n > 0 ? n : 0;
	n = quic_sendmsg(cfd, buf + off, XFER_LEN - off, 0,
			 MSG_QUIC_STREAM_FIN);
	EXPECT_EQ((ssize_t)(XFER_LEN - off), n) {
		TH_LOG("sendmsg: %s", strerror(errno));
	}
	/* Finished: the stream takes no more data. */
	EXPECT_EQ(-1, quic_sendmsg(cfd, buf, 1, 0, 0));
	EXPECT_EQ(1, read(a.done[0], &c, 1));
	pthread_join(th, NULL);
	EXPECT_EQ(0, a.ret) {
		TH_LOG("server: %s", strerror(-a.ret));
	}
	EXPECT_EQ(0, c);
	EXPECT_EQ((size_t)XFER_LEN, a.got);
	EXPECT_EQ(0, a.sid);
	EXPECT_EQ(0, a.bad);
	EXPECT_EQ(1, a.polled);
	EXPECT_EQ(EAGAIN, a.again);
	if (a.fd >= 0)
		EXPECT_EQ(0, close(a.fd));
	close(a.done[0]);
	close(a.done[1]);
	free(buf);
}

TEST_F(hs, transfer)
{
	run_transfer(_metadata, self->lfd, self->cfd, variant->family,
		     PSK_FILE, NULL);
}

/* The same handshakes and transfer with each cipher suite alone: both
 * ends offer only the variant's cipher (QUIC_SOCKOPT_CONFIG
 * payload_cipher_type, which libquic turns into its GnuTLS priority), so
 * the connection can only come up if the kernel runs that AEAD and its
 * header protection.
 */
FIXTURE(cipher) {
	int lfd;
	int cfd;
};

/* The members of quic_variants.h's QUIC_VARIANTS_CIPHER_ALL; with a PSK
 * that cannot select the cipher suite (!psk), the variant checks that
 * the failure is clean instead.
 */
FIXTURE_VARIANT(cipher) {
	int family;
	unsigned int type;
	const char *prio;
	int gnutls;
	bool psk;	/* a SHA-256 PSK can select this cipher suite */
};

#define QUIC_FIXTURE		cipher
#define QUIC_VARIANTS_CIPHER_ALL
#include "quic_variants.h"

static int set_cipher(int fd, unsigned int type)
{
	struct quic_config cfg;
	socklen_t len = sizeof(cfg);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, &len))
		return -1;
	cfg.payload_cipher_type = type;
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, len);
}

FIXTURE_SETUP(cipher)
{
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	self->lfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, self->lfd);
	self->cfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, self->cfd);
	ASSERT_EQ(0, set_cipher(self->lfd, variant->type));
	ASSERT_EQ(0, set_cipher(self->cfd, variant->type));
}

FIXTURE_TEARDOWN(cipher)
{
	close(self->cfd);
	close(self->lfd);
	unlink(PSK_FILE);
}

TEST_F(cipher, psk)
{
	run_handshake(_metadata, self->lfd, self->cfd, variant->family,
		      PSK_FILE, NULL, variant->psk);
}

TEST_F(cipher, certificate)
{
	ASSERT_EQ(0, quic_test_make_cert(CERT_FILE, KEY_FILE));
	run_handshake(_metadata, self->lfd, self->cfd, variant->family,
		      KEY_FILE, CERT_FILE, true);
	unlink(KEY_FILE);
	unlink(CERT_FILE);
}

/* 1 MiB with the variant's cipher, over a certificate handshake. */
TEST_F(cipher, transfer)
{
	ASSERT_EQ(0, quic_test_make_cert(CERT_FILE, KEY_FILE));
	run_transfer(_metadata, self->lfd, self->cfd, variant->family,
		     KEY_FILE, CERT_FILE);
	unlink(KEY_FILE);
	unlink(CERT_FILE);
}

/* A handshake the server's TLS refuses, the client's PSK not being the
 * server's: the server closes with the alert its GnuTLS raised, as a
 * transport CONNECTION_CLOSE with CRYPTO_ERROR 0x100 + alert (RFC 9001
 * 4.8; libquic stores it with frame CRYPTO), not APPLICATION_ERROR; the
 * client reads it with getsockopt(QUIC_SOCKOPT_CONNECTION_CLOSE). Which
 * alert is the TLS library's choice: RFC 8446 6.2 names decrypt_error
 * (51) for a binder that does not verify, Debian 12's GnuTLS sends
 * illegal_parameter (47).
 */
TEST_F(hs, alert_closes_with_crypto_error)
{
	struct server_arg a = { .fd = -1, .key = PSK2_FILE };
	struct quic_connection_close cc = {};
	socklen_t clen = sizeof(cc), len;
	struct sockaddr_storage ss;
	pthread_t th;
	char c = 0;
	FILE *f;

	f = fopen(PSK2_FILE, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "test:%s\n",
		"1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100");
	ASSERT_EQ(0, fclose(f));
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(self->lfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(0, listen(self->lfd, 4));
	ASSERT_EQ(0, pipe(a.done));
	a.lfd = self->lfd;
	ASSERT_EQ(0, pthread_create(&th, NULL, server_main, &a));
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&ss, len));
	EXPECT_NE(0, quic_client_handshake(self->cfd, PSK_FILE, NULL, NULL));
	EXPECT_EQ(1, read(a.done[0], &c, 1));
	pthread_join(th, NULL);
	EXPECT_EQ(1, c);
	EXPECT_EQ(0, getsockopt(self->cfd, SOL_QUIC,
				QUIC_SOCKOPT_CONNECTION_CLOSE, &cc, &clen));
	EXPECT_LT((unsigned int)QUIC_TRANSPORT_ERROR_CRYPTO, cc.errcode);
	EXPECT_GE(QUIC_TRANSPORT_ERROR_CRYPTO + 0xffU, cc.errcode);
	TH_LOG("the server closed with 0x%x", cc.errcode);
	close(a.done[0]);
	close(a.done[1]);
}

/* Stream data and datagrams before the handshake completes fail
 * cleanly: EPIPE on a socket with no connection, EINVAL while the
 * handshake runs (the peer's max_datagram_frame_size is not known yet).
 */
TEST_F(hs, stream_before_handshake)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char b = 'x';

	EXPECT_EQ(-1, quic_sendmsg(self->cfd, &b, 1, -1,
				   MSG_QUIC_STREAM_NEW | MSG_NOSIGNAL));
	EXPECT_EQ(EPIPE, errno);
	len = make_addr(&ss, variant->family, loopback(variant->family), 4433);
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&ss, len));
	EXPECT_EQ(-1, quic_sendmsg(self->cfd, &b, 1, -1, MSG_QUIC_STREAM_NEW));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, quic_sendmsg(self->cfd, &b, 1, -1, MSG_QUIC_DATAGRAM));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
