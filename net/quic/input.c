// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: received datagrams to connections and listeners.
 *
 * quic_input_udp_rcv(), the encap_rcv hook of the shared UDP sockets
 * (udp.c), checks each datagram and hands it to quic_in_rcv(), in
 * softirq under RCU. The first packet's DCID finds the connection; an
 * Initial for no connection goes to the listener of the port, which
 * queues a request for accept() if it begins a ClientHello. The socket
 * processes the datagram at once, or from its backlog when a user holds
 * it.
 *
 * Per packet: header protection off, packet number expanded, payload
 * decrypted, then the frames decoded and checked against the level. A
 * packet whose level has no receive key yet is parked (with the rest of
 * its datagram) until the key arrives. Violations close the connection
 * with the transport error. Every dropped datagram is counted.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include <linux/nospec.h>
#include <linux/prandom_siphash.h>
#include <linux/slab.h>
#ifdef QUIC_HAVE_SKBUFF_REF	/* skb_frag_unref() there since 6.10 */
#include <linux/skbuff_ref.h>
#endif
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/udp.h>

#include "close.h"
#include "conn.h"
#include "ctrl.h"
#include "datagram.h"
#include "event.h"
#include "frame.h"
#include "initial.h"
#include "input.h"
#include "keyupdate.h"
#include "lookup.h"
#include "loss.h"
#include "mib.h"
#include "output.h"
#include "packet.h"
#include "path.h"
#include "protocol.h"
#include "sendq.h"
#include "socket.h"
#include "stateless.h"
#include "stream_in.h"
#include "varint.h"
#include "version.h"

#define QUIC_IN_ACK_RANGES	16

/* The sender of a datagram, its ECN bits and the UDP socket it arrived
 * on (compared, never used: it may be gone by the time the datagram is
 * processed), kept in skb->cb while it waits; @reset: it names no
 * connection of ours and ends with a token of the socket's peer, a
 * Stateless Reset candidate (quic_stateless_reset_sk()).
 */
struct quic_in_cb {
	union quic_addr	peer;
	u8		ecn;
	u8		reset:1;
	const struct quic_udp_sock *us;
};

#define QUIC_IN_CB(skb)	((struct quic_in_cb *)(skb)->cb)

static void quic_in_addrs(const struct sk_buff *skb, union quic_addr *local,
			  union quic_addr *peer)
{
	const struct udphdr *uh = udp_hdr(skb);

	memset(local, 0, sizeof(*local));
	memset(peer, 0, sizeof(*peer));
	if (ip_hdr(skb)->version == 4) {
		local->v4.sin_family = AF_INET;
		local->v4.sin_addr.s_addr = ip_hdr(skb)->daddr;
		local->v4.sin_port = uh->dest;
		peer->v4.sin_family = AF_INET;
		peer->v4.sin_addr.s_addr = ip_hdr(skb)->saddr;
		peer->v4.sin_port = uh->source;
	} else {
		local->v6.sin6_family = AF_INET6;
		local->v6.sin6_addr = ipv6_hdr(skb)->daddr;
		local->v6.sin6_port = uh->dest;
		peer->v6.sin6_family = AF_INET6;
		peer->v6.sin6_addr = ipv6_hdr(skb)->saddr;
		peer->v6.sin6_port = uh->source;
		if (ipv6_addr_type(&peer->v6.sin6_addr) & IPV6_ADDR_LINKLOCAL)
			peer->v6.sin6_scope_id = inet6_iif(skb);
	}
}

static void quic_in_drop(struct sock *sk, struct sk_buff *skb, int field)
{
	QUIC_DROP(sock_net(sk), sk, field);
	kfree_skb(skb);
}

/* A connection error (RFC 9000 11.1): CONNECTION_CLOSE, then closed. */
static void quic_in_error(struct sock *sk, u32 err)
{
	quic_output_close(sk, err, GFP_ATOMIC);
	quic_close_conn(sk, err);
}

/* Bytes of the receive buffer that CRYPTO data waiting for a gap holds. */
static u32 quic_in_crypto_held(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 held = 0;
	int i;

	for (i = 0; i < QUIC_PNSPACE_NUM; i++)
		held += c->space.at[i]->crypto_in.mem;
	return held;
}

/* Queue the in-order CRYPTO data of @level for the handshake reader, one
 * skb per piece of the reassembly (quic-api.rst 4.3 c: one contiguous
 * chunk per recvmsg()). The receive queue takes it while the buffer,
 * without the data still waiting for a gap, has room. Return false if
 * in-order data is left behind (no room or no memory).
 */
static bool quic_in_crypto_deliver(struct sock *sk, u8 level)
{
	struct quic_reasm *r = &quic_sk(sk)->conn.space.at[level]->crypto_in;
	struct sk_buff *skb;
	bool queued = false;
	const u8 *data;
	u32 n;

	while ((n = quic_reasm_peek(r, &data))) {
		if ((s64)atomic_read(&sk->sk_rmem_alloc) -
		    quic_in_crypto_held(sk) > READ_ONCE(sk->sk_rcvbuf))
			break;
		skb = alloc_skb(n, GFP_ATOMIC | __GFP_NOWARN);
		if (!skb)
			break;
		skb_put_data(skb, data, n);
		QUIC_CRYPTO_CB(skb)->level = level;
		quic_reasm_pull(r, n);
		skb_set_owner_r(skb, sk);
		skb_queue_tail(&sk->sk_receive_queue, skb);
		queued = true;
	}
	if (queued)
		sk->sk_data_ready(sk);
	return !n;
}

/* CRYPTO at Initial or Handshake: reassembled (RFC 9000 7.5), delivered
 * in order to the receive queue; no room or no memory: the packet is not
 * acknowledged (the peer sends it again, and that delivers what waits).
 * At 1-RTT: a session ticket (quic_conn_crypto_app()).
 */
static int quic_in_crypto(struct quic_in_pkt *in, const struct quic_frame *f)
{
	struct quic_pnspace *s = quic_sk(in->sk)->conn.space.at[in->level];
	int err;

	if (in->level == QUIC_CRYPTO_APP) {
		if (quic_conn_crypto_app(in->sk, f))
			quic_in_no_ack(in);
		return 0;
	}
	if (s->discarded)
		return 0;
	err = quic_reasm_add(&s->crypto_in, f->data.offset, f->data.data,
			     f->data.len);
	if (err == -EPROTO)
		return quic_in_violation(in,
					 QUIC_TRANSPORT_ERROR_CRYPTO_BUF_EXCEEDED);
	if (!quic_in_crypto_deliver(in->sk, in->level) || err)
		quic_in_no_ack(in);
	return 0;
}

/* ACK, ACK_ECN: what they acknowledge is delivered (loss.c). */
static int quic_in_ack(struct quic_in_pkt *in, const struct quic_frame *f)
{
	int err;

	err = quic_loss_ack_rcvd(in->sk, in->level,
				 f->type == QUIC_FRAME_ACK_ECN, &f->ack,
				 f->ranges);
	if (err == -EPROTO)
		return quic_in_violation(in,
					 QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
	if (err < 0)
		return quic_in_violation(in,
					 QUIC_TRANSPORT_ERROR_FRAME_ENCODING);
	return 0;
}

/* HANDSHAKE_DONE: the client's handshake is confirmed (RFC 9001 4.1.2).
 * Only a server sends it (RFC 9000 19.20).
 */
static int quic_in_handshake_done(struct quic_in_pkt *in,
				  const struct quic_frame *f)
{
	struct sock *sk = in->sk;
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (c->is_server)
		return quic_in_violation(in,
					 QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
	quic_conn_handshake_done_rcvd(sk);
	return 0;
}

/* CONNECTION_CLOSE: the peer closed the connection, it drains. */
static int quic_in_close(struct quic_in_pkt *in, const struct quic_frame *f)
{
	quic_close_frame(in->sk, &f->close,
			 f->type == QUIC_FRAME_CONNECTION_CLOSE_APP);
	return -ECONNRESET;
}

static int quic_in_new_cid(struct quic_in_pkt *in, const struct quic_frame *f)
{
	int err = quic_conn_new_cid(in->sk, &f->new_cid);

	return err ? quic_in_violation(in, err) : 0;
}

static int quic_in_retire_cid(struct quic_in_pkt *in,
			      const struct quic_frame *f)
{
	struct quic_conn *c = &quic_sk(in->sk)->conn;
	int err;

	err = quic_conn_retire_cid(in->sk, f->value, c->in.dcid.data,
				   c->in.dcid.len);
	return err ? quic_in_violation(in, err) : 0;
}

static int quic_in_new_token(struct quic_in_pkt *in,
			     const struct quic_frame *f)
{
	/* RFC 9000 19.7: only a server sends it. */
	if (quic_sk(in->sk)->conn.is_server)
		return quic_in_violation(in,
					 QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
	quic_conn_new_token_rcvd(in->sk, f->data.data, f->data.len);
	return 0;
}

static int quic_in_datagram(struct quic_in_pkt *in, const struct quic_frame *f)
{
	struct sock *sk = in->sk;
	struct quic_conn *c = &quic_sk(sk)->conn;
	int err;

	err = quic_dgram_rcv(sk, f, 1 + f->data.len +
			     (f->type == QUIC_FRAME_DATAGRAM_LEN ?
			      quic_varint_len(f->data.len) : 0));
	if (err)
		return quic_in_violation(in, err);
	if (quic_dgram_pending(sk))
		quic_in_data_ready(&c->in, sk);
	return 0;
}

static int quic_in_path_challenge(struct quic_in_pkt *in,
				  const struct quic_frame *f)
{
	struct sk_buff *skb = in->skb;

	quic_path_challenge_rcvd(in->sk, f->path_data, &QUIC_IN_CB(skb)->peer,
				 skb->len, QUIC_IN_CB(skb)->us);
	return 0;
}

static int quic_in_path_response(struct quic_in_pkt *in,
				 const struct quic_frame *f)
{
	quic_conn_path_changed(in->sk,
			       quic_path_response_rcvd(in->sk, f->path_data));
	return 0;
}

/* ACK_FREQUENCY and IMMEDIATE_ACK (draft-ietf-quic-ack-frequency): the
 * latter, allowed, makes this packet's ACK due at once.
 */
static int quic_in_ackfreq(struct quic_in_pkt *in, const struct quic_frame *f)
{
	int err = quic_ackfreq_rcv(in->sk, f);

	if (err)
		return quic_in_violation(in, err);
	if (f->type == QUIC_FRAME_IMMEDIATE_ACK)
		in->ack_now = true;
	return 0;
}

/* The handler of each frame type, by type; PADDING and PING have none.
 * What the RFCs say of a type (levels, ack-eliciting, probing) is in
 * frame.c's table (quic_frame_attr_get()).
 *
 * A handler gets a frame allowed at its packet's level and returns 0 or a
 * negative errno, which ends the packet: -ECONNRESET when the frame
 * closed the connection itself (CONNECTION_CLOSE); otherwise the
 * connection is closed with the transport error code in @in->err
 * (quic_in_violation(), INTERNAL_ERROR if none was set). A frame that
 * cannot be taken now sets @in->no_ack (quic_in_no_ack()) and returns 0.
 */
static const struct quic_in_frame_op {
	int (*rcv)(struct quic_in_pkt *in, const struct quic_frame *f);
} quic_in_frame_ops[QUIC_FRAME_ACK_FREQUENCY + 1] = {
	[QUIC_FRAME_ACK]			= { quic_in_ack },
	[QUIC_FRAME_ACK_ECN]			= { quic_in_ack },
	[QUIC_FRAME_RESET_STREAM]		= { quic_stream_in_ctl },
	[QUIC_FRAME_STOP_SENDING]		= { quic_stream_in_ctl },
	[QUIC_FRAME_CRYPTO]			= { quic_in_crypto },
	[QUIC_FRAME_NEW_TOKEN]			= { quic_in_new_token },
	[QUIC_FRAME_STREAM ... QUIC_FRAME_STREAM + 7] = { quic_stream_in_data },
	[QUIC_FRAME_MAX_DATA]			= { quic_stream_in_limits },
	[QUIC_FRAME_MAX_STREAM_DATA]		= { quic_stream_in_ctl },
	[QUIC_FRAME_MAX_STREAMS_BIDI]		= { quic_stream_in_limits },
	[QUIC_FRAME_MAX_STREAMS_UNI]		= { quic_stream_in_limits },
	[QUIC_FRAME_DATA_BLOCKED]		= { quic_stream_in_limits },
	[QUIC_FRAME_STREAM_DATA_BLOCKED]	= { quic_stream_in_ctl },
	[QUIC_FRAME_STREAMS_BLOCKED_BIDI]	= { quic_stream_in_limits },
	[QUIC_FRAME_STREAMS_BLOCKED_UNI]	= { quic_stream_in_limits },
	[QUIC_FRAME_NEW_CONNECTION_ID]		= { quic_in_new_cid },
	[QUIC_FRAME_RETIRE_CONNECTION_ID]	= { quic_in_retire_cid },
	[QUIC_FRAME_PATH_CHALLENGE]		= { quic_in_path_challenge },
	[QUIC_FRAME_PATH_RESPONSE]		= { quic_in_path_response },
	[QUIC_FRAME_CONNECTION_CLOSE]		= { quic_in_close },
	[QUIC_FRAME_CONNECTION_CLOSE_APP]	= { quic_in_close },
	[QUIC_FRAME_HANDSHAKE_DONE]		= { quic_in_handshake_done },
	[QUIC_FRAME_IMMEDIATE_ACK]		= { quic_in_ackfreq },
	[QUIC_FRAME_DATAGRAM]			= { quic_in_datagram },
	[QUIC_FRAME_DATAGRAM_LEN]		= { quic_in_datagram },
	[QUIC_FRAME_ACK_FREQUENCY]		= { quic_in_ackfreq },
};

/* The frames of one decrypted packet, @in set up by the caller: each is
 * decoded, checked against the packet's level (RFC 9000 12.4) and handed
 * to its handler. Any error closes the connection here, with the
 * transport error code the decoder or the handler named, but for the
 * peer's close.
 *
 * Return: 0, or a negative errno once the connection is closed.
 */
static int quic_in_frames(struct quic_in_pkt *in, const u8 *p, u32 len)
{
	struct quic_ack_range ranges[QUIC_IN_ACK_RANGES];
	const struct quic_in_frame_op *op;
	const struct quic_frame_attr *fa;
	struct quic_frame f;
	unsigned long type;
	int err = 0;

	in->frames = 0;
	in->eliciting = false;
	in->probing = true;
	in->no_ack = false;
	in->ack_now = false;
	in->err = QUIC_TRANSPORT_ERROR_INTERNAL;
	if (!len)
		err = quic_in_violation(in, QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
	while (!err && len) {
		memset(&f, 0, sizeof(f));
		f.ranges = ranges;
		f.max_ranges = QUIC_IN_ACK_RANGES;
		if (quic_frame_decode(&p, &len, &f)) {
			err = quic_in_violation(in, f.err);
			break;
		}
		fa = quic_frame_attr_get(f.type);
		if (!fa || !(fa->levels & BIT(in->level))) {
			err = quic_in_violation(in, QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
			break;
		}
		in->frames |= quic_frame_type_bit(f.type);
		if (fa->ack_eliciting)
			in->eliciting = true;
		if (!fa->probing)
			in->probing = false;
		/* Known: below the table's size. */
		type = array_index_nospec((unsigned long)f.type,
					  ARRAY_SIZE(quic_in_frame_ops));
		op = &quic_in_frame_ops[type];
		if (op->rcv)
			err = op->rcv(in, &f);
	}
	if (err && err != -ECONNRESET)
		quic_in_error(in->sk, in->err);
	return err;
}

static int quic_in_level(u8 type)
{
	switch (type) {
	case QUIC_PACKET_INITIAL:
		return QUIC_CRYPTO_INITIAL;
	case QUIC_PACKET_HANDSHAKE:
		return QUIC_CRYPTO_HANDSHAKE;
	case QUIC_PACKET_1RTT:
		return QUIC_CRYPTO_APP;
	case QUIC_PACKET_0RTT:
		return QUIC_CRYPTO_EARLY;
	}
	return -1;	/* Retry, Version Negotiation: not handled here */
}

/* Record a packet for our next ACK. An ack-eliciting one that arrived
 * out of order, leaving a gap or filling one, is acknowledged at once
 * (RFC 9000 13.2.1), so that the sender detects a loss, or sees a
 * reordering, without waiting for our delay. It also starts the count
 * that acknowledges every second packet again (output.c): a sender that
 * lost packets may be down to its minimum window of two, and would wait
 * for our ACK timer if we acknowledged every fourth. Once the peer sent
 * ACK_FREQUENCY (@af), its Reordering Threshold decides instead.
 */
static void quic_in_ack_due(struct quic_pnspace *s, u64 pn, bool eliciting,
			    struct quic_ackfreq *af)
{
	bool ooo;
	u64 top;

	ooo = quic_ackrange_largest(&s->recv, &top) && pn != top + 1;
	quic_ackrange_add(&s->recv, pn, ktime_to_us(ktime_get()));
	if (!eliciting)
		return;
	s->ack_pending = true;
	if (af)		/* the peer's Reordering Threshold instead */
		ooo = quic_ackfreq_reordered(af, s, ooo);
	if (ooo) {
		s->ack_eliciting = U8_MAX;
		s->rx_eliciting = 0;
	} else if (s->ack_eliciting < U8_MAX) {
		s->ack_eliciting++;
	}
	if (s->rx_eliciting < U32_MAX)
		s->rx_eliciting++;
}

/* The key a 0-RTT packet is opened with (RFC 9001 4.6), or NULL when it
 * is dropped: a client takes none; a server takes them with the EARLY
 * key its TLS installed on accepting early data, until the first 1-RTT
 * packet (RFC 9001 4.9.3). Until the handshake completes there is no
 * stream table: they are parked, as packets of a level without a key are
 * (@park), and processed at completion (quic-api.rst 4.6).
 */
static struct quic_crypto *quic_in_early_key(struct sock *sk, bool *park)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	*park = false;
	if (!c->is_server)
		return NULL;
	if (!c->streams_ready) {
		*park = true;
		return NULL;
	}
	if (c->early.key && !c->early.off)
		return c->early.key;
	QUIC_DROP(sock_net(sk), sk, QUIC_MIB_0RTT_DROP);
	return NULL;
}

/* A non-probing packet came to another local address of ours: 9.6. */
static void quic_in_local_arrived(struct sock *sk, struct sk_buff *skb)
{
	unsigned int what;

	what = quic_path_local_arrived(sk, QUIC_IN_CB(skb)->us);
	quic_conn_path_changed(sk, what);
}

/* A non-probing packet came from another peer address: RFC 9000 9.3. */
static void quic_in_peer_moved(struct sock *sk, struct sk_buff *skb)
{
	unsigned int what;

	what = quic_path_peer_moved(sk, &QUIC_IN_CB(skb)->peer, skb->len);
	quic_conn_path_changed(sk, what);
}

/* A buffer of ours for the 1-RTT packet @h at @pkt, which lies read-only
 * in @skb's page fragment (quic_in_writable()): its header and header
 * protection sample copied, for the protection to be removed there and
 * the plaintext written after it. NULL if none could be had.
 */
static u8 *quic_in_paged_buf(const u8 *pkt, const struct quic_pkt_hdr *h)
{
	u8 *buf = netdev_alloc_frag(h->pkt_len);

	if (buf)
		memcpy(buf, pkt, min_t(u32, h->pkt_len,
				       h->pn_offset + QUIC_CRYPTO_SAMPLE_OFFSET +
				       QUIC_CRYPTO_SAMPLE_LEN));
	return buf;
}

/* Decrypt the @len-byte packet of @skb's page fragment into @buf, where
 * its header is, reading the ciphertext where it lies: the fragment,
 * which others may share, is never written.
 */
static int quic_in_paged_open(struct sk_buff *skb, struct quic_crypto *key,
			      u8 *buf, u32 hdr_len, u64 pn, u32 len)
{
	skb_frag_t *f = &skb_shinfo(skb)->frags[0];
	struct scatterlist sg[2];

	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], buf, hdr_len);
	sg_set_page(&sg[1], skb_frag_page(f), len - hdr_len,
		    skb_frag_off(f) + hdr_len);
	return quic_crypto_aead_decrypt_sg(key, buf, sg, hdr_len, pn, len);
}

/* The packet opened into @buf is done with: @buf takes the place of the
 * fragment in @skb, so that what the frames left referenced (stream.c)
 * is ours alone, and goes with @skb. Not before: the header parsed
 * (its DCID) pointed into the fragment until now.
 */
static void quic_in_paged_keep(struct sk_buff *skb, u8 *buf)
{
	skb_frag_t *f = &skb_shinfo(skb)->frags[0];
	struct page *page = virt_to_head_page(buf);

	/* A page pool's skb keeps pp_recycle: our page is not the pool's,
	 * and goes back with put_page().
	 */
	skb_frag_unref(skb, 0);
	__skb_fill_page_desc_noacc(skb_shinfo(skb), 0, page,
				   buf - (u8 *)page_address(page),
				   skb_frag_size(f));
}

/* One datagram for a connection, socket locked. Consumes @skb. */
static void quic_in_conn(struct sock *sk, struct sk_buff *skb)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 pn_len, tpn, hdr_len, plen, pos, err;
	struct quic_in_pkt in = { .sk = sk, .skb = skb };
	u8 *data = quic_udp_payload(skb), *own, *opened = NULL;
	struct quic_packet_iter it;
	struct quic_crypto *key;
	struct quic_pkt_hdr h;
	struct quic_pnspace *s;
	bool park;
	u64 largest, pn;
	int level, ret;
	u8 slot;
	u8 *pkt;

	lockdep_assert(lockdep_sock_is_held(sk));
	quic_packet_iter_init(&it, data, skb->len, QUIC_CONN_CID_LEN, 0);
	while ((ret = quic_packet_next(&it, &h)) > 0) {
		if (sk->sk_state == TCP_CLOSE)
			break;
		pos = it.pos;
		pkt = data + pos;
		if (h.type == QUIC_PACKET_RETRY) {
			/* Alone in its datagram: it has no Length. */
			if (quic_conn_retry_rcvd(sk, pkt, &h) == -EBADMSG)
				QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DROP_DECRYPT);
			break;
		}
		if (h.type == QUIC_PACKET_VERSION_NEGOTIATION) {
			/* Alone in its datagram too. */
			if (quic_version_vn_rcvd(sk, &h))
				QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DROP_MALFORMED);
			break;
		}
		level = quic_in_level(h.type);
		if (level < 0) {
			QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DROP_MALFORMED);
			continue;
		}
		if (h.long_header && h.version != c->vn.version) {
			/* Another version: the client's move to it waits for
			 * its Initial keys (version.c), and so does this
			 * packet.
			 */
			if (!quic_version_rcvd(sk, &h)) {
				QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DROP_MALFORMED);
				continue;
			}
			slot = QUIC_CRYPTO_INITIAL;
			s = c->space.at[slot];
			key = NULL;
			park = true;
		} else if (level == QUIC_CRYPTO_EARLY) {
			/* 0-RTT numbers in the 1-RTT space. */
			slot = QUIC_CRYPTO_APP;
			s = c->space.at[slot];
			key = quic_in_early_key(sk, &park);
			if (!key && !park) {
				if (!c->is_server)
					QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DROP_MALFORMED);
				continue;
			}
		} else {
			slot = level;
			s = c->space.at[slot];
			if (s->discarded)
				continue;
			/* RFC 9000 9: servers do not move; a client drops
			 * 1-RTT packets from an address it does not know.
			 */
			if (level == QUIC_CRYPTO_APP && !c->is_server &&
			    !quic_path_peer_known(sk, &QUIC_IN_CB(skb)->peer)) {
				QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DROP_PEER_ADDR);
				continue;
			}
			key = &s->rx;
			park = !quic_crypto_ready(key);
		}
		if (park) {
			struct sk_buff_head *q = &c->in.parked[slot];

			if (skb_queue_len(q) >= QUIC_CONN_MAX_PARKED) {
				if (level == QUIC_CRYPTO_EARLY)
					QUIC_DROP(sock_net(sk), sk, QUIC_MIB_0RTT_DROP);
				break;
			}
			/* Keep this packet and those after it. */
			__skb_pull(skb, pos);
			skb_queue_tail(q, skb);
			goto out;
		}
		own = NULL;
		if (!skb_headlen(skb)) {
			/* In a page fragment, read-only: quic_in_writable(). */
			own = quic_in_paged_buf(pkt, &h);
			if (!own) {
				QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DROP_BACKLOG);
				break;
			}
			pkt = own;
		}
		if (quic_crypto_hp_remove(key, pkt, h.pkt_len, h.pn_offset,
					  &pn_len, &tpn)) {
			QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DROP_DECRYPT);
			if (own)
				skb_free_frag(own);
			continue;
		}
		if (!quic_ackrange_largest(&s->recv, &largest))
			largest = QUIC_PN_NONE;
		pn = quic_pn_decode(largest, tpn, pn_len * 8);
		hdr_len = h.pn_offset + pn_len;
		if (own)
			ret = quic_in_paged_open(skb, key, own, hdr_len, pn,
						 h.pkt_len);
		else
			ret = quic_crypto_aead_decrypt(key, pkt, hdr_len, pn,
						       h.pkt_len);
		if (ret < 0) {
			QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DROP_DECRYPT);
			if (own)
				skb_free_frag(own);
			if (!h.long_header &&
			    quic_close_reset_check(sk, data, skb->len))
				break;
			continue;
		}
		opened = own;
		/* The peer's key update, or its answer to ours. */
		if (ret == QUIC_CRYPTO_KEY_UPDATED) {
			err = quic_key_update_peer(sk);
			if (err) {
				quic_in_error(sk, err);
				break;
			}
		}
		if (quic_packet_reserved_bits(pkt[0])) {
			quic_in_error(sk, QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
			break;
		}
		if (quic_ackrange_seen(&s->recv, pn))
			continue;
		/* RFC 9000 7.2: the client takes the server's SCID from the
		 * first packet it processes.
		 */
		if (!c->is_server && h.long_header && !c->in.dcid_learned) {
			if (!quic_conn_learn_dcid(c, h.scid, h.scid_len))
				continue;
			c->in.dcid_learned = true;
		}
		quic_cid_set(&c->in.dcid, h.dcid, h.dcid_len);
		quic_close_idle_touch(sk);
		plen = h.pkt_len - hdr_len - QUIC_PACKET_TAG_LEN;
		in.level = level;
		ret = quic_in_frames(&in, pkt + hdr_len, plen);
		if (ret < 0)
			break;
		c->in.pkts_rcvd++;
		c->in.bytes_rcvd += h.pkt_len;
		trace_quic_packet_rcvd(sk, level, pn, h.pkt_len, in.frames);
		/* RFC 9000 9.3: the newest non-probing packet from another
		 * address moves the peer there; to our preferred address
		 * (9.6), it moves us there.
		 */
		if (level == QUIC_CRYPTO_APP && !in.probing &&
		    (largest == QUIC_PN_NONE || pn > largest)) {
			if (unlikely(QUIC_IN_CB(skb)->us != quic_sk(sk)->udp))
				quic_in_local_arrived(sk, skb);
			if (memcmp(&QUIC_IN_CB(skb)->peer, &c->paths.peer,
				   sizeof(c->paths.peer)))
				quic_in_peer_moved(sk, skb);
		}
		if (!in.no_ack && !s->discarded)
			quic_in_ack_due(s, pn, in.eliciting,
					s == c->space.at[QUIC_CRYPTO_APP] &&
					c->in.ackfreq.rx_active ?
					&c->in.ackfreq : NULL);
		if (!in.no_ack && in.ack_now)
			s->ack_eliciting = U8_MAX;	/* IMMEDIATE_ACK */
		/* RFC 9000 13.4.1: marks, counted per space; a CE is
		 * acknowledged at once (13.2.1).
		 */
		if (!in.no_ack &&
		    quic_ecn_rcvd(&c->ecn, level, QUIC_IN_CB(skb)->ecn)) {
			QUIC_INC_STATS(sock_net(sk), QUIC_MIB_ECN_CE);
			if (in.eliciting)
				s->ack_eliciting = U8_MAX;
		}
		if (level == QUIC_CRYPTO_EARLY)
			QUIC_INC_STATS(sock_net(sk), QUIC_MIB_0RTT_IN);
		else if (level == QUIC_CRYPTO_APP && c->early.key)
			quic_conn_early_end(c);	/* RFC 9001 4.9.3 */
		/* RFC 9001 4.9.1: a server drops Initial keys once it
		 * processes a Handshake packet.
		 */
		if (c->is_server && level == QUIC_CRYPTO_HANDSHAKE &&
		    !c->space.at[QUIC_CRYPTO_INITIAL]->discarded) {
			quic_path_addr_validated(sk);
			quic_conn_discard_space(sk, QUIC_CRYPTO_INITIAL);
		}
	}
	if (opened)
		quic_in_paged_keep(skb, opened);
	if (ret < 0 && sk->sk_state != TCP_CLOSE)
		QUIC_DROP(sock_net(sk), sk, QUIC_MIB_DROP_MALFORMED);
	kfree_skb(skb);
out:
	if (c->in.batch)
		c->in.flush = true;	/* once, at the end of the batch */
	else
		quic_output_flush(sk, GFP_ATOMIC);
}

/* A datagram arrives for a connection (not one parked for a key, already
 * counted): counted for the anti-amplification limit, then processed.
 */
static void quic_in_conn_rcv(struct sock *sk, struct sk_buff *skb)
{
	quic_path_amp_rcvd(sk, skb->len);
	quic_in_conn(sk, skb);
}

/* Process the packets that waited at @level. */
static void quic_in_parked(struct sock *sk, u8 level)
{
	struct quic_in *in = &quic_sk(sk)->conn.in;
	struct sk_buff_head q;
	struct sk_buff *skb;

	__skb_queue_head_init(&q);
	skb_queue_splice_init(&in->parked[level], &q);
	while ((skb = __skb_dequeue(&q))) {
		if (sk->sk_state == TCP_CLOSE) {
			kfree_skb(skb);
			continue;
		}
		quic_in_conn(sk, skb);
	}
}

/**
 * quic_input_init() - set up the receive side of a new connection
 * @in: its state, zeroed
 */
void quic_input_init(struct quic_in *in)
{
	int i;

	for (i = 0; i < QUIC_PNSPACE_NUM; i++)
		skb_queue_head_init(&in->parked[i]);
}

/**
 * quic_input_discard() - a space was discarded: drop its parked packets
 * @sk: the socket, locked
 * @level: the space
 */
void quic_input_discard(struct sock *sk, u8 level)
{
	struct quic_in *in = &quic_sk(sk)->conn.in;

	skb_queue_purge(&in->parked[level]);
	in->parked_ready &= ~BIT(level);
}

/**
 * quic_input_parked_ready() - the packets parked at a level can go
 * @sk: the socket, locked
 * @level: the level whose receive key arrived (1-RTT: whose stream table
 *	is ready too)
 *
 * They are processed by quic_input_parked_run(), which the entry point
 * that installed the key calls once it is done: setsockopt() (sockopt.c)
 * or the connection's work item (timer.c).
 */
void quic_input_parked_ready(struct sock *sk, u8 level)
{
	quic_sk(sk)->conn.in.parked_ready |= BIT(level);
}

/**
 * quic_input_parked_run() - process the packets of the levels made ready
 * @sk: the socket, locked, in process context
 */
void quic_input_parked_run(struct sock *sk)
{
	static const u8 levels[] = {
		QUIC_CRYPTO_INITIAL, QUIC_CRYPTO_HANDSHAKE, QUIC_CRYPTO_APP,
	};
	struct quic_in *in = &quic_sk(sk)->conn.in;
	int i;

	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		if (!(in->parked_ready & BIT(levels[i])))
			continue;
		in->parked_ready &= ~BIT(levels[i]);
		quic_in_parked(sk, levels[i]);
	}
}

/* What the socket backlog may hold while a user owns the socket.
 * sk_add_backlog() counts the receive buffer in too, and stream data
 * received and not yet read is charged there (quic_conn_charge()): with
 * rcvbuf alone as the limit, a receive queue beyond rcvbuf made every
 * datagram that arrived while the user held the socket a drop, which the
 * sender then took for a loss. So the backlog itself gets rcvbuf, plus
 * what flow control lets the peer have in flight up to another rcvbuf:
 * at most twice rcvbuf, whatever the peer sends (junk included).
 */
static u32 quic_in_backlog_limit(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 rcvbuf = READ_ONCE(sk->sk_rcvbuf);
	u64 limit = rcvbuf + atomic_read(&sk->sk_rmem_alloc);

	if (READ_ONCE(c->streams_ready))
		limit += min(READ_ONCE(c->streams.recv.window), rcvbuf);
	return min_t(u64, limit, INT_MAX);
}

/* Parking @skb on a request would overrun the listener's receive buffer,
 * to which the datagrams of its requests are charged (quic-api.rst 4.2).
 */
static bool quic_in_listen_rmem_full(struct sock *sk,
				     const struct sk_buff *skb)
{
	return atomic_read(&sk->sk_rmem_alloc) + skb->truesize >
	       READ_ONCE(sk->sk_rcvbuf);
}

/* The listener's queue of requests is full: its accept queue, or the
 * receive buffer their datagrams are charged to.
 */
static bool quic_in_listen_full(struct sock *sk, const struct sk_buff *skb)
{
	return sk_acceptq_is_full(sk) || quic_in_listen_rmem_full(sk, skb);
}

/* Client Initials a listener may open and find dead in a second before it
 * counts as under load, at least (its backlog, if more).
 */
#define QUIC_IN_DEAD_MIN	16

/* Is a listener opening more dead Initials than it can queue requests?
 * Junk, PINGs and closes make no request (quic_in_listen_hello()), so
 * unlike client Initials that do, they never fill the queue that sends
 * the next clients a Retry; yet each costs an open in softirq. Past its
 * backlog (or QUIC_IN_DEAD_MIN) of them in a second, new clients get a
 * Retry before anything is opened, as they do when the queue is full,
 * and a flood of them costs what a flood of Retries does.
 */
static bool quic_in_listen_dead_load(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (time_after(jiffies, c->in.dead_since + HZ))
		return false;
	return c->in.dead_initials >= max_t(u32, QUIC_IN_DEAD_MIN,
					 READ_ONCE(sk->sk_max_ack_backlog));
}

/* Count a dead Initial in the listener's current second. */
static void quic_in_listen_dead(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (time_after(jiffies, c->in.dead_since + HZ)) {
		c->in.dead_since = jiffies;
		c->in.dead_initials = 0;
	}
	if (c->in.dead_initials < U32_MAX)
		c->in.dead_initials++;
}

/* Should a client without a valid token get a Retry?  When the listener
 * asks for address validation, and, as TCP falls back to SYN cookies,
 * when its port is under load (unless the namespace's threshold is
 * negative: never). Under load means that the half-open connections on
 * the port (requests waiting for accept(), and accepted connections in
 * their handshake) reach the threshold, or half the listener's backlog,
 * or that its queue of requests is full, or that it opened too many dead
 * Initials in the last second. The backlog is what a server says it can
 * take: an application that accepts and then closes what it cannot serve
 * keeps the count far below a namespace-wide threshold while a flood of
 * spoofed ClientHellos holds all of its handshakes.
 */
static bool quic_in_listen_retry(struct sock *sk, const struct sk_buff *skb)
{
	int limit = READ_ONCE(quic_net(sock_net(sk))->retry_threshold);
	int half_open, load;

	if (quic_sk(sk)->opts.config.validate_peer_address)
		return true;
	if (limit < 0)
		return false;
	half_open = atomic_read(&quic_sk(sk)->udp->half_open);
	load = max_t(int, DIV_ROUND_UP(READ_ONCE(sk->sk_max_ack_backlog), 2),
		     1);
	return half_open >= limit || half_open >= load ||
	       quic_in_listen_full(sk, skb) || quic_in_listen_dead_load(sk);
}

/* The token of a new client's Initial (RFC 9000 8.1.3): 0 (none, not
 * ours, or a NEW_TOKEN one refused), QUIC_TOKEN_RETRY with @odcid set,
 * QUIC_TOKEN_NEW, or -1 when the Initial goes no further: it got a
 * Retry, or it carried one of our Retry tokens, expired or made for
 * another address, port or connection ID (the client can take no other
 * Retry: closed with INVALID_TOKEN). Only tokens of ours (their MAC
 * checks) that fail are counted: one whose MAC fails, altered or another
 * server's whatever its first byte claims, counts as none.
 */
static int quic_in_listen_token(struct sock *sk, struct sk_buff *skb,
				const struct quic_pkt_hdr *h,
				const union quic_addr *local,
				const union quic_addr *peer,
				struct quic_cid *odcid)
{
	struct quic_net *qn = quic_net(sock_net(sk));
	int claim = quic_token_kind(h->token, h->token_len), kind = claim;
	struct quic_cid dcid;

	if (kind) {
		/* The caller checked the DCID's length. */
		quic_cid_set(&dcid, h->dcid, h->dcid_len);
		kind = quic_token_check(&qn->token_key, h->token,
					h->token_len, peer, &dcid, odcid,
					quic_token_now());
		if (kind < 0 && kind != -EINVAL) {
			QUIC_INC_STATS(sock_net(sk), QUIC_MIB_TOKEN_INVALID);
			trace_quic_initial(sk, "token_invalid");
			if (claim == QUIC_TOKEN_RETRY) {
				quic_stateless_refuse(sk, h, local, peer,
						      QUIC_TRANSPORT_ERROR_INVALID_TOKEN);
				return -1;
			}
		}
		if (kind < 0)
			kind = 0;
	}
	if (!kind && quic_in_listen_retry(sk, skb)) {
		trace_quic_initial(sk, "retry");
		quic_stateless_retry(sk, skb, h, local, peer);
		return -1;
	}
	return kind;
}

/* Can the Initial of @skb, for no request yet, start a connection?  Only
 * one that begins the client's ClientHello makes a request, and wakes
 * poll() and accept(): one that does not decrypt, or carries only PADDING
 * and PING or a client's close, would wake them for no connection, and
 * a blocking accept() after poll() would wait for the next client. A
 * copy is opened here, as for an ALPN-shared port
 * (lookup.c), after the Retry decision, so that a listener under load
 * still answers with a Retry alone. One that breaks a frame rule is
 * closed with the error, as its connection would have been.
 *
 * Return: true to make a request; otherwise the Initial was counted.
 */
static bool quic_in_listen_hello(struct sock *sk, const struct sk_buff *skb,
				 const struct quic_pkt_hdr *h,
				 const union quic_addr *local,
				 const union quic_addr *peer)
{
	struct net *net = sock_net(sk);
	u32 err;
	u8 *copy;
	int ret;

	copy = kmemdup(quic_udp_payload(skb), h->pkt_len, GFP_ATOMIC | __GFP_NOWARN);
	if (!copy) {
		QUIC_DROP(net, sk, QUIC_MIB_DROP_BACKLOG);
		return false;
	}
	ret = quic_initial_check(copy, h, &err);
	kfree(copy);
	if (ret == QUIC_INITIAL_HELLO)
		return true;
	quic_in_listen_dead(sk);
	switch (ret) {
	case QUIC_INITIAL_NOTHING:
		QUIC_DROP(net, sk, QUIC_MIB_DROP_NOCONN);
		break;
	case QUIC_INITIAL_VIOLATION:
		QUIC_DROP(net, sk, QUIC_MIB_DROP_MALFORMED);
		trace_quic_initial(sk, "refuse");
		quic_stateless_refuse(sk, h, local, peer, err);
		break;
	case -EBADMSG:
		QUIC_DROP(net, sk, QUIC_MIB_DROP_DECRYPT);
		break;
	default:
		QUIC_DROP(net, sk, QUIC_MIB_DROP_MALFORMED);
		break;
	}
	return false;
}

/* A datagram for a listener, socket locked. Consumes @skb. */
static void quic_in_listen(struct sock *sk, struct sk_buff *skb)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	union quic_addr local, peer;
	struct quic_request *req;
	struct quic_cid odcid;
	struct quic_pkt_hdr h;
	struct sock *child;
	int kind;

	if (quic_packet_parse_header(quic_udp_payload(skb), skb->len,
				     QUIC_CONN_CID_LEN, 0, &h) ||
	    (h.type != QUIC_PACKET_INITIAL && h.type != QUIC_PACKET_0RTT) ||
	    h.dcid_len < QUIC_CONN_CID_LEN || h.dcid_len > QUIC_CID_MAX_LEN ||
	    h.scid_len > QUIC_CID_MAX_LEN ||
	    (h.type == QUIC_PACKET_INITIAL &&
	     !quic_packet_initial_size_ok(skb->len))) {
		quic_in_drop(sk, skb, QUIC_MIB_DROP_NOCONN);
		return;
	}
	quic_in_addrs(skb, &local, &peer);
	/* accept() may have made the connection since the lookup. From the
	 * listener's backlog this runs in process context, softirqs on: the
	 * lookup needs RCU, and the child's spinlock, also taken by softirq,
	 * must be taken with them off.
	 */
	rcu_read_lock();
	child = quic_lookup_conn(sock_net(sk), h.dcid, h.dcid_len, &peer);
	rcu_read_unlock();
	if (child) {
		local_bh_disable();
		bh_lock_sock_nested(child);
		if (!sock_owned_by_user(child)) {
			if (child->sk_state != TCP_CLOSE)
				quic_in_conn_rcv(child, skb);
			else
				quic_in_drop(sk, skb, QUIC_MIB_DROP_NOCONN);
		} else if (sk_add_backlog(child, skb,
					  quic_in_backlog_limit(child))) {
			quic_in_drop(sk, skb, QUIC_MIB_DROP_BACKLOG);
		}
		bh_unlock_sock(child);
		local_bh_enable();
		sock_put(child);
		return;
	}
	/* What requests park is charged to the listener's receive buffer
	 * (quic-api.rst 4.2), and uncharged when accept() takes it.
	 */
	list_for_each_entry(req, &c->requests, list) {
		if (quic_cid_eq_bytes(&req->dcid, h.dcid, h.dcid_len) &&
		    !memcmp(&req->peer, &peer, sizeof(peer))) {
			if (skb_queue_len(&req->skbs) >= QUIC_CONN_REQ_MAX_SKBS ||
			    quic_in_listen_rmem_full(sk, skb)) {
				quic_in_drop(sk, skb, QUIC_MIB_DROP_BACKLOG);
			} else {
				skb_set_owner_r(skb, sk);
				skb_queue_tail(&req->skbs, skb);
			}
			return;
		}
	}
	/* A 0-RTT datagram ahead of its Initial, or of a connection gone. */
	if (h.type != QUIC_PACKET_INITIAL) {
		quic_in_drop(sk, skb, QUIC_MIB_0RTT_DROP);
		return;
	}
	/* A client without a valid token may get a Retry first: then a
	 * full queue sends Retries rather than dropping, as SYN cookies.
	 */
	kind = quic_in_listen_token(sk, skb, &h, &local, &peer, &odcid);
	if (kind < 0) {
		kfree_skb(skb);	/* answered with a Retry, or counted */
		return;
	}
	/* A full accept queue drops (CONNECTION_REFUSED not sent yet). */
	if (sk_acceptq_is_full(sk)) {
		quic_in_drop(sk, skb, QUIC_MIB_LISTEN_OVERFLOW);
		return;
	}
	if (quic_in_listen_rmem_full(sk, skb)) {
		quic_in_drop(sk, skb, QUIC_MIB_DROP_BACKLOG);
		return;
	}
	if (!quic_in_listen_hello(sk, skb, &h, &local, &peer)) {
		kfree_skb(skb);
		return;
	}
	req = kzalloc(sizeof(*req), GFP_ATOMIC);
	if (!req) {
		quic_in_drop(sk, skb, QUIC_MIB_DROP_BACKLOG);
		return;
	}
	req->local = local;
	req->peer = peer;
	quic_cid_set(&req->dcid, h.dcid, h.dcid_len);
	quic_cid_set(&req->scid, h.scid, h.scid_len);
	req->retried = kind == QUIC_TOKEN_RETRY;
	req->odcid = req->retried ? odcid : req->dcid;
	req->validated = kind > 0;
	req->us = quic_sk(sk)->udp;
	atomic_inc(&req->us->half_open);
	req->version = h.version;
	skb_queue_head_init(&req->skbs);
	skb_set_owner_r(skb, sk);
	skb_queue_tail(&req->skbs, skb);
	list_add_tail(&req->list, &c->requests);
	trace_quic_initial(sk, req->retried ? "accept_retried" : "accept");
	sk_acceptq_added(sk);
	sk->sk_data_ready(sk);
}

/* A Stateless Reset candidate for @sk, socket locked: the connection
 * drains if the token is one of its peer's (RFC 9000 10.3.1). Consumes
 * @skb.
 */
static void quic_in_reset(struct sock *sk, struct sk_buff *skb)
{
	if (quic_close_reset_check(sk, quic_udp_payload(skb), skb->len))
		consume_skb(skb);
	else
		quic_in_drop(sk, skb, QUIC_MIB_DROP_NOCONN);
}

static void quic_in_sk(struct sock *sk, struct sk_buff *skb)
{
	if (unlikely(QUIC_IN_CB(skb)->reset))
		quic_in_reset(sk, skb);
	else if (sk->sk_state == TCP_LISTEN)
		quic_in_listen(sk, skb);
	else if (sk->sk_state == TCP_SYN_RECV || sk->sk_state == TCP_ESTABLISHED)
		quic_in_conn_rcv(sk, skb);
	else if (quic_sk(sk)->conn.close.closing || quic_sk(sk)->conn.close.draining)
		quic_close_rcv(sk, skb);
	else
		quic_in_drop(sk, skb, QUIC_MIB_DROP_NOCONN);
}

/**
 * quic_input_backlog_rcv() - process a datagram from the socket backlog
 * @sk: the socket, owned by the releasing user
 * @skb: the datagram, at the QUIC payload
 *
 * Return: 0.
 */
int quic_input_backlog_rcv(struct sock *sk, struct sk_buff *skb)
{
	/* release_sock() drains the backlog as one batch, ended by
	 * quic_input_release_cb() once the backlog is empty: the ACK and
	 * the reader's wakeup go once, not once per datagram.
	 */
	quic_sk(sk)->conn.in.batch = true;
	quic_in_sk(sk, skb);
	return 0;
}

/* The end of a batch: wake the reader and send what the datagrams asked
 * for, once.
 */
static void quic_in_batch_done(struct sock *sk)
{
	struct quic_in *in = &quic_sk(sk)->conn.in;

	in->batch = false;
	if (in->wake)
		sk->sk_data_ready(sk);
	if (in->flush)
		quic_output_flush(sk, GFP_ATOMIC);
	in->wake = false;
	in->flush = false;
}

/**
 * quic_input_release_cb() - the proto's .release_cb
 * @sk: the socket, from release_sock(): still owned, its spinlock held
 *
 * Ends the batch of datagrams the backlog held, then runs the timer
 * expiries deferred while the user held the socket.
 */
void quic_input_release_cb(struct sock *sk)
{
	if (quic_sk(sk)->conn.in.batch)
		quic_in_batch_done(sk);
	quic_timer_release_cb(sk);
}

/**
 * quic_input_user_wait() - a user goes to sleep in recvmsg() or sendmsg(),
 *	or woke up
 * @sk: the socket, owned by the user
 * @on: it goes to sleep
 *
 * While a user sleeps, datagrams for the socket go to its backlog and
 * wake it: its release_sock() processes them, on its CPU. A reader then
 * decrypts in recvmsg(), as kTLS does, and the softirq on the sender's
 * CPU (on loopback, the sender's own) only queues: the two ends' crypto
 * runs on two CPUs. A writer waiting for room processes the ACKs that
 * make it, and sends what they let go from its own CPU: data sent from
 * a softirq on another CPU would reach the peer out of order with its
 * own (the loopback queues per CPU), and reordering makes losses that
 * never were. The user re-takes the lock before it clears the flag, so
 * its release_sock() drains what the flag sent to the backlog.
 */
void quic_input_user_wait(struct sock *sk, bool on)
{
	/* Written while the reader owns the socket: quic_in_deliver()
	 * reads it under the spinlock that release_sock() takes after.
	 */
	WRITE_ONCE(quic_sk(sk)->conn.in.user_waits, on);
}

/**
 * quic_input_accept_skb() - process a datagram parked on a request
 * @sk: the accepted socket, locked
 * @skb: the datagram
 */
void quic_input_accept_skb(struct sock *sk, struct sk_buff *skb)
{
	quic_in_conn_rcv(sk, skb);
}

/* Wake the user asleep in recvmsg() or sendmsg() to process its backlog:
 * its wait queue only. Nothing is readable yet, so no SIGIO; and a
 * kernel user that replaced sk_data_ready() still sleeps there.
 */
static void quic_in_wake_user(struct sock *sk)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_all(&wq->wait);
	rcu_read_unlock();
}

/* Process datagrams of @q, all for @sk (referenced, dropped here), under
 * one lock: what they ask to send (an ACK, new data) is sent, and the
 * reader woken, once at the end when there are several.
 *
 * Decrypting a batch takes long: when someone waits for the socket's
 * spinlock (the reader's or the writer's lock_sock(), a timer on another
 * CPU), it gets the lock between two datagrams instead of spinning until
 * the batch ends. If it was lock_sock(), the rest of the batch goes to
 * the backlog, processed by its release_sock() in process context.
 */
static void quic_in_deliver(struct sock *sk, struct sk_buff_head *q)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct sk_buff *skb;

	bh_lock_sock(sk);
	while (!skb_queue_empty(q)) {
		if (sock_owned_by_user(sk) || READ_ONCE(c->in.user_waits)) {
			/* The owner may be draining the backlog as a batch
			 * right now: c->in is its to change. A user asleep
			 * in recvmsg() or sendmsg() is woken to process them
			 * on its own CPU (quic_input_user_wait()).
			 */
			while ((skb = __skb_dequeue(q)))
				if (sk_add_backlog(sk, skb,
						   quic_in_backlog_limit(sk)))
					quic_in_drop(sk, skb,
						     QUIC_MIB_DROP_BACKLOG);
			if (!sock_owned_by_user(sk))
				quic_in_wake_user(sk);
			break;
		}
		c->in.batch = skb_queue_len(q) > 1;
		while ((skb = __skb_dequeue(q))) {
			quic_in_sk(sk, skb);
			if (!skb_queue_empty(q) &&
			    spin_is_contended(&sk->sk_lock.slock))
				break;
		}
		if (c->in.batch)
			quic_in_batch_done(sk);
		if (!skb_queue_empty(q)) {
			bh_unlock_sock(sk);
			bh_lock_sock(sk);
		}
	}
	bh_unlock_sock(sk);
	sock_put(sk);
}

/**
 * struct quic_in_batch - datagrams of one GRO or GSO skb, processed in a
 *	row
 * @sk: the socket the datagrams in @q are for, referenced, or NULL
 * @q: those datagrams, waiting for quic_in_batch_end() or for a
 *	datagram for another socket
 */
struct quic_in_batch {
	struct sock		*sk;
	struct sk_buff_head	q;
};

/* An empty batch. */
static void quic_in_batch_init(struct quic_in_batch *b)
{
	b->sk = NULL;
	__skb_queue_head_init(&b->q);
}

/* Process the datagrams waiting in batch @b, empty afterwards. */
static void quic_in_batch_end(struct quic_in_batch *b)
{
	struct sock *sk = b->sk;

	if (!sk)
		return;
	b->sk = NULL;
	quic_in_deliver(sk, &b->q);
}

/* RFC 8999, section 5.1: header form bit; a long header has the first
 * byte, a 32-bit version and the two connection ID length bytes.
 */
#define QUIC_IN_HDR_FORM_LONG	0x80
#define QUIC_IN_LONG_HDR_MIN	7

/* Largest 1-RTT datagram left in its page fragment: what a page fragment
 * cache hands out for its private copy (quic_in_paged_buf()).
 */
#define QUIC_IN_PAGED_MAX	32768

/* Make the datagram, at its payload, ready to be opened. A 1-RTT datagram
 * that lies in one page fragment (a GSO batch of ours cut by the UDP core
 * on lo or veth, or a NIC's page) stays there, read-only: the fragment
 * may be shared with a clone made before the batch was cut (a tap, netem
 * duplicate, a mirror), so it is opened out of place, into a buffer of
 * ours (quic_in_paged_open()), the AEAD's pass being the only copy.
 * Anything else is made linear and writable, and opened in place, as are
 * the long header datagrams, which listeners and requests keep.
 */
static bool quic_in_writable(struct sk_buff *skb)
{
	const struct skb_shared_info *si = skb_shinfo(skb);

	if (!skb_headlen(skb) && si->nr_frags == 1 && !skb_has_frag_list(skb) &&
	    !skb_has_shared_frag(skb) && skb->len <= QUIC_IN_PAGED_MAX &&
	    !PageHighMem(skb_frag_page(&si->frags[0])) &&
	    !(*(u8 *)skb_frag_address(&si->frags[0]) & QUIC_IN_HDR_FORM_LONG))
		return true;
	return !skb_ensure_writable(skb, skb->len);
}

/**
 * quic_in_rcv() - dispatch a datagram to its socket
 * @net: the namespace
 * @us: the shared UDP socket it arrived on
 * @skb: the datagram, at the UDP header, checked by udp.c
 * @b: the batch it belongs to (the datagrams of one GRO or GSO skb), or
 *	NULL
 *
 * Softirq, under RCU. Consumes @skb. Without @b the datagram is processed
 * at once. In a batch, datagrams for the same socket as the one before
 * wait to be processed together (quic_in_deliver()): when one for another
 * socket comes, and at quic_in_batch_end().
 *
 * Return: 0 if a socket took it, -ENOENT if none did, -ENOMEM if it could
 * not be made ready (@skb freed either way).
 */
static int quic_in_rcv(struct net *net, struct quic_udp_sock *us,
		       struct sk_buff *skb, struct quic_in_batch *b)
{
	struct sk_buff_head one;
	union quic_addr local, peer;
	struct quic_pkt_hdr h;
	struct sock *sk;
	u8 *data;
	int err;

	quic_in_addrs(skb, &local, &peer);
	__skb_pull(skb, sizeof(struct udphdr));
	if (!quic_in_writable(skb)) {
		kfree_skb(skb);
		return -ENOMEM;
	}
	data = quic_udp_payload(skb);
	memset(skb->cb, 0, sizeof(skb->cb));
	QUIC_IN_CB(skb)->peer = peer;
	QUIC_IN_CB(skb)->us = us;
	QUIC_IN_CB(skb)->ecn = (ip_hdr(skb)->version == 4 ?
				ip_hdr(skb)->tos :
				ipv6_get_dsfield(ipv6_hdr(skb))) &
			       INET_ECN_MASK;
	/* udp.c checked the invariants: what does not parse as a packet
	 * of ours is for no connection.
	 */
	err = quic_packet_parse_header(data, skb->len, QUIC_CONN_CID_LEN,
				       0, &h);
	sk = NULL;
	if (!err) {
		sk = quic_lookup_conn(net, h.dcid, h.dcid_len, &peer);
		/* A 0-RTT datagram of a connection not yet accepted waits
		 * with its Initial on the listener's request.
		 */
		if (!sk && (h.type == QUIC_PACKET_INITIAL ||
			    h.type == QUIC_PACKET_0RTT))
			sk = quic_lookup_listener_initial(net, us,
							  local.v4.sin_port,
							  &peer,
							  h.type == QUIC_PACKET_INITIAL ?
							  data : NULL, &h);
	}
	/* A Stateless Reset goes to its connection as any datagram does,
	 * to be processed under its lock, or from its backlog while a user
	 * holds it.
	 */
	if (!sk && err != -EPROTONOSUPPORT) {
		sk = quic_stateless_reset_sk(net, skb);
		if (sk)
			QUIC_IN_CB(skb)->reset = 1;
	}
	if (!sk) {
		quic_stateless_rcv(net, us, skb, &h, err, &local, &peer);
		kfree_skb(skb);
		return -ENOENT;
	}
	if (!b) {
		__skb_queue_head_init(&one);
		__skb_queue_tail(&one, skb);
		quic_in_deliver(sk, &one);
		return 0;
	}
	if (b->sk == sk) {
		sock_put(sk);	/* the batch holds it */
	} else {
		quic_in_batch_end(b);
		b->sk = sk;
	}
	__skb_queue_tail(&b->q, skb);
	return 0;
}

/* RFC 8999 invariants, and no more: a packet has a first byte; a long
 * header has its version and both connection IDs within the datagram.
 * The CID lengths are not capped at 20 here: Version Negotiation answers
 * unknown versions, whose CIDs may be up to 255 bytes long.
 */
static bool quic_in_payload_ok(const struct sk_buff *skb, u32 len)
{
	const u32 off = sizeof(struct udphdr);
	u32 dcil, scil;
	const u8 *p;
	u8 byte;

	if (!len)
		return false;
	p = skb_header_pointer(skb, off, 1, &byte);
	if (!p)
		return false;
	if (!(*p & QUIC_IN_HDR_FORM_LONG))
		return true;
	if (len < QUIC_IN_LONG_HDR_MIN)
		return false;
	p = skb_header_pointer(skb, off + 5, 1, &byte);
	if (!p)
		return false;
	dcil = *p;
	if (len < QUIC_IN_LONG_HDR_MIN + dcil)
		return false;
	p = skb_header_pointer(skb, off + 6 + dcil, 1, &byte);
	if (!p)
		return false;
	scil = *p;
	return len >= QUIC_IN_LONG_HDR_MIN + dcil + scil;
}

/* One datagram, at its UDP header, in batch @b (or NULL). */
static void quic_in_rcv_one(struct sock *udp_sk, struct sk_buff *skb,
			    struct quic_in_batch *b)
{
	struct net *net = sock_net(udp_sk);
	struct quic_udp_sock *us;
	u32 len = 0;
	int err;

	PRANDOM_SIPHASH_ADD_NOISE(skb->len, skb, skb->tstamp, jiffies);
	QUIC_INC_STATS(net, QUIC_MIB_PKT_IN);

	if (skb->len > sizeof(struct udphdr))
		len = skb->len - sizeof(struct udphdr);
	if (!quic_in_payload_ok(skb, len)) {
		QUIC_DROP(net, NULL, QUIC_MIB_DROP_MALFORMED);
		kfree_skb_reason(skb, SKB_DROP_REASON_PKT_TOO_SMALL);
		return;
	}
	us = rcu_dereference_sk_user_data(udp_sk);
	if (!us) {
		QUIC_DROP(net, NULL, QUIC_MIB_DROP_NOCONN);
		kfree_skb_reason(skb, SKB_DROP_REASON_NO_SOCKET);
	} else {
		err = quic_in_rcv(net, us, skb, b);
		if (err)
			QUIC_DROP(net, NULL, err == -ENOMEM ?
				  QUIC_MIB_DROP_BACKLOG : QUIC_MIB_DROP_NOCONN);
	}
}

/* A GRO or GSO skb (the sockets accept them: udp_allow_gso()): cut into
 * its datagrams as the UDP core would, which are then processed in a
 * row, a socket locked once and flushed once for all of its datagrams.
 */
static void quic_in_rcv_gso(struct sock *udp_sk, struct sk_buff *skb)
{
	struct sk_buff *segs, *next;
	struct quic_in_batch b;

	quic_in_batch_init(&b);
	__skb_push(skb, -skb_mac_offset(skb));
	segs = udp_rcv_segment(udp_sk, skb, skb->protocol == htons(ETH_P_IP));
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		__skb_pull(skb, skb_transport_offset(skb));
		udp_post_segment_fix_csum(skb);
		quic_in_rcv_one(udp_sk, skb, &b);
	}
	quic_in_batch_end(&b);
}

/**
 * quic_input_udp_rcv() - receive a UDP datagram on a shared UDP socket
 * @udp_sk: the kernel UDP socket
 * @skb: the datagram, its data at the UDP header, checksum verified; or
 *	a GRO/GSO skb of several
 *
 * The encap_rcv hook of the shared UDP sockets, called under RCU in
 * softirq context. Every datagram is counted and consumed: nothing falls
 * through to the UDP socket's queue, which nobody reads. After the sanity
 * checks quic_in_rcv() finds the connection or listener; a datagram nobody
 * takes is dropped as "no connection".
 *
 * Return: 0, the datagram was consumed.
 */
int quic_input_udp_rcv(struct sock *udp_sk, struct sk_buff *skb)
{
	if (skb_is_gso(skb))
		quic_in_rcv_gso(udp_sk, skb);
	else
		quic_in_rcv_one(udp_sk, skb, NULL);
	return 0;
}

/* Unhash @us and release its UDP socket, under the table mutex. Not
 * udp_tunnel_sock_release(): its synchronize_rcu() protects tunnels that
 * free their sk_user_data at once, and ours is freed by kfree_rcu().
 */
