// SPDX-License-Identifier: GPL-2.0
/*
 * h3client: download URLs over HTTP/3 on one kernel QUIC socket.
 *
 *   h3client [-o FILE]... [-O DIR] [-c CIPHER | -P PRIORITY] [--ca FILE]
 *	      [-t SEC] [--session-file FILE] [--tp-file FILE] [-q]
 *	      https://HOST:PORT/PATH...
 *
 * The TLS handshake runs through libquic's quic_handshake() with a GnuTLS
 * session built here, so that the negotiated cipher can be reported and
 * any GnuTLS priority string used. Every URL gets its own request stream
 * on the one connection, up to --parallel at a time. The body of a single
 * URL goes to FILE (or stdout); a summary line goes to stderr:
 *
 *   h3client: 200 10485760 bytes in 1.234 s, 8.50 MB/s, AES-128-GCM, h3,
 *   handshake 12 ms, not resumed
 *
 * (one line). With several URLs there is one such line per URL (its path
 * in place of the TLS details) and a total line.
 *
 * --session-file and --tp-file keep what a later run needs to resume the
 * TLS session (the server's NewSessionTicket, exported by GnuTLS) and the
 * server's transport parameters (quic-api.rst, section 4.6).
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <netinet/quic.h>

#include "h3.h"

#define H3C_PRIORITY	"NORMAL:-VERS-ALL:+VERS-TLS1.3:" \
			"%DISABLE_TLS13_COMPAT_MODE:-CIPHER-ALL"
#define H3C_CIPHERS	":+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305" \
			":+AES-128-CCM"
/* Requests in flight unless --parallel says otherwise. */
#define H3C_PARALLEL	16
/* Room for the ticket (at most 4096 bytes), then the session data. */
#define H3C_SESSION_MAX	16384
#define H3C_FILE_MAX	65536
/* How long after the handshake we wait for the server's ticket. */
#define H3C_TICKET_WAIT	1.0

struct h3c_url {
	char host[256];		/* as in the URL, brackets kept */
	char name[256];		/* without brackets */
	char port[8];
	char authority[280];
	char path[1024];
};

struct h3c_req {
	struct h3c_url u;
	const char *output;	/* file name, "-" for stdout, NULL: discard */
	char file[4096];	/* the name chosen with --output-dir */
	int out;
	int status;
	int64_t content_length;
	uint64_t body;
	bool submitted;
	bool finished;		/* seen done or failed by h3c_account() */
	bool done;
	bool failed;
	int err;
	double t_start;
	double t_first;
	double t_end;
};

/**
 * struct h3c - one run of the client
 * @reqs: one request per URL, in command-line order
 * @nreqs: entries of @reqs
 * @next: the next request to submit
 * @inflight: requests submitted and not finished
 * @parallel: the most requests in flight
 * @next_sid: the stream ID of the next request
 * @session: the TLS session
 * @session_file: --session-file, or NULL
 * @ticket_saved: @session_file has been written on this run
 * @t_hs: when the handshake completed
 */
struct h3c {
	struct h3c_req *reqs;
	unsigned int nreqs;
	unsigned int next;
	unsigned int inflight;
	unsigned int parallel;
	int64_t next_sid;
	gnutls_session_t session;
	const char *session_file;
	bool ticket_saved;
	double t_hs;
	const char *migrate_to;	/* --migrate ADDR:PORT */
	bool migrated;
};

static bool quiet;

static void print_usage(void)
{
	fprintf(stderr,
		"usage: h3client [options] https://HOST:PORT/PATH...\n"
		"  -o, --output FILE    write the body to FILE (default stdout); with\n"
		"                       several URLs give one -o per URL, in order\n"
		"  -O, --output-dir DIR write each body to DIR/NAME, NAME the last\n"
		"                       part of the URL's path (index.html if empty)\n"
		"  -j, --parallel N     requests in flight at a time (default %d);\n"
		"                       1 fetches the URLs one after another\n"
		"  -c, --cipher NAME    AES-128-GCM, AES-256-GCM, CHACHA20-POLY1305\n"
		"                       or AES-128-CCM (also aes128gcm, ...)\n"
		"  -P, --priority STR   GnuTLS priority string (overrides -c)\n"
		"      --ca FILE        verify the server certificate\n"
		"  -t, --timeout SEC    give up after SEC seconds (default 60)\n"
		"      --cc NAME        congestion control: reno (default), cubic\n"
		"      --idle SEC       idle timeout (default 30)\n"
		"      --session-file FILE\n"
		"                       resume the TLS session saved in FILE, if it\n"
		"                       exists; save the server's new ticket in it\n"
		"      --tp-file FILE   use the server transport parameters saved in\n"
		"                       FILE, if it exists; save the new ones in it\n"
		"      --early-data     send the requests as 0-RTT data (needs\n"
		"                       --session-file and --tp-file)\n"
		"      --migrate ADDR:PORT\n"
		"                       move the connection to this local address\n"
		"                       (QUIC_SOCKOPT_CONNECTION_MIGRATION) once\n"
		"                       256 KiB of body have arrived; [ADDR]:PORT\n"
		"                       for IPv6\n"
		"      --quic-version HEX\n"
		"                       the QUIC version of the first Initial\n"
		"                       (QUIC_SOCKOPT_CONFIG); one the kernel does\n"
		"                       not speak provokes Version Negotiation\n"
		"  -q, --quiet          no summary line\n"
		"All URLs must name the same host and port: they share one\n"
		"connection. Several URLs without -o or -O: bodies are discarded.\n",
		H3C_PARALLEL);
	exit(2);
}

static int h3c_parse_url(const char *url, struct h3c_url *u)
{
	const char *p, *hend, *slash;
	size_t n;

	if (strncmp(url, "https://", 8))
		return -EINVAL;
	p = url + 8;
	slash = strchr(p, '/');
	if (!slash)
		slash = p + strlen(p);
	if (*p == '[') {
		hend = memchr(p, ']', slash - p);
		if (!hend)
			return -EINVAL;
		hend++;
	} else {
		hend = memchr(p, ':', slash - p);
		if (!hend)
			hend = slash;
	}
	n = hend - p;
	if (!n || n >= sizeof(u->host))
		return -EINVAL;
	memcpy(u->host, p, n);
	u->host[n] = '\0';
	if (*p == '[')
		snprintf(u->name, sizeof(u->name), "%.*s", (int)n - 2, p + 1);
	else
		snprintf(u->name, sizeof(u->name), "%s", u->host);
	if (*hend == ':') {
		n = slash - hend - 1;
		if (!n || n >= sizeof(u->port))
			return -EINVAL;
		memcpy(u->port, hend + 1, n);
		u->port[n] = '\0';
	} else {
		strcpy(u->port, "443");
	}
	snprintf(u->path, sizeof(u->path), "%s", *slash ? slash : "/");
	snprintf(u->authority, sizeof(u->authority), "%s:%s", u->host,
		 u->port);
	return 0;
}

/* The file name --output-dir gives a URL: the last part of its path. */
static int h3c_dir_file(struct h3c_req *req, const char *dir)
{
	const char *p = req->u.path, *slash;
	size_t n;
	int len;

	n = strcspn(p, "?#");
	slash = memrchr(p, '/', n);
	if (slash) {
		n -= slash + 1 - p;
		p = slash + 1;
	}
	if (!n) {
		p = "index.html";
		n = strlen(p);
	}
	if ((n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
		return -EINVAL;
	len = snprintf(req->file, sizeof(req->file), "%s/%.*s", dir, (int)n,
		       p);
	if (len < 0 || (size_t)len >= sizeof(req->file))
		return -ENAMETOOLONG;
	req->output = req->file;
	return 0;
}

static int h3c_recv_header(nghttp3_conn *h3, int64_t sid, int32_t token,
			   nghttp3_rcbuf *name, nghttp3_rcbuf *value,
			   uint8_t flags, void *user, void *stream_user)
{
	struct h3c_req *req = stream_user;
	nghttp3_vec v = nghttp3_rcbuf_get_buf(value);
	char buf[32];

	(void)h3;
	(void)sid;
	(void)name;
	(void)flags;
	(void)user;
	if (!req || v.len >= sizeof(buf))
		return 0;
	memcpy(buf, v.base, v.len);
	buf[v.len] = '\0';
	if (token == NGHTTP3_QPACK_TOKEN__STATUS)
		req->status = atoi(buf);
	else if (token == NGHTTP3_QPACK_TOKEN_CONTENT_LENGTH)
		req->content_length = strtoll(buf, NULL, 10);
	return 0;
}

static int h3c_write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static int h3c_recv_data(nghttp3_conn *h3, int64_t sid, const uint8_t *data,
			 size_t len, void *user, void *stream_user)
{
	struct h3c_req *req = stream_user;

	(void)h3;
	(void)sid;
	(void)user;
	if (!req)
		return 0;
	if (!req->body)
		req->t_first = h3_now();
	req->body += len;
	if (req->out >= 0 && h3c_write_all(req->out, data, len)) {
		req->failed = true;
		return NGHTTP3_ERR_CALLBACK_FAILURE;
	}
	return 0;
}

static int h3c_end_stream(nghttp3_conn *h3, int64_t sid, void *user,
			  void *stream_user)
{
	struct h3c_req *req = stream_user;

	(void)h3;
	(void)sid;
	(void)user;
	if (req)
		req->done = true;
	return 0;
}

static int h3c_stream_close(nghttp3_conn *h3, int64_t sid, uint64_t app_err,
			    void *user, void *stream_user)
{
	struct h3c_req *req = stream_user;

	(void)h3;
	(void)sid;
	(void)user;
	if (req && !req->done && app_err != NGHTTP3_H3_NO_ERROR)
		req->failed = true;
	return 0;
}

static bool h3c_is_ip(const char *host)
{
	struct in6_addr a6;
	struct in_addr a4;

	return inet_pton(AF_INET, host, &a4) == 1 ||
	       inet_pton(AF_INET6, host, &a6) == 1;
}

static int h3c_read_file(const char *path, gnutls_datum_t *d)
{
	uint8_t *buf;
	ssize_t n;
	size_t len = 0;
	int fd, err;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	buf = malloc(H3C_FILE_MAX);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		n = read(fd, buf + len, H3C_FILE_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
		if (len == H3C_FILE_MAX)
			break;
	}
	err = n < 0 ? -errno : len == H3C_FILE_MAX ? -EFBIG : 0;
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	d->data = buf;
	d->size = len;
	return 0;
}

/* Replace @path by @len bytes at once: a new file renamed over it. */
static int h3c_write_file(const char *path, const void *data, size_t len)
{
	char tmp[4096];
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -errno;
	err = h3c_write_all(fd, data, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* The server transport parameters a former run saved (section 4.6). */
static void h3c_tp_load(int fd, const char *path)
{
	struct quic_transport_param p;
	gnutls_datum_t d;
	int err;

	err = h3c_read_file(path, &d);
	if (err == -ENOENT)
		return;
	if (err) {
		fprintf(stderr, "h3client: %s: %s, not used\n", path,
			strerror(-err));
		return;
	}
	if (d.size != sizeof(p)) {
		fprintf(stderr, "h3client: %s: %u bytes, not %zu, not used\n",
			path, d.size, sizeof(p));
		free(d.data);
		return;
	}
	memcpy(&p, d.data, sizeof(p));
	free(d.data);
	p.remote = 1;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
		       sizeof(p)))
		fprintf(stderr, "h3client: %s refused: %s\n", path,
			strerror(errno));
}

static void h3c_tp_save(int fd, const char *path)
{
	struct quic_transport_param p;
	socklen_t len = sizeof(p);
	int err;

	memset(&p, 0, sizeof(p));
	p.remote = 1;
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len)) {
		fprintf(stderr, "h3client: server transport parameters: %s\n",
			strerror(errno));
		return;
	}
	err = h3c_write_file(path, &p, sizeof(p));
	if (err)
		fprintf(stderr, "h3client: %s: %s\n", path, strerror(-err));
}

/*
 * libquic's quic_session_get_data() (quic-api.rst, section 8.5) gives
 * GnuTLS the NewSessionTicket the kernel captured (section 4.5), which
 * makes the session resumable, and exports the session.
 *
 * Return: 1 with @data (@len bytes) filled, 0 when no ticket has come
 * yet, -1 after printing why it failed.
 */
static int h3c_ticket_export(gnutls_session_t session, uint8_t *data,
			     size_t *len)
{
	const char *name;
	int ret;

	*len = H3C_SESSION_MAX;
	ret = quic_session_get_data(session, data, len);
	if (ret) {
		/* A negative errno of the getsockopt, or of GnuTLS. */
		name = gnutls_strerror_name(ret);
		fprintf(stderr, "h3client: session export: %s (%d)\n",
			name ? name : strerror(-ret), ret);
		return -1;
	}
	return *len ? 1 : 0;
}

/* Save the session once its ticket is in; true when nothing is left. */
static bool h3c_ticket_save(struct h3c *cl)
{
	uint8_t *data;
	size_t len;
	int ret, err;

	if (!cl->session_file || cl->ticket_saved)
		return true;
	data = malloc(H3C_SESSION_MAX);
	if (!data)
		return false;
	ret = h3c_ticket_export(cl->session, data, &len);
	if (ret > 0) {
		err = h3c_write_file(cl->session_file, data, len);
		if (err)
			fprintf(stderr, "h3client: %s: %s\n",
				cl->session_file, strerror(-err));
		gnutls_memset(data, 0, len);
	}
	free(data);
	if (ret)
		cl->ticket_saved = true;	/* or given up */
	return ret != 0;
}

/*
 * The ticket is sent once the server has our Finished, so it normally
 * comes with the first answers. Wait for it what is left of
 * %H3C_TICKET_WAIT after the handshake.
 */
static void h3c_ticket_wait(struct h3c *cl, struct h3_conn *c)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	bool gone = false;
	double left;

	while (!h3c_ticket_save(cl)) {
		left = cl->t_hs + H3C_TICKET_WAIT - h3_now();
		if (left <= 0 || gone) {
			if (!quiet)
				fprintf(stderr,
					"h3client: no session ticket from the server, %s not written\n",
					cl->session_file);
			return;
		}
		if (poll(&pfd, 1, (int)(left * 1000) + 1) < 0 &&
		    errno != EINTR)
			gone = true;
		/*
		 * Takes the event. The kernel keeps the ticket after the
		 * connection has ended: one more look then.
		 */
		if (h3_conn_read(c))
			gone = true;
	}
}

static int h3c_session(gnutls_session_t *s, gnutls_certificate_credentials_t
		       *cred, const struct h3c_url *u, const char *prio,
		       const char *ca, int fd, bool early)
{
	gnutls_datum_t alpn = {
		.data = (unsigned char *)H3_ALPN, .size = strlen(H3_ALPN)
	};
	unsigned int flags = GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA;
	const char *where;
	int ret;

	if (early)
		flags |= GNUTLS_ENABLE_EARLY_DATA;
	ret = gnutls_init(s, flags);
	if (ret)
		return ret;
	ret = gnutls_priority_set_direct(*s, prio, &where);
	if (ret) {
		fprintf(stderr, "h3client: bad priority string at \"%s\"\n",
			where);
		return ret;
	}
	ret = gnutls_certificate_allocate_credentials(cred);
	if (ret)
		return ret;
	if (ca) {
		ret = gnutls_certificate_set_x509_trust_file(*cred, ca,
							     GNUTLS_X509_FMT_PEM);
		if (ret <= 0)
			return ret ? ret : GNUTLS_E_FILE_ERROR;
		gnutls_session_set_verify_cert(*s, u->name, 0);
	}
	ret = gnutls_credentials_set(*s, GNUTLS_CRD_CERTIFICATE, *cred);
	if (ret)
		return ret;
	if (!h3c_is_ip(u->name)) {
		ret = gnutls_server_name_set(*s, GNUTLS_NAME_DNS, u->name,
					     strlen(u->name));
		if (ret)
			return ret;
	}
	ret = gnutls_alpn_set_protocols(*s, &alpn, 1, GNUTLS_ALPN_MANDATORY);
	if (ret)
		return ret;
	gnutls_transport_set_int(*s, fd);
	return 0;
}

/* Give GnuTLS the session a former run saved; true if it took it. */
static bool h3c_session_load(gnutls_session_t session, const char *path)
{
	gnutls_datum_t d;
	int err;

	err = h3c_read_file(path, &d);
	if (err) {
		if (err != -ENOENT)
			fprintf(stderr, "h3client: %s: %s, not resumed\n",
				path, strerror(-err));
		return false;
	}
	err = quic_session_set_data(session, d.data, d.size);
	gnutls_memset(d.data, 0, d.size);
	free(d.data);
	if (err) {
		fprintf(stderr, "h3client: %s: %s, not resumed\n", path,
			gnutls_strerror(err));
		return false;
	}
	return true;
}

static int h3c_start(struct h3_conn *c)
{
	nghttp3_callbacks cb;
	nghttp3_settings settings;
	int err;

	h3_conn_callbacks(&cb);
	cb.recv_header = h3c_recv_header;
	cb.recv_data = h3c_recv_data;
	cb.end_stream = h3c_end_stream;
	cb.stream_close = h3c_stream_close;
	nghttp3_settings_default(&settings);
	err = nghttp3_conn_client_new(&c->h3, &cb, &settings, NULL, c);
	if (err)
		return err;
	return h3_conn_bind_streams(c);
}

static int h3c_get(struct h3_conn *c, int64_t sid, struct h3c_req *req)
{
	nghttp3_nv nva[] = {
		h3_nv(":method", "GET"),
		h3_nv(":scheme", "https"),
		h3_nv(":authority", req->u.authority),
		h3_nv(":path", req->u.path),
		h3_nv("user-agent", "h3client"),
	};

	return nghttp3_conn_submit_request(c->h3, sid, nva, ARRAY_SIZE(nva),
					   NULL, req);
}

/* Requests up to --parallel in flight, each on the next bidi stream. */
static int h3c_submit(struct h3c *cl, struct h3_conn *c)
{
	struct h3c_req *req;
	int err;

	while (cl->next < cl->nreqs && cl->inflight < cl->parallel) {
		req = &cl->reqs[cl->next];
		err = h3c_get(c, cl->next_sid, req);
		if (err)
			return err;
		req->submitted = true;
		req->t_start = h3_now();
		cl->next_sid += 4;
		cl->next++;
		cl->inflight++;
	}
	return 0;
}

/* Note finished requests; true once all of them are. */
static bool h3c_account(struct h3c *cl)
{
	struct h3c_req *req;
	unsigned int i, left = 0;
	double now = h3_now();

	for (i = 0; i < cl->nreqs; i++) {
		req = &cl->reqs[i];
		if (!req->submitted || req->finished) {
			left += !req->submitted;
			continue;
		}
		if (!req->done && !req->failed) {
			left++;
			continue;
		}
		req->finished = true;
		req->t_end = now;
		cl->inflight--;
		if (req->failed)
			req->err = -EPROTO;
		else if (req->content_length >= 0 &&
			 (uint64_t)req->content_length != req->body)
			req->err = -EPROTO;
	}
	return !left;
}

/* Run the requests to their end, or to the first connection error. */
/*
 * --migrate: once 256 KiB of body have come, ask the kernel to move the
 * connection to the given local address (quic-api.rst 5.9). The probe
 * goes at once; the move happens when the server answers it.
 */
static void h3c_migrate(struct h3c *cl, struct h3_conn *c)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	char host[64], *colon;
	uint64_t got = 0;
	unsigned int i;
	socklen_t len;
	int port;

	for (i = 0; i < cl->nreqs; i++)
		got += cl->reqs[i].body;
	if (got < 256 * 1024)
		return;
	cl->migrated = true;
	snprintf(host, sizeof(host), "%s", cl->migrate_to);
	colon = strrchr(host, ':');
	port = colon ? atoi(colon + 1) : 0;
	if (!colon || port <= 0 || port > 65535)
		goto bad;
	*colon = '\0';
	if (host[0] == '[' && colon[-1] == ']') {
		colon[-1] = '\0';
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, host + 1, &sin6->sin6_addr) != 1)
			goto bad;
		len = sizeof(*sin6);
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
			goto bad;
		len = sizeof(*sin);
	}
	if (setsockopt(c->fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_MIGRATION,
		       &ss, len))
		fprintf(stderr, "h3client: migration to %s: %s\n",
			cl->migrate_to, strerror(errno));
	else if (!quiet)
		fprintf(stderr, "h3client: moving to %s after %llu bytes\n",
			cl->migrate_to, (unsigned long long)got);
	return;
bad:
	fprintf(stderr, "h3client: --migrate %s: not ADDR:PORT\n",
		cl->migrate_to);
}

static int h3c_run(struct h3c *cl, struct h3_conn *c, double deadline)
{
	bool ticket_wanted = !!cl->session_file;
	int err;

	for (;;) {
		err = h3_conn_read(c);
		if (err)
			return err;
		if (ticket_wanted && (c->ticket ||
				      h3_now() < cl->t_hs + H3C_TICKET_WAIT))
			ticket_wanted = !h3c_ticket_save(cl);
		if (h3c_account(cl))
			return 0;
		if (cl->migrate_to && !cl->migrated)
			h3c_migrate(cl, c);
		/* Submit, and queue what the input produced, then sleep. */
		err = h3c_submit(cl, c);
		if (!err)
			err = h3_conn_write(c);
		if (err)
			return err;
		if (h3_now() > deadline)
			return -ETIMEDOUT;
		err = h3_conn_wait(c, 100);
		if (err)
			return err;
	}
}

static const char *h3c_strerror(int err)
{
	return err <= -500 ? nghttp3_strerror(err) : strerror(-err);
}

static int h3c_open_outputs(struct h3c *cl)
{
	struct h3c_req *req;
	unsigned int i;

	for (i = 0; i < cl->nreqs; i++) {
		req = &cl->reqs[i];
		if (!req->output)
			req->out = -1;
		else if (!strcmp(req->output, "-"))
			req->out = STDOUT_FILENO;
		else
			req->out = open(req->output,
					O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (req->out < 0 && req->output) {
			perror(req->output);
			return -1;
		}
	}
	return 0;
}

static void h3c_close_outputs(struct h3c *cl)
{
	unsigned int i;

	for (i = 0; i < cl->nreqs; i++)
		if (cl->reqs[i].out >= 0 && cl->reqs[i].out != STDOUT_FILENO)
			close(cl->reqs[i].out);
}

/* A request that got no complete answer (@err: the connection's fate). */
static bool h3c_failed(const struct h3c_req *req, int err)
{
	return req->err || (err && !req->finished);
}

/* One line per URL when there are several; errors always. */
static void h3c_report(const struct h3c *cl, int err)
{
	const struct h3c_req *req;
	unsigned int i;
	double secs;

	for (i = 0; i < cl->nreqs; i++) {
		req = &cl->reqs[i];
		if (h3c_failed(req, err)) {
			fprintf(stderr,
				"h3client: GET %s: %s (status %d, %llu bytes)\n",
				req->u.path,
				h3c_strerror(req->err ? req->err : err),
				req->status, (unsigned long long)req->body);
			continue;
		}
		if (quiet || cl->nreqs == 1)
			continue;
		secs = req->t_end - req->t_start;
		fprintf(stderr,
			"h3client: %d %llu bytes in %.3f s, %.2f MB/s, %s\n",
			req->status, (unsigned long long)req->body, secs,
			secs > 0 ? req->body / secs / 1e6 : 0.0, req->u.path);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "output-dir", required_argument, NULL, 'O' },
		{ "parallel", required_argument, NULL, 'j' },
		{ "cipher", required_argument, NULL, 'c' },
		{ "priority", required_argument, NULL, 'P' },
		{ "ca", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 't' },
		{ "cc", required_argument, NULL, 'G' },
		{ "idle", required_argument, NULL, 'I' },
		{ "session-file", required_argument, NULL, 'S' },
		{ "tp-file", required_argument, NULL, 'T' },
		{ "early-data", no_argument, NULL, 'E' },
		{ "migrate", required_argument, NULL, 'M' },
		{ "quic-version", required_argument, NULL, 'V' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *prio = NULL, *ca = NULL, *cipher = NULL, *cc = NULL;
	const char *outdir = NULL, *tp_file = NULL;
	const char **outputs = NULL;
	unsigned int noutputs = 0, i, j, nstdout = 0, ok = 0;
	double idle = 0;
	gnutls_certificate_credentials_t cred = NULL;
	char prio_buf[256], cname[64] = "?", alpn_name[32] = "?";
	double t0, t_end, timeout = 60, secs;
	bool early = false, resumed_data = false;
	bool resumed, early_ok;
	struct sockaddr_storage ss;
	struct h3_conn c = { .fd = -1 };
	struct h3c cl = { .parallel = H3C_PARALLEL };
	struct h3c_req *req;
	uint64_t total = 0;
	gnutls_datum_t alpn;
	socklen_t sslen;
	struct quic_config qcfg;
	socklen_t qlen;
	uint32_t ctype, version = 0;
	long par;
	char *end;
	int opt, fd, err, status = 0;

	outputs = calloc(argc, sizeof(*outputs));
	if (!outputs)
		return 1;
	while ((opt = getopt_long(argc, argv, "o:O:j:c:P:t:qh", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'o':
			outputs[noutputs++] = optarg;
			break;
		case 'O':
			outdir = optarg;
			break;
		case 'j':
			errno = 0;
			par = strtol(optarg, &end, 10);
			if (errno || *end || par < 1 || par > 1000) {
				fprintf(stderr, "h3client: bad --parallel %s\n",
					optarg);
				return 2;
			}
			cl.parallel = par;
			break;
		case 'c':
			cipher = optarg;
			break;
		case 'P':
			prio = optarg;
			break;
		case 'C':
			ca = optarg;
			break;
		case 't':
			timeout = atof(optarg);
			break;
		case 'G':
			cc = optarg;
			break;
		case 'I':
			idle = atof(optarg);
			break;
		case 'S':
			cl.session_file = optarg;
			break;
		case 'T':
			tp_file = optarg;
			break;
		case 'E':
			early = true;
			break;
		case 'M':
			cl.migrate_to = optarg;
			break;
		case 'V':
			errno = 0;
			version = strtoul(optarg, &end, 16);
			if (errno || *end || !version) {
				fprintf(stderr, "h3client: bad --quic-version %s\n",
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
	if (optind >= argc)
		print_usage();
	cl.nreqs = argc - optind;
	cl.reqs = calloc(cl.nreqs, sizeof(*cl.reqs));
	if (!cl.reqs)
		return 1;
	for (i = 0; i < cl.nreqs; i++) {
		req = &cl.reqs[i];
		req->out = -1;
		req->content_length = -1;
		if (h3c_parse_url(argv[optind + i], &req->u))
			print_usage();
		if (strcmp(req->u.authority, cl.reqs[0].u.authority)) {
			fprintf(stderr,
				"h3client: %s: all URLs must name the same host and port\n",
				argv[optind + i]);
			return 2;
		}
	}
	if (outdir && noutputs) {
		fprintf(stderr, "h3client: -o and -O exclude each other\n");
		return 2;
	}
	if (noutputs > 1 && cl.nreqs == 1) {
		/* As before several URLs: the last -o wins. */
		outputs[0] = outputs[noutputs - 1];
		noutputs = 1;
	}
	if (noutputs && noutputs != cl.nreqs) {
		fprintf(stderr, "h3client: %u -o for %u URLs\n", noutputs,
			cl.nreqs);
		return 2;
	}
	if (early && (!cl.session_file || !tp_file)) {
		fprintf(stderr,
			"h3client: --early-data needs --session-file and --tp-file\n");
		return 2;
	}
	for (i = 0; i < cl.nreqs; i++) {
		req = &cl.reqs[i];
		if (noutputs)
			req->output = outputs[i];
		else if (cl.nreqs == 1 && !outdir)
			req->output = "-";
		if (outdir && h3c_dir_file(req, outdir)) {
			fprintf(stderr, "h3client: no file name in %s\n",
				argv[optind + i]);
			return 2;
		}
		nstdout += req->output && !strcmp(req->output, "-");
		for (j = 0; j < i && req->output; j++) {
			if (cl.reqs[j].output && strcmp(req->output, "-") &&
			    !strcmp(cl.reqs[j].output, req->output)) {
				fprintf(stderr,
					"h3client: two bodies would go to %s\n",
					req->output);
				return 2;
			}
		}
	}
	if (nstdout > 1) {
		fprintf(stderr, "h3client: only one body can go to stdout\n");
		return 2;
	}
	if (!prio) {
		if (cipher && h3_cipher_parse(cipher, &ctype)) {
			fprintf(stderr, "h3client: unknown cipher %s\n", cipher);
			return 2;
		}
		snprintf(prio_buf, sizeof(prio_buf), "%s%s%s", H3C_PRIORITY,
			 cipher ? ":+" : H3C_CIPHERS,
			 cipher ? h3_cipher_name(ctype) : "");
		prio = prio_buf;
	}
	signal(SIGPIPE, SIG_IGN);

	if (h3_parse_addr(cl.reqs[0].u.host, cl.reqs[0].u.port, 0, &ss,
			  &sslen)) {
		fprintf(stderr, "h3client: cannot resolve %s\n",
			cl.reqs[0].u.host);
		return 1;
	}
	if (h3c_open_outputs(&cl))
		return 1;

	t0 = h3_now();
	fd = socket(ss.ss_family, SOCK_DGRAM, IPPROTO_QUIC);
	if (fd < 0) {
		perror("h3client: socket(IPPROTO_QUIC)");
		return 1;
	}
	qlen = sizeof(qcfg);
	if (version) {
		err = getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &qcfg,
				 &qlen);
		qcfg.version = version;
		if (err || setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &qcfg,
				      sizeof(qcfg))) {
			perror("h3client: QUIC_SOCKOPT_CONFIG version");
			return 1;
		}
	}
	if (h3_set_transport(fd, "h3client", cc, idle))
		return 2;
	if (connect(fd, (struct sockaddr *)&ss, sslen)) {
		perror("h3client: connect");
		return 1;
	}
	err = h3c_session(&cl.session, &cred, &cl.reqs[0].u, prio, ca, fd,
			  early);
	if (err) {
		fprintf(stderr, "h3client: TLS setup: %s\n",
			gnutls_strerror(err));
		return 1;
	}
	if (cl.session_file)
		resumed_data = h3c_session_load(cl.session, cl.session_file);
	if (tp_file)
		h3c_tp_load(fd, tp_file);

	err = h3_conn_init(&c, fd, false);
	if (!err)
		err = h3c_start(&c);
	if (err) {
		fprintf(stderr, "h3client: HTTP/3 setup: %s\n",
			h3c_strerror(err));
		return 1;
	}
	if (early && resumed_data) {
		/*
		 * 0-RTT (section 4.6): within the remembered limits the
		 * kernel queues the requests now and sends them once TLS
		 * installs the EARLY secret, or else in 1-RTT packets. What
		 * it refuses stays with nghttp3 for after the handshake.
		 */
		err = h3c_submit(&cl, &c);
		if (!err)
			h3_conn_write(&c);
		if (err) {
			fprintf(stderr, "h3client: 0-RTT requests: %s\n",
				h3c_strerror(err));
			return 1;
		}
	}
	/* The handshake's sends wait as long as they need, as always. */
	if (h3_conn_sndtimeo(&c, 0)) {
		perror("h3client: SO_SNDTIMEO");
		return 1;
	}
	if (quic_handshake(cl.session)) {
		if (early && errno == EOPNOTSUPP)
			fprintf(stderr,
				"h3client: 0-RTT not supported by this kernel (EARLY secret refused: %s)\n",
				strerror(errno));
		else
			fprintf(stderr, "h3client: handshake with %s%s: %s\n",
				cl.reqs[0].u.authority,
				early && resumed_data ? " (0-RTT)" : "",
				strerror(errno));
		return 1;
	}
	cl.t_hs = h3_now();
	if (h3_conn_sndtimeo(&c, H3_SNDTIMEO_MS)) {
		perror("h3client: SO_SNDTIMEO");
		return 1;
	}
	snprintf(cname, sizeof(cname), "%s",
		 gnutls_cipher_get_name(gnutls_cipher_get(cl.session)));
	if (!gnutls_alpn_get_selected_protocol(cl.session, &alpn) &&
	    alpn.size < sizeof(alpn_name)) {
		memcpy(alpn_name, alpn.data, alpn.size);
		alpn_name[alpn.size] = '\0';
	}
	resumed = gnutls_session_is_resumed(cl.session);
	early_ok = gnutls_session_get_flags(cl.session) &
		   GNUTLS_SFLAGS_EARLY_DATA;
	if (tp_file)
		h3c_tp_save(fd, tp_file);
	if (cl.session_file) {
		struct quic_event_option ev = {
			.type = QUIC_EVENT_NEW_SESSION_TICKET, .on = 1,
		};

		/* A wake-up only: without it the ticket is polled for. */
		setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev));
	}

	err = h3c_run(&cl, &c, t0 + timeout);
	t_end = h3_now();
	if (!err)
		h3c_ticket_wait(&cl, &c);
	h3c_report(&cl, err);
	for (i = 0; i < cl.nreqs; i++) {
		req = &cl.reqs[i];
		total += req->body;
		if (!h3c_failed(req, err)) {
			ok++;
			if (req->status != 200 && !status)
				status = 3;
		}
	}
	if (err || ok < cl.nreqs)
		status = 1;

	h3_conn_set_close(&c, NGHTTP3_H3_NO_ERROR);
	h3_conn_release(&c);
	close(fd);
	h3c_close_outputs(&cl);
	gnutls_deinit(cl.session);
	gnutls_certificate_free_credentials(cred);

	secs = t_end - cl.t_hs;
	if (!quiet && (cl.nreqs > 1 || status != 1)) {
		if (cl.nreqs == 1)
			fprintf(stderr, "h3client: %d", cl.reqs[0].status);
		else
			fprintf(stderr, "h3client: %u of %u URLs,", ok,
				cl.nreqs);
		fprintf(stderr,
			" %llu bytes in %.3f s, %.2f MB/s, %s, %s, handshake %.0f ms, %s%s\n",
			(unsigned long long)total, secs,
			secs > 0 ? total / secs / 1e6 : 0.0, cname, alpn_name,
			(cl.t_hs - t0) * 1e3,
			resumed ? "resumed" : "not resumed",
			!early || !resumed_data ? "" :
			early_ok ? ", 0-RTT accepted" : ", 0-RTT not accepted");
	}
	free(cl.reqs);
	free(outputs);
	return status;
}
