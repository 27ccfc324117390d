/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: finding the socket a datagram is for (net/quic/lookup.c).
 *
 * Each network namespace holds the tables a datagram is looked up in: our
 * connection IDs, the original DCIDs clients chose, the peers' Stateless
 * Reset Tokens (struct quic_cidtable each), and a hash of the listeners
 * by local port (told apart by ALPN where they share one: alpn.c,
 * initial.c). Lookups run under RCU in softirq; writers take each
 * table's spinlock.
 */
#ifndef __NET_QUIC_LOOKUP_H
#define __NET_QUIC_LOOKUP_H

#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include "cid.h"
#include "cidtable.h"
#include "connid.h"
#include "hash.h"

struct net;
struct quic_pkt_hdr;
struct quic_udp_sock;
struct sock;
union quic_addr;

/* log2 of the buckets of a namespace's listener hash. */
#define QUIC_LOOKUP_LISTEN_BITS	6

/**
 * struct quic_listen - a listener's place in the namespace's listener hash
 * @node: link in the hash, by local port
 * @listening: @node is in it
 *
 * Owned by lookup.c: no other file writes it.
 */
struct quic_listen {
	struct hlist_node	node;
	u8			listening:1;
};

/**
 * quic_lookup_listen_init() - a connection starts out of the listener hash
 * @l: its place in the hash
 */
static inline void quic_lookup_listen_init(struct quic_listen *l)
{
	INIT_HLIST_NODE(&l->node);
}

/**
 * struct quic_lookup_net - the lookup tables of a network namespace
 * @lock: serialises changes of @listeners
 * @listeners: listening sockets, hashed by local port
 * @cid: our connection IDs, fast hash
 * @odcid: the client-chosen original and initial DCIDs, keyed hash
 * @reset: the peers' Stateless Reset Tokens, keyed hash
 * @reset_key: the secret of our Stateless Reset Tokens
 * @reuseport_key: the key that spreads clients over a SO_REUSEPORT group
 */
struct quic_lookup_net {
	spinlock_t		lock;	/* writers; readers use RCU */
	struct hlist_head	listeners[1 << QUIC_LOOKUP_LISTEN_BITS];
	struct quic_cidtable	cid;
	struct quic_cidtable	odcid;
	struct quic_cidtable	reset;
	struct quic_hash_key	reset_key;
	struct quic_hash_key	reuseport_key;
};

void quic_lookup_init(void);
int quic_lookup_net_init(struct quic_lookup_net *ln);
void quic_lookup_net_exit(struct quic_lookup_net *ln);

int quic_lookup_cid_add(struct net *net, const struct quic_cid *cid,
			void *owner, gfp_t gfp);
void quic_lookup_cid_del(struct net *net, const struct quic_cid *cid,
			 const void *owner);
void *quic_lookup_cid_find(struct net *net, const u8 *dcid, u32 len);
unsigned int quic_lookup_cid_count(struct net *net);
int quic_lookup_cid_issue(struct net *net, struct quic_cid_set *set,
			  void *owner, gfp_t gfp,
			  const struct quic_cid_entry **entry);

int quic_lookup_odcid_add(struct net *net, const struct quic_cid *cid,
			  void *owner, gfp_t gfp);
void quic_lookup_odcid_del(struct net *net, const struct quic_cid *cid,
			   const void *owner);
void *quic_lookup_odcid_find(struct net *net, const u8 *dcid, u32 len);
unsigned int quic_lookup_odcid_count(struct net *net);

int quic_lookup_reset_add(struct net *net, const u8 *token, void *owner,
			  gfp_t gfp);
void quic_lookup_reset_del(struct net *net, const u8 *token,
			   const void *owner);
void *quic_lookup_reset_find(struct net *net, const u8 *token);
void quic_lookup_reset_token(struct net *net, const struct quic_cid *cid,
			     u8 token[QUIC_RESET_TOKEN_LEN]);

int quic_lookup_listen_add(struct sock *sk);
void quic_lookup_listen_del(struct sock *sk);
struct sock *quic_lookup_listener(struct net *net,
				  const struct quic_udp_sock *us, __be16 port,
				  const union quic_addr *peer);
struct sock *quic_lookup_listener_initial(struct net *net,
					  const struct quic_udp_sock *us,
					  __be16 port,
					  const union quic_addr *peer,
					  const u8 *pkt,
					  const struct quic_pkt_hdr *h);
struct sock *quic_lookup_conn(struct net *net, const u8 *dcid, u32 len,
			      const union quic_addr *peer);

#endif /* __NET_QUIC_LOOKUP_H */
