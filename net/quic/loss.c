// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: loss detection and PTO of a connection, around the pure engine
 * of recovery.c (RFC 9002).
 *
 * An ACK frame (input.c) acknowledges sent packets: what they carried is
 * delivered (their records, sendq.h), the RTT estimate takes a sample,
 * the congestion controller (cong.c) and ECN validation (ecn.c) hear of
 * it, and loss detection runs. A lost packet's frames are queued again,
 * each unless it was delivered or is no longer needed. The loss timer
 * (timer.c) runs loss detection at a loss time, or sends the PTO probes;
 * it is armed after every flush (output.c) and after it fires. A Retry
 * voids the Initial (and 0-RTT) packets sent: neither acknowledged nor
 * lost, their frames go again.
 */

#include <linux/ktime.h>
#include <net/sock.h>

#include "ackfreq.h"
#include "close.h"
#include "conn.h"
#include "ctrl.h"
#include "event.h"
#include "frame.h"
#include "loss.h"
#include "mib.h"
#include "output.h"
#include "path.h"
#include "protocol.h"
#include "recovery.h"
#include "sendq.h"
#include "socket.h"

/* Records whose frames a PTO sends again (RFC 9002 6.2.4: two probes). */
#define QUIC_LOSS_PTO_PROBES	2

/**
 * quic_loss_rec_space() - one packet-number space as recovery sees it
 * @sk: the socket, locked
 * @level: the space
 * @sp: filled in
 */
static void quic_loss_rec_space(struct sock *sk, u8 level,
				struct quic_rec_space *sp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = c->space.at[level];

	sp->sent = s->discarded ? NULL : &s->sent;
	sp->loss_time = &s->loss_time;
	sp->max_ack_delay = level == QUIC_CRYPTO_APP && c->hs.handshake_confirmed ?
			    c->peer_tp.max_ack_delay_us : 0;
}

/**
 * quic_loss_rec_spaces() - the packet-number spaces as recovery sees them
 * @sk: the socket, locked
 * @sp: QUIC_PNSPACE_NUM entries to fill
 */
static void quic_loss_rec_spaces(struct sock *sk, struct quic_rec_space *sp)
{
	int i;

	for (i = 0; i < QUIC_PNSPACE_NUM; i++)
		quic_loss_rec_space(sk, i, &sp[i]);
}

/**
 * quic_loss_pkt_requeue() - queue the frames of a sent packet again
 * @sk: the socket, locked
 * @pkt: the packet, lost, probed or voided by a Retry (or planned but not
 *	sent: output.c); its record stays the caller's
 *
 * Each frame is queued again unless it was delivered or is no longer
 * needed.
 *
 * Return: whether anything was queued.
 */
bool quic_loss_pkt_requeue(struct sock *sk, struct quic_sent_pkt *pkt)
{
	struct quic_out_pkt *rec = container_of(pkt, struct quic_out_pkt, sent);
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_outq *q = &c->space.at[rec->level]->out;
	struct quic_out_iter iter = {};
	struct quic_out_item *it;
	struct quic_stream *st;
	bool any = false;

	while ((it = quic_sendq_item_next(rec, &iter))) {
		switch (it->kind) {
		case QUIC_OUT_CHUNK:
			any |= quic_outq_lost(q, it->chunk);
			break;
		case QUIC_OUT_HANDSHAKE_DONE:
			if (!c->ctrl.hd_acked)
				quic_ctrl_want_handshake_done(&c->ctrl);
			any |= !c->ctrl.hd_acked;
			break;
		case QUIC_OUT_MAX_DATA:
			quic_ctrl_want_max_data(&c->ctrl);
			any = true;
			break;
		case QUIC_OUT_MSD:
			quic_ctrl_msd(sk, it->id);
			any = true;
			break;
		case QUIC_OUT_CONN_CTL:
			any |= quic_stream_conn_ctl_lost(&c->streams, it->bit);
			break;
		case QUIC_OUT_STREAM_CTL:
			st = quic_stream_find(&c->streams, it->id);
			if (st)
				any |= quic_stream_ctl_lost(&c->streams, st,
							    it->bit);
			break;
		case QUIC_OUT_NEW_CID:
			quic_cid_src_mark(&c->ids.src, it->seq, true);
			any = true;
			break;
		case QUIC_OUT_ACK_FREQUENCY:
			any |= quic_ackfreq_lost(c, it->seq);
			break;
		case QUIC_OUT_RETIRE_CID:
			quic_cid_dest_retire_push(&c->ids.dst, it->seq);
			any = true;
			break;
		case QUIC_OUT_PATH_CHALLENGE:
			any |= quic_path_challenge_lost(sk, it->seq);
			break;
		case QUIC_OUT_NEW_TOKEN:
			/* A fresh one goes, unless a newer one was sent. */
			if (quic_ctrl_new_token_lost(&c->ctrl))
				any = true;
			break;
		}
	}
	return any;
}

/* A Retry made the client's Initials void: each one's frames go again. */
static void quic_loss_pkt_retried(void *ctx, struct quic_sent_pkt *pkt)
{
	quic_loss_pkt_requeue(ctx, pkt);
	quic_sendq_pkt_free(ctx, pkt);
}

/**
 * quic_loss_retry() - queue the Initials' frames again after a Retry
 * @sk: the socket, a client, locked
 *
 * The Initial packets sent are forgotten, neither acknowledged nor lost:
 * no congestion signal, no RTT sample (RFC 9002 6.3); what they carried
 * goes in the next Initials, sent with the new keys. So are 0-RTT ones.
 */
void quic_loss_retry(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = c->space.at[QUIC_CRYPTO_INITIAL];

	quic_sent_remove_all(&s->sent, quic_loss_pkt_retried, sk);
	s->loss_time = 0;
	/* So are the 0-RTT packets sent before the Retry: the server kept
	 * nothing. They go again, numbered on (RFC 9000 17.2.5.3).
	 */
	s = c->space.at[QUIC_CRYPTO_APP];
	if (!quic_crypto_ready(&s->tx)) {
		quic_sent_remove_all(&s->sent, quic_loss_pkt_retried, sk);
		s->loss_time = 0;
	}
}

/* What one ACK or one loss detection found, for congestion control. */
struct quic_loss_batch {
	struct sock	*sk;
	u64		bytes;		/* in flight, acknowledged */
	u64		newest;		/* newest sent_time of those in flight */
	u64		first_pn;	/* lost: the packet numbers, */
	u64		last_pn;
	u64		nr;		/* how many, */
	u64		first_el;	/* the oldest and newest sent_time of */
	u64		last_el;	/* the ack-eliciting ones, */
	u64		first_el_pn;	/* the oldest's packet number, */
	u32		nr_el;		/* how many of those */
	u32		ect;		/* acknowledged: those marked ECT(0) */
};

/* quic:quic_cong, the congestion and RTT state after @why. */
static void quic_loss_trace_cong(struct sock *sk, const char *why)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	const struct quic_rtt *rtt = &c->loss.rec.rtt;

	if (!trace_quic_cong_enabled())
		return;
	trace_quic_cong(sk, why, c->cong.cwnd, c->cong.ssthresh,
			quic_conn_in_flight(c),
			rtt->smoothed_rtt, rtt->rttvar, rtt->min_rtt,
			rtt->latest_rtt, c->cong.pace_rate);
}

/* Recovery declared a sent packet lost (@ctx: a struct quic_loss_batch):
 * its frames go again, its record is freed.
 */
static void quic_loss_pkt_lost(void *ctx, struct quic_sent_pkt *pkt)
{
	struct quic_out_pkt *rec = container_of(pkt, struct quic_out_pkt, sent);
	struct quic_loss_batch *b = ctx;
	struct sock *sk = b->sk;
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 largest = c->space.at[rec->level]->sent.largest_acked;

	if (rec->pmtu_probe) {
		/* Too large for the path, most likely: not congestion. */
		quic_pmtu_lost(&c->out.pmtu, pkt->pn);
		quic_sendq_pkt_free(sk, pkt);
		return;
	}
	if (!b->nr++)
		b->first_pn = pkt->pn;
	b->last_pn = pkt->pn;
	if (pkt->in_flight)
		b->newest = max(b->newest, pkt->sent_time);
	if (pkt->ack_eliciting) {
		if (!b->nr_el++) {
			b->first_el = pkt->sent_time;
			b->first_el_pn = pkt->pn;
		}
		b->last_el = pkt->sent_time;
		/* Kept to see whether the loss was spurious after all. */
		if (rec->level == QUIC_CRYPTO_APP)
			quic_recovery_lost_note(&c->loss.rec, pkt->pn, largest);
		c->loss.pkts_lost++;
		c->loss.bytes_lost += pkt->size;
		trace_quic_packet_lost(sk, rec->level, pkt->pn, pkt->size);
		if (quic_loss_pkt_requeue(sk, pkt))
			c->loss.pkts_retrans++;
	}
	quic_sendq_pkt_free(sk, pkt);
}

/* A stream control frame was delivered; an acknowledged RESET_STREAM
 * ends the sending part.
 */
static void quic_loss_ctl_acked(struct sock *sk, u8 ctl, s64 id)
{
	struct quic_stream_table *t = &quic_sk(sk)->conn.streams;
	struct quic_stream *st = quic_stream_find(t, id);

	if (!st || !quic_stream_ctl_acked(t, st, ctl))
		return;
	quic_event_stream_update(sk, id, QUIC_STREAM_SEND_STATE_RESET_RECVD,
				 st->send_errcode, st->send.used);
	quic_stream_release(t, st);
}

/* A path MTU probe was acknowledged: datagrams take its size. */
static void quic_loss_grow(struct quic_conn *c)
{
	quic_output_set_dgram(c, c->out.pmtu.plpmtu);
}

/* Recovery found a sent packet acknowledged (@ctx: a struct
 * quic_loss_batch): what it carried is delivered, its record is freed.
 */
static void quic_loss_pkt_acked(void *ctx, struct quic_sent_pkt *pkt)
{
	struct quic_out_pkt *rec = container_of(pkt, struct quic_out_pkt, sent);
	struct quic_loss_batch *b = ctx;
	struct sock *sk = b->sk;
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_outq *q = &c->space.at[rec->level]->out;
	struct quic_out_iter iter = {};
	struct quic_out_item *it;

	if (pkt->in_flight) {
		b->bytes += pkt->size;
		b->newest = max(b->newest, pkt->sent_time);
	}
	trace_quic_packet_acked(sk, rec->level, pkt->pn, pkt->size);
	b->ect += rec->ect;
	if (rec->pmtu_probe && quic_pmtu_acked(&c->out.pmtu, pkt->pn))
		quic_loss_grow(c);
	while ((it = quic_sendq_item_next(rec, &iter))) {
		switch (it->kind) {
		case QUIC_OUT_CHUNK:
			if (quic_outq_acked(q, it->chunk))
				quic_sendq_chunk_gone(sk, it->chunk, true);
			break;
		case QUIC_OUT_HANDSHAKE_DONE:
			quic_ctrl_handshake_done_acked(&c->ctrl);
			break;
		case QUIC_OUT_NEW_TOKEN:
			quic_ctrl_new_token_acked(&c->ctrl);
			break;
		case QUIC_OUT_STREAM_CTL:
			quic_loss_ctl_acked(sk, it->bit, it->id);
			break;
		}
	}
	quic_sendq_pkt_free(sk, pkt);
}

static u64 quic_loss_now(void)
{
	return ktime_to_us(ktime_get());
}

/* RFC 9002 7.6: the lost ack-eliciting packets span more than the
 * persistent congestion duration, nothing between them was acknowledged
 * (their packet numbers follow each other: every packet but a
 * CONNECTION_CLOSE is recorded), and the first was sent after the first
 * RTT sample. Losses are judged one space and one detection at a time.
 */
static bool quic_loss_persistent(struct quic_conn *c, u8 level,
				 const struct quic_loss_batch *b)
{
	u64 mad = level == QUIC_CRYPTO_APP ? c->peer_tp.max_ack_delay_us : 0;

	if (b->nr_el < 2 || b->last_pn - b->first_pn + 1 != b->nr ||
	    !c->cong.first_sample || b->first_el <= c->cong.first_sample)
		return false;
	return b->last_el - b->first_el >
	       quic_cong_persistent_duration(&c->loss.rec.rtt, mad);
}

/* Loss detection in one space (RFC 9002 6.1), counted in QuicLostPackets;
 * the congestion controller hears of it.
 */
static void quic_loss_detect_lost(struct sock *sk, u8 level, u64 now)
{
	struct quic_loss_batch b = { .sk = sk };
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_rec_space sp;
	u32 lost;

	quic_loss_rec_space(sk, level, &sp);
	if (!sp.sent)
		return;
	lost = quic_recovery_detect_lost(&c->loss.rec, &sp, now, quic_loss_pkt_lost,
					 &b);
	if (!lost)
		return;
	SNMP_ADD_STATS(quic_net(sock_net(sk))->mib, QUIC_MIB_PKT_LOST, lost);
	if (b.newest &&
	    quic_cong_on_lost(&c->cong, b.newest, level == QUIC_CRYPTO_APP &&
			      b.nr_el ? b.first_el_pn : U64_MAX, b.nr_el,
			      now)) {
		QUIC_INC_STATS(sock_net(sk), QUIC_MIB_CONG_EVENT);
		c->loss.cong_events++;
		quic_recovery_on_event(&c->loss.rec);
	}
	if (quic_loss_persistent(c, level, &b)) {
		quic_cong_persistent(&c->cong);
		QUIC_INC_STATS(sock_net(sk), QUIC_MIB_CONG_PERSISTENT);
	}
	quic_cong_pace_rate(&c->cong, &c->loss.rec.rtt);
	quic_loss_trace_cong(sk, "loss");
}

/* The ECN counts of a 1-RTT ACK (ecn.c): a CE increase is a congestion
 * event (RFC 9002 7.1), of the newest packet it acknowledges; one that
 * never undoes, as no packet was lost.
 */
static void quic_loss_ecn(struct sock *sk, const u64 *counts,
			  const struct quic_loss_batch *b, u64 now)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u8 state = c->ecn.state;
	int ret = quic_ecn_on_ack(&c->ecn, counts, b->ect);

	if (ret < 0) {
		QUIC_INC_STATS(sock_net(sk), QUIC_MIB_ECN_FAILED);
		trace_quic_path(sk, "ecn_failed", 0);
		return;
	}
	if (state != c->ecn.state && c->ecn.state == QUIC_ECN_CAPABLE)
		trace_quic_path(sk, "ecn_capable", 0);
	if (!ret || !b->newest)
		return;
	if (quic_cong_on_lost(&c->cong, b->newest, U64_MAX, 0, now)) {
		QUIC_INC_STATS(sock_net(sk), QUIC_MIB_CONG_EVENT);
		QUIC_INC_STATS(sock_net(sk), QUIC_MIB_ECN_CONG);
		c->loss.cong_events++;
		quic_recovery_on_event(&c->loss.rec);
		quic_loss_trace_cong(sk, "ecn_ce");
	}
}

/**
 * quic_loss_ack_rcvd() - an ACK frame arrived
 * @sk: the socket, locked
 * @level: the packet-number space it arrived in
 * @ecn: it is an ACK_ECN frame, with counts
 * @ack: the decoded frame
 * @ranges: its ranges, descending
 *
 * What it acknowledges is delivered (recovery.c calls back for each
 * packet), the RTT estimate takes a sample, and loss detection runs.
 *
 * Return: as quic_sent_on_ack().
 */
int quic_loss_ack_rcvd(struct sock *sk, u8 level, bool ecn,
		       const struct quic_frame_ack *ack,
		       const struct quic_ack_range *ranges)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 now = quic_loss_now(), delay = 0;
	struct quic_loss_batch b = { .sk = sk };
	bool undo;
	int n;

	/* Initial and Handshake ACKs carry no useful delay. */
	if (level == QUIC_CRYPTO_APP)
		delay = quic_rtt_ack_delay(ack->delay,
					   c->peer_tp.ack_delay_exponent,
					   c->hs.handshake_confirmed,
					   c->peer_tp.max_ack_delay_us);
	n = quic_recovery_on_ack(&c->loss.rec, &c->space.at[level]->sent,
				 ranges, ack->nr_ranges, delay, now,
				 quic_loss_pkt_acked, &b);
	if (n < 0)
		return n;
	/* The ranges are valid: do they prove a loss spurious? */
	if (level == QUIC_CRYPTO_APP &&
	    quic_recovery_spurious(&c->loss.rec, ranges, ack->nr_ranges,
				   c->cong.event_pn, &undo)) {
		QUIC_INC_STATS(sock_net(sk), QUIC_MIB_SPURIOUS_LOSS);
		c->loss.spurious++;
		undo = undo && quic_cong_undo(&c->cong);
		trace_quic_loss_spurious(sk, ranges[0].largest, undo);
		if (undo) {
			QUIC_INC_STATS(sock_net(sk), QUIC_MIB_CONG_UNDO);
			quic_loss_trace_cong(sk, "undo");
		}
	}
	if (!n)
		return n;
	if (level == QUIC_CRYPTO_APP)
		quic_loss_ecn(sk, ecn ? ack->ecn : NULL, &b, now);
	if (b.bytes) {
		quic_cong_on_ack(&c->cong, b.bytes, b.newest, &c->loss.rec.rtt, now);
		quic_cong_pace_rate(&c->cong, &c->loss.rec.rtt);
		quic_loss_trace_cong(sk, "ack");
	}
	quic_loss_detect_lost(sk, level, now);
	return n;
}

/* RFC 9002 6.2.4: what a PTO probe in one space carries. New data (or
 * data of lost packets) if any is queued; else the frames of the oldest
 * packets in flight again (their records stay, so a late ACK of them
 * still counts); else a PING.
 */
static void quic_loss_probe(struct sock *sk, u8 level)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = c->space.at[level];
	struct quic_sent_pkt *pkt;
	u32 probes = 0;

	if (quic_outq_pending(&s->out))
		return;
	list_for_each_entry(pkt, &s->sent.head, list) {
		if (!pkt->ack_eliciting || !pkt->in_flight)
			continue;
		if (quic_loss_pkt_requeue(sk, pkt))
			probes++;
		if (probes == QUIC_LOSS_PTO_PROBES)
			break;
	}
	if (!probes)
		s->ping = true;
}

/* The client's PTO with nothing in flight during the handshake fired
 * (RFC 9002 6.2.2.1, armed by quic_loss_timer_arm()): a Handshake PING
 * if it has the keys, else a padded Initial PING, so that a server held
 * by its anti-amplification limit may send again.
 */
static void quic_loss_anti_deadlock_probe(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *hs = c->space.at[QUIC_CRYPTO_HANDSHAKE];
	u8 level = QUIC_CRYPTO_INITIAL;

	if (!hs->discarded && quic_crypto_ready(&hs->tx))
		level = QUIC_CRYPTO_HANDSHAKE;
	if (c->space.at[level]->discarded)
		return;
	quic_recovery_on_pto(&c->loss.rec);
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_PTO);
	c->loss.ptos++;
	c->space.at[level]->ping = true;
	quic_out_set_probes(&c->out, 1);
	quic_output_flush(sk, GFP_ATOMIC);
	quic_out_set_probes(&c->out, 0);
}

/* The loss timer fired, not closing. Loss detection if a loss time
 * passed; else the PTO probes of every space with ack-eliciting packets
 * in flight, and the PTO backs off. The caller arms the timer again.
 */
static void quic_loss_expire(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_rec_space sp[QUIC_PNSPACE_NUM];
	u64 deadline = 0, now = quic_loss_now(), before[QUIC_PNSPACE_NUM];
	bool probe[QUIC_PNSPACE_NUM] = {}, ping = false;
	enum quic_rec_timer what;
	int space, i;

	quic_loss_rec_spaces(sk, sp);
	what = quic_recovery_deadline(&c->loss.rec, sp, &deadline, &space);
	if (what == QUIC_REC_NONE && c->loss.anti_deadlock) {
		quic_loss_anti_deadlock_probe(sk);
		return;
	}
	if (what == QUIC_REC_NONE || deadline > now)
		return;	/* early: armed again by the caller */
	if (what == QUIC_REC_LOSS) {
		quic_loss_detect_lost(sk, space, now);
		quic_output_flush(sk, GFP_ATOMIC);
		return;
	}
	quic_recovery_on_pto(&c->loss.rec);
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_PTO);
	c->loss.ptos++;
	quic_output_pmtu_check(sk);
	/* The PATH_CHALLENGE out is taken for lost: the probes below may
	 * not reach its packet, behind older ones or queued data.
	 */
	quic_path_challenge_pto(sk);
	/* 7.5: probes are not blocked by the window nor the pacer. */
	quic_out_set_probes(&c->out, QUIC_LOSS_PTO_PROBES);
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		if (!sp[i].sent || !quic_sent_eliciting_in_flight(sp[i].sent))
			continue;
		probe[i] = true;
		before[i] = sp[i].sent->last_eliciting_time;
		quic_loss_probe(sk, i);
	}
	quic_output_flush(sk, GFP_ATOMIC);
	/* Flow control or the datagram budget may have held the new data
	 * back: then a PING is the probe.
	 */
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		struct quic_pnspace *s = c->space.at[i];

		if (!probe[i] || s->discarded ||
		    s->sent.last_eliciting_time != before[i])
			continue;
		s->ping = true;
		ping = true;
	}
	if (ping) {
		/* The PING is the probe: past the window and the pacer. */
		quic_out_set_probes(&c->out, max_t(u8, c->out.probes, 1));
		quic_output_flush(sk, GFP_ATOMIC);
	}
	quic_out_set_probes(&c->out, 0);
}

/* RFC 9002 6.2.2.1: a client whose Handshake packets the server has not
 * acknowledged, nor confirmed the handshake, keeps a PTO armed even with
 * nothing in flight: the server may be held by its anti-amplification
 * limit, and only a datagram from us frees it. Not before its first
 * Initial: a client that queued 0-RTT data before the handshake started
 * would send a padded PING Initial ahead of its ClientHello.
 */
static bool quic_loss_anti_deadlock(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *hs = c->space.at[QUIC_CRYPTO_HANDSHAKE];

	return !c->is_server && sk->sk_state == TCP_SYN_RECV &&
	       !c->hs.handshake_confirmed && !c->hs.retry_pending &&
	       !c->vn.resend &&
	       (c->space.at[QUIC_CRYPTO_INITIAL]->next_pn ||
		c->space.at[QUIC_CRYPTO_INITIAL]->discarded) &&
	       !(quic_crypto_ready(&hs->tx) && hs->sent.any_acked);
}

/* When that PTO expires: from the last ack-eliciting packet sent. */
static u64 quic_loss_anti_deadlock_at(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 last = 0;
	int i;

	for (i = 0; i < QUIC_PNSPACE_NUM; i++)
		last = max(last, c->space.at[i]->sent.last_eliciting_time);
	return last + quic_recovery_pto(&c->loss.rec, 0);
}

/**
 * quic_loss_timer_arm() - (re)arm the loss timer if packets are in flight
 * @sk: the socket, locked
 */
void quic_loss_timer_arm(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_rec_space sp[QUIC_PNSPACE_NUM];
	u64 deadline = 0, now;
	int space, kind;
	unsigned long t;

	if (sk->sk_state == TCP_CLOSE) {
		/* The timer ends the closing or draining state. */
		if (!c->close.closing && !c->close.draining)
			quic_timer_stop(sk, QUIC_TIMER_LOSS);
		return;
	}
	quic_loss_rec_spaces(sk, sp);
	kind = quic_recovery_deadline(&c->loss.rec, sp, &deadline, &space);
	c->loss.anti_deadlock = false;
	if (kind == QUIC_REC_NONE && quic_loss_anti_deadlock(sk)) {
		deadline = quic_loss_anti_deadlock_at(sk);
		c->loss.anti_deadlock = true;
		kind = QUIC_REC_PTO;
	}
	/* RFC 9002 6.2.2.1: a server the anti-amplification limit blocks
	 * during the handshake arms no PTO; the client's next datagram
	 * unblocks it (the client keeps a PTO for that), and the flush that
	 * follows arms it again. After the handshake the limit holds only
	 * for a client's new address, whose validation must fail on time
	 * even if the client sends nothing more (quic_path_challenge_pto()):
	 * there the PTO stays.
	 */
	if (kind == QUIC_REC_NONE ||
	    (kind == QUIC_REC_PTO && !c->hs.handshake_confirmed &&
	     quic_path_amp_room(sk) < quic_path_amp_min(sk))) {
		quic_timer_stop(sk, QUIC_TIMER_LOSS);
		return;
	}
	now = ktime_to_us(ktime_get());
	t = deadline > now ? usecs_to_jiffies(deadline - now) : 0;
	quic_timer_reset(sk, QUIC_TIMER_LOSS, jiffies + t + 1);
}

/**
 * quic_loss_timeout() - the loss timer fired (timer.c)
 * @sk: the socket, locked, not running a user's call
 *
 * Loss detection or PTO probes, then the timer again; in the closing or
 * draining state, the end of it (conn.c).
 */
void quic_loss_timeout(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (sk->sk_state != TCP_CLOSE) {
		quic_loss_expire(sk);
		quic_loss_timer_arm(sk);
	} else if (c->close.closing || c->close.draining) {
		quic_close_done(sk);
	}
}
