// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the stream and flow control frames a connection receives.
 *
 * The handlers of input.c's frame table for STREAM, RESET_STREAM,
 * STOP_SENDING, MAX_STREAM_DATA and STREAM_DATA_BLOCKED (one stream's),
 * and MAX_DATA, MAX_STREAMS, DATA_BLOCKED and STREAMS_BLOCKED (the
 * connection's limits). stream.c keeps the stream table and its rules;
 * this file applies a frame to it and tells the socket what changed:
 * events (quic-api.rst 5.6), readers and writers woken, control frames
 * to send. None is taken before the stream table exists (the handshake
 * sets it up): the packet is then not acknowledged, and the peer sends
 * the frame again.
 */

#include <linux/ktime.h>
#include <net/sock.h>

#include "conn.h"
#include "ctrl.h"
#include "event.h"
#include "frame.h"
#include "input.h"
#include "sendq.h"
#include "socket.h"
#include "stream.h"
#include "stream_in.h"

/* STREAM_UPDATE events of the receiving part (quic-api.rst 5.6): first
 * data, FIN with data missing, all data received.
 */
static void quic_stream_in_events(struct sock *sk, struct quic_stream *st,
				  u8 old_state, bool first)
{
	/* The first frame, even one that also ends the stream. */
	if (first && old_state == QUIC_STREAM_RECV_STATE_RECV)
		quic_event_stream_update(sk, st->id, QUIC_STREAM_RECV_STATE_RECV,
					 0, 0);
	if (st->recv_state == old_state)
		return;
	if (st->recv_state == QUIC_STREAM_RECV_STATE_SIZE_KNOWN ||
	    st->recv_state == QUIC_STREAM_RECV_STATE_RECVD)
		quic_event_stream_update(sk, st->id, st->recv_state, 0,
					 st->final_size);
}

/* STOP_SENDING: reset the stream with the peer's code (RFC 9000 3.5),
 * dropping the data not yet delivered.
 */
static void quic_stream_in_stop_sending(struct sock *sk,
					struct quic_stream *st, u64 errcode)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (!quic_stream_recv_stop_sending(&c->streams, st, errcode))
		return;
	quic_sock_active_drop(c, st->id);
	quic_sendq_stream_drop(sk, st->id);
	quic_event_stream_update(sk, st->id, QUIC_STREAM_SEND_STATE_RESET_SENT,
				 errcode, st->send.used);
	sk->sk_write_space(sk);
}

/* Is the stream table there? If not, the packet is not acknowledged. */
static bool quic_stream_in_ready(struct quic_in_pkt *in)
{
	if (READ_ONCE(quic_sk(in->sk)->conn.streams_ready))
		return true;
	quic_in_no_ack(in);
	return false;
}

/**
 * quic_stream_in_limits() - MAX_DATA, MAX_STREAMS, DATA_BLOCKED,
 *	STREAMS_BLOCKED: the connection's limits
 * @in: the packet
 * @f: the frame
 *
 * Return: 0, or -EPROTO with the transport error in @in.
 */
int quic_stream_in_limits(struct quic_in_pkt *in, const struct quic_frame *f)
{
	struct sock *sk = in->sk;
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_stream_table *t = &c->streams;
	s64 max_id;
	u64 err = 0;
	bool uni;
	int ret;

	if (!quic_stream_in_ready(in))
		return 0;
	switch (f->type) {
	case QUIC_FRAME_MAX_DATA:
		if (quic_stream_peer_max_data(t, f->value))
			sk->sk_write_space(sk);
		return 0;
	case QUIC_FRAME_MAX_STREAMS_BIDI:
	case QUIC_FRAME_MAX_STREAMS_UNI:
		uni = f->type == QUIC_FRAME_MAX_STREAMS_UNI;
		ret = quic_stream_peer_max_streams(t, uni, f->value, &max_id,
						   &err);
		if (ret < 0)
			return quic_in_violation(in, err ?:
					QUIC_TRANSPORT_ERROR_FRAME_ENCODING);
		if (ret) {
			quic_event_put(sk, QUIC_EVENT_STREAM_MAX_STREAM,
				       &max_id, sizeof(max_id));
			sk->sk_write_space(sk);
		}
		return 0;
	case QUIC_FRAME_DATA_BLOCKED:
		/* Our MAX_DATA may have been lost: send the limit again. */
		if (t->recv.max > f->value)
			quic_ctrl_want_max_data(&c->ctrl);
		return 0;
	default:	/* STREAMS_BLOCKED_BIDI, STREAMS_BLOCKED_UNI */
		uni = f->type == QUIC_FRAME_STREAMS_BLOCKED_UNI;
		if (quic_stream_limit(t, true, uni) > f->value)
			t->blocked_pending |= uni ? QUIC_STREAM_MAX_STREAMS_UNI :
						    QUIC_STREAM_MAX_STREAMS_BIDI;
		return 0;
	}
}

/* The stream @id a frame names, for its sending part if @send_part: in
 * *@stp, NULL if it is closed and gone. Return 0, or -EPROTO with the
 * transport error in @in; a stream that cannot be made now (no memory)
 * is not an error, the packet is not acknowledged.
 */
static int quic_stream_in_get(struct quic_in_pkt *in, s64 id, bool send_part,
			      struct quic_stream **stp)
{
	struct quic_conn *c = &quic_sk(in->sk)->conn;
	struct quic_stream *st;
	u64 err = 0;

	*stp = NULL;
	st = quic_stream_recv_get(&c->streams, id, send_part, &err);
	if (IS_ERR(st)) {
		if (PTR_ERR(st) == -EPROTO)
			return quic_in_violation(in, err ?:
					QUIC_TRANSPORT_ERROR_STREAM_STATE);
		quic_in_no_ack(in);
		return 0;
	}
	*stp = st;
	return 0;
}

/* After RESET_STREAM or STREAM: @ret and @err as quic_stream_recv_*()
 * gave them. A stream with something to read wakes its reader.
 */
static int quic_stream_in_done(struct quic_in_pkt *in, struct quic_stream *st,
			       int ret, u64 err)
{
	struct sock *sk = in->sk;
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (ret == -EPROTO)
		return quic_in_violation(in, err ?:
				QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
	if (quic_stream_readable(&c->streams, st)) {
		quic_sock_stream_readable(c);
		quic_in_data_ready(&c->in, sk);
	}
	if (ret)
		quic_in_no_ack(in);
	return 0;
}

/**
 * quic_stream_in_ctl() - MAX_STREAM_DATA, STOP_SENDING,
 *	STREAM_DATA_BLOCKED, RESET_STREAM: one stream's control frames
 * @in: the packet
 * @f: the frame
 *
 * Return: 0, or -EPROTO with the transport error in @in.
 */
int quic_stream_in_ctl(struct quic_in_pkt *in, const struct quic_frame *f)
{
	struct sock *sk = in->sk;
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_stream_table *t = &c->streams;
	struct quic_stream *st;
	u64 err = 0;
	int ret;

	if (!quic_stream_in_ready(in))
		return 0;
	ret = quic_stream_in_get(in, f->stream_ctl.id,
				 f->type == QUIC_FRAME_MAX_STREAM_DATA ||
				 f->type == QUIC_FRAME_STOP_SENDING, &st);
	if (ret || !st)
		return ret;
	switch (f->type) {
	case QUIC_FRAME_MAX_STREAM_DATA:
		if (quic_stream_peer_max_stream_data(st, f->stream_ctl.value)) {
			struct quic_stream_max_data md = {
				.id = st->id,
				.max_data = st->send.max,
			};

			quic_event_put(sk, QUIC_EVENT_STREAM_MAX_DATA, &md,
				       sizeof(md));
			sk->sk_write_space(sk);
		}
		return 0;
	case QUIC_FRAME_STOP_SENDING:
		quic_stream_in_stop_sending(sk, st, f->stream_ctl.value);
		return 0;
	case QUIC_FRAME_STREAM_DATA_BLOCKED:
		if (st->recv_state == QUIC_STREAM_RECV_STATE_RECV &&
		    st->recv.max > f->stream_ctl.value)
			quic_ctrl_msd(sk, st->id);
		return 0;
	default:	/* RESET_STREAM */
		ret = quic_stream_recv_reset(t, st, f->stream_ctl.value,
					     f->stream_ctl.final_size, &err);
		if (ret <= 0)
			return quic_stream_in_done(in, st, ret, err);
		/* quic-api.rst 5.4: the data is gone, the application
		 * learns of it by the event, and the connection goes on.
		 * Its connection credit came back.
		 */
		if (quic_fc_recv_update(&t->recv, ktime_to_us(ktime_get()),
					c->loss.rec.rtt.smoothed_rtt))
			quic_ctrl_want_max_data(&c->ctrl);
		quic_event_stream_update(sk, st->id,
					 QUIC_STREAM_RECV_STATE_RESET_RECVD,
					 st->recv_errcode, st->final_size);
		quic_stream_release(t, st);
		return 0;
	}
}

/**
 * quic_stream_in_data() - STREAM: data of a stream
 * @in: the packet
 * @f: the frame
 *
 * Return: 0, or -EPROTO with the transport error in @in.
 */
int quic_stream_in_data(struct quic_in_pkt *in, const struct quic_frame *f)
{
	struct quic_conn *c = &quic_sk(in->sk)->conn;
	struct quic_stream_table *t = &c->streams;
	struct quic_stream *st;
	u64 err = 0;
	u8 old_state;
	bool opens;
	bool first;
	int ret;

	if (!quic_stream_in_ready(in))
		return 0;
	/* quic-api.rst 5.2: the peer's bidirectional stream this frame
	 * opens (not the lower ones it opens with it) becomes the active
	 * stream, so that a plain send() answers it.
	 */
	opens = !quic_stream_id_local(t, f->data.id) &&
		!quic_stream_id_uni(f->data.id) &&
		!quic_stream_id_used(t, f->data.id);
	ret = quic_stream_in_get(in, f->data.id, false, &st);
	if (ret || !st)
		return ret;
	first = !st->recv.highest;
	old_state = st->recv_state;
	ret = quic_stream_recv_skb(t, st, f->data.offset, f->data.data,
				   f->data.len, f->type & QUIC_STREAM_BIT_FIN,
				   in->skb, &err);
	if (!ret) {
		if (opens)
			quic_sock_active_set(c, st->id);
		quic_stream_in_events(in->sk, st, old_state, first);
		quic_stream_retire(t, st);
	}
	return quic_stream_in_done(in, st, ret, err);
}
