// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the set of received packet numbers of one packet-number space.
 *
 * The ranges sit in a ring of QUIC_ACK_MAX_RANGES slots in descending
 * order, so the cases that matter are O(1): extending the highest range
 * (packets in order), opening a new highest range (after a loss) and
 * forgetting the lowest range when the ring is full.  A packet that fills
 * an older gap costs at most one pass over the ranges.
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include "ackrange.h"
#include "export.h"
#include "varint.h"

#define QUIC_ACK_RING_MASK	(QUIC_ACK_MAX_RANGES - 1)

static struct quic_ack_range *quic_ackrange_at(struct quic_ackrange *set,
					       u32 i)
{
	return &set->r[(set->head + i) & QUIC_ACK_RING_MASK];
}

static const struct quic_ack_range *
quic_ackrange_cat(const struct quic_ackrange *set, u32 i)
{
	return &set->r[(set->head + i) & QUIC_ACK_RING_MASK];
}

/**
 * quic_ackrange_init() - empty a set
 * @set: the set
 */
void quic_ackrange_init(struct quic_ackrange *set)
{
	BUILD_BUG_ON(!is_power_of_2(QUIC_ACK_MAX_RANGES));
	memset(set, 0, sizeof(*set));
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ackrange_init);

/* Index of the highest range whose smallest is at most @pn, or set->count
 * when @pn lies below every range.
 */
static u32 quic_ackrange_find(const struct quic_ackrange *set, u64 pn)
{
	u32 i;

	for (i = 0; i < set->count; i++)
		if (quic_ackrange_cat(set, i)->smallest <= pn)
			break;
	return i;
}

/**
 * quic_ackrange_seen() - whether a packet number is a duplicate or too old
 * @set: the set
 * @pn: the packet number of a received packet
 *
 * Exactly the packet numbers that quic_ackrange_add() would refuse: those
 * recorded, those below the tracked window, and, when the set is full,
 * those that would open a new range below the lowest one.
 *
 * Return: true if a packet with number @pn must be dropped.
 */
bool quic_ackrange_seen(const struct quic_ackrange *set, u64 pn)
{
	const struct quic_ack_range *low;
	u32 i;

	if (pn < set->floor || pn > QUIC_VARINT_MAX)
		return true;
	i = quic_ackrange_find(set, pn);
	if (i < set->count)
		return pn <= quic_ackrange_cat(set, i)->largest;
	if (set->count < QUIC_ACK_MAX_RANGES)
		return false;
	low = quic_ackrange_cat(set, set->count - 1);
	return pn + 1 < low->smallest;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ackrange_seen);

/* Forget the lowest range; nothing at or below it is accepted again. */
static void quic_ackrange_drop_lowest(struct quic_ackrange *set)
{
	set->count--;
	set->floor = quic_ackrange_at(set, set->count)->largest + 1;
}

/* Open the range [pn, pn] at logical index @i; the ring has room. */
static void quic_ackrange_insert(struct quic_ackrange *set, u32 i, u64 pn)
{
	u32 j;

	if (!i) {
		set->head = (set->head - 1) & QUIC_ACK_RING_MASK;
	} else {
		for (j = set->count; j > i; j--)
			*quic_ackrange_at(set, j) = *quic_ackrange_at(set, j - 1);
	}
	set->count++;
	quic_ackrange_at(set, i)->largest = pn;
	quic_ackrange_at(set, i)->smallest = pn;
}

/* Remove the range at logical index @i, which is not the first. */
static void quic_ackrange_remove(struct quic_ackrange *set, u32 i)
{
	for (; i + 1 < set->count; i++)
		*quic_ackrange_at(set, i) = *quic_ackrange_at(set, i + 1);
	set->count--;
}

/**
 * quic_ackrange_add() - record a received packet number
 * @set: the set
 * @pn: the packet number, once the packet is authenticated
 * @now: the receive time, in any unit the caller keeps to (e.g. ns)
 *
 * Merges @pn into its neighbouring ranges.  If it needs a new range and
 * the set is full, the lowest range is forgotten, unless the new range
 * would itself be the lowest: then @pn is refused as too old.
 *
 * Return: 0 if @pn was recorded, -EEXIST if it was seen before or is too
 * old (the packet must be dropped: quic_ackrange_seen() is true for it).
 */
int quic_ackrange_add(struct quic_ackrange *set, u64 pn, u64 now)
{
	struct quic_ack_range *top, *r;
	bool above, below;
	u32 i;

	if (pn < set->floor || pn > QUIC_VARINT_MAX)
		return -EEXIST;

	/* Only numbers below the largest can be refused past this point. */
	if (!set->any || pn > set->largest) {
		set->any = true;
		set->largest = pn;
		set->largest_time = now;
	}

	top = quic_ackrange_at(set, 0);
	if (set->count && pn > top->largest) {
		if (pn == top->largest + 1) {
			top->largest = pn;
			return 0;
		}
		if (set->count == QUIC_ACK_MAX_RANGES)
			quic_ackrange_drop_lowest(set);
		quic_ackrange_insert(set, 0, pn);
		return 0;
	}

	i = quic_ackrange_find(set, pn);
	r = quic_ackrange_at(set, i);
	if (i < set->count && pn <= r->largest)
		return -EEXIST;
	/* Here pn lies strictly between range i (if any) and range i - 1. */
	above = i && quic_ackrange_at(set, i - 1)->smallest == pn + 1;
	below = i < set->count && r->largest + 1 == pn;
	if (above && below) {
		quic_ackrange_at(set, i - 1)->smallest = r->smallest;
		quic_ackrange_remove(set, i);
	} else if (above) {
		quic_ackrange_at(set, i - 1)->smallest = pn;
	} else if (below) {
		r->largest = pn;
	} else {
		if (set->count == QUIC_ACK_MAX_RANGES) {
			if (i == set->count)
				return -EEXIST;
			quic_ackrange_drop_lowest(set);
		}
		quic_ackrange_insert(set, i, pn);
	}
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ackrange_add);

/**
 * quic_ackrange_drop_below() - stop acknowledging old packet numbers
 * @set: the set
 * @pn: the first packet number still tracked
 *
 * Once an ACK frame we sent is itself acknowledged, the packets it covered
 * need not be acknowledged again (RFC 9000, section 13.2.4): pass its
 * Largest Acknowledged + 1.  Packet numbers below @pn count as seen from
 * then on.  Costs O(ranges forgotten).
 */
void quic_ackrange_drop_below(struct quic_ackrange *set, u64 pn)
{
	struct quic_ack_range *low;

	if (pn <= set->floor)
		return;
	set->floor = pn;
	while (set->count) {
		low = quic_ackrange_at(set, set->count - 1);
		if (low->largest >= pn) {
			low->smallest = max(low->smallest, pn);
			break;
		}
		set->count--;
	}
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ackrange_drop_below);

/**
 * quic_ackrange_get() - one range of the set
 * @set: the set
 * @i: 0 for the highest range, up to quic_ackrange_count() - 1
 * @r: where to store the range
 *
 * Return: false if @i is out of bounds.
 */
bool quic_ackrange_get(const struct quic_ackrange *set, u32 i,
		       struct quic_ack_range *r)
{
	if (i >= set->count)
		return false;
	*r = *quic_ackrange_cat(set, i);
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ackrange_get);

/**
 * quic_ackrange_first() - the first fields of an ACK frame
 * @set: the set
 * @largest: Largest Acknowledged
 * @first_range: First ACK Range: largest - smallest of the highest range
 *
 * The ACK Range Count field is quic_ackrange_count() - 1 (or fewer, if the
 * encoder stops early: the ranges are in the order the frame wants).
 *
 * Return: false if there is nothing to acknowledge.
 */
bool quic_ackrange_first(const struct quic_ackrange *set, u64 *largest,
			 u64 *first_range)
{
	const struct quic_ack_range *r;

	if (!set->count)
		return false;
	r = quic_ackrange_cat(set, 0);
	*largest = r->largest;
	*first_range = r->largest - r->smallest;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ackrange_first);

/**
 * quic_ackrange_gap() - one (Gap, ACK Range Length) pair of an ACK frame
 * @set: the set
 * @i: 1 for the pair after First ACK Range, up to quic_ackrange_count() - 1
 * @gap: the unacknowledged packets between range i - 1 and range i, less
 *	one: previous smallest - largest - 2 (RFC 9000, section 19.3.1)
 * @length: largest - smallest of range i
 *
 * Return: false if @i is out of bounds.
 */
bool quic_ackrange_gap(const struct quic_ackrange *set, u32 i, u64 *gap,
		       u64 *length)
{
	const struct quic_ack_range *r, *prev;

	if (!i || i >= set->count)
		return false;
	prev = quic_ackrange_cat(set, i - 1);
	r = quic_ackrange_cat(set, i);
	*gap = prev->smallest - r->largest - 2;
	*length = r->largest - r->smallest;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ackrange_gap);

/**
 * quic_ack_range_first() - decode the first range of a received ACK frame
 * @largest: the Largest Acknowledged field
 * @first_range: the First ACK Range field
 * @r: the range
 *
 * Return: 0, or -EINVAL if the range would go below packet number 0 (the
 * frame is malformed: FRAME_ENCODING_ERROR, RFC 9000 section 19.3.1).
 */
int quic_ack_range_first(u64 largest, u64 first_range,
			 struct quic_ack_range *r)
{
	if (first_range > largest)
		return -EINVAL;
	r->largest = largest;
	r->smallest = largest - first_range;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ack_range_first);

/**
 * quic_ack_range_next() - decode a (Gap, ACK Range Length) pair
 * @prev: the range before it in the frame
 * @gap: the Gap field
 * @length: the ACK Range Length field
 * @r: the range: largest = prev smallest - gap - 2, smallest = largest -
 *	length
 *
 * Return: 0, or -EINVAL if a packet number would be negative (the frame is
 * malformed: FRAME_ENCODING_ERROR).
 */
int quic_ack_range_next(const struct quic_ack_range *prev, u64 gap,
			u64 length, struct quic_ack_range *r)
{
	if (prev->smallest < 2 || gap > prev->smallest - 2)
		return -EINVAL;
	r->largest = prev->smallest - gap - 2;
	if (length > r->largest)
		return -EINVAL;
	r->smallest = r->largest - length;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ack_range_next);
