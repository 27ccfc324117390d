/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC variable-length integers (RFC 9000, section 16) and the
 * fixed-width big-endian fields of QUIC headers.
 *
 * Pure helpers over a byte cursor: no socket or skb state, so the codecs
 * built on them can also be compiled in user space for fuzzing. Every
 * reader checks the bytes left and fails without moving the cursor.
 */
#ifndef _NET_QUIC_VARINT_H
#define _NET_QUIC_VARINT_H

#include <linux/types.h>

/* Largest value a varint can carry: 2^62 - 1. */
#define QUIC_VARINT_MAX		((1ULL << 62) - 1)
/* Longest encoding of a varint, in bytes. */
#define QUIC_VARINT_MAX_LEN	8

/**
 * quic_varint_len - encoded size of a varint
 * @v: the value
 *
 * Return: 1, 2, 4 or 8, or 0 if @v exceeds QUIC_VARINT_MAX.
 */
static inline u32 quic_varint_len(u64 v)
{
	if (v < (1ULL << 6))
		return 1;
	if (v < (1ULL << 14))
		return 2;
	if (v < (1ULL << 30))
		return 4;
	if (v <= QUIC_VARINT_MAX)
		return 8;
	return 0;
}

/**
 * quic_varint_get - read a varint
 * @p: cursor, advanced past the varint on success
 * @len: bytes left at *@p, decreased on success
 * @v: the value read
 *
 * Non-minimal encodings are accepted, as RFC 9000 requires except where a
 * frame or parameter says otherwise.
 *
 * Return: true on success, false if the bytes left do not hold a varint.
 */
static inline bool quic_varint_get(const u8 **p, u32 *len, u64 *v)
{
	const u8 *b = *p;
	u32 n, i;
	u64 val;

	if (!*len)
		return false;
	n = 1U << (b[0] >> 6);
	if (*len < n)
		return false;
	val = b[0] & 0x3f;
	for (i = 1; i < n; i++)
		val = (val << 8) | b[i];
	*v = val;
	*p += n;
	*len -= n;
	return true;
}

/**
 * quic_uint_get - read a fixed-width big-endian unsigned integer
 * @p: cursor, advanced on success
 * @len: bytes left at *@p, decreased on success
 * @v: the value read
 * @size: width in bytes, 1 to 8
 *
 * Return: true on success, false if fewer than @size bytes are left.
 */
static inline bool quic_uint_get(const u8 **p, u32 *len, u64 *v, u32 size)
{
	u64 val = 0;
	u32 i;

	if (*len < size)
		return false;
	for (i = 0; i < size; i++)
		val = (val << 8) | (*p)[i];
	*v = val;
	*p += size;
	*len -= size;
	return true;
}

/**
 * quic_uint_put - write a fixed-width big-endian unsigned integer
 * @p: where to write
 * @v: the value; its high bytes beyond @size are dropped
 * @size: width in bytes, 1 to 8
 *
 * Return: the byte after the integer.
 */
static inline u8 *quic_uint_put(u8 *p, u64 v, u32 size)
{
	u32 i;

	for (i = size; i > 0; i--) {
		p[i - 1] = v & 0xff;
		v >>= 8;
	}
	return p + size;
}

/**
 * quic_varint_put_len - write a varint in an encoding of a given size
 * @p: where to write
 * @v: the value; must fit in @n bytes (2^(8 * @n - 2) - 1 at most)
 * @n: 1, 2, 4 or 8
 *
 * For fields reserved before their value is known, such as the Length
 * field of a long header.
 *
 * Return: the byte after the varint, or NULL (nothing written) if @n is
 * not a varint size or @v does not fit.
 */
static inline u8 *quic_varint_put_len(u8 *p, u64 v, u32 n)
{
	u8 prefix;

	switch (n) {
	case 1:
		prefix = 0x00;
		break;
	case 2:
		prefix = 0x40;
		break;
	case 4:
		prefix = 0x80;
		break;
	case 8:
		prefix = 0xc0;
		break;
	default:
		return NULL;
	}
	if (quic_varint_len(v) > n || !quic_varint_len(v))
		return NULL;
	p = quic_uint_put(p, v, n);
	p[-(int)n] |= prefix;
	return p;
}

/**
 * quic_varint_put - write a varint in its shortest encoding
 * @p: where to write; the caller has checked quic_varint_len(@v) bytes fit
 * @v: the value, at most QUIC_VARINT_MAX
 *
 * Return: the byte after the varint, or NULL (nothing written) if @v
 * exceeds QUIC_VARINT_MAX.
 */
static inline u8 *quic_varint_put(u8 *p, u64 v)
{
	return quic_varint_put_len(p, v, quic_varint_len(v));
}

#endif /* _NET_QUIC_VARINT_H */
