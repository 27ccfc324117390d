/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libquic: the user-space TLS 1.3 handshake for in-kernel QUIC sockets.
 *
 * The kernel (IPPROTO_QUIC) does packet protection, streams and recovery;
 * this library runs the TLS handshake with GnuTLS, hands the handshake
 * messages to the socket as CRYPTO data and installs the traffic secrets.
 * See Documentation/networking/quic-handshake.rst.
 */

#ifndef _NETINET_QUIC_H
#define _NETINET_QUIC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <gnutls/gnutls.h>

#include <linux/quic.h>

#ifdef __cplusplus
extern "C" {
#endif

int quic_client_handshake(int sockfd, const char *pkey_file,
			  const char *hostname, const char *alpns);
int quic_server_handshake(int sockfd, const char *pkey_file,
			  const char *cert_file, const char *alpns);
int quic_handshake(gnutls_session_t session);

ssize_t quic_sendmsg(int sockfd, const void *msg, size_t len, int64_t sid,
		     uint32_t flags);
ssize_t quic_recvmsg(int sockfd, void *msg, size_t len, int64_t *sid,
		     uint32_t *flags);

#ifdef __cplusplus
}
#endif

#endif /* _NETINET_QUIC_H */
