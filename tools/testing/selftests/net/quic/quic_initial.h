/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC v1 Initial packet protection in user space (RFC 9001 sections 5.2
 * to 5.4), over GnuTLS, for selftests that play a client by hand from a
 * raw UDP socket: build a client Initial whose frames we choose, and open
 * the server's answer.
 */
#ifndef QUIC_INITIAL_H
#define QUIC_INITIAL_H

#include <stdint.h>
#include <string.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#define QI_KEY_LEN	16
#define QI_IV_LEN	12
#define QI_TAG_LEN	16
#define QI_SECRET_LEN	32
#define QI_CID_MAX	20

/* RFC 9001 5.2: the QUIC v1 Initial salt. */
static const uint8_t qi_salt_v1[20] = {
	0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
	0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a,
};

struct qi_keys {
	uint8_t key[QI_KEY_LEN];
	uint8_t iv[QI_IV_LEN];
	uint8_t hp[QI_KEY_LEN];
};

/* HKDF-Expand-Label (RFC 8446 7.1) with an empty context, SHA-256. */
static inline int qi_expand_label(const uint8_t *secret, const char *label,
				  uint8_t *out, size_t len)
{
	uint8_t info[2 + 1 + 6 + 32 + 1];
	gnutls_datum_t k = { (unsigned char *)secret, QI_SECRET_LEN };
	gnutls_datum_t i = { info, 0 };
	size_t l = strlen(label);

	if (l > 32)
		return -1;
	info[0] = len >> 8;
	info[1] = len & 0xff;
	info[2] = 6 + l;
	memcpy(info + 3, "tls13 ", 6);
	memcpy(info + 9, label, l);
	info[9 + l] = 0;
	i.size = 10 + l;
	return gnutls_hkdf_expand(GNUTLS_MAC_SHA256, &k, &i, out, len);
}

/* The keys of one side ("client in" or "server in") for a first DCID. */
static inline int qi_derive(const uint8_t *dcid, size_t dcid_len,
			    const char *side, struct qi_keys *k)
{
	gnutls_datum_t ikm = { (unsigned char *)dcid, dcid_len };
	gnutls_datum_t salt = { (unsigned char *)qi_salt_v1,
				sizeof(qi_salt_v1) };
	uint8_t initial[QI_SECRET_LEN], secret[QI_SECRET_LEN];

	if (gnutls_hkdf_extract(GNUTLS_MAC_SHA256, &ikm, &salt, initial) ||
	    qi_expand_label(initial, side, secret, sizeof(secret)) ||
	    qi_expand_label(secret, "quic key", k->key, QI_KEY_LEN) ||
	    qi_expand_label(secret, "quic iv", k->iv, QI_IV_LEN) ||
	    qi_expand_label(secret, "quic hp", k->hp, QI_KEY_LEN))
		return -1;
	return 0;
}

/* AES-ECB of one block: CBC with a zero IV. */
static inline int qi_hp_mask(const struct qi_keys *k, const uint8_t *sample,
			     uint8_t *mask)
{
	uint8_t zero[16] = { 0 };
	gnutls_datum_t key = { (unsigned char *)k->hp, QI_KEY_LEN };
	gnutls_datum_t iv = { zero, sizeof(zero) };
	gnutls_cipher_hd_t h;
	int ret;

	if (gnutls_cipher_init(&h, GNUTLS_CIPHER_AES_128_CBC, &key, &iv))
		return -1;
	ret = gnutls_cipher_encrypt2(h, sample, 16, mask, 16);
	gnutls_cipher_deinit(h);
	return ret ? -1 : 0;
}

static inline void qi_nonce(const struct qi_keys *k, uint64_t pn,
			    uint8_t *nonce)
{
	int i;

	memcpy(nonce, k->iv, QI_IV_LEN);
	for (i = 0; i < 8; i++)
		nonce[QI_IV_LEN - 1 - i] ^= (uint8_t)(pn >> (8 * i));
}

/**
 * qi_build_pn - a protected client Initial, padded to fill @out
 * @out: the datagram; at least 1200 bytes
 * @room: its size; the packet fills it exactly
 * @dcid, @dcid_len, @scid, @scid_len: the connection IDs
 * @frames, @flen: the plaintext payload; the rest is PADDING placed
 *	*before* it, so a frame cut short at the end stays cut short
 * @pn: its packet number, sent in 4 bytes
 *
 * Return: the datagram length, or -1.
 */
static inline int qi_build_pn(uint8_t *out, size_t room, const uint8_t *dcid,
			      uint8_t dcid_len, const uint8_t *scid,
			      uint8_t scid_len, const uint8_t *frames,
			      size_t flen, uint64_t pn)
{
	uint8_t nonce[QI_IV_LEN], mask[16], pt[1500];
	gnutls_aead_cipher_hd_t h;
	struct qi_keys k;
	gnutls_datum_t key;
	size_t p = 0, pn_off, plen, ctlen;
	const int pn_len = 4;
	int i;

	if (room > sizeof(pt) || qi_derive(dcid, dcid_len, "client in", &k))
		return -1;
	out[p++] = 0xc0 | (pn_len - 1);
	out[p++] = 0; out[p++] = 0; out[p++] = 0; out[p++] = 1;
	out[p++] = dcid_len;
	memcpy(out + p, dcid, dcid_len);
	p += dcid_len;
	out[p++] = scid_len;
	memcpy(out + p, scid, scid_len);
	p += scid_len;
	out[p++] = 0;			/* token length */
	plen = room - p - 2;		/* a two-byte Length field */
	if (plen > 0x3fff || plen < pn_len + flen + QI_TAG_LEN)
		return -1;
	out[p++] = 0x40 | (plen >> 8);
	out[p++] = plen & 0xff;
	pn_off = p;
	for (i = 0; i < pn_len; i++)
		out[p++] = (uint8_t)(pn >> (8 * (pn_len - 1 - i)));
	/* PADDING first, the chosen frames last. */
	ctlen = plen - pn_len - QI_TAG_LEN;
	memset(pt, 0, ctlen - flen);
	memcpy(pt + ctlen - flen, frames, flen);
	key.data = k.key;
	key.size = QI_KEY_LEN;
	if (gnutls_aead_cipher_init(&h, GNUTLS_CIPHER_AES_128_GCM, &key))
		return -1;
	qi_nonce(&k, pn, nonce);
	ctlen = room - p;
	i = gnutls_aead_cipher_encrypt(h, nonce, QI_IV_LEN, out, p, QI_TAG_LEN,
				       pt, plen - pn_len - QI_TAG_LEN,
				       out + p, &ctlen);
	gnutls_aead_cipher_deinit(h);
	if (i || p + ctlen != room)
		return -1;
	if (qi_hp_mask(&k, out + pn_off + 4, mask))
		return -1;
	out[0] ^= mask[0] & 0x0f;
	for (i = 0; i < pn_len; i++)
		out[pn_off + i] ^= mask[1 + i];
	return room;
}

/* qi_build_pn() with packet number 0: a client's first Initial. */
static inline int qi_build(uint8_t *out, size_t room, const uint8_t *dcid,
			   uint8_t dcid_len, const uint8_t *scid,
			   uint8_t scid_len, const uint8_t *frames,
			   size_t flen)
{
	return qi_build_pn(out, room, dcid, dcid_len, scid, scid_len, frames,
			   flen, 0);
}

static inline int qi_varint(const uint8_t **p, const uint8_t *end,
			    uint64_t *v)
{
	int n, i;

	if (*p >= end)
		return -1;
	n = 1 << (**p >> 6);
	if (end - *p < n)
		return -1;
	*v = **p & 0x3f;
	for (i = 1; i < n; i++)
		*v = (*v << 8) | (*p)[i];
	*p += n;
	return 0;
}

/**
 * qi_open - open the first packet of a server datagram, a v1 Initial
 * @pkt: the datagram, modified in place
 * @len: its length
 * @odcid, @odcid_len: the DCID of the client's first Initial
 * @payload: set to the decrypted frames
 * @plen: set to their length
 *
 * Return: 0, or -1 if it is not an Initial or does not open.
 */
static inline int qi_open(uint8_t *pkt, size_t len, const uint8_t *odcid,
			  uint8_t odcid_len, const uint8_t **payload,
			  size_t *plen)
{
	const uint8_t *p = pkt, *end = pkt + len;
	uint8_t nonce[QI_IV_LEN], mask[16];
	gnutls_aead_cipher_hd_t h;
	uint64_t tlen, length, pn = 0;
	size_t pn_off, ptlen;
	gnutls_datum_t key;
	struct qi_keys k;
	int pn_len, i, ret;

	if (len < 7 || (pkt[0] & 0xf0) != 0xc0 || pkt[1] || pkt[2] || pkt[3] ||
	    pkt[4] != 1)
		return -1;
	p = pkt + 5;
	if (end - p < 1 || *p > QI_CID_MAX || end - p < 1 + *p + 1)
		return -1;
	p += 1 + *p;				/* DCID */
	if (*p > QI_CID_MAX || end - p < 1 + *p)
		return -1;
	p += 1 + *p;				/* SCID */
	if (qi_varint(&p, end, &tlen) || (uint64_t)(end - p) < tlen)
		return -1;
	p += tlen;
	if (qi_varint(&p, end, &length) || (uint64_t)(end - p) < length ||
	    length < 4 + 16)
		return -1;
	pn_off = p - pkt;
	if (qi_derive(odcid, odcid_len, "server in", &k) ||
	    qi_hp_mask(&k, pkt + pn_off + 4, mask))
		return -1;
	pkt[0] ^= mask[0] & 0x0f;
	pn_len = (pkt[0] & 3) + 1;
	for (i = 0; i < pn_len; i++) {
		pkt[pn_off + i] ^= mask[1 + i];
		pn = (pn << 8) | pkt[pn_off + i];
	}
	key.data = k.key;
	key.size = QI_KEY_LEN;
	if (gnutls_aead_cipher_init(&h, GNUTLS_CIPHER_AES_128_GCM, &key))
		return -1;
	qi_nonce(&k, pn, nonce);
	ptlen = length - pn_len;
	ret = gnutls_aead_cipher_decrypt(h, nonce, QI_IV_LEN, pkt,
					 pn_off + pn_len, QI_TAG_LEN,
					 pkt + pn_off + pn_len,
					 length - pn_len, pkt + pn_off + pn_len,
					 &ptlen);
	gnutls_aead_cipher_deinit(h);
	if (ret)
		return -1;
	*payload = pkt + pn_off + pn_len;
	*plen = ptlen;
	return 0;
}

/* The error code of the first CONNECTION_CLOSE (0x1c) in @p, or -1. The
 * frames before it may only be PADDING, PING and ACK.
 */
static inline int64_t qi_close_code(const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t t, v, n, i;

	while (p < end) {
		if (qi_varint(&p, end, &t))
			return -1;
		switch (t) {
		case 0x00:
		case 0x01:
			break;
		case 0x02:	/* ACK: largest, delay, count, first, ranges */
			if (qi_varint(&p, end, &v) || qi_varint(&p, end, &v) ||
			    qi_varint(&p, end, &n) || qi_varint(&p, end, &v))
				return -1;
			for (i = 0; i < 2 * n; i++)
				if (qi_varint(&p, end, &v))
					return -1;
			break;
		case 0x1c:
			if (qi_varint(&p, end, &v))
				return -1;
			return (int64_t)v;
		default:
			return -1;
		}
	}
	return -1;
}

#endif /* QUIC_INITIAL_H */
