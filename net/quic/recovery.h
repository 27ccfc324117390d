/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: RTT estimation, loss detection and probe timeout (RFC 9002,
 * sections 5 and 6).
 *
 * Pure (no socket state, no clock) so that it can be unit-tested:
 * struct quic_rtt holds the RTT estimate of a connection, struct
 * quic_recovery adds the PTO backoff, and the loss and PTO functions
 * work over the sent stores (sent.h) of the spaces they are given. All
 * times are in microseconds.
 */
#ifndef _NET_QUIC_RECOVERY_H
#define _NET_QUIC_RECOVERY_H

#include <linux/types.h>
#include "sent.h"

struct quic_ack_range;

/* The packet-number spaces, indexed by enum quic_crypto_level. */
#define QUIC_PNSPACE_NUM		3	/* APP, INITIAL, HANDSHAKE */

/* RFC 9002, section 6.1.2: kTimeThreshold is 9/8. */
#define QUIC_TIME_THRESHOLD_NUM		9
#define QUIC_TIME_THRESHOLD_DEN		8
/* RFC 9002, section 6.1.2: kGranularity, 1 ms. */
#define QUIC_GRANULARITY_US		1000
/* RFC 9002, section 6.2.2: kInitialRtt, 333 ms. */
#define QUIC_INITIAL_RTT_US		333000
/* Cap on the PTO backoff exponent. */
#define QUIC_PTO_MAX_SHIFT		10
/* How far reordering may push the thresholds (RFC 9002 6.1 allows an
 * adaptive reordering threshold): packets, and eighths of the RTT.
 */
#define QUIC_PACKET_THRESHOLD_MAX	64
#define QUIC_TIME_THRESHOLD_MAX_NUM	16
/* Runs of packets declared lost remembered, to find the spurious ones. */
#define QUIC_REC_LOST_RING		16
/* Congestion events without a spurious loss before the thresholds reset
 * (RACK resets its reordering window after 16 recoveries).
 */
#define QUIC_REC_CLEAN_EVENTS		16

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

/**
 * struct quic_rec_lost - consecutive packets declared lost by one ACK,
 *	until they prove spurious
 * @first: the lowest packet number of the run
 * @last: the highest
 * @largest: the largest packet number acknowledged when they were declared
 *	lost; 0 for an empty slot
 */
struct quic_rec_lost {
	u64 first;
	u64 last;
	u64 largest;
};

/**
 * struct quic_recovery - loss detection state of a connection
 * @rtt: the RTT estimate
 * @pto_count: consecutive PTO expiries (the backoff, RFC 9002 6.2.1)
 * @max_backoff: the longest a backed-off PTO grows, 0 for no cap; a PTO
 *	without backoff is never cut by it
 * @pkt_threshold: the packet reordering threshold, kPacketThreshold until
 *	a loss proves spurious, then the reordering seen
 * @time_num: the time threshold in eighths of the RTT (kTimeThreshold is
 *	9/8), one more per spurious loss
 * @lost: the application-space packets last declared lost, in runs (a
 *	ring)
 * @lost_next: the next slot of @lost
 * @spurious: losses found spurious so far
 * @clean_events: congestion events since a loss last proved spurious
 */
struct quic_recovery {
	struct quic_rtt	rtt;
	u32		pto_count;
	u64		max_backoff;
	u32		pkt_threshold;
	u32		time_num;
	struct quic_rec_lost lost[QUIC_REC_LOST_RING];
	u8		lost_next;
	u32		spurious;
	u32		clean_events;
};

/**
 * struct quic_rec_space - a packet-number space as recovery sees it
 * @sent: its sent store; NULL once the space is discarded
 * @loss_time: when its oldest packet not yet lost will be by the time
 *	threshold (RFC 9002 6.1.2), or 0; recovery keeps it
 * @max_ack_delay: what its PTO allows for the peer's ACK delay: the
 *	peer's max_ack_delay in the application space once the handshake is
 *	confirmed, else 0
 */
struct quic_rec_space {
	struct quic_sent	*sent;
	u64			*loss_time;
	u64			max_ack_delay;
};

/**
 * enum quic_rec_timer - what the loss timer waits for
 * @QUIC_REC_NONE: nothing: no loss time, nothing ack-eliciting in flight
 * @QUIC_REC_LOSS: the loss time of a space (RFC 9002 6.1.2)
 * @QUIC_REC_PTO: the probe timeout of a space (RFC 9002 6.2)
 */
enum quic_rec_timer {
	QUIC_REC_NONE,
	QUIC_REC_LOSS,
	QUIC_REC_PTO,
};

void quic_recovery_init(struct quic_recovery *rec, u64 initial_rtt);
int quic_recovery_on_ack(struct quic_recovery *rec, struct quic_sent *sent,
			 const struct quic_ack_range *ranges, u32 nr_ranges,
			 u64 ack_delay, u64 now, quic_sent_cb acked, void *ctx);
u32 quic_recovery_detect_lost(const struct quic_recovery *rec,
			      const struct quic_rec_space *sp, u64 now,
			      quic_sent_cb lost, void *ctx);
enum quic_rec_timer quic_recovery_deadline(const struct quic_recovery *rec,
					   const struct quic_rec_space *sp,
					   u64 *deadline, int *space);
void quic_recovery_on_pto(struct quic_recovery *rec);
void quic_recovery_lost_note(struct quic_recovery *rec, u64 pn, u64 largest);
u32 quic_recovery_spurious(struct quic_recovery *rec,
			   const struct quic_ack_range *ranges, u32 nr_ranges,
			   u64 undo_pn, bool *undo);
u64 quic_recovery_loss_delay(const struct quic_recovery *rec);
void quic_recovery_on_event(struct quic_recovery *rec);
u64 quic_recovery_pto(const struct quic_recovery *rec, u64 max_ack_delay);

/**
 * quic_recovery_pto_reset() - forget the PTO backoff (RFC 9002 6.2.1)
 * @rec: the recovery state
 */
static inline void quic_recovery_pto_reset(struct quic_recovery *rec)
{
	rec->pto_count = 0;
}

/**
 * quic_recovery_set_max_backoff() - cap the backed-off PTO
 * @rec: the recovery state
 * @us: the longest a backed-off PTO grows, in microseconds; 0 for no cap
 */
static inline void quic_recovery_set_max_backoff(struct quic_recovery *rec,
						 u64 us)
{
	rec->max_backoff = us;
}

#endif /* _NET_QUIC_RECOVERY_H */
