// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/reasm.c: the reassembly of received CRYPTO data
 * (RFC 9000 7.5): in-order delivery of frames that arrive out of order,
 * overlapping, duplicated or already delivered; the cap and the piece
 * limit against a hostile peer; and the memory accounting.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include "../reasm.h"

#include "test.h"

#define CAP		65536
#define SPAN		(3 * PAGE_SIZE + 123)

/* The byte at @offset of every CRYPTO stream in these tests. */
static u8 pattern(u64 offset)
{
	return (u8)(offset * 13 + 5 + (offset >> 8));
}

/* A fixture: the reassembly, its accounting and the stream it carries. */
struct fix {
	struct quic_reasm r;
	struct quic_test_mem m;
	u8 *src;	/* pattern bytes of offsets 0 .. SPAN - 1 */
};

static int fix_init(struct fix *f, u32 cap)
{
	u32 i;

	f->src = kmalloc(SPAN, GFP_KERNEL);
	if (!f->src)
		return -ENOMEM;
	for (i = 0; i < SPAN; i++)
		f->src[i] = pattern(i);
	f->m.mem = 0;
	f->m.limit = S64_MAX;
	quic_reasm_init(&f->r, cap, quic_test_mem_charge, &f->m);
	return 0;
}

/* Free the fixture; fail if memory was not all given back. */
static int fix_fini(struct quic_test *t, struct fix *f, int err)
{
	quic_reasm_free(&f->r);
	kfree(f->src);
	if (!err && (f->m.mem || f->r.mem || f->r.count))
		return quic_test_fail(t, "left charged: %lld (%u in %u pieces)",
				      f->m.mem, f->r.mem, f->r.count);
	return err;
}

static int add(struct fix *f, u64 offset, u64 len)
{
	return quic_reasm_add(&f->r, offset, f->src + offset, len);
}

/* Deliver every in-order byte, checking each against the pattern and
 * that the charge matches what the reassembly says it holds. Return the
 * bytes delivered, or -EINVAL.
 */
static s64 drain(struct fix *f, u32 step)
{
	const u8 *data;
	s64 got = 0;
	u32 n, i;

	while ((n = quic_reasm_peek(&f->r, &data))) {
		u64 off = quic_reasm_offset(&f->r);

		if (n > PAGE_SIZE)
			return -EINVAL;
		n = min(n, step);
		for (i = 0; i < n; i++)
			if (data[i] != pattern(off + i))
				return -EINVAL;
		quic_reasm_pull(&f->r, n);
		if (quic_reasm_offset(&f->r) != off + n)
			return -EINVAL;
		got += n;
	}
	if (f->m.mem != f->r.mem)
		return -EINVAL;
	return got;
}

static int reasm_in_order(struct quic_test *t)
{
	struct fix f;
	int err;

	err = fix_init(&f, CAP);
	if (err)
		return err;
	if (add(&f, 0, 100) || add(&f, 100, 1100))
		err = quic_test_fail(t, "in-order data refused");
	else if (drain(&f, U32_MAX) != 1200)
		err = quic_test_fail(t, "not 1200 bytes delivered");
	else if (quic_reasm_offset(&f.r) != 1200 || f.r.count)
		err = quic_test_fail(t, "offset %llu, %u pieces",
				     quic_reasm_offset(&f.r), f.r.count);
	return fix_fini(t, &f, err);
}

/* The flight of a lossy path: the second and fourth of five frames
 * first, then the rest; nothing is delivered until the first arrives.
 */
static int reasm_out_of_order(struct quic_test *t)
{
	struct fix f;
	int err;

	err = fix_init(&f, CAP);
	if (err)
		return err;
	if (add(&f, 1000, 1000) || add(&f, 3000, 1000))
		err = quic_test_fail(t, "out-of-order data refused");
	else if (drain(&f, U32_MAX))
		err = quic_test_fail(t, "delivered ahead of a gap");
	else if (add(&f, 0, 1000) || drain(&f, U32_MAX) != 2000)
		err = quic_test_fail(t, "not up to the second gap");
	else if (add(&f, 4000, 1000) || add(&f, 2000, 1000) ||
		 drain(&f, 300) != 3000)
		err = quic_test_fail(t, "not all delivered");
	else if (quic_reasm_offset(&f.r) != 5000)
		err = quic_test_fail(t, "offset %llu", quic_reasm_offset(&f.r));
	return fix_fini(t, &f, err);
}

/* Overlapping, duplicate, zero-length and delivered data is stored once. */
static int reasm_overlap(struct quic_test *t)
{
	u32 held;
	struct fix f;
	int err;

	err = fix_init(&f, CAP);
	if (err)
		return err;
	/* Pieces [100, 200) and [400, 500); then frames across them. */
	if (add(&f, 100, 100) || add(&f, 400, 100) || add(&f, 150, 300) ||
	    add(&f, 100, 100) || add(&f, 120, 10) || add(&f, 450, 50) ||
	    add(&f, 300, 0) || add(&f, 50, 0)) {
		err = quic_test_fail(t, "overlapping data refused");
		goto out;
	}
	held = 400;	/* [100, 500) */
	if (f.r.count != 3 || f.r.mem < held) {
		err = quic_test_fail(t, "%u pieces, %u bytes", f.r.count,
				     f.r.mem);
		goto out;
	}
	/* One frame over everything, then [0, 100) is the new piece. */
	if (add(&f, 0, 600) || drain(&f, 77) != 600) {
		err = quic_test_fail(t, "not 600 bytes delivered");
		goto out;
	}
	/* Delivered already: nothing stored; a frame across the delivery
	 * point stores only what is beyond it.
	 */
	if (add(&f, 0, 600) || add(&f, 10, 20) || f.r.count) {
		err = quic_test_fail(t, "delivered data stored again");
		goto out;
	}
	if (add(&f, 500, 200) || f.r.count != 1 || drain(&f, U32_MAX) != 100)
		err = quic_test_fail(t, "the new part not delivered alone");
out:
	return fix_fini(t, &f, err);
}

/* RFC 9000 7.5: beyond the cap, CRYPTO_BUFFER_EXCEEDED (-EPROTO). */
static int reasm_cap(struct quic_test *t)
{
	struct fix f;
	int err;

	err = fix_init(&f, 4096);
	if (err)
		return err;
	if (add(&f, 4000, 96))
		err = quic_test_fail(t, "data up to the cap refused");
	else if (add(&f, 4000, 97) != -EPROTO)
		err = quic_test_fail(t, "data beyond the cap taken");
	else if (quic_reasm_add(&f.r, U64_MAX - 10, f.src, 100) != -EPROTO ||
		 quic_reasm_add(&f.r, BIT_ULL(62), f.src, 1) != -EPROTO)
		err = quic_test_fail(t, "a huge offset taken");
	else if (quic_reasm_add(&f.r, U64_MAX, f.src, 0))
		err = quic_test_fail(t, "an empty frame refused");
	else if (add(&f, 0, 2000) || drain(&f, U32_MAX) != 2000)
		err = quic_test_fail(t, "the first 2000 bytes");
	/* The cap moves with the delivery point. */
	else if (add(&f, 2000, 2000) || add(&f, 4096, 2000) ||
		 add(&f, 4096, 2001) != -EPROTO)
		err = quic_test_fail(t, "the cap did not move");
	else if (drain(&f, U32_MAX) != 4096)
		err = quic_test_fail(t, "not delivered to 6096");
	return fix_fini(t, &f, err);
}

/* A peer that leaves a one-byte gap between one-byte frames: at most
 * QUIC_REASM_MAX_PIECES pieces wait; the gap at the delivery point is
 * still taken, and delivery goes on.
 */
static int reasm_piece_limit(struct quic_test *t)
{
	struct fix f;
	u32 i, taken = 0;
	int err, ret;

	err = fix_init(&f, CAP);
	if (err)
		return err;
	for (i = 1; i < 2 * QUIC_REASM_MAX_PIECES + 20; i += 2) {
		ret = add(&f, i, 1);
		if (!ret) {
			taken++;
		} else if (ret != -ENOBUFS) {
			err = quic_test_fail(t, "error %d at %u", ret, i);
			goto out;
		}
	}
	if (taken != QUIC_REASM_MAX_PIECES ||
	    f.r.count != QUIC_REASM_MAX_PIECES) {
		err = quic_test_fail(t, "%u taken, %u pieces", taken,
				     f.r.count);
		goto out;
	}
	/* The gap at the delivery point is taken, the next one not. */
	if (add(&f, 0, 10) != -ENOBUFS || f.r.count != taken + 1 ||
	    drain(&f, U32_MAX) != 2) {
		err = quic_test_fail(t, "the gap at the delivery point");
		goto out;
	}
	/* Two pieces went: one more gap beyond the delivery point fits. */
	if (add(&f, 4, 1) || add(&f, 6, 1) != -ENOBUFS) {
		err = quic_test_fail(t, "the limit did not hold at %u",
				     f.r.count);
		goto out;
	}
	if (add(&f, 2, 1) || drain(&f, U32_MAX) != 4)
		err = quic_test_fail(t, "no progress after the limit");
out:
	return fix_fini(t, &f, err);
}

/* A refused charge stores nothing and leaves the accounting balanced. */
static int reasm_charge_refused(struct quic_test *t)
{
	struct fix f;
	int err;

	err = fix_init(&f, CAP);
	if (err)
		return err;
	f.m.limit = 0;
	if (add(&f, 0, 100) != -ENOBUFS || f.r.count || f.m.mem)
		err = quic_test_fail(t, "stored without a charge");
	f.m.limit = S64_MAX;
	if (!err && (add(&f, 0, 100) || drain(&f, U32_MAX) != 100))
		err = quic_test_fail(t, "not stored once allowed");
	return fix_fini(t, &f, err);
}

/* A frame larger than a page becomes page-sized pieces. */
static int reasm_large(struct quic_test *t)
{
	struct fix f;
	int err;

	err = fix_init(&f, CAP);
	if (err)
		return err;
	if (add(&f, 10, SPAN - 10) || f.r.count < 4)
		err = quic_test_fail(t, "%u pieces", f.r.count);
	else if (add(&f, 0, 11) || drain(&f, U32_MAX) != SPAN)
		err = quic_test_fail(t, "not all delivered");
	return fix_fini(t, &f, err);
}

/* Random frames over the span, with random partial reads between them,
 * end with every byte delivered once and in order, and all memory back.
 */
static int reasm_random(struct quic_test *t)
{
	u64 delivered;
	struct fix f;
	int err, i, round, ret;
	s64 got;

	err = fix_init(&f, CAP);
	if (err)
		return err;
	for (round = 0; round < 4 && !err; round++) {
		delivered = 0;
		for (i = 0; i < 400; i++) {
			u32 off = get_random_u32_below(SPAN);
			u32 len = get_random_u32_below(min_t(u32, SPAN - off,
							     1500) + 1);

			/* Past the piece limit a frame may be refused. */
			ret = add(&f, off, len);
			if ((ret && ret != -ENOBUFS) ||
			    f.r.count > QUIC_REASM_MAX_PIECES + 1) {
				err = quic_test_fail(t, "[%u, +%u): %d, %u pieces",
						     off, len, ret, f.r.count);
				break;
			}
			if (get_random_u32_below(4))
				continue;
			got = drain(&f, get_random_u32_below(700) + 1);
			if (got < 0) {
				err = quic_test_fail(t, "bad data delivered");
				break;
			}
			delivered += got;
		}
		/* Whatever is missing, in one frame sent again until all
		 * of it is taken: each time at least its head is.
		 */
		for (i = 0; i < SPAN && !err && delivered < SPAN; i++) {
			ret = add(&f, 0, SPAN);
			got = drain(&f, U32_MAX);
			if ((ret && ret != -ENOBUFS) || got <= 0)
				err = quic_test_fail(t, "stuck at %llu: %d",
						     delivered, ret);
			else
				delivered += got;
		}
		if (!err && (delivered != SPAN || f.r.count || f.m.mem))
			err = quic_test_fail(t, "%llu delivered, %u pieces left",
					     delivered, f.r.count);
		quic_reasm_free(&f.r);
		quic_reasm_init(&f.r, CAP, quic_test_mem_charge, &f.m);
	}
	return fix_fini(t, &f, err);
}

/* Pulls are clamped to the first piece; without one they do nothing;
 * freeing with pieces waiting gives everything back.
 */
static int reasm_pull_free(struct quic_test *t)
{
	const u8 *data;
	struct fix f;
	int err;

	err = fix_init(&f, CAP);
	if (err)
		return err;
	quic_reasm_pull(&f.r, 10);
	if (quic_reasm_offset(&f.r) || quic_reasm_peek(&f.r, &data)) {
		err = quic_test_fail(t, "pulled from nothing");
		goto out;
	}
	if (add(&f, 0, 50) || add(&f, 60, 50) || add(&f, 200, 50)) {
		err = quic_test_fail(t, "refused");
		goto out;
	}
	quic_reasm_pull(&f.r, 1000);
	if (quic_reasm_offset(&f.r) != 50 || f.r.count != 2) {
		err = quic_test_fail(t, "a pull crossed a gap");
		goto out;
	}
	quic_reasm_pull(&f.r, 1000);
	if (quic_reasm_offset(&f.r) != 50)
		err = quic_test_fail(t, "pulled across a gap");
out:
	return fix_fini(t, &f, err);
}

static const struct quic_test_case quic_reasm_cases[] = {
	QUIC_TEST_CASE(reasm_in_order),
	QUIC_TEST_CASE(reasm_out_of_order),
	QUIC_TEST_CASE(reasm_overlap),
	QUIC_TEST_CASE(reasm_cap),
	QUIC_TEST_CASE(reasm_piece_limit),
	QUIC_TEST_CASE(reasm_charge_refused),
	QUIC_TEST_CASE(reasm_large),
	QUIC_TEST_CASE(reasm_random),
	QUIC_TEST_CASE(reasm_pull_free),
};

const struct quic_test_suite quic_reasm_suite = {
	.name		= "quic_reasm",
	.cases		= quic_reasm_cases,
	.num_cases	= ARRAY_SIZE(quic_reasm_cases),
};
