/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the shared kernel UDP sockets under QUIC sockets (net/quic/udp.c).
 */

#ifndef __NET_QUIC_UDP_H
#define __NET_QUIC_UDP_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/socket.h>
#include <linux/udp.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

struct dst_cache;

/**
 * union quic_addr - an address and port in the form a path uses
 * @sa: the family
 * @v4: an IPv4 address: also one given to an AF_INET6 socket, as a
 *	sockaddr_in or v4-mapped
 * @v6: an IPv6 address that is not v4-mapped
 */
union quic_addr {
	struct sockaddr		sa;
	struct sockaddr_in	v4;
	struct sockaddr_in6	v6;
};

/**
 * quic_addr_equal() - do @a and @b name one address and port?
 * @a: an address
 * @b: another
 *
 * The scope ID and the flow label are left out: an address a user gave
 * may carry them where the one of a datagram does not.
 *
 * Return: true if family, address and port match.
 */
static inline bool quic_addr_equal(const union quic_addr *a,
				   const union quic_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->v4.sin_port == b->v4.sin_port &&
		       a->v4.sin_addr.s_addr == b->v4.sin_addr.s_addr;
	return a->v6.sin6_port == b->v6.sin6_port &&
	       ipv6_addr_equal(&a->v6.sin6_addr, &b->v6.sin6_addr);
}

/* Room quic_udp_xmit() needs in front of a QUIC packet. */
#define QUIC_UDP_HEADROOM	(MAX_HEADER + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr))

/**
 * quic_udp_alloc_skb() - an skb for a datagram of up to @len bytes
 * @len: its room, after QUIC_UDP_HEADROOM reserved for quic_udp_xmit()
 * @gfp: allocation flags
 *
 * Return: the skb, empty, or NULL.
 */
static inline struct sk_buff *quic_udp_alloc_skb(u32 len, gfp_t gfp)
{
	struct sk_buff *skb = alloc_skb(QUIC_UDP_HEADROOM + len, gfp);

	if (skb)
		skb_reserve(skb, QUIC_UDP_HEADROOM);
	return skb;
}

/**
 * quic_udp_payload() - the bytes of a received datagram
 * @skb: a datagram as the receive path keeps it (input.c): linear, or all
 *	of it in one page fragment
 *
 * Return: its first byte; @skb->len bytes follow.
 */
static inline u8 *quic_udp_payload(const struct sk_buff *skb)
{
	if (!skb_headlen(skb))
		return skb_frag_address(&skb_shinfo(skb)->frags[0]);
	return skb->data;
}

/* Buckets of a namespace's table of UDP sockets: 2^bits. */
#define QUIC_UDP_HASH_BITS	6

/**
 * struct quic_udp_key - what tells two shared UDP sockets apart
 * @addr: the local address; an IPv4 one in @addr.v4 with the rest zero
 * @port: the local port, never 0 once the socket exists
 * @family: %AF_INET or %AF_INET6 (the family of @addr, not of the QUIC
 *	socket: an IPv4 address bound on an AF_INET6 socket is %AF_INET)
 * @v6only: for the IPv6 wildcard address, whether the UDP socket is
 *	IPV6_V6ONLY; 0 for every other address
 * @ifindex: the interface the socket is bound to, or 0
 *
 * Compared and hashed as bytes: build it with quic_udp_key_init(), which
 * zeroes the padding.
 */
struct quic_udp_key {
	union {
		struct in_addr	v4;
		struct in6_addr	v6;
	} addr;
	__be16		port;
	u8		family;
	u8		v6only;
	int		ifindex;
};

/**
 * struct quic_udp_sock - one kernel UDP socket shared by QUIC sockets
 * @node: link in the namespace's table, under &quic_net.udp_lock
 * @key: the local address and port
 * @sock: the kernel UDP socket; NULL once released
 * @refcnt: QUIC sockets (and later connections and paths) using it
 * @half_open: server connections on this address and port whose
 *	handshake has not completed: a listener's requests and the sockets
 *	accept() made from them (conn.c, input.c)
 * @release_work: releases the UDP socket once @refcnt drops to zero
 * @net: the namespace
 * @rcu: frees the structure after the receive path is done with it
 *
 * Receive reaches it through the UDP socket's sk_user_data, under RCU, so
 * it is freed after a grace period.
 */
struct quic_udp_sock {
	struct hlist_node	node;
	struct quic_udp_key	key;
	struct socket		*sock;
	refcount_t		refcnt;
	atomic_t		half_open;
	struct work_struct	release_work;
	struct net		*net;
	struct rcu_head		rcu;
};

struct quic_udp_sock *quic_udp_sock_get(struct net *net,
					const struct quic_udp_key *key);
bool quic_udp_sock_hold(struct quic_udp_sock *us);
void quic_udp_sock_put(struct quic_udp_sock *us);
int quic_udp_xmit(struct quic_udp_sock *us, struct sk_buff *skb,
		  const union quic_addr *saddr, const union quic_addr *daddr,
		  u8 tos, struct dst_cache *cache);

void quic_udp_key_init(struct quic_udp_key *key, int family,
		       const void *addr, __be16 port, bool v6only,
		       int ifindex);

void quic_udp_net_init(struct net *net);
void quic_udp_net_exit(struct net *net);
/* The encap_rcv hook the UDP sockets get (udp_tunnel_sock_cfg). */
typedef int (*quic_udp_rcv_t)(struct sock *udp_sk, struct sk_buff *skb);

int quic_udp_init(quic_udp_rcv_t encap_rcv);
void quic_udp_exit(void);

#endif /* __NET_QUIC_UDP_H */
