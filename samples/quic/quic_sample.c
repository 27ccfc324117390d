// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel user of QUIC: a client, a server, or both in one module,
 * working in the network namespace of whoever loads it.
 *
 * The module does its whole job while it loads, so that the outcome is
 * the exit status of insmod (or modprobe) and the lines it logs: it
 * opens QUIC sockets with sock_create_kern(), has the TLS handshake run
 * by the agent in user space through net/handshake
 * (quic_handshake_client() and quic_handshake_server()), then the
 * client sends @bytes on stream 0 and the server, once it has them all,
 * sends as many back. Each side checks what it received against the
 * pattern the other sends, by SHA-256. Unload it with rmmod afterwards.
 *
 *   ip netns exec NS modprobe quic_sample role=server addr=::1 port=4433 \
 *	alpn=sample psk=SERIAL keyring=SERIAL
 *   ip netns exec NS modprobe quic_sample role=client addr=::1 port=4433 \
 *	alpn=sample cert=SERIAL privkey=SERIAL peername=localhost
 *
 * The keys are key serials (keyctl(1)); see the "Kernel users" section of
 * Documentation/networking/quic.rst. Every wait is bounded by
 * @timeout_ms, so a silent peer or agent makes the load fail, not hang.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/sha2.h>
#include <linux/completion.h>
#include <linux/file.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/nsproxy.h>
#include <linux/quic.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <net/net_namespace.h>
#include <net/sock.h>

static char *role = "client";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "client, server, or both (a server and a client of it)");

static char *addr = "127.0.0.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 or IPv6 address to listen on or connect to");

static ushort port = 4433;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "UDP port");

static char *alpn = "sample";
module_param(alpn, charp, 0444);
MODULE_PARM_DESC(alpn, "ALPN (a comma-separated list for a server)");

static int psk;
module_param(psk, int, 0444);
MODULE_PARM_DESC(psk, "key serial of the PSK (its description is the identity)");

static int cert;
module_param(cert, int, 0444);
MODULE_PARM_DESC(cert, "key serial of our certificate (a server needs one, or a PSK)");

static int privkey;
module_param(privkey, int, 0444);
MODULE_PARM_DESC(privkey, "key serial of the certificate's private key");

static int keyring;
module_param(keyring, int, 0444);
MODULE_PARM_DESC(keyring, "key serial of the keyring the agent finds the keys in");

static char *peername;
module_param(peername, charp, 0444);
MODULE_PARM_DESC(peername, "the name a client checks the server's certificate against");

static uint bytes = SZ_1M;
module_param(bytes, uint, 0444);
MODULE_PARM_DESC(bytes, "bytes sent each way (at most 1 GiB)");

static uint seed = 1;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "seed of the client's data pattern; the server's is seed + 1");

static uint cert_request;
module_param(cert_request, uint, 0444);
MODULE_PARM_DESC(cert_request, "a server's ask for a client certificate: 0 none, 1 request, 2 require");

static uint timeout_ms = 10000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "bound of the handshake and of every wait (ms)");

#define QUIC_SAMPLE_CHUNK	65536
#define QUIC_SAMPLE_MAX		SZ_1G

/* A control message buffer of one QUIC_STREAM_INFO, aligned for it. */
union quic_sample_cmsg {
	struct cmsghdr	hdr;
	u8		buf[CMSG_SPACE(sizeof(struct quic_stream_info))];
};

/* Byte @off of the pattern of @s: any side can tell what the other sent. */
static u8 quic_sample_byte(u32 s, u32 off)
{
	u32 v = (off >> 2) * 0x9e3779b1U + s;

	v ^= v >> 16;
	v *= 0x85ebca6bU;
	v ^= v >> 13;
	return v >> ((off & 3) * 8);
}

static void quic_sample_fill(u8 *buf, u32 s, u32 off, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = quic_sample_byte(s, off + i);
}

static int quic_sample_sockaddr(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (in4_pton(addr, -1, (u8 *)&sin->sin_addr, '\0', NULL)) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	if (in6_pton(addr, -1, sin6->sin6_addr.s6_addr, '\0', NULL)) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return sizeof(*sin6);
	}
	return -EINVAL;
}

/* A QUIC socket of @net with its ALPN and timeouts set. */
static int quic_sample_socket(struct net *net, int family,
			      struct socket **sockp)
{
	struct socket *sock;
	int err;

	err = sock_create_kern(net, family, SOCK_STREAM, IPPROTO_QUIC, &sock);
	if (err)
		return err;
	err = quic_kernel_setsockopt(sock->sk, QUIC_SOCKOPT_ALPN, alpn,
				     strlen(alpn));
	if (err) {
		sock_release(sock);
		return err;
	}
	sock->sk->sk_rcvtimeo = msecs_to_jiffies(timeout_ms);
	sock->sk->sk_sndtimeo = msecs_to_jiffies(timeout_ms);
	*sockp = sock;
	return 0;
}

static void quic_sample_args(struct quic_handshake_args *a)
{
	memset(a, 0, sizeof(*a));
	a->timeout_ms = timeout_ms;
	a->peername = peername;
	a->keyring = keyring;
	a->psk = psk;
	a->cert = psk ? 0 : cert;
	a->privkey = psk ? 0 : privkey;
}

/* Send @bytes of pattern @s on stream 0, FIN with the last. */
static int quic_sample_send(struct socket *sock, u32 s, bool open, u8 *buf)
{
	union quic_sample_cmsg cbuf;
	struct quic_stream_info *info;
	struct cmsghdr *cmsg;
	struct msghdr msg;
	struct kvec iov;
	u32 off = 0, n;
	int ret;

	do {
		n = min_t(u32, QUIC_SAMPLE_CHUNK, bytes - off);
		quic_sample_fill(buf, s, off, n);
		memset(&msg, 0, sizeof(msg));
		memset(&cbuf, 0, sizeof(cbuf));
		msg.msg_control = &cbuf;
		msg.msg_controllen = sizeof(cbuf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_QUIC;
		cmsg->cmsg_type = QUIC_STREAM_INFO;
		cmsg->cmsg_len = CMSG_LEN(sizeof(*info));
		info = (struct quic_stream_info *)CMSG_DATA(cmsg);
		info->stream_id = 0;
		if (open && !off)
			info->stream_flags |= MSG_QUIC_STREAM_NEW;
		if (off + n == bytes)
			info->stream_flags |= MSG_QUIC_STREAM_FIN;
		iov.iov_base = buf;
		iov.iov_len = n;
		ret = kernel_sendmsg(sock, &msg, &iov, 1, n);
		if (ret != n)
			return ret < 0 ? ret : -EIO;
		off += n;
	} while (off < bytes);
	return 0;
}

/* Receive stream 0 to its FIN; its SHA-256 must be that of pattern @s. */
static int quic_sample_recv(struct socket *sock, u32 s, u8 *buf,
			    const char *who)
{
	u8 got[SHA256_DIGEST_SIZE], want[SHA256_DIGEST_SIZE];
	union quic_sample_cmsg cbuf;
	struct sha256_state rx, ref;
	struct quic_stream_info *info;
	struct msghdr msg;
	struct kvec iov;
	bool fin = false;
	u32 off = 0;
	int n;

	sha256_init(&rx);
	sha256_init(&ref);
	while (!fin) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_control = &cbuf;
		msg.msg_controllen = sizeof(cbuf);
		iov.iov_base = buf;
		iov.iov_len = QUIC_SAMPLE_CHUNK;
		n = kernel_recvmsg(sock, &msg, &iov, 1, iov.iov_len, 0);
		if (n < 0)
			return n;
		/* put_cmsg() lowers msg_controllen by what it wrote. */
		if (msg.msg_controllen == sizeof(cbuf) ||
		    cbuf.hdr.cmsg_level != SOL_QUIC ||
		    cbuf.hdr.cmsg_type != QUIC_STREAM_INFO ||
		    cbuf.hdr.cmsg_len != CMSG_LEN(sizeof(*info)))
			return -EBADMSG;
		info = (struct quic_stream_info *)CMSG_DATA(&cbuf.hdr);
		fin = info->stream_flags & MSG_QUIC_STREAM_FIN;
		if (info->stream_id != 0 || n > bytes - off || (!n && !fin))
			return -EBADMSG;
		sha256_update(&rx, buf, n);
		quic_sample_fill(buf, s, off, n);
		sha256_update(&ref, buf, n);
		off += n;
	}
	sha256_final(&rx, got);
	sha256_final(&ref, want);
	pr_info("%s: received %u bytes, sha256 %*phN\n", who, off,
		SHA256_DIGEST_SIZE, got);
	if (off != bytes || memcmp(got, want, sizeof(got)))
		return -EILSEQ;
	return 0;
}

/* After its last bytes the server waits for the client to close, so that
 * nothing it sent is cut short: a read then fails or sees no data. A
 * peer that keeps sending is given up on after @timeout_ms.
 */
static void quic_sample_linger(struct socket *sock, u8 *buf)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);
	struct kvec iov = { .iov_base = buf, .iov_len = QUIC_SAMPLE_CHUNK };
	struct msghdr msg = {};

	while (kernel_recvmsg(sock, &msg, &iov, 1, iov.iov_len, 0) > 0 &&
	       time_before(jiffies, end))
		;
}

/* After a failed handshake or transfer, if the connection is closed: the
 * code it was closed with (the peer's, if it sent CONNECTION_CLOSE; a TLS
 * alert is 0x100 + alert). A TLS 1.3 client learns so that the server
 * refused its certificate, its own handshake being over by then.
 */
static void quic_sample_closed(struct socket *sock, const char *who)
{
	struct quic_connection_close c;
	unsigned int len = sizeof(c);

	if (READ_ONCE(sock->sk->sk_state) != TCP_CLOSE ||
	    quic_kernel_getsockopt(sock->sk, QUIC_SOCKOPT_CONNECTION_CLOSE,
				   &c, &len))
		return;
	pr_info("%s: connection closed with error 0x%x, frame 0x%x, \"%.*s\"\n",
		who, c.errcode, c.frame, (int)sizeof(c.phrase), c.phrase);
}

static int quic_sample_client(struct net *net)
{
	struct quic_handshake_args args;
	struct sockaddr_storage ss;
	struct socket *sock;
	struct file *file;
	int len, err;
	u8 *buf;

	len = quic_sample_sockaddr(&ss);
	if (len < 0)
		return len;
	buf = kmalloc(QUIC_SAMPLE_CHUNK, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = quic_sample_socket(net, ss.ss_family, &sock);
	if (err)
		goto out;
	file = sock_alloc_file(sock, 0, NULL);	/* on failure, frees sock */
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		goto out;
	}
	err = kernel_connect(sock, (struct sockaddr *)&ss, len, 0);
	if (err) {
		pr_err("client: connect: %d\n", err);
		goto put;
	}
	quic_sample_args(&args);
	err = quic_handshake_client(sock, &args);
	if (err) {
		pr_err("client: handshake: %d\n", err);
		quic_sample_closed(sock, "client");
		goto put;
	}
	pr_info("client: handshake done (%s, peer key %d)\n",
		psk ? "psk" : "x509", args.peerid);
	err = quic_sample_send(sock, seed, true, buf) ?:
	      quic_sample_recv(sock, seed + 1, buf, "client");
	if (err) {
		pr_err("client: transfer: %d\n", err);
		quic_sample_closed(sock, "client");
	} else {
		pr_info("client: sent %u bytes and got %u back: ok\n", bytes,
			bytes);
	}
put:
	/* Close now: fput() here, in the loader's context, is deferred
	 * until the load returns, and the server waits for the close.
	 */
	kernel_sock_shutdown(sock, SHUT_RDWR);
	fput(file);
out:
	kfree(buf);
	return err;
}

struct quic_sample_server {
	struct net		*net;
	struct socket		*lsn;
	struct completion	done;
	bool			kthread;
	int			err;
};

static int quic_sample_listen(struct quic_sample_server *s)
{
	struct sockaddr_storage ss;
	int len, err;

	len = quic_sample_sockaddr(&ss);
	if (len < 0)
		return len;
	err = quic_sample_socket(s->net, ss.ss_family, &s->lsn);
	if (err)
		return err;
	err = kernel_bind(s->lsn, (struct sockaddr *)&ss, len) ?:
	      kernel_listen(s->lsn, 1);
	if (err) {
		sock_release(s->lsn);
		return err;
	}
	pr_info("server: listening on %s port %u\n", addr, port);
	return 0;
}

/* Accept one connection, run its handshake, read, answer, linger. */
static int quic_sample_serve(struct quic_sample_server *s)
{
	struct quic_handshake_args args;
	struct socket *sock;
	struct file *file;
	int err;
	u8 *buf;

	buf = kmalloc(QUIC_SAMPLE_CHUNK, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = kernel_accept(s->lsn, &sock, 0);
	if (err) {
		pr_err("server: accept: %d\n", err);
		goto out;
	}
	file = sock_alloc_file(sock, 0, NULL);	/* on failure, frees sock */
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		goto out;
	}
	/* The agent asks the client for a certificate as this says (a zero
	 * field of a config leaves its value as it is).
	 */
	if (cert_request) {
		struct quic_config cfg = {
			.certificate_request = cert_request,
		};

		err = quic_kernel_setsockopt(sock->sk, QUIC_SOCKOPT_CONFIG,
					     &cfg, sizeof(cfg));
		if (err) {
			pr_err("server: certificate request: %d\n", err);
			goto put;
		}
	}
	quic_sample_args(&args);
	err = quic_handshake_server(sock, &args);
	if (err) {
		pr_err("server: handshake: %d\n", err);
		quic_sample_closed(sock, "server");
		goto put;
	}
	pr_info("server: handshake done (%s, peer key %d)\n",
		psk ? "psk" : "x509", args.peerid);
	err = quic_sample_recv(sock, seed, buf, "server") ?:
	      quic_sample_send(sock, seed + 1, false, buf);
	if (err) {
		pr_err("server: transfer: %d\n", err);
		quic_sample_closed(sock, "server");
		goto put;
	}
	quic_sample_linger(sock, buf);
	pr_info("server: got %u bytes and sent %u back: ok\n", bytes, bytes);
put:
	/* A kthread's fput() would go to a workqueue, past our hold on the
	 * namespace: release it here (the agent may hold the last reference,
	 * from inside the namespace).
	 */
	if (s->kthread)
		__fput_sync(file);
	else
		fput(file);
out:
	kfree(buf);
	return err;
}

static int quic_sample_server_thread(void *arg)
{
	struct quic_sample_server *s = arg;

	s->err = quic_sample_serve(s);
	/* Init may return, and the module go, once done is complete. */
	kthread_complete_and_exit(&s->done, 0);
}

static int __init quic_sample_init(void)
{
	struct quic_sample_server s = {};
	struct task_struct *t;
	bool client, server;
	int err, cerr;

	client = !strcmp(role, "client") || !strcmp(role, "both");
	server = !strcmp(role, "server") || !strcmp(role, "both");
	if ((!client && !server) || !bytes || bytes > QUIC_SAMPLE_MAX ||
	    !timeout_ms || cert_request > 2 ||
	    (server && !psk && (!cert || !privkey)))
		return -EINVAL;

	/* Kernel sockets hold no reference on their namespace: we hold one
	 * while we work. What outlives the load is released by the loader
	 * (its deferred fput()) or by the agent, both in the namespace.
	 */
	s.net = get_net(current->nsproxy->net_ns);
	init_completion(&s.done);
	if (!server) {
		err = quic_sample_client(s.net);
		goto out;
	}
	err = quic_sample_listen(&s);
	if (err)
		goto out;
	if (!client) {
		err = quic_sample_serve(&s);
		goto release;
	}
	s.kthread = true;
	t = kthread_run(quic_sample_server_thread, &s, "quic_sample");
	if (IS_ERR(t)) {
		err = PTR_ERR(t);
		goto release;
	}
	cerr = quic_sample_client(s.net);
	/* Bounded: accept and every read and write time out. */
	wait_for_completion(&s.done);
	err = cerr ?: s.err;
release:
	sock_release(s.lsn);
out:
	put_net(s.net);
	if (err)
		pr_err("%s: failed: %d\n", role, err);
	return err;
}

static void __exit quic_sample_exit(void)
{
}

module_init(quic_sample_init);
module_exit(quic_sample_exit);

MODULE_DESCRIPTION("A kernel client and server of QUIC, with the handshake through net/handshake");
MODULE_LICENSE("GPL");
