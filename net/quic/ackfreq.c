// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the acknowledgment frequency extension
 * (draft-ietf-quic-ack-frequency). See ackfreq.h.
 *
 * Choices of ours:
 *
 * - We ask for an ACK per a quarter of our congestion window, from every
 *   2 packets (RFC 9000's rule) up to every QUIC_ACKF_EVERY_MAX, so that a
 *   small window (slow start, after a loss) never waits for the peer's ACK
 *   timer; a new frame goes when that number has doubled or halved, or
 *   reached an end, not at every change of the window.
 * - We ask for the peer's own max_ack_delay: our PTO (loss.c, path.c)
 *   already counts with it, so it stays right whether or not the peer
 *   took our frame yet (the draft's rule for a changed delay holds
 *   trivially).
 * - A Request Max Ack Delay above 2^14 ms is taken as 2^14 - 1 ms:
 *   acknowledging sooner than asked is always allowed.
 * - A Reordering Threshold above 255 is taken as 255.
 * - The Reordering Threshold above 1 is applied to the highest gap below
 *   the newest range of received packets: an ACK goes at once when the
 *   newest packet is that many past the missing one, once per gap.
 */

#include <linux/minmax.h>
#include <linux/quic.h>
#include <net/sock.h>

#include "ackfreq.h"
#include "conn.h"
#include "frame.h"
#include "sendq.h"
#include "socket.h"
#include "tparam.h"

/**
 * quic_ackfreq_rcv() - the peer's ACK_FREQUENCY or IMMEDIATE_ACK (input.c)
 * @sk: the socket, locked
 * @f: the frame, decoded, in a 1-RTT packet
 *
 * Either frame is a PROTOCOL_VIOLATION when we did not advertise
 * min_ack_delay, and so is a Request Max Ack Delay below our
 * min_ack_delay. An ACK_FREQUENCY older than one taken is ignored.
 *
 * Return: 0, or the transport error code to close the connection with.
 */
int quic_ackfreq_rcv(struct sock *sk, const struct quic_frame *f)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_ackfreq *af = &c->in.ackfreq;
	const struct quic_frame_ackf *a = &f->ackf;

	if (!quic_tparams_has(&c->local_tp, QUIC_TPB_MIN_ACK_DELAY))
		return QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
	if (f->type == QUIC_FRAME_IMMEDIATE_ACK)
		return 0;	/* the caller acknowledges the packet at once */
	if (a->max_delay_us < quic_tparams_min_ack_delay(&c->local_tp))
		return QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
	if (a->seq < af->rx_seq)
		return 0;
	af->rx_seq = a->seq + 1;
	af->rx_threshold = a->threshold;
	af->rx_delay_us = min_t(u64, a->max_delay_us,
				QUIC_TPARAM_MAX_MAX_ACK_DELAY_MS * 1000ULL);
	af->rx_reorder = min_t(u64, a->reorder, U8_MAX);
	af->rx_gap = 0;
	af->rx_active = true;
	return 0;
}

/* Is the 1-RTT ACK due, by the peer's threshold?
 * The count of ack-eliciting packets saturates at U8_MAX, which also
 * means "at once": a threshold above U8_MAX - 1 acknowledges every
 * U8_MAX packets, more often than asked, as the draft allows.
 * True when more than the Ack-Eliciting Threshold were received
 * since our last ACK, or one asked for an ACK at once.
 */
static bool quic_ackfreq_due(const struct quic_ackfreq *af,
			     const struct quic_pnspace *s)
{
	return s->ack_eliciting > min_t(u64, af->rx_threshold, U8_MAX - 1);
}

/* 1-RTT ack-eliciting packets acknowledged at once without the peer's
 * ACK_FREQUENCY (RFC 9000 13.2.2): every second one for the first
 * QUIC_ACKF_EARLY, while the peer's window is still small, then every
 * QUIC_ACKF_LATER-th.
 */
#define QUIC_ACKF_EVERY		2
#define QUIC_ACKF_EARLY		100
#define QUIC_ACKF_LATER		4

/**
 * quic_ackfreq_ack_now() - is the ACK of a space due now?
 * @sk: the socket, locked
 * @level: the space, with an ack-eliciting packet not yet acknowledged
 *
 * RFC 9000 13.2.1 and 13.2.2: Initial and Handshake packets are
 * acknowledged at once; 1-RTT ones at every QUIC_ACKF_EVERY-th (then
 * QUIC_ACKF_LATER-th) ack-eliciting packet or after one out of order,
 * else within our max_ack_delay (the ACK timer, armed here), else with
 * the next packet we send anyway. Once the peer sent ACK_FREQUENCY, its
 * Ack-Eliciting Threshold and Request Max Ack Delay take the place of
 * ours.
 *
 * Return: true to send the ACK now.
 */
bool quic_ackfreq_ack_now(struct sock *sk, u8 level)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_ackfreq *af = &c->in.ackfreq;
	struct quic_pnspace *s = c->space.at[level];
	unsigned long delay;
	u64 max_us;

	if (level != QUIC_CRYPTO_APP)
		return true;
	if (af->rx_active) {
		if (quic_ackfreq_due(af, s))
			return true;
	} else if (s->ack_eliciting >= (s->rx_eliciting < QUIC_ACKF_EARLY ?
					QUIC_ACKF_EVERY : QUIC_ACKF_LATER)) {
		return true;
	}
	if (!quic_timer_pending(sk, QUIC_TIMER_ACK)) {
		/* The peer allows for max_ack_delay: fire within it. */
		max_us = quic_ackfreq_delay_us(af, c->local_tp.max_ack_delay_us);
		delay = usecs_to_jiffies(max_us);
		quic_timer_reset(sk, QUIC_TIMER_ACK,
				 jiffies + max_t(unsigned long, delay / 2, 1));
	}
	return false;
}

/**
 * quic_ackfreq_reordered() - does a received packet's order make the ACK
 *	due at once, by the peer's Reordering Threshold?
 * @af: the state, with @af->rx_active set
 * @s: the 1-RTT space, the packet already recorded
 * @ooo: the packet was not the one after the largest received
 *
 * Return: true for an ACK at once.
 */
bool quic_ackfreq_reordered(struct quic_ackfreq *af,
			    const struct quic_pnspace *s, bool ooo)
{
	struct quic_ack_range top, next;
	u64 missing;

	if (af->rx_reorder <= 1)
		return af->rx_reorder && ooo;	/* 1: RFC 9000's rule */
	if (!quic_ackrange_get(&s->recv, 0, &top) ||
	    !quic_ackrange_get(&s->recv, 1, &next))
		return false;
	missing = top.smallest - 1;
	if (top.largest - missing < af->rx_reorder || af->rx_gap == missing)
		return false;
	af->rx_gap = missing;
	return true;
}

/* Packets per ACK to ask for now: a quarter of the window. */
static u8 quic_ackfreq_every(const struct quic_conn *c)
{
	u64 pkts = div_u64(c->cong.cwnd, max_t(u32, c->cong.mss, 1));

	return clamp_t(u64, pkts / 4, 2, QUIC_ACKF_EVERY_MAX);
}

static bool quic_ackfreq_peer(const struct quic_conn *c)
{
	return c->hs.handshake_confirmed && c->hs.peer_tp_set &&
	       quic_tparams_has(&c->peer_tp, QUIC_TPB_MIN_ACK_DELAY);
}

/**
 * quic_ackfreq_immediate_ok() - may we send IMMEDIATE_ACK?
 * @c: the connection
 *
 * Return: true once the handshake is confirmed with a peer that
 * advertised min_ack_delay.
 */
bool quic_ackfreq_immediate_ok(const struct quic_conn *c)
{
	return quic_ackfreq_peer(c);
}

/**
 * quic_ackfreq_out() - our ACK_FREQUENCY, when due, into a 1-RTT packet
 * @sk: the socket, locked
 * @buf: where the packet's frames go on
 * @room: bytes left there
 * @rec: the packet's record; the frame is noted in it
 *
 * Return: the bytes written.
 */
u32 quic_ackfreq_out(struct sock *sk, u8 *buf, u32 room,
		     struct quic_out_pkt *rec)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_ackfreq *af = &c->in.ackfreq;
	struct quic_frame f = { .type = QUIC_FRAME_ACK_FREQUENCY };
	u8 every;
	int n;

	if (!quic_ackfreq_peer(c))
		return 0;
	every = quic_ackfreq_every(c);
	if (every != af->tx_every &&
	    (!af->tx_every || every >= 2 * af->tx_every ||
	     2 * every <= af->tx_every || every == 2 ||
	     every == QUIC_ACKF_EVERY_MAX)) {
		if (af->tx_every)
			af->tx_seq++;
		af->tx_every = every;
		af->tx_pending = true;
	}
	if (!af->tx_pending)
		return 0;
	f.ackf.seq = af->tx_seq;
	f.ackf.threshold = af->tx_every - 1;
	f.ackf.max_delay_us = max(c->peer_tp.max_ack_delay_us,
				  c->peer_tp.min_ack_delay_us);
	f.ackf.reorder = QUIC_ACKF_REORDER;
	n = quic_frame_encode(buf, room, &f);
	if (n < 0 ||
	    !quic_sendq_note(rec, QUIC_OUT_ACK_FREQUENCY, 0, af->tx_seq))
		return 0;
	af->tx_pending = false;
	return n;
}

/**
 * quic_ackfreq_lost() - a packet with our ACK_FREQUENCY was lost (loss.c)
 * @c: the connection
 * @seq: the frame's Sequence Number
 *
 * Return: true when the frame is to send again: it is still our newest.
 */
bool quic_ackfreq_lost(struct quic_conn *c, u64 seq)
{
	struct quic_ackfreq *af = &c->in.ackfreq;

	if (seq != af->tx_seq || !af->tx_every)
		return false;
	af->tx_pending = true;
	return true;
}
