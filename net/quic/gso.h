/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: GSO batches built in page fragments (net/quic/gso.c).
 *
 * A batch is one skb: headroom for the UDP and IP headers in its head,
 * its datagrams in page fragments of the socket's sk_frag, each datagram
 * contiguous in one page. The stack cuts it into datagrams (at the device,
 * or on lo and veth in the receiving UDP socket), and each datagram then
 * references its bytes in the page: nothing is copied on the way, and
 * the receiver opens the packet where it lies (input.c).
 */
#ifndef __NET_QUIC_GSO_H
#define __NET_QUIC_GSO_H

#include <linux/gfp.h>
#include <linux/types.h>

struct sk_buff;
struct sock;

struct sk_buff *quic_gso_alloc(gfp_t gfp);
u8 *quic_gso_reserve(struct sock *sk, struct sk_buff *skb, u32 len, u32 max,
		     gfp_t gfp);
u8 *quic_gso_tail(struct sock *sk, u32 *room);
void quic_gso_put(struct sock *sk, struct sk_buff *skb, u32 len);
void quic_gso_finish(struct sk_buff *skb, u32 size, u16 segs);
void quic_gso_idle(struct sock *sk);

#endif /* __NET_QUIC_GSO_H */
