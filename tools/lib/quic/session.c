// SPDX-License-Identifier: LGPL-2.1
/*
 * Session helpers (quic-api.rst, section 8.5): the ALPN list of a
 * session and the negotiated protocol, and resumption data - the kernel
 * keeps the NewSessionTicket a client received at the 1-RTT level
 * (QUIC_SOCKOPT_SESSION_TICKET), GnuTLS turns it into session data.
 */

#include <errno.h>
#include <string.h>
#include <syslog.h>
#include <sys/socket.h>
#include <gnutls/gnutls.h>

#include "netinet/quic.h"
#include "internal.h"

/**
 * quic_session_get_data() - export a client's resumption data
 * @session: a client session whose handshake ran on its socket
 * @data: buffer; first receives the ticket from the socket, then the
 *	session data
 * @size: in: room in @data; out: bytes of session data, 0 when no ticket
 *	has arrived yet (try again later, or wait for
 *	QUIC_EVENT_NEW_SESSION_TICKET)
 *
 * Return: 0, -errno of getsockopt(QUIC_SOCKOPT_SESSION_TICKET), or a
 * negative GnuTLS error (GNUTLS_E_SHORT_MEMORY_BUFFER with *@size set to
 * what is needed).
 */
int quic_session_get_data(gnutls_session_t session, void *data, size_t *size)
{
	int fd = gnutls_transport_get_int(session);
	socklen_t len;
	int ret;

	if (!data || !size)
		return -EINVAL;
	len = *size > 0x7fffffff ? 0x7fffffff : *size;
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, data, &len))
		return -errno;
	if (!len) {
		*size = 0;
		return 0;
	}
	/* GnuTLS copies the message, so @data can take the export. */
	ret = gnutls_handshake_write(session,
				     GNUTLS_ENCRYPTION_LEVEL_APPLICATION,
				     data, len);
	if (ret) {
		quic_log(LOG_ERR, "session ticket: %s", gnutls_strerror(ret));
		return ret;
	}
	return gnutls_session_get_data(session, data, size);
}

/**
 * quic_session_set_data() - resume with data from quic_session_get_data()
 * @session: a new client session, before its handshake
 * @data: the session data
 * @size: its length
 *
 * Return: 0 or a negative GnuTLS error.
 */
int quic_session_set_data(gnutls_session_t session, const void *data,
			  size_t size)
{
	return gnutls_session_set_data(session, data, size);
}

/**
 * quic_session_get_alpn() - the protocol the handshake negotiated
 * @session: the session
 * @data: receives the protocol name, not NUL-terminated
 * @size: in: room in @data; out: length of the name
 *
 * Return: 0, a negative GnuTLS error when no protocol was negotiated, or
 * -EINVAL when it does not fit.
 */
int quic_session_get_alpn(gnutls_session_t session, void *data, size_t *size)
{
	gnutls_datum_t proto;
	int ret;

	ret = gnutls_alpn_get_selected_protocol(session, &proto);
	if (ret)
		return ret;
	if (!size || *size < proto.size)
		return -EINVAL;
	memcpy(data, proto.data, proto.size);
	*size = proto.size;
	return 0;
}

/**
 * quic_session_set_alpn() - set the ALPN protocols of a session
 * @session: the session, before its handshake
 * @data: comma-separated names, e.g. "h3, smb"; spaces before each name
 *	are skipped; names after the fifth are ignored
 * @size: length of @data (a NUL inside ends the list early)
 *
 * The protocols are set with GNUTLS_ALPN_MANDATORY: a handshake with a
 * peer that agrees on none of them fails.
 *
 * Return: 0, -EINVAL when @size is 64 or more or a name is empty or
 * longer than 255 bytes, or a negative GnuTLS error.
 */
int quic_session_set_alpn(gnutls_session_t session, const void *data,
			  size_t size)
{
	char alpns[QUIC_ALPN_LIST_MAX];

	if (size >= sizeof(alpns) || (size && !data))
		return -EINVAL;
	if (size)
		memcpy(alpns, data, size);
	alpns[size] = '\0';
	return quic_alpn_set(session, alpns);
}
