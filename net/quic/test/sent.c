// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/sent.h: the sent-packet store, ACK processing
 * and its cost, loss detection (RFC 9002, section 6.1) and the in-flight
 * accounting; and a micro-benchmark of ACK processing.
 */

#define pr_fmt(fmt) fmt

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "../ackrange.h"
#include "../sent.h"

#include "test.h"

/* kPacketThreshold, short for the calls below. */
#define T3	QUIC_PACKET_THRESHOLD

#define REC_MAX		64

/* What the callbacks saw: the packet numbers, in call order. */
struct rec {
	u64 pn[REC_MAX];
	u32 n;
	u64 bytes;	/* sizes of the in-flight packets seen */
	bool free;	/* kfree() each packet */
};

static void rec_cb(void *ctx, struct quic_sent_pkt *pkt)
{
	struct rec *r = ctx;

	if (r->n < REC_MAX)
		r->pn[r->n] = pkt->pn;
	r->n++;
	if (pkt->in_flight)
		r->bytes += pkt->size;
	if (r->free)
		kfree(pkt);
	else
		pkt->pn = U64_MAX;	/* poison: it must not be visited again */
}

/* Packets 0 .. n - 1 sent at 10 * pn, 1000 bytes each, all in flight. */
static struct quic_sent_pkt *fill(struct quic_sent *s, u32 n)
{
	struct quic_sent_pkt *pkts = kvcalloc(n, sizeof(*pkts), GFP_KERNEL);
	u32 i;

	quic_sent_init(s);
	if (!pkts)
		return NULL;
	for (i = 0; i < n; i++) {
		pkts[i].pn = i;
		pkts[i].sent_time = 10 * i;
		pkts[i].size = 1000;
		pkts[i].ack_eliciting = 1;
		pkts[i].in_flight = 1;
		if (quic_sent_add(s, &pkts[i])) {
			kvfree(pkts);
			return NULL;
		}
	}
	return pkts;
}

static int check_rec(struct quic_test *t, const struct rec *r,
		     const u64 *want, u32 n)
{
	u32 i;

	if (r->n != n)
		return quic_test_fail(t, "%u callbacks, want %u", r->n, n);
	for (i = 0; i < n; i++)
		if (r->pn[i] != want[i])
			return quic_test_fail(t, "callback %u for pn %llu, want %llu",
					      i, r->pn[i], want[i]);
	return 0;
}

/* The store holds exactly @want, in order, and accounts for them. */
static int check_store(struct quic_test *t, struct quic_sent *s,
		       const u64 *want, u32 n)
{
	struct quic_sent_pkt *pkt;
	u64 bytes = 0;
	u32 i = 0, eliciting = 0;

	list_for_each_entry(pkt, &s->head, list) {
		if (i >= n || pkt->pn != want[i])
			return quic_test_fail(t, "store[%u] is pn %llu", i, pkt->pn);
		if (pkt->in_flight) {
			bytes += pkt->size;
			eliciting += pkt->ack_eliciting;
		}
		i++;
	}
	if (i != n)
		return quic_test_fail(t, "store holds %u packets, want %u", i, n);
	if (quic_sent_bytes_in_flight(s) != bytes ||
	    s->eliciting_in_flight != eliciting)
		return quic_test_fail(t, "in flight %llu bytes %u eliciting, want %llu %u",
				      quic_sent_bytes_in_flight(s),
				      s->eliciting_in_flight, bytes, eliciting);
	return 0;
}

static int sent_ack_single(struct quic_test *t)
{
	static const struct quic_ack_range ack[] = { { 7, 3 } };
	static const u64 acked[] = { 7, 6, 5, 4, 3 };
	static const u64 left[] = { 0, 1, 2, 8, 9 };
	struct quic_sent s;
	struct quic_sent_pkt *pkts = fill(&s, 10);
	struct rec r = {};
	int ret, err;

	if (!pkts)
		return -ENOMEM;
	ret = quic_sent_on_ack(&s, ack, 1, rec_cb, &r);
	err = ret != 5 ? quic_test_fail(t, "on_ack = %d", ret) : 0;
	err = err ?: check_rec(t, &r, acked, 5) ?: check_store(t, &s, left, 5);
	if (!err && (s.largest_acked != 7 || quic_sent_oldest(&s)->pn != 0 ||
		     quic_sent_newest(&s)->pn != 9))
		err = quic_test_fail(t, "largest_acked %llu", s.largest_acked);
	kvfree(pkts);
	return err;
}

static int sent_ack_ranges(struct quic_test *t)
{
	static const struct quic_ack_range ack[] = {
		{ 18, 16 }, { 12, 12 }, { 5, 2 },
	};
	static const u64 acked[] = { 18, 17, 16, 12, 5, 4, 3, 2 };
	static const u64 left[] = { 0, 1, 6, 7, 8, 9, 10, 11, 13, 14, 15, 19 };
	struct quic_sent s;
	struct quic_sent_pkt *pkts = fill(&s, 20);
	struct rec r = {};
	int ret, err;

	if (!pkts)
		return -ENOMEM;
	ret = quic_sent_on_ack(&s, ack, ARRAY_SIZE(ack), rec_cb, &r);
	err = ret != 8 ? quic_test_fail(t, "on_ack = %d", ret) : 0;
	err = err ?: check_rec(t, &r, acked, ARRAY_SIZE(acked)) ?:
	      check_store(t, &s, left, ARRAY_SIZE(left));
	kvfree(pkts);
	return err;
}

static int sent_ack_bad_ranges(struct quic_test *t)
{
	static const struct quic_ack_range ascending[] = { { 3, 2 }, { 6, 5 } };
	static const struct quic_ack_range overlap[] = { { 8, 5 }, { 5, 2 } };
	static const struct quic_ack_range reversed[] = { { 8, 7 }, { 2, 4 } };
	static const struct quic_ack_range adjacent[] = { { 8, 7 }, { 6, 5 } };
	static const struct quic_ack_range unsent[] = { { 10, 9 }, { 2, 2 } };
	static const struct quic_ack_range huge[] = { { U64_MAX, 0 } };
	static const u64 all[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const u64 left[] = { 0, 1, 2, 3, 4, 9 };
	struct quic_sent s, empty;
	struct quic_sent_pkt *pkts = fill(&s, 10);
	struct rec r = {};
	int err = 0;

	if (!pkts)
		return -ENOMEM;
	quic_sent_init(&empty);
	if (quic_sent_on_ack(&s, ascending, 2, rec_cb, &r) != -EINVAL ||
	    quic_sent_on_ack(&s, overlap, 2, rec_cb, &r) != -EINVAL ||
	    quic_sent_on_ack(&s, reversed, 2, rec_cb, &r) != -EINVAL ||
	    quic_sent_on_ack(&s, ascending, 0, rec_cb, &r) != -EINVAL)
		err = quic_test_fail(t, "malformed ranges accepted");
	else if (quic_sent_on_ack(&s, unsent, 2, rec_cb, &r) != -EPROTO ||
		 quic_sent_on_ack(&s, huge, 1, rec_cb, &r) != -EPROTO ||
		 quic_sent_on_ack(&empty, adjacent, 1, rec_cb, &r) != -EPROTO)
		err = quic_test_fail(t, "ack of an unsent packet accepted");
	else if (s.any_acked || r.n)
		err = quic_test_fail(t, "a refused ACK had effects");
	err = err ?: check_store(t, &s, all, 10);
	/* Touching ranges are merely suboptimal: accepted. */
	if (!err && quic_sent_on_ack(&s, adjacent, 2, rec_cb, &r) != 4)
		err = quic_test_fail(t, "adjacent ranges refused");
	err = err ?: check_store(t, &s, left, ARRAY_SIZE(left));
	kvfree(pkts);
	return err;
}

static int sent_ack_again(struct quic_test *t)
{
	static const struct quic_ack_range ack[] = { { 9, 6 }, { 3, 1 } };
	static const struct quic_ack_range more[] = { { 9, 4 }, { 3, 0 } };
	static const u64 left[] = { 0, 4, 5 };
	static const u64 rest[] = { 5, 4, 0 };
	struct quic_sent s;
	struct quic_sent_pkt *pkts = fill(&s, 10);
	struct rec r = {};
	int ret, err = 0;

	if (!pkts)
		return -ENOMEM;
	ret = quic_sent_on_ack(&s, ack, 2, rec_cb, &r);
	if (ret != 7)
		err = quic_test_fail(t, "first ACK acked %d", ret);
	err = err ?: check_store(t, &s, left, 3);
	r.n = 0;
	ret = err ?: quic_sent_on_ack(&s, ack, 2, rec_cb, &r);
	if (!err && (ret || r.n))
		err = quic_test_fail(t, "same ACK again acked %d", ret);
	err = err ?: check_store(t, &s, left, 3);
	/* A wider ACK acknowledges only what was still outstanding. */
	ret = err ?: quic_sent_on_ack(&s, more, 2, rec_cb, &r);
	if (!err && ret != 3)
		err = quic_test_fail(t, "wider ACK acked %d", ret);
	err = err ?: check_rec(t, &r, rest, 3) ?: check_store(t, &s, NULL, 0);
	if (!err && s.largest_acked != 9)
		err = quic_test_fail(t, "largest_acked %llu", s.largest_acked);
	kvfree(pkts);
	return err;
}

#define COST_PKTS	10000

/* Steps of a range's lookup at most: the newest packet, then a descent
 * of a red-black tree, at most 2 log2(n + 1) deep.
 */
#define COST_LOOKUP	(1 + 2 * (ilog2(COST_PKTS) + 1))

/* What an ACK costs depends on what it covers, not on the flight. */
static int sent_ack_cost(struct quic_test *t)
{
	static const struct quic_ack_range newest[] = {
		{ COST_PKTS - 1, COST_PKTS - 10 },
	};
	static const struct quic_ack_range oldest[] = { { 4, 0 } };
	static const struct quic_ack_range stale[] = {
		{ COST_PKTS - 1, COST_PKTS - 20 }, { 4, 0 },
	};
	static const struct quic_ack_range hole[] = {
		{ COST_PKTS - 21, 5001 }, { 4999, 5 },
	};
	struct quic_sent s;
	struct quic_sent_pkt *pkts = fill(&s, COST_PKTS);
	struct rec r = {};
	int ret, err = 0;

	if (!pkts)
		return -ENOMEM;
	/* The newest ones: one step to find the first, one per packet. */
	ret = quic_sent_on_ack(&s, newest, 1, rec_cb, &r);
	if (ret != 10 || s.steps != 11)
		err = quic_test_fail(t, "newest 10 of %u: acked %d in %llu steps",
				     COST_PKTS, ret, s.steps);
	/* The oldest ones: a tree lookup, not a walk past all above them. */
	s.steps = 0;
	ret = err ?: quic_sent_on_ack(&s, oldest, 1, rec_cb, &r);
	if (!err && (ret != 5 || s.steps > 5 + COST_LOOKUP))
		err = quic_test_fail(t, "oldest 5: acked %d in %llu steps",
				     ret, s.steps);
	/* A range below everything left costs nothing. */
	s.steps = 0;
	ret = err ?: quic_sent_on_ack(&s, stale, 2, rec_cb, &r);
	if (!err && (ret != 10 || s.steps != 11))
		err = quic_test_fail(t, "10 new + stale range: acked %d in %llu steps",
				     ret, s.steps);
	/* One packet missing: each packet visited once, a lookup per
	 * range.
	 */
	s.steps = 0;
	ret = err ?: quic_sent_on_ack(&s, hole, 2, rec_cb, &r);
	if (!err && (ret != COST_PKTS - 26 ||
		     s.steps > COST_PKTS - 26 + 1 + COST_LOOKUP))
		err = quic_test_fail(t, "all but one: acked %d in %llu steps",
				     ret, s.steps);
	if (!err && (quic_sent_oldest(&s)->pn != 5000 ||
		     quic_sent_newest(&s) != quic_sent_oldest(&s) ||
		     quic_sent_bytes_in_flight(&s) != 1000))
		err = quic_test_fail(t, "store not left with pn 5000 alone");
	kvfree(pkts);
	return err;
}

static int sent_lost_packet_threshold(struct quic_test *t)
{
	static const struct quic_ack_range ack[] = { { 9, 9 } };
	static const u64 lost[] = { 0, 1, 2, 3, 4, 5, 6 };
	static const u64 left[] = { 7, 8, 10, 11 };
	struct quic_sent s;
	struct quic_sent_pkt *pkts = fill(&s, 12);
	struct rec r = {};
	u64 loss_time;
	u32 n;
	int err = 0;

	if (!pkts)
		return -ENOMEM;
	if (quic_sent_on_ack(&s, ack, 1, rec_cb, &r) != 1)
		err = quic_test_fail(t, "ack of 9 failed");
	r.n = 0;
	r.bytes = 0;
	s.steps = 0;
	/* No time threshold: the time is 0, all were sent "in the future". */
	n = quic_sent_detect_lost(&s, s.largest_acked, QUIC_PACKET_THRESHOLD,
				  1000, 0, &loss_time, rec_cb, &r);
	if (!err && (n != 7 || s.steps != 8))
		err = quic_test_fail(t, "%u lost in %llu steps, want 7 in 8",
				     n, s.steps);
	err = err ?: check_rec(t, &r, lost, 7) ?: check_store(t, &s, left, 4);
	if (!err && (r.bytes != 7000 || loss_time != 70 + 1000))
		err = quic_test_fail(t, "lost bytes %llu, loss_time %llu",
				     r.bytes, loss_time);
	kvfree(pkts);
	return err;
}

static int sent_lost_time_threshold(struct quic_test *t)
{
	static const struct quic_ack_range ack[] = { { 5, 5 } };
	static const u64 lost[] = { 0, 1, 2, 3, 4 };
	static const u64 left[] = { 3, 4, 6 };
	struct quic_sent s;
	struct quic_sent_pkt *pkts = fill(&s, 7);
	struct rec r = {};
	u64 loss_time;
	u32 n;
	int err = 0;

	if (!pkts)
		return -ENOMEM;
	if (quic_sent_on_ack(&s, ack, 1, rec_cb, &r) != 1)
		err = quic_test_fail(t, "ack of 5 failed");
	r.n = 0;
	/* Largest acked 5: by packet number 0-2 are lost; 3 and 4, sent at 30
	 * and 40, are within kPacketThreshold.  With a delay of 25, 3 is lost
	 * at 55 and 4 at 65.
	 */
	n = quic_sent_detect_lost(&s, 5, T3, 25, 10, &loss_time, rec_cb, &r);
	if (!err && (n != 3 || loss_time != 55))
		err = quic_test_fail(t, "%u lost, loss_time %llu", n, loss_time);
	err = err ?: check_store(t, &s, left, 3);
	n = err ?: quic_sent_detect_lost(&s, 5, T3, 25, 54, &loss_time, rec_cb, &r);
	if (!err && (n || loss_time != 55))
		err = quic_test_fail(t, "early: %u lost, loss_time %llu", n, loss_time);
	n = err ?: quic_sent_detect_lost(&s, 5, T3, 25, 55, &loss_time, rec_cb, &r);
	if (!err && (n != 1 || loss_time != 65))
		err = quic_test_fail(t, "at 55: %u lost, loss_time %llu", n, loss_time);
	/* 6 is above the largest acknowledged: not lost, no loss time. */
	n = err ?: quic_sent_detect_lost(&s, 5, T3, 25, 1000, &loss_time, rec_cb, &r);
	if (!err && (n != 1 || loss_time))
		err = quic_test_fail(t, "at 1000: %u lost, loss_time %llu", n, loss_time);
	err = err ?: check_rec(t, &r, lost, 5) ?: check_store(t, &s, left + 2, 1);
	n = err ?: quic_sent_detect_lost(&s, 5, T3, 0, U64_MAX, &loss_time, rec_cb, &r);
	if (!err && n)
		err = quic_test_fail(t, "packet above largest acked lost");
	kvfree(pkts);
	return err;
}

static int sent_add_order(struct quic_test *t)
{
	struct quic_sent_pkt a = { .pn = 5, .sent_time = 100 };
	struct quic_sent_pkt b = { .pn = 5, .sent_time = 100 };
	struct quic_sent_pkt c = { .pn = 9, .sent_time = 99 };
	struct quic_sent_pkt d = { .pn = 9, .sent_time = 100 };
	struct quic_sent_pkt e = { .pn = 1ULL << 62, .sent_time = 100 };
	static const u64 want[] = { 5, 9 };
	struct quic_sent s;
	int err = 0;

	quic_sent_init(&s);
	if (quic_sent_newest(&s) || quic_sent_oldest(&s) || quic_sent_add(&s, &a))
		err = quic_test_fail(t, "empty store or first add wrong");
	else if (quic_sent_add(&s, &b) != -EINVAL)
		err = quic_test_fail(t, "repeated packet number accepted");
	else if (quic_sent_add(&s, &c) != -EINVAL)
		err = quic_test_fail(t, "send time going back accepted");
	else if (quic_sent_add(&s, &d))
		err = quic_test_fail(t, "skipped packet numbers refused");
	else if (quic_sent_add(&s, &e) != -EINVAL)
		err = quic_test_fail(t, "packet number 2^62 accepted");
	return err ?: check_store(t, &s, want, 2);
}

/* A packet sent and not stored: later numbers go on, an ACK of it is no
 * protocol violation, and only stored non-eliciting packets are counted.
 */
static int sent_skip(struct quic_test *t)
{
	static const struct quic_ack_range ack[] = { { 4, 4 } };
	static const struct quic_ack_range far[] = { { 5, 5 } };
	struct quic_sent_pkt a = { .pn = 1, .sent_time = 1 };
	struct quic_sent_pkt b = { .pn = 2, .sent_time = 2,
				   .ack_eliciting = 1, .in_flight = 1 };
	struct rec r = {};
	struct quic_sent s;

	quic_sent_init(&s);
	if (quic_sent_add(&s, &a) || quic_sent_add(&s, &b) || s.others != 1)
		return quic_test_fail(t, "others %u, want 1", s.others);
	if (quic_sent_skip(&s, 2) != -EINVAL || quic_sent_skip(&s, 4) ||
	    s.next_pn != 5 || s.others != 1)
		return quic_test_fail(t, "skip out of order or not counted");
	if (quic_sent_on_ack(&s, ack, 1, rec_cb, &r) != 0)
		return quic_test_fail(t, "ACK of a skipped packet refused");
	if (quic_sent_on_ack(&s, far, 1, rec_cb, &r) != -EPROTO)
		return quic_test_fail(t, "ACK beyond the skipped packet taken");
	quic_sent_remove_all(&s, rec_cb, &r);
	if (s.others || quic_sent_skip(&s, 1ULL << 62) != -EINVAL)
		return quic_test_fail(t, "others %u after removal", s.others);
	return 0;
}

/* Mixed packets: in flight or not, eliciting or not; callbacks free them. */
static int sent_bytes_in_flight(struct quic_test *t)
{
	static const struct quic_ack_range ack[] = { { 19, 15 }, { 9, 8 } };
	struct quic_sent_pkt *pkt;
	struct rec r = { .free = true };
	u64 bytes = 0, loss_time;
	struct quic_sent s;
	int ret, err = 0;
	u32 i, n;

	quic_sent_init(&s);
	for (i = 0; i < 20; i++) {
		pkt = kzalloc(sizeof(*pkt), GFP_KERNEL);
		if (!pkt) {
			err = -ENOMEM;
			goto out;
		}
		pkt->pn = i;
		pkt->sent_time = i;
		pkt->size = 100 + i;
		pkt->in_flight = i % 3 != 0;	/* ACK-only packets are not */
		pkt->ack_eliciting = pkt->in_flight && i % 4 != 1;
		quic_sent_add(&s, pkt);
		if (pkt->in_flight)
			bytes += pkt->size;
	}
	if (quic_sent_bytes_in_flight(&s) != bytes ||
	    !quic_sent_eliciting_in_flight(&s) || s.last_eliciting_time != 19) {
		err = quic_test_fail(t, "%llu bytes in flight, want %llu",
				     quic_sent_bytes_in_flight(&s), bytes);
		goto out;
	}
	ret = quic_sent_on_ack(&s, ack, 2, rec_cb, &r);
	if (ret != 7 || quic_sent_bytes_in_flight(&s) != bytes - r.bytes) {
		err = quic_test_fail(t, "after ACK: %llu bytes in flight, want %llu",
				     quic_sent_bytes_in_flight(&s), bytes - r.bytes);
		goto out;
	}
	/* Largest acked 12: 0-7 are lost (8-9 acked), 10 and up are not. */
	n = quic_sent_detect_lost(&s, 12, T3, 1000, 0, &loss_time, rec_cb, &r);
	if (n != 8 || quic_sent_bytes_in_flight(&s) != bytes - r.bytes) {
		err = quic_test_fail(t, "after loss: %u lost, %llu bytes in flight, want %llu",
				     n, quic_sent_bytes_in_flight(&s),
				     bytes - r.bytes);
		goto out;
	}
out:
	quic_sent_remove_all(&s, rec_cb, &r);
	if (!err && (r.n != 20 || r.bytes != bytes ||
		     quic_sent_bytes_in_flight(&s) ||
		     quic_sent_eliciting_in_flight(&s) || quic_sent_oldest(&s)))
		err = quic_test_fail(t, "after removing all: %u seen, %llu bytes in flight",
				     r.n, quic_sent_bytes_in_flight(&s));
	return err;
}

static u32 xorshift(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

#define E2E_PKTS	3000

struct e2e {
	struct quic_sent_pkt p;
	bool received;	/* the peer got it */
	bool acked;	/* the callback saw it */
};

static void e2e_cb(void *ctx, struct quic_sent_pkt *pkt)
{
	struct e2e *e = container_of(pkt, struct e2e, p);
	u32 *bad = ctx;

	if (e->acked || !e->received)
		(*bad)++;
	e->acked = true;
}

/* The two halves together: packets (some numbers skipped) are lost or
 * reordered on the way, the receiver's set builds ACK frames, which are
 * decoded and given to the store: exactly the received packets are
 * acknowledged, each once.
 */
static int sent_ack_end_to_end(struct quic_test *t)
{
	struct quic_ack_range *ranges = NULL;
	struct quic_ackrange *set = NULL;
	struct e2e *pkts = NULL;
	u64 pn = 0, largest, first, gap, len;
	struct quic_sent s;
	u32 i, j, n, x = 12345, bad = 0, got = 0, acked = 0;
	int err = 0, ret;

	quic_sent_init(&s);
	pkts = kvcalloc(E2E_PKTS, sizeof(*pkts), GFP_KERNEL);
	set = kmalloc(sizeof(*set), GFP_KERNEL);
	ranges = kcalloc(QUIC_ACK_MAX_RANGES, sizeof(*ranges), GFP_KERNEL);
	if (!pkts || !set || !ranges) {
		err = -ENOMEM;
		goto out;
	}
	quic_ackrange_init(set);
	for (i = 0; i < E2E_PKTS && !err; i++) {
		u32 v = xorshift(&x);

		pn += 1 + (v % 16 == 0);		/* skip a number now and then */
		pkts[i].p.pn = pn;
		pkts[i].p.sent_time = i;
		pkts[i].p.size = 1200;
		pkts[i].p.in_flight = 1;
		pkts[i].p.ack_eliciting = 1;
		quic_sent_add(&s, &pkts[i].p);
		/* Lose 1 in 8; deliver the others, half of them one late. */
		if ((v >> 4) % 8 && i) {
			j = (v >> 8) % 2 ? i : i - 1;
			if (!pkts[j].received &&
			    !quic_ackrange_add(set, pkts[j].p.pn, i)) {
				pkts[j].received = true;
				got++;
			}
		}
		if (i % 8 != 7 || !quic_ackrange_first(set, &largest, &first))
			continue;
		if (quic_ack_range_first(largest, first, &ranges[0])) {
			err = quic_test_fail(t, "bad first range");
			break;
		}
		n = quic_ackrange_count(set);
		for (j = 1; j < n && !err; j++)
			if (!quic_ackrange_gap(set, j, &gap, &len) ||
			    quic_ack_range_next(&ranges[j - 1], gap, len, &ranges[j]))
				err = quic_test_fail(t, "bad pair %u", j);
		ret = err ?: quic_sent_on_ack(&s, ranges, n, e2e_cb, &bad);
		if (ret < 0)
			err = err ?: quic_test_fail(t, "on_ack = %d", ret);
		else
			acked += ret;
	}
	if (!err && bad)
		err = quic_test_fail(t, "%u wrong callbacks", bad);
	/* The set forgets only what no longer fits: all but the oldest. */
	if (!err && (acked > got || acked < got - got / 4))
		err = quic_test_fail(t, "%u acked of %u received", acked, got);
out:
	kfree(ranges);
	kfree(set);
	kvfree(pkts);
	return err;
}

static const struct quic_test_case quic_sent_cases[] = {
	QUIC_TEST_CASE(sent_ack_single),
	QUIC_TEST_CASE(sent_ack_ranges),
	QUIC_TEST_CASE(sent_ack_bad_ranges),
	QUIC_TEST_CASE(sent_ack_again),
	QUIC_TEST_CASE(sent_ack_cost),
	QUIC_TEST_CASE(sent_lost_packet_threshold),
	QUIC_TEST_CASE(sent_lost_time_threshold),
	QUIC_TEST_CASE(sent_add_order),
	QUIC_TEST_CASE(sent_skip),
	QUIC_TEST_CASE(sent_bytes_in_flight),
	QUIC_TEST_CASE(sent_ack_end_to_end),
};

/* Micro-benchmark of ACK processing: what one quic_sent_on_ack() costs for
 * an ACK of three ranges of 20 packets near the oldest end of the flight,
 * 70-89, 40-59 and 10-29 above the oldest packet number in flight (largest
 * first, as ACK frames list them).  First with 2,000 packets in flight,
 * against a deliberately naive store that walks every packet in flight and
 * checks it against each range; then as the flight grows from 1,000 to
 * 100,000 packets, where a store that scales stays flat.
 *
 * The flight slides rather than being rebuilt: after each timed ACK, an
 * untimed one acknowledges the 40 packets left among the oldest
 * BENCH_STEP, and BENCH_STEP new packets are sent.  So every timed ACK
 * meets the same flight, n packets above the oldest, each time at packet
 * numbers BENCH_STEP higher.  The records are a ring of n, the new packets
 * taking the slots the acknowledged ones left.
 *
 * Each ACK is timed on its own, ktime_get_ns() on either side; what such a
 * pair costs by itself is measured and subtracted.  A run lasts
 * BENCH_RUN_NS, and at least BENCH_MIN_ACKS ACKs; the mean of the best of
 * BENCH_RUNS runs counts.
 */
#define BENCH_STEP		100
#define BENCH_ACKED		60	/* by each timed ACK */
#define BENCH_PKT_SIZE		1200
#define BENCH_BASE_FLIGHT	2000
#define BENCH_MAX_FLIGHT	100000
#define BENCH_RUNS		3
#define BENCH_RUN_NS		(20 * NSEC_PER_MSEC)
#define BENCH_MIN_ACKS		4
#define BENCH_MAX_ACKS		100000
#define BENCH_CLOCK_PAIRS	1024

/* Above the oldest packet number in flight. */
static const struct quic_ack_range bench_ranges[] = {
	{ 89, 70 }, { 59, 40 }, { 29, 10 },
};

/* The naive store: the packets in a list, in the order they were sent. */
struct naive_sent {
	struct list_head head;
	u64 bytes_in_flight;
};

/* Every packet in flight is checked against each range in turn. */
static noinline int naive_on_ack(struct naive_sent *ns,
				 const struct quic_ack_range *ranges, u32 n,
				 quic_sent_cb cb, void *ctx)
{
	struct quic_sent_pkt *pkt, *tmp;
	int acked = 0;
	u32 i;

	list_for_each_entry_safe(pkt, tmp, &ns->head, list) {
		for (i = 0; i < n; i++) {
			if (pkt->pn < ranges[i].smallest ||
			    pkt->pn > ranges[i].largest)
				continue;
			list_del(&pkt->list);
			ns->bytes_in_flight -= pkt->size;
			cb(ctx, pkt);
			acked++;
			break;
		}
	}
	return acked;
}

struct bench_flight {
	struct quic_sent sent;		/* the store measured, */
	struct naive_sent naive;	/* or the naive one if @use_naive */
	struct quic_sent_pkt *pkts;	/* the ring of @n records */
	u32 n;				/* packets in flight */
	u32 slot;			/* the record of the next packet sent */
	u64 next_pn;
	u64 oldest;			/* the oldest packet number in flight */
	bool use_naive;
};

static void bench_cb(void *ctx, struct quic_sent_pkt *pkt)
{
	u32 *acked = ctx;

	(*acked)++;
}

static int bench_send(struct bench_flight *f)
{
	struct quic_sent_pkt *pkt = &f->pkts[f->slot];

	if (++f->slot == f->n)
		f->slot = 0;
	pkt->pn = f->next_pn++;
	pkt->sent_time = pkt->pn;
	pkt->size = BENCH_PKT_SIZE;
	pkt->ack_eliciting = 1;
	pkt->in_flight = 1;
	if (!f->use_naive)
		return quic_sent_add(&f->sent, pkt);
	list_add_tail(&pkt->list, &f->naive.head);
	f->naive.bytes_in_flight += pkt->size;
	return 0;
}

static int bench_ack(struct bench_flight *f,
		     const struct quic_ack_range *ranges, u32 n, u32 *acked)
{
	if (f->use_naive)
		return naive_on_ack(&f->naive, ranges, n, bench_cb, acked);
	return quic_sent_on_ack(&f->sent, ranges, n, bench_cb, acked);
}

static int bench_flight_init(struct bench_flight *f,
			     struct quic_sent_pkt *pkts, u32 n, bool use_naive)
{
	u32 i;
	int err;

	memset(f, 0, sizeof(*f));
	quic_sent_init(&f->sent);
	INIT_LIST_HEAD(&f->naive.head);
	f->pkts = pkts;
	f->n = n;
	f->use_naive = use_naive;
	for (i = 0; i < n; i++) {
		err = bench_send(f);
		if (err)
			return err;
		if (!(i % 4096))
			cond_resched();
	}
	return 0;
}

/* Hand the records back: none stays linked in a store once this returns. */
static void bench_flight_release(struct bench_flight *f)
{
	u32 removed = 0;

	quic_sent_remove_all(&f->sent, bench_cb, &removed);
	INIT_LIST_HEAD(&f->naive.head);
}

/* One timed ACK, into *@ns; then the flight slides by BENCH_STEP. */
static int bench_one(struct bench_flight *f, u64 *ns)
{
	struct quic_ack_range r[ARRAY_SIZE(bench_ranges)];
	u64 bytes, t0, t1;
	u32 i, acked = 0;
	int ret;

	for (i = 0; i < ARRAY_SIZE(r); i++) {
		r[i].largest = f->oldest + bench_ranges[i].largest;
		r[i].smallest = f->oldest + bench_ranges[i].smallest;
	}
	if (f->use_naive) {
		t0 = ktime_get_ns();
		ret = naive_on_ack(&f->naive, r, ARRAY_SIZE(r), bench_cb,
				   &acked);
		t1 = ktime_get_ns();
	} else {
		t0 = ktime_get_ns();
		ret = quic_sent_on_ack(&f->sent, r, ARRAY_SIZE(r), bench_cb,
				       &acked);
		t1 = ktime_get_ns();
	}
	*ns = t1 - t0;
	if (ret != BENCH_ACKED || acked != BENCH_ACKED)
		return -EINVAL;

	r[0].largest = f->oldest + BENCH_STEP - 1;
	r[0].smallest = f->oldest;
	ret = bench_ack(f, r, 1, &acked);
	if (ret != BENCH_STEP - BENCH_ACKED || acked != BENCH_STEP)
		return -EINVAL;
	for (i = 0; i < BENCH_STEP; i++) {
		ret = bench_send(f);
		if (ret)
			return ret;
	}
	f->oldest += BENCH_STEP;
	bytes = f->use_naive ? f->naive.bytes_in_flight :
			       quic_sent_bytes_in_flight(&f->sent);
	return bytes == (u64)f->n * BENCH_PKT_SIZE ? 0 : -EINVAL;
}

/* What a ktime_get_ns() pair costs, in picoseconds: the best of the runs. */
static u64 bench_clock_ps(void)
{
	u64 best = U64_MAX, sum, t0;
	u32 run, i;

	for (run = 0; run < BENCH_RUNS; run++) {
		sum = 0;
		for (i = 0; i < BENCH_CLOCK_PAIRS; i++) {
			t0 = ktime_get_ns();
			sum += ktime_get_ns() - t0;
		}
		best = min(best, sum);
		cond_resched();
	}
	return div64_u64(best * 1000, BENCH_CLOCK_PAIRS);
}

/* The time of one ACK with @n packets in flight, in picoseconds, less
 * @clock_ps: the mean of the best run.
 */
static int bench_measure(struct quic_sent_pkt *pkts, u32 n, bool use_naive,
			 u64 clock_ps, u64 *ps)
{
	u64 best = U64_MAX, start, sum, ns;
	struct bench_flight f;
	u32 run, acks;
	int err;

	err = bench_flight_init(&f, pkts, n, use_naive);
	for (run = 0; !err && run < BENCH_RUNS; run++) {
		start = ktime_get_ns();
		sum = 0;
		for (acks = 0; acks < BENCH_MAX_ACKS; ) {
			err = bench_one(&f, &ns);
			if (err)
				break;
			sum += ns;
			acks++;
			cond_resched();
			if (acks >= BENCH_MIN_ACKS &&
			    ktime_get_ns() - start >= BENCH_RUN_NS)
				break;
		}
		if (!err)
			best = min(best, div64_u64(sum * 1000, acks));
	}
	bench_flight_release(&f);
	*ps = best > clock_ps ? best - clock_ps : 0;
	return err;
}

static void quic_sent_bench(void)
{
	static const u32 flights[] = { 1000, 10000, BENCH_MAX_FLIGHT };
	u64 clock_ps, ours, naive, ps[ARRAY_SIZE(flights)];
	struct quic_sent_pkt *pkts;
	char what[96];
	u32 i;

	pkts = kvcalloc(BENCH_MAX_FLIGHT, sizeof(*pkts), GFP_KERNEL);
	if (!pkts)
		return;
	clock_ps = bench_clock_ps();
	quic_test_bench_time("ack timing: a ktime_get_ns() pair, subtracted below",
			     clock_ps, 1000);

	if (bench_measure(pkts, BENCH_BASE_FLIGHT, false, clock_ps, &ours) ||
	    bench_measure(pkts, BENCH_BASE_FLIGHT, true, clock_ps, &naive))
		goto fail;
	snprintf(what, sizeof(what),
		 "ack 70-89,40-59,10-29, %u in flight: quic_sent_on_ack",
		 BENCH_BASE_FLIGHT);
	quic_test_bench_time(what, ours, 1000);
	snprintf(what, sizeof(what),
		 "ack 70-89,40-59,10-29, %u in flight: naive list",
		 BENCH_BASE_FLIGHT);
	quic_test_bench_time(what, naive, 1000);
	snprintf(what, sizeof(what),
		 "ratio naive/quic_sent_on_ack, %u in flight",
		 BENCH_BASE_FLIGHT);
	quic_test_bench_ratio(what, naive, ours);

	for (i = 0; i < ARRAY_SIZE(flights); i++) {
		if (bench_measure(pkts, flights[i], false, clock_ps, &ps[i]))
			goto fail;
		snprintf(what, sizeof(what),
			 "ack 70-89,40-59,10-29, %u in flight: quic_sent_on_ack",
			 flights[i]);
		quic_test_bench_time(what, ps[i], 1000);
	}
	snprintf(what, sizeof(what),
		 "ratio quic_sent_on_ack %u/%u in flight",
		 flights[ARRAY_SIZE(flights) - 1], flights[0]);
	quic_test_bench_ratio(what, ps[ARRAY_SIZE(flights) - 1], ps[0]);
	goto out;
fail:
	pr_info("# bench: quic_sent: an ACK did not acknowledge what it should\n");
out:
	kvfree(pkts);
}

const struct quic_test_suite quic_sent_suite = {
	.name		= "quic_sent",
	.cases		= quic_sent_cases,
	.num_cases	= ARRAY_SIZE(quic_sent_cases),
	.bench		= quic_sent_bench,
};
