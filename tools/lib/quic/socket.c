// SPDX-License-Identifier: LGPL-2.1
/*
 * The kernel side of the handshake and the public entry points: handshake
 * messages go out with sendmsg() and a QUIC_HANDSHAKE_INFO cmsg, come back
 * from recvmsg(), secrets and transport parameters travel as SOL_QUIC
 * socket options (socket-api.md, sections 4 and 8).
 */

#define _GNU_SOURCE

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <gnutls/gnutls.h>

#include "netinet/quic.h"
#include "internal.h"

#define QUIC_HS_RECV_BUF	65536
#define QUIC_HS_POLL_MS		1000
#define QUIC_TOKEN_PROBE_LEN	128

static int quic_sock_send(void *priv, uint8_t level, const void *data,
			  size_t len, bool more)
{
	char ctrl[CMSG_SPACE(sizeof(struct quic_handshake_info))];
	struct quic_handshake_info *info;
	int fd = *(int *)priv;
	struct cmsghdr *cmsg;
	struct msghdr msg;
	struct iovec iov;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	memset(ctrl, 0, sizeof(ctrl));
	iov.iov_base = (void *)data;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctrl;
	msg.msg_controllen = sizeof(ctrl);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_QUIC;
	cmsg->cmsg_type = QUIC_HANDSHAKE_INFO;
	cmsg->cmsg_len = CMSG_LEN(sizeof(*info));
	info = (struct quic_handshake_info *)CMSG_DATA(cmsg);
	info->crypto_level = level;

	do {
		n = sendmsg(fd, &msg, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

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

static const struct quic_hs_ops quic_sock_ops = {
	.send		= quic_sock_send,
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

/* Wait for the next chunk of handshake data; returns its length. */
static ssize_t quic_sock_recv(int fd, uint8_t *buf, size_t size,
			      uint8_t *level)
{
	char ctrl[CMSG_SPACE(sizeof(struct quic_handshake_info))];
	struct quic_handshake_info info;
	struct pollfd pfd;
	struct cmsghdr *cmsg;
	struct msghdr msg;
	struct iovec iov;
	ssize_t n;

	for (;;) {
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = buf;
		iov.iov_len = size;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctrl;
		msg.msg_controllen = sizeof(ctrl);
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n > 0)
			break;
		if (!n)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, QUIC_HS_POLL_MS) < 0 && errno != EINTR)
			return -errno;
	}
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		return -EPROTO;
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
		if (cmsg->cmsg_level != SOL_QUIC ||
		    cmsg->cmsg_type != QUIC_HANDSHAKE_INFO ||
		    cmsg->cmsg_len < CMSG_LEN(sizeof(info)))
			continue;
		memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
		*level = info.crypto_level;
		return n;
	}
	return -EPROTO;
}

/* The loop of socket-api.md, section 4.3. */
static int quic_sock_run(int fd, struct quic_hs *hs)
{
	uint8_t level = 0;
	uint8_t *buf;
	ssize_t n;
	int err;

	buf = malloc(QUIC_HS_RECV_BUF);
	if (!buf)
		return -ENOMEM;
	err = quic_hs_start(hs);
	while (!err) {
		err = quic_hs_flush(hs);
		if (err || hs->complete)
			break;
		n = quic_sock_recv(fd, buf, QUIC_HS_RECV_BUF, &level);
		if (n < 0) {
			err = n;
			break;
		}
		err = quic_hs_input(hs, level, buf, n);
	}
	free(buf);
	return err;
}

/* Make close() report the TLS alert we raised (RFC 9001, section 4.8). */
static void quic_sock_set_close(int fd, const struct quic_hs *hs)
{
	struct quic_connection_close close;

	if (hs->alert < 0)
		return;
	memset(&close, 0, sizeof(close));
	close.errcode = QUIC_TRANSPORT_ERROR_CRYPTO + hs->alert;
	setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, &close,
		   sizeof(close));
}

static int quic_sock_handshake(int fd, gnutls_session_t session,
			       bool is_server, const struct quic_conf *conf)
{
	struct quic_hs hs;
	gnutls_datum_t proto;
	int err;

	err = quic_hs_init(&hs, session, is_server, &quic_sock_ops, &fd);
	if (err)
		return err;
	hs.conf = conf;
	hs.alpn_required = conf && conf->alpn;
	err = quic_sock_run(fd, &hs);
	if (err)
		quic_sock_set_close(fd, &hs);
	quic_hs_release(&hs);
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
 * The role is probed from the socket (QUIC_SOCKOPT_TOKEN) and must match
 * the session's.
 *
 * Return: 0 once the connection is established, else a negative errno.
 */
int quic_handshake(gnutls_session_t session)
{
	int fd = gnutls_transport_get_int(session);

	if (fd < 0)
		return quic_errno(-EBADF);
	return quic_errno(quic_sock_handshake(fd, session,
					      !quic_sock_is_client(fd), NULL));
}

static int quic_conf_handshake(int fd, struct quic_conf_args *args)
{
	struct quic_conf conf;
	int err;

	err = quic_conf_init(&conf, args);
	if (err)
		return err;
	gnutls_transport_set_int(conf.session, fd);
	err = quic_sock_handshake(fd, conf.session, args->is_server, &conf);
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
 * @alpns: comma-separated ALPN list, or NULL
 *
 * Return: 0 once the connection is established, else a negative errno
 * (errno is set too).
 */
int quic_client_handshake(int sockfd, const char *pkey_file,
			  const char *hostname, const char *alpns)
{
	struct quic_conf_args args;

	if (!quic_sock_is_client(sockfd))
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
 * @alpns: comma-separated ALPN list, or NULL to use the socket's own
 *	(inherited from the listener)
 *
 * Return: 0 once the connection is established, else a negative errno
 * (errno is set too).
 */
int quic_server_handshake(int sockfd, const char *pkey_file,
			  const char *cert_file, const char *alpns)
{
	uint8_t key[QUIC_TICKET_KEY_LEN];
	char alpn[QUIC_ALPN_MAX + 1];
	struct quic_conf_args args;
	gnutls_datum_t ticket;
	socklen_t len;
	int err;

	if (quic_sock_is_client(sockfd))
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
	/* The kernel's per-client ticket key makes resumption work (5.9). */
	len = sizeof(key);
	if (!getsockopt(sockfd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, key,
			&len) && len == sizeof(key)) {
		ticket.data = key;
		ticket.size = len;
		args.ticket_key = &ticket;
	}
	err = quic_conf_handshake(sockfd, &args);
	gnutls_memset(key, 0, sizeof(key));
	return quic_errno(err);
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
