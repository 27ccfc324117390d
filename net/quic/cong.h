/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: congestion control and pacing (RFC 9002 section 7, RFC 9438
 * CUBIC, RFC 9406 HyStart++).
 *
 * Pure, like recovery.h: no socket, no clock. The callers report what
 * is sent (output.c), what is acknowledged and what is lost (loss.c); the
 * engine keeps the congestion window and the pacing schedule. Windows
 * are in bytes, times in microseconds except the pacing schedule, which
 * is in nanoseconds.
 */
#ifndef _NET_QUIC_CONG_H
#define _NET_QUIC_CONG_H

#include <linux/types.h>

struct quic_rtt;

/* RFC 9002 7.2: the initial window is 10 datagrams, within 14720 bytes. */
#define QUIC_CONG_INIT_PKTS		10
#define QUIC_CONG_INIT_BYTES		14720
/* RFC 9002 7.2: kMinimumWindow is 2 datagrams. */
#define QUIC_CONG_MIN_PKTS		2
/* Datagrams a sender that was idle may send back to back. */
#define QUIC_CONG_BURST_PKTS		10

/**
 * struct quic_cong - the congestion state of a connection
 * @algo: an enum quic_cong_algo value
 * @mss: the largest datagram we send (max_datagram_size of RFC 9002)
 * @cwnd: the congestion window
 * @ssthresh: the slow-start threshold, U64_MAX until the first event
 * @recovery_start: when the last congestion event happened; packets sent
 *	before it neither grow the window nor cause another event
 * @acked_ca: bytes acknowledged towards NewReno's next increase
 * @limited: the window, not the application, limited what was sent in
 *	this round: only then may it grow (RFC 9002 7.8)
 * @last_sent: when the newest in-flight packet was sent
 * @round_end: a round ends when a packet sent after this is acknowledged
 * @first_sample: when the RTT estimate got its first sample, 0 before;
 *	only losses of packets sent after it make persistent congestion
 * @w_max: CUBIC: the window before the last reduction
 * @w_est: CUBIC: the Reno-friendly estimate (RFC 9438 4.3)
 * @epoch: CUBIC: when congestion avoidance started, 0 if not yet
 * @w_est_acked: CUBIC: bytes acknowledged towards @w_est's next increase
 * @k: CUBIC: time from @epoch to @w_max on the curve (us)
 * @hs_last_min: HyStart++: the smallest RTT of the last round
 * @hs_cur_min: HyStart++: the smallest RTT so far in this round
 * @hs_samples: HyStart++: RTT samples taken in this round
 * @hs_css_base: HyStart++: the smallest RTT when CSS was entered
 * @hs_css_rounds: HyStart++: rounds spent in CSS, 0 when not in CSS
 * @event_pn: the packet whose loss started the last congestion event
 * @event_lost: ack-eliciting packets lost in that event's recovery period
 * @prior_cwnd: @cwnd before that event, 0 once it can no longer be undone
 * @prior_ssthresh: @ssthresh before it
 * @prior_w_max: @w_max before it
 * @pace_next: the pacing schedule: when the next datagram may leave (ns)
 * @pace_rate: bytes per second the pacer lets out, 0 before an RTT sample
 */
struct quic_cong {
	u8	algo;
	u32	mss;
	u64	cwnd;
	u64	ssthresh;
	u64	recovery_start;
	u64	acked_ca;
	bool	limited;
	u64	last_sent;
	u64	round_end;
	u64	first_sample;
	u64	w_max;
	u64	w_est;
	u64	epoch;
	u64	w_est_acked;
	u64	k;
	u64	hs_last_min;
	u64	hs_cur_min;
	u32	hs_samples;
	u64	hs_css_base;
	u32	hs_css_rounds;
	u64	event_pn;
	u32	event_lost;
	u64	prior_cwnd;
	u64	prior_ssthresh;
	u64	prior_w_max;
	u64	pace_next;
	u64	pace_rate;
};

void quic_cong_init(struct quic_cong *cg, u8 algo, u32 mss);
void quic_cong_set_mss(struct quic_cong *cg, u32 mss);
void quic_cong_on_sent(struct quic_cong *cg, u32 bytes, u64 in_flight,
		       u64 now, u64 now_ns);
void quic_cong_on_ack(struct quic_cong *cg, u64 bytes, u64 newest_sent,
		      const struct quic_rtt *rtt, u64 now);
bool quic_cong_on_lost(struct quic_cong *cg, u64 newest_lost, u64 pn,
		       u32 nr_lost, u64 now);
bool quic_cong_undo(struct quic_cong *cg);
void quic_cong_persistent(struct quic_cong *cg);
u64 quic_cong_persistent_duration(const struct quic_rtt *rtt,
				  u64 max_ack_delay);
void quic_cong_pace_rate(struct quic_cong *cg, const struct quic_rtt *rtt);
u64 quic_cong_pace_wait(const struct quic_cong *cg, u64 now_ns);
u64 quic_cong_cubic(const struct quic_cong *cg, u64 t);
u64 quic_cong_cbrt(u64 x);

/**
 * quic_cong_in_slow_start - is the window in slow start?
 * @cg: the state
 *
 * Return: true if below the slow-start threshold.
 */
static inline bool quic_cong_in_slow_start(const struct quic_cong *cg)
{
	return cg->cwnd < cg->ssthresh;
}

/**
 * quic_cong_can_send - may another ack-eliciting datagram leave?
 * @cg: the state
 * @in_flight: bytes in flight, all spaces
 *
 * A datagram may take the flight past the window once (RFC 9002 7).
 *
 * Return: true if the window has room.
 */
static inline bool quic_cong_can_send(const struct quic_cong *cg,
				      u64 in_flight)
{
	return in_flight < cg->cwnd;
}

#endif /* _NET_QUIC_CONG_H */
