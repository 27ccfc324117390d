// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/packet.c: the RFC 9001 and RFC 9369 appendix headers,
 * the RFC 9000 appendix A packet number examples, build/parse round trips,
 * every truncation of every header kind, coalesced datagrams and a fuzz
 * loop that checks every parsed offset stays inside the buffer.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#ifdef QUIC_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include "../packet.h"
#include "../varint.h"

#include "test.h"

#define DGRAM_MAX	1500

static u8 dgram[DGRAM_MAX];
static u8 dgram2[DGRAM_MAX];

static const u8 rfc_dcid[] = { 0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };
static const u32 both_versions[] = { QUIC_VERSION_V1, QUIC_VERSION_V2 };
static const u8 rfc_scid[] = { 0xf0, 0x67, 0xa5, 0x50, 0x2a, 0x42, 0x62, 0xb5 };

/* Decode hex into @out; returns the byte count, or 0 on bad input. */
static u32 unhex(u8 *out, u32 room, const char *hex)
{
	u32 n = strlen(hex) / 2;

	if (n > room || hex2bin(out, hex, n))
		return 0;
	return n;
}

/* The packet number field of @n bytes at @p. */
static u64 read_pn(const u8 *p, u32 n)
{
	u64 v = 0;

	quic_uint_get(&p, &n, &v, n);
	return v;
}

static bool bytes_eq(const u8 *a, u32 alen, const u8 *b, u32 blen)
{
	return alen == blen && (!alen || !memcmp(a, b, alen));
}

/* Everything a successful parse points at lies inside the buffer. */
static int check_inside(struct quic_test *t, const u8 *buf, u32 len,
			const struct quic_pkt_hdr *h)
{
	const u8 *end = buf + len;

	if (h->pkt_len > len || !h->pkt_len)
		return quic_test_fail(t, "pkt_len %u of %u", h->pkt_len, len);
	if (h->dcid_len && (h->dcid < buf || h->dcid + h->dcid_len > end))
		return quic_test_fail(t, "dcid outside");
	if (h->scid_len && (h->scid < buf || h->scid + h->scid_len > end))
		return quic_test_fail(t, "scid outside");
	if (h->token_len && (h->token < buf || h->token + h->token_len > end))
		return quic_test_fail(t, "token outside");
	if (h->num_versions &&
	    (h->versions < buf || h->versions + 4 * h->num_versions > end))
		return quic_test_fail(t, "versions outside");
	switch (h->type) {
	case QUIC_PACKET_INITIAL:
	case QUIC_PACKET_0RTT:
	case QUIC_PACKET_HANDSHAKE:
		if (h->pn_offset + h->length != h->pkt_len || !h->length)
			return quic_test_fail(t, "pn_offset %u length %u",
					      h->pn_offset, h->length);
		break;
	case QUIC_PACKET_1RTT:
		if (h->pn_offset >= h->pkt_len)
			return quic_test_fail(t, "short pn_offset %u",
					      h->pn_offset);
		break;
	case QUIC_PACKET_RETRY:
		if (h->tag_offset + QUIC_RETRY_TAG_LEN != h->pkt_len ||
		    h->token + h->token_len != buf + h->tag_offset ||
		    !h->token_len)
			return quic_test_fail(t, "retry layout");
		break;
	case QUIC_PACKET_VERSION_NEGOTIATION:
		if (h->versions + 4 * h->num_versions != end)
			return quic_test_fail(t, "vn layout");
		break;
	default:
		return quic_test_fail(t, "type %u", h->type);
	}
	return 0;
}

/* Parse a copy of exactly @len bytes, so that nothing past it is mapped. */
static int parse_copy(const u8 *buf, u32 len, u8 short_dcid_len, u32 flags,
		      struct quic_pkt_hdr *h, u8 **copy)
{
	*copy = kmemdup(buf, len ?: 1, GFP_KERNEL);
	if (!*copy)
		return -ENOMEM;
	return quic_packet_parse_header(*copy, len, short_dcid_len, flags, h);
}

static int test_rfc9001_client_initial(struct quic_test *t)
{
	static const char hdr_hex[] =
		"c300000001088394c8f03e5157080000449e00000002";
	struct quic_pkt_hdr h, b = {};
	u8 hdr[22];
	int err;

	if (unhex(hdr, sizeof(hdr), hdr_hex) != sizeof(hdr))
		return quic_test_fail(t, "hex");
	memset(dgram, 0, 1200);
	memcpy(dgram, hdr, sizeof(hdr));
	err = quic_packet_parse_header(dgram, 1200, 0, 0, &h);
	if (err)
		return quic_test_fail(t, "parse %d", err);
	if (!h.long_header || h.fixed_bit_clear || h.version != QUIC_VERSION_V1 ||
	    h.type != QUIC_PACKET_INITIAL)
		return quic_test_fail(t, "form/version/type");
	if (!bytes_eq(h.dcid, h.dcid_len, rfc_dcid, sizeof(rfc_dcid)) ||
	    h.scid_len || h.token_len)
		return quic_test_fail(t, "cids/token");
	if (h.length != 0x49e || h.pn_offset != 18 || h.pkt_len != 1200)
		return quic_test_fail(t, "length %u pn_offset %u pkt_len %u",
				      h.length, h.pn_offset, h.pkt_len);
	if (quic_packet_pn_len(h.first) != 4 ||
	    quic_packet_reserved_bits(h.first) ||
	    quic_pn_decode(QUIC_PN_NONE, 2, 32) != 2)
		return quic_test_fail(t, "pn bits");
	if (!quic_packet_initial_size_ok(h.pkt_len) ||
	    quic_packet_initial_size_ok(1199))
		return quic_test_fail(t, "initial size");

	/* Building the same header gives the same bytes. */
	b.type = QUIC_PACKET_INITIAL;
	b.version = QUIC_VERSION_V1;
	b.dcid = rfc_dcid;
	b.dcid_len = sizeof(rfc_dcid);
	err = quic_packet_build_long(dgram2, 1200, &b, 4, 2, 1182 - 4 - 16);
	if (err != sizeof(hdr) || memcmp(dgram2, hdr, sizeof(hdr)))
		return quic_test_fail(t, "build %d: %*phN", err, 22, dgram2);
	return 0;
}

static int test_rfc9001_server_initial(struct quic_test *t)
{
	static const char hdr_hex[] = "c1000000010008f067a5502a4262b50040750001";
	struct quic_pkt_hdr h, b = {};
	u32 total = 20 - 2 + 0x75;
	u8 hdr[20];
	int err;

	if (unhex(hdr, sizeof(hdr), hdr_hex) != sizeof(hdr))
		return quic_test_fail(t, "hex");
	memset(dgram, 0, total);
	memcpy(dgram, hdr, sizeof(hdr));
	err = quic_packet_parse_header(dgram, total, 0, 0, &h);
	if (err)
		return quic_test_fail(t, "parse %d", err);
	if (h.type != QUIC_PACKET_INITIAL || h.dcid_len ||
	    !bytes_eq(h.scid, h.scid_len, rfc_scid, sizeof(rfc_scid)) ||
	    h.length != 0x75 || h.pn_offset != 18 || h.pkt_len != total ||
	    quic_packet_pn_len(h.first) != 2)
		return quic_test_fail(t, "fields");
	b.type = QUIC_PACKET_INITIAL;
	b.version = QUIC_VERSION_V1;
	b.scid = rfc_scid;
	b.scid_len = sizeof(rfc_scid);
	err = quic_packet_build_long(dgram2, total, &b, 2, 1, 0x75 - 2 - 16);
	if (err != sizeof(hdr) || memcmp(dgram2, hdr, sizeof(hdr)))
		return quic_test_fail(t, "build %d", err);
	return 0;
}

static int test_rfc9369_v2_initial(struct quic_test *t)
{
	static const char hdr_hex[] =
		"d36b3343cf088394c8f03e5157080000449e00000002";
	struct quic_pkt_hdr h, b = {};
	u8 hdr[22];
	int err;

	if (unhex(hdr, sizeof(hdr), hdr_hex) != sizeof(hdr))
		return quic_test_fail(t, "hex");
	memset(dgram, 0, 1200);
	memcpy(dgram, hdr, sizeof(hdr));
	err = quic_packet_parse_header(dgram, 1200, 0, 0, &h);
	if (err)
		return quic_test_fail(t, "parse %d", err);
	if (h.version != QUIC_VERSION_V2 || h.type != QUIC_PACKET_INITIAL ||
	    !bytes_eq(h.dcid, h.dcid_len, rfc_dcid, sizeof(rfc_dcid)) ||
	    h.length != 0x49e || h.pn_offset != 18)
		return quic_test_fail(t, "fields");
	b.type = QUIC_PACKET_INITIAL;
	b.version = QUIC_VERSION_V2;
	b.dcid = rfc_dcid;
	b.dcid_len = sizeof(rfc_dcid);
	err = quic_packet_build_long(dgram2, 1200, &b, 4, 2, 1182 - 4 - 16);
	if (err != sizeof(hdr) || memcmp(dgram2, hdr, sizeof(hdr)))
		return quic_test_fail(t, "build %d", err);
	return 0;
}

/* RFC 9001 A.4 and RFC 9369 A.4: Retry packets answering A.2's Initial. */
static int test_rfc_retry(struct quic_test *t)
{
	static const char *const hex[] = {
		"ff000000010008f067a5502a4262b5746f6b656e04a265ba2eff4d829058fb3f0f2496ba",
		"cf6b3343cf0008f067a5502a4262b5746f6b656ec8646ce8bfe33952d955543665dcc7b6",
	};
	struct quic_pkt_hdr h;
	u32 i, n;
	int err;

	for (i = 0; i < ARRAY_SIZE(hex); i++) {
		n = unhex(dgram, DGRAM_MAX, hex[i]);
		if (n != 36)
			return quic_test_fail(t, "hex");
		err = quic_packet_parse_header(dgram, n, 0, 0, &h);
		if (err)
			return quic_test_fail(t, "v%u parse %d", i + 1, err);
		if (h.type != QUIC_PACKET_RETRY || h.version != both_versions[i] ||
		    h.dcid_len ||
		    !bytes_eq(h.scid, h.scid_len, rfc_scid, sizeof(rfc_scid)) ||
		    !bytes_eq(h.token, h.token_len, (const u8 *)"token", 5) ||
		    h.tag_offset != 20 || h.pkt_len != 36)
			return quic_test_fail(t, "v%u fields", i + 1);
		err = check_inside(t, dgram, n, &h);
		if (err)
			return err;
		err = quic_packet_build_retry(dgram2, 36, &h, 0x0f);
		if (err != 20 || memcmp(dgram2, dgram, 20))
			return quic_test_fail(t, "v%u build %d", i + 1, err);
		if (quic_packet_build_retry(dgram2, 35, &h, 0x0f) != -ENOBUFS)
			return quic_test_fail(t, "no room for the tag");
	}
	return 0;
}

/* RFC 9001 A.5: the ChaCha20 short header, packet number 654360564. */
static int test_rfc9001_short(struct quic_test *t)
{
	static const u8 hdr[] = { 0x42, 0x00, 0xbf, 0xf4 };
	struct quic_pkt_hdr h, b = {};
	int err;

	memcpy(dgram, hdr, sizeof(hdr));
	memset(dgram + sizeof(hdr), 0, 17);
	err = quic_packet_parse_header(dgram, sizeof(hdr) + 17, 0, 0, &h);
	if (err)
		return quic_test_fail(t, "parse %d", err);
	if (h.long_header || h.type != QUIC_PACKET_1RTT || h.dcid_len ||
	    h.pn_offset != 1 || h.pkt_len != 21 ||
	    quic_packet_pn_len(h.first) != 3 || quic_packet_key_phase(h.first))
		return quic_test_fail(t, "fields");
	if (quic_pn_decode(654360563, 0x00bff4, 24) != 654360564)
		return quic_test_fail(t, "pn");
	err = quic_packet_build_short(dgram2, 4, &b, 3, 654360564);
	if (err != 4 || memcmp(dgram2, hdr, 4))
		return quic_test_fail(t, "build %d", err);
	return 0;
}

static int test_pn_decode(struct quic_test *t)
{
	static const struct {
		u64 largest, truncated, expect;
		u32 nbits;
	} v[] = {
		/* RFC 9000 A.3 */
		{ 0xa82f30ea, 0x9b32, 0xa82f9b32, 16 },
		/* nothing received yet */
		{ QUIC_PN_NONE, 0, 0, 8 },
		{ QUIC_PN_NONE, 0xff, 0xff, 8 },
		{ QUIC_PN_NONE, 0x1234, 0x1234, 16 },
		/* near 0: never below zero */
		{ 0x10, 0xf0, 0xf0, 8 },
		{ 0, 0xff, 0xff, 8 },
		/* wrap of the window up and down */
		{ 0xff, 0x01, 0x101, 8 },
		{ 0x101, 0xff, 0xff, 8 },
		{ 0x1fe, 0x7f, 0x27f, 8 },
		{ 0xffffffff, 0x00, 0x100000000ULL, 8 },
		{ 0x100000000ULL, 0xffffffff, 0xffffffff, 32 },
		/* near 2^62: never above 2^62 - 1 */
		{ QUIC_PN_MAX - 1, 0xff, QUIC_PN_MAX, 8 },
		{ QUIC_PN_MAX - 1, 0x00, QUIC_PN_MAX - 0xff, 8 },
		{ QUIC_PN_MAX - 0x10, 0x00, QUIC_PN_MAX - 0xff, 8 },
		{ QUIC_PN_MAX - 1, 0x0000, QUIC_PN_MAX - 0xffff, 16 },
	};
	u32 i;
	u64 r;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		r = quic_pn_decode(v[i].largest, v[i].truncated, v[i].nbits);
		if (r != v[i].expect)
			return quic_test_fail(t, "#%u: %llx, want %llx", i, r,
					      v[i].expect);
	}
	return 0;
}

static int test_pn_encode_len(struct quic_test *t)
{
	static const struct {
		u64 pn, acked;
		u32 expect;
	} v[] = {
		/* RFC 9000 A.2 */
		{ 0xac5c02, 0xabe8b3, 2 },
		{ 0xace8fe, 0xabe8b3, 3 },
		/* nothing acknowledged: full_pn + 1 in flight */
		{ 0, QUIC_PN_NONE, 1 },
		{ 127, QUIC_PN_NONE, 1 },
		{ 128, QUIC_PN_NONE, 2 },
		{ 10, 9, 1 },
		{ 0x80 + 9, 9, 1 },
		{ 0x81 + 9, 9, 2 },
		{ 0x8000 + 9, 9, 2 },
		{ 0x8001 + 9, 9, 3 },
		{ 0x800000 + 9, 9, 3 },
		{ 0x800001 + 9, 9, 4 },
		{ QUIC_PN_MAX, 0, 4 },
	};
	u64 pn, acked, largest, trunc;
	u32 i, n;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		n = quic_pn_encode_len(v[i].pn, v[i].acked);
		if (n != v[i].expect)
			return quic_test_fail(t, "#%u: %u, want %u", i, n,
					      v[i].expect);
	}
	/* Whatever the receiver's largest packet number between the largest
	 * acknowledged and the one sent, the encoding decodes back.
	 */
	for (i = 0; i < 10000; i++) {
		acked = get_random_u64() & ((1ULL << (1 + i % 61)) - 1);
		pn = acked + 1 + (get_random_u32() & ((1U << (1 + i % 31)) - 1));
		n = quic_pn_encode_len(pn, acked);
		largest = acked + get_random_u32() % (u32)(pn - acked);
		trunc = pn & ((1ULL << (8 * n)) - 1);
		if (quic_pn_decode(largest, trunc, 8 * n) != pn)
			return quic_test_fail(t, "pn %llx acked %llx largest %llx",
					      pn, acked, largest);
	}
	return 0;
}

static const u8 some_cid[QUIC_CID_MAX_LEN] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20
};

static const u8 some_token[100] = { 0xaa, 0xbb, 0xcc };

static int test_roundtrip_long(struct quic_test *t)
{
	static const u8 types[] = { QUIC_PACKET_INITIAL, QUIC_PACKET_0RTT,
				    QUIC_PACKET_HANDSHAKE };
	static const u8 cid_lens[] = { 0, 1, 8, 20 };
	static const u32 token_lens[] = { 0, 5, 100 };
	static const u32 payload_lens[] = { 0, 30, 1000 };
	struct quic_pkt_hdr b = {}, h;
	u32 i, vi, ti, ci, ki, pl, pn_len, pkt;
	u64 pn = 0x12345678;
	int hlen, err;

	/* Every combination of the choices above, one index each. */
	for (i = 0; i < 2 * 3 * 4 * 3 * 3 * 4; i++) {
		vi = i % 2;
		ti = i / 2 % 3;
		ci = i / 6 % 4;
		ki = i / 24 % 3;
		pl = i / 72 % 3;
		pn_len = i / 216 + 1;
		if (types[ti] != QUIC_PACKET_INITIAL && ki)
			continue;
		b.version = both_versions[vi];
		b.type = types[ti];
		b.dcid = some_cid;
		b.dcid_len = cid_lens[ci];
		b.scid = some_cid + 20 - cid_lens[3 - ci];
		b.scid_len = cid_lens[3 - ci];
		b.token = some_token;
		b.token_len = token_lens[ki];
		hlen = quic_packet_build_long(dgram, DGRAM_MAX, &b, pn_len, pn,
					      payload_lens[pl]);
		if (hlen < 0)
			return quic_test_fail(t, "build %d", hlen);
		pkt = hlen + payload_lens[pl] + QUIC_PACKET_TAG_LEN;
		memset(dgram + hlen, 0x5a, pkt - hlen);
		/* A second packet behind it must not change the parse. */
		memset(dgram + pkt, 0xc3, 7);
		err = quic_packet_parse_header(dgram, pkt + 7, 0, 0, &h);
		if (err)
			return quic_test_fail(t, "parse %d", err);
		err = check_inside(t, dgram, pkt + 7, &h);
		if (err)
			return err;
		if (h.version != b.version || h.type != b.type ||
		    !bytes_eq(h.dcid, h.dcid_len, b.dcid, b.dcid_len) ||
		    !bytes_eq(h.scid, h.scid_len, b.scid, b.scid_len) ||
		    !bytes_eq(h.token, h.token_len, b.token, b.token_len) ||
		    h.pkt_len != pkt || h.pn_offset != hlen - pn_len ||
		    quic_packet_pn_len(h.first) != pn_len ||
		    quic_packet_reserved_bits(h.first) ||
		    h.length != pn_len + payload_lens[pl] + QUIC_PACKET_TAG_LEN)
			return quic_test_fail(t, "v%u type %u cid %u token %u pn_len %u",
					      vi + 1, b.type, b.dcid_len,
					      b.token_len, pn_len);
		if (quic_pn_decode(pn - 1, read_pn(dgram + h.pn_offset, pn_len),
				   8 * pn_len) != pn)
			return quic_test_fail(t, "pn back, pn_len %u", pn_len);
	}
	return 0;
}

static int test_roundtrip_short(struct quic_test *t)
{
	struct quic_pkt_hdr b = {}, h;
	u32 i, cid_len, pn_len, bits;
	int hlen, err;

	for (i = 0; i < (QUIC_CID_MAX_LEN + 1) * 4 * 4; i++) {
		cid_len = i / 16;
		pn_len = i / 4 % 4 + 1;
		bits = i % 4;
		b.dcid = some_cid;
		b.dcid_len = cid_len;
		b.spin = bits & 1;
		b.key_phase = bits & 2;
		hlen = quic_packet_build_short(dgram, DGRAM_MAX, &b, pn_len,
					       0xa1b2c3d4);
		if (hlen != 1 + cid_len + pn_len)
			return quic_test_fail(t, "build %d", hlen);
		memset(dgram + hlen, 0, 20);
		err = quic_packet_parse_header(dgram, hlen + 20, cid_len, 0, &h);
		if (err)
			return quic_test_fail(t, "parse %d", err);
		if (h.type != QUIC_PACKET_1RTT || h.long_header ||
		    !bytes_eq(h.dcid, h.dcid_len, some_cid, cid_len) ||
		    h.pn_offset != 1 + cid_len || h.pkt_len != hlen + 20 ||
		    quic_packet_pn_len(h.first) != pn_len ||
		    quic_packet_key_phase(h.first) != b.key_phase ||
		    !!(h.first & 0x20) != b.spin ||
		    quic_packet_reserved_bits(h.first))
			return quic_test_fail(t, "cid %u pn_len %u bits %u",
					      cid_len, pn_len, bits);
		if (quic_pn_decode(0xa1b2c3d0, read_pn(dgram + h.pn_offset, pn_len),
				   8 * pn_len) != 0xa1b2c3d4)
			return quic_test_fail(t, "pn back, pn_len %u", pn_len);
	}
	return 0;
}

/* An unknown version with long CIDs, answered by Version Negotiation. */
static int test_version_negotiation(struct quic_test *t)
{
	static const u32 ours[] = { QUIC_VERSION_V1, QUIC_VERSION_V2 };
	struct quic_pkt_hdr rcvd, h;
	u8 *p = dgram;
	u32 i, len;
	int err;

	*p++ = 0xc0;
	put_unaligned_be32(0x57414954, p);	/* a version we do not know */
	p += 4;
	*p++ = 21;
	memset(p, 0x11, 21);
	p += 21;
	*p++ = 255;
	memset(p, 0x22, 255);
	p += 255;
	memset(p, 0, 1200 - (p - dgram));
	err = quic_packet_parse_header(dgram, 1200, 8, 0, &rcvd);
	if (err != -EPROTONOSUPPORT)
		return quic_test_fail(t, "parse unknown %d", err);
	if (rcvd.version != 0x57414954 || rcvd.type != QUIC_PACKET_UNSUPPORTED ||
	    rcvd.dcid_len != 21 || rcvd.dcid != dgram + 6 ||
	    rcvd.scid_len != 255 || rcvd.scid != dgram + 28 ||
	    rcvd.pkt_len != 1200)
		return quic_test_fail(t, "unknown fields");

	err = quic_packet_build_vn(dgram2, DGRAM_MAX, &rcvd, ours, 2, 0x5a5a7f);
	len = 1 + 4 + 1 + 255 + 1 + 21 + 3 * 4;
	if (err != len)
		return quic_test_fail(t, "build %d", err);
	if (quic_packet_build_vn(dgram2, len - 1, &rcvd, ours, 2, 0) != -ENOBUFS)
		return quic_test_fail(t, "room");
	if (dgram2[0] != (0xc0 | 0x3f))
		return quic_test_fail(t, "first byte %02x", dgram2[0]);
	err = quic_packet_parse_header(dgram2, len, 8, 0, &h);
	if (err)
		return quic_test_fail(t, "parse vn %d", err);
	err = check_inside(t, dgram2, len, &h);
	if (err)
		return err;
	if (h.type != QUIC_PACKET_VERSION_NEGOTIATION || h.version ||
	    !bytes_eq(h.dcid, h.dcid_len, rcvd.scid, rcvd.scid_len) ||
	    !bytes_eq(h.scid, h.scid_len, rcvd.dcid, rcvd.dcid_len) ||
	    h.num_versions != 3)
		return quic_test_fail(t, "vn fields");
	for (i = 0; i < 2; i++)
		if (get_unaligned_be32(h.versions + 4 * i) != ours[i])
			return quic_test_fail(t, "version %u", i);
	if (get_unaligned_be32(h.versions + 8) != quic_version_grease(0x5a5a) ||
	    !quic_version_is_reserved(quic_version_grease(0x5a5a)))
		return quic_test_fail(t, "grease");

	/* The fixed bit of Version Negotiation is not checked. */
	dgram2[0] = 0x80;
	if (quic_packet_parse_header(dgram2, len, 8, 0, &h))
		return quic_test_fail(t, "vn without 0x40");
	/* A list that is not made of 4-byte versions. */
	if (quic_packet_parse_header(dgram2, len - 1, 8, 0, &h) != -EBADMSG)
		return quic_test_fail(t, "odd list");
	return 0;
}

static int test_versions(struct quic_test *t)
{
	u32 i, v;

	if (!quic_version_supported(QUIC_VERSION_V1) ||
	    !quic_version_supported(QUIC_VERSION_V2) ||
	    quic_version_supported(0) || quic_version_supported(0xff00001d))
		return quic_test_fail(t, "supported");
	if (!quic_version_is_negotiation(0) || quic_version_is_negotiation(1))
		return quic_test_fail(t, "negotiation");
	if (!quic_version_is_reserved(0x0a0a0a0a) ||
	    !quic_version_is_reserved(0x1a2a3a4a) ||
	    !quic_version_is_reserved(0xfafafafa) ||
	    quic_version_is_reserved(QUIC_VERSION_V1) ||
	    quic_version_is_reserved(QUIC_VERSION_V2) ||
	    quic_version_is_reserved(0x0a0a0a0b))
		return quic_test_fail(t, "reserved");
	if (quic_version_grease(0x1234) != 0x1a2a3a4a)
		return quic_test_fail(t, "grease %08x", quic_version_grease(0x1234));
	for (i = 0; i < 0x10000; i += 0x111) {
		v = quic_version_grease(i);
		if (!quic_version_is_reserved(v) || quic_version_supported(v))
			return quic_test_fail(t, "grease %08x", v);
	}
	return 0;
}

/* Sample packets of every kind, for the truncation and fuzz cases. */
enum { S_INITIAL, S_0RTT, S_HANDSHAKE, S_RETRY, S_SHORT, S_VN, S_NUM };

static int build_sample(u8 *buf, u32 kind, u32 version, u32 *hdr_len)
{
	static const u32 vn[] = { QUIC_VERSION_V1 };
	struct quic_pkt_hdr b = {};
	int n;

	b.version = version;
	b.dcid = some_cid;
	b.dcid_len = 8;
	b.scid = some_cid + 8;
	b.scid_len = 5;
	b.token = some_token;
	switch (kind) {
	case S_INITIAL:
	case S_0RTT:
	case S_HANDSHAKE:
		b.type = kind == S_INITIAL ? QUIC_PACKET_INITIAL :
			 kind == S_0RTT ? QUIC_PACKET_0RTT :
			 QUIC_PACKET_HANDSHAKE;
		b.token_len = kind == S_INITIAL ? 70 : 0;
		n = quic_packet_build_long(buf, DGRAM_MAX, &b, 2, 7, 100);
		if (n < 0)
			return n;
		*hdr_len = n - 2;	/* up to the packet number */
		memset(buf + n, 0x33, 100 + QUIC_PACKET_TAG_LEN);
		return n + 100 + QUIC_PACKET_TAG_LEN;
	case S_RETRY:
		b.token_len = 40;
		n = quic_packet_build_retry(buf, DGRAM_MAX, &b, 0);
		if (n < 0)
			return n;
		*hdr_len = n - 40;
		memset(buf + n, 0x44, QUIC_RETRY_TAG_LEN);
		return n + QUIC_RETRY_TAG_LEN;
	case S_SHORT:
		n = quic_packet_build_short(buf, DGRAM_MAX, &b, 2, 7);
		if (n < 0)
			return n;
		*hdr_len = n - 2;
		memset(buf + n, 0x55, 40);
		return n + 40;
	default:
		/* the received header: its SCID and DCID get swapped */
		n = quic_packet_build_vn(buf, DGRAM_MAX, &b, vn, 1, 0);
		*hdr_len = n - 8;
		return n;
	}
}

/* Every prefix of every header kind fails with the expected error. */
static int test_truncation(struct quic_test *t)
{
	struct quic_pkt_hdr h;
	u32 i, vi, kind, cut, hdr_len, want_ok;
	int full, err, want;
	u8 *copy;

	for (i = 0; i < 2 * S_NUM; i++) {
		vi = i % 2;
		kind = i / 2;
		full = build_sample(dgram, kind, both_versions[vi], &hdr_len);
		if (full < 0)
			return quic_test_fail(t, "build kind %u: %d", kind, full);
		/* Retry and Version Negotiation run to the datagram's end. */
		want_ok = kind == S_RETRY ? hdr_len + QUIC_RETRY_TAG_LEN + 1 :
			  kind == S_VN ? hdr_len : full;
		for (cut = 0; cut <= full; cut++) {
			err = parse_copy(dgram, cut, 8, 0, &h, &copy);
			if (err == -ENOMEM)
				return err;
			if (!err)
				err = check_inside(t, copy, cut, &h);
			kfree(copy);
			if (kind == S_SHORT)
				want = cut <= hdr_len ? -ENODATA : 0;
			else if (kind == S_RETRY)
				want = cut < hdr_len + QUIC_RETRY_TAG_LEN ?
				       -ENODATA : cut < want_ok ? -EBADMSG : 0;
			else if (kind == S_VN)
				want = cut < hdr_len ? -ENODATA :
				       (cut - hdr_len) % 4 ? -EBADMSG : 0;
			else
				want = cut < hdr_len ? -ENODATA :
				       cut < full ? -EMSGSIZE : 0;
			if (err != want)
				return quic_test_fail(t, "v%u kind %u cut %u/%d: %d want %d",
						      vi + 1, kind, cut, full,
						      err, want);
		}
	}
	return 0;
}

static int test_bad_cid_len(struct quic_test *t)
{
	struct quic_pkt_hdr h, b = {};
	u32 hdr_len, vi;
	int full;

	for (vi = 0; vi < ARRAY_SIZE(both_versions); vi++) {
		full = build_sample(dgram, S_HANDSHAKE, both_versions[vi], &hdr_len);
		/* DCID length byte at 5, SCID length byte at 6 + 8 */
		dgram[5] = 21;
		if (quic_packet_parse_header(dgram, full, 8, 0, &h) != -EINVAL)
			return quic_test_fail(t, "dcid 21");
		build_sample(dgram, S_HANDSHAKE, both_versions[vi], &hdr_len);
		dgram[14] = 21;
		if (quic_packet_parse_header(dgram, full, 8, 0, &h) != -EINVAL)
			return quic_test_fail(t, "scid 21");
		/* Even when the buffer ends right after the length byte. */
		if (quic_packet_parse_header(dgram, 15, 8, 0, &h) != -EINVAL)
			return quic_test_fail(t, "scid 21 truncated");
	}
	build_sample(dgram, S_SHORT, QUIC_VERSION_V1, &hdr_len);
	if (quic_packet_parse_header(dgram, 100, 21, 0, &h) != -EINVAL)
		return quic_test_fail(t, "short dcid 21");

	/* Builders refuse CIDs longer than v1 and v2 allow. */
	b.version = QUIC_VERSION_V1;
	b.dcid = dgram;
	b.dcid_len = 21;
	if (quic_packet_build_long(dgram2, DGRAM_MAX, &b, 1, 0, 0) != -EINVAL ||
	    quic_packet_build_short(dgram2, DGRAM_MAX, &b, 1, 0) != -EINVAL)
		return quic_test_fail(t, "build dcid 21");
	return 0;
}

static int test_bad_length(struct quic_test *t)
{
	struct quic_pkt_hdr h;
	u32 hdr_len;
	int full;

	full = build_sample(dgram, S_HANDSHAKE, QUIC_VERSION_V1, &hdr_len);
	/* The Length field is the two bytes before hdr_len. */
	if (get_unaligned_be16(dgram + hdr_len - 2) != (0x4000 | (full - hdr_len)))
		return quic_test_fail(t, "sample layout");
	put_unaligned_be16(0x4000 | (full - hdr_len + 1), dgram + hdr_len - 2);
	if (quic_packet_parse_header(dgram, full, 8, 0, &h) != -EMSGSIZE)
		return quic_test_fail(t, "length + 1");
	put_unaligned_be16(0x7fff, dgram + hdr_len - 2);
	if (quic_packet_parse_header(dgram, full, 8, 0, &h) != -EMSGSIZE)
		return quic_test_fail(t, "length max");
	put_unaligned_be16(0x4000, dgram + hdr_len - 2);
	if (quic_packet_parse_header(dgram, full, 8, 0, &h) != -EBADMSG)
		return quic_test_fail(t, "length 0");
	put_unaligned_be16(0x4001, dgram + hdr_len - 2);
	if (quic_packet_parse_header(dgram, full, 8, 0, &h) ||
	    h.pkt_len != hdr_len + 1)
		return quic_test_fail(t, "length 1");

	/* A token longer than the datagram. */
	full = build_sample(dgram, S_INITIAL, QUIC_VERSION_V1, &hdr_len);
	dgram[6 + 8 + 1 + 5] = 0x40 | (full >> 8);
	dgram[6 + 8 + 1 + 5 + 1] = full & 0xff;
	if (quic_packet_parse_header(dgram, full, 8, 0, &h) != -ENODATA)
		return quic_test_fail(t, "token length");
	return 0;
}

static int test_fixed_bit(struct quic_test *t)
{
	struct quic_pkt_hdr h;
	u32 hdr_len, kind;
	int full;

	for (kind = 0; kind < S_NUM; kind++) {
		full = build_sample(dgram, kind, QUIC_VERSION_V2, &hdr_len);
		dgram[0] &= ~0x40;
		if (kind == S_VN) {
			if (quic_packet_parse_header(dgram, full, 8, 0, &h))
				return quic_test_fail(t, "vn");
			continue;
		}
		if (quic_packet_parse_header(dgram, full, 8, 0, &h) != -EPROTO)
			return quic_test_fail(t, "kind %u without grease", kind);
		if (quic_packet_parse_header(dgram, full, 8,
					     QUIC_PACKET_PARSE_GREASE_BIT, &h) ||
		    !h.fixed_bit_clear)
			return quic_test_fail(t, "kind %u with grease", kind);
	}
	return 0;
}

/* Build and parse errors that are the caller's mistakes. */
static int test_build_errors(struct quic_test *t)
{
	struct quic_pkt_hdr b = {}, h;
	int n;

	b.version = QUIC_VERSION_V1;
	b.type = QUIC_PACKET_HANDSHAKE;
	b.dcid = some_cid;
	b.dcid_len = 8;
	if (quic_packet_build_long(dgram, DGRAM_MAX, &b, 0, 0, 10) != -EINVAL ||
	    quic_packet_build_long(dgram, DGRAM_MAX, &b, 5, 0, 10) != -EINVAL ||
	    quic_packet_build_short(dgram, DGRAM_MAX, &b, 0, 0) != -EINVAL ||
	    quic_packet_build_short(dgram, DGRAM_MAX, &b, 5, 0) != -EINVAL)
		return quic_test_fail(t, "pn_len");
	b.token = some_token;
	b.token_len = 1;
	if (quic_packet_build_long(dgram, DGRAM_MAX, &b, 1, 0, 10) != -EINVAL)
		return quic_test_fail(t, "token on handshake");
	if (quic_packet_build_retry(dgram, DGRAM_MAX, &b, 0) < 0)
		return quic_test_fail(t, "retry");
	b.token_len = 0;
	if (quic_packet_build_retry(dgram, DGRAM_MAX, &b, 0) != -EINVAL)
		return quic_test_fail(t, "retry without token");
	b.type = QUIC_PACKET_RETRY;
	if (quic_packet_build_long(dgram, DGRAM_MAX, &b, 1, 0, 10) != -EINVAL)
		return quic_test_fail(t, "retry via build_long");
	b.type = QUIC_PACKET_HANDSHAKE;
	b.version = 0x1a2a3a4a;
	if (quic_packet_build_long(dgram, DGRAM_MAX, &b, 1, 0, 10) != -EINVAL)
		return quic_test_fail(t, "unknown version");
	b.version = QUIC_VERSION_V1;
	/* 1 + 4 + 9 + 1 + Length(1) + pn 1, then 10 + 16 */
	n = 17 + 10 + QUIC_PACKET_TAG_LEN;
	if (quic_packet_build_long(dgram, n - 1, &b, 1, 0, 10) != -ENOBUFS ||
	    quic_packet_build_long(dgram, n, &b, 1, 0, 10) != 17)
		return quic_test_fail(t, "room");
	if (quic_packet_build_short(dgram, 9, &b, 1, 0) != -ENOBUFS ||
	    quic_packet_build_short(dgram, 10, &b, 1, 0) != 10)
		return quic_test_fail(t, "short room");
	/* Greased fixed bit on request only. */
	b.fixed_bit_clear = true;
	quic_packet_build_long(dgram, DGRAM_MAX, &b, 1, 0, 10);
	if (dgram[0] & 0x40 || quic_packet_parse_header(dgram, n, 0, 0, &h) !=
	    -EPROTO)
		return quic_test_fail(t, "greased long");
	quic_packet_build_short(dgram, DGRAM_MAX, &b, 1, 0);
	if (dgram[0] & 0x40)
		return quic_test_fail(t, "greased short");
	if (quic_packet_parse_header(dgram, 0, 0, 0, &h) != -ENODATA)
		return quic_test_fail(t, "empty");
	return 0;
}

static int test_coalesced(struct quic_test *t)
{
	static const u8 want[] = { QUIC_PACKET_INITIAL, QUIC_PACKET_HANDSHAKE,
				   QUIC_PACKET_1RTT };
	struct quic_packet_iter it;
	struct quic_pkt_hdr h;
	u32 hdr_len, len = 0, pos[3], i;
	int n, ret;

	n = build_sample(dgram, S_INITIAL, QUIC_VERSION_V1, &hdr_len);
	pos[0] = 0;
	len += n;
	pos[1] = len;
	n = build_sample(dgram + len, S_HANDSHAKE, QUIC_VERSION_V1, &hdr_len);
	len += n;
	pos[2] = len;
	n = build_sample(dgram + len, S_SHORT, QUIC_VERSION_V1, &hdr_len);
	len += n;

	quic_packet_iter_init(&it, dgram, len, 8, 0);
	for (i = 0; (ret = quic_packet_next(&it, &h)) > 0; i++) {
		if (i >= 3 || h.type != want[i] || it.pos != pos[i])
			return quic_test_fail(t, "packet %u type %u at %u", i,
					      h.type, it.pos);
		if (i < 2 && h.pkt_len != h.pn_offset + h.length)
			return quic_test_fail(t, "packet %u length", i);
	}
	if (ret || i != 3)
		return quic_test_fail(t, "end %d after %u", ret, i);
	if (quic_packet_next(&it, &h))
		return quic_test_fail(t, "after the end");

	/* A DCID that differs from the first packet's stops the walk. */
	dgram[pos[1] + 6] ^= 1;
	quic_packet_iter_init(&it, dgram, len, 8, 0);
	if (quic_packet_next(&it, &h) != 1 || quic_packet_next(&it, &h) != -EXDEV ||
	    it.pos != pos[1] || quic_packet_next(&it, &h))
		return quic_test_fail(t, "dcid change");
	dgram[pos[1] + 6] ^= 1;

	/* Zero padding after the packets is a packet without fixed bit. */
	memset(dgram + pos[2], 0, 30);
	quic_packet_iter_init(&it, dgram, pos[2] + 30, 8, 0);
	if (quic_packet_next(&it, &h) != 1 || quic_packet_next(&it, &h) != 1 ||
	    quic_packet_next(&it, &h) != -EPROTO)
		return quic_test_fail(t, "padding");

	/* A Length past the datagram in the second packet. */
	quic_packet_iter_init(&it, dgram, pos[2] - 1, 8, 0);
	if (quic_packet_next(&it, &h) != 1 ||
	    quic_packet_next(&it, &h) != -EMSGSIZE)
		return quic_test_fail(t, "second packet cut");
	return 0;
}

static int test_stateless_reset(struct quic_test *t)
{
	static const u8 token[QUIC_RESET_TOKEN_LEN] = {
		0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
	};
	const u8 *found;
	u8 rnd[64];
	u32 len;

	memset(rnd, 0xff, sizeof(rnd));
	if (quic_packet_build_stateless_reset(dgram, 20, rnd, token) != -EINVAL)
		return quic_test_fail(t, "20 bytes");
	for (len = QUIC_RESET_MIN_LEN; len <= 60; len += 39) {
		if (quic_packet_build_stateless_reset(dgram, len, rnd, token) !=
		    len)
			return quic_test_fail(t, "build %u", len);
		if ((dgram[0] & 0xc0) != 0x40 || dgram[1] != 0xff ||
		    memcmp(dgram + len - 16, token, 16))
			return quic_test_fail(t, "layout %u", len);
		found = NULL;
		if (!quic_packet_is_stateless_reset_candidate(dgram, len, &found) ||
		    found != dgram + len - 16)
			return quic_test_fail(t, "candidate %u", len);
	}
	/* In place: the random bytes already in the buffer. */
	memset(dgram, 0x0f, 40);
	quic_packet_build_stateless_reset(dgram, 40, dgram, token);
	if (dgram[0] != 0x4f || dgram[23] != 0x0f)
		return quic_test_fail(t, "in place");
	if (quic_packet_is_stateless_reset_candidate(dgram, 20, &found))
		return quic_test_fail(t, "too short");
	dgram[0] = 0xc0;
	if (quic_packet_is_stateless_reset_candidate(dgram, 40, &found))
		return quic_test_fail(t, "long header");
	dgram[0] = 0x00;	/* greased fixed bit */
	if (!quic_packet_is_stateless_reset_candidate(dgram, 40, &found))
		return quic_test_fail(t, "greased");
	return 0;
}

static u32 fuzz_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s >> 32;
}

/* Random and mutated datagrams: parse and walk them from a copy of the
 * exact length; every successful parse stays inside the buffer and every
 * walk ends.
 */
static int test_fuzz(struct quic_test *t)
{
	struct quic_packet_iter it;
	struct quic_pkt_hdr h;
	u64 seed = 0x9e3779b97f4a7c15ULL;
	u32 iter, len, i, hdr_len, steps, flags;
	u8 *copy;
	int err, full;

	for (iter = 0; iter < 20000; iter++) {
		if (iter % 2) {
			len = fuzz_rand(&seed) % (iter % 16 ? 80 : DGRAM_MAX);
			for (i = 0; i < len; i++)
				dgram[i] = fuzz_rand(&seed);
		} else {
			full = build_sample(dgram, fuzz_rand(&seed) % S_NUM,
					    both_versions[fuzz_rand(&seed) % 2],
					    &hdr_len);
			if (full < 0)
				return quic_test_fail(t, "sample %d", full);
			len = full;
			for (i = fuzz_rand(&seed) % 4; i > 0; i--)
				dgram[fuzz_rand(&seed) % 40] = fuzz_rand(&seed);
			if (fuzz_rand(&seed) % 2)
				dgram[1] = 0;	/* version byte: unknown */
			len = fuzz_rand(&seed) % 2 ? len : fuzz_rand(&seed) % len;
		}
		flags = iter % 3 ? 0 : QUIC_PACKET_PARSE_GREASE_BIT;
		err = parse_copy(dgram, len, iter % 21, flags, &h, &copy);
		if (err == -ENOMEM)
			return err;
		if (!err)
			err = check_inside(t, copy, len, &h);
		else if (err != -ENODATA && err != -EMSGSIZE && err != -EINVAL &&
			 err != -EPROTO && err != -EBADMSG &&
			 err != -EPROTONOSUPPORT)
			err = quic_test_fail(t, "errno %d", err);
		else
			err = 0;
		if (!err) {
			quic_packet_iter_init(&it, copy, len, iter % 21, flags);
			steps = 0;
			while (quic_packet_next(&it, &h) > 0) {
				if (++steps > len ||
				    check_inside(t, copy + it.pos, len - it.pos,
						 &h)) {
					err = quic_test_fail(t, "walk");
					break;
				}
			}
		}
		kfree(copy);
		if (err)
			return quic_test_fail(t, "iteration %u len %u", iter, len);
	}
	return 0;
}

static const struct quic_test_case quic_packet_cases[] = {
	QUIC_TEST_CASE(test_rfc9001_client_initial),
	QUIC_TEST_CASE(test_rfc9001_server_initial),
	QUIC_TEST_CASE(test_rfc9369_v2_initial),
	QUIC_TEST_CASE(test_rfc_retry),
	QUIC_TEST_CASE(test_rfc9001_short),
	QUIC_TEST_CASE(test_pn_decode),
	QUIC_TEST_CASE(test_pn_encode_len),
	QUIC_TEST_CASE(test_roundtrip_long),
	QUIC_TEST_CASE(test_roundtrip_short),
	QUIC_TEST_CASE(test_version_negotiation),
	QUIC_TEST_CASE(test_versions),
	QUIC_TEST_CASE(test_truncation),
	QUIC_TEST_CASE(test_bad_cid_len),
	QUIC_TEST_CASE(test_bad_length),
	QUIC_TEST_CASE(test_fixed_bit),
	QUIC_TEST_CASE(test_build_errors),
	QUIC_TEST_CASE(test_coalesced),
	QUIC_TEST_CASE(test_stateless_reset),
	QUIC_TEST_CASE(test_fuzz),
};

const struct quic_test_suite quic_packet_suite = {
	.name = "quic_packet",
	.cases = quic_packet_cases,
	.num_cases = ARRAY_SIZE(quic_packet_cases),
};
