/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC connection IDs (RFC 9000, section 5.1): up to 20 bytes in QUIC v1
 * and v2. Versions we do not know may carry up to 255 bytes (RFC 8999);
 * those are only ever echoed from the packet buffer, never stored here.
 */
#ifndef _NET_QUIC_CID_H
#define _NET_QUIC_CID_H

#include <linux/string.h>
#include <linux/types.h>

/* Longest connection ID in QUIC v1 and v2, in bytes. */
#define QUIC_CID_MAX_LEN	20

/**
 * struct quic_cid - a connection ID
 * @len: length in bytes, 0 to QUIC_CID_MAX_LEN
 * @data: the bytes; those past @len are unspecified
 */
struct quic_cid {
	u8 len;
	u8 data[QUIC_CID_MAX_LEN];
};

/**
 * quic_cid_set - fill a connection ID from bytes
 * @cid: the connection ID to fill
 * @data: its bytes
 * @len: its length
 *
 * Return: true on success, false (and @cid untouched) if @len exceeds
 * QUIC_CID_MAX_LEN.
 */
static inline bool quic_cid_set(struct quic_cid *cid, const u8 *data, u32 len)
{
	if (len > QUIC_CID_MAX_LEN)
		return false;
	cid->len = len;
	memcpy(cid->data, data, len);
	return true;
}

/**
 * quic_cid_eq - compare two connection IDs
 * @a: one connection ID
 * @b: the other
 *
 * Return: true if both have the same length and bytes.
 */
static inline bool quic_cid_eq(const struct quic_cid *a,
			       const struct quic_cid *b)
{
	return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/**
 * quic_cid_eq_bytes - compare a connection ID with bytes from a packet
 * @cid: the connection ID
 * @data: the bytes
 * @len: their length
 *
 * Return: true if @cid is exactly the @len bytes at @data.
 */
static inline bool quic_cid_eq_bytes(const struct quic_cid *cid,
				     const u8 *data, u32 len)
{
	return cid->len == len && !memcmp(cid->data, data, len);
}

#endif /* _NET_QUIC_CID_H */
