/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: what kernel users call (net/quic/kernel.c).
 *
 * A kernel user makes a QUIC socket with sock_create_kern(), in the
 * network namespace it works in, and uses it as an application uses
 * its own: kernel_bind(), kernel_connect(), kernel_listen(),
 * kernel_accept(), kernel_sendmsg() and kernel_recvmsg() with the
 * control messages of <uapi/linux/quic.h>, and the SOL_QUIC options
 * through the two functions below, with buffers in kernel memory.
 *
 * The TLS handshake runs in user space, through the handshake upcall
 * (net/handshake): quic_handshake_client() and quic_handshake_server().
 */
#ifndef _LINUX_QUIC_H
#define _LINUX_QUIC_H

#include <linux/key.h>
#include <uapi/linux/quic.h>

struct sock;
struct socket;

/**
 * struct quic_handshake_args - the keys and limits of a kernel user's
 *	handshake (net/quic/handshake.c)
 * @timeout_ms: how long the agent may take; 0 for 30 seconds
 * @peername: the name a client checks the server's certificate against,
 *	or NULL
 * @keyring: the keyring the agent looks the keys up in, 0 for its own
 * @cert: our certificate (x509), 0 for none
 * @privkey: its private key
 * @psk: the pre-shared key, whose description is its identity; 0 for
 *	x509. Not with @cert
 * @peerid: set to the identity of the peer the agent reports
 */
struct quic_handshake_args {
	unsigned int	timeout_ms;
	const char	*peername;
	key_serial_t	keyring;
	key_serial_t	cert;
	key_serial_t	privkey;
	key_serial_t	psk;
	key_serial_t	peerid;
};

int quic_kernel_setsockopt(struct sock *sk, int optname, void *optval,
			   unsigned int optlen);
int quic_kernel_getsockopt(struct sock *sk, int optname, void *optval,
			   unsigned int *optlen);
int quic_handshake_client(struct socket *sock,
			  struct quic_handshake_args *args);
int quic_handshake_server(struct socket *sock,
			  struct quic_handshake_args *args);

#endif /* _LINUX_QUIC_H */
