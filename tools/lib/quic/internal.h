/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libquic internals: the GnuTLS glue (handshake.c) talks to the QUIC
 * connection only through struct quic_hs_ops, so it runs the same against
 * a kernel socket (socket.c) and against an in-memory peer (the tests).
 * config.c builds GnuTLS sessions and credentials from the arguments of
 * the public entry points.
 */

#ifndef _LIBQUIC_INTERNAL_H
#define _LIBQUIC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gnutls/gnutls.h>

#include <linux/quic.h>

/* RFC 9001, section 8.2. */
#define QUIC_TP_EXT_TYPE	0x39
/* Local extension buffer size, as in quic-api.rst section 4.3 (a). */
#define QUIC_TP_EXT_MAX		256
#define QUIC_ALPN_MAX		128
#define QUIC_TICKET_KEY_LEN	64
/* quic_session_set_alpn(): the list is shorter than this, of <= 5 names */
#define QUIC_ALPN_LIST_MAX	64
#define QUIC_ALPN_COUNT_MAX	5
/* A log message, terminating NUL included (quic-api.rst, section 8.6). */
#define QUIC_LOG_MSG_MAX	128

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/**
 * struct quic_hs_ops - what the handshake needs from the QUIC connection
 * @send: queue one handshake message at @level; @more is set when another
 *	message of the same flight follows. Returns 0 or a negative errno.
 * @set_secret: install one traffic secret (one level, one direction).
 * @get_local_tp: fill @buf (*@len bytes) with the body of our
 *	quic_transport_parameters extension; set *@len to its size.
 * @set_peer_tp: hand over the body of the peer's extension.
 */
struct quic_hs_ops {
	int (*send)(void *priv, uint8_t level, const void *data, size_t len,
		    bool more);
	int (*set_secret)(void *priv, const struct quic_crypto_secret *secret);
	int (*get_local_tp)(void *priv, uint8_t *buf, size_t *len);
	int (*set_peer_tp)(void *priv, const uint8_t *data, size_t len);
};

struct quic_hs_msg {
	struct quic_hs_msg *next;
	size_t len;
	uint8_t level;
	uint8_t data[];
};

struct quic_conf;

/**
 * struct quic_hs - one handshake in progress
 * @session: the TLS session (not owned)
 * @ops: the connection side
 * @priv: argument of @ops
 * @conf: credentials built by config.c, or NULL (quic_handshake())
 * @head: outgoing messages not yet given to @ops->send
 * @tail: where the next message is linked
 * @err: first error a callback hit (negative errno), 0 if none
 * @alert: TLS alert description we produced, or -1
 * @is_server: server role
 * @tls_done: gnutls_handshake() has returned 0
 * @app_rx: the 1-RTT receive secret is installed
 * @app_tx: the 1-RTT send secret is installed
 * @peer_tp: the peer's transport parameters arrived
 * @alpn_required: fail unless an ALPN was negotiated
 * @complete: handshake finished (and post-handshake messages queued)
 */
struct quic_hs {
	gnutls_session_t session;
	const struct quic_hs_ops *ops;
	void *priv;
	const struct quic_conf *conf;
	struct quic_hs_msg *head;
	struct quic_hs_msg **tail;
	int err;
	int alert;
	bool is_server;
	bool tls_done;
	bool app_rx;
	bool app_tx;
	bool peer_tp;
	bool alpn_required;
	bool complete;
};

/* handshake.c */
int quic_hs_init(struct quic_hs *hs, gnutls_session_t session, bool is_server,
		 const struct quic_hs_ops *ops, void *priv);
void quic_hs_release(struct quic_hs *hs);
int quic_hs_start(struct quic_hs *hs);
int quic_hs_input(struct quic_hs *hs, uint8_t level, const void *data,
		  size_t len);
int quic_hs_flush(struct quic_hs *hs);
uint32_t quic_hs_cipher_type(int gnutls_cipher);
int quic_hs_errno(int gnutls_err);

/* config.c */
struct quic_psk {
	char *identity;
	gnutls_datum_t key;
};

/**
 * struct quic_conf_args - how to build a session
 * @is_server: role
 * @pkey_file: PSK file (if @cert_file is NULL) or the server's private key
 * @cert_file: server certificate chain (PEM); NULL selects PSK on a server
 * @hostname: client: server name (SNI, and the name checked with @ca_file)
 * @alpns: comma-separated ALPN list, or NULL
 * @ca_file: client: verify the server certificate against this (tests)
 * @cipher: TLS_CIPHER_* to allow only that cipher, 0 for all four
 * @cert_request: server: 0 none, 1 request, 2 require a client certificate
 * @ticket_key: server: session-ticket key (64 bytes), or NULL
 * @early_data: enable 0-RTT (GNUTLS_ENABLE_EARLY_DATA; a server also
 *	advertises the QUIC max_early_data_size)
 */
struct quic_conf_args {
	bool is_server;
	const char *pkey_file;
	const char *cert_file;
	const char *hostname;
	const char *alpns;
	const char *ca_file;
	uint32_t cipher;
	uint8_t cert_request;
	const gnutls_datum_t *ticket_key;
	bool early_data;
};

struct quic_conf {
	gnutls_session_t session;
	gnutls_certificate_credentials_t cert;
	gnutls_psk_client_credentials_t psk_client;
	gnutls_psk_server_credentials_t psk_server;
	struct quic_psk *psk;
	unsigned int npsk;
	bool alpn;
};

int quic_conf_init(struct quic_conf *conf, const struct quic_conf_args *args);
void quic_conf_release(struct quic_conf *conf);
int quic_psk_parse(const char *file, struct quic_psk **psk, unsigned int *n);
void quic_psk_free(struct quic_psk *psk, unsigned int n);
int quic_alpn_parse(const char *alpns, gnutls_datum_t *out, unsigned int max,
		    unsigned int *n);
int quic_alpn_set(gnutls_session_t session, const char *alpns);
const struct quic_conf *quic_hs_current_conf(gnutls_session_t session);

/* log.c */
bool quic_log_on(int level);
void quic_log(int level, const char *fmt, ...);

#endif /* _LIBQUIC_INTERNAL_H */
