// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the sent-packet store of one packet-number space.
 *
 * A list in ascending packet-number order, and a tree by packet number
 * where an ACK range finds its first packet.  Every walk counts the
 * packets it visits in s->steps, so the tests can check that an ACK costs
 * what it acknowledges plus a lookup per range, and that loss detection
 * stops at the first packet not lost.
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/list.h>
#include "export.h"
#include "sent.h"
#include "varint.h"

/**
 * quic_sent_init() - empty a store
 * @s: the store
 */
void quic_sent_init(struct quic_sent *s)
{
	INIT_LIST_HEAD(&s->head);
	s->tree = RB_ROOT;
	s->bytes_in_flight = 0;
	s->eliciting_in_flight = 0;
	s->others = 0;
	s->next_pn = 0;
	s->largest_acked = 0;
	s->last_eliciting_time = 0;
	s->any_acked = false;
	s->steps = 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_sent_init);

static bool quic_sent_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct quic_sent_pkt, node)->pn <
	       rb_entry(b, struct quic_sent_pkt, node)->pn;
}

/**
 * quic_sent_add() - record a packet just sent
 * @s: the store
 * @pkt: the packet, with its number, send time, size and flags filled in
 *
 * Packet numbers must increase and send times must not go back (the order
 * loss detection relies on); skipped packet numbers are fine.
 *
 * Return: 0, or -EINVAL if @pkt breaks that order (a caller bug).
 */
int quic_sent_add(struct quic_sent *s, struct quic_sent_pkt *pkt)
{
	struct quic_sent_pkt *newest = quic_sent_newest(s);

	if (pkt->pn > QUIC_VARINT_MAX || (s->next_pn && pkt->pn < s->next_pn))
		return -EINVAL;
	if (newest && pkt->sent_time < newest->sent_time)
		return -EINVAL;
	list_add_tail(&pkt->list, &s->head);
	rb_add(&pkt->node, &s->tree, quic_sent_less);
	s->next_pn = pkt->pn + 1;
	if (!pkt->ack_eliciting)
		s->others++;
	if (pkt->in_flight) {
		s->bytes_in_flight += pkt->size;
		if (pkt->ack_eliciting) {
			s->eliciting_in_flight++;
			s->last_eliciting_time = pkt->sent_time;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_sent_add);

/**
 * quic_sent_skip() - a packet was sent and is not stored
 * @s: the store
 * @pn: its packet number, in the order quic_sent_add() wants
 *
 * For a packet that is not ack-eliciting when the store holds enough of
 * those: an ACK of it is then no protocol violation, and acknowledges
 * nothing stored.
 *
 * Return: 0, or -EINVAL if @pn is out of order (a caller bug).
 */
int quic_sent_skip(struct quic_sent *s, u64 pn)
{
	if (pn > QUIC_VARINT_MAX || (s->next_pn && pn < s->next_pn))
		return -EINVAL;
	s->next_pn = pn + 1;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_sent_skip);

static void quic_sent_list_del(struct quic_sent *s, struct quic_sent_pkt *pkt)
{
	list_del(&pkt->list);
	if (!pkt->ack_eliciting)
		s->others--;
	if (pkt->in_flight) {
		s->bytes_in_flight -= pkt->size;
		if (pkt->ack_eliciting)
			s->eliciting_in_flight--;
	}
}

static void quic_sent_unlink(struct quic_sent *s, struct quic_sent_pkt *pkt)
{
	rb_erase(&pkt->node, &s->tree);
	quic_sent_list_del(s, pkt);
}

static int quic_sent_check_ranges(const struct quic_sent *s,
				  const struct quic_ack_range *ranges, u32 n)
{
	u32 i;

	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (ranges[i].smallest > ranges[i].largest)
			return -EINVAL;
		if (i && ranges[i].largest >= ranges[i - 1].smallest)
			return -EINVAL;
	}
	if (ranges[0].largest >= s->next_pn)
		return -EPROTO;
	return 0;
}

/* The stored packet with the largest number not above @pn, or NULL. The
 * newest packet, the usual answer for an ACK's first range, costs one
 * step; any other a descent of the tree.
 */
static struct quic_sent_pkt *quic_sent_floor(struct quic_sent *s, u64 pn)
{
	struct quic_sent_pkt *pkt = quic_sent_newest(s), *best = NULL;
	struct rb_node *n = s->tree.rb_node;

	s->steps++;
	if (!pkt || pkt->pn <= pn)
		return pkt;
	while (n) {
		s->steps++;
		pkt = rb_entry(n, struct quic_sent_pkt, node);
		if (pkt->pn > pn) {
			n = n->rb_left;
			continue;
		}
		best = pkt;
		if (pkt->pn == pn)
			break;
		n = n->rb_right;
	}
	return best;
}

/**
 * quic_sent_on_ack() - remove the packets an ACK frame acknowledges
 * @s: the store
 * @ranges: the ACK ranges, descending and disjoint, as decoded
 * @n: number of ranges, at least 1
 * @cb: called for each newly acknowledged packet, in descending packet
 *	number order, after it is unlinked (it may free the packet)
 * @ctx: passed to @cb
 *
 * Packet numbers already acknowledged or declared lost are skipped
 * silently.  The whole input is checked before anything is removed.
 * Costs O(@n) to check the ranges, plus the packets acknowledged, plus a
 * tree lookup, O(log packets stored), per range that reaches a stored
 * packet; ranges below the oldest stored packet cost nothing more.  If
 * the first range's Largest Acknowledged is
 * newly acknowledged, it is the first packet given to @cb (RFC 9002,
 * section 5.1, takes its RTT sample from it).
 *
 * Return: the number of packets acknowledged now; -EINVAL if @ranges are
 * empty, reversed, not descending or overlapping (FRAME_ENCODING_ERROR);
 * -EPROTO if they acknowledge a packet number never sent
 * (PROTOCOL_VIOLATION, RFC 9000 section 13.1).
 */
int quic_sent_on_ack(struct quic_sent *s, const struct quic_ack_range *ranges,
		     u32 n, quic_sent_cb cb, void *ctx)
{
	struct quic_sent_pkt *pkt, *prev;
	int err, acked = 0;
	u32 i;

	err = quic_sent_check_ranges(s, ranges, n);
	if (err)
		return err;
	if (!s->any_acked || ranges[0].largest > s->largest_acked) {
		s->largest_acked = ranges[0].largest;
		s->any_acked = true;
	}

	for (i = 0; i < n && !list_empty(&s->head); i++) {
		if (quic_sent_oldest(s)->pn > ranges[i].largest)
			break;
		pkt = quic_sent_floor(s, ranges[i].largest);
		while (pkt && pkt->pn >= ranges[i].smallest) {
			s->steps++;
			prev = list_is_first(&pkt->list, &s->head) ? NULL :
			       list_prev_entry(pkt, list);
			quic_sent_unlink(s, pkt);
			cb(ctx, pkt);
			acked++;
			pkt = prev;
		}
	}
	return acked;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_sent_on_ack);

/**
 * quic_sent_detect_lost() - remove the packets now deemed lost
 * @s: the store
 * @largest_acked: the largest packet number acknowledged in this space
 *	(normally s->largest_acked)
 * @threshold: the packet threshold, kPacketThreshold (3) or more
 * @loss_delay: kTimeThreshold * max(smoothed_rtt, latest_rtt), at least
 *	kGranularity, in the unit of the send times
 * @now: the current time
 * @loss_time: set to when the oldest packet not yet lost would be, for the
 *	loss timer, or 0 if no packet below @largest_acked remains
 * @cb: called for each lost packet, in ascending packet number order,
 *	after it is unlinked (it may free the packet); packets not in flight
 *	are removed too, the callback tells them apart
 * @ctx: passed to @cb
 *
 * RFC 9002, section 6.1: a packet sent before an acknowledged one is lost
 * if it is @threshold packet numbers older, or was sent at least
 * @loss_delay ago.  Walks from the oldest packet and stops at the first
 * one that is not lost: both conditions only get harder to meet for newer
 * packets.  Costs O(packets lost + 1).
 *
 * Return: the number of packets declared lost.
 */
u32 quic_sent_detect_lost(struct quic_sent *s, u64 largest_acked,
			  u32 threshold, u64 loss_delay, u64 now,
			  u64 *loss_time, quic_sent_cb cb, void *ctx)
{
	struct quic_sent_pkt *pkt, *tmp;
	u32 lost = 0;

	*loss_time = 0;
	list_for_each_entry_safe(pkt, tmp, &s->head, list) {
		if (pkt->pn >= largest_acked)
			break;
		s->steps++;
		if (pkt->pn + threshold > largest_acked &&
		    (now < loss_delay || pkt->sent_time > now - loss_delay)) {
			*loss_time = pkt->sent_time + loss_delay;
			break;
		}
		quic_sent_unlink(s, pkt);
		cb(ctx, pkt);
		lost++;
	}
	return lost;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_sent_detect_lost);

/**
 * quic_sent_remove_all() - empty the store, e.g. when its keys are discarded
 * @s: the store
 * @cb: called for each packet in ascending packet number order, after it is
 *	unlinked (it may free the packet)
 * @ctx: passed to @cb
 *
 * The packets stop counting in flight (RFC 9002, section 6.4).  The
 * packet numbers sent and acknowledged so far are kept.
 */
void quic_sent_remove_all(struct quic_sent *s, quic_sent_cb cb, void *ctx)
{
	struct quic_sent_pkt *pkt, *tmp;

	s->tree = RB_ROOT;	/* all of it goes: no rebalancing per packet */
	list_for_each_entry_safe(pkt, tmp, &s->head, list) {
		quic_sent_list_del(s, pkt);
		cb(ctx, pkt);
	}
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_sent_remove_all);
