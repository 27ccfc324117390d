// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/cong.h: the congestion window of NewReno
 * (RFC 9002 7.3) and CUBIC (RFC 9438) with HyStart++ (RFC 9406),
 * persistent congestion (RFC 9002 7.6) and the pacer (7.7). Times in
 * microseconds, windows in bytes.
 */

#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/quic.h>
#include <linux/time64.h>
#include "../cong.h"
#include "../recovery.h"

#include "test.h"

#define MS	1000ULL
#define MSS	1200

static void rtt_of(struct quic_rtt *r, u64 rtt)
{
	quic_rtt_init(r, QUIC_INITIAL_RTT_US);
	quic_rtt_update(r, rtt, 0);
}

/* Send a whole window (window-limited) at @now. */
static void send_window(struct quic_cong *cg, u64 now)
{
	quic_cong_on_sent(cg, MSS, cg->cwnd, now, now * NSEC_PER_USEC);
}

/* 7.2: ten datagrams within max(14720, 2 datagrams). */
static int initial_window(struct quic_test *t)
{
	static const u32 mss[] = { 1200, 1500, 15360 };
	static const u64 want[] = { 12000, 14720, 30720 };
	struct quic_cong cg;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(mss); i++) {
		quic_cong_init(&cg, QUIC_CONG_ALG_RENO, mss[i]);
		if (cg.cwnd != want[i] || cg.ssthresh != U64_MAX)
			return quic_test_fail(t, "mss %u: cwnd %llu", mss[i],
					      cg.cwnd);
	}
	quic_cong_init(&cg, QUIC_CONG_ALG_RENO, 1200);
	quic_cong_set_mss(&cg, 15360);
	if (cg.cwnd != 30720)
		return quic_test_fail(t, "mss grown: cwnd %llu", cg.cwnd);
	return 0;
}

/* 7.3.1 and 7.8: slow start grows by what is acknowledged, but only
 * while the window limits the sender.
 */
static int slow_start(struct quic_test *t)
{
	struct quic_cong cg;
	struct quic_rtt r;

	rtt_of(&r, 50 * MS);
	quic_cong_init(&cg, QUIC_CONG_ALG_RENO, MSS);
	quic_cong_on_sent(&cg, MSS, MSS, 10 * MS, 10 * MS * NSEC_PER_USEC);
	quic_cong_on_ack(&cg, MSS, 10 * MS, &r, 60 * MS);
	if (cg.cwnd != 12000)
		return quic_test_fail(t, "app-limited grew to %llu", cg.cwnd);
	send_window(&cg, 70 * MS);
	quic_cong_on_ack(&cg, 6000, 70 * MS, &r, 120 * MS);
	if (cg.cwnd != 18000)
		return quic_test_fail(t, "slow start: %llu", cg.cwnd);
	return 0;
}

/* 7.3.2, B.6: one event per round trip, the window halved; then one
 * datagram per window in congestion avoidance.
 */
static int reno_loss_and_avoidance(struct quic_test *t)
{
	struct quic_cong cg;
	struct quic_rtt r;
	u64 w;

	rtt_of(&r, 50 * MS);
	quic_cong_init(&cg, QUIC_CONG_ALG_RENO, MSS);
	cg.cwnd = 100 * MSS;
	send_window(&cg, 100 * MS);
	if (!quic_cong_on_lost(&cg, 100 * MS, U64_MAX, 1, 200 * MS))
		return quic_test_fail(t, "no congestion event");
	if (cg.cwnd != 50 * MSS || cg.ssthresh != 50 * MSS)
		return quic_test_fail(t, "after loss: %llu/%llu", cg.cwnd,
				      cg.ssthresh);
	if (quic_cong_on_lost(&cg, 150 * MS, U64_MAX, 1, 210 * MS) || cg.cwnd != 50 * MSS)
		return quic_test_fail(t, "second event in one round");
	/* Acknowledged, but sent before the event: no growth. */
	quic_cong_on_ack(&cg, 10 * MSS, 190 * MS, &r, 220 * MS);
	if (cg.cwnd != 50 * MSS)
		return quic_test_fail(t, "grew in recovery: %llu", cg.cwnd);
	send_window(&cg, 230 * MS);
	w = cg.cwnd;
	quic_cong_on_ack(&cg, w - 1, 230 * MS, &r, 280 * MS);
	if (cg.cwnd != w)
		return quic_test_fail(t, "grew early: %llu", cg.cwnd);
	quic_cong_on_ack(&cg, 1, 230 * MS, &r, 281 * MS);
	if (cg.cwnd != w + MSS)
		return quic_test_fail(t, "avoidance: %llu, want %llu", cg.cwnd,
				      w + MSS);
	if (!quic_cong_on_lost(&cg, 230 * MS, U64_MAX, 1, 300 * MS))
		return quic_test_fail(t, "no event after recovery");
	return 0;
}

/* RFC 9438 4.6, 4.7, 4.2: beta 0.7, W_max with fast convergence, and
 * the curve through W_max at K.
 */
static int cubic_curve(struct quic_test *t)
{
	struct quic_cong cg;
	struct quic_rtt r;
	u64 w;

	rtt_of(&r, 100 * MS);
	quic_cong_init(&cg, QUIC_CONG_ALG_CUBIC, MSS);
	cg.cwnd = 100 * MSS;
	send_window(&cg, 10 * MS);
	quic_cong_on_lost(&cg, 10 * MS, U64_MAX, 1, 20 * MS);
	if (cg.cwnd != 70 * MSS || cg.w_max != 100 * MSS)
		return quic_test_fail(t, "after loss: cwnd %llu w_max %llu",
				      cg.cwnd, cg.w_max);
	send_window(&cg, 30 * MS);
	quic_cong_on_ack(&cg, MSS, 30 * MS, &r, 130 * MS);
	/* K = cbrt(30 datagrams / 0.4) s = cbrt(75) s = 4.217 s. */
	if (cg.k != 4217 * MS)
		return quic_test_fail(t, "K %llu", cg.k);
	w = quic_cong_cubic(&cg, cg.k);
	if (w != 100 * MSS)
		return quic_test_fail(t, "W(K) %llu", w);
	w = quic_cong_cubic(&cg, 0);
	if (w < 70 * MSS - MSS / 10 || w > 70 * MSS + MSS / 10)
		return quic_test_fail(t, "W(0) %llu", w);
	/* 10 s on: C * (10 - 4.217)^3 = 77.4 datagrams above W_max. */
	w = quic_cong_cubic(&cg, 10000 * MS);
	if (w < 177 * MSS || w > 178 * MSS)
		return quic_test_fail(t, "W(10 s) %llu", w);
	/* A loss below W_max: fast convergence, W_max = cwnd * 0.85. */
	cg.cwnd = 80 * MSS;
	send_window(&cg, 200 * MS);
	quic_cong_on_lost(&cg, 200 * MS, U64_MAX, 1, 300 * MS);
	if (cg.w_max != 68 * MSS || cg.cwnd != 56 * MSS)
		return quic_test_fail(t, "fast convergence: %llu/%llu",
				      cg.w_max, cg.cwnd);
	return 0;
}

/* CUBIC grows towards W_max, concave, never more than 1.5x per ACK. */
static int cubic_growth(struct quic_test *t)
{
	struct quic_cong cg;
	struct quic_rtt r;
	u64 now, prev;
	int i;

	rtt_of(&r, 100 * MS);
	quic_cong_init(&cg, QUIC_CONG_ALG_CUBIC, MSS);
	cg.cwnd = 100 * MSS;
	send_window(&cg, 10 * MS);
	quic_cong_on_lost(&cg, 10 * MS, U64_MAX, 1, 20 * MS);
	now = 30 * MS;
	for (i = 0; i < 100; i++) {
		prev = cg.cwnd;
		send_window(&cg, now);
		quic_cong_on_ack(&cg, cg.cwnd, now, &r, now + 100 * MS);
		now += 100 * MS;
		if (cg.cwnd < prev || cg.cwnd > prev + prev / 2)
			return quic_test_fail(t, "round %d: %llu -> %llu", i,
					      prev, cg.cwnd);
	}
	/* 10 s after the event: past W_max on the convex side. */
	if (cg.cwnd <= 100 * MSS)
		return quic_test_fail(t, "10 s on: %llu", cg.cwnd);
	return 0;
}

/* Integer cube root, exact on cubes and floors between them. */
static int cbrt_values(struct quic_test *t)
{
	static const u64 in[] = { 0, 1, 7, 8, 26, 27, 75000000000ULL,
				  U64_MAX };
	static const u64 want[] = { 0, 1, 1, 2, 2, 3, 4217, 2642245 };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(in); i++)
		if (quic_cong_cbrt(in[i]) != want[i])
			return quic_test_fail(t, "cbrt(%llu) = %llu", in[i],
					      quic_cong_cbrt(in[i]));
	return 0;
}

/* RFC 9406: a round whose RTT rises by the threshold enters CSS (growth
 * quartered); after 5 CSS rounds slow start ends.
 */
static int hystart(struct quic_test *t)
{
	struct quic_cong cg;
	struct quic_rtt r;
	u64 now = 1000 * MS, rtt = 20 * MS, before;
	int i, round;

	quic_cong_init(&cg, QUIC_CONG_ALG_CUBIC, MSS);
	quic_rtt_init(&r, QUIC_INITIAL_RTT_US);
	for (round = 0; round < 8; round++) {
		if (round == 2)
			rtt = 30 * MS;	/* +10 ms > max(20/8, 4) ms */
		send_window(&cg, now);
		before = cg.cwnd;
		for (i = 0; i < 10; i++) {
			quic_rtt_update(&r, rtt, 0);
			quic_cong_on_ack(&cg, MSS, now, &r, now + rtt);
		}
		if (round == 2 && cg.hs_css_rounds != 1)
			return quic_test_fail(t, "no CSS");
		if (round == 3 && cg.cwnd - before >= 10 * MSS / 2)
			return quic_test_fail(t, "CSS grew %llu", cg.cwnd - before);
		now += rtt + MS;
	}
	if (quic_cong_in_slow_start(&cg))
		return quic_test_fail(t, "still in slow start, cwnd %llu",
				      cg.cwnd);
	return 0;
}

/* 7.6: duration (srtt + max(4 rttvar, 1 ms) + max_ack_delay) * 3, then
 * the minimum window, and the next loss is a new event.
 */
static int persistent(struct quic_test *t)
{
	struct quic_cong cg;
	struct quic_rtt r;
	u64 d;

	rtt_of(&r, 100 * MS);	/* srtt 100, rttvar 50 */
	d = quic_cong_persistent_duration(&r, 25 * MS);
	if (d != (100 + 200 + 25) * 3 * MS)
		return quic_test_fail(t, "duration %llu", d);
	quic_cong_init(&cg, QUIC_CONG_ALG_RENO, MSS);
	cg.cwnd = 40 * MSS;
	send_window(&cg, 10 * MS);
	quic_cong_on_lost(&cg, 10 * MS, U64_MAX, 1, 2000 * MS);
	quic_cong_persistent(&cg);
	if (cg.cwnd != 2 * MSS)
		return quic_test_fail(t, "cwnd %llu", cg.cwnd);
	if (!quic_cong_on_lost(&cg, 5 * MS, U64_MAX, 1, 2100 * MS))
		return quic_test_fail(t, "recovery not reset");
	if (cg.cwnd != 2 * MSS)
		return quic_test_fail(t, "below the minimum: %llu", cg.cwnd);
	return 0;
}

/* A spurious loss gives back the window, threshold and W_max it took;
 * once, and never after persistent congestion.
 */
static int undo(struct quic_test *t)
{
	struct quic_cong cg;

	quic_cong_init(&cg, QUIC_CONG_ALG_CUBIC, MSS);
	cg.cwnd = 100 * MSS;
	cg.ssthresh = 80 * MSS;
	cg.w_max = 90 * MSS;
	send_window(&cg, 10 * MS);
	quic_cong_on_lost(&cg, 10 * MS, 7, 1, 20 * MS);
	if (cg.event_pn != 7 || cg.cwnd != 70 * MSS)
		return quic_test_fail(t, "event %llu, cwnd %llu", cg.event_pn,
				      cg.cwnd);
	if (!quic_cong_undo(&cg) || cg.cwnd != 100 * MSS ||
	    cg.ssthresh != 80 * MSS || cg.w_max != 90 * MSS)
		return quic_test_fail(t, "undone to %llu/%llu/%llu", cg.cwnd,
				      cg.ssthresh, cg.w_max);
	if (quic_cong_undo(&cg))
		return quic_test_fail(t, "undone twice");
	/* An event that lost more than the one packet stays. */
	cg.cwnd = 100 * MSS;
	send_window(&cg, 25 * MS);
	quic_cong_on_lost(&cg, 25 * MS, 8, 1, 26 * MS);
	quic_cong_on_lost(&cg, 24 * MS, 10, 2, 27 * MS);
	if (cg.event_lost != 3 || quic_cong_undo(&cg))
		return quic_test_fail(t, "undid an event of %u losses",
				      cg.event_lost);
	send_window(&cg, 30 * MS);
	quic_cong_on_lost(&cg, 30 * MS, 9, 1, 40 * MS);
	quic_cong_persistent(&cg);
	if (quic_cong_undo(&cg) || cg.cwnd != 2 * MSS)
		return quic_test_fail(t, "undid persistent congestion");
	return 0;
}

/* 7.7: 2x the window per RTT in slow start, 1.25x after; a burst of ten
 * datagrams, then one per interval.
 */
static int pacing(struct quic_test *t)
{
	u64 now = 10 * NSEC_PER_SEC, wait;
	struct quic_cong cg;
	struct quic_rtt r;
	int i;

	quic_cong_init(&cg, QUIC_CONG_ALG_RENO, MSS);
	quic_rtt_init(&r, QUIC_INITIAL_RTT_US);
	quic_cong_pace_rate(&cg, &r);
	if (cg.pace_rate)
		return quic_test_fail(t, "paced before a sample");
	rtt_of(&r, 100 * MS);
	quic_cong_pace_rate(&cg, &r);
	if (cg.pace_rate != 240000)	/* 2 * 12000 B / 0.1 s */
		return quic_test_fail(t, "slow start rate %llu", cg.pace_rate);
	for (i = 0; i < QUIC_CONG_BURST_PKTS; i++) {
		if (quic_cong_pace_wait(&cg, now))
			return quic_test_fail(t, "burst cut at %d", i);
		quic_cong_on_sent(&cg, MSS, (i + 1) * MSS, now / NSEC_PER_USEC,
				  now);
	}
	wait = quic_cong_pace_wait(&cg, now);
	/* 1200 B at 240000 B/s: 5 ms. */
	if (wait != 5 * NSEC_PER_MSEC)
		return quic_test_fail(t, "wait %llu ns", wait);
	cg.ssthresh = cg.cwnd;
	quic_cong_pace_rate(&cg, &r);
	if (cg.pace_rate != 150000)	/* 1.25 * 12000 B / 0.1 s */
		return quic_test_fail(t, "avoidance rate %llu", cg.pace_rate);
	return 0;
}

static const struct quic_test_case quic_cong_cases[] = {
	QUIC_TEST_CASE(initial_window),
	QUIC_TEST_CASE(slow_start),
	QUIC_TEST_CASE(reno_loss_and_avoidance),
	QUIC_TEST_CASE(cubic_curve),
	QUIC_TEST_CASE(cubic_growth),
	QUIC_TEST_CASE(cbrt_values),
	QUIC_TEST_CASE(hystart),
	QUIC_TEST_CASE(persistent),
	QUIC_TEST_CASE(undo),
	QUIC_TEST_CASE(pacing),
};

const struct quic_test_suite quic_cong_suite = {
	.name		= "quic_cong",
	.cases		= quic_cong_cases,
	.num_cases	= ARRAY_SIZE(quic_cong_cases),
};
