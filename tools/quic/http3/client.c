// SPDX-License-Identifier: GPL-2.0
/*
 * h3client: download one URL over HTTP/3 on a kernel QUIC socket.
 *
 *   h3client [-o FILE] [-c CIPHER | -P PRIORITY] [--ca FILE] [-t SEC] [-q]
 *	      https://HOST:PORT/PATH
 *
 * The TLS handshake runs through libquic's quic_handshake() with a GnuTLS
 * session built here, so that the negotiated cipher can be reported and
 * any GnuTLS priority string used. The body goes to FILE (or stdout); a
 * summary line goes to stderr:
 *
 *   h3client: 200 10485760 bytes in 1.234 s, 8.50 MB/s, AES-128-GCM, h3, ...
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
#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <netinet/quic.h>

#include "h3.h"

#define H3C_PRIORITY	"NORMAL:-VERS-ALL:+VERS-TLS1.3:" \
			"%DISABLE_TLS13_COMPAT_MODE:-CIPHER-ALL"
#define H3C_CIPHERS	":+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305" \
			":+AES-128-CCM"

struct h3c_url {
	char host[256];		/* as in the URL, brackets kept */
	char name[256];		/* without brackets */
	char port[8];
	char authority[280];
	char path[1024];
};

struct h3c_req {
	int out;
	int status;
	int64_t content_length;
	uint64_t body;
	bool done;
	bool failed;
	double t_first;
};

static bool quiet;

static void print_usage(void)
{
	fprintf(stderr,
		"usage: h3client [options] https://HOST:PORT/PATH\n"
		"  -o, --output FILE    write the body to FILE (default stdout)\n"
		"  -c, --cipher NAME    AES-128-GCM, AES-256-GCM, CHACHA20-POLY1305\n"
		"                       or AES-128-CCM (also aes128gcm, ...)\n"
		"  -P, --priority STR   GnuTLS priority string (overrides -c)\n"
		"      --ca FILE        verify the server certificate\n"
		"  -t, --timeout SEC    give up after SEC seconds (default 60)\n"
		"      --cc NAME        congestion control: reno (default), cubic\n"
		"      --idle SEC       idle timeout (default 30)\n"
		"  -q, --quiet          no summary line\n");
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

static int h3c_session(gnutls_session_t *s, gnutls_certificate_credentials_t
		       *cred, const struct h3c_url *u, const char *prio,
		       const char *ca, int fd)
{
	gnutls_datum_t alpn = {
		.data = (unsigned char *)H3_ALPN, .size = strlen(H3_ALPN)
	};
	const char *where;
	int ret;

	ret = gnutls_init(s, GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA);
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

static int h3c_request(struct h3_conn *c, const struct h3c_url *u,
		       struct h3c_req *req, double deadline)
{
	nghttp3_nv nva[] = {
		h3_nv(":method", "GET"),
		h3_nv(":scheme", "https"),
		h3_nv(":authority", u->authority),
		h3_nv(":path", u->path),
		h3_nv("user-agent", "h3client"),
	};
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
	err = h3_conn_bind_streams(c);
	if (err)
		return err;
	err = nghttp3_conn_submit_request(c->h3, 0, nva,
					  ARRAY_SIZE(nva), NULL,
					  req);
	if (err)
		return err;
	/* Read, queue what that produced, and only then sleep. */
	while (!req->done && !req->failed) {
		err = h3_conn_read(c);
		if (!err)
			err = h3_conn_write(c);
		if (err)
			return err;
		if (req->done || req->failed)
			break;
		if (h3_now() > deadline)
			return -ETIMEDOUT;
		err = h3_conn_wait(c, 100);
		if (err)
			return err;
	}
	return req->failed ? -EPROTO : 0;
}

static const char *h3c_strerror(int err)
{
	return err <= -500 ? nghttp3_strerror(err) : strerror(-err);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "cipher", required_argument, NULL, 'c' },
		{ "priority", required_argument, NULL, 'P' },
		{ "ca", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 't' },
		{ "cc", required_argument, NULL, 'G' },
		{ "idle", required_argument, NULL, 'I' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *output = NULL, *prio = NULL, *ca = NULL, *cipher = NULL;
	const char *cc = NULL;
	double idle = 0;
	struct h3c_req req = { .out = -1, .content_length = -1 };
	gnutls_certificate_credentials_t cred = NULL;
	gnutls_session_t session = NULL;
	char prio_buf[256], cname[64] = "?", alpn_name[32] = "?";
	double t0, t_hs, t_end, timeout = 60, secs;
	struct sockaddr_storage ss;
	struct h3_conn c = { .fd = -1 };
	gnutls_datum_t alpn;
	struct h3c_url u;
	socklen_t sslen;
	uint32_t ctype;
	int opt, fd, err;

	while ((opt = getopt_long(argc, argv, "o:c:P:t:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			output = optarg;
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
		case 'q':
			quiet = true;
			break;
		default:
			print_usage();
		}
	}
	if (optind != argc - 1 || h3c_parse_url(argv[optind], &u))
		print_usage();
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

	if (h3_parse_addr(u.host, u.port, 0, &ss, &sslen)) {
		fprintf(stderr, "h3client: cannot resolve %s\n", u.host);
		return 1;
	}
	if (!output || !strcmp(output, "-"))
		req.out = STDOUT_FILENO;
	else
		req.out = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (req.out < 0) {
		perror(output);
		return 1;
	}

	t0 = h3_now();
	fd = socket(ss.ss_family, SOCK_DGRAM, IPPROTO_QUIC);
	if (fd < 0) {
		perror("h3client: socket(IPPROTO_QUIC)");
		return 1;
	}
	if (h3_set_transport(fd, "h3client", cc, idle))
		return 2;
	if (connect(fd, (struct sockaddr *)&ss, sslen)) {
		perror("h3client: connect");
		return 1;
	}
	err = h3c_session(&session, &cred, &u, prio, ca, fd);
	if (err) {
		fprintf(stderr, "h3client: TLS setup: %s\n",
			gnutls_strerror(err));
		return 1;
	}
	if (quic_handshake(session)) {
		fprintf(stderr, "h3client: handshake with %s: %s\n",
			u.authority, strerror(errno));
		return 1;
	}
	t_hs = h3_now();
	snprintf(cname, sizeof(cname), "%s",
		 gnutls_cipher_get_name(gnutls_cipher_get(session)));
	if (!gnutls_alpn_get_selected_protocol(session, &alpn) &&
	    alpn.size < sizeof(alpn_name)) {
		memcpy(alpn_name, alpn.data, alpn.size);
		alpn_name[alpn.size] = '\0';
	}

	err = h3_conn_init(&c, fd, false);
	if (!err)
		err = h3c_request(&c, &u, &req, t0 + timeout);
	t_end = h3_now();
	if (!err && req.content_length >= 0 &&
	    (uint64_t)req.content_length != req.body)
		err = -EPROTO;
	if (err)
		fprintf(stderr,
			"h3client: GET %s: %s (status %d, %llu bytes)\n",
			u.path, h3c_strerror(err), req.status,
			(unsigned long long)req.body);

	h3_conn_set_close(&c, NGHTTP3_H3_NO_ERROR);
	h3_conn_release(&c);
	close(fd);
	if (req.out != STDOUT_FILENO)
		close(req.out);
	gnutls_deinit(session);
	gnutls_certificate_free_credentials(cred);

	secs = t_end - t_hs;
	if (!err && !quiet)
		fprintf(stderr,
			"h3client: %d %llu bytes in %.3f s, %.2f MB/s, %s, %s, handshake %.0f ms\n",
			req.status, (unsigned long long)req.body, secs,
			secs > 0 ? req.body / secs / 1e6 : 0.0, cname,
			alpn_name, (t_hs - t0) * 1e3);
	if (err)
		return 1;
	return req.status == 200 ? 0 : 3;
}
