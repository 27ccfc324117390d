/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: RTT estimation, loss detection and probe timeout (RFC 9002,
 * sections 5 and 6).
 *
 * The arithmetic is pure (no socket state) so that it can be unit-tested:
 * struct quic_rtt holds the RTT estimate of a connection, all times in
 * microseconds.  The glue that feeds it from ACK frames and drives the
 * connection timer takes the socket.
 */
#ifndef _NET_QUIC_RECOVERY_H
#define _NET_QUIC_RECOVERY_H

#include <linux/types.h>

struct quic_ack_range;
struct quic_frame_ack;
struct quic_sent;
struct sock;

/* RFC 9002, section 6.1.2: kTimeThreshold is 9/8. */
#define QUIC_TIME_THRESHOLD_NUM		9
#define QUIC_TIME_THRESHOLD_DEN		8
/* RFC 9002, section 6.1.2: kGranularity, 1 ms. */
#define QUIC_GRANULARITY_US		1000
/* RFC 9002, section 6.2.2: kInitialRtt, 333 ms. */
#define QUIC_INITIAL_RTT_US		333000
/* Cap on the PTO backoff exponent. */
#define QUIC_PTO_MAX_SHIFT		10

/**
 * struct quic_rtt - the RTT estimate of a connection (RFC 9002, 5)
 * @latest_rtt: the last RTT sample
 * @min_rtt: the smallest sample seen, 0 before the first
 * @smoothed_rtt: exponentially weighted moving average
 * @rttvar: mean deviation of the samples
 * @has_sample: a sample was taken; else the other fields are initial
 */
struct quic_rtt {
	u64 latest_rtt;
	u64 min_rtt;
	u64 smoothed_rtt;
	u64 rttvar;
	bool has_sample;
};

void quic_rtt_init(struct quic_rtt *r, u64 initial_rtt);
void quic_rtt_update(struct quic_rtt *r, u64 latest_rtt, u64 ack_delay);
u64 quic_rtt_ack_delay(u64 raw, u8 exponent, bool confirmed,
		       u64 max_ack_delay);
u64 quic_rtt_loss_delay(const struct quic_rtt *r);
u64 quic_rtt_pto(const struct quic_rtt *r, u64 max_ack_delay, u32 pto_count);

int quic_recovery_on_ack(struct sock *sk, u8 level,
			 const struct quic_frame_ack *ack,
			 const struct quic_ack_range *ranges);
bool quic_recovery_timer(struct sock *sk, u64 *deadline);
void quic_recovery_timeout(struct sock *sk);
void quic_recovery_detect_lost(struct sock *sk, u8 level, u64 now);

#endif /* _NET_QUIC_RECOVERY_H */
