/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the packet numbers received in one packet-number space, kept as a
 * bounded set of disjoint ranges for ACK frames (RFC 9000, sections 13.2
 * and 19.3) and for duplicate detection.
 *
 * At most QUIC_ACK_MAX_RANGES ranges are kept, in a fixed ring inside the
 * set: receiving a packet never allocates.  When a new range does not fit,
 * the lowest (oldest) range is forgotten and every packet number up to it
 * counts as seen from then on: such packets are no longer acknowledged,
 * which RFC 9000 section 13.2.3 allows, and a late copy is dropped as too
 * old rather than processed twice.
 *
 * Pure data structure, no locking: the caller serializes (socket lock).
 */
#ifndef _NET_QUIC_ACKRANGE_H
#define _NET_QUIC_ACKRANGE_H

#include <linux/types.h>

/* Most ranges one set keeps; a power of two (the ring's index mask). */
#define QUIC_ACK_MAX_RANGES	32

/**
 * struct quic_ack_range - a closed range of packet numbers
 * @largest: the largest packet number of the range
 * @smallest: the smallest, at most @largest
 *
 * The shape of one ACK range once decoded from its frame (RFC 9000,
 * section 19.3.1); lists of ranges are in descending order.
 */
struct quic_ack_range {
	u64 largest;
	u64 smallest;
};

/**
 * struct quic_ackrange - the received packet numbers of one space
 * @r: the ranges, a ring; logical index 0 (at @head) is the highest range
 * @head: ring index of the highest range
 * @count: number of ranges held
 * @floor: every packet number below it counts as seen
 * @largest: the largest packet number ever added, if @any
 * @largest_time: when @largest was received, in the caller's time unit
 * @any: whether a packet number was ever added
 *
 * Initialise with quic_ackrange_init() (or zero it); read only through the
 * functions below.
 */
struct quic_ackrange {
	struct quic_ack_range r[QUIC_ACK_MAX_RANGES];
	u32 head;
	u32 count;
	u64 floor;
	u64 largest;
	u64 largest_time;
	bool any;
};

void quic_ackrange_init(struct quic_ackrange *set);
bool quic_ackrange_seen(const struct quic_ackrange *set, u64 pn);
int quic_ackrange_add(struct quic_ackrange *set, u64 pn, u64 now);
void quic_ackrange_drop_below(struct quic_ackrange *set, u64 pn);
bool quic_ackrange_get(const struct quic_ackrange *set, u32 i,
		       struct quic_ack_range *r);
bool quic_ackrange_first(const struct quic_ackrange *set, u64 *largest,
			 u64 *first_range);
bool quic_ackrange_gap(const struct quic_ackrange *set, u32 i, u64 *gap,
		       u64 *length);
int quic_ack_range_first(u64 largest, u64 first_range,
			 struct quic_ack_range *r);
int quic_ack_range_next(const struct quic_ack_range *prev, u64 gap,
			u64 length, struct quic_ack_range *r);

/**
 * quic_ackrange_count - number of ranges an ACK frame would carry
 * @set: the set
 *
 * Return: the number of disjoint ranges held, 0 when there is nothing
 * to acknowledge.
 */
static inline u32 quic_ackrange_count(const struct quic_ackrange *set)
{
	return set->count;
}

/**
 * quic_ackrange_largest - the largest packet number received
 * @set: the set
 * @pn: where to store it
 *
 * It stays known after quic_ackrange_drop_below() forgets its range, for
 * packet-number decoding (RFC 9000, section 17.1).
 *
 * Return: false if no packet number was ever added.
 */
static inline bool quic_ackrange_largest(const struct quic_ackrange *set,
					 u64 *pn)
{
	*pn = set->largest;
	return set->any;
}

/**
 * quic_ackrange_ack_delay - time since the largest packet was received
 * @set: the set, not empty
 * @now: the current time, in the unit given to quic_ackrange_add()
 *
 * Return: the delay to encode (after scaling by ack_delay_exponent) in an
 * ACK frame, 0 if @now is before the receive time.
 */
static inline u64 quic_ackrange_ack_delay(const struct quic_ackrange *set,
					  u64 now)
{
	return now > set->largest_time ? now - set->largest_time : 0;
}

#endif /* _NET_QUIC_ACKRANGE_H */
