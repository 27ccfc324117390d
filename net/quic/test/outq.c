// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/outq.h: the send queue of a packet-number
 * space: the send cursor, lost chunks sent before new data, references
 * of sent-packet records, drops (of a chunk, of a stream's chunks),
 * splits, appends at the tail, the room of a new STREAM chunk, and
 * paged chunks (their bytes in pages they reference) cut in two.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "../outq.h"

#include "test.h"

#define NCH	6

/* A queue and the chunks a case put on it, with the references that
 * the case's (imaginary) sent-packet records hold on each.
 */
struct fix {
	struct quic_outq q;
	struct quic_outq_chunk *c[NCH];
	u32 held[NCH];
};

/* The byte at @offset of every stream in these tests. */
static u8 pattern(u64 offset)
{
	return (u8)(offset * 7 + 3);
}

/* Whether @ch holds the pattern bytes of its offset. */
static bool data_ok(const struct quic_outq_chunk *ch)
{
	u32 i;

	for (i = 0; i < ch->len; i++)
		if (ch->data[i] != pattern(ch->offset + i))
			return false;
	return true;
}

/* Write the pattern bytes at @from .. @from + @n - 1 of @ch's room. */
static void fill(struct quic_outq_chunk *ch, u32 from, u32 n)
{
	u32 i;

	for (i = from; i < from + n; i++)
		ch->data[i] = pattern(ch->offset + i);
}

/* Queue chunk @i: @len pattern bytes of stream @id at @offset. */
static int fix_add(struct fix *f, int i, s64 id, u64 offset, u32 len,
		   u32 cap)
{
	struct quic_outq_chunk *ch;

	ch = quic_outq_chunk_alloc(id, offset, len, cap, GFP_KERNEL);
	if (!ch)
		return -ENOMEM;
	fill(ch, 0, len);
	quic_outq_add(&f->q, ch);
	f->c[i] = ch;
	return 0;
}

/* Chunk @i went into a packet, whose record takes a reference. */
static void fix_send(struct fix *f, int i)
{
	quic_outq_sent(&f->q, f->c[i]);
	f->held[i]++;
}

/* A record lets go of chunk @i (which may free it). */
static void fix_put(struct fix *f, int i)
{
	f->held[i]--;
	quic_outq_put(f->c[i]);
}

/* Whether quic_outq_peek() gives chunk @i (NULL for @i < 0). */
static bool fix_next(struct fix *f, int i)
{
	return quic_outq_peek(&f->q) == (i < 0 ? NULL : f->c[i]);
}

/* The queue counts @unsent bytes never sent, @bytes in all. */
static int fix_counts(struct quic_test *t, struct fix *f, u64 unsent,
		      u64 bytes)
{
	if (f->q.unsent != unsent || f->q.bytes != bytes)
		return quic_test_fail(t, "unsent %llu bytes %llu, want %llu %llu",
				      f->q.unsent, f->q.bytes, unsent, bytes);
	return 0;
}

/* Run @body on an empty queue, then drop what is left on it and let go
 * of the references still held: everything allocated is freed, whether
 * the case passed or not.
 */
static int run(struct quic_test *t,
	       int (*body)(struct quic_test *t, struct fix *f))
{
	struct quic_outq_chunk *ch, *tmp;
	struct fix f = {};
	int err, i;

	quic_outq_init(&f.q);
	err = body(t, &f);
	list_for_each_entry_safe(ch, tmp, &f.q.chunks, list)
		quic_outq_drop(&f.q, ch);
	for (i = 0; i < NCH; i++)
		while (f.held[i])
			fix_put(&f, i);
	return err;
}

/* New chunks are taken in the order queued, each once. */
static int cursor(struct quic_test *t, struct fix *f)
{
	static const u32 len[] = { 10, 20, 30 };
	u64 unsent = 60;
	int i, err;

	if (quic_outq_peek(&f->q) || quic_outq_pending(&f->q) ||
	    !quic_outq_empty(&f->q))
		return quic_test_fail(t, "new queue not empty");
	if (fix_add(f, 0, 0, 0, 10, 0) || fix_add(f, 1, 0, 10, 20, 0) ||
	    fix_add(f, 2, 4, 0, 30, 0))
		return -ENOMEM;
	err = fix_counts(t, f, 60, 60);
	if (err)
		return err;
	for (i = 0; i < 3; i++) {
		if (!quic_outq_pending(&f->q) || !fix_next(f, i))
			return quic_test_fail(t, "chunk %d not next", i);
		fix_send(f, i);
		unsent -= len[i];
		err = fix_counts(t, f, unsent, 60);
		if (err)
			return err;
		if (!f->c[i]->sent || f->c[i]->refs != 1)
			return quic_test_fail(t, "chunk %d: sent %u refs %u", i,
					      f->c[i]->sent, f->c[i]->refs);
	}
	if (!fix_next(f, -1) || quic_outq_pending(&f->q) ||
	    quic_outq_empty(&f->q))
		return quic_test_fail(t, "all sent: still pending, or empty");
	return 0;
}

/* Lost chunks go out again, in the order lost, before new data. */
static int lost_first(struct quic_test *t, struct fix *f)
{
	int i, err;

	for (i = 0; i < 3; i++) {
		if (fix_add(f, i, 0, i * 10, 10, 0))
			return -ENOMEM;
		fix_send(f, i);
	}
	if (fix_add(f, 3, 0, 30, 10, 0))
		return -ENOMEM;
	if (quic_outq_lost(&f->q, f->c[3]))
		return quic_test_fail(t, "unsent chunk lost");
	if (!quic_outq_lost(&f->q, f->c[2]) || !quic_outq_lost(&f->q, f->c[1]))
		return quic_test_fail(t, "sent chunk not lost");
	if (quic_outq_lost(&f->q, f->c[2]))
		return quic_test_fail(t, "chunk lost twice");
	err = fix_counts(t, f, 10, 40);
	if (err)
		return err;
	if (!fix_next(f, 2))
		return quic_test_fail(t, "chunk 2 not first");
	fix_send(f, 2);
	if (!fix_next(f, 1))
		return quic_test_fail(t, "chunk 1 not second");
	fix_send(f, 1);
	if (!list_empty(&f->q.lost) || f->c[1]->refs != 2 || f->c[2]->refs != 2)
		return quic_test_fail(t, "sent again: lost list, refs %u %u",
				      f->c[1]->refs, f->c[2]->refs);
	if (!fix_next(f, 3))
		return quic_test_fail(t, "new chunk not after the lost ones");
	fix_send(f, 3);
	if (!fix_next(f, -1))
		return quic_test_fail(t, "chunk after all sent");
	err = fix_counts(t, f, 0, 40);
	if (err)
		return err;
	if (!quic_outq_acked(&f->q, f->c[0]))
		return quic_test_fail(t, "chunk 0 not acked");
	if (quic_outq_lost(&f->q, f->c[0]) || quic_outq_pending(&f->q))
		return quic_test_fail(t, "acked chunk lost");
	return fix_counts(t, f, 0, 30);
}

/* Acknowledged once, off the queue, freed by the last record's put;
 * acknowledged while lost, no longer to be sent.
 */
static int acked_refs(struct quic_test *t, struct fix *f)
{
	struct quic_outq_chunk *ch;
	int err;

	if (fix_add(f, 0, 0, 0, 10, 0))
		return -ENOMEM;
	fix_send(f, 0);
	if (!quic_outq_lost(&f->q, f->c[0]) || !fix_next(f, 0))
		return quic_test_fail(t, "lost chunk not next");
	fix_send(f, 0);
	ch = f->c[0];
	if (ch->refs != 2 || quic_outq_pending(&f->q))
		return quic_test_fail(t, "sent twice: refs %u", ch->refs);
	if (!quic_outq_acked(&f->q, ch))
		return quic_test_fail(t, "first ack refused");
	if (quic_outq_acked(&f->q, ch))
		return quic_test_fail(t, "second ack accepted");
	if (!quic_outq_empty(&f->q) || !ch->acked || ch->refs != 2)
		return quic_test_fail(t, "acked: empty %d refs %u",
				      quic_outq_empty(&f->q), ch->refs);
	err = fix_counts(t, f, 0, 0);
	if (err)
		return err;
	fix_put(f, 0);
	if (ch->refs != 1)
		return quic_test_fail(t, "one put: refs %u", ch->refs);
	fix_put(f, 0);	/* frees it: not to be touched again */

	if (fix_add(f, 1, 0, 10, 20, 0) || fix_add(f, 2, 0, 30, 30, 0))
		return -ENOMEM;
	fix_send(f, 1);
	fix_send(f, 2);
	if (!quic_outq_lost(&f->q, f->c[1]) || !fix_next(f, 1))
		return quic_test_fail(t, "chunk 1 not lost");
	if (!quic_outq_acked(&f->q, f->c[1]))
		return quic_test_fail(t, "lost chunk not acked");
	if (!list_empty(&f->q.lost) || !list_empty(&f->c[1]->lost) ||
	    quic_outq_pending(&f->q) || !fix_next(f, -1))
		return quic_test_fail(t, "acked chunk still lost");
	if (quic_outq_empty(&f->q) ||
	    list_first_entry(&f->q.chunks, struct quic_outq_chunk,
			     list) != f->c[2])
		return quic_test_fail(t, "chunk 2 not alone");
	return fix_counts(t, f, 0, 30);
}

/* Dropped chunks leave the queue and its counts at once, and memory
 * when no record points to them.
 */
static int drop(struct quic_test *t, struct fix *f)
{
	struct quic_outq_chunk *ch;
	int err;

	if (fix_add(f, 0, 0, 0, 10, 0) || fix_add(f, 1, 0, 10, 20, 0) ||
	    fix_add(f, 2, 0, 30, 30, 0) || fix_add(f, 3, 0, 60, 40, 0))
		return -ENOMEM;
	if (!fix_next(f, 0))
		return quic_test_fail(t, "chunk 0 not next");
	quic_outq_drop(&f->q, f->c[0]);		/* freed */
	f->c[0] = NULL;
	if (!fix_next(f, 1))
		return quic_test_fail(t, "cursor not moved to chunk 1");
	err = fix_counts(t, f, 90, 90);
	if (err)
		return err;
	quic_outq_drop(&f->q, f->c[3]);		/* unsent, behind the cursor */
	f->c[3] = NULL;
	if (!fix_next(f, 1))
		return quic_test_fail(t, "cursor moved");
	err = fix_counts(t, f, 50, 50);
	if (err)
		return err;
	fix_send(f, 1);
	if (!fix_next(f, 2))
		return quic_test_fail(t, "chunk 2 not next");
	quic_outq_drop(&f->q, f->c[2]);		/* at the cursor */
	f->c[2] = NULL;
	if (!fix_next(f, -1) || quic_outq_pending(&f->q))
		return quic_test_fail(t, "dropped chunk pending");
	err = fix_counts(t, f, 0, 20);
	if (err)
		return err;
	ch = f->c[1];
	quic_outq_drop(&f->q, ch);	/* referenced: kept until the put */
	if (!quic_outq_empty(&f->q) || !ch->acked || ch->refs != 1)
		return quic_test_fail(t, "dropped: refs %u", ch->refs);
	if (quic_outq_lost(&f->q, ch) || quic_outq_acked(&f->q, ch))
		return quic_test_fail(t, "dropped chunk lost or acked");
	err = fix_counts(t, f, 0, 0);
	if (err)
		return err;
	fix_put(f, 1);	/* frees it */
	return 0;
}

/* An unsent chunk cut in two: both parts go out in order, the tail
 * with its own offset, bytes and the FIN.
 */
static int split_new(struct quic_test *t, struct fix *f)
{
	struct quic_outq_chunk *tail;
	int err;

	if (fix_add(f, 0, 4, 1000, 100, 0) || fix_add(f, 1, 8, 0, 10, 0))
		return -ENOMEM;
	f->c[0]->fin = 1;
	if (!fix_next(f, 0))
		return quic_test_fail(t, "chunk 0 not next");
	err = quic_outq_split(&f->q, f->c[0], 40, GFP_KERNEL);
	if (err)
		return err;
	err = fix_counts(t, f, 110, 110);
	if (err)
		return err;
	tail = list_next_entry(f->c[0], list);
	f->c[2] = tail;
	if (list_next_entry(tail, list) != f->c[1])
		return quic_test_fail(t, "tail not right after the chunk");
	if (!fix_next(f, 0) || f->c[0]->len != 40 || f->c[0]->fin ||
	    !data_ok(f->c[0]))
		return quic_test_fail(t, "head: len %u fin %u", f->c[0]->len,
				      f->c[0]->fin);
	fix_send(f, 0);
	err = fix_counts(t, f, 70, 110);
	if (err)
		return err;
	if (!fix_next(f, 2))
		return quic_test_fail(t, "tail not next");
	if (tail->id != 4 || tail->offset != 1040 || tail->len != 60 ||
	    !tail->fin || tail->sent || tail->refs || !data_ok(tail))
		return quic_test_fail(t, "tail: offset %llu len %u fin %u",
				      tail->offset, tail->len, tail->fin);
	fix_send(f, 2);
	if (!fix_next(f, 1))
		return quic_test_fail(t, "chunk 1 not after the tail");
	return fix_counts(t, f, 10, 110);
}

/* A lost chunk cut in two: the tail waits right after it, as sent. */
static int split_lost(struct quic_test *t, struct fix *f)
{
	struct quic_outq_chunk *tail;
	int err;

	if (fix_add(f, 0, 0, 0, 100, 0) || fix_add(f, 1, 0, 100, 50, 0) ||
	    fix_add(f, 2, 0, 150, 10, 0))
		return -ENOMEM;
	fix_send(f, 0);
	fix_send(f, 1);
	fix_send(f, 2);
	if (!quic_outq_lost(&f->q, f->c[0]) || !quic_outq_lost(&f->q, f->c[1]))
		return quic_test_fail(t, "not lost");
	if (!fix_next(f, 0))
		return quic_test_fail(t, "chunk 0 not next");
	err = quic_outq_split(&f->q, f->c[0], 30, GFP_KERNEL);
	if (err)
		return err;
	err = fix_counts(t, f, 0, 160);
	if (err)
		return err;
	tail = list_next_entry(f->c[0], list);
	f->c[3] = tail;
	if (list_next_entry(tail, list) != f->c[1] ||
	    list_next_entry(f->c[0], lost) != tail ||
	    list_next_entry(tail, lost) != f->c[1])
		return quic_test_fail(t, "tail not right after the chunk");
	if (f->c[0]->len != 30 || !data_ok(f->c[0]) || tail->offset != 30 ||
	    tail->len != 70 || !tail->sent || tail->refs || !data_ok(tail))
		return quic_test_fail(t, "tail: offset %llu len %u sent %u",
				      tail->offset, tail->len, tail->sent);
	if (!fix_next(f, 0))
		return quic_test_fail(t, "head not next");
	fix_send(f, 0);
	if (!fix_next(f, 3))
		return quic_test_fail(t, "tail not next");
	fix_send(f, 3);
	if (!fix_next(f, 1))
		return quic_test_fail(t, "chunk 1 not after the tail");
	fix_send(f, 1);
	if (!fix_next(f, -1) || quic_outq_pending(&f->q))
		return quic_test_fail(t, "still pending");
	return fix_counts(t, f, 0, 160);
}

/* Bytes join the last chunk only if it is of the same stream, never
 * sent, without FIN and with room.
 */
static int tail_grow(struct quic_test *t, struct fix *f)
{
	struct quic_outq_chunk *ch;
	int err;

	if (quic_outq_tail(&f->q, 4))
		return quic_test_fail(t, "tail of an empty queue");
	if (fix_add(f, 0, 4, 0, 10, 100))
		return -ENOMEM;
	ch = f->c[0];
	if (quic_outq_tail(&f->q, 4) != ch || quic_outq_tail(&f->q, 8) ||
	    quic_outq_tail(&f->q, QUIC_OUTQ_CRYPTO))
		return quic_test_fail(t, "tail of the wrong stream");
	fill(ch, 10, 20);
	quic_outq_grow(&f->q, ch, 20);
	if (ch->len != 30 || quic_outq_tail(&f->q, 4) != ch)
		return quic_test_fail(t, "grown: len %u", ch->len);
	err = fix_counts(t, f, 30, 30);
	if (err)
		return err;
	fill(ch, 30, 70);
	quic_outq_grow(&f->q, ch, 70);
	if (ch->len != 100 || !data_ok(ch) || quic_outq_tail(&f->q, 4))
		return quic_test_fail(t, "full: len %u", ch->len);
	err = fix_counts(t, f, 100, 100);
	if (err)
		return err;
	if (fix_add(f, 1, 4, 100, 0, 50))	/* a bare FIN */
		return -ENOMEM;
	f->c[1]->fin = 1;
	if (quic_outq_tail(&f->q, 4))
		return quic_test_fail(t, "tail with FIN");
	if (fix_add(f, 2, QUIC_OUTQ_CRYPTO, 0, 5, 20))
		return -ENOMEM;
	if (quic_outq_tail(&f->q, 4) ||
	    quic_outq_tail(&f->q, QUIC_OUTQ_CRYPTO) != f->c[2])
		return quic_test_fail(t, "not the last chunk");
	fix_send(f, 0);
	fix_send(f, 1);
	if (quic_outq_tail(&f->q, QUIC_OUTQ_CRYPTO) != f->c[2])
		return quic_test_fail(t, "earlier chunks sent: no tail");
	fill(f->c[2], 5, 10);
	quic_outq_grow(&f->q, f->c[2], 10);	/* room left: 5 */
	err = fix_counts(t, f, 15, 115);
	if (err)
		return err;
	fix_send(f, 2);
	if (quic_outq_tail(&f->q, QUIC_OUTQ_CRYPTO))
		return quic_test_fail(t, "tail of a sent chunk");
	return fix_counts(t, f, 0, 115);
}

/* What quic_outq_drop_stream() gave its callback. */
struct drop_log {
	struct quic_outq_chunk *ch[NCH];
	u32 n;
	s64 id;
	bool bad;
};

static void drop_cb(void *ctx, struct quic_outq_chunk *ch)
{
	struct drop_log *l = ctx;

	if (l->n == NCH || ch->id != l->id || ch->acked)
		l->bad = true;
	else
		l->ch[l->n++] = ch;
}

/* Whether the queue holds the @nr chunks @want of @f, in this order. */
static bool fix_left(struct fix *f, const int *want, u32 nr)
{
	struct quic_outq_chunk *ch;
	u32 n = 0;

	list_for_each_entry(ch, &f->q.chunks, list)
		if (n == nr || ch != f->c[want[n++]])
			return false;
	return n == nr;
}

/* A reset stream's chunks go, sent or not, in the order queued, and
 * only those: the walk ends at the stream's last chunk, as many as it
 * was told of.
 */
static int drop_stream(struct quic_test *t, struct fix *f)
{
	static const s64 id[NCH] = { 0, 4, 0, 8, 0, 4 };
	struct drop_log l = { .id = 0 };
	int i, err;

	for (i = 0; i < NCH; i++)
		if (fix_add(f, i, id[i], i * 100, (i + 1) * 10, 0))
			return -ENOMEM;
	for (i = 0; i < 3; i++)
		fix_send(f, i);
	err = fix_counts(t, f, 150, 210);
	if (err)
		return err;
	if (quic_outq_drop_stream(&f->q, 0, 3, drop_cb, &l) != 3 || l.bad ||
	    l.n != 3 || l.ch[0] != f->c[0] || l.ch[1] != f->c[2] ||
	    l.ch[2] != f->c[4])
		return quic_test_fail(t, "stream 0: %u chunks dropped", l.n);
	f->c[4] = NULL;		/* never sent: freed */
	if (!fix_left(f, (const int[]){ 1, 3, 5 }, 3) || !fix_next(f, 3))
		return quic_test_fail(t, "stream 0: other chunks touched");
	if (!f->c[0]->acked || f->c[0]->refs != 1 || !f->c[2]->acked)
		return quic_test_fail(t, "sent chunks not kept for records");
	err = fix_counts(t, f, 100, 120);
	if (err)
		return err;
	l = (struct drop_log){ .id = 4 };
	if (quic_outq_drop_stream(&f->q, 4, 1, drop_cb, &l) != 1 || l.bad ||
	    l.n != 1 || l.ch[0] != f->c[1] || f->c[5]->acked)
		return quic_test_fail(t, "stream 4: not only its first chunk");
	l = (struct drop_log){ .id = 8 };
	if (quic_outq_drop_stream(&f->q, 8, 0, drop_cb, &l) || l.n ||
	    quic_outq_drop_stream(&f->q, 12, 1, drop_cb, &l) || l.n)
		return quic_test_fail(t, "nothing to drop: dropped");
	if (!fix_left(f, (const int[]){ 3, 5 }, 2) || !fix_next(f, 3))
		return quic_test_fail(t, "chunks 3 and 5 not left");
	return fix_counts(t, f, 100, 100);
}

/* A STREAM chunk's room: at least its bytes and QUIC_OUTQ_STREAM_ROOM,
 * all kmalloc() gives, at most a full chunk; none for a bare FIN.
 */
static int outq_stream_room(struct quic_test *t)
{
	const size_t head = sizeof(struct quic_outq_chunk);
	struct quic_outq_chunk *ch;
	u32 len, room;

	if (quic_outq_stream_room(0, 1200) || quic_outq_stream_room(0, 300))
		return quic_test_fail(t, "room for a bare FIN");
	ch = quic_outq_chunk_alloc(4, 100, 0, quic_outq_stream_room(0, 1200),
				   GFP_KERNEL);
	if (!ch)
		return -ENOMEM;
	room = ch->cap;
	kfree(ch);
	if (room)
		return quic_test_fail(t, "bare FIN chunk: cap %u", room);
	for (len = 1; len <= 1500; len++) {
		room = quic_outq_stream_room(len, 1500);
		if (room < max_t(u32, len, QUIC_OUTQ_STREAM_ROOM) ||
		    room > 1500 ||
		    (room < 1500 &&
		     kmalloc_size_roundup(head + room) != head + room))
			return quic_test_fail(t, "%u bytes: room %u", len,
					      room);
	}
	if (quic_outq_stream_room(1200, 1200) != 1200 ||
	    quic_outq_stream_room(100, 300) != 300)
		return quic_test_fail(t, "room beyond a full chunk");
	return 0;
}

/* The fragments of the paged chunk of outq_split_paged(): page, offset
 * and length; the chunk's bytes are theirs in this order.
 */
static const u32 paged_frags[][3] = {
	{ 0, 100, 3000 }, { 1, 0, 4096 }, { 0, 3100, 500 },
};

/* The bytes of @ch from its pages are @want's. */
static int paged_check(struct quic_test *t, struct quic_outq_chunk *ch,
		       const u8 *want, u8 *got, u64 offset, u32 len)
{
	if (ch->offset != offset || ch->len != len)
		return quic_test_fail(t, "chunk at %llu len %u, want %llu %u",
				      ch->offset, ch->len, offset, len);
	quic_outq_chunk_copy(ch, got);
	if (memcmp(got, want + offset, len))
		return quic_test_fail(t, "bytes at %llu differ", offset);
	return 0;
}

/* Each page holds a reference per fragment pointing into it, and ours. */
static int paged_refs(struct quic_test *t, struct page **pg, int a, int b)
{
	if (page_ref_count(pg[0]) != a || page_ref_count(pg[1]) != b)
		return quic_test_fail(t, "page refs %d %d, want %d %d",
				      page_ref_count(pg[0]),
				      page_ref_count(pg[1]), a, b);
	return 0;
}

/* A paged chunk (sendfile(), splice(), MSG_ZEROCOPY) cut inside a
 * fragment, then its tail cut at a fragment's end: every part copies out
 * its own bytes, the fragment cut is shared (a page reference more), and
 * once the parts are dropped only the test's own references are left.
 */
static int outq_split_paged(struct quic_test *t)
{
	struct page *pg[2] = { alloc_page(GFP_KERNEL), alloc_page(GFP_KERNEL) };
	struct quic_outq_chunk *ch = NULL, *part;
	u8 *want = kmalloc(8192, GFP_KERNEL);
	u8 *got = kmalloc(8192, GFP_KERNEL);
	const u32 *f;
	struct quic_outq q;
	int err = -ENOMEM;
	u32 i, len = 0;
	u8 *p;

	quic_outq_init(&q);
	if (!pg[0] || !pg[1] || !want || !got)
		goto out;
	for (i = 0; i < PAGE_SIZE; i++) {
		((u8 *)page_address(pg[0]))[i] = (u8)(i * 13 + 1);
		((u8 *)page_address(pg[1]))[i] = (u8)(i * 7 + 5);
	}
	ch = quic_outq_chunk_alloc_paged(4, 0, 65536, GFP_KERNEL);
	if (!ch)
		goto out;
	for (i = 0; i < ARRAY_SIZE(paged_frags); i++) {
		f = paged_frags[i];
		get_page(pg[f[0]]);
		quic_outq_frag_add(ch, pg[f[0]], f[1], f[2]);
		p = page_address(pg[f[0]]);
		memcpy(want + len, p + f[1], f[2]);
		len += f[2];
	}
	ch->len = len;
	quic_outq_add(&q, ch);
	err = paged_refs(t, pg, 3, 2);
	if (err)
		goto out;
	/* Inside the second fragment: it is shared. */
	err = quic_outq_split(&q, ch, 3500, GFP_KERNEL);
	if (err)
		goto out;
	part = list_next_entry(ch, list);
	err = paged_check(t, ch, want, got, 0, 3500) ?:
	      paged_check(t, part, want, got, 3500, len - 3500) ?:
	      paged_refs(t, pg, 3, 3);
	if (err)
		goto out;
	/* At the end of the tail's first fragment: nothing shared. */
	err = quic_outq_split(&q, part, 4096 - 500, GFP_KERNEL);
	if (err)
		goto out;
	err = paged_check(t, part, want, got, 3500, 3596) ?:
	      paged_check(t, list_next_entry(part, list), want, got, 7096,
			  500) ?:
	      paged_refs(t, pg, 3, 3);
out:
	while (!quic_outq_empty(&q))
		quic_outq_drop(&q, list_first_entry(&q.chunks,
						    struct quic_outq_chunk,
						    list));
	if (!err && pg[0] && pg[1])
		err = paged_refs(t, pg, 1, 1);
	for (i = 0; i < ARRAY_SIZE(pg); i++)
		if (pg[i])
			__free_page(pg[i]);
	kfree(want);
	kfree(got);
	return err;
}

/* A packet whose frames read from a chunk with its bytes at its data and
 * from a paged one: the scatterlist lists the header and the frames' own
 * bytes from the packet, the chunks' bytes from the chunks, in order;
 * a fifth chunk finds no room, and a shift moves the chunks' places.
 */
static int outq_src_sg(struct quic_test *t)
{
	struct page *pg[2] = { alloc_page(GFP_KERNEL), alloc_page(GFP_KERNEL) };
	struct quic_outq_chunk *lin = quic_outq_chunk_alloc(4, 0, 300, 300,
							    GFP_KERNEL);
	struct quic_outq_chunk *pgd = quic_outq_chunk_alloc_paged(4, 300, 4096,
								  GFP_KERNEL);
	u8 *pkt = kzalloc(1024, GFP_KERNEL), *want = kzalloc(1024, GFP_KERNEL);
	u8 *got = kzalloc(1024, GFP_KERNEL);
	struct scatterlist *sg = kcalloc(QUIC_OUTQ_SRC_SG, sizeof(*sg),
					 GFP_KERNEL);
	struct quic_outq_src src;
	const u32 hlen = 13, len = 20 + 300 + 5 + 350 + 10;
	int err = -ENOMEM;
	u32 i;

	if (!pg[0] || !pg[1] || !lin || !pgd || !pkt || !want || !got || !sg)
		goto out;
	for (i = 0; i < PAGE_SIZE; i++) {
		((u8 *)page_address(pg[0]))[i] = (u8)(i * 13 + 1);
		((u8 *)page_address(pg[1]))[i] = (u8)(i * 7 + 5);
	}
	for (i = 0; i < 300; i++)
		lin->data[i] = (u8)(i * 3 + 2);
	get_page(pg[0]);
	quic_outq_frag_add(pgd, pg[0], 100, 200);
	get_page(pg[1]);
	quic_outq_frag_add(pgd, pg[1], 0, 150);
	pgd->len = 350;
	for (i = 0; i < hlen + len; i++)
		pkt[i] = (u8)(i + 100);
	memcpy(want, pkt, hlen + len);
	memcpy(want + hlen + 20, lin->data, 300);
	memcpy(want + hlen + 325, (u8 *)page_address(pg[0]) + 100, 200);
	memcpy(want + hlen + 525, page_address(pg[1]), 150);

	/* Planned 7 bytes early, then moved by an ACK put in front. */
	quic_outq_src_init(&src, pkt + hlen, false);
	err = -EINVAL;
	if (!quic_outq_src_add(&src, lin, pkt + hlen + 13) ||
	    !quic_outq_src_add(&src, pgd, pkt + hlen + 318)) {
		quic_test_fail(t, "no room for two chunks");
		goto out;
	}
	quic_outq_src_shift(&src, 7);
	quic_outq_src_sg(&src, pkt, hlen, len, sg);
	if (sg_nents(sg) != 6) {
		quic_test_fail(t, "%d entries, want 6", sg_nents(sg));
		goto out;
	}
	if (sg_copy_to_buffer(sg, sg_nents(sg), got, 1024) != hlen + len ||
	    memcmp(got, want, hlen + len)) {
		quic_test_fail(t, "the scatterlist's bytes differ");
		goto out;
	}
	if (!quic_outq_src_add(&src, lin, pkt + hlen + 700) ||
	    !quic_outq_src_add(&src, lin, pkt + hlen + 800) ||
	    quic_outq_src_add(&src, lin, pkt + hlen + 900)) {
		quic_test_fail(t, "room for %u chunks, want %u", src.nr,
			       QUIC_OUTQ_SRC_MAX);
		goto out;
	}
	/* AES-CCM's sources: a paged chunk is copied, not read. */
	quic_outq_src_init(&src, pkt + hlen, true);
	if (quic_outq_src_add(&src, pgd, pkt + hlen + 318) ||
	    !quic_outq_src_add(&src, lin, pkt + hlen + 13)) {
		quic_test_fail(t, "AES-CCM: paged chunk read, or linear copied");
		goto out;
	}
	err = 0;
out:
	if (pgd)
		quic_outq_chunk_free(pgd);
	kfree(lin);
	for (i = 0; i < ARRAY_SIZE(pg); i++)
		if (pg[i])
			__free_page(pg[i]);
	kfree(pkt);
	kfree(want);
	kfree(got);
	kfree(sg);
	return err;
}

static int outq_cursor(struct quic_test *t)
{
	return run(t, cursor);
}

static int outq_lost_first(struct quic_test *t)
{
	return run(t, lost_first);
}

static int outq_acked_refs(struct quic_test *t)
{
	return run(t, acked_refs);
}

static int outq_drop(struct quic_test *t)
{
	return run(t, drop);
}

static int outq_split_new(struct quic_test *t)
{
	return run(t, split_new);
}

static int outq_split_lost(struct quic_test *t)
{
	return run(t, split_lost);
}

static int outq_tail_grow(struct quic_test *t)
{
	return run(t, tail_grow);
}

static int outq_drop_stream(struct quic_test *t)
{
	return run(t, drop_stream);
}

static const struct quic_test_case quic_outq_cases[] = {
	QUIC_TEST_CASE(outq_cursor),
	QUIC_TEST_CASE(outq_lost_first),
	QUIC_TEST_CASE(outq_acked_refs),
	QUIC_TEST_CASE(outq_drop),
	QUIC_TEST_CASE(outq_split_new),
	QUIC_TEST_CASE(outq_split_lost),
	QUIC_TEST_CASE(outq_split_paged),
	QUIC_TEST_CASE(outq_src_sg),
	QUIC_TEST_CASE(outq_tail_grow),
	QUIC_TEST_CASE(outq_drop_stream),
	QUIC_TEST_CASE(outq_stream_room),
};

const struct quic_test_suite quic_outq_suite = {
	.name		= "quic_outq",
	.cases		= quic_outq_cases,
	.num_cases	= ARRAY_SIZE(quic_outq_cases),
};
