// SPDX-License-Identifier: GPL-2.0
/*
 * The socket side of HTTP/3 over kernel QUIC: stream data goes out with
 * sendmsg() and a QUIC_STREAM_INFO cmsg (MSG_QUIC_STREAM_NEW the first
 * time one of our streams is used) and comes back from recvmsg() with the
 * same cmsg (quic-api.rst, sections 5.2 and 5.3). The helpers for
 * options (cipher names, addresses, sizes) live here too.
 */

#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <linux/tls.h>
#include <netinet/quic.h>

#include "h3.h"

#define H3_VECS		16

static const struct {
	uint32_t type;
	const char *name;
	const char *alias;
} h3_ciphers[] = {
	{ TLS_CIPHER_AES_GCM_128, "AES-128-GCM", "aes128gcm" },
	{ TLS_CIPHER_AES_GCM_256, "AES-256-GCM", "aes256gcm" },
	{ TLS_CIPHER_CHACHA20_POLY1305, "CHACHA20-POLY1305", "chacha20" },
	{ TLS_CIPHER_AES_CCM_128, "AES-128-CCM", "aes128ccm" },
};

/**
 * h3_cipher_parse() - a cipher name to its TLS_CIPHER_* value
 * @name: GnuTLS name ("AES-128-GCM") or short alias ("aes128gcm")
 * @type: the value
 *
 * Return: 0, or -EINVAL for an unknown name.
 */
int h3_cipher_parse(const char *name, uint32_t *type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(h3_ciphers); i++) {
		if (!strcasecmp(name, h3_ciphers[i].name) ||
		    !strcasecmp(name, h3_ciphers[i].alias)) {
			*type = h3_ciphers[i].type;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * h3_cipher_name() - the GnuTLS name of a TLS_CIPHER_* value
 * @type: the value, 0 for "any"
 *
 * Return: a static string.
 */
const char *h3_cipher_name(uint32_t type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(h3_ciphers); i++)
		if (h3_ciphers[i].type == type)
			return h3_ciphers[i].name;
	return "any";
}

/**
 * h3_set_cipher_hint() - ask libquic to offer only one cipher
 * @fd: the QUIC socket, before its handshake
 * @type: TLS_CIPHER_* value
 *
 * quic_client_handshake() and quic_server_handshake() read the hint in
 * QUIC_SOCKOPT_CONFIG's payload_cipher_type.
 *
 * Return: 0 or -errno.
 */
int h3_set_cipher_hint(int fd, uint32_t type)
{
	struct quic_config cfg;
	socklen_t len = sizeof(cfg);

	memset(&cfg, 0, sizeof(cfg));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, &len))
		return -errno;
	cfg.payload_cipher_type = type;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, sizeof(cfg)))
		return -errno;
	return 0;
}

/**
 * h3_set_cong() - choose the congestion controller of a socket
 * @fd: the QUIC socket (a listener passes it to accepted sockets)
 * @name: "reno" or "cubic"
 *
 * Return: 0, -EINVAL for an unknown name, or -errno.
 */
int h3_set_cong(int fd, const char *name)
{
	struct quic_config cfg;
	socklen_t len = sizeof(cfg);
	uint8_t algo;

	if (!strcmp(name, "reno"))
		algo = QUIC_CONG_ALG_RENO;
	else if (!strcmp(name, "cubic"))
		algo = QUIC_CONG_ALG_CUBIC;
	else
		return -EINVAL;
	memset(&cfg, 0, sizeof(cfg));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, &len))
		return -errno;
	cfg.congestion_control_algo = algo;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, sizeof(cfg)))
		return -errno;
	return 0;
}

/**
 * h3_set_idle() - set the local max_idle_timeout of a socket
 * @fd: the QUIC socket, before its handshake (a listener passes it on)
 * @secs: the timeout in seconds, 1 to 4294
 *
 * Return: 0, -EINVAL for a value out of range, or -errno.
 */
int h3_set_idle(int fd, double secs)
{
	struct quic_transport_param p;
	socklen_t len = sizeof(p);

	if (!(secs >= 1 && secs <= 4294))
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len))
		return -errno;
	p.remote = 0;
	p.max_idle_timeout = (uint32_t)(secs * 1000000);
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
		       sizeof(p)))
		return -errno;
	return 0;
}

/**
 * h3_set_transport() - apply the --cc and --idle options of our tools
 * @fd: the QUIC socket, before its handshake (a listener passes them on)
 * @who: the program's name, for the error message
 * @cc: the congestion control name, or NULL to leave it
 * @idle: the idle timeout in seconds, or 0 to leave it
 *
 * Return: 0, or -1 after printing why.
 */
int h3_set_transport(int fd, const char *who, const char *cc, double idle)
{
	if (cc && h3_set_cong(fd, cc)) {
		fprintf(stderr, "%s: congestion control %s refused\n", who, cc);
		return -1;
	}
	if (idle && h3_set_idle(fd, idle)) {
		fprintf(stderr, "%s: idle timeout %g refused\n", who, idle);
		return -1;
	}
	return 0;
}

/**
 * h3_parse_addr() - resolve a numeric or named host and a port
 * @host: name or address; "[::1]" brackets are accepted; NULL for any
 * @port: port number
 * @passive: for bind() (wildcard when @host is NULL)
 * @ss: the address
 * @len: its length
 *
 * Return: 0 or -EINVAL.
 */
int h3_parse_addr(const char *host, const char *port, int passive,
		  struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints, *res;
	char name[256];
	size_t n;
	int err;

	if (host && host[0] == '[') {
		n = strlen(host);
		if (n < 3 || host[n - 1] != ']' || n - 2 >= sizeof(name))
			return -EINVAL;
		memcpy(name, host + 1, n - 2);
		name[n - 2] = '\0';
		host = name;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = passive ? AI_PASSIVE : 0;
	err = getaddrinfo(host, port, &hints, &res);
	if (err)
		return -EINVAL;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/**
 * h3_parse_hostport() - "ADDR:PORT" or "[ADDR]:PORT"
 * @s: the string
 * @ss: the address
 * @len: its length
 *
 * Return: 0 or -EINVAL.
 */
int h3_parse_hostport(const char *s, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	char host[256], *colon;

	if (strlen(s) >= sizeof(host))
		return -EINVAL;
	strcpy(host, s);
	colon = strrchr(host, ':');
	if (!colon || colon == host || !colon[1])
		return -EINVAL;
	*colon = '\0';
	return h3_parse_addr(host, colon + 1, 0, ss, len);
}

/**
 * h3_addr_str() - "addr:port" or "[addr]:port"
 * @sa: the address
 * @buf: where to write
 * @len: its size
 *
 * Return: @buf.
 */
const char *h3_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	}
	return buf;
}

/**
 * h3_now() - monotonic time in seconds
 *
 * Return: the time.
 */
double h3_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/**
 * h3_parse_size() - a byte count with an optional K, M or G suffix
 * @s: e.g. "10M" (powers of 1024)
 * @size: the value
 *
 * Return: 0 or -EINVAL.
 */
int h3_parse_size(const char *s, uint64_t *size)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'G':
	case 'g':
		v <<= 10;
		fallthrough;
	case 'M':
	case 'm':
		v <<= 10;
		fallthrough;
	case 'K':
	case 'k':
		v <<= 10;
		end++;
		break;
	}
	if (*end)
		return -EINVAL;
	*size = v;
	return 0;
}

/**
 * h3_nv() - a header field
 * @name: its name (lower case)
 * @value: its value; both must outlive the request or response
 *
 * Return: the field.
 */
nghttp3_nv h3_nv(const char *name, const char *value)
{
	nghttp3_nv nv = {
		.name = (uint8_t *)name,
		.value = (uint8_t *)value,
		.namelen = strlen(name),
		.valuelen = strlen(value),
	};

	return nv;
}

static int h3_stop_sending(nghttp3_conn *h3, int64_t sid, uint64_t app_err,
			   void *user, void *stream_user)
{
	struct h3_conn *c = user;
	struct quic_errinfo info;

	(void)h3;
	(void)stream_user;
	memset(&info, 0, sizeof(info));
	info.stream_id = sid;
	info.errcode = app_err;
	/* Best effort: a stream the kernel has finished with is fine. */
	setsockopt(c->fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_STOP_SENDING, &info,
		   sizeof(info));
	return 0;
}

static int h3_reset_stream(nghttp3_conn *h3, int64_t sid, uint64_t app_err,
			   void *user, void *stream_user)
{
	struct h3_conn *c = user;
	struct quic_errinfo info;

	(void)h3;
	(void)stream_user;
	memset(&info, 0, sizeof(info));
	info.stream_id = sid;
	info.errcode = app_err;
	setsockopt(c->fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET, &info,
		   sizeof(info));
	return 0;
}

/**
 * h3_conn_callbacks() - the nghttp3 callbacks both roles share
 * @cb: callbacks to fill (the caller adds its own)
 */
void h3_conn_callbacks(nghttp3_callbacks *cb)
{
	memset(cb, 0, sizeof(*cb));
	cb->stop_sending = h3_stop_sending;
	cb->reset_stream = h3_reset_stream;
}

/**
 * h3_conn_init() - prepare an established QUIC socket for HTTP/3
 * @c: the connection
 * @fd: the socket, after its handshake (a client may start before it to
 *	queue 0-RTT data, but must not read until the handshake is done)
 * @is_server: role
 *
 * Sends wait at most %H3_SNDTIMEO_MS for credit, so that one blocked
 * stream does not stop us from reading.
 *
 * Return: 0 or -errno.
 */
int h3_conn_init(struct h3_conn *c, int fd, bool is_server)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->is_server = is_server;
	c->next_bidi = is_server ? 1 : 0;
	c->next_uni = is_server ? 3 : 2;
	c->rbuf = malloc(H3_RBUF_LEN);
	if (!c->rbuf)
		return -ENOMEM;
	return h3_conn_sndtimeo(c, H3_SNDTIMEO_MS);
}

/**
 * h3_conn_sndtimeo() - how long a send may wait for room or credit
 * @c: the connection
 * @ms: milliseconds; 0 waits as long as it takes
 *
 * Return: 0 or -errno.
 */
int h3_conn_sndtimeo(struct h3_conn *c, int ms)
{
	struct timeval tv = {
		.tv_sec = ms / 1000,
		.tv_usec = (ms % 1000) * 1000,
	};

	if (setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

/**
 * h3_conn_release() - free what h3_conn_init() and the caller set up
 * @c: the connection (the socket stays open)
 */
void h3_conn_release(struct h3_conn *c)
{
	if (c->h3)
		nghttp3_conn_del(c->h3);
	free(c->rbuf);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/**
 * h3_conn_bind_streams() - our control and QPACK streams
 * @c: the connection, @c->h3 created
 *
 * The first three unidirectional streams of our role: 2, 6, 10 for a
 * client, 3, 7, 11 for a server. They are opened on their first send.
 *
 * Return: 0 or a negative nghttp3 error.
 */
int h3_conn_bind_streams(struct h3_conn *c)
{
	int64_t base = c->is_server ? 3 : 2;
	int err;

	err = nghttp3_conn_bind_control_stream(c->h3, base);
	if (err)
		return err;
	return nghttp3_conn_bind_qpack_streams(c->h3, base + 4, base + 8);
}

static bool h3_stream_local(const struct h3_conn *c, int64_t sid)
{
	return (sid & QUIC_STREAM_TYPE_SERVER_MASK) == c->is_server;
}

static int64_t *h3_stream_next(struct h3_conn *c, int64_t sid)
{
	return sid & QUIC_STREAM_TYPE_UNI_MASK ? &c->next_uni : &c->next_bidi;
}

/*
 * MSG_QUIC_STREAM_NEW (and _UNI) on the first send of our own streams.
 * Opening one of our IDs creates every lower ID of its type as well
 * (quic-api.rst, section 5.3), and an existing stream is used with or
 * without the flag: so only IDs at or above the lowest one not opened
 * yet need it, whatever order nghttp3 writes our streams in.
 */
static uint32_t h3_stream_open_flags(struct h3_conn *c, int64_t sid)
{
	if (!h3_stream_local(c, sid) || sid < *h3_stream_next(c, sid))
		return 0;
	return MSG_QUIC_STREAM_NEW |
	       (sid & QUIC_STREAM_TYPE_UNI_MASK ? MSG_QUIC_STREAM_UNI : 0);
}

static void h3_stream_opened(struct h3_conn *c, int64_t sid)
{
	int64_t *next = h3_stream_next(c, sid);

	if (h3_stream_local(c, sid) && sid >= *next)
		*next = sid + 4;
}

static ssize_t h3_send(struct h3_conn *c, int64_t sid, const nghttp3_vec *v,
		       int nvec, bool fin)
{
	char ctrl[CMSG_SPACE(sizeof(struct quic_stream_info))];
	struct iovec iov[H3_VECS];
	struct quic_stream_info info;
	struct cmsghdr *cmsg;
	struct msghdr msg;
	ssize_t n;
	int i;

	for (i = 0; i < nvec; i++) {
		iov[i].iov_base = v[i].base;
		iov[i].iov_len = v[i].len;
	}
	memset(&msg, 0, sizeof(msg));
	memset(ctrl, 0, sizeof(ctrl));
	msg.msg_iov = iov;
	msg.msg_iovlen = nvec;
	msg.msg_control = ctrl;
	msg.msg_controllen = sizeof(ctrl);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_QUIC;
	cmsg->cmsg_type = QUIC_STREAM_INFO;
	cmsg->cmsg_len = CMSG_LEN(sizeof(info));
	memset(&info, 0, sizeof(info));
	info.stream_id = sid;
	info.stream_flags = h3_stream_open_flags(c, sid) |
			    (fin ? MSG_QUIC_STREAM_FIN : 0);
	memcpy(CMSG_DATA(cmsg), &info, sizeof(info));
	do {
		n = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n >= 0)
		h3_stream_opened(c, sid);
	return n;
}

/**
 * h3_conn_write() - queue what nghttp3 has to send
 * @c: the connection
 *
 * Stops at the first stream the kernel cannot take in full (flow control
 * or send buffer) and sets @c->blocked.
 *
 * Return: 0, or a negative errno or nghttp3 error.
 */
int h3_conn_write(struct h3_conn *c)
{
	nghttp3_vec vec[H3_VECS];
	nghttp3_ssize nvec;
	int64_t sid;
	size_t len;
	ssize_t n;
	int fin, err;

	c->blocked = false;
	for (;;) {
		nvec = nghttp3_conn_writev_stream(c->h3, &sid, &fin, vec,
						  H3_VECS);
		if (nvec < 0)
			return nvec;
		if (sid < 0)
			return 0;
		len = nghttp3_vec_len(vec, nvec);
		n = h3_send(c, sid, vec, nvec, fin);
		if (n < 0) {
			if (errno != EAGAIN && errno != ENOSPC)
				return -errno;
			c->blocked = true;
			return 0;
		}
		if (n || fin) {
			err = nghttp3_conn_add_write_offset(c->h3, sid, n);
			if (!err)
				err = nghttp3_conn_add_ack_offset(c->h3, sid, n);
			if (err)
				return err;
		}
		c->tx_bytes += n;
		if ((size_t)n < len) {
			c->blocked = true;
			return 0;
		}
	}
}

/**
 * h3_conn_read() - hand everything readable to nghttp3
 * @c: the connection
 *
 * Also returns, with more left to read, once @c->read_limit (if set)
 * bytes went either way: a peer that keeps sending would otherwise keep
 * the caller here until it stops.
 *
 * Return: 0 once nothing is left to read or the limit is reached,
 * -ENOTCONN when the connection has ended, another negative errno, or a
 * negative nghttp3 error.
 */
int h3_conn_read(struct h3_conn *c)
{
	char ctrl[CMSG_SPACE(sizeof(struct quic_stream_info))];
	struct quic_stream_info info;
	nghttp3_ssize used;
	struct cmsghdr *cmsg;
	struct msghdr msg;
	struct iovec iov;
	bool found;
	ssize_t n;

	for (;;) {
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = c->rbuf;
		iov.iov_len = H3_RBUF_LEN;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctrl;
		msg.msg_controllen = sizeof(ctrl);
		n = recvmsg(c->fd, &msg, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		/* Only the ticket event may be enabled; no datagrams. */
		if (msg.msg_flags & MSG_QUIC_NOTIFICATION) {
			if (n > 0 &&
			    c->rbuf[0] == QUIC_EVENT_NEW_SESSION_TICKET)
				c->ticket = true;
			continue;
		}
		if (msg.msg_flags & MSG_QUIC_DATAGRAM)
			continue;
		found = false;
		for (cmsg = CMSG_FIRSTHDR(&msg); cmsg;
		     cmsg = CMSG_NXTHDR(&msg, cmsg)) {
			if (cmsg->cmsg_level == SOL_QUIC &&
			    cmsg->cmsg_type == QUIC_STREAM_INFO &&
			    cmsg->cmsg_len >= CMSG_LEN(sizeof(info))) {
				memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
				found = true;
			}
		}
		if (!found)
			continue;	/* handshake data: not ours */
		c->rx_bytes += n;
		used = nghttp3_conn_read_stream(c->h3, info.stream_id, c->rbuf,
						n, !!(info.stream_flags &
						      MSG_QUIC_STREAM_FIN));
		if (used < 0)
			return used;
		if (c->read_limit &&
		    c->rx_bytes + c->tx_bytes >= c->read_limit)
			return 0;
	}
}

/**
 * h3_conn_wait() - sleep until there is something to do
 * @c: the connection
 * @timeout_ms: poll() timeout when nothing is pending
 *
 * Call it only after h3_conn_read() and then h3_conn_write(): whatever
 * the input produced has been queued by then, so the only work left is
 * new input or, on a blocked connection, more room to send. POLLOUT
 * reports send buffer space and connection-level credit (quic-api.rst,
 * section 5.12) but not stream-level credit, which the next send waits
 * for in the kernel (SO_SNDTIMEO); so a blocked connection sleeps at most
 * %H3_SNDTIMEO_MS here.
 *
 * Return: 0 or -errno.
 */
int h3_conn_wait(struct h3_conn *c, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	if (c->blocked) {
		pfd.events |= POLLOUT;
		if (timeout_ms < 0 || timeout_ms > H3_SNDTIMEO_MS)
			timeout_ms = H3_SNDTIMEO_MS;
	}
	if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	return 0;
}

/**
 * h3_conn_set_close() - the application error close() will send
 * @c: the connection
 * @app_err: HTTP/3 error code, e.g. H3_NO_ERROR
 */
void h3_conn_set_close(struct h3_conn *c, uint64_t app_err)
{
	struct quic_connection_close cc;

	memset(&cc, 0, sizeof(cc));
	cc.errcode = app_err;
	setsockopt(c->fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, &cc,
		   sizeof(cc));
}
