// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the send queue of a packet-number space: one record type for
 * CRYPTO and STREAM data, a send cursor and a list of lost chunks.
 */

#include <linux/highmem.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include "export.h"
#include "outq.h"

/**
 * quic_outq_init() - an empty queue
 * @q: the queue
 */
void quic_outq_init(struct quic_outq *q)
{
	INIT_LIST_HEAD(&q->chunks);
	INIT_LIST_HEAD(&q->lost);
	q->next = &q->chunks;
	q->unsent = 0;
	q->bytes = 0;
	q->crypto = 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_init);

/**
 * quic_outq_stream_room() - the room to allocate for a new STREAM chunk
 * @len: the bytes it holds, at most @full
 * @full: the most bytes a STREAM chunk holds (a full packet's worth)
 *
 * Until it is sent, later writes of the same stream are appended to the
 * last chunk (quic_outq_tail()) instead of each taking a chunk and a
 * frame of its own. A chunk gets room for the larger of its bytes and
 * %QUIC_OUTQ_STREAM_ROOM, plus what kmalloc() rounds the allocation up
 * to anyway, never more than @full. A bare FIN (@len 0) gets none: a
 * chunk with the FIN takes no more bytes.
 *
 * Return: the room, from @len to @full (0 for a bare FIN).
 */
u32 quic_outq_stream_room(u32 len, u32 full)
{
	const size_t head = sizeof(struct quic_outq_chunk);
	u32 room;

	if (!len)
		return 0;
	room = max(len, min_t(u32, full, QUIC_OUTQ_STREAM_ROOM));
	room = kmalloc_size_roundup(head + room) - head;
	return min(room, full);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_stream_room);

/**
 * quic_outq_chunk_alloc() - a chunk for @len bytes, with room for @cap
 * @id: the stream, or %QUIC_OUTQ_CRYPTO
 * @offset: offset of its first byte
 * @len: bytes it will hold, filled in by the caller
 * @cap: room to allocate, at least @len (later bytes of the same stream
 *	may be appended while it is not sent: quic_outq_grow())
 * @gfp: allocation flags
 *
 * Return: the chunk, or NULL.
 */
struct quic_outq_chunk *quic_outq_chunk_alloc(s64 id, u64 offset, u32 len,
					      u32 cap, gfp_t gfp)
{
	struct quic_outq_chunk *ch;

	cap = max(cap, len);
	ch = kmalloc(struct_size(ch, data, cap), gfp);
	if (!ch)
		return NULL;
	INIT_LIST_HEAD(&ch->list);
	INIT_LIST_HEAD(&ch->lost);
	ch->id = id;
	ch->offset = offset;
	ch->len = len;
	ch->cap = cap;
	ch->refs = 0;
	ch->fin = 0;
	ch->sent = 0;
	ch->acked = 0;
	ch->paged = 0;
	return ch;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_chunk_alloc);

/**
 * quic_outq_chunk_alloc_paged() - a STREAM chunk whose bytes stay in pages
 * @id: the stream
 * @offset: offset of its first byte
 * @cap: the most bytes it will take
 * @gfp: allocation flags
 *
 * The chunk is empty: the caller adds fragments (quic_outq_frag_add()),
 * sets &quic_outq_chunk.len to their bytes and adds these to
 * &quic_outq_frags.truesize, which starts at the allocation's size.
 *
 * Return: the chunk, or NULL.
 */
struct quic_outq_chunk *quic_outq_chunk_alloc_paged(s64 id, u64 offset,
						    u32 cap, gfp_t gfp)
{
	struct quic_outq_chunk *ch;
	struct quic_outq_frags *fr;
	u32 size = struct_size(fr, bv, QUIC_OUTQ_FRAGS);

	ch = quic_outq_chunk_alloc(id, offset, 0, size, gfp);
	if (!ch)
		return NULL;
	ch->cap = cap;
	ch->paged = 1;
	fr = quic_outq_frags(ch);
	fr->uarg = NULL;
	fr->truesize = struct_size(ch, data, size);
	fr->nr = 0;
	fr->max = QUIC_OUTQ_FRAGS;
	return ch;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_chunk_alloc_paged);

/**
 * quic_outq_frag_add() - a paged chunk takes a fragment of a page
 * @ch: the chunk
 * @page: the page, whose reference the chunk takes over
 * @off: offset of the bytes in @page
 * @len: their number, within @page
 *
 * Return: false if the chunk has no fragment left (the caller keeps its
 * reference).
 */
bool quic_outq_frag_add(struct quic_outq_chunk *ch, struct page *page,
			u32 off, u32 len)
{
	struct quic_outq_frags *fr = quic_outq_frags(ch);

	if (fr->nr == fr->max)
		return false;
	bvec_set_page(&fr->bv[fr->nr++], page, len, off);
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_frag_add);

/**
 * quic_outq_frags_trim() - a paged chunk lets go of its last fragments
 * @ch: the chunk
 * @nr: the fragments it keeps
 */
void quic_outq_frags_trim(struct quic_outq_chunk *ch, u16 nr)
{
	struct quic_outq_frags *fr = quic_outq_frags(ch);

	while (fr->nr > nr)
		put_page(fr->bv[--fr->nr].bv_page);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_frags_trim);

/**
 * quic_outq_chunk_free() - free a chunk no queue or record holds
 * @ch: the chunk
 *
 * A paged chunk drops its page references and its reference on the
 * MSG_ZEROCOPY completion, which is queued when the last one goes.
 */
void quic_outq_chunk_free(struct quic_outq_chunk *ch)
{
	if (ch->paged) {
		quic_outq_frags_trim(ch, 0);
		net_zcopy_put(quic_outq_frags(ch)->uarg);
	}
	kfree(ch);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_chunk_free);

/**
 * quic_outq_chunk_copy() - copy the bytes of a chunk
 * @ch: the chunk
 * @to: room for &quic_outq_chunk.len bytes
 */
void quic_outq_chunk_copy(struct quic_outq_chunk *ch, u8 *to)
{
	struct quic_outq_frags *fr = quic_outq_frags(ch);
	u32 left = ch->len, n;
	struct bio_vec *bv;

	if (!ch->paged) {
		memcpy(to, ch->data, ch->len);
		return;
	}
	for (bv = fr->bv; left; bv++) {
		n = min(left, bv->bv_len);
		memcpy_from_page(to, bv->bv_page, bv->bv_offset, n);
		to += n;
		left -= n;
	}
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_chunk_copy);

/* The scatterlist entries of a chunk's bytes: 1 at its data, else the
 * fragments they span.
 */
static u32 quic_outq_chunk_nsg(struct quic_outq_chunk *ch)
{
	struct quic_outq_frags *fr;
	u32 left = ch->len, i;

	if (!ch->paged)
		return 1;
	fr = quic_outq_frags(ch);
	for (i = 0; left; i++)
		left -= min(left, fr->bv[i].bv_len);
	return i;
}

/* Set quic_outq_chunk_nsg() entries at @sg to the bytes of @ch; return
 * the entry after them.
 */
static struct scatterlist *quic_outq_chunk_sg(struct quic_outq_chunk *ch,
					      struct scatterlist *sg)
{
	struct quic_outq_frags *fr;
	u32 left = ch->len, n, i;

	if (!ch->paged) {
		sg_set_buf(sg, ch->data, ch->len);
		return sg + 1;
	}
	fr = quic_outq_frags(ch);
	for (i = 0; left; i++, sg++) {
		n = min(left, fr->bv[i].bv_len);
		sg_set_page(sg, fr->bv[i].bv_page, n, fr->bv[i].bv_offset);
		left -= n;
	}
	return sg;
}

/**
 * quic_outq_src_init() - no frame of the packet reads from a chunk yet
 * @src: the packet's sources
 * @base: where its frames are planned
 * @copy_paged: copy the bytes of paged chunks
 */
void quic_outq_src_init(struct quic_outq_src *src, u8 *base, bool copy_paged)
{
	src->base = base;
	src->copy_paged = copy_paged;
	src->nr = 0;
	src->nsg = 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_src_init);

/**
 * quic_outq_src_add() - leave a frame's bytes in their chunk
 * @src: the packet's sources
 * @ch: the chunk, all of whose bytes the frame carries, not empty
 * @at: where they go, after the frames planned before
 *
 * Return: true if the AEAD is to read them from @ch; false if the packet
 * has no room for one more source, or @ch is paged and @src copies those:
 * the caller copies them to @at.
 */
bool quic_outq_src_add(struct quic_outq_src *src, struct quic_outq_chunk *ch,
		       u8 *at)
{
	u32 nsg = quic_outq_chunk_nsg(ch);

	/* Each chunk may need one entry for the bytes before it, and the
	 * packet one for those after the last.
	 */
	if (src->nr == QUIC_OUTQ_SRC_MAX || (ch->paged && src->copy_paged) ||
	    src->nsg + src->nr + nsg + 2 > QUIC_OUTQ_SRC_SG)
		return false;
	src->off[src->nr] = at - src->base;
	src->ch[src->nr++] = ch;
	src->nsg += nsg;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_src_add);

/**
 * quic_outq_src_shift() - the frames planned moved @n bytes on
 * @src: the packet's sources
 * @n: bytes put in front of them
 */
void quic_outq_src_shift(struct quic_outq_src *src, u32 n)
{
	u32 i;

	for (i = 0; i < src->nr; i++)
		src->off[i] += n;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_src_shift);

/**
 * quic_outq_src_sg() - the scatterlist the AEAD reads a packet from
 * @src: the packet's sources, at least one
 * @pkt: the packet, its frames planned at @pkt + @hlen
 * @hlen: its header length
 * @len: the length of its frames
 * @sg: %QUIC_OUTQ_SRC_SG entries
 *
 * The header and the frames' own bytes are read from @pkt, the chunks'
 * bytes from the chunks.
 */
void quic_outq_src_sg(const struct quic_outq_src *src, u8 *pkt, u32 hlen,
		      u32 len, struct scatterlist *sg)
{
	struct scatterlist *e = sg;
	u32 i, pos = 0, at;

	sg_init_table(sg, QUIC_OUTQ_SRC_SG);
	for (i = 0; i < src->nr; i++) {
		at = hlen + src->off[i];
		if (at > pos)
			sg_set_buf(e++, pkt + pos, at - pos);
		e = quic_outq_chunk_sg(src->ch[i], e);
		pos = at + src->ch[i]->len;
	}
	if (hlen + len > pos)
		sg_set_buf(e++, pkt + pos, hlen + len - pos);
	sg_mark_end(e - 1);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_src_sg);

/**
 * quic_outq_add() - queue a chunk at the tail
 * @q: the queue
 * @ch: a new chunk, never sent
 */
void quic_outq_add(struct quic_outq *q, struct quic_outq_chunk *ch)
{
	list_add_tail(&ch->list, &q->chunks);
	if (q->next == &q->chunks)
		q->next = &ch->list;
	q->unsent += ch->len;
	q->bytes += ch->len;
	if (ch->id == QUIC_OUTQ_CRYPTO)
		q->crypto += ch->len;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_add);

/**
 * quic_outq_tail() - the last chunk, if more bytes of @id may join it
 * @q: the queue
 * @id: the stream
 *
 * Return: the chunk at the tail if it belongs to @id, was never sent,
 * has no FIN and has room left; else NULL.
 */
struct quic_outq_chunk *quic_outq_tail(struct quic_outq *q, s64 id)
{
	struct quic_outq_chunk *ch;

	if (q->next == &q->chunks)
		return NULL;	/* everything was sent */
	ch = list_last_entry(&q->chunks, struct quic_outq_chunk, list);
	if (ch->id != id || ch->sent || ch->fin || ch->len == ch->cap)
		return NULL;
	return ch;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_tail);

/**
 * quic_outq_grow() - bytes were appended to a chunk from quic_outq_tail()
 * @q: the queue
 * @ch: the chunk
 * @len: how many, within its room
 */
void quic_outq_grow(struct quic_outq *q, struct quic_outq_chunk *ch, u32 len)
{
	ch->len += len;
	q->unsent += len;
	q->bytes += len;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_grow);

/**
 * quic_outq_peek() - the next chunk to send
 * @q: the queue
 *
 * Return: the oldest lost chunk, else the chunk at the send cursor, else
 * NULL.
 */
struct quic_outq_chunk *quic_outq_peek(struct quic_outq *q)
{
	if (!list_empty(&q->lost))
		return list_first_entry(&q->lost, struct quic_outq_chunk,
					lost);
	if (q->next == &q->chunks)
		return NULL;
	return list_entry(q->next, struct quic_outq_chunk, list);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_peek);

/**
 * quic_outq_sent() - the chunk from quic_outq_peek() went into a packet
 * @q: the queue
 * @ch: the chunk; the packet's record takes a reference
 */
void quic_outq_sent(struct quic_outq *q, struct quic_outq_chunk *ch)
{
	if (!list_empty(&ch->lost)) {
		list_del_init(&ch->lost);
	} else if (q->next == &ch->list) {
		q->next = ch->list.next;
		q->unsent -= ch->len;
	}
	ch->sent = 1;
	ch->refs++;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_sent);

/**
 * quic_outq_lost() - a packet carrying the chunk was lost
 * @q: the queue
 * @ch: the chunk
 *
 * Return: true if it is now to be sent again (false if it was
 * acknowledged, dropped or already waiting).
 */
bool quic_outq_lost(struct quic_outq *q, struct quic_outq_chunk *ch)
{
	if (ch->acked || !ch->sent || !list_empty(&ch->lost))
		return false;
	list_add_tail(&ch->lost, &q->lost);
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_lost);

/* Off the queue, for good; freed now if no record points to it. */
static void quic_outq_unlink(struct quic_outq *q, struct quic_outq_chunk *ch)
{
	if (q->next == &ch->list)
		q->next = ch->list.next;
	if (!ch->sent)
		q->unsent -= ch->len;
	q->bytes -= ch->len;
	if (ch->id == QUIC_OUTQ_CRYPTO)
		q->crypto -= ch->len;
	list_del_init(&ch->list);
	list_del_init(&ch->lost);
	ch->acked = 1;
}

/**
 * quic_outq_acked() - a packet carrying the chunk was acknowledged
 * @q: the queue
 * @ch: the chunk, referenced by that packet's record
 *
 * Return: true the first time: the chunk is delivered and off the queue
 * (the caller then drops the record's reference with quic_outq_put()).
 */
bool quic_outq_acked(struct quic_outq *q, struct quic_outq_chunk *ch)
{
	if (ch->acked)
		return false;
	quic_outq_unlink(q, ch);
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_acked);

/**
 * quic_outq_put() - a record lets go of a chunk
 * @ch: the chunk
 */
void quic_outq_put(struct quic_outq_chunk *ch)
{
	if (!--ch->refs && ch->acked)
		quic_outq_chunk_free(ch);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_put);

/**
 * quic_outq_drop() - a chunk will never be delivered (its stream was
 *	reset, or the space or the connection is gone)
 * @q: the queue
 * @ch: the chunk, on the queue
 */
void quic_outq_drop(struct quic_outq *q, struct quic_outq_chunk *ch)
{
	quic_outq_unlink(q, ch);
	if (!ch->refs)
		quic_outq_chunk_free(ch);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_drop);

/**
 * quic_outq_drop_stream() - drop the chunks of a stream (it was reset)
 * @q: the queue
 * @id: the stream
 * @nr: how many chunks of @id are on the queue
 * @cb: called for each, before it is dropped
 * @ctx: passed to @cb
 *
 * Chunks are not linked per stream (a link in every chunk, to keep
 * through splits, acknowledgments and drops, for a walk done once per
 * reset). The walk stops instead at the @nr-th chunk of @id, its last
 * (the stream counts its chunks: quic_stream_out_hold()): it visits the
 * stream's chunks and those of other streams queued before its last,
 * never those queued after. A stream alone on the queue, or whose chunks
 * are the oldest, costs as many steps as it has chunks.
 *
 * Return: the chunks dropped.
 */
u32 quic_outq_drop_stream(struct quic_outq *q, s64 id, u32 nr,
			  quic_outq_cb cb, void *ctx)
{
	struct quic_outq_chunk *ch, *tmp;
	u32 n = 0;

	list_for_each_entry_safe(ch, tmp, &q->chunks, list) {
		if (n == nr)
			break;
		if (ch->id != id)
			continue;
		cb(ctx, ch);
		quic_outq_drop(q, ch);
		n++;
	}
	return n;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_drop_stream);

/* quic_outq_split() of a paged chunk: the fragments past @n move to the
 * tail, the one @n falls in is shared (a page reference more).
 */
static struct quic_outq_chunk *quic_outq_split_paged(struct quic_outq_chunk *ch,
						     u32 n, gfp_t gfp)
{
	struct quic_outq_frags *fr = quic_outq_frags(ch), *tf;
	struct quic_outq_chunk *tail;
	u32 skip = n, i, j, keep;
	struct bio_vec *bv;

	tail = quic_outq_chunk_alloc_paged(ch->id, ch->offset + n, ch->len - n,
					   gfp);
	if (!tail)
		return NULL;
	tf = quic_outq_frags(tail);
	for (i = 0; skip >= fr->bv[i].bv_len; i++)
		skip -= fr->bv[i].bv_len;	/* @n < len: stops in a frag */
	keep = skip ? i + 1 : i;
	for (j = i; j < fr->nr; j++) {
		bv = &tf->bv[tf->nr++];
		*bv = fr->bv[j];
		if (j == i && skip) {
			bv->bv_offset += skip;
			bv->bv_len -= skip;
			get_page(bv->bv_page);
		}
	}
	fr->nr = keep;
	if (skip)
		fr->bv[i].bv_len = skip;
	tf->uarg = fr->uarg;
	if (tf->uarg)
		net_zcopy_get(tf->uarg);
	tail->len = ch->len - n;
	tf->truesize += tail->len;
	return tail;
}

/**
 * quic_outq_split() - cut the chunk from quic_outq_peek() after @n bytes
 * @q: the queue
 * @ch: the chunk
 * @n: bytes it keeps, less than its length
 * @gfp: allocation flags
 *
 * The rest becomes a chunk of its own, right after it, in the same state
 * (a paged chunk's tail references the same pages):
 * never sent (behind the cursor), or lost. Records of packets that
 * carried the whole chunk keep the first part: if they are acknowledged,
 * the rest is merely sent twice.
 *
 * Return: 0 or -ENOMEM.
 */
int quic_outq_split(struct quic_outq *q, struct quic_outq_chunk *ch, u32 n,
		    gfp_t gfp)
{
	struct quic_outq_chunk *tail;

	if (ch->paged) {
		tail = quic_outq_split_paged(ch, n, gfp);
		if (!tail)
			return -ENOMEM;
	} else {
		tail = quic_outq_chunk_alloc(ch->id, ch->offset + n,
					     ch->len - n, 0, gfp);
		if (!tail)
			return -ENOMEM;
		memcpy(tail->data, ch->data + n, ch->len - n);
	}
	tail->fin = ch->fin;
	tail->sent = ch->sent;
	ch->fin = 0;
	ch->len = n;	/* @cap stays: it is what was allocated */
	list_add(&tail->list, &ch->list);
	if (!list_empty(&ch->lost))
		list_add(&tail->lost, &ch->lost);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_outq_split);
