// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: unreliable datagrams (RFC 9221).
 *
 * An application sends one with sendmsg(MSG_QUIC_DATAGRAM) once both ends
 * advertised max_datagram_frame_size. It waits in a queue until a 1-RTT
 * packet has room for it whole, in a DATAGRAM frame with a Length: it
 * counts against the congestion window like any ack-eliciting frame but
 * is never sent again when lost (RFC 9221 5). A received DATAGRAM frame
 * becomes one item for recvmsg(), flagged MSG_QUIC_DATAGRAM, or is
 * dropped when the receive buffer is full (quic-api.rst 5.5).
 */

#include <linux/errno.h>
#include <linux/quic.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "conn.h"
#include "datagram.h"
#include "frame.h"
#include "mib.h"
#include "packet.h"
#include "protocol.h"
#include "socket.h"
#include "varint.h"

/* How much of a received datagram recvmsg() has returned. */
struct quic_dgram_cb {
	u32	consumed;
};

#define QUIC_DGRAM_CB(skb)	((struct quic_dgram_cb *)&(skb)->cb[0])

/* The DATAGRAM frame (type, Length, payload) of @len bytes. */
static u32 quic_dgram_frame_len(u32 len)
{
	return 1 + quic_varint_len(len) + len;
}

/* A short header with a 4-byte packet number (the most we use). */
#define QUIC_DGRAM_SHORT_HDR(dcid_len)	(1 + (dcid_len) + 4)

/* The queues of a connection, allocated with its first datagram: most
 * connections never have one. NULL without memory.
 */
static struct quic_dgram *quic_dgram_get(struct sock *sk, gfp_t gfp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_dgram *d = c->dgram;

	if (d)
		return d;
	d = kzalloc(sizeof(*d), gfp);
	if (!d)
		return NULL;
	skb_queue_head_init(&d->sndq);
	skb_queue_head_init(&d->rcvq);
	/* poll() reads the receive queue without the socket lock. */
	smp_store_release(&c->dgram, d);
	return d;
}

/**
 * quic_dgram_free() - drop every datagram of a connection
 * @sk: the socket, locked
 *
 * The queues stay, empty, until quic_dgram_destroy(): poll() may look.
 */
void quic_dgram_free(struct sock *sk)
{
	struct quic_dgram *d = quic_sk(sk)->conn.dgram;
	struct sk_buff *skb;

	if (!d)
		return;
	while ((skb = __skb_dequeue(&d->sndq))) {
		sk_wmem_queued_add(sk, -(int)skb->truesize);
		kfree_skb(skb);
	}
	d->snd_bytes = 0;
	skb_queue_purge(&d->rcvq);
}

/**
 * quic_dgram_destroy() - release the queues
 * @sk: the socket, being destroyed, its datagrams freed
 */
void quic_dgram_destroy(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	kfree(c->dgram);
	c->dgram = NULL;
}

/**
 * quic_dgram_max_payload() - the largest datagram sendmsg() takes now
 * @sk: the socket, locked, established
 *
 * quic-api.rst 5.5: the smaller of the datagram size in use and the
 * peer's max_datagram_frame_size, less a short header with the current
 * DCID and a 4-byte packet number, the AEAD tag, and the frame's type and
 * Length (1368 bytes when the peer allows 1400 and uses 8-byte IDs).
 *
 * Return: that size, 0 or less if none fits, or -EINVAL if the peer does
 * not take datagrams (or its transport parameters are not known yet).
 */
int quic_dgram_max_payload(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 limit;

	if (!c->hs.peer_tp_set || !c->peer_tp.max_datagram_frame_size)
		return -EINVAL;
	limit = min_t(u64, c->out.max_dgram ?: QUIC_CONN_MAX_DGRAM,
		      c->peer_tp.max_datagram_frame_size);
	return (int)limit - QUIC_DGRAM_SHORT_HDR(c->ids.dcid.len) -
	       QUIC_PACKET_TAG_LEN - 1 - (int)quic_varint_len(limit);
}

/**
 * quic_dgram_queue() - queue a datagram the application sends
 * @sk: the socket, locked, established
 * @msg: its bytes
 * @len: their number, checked against quic_dgram_max_payload()
 *
 * The caller made sure the send buffer has room.
 *
 * Return: 0, -ENOMEM or -EFAULT.
 */
int quic_dgram_queue(struct sock *sk, struct msghdr *msg, size_t len)
{
	struct quic_dgram *d = quic_dgram_get(sk, sk->sk_allocation);
	struct sk_buff *skb;

	if (!d)
		return -ENOMEM;
	skb = alloc_skb(len, sk->sk_allocation);
	if (!skb)
		return -ENOMEM;
	if (memcpy_from_msg(skb_put(skb, len), msg, len)) {
		kfree_skb(skb);
		return -EFAULT;
	}
	sk_wmem_queued_add(sk, skb->truesize);
	__skb_queue_tail(&d->sndq, skb);
	d->snd_bytes += quic_dgram_frame_len(len);
	return 0;
}

/**
 * quic_dgram_unsent() - bytes of DATAGRAM frames waiting to be sent
 * @sk: the socket, locked
 *
 * Return: their total size, frame headers included.
 */
u32 quic_dgram_unsent(struct sock *sk)
{
	struct quic_dgram *d = quic_sk(sk)->conn.dgram;

	return d ? d->snd_bytes : 0;
}

/**
 * quic_dgram_out() - put waiting datagrams in a 1-RTT packet
 * @sk: the socket, locked
 * @buf: where the frames go
 * @room: bytes free there
 * @nr: DATAGRAM frames written, out
 *
 * Datagrams go in order, each whole; one that does not fit waits for the
 * next packet, unless it could not fit any packet any more (the datagram
 * size fell since it was queued): it is dropped then.
 *
 * Return: bytes written.
 */
u32 quic_dgram_out(struct sock *sk, u8 *buf, u32 room, u32 *nr)
{
	struct quic_dgram *d = quic_sk(sk)->conn.dgram;
	struct sk_buff *skb;
	u32 used = 0, need;
	int max;

	*nr = 0;
	while ((skb = skb_peek(&d->sndq))) {
		need = quic_dgram_frame_len(skb->len);
		if (need > room - used) {
			max = quic_dgram_max_payload(sk);
			if (max >= (int)skb->len)
				break;
			QUIC_INC_STATS(sock_net(sk), QUIC_MIB_DGRAM_SND_DROP);
		} else {
			buf[used++] = QUIC_FRAME_DATAGRAM_LEN;
			used = quic_varint_put(buf + used, skb->len) - buf;
			skb_copy_bits(skb, 0, buf + used, skb->len);
			used += skb->len;
			(*nr)++;
		}
		__skb_unlink(skb, &d->sndq);
		d->snd_bytes -= need;
		sk_wmem_queued_add(sk, -(int)skb->truesize);
		kfree_skb(skb);
		sk->sk_write_space(sk);
	}
	return used;
}

/**
 * quic_dgram_rcv() - a DATAGRAM frame arrived
 * @sk: the socket, locked
 * @f: the frame, its payload in @f->data
 * @size: the whole frame's size: type, Length if any, payload
 *
 * Return: 0, or PROTOCOL_VIOLATION for a frame larger than the
 * max_datagram_frame_size we advertised (RFC 9221 3).
 */
int quic_dgram_rcv(struct sock *sk, const struct quic_frame *f, u32 size)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct sk_buff *skb;

	if (size > c->local_tp.max_datagram_frame_size)
		return QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
	if (!f->data.len)
		return 0;
	if (atomic_read(&sk->sk_rmem_alloc) + f->data.len >
	    READ_ONCE(sk->sk_rcvbuf) ||
	    !quic_dgram_get(sk, GFP_ATOMIC | __GFP_NOWARN))
		goto drop;
	skb = alloc_skb(f->data.len, GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		goto drop;
	skb_put_data(skb, f->data.data, f->data.len);
	QUIC_DGRAM_CB(skb)->consumed = 0;
	skb_set_owner_r(skb, sk);
	__skb_queue_tail(&c->dgram->rcvq, skb);
	return 0;
drop:
	QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DGRAM_RCV_DROP);
	return 0;
}

/**
 * quic_dgram_pending() - whether recvmsg() has a datagram to return
 * @sk: the socket
 *
 * Return: true if one is queued.
 */
bool quic_dgram_pending(struct sock *sk)
{
	/* Pairs with the release in quic_dgram_get(): queues set up. */
	struct quic_dgram *d = smp_load_acquire(&quic_sk(sk)->conn.dgram);

	return d && !skb_queue_empty_lockless(&d->rcvq);
}

/**
 * quic_dgram_recvmsg() - return the first received datagram
 * @sk: the socket, locked
 * @msg: where to
 * @len: room
 * @flags: recvmsg() flags (MSG_PEEK)
 *
 * A datagram read in part leaves the rest for the next call; the last
 * part carries MSG_EOR (quic-api.rst 5.4).
 *
 * Return: bytes copied, -EAGAIN if none is queued, or -EFAULT.
 */
int quic_dgram_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
		       int flags)
{
	struct quic_dgram *d = quic_sk(sk)->conn.dgram;
	struct sk_buff *skb = d ? skb_peek(&d->rcvq) : NULL;
	struct quic_dgram_cb *cb;
	u32 n;

	if (!skb)
		return -EAGAIN;
	cb = QUIC_DGRAM_CB(skb);
	n = min_t(u32, len, skb->len - cb->consumed);
	if (skb_copy_datagram_msg(skb, cb->consumed, msg, n))
		return -EFAULT;
	msg->msg_flags |= MSG_QUIC_DATAGRAM;
	if (flags & MSG_PEEK)
		return n;
	cb->consumed += n;
	if (cb->consumed == skb->len) {
		msg->msg_flags |= MSG_EOR;
		__skb_unlink(skb, &d->rcvq);
		kfree_skb(skb);
	}
	return n;
}
