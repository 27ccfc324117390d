// SPDX-License-Identifier: GPL-2.0
/*
 * quic_mem: kernel memory per idle established connection, for "make
 * bench" (bench.sh). Opens N connections over loopback, each a client and
 * a server socket in this process (a libquic handshake each, or a TCP
 * connect/accept with -t), lets them settle, and prints how much the
 * kernel's slab and its free memory moved, per connection (both ends).
 * The free-memory figure also sees what the slab does not: allocations
 * larger than a slab object go to the page allocator. Asserts nothing.
 *
 *   quic_mem [-t] [-n N] [-d PREFIX] [-w SEC]
 *
 * -d copies /proc/slabinfo to PREFIX.before and PREFIX.after, to see
 * which caches grew. -w keeps the connections open SEC seconds after the
 * reading, for a look at what holds the memory (/sys/kernel/slab/NAME/
 * alloc_calls with slub_debug=U); "held" on stdout says when it starts.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netinet/quic.h>
#include "quic_common.h"
#include "test_cert.h"

#define KEY_FILE	"/tmp/quic_mem.key"
#define CERT_FILE	"/tmp/quic_mem.crt"

struct mem_server {
	int lfd;
	int n;
	int *fds;
	int ret;
	int tcp;
};

/* Slab and MemFree of /proc/meminfo, in kB. */
static int read_meminfo(long *slab, long *mfree)
{
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	*slab = *mfree = -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Slab: %ld kB", slab) == 1)
			continue;
		if (sscanf(line, "MemFree: %ld kB", mfree) == 1)
			continue;
	}
	fclose(f);
	return *slab < 0 || *mfree < 0 ? -1 : 0;
}

/* Copy /proc/slabinfo to PREFIX.SUFFIX, if a prefix was given. */
static void dump_slabinfo(const char *prefix, const char *suffix)
{
	char path[512], buf[4096];
	FILE *in, *out;
	size_t n;

	if (!prefix)
		return;
	snprintf(path, sizeof(path), "%s.%s", prefix, suffix);
	in = fopen("/proc/slabinfo", "r");
	out = fopen(path, "w");
	while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/* Let RCU and deferred frees settle before a reading. */
static void settle(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sleep(1);
	if (fd >= 0) {
		if (write(fd, "3", 1) < 0)
			perror("drop_caches");
		close(fd);
	}
	sleep(1);
}

static void *server_main(void *p)
{
	struct mem_server *s = p;
	int i, fd;

	for (i = 0; i < s->n; i++) {
		fd = accept(s->lfd, NULL, NULL);
		if (fd < 0) {
			s->ret = -errno;
			return NULL;
		}
		if (!s->tcp && quic_server_handshake(fd, KEY_FILE, CERT_FILE,
						     NULL)) {
			s->ret = -EPROTO;
			close(fd);
			return NULL;
		}
		s->fds[i] = fd;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long slab0, free0, slab1, free1;
	struct mem_server s = {};
	struct sockaddr_storage ss;
	const char *dump = NULL;
	int opt, i, n = 100, hold = 0, *cfds;
	socklen_t len;
	pthread_t th;

	while ((opt = getopt(argc, argv, "tn:d:w:")) != -1) {
		switch (opt) {
		case 't':
			s.tcp = 1;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 'd':
			dump = optarg;
			break;
		case 'w':
			hold = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: %s [-t] [-n N] [-d PREFIX] [-w SEC]\n",
				argv[0]);
			return 2;
		}
	}
	if (n <= 0)
		return 2;
	cfds = calloc(n, sizeof(int));
	s.fds = calloc(n, sizeof(int));
	if (!cfds || !s.fds)
		return 1;
	s.n = n;
	if (!s.tcp && quic_test_make_cert(CERT_FILE, KEY_FILE)) {
		fprintf(stderr, "cannot make a certificate\n");
		return 1;
	}
	s.lfd = socket(AF_INET, s.tcp ? SOCK_STREAM : SOCK_DGRAM,
		       s.tcp ? 0 : IPPROTO_QUIC);
	if (s.lfd < 0) {
		perror("socket");
		return 1;
	}
	len = make_addr(&ss, AF_INET, loopback(AF_INET), 0);
	if (bind(s.lfd, (struct sockaddr *)&ss, len) ||
	    getsockname(s.lfd, (struct sockaddr *)&ss, &len) ||
	    listen(s.lfd, n)) {
		perror("listener");
		return 1;
	}
	settle();
	dump_slabinfo(dump, "before");
	if (read_meminfo(&slab0, &free0))
		return 1;
	if (pthread_create(&th, NULL, server_main, &s))
		return 1;
	for (i = 0; i < n; i++) {
		cfds[i] = socket(AF_INET, s.tcp ? SOCK_STREAM : SOCK_DGRAM,
				 s.tcp ? 0 : IPPROTO_QUIC);
		if (cfds[i] < 0 ||
		    connect(cfds[i], (struct sockaddr *)&ss, len) ||
		    (!s.tcp && quic_client_handshake(cfds[i], NULL, NULL,
						     NULL))) {
			fprintf(stderr, "connection %d failed\n", i);
			return 1;
		}
	}
	pthread_join(th, NULL);
	if (s.ret) {
		fprintf(stderr, "server: %s\n", strerror(-s.ret));
		return 1;
	}
	settle();
	dump_slabinfo(dump, "after");
	if (read_meminfo(&slab1, &free1))
		return 1;
	printf("%s %d connections: slab %ld bytes per connection, ",
	       s.tcp ? "tcp" : "quic", n, (slab1 - slab0) * 1024 / n);
	printf("memory %ld bytes per connection\n", (free0 - free1) * 1024 / n);
	if (hold > 0) {
		printf("held\n");
		fflush(stdout);
		sleep(hold);
	}
	for (i = 0; i < n; i++) {
		close(cfds[i]);
		close(s.fds[i]);
	}
	close(s.lfd);
	if (!s.tcp) {
		unlink(KEY_FILE);
		unlink(CERT_FILE);
	}
	return 0;
}
