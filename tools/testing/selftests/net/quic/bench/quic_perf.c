// SPDX-License-Identifier: GPL-2.0
/*
 * quic_perf: throughput, request/response rate and handshake rate of
 * kernel QUIC sockets over loopback, for "make bench".
 *
 *   quic_perf [-6] [-c aes128|aes256|chacha|ccm] [-m MiB] [-w write_size]
 *   quic_perf [-6] [-c cipher] -r N [-s]
 *   quic_perf [-6] [-c cipher] -H N
 *
 * A server thread accepts and runs a handshake with libquic (a
 * self-signed certificate made at start: an external PSK would rule out
 * the SHA-384 suite, AES-256-GCM).
 *
 * Throughput (default): the server reads the stream to its FIN; the
 * client sends MiB mebibytes on one bidirectional stream in writes of
 * write_size bytes, the last with FIN.  The time runs from the client's
 * first write to the server's reading of the FIN.  Prints two lines: the
 * CPU time per GiB of the sender, the receiver and the whole guest
 * ("cpu sender S ms/GiB receiver R ms/GiB system Y ms/GiB softirq Q
 * ms/GiB", cpu_cost.h says what each includes), then "quic CIPHER BYTES
 * bytes SECONDS s MB/s" (MB = 10^6 bytes), the last line.
 *
 * Request/response (-r N): after one handshake, N round trips of a
 * 1024-byte request and a 1024-byte response, one after the other.  Each
 * round trip has a bidirectional stream of its own, as HTTP/3 uses them:
 * the request opens it and ends with FIN, the response ends it with FIN,
 * so stream credit comes back through MAX_STREAMS.  With -s all round
 * trips share one stream instead (no FIN), as over TCP.  The time runs
 * from the first request to the client's reading of the last response.
 * Prints "quic CIPHER rr N round trips 1024 bytes each way, MODE
 * SECONDS s RATE rt/s" (round trips per second), MODE "a stream per round
 * trip" or "one stream".
 *
 * Handshakes (-H N): N connections one after the other, each a new client
 * socket: connect(), a full TLS handshake with libquic (no resumption; its
 * quic_server_handshake() loads the key and certificate files each time),
 * then close() of both ends once both have finished.  Prints "quic
 * CIPHER N handshakes (connect, handshake, close) SECONDS s RATE hs/s".
 *
 * Exit status 0 when every byte arrived, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/tls.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
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
#include "cpu_cost.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define KEY_FILE	"/tmp/quic_perf.key"
#define CERT_FILE	"/tmp/quic_perf.crt"

/* Request and response size of -r. */
#define RR_SIZE		1024

struct perf_server {
	int lfd;
	int fd;			/* -r: the accepted socket, closed by main() */
	int ret;
	size_t got;
	unsigned int rounds;	/* -r: round trips to answer */
	bool one_stream;	/* -r -s */
	unsigned int conns;	/* -H: connections to accept */
	sem_t hs_done;		/* -H: posted after each server handshake */
	struct timespec end;
	double cpu;		/* thread CPU time from handshake to FIN, s */
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
	s->cpu = cpu_thread_s();
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
	s->cpu = cpu_thread_s() - s->cpu;
	close(fd);
	return NULL;
}

/*
 * Read one RR_SIZE-byte message into @buf (2 * RR_SIZE bytes): on stream
 * *@sid, or on any stream if *@sid is -1 (then set to it), and up to its
 * FIN if @fin.  Returns 0 or a negative errno.
 */
static int rr_read(int fd, unsigned char *buf, int64_t *sid, bool fin)
{
	size_t got = 0;
	uint32_t flags;
	int64_t s;
	ssize_t n;

	for (;;) {
		flags = 0;
		n = quic_recvmsg(fd, buf + got, 2 * RR_SIZE - got, &s, &flags);
		if (n < 0)
			return -errno;
		if (flags & MSG_QUIC_NOTIFICATION)
			continue;
		if (*sid == -1)
			*sid = s;
		else if (s != *sid)
			return -EBADMSG;
		got += n;
		if (got > RR_SIZE)
			return -EMSGSIZE;
		if (got == RR_SIZE && (!fin || (flags & MSG_QUIC_STREAM_FIN)))
			return 0;
		if (flags & MSG_QUIC_STREAM_FIN)
			return -EPIPE;	/* FIN before RR_SIZE bytes */
	}
}

/* -r: answer each request with RR_SIZE bytes on its stream. */
static void *rr_server_main(void *p)
{
	static unsigned char buf[2 * RR_SIZE];
	struct perf_server *s = p;
	uint32_t flags = s->one_stream ? 0 : MSG_QUIC_STREAM_FIN;
	unsigned int i;
	int64_t sid;

	s->fd = accept(s->lfd, NULL, NULL);
	if (s->fd < 0) {
		s->ret = -errno;
		return NULL;
	}
	s->ret = quic_server_handshake(s->fd, KEY_FILE, CERT_FILE, NULL);
	for (i = 0; !s->ret && i < s->rounds; i++) {
		sid = -1;
		s->ret = rr_read(s->fd, buf, &sid, !s->one_stream);
		if (s->ret)
			break;
		if (quic_sendmsg(s->fd, buf, RR_SIZE, sid, flags) != RR_SIZE)
			s->ret = -EIO;
		else
			s->got += RR_SIZE;
	}
	return NULL;
}

/* -H: accept and run the server handshake, s->conns times. */
static void *hs_server_main(void *p)
{
	struct perf_server *s = p;
	unsigned int i;
	int fd;

	for (i = 0; i < s->conns; i++) {
		fd = accept(s->lfd, NULL, NULL);
		if (fd < 0) {
			s->ret = -errno;
		} else {
			s->ret = quic_server_handshake(fd, KEY_FILE, CERT_FILE,
						       NULL);
			close(fd);
		}
		sem_post(&s->hs_done);
		if (s->ret)
			break;
	}
	return NULL;
}

/* The client side of -r, on @fd connected and handshaken. */
static int rr_client(int fd, struct perf_server *s, const char *cname)
{
	static unsigned char req[RR_SIZE], resp[2 * RR_SIZE];
	struct timespec start, end;
	int64_t sid, rsid;
	unsigned int i;
	uint32_t flags;
	int err = 0;

	for (i = 0; i < RR_SIZE; i++)
		req[i] = (unsigned char)(i * 7);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < s->rounds; i++) {
		if (s->one_stream) {
			sid = 0;
			flags = i ? 0 : MSG_QUIC_STREAM_NEW;
		} else {
			/* The client's bidirectional streams: 0, 4, 8... */
			sid = (int64_t)i << 2;
			flags = MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN;
		}
		if (quic_sendmsg(fd, req, RR_SIZE, sid, flags) != RR_SIZE) {
			err = -errno;
			break;
		}
		rsid = sid;
		err = rr_read(fd, resp, &rsid, !s->one_stream);
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
	printf("quic %s rr %u round trips %d bytes each way, %s %.3f s %.2f rt/s\n",
	       cname, s->rounds, RR_SIZE,
	       s->one_stream ? "one stream" : "a stream per round trip",
	       now_diff(&start, &end), s->rounds / now_diff(&start, &end));
	return 0;
}

/* The client side of -H: s->conns connections to @ss. */
static int hs_client(struct perf_server *s, int family, uint32_t type,
		     const struct sockaddr_storage *ss, socklen_t len,
		     const char *cname)
{
	struct timespec start, end;
	unsigned int i;
	int fd, err;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < s->conns; i++) {
		fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
		if (fd < 0) {
			perror("socket");
			return 1;
		}
		err = set_cipher(fd, type);
		if (!err && connect(fd, (const struct sockaddr *)ss, len))
			err = -errno;
		if (!err)
			err = quic_client_handshake(fd, NULL, NULL, NULL);
		if (err) {
			fprintf(stderr, "handshake %u: %s\n", i, strerror(-err));
			close(fd);
			return 1;
		}
		/* Close once the server has finished its side too. */
		sem_wait(&s->hs_done);
		close(fd);
		if (s->ret) {
			fprintf(stderr, "handshake %u: server: %s\n", i,
				strerror(-s->ret));
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("quic %s %u handshakes (connect, handshake, close) %.3f s %.2f hs/s\n",
	       cname, s->conns, now_diff(&start, &end),
	       s->conns / now_diff(&start, &end));
	return 0;
}

int main(int argc, char **argv)
{
	size_t total = 100 << 20, wsize = 65536, off = 0, n;
	struct perf_server s = { .ret = -EINPROGRESS, .fd = -1 };
	void *(*serve)(void *) = server_main;
	const char *cname = "aes128";
	struct sockaddr_storage ss;
	uint32_t type = 0, flags;
	int family = AF_INET, opt, fd, rc = 0;
	struct cpu_sys sys0, sys1;
	struct timespec start;
	double cpu;
	unsigned int i;
	unsigned char *buf;
	pthread_t th;
	socklen_t len;
	int64_t sid;
	ssize_t ret;

	while ((opt = getopt(argc, argv, "6c:m:w:r:sH:")) != -1) {
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
		case 'r':
			s.rounds = atoi(optarg);
			serve = rr_server_main;
			break;
		case 's':
			s.one_stream = true;
			break;
		case 'H':
			s.conns = atoi(optarg);
			serve = hs_server_main;
			break;
		default:
			fprintf(stderr, "usage: %s [-6] [-c cipher] [-m MiB] [-w bytes]\n"
				"       %s [-6] [-c cipher] -r N [-s]\n"
				"       %s [-6] [-c cipher] -H N\n",
				argv[0], argv[0], argv[0]);
			return 2;
		}
	}
	for (i = 0; i < ARRAY_SIZE(ciphers); i++)
		if (!strcmp(cname, ciphers[i].name))
			type = ciphers[i].type;
	if (!type || !total || !wsize || wsize > total ||
	    (s.rounds && s.conns) || (serve == rr_server_main && !s.rounds) ||
	    (serve == hs_server_main && !s.conns)) {
		fprintf(stderr, "bad cipher, sizes or counts\n");
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
	if (s.lfd < 0) {
		perror("socket");
		return 1;
	}
	len = make_addr(&ss, family, loopback(family), 0);
	if (bind(s.lfd, (struct sockaddr *)&ss, len) ||
	    getsockname(s.lfd, (struct sockaddr *)&ss, &len) ||
	    listen(s.lfd, 1)) {
		perror("listener");
		return 1;
	}
	if (s.conns && sem_init(&s.hs_done, 0, 0))
		return 1;
	if (pthread_create(&th, NULL, serve, &s))
		return 1;
	if (s.conns) {
		/* On failure the server may be stuck: exit without it. */
		rc = hs_client(&s, family, type, &ss, len, cname);
		if (!rc)
			pthread_join(th, NULL);
		goto out;
	}

	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	if (fd < 0 || set_cipher(fd, type)) {
		perror("socket");
		return 1;
	}
	if (connect(fd, (struct sockaddr *)&ss, len) ||
	    quic_client_handshake(fd, NULL, NULL, NULL)) {
		fprintf(stderr, "client handshake failed\n");
		return 1;
	}
	if (s.rounds) {
		/* The server has sent its last response, or may be stuck. */
		rc = rr_client(fd, &s, cname);
		if (!rc)
			pthread_join(th, NULL);
		if (!rc && (s.ret || s.got != (size_t)s.rounds * RR_SIZE)) {
			fprintf(stderr, "server: %s\n", strerror(-s.ret));
			rc = 1;
		}
		close(fd);
		if (!rc && s.fd >= 0)
			close(s.fd);
		goto out;
	}

	sys0 = cpu_sys_now();
	cpu = cpu_thread_s();
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
	cpu = cpu_thread_s() - cpu;
	pthread_join(th, NULL);
	sys1 = cpu_sys_now();
	if (s.ret || s.got != total) {
		fprintf(stderr, "server: %s, %zu of %zu bytes\n",
			strerror(-s.ret), s.got, total);
		return 1;
	}
	cpu_cost_print(total, cpu, s.cpu, &sys0, &sys1);
	printf("quic %s %zu bytes %.2f s %.2f MB/s\n", cname, total,
	       now_diff(&start, &s.end),
	       total / now_diff(&start, &s.end) / 1e6);
	close(fd);
out:
	close(s.lfd);
	unlink(KEY_FILE);
	unlink(CERT_FILE);
	free(buf);
	return rc;
}
