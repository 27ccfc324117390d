// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: notifications (quic-api.rst section 5.6).
 *
 * An event is one skb on the connection's event queue: the type byte and
 * its payload, charged to the receive buffer.  Disabled types are not
 * generated and an event that does not fit in the receive buffer is
 * dropped.  recvmsg() reads events before stream data.
 */

#include <linux/skbuff.h>
#include <net/sock.h>

#include "conn.h"
#include "event.h"
#include "socket.h"

/* Bytes of an event already read, kept in skb->cb. */
struct quic_event_cb {
	u32	consumed;
};

#define QUIC_EVENT_CB(skb)	((struct quic_event_cb *)(skb)->cb)

/**
 * quic_event_put() - queue an event if the user enabled its type
 * @sk: the socket, locked
 * @type: QUIC_EVENT_*
 * @data: the payload
 * @len: its length
 *
 * Return: 0, -ENOENT if the type is disabled, -ENOBUFS if the receive
 * buffer is full, -ENOMEM.
 */
int quic_event_put(struct sock *sk, u8 type, const void *data, u32 len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct sk_buff *skb;

	if (!quic_sock_opts_event_on(&quic_sk(sk)->opts, type))
		return -ENOENT;
	if (atomic_read(&sk->sk_rmem_alloc) > READ_ONCE(sk->sk_rcvbuf))
		return -ENOBUFS;
	skb = alloc_skb(1 + len, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_put_u8(skb, type);
	skb_put_data(skb, data, len);
	QUIC_EVENT_CB(skb)->consumed = 0;
	skb_set_owner_r(skb, sk);
	skb_queue_tail(&c->events, skb);
	sk->sk_data_ready(sk);
	return 0;
}

/**
 * quic_event_stream_update() - queue a QUIC_EVENT_STREAM_UPDATE
 * @sk: the socket, locked
 * @id: the stream
 * @state: its new QUIC_STREAM_*_STATE_*
 * @errcode: application error code, for the reset states
 * @finalsz: final size where known
 */
void quic_event_stream_update(struct sock *sk, s64 id, u8 state, u64 errcode,
			      u64 finalsz)
{
	struct quic_stream_update u = {
		.id = id,
		.state = state,
		.errcode = (u32)errcode,
		.finalsz = finalsz,
	};

	trace_quic_stream(sk, id, state);
	quic_event_put(sk, QUIC_EVENT_STREAM_UPDATE, &u, sizeof(u));
}

/**
 * quic_event_pending() - whether an event waits to be read
 * @sk: the socket
 *
 * Return: true if the event queue is not empty.
 */
bool quic_event_pending(const struct sock *sk)
{
	return !skb_queue_empty_lockless(&quic_sk(sk)->conn.events);
}

/**
 * quic_event_recvmsg() - read the first event
 * @sk: the socket, locked
 * @msg: where to copy; MSG_QUIC_NOTIFICATION is set, MSG_EOR once the
 *	event was read to its end
 * @len: room
 * @flags: recvmsg() flags; MSG_PEEK leaves the event queued
 *
 * Return: bytes copied, -EAGAIN if no event waits, or -EFAULT.
 */
int quic_event_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
		       int flags)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct sk_buff *skb = skb_peek(&c->events);
	u32 off, n;
	int err;

	if (!skb)
		return -EAGAIN;
	off = QUIC_EVENT_CB(skb)->consumed;
	n = min_t(size_t, len, skb->len - off);
	err = skb_copy_datagram_msg(skb, off, msg, n);
	if (err)
		return err;
	msg->msg_flags |= MSG_QUIC_NOTIFICATION;
	if (off + n == skb->len)
		msg->msg_flags |= MSG_EOR;
	if (!(flags & MSG_PEEK)) {
		QUIC_EVENT_CB(skb)->consumed += n;
		if (QUIC_EVENT_CB(skb)->consumed == skb->len) {
			skb_unlink(skb, &c->events);
			kfree_skb(skb);
		}
	}
	return n;
}
