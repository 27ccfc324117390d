// SPDX-License-Identifier: GPL-2.0
/*
 * quic_xfer: one QUIC connection carrying a bulk upload, whose ends report
 * their socket cookie and struct quic_info, for trace.sh to hold against
 * the quic:* events of a trace.
 *
 *   quic_xfer -s [-6] [-M MARKER] ADDR PORT
 *   quic_xfer -c [-6] [-M MARKER] [-b BYTES] ADDR PORT
 *   quic_xfer -j [-6] [-n N] ADDR PORT
 *
 * -s: a listener on ADDR PORT accepts one connection and runs a libquic
 * handshake (a self-signed certificate made at start); it reads stream 0
 * to its FIN, reports, answers "ok" with FIN on the same stream and waits
 * for the client to close.  -c: a client connects to ADDR PORT, sends BYTES
 * (default 4 MiB) on stream 0, the last write with FIN, reads the
 * answer to its FIN, reports and closes.  -j: N (default 5) UDP datagrams
 * of 3 bytes to ADDR PORT, the first byte that of a long header, too short
 * to be a QUIC packet (QuicInDropMalformed); prints "junk N".
 *
 * A report is taken when the connection has gone quiet: the quic_info is
 * read, a line "quic_xfer mark COOKIE TRY" is written to MARKER (tracefs's
 * trace_marker) and the quic_info is read again; if the two differ (a
 * packet went or came in between), again, up to 500 times.  The counters
 * move under the socket lock, as the events fire, so what the report
 * counts is what the trace holds up to that mark.  One line on stdout:
 *
 *   quic_xfer ROLE cookie=C mark=TRY state=S sent=N rcvd=N lost=N
 *     bytes=B srtt=US cwnd=B retrans=N spurious=N ptos=N
 *
 * ROLE is "client" or "server"; a listener prints "quic_xfer listener
 * cookie=C" once it listens.  Without -M no mark is written (mark=-1) and
 * one read is taken.  Exit status 0 when every byte arrived.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "quic_common.h"
#include "test_cert.h"

#ifndef SO_COOKIE
#define SO_COOKIE	57
#endif

#define XFER_WSIZE	65536
#define XFER_TRIES	500
#define XFER_TIMEOUT	120	/* seconds, any one read */

static char key_file[64], cert_file[64];

static uint64_t sock_cookie(int fd)
{
	socklen_t len = sizeof(uint64_t);
	uint64_t c = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c, &len))
		perror("SO_COOKIE");
	return c;
}

static int get_info(int fd, struct quic_info *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_INFO, info, &len)) {
		perror("QUIC_SOCKOPT_INFO");
		return -1;
	}
	return 0;
}

static bool same_info(const struct quic_info *a, const struct quic_info *b)
{
	return a->qi_pkts_sent == b->qi_pkts_sent &&
	       a->qi_pkts_rcvd == b->qi_pkts_rcvd &&
	       a->qi_pkts_lost == b->qi_pkts_lost &&
	       a->qi_spurious_losses == b->qi_spurious_losses &&
	       a->qi_ptos == b->qi_ptos && a->qi_state == b->qi_state;
}

/* Read the quic_info of @fd around a mark in @marker; print it. */
static int report(int fd, const char *role, const char *marker)
{
	struct quic_info a, b;
	uint64_t cookie = sock_cookie(fd);
	char line[96];
	int mfd = -1, try = -1, n;

	if (marker) {
		mfd = open(marker, O_WRONLY);
		if (mfd < 0) {
			perror(marker);
			return -1;
		}
	}
	if (get_info(fd, &a))
		goto err;
	for (try = marker ? 0 : -1; try >= 0 && try < XFER_TRIES; try++) {
		n = snprintf(line, sizeof(line), "quic_xfer mark %llu %d\n",
			     (unsigned long long)cookie, try);
		if (write(mfd, line, n) != n) {
			perror("trace_marker");
			goto err;
		}
		if (get_info(fd, &b))
			goto err;
		if (same_info(&a, &b))
			break;
		usleep(10000);
		if (get_info(fd, &a))
			goto err;
	}
	if (try == XFER_TRIES) {
		fprintf(stderr, "%s: the connection did not go quiet\n", role);
		goto err;
	}
	if (mfd >= 0)
		close(mfd);
	printf("quic_xfer %s cookie=%llu mark=%d state=%u ", role,
	       (unsigned long long)cookie, try, a.qi_state);
	printf("sent=%llu rcvd=%llu lost=%llu bytes=%llu ",
	       (unsigned long long)a.qi_pkts_sent,
	       (unsigned long long)a.qi_pkts_rcvd,
	       (unsigned long long)a.qi_pkts_lost,
	       (unsigned long long)a.qi_bytes_sent);
	printf("srtt=%llu cwnd=%llu retrans=%llu spurious=%llu ptos=%llu\n",
	       (unsigned long long)a.qi_srtt_us,
	       (unsigned long long)a.qi_cwnd,
	       (unsigned long long)a.qi_pkts_retrans,
	       (unsigned long long)a.qi_spurious_losses,
	       (unsigned long long)a.qi_ptos);
	fflush(stdout);
	return 0;
err:
	if (mfd >= 0)
		close(mfd);
	return -1;
}

static void set_timeout(int fd)
{
	struct timeval tv = { .tv_sec = XFER_TIMEOUT };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/*
 * Read stream data from @fd into @buf (@len bytes) until a FIN; returns
 * the bytes read, or -1.  Notifications are skipped.
 */
static ssize_t read_to_fin(int fd, unsigned char *buf, size_t len,
			   bool keep)
{
	size_t got = 0;
	uint32_t flags;
	int64_t sid;
	ssize_t n;

	for (;;) {
		flags = 0;
		n = quic_recvmsg(fd, keep ? buf + got : buf,
				 keep ? len - got : len, &sid, &flags);
		if (n < 0) {
			perror("recvmsg");
			return -1;
		}
		if (flags & MSG_QUIC_NOTIFICATION)
			continue;
		got += n;
		if (flags & MSG_QUIC_STREAM_FIN)
			return got;
		if (keep && got == len) {
			fprintf(stderr, "more than %zu bytes\n", len);
			return -1;
		}
	}
}

static int run_server(int family, const char *addr, int port,
		      const char *marker)
{
	static unsigned char buf[XFER_WSIZE];
	struct sockaddr_storage ss;
	int lfd, fd, i;
	uint32_t flags;
	socklen_t len;
	int64_t sid;
	ssize_t n;

	snprintf(key_file, sizeof(key_file), "/tmp/quic_xfer.%d.key", getpid());
	snprintf(cert_file, sizeof(cert_file), "/tmp/quic_xfer.%d.crt", getpid());
	if (quic_test_make_cert(cert_file, key_file)) {
		fprintf(stderr, "cannot make a certificate\n");
		return 1;
	}
	lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	if (lfd < 0) {
		perror("socket");
		return 1;
	}
	len = make_addr(&ss, family, addr, port);
	if (bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 1)) {
		perror("listener");
		return 1;
	}
	printf("quic_xfer listener cookie=%llu\n",
	       (unsigned long long)sock_cookie(lfd));
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("accept");
		return 1;
	}
	set_timeout(fd);
	i = quic_server_handshake(fd, key_file, cert_file, NULL);
	unlink(key_file);
	unlink(cert_file);
	if (i) {
		fprintf(stderr, "server handshake: %s\n", strerror(-i));
		return 1;
	}
	n = read_to_fin(fd, buf, sizeof(buf), false);
	if (n < 0)
		return 1;
	fprintf(stderr, "server: %zd bytes\n", n);
	if (report(fd, "server", marker))
		return 1;
	if (quic_sendmsg(fd, "ok", 2, 0, MSG_QUIC_STREAM_FIN) != 2) {
		perror("sendmsg");
		return 1;
	}
	/* The client closes once it has the answer and has reported. */
	for (;;) {
		flags = 0;
		n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
		if (n <= 0)
			break;
	}
	close(fd);
	close(lfd);
	return 0;
}

static int run_client(int family, const char *addr, int port, size_t total,
		      const char *marker)
{
	static unsigned char buf[XFER_WSIZE];
	uint32_t flags = MSG_QUIC_STREAM_NEW;
	struct sockaddr_storage ss;
	size_t off = 0, n, i;
	socklen_t len;
	int64_t sid = 0;
	ssize_t ret;
	int fd;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7);
	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	set_timeout(fd);
	len = make_addr(&ss, family, addr, port);
	if (connect(fd, (struct sockaddr *)&ss, len) ||
	    quic_client_handshake(fd, NULL, NULL, NULL)) {
		fprintf(stderr, "client handshake failed\n");
		return 1;
	}
	while (off < total) {
		n = total - off < sizeof(buf) ? total - off : sizeof(buf);
		if (off + n == total)
			flags |= MSG_QUIC_STREAM_FIN;
		ret = quic_sendmsg(fd, buf, n, sid, flags);
		if (ret < 0) {
			perror("sendmsg");
			return 1;
		}
		flags = 0;
		off += ret;
	}
	ret = read_to_fin(fd, buf, sizeof(buf), true);
	if (ret != 2 || memcmp(buf, "ok", 2)) {
		fprintf(stderr, "client: no answer from the server\n");
		return 1;
	}
	if (report(fd, "client", marker))
		return 1;
	close(fd);
	return 0;
}

/* -j: @count datagrams of 3 bytes from a UDP socket: a long header cut
 * short.
 */
static int send_junk(int family, const char *addr, int port, int count)
{
	static const unsigned char cut[3] = { 0xc0, 0x00, 0x00 };
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, i;

	fd = socket(family, SOCK_DGRAM, IPPROTO_UDP);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	len = make_addr(&ss, family, addr, port);
	for (i = 0; i < count; i++) {
		if (sendto(fd, cut, sizeof(cut), 0, (struct sockaddr *)&ss,
			   len) != (ssize_t)sizeof(cut)) {
			perror("sendto");
			return 1;
		}
	}
	close(fd);
	printf("junk %d\n", count);
	return 0;
}

int main(int argc, char **argv)
{
	const char *marker = NULL;
	int family = AF_INET, opt, count = 5;
	size_t total = 4 << 20;
	char mode = 0;

	while ((opt = getopt(argc, argv, "scj6M:b:n:")) != -1) {
		switch (opt) {
		case 's':
		case 'c':
		case 'j':
			mode = opt;
			break;
		case '6':
			family = AF_INET6;
			break;
		case 'M':
			marker = optarg;
			break;
		case 'b':
			total = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			count = atoi(optarg);
			break;
		default:
			mode = 0;
			optind = argc;
			break;
		}
	}
	if (!mode || argc - optind != 2 || !total) {
		fprintf(stderr, "usage: %s -s|-c|-j [-6] [-M trace_marker]",
			argv[0]);
		fprintf(stderr, " [-b BYTES] [-n N] ADDR PORT\n");
		return 2;
	}
	if (mode == 'j')
		return send_junk(family, argv[optind], atoi(argv[optind + 1]), count);
	if (mode == 's')
		return run_server(family, argv[optind], atoi(argv[optind + 1]),
			      marker);
	return run_client(family, argv[optind], atoi(argv[optind + 1]), total,
		      marker);
}
