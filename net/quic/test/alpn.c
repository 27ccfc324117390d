// SPDX-License-Identifier: GPL-2.0
/*
 * quic_test: the ClientHello ALPN parser (alpn.c), and opening and
 * checking a client Initial in softirq (initial.c), against packets
 * built and protected by crypto.c.
 */

#include <linux/bottom_half.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/quic.h>
#include "../alpn.h"
#include "../crypto.h"
#include "../frame.h"
#include "../initial.h"
#include "../packet.h"

#include "test.h"

#define HELLO_MAX	1024
#define SID_OFFSET	(4 + 2 + 32)	/* the legacy session ID length */

/* "h3" and "smb" in wire form */
static const u8 two[] = { 2, 'h', '3', 3, 's', 'm', 'b' };

/* A ClientHello with @nexts dummy extensions before an ALPN extension
 * holding @list (none when @list is NULL), then a key_share-like one.
 * Return: its length; *@alpn_end is where the ALPN extension ends.
 */
static u32 hello(u8 *b, const u8 *list, u32 list_len, u32 nexts,
		 u32 *alpn_end)
{
	u32 n = 4, ext_start, i;

	b[n++] = 3;
	b[n++] = 3;
	memset(b + n, 0xab, 32);
	n += 32;
	b[n++] = 0;				/* legacy_session_id */
	b[n++] = 0;
	b[n++] = 2;
	b[n++] = 0x13;
	b[n++] = 0x01;				/* TLS_AES_128_GCM_SHA256 */
	b[n++] = 1;
	b[n++] = 0;				/* null compression */
	n += 2;
	ext_start = n;
	for (i = 0; i < nexts; i++) {
		b[n++] = 0;
		b[n++] = 43;			/* supported_versions */
		b[n++] = 0;
		b[n++] = 3;
		b[n++] = 2;
		b[n++] = 3;
		b[n++] = 4;
	}
	if (list) {
		b[n++] = 0;
		b[n++] = 16;
		b[n++] = (list_len + 2) >> 8;
		b[n++] = list_len + 2;
		b[n++] = list_len >> 8;
		b[n++] = list_len;
		memcpy(b + n, list, list_len);
		n += list_len;
	}
	*alpn_end = n;
	b[n++] = 0;
	b[n++] = 51;				/* key_share */
	b[n++] = 0;
	b[n++] = 4;
	memset(b + n, 0, 4);
	n += 4;
	b[ext_start - 2] = (n - ext_start) >> 8;
	b[ext_start - 1] = n - ext_start;
	b[0] = 1;				/* client_hello */
	b[1] = 0;
	b[2] = (n - 4) >> 8;
	b[3] = n - 4;
	return n;
}

static int expect(struct quic_test *t, const char *what, const u8 *b,
		  u32 len, int want)
{
	const u8 *list = NULL;
	u32 list_len = 0;
	int ret;

	ret = quic_alpn_client_hello(b, len, &list, &list_len);
	if (ret != want)
		return quic_test_fail(t, "%s: %d, want %d", what, ret, want);
	if (ret == QUIC_ALPN_HELLO_LIST &&
	    (list < b || list + list_len > b + len))
		return quic_test_fail(t, "%s: list outside", what);
	return 0;
}

static int alpn_hello_list(struct quic_test *t)
{
	u8 *b = kzalloc(HELLO_MAX, GFP_KERNEL);
	const u8 *list;
	u32 n, end, len;
	int ret;

	if (!b)
		return -ENOMEM;
	n = hello(b, two, sizeof(two), 3, &end);
	ret = quic_alpn_client_hello(b, n, &list, &len);
	if (ret != QUIC_ALPN_HELLO_LIST || len != sizeof(two) ||
	    memcmp(list, two, len))
		ret = quic_test_fail(t, "ret %d len %u", ret, len);
	else
		ret = expect(t, "no alpn", b, hello(b, NULL, 0, 3, &end),
			     QUIC_ALPN_HELLO_NONE);
	kfree(b);
	return ret;
}

static int alpn_hello_malformed(struct quic_test *t)
{
	u8 *b = kzalloc(HELLO_MAX, GFP_KERNEL);
	u8 big[QUIC_ALPN_HELLO_MAX_LIST + 1];
	u32 n, end;
	int ret;

	if (!b)
		return -ENOMEM;
	n = hello(b, two, sizeof(two), 1, &end);
	b[0] = 2;			/* ServerHello */
	ret = expect(t, "type", b, n, -EBADMSG);
	if (ret)
		goto out;
	n = hello(b, two, sizeof(two), 1, &end);
	b[SID_OFFSET] = 1;		/* session ID of one byte */
	ret = expect(t, "session id", b, n, -EBADMSG);
	if (ret)
		goto out;
	n = hello(b, two, sizeof(two), 1, &end);
	b[3]--;				/* body one byte short */
	ret = expect(t, "body length", b, n, -EBADMSG);
	if (ret)
		goto out;
	n = hello(b, two, sizeof(two), 1, &end);
	b[SID_OFFSET + 2] = 0xff;	/* cipher suites past the body */
	ret = expect(t, "cipher suites length", b, n, -EBADMSG);
	if (ret)
		goto out;
	n = hello(b, two, sizeof(two), 1, &end);
	b[SID_OFFSET + 5] = 0;		/* no compression method */
	ret = expect(t, "compression length", b, n, -EBADMSG);
	if (ret)
		goto out;
	n = hello(b, two, sizeof(two), 1, &end);
	b[end - sizeof(two) - 3]++;	/* ALPN extension one byte longer */
	ret = expect(t, "extension length", b, n, -EBADMSG);
	if (ret)
		goto out;
	n = hello(b, two, sizeof(two), 1, &end);
	b[end - sizeof(two) - 1]--;	/* list shorter than the extension */
	ret = expect(t, "list length", b, n, -EBADMSG);
	if (ret)
		goto out;
	n = hello(b, two, sizeof(two), 1, &end);
	b[end - sizeof(two)] = 3;	/* "h3" said to be 3 bytes */
	ret = expect(t, "name length", b, n, -EBADMSG);
	if (ret)
		goto out;
	n = hello(b, "\0\2h3", 4, 1, &end);
	ret = expect(t, "empty name", b, n, -EBADMSG);
	if (ret)
		goto out;
	memset(big, 'x', sizeof(big));
	big[0] = 127;			/* 128 bytes: the most allowed */
	n = hello(b, big, QUIC_ALPN_HELLO_MAX_LIST, 1, &end);
	ret = expect(t, "128 bytes", b, n, QUIC_ALPN_HELLO_LIST);
	if (ret)
		goto out;
	big[0] = 128;
	n = hello(b, big, sizeof(big), 1, &end);
	ret = expect(t, "129 bytes", b, n, -EBADMSG);
	if (ret)
		goto out;
	n = hello(b, two, sizeof(two), QUIC_ALPN_HELLO_MAX_EXTS - 1, &end);
	ret = expect(t, "most extensions", b, n, QUIC_ALPN_HELLO_LIST);
	if (ret)
		goto out;
	n = hello(b, two, sizeof(two), QUIC_ALPN_HELLO_MAX_EXTS, &end);
	ret = expect(t, "too many extensions", b, n, -EBADMSG);
out:
	kfree(b);
	return ret;
}

/* A ClientHello cut anywhere before its ALPN extension ends tells
 * nothing; anywhere after, it gives the list.
 */
static int alpn_hello_truncated(struct quic_test *t)
{
	u8 *b = kzalloc(HELLO_MAX, GFP_KERNEL), *c;
	u32 n, end, i;
	int ret = 0;

	if (!b)
		return -ENOMEM;
	n = hello(b, two, sizeof(two), 2, &end);
	for (i = 0; i <= n && !ret; i++) {
		c = kmemdup(b, i ?: 1, GFP_KERNEL);	/* KASAN sees overruns */
		if (!c) {
			ret = -ENOMEM;
			break;
		}
		ret = expect(t, "cut", c, i, i < end ? QUIC_ALPN_HELLO_UNKNOWN :
			     QUIC_ALPN_HELLO_LIST);
		kfree(c);
	}
	if (!ret)
		ret = expect(t, "empty", b, 0, QUIC_ALPN_HELLO_UNKNOWN);
	kfree(b);
	return ret;
}

static int expect_frames(struct quic_test *t, const char *what, const u8 *f,
			 u32 len, int want)
{
	const u8 *list;
	u32 list_len;
	int ret;

	ret = quic_alpn_initial_frames(f, len, &list, &list_len);
	if (ret != want)
		return quic_test_fail(t, "%s: %d, want %d", what, ret, want);
	return 0;
}

/* quic_alpn_list_cmp(): the listener sharing rule of quic-api.rst 5.1,
 * with a cut list whose last name runs past its end.
 */
static int expect_cmp(struct quic_test *t)
{
	static const u8 h3[] = { 2, 'h', '3' };
	static const u8 h3smb[] = { 2, 'h', '3', 3, 's', 'm', 'b' };
	static const u8 smbh3[] = { 3, 's', 'm', 'b', 2, 'h', '3' };
	static const u8 smb[] = { 3, 's', 'm', 'b' };
	static const struct {
		const u8 *a;
		u32 alen;
		const u8 *b;
		u32 blen;
		int want;
	} v[] = {
		{ NULL, 0, NULL, 0, QUIC_ALPN_SAME },
		{ NULL, 0, h3, sizeof(h3), QUIC_ALPN_DISJOINT },
		{ h3, sizeof(h3), h3, sizeof(h3), QUIC_ALPN_SAME },
		{ h3smb, sizeof(h3smb), smbh3, sizeof(smbh3), QUIC_ALPN_SAME },
		{ h3, sizeof(h3), smb, sizeof(smb), QUIC_ALPN_DISJOINT },
		{ h3, sizeof(h3), h3smb, sizeof(h3smb), QUIC_ALPN_OVERLAP },
		{ h3smb, sizeof(h3smb) - 1, h3, sizeof(h3), QUIC_ALPN_SAME },
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (quic_alpn_list_cmp(v[i].a, v[i].alen, v[i].b, v[i].blen) !=
		    v[i].want)
			return quic_test_fail(t, "list_cmp %u", i);
	return 0;
}

static int alpn_initial_frames(struct quic_test *t)
{
	u8 *f = kzalloc(HELLO_MAX * 2, GFP_KERNEL);
	u8 *h = kzalloc(HELLO_MAX, GFP_KERNEL);
	u32 n, end, p = 0;
	int ret = -ENOMEM;

	if (!f || !h)
		goto out;
	n = hello(h, two, sizeof(two), 1, &end);
	/* PADDING, PING, a later piece, then offset 0, then PADDING */
	f[p++] = QUIC_FRAME_PADDING;
	f[p++] = QUIC_FRAME_PING;
	f[p++] = QUIC_FRAME_CRYPTO;
	f[p++] = 0x40;
	f[p++] = 200;			/* offset 200, two-byte varint */
	f[p++] = 1;
	f[p++] = 0xee;
	f[p++] = QUIC_FRAME_CRYPTO;
	f[p++] = 0;
	f[p++] = 0x40 | (n >> 8);
	f[p++] = n;
	memcpy(f + p, h, n);
	p += n;
	p += 100;
	ret = expect_frames(t, "hello", f, p, QUIC_ALPN_HELLO_LIST);
	if (!ret)
		ret = expect_frames(t, "cut frame", f, 11 + n - 1, -EBADMSG);
	if (!ret)
		ret = expect_frames(t, "padding only", f + 11 + n, 100,
				    QUIC_ALPN_HELLO_ABSENT);
	if (!ret) {
		/* PING, CONNECTION_CLOSE: a client's close */
		f[11 + n] = QUIC_FRAME_PING;
		f[12 + n] = QUIC_FRAME_CONNECTION_CLOSE;
		ret = expect_frames(t, "close", f + 11 + n, 100,
				    QUIC_ALPN_HELLO_ABSENT);
		f[11 + n] = 0;
		f[12 + n] = 0;
	}
	if (!ret)
		ret = expect_frames(t, "later piece only", f, 7,
				    QUIC_ALPN_HELLO_UNKNOWN);
	if (!ret) {
		f[1] = QUIC_FRAME_ACK;
		ret = expect_frames(t, "ack first", f, p,
				    QUIC_ALPN_HELLO_UNKNOWN);
	}
	if (!ret && (!quic_alpn_list_has(two, sizeof(two), "smb", 3) ||
		     quic_alpn_list_has(two, sizeof(two), "h", 1) ||
		     quic_alpn_list_has(two, sizeof(two) - 1, "smb", 3)))
		ret = quic_test_fail(t, "list_has");
	if (!ret)
		ret = expect_cmp(t);
out:
	kfree(h);
	kfree(f);
	return ret;
}

static const u8 initial_dcid[] = {
	0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08, 0x11,
};

/* A 1200-byte client Initial carrying a ClientHello, protected by
 * crypto.c: @k gets the client's receive and transmit keys of @version.
 * Return: the header length, or a negative errno.
 */
static int make_initial(u32 version, struct quic_crypto *k, u8 *pkt)
{
	struct quic_pkt_hdr b = {};
	u32 n, end, hello_len;
	int hdr_len, err;

	err = quic_crypto_initial_keys(&k[0], &k[1], initial_dcid,
				       sizeof(initial_dcid), version, false);
	if (err)
		return err;
	b.type = QUIC_PACKET_INITIAL;
	b.version = version;
	b.dcid = initial_dcid;
	b.dcid_len = sizeof(initial_dcid);
	n = 1200 - 21 - 16;	/* a 21-byte header */
	hdr_len = quic_packet_build_long(pkt, 1200, &b, 2, 5, n);
	if (hdr_len != 21)
		return hdr_len < 0 ? hdr_len : -EINVAL;
	memset(pkt + hdr_len, 0, n);
	pkt[hdr_len] = QUIC_FRAME_CRYPTO;
	pkt[hdr_len + 1] = 0;
	hello_len = hello(pkt + hdr_len + 4, two, sizeof(two), 2, &end);
	pkt[hdr_len + 2] = 0x40 | (hello_len >> 8);
	pkt[hdr_len + 3] = hello_len;
	err = quic_crypto_encrypt(&k[1], pkt, hdr_len, 2, 5, n);
	return err ?: hdr_len;
}

/* Open a copy of an Initial protected by crypto.c with initial.c, also
 * in softirq, and find the list; then a flipped bit, a bad version.
 */
static int check_open(struct quic_test *t, u32 version)
{
	struct quic_crypto *k;
	struct quic_pkt_hdr h;
	u32 off, len, list_len;
	int hdr_len, err;
	const u8 *list;
	u8 *pkt, *copy;

	k = kcalloc(2, sizeof(*k), GFP_KERNEL);
	pkt = kzalloc(1200 * 2, GFP_KERNEL);
	if (!k || !pkt) {
		err = -ENOMEM;
		goto out;
	}
	copy = pkt + 1200;
	hdr_len = make_initial(version, k, pkt);
	if (hdr_len < 0) {
		err = quic_test_fail(t, "make: %d", hdr_len);
		goto out;
	}
	err = quic_packet_parse_header(pkt, 1200, 0, 0, &h);
	if (err || h.pkt_len != 1200) {
		err = quic_test_fail(t, "parse: %d, %u", err, h.pkt_len);
		goto out;
	}
	memcpy(copy, pkt, 1200);
	local_bh_disable();
	err = quic_initial_open(copy, &h, &off, &len);
	local_bh_enable();
	if (err || off != hdr_len || len != 1200 - hdr_len - 16) {
		err = quic_test_fail(t, "open: %d off %u len %u", err, off,
				     len);
		goto out;
	}
	err = quic_alpn_initial_frames(copy + off, len, &list, &list_len);
	if (err != QUIC_ALPN_HELLO_LIST || list_len != sizeof(two) ||
	    memcmp(list, two, sizeof(two))) {
		err = quic_test_fail(t, "frames: %d", err);
		goto out;
	}
	memcpy(copy, pkt, 1200);
	copy[600] ^= 0x10;
	err = quic_initial_open(copy, &h, &off, &len);
	if (err != -EBADMSG) {
		err = quic_test_fail(t, "flipped bit: %d", err);
		goto out;
	}
	h.version = 0x0a0a0a0a;
	err = quic_initial_open(copy, &h, &off, &len);
	err = err == -EINVAL ? 0 : quic_test_fail(t, "version: %d", err);
out:
	if (k) {
		quic_crypto_free(&k[0]);
		quic_crypto_free(&k[1]);
	}
	kfree(k);
	kfree(pkt);
	return err;
}

static int alpn_open_v1(struct quic_test *t)
{
	return check_open(t, QUIC_VERSION_V1);
}

static int alpn_open_v2(struct quic_test *t)
{
	return check_open(t, QUIC_VERSION_V2);
}

/* A 1200-byte client Initial of v1 carrying @frames, then PADDING,
 * protected by crypto.c (keys in @k). Return: 0 or a negative errno.
 */
static int make_frames(struct quic_crypto *k, u8 *pkt, const u8 *frames,
		       u32 len, struct quic_pkt_hdr *h)
{
	struct quic_pkt_hdr b = {};
	u32 n = 1200 - 21 - 16;
	int hdr_len, err;

	err = quic_crypto_initial_keys(&k[0], &k[1], initial_dcid,
				       sizeof(initial_dcid), QUIC_VERSION_V1,
				       false);
	if (err)
		return err;
	b.type = QUIC_PACKET_INITIAL;
	b.version = QUIC_VERSION_V1;
	b.dcid = initial_dcid;
	b.dcid_len = sizeof(initial_dcid);
	hdr_len = quic_packet_build_long(pkt, 1200, &b, 2, 5, n);
	if (hdr_len != 21)
		return hdr_len < 0 ? hdr_len : -EINVAL;
	memset(pkt + hdr_len, 0, n);
	memcpy(pkt + hdr_len, frames, len);
	err = quic_crypto_encrypt(&k[1], pkt, hdr_len, 2, 5, n);
	return err ?: quic_packet_parse_header(pkt, 1200, 0, 0, h);
}

struct check_case {
	const char *what;
	u8 frames[16];
	u32 len;
	int verdict;
	u32 err;
};

static const struct check_case check_cases[] = {
	{ "ClientHello start", { 0x06, 0x00, 0x04, 0x01, 0x00, 0x01, 0x00 },
	  7, QUIC_INITIAL_HELLO },
	{ "PING", { 0x01 }, 1, QUIC_INITIAL_NOTHING },
	{ "PADDING only", { 0x00 }, 1, QUIC_INITIAL_NOTHING },
	{ "CONNECTION_CLOSE", { 0x1c, 0x00, 0x00, 0x00 }, 4,
	  QUIC_INITIAL_NOTHING },
	{ "CRYPTO start, then a close", { 0x06, 0x00, 0x01, 0x01, 0x1c, 0x00,
	  0x00, 0x00 }, 8, QUIC_INITIAL_NOTHING },
	{ "CRYPTO from offset 100", { 0x06, 0x40, 0x64, 0x01, 0x01 }, 5,
	  QUIC_INITIAL_NOTHING },
	{ "CRYPTO at 0, empty", { 0x06, 0x00, 0x00 }, 3,
	  QUIC_INITIAL_NOTHING },
	{ "ACK", { 0x02, 0x00, 0x00, 0x00, 0x00 }, 5, QUIC_INITIAL_VIOLATION,
	  QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION },
	{ "HANDSHAKE_DONE", { 0x06, 0x00, 0x01, 0x01, 0x1e }, 5,
	  QUIC_INITIAL_VIOLATION, QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION },
	{ "unknown frame type", { 0x06, 0x00, 0x01, 0x01, 0x3f }, 5,
	  QUIC_INITIAL_VIOLATION, QUIC_TRANSPORT_ERROR_FRAME_ENCODING },
	{ "CRYPTO beyond the buffer", { 0x06, 0x00, 0x01, 0x01, 0x06, 0x80,
	  0x01, 0x11, 0x71, 0x01, 0x01 }, 11, QUIC_INITIAL_VIOLATION,
	  QUIC_TRANSPORT_ERROR_CRYPTO_BUF_EXCEEDED },
	{ "CRYPTO up to the buffer's end", { 0x06, 0x00, 0x01, 0x01, 0x06,
	  0x80, 0x01, 0x00, 0x00, 0x01, 0x01 }, 11, QUIC_INITIAL_HELLO },
};

/* quic_initial_check(): each frame sequence gets its verdict, in
 * softirq; a flipped bit does not decrypt.
 */
static int alpn_initial_check(struct quic_test *t)
{
	const struct check_case *c;
	struct quic_crypto *k;
	struct quic_pkt_hdr h;
	u32 i, err_code;
	int err = 0, ret;
	u8 *pkt;

	k = kcalloc(2, sizeof(*k), GFP_KERNEL);
	pkt = kzalloc(1200, GFP_KERNEL);
	if (!k || !pkt) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i <= ARRAY_SIZE(check_cases) && !err; i++) {
		/* First the ClientHello start with a bit flipped. */
		c = &check_cases[i ? i - 1 : 0];
		ret = make_frames(k, pkt, c->frames, c->len, &h);
		quic_crypto_free(&k[0]);
		quic_crypto_free(&k[1]);
		if (ret) {
			err = quic_test_fail(t, "%s: make: %d", c->what, ret);
			break;
		}
		if (!i)
			pkt[600] ^= 0x10;
		err_code = 0;
		local_bh_disable();
		ret = quic_initial_check(pkt, &h, &err_code);
		local_bh_enable();
		if (!i) {
			if (ret != -EBADMSG)
				err = quic_test_fail(t, "flipped bit: %d", ret);
		} else if (ret != c->verdict ||
			   (ret == QUIC_INITIAL_VIOLATION &&
			    err_code != c->err)) {
			err = quic_test_fail(t, "%s: %d (error %u)", c->what,
					     ret, err_code);
		}
	}
out:
	kfree(k);
	kfree(pkt);
	return err;
}

static const struct quic_test_case quic_alpn_cases[] = {
	QUIC_TEST_CASE(alpn_hello_list),
	QUIC_TEST_CASE(alpn_hello_malformed),
	QUIC_TEST_CASE(alpn_hello_truncated),
	QUIC_TEST_CASE(alpn_initial_frames),
	QUIC_TEST_CASE(alpn_open_v1),
	QUIC_TEST_CASE(alpn_open_v2),
	QUIC_TEST_CASE(alpn_initial_check),
};

#define BENCH_OPS	2000

/* What the ALPN demultiplexing adds per client Initial, next to what
 * crypto.c spends opening it with keys already set up (the accepted
 * socket's cost, without its key setup).
 */
static void quic_alpn_bench(void)
{
	u32 off, len, list_len, pn_len, tpn, i, code;
	struct quic_crypto *k, *s;
	struct quic_pkt_hdr h;
	u64 t0, demux, aead, check;
	const u8 *list;
	u8 *pkt, *copy;
	int hdr_len;

	k = kcalloc(4, sizeof(*k), GFP_KERNEL);
	pkt = kzalloc(1200 * 2, GFP_KERNEL);
	if (!k || !pkt)
		goto out;
	s = k + 2;
	copy = pkt + 1200;
	hdr_len = make_initial(QUIC_VERSION_V1, k, pkt);
	if (hdr_len < 0 || quic_packet_parse_header(pkt, 1200, 0, 0, &h) ||
	    quic_crypto_initial_keys(&s[0], &s[1], initial_dcid,
				     sizeof(initial_dcid), QUIC_VERSION_V1,
				     true))
		goto out;
	local_bh_disable();
	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_OPS; i++) {
		memcpy(copy, pkt, 1200);
		if (!quic_initial_open(copy, &h, &off, &len))
			quic_alpn_initial_frames(copy + off, len, &list,
						 &list_len);
	}
	demux = ktime_get_ns() - t0;
	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_OPS; i++) {
		memcpy(copy, pkt, 1200);
		quic_initial_check(copy, &h, &code);
	}
	check = ktime_get_ns() - t0;
	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_OPS; i++) {
		memcpy(copy, pkt, 1200);
		quic_crypto_hp_remove(&s[0], copy, 1200, h.pn_offset, &pn_len,
				      &tpn);
		quic_crypto_aead_decrypt(&s[0], copy, h.pn_offset + pn_len,
					 tpn, 1200);
	}
	aead = ktime_get_ns() - t0;
	local_bh_enable();
	quic_test_bench_time("demux: open and parse a 1200-byte Initial",
			     demux, BENCH_OPS);
	quic_test_bench_time("listener: check it (quic_initial_check)", check,
			     BENCH_OPS);
	quic_test_bench_time("crypto.c: open it with keys set up", aead,
			     BENCH_OPS);
	quic_test_bench_ratio("ratio demux/crypto.c", demux, aead);
	quic_test_bench_ratio("ratio check/crypto.c", check, aead);
out:
	if (k)
		for (i = 0; i < 4; i++)
			quic_crypto_free(&k[i]);
	kfree(k);
	kfree(pkt);
}

const struct quic_test_suite quic_alpn_suite = {
	.name		= "quic_alpn",
	.cases		= quic_alpn_cases,
	.num_cases	= ARRAY_SIZE(quic_alpn_cases),
	.bench		= quic_alpn_bench,
};
