// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC socket basics: creation, identity, bind, names, options, poll and
 * cleanup, for both address families and both socket types, plus the
 * layout of the UAPI structures.
 *
 * The tests marked "not yet" check that what needs a connection fails
 * loudly with EOPNOTSUPP; they change when the protocol arrives. The
 * connection-independent SOL_QUIC options are tested in sockopt.c.
 */

#define _GNU_SOURCE

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/quic.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"
#include "quic_common.h"

/* The layout of the UAPI is part of the contract (LP64). */
#define OFF(type, field, off) \
	static_assert(offsetof(struct type, field) == (off), #type "." #field)
#define SIZE(type, size) \
	static_assert(sizeof(struct type) == (size), "sizeof " #type)

static_assert(IPPROTO_QUIC == 261, "IPPROTO_QUIC");
static_assert(SOL_QUIC == 288, "SOL_QUIC");

SIZE(quic_handshake_info, 1);
SIZE(quic_stream_info, 16);
OFF(quic_stream_info, stream_flags, 8);
SIZE(quic_transport_param, 56);
OFF(quic_transport_param, active_connection_id_limit, 6);
OFF(quic_transport_param, ack_delay_exponent, 7);
OFF(quic_transport_param, max_datagram_frame_size, 8);
OFF(quic_transport_param, max_udp_payload_size, 10);
OFF(quic_transport_param, max_idle_timeout, 12);
OFF(quic_transport_param, max_ack_delay, 16);
OFF(quic_transport_param, max_streams_bidi, 20);
OFF(quic_transport_param, max_streams_uni, 22);
OFF(quic_transport_param, max_data, 24);
OFF(quic_transport_param, max_stream_data_bidi_local, 32);
OFF(quic_transport_param, max_stream_data_bidi_remote, 40);
OFF(quic_transport_param, max_stream_data_uni, 48);
SIZE(quic_config, 28);
OFF(quic_config, plpmtud_probe_interval, 4);
OFF(quic_config, initial_smoothed_rtt, 8);
OFF(quic_config, payload_cipher_type, 12);
OFF(quic_config, congestion_control_algo, 16);
OFF(quic_config, certificate_request, 20);
OFF(quic_config, reserved, 21);
OFF(quic_config, keepalive_probe_interval, 24);
SIZE(quic_crypto_secret, 56);
OFF(quic_crypto_secret, level, 1);
OFF(quic_crypto_secret, reserved, 2);
OFF(quic_crypto_secret, type, 4);
OFF(quic_crypto_secret, secret, 8);
SIZE(quic_errinfo, 16);
OFF(quic_errinfo, errcode, 8);
SIZE(quic_connection_id_info, 12);
OFF(quic_connection_id_info, active, 4);
OFF(quic_connection_id_info, prior_to, 8);
SIZE(quic_event_option, 2);
OFF(quic_event_option, on, 1);
SIZE(quic_stream_update, 24);
OFF(quic_stream_update, state, 8);
OFF(quic_stream_update, errcode, 12);
OFF(quic_stream_update, finalsz, 16);
SIZE(quic_stream_max_data, 16);
OFF(quic_stream_max_data, max_data, 8);
SIZE(quic_connection_close, 72);
OFF(quic_connection_close, frame, 4);
OFF(quic_connection_close, phrase, 8);
static_assert(sizeof(union quic_event) == 72, "sizeof quic_event");
static_assert(__alignof__(union quic_event) == 8, "alignof quic_event");
static_assert(QUIC_CRYPTO_SECRET_BUFFER_SIZE == 48, "secret size");
static_assert(QUIC_CLOSE_PHRASE_BUFFER_SIZE == 64, "phrase size");

static_assert(MSG_QUIC_STREAM_NEW == 0x400 && MSG_QUIC_STREAM_FIN == 0x200 &&
	      MSG_QUIC_STREAM_UNI == 0x800 &&
	      MSG_QUIC_STREAM_DONTWAIT == 0x10000 &&
	      MSG_QUIC_STREAM_SNDBLOCK == 0x2000 &&
	      MSG_QUIC_DATAGRAM == 0x1000 && MSG_QUIC_NOTIFICATION == 0x8000,
	      "message flags");
static_assert((MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN |
	       MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_DONTWAIT |
	       MSG_QUIC_STREAM_SNDBLOCK) == 0x12e00, "stream flags");
static_assert(QUIC_CRYPTO_APP == 0 && QUIC_CRYPTO_INITIAL == 1 &&
	      QUIC_CRYPTO_HANDSHAKE == 2 && QUIC_CRYPTO_EARLY == 3 &&
	      QUIC_CRYPTO_MAX == 4, "crypto levels");
static_assert(QUIC_STREAM_INFO == 0 && QUIC_HANDSHAKE_INFO == 1, "cmsgs");
static_assert(QUIC_VERSION_V1 == 1 && QUIC_VERSION_V2 == 0x6b3343cf,
	      "versions");
static_assert(QUIC_CONG_ALG_CUBIC == 1 && QUIC_CONG_ALG_MAX == 2, "cong");
static_assert(QUIC_SOCKOPT_EVENT == 0 && QUIC_SOCKOPT_CONNECTION_CLOSE == 5 &&
	      QUIC_SOCKOPT_TRANSPORT_PARAM == 8 &&
	      QUIC_SOCKOPT_CRYPTO_SECRET == 13 &&
	      QUIC_SOCKOPT_TRANSPORT_PARAM_EXT == 14, "option numbers");
static_assert(QUIC_EVENT_CONNECTION_CLOSE == 5 &&
	      QUIC_EVENT_NEW_SESSION_TICKET == 9 && QUIC_EVENT_MAX == 10,
	      "event types");
static_assert(QUIC_STREAM_SEND_STATE_RESET_RECVD == 5 &&
	      QUIC_STREAM_RECV_STATE_RECV == 6 &&
	      QUIC_STREAM_RECV_STATE_RESET_READ == 11, "stream states");
static_assert(QUIC_TRANSPORT_ERROR_APPLICATION == 0x0c &&
	      QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION == 0x11 &&
	      QUIC_TRANSPORT_ERROR_CRYPTO == 0x100, "transport errors");

/* A port nothing else in the VM uses. */
#define TEST_PORT	40443

/* Sockets of one QUIC proto in this netns, from /proc/net/protocols. */
static int proto_sockets(const char *proto)
{
	return proc_value("/proc/net/protocols", proto, 2);
}

/*
 * A socket that is not QUIC refuses level SOL_QUIC with ENOPROTOOPT on
 * setsockopt() (getsockopt() of other levels gives EOPNOTSUPP on inet
 * sockets); a QUIC socket never refuses QUIC_SOCKOPT_EVENT so.
 */
static bool not_quic(int fd)
{
	struct quic_event_option ev = { .type = QUIC_EVENT_STREAM_UPDATE };

	return setopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev,
			  sizeof(ev)) == ENOPROTOOPT;
}

FIXTURE(quic_sock) {
	int fd;
};

FIXTURE_VARIANT(quic_sock) {
	int family;
	int type;
};

#define QUIC_FIXTURE		quic_sock
#define QUIC_VARIANTS_SOCK_TYPE
#include "quic_variants.h"

FIXTURE_SETUP(quic_sock)
{
	self->fd = socket(variant->family, variant->type, IPPROTO_QUIC);
	ASSERT_GE(self->fd, 0) {
		TH_LOG("socket(IPPROTO_QUIC): %s", strerror(errno));
	}
}

FIXTURE_TEARDOWN(quic_sock)
{
	if (self->fd >= 0) {
		EXPECT_EQ(0, close(self->fd)) {
			TH_LOG("close: %s", strerror(errno));
		}
	}
}

TEST_F(quic_sock, create_close)
{
	int fd, fd2;

	fd = socket(variant->family, variant->type | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, IPPROTO_QUIC);
	ASSERT_GE(fd, 0);
	fd2 = socket(variant->family, variant->type, IPPROTO_QUIC);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(0, close(fd2));
	EXPECT_EQ(0, close(fd));
}

TEST_F(quic_sock, identity)
{
	socklen_t len;
	int val;

	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, SOL_SOCKET, SO_TYPE, &val, &len));
	EXPECT_EQ(variant->type, val);
	EXPECT_EQ(sizeof(val), len);

	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, SOL_SOCKET, SO_PROTOCOL, &val,
				&len));
	EXPECT_EQ(IPPROTO_QUIC, val);

	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, SOL_SOCKET, SO_DOMAIN, &val, &len));
	EXPECT_EQ(variant->family, val);

	EXPECT_FALSE(not_quic(self->fd));
}

TEST_F(quic_sock, getsockname_unbound)
{
	struct sockaddr_storage ss, want;
	socklen_t len = sizeof(ss), wlen;

	wlen = make_addr(&want, variant->family, wildcard(variant->family), 0);
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&ss, &len));
	EXPECT_EQ(wlen, len);
	EXPECT_EQ(0, memcmp(&want, &ss, wlen));
}

TEST_F(quic_sock, bind_loopback)
{
	struct sockaddr_storage ss, want;
	socklen_t len = sizeof(ss), wlen;

	ASSERT_EQ(0, bind_err(self->fd, variant->family,
			      loopback(variant->family), TEST_PORT));
	wlen = make_addr(&want, variant->family, loopback(variant->family),
			 TEST_PORT);
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&ss, &len));
	EXPECT_EQ(wlen, len);
	EXPECT_EQ(0, memcmp(&want, &ss, wlen));
}

TEST_F(quic_sock, bind_loopback_port0)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	ASSERT_EQ(0, bind_err(self->fd, variant->family,
			      loopback(variant->family), 0));
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&ss, &len));
	EXPECT_EQ(variant->family, ss.ss_family);
	/* The shared UDP socket picked a port. */
	EXPECT_NE(0, addr_port(&ss));
}

TEST_F(quic_sock, bind_wildcard)
{
	struct sockaddr_storage ss, want;
	socklen_t len = sizeof(ss), wlen;

	ASSERT_EQ(0, bind_err(self->fd, variant->family,
			      wildcard(variant->family), TEST_PORT));
	wlen = make_addr(&want, variant->family, wildcard(variant->family),
			 TEST_PORT);
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&ss, &len));
	EXPECT_EQ(wlen, len);
	EXPECT_EQ(0, memcmp(&want, &ss, wlen));
}

TEST_F(quic_sock, bind_twice)
{
	ASSERT_EQ(0, bind_err(self->fd, variant->family,
			      wildcard(variant->family), 0));
	EXPECT_EQ(EINVAL, bind_err(self->fd, variant->family,
				   wildcard(variant->family), 0));
	EXPECT_EQ(EINVAL, bind_err(self->fd, variant->family,
				   loopback(variant->family), TEST_PORT));
}

TEST_F(quic_sock, bind_short)
{
	struct sockaddr_storage ss;
	socklen_t len;

	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&ss, len - 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&ss, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&ss, 0));
	EXPECT_EQ(EINVAL, errno);
	/* The socket is still unbound. */
	EXPECT_EQ(0, bind(self->fd, (struct sockaddr *)&ss, len));
}

TEST_F(quic_sock, bind_bad_family)
{
	struct sockaddr_storage ss;
	socklen_t len;

	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ss.ss_family = AF_UNIX;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&ss, len));
	EXPECT_EQ(EAFNOSUPPORT, errno);
	ss.ss_family = AF_UNSPEC;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&ss, len));
	EXPECT_EQ(EAFNOSUPPORT, errno);
}

/* IPv4 addresses on an AF_INET6 socket; IPv6 ones on AF_INET are refused. */
TEST_F(quic_sock, bind_other_family)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (variant->family == AF_INET) {
		EXPECT_EQ(EAFNOSUPPORT, bind_err(self->fd, AF_INET6, "::1", 0));
		EXPECT_EQ(EAFNOSUPPORT, bind_err(self->fd, AF_INET6,
						 "::ffff:127.0.0.1", 0));
		return;
	}
	ASSERT_EQ(0, bind_err(self->fd, AF_INET, "127.0.0.1", TEST_PORT));
	memset(&sin, 0, sizeof(sin));
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&sin, &len));
	EXPECT_EQ(sizeof(sin), len);
	EXPECT_EQ(AF_INET, sin.sin_family);
	EXPECT_EQ(htonl(INADDR_LOOPBACK), sin.sin_addr.s_addr);
	EXPECT_EQ(htons(TEST_PORT), sin.sin_port);
}

TEST_F(quic_sock, bind_v4mapped)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (variant->family == AF_INET)
		SKIP(return, "AF_INET6 only");
	ASSERT_EQ(0, bind_err(self->fd, AF_INET6, "::ffff:127.0.0.1",
			      TEST_PORT));
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&sin, &len));
	EXPECT_EQ(sizeof(sin), len);
	EXPECT_EQ(AF_INET, sin.sin_family);
	EXPECT_EQ(htonl(INADDR_LOOPBACK), sin.sin_addr.s_addr);
	EXPECT_EQ(htons(TEST_PORT), sin.sin_port);
}

TEST_F(quic_sock, bind_v6only)
{
	int on = 1;

	if (variant->family == AF_INET) {
		EXPECT_EQ(ENOPROTOOPT, setopt_err(self->fd, IPPROTO_IPV6,
						  IPV6_V6ONLY, &on,
						  sizeof(on)));
		return;
	}
	ASSERT_EQ(0, setopt_err(self->fd, IPPROTO_IPV6, IPV6_V6ONLY, &on,
				sizeof(on)));
	EXPECT_EQ(EINVAL, bind_err(self->fd, AF_INET, "127.0.0.1", 0));
	EXPECT_EQ(EINVAL, bind_err(self->fd, AF_INET6, "::ffff:127.0.0.1", 0));
	EXPECT_EQ(0, bind_err(self->fd, AF_INET6, "::1", 0));
	/* Bound: V6ONLY can no longer change. */
	on = 0;
	EXPECT_EQ(EINVAL, setopt_err(self->fd, IPPROTO_IPV6, IPV6_V6ONLY, &on,
				     sizeof(on)));
}

TEST_F(quic_sock, bind_multicast)
{
	if (variant->family == AF_INET) {
		EXPECT_EQ(EINVAL, bind_err(self->fd, AF_INET, "224.0.0.1", 0));
		EXPECT_EQ(EINVAL, bind_err(self->fd, AF_INET, "239.1.2.3",
					   TEST_PORT));
		return;
	}
	EXPECT_EQ(EINVAL, bind_err(self->fd, AF_INET6, "ff02::1", 0));
	EXPECT_EQ(EINVAL, bind_err(self->fd, AF_INET6, "ff0e::1", TEST_PORT));
	EXPECT_EQ(EINVAL, bind_err(self->fd, AF_INET6, "::ffff:224.0.0.1", 0));
	EXPECT_EQ(EINVAL, bind_err(self->fd, AF_INET, "224.0.0.1", 0));
	/* Nothing was recorded. */
	EXPECT_EQ(0, bind_err(self->fd, AF_INET6, "::1", 0));
}

TEST_F(quic_sock, bind_nonlocal)
{
	if (variant->family == AF_INET) {
		EXPECT_EQ(EADDRNOTAVAIL, bind_err(self->fd, AF_INET,
						  "192.0.2.1", 0));
		EXPECT_EQ(EADDRNOTAVAIL, bind_err(self->fd, AF_INET,
						  "255.255.255.255", 0));
	} else {
		EXPECT_EQ(EADDRNOTAVAIL, bind_err(self->fd, AF_INET6,
						  "2001:db8::1", 0));
		EXPECT_EQ(EADDRNOTAVAIL, bind_err(self->fd, AF_INET6,
						  "::ffff:192.0.2.1", 0));
	}
	EXPECT_EQ(0, bind_err(self->fd, variant->family,
			      loopback(variant->family), 0));
}

TEST_F(quic_sock, bind_linklocal)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	if (variant->family == AF_INET)
		SKIP(return, "AF_INET6 only");
	make_addr(&ss, AF_INET6, "fe80::1", 0);
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)sin6, sizeof(*sin6)));
	EXPECT_EQ(EINVAL, errno);
	/* A scope ID that names no interface. */
	sin6->sin6_scope_id = 0x7ffffff0;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)sin6, sizeof(*sin6)));
	EXPECT_EQ(EINVAL, errno);
	/* A real interface without that address. */
	sin6->sin6_scope_id = if_nametoindex("lo");
	ASSERT_NE(0U, sin6->sin6_scope_id);
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)sin6, sizeof(*sin6)));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
}

TEST_F(quic_sock, getpeername_unconnected)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	EXPECT_EQ(-1, getpeername(self->fd, (struct sockaddr *)&ss, &len));
	EXPECT_EQ(ENOTCONN, errno);
}

/* connect() needs a peer address and port (handshake.c goes further). */
TEST_F(quic_sock, connect_bad_addr)
{
	struct sockaddr_storage ss;
	socklen_t len;

	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	EXPECT_EQ(-1, connect(self->fd, (struct sockaddr *)&ss, len));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, connect(self->fd, (struct sockaddr *)&ss, 1));
	EXPECT_EQ(EINVAL, errno);
}

/* listen() needs a backlog; accept() a listener. */
TEST_F(quic_sock, listen_accept)
{
	ASSERT_EQ(0, bind_err(self->fd, variant->family,
			      loopback(variant->family), TEST_PORT));
	EXPECT_EQ(-1, accept(self->fd, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, listen(self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, listen(self->fd, 8));
	EXPECT_EQ(-1, accept_nb(self->fd));
	EXPECT_EQ(EAGAIN, errno);
}

/* Start @b, wait until it blocks, run @stop on its listener (its errno,
 * or 0, in *@stopped) and return whether @b was woken
 * (blocked_call_finish()), or -1 if it never blocked.
 */
static int wake_blocked(struct blocked_call *b, int (*stop)(int fd),
			int *stopped)
{
	int asleep;

	if (blocked_call_start(b))
		return -1;
	asleep = blocked_call_asleep(b);
	*stopped = stop(b->fd) ? errno : 0;
	return blocked_call_finish(b) && asleep == 1 ? 1 : -1;
}

static int stop_shut_rd(int fd)
{
	return shutdown(fd, SHUT_RD);
}

static int stop_shut_rdwr(int fd)
{
	return shutdown(fd, SHUT_RDWR);
}

static int stop_listen0(int fd)
{
	return listen(fd, 0);
}

static const struct {
	const char *name;
	int (*stop)(int fd);
	short hup;		/* what poll() reports afterwards */
} listener_stops[] = {
	{ "shutdown(SHUT_RD)", stop_shut_rd, POLLHUP | POLLIN | POLLRDHUP },
	{ "shutdown(SHUT_RDWR)", stop_shut_rdwr, POLLHUP | POLLIN | POLLRDHUP },
	{ "listen(0)", stop_listen0, POLLHUP },
};

/* As on TCP: shutdown(SHUT_RD or SHUT_RDWR) and listen(fd, 0) stop a
 * listener and wake a blocked accept() with EINVAL and a blocked poll()
 * with POLLHUP; listen() then works again. SHUT_WR does nothing.
 */
TEST_F(quic_sock, listener_stop_wakes)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN | POLLRDHUP };
	struct sockaddr_storage ss;
	socklen_t len;
	size_t i;

	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->fd, (struct sockaddr *)&ss, len));
	for (i = 0; i < ARRAY_SIZE(listener_stops); i++) {
		struct blocked_call a = { .fd = self->fd, .op = BLOCKED_ACCEPT };
		struct blocked_call p = { .fd = self->fd, .op = BLOCKED_POLL };
		int stopped = -1;

		ASSERT_EQ(0, listen(self->fd, 4));
		EXPECT_EQ(0, shutdown(self->fd, SHUT_WR));
		EXPECT_EQ(-1, accept_nb(self->fd));
		EXPECT_EQ(EAGAIN, errno);
		ASSERT_EQ(0, fcntl(self->fd, F_SETFL, 0));
		EXPECT_EQ(1, wake_blocked(&a, listener_stops[i].stop,
					  &stopped)) {
			TH_LOG("%s: accept() not woken",
			       listener_stops[i].name);
		}
		EXPECT_EQ(0, stopped);
		EXPECT_EQ(-1, a.ret);
		EXPECT_EQ(EINVAL, a.err) {
			TH_LOG("%s: accept(): %s", listener_stops[i].name,
			       strerror(a.err));
		}
		EXPECT_EQ(1, poll(&pfd, 1, 0));
		EXPECT_EQ(listener_stops[i].hup, pfd.revents);
		EXPECT_EQ(-1, accept(self->fd, NULL, NULL));
		EXPECT_EQ(EINVAL, errno);
		/* Not a connection: recvmsg() does not wait either. */
		EXPECT_EQ(-1, recv(self->fd, &len, 1, 0));
		EXPECT_EQ(ENOTCONN, errno);

		ASSERT_EQ(0, listen(self->fd, 4));
		EXPECT_EQ(0, poll(&pfd, 1, 0));
		stopped = -1;
		EXPECT_EQ(1, wake_blocked(&p, listener_stops[i].stop,
					  &stopped)) {
			TH_LOG("%s: poll() not woken",
			       listener_stops[i].name);
		}
		EXPECT_EQ(0, stopped);
		EXPECT_EQ(1, p.ret);
		EXPECT_EQ(listener_stops[i].hup, p.revents);
	}
	/* Stopped: shutdown() again finds nothing to shut down. */
	EXPECT_EQ(-1, shutdown(self->fd, SHUT_RDWR));
	EXPECT_EQ(ENOTCONN, errno);
}

/* Without a connection: stream sends give EPIPE (quic-api.rst 5.2), a
 * zero-length one without FIN EMSGSIZE.
 */
TEST_F(quic_sock, send_recv_not_yet)
{
	char buf[16] = "hello";
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	EXPECT_EQ(-1, send(self->fd, buf, 5, MSG_NOSIGNAL));
	EXPECT_EQ(EPIPE, errno);
	EXPECT_EQ(-1, sendmsg(self->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT));
	EXPECT_EQ(EPIPE, errno);
	EXPECT_EQ(-1, send(self->fd, buf, 0, MSG_NOSIGNAL));
	EXPECT_EQ(EMSGSIZE, errno);
	/* Not a connection: nothing to read (quic-api.rst 4.3 c). */
	EXPECT_EQ(-1, recv(self->fd, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, recvmsg(self->fd, &msg, 0));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(ENOTCONN, errno);
}

/* Send @n iovecs of handshake data at @level (quic-api.rst 4.3 (b)). */
static ssize_t hs_send(int fd, struct iovec *iov, int n, int level,
		       int flags)
{
	struct quic_handshake_info info = { .crypto_level = level };
	char ctl[CMSG_SPACE(sizeof(info))] = {};
	struct msghdr m = {
		.msg_iov = iov, .msg_iovlen = n,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_QUIC;
	c->cmsg_type = QUIC_HANDSHAKE_INFO;
	c->cmsg_len = CMSG_LEN(sizeof(info));
	memcpy(CMSG_DATA(c), &info, sizeof(info));
	return sendmsg(fd, &m, flags | MSG_NOSIGNAL);
}

/* Connect @fd to a UDP socket that takes the Initials and never answers:
 * that socket, or -1.
 */
static int connect_to_sink(int fd, int family)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int sink;

	sink = socket(family, SOCK_DGRAM, 0);
	if (sink < 0)
		return -1;
	if (bind_err(sink, family, loopback(family), 0))
		goto fail;
	len = make_addr(&ss, family, loopback(family), local_port(sink));
	if (connect(fd, (struct sockaddr *)&ss, len))
		goto fail;
	return sink;
fail:
	close(sink);
	return -1;
}

/*
 * Our transport parameters can change until the handshake sends them
 * (its first CRYPTO data), and not after: the peer holds the connection
 * to what it read (RFC 9000 7.4). A get still returns what was set.
 */
TEST_F(quic_sock, local_params_fixed_once_handshake_sent)
{
	struct quic_transport_param p = { .max_data = 200000 };
	socklen_t len;
	struct iovec iov;
	char hello[64] = {};
	int sink;

	sink = connect_to_sink(self->fd, variant->family);
	ASSERT_LE(0, sink);
	EXPECT_EQ(0, setsockopt(self->fd, SOL_QUIC,
				QUIC_SOCKOPT_TRANSPORT_PARAM, &p, sizeof(p)));

	iov.iov_base = hello;
	iov.iov_len = sizeof(hello);
	EXPECT_EQ((ssize_t)sizeof(hello),
		  hs_send(self->fd, &iov, 1, QUIC_CRYPTO_INITIAL, MSG_DONTWAIT));
	p.max_data = 300000;
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_QUIC,
				 QUIC_SOCKOPT_TRANSPORT_PARAM, &p, sizeof(p)));
	EXPECT_EQ(EINVAL, errno);

	memset(&p, 0, sizeof(p));
	len = sizeof(p);
	EXPECT_EQ(0, getsockopt(self->fd, SOL_QUIC,
				QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len));
	EXPECT_EQ(200000ULL, p.max_data);
	close(sink);
}

/*
 * Handshake data toward a peer that never answers is charged to the send
 * buffer and bounded per level: a message larger than a level holds fails
 * with EMSGSIZE, later ones find no room (EAGAIN, at once or after
 * SO_SNDTIMEO), and neither SIOCOUTQ nor the kernel's unreclaimable slab
 * grows with what was offered (64 MiB here; before, every byte was queued
 * and pinned until close()).
 */
TEST_F(quic_sock, handshake_data_bounded)
{
	struct timeval tv = { .tv_usec = 200000 };
	static char big[1 << 20];
	struct iovec iov[64];
	long slab0, slab1;
	ssize_t n, total = 0;
	int sink, i, val;

	/* A UDP socket that takes the Initials and never answers. */
	sink = connect_to_sink(self->fd, variant->family);
	ASSERT_LE(0, sink);
	slab0 = proc_value("/proc/meminfo", "SUnreclaim:", 1);
	ASSERT_LT(0, slab0);

	for (i = 0; i < 64; i++) {
		iov[i].iov_base = big;
		iov[i].iov_len = sizeof(big);
	}
	EXPECT_EQ(-1, hs_send(self->fd, iov, 64, QUIC_CRYPTO_INITIAL,
			      MSG_DONTWAIT));
	EXPECT_EQ(EMSGSIZE, errno);
	EXPECT_EQ(-1, hs_send(self->fd, iov, 1, QUIC_CRYPTO_INITIAL,
			      MSG_DONTWAIT));
	EXPECT_EQ(EMSGSIZE, errno);

	/* 16 KiB messages until the level is full. */
	iov[0].iov_len = 16384;
	for (i = 0; i < 64; i++) {
		n = hs_send(self->fd, iov, 1, QUIC_CRYPTO_INITIAL,
			    MSG_DONTWAIT);
		if (n < 0)
			break;
		EXPECT_EQ(16384, n);
		total += n;
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_LE(16384, total);
	EXPECT_GE(65536, total);
	/* A blocking one waits for an acknowledgment that never comes. */
	ASSERT_EQ(0, setsockopt(self->fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
				sizeof(tv)));
	EXPECT_EQ(-1, hs_send(self->fd, iov, 1, QUIC_CRYPTO_INITIAL, 0));
	EXPECT_EQ(EAGAIN, errno);

	/* Charged: some send memory in use, within twice the bytes taken. */
	val = -1;
	EXPECT_EQ(0, ioctl(self->fd, SIOCOUTQ, &val));
	EXPECT_LT(0, val);
	EXPECT_GE(2 * total, val);
	slab1 = proc_value("/proc/meminfo", "SUnreclaim:", 1);
	EXPECT_GT(slab0 + 16384, slab1) {
		TH_LOG("unreclaimable slab %ld kB -> %ld kB", slab0, slab1);
	}
	EXPECT_EQ(0, close(sink));
}

/* shutdown() of a socket with no connection: ENOTCONN (quic-api.rst
 * 5.8). The queue ioctls of a socket without a connection give 0, of a
 * listener EINVAL; streams.c checks them on a connection.
 */
TEST_F(quic_sock, shutdown_ioctl)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int val;

	EXPECT_EQ(-1, shutdown(self->fd, SHUT_RDWR));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, shutdown(self->fd, SHUT_WR));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, shutdown(self->fd, 7));
	EXPECT_EQ(EINVAL, errno);
	val = -1;
	EXPECT_EQ(0, ioctl(self->fd, SIOCINQ, &val));
	EXPECT_EQ(0, val);
	val = -1;
	EXPECT_EQ(0, ioctl(self->fd, SIOCOUTQ, &val));
	EXPECT_EQ(0, val);
	val = -1;
	EXPECT_EQ(0, ioctl(self->fd, SIOCOUTQNSD, &val));
	EXPECT_EQ(0, val);
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->fd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, listen(self->fd, 1));
	EXPECT_EQ(-1, ioctl(self->fd, SIOCINQ, &val));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, SIOCOUTQNSD, &val));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(quic_sock, quic_sockopt_unknown)
{
	static const int names[] = { 15, 16, 63, 65, 255, 256, -1, -255,
				     0x7fffffff };
	char buf[64] = {};
	socklen_t len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		EXPECT_EQ(ENOPROTOOPT, setopt_err(self->fd, SOL_QUIC, names[i],
						  buf, sizeof(buf))) {
			TH_LOG("set option %d", names[i]);
		}
		len = sizeof(buf);
		EXPECT_EQ(ENOPROTOOPT, getopt_err(self->fd, SOL_QUIC, names[i],
						  buf, &len)) {
			TH_LOG("get option %d", names[i]);
		}
	}
}

/* QUIC_SOCKOPT_INFO before any connection: the layout's version and the
 * state; a short buffer gets the first bytes, a long one the struct, a
 * negative length EINVAL; the optval pointer bad: EFAULT.
 */
TEST_F(quic_sock, quic_sockopt_info_unconnected)
{
	struct quic_info info;
	char big[sizeof(info) + 64];
	socklen_t len;
	int neg = -1;

	memset(&info, 0xff, sizeof(info));
	len = sizeof(info);
	ASSERT_EQ(0, getopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_INFO, &info,
				&len));
	EXPECT_EQ(sizeof(info), len);
	EXPECT_EQ(QUIC_INFO_VERSION, info.qi_version);
	EXPECT_EQ(7, info.qi_state);	/* TCP_CLOSE */
	EXPECT_EQ(0ULL, info.qi_pkts_sent);
	EXPECT_EQ(0ULL, info.qi_pkts_rcvd);

	memset(big, 0xab, sizeof(big));
	len = sizeof(big);
	ASSERT_EQ(0, getopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_INFO, big,
				&len));
	EXPECT_EQ(sizeof(info), len);
	EXPECT_EQ((char)0xab, big[sizeof(info)]);

	memset(big, 0xab, sizeof(big));
	len = 1;
	ASSERT_EQ(0, getopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_INFO, big,
				&len));
	EXPECT_EQ(1U, len);
	EXPECT_EQ(QUIC_INFO_VERSION, big[0]);
	EXPECT_EQ((char)0xab, big[1]);

	len = 0;
	EXPECT_EQ(0, getopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_INFO, big,
				&len));
	EXPECT_EQ(0U, len);

	EXPECT_EQ(EINVAL, getopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_INFO,
				     big, (socklen_t *)&neg));
	len = sizeof(info);
	EXPECT_EQ(EFAULT, getopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_INFO,
				     (void *)8, &len));
}

TEST_F(quic_sock, quic_sockopt_wrong_direction)
{
	static const int get_only[] = { QUIC_SOCKOPT_STREAM_OPEN,
					QUIC_SOCKOPT_INFO };
	static const int set_only[] = {
		QUIC_SOCKOPT_STREAM_RESET,
		QUIC_SOCKOPT_STREAM_STOP_SENDING,
		QUIC_SOCKOPT_CONNECTION_MIGRATION,
		QUIC_SOCKOPT_KEY_UPDATE,
		QUIC_SOCKOPT_CRYPTO_SECRET,
	};
	char buf[128] = {};
	socklen_t len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(get_only); i++) {
		EXPECT_EQ(ENOPROTOOPT, setopt_err(self->fd, SOL_QUIC,
						  get_only[i], buf,
						  sizeof(buf))) {
			TH_LOG("set option %d", get_only[i]);
		}
	}
	for (i = 0; i < ARRAY_SIZE(set_only); i++) {
		len = sizeof(buf);
		EXPECT_EQ(ENOPROTOOPT, getopt_err(self->fd, SOL_QUIC,
						  set_only[i], buf, &len)) {
			TH_LOG("get option %d", set_only[i]);
		}
	}
}

/*
 * The SOL_QUIC options that need a connection, on a socket without one:
 * the handshake, stream control and CONNECTION_ID options give EINVAL,
 * STREAM_OPEN and KEY_UPDATE EPIPE, the ones not done yet EOPNOTSUPP.
 * The others are tested in sockopt.c, the stream ones in streams.c.
 */
TEST_F(quic_sock, quic_sockopt_not_yet)
{
	static const struct {
		int name;
		int set, get;
	} opts[] = {
		{ QUIC_SOCKOPT_CONNECTION_ID, 1, 1 },
		{ QUIC_SOCKOPT_CONNECTION_MIGRATION, 1, 0 },
		{ QUIC_SOCKOPT_KEY_UPDATE, 1, 0 },
		{ QUIC_SOCKOPT_CRYPTO_SECRET, 1, 0 },
		{ QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, 1, 0 },
	};
	char buf[256] = {};
	socklen_t len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		/* Options of a connection need one: EINVAL, or EPIPE for
		 * opening a stream, as sendmsg() gives.
		 */
		int want = opts[i].name == QUIC_SOCKOPT_CRYPTO_SECRET ||
			   opts[i].name == QUIC_SOCKOPT_TRANSPORT_PARAM_EXT ||
			   opts[i].name == QUIC_SOCKOPT_CONNECTION_ID ||
			   opts[i].name == QUIC_SOCKOPT_CONNECTION_MIGRATION ||
			   opts[i].name == QUIC_SOCKOPT_STREAM_RESET ||
			   opts[i].name == QUIC_SOCKOPT_STREAM_STOP_SENDING ?
			   EINVAL : EOPNOTSUPP;

		/* quic-api.rst 5.7 and 5.9: STREAM_OPEN and KEY_UPDATE
		 * without a connection.
		 */
		if (opts[i].name == QUIC_SOCKOPT_STREAM_OPEN ||
		    opts[i].name == QUIC_SOCKOPT_KEY_UPDATE)
			want = EPIPE;

		if (opts[i].set) {
			EXPECT_EQ(want,
				  setopt_err(self->fd, SOL_QUIC, opts[i].name,
					     buf, sizeof(buf))) {
				TH_LOG("set option %d", opts[i].name);
			}
		}
		if (opts[i].get) {
			len = sizeof(buf);
			EXPECT_EQ(want,
				  getopt_err(self->fd, SOL_QUIC, opts[i].name,
					     buf, &len)) {
				TH_LOG("get option %d", opts[i].name);
			}
		}
	}
}

/*
 * CONNECTION_MIGRATION (quic-api.rst 5.9): a bad address (the zero one
 * above, a wildcard, port 0, a multicast or broadcast one, a short one)
 * gives EINVAL; a good one on a socket that is no connection, EPIPE.
 */
TEST_F(quic_sock, quic_sockopt_migration_args)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6, .sin6_port = htons(4433),
		.sin6_addr = IN6ADDR_LOOPBACK_INIT,
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET, .sin_port = htons(4433),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct sockaddr_in bad = sin;
	int fd = self->fd;

	if (variant->family == AF_INET6) {
		struct sockaddr_in6 bad6 = sin6;

		bad6.sin6_port = 0;
		EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
					     QUIC_SOCKOPT_CONNECTION_MIGRATION,
					     &bad6, sizeof(bad6)));
		bad6 = sin6;
		bad6.sin6_addr = in6addr_any;
		EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
					     QUIC_SOCKOPT_CONNECTION_MIGRATION,
					     &bad6, sizeof(bad6)));
		/* ff02::1, and 255.255.255.255 v4-mapped */
		bad6.sin6_addr.s6_addr[0] = 0xff;
		bad6.sin6_addr.s6_addr[1] = 0x02;
		bad6.sin6_addr.s6_addr[15] = 1;
		EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
					     QUIC_SOCKOPT_CONNECTION_MIGRATION,
					     &bad6, sizeof(bad6)));
		bad6.sin6_addr = in6addr_any;
		bad6.sin6_addr.s6_addr32[2] = htonl(0xffff);
		bad6.sin6_addr.s6_addr32[3] = htonl(INADDR_BROADCAST);
		EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
					     QUIC_SOCKOPT_CONNECTION_MIGRATION,
					     &bad6, sizeof(bad6)));
		EXPECT_EQ(EPIPE, setopt_err(fd, SOL_QUIC,
					    QUIC_SOCKOPT_CONNECTION_MIGRATION,
					    &sin6, sizeof(sin6)));
		return;
	}
	bad.sin_port = 0;
	EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_MIGRATION,
				     &bad, sizeof(bad)));
	bad = sin;
	bad.sin_addr.s_addr = htonl(INADDR_ANY);
	EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_MIGRATION,
				     &bad, sizeof(bad)));
	bad.sin_addr.s_addr = htonl(0xe0000001);	/* 224.0.0.1 */
	EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_MIGRATION,
				     &bad, sizeof(bad)));
	bad.sin_addr.s_addr = htonl(INADDR_BROADCAST);
	EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_MIGRATION,
				     &bad, sizeof(bad)));
	bad.sin_addr.s_addr = htonl(0x7fffffff);	/* lo's broadcast */
	EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_MIGRATION,
				     &bad, sizeof(bad)));
	EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC,
				     QUIC_SOCKOPT_CONNECTION_MIGRATION,
				     &sin, sizeof(sin) - 4));
	EXPECT_EQ(EPIPE, setopt_err(fd, SOL_QUIC,
				    QUIC_SOCKOPT_CONNECTION_MIGRATION,
				    &sin, sizeof(sin)));
}

/* Bad arguments give an error, never a crash or a silent success. */
TEST_F(quic_sock, quic_sockopt_bad_args)
{
	char big[4097] = {};
	socklen_t len;
	int err;

	err = setopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, NULL, 28);
	EXPECT_TRUE(err == EFAULT || err == EINVAL || err == EOPNOTSUPP) {
		TH_LOG("NULL optval: %s", strerror(err));
	}
	EXPECT_EQ(EINVAL, setopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, big,
				     sizeof(big)));
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, big,
				 (socklen_t)-1));
	EXPECT_EQ(EINVAL, errno);

	EXPECT_EQ(EFAULT, getopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG,
				     big, NULL));
	len = (socklen_t)-1;
	EXPECT_EQ(EINVAL, getopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG,
				     big, &len));
	len = 28;
	err = getopt_err(self->fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, NULL, &len);
	EXPECT_TRUE(err == EFAULT || err == EINVAL || err == EOPNOTSUPP) {
		TH_LOG("NULL optval: %s", strerror(err));
	}
	/* Struct results are truncated to the buffer, even to nothing. */
	len = 0;
	EXPECT_EQ(0, getopt_err(self->fd, SOL_QUIC,
				QUIC_SOCKOPT_TRANSPORT_PARAM, big, &len));
	EXPECT_EQ(0U, len);
}

TEST_F(quic_sock, ip_options)
{
	socklen_t len;
	int val;

	val = 0x10;
	ASSERT_EQ(0, setopt_err(self->fd, IPPROTO_IP, IP_TOS, &val,
				sizeof(val)));
	val = 0;
	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, IPPROTO_IP, IP_TOS, &val, &len));
	EXPECT_EQ(0x10, val);

	val = 7;
	ASSERT_EQ(0, setopt_err(self->fd, IPPROTO_IP, IP_TTL, &val,
				sizeof(val)));
	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, IPPROTO_IP, IP_TTL, &val, &len));
	EXPECT_EQ(7, val);

	/* Other protocols' levels are not ours. */
	val = 1;
	EXPECT_EQ(ENOPROTOOPT, setopt_err(self->fd, IPPROTO_TCP, TCP_NODELAY,
					  &val, sizeof(val)));
	/* As for TCP and UDP: ip_getsockopt() answers other levels so. */
	len = sizeof(val);
	EXPECT_EQ(EOPNOTSUPP, getopt_err(self->fd, IPPROTO_UDP, 1, &val,
					 &len));

	if (variant->family != AF_INET6)
		return;
	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, IPPROTO_IPV6, IPV6_V6ONLY, &val,
				&len));
	EXPECT_EQ(0, val);
	val = 1;
	ASSERT_EQ(0, setopt_err(self->fd, IPPROTO_IPV6, IPV6_V6ONLY, &val,
				sizeof(val)));
	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, IPPROTO_IPV6, IPV6_V6ONLY, &val,
				&len));
	EXPECT_EQ(1, val);
	val = 0x20;
	ASSERT_EQ(0, setopt_err(self->fd, IPPROTO_IPV6, IPV6_TCLASS, &val,
				sizeof(val)));
	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, IPPROTO_IPV6, IPV6_TCLASS, &val,
				&len));
	EXPECT_EQ(0x20, val);
}

/* State the IP layers keep on the socket goes away with it. */
TEST_F(quic_sock, ip_state)
{
	unsigned char opts[4] = { 1, 1, 1, 0 };	/* IPOPT_NOOP x3, IPOPT_END */
	struct ip_mreqn mreq = {};
	struct ipv6_mreq mreq6 = {};
	int val;

	ASSERT_EQ(0, setopt_err(self->fd, IPPROTO_IP, IP_OPTIONS, opts,
				sizeof(opts)));
	mreq.imr_multiaddr.s_addr = inet_addr("239.1.2.3");
	mreq.imr_ifindex = if_nametoindex("lo");
	EXPECT_EQ(0, setopt_err(self->fd, IPPROTO_IP, IP_ADD_MEMBERSHIP,
				&mreq, sizeof(mreq)));
	if (variant->family != AF_INET6)
		return;
	inet_pton(AF_INET6, "ff15::1:2", &mreq6.ipv6mr_multiaddr);
	mreq6.ipv6mr_interface = if_nametoindex("lo");
	EXPECT_EQ(0, setopt_err(self->fd, IPPROTO_IPV6, IPV6_JOIN_GROUP,
				&mreq6, sizeof(mreq6)));
	val = 9;
	EXPECT_EQ(0, setopt_err(self->fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS,
				&val, sizeof(val)));
	/* Not a socket that can turn into an AF_INET one. */
	val = AF_INET;
	EXPECT_NE(0, setopt_err(self->fd, IPPROTO_IPV6, IPV6_ADDRFORM, &val,
				sizeof(val)));
}

TEST_F(quic_sock, socket_options)
{
	socklen_t len;
	int val;

	val = 65536;
	ASSERT_EQ(0, setopt_err(self->fd, SOL_SOCKET, SO_RCVBUF, &val,
				sizeof(val)));
	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, SOL_SOCKET, SO_RCVBUF, &val, &len));
	EXPECT_EQ(2 * 65536, val);

	val = 1;
	ASSERT_EQ(0, setopt_err(self->fd, SOL_SOCKET, SO_REUSEPORT, &val,
				sizeof(val)));
	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, SOL_SOCKET, SO_REUSEPORT, &val,
				&len));
	EXPECT_EQ(1, val);

	len = sizeof(val);
	ASSERT_EQ(0, getopt_err(self->fd, SOL_SOCKET, SO_ERROR, &val, &len));
	EXPECT_EQ(0, val);
}

TEST_F(quic_sock, poll_nothing_readable)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN | POLLPRI };

	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, pfd.revents & (POLLIN | POLLERR | POLLNVAL));

	ASSERT_EQ(0, bind_err(self->fd, variant->family,
			      loopback(variant->family), 0));
	pfd.revents = 0;
	EXPECT_EQ(0, poll(&pfd, 1, 10));
	EXPECT_EQ(0, pfd.revents & (POLLIN | POLLERR | POLLNVAL));
}

/* Open and close many sockets, most of them bound and configured. Each
 * bind creates a kernel UDP socket: 1000 of them take more than the
 * harness's 30 s on the debug kernel under TCG when the host is busy.
 */
TEST_F_TIMEOUT(quic_sock, many_sockets, 180)
{
	const char *proto = variant->family == AF_INET ? "QUIC" : "QUICv6";
	int i, fd, before, during, val = 0x10;
	int fds[64];

	before = proto_sockets(proto);
	ASSERT_GE(before, 1) {
		TH_LOG("no %s line in /proc/net/protocols", proto);
	}

	for (i = 0; i < 1000; i++) {
		fd = socket(variant->family, variant->type, IPPROTO_QUIC);
		ASSERT_GE(fd, 0) {
			TH_LOG("socket %d: %s", i, strerror(errno));
		}
		if (i % 4) {
			EXPECT_EQ(0, bind_err(fd, variant->family,
					      i % 2 ? loopback(variant->family)
						    : wildcard(variant->family),
					      i % 3 ? 0 : TEST_PORT)) {
				TH_LOG("bind %d", i);
			}
		}
		if (i % 5 == 0) {
			EXPECT_EQ(0, setopt_err(fd, IPPROTO_IP, IP_TOS, &val,
						sizeof(val))) {
				TH_LOG("IP_TOS %d", i);
			}
		}
		ASSERT_EQ(0, close(fd));
	}

	/* Many open at once, then closed in reverse. */
	for (i = 0; i < 64; i++) {
		fds[i] = socket(variant->family, variant->type, IPPROTO_QUIC);
		ASSERT_GE(fds[i], 0);
	}
	during = proto_sockets(proto);
	EXPECT_EQ(before + 64, during);
	for (i = 63; i >= 0; i--)
		ASSERT_EQ(0, close(fds[i]));

	EXPECT_EQ(before, proto_sockets(proto));
}

/* Protocol 0 never selects QUIC. */
TEST(proto0_is_not_quic)
{
	static const struct {
		int family, type, proto;
	} cases[] = {
		{ AF_INET, SOCK_DGRAM, IPPROTO_UDP },
		{ AF_INET6, SOCK_DGRAM, IPPROTO_UDP },
		{ AF_INET, SOCK_STREAM, IPPROTO_TCP },
		{ AF_INET6, SOCK_STREAM, IPPROTO_TCP },
	};
	socklen_t len;
	size_t i;
	int fd, val;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fd = socket(cases[i].family, cases[i].type, 0);
		ASSERT_GE(fd, 0);
		len = sizeof(val);
		ASSERT_EQ(0, getopt_err(fd, SOL_SOCKET, SO_PROTOCOL, &val,
					&len));
		EXPECT_EQ(cases[i].proto, val);
		EXPECT_TRUE(not_quic(fd));
		EXPECT_EQ(0, close(fd));
	}
}

/*
 * No QUIC raw or seqpacket socket. With CAP_NET_RAW the core's raw IP
 * socket accepts any protocol number, 261 too: that one is not QUIC.
 */
TEST(other_types_are_not_quic)
{
	static const int families[] = { AF_INET, AF_INET6 };
	socklen_t len;
	int fd, val;
	size_t i;

	for (i = 0; i < 2; i++) {
		fd = socket(families[i], SOCK_SEQPACKET, IPPROTO_QUIC);
		EXPECT_EQ(-1, fd);
		EXPECT_TRUE(errno == EPROTONOSUPPORT ||
			    errno == ESOCKTNOSUPPORT) {
			TH_LOG("seqpacket: %s", strerror(errno));
		}
		if (fd >= 0)
			close(fd);

		fd = socket(families[i], SOCK_RAW, IPPROTO_QUIC);
		if (fd < 0) {
			EXPECT_TRUE(errno == EPERM || errno == EPROTONOSUPPORT ||
				    errno == ESOCKTNOSUPPORT) {
				TH_LOG("raw: %s", strerror(errno));
			}
			continue;
		}
		TH_LOG("raw socket of protocol %d: the core's, not QUIC",
		       IPPROTO_QUIC);
		len = sizeof(val);
		ASSERT_EQ(0, getopt_err(fd, SOL_SOCKET, SO_TYPE, &val, &len));
		EXPECT_EQ(SOCK_RAW, val);
		EXPECT_TRUE(not_quic(fd));
		EXPECT_EQ(0, close(fd));
	}
}

/* socket() loads quic.ko through its net-pf-*-proto-261 aliases. */
TEST(autoload)
{
	int fd;

	fd = socket(AF_INET6, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_GE(fd, 0) {
		TH_LOG("socket: %s", strerror(errno));
	}
	EXPECT_EQ(0, access("/sys/module/quic", F_OK));
	EXPECT_EQ(0, close(fd));
}

TEST_HARNESS_MAIN
