// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: frames to packets to datagrams.
 *
 * quic_output_flush() fills datagrams from the packet-number spaces in
 * the order Initial, Handshake, 1-RTT, coalescing one packet of each
 * level per datagram: an ACK when one is due, the control frames due
 * (HANDSHAKE_DONE, connection ID, flow-control and stream control frames:
 * ctrl.c), DATAGRAM frames, then CRYPTO and STREAM data from the space's
 * send queue (outq.h: lost data first, then new data at the send cursor),
 * or a PING probe. Each packet's record
 * (sendq.h) lists the retransmittable frames it carried, so that a lost
 * packet sends again what it carried and nothing more. A datagram that carries
 * an Initial packet is padded to 1200 bytes (RFC 9000 14.1), in its last
 * packet. The packet number is always sent in 4 bytes. Once established,
 * datagrams take the path's size (quic_out_dgram_limit()); when a 1-RTT
 * ACK is due is ackfreq.c's decision (quic_ackfreq_ack_now()).
 *
 * Data (CRYPTO, STREAM, PING) waits for room in the congestion window
 * and for the pacer (cong.c); ACKs and control frames do not, and PTO
 * probes skip both (RFC 9002 7.5).
 *
 * What an acknowledged or lost packet means, and what a PTO probe sends,
 * is loss.c's; the data queued to send is sendq.c's.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include <linux/prandom_siphash.h>
#include <linux/slab.h>
#include <linux/tls.h>
#include <linux/udp.h>
#include <linux/uio.h>
#include <net/ip.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/sock.h>

#include "ackfreq.h"
#include "close.h"
#include "conn.h"
#include "ctrl.h"
#include "datagram.h"
#include "event.h"
#include "frame.h"
#include "gso.h"
#include "input.h"
#include "loss.h"
#include "mib.h"
#include "output.h"
#include "packet.h"
#include "path.h"
#include "protocol.h"
#include "recovery.h"
#include "sendq.h"
#include "socket.h"
#include "varint.h"
#include "version.h"

#define QUIC_OUT_PN_LEN		QUIC_CONN_PN_LEN
#define QUIC_OUT_ACK_RANGES	16
/* Our ack_delay_exponent: the default, 3. */
#define QUIC_OUT_ACK_DELAY_EXP	3
/* Datagrams one flush sends at most. */
#define QUIC_OUT_MAX_DGRAMS	64
/* A GSO batch: at most this many datagrams (UDP_MAX_SEGMENTS), and
 * bytes of UDP payload, under the 64 KiB of an IP packet with headers.
 */
#define QUIC_OUT_GSO_SEGS	64
#define QUIC_OUT_GSO_BYTES	64000
/* PADDING a 1-RTT datagram gets at most to take the batch's size (its
 * frame headers vary by a few bytes with the varints of the offsets).
 */
#define QUIC_OUT_GSO_PAD	16
/* PTOs in a row taken for a path MTU black hole. */
#define QUIC_OUT_BLACK_HOLE_PTOS	2

/* Largest STREAM frame header: type, Stream ID and Offset of 8 bytes
 * each, and a Length of 4; for estimates of the datagrams data takes.
 */
#define QUIC_OUT_STREAM_HDR_MAX	(1 + 8 + 8 + 4)
/* Records of packets that are not ack-eliciting kept per space. */
#define QUIC_OUT_ACK_ONLY_RECORDS	512

static const u8 quic_out_levels[] = {
	QUIC_CRYPTO_INITIAL, QUIC_CRYPTO_HANDSHAKE, QUIC_CRYPTO_APP
};

/* What one flush builds: the frames of the next datagram, per level, and
 * the GSO batch of full-size 1-RTT datagrams not yet sent.
 */
struct quic_out_plan {
	u8		*payload[QUIC_PNSPACE_NUM];
	struct quic_outq_src src;
	u32		len[QUIC_PNSPACE_NUM];
	struct quic_out_pkt *rec[QUIC_PNSPACE_NUM];
	bool		used[QUIC_PNSPACE_NUM];
	bool		eliciting[QUIC_PNSPACE_NUM];
	struct sk_buff	*gso;
	u32		gso_max;
	u32		gso_size;
	u16		gso_segs;
	u64		now_ns;
	bool		paced;
	bool		early;
};

/* May data (CRYPTO, STREAM, PING) go now? A PTO probe may always; else
 * the congestion window must have room and the pacer agree.
 */
static bool quic_out_data_ok(struct quic_conn *c, u64 now_ns, bool *paced)
{
	if (c->out.probes)
		return true;
	if (!quic_cong_can_send(&c->cong, quic_conn_in_flight(c)))
		return false;
	*paced = !!quic_cong_pace_wait(&c->cong, now_ns);
	return !*paced;
}

/* The token a client's Initials carry (quic-api.rst 5.10): set by the
 * user, or the one of a Retry. A server's carry none.
 */
static u32 quic_out_token(const struct sock *sk, const u8 **token)
{
	const struct quic_sock_opts *o = &quic_sk(sk)->opts;

	*token = o->token;
	return quic_sk(sk)->conn.is_server ? 0 : o->token_len;
}

/* @level is the packet's: QUIC_CRYPTO_EARLY for 0-RTT. */
static u32 quic_out_hdr_len(const struct sock *sk, u8 level, u32 payload)
{
	const struct quic_conn *c = &quic_sk(sk)->conn;
	const u8 *token;
	u32 len, tlen;

	if (level == QUIC_CRYPTO_APP)
		return 1 + c->ids.dcid.len + QUIC_OUT_PN_LEN;
	len = 1 + 4 + 1 + c->ids.dcid.len + 1 + c->ids.scid.len + QUIC_OUT_PN_LEN;
	len += quic_varint_len(QUIC_OUT_PN_LEN + payload + QUIC_PACKET_TAG_LEN);
	if (level == QUIC_CRYPTO_INITIAL) {
		tlen = quic_out_token(sk, &token);
		len += quic_varint_len(tlen) + tlen;
	}
	return len;
}

/* Write an ACK frame of @s, the space of @level, at @p; return its
 * length or 0 if it does not fit. With marks counted in that space, an
 * ACK_ECN.
 */
static u32 quic_out_ack(struct quic_pnspace *s, const struct quic_ecn *ecn,
			u8 level, u8 *p, u32 room)
{
	struct quic_ack_range ranges[QUIC_OUT_ACK_RANGES];
	struct quic_frame f = {};
	u32 i, n;
	int len;

	n = min_t(u32, quic_ackrange_count(&s->recv), QUIC_OUT_ACK_RANGES);
	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		quic_ackrange_get(&s->recv, i, &ranges[i]);
	f.type = QUIC_FRAME_ACK;
	if (quic_ecn_counts(ecn, level, f.ack.ecn))
		f.type = QUIC_FRAME_ACK_ECN;
	f.ranges = ranges;
	f.max_ranges = n;
	f.ack.nr_ranges = n;
	f.ack.largest = ranges[0].largest;
	f.ack.delay = quic_ackrange_ack_delay(&s->recv,
					      ktime_to_us(ktime_get())) >>
		      QUIC_OUT_ACK_DELAY_EXP;
	len = quic_frame_encode(p, room, &f);
	return len > 0 ? len : 0;
}

static u32 quic_out_dgram_limit(struct sock *sk);

/**
 * quic_output_frame_room() - the room for frames of a packet sent alone
 * @sk: the socket, locked
 *
 * The datagram size in use less the packet header and the tag: once
 * established (@max_dgram set), a 1-RTT packet with our DCID; before, a
 * 0-RTT one, whose long header is larger. STREAM chunks are cut to what
 * one frame of this room holds (sendq.c), so that a packet with one full
 * chunk is exactly the datagram size the path MTU search confirmed.
 *
 * Return: the bytes.
 */
u32 quic_output_frame_room(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u8 level = c->out.max_dgram ? QUIC_CRYPTO_APP : QUIC_CRYPTO_EARLY;
	u32 limit = quic_out_dgram_limit(sk);

	return limit - quic_out_hdr_len(sk, level, limit) - QUIC_PACKET_TAG_LEN;
}

/* Least data a chunk too large for any packet is cut to where other
 * frames take most of a packet: else it waits for an empty one.
 */
#define QUIC_OUT_SPLIT_MIN	64

/* The most data of one frame of @id at @off a packet holds alone. */
static u32 quic_out_data_max(struct sock *sk, s64 id, u64 off)
{
	u32 room = quic_output_frame_room(sk);
	int n;

	if (id == QUIC_OUTQ_CRYPTO)
		n = quic_frame_crypto_fit(off, room, U32_MAX);
	else
		n = quic_frame_stream_fit(id, off, true, room, U32_MAX);
	return n > 0 ? n : 0;
}

/* Cut @ch where @n of its bytes fit the packet being planned, if it is
 * too large for any packet now: the datagram size fell back after a
 * black hole (quic_output_pmtu_check()). One that fits an empty packet
 * is never cut, so that a packet whose ACK and control frames leave it
 * too little room goes without it, and the chunk fills the next one
 * whole. Return: true if cut.
 */
static bool quic_out_chunk_cut(struct sock *sk, struct quic_outq *q,
			       struct quic_outq_chunk *ch, int n)
{
	if (!quic_sk(sk)->conn.out.max_dgram || n < QUIC_OUT_SPLIT_MIN ||
	    ch->len <= quic_out_data_max(sk, ch->id, ch->offset))
		return false;
	return !quic_sendq_chunk_split(sk, q, ch, n);
}

/* The data of the space's send queue: lost chunks first, then new ones
 * from the send cursor, one CRYPTO or STREAM frame each. A chunk that
 * does not fit what the frames before it left waits for the next packet,
 * which it fills: a STREAM chunk is cut to what a packet holds with
 * nothing else (quic_out_data_max()), so one that shares a packet with
 * an ACK or control frames seldom fits. Those then go in a packet of
 * their own: cutting the chunk instead would cost an allocation and a
 * copy of its tail, and put in flight one more packet, a fragment of
 * data, for the same count of packets.
 */
static u32 quic_out_data(struct sock *sk, struct quic_outq *q, u8 *buf,
			 u32 room, struct quic_out_pkt *rec,
			 struct quic_outq_src *src)
{
	struct quic_outq_chunk *ch;
	struct quic_out_item *it;
	struct quic_frame f;
	u32 used = 0;
	u8 *at;
	int n;

	while ((ch = quic_outq_peek(q))) {
		memset(&f, 0, sizeof(f));
		if (ch->id == QUIC_OUTQ_CRYPTO)
			n = quic_frame_crypto_fit(ch->offset, room - used,
						  ch->len);
		else
			n = quic_frame_stream_fit(ch->id, ch->offset, true,
						  room - used, ch->len);
		if (n < (int)ch->len &&
		    (n <= 0 || !quic_out_chunk_cut(sk, q, ch, n)))
			break;	/* for the next packet */
		/* After the cut: the FIN went with the chunk's tail. */
		f.type = ch->id == QUIC_OUTQ_CRYPTO ? QUIC_FRAME_CRYPTO :
			 quic_frame_stream_type(ch->offset, true, ch->fin);
		f.data.id = ch->id;
		f.data.offset = ch->offset;
		/* The AEAD reads the bytes from @src, or they are copied. */
		f.data.len = ch->len;
		n = quic_frame_encode(buf + used, room - used, &f);
		if (n < 0)
			break;
		it = quic_sendq_item_add(rec);
		if (!it)
			break;
		at = buf + used + n - ch->len;
		if (ch->len && !(src && quic_outq_src_add(src, ch, at)))
			quic_outq_chunk_copy(ch, at);
		it->kind = QUIC_OUT_CHUNK;
		it->chunk = ch;
		used += n;
		quic_outq_sent(q, ch);
	}
	return used;
}

/**
 * quic_output_ack_timeout() - the ACK timer fired: send the deferred 1-RTT
 *	ACK (timer.c)
 * @sk: the socket, locked, not running a user's call
 */
void quic_output_ack_timeout(struct sock *sk)
{
	struct quic_pnspace *s = quic_sk(sk)->conn.space.at[QUIC_CRYPTO_APP];

	if (sk->sk_state == TCP_CLOSE || !s->ack_pending)
		return;
	s->ack_eliciting = U8_MAX;	/* due now */
	quic_output_flush(sk, GFP_ATOMIC);
}

static void quic_out_reverse(u8 *p, u32 n)
{
	u8 *q = p + n;

	/* swap() evaluates its arguments more than once. */
	for (; p < --q; p++)
		swap(*p, *q);
}

/* [@a bytes][@b bytes] at @buf become [@b bytes][@a bytes], in place. */
static void quic_out_rotate(u8 *buf, u32 a, u32 b)
{
	quic_out_reverse(buf, a);
	quic_out_reverse(buf + a, b);
	quic_out_reverse(buf, a + b);
}

/* Plan the frames of one level into @buf; return their length. Without
 * @data_ok (the congestion window is full, or the pacer says wait) only
 * ACKs and control frames go: no CRYPTO, STREAM or PING.
 */
static u32 quic_out_frames(struct sock *sk, u8 level, u8 *buf, u32 room,
			   struct quic_out_pkt *rec, bool data_ok,
			   bool *eliciting, struct quic_outq_src *src)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = c->space.at[level];
	bool ack_later, acked = false, app = level == QUIC_CRYPTO_APP;
	u32 used = 0;
	int n;

	if (src)
		quic_outq_src_init(src, buf, s->tx.cipher_type ==
					     TLS_CIPHER_AES_CCM_128);
	ack_later = s->ack_pending && !quic_ackfreq_ack_now(sk, level);
	if (s->ack_pending && !ack_later) {
		n = quic_out_ack(s, &c->ecn, level, buf, room);
		if (n) {
			used += n;
			s->ack_pending = false;
			s->ack_eliciting = 0;
			acked = true;
		}
	}
	if (app) {
		used += quic_ctrl_frames(sk, buf + used, room - used, rec);
		used += quic_ackfreq_out(sk, buf + used, room - used, rec);
	}
	/* RFC 9221 5: datagrams are congestion controlled, and go ahead of
	 * stream data, whose losses are repaired anyway.
	 */
	if (app && data_ok && sk->sk_state == TCP_ESTABLISHED &&
	    quic_dgram_unsent(sk)) {
		u32 nr;

		n = quic_dgram_out(sk, buf + used, room - used, &nr);
		if (nr)
			quic_sendq_note(rec, QUIC_OUT_DATAGRAM, 0, 0);
		used += n;
	}
	if (data_ok)
		used += quic_out_data(sk, &s->out, buf + used, room - used,
				      rec, src);
	*eliciting = rec->nr;
	/* A probe asks the peer to acknowledge it at once, past any delay
	 * our ACK_FREQUENCY allowed (draft-ietf-quic-ack-frequency 5).
	 */
	if (app && c->out.probes && room - used >= 1 &&
	    quic_ackfreq_immediate_ok(c)) {
		buf[used++] = QUIC_FRAME_IMMEDIATE_ACK;
		*eliciting = true;
	}
	if (s->ping && data_ok && !*eliciting && room - used >= 1) {
		buf[used++] = QUIC_FRAME_PING;
		*eliciting = true;
	}
	if (*eliciting)
		s->ping = false;
	/* A deferred ACK rides along with anything else sent, in front: a
	 * peer then learns of our acknowledgment before our data, as
	 * applications of the socket API expect their events (quic-api.rst
	 * 5.6). A probe (RFC 9002 6.2.4: it may carry any frame) repeats
	 * our ACK of the space even when none is pending: a peer whose
	 * flight reached us in part, and which lost our ACKs, learns what
	 * to send again.
	 */
	if ((ack_later || (c->out.probes && !acked)) && *eliciting) {
		n = quic_out_ack(s, &c->ecn, level, buf + used, room - used);
		if (n) {
			quic_out_rotate(buf, used, n);
			if (src)
				quic_outq_src_shift(src, n);
			used += n;
			s->ack_pending = false;
			s->ack_eliciting = 0;
		}
	}
	return used;
}

/* Header, encryption and send bookkeeping of one planned packet; @level
 * is the packet's: a 0-RTT one (QUIC_CRYPTO_EARLY) numbers in the 1-RTT
 * space (RFC 9000 12.3) and takes the 0-RTT key. @now_ns: its send
 * time (ktime_get_ns(), once per datagram), unused without @rec.
 */
static int quic_out_seal(struct sock *sk, u8 level, u8 *p, u32 room,
			 const u8 *payload, u32 len, struct quic_out_pkt *rec,
			 bool eliciting, const struct quic_outq_src *src,
			 u64 now_ns)
{
	struct scatterlist sg[QUIC_OUTQ_SRC_SG];
	struct quic_conn *c = &quic_sk(sk)->conn;
	bool early = level == QUIC_CRYPTO_EARLY;
	struct quic_pnspace *s = c->space.at[early ? QUIC_CRYPTO_APP : level];
	struct quic_crypto *key = early ? c->early.key : &s->tx;
	struct quic_pkt_hdr h = {};
	u64 pn = s->next_pn;
	int hlen, err;

	h.dcid = c->ids.dcid.data;
	h.dcid_len = c->ids.dcid.len;
	h.scid = c->ids.scid.data;
	h.scid_len = c->ids.scid.len;
	h.version = c->vn.version;
	if (level == QUIC_CRYPTO_APP) {
		hlen = quic_packet_build_short(p, room, &h, QUIC_OUT_PN_LEN, pn);
	} else {
		h.type = level == QUIC_CRYPTO_INITIAL ? QUIC_PACKET_INITIAL :
			 early ? QUIC_PACKET_0RTT : QUIC_PACKET_HANDSHAKE;
		if (level == QUIC_CRYPTO_INITIAL)
			h.token_len = quic_out_token(sk, &h.token);
		hlen = quic_packet_build_long(p, room, &h, QUIC_OUT_PN_LEN, pn,
					      len);
		/* A client that probes with a version we do not speak
		 * (version.c): only the Version field says so.
		 */
		if (unlikely(c->vn.probe) && hlen > 0)
			put_unaligned_be32(quic_version_wire(sk), p + 1);
	}
	if (hlen < 0)
		return hlen;
	if (hlen + len + QUIC_PACKET_TAG_LEN > room)
		return -ENOBUFS;
	if (payload != p + hlen)	/* else built in place */
		memmove(p + hlen, payload, len);
	if (trace_quic_packet_sent_enabled())
		trace_quic_packet_sent(sk, early ? QUIC_CRYPTO_EARLY : level, pn,
				       hlen + len + QUIC_PACKET_TAG_LEN,
				       quic_frame_types(p + hlen, len));
	if (src && src->nr)	/* data read from its chunks */
		quic_outq_src_sg(src, p, hlen, len, sg);
	err = quic_crypto_encrypt_sg(key, p, src && src->nr ? sg : NULL, hlen,
				     QUIC_OUT_PN_LEN, pn, len);
	if (err)
		return err;
	s->next_pn++;
	c->out.pkts_sent++;
	c->out.bytes_sent += hlen + len + QUIC_PACKET_TAG_LEN;
	if (early)
		QUIC_INC_STATS(sock_net(sk), QUIC_MIB_0RTT_OUT);
	/* Every packet but a CONNECTION_CLOSE is recorded, so that an ACK
	 * of an ACK-only packet is not taken for an ACK of one never sent,
	 * and acknowledges the ranges it carried. A peer that never
	 * acknowledges makes us keep only so many ACK-only records; later
	 * ones are counted as sent and dropped.
	 */
	if (rec && !eliciting &&
	    s->sent.others >= QUIC_OUT_ACK_ONLY_RECORDS) {
		if (quic_sent_skip(&s->sent, pn))
			return -EINVAL;
		quic_sendq_pkt_free(sk, &rec->sent);
	} else if (rec) {
		rec->level = early ? QUIC_CRYPTO_APP : level;
		rec->sent.pn = pn;
		rec->sent.sent_time = div_u64(now_ns, NSEC_PER_USEC);
		rec->sent.size = hlen + len + QUIC_PACKET_TAG_LEN;
		rec->sent.ack_eliciting = eliciting;
		rec->sent.in_flight = eliciting;
		if (quic_sent_add(&s->sent, &rec->sent))
			return -EINVAL;
		if (eliciting)
			quic_cong_on_sent(&c->cong, rec->sent.size,
					  quic_conn_in_flight(c),
					  rec->sent.sent_time, now_ns);
	}
	if (eliciting)
		quic_close_idle_sent(sk);
	return hlen + len + QUIC_PACKET_TAG_LEN;
}

/* The path MTU towards the peer less the IP and UDP headers, or 0. */
static u32 quic_out_path_payload(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct net *net = sock_net(sk);
	struct dst_entry *dst;
	struct flowi6 fl6 = {};
	struct flowi4 fl4 = {};
	struct rtable *rt;
	u32 mtu;

	if (c->paths.peer.sa.sa_family == AF_INET) {
		fl4.flowi4_proto = IPPROTO_UDP;
		fl4.daddr = c->paths.peer.v4.sin_addr.s_addr;
		fl4.saddr = c->paths.local.v4.sin_addr.s_addr;
		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt))
			return 0;
		mtu = dst_mtu(&rt->dst);
		ip_rt_put(rt);
		return mtu > sizeof(struct iphdr) + sizeof(struct udphdr) ?
		       mtu - sizeof(struct iphdr) - sizeof(struct udphdr) : 0;
	}
	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.daddr = c->paths.peer.v6.sin6_addr;
	fl6.saddr = c->paths.local.v6.sin6_addr;
	if (__ipv6_addr_needs_scope_id(ipv6_addr_type(&fl6.daddr)))
		fl6.flowi6_oif = c->paths.peer.v6.sin6_scope_id;
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (IS_ERR(dst))
		return 0;
	mtu = dst_mtu(dst);
	dst_release(dst);
	return mtu > sizeof(struct ipv6hdr) + sizeof(struct udphdr) ?
	       mtu - sizeof(struct ipv6hdr) - sizeof(struct udphdr) : 0;
}

/**
 * quic_output_set_dgram() - set the datagram size in use
 * @c: the connection, its socket locked
 * @size: the size, in bytes of UDP payload
 *
 * The congestion controller counts in it. loss.c sets it when a path MTU
 * probe is acknowledged.
 */
void quic_output_set_dgram(struct quic_conn *c, u32 size)
{
	if (size != c->out.max_dgram)
		trace_quic_path(quic_conn_sk(c), "mtu", size);
	c->out.max_dgram = size;
	quic_cong_set_mss(&c->cong, size);
}

/* The largest datagram to build now (RFC 9000 14): 1200 bytes until the
 * handshake is done and the Initial space gone; then what the path MTU
 * search (pmtu.c) has confirmed, starting at 1200, up to the path MTU
 * less the headers, both ends' max_udp_payload_size and
 * QUIC_CONN_MAX_DGRAM_CAP. It grows as probes confirm larger sizes and
 * falls back to 1200 after a black hole (quic_output_pmtu_check()); STREAM
 * chunks are cut to it when queued, and cut again if it fell since.
 */
static u32 quic_out_dgram_limit(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 max;

	if (c->out.max_dgram)
		return c->out.max_dgram;
	if (sk->sk_state != TCP_ESTABLISHED || !c->hs.peer_tp_set ||
	    !c->space.at[QUIC_CRYPTO_INITIAL]->discarded)
		return QUIC_CONN_MAX_DGRAM;
	max = min_t(u64, QUIC_CONN_MAX_DGRAM_CAP,
		    min(c->peer_tp.max_udp_payload_size,
			c->local_tp.max_udp_payload_size));
	max = min(max, quic_out_path_payload(sk));
	quic_pmtu_init(&c->out.pmtu, QUIC_CONN_MAX_DGRAM, max);
	quic_output_set_dgram(c, c->out.pmtu.plpmtu);
	return c->out.max_dgram;
}

/**
 * quic_output_pmtu_check() - at a PTO, fall back if the path shrank
 * @sk: the socket, locked
 *
 * With datagrams above the base size in use (loss.c calls it at a PTO):
 * has the path shrunk? The route says so (an ICMP "fragmentation needed"
 * or "packet too big" lowered its MTU: our datagrams, DF, are then
 * dropped before they leave), or PTOs in a row suggest a black hole
 * (RFC 8899 4.3). Either way datagrams fall back to 1200 bytes, which
 * every QUIC path carries, and the search starts again, up to the
 * route's MTU.
 */
void quic_output_pmtu_check(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 route;

	if (c->out.max_dgram <= QUIC_CONN_MAX_DGRAM)
		return;
	route = quic_out_path_payload(sk);
	if (route >= c->out.max_dgram &&
	    c->loss.rec.pto_count < QUIC_OUT_BLACK_HOLE_PTOS)
		return;
	quic_pmtu_init(&c->out.pmtu, QUIC_CONN_MAX_DGRAM,
		       min(c->out.pmtu.max, max(route, QUIC_CONN_MAX_DGRAM)));
	quic_output_set_dgram(c, c->out.pmtu.plpmtu);
}

/* DPLPMTUD (pmtu.c): a PING padded to the size being probed, alone in
 * its datagram, once the handshake is confirmed; it waits for the window
 * like data, but its loss is no sign of congestion (quic_loss_pkt_lost()).
 * With a PLPMTUD probe interval configured, a finished search starts
 * again after it.
 */
static void quic_out_pmtu_probe(struct sock *sk, gfp_t gfp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 interval = quic_sk(sk)->opts.config.plpmtud_probe_interval;
	u64 now_ns = ktime_get_ns(), now = div_u64(now_ns, NSEC_PER_USEC);
	struct quic_out_pkt *rec;
	struct sk_buff *skb;
	u32 size, len, hl;
	bool paced;
	u8 *buf;
	int n;

	/* Not during a PTO: the probes must be packets that get through. */
	if (!c->out.max_dgram || !c->hs.handshake_confirmed || c->close.closing ||
	    c->out.probes)
		return;
	if (c->out.pmtu.done) {
		if (!interval)
			return;
		if (!c->out.pmtu.raise_at)
			c->out.pmtu.raise_at = now + interval;
		if (now < c->out.pmtu.raise_at)
			return;
		c->out.pmtu.raise_at = 0;
		quic_pmtu_restart(&c->out.pmtu);
	}
	size = quic_pmtu_next(&c->out.pmtu);
	if (!size || !quic_out_data_ok(c, now_ns, &paced))
		return;
	hl = quic_out_hdr_len(sk, QUIC_CRYPTO_APP, 0);
	len = size - hl - QUIC_PACKET_TAG_LEN;
	rec = kzalloc(sizeof(*rec), gfp);
	skb = quic_udp_alloc_skb(size, gfp);
	if (!rec || !skb)
		goto err;
	/* The payload in place, after the header: PING, then PADDING. */
	buf = skb_tail_pointer(skb) + hl;
	memset(buf, 0, len);
	buf[0] = QUIC_FRAME_PING;
	rec->pmtu_probe = true;
	n = quic_out_seal(sk, QUIC_CRYPTO_APP, skb_tail_pointer(skb),
			  skb_tailroom(skb), buf, len, rec, true, NULL, now_ns);
	if (n < 0)
		goto err;
	skb_put(skb, n);
	quic_pmtu_sent(&c->out.pmtu, size, rec->sent.pn);
	quic_udp_xmit(quic_sk(sk)->udp, skb, &c->paths.local, &c->paths.peer, 0,
		      &c->out.dst_cache);
	return;
err:
	kfree_skb(skb);
	kfree(rec);
}

/* Send the GSO batch, if any: one skb, its datagrams cut by the stack
 * (SKB_GSO_UDP_L4) at the device or, on lo and veth, by the receiving
 * UDP socket.
 */
static int quic_out_gso_send(struct sock *sk, struct quic_out_plan *pl)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct sk_buff *skb = pl->gso;

	pl->gso = NULL;
	if (!skb)
		return 0;
	if (!skb->len) {
		kfree_skb(skb);
		return 0;
	}
	if (pl->gso_segs > 1)
		quic_gso_finish(skb, pl->gso_size, pl->gso_segs);
	/* Only 1-RTT datagrams are batched: marked as the plan said. */
	return quic_udp_xmit(quic_sk(sk)->udp, skb, &c->paths.local, &c->paths.peer,
			     quic_ecn_tos(&c->ecn), &c->out.dst_cache);
}

/* Make a record ready for planning a packet of @level. Frames planned
 * into it for a packet that was not sent after all are queued again.
 */
static void quic_out_rec_reset(struct sock *sk, struct quic_out_pkt *rec,
			       u8 level)
{
	if (rec->nr) {
		quic_loss_pkt_requeue(sk, &rec->sent);
		quic_sendq_rec_release(rec);
	}
	memset(rec, 0, sizeof(*rec));
	rec->level = level;
}

/* Start a GSO batch of at most @size bytes, its segment size @seg (0:
 * that of its first datagram), with room for @first bytes. Return false
 * if no skb or page could be had.
 */
static bool quic_out_gso_start(struct sock *sk, struct quic_out_plan *pl,
			       u32 size, u32 seg, u32 first, gfp_t gfp)
{
	pl->gso = quic_gso_alloc(gfp);
	pl->gso_max = size;
	pl->gso_size = seg;
	pl->gso_segs = 0;
	if (pl->gso && quic_gso_reserve(sk, pl->gso, first, size, gfp))
		return true;
	kfree_skb(pl->gso);
	pl->gso = NULL;
	return false;
}

/* A 1-RTT datagram of the datagram size in use, to a few bytes: a full
 * STREAM chunk fills it (quic_out_data_max()), and more are likely to
 * follow at that size.
 */
static bool quic_out_full(u32 total, u32 limit)
{
	return total + QUIC_OUT_GSO_PAD >= limit;
}

/* The skb to build a datagram of @total bytes into: the GSO batch if it
 * is a 1-RTT one that fits it, as its last if shorter than its first; a
 * batch with none yet takes a full one (quic_out_full()) only, which sets
 * its segment size. Else a batch with datagrams goes first, and a full
 * 1-RTT datagram starts a new one; anything else, an ACK and control
 * frames planned ahead of the data that fills the next, or the last bytes
 * of a write, gets an skb of its own and leaves an empty batch to what
 * follows.
 */
static struct sk_buff *quic_out_gso_skb(struct sock *sk,
					struct quic_out_plan *pl, u32 total,
					u32 limit, bool app_only, gfp_t gfp)
{
	bool full = app_only && quic_out_full(total, limit);
	u32 segs;

	if (pl->gso && app_only &&
	    quic_gso_reserve(sk, pl->gso, total, pl->gso_max, gfp)) {
		if (pl->gso_size && total <= pl->gso_size)
			return pl->gso;
		if (!pl->gso_size && full) {	/* its first datagram */
			pl->gso_size = total;
			return pl->gso;
		}
	}
	if (pl->gso && pl->gso_size)
		quic_out_gso_send(sk, pl);
	segs = min_t(u32, QUIC_OUT_GSO_SEGS, QUIC_OUT_GSO_BYTES / limit);
	if (!pl->gso && full && segs > 1 &&
	    quic_out_gso_start(sk, pl, segs * total, total, total, gfp))
		return pl->gso;
	return quic_udp_alloc_skb(total, gfp);
}

/* Where the 1-RTT packet that starts the next datagram is planned: in
 * place, in the GSO batch skb after the room for its header, when the
 * batch has room for one more datagram, or, when data waits and may go,
 * in a new batch sized for that data (its segment size is that of its
 * first datagram). Return the most the datagram may take there, or 0:
 * then it is planned in the frame buffer. So a flush with nothing to
 * send, or only ACK and control frames, or a write that fits the buffer,
 * allocates no batch.
 */
static u32 quic_out_inplace(struct sock *sk, struct quic_out_plan *pl,
			    u32 limit, bool data_ok, gfp_t gfp)
{
	struct quic_outq *q = &quic_sk(sk)->conn.space.at[QUIC_CRYPTO_APP]->out;
	u32 segs, size, ovh, dgram = quic_dgram_unsent(sk);
	u64 want;

	if (pl->gso) {
		size = pl->gso_size ?: limit;
		if (quic_gso_reserve(sk, pl->gso, size, pl->gso_max, gfp))
			return size;
		quic_out_gso_send(sk, pl);
	}
	if (!data_ok || (!quic_outq_pending(q) && !dgram))
		return 0;
	/* Data of lost packets: as much as a batch takes. Else a datagram
	 * per packet of data (header, tag and a STREAM frame header each),
	 * datagrams counting with their data: data whose packet is larger
	 * than the frame buffer goes in place.
	 */
	ovh = quic_out_hdr_len(sk, QUIC_CRYPTO_APP, 0) + QUIC_PACKET_TAG_LEN +
	      QUIC_OUT_STREAM_HDR_MAX;
	want = q->unsent + dgram + ovh;
	if (!list_empty(&q->lost))
		want = U64_MAX;
	else if (want <= QUIC_CONN_MAX_DGRAM)
		return 0;
	segs = limit > ovh ? min_t(u64, QUIC_OUT_GSO_SEGS,
				   div64_u64(want, limit - ovh) + 1) : 1;
	segs = min(segs, QUIC_OUT_GSO_BYTES / limit);
	size = segs > 1 ? segs * limit : min_t(u64, want, limit);
	if (!quic_out_gso_start(sk, pl, size, 0, min(size, limit), gfp))
		return 0;
	return min(size, limit);
}

/* Plan the 1-RTT packet of a datagram holding @total bytes so far, with a
 * header of @hl bytes: in place when it starts the datagram and
 * quic_out_inplace() says so, else in the frame buffer. Return the
 * length of its frames, which *@buf points to.
 */
static u32 quic_out_plan_app(struct sock *sk, struct quic_out_plan *pl,
			     u32 limit, u32 total, u32 hl, bool data_ok,
			     u8 **buf, gfp_t gfp)
{
	u32 room = limit - total - hl - QUIC_PACKET_TAG_LEN, cap = 0, n, r;
	struct quic_out_pkt *rec = pl->rec[QUIC_CRYPTO_APP];
	int tries;

	for (tries = 0; tries < 2; tries++) {
		if (!total && !pl->early)
			cap = quic_out_inplace(sk, pl, limit, data_ok, gfp);
		if (cap) {
			*buf = quic_gso_tail(sk, &r) + hl;
			n = min(room, cap - hl - QUIC_PACKET_TAG_LEN);
		} else {
			*buf = pl->payload[QUIC_CRYPTO_APP];
			n = min_t(u32, room, QUIC_CONN_MAX_DGRAM);
		}
		quic_out_rec_reset(sk, rec, QUIC_CRYPTO_APP);
		n = quic_out_frames(sk, QUIC_CRYPTO_APP, *buf, n, rec, data_ok,
				    &pl->eliciting[QUIC_CRYPTO_APP], &pl->src);
		/* Nothing fit the batch's segment size (the next chunk is
		 * a few bytes longer than its first datagram's): the batch
		 * goes, and the datagram is planned again in a new one.
		 */
		if (n || !cap || !pl->gso_size)
			break;
		quic_out_gso_send(sk, pl);
	}
	return n;
}

/* Handshake data waits to be sent (new, or lost): what the
 * anti-amplification limit can hold back.
 */
static bool quic_out_long_waiting(const struct quic_conn *c)
{
	int i;

	for (i = QUIC_CRYPTO_INITIAL; i <= QUIC_CRYPTO_HANDSHAKE; i++) {
		const struct quic_outq *q = &c->space.at[i]->out;

		if (!c->space.at[i]->discarded &&
		    (q->unsent || !list_empty(&q->lost)))
			return true;
	}
	return false;
}

/* 0-RTT (RFC 9001 4.6.1): a client with the EARLY key and stream data
 * queued before the handshake sends it in 0-RTT packets until its 1-RTT
 * key is in, once its first Initial is out (a 0-RTT packet the server
 * gets before an Initial finds no connection), and not while a Retry
 * waits for its keys.
 */
static bool quic_out_early(const struct sock *sk)
{
	const struct quic_conn *c = &quic_sk(sk)->conn;

	return unlikely(c->early.key) && !c->early.off && !c->is_server &&
	       sk->sk_state == TCP_SYN_RECV && c->streams_ready &&
	       !c->hs.retry_pending && !c->vn.resend &&
	       (c->space.at[QUIC_CRYPTO_INITIAL]->next_pn ||
		c->space.at[QUIC_CRYPTO_INITIAL]->discarded);
}

/* The level a packet of space @level is sealed at: 0-RTT in the 1-RTT
 * space while the plan is one for 0-RTT.
 */
static u8 quic_out_pkt_level(const struct quic_out_plan *pl, u8 level)
{
	return level == QUIC_CRYPTO_APP && pl->early ? QUIC_CRYPTO_EARLY :
						       level;
}

/* Build and send one datagram. Return 1 if one was sent (or added to the
 * GSO batch), 0 if there was nothing to send, or a negative errno.
 */
static int quic_out_dgram(struct sock *sk, struct quic_out_plan *pl, gfp_t gfp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 total = 0, room, hl, pad, i, last = 0, start;
	u32 limit = quic_out_dgram_limit(sk);
	bool initial = false, data_ok, any = false, app_only;
	u8 *buf[QUIC_PNSPACE_NUM], *dst;
	struct quic_pnspace *s;
	struct sk_buff *skb;
	int n, err = 0;
	u8 level;

	/* RFC 9000 8.1: until the client's address is validated, three
	 * times what it sent us, in whole handshake datagrams; after the
	 * client moved (9.3), in 1-RTT datagrams as small as the budget
	 * makes them, so that ACKs still go.
	 */
	if (unlikely(!c->paths.amp.validated) && c->is_server) {
		room = quic_path_amp_room(sk);
		if (room < quic_path_amp_min(sk)) {
			if (quic_out_long_waiting(c))
				QUIC_INC_STATS(sock_net(sk),
					       QUIC_MIB_AMPLIFICATION_BLOCKED);
			return 0;
		}
		limit = min(limit, room);
	}
	pl->paced = false;
	pl->early = quic_out_early(sk);
	pl->now_ns = ktime_get_ns();	/* also its packets' send time */
	data_ok = quic_out_data_ok(c, pl->now_ns, &pl->paced);
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		pl->used[i] = false;
		pl->len[i] = 0;
	}

	for (i = 0; i < ARRAY_SIZE(quic_out_levels); i++) {
		level = quic_out_levels[i];
		s = c->space.at[level];
		if (s->discarded)
			continue;
		if (!(level == QUIC_CRYPTO_APP && pl->early) &&
		    (!quic_crypto_ready(&s->tx) ||
		     (level == QUIC_CRYPTO_APP &&
		      (sk->sk_state != TCP_ESTABLISHED || c->hs.fin_pending))))
			continue;
		/* After a Retry, Initials wait for the keys of its ID; after
		 * Version Negotiation, for those of the version chosen.
		 */
		if (level == QUIC_CRYPTO_INITIAL &&
		    (c->hs.retry_pending || c->vn.flip || c->vn.resend))
			continue;
		hl = quic_out_hdr_len(sk, quic_out_pkt_level(pl, level), limit);
		if (total + hl + QUIC_PACKET_TAG_LEN + 8 >= limit)
			break;
		if (level == QUIC_CRYPTO_APP) {
			n = quic_out_plan_app(sk, pl, limit, total, hl, data_ok,
					      &buf[level], gfp);
		} else {
			room = min_t(u32, limit - total - hl -
					  QUIC_PACKET_TAG_LEN,
				     QUIC_CONN_MAX_DGRAM);
			buf[level] = pl->payload[level];
			quic_out_rec_reset(sk, pl->rec[level], level);
			n = quic_out_frames(sk, level, buf[level], room,
					    pl->rec[level], data_ok,
					    &pl->eliciting[level], NULL);
		}
		if (!n)
			continue;
		any |= pl->eliciting[level];
		pl->len[level] = n;
		pl->used[level] = true;
		last = level;
		if (level == QUIC_CRYPTO_INITIAL)
			initial = true;
		total += quic_out_hdr_len(sk, quic_out_pkt_level(pl, level), n) +
			 n + QUIC_PACKET_TAG_LEN;
	}
	if (!total)
		return 0;
	if (any && c->out.probes)
		c->out.probes--;

	/* Padding: the sample needs 4 bytes of packet number and payload,
	 * always there with 4-byte packet numbers; Initials need 1200.
	 */
	while (initial && total < QUIC_CONN_MAX_DGRAM) {
		pad = QUIC_CONN_MAX_DGRAM - total;
		total -= quic_out_hdr_len(sk, quic_out_pkt_level(pl, last),
					  pl->len[last]) + pl->len[last];
		memset(buf[last] + pl->len[last], 0, pad);
		pl->len[last] += pad;
		total += quic_out_hdr_len(sk, quic_out_pkt_level(pl, last),
					  pl->len[last]) + pl->len[last];
	}
	if (initial && total > QUIC_CONN_MAX_DGRAM) {
		/* The Length field grew: take the excess back. */
		pl->len[last] -= total - QUIC_CONN_MAX_DGRAM;
		total = QUIC_CONN_MAX_DGRAM;
	}

	app_only = !pl->used[QUIC_CRYPTO_INITIAL] &&
		   !pl->used[QUIC_CRYPTO_HANDSHAKE] && !pl->early;
	if (app_only && pl->gso && total < pl->gso_size &&
	    pl->gso_size - total <= QUIC_OUT_GSO_PAD) {
		pad = pl->gso_size - total;
		memset(buf[QUIC_CRYPTO_APP] + pl->len[QUIC_CRYPTO_APP], 0,
		       pad);
		pl->len[QUIC_CRYPTO_APP] += pad;
		total += pad;
	}
	skb = quic_out_gso_skb(sk, pl, total, limit, app_only, gfp);
	if (!skb)
		return -ENOMEM;
	start = skb->len;
	for (i = 0; i < ARRAY_SIZE(quic_out_levels); i++) {
		level = quic_out_levels[i];
		if (!pl->used[level])
			continue;
		pl->rec[level]->ect = app_only && quic_ecn_tos(&c->ecn);
		if (skb == pl->gso) {
			dst = quic_gso_tail(sk, &room);
		} else {
			dst = skb_tail_pointer(skb);
			room = skb_tailroom(skb);
		}
		n = quic_out_seal(sk, quic_out_pkt_level(pl, level), dst, room,
				  buf[level], pl->len[level], pl->rec[level],
				  pl->eliciting[level],
				  level == QUIC_CRYPTO_APP ? &pl->src : NULL,
				  pl->now_ns);
		if (n < 0) {
			err = n;
			break;
		}
		pl->rec[level] = NULL;	/* owned by the sent store */
		if (skb == pl->gso)
			quic_gso_put(sk, skb, n);
		else
			skb_put(skb, n);
	}
	if (skb == pl->gso) {
		if (err)
			return err;	/* nothing of this datagram was put */
		quic_path_amp_sent(sk, skb->len - start);
		pl->gso_segs++;
		/* A shorter datagram is the batch's last (its first is full:
		 * quic_out_gso_skb()).
		 */
		if (total < pl->gso_size || pl->gso_segs == QUIC_OUT_GSO_SEGS ||
		    pl->gso_max - skb->len < pl->gso_size)
			return quic_out_gso_send(sk, pl) ?: 1;
		return 1;
	}
	if (err || !skb->len) {
		kfree_skb(skb);
		return err;
	}
	quic_path_amp_sent(sk, skb->len);
	err = quic_udp_xmit(quic_sk(sk)->udp, skb, &c->paths.local, &c->paths.peer,
			    app_only ? quic_ecn_tos(&c->ecn) : 0, &c->out.dst_cache);
	return err ? err : 1;
}

/* The flush stopped with data or DATAGRAM frames queued and room in the
 * window, @again: the pacer held them back, or the flush sent its most
 * datagrams: come back when the pacer lets them go (at once if it already
 * does). The window, when it is full, opens with an ACK, which flushes.
 */
static void quic_out_pace_arm(struct sock *sk, bool again)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 wait;
	int i;

	if (!again || c->out.probes || sk->sk_state == TCP_CLOSE ||
	    !quic_cong_can_send(&c->cong, quic_conn_in_flight(c)))
		return;
	wait = max_t(u64, quic_cong_pace_wait(&c->cong, ktime_get_ns()), 1);
	/* A datagram sent alone has no other data to wake the pacer for. */
	if (quic_dgram_unsent(sk)) {
		quic_timer_pace(sk, wait);
		return;
	}
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		if (!c->space.at[i]->discarded &&
		    quic_outq_pending(&c->space.at[i]->out)) {
			quic_timer_pace(sk, wait);
			return;
		}
	}
}

/* The 1-RTT frame buffers (quic_out_buffers()) come from a cache of their
 * own: kmalloc() would round QUIC_CONN_MAX_DGRAM bytes up to 2 KiB for
 * each connection's life.
 */
static struct kmem_cache *quic_out_buf_cache;

/**
 * quic_output_init() - create the cache of 1-RTT frame buffers
 *
 * Return: 0 or -ENOMEM.
 */
int __init quic_output_init(void)
{
	quic_out_buf_cache = kmem_cache_create("quic_frame_buf",
					       QUIC_CONN_MAX_DGRAM, 0, 0, NULL);
	return quic_out_buf_cache ? 0 : -ENOMEM;
}

/**
 * quic_output_exit() - destroy it; every socket is gone
 */
void quic_output_exit(void)
{
	kmem_cache_destroy(quic_out_buf_cache);
}

/* The frame buffers, kept while in use: a flush runs per datagram
 * received, mostly to send nothing or an ACK. 1-RTT data is planned
 * straight into GSO skbs (quic_out_inplace()); the 1-RTT buffer, of
 * QUIC_CONN_MAX_DGRAM bytes whatever the datagram size, takes the rest:
 * ACK and control frames, data coalesced after a Handshake packet, data
 * when no batch skb could be had. The Initial and Handshake ones go with
 * those spaces.
 */
static int quic_out_buffers(struct sock *sk, gfp_t gfp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	bool long_done = c->space.at[QUIC_CRYPTO_INITIAL]->discarded &&
			 c->space.at[QUIC_CRYPTO_HANDSHAKE]->discarded;

	if (long_done) {
		kfree(c->out.long_buf);
		c->out.long_buf = NULL;
	} else if (!c->out.long_buf) {
		c->out.long_buf = kmalloc(2 * QUIC_CONN_MAX_DGRAM, gfp);
		if (!c->out.long_buf)
			return -ENOMEM;
	}
	if (!c->out.buf)
		c->out.buf = kmem_cache_alloc(quic_out_buf_cache, gfp);
	return c->out.buf ? 0 : -ENOMEM;
}

/* A record to plan a packet of space @i into: the one the last flush
 * left unused, or a new one. A flush that sends nothing, the most common
 * (one runs per datagram received), then allocates nothing.
 */
static struct quic_out_pkt *quic_out_rec_get(struct quic_conn *c, int i,
					     gfp_t gfp)
{
	struct quic_out_pkt *rec = c->out.spare[i];

	if (!rec)
		return kzalloc(sizeof(*rec), gfp);
	c->out.spare[i] = NULL;
	return rec;
}

/* Keep a record the flush did not use (reset: its frames queued again)
 * for the next one, unless its space is gone or one is kept already.
 */
static void quic_out_rec_put(struct sock *sk, struct quic_out_pkt *rec,
			     int i)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	quic_out_rec_reset(sk, rec, i);
	if (c->space.at[i]->discarded || c->out.spare[i]) {
		kfree(rec);
		return;
	}
	c->out.spare[i] = rec;
}

/* PATH_RESPONSE and PATH_CHALLENGE (path.c) go in a 1-RTT packet of a
 * datagram of their own to the address concerned, padded to 1200 bytes
 * as far as that address's anti-amplification budget allows (RFC 9000
 * 8.2.1, 8.2.2). The response goes to where the challenge came from,
 * which need not be the peer's address in use; the challenge to the
 * address being validated, which is. Either waits while no packet with
 * the frame and a header-protection sample fits the budget.
 */
static void quic_out_path_one(struct sock *sk, bool response, gfp_t gfp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_udp_sock *us = quic_sk(sk)->udp;
	const union quic_addr *to = &c->paths.peer;
	const union quic_addr *from = &c->paths.local;
	struct quic_path *p = c->paths.path;
	u32 len = 0, size, hl, budget;
	struct quic_out_pkt *rec;
	struct quic_frame f = {};
	struct sk_buff *skb;
	int n;

	if (response && memcmp(&p->resp_addr, &c->paths.peer, sizeof(*to))) {
		to = &p->resp_addr;
		budget = p->resp_budget;
	} else {
		budget = quic_path_amp_room(sk);
	}
	/* Our own move probes the peer from the new local address; a
	 * client's move to the server's preferred address probes that,
	 * from the local address prepared for it if it is of the other
	 * family; a challenge to our preferred address is answered from
	 * there.
	 */
	if (!response && p->migrating) {
		us = p->new_us;
		from = &p->new_local;
	} else if (!response && p->preferring) {
		to = &p->new_peer;
		if (p->pref_us) {
			us = p->pref_us;
			from = &p->pref_local;
		}
	} else if (response && p->resp_pref && p->pref_us) {
		us = p->pref_us;
		from = &p->pref_local;
	}
	size = min_t(u32, budget, QUIC_CONN_MAX_DGRAM);
	hl = quic_out_hdr_len(sk, QUIC_CRYPTO_APP, 0);
	if (size < hl + 2 * (1 + QUIC_FRAME_PATH_DATA_LEN) +
		   QUIC_PACKET_TAG_LEN)
		return;
	f.type = response ? QUIC_FRAME_PATH_RESPONSE :
			    QUIC_FRAME_PATH_CHALLENGE;
	f.path_data = response ? p->response : p->challenge;
	n = quic_frame_encode(c->out.buf, QUIC_CONN_MAX_DGRAM, &f);
	if (n <= 0)
		return;
	len = n;
	memset(c->out.buf + len, 0, size - hl - QUIC_PACKET_TAG_LEN - len);
	len = size - hl - QUIC_PACKET_TAG_LEN;
	rec = quic_out_rec_get(c, QUIC_CRYPTO_APP, gfp);
	if (!rec)
		return;
	quic_out_rec_reset(sk, rec, QUIC_CRYPTO_APP);
	if (!response &&
	    !quic_sendq_note(rec, QUIC_OUT_PATH_CHALLENGE, 0, p->tries + 1)) {
		quic_out_rec_put(sk, rec, QUIC_CRYPTO_APP);
		return;
	}
	skb = quic_udp_alloc_skb(size, gfp);
	if (!skb) {
		quic_out_rec_put(sk, rec, QUIC_CRYPTO_APP);
		return;
	}
	n = quic_out_seal(sk, QUIC_CRYPTO_APP, skb_tail_pointer(skb),
			  skb_tailroom(skb), c->out.buf, len, rec, true, NULL,
			  ktime_get_ns());
	if (n < 0) {
		kfree_skb(skb);
		quic_out_rec_put(sk, rec, QUIC_CRYPTO_APP);
		return;
	}
	skb_put(skb, n);
	if (response) {
		p->response_pending = 0;
	} else {
		p->challenge_pending = 0;
		p->tries++;
	}
	if (to == &c->paths.peer)
		quic_path_amp_sent(sk, skb->len);
	quic_udp_xmit(us, skb, from, to, 0,
		      to == &c->paths.peer && from == &c->paths.local ? &c->out.dst_cache :
							   NULL);
}

static void quic_out_path(struct sock *sk, gfp_t gfp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_path *p = c->paths.path;

	if (likely(!p) || sk->sk_state != TCP_ESTABLISHED)
		return;
	if (p->response_pending)
		quic_out_path_one(sk, true, gfp);
	if (p->challenge_pending)
		quic_out_path_one(sk, false, gfp);
}

/**
 * quic_output_flush() - send whatever is due
 * @sk: the socket, locked
 * @gfp: allocation flags of the context
 */
void quic_output_flush(struct sock *sk, gfp_t gfp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_out_plan pl = {};
	int i, n = 0;

	lockdep_assert(lockdep_sock_is_held(sk));
	if (sk->sk_state == TCP_CLOSE || !quic_sk(sk)->udp)
		return;
	if (quic_out_buffers(sk, gfp))
		return;
	pl.payload[QUIC_CRYPTO_INITIAL] = c->out.long_buf;
	pl.payload[QUIC_CRYPTO_HANDSHAKE] = c->out.long_buf ?
		c->out.long_buf + QUIC_CONN_MAX_DGRAM : NULL;
	pl.payload[QUIC_CRYPTO_APP] = c->out.buf;
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		if (c->space.at[i]->discarded)
			continue;
		pl.rec[i] = quic_out_rec_get(c, i, gfp);
		if (!pl.rec[i])
			goto out;
	}
	quic_out_pmtu_probe(sk, gfp);
	quic_out_path(sk, gfp);
	for (n = 0; n < QUIC_OUT_MAX_DGRAMS; n++) {
		if (quic_out_dgram(sk, &pl, gfp) <= 0)
			break;
		for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
			if (pl.rec[i] || c->space.at[i]->discarded)
				continue;
			pl.rec[i] = quic_out_rec_get(c, i, gfp);
			if (!pl.rec[i])
				goto out;
		}
	}
out:
	quic_out_gso_send(sk, &pl);
	if (!quic_outq_pending(&c->space.at[QUIC_CRYPTO_APP]->out) &&
	    !quic_dgram_unsent(sk))
		quic_gso_idle(sk);
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		if (pl.rec[i])
			quic_out_rec_put(sk, pl.rec[i], i);
	}
	quic_out_pace_arm(sk, pl.paced || n == QUIC_OUT_MAX_DGRAMS);
	quic_loss_timer_arm(sk);
}

/**
 * quic_output_pace_timeout() - the pacer lets data out again (timer.c)
 * @sk: the socket, locked, not running a user's call
 */
void quic_output_pace_timeout(struct sock *sk)
{
	quic_output_flush(sk, GFP_ATOMIC);
}

/* Send a CONNECTION_CLOSE of @f once, at the highest level with a send
 * key; a copy is kept for the closing state (conn.c).
 */
static void quic_out_close(struct sock *sk, struct quic_frame *f, gfp_t gfp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u8 payload[32 + QUIC_CLOSE_PHRASE_BUFFER_SIZE];
	struct sk_buff *skb;
	int i, level = -1;
	int n;

	if (sk->sk_state == TCP_CLOSE || !quic_sk(sk)->udp)
		return;
	for (i = ARRAY_SIZE(quic_out_levels) - 1; i >= 0; i--) {
		u8 l = quic_out_levels[i];

		if (!c->space.at[l]->discarded &&
		    quic_crypto_ready(&c->space.at[l]->tx) &&
		    (l != QUIC_CRYPTO_APP || sk->sk_state == TCP_ESTABLISHED)) {
			level = l;
			break;
		}
	}
	if (level < 0)
		return;
	/* RFC 9000 10.2.3: no application close outside 1-RTT. */
	if (f->type == QUIC_FRAME_CONNECTION_CLOSE_APP &&
	    (level != QUIC_CRYPTO_APP || sk->sk_state != TCP_ESTABLISHED)) {
		f->type = QUIC_FRAME_CONNECTION_CLOSE;
		f->close.err = QUIC_TRANSPORT_ERROR_APPLICATION;
		f->close.len = 0;
	}
	n = quic_frame_encode(payload, sizeof(payload), f);
	if (n < 0)
		return;
	if (level == QUIC_CRYPTO_INITIAL) {
		/* Datagrams with Initials are padded too. */
		memset(payload + n, 0, sizeof(payload) - n);
		n = sizeof(payload);
	}
	skb = quic_udp_alloc_skb(QUIC_CONN_MAX_DGRAM, gfp);
	if (!skb)
		return;
	if (level == QUIC_CRYPTO_INITIAL) {
		u8 *big = kzalloc(QUIC_CONN_MAX_DGRAM, gfp);
		/* The header grows with a client's token. */
		u32 len = QUIC_CONN_MAX_DGRAM - QUIC_PACKET_TAG_LEN -
			  quic_out_hdr_len(sk, level, QUIC_CONN_MAX_DGRAM);

		if (!big) {
			kfree_skb(skb);
			return;
		}
		memcpy(big, payload, n);
		n = quic_out_seal(sk, level, skb->data, skb_tailroom(skb), big,
				  len, NULL, false, NULL, 0);
		kfree(big);
	} else {
		n = quic_out_seal(sk, level, skb->data, skb_tailroom(skb),
				  payload, n, NULL, false, NULL, 0);
	}
	if (n < 0) {
		kfree_skb(skb);
		return;
	}
	skb_put(skb, n);
	quic_close_sent(sk, skb);
	/* A close counts against the anti-amplification limit too. */
	if (quic_path_amp_room(sk) < skb->len) {
		QUIC_INC_STATS(sock_net(sk), QUIC_MIB_AMPLIFICATION_BLOCKED);
		kfree_skb(skb);
		return;
	}
	quic_path_amp_sent(sk, skb->len);
	quic_udp_xmit(quic_sk(sk)->udp, skb, &c->paths.local, &c->paths.peer, 0,
		      &c->out.dst_cache);
}

/**
 * quic_output_close() - send a transport CONNECTION_CLOSE (0x1c)
 * @sk: the socket, locked
 * @err: the transport error code
 * @gfp: allocation flags of the context
 *
 * Sent once, at the highest level with a send key; never retransmitted.
 */
void quic_output_close(struct sock *sk, u32 err, gfp_t gfp)
{
	struct quic_frame f = {};

	f.type = QUIC_FRAME_CONNECTION_CLOSE;
	f.close.err = err;
	quic_out_close(sk, &f, gfp);
}

/**
 * quic_output_close_app() - send the application's CONNECTION_CLOSE
 * @sk: the socket, locked
 * @gfp: allocation flags of the context
 *
 * Established: 0x1d with the code and reason phrase of
 * QUIC_SOCKOPT_CONNECTION_CLOSE; before: 0x1c with APPLICATION_ERROR.
 */
void quic_output_close_app(struct sock *sk, gfp_t gfp)
{
	const struct quic_connection_close *cc = &quic_sk(sk)->opts.close;
	struct quic_frame f = {};

	f.type = QUIC_FRAME_CONNECTION_CLOSE_APP;
	f.close.err = cc->errcode;
	f.close.reason = cc->phrase;
	f.close.len = strnlen((const char *)cc->phrase,
			      QUIC_CLOSE_PHRASE_BUFFER_SIZE - 1);
	quic_out_close(sk, &f, gfp);
}

/**
 * quic_output_discard() - a space is discarded: its sent-packet records
 *	and its queued data go
 * @sk: the socket, locked
 * @level: the space
 */
void quic_output_discard(struct sock *sk, u8 level)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = c->space.at[level];
	struct quic_outq_chunk *ch, *tmp;

	quic_sent_remove_all(&s->sent, quic_sendq_pkt_free, sk);
	list_for_each_entry_safe(ch, tmp, &s->out.chunks, list) {
		quic_sendq_chunk_gone(sk, ch, false);
		quic_outq_drop(&s->out, ch);
	}
	kfree(c->out.spare[level]);
	c->out.spare[level] = NULL;
}

/**
 * quic_output_free() - free the frame buffers and the spare records
 * @sk: the socket, locked, its spaces already discarded
 */
void quic_output_free(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	int i;

	if (c->out.buf)		/* freed with the connection */
		kmem_cache_free(quic_out_buf_cache, c->out.buf);
	c->out.buf = NULL;
	kfree(c->out.long_buf);
	c->out.long_buf = NULL;
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		kfree(c->out.spare[i]);
		c->out.spare[i] = NULL;
	}
}
