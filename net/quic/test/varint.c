// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/varint.h: encoded sizes at every boundary,
 * the RFC 9000 Appendix A.1 examples, round trips, and truncated input.
 */

#include <linux/kernel.h>
#include <linux/string.h>
#include "../varint.h"

#include "test.h"

static const struct {
	u64 v;
	u32 len;
} varint_bounds[] = {
	{ 0, 1 },
	{ 63, 1 },
	{ 64, 2 },
	{ 16383, 2 },
	{ 16384, 4 },
	{ (1ULL << 30) - 1, 4 },
	{ 1ULL << 30, 8 },
	{ QUIC_VARINT_MAX, 8 },
	{ QUIC_VARINT_MAX + 1, 0 },
	{ U64_MAX, 0 },
};

static int varint_len_boundaries(struct quic_test *t)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(varint_bounds); i++)
		if (quic_varint_len(varint_bounds[i].v) != varint_bounds[i].len)
			return quic_test_fail(t, "len(%llu) = %u, want %u",
					      varint_bounds[i].v,
					      quic_varint_len(varint_bounds[i].v),
					      varint_bounds[i].len);
	return 0;
}

static int varint_round_trip(struct quic_test *t)
{
	u8 buf[QUIC_VARINT_MAX_LEN + 1];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(varint_bounds); i++) {
		u64 v = varint_bounds[i].v, got;
		u32 n = varint_bounds[i].len, left;
		const u8 *p = buf;

		if (!n)
			continue;
		memset(buf, 0xee, sizeof(buf));
		if (quic_varint_put(buf, v) != buf + n)
			return quic_test_fail(t, "put(%llu) size", v);
		if (buf[n] != 0xee)
			return quic_test_fail(t, "put(%llu) overran", v);
		left = sizeof(buf);
		if (!quic_varint_get(&p, &left, &got) || got != v ||
		    p != buf + n || left != sizeof(buf) - n)
			return quic_test_fail(t, "get(put(%llu))", v);
	}
	return 0;
}

/* Every value in every larger encoding reads back the same. */
static int varint_put_len(struct quic_test *t)
{
	static const u32 sizes[] = { 1, 2, 4, 8 };
	u8 buf[QUIC_VARINT_MAX_LEN];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(varint_bounds); i++) {
		u64 v = varint_bounds[i].v, got;

		if (!varint_bounds[i].len)
			continue;
		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			const u8 *p = buf;
			u32 left = sizes[j];

			if (sizes[j] < varint_bounds[i].len)
				continue;
			if (quic_varint_put_len(buf, v, sizes[j]) != buf + sizes[j])
				return quic_test_fail(t, "put_len size");
			if (!quic_varint_get(&p, &left, &got) || got != v || left)
				return quic_test_fail(t, "%llu in %u bytes", v,
						      sizes[j]);
		}
	}
	return 0;
}

static const struct {
	u8 bytes[8];
	u32 len;
	u64 v;
} varint_rfc[] = {
	{ { 0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c }, 8,
	  151288809941952652ULL },
	{ { 0x9d, 0x7f, 0x3e, 0x7d }, 4, 494878333 },
	{ { 0x7b, 0xbd }, 2, 15293 },
	{ { 0x25 }, 1, 37 },
	{ { 0x40, 0x25 }, 2, 37 },
};

/* RFC 9000 Appendix A.1, including the non-minimal 0x4025. */
static int varint_rfc_examples(struct quic_test *t)
{
	u8 buf[QUIC_VARINT_MAX_LEN];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(varint_rfc); i++) {
		const u8 *p = varint_rfc[i].bytes;
		u32 left = varint_rfc[i].len;
		u64 v;

		if (!quic_varint_get(&p, &left, &v) || v != varint_rfc[i].v ||
		    left)
			return quic_test_fail(t, "example %u decodes to %llu", i,
					      v);
		if (varint_rfc[i].len == quic_varint_len(v) &&
		    (quic_varint_put(buf, v) != buf + varint_rfc[i].len ||
		     memcmp(buf, varint_rfc[i].bytes, varint_rfc[i].len)))
			return quic_test_fail(t, "example %u encodes wrong", i);
	}
	return 0;
}

/* Every strict prefix of every encoding fails and leaves the cursor. */
static int varint_truncated(struct quic_test *t)
{
	u8 buf[QUIC_VARINT_MAX_LEN];
	unsigned int i;
	u32 cut;

	for (i = 0; i < ARRAY_SIZE(varint_bounds); i++) {
		u32 n = varint_bounds[i].len;

		if (!n)
			continue;
		quic_varint_put(buf, varint_bounds[i].v);
		for (cut = 0; cut < n; cut++) {
			const u8 *p = buf;
			u32 left = cut;
			u64 v = 12345;

			if (quic_varint_get(&p, &left, &v) || p != buf ||
			    left != cut || v != 12345)
				return quic_test_fail(t, "%u of %u bytes read",
						      cut, n);
		}
	}
	return 0;
}

static int varint_uint(struct quic_test *t)
{
	u8 buf[8];
	u32 size, cut;

	for (size = 1; size <= 8; size++) {
		u64 v = 0x0102030405060708ULL, got, want;
		const u8 *p = buf;
		u32 left = size;

		want = size == 8 ? v : v & ((1ULL << (8 * size)) - 1);
		if (quic_uint_put(buf, v, size) != buf + size)
			return quic_test_fail(t, "uint_put(%u) size", size);
		if (buf[size - 1] != 0x08 || buf[0] != 9 - size)
			return quic_test_fail(t, "uint_put(%u) not big-endian",
					      size);
		if (!quic_uint_get(&p, &left, &got, size) || got != want || left)
			return quic_test_fail(t, "uint_get(%u)", size);
		for (cut = 0; cut < size; cut++) {
			p = buf;
			left = cut;
			if (quic_uint_get(&p, &left, &got, size) || p != buf ||
			    left != cut)
				return quic_test_fail(t, "uint_get(%u) of %u",
						      size, cut);
		}
	}
	return 0;
}

static const struct quic_test_case varint_cases[] = {
	QUIC_TEST_CASE(varint_len_boundaries),
	QUIC_TEST_CASE(varint_round_trip),
	QUIC_TEST_CASE(varint_put_len),
	QUIC_TEST_CASE(varint_rfc_examples),
	QUIC_TEST_CASE(varint_truncated),
	QUIC_TEST_CASE(varint_uint),
};

const struct quic_test_suite quic_varint_suite = {
	.name = "quic_varint",
	.cases = varint_cases,
	.num_cases = ARRAY_SIZE(varint_cases),
};
