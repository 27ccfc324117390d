// SPDX-License-Identifier: GPL-2.0
/*
 * ktls_perf: throughput of kernel TLS (net/tls) over a loopback TCP
 * connection, the reference point of "make bench".
 *
 *   ktls_perf [-c aes128|aes256|chacha|none] [-m MiB] [-w write_size]
 *
 * No handshake: both ends install the same fixed TLS 1.3 keys with
 * setsockopt(SOL_TLS, TLS_TX) on the sender and TLS_RX on the receiver,
 * so the records are really encrypted and decrypted by the kernel.
 * "-c none" measures plain TCP.  The time runs from the first write to
 * the receiver reading the last byte.  Prints one line:
 * "ktls CIPHER BYTES bytes SECONDS s MB/s" (MB = 10^6 bytes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/tls.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "quic_common.h"

#ifndef SOL_TLS
#define SOL_TLS		282
#endif
#ifndef TCP_ULP
#define TCP_ULP		31
#endif

union tls_info {
	struct tls_crypto_info base;
	struct tls12_crypto_info_aes_gcm_128 aes128;
	struct tls12_crypto_info_aes_gcm_256 aes256;
	struct tls12_crypto_info_chacha20_poly1305 chacha;
};

struct perf_rx {
	int lfd;
	int ret;
	size_t total;
	size_t got;
	uint16_t type;
	struct timespec end;
};

static double now_diff(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Fixed keys: a benchmark, not a secure channel. */
static size_t tls_info_fill(union tls_info *ti, uint16_t type)
{
	memset(ti, 0x5a, sizeof(*ti));
	ti->base.version = TLS_1_3_VERSION;
	ti->base.cipher_type = type;
	switch (type) {
	case TLS_CIPHER_AES_GCM_128:
		return sizeof(ti->aes128);
	case TLS_CIPHER_AES_GCM_256:
		return sizeof(ti->aes256);
	case TLS_CIPHER_CHACHA20_POLY1305:
		return sizeof(ti->chacha);
	}
	return 0;
}

static int tls_setup(int fd, uint16_t type, int dir)
{
	union tls_info ti;
	size_t len = tls_info_fill(&ti, type);

	if (!type)
		return 0;
	if (setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls")))
		return -errno;
	if (setsockopt(fd, SOL_TLS, dir, &ti, len))
		return -errno;
	return 0;
}

static void *rx_main(void *p)
{
	static unsigned char buf[65536];
	struct perf_rx *r = p;
	ssize_t n;
	int fd;

	fd = accept(r->lfd, NULL, NULL);
	if (fd < 0) {
		r->ret = -errno;
		return NULL;
	}
	r->ret = tls_setup(fd, r->type, TLS_RX);
	while (!r->ret && r->got < r->total) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			r->ret = n ? -errno : -EPIPE;
			break;
		}
		r->got += n;
	}
	clock_gettime(CLOCK_MONOTONIC, &r->end);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	size_t total = 100 << 20, wsize = 65536, off = 0, n;
	struct perf_rx r = { .ret = -EINPROGRESS };
	const char *cname = "aes128";
	struct sockaddr_storage ss;
	struct timespec start;
	unsigned char *buf;
	int opt, fd, err;
	pthread_t th;
	socklen_t len;
	ssize_t ret;

	while ((opt = getopt(argc, argv, "c:m:w:")) != -1) {
		switch (opt) {
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
			fprintf(stderr, "usage: %s [-c cipher] [-m MiB] [-w bytes]\n",
				argv[0]);
			return 2;
		}
	}
	if (!strcmp(cname, "aes128"))
		r.type = TLS_CIPHER_AES_GCM_128;
	else if (!strcmp(cname, "aes256"))
		r.type = TLS_CIPHER_AES_GCM_256;
	else if (!strcmp(cname, "chacha"))
		r.type = TLS_CIPHER_CHACHA20_POLY1305;
	else if (strcmp(cname, "none"))
		return 2;
	if (!total || !wsize)
		return 2;
	r.total = total;
	buf = malloc(wsize);
	if (!buf)
		return 1;
	for (n = 0; n < wsize; n++)
		buf[n] = (unsigned char)(n * 7);

	r.lfd = socket(AF_INET, SOCK_STREAM, 0);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (r.lfd < 0 || fd < 0)
		return 1;
	len = make_addr(&ss, AF_INET, "127.0.0.1", 0);
	if (bind(r.lfd, (struct sockaddr *)&ss, len) ||
	    getsockname(r.lfd, (struct sockaddr *)&ss, &len) ||
	    listen(r.lfd, 1)) {
		perror("listener");
		return 1;
	}
	if (pthread_create(&th, NULL, rx_main, &r))
		return 1;
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		perror("connect");
		return 1;
	}
	err = tls_setup(fd, r.type, TLS_TX);
	if (err) {
		fprintf(stderr, "TLS_TX: %s\n", strerror(-err));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (off < total) {
		n = total - off < wsize ? total - off : wsize;
		ret = send(fd, buf, n, 0);
		if (ret < 0) {
			perror("send");
			break;
		}
		off += ret;
	}
	pthread_join(th, NULL);
	if (r.ret || r.got != total) {
		fprintf(stderr, "receiver: %s, %zu of %zu bytes\n",
			strerror(-r.ret), r.got, total);
		return 1;
	}
	printf("ktls %s %zu bytes %.2f s %.2f MB/s\n", cname, total,
	       now_diff(&start, &r.end), total / now_diff(&start, &r.end) / 1e6);
	close(fd);
	close(r.lfd);
	free(buf);
	return 0;
}
