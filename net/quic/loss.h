/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: loss detection and PTO of a connection (net/quic/loss.c): what
 * acknowledged and lost packets mean, around the pure engine of
 * recovery.h, and the loss timer.
 *
 * Everything here takes the socket locked (conn.h).
 */
#ifndef __NET_QUIC_LOSS_H
#define __NET_QUIC_LOSS_H

#include <linux/types.h>
#include "recovery.h"

struct quic_ack_range;
struct quic_frame_ack;
struct quic_sent_pkt;
struct sock;

/**
 * struct quic_loss - a connection's ACK, loss and PTO state
 * @rec: RTT estimate and PTO backoff (recovery.c)
 * @anti_deadlock: client: the loss timer is the PTO of RFC 9002 6.2.2.1,
 *	armed with nothing in flight during the handshake
 * @pkts_lost: ack-eliciting packets declared lost (QUIC_SOCKOPT_INFO)
 * @bytes_lost: their bytes
 * @pkts_retrans: those of them whose frames were queued again
 * @spurious: losses found spurious
 * @ptos: probe timeouts that expired
 * @cong_events: congestion events, by loss or ECN-CE
 *
 * Owned by loss.c, which runs recovery.c's engine on it; conn.c and
 * version.c configure it and reset the backoff through recovery.h's
 * helpers.
 */
struct quic_loss {
	struct quic_recovery	rec;
	bool			anti_deadlock;
	u64			pkts_lost;
	u64			bytes_lost;
	u64			pkts_retrans;
	u64			spurious;
	u64			ptos;
	u64			cong_events;
};

int quic_loss_ack_rcvd(struct sock *sk, u8 level, bool ecn,
		       const struct quic_frame_ack *ack,
		       const struct quic_ack_range *ranges);
bool quic_loss_pkt_requeue(struct sock *sk, struct quic_sent_pkt *pkt);
void quic_loss_retry(struct sock *sk);
void quic_loss_timer_arm(struct sock *sk);
void quic_loss_timeout(struct sock *sk);

#endif /* __NET_QUIC_LOSS_H */
