// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: opening a client's first Initial in softirq (see initial.h).
 *
 * The Initial keys (RFC 9001 5.2, RFC 9369 3.3) derive from the client's
 * Destination Connection ID alone: anybody who sees the packet can
 * compute them, so nothing here is secret and nothing needs constant
 * time or wiping. What is needed is to run in softirq, for any number of
 * packets at once, without allocating or sleeping. The crypto API does
 * not allow that here: a key is set per packet, and setting the key of
 * the generic "gcm(aes)" allocates with GFP_KERNEL and waits (it
 * encrypts the hash key through the ctr transform); the SIMD one is
 * asynchronous. So the packet is opened with the AES and SHA-256
 * libraries: HMAC-SHA256 for HKDF, AES for header protection and for
 * AES-128-GCM (NIST SP 800-38D) with a bitwise GHASH.
 *
 * The socket's own packet protection stays in crypto.c, on the crypto
 * API; this file only reads a copy: to learn the ClientHello's ALPN, and
 * whether the Initial can start a connection at all before a listener
 * queues it for accept().
 */

#include <crypto/aes.h>
#include <crypto/algapi.h>
#include <crypto/sha2.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#ifdef QUIC_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include "crypto.h"
#include "export.h"
#include "frame.h"
#include "initial.h"
#include "input.h"
#include "packet.h"

#define QUIC_INITIAL_KEY_LEN	AES_KEYSIZE_128
#define QUIC_INITIAL_IV_LEN	12
#define QUIC_INITIAL_TAG_LEN	16
#define QUIC_INITIAL_SAMPLE_LEN	16
#define QUIC_INITIAL_CID_MAX	20
#define QUIC_INITIAL_LABEL_MAX	16	/* "quicv2 key" is the longest */

/* HMAC-SHA256 (RFC 2104) of @m1 then @m2, under a key of at most one
 * block.
 */
static void quic_initial_hmac(const u8 *key, u32 key_len, const u8 *m1,
			      u32 l1, const u8 *m2, u32 l2,
			      u8 out[SHA256_DIGEST_SIZE])
{
	u8 pad[SHA256_BLOCK_SIZE];
	struct sha256_state s;
	u32 i;

	memset(pad, 0x36, sizeof(pad));
	for (i = 0; i < key_len; i++)
		pad[i] ^= key[i];
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, m1, l1);
	sha256_update(&s, m2, l2);
	sha256_final(&s, out);
	for (i = 0; i < sizeof(pad); i++)
		pad[i] ^= 0x36 ^ 0x5c;
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, out, SHA256_DIGEST_SIZE);
	sha256_final(&s, out);
}

/* TLS 1.3 HKDF-Expand-Label (RFC 8446 7.1), empty context, one block. */
static void quic_initial_expand(const u8 *secret, const char *label,
				u8 *out, u32 out_len)
{
	u8 info[3 + 6 + QUIC_INITIAL_LABEL_MAX + 1 + 1];
	u8 t[SHA256_DIGEST_SIZE];
	u32 n = strlen(label);

	info[0] = 0;
	info[1] = out_len;
	info[2] = 6 + n;
	memcpy(info + 3, "tls13 ", 6);
	memcpy(info + 9, label, n);
	info[9 + n] = 0;	/* context */
	info[10 + n] = 1;	/* HKDF-Expand block counter */
	quic_initial_hmac(secret, SHA256_DIGEST_SIZE, info, 11 + n, NULL, 0,
			  t);
	memcpy(out, t, out_len);
}

/* GF(2^128) multiplication of GCM, @x = @x * @h (SP 800-38D 6.3). The
 * branches depend on public data only.
 */
static void quic_initial_gf_mul(u8 x[16], const u8 h[16])
{
	u64 zh = 0, zl = 0, vh = get_unaligned_be64(h);
	u64 vl = get_unaligned_be64(h + 8);
	u32 i;

	for (i = 0; i < 128; i++) {
		if (x[i / 8] & (0x80 >> (i % 8))) {
			zh ^= vh;
			zl ^= vl;
		}
		if (vl & 1) {
			vl = (vl >> 1) | (vh << 63);
			vh = (vh >> 1) ^ 0xe100000000000000ULL;
		} else {
			vl = (vl >> 1) | (vh << 63);
			vh >>= 1;
		}
	}
	put_unaligned_be64(zh, x);
	put_unaligned_be64(zl, x + 8);
}

static void quic_initial_ghash(u8 y[16], const u8 h[16], const u8 *d,
			       u32 len)
{
	u32 i, n;

	while (len) {
		n = min_t(u32, len, 16);
		for (i = 0; i < n; i++)
			y[i] ^= d[i];
		quic_initial_gf_mul(y, h);
		d += n;
		len -= n;
	}
}

/* AES-128-GCM decryption in place (SP 800-38D 7.2); the tag follows the
 * ciphertext.
 */
static int quic_initial_gcm_open(const struct crypto_aes_ctx *aes,
				 const u8 iv[QUIC_INITIAL_IV_LEN],
				 const u8 *aad, u32 aad_len, u8 *c, u32 len)
{
	u8 h[16] = {}, y[16] = {}, ctr[16], ks[16];
	u32 i, n, done;

	aes_encrypt(aes, h, h);
	quic_initial_ghash(y, h, aad, aad_len);
	quic_initial_ghash(y, h, c, len);
	put_unaligned_be64((u64)aad_len * 8, ks);
	put_unaligned_be64((u64)len * 8, ks + 8);
	quic_initial_ghash(y, h, ks, 16);

	memcpy(ctr, iv, QUIC_INITIAL_IV_LEN);
	put_unaligned_be32(1, ctr + QUIC_INITIAL_IV_LEN);
	aes_encrypt(aes, ks, ctr);	/* E(K, J0) */
	for (i = 0; i < 16; i++)
		y[i] ^= ks[i];
	if (crypto_memneq(y, c + len, QUIC_INITIAL_TAG_LEN))
		return -EBADMSG;

	for (done = 0; done < len; done += n) {
		put_unaligned_be32(2 + done / 16, ctr + QUIC_INITIAL_IV_LEN);
		aes_encrypt(aes, ks, ctr);
		n = min_t(u32, len - done, 16);
		for (i = 0; i < n; i++)
			c[done + i] ^= ks[i];
	}
	return 0;
}

/**
 * quic_initial_open() - decrypt a copy of a client's Initial
 * @pkt: a writable copy of the packet, h->pkt_len bytes; its header
 *	protection is removed and its payload decrypted in place
 * @h: the header, as quic_packet_parse_header() parsed it: an Initial of
 *	version 1 or 2
 * @off: set to the offset of the decrypted frames in @pkt
 * @len: set to their length
 *
 * Any context: allocates nothing, never sleeps, about 0.8 KiB of stack.
 * The packet number is taken as it is on the wire, which is what it
 * decodes to in a connection's first packets (RFC 9000 A.3 with no
 * packet received before).
 *
 * Return: 0; -EINVAL if the packet is too short or not of a version we
 * have keys for; -EBADMSG if the tag does not match (the frames are not
 * returned then).
 */
int quic_initial_open(u8 *pkt, const struct quic_pkt_hdr *h, u32 *off,
		      u32 *len)
{
	u8 initial[SHA256_DIGEST_SIZE], secret[SHA256_DIGEST_SIZE];
	u8 key[QUIC_INITIAL_KEY_LEN], iv[QUIC_INITIAL_IV_LEN];
	const struct quic_labels *l;
	u8 mask[QUIC_INITIAL_SAMPLE_LEN];
	u32 pn_len, pn = 0, hdr_len, i;
	struct crypto_aes_ctx aes;
	const u8 *salt;

	if (h->type != QUIC_PACKET_INITIAL ||
	    h->dcid_len > QUIC_INITIAL_CID_MAX ||
	    h->pn_offset + 4 + QUIC_INITIAL_SAMPLE_LEN > h->pkt_len)
		return -EINVAL;
	/* The version's salt and labels, as crypto.c derives them. */
	salt = quic_crypto_initial_salt(h->version);
	l = quic_crypto_labels(h->version);
	if (!salt || !l)
		return -EINVAL;

	quic_initial_hmac(salt, QUIC_CRYPTO_SALT_LEN, h->dcid,
			  h->dcid_len, NULL, 0, initial);
	quic_initial_expand(initial, "client in", secret, sizeof(secret));

	/* Header protection (RFC 9001 5.4): a long header keeps 4 bits. */
	quic_initial_expand(secret, l->hp, key, sizeof(key));
	aes_expandkey(&aes, key, sizeof(key));
	aes_encrypt(&aes, mask, pkt + h->pn_offset + 4);
	pkt[0] ^= mask[0] & 0x0f;
	pn_len = (pkt[0] & 0x03) + 1;
	hdr_len = h->pn_offset + pn_len;
	if (hdr_len + QUIC_INITIAL_TAG_LEN > h->pkt_len)
		return -EINVAL;
	for (i = 0; i < pn_len; i++) {
		pkt[h->pn_offset + i] ^= mask[1 + i];
		pn = (pn << 8) | pkt[h->pn_offset + i];
	}

	quic_initial_expand(secret, l->key, key, sizeof(key));
	quic_initial_expand(secret, l->iv, iv, sizeof(iv));
	aes_expandkey(&aes, key, sizeof(key));
	for (i = 0; i < 4; i++)
		iv[QUIC_INITIAL_IV_LEN - 1 - i] ^= pn >> (8 * i);
	*off = hdr_len;
	*len = h->pkt_len - hdr_len - QUIC_INITIAL_TAG_LEN;
	return quic_initial_gcm_open(&aes, iv, pkt, hdr_len, pkt + hdr_len,
				     *len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_initial_open);

/**
 * quic_initial_check() - whether a client's Initial can start a connection
 * @pkt: as for quic_initial_open()
 * @h: as for quic_initial_open()
 * @err: set to the transport error code for %QUIC_INITIAL_VIOLATION
 *
 * Opens the packet and reads it as the receive path of a new server
 * connection would read its first packet (input.c): the reserved bits,
 * then each frame against the rules of an Initial packet, stopping where
 * that path would close the connection. The server has sent nothing yet,
 * so an ACK acknowledges a packet never sent (RFC 9000 13.1). A
 * connection starts with the client's ClientHello, so the packet must
 * carry CRYPTO data from offset 0.
 *
 * Return: %QUIC_INITIAL_HELLO when the packet starts a handshake;
 * %QUIC_INITIAL_NOTHING when it breaks no rule but starts nothing (only
 * PADDING and PING, CRYPTO data from a later offset, or a
 * CONNECTION_CLOSE: a client that gave up); %QUIC_INITIAL_VIOLATION when
 * it breaks one, with *@err set; or a negative errno as
 * quic_initial_open().
 */
int quic_initial_check(u8 *pkt, const struct quic_pkt_hdr *h, u32 *err)
{
	u64 recv = 0, end;
	struct quic_frame f;
	const u8 *p;
	u32 off, len;
	int ret;

	ret = quic_initial_open(pkt, h, &off, &len);
	if (ret)
		return ret;
	*err = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
	if (!len || quic_packet_reserved_bits(pkt[0]))
		return QUIC_INITIAL_VIOLATION;
	p = pkt + off;
	while (len) {
		f.ranges = NULL;
		f.max_ranges = 0;
		if (quic_frame_decode(&p, &len, &f)) {
			*err = f.err;
			return QUIC_INITIAL_VIOLATION;
		}
		if (!quic_frame_allowed(f.type, QUIC_CRYPTO_INITIAL))
			return QUIC_INITIAL_VIOLATION;
		switch (f.type) {
		case QUIC_FRAME_ACK:
		case QUIC_FRAME_ACK_ECN:
			return QUIC_INITIAL_VIOLATION;
		case QUIC_FRAME_CONNECTION_CLOSE:
			return QUIC_INITIAL_NOTHING;
		case QUIC_FRAME_CRYPTO:
			/* As quic_in_crypto() delivers it. */
			end = f.data.offset + f.data.len;
			if (end > recv + QUIC_INPUT_CRYPTO_MAX) {
				*err = QUIC_TRANSPORT_ERROR_CRYPTO_BUF_EXCEEDED;
				return QUIC_INITIAL_VIOLATION;
			}
			if (f.data.offset <= recv && end > recv)
				recv = end;
			break;
		}
	}
	return recv ? QUIC_INITIAL_HELLO : QUIC_INITIAL_NOTHING;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_initial_check);
