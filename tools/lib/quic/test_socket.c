// SPDX-License-Identifier: GPL-2.0
/*
 * test_socket: libquic's public entry points over a stand-in for the
 * kernel. The program is linked with --wrap for sendmsg, recvmsg,
 * setsockopt and getsockopt: each "QUIC socket" is one end of an AF_UNIX
 * SOCK_SEQPACKET pair, handshake and stream messages cross it with their
 * control-message contents in a small header, and the SOL_QUIC options
 * are answered from a per-socket record as quic-api.rst describes them.
 * A client and a server thread then run quic_client_handshake() and
 * quic_server_handshake(), or quic_handshake() on sessions the test
 * builds; the step API is also driven directly, from one thread. As in
 * the kernel, handshake data sent at the 1-RTT level (the server's
 * NewSessionTicket) is not delivered by recvmsg() but kept for the
 * peer's getsockopt(QUIC_SOCKOPT_SESSION_TICKET). Prints TAP.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
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
	uint8_t close_frame;
	unsigned int sends, more, nosignal, bad_cmsg, app_sends;
	uint8_t ticket[4096];		/* 1-RTT CRYPTO data from the peer */
	size_t ticket_len;
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
	if (w.kind == KIND_HANDSHAKE && w.level == QUIC_CRYPTO_APP) {
		struct fake *peer = &fakes[f == &fakes[0]];
		size_t len = msg->msg_iov[0].iov_len;

		f->app_sends++;
		if (len > sizeof(peer->ticket) - peer->ticket_len)
			len = sizeof(peer->ticket) - peer->ticket_len;
		memcpy(peer->ticket + peer->ticket_len,
		       msg->msg_iov[0].iov_base, len);
		peer->ticket_len += len;
		return msg->msg_iov[0].iov_len;
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
		f->close_frame = c->frame;
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
		if (f->client) {
			if (*len < f->ticket_len)
				break;
			memcpy(val, f->ticket, f->ticket_len);
			*len = f->ticket_len;
			return 0;
		}
		if (*len < QUIC_TICKET_KEY_LEN)
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
	report(!fakes[1].app_sends && !fakes[0].have[QUIC_CRYPTO_EARLY][1] &&
	       !fakes[1].have[QUIC_CRYPTO_EARLY][0],
	       "%s: no ticket key, so no NewSessionTicket; no 0-RTT keys",
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
	       fakes[1].close_frame == 0x06 && fakes[0].result < 0,
	       "no common ALPN: server -EPROTO, close code 0x%x frame 0x%x stored, client %d",
	       fakes[1].close_code, fakes[1].close_frame, fakes[0].result);
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

/* --- sessions built by the application, as quic-api.rst 4.6 shows --- */

static gnutls_certificate_credentials_t server_cred, client_cred;

static int make_session(gnutls_session_t *session, bool server, int fd,
			const gnutls_datum_t *ticket_key, bool early)
{
	unsigned int flags = GNUTLS_NO_END_OF_EARLY_DATA;
	int ret;

	if (server)
		flags |= GNUTLS_SERVER | GNUTLS_NO_AUTO_SEND_TICKET;
	else
		flags |= GNUTLS_CLIENT;
	if (early)
		flags |= GNUTLS_ENABLE_EARLY_DATA;
	ret = gnutls_init(session, flags);
	if (ret)
		return ret;
	ret = gnutls_priority_set_direct(*session, QUIC_PRIORITY, NULL);
	ret = ret ?: gnutls_credentials_set(*session, GNUTLS_CRD_CERTIFICATE,
					    server ? server_cred : client_cred);
	ret = ret ?: quic_session_set_alpn(*session, "h3", 2);
	if (!ret && server && ticket_key)
		ret = gnutls_session_ticket_enable_server(*session, ticket_key);
	if (!ret && server && early)
		ret = gnutls_record_set_max_early_data_size(*session,
							    0xffffffffu);
	if (ret) {
		gnutls_deinit(*session);
		return ret;
	}
	gnutls_transport_set_int(*session, fd);
	return 0;
}

struct hs_thread {
	gnutls_session_t session;
	int result;
};

static void *hs_main(void *arg)
{
	struct hs_thread *h = arg;

	h->result = quic_handshake(h->session);
	if (h->result)
		shutdown(gnutls_transport_get_int(h->session), SHUT_RDWR);
	return NULL;
}

/* quic_handshake() on both sessions, each in its own thread. */
static void run_sessions(struct hs_thread *c, struct hs_thread *s)
{
	pthread_t ct, st;

	pthread_create(&st, NULL, hs_main, s);
	pthread_create(&ct, NULL, hs_main, c);
	pthread_join(ct, NULL);
	pthread_join(st, NULL);
}

static void test_priority(void)
{
	/* quic-api.rst 8.2, its items in order. */
	static const char * const items[] = {
		"NORMAL", "-VERS-ALL", "+VERS-TLS1.3", "+PSK", "+ECDHE-PSK",
		"-CIPHER-ALL", "+AES-128-GCM", "+AES-256-GCM",
		"+CHACHA20-POLY1305", "+AES-128-CCM", "-GROUP-ALL",
		"+GROUP-SECP256R1", "+GROUP-X25519", "+GROUP-SECP384R1",
		"+GROUP-SECP521R1", "%DISABLE_TLS13_COMPAT_MODE",
	};
	char want[512] = "";
	gnutls_priority_t prio;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(items); i++) {
		if (i)
			strcat(want, ":");
		strcat(want, items[i]);
	}

	report(!strcmp(QUIC_PRIORITY, want),
	       "QUIC_PRIORITY is the string of quic-api.rst 8.2");
	ret = gnutls_priority_init(&prio, QUIC_PRIORITY, NULL);
	report(!ret, "GnuTLS accepts QUIC_PRIORITY (%d)", ret);
	if (!ret)
		gnutls_priority_deinit(prio);
}

/* Perform one step on its socket; -EAGAIN when it has to wait. */
static int step_do(int fd, struct quic_handshake_step *step)
{
	ssize_t n;

	if (step->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG)
		n = sendmsg(fd, step->s_sendmsg.msg, step->s_sendmsg.flags);
	else
		n = recvmsg(fd, step->s_recvmsg.msg, step->s_recvmsg.flags);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -EAGAIN;
	if (n < 0)
		n = -errno;
	if (step->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG)
		step->s_sendmsg.retval = n;
	else
		step->s_recvmsg.retval = n;
	return 0;
}

/*
 * A new session of the given role on its end of the pair, with a handshake
 * context and its first step in *@step; the previous one is released (a
 * TLS handshake cannot start over on the same GnuTLS session).
 */
static int fresh(bool server, gnutls_session_t *session,
		 struct quic_handshake_step **step)
{
	int err;

	if (*session) {
		quic_handshake_deinit(*session);
		gnutls_deinit(*session);
		*session = NULL;
	}
	*step = NULL;
	err = make_session(session, server, fakes[server].fd, NULL, false);
	if (err) {
		*session = NULL;
		return err;
	}
	return quic_handshake_init(*session, step);
}

static bool cmsg_level_is(const struct msghdr *msg, uint8_t level)
{
	struct quic_handshake_info info;
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(msg);

	if (!cmsg || cmsg->cmsg_level != SOL_QUIC ||
	    cmsg->cmsg_type != QUIC_HANDSHAKE_INFO ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(info)))
		return false;
	memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
	return info.crypto_level == level;
}

static void test_step_errors(void)
{
	struct quic_handshake_step *cstep = NULL, *sstep = NULL, other, *p;
	gnutls_session_t cs = NULL, ss = NULL;
	struct msghdr *m;
	int err;

	if (pair(0, "") || make_session(&cs, false, fakes[0].fd, NULL, false) ||
	    make_session(&ss, true, fakes[1].fd, NULL, false)) {
		report(false, "step API: sessions");
		return;
	}

	report(quic_handshake_init(cs, NULL) == -EINVAL,
	       "step API: init with a NULL pstep gives -EINVAL");
	p = &other;
	report(quic_handshake_init(cs, &p) == -EINVAL && p == &other,
	       "step API: init with *pstep not NULL gives -EINVAL");
	p = &other;
	report(quic_handshake_step(cs, &p) == -EINVAL,
	       "step API: step without a context gives -EINVAL");
	quic_handshake_deinit(cs);	/* no context: a no-op */

	/* client: the first step sends the ClientHello at Initial level */
	err = quic_handshake_init(cs, &cstep);
	report(!err && cstep && cstep->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG &&
	       cstep->s_sendmsg.flags == MSG_NOSIGNAL &&
	       cstep->s_sendmsg.msg->msg_iovlen == 1 &&
	       cstep->s_sendmsg.msg->msg_iov[0].iov_len > 100 &&
	       cmsg_level_is(cstep->s_sendmsg.msg, QUIC_CRYPTO_INITIAL),
	       "step API: a client's first step sends the ClientHello at Initial level (%d)",
	       err);
	if (err)
		goto out;
	report(quic_handshake_step(cs, NULL) == -EINVAL,
	       "step API: step with a NULL pstep gives -EINVAL");
	other = *cstep;
	p = &other;
	report(quic_handshake_step(cs, &p) == -EINVAL,
	       "step API: step with a step not handed out gives -EINVAL");
	p = NULL;
	report(quic_handshake_step(cs, &p) == -EINVAL,
	       "step API: step with *pstep NULL gives -EINVAL");
	p = cstep;
	report(quic_handshake_step(ss, &p) == -EINVAL,
	       "step API: another session's step gives -EINVAL");

	cstep->s_sendmsg.retval =
		cstep->s_sendmsg.msg->msg_iov[0].iov_len - 1;
	report(quic_handshake_step(cs, &cstep) == -EMSGSIZE,
	       "step API: a short send gives -EMSGSIZE");
	report(quic_handshake_step(cs, &cstep) == -EINVAL,
	       "step API: after an error no step is pending (-EINVAL)");
	err = fresh(false, &cs, &cstep);
	report(!err && cstep->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG,
	       "step API: a new session starts over (%d)", err);
	if (err)
		goto out;
	cstep->s_sendmsg.retval = -ENOBUFS;
	report(quic_handshake_step(cs, &cstep) == -ENOBUFS,
	       "step API: a negative send result is returned");

	/* server: the first step waits for the ClientHello */
	err = quic_handshake_init(ss, &sstep);
	report(!err && sstep && sstep->op == QUIC_HANDSHAKE_STEP_OP_RECVMSG &&
	       sstep->s_recvmsg.flags == MSG_DONTWAIT &&
	       sstep->s_recvmsg.msg->msg_iov[0].iov_len == 65536 &&
	       sstep->s_recvmsg.msg->msg_controllen ==
	       CMSG_SPACE(sizeof(struct quic_handshake_info)),
	       "step API: a server's first step reads 64 KiB with MSG_DONTWAIT (%d)",
	       err);
	if (err)
		goto out;
	sstep->s_recvmsg.retval = -ENOTCONN;
	report(quic_handshake_step(ss, &sstep) == -ENOTCONN,
	       "step API: a negative receive result is returned");
	err = fresh(true, &ss, &sstep);
	if (!err) {
		sstep->s_recvmsg.retval = 0;
		err = quic_handshake_step(ss, &sstep);
	}
	report(err == -ECONNRESET, "step API: a 0-byte read gives -ECONNRESET");

	/* a real ClientHello, received with MSG_TRUNC */
	err = fresh(false, &cs, &cstep);
	err = err ?: step_do(fakes[0].fd, cstep);
	err = err ?: fresh(true, &ss, &sstep);
	err = err ?: step_do(fakes[1].fd, sstep);
	if (!err) {
		sstep->s_recvmsg.msg->msg_flags |= MSG_TRUNC;
		err = quic_handshake_step(ss, &sstep);
	}
	report(err == -EMSGSIZE, "step API: MSG_TRUNC gives -EMSGSIZE (%d)",
	       err);

	err = fresh(true, &ss, &sstep);
	if (!err) {
		m = sstep->s_recvmsg.msg;
		m->msg_controllen = 0;
		sstep->s_recvmsg.retval = 10;
		err = quic_handshake_step(ss, &sstep);
	}
	report(err == -EBADMSG,
	       "step API: no QUIC_HANDSHAKE_INFO cmsg gives -EBADMSG");
	err = fresh(true, &ss, &sstep);
	if (!err) {
		m = sstep->s_recvmsg.msg;
		CMSG_FIRSTHDR(m)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(m)->cmsg_type = QUIC_HANDSHAKE_INFO;
		CMSG_FIRSTHDR(m)->cmsg_len =
			CMSG_LEN(sizeof(struct quic_handshake_info));
		sstep->s_recvmsg.retval = 10;
		err = quic_handshake_step(ss, &sstep);
	}
	report(err == -EBADMSG,
	       "step API: a cmsg of another level gives -EBADMSG");
	err = fresh(true, &ss, &sstep);
	if (!err) {
		sstep->s_recvmsg.msg->msg_flags = MSG_CTRUNC;
		sstep->s_recvmsg.retval = 10;
		err = quic_handshake_step(ss, &sstep);
	}
	report(err == -EBADMSG, "step API: MSG_CTRUNC gives -EBADMSG");
out:
	if (cs) {
		quic_handshake_deinit(cs);
		gnutls_deinit(cs);
	}
	if (ss) {
		quic_handshake_deinit(ss);
		quic_handshake_deinit(ss);	/* twice: a no-op */
		gnutls_deinit(ss);
	}
	unpair();
}

static int log_calls, log_levels[8], log_longest;
static char log_last[256];

static void log_cb(int level, const char *msg)
{
	size_t len = strlen(msg);

	if (log_calls < 8)
		log_levels[log_calls] = level;
	log_calls++;
	if ((int)len > log_longest)
		log_longest = len;
	snprintf(log_last, sizeof(log_last), "%s", msg);
}

/* A whole handshake from one thread, both sessions driven by steps. */
static void test_step_handshake(void)
{
	struct quic_handshake_step *cstep = NULL, *sstep = NULL;
	gnutls_session_t cs = NULL, ss = NULL;
	int cerr, serr, rounds, old, notice;
	char alpn[64];
	size_t len;
	bool moved;

	if (pair(0, "") || make_session(&cs, false, fakes[0].fd, NULL, false) ||
	    make_session(&ss, true, fakes[1].fd, NULL, false)) {
		report(false, "step handshake: sessions");
		return;
	}
	len = sizeof(alpn);
	report(quic_session_get_alpn(cs, alpn, &len) < 0,
	       "session alpn: get before the handshake fails");

	log_calls = 0;
	old = quic_set_log_level(LOG_NOTICE);
	report(old == -1, "log: the default level is -1 (%d)", old);
	report(!quic_set_log_func(log_cb),
	       "log: the default function is NULL (standard output)");

	cerr = quic_handshake_init(cs, &cstep);
	serr = quic_handshake_init(ss, &sstep);
	for (rounds = 0; !cerr && !serr && (cstep || sstep) && rounds < 200;
	     rounds++) {
		moved = false;
		if (cstep && !step_do(fakes[0].fd, cstep)) {
			cerr = quic_handshake_step(cs, &cstep);
			moved = true;
		}
		if (sstep && !step_do(fakes[1].fd, sstep)) {
			serr = quic_handshake_step(ss, &sstep);
			moved = true;
		}
		if (!moved)
			break;
	}
	quic_handshake_deinit(cs);
	quic_handshake_deinit(ss);
	report(!cerr && !serr && !cstep && !sstep,
	       "step handshake: both sides finish from one thread in %d rounds (client %d, server %d)",
	       rounds, cerr, serr);
	report(secrets_agree(TLS_CIPHER_AES_GCM_128) && tp_passed(),
	       "step handshake: secrets and transport parameters as with quic_handshake()");
	report(!fakes[1].app_sends && !fakes[0].have[QUIC_CRYPTO_EARLY][1],
	       "step handshake: no ticket key, no NewSessionTicket; no 0-RTT keys");

	notice = 0;
	for (old = 0; old < log_calls && old < 8; old++)
		notice += log_levels[old] == LOG_NOTICE;
	report(log_calls == 2 && notice == 2 && strstr(log_last, "done"),
	       "log: at LOG_NOTICE the callback gets the two 'handshake done' notices (%d calls)",
	       log_calls);

	len = sizeof(alpn);
	cerr = quic_session_get_alpn(cs, alpn, &len);
	report(!cerr && len == 2 && !memcmp(alpn, "h3", 2),
	       "session alpn: get returns the negotiated h3, size 2");
	len = 1;
	report(quic_session_get_alpn(cs, alpn, &len) == -EINVAL,
	       "session alpn: get into a too small buffer gives -EINVAL");

	gnutls_deinit(cs);
	gnutls_deinit(ss);
	unpair();
}

static void test_session_alpn(void)
{
	char list[80];
	gnutls_session_t s;

	if (gnutls_init(&s, GNUTLS_CLIENT)) {
		report(false, "session alpn: session");
		return;
	}
	memset(list, 'a', sizeof(list));
	report(quic_session_set_alpn(s, list, 64) == -EINVAL &&
	       quic_session_set_alpn(s, list, sizeof(list)) == -EINVAL,
	       "session alpn: set with size >= 64 gives -EINVAL");
	/* GnuTLS takes names up to 31 bytes: two of them and a comma */
	list[31] = ',';
	report(!quic_session_set_alpn(s, list, 63),
	       "session alpn: set with a 63-byte list succeeds");
	report(!quic_session_set_alpn(s, " h3,  smb,a,b,c,d,e", 19),
	       "session alpn: set splits at commas, skips spaces, takes five names");
	report(quic_session_set_alpn(s, "h3,,smb", 7) == -EINVAL,
	       "session alpn: an empty name gives -EINVAL");
	gnutls_deinit(s);
}

static void test_log(void)
{
	char buf[300], out[256];
	int pfd[2], saved;
	ssize_t n;

	log_calls = 0;
	log_longest = 0;
	quic_set_log_level(LOG_DEBUG);
	quic_set_log_func(log_cb);
	memset(buf, 'x', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	quic_log(LOG_ERR, "%s", buf);
	report(log_calls == 1 && log_levels[0] == LOG_ERR && log_longest == 127,
	       "log: messages are cut to 128 bytes with the NUL (%d)",
	       log_longest);
	report(quic_set_log_level(LOG_ERR) == LOG_DEBUG,
	       "log: quic_set_log_level returns the previous level");
	quic_log(LOG_NOTICE, "not shown");
	quic_log(LOG_DEBUG, "not shown");
	report(log_calls == 1, "log: messages above the level are dropped");
	report(quic_set_log_func(NULL) == log_cb,
	       "log: quic_set_log_func returns the previous function");

	/* standard output, prefixed */
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || pipe(pfd)) {
		report(false, "log: pipe");
		return;
	}
	dup2(pfd[1], STDOUT_FILENO);
	quic_set_log_level(LOG_DEBUG);
	quic_log(LOG_ERR, "e%d", 1);
	quic_log(LOG_NOTICE, "n%d", 2);
	quic_log(LOG_DEBUG, "d%d", 3);
	quic_set_log_level(-1);
	quic_log(LOG_ERR, "off");
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(pfd[1]);
	n = read(pfd[0], out, sizeof(out) - 1);
	close(pfd[0]);
	out[n > 0 ? n : 0] = '\0';
	report(!strcmp(out, "[ERROR] e1\n[NOTICE] n2\n[DEBUG] d3\n"),
	       "log: without a function, standard output with [ERROR]/[NOTICE]/[DEBUG] prefixes");
}

/*
 * A server with a ticket key sends one NewSessionTicket at the 1-RTT
 * level; the client exports it with quic_session_get_data() and the next
 * connection resumes - with 0-RTT keys when both sides enable early data.
 */
static void test_resumption(bool early)
{
	const char *name = early ? "0-RTT" : "resumption";
	struct hs_thread c = { 0 }, s = { 0 };
	gnutls_datum_t key = { 0 };
	uint8_t data[4096];
	size_t len = 0;
	int err;

	if (gnutls_session_ticket_key_generate(&key)) {
		report(false, "%s: ticket key", name);
		return;
	}
	err = pair(0, "");
	err = err ?: make_session(&c.session, false, fakes[0].fd, NULL, early);
	err = err ?: make_session(&s.session, true, fakes[1].fd, &key, early);
	if (err) {
		report(false, "%s: sessions (%d)", name, err);
		goto out;
	}
	len = sizeof(data);
	report(!quic_session_get_data(c.session, data, &len) && !len,
	       "%s: get_data before any ticket gives 0 bytes", name);
	run_sessions(&c, &s);
	report(!c.result && !s.result && fakes[1].app_sends == 1 &&
	       fakes[0].ticket_len > 4 && fakes[0].ticket[0] == 4 &&
	       !fakes[0].have[QUIC_CRYPTO_EARLY][1] &&
	       !fakes[1].have[QUIC_CRYPTO_EARLY][0],
	       "%s: first connection: one NewSessionTicket (%zu bytes) sent at the 1-RTT level, no 0-RTT keys",
	       name, fakes[0].ticket_len);
	len = sizeof(data);
	err = quic_session_get_data(c.session, data, &len);
	report(!err && len > 0, "%s: get_data exports session data (%d, %zu)",
	       name, err, len);
	gnutls_deinit(c.session);
	gnutls_deinit(s.session);
	unpair();
	if (err)
		goto out;

	err = pair(0, "");
	err = err ?: make_session(&c.session, false, fakes[0].fd, NULL, early);
	err = err ?: quic_session_set_data(c.session, data, len);
	err = err ?: make_session(&s.session, true, fakes[1].fd, &key, early);
	if (err) {
		report(false, "%s: second sessions (%d)", name, err);
		goto out;
	}
	run_sessions(&c, &s);
	report(!c.result && !s.result && gnutls_session_is_resumed(c.session) &&
	       gnutls_session_is_resumed(s.session) &&
	       secrets_agree(TLS_CIPHER_AES_GCM_128),
	       "%s: second connection resumes (client %d, server %d)", name,
	       c.result, s.result);
	if (early)
		report(fakes[0].have[QUIC_CRYPTO_EARLY][1] &&
		       fakes[1].have[QUIC_CRYPTO_EARLY][0] &&
		       !fakes[0].have[QUIC_CRYPTO_EARLY][0] &&
		       !fakes[1].have[QUIC_CRYPTO_EARLY][1] &&
		       secret_eq(&fakes[0].secret[QUIC_CRYPTO_EARLY][1],
				 &fakes[1].secret[QUIC_CRYPTO_EARLY][0],
				 TLS_CIPHER_AES_GCM_128),
		       "%s: client installs the EARLY send key, server the same as its receive key",
		       name);
	else
		report(!fakes[0].have[QUIC_CRYPTO_EARLY][1] &&
		       !fakes[1].have[QUIC_CRYPTO_EARLY][0],
		       "%s: without early data no EARLY keys", name);
	gnutls_deinit(c.session);
	gnutls_deinit(s.session);
	unpair();
out:
	gnutls_free(key.data);
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
	if (quic_test_make_cert(cert_file, key_file))
		return -1;
	if (gnutls_certificate_allocate_credentials(&server_cred) ||
	    gnutls_certificate_allocate_credentials(&client_cred) ||
	    gnutls_certificate_set_x509_key_file2(server_cred, cert_file,
						  key_file, GNUTLS_X509_FMT_PEM,
						  NULL, 0) < 0)
		return -1;
	return 0;
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
	test_priority();
	test_session_alpn();
	test_step_errors();
	test_step_handshake();
	test_log();
	test_resumption(false);
	test_resumption(true);
	gnutls_certificate_free_credentials(server_cred);
	gnutls_certificate_free_credentials(client_cred);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", dir);
	printf("1..%u\n", test_num);
	return test_failed ? 1 : 0;
}
