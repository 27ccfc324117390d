/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the acknowledgment frequency extension
 * (draft-ietf-quic-ack-frequency), both ways (net/quic/ackfreq.c).
 *
 * Receiving: we advertise min_ack_delay (tparam.c); the peer's
 * ACK_FREQUENCY then sets how many ack-eliciting packets we may take
 * before acknowledging, how long we may wait and how much reordering we
 * let pass, and its IMMEDIATE_ACK asks for an ACK at once. Until one
 * arrives, RFC 9000's rules apply as before (quic_ackfreq_ack_now()).
 *
 * Sending: once the handshake is confirmed, to a peer that advertised
 * min_ack_delay, we ask for an ACK per a quarter of our congestion window
 * (at most every QUIC_ACKF_EVERY_MAX packets), within the peer's own
 * max_ack_delay, and with the reordering threshold of our loss detection.
 *
 * Everything here takes the socket locked.
 */
#ifndef __NET_QUIC_ACKFREQ_H
#define __NET_QUIC_ACKFREQ_H

#include <linux/types.h>

struct quic_conn;
struct quic_frame;
struct quic_out_pkt;
struct quic_pnspace;
struct sock;

/* The most packets per ACK we ask for. */
#define QUIC_ACKF_EVERY_MAX	10
/* The reordering threshold we ask for: RFC 9002's kPacketThreshold. */
#define QUIC_ACKF_REORDER	3

/**
 * struct quic_ackfreq - the extension's state of a connection
 * @rx_seq: the next Sequence Number of the peer's frames we take
 * @rx_delay_us: the peer's Request Max Ack Delay, our max_ack_delay now
 * @rx_threshold: the peer's Ack-Eliciting Threshold
 * @rx_reorder: the peer's Reordering Threshold
 * @rx_gap: the missing packet number below which a gap was acknowledged
 *	at once already (Reordering Threshold above 1)
 * @rx_active: an ACK_FREQUENCY was taken: its values replace RFC 9000's
 * @tx_seq: the Sequence Number of our newest frame, 0 before the first
 * @tx_every: packets per ACK our newest frame asked for (Ack-Eliciting
 *	Threshold + 1), 0 before the first
 * @tx_pending: our newest frame is to send (again)
 */
struct quic_ackfreq {
	u64	rx_seq;
	u64	rx_delay_us;
	u64	rx_threshold;
	u64	rx_gap;
	u8	rx_reorder;
	bool	rx_active;
	u8	tx_every;
	bool	tx_pending;
	u64	tx_seq;
};

int quic_ackfreq_rcv(struct sock *sk, const struct quic_frame *f);
bool quic_ackfreq_ack_now(struct sock *sk, u8 level);
bool quic_ackfreq_reordered(struct quic_ackfreq *af,
			    const struct quic_pnspace *s, bool ooo);
u32 quic_ackfreq_out(struct sock *sk, u8 *buf, u32 room,
		     struct quic_out_pkt *rec);
bool quic_ackfreq_immediate_ok(const struct quic_conn *c);
bool quic_ackfreq_lost(struct quic_conn *c, u64 seq);

/**
 * quic_ackfreq_delay_us() - the max_ack_delay we keep to now
 * @af: the state
 * @local: our max_ack_delay transport parameter, in microseconds
 *
 * Return: the peer's Request Max Ack Delay once it sent one, else @local.
 */
static inline u64 quic_ackfreq_delay_us(const struct quic_ackfreq *af,
					u64 local)
{
	return af->rx_active ? af->rx_delay_us : local;
}

#endif /* __NET_QUIC_ACKFREQ_H */
