/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: finding the socket a datagram is for (net/quic/lookup.c).
 *
 * Connections are found by destination connection ID in the tables of
 * connid.c (our IDs, and the original DCID a client chose); listeners in
 * a per-namespace hash of the local port. Lookups run under RCU in
 * softirq and return the socket with a reference held.
 */
#ifndef __NET_QUIC_LOOKUP_H
#define __NET_QUIC_LOOKUP_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct net;
struct quic_udp_sock;
struct sock;
union quic_addr;

/* log2 of the buckets of a namespace's listener hash. */
#define QUIC_LOOKUP_LISTEN_BITS	6

/**
 * struct quic_lookup_net - the listeners of a network namespace
 * @lock: serialises changes of @listeners
 * @listeners: listening sockets, hashed by local port
 */
struct quic_lookup_net {
	spinlock_t		lock;	/* writers; readers use RCU */
	struct hlist_head	listeners[1 << QUIC_LOOKUP_LISTEN_BITS];
};

void quic_lookup_net_init(struct quic_lookup_net *ln);
void quic_lookup_listen_add(struct sock *sk);
void quic_lookup_listen_del(struct sock *sk);
struct sock *quic_lookup_listener(struct net *net,
				  const struct quic_udp_sock *us, __be16 port);
struct sock *quic_lookup_conn(struct net *net, const u8 *dcid, u32 len,
			      const union quic_addr *peer);

#endif /* __NET_QUIC_LOOKUP_H */
