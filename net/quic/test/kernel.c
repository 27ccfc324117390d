// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/kernel.c: the SOL_QUIC options of a socket made with
 * sock_create_kern(), values in kernel memory, as an application sees
 * them; and the errors a kernel user gets for a socket that is not
 * QUIC, an option that does not exist, or a buffer too small. And of
 * net/quic/handshake.c, as far as it runs without an agent: its errors.
 */

#include <linux/file.h>
#include <linux/in.h>
#include <linux/net.h>
#include <linux/quic.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "../sockopt.h"

#include "test.h"

static int quic_test_kernel_one(struct quic_test *t, int family)
{
	struct quic_event_option ev = { .type = QUIC_EVENT_STREAM_UPDATE,
					.on = 1 };
	struct quic_config cfg, got;
	const char *alpn = "h3,hq-interop";
	unsigned int len;
	struct socket *sock;
	char buf[32];
	int err;

	err = sock_create_kern(&init_net, family, SOCK_DGRAM, IPPROTO_QUIC,
			       &sock);
	if (err)
		return quic_test_fail(t, "sock_create_kern(%d): %d", family,
				      err);
	/* A kernel socket holds no reference on its namespace: its user
	 * closes it before the namespace goes (sk_alloc(), kern).
	 */
	if (sock->sk->sk_net_refcnt) {
		err = quic_test_fail(t, "kernel socket holds its netns");
		goto out;
	}
	len = sizeof(cfg);
	err = quic_kernel_getsockopt(sock->sk, QUIC_SOCKOPT_CONFIG, &cfg,
				     &len);
	if (err || len != sizeof(cfg)) {
		err = quic_test_fail(t, "get config: %d, %u bytes", err, len);
		goto out;
	}
	cfg.stream_data_nodelay = !cfg.stream_data_nodelay;
	err = quic_kernel_setsockopt(sock->sk, QUIC_SOCKOPT_CONFIG, &cfg,
				     sizeof(cfg));
	len = sizeof(got);
	if (!err)
		err = quic_kernel_getsockopt(sock->sk, QUIC_SOCKOPT_CONFIG,
					     &got, &len);
	if (err || memcmp(&cfg, &got, sizeof(cfg))) {
		err = quic_test_fail(t, "config not kept: %d", err);
		goto out;
	}
	err = quic_kernel_setsockopt(sock->sk, QUIC_SOCKOPT_ALPN,
				     (void *)alpn, strlen(alpn));
	len = sizeof(buf);
	if (!err)
		err = quic_kernel_getsockopt(sock->sk, QUIC_SOCKOPT_ALPN, buf,
					     &len);
	if (err || len != strlen(alpn) || memcmp(buf, alpn, len)) {
		err = quic_test_fail(t, "alpn: %d, %u bytes", err, len);
		goto out;
	}
	/* An option with an argument: the event asked for is read from
	 * the buffer, its state written back.
	 */
	err = quic_kernel_setsockopt(sock->sk, QUIC_SOCKOPT_EVENT, &ev,
				     sizeof(ev));
	ev.on = 0;
	len = sizeof(ev);
	if (!err)
		err = quic_kernel_getsockopt(sock->sk, QUIC_SOCKOPT_EVENT, &ev,
					     &len);
	if (err || !ev.on || len != sizeof(ev)) {
		err = quic_test_fail(t, "event: %d, on %u", err, ev.on);
		goto out;
	}
	/* QUIC_SOCKOPT_INFO: the first bytes of the layout, as TCP_INFO. */
	len = 8;
	err = quic_kernel_getsockopt(sock->sk, QUIC_SOCKOPT_INFO, buf, &len);
	if (err || len != 8)
		err = quic_test_fail(t, "info: %d, %u bytes", err, len);
out:
	sock_release(sock);
	return err;
}

static int quic_test_kernel_options(struct quic_test *t)
{
	return quic_test_kernel_one(t, AF_INET) ?:
	       quic_test_kernel_one(t, AF_INET6);
}

/* Each call expected to fail with @want. */
static int quic_test_kernel_err(struct quic_test *t, const char *what,
				int got, int want)
{
	if (got == want)
		return 0;
	return quic_test_fail(t, "%s: %d, want %d", what, got, want);
}

/* A QUIC and a UDP kernel socket, IPv4. */
static int quic_test_kernel_socks(struct quic_test *t, struct socket **sock,
				  struct socket **udp)
{
	int err;

	err = sock_create_kern(&init_net, AF_INET, SOCK_DGRAM, IPPROTO_QUIC,
			       sock);
	if (err)
		return quic_test_fail(t, "sock_create_kern: %d", err);
	err = sock_create_kern(&init_net, AF_INET, SOCK_DGRAM, IPPROTO_UDP,
			       udp);
	if (err) {
		sock_release(*sock);
		return quic_test_fail(t, "udp socket: %d", err);
	}
	return 0;
}

static int quic_test_kernel_errors(struct quic_test *t)
{
	struct quic_crypto_secret secret = {};
	struct socket *sock, *udp;
	unsigned int len;
	u8 buf[16];
	int err;

	err = quic_test_kernel_socks(t, &sock, &udp);
	if (err)
		return err;
	len = sizeof(buf);
	err = quic_test_kernel_err(t, "set on udp",
				   quic_kernel_setsockopt(udp->sk,
							  QUIC_SOCKOPT_ALPN,
							  "h3", 2), -EINVAL) ?:
	      quic_test_kernel_err(t, "get on udp",
				   quic_kernel_getsockopt(udp->sk,
							  QUIC_SOCKOPT_INFO,
							  buf, &len), -EINVAL) ?:
	      quic_test_kernel_err(t, "no socket",
				   quic_kernel_setsockopt(NULL,
							  QUIC_SOCKOPT_ALPN,
							  "h3", 2), -EINVAL) ?:
	      quic_test_kernel_err(t, "unknown option",
				   quic_kernel_getsockopt(sock->sk, 9999, buf,
							  &len),
				   -ENOPROTOOPT) ?:
	      quic_test_kernel_err(t, "set of a get-only option",
				   quic_kernel_setsockopt(sock->sk,
							  QUIC_SOCKOPT_INFO,
							  buf, sizeof(buf)),
				   -ENOPROTOOPT) ?:
	      quic_test_kernel_err(t, "short secret",
				   quic_kernel_setsockopt(sock->sk,
							  QUIC_SOCKOPT_CRYPTO_SECRET,
							  &secret, 3),
				   -EINVAL) ?:
	      quic_test_kernel_err(t, "value above the limit",
				   quic_kernel_setsockopt(sock->sk,
							  QUIC_SOCKOPT_ALPN,
							  buf,
							  QUIC_SOCKOPT_MAX_LEN + 1),
				   -EINVAL) ?:
	      quic_test_kernel_err(t, "alpn set",
				   quic_kernel_setsockopt(sock->sk,
							  QUIC_SOCKOPT_ALPN,
							  "smb", 3), 0);
	if (err)
		goto out;
	/* Buffers too small, or a length no getsockopt() takes. */
	len = 2;
	err = quic_test_kernel_err(t, "alpn into 2 bytes",
				   quic_kernel_getsockopt(sock->sk,
							  QUIC_SOCKOPT_ALPN,
							  buf, &len), -EINVAL);
	len = (unsigned int)INT_MAX + 1;
	if (!err)
		err = quic_test_kernel_err(t, "length above INT_MAX",
					   quic_kernel_getsockopt(sock->sk,
								  QUIC_SOCKOPT_INFO,
								  buf, &len),
					   -EINVAL);
out:
	sock_release(udp);
	sock_release(sock);
	return err;
}

/* The handshake upcall without an agent: a clean error at once, never
 * a wait. Without net/handshake (Linux 6.1) every call is -EOPNOTSUPP;
 * with it, a socket needs a file for the agent to be handed, and with
 * one, no agent listens here.
 */
static int quic_test_kernel_handshake(struct quic_test *t)
{
	struct quic_handshake_args args = { .timeout_ms = 2000 };
	struct socket *sock, *udp;
	struct file *file;
	int err;

	err = quic_test_kernel_socks(t, &sock, &udp);
	if (err)
		return err;
	err = quic_test_kernel_err(t, "no socket",
				   quic_handshake_client(NULL, &args),
				   -EINVAL) ?:
	      quic_test_kernel_err(t, "no arguments",
				   quic_handshake_client(sock, NULL),
				   -EINVAL) ?:
	      quic_test_kernel_err(t, "a udp socket",
				   quic_handshake_server(udp, &args),
				   -EINVAL);
	sock_release(udp);
	if (err)
		goto out;
	if (!IS_ENABLED(CONFIG_NET_HANDSHAKE)) {
		err = quic_test_kernel_err(t, "client, no net/handshake",
					   quic_handshake_client(sock, &args),
					   -EOPNOTSUPP) ?:
		      quic_test_kernel_err(t, "server, no net/handshake",
					   quic_handshake_server(sock, &args),
					   -EOPNOTSUPP);
		goto out;
	}
	err = quic_test_kernel_err(t, "no file",
				   quic_handshake_client(sock, &args), -EBADF);
	if (err)
		goto out;
	file = sock_alloc_file(sock, 0, NULL);	/* releases it on failure */
	if (IS_ERR(file))
		return quic_test_fail(t, "sock_alloc_file: %ld", PTR_ERR(file));
	/* net/handshake refuses a request no agent listens for. */
	err = quic_test_kernel_err(t, "no agent",
				   quic_handshake_client(sock, &args), -ESRCH);
	fput(file);
	return err;
out:
	sock_release(sock);
	return err;
}

static const struct quic_test_case quic_kernel_cases[] = {
	QUIC_TEST_CASE(quic_test_kernel_options),
	QUIC_TEST_CASE(quic_test_kernel_errors),
	QUIC_TEST_CASE(quic_test_kernel_handshake),
};

const struct quic_test_suite quic_kernel_suite = {
	.name = "quic_kernel",
	.cases = quic_kernel_cases,
	.num_cases = ARRAY_SIZE(quic_kernel_cases),
};
