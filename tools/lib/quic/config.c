// SPDX-License-Identifier: LGPL-2.1
/*
 * Building a GnuTLS session for QUIC from the arguments of
 * quic_client_handshake() and quic_server_handshake(): TLS 1.3 only, no
 * middlebox compatibility mode, the QUIC ciphers, X.509 or pre-shared
 * key credentials, ALPN and session tickets.
 *
 * A PSK file holds one "identity:hexkey" line per key, the format of
 * GnuTLS's psktool; a client uses the first line.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gnutls/gnutls.h>

#include <linux/tls.h>

#include "netinet/quic.h"
#include "internal.h"

#define QUIC_PSK_FILE_MAX	65536
#define QUIC_PSK_ID_MAX		255
#define QUIC_PSK_KEY_MAX	64

static const struct {
	uint32_t type;
	const char *name;
} quic_ciphers[] = {
	{ TLS_CIPHER_AES_GCM_128, "AES-128-GCM" },
	{ TLS_CIPHER_AES_GCM_256, "AES-256-GCM" },
	{ TLS_CIPHER_CHACHA20_POLY1305, "CHACHA20-POLY1305" },
	{ TLS_CIPHER_AES_CCM_128, "AES-128-CCM" },
};

void quic_psk_free(struct quic_psk *psk, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(psk[i].identity);
		if (psk[i].key.data)
			gnutls_memset(psk[i].key.data, 0, psk[i].key.size);
		free(psk[i].key.data);
	}
	free(psk);
}

static int quic_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int quic_psk_line(char *line, size_t len, struct quic_psk *psk)
{
	char *colon = memchr(line, ':', len);
	size_t idlen, hexlen, i;
	int hi, lo;

	if (!colon)
		return -EINVAL;
	idlen = colon - line;
	hexlen = len - idlen - 1;
	if (!idlen || idlen > QUIC_PSK_ID_MAX || memchr(line, '\0', idlen) ||
	    !hexlen || hexlen % 2 || hexlen / 2 > QUIC_PSK_KEY_MAX)
		return -EINVAL;
	psk->identity = strndup(line, idlen);
	psk->key.data = malloc(hexlen / 2);
	if (!psk->identity || !psk->key.data)
		return -ENOMEM;
	psk->key.size = hexlen / 2;
	for (i = 0; i < hexlen / 2; i++) {
		hi = quic_hex((unsigned char)colon[1 + 2 * i]);
		lo = quic_hex((unsigned char)colon[2 + 2 * i]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		psk->key.data[i] = hi << 4 | lo;
	}
	return 0;
}

/**
 * quic_psk_parse() - read a PSK file
 * @file: path of a file of "identity:hexkey" lines
 * @psk: on success, a malloc()ed array (quic_psk_free())
 * @n: on success, its number of entries (at least one)
 *
 * Empty lines are skipped; a trailing CR is ignored. Identities are
 * 1..255 bytes, keys 1..64 bytes.
 *
 * Return: 0, -errno of fopen()/fread(), -EINVAL for a malformed or empty
 * file, -EFBIG for one over 64 KiB, or -ENOMEM.
 */
int quic_psk_parse(const char *file, struct quic_psk **psk, unsigned int *n)
{
	struct quic_psk *tab = NULL, *grown;
	unsigned int count = 0;
	char *buf, *line, *end;
	size_t len, linelen;
	int err = 0;
	FILE *f;

	f = fopen(file, "r");
	if (!f)
		return -errno;
	buf = malloc(QUIC_PSK_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	len = fread(buf, 1, QUIC_PSK_FILE_MAX + 1, f);
	if (ferror(f))
		err = -EIO;
	else if (len > QUIC_PSK_FILE_MAX)
		err = -EFBIG;
	fclose(f);

	for (line = buf; !err && line < buf + len; line = end + 1) {
		end = memchr(line, '\n', buf + len - line);
		if (!end)
			end = buf + len;
		linelen = end - line;
		if (linelen && line[linelen - 1] == '\r')
			linelen--;
		if (!linelen)
			continue;
		grown = realloc(tab, (count + 1) * sizeof(*tab));
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		tab = grown;
		memset(&tab[count], 0, sizeof(*tab));
		err = quic_psk_line(line, linelen, &tab[count]);
		count++;
	}
	if (!err && !count)
		err = -EINVAL;
	gnutls_memset(buf, 0, len);
	free(buf);
	if (err) {
		quic_psk_free(tab, count);
		return err;
	}
	*psk = tab;
	*n = count;
	return 0;
}

/**
 * quic_alpn_parse() - split a comma-separated ALPN list
 * @alpns: e.g. "h3, smb"; spaces before each name are skipped
 * @out: datums pointing into @alpns
 * @max: room in @out; names after the first @max are ignored
 * @n: number of names found
 *
 * Return: 0, or -EINVAL for an empty name or a name over 255 bytes.
 */
int quic_alpn_parse(const char *alpns, gnutls_datum_t *out, unsigned int max,
		    unsigned int *n)
{
	const char *p = alpns, *comma;
	unsigned int count = 0;
	size_t len;

	while (count < max) {
		while (*p == ' ')
			p++;
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len || len > 255)
			return -EINVAL;
		out[count].data = (unsigned char *)p;
		out[count].size = len;
		count++;
		if (!comma)
			break;
		p = comma + 1;
	}
	*n = count;
	return 0;
}

/**
 * quic_alpn_set() - offer (client) or accept (server) an ALPN list
 * @session: the TLS session
 * @alpns: a NUL-terminated comma-separated list, at most
 *	QUIC_ALPN_COUNT_MAX names are used
 *
 * The protocols are mandatory: a handshake without one of them fails.
 *
 * Return: 0, -EINVAL for a malformed list, or a negative GnuTLS error.
 */
int quic_alpn_set(gnutls_session_t session, const char *alpns)
{
	gnutls_datum_t alpn[QUIC_ALPN_COUNT_MAX];
	unsigned int n;
	int ret;

	ret = quic_alpn_parse(alpns, alpn, QUIC_ALPN_COUNT_MAX, &n);
	if (ret)
		return ret;
	return gnutls_alpn_set_protocols(session, alpn, n,
					 GNUTLS_ALPN_MANDATORY);
}

static int quic_psk_server_cb(gnutls_session_t session, const char *identity,
			      gnutls_datum_t *key)
{
	const struct quic_conf *conf = quic_hs_current_conf(session);
	unsigned int i;

	if (!conf)
		return -1;
	for (i = 0; i < conf->npsk; i++) {
		if (strcmp(conf->psk[i].identity, identity))
			continue;
		key->data = gnutls_malloc(conf->psk[i].key.size);
		if (!key->data)
			return -1;
		memcpy(key->data, conf->psk[i].key.data,
		       conf->psk[i].key.size);
		key->size = conf->psk[i].key.size;
		return 0;
	}
	return -1;
}

/*
 * QUIC_PRIORITY, or with a cipher hint (QUIC_SOCKOPT_CONFIG) only that
 * cipher: the later "-CIPHER-ALL:+name" overrides the list before it.
 */
static int quic_conf_priority(struct quic_conf *conf,
			      const struct quic_conf_args *args)
{
	char prio[sizeof(QUIC_PRIORITY) + 64];
	size_t i;
	int ret;

	snprintf(prio, sizeof(prio), "%s", QUIC_PRIORITY);
	for (i = 0; args->cipher && i < ARRAY_SIZE(quic_ciphers); i++) {
		if (args->cipher != quic_ciphers[i].type)
			continue;
		snprintf(prio, sizeof(prio), "%s:-CIPHER-ALL:+%s",
			 QUIC_PRIORITY, quic_ciphers[i].name);
		break;
	}
	ret = gnutls_priority_set_direct(conf->session, prio, NULL);
	return ret ? quic_hs_errno(ret) : 0;
}

static int quic_conf_psk(struct quic_conf *conf,
			 const struct quic_conf_args *args)
{
	int ret;

	ret = quic_psk_parse(args->pkey_file, &conf->psk, &conf->npsk);
	if (ret)
		return ret;
	if (args->is_server) {
		ret = gnutls_psk_allocate_server_credentials(&conf->psk_server);
		if (ret)
			return quic_hs_errno(ret);
		gnutls_psk_set_server_credentials_function(conf->psk_server,
							   quic_psk_server_cb);
		ret = gnutls_credentials_set(conf->session, GNUTLS_CRD_PSK,
					     conf->psk_server);
	} else {
		ret = gnutls_psk_allocate_client_credentials(&conf->psk_client);
		if (ret)
			return quic_hs_errno(ret);
		ret = gnutls_psk_set_client_credentials(conf->psk_client,
							conf->psk[0].identity,
							&conf->psk[0].key,
							GNUTLS_PSK_KEY_RAW);
		if (!ret)
			ret = gnutls_credentials_set(conf->session,
						     GNUTLS_CRD_PSK,
						     conf->psk_client);
	}
	return ret ? quic_hs_errno(ret) : 0;
}

static int quic_conf_x509(struct quic_conf *conf,
			  const struct quic_conf_args *args)
{
	int ret;

	ret = gnutls_certificate_allocate_credentials(&conf->cert);
	if (ret)
		return quic_hs_errno(ret);
	if (args->is_server) {
		if (!args->pkey_file)
			return -EINVAL;
		if (access(args->cert_file, R_OK) ||
		    access(args->pkey_file, R_OK))
			return -errno;
		ret = gnutls_certificate_set_x509_key_file2(conf->cert,
							    args->cert_file,
							    args->pkey_file,
							    GNUTLS_X509_FMT_PEM,
							    NULL, 0);
		if (ret < 0)
			return -EINVAL;
		if (args->cert_request == 1)
			gnutls_certificate_server_set_request(conf->session,
							      GNUTLS_CERT_REQUEST);
		else if (args->cert_request)
			gnutls_certificate_server_set_request(conf->session,
							      GNUTLS_CERT_REQUIRE);
	} else if (args->ca_file) {
		if (access(args->ca_file, R_OK))
			return -errno;
		ret = gnutls_certificate_set_x509_trust_file(conf->cert,
							     args->ca_file,
							     GNUTLS_X509_FMT_PEM);
		if (ret <= 0)
			return -EINVAL;
		gnutls_session_set_verify_cert(conf->session, args->hostname,
					       0);
	} else {
		/* A missing system store is not an error: nothing verifies. */
		gnutls_certificate_set_x509_system_trust(conf->cert);
	}
	ret = gnutls_credentials_set(conf->session, GNUTLS_CRD_CERTIFICATE,
				     conf->cert);
	return ret ? quic_hs_errno(ret) : 0;
}

/**
 * quic_conf_init() - build a TLS session for a QUIC handshake
 * @conf: receives the session and the credentials it uses
 * @args: what to build
 *
 * Return: 0 or a negative errno; on error nothing needs releasing.
 */
int quic_conf_init(struct quic_conf *conf, const struct quic_conf_args *args)
{
	unsigned int flags;
	bool psk;
	int ret;

	memset(conf, 0, sizeof(*conf));
	psk = args->is_server ? !args->cert_file : !!args->pkey_file;
	if (psk && !args->pkey_file)
		return -EINVAL;

	/*
	 * quic-api.rst 8.4: a server session is GNUTLS_SERVER |
	 * GNUTLS_NO_AUTO_SEND_TICKET (libquic sends the one ticket itself).
	 * 0-RTT only on request, so the helpers never install EARLY keys.
	 */
	flags = GNUTLS_NO_END_OF_EARLY_DATA;
	if (args->early_data)
		flags |= GNUTLS_ENABLE_EARLY_DATA;
	if (args->is_server)
		flags |= GNUTLS_SERVER | GNUTLS_NO_AUTO_SEND_TICKET;
	else
		flags |= GNUTLS_CLIENT;
	ret = gnutls_init(&conf->session, flags);
	if (ret)
		return quic_hs_errno(ret);

	ret = quic_conf_priority(conf, args);
	if (!ret)
		ret = psk ? quic_conf_psk(conf, args) :
			    quic_conf_x509(conf, args);
	if (ret)
		goto err;

	if (!args->is_server && args->hostname) {
		ret = gnutls_server_name_set(conf->session, GNUTLS_NAME_DNS,
					     args->hostname,
					     strlen(args->hostname));
		if (ret)
			goto err_tls;
	}
	if (args->alpns) {
		ret = quic_alpn_set(conf->session, args->alpns);
		if (ret == -EINVAL)
			goto err;
		if (ret)
			goto err_tls;
		conf->alpn = true;
	}
	if (args->is_server && args->early_data) {
		/* RFC 9001, section 4.6.1: max_early_data_size 0xffffffff. */
		ret = gnutls_record_set_max_early_data_size(conf->session,
							    0xffffffffu);
		if (ret)
			goto err_tls;
	}
	if (args->is_server && args->ticket_key) {
		ret = gnutls_session_ticket_enable_server(conf->session,
							  args->ticket_key);
		if (ret)
			goto err_tls;
	}
	return 0;

err_tls:
	ret = quic_hs_errno(ret);
err:
	quic_conf_release(conf);
	return ret;
}

/**
 * quic_conf_release() - free the session and credentials of @conf
 * @conf: built by quic_conf_init()
 */
void quic_conf_release(struct quic_conf *conf)
{
	if (conf->session)
		gnutls_deinit(conf->session);
	if (conf->cert)
		gnutls_certificate_free_credentials(conf->cert);
	if (conf->psk_client)
		gnutls_psk_free_client_credentials(conf->psk_client);
	if (conf->psk_server)
		gnutls_psk_free_server_credentials(conf->psk_server);
	if (conf->psk)
		quic_psk_free(conf->psk, conf->npsk);
	memset(conf, 0, sizeof(*conf));
}
