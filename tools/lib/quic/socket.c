// SPDX-License-Identifier: LGPL-2.1
/*
 * The kernel side of the handshake and the public entry points: handshake
 * messages go out with sendmsg() and a QUIC_HANDSHAKE_INFO cmsg, come back
 * from recvmsg(), secrets and transport parameters travel as SOL_QUIC
 * socket options (quic-api.rst, sections 4 and 8).
 *
 * The handshake is a sequence of steps (quic_handshake_init() and
 * quic_handshake_step()): each step is one sendmsg() or recvmsg() that
 * the caller performs, so an application can run many handshakes from
 * its own event loop; quic_handshake() is that loop for one blocking
 * caller.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <sys/socket.h>
#include <gnutls/gnutls.h>

#include "netinet/quic.h"
#include "internal.h"

#define QUIC_HS_RECV_BUF	65536
#define QUIC_HS_POLL_MS		1000
#define QUIC_TOKEN_PROBE_LEN	128

static int quic_sock_set_secret(void *priv, const struct quic_crypto_secret *s)
{
	int fd = *(int *)priv;

	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, s, sizeof(*s)))
		return -errno;
	return 0;
}

static int quic_sock_get_local_tp(void *priv, uint8_t *buf, size_t *len)
{
	socklen_t optlen = *len;
	int fd = *(int *)priv;

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, buf,
		       &optlen))
		return -errno;
	*len = optlen;
	return 0;
}

static int quic_sock_set_peer_tp(void *priv, const uint8_t *data, size_t len)
{
	int fd = *(int *)priv;

	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, data,
		       len))
		return -errno;
	return 0;
}

/*
 * No .send: messages are not sent from inside the handshake but handed
 * out one by one as steps (quic_handshake_step()), never through
 * quic_hs_flush().
 */
static const struct quic_hs_ops quic_sock_ops = {
	.set_secret	= quic_sock_set_secret,
	.get_local_tp	= quic_sock_get_local_tp,
	.set_peer_tp	= quic_sock_set_peer_tp,
};

/* A client socket answers a TOKEN get; a server socket never does (7.1). */
static bool quic_sock_is_client(int fd)
{
	uint8_t token[QUIC_TOKEN_PROBE_LEN];
	socklen_t len = sizeof(token);

	return !getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, token, &len);
}

/* CRYPTO (RFC 9000 19.6), the frame type of a TLS alert's close. */
#define QUIC_FRAME_TYPE_CRYPTO	0x06

/* Make close() report the TLS alert we raised (RFC 9001, section 4.8):
 * frame CRYPTO marks the code as an alert's, which the kernel then sends
 * in a transport CONNECTION_CLOSE before the handshake completes.
 */
static void quic_sock_set_close(int fd, const struct quic_hs *hs)
{
	struct quic_connection_close close;

	if (hs->alert < 0)
		return;
	memset(&close, 0, sizeof(close));
	close.errcode = QUIC_TRANSPORT_ERROR_CRYPTO + hs->alert;
	close.frame = QUIC_FRAME_TYPE_CRYPTO;
	setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, &close,
		   sizeof(close));
}

/*
 * 0-RTT on a server needs a GnuTLS anti-replay context. QUIC protects
 * against replayed 0-RTT differently (RFC 9001, section 9.2: the
 * application decides what is safe to run before the handshake is done),
 * so one process-wide context whose database accepts every entry is
 * enough. It lives as long as the process and is created when the
 * library is loaded: GnuTLS refuses early data under a ticket issued
 * before the context existed, and a server that forks a process per
 * connection issues the ticket in one child and checks it in another,
 * so the context must predate the fork.
 */
static gnutls_anti_replay_t quic_anti_replay;
static pthread_once_t quic_anti_replay_once = PTHREAD_ONCE_INIT;

static int quic_anti_replay_add(void *ptr, time_t exp_time,
				const gnutls_datum_t *key,
				const gnutls_datum_t *data)
{
	(void)ptr;
	(void)exp_time;
	(void)key;
	(void)data;
	return 0;
}

static void quic_anti_replay_create(void)
{
	if (gnutls_anti_replay_init(&quic_anti_replay)) {
		quic_anti_replay = NULL;
		return;
	}
	gnutls_anti_replay_set_add_function(quic_anti_replay,
					    quic_anti_replay_add);
}

__attribute__((constructor))
static void quic_anti_replay_load(void)
{
	pthread_once(&quic_anti_replay_once, quic_anti_replay_create);
}

/*
 * Harmless on a session without early data: GnuTLS only consults the
 * context when a client offers 0-RTT that the session accepts.
 */
static void quic_anti_replay_enable(gnutls_session_t session)
{
	pthread_once(&quic_anti_replay_once, quic_anti_replay_create);
	if (quic_anti_replay)
		gnutls_anti_replay_enable(session, quic_anti_replay);
	else
		quic_log(LOG_ERR, "no anti-replay context: 0-RTT is refused");
}

/**
 * struct quic_step_ctx - the step API's state for one session
 * @next: next context in the same registry bucket
 * @session: the TLS session (the registry key)
 * @fd: the QUIC socket (gnutls_transport_get_int() at init time)
 * @hs: the GnuTLS glue; @hs.head holds the messages still to send
 * @step: the step handed out to the caller
 * @pending: @step is waiting for its result
 * @msg: the msghdr of @step
 * @iov: its buffer: the message at @hs.head, or @rbuf
 * @ctrl: its control buffer, room for one QUIC_HANDSHAKE_INFO cmsg
 * @rbuf: receive buffer, QUIC_HS_RECV_BUF bytes
 */
struct quic_step_ctx {
	struct quic_step_ctx *next;
	gnutls_session_t session;
	int fd;
	struct quic_hs hs;
	struct quic_handshake_step step;
	bool pending;
	struct msghdr msg;
	struct iovec iov;
	union {
		char buf[CMSG_SPACE(sizeof(struct quic_handshake_info))];
		struct cmsghdr align;
	} ctrl;
	uint8_t *rbuf;
};

/*
 * The registry: which context belongs to which session.
 *
 * quic_handshake_step() and quic_handshake_deinit() get nothing but the
 * session, so the context must be found from it. We do not use the
 * session's user pointer (gnutls_session_set_ptr()): it belongs to the
 * application, which commonly keeps its connection there, and would lose
 * it (or we ours) on a collision. Nor do we hide the context in GnuTLS's
 * private extension data, whose lifetime rules are GnuTLS internals.
 * Instead a process-wide hash table keyed by the session pointer maps
 * sessions to contexts; one mutex guards the table only, because a
 * context is used solely by the thread driving its handshake. While
 * GnuTLS runs our callbacks, handshake.c finds the context through a
 * thread-local pointer, so no callback takes the lock.
 *
 * A session freed without quic_handshake_deinit() leaves its context
 * behind; quic_handshake_init() on a session at the same address
 * replaces it, so a stale context is never used, only kept until then.
 */
#define QUIC_STEP_BUCKETS	64

static struct quic_step_ctx *quic_step_table[QUIC_STEP_BUCKETS];
static pthread_mutex_t quic_step_lock = PTHREAD_MUTEX_INITIALIZER;

static struct quic_step_ctx **quic_step_bucket(gnutls_session_t session)
{
	uintptr_t key = (uintptr_t)session;

	key ^= key >> 12;
	return &quic_step_table[(key >> 4) % QUIC_STEP_BUCKETS];
}

/* Unlink and return @session's context; the caller holds the lock. */
static struct quic_step_ctx *quic_step_unlink(gnutls_session_t session)
{
	struct quic_step_ctx **pos, *ctx;

	for (pos = quic_step_bucket(session); (ctx = *pos); pos = &ctx->next) {
		if (ctx->session == session) {
			*pos = ctx->next;
			ctx->next = NULL;
			return ctx;
		}
	}
	return NULL;
}

static struct quic_step_ctx *quic_step_find(gnutls_session_t session)
{
	struct quic_step_ctx *ctx;

	pthread_mutex_lock(&quic_step_lock);
	for (ctx = *quic_step_bucket(session); ctx; ctx = ctx->next)
		if (ctx->session == session)
			break;
	pthread_mutex_unlock(&quic_step_lock);
	return ctx;
}

static void quic_step_free(struct quic_step_ctx *ctx)
{
	if (!ctx)
		return;
	quic_hs_release(&ctx->hs);
	free(ctx->rbuf);
	free(ctx);
}

/* Add @ctx, dropping a context left behind at the same session address. */
static void quic_step_add(struct quic_step_ctx *ctx)
{
	struct quic_step_ctx **bucket, *stale;

	pthread_mutex_lock(&quic_step_lock);
	stale = quic_step_unlink(ctx->session);
	bucket = quic_step_bucket(ctx->session);
	ctx->next = *bucket;
	*bucket = ctx;
	pthread_mutex_unlock(&quic_step_lock);
	if (stale)
		quic_log(LOG_DEBUG, "dropping a stale handshake context");
	quic_step_free(stale);
}

static void quic_step_remove(gnutls_session_t session)
{
	struct quic_step_ctx *ctx;

	pthread_mutex_lock(&quic_step_lock);
	ctx = quic_step_unlink(session);
	pthread_mutex_unlock(&quic_step_lock);
	quic_step_free(ctx);
}

/* Hand out the next step: a send while messages are queued, else a read. */
static void quic_step_next(struct quic_step_ctx *ctx,
			   struct quic_handshake_step **pstep)
{
	struct quic_hs_msg *m = ctx->hs.head;
	struct quic_handshake_info *info;
	struct cmsghdr *cmsg;

	memset(&ctx->step, 0, sizeof(ctx->step));
	memset(&ctx->msg, 0, sizeof(ctx->msg));
	memset(&ctx->ctrl, 0, sizeof(ctx->ctrl));
	ctx->msg.msg_iov = &ctx->iov;
	ctx->msg.msg_iovlen = 1;
	ctx->msg.msg_control = ctx->ctrl.buf;
	ctx->msg.msg_controllen = sizeof(ctx->ctrl.buf);

	if (m) {
		ctx->iov.iov_base = m->data;
		ctx->iov.iov_len = m->len;
		cmsg = CMSG_FIRSTHDR(&ctx->msg);
		cmsg->cmsg_level = SOL_QUIC;
		cmsg->cmsg_type = QUIC_HANDSHAKE_INFO;
		cmsg->cmsg_len = CMSG_LEN(sizeof(*info));
		info = (struct quic_handshake_info *)CMSG_DATA(cmsg);
		info->crypto_level = m->level;
		ctx->step.op = QUIC_HANDSHAKE_STEP_OP_SENDMSG;
		ctx->step.s_sendmsg.msg = &ctx->msg;
		/* MSG_MORE: another message of this flight follows. */
		ctx->step.s_sendmsg.flags = MSG_NOSIGNAL |
					    (m->next ? MSG_MORE : 0);
	} else if (!ctx->hs.complete) {
		ctx->iov.iov_base = ctx->rbuf;
		ctx->iov.iov_len = QUIC_HS_RECV_BUF;
		ctx->step.op = QUIC_HANDSHAKE_STEP_OP_RECVMSG;
		ctx->step.s_recvmsg.msg = &ctx->msg;
		ctx->step.s_recvmsg.flags = MSG_DONTWAIT;
	} else {
		ctx->pending = false;
		*pstep = NULL;
		return;
	}
	ctx->pending = true;
	*pstep = &ctx->step;
}

static int quic_step_sent(struct quic_step_ctx *ctx)
{
	struct quic_hs_msg *m = ctx->hs.head;
	ssize_t n = ctx->step.s_sendmsg.retval;

	if (n < 0)
		return n;
	if ((size_t)n < m->len)
		return -EMSGSIZE;
	ctx->hs.head = m->next;
	if (!ctx->hs.head)
		ctx->hs.tail = &ctx->hs.head;
	free(m);
	return 0;
}

static int quic_step_received(struct quic_step_ctx *ctx)
{
	ssize_t n = ctx->step.s_recvmsg.retval;
	struct quic_handshake_info info;
	struct msghdr *msg = &ctx->msg;
	struct cmsghdr *cmsg;

	if (n < 0)
		return n;
	if (!n)
		return -ECONNRESET;
	if ((msg->msg_flags & MSG_TRUNC) || (size_t)n > QUIC_HS_RECV_BUF)
		return -EMSGSIZE;
	if (msg->msg_flags & MSG_CTRUNC)
		return -EBADMSG;
	for (cmsg = CMSG_FIRSTHDR(msg); cmsg; cmsg = CMSG_NXTHDR(msg, cmsg)) {
		if (cmsg->cmsg_level != SOL_QUIC ||
		    cmsg->cmsg_type != QUIC_HANDSHAKE_INFO ||
		    cmsg->cmsg_len < CMSG_LEN(sizeof(info)))
			continue;
		memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
		return quic_hs_input(&ctx->hs, info.crypto_level, ctx->rbuf, n);
	}
	return -EBADMSG;
}

static void quic_step_failed(struct quic_step_ctx *ctx, int err)
{
	quic_log(LOG_ERR, "%s handshake failed: %d (%s)",
		 ctx->hs.is_server ? "server" : "client", err,
		 err > -4096 ? strerror(-err) : gnutls_strerror(err));
	quic_sock_set_close(ctx->fd, &ctx->hs);
}

static int quic_step_init(gnutls_session_t session,
			  struct quic_handshake_step **pstep,
			  const struct quic_conf *conf)
{
	struct quic_step_ctx *ctx;
	bool is_server;
	int fd, err;

	if (!pstep || *pstep)
		return -EINVAL;
	fd = gnutls_transport_get_int(session);
	if (fd < 0)
		return -EBADF;
	is_server = !quic_sock_is_client(fd);

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->rbuf = malloc(QUIC_HS_RECV_BUF);
	if (!ctx->rbuf) {
		free(ctx);
		return -ENOMEM;
	}
	ctx->session = session;
	ctx->fd = fd;
	err = quic_hs_init(&ctx->hs, session, is_server, &quic_sock_ops,
			   &ctx->fd);
	if (err) {
		quic_step_failed(ctx, err);
		quic_step_free(ctx);
		return err;
	}
	ctx->hs.conf = conf;
	if (is_server)
		quic_anti_replay_enable(session);
	quic_step_add(ctx);
	quic_log(LOG_DEBUG, "%s handshake starts on socket %d",
		 is_server ? "server" : "client", fd);

	/* A client's ClientHello is queued right away. */
	err = quic_hs_start(&ctx->hs);
	if (err) {
		quic_step_failed(ctx, err);
		quic_step_remove(session);
		return err;
	}
	quic_step_next(ctx, pstep);
	return 0;
}

/**
 * quic_handshake_init() - prepare a QUIC handshake driven step by step
 * @session: a TLS session with credentials, priorities and ALPN set; its
 *	transport is the QUIC socket (gnutls_transport_set_int())
 * @pstep: must point to NULL; receives the first step
 *
 * Installs libquic's GnuTLS hooks, registers the quic_transport_parameters
 * extension, detects the role from the socket (a client socket answers
 * getsockopt(QUIC_SOCKOPT_TOKEN)), enables anti-replay on a server and
 * queues a client's ClientHello. Performs no sendmsg()/recvmsg() itself.
 * After it returns 0, quic_handshake_deinit() must be called; on failure
 * nothing is left to release.
 *
 * Return: 0, -EINVAL (@pstep NULL or *@pstep not NULL), -EBADF (no
 * socket attached), -ENOMEM, or the error of the first TLS step.
 */
int quic_handshake_init(gnutls_session_t session,
			struct quic_handshake_step **pstep)
{
	return quic_step_init(session, pstep, NULL);
}

/**
 * quic_handshake_step() - take the result of a step, get the next one
 * @session: the session given to quic_handshake_init()
 * @pstep: points to the step last handed out, whose retval the caller
 *	has set to the result of its sendmsg()/recvmsg() (-errno on error;
 *	EINTR and EAGAIN are for the caller to retry)
 *
 * Return: 0 with *@pstep the next step, or NULL when the handshake is
 * complete and every message sent; -EINVAL when @session has no context,
 * @pstep is NULL, *@pstep is not the step handed out or none is pending;
 * a negative send result, or -EMSGSIZE when not all of the message went;
 * a negative receive result, -ECONNRESET for 0 bytes, -EMSGSIZE for
 * MSG_TRUNC, -EBADMSG for MSG_CTRUNC or no QUIC_HANDSHAKE_INFO cmsg;
 * the error of a socket option, or -EPROTO (and friends, see
 * quic_hs_errno()) when TLS fails. After an error no step is pending.
 */
int quic_handshake_step(gnutls_session_t session,
			struct quic_handshake_step **pstep)
{
	struct quic_step_ctx *ctx = quic_step_find(session);
	int err;

	if (!ctx || !pstep || *pstep != &ctx->step || !ctx->pending)
		return -EINVAL;
	ctx->pending = false;
	if (ctx->step.op == QUIC_HANDSHAKE_STEP_OP_SENDMSG)
		err = quic_step_sent(ctx);
	else
		err = quic_step_received(ctx);
	if (err) {
		quic_step_failed(ctx, err);
		return err;
	}
	quic_step_next(ctx, pstep);
	return 0;
}

/**
 * quic_handshake_deinit() - release what quic_handshake_init() set up
 * @session: the session; without a handshake context this does nothing
 *
 * Frees the messages not sent and the context. The GnuTLS hooks stay
 * installed on @session (quic_session_get_data() relies on them).
 */
void quic_handshake_deinit(gnutls_session_t session)
{
	quic_step_remove(session);
}

/* Perform @step on @fd: EINTR retried, EAGAIN waits in poll(). */
static int quic_sock_do(int fd, struct quic_handshake_step *step)
{
	struct pollfd pfd;
	ssize_t n;

	for (;;) {
		memset(&pfd, 0, sizeof(pfd));
		pfd.fd = fd;
		if (step->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG) {
			n = sendmsg(fd, step->s_sendmsg.msg,
				    step->s_sendmsg.flags);
			pfd.events = POLLOUT;
		} else {
			n = recvmsg(fd, step->s_recvmsg.msg,
				    step->s_recvmsg.flags);
			pfd.events = POLLIN;
		}
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			n = -errno;
			break;
		}
		if (poll(&pfd, 1, QUIC_HS_POLL_MS) < 0 && errno != EINTR)
			return -errno;
	}
	if (step->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG)
		step->s_sendmsg.retval = n;
	else
		step->s_recvmsg.retval = n;
	return 0;
}

/* The loop of quic-api.rst, section 4.3, over the step API. */
static int quic_sock_handshake(gnutls_session_t session,
			       const struct quic_conf *conf)
{
	struct quic_handshake_step *step = NULL;
	int fd = gnutls_transport_get_int(session);
	gnutls_datum_t proto;
	int err;

	err = quic_step_init(session, &step, conf);
	if (err)
		return err;
	while (!err && step) {
		err = quic_sock_do(fd, step);
		if (!err)
			err = quic_handshake_step(session, &step);
	}
	quic_handshake_deinit(session);
	if (!err && !gnutls_alpn_get_selected_protocol(session, &proto))
		/* Informational for kernel consumers (section 6); optional. */
		setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, proto.data,
			   proto.size);
	return err;
}

static int quic_errno(int err)
{
	if (err < 0)
		errno = -err;
	return err;
}

/**
 * quic_handshake() - run a QUIC handshake with a prepared TLS session
 * @session: credentials, priorities, server name and ALPN set by the
 *	caller; the socket attached with gnutls_transport_set_int()
 *
 * Drives quic_handshake_init() and quic_handshake_step(), doing each
 * sendmsg()/recvmsg() on the socket: EINTR is retried, EAGAIN waits up
 * to a second in poll() and retries. Always deinitialises. The role is
 * probed from the socket and must match the session's.
 *
 * Return: 0 once the connection is established, else the first negative
 * error (errno is set to its absolute value as a convenience).
 */
int quic_handshake(gnutls_session_t session)
{
	return quic_errno(quic_sock_handshake(session, NULL));
}

/* Build the session, run the handshake, check the ALPN, free it all. */
static int quic_conf_handshake(int fd, struct quic_conf_args *args)
{
	char alpn[QUIC_ALPN_LIST_MAX];
	size_t len = sizeof(alpn);
	struct quic_conf conf;
	int err;

	err = quic_conf_init(&conf, args);
	if (err)
		return err;
	gnutls_transport_set_int(conf.session, fd);
	err = quic_sock_handshake(conf.session, &conf);
	/* With an ALPN list, success needs a negotiated protocol (8.4). */
	if (!err && conf.alpn)
		err = quic_session_get_alpn(conf.session, alpn, &len);
	quic_conf_release(&conf);
	return err;
}

/* Handshake hints the application left in QUIC_SOCKOPT_CONFIG. */
static void quic_sock_hints(int fd, struct quic_conf_args *args)
{
	struct quic_config cfg;
	socklen_t len = sizeof(cfg);

	memset(&cfg, 0, sizeof(cfg));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, &len))
		return;
	args->cipher = cfg.payload_cipher_type;
	args->cert_request = cfg.certificate_request;
}

/**
 * quic_client_handshake() - run the client side of a QUIC handshake
 * @sockfd: a connected IPPROTO_QUIC socket
 * @pkey_file: a PSK file ("identity:hexkey" lines; the first is used), or
 *	NULL for X.509 (the server certificate is not verified)
 * @hostname: server name sent in the TLS server_name extension, or NULL
 * @alpns: comma-separated ALPN list (under 64 bytes, at most 5 names),
 *	or NULL
 *
 * Return: 0 once the connection is established, else a negative value
 * (errno is set too).
 */
int quic_client_handshake(int sockfd, const char *pkey_file,
			  const char *hostname, const char *alpns)
{
	struct quic_conf_args args;

	if (!quic_sock_is_client(sockfd))
		return quic_errno(-EINVAL);
	if (alpns && strlen(alpns) >= QUIC_ALPN_LIST_MAX)
		return quic_errno(-EINVAL);
	memset(&args, 0, sizeof(args));
	args.pkey_file = pkey_file;
	args.hostname = hostname;
	args.alpns = alpns;
	quic_sock_hints(sockfd, &args);
	if (alpns)
		/* Informational only; the TLS layer negotiates the real one. */
		setsockopt(sockfd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpns,
			   strlen(alpns));
	return quic_errno(quic_conf_handshake(sockfd, &args));
}

/**
 * quic_server_handshake() - run the server side of a QUIC handshake
 * @sockfd: a socket returned by accept() on an IPPROTO_QUIC listener
 * @pkey_file: the private key (PEM) when @cert_file is given, else a PSK
 *	file of "identity:hexkey" lines
 * @cert_file: the certificate chain (PEM), or NULL for PSK
 * @alpns: comma-separated ALPN list (under 64 bytes, at most 5 names),
 *	or NULL to use the socket's own (inherited from the listener)
 *
 * The session is GNUTLS_SERVER | GNUTLS_NO_AUTO_SEND_TICKET without a
 * ticket key, so it sends no NewSessionTicket and accepts no 0-RTT;
 * servers that want resumption build their session themselves and call
 * quic_handshake().
 *
 * Return: 0 once the connection is established, else a negative value
 * (errno is set too).
 */
int quic_server_handshake(int sockfd, const char *pkey_file,
			  const char *cert_file, const char *alpns)
{
	char alpn[QUIC_ALPN_MAX + 1];
	struct quic_conf_args args;
	socklen_t len;

	if (quic_sock_is_client(sockfd))
		return quic_errno(-EINVAL);
	if (alpns && strlen(alpns) >= QUIC_ALPN_LIST_MAX)
		return quic_errno(-EINVAL);
	memset(&args, 0, sizeof(args));
	args.is_server = true;
	args.pkey_file = pkey_file;
	args.cert_file = cert_file;
	args.alpns = alpns;
	quic_sock_hints(sockfd, &args);

	len = sizeof(alpn) - 1;
	if (!alpns && !getsockopt(sockfd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn,
				  &len) && len) {
		alpn[len] = '\0';
		args.alpns = alpn;
	}
	return quic_errno(quic_conf_handshake(sockfd, &args));
}

/**
 * quic_sendmsg() - send stream data (or a datagram)
 * @sockfd: an established QUIC socket
 * @msg: the data
 * @len: its length
 * @sid: stream ID, or -1 for the active stream
 * @flags: MSG_QUIC_STREAM_* bits (put in the QUIC_STREAM_INFO cmsg) and
 *	send flags such as MSG_MORE, MSG_DONTWAIT or MSG_QUIC_DATAGRAM
 *
 * Return: as sendmsg(): bytes queued, or -1 with errno set.
 */
ssize_t quic_sendmsg(int sockfd, const void *msg, size_t len, int64_t sid,
		     uint32_t flags)
{
	char ctrl[CMSG_SPACE(sizeof(struct quic_stream_info))];
	struct quic_stream_info info;
	struct cmsghdr *cmsg;
	struct msghdr mh;
	struct iovec iov;

	memset(&mh, 0, sizeof(mh));
	iov.iov_base = (void *)msg;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (!(flags & MSG_QUIC_DATAGRAM)) {
		memset(ctrl, 0, sizeof(ctrl));
		mh.msg_control = ctrl;
		mh.msg_controllen = sizeof(ctrl);
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_QUIC;
		cmsg->cmsg_type = QUIC_STREAM_INFO;
		cmsg->cmsg_len = CMSG_LEN(sizeof(info));
		memset(&info, 0, sizeof(info));
		info.stream_id = sid;
		info.stream_flags = flags & (MSG_QUIC_STREAM_NEW |
					     MSG_QUIC_STREAM_FIN |
					     MSG_QUIC_STREAM_UNI |
					     MSG_QUIC_STREAM_DONTWAIT |
					     MSG_QUIC_STREAM_SNDBLOCK);
		memcpy(CMSG_DATA(cmsg), &info, sizeof(info));
	}
	return sendmsg(sockfd, &mh, flags);
}

/**
 * quic_recvmsg() - receive stream data, an event or a datagram
 * @sockfd: a QUIC socket
 * @msg: buffer
 * @len: its size
 * @sid: set to the stream ID when the data came from a stream (may be NULL)
 * @flags: in: recvmsg() flags (may be NULL); out: msg_flags ORed with the
 *	stream's MSG_QUIC_STREAM_* flags (e.g. FIN, MSG_QUIC_NOTIFICATION)
 *
 * Return: as recvmsg(): bytes read, or -1 with errno set (ENOTCONN once
 * the connection has ended).
 */
ssize_t quic_recvmsg(int sockfd, void *msg, size_t len, int64_t *sid,
		     uint32_t *flags)
{
	char ctrl[CMSG_SPACE(sizeof(struct quic_stream_info))];
	struct quic_stream_info info;
	struct cmsghdr *cmsg;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	iov.iov_base = msg;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctrl;
	mh.msg_controllen = sizeof(ctrl);
	n = recvmsg(sockfd, &mh, flags ? (int)*flags : 0);
	if (n < 0)
		return n;
	memset(&info, 0, sizeof(info));
	for (cmsg = CMSG_FIRSTHDR(&mh); cmsg; cmsg = CMSG_NXTHDR(&mh, cmsg)) {
		if (cmsg->cmsg_level != SOL_QUIC ||
		    cmsg->cmsg_type != QUIC_STREAM_INFO ||
		    cmsg->cmsg_len < CMSG_LEN(sizeof(info)))
			continue;
		memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
		if (sid)
			*sid = info.stream_id;
		break;
	}
	if (flags)
		*flags = mh.msg_flags | info.stream_flags;
	return n;
}
