/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC hashing: which hash to use for which table.
 *
 * The policy follows from who chooses the key, not from how hot the table is:
 *
 * - Keys that we choose ourselves (the connection IDs we issue, which come
 *   from a CSPRNG-seeded generator; stream IDs and packet numbers, bounded by
 *   limits we advertise) are hashed with quic_fast_hash_*(), an unkeyed
 *   FxHash-style multiply-rotate hash.  It is a few multiplications long and
 *   spreads sequential and random keys evenly, but anybody can compute it, so
 *   anybody who can choose keys can make them collide.
 *
 * - Keys that a peer chooses (the client-chosen original or initial
 *   destination CID, seen before any CID of ours is known; addresses and
 *   4-tuples) are hashed with quic_keyed_hash*(), SipHash-2-4 under a secret
 *   key drawn with get_random_bytes() at boot or netns creation.  Unkeyed or
 *   weakly keyed hashes on these tables are the bug behind the 2025 HashDoS
 *   advisories against QUIC servers (lookups about 300 times slower under
 *   colliding CIDs).
 *
 * - Retry and NEW_TOKEN tokens and stateless reset tokens are not table
 *   hashes at all: they are keyed MACs/PRFs with constant-time comparison and
 *   live with the code that owns them (token.c), not here.
 *
 * If in doubt whether a peer can influence a key, it can: use the keyed hash.
 *
 * Both families return a 32-bit value.  Index a table of 2^bits buckets with
 * quic_hash_bucket(), which takes the high bits: multiplication carries
 * information upwards, so the high bits of a multiplicative hash are its best.
 * The fast hash mixes well enough that masking the low bits (as rhashtable
 * does) works too; quic_test checks both.
 */

#ifndef _NET_QUIC_HASH_H
#define _NET_QUIC_HASH_H

#include <linux/bitops.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/types.h>
#ifdef QUIC_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* The longest key quic_fast_hash_bytes() is tuned for: a QUIC connection ID
 * (RFC 9000, section 17.2).  Longer keys hash correctly, one round per
 * 8 bytes, but nothing here is meant for bulk data.
 */
#define QUIC_HASH_MAX_KEY_LEN	20

/* The FxHash multiplier (rustc-hash, Firefox): odd, with well-mixed bits. */
#define QUIC_FX_MUL		0x517cc1b727220a95ULL

/* Absorb one 64-bit word: the FxHash step. */
static __always_inline u64 quic_fx_add(u64 h, u64 word)
{
	return (rol64(h, 5) ^ word) * QUIC_FX_MUL;
}

/* FxHash alone is weak in two ways that sequential keys expose: a multiply
 * only carries information upwards, so a field in the high bytes of a word
 * stays in the high bits, where a field in the low bytes of the next word can
 * cancel it after the rotate (exact collisions for a counter that straddles
 * an 8-byte boundary); and the high bits of a single product of a counter
 * keep a lattice structure that shows up as bucket loads several times more
 * uneven than random.  An xorshift after every word but the last copies the
 * high half down, where a narrow field of the next word cannot cancel it;
 * the finisher is two xorshift-multiply rounds, after which even the low
 * bits of the high half we return are well mixed.  The balance cases of
 * net/quic/test/hash.c check all of this.
 */
static __always_inline u32 quic_fx_finish(u64 h)
{
	h ^= h >> 32;
	h *= QUIC_FX_MUL;
	h ^= h >> 32;
	h *= QUIC_FX_MUL;
	return h >> 32;
}

/**
 * quic_fast_hash_bytes() - unkeyed hash of a short key that we chose
 * @data: the key, no alignment needed
 * @len: its length in bytes, normally at most %QUIC_HASH_MAX_KEY_LEN
 *
 * Reads only the @len bytes at @data (some of them twice), with at most
 * three 64-bit loads for a 20-byte key and one for an 8-byte key.  The length
 * is mixed in, so keys that differ only by trailing zero bytes hash
 * differently.
 *
 * Only for keys that no peer can choose: see the policy at the top of this
 * file.
 *
 * Return: a 32-bit hash; index tables with quic_hash_bucket().
 */
static inline u32 quic_fast_hash_bytes(const void *data, u32 len)
{
	const u8 *p = data;
	u32 n = len;
	u64 h = 0;

	if (likely(n >= 8)) {
		for (; n > 8; n -= 8, p += 8) {
			h = quic_fx_add(h, get_unaligned_le64(p));
			h ^= h >> 32;
		}
		/* The last 1 to 8 bytes, in one load that may overlap. */
		h = quic_fx_add(h, get_unaligned_le64(p + n - 8));
	} else if (n >= 4) {
		h = quic_fx_add(h, get_unaligned_le32(p) |
				   (u64)get_unaligned_le32(p + n - 4) << 32);
	} else if (n) {
		h = quic_fx_add(h, p[0] | (u32)p[n / 2] << 8 |
				   (u32)p[n - 1] << 16);
	}
	return quic_fx_finish(h ^ len);
}

/**
 * quic_fast_hash_u64() - unkeyed hash of a 64-bit value that we chose
 * @key: the value, e.g. a stream ID or a packet number
 *
 * Equal to quic_fast_hash_bytes() of the 8-byte little-endian encoding of
 * @key, so a table may hash an 8-byte CID either way.
 *
 * Return: a 32-bit hash; index tables with quic_hash_bucket().
 */
static inline u32 quic_fast_hash_u64(u64 key)
{
	return quic_fx_finish(quic_fx_add(0, key) ^ 8);
}

/**
 * quic_fast_hash_u32() - unkeyed hash of a 32-bit value that we chose
 * @key: the value
 *
 * Equal to quic_fast_hash_bytes() of the 4-byte little-endian encoding of
 * @key.
 *
 * Return: a 32-bit hash; index tables with quic_hash_bucket().
 */
static inline u32 quic_fast_hash_u32(u32 key)
{
	return quic_fx_finish(quic_fx_add(0, key | (u64)key << 32) ^ 4);
}

/**
 * quic_hash_bucket() - bucket index of a hash in a table of 2^@bits buckets
 * @hash: a value from quic_fast_hash_*() or quic_keyed_hash*()
 * @bits: log2 of the number of buckets, 0 to 32
 *
 * Return: the top @bits bits of @hash (0 when @bits is 0).
 */
static inline u32 quic_hash_bucket(u32 hash, unsigned int bits)
{
	return (u32)(((u64)hash << bits) >> 32);
}

/**
 * struct quic_hash_key - secret key of a keyed hash table
 * @key: the SipHash key
 *
 * One per table family and network namespace (or per boot), set up once with
 * quic_hash_key_init() and never shown to user space or to a peer.
 */
struct quic_hash_key {
	siphash_key_t key;
};

/**
 * quic_hash_key_init() - draw a fresh secret key
 * @k: the key to fill
 */
static inline void quic_hash_key_init(struct quic_hash_key *k)
{
	get_random_bytes(&k->key, sizeof(k->key));
}

/* Why SipHash-2-4 truncated to 32 bits, and not hsiphash(): hsiphash is
 * SipHash-1-3 on 64-bit and HalfSipHash-1-3 with a 64-bit key on 32-bit
 * machines, which siphash.h documents as an insecure PRF.  Our keys live as
 * long as a netns and the tables are probed by unauthenticated peers at line
 * rate, the setting where a weaker key is most likely to leak through timing.
 * The peer-keyed tables are off the short-header path (that one is keyed by
 * our own CIDs and uses the fast hash), so the few extra nanoseconds per
 * lookup (quic_test bench=1 prints them) buy a full-strength PRF.  Any 32
 * bits of a PRF output are as good as any others; we keep the low half.
 */

/**
 * quic_keyed_hash() - keyed hash of a key that a peer may have chosen
 * @k: the table's secret key
 * @data: the key to hash, no alignment needed
 * @len: its length in bytes
 *
 * Return: the low 32 bits of SipHash-2-4 of @data under @k; index tables
 * with quic_hash_bucket().
 */
static inline u32 quic_keyed_hash(const struct quic_hash_key *k,
				  const void *data, size_t len)
{
	return (u32)siphash(data, len, &k->key);
}

/**
 * quic_keyed_hash_u64() - keyed hash of a 64-bit value a peer may have chosen
 * @k: the table's secret key
 * @v: the value
 *
 * Return: the low 32 bits of siphash_1u64() of @v under @k.
 */
static inline u32 quic_keyed_hash_u64(const struct quic_hash_key *k, u64 v)
{
	return (u32)siphash_1u64(v, &k->key);
}

#endif /* _NET_QUIC_HASH_H */
