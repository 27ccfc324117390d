// SPDX-License-Identifier: GPL-2.0
/*
 * Tests and micro-benchmarks of net/quic/hash.h.
 *
 * Bucket balance.  Every balance case hashes 8 keys per bucket into tables of
 * 2^8, 2^10, ..., 2^16 buckets and bounds two statistics of the loads c_i:
 *
 * - The largest load.  With 8 keys per bucket a bucket's load under ideal
 *   random hashing is close to Poisson(8), and n * P(load >= k) <= 1e-6 for
 *   k = 30 at 2^8 buckets, rising by one every factor of four, to k = 34 at
 *   2^16 (n * P is about 5e-7 each time).  So the limit is
 *   30 + (bits - 8) / 2: an ideal hash trips it about once in two million
 *   tables.  "Three times the mean" (24) would be too tight: the largest of
 *   65536 Poisson(8) loads is typically 22 or 23, and 24 or more in one run
 *   in five.
 *
 * - The dispersion, X = sum (c_i - 8)^2 / 8, which is chi-squared with n - 1
 *   degrees of freedom under ideal hashing (mean n - 1, standard deviation
 *   about sqrt(2n)).  The limit is n + 6 * sqrt(2n), six deviations, about
 *   1e-7 at 2^8 buckets (the distribution is skewed there) and less above.
 *   X is what lookups pay for: the mean chain length seen by a lookup grows
 *   with sum c_i^2.  It catches what the largest load misses, e.g. a hash
 *   that leaves half of the buckets empty (X ~ 9n) or the lattice pattern of
 *   a bare multiplicative hash on counters (X ~ 13n in some table sizes).
 *
 * Counters hashed with the fast hash give the same tables on every run, so
 * those cases pass or fail deterministically.  Random keys, the keyed hash
 * and the 20-byte cases (a counter inside a random key) vary from run to run
 * and fail spuriously only at the tiny rates above.
 */

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#ifdef QUIC_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include "../hash.h"

#include "test.h"

#define BALANCE_MIN_BITS	8
#define BALANCE_MAX_BITS	16
#define BALANCE_LOAD		8	/* keys per bucket */

struct balance_gen {
	u32 (*hash)(const struct balance_gen *g, u32 i);
	const char *name;	/* for the failure message */
	bool low_bits;		/* index with hash & mask, as rhashtable does */
	struct quic_hash_key key;
	u8 base[QUIC_HASH_MAX_KEY_LEN];
};

static u32 balance_max_limit(unsigned int bits)
{
	return 30 + (bits - 8) / 2;
}

static int check_balance(struct quic_test *t, const struct balance_gen *g)
{
	unsigned int bits;

	for (bits = BALANCE_MIN_BITS; bits <= BALANCE_MAX_BITS; bits += 2) {
		u32 n = 1U << bits, keys = n * BALANCE_LOAD, i, h, max = 0;
		u64 sumsq = 0, dev, limit;
		u32 *table;

		table = kvcalloc(n, sizeof(*table), GFP_KERNEL);
		if (!table)
			return -ENOMEM;
		for (i = 0; i < keys; i++) {
			h = g->hash(g, i);
			table[g->low_bits ? h & (n - 1) :
					    quic_hash_bucket(h, bits)]++;
		}
		for (i = 0; i < n; i++) {
			max = max(max, table[i]);
			sumsq += (u64)table[i] * table[i];
		}
		kvfree(table);
		cond_resched();

		if (max >= balance_max_limit(bits))
			return quic_test_fail(t, "%s, 2^%u buckets: max load %u, limit %u",
					      g->name, bits, max,
					      balance_max_limit(bits) - 1);
		/* sum (c_i - mean)^2 = sum c_i^2 - keys * mean */
		dev = sumsq - (u64)keys * BALANCE_LOAD;
		limit = (u64)BALANCE_LOAD * (n + 6 * int_sqrt(2 * n));
		if (dev > limit)
			return quic_test_fail(t, "%s, 2^%u buckets: chi2 %llu, limit %llu",
					      g->name, bits,
					      div_u64(dev, BALANCE_LOAD),
					      div_u64(limit, BALANCE_LOAD));
	}
	return 0;
}

static u32 gen_random_cid(const struct balance_gen *g, u32 i)
{
	u8 cid[8];

	put_unaligned_le64(get_random_u64(), cid);
	return quic_fast_hash_bytes(cid, sizeof(cid));
}

static u32 gen_le_cid(const struct balance_gen *g, u32 i)
{
	u8 cid[8];

	put_unaligned_le64(i, cid);
	return quic_fast_hash_bytes(cid, sizeof(cid));
}

static u32 gen_be_cid(const struct balance_gen *g, u32 i)
{
	u8 cid[8];

	put_unaligned_be64(i, cid);
	return quic_fast_hash_bytes(cid, sizeof(cid));
}

/* A counter across the boundary of the first two 8-byte words. */
static u32 gen_straddle_cid20(const struct balance_gen *g, u32 i)
{
	u8 cid[QUIC_HASH_MAX_KEY_LEN];

	memcpy(cid, g->base, sizeof(cid));
	put_unaligned_le32(i, cid + 7);
	return quic_fast_hash_bytes(cid, sizeof(cid));
}

/* A counter in the last bytes, which the overlapping tail load reads. */
static u32 gen_be_tail_cid20(const struct balance_gen *g, u32 i)
{
	u8 cid[QUIC_HASH_MAX_KEY_LEN];

	memcpy(cid, g->base, sizeof(cid));
	put_unaligned_be64(i, cid + sizeof(cid) - 8);
	return quic_fast_hash_bytes(cid, sizeof(cid));
}

static u32 gen_u64(const struct balance_gen *g, u32 i)
{
	return quic_fast_hash_u64(i);
}

/* Client-initiated unidirectional stream IDs: 4 * n + 2. */
static u32 gen_stream_id(const struct balance_gen *g, u32 i)
{
	return quic_fast_hash_u64(4ULL * i + 2);
}

static u32 gen_u32(const struct balance_gen *g, u32 i)
{
	return quic_fast_hash_u32(i);
}

static u32 gen_keyed_be_cid(const struct balance_gen *g, u32 i)
{
	u8 cid[8];

	put_unaligned_be64(i, cid);
	return quic_keyed_hash(&g->key, cid, sizeof(cid));
}

static u32 gen_keyed_u64(const struct balance_gen *g, u32 i)
{
	return quic_keyed_hash_u64(&g->key, i);
}

static int run_balance(struct quic_test *t, const char *name,
		       u32 (*hash)(const struct balance_gen *g, u32 i),
		       bool low_bits)
{
	struct balance_gen *g;
	int err;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->hash = hash;
	g->name = name;
	g->low_bits = low_bits;
	quic_hash_key_init(&g->key);
	get_random_bytes(g->base, sizeof(g->base));
	err = check_balance(t, g);
	kfree_sensitive(g);
	return err;
}

static int fast_bytes_random_balance(struct quic_test *t)
{
	return run_balance(t, "random", gen_random_cid, false);
}

static int fast_bytes_le_counter_balance(struct quic_test *t)
{
	return run_balance(t, "le counter", gen_le_cid, false);
}

static int fast_bytes_be_counter_balance(struct quic_test *t)
{
	return run_balance(t, "be counter", gen_be_cid, false);
}

static int fast_bytes_20_straddle_balance(struct quic_test *t)
{
	return run_balance(t, "straddle", gen_straddle_cid20, false);
}

static int fast_bytes_20_be_tail_balance(struct quic_test *t)
{
	return run_balance(t, "be tail", gen_be_tail_cid20, false);
}

static int fast_u64_sequential_balance(struct quic_test *t)
{
	return run_balance(t, "u64", gen_u64, false);
}

static int fast_u64_stream_id_balance(struct quic_test *t)
{
	return run_balance(t, "stream id", gen_stream_id, false);
}

static int fast_u32_sequential_balance(struct quic_test *t)
{
	return run_balance(t, "u32", gen_u32, false);
}

/* The low bits are good enough for tables that mask, e.g. rhashtable. */
static int fast_low_bits_balance(struct quic_test *t)
{
	int err;

	err = run_balance(t, "random, low bits", gen_random_cid, true);
	if (!err)
		err = run_balance(t, "le counter, low bits", gen_le_cid, true);
	if (!err)
		err = run_balance(t, "be counter, low bits", gen_be_cid, true);
	if (!err)
		err = run_balance(t, "u64, low bits", gen_u64, true);
	return err;
}

/* Bytes beyond the key must not matter, whatever the key's alignment. */
static int check_key_bounds(struct quic_test *t, unsigned int off,
			    unsigned int len)
{
	u8 buf[QUIC_HASH_MAX_KEY_LEN + 16], other[sizeof(buf)];
	unsigned int i;
	u32 h;

	get_random_bytes(buf, sizeof(buf));
	h = quic_fast_hash_bytes(buf + off, len);
	for (i = 0; i < sizeof(buf); i++)
		if (i < off || i >= off + len)
			buf[i] = ~buf[i];
	if (quic_fast_hash_bytes(buf + off, len) != h)
		return quic_test_fail(t, "len %u at offset %u reads outside the key",
				      len, off);
	memcpy(other + 7 - off, buf + off, len);
	if (quic_fast_hash_bytes(other + 7 - off, len) != h)
		return quic_test_fail(t, "len %u depends on alignment", len);
	return 0;
}

/* A key that ends at the end of a vmalloc() page is followed by the
 * unmapped guard page: a read past its end would oops here rather than
 * fail politely.
 */
static int check_page_end(struct quic_test *t)
{
	u8 buf[QUIC_HASH_MAX_KEY_LEN + 8];
	unsigned int len;
	int err = 0;
	u8 *page;

	page = vmalloc(PAGE_SIZE);
	if (!page)
		return -ENOMEM;
	get_random_bytes(page, PAGE_SIZE);
	for (len = 0; len <= QUIC_HASH_MAX_KEY_LEN && !err; len++) {
		u8 *key = page + PAGE_SIZE - len;

		memcpy(buf + 3, key, len);
		if (quic_fast_hash_bytes(key, len) !=
		    quic_fast_hash_bytes(buf + 3, len))
			err = quic_test_fail(t, "len %u at the end of a page differs",
					     len);
	}
	vfree(page);
	return err;
}

static int fast_bytes_reads_only_len(struct quic_test *t)
{
	unsigned int round, off, len;
	int err;

	for (round = 0; round < 8; round++) {
		for (off = 0; off < 8; off++) {
			for (len = 0; len <= QUIC_HASH_MAX_KEY_LEN; len++) {
				err = check_key_bounds(t, off, len);
				if (err)
					return err;
			}
		}
	}
	return check_page_end(t);
}

/* All lengths 0..QUIC_HASH_MAX_KEY_LEN of one buffer: prefixes differ. */
static int check_prefixes_distinct(struct quic_test *t, const u8 *buf,
				   const char *what)
{
	u32 h[QUIC_HASH_MAX_KEY_LEN + 1];
	unsigned int a, b;

	for (a = 0; a <= QUIC_HASH_MAX_KEY_LEN; a++) {
		h[a] = quic_fast_hash_bytes(buf, a);
		for (b = 0; b < a; b++)
			if (h[a] == h[b])
				return quic_test_fail(t, "%s keys of length %u and %u collide",
						      what, b, a);
	}
	return 0;
}

static int fast_bytes_lengths_distinct(struct quic_test *t)
{
	u8 buf[QUIC_HASH_MAX_KEY_LEN];
	int err;

	memset(buf, 0, sizeof(buf));
	err = check_prefixes_distinct(t, buf, "zero");
	if (err)
		return err;
	memset(buf, 0xff, sizeof(buf));
	err = check_prefixes_distinct(t, buf, "0xff");
	if (err)
		return err;
	get_random_bytes(buf, sizeof(buf));
	return check_prefixes_distinct(t, buf, "random");
}

/* Known answers pin the function, so that user-space builds of hash.h (for
 * fuzzing) and kernels on other architectures and endiannesses agree with
 * this one.  Keys are the bytes 0, 1, 2, ... of the given length.
 */
static const struct {
	u8 len;
	u32 hash;
} fast_hash_kat[] = {
	{ 0, 0x00000000 }, { 1, 0x35f3eb3e }, { 3, 0x2a9b8ba3 },
	{ 4, 0xc8c42026 }, { 5, 0x27c7300f }, { 8, 0x8a885107 },
	{ 9, 0xa8ecd485 }, { 12, 0x0424609c }, { 16, 0x24078f24 },
	{ 20, 0x43842524 },
};

static int fast_hash_known_answers(struct quic_test *t)
{
	u8 buf[QUIC_HASH_MAX_KEY_LEN];
	unsigned int i;
	u32 h;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i;
	for (i = 0; i < ARRAY_SIZE(fast_hash_kat); i++) {
		h = quic_fast_hash_bytes(buf, fast_hash_kat[i].len);
		if (h != fast_hash_kat[i].hash)
			return quic_test_fail(t, "len %u: 0x%08x, want 0x%08x",
					      fast_hash_kat[i].len, h,
					      fast_hash_kat[i].hash);
	}
	h = quic_fast_hash_u64(0x0123456789abcdefULL);
	if (h != 0xd1769772)
		return quic_test_fail(t, "u64: 0x%08x, want 0xd1769772", h);
	h = quic_fast_hash_u32(0xdeadbeef);
	if (h != 0xffb7dc6d)
		return quic_test_fail(t, "u32: 0x%08x, want 0xffb7dc6d", h);

	/* The integer forms hash their little-endian encoding. */
	for (i = 0; i < 1024; i++) {
		u64 v = get_random_u64();

		put_unaligned_le64(v, buf);
		if (quic_fast_hash_u64(v) != quic_fast_hash_bytes(buf, 8))
			return quic_test_fail(t, "u64 %#llx differs from its bytes",
					      v);
		if (quic_fast_hash_u32((u32)v) != quic_fast_hash_bytes(buf, 4))
			return quic_test_fail(t, "u32 %#x differs from its bytes",
					      (u32)v);
	}
	return 0;
}

static int hash_bucket_range(struct quic_test *t)
{
	unsigned int i, bits;
	u32 h, b;

	for (i = 0; i < 256; i++) {
		h = i == 0 ? 0 : i == 1 ? U32_MAX : get_random_u32();
		if (quic_hash_bucket(h, 0) != 0)
			return quic_test_fail(t, "bits 0: %u", quic_hash_bucket(h, 0));
		if (quic_hash_bucket(h, 32) != h)
			return quic_test_fail(t, "bits 32 changed %#x", h);
		for (bits = 1; bits < 32; bits++) {
			b = quic_hash_bucket(h, bits);
			if (b != h >> (32 - bits))
				return quic_test_fail(t, "bits %u of %#x: %#x",
						      bits, h, b);
		}
	}
	return 0;
}

static int keyed_hash_depends_on_key(struct quic_test *t)
{
	u8 buf[QUIC_HASH_MAX_KEY_LEN];
	struct quic_hash_key a, b;
	unsigned int i, len, same = 0;

	quic_hash_key_init(&a);
	quic_hash_key_init(&b);
	if (!memcmp(&a, &b, sizeof(a)))
		return quic_test_fail(t, "two keys drawn equal");

	/* Two keys give independent 32-bit outputs: all 8192 pairs differ
	 * except with probability about 2e-6; two equal pairs (1e-12) fail.
	 */
	for (i = 0; i < 4096; i++) {
		len = i % (QUIC_HASH_MAX_KEY_LEN + 1);
		get_random_bytes(buf, len);
		same += quic_keyed_hash(&a, buf, len) ==
			quic_keyed_hash(&b, buf, len);
		same += quic_keyed_hash_u64(&a, i) == quic_keyed_hash_u64(&b, i);
	}
	memzero_explicit(&a, sizeof(a));
	memzero_explicit(&b, sizeof(b));
	if (same > 1)
		return quic_test_fail(t, "%u of 8192 outputs equal under two keys",
				      same);
	return 0;
}

static int keyed_hash_stable(struct quic_test *t)
{
	u8 buf[QUIC_HASH_MAX_KEY_LEN + 8];
	struct quic_hash_key a, copy;
	unsigned int i, len, off;
	int err = 0;
	u32 h;
	u64 v;

	quic_hash_key_init(&a);
	copy = a;
	for (i = 0; i < 1024 && !err; i++) {
		len = i % (QUIC_HASH_MAX_KEY_LEN + 1);
		off = i % 8;
		get_random_bytes(buf, sizeof(buf));
		h = quic_keyed_hash(&a, buf, len);
		memmove(buf + off, buf, len);
		if (quic_keyed_hash(&a, buf + off, len) != h ||
		    quic_keyed_hash(&copy, buf + off, len) != h)
			err = quic_test_fail(t, "len %u: hash changed", len);

		v = get_random_u64();
		put_unaligned_le64(v, buf + off);
		h = quic_keyed_hash_u64(&a, v);
		if (quic_keyed_hash_u64(&copy, v) != h)
			err = quic_test_fail(t, "u64 %#llx: hash changed", v);
		else if (quic_keyed_hash(&a, buf + off, 8) != h)
			err = quic_test_fail(t, "u64 %#llx differs from its bytes",
					     v);
	}
	memzero_explicit(&a, sizeof(a));
	memzero_explicit(&copy, sizeof(copy));
	return err;
}

static int keyed_hash_balance(struct quic_test *t)
{
	int err;

	err = run_balance(t, "be counter", gen_keyed_be_cid, false);
	if (!err)
		err = run_balance(t, "u64", gen_keyed_u64, false);
	return err;
}

static const struct quic_test_case quic_hash_cases[] = {
	QUIC_TEST_CASE(fast_bytes_random_balance),
	QUIC_TEST_CASE(fast_bytes_le_counter_balance),
	QUIC_TEST_CASE(fast_bytes_be_counter_balance),
	QUIC_TEST_CASE(fast_bytes_20_straddle_balance),
	QUIC_TEST_CASE(fast_bytes_20_be_tail_balance),
	QUIC_TEST_CASE(fast_u64_sequential_balance),
	QUIC_TEST_CASE(fast_u64_stream_id_balance),
	QUIC_TEST_CASE(fast_u32_sequential_balance),
	QUIC_TEST_CASE(fast_low_bits_balance),
	QUIC_TEST_CASE(fast_bytes_reads_only_len),
	QUIC_TEST_CASE(fast_bytes_lengths_distinct),
	QUIC_TEST_CASE(fast_hash_known_answers),
	QUIC_TEST_CASE(hash_bucket_range),
	QUIC_TEST_CASE(keyed_hash_depends_on_key),
	QUIC_TEST_CASE(keyed_hash_stable),
	QUIC_TEST_CASE(keyed_hash_balance),
};

/* Micro-benchmarks: the cost of one hash of independent keys (so a
 * throughput figure, loop overhead included), best of three runs of 2^21.
 * The key changes every iteration (a whole 8-byte store, so the hash's load
 * is forwarded from it) and its length is hidden from the compiler, as it is
 * for a connection ID read from a packet.
 */
#define BENCH_ITERS	BIT(21)
#define BENCH_RUNS	3

static u32 quic_hash_bench_sink;

static u64 bench_fast_bytes(u32 len)
{
	u64 base = get_random_u64(), ns;
	u8 key[QUIC_HASH_MAX_KEY_LEN];
	u32 i, acc = 0;

	get_random_bytes(key, sizeof(key));
	OPTIMIZER_HIDE_VAR(len);
	ns = ktime_get_ns();
	for (i = 0; i < BENCH_ITERS; i++) {
		put_unaligned_le64(base + i, key);
		acc += quic_fast_hash_bytes(key, len);
	}
	ns = ktime_get_ns() - ns;
	WRITE_ONCE(quic_hash_bench_sink, acc);
	return ns;
}

static u64 bench_keyed_bytes(const struct quic_hash_key *k, u32 len)
{
	u64 base = get_random_u64(), ns;
	u8 key[QUIC_HASH_MAX_KEY_LEN];
	u32 i, acc = 0;

	get_random_bytes(key, sizeof(key));
	OPTIMIZER_HIDE_VAR(len);
	ns = ktime_get_ns();
	for (i = 0; i < BENCH_ITERS; i++) {
		put_unaligned_le64(base + i, key);
		acc += quic_keyed_hash(k, key, len);
	}
	ns = ktime_get_ns() - ns;
	WRITE_ONCE(quic_hash_bench_sink, acc);
	return ns;
}

static u64 bench_fast_u64(void)
{
	u64 base = get_random_u64(), v, ns;
	u32 i, acc = 0;

	ns = ktime_get_ns();
	for (i = 0; i < BENCH_ITERS; i++) {
		v = base + i;
		OPTIMIZER_HIDE_VAR(v);
		acc += quic_fast_hash_u64(v);
	}
	ns = ktime_get_ns() - ns;
	WRITE_ONCE(quic_hash_bench_sink, acc);
	return ns;
}

static u64 bench_keyed_u64(const struct quic_hash_key *k)
{
	u64 base = get_random_u64(), v, ns;
	u32 i, acc = 0;

	ns = ktime_get_ns();
	for (i = 0; i < BENCH_ITERS; i++) {
		v = base + i;
		OPTIMIZER_HIDE_VAR(v);
		acc += quic_keyed_hash_u64(k, v);
	}
	ns = ktime_get_ns() - ns;
	WRITE_ONCE(quic_hash_bench_sink, acc);
	return ns;
}

enum { BENCH_FAST, BENCH_KEYED, BENCH_KINDS };

/* Best of BENCH_RUNS for @len bytes, or for a u64 when @len is 0. */
static u64 bench_best(const struct quic_hash_key *k, int kind, u32 len)
{
	u64 best = U64_MAX, ns;
	unsigned int run;

	for (run = 0; run < BENCH_RUNS; run++) {
		if (kind == BENCH_FAST)
			ns = len ? bench_fast_bytes(len) : bench_fast_u64();
		else
			ns = len ? bench_keyed_bytes(k, len) : bench_keyed_u64(k);
		best = min(best, ns);
		cond_resched();
	}
	return best;
}

static void quic_hash_bench(void)
{
	static const u32 lens[] = { 8, QUIC_HASH_MAX_KEY_LEN, 0 };
	struct quic_hash_key k;
	u64 ns[BENCH_KINDS];
	char what[96];
	unsigned int i;

	quic_hash_key_init(&k);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		ns[BENCH_FAST] = bench_best(&k, BENCH_FAST, lens[i]);
		ns[BENCH_KEYED] = bench_best(&k, BENCH_KEYED, lens[i]);
		if (lens[i]) {
			snprintf(what, sizeof(what), "quic_fast_hash_bytes(%u)",
				 lens[i]);
			quic_test_bench_time(what, ns[BENCH_FAST], BENCH_ITERS);
			snprintf(what, sizeof(what), "quic_keyed_hash(%u)",
				 lens[i]);
			quic_test_bench_time(what, ns[BENCH_KEYED], BENCH_ITERS);
			snprintf(what, sizeof(what),
				 "ratio quic_keyed_hash(%u)/quic_fast_hash_bytes(%u)",
				 lens[i], lens[i]);
		} else {
			quic_test_bench_time("quic_fast_hash_u64",
					     ns[BENCH_FAST], BENCH_ITERS);
			quic_test_bench_time("quic_keyed_hash_u64",
					     ns[BENCH_KEYED], BENCH_ITERS);
			snprintf(what, sizeof(what),
				 "ratio quic_keyed_hash_u64/quic_fast_hash_u64");
		}
		quic_test_bench_ratio(what, ns[BENCH_KEYED], ns[BENCH_FAST]);
	}
	memzero_explicit(&k, sizeof(k));
}

const struct quic_test_suite quic_hash_suite = {
	.name = "quic_hash",
	.cases = quic_hash_cases,
	.num_cases = ARRAY_SIZE(quic_hash_cases),
	.bench = quic_hash_bench,
};
