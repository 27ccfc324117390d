// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: RTT estimation, loss detection and probe timeout (RFC 9002,
 * sections 5 and 6).  Congestion control is not here.
 *
 * A pure engine, as sent.c is: no socket, no frames, no clock. It keeps
 * the RTT estimate and the PTO backoff, and works over the sent stores
 * of the packet-number spaces it is given; what a lost or acknowledged
 * packet means is the caller's, through callbacks (loss.c), and so is
 * what a PTO probe sends.  All times are in microseconds.
 */

#include <linux/export.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include "export.h"
#include "recovery.h"
#include "sent.h"

/**
 * quic_rtt_init() - the estimate before any sample (RFC 9002, 5.3)
 * @r: the estimate
 * @initial_rtt: kInitialRtt, or the application's value
 */
void quic_rtt_init(struct quic_rtt *r, u64 initial_rtt)
{
	r->latest_rtt = 0;
	r->min_rtt = 0;
	r->smoothed_rtt = initial_rtt;
	r->rttvar = initial_rtt / 2;
	r->has_sample = false;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_rtt_init);

/**
 * quic_rtt_update() - take an RTT sample (RFC 9002, 5.1 to 5.3)
 * @r: the estimate
 * @latest_rtt: the time from sending the largest newly acknowledged
 *	packet to receiving its ACK
 * @ack_delay: the peer's ACK delay, already scaled and capped (see
 *	quic_rtt_ack_delay())
 *
 * min_rtt takes the raw sample; the ACK delay is subtracted from the
 * sample for smoothed_rtt and rttvar only if that leaves at least min_rtt.
 */
void quic_rtt_update(struct quic_rtt *r, u64 latest_rtt, u64 ack_delay)
{
	u64 adjusted, diff;

	r->latest_rtt = latest_rtt;
	if (!r->has_sample) {
		r->min_rtt = latest_rtt;
		r->smoothed_rtt = latest_rtt;
		r->rttvar = latest_rtt / 2;
		r->has_sample = true;
		return;
	}
	r->min_rtt = min(r->min_rtt, latest_rtt);
	adjusted = latest_rtt;
	if (latest_rtt >= r->min_rtt + ack_delay)
		adjusted = latest_rtt - ack_delay;
	diff = r->smoothed_rtt > adjusted ? r->smoothed_rtt - adjusted :
					    adjusted - r->smoothed_rtt;
	r->rttvar = (3 * r->rttvar + diff) / 4;
	r->smoothed_rtt = (7 * r->smoothed_rtt + adjusted) / 8;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_rtt_update);

/**
 * quic_rtt_ack_delay() - the ACK delay of an ACK frame in microseconds
 * @raw: the ACK Delay field as on the wire
 * @exponent: the peer's ack_delay_exponent (at most 20, checked on decode)
 * @confirmed: the handshake is confirmed
 * @max_ack_delay: the peer's max_ack_delay in microseconds
 *
 * RFC 9000 19.3 and RFC 9002 5.3: scaled by 2^exponent; once the
 * handshake is confirmed, capped by max_ack_delay.
 *
 * Return: the delay, saturating instead of overflowing.
 */
u64 quic_rtt_ack_delay(u64 raw, u8 exponent, bool confirmed,
		       u64 max_ack_delay)
{
	u64 d;

	exponent = min_t(u8, exponent, 20);
	d = raw > (U64_MAX >> exponent) ? U64_MAX : raw << exponent;
	if (confirmed)
		d = min(d, max_ack_delay);
	return d;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_rtt_ack_delay);

/* num/8 of max(smoothed_rtt, latest_rtt), at least kGranularity. */
static u64 quic_rtt_threshold(const struct quic_rtt *r, u32 num)
{
	u64 d = max(r->smoothed_rtt, r->latest_rtt);

	return max_t(u64, d * num / QUIC_TIME_THRESHOLD_DEN,
		     QUIC_GRANULARITY_US);
}

/**
 * quic_rtt_loss_delay() - the time threshold of loss detection
 * @r: the estimate
 *
 * RFC 9002 6.1.2: kTimeThreshold * max(smoothed_rtt, latest_rtt), at
 * least kGranularity.
 *
 * Return: the delay.
 */
u64 quic_rtt_loss_delay(const struct quic_rtt *r)
{
	return quic_rtt_threshold(r, QUIC_TIME_THRESHOLD_NUM);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_rtt_loss_delay);

/**
 * quic_rtt_pto() - the probe timeout of a space
 * @r: the estimate
 * @max_ack_delay: the peer's max_ack_delay for the application space once
 *	the handshake is confirmed, else 0
 * @pto_count: consecutive PTO expiries (the backoff)
 *
 * RFC 9002 6.2.1: (smoothed_rtt + max(4 * rttvar, kGranularity) +
 * max_ack_delay) * 2^pto_count; the exponent is capped.
 *
 * Return: the timeout.
 */
u64 quic_rtt_pto(const struct quic_rtt *r, u64 max_ack_delay, u32 pto_count)
{
	u64 pto = r->smoothed_rtt +
		  max_t(u64, 4 * r->rttvar, QUIC_GRANULARITY_US) +
		  max_ack_delay;

	return pto << min_t(u32, pto_count, QUIC_PTO_MAX_SHIFT);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_rtt_pto);

/**
 * quic_recovery_loss_delay() - the time threshold of loss detection, as
 *	reordering has widened it
 * @rec: the state
 *
 * Return: time_num / 8 * max(smoothed_rtt, latest_rtt), at least
 *	kGranularity.
 */
u64 quic_recovery_loss_delay(const struct quic_recovery *rec)
{
	return quic_rtt_threshold(&rec->rtt, rec->time_num);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_recovery_loss_delay);

/* Remember packets @first to @last, declared lost when @largest was the
 * largest acknowledged, in a slot of their own (the oldest one goes).
 */
static void quic_recovery_lost_run(struct quic_recovery *rec, u64 first,
				   u64 last, u64 largest)
{
	struct quic_rec_lost *l = &rec->lost[rec->lost_next];

	l->first = first;
	l->last = last;
	l->largest = largest;
	rec->lost_next = (rec->lost_next + 1) % QUIC_REC_LOST_RING;
}

/**
 * quic_recovery_lost_note() - remember a packet declared lost
 * @rec: the state
 * @pn: its packet number (application space)
 * @largest: the largest packet number acknowledged then
 *
 * A packet following the last one remembered, declared lost by the same
 * ACK, extends its run: a reordered burst is one slot, however long. The
 * oldest run goes when the ring is full: a spurious loss found late is one
 * not found, nothing worse.
 */
void quic_recovery_lost_note(struct quic_recovery *rec, u64 pn, u64 largest)
{
	u8 prev = (rec->lost_next + QUIC_REC_LOST_RING - 1) %
		  QUIC_REC_LOST_RING;
	struct quic_rec_lost *l = &rec->lost[prev];

	if (l->largest && l->largest == largest && l->last + 1 == pn) {
		l->last = pn;
		return;
	}
	quic_recovery_lost_run(rec, pn, pn, largest);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_recovery_lost_note);

/* The packets of run @l that range @r acknowledges: [*lo, *hi]. */
static bool quic_recovery_lost_overlap(const struct quic_rec_lost *l,
				       const struct quic_ack_range *r,
				       u64 *lo, u64 *hi)
{
	*lo = max(l->first, r->smallest);
	*hi = min(l->last, r->largest);
	return *lo <= *hi;
}

/**
 * quic_recovery_spurious() - find losses an ACK proves spurious
 * @rec: the state
 * @ranges: the ACK's ranges (application space), descending
 * @nr_ranges: how many
 * @undo_pn: the packet whose loss started the last congestion event
 * @undo: set if @undo_pn is among them: the event may be undone
 *
 * A packet declared lost and then acknowledged was reordered, not lost:
 * the packet threshold grows to the distance it was overtaken by (plus
 * one), the time threshold by an eighth of the RTT, both capped (RFC
 * 9002 6.1.1, 6.1.2 allow adapting them, as TCP's RACK does). Found
 * packets leave their run; a range inside a run splits it, the part above
 * the range taking a slot of its own.
 *
 * Return: how many remembered losses the ACK proved spurious.
 */
u32 quic_recovery_spurious(struct quic_recovery *rec,
			   const struct quic_ack_range *ranges, u32 nr_ranges,
			   u64 undo_pn, bool *undo)
{
	struct quic_rec_lost *l;
	u32 i, j, found = 0;
	u64 lo, hi;

	*undo = false;
	for (i = 0; i < QUIC_REC_LOST_RING; i++) {
		l = &rec->lost[i];
		for (j = 0; j < nr_ranges && l->largest; j++) {
			if (!quic_recovery_lost_overlap(l, &ranges[j], &lo, &hi))
				continue;
			rec->pkt_threshold = min_t(u64, QUIC_PACKET_THRESHOLD_MAX,
						   max_t(u64, rec->pkt_threshold,
							 l->largest - lo + 1));
			if (undo_pn >= lo && undo_pn <= hi)
				*undo = true;
			found += hi - lo + 1;
			/* Not over this very slot, when it is the oldest. */
			if (lo > l->first && hi < l->last && rec->lost_next != i)
				quic_recovery_lost_run(rec, hi + 1, l->last,
						       l->largest);
			if (lo > l->first)
				l->last = lo - 1;
			else if (hi < l->last)
				l->first = hi + 1;
			else
				l->largest = 0;
		}
	}
	if (found) {
		rec->time_num = min_t(u32, rec->time_num + found,
				      QUIC_TIME_THRESHOLD_MAX_NUM);
		rec->clean_events = 0;
	}
	rec->spurious += found;
	return found;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_recovery_spurious);

/**
 * quic_recovery_on_event() - a congestion event started
 * @rec: the state
 *
 * After QUIC_REC_CLEAN_EVENTS events with no spurious loss found, the
 * loss thresholds go back to the RFC's: reordering seen long ago, or
 * made up by a peer, does not slow loss detection for good.
 */
void quic_recovery_on_event(struct quic_recovery *rec)
{
	if (++rec->clean_events < QUIC_REC_CLEAN_EVENTS)
		return;
	rec->clean_events = 0;
	rec->pkt_threshold = QUIC_PACKET_THRESHOLD;
	rec->time_num = QUIC_TIME_THRESHOLD_NUM;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_recovery_on_event);

/**
 * quic_recovery_init() - recovery state before any packet is sent
 * @rec: the state
 * @initial_rtt: kInitialRtt, or the application's value
 */
void quic_recovery_init(struct quic_recovery *rec, u64 initial_rtt)
{
	memset(rec, 0, sizeof(*rec));
	quic_rtt_init(&rec->rtt, initial_rtt);
	rec->pkt_threshold = QUIC_PACKET_THRESHOLD;
	rec->time_num = QUIC_TIME_THRESHOLD_NUM;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_recovery_init);

struct quic_rec_ack {
	u64 largest;
	u64 largest_sent;
	bool largest_new;
	bool eliciting;
	quic_sent_cb acked;
	void *ctx;
};

static void quic_rec_acked(void *ctx, struct quic_sent_pkt *pkt)
{
	struct quic_rec_ack *a = ctx;

	if (pkt->pn == a->largest) {
		a->largest_new = true;
		a->largest_sent = pkt->sent_time;
	}
	if (pkt->ack_eliciting)
		a->eliciting = true;
	a->acked(a->ctx, pkt);
}

/**
 * quic_recovery_on_ack() - the ranges of an ACK frame arrived
 * @rec: the state
 * @sent: the sent store of the space the ACK came in
 * @ranges: its ranges, descending
 * @nr_ranges: how many
 * @ack_delay: the peer's ACK delay to subtract from the RTT sample (see
 *	quic_rtt_ack_delay(); 0 for the Initial and Handshake spaces)
 * @now: the current time
 * @acked: called for each newly acknowledged packet, after it is unlinked
 * @ctx: passed to @acked
 *
 * Takes an RTT sample if the largest acknowledged packet is newly
 * acknowledged and an ack-eliciting packet was (RFC 9002 5.1), and resets
 * the PTO backoff (6.2.1). Loss detection is the caller's next step
 * (quic_recovery_detect_lost()).
 *
 * Return: as quic_sent_on_ack().
 */
int quic_recovery_on_ack(struct quic_recovery *rec, struct quic_sent *sent,
			 const struct quic_ack_range *ranges, u32 nr_ranges,
			 u64 ack_delay, u64 now, quic_sent_cb acked, void *ctx)
{
	struct quic_rec_ack a = {
		.largest = ranges[0].largest, .acked = acked, .ctx = ctx,
	};
	int n;

	n = quic_sent_on_ack(sent, ranges, nr_ranges, quic_rec_acked, &a);
	if (n <= 0)
		return n;
	if (a.largest_new && a.eliciting)
		quic_rtt_update(&rec->rtt, now > a.largest_sent ?
				now - a.largest_sent : 0, ack_delay);
	rec->pto_count = 0;
	return n;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_recovery_on_ack);

/**
 * quic_recovery_detect_lost() - declare lost what the ACKs and time show
 * @rec: the state
 * @sp: the space, active
 * @now: the current time
 * @lost: called for each lost packet, after it is unlinked
 * @ctx: passed to @lost
 *
 * RFC 9002 6.1 over the space's store; sets its loss_time for the
 * packets that will be lost if nothing arrives.
 *
 * Return: the number of ack-eliciting packets declared lost.
 */
u32 quic_recovery_detect_lost(const struct quic_recovery *rec,
			      const struct quic_rec_space *sp, u64 now,
			      quic_sent_cb lost, void *ctx)
{
	u32 eliciting = sp->sent->eliciting_in_flight;

	*sp->loss_time = 0;
	if (!sp->sent->any_acked)
		return 0;
	quic_sent_detect_lost(sp->sent, sp->sent->largest_acked,
			      rec->pkt_threshold, quic_recovery_loss_delay(rec),
			      now, sp->loss_time, lost, ctx);
	return eliciting - sp->sent->eliciting_in_flight;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_recovery_detect_lost);

/**
 * quic_recovery_deadline() - what the loss timer waits for, and until when
 * @rec: the state
 * @sp: the spaces, QUIC_PNSPACE_NUM of them; a discarded one has no store
 * @deadline: set to the time, unless QUIC_REC_NONE
 * @space: set to the space it concerns, unless QUIC_REC_NONE
 *
 * RFC 9002 6.2.1 and A.8: the earliest loss time of a space if any;
 * else the earliest PTO of a space with ack-eliciting packets in flight,
 * from the last of them sent, backed off by the PTO count.
 *
 * Return: QUIC_REC_LOSS, QUIC_REC_PTO or QUIC_REC_NONE (nothing to wait
 * for: the timer stops).
 */
enum quic_rec_timer quic_recovery_deadline(const struct quic_recovery *rec,
					   const struct quic_rec_space *sp,
					   u64 *deadline, int *space)
{
	u64 t;
	int i;

	*space = -1;
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		if (!sp[i].sent || !*sp[i].loss_time)
			continue;
		if (*space < 0 || *sp[i].loss_time < *deadline) {
			*deadline = *sp[i].loss_time;
			*space = i;
		}
	}
	if (*space >= 0)
		return QUIC_REC_LOSS;
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		if (!sp[i].sent || !quic_sent_eliciting_in_flight(sp[i].sent))
			continue;
		t = sp[i].sent->last_eliciting_time +
		    quic_recovery_pto(rec, sp[i].max_ack_delay);
		if (*space < 0 || t < *deadline) {
			*deadline = t;
			*space = i;
		}
	}
	return *space >= 0 ? QUIC_REC_PTO : QUIC_REC_NONE;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_recovery_deadline);

/**
 * quic_recovery_pto() - the probe timeout in force, backoff included
 * @rec: the state
 * @max_ack_delay: as for quic_rtt_pto()
 *
 * RFC 9002 6.2.1 doubles the PTO at each expiry. After a long outage
 * that would leave the first probe to go out long after the path came
 * back, past the idle timeout: the backoff stops at @rec->max_backoff
 * (never below the PTO without backoff), so probes keep going at least
 * that often.
 *
 * Return: the timeout.
 */
u64 quic_recovery_pto(const struct quic_recovery *rec, u64 max_ack_delay)
{
	u64 pto = quic_rtt_pto(&rec->rtt, max_ack_delay, rec->pto_count);

	if (rec->pto_count && rec->max_backoff && pto > rec->max_backoff)
		pto = max(rec->max_backoff,
			  quic_rtt_pto(&rec->rtt, max_ack_delay, 0));
	return pto;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_recovery_pto);

/**
 * quic_recovery_on_pto() - a PTO expired: back off
 * @rec: the state
 *
 * RFC 9002 6.2.1: the next PTO is twice as long, until an ACK arrives.
 */
void quic_recovery_on_pto(struct quic_recovery *rec)
{
	rec->pto_count++;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_recovery_on_pto);
