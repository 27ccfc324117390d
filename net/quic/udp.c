// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the kernel UDP sockets under QUIC sockets.
 *
 * QUIC sockets on one local address and port share one kernel UDP socket
 * (quic-api.rst, section 3). Each network namespace keeps them in a small
 * table keyed by (family, address, port, V6ONLY, interface), hashed with
 * the namespace's SipHash key since users choose the address. The table
 * is only used in process context (bind and release) under a mutex; the
 * receive path finds its quic_udp_sock through the UDP socket's
 * sk_user_data under RCU.
 *
 * The UDP sockets follow the rules of ordinary UDP sockets, because they
 * are ordinary UDP sockets: a specific address and the wildcard address
 * of the same family cannot both hold a port, and neither can "::"
 * without IPV6_V6ONLY and "0.0.0.0". An IPv6 wildcard UDP socket takes
 * IPV6_V6ONLY from the QUIC socket, so "::" with V6ONLY and "0.0.0.0" can
 * share a port, as they can for UDP; "::" with and without V6ONLY are
 * different sockets (and so conflict). Port 0 always makes a new UDP
 * socket, on a port the kernel picks.
 *
 * A quic_udp_sock lives while it has references: taken by bind (later by
 * connections and paths), dropped by close, in any context. The last
 * reference queues a work item that unhashes and releases the UDP socket
 * (which sleeps) and frees the structure after an RCU grace period.
 */

#include <linux/errno.h>
#include <linux/prandom_siphash.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/dst_cache.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "export.h"
#include "mib.h"
#include "protocol.h"
#include "udp.h"

/* Any non-zero type: the UDP core calls encap_rcv only when one is set.
 * The other tunnels that are not xfrm encapsulations use 1 as well.
 */
#define QUIC_UDP_ENCAP_TYPE	1

static struct workqueue_struct *quic_udp_wq;
/* The receive path's entry, given to quic_udp_init(). */
static quic_udp_rcv_t quic_udp_encap_rcv __ro_after_init;

/**
 * quic_udp_key_init() - build the key of a shared UDP socket
 * @key: the key to fill
 * @family: %AF_INET or %AF_INET6
 * @addr: a struct in_addr or struct in6_addr, by @family
 * @port: the port, 0 for one the kernel picks
 * @v6only: IPV6_V6ONLY of the QUIC socket; used for "::" only
 * @ifindex: the interface to bind to, or 0
 */
void quic_udp_key_init(struct quic_udp_key *key, int family,
		       const void *addr, __be16 port, bool v6only,
		       int ifindex)
{
	memset(key, 0, sizeof(*key));
	key->family = family;
	key->port = port;
	key->ifindex = ifindex;
	if (family == AF_INET) {
		memcpy(&key->addr.v4, addr, sizeof(key->addr.v4));
	} else {
		memcpy(&key->addr.v6, addr, sizeof(key->addr.v6));
		key->v6only = v6only && ipv6_addr_any(&key->addr.v6);
	}
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_udp_key_init);

static struct hlist_head *quic_udp_bucket(struct quic_net *qn,
					  const struct quic_udp_key *key)
{
	u32 h = quic_keyed_hash(&qn->hash_key, key, sizeof(*key));

	return &qn->udp_socks[quic_hash_bucket(h, QUIC_UDP_HASH_BITS)];
}

static void quic_udp_sock_release(struct quic_udp_sock *us)
{
	struct socket *sock = us->sock;

	if (!sock)
		return;
	hlist_del(&us->node);
	us->sock = NULL;
	rcu_assign_sk_user_data(sock->sk, NULL);
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
}

static void quic_udp_sock_release_work(struct work_struct *work)
{
	struct quic_udp_sock *us = container_of(work, struct quic_udp_sock,
						release_work);
	struct quic_net *qn = quic_net(us->net);

	mutex_lock(&qn->udp_lock);
	quic_udp_sock_release(us);
	mutex_unlock(&qn->udp_lock);
	kfree_rcu(us, rcu);
}

static int quic_udp_xmit4(struct quic_udp_sock *us, struct sk_buff *skb,
			  const struct sockaddr_in *saddr,
			  const struct sockaddr_in *daddr, u8 tos,
			  struct dst_cache *cache)
{
	struct sock *sk = us->sock->sk;
	struct net *net = sock_net(sk);
	struct rtable *rt = NULL;
	struct flowi4 fl4 = {};

	fl4.flowi4_oif = sk->sk_bound_dev_if;
	fl4.flowi4_tos = RT_TOS(tos);
	fl4.flowi4_proto = IPPROTO_UDP;
	fl4.flowi4_mark = sk->sk_mark;
	fl4.daddr = daddr->sin_addr.s_addr;
	fl4.saddr = saddr->sin_addr.s_addr;
	fl4.fl4_dport = daddr->sin_port;
	fl4.fl4_sport = us->key.port;
	if (cache) {
		local_bh_disable();
		rt = dst_cache_get_ip4(cache, &fl4.saddr);
		local_bh_enable();
	}
	if (!rt) {
		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt)) {
			kfree_skb(skb);
			return PTR_ERR(rt);
		}
		if (cache) {
			local_bh_disable();
			dst_cache_set_ip4(cache, &rt->dst, fl4.saddr);
			local_bh_enable();
		}
	}
	/* RFC 9000 14: never fragmented, DF set. */
	udp_tunnel_xmit_skb(rt, sk, skb, fl4.saddr, fl4.daddr, tos,
			    ip4_dst_hoplimit(&rt->dst), htons(IP_DF),
			    us->key.port, daddr->sin_port, false, false);
	return 0;
}

static int quic_udp_xmit6(struct quic_udp_sock *us, struct sk_buff *skb,
			  const struct sockaddr_in6 *saddr,
			  const struct sockaddr_in6 *daddr, u8 tos,
			  struct dst_cache *cache)
{
	struct sock *sk = us->sock->sk;
	struct dst_entry *dst = NULL;
	struct net *net = sock_net(sk);
	struct flowi6 fl6 = {};
	int type;

	fl6.flowi6_oif = sk->sk_bound_dev_if;
	type = ipv6_addr_type(&daddr->sin6_addr);
	if (!fl6.flowi6_oif && __ipv6_addr_needs_scope_id(type))
		fl6.flowi6_oif = daddr->sin6_scope_id;
	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.flowi6_mark = sk->sk_mark;
	fl6.daddr = daddr->sin6_addr;
	fl6.saddr = saddr->sin6_addr;
	fl6.fl6_dport = daddr->sin6_port;
	fl6.fl6_sport = us->key.port;
	if (cache) {
		local_bh_disable();
		dst = dst_cache_get_ip6(cache, &fl6.saddr);
		local_bh_enable();
	}
	if (!dst) {
		dst = ipv6_stub->ipv6_dst_lookup_flow(net, sk, &fl6, NULL);
		if (IS_ERR(dst)) {
			kfree_skb(skb);
			return PTR_ERR(dst);
		}
		if (cache) {
			local_bh_disable();
			dst_cache_set_ip6(cache, dst, &fl6.saddr);
			local_bh_enable();
		}
	}
	/* No device: the helper would count the datagram in the per-CPU
	 * tunnel statistics (dev->tstats) of the device given, and the
	 * route's device is no tunnel (loopback's per-CPU block is half
	 * that size, so the counts landed in its neighbour's memory).
	 */
	udp_tunnel6_xmit_skb(dst, sk, skb, NULL, &fl6.saddr, &fl6.daddr, tos,
			     ip6_dst_hoplimit(dst), 0, us->key.port,
			     daddr->sin6_port, false);
	return 0;
}

/**
 * quic_udp_xmit() - send a QUIC datagram from a shared UDP socket
 * @us: the UDP socket, which the caller holds a reference on
 * @skb: the UDP payload, with %QUIC_UDP_HEADROOM bytes of headroom, and
 *	no device (the IPv4 helper counts in the tunnel statistics of
 *	skb->dev, which only a tunnel device has)
 * @saddr: the source address (the port is ignored: it is @us's), or the
 *	wildcard address to let routing choose
 * @daddr: the destination address and port
 * @tos: the TOS byte (IPv4) or traffic class (IPv6)
 * @cache: the route cache of the sender's path, or NULL (a reply of no
 *	connection); it must be reset when the path's addresses change
 *
 * Routes the datagram (through @cache if given, as tunnels do) and hands
 * it to the UDP tunnel transmit helpers, which add the UDP and IP
 * headers. An IPv6 destination needs an IPv6 UDP
 * socket; an IPv4 one may leave from either family.
 *
 * Return: 0 once sent or queued, otherwise a negative errno (no route,
 * family mismatch). @skb is consumed either way.
 */
int quic_udp_xmit(struct quic_udp_sock *us, struct sk_buff *skb,
		  const union quic_addr *saddr, const union quic_addr *daddr,
		  u8 tos, struct dst_cache *cache)
{
	u16 segs = max_t(u16, skb_shinfo(skb)->gso_segs, 1);
	int err;

	PRANDOM_SIPHASH_ADD_NOISE(skb->len, skb, daddr->v4.sin_port, jiffies);
	if (daddr->sa.sa_family != saddr->sa.sa_family ||
	    (daddr->sa.sa_family == AF_INET6 && us->key.family != AF_INET6)) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	if (daddr->sa.sa_family == AF_INET)
		err = quic_udp_xmit4(us, skb, &saddr->v4, &daddr->v4, tos,
				     cache);
	else
		err = quic_udp_xmit6(us, skb, &saddr->v6, &daddr->v6, tos,
				     cache);
	if (!err)	/* datagrams: a GSO skb counts its segments */
		SNMP_ADD_STATS(quic_net(us->net)->mib, QUIC_MIB_PKT_OUT, segs);
	return err;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_udp_xmit);

static struct quic_udp_sock *quic_udp_sock_create(struct net *net,
						  const struct quic_udp_key *key)
{
	struct udp_tunnel_sock_cfg tcfg = {};
	struct udp_port_cfg cfg = {};
	struct quic_udp_sock *us;
	struct socket *sock;
	int err;

	us = kzalloc(sizeof(*us), GFP_KERNEL);
	if (!us)
		return ERR_PTR(-ENOMEM);

	cfg.family = key->family;
	if (key->family == AF_INET) {
		cfg.local_ip = key->addr.v4;
	} else {
		cfg.local_ip6 = key->addr.v6;
		cfg.ipv6_v6only = key->v6only;
		cfg.use_udp6_tx_checksums = 1;
		cfg.use_udp6_rx_checksums = 1;
	}
	cfg.use_udp_checksums = 1;
	cfg.local_udp_port = key->port;
	cfg.bind_ifindex = key->ifindex;
	err = udp_sock_create(net, &cfg, &sock);
	if (err) {
		kfree(us);
		return ERR_PTR(err);
	}

	us->key = *key;
	us->key.port = inet_sk(sock->sk)->inet_sport;
	us->sock = sock;
	us->net = net;
	refcount_set(&us->refcnt, 1);
	atomic_set(&us->half_open, 0);
	INIT_WORK(&us->release_work, quic_udp_sock_release_work);

	tcfg.sk_user_data = us;
	tcfg.encap_type = QUIC_UDP_ENCAP_TYPE;
	tcfg.encap_rcv = quic_udp_encap_rcv;
	setup_udp_tunnel_sock(net, sock, &tcfg);
	/* A tunnel asks for its checksums converted to CHECKSUM_COMPLETE,
	 * for the packets it carries; QUIC carries none. Without it the UDP
	 * core cuts a GSO skb (udp_rcv_segment()) with the checksums left
	 * partial, instead of summing every byte of every datagram again.
	 * The UDP checksum is still verified before our encap_rcv.
	 */
	inet_dec_convert_csum(sock->sk);
	/* UDP GRO: devices coalesce the datagrams of a flow; those skbs, and
	 * GSO skbs looped back whole (lo, veth), come to the receive path as
	 * they are, so that their datagrams are processed in a row.
	 */
	udp_set_bit(GRO_ENABLED, sock->sk);
	udp_allow_gso(sock->sk);
	return us;
}

/* Release now the sockets on @port whose last user is gone but whose
 * release work has not run, so that the port can be bound again at once.
 */
static bool quic_udp_release_dead(struct quic_net *qn, __be16 port)
{
	struct quic_udp_sock *us;
	struct hlist_node *tmp;
	bool found = false;
	int i;

	for (i = 0; i < ARRAY_SIZE(qn->udp_socks); i++) {
		hlist_for_each_entry_safe(us, tmp, &qn->udp_socks[i], node) {
			if (us->key.port != port || refcount_read(&us->refcnt))
				continue;
			quic_udp_sock_release(us);
			found = true;
		}
	}
	return found;
}

/**
 * quic_udp_sock_get() - find or create the UDP socket of a local address
 * @net: the namespace
 * @key: the local address and port (from quic_udp_key_init())
 *
 * With a port of 0, always creates a new UDP socket on a port the kernel
 * picks; &quic_udp_sock.key holds it. Process context only: it sleeps.
 *
 * Return: a reference on the socket, to drop with quic_udp_sock_put(), or
 * an ERR_PTR(): -EADDRINUSE if a socket that QUIC does not share holds
 * the port, otherwise the error of creating or binding the UDP socket.
 */
struct quic_udp_sock *quic_udp_sock_get(struct net *net,
					const struct quic_udp_key *key)
{
	struct quic_net *qn = quic_net(net);
	struct quic_udp_sock *us;

	mutex_lock(&qn->udp_lock);
	if (key->port) {
		hlist_for_each_entry(us, quic_udp_bucket(qn, key), node) {
			if (!memcmp(&us->key, key, sizeof(*key)) &&
			    refcount_inc_not_zero(&us->refcnt))
				goto out;
		}
	}
	us = quic_udp_sock_create(net, key);
	if (IS_ERR(us) && PTR_ERR(us) == -EADDRINUSE && key->port &&
	    quic_udp_release_dead(qn, key->port))
		us = quic_udp_sock_create(net, key);
	if (!IS_ERR(us))
		hlist_add_head(&us->node, quic_udp_bucket(qn, &us->key));
out:
	mutex_unlock(&qn->udp_lock);
	return us;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_udp_sock_get);

/**
 * quic_udp_sock_hold() - take a reference on a shared UDP socket found
 *	under RCU (the receive path's)
 * @us: the socket
 *
 * Any context, under RCU. A datagram that no QUIC socket takes may
 * arrive while the last reference goes and the release work clears
 * @us->sock: whoever sends on @us without a socket of its own holding a
 * reference must hold one for the send.
 *
 * Return: true with a reference taken, false if @us is being released.
 */
bool quic_udp_sock_hold(struct quic_udp_sock *us)
{
	return refcount_inc_not_zero(&us->refcnt);
}

/**
 * quic_udp_sock_put() - drop a reference on a shared UDP socket
 * @us: the socket, from quic_udp_sock_get()
 *
 * Any context. The last reference queues the release of the UDP socket.
 */
void quic_udp_sock_put(struct quic_udp_sock *us)
{
	if (refcount_dec_and_test(&us->refcnt))
		queue_work(quic_udp_wq, &us->release_work);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_udp_sock_put);

/**
 * quic_udp_net_init() - set up a namespace's table of UDP sockets
 * @net: the namespace
 */
void quic_udp_net_init(struct net *net)
{
	struct quic_net *qn = quic_net(net);
	int i;

	mutex_init(&qn->udp_lock);
	for (i = 0; i < ARRAY_SIZE(qn->udp_socks); i++)
		INIT_HLIST_HEAD(&qn->udp_socks[i]);
}

/**
 * quic_udp_net_exit() - wait for a namespace's UDP sockets to go away
 * @net: the namespace
 *
 * Every QUIC socket holds a reference on its namespace, so by now all of
 * them are closed; only queued releases may remain.
 */
void quic_udp_net_exit(struct net *net)
{
	struct quic_net *qn = quic_net(net);
	int i;

	flush_workqueue(quic_udp_wq);
	for (i = 0; i < ARRAY_SIZE(qn->udp_socks); i++)
		WARN_ON_ONCE(!hlist_empty(&qn->udp_socks[i]));
}

/* The UDP core tests for encapsulation sockets behind static keys
 * (udp_encap_needed_key, and udpv6_encap_needed_key for IPv6), which
 * each encapsulation socket holds. Left to our shared sockets, the keys
 * would go from off to on and back each time the first QUIC socket of
 * the host binds and its last one closes: every flip rewrites each site
 * of the key in the kernel's text, with rounds of IPIs to every CPU, and
 * a client that opens and closes one connection at a time would pay that
 * for each. These unbound UDP sockets, one per family, hold the keys on
 * from module load to unload instead; they receive nothing and take no
 * port.
 */
static struct socket *quic_udp_keys[2];

static void quic_udp_keys_put(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(quic_udp_keys); i++) {
		if (quic_udp_keys[i])
			sock_release(quic_udp_keys[i]);
		quic_udp_keys[i] = NULL;
	}
}

static int quic_udp_keys_hold(void)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct socket *sock;
	int err, i;

	for (i = 0; i < ARRAY_SIZE(families); i++) {
		err = sock_create_kern(&init_net, families[i], SOCK_DGRAM,
				       IPPROTO_UDP, &sock);
		/* Without IPv6 (ipv6.disable=1) there is no IPv6 key. */
		if (err == -EAFNOSUPPORT && families[i] == AF_INET6)
			continue;
		if (err) {
			quic_udp_keys_put();
			return err;
		}
		udp_tunnel_encap_enable(sock->sk);
		quic_udp_keys[i] = sock;
	}
	return 0;
}

/**
 * quic_udp_init() - module-wide setup of the UDP socket layer
 * @encap_rcv: the encap_rcv hook of every UDP socket made from now on:
 *	it consumes every datagram and returns 0 (input.c)
 *
 * Return: 0, -ENOMEM, or the error of creating a UDP socket.
 */
int quic_udp_init(quic_udp_rcv_t encap_rcv)
{
	int err;

	quic_udp_encap_rcv = encap_rcv;
	quic_udp_wq = alloc_workqueue("quic_udp", 0, 0);
	if (!quic_udp_wq)
		return -ENOMEM;
	err = quic_udp_keys_hold();
	if (err)
		destroy_workqueue(quic_udp_wq);
	return err;
}

/**
 * quic_udp_exit() - module-wide teardown of the UDP socket layer
 */
void quic_udp_exit(void)
{
	destroy_workqueue(quic_udp_wq);
	quic_udp_keys_put();
}
