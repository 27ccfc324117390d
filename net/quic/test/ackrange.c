// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/ackrange.h: the received packet-number set of
 * one space and the ACK frame range arithmetic (RFC 9000, section 19.3.1).
 */

#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include "../ackrange.h"
#include "../varint.h"

#include "test.h"

static struct quic_ackrange *set_new(void)
{
	struct quic_ackrange *set = kmalloc(sizeof(*set), GFP_KERNEL);

	if (set)
		quic_ackrange_init(set);
	return set;
}

/* Compare the set with @n ranges given as largest, smallest pairs. */
static int check_ranges(struct quic_test *t, const struct quic_ackrange *set,
			const u64 *want, u32 n)
{
	struct quic_ack_range r;
	u32 i;

	if (quic_ackrange_count(set) != n)
		return quic_test_fail(t, "%u ranges, want %u",
				      quic_ackrange_count(set), n);
	for (i = 0; i < n; i++) {
		if (!quic_ackrange_get(set, i, &r))
			return quic_test_fail(t, "range %u missing", i);
		if (r.largest != want[2 * i] || r.smallest != want[2 * i + 1])
			return quic_test_fail(t, "range %u is [%llu, %llu], want [%llu, %llu]",
					      i, r.smallest, r.largest,
					      want[2 * i + 1], want[2 * i]);
	}
	if (quic_ackrange_get(set, n, &r))
		return quic_test_fail(t, "range %u past the end", n);
	return 0;
}

static int add_ok(struct quic_test *t, struct quic_ackrange *set, u64 pn)
{
	int err = quic_ackrange_add(set, pn, 0);

	if (err)
		return quic_test_fail(t, "add(%llu) = %d", pn, err);
	return 0;
}

static int add_dup(struct quic_test *t, struct quic_ackrange *set, u64 pn)
{
	int err;

	if (!quic_ackrange_seen(set, pn))
		return quic_test_fail(t, "seen(%llu) false", pn);
	err = quic_ackrange_add(set, pn, 0);
	if (err != -EEXIST)
		return quic_test_fail(t, "add(%llu) = %d, want -EEXIST", pn, err);
	return 0;
}

static int ackrange_in_order(struct quic_test *t)
{
	static const u64 want[] = { 999, 0 };
	struct quic_ackrange *set = set_new();
	u64 pn, largest, first;
	int err = 0;

	if (!set)
		return -ENOMEM;
	if (quic_ackrange_first(set, &largest, &first) ||
	    quic_ackrange_largest(set, &largest) || quic_ackrange_seen(set, 0)) {
		err = quic_test_fail(t, "empty set not empty");
		goto out;
	}
	for (pn = 0; pn < 1000 && !err; pn++)
		err = add_ok(t, set, pn);
	err = err ?: check_ranges(t, set, want, 1);
	if (err)
		goto out;
	if (!quic_ackrange_first(set, &largest, &first) || largest != 999 ||
	    first != 999)
		err = quic_test_fail(t, "first %llu/%llu", largest, first);
	else if (!quic_ackrange_seen(set, 500) || quic_ackrange_seen(set, 1000))
		err = quic_test_fail(t, "seen wrong at 500 or 1000");
out:
	kfree(set);
	return err;
}

static int ackrange_reordered(struct quic_test *t)
{
	static const u64 three[] = { 9, 9, 5, 5, 1, 1 };
	static const u64 merged[] = { 9, 9, 5, 4, 2, 1 };
	static const u64 whole[] = { 9, 1 };
	struct quic_ackrange *set = set_new();
	int err;

	if (!set)
		return -ENOMEM;
	err = add_ok(t, set, 5) ?: add_ok(t, set, 9) ?: add_ok(t, set, 1) ?:
	      check_ranges(t, set, three, 3);
	/* 4 extends [5] downwards, 2 extends [1] upwards. */
	err = err ?: add_ok(t, set, 4) ?: add_ok(t, set, 2) ?:
	      check_ranges(t, set, merged, 3);
	err = err ?: add_ok(t, set, 7) ?: add_ok(t, set, 3) ?: add_ok(t, set, 6) ?:
	      add_ok(t, set, 8) ?: check_ranges(t, set, whole, 1);
	err = err ?: quic_ackrange_seen(set, 0) ? quic_test_fail(t, "0 seen") : 0;
	kfree(set);
	return err;
}

static int ackrange_duplicate(struct quic_test *t)
{
	static const u64 want[] = { 12, 10, 7, 7 };
	struct quic_ackrange *set = set_new();
	u64 pn;
	int err = 0;

	if (!set)
		return -ENOMEM;
	for (pn = 10; pn <= 12 && !err; pn++)
		err = add_ok(t, set, pn);
	err = err ?: add_ok(t, set, 7);
	for (pn = 10; pn <= 12 && !err; pn++)
		err = add_dup(t, set, pn);
	err = err ?: add_dup(t, set, 7) ?: check_ranges(t, set, want, 2);
	if (!err && (quic_ackrange_seen(set, 8) || quic_ackrange_seen(set, 13) ||
		     quic_ackrange_seen(set, 6)))
		err = quic_test_fail(t, "unreceived number seen");
	kfree(set);
	return err;
}

static int ackrange_gap_merge(struct quic_test *t)
{
	static const u64 two[] = { 16, 14, 12, 10 };
	static const u64 one[] = { 16, 10 };
	static const u64 three[] = { 30, 30, 20, 20, 16, 10 };
	static const u64 back[] = { 30, 30, 20, 10 };
	static const u64 last[] = { 30, 10 };
	struct quic_ackrange *set = set_new();
	int err;
	u64 pn;

	if (!set)
		return -ENOMEM;
	err = add_ok(t, set, 10) ?: add_ok(t, set, 11) ?: add_ok(t, set, 12) ?:
	      add_ok(t, set, 14) ?: add_ok(t, set, 15) ?: add_ok(t, set, 16) ?:
	      check_ranges(t, set, two, 2);
	/* 13 joins both neighbours into one range. */
	err = err ?: add_ok(t, set, 13) ?: check_ranges(t, set, one, 1);
	/* A middle range joins its upper and lower neighbours. */
	err = err ?: add_ok(t, set, 30) ?: add_ok(t, set, 20) ?:
	      check_ranges(t, set, three, 3);
	err = err ?: add_ok(t, set, 18) ?: add_ok(t, set, 19) ?: add_ok(t, set, 17) ?:
	      check_ranges(t, set, back, 2);
	for (pn = 21; pn < 30 && !err; pn++)
		err = add_ok(t, set, pn);
	err = err ?: check_ranges(t, set, last, 1);
	kfree(set);
	return err;
}

/* Fill the set with ranges [base + 4i] for i < QUIC_ACK_MAX_RANGES. */
static int fill(struct quic_test *t, struct quic_ackrange *set, u64 base)
{
	int err = 0;
	u32 i;

	for (i = 0; i < QUIC_ACK_MAX_RANGES && !err; i++)
		err = add_ok(t, set, base + 4 * i);
	if (!err && quic_ackrange_count(set) != QUIC_ACK_MAX_RANGES)
		err = quic_test_fail(t, "%u ranges after filling",
				     quic_ackrange_count(set));
	return err;
}

static int check_lowest(struct quic_test *t, const struct quic_ackrange *set,
			u64 largest, u64 smallest)
{
	struct quic_ack_range r = {};

	if (quic_ackrange_count(set) != QUIC_ACK_MAX_RANGES ||
	    !quic_ackrange_get(set, QUIC_ACK_MAX_RANGES - 1, &r) ||
	    r.largest != largest || r.smallest != smallest)
		return quic_test_fail(t, "%u ranges, lowest [%llu, %llu], want [%llu, %llu]",
				      quic_ackrange_count(set), r.smallest,
				      r.largest, smallest, largest);
	return 0;
}

static int ackrange_overflow(struct quic_test *t)
{
	const u64 top = 100 + 4 * QUIC_ACK_MAX_RANGES;
	struct quic_ackrange *set = set_new();
	int err;

	if (!set)
		return -ENOMEM;
	/* Ranges [100], [104], ... [top - 4]; a new highest range pushes
	 * out the lowest one.
	 */
	err = fill(t, set, 100) ?: add_ok(t, set, top) ?:
	      check_lowest(t, set, 104, 104);
	/* What was forgotten, and anything below, is too old now; so is what
	 * would open a new range below the lowest one.  103 was never
	 * received and extends the lowest range.
	 */
	err = err ?: add_dup(t, set, 100) ?: add_dup(t, set, 5) ?:
	      add_dup(t, set, 101) ?: add_dup(t, set, 102) ?:
	      add_ok(t, set, 103) ?: check_lowest(t, set, 104, 103);
	/* A new range in the middle pushes out the lowest one too. */
	err = err ?: add_ok(t, set, top - 6) ?: check_lowest(t, set, 108, 108);
	err = err ?: add_dup(t, set, 104) ?: add_dup(t, set, 106) ?:
	      add_ok(t, set, 107) ?: check_lowest(t, set, 108, 107);
	/* Merging makes room again, for numbers above the forgotten ones. */
	err = err ?: add_ok(t, set, 109) ?: add_ok(t, set, 110) ?:
	      add_ok(t, set, 111);
	if (!err && quic_ackrange_count(set) != QUIC_ACK_MAX_RANGES - 1)
		err = quic_test_fail(t, "%u ranges after a merge",
				     quic_ackrange_count(set));
	err = err ?: add_dup(t, set, 104) ?: add_ok(t, set, 105);
	kfree(set);
	return err;
}

/* Received: 0-2, 5-6, 9-12, 14.  The frame (RFC 9000, section 19.3.1):
 * Largest Acknowledged 14, First ACK Range 0; then the (Gap, ACK Range
 * Length) pairs, gap = previous smallest - largest - 2 (the missing
 * numbers less one) and length = largest - smallest: 14 - 12 - 2 = 0 and
 * 3 (13 missing; 9-12), 9 - 6 - 2 = 1 and 1 (7-8; 5-6), 5 - 2 - 2 = 1 and 2
 * (3-4; 0-2).
 */
static int ackrange_frame(struct quic_test *t)
{
	static const u64 pns[] = { 14, 12, 11, 10, 9, 6, 5, 2, 1, 0 };
	static const u64 gaps[] = { 0, 3, 1, 1, 1, 2 };
	struct quic_ackrange *set = set_new();
	struct quic_ack_range r, prev;
	u64 largest, first, gap, len;
	int err = 0;
	u32 i;

	if (!set)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(pns) && !err; i++)
		err = quic_ackrange_add(set, pns[i], i);
	if (err)
		goto out;
	if (quic_ackrange_count(set) != 4 ||
	    !quic_ackrange_first(set, &largest, &first) || largest != 14 ||
	    first != 0) {
		err = quic_test_fail(t, "first %llu/%llu of %u ranges", largest,
				     first, quic_ackrange_count(set));
		goto out;
	}
	if (quic_ackrange_gap(set, 0, &gap, &len) ||
	    quic_ackrange_gap(set, 4, &gap, &len)) {
		err = quic_test_fail(t, "gap index out of bounds accepted");
		goto out;
	}
	if (quic_ack_range_first(largest, first, &prev) || prev.smallest != 14) {
		err = quic_test_fail(t, "decode first");
		goto out;
	}
	for (i = 1; i < 4; i++) {
		if (!quic_ackrange_gap(set, i, &gap, &len) ||
		    gap != gaps[2 * (i - 1)] || len != gaps[2 * (i - 1) + 1]) {
			err = quic_test_fail(t, "pair %u is %llu/%llu", i, gap, len);
			goto out;
		}
		/* Decoding gives the range back. */
		quic_ackrange_get(set, i, &r);
		if (quic_ack_range_next(&prev, gap, len, &prev) ||
		    prev.largest != r.largest || prev.smallest != r.smallest) {
			err = quic_test_fail(t, "pair %u decodes to [%llu, %llu]",
					     i, prev.smallest, prev.largest);
			goto out;
		}
	}
	/* Largest received at time 0 (the first add); ack_delay from it. */
	if (quic_ackrange_ack_delay(set, 25) != 25)
		err = quic_test_fail(t, "ack_delay %llu",
				     quic_ackrange_ack_delay(set, 25));
out:
	kfree(set);
	return err;
}

static int ackrange_decode_bad(struct quic_test *t)
{
	struct quic_ack_range prev = { .largest = 10, .smallest = 5 }, r;

	if (quic_ack_range_first(3, 4, &r) != -EINVAL)
		return quic_test_fail(t, "first range below 0 accepted");
	if (quic_ack_range_first(3, 3, &r) || r.smallest != 0)
		return quic_test_fail(t, "first range down to 0 refused");
	/* 5 - 3 - 2 = 0: the lowest possible largest. */
	if (quic_ack_range_next(&prev, 3, 0, &r) || r.largest != 0)
		return quic_test_fail(t, "gap to 0 refused");
	if (quic_ack_range_next(&prev, 4, 0, &r) != -EINVAL)
		return quic_test_fail(t, "gap below 0 accepted");
	if (quic_ack_range_next(&prev, 0, 4, &r) != -EINVAL)
		return quic_test_fail(t, "length below 0 accepted");
	if (quic_ack_range_next(&prev, U64_MAX, 0, &r) != -EINVAL)
		return quic_test_fail(t, "huge gap accepted");
	prev.smallest = 1;
	if (quic_ack_range_next(&prev, 0, 0, &r) != -EINVAL)
		return quic_test_fail(t, "no room below smallest 1 accepted");
	return 0;
}

static int ackrange_drop_below(struct quic_test *t)
{
	static const u64 before[] = { 20, 15, 10, 5, 2, 0 };
	static const u64 after[] = { 20, 15, 10, 8 };
	struct quic_ackrange *set = set_new();
	int err = 0;
	u64 pn;

	if (!set)
		return -ENOMEM;
	for (pn = 0; pn <= 20 && !err; pn++)
		if (pn <= 2 || (pn >= 5 && pn <= 10) || pn >= 15)
			err = add_ok(t, set, pn);
	err = err ?: check_ranges(t, set, before, 3);
	if (err)
		goto out;
	quic_ackrange_drop_below(set, 8);
	err = check_ranges(t, set, after, 2) ?: add_dup(t, set, 7) ?:
	      add_dup(t, set, 3) ?: add_ok(t, set, 12);
	/* Lowering the bound again changes nothing. */
	quic_ackrange_drop_below(set, 4);
	err = err ?: add_dup(t, set, 7);
	quic_ackrange_drop_below(set, 21);
	if (!err && (quic_ackrange_count(set) ||
		     !quic_ackrange_largest(set, &pn) || pn != 20))
		err = quic_test_fail(t, "%u ranges, largest %llu after dropping all",
				     quic_ackrange_count(set), pn);
	err = err ?: add_dup(t, set, 20) ?: add_ok(t, set, 22) ?: add_ok(t, set, 21);
	if (!err && (quic_ackrange_count(set) != 1 ||
		     !quic_ackrange_largest(set, &pn) || pn != 22))
		err = quic_test_fail(t, "not restarted");
out:
	kfree(set);
	return err;
}

static int ackrange_limits(struct quic_test *t)
{
	struct quic_ackrange *set = set_new();
	int err = 0;

	if (!set)
		return -ENOMEM;
	if (!quic_ackrange_seen(set, QUIC_VARINT_MAX + 1) ||
	    quic_ackrange_add(set, QUIC_VARINT_MAX + 1, 0) != -EEXIST ||
	    quic_ackrange_add(set, U64_MAX, 0) != -EEXIST)
		err = quic_test_fail(t, "packet number above 2^62 - 1 accepted");
	err = err ?: add_ok(t, set, QUIC_VARINT_MAX) ?: add_ok(t, set, 0) ?:
	      add_dup(t, set, QUIC_VARINT_MAX);
	kfree(set);
	return err;
}

static int ackrange_ack_delay(struct quic_test *t)
{
	struct quic_ackrange *set = set_new();
	int err = 0;

	if (!set)
		return -ENOMEM;
	quic_ackrange_add(set, 5, 100);
	quic_ackrange_add(set, 3, 200);		/* not the largest */
	if (quic_ackrange_ack_delay(set, 250) != 150)
		err = quic_test_fail(t, "delay %llu, want 150",
				     quic_ackrange_ack_delay(set, 250));
	quic_ackrange_add(set, 6, 300);
	if (!err && quic_ackrange_ack_delay(set, 350) != 50)
		err = quic_test_fail(t, "delay %llu, want 50",
				     quic_ackrange_ack_delay(set, 350));
	if (!err && quic_ackrange_ack_delay(set, 299))
		err = quic_test_fail(t, "negative delay not clamped");
	kfree(set);
	return err;
}

#define MODEL_PNS	4096

static u32 xorshift(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* The set against a bitmap of the packet numbers it accepted: ranges stay
 * sorted, disjoint and not adjacent; nothing is accepted twice; above the
 * lowest range the set holds exactly what it accepted; seen() predicts
 * add().
 */
static int check_model(struct quic_test *t, const struct quic_ackrange *set,
		       const unsigned long *got)
{
	struct quic_ack_range r, prev = {};
	u64 low, pn;
	u32 i;

	if (quic_ackrange_count(set) > QUIC_ACK_MAX_RANGES)
		return quic_test_fail(t, "%u ranges", quic_ackrange_count(set));
	for (i = 0; quic_ackrange_get(set, i, &r); i++) {
		if (r.smallest > r.largest || (i && r.largest + 1 >= prev.smallest))
			return quic_test_fail(t, "range %u [%llu, %llu] after [%llu, %llu]",
					      i, r.smallest, r.largest,
					      prev.smallest, prev.largest);
		prev = r;
	}
	low = i ? prev.smallest : 0;
	for (pn = low; pn < MODEL_PNS; pn++) {
		bool in = false;

		for (i = 0; quic_ackrange_get(set, i, &r); i++)
			if (pn >= r.smallest && pn <= r.largest)
				in = true;
		if (in != test_bit(pn, got))
			return quic_test_fail(t, "pn %llu held %d, accepted %d",
					      pn, in, test_bit(pn, got));
	}
	return 0;
}

static int ackrange_model(struct quic_test *t)
{
	struct quic_ackrange *set = set_new();
	unsigned long *got = bitmap_zalloc(MODEL_PNS, GFP_KERNEL);
	u32 x = 0x9e3779b9, op, full = 0;
	int err = 0;

	if (!set || !got) {
		err = -ENOMEM;
		goto out;
	}
	for (op = 0; op < 4 * MODEL_PNS && !err; op++) {
		/* Mostly near the front, sometimes far back, a few drops. */
		u32 base = op * MODEL_PNS / (4 * MODEL_PNS + 1024);
		u32 v = xorshift(&x), pn;
		bool seen;
		int ret;

		if (v % 64 == 0) {
			quic_ackrange_drop_below(set, base / 2);
			bitmap_clear(got, 0, base / 2);
			continue;
		}
		pn = base + (v >> 8) % (v % 4 ? 128 : 1024);
		if (pn >= MODEL_PNS)
			continue;
		seen = quic_ackrange_seen(set, pn);
		ret = quic_ackrange_add(set, pn, op);
		if (ret && ret != -EEXIST)
			err = quic_test_fail(t, "add(%u) = %d", pn, ret);
		else if (seen != !!ret)
			err = quic_test_fail(t, "seen(%u) %d but add %d", pn, seen, ret);
		else if (!ret && test_and_set_bit(pn, got))
			err = quic_test_fail(t, "pn %u accepted twice", pn);
		if (!err && op % 256 == 0)
			err = check_model(t, set, got);
		full += quic_ackrange_count(set) == QUIC_ACK_MAX_RANGES;
	}
	err = err ?: check_model(t, set, got);
	if (!err && !full)
		err = quic_test_fail(t, "the set never filled up");
out:
	bitmap_free(got);
	kfree(set);
	return err;
}

static const struct quic_test_case quic_ackrange_cases[] = {
	QUIC_TEST_CASE(ackrange_in_order),
	QUIC_TEST_CASE(ackrange_reordered),
	QUIC_TEST_CASE(ackrange_duplicate),
	QUIC_TEST_CASE(ackrange_gap_merge),
	QUIC_TEST_CASE(ackrange_overflow),
	QUIC_TEST_CASE(ackrange_frame),
	QUIC_TEST_CASE(ackrange_decode_bad),
	QUIC_TEST_CASE(ackrange_drop_below),
	QUIC_TEST_CASE(ackrange_limits),
	QUIC_TEST_CASE(ackrange_ack_delay),
	QUIC_TEST_CASE(ackrange_model),
};

const struct quic_test_suite quic_ackrange_suite = {
	.name		= "quic_ackrange",
	.cases		= quic_ackrange_cases,
	.num_cases	= ARRAY_SIZE(quic_ackrange_cases),
};
