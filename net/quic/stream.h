/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC streams and flow control (RFC 9000, sections 2, 3 and 4), without
 * any socket state: the stream table of one connection, the send and
 * receive state machines of each stream, connection- and stream-level flow
 * control with receive windows that grow with the transfer, and the
 * out-of-order reassembly of received stream data.
 *
 * Errors.  Functions that process something a peer sent return 0 or a
 * negative errno; -EPROTO means the peer violated the protocol and the
 * connection must be closed with the transport error code stored in *@err
 * (QUIC_TRANSPORT_ERROR_*).  Functions returning a stream return it, NULL
 * (the stream was closed and freed: ignore the frame) or an ERR_PTR() with
 * the same convention.  -ENOMEM and -ENOBUFS (the memory charge was refused)
 * mean "drop the packet without acknowledging it"; the peer retransmits.
 *
 * Memory.  Every byte of buffered received data, plus its bookkeeping, is
 * charged through the table's charge callback (the socket layer maps it to
 * sk_rmem_alloc), which may refuse.  Buffered data is bounded by the stream
 * and connection receive windows and duplicate or overlapping data is
 * stored once.  Stream objects are bounded by the stream limits: a peer
 * can open at most as many streams as we allow, and closed streams are
 * freed by quic_stream_release().
 *
 * Locking: none inside; the caller serialises all calls on one table (the
 * socket lock).
 */
#ifndef _NET_QUIC_STREAM_H
#define _NET_QUIC_STREAM_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>
#include <linux/uio.h>
#include <linux/quic.h>

struct sk_buff;

/* Largest stream offset and stream count (RFC 9000, sections 4.5, 4.6). */
#define QUIC_STREAM_MAX_OFFSET	(BIT_ULL(62) - 1)
#define QUIC_STREAM_MAX_COUNT	BIT_ULL(60)
/* Our streams of one type allocated at once, whatever the peer allows:
 * opening an ID opens every lower one, and a peer may allow 2^60.
 */
#define QUIC_STREAM_LOCAL_LIVE	8192

/**
 * struct quic_stream_params - flow-control transport parameters of one side
 * @max_data: initial_max_data
 * @max_stream_data_bidi_local: initial_max_stream_data_bidi_local
 * @max_stream_data_bidi_remote: initial_max_stream_data_bidi_remote
 * @max_stream_data_uni: initial_max_stream_data_uni
 * @max_streams_bidi: initial_max_streams_bidi
 * @max_streams_uni: initial_max_streams_uni
 */
struct quic_stream_params {
	u64 max_data;
	u64 max_stream_data_bidi_local;
	u64 max_stream_data_bidi_remote;
	u64 max_stream_data_uni;
	u64 max_streams_bidi;
	u64 max_streams_uni;
};

/**
 * struct quic_fc_send - send credit granted by the peer
 * @max: the peer's limit (initial_max_*, MAX_DATA, MAX_STREAM_DATA)
 * @used: bytes (highest offset) handed to the sending path
 * @blocked_at: @max when we last asked for a *_BLOCKED frame, or U64_MAX
 */
struct quic_fc_send {
	u64 max;
	u64 used;
	u64 blocked_at;
};

/**
 * struct quic_fc_recv - receive window that we advertise
 * @max: the limit advertised to the peer
 * @highest: highest offset (sum of them, for the connection) received
 * @read: bytes consumed by the application (or given up by a reset)
 * @window: current window size; @max is raised to @read + @window
 * @window_max: @window never grows beyond this
 * @epoch: time of the last window update, 0 before the first
 */
struct quic_fc_recv {
	u64 max;
	u64 highest;
	u64 read;
	u64 window;
	u64 window_max;
	u64 epoch;
};

/**
 * struct quic_stream - one stream
 * @node: link in the table's hash bucket
 * @rx_node: link in the table's list of readable streams, or empty
 * @ctl_node: link in the table's list of streams with control frames
 *	to send or awaiting acknowledgment, or empty
 * @chunks: received data not yet read, by offset, without overlaps
 * @id: stream ID
 * @send: send credit of the stream
 * @recv: receive window of the stream
 * @contig: received data is contiguous from @recv.read up to here
 * @final_size: final size, when @final_known
 * @send_errcode: application error code of our RESET_STREAM
 * @recv_errcode: application error code of the peer's RESET_STREAM
 * @send_state: QUIC_STREAM_SEND_STATE_*
 * @recv_state: QUIC_STREAM_RECV_STATE_*
 * @stop_errcode: application error code of our STOP_SENDING
 * @ctl_pending: QUIC_STREAM_CTL_* frames to send
 * @ctl_unacked: QUIC_STREAM_CTL_* frames sent and not acknowledged
 * @out_chunks: chunks of its data in the send queue (sendq.c)
 * @final_known: the peer's final size is known (FIN or RESET_STREAM)
 * @stop_sending: we sent STOP_SENDING
 * @retired: counted in @closed of its kind (quic-api.rst 5.3): its
 *	sending part is done and all its data (or a reset) has arrived,
 *	though unread data may keep it allocated
 *
 * A stream without a receiving part (our unidirectional stream) starts in
 * QUIC_STREAM_RECV_STATE_READ and one without a sending part (the peer's
 * unidirectional stream) in QUIC_STREAM_SEND_STATE_RECVD: both terminal.
 */
struct quic_stream {
	struct hlist_node node;
	struct list_head rx_node;
	struct list_head ctl_node;
	struct rb_root chunks;
	s64 id;
	struct quic_fc_send send;
	struct quic_fc_recv recv;
	u64 contig;
	u64 final_size;
	u64 send_errcode;
	u64 recv_errcode;
	u64 stop_errcode;
	u8 send_state;
	u8 recv_state;
	u8 ctl_pending;
	u8 ctl_unacked;
	u32 out_chunks;
	bool final_known;
	bool stop_sending;
	bool retired;
};

/**
 * struct quic_stream_kind - the streams of one type (id & 3)
 * @next: streams opened so far: the next unopened ID is @next << 2 | type
 * @limit: streams that may be opened (the peer's limit for our types,
 *	the one we advertise for the peer's types)
 * @closed: streams of this type retired so far (see quic_stream_retire())
 * @lingering: retired streams still allocated, kept for unread data
 * @target: for the peer's types, how many may be open at once
 * @blocked_at: @limit when we last asked for STREAMS_BLOCKED, or U64_MAX
 * @live: streams of this type allocated now
 */
struct quic_stream_kind {
	u64 next;
	u64 limit;
	u64 closed;
	u64 lingering;
	u64 target;
	u64 blocked_at;
	u64 live;
};

/**
 * typedef quic_stream_charge_t - memory accounting callback
 * @ctx: the table's charge context
 * @bytes: bytes to charge (> 0), or to give back (< 0)
 *
 * Return: 0, or -ENOBUFS to refuse a charge (never refuses giving back).
 */
typedef int (*quic_stream_charge_t)(void *ctx, int bytes);

/**
 * struct quic_stream_table - the streams and flow control of a connection
 * @buckets: hash table of the open streams, indexed by quic_fast_hash_u64()
 * @bits: log2 of the number of buckets
 * @max_bits: the most @bits grows to, from the stream limits we advertise
 * @is_server: our role, which decides the parity of our stream IDs
 * @count: streams allocated
 * @mem: bytes currently charged
 * @kind: per stream type (id & QUIC_STREAM_TYPE_MASK)
 * @send: connection-level send credit
 * @recv: connection-level receive window
 * @local: our transport parameters
 * @peer: the peer's transport parameters
 * @stream_window_max: the largest a stream receive window grows to
 * @readable: streams with data, a FIN or a reset to read, oldest first
 * @ctl: streams with RESET_STREAM, STOP_SENDING or STREAM_DATA_BLOCKED
 *	to send or awaiting acknowledgment
 * @blocked_pending: connection-level frames to send: QUIC_STREAM_BLOCKED_CONN_*
 *	and QUIC_STREAM_MAX_STREAMS_*
 * @charge: memory accounting callback
 * @charge_ctx: its context
 */
struct quic_stream_table {
	struct hlist_head *buckets;
	u8 bits;
	u8 max_bits;
	bool is_server;
	u32 count;
	u64 mem;
	struct quic_stream_kind kind[4];
	struct quic_fc_send send;
	struct quic_fc_recv recv;
	struct quic_stream_params local;
	struct quic_stream_params peer;
	u64 stream_window_max;
	struct list_head readable;
	struct list_head ctl;
	u8 blocked_pending;
	quic_stream_charge_t charge;
	void *charge_ctx;
};

/* What quic_stream_send_blocked() asks the caller to send. */
#define QUIC_STREAM_BLOCKED_DATA	0x1	/* DATA_BLOCKED */
#define QUIC_STREAM_BLOCKED_STREAM	0x2	/* STREAM_DATA_BLOCKED */

/* Connection-level *_BLOCKED frames waiting in @blocked_pending. */
#define QUIC_STREAM_BLOCKED_CONN_DATA	0x1	/* DATA_BLOCKED */
#define QUIC_STREAM_BLOCKED_CONN_BIDI	0x2	/* STREAMS_BLOCKED (bidi) */
#define QUIC_STREAM_BLOCKED_CONN_UNI	0x4	/* STREAMS_BLOCKED (uni) */
#define QUIC_STREAM_MAX_STREAMS_BIDI	0x8	/* MAX_STREAMS (bidi) again */
#define QUIC_STREAM_MAX_STREAMS_UNI	0x10	/* MAX_STREAMS (uni) again */

/* Per-stream control frames (@ctl_pending, @ctl_unacked). */
#define QUIC_STREAM_CTL_RESET		0x1	/* RESET_STREAM */
#define QUIC_STREAM_CTL_STOP		0x2	/* STOP_SENDING */
#define QUIC_STREAM_CTL_BLOCKED		0x4	/* STREAM_DATA_BLOCKED */

/* How far receive windows grow beyond the initial transport parameters. */
#define QUIC_STREAM_WINDOW_GROWTH	4

/* Stream IDs. */
static inline bool quic_stream_id_uni(s64 id)
{
	return id & QUIC_STREAM_TYPE_UNI_MASK;
}

static inline bool quic_stream_id_local(const struct quic_stream_table *t,
					s64 id)
{
	return (id & QUIC_STREAM_TYPE_SERVER_MASK) == t->is_server;
}

/* Whether we may send on @id, and whether we may receive on it. */
static inline bool quic_stream_id_send(const struct quic_stream_table *t,
				       s64 id)
{
	return !quic_stream_id_uni(id) || quic_stream_id_local(t, id);
}

static inline bool quic_stream_id_recv(const struct quic_stream_table *t,
				       s64 id)
{
	return !quic_stream_id_uni(id) || !quic_stream_id_local(t, id);
}

/* Table. */
int quic_stream_table_init(struct quic_stream_table *t, bool is_server,
			   const struct quic_stream_params *local,
			   u64 conn_window_max, u64 stream_window_max,
			   quic_stream_charge_t charge, void *charge_ctx);
void quic_stream_table_free(struct quic_stream_table *t);
int quic_stream_set_peer(struct quic_stream_table *t,
			 const struct quic_stream_params *peer, u64 *err);
struct quic_stream *quic_stream_find(const struct quic_stream_table *t,
				     s64 id);
void quic_stream_retire(struct quic_stream_table *t, struct quic_stream *s);
bool quic_stream_release(struct quic_stream_table *t, struct quic_stream *s);

/* Opening streams. */
struct quic_stream *quic_stream_send_get(struct quic_stream_table *t, s64 id,
					 bool uni, bool open);
struct quic_stream *quic_stream_recv_get(struct quic_stream_table *t, s64 id,
					 bool send_part, u64 *err);
int quic_stream_peer_max_streams(struct quic_stream_table *t, bool uni,
				 u64 count, s64 *max_id, u64 *err);
bool quic_stream_open_allowed(const struct quic_stream_table *t, s64 id,
			      bool uni);
bool quic_stream_streams_blocked(struct quic_stream_table *t, bool uni,
				 u64 *limit);
bool quic_stream_max_streams_update(struct quic_stream_table *t, bool uni,
				    u64 *count);

/* State machines. */
int quic_stream_set_send_state(struct quic_stream *s, u8 state);
int quic_stream_set_recv_state(struct quic_stream *s, u8 state);

/* Sending. */
u64 quic_stream_send_credit(const struct quic_stream_table *t,
			    const struct quic_stream *s);
int quic_stream_send_advance(struct quic_stream_table *t,
			     struct quic_stream *s, u64 len, bool fin);
u32 quic_stream_send_blocked(struct quic_stream_table *t,
			     struct quic_stream *s);
bool quic_stream_peer_max_data(struct quic_stream_table *t, u64 max);
bool quic_stream_peer_max_stream_data(struct quic_stream *s, u64 max);
int quic_stream_reset(struct quic_stream *s, u64 errcode);
int quic_stream_peer_stop_sending(struct quic_stream *s, u64 errcode);

/* Receiving. */
int quic_stream_recv_skb(struct quic_stream_table *t, struct quic_stream *s,
			 u64 offset, const void *data, u64 len, bool fin,
			 struct sk_buff *skb, u64 *err);
int quic_stream_recv_data(struct quic_stream_table *t, struct quic_stream *s,
			  u64 offset, const void *data, u64 len, bool fin,
			  u64 *err);
int quic_stream_recv_reset(struct quic_stream_table *t, struct quic_stream *s,
			   u64 errcode, u64 final_size, u64 *err);
ssize_t quic_stream_peek(const struct quic_stream_table *t,
			 const struct quic_stream *s, struct iov_iter *to,
			 bool *fin);
ssize_t quic_stream_read(struct quic_stream_table *t, struct quic_stream *s,
			 struct iov_iter *to, bool *fin);
int quic_stream_stop_sending(struct quic_stream *s);
bool quic_fc_recv_update(struct quic_fc_recv *fc, u64 now, u64 rtt);
bool quic_stream_window_update(struct quic_stream *s, u64 now, u64 rtt);

/* Readable streams. */
bool quic_stream_readable(const struct quic_stream_table *t,
			  const struct quic_stream *s);
void quic_stream_rx_update(struct quic_stream_table *t, struct quic_stream *s);
struct quic_stream *quic_stream_first_readable(struct quic_stream_table *t);

/* Control frames, blocking and RTT. */
int quic_stream_app_reset(struct quic_stream_table *t, struct quic_stream *s,
			  u64 errcode);
int quic_stream_app_stop_sending(struct quic_stream_table *t,
				 struct quic_stream *s, u64 errcode);
int quic_stream_recv_stop_sending(struct quic_stream_table *t,
				  struct quic_stream *s, u64 errcode);
void quic_stream_ctl_sent(struct quic_stream_table *t, struct quic_stream *s,
			  u8 ctl);
bool quic_stream_ctl_acked(struct quic_stream_table *t, struct quic_stream *s,
			   u8 ctl);
bool quic_stream_ctl_lost(struct quic_stream_table *t, struct quic_stream *s,
			  u8 ctl);
bool quic_stream_conn_ctl_lost(struct quic_stream_table *t, u8 bit);
void quic_stream_out_hold(struct quic_stream *s);
bool quic_stream_out_put(struct quic_stream *s);
void quic_stream_blocked(struct quic_stream_table *t, struct quic_stream *s);
bool quic_stream_walk(struct quic_stream_table *t,
		      bool (*fn)(struct quic_stream *st, void *ctx), void *ctx);
void quic_stream_open_blocked(struct quic_stream_table *t, bool uni);

/**
 * quic_stream_limit - a stream count limit in force
 * @t: the table
 * @peer: of the streams the peer opens (our MAX_STREAMS), else of ours
 *	(the peer's MAX_STREAMS)
 * @uni: unidirectional, else bidirectional streams
 *
 * Return: the limit, a number of streams.
 */
static inline u64 quic_stream_limit(const struct quic_stream_table *t,
				    bool peer, bool uni)
{
	u8 type = (peer ? !t->is_server : t->is_server) |
		  (uni ? QUIC_STREAM_TYPE_UNI_MASK : 0);

	return t->kind[type].limit;
}

/**
 * quic_stream_id_used - whether a stream ID was opened (it may be closed)
 * @t: the table
 * @id: a valid stream ID
 *
 * Return: true if that stream was opened: streams of one type open in
 * order, so every number below the type's next one was.
 */
static inline bool quic_stream_id_used(const struct quic_stream_table *t,
				       s64 id)
{
	return (u64)id >> 2 < t->kind[id & QUIC_STREAM_TYPE_MASK].next;
}

#endif /* _NET_QUIC_STREAM_H */
