/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC packet headers (RFC 9000 section 17, RFC 8999, RFC 9369 section 3.2).
 *
 * A pure codec over linear buffers: no socket or skb state. Parsing happens
 * before header protection is removed, so it reads only what is in clear:
 * the form and fixed bits, the version, connection IDs, the token and the
 * Length field. The packet number length, the reserved bits and the key
 * phase are protected; read them with the helpers below once the header
 * protection mask has been applied to the first byte.
 */
#ifndef _NET_QUIC_PACKET_H
#define _NET_QUIC_PACKET_H

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/quic.h>
#include <linux/types.h>
#include "cid.h"

/* Size of the AEAD tag that follows every protected payload. */
#define QUIC_PACKET_TAG_LEN		16
/* Size of the Retry Integrity Tag (RFC 9001, section 5.8). */
#define QUIC_RETRY_TAG_LEN		16
/* Size of a stateless reset token (RFC 9000, section 10.3). */
#define QUIC_RESET_TOKEN_LEN		16
/* Smallest stateless reset: 5 bytes that look like a header, then the token. */
#define QUIC_RESET_MIN_LEN		21
/* Smallest UDP payload carrying a client Initial (RFC 9000, section 14.1). */
#define QUIC_INITIAL_MIN_DGRAM		1200
/* Connection IDs of versions we do not know can be this long (RFC 8999). */
#define QUIC_CID_MAX_LEN_ANY		255
/* largest_pn or largest_acked when there is none yet. */
#define QUIC_PN_NONE			U64_MAX
/* Largest packet number (RFC 9000, section 12.3). */
#define QUIC_PN_MAX			((1ULL << 62) - 1)

/* Flags for quic_packet_parse_header(). */
/* The peer sent grease_quic_bit (RFC 9287): accept a fixed bit of 0. */
#define QUIC_PACKET_PARSE_GREASE_BIT	BIT(0)

enum quic_packet_type {
	QUIC_PACKET_INITIAL,
	QUIC_PACKET_0RTT,
	QUIC_PACKET_HANDSHAKE,
	QUIC_PACKET_RETRY,
	QUIC_PACKET_1RTT,		/* short header */
	QUIC_PACKET_VERSION_NEGOTIATION,
	QUIC_PACKET_UNSUPPORTED,	/* long header, version we lack */
};

/**
 * struct quic_pkt_hdr - a QUIC packet header, parsed or to build
 * @dcid: Destination Connection ID; parse: points into the buffer
 * @scid: Source Connection ID (long headers); parse: points into the buffer
 * @token: Initial: the Token field; Retry: the Retry Token
 * @versions: Version Negotiation: the Supported Version list (big endian)
 * @version: the Version field (long headers)
 * @token_len: bytes at @token
 * @num_versions: entries at @versions
 * @length: the Length field: packet number, payload and AEAD tag
 * @pn_offset: offset of the packet number from the start of the packet
 * @pkt_len: bytes of this packet in the datagram; the next coalesced
 *	packet starts there (pn_offset + length for packets with a Length
 *	field, the rest of the datagram otherwise)
 * @tag_offset: Retry: offset of the Retry Integrity Tag (the tag is
 *	computed over the bytes before it)
 * @dcid_len: bytes at @dcid (up to 255 for unsupported versions)
 * @scid_len: bytes at @scid (up to 255 for unsupported versions)
 * @type: an enum quic_packet_type
 * @first: parse: the first byte, still under header protection
 * @long_header: the header form bit
 * @fixed_bit_clear: parse: the fixed bit was 0 (greased); build: clear it
 *	(only when the peer sent grease_quic_bit)
 * @spin: build, short header: the latency spin bit
 * @key_phase: build, short header: the key phase bit
 */
struct quic_pkt_hdr {
	const u8 *dcid;
	const u8 *scid;
	const u8 *token;
	const u8 *versions;
	u32 version;
	u32 token_len;
	u32 num_versions;
	u32 length;
	u32 pn_offset;
	u32 pkt_len;
	u32 tag_offset;
	u8 dcid_len;
	u8 scid_len;
	u8 type;
	u8 first;
	bool long_header;
	bool fixed_bit_clear;
	bool spin;
	bool key_phase;
};

/**
 * struct quic_packet_iter - walk the coalesced packets of a datagram
 * @buf: the datagram
 * @len: its length
 * @pos: offset of the packet last returned by quic_packet_next()
 * @next: offset where the next packet starts
 * @flags: QUIC_PACKET_PARSE_* flags
 * @short_dcid_len: length of our connection IDs, for short headers
 * @first_dcid_len: length of the first packet's DCID
 * @first_dcid: the first packet's DCID (points into @buf)
 *
 * Set it up with quic_packet_iter_init(); do not touch the fields.
 */
struct quic_packet_iter {
	const u8 *buf;
	u32 len;
	u32 pos;
	u32 next;
	u32 flags;
	u8 short_dcid_len;
	u8 first_dcid_len;
	const u8 *first_dcid;
};

/* Versions (RFC 9000 section 15, RFC 9369). */

/**
 * quic_version_supported - whether we speak a version
 * @v: a Version field
 *
 * Return: true for QUIC v1 and v2.
 */
static inline bool quic_version_supported(u32 v)
{
	return v == QUIC_VERSION_V1 || v == QUIC_VERSION_V2;
}

/**
 * quic_version_is_negotiation - whether a Version field marks Version
 * Negotiation
 * @v: a Version field
 *
 * Return: true for 0.
 */
static inline bool quic_version_is_negotiation(u32 v)
{
	return v == 0;
}

/**
 * quic_version_is_reserved - whether a version is reserved for greasing
 * @v: a Version field
 *
 * Versions of the form 0x?a?a?a?a are reserved to exercise version
 * negotiation (RFC 9000, section 15).
 *
 * Return: true if @v has that form.
 */
static inline bool quic_version_is_reserved(u32 v)
{
	return (v & 0x0f0f0f0f) == 0x0a0a0a0a;
}

/**
 * quic_version_grease - make a reserved version from random bits
 * @rnd: 16 random bits, one nibble per byte of the version
 *
 * Return: a version of the form 0x?a?a?a?a.
 */
static inline u32 quic_version_grease(u16 rnd)
{
	u32 r = rnd;

	return ((r & 0xf000) << 16) | ((r & 0x0f00) << 12) |
	       ((r & 0x00f0) << 8) | ((r & 0x000f) << 4) | 0x0a0a0a0a;
}

/* Bits of the first byte that header protection hides. */

/**
 * quic_packet_pn_len - packet number length from an unprotected first byte
 * @first: the first byte after removing header protection
 *
 * Return: 1 to 4.
 */
static inline u32 quic_packet_pn_len(u8 first)
{
	return (first & 0x03) + 1;
}

/**
 * quic_packet_reserved_bits - the reserved bits of an unprotected first byte
 * @first: the first byte after removing header protection
 *
 * A peer that sets them after removing protection commits a
 * PROTOCOL_VIOLATION (RFC 9000, section 17.2 and 17.3.1).
 *
 * Return: the reserved bits; 0 in a valid packet.
 */
static inline u8 quic_packet_reserved_bits(u8 first)
{
	return first & ((first & 0x80) ? 0x0c : 0x18);
}

/**
 * quic_packet_key_phase - the key phase bit of an unprotected short header
 * @first: the first byte after removing header protection
 *
 * Return: the Key Phase bit.
 */
static inline bool quic_packet_key_phase(u8 first)
{
	return first & 0x04;
}

/**
 * quic_packet_initial_size_ok - whether a datagram may carry a client Initial
 * @dgram_len: the UDP payload length
 *
 * Servers drop client Initials in smaller datagrams, and send Version
 * Negotiation only in response to datagrams this large (RFC 9000, sections
 * 5.2.2 and 14.1).
 *
 * Return: true if @dgram_len is at least 1200 bytes.
 */
static inline bool quic_packet_initial_size_ok(u32 dgram_len)
{
	return dgram_len >= QUIC_INITIAL_MIN_DGRAM;
}

int quic_packet_parse_header(const u8 *buf, u32 len, u8 short_dcid_len,
			     u32 flags, struct quic_pkt_hdr *h);
void quic_packet_iter_init(struct quic_packet_iter *it, const u8 *buf,
			   u32 len, u8 short_dcid_len, u32 flags);
int quic_packet_next(struct quic_packet_iter *it, struct quic_pkt_hdr *h);

u64 quic_pn_decode(u64 largest_pn, u64 truncated_pn, u32 pn_nbits);
u32 quic_pn_encode_len(u64 full_pn, u64 largest_acked);

int quic_packet_build_long(u8 *buf, u32 room, const struct quic_pkt_hdr *h,
			   u32 pn_len, u64 pn, u32 payload_len);
int quic_packet_build_short(u8 *buf, u32 room, const struct quic_pkt_hdr *h,
			    u32 pn_len, u64 pn);
int quic_packet_build_vn(u8 *buf, u32 room, const struct quic_pkt_hdr *rcvd,
			 const u32 *versions, u32 n, u32 rnd);
int quic_packet_build_retry(u8 *buf, u32 room, const struct quic_pkt_hdr *h,
			    u8 rnd);
int quic_packet_build_stateless_reset(u8 *buf, u32 len, const u8 *rnd,
				      const u8 *token);
bool quic_packet_is_stateless_reset_candidate(const u8 *buf, u32 len,
					      const u8 **token);

#endif /* _NET_QUIC_PACKET_H */
