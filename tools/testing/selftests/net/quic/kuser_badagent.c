// SPDX-License-Identifier: GPL-2.0
/*
 * kuser_badagent: a hostile handshake agent, to see the kernel's side of
 * the handshake upcall (net/handshake) hold against one.
 *
 *   kuser_badagent done-notquic	DONE for a UDP socket: -EBUSY
 *   kuser_badagent done-unknown	DONE for a QUIC socket no request
 *					is for: -EBUSY
 *   kuser_badagent done-nofd		DONE for a descriptor not open:
 *					-EBADF
 *   kuser_badagent accept-status N	wait (up to 30 s) for a request,
 *					accept it and answer DONE with
 *					status N, no handshake done (0: a
 *					lie)
 *   kuser_badagent accept-hold		accept a request, print
 *					"accepted fd=N" and hold it until
 *					killed
 *
 * Prints one line, "ok ..." or "fail ...", and exits 0 when the kernel
 * answered as expected, 1 otherwise. Needs CAP_NET_ADMIN. Built with
 * tools/quic/agent/hsnl.c.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "hsnl.h"

#ifndef IPPROTO_QUIC
#define IPPROTO_QUIC	261
#endif

#define BADAGENT_WAIT_S		30
#define BADAGENT_NOFD		12345

static struct hsnl nl;

static int report_fail(const char *mode, const char *what, int err)
{
	printf("fail %s: %s: %s\n", mode, what, strerror(-err));
	return 1;
}

/* DONE for @fd, where the kernel must answer @expect. */
static int done_expect(const char *mode, int fd, int expect,
		       const char *name)
{
	int err = hsnl_done(&nl, fd, 0, 0);

	if (err != expect) {
		printf("fail %s: DONE answered %d (%s), expected %s\n", mode,
		       err, err ? strerror(-err) : "success", name);
		return 1;
	}
	printf("ok %s %s\n", mode, name);
	return 0;
}

/* Wait for a request and accept it. Return: 0 or a negative errno. */
static int accept_one(struct hsnl_accept *req)
{
	time_t end = time(NULL) + BADAGENT_WAIT_S;
	int err, left;

	err = hsnl_join(&nl);
	if (err)
		return err;
	printf("joined\n");	/* kusers.sh starts the request on this */
	fflush(stdout);
	for (;;) {
		err = hsnl_accept(&nl, req);
		if (err != -EAGAIN)
			return err;
		left = end - time(NULL);
		if (left <= 0)
			return -ETIMEDOUT;
		err = hsnl_wait_ready(&nl, left * 1000);
		if (err < 0)
			return err;
	}
}

static int print_usage(void)
{
	fprintf(stderr,
		"usage: kuser_badagent done-notquic | done-unknown | done-nofd |\n"
		"       accept-status N | accept-hold\n");
	return 1;
}

int main(int argc, char **argv)
{
	struct hsnl_accept req;
	const char *mode;
	unsigned long status = 0;
	char *end;
	int fd, err;

	if (argc < 2)
		return print_usage();
	mode = argv[1];
	if (strcmp(mode, "accept-status") ? argc != 2 : argc != 3)
		return print_usage();
	if (strcmp(mode, "done-notquic") && strcmp(mode, "done-unknown") &&
	    strcmp(mode, "done-nofd") && strcmp(mode, "accept-status") &&
	    strcmp(mode, "accept-hold"))
		return print_usage();
	if (argc == 3) {
		errno = 0;
		status = strtoul(argv[2], &end, 0);
		if (errno || *end || end == argv[2] || status > UINT32_MAX)
			return print_usage();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	err = hsnl_open(&nl);
	if (err)
		return report_fail(mode, "handshake netlink family", err);

	if (!strcmp(mode, "done-notquic")) {
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0)
			return report_fail(mode, "UDP socket", -errno);
		return done_expect(mode, fd, -EBUSY, "EBUSY");
	}
	if (!strcmp(mode, "done-unknown")) {
		fd = socket(AF_INET, SOCK_STREAM, IPPROTO_QUIC);
		if (fd < 0)
			return report_fail(mode, "QUIC socket", -errno);
		return done_expect(mode, fd, -EBUSY, "EBUSY");
	}
	if (!strcmp(mode, "done-nofd")) {
		close(BADAGENT_NOFD);
		return done_expect(mode, BADAGENT_NOFD, -EBADF, "EBADF");
	}
	if (!strcmp(mode, "accept-status")) {
		err = accept_one(&req);
		if (err)
			return report_fail(mode, "accept", err);
		err = hsnl_done(&nl, req.sockfd, status, 0);
		if (err)
			return report_fail(mode, "done", err);
		printf("ok accept-status %lu\n", status);
		return 0;
	}
	if (!strcmp(mode, "accept-hold")) {
		err = accept_one(&req);
		if (err)
			return report_fail(mode, "accept", err);
		printf("accepted fd=%d\n", req.sockfd);
		fflush(stdout);
		for (;;)
			pause();
	}
	return print_usage();
}
