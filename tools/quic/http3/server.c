// SPDX-License-Identifier: GPL-2.0
/*
 * h3server: serve files, or bodies of a requested size, over HTTP/3 on
 * kernel QUIC sockets.
 *
 *   h3server [-d DIR] [-c CIPHER] [-n COUNT] [--early-data]
 *            [--preferred ADDR:PORT] [-q] ADDR PORT KEY CERT
 *
 * GET /bytes/N answers N bytes of a fixed pattern (K, M and G suffixes
 * allowed); any other path is a file below DIR (default: the current
 * directory). Each connection is served by a child process; the
 * handshake is libquic's quic_handshake() on a GnuTLS session built here,
 * with session tickets encrypted under the key the kernel hands out for
 * the client's address, so that clients can resume (quic-api.rst,
 * section 4.6). One line per request goes to stderr unless -q is given.
 * With -n the server stops accepting after COUNT connections and exits
 * once they are done. --early-data makes the sessions take 0-RTT data
 * from resuming clients; without it their early data is refused and
 * comes again in 1-RTT packets. --preferred offers every client that
 * address as the server's preferred address (RFC 9000 9.6): clients
 * that take it move there once the handshake is confirmed.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <gnutls/gnutls.h>
#include <netinet/quic.h>

#include "h3.h"

#define H3S_PATTERN_LEN		65536
#define H3S_CHUNK		(256 * 1024)
#define H3S_BACKLOG		16
#define H3S_PEER_WAIT_S		30
/* gnutls_session_ticket_enable_server() takes exactly this much. */
#define H3S_TICKET_KEY_LEN	64

#define H3S_PRIORITY	"NORMAL:-VERS-ALL:+VERS-TLS1.3:" \
			"%DISABLE_TLS13_COMPAT_MODE:-CIPHER-ALL"
#define H3S_CIPHERS	":+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305" \
			":+AES-128-CCM"

struct h3s_req {
	char method[16];
	char path[1024];
	const uint8_t *data;	/* NULL: the pattern */
	size_t map_len;
	uint64_t len;
	uint64_t off;
	int status;
	double t_start;
	struct h3s_req *next;
};

struct h3s_conn {
	struct h3_conn c;
	struct h3s_req *reqs;
	char peer[64];
	const char *cipher;	/* the one offered, or NULL for all */
	bool resumed;		/* the client resumed a TLS session */
	bool early;		/* and its 0-RTT data was taken */
};

static const char *docroot = ".";
static uint8_t pattern[H3S_PATTERN_LEN];
static bool quiet;
/* --drop-after: bytes moved after which a connection is forgotten. */
static uint64_t drop_after;
/* How long a connection may make no progress: --idle, or 30 s. */
static double peer_wait = H3S_PEER_WAIT_S;
/* --early-data: accept 0-RTT (quic-api.rst, section 4.6). */
static bool early_data;

static void print_usage(void)
{
	fprintf(stderr,
		"usage: h3server [options] ADDR PORT KEY CERT\n"
		"  -d, --htdocs DIR     serve files below DIR (default .)\n"
		"  -c, --cipher NAME    offer only this cipher (AES-128-GCM,\n"
		"                       AES-256-GCM, CHACHA20-POLY1305, ...)\n"
		"  -n, --count N        exit after N connections\n"
		"      --cc NAME        congestion control: reno (default), cubic\n"
		"      --idle SEC       idle timeout (default 30)\n"
		"      --retry          validate every client's address with a\n"
		"                       Retry first (validate_peer_address)\n"
		"      --drop-after N   forget a connection without a word once\n"
		"                       N bytes went either way on it (to test\n"
		"                       stateless resets)\n"
		"      --early-data     accept 0-RTT data from resuming clients\n"
		"                       (default: refuse it; it comes again in\n"
		"                       1-RTT packets)\n"
		"      --preferred ADDR:PORT\n"
		"                       offer that address to every client as\n"
		"                       the server's preferred address\n"
		"  -q, --quiet          no log lines\n"
		"GET /bytes/N answers N bytes (K, M, G suffixes).\n");
	exit(2);
}

/* Our transport parameters carry the Stateless Reset Token of our first
 * connection ID (an option of the API, off by default), so that a client
 * recognises the kernel's resets once a connection is forgotten.
 */
static int h3s_reset_token(int lfd)
{
	struct quic_transport_param p;
	socklen_t len = sizeof(p);

	memset(&p, 0, sizeof(p));
	if (getsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len)) {
		perror("h3server: get transport parameters");
		return -1;
	}
	p.remote = 0;
	p.stateless_reset = 1;
	if (setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
		       sizeof(p))) {
		perror("h3server: set transport parameters");
		return -1;
	}
	return 0;
}

/* Every client gets a Retry before its connection is accepted. */
static int h3s_validate_address(int lfd)
{
	struct quic_config cfg;
	socklen_t len = sizeof(cfg);

	if (getsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, &len)) {
		perror("h3server: get config");
		return -1;
	}
	cfg.validate_peer_address = 1;
	if (setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, len)) {
		perror("h3server: set config");
		return -1;
	}
	return 0;
}

static void h3s_req_free(struct h3s_req *r)
{
	if (r->data && r->map_len)
		munmap((void *)r->data, r->map_len);
	free(r);
}

static int h3s_begin_headers(nghttp3_conn *h3, int64_t sid, void *user,
			     void *stream_user)
{
	struct h3s_conn *sc = user;
	struct h3s_req *r;

	(void)stream_user;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NGHTTP3_ERR_CALLBACK_FAILURE;
	r->t_start = h3_now();
	r->next = sc->reqs;
	sc->reqs = r;
	return nghttp3_conn_set_stream_user_data(h3, sid, r) ?
	       NGHTTP3_ERR_CALLBACK_FAILURE : 0;
}

static void h3s_copy(char *dst, size_t size, nghttp3_rcbuf *rc)
{
	nghttp3_vec v = nghttp3_rcbuf_get_buf(rc);
	size_t n = v.len < size - 1 ? v.len : size - 1;

	memcpy(dst, v.base, n);
	dst[n] = '\0';
}

static int h3s_recv_header(nghttp3_conn *h3, int64_t sid, int32_t token,
			   nghttp3_rcbuf *name, nghttp3_rcbuf *value,
			   uint8_t flags, void *user, void *stream_user)
{
	struct h3s_req *r = stream_user;

	(void)h3;
	(void)sid;
	(void)name;
	(void)flags;
	(void)user;
	if (!r)
		return 0;
	if (token == NGHTTP3_QPACK_TOKEN__METHOD)
		h3s_copy(r->method, sizeof(r->method), value);
	else if (token == NGHTTP3_QPACK_TOKEN__PATH)
		h3s_copy(r->path, sizeof(r->path), value);
	return 0;
}

/* Map the path to a body: the pattern, a file, or an error status. */
static void h3s_resolve(struct h3s_req *r)
{
	char file[1400];
	struct stat st;
	char *q;
	int fd;

	q = strchr(r->path, '?');
	if (q)
		*q = '\0';
	r->status = 200;
	if (strcmp(r->method, "GET") && strcmp(r->method, "HEAD")) {
		r->status = 405;
		return;
	}
	if (!strncmp(r->path, "/bytes/", 7)) {
		if (h3_parse_size(r->path + 7, &r->len))
			r->status = 400;
		return;
	}
	if (r->path[0] != '/' || strstr(r->path, "/..")) {
		r->status = 400;
		return;
	}
	snprintf(file, sizeof(file), "%s%s%s", docroot, r->path,
		 r->path[strlen(r->path) - 1] == '/' ? "index.html" : "");
	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		r->status = 404;
		if (fd >= 0)
			close(fd);
		return;
	}
	r->len = st.st_size;
	if (r->len) {
		r->data = mmap(NULL, r->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (r->data == MAP_FAILED) {
			r->data = NULL;
			r->status = 500;
		} else {
			r->map_len = r->len;
		}
	}
	close(fd);
}

static nghttp3_ssize h3s_read_data(nghttp3_conn *h3, int64_t sid,
				   nghttp3_vec *vec, size_t veccnt,
				   uint32_t *pflags, void *user,
				   void *stream_user)
{
	struct h3s_req *r = stream_user;
	uint64_t left;
	size_t i, n, at;

	(void)h3;
	(void)sid;
	(void)user;
	for (i = 0; i < veccnt && r->off < r->len; i++) {
		left = r->len - r->off;
		if (r->data) {
			n = left < H3S_CHUNK ? left : H3S_CHUNK;
			vec[i].base = (uint8_t *)r->data + r->off;
		} else {
			at = r->off % H3S_PATTERN_LEN;
			n = H3S_PATTERN_LEN - at;
			if (n > left)
				n = left;
			vec[i].base = pattern + at;
		}
		vec[i].len = n;
		r->off += n;
	}
	if (r->off == r->len)
		*pflags |= NGHTTP3_DATA_FLAG_EOF;
	return i;
}

static int h3s_respond(nghttp3_conn *h3, int64_t sid, struct h3s_req *r)
{
	nghttp3_data_reader dr = { .read_data = h3s_read_data };
	char status[8], clen[24];
	nghttp3_nv nva[3];
	bool body;

	h3s_resolve(r);
	if (r->status != 200)
		r->len = 0;
	body = r->status == 200 && strcmp(r->method, "HEAD");
	snprintf(status, sizeof(status), "%d", r->status);
	snprintf(clen, sizeof(clen), "%llu", (unsigned long long)r->len);
	nva[0] = h3_nv(":status", status);
	nva[1] = h3_nv("server", "h3server");
	nva[2] = h3_nv("content-length", clen);
	return nghttp3_conn_submit_response(h3, sid, nva, 3,
					    body && r->len ? &dr : NULL);
}

static int h3s_end_stream(nghttp3_conn *h3, int64_t sid, void *user,
			  void *stream_user)
{
	struct h3s_req *r = stream_user;

	(void)user;
	if (!r)
		return 0;
	return h3s_respond(h3, sid, r) ? NGHTTP3_ERR_CALLBACK_FAILURE : 0;
}

static void h3s_log(struct h3s_conn *sc, double t_end)
{
	struct h3s_req *r;
	double secs;

	if (quiet)
		return;
	for (r = sc->reqs; r; r = r->next) {
		secs = t_end - r->t_start;
		fprintf(stderr,
			"h3server: %s %s %s -> %d, %llu bytes in %.3f s, %.2f MB/s%s%s%s%s\n",
			sc->peer, r->method[0] ? r->method : "-",
			r->path[0] ? r->path : "-", r->status,
			(unsigned long long)r->off, secs,
			secs > 0 ? r->off / secs / 1e6 : 0.0,
			sc->cipher ? ", cipher " : "",
			sc->cipher ? sc->cipher : "",
			sc->resumed ? ", resumed" : "",
			sc->early ? ", 0-RTT accepted" : "");
	}
}

/*
 * --drop-after: once that many bytes went either way, forget the
 * connection. SHUT_RD ends it and sends nothing: the client's next
 * packets draw Stateless Resets.
 */
static bool h3s_drop(struct h3_conn *c)
{
	if (!drop_after || c->rx_bytes + c->tx_bytes < drop_after)
		return false;
	fprintf(stderr, "h3server: forgetting a connection after %llu bytes\n",
		(unsigned long long)(c->rx_bytes + c->tx_bytes));
	shutdown(c->fd, SHUT_RD);
	return true;
}

/*
 * Serve one connection until the peer closes it. Each round reads all
 * input, then queues what it produced (responses are submitted from the
 * end_stream callback), and only then sleeps, so an answer leaves as soon
 * as its request is complete.
 */
static int h3s_serve(struct h3s_conn *sc)
{
	struct h3_conn *c = &sc->c;
	nghttp3_callbacks cb;
	nghttp3_settings settings;
	double last = h3_now();
	uint64_t seen = 0;
	int err;

	/* --drop-after: forgotten as soon as the bytes are there, while
	 * the client still sends, not after it is done.
	 */
	c->read_limit = drop_after;
	h3_conn_callbacks(&cb);
	cb.begin_headers = h3s_begin_headers;
	cb.recv_header = h3s_recv_header;
	cb.end_stream = h3s_end_stream;
	nghttp3_settings_default(&settings);
	err = nghttp3_conn_server_new(&c->h3, &cb, &settings, NULL, sc);
	if (err)
		return err;
	nghttp3_conn_set_max_client_streams_bidi(c->h3, 100);
	err = h3_conn_bind_streams(c);
	if (err)
		return err;
	for (;;) {
		err = h3_conn_read(c);
		if (err)
			break;
		if (h3s_drop(c))
			return 0;
		err = h3_conn_write(c);
		if (err)
			break;
		if (h3s_drop(c))
			return 0;
		if (c->rx_bytes + c->tx_bytes != seen) {
			seen = c->rx_bytes + c->tx_bytes;
			last = h3_now();
		} else if (h3_now() - last > peer_wait) {
			err = -ETIMEDOUT;
			break;
		}
		err = h3_conn_wait(c, 1000);
		if (err)
			break;
	}
	/* The end of the connection is how a client says it is done. */
	return err == -ENOTCONN ? 0 : err;
}

static int h3s_listen(const char *addr, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	if (h3_parse_addr(strcmp(addr, "*") ? addr : NULL, port, 1, &ss,
			  &len)) {
		fprintf(stderr, "h3server: bad address %s %s\n", addr, port);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_DGRAM, IPPROTO_QUIC);
	if (fd < 0) {
		perror("h3server: socket(IPPROTO_QUIC)");
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&ss, len) ||
	    listen(fd, H3S_BACKLOG)) {
		perror("h3server: bind/listen");
		close(fd);
		return -1;
	}
	return fd;
}

static const char *h3s_strerror(int err)
{
	return err <= -500 ? nghttp3_strerror(err) : strerror(-err);
}

/*
 * The TLS side of one connection. No ticket goes out on its own
 * (GNUTLS_NO_AUTO_SEND_TICKET): libquic sends one NewSessionTicket in a
 * 1-RTT CRYPTO frame once the handshake is complete, if the session has
 * a ticket key. The key comes from the kernel, the same for every
 * connection of one client address to this listener (section 5.10);
 * kernels without it answer EOPNOTSUPP, and clients then cannot resume.
 * With --early-data the session takes 0-RTT: QUIC has no
 * EndOfEarlyData message, and the amount is bounded by the transport's
 * flow control, not by TLS. libquic then installs the EARLY receive
 * secret and the kernel holds the 0-RTT stream data back until the
 * handshake is done, when it reads like any other.
 */
static int h3s_session(gnutls_session_t *s, int fd, uint32_t ctype,
		       gnutls_certificate_credentials_t cred)
{
	gnutls_datum_t alpn = {
		.data = (unsigned char *)H3_ALPN, .size = strlen(H3_ALPN)
	};
	uint8_t key[H3S_TICKET_KEY_LEN];
	socklen_t len = sizeof(key);
	gnutls_datum_t tkey;
	unsigned int flags;
	char prio[160];
	int ret;

	snprintf(prio, sizeof(prio), "%s%s%s", H3S_PRIORITY,
		 ctype ? ":+" : H3S_CIPHERS,
		 ctype ? h3_cipher_name(ctype) : "");
	flags = GNUTLS_SERVER | GNUTLS_NO_AUTO_SEND_TICKET;
	if (early_data)
		flags |= GNUTLS_ENABLE_EARLY_DATA | GNUTLS_NO_END_OF_EARLY_DATA;
	ret = gnutls_init(s, flags);
	if (ret)
		return ret;
	ret = gnutls_priority_set_direct(*s, prio, NULL);
	if (!ret && early_data)
		ret = gnutls_record_set_max_early_data_size(*s, 0xffffffffu);
	if (!ret)
		ret = gnutls_credentials_set(*s, GNUTLS_CRD_CERTIFICATE, cred);
	if (!ret)
		ret = gnutls_alpn_set_protocols(*s, &alpn, 1,
						GNUTLS_ALPN_MANDATORY);
	if (ret)
		return ret;
	if (!getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, key, &len) &&
	    len == sizeof(key)) {
		tkey.data = key;
		tkey.size = len;
		ret = gnutls_session_ticket_enable_server(*s, &tkey);
	}
	gnutls_memset(key, 0, sizeof(key));
	if (ret)
		return ret;
	gnutls_transport_set_int(*s, fd);
	return 0;
}

/* One connection, in its own process: handshake, requests, log. */
static int h3s_connection(int fd, const struct sockaddr *peer, uint32_t ctype,
			  gnutls_certificate_credentials_t cred)
{
	gnutls_session_t session;
	struct h3s_conn sc;
	struct h3s_req *r;
	int err;

	memset(&sc, 0, sizeof(sc));
	h3_addr_str(peer, sc.peer, sizeof(sc.peer));
	if (ctype)
		sc.cipher = h3_cipher_name(ctype);
	err = h3s_session(&session, fd, ctype, cred);
	if (err) {
		fprintf(stderr, "h3server: %s: TLS setup: %s\n", sc.peer,
			gnutls_strerror(err));
		return 1;
	}
	err = quic_handshake(session);
	sc.resumed = !err && gnutls_session_is_resumed(session);
	sc.early = !err && (gnutls_session_get_flags(session) &
			    GNUTLS_SFLAGS_EARLY_DATA);
	/* The kernel has the keys; TLS has nothing more to do here. */
	gnutls_deinit(session);
	if (err) {
		fprintf(stderr, "h3server: %s: handshake: %s\n", sc.peer,
			strerror(-err));
		return 1;
	}
	err = h3_conn_init(&sc.c, fd, true);
	if (!err)
		err = h3s_serve(&sc);
	if (err)
		fprintf(stderr, "h3server: %s: %s\n", sc.peer,
			h3s_strerror(err));
	h3s_log(&sc, h3_now());
	h3_conn_release(&sc.c);
	while (sc.reqs) {
		r = sc.reqs;
		sc.reqs = r->next;
		h3s_req_free(r);
	}
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "htdocs", required_argument, NULL, 'd' },
		{ "cipher", required_argument, NULL, 'c' },
		{ "count", required_argument, NULL, 'n' },
		{ "cc", required_argument, NULL, 'G' },
		{ "idle", required_argument, NULL, 'I' },
		{ "retry", no_argument, NULL, 'R' },
		{ "drop-after", required_argument, NULL, 'D' },
		{ "early-data", no_argument, NULL, 'E' },
		{ "preferred", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	gnutls_certificate_credentials_t cred;
	const char *key, *cert, *cc = NULL;
	bool retry = false;
	double idle = 0;
	struct sockaddr_storage peer, pref;
	socklen_t pref_len = 0;
	long count = 0, served = 0;
	uint32_t ctype = 0;
	socklen_t plen;
	int opt, lfd, fd;
	size_t i;
	pid_t pid;

	while ((opt = getopt_long(argc, argv, "d:c:n:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			docroot = optarg;
			break;
		case 'c':
			if (h3_cipher_parse(optarg, &ctype)) {
				fprintf(stderr, "h3server: unknown cipher %s\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			count = atol(optarg);
			break;
		case 'G':
			cc = optarg;
			break;
		case 'I':
			idle = atof(optarg);
			break;
		case 'R':
			retry = true;
			break;
		case 'D':
			drop_after = strtoull(optarg, NULL, 0);
			break;
		case 'E':
			early_data = true;
			break;
		case 'P':
			if (h3_parse_hostport(optarg, &pref, &pref_len)) {
				fprintf(stderr, "h3server: --preferred %s: not ADDR:PORT\n",
					optarg);
				return 2;
			}
			break;
		case 'q':
			quiet = true;
			break;
		default:
			print_usage();
		}
	}
	if (optind != argc - 4)
		print_usage();
	key = argv[optind + 2];
	cert = argv[optind + 3];
	if (gnutls_certificate_allocate_credentials(&cred) ||
	    gnutls_certificate_set_x509_key_file2(cred, cert, key,
						  GNUTLS_X509_FMT_PEM, NULL,
						  0) < 0) {
		fprintf(stderr, "h3server: cannot load %s and %s\n", cert,
			key);
		return 1;
	}
	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + (i >> 8));
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stderr, NULL, _IOLBF, 0);

	lfd = h3s_listen(argv[optind], argv[optind + 1]);
	if (lfd < 0)
		return 1;
	if (h3_set_transport(lfd, "h3server", cc, idle))
		return 2;
	if (h3s_reset_token(lfd) || (retry && h3s_validate_address(lfd)))
		return 2;
	if (idle)
		peer_wait = idle;
	while (!count || served < count) {
		plen = sizeof(peer);
		fd = accept(lfd, (struct sockaddr *)&peer, &plen);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			perror("h3server: accept");
			return 1;
		}
		served++;
		/* quic-api.rst 5.9: after accept(), before the handshake. */
		if (pref_len &&
		    setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_MIGRATION,
			       &pref, pref_len))
			perror("h3server: preferred address");
		pid = fork();
		if (!pid) {
			/* Do not outlive the server. */
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			close(lfd);
			exit(h3s_connection(fd, (struct sockaddr *)&peer, ctype,
					    cred));
		}
		if (pid < 0)
			perror("h3server: fork");
		close(fd);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (wait(NULL) > 0)
		;
	close(lfd);
	gnutls_certificate_free_credentials(cred);
	return 0;
}
