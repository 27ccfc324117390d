/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the send queue of a packet-number space (net/quic/outq.c).
 *
 * CRYPTO and STREAM data wait in one kind of queue, as one kind of
 * record, from the moment they are queued until they are acknowledged:
 * the Initial and Handshake spaces hold CRYPTO data, the 1-RTT space
 * CRYPTO data (post-handshake messages) and the STREAM data of every
 * stream, in the order queued.
 *
 * New data is taken at a send cursor, the first chunk never sent;
 * chunks of lost packets wait on a list of their own, sent before new
 * data. Taking the next chunk to send is O(1), whatever is in flight.
 * A chunk is referenced by the records of the packets that carried it
 * and freed when acknowledged (or dropped) and no longer referenced.
 *
 * Pure data structure, no locking: the caller serialises (socket lock).
 */
#ifndef __NET_QUIC_OUTQ_H
#define __NET_QUIC_OUTQ_H

#include <linux/bvec.h>
#include <linux/list.h>
#include <linux/overflow.h>
#include <linux/types.h>

struct scatterlist;
struct ubuf_info;

/* The stream ID of CRYPTO data. */
#define QUIC_OUTQ_CRYPTO	(-1)
/* Room a STREAM chunk gets at least, for later small writes to join it. */
#define QUIC_OUTQ_STREAM_ROOM	512
/* Page fragments a paged chunk holds: 64 KiB of pages, not aligned. */
#define QUIC_OUTQ_FRAGS		18

/**
 * struct quic_outq_chunk - CRYPTO or STREAM bytes to deliver
 * @list: link in &quic_outq.chunks, in the order queued
 * @lost: link in &quic_outq.lost while it is to be sent again
 * @id: the stream, or %QUIC_OUTQ_CRYPTO
 * @offset: offset in the stream (or the level's CRYPTO stream)
 * @len: bytes at @data, or in the pages of a @paged chunk
 * @cap: room at @data; for a @paged chunk, the most bytes it takes
 * @refs: sent-packet records pointing here
 * @fin: the last bytes of the stream (may be a bare FIN, @len 0)
 * @sent: sent at least once
 * @acked: delivered or dropped, off the queue; freed once @refs is 0
 * @paged: the bytes are not at @data but in pages it references
 *	(sendfile(), splice(), MSG_ZEROCOPY): @data holds a
 *	&struct quic_outq_frags
 * @data: the bytes
 */
struct quic_outq_chunk {
	struct list_head	list;
	struct list_head	lost;
	s64			id;
	u64			offset;
	u32			len;
	u32			cap;
	u32			refs;
	u8			fin:1,
				sent:1,
				acked:1,
				paged:1;
	u8			data[] __aligned(8);
};

/**
 * struct quic_outq_frags - where the bytes of a paged chunk are
 * @uarg: the MSG_ZEROCOPY completion the chunk holds a reference on,
 *	or NULL
 * @truesize: what the chunk is charged to the socket's send buffer
 * @nr: fragments used
 * @max: fragments allocated
 * @bv: the fragments, each holding a reference on its page; the bytes
 *	of the chunk are their first &quic_outq_chunk.len bytes
 */
struct quic_outq_frags {
	struct ubuf_info	*uarg;
	u32			truesize;
	u16			nr;
	u16			max;
	struct bio_vec		bv[];
};

/**
 * quic_outq_frags - the fragments of a paged chunk
 * @ch: the chunk, &quic_outq_chunk.paged set
 *
 * Return: its fragments.
 */
static inline struct quic_outq_frags *quic_outq_frags(struct quic_outq_chunk *ch)
{
	return (struct quic_outq_frags *)ch->data;
}

/**
 * struct quic_outq - the data of one space to deliver
 * @chunks: every chunk not yet acknowledged, in the order queued
 * @lost: chunks of lost packets, to send again, in the order lost
 * @next: the send cursor: the first chunk never sent, or @chunks
 * @unsent: bytes of the chunks never sent (SIOCOUTQNSD)
 * @bytes: bytes of all chunks queued
 * @crypto: bytes of the CRYPTO chunks queued (of @bytes)
 */
struct quic_outq {
	struct list_head	chunks;
	struct list_head	lost;
	struct list_head	*next;
	u64			unsent;
	u64			bytes;
	u64			crypto;
};

/* Chunks a packet reads its data from at most, and scatterlist entries
 * the packet takes then: its own bytes between them and the chunks'.
 */
#define QUIC_OUTQ_SRC_MAX	4
#define QUIC_OUTQ_SRC_SG	16

/**
 * struct quic_outq_src - the CRYPTO and STREAM frames of a packet being
 *	planned whose bytes are not copied into it: the AEAD reads them
 *	from their chunks as it writes the packet
 * @base: where the packet's frames are planned
 * @copy_paged: the bytes of paged chunks are copied, not read by the AEAD
 *	(AES-CCM reads its source twice: a page of a file that changes in
 *	between would make the packet fail its tag)
 * @nr: chunks
 * @nsg: scatterlist entries of their bytes
 * @off: where each chunk's bytes go, from @base
 * @ch: the chunks, referenced by the packet's record
 */
struct quic_outq_src {
	u8			*base;
	bool			copy_paged;
	u32			nr;
	u32			nsg;
	u32			off[QUIC_OUTQ_SRC_MAX];
	struct quic_outq_chunk	*ch[QUIC_OUTQ_SRC_MAX];
};

/**
 * typedef quic_outq_cb - called for a chunk about to leave the queue
 * @ctx: the caller's context
 * @ch: the chunk, still on the queue
 */
typedef void (*quic_outq_cb)(void *ctx, struct quic_outq_chunk *ch);

void quic_outq_init(struct quic_outq *q);
u32 quic_outq_stream_room(u32 len, u32 full);
struct quic_outq_chunk *quic_outq_chunk_alloc(s64 id, u64 offset, u32 len,
					      u32 cap, gfp_t gfp);
/**
 * quic_outq_chunk_truesize - what a chunk is charged to its socket
 * @ch: the chunk
 *
 * Return: its allocation and its bytes; constant over its life.
 */
static inline u32 quic_outq_chunk_truesize(const struct quic_outq_chunk *ch)
{
	if (ch->paged)
		return ((const struct quic_outq_frags *)ch->data)->truesize;
	return struct_size(ch, data, ch->cap);
}

struct quic_outq_chunk *quic_outq_chunk_alloc_paged(s64 id, u64 offset,
						    u32 cap, gfp_t gfp);
bool quic_outq_frag_add(struct quic_outq_chunk *ch, struct page *page,
			u32 off, u32 len);
void quic_outq_frags_trim(struct quic_outq_chunk *ch, u16 nr);
void quic_outq_chunk_free(struct quic_outq_chunk *ch);
void quic_outq_chunk_copy(struct quic_outq_chunk *ch, u8 *to);
void quic_outq_src_init(struct quic_outq_src *src, u8 *base, bool copy_paged);
bool quic_outq_src_add(struct quic_outq_src *src, struct quic_outq_chunk *ch,
		       u8 *at);
void quic_outq_src_shift(struct quic_outq_src *src, u32 n);
void quic_outq_src_sg(const struct quic_outq_src *src, u8 *pkt, u32 hlen,
		      u32 len, struct scatterlist *sg);
void quic_outq_add(struct quic_outq *q, struct quic_outq_chunk *ch);
struct quic_outq_chunk *quic_outq_tail(struct quic_outq *q, s64 id);
void quic_outq_grow(struct quic_outq *q, struct quic_outq_chunk *ch,
		    u32 len);
struct quic_outq_chunk *quic_outq_peek(struct quic_outq *q);
void quic_outq_sent(struct quic_outq *q, struct quic_outq_chunk *ch);
bool quic_outq_lost(struct quic_outq *q, struct quic_outq_chunk *ch);
bool quic_outq_acked(struct quic_outq *q, struct quic_outq_chunk *ch);
void quic_outq_put(struct quic_outq_chunk *ch);
void quic_outq_drop(struct quic_outq *q, struct quic_outq_chunk *ch);
u32 quic_outq_drop_stream(struct quic_outq *q, s64 id, u32 nr,
			  quic_outq_cb cb, void *ctx);
int quic_outq_split(struct quic_outq *q, struct quic_outq_chunk *ch, u32 n,
		    gfp_t gfp);

/**
 * quic_outq_empty - whether nothing is left to deliver
 * @q: the queue
 *
 * Return: true if every chunk was acknowledged or dropped.
 */
static inline bool quic_outq_empty(const struct quic_outq *q)
{
	return list_empty(&q->chunks);
}

/**
 * quic_outq_pending - whether a chunk waits to be sent (again)
 * @q: the queue
 *
 * Return: true if quic_outq_peek() has a chunk.
 */
static inline bool quic_outq_pending(const struct quic_outq *q)
{
	return !list_empty(&q->lost) || q->next != &q->chunks;
}

#endif /* __NET_QUIC_OUTQ_H */
