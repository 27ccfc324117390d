// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/gso.c: a batch of datagrams built in page fragments
 * is cut back into the same datagrams (here by the UDP core of a plain
 * kernel UDP socket, on lo), and a batch refuses what it cannot take.
 */

#include <linux/in.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/quic.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/udp_tunnel.h>

#include "../gso.h"
#include "../udp.h"

#include "test.h"

#define QUIC_TEST_GSO_SIZE	1000
#define QUIC_TEST_GSO_SEGS	6
#define QUIC_TEST_GSO_LAST	600

static u8 quic_test_gso_byte(int seg, int i)
{
	return 0x40 | ((seg * 7 + i) & 0x3f);
}

/* Fill datagram @seg of @len bytes into @skb's batch. */
static int quic_test_gso_add(struct quic_test *t, struct sock *sk,
			     struct sk_buff *skb, int seg, u32 len)
{
	u32 room, i;
	u8 *p;

	p = quic_gso_reserve(sk, skb, len, U32_MAX, GFP_KERNEL);
	if (!p || p != quic_gso_tail(sk, &room) || room < len)
		return quic_test_fail(t, "no room for datagram %d", seg);
	for (i = 0; i < len; i++)
		p[i] = quic_test_gso_byte(seg, i);
	quic_gso_put(sk, skb, len);
	return 0;
}

/* Receive datagram @seg and check it. */
static int quic_test_gso_recv(struct quic_test *t, struct socket *rx,
			      int seg, u32 len)
{
	struct msghdr msg = {};
	struct kvec iov;
	u8 *buf;
	int n, i;

	buf = kmalloc(QUIC_TEST_GSO_SIZE + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	iov.iov_base = buf;
	iov.iov_len = QUIC_TEST_GSO_SIZE + 1;
	for (i = 0; i < 100; i++) {
		n = kernel_recvmsg(rx, &msg, &iov, 1, iov.iov_len,
				   MSG_DONTWAIT);
		if (n != -EAGAIN)
			break;
		usleep_range(5000, 10000);
	}
	if (n != len) {
		kfree(buf);
		return quic_test_fail(t, "datagram %d: %d bytes, want %u", seg,
				      n, len);
	}
	for (i = 0; i < len; i++) {
		if (buf[i] != quic_test_gso_byte(seg, i)) {
			kfree(buf);
			return quic_test_fail(t, "datagram %d: byte %d", seg,
					      i);
		}
	}
	kfree(buf);
	return 0;
}

static int quic_test_gso_batch(struct quic_test *t)
{
	union quic_addr saddr, daddr;
	struct quic_udp_sock *us;
	struct quic_udp_key key;
	struct socket *sock, *rx;
	struct sk_buff *skb;
	u32 truesize;
	__be16 rport;
	int err, i;

	if (!quic_test_lo_up())
		return quic_test_skip(t, "lo is down");
	err = sock_create_kern(&init_net, AF_INET, SOCK_DGRAM, IPPROTO_QUIC,
			       &sock);
	if (err)
		return quic_test_fail(t, "sock_create_kern: %d", err);
	err = quic_test_receiver(AF_INET, &rx, &rport);
	if (err) {
		sock_release(sock);
		return quic_test_fail(t, "receiver: %d", err);
	}
	quic_test_loopback(&key, AF_INET);
	us = quic_udp_sock_get(&init_net, &key);
	if (IS_ERR(us)) {
		err = quic_test_fail(t, "get: %ld", PTR_ERR(us));
		us = NULL;
		goto out;
	}
	lock_sock(sock->sk);
	skb = quic_gso_alloc(GFP_KERNEL);
	if (!skb) {
		release_sock(sock->sk);
		err = -ENOMEM;
		goto out;
	}
	truesize = skb->truesize;
	for (i = 0; i < QUIC_TEST_GSO_SEGS && !err; i++)
		err = quic_test_gso_add(t, sock->sk, skb, i,
					i < QUIC_TEST_GSO_SEGS - 1 ?
					QUIC_TEST_GSO_SIZE : QUIC_TEST_GSO_LAST);
	/* One page holds them all: one fragment, continued. */
	if (!err && (skb_headlen(skb) || skb_shinfo(skb)->nr_frags != 1 ||
		     skb->len != 5 * QUIC_TEST_GSO_SIZE + QUIC_TEST_GSO_LAST ||
		     skb->truesize != truesize + skb->len))
		err = quic_test_fail(t, "batch: head %u frags %u len %u",
				     skb_headlen(skb),
				     skb_shinfo(skb)->nr_frags, skb->len);
	/* A datagram planned is not all of the socket's page: kept. */
	quic_gso_idle(sock->sk);
	if (!err && !sock->sk->sk_frag.page)
		err = quic_test_fail(t, "page given back while in a batch");
	release_sock(sock->sk);
	if (err) {
		kfree_skb(skb);
		goto out;
	}
	quic_gso_finish(skb, QUIC_TEST_GSO_SIZE, QUIC_TEST_GSO_SEGS);
	quic_test_addr(&saddr, AF_INET, 0);
	quic_test_addr(&daddr, AF_INET, rport);
	err = quic_udp_xmit(us, skb, &saddr, &daddr, 0, NULL);
	if (err) {
		err = quic_test_fail(t, "xmit: %d", err);
		goto out;
	}
	for (i = 0; i < QUIC_TEST_GSO_SEGS && !err; i++)
		err = quic_test_gso_recv(t, rx, i,
					 i < QUIC_TEST_GSO_SEGS - 1 ?
					 QUIC_TEST_GSO_SIZE :
					 QUIC_TEST_GSO_LAST);
	/* Received and freed: nothing holds the page but the socket. */
	lock_sock(sock->sk);
	quic_gso_idle(sock->sk);
	if (!err && sock->sk->sk_frag.page)
		err = quic_test_fail(t, "idle page kept");
	release_sock(sock->sk);
out:
	if (us)
		quic_udp_sock_put(us);
	udp_tunnel_sock_release(rx);
	sock_release(sock);
	return err;
}

/* A batch takes no datagram larger than a page fragment, no more
 * fragments than an skb has and no more bytes than its most; what it
 * took stays whole.
 */
static int quic_test_gso_limits(struct quic_test *t)
{
	struct socket *sock;
	struct page_frag *pf;
	struct sk_buff *skb;
	u32 room, len = 0;
	int err, i;

	err = sock_create_kern(&init_net, AF_INET, SOCK_DGRAM, IPPROTO_QUIC,
			       &sock);
	if (err)
		return quic_test_fail(t, "sock_create_kern: %d", err);
	pf = &sock->sk->sk_frag;
	lock_sock(sock->sk);
	skb = quic_gso_alloc(GFP_KERNEL);
	if (!skb) {
		err = -ENOMEM;
		goto out;
	}
	if (quic_gso_reserve(sock->sk, skb,
			     (PAGE_SIZE << SKB_FRAG_PAGE_ORDER) + 1, U32_MAX,
			     GFP_KERNEL)) {
		err = quic_test_fail(t, "took more than a page fragment");
		goto out;
	}
	/* Each datagram fills what is left of its page: the next needs a
	 * page, and a fragment, of its own. The last leaves a byte.
	 */
	for (i = 0; i < MAX_SKB_FRAGS; i++) {
		if (!quic_gso_reserve(sock->sk, skb, 1, U32_MAX, GFP_KERNEL)) {
			err = quic_test_fail(t, "datagram %d refused", i);
			goto out;
		}
		quic_gso_tail(sock->sk, &room);
		room -= i == MAX_SKB_FRAGS - 1;
		quic_gso_put(sock->sk, skb, room);
		len += room;
	}
	if (skb_shinfo(skb)->nr_frags != MAX_SKB_FRAGS || skb->len != len) {
		err = quic_test_fail(t, "%u fragments, %u bytes",
				     skb_shinfo(skb)->nr_frags, skb->len);
		goto out;
	}
	if (quic_gso_reserve(sock->sk, skb, 2, U32_MAX, GFP_KERNEL))
		err = quic_test_fail(t, "a fragment beyond MAX_SKB_FRAGS");
	else if (quic_gso_reserve(sock->sk, skb, 1, len, GFP_KERNEL))
		err = quic_test_fail(t, "a byte beyond the batch's most");
	else if (!quic_gso_reserve(sock->sk, skb, 1, U32_MAX, GFP_KERNEL))
		err = quic_test_fail(t, "the last fragment cannot continue");
	else if (!pf->page)
		err = quic_test_fail(t, "no page");
out:
	kfree_skb(skb);
	quic_gso_idle(sock->sk);
	if (!err && pf->page)
		err = quic_test_fail(t, "idle page kept");
	release_sock(sock->sk);
	sock_release(sock);
	return err;
}

static const struct quic_test_case quic_gso_cases[] = {
	QUIC_TEST_CASE(quic_test_gso_batch),
	QUIC_TEST_CASE(quic_test_gso_limits),
};

const struct quic_test_suite quic_gso_suite = {
	.name = "quic_gso",
	.cases = quic_gso_cases,
	.num_cases = ARRAY_SIZE(quic_gso_cases),
};
