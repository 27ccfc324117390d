// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the send queue of a connection, its socket side (see sendq.h).
 *
 * The records of the packets sent: output.c fills one per packet with
 * the retransmittable frames it planned into it, the sent store
 * (sent.c) keeps it until an ACK or a loss, and loss.c reads it then.
 */

#include <linux/slab.h>

#include <net/quic/outq.h>
#include <net/quic/sendq.h>

/**
 * quic_sendq_item_add() - a slot for one more frame of a record
 * @rec: the record
 *
 * Slots are taken in order: only the last extension can have room.
 *
 * Return: the slot, or NULL without memory (the frame then waits for
 * another packet).
 */
struct quic_out_item *quic_sendq_item_add(struct quic_out_pkt *rec)
{
	struct quic_out_ext *e, **pe = &rec->ext;

	if (rec->nr < QUIC_OUT_REC_ITEMS)
		return &rec->item[rec->nr++];
	for (e = rec->ext; e; e = e->next) {
		if (e->nr < QUIC_OUT_EXT_ITEMS)
			return &e->item[e->nr++];
		pe = &e->next;
	}
	e = kmalloc(sizeof(*e), GFP_ATOMIC | __GFP_NOWARN);
	if (!e)
		return NULL;
	e->next = NULL;
	e->nr = 1;
	*pe = e;
	return &e->item[0];
}

/**
 * quic_sendq_note() - record a frame in a record
 * @rec: the record
 * @kind: enum quic_out_kind
 * @bit: &quic_out_item.bit
 * @val: the stream ID or the sequence number of &quic_out_item
 *
 * Return: false without memory.
 */
bool quic_sendq_note(struct quic_out_pkt *rec, u8 kind, u8 bit, u64 val)
{
	struct quic_out_item *it = quic_sendq_item_add(rec);

	if (!it)
		return false;
	it->kind = kind;
	it->bit = bit;
	it->seq = val;
	return true;
}

/**
 * quic_sendq_item_next() - the next frame of a record
 * @rec: the record
 * @it: the walk, zeroed before the first call
 *
 * Return: the frame, or NULL past the last one.
 */
struct quic_out_item *quic_sendq_item_next(struct quic_out_pkt *rec,
					   struct quic_out_iter *it)
{
	if (!it->in_ext) {
		if (it->i < rec->nr)
			return &rec->item[it->i++];
		it->in_ext = true;
		it->ext = rec->ext;
		it->i = 0;
	}
	while (it->ext) {
		if (it->i < it->ext->nr)
			return &it->ext->item[it->i++];
		it->ext = it->ext->next;
		it->i = 0;
	}
	return NULL;
}

/**
 * quic_sendq_rec_release() - a record lets go of what its frames hold
 * @rec: the record
 *
 * The chunks' references and the extensions go; the record itself stays.
 */
void quic_sendq_rec_release(struct quic_out_pkt *rec)
{
	struct quic_out_iter iter = {};
	struct quic_out_item *it;
	struct quic_out_ext *e;

	while ((it = quic_sendq_item_next(rec, &iter)))
		if (it->kind == QUIC_OUT_CHUNK)
			quic_outq_put(it->chunk);
	while ((e = rec->ext)) {
		rec->ext = e->next;
		kfree(e);
	}
}

/**
 * quic_sendq_pkt_free() - drop a sent-packet record
 * @ctx: the socket
 * @pkt: the record
 */
void quic_sendq_pkt_free(void *ctx, struct quic_sent_pkt *pkt)
{
	struct quic_out_pkt *rec = container_of(pkt, struct quic_out_pkt, sent);

	quic_sendq_rec_release(rec);
	kfree(rec);
}
