/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: unreliable datagrams (RFC 9221), net/quic/datagram.c.
 */
#ifndef __NET_QUIC_DATAGRAM_H
#define __NET_QUIC_DATAGRAM_H

#include <linux/skbuff.h>
#include <linux/types.h>

struct msghdr;
struct sock;
struct quic_frame;

/**
 * struct quic_dgram - the datagrams of a connection
 * @sndq: datagrams the application sent, waiting for room in a packet;
 *	charged to sk_wmem_queued
 * @rcvq: datagrams received, waiting for recvmsg(); charged to the
 *	receive buffer
 * @snd_bytes: the size of the DATAGRAM frames @sndq makes
 */
struct quic_dgram {
	struct sk_buff_head	sndq;
	struct sk_buff_head	rcvq;
	u32			snd_bytes;
};

void quic_dgram_free(struct sock *sk);
void quic_dgram_destroy(struct sock *sk);
int quic_dgram_max_payload(struct sock *sk);
int quic_dgram_queue(struct sock *sk, struct msghdr *msg, size_t len);
u32 quic_dgram_unsent(struct sock *sk);
u32 quic_dgram_out(struct sock *sk, u8 *buf, u32 room, u32 *nr);
int quic_dgram_rcv(struct sock *sk, const struct quic_frame *f, u32 size);
bool quic_dgram_pending(struct sock *sk);
int quic_dgram_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
		       int flags);

#endif /* __NET_QUIC_DATAGRAM_H */
