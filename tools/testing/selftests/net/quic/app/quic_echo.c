// SPDX-License-Identifier: GPL-2.0
/*
 * An application as its author would write it: only the public headers
 * of the socket API (<netinet/quic.h>, which brings <linux/quic.h>) and
 * the C library, built with `pkg-config --cflags --libs libquic` against
 * an installed libquic (check.sh installs one and builds this).
 *
 * A server and a client in one process: PSK handshakes through libquic,
 * a request and its echo on a stream, a datagram each way, then the
 * server's close seen by the client as ENOTCONN. Prints one line per
 * step and exits 0 if every step worked.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <netinet/quic.h>

static const char *psk_file = "/tmp/quic_echo.psk";
static int failed;

static void step(const char *what, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failed = 1;
}

/* Both ends take datagrams of up to 1200 bytes; replies wait at most 5 s. */
static int prepare(int fd)
{
	struct quic_transport_param tp = { .remote = 0 };	/* ours */
	struct timeval tv = { .tv_sec = 5 };
	socklen_t len = sizeof(tp);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &tp, &len))
		return -1;
	tp.max_datagram_frame_size = 1200;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &tp,
		       sizeof(tp)))
		return -1;
	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

struct server {
	int lfd;
	int ok;
};

static void *serve(void *arg)
{
	struct server *s = arg;
	uint32_t flags = 0;
	char buf[256];
	int64_t sid = -1;
	ssize_t n;
	int fd;

	fd = accept(s->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	if (quic_server_handshake(fd, psk_file, NULL, "echo/1"))
		goto out;
	/* The request on the client's stream, echoed on it with a FIN. */
	n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
	if (n <= 0 || !(flags & MSG_QUIC_STREAM_FIN))
		goto out;
	if (quic_sendmsg(fd, buf, n, sid, MSG_QUIC_STREAM_FIN) != n)
		goto out;
	/* A datagram back for the client's. */
	flags = 0;
	n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
	if (n <= 0 || !(flags & MSG_QUIC_DATAGRAM))
		goto out;
	if (quic_sendmsg(fd, buf, n, 0, MSG_QUIC_DATAGRAM) != n)
		goto out;
	/* Then the client closes: the end is ENOTCONN. */
	n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
	s->ok = n < 0 && errno == ENOTCONN;
out:
	close(fd);
	return NULL;
}

int main(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	struct server srv = { .lfd = -1 };
	static const char req[] = "hello, kernel QUIC";
	uint32_t flags = 0;
	pthread_t thread;
	int64_t sid = -1;
	char buf[256];
	FILE *f;
	ssize_t n;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	f = fopen(psk_file, "w");
	step("PSK file written", !!f);
	if (!f)
		return 1;
	fprintf(f, "app:%s\n",
		"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
	fclose(f);
	quic_set_log_level(-1);

	srv.lfd = socket(AF_INET, SOCK_DGRAM, IPPROTO_QUIC);
	step("socket(AF_INET, SOCK_DGRAM, IPPROTO_QUIC)", srv.lfd >= 0);
	if (srv.lfd < 0)
		return 1;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	step("listener bound, ALPN set, listening",
	     !bind(srv.lfd, (struct sockaddr *)&sin, sizeof(sin)) &&
	     !getsockname(srv.lfd, (struct sockaddr *)&sin, &len) &&
	     !setsockopt(srv.lfd, SOL_QUIC, QUIC_SOCKOPT_ALPN, "echo/1", 6) &&
	     !prepare(srv.lfd) && !listen(srv.lfd, 4));
	if (pthread_create(&thread, NULL, serve, &srv))
		return 1;

	fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_QUIC);
	step("client connected",
	     fd >= 0 && !prepare(fd) &&
	     !connect(fd, (struct sockaddr *)&sin, sizeof(sin)));
	step("quic_client_handshake() with a PSK and ALPN",
	     !quic_client_handshake(fd, psk_file, NULL, "echo/1"));
	step("request sent on a new stream",
	     quic_sendmsg(fd, req, sizeof(req), -1,
			  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN) ==
	     sizeof(req));
	n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
	step("echo received on the same stream with its FIN",
	     n == sizeof(req) && !memcmp(buf, req, n) && sid == 0 &&
	     (flags & MSG_QUIC_STREAM_FIN));
	step("datagram sent",
	     quic_sendmsg(fd, "ping", 4, 0, MSG_QUIC_DATAGRAM) == 4);
	flags = 0;
	n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
	step("datagram echoed",
	     n == 4 && !memcmp(buf, "ping", 4) && (flags & MSG_QUIC_DATAGRAM));
	close(fd);
	pthread_join(thread, NULL);
	step("server saw the client's close as ENOTCONN", srv.ok);
	close(srv.lfd);
	unlink(psk_file);
	return failed;
}
