/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: answers to datagrams no connection takes (net/quic/stateless.c):
 * Version Negotiation, Stateless Reset, Retry, and the INVALID_TOKEN
 * close of an Initial whose Retry token failed the check.
 */
#ifndef __NET_QUIC_STATELESS_H
#define __NET_QUIC_STATELESS_H

#include <linux/types.h>
#include "udp.h"

struct net;
struct quic_net;
struct quic_pkt_hdr;
struct sk_buff;
struct sock;

struct sock *quic_stateless_reset_sk(struct net *net,
				     const struct sk_buff *skb);
void quic_stateless_rcv(struct net *net, struct quic_udp_sock *us,
			struct sk_buff *skb, const struct quic_pkt_hdr *h,
			int perr, const union quic_addr *local,
			const union quic_addr *peer);
void quic_stateless_retry(struct sock *lsk, const struct sk_buff *skb,
			  const struct quic_pkt_hdr *h,
			  const union quic_addr *local,
			  const union quic_addr *peer);
void quic_stateless_refuse(struct sock *lsk, const struct quic_pkt_hdr *h,
			   const union quic_addr *local,
			   const union quic_addr *peer, u32 err);
void quic_stateless_init(struct quic_net *qn);
void quic_stateless_exit(struct quic_net *qn);

#endif /* __NET_QUIC_STATELESS_H */
