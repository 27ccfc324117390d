// SPDX-License-Identifier: GPL-2.0
/*
 * Address validation (RFC 9000 8.1), each test in a network namespace of
 * its own (fresh counters and net.quic.retry_threshold): libquic
 * handshakes through a Retry asked for by the listener or by a threshold
 * of 0; a client played from a UDP socket (GnuTLS protects its Initials)
 * that checks the Retry and takes its token back as it came, altered,
 * from another port, to another DCID or expired; our client ignoring a
 * Retry with a bad tag; a server whose big certificate stops at three
 * times the one datagram a relay gave it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <gnutls/x509.h>
#include <netinet/quic.h>

#include "kselftest_harness.h"
#include "quic_common.h"
#include "quic_conn_common.h"
#include "quic_initial.h"
#include "test_cert.h"

#define PSK_FILE	"/tmp/quic_retry_test.psk"
#define KEY_FILE	"/tmp/quic_retry_test.key"
#define CERT_FILE	"/tmp/quic_retry_test.crt"
#define SNMP		"/proc/net/quic/snmp"
#define THRESHOLD	"/proc/sys/net/quic/retry_threshold"
#define CID_LEN		8	/* the length of the CIDs quic.ko issues */
/* quic.ko's Retry token: kind and key slot, time, ODCID, MAC. */
#define TOKEN_LEN	(1 + 4 + 1 + CID_LEN + 8 + 16)
#define TOKEN_LIFE	30	/* seconds (net/quic/token.h) */
#define XFER_LEN	8192
/* Seconds a handshake may take before the test calls it stuck: room for
 * a few PTO backoffs (1, 2, 4 s...) under TCG on a loaded host, where 5
 * timed out now and then; a handshake that works takes well under one.
 */
#define HS_WAIT		30
#define BIG_CERT	7500	/* DER bytes: more than six datagrams */
#define SAN_NAMES	240

static long snmp(const char *name)
{
	return proc_value(SNMP, name, 1);
}

/* Read net.quic.retry_threshold into *@get, or write @set. 0 or -1. */
static int threshold(int *get, int set)
{
	FILE *f = fopen(THRESHOLD, get ? "r" : "w");
	int ret;

	if (!f)
		return -1;
	ret = get ? fscanf(f, "%d", get) == 1 : fprintf(f, "%d\n", set) > 0;
	return fclose(f) || !ret ? -1 : 0;
}

/* RFC 9001 5.8: the key and nonce of QUIC v1 Retry integrity tags. */
static const uint8_t retry_key[16] = {
	0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a,
	0x1d, 0x76, 0x6b, 0x54, 0xe3, 0x68, 0xc8, 0x4e,
};

static const uint8_t retry_nonce[12] = {
	0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63, 0x2b, 0xf2,
	0x23, 0x98, 0x25, 0xbb,
};

/*
 * The integrity tag of the Retry @pkt (@len bytes before its tag) for a
 * client whose first DCID was @odcid: the AES-128-GCM tag of an empty
 * plaintext with the pseudo-packet (ODCID length, ODCID, Retry) as
 * associated data. 0 or -1.
 */
static int retry_tag(uint8_t *tag, const uint8_t *odcid, uint8_t odcid_len,
		     const uint8_t *pkt, size_t len)
{
	gnutls_datum_t key = { (unsigned char *)retry_key, sizeof(retry_key) };
	uint8_t ad[1 + QI_CID_MAX + 1500], none = 0;
	gnutls_aead_cipher_hd_t h;
	size_t tlen = QI_TAG_LEN;
	int ret;

	if (odcid_len > QI_CID_MAX || len > 1500)
		return -1;
	ad[0] = odcid_len;
	memcpy(ad + 1, odcid, odcid_len);
	memcpy(ad + 1 + odcid_len, pkt, len);
	if (gnutls_aead_cipher_init(&h, GNUTLS_CIPHER_AES_128_GCM, &key))
		return -1;
	ret = gnutls_aead_cipher_encrypt(h, retry_nonce, sizeof(retry_nonce),
					 ad, 1 + odcid_len + len, QI_TAG_LEN,
					 &none, 0, tag, &tlen);
	gnutls_aead_cipher_deinit(h);
	return ret || tlen != QI_TAG_LEN ? -1 : 0;
}

/* Write a v1 long header's first byte, version and two CIDs; its end. */
static size_t long_header(uint8_t *b, uint8_t first, const uint8_t *dcid,
			  const uint8_t *scid)
{
	b[0] = first;
	memcpy(b + 1, "\0\0\0\1", 4);
	b[5] = CID_LEN;
	memcpy(b + 6, dcid, CID_LEN);
	b[6 + CID_LEN] = CID_LEN;
	memcpy(b + 7 + CID_LEN, scid, CID_LEN);
	return 7 + 2 * CID_LEN;
}

/* A Retry to the client with SCID @dcid and first DCID @odcid, from
 * @scid, with @token, its tag's first byte XORed with @flip: its
 * length, or 0.
 */
static size_t retry_build(uint8_t *b, const uint8_t *dcid,
			  const uint8_t *odcid, const uint8_t *scid,
			  const uint8_t *token, size_t tlen, uint8_t flip)
{
	size_t p = long_header(b, 0xf5, dcid, scid);

	memcpy(b + p, token, tlen);
	p += tlen;
	if (retry_tag(b + p, odcid, CID_LEN, b, p))
		return 0;
	b[p] ^= flip;
	return p + QI_TAG_LEN;
}

struct retry {
	uint8_t scid[QI_CID_MAX];
	uint8_t scid_len;
	uint8_t token[256];
	size_t token_len;
};

/*
 * Check that the datagram @b is a v1 Retry for the client with SCID
 * @cscid whose first DCID was @odcid, its integrity tag included, and
 * take its SCID and token. Return: NULL, or what is wrong.
 */
static const char *retry_parse(const uint8_t *b, size_t n,
			       const uint8_t *cscid, const uint8_t *odcid,
			       struct retry *r)
{
	uint8_t tag[QI_TAG_LEN];
	size_t p = 6 + CID_LEN;

	if (n < p + 1 + QI_TAG_LEN)
		return "too short";
	if ((b[0] & 0xf0) != 0xf0)
		return "not a long header of type Retry";
	if (memcmp(b + 1, "\0\0\0\1", 4))
		return "not version 1";
	if (b[5] != CID_LEN || memcmp(b + 6, cscid, CID_LEN))
		return "its DCID is not our SCID";
	if (b[p] > QI_CID_MAX || p + 1 + b[p] + QI_TAG_LEN >= n)
		return "bad SCID, or no token";
	r->scid_len = b[p];
	memcpy(r->scid, b + p + 1, r->scid_len);
	p += 1 + r->scid_len;
	r->token_len = n - p - QI_TAG_LEN;
	if (r->token_len > sizeof(r->token))
		return "token too long";
	memcpy(r->token, b + p, r->token_len);
	if (retry_tag(tag, odcid, CID_LEN, b, n - QI_TAG_LEN))
		return "GnuTLS failed";
	if (memcmp(tag, b + n - QI_TAG_LEN, QI_TAG_LEN))
		return "wrong integrity tag";
	return NULL;
}

/* CRYPTO at offset 0: a handshake message header, type ClientHello. */
static const uint8_t crypto_start[] = { 0x06, 0x00, 0x04, 0x01, 0x00, 0x01,
					0x00 };

/*
 * A client Initial of @room bytes to @dcid from @scid with @token (up to
 * 63 bytes): packet number 0, a CRYPTO frame, PADDING, then a PING,
 * protected with the Initial keys of @dcid (RFC 9001 5). Return: @room,
 * or -1.
 */
static int initial_build(uint8_t *out, size_t room, const uint8_t *dcid,
			 const uint8_t *scid, const uint8_t *token,
			 size_t tlen)
{
	uint8_t nonce[QI_IV_LEN], mask[16], pt[1500];
	size_t p, pn_off, plen, ctlen, olen;
	gnutls_aead_cipher_hd_t h;
	gnutls_datum_t key;
	struct qi_keys k;
	int i, ret;

	if (room > sizeof(pt) || tlen > 63 ||
	    qi_derive(dcid, CID_LEN, "client in", &k))
		return -1;
	/* Initial with a 4-byte packet number; a one-byte token length. */
	p = long_header(out, 0xc3, dcid, scid);
	out[p++] = tlen;
	if (p + tlen + 2 + 4 + 1 + QI_TAG_LEN > room)
		return -1;
	memcpy(out + p, token, tlen);
	p += tlen;
	plen = room - p - 2;		/* a two-byte Length */
	if (plen > 0x3fff)
		return -1;
	out[p++] = 0x40 | (plen >> 8);
	out[p++] = plen & 0xff;
	pn_off = p;
	memset(out + p, 0, 4);
	p += 4;
	ctlen = plen - 4 - QI_TAG_LEN;
	memset(pt, 0, ctlen);
	/* The first bytes of a ClientHello, without which accept() hands
	 * out no socket, then PADDING and a PING.
	 */
	memcpy(pt, crypto_start, sizeof(crypto_start));
	pt[ctlen - 1] = 0x01;		/* PING */
	key.data = k.key;
	key.size = QI_KEY_LEN;
	if (gnutls_aead_cipher_init(&h, GNUTLS_CIPHER_AES_128_GCM, &key))
		return -1;
	qi_nonce(&k, 0, nonce);
	olen = room - p;
	ret = gnutls_aead_cipher_encrypt(h, nonce, QI_IV_LEN, out, p,
					 QI_TAG_LEN, pt, ctlen, out + p, &olen);
	gnutls_aead_cipher_deinit(h);
	if (ret || p + olen != room || qi_hp_mask(&k, out + pn_off + 4, mask))
		return -1;
	out[0] ^= mask[0] & 0x0f;
	for (i = 0; i < 4; i++)
		out[pn_off + i] ^= mask[1 + i];
	return room;
}

/* The clear header of a v1 client Initial with CID_LEN-byte CIDs. */
struct initial_hdr {
	const uint8_t *dcid, *scid, *token;
	uint64_t token_len;
};

static int initial_parse(const uint8_t *b, size_t n, struct initial_hdr *h)
{
	const uint8_t *p = b + 7 + 2 * CID_LEN, *end = b + n;

	if (n < 8 + 2 * CID_LEN || (b[0] & 0xf0) != 0xc0 ||
	    memcmp(b + 1, "\0\0\0\1", 4) || b[5] != CID_LEN ||
	    b[6 + CID_LEN] != CID_LEN)
		return -1;
	h->dcid = b + 6;
	h->scid = b + 7 + CID_LEN;
	if (qi_varint(&p, end, &h->token_len) ||
	    (uint64_t)(end - p) < h->token_len)
		return -1;
	h->token = p;
	return 0;
}

/* A datagram on @fd within @ms: its length, 0 on timeout, -1 on error. */
static ssize_t recv_within(int fd, void *b, size_t n, int ms,
			   struct sockaddr_storage *from, socklen_t *flen)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r = poll(&pfd, 1, ms);

	return r <= 0 ? r : recvfrom(fd, b, n, MSG_DONTWAIT,
				     (struct sockaddr *)from, flen);
}

/* One side of a libquic handshake, run in a thread. */
struct hs {
	pthread_t th;
	bool running;
	bool server;
	int fd;
	const char *key;	/* a PSK file, the server's key, or NULL */
	const char *cert;	/* the server's certificate, or NULL */
	int ret;
};

static void *hs_main(void *p)
{
	struct hs *h = p;

	if (h->server)
		h->ret = quic_server_handshake(h->fd, h->key, h->cert, NULL);
	else
		h->ret = quic_client_handshake(h->fd, h->key, NULL, NULL);
	return NULL;
}

static int hs_start(struct hs *h, int fd, bool server, const char *key,
		    const char *cert)
{
	*h = (struct hs){ .fd = fd, .server = server, .key = key,
			  .cert = cert, .ret = -EINPROGRESS };
	if (pthread_create(&h->th, NULL, hs_main, h))
		return -1;
	h->running = true;
	return 0;
}

/* Wait up to @secs for a handshake, else end it (shutdown() fails
 * libquic's wait within its poll interval): its result, or -ETIMEDOUT.
 */
static int hs_end(struct hs *h, int secs)
{
	struct timespec ts;

	if (!h->running)
		return h->ret;
	h->running = false;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += secs;
	if (secs && !pthread_timedjoin_np(h->th, NULL, &ts))
		return h->ret;
	shutdown(h->fd, SHUT_RDWR);
	pthread_join(h->th, NULL);
	return secs ? -ETIMEDOUT : h->ret;
}

FIXTURE(retry) {
	int family;
	int lfd, cfd, sfd;	/* listener, client, accepted socket */
	int u, u2;		/* plain UDP sockets */
	struct hs client, server;
	struct sockaddr_storage laddr;
	socklen_t llen;
	int threshold;		/* net.quic.retry_threshold before the test */
	bool restore;
	uint8_t dcid[CID_LEN];	/* our first DCID, as a raw client */
	uint8_t scid[CID_LEN];	/* our SCID */
	struct retry r;		/* the Retry we got */
};

/* The fixture's data, as helpers take it. */
#define CTX FIXTURE_DATA(retry)

FIXTURE_VARIANT(retry) {
	int family;
};

#define QUIC_FIXTURE		retry
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

/* A plain UDP socket on loopback, or -1. */
static int udp_socket(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(&ss, family, loopback(family), 0);
	int fd = socket(family, SOCK_DGRAM, 0);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&ss, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

FIXTURE_SETUP(retry)
{
	int fd;

	self->family = variant->family;
	self->lfd = -1;
	self->cfd = -1;
	self->sfd = -1;
	self->u2 = -1;
	srandom(getpid() ^ time(NULL));
	ASSERT_EQ(0, own_netns()) {
		TH_LOG("network namespace: %s", strerror(errno));
	}
	/* quic.ko is loaded: the namespace has its sysctl and counters. */
	fd = socket(self->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, threshold(&self->threshold, 0)) {
		TH_LOG("%s: %s", THRESHOLD, strerror(errno));
	}
	self->restore = true;
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	self->u = udp_socket(self->family);
	ASSERT_LE(0, self->u);
}

FIXTURE_TEARDOWN(retry)
{
	int fds[] = { self->cfd, self->sfd, self->lfd, self->u, self->u2 };
	size_t i;

	hs_end(&self->client, 0);
	hs_end(&self->server, 0);
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (self->restore)
		threshold(NULL, self->threshold);
	unlink(PSK_FILE);
	unlink(KEY_FILE);
	unlink(CERT_FILE);
}

/* A listener on loopback, asking for address validation if @validate. */
static int listener(CTX *c, bool validate)
{
	struct quic_config cfg;
	socklen_t len = sizeof(cfg);

	c->lfd = socket(c->family, SOCK_DGRAM, IPPROTO_QUIC);
	if (c->lfd < 0)
		return -1;
	if (validate) {
		if (getsockopt(c->lfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
			       &len))
			return -1;
		cfg.validate_peer_address = 1;
		if (setsockopt(c->lfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
			       len))
			return -1;
	}
	c->llen = make_addr(&c->laddr, c->family, loopback(c->family), 0);
	if (bind(c->lfd, (struct sockaddr *)&c->laddr, c->llen) ||
	    getsockname(c->lfd, (struct sockaddr *)&c->laddr, &c->llen) ||
	    listen(c->lfd, 4))
		return -1;
	return 0;
}

/* Wait for the listener's next request and accept it into c->sfd. */
static void accept_one(struct __test_metadata *_metadata, CTX *c)
{
	struct pollfd pfd = { .fd = c->lfd, .events = POLLIN };

	ASSERT_EQ(1, poll(&pfd, 1, 5000)) {
		TH_LOG("no connection request");
	}
	c->sfd = accept_nb(c->lfd);
	ASSERT_LE(0, c->sfd) {
		TH_LOG("accept: %s", strerror(errno));
	}
}

/* A kernel client connected to @to, its handshake started in a thread. */
static void client_start(struct __test_metadata *_metadata, CTX *c,
			 const struct sockaddr_storage *to, socklen_t len,
			 const char *psk)
{
	c->cfd = socket(c->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, c->cfd);
	ASSERT_EQ(0, connect(c->cfd, (const struct sockaddr *)to, len));
	ASSERT_EQ(0, hs_start(&c->client, c->cfd, false, psk, NULL));
}

/* The client's handshake is under way: accept its connection, run the
 * server's side, and both must succeed.
 */
static void pair_finish(struct __test_metadata *_metadata, CTX *c)
{
	int rc, rs;

	accept_one(_metadata, c);
	ASSERT_EQ(0, hs_start(&c->server, c->sfd, true, PSK_FILE, NULL));
	rc = hs_end(&c->client, HS_WAIT);
	rs = hs_end(&c->server, HS_WAIT);
	ASSERT_EQ(0, rc) {
		TH_LOG("client: %s", strerror(-rc));
	}
	ASSERT_EQ(0, rs) {
		TH_LOG("server: %s", strerror(-rs));
	}
}

/* A PSK handshake of a new client with the listener, both in threads. */
static void pair_up(struct __test_metadata *_metadata, CTX *c)
{
	client_start(_metadata, c, &c->laddr, c->llen, PSK_FILE);
	pair_finish(_metadata, c);
}

/* XFER_LEN bytes with FIN from the client, read by the server. */
static void transfer(struct __test_metadata *_metadata, CTX *c)
{
	static unsigned char out[XFER_LEN], in[2 * XFER_LEN];
	struct timeval tv = { .tv_sec = 5 };
	uint32_t flags;
	size_t i, n = 0;
	int64_t sid;
	ssize_t r;

	for (i = 0; i < XFER_LEN; i++)
		out[i] = i * 7 + (i >> 9);
	r = quic_sendmsg(c->cfd, out, XFER_LEN, -1,
			 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN);
	ASSERT_EQ(XFER_LEN, r) {
		TH_LOG("sendmsg: %s", strerror(errno));
	}
	ASSERT_EQ(0, setsockopt(c->sfd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				sizeof(tv)));
	do {
		flags = 0;
		r = quic_recvmsg(c->sfd, in + n, sizeof(in) - n, &sid, &flags);
		ASSERT_LE(0, r) {
			TH_LOG("recvmsg after %zu bytes: %s", n, strerror(errno));
		}
		n += r;
		ASSERT_TRUE(r || (flags & MSG_QUIC_STREAM_FIN));
		ASSERT_GE(XFER_LEN, n);
	} while (!(flags & MSG_QUIC_STREAM_FIN));
	EXPECT_EQ(XFER_LEN, n);
	EXPECT_EQ(0, memcmp(in, out, XFER_LEN));
}

/* Our check of the integrity tag, against RFC 9001 Appendix A.4. */
TEST(retry_integrity_tag)
{
	static const uint8_t odcid[] = {
		0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };
	static const uint8_t pkt[] = {
		0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0xf0, 0x67, 0xa5,
		0x50, 0x2a, 0x42, 0x62, 0xb5, 0x74, 0x6f, 0x6b, 0x65, 0x6e,
		0x04, 0xa2, 0x65, 0xba, 0x2e, 0xff, 0x4d, 0x82, 0x90, 0x58,
		0xfb, 0x3f, 0x0f, 0x24, 0x96, 0xba };
	uint8_t tag[QI_TAG_LEN];

	ASSERT_EQ(0, retry_tag(tag, odcid, sizeof(odcid), pkt,
			       sizeof(pkt) - QI_TAG_LEN));
	EXPECT_EQ(0, memcmp(tag, pkt + sizeof(pkt) - QI_TAG_LEN, QI_TAG_LEN));
}

/* A listener that validates addresses: the client follows its Retry, the
 * handshake completes (our client checks the server's record of the
 * Retry in its transport parameters) and data flows.
 */
TEST_F(retry, on_demand)
{
	ASSERT_EQ(0, listener(self, true)) {
		TH_LOG("listener: %s", strerror(errno));
	}
	pair_up(_metadata, self);
	transfer(_metadata, self);
	EXPECT_EQ(1, snmp("QuicOutRetry"));
	EXPECT_EQ(0, snmp("QuicInTokenInvalid"));
}

/* net.quic.retry_threshold 0 sends every new client a Retry; -1 none. */
TEST_F(retry, automatic)
{
	ASSERT_EQ(0, threshold(NULL, 0));
	ASSERT_EQ(0, listener(self, false)) {
		TH_LOG("listener: %s", strerror(errno));
	}
	pair_up(_metadata, self);
	EXPECT_EQ(1, snmp("QuicOutRetry"));
	close(self->cfd);
	close(self->sfd);
	self->cfd = -1;
	self->sfd = -1;

	ASSERT_EQ(0, threshold(NULL, -1));
	pair_up(_metadata, self);
	EXPECT_EQ(1, snmp("QuicOutRetry"));
}

/* The client's stored token (QUIC_SOCKOPT_TOKEN) once it is @len bytes
 * long and differs from @old (if given), waiting up to 5 s; its length,
 * or -1.
 */
static int wait_token(int fd, uint8_t *tok, socklen_t len, const uint8_t *old)
{
	uint8_t buf[128];
	socklen_t n;
	int i;

	for (i = 0; i < 250; i++) {
		n = sizeof(buf);
		if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, buf, &n))
			return -1;
		if (n == len && (!old || memcmp(buf, old, len))) {
			memcpy(tok, buf, len);
			return n;
		}
		usleep(20000);
	}
	return -1;
}

/* A handshake of a new client that presents @tok (bound to @from if
 * given), with the listener.
 */
static void pair_with_token(struct __test_metadata *_metadata, CTX *c,
			    const uint8_t *tok, socklen_t len,
			    const char *from)
{
	struct sockaddr_storage ss;
	socklen_t slen;

	c->cfd = socket(c->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, c->cfd);
	if (from) {
		slen = make_addr(&ss, c->family, from, 0);
		ASSERT_EQ(0, bind(c->cfd, (struct sockaddr *)&ss, slen));
	}
	ASSERT_EQ(0, connect(c->cfd, (struct sockaddr *)&c->laddr, c->llen));
	ASSERT_EQ(0, setsockopt(c->cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, tok,
				len));
	ASSERT_EQ(0, hs_start(&c->client, c->cfd, false, PSK_FILE, NULL));
	pair_finish(_metadata, c);
}

#define NEW_TOKEN_LEN	(1 + 4 + 8 + 8 + 16)

/* The server's NEW_TOKEN at the end of the handshake replaces the spent
 * Retry token on the client; setsockopt(TOKEN) on the server sends a
 * fresh one (EAGAIN while the last is not acknowledged); the client's
 * next connection presents it and skips the Retry. From another address
 * it is refused and the client gets a Retry instead.
 */
TEST_F(retry, new_token)
{
	uint8_t tok[NEW_TOKEN_LEN], tok2[NEW_TOKEN_LEN];
	int i, err = EAGAIN;

	ASSERT_EQ(0, listener(self, true)) {
		TH_LOG("listener: %s", strerror(errno));
	}
	/* A listener sends no NEW_TOKEN (quic-api.rst 5.10). */
	EXPECT_EQ(-1, setsockopt(self->lfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, NULL,
				 0));
	EXPECT_EQ(EINVAL, errno);
	pair_up(_metadata, self);
	EXPECT_EQ(1, snmp("QuicOutRetry"));
	ASSERT_EQ(NEW_TOKEN_LEN, wait_token(self->cfd, tok, sizeof(tok), NULL));
	EXPECT_EQ(2 << 1, tok[0] & ~1);

	for (i = 0; i < 250 && err == EAGAIN; i++) {
		err = setsockopt(self->sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, NULL,
				 0) ? errno : 0;
		if (err == EAGAIN)
			usleep(20000);
	}
	ASSERT_EQ(0, err) {
		TH_LOG("server TOKEN set: %s", strerror(err));
	}
	ASSERT_EQ(NEW_TOKEN_LEN, wait_token(self->cfd, tok2, sizeof(tok2),
					    tok));
	close(self->cfd);
	close(self->sfd);
	self->cfd = -1;
	self->sfd = -1;

	pair_with_token(_metadata, self, tok2, sizeof(tok2), NULL);
	EXPECT_EQ(1, snmp("QuicOutRetry"));
	EXPECT_EQ(0, snmp("QuicInTokenInvalid"));
	if (self->family != AF_INET)
		return;
	close(self->cfd);
	close(self->sfd);
	self->cfd = -1;
	self->sfd = -1;
	pair_with_token(_metadata, self, tok2, sizeof(tok2), "127.0.0.2");
	EXPECT_EQ(2, snmp("QuicOutRetry"));
	EXPECT_EQ(1, snmp("QuicInTokenInvalid"));
}

/* Our Initial from @fd to the listener, to @dcid, with @token. */
static int send_initial(CTX *c, int fd, const uint8_t *dcid,
			const uint8_t *token, size_t tlen)
{
	uint8_t pkt[1200];

	if (initial_build(pkt, sizeof(pkt), dcid, c->scid, token,
			  tlen) != sizeof(pkt))
		return -1;
	return sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&c->laddr,
		      c->llen) == sizeof(pkt) ? 0 : -1;
}

/* A listener that validates addresses answers our first Initial with a
 * Retry, checked and kept in c->r, and makes no request of it.
 */
static void get_retry(struct __test_metadata *_metadata, CTX *c)
{
	const char *err;
	uint8_t b[1500];
	ssize_t n;

	ASSERT_EQ(0, listener(c, true)) {
		TH_LOG("listener: %s", strerror(errno));
	}
	fill_random(c->dcid, CID_LEN);
	fill_random(c->scid, CID_LEN);
	ASSERT_EQ(0, send_initial(c, c->u, c->dcid, NULL, 0));
	n = recv_within(c->u, b, sizeof(b), 5000, NULL, NULL);
	ASSERT_LT(0, n) {
		TH_LOG("no Retry");
	}
	err = retry_parse(b, n, c->scid, c->dcid, &c->r);
	ASSERT_NULL(err) {
		TH_LOG("Retry: %s", err);
	}
	EXPECT_EQ(CID_LEN, c->r.scid_len);
	/* Kind 1 with its key slot, time, our DCID in the clear, MAC. */
	ASSERT_EQ(TOKEN_LEN, c->r.token_len);
	EXPECT_EQ(2, c->r.token[0] & ~1);
	EXPECT_EQ(CID_LEN, c->r.token[5]);
	EXPECT_EQ(0, memcmp(c->r.token + 6, c->dcid, CID_LEN));
	EXPECT_EQ(1, snmp("QuicOutRetry"));
	EXPECT_EQ(-1, accept_nb(c->lfd));
	EXPECT_EQ(EAGAIN, errno);
}

/* Our Initial to the Retry's SCID with its token: a request, and once it
 * is accepted, a server Initial under the keys of that SCID which
 * acknowledges our packet 0.
 */
static void expect_accepted(struct __test_metadata *_metadata, CTX *c)
{
	long retries = snmp("QuicOutRetry");
	const uint8_t *payload;
	uint8_t b[1500];
	size_t plen;
	ssize_t n;

	ASSERT_EQ(0, send_initial(c, c->u, c->r.scid, c->r.token,
				  c->r.token_len));
	accept_one(_metadata, c);
	n = recv_within(c->u, b, sizeof(b), 5000, NULL, NULL);
	ASSERT_LT(6 + CID_LEN, n) {
		TH_LOG("no answer to the token");
	}
	ASSERT_EQ(CID_LEN, b[5]);
	EXPECT_EQ(0, memcmp(b + 6, c->scid, CID_LEN));
	ASSERT_EQ(0, qi_open(b, n, c->r.scid, c->r.scid_len, &payload,
			     &plen)) {
		TH_LOG("not a server Initial under the Retry SCID's keys");
	}
	ASSERT_LE(2, plen);
	EXPECT_EQ(0x02, payload[0]);	/* ACK of packet 0 */
	EXPECT_EQ(0, payload[1]);
	EXPECT_EQ(retries, snmp("QuicOutRetry"));
}

/* Our Initial from @fd to @dcid with @token is refused and counted: the
 * answer is a server Initial, under the keys of @dcid, that closes with
 * INVALID_TOKEN (RFC 9000 8.1.2), and no request is made.
 */
static void expect_refused(struct __test_metadata *_metadata, CTX *c,
			   int fd, const uint8_t *dcid, const uint8_t *token)
{
	long invalid = snmp("QuicInTokenInvalid");
	const uint8_t *payload;
	uint8_t b[1500];
	size_t plen;
	ssize_t n;

	ASSERT_EQ(0, send_initial(c, fd, dcid, token, c->r.token_len));
	n = recv_within(fd, b, sizeof(b), 5000, NULL, NULL);
	ASSERT_LT(6 + CID_LEN, n) {
		TH_LOG("no CONNECTION_CLOSE");
	}
	ASSERT_EQ(CID_LEN, b[5]);
	EXPECT_EQ(0, memcmp(b + 6, c->scid, CID_LEN));
	ASSERT_EQ(0, qi_open(b, n, dcid, CID_LEN, &payload, &plen)) {
		TH_LOG("not a server Initial under our DCID's keys");
	}
	EXPECT_EQ(0x0b, qi_close_code(payload, plen));	/* INVALID_TOKEN */
	EXPECT_EQ(invalid + 1, snmp("QuicInTokenInvalid"));
	EXPECT_EQ(1, snmp("QuicOutRetry"));
	EXPECT_EQ(-1, accept_nb(c->lfd));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(retry, token_ok)
{
	get_retry(_metadata, self);
	expect_accepted(_metadata, self);
	EXPECT_EQ(0, snmp("QuicInTokenInvalid"));
}

/* Without touching net.quic.retry_threshold (256 in a new namespace), a
 * listener with a backlog of 4 is under load once two connections on its
 * port are half-open, as an application with few handshake slots is
 * under a flood: here one accepted connection in its handshake and one
 * request waiting for accept(). A new client then gets a Retry; so does
 * a real client once the request is accepted, and it follows the Retry
 * and is served.
 */
TEST_F(retry, small_backlog)
{
	struct pollfd pfd = { .fd = self->lfd, .events = POLLIN };
	uint8_t dcid[CID_LEN], b[1500];
	const char *err;
	int child, pending;
	struct retry r;
	ssize_t n;

	ASSERT_EQ(256, self->threshold);
	ASSERT_EQ(0, listener(self, false)) {
		TH_LOG("listener: %s", strerror(errno));
	}
	pfd.fd = self->lfd;
	fill_random(self->scid, CID_LEN);
	fill_random(dcid, CID_LEN);
	ASSERT_EQ(0, send_initial(self, self->u, dcid, NULL, 0));
	accept_one(_metadata, self);
	child = self->sfd;
	self->sfd = -1;
	fill_random(dcid, CID_LEN);
	ASSERT_EQ(0, send_initial(self, self->u, dcid, NULL, 0));
	ASSERT_EQ(1, poll(&pfd, 1, 5000));	/* a request, no Retry */
	EXPECT_EQ(0, snmp("QuicOutRetry"));

	self->u2 = udp_socket(self->family);
	ASSERT_LE(0, self->u2);
	fill_random(dcid, CID_LEN);
	ASSERT_EQ(0, send_initial(self, self->u2, dcid, NULL, 0));
	n = recv_within(self->u2, b, sizeof(b), 5000, NULL, NULL);
	ASSERT_LT(0, n) {
		TH_LOG("no Retry");
	}
	err = retry_parse(b, n, self->scid, dcid, &r);
	EXPECT_NULL(err) {
		TH_LOG("Retry: %s", err);
	}
	EXPECT_EQ(1, snmp("QuicOutRetry"));

	/* The waiting request accepted, two connections are still in
	 * their handshake: a real client gets a Retry too, follows it and
	 * is served.
	 */
	accept_one(_metadata, self);
	pending = self->sfd;
	self->sfd = -1;
	pair_up(_metadata, self);
	EXPECT_EQ(2, snmp("QuicOutRetry"));
	close(pending);
	close(child);
}

/* Initials that start no connection make no request, so they never fill
 * the queue; but past 16 of them in a second (at a backlog of 4) the
 * listener counts as under load: the next client gets a Retry before
 * its Initial is opened.
 */
TEST_F(retry, dead_initials_load)
{
	static const uint8_t ping[] = { 0x01 };
	uint8_t dcid[CID_LEN], pkt[1200], b[1500];
	const char *err;
	struct retry r;
	ssize_t n;
	int i;

	ASSERT_EQ(0, listener(self, false)) {
		TH_LOG("listener: %s", strerror(errno));
	}
	fill_random(self->scid, CID_LEN);
	for (i = 0; i < 16; i++) {
		fill_random(dcid, CID_LEN);
		ASSERT_EQ(1200, qi_build(pkt, sizeof(pkt), dcid, CID_LEN,
					 self->scid, CID_LEN, ping,
					 sizeof(ping)));
		ASSERT_EQ(1200, sendto(self->u, pkt, sizeof(pkt), 0,
				       (struct sockaddr *)&self->laddr,
				       self->llen));
	}
	EXPECT_EQ(-1, accept_nb(self->lfd));
	EXPECT_EQ(0, snmp("QuicOutRetry"));
	fill_random(dcid, CID_LEN);
	ASSERT_EQ(0, send_initial(self, self->u, dcid, NULL, 0));
	n = recv_within(self->u, b, sizeof(b), 5000, NULL, NULL);
	ASSERT_LT(0, n) {
		TH_LOG("no Retry");
	}
	err = retry_parse(b, n, self->scid, dcid, &r);
	EXPECT_NULL(err) {
		TH_LOG("Retry: %s", err);
	}
	EXPECT_EQ(1, snmp("QuicOutRetry"));
	EXPECT_LE(16, snmp("QuicInDropNoConnection"));
}

/* A byte of the MAC flipped: not one of our tokens, so as good as none
 * (RFC 9000 8.1.3): another Retry, no request, and not counted in
 * QuicInTokenInvalid (quic.rst). The token as it came still works after.
 */
TEST_F(retry, token_altered)
{
	uint8_t token[sizeof(self->r.token)], b[1500];
	long invalid = snmp("QuicInTokenInvalid");
	ssize_t n;

	get_retry(_metadata, self);
	memcpy(token, self->r.token, self->r.token_len);
	token[self->r.token_len - 5] ^= 0x20;
	ASSERT_EQ(0, send_initial(self, self->u, self->r.scid, token,
				  self->r.token_len));
	n = recv_within(self->u, b, sizeof(b), 5000, NULL, NULL);
	ASSERT_LT(0, n) {
		TH_LOG("no answer");
	}
	EXPECT_EQ(0xf0, b[0] & 0xf0) {
		TH_LOG("not a Retry: first byte %#x", b[0]);
	}
	EXPECT_EQ(2, snmp("QuicOutRetry"));
	EXPECT_EQ(invalid, snmp("QuicInTokenInvalid"));
	EXPECT_EQ(-1, accept_nb(self->lfd));
	EXPECT_EQ(EAGAIN, errno);
	expect_accepted(_metadata, self);
}

/* Tokens of another server (or junk) whose first byte happens to be that
 * of our Retry or NEW_TOKEN tokens, of their lengths and of others: each
 * counts as none, so each gets a Retry, makes no request and is not
 * counted in QuicInTokenInvalid. The Retry's token still works after.
 */
TEST_F(retry, token_foreign)
{
	static const struct {
		uint8_t first;
		size_t len;
	} junk[] = {
		{ 0x02, TOKEN_LEN },		/* a Retry token's shape */
		{ 0x03, TOKEN_LEN + 3 },
		{ 0x04, NEW_TOKEN_LEN },	/* a NEW_TOKEN token's shape */
		{ 0x05, 7 },
	};
	uint8_t token[sizeof(self->r.token)], b[1500];
	long invalid;
	size_t i;
	ssize_t n;

	get_retry(_metadata, self);
	invalid = snmp("QuicInTokenInvalid");
	for (i = 0; i < ARRAY_SIZE(junk); i++) {
		fill_random(token, junk[i].len);
		token[0] = junk[i].first;
		if (junk[i].len == TOKEN_LEN)
			token[5] = CID_LEN;
		ASSERT_EQ(0, send_initial(self, self->u, self->r.scid, token,
					  junk[i].len));
		n = recv_within(self->u, b, sizeof(b), 5000, NULL, NULL);
		ASSERT_LT(0, n) {
			TH_LOG("token %zu: no answer", i);
		}
		EXPECT_EQ(0xf0, b[0] & 0xf0) {
			TH_LOG("token %zu: not a Retry: first byte %#x", i,
			       b[0]);
		}
		EXPECT_EQ(invalid, snmp("QuicInTokenInvalid")) {
			TH_LOG("token %zu counted as one of ours", i);
		}
	}
	EXPECT_EQ(1 + i, snmp("QuicOutRetry"));
	EXPECT_EQ(-1, accept_nb(self->lfd));
	EXPECT_EQ(EAGAIN, errno);
	expect_accepted(_metadata, self);
}

/* The token is bound to the port it was sent to. */
TEST_F(retry, token_other_port)
{
	get_retry(_metadata, self);
	self->u2 = udp_socket(self->family);
	ASSERT_LE(0, self->u2);
	expect_refused(_metadata, self, self->u2, self->r.scid, self->r.token);
	expect_accepted(_metadata, self);
}

/* The token is bound to the SCID of its Retry. */
TEST_F(retry, token_other_dcid)
{
	uint8_t dcid[CID_LEN];

	get_retry(_metadata, self);
	fill_random(dcid, sizeof(dcid));
	expect_refused(_metadata, self, self->u, dcid, self->r.token);
	expect_accepted(_metadata, self);
}

/* The token lives TOKEN_LIFE seconds, counted in whole seconds. */
TEST_F_TIMEOUT(retry, token_expired, TOKEN_LIFE + 30)
{
	get_retry(_metadata, self);
	sleep(TOKEN_LIFE + 1);
	expect_refused(_metadata, self, self->u, self->r.scid, self->r.token);
}

/* The next Initial of our client at c->u within 5 s, parsed into @h. */
static void next_initial(struct __test_metadata *_metadata, CTX *c,
			 uint8_t *b, struct initial_hdr *h,
			 struct sockaddr_storage *from, socklen_t *flen)
{
	ssize_t n = recv_within(c->u, b, 1500, 5000, from, flen);

	ASSERT_LT(0, n) {
		TH_LOG("no Initial from the client");
	}
	ASSERT_EQ(0, initial_parse(b, n, h)) {
		TH_LOG("not an Initial with %d-byte CIDs", CID_LEN);
	}
}

/* Our client, facing a fake server (a plain UDP socket): a Retry whose
 * tag is wrong is dropped, counted as a packet that did not decrypt, and
 * the client goes on as before; then a good one sends its next Initial to
 * the Retry's SCID with the Retry's token.
 */
TEST_F(retry, retry_bad_tag_ignored)
{
	uint8_t b[1500], pkt[256], odcid[CID_LEN], cscid[CID_LEN];
	uint8_t rscid[CID_LEN], token[24];
	struct sockaddr_storage fa, cs;
	socklen_t flen = sizeof(fa), clen = sizeof(cs);
	struct initial_hdr h;
	long decrypt;
	size_t len;
	int i;

	ASSERT_EQ(0, getsockname(self->u, (struct sockaddr *)&fa, &flen));
	client_start(_metadata, self, &fa, flen, PSK_FILE);
	next_initial(_metadata, self, b, &h, &cs, &clen);
	EXPECT_EQ(0, h.token_len);
	memcpy(odcid, h.dcid, CID_LEN);
	memcpy(cscid, h.scid, CID_LEN);
	fill_random(rscid, sizeof(rscid));
	fill_random(token, sizeof(token));

	decrypt = snmp("QuicInDropDecrypt");
	len = retry_build(pkt, cscid, odcid, rscid, token, sizeof(token), 1);
	ASSERT_NE(0, len);
	ASSERT_EQ(len, sendto(self->u, pkt, len, 0, (struct sockaddr *)&cs,
			      clen));
	/* Its next Initial, a PTO later, is as the first. */
	next_initial(_metadata, self, b, &h, NULL, NULL);
	EXPECT_EQ(0, memcmp(h.dcid, odcid, CID_LEN)) {
		TH_LOG("the client took the forged Retry's SCID");
	}
	EXPECT_EQ(0, h.token_len);
	EXPECT_EQ(decrypt + 1, snmp("QuicInDropDecrypt"));

	/* The probes of that PTO drained, the good Retry. */
	usleep(100000);
	while (recv(self->u, b, sizeof(b), MSG_DONTWAIT) > 0)
		;
	len = retry_build(pkt, cscid, odcid, rscid, token, sizeof(token), 0);
	ASSERT_NE(0, len);
	ASSERT_EQ(len, sendto(self->u, pkt, len, 0, (struct sockaddr *)&cs,
			      clen));
	/* A probe may have crossed the Retry: skip it. */
	for (i = 0; i < 4; i++) {
		next_initial(_metadata, self, b, &h, NULL, NULL);
		if (memcmp(h.dcid, odcid, CID_LEN))
			break;
	}
	EXPECT_EQ(0, memcmp(h.dcid, rscid, CID_LEN)) {
		TH_LOG("the client did not move to the Retry's SCID");
	}
	EXPECT_EQ(0, memcmp(h.scid, cscid, CID_LEN));
	ASSERT_EQ(sizeof(token), h.token_len);
	EXPECT_EQ(0, memcmp(h.token, token, sizeof(token)));
	EXPECT_EQ(decrypt + 1, snmp("QuicInDropDecrypt"));
}

/*
 * A self-signed ECDSA P-256 certificate with SAN_NAMES DNS names, so that
 * the server's first flight takes many datagrams, as PEM at @cert_path
 * and its key at @key_path. Return: its DER size, or -1.
 */
static int big_cert(const char *cert_path, const char *key_path)
{
	unsigned int bits = GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1);
	gnutls_datum_t der = { NULL, 0 }, pem = { NULL, 0 }, kpem = { NULL, 0 };
	unsigned char serial[4] = { 0x52, 0x65, 0x74, 0x72 };
	time_t now = time(NULL);
	gnutls_x509_privkey_t key;
	gnutls_x509_crt_t crt;
	int ret, i, len, size = -1;
	char name[64];

	if (gnutls_x509_privkey_init(&key))
		return -1;
	if (gnutls_x509_crt_init(&crt)) {
		gnutls_x509_privkey_deinit(key);
		return -1;
	}
	ret = gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, bits, 0);
	ret = ret ?: gnutls_x509_crt_set_version(crt, 3);
	ret = ret ?: gnutls_x509_crt_set_serial(crt, serial, sizeof(serial));
	ret = ret ?: gnutls_x509_crt_set_activation_time(crt, now - 3600);
	ret = ret ?: gnutls_x509_crt_set_expiration_time(crt, now + 86400);
	ret = ret ?: gnutls_x509_crt_set_dn_by_oid(crt,
			GNUTLS_OID_X520_COMMON_NAME, 0, "localhost", 9);
	for (i = 0; !ret && i < SAN_NAMES; i++) {
		len = snprintf(name, sizeof(name), "host-%03d.%s", i,
			       "amplification.retry.test");
		ret = gnutls_x509_crt_set_subject_alt_name(crt,
							   GNUTLS_SAN_DNSNAME,
							   name, len,
							   GNUTLS_FSAN_APPEND);
	}
	ret = ret ?: gnutls_x509_crt_set_key(crt, key);
	ret = ret ?: gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0);
	ret = ret ?: gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_DER, &der);
	ret = ret ?: gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &pem);
	ret = ret ?: gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM,
						 &kpem);
	if (!ret && !quic_test_write_file(cert_path, pem.data, pem.size) &&
	    !quic_test_write_file(key_path, kpem.data, kpem.size))
		size = der.size;
	gnutls_free(der.data);
	gnutls_free(pem.data);
	gnutls_free(kpem.data);
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_privkey_deinit(key);
	return size;
}

/*
 * The anti-amplification limit, seen through a relay: our client connects
 * to the plain UDP socket u, which hands its first flight (the
 * ClientHello) once to a listener and sends it nothing more. The server,
 * whose certificate alone needs more than six datagrams, starts its
 * flight, sends at most three times what it got, and counts the flushes
 * it held back.
 */
TEST_F(retry, amplification)
{
	struct sockaddr_storage ra, from;
	socklen_t rlen = sizeof(ra), flen;
	uint8_t fl[4][1500], b[1500];
	size_t lens[4], fwd = 0, got = 0;
	int i, nfl = 0, dgrams = 0, size;
	long blocked;
	ssize_t n;

	ASSERT_EQ(0, threshold(NULL, -1));
	size = big_cert(CERT_FILE, KEY_FILE);
	ASSERT_LT(BIG_CERT, size) {
		TH_LOG("certificate of %d bytes", size);
	}
	ASSERT_EQ(0, listener(self, false)) {
		TH_LOG("listener: %s", strerror(errno));
	}
	ASSERT_EQ(0, getsockname(self->u, (struct sockaddr *)&ra, &rlen));
	client_start(_metadata, self, &ra, rlen, NULL);
	/* The first flight: what comes before the client's first PTO. The
	 * wait is a bound, not a timing: a loaded debug kernel took more
	 * than 5 s to start the client.
	 */
	n = recv_within(self->u, fl[0], sizeof(fl[0]), 30000, NULL, NULL);
	ASSERT_LT(0, n) {
		TH_LOG("no Initial from the client");
	}
	lens[nfl++] = n;
	while (nfl < 4 && (n = recv_within(self->u, fl[nfl], sizeof(fl[nfl]),
					   200, NULL, NULL)) > 0)
		lens[nfl++] = n;
	blocked = snmp("QuicAmplificationBlocked");
	for (i = 0; i < nfl; i++) {
		ASSERT_EQ(lens[i], sendto(self->u, fl[i], lens[i], 0,
					  (struct sockaddr *)&self->laddr,
					  self->llen));
		fwd += lens[i];
	}
	accept_one(_metadata, self);
	ASSERT_EQ(0, hs_start(&self->server, self->sfd, true, KEY_FILE,
			      CERT_FILE));
	/* What the server sends, its PTOs included, until 3 s of silence
	 * (the client's own PTOs, left out, may stretch it).
	 */
	for (;;) {
		flen = sizeof(from);
		n = recv_within(self->u, b, sizeof(b), 3000, &from, &flen);
		ASSERT_LE(0, n);
		if (!n)
			break;
		if (addr_port(&from) == addr_port(&self->laddr)) {
			got += n;
			dgrams++;
		}
	}
	EXPECT_LT(fwd, got) {
		TH_LOG("the server's flight did not start: %zu bytes", got);
	}
	EXPECT_GE(3 * fwd, got) {
		TH_LOG("%zu bytes in %d datagrams for %zu received", got,
		       dgrams, fwd);
	}
	EXPECT_LT(blocked, snmp("QuicAmplificationBlocked"));
}

/* A QUIC listener on @ss (port 0: one is chosen and written back), with
 * SO_REUSEPORT if @reuse and the ALPN list @alpn if not NULL; the
 * socket, with listen()'s errno in *@err (0 if it listened).
 */
static int listener_on(struct sockaddr_storage *ss, socklen_t *len,
		       bool reuse, const char *alpn, int *err)
{
	int one = 1, fd = socket(ss->ss_family, SOCK_DGRAM, IPPROTO_QUIC);

	*err = -1;
	if (fd < 0)
		return -1;
	if ((reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one,
				 sizeof(one))) ||
	    (alpn && setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn,
				strlen(alpn))) ||
	    bind(fd, (struct sockaddr *)ss, *len) ||
	    getsockname(fd, (struct sockaddr *)ss, len)) {
		close(fd);
		return -1;
	}
	*err = listen(fd, 64) ? errno : 0;
	return fd;
}

/* quic-api.rst 5.1: a second listener on an address and port is
 * refused (EADDRINUSE) unless both have SO_REUSEPORT and the same ALPN
 * set, or their ALPN sets are disjoint (no ALPN is a set of its own:
 * ALPN demultiplexing, alpn.c); overlapping sets are refused.
 */
TEST_F(retry, listeners_share_port)
{
	static const struct {
		bool reuse_a, reuse_b;
		const char *alpn_a, *alpn_b;
		int err;
	} cases[] = {
		{ false, false, NULL, NULL, EADDRINUSE },
		{ true, false, NULL, NULL, EADDRINUSE },
		{ true, true, NULL, NULL, 0 },
		{ true, true, "h3,hq", "hq,h3", 0 },
		{ true, true, "h3,hq", "h3", EADDRINUSE },
		{ false, false, "h3", "smb", 0 },
		{ false, false, "h3", NULL, 0 },
		{ true, false, "h3,hq", "smb", 0 },
	};
	struct sockaddr_storage ss;
	socklen_t len;
	int a, b, ea, eb;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		len = make_addr(&ss, self->family, loopback(self->family), 0);
		a = listener_on(&ss, &len, cases[i].reuse_a, cases[i].alpn_a,
				&ea);
		ASSERT_LE(0, a);
		ASSERT_EQ(0, ea);
		b = listener_on(&ss, &len, cases[i].reuse_b, cases[i].alpn_b,
				&eb);
		ASSERT_LE(0, b);
		EXPECT_EQ(cases[i].err, eb) {
			TH_LOG("case %zu: %s", i, strerror(eb));
		}
		/* Once the first is gone, the second may listen. */
		close(a);
		if (eb)
			EXPECT_EQ(0, listen(b, 4));
		close(b);
	}
}

/* A SO_REUSEPORT group: each client's Initials reach one member, and
 * clients are spread over the members.
 */
TEST_F(retry, reuseport_group)
{
	enum { CLIENTS = 24 };
	int fd[2], err, u[CLIENTS], got[2] = { 0, 0 }, i, j, s;
	uint8_t dcid[CID_LEN];
	struct sockaddr_storage ss;
	socklen_t len;

	ASSERT_EQ(0, threshold(NULL, -1));	/* no Retry: requests */
	len = make_addr(&ss, self->family, loopback(self->family), 0);
	for (i = 0; i < 2; i++) {
		fd[i] = listener_on(&ss, &len, true, NULL, &err);
		ASSERT_LE(0, fd[i]);
		ASSERT_EQ(0, err);
	}
	memcpy(&self->laddr, &ss, len);
	self->llen = len;
	fill_random(self->scid, CID_LEN);
	for (i = 0; i < CLIENTS; i++) {
		u[i] = udp_socket(self->family);
		ASSERT_LE(0, u[i]);
		fill_random(dcid, CID_LEN);
		/* Twice: a retransmission goes where the first went. */
		ASSERT_EQ(0, send_initial(self, u[i], dcid, NULL, 0));
		ASSERT_EQ(0, send_initial(self, u[i], dcid, NULL, 0));
	}
	for (j = 0; j < 50 && got[0] + got[1] < CLIENTS; j++) {
		for (i = 0; i < 2; i++) {
			while ((s = accept_nb(fd[i])) >= 0) {
				got[i]++;
				close(s);
			}
		}
		usleep(20000);
	}
	EXPECT_EQ(CLIENTS, got[0] + got[1]);
	/* All on one member has odds of 2 in 2^24. */
	EXPECT_LT(0, got[0]);
	EXPECT_LT(0, got[1]);
	for (i = 0; i < CLIENTS; i++)
		close(u[i]);
	close(fd[0]);
	close(fd[1]);
}

TEST_HARNESS_MAIN
