/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the packets sent and not yet acknowledged or declared lost in one
 * packet-number space (RFC 9002, appendix A.1).
 *
 * The packets form a list in ascending packet-number order: we send packet
 * numbers in increasing order, so a new packet is appended at the tail.
 * They are also in a red-black tree keyed by packet number, where each
 * range of an ACK finds its highest stored packet in O(log n); from there
 * the range is walked down the list.  So an ACK costs what it acknowledges
 * plus a lookup per range, however many packets are in flight or lie
 * above its ranges (as TCP keeps its retransmit queue in an rbtree).
 * Loss detection walks forward from the head and stops at the first
 * packet that is not lost.
 *
 * The caller embeds struct quic_sent_pkt in its own packet record and owns
 * its memory: the store never allocates.  Pure data structure, no locking:
 * the caller serializes (socket lock).
 */
#ifndef _NET_QUIC_SENT_H
#define _NET_QUIC_SENT_H

#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>
#include "ackrange.h"

/* RFC 9002, section 6.1.1: kPacketThreshold. */
#define QUIC_PACKET_THRESHOLD	3

/**
 * struct quic_sent_pkt - a sent packet, embedded in the caller's record
 * @list: link in the store, ascending packet numbers
 * @node: node in the store's tree, keyed by @pn
 * @pn: the packet number
 * @sent_time: when it was sent (monotonic, any unit the caller keeps to)
 * @size: bytes counted in bytes_in_flight (UDP payload of the packet)
 * @ack_eliciting: it carries an ack-eliciting frame
 * @in_flight: it counts towards bytes_in_flight
 *
 * The caller fills @pn, @sent_time, @size and the flags before
 * quic_sent_add(), and leaves them alone while the packet is stored.
 */
struct quic_sent_pkt {
	struct list_head list;
	struct rb_node node;
	u64 pn;
	u64 sent_time;
	u32 size;
	u8 ack_eliciting:1,
	   in_flight:1;
};

/**
 * struct quic_sent - the sent-packet store of one packet-number space
 * @head: the packets, ascending packet numbers
 * @tree: the same packets by packet number
 * @bytes_in_flight: sum of @size over stored packets that are in flight
 * @eliciting_in_flight: stored packets both ack-eliciting and in flight
 * @others: stored packets that are not ack-eliciting
 * @next_pn: the largest packet number ever added, plus one (0: none yet)
 * @largest_acked: the largest packet number ever acknowledged, if
 *	@any_acked
 * @last_eliciting_time: when the newest ack-eliciting in-flight packet was
 *	sent (for PTO, RFC 9002 section 6.2.1)
 * @any_acked: an ACK was processed
 * @steps: packets visited by quic_sent_on_ack() (in the list or the
 *	tree) and quic_sent_detect_lost(), for the tests that bound their
 *	cost
 */
struct quic_sent {
	struct list_head head;
	struct rb_root tree;
	u64 bytes_in_flight;
	u32 eliciting_in_flight;
	u32 others;
	u64 next_pn;
	u64 largest_acked;
	u64 last_eliciting_time;
	bool any_acked;
	u64 steps;
};

/**
 * typedef quic_sent_cb - called for each packet leaving the store
 * @ctx: the caller's context
 * @pkt: the packet, already unlinked and no longer counted in flight;
 *	the callback may free it
 */
typedef void (*quic_sent_cb)(void *ctx, struct quic_sent_pkt *pkt);

void quic_sent_init(struct quic_sent *s);
int quic_sent_add(struct quic_sent *s, struct quic_sent_pkt *pkt);
int quic_sent_skip(struct quic_sent *s, u64 pn);
int quic_sent_on_ack(struct quic_sent *s, const struct quic_ack_range *ranges,
		     u32 n, quic_sent_cb cb, void *ctx);
u32 quic_sent_detect_lost(struct quic_sent *s, u64 largest_acked,
			  u32 threshold, u64 loss_delay, u64 now,
			  u64 *loss_time, quic_sent_cb cb, void *ctx);
void quic_sent_remove_all(struct quic_sent *s, quic_sent_cb cb, void *ctx);

/**
 * quic_sent_oldest - the packet with the smallest packet number
 * @s: the store
 *
 * Return: the packet, or NULL if the store is empty.
 */
static inline struct quic_sent_pkt *quic_sent_oldest(struct quic_sent *s)
{
	return list_first_entry_or_null(&s->head, struct quic_sent_pkt, list);
}

/**
 * quic_sent_newest - the packet with the largest packet number
 * @s: the store
 *
 * Return: the packet, or NULL if the store is empty.
 */
static inline struct quic_sent_pkt *quic_sent_newest(struct quic_sent *s)
{
	if (list_empty(&s->head))
		return NULL;
	return list_last_entry(&s->head, struct quic_sent_pkt, list);
}

/**
 * quic_sent_bytes_in_flight - bytes of in-flight packets in the store
 * @s: the store
 *
 * Return: the sum of the sizes of stored packets marked in flight.
 */
static inline u64 quic_sent_bytes_in_flight(const struct quic_sent *s)
{
	return s->bytes_in_flight;
}

/**
 * quic_sent_eliciting_in_flight - whether a PTO must be armed for the space
 * @s: the store
 *
 * Return: true if an ack-eliciting packet is in flight.
 */
static inline bool quic_sent_eliciting_in_flight(const struct quic_sent *s)
{
	return s->eliciting_in_flight;
}

#endif /* _NET_QUIC_SENT_H */
