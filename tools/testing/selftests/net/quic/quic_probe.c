// SPDX-License-Identifier: GPL-2.0
/*
 * quic_probe: open an IPPROTO_QUIC socket of each family and type, bind it
 * to loopback and report, one line per socket, what the kernel answers.
 * Exits 0 when all four sockets open.
 */

#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/quic.h>

#include "quic_common.h"

static const char *err_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "?";
}

static void format_addr(const struct sockaddr_storage *ss, char *buf,
			size_t size)
{
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const struct sockaddr_in *sin = (const void *)ss;
	char host[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		snprintf(buf, size, "%s:%u", host, ntohs(sin->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		snprintf(buf, size, "[%s]:%u", host, ntohs(sin6->sin6_port));
	} else {
		snprintf(buf, size, "family %u", ss->ss_family);
	}
}

/* One line per socket; returns 0 if the socket opened. */
static int probe(int family, int type)
{
	struct sockaddr_storage ss;
	char name[80];
	socklen_t len;
	int fd;

	printf("%-8s %-11s ", family == AF_INET ? "AF_INET" : "AF_INET6",
	       type == SOCK_STREAM ? "SOCK_STREAM" : "SOCK_DGRAM");

	fd = socket(family, type, IPPROTO_QUIC);
	if (fd < 0) {
		printf("socket: %s (%s)\n", err_name(errno), strerror(errno));
		return -1;
	}
	printf("fd %d", fd);

	len = make_addr(&ss, family, loopback(family), 0);
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		printf(", bind: %s", err_name(errno));
	} else {
		len = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &len)) {
			printf(", getsockname: %s", err_name(errno));
		} else {
			format_addr(&ss, name, sizeof(name));
			printf(", bound to %s", name);
		}
	}

	len = make_addr(&ss, family, loopback(family), 4433);
	if (connect(fd, (struct sockaddr *)&ss, len))
		printf(", connect: %s (%s)\n", err_name(errno),
		       strerror(errno));
	else
		printf(", connect: ok\n");

	close(fd);
	return 0;
}

int main(void)
{
	static const int families[] = { AF_INET, AF_INET6 };
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM };
	int i, j, failed = 0;

	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++)
			if (probe(families[i], types[j]))
				failed++;
	return failed ? 1 : 0;
}
