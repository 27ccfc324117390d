/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helpers shared by libquic's tests (tools/lib/quic) and the QUIC
 * kselftests: write a file, and make a self-signed certificate at test
 * time so no key material is kept in the tree.
 */
#ifndef _QUIC_TEST_CERT_H
#define _QUIC_TEST_CERT_H

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

/* Write @len bytes to @path; 0 on success, -1 on any failure. */
static inline int quic_test_write_file(const char *path, const void *data,
				       size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	if (fwrite(data, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

/*
 * A self-signed ECDSA P-256 certificate for "localhost" (common name and
 * DNS subject alternative name, so hostname checks pass), valid from an
 * hour ago for a day, with @extra more DNS names (a longer handshake
 * flight), written as PEM to @cert_path and its key to @key_path.
 * Return: 0 or -1.
 */
static inline int quic_test_make_cert_names(const char *cert_path,
					    const char *key_path, int extra)
{
	unsigned int bits = GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1);
	unsigned char serial[8] = { 0x01, 0x02, 0x03 };
	time_t now = time(NULL);
	gnutls_x509_privkey_t key;
	gnutls_x509_crt_t crt;
	gnutls_datum_t pem;
	char name[64];
	int ret, i;

	if (gnutls_x509_privkey_init(&key))
		return -1;
	if (gnutls_x509_crt_init(&crt)) {
		gnutls_x509_privkey_deinit(key);
		return -1;
	}
	ret = gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, bits, 0);
	ret = ret ?: gnutls_x509_crt_set_version(crt, 3);
	ret = ret ?: gnutls_x509_crt_set_serial(crt, serial, sizeof(serial));
	ret = ret ?: gnutls_x509_crt_set_activation_time(crt, now - 3600);
	ret = ret ?: gnutls_x509_crt_set_expiration_time(crt, now + 86400);
	ret = ret ?: gnutls_x509_crt_set_dn_by_oid(crt,
			GNUTLS_OID_X520_COMMON_NAME, 0, "localhost", 9);
	ret = ret ?: gnutls_x509_crt_set_subject_alt_name(crt,
			GNUTLS_SAN_DNSNAME, "localhost", 9, GNUTLS_FSAN_SET);
	for (i = 0; !ret && i < extra; i++) {
		snprintf(name, sizeof(name),
			 "name-%03d.a-longer-flight.example", i);
		ret = gnutls_x509_crt_set_subject_alt_name(crt,
							   GNUTLS_SAN_DNSNAME,
							   name, strlen(name),
							   GNUTLS_FSAN_APPEND);
	}
	ret = ret ?: gnutls_x509_crt_set_key(crt, key);
	ret = ret ?: gnutls_x509_crt_set_basic_constraints(crt, 1, -1);
	ret = ret ?: gnutls_x509_crt_set_key_usage(crt,
			GNUTLS_KEY_DIGITAL_SIGNATURE | GNUTLS_KEY_KEY_CERT_SIGN);
	ret = ret ?: gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0);
	if (!ret && !gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &pem)) {
		ret = quic_test_write_file(cert_path, pem.data, pem.size);
		gnutls_free(pem.data);
	} else {
		ret = -1;
	}
	if (!ret && !gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM,
						 &pem)) {
		ret = quic_test_write_file(key_path, pem.data, pem.size);
		gnutls_free(pem.data);
	} else {
		ret = -1;
	}
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_privkey_deinit(key);
	return ret;
}

/* quic_test_make_cert_names() with no extra name. */
static inline int quic_test_make_cert(const char *cert_path,
				      const char *key_path)
{
	return quic_test_make_cert_names(cert_path, key_path, 0);
}

#endif /* _QUIC_TEST_CERT_H */
