// SPDX-License-Identifier: GPL-2.0
/*
 * test_socket: libquic's public entry points over a stand-in for the
 * kernel. The program is linked with --wrap for sendmsg, recvmsg,
 * setsockopt and getsockopt: each "QUIC socket" is one end of an AF_UNIX
 * SOCK_SEQPACKET pair, handshake and stream messages cross it with their
 * control-message contents in a small header, and the SOL_QUIC options
 * are answered from a per-socket record as socket-api.md describes them.
 * A client and a server thread then run quic_client_handshake() and
 * quic_server_handshake(). Prints TAP.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include <linux/tls.h>

#include "netinet/quic.h"
#include "internal.h"
#include "test_wrap.h"
#include "test_cert.h"

#define KIND_HANDSHAKE	1
#define KIND_STREAM	2

/* What crosses the AF_UNIX pair in front of each payload. */
struct wire {
	uint8_t kind;
	uint8_t level;
	uint32_t flags;
	int64_t sid;
};

struct fake {
	int fd;
	bool client;
	bool probed;
	struct quic_crypto_secret secret[QUIC_CRYPTO_MAX][2];
	bool have[QUIC_CRYPTO_MAX][2];
	uint8_t peer_tp[QUIC_TP_EXT_MAX];
	size_t peer_tp_len;
	char alpn[QUIC_ALPN_MAX + 1];
	uint32_t cipher;
	uint32_t close_code;
	unsigned int sends, more, nosignal, bad_cmsg;
	int reject_tp;
	int result;
};

static struct fake fakes[2];
static unsigned int test_num, test_failed;
static char dir[64], cert_file[128], key_file[128], psk_file[128];

static struct fake *fake_of(int fd)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (fakes[i].fd == fd)
			return &fakes[i];
	return NULL;
}

static void report(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %u ", ok ? "ok" : "not ok", ++test_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		test_failed++;
}

ssize_t __wrap_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct fake *f = fake_of(fd);
	struct quic_handshake_info hi;
	struct quic_stream_info si;
	struct cmsghdr *cmsg;
	struct msghdr out;
	struct iovec iov[2];
	struct wire w;
	ssize_t n;

	if (!f)
		return __real_sendmsg(fd, msg, flags);
	memset(&w, 0, sizeof(w));
	w.flags = flags;
	for (cmsg = CMSG_FIRSTHDR(msg); cmsg;
	     cmsg = CMSG_NXTHDR((struct msghdr *)msg, cmsg)) {
		if (cmsg->cmsg_level != SOL_QUIC)
			continue;
		if (cmsg->cmsg_type == QUIC_HANDSHAKE_INFO &&
		    cmsg->cmsg_len == CMSG_LEN(sizeof(hi))) {
			memcpy(&hi, CMSG_DATA(cmsg), sizeof(hi));
			w.kind = KIND_HANDSHAKE;
			w.level = hi.crypto_level;
		} else if (cmsg->cmsg_type == QUIC_STREAM_INFO &&
			   cmsg->cmsg_len == CMSG_LEN(sizeof(si))) {
			memcpy(&si, CMSG_DATA(cmsg), sizeof(si));
			w.kind = KIND_STREAM;
			w.sid = si.stream_id;
			w.flags = si.stream_flags;
		} else {
			f->bad_cmsg++;
			errno = EINVAL;
			return -1;
		}
	}
	if (w.kind == KIND_HANDSHAKE) {
		/* the level's send key must exist (Initial: from connect) */
		if (w.level != QUIC_CRYPTO_INITIAL && !f->have[w.level][1]) {
			f->bad_cmsg++;
			errno = EINVAL;
			return -1;
		}
		f->sends++;
		f->more += !!(flags & MSG_MORE);
		f->nosignal += !!(flags & MSG_NOSIGNAL);
	}
	if (msg->msg_iovlen != 1) {
		errno = EINVAL;
		return -1;
	}
	iov[0].iov_base = &w;
	iov[0].iov_len = sizeof(w);
	iov[1] = msg->msg_iov[0];
	memset(&out, 0, sizeof(out));
	out.msg_iov = iov;
	out.msg_iovlen = 2;
	n = __real_sendmsg(fd, &out, MSG_NOSIGNAL);
	return n < 0 ? n : n - (ssize_t)sizeof(w);
}

ssize_t __wrap_recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct fake *f = fake_of(fd);
	struct quic_handshake_info hi;
	struct quic_stream_info si;
	struct cmsghdr *cmsg;
	struct msghdr in;
	struct iovec iov[2];
	struct wire w;
	ssize_t n;

	if (!f)
		return __real_recvmsg(fd, msg, flags);
	iov[0].iov_base = &w;
	iov[0].iov_len = sizeof(w);
	iov[1] = msg->msg_iov[0];
	memset(&in, 0, sizeof(in));
	in.msg_iov = iov;
	in.msg_iovlen = 2;
	n = __real_recvmsg(fd, &in, flags & MSG_DONTWAIT);
	if (n <= 0)
		return n ? n : (errno = ENOTCONN, -1);
	n -= sizeof(w);
	msg->msg_flags = 0;
	cmsg = CMSG_FIRSTHDR(msg);
	if (w.kind == KIND_HANDSHAKE && cmsg &&
	    msg->msg_controllen >= CMSG_SPACE(sizeof(hi))) {
		hi.crypto_level = w.level;
		cmsg->cmsg_level = SOL_QUIC;
		cmsg->cmsg_type = QUIC_HANDSHAKE_INFO;
		cmsg->cmsg_len = CMSG_LEN(sizeof(hi));
		memcpy(CMSG_DATA(cmsg), &hi, sizeof(hi));
		msg->msg_controllen = CMSG_SPACE(sizeof(hi));
		msg->msg_flags = MSG_EOR;
	} else if (w.kind == KIND_STREAM && cmsg &&
		   msg->msg_controllen >= CMSG_SPACE(sizeof(si))) {
		memset(&si, 0, sizeof(si));
		si.stream_id = w.sid;
		si.stream_flags = w.flags & MSG_QUIC_STREAM_FIN;
		cmsg->cmsg_level = SOL_QUIC;
		cmsg->cmsg_type = QUIC_STREAM_INFO;
		cmsg->cmsg_len = CMSG_LEN(sizeof(si));
		memcpy(CMSG_DATA(cmsg), &si, sizeof(si));
		msg->msg_controllen = CMSG_SPACE(sizeof(si));
	} else {
		msg->msg_controllen = 0;
		msg->msg_flags = MSG_CTRUNC;
	}
	return n;
}

int __wrap_setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len)
{
	const struct quic_crypto_secret *s = val;
	const struct quic_connection_close *c = val;
	struct fake *f = fake_of(fd);

	if (!f || level != SOL_QUIC) {
		errno = ENOPROTOOPT;
		return -1;
	}
	switch (name) {
	case QUIC_SOCKOPT_CRYPTO_SECRET:
		if (len != sizeof(*s) || s->level >= QUIC_CRYPTO_MAX ||
		    s->level == QUIC_CRYPTO_INITIAL || s->type < 51 ||
		    s->type > 54)
			break;
		f->secret[s->level][!!s->send] = *s;
		f->have[s->level][!!s->send] = true;
		return 0;
	case QUIC_SOCKOPT_TRANSPORT_PARAM_EXT:
		if (len > 512)
			break;
		if (f->reject_tp) {
			errno = -f->reject_tp;
			return -1;
		}
		memcpy(f->peer_tp, val, len);
		f->peer_tp_len = len;
		return 0;
	case QUIC_SOCKOPT_ALPN:
		if (!len || len > QUIC_ALPN_MAX)
			break;
		memcpy(f->alpn, val, len);
		f->alpn[len] = '\0';
		return 0;
	case QUIC_SOCKOPT_CONNECTION_CLOSE:
		f->close_code = c->errcode;
		return 0;
	}
	errno = EINVAL;
	return -1;
}

/* A local extension body that names its side. */
static size_t fake_tp(const struct fake *f, uint8_t *buf)
{
	size_t n = f->client ? 17 : 29, i;

	for (i = 0; i < n; i++)
		buf[i] = (f->client ? 0x40 : 0x80) + i;
	return n;
}

int __wrap_getsockopt(int fd, int level, int name, void *val,
		      socklen_t *len)
{
	struct fake *f = fake_of(fd);
	uint8_t tp[QUIC_TP_EXT_MAX];
	struct quic_config cfg;
	size_t n;

	if (!f || level != SOL_QUIC) {
		errno = ENOPROTOOPT;
		return -1;
	}
	switch (name) {
	case QUIC_SOCKOPT_TOKEN:
		f->probed = true;
		if (!f->client)
			break;
		*len = 0;
		return 0;
	case QUIC_SOCKOPT_TRANSPORT_PARAM_EXT:
		n = fake_tp(f, tp);
		if (*len < n)
			break;
		memcpy(val, tp, n);
		*len = n;
		return 0;
	case QUIC_SOCKOPT_CONFIG:
		memset(&cfg, 0, sizeof(cfg));
		cfg.payload_cipher_type = f->cipher;
		n = *len < sizeof(cfg) ? *len : sizeof(cfg);
		memcpy(val, &cfg, n);
		*len = n;
		return 0;
	case QUIC_SOCKOPT_ALPN:
		n = strlen(f->alpn);
		if (*len < n + 1)
			break;
		memcpy(val, f->alpn, n);
		*len = n;
		return 0;
	case QUIC_SOCKOPT_SESSION_TICKET:
		if (f->client || *len < QUIC_TICKET_KEY_LEN)
			break;
		memset(val, 0x5a, QUIC_TICKET_KEY_LEN);
		*len = QUIC_TICKET_KEY_LEN;
		return 0;
	}
	errno = EINVAL;
	return -1;
}

struct role {
	struct fake *f;
	const char *pkey, *cert_or_host, *alpns;
};

static void *client_main(void *arg)
{
	struct role *r = arg;

	r->f->result = quic_client_handshake(r->f->fd, r->pkey,
					     r->cert_or_host, r->alpns);
	if (r->f->result)
		shutdown(r->f->fd, SHUT_RDWR);
	return NULL;
}

static void *server_main(void *arg)
{
	struct role *r = arg;

	r->f->result = quic_server_handshake(r->f->fd, r->pkey,
					     r->cert_or_host, r->alpns);
	if (r->f->result)
		shutdown(r->f->fd, SHUT_RDWR);
	return NULL;
}

static int pair(uint32_t cipher, const char *server_alpn)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
		return -1;
	memset(fakes, 0, sizeof(fakes));
	fakes[0].fd = sv[0];
	fakes[0].client = true;
	fakes[0].cipher = cipher;
	fakes[1].fd = sv[1];
	fakes[1].cipher = cipher;
	snprintf(fakes[1].alpn, sizeof(fakes[1].alpn), "%s", server_alpn);
	return 0;
}

static void unpair(void)
{
	close(fakes[0].fd);
	close(fakes[1].fd);
}

static void run(struct role *c, struct role *s)
{
	pthread_t ct, st;

	c->f = &fakes[0];
	s->f = &fakes[1];
	pthread_create(&st, NULL, server_main, s);
	pthread_create(&ct, NULL, client_main, c);
	pthread_join(ct, NULL);
	pthread_join(st, NULL);
}

static bool secret_eq(const struct quic_crypto_secret *a,
		      const struct quic_crypto_secret *b, uint32_t type)
{
	return a->level == b->level && a->type == type && b->type == type &&
	       !memcmp(a->secret, b->secret, sizeof(a->secret));
}

static bool secrets_agree(uint32_t type)
{
	static const uint8_t lv[] = { QUIC_CRYPTO_HANDSHAKE, QUIC_CRYPTO_APP };
	const struct fake *c = &fakes[0], *s = &fakes[1];
	unsigned int i;
	uint8_t l;

	for (i = 0; i < sizeof(lv); i++) {
		l = lv[i];
		if (!c->have[l][0] || !c->have[l][1] ||
		    !s->have[l][0] || !s->have[l][1])
			return false;
		if (!secret_eq(&c->secret[l][1], &s->secret[l][0], type) ||
		    !secret_eq(&c->secret[l][0], &s->secret[l][1], type))
			return false;
	}
	return true;
}

static bool tp_passed(void)
{
	uint8_t tp[QUIC_TP_EXT_MAX];
	size_t n;

	n = fake_tp(&fakes[0], tp);
	if (fakes[1].peer_tp_len != n || memcmp(fakes[1].peer_tp, tp, n))
		return false;
	n = fake_tp(&fakes[1], tp);
	return fakes[0].peer_tp_len == n && !memcmp(fakes[0].peer_tp, tp, n);
}

static void test_good(const char *name, bool psk, uint32_t cipher)
{
	struct role c = { 0 }, s = { 0 };
	uint32_t flags = 0;
	int64_t sid = -1;
	char buf[16];
	ssize_t n;

	if (pair(cipher, "smb, h3")) {
		report(false, "%s: socket pair", name);
		return;
	}
	c.pkey = psk ? psk_file : NULL;
	c.cert_or_host = "localhost";
	c.alpns = "h3";
	s.pkey = psk ? psk_file : key_file;
	s.cert_or_host = psk ? NULL : cert_file;
	run(&c, &s);
	report(!fakes[0].result && !fakes[1].result,
	       "%s: both handshakes return 0 (client %d, server %d)", name,
	       fakes[0].result, fakes[1].result);
	report(fakes[0].probed && fakes[1].probed,
	       "%s: both sides probe their role with QUIC_SOCKOPT_TOKEN", name);
	report(secrets_agree(cipher), "%s: CRYPTO_SECRET installs agree, type %u",
	       name, cipher);
	report(tp_passed(), "%s: TRANSPORT_PARAM_EXT bodies cross both ways",
	       name);
	report(!fakes[0].bad_cmsg && !fakes[1].bad_cmsg &&
	       fakes[0].nosignal == fakes[0].sends &&
	       fakes[1].nosignal == fakes[1].sends && fakes[0].more == 0 &&
	       fakes[1].more > 0 && fakes[1].more < fakes[1].sends,
	       "%s: handshake sendmsg with QUIC_HANDSHAKE_INFO, MSG_NOSIGNAL and MSG_MORE within flights",
	       name);
	report(!strcmp(fakes[0].alpn, "h3") && !strcmp(fakes[1].alpn, "h3"),
	       "%s: server takes its ALPN list from the socket; h3 recorded on both",
	       name);

	n = quic_sendmsg(fakes[0].fd, "hello", 5, 4,
			 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN);
	if (n == 5)
		n = quic_recvmsg(fakes[1].fd, buf, sizeof(buf), &sid, &flags);
	report(n == 5 && sid == 4 && (flags & MSG_QUIC_STREAM_FIN) &&
	       !memcmp(buf, "hello", 5),
	       "%s: quic_sendmsg/quic_recvmsg carry stream ID and FIN", name);
	unpair();
}

static void test_bad(void)
{
	struct role c = { 0 }, s = { 0 };

	/* no ALPN in common: server alerts, client sees the pipe close */
	pair(0, "smb");
	c.pkey = psk_file;
	c.alpns = "h3";
	s.pkey = psk_file;
	run(&c, &s);
	report(fakes[1].result == -EPROTO &&
	       fakes[1].close_code == QUIC_TRANSPORT_ERROR_CRYPTO +
				      GNUTLS_A_NO_APPLICATION_PROTOCOL &&
	       fakes[0].result < 0,
	       "no common ALPN: server -EPROTO, close code 0x%x stored, client %d",
	       fakes[1].close_code, fakes[0].result);
	unpair();

	/* peer transport parameters refused by the kernel */
	pair(0, "h3");
	fakes[1].reject_tp = -EPROTONOSUPPORT;
	run(&c, &s);
	report(fakes[1].result == -EPROTONOSUPPORT && fakes[0].result < 0,
	       "refused TRANSPORT_PARAM_EXT: server returns the kernel's error (%d)",
	       fakes[1].result);
	unpair();

	/* role checks */
	pair(0, "h3");
	report(quic_server_handshake(fakes[0].fd, psk_file, NULL, "h3") ==
	       -EINVAL && errno == EINVAL &&
	       quic_client_handshake(fakes[1].fd, psk_file, NULL, "h3") ==
	       -EINVAL,
	       "wrong role for the socket gives -EINVAL and errno EINVAL");
	report(quic_client_handshake(fakes[0].fd, "/nonexistent/psk", NULL,
				     "h3") == -ENOENT,
	       "missing PSK file gives -ENOENT");
	unpair();
}

static int write_file(char *path, size_t size, const char *name,
		      const void *data, size_t len)
{
	snprintf(path, size, "%s/%s", dir, name);
	return quic_test_write_file(path, data, len);
}

static int make_files(void)
{
	static const char psk[] = "id:000102030405060708090a0b0c0d0e0f\n";

	if (write_file(psk_file, sizeof(psk_file), "psk", psk, strlen(psk)))
		return -1;
	snprintf(cert_file, sizeof(cert_file), "%s/cert.pem", dir);
	snprintf(key_file, sizeof(key_file), "%s/key.pem", dir);
	return quic_test_make_cert(cert_file, key_file);
}

int main(void)
{
	char cmd[128];

	printf("TAP version 13\n");
	snprintf(dir, sizeof(dir), "/tmp/test_socket.XXXXXX");
	if (!mkdtemp(dir) || make_files()) {
		printf("not ok 1 test files created in /tmp\n1..1\n");
		return 1;
	}
	test_good("x509 AES-128-GCM", false, TLS_CIPHER_AES_GCM_128);
	test_good("x509 AES-256-GCM", false, TLS_CIPHER_AES_GCM_256);
	test_good("psk CHACHA20-POLY1305", true, TLS_CIPHER_CHACHA20_POLY1305);
	test_bad();

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", dir);
	printf("1..%u\n", test_num);
	return test_failed ? 1 : 0;
}
