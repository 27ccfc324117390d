/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC packet protection (RFC 9001 section 5, RFC 9369 for version 2).
 *
 * One struct quic_crypto protects one direction of one encryption level.
 * It holds the crypto API transforms and requests of the AEAD and the
 * expanded header protection key, allocated when the keys are installed,
 * so that protecting or unprotecting a packet allocates nothing.  The
 * functions work on linear buffers in place; the buffers are mapped with a
 * scatterlist and so must be kmalloc'ed memory (not the stack, not vmalloc,
 * not module data).
 *
 * Calls on one struct quic_crypto must be serialised by the caller (the
 * socket lock on the packet path): the preallocated requests are shared.
 * Every call completes before it returns.  The AEAD is the fastest
 * implementation the crypto API has, which may be asynchronous (on x86,
 * AES-NI GCM is registered behind a SIMD/cryptd wrapper): where the caller
 * may sleep, such a call waits for its completion; in atomic context
 * (softirq receive, timers) the SIMD wrapper runs inline, and an AES-GCM
 * without a transform stands in while the FPU is taken (crypto.c); any
 * other asynchronous AEAD gets a second, synchronous-only transform with
 * the same key.
 *
 * Contexts: quic_crypto_set_secret(), quic_crypto_initial_keys(),
 * quic_crypto_key_update_prepare(), quic_crypto_retry_tag() and
 * quic_crypto_free() allocate or may sleep: process context only.
 * quic_crypto_encrypt(), quic_crypto_hp_remove(), quic_crypto_aead_decrypt()
 * and quic_crypto_key_update() neither allocate nor sleep.
 *
 * Receiving a packet: parse the header up to the packet number, then
 * quic_crypto_hp_remove() gives the packet number length and its encoded
 * value; expand it against the largest received (RFC 9000 A.3), then
 * quic_crypto_aead_decrypt().  A struct quic_crypto must be zeroed before
 * its first quic_crypto_set_secret().
 */
#ifndef _NET_QUIC_CRYPTO_H
#define _NET_QUIC_CRYPTO_H

#include <linux/types.h>

#define QUIC_CRYPTO_TAG_LEN		16	/* AEAD tag, every cipher */
#define QUIC_CRYPTO_SAMPLE_LEN		16	/* header protection sample */
#define QUIC_CRYPTO_IV_LEN		12	/* AEAD nonce */
#define QUIC_CRYPTO_KEY_MAX_LEN		32
#define QUIC_CRYPTO_SECRET_MAX_LEN	48	/* SHA-384 */
#define QUIC_CRYPTO_PN_MAX_LEN		4
/* The sample starts this far after the start of the packet number. */
#define QUIC_CRYPTO_SAMPLE_OFFSET	4
/* The Key Phase bit of a short header's first byte. */
#define QUIC_CRYPTO_KEY_PHASE_BIT	0x04
/* Longest connection ID (RFC 9000 17.2), for the Initial and Retry inputs. */
#define QUIC_CRYPTO_CID_MAX_LEN		20

struct crypto_aead;
struct crypto_shash;
struct aead_request;
struct scatterlist;
union quic_crypto_hp;

/**
 * struct quic_crypto_key - the packet protection keys of one key phase
 * @aead: AEAD transform holding the key, the fastest implementation
 * @req: preallocated request for @aead
 * @aead_sync: when @aead is asynchronous and not the SIMD wrapper of an
 *	AES-GCM, a synchronous implementation holding the same key, for
 *	atomic context; NULL otherwise
 * @req_sync: preallocated request for @aead_sync
 * @secret: the traffic secret the key and IV derive from
 * @iv: the packet protection IV
 * @ready: @aead holds the key derived from @secret
 * @async: @aead is asynchronous: process context waits for it
 */
struct quic_crypto_key {
	struct crypto_aead *aead;
	struct aead_request *req;
	struct crypto_aead *aead_sync;
	struct aead_request *req_sync;
	u8 secret[QUIC_CRYPTO_SECRET_MAX_LEN];
	u8 iv[QUIC_CRYPTO_IV_LEN];
	bool ready;
	bool async;
};

/**
 * struct quic_crypto - keys of one level in one direction
 * @key: three key slots; @cur, @prev and @next index them
 * @cur: the slot of the current key phase
 * @prev: the slot of the previous key phase (receive side, for reordered
 *	packets), ready after a key update
 * @next: the slot of the next key phase, ready after
 *	quic_crypto_key_update_prepare()
 * @hp: the header protection key, expanded for the AES or ChaCha20
 *	library (crypto.c); allocated with the keys, the same in every key
 *	phase
 * @hash: "hmac(sha256)" or "hmac(sha384)", for key updates
 * @phase_min_pn: the lowest packet number received in the current key
 *	phase; a packet of the other phase below it belongs to the previous
 *	phase, one above it starts the next (RFC 9001 6.3 and 6.5)
 * @cipher_type: TLS_CIPHER_* of <linux/tls.h>, 0 when no keys are set
 * @version: QUIC version whose labels derived the keys
 * @secret_len: length of the secrets, the hash output size
 * @key_len: AEAD and header protection key length
 * @key_phase: the current key phase bit, 0 or 1
 */
struct quic_crypto {
	struct quic_crypto_key key[3];
	union quic_crypto_hp *hp;
	struct crypto_shash *hash;
	u64 phase_min_pn;
	u32 cipher_type;
	u32 version;
	u32 secret_len;
	u32 key_len;
	u8 cur;
	u8 prev;
	u8 next;
	u8 key_phase;
};

/* quic_crypto_aead_decrypt() opened a packet of the next key phase and
 * moved the receive keys to it.
 */
#define QUIC_CRYPTO_KEY_UPDATED		1

static inline bool quic_crypto_ready(const struct quic_crypto *c)
{
	return c->cipher_type != 0;
}

int quic_crypto_hkdf_extract(const char *hash, const u8 *salt, u32 salt_len,
			     const u8 *ikm, u32 ikm_len, u8 *prk);
int quic_crypto_hkdf_expand_label(const char *hash, const u8 *secret,
				  u32 secret_len, const char *label,
				  u8 *out, u32 out_len);

int quic_crypto_set_secret(struct quic_crypto *c, u32 cipher_type,
			   const u8 *secret, u32 secret_len, u32 version);
/* Length of the Initial salts (RFC 9001 5.2, RFC 9369 3.3.1). */
#define QUIC_CRYPTO_SALT_LEN		20

/**
 * struct quic_labels - the HKDF-Expand-Label labels of a QUIC version
 * @key: packet protection key ("quic key", "quicv2 key")
 * @iv: its IV
 * @hp: header protection key
 * @ku: key update ("quic ku", "quicv2 ku")
 */
struct quic_labels {
	const char *key;
	const char *iv;
	const char *hp;
	const char *ku;
};

const struct quic_labels *quic_crypto_labels(u32 version);
const u8 *quic_crypto_initial_salt(u32 version);
int quic_crypto_initial_keys(struct quic_crypto *rx, struct quic_crypto *tx,
			     const u8 *dcid, u8 dcid_len, u32 version,
			     bool is_server);
int quic_crypto_key_update_prepare(struct quic_crypto *c);
int quic_crypto_key_update(struct quic_crypto *c);
void quic_crypto_free(struct quic_crypto *c);

int quic_crypto_encrypt(struct quic_crypto *c, u8 *pkt, u32 hdr_len,
			u32 pn_len, u64 pn, u32 payload_len);
int quic_crypto_encrypt_sg(struct quic_crypto *c, u8 *pkt,
			   struct scatterlist *src, u32 hdr_len, u32 pn_len,
			   u64 pn, u32 payload_len);
int quic_crypto_hp_remove(struct quic_crypto *c, u8 *pkt, u32 len,
			  u32 pn_offset, u32 *pn_len, u32 *truncated_pn);
int quic_crypto_aead_decrypt(struct quic_crypto *c, u8 *pkt, u32 hdr_len,
			     u64 pn, u32 len);
int quic_crypto_aead_decrypt_sg(struct quic_crypto *c, u8 *pkt,
				struct scatterlist *src, u32 hdr_len, u64 pn,
				u32 len);

void quic_crypto_test_force_soft(bool on);

int quic_crypto_retry_init(void);
void quic_crypto_retry_exit(void);
int quic_crypto_retry_tag(u8 *tag, const u8 *odcid, u8 odcid_len,
			  const u8 *pkt, u32 len, u32 version);

#endif /* _NET_QUIC_CRYPTO_H */
