// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC packet protection: key schedule, AEAD payload protection, header
 * protection, key update and the Retry integrity tag (RFC 9001 section 5
 * and 6, RFC 9369 section 3.3).
 *
 * Choices:
 *
 * - HKDF is built here on an "hmac(sha256)" or "hmac(sha384)" shash: 6.1
 *   has no HKDF library.  HKDF-Expand-Label is TLS 1.3's (RFC 8446 7.1)
 *   with an empty context.
 *
 * - Header protection calls the AES and ChaCha20 libraries (<crypto/aes.h>,
 *   <crypto/chacha.h>), not the crypto API: the mask is one AES block, or
 *   the first five bytes of one ChaCha20 block with the sample as counter
 *   and nonce, too little work for a transform, a request and a
 *   scatterlist (an "ecb(aes)" skcipher is two transforms, the template's
 *   and the cipher's).  The key is expanded once, into a small object of
 *   its own (union quic_crypto_hp).  Both libraries are synchronous and use
 *   no FPU on one block (the x86 ChaCha library runs its generic code up to
 *   64 bytes), so the mask is computed the same way in any context.
 *
 * - Requests are allocated with the keys, one per transform, so that
 *   protecting a packet allocates nothing.  The AEAD is the one the crypto
 *   API ranks first, asynchronous implementations included: on x86 that is
 *   the AES-NI/PCLMULQDQ GCM ("generic-gcm-aesni"), which 6.1 registers
 *   only behind the SIMD wrapper of crypto/simd.c, marked asynchronous; the
 *   best synchronous GCM is gcm_base(ctr(aes-aesni),ghash-generic), whose
 *   table-driven GHASH costs about as much as the AES and 4 KB a key.  A
 *   call that may sleep (process context: sendmsg, the backlog at
 *   release_sock) uses it and waits for the completion when it goes
 *   asynchronous.  Atomic context (the softirq receive path and timers)
 *   cannot wait.  The SIMD wrapper runs its internal synchronous
 *   implementation inline whenever crypto_simd_usable() and no request of
 *   the transform is queued to cryptd; ours never has one queued, since
 *   every call completes before it returns and process context never
 *   queues (the FPU is usable there).  So atomic context calls the same
 *   transform, and runs inline with the same accelerated GHASH; only when
 *   the FPU is taken (a softirq that interrupted a kernel FPU section)
 *   does it seal or open the packet with the AES library and a bitwise
 *   GHASH here, slow but without a transform or an allocation.  An
 *   asynchronous AEAD that is not such a wrapper (a hardware driver), or
 *   not GCM, gets a second, synchronous-only transform with the same key
 *   for atomic context.  When the first-ranked AEAD is synchronous
 *   (ChaCha20-Poly1305 and CCM on x86, or no AES-NI) there is one
 *   transform.  The crypto_async module parameter (0: synchronous only) is
 *   there to compare both in one boot ("make bench").
 *
 * - Transforms on demand: an AES-GCM key of the next key phase has none
 *   (only its secret and IV) until it becomes current and
 *   quic_crypto_key_update_prepare() gives it one; the first packets of a
 *   new phase are protected and opened by the GCM of this file.  An idle
 *   connection so holds one AEAD transform per direction, not two (three
 *   with the synchronous twins before).
 *
 * - A failed tag check wipes the payload: the generic GCM and CCM decrypt
 *   before they verify, and no unauthenticated plaintext must reach anybody.
 */

#include <crypto/aead.h>
#include <crypto/aes.h>
#include <crypto/algapi.h>
#include <crypto/chacha.h>
#include <crypto/gf128mul.h>
#include <crypto/hash.h>
#include <crypto/internal/simd.h>
#include <crypto/sha2.h>
#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tls.h>
#include <linux/quic.h>
#include <asm/simd.h>
#ifdef QUIC_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include "crypto.h"
#include "export.h"

struct quic_cipher {
	u32 type;
	const char *aead;
	const char *hash;
	u32 key_len;
	u32 secret_len;
};

static const struct quic_cipher quic_ciphers[] = {
	{ TLS_CIPHER_AES_GCM_128, "gcm(aes)", "hmac(sha256)",
	  16, SHA256_DIGEST_SIZE },
	{ TLS_CIPHER_AES_GCM_256, "gcm(aes)", "hmac(sha384)",
	  32, SHA384_DIGEST_SIZE },
	{ TLS_CIPHER_AES_CCM_128, "ccm(aes)", "hmac(sha256)",
	  16, SHA256_DIGEST_SIZE },
	{ TLS_CIPHER_CHACHA20_POLY1305, "rfc7539(chacha20,poly1305)",
	  "hmac(sha256)", 32, SHA256_DIGEST_SIZE },
};

/**
 * union quic_crypto_hp - an expanded header protection key
 * @aes: the AES-128 or AES-256 key schedule, for the AES cipher suites
 * @chacha: the ChaCha20 key as the library takes it: eight words read
 *	little-endian from the key bytes
 *
 * A ChaCha20 suite allocates only @chacha.
 */
union quic_crypto_hp {
	struct crypto_aes_ctx aes;
	u32 chacha[CHACHA_KEY_SIZE / sizeof(u32)];
};

static const struct quic_labels quic_labels_v1 = {
	"quic key", "quic iv", "quic hp", "quic ku"
};

static const struct quic_labels quic_labels_v2 = {
	"quicv2 key", "quicv2 iv", "quicv2 hp", "quicv2 ku"
};

/* Initial salts: RFC 9001 section 5.2, RFC 9369 section 3.3.1. */
static const u8 quic_salt_v1[QUIC_CRYPTO_SALT_LEN] = {
	0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
	0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a,
};

static const u8 quic_salt_v2[QUIC_CRYPTO_SALT_LEN] = {
	0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
	0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9,
};

/* Retry integrity keys and nonces: RFC 9001 section 5.8, RFC 9369 3.3.3. */
static const u8 quic_retry_key_v1[] = {
	0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a,
	0x1d, 0x76, 0x6b, 0x54, 0xe3, 0x68, 0xc8, 0x4e,
};

static const u8 quic_retry_nonce_v1[QUIC_CRYPTO_IV_LEN] = {
	0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63, 0x2b, 0xf2,
	0x23, 0x98, 0x25, 0xbb,
};

static const u8 quic_retry_key_v2[] = {
	0x8f, 0xb4, 0xb0, 0x1b, 0x56, 0xac, 0x48, 0xe2,
	0x60, 0xfb, 0xcb, 0xce, 0xad, 0x7c, 0xcc, 0x92,
};

static const u8 quic_retry_nonce_v2[QUIC_CRYPTO_IV_LEN] = {
	0xd8, 0x69, 0x69, 0xbc, 0x2d, 0x7c, 0x6d, 0x99,
	0x90, 0xef, 0xb0, 0x4a,
};

#define QUIC_HKDF_LABEL_PREFIX	"tls13 "
#define QUIC_HKDF_LABEL_MAX	32	/* ours are at most 10 bytes */
#define QUIC_HP_MASK_LEN	5	/* first byte and up to 4 PN bytes */
#define QUIC_CCM_IV_LEN		16

static bool quic_crypto_async = true;
module_param_named(crypto_async, quic_crypto_async, bool, 0644);
MODULE_PARM_DESC(crypto_async,
		 "use asynchronous AEAD implementations (AES-NI GCM) where the caller may sleep; keys installed later (default: on)");

static const struct quic_cipher *quic_cipher_find(u32 type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(quic_ciphers); i++)
		if (quic_ciphers[i].type == type)
			return &quic_ciphers[i];
	return NULL;
}

/**
 * quic_crypto_labels() - the HKDF labels of a version
 * @version: QUIC_VERSION_V1 or QUIC_VERSION_V2
 *
 * Return: the labels, or NULL for a version we do not speak.
 */
const struct quic_labels *quic_crypto_labels(u32 version)
{
	switch (version) {
	case QUIC_VERSION_V1:
		return &quic_labels_v1;
	case QUIC_VERSION_V2:
		return &quic_labels_v2;
	}
	return NULL;
}

/**
 * quic_crypto_initial_salt() - the Initial salt of a version
 * @version: QUIC_VERSION_V1 or QUIC_VERSION_V2
 *
 * Return: its QUIC_CRYPTO_SALT_LEN bytes, or NULL for a version we do
 * not speak.
 */
const u8 *quic_crypto_initial_salt(u32 version)
{
	switch (version) {
	case QUIC_VERSION_V1:
		return quic_salt_v1;
	case QUIC_VERSION_V2:
		return quic_salt_v2;
	}
	return NULL;
}

static int quic_hkdf_extract(struct crypto_shash *tfm, const u8 *salt,
			     u32 salt_len, const u8 *ikm, u32 ikm_len, u8 *prk)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	int err;

	err = crypto_shash_setkey(tfm, salt, salt_len);
	if (err)
		return err;
	desc->tfm = tfm;
	err = crypto_shash_digest(desc, ikm, ikm_len, prk);
	shash_desc_zero(desc);
	return err;
}

/* HKDF-Expand(secret, HkdfLabel, out_len), RFC 5869 and RFC 8446 7.1:
 * HkdfLabel = { u16 length; u8 label<7..255> = "tls13 " + label;
 * u8 context<0..255> = "" }.
 */
static int quic_hkdf_expand_label(struct crypto_shash *tfm, const u8 *secret,
				  u32 secret_len, const char *label,
				  u8 *out, u32 out_len)
{
	u8 info[2 + 1 + sizeof(QUIC_HKDF_LABEL_PREFIX) - 1 +
		QUIC_HKDF_LABEL_MAX + 1];
	u32 hlen = crypto_shash_digestsize(tfm), label_len = strlen(label);
	u32 prefix_len = sizeof(QUIC_HKDF_LABEL_PREFIX) - 1;
	SHASH_DESC_ON_STACK(desc, tfm);
	u8 t[SHA512_DIGEST_SIZE];
	u32 info_len, done = 0;
	u8 counter;
	int err;

	if (label_len > QUIC_HKDF_LABEL_MAX || !out_len ||
	    out_len > 255 * hlen || out_len > U16_MAX || hlen > sizeof(t))
		return -EINVAL;

	info[0] = out_len >> 8;
	info[1] = out_len & 0xff;
	info[2] = prefix_len + label_len;
	memcpy(&info[3], QUIC_HKDF_LABEL_PREFIX, prefix_len);
	memcpy(&info[3 + prefix_len], label, label_len);
	info_len = 3 + prefix_len + label_len;
	info[info_len++] = 0;	/* empty context */

	err = crypto_shash_setkey(tfm, secret, secret_len);
	if (err)
		return err;
	desc->tfm = tfm;
	for (counter = 1; done < out_len; counter++) {
		u32 n = min(hlen, out_len - done);

		err = crypto_shash_init(desc);
		if (!err && counter > 1)
			err = crypto_shash_update(desc, t, hlen);
		if (!err)
			err = crypto_shash_update(desc, info, info_len);
		if (!err)
			err = crypto_shash_finup(desc, &counter, 1, t);
		if (err)
			break;
		memcpy(out + done, t, n);
		done += n;
	}
	memzero_explicit(t, sizeof(t));
	shash_desc_zero(desc);
	return err;
}

/**
 * quic_crypto_hkdf_extract() - HKDF-Extract (RFC 5869)
 * @hash: "hmac(sha256)" or "hmac(sha384)"
 * @salt: the salt
 * @salt_len: its length
 * @ikm: the input keying material
 * @ikm_len: its length
 * @prk: output, the digest size of @hash
 *
 * Allocates a transform per call: for tests and slow paths.
 *
 * Return: 0 or a negative errno.
 */
int quic_crypto_hkdf_extract(const char *hash, const u8 *salt, u32 salt_len,
			     const u8 *ikm, u32 ikm_len, u8 *prk)
{
	struct crypto_shash *tfm;
	int err;

	tfm = crypto_alloc_shash(hash, 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = quic_hkdf_extract(tfm, salt, salt_len, ikm, ikm_len, prk);
	crypto_free_shash(tfm);
	return err;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_hkdf_extract);

/**
 * quic_crypto_hkdf_expand_label() - TLS 1.3 HKDF-Expand-Label, empty context
 * @hash: "hmac(sha256)" or "hmac(sha384)"
 * @secret: the secret
 * @secret_len: its length
 * @label: the label without the "tls13 " prefix, e.g. "quic key"
 * @out: output
 * @out_len: bytes to produce
 *
 * Allocates a transform per call: for tests and slow paths.
 *
 * Return: 0 or a negative errno.
 */
int quic_crypto_hkdf_expand_label(const char *hash, const u8 *secret,
				  u32 secret_len, const char *label,
				  u8 *out, u32 out_len)
{
	struct crypto_shash *tfm;
	int err;

	tfm = crypto_alloc_shash(hash, 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = quic_hkdf_expand_label(tfm, secret, secret_len, label, out,
				     out_len);
	crypto_free_shash(tfm);
	return err;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_hkdf_expand_label);

/* Free the transforms of @k, keeping its secret and IV. */
static void quic_crypto_key_detach(struct quic_crypto_key *k)
{
	aead_request_free(k->req);
	crypto_free_aead(k->aead);
	aead_request_free(k->req_sync);
	crypto_free_aead(k->aead_sync);
	k->req = NULL;
	k->aead = NULL;
	k->req_sync = NULL;
	k->aead_sync = NULL;
	k->async = false;
}

/**
 * quic_crypto_free() - release the transforms and wipe the keys
 * @c: the keys; may be unset or partly set up
 *
 * Leaves @c zeroed, ready for quic_crypto_set_secret() again.
 */
void quic_crypto_free(struct quic_crypto *c)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->key); i++)
		quic_crypto_key_detach(&c->key[i]);
	kfree_sensitive(c->hp);
	crypto_free_shash(c->hash);
	memzero_explicit(c, sizeof(*c));
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_free);

static int quic_crypto_alloc_aead(struct crypto_aead **tfm,
				  struct aead_request **req, const char *name,
				  u32 mask)
{
	int err;

	*tfm = crypto_alloc_aead(name, 0, mask);
	if (IS_ERR(*tfm)) {
		err = PTR_ERR(*tfm);
		*tfm = NULL;
		return err;
	}
	err = crypto_aead_setauthsize(*tfm, QUIC_CRYPTO_TAG_LEN);
	if (err)
		return err;
	*req = aead_request_alloc(*tfm, GFP_KERNEL);
	if (!*req)
		return -ENOMEM;
	aead_request_set_callback(*req, 0, NULL, NULL);
	return 0;
}

static bool quic_crypto_aead_is_async(struct crypto_aead *tfm)
{
	return crypto_aead_alg(tfm)->base.cra_flags & CRYPTO_ALG_ASYNC;
}

/* Is @tfm the SIMD wrapper of crypto/simd.c around a synchronous internal
 * implementation?  The wrapper is named after the internal algorithm
 * without its "__" prefix (simd_register_aeads_compat() requires the
 * prefix), so the internal one is found by that name, without loading a
 * module: the wrapper's module registered both.
 */
static bool quic_crypto_aead_is_simd(struct crypto_aead *tfm)
{
	char name[CRYPTO_MAX_ALG_NAME];

	if (snprintf(name, sizeof(name), "__%s",
		     crypto_aead_driver_name(tfm)) >= sizeof(name))
		return false;
	return crypto_has_alg(name, CRYPTO_ALG_TYPE_AEAD | CRYPTO_ALG_INTERNAL,
			      CRYPTO_ALG_TYPE_MASK | CRYPTO_ALG_INTERNAL |
			      CRYPTO_ALG_ASYNC | CRYPTO_NOLOAD) > 0;
}

static bool quic_cipher_is_gcm(u32 type)
{
	return type == TLS_CIPHER_AES_GCM_128 || type == TLS_CIPHER_AES_GCM_256;
}

static int quic_crypto_alloc_key(struct quic_crypto_key *k,
				 const struct quic_cipher *cipher)
{
	int err;

	if (k->aead)
		return 0;
	err = quic_crypto_alloc_aead(&k->aead, &k->req, cipher->aead,
				     READ_ONCE(quic_crypto_async) ? 0 :
				     CRYPTO_ALG_ASYNC);
	if (err || !quic_crypto_aead_is_async(k->aead))
		return err;
	k->async = true;
	/* Atomic context runs the wrapper inline, or the GCM of this file. */
	if (quic_cipher_is_gcm(cipher->type) &&
	    quic_crypto_aead_is_simd(k->aead))
		return 0;
	return quic_crypto_alloc_aead(&k->aead_sync, &k->req_sync,
				      cipher->aead, CRYPTO_ALG_ASYNC);
}

static int quic_crypto_alloc(struct quic_crypto *c,
			     const struct quic_cipher *cipher)
{
	int err;

	c->cur = 0;
	c->prev = 1;
	c->next = 2;
	err = quic_crypto_alloc_key(&c->key[c->cur], cipher);
	if (err)
		return err;

	if (cipher->type == TLS_CIPHER_CHACHA20_POLY1305)
		c->hp = kzalloc(sizeof(c->hp->chacha), GFP_KERNEL);
	else
		c->hp = kzalloc(sizeof(c->hp->aes), GFP_KERNEL);
	if (!c->hp)
		return -ENOMEM;

	c->hash = crypto_alloc_shash(cipher->hash, 0, 0);
	if (IS_ERR(c->hash)) {
		err = PTR_ERR(c->hash);
		c->hash = NULL;
		return err;
	}
	return 0;
}

/* Derive the header protection key from @secret (RFC 9001 5.1) and expand
 * it for @cipher's library into @c->hp.
 */
static int quic_crypto_hp_setkey(struct quic_crypto *c,
				 const struct quic_cipher *cipher,
				 const u8 *secret)
{
	const struct quic_labels *l = quic_crypto_labels(c->version);
	u8 key[QUIC_CRYPTO_KEY_MAX_LEN];
	unsigned int i;
	int err;

	err = quic_hkdf_expand_label(c->hash, secret, c->secret_len, l->hp,
				     key, cipher->key_len);
	if (err)
		goto out;
	if (cipher->type != TLS_CIPHER_CHACHA20_POLY1305) {
		err = aes_expandkey(&c->hp->aes, key, cipher->key_len);
		goto out;
	}
	if (cipher->key_len != CHACHA_KEY_SIZE) {
		err = -EINVAL;
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(c->hp->chacha); i++)
		c->hp->chacha[i] = get_unaligned_le32(key + i * sizeof(u32));
out:
	memzero_explicit(key, sizeof(key));
	return err;
}

/* Load the AEAD key derived from @k's secret into its transforms. */
static int quic_crypto_key_load(struct quic_crypto *c,
				struct quic_crypto_key *k)
{
	const struct quic_labels *l = quic_crypto_labels(c->version);
	u8 key[QUIC_CRYPTO_KEY_MAX_LEN];
	int err;

	err = quic_hkdf_expand_label(c->hash, k->secret, c->secret_len, l->key,
				     key, c->key_len);
	if (!err)
		err = crypto_aead_setkey(k->aead, key, c->key_len);
	if (!err && k->aead_sync)
		err = crypto_aead_setkey(k->aead_sync, key, c->key_len);
	memzero_explicit(key, sizeof(key));
	return err;
}

/* Give the ready key @k transforms holding its key, if it has none. On
 * error it keeps none, and the GCM of this file protects with it.
 */
static int quic_crypto_key_attach(struct quic_crypto *c,
				  struct quic_crypto_key *k)
{
	int err;

	if (k->aead)
		return 0;
	err = quic_crypto_alloc_key(k, quic_cipher_find(c->cipher_type));
	if (!err)
		err = quic_crypto_key_load(c, k);
	if (err)
		quic_crypto_key_detach(k);
	return err;
}

/* Take @secret into @k, derive its IV and, when @k has transforms, load
 * its key.
 */
static int quic_crypto_install(struct quic_crypto *c,
			       struct quic_crypto_key *k, const u8 *secret)
{
	const struct quic_labels *l = quic_crypto_labels(c->version);
	int err = 0;

	k->ready = false;
	memcpy(k->secret, secret, c->secret_len);
	if (k->aead)
		err = quic_crypto_key_load(c, k);
	if (!err)
		err = quic_hkdf_expand_label(c->hash, secret, c->secret_len,
					     l->iv, k->iv, QUIC_CRYPTO_IV_LEN);
	if (err) {
		memzero_explicit(k->secret, sizeof(k->secret));
		return err;
	}
	k->ready = true;
	return 0;
}

/**
 * quic_crypto_set_secret() - install the keys of one level and direction
 * @c: the keys to set, zeroed or set before; any keys in it are released
 * @cipher_type: TLS_CIPHER_AES_GCM_128, TLS_CIPHER_AES_GCM_256,
 *	TLS_CIPHER_AES_CCM_128 or TLS_CIPHER_CHACHA20_POLY1305
 * @secret: the traffic secret from TLS
 * @secret_len: its length, which must be the cipher suite's hash size
 *	(48 for AES-256-GCM, 32 for the others)
 * @version: QUIC_VERSION_V1 or QUIC_VERSION_V2, which selects the labels
 *
 * Allocates the transforms and requests (GFP_KERNEL; the crypto API may
 * load modules): process context only.  The copies of secret material made
 * on the way are wiped; the caller wipes @secret.  On error @c is left
 * without keys.
 *
 * Return: 0; -EINVAL for an unknown cipher or version or a wrong secret
 * length; or the errno of the crypto API (-ENOENT if an algorithm is
 * missing, -ENOMEM).
 */
int quic_crypto_set_secret(struct quic_crypto *c, u32 cipher_type,
			   const u8 *secret, u32 secret_len, u32 version)
{
	const struct quic_cipher *cipher = quic_cipher_find(cipher_type);
	int err;

	quic_crypto_free(c);
	if (!cipher || !quic_crypto_labels(version) ||
	    secret_len != cipher->secret_len)
		return -EINVAL;

	err = quic_crypto_alloc(c, cipher);
	if (err)
		goto fail;
	c->version = version;
	c->secret_len = cipher->secret_len;
	c->key_len = cipher->key_len;
	err = quic_crypto_install(c, &c->key[c->cur], secret);
	if (!err)
		err = quic_crypto_hp_setkey(c, cipher, secret);
	if (err)
		goto fail;
	c->cipher_type = cipher_type;
	return 0;
fail:
	quic_crypto_free(c);
	return err;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_set_secret);

/**
 * quic_crypto_initial_keys() - derive the Initial keys (RFC 9001 5.2)
 * @rx: receive keys to set
 * @tx: transmit keys to set
 * @dcid: the Destination Connection ID of the client's first Initial
 * @dcid_len: its length, at most 20
 * @version: QUIC_VERSION_V1 or QUIC_VERSION_V2
 * @is_server: which side we are: the client sends with "client in"
 *
 * Process context only (see quic_crypto_set_secret()).
 *
 * Return: 0, -EINVAL for a bad version or length, or a crypto API errno.
 */
int quic_crypto_initial_keys(struct quic_crypto *rx, struct quic_crypto *tx,
			     const u8 *dcid, u8 dcid_len, u32 version,
			     bool is_server)
{
	u8 initial[SHA256_DIGEST_SIZE], client[SHA256_DIGEST_SIZE];
	u8 server[SHA256_DIGEST_SIZE];
	struct crypto_shash *tfm;
	const u8 *salt;
	int err;

	if (dcid_len > QUIC_CRYPTO_CID_MAX_LEN)
		return -EINVAL;
	salt = quic_crypto_initial_salt(version);
	if (!salt)
		return -EINVAL;

	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = quic_hkdf_extract(tfm, salt, QUIC_CRYPTO_SALT_LEN, dcid,
				dcid_len, initial);
	if (!err)
		err = quic_hkdf_expand_label(tfm, initial, sizeof(initial),
					     "client in", client,
					     sizeof(client));
	if (!err)
		err = quic_hkdf_expand_label(tfm, initial, sizeof(initial),
					     "server in", server,
					     sizeof(server));
	crypto_free_shash(tfm);
	if (!err)
		err = quic_crypto_set_secret(rx, TLS_CIPHER_AES_GCM_128,
					     is_server ? client : server,
					     SHA256_DIGEST_SIZE, version);
	if (!err)
		err = quic_crypto_set_secret(tx, TLS_CIPHER_AES_GCM_128,
					     is_server ? server : client,
					     SHA256_DIGEST_SIZE, version);
	if (err) {
		quic_crypto_free(rx);
		quic_crypto_free(tx);
	}
	memzero_explicit(initial, sizeof(initial));
	memzero_explicit(client, sizeof(client));
	memzero_explicit(server, sizeof(server));
	return err;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_initial_keys);

/**
 * quic_crypto_key_update_prepare() - derive the next key phase's keys
 * @c: 1-RTT keys of one direction
 *
 * Derives the next secret from the current one with the "quic ku"
 * ("quicv2 ku") label (RFC 9001 6.1) and its IV, so that
 * quic_crypto_key_update() and quic_crypto_aead_decrypt() can switch to them
 * without sleeping.  Call it when the keys are installed and again after
 * every key update; RFC 9001 6.3 asks for the next keys to be ready before
 * they are needed, so that a key update shows no timing difference.
 *
 * Transforms are made on demand: an AES-GCM key gets them when it becomes
 * the current one, here, after the update (until then the GCM of crypto.c
 * protects with it, without a transform); the other ciphers' next keys get
 * them now.  An idle connection so keeps one AEAD transform per direction.
 *
 * Process context only: transforms are allocated here, and some AEAD
 * implementations allocate in setkey (the generic GCM does).  Nothing is
 * done when the current keys have their transforms and the next keys are
 * ready.
 *
 * Return: 0, -ENOKEY without keys, or a crypto API errno.
 */
int quic_crypto_key_update_prepare(struct quic_crypto *c)
{
	const struct quic_cipher *cipher = quic_cipher_find(c->cipher_type);
	struct quic_crypto_key *next = &c->key[c->next];
	u8 secret[QUIC_CRYPTO_SECRET_MAX_LEN];
	const struct quic_labels *l;
	int err;

	if (!quic_crypto_ready(c))
		return -ENOKEY;
	err = quic_crypto_key_attach(c, &c->key[c->cur]);
	if (err || next->ready)
		return err;
	/* The slot of the keys before the previous ones, if any. */
	if (quic_cipher_is_gcm(c->cipher_type))
		quic_crypto_key_detach(next);
	else
		err = quic_crypto_alloc_key(next, cipher);
	if (err) {
		quic_crypto_key_detach(next);
		return err;
	}
	l = quic_crypto_labels(c->version);
	err = quic_hkdf_expand_label(c->hash, c->key[c->cur].secret,
				     c->secret_len, l->ku, secret,
				     c->secret_len);
	if (!err)
		err = quic_crypto_install(c, next, secret);
	memzero_explicit(secret, sizeof(secret));
	return err;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_key_update_prepare);

/**
 * quic_crypto_key_update() - switch to the next key phase (RFC 9001 6)
 * @c: 1-RTT keys of one direction, with the next keys prepared
 *
 * The current keys become the previous ones (still used by
 * quic_crypto_aead_decrypt() for reordered packets), the prepared keys
 * become current and the Key Phase bit flips.  The keys that were previous
 * are wiped; their slot waits for the next quic_crypto_key_update_prepare().
 * The header protection key does not change.  Does not sleep or allocate.
 *
 * A sender calls it to initiate an update, or to follow the peer's;
 * quic_crypto_aead_decrypt() calls it itself on the receive side.
 *
 * Return: 0, or -ENOKEY when the next keys are not prepared.
 */
int quic_crypto_key_update(struct quic_crypto *c)
{
	struct quic_crypto_key *old = &c->key[c->prev];
	u8 slot = c->prev;

	if (!quic_crypto_ready(c) || !c->key[c->next].ready)
		return -ENOKEY;
	old->ready = false;
	memzero_explicit(old->secret, sizeof(old->secret));
	memzero_explicit(old->iv, sizeof(old->iv));
	c->prev = c->cur;
	c->cur = c->next;
	c->next = slot;
	c->key_phase = !c->key_phase;
	c->phase_min_pn = U64_MAX;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_key_update);

/* The nonce: the IV XOR the packet number, left-padded (RFC 9001 5.3). */
static void quic_crypto_nonce(u8 *nonce, const u8 *iv, u64 pn)
{
	unsigned int i;

	memcpy(nonce, iv, QUIC_CRYPTO_IV_LEN);
	for (i = 0; i < sizeof(pn); i++)
		nonce[QUIC_CRYPTO_IV_LEN - 1 - i] ^= (u8)(pn >> (8 * i));
}

/* May the caller wait for an asynchronous request?  Process context that
 * can be preempted can; softirq, timers and any section with preemption or
 * BHs disabled cannot.  Without CONFIG_PREEMPT_COUNT preemptible() is
 * always false and everything takes the synchronous transform.  With
 * preemptible RCU an rcu_read_lock() section passes this test: no caller
 * protects packets inside one (the packet paths run under the socket lock).
 */
static bool quic_crypto_may_sleep(void)
{
	return in_task() && preemptible();
}

/* GHASH (NIST SP 800-38D 6.4) of @len bytes at @p, the last block padded
 * with zeros, into @y under the hash key @h; bitwise, no table.
 */
static void quic_gcm_ghash(be128 *y, const be128 *h, const u8 *p, u32 len)
{
	u8 b[AES_BLOCK_SIZE];
	u32 n;

	while (len) {
		n = min_t(u32, len, AES_BLOCK_SIZE);
		memset(b, 0, sizeof(b));
		memcpy(b, p, n);
		crypto_xor((u8 *)y, b, AES_BLOCK_SIZE);
		gf128mul_lle(y, h);
		p += n;
		len -= n;
	}
}

/* GCTR (SP 800-38D 6.5) over @len bytes at @p in place, the first counter
 * block being inc32(@ctr).
 */
static void quic_gcm_ctr(const struct crypto_aes_ctx *aes, u8 *ctr, u8 *p,
			 u32 len)
{
	u8 ks[AES_BLOCK_SIZE];
	u32 n;

	while (len) {
		n = min_t(u32, len, AES_BLOCK_SIZE);
		put_unaligned_be32(get_unaligned_be32(ctr + 12) + 1, ctr + 12);
		aes_encrypt(aes, ks, ctr);
		crypto_xor(p, ks, n);
		p += n;
		len -= n;
	}
	memzero_explicit(ks, sizeof(ks));
}

/* AES-GCM over @k without its transform, for atomic context while the FPU
 * is taken: the key is derived again from @k's secret and expanded for the
 * AES library, on the stack.  Slow (a bitwise GHASH), and rare.  The tag is
 * checked before anything is decrypted.
 */
static int quic_crypto_aead_soft(struct quic_crypto *c,
				 struct quic_crypto_key *k, u8 *pkt,
				 u32 hdr_len, u64 pn, u32 cryptlen, bool enc)
{
	const struct quic_labels *l = quic_crypto_labels(c->version);
	u32 len = enc ? cryptlen : cryptlen - QUIC_CRYPTO_TAG_LEN;
	u8 j0[AES_BLOCK_SIZE], ctr[AES_BLOCK_SIZE], s[AES_BLOCK_SIZE];
	u8 key[QUIC_CRYPTO_KEY_MAX_LEN], *data = pkt + hdr_len;
	struct crypto_aes_ctx aes;
	be128 h = {}, y = {};
	int err;

	err = quic_hkdf_expand_label(c->hash, k->secret, c->secret_len, l->key,
				     key, c->key_len);
	if (!err)
		err = aes_expandkey(&aes, key, c->key_len);
	if (err)
		goto out;
	aes_encrypt(&aes, (u8 *)&h, (u8 *)&h);
	quic_crypto_nonce(j0, k->iv, pn);
	put_unaligned_be32(1, j0 + QUIC_CRYPTO_IV_LEN);

	quic_gcm_ghash(&y, &h, pkt, hdr_len);
	if (enc) {
		memcpy(ctr, j0, sizeof(ctr));
		quic_gcm_ctr(&aes, ctr, data, len);
	}
	quic_gcm_ghash(&y, &h, data, len);
	put_unaligned_be64((u64)hdr_len * 8, s);
	put_unaligned_be64((u64)len * 8, s + 8);
	quic_gcm_ghash(&y, &h, s, sizeof(s));
	aes_encrypt(&aes, s, j0);
	crypto_xor(s, (u8 *)&y, sizeof(s));
	if (enc) {
		memcpy(data + len, s, QUIC_CRYPTO_TAG_LEN);
	} else if (crypto_memneq(data + len, s, QUIC_CRYPTO_TAG_LEN)) {
		err = -EBADMSG;
	} else {
		memcpy(ctr, j0, sizeof(ctr));
		quic_gcm_ctr(&aes, ctr, data, len);
	}
out:
	memzero_explicit(&aes, sizeof(aes));
	memzero_explicit(key, sizeof(key));
	memzero_explicit(&h, sizeof(h));
	memzero_explicit(&y, sizeof(y));
	memzero_explicit(s, sizeof(s));
	memzero_explicit(ctr, sizeof(ctr));
	return err;
}

static bool quic_crypto_test_soft;

/**
 * quic_crypto_test_force_soft() - take the transform-less GCM in atomic
 * context, as when the FPU is taken
 * @on: true to force it, false for the normal choice
 *
 * For the KUnit tests only.
 */
void quic_crypto_test_force_soft(bool on)
{
	WRITE_ONCE(quic_crypto_test_soft, on);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_test_force_soft);

/* Gather the @len bytes that @src lists into @pkt, for an AEAD in place:
 * the entries that are not @pkt's own bytes are copied.
 */
static void quic_crypto_gather(struct scatterlist *src, u8 *pkt, u32 len)
{
	struct scatterlist *sg;
	u32 pos = 0, n;

	for (sg = src; sg && pos < len; sg = sg_next(sg)) {
		n = min(sg->length, len - pos);
		if (PageHighMem(sg_page(sg)))
			memcpy_from_page(pkt + pos, sg_page(sg), sg->offset, n);
		else if (sg_virt(sg) != pkt + pos)
			memcpy(pkt + pos, sg_virt(sg), n);
		pos += n;
	}
}

/* AEAD over @pkt: @hdr_len bytes of associated data followed by
 * @cryptlen bytes to encrypt or decrypt (with the tag when decrypting),
 * in place; or, with @src, read from @src (which lists the header in
 * @pkt itself first) and written to @pkt.
 */
static int quic_crypto_aead(struct quic_crypto *c, struct quic_crypto_key *k,
			    u8 *pkt, struct scatterlist *src, u32 hdr_len,
			    u64 pn, u32 cryptlen, bool enc)
{
	struct aead_request *req = k->req;
	u8 iv[QUIC_CCM_IV_LEN] = {};
	DECLARE_CRYPTO_WAIT(wait);
	bool async = false, soft = false;
	struct scatterlist sg;
	int err;

	if (!k->aead) {
		/* Keys of a new phase, before they get their transform. */
		soft = true;
	} else if (quic_crypto_may_sleep()) {
		async = k->async;
	} else if (k->aead_sync) {
		req = k->req_sync;
	} else if (quic_cipher_is_gcm(c->cipher_type)) {
		/* The SIMD wrapper would queue to cryptd: no waiting here. */
		soft = (k->async && !crypto_simd_usable()) ||
		       READ_ONCE(quic_crypto_test_soft);
	}
	if (soft) {
		if (!quic_cipher_is_gcm(c->cipher_type))
			return -ENOKEY;
		if (src)
			quic_crypto_gather(src, pkt, hdr_len + cryptlen);
		return quic_crypto_aead_soft(c, k, pkt, hdr_len, pn, cryptlen,
					     enc);
	}
	if (c->cipher_type == TLS_CIPHER_AES_CCM_128) {
		/* ccm(aes) takes L - 1 in iv[0]: a 12-byte nonce leaves
		 * L = 3 bytes of counter.
		 */
		iv[0] = 15 - QUIC_CRYPTO_IV_LEN - 1;
		quic_crypto_nonce(&iv[1], k->iv, pn);
	} else {
		quic_crypto_nonce(iv, k->iv, pn);
	}

	sg_init_one(&sg, pkt, hdr_len + cryptlen +
		    (enc ? QUIC_CRYPTO_TAG_LEN : 0));
	aead_request_set_crypt(req, src ?: &sg, &sg, cryptlen, iv);
	aead_request_set_ad(req, hdr_len);
	if (async)
		aead_request_set_callback(req, CRYPTO_TFM_REQ_MAY_BACKLOG |
					  CRYPTO_TFM_REQ_MAY_SLEEP,
					  crypto_req_done, &wait);
	else
		aead_request_set_callback(req, 0, NULL, NULL);
	err = enc ? crypto_aead_encrypt(req) : crypto_aead_decrypt(req);
	if (async)
		err = crypto_wait_req(err, &wait);
	/* Inline in atomic context, by the reasoning at the top. */
	WARN_ON_ONCE(err == -EINPROGRESS || err == -EBUSY);
	memzero_explicit(iv, sizeof(iv));
	return err;
}

/* The header protection mask of @sample (RFC 9001 5.4.3 and 5.4.4). */
static void quic_crypto_hp_mask(const struct quic_crypto *c, const u8 *sample,
				u8 *mask)
{
	u32 state[CHACHA_STATE_WORDS];
	u8 block[AES_BLOCK_SIZE];

	if (c->cipher_type != TLS_CIPHER_CHACHA20_POLY1305) {
		aes_encrypt(&c->hp->aes, block, sample);
		memcpy(mask, block, QUIC_HP_MASK_LEN);
		return;
	}
	/* The library's IV is the 32-bit little-endian block counter then
	 * the 96-bit nonce: exactly the sample.  The mask is the encryption
	 * of five zero bytes.
	 */
	chacha_init(state, c->hp->chacha, sample);
	memset(mask, 0, QUIC_HP_MASK_LEN);
	chacha20_crypt(state, mask, mask, QUIC_HP_MASK_LEN);
	memzero_explicit(state, sizeof(state));
}

/* Long headers protect the low 4 bits of the first byte, short headers 5. */
static u8 quic_crypto_first_byte_mask(u8 first)
{
	return (first & 0x80) ? 0x0f : 0x1f;
}

/**
 * quic_crypto_encrypt() - protect a packet in place
 * @c: transmit keys
 * @pkt: the packet: @hdr_len bytes of header ending with the packet number,
 *	then @payload_len bytes of plaintext, then room for the 16-byte tag
 * @hdr_len: header length including the packet number
 * @pn_len: encoded packet number length, 1 to 4, which must agree with the
 *	low two bits of the first byte
 * @pn: the full packet number, for the nonce
 * @payload_len: plaintext length
 *
 * Encrypts the payload (the header is the associated data), writes the tag
 * after it, then applies header protection.  For a short header it first
 * sets the Key Phase bit to @c's current phase.  The packet must be long
 * enough for the header protection sample: @pn_len + @payload_len >= 4.
 * Does not allocate; callable in softirq context.
 *
 * Return: 0, -ENOKEY without keys, -EINVAL for inconsistent lengths, or a
 * crypto API errno.
 */
int quic_crypto_encrypt(struct quic_crypto *c, u8 *pkt, u32 hdr_len,
			u32 pn_len, u64 pn, u32 payload_len)
{
	return quic_crypto_encrypt_sg(c, pkt, NULL, hdr_len, pn_len, pn,
				      payload_len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_encrypt);

/**
 * quic_crypto_encrypt_sg() - protect a packet whose plaintext is elsewhere
 * @c: transmit keys
 * @pkt: where the packet goes: its header, then room for the payload and
 *	the tag
 * @src: the header and the plaintext, @hdr_len + @payload_len bytes;
 *	the first entry starts at @pkt, so that the Key Phase bit set there
 *	is authenticated. Entries may be @pkt's own bytes. NULL: the
 *	plaintext is in @pkt (quic_crypto_encrypt()).
 * @hdr_len: header length including the packet number
 * @pn_len: encoded packet number length, 1 to 4
 * @pn: the full packet number, for the nonce
 * @payload_len: plaintext length
 *
 * As quic_crypto_encrypt(), but the AEAD reads the plaintext from @src and
 * writes the ciphertext to @pkt: a payload kept elsewhere (data queued on
 * a stream, to be sent again if lost) is not copied into the packet first.
 *
 * Return: as quic_crypto_encrypt().
 */
int quic_crypto_encrypt_sg(struct quic_crypto *c, u8 *pkt,
			   struct scatterlist *src, u32 hdr_len, u32 pn_len,
			   u64 pn, u32 payload_len)
{
	u8 mask[QUIC_HP_MASK_LEN];
	u32 pn_offset, i;
	int err;

	if (!quic_crypto_ready(c))
		return -ENOKEY;
	if (pn_len < 1 || pn_len > QUIC_CRYPTO_PN_MAX_LEN ||
	    hdr_len <= pn_len || (pkt[0] & 0x03) + 1 != pn_len)
		return -EINVAL;
	pn_offset = hdr_len - pn_len;
	if ((u64)hdr_len + payload_len + QUIC_CRYPTO_TAG_LEN > U32_MAX ||
	    pn_len + payload_len < QUIC_CRYPTO_SAMPLE_OFFSET)
		return -EINVAL;

	if (!(pkt[0] & 0x80)) {
		pkt[0] &= ~QUIC_CRYPTO_KEY_PHASE_BIT;
		if (c->key_phase)
			pkt[0] |= QUIC_CRYPTO_KEY_PHASE_BIT;
	}
	err = quic_crypto_aead(c, &c->key[c->cur], pkt, src, hdr_len, pn,
			       payload_len, true);
	if (err)
		return err;
	quic_crypto_hp_mask(c, pkt + pn_offset + QUIC_CRYPTO_SAMPLE_OFFSET,
			    mask);
	pkt[0] ^= mask[0] & quic_crypto_first_byte_mask(pkt[0]);
	for (i = 0; i < pn_len; i++)
		pkt[pn_offset + i] ^= mask[1 + i];
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_encrypt_sg);

/**
 * quic_crypto_hp_remove() - remove header protection in place
 * @c: receive keys
 * @pkt: the packet
 * @len: its length (for a long header, up to the end of its Length field's
 *	payload, not the whole datagram)
 * @pn_offset: offset of the packet number field (long header: after the
 *	Length field; short header: 1 + DCID length)
 * @pn_len: output, the packet number length, 1 to 4
 * @truncated_pn: output, the packet number as encoded, for the caller to
 *	expand against the largest one received (RFC 9000 A.3)
 *
 * Unmasks the first byte and the packet number.  The reserved bits are
 * the caller's to check, after the payload has been authenticated.
 * Does not allocate; callable in softirq context.
 *
 * Return: 0, -ENOKEY without keys, or -EINVAL when @len is too short to
 * hold the sample (@pn_offset + 4 + 16 bytes).
 */
int quic_crypto_hp_remove(struct quic_crypto *c, u8 *pkt, u32 len,
			  u32 pn_offset, u32 *pn_len, u32 *truncated_pn)
{
	u8 mask[QUIC_HP_MASK_LEN];
	u32 i, n, pn = 0;

	if (!quic_crypto_ready(c))
		return -ENOKEY;
	if (!pn_offset || len < QUIC_CRYPTO_SAMPLE_OFFSET +
				 QUIC_CRYPTO_SAMPLE_LEN ||
	    pn_offset > len - QUIC_CRYPTO_SAMPLE_OFFSET -
			QUIC_CRYPTO_SAMPLE_LEN)
		return -EINVAL;
	quic_crypto_hp_mask(c, pkt + pn_offset + QUIC_CRYPTO_SAMPLE_OFFSET,
			    mask);
	pkt[0] ^= mask[0] & quic_crypto_first_byte_mask(pkt[0]);
	n = (pkt[0] & 0x03) + 1;
	for (i = 0; i < n; i++) {
		pkt[pn_offset + i] ^= mask[1 + i];
		pn = (pn << 8) | pkt[pn_offset + i];
	}
	*pn_len = n;
	*truncated_pn = pn;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_hp_remove);

/* The body of quic_crypto_aead_decrypt() and _sg(). */
static int __quic_crypto_aead_decrypt(struct quic_crypto *c, u8 *pkt,
				      struct scatterlist *src, u32 hdr_len,
				      u64 pn, u32 len)
{
	struct quic_crypto_key *k;
	bool update = false;
	int err;

	if (!quic_crypto_ready(c))
		return -ENOKEY;
	if (!hdr_len || (u64)hdr_len + QUIC_CRYPTO_TAG_LEN > len)
		return -EINVAL;
	k = &c->key[c->cur];
	if (!(pkt[0] & 0x80) &&
	    !!(pkt[0] & QUIC_CRYPTO_KEY_PHASE_BIT) != c->key_phase) {
		if (pn < c->phase_min_pn) {
			k = &c->key[c->prev];
		} else {
			k = &c->key[c->next];
			update = true;
		}
	}
	if (!k->ready)
		return -ENOKEY;
	err = quic_crypto_aead(c, k, pkt, src, hdr_len, pn, len - hdr_len,
			       false);
	if (err) {
		/* The tag stays: it may be a Stateless Reset's token
		 * (quic_close_reset_check()).
		 */
		memset(pkt + hdr_len, 0, len - hdr_len - QUIC_CRYPTO_TAG_LEN);
		return err;
	}
	if (update) {
		quic_crypto_key_update(c);
		c->phase_min_pn = pn;
		return QUIC_CRYPTO_KEY_UPDATED;
	}
	if (k == &c->key[c->cur] && pn < c->phase_min_pn)
		c->phase_min_pn = pn;
	return 0;
}

/**
 * quic_crypto_aead_decrypt() - authenticate and decrypt a payload in place
 * @c: receive keys
 * @pkt: the packet, header protection already removed
 * @hdr_len: header length including the packet number
 * @pn: the full packet number
 * @len: packet length: header, ciphertext and the 16-byte tag
 *
 * Long headers use the current keys.  A short header whose Key Phase bit
 * differs from the current phase is opened with the previous keys when its
 * packet number is below every one received in the current phase, and
 * otherwise with the next keys (RFC 9001 6.3 and 6.5): if those open it,
 * @c moves to the next phase as by quic_crypto_key_update() and the caller
 * must update its send keys and prepare the next keys of both directions.
 *
 * The plaintext is left at @pkt + @hdr_len, @len - @hdr_len - 16 bytes
 * long.  When the tag does not match, the payload is wiped and the tag
 * left as it came (a Stateless Reset ends in its token).  Does not
 * sleep or allocate; callable in softirq context.
 *
 * Return: 0; QUIC_CRYPTO_KEY_UPDATED when the packet started the next key
 * phase; -EBADMSG when authentication fails; -ENOKEY without keys for the
 * packet's phase; -EINVAL when @len is shorter than the header and tag.
 */
int quic_crypto_aead_decrypt(struct quic_crypto *c, u8 *pkt, u32 hdr_len,
			     u64 pn, u32 len)
{
	return __quic_crypto_aead_decrypt(c, pkt, NULL, hdr_len, pn, len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_aead_decrypt);

/**
 * quic_crypto_aead_decrypt_sg() - authenticate and decrypt a payload read
 *	from elsewhere
 * @c: receive keys
 * @pkt: where the packet is written: its header, protection removed, is
 *	there already, and @len bytes fit
 * @src: the packet to read: @hdr_len bytes of header (@pkt itself) then
 *	the ciphertext and tag, wherever they lie (a page fragment that
 *	others may share: it is only read)
 * @hdr_len: header length including the packet number
 * @pn: the full packet number
 * @len: packet length: header, ciphertext and the 16-byte tag
 *
 * As quic_crypto_aead_decrypt(), the plaintext written after the header
 * in @pkt, and wiped there if the tag does not match (the tag is not
 * copied to @pkt then).
 *
 * Return: as quic_crypto_aead_decrypt().
 */
int quic_crypto_aead_decrypt_sg(struct quic_crypto *c, u8 *pkt,
				struct scatterlist *src, u32 hdr_len, u64 pn,
				u32 len)
{
	return __quic_crypto_aead_decrypt(c, pkt, src, hdr_len, pn, len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_aead_decrypt_sg);

/* The Retry integrity transforms, v1 and v2: keyed once with the fixed
 * keys and only read after, so every socket shares them, in any context.
 */
static struct crypto_aead *quic_retry_tfm[2];
static DEFINE_MUTEX(quic_retry_mutex);

/**
 * quic_crypto_retry_init() - make the Retry integrity transforms
 *
 * Process context; called by listen() and connect() (and the tests)
 * before a Retry can be sent or received.  Made once, freed at module
 * unload by quic_crypto_retry_exit().
 *
 * Return: 0 or a crypto API errno.
 */
int quic_crypto_retry_init(void)
{
	static const u8 *keys[] = { quic_retry_key_v1, quic_retry_key_v2 };
	struct crypto_aead *tfm;
	int err = 0, i;

	if (READ_ONCE(quic_retry_tfm[1]))
		return 0;
	mutex_lock(&quic_retry_mutex);
	for (i = 0; i < ARRAY_SIZE(quic_retry_tfm) && !err; i++) {
		if (quic_retry_tfm[i])
			continue;
		tfm = crypto_alloc_aead("gcm(aes)", 0, CRYPTO_ALG_ASYNC);
		if (IS_ERR(tfm)) {
			err = PTR_ERR(tfm);
			break;
		}
		err = crypto_aead_setkey(tfm, keys[i],
					 sizeof(quic_retry_key_v1));
		if (!err)
			err = crypto_aead_setauthsize(tfm, QUIC_CRYPTO_TAG_LEN);
		if (err) {
			crypto_free_aead(tfm);
			break;
		}
		/* Published keyed: readers test it without the mutex. */
		smp_store_release(&quic_retry_tfm[i], tfm);
	}
	mutex_unlock(&quic_retry_mutex);
	return err;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_retry_init);

/**
 * quic_crypto_retry_exit() - free the Retry integrity transforms
 *
 * At module unload, when no socket is left.
 */
void quic_crypto_retry_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(quic_retry_tfm); i++) {
		crypto_free_aead(quic_retry_tfm[i]);
		quic_retry_tfm[i] = NULL;
	}
}

/**
 * quic_crypto_retry_tag() - compute a Retry Integrity Tag (RFC 9001 5.8)
 * @tag: output, 16 bytes
 * @odcid: the Original Destination Connection ID
 * @odcid_len: its length, at most 20
 * @pkt: the Retry packet without its tag
 * @len: its length
 * @version: QUIC_VERSION_V1 or QUIC_VERSION_V2
 *
 * The tag is the AES-128-GCM tag, under the version's fixed key and nonce,
 * of an empty plaintext with the Retry pseudo-packet (ODCID length, ODCID,
 * Retry packet) as associated data.  To verify a tag, compare with
 * crypto_memneq().  Any context, after quic_crypto_retry_init().
 *
 * Return: 0, -EINVAL for a bad version or length, -EAGAIN before
 * quic_crypto_retry_init(), -ENOMEM, or a crypto API errno.
 */
int quic_crypto_retry_tag(u8 *tag, const u8 *odcid, u8 odcid_len,
			  const u8 *pkt, u32 len, u32 version)
{
	struct crypto_aead *tfm;
	struct aead_request *req;
	struct scatterlist sg;
	u8 iv[QUIC_CRYPTO_IV_LEN];
	const u8 *nonce;
	u32 plen;
	u8 *buf;
	int err;

	switch (version) {
	case QUIC_VERSION_V1:
		/* Pairs with quic_crypto_retry_init(): a keyed transform. */
		tfm = smp_load_acquire(&quic_retry_tfm[0]);
		nonce = quic_retry_nonce_v1;
		break;
	case QUIC_VERSION_V2:
		tfm = smp_load_acquire(&quic_retry_tfm[1]);	/* the same */
		nonce = quic_retry_nonce_v2;
		break;
	default:
		return -EINVAL;
	}
	if (odcid_len > QUIC_CRYPTO_CID_MAX_LEN || !len || len > U16_MAX)
		return -EINVAL;
	if (!tfm)
		return -EAGAIN;

	/* The request and the pseudo-packet in one allocation. */
	plen = 1 + odcid_len + len;
	req = kmalloc(sizeof(*req) + crypto_aead_reqsize(tfm) + plen +
		      QUIC_CRYPTO_TAG_LEN, GFP_ATOMIC);
	if (!req)
		return -ENOMEM;
	buf = (u8 *)req + sizeof(*req) + crypto_aead_reqsize(tfm);
	buf[0] = odcid_len;
	memcpy(buf + 1, odcid, odcid_len);
	memcpy(buf + 1 + odcid_len, pkt, len);
	memcpy(iv, nonce, sizeof(iv));

	sg_init_one(&sg, buf, plen + QUIC_CRYPTO_TAG_LEN);
	aead_request_set_tfm(req, tfm);
	aead_request_set_callback(req, 0, NULL, NULL);
	aead_request_set_crypt(req, &sg, &sg, 0, iv);
	aead_request_set_ad(req, plen);
	err = crypto_aead_encrypt(req);
	if (!err)
		memcpy(tag, buf + plen, QUIC_CRYPTO_TAG_LEN);
	kfree_sensitive(req);
	return err;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_crypto_retry_tag);
