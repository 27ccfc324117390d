// SPDX-License-Identifier: GPL-2.0
/*
 * quic_perf: throughput of one stream between two kernel QUIC sockets over
 * loopback, for "make bench".
 *
 *   quic_perf [-6] [-c aes128|aes256|chacha|ccm] [-m MiB] [-w write_size]
 *
 * A server thread accepts, runs a handshake with libquic (a self-signed
 * certificate made at start: an external PSK would rule out the SHA-384
 * suite, AES-256-GCM) and reads the
 * stream to its FIN; the client sends MiB mebibytes on one bidirectional
 * stream in writes of write_size bytes, the last with FIN.  The time runs
 * from the client's first write to the server's reading of the FIN.  Prints
 * one line: "quic CIPHER BYTES bytes SECONDS s MB/s" (MB = 10^6 bytes).
 * Exit status 0 when every byte arrived, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/tls.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "quic_common.h"
#include "test_cert.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define KEY_FILE	"/tmp/quic_perf.key"
#define CERT_FILE	"/tmp/quic_perf.crt"

struct perf_server {
	int lfd;
	int ret;
	size_t got;
	struct timespec end;
};

static const struct {
	const char *name;
	uint32_t type;
} ciphers[] = {
	{ "aes128", TLS_CIPHER_AES_GCM_128 },
	{ "aes256", TLS_CIPHER_AES_GCM_256 },
	{ "chacha", TLS_CIPHER_CHACHA20_POLY1305 },
	{ "ccm", TLS_CIPHER_AES_CCM_128 },
};

static double now_diff(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static int set_cipher(int fd, uint32_t type)
{
	struct quic_config cfg;
	socklen_t len = sizeof(cfg);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, &len))
		return -errno;
	cfg.payload_cipher_type = type;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, sizeof(cfg)))
		return -errno;
	return 0;
}

static void *server_main(void *p)
{
	static unsigned char buf[65536];
	struct perf_server *s = p;
	uint32_t flags;
	int64_t sid;
	ssize_t n;
	int fd;

	fd = accept(s->lfd, NULL, NULL);
	if (fd < 0) {
		s->ret = -errno;
		return NULL;
	}
	s->ret = quic_server_handshake(fd, KEY_FILE, CERT_FILE, NULL);
	while (!s->ret) {
		flags = 0;
		n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
		if (n < 0) {
			s->ret = -errno;
			break;
		}
		s->got += n;
		if (flags & MSG_QUIC_STREAM_FIN)
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->end);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	size_t total = 100 << 20, wsize = 65536, off = 0, n;
	struct perf_server s = { .ret = -EINPROGRESS };
	const char *cname = "aes128";
	struct sockaddr_storage ss;
	uint32_t type = 0, flags;
	int family = AF_INET, opt, fd;
	struct timespec start;
	unsigned int i;
	unsigned char *buf;
	pthread_t th;
	socklen_t len;
	int64_t sid;
	ssize_t ret;

	while ((opt = getopt(argc, argv, "6c:m:w:")) != -1) {
		switch (opt) {
		case '6':
			family = AF_INET6;
			break;
		case 'c':
			cname = optarg;
			break;
		case 'm':
			total = (size_t)atoi(optarg) << 20;
			break;
		case 'w':
			wsize = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-6] [-c cipher] [-m MiB] [-w bytes]\n",
				argv[0]);
			return 2;
		}
	}
	for (i = 0; i < ARRAY_SIZE(ciphers); i++)
		if (!strcmp(cname, ciphers[i].name))
			type = ciphers[i].type;
	if (!type || !total || !wsize || wsize > total) {
		fprintf(stderr, "bad cipher or sizes\n");
		return 2;
	}
	buf = malloc(wsize);
	if (!buf)
		return 1;
	for (n = 0; n < wsize; n++)
		buf[n] = (unsigned char)(n * 7);

	if (quic_test_make_cert(CERT_FILE, KEY_FILE)) {
		fprintf(stderr, "cannot make a certificate\n");
		return 1;
	}
	s.lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	if (s.lfd < 0 || fd < 0) {
		perror("socket");
		return 1;
	}
	len = make_addr(&ss, family, loopback(family), 0);
	if (bind(s.lfd, (struct sockaddr *)&ss, len) ||
	    getsockname(s.lfd, (struct sockaddr *)&ss, &len) ||
	    listen(s.lfd, 1) || set_cipher(fd, type)) {
		perror("listener");
		return 1;
	}
	if (pthread_create(&th, NULL, server_main, &s))
		return 1;
	if (connect(fd, (struct sockaddr *)&ss, len) ||
	    quic_client_handshake(fd, NULL, NULL, NULL)) {
		fprintf(stderr, "client handshake failed\n");
		return 1;
	}

	clock_gettime(CLOCK_MONOTONIC, &start);
	sid = -1;
	flags = MSG_QUIC_STREAM_NEW;
	while (off < total) {
		n = total - off < wsize ? total - off : wsize;
		if (off + n == total)
			flags |= MSG_QUIC_STREAM_FIN;
		ret = quic_sendmsg(fd, buf, n, sid, flags);
		if (ret < 0) {
			perror("sendmsg");
			break;
		}
		sid = 0;
		flags = 0;
		off += ret;
	}
	pthread_join(th, NULL);
	if (s.ret || s.got != total) {
		fprintf(stderr, "server: %s, %zu of %zu bytes\n",
			strerror(-s.ret), s.got, total);
		return 1;
	}
	printf("quic %s %zu bytes %.2f s %.2f MB/s\n", cname, total,
	       now_diff(&start, &s.end),
	       total / now_diff(&start, &s.end) / 1e6);
	close(fd);
	close(s.lfd);
	unlink(KEY_FILE);
	unlink(CERT_FILE);
	free(buf);
	return 0;
}
