// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the reassembly of received CRYPTO data: a sorted list of pieces
 * that never overlap, bounded in span and in count (see reasm.h).
 *
 * A list, not a tree: it holds at most QUIC_REASM_MAX_PIECES + 1 pieces
 * (a TLS flight of a few dozen packets in practice), and a frame walks it
 * once from the delivery point.
 */

#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include "export.h"
#include "reasm.h"

/**
 * struct quic_reasm_piece - bytes received beyond the delivery point
 * @list: link in &quic_reasm.pieces
 * @offset: stream offset of @data[0]
 * @len: bytes at @data
 * @size: bytes charged (the slab size of the piece)
 * @data: the bytes
 */
struct quic_reasm_piece {
	struct list_head	list;
	u64			offset;
	u32			len;
	u32			size;
	u8			data[];
};

#define QUIC_REASM_HDR		offsetof(struct quic_reasm_piece, data)
/* Largest piece: one page, so that no allocation is of a higher order. */
#define QUIC_REASM_PIECE_MAX	(PAGE_SIZE - QUIC_REASM_HDR)

static inline u64 quic_piece_end(const struct quic_reasm_piece *p)
{
	return p->offset + p->len;
}

/**
 * quic_reasm_init() - an empty reassembly, delivery point at 0
 * @r: the reassembly
 * @cap: bytes accepted beyond the delivery point (RFC 9000 7.5 asks for
 *	at least 4096)
 * @charge: memory accounting callback, or NULL
 * @charge_ctx: its context
 */
void quic_reasm_init(struct quic_reasm *r, u32 cap, quic_reasm_charge_t charge,
		     void *charge_ctx)
{
	INIT_LIST_HEAD(&r->pieces);
	r->offset = 0;
	r->cap = cap;
	r->count = 0;
	r->mem = 0;
	r->charge = charge;
	r->charge_ctx = charge_ctx;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_reasm_init);

static void quic_reasm_piece_free(struct quic_reasm *r,
				  struct quic_reasm_piece *p)
{
	list_del(&p->list);
	r->count--;
	r->mem -= p->size;
	if (r->charge)
		r->charge(r->charge_ctx, -(int)p->size);
	kfree(p);
}

/* Store @len bytes at @offset in new pieces, linked in front of @pos. */
static int quic_reasm_fill(struct quic_reasm *r, struct list_head *pos,
			   u64 offset, const u8 *data, u64 len)
{
	struct quic_reasm_piece *p;
	u32 n, size;
	int err;

	while (len) {
		if (offset != r->offset && r->count >= QUIC_REASM_MAX_PIECES)
			return -ENOBUFS;
		n = min_t(u64, len, QUIC_REASM_PIECE_MAX);
		size = kmalloc_size_roundup(struct_size(p, data, n));
		if (r->charge) {
			err = r->charge(r->charge_ctx, size);
			if (err)
				return err;
		}
		p = kmalloc(size, GFP_ATOMIC | __GFP_NOWARN);
		if (!p) {
			if (r->charge)
				r->charge(r->charge_ctx, -(int)size);
			return -ENOMEM;
		}
		p->offset = offset;
		p->len = n;
		p->size = size;
		memcpy(p->data, data, n);
		list_add_tail(&p->list, pos);
		r->count++;
		r->mem += size;
		offset += n;
		data += n;
		len -= n;
	}
	return 0;
}

/**
 * quic_reasm_add() - take the bytes of one received CRYPTO frame
 * @r: the reassembly
 * @offset: the frame's offset
 * @data: its bytes
 * @len: how many (0 is a frame with nothing to store)
 *
 * Stores the bytes at or beyond the delivery point that no piece holds
 * yet. On an error, the bytes stored before it stay (a frame sent again
 * fills the rest).
 *
 * Return: 0; -EPROTO if the frame ends beyond the delivery point plus the
 * cap (or beyond 2^64): the peer must be closed with
 * CRYPTO_BUFFER_EXCEEDED; -ENOBUFS if the piece limit was reached or the
 * charge refused, -ENOMEM without memory: then the packet must not be
 * acknowledged.
 */
int quic_reasm_add(struct quic_reasm *r, u64 offset, const u8 *data, u64 len)
{
	struct list_head *pos = r->pieces.next;
	u64 start, end, gap_end;
	int err;

	if (!len)
		return 0;
	if (check_add_overflow(offset, len, &end))
		return -EPROTO;
	if (end <= r->offset)
		return 0;	/* delivered already */
	if (end - r->offset > r->cap)
		return -EPROTO;
	start = max(offset, r->offset);
	while (start < end) {
		struct quic_reasm_piece *p = NULL;

		if (pos != &r->pieces)
			p = list_entry(pos, struct quic_reasm_piece, list);
		if (p && quic_piece_end(p) <= start) {
			pos = pos->next;
			continue;
		}
		if (p && p->offset <= start) {
			start = quic_piece_end(p);	/* held already */
			pos = pos->next;
			continue;
		}
		gap_end = p ? min(end, p->offset) : end;
		err = quic_reasm_fill(r, pos, start, data + (start - offset),
				      gap_end - start);
		if (err)
			return err;
		start = gap_end;
	}
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_reasm_add);

/**
 * quic_reasm_peek() - the in-order bytes of the first piece
 * @r: the reassembly
 * @data: set to the byte at the delivery point, if any
 *
 * Return: how many bytes at *@data continue the delivered data (at most a
 * piece's worth), 0 while the next byte is missing.
 */
u32 quic_reasm_peek(const struct quic_reasm *r, const u8 **data)
{
	const struct quic_reasm_piece *p;

	if (list_empty(&r->pieces))
		return 0;
	p = list_first_entry(&r->pieces, struct quic_reasm_piece, list);
	if (p->offset > r->offset)
		return 0;
	*data = p->data + (r->offset - p->offset);
	return quic_piece_end(p) - r->offset;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_reasm_peek);

/**
 * quic_reasm_pull() - the caller delivered bytes that quic_reasm_peek()
 *	returned
 * @r: the reassembly
 * @len: how many, at most what quic_reasm_peek() returned (clamped)
 *
 * Moves the delivery point and frees the piece once it is all delivered.
 */
void quic_reasm_pull(struct quic_reasm *r, u32 len)
{
	struct quic_reasm_piece *p;

	p = list_first_entry_or_null(&r->pieces, struct quic_reasm_piece,
				     list);
	if (!p || p->offset > r->offset)
		return;
	r->offset += min_t(u64, len, quic_piece_end(p) - r->offset);
	if (r->offset == quic_piece_end(p))
		quic_reasm_piece_free(r, p);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_reasm_pull);

/**
 * quic_reasm_free() - drop every piece and give their memory back
 * @r: the reassembly
 *
 * The delivery point stays; the reassembly may be used again.
 */
void quic_reasm_free(struct quic_reasm *r)
{
	struct quic_reasm_piece *p, *tmp;

	list_for_each_entry_safe(p, tmp, &r->pieces, list)
		quic_reasm_piece_free(r, p);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_reasm_free);
