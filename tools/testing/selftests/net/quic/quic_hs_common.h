/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the QUIC kselftests that need an established connection: a
 * PSK file and a loopback client/server pair set up by libquic's
 * handshake (server in a thread).
 */
#ifndef _QUIC_SELFTEST_HS_COMMON_H
#define _QUIC_SELFTEST_HS_COMMON_H

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "quic_common.h"

#define HS_PSK_KEY \
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

/* Write a PSK file for libquic ("identity:hex key"); 0 or -1. */
static inline int hs_write_psk(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "test:%s\n", HS_PSK_KEY);
	return fclose(f);
}

struct hs_server {
	const char *psk;
	int lfd;
	int fd;
	int ret;
};

static inline void *hs_server_main(void *p)
{
	struct hs_server *a = p;

	a->fd = accept(a->lfd, NULL, NULL);
	if (a->fd < 0)
		a->ret = -errno;
	else
		a->ret = quic_server_handshake(a->fd, a->psk, NULL, NULL);
	return NULL;
}

/*
 * Bind @lfd to the loopback address of @family, listen, and run a PSK
 * handshake between @cfd and the socket accepted from @lfd, returned in
 * *@sfd. Options set on @lfd before are inherited by *@sfd.
 * Return: 0, or a negative errno of the first step that failed.
 */
static inline int hs_pair(int family, const char *psk, int lfd, int cfd,
			  int *sfd)
{
	struct hs_server a = { .psk = psk, .lfd = lfd, .fd = -1 };
	struct sockaddr_storage ss;
	socklen_t len;
	pthread_t th;
	int ret;

	*sfd = -1;
	len = make_addr(&ss, family, loopback(family), 0);
	if (bind(lfd, (struct sockaddr *)&ss, len) ||
	    getsockname(lfd, (struct sockaddr *)&ss, &len) ||
	    listen(lfd, 4))
		return -errno;
	if (pthread_create(&th, NULL, hs_server_main, &a))
		return -EAGAIN;
	ret = connect(cfd, (struct sockaddr *)&ss, len) ? -errno : 0;
	if (!ret)
		ret = quic_client_handshake(cfd, psk, NULL, NULL);
	if (ret) {
		/* Unblock the server: a closed client makes it fail. */
		shutdown(cfd, SHUT_RDWR);
		shutdown(lfd, SHUT_RDWR);
	}
	pthread_join(th, NULL);
	if (!ret)
		ret = a.ret;
	if (ret) {
		if (a.fd >= 0)
			close(a.fd);
		return ret;
	}
	*sfd = a.fd;
	return 0;
}

#endif /* _QUIC_SELFTEST_HS_COMMON_H */
