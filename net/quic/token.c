// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: address validation tokens (RFC 9000 section 8.1).
 *
 * Layout, all of it readable by the client:
 *
 *	kind << 1 | slot (1)  issue time (4)  body  bind (8)  MAC (16)
 *
 * where body is the original DCID with its length byte (Retry) or 8
 * random bytes (NEW_TOKEN, so that no two tokens are alike).  bind is
 * SipHash-2-4, under the namespace's token key, of the token before it
 * and the client's address family and address, plus for a Retry token its
 * port and the SCID of the Retry.  The MAC is SipHash-2-4 under the same
 * key, twice with a domain byte for 128 bits, over everything before it.
 * SipHash is a PRF, so a MAC or a bind an attacker has not seen is as
 * hard to guess as the key; both are compared in constant time.
 *
 * The two tell the failures apart (RFC 9000 8.1.3): a token whose MAC
 * fails is not ours (another server's, or altered) and counts as none; an
 * authentic token that expired, or that another client address, port or
 * connection ID presents, is ours and refused.
 *
 * The key is drawn again every QUIC_TOKEN_ROTATE seconds, when a token
 * is made; the slot bit says which of the two keys made a token, and a
 * token whose key has been replaced twice is older than any lifetime.
 * Time is boot time in seconds: tokens die with the namespace's key.
 */

#include <crypto/algapi.h>
#include <crypto/sha2.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#ifdef QUIC_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include "export.h"
#include "token.h"

/* The input of bind: a domain byte, the token before it, family,
 * address, port, and for Retry the SCID of the Retry with its length.
 */
#define QUIC_TOKEN_BIND_IN	(1 + QUIC_TOKEN_RETRY_MAX_LEN + 1 + 16 + 2 + \
				 1 + QUIC_CID_MAX_LEN)

/**
 * quic_token_now() - the clock of tokens
 *
 * Return: boot time in seconds.
 */
u64 quic_token_now(void)
{
	return ktime_get_boottime_seconds();
}

/**
 * quic_token_key_init() - draw a namespace's first token key
 * @k: the key
 * @now: quic_token_now()
 */
void quic_token_key_init(struct quic_token_key *k, u64 now)
{
	get_random_bytes(k->key, sizeof(k->key));
	get_random_bytes(k->ticket, sizeof(k->ticket));
	k->since = now;
	k->cur = 0;
	spin_lock_init(&k->lock);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_token_key_init);

/**
 * quic_token_key_exit() - forget a token key
 * @k: the key
 */
void quic_token_key_exit(struct quic_token_key *k)
{
	memzero_explicit(k->key, sizeof(k->key));
	memzero_explicit(k->ticket, sizeof(k->ticket));
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_token_key_exit);

/* The slot of the key to sign with now, rotating it when due. */
static u8 quic_token_slot(struct quic_token_key *k, u64 now)
{
	siphash_key_t fresh;
	u8 slot;

	/* Signed: a caller whose clock read came just before a rotation
	 * must not rotate again, which would drop the key before.
	 */
	if ((s64)(now - READ_ONCE(k->since)) < QUIC_TOKEN_ROTATE)
		return READ_ONCE(k->cur);
	get_random_bytes(&fresh, sizeof(fresh));
	spin_lock_bh(&k->lock);
	if ((s64)(now - k->since) >= QUIC_TOKEN_ROTATE) {
		slot = !k->cur;
		k->key[slot] = fresh;
		WRITE_ONCE(k->since, now);
		smp_wmb();	/* the key before the slot that names it */
		WRITE_ONCE(k->cur, slot);
	}
	slot = k->cur;
	spin_unlock_bh(&k->lock);
	memzero_explicit(&fresh, sizeof(fresh));
	return slot;
}

/* The address bytes of @a, with its family, and with its port if @port. */
static u32 quic_token_addr(u8 *out, const union quic_addr *a, bool port)
{
	u32 n = 0;

	if (a->sa.sa_family == AF_INET6) {
		out[n++] = 6;
		memcpy(out + n, &a->v6.sin6_addr, 16);
		n += 16;
	} else {
		out[n++] = 4;
		memcpy(out + n, &a->v4.sin_addr, 4);
		n += 4;
	}
	if (port) {
		/* sin_port and sin6_port are at the same offset. */
		memcpy(out + n, &a->v4.sin_port, 2);
		n += 2;
	}
	return n;
}

/* Append the address the token is bound to, and for Retry the ID the
 * client's next Initial is sent to; returns the new length.
 */
static u32 quic_token_bind(u8 *in, u32 n, const union quic_addr *peer,
			   const struct quic_cid *rscid)
{
	n += quic_token_addr(in + n, peer, rscid);
	if (rscid) {
		in[n++] = rscid->len;
		memcpy(in + n, rscid->data, rscid->len);
		n += rscid->len;
	}
	return n;
}

/* bind of the token's first @len bytes, for @peer (and @rscid). */
static void quic_token_bind_tag(const siphash_key_t *key, const u8 *tok,
				u32 len, const union quic_addr *peer,
				const struct quic_cid *rscid, u8 *bind)
{
	u8 in[QUIC_TOKEN_BIND_IN];
	u32 n;

	in[0] = 2;
	memcpy(in + 1, tok, len);
	n = quic_token_bind(in, 1 + len, peer, rscid);
	put_unaligned_le64(siphash(in, n, key), bind);
	memzero_explicit(in, sizeof(in));
}

/* The MAC of the token's first @len bytes. */
static void quic_token_mac(const siphash_key_t *key, const u8 *tok, u32 len,
			   u8 *mac)
{
	u8 in[1 + QUIC_TOKEN_RETRY_MAX_LEN];

	memcpy(in + 1, tok, len);
	in[0] = 0;
	put_unaligned_le64(siphash(in, len + 1, key), mac);
	in[0] = 1;
	put_unaligned_le64(siphash(in, len + 1, key), mac + 8);
	memzero_explicit(in, sizeof(in));
}

/**
 * quic_token_make() - make a token
 * @k: the namespace's token key
 * @kind: QUIC_TOKEN_RETRY or QUIC_TOKEN_NEW
 * @buf: where to write it, QUIC_TOKEN_RETRY_MAX_LEN bytes
 * @peer: the client's address (and port, for Retry)
 * @odcid: Retry: the DCID of the client's first Initial
 * @rscid: Retry: the SCID of the Retry, the DCID of the client's next
 *	Initial: bound too, so that a token opens one connection only
 * @nonce: NEW_TOKEN: QUIC_TOKEN_NONCE_LEN random bytes
 * @now: quic_token_now()
 *
 * Softirq or process context.
 *
 * Return: the token's length, or -EINVAL.
 */
int quic_token_make(struct quic_token_key *k, u8 kind, u8 *buf,
		    const union quic_addr *peer, const struct quic_cid *odcid,
		    const struct quic_cid *rscid, const u8 *nonce, u64 now)
{
	u8 slot = quic_token_slot(k, now);
	u32 n = 5;

	smp_rmb();	/* the slot before its key */
	if (kind == QUIC_TOKEN_RETRY) {
		if (odcid->len > QUIC_CID_MAX_LEN ||
		    rscid->len > QUIC_CID_MAX_LEN)
			return -EINVAL;
		buf[n++] = odcid->len;
		memcpy(buf + n, odcid->data, odcid->len);
		n += odcid->len;
	} else if (kind == QUIC_TOKEN_NEW) {
		memcpy(buf + n, nonce, QUIC_TOKEN_NONCE_LEN);
		n += QUIC_TOKEN_NONCE_LEN;
	} else {
		return -EINVAL;
	}
	buf[0] = kind << 1 | slot;
	put_unaligned_be32((u32)now, buf + 1);
	quic_token_bind_tag(&k->key[slot], buf, n, peer,
			    kind == QUIC_TOKEN_RETRY ? rscid : NULL, buf + n);
	n += QUIC_TOKEN_BIND_LEN;
	quic_token_mac(&k->key[slot], buf, n, buf + n);
	return n + QUIC_TOKEN_MAC_LEN;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_token_make);

/**
 * quic_token_kind() - what a token claims to be, before it is checked
 * @tok: the Token field of a client Initial
 * @len: its length
 *
 * Return: QUIC_TOKEN_RETRY, QUIC_TOKEN_NEW, or 0 for anything else (a
 * token of another server, or junk).
 */
u8 quic_token_kind(const u8 *tok, u32 len)
{
	u8 kind;

	if (!len)
		return 0;
	kind = tok[0] >> 1;
	return kind == QUIC_TOKEN_RETRY || kind == QUIC_TOKEN_NEW ? kind : 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_token_kind);

/**
 * quic_token_check() - check a token from a client Initial
 * @k: the namespace's token key
 * @tok: the token
 * @len: its length
 * @peer: the address the Initial came from
 * @dcid: the Initial's DCID (a Retry token is valid only with the SCID
 *	of its Retry there)
 * @odcid: set, for a valid Retry token, to the original DCID it carries
 * @now: quic_token_now()
 *
 * Softirq or process context.  The MAC is compared in constant time.
 *
 * Return: the token's kind if it is one of ours, unaltered, made for
 * @peer (and @dcid) and still within its lifetime; -EINVAL if it is
 * malformed, altered or not ours; -ETIMEDOUT if it is ours and expired;
 * -EACCES if it is ours and was made for another address, port or DCID.
 */
int quic_token_check(const struct quic_token_key *k, const u8 *tok, u32 len,
		     const union quic_addr *peer, const struct quic_cid *dcid,
		     struct quic_cid *odcid, u64 now)
{
	u8 mac[QUIC_TOKEN_MAC_LEN], bind[QUIC_TOKEN_BIND_LEN];
	u8 kind = quic_token_kind(tok, len);
	const siphash_key_t *key;
	u32 n, t, life;

	if (kind == QUIC_TOKEN_RETRY) {
		if (dcid->len > QUIC_CID_MAX_LEN ||
		    len < 6 || tok[5] > QUIC_CID_MAX_LEN ||
		    len != 6 + tok[5] + QUIC_TOKEN_BIND_LEN +
			   QUIC_TOKEN_MAC_LEN)
			return -EINVAL;
		life = QUIC_TOKEN_RETRY_LIFETIME;
	} else if (kind == QUIC_TOKEN_NEW) {
		if (len != QUIC_TOKEN_NEW_LEN)
			return -EINVAL;
		life = QUIC_TOKEN_NEW_LIFETIME;
	} else {
		return -EINVAL;
	}
	key = &k->key[tok[0] & 1];
	n = len - QUIC_TOKEN_MAC_LEN;
	quic_token_mac(key, tok, n, mac);
	if (crypto_memneq(mac, tok + n, QUIC_TOKEN_MAC_LEN))
		return -EINVAL;
	/* Serial arithmetic on 32 bits: a token from "the future" is one
	 * more than 2^31 s old, so expired too.
	 */
	t = (u32)now - get_unaligned_be32(tok + 1);
	if (t > life)
		return -ETIMEDOUT;
	n -= QUIC_TOKEN_BIND_LEN;
	quic_token_bind_tag(key, tok, n, peer,
			    kind == QUIC_TOKEN_RETRY ? dcid : NULL, bind);
	if (crypto_memneq(bind, tok + n, QUIC_TOKEN_BIND_LEN))
		return -EACCES;
	if (kind == QUIC_TOKEN_RETRY)
		quic_cid_set(odcid, tok + 6, tok[5]);
	return kind;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_token_check);

/**
 * quic_token_ticket_key() - the session-ticket key of a server connection
 * @k: the namespace's keys
 * @local: the server's address and port
 * @peer: the client's address; its port is left out
 * @key: QUIC_TICKET_KEY_LEN bytes out
 *
 * quic-api.rst 5.10: what a server's QUIC_SOCKOPT_SESSION_TICKET get
 * returns unless a key was set, for gnutls_session_ticket_enable_server().
 * Resumption needs the same key for every connection of one client to
 * one listener, so the key is SHA-256 of the namespace's ticket secret,
 * a counter, and both addresses: nothing is kept per socket, and neither
 * another listener nor another client address gets this key.
 */
void quic_token_ticket_key(const struct quic_token_key *k,
			   const union quic_addr *local,
			   const union quic_addr *peer, u8 *key)
{
	u8 in[sizeof(k->ticket) + 1 + 2 * (1 + 16 + 2)];
	u32 n, half;

	memcpy(in, k->ticket, sizeof(k->ticket));
	n = sizeof(k->ticket) + 1;
	n += quic_token_addr(in + n, local, true);
	n += quic_token_addr(in + n, peer, false);
	for (half = 0; half < QUIC_TICKET_KEY_LEN / SHA256_DIGEST_SIZE;
	     half++) {
		in[sizeof(k->ticket)] = half;
		sha256(in, n, key + half * SHA256_DIGEST_SIZE);
	}
	memzero_explicit(in, sizeof(in));
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_token_ticket_key);
