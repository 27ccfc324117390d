// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the TLS handshake of a kernel user's socket, run by an agent in
 * user space through the handshake upcall (net/handshake).
 *
 * A kernel user cannot run TLS; net/handshake (Linux 6.5 and later)
 * hands its socket to an agent (tlshd, or tools/quic/quic-agent) that
 * runs the handshake on it, here with libquic, and reports the outcome.
 * The request is net/handshake's TLS one: its "client hello" and
 * "server hello" with x509 or PSK keys. The agent tells a QUIC socket by
 * its protocol, and takes the ALPN and session ticket from its SOL_QUIC
 * options, which the user sets first.
 *
 * On kernels without net/handshake the two calls fail with -EOPNOTSUPP:
 * there is nothing to reach an agent with.
 */

#include <linux/completion.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/net.h>
#include <linux/quic.h>
#include <net/sock.h>
#if IS_ENABLED(CONFIG_NET_HANDSHAKE)
#include <net/handshake.h>
#endif

#include "socket.h"

/* How long to wait for the agent when the user gives no timeout; past
 * the agent's own limit, the request is cancelled.
 */
#define QUIC_HANDSHAKE_TIMEOUT_MS	30000

#if IS_ENABLED(CONFIG_NET_HANDSHAKE)

struct quic_handshake_wait {
	struct completion	done;
	int			status;
	key_serial_t		peerid;
};

static void quic_handshake_done(void *data, int status, key_serial_t peerid)
{
	struct quic_handshake_wait *w = data;

	w->status = status;
	w->peerid = peerid;
	complete(&w->done);
}

static int quic_handshake(struct socket *sock, struct quic_handshake_args *a,
			  bool server)
{
	struct tls_handshake_args args = {};
	struct quic_handshake_wait w;
	unsigned int ms;
	long left;
	int err;

	if (!sock || !quic_sk_is_quic(sock->sk) || !a || (a->psk && a->cert))
		return -EINVAL;
	if (!sock->file)
		return -EBADF;	/* the agent is handed the socket's file */
	if (sock->sk->sk_state == TCP_ESTABLISHED)
		return -EISCONN;
	init_completion(&w.done);
	w.status = -EIO;
	w.peerid = 0;
	ms = a->timeout_ms ?: QUIC_HANDSHAKE_TIMEOUT_MS;
	args.ta_sock = sock;
	args.ta_done = quic_handshake_done;
	args.ta_data = &w;
	args.ta_peername = a->peername;
	args.ta_timeout_ms = ms;
	args.ta_keyring = a->keyring;
	args.ta_my_cert = a->cert;
	args.ta_my_privkey = a->privkey;
	if (a->psk) {
		args.ta_num_peerids = 1;
		args.ta_my_peerids[0] = a->psk;
		err = server ? tls_server_hello_psk(&args, GFP_KERNEL) :
			       tls_client_hello_psk(&args, GFP_KERNEL);
	} else if (server) {
		err = tls_server_hello_x509(&args, GFP_KERNEL);
	} else {
		err = a->cert ? tls_client_hello_x509(&args, GFP_KERNEL) :
				tls_client_hello_anon(&args, GFP_KERNEL);
	}
	if (err)
		return err;

	/* The agent has the timeout too; a second more for its answer. */
	left = wait_for_completion_killable_timeout(&w.done,
						    msecs_to_jiffies(ms) + HZ);
	if (left <= 0) {
		/* Cancelled: the agent's answer, if any, goes nowhere. Too
		 * late to cancel: the answer is on its way, wait for it.
		 */
		if (tls_handshake_cancel(sock->sk))
			return left ? -EINTR : -ETIMEDOUT;
		wait_for_completion(&w.done);
	}
	a->peerid = w.peerid;
	/* The status is the agent's u32, negated. Pass on the errnos user
	 * space knows only: 6.12 refuses one above MAX_ERRNO, but lets the
	 * kernel's own (ERESTARTSYS and up) through.
	 */
	if (w.status)
		return w.status < 0 && w.status > -ERESTARTSYS ? w.status :
								 -EPROTO;
	/* An agent that says it is done must have done it. */
	return sock->sk->sk_state == TCP_ESTABLISHED ? 0 : -EPROTO;
}

#else /* !CONFIG_NET_HANDSHAKE */

static int quic_handshake(struct socket *sock, struct quic_handshake_args *a,
			  bool server)
{
	if (!sock || !quic_sk_is_quic(sock->sk) || !a)
		return -EINVAL;
	return -EOPNOTSUPP;
}

#endif

/**
 * quic_handshake_client() - run the client's TLS handshake of a kernel
 *	socket through the handshake upcall
 * @sock: a QUIC socket from sock_create_kern(), connect()ed, with a file
 *	(sock_alloc_file()), its ALPN (and session ticket, to resume) set
 * @args: the keys: x509 (@args->cert and @args->privkey), a PSK
 *	(@args->psk), or neither (no client certificate); the server name
 *	to check; the timeout. @args->peerid is set to the peer's identity
 *	the agent reports
 *
 * Waits until the agent reports, the timeout passes (the request is then
 * cancelled) or a fatal signal comes.
 *
 * Context: process context, may sleep; the socket is not used meanwhile.
 * Return: 0 once the socket is established; -EOPNOTSUPP on a kernel
 * without net/handshake; -EBADF without a file; -ESRCH when no agent
 * listens; -ETIMEDOUT; -EPROTO if the agent reported success for a
 * socket that is not established, or a status that is not an errno;
 * the agent's error otherwise.
 */
int quic_handshake_client(struct socket *sock, struct quic_handshake_args *args)
{
	return quic_handshake(sock, args, false);
}
EXPORT_SYMBOL_GPL(quic_handshake_client);

/**
 * quic_handshake_server() - run the server's TLS handshake of a kernel
 *	socket through the handshake upcall
 * @sock: a QUIC socket kernel_accept() gave, with a file
 *	(sock_alloc_file())
 * @args: the keys: x509 (@args->cert and @args->privkey) or a PSK
 *	(@args->psk); the timeout. @args->peerid is set as for the client
 *
 * As quic_handshake_client(), for the server's side.
 *
 * Context: process context, may sleep.
 * Return: as quic_handshake_client().
 */
int quic_handshake_server(struct socket *sock, struct quic_handshake_args *args)
{
	return quic_handshake(sock, args, true);
}
EXPORT_SYMBOL_GPL(quic_handshake_server);
