// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: GSO batches built in page fragments.
 *
 * The datagrams of a batch are sealed straight into the pages of the
 * socket's page fragment (sk->sk_frag, as UDP and TCP kernel sockets
 * use it), each within one page, and the batch's skb references them.
 * Compared with a batch in one linear buffer, this saves a copy and a
 * large zeroed allocation per datagram wherever the batch is cut in
 * software: on lo and veth, the UDP core segments it before our
 * encapsulation hook (udp_unexpected_gso()), and a linear skb is cut by
 * copying each datagram into a new one, while a paged one is cut by
 * reference. The page is used again once nothing references it
 * (skb_page_frag_refill()), so a steady transfer allocates, and zeroes,
 * few pages.
 *
 * sk->sk_frag is written under the socket lock only: by flushes, which
 * run with the socket owned or under its spinlock.
 */

#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/sock.h>

#include "export.h"
#include "gso.h"
#include "udp.h"

/**
 * quic_gso_alloc() - an empty batch
 * @gfp: allocation flags
 *
 * Return: an skb with room for the headers only, or NULL.
 */
struct sk_buff *quic_gso_alloc(gfp_t gfp)
{
	return quic_udp_alloc_skb(0, gfp | __GFP_NOWARN);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_gso_alloc);

/* Whether @len bytes at the page fragment's offset can go in @skb: into
 * its last fragment, which they continue, or into a fragment of their
 * own.
 */
static bool quic_gso_fits(struct sk_buff *skb, const struct page_frag *pf)
{
	int i = skb_shinfo(skb)->nr_frags;

	return i < MAX_SKB_FRAGS ||
	       skb_can_coalesce(skb, i, pf->page, pf->offset);
}

/**
 * quic_gso_tail() - where the next datagram of a batch is written
 * @sk: the socket, locked
 * @room: set to the bytes that may be written there
 *
 * Return: the address, or NULL (@room 0) if there is no page.
 */
u8 *quic_gso_tail(struct sock *sk, u32 *room)
{
	struct page_frag *pf = &sk->sk_frag;

	if (!pf->page) {
		*room = 0;
		return NULL;
	}
	*room = pf->size - pf->offset;
	return page_address(pf->page) + pf->offset;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_gso_tail);

/**
 * quic_gso_reserve() - room for the next datagram of a batch
 * @sk: the socket, locked
 * @skb: the batch
 * @len: bytes it needs, contiguous
 * @max: bytes the batch may hold in all
 * @gfp: allocation flags
 *
 * Takes a new page when the current one has no room left, or none: so
 * a datagram planned at quic_gso_tail() must be put before this is
 * called again.
 *
 * Return: where to write, or NULL if no page could be had, or @skb has
 * no fragment or byte of @max left for it (send it and start another).
 */
u8 *quic_gso_reserve(struct sock *sk, struct sk_buff *skb, u32 len, u32 max,
		     gfp_t gfp)
{
	struct page_frag *pf = &sk->sk_frag;
	u32 room;
	u8 *p;

	if (skb->len + len > max)
		return NULL;
	p = quic_gso_tail(sk, &room);
	if (p && room >= len)
		return quic_gso_fits(skb, pf) ? p : NULL;
	if (skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS)
		return NULL;
	if (!skb_page_frag_refill(len, pf, gfp))
		return NULL;
	p = quic_gso_tail(sk, &room);
	if (room >= len && !PageHighMem(pf->page))
		return p;
	/* The refill's fallback, a single page, is too small: give it back,
	 * or every refill after would find it unused and reuse it.
	 */
	quic_gso_idle(sk);
	return NULL;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_gso_reserve);

/**
 * quic_gso_put() - a datagram was written at quic_gso_tail(): add it
 * @sk: the socket, locked
 * @skb: the batch
 * @len: its length, at most the room quic_gso_reserve() gave
 */
void quic_gso_put(struct sock *sk, struct sk_buff *skb, u32 len)
{
	struct page_frag *pf = &sk->sk_frag;
	int i = skb_shinfo(skb)->nr_frags;

	if (skb_can_coalesce(skb, i, pf->page, pf->offset)) {
		skb_frag_size_add(&skb_shinfo(skb)->frags[i - 1], len);
	} else {
		get_page(pf->page);
		skb_fill_page_desc(skb, i, pf->page, pf->offset, len);
	}
	pf->offset += len;
	skb_len_add(skb, len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_gso_put);

/**
 * quic_gso_finish() - make a batch of several datagrams a GSO skb
 * @skb: the batch
 * @size: the size of its datagrams but the last, which may be shorter
 * @segs: how many it holds
 *
 * The UDP checksum of each is left to where the batch is cut: the device,
 * or the software segmentation, where the UDP header is pushed
 * (udp_set_csum() of a GSO skb only seeds it with the pseudo header).
 */
void quic_gso_finish(struct sk_buff *skb, u32 size, u16 segs)
{
	skb_shinfo(skb)->gso_size = size;
	skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
	skb_shinfo(skb)->gso_segs = segs;
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_headroom(skb) - sizeof(struct udphdr);
	skb->csum_offset = offsetof(struct udphdr, check);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_gso_finish);

/**
 * quic_gso_idle() - nothing waits to be sent: give the page back if no
 *	datagram still references it
 * @sk: the socket, locked
 *
 * So that an idle connection holds no page; a busy one keeps its page as
 * long as it sends.
 */
void quic_gso_idle(struct sock *sk)
{
	struct page_frag *pf = &sk->sk_frag;

	if (pf->page && page_ref_count(pf->page) == 1) {
		put_page(pf->page);
		pf->page = NULL;
		pf->offset = 0;
		pf->size = 0;
	}
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_gso_idle);
