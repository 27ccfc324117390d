// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/recovery.h: the RTT estimator (RFC 9002,
 * section 5), the loss thresholds it feeds (section 6.1), the probe
 * timeout with its backoff (section 6.2), and the engine that works them
 * over the sent stores of the spaces.  Times in microseconds.
 */

#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/quic.h>
#include "../recovery.h"
#include "../sent.h"

#include "test.h"

#define MS	1000ULL

static int check_rtt(struct quic_test *t, const struct quic_rtt *r,
		     u64 latest, u64 min, u64 srtt, u64 var)
{
	if (r->latest_rtt != latest || r->min_rtt != min ||
	    r->smoothed_rtt != srtt || r->rttvar != var)
		return quic_test_fail(t, "rtt %llu/%llu/%llu/%llu, want %llu/%llu/%llu/%llu",
				      r->latest_rtt, r->min_rtt,
				      r->smoothed_rtt, r->rttvar,
				      latest, min, srtt, var);
	return 0;
}

/* 5.3: before a sample, smoothed_rtt = kInitialRtt, rttvar half of it;
 * the PTO is then 333 + 4 * 166.5 = 999 ms, the RFC's "1 second".
 */
static int rtt_initial(struct quic_test *t)
{
	struct quic_rtt r;
	int err;

	quic_rtt_init(&r, QUIC_INITIAL_RTT_US);
	err = check_rtt(t, &r, 0, 0, 333 * MS, 166500);
	if (!err && r.has_sample)
		err = quic_test_fail(t, "sample before any");
	if (!err && quic_rtt_pto(&r, 0, 0) != 999 * MS)
		err = quic_test_fail(t, "initial PTO %llu", quic_rtt_pto(&r, 0, 0));
	return err;
}

/* 5.3: the first sample sets min_rtt and smoothed_rtt to it, rttvar to
 * half of it, and ignores the ACK delay.
 */
static int rtt_first_sample(struct quic_test *t)
{
	struct quic_rtt r;
	int err;

	quic_rtt_init(&r, QUIC_INITIAL_RTT_US);
	quic_rtt_update(&r, 100 * MS, 20 * MS);
	err = check_rtt(t, &r, 100 * MS, 100 * MS, 100 * MS, 50 * MS);
	if (!err && !r.has_sample)
		err = quic_test_fail(t, "no sample recorded");
	return err;
}

/* 5.3: later samples subtract the ACK delay; smoothed_rtt moves by 1/8
 * and rttvar by 1/4 of the deviation.
 */
static int rtt_ack_delay_subtracted(struct quic_test *t)
{
	struct quic_rtt r;

	quic_rtt_init(&r, QUIC_INITIAL_RTT_US);
	quic_rtt_update(&r, 100 * MS, 0);
	/* adjusted = 130 - 20 = 110 ms */
	quic_rtt_update(&r, 130 * MS, 20 * MS);
	/* srtt = (7 * 100 + 110) / 8, rttvar = (3 * 50 + 10) / 4 */
	return check_rtt(t, &r, 130 * MS, 100 * MS, 101250, 40 * MS);
}

/* 5.3: the ACK delay is not subtracted if that would go below min_rtt. */
static int rtt_ack_delay_floor(struct quic_test *t)
{
	struct quic_rtt r;

	quic_rtt_init(&r, QUIC_INITIAL_RTT_US);
	quic_rtt_update(&r, 100 * MS, 0);
	/* 110 - 30 < 100: the sample counts whole. */
	quic_rtt_update(&r, 110 * MS, 30 * MS);
	return check_rtt(t, &r, 110 * MS, 100 * MS, 101250, 40 * MS);
}

/* 5.2: min_rtt is the smallest raw sample, ACK delay not subtracted. */
static int rtt_min(struct quic_test *t)
{
	struct quic_rtt r;
	int err;

	quic_rtt_init(&r, QUIC_INITIAL_RTT_US);
	quic_rtt_update(&r, 100 * MS, 0);
	quic_rtt_update(&r, 60 * MS, 50 * MS);
	/* 60 < 50 + 60: the delay is not subtracted; deviation 40 ms */
	err = check_rtt(t, &r, 60 * MS, 60 * MS, 95 * MS, 47500);
	if (err)
		return err;
	quic_rtt_update(&r, 200 * MS, 0);
	if (r.min_rtt != 60 * MS)
		return quic_test_fail(t, "min_rtt rose to %llu", r.min_rtt);
	return 0;
}

/* RFC 9000 19.3 and RFC 9002 5.3: ACK Delay scaling and capping. */
static int rtt_ack_delay_field(struct quic_test *t)
{
	if (quic_rtt_ack_delay(1000, 3, false, 25 * MS) != 8000)
		return quic_test_fail(t, "exponent 3 not applied");
	if (quic_rtt_ack_delay(10000, 3, false, 25 * MS) != 80000)
		return quic_test_fail(t, "capped before confirmation");
	if (quic_rtt_ack_delay(10000, 3, true, 25 * MS) != 25 * MS)
		return quic_test_fail(t, "not capped by max_ack_delay");
	if (quic_rtt_ack_delay(U64_MAX >> 2, 20, false, 0) != U64_MAX)
		return quic_test_fail(t, "overflow not saturated");
	if (quic_rtt_ack_delay(5, 0, true, 25 * MS) != 5)
		return quic_test_fail(t, "exponent 0");
	return 0;
}

/* 6.1.2: 9/8 of max(smoothed_rtt, latest_rtt), at least 1 ms. */
static int loss_delay(struct quic_test *t)
{
	struct quic_rtt r;

	quic_rtt_init(&r, QUIC_INITIAL_RTT_US);
	quic_rtt_update(&r, 100 * MS, 0);
	if (quic_rtt_loss_delay(&r) != 112500)
		return quic_test_fail(t, "srtt: %llu", quic_rtt_loss_delay(&r));
	r.latest_rtt = 120 * MS;
	if (quic_rtt_loss_delay(&r) != 135 * MS)
		return quic_test_fail(t, "latest: %llu", quic_rtt_loss_delay(&r));
	quic_rtt_init(&r, 0);
	quic_rtt_update(&r, 100, 0);
	if (quic_rtt_loss_delay(&r) != QUIC_GRANULARITY_US)
		return quic_test_fail(t, "granularity: %llu",
				      quic_rtt_loss_delay(&r));
	return 0;
}

struct lost {
	u64 pn[16];
	u32 n;
};

static void lost_cb(void *ctx, struct quic_sent_pkt *pkt)
{
	struct lost *l = ctx;

	if (l->n < ARRAY_SIZE(l->pn))
		l->pn[l->n] = pkt->pn;
	l->n++;
}

/* Packets 0..9 sent 10 ms apart; the estimate says 100 ms. */
static void loss_setup(struct quic_sent *s, struct quic_sent_pkt *pkts,
		       struct quic_rtt *r)
{
	u32 i;

	quic_sent_init(s);
	for (i = 0; i < 10; i++) {
		pkts[i] = (struct quic_sent_pkt){ .pn = i,
			.sent_time = 1000 * MS + i * 10 * MS, .size = 1200,
			.ack_eliciting = 1, .in_flight = 1 };
		quic_sent_add(s, &pkts[i]);
	}
	quic_rtt_init(r, QUIC_INITIAL_RTT_US);
	quic_rtt_update(r, 100 * MS, 0);
}

/* 6.1.1: acknowledging packet 5 loses 0..2 (kPacketThreshold 3) but not
 * 3 and 4, which get a loss time of their send time plus 9/8 RTT.
 */
static int loss_packet_threshold(struct quic_test *t)
{
	struct quic_ack_range rg = { .largest = 5, .smallest = 5 };
	struct quic_sent_pkt pkts[10];
	struct lost l = {};
	struct quic_sent s;
	struct quic_rtt r;
	u64 loss_time, now = 1060 * MS;
	u32 n;

	loss_setup(&s, pkts, &r);
	if (quic_sent_on_ack(&s, &rg, 1, lost_cb, &l) != 1)
		return quic_test_fail(t, "ack of 5 failed");
	l.n = 0;
	n = quic_sent_detect_lost(&s, s.largest_acked, QUIC_PACKET_THRESHOLD,
				  quic_rtt_loss_delay(&r),
				  now, &loss_time, lost_cb, &l);
	if (n != 3 || l.pn[0] != 0 || l.pn[2] != 2)
		return quic_test_fail(t, "%u lost, first %llu", n, l.pn[0]);
	if (loss_time != 1030 * MS + 112500)
		return quic_test_fail(t, "loss time %llu", loss_time);
	return 0;
}

/* 6.1.2: at the loss time packet 3 is lost by time, 4 is not yet. */
static int loss_time_threshold(struct quic_test *t)
{
	struct quic_ack_range rg = { .largest = 5, .smallest = 5 };
	struct quic_sent_pkt pkts[10];
	struct lost l = {};
	struct quic_sent s;
	struct quic_rtt r;
	u64 loss_time;
	u32 n;

	loss_setup(&s, pkts, &r);
	quic_sent_on_ack(&s, &rg, 1, lost_cb, &l);
	/* Packet 4 (and 3) are only 1 and 2 below: time decides. */
	quic_sent_detect_lost(&s, 5, QUIC_PACKET_THRESHOLD,
			      quic_rtt_loss_delay(&r), 1060 * MS, &loss_time,
			      lost_cb, &l);
	l.n = 0;
	n = quic_sent_detect_lost(&s, 5, QUIC_PACKET_THRESHOLD,
				  quic_rtt_loss_delay(&r), 1030 * MS + 112500,
				  &loss_time, lost_cb, &l);
	if (n != 1 || l.pn[0] != 3)
		return quic_test_fail(t, "%u lost, first %llu", n, l.pn[0]);
	if (loss_time != 1040 * MS + 112500)
		return quic_test_fail(t, "loss time %llu", loss_time);
	/* A larger latest_rtt stretches the threshold (max of the two). */
	r.latest_rtt = 200 * MS;
	l.n = 0;
	n = quic_sent_detect_lost(&s, 5, QUIC_PACKET_THRESHOLD,
				  quic_rtt_loss_delay(&r), 1040 * MS + 112500,
				  &loss_time, lost_cb, &l);
	if (n || loss_time != 1040 * MS + 225 * MS)
		return quic_test_fail(t, "%u lost with latest_rtt 200 ms", n);
	return 0;
}

/* 6.2.1: smoothed_rtt + max(4 * rttvar, 1 ms) + max_ack_delay, doubled
 * per expiry, the exponent capped.
 */
static int pto_backoff(struct quic_test *t)
{
	struct quic_rtt r;
	u32 i;

	quic_rtt_init(&r, QUIC_INITIAL_RTT_US);
	quic_rtt_update(&r, 100 * MS, 0);
	if (quic_rtt_pto(&r, 0, 0) != 300 * MS)
		return quic_test_fail(t, "pto %llu", quic_rtt_pto(&r, 0, 0));
	for (i = 0; i < 4; i++)
		if (quic_rtt_pto(&r, 25 * MS, i) != (325 * MS << i))
			return quic_test_fail(t, "pto_count %u: %llu", i,
					      quic_rtt_pto(&r, 25 * MS, i));
	if (quic_rtt_pto(&r, 0, 1000) != 300 * MS << QUIC_PTO_MAX_SHIFT)
		return quic_test_fail(t, "backoff not capped");
	/* rttvar 0: kGranularity instead of 4 * rttvar. */
	r.smoothed_rtt = 100;
	r.rttvar = 0;
	if (quic_rtt_pto(&r, 0, 0) != 100 + QUIC_GRANULARITY_US)
		return quic_test_fail(t, "granularity: %llu",
				      quic_rtt_pto(&r, 0, 0));
	return 0;
}

/* 5.1: an ACK whose largest packet is newly acknowledged and ack-eliciting
 * gives a sample, minus the ACK delay; it resets the PTO backoff. An ACK
 * that acknowledges only what was acknowledged before gives none.
 */
static int engine_on_ack(struct quic_test *t)
{
	struct quic_ack_range rg = { .largest = 5, .smallest = 4 };
	struct quic_sent_pkt pkts[10];
	struct quic_recovery rec;
	struct lost l = {};
	struct quic_sent s;
	struct quic_rtt r;
	int n;

	loss_setup(&s, pkts, &r);
	quic_recovery_init(&rec, QUIC_INITIAL_RTT_US);
	quic_recovery_on_pto(&rec);
	quic_recovery_on_pto(&rec);
	/* Packet 5 went at 1050 ms: a 150 ms sample, 10 ms of it delay. */
	n = quic_recovery_on_ack(&rec, &s, &rg, 1, 10 * MS, 1200 * MS,
				 lost_cb, &l);
	if (n != 2 || l.n != 2)
		return quic_test_fail(t, "%d acked, %u called back", n, l.n);
	if (rec.pto_count)
		return quic_test_fail(t, "backoff not reset");
	if (check_rtt(t, &rec.rtt, 150 * MS, 150 * MS, 150 * MS, 75 * MS))
		return -EINVAL;
	rec.pto_count = 1;
	n = quic_recovery_on_ack(&rec, &s, &rg, 1, 0, 1300 * MS, lost_cb, &l);
	if (n || rec.pto_count != 1 || rec.rtt.latest_rtt != 150 * MS)
		return quic_test_fail(t, "a repeated ACK counted: %d", n);
	return 0;
}

/* A newly acknowledged largest packet that is not ack-eliciting (an
 * ACK-only packet) gives no sample (RFC 9002 5.1).
 */
static int engine_no_sample(struct quic_test *t)
{
	struct quic_ack_range rg = { .largest = 1, .smallest = 1 };
	struct quic_sent_pkt pkts[2] = {
		{ .pn = 0, .sent_time = 10 * MS, .ack_eliciting = 1,
		  .in_flight = 1, .size = 100 },
		{ .pn = 1, .sent_time = 20 * MS, .size = 50 },
	};
	struct quic_recovery rec;
	struct lost l = {};
	struct quic_sent s;

	quic_sent_init(&s);
	quic_sent_add(&s, &pkts[0]);
	quic_sent_add(&s, &pkts[1]);
	quic_recovery_init(&rec, QUIC_INITIAL_RTT_US);
	if (quic_recovery_on_ack(&rec, &s, &rg, 1, 0, 90 * MS, lost_cb,
				 &l) != 1)
		return quic_test_fail(t, "ack of 1 not counted");
	if (rec.rtt.has_sample)
		return quic_test_fail(t, "sample from an ACK-only packet");
	return 0;
}

/* A.8: the earliest loss time of any space comes first; else the
 * earliest PTO among the spaces with ack-eliciting packets in flight,
 * with the application space's max_ack_delay; discarded spaces and
 * spaces with nothing in flight do not count; nothing: NONE.
 */
static int engine_deadline(struct quic_test *t)
{
	struct quic_sent_pkt pa = { .pn = 0, .sent_time = 100 * MS,
				    .ack_eliciting = 1, .in_flight = 1,
				    .size = 1200 };
	struct quic_sent_pkt ph = pa;
	struct quic_rec_space sp[QUIC_PNSPACE_NUM] = {};
	u64 loss[QUIC_PNSPACE_NUM] = {}, deadline = 0;
	struct quic_sent sa, sh, si;
	struct quic_recovery rec;
	int space, i;

	quic_sent_init(&sa);
	quic_sent_init(&sh);
	quic_sent_init(&si);
	ph.sent_time = 120 * MS;
	quic_sent_add(&sa, &pa);
	quic_sent_add(&sh, &ph);
	for (i = 0; i < QUIC_PNSPACE_NUM; i++)
		sp[i].loss_time = &loss[i];
	sp[QUIC_CRYPTO_INITIAL].sent = &si;	/* nothing in flight */
	sp[QUIC_CRYPTO_APP].sent = &sa;
	sp[QUIC_CRYPTO_APP].max_ack_delay = 25 * MS;
	quic_recovery_init(&rec, QUIC_INITIAL_RTT_US);
	quic_rtt_update(&rec.rtt, 100 * MS, 0);	/* PTO 300 ms */
	/* Handshake discarded: the application space's PTO. */
	if (quic_recovery_deadline(&rec, sp, &deadline, &space) !=
	    QUIC_REC_PTO || space != QUIC_CRYPTO_APP ||
	    deadline != 425 * MS)
		return quic_test_fail(t, "app PTO: space %d at %llu", space,
				      deadline);
	/* Handshake's PTO (no max_ack_delay) is earlier: 420 ms. */
	sp[QUIC_CRYPTO_HANDSHAKE].sent = &sh;
	quic_recovery_deadline(&rec, sp, &deadline, &space);
	if (space != QUIC_CRYPTO_HANDSHAKE || deadline != 420 * MS)
		return quic_test_fail(t, "handshake PTO: %d at %llu", space,
				      deadline);
	/* Backed off once, max_ack_delay too: 100 + 2 * 325 vs 120 + 600. */
	quic_recovery_on_pto(&rec);
	quic_recovery_deadline(&rec, sp, &deadline, &space);
	if (space != QUIC_CRYPTO_HANDSHAKE || deadline != 720 * MS)
		return quic_test_fail(t, "backed off: %d at %llu", space,
				      deadline);
	/* A loss time wins, even a later one. */
	loss[QUIC_CRYPTO_INITIAL] = 900 * MS;
	if (quic_recovery_deadline(&rec, sp, &deadline, &space) !=
	    QUIC_REC_LOSS || space != QUIC_CRYPTO_INITIAL ||
	    deadline != 900 * MS)
		return quic_test_fail(t, "loss time: %d at %llu", space,
				      deadline);
	loss[QUIC_CRYPTO_INITIAL] = 0;
	sp[QUIC_CRYPTO_APP].sent = NULL;
	sp[QUIC_CRYPTO_HANDSHAKE].sent = NULL;
	if (quic_recovery_deadline(&rec, sp, &deadline, &space) !=
	    QUIC_REC_NONE)
		return quic_test_fail(t, "a deadline with nothing in flight");
	return 0;
}

/* Loss detection through the engine counts the ack-eliciting packets it
 * declares lost and keeps the space's loss time.
 */
static int engine_detect_lost(struct quic_test *t)
{
	struct quic_ack_range rg = { .largest = 5, .smallest = 5 };
	struct quic_sent_pkt pkts[10];
	struct quic_recovery rec;
	struct quic_rec_space sp;
	struct lost l = {};
	struct quic_sent s;
	u64 loss_time = 1;
	u32 n;

	loss_setup(&s, pkts, &rec.rtt);
	rec.pto_count = 0;
	rec.pkt_threshold = QUIC_PACKET_THRESHOLD;
	rec.time_num = QUIC_TIME_THRESHOLD_NUM;
	sp = (struct quic_rec_space){ .sent = &s, .loss_time = &loss_time };
	n = quic_recovery_detect_lost(&rec, &sp, 1060 * MS, lost_cb, &l);
	if (n || loss_time)
		return quic_test_fail(t, "loss before any ACK: %u", n);
	quic_sent_on_ack(&s, &rg, 1, lost_cb, &l);
	l.n = 0;
	n = quic_recovery_detect_lost(&rec, &sp, 1060 * MS, lost_cb, &l);
	if (n != 3 || l.n != 3 || loss_time != 1030 * MS + 112500)
		return quic_test_fail(t, "%u lost, loss time %llu", n,
				      loss_time);
	return 0;
}

/* The backoff stops at max_backoff, but never cuts the PTO without
 * backoff; 0 is no cap.
 */
static int engine_backoff_cap(struct quic_test *t)
{
	static const u64 want[] = { 300, 600, 1000, 1000, 1000 };
	struct quic_recovery rec;
	u32 i;

	quic_recovery_init(&rec, QUIC_INITIAL_RTT_US);
	quic_rtt_update(&rec.rtt, 100 * MS, 0);	/* PTO 300 ms */
	rec.max_backoff = 1000 * MS;
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		if (quic_recovery_pto(&rec, 0) != want[i] * MS)
			return quic_test_fail(t, "pto_count %u: %llu", i,
					      quic_recovery_pto(&rec, 0));
		quic_recovery_on_pto(&rec);
	}
	rec.max_backoff = 100 * MS;
	if (quic_recovery_pto(&rec, 0) != 300 * MS)
		return quic_test_fail(t, "cap below the PTO: %llu",
				      quic_recovery_pto(&rec, 0));
	rec.max_backoff = 0;
	if (quic_recovery_pto(&rec, 0) != 300 * MS << rec.pto_count)
		return quic_test_fail(t, "no cap: %llu",
				      quic_recovery_pto(&rec, 0));
	return 0;
}

/* A burst declared lost by one ACK is one run, found piece by piece. */
static int engine_spurious_run(struct quic_test *t)
{
	struct quic_ack_range mid = { .largest = 57, .smallest = 56 };
	struct quic_ack_range low = { .largest = 51, .smallest = 50 };
	struct quic_ack_range rest = { .largest = 60, .smallest = 52 };
	struct quic_recovery rec;
	bool undo;
	u64 pn;
	u32 n;

	quic_recovery_init(&rec, QUIC_INITIAL_RTT_US);
	for (pn = 50; pn < 60; pn++)
		quic_recovery_lost_note(&rec, pn, 70);
	if (rec.lost_next != 1 || rec.lost[0].first != 50 ||
	    rec.lost[0].last != 59)
		return quic_test_fail(t, "not one run: next %u", rec.lost_next);
	/* Inside the run: 56-57 found, 50-55 and 58-59 kept apart. */
	n = quic_recovery_spurious(&rec, &mid, 1, 58, &undo);
	if (n != 2 || undo || rec.pkt_threshold != 15)
		return quic_test_fail(t, "mid: %u, threshold %u", n,
				      rec.pkt_threshold);
	n = quic_recovery_spurious(&rec, &low, 1, 51, &undo);
	if (n != 2 || !undo || rec.lost[0].first != 52 ||
	    rec.lost[0].last != 55)
		return quic_test_fail(t, "low: %u, run %llu-%llu", n,
				      rec.lost[0].first, rec.lost[0].last);
	if (rec.lost_next != 2 || rec.lost[1].first != 58 ||
	    rec.lost[1].last != 59)
		return quic_test_fail(t, "upper part: next %u", rec.lost_next);
	n = quic_recovery_spurious(&rec, &rest, 1, 59, &undo);
	if (n != 6 || !undo || rec.lost[0].largest || rec.lost[1].largest ||
	    rec.spurious != 10)
		return quic_test_fail(t, "rest: %u, total %u", n, rec.spurious);
	n = quic_recovery_spurious(&rec, &rest, 1, U64_MAX, &undo);
	if (n)
		return quic_test_fail(t, "found again: %u", n);
	/* A gap, or another ACK, starts a new run. */
	quic_recovery_lost_note(&rec, 62, 70);
	quic_recovery_lost_note(&rec, 63, 80);
	if (rec.lost_next != 4)
		return quic_test_fail(t, "runs merged: next %u", rec.lost_next);
	return 0;
}

/* A loss the peer's ACK later contradicts widens both thresholds: the
 * packet threshold to the distance the packet was overtaken by, the time
 * threshold by an eighth; the event's packet asks for an undo.
 */
static int engine_spurious(struct quic_test *t)
{
	struct quic_ack_range rg[2] = {
		{ .largest = 40, .smallest = 30 },
		{ .largest = 12, .smallest = 10 },
	};
	struct quic_recovery rec;
	bool undo;
	u32 n;

	quic_recovery_init(&rec, QUIC_INITIAL_RTT_US);
	quic_rtt_update(&rec.rtt, 80 * MS, 0);
	if (quic_recovery_loss_delay(&rec) != 90 * MS)
		return quic_test_fail(t, "loss delay %llu",
				      quic_recovery_loss_delay(&rec));
	quic_recovery_lost_note(&rec, 11, 20);
	quic_recovery_lost_note(&rec, 15, 20);
	n = quic_recovery_spurious(&rec, rg, 2, 11, &undo);
	if (n != 1 || !undo || rec.spurious != 1)
		return quic_test_fail(t, "found %u, undo %d", n, undo);
	if (rec.pkt_threshold != 10 || rec.time_num != 10)
		return quic_test_fail(t, "thresholds %u, %u/8",
				      rec.pkt_threshold, rec.time_num);
	if (quic_recovery_loss_delay(&rec) != 100 * MS)
		return quic_test_fail(t, "loss delay %llu",
				      quic_recovery_loss_delay(&rec));
	/* Found once only; 15 stays lost. */
	n = quic_recovery_spurious(&rec, rg, 2, 11, &undo);
	if (n || undo)
		return quic_test_fail(t, "found again: %u", n);
	/* Far reordering is capped. */
	quic_recovery_lost_note(&rec, 31, 1000);
	quic_recovery_spurious(&rec, rg, 1, U64_MAX, &undo);
	if (rec.pkt_threshold != QUIC_PACKET_THRESHOLD_MAX || undo)
		return quic_test_fail(t, "cap: %u", rec.pkt_threshold);
	/* Congestion events with no spurious loss bring the RFC's back. */
	for (n = 0; n < QUIC_REC_CLEAN_EVENTS; n++)
		quic_recovery_on_event(&rec);
	if (rec.pkt_threshold != QUIC_PACKET_THRESHOLD ||
	    rec.time_num != QUIC_TIME_THRESHOLD_NUM)
		return quic_test_fail(t, "no decay: %u, %u/8",
				      rec.pkt_threshold, rec.time_num);
	return engine_spurious_run(t);
}

static const struct quic_test_case quic_recovery_cases[] = {
	QUIC_TEST_CASE(rtt_initial),
	QUIC_TEST_CASE(rtt_first_sample),
	QUIC_TEST_CASE(rtt_ack_delay_subtracted),
	QUIC_TEST_CASE(rtt_ack_delay_floor),
	QUIC_TEST_CASE(rtt_min),
	QUIC_TEST_CASE(rtt_ack_delay_field),
	QUIC_TEST_CASE(loss_delay),
	QUIC_TEST_CASE(loss_packet_threshold),
	QUIC_TEST_CASE(loss_time_threshold),
	QUIC_TEST_CASE(pto_backoff),
	QUIC_TEST_CASE(engine_on_ack),
	QUIC_TEST_CASE(engine_no_sample),
	QUIC_TEST_CASE(engine_deadline),
	QUIC_TEST_CASE(engine_detect_lost),
	QUIC_TEST_CASE(engine_backoff_cap),
	QUIC_TEST_CASE(engine_spurious),
};

const struct quic_test_suite quic_recovery_suite = {
	.name		= "quic_recovery",
	.cases		= quic_recovery_cases,
	.num_cases	= ARRAY_SIZE(quic_recovery_cases),
};
