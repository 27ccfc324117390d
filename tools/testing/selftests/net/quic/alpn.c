// SPDX-License-Identifier: GPL-2.0
/*
 * ALPN demultiplexing (quic-api.rst 5.1 and 7.4): listeners on one
 * address and port with disjoint ALPN sets, and one without ALPN; each
 * client's ClientHello picks its listener (the first name of the
 * client's list that a listener serves), and the handshake completes
 * there. A client whose names no listener serves reaches none, and the
 * port goes on serving the others after it.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "kselftest_harness.h"
#include "quic_common.h"
#include "quic_conn_common.h"

#define PSK_FILE	"/tmp/quic_alpn_test.psk"
#define NLISTEN		3
#define WAIT_MS		10000
/* A client that reaches no listener gives up after this (µs). */
#define IDLE_US		2000000

static const char *const listen_alpn[NLISTEN] = { "h3", "smb", NULL };

FIXTURE(alpn)
{
	int lfd[NLISTEN];
	struct sockaddr_storage ss;
	socklen_t len;
	int family;
};

FIXTURE_VARIANT(alpn)
{
	int family;
};

#define QUIC_FIXTURE		alpn
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

static int listener(struct sockaddr_storage *ss, socklen_t *len,
		    const char *alpn)
{
	int fd = socket(ss->ss_family, SOCK_DGRAM, IPPROTO_QUIC);

	if (fd < 0)
		return -1;
	if ((alpn && setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn,
				strlen(alpn))) ||
	    bind(fd, (struct sockaddr *)ss, *len) ||
	    getsockname(fd, (struct sockaddr *)ss, len) || listen(fd, 8)) {
		close(fd);
		return -1;
	}
	return fd;
}

FIXTURE_SETUP(alpn)
{
	int i;

	self->family = variant->family;
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	self->len = make_addr(&self->ss, self->family,
			      loopback(self->family), 0);
	for (i = 0; i < NLISTEN; i++) {
		self->lfd[i] = listener(&self->ss, &self->len, listen_alpn[i]);
		ASSERT_LE(0, self->lfd[i]) {
			TH_LOG("listener %d: %s", i, strerror(errno));
		}
	}
}

FIXTURE_TEARDOWN(alpn)
{
	int i;

	for (i = 0; i < NLISTEN; i++)
		if (self->lfd[i] >= 0)
			close(self->lfd[i]);
}

struct client {
	int fd;
	const char *alpn;
	int ret;
};

static void *client_main(void *p)
{
	struct client *c = p;

	c->ret = quic_client_handshake(c->fd, PSK_FILE, NULL, c->alpn);
	return NULL;
}

/* The index of the listener that a request reached within @ms, or -1. */
static int wait_listener(int *lfd, int ms)
{
	struct pollfd p[NLISTEN];
	int i;

	for (i = 0; i < NLISTEN; i++) {
		p[i].fd = lfd[i];
		p[i].events = POLLIN;
		p[i].revents = 0;
	}
	if (poll(p, NLISTEN, ms) <= 0)
		return -1;
	for (i = 0; i < NLISTEN; i++)
		if (p[i].revents & POLLIN)
			return i;
	return -1;
}

/* Start a client offering @alpn; return the listener it reached (the
 * handshake completed on both sides), or -1 if none within @ms.
 */
static int run_client(struct __test_metadata *_metadata,
		      struct _test_data_alpn *self, const char *alpn, int ms)
{
	struct quic_transport_param tp = { .max_idle_timeout = IDLE_US };
	struct client c = { .alpn = alpn };
	int i, fd, ret;
	pthread_t th;

	c.fd = socket(self->family, SOCK_DGRAM, IPPROTO_QUIC);
	EXPECT_LE(0, c.fd);
	if (c.fd < 0)
		return -2;
	EXPECT_EQ(0, setsockopt(c.fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM,
				&tp, sizeof(tp)));
	EXPECT_EQ(0, connect(c.fd, (struct sockaddr *)&self->ss, self->len));
	EXPECT_EQ(0, pthread_create(&th, NULL, client_main, &c));
	i = wait_listener(self->lfd, ms);
	if (i >= 0) {
		fd = accept(self->lfd[i], NULL, NULL);
		EXPECT_LE(0, fd);
		ret = quic_server_handshake(fd, PSK_FILE, NULL,
					    listen_alpn[i]);
		EXPECT_EQ(0, ret) {
			TH_LOG("server %d handshake: %s", i, strerror(-ret));
		}
		if (ret)
			shutdown(c.fd, SHUT_RDWR);
		pthread_join(th, NULL);
		EXPECT_EQ(0, c.ret) {
			TH_LOG("client '%s' handshake: %s", alpn ?: "",
			       strerror(-c.ret));
		}
		close(fd);
	} else {
		shutdown(c.fd, SHUT_RDWR);
		pthread_join(th, NULL);
		EXPECT_NE(0, c.ret);
	}
	close(c.fd);
	return i;
}

TEST_F(alpn, first_client_name_wins)
{
	static const struct {
		const char *alpn;
		int listener;
	} cases[] = {
		{ "smb", 1 },
		{ "h3", 0 },
		{ NULL, 2 },
		{ "x,h3", 0 },
		{ "smb,h3", 1 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		EXPECT_EQ(cases[i].listener,
			  run_client(_metadata, self, cases[i].alpn, WAIT_MS)) {
			TH_LOG("client '%s'", cases[i].alpn ?: "");
		}
}

static long counter(const char *name)
{
	char key[64];
	long v = -1, x;
	FILE *f;

	f = fopen("/proc/net/quic/snmp", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &x) == 2)
		if (!strcmp(key, name))
			v = x;
	fclose(f);
	return v;
}

/* Its Initials are dropped, so its handshake never ends: it runs in a
 * child that is killed after the wait.
 */
TEST_F(alpn, unknown_name_reaches_none)
{
	struct quic_transport_param tp = { .max_idle_timeout = IDLE_US };
	long before = counter("QuicInAlpnNoMatch");
	int fd, status;
	pid_t pid;

	fd = socket(self->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM,
				&tp, sizeof(tp)));
	ASSERT_EQ(0, connect(fd, (struct sockaddr *)&self->ss, self->len));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(quic_client_handshake(fd, PSK_FILE, NULL, "zz,yy") ?
		      1 : 0);
	EXPECT_EQ(-1, wait_listener(self->lfd, 3000));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	/* Its close, an Initial without CRYPTO data, reaches none either:
	 * a listener that took it would wake accept() for nothing.
	 */
	close(fd);
	EXPECT_EQ(-1, wait_listener(self->lfd, 1000));
	EXPECT_LT(before, counter("QuicInAlpnNoMatch"));
	/* The port goes on serving the others. */
	EXPECT_EQ(0, run_client(_metadata, self, "h3", WAIT_MS));
}

/* quic-api.rst 4.2: ALPN is fixed once a socket listens. */
TEST_F(alpn, alpn_fixed_while_listening)
{
	EXPECT_EQ(-1, setsockopt(self->lfd[0], SOL_QUIC, QUIC_SOCKOPT_ALPN,
				 "smb", 3));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->lfd[2], SOL_QUIC, QUIC_SOCKOPT_ALPN,
				 "h3", 2));
	EXPECT_EQ(EINVAL, errno);
}

/* Sets that overlap without being equal leave a name with two owners. */
TEST_F(alpn, overlap_refused)
{
	int fd = socket(self->family, SOCK_DGRAM, IPPROTO_QUIC);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, "smb,nfs",
				7));
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&self->ss, self->len));
	EXPECT_EQ(-1, listen(fd, 4));
	EXPECT_EQ(EADDRINUSE, errno);
	close(fd);
}

TEST_HARNESS_MAIN
