// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the connection-level control frames of a connection.
 *
 * Other files ask for a frame (ctrl.h's helpers, quic_ctrl_msd()): the
 * request is kept in struct quic_ctrl, or in the state of the stream
 * table and of the CID sets it is about, until the next 1-RTT packet has
 * room for it. quic_ctrl_frames() then writes, ahead of DATAGRAM and
 * STREAM data: HANDSHAKE_DONE, NEW_TOKEN, NEW_CONNECTION_ID
 * and RETIRE_CONNECTION_ID, MAX_DATA and MAX_STREAM_DATA, MAX_STREAMS and
 * the *_BLOCKED frames, RESET_STREAM and STOP_SENDING. Each frame is noted
 * in the packet's record (sendq.h), so that a lost one is asked for again
 * (loss.c). Control frames wait neither for the congestion window nor
 * for the pacer.
 *
 * Locking: everything here runs with the socket locked (conn.h), from the
 * packet builder (output.c) or from the paths that ask for a frame.
 */

#include <linux/prandom_siphash.h>
#include <linux/string.h>
#include <net/sock.h>

#include "conn.h"
#include "ctrl.h"
#include "frame.h"
#include "protocol.h"
#include "sendq.h"
#include "socket.h"
#include "stream.h"
#include "token.h"
#include "varint.h"

/* Encode @f at @buf + *@used and record it in @rec; false if it does not
 * fit or cannot be recorded (nothing is written then).
 */
static bool quic_ctrl_put(struct quic_out_pkt *rec, struct quic_frame *f,
			  u8 *buf, u32 room, u32 *used, u8 kind, u8 bit,
			  u64 val)
{
	int n = quic_frame_encode(buf + *used, room - *used, f);

	if (n <= 0 || !quic_sendq_note(rec, kind, bit, val))
		return false;
	*used += n;
	return true;
}

/* MAX_STREAM_DATA of one stream, if it still receives. False if it did
 * not fit.
 */
static bool quic_ctrl_msd_frame(struct quic_conn *c, s64 id, u8 *buf, u32 room,
				u32 *used, struct quic_out_pkt *rec)
{
	struct quic_stream *st = quic_stream_find(&c->streams, id);
	struct quic_frame f = {};

	if (!st || !quic_stream_id_recv(&c->streams, id) ||
	    st->recv_state != QUIC_STREAM_RECV_STATE_RECV)
		return true;	/* not needed any more */
	f.type = QUIC_FRAME_MAX_STREAM_DATA;
	f.stream_ctl.id = id;
	f.stream_ctl.value = st->recv.max;
	return quic_ctrl_put(rec, &f, buf, room, used, QUIC_OUT_MSD, 0, id);
}

struct quic_ctrl_msd_walk {
	struct quic_conn	*c;
	struct quic_out_pkt	*rec;
	u8			*buf;
	u32			room;
	u32			used;
};

/* MAX_STREAM_DATA for one more stream, while it fits. */
static bool quic_ctrl_msd_next(struct quic_stream *st, void *ctx)
{
	struct quic_ctrl_msd_walk *w = ctx;

	return quic_ctrl_msd_frame(w->c, st->id, w->buf, w->room, &w->used, w->rec);
}

/* Flow-control limits: MAX_DATA and MAX_STREAM_DATA. */
static u32 quic_ctrl_fc(struct quic_conn *c, u8 *buf, u32 room,
			struct quic_out_pkt *rec)
{
	struct quic_frame f = {};
	u32 used = 0;

	if (c->ctrl.max_data_pending) {
		f.type = QUIC_FRAME_MAX_DATA;
		f.value = c->streams.recv.max;
		if (quic_ctrl_put(rec, &f, buf, room, &used, QUIC_OUT_MAX_DATA,
				  0, 0))
			c->ctrl.max_data_pending = false;
	}
	if (c->ctrl.msd_all) {
		struct quic_ctrl_msd_walk w = {
			.c = c, .rec = rec, .buf = buf, .room = room,
			.used = used,
		};

		if (quic_stream_walk(&c->streams, quic_ctrl_msd_next, &w)) {
			c->ctrl.msd_all = false;
			c->ctrl.nr_msd = 0;
		}
		used = w.used;
	}
	while (c->ctrl.nr_msd &&
	       quic_ctrl_msd_frame(c, c->ctrl.msd_pending[c->ctrl.nr_msd - 1], buf,
				   room, &used, rec))
		c->ctrl.nr_msd--;
	return used;
}

/* Connection-level MAX_STREAMS and *_BLOCKED frames, and the per-stream
 * control frames (RESET_STREAM, STOP_SENDING, STREAM_DATA_BLOCKED) due.
 */
static u32 quic_ctrl_stream_ctl(struct quic_conn *c, u8 *buf, u32 room,
				struct quic_out_pkt *rec)
{
	struct quic_stream_table *t = &c->streams;
	struct quic_stream *st;
	struct quic_frame f;
	u32 used = 0;
	u64 count;
	u8 bit;

	if (quic_stream_max_streams_update(t, false, &count))
		t->blocked_pending |= QUIC_STREAM_MAX_STREAMS_BIDI;
	if (quic_stream_max_streams_update(t, true, &count))
		t->blocked_pending |= QUIC_STREAM_MAX_STREAMS_UNI;
	while (t->blocked_pending) {
		memset(&f, 0, sizeof(f));
		bit = t->blocked_pending & -t->blocked_pending;
		if (bit & (QUIC_STREAM_MAX_STREAMS_BIDI |
			   QUIC_STREAM_MAX_STREAMS_UNI)) {
			bool uni = bit == QUIC_STREAM_MAX_STREAMS_UNI;

			f.type = uni ? QUIC_FRAME_MAX_STREAMS_UNI :
				       QUIC_FRAME_MAX_STREAMS_BIDI;
			f.value = quic_stream_limit(t, true, uni);
		} else if (bit == QUIC_STREAM_BLOCKED_CONN_DATA) {
			f.type = QUIC_FRAME_DATA_BLOCKED;
			f.value = t->send.max;
		} else {
			bool uni = bit == QUIC_STREAM_BLOCKED_CONN_UNI;

			f.type = uni ? QUIC_FRAME_STREAMS_BLOCKED_UNI :
				       QUIC_FRAME_STREAMS_BLOCKED_BIDI;
			f.value = quic_stream_limit(t, false, uni);
		}
		if (!quic_ctrl_put(rec, &f, buf, room, &used, QUIC_OUT_CONN_CTL,
				   bit, 0))
			return used;
		t->blocked_pending &= ~bit;
	}
	list_for_each_entry(st, &t->ctl, ctl_node) {
		while (st->ctl_pending) {
			memset(&f, 0, sizeof(f));
			bit = st->ctl_pending & -st->ctl_pending;
			f.stream_ctl.id = st->id;
			if (bit == QUIC_STREAM_CTL_RESET) {
				f.type = QUIC_FRAME_RESET_STREAM;
				f.stream_ctl.value = st->send_errcode;
				f.stream_ctl.final_size = st->send.used;
			} else if (bit == QUIC_STREAM_CTL_STOP) {
				f.type = QUIC_FRAME_STOP_SENDING;
				f.stream_ctl.value = st->stop_errcode;
			} else {
				f.type = QUIC_FRAME_STREAM_DATA_BLOCKED;
				f.stream_ctl.value = st->send.max;
			}
			if (!quic_ctrl_put(rec, &f, buf, room, &used,
					   QUIC_OUT_STREAM_CTL, bit, st->id))
				return used;
			quic_stream_ctl_sent(t, st, bit);
		}
	}
	return used;
}

/* NEW_CONNECTION_ID for our IDs not yet announced (or whose frame was
 * lost), and RETIRE_CONNECTION_ID for the peer's IDs we retired.
 */
static u32 quic_ctrl_cid(struct sock *sk, u8 *buf, u32 room,
			 struct quic_out_pkt *rec)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	const struct quic_cid_entry *e;
	struct quic_frame f;
	u32 used = 0;
	u64 seq;

	while ((e = quic_cid_src_next_to_send(&c->ids.src))) {
		memset(&f, 0, sizeof(f));
		f.type = QUIC_FRAME_NEW_CONNECTION_ID;
		f.new_cid.seq = e->seq;
		f.new_cid.retire_prior_to = c->ids.src.retire_prior_to;
		f.new_cid.id = e->cid.data;
		f.new_cid.len = e->cid.len;
		f.new_cid.token = e->token;
		if (!quic_ctrl_put(rec, &f, buf, room, &used, QUIC_OUT_NEW_CID,
				   0, e->seq))
			return used;
		quic_cid_src_mark(&c->ids.src, e->seq, false);
	}
	while (quic_cid_dest_retire_pop(&c->ids.dst, &seq)) {
		memset(&f, 0, sizeof(f));
		f.type = QUIC_FRAME_RETIRE_CONNECTION_ID;
		f.value = seq;
		if (!quic_ctrl_put(rec, &f, buf, room, &used,
				   QUIC_OUT_RETIRE_CID, 0, seq)) {
			quic_cid_dest_retire_push(&c->ids.dst, seq);
			break;
		}
	}
	return used;
}

/* A NEW_TOKEN frame with a fresh token bound to the client's address
 * (token.c), for its later connections; 0 if it does not fit.
 */
static u32 quic_ctrl_new_token(struct sock *sk, u8 *buf, u32 room,
			       struct quic_out_pkt *rec)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u8 token[QUIC_TOKEN_NEW_LEN], nonce[QUIC_TOKEN_NONCE_LEN];
	u8 *p = buf;
	int len;

	if (room < 2 + QUIC_TOKEN_NEW_LEN)
		return 0;
	prandom_siphash_bytes(nonce, sizeof(nonce));
	len = quic_token_make(&quic_net(sock_net(sk))->token_key,
			      QUIC_TOKEN_NEW, token, &c->paths.peer, NULL, NULL,
			      nonce, quic_token_now());
	if (len < 0 || !quic_sendq_note(rec, QUIC_OUT_NEW_TOKEN, 0, 0))
		return 0;
	*p++ = QUIC_FRAME_NEW_TOKEN;
	p = quic_varint_put(p, len);
	memcpy(p, token, len);
	c->ctrl.new_token_pending = 0;
	c->ctrl.new_token_unacked = 1;
	return p + len - buf;
}

/**
 * quic_ctrl_frames() - the control frames due, into a 1-RTT packet
 * @sk: the socket, locked
 * @buf: where the packet's frames go on
 * @room: bytes left there
 * @rec: the packet's record; each frame written is noted in it
 *
 * Writes what fits of HANDSHAKE_DONE, NEW_TOKEN, the connection ID frames
 * (once established), and the flow-control and stream control frames
 * (once the streams are set up), in that order; what does not fit stays
 * due.
 *
 * Return: the bytes written.
 */
u32 quic_ctrl_frames(struct sock *sk, u8 *buf, u32 room,
		     struct quic_out_pkt *rec)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 used = 0;

	if (c->ctrl.handshake_done_pending && room - used >= 1 &&
	    quic_sendq_note(rec, QUIC_OUT_HANDSHAKE_DONE, 0, 0)) {
		buf[used++] = QUIC_FRAME_HANDSHAKE_DONE;
		c->ctrl.handshake_done_pending = 0;
	}
	if (c->ctrl.new_token_pending)
		used += quic_ctrl_new_token(sk, buf + used, room - used, rec);
	if (sk->sk_state == TCP_ESTABLISHED)
		used += quic_ctrl_cid(sk, buf + used, room - used, rec);
	if (c->streams_ready) {
		used += quic_ctrl_fc(c, buf + used, room - used, rec);
		used += quic_ctrl_stream_ctl(c, buf + used, room - used, rec);
	}
	return used;
}

/**
 * quic_ctrl_msd() - a stream's receive limit rose: send MAX_STREAM_DATA
 * @sk: the socket, locked
 * @id: the stream
 */
void quic_ctrl_msd(struct sock *sk, s64 id)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 i;

	for (i = 0; i < c->ctrl.nr_msd; i++)
		if (c->ctrl.msd_pending[i] == id)
			return;
	if (c->ctrl.nr_msd == QUIC_CTRL_MSD_PENDING)
		c->ctrl.msd_all = true;
	else
		c->ctrl.msd_pending[c->ctrl.nr_msd++] = id;
}
