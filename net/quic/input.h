/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the receive path (net/quic/input.c): datagrams from the UDP
 * socket to the connection they are for, packets decrypted and their
 * frames processed; handshake data waiting for recvmsg().
 */
#ifndef __NET_QUIC_INPUT_H
#define __NET_QUIC_INPUT_H

#include <linux/skbuff.h>
#include <linux/types.h>
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
 * @parked: per space, packets received before its receive key was ready
 *	(or, 1-RTT, before the stream table)
 * @parked_ready: bit per space whose @parked can be processed now
 *
 * Owned by input.c: no other file writes it.
 */
struct quic_in {
	struct quic_cid		dcid;
	unsigned long		dead_since;
	u32			dead_initials;
	bool			batch;
	bool			flush;
	bool			wake;
	bool			dcid_learned;
	struct sk_buff_head	parked[QUIC_PNSPACE_NUM];
	u8			parked_ready;
};

int quic_input_udp_rcv(struct sock *udp_sk, struct sk_buff *skb);
int quic_input_backlog_rcv(struct sock *sk, struct sk_buff *skb);
void quic_input_accept_skb(struct sock *sk, struct sk_buff *skb);
void quic_input_init(struct quic_in *in);
void quic_input_discard(struct sock *sk, u8 level);
void quic_input_parked_ready(struct sock *sk, u8 level);
void quic_input_parked_run(struct sock *sk);

#endif /* __NET_QUIC_INPUT_H */
