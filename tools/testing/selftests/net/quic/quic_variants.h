/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The variant table of the QUIC selftests: the address families and the
 * cipher suites the suites run over, written once. Every fixture that
 * runs per family, or per family and something else, takes its variants
 * from here, so a new family or cipher suite is added in this file only.
 *
 * A fixture includes this file once, after kselftest_harness.h, with
 * QUIC_FIXTURE naming it and one QUIC_VARIANTS_* saying which set:
 *
 *	#define QUIC_FIXTURE		conn
 *	#define QUIC_VARIANTS_FAMILY
 *	#include <this file>
 *
 * The include adds the variants and #undefs both. The sets, each with
 * the members its FIXTURE_VARIANT() must have:
 *
 *	QUIC_VARIANTS_FAMILY	ipv4, ipv6: int family
 *	QUIC_VARIANTS_SOCK_TYPE	ipv4_stream, ipv4_dgram, ipv6_...: int
 *				family and int type, a SOCK_* socket type
 *	QUIC_VARIANTS_ROLE	ipv4_client, ipv4_server, ipv6_...: int
 *				family and bool server
 *	QUIC_VARIANTS_CIPHER	ipv4_aes_128_gcm ... ipv6_chacha20_poly1305:
 *				int family, unsigned int type (TLS_CIPHER_*),
 *				const char *prio (GnuTLS priority name),
 *				int gnutls (gnutls_cipher_algorithm_t) and
 *				bool psk (a SHA-256 PSK can select it)
 *	QUIC_VARIANTS_CIPHER_ALL	the same and ipv4_aes_128_ccm,
 *				ipv6_aes_128_ccm
 *
 * The families vary outermost, in the order above. The QUIC version is
 * not a variant: the tests of version negotiation (handshake.c) choose
 * versions test by test, the others run libquic's first offer (v1).
 */

#ifndef _QUIC_SELFTEST_VARIANTS_H
#define _QUIC_SELFTEST_VARIANTS_H

/* FIXTURE_VARIANT_ADD() pastes its arguments: expand QUIC_FIXTURE first. */
#define QUIC_VARIANT_ADD(fixture, name) FIXTURE_VARIANT_ADD(fixture, name)
#define QUIC_VARIANT_ADD2(fixture, fam, what) \
	FIXTURE_VARIANT_ADD(fixture, fam##_##what)

/* The families. */
#define QUIC_IPV4	.family = AF_INET
#define QUIC_IPV6	.family = AF_INET6

/*
 * The cipher suites. TLS 1.3 binds a PSK to one hash (RFC 8446 4.2.11)
 * and GnuTLS 3.7 makes every PSK a SHA-256 one, so TLS_AES_256_GCM_SHA384
 * alone cannot be agreed with a PSK. AES-128-CCM is run by the handshake
 * tests only (QUIC_VARIANTS_CIPHER_ALL): the suites that drive GnuTLS
 * themselves (compat.c, resume.c) run the other three.
 */
#define QUIC_AES_128_GCM						\
	.type = TLS_CIPHER_AES_GCM_128, .prio = "AES-128-GCM",		\
	.gnutls = GNUTLS_CIPHER_AES_128_GCM, .psk = true
#define QUIC_AES_256_GCM						\
	.type = TLS_CIPHER_AES_GCM_256, .prio = "AES-256-GCM",		\
	.gnutls = GNUTLS_CIPHER_AES_256_GCM, .psk = false
#define QUIC_CHACHA20_POLY1305						\
	.type = TLS_CIPHER_CHACHA20_POLY1305,				\
	.prio = "CHACHA20-POLY1305",					\
	.gnutls = GNUTLS_CIPHER_CHACHA20_POLY1305, .psk = true
#define QUIC_AES_128_CCM						\
	.type = TLS_CIPHER_AES_CCM_128, .prio = "AES-128-CCM",		\
	.gnutls = GNUTLS_CIPHER_AES_128_CCM, .psk = true

#endif /* _QUIC_SELFTEST_VARIANTS_H */

/* The table: no include guard below, it is expanded once per fixture. */
#ifdef QUIC_FIXTURE

#ifdef QUIC_VARIANTS_FAMILY
QUIC_VARIANT_ADD(QUIC_FIXTURE, ipv4) { QUIC_IPV4 };
QUIC_VARIANT_ADD(QUIC_FIXTURE, ipv6) { QUIC_IPV6 };
#endif

#ifdef QUIC_VARIANTS_SOCK_TYPE
QUIC_VARIANT_ADD(QUIC_FIXTURE, ipv4_stream) { QUIC_IPV4, .type = SOCK_STREAM };
QUIC_VARIANT_ADD(QUIC_FIXTURE, ipv4_dgram) { QUIC_IPV4, .type = SOCK_DGRAM };
QUIC_VARIANT_ADD(QUIC_FIXTURE, ipv6_stream) { QUIC_IPV6, .type = SOCK_STREAM };
QUIC_VARIANT_ADD(QUIC_FIXTURE, ipv6_dgram) { QUIC_IPV6, .type = SOCK_DGRAM };
#endif

#ifdef QUIC_VARIANTS_ROLE
QUIC_VARIANT_ADD(QUIC_FIXTURE, ipv4_client) { QUIC_IPV4, .server = false };
QUIC_VARIANT_ADD(QUIC_FIXTURE, ipv4_server) { QUIC_IPV4, .server = true };
QUIC_VARIANT_ADD(QUIC_FIXTURE, ipv6_client) { QUIC_IPV6, .server = false };
QUIC_VARIANT_ADD(QUIC_FIXTURE, ipv6_server) { QUIC_IPV6, .server = true };
#endif

#if defined(QUIC_VARIANTS_CIPHER) || defined(QUIC_VARIANTS_CIPHER_ALL)
QUIC_VARIANT_ADD2(QUIC_FIXTURE, ipv4, aes_128_gcm) { QUIC_IPV4, QUIC_AES_128_GCM };
QUIC_VARIANT_ADD2(QUIC_FIXTURE, ipv4, aes_256_gcm) { QUIC_IPV4, QUIC_AES_256_GCM };
QUIC_VARIANT_ADD2(QUIC_FIXTURE, ipv4, chacha20_poly1305) {
	QUIC_IPV4, QUIC_CHACHA20_POLY1305
};

#ifdef QUIC_VARIANTS_CIPHER_ALL
QUIC_VARIANT_ADD2(QUIC_FIXTURE, ipv4, aes_128_ccm) { QUIC_IPV4, QUIC_AES_128_CCM };
#endif
QUIC_VARIANT_ADD2(QUIC_FIXTURE, ipv6, aes_128_gcm) { QUIC_IPV6, QUIC_AES_128_GCM };
QUIC_VARIANT_ADD2(QUIC_FIXTURE, ipv6, aes_256_gcm) { QUIC_IPV6, QUIC_AES_256_GCM };
QUIC_VARIANT_ADD2(QUIC_FIXTURE, ipv6, chacha20_poly1305) {
	QUIC_IPV6, QUIC_CHACHA20_POLY1305
};

#ifdef QUIC_VARIANTS_CIPHER_ALL
QUIC_VARIANT_ADD2(QUIC_FIXTURE, ipv6, aes_128_ccm) { QUIC_IPV6, QUIC_AES_128_CCM };
#endif
#endif

#undef QUIC_FIXTURE
#undef QUIC_VARIANTS_FAMILY
#undef QUIC_VARIANTS_SOCK_TYPE
#undef QUIC_VARIANTS_ROLE
#undef QUIC_VARIANTS_CIPHER
#undef QUIC_VARIANTS_CIPHER_ALL

#endif /* QUIC_FIXTURE */
