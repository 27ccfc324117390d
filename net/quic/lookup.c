// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: finding the socket a datagram is for (see lookup.h).
 *
 * Every table is per network namespace, in struct quic_lookup_net, and
 * hashed as net/quic/hash.h says from who chooses its keys:
 *
 * - our connection IDs: 8 random bytes from prandom_siphash, unpredictable
 *   to an observer, so the fast unkeyed hash;
 * - the original or initial DCID of a client, seen before the client
 *   knows any ID of ours: the peer chose it, so SipHash under a key of the
 *   table's own;
 * - the peers' Stateless Reset Tokens, their choice too: keyed as well;
 * - the listeners, by local port: ports are chosen by local users, not by
 *   peers, so the fast hash. A bucket holds the listeners of every address
 *   bound to ports that hash there; the lookup walks that bucket only.
 *
 * Listeners on one address and port with disjoint ALPN sets are told
 * apart by the ALPN list of the client's ClientHello (quic-api.rst 7.4).
 * Reading it means decrypting a copy of the Initial (initial.c) and
 * parsing the ClientHello (alpn.c), which costs several times what the
 * rest of the receive path does for that packet; it is done only for a
 * port whose listeners do not all serve the same set, never for a port
 * with one listener (or one SO_REUSEPORT group), even one with an ALPN
 * set: there the TLS library refuses a client whose protocols it lacks.
 *
 * Our own Stateless Reset Tokens are computed, not stored: a PRF of the ID
 * (quic_cid_reset_token()) under the secret key of the namespace.
 */

#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/sock.h>
#include "alpn.h"
#include "conn.h"
#include "connid.h"
#include "export.h"
#include "hash.h"
#include "initial.h"
#include "lookup.h"
#include "mib.h"
#include "packet.h"
#include "protocol.h"
#include "socket.h"

/* Bounds of log2 of the buckets of a namespace's ID tables. */
#define QUIC_LOOKUP_TABLE_MIN_BITS	6
#define QUIC_LOOKUP_TABLE_MAX_BITS	14

/* Tries to draw an 8-byte ID that no connection of the namespace uses. */
#define QUIC_LOOKUP_ISSUE_TRIES		4

static unsigned int quic_lookup_table_bits __read_mostly;

static struct quic_lookup_net *quic_lookup_net(struct net *net)
{
	return &quic_net(net)->lookup;
}

/**
 * quic_lookup_init() - size the ID tables of the namespaces to come
 *
 * Each table gets one bucket per 64 pages of memory (256 KiB with 4 KiB
 * pages), between 2^6 and 2^14 buckets, like SCTP's tables sized by
 * memory, but per namespace and so smaller. Called once, before the
 * first namespace is set up.
 */
void quic_lookup_init(void)
{
	unsigned long goal = totalram_pages() >> 6;

	quic_lookup_table_bits = clamp_t(unsigned int,
					 goal ? ilog2(goal) : 0,
					 QUIC_LOOKUP_TABLE_MIN_BITS,
					 QUIC_LOOKUP_TABLE_MAX_BITS);
}

/**
 * quic_lookup_net_init() - set up the lookup tables of a namespace
 * @ln: the namespace's lookup state, zeroed
 *
 * Return: 0 or -ENOMEM.
 */
int quic_lookup_net_init(struct quic_lookup_net *ln)
{
	int err, i;

	spin_lock_init(&ln->lock);
	for (i = 0; i < ARRAY_SIZE(ln->listeners); i++)
		INIT_HLIST_HEAD(&ln->listeners[i]);

	err = quic_cidtable_init(&ln->cid, quic_lookup_table_bits, false);
	if (err)
		goto err_cid;
	err = quic_cidtable_init(&ln->odcid, quic_lookup_table_bits, true);
	if (err)
		goto err_odcid;
	err = quic_cidtable_init(&ln->reset, quic_lookup_table_bits, true);
	if (err)
		goto err_reset;
	quic_hash_key_init(&ln->reset_key);
	quic_hash_key_init(&ln->reuseport_key);
	return 0;

err_reset:
	quic_cidtable_destroy(&ln->reset);
err_odcid:
	quic_cidtable_destroy(&ln->odcid);
err_cid:
	quic_cidtable_destroy(&ln->cid);
	return err;
}

/**
 * quic_lookup_net_exit() - free the lookup tables of a namespace
 * @ln: the namespace's lookup state
 *
 * Every connection and request has removed its IDs by now; what is left
 * is freed and reported as a leak.
 */
void quic_lookup_net_exit(struct quic_lookup_net *ln)
{
	unsigned int left;

	left = quic_cidtable_destroy(&ln->cid);
	left += quic_cidtable_destroy(&ln->odcid);
	left += quic_cidtable_destroy(&ln->reset);
	if (left)
		pr_err("quic: %u connection IDs leaked in a namespace\n", left);
	memzero_explicit(&ln->reset_key, sizeof(ln->reset_key));
}

/**
 * quic_lookup_cid_add() - map one of our IDs to its connection
 * @net: the namespace
 * @cid: the ID
 * @owner: the connection
 * @gfp: allocation flags
 *
 * Return: as quic_cidtable_add().
 */
int quic_lookup_cid_add(struct net *net, const struct quic_cid *cid,
			void *owner, gfp_t gfp)
{
	return quic_cidtable_add(&quic_lookup_net(net)->cid, cid, owner, gfp);
}

/**
 * quic_lookup_cid_del() - remove one of our IDs
 * @net: the namespace
 * @cid: the ID
 * @owner: the connection it was added for
 */
void quic_lookup_cid_del(struct net *net, const struct quic_cid *cid,
			 const void *owner)
{
	quic_cidtable_del(&quic_lookup_net(net)->cid, cid, owner);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_cid_del);

/**
 * quic_lookup_cid_find() - the connection a packet is addressed to
 * @net: the namespace
 * @dcid: the packet's Destination Connection ID
 * @len: its length
 *
 * Caller holds rcu_read_lock().
 *
 * Return: the owner, or NULL.
 */
void *quic_lookup_cid_find(struct net *net, const u8 *dcid, u32 len)
{
	return quic_cidtable_find(&quic_lookup_net(net)->cid, dcid, len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_cid_find);

/**
 * quic_lookup_cid_count() - how many of our IDs a namespace holds
 * @net: the namespace
 *
 * Return: the number of entries of its table.
 */
unsigned int quic_lookup_cid_count(struct net *net)
{
	return READ_ONCE(quic_lookup_net(net)->cid.count);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_cid_count);

/**
 * quic_lookup_cid_issue() - issue a new ID of ours
 * @net: the namespace
 * @set: the connection's source set
 * @owner: the connection, for the namespace table
 * @gfp: allocation flags
 * @entry: set to the new entry, whose number, ID and token go into a
 *	NEW_CONNECTION_ID frame (or the handshake, for number 0)
 *
 * Draws a random ID that no connection of @net uses, adds it to the table
 * and gives it its token and the next sequence number.
 *
 * Return: 0, -ENOSPC if the peer's limit is reached, -ENOMEM, or -EBUSY
 * if every draw collided (which takes a broken random source).
 */
int quic_lookup_cid_issue(struct net *net, struct quic_cid_set *set,
			  void *owner, gfp_t gfp,
			  const struct quic_cid_entry **entry)
{
	u8 token[QUIC_RESET_TOKEN_LEN];
	struct quic_cid cid;
	int err, tries;
	u64 seq;

	if (quic_cid_set_active_count(set) >= set->limit ||
	    set->count >= QUIC_CID_SET_SLOTS)
		return -ENOSPC;
	for (tries = 0; tries < QUIC_LOOKUP_ISSUE_TRIES; tries++) {
		quic_cid_generate(&cid);
		err = quic_lookup_cid_add(net, &cid, owner, gfp);
		if (err != -EEXIST)
			break;
	}
	if (err)
		return err == -EEXIST ? -EBUSY : err;
	quic_lookup_reset_token(net, &cid, token);
	err = quic_cid_src_add(set, &cid, token, &seq);
	if (err) {
		quic_lookup_cid_del(net, &cid, owner);
		return err;
	}
	*entry = quic_cid_set_find(set, seq);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_cid_issue);

/**
 * quic_lookup_odcid_add() - map a client-chosen DCID to its listener or
 *	request
 * @net: the namespace
 * @cid: the DCID of the client's first Initial
 * @owner: the listener or request
 * @gfp: allocation flags
 *
 * Return: as quic_cidtable_add().
 */
int quic_lookup_odcid_add(struct net *net, const struct quic_cid *cid,
			  void *owner, gfp_t gfp)
{
	return quic_cidtable_add(&quic_lookup_net(net)->odcid, cid, owner, gfp);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_odcid_add);

/**
 * quic_lookup_odcid_del() - remove a client-chosen DCID
 * @net: the namespace
 * @cid: the DCID
 * @owner: the owner it was added for
 */
void quic_lookup_odcid_del(struct net *net, const struct quic_cid *cid,
			   const void *owner)
{
	quic_cidtable_del(&quic_lookup_net(net)->odcid, cid, owner);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_odcid_del);

/**
 * quic_lookup_odcid_find() - the owner of a client-chosen DCID
 * @net: the namespace
 * @dcid: the DCID of a client Initial or 0-RTT packet
 * @len: its length
 *
 * Caller holds rcu_read_lock().
 *
 * Return: the owner, or NULL.
 */
void *quic_lookup_odcid_find(struct net *net, const u8 *dcid, u32 len)
{
	return quic_cidtable_find(&quic_lookup_net(net)->odcid, dcid, len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_odcid_find);

/**
 * quic_lookup_odcid_count() - how many client-chosen DCIDs a namespace
 *	holds
 * @net: the namespace
 *
 * Return: the number of entries of its table.
 */
unsigned int quic_lookup_odcid_count(struct net *net)
{
	return READ_ONCE(quic_lookup_net(net)->odcid.count);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_odcid_count);

/* A token as the key of the reset table. */
static void quic_lookup_reset_key(struct quic_cid *k, const u8 *token)
{
	k->len = QUIC_RESET_TOKEN_LEN;
	memcpy(k->data, token, QUIC_RESET_TOKEN_LEN);
}

/**
 * quic_lookup_reset_add() - map a peer's Stateless Reset Token to its
 *	connection
 * @net: the namespace
 * @token: the 16-byte token of the peer's ID we send to
 * @owner: the connection
 * @gfp: allocation flags
 *
 * A Stateless Reset carries no ID of ours (RFC 9000, section 10.3), so it
 * is found by its token. The peer chose it: keyed hash.
 *
 * Return: as quic_cidtable_add().
 */
int quic_lookup_reset_add(struct net *net, const u8 *token, void *owner,
			  gfp_t gfp)
{
	struct quic_cid k;

	quic_lookup_reset_key(&k, token);
	return quic_cidtable_add(&quic_lookup_net(net)->reset, &k, owner, gfp);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_reset_add);

/**
 * quic_lookup_reset_del() - remove a peer's token
 * @net: the namespace
 * @token: the token
 * @owner: the connection it was added for
 */
void quic_lookup_reset_del(struct net *net, const u8 *token,
			   const void *owner)
{
	struct quic_cid k;

	quic_lookup_reset_key(&k, token);
	quic_cidtable_del(&quic_lookup_net(net)->reset, &k, owner);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_reset_del);

/**
 * quic_lookup_reset_find() - the connection a Stateless Reset is for
 * @net: the namespace
 * @token: the last 16 bytes of the datagram
 *
 * Caller holds rcu_read_lock(), and compares the token again in constant
 * time (quic_cid_dest_match_reset()) before acting on it.
 *
 * Return: the owner, or NULL.
 */
void *quic_lookup_reset_find(struct net *net, const u8 *token)
{
	return quic_cidtable_find(&quic_lookup_net(net)->reset, token,
				  QUIC_RESET_TOKEN_LEN);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_reset_find);

/**
 * quic_lookup_reset_token() - the Stateless Reset Token of an ID of ours
 * @net: the namespace, whose secret keys the token
 * @cid: the ID
 * @token: set to the token
 */
void quic_lookup_reset_token(struct net *net, const struct quic_cid *cid,
			     u8 token[QUIC_RESET_TOKEN_LEN])
{
	quic_cid_reset_token(&quic_lookup_net(net)->reset_key, cid, token);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_lookup_reset_token);

static struct hlist_head *quic_lookup_bucket(struct quic_lookup_net *ln,
					     __be16 port)
{
	u32 h = quic_fast_hash_u32((__force u32)port);

	return &ln->listeners[quic_hash_bucket(h, QUIC_LOOKUP_LISTEN_BITS)];
}

/* Listeners of one address (their UDP socket) and port. */
static bool quic_lookup_same_addr(const struct sock *a, const struct sock *b)
{
	return inet_sk(a)->inet_sport == inet_sk(b)->inet_sport &&
	       quic_sk(a)->udp == quic_sk(b)->udp;
}

/**
 * quic_lookup_listen_add() - make a listener findable by new Initials
 * @sk: the socket, bound, its ALPN set final (sockopt.c refuses
 *	QUIC_SOCKOPT_ALPN on a listening socket)
 *
 * quic-api.rst 5.1: another listener on the same address and port is
 * allowed when both have SO_REUSEPORT and the same ALPN set (they form a
 * group, and each connection goes to one of them), or when the two ALPN
 * sets are disjoint (connections are told apart by the ClientHello's
 * ALPN; a listener without ALPN is disjoint from every set and takes the
 * ClientHellos without one). Sets that overlap without being equal would
 * leave a protocol with two owners: -EADDRINUSE.
 *
 * Return: 0 or -EADDRINUSE.
 */
int quic_lookup_listen_add(struct sock *sk)
{
	struct quic_lookup_net *ln = quic_lookup_net(sock_net(sk));
	struct quic_conn *oc, *c = &quic_sk(sk)->conn;
	struct hlist_head *head;
	struct sock *osk;
	int err = 0;

	head = quic_lookup_bucket(ln, inet_sk(sk)->inet_sport);
	spin_lock_bh(&ln->lock);
	if (c->listen.listening)
		goto out;
	hlist_for_each_entry(oc, head, listen.node) {
		osk = quic_conn_sk(oc);
		if (!quic_lookup_same_addr(sk, osk))
			continue;
		switch (quic_alpn_list_cmp(quic_sk(sk)->opts.alpn,
					   quic_sk(sk)->opts.alpn_len,
					   quic_sk(osk)->opts.alpn,
					   quic_sk(osk)->opts.alpn_len)) {
		case QUIC_ALPN_SAME:
			if (!sk->sk_reuseport || !osk->sk_reuseport)
				err = -EADDRINUSE;
			break;
		case QUIC_ALPN_DISJOINT:
			break;
		default:
			err = -EADDRINUSE;
			break;
		}
		if (err)
			goto out;
	}
	hlist_add_head_rcu(&c->listen.node, head);
	c->listen.listening = 1;
out:
	spin_unlock_bh(&ln->lock);
	return err;
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
	struct quic_lookup_net *ln = quic_lookup_net(sock_net(sk));
	struct quic_conn *c = &quic_sk(sk)->conn;

	spin_lock_bh(&ln->lock);
	if (c->listen.listening) {
		hlist_del_init_rcu(&c->listen.node);
		c->listen.listening = 0;
	}
	spin_unlock_bh(&ln->lock);
}

/* The keyed hash of a client's address and port. */
static u32 quic_lookup_peer_hash(const struct quic_lookup_net *ln,
				 const union quic_addr *peer)
{
	u8 in[2 + 16];
	u32 n = 2;

	/* sin_port and sin6_port are at the same offset. */
	memcpy(in, &peer->v4.sin_port, 2);
	if (peer->sa.sa_family == AF_INET6) {
		memcpy(in + n, &peer->v6.sin6_addr, 16);
		n += 16;
	} else {
		memcpy(in + n, &peer->v4.sin_addr, 4);
		n += 4;
	}
	return quic_keyed_hash(&ln->reuseport_key, in, n);
}

/* The listeners a client Initial may go to: those of its port on the UDP
 * socket (the local address) it arrived on.
 */
static bool quic_lookup_candidate(const struct sock *sk,
				  const struct quic_udp_sock *us, __be16 port)
{
	return inet_sk(sk)->inet_sport == port && quic_sk(sk)->udp == us;
}

/* A listener's ALPN set, read under RCU. A hashed listener's set does not
 * change, but a reader may meet a socket that has just left the table
 * and is being given a new one: the length is read once and bounded, and
 * the walks never pass it, so the worst is one misdirected Initial.
 */
static u32 quic_lookup_alpn(const struct sock *sk, const u8 **list)
{
	const struct quic_sock_opts *o = &quic_sk(sk)->opts;

	*list = o->alpn;
	return min_t(u32, READ_ONCE(o->alpn_len), sizeof(o->alpn));
}

/* Whether two listeners of a port serve the same ALPN set. The sets of
 * listeners in the table are equal or disjoint (quic_lookup_listen_add()),
 * so the first protocol of one decides.
 */
static bool quic_lookup_same_set(const struct sock *a, const struct sock *b)
{
	const u8 *pa, *pb;
	u32 la, lb;

	la = quic_lookup_alpn(a, &pa);
	lb = quic_lookup_alpn(b, &pb);
	if (!la || !lb)
		return la == lb;
	return pb[0] < lb && quic_alpn_list_has(pa, la, pb + 1, pb[0]);
}

/* The first candidate whose set holds the protocol @name, or with @name
 * NULL, the first without ALPN.
 */
static struct sock *quic_lookup_match(struct hlist_head *head,
				      const struct quic_udp_sock *us,
				      __be16 port, const u8 *name, u32 len)
{
	struct quic_conn *c;
	const u8 *list;
	struct sock *sk;
	u32 n;

	hlist_for_each_entry_rcu(c, head, listen.node) {
		sk = quic_conn_sk(c);
		if (!quic_lookup_candidate(sk, us, port))
			continue;
		n = quic_lookup_alpn(sk, &list);
		if (name ? quic_alpn_list_has(list, n, name, len) : !n)
			return sk;
	}
	return NULL;
}

/* Read the ClientHello of the Initial @pkt for the listener it asks for
 * (quic-api.rst 7.4): @rep is set to a listener of the chosen set, or to
 * NULL when the packet does not tell (any candidate may take it).
 *
 * Return: 0, or a negative errno when the packet is to be dropped: it is
 * counted here.
 */
static int quic_lookup_hello(struct net *net, struct hlist_head *head,
			     const struct quic_udp_sock *us, __be16 port,
			     const u8 *pkt, const struct quic_pkt_hdr *h,
			     struct sock **rep)
{
	u32 off, len, list_len, i;
	const u8 *list;
	u8 *copy;
	int ret;

	*rep = NULL;
	copy = kmemdup(pkt, h->pkt_len, GFP_ATOMIC | __GFP_NOWARN);
	if (!copy)
		return -ENOMEM;
	ret = quic_initial_open(copy, h, &off, &len);
	if (ret) {
		QUIC_DROP(net, NULL, ret == -EBADMSG ? QUIC_MIB_DROP_DECRYPT :
				     QUIC_MIB_DROP_MALFORMED);
		goto out;
	}
	ret = quic_alpn_initial_frames(copy + off, len, &list, &list_len);
	switch (ret) {
	case QUIC_ALPN_HELLO_LIST:
		/* The client's order decides, not the listeners'. */
		for (i = 0; i < list_len && !*rep; i += 1 + list[i])
			*rep = quic_lookup_match(head, us, port, list + i + 1,
						 list[i]);
		break;
	case QUIC_ALPN_HELLO_NONE:
		*rep = quic_lookup_match(head, us, port, NULL, 0);
		break;
	case QUIC_ALPN_HELLO_UNKNOWN:
		ret = 0;
		goto out;
	case QUIC_ALPN_HELLO_ABSENT:
		/* No listener would make a connection of it, and any that
		 * took it would wake its accept() for nothing.
		 */
		QUIC_DROP(net, NULL, QUIC_MIB_DROP_NOCONN);
		ret = -ENOENT;
		goto out;
	default:
		QUIC_DROP(net, NULL, QUIC_MIB_DROP_MALFORMED);
		goto out;
	}
	ret = 0;
	if (!*rep) {
		QUIC_DROP(net, NULL, QUIC_MIB_ALPN_NOMATCH);
		ret = -ENOENT;
	}
out:
	kfree(copy);
	return ret;
}

/* One of the candidates of the set of @rep (of all, with @rep NULL): a
 * keyed hash of the client's address and port picks it, so that every
 * Initial of a connection reaches the same member of a SO_REUSEPORT
 * group and a client cannot choose.
 */
static struct sock *quic_lookup_pick(struct quic_lookup_net *ln,
				     struct hlist_head *head,
				     const struct quic_udp_sock *us,
				     __be16 port, const union quic_addr *peer,
				     const struct sock *rep)
{
	struct sock *sk, *best = NULL;
	struct quic_conn *c;
	u32 n = 0, pick;

	hlist_for_each_entry_rcu(c, head, listen.node) {
		sk = quic_conn_sk(c);
		if (quic_lookup_candidate(sk, us, port) &&
		    (!rep || quic_lookup_same_set(sk, rep))) {
			best = sk;
			n++;
		}
	}
	if (n < 2)
		return best;
	pick = quic_lookup_peer_hash(ln, peer) % n;
	hlist_for_each_entry_rcu(c, head, listen.node) {
		sk = quic_conn_sk(c);
		if (quic_lookup_candidate(sk, us, port) &&
		    (!rep || quic_lookup_same_set(sk, rep)) && !pick--)
			return sk;
	}
	return best;	/* the table changed under us */
}

/**
 * quic_lookup_listener_initial() - find the listener for a client Initial
 * @net: the namespace
 * @us: the UDP socket the datagram arrived on
 * @port: its local port
 * @peer: its sender
 * @pkt: the Initial, for the ClientHello; NULL not to read it
 * @h: its parsed header (unused when @pkt is NULL)
 *
 * Under RCU, in softirq. The candidates are the listeners of @port on
 * @us. When they do not all serve the same ALPN set, a copy of the
 * Initial is decrypted and its ClientHello chooses the set (quic-api.rst
 * 7.4): the first protocol of the client's list that a set holds; no ALPN
 * extension, the listener without ALPN; no ClientHello at offset 0, or
 * one cut off before its ALPN, any. A malformed or undecryptable Initial,
 * one without CRYPTO data (a client's close), or one that no set matches,
 * is counted and dropped. Without @pkt any candidate will do. Within the
 * chosen set, quic_lookup_pick(). With no candidate, a listener of @port
 * on another UDP socket takes the packet.
 *
 * Return: the socket with a reference held, or NULL.
 */
struct sock *quic_lookup_listener_initial(struct net *net,
					  const struct quic_udp_sock *us,
					  __be16 port,
					  const union quic_addr *peer,
					  const u8 *pkt,
					  const struct quic_pkt_hdr *h)
{
	struct quic_lookup_net *ln = quic_lookup_net(net);
	struct hlist_head *head = quic_lookup_bucket(ln, port);
	struct sock *sk, *first = NULL, *other = NULL, *rep = NULL;
	bool mixed = false;
	struct quic_conn *c;

	hlist_for_each_entry_rcu(c, head, listen.node) {
		sk = quic_conn_sk(c);
		if (inet_sk(sk)->inet_sport != port)
			continue;
		if (quic_sk(sk)->udp != us)
			other = sk;
		else if (!first)
			first = sk;
		else if (!mixed)
			mixed = !quic_lookup_same_set(first, sk);
	}
	if (!first) {
		sk = other;
	} else {
		if (mixed && pkt &&
		    quic_lookup_hello(net, head, us, port, pkt, h, &rep))
			return NULL;
		sk = quic_lookup_pick(ln, head, us, port, peer, rep);
	}
	if (sk && !refcount_inc_not_zero(&sk->sk_refcnt))
		sk = NULL;
	return sk;
}

/**
 * quic_lookup_listener() - find a listener of a shared UDP socket
 * @net: the namespace
 * @us: the UDP socket the datagram arrived on
 * @port: its local port
 * @peer: its sender
 *
 * Under RCU. As quic_lookup_listener_initial() without a packet to read:
 * for replies that only need to know that the port is listened on.
 *
 * Return: the socket with a reference held, or NULL.
 */
struct sock *quic_lookup_listener(struct net *net,
				  const struct quic_udp_sock *us, __be16 port,
				  const union quic_addr *peer)
{
	return quic_lookup_listener_initial(net, us, port, peer, NULL, NULL);
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
	struct sock *sk = quic_lookup_cid_find(net, dcid, len);

	if (!sk) {
		sk = quic_lookup_odcid_find(net, dcid, len);
		if (sk && memcmp(&quic_sk(sk)->conn.paths.peer, peer, sizeof(*peer)))
			sk = NULL;
	}
	if (sk && !refcount_inc_not_zero(&sk->sk_refcnt))
		sk = NULL;
	return sk;
}
