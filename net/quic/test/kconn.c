// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of a connection between two kernel sockets: a kernel user's
 * connect(), listen() and accept(), handshake data and stream data
 * through kernel_sendmsg() and kernel_recvmsg() with their control
 * messages, and the SOL_QUIC options through quic_kernel_setsockopt().
 *
 * The TLS handshake is stood in for: no TLS runs (kernels without
 * net/handshake have no way to reach an agent), so the helper below
 * carries each end's transport parameters to the other in handshake
 * messages of its own, and installs the same made-up traffic secrets
 * at both ends, as a TLS library would install the ones it derived.
 * The kernel sees the calls a handshake makes, in their order.
 */

#include <linux/completion.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/quic.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/tls.h>
#include <linux/uio.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "test.h"

#define QUIC_TEST_KCONN_BYTES	(1024 * 1024)
#define QUIC_TEST_KCONN_CHUNK	(64 * 1024)
#define QUIC_TEST_KCONN_TIMEO	(10 * HZ)
#define QUIC_TEST_KCONN_TP_MAX	1024

/* The made-up traffic secret of one level and direction. */
static void quic_test_kconn_secret(struct quic_crypto_secret *s, u8 level,
				   bool from_client, bool send)
{
	memset(s, 0, sizeof(*s));
	s->send = send;
	s->level = level;
	s->type = TLS_CIPHER_AES_GCM_128;
	memset(s->secret, 0x20 + level * 2 + from_client, 32);
}

static int quic_test_kconn_key(struct socket *sock, u8 level, bool client,
			       bool send)
{
	struct quic_crypto_secret s;
	int err;

	quic_test_kconn_secret(&s, level, client == send, send);
	err = quic_kernel_setsockopt(sock->sk, QUIC_SOCKOPT_CRYPTO_SECRET, &s,
				     sizeof(s));
	memzero_explicit(&s, sizeof(s));
	return err;
}

/* Both keys of @level, transmit before receive, as libquic installs
 * them.
 */
static int quic_test_kconn_install(struct socket *sock, u8 level,
				   bool client)
{
	return quic_test_kconn_key(sock, level, client, true) ?:
	       quic_test_kconn_key(sock, level, client, false);
}

/* @msg with one SOL_QUIC control message of @type and @len bytes in
 * @cbuf, of @size bytes: the message's data, zeroed.
 */
static void *quic_test_kconn_cmsg(struct msghdr *msg, u8 *cbuf, size_t size,
				  int type, size_t len)
{
	struct cmsghdr *cmsg;

	memset(msg, 0, sizeof(*msg));
	memset(cbuf, 0, size);
	msg->msg_control = cbuf;
	msg->msg_controllen = size;
	cmsg = CMSG_FIRSTHDR(msg);
	cmsg->cmsg_level = SOL_QUIC;
	cmsg->cmsg_type = type;
	cmsg->cmsg_len = CMSG_LEN(len);
	return CMSG_DATA(cmsg);
}

/* Send @len bytes of handshake data at @level. */
static int quic_test_kconn_hs_send(struct socket *sock, u8 level,
				   const void *data, u32 len)
{
	u8 cbuf[CMSG_SPACE(sizeof(struct quic_handshake_info))];
	struct kvec iov = { .iov_base = (void *)data, .iov_len = len };
	struct quic_handshake_info *info;
	struct msghdr msg;
	int n;

	info = quic_test_kconn_cmsg(&msg, cbuf, sizeof(cbuf),
				    QUIC_HANDSHAKE_INFO, sizeof(*info));
	info->crypto_level = level;
	msg.msg_flags = MSG_NOSIGNAL;
	n = kernel_sendmsg(sock, &msg, &iov, 1, len);
	return n == len ? 0 : (n < 0 ? n : -EIO);
}

/* Receive one handshake message, which must be at @level. */
static int quic_test_kconn_hs_recv(struct socket *sock, u8 level, u8 *buf,
				   u32 size)
{
	u8 cbuf[CMSG_SPACE(sizeof(struct quic_handshake_info))] = {};
	struct kvec iov = { .iov_base = buf, .iov_len = size };
	struct quic_handshake_info *info;
	struct msghdr msg = {};
	struct cmsghdr *cmsg;
	int n;

	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	n = kernel_recvmsg(sock, &msg, &iov, 1, size, 0);
	if (n <= 0)
		return n ?: -EPIPE;
	cmsg = (struct cmsghdr *)cbuf;
	if (msg.msg_controllen == sizeof(cbuf) ||
	    cmsg->cmsg_level != SOL_QUIC ||
	    cmsg->cmsg_type != QUIC_HANDSHAKE_INFO)
		return -EBADMSG;
	info = (struct quic_handshake_info *)CMSG_DATA(cmsg);
	return info->crypto_level == level ? n : -EBADMSG;
}

/* This end's transport parameters go to the other in a message of
 * @level; the other end takes them as a TLS library would.
 */
static int quic_test_kconn_tp_send(struct socket *sock, u8 level, u8 *buf)
{
	unsigned int len = QUIC_TEST_KCONN_TP_MAX;
	int err;

	err = quic_kernel_getsockopt(sock->sk,
				     QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, buf,
				     &len);
	return err ?: quic_test_kconn_hs_send(sock, level, buf, len);
}

static int quic_test_kconn_tp_recv(struct socket *sock, u8 level, u8 *buf)
{
	int n = quic_test_kconn_hs_recv(sock, level, buf,
					QUIC_TEST_KCONN_TP_MAX);

	if (n < 0)
		return n;
	return quic_kernel_setsockopt(sock->sk,
				      QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, buf, n);
}

static void quic_test_kconn_timeo(struct socket *sock)
{
	sock->sk->sk_rcvtimeo = QUIC_TEST_KCONN_TIMEO;
	sock->sk->sk_sndtimeo = QUIC_TEST_KCONN_TIMEO;
}

/* The client's half of the stand-in handshake, after connect(). */
static int quic_test_kconn_client_hs(struct socket *cli, u8 *buf,
				     const char **step)
{
	static const u8 fin[] = "client finished";
	int n;

	*step = "client: its transport parameters";
	n = quic_test_kconn_tp_send(cli, QUIC_CRYPTO_INITIAL, buf);
	if (n)
		return n;
	*step = "client: the server's Initial";
	n = quic_test_kconn_hs_recv(cli, QUIC_CRYPTO_INITIAL, buf,
				    QUIC_TEST_KCONN_TP_MAX);
	if (n < 0)
		return n;
	*step = "client: Handshake keys";
	n = quic_test_kconn_install(cli, QUIC_CRYPTO_HANDSHAKE, true);
	if (n)
		return n;
	*step = "client: the server's transport parameters";
	n = quic_test_kconn_tp_recv(cli, QUIC_CRYPTO_HANDSHAKE, buf);
	if (n)
		return n;
	*step = "client: 1-RTT keys";
	n = quic_test_kconn_install(cli, QUIC_CRYPTO_APP, true);
	if (n)
		return n;
	*step = "client: its Finished";
	return quic_test_kconn_hs_send(cli, QUIC_CRYPTO_HANDSHAKE, fin,
				       sizeof(fin));
}

/* The server's half, on the accepted socket. As with TLS, its 1-RTT
 * receive key comes with the client's Finished: the server completes
 * (and sends HANDSHAKE_DONE) only then.
 */
static int quic_test_kconn_server_hs(struct socket *srv, u8 *buf)
{
	static const u8 hello[] = "server hello";
	int n;

	n = quic_test_kconn_tp_recv(srv, QUIC_CRYPTO_INITIAL, buf) ?:
	    quic_test_kconn_hs_send(srv, QUIC_CRYPTO_INITIAL, hello,
				    sizeof(hello)) ?:
	    quic_test_kconn_install(srv, QUIC_CRYPTO_HANDSHAKE, false) ?:
	    quic_test_kconn_tp_send(srv, QUIC_CRYPTO_HANDSHAKE, buf) ?:
	    quic_test_kconn_key(srv, QUIC_CRYPTO_APP, false, true);
	if (n)
		return n;
	n = quic_test_kconn_hs_recv(srv, QUIC_CRYPTO_HANDSHAKE, buf,
				    QUIC_TEST_KCONN_TP_MAX);
	if (n < 0)
		return n;
	return quic_test_kconn_key(srv, QUIC_CRYPTO_APP, false, false);
}

static u8 quic_test_kconn_byte(u32 i, bool from_client)
{
	return (i * 31 + (i >> 12) + from_client) & 0xff;
}

/* Send QUIC_TEST_KCONN_BYTES on stream 0, FIN with the last. */
static int quic_test_kconn_send(struct socket *sock, bool client, u8 *buf)
{
	u8 cbuf[CMSG_SPACE(sizeof(struct quic_stream_info))];
	struct quic_stream_info *info;
	struct msghdr msg;
	struct kvec iov;
	u32 off, i, n;
	int ret;

	for (off = 0; off < QUIC_TEST_KCONN_BYTES; off += n) {
		n = min_t(u32, QUIC_TEST_KCONN_CHUNK,
			  QUIC_TEST_KCONN_BYTES - off);
		for (i = 0; i < n; i++)
			buf[i] = quic_test_kconn_byte(off + i, client);
		info = quic_test_kconn_cmsg(&msg, cbuf, sizeof(cbuf),
					    QUIC_STREAM_INFO, sizeof(*info));
		info->stream_id = 0;
		if (client && !off)
			info->stream_flags |= MSG_QUIC_STREAM_NEW;
		if (off + n == QUIC_TEST_KCONN_BYTES)
			info->stream_flags |= MSG_QUIC_STREAM_FIN;
		iov.iov_base = buf;
		iov.iov_len = n;
		ret = kernel_sendmsg(sock, &msg, &iov, 1, n);
		if (ret != n)
			return ret < 0 ? ret : -EIO;
	}
	return 0;
}

/* Receive stream 0 up to its FIN and check every byte. */
static int quic_test_kconn_recv(struct socket *sock, bool from_client,
				u8 *buf)
{
	u8 cbuf[CMSG_SPACE(sizeof(struct quic_stream_info))];
	struct quic_stream_info *info;
	struct msghdr msg;
	struct kvec iov;
	u32 off = 0, i;
	bool fin = false;
	int n;

	while (!fin) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		iov.iov_base = buf;
		iov.iov_len = QUIC_TEST_KCONN_CHUNK;
		n = kernel_recvmsg(sock, &msg, &iov, 1, iov.iov_len, 0);
		if (n < 0)
			return n;
		if (msg.msg_controllen == sizeof(cbuf))
			return -EBADMSG;	/* no QUIC_STREAM_INFO */
		info = (struct quic_stream_info *)
		       CMSG_DATA((struct cmsghdr *)cbuf);
		if (info->stream_id != 0 || off + n > QUIC_TEST_KCONN_BYTES)
			return -EBADMSG;
		for (i = 0; i < n; i++)
			if (buf[i] != quic_test_kconn_byte(off + i, from_client))
				return -EILSEQ;
		off += n;
		fin = info->stream_flags & MSG_QUIC_STREAM_FIN;
		if (!n && !fin)
			return -EPIPE;
	}
	return off == QUIC_TEST_KCONN_BYTES ? 0 : -EBADMSG;
}

struct quic_test_kconn_srv {
	struct socket *lsn;
	struct socket *srv;
	struct completion done;
	int err;
};

/* The server: accept, its half of the handshake, then read what the
 * client sends and send as much back.
 */
static int quic_test_kconn_server(void *arg)
{
	struct quic_test_kconn_srv *s = arg;
	u8 *buf;
	int err;

	buf = kmalloc(QUIC_TEST_KCONN_CHUNK, GFP_KERNEL);
	err = buf ? kernel_accept(s->lsn, &s->srv, 0) : -ENOMEM;
	if (!err) {
		quic_test_kconn_timeo(s->srv);
		err = quic_test_kconn_server_hs(s->srv, buf) ?:
		      quic_test_kconn_recv(s->srv, true, buf) ?:
		      quic_test_kconn_send(s->srv, false, buf);
	}
	kfree(buf);
	s->err = err;
	complete(&s->done);
	return 0;
}

static int quic_test_kconn_family(struct quic_test *t, int family)
{
	struct quic_test_kconn_srv s = { .err = -EINPROGRESS };
	struct sockaddr_storage ss = {};
	struct socket *cli = NULL;
	struct task_struct *task;
	const char *step;
	u8 *buf = NULL;
	int err, len;

	init_completion(&s.done);
	step = "listener";
	err = sock_create_kern(&init_net, family, SOCK_DGRAM, IPPROTO_QUIC,
			       &s.lsn);
	if (err)
		return quic_test_fail(t, "%s: %d", step, err);
	quic_test_kconn_timeo(s.lsn);
	ss.ss_family = family;
	if (family == AF_INET) {
		((struct sockaddr_in *)&ss)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
		len = sizeof(struct sockaddr_in);
	} else {
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
		len = sizeof(struct sockaddr_in6);
	}
	err = kernel_bind(s.lsn, (struct sockaddr *)&ss, len) ?:
	      kernel_listen(s.lsn, 1);
	if (!err && kernel_getsockname(s.lsn, (struct sockaddr *)&ss) < 0)
		err = -EINVAL;
	if (err)
		goto out;
	step = "server thread";
	task = kthread_run(quic_test_kconn_server, &s, "quic_test_kconn");
	if (IS_ERR(task)) {
		err = PTR_ERR(task);
		complete(&s.done);
		goto out;
	}
	step = "client";
	buf = kmalloc(QUIC_TEST_KCONN_CHUNK, GFP_KERNEL);
	err = buf ? sock_create_kern(&init_net, family, SOCK_DGRAM,
				     IPPROTO_QUIC, &cli) : -ENOMEM;
	if (err)
		goto out;
	quic_test_kconn_timeo(cli);
	step = "connect";
	err = kernel_connect(cli, (struct sockaddr *)&ss, len, 0) ?:
	      quic_test_kconn_client_hs(cli, buf, &step);
	if (err)
		goto out;
	step = "client send";
	err = quic_test_kconn_send(cli, true, buf);
	if (err)
		goto out;
	step = "client receive";
	err = quic_test_kconn_recv(cli, false, buf);
out:
	/* The server gives up on its own: every call has a timeout. */
	if (err && cli)
		kernel_sock_shutdown(cli, SHUT_RDWR);
	if (err)
		kernel_sock_shutdown(s.lsn, SHUT_RDWR);
	wait_for_completion(&s.done);
	if (!err && s.err)
		err = quic_test_fail(t, "server: %d", s.err);
	else if (err)
		err = quic_test_fail(t, "%s: %d (server %d)", step, err, s.err);
	if (cli)
		sock_release(cli);
	if (s.srv)
		sock_release(s.srv);
	sock_release(s.lsn);
	kfree(buf);
	return err;
}

/* A connection of two kernel sockets carries 1 MiB each way on a
 * stream, every byte checked, over IPv4 and IPv6.
 */
static int quic_test_kconn_transfer(struct quic_test *t)
{
	if (!quic_test_lo_up())
		return quic_test_skip(t, "lo is down");
	return quic_test_kconn_family(t, AF_INET) ?:
	       quic_test_kconn_family(t, AF_INET6);
}

static const struct quic_test_case quic_kconn_cases[] = {
	QUIC_TEST_CASE(quic_test_kconn_transfer),
};

const struct quic_test_suite quic_kconn_suite = {
	.name = "quic_kconn",
	.cases = quic_kconn_cases,
	.num_cases = ARRAY_SIZE(quic_kconn_cases),
};
