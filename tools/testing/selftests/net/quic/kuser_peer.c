// SPDX-License-Identifier: GPL-2.0
/*
 * kuser_peer: the user-space end of kusers.sh's connections with a kernel
 * user of QUIC (samples/quic/quic_sample.c), over libquic. It speaks the
 * sample's exchange: the client sends BYTES of its pattern on stream 0
 * with FIN, the server reads them to the FIN and sends as many of its own
 * pattern back; each checks what it received by SHA-256.
 *
 *   kuser_peer -c|-s [-p PSKFILE | -C CERT -K KEY [-r]] [-a ALPN]
 *		[-b BYTES] [-S SEED] [-t SECONDS] ADDR PORT
 *   kuser_peer -u [-t SECONDS] ADDR PORT
 *
 * -c connects to ADDR PORT, -s accepts one connection there; -p a PSK
 * file ("identity:hexkey", libquic's), -C and -K the server's certificate
 * and key (a client does not check the server's); -r, a server that
 * requires a client certificate (it does not check it either: libquic's
 * server has no trust anchors; that a client sent one is what counts
 * here). SEED (default 1) is
 * the client's pattern, SEED + 1 the server's, as the sample's. -u binds
 * a UDP socket that swallows whatever comes for SECONDS (a server that
 * never answers). Prints "kuser_peer ROLE: received N bytes, sha256 HEX"
 * and exits 0 when the digest is that of the pattern.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <gnutls/crypto.h>
#include <netinet/quic.h>

#include "quic_common.h"

#define PEER_CHUNK	65536
#define PEER_DIGEST	32

static const char *psk_file, *cert_file, *key_file, *alpn = "sample";
static uint32_t bytes = 1 << 20, seed = 1;
static bool cert_require;
static int timeout = 60;

/* Byte @off of the pattern of @s, as quic_sample_byte(). */
static uint8_t peer_byte(uint32_t s, uint32_t off)
{
	uint32_t v = (off >> 2) * 0x9e3779b1U + s;

	v ^= v >> 16;
	v *= 0x85ebca6bU;
	v ^= v >> 13;
	return v >> ((off & 3) * 8);
}

static void peer_fill(uint8_t *buf, uint32_t s, uint32_t off, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = peer_byte(s, off + i);
}

static int peer_send(int fd, uint32_t s, bool open, uint8_t *buf)
{
	uint32_t off = 0, n, flags;
	ssize_t ret;

	do {
		n = bytes - off < PEER_CHUNK ? bytes - off : PEER_CHUNK;
		peer_fill(buf, s, off, n);
		flags = (open && !off) ? MSG_QUIC_STREAM_NEW : 0;
		if (off + n == bytes)
			flags |= MSG_QUIC_STREAM_FIN;
		ret = quic_sendmsg(fd, buf, n, 0, flags);
		if (ret != (ssize_t)n) {
			perror("kuser_peer: send");
			return -1;
		}
		off += n;
	} while (off < bytes);
	return 0;
}

static int peer_recv(int fd, uint32_t s, uint8_t *buf, const char *role)
{
	uint8_t got[PEER_DIGEST], want[PEER_DIGEST];
	gnutls_hash_hd_t rx, ref;
	uint32_t off = 0, flags = 0;
	int64_t sid;
	ssize_t n;
	int i;

	if (gnutls_hash_init(&rx, GNUTLS_DIG_SHA256) ||
	    gnutls_hash_init(&ref, GNUTLS_DIG_SHA256))
		return -1;
	while (!(flags & MSG_QUIC_STREAM_FIN)) {
		sid = -1;
		flags = 0;
		n = quic_recvmsg(fd, buf, PEER_CHUNK, &sid, &flags);
		if (n < 0 || sid != 0 || (uint32_t)n > bytes - off ||
		    (!n && !(flags & MSG_QUIC_STREAM_FIN))) {
			fprintf(stderr, "kuser_peer: recv %zd sid %lld: %s\n",
				n, (long long)sid, strerror(errno));
			gnutls_hash_deinit(rx, NULL);
			gnutls_hash_deinit(ref, NULL);
			return -1;
		}
		gnutls_hash(rx, buf, n);
		peer_fill(buf, s, off, n);
		gnutls_hash(ref, buf, n);
		off += n;
	}
	gnutls_hash_deinit(rx, got);
	gnutls_hash_deinit(ref, want);
	printf("kuser_peer %s: received %u bytes, sha256 ", role, off);
	for (i = 0; i < PEER_DIGEST; i++)
		printf("%02x", got[i]);
	printf("\n");
	fflush(stdout);
	return off == bytes && !memcmp(got, want, sizeof(got)) ? 0 : -1;
}

/* After a failure: the connection's close code (the peer's once it
 * closed; a TLS alert is 0x100 + alert).
 */
static void peer_closed(int fd, const char *role)
{
	struct quic_connection_close c;
	socklen_t len = sizeof(c);

	if (!getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, &c, &len))
		printf("kuser_peer %s: close code 0x%x\n", role, c.errcode);
	fflush(stdout);
}

static void peer_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = timeout };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int peer_client(const struct sockaddr_storage *ss, socklen_t len,
		       uint8_t *buf)
{
	int fd, err;

	fd = socket(ss->ss_family, SOCK_STREAM, IPPROTO_QUIC);
	if (fd < 0 || connect(fd, (const struct sockaddr *)ss, len)) {
		perror("kuser_peer: connect");
		return -1;
	}
	peer_timeouts(fd);
	if (quic_client_handshake(fd, psk_file, NULL, alpn)) {
		perror("kuser_peer: handshake");
		peer_closed(fd, "client");
		close(fd);
		return -1;
	}
	err = peer_send(fd, seed, true, buf) ?:
	      peer_recv(fd, seed + 1, buf, "client");
	if (err)
		peer_closed(fd, "client");
	close(fd);
	return err;
}

static int peer_server(const struct sockaddr_storage *ss, socklen_t len,
		       uint8_t *buf)
{
	int lfd, fd, err;

	lfd = socket(ss->ss_family, SOCK_STREAM, IPPROTO_QUIC);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn, strlen(alpn)) ||
	    bind(lfd, (const struct sockaddr *)ss, len) || listen(lfd, 1)) {
		perror("kuser_peer: listen");
		return -1;
	}
	peer_timeouts(lfd);
	printf("kuser_peer server: listening\n");
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (fd < 0) {
		perror("kuser_peer: accept");
		return -1;
	}
	if (cert_require) {
		struct quic_config cfg = { .certificate_request = 2 };

		if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
			       sizeof(cfg))) {
			perror("kuser_peer: certificate request");
			close(fd);
			return -1;
		}
	}
	if (quic_server_handshake(fd, psk_file ?: key_file, cert_file, alpn)) {
		perror("kuser_peer: handshake");
		close(fd);
		return -1;
	}
	err = peer_recv(fd, seed, buf, "server") ?:
	      peer_send(fd, seed + 1, false, buf);
	/* Until the client closes: what was sent is then all delivered. */
	while (!err && read(fd, buf, PEER_CHUNK) > 0)
		;
	close(fd);
	return err;
}

/* A UDP socket on ADDR PORT that reads and drops for @timeout seconds. */
static int peer_sink(const struct sockaddr_storage *ss, socklen_t len,
		     uint8_t *buf)
{
	int fd;

	fd = socket(ss->ss_family, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (const struct sockaddr *)ss, len)) {
		perror("kuser_peer: bind");
		return -1;
	}
	peer_timeouts(fd);
	printf("kuser_peer sink: listening\n");
	fflush(stdout);
	while (recv(fd, buf, PEER_CHUNK, 0) >= 0)
		;
	close(fd);
	return 0;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s -c|-s [-p PSKFILE | -C CERT -K KEY [-r]] [-a ALPN] [-b BYTES] [-S SEED] [-t SECONDS] ADDR PORT\n"
		"       %s -u [-t SECONDS] ADDR PORT\n", prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	const char *addr;
	char role = 0;
	socklen_t len;
	uint8_t *buf;
	int opt, err;

	while ((opt = getopt(argc, argv, "csup:C:K:ra:b:S:t:")) != -1) {
		switch (opt) {
		case 'c':
		case 's':
		case 'u':
			role = opt;
			break;
		case 'p':
			psk_file = optarg;
			break;
		case 'C':
			cert_file = optarg;
			break;
		case 'K':
			key_file = optarg;
			break;
		case 'r':
			cert_require = true;
			break;
		case 'a':
			alpn = optarg;
			break;
		case 'b':
			bytes = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 't':
			timeout = atoi(optarg);
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (!role || optind + 2 != argc || !bytes ||
	    (role == 's' && !psk_file && (!cert_file || !key_file)))
		print_usage(argv[0]);
	addr = argv[optind];
	len = make_addr(&ss, strchr(addr, ':') ? AF_INET6 : AF_INET, addr,
			atoi(argv[optind + 1]));
	/* A send on a connection the peer closed fails with EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	buf = malloc(PEER_CHUNK);
	if (!buf)
		return 1;
	if (role == 'c')
		err = peer_client(&ss, len, buf);
	else if (role == 's')
		err = peer_server(&ss, len, buf);
	else
		err = peer_sink(&ss, len, buf);
	free(buf);
	return err ? 1 : 0;
}
