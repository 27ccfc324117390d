// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/token.c: the stateless address validation tokens of
 * Retry packets and NEW_TOKEN frames (RFC 9000, section 8.1), their MAC
 * under a per-namespace key that rotates, and their lifetimes. Time is
 * passed in, so the cases move it as they like.
 */

#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kernel.h>
#include <linux/socket.h>
#include <linux/string.h>
#include "../cid.h"
#include "../token.h"
#include "../udp.h"

#include "test.h"

/* Any time will do; the wrap of the 32-bit time field has its own case. */
#define NOW		1000ULL
#define PORT		4433

#define V4_A		0xc0000201	/* 192.0.2.1 */
#define V4_B		0xc0000202	/* 192.0.2.2 */
#define V6_A		0x20010db8	/* 2001:db8::1 */

/* Room for the longest token and a few bytes more, to extend one. */
#define TOK_BUF		(QUIC_TOKEN_RETRY_MAX_LEN + 8)

static void mk_v4(union quic_addr *a, u32 addr, u16 port)
{
	memset(a, 0, sizeof(*a));
	a->v4.sin_family = AF_INET;
	a->v4.sin_addr.s_addr = htonl(addr);
	a->v4.sin_port = htons(port);
}

/* The IPv6 address whose first 32 bits are @hi and last 32 bits @lo. */
static void mk_v6(union quic_addr *a, u32 hi, u32 lo, u16 port)
{
	memset(a, 0, sizeof(*a));
	a->v6.sin6_family = AF_INET6;
	a->v6.sin6_addr.s6_addr32[0] = htonl(hi);
	a->v6.sin6_addr.s6_addr32[3] = htonl(lo);
	a->v6.sin6_port = htons(port);
}

/* A distinct ID of @len bytes for number @n (1 to 3). */
static void mk_cid(struct quic_cid *cid, u8 n, u8 len)
{
	u8 i;

	memset(cid, 0, sizeof(*cid));
	cid->len = len;
	for (i = 0; i < len && i < QUIC_CID_MAX_LEN; i++)
		cid->data[i] = n * 0x40 + i;
}

static void mk_nonce(u8 *nonce, u8 n)
{
	memset(nonce, n, QUIC_TOKEN_NONCE_LEN);
}

/* Every change of one bit of @tok is refused: with -EINVAL, except that
 * a change in the first byte may make it claim another kind, so there
 * anything but a success will do. @tok is left as it was.
 */
static int flips_refused(struct quic_test *t, const struct quic_token_key *k,
			 u8 *tok, u32 len, const union quic_addr *peer,
			 const struct quic_cid *dcid, u64 now)
{
	struct quic_cid odcid;
	u32 i, bit;
	int ret;

	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			tok[i] ^= 1 << bit;
			ret = quic_token_check(k, tok, len, peer, dcid, &odcid,
					       now);
			tok[i] ^= 1 << bit;
			if (ret >= 0 || (i && ret != -EINVAL))
				return quic_test_fail(t, "byte %u bit %u: %d",
						      i, bit, ret);
		}
	}
	return 0;
}

/* A Retry token from @peer made now checks now, with the SCID of the
 * Retry as the DCID, and gives the original DCID back.
 */
static int retry_round_trip(struct quic_test *t, struct quic_token_key *k,
			    const union quic_addr *peer, u8 odcid_len)
{
	struct quic_cid odcid, rscid, got;
	u8 tok[TOK_BUF] = {};
	int len, ret;

	mk_cid(&odcid, 1, odcid_len);
	mk_cid(&rscid, 2, 8);
	memset(&got, 0, sizeof(got));
	len = quic_token_make(k, QUIC_TOKEN_RETRY, tok, peer, &odcid, &rscid,
			      NULL, NOW);
	if (len != 6 + odcid_len + QUIC_TOKEN_BIND_LEN + QUIC_TOKEN_MAC_LEN)
		return quic_test_fail(t, "family %u ODCID %u: length %d",
				      peer->sa.sa_family, odcid_len, len);
	if (quic_token_kind(tok, len) != QUIC_TOKEN_RETRY)
		return quic_test_fail(t, "family %u: kind %u",
				      peer->sa.sa_family,
				      quic_token_kind(tok, len));
	ret = quic_token_check(k, tok, len, peer, &rscid, &got, NOW);
	if (ret != QUIC_TOKEN_RETRY)
		return quic_test_fail(t, "family %u: check %d",
				      peer->sa.sa_family, ret);
	if (!quic_cid_eq(&got, &odcid))
		return quic_test_fail(t, "family %u: ODCID of length %u back",
				      peer->sa.sa_family, got.len);
	return 0;
}

static int token_retry_round_trip(struct quic_test *t)
{
	struct quic_token_key k;
	union quic_addr peer;
	int err;

	quic_token_key_init(&k, NOW);
	mk_v4(&peer, V4_A, PORT);
	err = retry_round_trip(t, &k, &peer, 8);
	if (!err) {
		mk_v6(&peer, V6_A, 1, PORT);
		err = retry_round_trip(t, &k, &peer, QUIC_CID_MAX_LEN);
	}
	quic_token_key_exit(&k);
	return err;
}

/* A NEW_TOKEN token made for @peer: good from any port of its address,
 * with any DCID; refused from @other, another address.
 */
static int new_round_trip(struct quic_test *t, struct quic_token_key *k,
			  const union quic_addr *peer,
			  const union quic_addr *other)
{
	u8 tok[TOK_BUF] = {}, nonce[QUIC_TOKEN_NONCE_LEN];
	struct quic_cid dcid, cid2, got;
	union quic_addr port2;
	int len, ret;

	mk_cid(&dcid, 1, 8);
	mk_cid(&cid2, 2, 8);
	mk_nonce(nonce, 0x5a);
	len = quic_token_make(k, QUIC_TOKEN_NEW, tok, peer, &dcid, &dcid,
			      nonce, NOW);
	if (len != QUIC_TOKEN_NEW_LEN)
		return quic_test_fail(t, "family %u: length %d",
				      peer->sa.sa_family, len);
	if (quic_token_kind(tok, len) != QUIC_TOKEN_NEW)
		return quic_test_fail(t, "family %u: kind %u",
				      peer->sa.sa_family,
				      quic_token_kind(tok, len));
	ret = quic_token_check(k, tok, len, peer, &dcid, &got, NOW);
	if (ret != QUIC_TOKEN_NEW)
		return quic_test_fail(t, "family %u: check %d",
				      peer->sa.sa_family, ret);
	/* The port is not bound: a later connection comes from another. */
	port2 = *peer;
	if (peer->sa.sa_family == AF_INET6)
		port2.v6.sin6_port = htons(PORT + 1);
	else
		port2.v4.sin_port = htons(PORT + 1);
	ret = quic_token_check(k, tok, len, &port2, &cid2, &got, NOW);
	if (ret != QUIC_TOKEN_NEW)
		return quic_test_fail(t, "family %u, other port: %d",
				      peer->sa.sa_family, ret);
	ret = quic_token_check(k, tok, len, other, &dcid, &got, NOW);
	if (ret != -EACCES)
		return quic_test_fail(t, "family %u, other address: %d",
				      peer->sa.sa_family, ret);
	return flips_refused(t, k, tok, len, peer, &dcid, NOW);
}

static int token_new_round_trip(struct quic_test *t)
{
	union quic_addr peer, other;
	struct quic_token_key k;
	int err;

	quic_token_key_init(&k, NOW);
	mk_v4(&peer, V4_A, PORT);
	mk_v4(&other, V4_B, PORT);
	err = new_round_trip(t, &k, &peer, &other);
	if (!err) {
		mk_v6(&peer, V6_A, 1, PORT);
		mk_v6(&other, V6_A, 2, PORT);
		err = new_round_trip(t, &k, &peer, &other);
	}
	if (!err) {
		/* Made for an IPv6 address, presented from an IPv4 one. */
		mk_v6(&peer, V6_A, 1, PORT);
		mk_v4(&other, V4_A, PORT);
		err = new_round_trip(t, &k, &peer, &other);
	}
	quic_token_key_exit(&k);
	return err;
}

static int retry_refused(struct quic_test *t, struct quic_token_key *k)
{
	struct quic_cid odcid, rscid, dcid, got;
	union quic_addr peer, other;
	u8 tok[TOK_BUF] = {};
	int len, ret;
	u32 l;

	mk_cid(&odcid, 1, 8);
	mk_cid(&rscid, 2, 8);
	mk_v4(&peer, V4_A, PORT);
	len = quic_token_make(k, QUIC_TOKEN_RETRY, tok, &peer, &odcid, &rscid,
			      NULL, NOW);
	if (len <= 0)
		return quic_test_fail(t, "make: %d", len);
	ret = quic_token_check(k, tok, len, &peer, &rscid, &got, NOW);
	if (ret != QUIC_TOKEN_RETRY)
		return quic_test_fail(t, "check: %d", ret);

	mk_v4(&other, V4_A, PORT + 1);
	ret = quic_token_check(k, tok, len, &other, &rscid, &got, NOW);
	if (ret != -EACCES)
		return quic_test_fail(t, "other port: %d", ret);
	mk_v4(&other, V4_B, PORT);
	ret = quic_token_check(k, tok, len, &other, &rscid, &got, NOW);
	if (ret != -EACCES)
		return quic_test_fail(t, "other address: %d", ret);
	/* c000:201::, whose first four bytes are those of 192.0.2.1. */
	mk_v6(&other, V4_A, 0, PORT);
	ret = quic_token_check(k, tok, len, &other, &rscid, &got, NOW);
	if (ret != -EACCES)
		return quic_test_fail(t, "other family: %d", ret);

	mk_cid(&dcid, 3, 8);
	ret = quic_token_check(k, tok, len, &peer, &dcid, &got, NOW);
	if (ret != -EACCES)
		return quic_test_fail(t, "other DCID: %d", ret);
	dcid = rscid;
	dcid.len--;
	ret = quic_token_check(k, tok, len, &peer, &dcid, &got, NOW);
	if (ret != -EACCES)
		return quic_test_fail(t, "DCID a prefix of the SCID: %d", ret);
	ret = quic_token_check(k, tok, len, &peer, &odcid, &got, NOW);
	if (ret != -EACCES)
		return quic_test_fail(t, "original DCID as DCID: %d", ret);

	ret = flips_refused(t, k, tok, len, &peer, &rscid, NOW);
	if (ret)
		return ret;

	/* Every other length, the empty token among them. */
	for (l = 0; l < TOK_BUF; l++) {
		if (l == (u32)len)
			continue;
		ret = quic_token_check(k, tok, l, &peer, &rscid, &got, NOW);
		if (ret != -EINVAL)
			return quic_test_fail(t, "length %u of %d: %d", l, len,
					      ret);
	}
	if (quic_token_kind(tok, 0))
		return quic_test_fail(t, "empty token: kind %u",
				      quic_token_kind(tok, 0));
	return 0;
}

static int token_retry_refused(struct quic_test *t)
{
	struct quic_token_key k;
	int err;

	quic_token_key_init(&k, NOW);
	err = retry_refused(t, &k);
	quic_token_key_exit(&k);
	return err;
}

/* @tok, made at @made, checks as @kind until @life seconds later, then
 * has expired; and has expired a second before it was made.
 */
static int lifetime(struct quic_test *t, const struct quic_token_key *k,
		    const u8 *tok, int len, const union quic_addr *peer,
		    const struct quic_cid *dcid, u64 made, u32 life, int kind)
{
	struct quic_cid got;
	int ret;

	ret = quic_token_check(k, tok, len, peer, dcid, &got, made + life);
	if (ret != kind)
		return quic_test_fail(t, "kind %d at +%u: %d", kind, life,
				      ret);
	ret = quic_token_check(k, tok, len, peer, dcid, &got, made + life + 1);
	if (ret != -ETIMEDOUT)
		return quic_test_fail(t, "kind %d at +%u: %d", kind, life + 1,
				      ret);
	ret = quic_token_check(k, tok, len, peer, dcid, &got, made - 1);
	if (ret != -ETIMEDOUT)
		return quic_test_fail(t, "kind %d at -1: %d", kind, ret);
	return 0;
}

static int lifetimes(struct quic_test *t, struct quic_token_key *k)
{
	u8 tok[TOK_BUF] = {}, nonce[QUIC_TOKEN_NONCE_LEN];
	struct quic_cid odcid, rscid;
	union quic_addr peer;
	int len, err;
	u64 wrap;

	mk_cid(&odcid, 1, 8);
	mk_cid(&rscid, 2, 8);
	mk_nonce(nonce, 0x5a);
	mk_v4(&peer, V4_A, PORT);

	len = quic_token_make(k, QUIC_TOKEN_RETRY, tok, &peer, &odcid, &rscid,
			      NULL, NOW);
	if (len <= 0)
		return quic_test_fail(t, "make Retry: %d", len);
	err = lifetime(t, k, tok, len, &peer, &rscid, NOW,
		       QUIC_TOKEN_RETRY_LIFETIME, QUIC_TOKEN_RETRY);
	if (err)
		return err;
	len = quic_token_make(k, QUIC_TOKEN_NEW, tok, &peer, &odcid, &rscid,
			      nonce, NOW);
	if (len <= 0)
		return quic_test_fail(t, "make NEW_TOKEN: %d", len);
	err = lifetime(t, k, tok, len, &peer, &rscid, NOW,
		       QUIC_TOKEN_NEW_LIFETIME, QUIC_TOKEN_NEW);
	if (err)
		return err;

	/* Across the wrap of the 32-bit time in the token. */
	wrap = U32_MAX;
	quic_token_key_init(k, wrap - 1);
	len = quic_token_make(k, QUIC_TOKEN_RETRY, tok, &peer, &odcid, &rscid,
			      NULL, wrap);
	if (len <= 0)
		return quic_test_fail(t, "make Retry at 2^32 - 1: %d", len);
	return lifetime(t, k, tok, len, &peer, &rscid, wrap,
			QUIC_TOKEN_RETRY_LIFETIME, QUIC_TOKEN_RETRY);
}

static int token_lifetimes(struct quic_test *t)
{
	struct quic_token_key k;
	int err;

	quic_token_key_init(&k, NOW);
	err = lifetimes(t, &k);
	quic_token_key_exit(&k);
	return err;
}

static int rotation(struct quic_test *t, struct quic_token_key *k)
{
	const u64 t1 = NOW + QUIC_TOKEN_ROTATE, t2 = t1 + QUIC_TOKEN_ROTATE;
	u8 a[TOK_BUF] = {}, b[TOK_BUF] = {}, c[TOK_BUF] = {};
	u8 nonce[QUIC_TOKEN_NONCE_LEN];
	struct quic_cid dcid, got;
	union quic_addr peer;
	int la, lb, lc, ret;

	mk_cid(&dcid, 1, 8);
	mk_v4(&peer, V4_A, PORT);

	/* Two tokens made at once differ by their nonces, MAC included. */
	mk_nonce(nonce, 1);
	la = quic_token_make(k, QUIC_TOKEN_NEW, a, &peer, &dcid, &dcid, nonce,
			     NOW);
	mk_nonce(nonce, 2);
	lb = quic_token_make(k, QUIC_TOKEN_NEW, b, &peer, &dcid, &dcid, nonce,
			     NOW);
	if (la != QUIC_TOKEN_NEW_LEN || lb != la)
		return quic_test_fail(t, "lengths %d %d", la, lb);
	if (!memcmp(a + la - QUIC_TOKEN_MAC_LEN, b + lb - QUIC_TOKEN_MAC_LEN,
		    QUIC_TOKEN_MAC_LEN))
		return quic_test_fail(t, "same MAC for two nonces");

	/* A second short of the period: the same key. */
	lb = quic_token_make(k, QUIC_TOKEN_NEW, b, &peer, &dcid, &dcid, nonce,
			     t1 - 1);
	if (lb != la || (a[0] & 1) != (b[0] & 1))
		return quic_test_fail(t, "rotated before the period");

	/* A period on, the other slot; the first key still checks. */
	lb = quic_token_make(k, QUIC_TOKEN_NEW, b, &peer, &dcid, &dcid, nonce,
			     t1);
	if (lb != la || (a[0] & 1) == (b[0] & 1))
		return quic_test_fail(t, "not rotated after a period");
	ret = quic_token_check(k, a, la, &peer, &dcid, &got, t1);
	if (ret != QUIC_TOKEN_NEW)
		return quic_test_fail(t, "first token, previous key: %d", ret);
	ret = quic_token_check(k, b, lb, &peer, &dcid, &got, t1);
	if (ret != QUIC_TOKEN_NEW)
		return quic_test_fail(t, "second token: %d", ret);

	/* Another period: the first key is replaced, the second kept. */
	lc = quic_token_make(k, QUIC_TOKEN_NEW, c, &peer, &dcid, &dcid, nonce,
			     t2);
	if (lc != la || (c[0] & 1) != (a[0] & 1))
		return quic_test_fail(t, "not rotated back");
	ret = quic_token_check(k, a, la, &peer, &dcid, &got, t2);
	if (ret >= 0)
		return quic_test_fail(t, "first token after two rotations: %d",
				      ret);
	ret = quic_token_check(k, b, lb, &peer, &dcid, &got, t2);
	if (ret != QUIC_TOKEN_NEW)
		return quic_test_fail(t, "second token after two: %d", ret);
	ret = quic_token_check(k, c, lc, &peer, &dcid, &got, t2);
	if (ret != QUIC_TOKEN_NEW)
		return quic_test_fail(t, "third token: %d", ret);
	return 0;
}

static int token_rotation(struct quic_test *t)
{
	struct quic_token_key k;
	int err;

	quic_token_key_init(&k, NOW);
	err = rotation(t, &k);
	quic_token_key_exit(&k);
	return err;
}

/* @tok from one key, and a check under @other: refused. */
static int foreign(struct quic_test *t, const struct quic_token_key *k,
		   const struct quic_token_key *other, const u8 *tok, int len,
		   const union quic_addr *peer, const struct quic_cid *dcid,
		   int kind)
{
	struct quic_cid got;
	int ret;

	ret = quic_token_check(k, tok, len, peer, dcid, &got, NOW);
	if (ret != kind)
		return quic_test_fail(t, "kind %d, own key: %d", kind, ret);
	ret = quic_token_check(other, tok, len, peer, dcid, &got, NOW);
	if (ret != -EINVAL)
		return quic_test_fail(t, "kind %d, other key: %d", kind, ret);
	return 0;
}

static int token_two_keys(struct quic_test *t)
{
	u8 tok[TOK_BUF] = {}, nonce[QUIC_TOKEN_NONCE_LEN];
	struct quic_token_key k1, k2;
	struct quic_cid odcid, rscid;
	union quic_addr peer;
	int len, err;

	quic_token_key_init(&k1, NOW);
	quic_token_key_init(&k2, NOW);
	mk_cid(&odcid, 1, 8);
	mk_cid(&rscid, 2, 8);
	mk_nonce(nonce, 0x5a);
	mk_v6(&peer, V6_A, 1, PORT);

	len = quic_token_make(&k1, QUIC_TOKEN_RETRY, tok, &peer, &odcid,
			      &rscid, NULL, NOW);
	if (len <= 0) {
		err = quic_test_fail(t, "make Retry: %d", len);
		goto out;
	}
	err = foreign(t, &k1, &k2, tok, len, &peer, &rscid, QUIC_TOKEN_RETRY);
	if (err)
		goto out;
	len = quic_token_make(&k2, QUIC_TOKEN_NEW, tok, &peer, &odcid, &rscid,
			      nonce, NOW);
	if (len <= 0) {
		err = quic_test_fail(t, "make NEW_TOKEN: %d", len);
		goto out;
	}
	err = foreign(t, &k2, &k1, tok, len, &peer, &rscid, QUIC_TOKEN_NEW);
out:
	quic_token_key_exit(&k1);
	quic_token_key_exit(&k2);
	return err;
}

static int token_make_invalid(struct quic_test *t)
{
	u8 tok[TOK_BUF] = {}, nonce[QUIC_TOKEN_NONCE_LEN];
	struct quic_cid cid, big;
	struct quic_token_key k;
	union quic_addr peer;
	int err = 0;

	quic_token_key_init(&k, NOW);
	mk_cid(&cid, 1, 8);
	mk_cid(&big, 2, QUIC_CID_MAX_LEN);
	big.len = QUIC_CID_MAX_LEN + 1;
	mk_nonce(nonce, 0x5a);
	mk_v4(&peer, V4_A, PORT);

	if (quic_token_make(&k, 0, tok, &peer, &cid, &cid, nonce, NOW) !=
	    -EINVAL ||
	    quic_token_make(&k, 3, tok, &peer, &cid, &cid, nonce, NOW) !=
	    -EINVAL)
		err = quic_test_fail(t, "unknown kind made");
	else if (quic_token_make(&k, QUIC_TOKEN_RETRY, tok, &peer, &big, &cid,
				 NULL, NOW) != -EINVAL)
		err = quic_test_fail(t, "ODCID of 21 bytes taken");
	else if (quic_token_make(&k, QUIC_TOKEN_RETRY, tok, &peer, &cid, &big,
				 NULL, NOW) != -EINVAL)
		err = quic_test_fail(t, "Retry SCID of 21 bytes taken");
	quic_token_key_exit(&k);
	return err;
}

static const struct quic_test_case quic_token_cases[] = {
	QUIC_TEST_CASE(token_retry_round_trip),
	QUIC_TEST_CASE(token_new_round_trip),
	QUIC_TEST_CASE(token_retry_refused),
	QUIC_TEST_CASE(token_lifetimes),
	QUIC_TEST_CASE(token_rotation),
	QUIC_TEST_CASE(token_two_keys),
	QUIC_TEST_CASE(token_make_invalid),
};

const struct quic_test_suite quic_token_suite = {
	.name		= "quic_token",
	.cases		= quic_token_cases,
	.num_cases	= ARRAY_SIZE(quic_token_cases),
};
