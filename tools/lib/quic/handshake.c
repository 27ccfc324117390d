// SPDX-License-Identifier: LGPL-2.1
/*
 * The GnuTLS side of a QUIC handshake (RFC 9001, section 4): GnuTLS runs
 * TLS 1.3 without a record layer; its callbacks give us each handshake
 * message with its encryption level, each traffic secret, and the
 * quic_transport_parameters extension. We queue the messages, turn the
 * secrets into struct quic_crypto_secret and pass everything to the
 * connection through struct quic_hs_ops.
 *
 * GnuTLS calls our callbacks only from inside gnutls_handshake() and
 * gnutls_handshake_write(), which this file calls with quic_hs_cur set,
 * so the callbacks find their handshake without taking the session's
 * user pointer away from the application.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <gnutls/gnutls.h>

#include <linux/tls.h>

#include "internal.h"

static __thread struct quic_hs *quic_hs_cur;

static struct quic_hs *quic_hs_get(gnutls_session_t session)
{
	struct quic_hs *hs = quic_hs_cur;

	return hs && hs->session == session ? hs : NULL;
}

const struct quic_conf *quic_hs_current_conf(gnutls_session_t session)
{
	struct quic_hs *hs = quic_hs_get(session);

	return hs ? hs->conf : NULL;
}

static void quic_hs_fail(struct quic_hs *hs, int err)
{
	if (!hs->err)
		hs->err = err;
}

/**
 * quic_hs_cipher_type() - map a GnuTLS cipher to its TLS_CIPHER_* value
 * @gnutls_cipher: a gnutls_cipher_algorithm_t
 *
 * Return: 51, 52, 53 or 54; 0 for a cipher QUIC cannot use.
 */
uint32_t quic_hs_cipher_type(int gnutls_cipher)
{
	switch (gnutls_cipher) {
	case GNUTLS_CIPHER_AES_128_GCM:
		return TLS_CIPHER_AES_GCM_128;
	case GNUTLS_CIPHER_AES_256_GCM:
		return TLS_CIPHER_AES_GCM_256;
	case GNUTLS_CIPHER_AES_128_CCM:
		return TLS_CIPHER_AES_CCM_128;
	case GNUTLS_CIPHER_CHACHA20_POLY1305:
		return TLS_CIPHER_CHACHA20_POLY1305;
	}
	return 0;
}

/**
 * quic_hs_errno() - a negative errno for a GnuTLS error code
 * @gnutls_err: negative GnuTLS error
 *
 * Return: -ENOMEM, -ENOENT, -EINVAL or -EPROTO (any handshake failure).
 */
int quic_hs_errno(int gnutls_err)
{
	switch (gnutls_err) {
	case GNUTLS_E_MEMORY_ERROR:
		return -ENOMEM;
	case GNUTLS_E_FILE_ERROR:
		return -ENOENT;
	case GNUTLS_E_INVALID_REQUEST:
	case GNUTLS_E_BASE64_DECODING_ERROR:
	case GNUTLS_E_PARSING_ERROR:
		return -EINVAL;
	}
	return -EPROTO;
}

static int quic_level_from_gnutls(gnutls_record_encryption_level_t level)
{
	switch (level) {
	case GNUTLS_ENCRYPTION_LEVEL_INITIAL:
		return QUIC_CRYPTO_INITIAL;
	case GNUTLS_ENCRYPTION_LEVEL_EARLY:
		return QUIC_CRYPTO_EARLY;
	case GNUTLS_ENCRYPTION_LEVEL_HANDSHAKE:
		return QUIC_CRYPTO_HANDSHAKE;
	case GNUTLS_ENCRYPTION_LEVEL_APPLICATION:
		return QUIC_CRYPTO_APP;
	}
	return -1;
}

static int quic_level_to_gnutls(uint8_t level)
{
	switch (level) {
	case QUIC_CRYPTO_INITIAL:
		return GNUTLS_ENCRYPTION_LEVEL_INITIAL;
	case QUIC_CRYPTO_HANDSHAKE:
		return GNUTLS_ENCRYPTION_LEVEL_HANDSHAKE;
	case QUIC_CRYPTO_APP:
		return GNUTLS_ENCRYPTION_LEVEL_APPLICATION;
	}
	return -1;
}

static int quic_hs_set_one(struct quic_hs *hs, uint8_t level, bool send,
			   uint32_t type, const void *secret, size_t len)
{
	struct quic_crypto_secret s;
	int err;

	memset(&s, 0, sizeof(s));
	s.send = send;
	s.level = level;
	s.type = type;
	memcpy(s.secret, secret, len);
	err = hs->ops->set_secret(hs->priv, &s);
	gnutls_memset(&s, 0, sizeof(s));
	return err;
}

static int quic_hs_secret_cb(gnutls_session_t session,
			     gnutls_record_encryption_level_t glevel,
			     const void *rx, const void *tx, size_t len)
{
	struct quic_hs *hs = quic_hs_get(session);
	int level = quic_level_from_gnutls(glevel);
	uint32_t type;
	int err;

	if (!hs)
		return -1;
	if (level < 0 || level == QUIC_CRYPTO_INITIAL ||
	    len > QUIC_CRYPTO_SECRET_BUFFER_SIZE) {
		quic_log(LOG_ERR, "secret of level %d and %zu bytes refused",
			 level, len);
		quic_hs_fail(hs, -EINVAL);
		return -1;
	}
	/* 0-RTT keys use the cipher of the resumed session's suite. */
	if (level == QUIC_CRYPTO_EARLY)
		type = quic_hs_cipher_type(gnutls_early_cipher_get(session));
	else
		type = quic_hs_cipher_type(gnutls_cipher_get(session));
	quic_log(LOG_DEBUG, "%s: level %d secrets%s%s, cipher type %u",
		 hs->is_server ? "server" : "client", level, tx ? " tx" : "",
		 rx ? " rx" : "", type);

	/* Transmit first, then receive (quic-api.rst, section 4.3 d). */
	if (tx) {
		err = quic_hs_set_one(hs, level, true, type, tx, len);
		if (err) {
			quic_log(LOG_ERR, "installing the level %d send secret: %s",
				 level, strerror(-err));
			quic_hs_fail(hs, err);
			return -1;
		}
		if (level == QUIC_CRYPTO_APP)
			hs->app_tx = true;
	}
	if (rx) {
		err = quic_hs_set_one(hs, level, false, type, rx, len);
		if (err) {
			quic_log(LOG_ERR, "installing the level %d receive secret: %s",
				 level, strerror(-err));
			quic_hs_fail(hs, err);
			return -1;
		}
		if (level == QUIC_CRYPTO_APP)
			hs->app_rx = true;
	}
	return 0;
}

static int quic_hs_read_cb(gnutls_session_t session,
			   gnutls_record_encryption_level_t glevel,
			   gnutls_handshake_description_t htype,
			   const void *data, size_t len)
{
	struct quic_hs *hs = quic_hs_get(session);
	int level = quic_level_from_gnutls(glevel);
	struct quic_hs_msg *msg;

	if (!hs)
		return -1;
	/*
	 * QUIC has no ChangeCipherSpec (RFC 9001, section 8.4) and does its
	 * key updates itself (section 6): GnuTLS's KeyUpdate is not sent.
	 */
	if (htype == GNUTLS_HANDSHAKE_CHANGE_CIPHER_SPEC ||
	    htype == GNUTLS_HANDSHAKE_KEY_UPDATE)
		return 0;
	if (level < 0 || level == QUIC_CRYPTO_EARLY || !len) {
		quic_hs_fail(hs, -EINVAL);
		return -1;
	}
	msg = malloc(sizeof(*msg) + len);
	if (!msg) {
		quic_hs_fail(hs, -ENOMEM);
		return -1;
	}
	msg->next = NULL;
	msg->len = len;
	msg->level = level;
	memcpy(msg->data, data, len);
	*hs->tail = msg;
	hs->tail = &msg->next;
	return 0;
}

static int quic_hs_alert_cb(gnutls_session_t session,
			    gnutls_record_encryption_level_t level,
			    gnutls_alert_level_t alert_level,
			    gnutls_alert_description_t desc)
{
	struct quic_hs *hs = quic_hs_get(session);

	(void)level;
	if (hs && alert_level == GNUTLS_AL_FATAL && hs->alert < 0)
		hs->alert = desc;
	return 0;
}

static int quic_tp_send_cb(gnutls_session_t session, gnutls_buffer_t ext)
{
	struct quic_hs *hs = quic_hs_get(session);
	uint8_t buf[QUIC_TP_EXT_MAX];
	size_t len = sizeof(buf);
	int err;

	if (!hs)
		return GNUTLS_E_INTERNAL_ERROR;
	err = hs->ops->get_local_tp(hs->priv, buf, &len);
	if (err) {
		quic_hs_fail(hs, err);
		return GNUTLS_E_INTERNAL_ERROR;
	}
	if (len > sizeof(buf)) {
		quic_hs_fail(hs, -EINVAL);
		return GNUTLS_E_INTERNAL_ERROR;
	}
	err = gnutls_buffer_append_data(ext, buf, len);
	if (err)
		return err;
	return len;
}

static int quic_tp_recv_cb(gnutls_session_t session, const unsigned char *data,
			   size_t len)
{
	struct quic_hs *hs = quic_hs_get(session);
	int err;

	if (!hs)
		return GNUTLS_E_INTERNAL_ERROR;
	err = hs->ops->set_peer_tp(hs->priv, data, len);
	if (err) {
		quic_log(LOG_ERR, "peer transport parameters refused: %s",
			 strerror(-err));
		quic_hs_fail(hs, err);
		return GNUTLS_E_RECEIVED_ILLEGAL_PARAMETER;
	}
	hs->peer_tp = true;
	return 0;
}

/**
 * quic_hs_init() - prepare @session for a QUIC handshake
 * @hs: the handshake state to initialise
 * @session: a TLS session with credentials, priorities and ALPN set
 * @is_server: the role of the connection
 * @ops: the connection side
 * @priv: argument of @ops
 *
 * Installs the QUIC callbacks and registers the quic_transport_parameters
 * extension on @session. The caller may set @hs->conf and
 * @hs->alpn_required afterwards.
 *
 * Return: 0 or a negative errno.
 */
int quic_hs_init(struct quic_hs *hs, gnutls_session_t session, bool is_server,
		 const struct quic_hs_ops *ops, void *priv)
{
	int ret;

	memset(hs, 0, sizeof(*hs));
	hs->session = session;
	hs->ops = ops;
	hs->priv = priv;
	hs->alert = -1;
	hs->is_server = is_server;
	hs->tail = &hs->head;

	gnutls_handshake_set_secret_function(session, quic_hs_secret_cb);
	gnutls_handshake_set_read_function(session, quic_hs_read_cb);
	gnutls_alert_set_read_function(session, quic_hs_alert_cb);
	ret = gnutls_session_ext_register(session, "QUIC Transport Parameters",
					  QUIC_TP_EXT_TYPE, GNUTLS_EXT_TLS,
					  quic_tp_recv_cb, quic_tp_send_cb,
					  NULL, NULL, NULL,
					  GNUTLS_EXT_FLAG_TLS |
					  GNUTLS_EXT_FLAG_CLIENT_HELLO |
					  GNUTLS_EXT_FLAG_EE);
	/* A session handed to quic_handshake() twice keeps its extension. */
	if (ret && ret != GNUTLS_E_ALREADY_REGISTERED)
		return quic_hs_errno(ret);
	return 0;
}

/**
 * quic_hs_release() - drop the messages still queued
 * @hs: the handshake
 */
void quic_hs_release(struct quic_hs *hs)
{
	struct quic_hs_msg *msg;

	while (hs->head) {
		msg = hs->head;
		hs->head = msg->next;
		free(msg);
	}
	hs->tail = &hs->head;
}

/*
 * GnuTLS leaves alerts to the caller; in QUIC mode the alert comes back
 * through quic_hs_alert_cb() so the connection can close with it.
 */
static void quic_hs_alert(struct quic_hs *hs, int gnutls_err)
{
	struct quic_hs *prev = quic_hs_cur;
	int level;

	quic_hs_cur = hs;
	gnutls_alert_send_appropriate(hs->session, gnutls_err);
	quic_hs_cur = prev;
	if (hs->alert < 0) {
		level = gnutls_error_to_alert(gnutls_err, NULL);
		hs->alert = level >= 0 ? level : GNUTLS_A_INTERNAL_ERROR;
	}
}

static int quic_hs_result(struct quic_hs *hs, int ret)
{
	if (hs->err)
		return hs->err;
	if (ret < 0 && gnutls_error_is_fatal(ret)) {
		quic_log(LOG_ERR, "%s: TLS: %s", hs->is_server ? "server" :
			 "client", gnutls_strerror(ret));
		quic_hs_alert(hs, ret);
		return quic_hs_errno(ret);
	}
	return 0;
}

/* Checks and messages once gnutls_handshake() has returned 0. */
static int quic_hs_done(struct quic_hs *hs)
{
	struct quic_hs *prev;
	gnutls_datum_t proto;
	int ret;

	if (!hs->app_rx || !hs->app_tx || !hs->peer_tp) {
		quic_log(LOG_ERR, "TLS done without %s",
			 hs->peer_tp ? "1-RTT keys" :
				       "peer transport parameters");
		return -EPROTO;
	}
	if (hs->alpn_required &&
	    gnutls_alpn_get_selected_protocol(hs->session, &proto)) {
		quic_log(LOG_ERR, "no ALPN negotiated");
		return -EPROTO;
	}
	if (hs->is_server) {
		/*
		 * One NewSessionTicket at the 1-RTT level (quic-api.rst,
		 * section 4.2, step 8). Sessions without ticket support
		 * refuse, which is fine.
		 */
		prev = quic_hs_cur;
		quic_hs_cur = hs;
		ret = gnutls_session_ticket_send(hs->session, 1, 0);
		quic_hs_cur = prev;
		if (hs->err)
			return hs->err;
		if (ret && ret != GNUTLS_E_INVALID_REQUEST &&
		    gnutls_error_is_fatal(ret)) {
			quic_log(LOG_ERR, "NewSessionTicket: %s",
				 gnutls_strerror(ret));
			return quic_hs_errno(ret);
		}
	}
	hs->complete = true;
	quic_log(LOG_NOTICE, "%s: handshake done (%s%s)",
		 hs->is_server ? "server" : "client",
		 gnutls_cipher_get_name(gnutls_cipher_get(hs->session)),
		 gnutls_session_is_resumed(hs->session) ? ", resumed" : "");
	return 0;
}

static int quic_hs_step(struct quic_hs *hs)
{
	struct quic_hs *prev = quic_hs_cur;
	int ret;

	quic_hs_cur = hs;
	ret = gnutls_handshake(hs->session);
	quic_hs_cur = prev;
	if (ret == 0) {
		if (hs->err)
			return hs->err;
		hs->tls_done = true;
		return quic_hs_done(hs);
	}
	return quic_hs_result(hs, ret);
}

/**
 * quic_hs_start() - begin the handshake
 * @hs: the handshake
 *
 * A client produces its ClientHello (queued); a server waits for input.
 *
 * Return: 0 or a negative errno.
 */
int quic_hs_start(struct quic_hs *hs)
{
	if (hs->is_server)
		return 0;
	return quic_hs_step(hs);
}

/**
 * quic_hs_input() - feed handshake bytes received at @level
 * @hs: the handshake
 * @level: QUIC_CRYPTO_INITIAL, _HANDSHAKE or _APP
 * @data: the bytes (any part of the CRYPTO stream of @level, in order)
 * @len: their number
 *
 * Return: 0 or a negative errno; @hs->complete tells whether the
 * handshake has finished.
 */
int quic_hs_input(struct quic_hs *hs, uint8_t level, const void *data,
		  size_t len)
{
	int glevel = quic_level_to_gnutls(level);
	struct quic_hs *prev;
	int ret;

	if (glevel < 0 || !len)
		return -EINVAL;
	prev = quic_hs_cur;
	quic_hs_cur = hs;
	ret = gnutls_handshake_write(hs->session, glevel, data, len);
	quic_hs_cur = prev;
	ret = quic_hs_result(hs, ret);
	if (ret || hs->tls_done)
		return ret;
	return quic_hs_step(hs);
}

/**
 * quic_hs_flush() - give every queued message to the connection
 * @hs: the handshake
 *
 * Return: 0 or the first negative errno of @hs->ops->send.
 */
int quic_hs_flush(struct quic_hs *hs)
{
	struct quic_hs_msg *msg;
	int err;

	while (hs->head) {
		msg = hs->head;
		err = hs->ops->send(hs->priv, msg->level, msg->data, msg->len,
				    msg->next);
		if (err)
			return err;
		hs->head = msg->next;
		if (!hs->head)
			hs->tail = &hs->head;
		free(msg);
	}
	return 0;
}
