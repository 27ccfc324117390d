// SPDX-License-Identifier: GPL-2.0
/*
 * ktls_perf: throughput, request/response rate and connection setup rate
 * of kernel TLS (net/tls) over loopback TCP, the reference point of
 * "make bench".
 *
 *   ktls_perf [-c aes128|aes256|chacha|none] [-m MiB] [-w write_size]
 *   ktls_perf [-c cipher] -r N
 *   ktls_perf [-c cipher] -H N
 *
 * No handshake: both ends install fixed TLS 1.3 keys with
 * setsockopt(SOL_TLS, TLS_TX) on the sender and TLS_RX on the receiver,
 * so the records are really encrypted and decrypted by the kernel.
 * "-c none" measures plain TCP.
 *
 * Throughput (default): the time runs from the first write to the
 * receiver reading the last byte.  Prints two lines: the CPU time per GiB
 * of the sender, the receiver and the whole guest ("cpu sender S ms/GiB
 * receiver R ms/GiB system Y ms/GiB softirq Q ms/GiB", cpu_cost.h says
 * what each includes), then "ktls CIPHER BYTES bytes SECONDS s MB/s"
 * (MB = 10^6 bytes), the last line.
 *
 * Request/response (-r N): one connection, TCP_NODELAY and keys both ways
 * on both ends; N round trips of a 1024-byte request (one record) and a
 * 1024-byte response, one after the other.  The time runs from the first
 * request to the client's reading of the last response.  Prints
 * "ktls CIPHER rr N round trips 1024 bytes each way SECONDS s RATE rt/s".
 *
 * Connection setup (-H N): N connections one after the other, in one
 * thread: socket(), connect(), accept(), then TCP_ULP "tls" and the keys
 * both ways (TLS_TX and TLS_RX) on both ends, then close() of both.  There
 * is no TLS handshake: this is the floor under what a TLS handshake over
 * TCP would cost.  Prints "tcp+ktls setup (no TLS handshake) CIPHER N
 * setups SECONDS s RATE hs/s" ("tcp setup N setups ..." with -c none).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/tls.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "quic_common.h"
#include "cpu_cost.h"

#ifndef SOL_TLS
#define SOL_TLS		282
#endif
#ifndef TCP_ULP
#define TCP_ULP		31
#endif

/* Request and response size of -r. */
#define RR_SIZE		1024

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
	unsigned int rounds;	/* -r: round trips to answer */
	int fd;			/* -r: the accepted socket, closed by main() */
	struct timespec end;
	double cpu;		/* thread CPU time from key setup to the end, s */
};

static double now_diff(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

/*
 * Fixed keys: a benchmark, not a secure channel.  @fill is the byte of
 * key, IV, salt and sequence number: one per direction.
 */
static size_t tls_info_fill(union tls_info *ti, uint16_t type,
			    unsigned char fill)
{
	memset(ti, fill, sizeof(*ti));
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
	size_t len = tls_info_fill(&ti, type, 0x5a);

	if (!type)
		return 0;
	if (setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls")))
		return -errno;
	if (setsockopt(fd, SOL_TLS, dir, &ti, len))
		return -errno;
	return 0;
}

/*
 * Keys both ways: the client sends with the 0x5a keys and receives with
 * the 0xa5 ones, the server the other way round.
 */
static int tls_setup_both(int fd, uint16_t type, bool client)
{
	union tls_info ti;
	size_t len;

	if (!type)
		return 0;
	if (setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls")))
		return -errno;
	len = tls_info_fill(&ti, type, client ? 0x5a : 0xa5);
	if (setsockopt(fd, SOL_TLS, TLS_TX, &ti, len))
		return -errno;
	len = tls_info_fill(&ti, type, client ? 0xa5 : 0x5a);
	if (setsockopt(fd, SOL_TLS, TLS_RX, &ti, len))
		return -errno;
	return 0;
}

/* Read exactly RR_SIZE bytes; 0 or a negative errno. */
static int rr_read(int fd, unsigned char *buf)
{
	size_t got = 0;
	ssize_t n;

	while (got < RR_SIZE) {
		n = recv(fd, buf + got, RR_SIZE - got, 0);
		if (n <= 0)
			return n ? -errno : -EPIPE;
		got += n;
	}
	return 0;
}

static int set_nodelay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ?
	       -errno : 0;
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
	r->cpu = cpu_thread_s();
	while (!r->ret && r->got < r->total) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			r->ret = n ? -errno : -EPIPE;
			break;
		}
		r->got += n;
	}
	clock_gettime(CLOCK_MONOTONIC, &r->end);
	r->cpu = cpu_thread_s() - r->cpu;
	close(fd);
	return NULL;
}

/* -r: answer each request with the same RR_SIZE bytes. */
static void *rr_main(void *p)
{
	static unsigned char buf[RR_SIZE];
	struct perf_rx *r = p;
	unsigned int i;

	r->fd = accept(r->lfd, NULL, NULL);
	if (r->fd < 0) {
		r->ret = -errno;
		return NULL;
	}
	r->ret = set_nodelay(r->fd);
	if (!r->ret)
		r->ret = tls_setup_both(r->fd, r->type, false);
	for (i = 0; !r->ret && i < r->rounds; i++) {
		r->ret = rr_read(r->fd, buf);
		if (r->ret)
			break;
		if (send(r->fd, buf, RR_SIZE, 0) != RR_SIZE)
			r->ret = -EIO;
		else
			r->got += RR_SIZE;
	}
	return NULL;
}

/* The client side of -r, on @fd connected to rr_main(). */
static int rr_client(int fd, struct perf_rx *r, const char *cname)
{
	static unsigned char req[RR_SIZE], resp[RR_SIZE];
	struct timespec start, end;
	unsigned int i;
	int err;

	for (i = 0; i < RR_SIZE; i++)
		req[i] = (unsigned char)(i * 7);
	err = set_nodelay(fd);
	if (!err)
		err = tls_setup_both(fd, r->type, true);
	if (err) {
		fprintf(stderr, "client setup: %s\n", strerror(-err));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < r->rounds; i++) {
		if (send(fd, req, RR_SIZE, 0) != RR_SIZE) {
			err = -EIO;
			break;
		}
		err = rr_read(fd, resp);
		if (err)
			break;
		if (memcmp(req, resp, RR_SIZE)) {
			err = -EBADMSG;
			break;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	if (err) {
		fprintf(stderr, "round trip %u: %s\n", i, strerror(-err));
		return 1;
	}
	printf("ktls %s rr %u round trips %d bytes each way %.3f s %.2f rt/s\n",
	       cname, r->rounds, RR_SIZE, now_diff(&start, &end),
	       r->rounds / now_diff(&start, &end));
	return 0;
}

/* -H: @n connections to @ss on the listener @lfd, keys on both ends. */
static int setup_loop(int lfd, unsigned int n, uint16_t type,
		      const struct sockaddr_storage *ss, socklen_t len,
		      const char *cname)
{
	struct timespec start, end;
	int cfd, sfd, err = 0;
	unsigned int i;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < n; i++) {
		sfd = -1;
		cfd = socket(AF_INET, SOCK_STREAM, 0);
		if (cfd < 0 ||
		    connect(cfd, (const struct sockaddr *)ss, len))
			err = -errno;
		if (!err) {
			sfd = accept(lfd, NULL, NULL);
			if (sfd < 0)
				err = -errno;
		}
		if (!err)
			err = tls_setup_both(cfd, type, true);
		if (!err)
			err = tls_setup_both(sfd, type, false);
		if (sfd >= 0)
			close(sfd);
		if (cfd >= 0)
			close(cfd);
		if (err)
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	if (err) {
		fprintf(stderr, "connection %u: %s\n", i, strerror(-err));
		return 1;
	}
	printf("%s%s %u setups %.3f s %.2f hs/s\n",
	       type ? "tcp+ktls setup (no TLS handshake) " : "tcp setup",
	       type ? cname : "", n, now_diff(&start, &end),
	       n / now_diff(&start, &end));
	return 0;
}

int main(int argc, char **argv)
{
	size_t total = 100 << 20, wsize = 65536, off = 0, n;
	struct perf_rx r = { .ret = -EINPROGRESS, .fd = -1 };
	void *(*serve)(void *) = rx_main;
	unsigned int conns = 0;
	const char *cname = "aes128";
	struct sockaddr_storage ss;
	struct cpu_sys sys0, sys1;
	struct timespec start;
	unsigned char *buf;
	double cpu;
	int opt, fd, err, rc;
	pthread_t th;
	socklen_t len;
	ssize_t ret;

	while ((opt = getopt(argc, argv, "c:m:w:r:H:")) != -1) {
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
		case 'r':
			r.rounds = atoi(optarg);
			serve = rr_main;
			break;
		case 'H':
			conns = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-c cipher] [-m MiB] [-w bytes]\n"
				"       %s [-c cipher] -r N\n"
				"       %s [-c cipher] -H N\n",
				argv[0], argv[0], argv[0]);
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
	if (!total || !wsize || (serve == rr_main && !r.rounds) ||
	    (r.rounds && conns))
		return 2;
	r.total = total;
	buf = malloc(wsize);
	if (!buf)
		return 1;
	for (n = 0; n < wsize; n++)
		buf[n] = (unsigned char)(n * 7);

	r.lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (r.lfd < 0)
		return 1;
	len = make_addr(&ss, AF_INET, "127.0.0.1", 0);
	if (bind(r.lfd, (struct sockaddr *)&ss, len) ||
	    getsockname(r.lfd, (struct sockaddr *)&ss, &len) ||
	    listen(r.lfd, 1)) {
		perror("listener");
		return 1;
	}
	if (conns) {
		rc = setup_loop(r.lfd, conns, r.type, &ss, len, cname);
		close(r.lfd);
		free(buf);
		return rc;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 1;
	if (pthread_create(&th, NULL, serve, &r))
		return 1;
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		perror("connect");
		return 1;
	}
	if (r.rounds) {
		/* The server has sent its last response, or may be stuck. */
		rc = rr_client(fd, &r, cname);
		if (!rc)
			pthread_join(th, NULL);
		if (!rc && (r.ret || r.got != (size_t)r.rounds * RR_SIZE)) {
			fprintf(stderr, "server: %s\n", strerror(-r.ret));
			rc = 1;
		}
		close(fd);
		if (!rc && r.fd >= 0)
			close(r.fd);
		close(r.lfd);
		free(buf);
		return rc;
	}
	err = tls_setup(fd, r.type, TLS_TX);
	if (err) {
		fprintf(stderr, "TLS_TX: %s\n", strerror(-err));
		return 1;
	}
	sys0 = cpu_sys_now();
	cpu = cpu_thread_s();
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
	cpu = cpu_thread_s() - cpu;
	pthread_join(th, NULL);
	sys1 = cpu_sys_now();
	if (r.ret || r.got != total) {
		fprintf(stderr, "receiver: %s, %zu of %zu bytes\n",
			strerror(-r.ret), r.got, total);
		return 1;
	}
	cpu_cost_print(total, cpu, r.cpu, &sys0, &sys1);
	printf("ktls %s %zu bytes %.2f s %.2f MB/s\n", cname, total,
	       now_diff(&start, &r.end), total / now_diff(&start, &r.end) / 1e6);
	close(fd);
	close(r.lfd);
	free(buf);
	return 0;
}
