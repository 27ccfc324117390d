/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: module and per network namespace state (net/quic/protocol.c).
 */

#ifndef __NET_QUIC_PROTOCOL_H
#define __NET_QUIC_PROTOCOL_H

#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/types.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include "hash.h"
#include "lookup.h"
#include "mib.h"
#include "token.h"
#include "udp.h"

struct proc_dir_entry;

/**
 * struct quic_net - per network namespace state
 * @hash_key: secret key of the tables keyed by values a peer chooses
 * @mib: the MIB counters (mib.c)
 * @proc_dir: /proc/net/quic
 * @udp_lock: serialises creation, lookup and release of @udp_socks
 * @udp_socks: the shared UDP sockets (udp.c), keyed by local address
 *	and port with @hash_key, as a user chooses the address
 * @lookup: the connection ID tables and the listeners (lookup.c)
 * @token_key: the MAC key of address validation tokens (token.c)
 * @retry_threshold: half-open connections on a listener's port beyond
 *	which new clients get a Retry, whatever the listener's backlog
 *	(sysctl net.quic.retry_threshold; negative: no Retry for load)
 * @sysctl: the net.quic sysctl table
 * @stateless_rs: the budget of Version Negotiation packets and Stateless
 *	Resets, answers to datagrams of no connection (stateless.c): per
 *	namespace, so that one namespace cannot spend another's
 * @refuse_lock: protects @refuse_q and @refuse_len
 * @refuse_q: client Initials with a bad Retry token, waiting for
 *	@refuse_work to answer them with CONNECTION_CLOSE (stateless.c)
 * @refuse_len: entries in @refuse_q
 * @refuse_work: answers @refuse_q in process context, where the Initial
 *	keys can be derived
 * @socks_lock: protects @socks
 * @socks: every QUIC socket of the namespace (socklist.c)
 */
struct quic_net {
	struct quic_hash_key		hash_key;
	DEFINE_SNMP_STAT(struct quic_mib, mib);
	struct proc_dir_entry		*proc_dir;
	struct mutex			udp_lock;	/* the UDP socket table */
	struct hlist_head		udp_socks[1 << QUIC_UDP_HASH_BITS];
	struct quic_lookup_net		lookup;
	struct quic_token_key		token_key;
	int				retry_threshold;
	struct ctl_table_header		*sysctl;
	struct ratelimit_state		stateless_rs;
	spinlock_t			refuse_lock;	/* refuse_q */
	struct list_head		refuse_q;
	unsigned int			refuse_len;
	struct work_struct		refuse_work;
	spinlock_t			socks_lock;	/* socks */
	struct hlist_head		socks;
};

/* Version Negotiation packets and Stateless Resets per second. */
#define QUIC_STATELESS_PER_SEC		100

extern unsigned int quic_net_id;

static inline struct quic_net *quic_net(const struct net *net)
{
	return net_generic(net, quic_net_id);
}

#endif /* __NET_QUIC_PROTOCOL_H */
