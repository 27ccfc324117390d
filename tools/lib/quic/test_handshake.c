// SPDX-License-Identifier: GPL-2.0
/*
 * test_handshake: libquic's GnuTLS glue without a kernel. A client and a
 * server handshake run in one process with an in-memory transport in
 * place of the QUIC socket: each handshake message is handed to the
 * peer's quic_hs_input() (optionally cut into small pieces, as CRYPTO
 * frames would be), secrets and transport-parameter extensions are
 * recorded. Prints TAP.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include <linux/tls.h>

#include "internal.h"
#include "test_cert.h"

#define MAX_MSGS	64

struct mem_msg {
	uint8_t level;
	bool more;
	size_t len;
	uint8_t *data;
};

struct side {
	const char *name;
	struct side *peer;
	struct quic_conf conf;
	struct quic_hs hs;
	struct mem_msg in[MAX_MSGS];
	unsigned int nin;
	struct mem_msg out[MAX_MSGS];	/* copy of what was sent */
	unsigned int nout;
	struct quic_crypto_secret secret[QUIC_CRYPTO_MAX][2];
	bool have[QUIC_CRYPTO_MAX][2];
	bool bad_secret;
	uint8_t local_tp[64];
	size_t local_tp_len;
	uint8_t peer_tp[QUIC_TP_EXT_MAX];
	size_t peer_tp_len;
	int tp_sets;
	int reject_tp;		/* errors the connection returns */
	int reject_secret;
	int reject_local_tp;
};

static unsigned int test_num, test_failed;
static char dir[64];
static char cert_file[128], key_file[128], psk_file[128], psk2_file[128];

static void report(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %u ", ok ? "ok" : "not ok", ++test_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		test_failed++;
}

static int mem_send(void *priv, uint8_t level, const void *data, size_t len,
		    bool more)
{
	struct side *s = priv, *p = s->peer;
	struct mem_msg *m;

	if (p->nin == MAX_MSGS || s->nout == MAX_MSGS)
		return -ENOBUFS;
	m = &p->in[p->nin];
	m->data = malloc(len);
	if (!m->data)
		return -ENOMEM;
	memcpy(m->data, data, len);
	m->len = len;
	m->level = level;
	m->more = more;
	p->nin++;
	s->out[s->nout].level = level;
	s->out[s->nout].more = more;
	s->out[s->nout].len = len;
	s->out[s->nout].data = NULL;
	s->nout++;
	return 0;
}

static int mem_set_secret(void *priv, const struct quic_crypto_secret *sec)
{
	struct side *s = priv;

	if (s->reject_secret)
		return s->reject_secret;
	if (sec->level >= QUIC_CRYPTO_MAX || sec->level == QUIC_CRYPTO_INITIAL ||
	    sec->reserved || s->have[sec->level][!!sec->send]) {
		s->bad_secret = true;
		return -EINVAL;
	}
	/* Transmit before receive within a level (quic-api.rst 4.3 d). */
	if (sec->send && s->have[sec->level][0])
		s->bad_secret = true;
	s->secret[sec->level][!!sec->send] = *sec;
	s->have[sec->level][!!sec->send] = true;
	return 0;
}

static int mem_get_local_tp(void *priv, uint8_t *buf, size_t *len)
{
	struct side *s = priv;

	if (s->reject_local_tp)
		return s->reject_local_tp;
	if (*len < s->local_tp_len)
		return -EINVAL;
	memcpy(buf, s->local_tp, s->local_tp_len);
	*len = s->local_tp_len;
	return 0;
}

static int mem_set_peer_tp(void *priv, const uint8_t *data, size_t len)
{
	struct side *s = priv;

	if (s->reject_tp)
		return s->reject_tp;
	if (len > sizeof(s->peer_tp))
		return -EINVAL;
	memcpy(s->peer_tp, data, len);
	s->peer_tp_len = len;
	s->tp_sets++;
	return 0;
}

static const struct quic_hs_ops mem_ops = {
	.send		= mem_send,
	.set_secret	= mem_set_secret,
	.get_local_tp	= mem_get_local_tp,
	.set_peer_tp	= mem_set_peer_tp,
};

static void side_free(struct side *s)
{
	unsigned int i;

	for (i = 0; i < s->nin; i++)
		free(s->in[i].data);
	s->nin = 0;
	quic_hs_release(&s->hs);
	quic_conf_release(&s->conf);
}

static int side_init(struct side *s, const char *name,
		     const struct quic_conf_args *args)
{
	size_t i;
	int err;

	memset(s, 0, sizeof(*s));
	s->name = name;
	err = quic_conf_init(&s->conf, args);
	if (err)
		return err;
	err = quic_hs_init(&s->hs, s->conf.session, args->is_server, &mem_ops,
			   s);
	if (err) {
		quic_conf_release(&s->conf);
		return err;
	}
	s->hs.conf = &s->conf;
	s->hs.alpn_required = s->conf.alpn;
	/* A recognisable fake extension body per side. */
	s->local_tp_len = args->is_server ? 40 : 23;
	for (i = 0; i < s->local_tp_len; i++)
		s->local_tp[i] = (args->is_server ? 0xa0 : 0x10) + i;
	return 0;
}

/* Deliver everything queued for @s, @frag bytes at a time (0: whole). */
static int side_deliver(struct side *s, size_t frag)
{
	unsigned int i;
	size_t off, n;
	int err = 0;

	for (i = 0; i < s->nin && !err; i++) {
		for (off = 0; off < s->in[i].len && !err; off += n) {
			n = s->in[i].len - off;
			if (frag && n > frag)
				n = frag;
			err = quic_hs_input(&s->hs, s->in[i].level,
					    s->in[i].data + off, n);
		}
	}
	for (i = 0; i < s->nin; i++)
		free(s->in[i].data);
	s->nin = 0;
	return err;
}

/*
 * Run the handshake; returns 0 when both sides completed, else the first
 * error, and names the side that failed in *who.
 */
static int run(struct side *c, struct side *s, size_t frag, const char **who)
{
	int err, round;

	c->peer = s;
	s->peer = c;
	*who = c->name;
	err = quic_hs_start(&c->hs);
	if (!err)
		err = quic_hs_start(&s->hs);
	for (round = 0; !err && round < 20; round++) {
		*who = c->name;
		err = quic_hs_flush(&c->hs);
		if (err)
			break;
		*who = s->name;
		err = quic_hs_flush(&s->hs);
		if (err)
			break;
		if (c->hs.complete && s->hs.complete && !c->nin && !s->nin)
			return 0;
		*who = s->name;
		err = side_deliver(s, frag);
		if (err)
			break;
		*who = c->name;
		err = side_deliver(c, frag);
	}
	return err ? err : -ETIMEDOUT;
}

static bool secret_eq(const struct quic_crypto_secret *a,
		      const struct quic_crypto_secret *b, size_t len)
{
	return a->type == b->type && a->level == b->level &&
	       !memcmp(a->secret, b->secret, len);
}

static bool secrets_agree(const struct side *c, const struct side *s,
			  size_t len)
{
	static const uint8_t levels[] = { QUIC_CRYPTO_HANDSHAKE,
					  QUIC_CRYPTO_APP };
	unsigned int i;
	uint8_t l;

	for (i = 0; i < sizeof(levels); i++) {
		l = levels[i];
		if (!c->have[l][0] || !c->have[l][1] ||
		    !s->have[l][0] || !s->have[l][1])
			return false;
		/* client send == server receive and the other way round */
		if (!secret_eq(&c->secret[l][1], &s->secret[l][0], len) ||
		    !secret_eq(&c->secret[l][0], &s->secret[l][1], len))
			return false;
		/* the two directions differ */
		if (!memcmp(c->secret[l][0].secret, c->secret[l][1].secret,
			    len))
			return false;
	}
	return !c->have[QUIC_CRYPTO_INITIAL][0] &&
	       !c->have[QUIC_CRYPTO_INITIAL][1] &&
	       !c->bad_secret && !s->bad_secret;
}

static bool all_types(const struct side *x, uint32_t type)
{
	return x->secret[QUIC_CRYPTO_HANDSHAKE][0].type == type &&
	       x->secret[QUIC_CRYPTO_HANDSHAKE][1].type == type &&
	       x->secret[QUIC_CRYPTO_APP][0].type == type &&
	       x->secret[QUIC_CRYPTO_APP][1].type == type;
}

static bool tp_passed(const struct side *c, const struct side *s)
{
	return c->tp_sets == 1 && s->tp_sets == 1 &&
	       c->peer_tp_len == s->local_tp_len &&
	       !memcmp(c->peer_tp, s->local_tp, s->local_tp_len) &&
	       s->peer_tp_len == c->local_tp_len &&
	       !memcmp(s->peer_tp, c->local_tp, c->local_tp_len);
}

static bool alpn_is(const struct side *x, const char *want)
{
	gnutls_datum_t p;

	if (gnutls_alpn_get_selected_protocol(x->conf.session, &p))
		return false;
	return p.size == strlen(want) && !memcmp(p.data, want, p.size);
}

/* Client flights: CH at Initial; Finished at Handshake; no MSG_MORE last. */
static bool levels_ok(const struct side *c, const struct side *s)
{
	unsigned int i;

	if (!c->nout || c->out[0].level != QUIC_CRYPTO_INITIAL ||
	    c->out[0].more || c->out[c->nout - 1].level != QUIC_CRYPTO_HANDSHAKE ||
	    c->out[c->nout - 1].more)
		return false;
	if (!s->nout || s->out[0].level != QUIC_CRYPTO_INITIAL ||
	    !s->out[0].more)
		return false;
	/* one server flight: ServerHello, then Handshake-level messages */
	for (i = 1; i < s->nout; i++)
		if (s->out[i].level != QUIC_CRYPTO_HANDSHAKE ||
		    s->out[i].more != (i + 1 < s->nout))
			return false;
	return true;
}

struct cipher_case {
	const char *name;
	uint32_t type;
	size_t secret_len;
};

static const struct cipher_case ciphers[] = {
	{ "AES-128-GCM", TLS_CIPHER_AES_GCM_128, 32 },
	{ "AES-256-GCM", TLS_CIPHER_AES_GCM_256, 48 },
	{ "CHACHA20-POLY1305", TLS_CIPHER_CHACHA20_POLY1305, 32 },
	/* our priority list puts AES-128-GCM first */
	{ "default ciphers", 0, 32 },
};

static void cipher_run(const struct cipher_case *cc, bool psk)
{
	struct quic_conf_args ca = { 0 }, sa = { 0 };
	uint32_t type = cc->type ? cc->type : TLS_CIPHER_AES_GCM_128;
	const char *auth = psk ? "psk" : "x509";
	struct side c, s;
	const char *who;
	int err;

	ca.pkey_file = psk ? psk_file : NULL;
	ca.hostname = "localhost";
	ca.alpns = "h3, smb";
	ca.cipher = cc->type;
	sa.is_server = true;
	sa.pkey_file = psk ? psk_file : key_file;
	sa.cert_file = psk ? NULL : cert_file;
	sa.alpns = "smb,h3";
	sa.cipher = cc->type;

	err = side_init(&c, "client", &ca);
	if (!err) {
		err = side_init(&s, "server", &sa);
		if (err)
			side_free(&c);
	}
	if (err) {
		report(false, "%s %s: sessions build (%s)", auth, cc->name,
		       strerror(-err));
		return;
	}
	err = run(&c, &s, psk ? 0 : 61, &who);
	if (psk && cc->secret_len == 48 && !gnutls_check_version("3.8.0")) {
		/*
		 * GnuTLS before 3.8 ties external PSKs to SHA-256, so no
		 * SHA-384 suite can use them: expect a clean failure.
		 */
		report(err == -EPROTO,
		       "%s %s: fails cleanly (GnuTLS %s binds external PSKs to SHA-256)",
		       auth, cc->name, gnutls_check_version(NULL));
		printf("ok %u %s %s: handshake # SKIP needs GnuTLS 3.8\n",
		       ++test_num, auth, cc->name);
		side_free(&c);
		side_free(&s);
		return;
	}
	report(!err, "%s %s: handshake completes%s", auth, cc->name,
	       psk ? "" : " (61-byte pieces)");
	if (err)
		fprintf(stderr, "# %s: %s\n", who, strerror(-err));
	report(!err && secrets_agree(&c, &s, cc->secret_len),
	       "%s %s: both sides derive the same secrets per level and direction",
	       auth, cc->name);
	report(!err && all_types(&c, type) && all_types(&s, type),
	       "%s %s: secrets carry cipher type %u", auth, cc->name, type);
	report(!err && tp_passed(&c, &s),
	       "%s %s: transport parameter extensions pass both ways", auth,
	       cc->name);
	report(!err && alpn_is(&c, "h3") && alpn_is(&s, "h3"),
	       "%s %s: ALPN h3 negotiated", auth, cc->name);
	report(!err && levels_ok(&c, &s),
	       "%s %s: message levels and MSG_MORE flights as expected", auth,
	       cc->name);
	side_free(&c);
	side_free(&s);
}

/* Run a pair expected to fail; returns the error and the sides' alerts. */
struct inject {
	int tp, secret, local_tp;
};

static int fail_run(const struct quic_conf_args *ca,
		    const struct quic_conf_args *sa, const struct inject *inj,
		    int *calert, int *salert)
{
	struct side c, s;
	const char *who;
	int err;

	*calert = -1;
	*salert = -1;
	err = side_init(&c, "client", ca);
	if (err)
		return err;
	err = side_init(&s, "server", sa);
	if (err) {
		side_free(&c);
		return err;
	}
	if (inj) {
		s.reject_tp = inj->tp;
		s.reject_secret = inj->secret;
		s.reject_local_tp = inj->local_tp;
	}
	err = run(&c, &s, 0, &who);
	*calert = c.hs.alert;
	*salert = s.hs.alert;
	if (!err && !(c.hs.complete && s.hs.complete))
		err = -EPROTO;
	side_free(&c);
	side_free(&s);
	return err;
}

static int write_file(char *path, size_t size, const char *name,
		      const void *data, size_t len)
{
	snprintf(path, size, "%s/%s", dir, name);
	return quic_test_write_file(path, data, len);
}

static int make_cert(void)
{
	snprintf(cert_file, sizeof(cert_file), "%s/cert.pem", dir);
	snprintf(key_file, sizeof(key_file), "%s/key.pem", dir);
	return quic_test_make_cert(cert_file, key_file);
}

static int psk_file_of(char *path, size_t size, const char *name,
		       const char *text)
{
	return write_file(path, size, name, text, strlen(text));
}

static void test_cipher_map(void)
{
	report(quic_hs_cipher_type(GNUTLS_CIPHER_AES_128_GCM) == 51 &&
	       quic_hs_cipher_type(GNUTLS_CIPHER_AES_256_GCM) == 52 &&
	       quic_hs_cipher_type(GNUTLS_CIPHER_AES_128_CCM) == 53 &&
	       quic_hs_cipher_type(GNUTLS_CIPHER_CHACHA20_POLY1305) == 54 &&
	       quic_hs_cipher_type(GNUTLS_CIPHER_AES_128_CBC) == 0 &&
	       quic_hs_cipher_type(GNUTLS_CIPHER_NULL) == 0,
	       "cipher map: GnuTLS ciphers to TLS_CIPHER_* 51..54, others 0");
}

static void test_psk_files(void)
{
	static const struct {
		const char *name, *text;
	} bad[] = {
		{ "empty", "" },
		{ "only blank lines", "\n\r\n\n" },
		{ "no colon", "client0123456789abcdef\n" },
		{ "empty identity", ":0123456789abcdef\n" },
		{ "empty key", "client:\n" },
		{ "odd hex digits", "client:0123456789abcde\n" },
		{ "non-hex key", "client:0123456789abcdeg\n" },
		{ "bad second line", "client:00112233\nserver\n" },
	};
	char path[128], longkey[8 + 2 * 65 + 2];
	struct quic_psk *psk;
	unsigned int i, n;
	int err;

	/* 65 key bytes: one over the limit */
	memcpy(longkey, "client:", 7);
	memset(longkey + 7, 'a', 2 * 65);
	strcpy(longkey + 7 + 2 * 65, "\n");
	err = psk_file_of(path, sizeof(path), "long.psk", longkey);
	err = err ?: quic_psk_parse(path, &psk, &n);
	if (!err)
		quic_psk_free(psk, n);
	report(err == -EINVAL, "psk file: key over 64 bytes is rejected with EINVAL");
	memset(longkey + 7, 'a', 2 * 64);
	strcpy(longkey + 7 + 2 * 64, "\n");
	err = psk_file_of(path, sizeof(path), "long.psk", longkey);
	err = err ?: quic_psk_parse(path, &psk, &n);
	report(!err && n == 1 && psk[0].key.size == 64,
	       "psk file: a 64-byte key is accepted");
	if (!err)
		quic_psk_free(psk, n);

	snprintf(path, sizeof(path), "%s/absent.psk", dir);
	err = quic_psk_parse(path, &psk, &n);
	report(err == -ENOENT, "psk file: a missing file gives ENOENT");

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (psk_file_of(path, sizeof(path), "bad.psk", bad[i].text)) {
			report(false, "psk file: %s is rejected", bad[i].name);
			continue;
		}
		err = quic_psk_parse(path, &psk, &n);
		if (!err)
			quic_psk_free(psk, n);
		report(err == -EINVAL, "psk file: %s is rejected with EINVAL",
		       bad[i].name);
	}

	err = psk_file_of(path, sizeof(path), "good.psk",
			  "alice:00FFaa01\r\n\nbob:0102030405060708\n");
	err = err ?: quic_psk_parse(path, &psk, &n);
	report(!err && n == 2 && !strcmp(psk[0].identity, "alice") &&
	       psk[0].key.size == 4 && psk[0].key.data[1] == 0xff &&
	       psk[0].key.data[2] == 0xaa && !strcmp(psk[1].identity, "bob") &&
	       psk[1].key.size == 8 && psk[1].key.data[7] == 8,
	       "psk file: identities and keys read, CRLF and blank lines accepted");
	if (!err)
		quic_psk_free(psk, n);
}

static void test_alpn_parse(void)
{
	gnutls_datum_t d[8];
	unsigned int n = 0;
	char big[300];
	int err;

	err = quic_alpn_parse("h3,  smb ,x", d, 8, &n);
	report(!err && n == 3 && d[0].size == 2 && d[1].size == 4 &&
	       !memcmp(d[1].data, "smb ", 4) && d[2].size == 1,
	       "alpn list: split at commas, leading spaces skipped");
	report(quic_alpn_parse("", d, 8, &n) == -EINVAL &&
	       quic_alpn_parse("h3,", d, 8, &n) == -EINVAL &&
	       quic_alpn_parse("a,,b", d, 8, &n) == -EINVAL,
	       "alpn list: empty names give EINVAL");
	err = quic_alpn_parse("a,b,,", d, 2, &n);
	report(!err && n == 2 && d[1].size == 1 && d[1].data[0] == 'b',
	       "alpn list: names after the maximum are ignored");
	memset(big, 'a', 256);
	big[256] = '\0';
	report(quic_alpn_parse(big, d, 8, &n) == -EINVAL,
	       "alpn list: a 256-byte name gives EINVAL");
}

static void test_failures(void)
{
	struct quic_conf_args ca = { 0 }, sa = { 0 };
	struct inject inj = { 0 };
	struct quic_conf conf;
	char path[128];
	int err, calert, salert;

	ca.pkey_file = psk_file;
	ca.alpns = "h3";
	sa.is_server = true;
	sa.pkey_file = psk_file;
	sa.alpns = "h3";

	snprintf(path, sizeof(path), "%s/absent.psk", dir);
	ca.pkey_file = path;
	err = quic_conf_init(&conf, &ca);
	report(err == -ENOENT, "client with a missing PSK file fails with ENOENT");
	sa.pkey_file = path;
	err = quic_conf_init(&conf, &sa);
	report(err == -ENOENT, "server with a missing PSK file fails with ENOENT");
	psk_file_of(path, sizeof(path), "malformed.psk", "client 00112233\n");
	ca.pkey_file = path;
	err = quic_conf_init(&conf, &ca);
	report(err == -EINVAL, "client with a malformed PSK file fails with EINVAL");
	sa.pkey_file = path;
	err = quic_conf_init(&conf, &sa);
	report(err == -EINVAL, "server with a malformed PSK file fails with EINVAL");

	sa.pkey_file = NULL;
	sa.cert_file = cert_file;
	err = quic_conf_init(&conf, &sa);
	report(err == -EINVAL, "server with a certificate but no key fails with EINVAL");
	snprintf(path, sizeof(path), "%s/absent.pem", dir);
	sa.pkey_file = path;
	err = quic_conf_init(&conf, &sa);
	report(err == -ENOENT, "server with a missing key file fails with ENOENT");
	sa.pkey_file = psk_file;	/* not a PEM key */
	err = quic_conf_init(&conf, &sa);
	report(err == -EINVAL, "server with a malformed key file fails with EINVAL");
	sa.cert_file = NULL;
	ca.pkey_file = psk_file;

	ca.alpns = "a,,b";
	err = quic_conf_init(&conf, &ca);
	report(err == -EINVAL, "malformed ALPN list fails with EINVAL");

	ca.alpns = "h3,hq-interop";
	sa.alpns = "smb";
	err = fail_run(&ca, &sa, NULL, &calert, &salert);
	report(err == -EPROTO && salert == GNUTLS_A_NO_APPLICATION_PROTOCOL,
	       "no common ALPN: server fails with no_application_protocol (%d, alert %d)",
	       err, salert);
	ca.alpns = "h3";
	sa.alpns = "h3";

	sa.pkey_file = psk2_file;	/* same identity, other key */
	err = fail_run(&ca, &sa, NULL, &calert, &salert);
	report(err == -EPROTO && salert >= 0,
	       "PSK with a different key fails (%d, server alert %d)", err,
	       salert);
	sa.pkey_file = psk_file;

	inj.tp = -EINVAL;
	err = fail_run(&ca, &sa, &inj, &calert, &salert);
	report(err == -EINVAL,
	       "transport parameters refused by the connection fail the handshake with that error (%d)",
	       err);
	inj.tp = 0;
	inj.secret = -EPIPE;
	err = fail_run(&ca, &sa, &inj, &calert, &salert);
	report(err == -EPIPE,
	       "a secret refused by the connection fails the handshake with that error (%d)",
	       err);
	inj.secret = 0;
	inj.local_tp = -EINVAL;
	err = fail_run(&ca, &sa, &inj, &calert, &salert);
	report(err == -EINVAL,
	       "local transport parameters unavailable fail the handshake with that error (%d)",
	       err);

	/* Certificate checked against the test CA, by name. */
	ca.pkey_file = NULL;
	ca.ca_file = cert_file;
	ca.hostname = "localhost";
	sa.pkey_file = key_file;
	sa.cert_file = cert_file;
	err = fail_run(&ca, &sa, NULL, &calert, &salert);
	report(!err, "x509: certificate verifies against its CA and name (%d)",
	       err);
	ca.hostname = "example.org";
	err = fail_run(&ca, &sa, NULL, &calert, &salert);
	report(err == -EPROTO && calert >= 0,
	       "x509: wrong server name fails verification (%d, client alert %d)",
	       err, calert);
}

/* The server's NewSessionTicket lets a second client resume. */
static void test_resumption(void)
{
	struct quic_conf_args ca = { 0 }, sa = { 0 };
	gnutls_datum_t key = { 0 }, data = { 0 };
	struct side c, s;
	const char *who;
	int err;

	if (gnutls_session_ticket_key_generate(&key)) {
		report(false, "resumption: ticket key");
		return;
	}
	ca.alpns = "h3";
	ca.hostname = "localhost";
	sa.is_server = true;
	sa.pkey_file = key_file;
	sa.cert_file = cert_file;
	sa.alpns = "h3";
	sa.ticket_key = &key;

	err = side_init(&c, "client", &ca);
	err = err ?: side_init(&s, "server", &sa);
	err = err ?: run(&c, &s, 0, &who);
	report(!err && s.nout && s.out[s.nout - 1].level == QUIC_CRYPTO_APP &&
	       (gnutls_session_get_flags(c.conf.session) &
		GNUTLS_SFLAGS_SESSION_TICKET),
	       "server sends a NewSessionTicket at the 1-RTT level; client takes it");
	if (!err)
		err = gnutls_session_get_data2(c.conf.session, &data) ? -EIO : 0;
	side_free(&c);
	side_free(&s);

	err = err ?: side_init(&c, "client", &ca);
	if (!err)
		gnutls_session_set_data(c.conf.session, data.data, data.size);
	err = err ?: side_init(&s, "server", &sa);
	err = err ?: run(&c, &s, 0, &who);
	report(!err && gnutls_session_is_resumed(c.conf.session) &&
	       gnutls_session_is_resumed(s.conf.session) && tp_passed(&c, &s),
	       "second connection resumes with the ticket (%d)", err);
	side_free(&c);
	side_free(&s);
	gnutls_free(data.data);
	gnutls_free(key.data);
}

int main(void)
{
	static const char psk[] = "quic-test:00112233445566778899aabbccddeeff\n";
	static const char psk2[] = "quic-test:ffeeddccbbaa99887766554433221100\n";
	char cmd[128];
	unsigned int i;

	printf("TAP version 13\n");
	if (gnutls_global_init()) {
		printf("1..0 # SKIP gnutls_global_init failed\n");
		return 0;
	}
	snprintf(dir, sizeof(dir), "/tmp/test_handshake.XXXXXX");
	if (!mkdtemp(dir) || make_cert() ||
	    psk_file_of(psk_file, sizeof(psk_file), "psk", psk) ||
	    psk_file_of(psk2_file, sizeof(psk2_file), "psk2", psk2)) {
		printf("not ok 1 test files created in /tmp\n1..1\n");
		return 1;
	}

	test_cipher_map();
	for (i = 0; i < ARRAY_SIZE(ciphers); i++) {
		cipher_run(&ciphers[i], false);
		cipher_run(&ciphers[i], true);
	}
	test_psk_files();
	test_alpn_parse();
	test_failures();
	test_resumption();

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", dir);
	gnutls_global_deinit();
	printf("1..%u\n", test_num);
	return test_failed ? 1 : 0;
}
