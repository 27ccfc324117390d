/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the reassembly of received CRYPTO data (net/quic/reasm.c).
 *
 * CRYPTO frames of one encryption level may arrive out of order, as the
 * packets that carry them do. RFC 9000 7.5 asks a receiver to buffer at
 * least 4096 bytes beyond the next byte it expects, and to close with
 * CRYPTO_BUFFER_EXCEEDED when a peer sends beyond what it buffers. A
 * reassembly keeps the bytes received past the delivery point as a list
 * of pieces sorted by offset that never overlap: a frame stores only the
 * bytes that fill gaps, so duplicate, overlapping and already delivered
 * data costs nothing. The caller takes the in-order bytes at the delivery
 * point one piece at a time (quic_reasm_peek(), quic_reasm_pull()).
 *
 * Bounds. Data is accepted only below the delivery point plus @cap; more
 * is a protocol error (-EPROTO). At most %QUIC_REASM_MAX_PIECES pieces
 * wait beyond the delivery point (a piece at the delivery point is always
 * taken, so that delivery can go on); a piece fills at most a page.
 * Every piece is charged its slab size through the charge callback,
 * which may refuse. So a reassembly holds at most @cap bytes of data in
 * at most %QUIC_REASM_MAX_PIECES + 1 pieces, less than twice @cap plus
 * the piece headers in memory, whatever a peer sends.
 *
 * Pure data structure, no locking: the caller serialises (socket lock).
 */
#ifndef __NET_QUIC_REASM_H
#define __NET_QUIC_REASM_H

#include <linux/list.h>
#include <linux/types.h>

/* Pieces that may wait beyond the delivery point. */
#define QUIC_REASM_MAX_PIECES	128

/**
 * typedef quic_reasm_charge_t - memory accounting callback
 * @ctx: the reassembly's charge context
 * @bytes: bytes to charge (> 0), or to give back (< 0)
 *
 * Return: 0, or -ENOBUFS to refuse a charge (never refuses giving back).
 */
typedef int (*quic_reasm_charge_t)(void *ctx, int bytes);

/**
 * struct quic_reasm - received bytes of one CRYPTO stream, not delivered
 * @pieces: &struct quic_reasm_piece, by offset, without overlaps
 * @offset: the delivery point: every byte below it was delivered
 * @cap: bytes at or beyond @offset + @cap are not accepted
 * @count: pieces on @pieces
 * @mem: bytes charged for them
 * @charge: memory accounting callback, or NULL
 * @charge_ctx: its context
 */
struct quic_reasm {
	struct list_head	pieces;
	u64			offset;
	u32			cap;
	u32			count;
	u32			mem;
	quic_reasm_charge_t	charge;
	void			*charge_ctx;
};

void quic_reasm_init(struct quic_reasm *r, u32 cap, quic_reasm_charge_t charge,
		     void *charge_ctx);
int quic_reasm_add(struct quic_reasm *r, u64 offset, const u8 *data, u64 len);
u32 quic_reasm_peek(const struct quic_reasm *r, const u8 **data);
void quic_reasm_pull(struct quic_reasm *r, u32 len);
void quic_reasm_free(struct quic_reasm *r);

/**
 * quic_reasm_offset() - the delivery point
 * @r: the reassembly
 *
 * Return: the bytes delivered (pulled) so far.
 */
static inline u64 quic_reasm_offset(const struct quic_reasm *r)
{
	return r->offset;
}

#endif /* __NET_QUIC_REASM_H */
