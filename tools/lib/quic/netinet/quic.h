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
#include <sys/socket.h>
#include <gnutls/abstract.h>

#include <linux/quic.h>

#ifndef SOL_QUIC
#define SOL_QUIC	288
#endif

#ifndef IPPROTO_QUIC
#define IPPROTO_QUIC	261
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The GnuTLS priority string of every session libquic builds: TLS 1.3
 * only, PSK and ECDHE-PSK key exchange, the four QUIC AEADs, the groups
 * P-256, X25519, P-384 and P-521, no middlebox compatibility mode.
 * Applications that build their own session pass it to
 * gnutls_priority_set_direct() as well.
 */
#define QUIC_PRIORITY \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+PSK:+ECDHE-PSK:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:" \
	"+CHACHA20-POLY1305:+AES-128-CCM:-GROUP-ALL:+GROUP-SECP256R1:" \
	"+GROUP-X25519:+GROUP-SECP384R1:+GROUP-SECP521R1:" \
	"%DISABLE_TLS13_COMPAT_MODE"

/* What the caller of quic_handshake_step() has to do next. */
enum quic_handshake_step_op {
	QUIC_HANDSHAKE_STEP_OP_SENDMSG = 1,
	QUIC_HANDSHAKE_STEP_OP_RECVMSG,
};

/* sendmsg(sockfd, msg, flags); store its result (or -errno) in retval. */
struct quic_handshake_step_sendmsg {
	const struct msghdr *msg;
	int flags;
	ssize_t retval;
};

/* recvmsg(sockfd, msg, flags); store its result (or -errno) in retval. */
struct quic_handshake_step_recvmsg {
	struct msghdr *msg;
	int flags;
	ssize_t retval;
};

struct quic_handshake_step {
	enum quic_handshake_step_op op;
	union {
		struct quic_handshake_step_sendmsg s_sendmsg;
		struct quic_handshake_step_recvmsg s_recvmsg;
	};
};

typedef void (*quic_set_log_func_t)(int level, const char *msg);

int quic_client_handshake(int sockfd, const char *pkey_file,
			  const char *hostname, const char *alpns);
int quic_server_handshake(int sockfd, const char *pkey_file,
			  const char *cert_file, const char *alpns);

int quic_handshake_init(gnutls_session_t session,
			struct quic_handshake_step **pstep);
int quic_handshake_step(gnutls_session_t session,
			struct quic_handshake_step **pstep);
void quic_handshake_deinit(gnutls_session_t session);
int quic_handshake(gnutls_session_t session);

int quic_session_get_data(gnutls_session_t session, void *data,
			  size_t *size);
int quic_session_set_data(gnutls_session_t session, const void *data,
			  size_t size);
int quic_session_get_alpn(gnutls_session_t session, void *data,
			  size_t *size);
int quic_session_set_alpn(gnutls_session_t session, const void *data,
			  size_t size);

ssize_t quic_sendmsg(int sockfd, const void *msg, size_t len, int64_t sid,
		     uint32_t flags);
ssize_t quic_recvmsg(int sockfd, void *msg, size_t len, int64_t *sid,
		     uint32_t *flags);

quic_set_log_func_t quic_set_log_func(quic_set_log_func_t func);
int quic_set_log_level(int level);

#ifdef __cplusplus
}
#endif

#endif /* _NETINET_QUIC_H */
