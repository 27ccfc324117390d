// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/udp.c from inside the kernel: what user space cannot
 * reach through a socket yet. Autobind (for connect() and listen()), the
 * reference counting of shared UDP sockets, and quic_udp_xmit(), whose
 * datagrams a plain kernel UDP socket receives.
 */

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/quic.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/udp_tunnel.h>

#include "../socket.h"
#include "../udp.h"

#include "test.h"

static int quic_test_autobind_one(struct quic_test *t, int sfamily,
				  int family, int want)
{
	struct quic_udp_sock *us;
	struct socket *sock;
	struct sock *sk;
	__be16 port;
	int err;

	err = sock_create_kern(&init_net, sfamily, SOCK_DGRAM, IPPROTO_QUIC,
			       &sock);
	if (err)
		return quic_test_fail(t, "sock_create_kern: %d", err);
	sk = sock->sk;
	lock_sock(sk);
	err = quic_sock_autobind(sk, family);
	port = inet_sk(sk)->inet_sport;
	us = quic_sk(sk)->udp;
	if (!err)	/* again: a bound socket stays as it is */
		err = quic_sock_autobind(sk, family);
	release_sock(sk);

	if (err != want)
		err = quic_test_fail(t, "family %d on %d: %d, want %d", family,
				     sfamily, err, want);
	else if (!want && (!port || !us || us->key.port != port ||
			   inet_sk(sk)->inet_sport != port))
		err = quic_test_fail(t, "family %d on %d: port %u", family,
				     sfamily, ntohs(port));
	else if (want && (port || us))
		err = quic_test_fail(t, "failed autobind left port %u",
				     ntohs(port));
	else
		err = 0;
	sock_release(sock);
	return err;
}

static int quic_test_autobind(struct quic_test *t)
{
	return quic_test_autobind_one(t, AF_INET, AF_INET, 0) ?:
	       quic_test_autobind_one(t, AF_INET6, AF_INET6, 0) ?:
	       quic_test_autobind_one(t, AF_INET6, AF_INET, 0) ?:
	       quic_test_autobind_one(t, AF_INET, AF_INET6, -EAFNOSUPPORT) ?:
	       quic_test_autobind_one(t, AF_INET, AF_UNIX, -EAFNOSUPPORT);
}

void quic_test_loopback(struct quic_udp_key *key, int family)
{
	if (family == AF_INET) {
		struct in_addr a = { .s_addr = htonl(INADDR_LOOPBACK) };

		quic_udp_key_init(key, AF_INET, &a, 0, false, 0);
	} else {
		quic_udp_key_init(key, AF_INET6, &in6addr_loopback, 0, false,
				  0);
	}
}

/* The cases below bind loopback addresses: without lo up (KUnit built
 * in runs before user space brings it up) they cannot run.
 */
bool quic_test_lo_up(void)
{
	return init_net.loopback_dev &&
	       (READ_ONCE(init_net.loopback_dev->flags) & IFF_UP);
}

/* Same key, same socket; port 0 is always a new one. */
static int quic_test_share(struct quic_test *t)
{
	struct quic_udp_sock *a, *b, *c;
	struct quic_udp_key key;
	int err = 0;

	if (!quic_test_lo_up())
		return quic_test_skip(t, "lo is down");
	quic_test_loopback(&key, AF_INET);
	a = quic_udp_sock_get(&init_net, &key);
	if (IS_ERR(a))
		return quic_test_fail(t, "get: %ld", PTR_ERR(a));
	c = quic_udp_sock_get(&init_net, &key);
	if (IS_ERR(c)) {
		quic_udp_sock_put(a);
		return quic_test_fail(t, "second get: %ld", PTR_ERR(c));
	}
	key.port = a->key.port;
	b = quic_udp_sock_get(&init_net, &key);
	if (IS_ERR(b))
		err = quic_test_fail(t, "get port %u: %ld", ntohs(key.port),
				     PTR_ERR(b));
	else if (b != a || refcount_read(&a->refcnt) != 2)
		err = quic_test_fail(t, "not shared");
	else if (c == a || c->key.port == a->key.port)
		err = quic_test_fail(t, "port 0 shared a socket");
	if (!IS_ERR(b))
		quic_udp_sock_put(b);
	quic_udp_sock_put(c);
	quic_udp_sock_put(a);
	return err;
}

/* A plain kernel UDP socket on loopback that receives what we send. */
int quic_test_receiver(int family, struct socket **sockp, __be16 *port)
{
	struct udp_port_cfg cfg = {};
	int err;

	cfg.family = family;
	if (family == AF_INET)
		cfg.local_ip.s_addr = htonl(INADDR_LOOPBACK);
	else
		cfg.local_ip6 = in6addr_loopback;
	cfg.use_udp6_rx_checksums = 1;
	err = udp_sock_create(&init_net, &cfg, sockp);
	if (!err)
		*port = inet_sk((*sockp)->sk)->inet_sport;
	return err;
}

void quic_test_addr(union quic_addr *a, int family, __be16 port)
{
	memset(a, 0, sizeof(*a));
	a->sa.sa_family = family;
	if (family == AF_INET) {
		a->v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a->v4.sin_port = port;
	} else {
		a->v6.sin6_addr = in6addr_loopback;
		a->v6.sin6_port = port;
	}
}

static int quic_test_xmit_family(struct quic_test *t, int family)
{
	static const char payload[] = "\x40quic_udp_xmit test payload";
	union quic_addr saddr, daddr, from;
	struct quic_udp_sock *us;
	struct quic_udp_key key;
	struct sk_buff *skb;
	struct socket *rx;
	struct msghdr msg;
	struct kvec iov;
	__be16 rport, fport;
	char buf[64];
	int err, i;

	err = quic_test_receiver(family, &rx, &rport);
	if (err)
		return quic_test_fail(t, "receiver: %d", err);
	quic_test_loopback(&key, family);
	us = quic_udp_sock_get(&init_net, &key);
	if (IS_ERR(us)) {
		udp_tunnel_sock_release(rx);
		return quic_test_fail(t, "get: %ld", PTR_ERR(us));
	}

	skb = alloc_skb(QUIC_UDP_HEADROOM + sizeof(payload), GFP_KERNEL);
	if (!skb) {
		err = -ENOMEM;
		goto out;
	}
	skb_reserve(skb, QUIC_UDP_HEADROOM);
	skb_put_data(skb, payload, sizeof(payload));
	quic_test_addr(&saddr, family, 0);
	quic_test_addr(&daddr, family, rport);
	err = quic_udp_xmit(us, skb, &saddr, &daddr, 0, NULL);
	if (err) {
		err = quic_test_fail(t, "xmit: %d", err);
		goto out;
	}

	for (i = 0; i < 100; i++) {
		memset(&msg, 0, sizeof(msg));
		memset(&from, 0, sizeof(from));
		msg.msg_name = &from;
		msg.msg_namelen = sizeof(from);
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf);
		err = kernel_recvmsg(rx, &msg, &iov, 1, sizeof(buf),
				     MSG_DONTWAIT);
		if (err != -EAGAIN)
			break;
		usleep_range(5000, 10000);
	}
	fport = family == AF_INET ? from.v4.sin_port : from.v6.sin6_port;
	if (err < 0)
		err = quic_test_fail(t, "recvmsg: %d", err);
	else if (err != sizeof(payload) || memcmp(buf, payload, err))
		err = quic_test_fail(t, "received %d bytes, not the payload",
				     err);
	else if (from.sa.sa_family != family || fport != us->key.port)
		err = quic_test_fail(t, "from family %d port %u, want %u",
				     from.sa.sa_family, ntohs(fport),
				     ntohs(us->key.port));
	else
		err = 0;
out:
	quic_udp_sock_put(us);
	udp_tunnel_sock_release(rx);
	return err;
}

static int quic_test_xmit(struct quic_test *t)
{
	if (!quic_test_lo_up())
		return quic_test_skip(t, "lo is down");
	return quic_test_xmit_family(t, AF_INET) ?:
	       quic_test_xmit_family(t, AF_INET6);
}

/* An IPv6 destination from an IPv4 socket, or mixed families: refused. */
static int quic_test_xmit_bad_family(struct quic_test *t)
{
	union quic_addr v4, v6;
	struct quic_udp_sock *us;
	struct quic_udp_key key;
	struct sk_buff *skb;
	int err = 0, i;

	if (!quic_test_lo_up())
		return quic_test_skip(t, "lo is down");
	quic_test_loopback(&key, AF_INET);
	us = quic_udp_sock_get(&init_net, &key);
	if (IS_ERR(us))
		return quic_test_fail(t, "get: %ld", PTR_ERR(us));
	quic_test_addr(&v4, AF_INET, htons(9));
	quic_test_addr(&v6, AF_INET6, htons(9));
	for (i = 0; i < 2 && !err; i++) {
		skb = alloc_skb(QUIC_UDP_HEADROOM + 1, GFP_KERNEL);
		if (!skb) {
			err = -ENOMEM;
			break;
		}
		skb_reserve(skb, QUIC_UDP_HEADROOM);
		skb_put_u8(skb, 0x40);
		err = quic_udp_xmit(us, skb, i ? &v4 : &v6, &v6, 0, NULL);
		if (err == -EAFNOSUPPORT)
			err = 0;
		else
			err = quic_test_fail(t, "case %d: %d", i, err);
	}
	quic_udp_sock_put(us);
	return err;
}

static const struct quic_test_case quic_udp_cases[] = {
	QUIC_TEST_CASE(quic_test_autobind),
	QUIC_TEST_CASE(quic_test_share),
	QUIC_TEST_CASE(quic_test_xmit),
	QUIC_TEST_CASE(quic_test_xmit_bad_family),
};

const struct quic_test_suite quic_udp_suite = {
	.name = "quic_udp",
	.cases = quic_udp_cases,
	.num_cases = ARRAY_SIZE(quic_udp_cases),
};
