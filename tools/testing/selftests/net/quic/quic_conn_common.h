/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A connected pair of kernel QUIC sockets for the selftests: a listener on
 * loopback, a client that connects, and a PSK handshake through libquic
 * with the server side in a thread. Include after kselftest_harness.h and
 * quic_common.h; link libquic and GnuTLS.
 */

#ifndef _QUIC_SELFTEST_CONN_COMMON_H
#define _QUIC_SELFTEST_CONN_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "quic_common.h"

#define QUIC_PAIR_PSK_KEY \
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

struct quic_pair_server {
	const char *psk;
	int lfd;
	int fd;
	int ret;
};

static inline int quic_pair_write_psk(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "test:%s\n", QUIC_PAIR_PSK_KEY);
	return fclose(f);
}

static inline void *quic_pair_server_main(void *p)
{
	struct quic_pair_server *a = p;

	a->fd = accept(a->lfd, NULL, NULL);
	if (a->fd < 0)
		a->ret = -errno;
	else
		a->ret = quic_server_handshake(a->fd, a->psk, NULL, NULL);
	return NULL;
}

/* Enable (on != 0) or disable an event type on a socket. */
static inline int quic_pair_event(int fd, int type, int on)
{
	struct quic_event_option ev = { .type = type, .on = !!on };

	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev));
}

/*
 * Connect a client to a listener over loopback of @family and run a PSK
 * handshake (the key in @psk, written by quic_pair_write_psk()). @tp, when
 * not NULL, is applied to both the listener (accepted sockets inherit it)
 * and the client before the handshake, and so are the event types in the
 * bit mask @events. Returns 0 with *@cfd and *@sfd set, or a negative
 * errno; the listener is closed either way.
 */
static inline int quic_pair_open_events(int family, const char *psk,
					const struct quic_transport_param *tp,
					unsigned int events, int *cfd, int *sfd)
{
	struct quic_pair_server a = { .psk = psk, .fd = -1 };
	struct sockaddr_storage ss;
	socklen_t len;
	pthread_t th;
	int ret = 0, i;

	*cfd = -1;
	*sfd = -1;
	a.lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	if (a.lfd < 0)
		return -errno;
	*cfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	if (*cfd < 0) {
		ret = -errno;
		goto out;
	}
	if (tp && (setsockopt(a.lfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM,
			      tp, sizeof(*tp)) ||
		   setsockopt(*cfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM,
			      tp, sizeof(*tp)))) {
		ret = -errno;
		goto out;
	}
	for (i = 1; i < QUIC_EVENT_MAX; i++) {
		if (!(events & (1U << i)))
			continue;
		if (quic_pair_event(a.lfd, i, 1) || quic_pair_event(*cfd, i, 1)) {
			ret = -errno;
			goto out;
		}
	}
	len = make_addr(&ss, family, loopback(family), 0);
	if (bind(a.lfd, (struct sockaddr *)&ss, len) ||
	    getsockname(a.lfd, (struct sockaddr *)&ss, &len) ||
	    listen(a.lfd, 4)) {
		ret = -errno;
		goto out;
	}
	if (pthread_create(&th, NULL, quic_pair_server_main, &a)) {
		ret = -EAGAIN;
		goto out;
	}
	if (connect(*cfd, (struct sockaddr *)&ss, len))
		ret = -errno;
	else
		ret = quic_client_handshake(*cfd, psk, NULL, NULL);
	if (ret) {
		/* Unblock accept() or the server handshake. */
		shutdown(a.lfd, SHUT_RDWR);
		close(*cfd);
		*cfd = -1;
	}
	pthread_join(th, NULL);
	if (!ret)
		ret = a.ret;
	*sfd = a.fd;
out:
	close(a.lfd);
	if (ret) {
		if (*cfd >= 0)
			close(*cfd);
		if (*sfd >= 0)
			close(*sfd);
		*cfd = -1;
		*sfd = -1;
	}
	return ret;
}

static inline int quic_pair_open(int family, const char *psk,
				 const struct quic_transport_param *tp,
				 int *cfd, int *sfd)
{
	return quic_pair_open_events(family, psk, tp, 0, cfd, sfd);
}

/*
 * A quic_sendmsg() that sleeps holding its socket's lock: the kernel
 * copies the data under lock_sock(), and its page faults into a
 * userfaultfd until held_send_release() fills it. For tests of what
 * arrives while a user holds a socket (its backlog).
 */
struct held_send {
	int fd;			/* set by the caller */
	int64_t sid;		/* and the rest of quic_sendmsg()'s arguments */
	uint32_t flags;
	size_t len;		/* at most a page */
	ssize_t ret;		/* what quic_sendmsg() returned */
	int err;		/* and errno */
	int uffd;
	long page;
	void *buf;
	pthread_t th;
};

static inline void *held_send_main(void *p)
{
	struct held_send *h = p;

	h->ret = quic_sendmsg(h->fd, h->buf, h->len, h->sid, h->flags);
	h->err = errno;
	return NULL;
}

/*
 * Let @h's quic_sendmsg() go on, the page reading as zeros; join it and
 * free what held_send_start() set up. Returns what quic_sendmsg()
 * returned.
 */
static inline ssize_t held_send_release(struct held_send *h)
{
	struct uffdio_zeropage zp = {};

	zp.range.start = (unsigned long)h->buf;
	zp.range.len = h->page;
	ioctl(h->uffd, UFFDIO_ZEROPAGE, &zp);
	pthread_join(h->th, NULL);
	munmap(h->buf, h->page);
	close(h->uffd);
	return h->ret;
}

/*
 * Start @h's quic_sendmsg() in a thread and wait up to 10 s for it to
 * fault. Returns 0 once it holds the socket (held_send_release() must
 * follow); else -1 with errno set, nothing left to release: ETIMEDOUT if
 * it did not fault, another errno without a userfaultfd (a reason to
 * skip).
 */
static inline int held_send_start(struct held_send *h)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {};
	struct pollfd pfd = {};
	struct uffd_msg msg;
	int err;

	h->page = sysconf(_SC_PAGESIZE);
	h->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (h->uffd < 0)
		return -1;
	h->buf = mmap(NULL, h->page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h->buf == MAP_FAILED) {
		err = errno;
		close(h->uffd);
		errno = err;
		return -1;
	}
	reg.range.start = (unsigned long)h->buf;
	reg.range.len = h->page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(h->uffd, UFFDIO_API, &api) ||
	    ioctl(h->uffd, UFFDIO_REGISTER, &reg) ||
	    pthread_create(&h->th, NULL, held_send_main, h)) {
		err = errno;
		munmap(h->buf, h->page);
		close(h->uffd);
		errno = err;
		return -1;
	}
	pfd.fd = h->uffd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) == 1 &&
	    read(h->uffd, &msg, sizeof(msg)) == (ssize_t)sizeof(msg) &&
	    msg.event == UFFD_EVENT_PAGEFAULT)
		return 0;
	held_send_release(h);
	errno = ETIMEDOUT;
	return -1;
}

#endif /* _QUIC_SELFTEST_CONN_COMMON_H */
