/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the receive path (net/quic/input.c): datagrams from the UDP
 * socket to the connection they are for, packets decrypted and their
 * frames processed; handshake data waiting for recvmsg().
 */
#ifndef __NET_QUIC_INPUT_H
#define __NET_QUIC_INPUT_H

#include <linux/skbuff.h>
#include <net/sock.h>
#include <linux/types.h>
#include "ackfreq.h"
#include "cid.h"
#include "recovery.h"

struct net;
struct quic_udp_sock;
struct sock;

/* CRYPTO data accepted beyond what was delivered (RFC 9000 7.5): the
 * connection's reassembly (QUIC_CONN_CRYPTO_MAX) and a listener's check
 * of a client's first Initial (initial.c) take the same.
 */
#define QUIC_INPUT_CRYPTO_MAX	65536

/**
 * struct quic_crypto_cb - handshake data waiting in the receive queue
 * @level: its encryption level
 * @consumed: bytes already read
 */
struct quic_crypto_cb {
	u8	level;
	u32	consumed;
};

#define QUIC_CRYPTO_CB(skb)	((struct quic_crypto_cb *)(skb)->cb)

/**
 * struct quic_in - the receive side's state in a connection
 * @dcid: the DCID of the packet being processed
 * @dead_since: listener: when the second that @dead_initials counts began
 *	(jiffies)
 * @dead_initials: listener: client Initials opened in that second that
 *	could start no connection
 * @batch: the datagram being processed is one of a batch
 * @flush: a datagram of the batch asked for a flush, done at its end
 * @wake: a datagram of the batch made a stream readable: the reader is
 *	woken at its end
 * @dcid_learned: client: the connection's DCID is the server's SCID
 *	(RFC 9000 7.2)
 * @user_waits: a user sleeps in recvmsg() or sendmsg(): datagrams go to
 *	the backlog, for it to process (quic_input_user_wait())
 * @parked: per space, packets received before its receive key was ready
 *	(or, 1-RTT, before the stream table)
 * @parked_ready: bit per space whose @parked can be processed now
 * @pkts_rcvd: packets received and decrypted (QUIC_SOCKOPT_INFO)
 * @bytes_rcvd: their bytes
 * @ackfreq: the acknowledgment frequency extension, both ways: ackfreq.c's
 *
 * Owned by input.c: no other file writes it, but @ackfreq.
 */
struct quic_in {
	struct quic_cid		dcid;
	unsigned long		dead_since;
	u32			dead_initials;
	bool			batch;
	bool			flush;
	bool			wake;
	bool			dcid_learned;
	bool			user_waits;
	struct sk_buff_head	parked[QUIC_PNSPACE_NUM];
	u8			parked_ready;
	u64			pkts_rcvd;
	u64			bytes_rcvd;
	struct quic_ackfreq	ackfreq;
};

/**
 * struct quic_in_pkt - one decrypted packet while its frames are processed
 * @sk: the socket, locked
 * @skb: the datagram the packet came in, from its sender
 * @level: the packet's encryption level
 * @eliciting: a frame made the packet ack-eliciting (RFC 9002 2)
 * @probing: every frame is a probing frame (RFC 9000 9.1)
 * @frames: the types of its frames, quic_frame_type_bit() each (traced)
 * @no_ack: a frame could not be taken now (no room, no memory): the packet
 *	is not acknowledged, and the peer sends the frame again
 * @ack_now: an IMMEDIATE_ACK asks for the packet's ACK at once
 * @err: the transport error code the connection closes with when a
 *	handler fails (quic_in_violation())
 *
 * What the frame handlers (input.c's table, stream_in.c) share, and what
 * the frames leave for the packet.
 */
struct quic_in_pkt {
	struct sock	*sk;
	struct sk_buff	*skb;
	u8		level;
	bool		eliciting;
	bool		probing;
	u32		frames;
	bool		no_ack;
	bool		ack_now;
	u32		err;
};

/* The peer broke a rule: the frame handler's return, to close the
 * connection with transport error @code.
 */
static inline int quic_in_violation(struct quic_in_pkt *in, u32 code)
{
	in->err = code;
	return -EPROTO;
}

/* The frame cannot be taken now: the packet is not acknowledged. */
static inline void quic_in_no_ack(struct quic_in_pkt *in)
{
	in->no_ack = true;
}

/* A frame made data readable: the reader is woken now, or once at the
 * end of the batch the datagram is part of.
 */
static inline void quic_in_data_ready(struct quic_in *q, struct sock *sk)
{
	if (q->batch)
		q->wake = true;
	else
		sk->sk_data_ready(sk);
}

int quic_input_udp_rcv(struct sock *udp_sk, struct sk_buff *skb);
int quic_input_backlog_rcv(struct sock *sk, struct sk_buff *skb);
void quic_input_release_cb(struct sock *sk);
void quic_input_user_wait(struct sock *sk, bool on);

/**
 * quic_input_backlog_waits() - datagrams wait in the backlog of a socket
 *	nobody owns, for a user asleep in recvmsg() or sendmsg()
 * @in: the socket's receive side
 * @sk: the socket, its spinlock held
 *
 * Its timers then wait too (timer.c): they run after those datagrams,
 * from the user's release_sock(), as while the user owns the socket.
 *
 * Return: true if they do.
 */
static inline bool quic_input_backlog_waits(const struct quic_in *in,
					    const struct sock *sk)
{
	return READ_ONCE(in->user_waits) && READ_ONCE(sk->sk_backlog.tail);
}

void quic_input_accept_skb(struct sock *sk, struct sk_buff *skb);
void quic_input_init(struct quic_in *in);
void quic_input_discard(struct sock *sk, u8 level);
void quic_input_parked_ready(struct sock *sk, u8 level);
void quic_input_parked_run(struct sock *sk);

#endif /* __NET_QUIC_INPUT_H */
