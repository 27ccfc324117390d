// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the send queue of a connection, its socket side (see sendq.h).
 *
 * The records of the packets sent: output.c fills one per packet with
 * the retransmittable frames it planned into it, the sent store
 * (sent.c) keeps it until an ACK or a loss, and loss.c reads it then.
 *
 * The CRYPTO and STREAM data queued to send (outq.c keeps it): cut into
 * chunks of a packet's worth, charged to the socket's send buffer from
 * queueing to delivery, dropped with a reset stream.
 */
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "conn.h"
#include "event.h"
#include "frame.h"
#include "outq.h"
#include "sendq.h"
#include "socket.h"
#include "stream.h"

/* Largest piece of CRYPTO data kept as one unit for (re)transmission:
 * a chunk of it is a 1 KiB allocation, and fits any Initial packet.
 */
#define QUIC_SENDQ_CRYPTO_CHUNK		(1024 - sizeof(struct quic_outq_chunk))
/* CRYPTO bytes one level holds until the peer acknowledges them: a TLS
 * flight with a long certificate chain is a few tens of KB.
 */
#define QUIC_SENDQ_CRYPTO_MAX		SZ_64K
/* Least STREAM chunk, whatever the packet room says. */
#define QUIC_SENDQ_STREAM_CHUNK		1000

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

/* Charge (@sign 1) or uncharge (-1) a queued chunk to the socket's send
 * buffer: STREAM and CRYPTO data alike, from queueing to delivery
 * (quic_sendq_chunk_gone()), its header and room, or for a paged chunk
 * its header and bytes (quic_outq_chunk_truesize()), which never change
 * once it is queued.
 */
static void quic_sendq_chunk_charge(struct sock *sk,
				    const struct quic_outq_chunk *ch, int sign)
{
	sk_wmem_queued_add(sk, sign * (int)quic_outq_chunk_truesize(ch));
}

/**
 * quic_sendq_chunk_split() - cut a chunk in two
 * @sk: the socket, locked
 * @q: the send queue of the chunk
 * @ch: the chunk
 * @n: its bytes that stay in it; the rest goes into a new chunk after it
 *
 * Which chunks are cut, and where, is the packetizer's choice
 * (quic_out_chunk_cut() in output.c). The new chunk is charged to the
 * socket and, for a stream, holds the stream as its other chunks do.
 *
 * Return: 0 if cut, -ENOMEM if not.
 */
int quic_sendq_chunk_split(struct sock *sk, struct quic_outq *q,
			   struct quic_outq_chunk *ch, int n)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_outq_chunk *tail;
	struct quic_stream *st;

	if (quic_outq_split(q, ch, n, GFP_ATOMIC | __GFP_NOWARN))
		return -ENOMEM;
	tail = list_next_entry(ch, list);
	quic_sendq_chunk_charge(sk, tail, 1);
	if (ch->id == QUIC_OUTQ_CRYPTO)
		return 0;
	st = quic_stream_find(&c->streams, ch->id);
	if (st)
		quic_stream_out_hold(st);
	return 0;
}

/**
 * quic_sendq_crypto_room() - whether a level takes @len more CRYPTO bytes
 * @sk: the socket, locked
 * @level: QUIC_CRYPTO_INITIAL, _HANDSHAKE or _APP
 * @len: the bytes of one TLS message
 *
 * CRYPTO data is charged to the send buffer like STREAM data, and a level
 * holds at most %QUIC_SENDQ_CRYPTO_MAX bytes the peer has not acknowledged:
 * a handshake nobody answers pins no more. A message is taken whole, and
 * a level with nothing queued takes one whatever sk_sndbuf says, so that
 * a small send buffer never stalls a handshake.
 *
 * Return: 0 if it fits now, -EAGAIN if it will once the peer acknowledges
 * what is queued, -EMSGSIZE if it never will.
 */
int quic_sendq_crypto_room(struct sock *sk, u8 level, u32 len)
{
	struct quic_outq *q = &quic_sk(sk)->conn.space.at[level]->out;

	if (len > QUIC_SENDQ_CRYPTO_MAX)
		return -EMSGSIZE;
	if (!q->crypto)
		return 0;
	if (q->crypto + len > QUIC_SENDQ_CRYPTO_MAX ||
	    sk->sk_wmem_queued + len > READ_ONCE(sk->sk_sndbuf))
		return -EAGAIN;
	return 0;
}

/**
 * quic_sendq_crypto() - queue handshake data of one level
 * @sk: the socket, locked
 * @level: QUIC_CRYPTO_INITIAL, _HANDSHAKE or _APP, its send key ready
 * @from: the bytes
 * @len: their number, taken by quic_sendq_crypto_room()
 *
 * Return: 0 or a negative errno (nothing queued then).
 */
int quic_sendq_crypto(struct sock *sk, u8 level, struct iov_iter *from,
		      u32 len)
{
	struct quic_pnspace *s = quic_sk(sk)->conn.space.at[level];
	struct quic_outq_chunk *ch, *tmp;
	u64 off = s->crypto_send_off;
	LIST_HEAD(chunks);
	int err;
	u32 n;

	while (len) {
		n = min_t(u32, len, QUIC_SENDQ_CRYPTO_CHUNK);
		ch = quic_outq_chunk_alloc(QUIC_OUTQ_CRYPTO, off, n, n,
					   GFP_KERNEL_ACCOUNT);
		err = -ENOMEM;
		if (!ch)
			goto err;
		list_add_tail(&ch->list, &chunks);
		quic_sendq_chunk_charge(sk, ch, 1);
		err = -EFAULT;
		if (copy_from_iter(ch->data, n, from) != n)
			goto err;
		off += n;
		len -= n;
	}
	list_for_each_entry_safe(ch, tmp, &chunks, list) {
		list_del(&ch->list);
		quic_outq_add(&s->out, ch);
	}
	s->crypto_send_off = off;
	if (level == QUIC_CRYPTO_HANDSHAKE)
		quic_conn_fin_queued(&quic_sk(sk)->conn);
	return 0;
err:
	list_for_each_entry_safe(ch, tmp, &chunks, list) {
		quic_sendq_chunk_charge(sk, ch, -1);
		kfree(ch);
	}
	return err;
}

/**
 * quic_sendq_chunk_gone() - a chunk was delivered or dropped: off the queue
 * @sk: the socket, locked
 * @ch: the chunk
 * @acked: it was acknowledged, not dropped
 *
 * The stream's sending part is done once its FIN was queued (Data Sent)
 * and no chunk of it is left, whichever chunk arrives last.
 */
void quic_sendq_chunk_gone(struct sock *sk, struct quic_outq_chunk *ch,
			   bool acked)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_stream *st;

	quic_sendq_chunk_charge(sk, ch, -1);
	sk->sk_write_space(sk);
	if (ch->id == QUIC_OUTQ_CRYPTO)
		return;
	st = quic_stream_find(&c->streams, ch->id);
	if (!st || !quic_stream_out_put(st) || !acked ||
	    st->send_state != QUIC_STREAM_SEND_STATE_SENT)
		return;
	if (quic_stream_set_send_state(st, QUIC_STREAM_SEND_STATE_RECVD))
		return;
	/* quic-api.rst 5.6: no final size in this one. */
	quic_event_stream_update(sk, st->id, QUIC_STREAM_SEND_STATE_RECVD, 0,
				 0);
	quic_stream_release(&c->streams, st);
}

/* A chunk of @n bytes for a stream, at most @full, with the room of
 * quic_outq_stream_room() (none for a bare FIN), charged to the socket.
 */
static struct quic_outq_chunk *quic_sendq_chunk_new(struct sock *sk, s64 id,
						    u64 off, u32 n, u32 full)
{
	struct quic_outq_chunk *ch;

	ch = quic_outq_chunk_alloc(id, off, n, quic_outq_stream_room(n, full),
				   GFP_KERNEL_ACCOUNT);
	if (ch)
		quic_sendq_chunk_charge(sk, ch, 1);
	return ch;
}

/* The new @chunks of @st join the queue, each holding the stream; the
 * last bytes queued carry @fin.
 */
static void quic_sendq_stream_queue(struct quic_outq *q, struct quic_stream *st,
				    struct list_head *chunks, bool fin)
{
	struct quic_outq_chunk *ch, *tmp;

	list_for_each_entry_safe(ch, tmp, chunks, list) {
		list_del(&ch->list);
		quic_outq_add(q, ch);
		quic_stream_out_hold(st);
	}
	if (fin)
		list_last_entry(&q->chunks, struct quic_outq_chunk, list)->fin = 1;
}

/**
 * quic_sendq_stream() - queue stream data
 * @sk: the socket, locked, its streams ready
 * @st: the stream, able to send
 * @from: the bytes
 * @len: their number, at most the stream's send credit
 * @fin: they end the stream
 * @room: the room for frames of a packet sent alone
 *	(quic_output_frame_room())
 *
 * Bytes join the last chunk of the stream if it was not sent yet and has
 * room; the others fill chunks of a packet's worth.
 *
 * Return: 0 or a negative errno (nothing queued then).
 */
int quic_sendq_stream(struct sock *sk, struct quic_stream *st,
		      struct iov_iter *from, u32 len, bool fin, u32 room)
{
	struct quic_outq *q = &quic_sk(sk)->conn.space.at[QUIC_CRYPTO_APP]->out;
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_outq_chunk *ch, *tmp, *tail;
	u32 n, total = len, full, grown = 0;
	int fit;
	u64 off = st->send.used;
	LIST_HEAD(chunks);
	int err;

	tail = quic_outq_tail(q, st->id);
	if (tail && tail->paged)
		tail = NULL;	/* its bytes are in pages, none copied */
	if (tail && len) {
		grown = min(len, tail->cap - tail->len);
		if (copy_from_iter(tail->data + tail->len, grown, from) !=
		    grown)
			return -EFAULT;
		off += grown;
		len -= grown;
	}
	while (len || (fin && list_empty(&chunks) && !tail)) {
		/* A packet of the datagram size in use, alone: its header
		 * grows with the offset's varint.
		 */
		fit = quic_frame_stream_fit(st->id, off, true, room, U32_MAX);
		full = max_t(int, QUIC_SENDQ_STREAM_CHUNK, fit);
		n = min(len, full);
		ch = quic_sendq_chunk_new(sk, st->id, off, n, full);
		if (!ch)
			goto err;
		list_add_tail(&ch->list, &chunks);
		if (copy_from_iter(ch->data, n, from) != n)
			goto err;
		off += n;
		len -= n;
	}
	err = quic_stream_send_advance(&c->streams, st, total, fin);
	if (err)
		goto free;
	if (grown)
		quic_outq_grow(q, tail, grown);
	quic_sendq_stream_queue(q, st, &chunks, fin);
	return 0;
err:
	err = -EFAULT;
free:
	list_for_each_entry_safe(ch, tmp, &chunks, list) {
		quic_sendq_chunk_charge(sk, ch, -1);
		kfree(ch);
	}
	return err;
}

/* Give a paged chunk the pages of the next bytes of @from, at most @len
 * and as many as it has fragments left for. Return: the bytes, or a
 * negative errno.
 */
static ssize_t quic_sendq_chunk_pages(struct quic_outq_chunk *ch,
				      struct iov_iter *from, u32 len)
{
	struct quic_outq_frags *fr = quic_outq_frags(ch);
	struct page *pages[QUIC_OUTQ_FRAGS];
	u32 left, i = 0, n;
	size_t start;
	ssize_t got;

	got = iov_iter_get_pages2(from, pages, len, fr->max - fr->nr, &start);
	if (got <= 0)
		return got ?: -EFAULT;
	for (left = got; left; left -= n, start = 0) {
		n = min_t(u32, left, PAGE_SIZE - start);
		quic_outq_frag_add(ch, pages[i++], start, n);
	}
	return got;
}

/**
 * quic_sendq_stream_pages() - queue stream data by reference to its pages
 * @sk: the socket, locked, its streams ready
 * @st: the stream, able to send
 * @from: the bytes: pages (ITER_BVEC: sendfile(), splice()) or user
 *	memory (MSG_ZEROCOPY), whose pages are pinned
 * @len: their number, at most the stream's send credit, not 0
 * @fin: they end the stream
 * @room: the room for frames of a packet sent alone
 *	(quic_output_frame_room())
 * @uarg: the MSG_ZEROCOPY completion, or NULL: each chunk holds a
 *	reference on it, so that it is queued once every chunk was
 *	acknowledged or dropped
 *
 * As quic_sendq_stream(), but the chunks reference the pages instead of
 * holding a copy: the AEAD reads the bytes from them as it seals the
 * packet, no copy at all. Bytes join the last chunk of the stream if it
 * is paged, was not sent yet, has room and the same @uarg.
 *
 * Return: 0 or a negative errno (nothing queued then).
 */
int quic_sendq_stream_pages(struct sock *sk, struct quic_stream *st,
			    struct iov_iter *from, u32 len, bool fin,
			    u32 room, struct ubuf_info *uarg)
{
	struct quic_outq *q = &quic_sk(sk)->conn.space.at[QUIC_CRYPTO_APP]->out;
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_outq_chunk *ch, *tmp, *tail;
	u32 total = len, full, grown = 0;
	u64 off = st->send.used;
	LIST_HEAD(chunks);
	u16 tail_nr = 0;
	ssize_t got;
	int err, fit;

	tail = quic_outq_tail(q, st->id);
	if (tail && (!tail->paged || quic_outq_frags(tail)->uarg != uarg))
		tail = NULL;
	if (tail) {
		tail_nr = quic_outq_frags(tail)->nr;
		got = quic_sendq_chunk_pages(tail, from,
					     min(len, tail->cap - tail->len));
		if (got < 0) {
			err = got;
			goto trim;
		}
		grown = got;
		off += grown;
		len -= grown;
	}
	ch = NULL;
	while (len) {
		if (!ch || ch->len == ch->cap ||
		    quic_outq_frags(ch)->nr == QUIC_OUTQ_FRAGS) {
			fit = quic_frame_stream_fit(st->id, off, true, room,
						    U32_MAX);
			full = max_t(int, QUIC_SENDQ_STREAM_CHUNK, fit);
			err = -ENOMEM;
			ch = quic_outq_chunk_alloc_paged(st->id, off, full,
							 GFP_KERNEL_ACCOUNT);
			if (!ch)
				goto free;
			list_add_tail(&ch->list, &chunks);
			if (uarg) {
				net_zcopy_get(uarg);
				quic_outq_frags(ch)->uarg = uarg;
			}
		}
		got = quic_sendq_chunk_pages(ch, from,
					     min(len, ch->cap - ch->len));
		if (got < 0) {
			err = got;
			goto free;
		}
		ch->len += got;
		quic_outq_frags(ch)->truesize += got;
		off += got;
		len -= got;
	}
	err = quic_stream_send_advance(&c->streams, st, total, fin);
	if (err)
		goto free;
	if (grown) {
		quic_outq_grow(q, tail, grown);
		quic_outq_frags(tail)->truesize += grown;
		sk_wmem_queued_add(sk, grown);
	}
	list_for_each_entry(ch, &chunks, list)
		quic_sendq_chunk_charge(sk, ch, 1);
	quic_sendq_stream_queue(q, st, &chunks, fin);
	return 0;
free:
	list_for_each_entry_safe(ch, tmp, &chunks, list)
		quic_outq_chunk_free(ch);
trim:
	if (tail)
		quic_outq_frags_trim(tail, tail_nr);
	return err;
}

/* quic_outq_drop_stream() drops a chunk of a reset stream (@ctx: sk). */
static void quic_sendq_chunk_dropped(void *ctx, struct quic_outq_chunk *ch)
{
	quic_sendq_chunk_gone(ctx, ch, false);
}

/**
 * quic_sendq_stream_drop() - a stream was reset: its queued STREAM data
 *	is never sent again
 * @sk: the socket, locked
 * @id: the stream
 *
 * The walk of the send queue ends at the stream's last chunk: the stream
 * counts its chunks on the queue (quic_stream_out_hold()), so chunks
 * queued after that one, and the whole queue when it has none, are not
 * visited (quic_outq_drop_stream()).
 */
void quic_sendq_stream_drop(struct sock *sk, s64 id)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_stream *st = quic_stream_find(&c->streams, id);

	if (st && st->out_chunks)
		quic_outq_drop_stream(&c->space.at[QUIC_CRYPTO_APP]->out, id,
				      st->out_chunks, quic_sendq_chunk_dropped,
				      sk);
}

/**
 * quic_sendq_unsent() - bytes queued in the 1-RTT space and never sent
 * @sk: the socket, locked
 *
 * Return: the bytes, for SIOCOUTQNSD.
 */
u64 quic_sendq_unsent(struct sock *sk)
{
	return quic_sk(sk)->conn.space.at[QUIC_CRYPTO_APP]->out.unsent;
}

/**
 * quic_sendq_done() - whether all queued data was delivered
 * @sk: the socket, locked
 *
 * Return: true if the 1-RTT send queue is empty (SO_LINGER waits for it).
 */
bool quic_sendq_done(struct sock *sk)
{
	return quic_outq_empty(&quic_sk(sk)->conn.space.app.out);
}
