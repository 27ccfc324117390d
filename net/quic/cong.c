// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: congestion control and pacing (see cong.h).
 *
 * Two window rules share one skeleton: slow start with HyStart++ (RFC
 * 9406) to leave it before the queue overflows, then congestion
 * avoidance by NewReno (RFC 9002 7.3.3) or CUBIC (RFC 9438); a loss of a
 * packet sent after the last congestion event starts a new one (RFC 9002
 * 7.3.2); persistent congestion drops the window to its minimum (7.6).
 * The window only grows while it is what limits the sender (7.8).
 *
 * The pacer (7.7) spreads a window over the smoothed RTT at 2x the window
 * per RTT in slow start and 1.25x after, with a burst of
 * QUIC_CONG_BURST_PKTS datagrams allowed after an idle period.
 */

#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/quic.h>
#include <linux/string.h>
#include <linux/time64.h>
#include "cong.h"
#include "export.h"
#include "recovery.h"

/* RFC 9438 4.6: beta_cubic 0.7; 4.2: C 0.4. */
#define QUIC_CUBIC_BETA_NUM	7
#define QUIC_CUBIC_BETA_DEN	10
/* Furthest from K the curve is evaluated (ms): keeps the cube in u64. */
#define QUIC_CUBIC_MAX_MS	1000000ULL

/* RFC 9406 4.3: the HyStart++ constants. */
#define QUIC_HS_MIN_RTT_THRESH	4000
#define QUIC_HS_MAX_RTT_THRESH	16000
#define QUIC_HS_MIN_RTT_DIVISOR	8
#define QUIC_HS_N_RTT_SAMPLE	8
#define QUIC_HS_CSS_GROWTH_DIV	4
#define QUIC_HS_CSS_ROUNDS	5

static u64 quic_cong_min_window(const struct quic_cong *cg)
{
	return (u64)QUIC_CONG_MIN_PKTS * cg->mss;
}

static u64 quic_cong_initial_window(u32 mss)
{
	return min_t(u64, (u64)QUIC_CONG_INIT_PKTS * mss,
		     max_t(u64, QUIC_CONG_INIT_BYTES,
			   (u64)QUIC_CONG_MIN_PKTS * mss));
}

/**
 * quic_cong_init() - the state of a new connection
 * @cg: the state
 * @algo: QUIC_CONG_ALG_RENO or QUIC_CONG_ALG_CUBIC
 * @mss: the datagram size in use
 */
void quic_cong_init(struct quic_cong *cg, u8 algo, u32 mss)
{
	memset(cg, 0, sizeof(*cg));
	cg->algo = algo;
	cg->mss = mss;
	cg->cwnd = quic_cong_initial_window(mss);
	cg->ssthresh = U64_MAX;
	cg->event_pn = U64_MAX;
	cg->hs_last_min = U64_MAX;
	cg->hs_cur_min = U64_MAX;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_init);

/**
 * quic_cong_set_mss() - the datagram size changed
 * @cg: the state
 * @mss: the new size
 *
 * Before the first congestion event the window is at least the initial
 * window of the new size (RFC 9002 7.2); it is never below the minimum.
 */
void quic_cong_set_mss(struct quic_cong *cg, u32 mss)
{
	cg->mss = mss;
	if (cg->ssthresh == U64_MAX)
		cg->cwnd = max(cg->cwnd, quic_cong_initial_window(mss));
	cg->cwnd = max(cg->cwnd, quic_cong_min_window(cg));
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_set_mss);

/**
 * quic_cong_on_sent() - an in-flight packet was sent
 * @cg: the state
 * @bytes: its size
 * @in_flight: bytes in flight with it, all spaces
 * @now: the time (us)
 * @now_ns: the same time in ns, for the pacer
 */
void quic_cong_on_sent(struct quic_cong *cg, u32 bytes, u64 in_flight,
		       u64 now, u64 now_ns)
{
	u64 burst, base;

	cg->last_sent = now;
	/* Window-limited: the flight fills it, or half of it in slow start
	 * where the next round doubles it.
	 */
	cg->limited = in_flight + cg->mss >= cg->cwnd ||
		      (quic_cong_in_slow_start(cg) && 2 * in_flight >= cg->cwnd);
	if (!cg->pace_rate)
		return;
	/* Credit for the burst, less the datagram being sent. */
	burst = div64_u64((u64)(QUIC_CONG_BURST_PKTS - 1) * cg->mss *
			  NSEC_PER_SEC, cg->pace_rate);
	base = now_ns > burst ? max(cg->pace_next, now_ns - burst) :
				cg->pace_next;
	cg->pace_next = base + div64_u64((u64)bytes * NSEC_PER_SEC,
					 cg->pace_rate);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_on_sent);

/**
 * quic_cong_cbrt() - integer cube root
 * @x: the value
 *
 * Return: the largest r with r^3 <= x.
 */
u64 quic_cong_cbrt(u64 x)
{
	u64 lo = 0, hi = 2642245, mid;	/* 2642245^3 < 2^64 < 2642246^3 */

	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		if (mid * mid * mid <= x)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_cbrt);

/**
 * quic_cong_cubic() - the CUBIC window t after the epoch (RFC 9438 4.2)
 * @cg: the state, in congestion avoidance under CUBIC
 * @t: time since the epoch (us)
 *
 * W_cubic(t) = C * (t - K)^3 + W_max, in bytes with C in datagrams per
 * second cubed.
 *
 * Return: the window in bytes.
 */
u64 quic_cong_cubic(const struct quic_cong *cg, u64 t)
{
	u64 d, offs;

	d = div_u64(t > cg->k ? t - cg->k : cg->k - t, USEC_PER_MSEC);
	d = min(d, QUIC_CUBIC_MAX_MS);
	/* C = 0.4 per s^3, d in ms: 4 * mss * d^3 / (10 * 10^9). */
	offs = mul_u64_u64_div_u64(d * d * d, 4ULL * cg->mss, 10000000000ULL);
	if (t >= cg->k)
		return cg->w_max + offs;
	return cg->w_max > offs ? cg->w_max - offs : 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_cubic);

static void quic_cong_cubic_epoch(struct quic_cong *cg, u64 now)
{
	u64 k3;

	cg->epoch = now;
	cg->w_est = cg->cwnd;
	cg->acked_ca = 0;
	cg->w_est_acked = 0;
	cg->k = 0;
	if (cg->w_max <= cg->cwnd)
		return;
	/* K = cbrt((W_max - cwnd) / C) s: in ms^3, (W_max - cwnd) / mss *
	 * 2.5 * 10^9.
	 */
	k3 = mul_u64_u64_div_u64(cg->w_max - cg->cwnd, 2500000000ULL, cg->mss);
	cg->k = quic_cong_cbrt(k3) * USEC_PER_MSEC;
}

static void quic_cong_cubic_avoid(struct quic_cong *cg, u64 bytes,
				  const struct quic_rtt *rtt, u64 now)
{
	u64 t, target, w, thresh;

	if (!cg->epoch)
		quic_cong_cubic_epoch(cg, now);
	t = now - cg->epoch;
	/* 4.3: the Reno-friendly estimate grows by alpha_cubic = 9/17
	 * datagrams per window acknowledged, by one once past W_max.
	 */
	thresh = cg->w_est >= cg->w_max ? cg->cwnd : div_u64(cg->cwnd * 17, 9);
	cg->w_est_acked += bytes;
	while (cg->w_est_acked >= thresh) {
		cg->w_est_acked -= thresh;
		cg->w_est += cg->mss;
	}
	if (quic_cong_cubic(cg, t) < cg->w_est) {
		cg->cwnd = max(cg->cwnd, cg->w_est);
		return;
	}
	/* 4.4, 4.5: towards W_cubic(t + RTT), at most 1.5x the window. */
	target = quic_cong_cubic(cg, t + rtt->smoothed_rtt);
	target = clamp(target, cg->cwnd, cg->cwnd + cg->cwnd / 2);
	cg->acked_ca += (target - cg->cwnd) * bytes;
	w = div64_u64(cg->acked_ca, cg->cwnd);
	cg->acked_ca -= w * cg->cwnd;
	cg->cwnd += w;
}

static void quic_cong_reno_avoid(struct quic_cong *cg, u64 bytes)
{
	/* One datagram per window acknowledged. */
	cg->acked_ca += bytes;
	while (cg->acked_ca >= cg->cwnd) {
		cg->acked_ca -= cg->cwnd;
		cg->cwnd += cg->mss;
	}
}

/* HyStart++ at the start of a round (RFC 9406 4.2). */
static void quic_cong_hs_round(struct quic_cong *cg)
{
	cg->hs_last_min = cg->hs_cur_min;
	cg->hs_cur_min = U64_MAX;
	cg->hs_samples = 0;
	cg->round_end = cg->last_sent;
	if (!cg->hs_css_rounds || !quic_cong_in_slow_start(cg))
		return;
	if (++cg->hs_css_rounds > QUIC_HS_CSS_ROUNDS) {
		/* CSS lasted its rounds: congestion avoidance from here. */
		cg->ssthresh = cg->cwnd;
		cg->hs_css_rounds = 0;
	}
}

/* HyStart++ for one ACK in slow start: the growth divisor. */
static u32 quic_cong_hs_sample(struct quic_cong *cg,
			       const struct quic_rtt *rtt)
{
	u64 thresh;

	if (!rtt->has_sample)
		return 1;
	cg->hs_cur_min = min(cg->hs_cur_min, rtt->latest_rtt);
	cg->hs_samples++;
	if (cg->hs_samples < QUIC_HS_N_RTT_SAMPLE ||
	    cg->hs_last_min == U64_MAX)
		goto out;
	if (!cg->hs_css_rounds) {
		thresh = clamp_t(u64, cg->hs_last_min / QUIC_HS_MIN_RTT_DIVISOR,
				 QUIC_HS_MIN_RTT_THRESH,
				 QUIC_HS_MAX_RTT_THRESH);
		if (cg->hs_cur_min >= cg->hs_last_min + thresh) {
			cg->hs_css_base = cg->hs_cur_min;
			cg->hs_css_rounds = 1;
		}
	} else if (cg->hs_cur_min < cg->hs_css_base) {
		/* The RTT went back down: the increase was spurious. */
		cg->hs_css_rounds = 0;
	}
out:
	return cg->hs_css_rounds ? QUIC_HS_CSS_GROWTH_DIV : 1;
}

/**
 * quic_cong_on_ack() - in-flight packets were acknowledged
 * @cg: the state
 * @bytes: their bytes
 * @newest_sent: when the newest of them was sent
 * @rtt: the RTT estimate, updated by the same ACK
 * @now: the time (us)
 */
void quic_cong_on_ack(struct quic_cong *cg, u64 bytes, u64 newest_sent,
		      const struct quic_rtt *rtt, u64 now)
{
	u32 div;

	if (!cg->first_sample && rtt->has_sample)
		cg->first_sample = now;
	if (newest_sent > cg->round_end)
		quic_cong_hs_round(cg);
	/* Sent before the last congestion event: still recovering. */
	if (cg->recovery_start && newest_sent <= cg->recovery_start)
		return;
	if (!cg->limited)
		return;
	if (quic_cong_in_slow_start(cg)) {
		div = quic_cong_hs_sample(cg, rtt);
		cg->cwnd += div_u64(bytes, div);
		return;
	}
	if (cg->algo == QUIC_CONG_ALG_CUBIC)
		quic_cong_cubic_avoid(cg, bytes, rtt, now);
	else
		quic_cong_reno_avoid(cg, bytes);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_on_ack);

/**
 * quic_cong_on_lost() - in-flight packets were declared lost
 * @cg: the state
 * @newest_lost: when the newest of them was sent
 * @pn: the packet whose loss would start the event, U64_MAX if none may
 *	undo it (see quic_cong_undo())
 * @nr_lost: how many ack-eliciting packets were lost
 * @now: the time (us)
 *
 * A loss of a packet sent after the last congestion event starts a new
 * one (RFC 9002 7.3.2): the window drops to beta times itself (0.5
 * NewReno, 0.7 CUBIC, never below the minimum), and CUBIC remembers where
 * it was (with fast convergence, RFC 9438 4.7).
 *
 * Return: true if a congestion event started.
 */
bool quic_cong_on_lost(struct quic_cong *cg, u64 newest_lost, u64 pn,
		       u32 nr_lost, u64 now)
{
	u64 w;

	if (cg->recovery_start && newest_lost <= cg->recovery_start) {
		cg->event_lost += nr_lost;	/* more of the same event */
		return false;
	}
	cg->recovery_start = now;
	cg->event_pn = pn;
	cg->event_lost = nr_lost;
	cg->prior_cwnd = cg->cwnd;
	cg->prior_ssthresh = cg->ssthresh;
	cg->prior_w_max = cg->w_max;
	if (cg->algo == QUIC_CONG_ALG_CUBIC) {
		if (cg->cwnd < cg->w_max)
			cg->w_max = div_u64(cg->cwnd * (QUIC_CUBIC_BETA_NUM +
							 QUIC_CUBIC_BETA_DEN),
					    2 * QUIC_CUBIC_BETA_DEN);
		else
			cg->w_max = cg->cwnd;
		w = div_u64(cg->cwnd * QUIC_CUBIC_BETA_NUM,
			    QUIC_CUBIC_BETA_DEN);
	} else {
		w = cg->cwnd / 2;
	}
	cg->ssthresh = max(w, quic_cong_min_window(cg));
	cg->cwnd = cg->ssthresh;
	cg->epoch = 0;
	cg->acked_ca = 0;
	cg->w_est_acked = 0;
	cg->hs_css_rounds = 0;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_on_lost);

/**
 * quic_cong_undo() - the loss that started the last event was spurious
 * @cg: the state
 *
 * The packet was reordered, not lost (it was acknowledged after all) and
 * no other packet was lost in the event's recovery period: the window,
 * threshold and W_max go back to what they were before the event,
 * as TCP undoes a reduction a spurious retransmission caused. The
 * recovery period stays, so the rest of that flight cannot start another.
 *
 * Return: true if there was an event to undo.
 */
bool quic_cong_undo(struct quic_cong *cg)
{
	/* Only an event that lost that one packet and nothing else. */
	if (!cg->prior_cwnd || cg->event_lost != 1)
		return false;
	cg->cwnd = max(cg->cwnd, cg->prior_cwnd);
	cg->ssthresh = cg->prior_ssthresh;
	cg->w_max = cg->prior_w_max;
	cg->prior_cwnd = 0;
	cg->event_pn = U64_MAX;
	cg->epoch = 0;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_undo);

/**
 * quic_cong_persistent() - persistent congestion was established
 * @cg: the state
 *
 * RFC 9002 7.6.2: the window drops to the minimum, and the next loss is
 * a new congestion event whenever its packet was sent.
 */
void quic_cong_persistent(struct quic_cong *cg)
{
	cg->prior_cwnd = 0;
	cg->cwnd = quic_cong_min_window(cg);
	cg->recovery_start = 0;
	cg->epoch = 0;
	cg->acked_ca = 0;
	cg->w_est_acked = 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_persistent);

/**
 * quic_cong_persistent_duration() - how long losses must span to be
 *	persistent congestion (RFC 9002 7.6.1)
 * @rtt: the RTT estimate
 * @max_ack_delay: the peer's max_ack_delay (us)
 *
 * Return: (smoothed_rtt + max(4 * rttvar, kGranularity) + max_ack_delay)
 *	* kPersistentCongestionThreshold (3), in us.
 */
u64 quic_cong_persistent_duration(const struct quic_rtt *rtt,
				  u64 max_ack_delay)
{
	return quic_rtt_pto(rtt, max_ack_delay, 0) * 3;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_persistent_duration);

/**
 * quic_cong_pace_rate() - set the pacing rate from the window and RTT
 * @cg: the state
 * @rtt: the RTT estimate
 *
 * 2x the window per smoothed RTT in slow start, 1.25x after (RFC 9002
 * 7.7); no pacing before the first RTT sample.
 */
void quic_cong_pace_rate(struct quic_cong *cg, const struct quic_rtt *rtt)
{
	u64 srtt = max_t(u64, rtt->smoothed_rtt, 1);
	u64 w = cg->cwnd;

	if (!rtt->has_sample) {
		cg->pace_rate = 0;
		return;
	}
	w = quic_cong_in_slow_start(cg) ? 2 * w : w + w / 4;
	cg->pace_rate = max_t(u64, div64_u64(w * USEC_PER_SEC, srtt), 1);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_pace_rate);

/**
 * quic_cong_pace_wait() - how long the next datagram must wait
 * @cg: the state
 * @now_ns: the time (ns)
 *
 * Return: 0 if it may leave now, else the wait in ns.
 */
u64 quic_cong_pace_wait(const struct quic_cong *cg, u64 now_ns)
{
	if (!cg->pace_rate || cg->pace_next <= now_ns)
		return 0;
	return cg->pace_next - now_ns;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cong_pace_wait);
