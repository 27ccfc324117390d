// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel UDP sockets under QUIC sockets: bind() gets a real port from
 * a shared UDP socket (one per local address and port, visible in
 * /proc/net/udp{,6}), which goes away with its last QUIC socket; datagrams
 * sent to it from plain UDP sockets, hostile ones included, are counted in
 * /proc/net/quic/snmp and dropped without harm.
 */

#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/quic.h>

#include "kselftest_harness.h"
#include "quic_common.h"

/* Counters of /proc/net/quic/snmp that these tests read. */
struct snmp {
	unsigned long in, malformed, noconn;
};

static long snmp_value(const char *name)
{
	return proc_value("/proc/net/quic/snmp", name, 1);
}

static bool snmp_read(struct snmp *s)
{
	long in = snmp_value("QuicInPackets");
	long bad = snmp_value("QuicInDropMalformed");
	long noconn = snmp_value("QuicInDropNoConnection");

	if (in < 0 || bad < 0 || noconn < 0)
		return false;
	s->in = in;
	s->malformed = bad;
	s->noconn = noconn;
	return true;
}

/* UDP sockets in /proc/net/udp and udp6 on local @port (any if < 0). */
static int udp_sockets(int port)
{
	static const char *const files[] = { "/proc/net/udp", "/proc/net/udp6" };
	char line[512], local[128];
	int i, n = 0;
	unsigned int p;
	char *colon;
	FILE *f;

	for (i = 0; i < 2; i++) {
		f = fopen(files[i], "r");
		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, " %*[0-9]: %127s", local) != 1)
				continue;
			colon = strrchr(local, ':');
			if (!colon || sscanf(colon + 1, "%x", &p) != 1)
				continue;
			if (port < 0 || (int)p == port)
				n++;
		}
		fclose(f);
	}
	return n;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * The last QUIC socket releases its UDP socket from a work item: wait for
 * it. The bound is generous (30 s) so a loaded host under TCG cannot make
 * the test fail; only a socket that never goes away does.
 */
static int udp_sockets_settle(int port, int want)
{
	int i, n = -1;

	for (i = 0; i < 3000; i++) {
		n = udp_sockets(port);
		if (n == want)
			break;
		sleep_ms(10);
	}
	return n;
}

/*
 * What the kernel must make of a datagram (RFC 8999): malformed if empty,
 * or if a long header lacks its version, a CID length or a CID.
 */
static bool malformed(const unsigned char *p, size_t len)
{
	size_t dcil, scil;

	if (!len)
		return true;
	if (!(p[0] & 0x80))
		return false;
	if (len < 7)
		return true;
	dcil = p[5];
	if (len < 7 + dcil)
		return true;
	scil = p[6 + dcil];
	return len < 7 + dcil + scil;
}

FIXTURE(udp) {
	int quic;	/* a QUIC socket of the variant's family */
	int sender;	/* a plain UDP socket of the same family */
};

FIXTURE_VARIANT(udp) {
	int family;
};

/* The variant's loopback and wildcard addresses, as text. */
#define LOOPBACK	loopback(variant->family)
#define WILDCARD	wildcard(variant->family)

#define QUIC_FIXTURE		udp
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(udp)
{
	self->quic = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_GE(self->quic, 0) {
		TH_LOG("socket(IPPROTO_QUIC): %s", strerror(errno));
	}
	self->sender = socket(variant->family, SOCK_DGRAM, 0);
	ASSERT_GE(self->sender, 0);
}

FIXTURE_TEARDOWN(udp)
{
	if (self->quic >= 0)
		EXPECT_EQ(0, close(self->quic));
	if (self->sender >= 0)
		EXPECT_EQ(0, close(self->sender));
}

/* Send @len bytes to the loopback address of the variant, @port. */
static bool send_to(int fd, int family, const char *addr, int port,
		    const void *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t alen = make_addr(&ss, family, addr, port);

	return sendto(fd, buf, len, 0, (struct sockaddr *)&ss, alen) ==
	       (ssize_t)len;
}

TEST_F(udp, bind_port0)
{
	int port;

	ASSERT_EQ(0, bind_err(self->quic, variant->family, LOOPBACK,
			      0));
	port = local_port(self->quic);
	ASSERT_GT(port, 0);
	EXPECT_EQ(1, udp_sockets(port));

	EXPECT_EQ(0, close(self->quic));
	self->quic = -1;
	EXPECT_EQ(0, udp_sockets_settle(port, 0));
}

TEST_F(udp, bind_wildcard_port0)
{
	int port;

	ASSERT_EQ(0, bind_err(self->quic, variant->family, WILDCARD,
			      0));
	port = local_port(self->quic);
	ASSERT_GT(port, 0);
	EXPECT_EQ(1, udp_sockets(port));
}

/* QUIC sockets on one address and port share one UDP socket. */
TEST_F(udp, share)
{
	int fd2, fd3, port;

	ASSERT_EQ(0, bind_err(self->quic, variant->family, LOOPBACK,
			      0));
	port = local_port(self->quic);
	ASSERT_GT(port, 0);

	fd2 = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_GE(fd2, 0);
	fd3 = socket(variant->family, SOCK_STREAM, IPPROTO_QUIC);
	ASSERT_GE(fd3, 0);
	ASSERT_EQ(0, bind_err(fd2, variant->family, LOOPBACK, port));
	ASSERT_EQ(0, bind_err(fd3, variant->family, LOOPBACK, port));
	EXPECT_EQ(port, local_port(fd2));
	EXPECT_EQ(port, local_port(fd3));
	EXPECT_EQ(1, udp_sockets(port));

	/* The UDP socket stays while any of them is open. */
	EXPECT_EQ(0, close(self->quic));
	self->quic = -1;
	EXPECT_EQ(0, close(fd3));
	sleep_ms(50);
	EXPECT_EQ(1, udp_sockets(port));
	EXPECT_EQ(0, close(fd2));
	EXPECT_EQ(0, udp_sockets_settle(port, 0));
}

/* A released port can be bound again at once, to the same or another
 * address of the family.
 */
TEST_F(udp, rebind_after_close)
{
	int fd, port, i;

	ASSERT_EQ(0, bind_err(self->quic, variant->family, LOOPBACK,
			      0));
	port = local_port(self->quic);
	ASSERT_GT(port, 0);
	for (i = 0; i < 20; i++) {
		fd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
		ASSERT_GE(fd, 0);
		EXPECT_EQ(0, close(self->quic));
		self->quic = fd;
		EXPECT_EQ(0, bind_err(fd, variant->family,
				      i % 2 ? LOOPBACK
					    : WILDCARD, port)) {
			TH_LOG("round %d", i);
		}
	}
	EXPECT_EQ(1, udp_sockets_settle(port, 1));
}

/* A port held by a socket that is not QUIC's is in use. */
TEST_F(udp, port_in_use)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int port;

	len = make_addr(&ss, variant->family, LOOPBACK, 0);
	ASSERT_EQ(0, bind(self->sender, (struct sockaddr *)&ss, len));
	port = local_port(self->sender);
	ASSERT_GT(port, 0);

	EXPECT_EQ(EADDRINUSE, bind_err(self->quic, variant->family,
				       LOOPBACK, port));
	/* Still unbound, and nothing was left behind. */
	EXPECT_EQ(0, local_port(self->quic));
	EXPECT_EQ(1, udp_sockets(port));
	ASSERT_EQ(0, bind_err(self->quic, variant->family, LOOPBACK,
			      0));
	EXPECT_NE(port, local_port(self->quic));
}

/* As for UDP: the wildcard and a specific address cannot share a port. */
TEST_F(udp, wildcard_and_specific)
{
	int fd, port;

	ASSERT_EQ(0, bind_err(self->quic, variant->family, WILDCARD,
			      0));
	port = local_port(self->quic);
	fd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(EADDRINUSE, bind_err(fd, variant->family, LOOPBACK,
				       port));
	EXPECT_EQ(0, bind_err(fd, variant->family, WILDCARD, port));
	EXPECT_EQ(1, udp_sockets(port));
	EXPECT_EQ(0, close(fd));
}

/* "::" takes IPV6_V6ONLY from the QUIC socket, as a UDP socket would. */
TEST_F(udp, v6only)
{
	int v4, dual, on = 1, port;

	if (variant->family != AF_INET6)
		SKIP(return, "AF_INET6 only");
	ASSERT_EQ(0, setsockopt(self->quic, IPPROTO_IPV6, IPV6_V6ONLY, &on,
				sizeof(on)));
	ASSERT_EQ(0, bind_err(self->quic, AF_INET6, "::", 0));
	port = local_port(self->quic);
	ASSERT_GT(port, 0);

	/* 0.0.0.0 beside a V6ONLY "::" on the same port. */
	v4 = socket(AF_INET, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_GE(v4, 0);
	EXPECT_EQ(0, bind_err(v4, AF_INET, "0.0.0.0", port));
	EXPECT_EQ(2, udp_sockets(port));

	/* A dual-stack "::" conflicts with both. */
	dual = socket(AF_INET6, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_GE(dual, 0);
	EXPECT_EQ(EADDRINUSE, bind_err(dual, AF_INET6, "::", port));
	EXPECT_EQ(0, close(v4));
	EXPECT_EQ(0, close(dual));
}

/* A dual-stack "::" receives IPv4 datagrams too. */
TEST_F(udp, dual_stack_receives_ipv4)
{
	unsigned char pkt[1] = { 0x40 };
	struct snmp before, after;
	int fd, port, i;

	if (variant->family != AF_INET6)
		SKIP(return, "AF_INET6 only");
	ASSERT_EQ(0, bind_err(self->quic, AF_INET6, "::", 0));
	port = local_port(self->quic);
	ASSERT_GT(port, 0);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_GE(fd, 0);
	ASSERT_TRUE(snmp_read(&before));
	ASSERT_TRUE(send_to(fd, AF_INET, "127.0.0.1", port, pkt, 1));
	for (i = 0; i < 100; i++) {
		ASSERT_TRUE(snmp_read(&after));
		if (after.noconn != before.noconn)
			break;
		sleep_ms(10);
	}
	EXPECT_LE(before.in + 1, after.in);
	EXPECT_LE(before.noconn + 1, after.noconn);
	EXPECT_EQ(0, close(fd));
}

/* Hostile datagrams from a plain UDP socket: counted, dropped, harmless. */
TEST_F(udp, hostile_input)
{
	static unsigned char buf[65000];
	unsigned long want_bad = 0, want_noconn = 0;
	struct snmp before, after;
	size_t len;
	int port, i;

	ASSERT_EQ(0, bind_err(self->quic, variant->family, LOOPBACK,
			      0));
	port = local_port(self->quic);
	ASSERT_GT(port, 0);
	ASSERT_TRUE(snmp_read(&before)) {
		TH_LOG("no /proc/net/quic/snmp");
	}

#define SEND(len) do {							\
	size_t n_ = (len);						\
									\
	ASSERT_TRUE(send_to(self->sender, variant->family,		\
			    LOOPBACK, port, buf, n_)) {			\
		TH_LOG("send %zu: %s", n_, strerror(errno));		\
	}								\
	if (malformed(buf, n_))						\
		want_bad++;						\
	else								\
		want_noconn++;						\
} while (0)

	/* Empty, one byte of each header form. */
	SEND(0);
	buf[0] = 0x40;
	SEND(1);
	buf[0] = 0xc0;
	SEND(1);

	/* Long headers cut short: no version, no CID lengths, no CIDs. */
	memset(buf, 0, 32);
	buf[0] = 0xc0;
	buf[4] = 1;			/* version 1 */
	for (len = 2; len <= 6; len++)
		SEND(len);
	SEND(7);			/* both CIDs empty: well formed */
	buf[5] = 8;			/* DCID length 8 */
	SEND(7);
	SEND(14);			/* DCID, but no SCID length */
	buf[14] = 8;			/* SCID length 8 */
	SEND(15);
	SEND(22);			/* SCID one byte short */
	SEND(23);			/* complete */
	buf[5] = 255;			/* CID lengths past the datagram */
	SEND(40);
	buf[5] = 0;
	buf[6] = 255;
	SEND(40);

	/* A valid-looking client Initial: version 1, 8-byte CIDs, no token,
	 * Length covering the rest, padded to 1200 bytes (not encrypted).
	 */
	memset(buf, 0, 1200);
	len = 0;
	buf[len++] = 0xc3;
	buf[len++] = 0;
	buf[len++] = 0;
	buf[len++] = 0;
	buf[len++] = 1;
	buf[len++] = 8;
	for (i = 0; i < 8; i++)
		buf[len++] = 0xa0 + i;
	buf[len++] = 8;
	for (i = 0; i < 8; i++)
		buf[len++] = 0xb0 + i;
	buf[len++] = 0;			/* token length */
	buf[len] = 0x40 | ((1200 - len - 2) >> 8);	/* Length, 2 bytes */
	buf[len + 1] = (1200 - len - 2) & 0xff;
	SEND(1200);
	/* The same from version 2, and from an unknown version. */
	buf[4] = 0x6b;
	buf[1] = 0x33;
	buf[2] = 0x43;
	buf[3] = 0xcf;
	SEND(1200);
	buf[1] = 0x1a;
	buf[2] = 0x2a;
	buf[3] = 0x3a;
	buf[4] = 0x4a;
	SEND(1200);
	/* Version Negotiation (version 0), CIDs of 255 bytes. */
	memset(buf, 0x55, 600);
	buf[0] = 0x80;
	memset(buf + 1, 0, 4);
	buf[5] = 255;
	buf[6 + 255] = 255;
	SEND(600);
	SEND(6 + 255 + 1 + 254);

	/* The largest datagram, short header. */
	memset(buf, 0x41, sizeof(buf));
	SEND(sizeof(buf));

	/* Random datagrams: random lengths, half of them long headers. */
	srandom(port);
	for (i = 0; i < 1000; i++) {
		size_t j;

		len = random() % 1501;
		if (i % 50 == 0)
			len = random() % 8;
		for (j = 0; j < len; j++)
			buf[j] = random();
		if (len > 6 && i % 3 == 0)
			buf[5] = random() % 24;	/* plausible DCID length */
		SEND(len);
	}
#undef SEND

	TH_LOG("%lu malformed, %lu without a connection", want_bad,
	       want_noconn);
	for (i = 0; i < 300; i++) {
		ASSERT_TRUE(snmp_read(&after));
		if (after.in - before.in >= want_bad + want_noconn)
			break;
		sleep_ms(10);
	}
	EXPECT_EQ(want_bad + want_noconn, after.in - before.in);
	EXPECT_EQ(want_bad, after.malformed - before.malformed);
	EXPECT_EQ(want_noconn, after.noconn - before.noconn);

	/* The QUIC socket is fine and the port still shared. */
	EXPECT_EQ(port, local_port(self->quic));
	EXPECT_EQ(1, udp_sockets(port));
	i = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_GE(i, 0);
	EXPECT_EQ(0, bind_err(i, variant->family, LOOPBACK, port));
	EXPECT_EQ(0, close(i));
}

/* Many sockets, many ports; all UDP sockets go away with them. */
TEST_F(udp, no_leak)
{
	int fds[200], ports[200], i, n;
	const char *addrs[200];

	for (i = 0; i < 200; i++) {
		fds[i] = socket(variant->family,
				i % 2 ? SOCK_DGRAM : SOCK_STREAM,
				IPPROTO_QUIC);
		ASSERT_GE(fds[i], 0);
		if (i % 4 == 3) {
			/* Share the address and port of the one before. */
			addrs[i] = addrs[i - 1];
			ASSERT_EQ(0, bind_err(fds[i], variant->family,
					      addrs[i], ports[i - 1]));
		} else {
			addrs[i] = i % 3 ? LOOPBACK
					 : WILDCARD;
			ASSERT_EQ(0, bind_err(fds[i], variant->family,
					      addrs[i], 0));
		}
		ports[i] = local_port(fds[i]);
		ASSERT_GT(ports[i], 0);
	}
	/*
	 * Count on our own ports only: sockets of earlier tests may still be
	 * on their way out, so the global count is no baseline.
	 */
	for (i = 0, n = 0; i < 200; i++)
		if (i % 4 != 3)
			n += udp_sockets(ports[i]);
	EXPECT_EQ(150, n);
	for (i = 0; i < 200; i++)
		EXPECT_EQ(0, close(fds[i]));
	for (i = 0; i < 200; i++)
		EXPECT_EQ(0, udp_sockets_settle(ports[i], 0));
}

TEST(snmp_names)
{
	static const char *const names[] = {
		"QuicInPackets", "QuicOutPackets", "QuicInDropMalformed",
		"QuicInDropNoConnection", "QuicInDropDecrypt",
		"QuicConnOpened", "QuicConnClosed", "QuicLostPackets",
		"QuicPtoExpired", "QuicInDropBacklog", "QuicListenOverflows",
		"QuicCongestionEvents", "QuicPersistentCongestion",
		"QuicSpuriousLosses", "QuicCongestionUndo",
	};
	int fd;
	size_t i;

	/* The proc files exist once quic.ko is loaded. */
	fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_GE(fd, 0);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		EXPECT_LE(0, snmp_value(names[i])) {
			TH_LOG("%s", names[i]);
		}
	}
	EXPECT_EQ(0, close(fd));
}

/*
 * In a new network namespace: fresh counters, a working bind, and a
 * namespace that goes away with a bound QUIC socket still open until the
 * process exits. Returns the number of the step that failed, or 0.
 */
static int netns_child(void)
{
	unsigned char pkt = 0x40;
	struct snmp before, after;
	struct ifreq ifr;
	int fd, q, port, i;

	if (unshare(CLONE_NEWNET))
		return 1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return 2;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		return 3;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		return 4;
	if (!snmp_read(&before) || before.in || before.malformed ||
	    before.noconn)
		return 5;
	q = socket(AF_INET, SOCK_DGRAM, IPPROTO_QUIC);
	if (q < 0 || bind_err(q, AF_INET, "127.0.0.1", 0))
		return 6;
	port = local_port(q);
	if (port <= 0 || udp_sockets(port) != 1)
		return 7;
	if (!send_to(fd, AF_INET, "127.0.0.1", port, &pkt, 1))
		return 8;
	for (i = 0; i < 100; i++) {
		if (!snmp_read(&after))
			return 9;
		if (after.in)
			break;
		sleep_ms(10);
	}
	if (after.in != 1 || after.noconn != 1 || after.malformed)
		return 10;
	return 0;
}

TEST(netns)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(netns_child());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("failed at step %d", WEXITSTATUS(status));
	}
}

TEST_HARNESS_MAIN
