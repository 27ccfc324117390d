// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC streams and flow control (RFC 9000, sections 2, 3 and 4).
 *
 * The table keys streams by ID with the fast unkeyed hash: a peer can only
 * use IDs below the limits we advertise, so it cannot pick colliding keys
 * beyond that small set.  The reassembly buffer of a stream is an rb-tree
 * of chunks that never overlap: a new frame stores only the bytes that
 * fill gaps, so retransmitted and overlapping data costs no memory. A
 * chunk holds its bytes, kmalloc'd, or references the decrypted packet
 * they lie in, when they are most of it (quic_stream_recv_skb()).
 */

#include <linux/errno.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include "export.h"
#include "hash.h"
#include "stream.h"
#include <linux/quic.h>

/* The stream table starts with 1 << QUIC_STREAM_MIN_BITS buckets and
 * doubles when it holds more streams than buckets, up to what the stream
 * limits we advertise call for (at most 1 << QUIC_STREAM_MAX_BITS): an
 * idle connection, or one with a few streams, keeps a small table.
 */
#define QUIC_STREAM_MIN_BITS	4
#define QUIC_STREAM_MAX_BITS	12

struct quic_stream_chunk {
	struct rb_node node;
	u64 offset;
	u32 len;
	u32 size:31;	/* bytes charged */
	u32 ref:1;	/* @data holds a struct quic_stream_ref */
	u8 data[];
};

/* What a chunk that references a packet holds: the packet's skb and
 * where the bytes are in it.
 */
struct quic_stream_ref {
	struct sk_buff *skb;
	const u8 *bytes;
};

#define QUIC_CHUNK_HDR		offsetof(struct quic_stream_chunk, data)
/* Largest piece of data kept in one chunk: a chunk fills a page. */
#define QUIC_STREAM_CHUNK_MAX	(PAGE_SIZE - QUIC_CHUNK_HDR)

/* How much of @len bytes to put in the next chunk.  kmalloc() rounds
 * sizes above 256 bytes up to a power of two; a piece that would waste
 * most of such a bucket is cut to fill the bucket below instead, and the
 * rest goes to a smaller chunk (a 1200-byte frame costs 1280 bytes, not
 * 2048).  Every chunk is charged its real slab size.
 */
static u32 quic_chunk_piece(u64 len)
{
	u32 n = min_t(u64, len, QUIC_STREAM_CHUNK_MAX);
	u32 b = rounddown_pow_of_two(n + QUIC_CHUNK_HDR);

	if (b >= 512 && b - QUIC_CHUNK_HDR < n)
		n = b - QUIC_CHUNK_HDR;
	return n;
}

static inline u64 quic_chunk_end(const struct quic_stream_chunk *c)
{
	return c->offset + c->len;
}

static inline const u8 *quic_chunk_bytes(const struct quic_stream_chunk *c)
{
	return c->ref ? ((const struct quic_stream_ref *)c->data)->bytes :
			c->data;
}

/* Free @c, giving back what it was charged. */
static void quic_chunk_free(struct quic_stream_table *t,
			    struct quic_stream_chunk *c)
{
	t->mem -= c->size;
	if (t->charge)
		t->charge(t->charge_ctx, -(int)c->size);
	if (c->ref)
		consume_skb(((struct quic_stream_ref *)c->data)->skb);
	kfree(c);
}

/* The bucket of stream @id in a table of 2^@bits buckets. */
static u32 quic_stream_bucket(u32 bits, s64 id)
{
	return quic_hash_bucket(quic_fast_hash_u64(id), bits);
}

static inline bool quic_send_done(const struct quic_stream *s)
{
	return s->send_state == QUIC_STREAM_SEND_STATE_RECVD ||
	       s->send_state == QUIC_STREAM_SEND_STATE_RESET_RECVD;
}

static inline bool quic_recv_done(const struct quic_stream *s)
{
	return s->recv_state == QUIC_STREAM_RECV_STATE_READ ||
	       s->recv_state == QUIC_STREAM_RECV_STATE_RESET_READ;
}

static int quic_stream_proto_err(u64 *err, u64 code)
{
	*err = code;
	return -EPROTO;
}

/**
 * quic_stream_table_init() - set up the streams of a connection
 * @t: the table
 * @is_server: our role; it decides the parity of our stream IDs
 * @local: our transport parameters (limits we advertise)
 * @conn_window_max: largest the connection receive window grows to
 * @stream_window_max: largest a stream receive window grows to
 * @charge: memory accounting callback for buffered received data
 * @charge_ctx: its context
 *
 * The peer's parameters are unknown (all zero: no stream may be opened
 * and no byte sent) until quic_stream_set_peer().
 *
 * Return: 0, -EINVAL for a stream limit above 2^60, or -ENOMEM.
 */
int quic_stream_table_init(struct quic_stream_table *t, bool is_server,
			   const struct quic_stream_params *local,
			   u64 conn_window_max, u64 stream_window_max,
			   quic_stream_charge_t charge, void *charge_ctx)
{
	u8 pbidi = !is_server, puni = pbidi | QUIC_STREAM_TYPE_UNI_MASK;
	u64 n;

	if (local->max_streams_bidi > QUIC_STREAM_MAX_COUNT ||
	    local->max_streams_uni > QUIC_STREAM_MAX_COUNT)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	/* Grow no further than the streams both sides will usually have
	 * open.
	 */
	n = 2 * (local->max_streams_bidi + local->max_streams_uni);
	t->max_bits = clamp_t(u32, order_base_2(max_t(u64, n, 1)),
			      QUIC_STREAM_MIN_BITS, QUIC_STREAM_MAX_BITS);
	t->bits = QUIC_STREAM_MIN_BITS;
	t->buckets = kcalloc(1U << t->bits, sizeof(*t->buckets), GFP_KERNEL);
	if (!t->buckets)
		return -ENOMEM;
	t->is_server = is_server;
	t->local = *local;
	t->charge = charge;
	t->charge_ctx = charge_ctx;
	t->stream_window_max = stream_window_max;
	for (n = 0; n < 4; n++)
		t->kind[n].blocked_at = U64_MAX;
	t->kind[pbidi].limit = local->max_streams_bidi;
	t->kind[pbidi].target = local->max_streams_bidi;
	t->kind[puni].limit = local->max_streams_uni;
	t->kind[puni].target = local->max_streams_uni;
	t->send.blocked_at = U64_MAX;
	INIT_LIST_HEAD(&t->readable);
	INIT_LIST_HEAD(&t->ctl);
	t->recv.max = local->max_data;
	t->recv.window = local->max_data;
	t->recv.window_max = max(conn_window_max, local->max_data);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_table_init);

static void quic_stream_purge(struct quic_stream_table *t,
			      struct quic_stream *s)
{
	struct quic_stream_chunk *c, *tmp;

	rbtree_postorder_for_each_entry_safe(c, tmp, &s->chunks, node)
		quic_chunk_free(t, c);
	s->chunks = RB_ROOT;
}

static void quic_stream_free(struct quic_stream_table *t,
			     struct quic_stream *s)
{
	if (s->retired)
		t->kind[s->id & QUIC_STREAM_TYPE_MASK].lingering--;
	t->kind[s->id & QUIC_STREAM_TYPE_MASK].live--;
	quic_stream_purge(t, s);
	hlist_del(&s->node);
	list_del(&s->rx_node);
	list_del(&s->ctl_node);
	t->count--;
	kfree(s);
}

/**
 * quic_stream_table_free() - free every stream and all buffered data
 * @t: the table; may be zeroed or already freed
 */
void quic_stream_table_free(struct quic_stream_table *t)
{
	struct quic_stream *s;
	struct hlist_node *tmp;
	u32 i;

	if (!t->buckets)
		return;
	for (i = 0; i < (1U << t->bits); i++)
		hlist_for_each_entry_safe(s, tmp, &t->buckets[i], node)
			quic_stream_free(t, s);
	kfree(t->buckets);
	t->buckets = NULL;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_table_free);

/**
 * quic_stream_set_peer() - take the peer's transport parameters
 * @t: the table
 * @peer: the peer's parameters (or those remembered for 0-RTT)
 * @err: transport error code on -EPROTO
 *
 * Limits only grow: streams already open keep the larger of their send
 * limit and the new initial one.
 *
 * Return: 0, or -EPROTO with TRANSPORT_PARAMETER_ERROR for a stream limit
 * above 2^60 (RFC 9000, section 4.6).
 */
int quic_stream_set_peer(struct quic_stream_table *t,
			 const struct quic_stream_params *peer, u64 *err)
{
	u8 bidi = t->is_server, uni = t->is_server | QUIC_STREAM_TYPE_UNI_MASK;
	struct quic_stream *s;
	u32 i;

	if (peer->max_streams_bidi > QUIC_STREAM_MAX_COUNT ||
	    peer->max_streams_uni > QUIC_STREAM_MAX_COUNT)
		return quic_stream_proto_err(err,
					     QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM);
	t->peer = *peer;
	t->kind[bidi].limit = max(t->kind[bidi].limit, peer->max_streams_bidi);
	t->kind[uni].limit = max(t->kind[uni].limit, peer->max_streams_uni);
	t->send.max = max(t->send.max, peer->max_data);
	for (i = 0; i < (1U << t->bits); i++) {
		hlist_for_each_entry(s, &t->buckets[i], node) {
			u64 m;

			if (!quic_stream_id_send(t, s->id))
				continue;
			if (quic_stream_id_uni(s->id))
				m = peer->max_stream_data_uni;
			else if (quic_stream_id_local(t, s->id))
				m = peer->max_stream_data_bidi_remote;
			else
				m = peer->max_stream_data_bidi_local;
			s->send.max = max(s->send.max, m);
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_set_peer);

/**
 * quic_stream_find() - look a stream up by ID
 * @t: the table
 * @id: stream ID
 *
 * Return: the stream, or NULL if it is not open (never opened or freed).
 */
struct quic_stream *quic_stream_find(const struct quic_stream_table *t,
				     s64 id)
{
	struct quic_stream *s;

	hlist_for_each_entry(s, &t->buckets[quic_stream_bucket(t->bits, id)], node)
		if (s->id == id)
			return s;
	return NULL;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_find);

/* Double the buckets once the table holds more streams than buckets. The
 * streams stay where they are; only their hash nodes move. Without memory
 * the table keeps its size and its chains grow longer.
 */
static void quic_stream_table_grow(struct quic_stream_table *t)
{
	u32 i, bits = t->bits + 1;
	struct hlist_head *b;
	struct hlist_node *tmp;
	struct quic_stream *s;

	if (t->count < (1U << t->bits) || t->bits >= t->max_bits)
		return;
	b = kcalloc(1U << bits, sizeof(*b), GFP_ATOMIC | __GFP_NOWARN);
	if (!b)
		return;
	for (i = 0; i < (1U << t->bits); i++) {
		hlist_for_each_entry_safe(s, tmp, &t->buckets[i], node) {
			hlist_del(&s->node);
			hlist_add_head(&s->node,
				       &b[quic_stream_bucket(bits, s->id)]);
		}
	}
	kfree(t->buckets);
	t->buckets = b;
	t->bits = bits;
}

static struct quic_stream *quic_stream_new(struct quic_stream_table *t,
					   s64 id)
{
	bool local = quic_stream_id_local(t, id);
	bool uni = quic_stream_id_uni(id);
	struct quic_stream *s;
	u64 rwin = 0;

	quic_stream_table_grow(t);
	s = kzalloc(sizeof(*s), GFP_ATOMIC | __GFP_NOWARN);
	if (!s)
		return NULL;
	s->id = id;
	s->chunks = RB_ROOT;
	INIT_LIST_HEAD(&s->rx_node);
	INIT_LIST_HEAD(&s->ctl_node);
	s->send.blocked_at = U64_MAX;
	s->send_state = QUIC_STREAM_SEND_STATE_READY;
	s->recv_state = QUIC_STREAM_RECV_STATE_RECV;
	if (uni && local) {
		s->send.max = t->peer.max_stream_data_uni;
		s->recv_state = QUIC_STREAM_RECV_STATE_READ;
	} else if (uni) {
		rwin = t->local.max_stream_data_uni;
		s->send_state = QUIC_STREAM_SEND_STATE_RECVD;
	} else if (local) {
		s->send.max = t->peer.max_stream_data_bidi_remote;
		rwin = t->local.max_stream_data_bidi_local;
	} else {
		s->send.max = t->peer.max_stream_data_bidi_local;
		rwin = t->local.max_stream_data_bidi_remote;
	}
	s->recv.max = rwin;
	s->recv.window = rwin;
	s->recv.window_max = max(rwin, t->stream_window_max);
	hlist_add_head(&s->node, &t->buckets[quic_stream_bucket(t->bits, id)]);
	t->kind[id & QUIC_STREAM_TYPE_MASK].live++;
	t->count++;
	return s;
}

/* Open the streams of @id's type from the next unopened one up to @id. */
static struct quic_stream *quic_stream_open_upto(struct quic_stream_table *t,
						 s64 id)
{
	struct quic_stream_kind *k = &t->kind[id & QUIC_STREAM_TYPE_MASK];
	struct quic_stream *s = NULL;

	while (k->next <= (u64)id >> 2) {
		s = quic_stream_new(t, (s64)(k->next << 2) |
				       (id & QUIC_STREAM_TYPE_MASK));
		if (!s)
			return ERR_PTR(-ENOMEM);
		k->next++;
	}
	return s;
}

/* The receiving part has everything it will get: all data up to the
 * final size, or a reset (a missing part counts as done).
 */
static inline bool quic_recv_arrived(const struct quic_stream *s)
{
	return s->recv_state >= QUIC_STREAM_RECV_STATE_RECVD;
}

/**
 * quic_stream_retire() - count a stream as closed for the stream limits
 * @t: the table
 * @s: the stream; never freed here
 *
 * quic-api.rst 5.3: a stream stops counting against the limits once its
 * sending part is in Data Recvd or Reset Recvd and its receiving part has
 * received everything (Data Recvd) or a reset, before the application
 * has read it: the peer's credit for a unidirectional stream comes back
 * when its data has arrived. A peer that opens streams and sends a FIN on
 * each could then make us keep any number of unread streams: at most the
 * initial allowance of them stays retired but allocated; beyond that a
 * stream counts as closed only when it is read and freed.
 */
void quic_stream_retire(struct quic_stream_table *t, struct quic_stream *s)
{
	struct quic_stream_kind *k = &t->kind[s->id & QUIC_STREAM_TYPE_MASK];

	if (s->retired || quic_stream_id_local(t, s->id) ||
	    !quic_send_done(s) || !quic_recv_arrived(s))
		return;
	if (!quic_recv_done(s) && k->lingering >= max(k->target, 1ULL))
		return;
	s->retired = true;
	k->closed++;
	k->lingering++;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_retire);

/**
 * quic_stream_release() - free a stream if both of its parts are closed
 * @t: the table
 * @s: the stream; not to be used again if this returns true
 *
 * Call after a state change.  A stream is freed once its sending part is
 * in Data Recvd or Reset Recvd and its receiving part in Data Read or Reset
 * Read (a missing part counts as closed).  Retiring a peer's stream (see
 * quic_stream_retire()) makes room for quic_stream_max_streams_update().
 *
 * Return: true if @s was freed.
 */
bool quic_stream_release(struct quic_stream_table *t, struct quic_stream *s)
{
	quic_stream_retire(t, s);
	if (!quic_send_done(s) || !quic_recv_done(s))
		return false;
	quic_stream_free(t, s);
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_release);

/**
 * quic_stream_send_get() - the stream an application sends on or opens
 * @t: the table
 * @id: stream ID, or -1 for our next unopened stream of the type @uni says
 * @uni: with @id -1, open a unidirectional stream
 * @open: the application asked to open the stream (MSG_QUIC_STREAM_NEW);
 *	opening ID n opens every lower unopened ID of that type
 *
 * Return: the stream, or an ERR_PTR(): -EINVAL (a stream we may not send
 * on, a peer's stream that does not exist, our unopened stream without
 * @open, @open on a stream that has sent data, a finished or reset
 * stream), -ENOSTR (the stream was closed and freed), -EAGAIN (beyond the
 * peer's stream limit: wait for MAX_STREAMS; see
 * quic_stream_streams_blocked()), -ENOBUFS (more than
 * %QUIC_STREAM_LOCAL_LIVE streams of the type would be allocated) or
 * -ENOMEM.
 */
struct quic_stream *quic_stream_send_get(struct quic_stream_table *t, s64 id,
					 bool uni, bool open)
{
	struct quic_stream_kind *k;
	struct quic_stream *s;

	if (id == -1) {
		u8 type = t->is_server | (uni ? QUIC_STREAM_TYPE_UNI_MASK : 0);

		if (t->kind[type].next > (QUIC_STREAM_MAX_OFFSET >> 2))
			return ERR_PTR(-EINVAL);
		id = (s64)(t->kind[type].next << 2) | type;
	}
	if (id < 0 || id > QUIC_STREAM_MAX_OFFSET || !quic_stream_id_send(t, id))
		return ERR_PTR(-EINVAL);
	k = &t->kind[id & QUIC_STREAM_TYPE_MASK];
	s = quic_stream_find(t, id);
	if (s) {
		if (open && s->send_state != QUIC_STREAM_SEND_STATE_READY)
			return ERR_PTR(-EINVAL);
		if (s->send_state != QUIC_STREAM_SEND_STATE_READY &&
		    s->send_state != QUIC_STREAM_SEND_STATE_SEND)
			return ERR_PTR(-EINVAL);
		return s;
	}
	/* quic-api.rst 5.2 rules 3 and 4: a freed stream is ENOSTR if it
	 * was ours, EINVAL if it was the peer's.
	 */
	if (!quic_stream_id_local(t, id))
		return ERR_PTR(-EINVAL);
	if ((u64)id >> 2 < k->next)
		return ERR_PTR(-ENOSTR);
	if (!open)
		return ERR_PTR(-EINVAL);
	if ((u64)id >> 2 >= k->limit)
		return ERR_PTR(-EAGAIN);
	if (((u64)id >> 2) - k->next >= QUIC_STREAM_LOCAL_LIVE - k->live)
		return ERR_PTR(-ENOBUFS);
	return quic_stream_open_upto(t, id);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_send_get);

/**
 * quic_stream_recv_get() - the stream a received frame refers to
 * @t: the table
 * @id: stream ID from the frame
 * @send_part: the frame concerns our sending part (MAX_STREAM_DATA,
 *	STOP_SENDING) rather than our receiving part (STREAM, RESET_STREAM,
 *	STREAM_DATA_BLOCKED)
 * @err: transport error code on -EPROTO
 *
 * A peer's stream that is not open yet is opened, with every lower one of
 * its type (RFC 9000, section 3.2).
 *
 * Return: the stream; NULL if it was closed and freed (ignore the frame);
 * ERR_PTR(-EPROTO) with STREAM_STATE_ERROR (wrong direction, or our own
 * stream that we have not opened) or STREAM_LIMIT_ERROR (beyond the limit
 * we advertised); ERR_PTR(-ENOMEM).
 */
struct quic_stream *quic_stream_recv_get(struct quic_stream_table *t, s64 id,
					 bool send_part, u64 *err)
{
	struct quic_stream_kind *k;

	if (id < 0 || id > QUIC_STREAM_MAX_OFFSET)
		return ERR_PTR(quic_stream_proto_err(err,
				QUIC_TRANSPORT_ERROR_FRAME_ENCODING));
	if (send_part ? !quic_stream_id_send(t, id) :
			!quic_stream_id_recv(t, id))
		return ERR_PTR(quic_stream_proto_err(err,
				QUIC_TRANSPORT_ERROR_STREAM_STATE));
	k = &t->kind[id & QUIC_STREAM_TYPE_MASK];
	if (quic_stream_id_local(t, id)) {
		if ((u64)id >> 2 >= k->next)
			return ERR_PTR(quic_stream_proto_err(err,
					QUIC_TRANSPORT_ERROR_STREAM_STATE));
		return quic_stream_find(t, id);
	}
	if ((u64)id >> 2 >= k->limit)
		return ERR_PTR(quic_stream_proto_err(err,
				QUIC_TRANSPORT_ERROR_STREAM_LIMIT));
	if ((u64)id >> 2 < k->next)
		return quic_stream_find(t, id);
	return quic_stream_open_upto(t, id);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_recv_get);

/**
 * quic_stream_peer_max_streams() - a MAX_STREAMS frame was received
 * @t: the table
 * @uni: MAX_STREAMS for unidirectional streams
 * @count: its maximum streams value
 * @max_id: if the limit rose, the highest stream ID we may now open (the
 *	STREAM_MAX_STREAM event value)
 * @err: transport error code on -EPROTO
 *
 * Return: 1 if our limit rose, 0 if not (frames never lower it), or
 * -EPROTO with FRAME_ENCODING_ERROR for a count above 2^60.
 */
int quic_stream_peer_max_streams(struct quic_stream_table *t, bool uni,
				 u64 count, s64 *max_id, u64 *err)
{
	u8 type = t->is_server | (uni ? QUIC_STREAM_TYPE_UNI_MASK : 0);
	struct quic_stream_kind *k = &t->kind[type];

	if (count > QUIC_STREAM_MAX_COUNT)
		return quic_stream_proto_err(err,
					     QUIC_TRANSPORT_ERROR_FRAME_ENCODING);
	if (count <= k->limit)
		return 0;
	k->limit = count;
	*max_id = (s64)((count - 1) << 2) | type;
	return 1;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_peer_max_streams);

/**
 * quic_stream_open_allowed() - whether the peer's stream limit lets us
 *	open a stream
 * @t: the table
 * @id: stream ID, or -1 for our next unopened stream of the type @uni says
 * @uni: with @id -1, a unidirectional stream
 *
 * Return: true unless quic_stream_send_get() with @open would give -EAGAIN.
 */
bool quic_stream_open_allowed(const struct quic_stream_table *t, s64 id,
			      bool uni)
{
	u8 type = t->is_server | (uni ? QUIC_STREAM_TYPE_UNI_MASK : 0);
	u64 n;

	if (id == -1) {
		n = t->kind[type].next;
	} else {
		if (id < 0 || !quic_stream_id_local(t, id))
			return true;
		type = id & QUIC_STREAM_TYPE_MASK;
		n = (u64)id >> 2;
	}
	return n < t->kind[type].limit;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_open_allowed);

/**
 * quic_stream_streams_blocked() - whether to send STREAMS_BLOCKED
 * @t: the table
 * @uni: for our unidirectional streams
 * @limit: the limit to put in the frame
 *
 * Return: true once per limit value while all streams it allows are
 * opened.
 */
bool quic_stream_streams_blocked(struct quic_stream_table *t, bool uni,
				 u64 *limit)
{
	u8 type = t->is_server | (uni ? QUIC_STREAM_TYPE_UNI_MASK : 0);
	struct quic_stream_kind *k = &t->kind[type];

	if (k->next < k->limit || k->blocked_at == k->limit)
		return false;
	k->blocked_at = k->limit;
	*limit = k->limit;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_streams_blocked);

/**
 * quic_stream_max_streams_update() - whether to send MAX_STREAMS
 * @t: the table
 * @uni: for the peer's unidirectional streams
 * @count: the new limit to put in the frame
 *
 * The peer may keep as many streams open as our initial limit allowed:
 * the limit follows the streams retired by quic_stream_retire(), and is
 * raised as soon as one is (quic-api.rst 5.3: a sender waiting on the
 * limit must not wait for a batch of streams it may never open).
 *
 * Return: true if the limit was raised to *@count.
 */
bool quic_stream_max_streams_update(struct quic_stream_table *t, bool uni,
				    u64 *count)
{
	u8 type = (t->is_server ? 0 : 1) | (uni ? QUIC_STREAM_TYPE_UNI_MASK : 0);
	struct quic_stream_kind *k = &t->kind[type];
	u64 want = min(k->closed + k->target, QUIC_STREAM_MAX_COUNT);

	if (want <= k->limit)
		return false;
	k->limit = want;
	*count = want;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_max_streams_update);

/* Legal transitions (RFC 9000, figures 2 and 3), as masks of next states. */
static const u8 quic_send_next[] = {
	[QUIC_STREAM_SEND_STATE_READY] = BIT(QUIC_STREAM_SEND_STATE_SEND) |
					 BIT(QUIC_STREAM_SEND_STATE_SENT) |
					 BIT(QUIC_STREAM_SEND_STATE_RESET_SENT),
	[QUIC_STREAM_SEND_STATE_SEND] = BIT(QUIC_STREAM_SEND_STATE_SENT) |
					BIT(QUIC_STREAM_SEND_STATE_RESET_SENT),
	[QUIC_STREAM_SEND_STATE_SENT] = BIT(QUIC_STREAM_SEND_STATE_RECVD) |
					BIT(QUIC_STREAM_SEND_STATE_RESET_SENT),
	[QUIC_STREAM_SEND_STATE_RECVD] = 0,
	[QUIC_STREAM_SEND_STATE_RESET_SENT] =
		BIT(QUIC_STREAM_SEND_STATE_RESET_RECVD),
	[QUIC_STREAM_SEND_STATE_RESET_RECVD] = 0,
};

#define QUIC_RECV(state)	((state) - QUIC_STREAM_RECV_STATE_RECV)

static const u8 quic_recv_next[] = {
	[QUIC_RECV(QUIC_STREAM_RECV_STATE_RECV)] =
		BIT(QUIC_RECV(QUIC_STREAM_RECV_STATE_SIZE_KNOWN)) |
		BIT(QUIC_RECV(QUIC_STREAM_RECV_STATE_RECVD)) |
		BIT(QUIC_RECV(QUIC_STREAM_RECV_STATE_RESET_RECVD)),
	[QUIC_RECV(QUIC_STREAM_RECV_STATE_SIZE_KNOWN)] =
		BIT(QUIC_RECV(QUIC_STREAM_RECV_STATE_RECVD)) |
		BIT(QUIC_RECV(QUIC_STREAM_RECV_STATE_RESET_RECVD)),
	[QUIC_RECV(QUIC_STREAM_RECV_STATE_RECVD)] =
		BIT(QUIC_RECV(QUIC_STREAM_RECV_STATE_READ)),
	[QUIC_RECV(QUIC_STREAM_RECV_STATE_READ)] = 0,
	[QUIC_RECV(QUIC_STREAM_RECV_STATE_RESET_RECVD)] =
		BIT(QUIC_RECV(QUIC_STREAM_RECV_STATE_RESET_READ)),
	[QUIC_RECV(QUIC_STREAM_RECV_STATE_RESET_READ)] = 0,
};

/**
 * quic_stream_set_send_state() - move the sending part to a new state
 * @s: the stream
 * @state: QUIC_STREAM_SEND_STATE_*
 *
 * For the transitions that only the caller can see: all data and the FIN
 * acknowledged (Data Sent -> Data Recvd) and our RESET_STREAM acknowledged
 * (Reset Sent -> Reset Recvd).  Ready -> Data Sent stands for Ready -> Send
 * -> Data Sent when the first frame carries the FIN.
 *
 * Return: 0, or -EINVAL for a transition RFC 9000 figure 2 does not have.
 */
int quic_stream_set_send_state(struct quic_stream *s, u8 state)
{
	if (state > QUIC_STREAM_SEND_STATE_RESET_RECVD ||
	    s->send_state > QUIC_STREAM_SEND_STATE_RESET_RECVD ||
	    !(quic_send_next[s->send_state] & BIT(state)))
		return -EINVAL;
	s->send_state = state;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_set_send_state);

/**
 * quic_stream_set_recv_state() - move the receiving part to a new state
 * @s: the stream
 * @state: QUIC_STREAM_RECV_STATE_*
 *
 * quic_stream_recv_data(), quic_stream_recv_reset() and quic_stream_read()
 * make these transitions themselves; this is their common check.
 *
 * Return: 0, or -EINVAL for a transition RFC 9000 figure 3 does not have.
 */
int quic_stream_set_recv_state(struct quic_stream *s, u8 state)
{
	if (state < QUIC_STREAM_RECV_STATE_RECV ||
	    state > QUIC_STREAM_RECV_STATE_RESET_READ ||
	    s->recv_state < QUIC_STREAM_RECV_STATE_RECV ||
	    s->recv_state > QUIC_STREAM_RECV_STATE_RESET_READ ||
	    !(quic_recv_next[QUIC_RECV(s->recv_state)] &
	      BIT(QUIC_RECV(state))))
		return -EINVAL;
	s->recv_state = state;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_set_recv_state);

static u64 quic_fc_send_credit(const struct quic_fc_send *fc)
{
	return fc->max > fc->used ? fc->max - fc->used : 0;
}

/**
 * quic_stream_send_credit() - bytes that may be sent on a stream now
 * @t: the table
 * @s: the stream
 *
 * Return: the smaller of the stream's and the connection's credit; 0 if
 * the stream cannot send.
 */
u64 quic_stream_send_credit(const struct quic_stream_table *t,
			    const struct quic_stream *s)
{
	if (s->send_state != QUIC_STREAM_SEND_STATE_READY &&
	    s->send_state != QUIC_STREAM_SEND_STATE_SEND)
		return 0;
	return min(quic_fc_send_credit(&s->send), quic_fc_send_credit(&t->send));
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_send_credit);

/**
 * quic_stream_send_advance() - new data is queued for sending on a stream
 * @t: the table
 * @s: the stream
 * @len: bytes appended, at most quic_stream_send_credit()
 * @fin: they end the stream
 *
 * Moves the sending part to Send, and to Data Sent with @fin.
 *
 * Return: 0, -EINVAL if the stream cannot send, -ENOSPC if @len exceeds
 * the credit (nothing changes).
 */
int quic_stream_send_advance(struct quic_stream_table *t,
			     struct quic_stream *s, u64 len, bool fin)
{
	if (s->send_state != QUIC_STREAM_SEND_STATE_READY &&
	    s->send_state != QUIC_STREAM_SEND_STATE_SEND)
		return -EINVAL;
	if (len > quic_stream_send_credit(t, s))
		return -ENOSPC;
	s->send.used += len;
	t->send.used += len;
	if (fin)
		s->send_state = QUIC_STREAM_SEND_STATE_SENT;
	else if (len)
		s->send_state = QUIC_STREAM_SEND_STATE_SEND;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_send_advance);

/**
 * quic_stream_send_blocked() - which *_BLOCKED frames to send
 * @t: the table
 * @s: the stream the application is blocked on
 *
 * Each limit is reported once: DATA_BLOCKED carries @t->send.max and
 * STREAM_DATA_BLOCKED @s->send.max.
 *
 * Return: QUIC_STREAM_BLOCKED_DATA and/or QUIC_STREAM_BLOCKED_STREAM.
 */
u32 quic_stream_send_blocked(struct quic_stream_table *t,
			     struct quic_stream *s)
{
	u32 flags = 0;

	if (t->send.used >= t->send.max && t->send.blocked_at != t->send.max) {
		t->send.blocked_at = t->send.max;
		flags |= QUIC_STREAM_BLOCKED_DATA;
	}
	if ((s->send_state == QUIC_STREAM_SEND_STATE_READY ||
	     s->send_state == QUIC_STREAM_SEND_STATE_SEND) &&
	    s->send.used >= s->send.max && s->send.blocked_at != s->send.max) {
		s->send.blocked_at = s->send.max;
		flags |= QUIC_STREAM_BLOCKED_STREAM;
	}
	return flags;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_send_blocked);

/**
 * quic_stream_peer_max_data() - a MAX_DATA frame was received
 * @t: the table
 * @max: its maximum data value
 *
 * Return: true if the connection's send limit rose.
 */
bool quic_stream_peer_max_data(struct quic_stream_table *t, u64 max)
{
	if (max <= t->send.max)
		return false;
	t->send.max = max;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_peer_max_data);

/**
 * quic_stream_peer_max_stream_data() - a MAX_STREAM_DATA frame was received
 * @s: the stream, from quic_stream_recv_get() with @send_part
 * @max: its maximum stream data value
 *
 * Return: true if the stream's send limit rose (a STREAM_MAX_DATA event).
 */
bool quic_stream_peer_max_stream_data(struct quic_stream *s, u64 max)
{
	if (max <= s->send.max)
		return false;
	s->send.max = max;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_peer_max_stream_data);

/**
 * quic_stream_reset() - abandon sending on a stream (RESET_STREAM)
 * @s: the stream
 * @errcode: application error code for the frame
 *
 * The caller sends RESET_STREAM with @errcode and final size
 * @s->send.used, and calls quic_stream_set_send_state() with Reset Recvd
 * once it is acknowledged.
 *
 * Return: 0, or -EINVAL if the sending part is in Data Recvd or was reset.
 */
int quic_stream_reset(struct quic_stream *s, u64 errcode)
{
	if (quic_stream_set_send_state(s, QUIC_STREAM_SEND_STATE_RESET_SENT))
		return -EINVAL;
	s->send_errcode = errcode;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_reset);

/**
 * quic_stream_peer_stop_sending() - a STOP_SENDING frame was received
 * @s: the stream, from quic_stream_recv_get() with @send_part
 * @errcode: the peer's application error code
 *
 * RFC 9000 section 3.5: answer with RESET_STREAM carrying the peer's code.
 *
 * Return: 1 if the stream was reset (send RESET_STREAM, report
 * SEND_STATE_RESET_SENT), 0 if nothing is to be done.
 */
int quic_stream_peer_stop_sending(struct quic_stream *s, u64 errcode)
{
	return quic_stream_reset(s, errcode) ? 0 : 1;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_peer_stop_sending);

/* Account @end as received on @s; checks both receive limits. */
static int quic_stream_recv_account(struct quic_stream_table *t,
				    struct quic_stream *s, u64 end, u64 *err)
{
	u64 delta;

	if (end > s->recv.max)
		return quic_stream_proto_err(err,
					     QUIC_TRANSPORT_ERROR_FLOW_CONTROL);
	if (end <= s->recv.highest)
		return 0;
	delta = end - s->recv.highest;
	if (delta > t->recv.max - t->recv.highest)
		return quic_stream_proto_err(err,
					     QUIC_TRANSPORT_ERROR_FLOW_CONTROL);
	t->recv.highest += delta;
	s->recv.highest = end;
	return 0;
}

/* First chunk ending after @offset, or NULL. */
static struct rb_node *quic_stream_chunk_after(struct quic_stream *s,
					       u64 offset)
{
	struct rb_node *n = s->chunks.rb_node, *best = NULL;

	while (n) {
		struct quic_stream_chunk *c =
			rb_entry(n, struct quic_stream_chunk, node);

		if (quic_chunk_end(c) > offset) {
			best = n;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	return best;
}

/* Store [@offset, @offset + @len) of @data in a new chunk: a copy, or
 * with @skb a reference to it, which holds @data. The chunk is charged
 * its slab size, and @skb's truesize when it references it.
 */
static int quic_stream_chunk_add(struct quic_stream_table *t,
				 struct quic_stream *s, u64 offset,
				 const u8 *data, u32 len, struct sk_buff *skb)
{
	struct rb_node **p = &s->chunks.rb_node, *parent = NULL;
	size_t n = skb ? sizeof(struct quic_stream_ref) : len;
	struct quic_stream_chunk *c;
	struct quic_stream_ref *r;
	u32 size;
	int ret;

	size = kmalloc_size_roundup(struct_size(c, data, n));
	if (skb)
		size += skb->truesize;
	if (t->charge) {
		ret = t->charge(t->charge_ctx, size);
		if (ret)
			return ret;
	}
	c = kmalloc(struct_size(c, data, n), GFP_ATOMIC | __GFP_NOWARN);
	if (!c) {
		if (t->charge)
			t->charge(t->charge_ctx, -(int)size);
		return -ENOMEM;
	}
	c->offset = offset;
	c->len = len;
	c->size = size;
	c->ref = !!skb;
	if (skb) {
		r = (struct quic_stream_ref *)c->data;
		r->skb = skb_get(skb);
		r->bytes = data;
	} else {
		memcpy(c->data, data, len);
	}
	t->mem += size;
	while (*p) {
		parent = *p;
		if (offset < rb_entry(parent, struct quic_stream_chunk,
				      node)->offset)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&c->node, parent, p);
	rb_insert_color(&c->node, &s->chunks);
	return 0;
}

/* Store the bytes of [@start, @end) that no chunk holds yet. The gap at
 * the front, which makes data readable, references @skb when it is more
 * than half of its truesize (at most one gap of a packet can be); other
 * gaps are copied, in pieces of at most a page. Out-of-order data is
 * thus never kept by reference: a peer that leaves the front gap open
 * cannot make packets pin more than they are charged (an skb's truesize
 * does not count the rest of a page fragment it shares).
 */
static int quic_stream_store(struct quic_stream_table *t,
			     struct quic_stream *s, u64 offset,
			     const u8 *data, u64 start, u64 end,
			     struct sk_buff *skb)
{
	struct rb_node *n = quic_stream_chunk_after(s, start);
	struct sk_buff *ref;
	int ret;

	while (start < end) {
		struct quic_stream_chunk *c =
			n ? rb_entry(n, struct quic_stream_chunk, node) : NULL;
		u64 gap_end;

		if (c && c->offset <= start) {
			start = quic_chunk_end(c);
			n = rb_next(n);
			continue;
		}
		gap_end = c ? min(end, c->offset) : end;
		ref = skb && start == s->contig &&
		      2 * (gap_end - start) > skb->truesize ? skb : NULL;
		if (!ref)
			gap_end = start + quic_chunk_piece(gap_end - start);
		ret = quic_stream_chunk_add(t, s, start, data + (start - offset),
					    gap_end - start, ref);
		if (ret)
			return ret;
		start = gap_end;
	}
	return 0;
}

/* Advance @s->contig over the chunks that continue it. */
static void quic_stream_advance_contig(struct quic_stream *s)
{
	struct rb_node *n = quic_stream_chunk_after(s, s->contig);

	while (n) {
		struct quic_stream_chunk *c =
			rb_entry(n, struct quic_stream_chunk, node);

		if (c->offset > s->contig)
			break;
		s->contig = quic_chunk_end(c);
		n = rb_next(n);
	}
}

/* The body of quic_stream_recv_data(). */
static int __quic_stream_recv_data(struct quic_stream_table *t,
				   struct quic_stream *s, u64 offset,
				   const void *data, u64 len, bool fin,
				   struct sk_buff *skb, u64 *err)
{
	bool bad;
	u64 end;
	int ret;

	if (!quic_stream_id_recv(t, s->id))
		return quic_stream_proto_err(err,
					     QUIC_TRANSPORT_ERROR_STREAM_STATE);
	if (offset > QUIC_STREAM_MAX_OFFSET ||
	    len > QUIC_STREAM_MAX_OFFSET - offset)
		return quic_stream_proto_err(err,
					     QUIC_TRANSPORT_ERROR_FLOW_CONTROL);
	end = offset + len;
	if (s->final_known)
		bad = end > s->final_size || (fin && end != s->final_size);
	else
		bad = fin && end < s->recv.highest;
	if (bad)
		return quic_stream_proto_err(err,
					     QUIC_TRANSPORT_ERROR_FINAL_SIZE);
	ret = quic_stream_recv_account(t, s, end, err);
	if (ret)
		return ret;
	if (fin && !s->final_known) {
		s->final_known = true;
		s->final_size = end;
		if (s->recv_state == QUIC_STREAM_RECV_STATE_RECV)
			s->recv_state = QUIC_STREAM_RECV_STATE_SIZE_KNOWN;
	}
	if (s->recv_state != QUIC_STREAM_RECV_STATE_RECV &&
	    s->recv_state != QUIC_STREAM_RECV_STATE_SIZE_KNOWN)
		return 0;
	if (end > s->recv.read) {
		ret = quic_stream_store(t, s, offset, data,
					max(offset, s->recv.read), end, skb);
		quic_stream_advance_contig(s);
		if (ret)
			return ret;
	}
	if (s->final_known && s->contig >= s->final_size)
		quic_stream_set_recv_state(s, QUIC_STREAM_RECV_STATE_RECVD);
	return 0;
}

/**
 * quic_stream_recv_skb() - a STREAM frame was received in a packet
 * @t: the table
 * @s: the stream, from quic_stream_recv_get() without @send_part
 * @offset: the frame's offset
 * @data: its data
 * @len: its length
 * @fin: it carries the FIN bit
 * @skb: the decrypted packet's skb that holds @data and stays as it is,
 *	or NULL: the bytes kept are copied
 * @err: transport error code on -EPROTO
 *
 * Checks the final size (RFC 9000, section 4.5) and both receive limits,
 * then stores the bytes not already held, charging them.  In-order bytes
 * that are more than half of @skb's truesize are not copied: the chunk
 * references @skb and is charged its truesize (as a TCP receive queue
 * would be); out-of-order bytes are always copied.  Moves the
 * receiving part to Size Known on a FIN and to Data Recvd once every byte
 * up to the final size is held.  Data on a reset stream is ignored.
 *
 * Return: 0; -EPROTO with FINAL_SIZE_ERROR, FLOW_CONTROL_ERROR or
 * STREAM_STATE_ERROR; -ENOBUFS or -ENOMEM (drop the packet; bytes already
 * stored stay, so the retransmission costs nothing twice).
 */
int quic_stream_recv_skb(struct quic_stream_table *t, struct quic_stream *s,
			 u64 offset, const void *data, u64 len, bool fin,
			 struct sk_buff *skb, u64 *err)
{
	int ret = __quic_stream_recv_data(t, s, offset, data, len, fin, skb,
					  err);

	quic_stream_rx_update(t, s);
	return ret;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_recv_skb);

/**
 * quic_stream_recv_data() - a STREAM frame was received; its bytes kept
 *	are copied
 * @t: the table
 * @s: the stream
 * @offset: the frame's offset
 * @data: its data
 * @len: its length
 * @fin: it carries the FIN bit
 * @err: transport error code on -EPROTO
 *
 * quic_stream_recv_skb() without an skb.
 *
 * Return: as quic_stream_recv_skb().
 */
int quic_stream_recv_data(struct quic_stream_table *t, struct quic_stream *s,
			  u64 offset, const void *data, u64 len, bool fin,
			  u64 *err)
{
	return quic_stream_recv_skb(t, s, offset, data, len, fin, NULL, err);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_recv_data);

/**
 * quic_stream_recv_reset() - a RESET_STREAM frame was received
 * @t: the table
 * @s: the stream, from quic_stream_recv_get() without @send_part
 * @errcode: the peer's application error code
 * @final_size: the frame's final size
 * @err: transport error code on -EPROTO
 *
 * Unless all data was already received (then the reset is ignored, as RFC
 * 9000 section 3.2 allows), drops the buffered data, read or not, and
 * gives its connection credit back.  quic-api.rst 5.4: the application
 * learns of the reset by an event, never from recvmsg(), so the receiving
 * part goes through Reset Recvd straight to Reset Read.
 *
 * Return: 1 if the stream was reset now, 0 if the frame changed nothing,
 * or -EPROTO with FINAL_SIZE_ERROR, FLOW_CONTROL_ERROR or
 * STREAM_STATE_ERROR.
 */
int quic_stream_recv_reset(struct quic_stream_table *t, struct quic_stream *s,
			   u64 errcode, u64 final_size, u64 *err)
{
	int ret;

	if (!quic_stream_id_recv(t, s->id))
		return quic_stream_proto_err(err,
					     QUIC_TRANSPORT_ERROR_STREAM_STATE);
	if (final_size > QUIC_STREAM_MAX_OFFSET)
		return quic_stream_proto_err(err,
					     QUIC_TRANSPORT_ERROR_FLOW_CONTROL);
	if ((s->final_known && final_size != s->final_size) ||
	    final_size < s->recv.highest)
		return quic_stream_proto_err(err,
					     QUIC_TRANSPORT_ERROR_FINAL_SIZE);
	ret = quic_stream_recv_account(t, s, final_size, err);
	if (ret)
		return ret;
	s->final_known = true;
	s->final_size = final_size;
	if (quic_stream_set_recv_state(s, QUIC_STREAM_RECV_STATE_RESET_RECVD))
		return 0;
	quic_stream_purge(t, s);
	t->recv.read += final_size - s->recv.read;
	s->recv.read = final_size;
	s->contig = final_size;
	s->recv_errcode = errcode;
	quic_stream_set_recv_state(s, QUIC_STREAM_RECV_STATE_RESET_READ);
	quic_stream_rx_update(t, s);
	return 1;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_recv_reset);

/**
 * quic_stream_read() - read the in-order data of a stream
 * @t: the table
 * @s: the stream
 * @to: where to copy
 * @fin: set when the bytes returned end the stream
 *
 * Frees the chunks read and gives their memory back.  Reading the end of
 * the stream moves it to Data Read (a reset stream is in Reset Read
 * already, see quic_stream_recv_reset()).  Then see
 * quic_stream_window_update(), quic_fc_recv_update() on @t->recv and
 * quic_stream_release().
 *
 * Return: bytes copied (0 if none are in order yet, for a bare FIN, or
 * for a reset stream, whose data is gone), -EINVAL for a stream we cannot
 * receive on, -EFAULT if nothing could be copied.
 */
ssize_t quic_stream_read(struct quic_stream_table *t, struct quic_stream *s,
			 struct iov_iter *to, bool *fin)
{
	struct rb_node *n;
	size_t copied = 0;

	*fin = false;
	if (!quic_stream_id_recv(t, s->id))
		return -EINVAL;
	if (s->recv_state >= QUIC_STREAM_RECV_STATE_RESET_RECVD)
		return 0;
	while ((n = rb_first(&s->chunks))) {
		struct quic_stream_chunk *c =
			rb_entry(n, struct quic_stream_chunk, node);
		size_t skip, want, got;

		if (c->offset > s->recv.read)
			break;
		skip = s->recv.read - c->offset;
		want = min_t(size_t, c->len - skip, iov_iter_count(to));
		if (!want)
			break;
		got = copy_to_iter(quic_chunk_bytes(c) + skip, want, to);
		s->recv.read += got;
		copied += got;
		if (skip + got == c->len) {
			rb_erase(n, &s->chunks);
			quic_chunk_free(t, c);
		}
		if (got < want) {
			if (!copied)
				return -EFAULT;
			break;
		}
	}
	t->recv.read += copied;
	if (s->final_known && s->recv.read == s->final_size &&
	    s->recv_state == QUIC_STREAM_RECV_STATE_RECVD) {
		quic_stream_set_recv_state(s, QUIC_STREAM_RECV_STATE_READ);
		*fin = true;
	}
	/* A stream with more to read goes behind the others. */
	quic_stream_rx_update(t, s);
	if (!list_empty(&s->rx_node))
		list_move_tail(&s->rx_node, &t->readable);
	return copied;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_read);

/**
 * quic_stream_peek() - copy the in-order data of a stream, leaving it
 * @t: the table
 * @s: the stream
 * @to: where to copy
 * @fin: set when the bytes copied reach the end of the stream
 *
 * What quic_stream_read() would return, for MSG_PEEK: nothing changes.
 *
 * Return: bytes copied, -EINVAL for a stream we cannot receive on,
 * -EFAULT if nothing could be copied.
 */
ssize_t quic_stream_peek(const struct quic_stream_table *t,
			 const struct quic_stream *s, struct iov_iter *to,
			 bool *fin)
{
	u64 pos = s->recv.read;
	size_t copied = 0;
	struct rb_node *n;

	*fin = false;
	if (!quic_stream_id_recv(t, s->id))
		return -EINVAL;
	if (s->recv_state >= QUIC_STREAM_RECV_STATE_RESET_RECVD)
		return 0;
	for (n = rb_first(&s->chunks); n; n = rb_next(n)) {
		const struct quic_stream_chunk *c =
			rb_entry(n, struct quic_stream_chunk, node);
		size_t skip, want, got;

		if (c->offset > pos)
			break;
		if (quic_chunk_end(c) <= pos)
			continue;
		skip = pos - c->offset;
		want = min_t(size_t, c->len - skip, iov_iter_count(to));
		if (!want)
			break;
		got = copy_to_iter(quic_chunk_bytes(c) + skip, want, to);
		pos += got;
		copied += got;
		if (got < want) {
			if (!copied)
				return -EFAULT;
			break;
		}
	}
	*fin = s->final_known && pos == s->final_size &&
	       s->recv_state == QUIC_STREAM_RECV_STATE_RECVD;
	return copied;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_peek);

/**
 * quic_stream_stop_sending() - the application asks the peer to stop
 * @s: the stream
 *
 * The caller sends STOP_SENDING; the peer answers with RESET_STREAM.
 *
 * Return: 0; -EINVAL if we cannot receive on the stream or its receiving
 * part is in Data Recvd or beyond; -EAGAIN if a STOP_SENDING was already
 * sent.
 */
int quic_stream_stop_sending(struct quic_stream *s)
{
	if (s->recv_state != QUIC_STREAM_RECV_STATE_RECV &&
	    s->recv_state != QUIC_STREAM_RECV_STATE_SIZE_KNOWN)
		return -EINVAL;
	if (s->stop_sending)
		return -EAGAIN;
	s->stop_sending = true;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_stop_sending);

/**
 * quic_fc_recv_update() - whether to advertise a larger receive limit
 * @fc: a connection or stream receive window
 * @now: current time, any monotonic unit (0 is treated as 1)
 * @rtt: smoothed RTT in the same unit
 *
 * Called after the application read.  Once less than half the window is
 * left to the peer, the limit moves to @read + @window.  If the previous
 * move was less than two RTTs ago the peer is limited by the window rather
 * than by the path, so the window doubles first, up to @window_max (the
 * auto-tuning of TCP's receive buffer, RFC 9000 section 4.2).
 *
 * Return: true if @fc->max rose: send MAX_DATA or MAX_STREAM_DATA with it.
 */
bool quic_fc_recv_update(struct quic_fc_recv *fc, u64 now, u64 rtt)
{
	u64 want;

	if (2 * (fc->max - fc->read) >= fc->window)
		return false;
	if (fc->epoch && now - fc->epoch < 2 * rtt &&
	    fc->window < fc->window_max)
		fc->window = min(fc->window * 2, fc->window_max);
	fc->epoch = now ?: 1;
	want = min(fc->read + fc->window, QUIC_STREAM_MAX_OFFSET);
	if (want <= fc->max)
		return false;
	fc->max = want;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_fc_recv_update);

/**
 * quic_stream_window_update() - whether to send MAX_STREAM_DATA
 * @s: the stream
 * @now: current time
 * @rtt: smoothed RTT
 *
 * As quic_fc_recv_update(), only while more data is expected (the
 * receiving part is in Recv).
 *
 * Return: true if @s->recv.max rose.
 */
bool quic_stream_window_update(struct quic_stream *s, u64 now, u64 rtt)
{
	if (s->recv_state != QUIC_STREAM_RECV_STATE_RECV)
		return false;
	return quic_fc_recv_update(&s->recv, now, rtt);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_window_update);

/**
 * quic_stream_readable() - whether recvmsg() has something for a stream
 * @t: the table
 * @s: the stream
 *
 * Return: true if @s has in-order bytes or its FIN.
 */
bool quic_stream_readable(const struct quic_stream_table *t,
			  const struct quic_stream *s)
{
	if (!quic_stream_id_recv(t, s->id))
		return false;
	switch (s->recv_state) {
	case QUIC_STREAM_RECV_STATE_RECV:
	case QUIC_STREAM_RECV_STATE_SIZE_KNOWN:
		return s->contig > s->recv.read;
	case QUIC_STREAM_RECV_STATE_RECVD:
		return true;	/* bytes, or at least the FIN */
	}
	return false;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_readable);

/**
 * quic_stream_rx_update() - put a stream on or off the readable list
 * @t: the table
 * @s: the stream
 *
 * The receive functions of this file call it themselves; a stream that
 * becomes readable goes to the tail of the list.
 */
void quic_stream_rx_update(struct quic_stream_table *t, struct quic_stream *s)
{
	bool r = quic_stream_readable(t, s);

	if (r && list_empty(&s->rx_node))
		list_add_tail(&s->rx_node, &t->readable);
	else if (!r && !list_empty(&s->rx_node))
		list_del_init(&s->rx_node);
}

/**
 * quic_stream_first_readable() - the stream recvmsg() reads next
 * @t: the table
 *
 * Return: the readable stream that waited longest, or NULL.
 */
struct quic_stream *quic_stream_first_readable(struct quic_stream_table *t)
{
	return list_first_entry_or_null(&t->readable, struct quic_stream,
					rx_node);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_first_readable);

static void quic_stream_ctl_queue(struct quic_stream_table *t,
				  struct quic_stream *s, u8 ctl)
{
	s->ctl_pending |= ctl;
	if (list_empty(&s->ctl_node))
		list_add_tail(&s->ctl_node, &t->ctl);
}

/**
 * quic_stream_app_reset() - the application resets a stream
 * @t: the table
 * @s: the stream, one we may send on
 * @errcode: application error code for RESET_STREAM
 *
 * Moves the sending part to Reset Sent and queues RESET_STREAM with the
 * final size @s->send.used (see quic_stream_ctl_sent()).
 *
 * Return: 0, or -EINVAL if the sending part is in Data Recvd or was reset.
 */
int quic_stream_app_reset(struct quic_stream_table *t, struct quic_stream *s,
			  u64 errcode)
{
	if (!quic_stream_id_send(t, s->id) || quic_stream_reset(s, errcode))
		return -EINVAL;
	s->ctl_pending &= ~QUIC_STREAM_CTL_BLOCKED;
	s->ctl_unacked &= ~QUIC_STREAM_CTL_BLOCKED;
	quic_stream_ctl_queue(t, s, QUIC_STREAM_CTL_RESET);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_app_reset);

/**
 * quic_stream_app_stop_sending() - the application asks the peer to stop
 * @t: the table
 * @s: the stream
 * @errcode: application error code for STOP_SENDING
 *
 * Return: as quic_stream_stop_sending(); on 0 STOP_SENDING is queued.
 */
int quic_stream_app_stop_sending(struct quic_stream_table *t,
				 struct quic_stream *s, u64 errcode)
{
	int ret;

	if (!quic_stream_id_recv(t, s->id))
		return -EINVAL;
	ret = quic_stream_stop_sending(s);
	if (ret)
		return ret;
	s->stop_errcode = errcode;
	quic_stream_ctl_queue(t, s, QUIC_STREAM_CTL_STOP);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_app_stop_sending);

/**
 * quic_stream_recv_stop_sending() - a STOP_SENDING frame was received
 * @t: the table
 * @s: the stream, from quic_stream_recv_get() with @send_part
 * @errcode: the peer's application error code
 *
 * RFC 9000 section 3.5: the stream is reset with the peer's code and
 * RESET_STREAM is queued.
 *
 * Return: 1 if the stream was reset now (report SEND_STATE_RESET_SENT),
 * 0 if it was already reset or all its data was acknowledged.
 */
int quic_stream_recv_stop_sending(struct quic_stream_table *t,
				  struct quic_stream *s, u64 errcode)
{
	if (!quic_stream_peer_stop_sending(s, errcode))
		return 0;
	s->ctl_pending &= ~QUIC_STREAM_CTL_BLOCKED;
	s->ctl_unacked &= ~QUIC_STREAM_CTL_BLOCKED;
	quic_stream_ctl_queue(t, s, QUIC_STREAM_CTL_RESET);
	return 1;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_recv_stop_sending);

/**
 * quic_stream_ctl_sent() - a control frame of a stream went into a packet
 * @t: the table
 * @s: the stream
 * @ctl: one QUIC_STREAM_CTL_* bit
 */
void quic_stream_ctl_sent(struct quic_stream_table *t, struct quic_stream *s,
			  u8 ctl)
{
	s->ctl_pending &= ~ctl;
	s->ctl_unacked |= ctl;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_ctl_sent);

/**
 * quic_stream_ctl_acked() - a packet with a control frame was acknowledged
 * @t: the table
 * @s: the stream
 * @ctl: one QUIC_STREAM_CTL_* bit
 *
 * An acknowledged RESET_STREAM moves the sending part to Reset Recvd;
 * the caller reports it and then calls quic_stream_release().
 *
 * Return: true if the sending part moved to Reset Recvd.
 */
bool quic_stream_ctl_acked(struct quic_stream_table *t, struct quic_stream *s,
			   u8 ctl)
{
	bool reset = false;

	if (!(s->ctl_unacked & ctl))
		return false;
	s->ctl_unacked &= ~ctl;
	s->ctl_pending &= ~ctl;
	if (ctl == QUIC_STREAM_CTL_RESET)
		reset = !quic_stream_set_send_state(s,
				QUIC_STREAM_SEND_STATE_RESET_RECVD);
	if (!s->ctl_pending && !s->ctl_unacked)
		list_del_init(&s->ctl_node);
	return reset;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_ctl_acked);

/**
 * quic_stream_ctl_lost() - a packet with a control frame of a stream was
 *	lost
 * @t: the table
 * @s: the stream
 * @ctl: one QUIC_STREAM_CTL_* bit
 *
 * The frame is queued again unless it was acknowledged since (or already
 * queued again), or no longer needed: a STOP_SENDING once the receiving
 * part has all it needs, a STREAM_DATA_BLOCKED once credit arrived.
 *
 * Return: true if the frame is queued again.
 */
bool quic_stream_ctl_lost(struct quic_stream_table *t, struct quic_stream *s,
			  u8 ctl)
{
	if (!(s->ctl_unacked & ctl))
		return false;
	s->ctl_unacked &= ~ctl;
	s->ctl_pending |= ctl;
	if (s->recv_state != QUIC_STREAM_RECV_STATE_RECV &&
	    s->recv_state != QUIC_STREAM_RECV_STATE_SIZE_KNOWN)
		s->ctl_pending &= ~QUIC_STREAM_CTL_STOP;
	if (s->send.used < s->send.max || s->send.blocked_at != s->send.max)
		s->ctl_pending &= ~QUIC_STREAM_CTL_BLOCKED;
	if (!s->ctl_pending && !s->ctl_unacked)
		list_del_init(&s->ctl_node);
	return s->ctl_pending & ctl;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_ctl_lost);

/**
 * quic_stream_conn_ctl_lost() - a packet with a connection-level frame
 *	(MAX_STREAMS, DATA_BLOCKED, STREAMS_BLOCKED) was lost
 * @t: the table
 * @bit: its QUIC_STREAM_MAX_STREAMS_* or QUIC_STREAM_BLOCKED_CONN_* bit
 *
 * MAX_STREAMS goes again with the current limit; a *_BLOCKED only while
 * still blocked at the limit it reported.
 *
 * Return: true if the frame is queued again.
 */
bool quic_stream_conn_ctl_lost(struct quic_stream_table *t, u8 bit)
{
	u8 type = t->is_server;

	if (bit == QUIC_STREAM_BLOCKED_CONN_DATA &&
	    (t->send.used < t->send.max || t->send.blocked_at != t->send.max))
		return false;
	if (bit == QUIC_STREAM_BLOCKED_CONN_UNI)
		type |= QUIC_STREAM_TYPE_UNI_MASK;
	if ((bit == QUIC_STREAM_BLOCKED_CONN_BIDI ||
	     bit == QUIC_STREAM_BLOCKED_CONN_UNI) &&
	    (t->kind[type].next < t->kind[type].limit ||
	     t->kind[type].blocked_at != t->kind[type].limit))
		return false;
	t->blocked_pending |= bit;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_conn_ctl_lost);

/**
 * quic_stream_out_hold() - a chunk of the stream's data was queued
 * @s: the stream
 */
void quic_stream_out_hold(struct quic_stream *s)
{
	s->out_chunks++;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_out_hold);

/**
 * quic_stream_out_put() - a chunk of the stream's data left the queue
 *	(delivered or dropped)
 * @s: the stream
 *
 * Return: true if none is left.
 */
bool quic_stream_out_put(struct quic_stream *s)
{
	return !--s->out_chunks;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_out_put);

/**
 * quic_stream_blocked() - the application cannot send on a stream for
 *	lack of flow-control credit
 * @t: the table
 * @s: the stream
 *
 * Queues DATA_BLOCKED and/or STREAM_DATA_BLOCKED, once per limit.
 */
void quic_stream_blocked(struct quic_stream_table *t, struct quic_stream *s)
{
	u32 flags = quic_stream_send_blocked(t, s);

	if (flags & QUIC_STREAM_BLOCKED_DATA)
		t->blocked_pending |= QUIC_STREAM_BLOCKED_CONN_DATA;
	if (flags & QUIC_STREAM_BLOCKED_STREAM)
		quic_stream_ctl_queue(t, s, QUIC_STREAM_CTL_BLOCKED);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_blocked);

/**
 * quic_stream_open_blocked() - the application cannot open a stream for
 *	lack of stream credit
 * @t: the table
 * @uni: a unidirectional stream
 *
 * Queues STREAMS_BLOCKED, once per limit.
 */
void quic_stream_open_blocked(struct quic_stream_table *t, bool uni)
{
	u64 limit;

	if (quic_stream_streams_blocked(t, uni, &limit))
		t->blocked_pending |= uni ? QUIC_STREAM_BLOCKED_CONN_UNI :
					    QUIC_STREAM_BLOCKED_CONN_BIDI;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_open_blocked);

/**
 * quic_stream_walk() - call @fn for each open stream until it says stop
 * @t: the table
 * @fn: called with each stream; returns false to stop the walk
 * @ctx: passed to @fn
 *
 * Any order. @fn must not free or add streams.
 *
 * Return: true if every stream was visited.
 */
bool quic_stream_walk(struct quic_stream_table *t,
		      bool (*fn)(struct quic_stream *st, void *ctx), void *ctx)
{
	struct quic_stream *st;
	u32 bkt;

	for (bkt = 0; bkt < (1U << t->bits); bkt++)
		hlist_for_each_entry(st, &t->buckets[bkt], node)
			if (!fn(st, ctx))
				return false;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_stream_walk);
