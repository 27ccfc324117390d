// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC packet headers: parse, build, coalesced packets, packet numbers,
 * Version Negotiation, Retry and stateless resets (RFC 9000 section 17,
 * RFC 8999, RFC 9369 section 3.2).
 *
 * Errors returned by the parser, each for one reason, so that the caller
 * can count drops by cause:
 *
 *	-ENODATA	 the buffer ends inside the header
 *	-EMSGSIZE	 the Length field runs past the end of the datagram
 *	-EINVAL		 a connection ID longer than 20 bytes in a v1 or v2
 *			 long header (or a short_dcid_len above 20)
 *	-EPROTO		 the fixed bit is 0 and greasing it was not negotiated
 *	-EBADMSG	 a malformed field: a Length of 0, a Retry without a
 *			 token, a Version Negotiation list not made of 4-byte
 *			 versions
 *	-EPROTONOSUPPORT a long header of a version we do not speak; the
 *			 header holds the version and both connection IDs
 *			 (up to 255 bytes each) to answer with Version
 *			 Negotiation
 *	-EXDEV		 (quic_packet_next() only) a coalesced packet whose
 *			 DCID differs from the first packet's (RFC 9000,
 *			 section 12.2)
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "export.h"
#include "packet.h"
#include "varint.h"

/* Long header packet types on the wire: v1 numbers Initial, 0-RTT,
 * Handshake and Retry 0 to 3 (RFC 9000, section 17.2); v2 numbers them
 * 1, 2, 3, 0 (RFC 9369, section 3.2). The enum follows v1.
 */
static u8 quic_packet_type_from_wire(u32 version, u8 first)
{
	u8 bits = (first >> 4) & 0x03;

	if (version == QUIC_VERSION_V2)
		bits = (bits - 1) & 0x03;
	return bits;
}

static u8 quic_packet_type_to_wire(u32 version, u8 type)
{
	if (version == QUIC_VERSION_V2)
		type = (type + 1) & 0x03;
	return type << 4;
}

static int quic_packet_parse_short(const u8 *buf, u32 len, u8 short_dcid_len,
				   u32 flags, struct quic_pkt_hdr *h)
{
	if (short_dcid_len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	if (h->fixed_bit_clear && !(flags & QUIC_PACKET_PARSE_GREASE_BIT))
		return -EPROTO;
	/* The DCID and at least one byte of packet number. */
	if (len < 1U + short_dcid_len + 1)
		return -ENODATA;
	h->type = QUIC_PACKET_1RTT;
	h->dcid = buf + 1;
	h->dcid_len = short_dcid_len;
	h->pn_offset = 1 + short_dcid_len;
	h->pkt_len = len;
	return 0;
}

/* Read a connection ID: its length byte, then its bytes. */
static int quic_packet_get_cid(const u8 **p, u32 *left, u32 max,
			       const u8 **cid, u8 *cid_len)
{
	u32 n;

	if (!*left)
		return -ENODATA;
	n = **p;
	if (n > max)
		return -EINVAL;
	if (*left - 1 < n)
		return -ENODATA;
	*cid = *p + 1;
	*cid_len = n;
	*p += 1 + n;
	*left -= 1 + n;
	return 0;
}

static int quic_packet_parse_long(const u8 *buf, u32 len, u32 flags,
				  struct quic_pkt_hdr *h)
{
	const u8 *p = buf + 1;
	u32 left = len - 1, max;
	u64 v;
	int err;

	if (!quic_uint_get(&p, &left, &v, 4))
		return -ENODATA;
	h->version = v;
	/* RFC 8999 lets versions we do not know carry 255-byte CIDs. */
	max = quic_version_supported(h->version) ? QUIC_CID_MAX_LEN :
						   QUIC_CID_MAX_LEN_ANY;
	err = quic_packet_get_cid(&p, &left, max, &h->dcid, &h->dcid_len);
	if (err)
		return err;
	err = quic_packet_get_cid(&p, &left, max, &h->scid, &h->scid_len);
	if (err)
		return err;

	if (quic_version_is_negotiation(h->version)) {
		if (left % 4)
			return -EBADMSG;
		h->type = QUIC_PACKET_VERSION_NEGOTIATION;
		h->versions = p;
		h->num_versions = left / 4;
		h->pkt_len = len;
		return 0;
	}
	if (!quic_version_supported(h->version)) {
		h->type = QUIC_PACKET_UNSUPPORTED;
		h->pkt_len = len;
		return -EPROTONOSUPPORT;
	}
	if (h->fixed_bit_clear && !(flags & QUIC_PACKET_PARSE_GREASE_BIT))
		return -EPROTO;

	h->type = quic_packet_type_from_wire(h->version, h->first);
	if (h->type == QUIC_PACKET_RETRY) {
		if (left < QUIC_RETRY_TAG_LEN)
			return -ENODATA;
		/* A client drops a Retry with an empty token (17.2.5.2). */
		if (left == QUIC_RETRY_TAG_LEN)
			return -EBADMSG;
		h->token = p;
		h->token_len = left - QUIC_RETRY_TAG_LEN;
		h->tag_offset = len - QUIC_RETRY_TAG_LEN;
		h->pkt_len = len;
		return 0;
	}
	if (h->type == QUIC_PACKET_INITIAL) {
		if (!quic_varint_get(&p, &left, &v))
			return -ENODATA;
		if (v > left)
			return -ENODATA;
		h->token = p;
		h->token_len = v;
		p += v;
		left -= v;
	}
	if (!quic_varint_get(&p, &left, &v))
		return -ENODATA;
	/* At least one byte of packet number. */
	if (!v)
		return -EBADMSG;
	if (v > left)
		return -EMSGSIZE;
	h->length = v;
	h->pn_offset = p - buf;
	h->pkt_len = h->pn_offset + h->length;
	return 0;
}

/**
 * quic_packet_parse_header() - parse the clear part of a packet header
 * @buf: the packet, and whatever follows it in the datagram
 * @len: bytes at @buf
 * @short_dcid_len: length of our connection IDs, to read a short header
 * @flags: QUIC_PACKET_PARSE_GREASE_BIT if the peer may clear the fixed bit
 * @h: filled with the header; connection IDs and tokens point into @buf
 *
 * Works before header protection is removed. The fixed bit is checked
 * only where a version defines it: v1 and v2 long headers and short
 * headers, not Version Negotiation nor unknown versions. The packet number
 * offset is always inside the packet (at least one byte of packet number);
 * whether the packet is long enough for the header protection sample is
 * left to the packet protection code.
 *
 * Return: 0, or a negative errno listed at the top of this file. On
 * -EPROTONOSUPPORT, @h->version, the connection IDs and @h->pkt_len (the
 * rest of the datagram) are valid.
 */
int quic_packet_parse_header(const u8 *buf, u32 len, u8 short_dcid_len,
			     u32 flags, struct quic_pkt_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (!len)
		return -ENODATA;
	h->first = buf[0];
	h->long_header = buf[0] & 0x80;
	h->fixed_bit_clear = !(buf[0] & 0x40);
	if (!h->long_header)
		return quic_packet_parse_short(buf, len, short_dcid_len, flags,
					       h);
	return quic_packet_parse_long(buf, len, flags, h);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_packet_parse_header);

/**
 * quic_packet_iter_init() - start walking the packets of a datagram
 * @it: the iterator
 * @buf: the datagram
 * @len: its length
 * @short_dcid_len: length of our connection IDs, for short headers
 * @flags: QUIC_PACKET_PARSE_* flags, as for quic_packet_parse_header()
 */
void quic_packet_iter_init(struct quic_packet_iter *it, const u8 *buf,
			   u32 len, u8 short_dcid_len, u32 flags)
{
	memset(it, 0, sizeof(*it));
	it->buf = buf;
	it->len = len;
	it->short_dcid_len = short_dcid_len;
	it->flags = flags;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_packet_iter_init);

/**
 * quic_packet_next() - parse the next coalesced packet of a datagram
 * @it: the iterator
 * @h: filled with the packet's header; offsets are from the packet start,
 *	which is at @it->buf + @it->pos
 *
 * Packets after the first must carry the first packet's DCID (RFC 9000,
 * section 12.2). An error ends the walk: the packets returned before it
 * stay valid, the rest of the datagram is to be dropped. An unsupported
 * version after the first packet calls for no Version Negotiation.
 *
 * Return: 1 with a packet in @h, 0 at the end of the datagram, or a
 * negative errno from quic_packet_parse_header() or -EXDEV.
 */
int quic_packet_next(struct quic_packet_iter *it, struct quic_pkt_hdr *h)
{
	int err;

	if (it->next >= it->len)
		return 0;
	err = quic_packet_parse_header(it->buf + it->next, it->len - it->next,
				       it->short_dcid_len, it->flags, h);
	if (!err && it->next &&
	    (h->dcid_len != it->first_dcid_len ||
	     memcmp(h->dcid, it->first_dcid, h->dcid_len)))
		err = -EXDEV;
	if (err) {
		it->pos = it->next;
		it->next = it->len;
		return err;
	}
	if (!it->next) {
		it->first_dcid = h->dcid;
		it->first_dcid_len = h->dcid_len;
	}
	it->pos = it->next;
	it->next += h->pkt_len;
	return 1;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_packet_next);

/**
 * quic_pn_decode() - recover a full packet number (RFC 9000, appendix A.3)
 * @largest_pn: largest packet number received in the space so far, or
 *	QUIC_PN_NONE
 * @truncated_pn: the packet number field, after header protection removal
 * @pn_nbits: its width in bits (8, 16, 24 or 32)
 *
 * Return: the packet number closest to @largest_pn + 1 whose low
 * @pn_nbits bits are @truncated_pn, never above 2^62 - 1.
 */
u64 quic_pn_decode(u64 largest_pn, u64 truncated_pn, u32 pn_nbits)
{
	u64 expected = largest_pn + 1, win, hwin, mask, cand;

	if (!pn_nbits || pn_nbits > 32)
		return truncated_pn;
	win = 1ULL << pn_nbits;
	hwin = win / 2;
	mask = win - 1;
	cand = (expected & ~mask) | (truncated_pn & mask);
	/* expected - hwin of the RFC, rearranged to avoid an underflow */
	if (cand + hwin <= expected && cand < (1ULL << 62) - win)
		return cand + win;
	if (cand > expected + hwin && cand >= win)
		return cand - win;
	return cand;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_pn_decode);

/**
 * quic_pn_encode_len() - bytes needed to send a packet number
 * @full_pn: the packet number to send
 * @largest_acked: the largest packet number the peer acknowledged in the
 *	space, or QUIC_PN_NONE
 *
 * RFC 9000, appendix A.2: enough bits to represent more than twice the
 * number of packets in flight, including this one.
 *
 * Return: 1 to 4.
 */
u32 quic_pn_encode_len(u64 full_pn, u64 largest_acked)
{
	/* With QUIC_PN_NONE this is full_pn + 1, as the RFC asks. */
	u64 unacked = full_pn - largest_acked;

	if (unacked <= 1ULL << 7)
		return 1;
	if (unacked <= 1ULL << 15)
		return 2;
	if (unacked <= 1ULL << 23)
		return 3;
	return 4;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_pn_encode_len);

/* Copy bytes that may be absent: a zero-length CID or token may be NULL. */
static u8 *quic_packet_put_bytes(u8 *p, const u8 *src, u32 len)
{
	if (len)
		memcpy(p, src, len);
	return p + len;
}

static u8 *quic_packet_put_cid(u8 *p, const u8 *cid, u8 len)
{
	*p++ = len;
	return quic_packet_put_bytes(p, cid, len);
}

/**
 * quic_packet_build_long() - write an Initial, 0-RTT or Handshake header
 * @buf: where the packet starts
 * @room: bytes available at @buf for the whole packet
 * @h: @type, @version (v1 or v2), @dcid, @scid, Initial: @token, and
 *	@fixed_bit_clear
 * @pn_len: packet number length, 1 to 4
 * @pn: the packet number; its low @pn_len bytes are written
 * @payload_len: bytes of frames that will follow the header
 *
 * The Length field covers the packet number, the payload and the 16-byte
 * AEAD tag, all of which must fit in @room. The reserved bits are 0.
 *
 * Return: the header length, packet number included (where the payload
 * starts), -EINVAL for an impossible header, or -ENOBUFS.
 */
int quic_packet_build_long(u8 *buf, u32 room, const struct quic_pkt_hdr *h,
			   u32 pn_len, u64 pn, u32 payload_len)
{
	u64 length = (u64)pn_len + payload_len + QUIC_PACKET_TAG_LEN;
	u64 hlen;
	u8 *p = buf;

	if (!quic_version_supported(h->version) ||
	    h->type > QUIC_PACKET_HANDSHAKE || h->type == QUIC_PACKET_RETRY ||
	    pn_len < 1 || pn_len > 4 ||
	    h->dcid_len > QUIC_CID_MAX_LEN || h->scid_len > QUIC_CID_MAX_LEN ||
	    (h->type != QUIC_PACKET_INITIAL && h->token_len))
		return -EINVAL;
	hlen = 1 + 4 + 1 + h->dcid_len + 1 + h->scid_len +
	       quic_varint_len(length) + pn_len;
	if (h->type == QUIC_PACKET_INITIAL)
		hlen += quic_varint_len(h->token_len) + h->token_len;
	if (hlen + length - pn_len > room)
		return -ENOBUFS;

	*p++ = 0x80 | (h->fixed_bit_clear ? 0 : 0x40) |
	       quic_packet_type_to_wire(h->version, h->type) | (pn_len - 1);
	p = quic_uint_put(p, h->version, 4);
	p = quic_packet_put_cid(p, h->dcid, h->dcid_len);
	p = quic_packet_put_cid(p, h->scid, h->scid_len);
	if (h->type == QUIC_PACKET_INITIAL) {
		p = quic_varint_put(p, h->token_len);
		p = quic_packet_put_bytes(p, h->token, h->token_len);
	}
	p = quic_varint_put(p, length);
	p = quic_uint_put(p, pn, pn_len);
	return p - buf;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_packet_build_long);

/**
 * quic_packet_build_short() - write a 1-RTT (short) header
 * @buf: where the packet starts
 * @room: bytes available at @buf
 * @h: @dcid, @spin, @key_phase and @fixed_bit_clear
 * @pn_len: packet number length, 1 to 4
 * @pn: the packet number; its low @pn_len bytes are written
 *
 * The reserved bits are 0.
 *
 * Return: the header length, packet number included, -EINVAL for an
 * impossible header, or -ENOBUFS.
 */
int quic_packet_build_short(u8 *buf, u32 room, const struct quic_pkt_hdr *h,
			    u32 pn_len, u64 pn)
{
	u32 hlen = 1 + h->dcid_len + pn_len;
	u8 *p = buf;

	if (pn_len < 1 || pn_len > 4 || h->dcid_len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	if (hlen > room)
		return -ENOBUFS;
	*p++ = (h->fixed_bit_clear ? 0 : 0x40) | (h->spin ? 0x20 : 0) |
	       (h->key_phase ? 0x04 : 0) | (pn_len - 1);
	p = quic_packet_put_bytes(p, h->dcid, h->dcid_len);
	p = quic_uint_put(p, pn, pn_len);
	return p - buf;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_packet_build_short);

/**
 * quic_packet_build_vn() - write a Version Negotiation packet
 * @buf: where the packet starts
 * @room: bytes available at @buf
 * @rcvd: the parsed header of the client's packet; its SCID becomes our
 *	DCID and its DCID our SCID (up to 255 bytes each)
 * @versions: the versions we support
 * @n: entries in @versions
 * @rnd: random bits: bits 0-5 fill the unused bits of the first byte,
 *	bits 8-23 choose the reserved version appended to the list
 *
 * The 0x40 bit of the first byte is set, as RFC 9000 section 17.2.1
 * recommends where QUIC is multiplexed with other protocols. A reserved
 * version (0x?a?a?a?a) ends the list so that clients keep ignoring
 * versions they do not know.
 *
 * Return: the packet length, or -ENOBUFS.
 */
int quic_packet_build_vn(u8 *buf, u32 room, const struct quic_pkt_hdr *rcvd,
			 const u32 *versions, u32 n, u32 rnd)
{
	u64 len = 1 + 4 + 1 + rcvd->scid_len + 1 + rcvd->dcid_len +
		  4 * ((u64)n + 1);
	u8 *p = buf;
	u32 i;

	if (len > room)
		return -ENOBUFS;
	*p++ = 0xc0 | (rnd & 0x3f);
	p = quic_uint_put(p, 0, 4);
	p = quic_packet_put_cid(p, rcvd->scid, rcvd->scid_len);
	p = quic_packet_put_cid(p, rcvd->dcid, rcvd->dcid_len);
	for (i = 0; i < n; i++)
		p = quic_uint_put(p, versions[i], 4);
	p = quic_uint_put(p, quic_version_grease(rnd >> 8), 4);
	return p - buf;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_packet_build_vn);

/**
 * quic_packet_build_retry() - write a Retry packet, without its tag
 * @buf: where the packet starts
 * @room: bytes available at @buf, the 16-byte tag included
 * @h: @version (v1 or v2), @dcid (the client's SCID), @scid (the new
 *	server connection ID) and @token (not empty)
 * @rnd: random bits for the 4 unused bits of the first byte
 *
 * The Retry Integrity Tag (RFC 9001, section 5.8) goes at the returned
 * offset; the packet protection code computes it.
 *
 * Return: the packet length without the tag, -EINVAL for an impossible
 * header, or -ENOBUFS.
 */
int quic_packet_build_retry(u8 *buf, u32 room, const struct quic_pkt_hdr *h,
			    u8 rnd)
{
	u64 len = 1 + 4 + 1 + h->dcid_len + 1 + h->scid_len +
		  (u64)h->token_len;
	u8 *p = buf;

	if (!quic_version_supported(h->version) || !h->token_len ||
	    h->dcid_len > QUIC_CID_MAX_LEN || h->scid_len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	if (len + QUIC_RETRY_TAG_LEN > room)
		return -ENOBUFS;
	*p++ = 0xc0 | quic_packet_type_to_wire(h->version, QUIC_PACKET_RETRY) |
	       (rnd & 0x0f);
	p = quic_uint_put(p, h->version, 4);
	p = quic_packet_put_cid(p, h->dcid, h->dcid_len);
	p = quic_packet_put_cid(p, h->scid, h->scid_len);
	memcpy(p, h->token, h->token_len);
	p += h->token_len;
	return p - buf;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_packet_build_retry);

/**
 * quic_packet_build_stateless_reset() - write a Stateless Reset
 * @buf: where the packet starts
 * @len: the length to send: at least QUIC_RESET_MIN_LEN, and smaller than
 *	the packet that triggered it (RFC 9000, section 10.3.3)
 * @rnd: @len - 16 unpredictable bytes (may be @buf itself)
 * @token: the 16-byte stateless reset token, written last
 *
 * The first two bits are 01 so that it looks like a short header.
 *
 * Return: @len, or -EINVAL if @len is below QUIC_RESET_MIN_LEN.
 */
int quic_packet_build_stateless_reset(u8 *buf, u32 len, const u8 *rnd,
				      const u8 *token)
{
	if (len < QUIC_RESET_MIN_LEN)
		return -EINVAL;
	memmove(buf, rnd, len - QUIC_RESET_TOKEN_LEN);
	buf[0] = (buf[0] & 0x3f) | 0x40;
	memcpy(buf + len - QUIC_RESET_TOKEN_LEN, token, QUIC_RESET_TOKEN_LEN);
	return len;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_packet_build_stateless_reset);

/**
 * quic_packet_is_stateless_reset_candidate() - whether a datagram may be a
 * Stateless Reset
 * @buf: the whole datagram
 * @len: its length
 * @token: set to its last 16 bytes, to compare (in constant time) with the
 *	tokens of the connection's active peer connection IDs
 *
 * Call it when the first packet of a datagram cannot be parsed, associated
 * with a connection or decrypted (RFC 9000, section 10.3.1). A reset is
 * at least 21 bytes and starts like a short header; its fixed bit may be
 * greased, so that bit is not checked.
 *
 * Return: true if the datagram could be a Stateless Reset.
 */
bool quic_packet_is_stateless_reset_candidate(const u8 *buf, u32 len,
					      const u8 **token)
{
	if (len < QUIC_RESET_MIN_LEN || (buf[0] & 0x80))
		return false;
	*token = buf + len - QUIC_RESET_TOKEN_LEN;
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_packet_is_stateless_reset_candidate);
