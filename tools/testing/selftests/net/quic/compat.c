// SPDX-License-Identifier: GPL-2.0
/*
 * The socket API of Documentation/networking/quic-api.rst, section by
 * section: every call sequence, flag, option, event and errno it states
 * for stream selection (5.2), stream limits and credit (5.3), recvmsg
 * (5.4), datagrams (5.5), events (5.6), migration (5.9), tokens and
 * session tickets (5.10), the option direction table (6) and libquic's
 * data helpers (8.3).
 *
 * Each test is named after its section and written to the contract, not
 * to what the kernel happens to do today. Tests of one endpoint's
 * behaviour run for both roles (the "role" fixture: the socket under test
 * is the client or the server of a PSK pair) and both address families;
 * the ones that exercise TLS or packet protection also run once per
 * cipher (the "cipher" fixture, X.509 so that AES-256-GCM can be agreed).
 *
 * Every socket has SO_RCVTIMEO and SO_SNDTIMEO set, so a missing event or
 * credit ends a test with EAGAIN instead of hanging it; no test asserts
 * how long anything takes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/tls.h>
#include <gnutls/gnutls.h>
#include <netinet/quic.h>

#include "kselftest_harness.h"
#include "quic_common.h"
#include "quic_conn_common.h"
#include "test_cert.h"

#define PSK_FILE	"/tmp/quic_compat_test.psk"
#define CERT_FILE	"/tmp/quic_compat_test.crt"
#define KEY_FILE	"/tmp/quic_compat_test.key"

/* SO_RCVTIMEO/SO_SNDTIMEO of every connected socket. */
#define TIMEO_MS	5000

#define S_NEW		MSG_QUIC_STREAM_NEW
#define S_FIN		MSG_QUIC_STREAM_FIN
#define S_UNI		MSG_QUIC_STREAM_UNI
#define S_DONTWAIT	MSG_QUIC_STREAM_DONTWAIT
#define EV(type)	(1U << (type))

/* Stream IDs (RFC 9000 2.1) of the socket under test (L) and its peer (P). */
static int64_t sid_of(bool server, bool uni, int n)
{
	return (int64_t)n * 4 + (uni ? QUIC_STREAM_TYPE_UNI_MASK : 0) +
	       (server ? QUIC_STREAM_TYPE_SERVER_MASK : 0);
}

#define LBIDI(n)	sid_of(variant->server, false, (n))
#define LUNI(n)		sid_of(variant->server, true, (n))
#define PBIDI(n)	sid_of(!variant->server, false, (n))
#define PUNI(n)		sid_of(!variant->server, true, (n))

/* ---- connections ---- */

/* What one side sets before the handshake. */
struct side {
	struct quic_transport_param tp;	/* zero fields: unchanged */
	unsigned int events;		/* EV() mask */
};

struct conn_opts {
	int family;
	unsigned int cipher;		/* QUIC_SOCKOPT_CONFIG hint; 0: any */
	bool cert;			/* X.509 instead of the PSK */
	struct side cli;
	struct side srv;		/* set on the listener, inherited */
	/* Server handshake on the accepted socket; NULL: libquic's. */
	int (*server_hs)(int fd, void *arg);
	void *arg;
};

static int sock_apply(int fd, const struct conn_opts *o, const struct side *s)
{
	struct quic_config cfg;
	socklen_t len = sizeof(cfg);
	int i;

	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &s->tp,
		       sizeof(s->tp)))
		return -errno;
	for (i = 1; i < QUIC_EVENT_MAX; i++)
		if ((s->events & EV(i)) && quic_pair_event(fd, i, 1))
			return -errno;
	if (!o->cipher)
		return 0;
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, &len))
		return -errno;
	cfg.payload_cipher_type = o->cipher;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, len))
		return -errno;
	return 0;
}

static int set_timeo(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (ms % 1000) * 1000 };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

struct lsn {
	int fd;
	struct sockaddr_storage ss;
	socklen_t len;
};

/* A listener on loopback with @o->srv applied; 0 or -errno. */
static int lsn_open(struct lsn *l, const struct conn_opts *o)
{
	int err;

	l->fd = socket(o->family, SOCK_DGRAM, IPPROTO_QUIC);
	if (l->fd < 0)
		return -errno;
	err = sock_apply(l->fd, o, &o->srv);
	if (err)
		return err;
	l->len = make_addr(&l->ss, o->family, loopback(o->family), 0);
	if (bind(l->fd, (struct sockaddr *)&l->ss, l->len) ||
	    getsockname(l->fd, (struct sockaddr *)&l->ss, &l->len) ||
	    listen(l->fd, 8))
		return -errno;
	return set_timeo(l->fd, TIMEO_MS);
}

struct srv_arg {
	const struct conn_opts *o;
	int lfd;
	int fd;
	int ret;
};

static void *srv_main(void *p)
{
	struct srv_arg *a = p;
	const struct conn_opts *o = a->o;

	a->fd = accept(a->lfd, NULL, NULL);
	if (a->fd < 0) {
		a->ret = -errno;
		return NULL;
	}
	if (o->server_hs)
		a->ret = o->server_hs(a->fd, o->arg);
	else if (o->cert)
		a->ret = quic_server_handshake(a->fd, KEY_FILE, CERT_FILE,
					       NULL);
	else
		a->ret = quic_server_handshake(a->fd, PSK_FILE, NULL, NULL);
	if (a->ret) {
		/* Tell the client, which would wait for its idle timeout. */
		close(a->fd);
		a->fd = -1;
	}
	return NULL;
}

/*
 * A client of listener @l, handshake done on both ends: 0 with *@cfd and
 * *@sfd set (timeouts armed), else a negative errno and both -1.
 */
static int conn_open(struct lsn *l, const struct conn_opts *o, int *cfd,
		     int *sfd)
{
	struct srv_arg a = { .o = o, .lfd = l->fd, .fd = -1 };
	pthread_t th;
	int ret;

	*sfd = -1;
	*cfd = socket(o->family, SOCK_DGRAM, IPPROTO_QUIC);
	if (*cfd < 0)
		return -errno;
	ret = sock_apply(*cfd, o, &o->cli);
	if (ret)
		goto err;
	if (pthread_create(&th, NULL, srv_main, &a)) {
		ret = -EAGAIN;
		goto err;
	}
	if (connect(*cfd, (struct sockaddr *)&l->ss, l->len))
		ret = -errno;
	else
		ret = quic_client_handshake(*cfd, o->cert ? NULL : PSK_FILE,
					    NULL, NULL);
	if (ret) {
		close(*cfd);
		*cfd = -1;
		shutdown(l->fd, SHUT_RDWR);	/* wakes accept() */
	}
	pthread_join(th, NULL);
	if (!ret)
		ret = a.ret;
	*sfd = a.fd;
	if (!ret)
		ret = set_timeo(*cfd, TIMEO_MS) ?: set_timeo(*sfd, TIMEO_MS);
	if (!ret)
		return 0;
err:
	if (*cfd >= 0)
		close(*cfd);
	if (*sfd >= 0)
		close(*sfd);
	*cfd = -1;
	*sfd = -1;
	return ret;
}

/* poll() for @events up to @ms; the revents, 0 on timeout. */
static short wait_fd(int fd, short events, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	return poll(&pfd, 1, ms) == 1 ? pfd.revents : 0;
}

/* ---- sending ---- */

/* quic_sendmsg() of string @s: 0 if all of it was queued, else errno. */
static int qsend(int fd, const char *s, int64_t sid, uint32_t flags)
{
	size_t len = s ? strlen(s) : 0;
	ssize_t n = quic_sendmsg(fd, s, len, sid, flags);

	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EIO;
}

/* Plain send() (no cmsg) of string @s: 0, or errno. */
static int psend(int fd, const char *s, int flags)
{
	size_t len = s ? strlen(s) : 0;
	ssize_t n = send(fd, s, len, flags);

	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EIO;
}

/* sendmsg() of @s with one SOL_QUIC cmsg of @type (@len payload bytes). */
static int csend(int fd, const char *s, int type, const void *data,
		 size_t len, int flags)
{
	char ctrl[CMSG_SPACE(64)];
	struct iovec iov = { .iov_base = (void *)s, .iov_len = strlen(s) };
	struct msghdr mh = {};
	struct cmsghdr *c;
	ssize_t n;

	memset(ctrl, 0, sizeof(ctrl));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctrl;
	mh.msg_controllen = CMSG_SPACE(len);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_QUIC;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, len);
	n = sendmsg(fd, &mh, flags);
	if (n < 0)
		return errno;
	return (size_t)n == iov.iov_len ? 0 : EIO;
}

static int sinfo_send(int fd, const char *s, int64_t sid, uint32_t sflags,
		      int flags)
{
	struct quic_stream_info si = { .stream_id = sid,
				       .stream_flags = sflags };

	return csend(fd, s, QUIC_STREAM_INFO, &si, sizeof(si), flags);
}

/* QUIC_SOCKOPT_STREAM_OPEN: 0 with *@sid and *@flags updated, or errno. */
static int stream_open(int fd, int64_t *sid, uint32_t *flags)
{
	struct quic_stream_info si = { .stream_id = *sid,
				       .stream_flags = *flags };
	socklen_t len = sizeof(si);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN, &si, &len))
		return errno;
	if (len != sizeof(si))
		return -1;	/* not an errno: a short struct */
	*sid = si.stream_id;
	*flags = si.stream_flags;
	return 0;
}

static int errinfo_set(int fd, int opt, int64_t sid, uint32_t code)
{
	struct quic_errinfo ei = { .stream_id = sid, .errcode = code };

	return setopt_err(fd, SOL_QUIC, opt, &ei, sizeof(ei));
}

/* ---- receiving ---- */

/* One recvmsg() result as quic_recvmsg() reports it. */
struct item {
	ssize_t n;
	int64_t sid;
	uint32_t flags;
	unsigned char buf[4096];
};

static ssize_t get_item(int fd, struct item *it, uint32_t flags)
{
	it->flags = flags;
	it->sid = -1;
	it->n = quic_recvmsg(fd, it->buf, sizeof(it->buf), &it->sid,
			     &it->flags);
	return it->n;
}

/* After a datagram did not come within the receive timeout: whether one
 * waits unread on @fd (its reader was not woken) or none arrived, and the
 * counters of /proc/net/quic/snmp that are not 0, which say where packets
 * went. The datagram tests have no second chance: the kernel never sends
 * a datagram again.
 */
static void dgram_why(struct __test_metadata *_metadata, int fd)
{
	char line[128], name[64];
	unsigned long long v;
	struct item it;
	FILE *f;

	if (get_item(fd, &it, MSG_DONTWAIT) >= 0)
		TH_LOG("%zd bytes waited unread: the reader was not woken",
		       it.n);
	else
		TH_LOG("nothing to read: %s", strerror(errno));
	f = fopen("/proc/net/quic/snmp", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", name, &v) == 2 && v)
			TH_LOG("%s %llu", name, v);
	if (f)
		fclose(f);
}

static bool is_event(const struct item *it, int type)
{
	return it->n >= 1 && (it->flags & MSG_QUIC_NOTIFICATION) &&
	       it->buf[0] == type;
}

static bool get_update(const struct item *it, struct quic_stream_update *u)
{
	if (!is_event(it, QUIC_EVENT_STREAM_UPDATE) ||
	    it->n != 1 + (ssize_t)sizeof(*u))
		return false;
	memcpy(u, it->buf + 1, sizeof(*u));
	return true;
}

/* Everything a reader saw: stream bytes per stream, STREAM_UPDATEs. */
#define REC_STREAMS	16
#define REC_UPDATES	64

struct rx {
	int64_t sid;
	size_t len;
	bool fin;
	char data[64];
};

struct rec {
	struct rx rx[REC_STREAMS];
	int nrx;
	struct quic_stream_update up[REC_UPDATES];
	int nup;
	uint64_t max_stream;	/* last QUIC_EVENT_STREAM_MAX_STREAM */
	int nmig;		/* QUIC_EVENT_CONNECTION_MIGRATIONs */
	uint8_t mig_local;	/* the last one's local_migration */
	int datagrams;
	int overflow;
};

static struct rx *rec_rx(struct rec *r, int64_t sid)
{
	int i;

	for (i = 0; i < r->nrx; i++)
		if (r->rx[i].sid == sid)
			return &r->rx[i];
	if (r->nrx == REC_STREAMS)
		return NULL;
	r->rx[r->nrx].sid = sid;
	return &r->rx[r->nrx++];
}

static void rec_item(struct rec *r, const struct item *it)
{
	struct quic_stream_update u;
	struct rx *x;

	if (it->flags & MSG_QUIC_NOTIFICATION) {
		if (get_update(it, &u)) {
			if (r->nup < REC_UPDATES)
				r->up[r->nup++] = u;
			else
				r->overflow++;
		} else if (is_event(it, QUIC_EVENT_STREAM_MAX_STREAM) &&
			   it->n == 1 + sizeof(r->max_stream)) {
			memcpy(&r->max_stream, it->buf + 1,
			       sizeof(r->max_stream));
		} else if (is_event(it, QUIC_EVENT_CONNECTION_MIGRATION) &&
			   it->n == 2) {
			r->mig_local = it->buf[1];
			r->nmig++;
		}
		return;
	}
	if (it->flags & MSG_QUIC_DATAGRAM) {
		r->datagrams++;
		return;
	}
	x = rec_rx(r, it->sid);
	if (!x || x->len + it->n > sizeof(x->data)) {
		r->overflow++;
		return;
	}
	memcpy(x->data + x->len, it->buf, it->n);
	x->len += it->n;
	if (it->flags & MSG_QUIC_STREAM_FIN)
		x->fin = true;
}

/* Stream @sid ended (FIN read) after exactly the bytes of @s. */
static bool rec_got(struct rec *r, int64_t sid, const char *s)
{
	struct rx *x = rec_rx(r, sid);

	return x && x->fin && x->len == strlen(s) &&
	       !memcmp(x->data, s, x->len);
}

static size_t rec_len(struct rec *r, int64_t sid)
{
	struct rx *x = rec_rx(r, sid);

	return x ? x->len : 0;
}

static const struct quic_stream_update *rec_update(const struct rec *r,
						   int64_t sid, uint8_t state)
{
	int i;

	for (i = 0; i < r->nup; i++)
		if (r->up[i].id == sid && r->up[i].state == state)
			return &r->up[i];
	return NULL;
}

/*
 * Blocking reads from @fd into @r until @cond holds: 0, or the errno that
 * stopped it (EAGAIN when SO_RCVTIMEO ran out: what was waited for never
 * came).
 */
#define PUMP(fd, r, cond) ({						\
	struct item __it;						\
	int __err = 0;							\
	while (!__err && !(cond)) {					\
		if (get_item((fd), &__it, 0) < 0)			\
			__err = errno;					\
		else							\
			rec_item((r), &__it);				\
	}								\
	__err;								\
})

/* One raw recvmsg(): msg_flags, control length, the stream cmsg. */
struct raw {
	ssize_t n;
	int flags;
	size_t clen;
	socklen_t namelen;
	bool info_ok;
	struct quic_stream_info info;
	unsigned char buf[256];
};

static ssize_t raw_recv(int fd, struct raw *r, int flags, bool ctrl)
{
	char cbuf[CMSG_SPACE(sizeof(struct quic_stream_info))];
	struct iovec iov = { .iov_base = r->buf, .iov_len = sizeof(r->buf) };
	struct sockaddr_storage name;
	struct msghdr mh = {};
	struct cmsghdr *c;

	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_name = &name;
	mh.msg_namelen = sizeof(name);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (ctrl) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
	}
	r->info_ok = false;
	r->n = recvmsg(fd, &mh, flags);
	r->flags = mh.msg_flags;
	r->clen = mh.msg_controllen;
	r->namelen = mh.msg_namelen;
	if (r->n < 0)
		return r->n;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_QUIC ||
		    c->cmsg_type != QUIC_STREAM_INFO ||
		    c->cmsg_len < CMSG_LEN(sizeof(r->info)))
			continue;
		memcpy(&r->info, CMSG_DATA(c), sizeof(r->info));
		r->info_ok = true;
	}
	return r->n;
}

/* The STREAM_UPDATE in @r (an event read with raw_recv()). */
static bool raw_update(const struct raw *r, struct quic_stream_update *u)
{
	if (r->n != 1 + (ssize_t)sizeof(*u) ||
	    !(r->flags & MSG_QUIC_NOTIFICATION) ||
	    r->buf[0] != QUIC_EVENT_STREAM_UPDATE)
		return false;
	memcpy(u, r->buf + 1, sizeof(*u));
	return true;
}

/* ---- the role fixture: the socket under test is "me" ---- */

FIXTURE(role) {
	struct lsn l;
	int cfd;
	int sfd;
	int me;
	int peer;
};

FIXTURE_VARIANT(role) {
	int family;
	bool server;	/* the socket under test is the accepted one */
};

#define QUIC_FIXTURE		role
#define QUIC_VARIANTS_ROLE
#include "quic_variants.h"

FIXTURE_SETUP(role)
{
	self->l.fd = -1;
	self->cfd = -1;
	self->sfd = -1;
	self->me = -1;
	self->peer = -1;
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
}

FIXTURE_TEARDOWN(role)
{
	if (self->cfd >= 0)
		close(self->cfd);
	if (self->sfd >= 0)
		close(self->sfd);
	if (self->l.fd >= 0)
		close(self->l.fd);
	unlink(PSK_FILE);
}

/* The fixtures' types, as helpers take them. */
#define ROLE_DATA	FIXTURE_DATA(role)
#define ROLE_VARIANT	FIXTURE_VARIANT(role)
#define BOTH_DATA	FIXTURE_DATA(both)
#define BOTH_VARIANT	FIXTURE_VARIANT(both)
#define CIPHER_DATA	FIXTURE_DATA(cipher)

/* Connect; @me and @peer (NULL: nothing) are set before the handshake. */
static void role_open(struct __test_metadata *_metadata,
		      ROLE_DATA *self,
		      const ROLE_VARIANT *variant,
		      const struct side *me, const struct side *peer)
{
	static const struct side none;
	struct conn_opts o = { .family = variant->family };
	int ret;

	me = me ?: &none;
	peer = peer ?: &none;
	o.cli = variant->server ? *peer : *me;
	o.srv = variant->server ? *me : *peer;
	ret = lsn_open(&self->l, &o);
	ASSERT_EQ(0, ret) {
		TH_LOG("listener: %s", strerror(-ret));
	}
	ret = conn_open(&self->l, &o, &self->cfd, &self->sfd);
	ASSERT_EQ(0, ret) {
		TH_LOG("handshake: %s", strerror(-ret));
	}
	self->me = variant->server ? self->sfd : self->cfd;
	self->peer = variant->server ? self->cfd : self->sfd;
}

static void close_peer(ROLE_DATA *self,
		       const ROLE_VARIANT *variant)
{
	close(self->peer);
	self->peer = -1;
	if (variant->server)
		self->cfd = -1;
	else
		self->sfd = -1;
}

/* ==== 5.2 sendmsg: stream selection ==== */

/*
 * send(MSG_SYN) opens the next stream and makes it active; a second
 * send(MSG_SYN) before its FIN resolves to the same, no longer READY
 * stream: EINVAL. send(MSG_FIN) then finishes the active stream.
 */
TEST_F(role, s5_2_second_syn_on_active_stream_einval)
{
	struct rec r = {};

	role_open(_metadata, self, variant, NULL, NULL);
	ASSERT_EQ(0, psend(self->me, "a", MSG_SYN));
	EXPECT_EQ(EINVAL, psend(self->me, "b", MSG_SYN));
	EXPECT_EQ(EINVAL, qsend(self->me, "b", -1, S_NEW));
	EXPECT_EQ(0, psend(self->me, "c", MSG_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &r, rec_got(&r, LBIDI(0), "ac")));
}

/* After the FIN the next MSG_SYN opens the next ID of the type. */
TEST_F(role, s5_2_fin_then_syn_opens_next_id)
{
	struct rec r = {};

	role_open(_metadata, self, variant, NULL, NULL);
	ASSERT_EQ(0, psend(self->me, "a", MSG_SYN | MSG_FIN));
	ASSERT_EQ(0, psend(self->me, "b", MSG_SYN | MSG_FIN));
	ASSERT_EQ(0, psend(self->me, "c", MSG_SYN | MSG_CONFIRM | MSG_FIN));
	ASSERT_EQ(0, qsend(self->me, "d", -1, S_NEW | S_UNI | S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &r,
			  rec_got(&r, LBIDI(0), "a") &&
			  rec_got(&r, LBIDI(1), "b") &&
			  rec_got(&r, LUNI(0), "c") &&
			  rec_got(&r, LUNI(1), "d")));
	EXPECT_EQ(0, r.overflow);
}

/*
 * The first frame of a peer's bidirectional stream makes it the active
 * stream: a plain send() answers on it, even with MSG_SYN while it has
 * not sent yet.
 */
TEST_F(role, s5_2_peer_stream_answered_with_plain_send)
{
	struct rec rm = {}, rp = {};

	role_open(_metadata, self, variant, NULL, NULL);
	ASSERT_EQ(0, qsend(self->peer, "q1", PBIDI(0), S_NEW));
	ASSERT_EQ(0, PUMP(self->me, &rm, rec_len(&rm, PBIDI(0)) == 2));
	EXPECT_EQ(0, psend(self->me, "r1", MSG_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &rp, rec_got(&rp, PBIDI(0), "r1")));

	ASSERT_EQ(0, qsend(self->peer, "q2", PBIDI(1), S_NEW));
	ASSERT_EQ(0, PUMP(self->me, &rm, rec_len(&rm, PBIDI(1)) == 2));
	EXPECT_EQ(0, psend(self->me, "r2", MSG_SYN | MSG_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &rp, rec_got(&rp, PBIDI(1), "r2")));
}

/* Rule 1: the peer's unidirectional type, open or not: EINVAL. */
TEST_F(role, s5_2_rule1_peer_uni_type_einval)
{
	struct rec r = {};

	role_open(_metadata, self, variant, NULL, NULL);
	EXPECT_EQ(EINVAL, qsend(self->me, "x", PUNI(0), S_NEW));
	EXPECT_EQ(EINVAL, qsend(self->me, "x", PUNI(0), 0));
	ASSERT_EQ(0, qsend(self->peer, "u", PUNI(0), S_NEW));
	ASSERT_EQ(0, PUMP(self->me, &r, rec_len(&r, PUNI(0)) == 1));
	/* It exists now; rule 1 still comes first. */
	EXPECT_EQ(EINVAL, qsend(self->me, "x", PUNI(0), 0));
	EXPECT_EQ(EINVAL, qsend(self->me, "x", PUNI(0), S_NEW));
	EXPECT_EQ(EINVAL, errinfo_set(self->me, QUIC_SOCKOPT_STREAM_RESET,
				      PUNI(0), 1));
}

/*
 * Rule 3: a peer-initiated ID that does not exist, never opened or
 * already freed: EINVAL with or without MSG_SYN (STOP_SENDING on the
 * freed one: ENOSTR, 5.7).
 */
TEST_F(role, s5_2_rule3_peer_id_not_open_einval)
{
	struct side me = { .events = EV(QUIC_EVENT_STREAM_UPDATE) };
	int64_t sid;
	uint32_t fl = 0;
	struct rec r = {};

	role_open(_metadata, self, variant, &me, NULL);
	EXPECT_EQ(EINVAL, qsend(self->me, "x", PBIDI(0), 0));
	EXPECT_EQ(EINVAL, qsend(self->me, "x", PBIDI(0), S_NEW));
	sid = PBIDI(0);
	EXPECT_EQ(EINVAL, stream_open(self->me, &sid, &fl));

	ASSERT_EQ(0, qsend(self->peer, "q", PBIDI(0), S_NEW | S_FIN));
	ASSERT_EQ(0, PUMP(self->me, &r, rec_got(&r, PBIDI(0), "q")));
	ASSERT_EQ(0, qsend(self->me, "r", PBIDI(0), S_FIN));
	/* Both halves terminal: freed. */
	ASSERT_EQ(0, PUMP(self->me, &r,
			  rec_update(&r, PBIDI(0),
				     QUIC_STREAM_SEND_STATE_RECVD)));
	EXPECT_EQ(EINVAL, qsend(self->me, "x", PBIDI(0), 0));
	EXPECT_EQ(EINVAL, qsend(self->me, "x", PBIDI(0), S_NEW));
	EXPECT_EQ(EINVAL, errinfo_set(self->me, QUIC_SOCKOPT_STREAM_RESET,
				      PBIDI(0), 1));
	EXPECT_EQ(ENOSTR, errinfo_set(self->me,
				      QUIC_SOCKOPT_STREAM_STOP_SENDING,
				      PBIDI(0), 1));
}

/*
 * Rule 4: a local ID that was opened and has been freed gives ENOSTR to
 * sends (with or without MSG_SYN), STREAM_OPEN, STREAM_RESET and
 * STREAM_STOP_SENDING (5.3 "Freeing").
 */
TEST_F(role, s5_2_rule4_freed_local_id_enostr)
{
	struct side me = { .events = EV(QUIC_EVENT_STREAM_UPDATE) };
	struct rec rm = {}, rp = {};
	uint32_t fl = 0;
	int64_t sid;

	role_open(_metadata, self, variant, &me, NULL);
	ASSERT_EQ(0, qsend(self->me, "q", LBIDI(0), S_NEW | S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &rp, rec_got(&rp, LBIDI(0), "q")));
	ASSERT_EQ(0, qsend(self->peer, "r", LBIDI(0), S_FIN));
	ASSERT_EQ(0, PUMP(self->me, &rm,
			  rec_got(&rm, LBIDI(0), "r") &&
			  rec_update(&rm, LBIDI(0),
				     QUIC_STREAM_SEND_STATE_RECVD)));
	EXPECT_EQ(ENOSTR, qsend(self->me, "x", LBIDI(0), 0));
	EXPECT_EQ(ENOSTR, qsend(self->me, "x", LBIDI(0), S_NEW));
	sid = LBIDI(0);
	EXPECT_EQ(ENOSTR, stream_open(self->me, &sid, &fl));
	EXPECT_EQ(ENOSTR, errinfo_set(self->me, QUIC_SOCKOPT_STREAM_RESET,
				      LBIDI(0), 1));
	EXPECT_EQ(ENOSTR, errinfo_set(self->me,
				      QUIC_SOCKOPT_STREAM_STOP_SENDING,
				      LBIDI(0), 1));

	/* A unidirectional stream is freed once its FIN is acknowledged. */
	ASSERT_EQ(0, qsend(self->me, "u", LUNI(0), S_NEW | S_FIN));
	ASSERT_EQ(0, PUMP(self->me, &rm,
			  rec_update(&rm, LUNI(0),
				     QUIC_STREAM_SEND_STATE_RECVD)));
	EXPECT_EQ(ENOSTR, qsend(self->me, "x", LUNI(0), 0));
	EXPECT_EQ(ENOSTR, qsend(self->me, "x", LUNI(0), S_NEW));
	EXPECT_EQ(ENOSTR, errinfo_set(self->me, QUIC_SOCKOPT_STREAM_RESET,
				      LUNI(0), 1));
}

/*
 * Rule 5: a local ID never opened is not opened by a plain send: EINVAL,
 * also for ID -1 with no active stream; STREAM_RESET of it: EINVAL (5.7).
 */
TEST_F(role, s5_2_rule5_never_opened_needs_syn_einval)
{
	struct rec r = {};

	role_open(_metadata, self, variant, NULL, NULL);
	EXPECT_EQ(EINVAL, qsend(self->me, "x", LBIDI(2), 0));
	EXPECT_EQ(EINVAL, qsend(self->me, "x", LUNI(0), 0));
	EXPECT_EQ(EINVAL, psend(self->me, "x", 0));
	EXPECT_EQ(EINVAL, qsend(self->me, "x", -1, 0));
	EXPECT_EQ(EINVAL, errinfo_set(self->me, QUIC_SOCKOPT_STREAM_RESET,
				      LBIDI(5), 1));
	ASSERT_EQ(0, qsend(self->me, "c", LBIDI(2), S_NEW | S_FIN));
	/* Rule 2: 0 was created with 2 and needs no MSG_SYN. */
	EXPECT_EQ(0, qsend(self->me, "a", LBIDI(0), S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &r,
			  rec_got(&r, LBIDI(2), "c") &&
			  rec_got(&r, LBIDI(0), "a")));
}

/*
 * Rule 6: the wait for stream credit ignores MSG_DONTWAIT and O_NONBLOCK.
 * The peer allows one bidirectional stream; once the first is finished
 * both ways the peer returns the credit without any help from this side,
 * so a send on the next stream with MSG_DONTWAIT waits for it and
 * succeeds instead of failing with EAGAIN.
 */
TEST_F(role, s5_2_rule6_msg_dontwait_waits_for_stream_credit)
{
	struct side peer = { .tp = { .max_streams_bidi = 1 } };
	struct rec r = {};
	int fl;

	role_open(_metadata, self, variant, NULL, &peer);
	ASSERT_EQ(0, qsend(self->me, "a", LBIDI(0), S_NEW | S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &r, rec_got(&r, LBIDI(0), "a")));
	ASSERT_EQ(0, qsend(self->peer, "b", LBIDI(0), S_FIN));
	fl = fcntl(self->me, F_GETFL);
	ASSERT_EQ(0, fcntl(self->me, F_SETFL, fl | O_NONBLOCK));
	EXPECT_EQ(0, qsend(self->me, "c", LBIDI(1),
			   S_NEW | S_FIN | MSG_DONTWAIT));
	ASSERT_EQ(0, PUMP(self->peer, &r, rec_got(&r, LBIDI(1), "c")));
}

/*
 * Rule 7 and STREAM_OPEN (5.7): creating an ID makes it the active
 * stream; opening an existing READY stream succeeds but does not; -1 in
 * STREAM_OPEN takes the next unused ID, never the active stream.
 */
TEST_F(role, s5_2_rule7_created_id_becomes_active)
{
	struct rec r = {};
	uint32_t fl;
	int64_t sid;

	role_open(_metadata, self, variant, NULL, NULL);
	sid = LBIDI(3);
	fl = 0;
	ASSERT_EQ(0, stream_open(self->me, &sid, &fl));
	EXPECT_EQ(LBIDI(3), sid);
	EXPECT_TRUE(fl & S_NEW);
	sid = LBIDI(1);		/* created with 3, still READY */
	fl = 0;
	EXPECT_EQ(0, stream_open(self->me, &sid, &fl));
	EXPECT_EQ(LBIDI(1), sid);
	EXPECT_EQ(0, psend(self->me, "x", 0));	/* 3, the active stream */
	sid = -1;
	fl = 0;
	ASSERT_EQ(0, stream_open(self->me, &sid, &fl));
	EXPECT_EQ(LBIDI(4), sid);
	EXPECT_EQ(0, psend(self->me, "y", MSG_FIN));	/* 4 */
	EXPECT_EQ(0, qsend(self->me, "w", LBIDI(3), S_FIN));
	EXPECT_EQ(0, qsend(self->me, "z", LBIDI(1), S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &r,
			  rec_got(&r, LBIDI(3), "xw") &&
			  rec_got(&r, LBIDI(4), "y") &&
			  rec_got(&r, LBIDI(1), "z")));
}

/*
 * Rules 8 and 9: MSG_SYN on a stream that is no longer READY, and any
 * send once its FIN is queued: EINVAL.
 */
TEST_F(role, s5_2_rule8_9_syn_or_data_after_fin_einval)
{
	struct rec r = {};

	role_open(_metadata, self, variant, NULL, NULL);
	ASSERT_EQ(0, qsend(self->me, "a", LBIDI(0), S_NEW));
	EXPECT_EQ(EINVAL, qsend(self->me, "b", LBIDI(0), S_NEW));
	EXPECT_EQ(0, qsend(self->me, "c", LBIDI(0), S_FIN));
	EXPECT_EQ(EINVAL, qsend(self->me, "d", LBIDI(0), 0));
	EXPECT_EQ(EINVAL, qsend(self->me, "d", LBIDI(0), S_FIN));
	EXPECT_EQ(EINVAL, qsend(self->me, NULL, LBIDI(0), S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &r, rec_got(&r, LBIDI(0), "ac")));
}

/* A zero-length send is a FIN-only frame; without FIN it is EMSGSIZE. */
TEST_F(role, s5_2_zero_length_without_fin_emsgsize)
{
	struct rec r = {};

	role_open(_metadata, self, variant, NULL, NULL);
	EXPECT_EQ(EMSGSIZE, qsend(self->me, NULL, -1, S_NEW));
	EXPECT_EQ(EMSGSIZE, psend(self->me, NULL, MSG_SYN));
	EXPECT_EQ(0, qsend(self->me, NULL, -1, S_NEW | S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &r, rec_got(&r, LBIDI(0), "")));
	EXPECT_EQ(0, qsend(self->me, "a", -1, S_NEW));
	EXPECT_EQ(EMSGSIZE, qsend(self->me, NULL, LBIDI(1), 0));
	EXPECT_EQ(0, qsend(self->me, NULL, LBIDI(1), S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &r, rec_got(&r, LBIDI(1), "a")));
}

/*
 * Send flags outside the stream flags, MSG_MORE, MSG_DONTWAIT,
 * MSG_NOSIGNAL, MSG_WAITALL, MSG_BATCH and MSG_QUIC_DATAGRAM: EINVAL; so
 * are a non-stream bit in stream_flags and an unknown SOL_QUIC cmsg. A
 * listener: EPIPE.
 */
TEST_F(role, s5_2_flags_outside_accepted_set_einval)
{
	/* MSG_PROXY is glibc's name of the kernel's MSG_PROBE (0x10). */
	static const int bad[] = { MSG_OOB, MSG_PEEK, MSG_DONTROUTE,
				   MSG_PROXY, MSG_TRUNC, MSG_EOR };
	struct quic_stream_info si = { .stream_id = -1 };
	struct rec r = {};
	size_t i;

	role_open(_metadata, self, variant, NULL, NULL);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, psend(self->me, "x", MSG_SYN | bad[i])) {
			TH_LOG("flag %#x", bad[i]);
		}
		EXPECT_EQ(EINVAL, qsend(self->me, "x", -1, S_NEW | bad[i])) {
			TH_LOG("flag %#x", bad[i]);
		}
	}
	EXPECT_EQ(EINVAL, sinfo_send(self->me, "x", -1,
				     S_NEW | MSG_QUIC_DATAGRAM, 0));
	EXPECT_EQ(EINVAL, sinfo_send(self->me, "x", -1, S_NEW | MSG_MORE, 0));
	EXPECT_EQ(EINVAL, csend(self->me, "x", QUIC_HANDSHAKE_INFO + 100, &si,
				sizeof(si), 0));
	EXPECT_EQ(EPIPE, psend(self->l.fd, "x", MSG_SYN | MSG_NOSIGNAL));

	EXPECT_EQ(0, psend(self->me, "x", MSG_SYN | MSG_NOSIGNAL |
			   MSG_WAITALL | MSG_BATCH | MSG_DONTWAIT));
	EXPECT_EQ(0, psend(self->me, "y", MSG_FIN | MSG_NOSIGNAL));
	ASSERT_EQ(0, PUMP(self->peer, &r, rec_got(&r, LBIDI(0), "xy")));
}

/*
 * A send stalled by flow control under MSG_DONTWAIT: ENOSPC when a
 * QUIC_STREAM_INFO cmsg was given (always with quic_sendmsg()), EAGAIN
 * without one.
 */
TEST_F(role, s5_2_enospc_with_cmsg_eagain_without)
{
	struct side peer = { .tp = { .max_stream_data_bidi_local = 4096,
				     .max_stream_data_bidi_remote = 4096,
				     .max_stream_data_uni = 4096 } };
	static char buf[1024];
	size_t total = 0;
	int i;
	ssize_t n;

	role_open(_metadata, self, variant, NULL, &peer);
	memset(buf, 'f', sizeof(buf));
	for (i = 0; i < 64; i++) {
		n = quic_sendmsg(self->me, buf, sizeof(buf), LBIDI(0),
				 (total ? 0 : S_NEW) | MSG_DONTWAIT);
		if (n < 0)
			break;
		total += n;
	}
	ASSERT_GT(64, i);
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(4096, total);
	EXPECT_EQ(-1, quic_sendmsg(self->me, buf, 10, -1, MSG_DONTWAIT));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(-1, send(self->me, buf, 10, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/* ==== 5.3 stream lifecycle, implicit opening, limits ==== */

/*
 * Opening ID X creates every lower ID of its type on both ends: they can
 * be used without MSG_SYN (or with it while READY), by the opener and by
 * the peer, and using them does not change the active stream.
 */
TEST_F(role, s5_3_implicit_lower_ids_usable_without_syn)
{
	struct rec rm = {}, rp = {};
	uint32_t fl = 0;
	int64_t sid;

	role_open(_metadata, self, variant, NULL, NULL);
	ASSERT_EQ(0, qsend(self->me, "d", LBIDI(3), S_NEW));
	/* The peer created 0..2 with 3 and may answer on 0. */
	ASSERT_EQ(0, PUMP(self->peer, &rp, rec_len(&rp, LBIDI(3)) == 1));
	EXPECT_EQ(0, qsend(self->peer, "p", LBIDI(0), S_FIN));
	ASSERT_EQ(0, PUMP(self->me, &rm, rec_got(&rm, LBIDI(0), "p")));

	EXPECT_EQ(0, qsend(self->me, "b", LBIDI(1), 0));
	EXPECT_EQ(0, qsend(self->me, "c", LBIDI(2), S_NEW | S_FIN));
	sid = LBIDI(0);
	EXPECT_EQ(0, stream_open(self->me, &sid, &fl));
	EXPECT_EQ(0, psend(self->me, "D", MSG_FIN));	/* still 3 */
	EXPECT_EQ(0, qsend(self->me, "a", LBIDI(0), S_FIN));
	EXPECT_EQ(0, qsend(self->me, "B", LBIDI(1), S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &rp,
			  rec_got(&rp, LBIDI(3), "dD") &&
			  rec_got(&rp, LBIDI(2), "c") &&
			  rec_got(&rp, LBIDI(1), "bB") &&
			  rec_got(&rp, LBIDI(0), "a")));
}

static int count_updates(const struct rec *r, uint8_t state)
{
	int i, n = 0;

	for (i = 0; i < r->nup; i++)
		n += r->up[i].state == state;
	return n;
}

/*
 * The worked example of 5.3, default limits (100 each way): streams 0..20
 * finished both ways raise the limit to ID 420; 400 can then be opened
 * (creating 24..400 on both ends); finishing it raises the limit to 424;
 * 404 opens, 428 does not (EAGAIN under MSG_QUIC_STREAM_DONTWAIT) until
 * 404 is finished both ways; 200 exists without MSG_SYN and, once
 * finished both ways, grows the limit by 4. Server IDs are one higher.
 */
TEST_F(role, s5_3_stream_400_example)
{
	struct side me = { .events = EV(QUIC_EVENT_STREAM_UPDATE) |
				     EV(QUIC_EVENT_STREAM_MAX_STREAM) };
	struct rec rm = {}, rp = {};
	int i;

	role_open(_metadata, self, variant, &me, NULL);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, qsend(self->me, "q", LBIDI(i), S_NEW | S_FIN));
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, PUMP(self->peer, &rp,
				  rec_got(&rp, LBIDI(i), "q")));
		ASSERT_EQ(0, qsend(self->peer, "r", LBIDI(i), S_FIN));
	}
	ASSERT_EQ(0, PUMP(self->me, &rm,
			  count_updates(&rm, QUIC_STREAM_SEND_STATE_RECVD) == 6 &&
			  rm.max_stream == (uint64_t)LBIDI(105))) {
		TH_LOG("limit %llu", (unsigned long long)rm.max_stream);
	}

	EXPECT_EQ(0, qsend(self->me, "a", LBIDI(100), S_NEW | S_DONTWAIT));
	EXPECT_EQ(0, psend(self->me, "b", 0));		/* active: 400 */
	EXPECT_EQ(0, qsend(self->me, "c", LBIDI(50), S_FIN));	/* 200 */
	EXPECT_EQ(0, qsend(self->me, NULL, LBIDI(100), S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &rp,
			  rec_got(&rp, LBIDI(100), "ab") &&
			  rec_got(&rp, LBIDI(50), "c")));
	ASSERT_EQ(0, qsend(self->peer, "d", LBIDI(100), S_FIN));
	ASSERT_EQ(0, PUMP(self->me, &rm,
			  rm.max_stream == (uint64_t)LBIDI(106))) {
		TH_LOG("limit %llu", (unsigned long long)rm.max_stream);
	}

	EXPECT_EQ(0, qsend(self->me, "e", LBIDI(101),
			   S_NEW | S_FIN | S_DONTWAIT));
	EXPECT_EQ(EAGAIN, qsend(self->me, "f", LBIDI(107),
				S_NEW | S_DONTWAIT));
	ASSERT_EQ(0, PUMP(self->peer, &rp, rec_got(&rp, LBIDI(101), "e")));
	ASSERT_EQ(0, qsend(self->peer, "g", LBIDI(101), S_FIN));
	/* Waits until 404 is freed on the peer and the limit is 428. */
	EXPECT_EQ(0, qsend(self->me, "h", LBIDI(107), S_NEW | S_FIN));

	ASSERT_EQ(0, qsend(self->peer, "i", LBIDI(50), S_FIN));
	ASSERT_EQ(0, PUMP(self->me, &rm,
			  rm.max_stream == (uint64_t)LBIDI(108))) {
		TH_LOG("limit %llu", (unsigned long long)rm.max_stream);
	}
	ASSERT_EQ(0, PUMP(self->peer, &rp, rec_got(&rp, LBIDI(107), "h")));
}

/*
 * A peer-initiated unidirectional stream returns its credit as soon as
 * all its data arrived, before the application reads it; the data stays
 * readable after the stream is freed.
 */
TEST_F(role, s5_3_uni_credit_returned_before_read)
{
	struct side peer = { .tp = { .max_streams_uni = 2 } };
	struct rec r = {};

	role_open(_metadata, self, variant, NULL, &peer);
	ASSERT_EQ(0, qsend(self->me, "a", LUNI(0), S_NEW | S_FIN));
	ASSERT_EQ(0, qsend(self->me, "b", LUNI(1), S_NEW | S_FIN));
	/*
	 * The peer does not read: the wait (if the credit is not back yet)
	 * ends on its MAX_STREAMS alone.
	 */
	EXPECT_EQ(0, qsend(self->me, "c", LUNI(2), S_NEW | S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &r,
			  rec_got(&r, LUNI(0), "a") &&
			  rec_got(&r, LUNI(1), "b") &&
			  rec_got(&r, LUNI(2), "c")));
}

/*
 * Beyond the peer's stream limit: MSG_QUIC_STREAM_DONTWAIT gives EAGAIN
 * (sends and STREAM_OPEN); a blocking open ends with EAGAIN when
 * SO_SNDTIMEO expires. Up to the limit, including the implicitly created
 * streams, opening works.
 */
TEST_F(role, s5_3_max_streams_dontwait_eagain)
{
	uint32_t fl = S_DONTWAIT;
	int64_t sid = LBIDI(100);

	role_open(_metadata, self, variant, NULL, NULL);
	EXPECT_EQ(EAGAIN, qsend(self->me, "x", LBIDI(100),
				S_NEW | S_DONTWAIT));
	EXPECT_EQ(EAGAIN, stream_open(self->me, &sid, &fl));
	EXPECT_EQ(0, qsend(self->me, "x", LBIDI(99), S_NEW | S_DONTWAIT));
	EXPECT_EQ(EAGAIN, qsend(self->me, "y", LBIDI(100),
				S_NEW | S_DONTWAIT));
	EXPECT_EQ(EAGAIN, qsend(self->me, "y", LUNI(100),
				S_NEW | S_UNI | S_DONTWAIT));
	ASSERT_EQ(0, set_timeo(self->me, 200));
	EXPECT_EQ(EAGAIN, qsend(self->me, "z", LBIDI(100), S_NEW));
}

/* ==== 5.4 recvmsg ==== */

/*
 * Only MSG_DONTWAIT and MSG_PEEK have an effect; every other bit is
 * accepted and ignored, as libquic's callers pass stale flags.
 */
TEST_F(role, s5_4_recvmsg_ignores_unknown_flags)
{
	const int junk = MSG_OOB | MSG_EOR | MSG_CTRUNC | MSG_TRUNC |
			 MSG_ERRQUEUE | MSG_WAITALL | MSG_MORE | MSG_SYN |
			 MSG_FIN | MSG_CONFIRM | MSG_RST | MSG_WAITFORONE |
			 MSG_NOSIGNAL | MSG_BATCH;
	struct item it;
	struct raw r;

	role_open(_metadata, self, variant, NULL, NULL);
	ASSERT_EQ(0, qsend(self->peer, "hello", PBIDI(0), S_NEW | S_FIN));
	ASSERT_EQ(5, raw_recv(self->me, &r, junk | MSG_PEEK, true)) {
		TH_LOG("recvmsg: %s", strerror(errno));
	}
	EXPECT_EQ(0, memcmp(r.buf, "hello", 5));
	ASSERT_EQ(5, get_item(self->me, &it, junk)) {
		TH_LOG("recvmsg: %s", strerror(errno));
	}
	EXPECT_EQ(0, memcmp(it.buf, "hello", 5));
	EXPECT_EQ(PBIDI(0), it.sid);
	EXPECT_TRUE(it.flags & MSG_QUIC_STREAM_FIN);
	/* MSG_DONTWAIT among the junk still counts. */
	EXPECT_EQ(-1, get_item(self->me, &it, junk | MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/*
 * End of connection is ENOTCONN, never 0, after the items queued before
 * the close; a listener: ENOTCONN.
 */
TEST_F(role, s5_4_eof_is_enotconn)
{
	struct item it;

	role_open(_metadata, self, variant, NULL, NULL);
	ASSERT_EQ(0, qsend(self->peer, "bye", PBIDI(0), S_NEW | S_FIN));
	ASSERT_TRUE(wait_fd(self->me, POLLIN, TIMEO_MS) & POLLIN);
	close_peer(self, variant);
	ASSERT_TRUE(wait_fd(self->me, POLLRDHUP, TIMEO_MS) & POLLHUP);
	ASSERT_EQ(3, get_item(self->me, &it, 0));
	EXPECT_EQ(0, memcmp(it.buf, "bye", 3));
	EXPECT_TRUE(it.flags & MSG_QUIC_STREAM_FIN);
	EXPECT_EQ(-1, get_item(self->me, &it, 0));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, get_item(self->me, &it, MSG_DONTWAIT));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, get_item(self->l.fd, &it, MSG_DONTWAIT));
	EXPECT_EQ(ENOTCONN, errno);
}

/*
 * Queue order: a new event goes after existing events but ahead of
 * unread stream data; consecutive chunks of one stream are read together
 * up to the FIN.
 */
TEST_F(role, s5_4_event_ahead_of_unread_data)
{
	struct side ev = { .events = EV(QUIC_EVENT_STREAM_UPDATE) };
	struct quic_stream_update u;
	struct rec rp = {};
	struct item it;

	role_open(_metadata, self, variant, &ev, &ev);
	ASSERT_EQ(0, qsend(self->peer, "a", PBIDI(0), S_NEW));
	ASSERT_EQ(0, qsend(self->peer, "b", PBIDI(0), S_FIN));
	/* Acknowledged: both packets were processed by this side. */
	ASSERT_EQ(0, PUMP(self->peer, &rp,
			  rec_update(&rp, PBIDI(0),
				     QUIC_STREAM_SEND_STATE_RECVD)));

	ASSERT_LE(0, get_item(self->me, &it, MSG_DONTWAIT));
	ASSERT_TRUE(get_update(&it, &u));
	EXPECT_EQ(PBIDI(0), u.id);
	EXPECT_EQ(QUIC_STREAM_RECV_STATE_RECV, u.state);
	ASSERT_LE(0, get_item(self->me, &it, MSG_DONTWAIT));
	ASSERT_TRUE(get_update(&it, &u));
	EXPECT_EQ(PBIDI(0), u.id);
	EXPECT_EQ(QUIC_STREAM_RECV_STATE_RECVD, u.state);
	EXPECT_EQ(2, u.finalsz);
	ASSERT_EQ(2, get_item(self->me, &it, MSG_DONTWAIT));
	EXPECT_EQ(0, memcmp(it.buf, "ab", 2));
	EXPECT_EQ(PBIDI(0), it.sid);
	EXPECT_TRUE(it.flags & MSG_QUIC_STREAM_FIN);
	EXPECT_EQ(-1, get_item(self->me, &it, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/*
 * Without room for the cmsg (MSG_CTRUNC) the stream flags go into
 * msg_flags, so the FIN is still seen; msg_name is never filled.
 */
TEST_F(role, s5_4_ctrunc_reports_fin_in_msg_flags)
{
	struct raw r;

	role_open(_metadata, self, variant, NULL, NULL);
	ASSERT_EQ(0, qsend(self->peer, "end", PBIDI(0), S_NEW | S_FIN));
	ASSERT_EQ(3, raw_recv(self->me, &r, 0, false));
	EXPECT_TRUE(r.flags & MSG_CTRUNC);
	EXPECT_TRUE(r.flags & MSG_QUIC_STREAM_FIN);
	EXPECT_EQ(0, r.namelen);
	ASSERT_EQ(0, qsend(self->peer, "two", PBIDI(1), S_NEW | S_FIN));
	ASSERT_EQ(3, raw_recv(self->me, &r, 0, true));
	EXPECT_EQ(0, r.namelen);
	EXPECT_FALSE(r.flags & MSG_CTRUNC);
	ASSERT_TRUE(r.info_ok);
	EXPECT_EQ(PBIDI(1), r.info.stream_id);
	EXPECT_TRUE(r.info.stream_flags & MSG_QUIC_STREAM_FIN);
}

/*
 * A peer reset discards the stream's unread bytes, even those that had
 * arrived in order; the reader gets RECV_STATE_RESET_RECVD and never
 * ECONNRESET; the connection and the stream's other direction go on.
 */
TEST_F(role, s5_4_peer_reset_discards_unread_data)
{
	struct side ev = { .events = EV(QUIC_EVENT_STREAM_UPDATE) };
	struct quic_stream_update u;
	struct rec rm = {}, rp = {};
	struct item it;

	role_open(_metadata, self, variant, &ev, &ev);
	ASSERT_EQ(0, qsend(self->peer, "0123456789", PBIDI(0), S_NEW));
	ASSERT_TRUE(wait_fd(self->me, POLLIN, TIMEO_MS) & POLLIN);
	ASSERT_EQ(0, errinfo_set(self->peer, QUIC_SOCKOPT_STREAM_RESET,
				 PBIDI(0), 42));
	ASSERT_EQ(0, PUMP(self->peer, &rp,
			  rec_update(&rp, PBIDI(0),
				     QUIC_STREAM_SEND_STATE_RESET_RECVD)));

	ASSERT_LE(0, get_item(self->me, &it, MSG_DONTWAIT)) {
		TH_LOG("recvmsg: %s", strerror(errno));
	}
	ASSERT_TRUE(get_update(&it, &u));
	EXPECT_EQ(QUIC_STREAM_RECV_STATE_RECV, u.state);
	ASSERT_LE(0, get_item(self->me, &it, MSG_DONTWAIT)) {
		TH_LOG("recvmsg: %s", strerror(errno));
	}
	ASSERT_TRUE(get_update(&it, &u));
	EXPECT_EQ(PBIDI(0), u.id);
	EXPECT_EQ(QUIC_STREAM_RECV_STATE_RESET_RECVD, u.state);
	EXPECT_EQ(42, u.errcode);
	EXPECT_EQ(10, u.finalsz);
	EXPECT_EQ(-1, get_item(self->me, &it, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);

	EXPECT_EQ(0, qsend(self->me, "ok", PBIDI(0), S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &rp, rec_got(&rp, PBIDI(0), "ok")));
	ASSERT_EQ(0, qsend(self->peer, "more", PBIDI(1), S_NEW | S_FIN));
	EXPECT_EQ(0, PUMP(self->me, &rm, rec_got(&rm, PBIDI(1), "more")));
	EXPECT_EQ(0, rec_len(&rm, PBIDI(0)));
}

/*
 * STOP_SENDING: the peer answers with RESET_STREAM of the same code
 * (SEND_STATE_RESET_SENT, then _RESET_RECVD) and can no longer send on
 * the stream; here the reset arrives as RESET_RECVD, no ECONNRESET, and
 * a second STOP_SENDING is EAGAIN while outstanding, EINVAL after.
 */
TEST_F(role, s5_4_stop_sending)
{
	struct side ev = { .events = EV(QUIC_EVENT_STREAM_UPDATE) };
	const struct quic_stream_update *u;
	struct rec rm = {}, rp = {};
	struct item it;
	int err;

	role_open(_metadata, self, variant, &ev, &ev);
	ASSERT_EQ(0, qsend(self->peer, "abc", PBIDI(0), S_NEW));
	ASSERT_EQ(0, PUMP(self->me, &rm, rec_len(&rm, PBIDI(0)) == 3));
	ASSERT_EQ(0, errinfo_set(self->me, QUIC_SOCKOPT_STREAM_STOP_SENDING,
				 PBIDI(0), 7));
	err = errinfo_set(self->me, QUIC_SOCKOPT_STREAM_STOP_SENDING,
			  PBIDI(0), 7);
	/* EINVAL only if the answering reset already arrived. */
	EXPECT_TRUE(err == EAGAIN || err == EINVAL) {
		TH_LOG("second STOP_SENDING: %s", strerror(err));
	}

	ASSERT_EQ(0, PUMP(self->peer, &rp,
			  rec_update(&rp, PBIDI(0),
				     QUIC_STREAM_SEND_STATE_RESET_SENT)));
	u = rec_update(&rp, PBIDI(0), QUIC_STREAM_SEND_STATE_RESET_SENT);
	EXPECT_EQ(7, u->errcode);
	EXPECT_EQ(3, u->finalsz);
	EXPECT_EQ(EINVAL, qsend(self->peer, "x", PBIDI(0), 0));
	ASSERT_EQ(0, PUMP(self->peer, &rp,
			  rec_update(&rp, PBIDI(0),
				     QUIC_STREAM_SEND_STATE_RESET_RECVD)));
	u = rec_update(&rp, PBIDI(0), QUIC_STREAM_SEND_STATE_RESET_RECVD);
	EXPECT_EQ(7, u->errcode);
	EXPECT_EQ(3, u->finalsz);

	ASSERT_EQ(0, PUMP(self->me, &rm,
			  rec_update(&rm, PBIDI(0),
				     QUIC_STREAM_RECV_STATE_RESET_RECVD)));
	u = rec_update(&rm, PBIDI(0), QUIC_STREAM_RECV_STATE_RESET_RECVD);
	EXPECT_EQ(7, u->errcode);
	EXPECT_EQ(3, u->finalsz);
	EXPECT_EQ(EINVAL, errinfo_set(self->me,
				      QUIC_SOCKOPT_STREAM_STOP_SENDING,
				      PBIDI(0), 7));
	EXPECT_EQ(-1, get_item(self->me, &it, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/* ==== 5.5 datagrams ==== */

/* The peer did not advertise max_datagram_frame_size: EINVAL. */
TEST_F(role, s5_5_datagram_einval_without_peer_support)
{
	struct side me = { .tp = { .max_datagram_frame_size = 1400 } };
	struct item it;

	role_open(_metadata, self, variant, &me, NULL);
	EXPECT_EQ(EINVAL, qsend(self->me, "d", 0, MSG_QUIC_DATAGRAM));
	EXPECT_EQ(EINVAL, psend(self->me, "d", MSG_QUIC_DATAGRAM));
	/* This side advertised it: the peer may send. */
	ASSERT_EQ(0, qsend(self->peer, "d", 0, MSG_QUIC_DATAGRAM));
	ASSERT_EQ(1, get_item(self->me, &it, 0))
		dgram_why(_metadata, self->me);
	EXPECT_TRUE(it.flags & MSG_QUIC_DATAGRAM);
}

/*
 * Both advertise 1200 or more: datagrams both ways, delivered whole with
 * MSG_QUIC_DATAGRAM and MSG_EOR and no cmsg; quic_recvmsg() leaves *sid
 * alone (8.3).
 */
TEST_F(role, s5_5_datagram_round_trip)
{
	struct side dg = { .tp = { .max_datagram_frame_size = 1200 } };
	struct item it;
	struct raw r;

	role_open(_metadata, self, variant, &dg, &dg);
	ASSERT_EQ(0, qsend(self->me, "ping", 0, MSG_QUIC_DATAGRAM));
	ASSERT_EQ(4, raw_recv(self->peer, &r, 0, true))
		dgram_why(_metadata, self->peer);
	EXPECT_EQ(0, memcmp(r.buf, "ping", 4));
	EXPECT_TRUE(r.flags & MSG_QUIC_DATAGRAM);
	EXPECT_TRUE(r.flags & MSG_EOR);
	EXPECT_FALSE(r.flags & MSG_QUIC_NOTIFICATION);
	EXPECT_EQ(0, r.clen);

	ASSERT_EQ(0, psend(self->peer, "pong", MSG_QUIC_DATAGRAM));
	it.flags = 0;
	it.sid = 4242;
	it.n = quic_recvmsg(self->me, it.buf, sizeof(it.buf), &it.sid,
			    &it.flags);
	ASSERT_EQ(4, it.n)
		dgram_why(_metadata, self->me);
	EXPECT_EQ(0, memcmp(it.buf, "pong", 4));
	EXPECT_TRUE(it.flags & MSG_QUIC_DATAGRAM);
	EXPECT_EQ(4242, it.sid);
}

/* How long a datagram of a size the path MTU search has yet to confirm
 * is retried on EMSGSIZE: on lo the first probe confirms it within an
 * RTT or two, which a debug kernel under TCG stretches.
 */
#define DGRAM_GROW_MS	10000
#define DGRAM_GROW_STEP_MS	10

/* sendmsg() of a @len-byte datagram, again after EMSGSIZE every
 * DGRAM_GROW_STEP_MS for up to DGRAM_GROW_MS: the largest datagram grows
 * as the path MTU search confirms larger sizes (quic.rst, Datagrams).
 */
static ssize_t dgram_send_once_fits(int fd, const void *buf, size_t len)
{
	ssize_t n;
	int i;

	for (i = 0; i < DGRAM_GROW_MS / DGRAM_GROW_STEP_MS; i++) {
		n = quic_sendmsg(fd, buf, len, 0, MSG_QUIC_DATAGRAM);
		if (n >= 0 || errno != EMSGSIZE)
			return n;
		usleep(DGRAM_GROW_STEP_MS * 1000);
	}
	return -1;
}

#define DGRAM_TRIES	5

/* A @len-byte datagram from @from (dgram_send_once_fits()), sent up to
 * DGRAM_TRIES times until @to has an item to read, read into @it. The
 * kernel never sends a datagram again, and drops one too large for
 * 1200-byte packets that still waits when the datagram size falls back
 * to 1200 (two PTOs in a row look like a black hole, as on a slow
 * kernel). Returns the item's length, or -1.
 */
static ssize_t dgram_deliver(int from, int to, const void *buf, size_t len,
			     struct item *it)
{
	int i;

	for (i = 0; i < DGRAM_TRIES; i++) {
		if (dgram_send_once_fits(from, buf, len) != (ssize_t)len)
			return -1;
		if (wait_fd(to, POLLIN, TIMEO_MS) & POLLIN)
			return get_item(to, it, 0);
	}
	errno = ETIMEDOUT;
	return -1;
}

/*
 * Too big: 0 bytes, or more than one packet can carry. Right after the
 * handshake the datagram size in use may still be QUIC's 1200 bytes:
 * with 8-byte connection IDs, 1200 less a 13-byte short header, the
 * 16-byte tag and a 3-byte frame header leaves 1168, which must fit at
 * once. Once the path MTU search confirmed larger packets on lo, the peer's
 * 1400 is the limit: 1368 bytes fit and 1369 do not.
 */
TEST_F(role, s5_5_datagram_emsgsize)
{
	struct side dg = { .tp = { .max_datagram_frame_size = 1400 } };
	static char buf[2000];
	struct item it;

	role_open(_metadata, self, variant, &dg, &dg);
	memset(buf, 'g', sizeof(buf));
	EXPECT_EQ(-1, quic_sendmsg(self->me, buf, 0, 0, MSG_QUIC_DATAGRAM));
	EXPECT_EQ(EMSGSIZE, errno);
	EXPECT_EQ(-1, quic_sendmsg(self->me, buf, 1369, 0, MSG_QUIC_DATAGRAM));
	EXPECT_EQ(EMSGSIZE, errno);
	EXPECT_EQ(-1, quic_sendmsg(self->me, buf, sizeof(buf), 0,
				   MSG_QUIC_DATAGRAM));
	EXPECT_EQ(EMSGSIZE, errno);
	ASSERT_EQ(1168, quic_sendmsg(self->me, buf, 1168, 0,
				     MSG_QUIC_DATAGRAM)) {
		TH_LOG("the 1200-byte floor: %s", strerror(errno));
	}
	ASSERT_EQ(1168, get_item(self->peer, &it, 0))
		dgram_why(_metadata, self->peer);
	EXPECT_TRUE(it.flags & MSG_QUIC_DATAGRAM);
	ASSERT_EQ(1368, dgram_deliver(self->me, self->peer, buf, 1368, &it)) {
		TH_LOG("1368 bytes: %s", strerror(errno));
	}
	EXPECT_TRUE(it.flags & MSG_QUIC_DATAGRAM);
	EXPECT_EQ(-1, quic_sendmsg(self->me, buf, 1369, 0, MSG_QUIC_DATAGRAM));
	EXPECT_EQ(EMSGSIZE, errno);
}

/* ==== 5.6 events ==== */

/*
 * A stream whose only packet carries all its data and the FIN: RECV
 * (finalsz 0), then RECVD (finalsz = length), then the data with FIN.
 * Events carry MSG_QUIC_NOTIFICATION and MSG_EOR and no cmsg; stream
 * data a QUIC_STREAM_INFO cmsg and no MSG_EOR.
 */
TEST_F(role, s5_6_recv_before_recvd_single_packet)
{
	struct side me = { .events = EV(QUIC_EVENT_STREAM_UPDATE) };
	struct quic_stream_update u;
	struct raw r;

	role_open(_metadata, self, variant, &me, NULL);
	ASSERT_EQ(0, qsend(self->peer, "hello", PBIDI(0), S_NEW | S_FIN));

	ASSERT_LE(0, raw_recv(self->me, &r, 0, true));
	ASSERT_TRUE(raw_update(&r, &u));
	EXPECT_TRUE(r.flags & MSG_EOR);
	EXPECT_EQ(0, r.clen);
	EXPECT_EQ(PBIDI(0), u.id);
	EXPECT_EQ(QUIC_STREAM_RECV_STATE_RECV, u.state);
	EXPECT_EQ(0, u.errcode);
	EXPECT_EQ(0, u.finalsz);
	EXPECT_EQ(0, u.reserved[0] | u.reserved[1] | u.reserved[2]);

	ASSERT_LE(0, raw_recv(self->me, &r, 0, true));
	ASSERT_TRUE(raw_update(&r, &u));
	EXPECT_EQ(PBIDI(0), u.id);
	EXPECT_EQ(QUIC_STREAM_RECV_STATE_RECVD, u.state);
	EXPECT_EQ(0, u.errcode);
	EXPECT_EQ(5, u.finalsz);

	ASSERT_EQ(5, raw_recv(self->me, &r, 0, true));
	EXPECT_EQ(0, memcmp(r.buf, "hello", 5));
	EXPECT_FALSE(r.flags & (MSG_QUIC_NOTIFICATION | MSG_EOR));
	ASSERT_TRUE(r.info_ok);
	EXPECT_EQ(PBIDI(0), r.info.stream_id);
	EXPECT_TRUE(r.info.stream_flags & MSG_QUIC_STREAM_FIN);
}

/*
 * Send side: READY, SEND and SENT are never reported; a message with FIN
 * answered on the same stream gives SEND_STATE_RECVD (errcode and finalsz
 * 0), then the reply's RECV, RECVD and data.
 */
TEST_F(role, s5_6_send_side_sequence)
{
	struct side me = { .events = EV(QUIC_EVENT_STREAM_UPDATE) };
	struct quic_stream_update u;
	struct rec rp = {};
	struct item it;

	role_open(_metadata, self, variant, &me, NULL);
	ASSERT_EQ(0, qsend(self->me, "ping", LBIDI(0), S_NEW | S_FIN));
	ASSERT_EQ(0, PUMP(self->peer, &rp, rec_got(&rp, LBIDI(0), "ping")));
	ASSERT_EQ(0, qsend(self->peer, "pong", LBIDI(0), S_FIN));

	ASSERT_LE(0, get_item(self->me, &it, 0));
	ASSERT_TRUE(get_update(&it, &u));
	EXPECT_EQ(LBIDI(0), u.id);
	EXPECT_EQ(QUIC_STREAM_SEND_STATE_RECVD, u.state);
	EXPECT_EQ(0, u.errcode);
	EXPECT_EQ(0, u.finalsz);
	ASSERT_LE(0, get_item(self->me, &it, 0));
	ASSERT_TRUE(get_update(&it, &u));
	EXPECT_EQ(QUIC_STREAM_RECV_STATE_RECV, u.state);
	ASSERT_LE(0, get_item(self->me, &it, 0));
	ASSERT_TRUE(get_update(&it, &u));
	EXPECT_EQ(QUIC_STREAM_RECV_STATE_RECVD, u.state);
	EXPECT_EQ(4, u.finalsz);
	ASSERT_EQ(4, get_item(self->me, &it, 0));
	EXPECT_FALSE(it.flags & MSG_QUIC_NOTIFICATION);
	EXPECT_TRUE(it.flags & MSG_QUIC_STREAM_FIN);
	EXPECT_EQ(-1, get_item(self->me, &it, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/* ==== 6 option reference: directions ==== */

/* Every "—" direction of the table, and unknown numbers: ENOPROTOOPT. */
TEST_F(role, s6_missing_directions_enoprotoopt)
{
	static const int no_get[] = { QUIC_SOCKOPT_STREAM_RESET,
				      QUIC_SOCKOPT_STREAM_STOP_SENDING,
				      QUIC_SOCKOPT_CONNECTION_MIGRATION,
				      QUIC_SOCKOPT_KEY_UPDATE,
				      QUIC_SOCKOPT_CRYPTO_SECRET,
				      15, 99 };
	static const int no_set[] = { QUIC_SOCKOPT_STREAM_OPEN, 15, 99 };
	unsigned char buf[128];
	int fds[3], f;
	socklen_t len;
	size_t i;

	role_open(_metadata, self, variant, NULL, NULL);
	fds[0] = self->me;
	fds[1] = self->l.fd;
	fds[2] = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, fds[2]);
	for (f = 0; f < 3; f++) {
		for (i = 0; i < ARRAY_SIZE(no_get); i++) {
			memset(buf, 0, sizeof(buf));
			len = sizeof(buf);
			EXPECT_EQ(ENOPROTOOPT, getopt_err(fds[f], SOL_QUIC,
							  no_get[i], buf,
							  &len)) {
				TH_LOG("get %d on fd %d", no_get[i], f);
			}
		}
		for (i = 0; i < ARRAY_SIZE(no_set); i++) {
			memset(buf, 0, sizeof(buf));
			EXPECT_EQ(ENOPROTOOPT, setopt_err(fds[f], SOL_QUIC,
							  no_set[i], buf,
							  sizeof(struct quic_stream_info))) {
				TH_LOG("set %d on fd %d", no_set[i], f);
			}
		}
	}
	close(fds[2]);
}

/* ==== 8.3 libquic data helpers ==== */

/*
 * quic_sendmsg(): the stream bits of @flags go into the cmsg, the rest
 * (MSG_MORE, MSG_DONTWAIT...) are sendmsg() flags; -1 selects the active
 * or next stream. With a cmsg, stream bits in the sendmsg() flags select,
 * open and finish nothing (5.2).
 */
TEST_F(role, s8_3_quic_sendmsg_semantics)
{
	struct rec r = {};

	role_open(_metadata, self, variant, NULL, NULL);
	EXPECT_EQ(0, qsend(self->me, "ab", -1, S_NEW | MSG_MORE));
	EXPECT_EQ(0, qsend(self->me, "cd", -1, S_FIN));
	EXPECT_EQ(0, qsend(self->me, "e", -1, S_NEW | S_UNI | S_FIN));
	EXPECT_EQ(0, qsend(self->me, "f", -1, S_NEW | S_FIN | MSG_DONTWAIT |
			   MSG_NOSIGNAL));
	/* MSG_FIN in the flags does not finish stream 2... */
	EXPECT_EQ(0, sinfo_send(self->me, "g", LBIDI(2), S_NEW, MSG_FIN));
	/* ...so it still takes data and its FIN. */
	EXPECT_EQ(0, sinfo_send(self->me, "h", LBIDI(2), S_FIN, 0));
	ASSERT_EQ(0, PUMP(self->peer, &r,
			  rec_got(&r, LBIDI(0), "abcd") &&
			  rec_got(&r, LUNI(0), "e") &&
			  rec_got(&r, LBIDI(1), "f") &&
			  rec_got(&r, LBIDI(2), "gh")));
}

/*
 * quic_recvmsg(): *flags in are the recvmsg() flags, out msg_flags ORed
 * with the stream flags; *sid is set for stream data only.
 */
TEST_F(role, s8_3_quic_recvmsg_semantics)
{
	struct side me = { .events = EV(QUIC_EVENT_STREAM_UPDATE) };
	unsigned char buf[64];
	uint32_t flags;
	int64_t sid;

	role_open(_metadata, self, variant, &me, NULL);
	ASSERT_EQ(0, qsend(self->peer, "x", PBIDI(0), S_NEW | S_FIN));
	sid = 777;
	flags = 0;
	ASSERT_EQ(1 + (ssize_t)sizeof(struct quic_stream_update),
		  quic_recvmsg(self->me, buf, sizeof(buf), &sid, &flags));
	EXPECT_EQ(777, sid);
	EXPECT_TRUE(flags & MSG_QUIC_NOTIFICATION);
	EXPECT_EQ(QUIC_EVENT_STREAM_UPDATE, buf[0]);
	/* Stale output flags in, as callers do. */
	ASSERT_EQ(1 + (ssize_t)sizeof(struct quic_stream_update),
		  quic_recvmsg(self->me, buf, sizeof(buf), &sid, &flags));
	EXPECT_EQ(777, sid);
	flags = 0;
	ASSERT_EQ(1, quic_recvmsg(self->me, buf, sizeof(buf), &sid, &flags));
	EXPECT_EQ(PBIDI(0), sid);
	EXPECT_EQ('x', buf[0]);
	EXPECT_TRUE(flags & MSG_QUIC_STREAM_FIN);
	EXPECT_FALSE(flags & MSG_QUIC_NOTIFICATION);
	flags |= MSG_DONTWAIT;
	EXPECT_EQ(-1, quic_recvmsg(self->me, buf, sizeof(buf), &sid, &flags));
	EXPECT_EQ(EAGAIN, errno);
	/* NULL sid and flags: a blocking read with flags 0. */
	ASSERT_EQ(0, qsend(self->peer, "y", PBIDI(1), S_NEW | S_FIN));
	EXPECT_LT(0, quic_recvmsg(self->me, buf, sizeof(buf), NULL, NULL));
}

/* ---- the both fixture: a listener; tests that need both roles ---- */

FIXTURE(both) {
	struct lsn l;
	int cfd;
	int sfd;
	int cfd2;
	int sfd2;
};

FIXTURE_VARIANT(both) {
	int family;
};

#define QUIC_FIXTURE		both
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(both)
{
	self->l.fd = -1;
	self->cfd = -1;
	self->sfd = -1;
	self->cfd2 = -1;
	self->sfd2 = -1;
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
}

FIXTURE_TEARDOWN(both)
{
	int *fds[] = { &self->cfd, &self->sfd, &self->cfd2, &self->sfd2,
		       &self->l.fd };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fds); i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	unlink(PSK_FILE);
}

static void both_open(struct __test_metadata *_metadata,
		      BOTH_DATA *self,
		      const BOTH_VARIANT *variant,
		      const struct conn_opts *o)
{
	int ret;

	ret = lsn_open(&self->l, o);
	ASSERT_EQ(0, ret) {
		TH_LOG("listener: %s", strerror(-ret));
	}
	ret = conn_open(&self->l, o, &self->cfd, &self->sfd);
	ASSERT_EQ(0, ret) {
		TH_LOG("handshake: %s", strerror(-ret));
	}
}

/* ==== 5.9 migration ==== */

/* @ss (of @len bytes) and @want name one address and port. */
static bool addr_eq(const struct sockaddr_storage *ss, socklen_t len,
		    const struct sockaddr_storage *want)
{
	const struct sockaddr_in6 *a6 = (const void *)ss;
	const struct sockaddr_in6 *b6 = (const void *)want;
	const struct sockaddr_in *a4 = (const void *)ss;
	const struct sockaddr_in *b4 = (const void *)want;

	if (ss->ss_family != want->ss_family)
		return false;
	if (ss->ss_family == AF_INET)
		return len == sizeof(*a4) && a4->sin_port == b4->sin_port &&
		       a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return len == sizeof(*a6) && a6->sin6_port == b6->sin6_port &&
	       !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr));
}

static bool addr_any(const struct sockaddr_storage *ss)
{
	static const struct in6_addr any6 = IN6ADDR_ANY_INIT;

	if (ss->ss_family == AF_INET)
		return !((const struct sockaddr_in *)ss)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr, &any6,
		       sizeof(any6));
}

static void set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/*
 * The draft's own connection test: a client that called connect() with
 * no bind() moves to getsockname()'s address with the port plus one
 * (5.1: getsockname() names the path in use, never the wildcard). The
 * call returns 0 once the probe is queued; stream data still flows both
 * ways; the client raises CONNECTION_MIGRATION with local_migration 1 and
 * getsockname() gives the new port; the server, which sees its peer
 * arrive from there and validates it, raises the event with
 * local_migration 0 and getpeername() gives the client's new address
 * (5.6). A port that happens to be taken is the next one's turn.
 */
TEST_F(both, s5_9_client_moves_to_next_port)
{
	struct conn_opts o = { .family = variant->family };
	struct sockaddr_storage ss, got;
	struct rec rc = {}, rs = {};
	socklen_t len, glen;
	int port, err, i;

	o.cli.events = EV(QUIC_EVENT_CONNECTION_MIGRATION);
	o.srv.events = EV(QUIC_EVENT_CONNECTION_MIGRATION);
	both_open(_metadata, self, variant, &o);
	len = sizeof(ss);
	ASSERT_EQ(0, getsockname(self->cfd, (struct sockaddr *)&ss, &len));
	EXPECT_FALSE(addr_any(&ss));
	port = addr_port(&ss);
	for (i = 1, err = EADDRINUSE; i <= 4 && err == EADDRINUSE; i++) {
		set_port(&ss, port + i);
		err = setopt_err(self->cfd, SOL_QUIC,
				 QUIC_SOCKOPT_CONNECTION_MIGRATION, &ss, len);
	}
	ASSERT_EQ(0, err) {
		TH_LOG("migration to port %d: %s", port + i - 1,
		       strerror(err));
	}
	/* The old path or the new one: the data arrives either way. */
	ASSERT_EQ(0, psend(self->cfd, "quic connection test14",
			   MSG_SYN | MSG_FIN));
	ASSERT_EQ(0, PUMP(self->sfd, &rs,
			  rec_got(&rs, 0, "quic connection test14")));
	ASSERT_EQ(0, qsend(self->sfd, "quic connection test14", 0, S_FIN));
	ASSERT_EQ(0, PUMP(self->cfd, &rc,
			  rec_got(&rc, 0, "quic connection test14") &&
			  rc.nmig));
	EXPECT_EQ(1, rc.nmig);
	EXPECT_EQ(1, rc.mig_local);
	glen = sizeof(got);
	ASSERT_EQ(0, getsockname(self->cfd, (struct sockaddr *)&got, &glen));
	EXPECT_TRUE(addr_eq(&got, glen, &ss)) {
		TH_LOG("getsockname() port %d, want %d", addr_port(&got),
		       addr_port(&ss));
	}
	/* Data from the new address: the server follows, validates it. */
	ASSERT_EQ(0, psend(self->cfd, "client migration", MSG_SYN | MSG_FIN));
	ASSERT_EQ(0, PUMP(self->sfd, &rs,
			  rec_got(&rs, 4, "client migration") && rs.nmig));
	EXPECT_EQ(1, rs.nmig);
	EXPECT_EQ(0, rs.mig_local);
	glen = sizeof(got);
	ASSERT_EQ(0, getpeername(self->sfd, (struct sockaddr *)&got, &glen));
	EXPECT_TRUE(addr_eq(&got, glen, &ss)) {
		TH_LOG("getpeername() port %d, want %d", addr_port(&got),
		       addr_port(&ss));
	}
	/* And back, on the new path. */
	ASSERT_EQ(0, qsend(self->sfd, "client migration", 4, S_FIN));
	ASSERT_EQ(0, PUMP(self->cfd, &rc,
			  rec_got(&rc, 4, "client migration")));
	EXPECT_EQ(1, rc.nmig);
}

/* ==== 5.10 TOKEN and SESSION_TICKET ==== */

/* Client set: 1..120 bytes, else EINVAL (so NULL, 0 fails); get works. */
TEST_F(both, s5_10_token_client_set_len)
{
	struct conn_opts o = { .family = variant->family };
	unsigned char tok[121], buf[128];
	socklen_t len;
	int fd;

	both_open(_metadata, self, variant, &o);
	memset(tok, 't', sizeof(tok));
	fd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, NULL,
				     0));
	EXPECT_EQ(EINVAL, setopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, tok,
				     121));
	EXPECT_EQ(0, setopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, tok, 120));
	len = sizeof(buf);
	EXPECT_EQ(0, getopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, buf, &len));
	EXPECT_EQ(120, len);
	close(fd);

	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				     NULL, 0));
	EXPECT_EQ(EINVAL, setopt_err(self->cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				     tok, 121));
	EXPECT_EQ(0, setopt_err(self->cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, tok,
				1));
	EXPECT_EQ(0, setopt_err(self->cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, tok,
				120));
	len = sizeof(buf);
	EXPECT_EQ(0, getopt_err(self->cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, buf,
				&len));
	EXPECT_GE(120, len);
}

/* Set a server's TOKEN until a NEW_TOKEN goes out: 0, or the errno. */
static int token_set_settled(int fd)
{
	int i, err = EAGAIN;

	for (i = 0; i < 500 && err == EAGAIN; i++) {
		err = setopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, NULL, 0);
		if (err == EAGAIN)
			wait_fd(fd, 0, 10);	/* the ACK is on its way */
	}
	return err;
}

/*
 * Server: get always EINVAL (listener and accepted socket); set (NULL, 0)
 * EINVAL on a listener and once the connection is closed; in ESTABLISHED
 * it sends a NEW_TOKEN (after EAGAIN while the automatic one is not
 * acknowledged), which the client gets as QUIC_EVENT_NEW_TOKEN. Each
 * NEW_TOKEN frame received is an event: the automatic one may come twice
 * or more (sent again at a PTO that fired before its ACK arrived, as on a
 * slow kernel), so ours is the first event with another token.
 */
TEST_F(both, s5_10_token_server_set_established_only)
{
	struct conn_opts o = { .family = variant->family,
			       .cli.events = EV(QUIC_EVENT_NEW_TOKEN) };
	unsigned char buf[128], first[128], last[128];
	size_t firstlen = 0, lastlen = 0;
	struct item it;
	socklen_t len;
	int tokens = 0;

	both_open(_metadata, self, variant, &o);
	EXPECT_EQ(EINVAL, setopt_err(self->l.fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				     NULL, 0));
	len = sizeof(buf);
	EXPECT_EQ(EINVAL, getopt_err(self->l.fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				     buf, &len));
	len = sizeof(buf);
	EXPECT_EQ(EINVAL, getopt_err(self->sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				     buf, &len));
	EXPECT_EQ(0, token_set_settled(self->sfd));

	/* The automatic NEW_TOKEN (perhaps more than once), then ours. */
	while (tokens < 2) {
		ASSERT_LE(0, get_item(self->cfd, &it, 0)) {
			TH_LOG("NEW_TOKEN %d: %s", tokens, strerror(errno));
		}
		if (!is_event(&it, QUIC_EVENT_NEW_TOKEN))
			continue;
		ASSERT_LE(2, it.n);
		ASSERT_GE(121, it.n);
		lastlen = it.n - 1;
		memcpy(last, it.buf + 1, lastlen);
		if (!firstlen) {
			firstlen = lastlen;
			memcpy(first, last, lastlen);
			tokens++;
		} else if (lastlen != firstlen ||
			   memcmp(last, first, lastlen)) {
			tokens++;
		}
	}
	len = sizeof(buf);
	ASSERT_EQ(0, getopt_err(self->cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, buf,
				&len));
	ASSERT_EQ(lastlen, len);
	EXPECT_EQ(0, memcmp(buf, last, len));

	close(self->cfd);
	self->cfd = -1;
	ASSERT_TRUE(wait_fd(self->sfd, POLLRDHUP, TIMEO_MS) & POLLHUP);
	EXPECT_EQ(EINVAL, setopt_err(self->sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				     NULL, 0));
}

/*
 * Server set while the last NEW_TOKEN is not acknowledged: EAGAIN. The
 * client is shut down with SHUT_RD, which sends nothing (5.8), so nothing
 * acknowledges the NEW_TOKEN sent after it.
 */
TEST_F(both, s5_10_token_server_set_eagain_while_unacked)
{
	struct conn_opts o = { .family = variant->family };
	int err;

	both_open(_metadata, self, variant, &o);
	ASSERT_EQ(0, token_set_settled(self->sfd));
	ASSERT_EQ(0, shutdown(self->cfd, SHUT_RD));
	err = setopt_err(self->sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, NULL, 0);
	EXPECT_TRUE(err == 0 || err == EAGAIN) {
		TH_LOG("TOKEN set: %s", strerror(err));
	}
	EXPECT_EQ(EAGAIN, setopt_err(self->sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				     NULL, 0));
	EXPECT_EQ(EAGAIN, setopt_err(self->sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				     NULL, 0));
}

struct cli_hs {
	int fd;
	int ret;
};

static void *cli_hs_main(void *p)
{
	struct cli_hs *c = p;

	c->ret = quic_client_handshake(c->fd, PSK_FILE, NULL, NULL);
	return NULL;
}

/*
 * An accepted socket before its handshake (ESTABLISHING): TOKEN set and
 * get EINVAL (libquic's role probe); SESSION_TICKET get already returns
 * the 64-byte key, the same as after the handshake.
 */
TEST_F(both, s5_10_server_before_handshake)
{
	struct conn_opts o = { .family = variant->family };
	unsigned char key[64], key2[64], buf[128];
	struct cli_hs c = { .ret = -1 };
	pthread_t th;
	socklen_t len;
	int ret;

	ASSERT_EQ(0, lsn_open(&self->l, &o));
	self->cfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, self->cfd);
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&self->l.ss,
			     self->l.len));
	c.fd = self->cfd;
	ASSERT_EQ(0, pthread_create(&th, NULL, cli_hs_main, &c));
	self->sfd = accept(self->l.fd, NULL, NULL);
	if (self->sfd < 0) {
		shutdown(self->cfd, SHUT_RDWR);
		pthread_join(th, NULL);
		ASSERT_LE(0, self->sfd);
	}
	EXPECT_EQ(EINVAL, setopt_err(self->sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				     NULL, 0));
	len = sizeof(buf);
	EXPECT_EQ(EINVAL, getopt_err(self->sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				     buf, &len));
	len = sizeof(key);
	EXPECT_EQ(0, getopt_err(self->sfd, SOL_QUIC,
				QUIC_SOCKOPT_SESSION_TICKET, key, &len));
	EXPECT_EQ(64, len);

	ret = quic_server_handshake(self->sfd, PSK_FILE, NULL, NULL);
	if (ret)
		shutdown(self->cfd, SHUT_RDWR);
	pthread_join(th, NULL);
	ASSERT_EQ(0, ret) {
		TH_LOG("server handshake: %s", strerror(-ret));
	}
	ASSERT_EQ(0, c.ret) {
		TH_LOG("client handshake: %s", strerror(-c.ret));
	}
	len = sizeof(key2);
	EXPECT_EQ(0, getopt_err(self->sfd, SOL_QUIC,
				QUIC_SOCKOPT_SESSION_TICKET, key2, &len));
	EXPECT_EQ(64, len);
	EXPECT_EQ(0, memcmp(key, key2, sizeof(key)));
}

/*
 * Server get: 64 bytes, the same for two connections from one client
 * address to one listener; a listener or a closed socket: EPIPE; a buffer
 * smaller than the key: EINVAL.
 */
TEST_F(both, s5_10_session_ticket_server_key)
{
	struct conn_opts o = { .family = variant->family };
	unsigned char k1[128], k2[128];
	socklen_t len1 = sizeof(k1), len2 = sizeof(k2);
	int ret;

	both_open(_metadata, self, variant, &o);
	ret = conn_open(&self->l, &o, &self->cfd2, &self->sfd2);
	ASSERT_EQ(0, ret) {
		TH_LOG("second handshake: %s", strerror(-ret));
	}
	ASSERT_EQ(0, getopt_err(self->sfd, SOL_QUIC,
				QUIC_SOCKOPT_SESSION_TICKET, k1, &len1));
	ASSERT_EQ(0, getopt_err(self->sfd2, SOL_QUIC,
				QUIC_SOCKOPT_SESSION_TICKET, k2, &len2));
	EXPECT_EQ(64, len1);
	EXPECT_EQ(64, len2);
	EXPECT_EQ(0, memcmp(k1, k2, 64));
	len1 = 63;
	EXPECT_EQ(EINVAL, getopt_err(self->sfd, SOL_QUIC,
				     QUIC_SOCKOPT_SESSION_TICKET, k1, &len1));
	len1 = sizeof(k1);
	EXPECT_EQ(EPIPE, getopt_err(self->l.fd, SOL_QUIC,
				    QUIC_SOCKOPT_SESSION_TICKET, k1, &len1));

	close(self->cfd2);
	self->cfd2 = -1;
	ASSERT_TRUE(wait_fd(self->sfd2, POLLRDHUP, TIMEO_MS) & POLLHUP);
	len2 = sizeof(k2);
	EXPECT_EQ(EPIPE, getopt_err(self->sfd2, SOL_QUIC,
				    QUIC_SOCKOPT_SESSION_TICKET, k2, &len2));
}

/* ---- the cipher fixture: one cipher suite offered by both ends ---- */

FIXTURE(cipher) {
	struct lsn l;
	int cfd;
	int sfd;
};

FIXTURE_VARIANT(cipher) {
	int family;
	unsigned int type;		/* TLS_CIPHER_* */
	int gnutls;			/* gnutls_cipher_algorithm_t */
	const char *prio;		/* its GnuTLS priority name */
	bool psk;			/* unused: no PSK here */
};

#define QUIC_FIXTURE		cipher
#define QUIC_VARIANTS_CIPHER
#include "quic_variants.h"

FIXTURE_SETUP(cipher)
{
	self->l.fd = -1;
	self->cfd = -1;
	self->sfd = -1;
	ASSERT_EQ(0, quic_test_make_cert(CERT_FILE, KEY_FILE));
}

FIXTURE_TEARDOWN(cipher)
{
	if (self->cfd >= 0)
		close(self->cfd);
	if (self->sfd >= 0)
		close(self->sfd);
	if (self->l.fd >= 0)
		close(self->l.fd);
	unlink(CERT_FILE);
	unlink(KEY_FILE);
}

static void cipher_open(struct __test_metadata *_metadata,
			CIPHER_DATA *self, struct conn_opts *o)
{
	int ret;

	ret = lsn_open(&self->l, o);
	ASSERT_EQ(0, ret) {
		TH_LOG("listener: %s", strerror(-ret));
	}
	ret = conn_open(&self->l, o, &self->cfd, &self->sfd);
	ASSERT_EQ(0, ret) {
		TH_LOG("handshake: %s", strerror(-ret));
	}
}

/* A server that builds its own GnuTLS session with a ticket key (4.6). */
#define TICKET_PRIO \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:%DISABLE_TLS13_COMPAT_MODE:-CIPHER-ALL"

struct ticket_srv {
	const char *prio;
	int cipher;		/* out: the cipher GnuTLS agreed */
};

static int ticket_server_hs(int fd, void *arg)
{
	gnutls_certificate_credentials_t cred = NULL;
	struct ticket_srv *t = arg;
	gnutls_session_t s = NULL;
	unsigned char key[64];
	socklen_t len = sizeof(key);
	gnutls_datum_t k;
	char prio[256];
	int ret;

	/* 4.2 step 6: the ticket key of this connection, for GnuTLS. */
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, key, &len))
		return -errno;
	if (len != sizeof(key))
		return -EINVAL;
	snprintf(prio, sizeof(prio), "%s:+%s", TICKET_PRIO, t->prio);
	k.data = key;
	k.size = len;
	ret = gnutls_certificate_allocate_credentials(&cred);
	ret = ret ?: gnutls_certificate_set_x509_key_file2(cred, CERT_FILE,
							   KEY_FILE,
							   GNUTLS_X509_FMT_PEM,
							   NULL, 0);
	ret = ret ?: gnutls_init(&s, GNUTLS_SERVER |
					  GNUTLS_NO_AUTO_SEND_TICKET);
	ret = ret ?: gnutls_priority_set_direct(s, prio, NULL);
	ret = ret ?: gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred);
	ret = ret ?: gnutls_session_ticket_enable_server(s, &k);
	if (!ret) {
		gnutls_transport_set_int(s, fd);
		ret = quic_handshake(s);
		t->cipher = gnutls_cipher_get(s);
	} else {
		ret = -EPROTO;
	}
	if (s)
		gnutls_deinit(s);
	if (cred)
		gnutls_certificate_free_credentials(cred);
	return ret;
}

/*
 * Client get after a server with a ticket key completed: the captured
 * NewSessionTicket, also announced as QUIC_EVENT_NEW_SESSION_TICKET with
 * the same bytes, and still there after the peer closed; a smaller buffer
 * is EINVAL.
 *
 * NOTE: this depends on libquic's server sending one NewSessionTicket at
 * the APP level once the handshake completed (4.5, 8.4); at the time of
 * writing tools/lib/quic/handshake.c does it in quic_hs_done() when the
 * session has a ticket key. If that send is missing, this test fails with
 * EAGAIN waiting for the event.
 */
TEST_F(cipher, s5_10_session_ticket_client_get)
{
	struct ticket_srv ts = { .prio = variant->prio };
	struct conn_opts o = { .family = variant->family,
			       .cipher = variant->type, .cert = true,
			       .server_hs = ticket_server_hs, .arg = &ts,
			       .cli.events = EV(QUIC_EVENT_NEW_SESSION_TICKET) };
	static unsigned char buf[4096];
	socklen_t len;
	struct item it;
	size_t tlen;
	int i;

	cipher_open(_metadata, self, &o);
	EXPECT_EQ(variant->gnutls, ts.cipher);
	for (i = 0; i < 100; i++) {
		ASSERT_LE(0, get_item(self->cfd, &it, 0)) {
			TH_LOG("waiting for the ticket: %s", strerror(errno));
		}
		if (is_event(&it, QUIC_EVENT_NEW_SESSION_TICKET))
			break;
	}
	ASSERT_GT(100, i);
	ASSERT_LT(5, it.n);
	tlen = it.n - 1;
	/* One TLS message: NewSessionTicket (4), 24-bit length, body. */
	EXPECT_EQ(4, it.buf[1]);
	EXPECT_EQ(tlen, 4 + ((size_t)it.buf[2] << 16 |
			     (size_t)it.buf[3] << 8 | it.buf[4]));

	len = sizeof(buf);
	ASSERT_EQ(0, getopt_err(self->cfd, SOL_QUIC,
				QUIC_SOCKOPT_SESSION_TICKET, buf, &len));
	ASSERT_EQ(tlen, len);
	EXPECT_EQ(0, memcmp(buf, it.buf + 1, tlen));
	len = tlen - 1;
	EXPECT_EQ(EINVAL, getopt_err(self->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_SESSION_TICKET, buf, &len));

	close(self->sfd);
	self->sfd = -1;
	ASSERT_TRUE(wait_fd(self->cfd, POLLRDHUP, TIMEO_MS) & POLLHUP);
	len = sizeof(buf);
	ASSERT_EQ(0, getopt_err(self->cfd, SOL_QUIC,
				QUIC_SOCKOPT_SESSION_TICKET, buf, &len));
	ASSERT_EQ(tlen, len);
	EXPECT_EQ(0, memcmp(buf, it.buf + 1, tlen));
}

/* The largest datagram (1368 bytes with the peer at 1400) both ways,
 * once each end's path MTU search confirmed packets that carry it.
 */
TEST_F(cipher, s5_5_datagram_largest_both_ways)
{
	struct conn_opts o = { .family = variant->family,
			       .cipher = variant->type, .cert = true,
			       .cli.tp.max_datagram_frame_size = 1400,
			       .srv.tp.max_datagram_frame_size = 1400 };
	static unsigned char buf[1368];
	struct item it;
	size_t i;

	cipher_open(_metadata, self, &o);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i * 7;
	ASSERT_EQ(1368, dgram_deliver(self->cfd, self->sfd, buf, sizeof(buf),
				      &it)) {
		TH_LOG("client to server: %s", strerror(errno));
	}
	EXPECT_TRUE(it.flags & MSG_QUIC_DATAGRAM);
	EXPECT_EQ(0, memcmp(it.buf, buf, sizeof(buf)));
	ASSERT_EQ(1368, dgram_deliver(self->sfd, self->cfd, buf, sizeof(buf),
				      &it)) {
		TH_LOG("server to client: %s", strerror(errno));
	}
	EXPECT_TRUE(it.flags & MSG_QUIC_DATAGRAM);
	EXPECT_EQ(0, memcmp(it.buf, buf, sizeof(buf)));
	EXPECT_EQ(-1, quic_sendmsg(self->cfd, buf, sizeof(buf) + 1, 0,
				   MSG_QUIC_DATAGRAM));
	EXPECT_EQ(EMSGSIZE, errno);
}

/*
 * The minimal client and server of 8.7: the client sends on stream 0 with
 * send(MSG_SYN | MSG_FIN), the server reads it with recv() and answers
 * with send(MSG_SYN | MSG_FIN) on the same stream; after the client's
 * close the server's recv() is ENOTCONN.
 */
TEST_F(cipher, s8_7_minimal_client_server)
{
	struct conn_opts o = { .family = variant->family,
			       .cipher = variant->type, .cert = true };
	char buf[16];
	struct item it;

	cipher_open(_metadata, self, &o);
	ASSERT_EQ(2, send(self->cfd, "hi", 2, MSG_SYN | MSG_FIN));
	ASSERT_EQ(2, recv(self->sfd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "hi", 2));
	ASSERT_EQ(2, send(self->sfd, "ok", 2, MSG_SYN | MSG_FIN));
	ASSERT_EQ(2, get_item(self->cfd, &it, 0));
	EXPECT_EQ(0, it.sid);
	EXPECT_TRUE(it.flags & MSG_QUIC_STREAM_FIN);
	EXPECT_EQ(0, memcmp(it.buf, "ok", 2));
	close(self->cfd);
	self->cfd = -1;
	EXPECT_EQ(-1, recv(self->sfd, buf, sizeof(buf), 0));
	EXPECT_EQ(ENOTCONN, errno);
}

TEST_HARNESS_MAIN
