// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: answers to datagrams no connection takes, keeping no state.
 *
 * Version Negotiation for a version we do not speak (RFC 9000 6), a
 * Stateless Reset for a short header of an ID no connection holds (10.3),
 * a Retry when a listener validates a client's address (8.1.2), and a
 * CONNECTION_CLOSE for a client's first Initial that a listener refuses:
 * INVALID_TOKEN when its Retry token failed the check, or the transport
 * error of a frame it may not carry.  All but the Retry share a budget per namespace; a Retry
 * is smaller than the Initial it answers, so it needs none.
 */

#include <linux/prandom_siphash.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "crypto.h"
#include "frame.h"
#include "lookup.h"
#include "mib.h"
#include "packet.h"
#include "protocol.h"
#include "socket.h"
#include "stateless.h"
#include "token.h"
#include "udp.h"

/* Longest Version Negotiation: two 255-byte IDs and three versions. */
#define QUIC_STATELESS_VN_MAX	(7 + 2 * 255 + 3 * 4)
/* A Retry: first byte, version, two CIDs with their lengths, token, tag. */
#define QUIC_STATELESS_RETRY_MAX \
	(5 + 2 * (1 + QUIC_CID_MAX_LEN) + QUIC_TOKEN_RETRY_MAX_LEN + \
	 QUIC_RETRY_TAG_LEN)
/* An Initial with CONNECTION_CLOSE: header, 4-byte PN, frame, tag. */
#define QUIC_STATELESS_REFUSE_LEN \
	(7 + 2 * (1 + QUIC_CID_MAX_LEN) + 2 + 4 + 8 + QUIC_PACKET_TAG_LEN)
/* Longest Stateless Reset we send (RFC 9000 10.3: 43 bytes hide it
 * among short packets).
 */
#define QUIC_STATELESS_RESET_MAX	43

static void quic_stateless_send(struct quic_udp_sock *us, const u8 *buf,
				u32 len, const union quic_addr *local,
				const union quic_addr *peer)
{
	struct sk_buff *skb;

	/* No socket of ours holds @us: the last may just have let go. */
	if (!quic_udp_sock_hold(us))
		return;
	skb = quic_udp_alloc_skb(len, GFP_ATOMIC);
	if (skb) {
		skb_put_data(skb, buf, len);
		quic_udp_xmit(us, skb, local, peer, 0, NULL);
	}
	quic_udp_sock_put(us);
}

/* RFC 9000 6.1: a listener answers a version it does not speak, in a
 * datagram big enough to be a client's first (never a VN: that has
 * version 0 and does not come here).
 */
static void quic_stateless_vn(struct net *net, struct quic_udp_sock *us,
			      const struct sk_buff *skb,
			      const struct quic_pkt_hdr *h,
			      const union quic_addr *local,
			      const union quic_addr *peer)
{
	static const u32 versions[] = { QUIC_VERSION_V1, QUIC_VERSION_V2 };
	struct sock *lsk;
	u8 *buf;
	int n;

	if (!quic_packet_initial_size_ok(skb->len))
		return;
	lsk = quic_lookup_listener(net, us, local->v4.sin_port, peer);
	if (!lsk)
		return;
	sock_put(lsk);
	if (!__ratelimit(&quic_net(net)->stateless_rs))
		return;
	buf = kmalloc(QUIC_STATELESS_VN_MAX, GFP_ATOMIC);
	if (!buf)
		return;
	n = quic_packet_build_vn(buf, QUIC_STATELESS_VN_MAX, h, versions,
				 ARRAY_SIZE(versions), get_random_u32());
	if (n > 0)
		quic_stateless_send(us, buf, n, local, peer);
	kfree(buf);
}

/**
 * quic_stateless_retry() - answer a client Initial with a Retry
 * @lsk: the listener, locked
 * @skb: the Initial's datagram
 * @h: its header
 * @local: the address it was sent to
 * @peer: its sender
 *
 * RFC 9000 8.1.2: a new connection ID of ours, and a token that carries
 * the client's first DCID and is bound to its address and port.  Nothing
 * is kept: the Initial that comes back with the token is checked on its
 * own (token.c).  A Retry is smaller than the datagram that caused it.
 */
void quic_stateless_retry(struct sock *lsk, const struct sk_buff *skb,
			  const struct quic_pkt_hdr *h,
			  const union quic_addr *local,
			  const union quic_addr *peer)
{
	u8 buf[QUIC_STATELESS_RETRY_MAX], token[QUIC_TOKEN_RETRY_MAX_LEN];
	struct net *net = sock_net(lsk);
	struct quic_pkt_hdr r = {};
	struct quic_cid odcid, scid;
	int n, len;

	quic_cid_set(&odcid, h->dcid, h->dcid_len);
	scid.len = QUIC_CONN_CID_LEN;
	prandom_siphash_bytes(scid.data, scid.len);
	len = quic_token_make(&quic_net(net)->token_key, QUIC_TOKEN_RETRY,
			      token, peer, &odcid, &scid, NULL,
			      quic_token_now());
	if (len < 0)
		return;
	r.version = h->version;
	r.dcid = h->scid;
	r.dcid_len = h->scid_len;
	r.scid = scid.data;
	r.scid_len = scid.len;
	r.token = token;
	r.token_len = len;
	n = quic_packet_build_retry(buf, sizeof(buf), &r,
				    prandom_siphash_u32());
	if (n < 0 || quic_crypto_retry_tag(buf + n, odcid.data, odcid.len,
					   buf, n, h->version))
		return;
	QUIC_INC_STATS(net, QUIC_MIB_RETRY_SENT);
	quic_stateless_send(quic_sk(lsk)->udp, buf, n + QUIC_RETRY_TAG_LEN,
			    local, peer);
}

/* Initials waiting for their close, at most. */
#define QUIC_STATELESS_REFUSE_MAX	16

/**
 * struct quic_refusal - a client Initial to close
 * @list: link in the namespace's queue
 * @us: the UDP socket to answer from, held
 * @local: the address the Initial was sent to
 * @peer: the client's address
 * @dcid: the Initial's DCID, the source of its keys
 * @scid: the client's SCID
 * @version: the Initial's version
 * @err: the transport error code to close with
 */
struct quic_refusal {
	struct list_head	list;
	struct quic_udp_sock	*us;
	union quic_addr		local;
	union quic_addr		peer;
	struct quic_cid		dcid;
	struct quic_cid		scid;
	u32			version;
	u32			err;
};

/**
 * quic_stateless_refuse() - close a client's attempt that makes no request
 * @lsk: the listener, locked
 * @h: the header of the client's Initial
 * @local: the address it was sent to
 * @peer: its sender
 * @err: the transport error code: INVALID_TOKEN for a Retry token that
 *	failed the check (RFC 9000 8.1.2: the client would take no other
 *	Retry), or the error of a frame the Initial may not carry
 *
 * The client is told at once rather than left to time out, as the
 * connection would have told it. The Initial keys of its DCID are
 * derived in process context: the namespace's work item answers, and
 * keeps no more than a few waiting, within the budget of stateless
 * answers.
 */
void quic_stateless_refuse(struct sock *lsk, const struct quic_pkt_hdr *h,
			   const union quic_addr *local,
			   const union quic_addr *peer, u32 err)
{
	struct quic_net *qn = quic_net(sock_net(lsk));
	struct quic_refusal *r;

	if (READ_ONCE(qn->refuse_len) >= QUIC_STATELESS_REFUSE_MAX ||
	    !__ratelimit(&qn->stateless_rs))
		return;
	r = kmalloc(sizeof(*r), GFP_ATOMIC);
	if (!r)
		return;
	if (!quic_cid_set(&r->dcid, h->dcid, h->dcid_len) ||
	    !quic_cid_set(&r->scid, h->scid, h->scid_len) ||
	    !quic_udp_sock_hold(quic_sk(lsk)->udp)) {
		kfree(r);
		return;
	}
	r->us = quic_sk(lsk)->udp;
	r->local = *local;
	r->peer = *peer;
	r->version = h->version;
	r->err = err;
	spin_lock_bh(&qn->refuse_lock);
	list_add_tail(&r->list, &qn->refuse_q);
	qn->refuse_len++;
	spin_unlock_bh(&qn->refuse_lock);
	schedule_work(&qn->refuse_work);
}

/* A server Initial with CONNECTION_CLOSE (@r->err) for @r in @buf:
 * its length, or a negative errno.
 */
static int quic_refusal_build(const struct quic_refusal *r, u8 *buf,
			      u32 room)
{
	struct quic_frame f = { .type = QUIC_FRAME_CONNECTION_CLOSE };
	struct quic_pkt_hdr h = {};
	struct quic_crypto *k;
	int hlen, n, err;
	u8 payload[8];

	f.close.err = r->err;
	n = quic_frame_encode(payload, sizeof(payload), &f);
	if (n < 0)
		return n;
	k = kcalloc(2, sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	err = quic_crypto_initial_keys(&k[0], &k[1], r->dcid.data, r->dcid.len,
				       r->version, true);
	if (err)
		goto out;
	/* To the client's SCID, from the ID it sent to; no token. */
	h.type = QUIC_PACKET_INITIAL;
	h.version = r->version;
	h.dcid = r->scid.data;
	h.dcid_len = r->scid.len;
	h.scid = r->dcid.data;
	h.scid_len = r->dcid.len;
	hlen = quic_packet_build_long(buf, room, &h, 4, 0, n);
	err = hlen;
	if (hlen < 0)
		goto out;
	memcpy(buf + hlen, payload, n);
	err = quic_crypto_encrypt(&k[1], buf, hlen, 4, 0, n);
	if (!err)
		err = hlen + n + QUIC_PACKET_TAG_LEN;
out:
	quic_crypto_free(&k[0]);
	quic_crypto_free(&k[1]);
	kfree(k);
	return err;
}

/* The next refusal waiting, or NULL. */
static struct quic_refusal *quic_refusal_pop(struct quic_net *qn)
{
	struct quic_refusal *r;

	spin_lock_bh(&qn->refuse_lock);
	r = list_first_entry_or_null(&qn->refuse_q, struct quic_refusal, list);
	if (r) {
		list_del(&r->list);
		qn->refuse_len--;
	}
	spin_unlock_bh(&qn->refuse_lock);
	return r;
}

static void quic_refusal_work(struct work_struct *work)
{
	struct quic_net *qn = container_of(work, struct quic_net, refuse_work);
	struct quic_refusal *r;
	u8 *buf;
	int n;

	/* Not on the stack: the AEAD maps the packet through a scatterlist,
	 * which cannot take a vmalloc'ed stack (CONFIG_VMAP_STACK).
	 * Without memory the refusals go unsent, as a lost datagram.
	 */
	buf = kmalloc(QUIC_STATELESS_REFUSE_LEN, GFP_KERNEL);
	while ((r = quic_refusal_pop(qn))) {
		n = buf ? quic_refusal_build(r, buf, QUIC_STATELESS_REFUSE_LEN) :
			  -ENOMEM;
		if (n > 0)
			quic_stateless_send(r->us, buf, n, &r->local, &r->peer);
		quic_udp_sock_put(r->us);
		kfree(r);
	}
	kfree(buf);
}

/**
 * quic_stateless_init() - a namespace's INVALID_TOKEN queue
 * @qn: the namespace's QUIC state
 */
void quic_stateless_init(struct quic_net *qn)
{
	INIT_LIST_HEAD(&qn->refuse_q);
	spin_lock_init(&qn->refuse_lock);
	qn->refuse_len = 0;
	INIT_WORK(&qn->refuse_work, quic_refusal_work);
}

/**
 * quic_stateless_exit() - drop what waits, at namespace exit
 * @qn: the namespace's QUIC state
 */
void quic_stateless_exit(struct quic_net *qn)
{
	struct quic_refusal *r;

	cancel_work_sync(&qn->refuse_work);
	while ((r = quic_refusal_pop(qn))) {
		quic_udp_sock_put(r->us);
		kfree(r);
	}
}

/* RFC 9000 10.3: a short header for an ID of ours that no connection
 * holds (any more) gets a Stateless Reset with the token of that ID,
 * shorter than the packet, so that two endpoints cannot loop.
 */
static void quic_stateless_reset(struct net *net, struct quic_udp_sock *us,
				 const struct sk_buff *skb,
				 const struct quic_pkt_hdr *h,
				 const union quic_addr *local,
				 const union quic_addr *peer)
{
	u8 buf[QUIC_STATELESS_RESET_MAX], token[QUIC_RESET_TOKEN_LEN];
	struct quic_cid cid;
	u32 len;

	if (skb->len <= QUIC_RESET_MIN_LEN || h->dcid_len != QUIC_CID_LOCAL_LEN)
		return;
	len = min_t(u32, skb->len - 1, QUIC_STATELESS_RESET_MAX);
	if (!__ratelimit(&quic_net(net)->stateless_rs))
		return;
	quic_cid_set(&cid, h->dcid, h->dcid_len);
	quic_lookup_reset_token(net, &cid, token);
	get_random_bytes(buf, len - QUIC_RESET_TOKEN_LEN);
	if (quic_packet_build_stateless_reset(buf, len, buf, token) > 0) {
		QUIC_INC_STATS(net, QUIC_MIB_RESET_SENT);
		quic_stateless_send(us, buf, len, local, peer);
	}
}

/**
 * quic_stateless_reset_sk() - the connection a Stateless Reset is for
 * @net: the namespace
 * @skb: a datagram whose first packet names no connection of ours, at
 *	the QUIC payload
 *
 * Softirq, under RCU. RFC 9000 10.3.1: a datagram that ends with the
 * token of one of the peer IDs a connection used may be a Stateless
 * Reset for it. The caller hands it to that connection as any datagram
 * (input.c: under its lock, or through its backlog while a user holds
 * it), which compares the token again (quic_close_reset_check()).
 *
 * Return: that socket, referenced, or NULL.
 */
struct sock *quic_stateless_reset_sk(struct net *net,
				     const struct sk_buff *skb)
{
	const u8 *token;
	struct sock *sk;

	if (!quic_packet_is_stateless_reset_candidate(quic_udp_payload(skb),
						      skb->len, &token))
		return NULL;
	sk = quic_lookup_reset_find(net, token);
	if (sk && refcount_inc_not_zero(&sk->sk_refcnt))
		return sk;
	return NULL;
}

/**
 * quic_stateless_rcv() - a datagram whose first packet no socket takes
 * @net: the namespace
 * @us: the UDP socket it came on
 * @skb: the datagram, at the QUIC payload; not consumed
 * @h: its first header, as far as it parsed
 * @perr: what quic_packet_parse_header() returned
 * @local: the address it was sent to
 * @peer: its sender
 *
 * Softirq, under RCU; after quic_stateless_reset_sk() found no
 * connection it could reset. A long header of an unknown version at a
 * listener's port gets Version Negotiation; a short header gets a
 * Stateless Reset.
 */
void quic_stateless_rcv(struct net *net, struct quic_udp_sock *us,
			struct sk_buff *skb, const struct quic_pkt_hdr *h,
			int perr, const union quic_addr *local,
			const union quic_addr *peer)
{
	if (perr == -EPROTONOSUPPORT) {
		quic_stateless_vn(net, us, skb, h, local, peer);
		return;
	}
	if (!perr && !h->long_header)
		quic_stateless_reset(net, us, skb, h, local, peer);
}
