// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: finding the socket a datagram is for (see lookup.h).
 *
 * The listener hash is per network namespace and keyed by the local port
 * with the fast unkeyed hash: ports are chosen by local users, not by
 * peers. A bucket holds the listeners of every address bound to ports
 * that hash there; the lookup walks that bucket only.
 */

#include <linux/rculist.h>
#include <net/sock.h>
#include <net/quic/conn.h>
#include <net/quic/connid.h>
#include <net/quic/export.h>
#include <net/quic/hash.h>
#include <net/quic/lookup.h>
#include <net/quic/protocol.h>
#include <net/quic/socket.h>

/**
 * quic_lookup_net_init() - set up the listener hash of a namespace
 * @ln: the namespace's lookup state
 */
void quic_lookup_net_init(struct quic_lookup_net *ln)
{
	int i;

	spin_lock_init(&ln->lock);
	for (i = 0; i < ARRAY_SIZE(ln->listeners); i++)
		INIT_HLIST_HEAD(&ln->listeners[i]);
}

static struct hlist_head *quic_lookup_bucket(struct quic_lookup_net *ln,
					     __be16 port)
{
	u32 h = quic_fast_hash_u32((__force u32)port);

	return &ln->listeners[quic_hash_bucket(h, QUIC_LOOKUP_LISTEN_BITS)];
}

/**
 * quic_lookup_listen_add() - make a listener findable by new Initials
 * @sk: the socket, bound
 */
void quic_lookup_listen_add(struct sock *sk)
{
	struct quic_lookup_net *ln = &quic_net(sock_net(sk))->lookup;
	struct quic_conn *c = &quic_sk(sk)->conn;

	spin_lock_bh(&ln->lock);
	if (!c->listening) {
		hlist_add_head_rcu(&c->listen_node,
				   quic_lookup_bucket(ln,
						      inet_sk(sk)->inet_sport));
		c->listening = 1;
	}
	spin_unlock_bh(&ln->lock);
}

/**
 * quic_lookup_listen_del() - new Initials stop finding a listener
 * @sk: the socket
 *
 * Lookups already under way may still return it: sockets are freed after
 * an RCU grace period (SOCK_RCU_FREE).
 */
void quic_lookup_listen_del(struct sock *sk)
{
	struct quic_lookup_net *ln = &quic_net(sock_net(sk))->lookup;
	struct quic_conn *c = &quic_sk(sk)->conn;

	spin_lock_bh(&ln->lock);
	if (c->listening) {
		hlist_del_init_rcu(&c->listen_node);
		c->listening = 0;
	}
	spin_unlock_bh(&ln->lock);
}

/**
 * quic_lookup_listener() - find the listener of a shared UDP socket
 * @net: the namespace
 * @us: the UDP socket the datagram arrived on
 * @port: its local port
 *
 * Under RCU. A listener on the same UDP socket wins over one that only
 * shares the port.
 *
 * Return: the socket with a reference held, or NULL.
 */
struct sock *quic_lookup_listener(struct net *net,
				  const struct quic_udp_sock *us, __be16 port)
{
	struct quic_lookup_net *ln = &quic_net(net)->lookup;
	struct sock *sk, *best = NULL;
	struct quic_conn *c;

	hlist_for_each_entry_rcu(c, quic_lookup_bucket(ln, port), listen_node) {
		sk = quic_conn_sk(c);
		if (inet_sk(sk)->inet_sport != port)
			continue;
		best = sk;
		if (quic_sk(sk)->udp == us)
			break;
	}
	if (best && !refcount_inc_not_zero(&best->sk_refcnt))
		best = NULL;
	return best;
}

/**
 * quic_lookup_conn() - find the connection a packet is for
 * @net: the namespace
 * @dcid: the packet's DCID
 * @len: its length
 * @peer: the sender, for the original-DCID match of a server
 *
 * Under RCU. Sockets are freed after a grace period (SOCK_RCU_FREE), so
 * an owner found in a table may be dereferenced before its reference is
 * taken.
 *
 * Return: the socket with a reference held, or NULL.
 */
struct sock *quic_lookup_conn(struct net *net, const u8 *dcid, u32 len,
			      const union quic_addr *peer)
{
	struct sock *sk = quic_cid_table_lookup(net, dcid, len);

	if (!sk) {
		sk = quic_odcid_table_lookup(net, dcid, len);
		if (sk && memcmp(&quic_sk(sk)->conn.peer, peer, sizeof(*peer)))
			sk = NULL;
	}
	if (sk && !refcount_inc_not_zero(&sk->sk_refcnt))
		sk = NULL;
	return sk;
}
