/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the QUIC selftests: socket addresses from strings,
 * bind() and socket options that return errno, and /proc readers.
 */

#ifndef _QUIC_SELFTEST_COMMON_H
#define _QUIC_SELFTEST_COMMON_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline const char *loopback(int family)
{
	return family == AF_INET ? "127.0.0.1" : "::1";
}

static inline const char *wildcard(int family)
{
	return family == AF_INET ? "0.0.0.0" : "::";
}

/* Fills @ss with @addr (text) and @port; aborts on a bad address. */
static inline socklen_t make_addr(struct sockaddr_storage *ss, int family,
				  const char *addr, unsigned short port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1)
			abort();
		return sizeof(*sin);
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) != 1)
		abort();
	return sizeof(*sin6);
}

/* The port of an AF_INET or AF_INET6 address, in host order. */
static inline int addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

/* The local port of @fd, 0 if unbound, -1 on error. */
static inline int local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;
	return addr_port(&ss);
}

/* bind() that returns errno, or 0. */
static inline int bind_err(int fd, int family, const char *addr,
			   unsigned short port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(&ss, family, addr, port);

	return bind(fd, (struct sockaddr *)&ss, len) ? errno : 0;
}

static inline int setopt_err(int fd, int level, int name, const void *val,
			     socklen_t len)
{
	return setsockopt(fd, level, name, val, len) ? errno : 0;
}

static inline int getopt_err(int fd, int level, int name, void *val,
			     socklen_t *len)
{
	return getsockopt(fd, level, name, val, len) ? errno : 0;
}

/* @n bytes of random() output at @b, for junk datagrams. */
static inline void fill_random(void *b, size_t n)
{
	unsigned char *p = b;
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = random();
}

/* accept() on a non-blocking listener; -2 if it cannot be made so. */
static inline int accept_nb(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		return -2;
	return accept(fd, NULL, NULL);
}

/*
 * Field @col (1 is the first after the key) of the last line of @path
 * whose first word is @key, as a number; -1 if there is none.
 */
static inline long proc_value(const char *path, const char *key, int col)
{
	char line[512], *word, *save, *end;
	long val, found = -1;
	FILE *f;
	int i;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		word = strtok_r(line, " \t\n", &save);
		if (!word || strcmp(word, key))
			continue;
		for (i = 0; i < col && word; i++)
			word = strtok_r(NULL, " \t\n", &save);
		if (!word)
			continue;
		val = strtol(word, &end, 10);
		if (end != word)
			found = val;
	}
	fclose(f);
	return found;
}

/*
 * Move the calling process (a kselftest_harness.h test runs in a child of
 * its own) into a new network namespace with its loopback up: fresh
 * /proc/net/quic/snmp counters, and a lo whose qdisc a test may change
 * without touching anyone else's. 0, or -1 with errno set.
 */
static inline int own_netns(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd, ret = -1;

	if (unshare(CLONE_NEWNET))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return ret;
}

/* A packet socket on lo, to see what QUIC sends; -1 on error. */
static inline int lo_sniffer(void)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_ALL) };
	int ps = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));

	ll.sll_ifindex = if_nametoindex("lo");
	if (ps >= 0 && bind(ps, (struct sockaddr *)&ll, sizeof(ll))) {
		close(ps);
		ps = -1;
	}
	return ps;
}

/*
 * The @len-byte DCID of a short-header packet sent to UDP port @port of
 * @family, among the datagrams the lo_sniffer() socket @ps captured or
 * captures within 10 s (the packet may leave after the call that queued
 * it returns: paced, or on a slow kernel); 0 on success.
 */
static inline int sniff_short_dcid(int ps, int family, int port,
				   unsigned char *dcid, size_t len)
{
	struct pollfd pfd = { .fd = ps, .events = POLLIN };
	unsigned char b[2048];
	size_t off;
	ssize_t n;

	while (poll(&pfd, 1, 10000) == 1 &&
	       (n = recv(ps, b, sizeof(b), MSG_DONTWAIT)) > 0) {
		if (family == AF_INET && (b[0] >> 4) == 4 && b[9] == 17)
			off = (b[0] & 0x0f) * 4;
		else if (family == AF_INET6 && (b[0] >> 4) == 6 && b[6] == 17)
			off = 40;
		else
			continue;
		if ((size_t)n < off + 8 + 1 + len ||
		    ((b[off + 2] << 8) | b[off + 3]) != port)
			continue;
		off += 8;
		if ((b[off] & 0xc0) != 0x40)
			continue;
		memcpy(dcid, b + off + 1, len);
		return 0;
	}
	return -1;
}

/* A call blocked in a thread of its own, for tests of what wakes it. */
enum blocked_op {
	BLOCKED_ACCEPT,		/* accept() */
	BLOCKED_RECV,		/* recv() of one byte */
	BLOCKED_POLL,		/* poll() for POLLIN and POLLRDHUP, 20 s */
};

struct blocked_call {
	int fd;
	enum blocked_op op;
	int ret;
	int err;
	short revents;		/* BLOCKED_POLL */
	int done;		/* read and written with __atomic builtins */
	int tid;		/* the thread's, once it runs (__atomic) */
	pthread_t th;
};

static inline void blocked_call_sig(int sig)
{
	(void)sig;	/* only there to interrupt the call */
}

static inline void *blocked_call_main(void *p)
{
	struct blocked_call *b = p;
	struct pollfd pfd = { .fd = b->fd, .events = POLLIN | POLLRDHUP };
	char c;

	__atomic_store_n(&b->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (b->op == BLOCKED_POLL) {
		b->ret = poll(&pfd, 1, 20000);
		b->revents = pfd.revents;
	} else if (b->op == BLOCKED_RECV) {
		b->ret = recv(b->fd, &c, 1, 0);
	} else {
		b->ret = accept(b->fd, NULL, NULL);
	}
	b->err = errno;
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start @b's call in a thread; 0, or -1 if no thread could be made. */
static inline int blocked_call_start(struct blocked_call *b)
{
	struct sigaction sa = { .sa_handler = blocked_call_sig };

	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART */
	b->done = 0;
	b->tid = 0;
	return pthread_create(&b->th, NULL, blocked_call_main, b) ? -1 : 0;
}

/*
 * Wait up to 10 s for @b's thread to sleep in a system call (its state
 * S, and /proc/self/task/TID/syscall naming one): then its call blocks,
 * and what wakes it can be tested, however slow the machine. A fixed
 * sleep instead lets a test that stops the call before it started pass
 * without testing a wake-up. Returns 1 once asleep, 0 if the call
 * returned, -1 on timeout.
 */
static inline int blocked_call_asleep(struct blocked_call *b)
{
	char path[64], buf[256], *p;
	int i, tid, fd;
	ssize_t n;

	for (i = 0; i < 1000; i++) {
		if (__atomic_load_n(&b->done, __ATOMIC_ACQUIRE))
			return 0;
		tid = __atomic_load_n(&b->tid, __ATOMIC_ACQUIRE);
		if (tid) {
			snprintf(path, sizeof(path), "/proc/self/task/%d/stat",
				 tid);
			fd = open(path, O_RDONLY);
			n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
			if (fd >= 0)
				close(fd);
			buf[n > 0 ? n : 0] = 0;
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'S') {
				snprintf(path, sizeof(path),
					 "/proc/self/task/%d/syscall", tid);
				fd = open(path, O_RDONLY);
				n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
				if (fd >= 0)
					close(fd);
				buf[n > 0 ? n : 0] = 0;
				if (buf[0] >= '0' && buf[0] <= '9')
					return 1;
			}
		}
		usleep(10000);
	}
	return -1;
}

/*
 * Wait up to 5 s for @b's call to return, then interrupt it with a signal
 * if it has not, so that the test ends, and join its thread. Returns
 * whether it returned by itself.
 */
static inline int blocked_call_finish(struct blocked_call *b)
{
	int i, woken;

	for (i = 0; i < 500 && !__atomic_load_n(&b->done, __ATOMIC_ACQUIRE);
	     i++)
		usleep(10000);
	woken = __atomic_load_n(&b->done, __ATOMIC_ACQUIRE);
	while (!__atomic_load_n(&b->done, __ATOMIC_ACQUIRE)) {
		pthread_kill(b->th, SIGUSR1);
		usleep(10000);
	}
	pthread_join(b->th, NULL);
	return woken;
}

/*
 * A UDP socket bound to a port of loopback, connected to @to if not NULL,
 * with a receive buffer of @rcvbuf bytes if not 0; -1 on error.
 */
static inline int loopback_udp(int family, const struct sockaddr_storage *to,
			       socklen_t tolen, int rcvbuf)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(&ss, family, loopback(family), 0);
	int fd = socket(family, SOCK_DGRAM, IPPROTO_UDP);

	if (fd < 0)
		return -1;
	if ((rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				  sizeof(rcvbuf))) ||
	    bind(fd, (struct sockaddr *)&ss, len) ||
	    (to && connect(fd, (const struct sockaddr *)to, tolen))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A UDP relay on loopback between a client and a server: the client's
 * datagrams to @front go on to the server from @up (connected to it), or
 * from the socket @fwd returns (@up2, another port, say, as a NAT that
 * rebinds the client); the server's, from either, go back to the
 * client's last address from the socket @back returns for each (@front
 * without @back), which may also look at them, or drop them (-1). @up2
 * is -1 if unused; @priv is the test's.
 */
struct udp_relay {
	int front, up, up2;
	struct sockaddr_storage client;
	socklen_t client_len;
	int (*fwd)(struct udp_relay *r);
	int (*back)(struct udp_relay *r, int from, const unsigned char *buf,
		    ssize_t n);
	void *priv;
	int stop;
	int running;
	pthread_t th;
};

static inline void *udp_relay_main(void *p)
{
	static unsigned char buf[65536];
	struct udp_relay *r = p;
	struct pollfd pfd[3] = {
		{ .fd = r->front, .events = POLLIN },
		{ .fd = r->up, .events = POLLIN },
		{ .fd = r->up2, .events = POLLIN },
	};
	socklen_t len;
	ssize_t n;
	int i, fd;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (poll(pfd, 3, 50) <= 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			len = sizeof(r->client);
			n = recvfrom(r->front, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&r->client, &len);
			if (n > 0) {
				r->client_len = len;
				send(r->fwd ? r->fwd(r) : r->up, buf, n, 0);
			}
		}
		for (i = 1; i < 3; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			n = recv(pfd[i].fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (n <= 0 || !r->client_len)
				continue;
			fd = r->back ? r->back(r, pfd[i].fd, buf, n) : r->front;
			if (fd >= 0)
				sendto(fd, buf, n, 0,
				       (struct sockaddr *)&r->client,
				       r->client_len);
		}
	}
	return NULL;
}

/* Run @r (its sockets and hooks set) in a thread: 0, or -1. */
static inline int udp_relay_start(struct udp_relay *r)
{
	r->stop = 0;
	r->client_len = 0;
	r->running = !pthread_create(&r->th, NULL, udp_relay_main, r);
	return r->running ? 0 : -1;
}

/* Stop @r's thread if it runs, and close its sockets (-1 if none). */
static inline void udp_relay_stop(struct udp_relay *r)
{
	if (r->running) {
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
		pthread_join(r->th, NULL);
		r->running = 0;
	}
	if (r->front >= 0)
		close(r->front);
	if (r->up >= 0)
		close(r->up);
	if (r->up2 >= 0)
		close(r->up2);
	r->front = -1;
	r->up = -1;
	r->up2 = -1;
}

#endif /* _QUIC_SELFTEST_COMMON_H */
