// SPDX-License-Identifier: GPL-2.0
/*
 * Session resumption and 0-RTT (quic-api.rst 4.3 d, 4.5, 4.6, 5.2 rule
 * 6, 5.10 and the TRANSPORT_PARAM rows of 6).
 *
 * A first connection leaves two things behind: the session data that
 * quic_session_get_data() exports once the server's NewSessionTicket has
 * arrived, and the server's transport parameters (TRANSPORT_PARAM get
 * with remote = 1). The next connection to the same listener sets the
 * parameters with remote = 1 before its handshake, queues stream data
 * within them, imports the session and runs the handshake: the data goes
 * out in 0-RTT packets when both ends enable early data, and in 1-RTT
 * packets when the server does not take it or the client does not offer
 * it. Whatever happens, the server reads every byte.
 *
 * The TLS sessions are built here as section 4.6 tells applications to:
 * X.509 made at test time, the server's ticket key from
 * getsockopt(QUIC_SOCKOPT_SESSION_TICKET), early data with
 * GNUTLS_ENABLE_EARLY_DATA | GNUTLS_NO_END_OF_EARLY_DATA and, on the
 * server, GNUTLS_NO_AUTO_SEND_TICKET and an unlimited early data size.
 *
 * Each test runs in a network namespace of its own, so the 0-RTT
 * counters of /proc/net/quic/snmp count its packets only. Every socket
 * has SO_RCVTIMEO and SO_SNDTIMEO set, so something missing ends a test
 * with EAGAIN; no test asserts how long anything takes.
 */
#define _GNU_SOURCE
#include <errno.h>
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
#include "test_cert.h"

#define CERT_FILE	"/tmp/quic_resume_test.crt"
#define KEY_FILE	"/tmp/quic_resume_test.key"
#define SNMP		"/proc/net/quic/snmp"

/* SO_RCVTIMEO/SO_SNDTIMEO of every socket; the VM is slow. */
#define TIMEO_MS	10000
/* Local max_idle_timeout: a peer that is gone ends a handshake. */
#define IDLE_US		20000000

#define S_NEW		MSG_QUIC_STREAM_NEW
#define S_FIN		MSG_QUIC_STREAM_FIN
#define S_UNI		MSG_QUIC_STREAM_UNI

static long snmp(const char *name)
{
	return proc_value(SNMP, name, 1);
}

/* The counters that moved, for the log of a failed test. */
static void log_snmp(void)
{
	char line[256], name[128];
	long val;
	FILE *f;

	f = fopen(SNMP, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld", name, &val) == 2 && val)
			fprintf(stderr, "# %s %ld\n", name, val);
	fclose(f);
}

/*
 * The UDP datagrams to @port (-1: any) that the lo_sniffer() socket @ps
 * holds: how many, the first 100 logged with their ports, length and
 * first byte (0xc0: Initial, 0xd0: 0-RTT, 0xe0: Handshake, 0x40: 1-RTT;
 * the low bits are protected).
 */
static int sniff_log(int ps, int port)
{
	int count = 0, sport, dport;
	struct sockaddr_ll ll;
	unsigned char b[2048];
	socklen_t len;
	size_t off;
	ssize_t n;

	for (;;) {
		len = sizeof(ll);
		n = recvfrom(ps, b, sizeof(b), MSG_DONTWAIT,
			     (struct sockaddr *)&ll, &len);
		if (n <= 0)
			break;
		/* lo shows each datagram twice: count it once. */
		if (ll.sll_pkttype == PACKET_OUTGOING)
			continue;
		if ((b[0] >> 4) == 4 && b[9] == IPPROTO_UDP)
			off = (b[0] & 0x0f) * 4;
		else if ((b[0] >> 4) == 6 && b[6] == IPPROTO_UDP)
			off = 40;
		else
			continue;
		if ((size_t)n <= off + 8)
			continue;
		sport = (b[off] << 8) | b[off + 1];
		dport = (b[off + 2] << 8) | b[off + 3];
		if (port >= 0 && dport != port)
			continue;
		if (count++ < 100)
			fprintf(stderr, "# udp %d > %d: %zd bytes, 0x%02x\n",
				sport, dport, n - (ssize_t)off - 8,
				b[off + 8]);
	}
	return count;
}

static int set_timeo(int fd)
{
	struct timeval tv = { .tv_sec = TIMEO_MS / 1000,
			      .tv_usec = (TIMEO_MS % 1000) * 1000 };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

static int set_tp(int fd, const struct quic_transport_param *p)
{
	return setopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, p,
			  sizeof(*p));
}

/* TRANSPORT_PARAM get of the local (@remote 0) or the peer's values. */
static int get_tp(int fd, int remote, struct quic_transport_param *p)
{
	socklen_t len = sizeof(*p);

	memset(p, 0, sizeof(*p));
	p->remote = remote;
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, p, &len))
		return errno;
	return len == sizeof(*p) ? 0 : EMSGSIZE;
}

/*
 * Peer parameters as a client would have saved them, with room for
 * @bidi and @uni streams of ours.
 */
static struct quic_transport_param remembered(int bidi, int uni)
{
	struct quic_transport_param p = {
		.remote = 1,
		.active_connection_id_limit = 7,
		.ack_delay_exponent = 3,
		.max_udp_payload_size = 65527,
		.max_idle_timeout = 30000000,
		.max_ack_delay = 25000,
		.max_streams_bidi = bidi,
		.max_streams_uni = uni,
		.max_data = 1048576,
		.max_stream_data_bidi_local = 262144,
		.max_stream_data_bidi_remote = 262144,
		.max_stream_data_uni = 262144,
	};

	return p;
}

/* quic_sendmsg() of @len bytes: 0 if all were queued, else errno. */
static int qsend(int fd, const void *buf, size_t len, int64_t sid,
		 uint32_t flags)
{
	ssize_t n = quic_sendmsg(fd, buf, len, sid, flags);

	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EIO;
}

static int stream_open(int fd, int64_t sid, uint32_t flags)
{
	struct quic_stream_info si = { .stream_id = sid,
				       .stream_flags = flags };
	socklen_t len = sizeof(si);

	return getopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN, &si, &len);
}

static void pattern(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 31 + seed * 101 + (i >> 9));
}

/* ---- reading whole streams ---- */

#define RX_MAX		32768

struct rx {
	int64_t sid;
	size_t len;
	bool fin;
	unsigned char data[RX_MAX];
};

/*
 * Read stream data from @fd until each of the @n streams of @rx (their
 * IDs set) has seen its FIN. Events are skipped. 0, a negative errno, or
 * -EPROTO for data of another stream or after a FIN.
 */
static int read_streams(int fd, struct rx *rx, int n)
{
	static unsigned char buf[4096];
	int i, done = 0, loops;
	uint32_t flags;
	int64_t sid;
	ssize_t len;

	for (loops = 0; done < n && loops < 100000; loops++) {
		flags = 0;
		sid = -1;
		len = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
		if (len < 0)
			return -errno;
		if (flags & (MSG_QUIC_NOTIFICATION | MSG_QUIC_DATAGRAM))
			continue;
		for (i = 0; i < n && rx[i].sid != sid; i++)
			;
		if (i == n || rx[i].fin || rx[i].len + len > RX_MAX)
			return -EPROTO;
		memcpy(rx[i].data + rx[i].len, buf, len);
		rx[i].len += len;
		if (flags & MSG_QUIC_STREAM_FIN) {
			rx[i].fin = true;
			done++;
		}
	}
	return done == n ? 0 : -ETIMEDOUT;
}

/* Wait for QUIC_EVENT_NEW_SESSION_TICKET on @fd: 0 or a negative errno. */
static int wait_ticket(int fd)
{
	static unsigned char buf[4096];
	uint32_t flags;
	int64_t sid;
	ssize_t n;
	int i;

	for (i = 0; i < 1000; i++) {
		flags = 0;
		n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
		if (n < 0)
			return -errno;
		if ((flags & MSG_QUIC_NOTIFICATION) && n > 5 &&
		    buf[0] == QUIC_EVENT_NEW_SESSION_TICKET)
			/* One TLS message: NewSessionTicket is type 4. */
			return buf[1] == 4 ? 0 : -EPROTO;
	}
	return -ETIMEDOUT;
}

/* ---- TLS sessions ---- */

struct tls_opts {
	const char *cipher;	/* the one suite offered; NULL: all four */
	bool early;		/* GNUTLS_ENABLE_EARLY_DATA */
	bool fresh_key;		/* server: a ticket key of its own */
};

static int tls_session(gnutls_session_t *s, bool server,
		       const struct tls_opts *o,
		       gnutls_certificate_credentials_t cred, int fd)
{
	unsigned int flags = GNUTLS_NO_END_OF_EARLY_DATA;
	char prio[sizeof(QUIC_PRIORITY) + 64];
	int ret;

	if (server)
		flags |= GNUTLS_SERVER | GNUTLS_NO_AUTO_SEND_TICKET;
	else
		flags |= GNUTLS_CLIENT;
	if (o->early)
		flags |= GNUTLS_ENABLE_EARLY_DATA;
	snprintf(prio, sizeof(prio), "%s%s%s", QUIC_PRIORITY,
		 o->cipher ? ":-CIPHER-ALL:+" : "",
		 o->cipher ? o->cipher : "");
	ret = gnutls_init(s, flags);
	if (ret) {
		*s = NULL;
		return -ENOMEM;
	}
	ret = gnutls_priority_set_direct(*s, prio, NULL);
	if (!ret)
		ret = gnutls_credentials_set(*s, GNUTLS_CRD_CERTIFICATE, cred);
	if (!ret && server && o->early)
		ret = gnutls_record_set_max_early_data_size(*s, 0xffffffffu);
	if (ret) {
		fprintf(stderr, "# GnuTLS: %s\n", gnutls_strerror(ret));
		gnutls_deinit(*s);
		*s = NULL;
		return -EPROTO;
	}
	gnutls_transport_set_int(*s, fd);
	return 0;
}

/* ---- the environment of one test: a listener and its connections ---- */

struct env {
	int family;
	int lfd;
	struct sockaddr_storage ss;
	socklen_t len;
	gnutls_certificate_credentials_t scred;
	gnutls_certificate_credentials_t ccred;	/* checks nothing */

	/* The connection of the moment. */
	int cfd;
	int sfd;
	gnutls_session_t cs;
	gnutls_session_t srv;
	const struct tls_opts *srv_opts;
	int sret;
	const char *sstep;	/* where the server thread failed */
	int ps;		/* lo_sniffer() of the connection, or -1 */

	/* What the first connection left for the next. */
	unsigned char sdata[4096];
	size_t sdata_len;
	struct quic_transport_param peer_tp;
};

static int env_init(struct env *e, int family)
{
	memset(e, 0, sizeof(*e));
	e->family = family;
	e->lfd = -1;
	e->cfd = -1;
	e->sfd = -1;
	e->ps = -1;
	if (quic_test_make_cert(CERT_FILE, KEY_FILE))
		return -EIO;
	if (gnutls_certificate_allocate_credentials(&e->scred) ||
	    gnutls_certificate_allocate_credentials(&e->ccred))
		return -ENOMEM;
	if (gnutls_certificate_set_x509_key_file2(e->scred, CERT_FILE,
						  KEY_FILE,
						  GNUTLS_X509_FMT_PEM, NULL,
						  0) < 0)
		return -EIO;
	return 0;
}

static void conn_close(struct env *e)
{
	if (e->cfd >= 0)
		close(e->cfd);
	if (e->sfd >= 0)
		close(e->sfd);
	if (e->cs)
		gnutls_deinit(e->cs);
	if (e->srv)
		gnutls_deinit(e->srv);
	if (e->ps >= 0)
		close(e->ps);
	e->cfd = -1;
	e->sfd = -1;
	e->cs = NULL;
	e->srv = NULL;
	e->ps = -1;
}

static void env_fini(struct env *e)
{
	conn_close(e);
	if (e->lfd >= 0)
		close(e->lfd);
	if (e->scred)
		gnutls_certificate_free_credentials(e->scred);
	if (e->ccred)
		gnutls_certificate_free_credentials(e->ccred);
	unlink(CERT_FILE);
	unlink(KEY_FILE);
}

/* A listener on loopback with local parameters @tp (NULL: defaults). */
static int env_listen(struct env *e, const struct quic_transport_param *tp)
{
	struct quic_transport_param idle = { .max_idle_timeout = IDLE_US };
	int err;

	e->lfd = socket(e->family, SOCK_DGRAM, IPPROTO_QUIC);
	if (e->lfd < 0)
		return -errno;
	err = set_tp(e->lfd, tp ? tp : &idle);
	if (err)
		return -err;
	e->len = make_addr(&e->ss, e->family, loopback(e->family), 0);
	if (bind(e->lfd, (struct sockaddr *)&e->ss, e->len) ||
	    getsockname(e->lfd, (struct sockaddr *)&e->ss, &e->len) ||
	    listen(e->lfd, 8))
		return -errno;
	return set_timeo(e->lfd);
}

/* A client socket connected to the listener (ESTABLISHING): the fd. */
static int cli_socket(struct env *e, const struct quic_transport_param *tp)
{
	struct quic_transport_param idle = { .max_idle_timeout = IDLE_US };
	int fd;

	fd = socket(e->family, SOCK_DGRAM, IPPROTO_QUIC);
	if (fd < 0)
		return -errno;
	if (set_tp(fd, tp ? tp : &idle) || set_timeo(fd) ||
	    connect(fd, (struct sockaddr *)&e->ss, e->len)) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int ticket_event(int fd)
{
	struct quic_event_option ev = {
		.type = QUIC_EVENT_NEW_SESSION_TICKET, .on = 1,
	};

	return setopt_err(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev));
}

static int cli_connect(struct env *e, bool ticket)
{
	e->cfd = cli_socket(e, NULL);
	if (e->cfd < 0)
		return e->cfd;
	return ticket ? -ticket_event(e->cfd) : 0;
}

static int srv_session(struct env *e, int fd)
{
	const struct tls_opts *o = e->srv_opts;
	unsigned char key[64];
	socklen_t len = sizeof(key);
	gnutls_datum_t k = { .data = key, .size = sizeof(key) };
	int ret;

	/* 4.2 step 6, or a key the client's ticket was not made with. */
	if (o->fresh_key) {
		if (gnutls_session_ticket_key_generate(&k))
			return -ENOMEM;
	} else if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, key,
			      &len)) {
		return -errno;
	} else if (len != sizeof(key)) {
		return -EINVAL;
	}
	ret = tls_session(&e->srv, true, o, e->scred, fd);
	if (!ret && gnutls_session_ticket_enable_server(e->srv, &k))
		ret = -EPROTO;
	if (o->fresh_key)
		gnutls_free(k.data);
	memset(key, 0, sizeof(key));
	return ret;
}

static void *srv_main(void *p)
{
	struct env *e = p;
	int fd;

	e->sstep = "accept";
	fd = accept(e->lfd, NULL, NULL);
	if (fd < 0) {
		e->sret = -errno;
		return NULL;
	}
	e->sstep = "TLS session";
	e->sret = set_timeo(fd);
	if (!e->sret)
		e->sret = srv_session(e, fd);
	e->sstep = "handshake";
	if (!e->sret)
		e->sret = quic_handshake(e->srv);
	if (e->sret) {
		/* The close tells the client, which would wait for idle. */
		close(fd);
		return NULL;
	}
	e->sfd = fd;
	return NULL;
}

/*
 * The handshake of client socket e->cfd, a server on the next accepted
 * socket in a thread: with @c and @s, the session data of the first
 * connection imported when @resume. 0 with both sessions kept, or a
 * negative errno or GnuTLS code.
 */
static int run_handshake(struct env *e, const struct tls_opts *c,
			 const struct tls_opts *s, bool resume)
{
	pthread_t th;
	int ret;

	e->srv_opts = s;
	e->sret = -EINPROGRESS;
	if (pthread_create(&th, NULL, srv_main, e))
		return -EAGAIN;
	ret = tls_session(&e->cs, false, c, e->ccred, e->cfd);
	if (!ret && resume &&
	    quic_session_set_data(e->cs, e->sdata, e->sdata_len))
		ret = -EPROTO;
	if (!ret)
		ret = quic_handshake(e->cs);
	if (ret)
		shutdown(e->cfd, SHUT_RDWR);	/* ends the server's */
	pthread_join(th, NULL);
	return ret ? ret : e->sret;
}

static void handshake_ok(struct __test_metadata *_metadata, struct env *e,
			 const struct tls_opts *c, const struct tls_opts *s,
			 bool resume)
{
	int ret = run_handshake(e, c, s, resume);

	ASSERT_EQ(0, ret) {
		TH_LOG("handshake: client %d (%s), server %d in %s", ret,
		       strerror(-ret), e->sret, e->sstep);
		log_snmp();
		if (e->ps >= 0)
			sniff_log(e->ps, -1);
	}
}

/*
 * The first connection, server and client with @o: the client waits for
 * the NewSessionTicket, exports the session data and saves the server's
 * transport parameters; then both ends close.
 */
static void first_conn(struct __test_metadata *_metadata, struct env *e,
		       const struct tls_opts *o)
{
	int ret;

	ASSERT_EQ(0, cli_connect(e, true));
	handshake_ok(_metadata, e, o, o, false);
	ret = wait_ticket(e->cfd);
	ASSERT_EQ(0, ret) {
		TH_LOG("no NewSessionTicket: %s", strerror(-ret));
	}
	e->sdata_len = sizeof(e->sdata);
	ret = quic_session_get_data(e->cs, e->sdata, &e->sdata_len);
	ASSERT_EQ(0, ret) {
		TH_LOG("quic_session_get_data: %d", ret);
	}
	ASSERT_LT(0, e->sdata_len);
	ASSERT_EQ(0, get_tp(e->cfd, 1, &e->peer_tp));
	ASSERT_EQ(1, e->peer_tp.remote);
	conn_close(e);
}

/*
 * What the resumed connections send: stream 0 whole with its FIN before
 * the handshake; stream 4 partly before and the rest with the FIN after
 * it; stream 8 (several packets) before and a bare FIN after it.
 */
#define EARLY_STREAMS	3

static const struct {
	int64_t sid;
	size_t before;
	size_t after;
	uint32_t flags;		/* of the send before the handshake */
} early_plan[EARLY_STREAMS] = {
	{ 0, 100, 0, S_NEW | S_FIN },
	{ 4, 3000, 1000, S_NEW },
	{ 8, 16384, 0, S_NEW },
};

static void early_queue(struct __test_metadata *_metadata, int fd)
{
	static unsigned char buf[RX_MAX];
	int i;

	for (i = 0; i < EARLY_STREAMS; i++) {
		pattern(buf, early_plan[i].before + early_plan[i].after, i);
		ASSERT_EQ(0, qsend(fd, buf, early_plan[i].before,
				   early_plan[i].sid, early_plan[i].flags)) {
			TH_LOG("stream %d before the handshake: %s",
			       (int)early_plan[i].sid, strerror(errno));
		}
	}
}

/* The rest, after the handshake: the streams exist, no S_NEW. */
static void early_finish(struct __test_metadata *_metadata, int fd)
{
	static unsigned char buf[RX_MAX];
	size_t b;
	int i;

	for (i = 0; i < EARLY_STREAMS; i++) {
		if (early_plan[i].flags & S_FIN)
			continue;
		b = early_plan[i].before;
		pattern(buf, b + early_plan[i].after, i);
		ASSERT_EQ(0, qsend(fd, buf + b, early_plan[i].after,
				   early_plan[i].sid, S_FIN)) {
			TH_LOG("stream %d after the handshake: %s",
			       (int)early_plan[i].sid, strerror(errno));
		}
	}
}

/* The server reads every stream of the plan, intact. */
static void early_check(struct __test_metadata *_metadata, int fd)
{
	static struct rx rx[EARLY_STREAMS];
	static unsigned char want[RX_MAX];
	size_t len;
	int i;

	int ret;

	memset(rx, 0, sizeof(rx));
	for (i = 0; i < EARLY_STREAMS; i++)
		rx[i].sid = early_plan[i].sid;
	ret = read_streams(fd, rx, EARLY_STREAMS);
	ASSERT_EQ(0, ret) {
		TH_LOG("server reading: %s", strerror(-ret));
	}
	for (i = 0; i < EARLY_STREAMS; i++) {
		len = early_plan[i].before + early_plan[i].after;
		pattern(want, len, i);
		EXPECT_EQ(len, rx[i].len) {
			TH_LOG("stream %d", (int)rx[i].sid);
		}
		EXPECT_EQ(0, memcmp(rx[i].data, want, len)) {
			TH_LOG("stream %d: bytes differ", (int)rx[i].sid);
		}
	}
}

/* The server answers on stream 0 and the client reads it: 1-RTT works. */
static void answer(struct __test_metadata *_metadata, struct env *e)
{
	struct rx *rx = calloc(1, sizeof(*rx));

	ASSERT_NE(NULL, rx);
	ASSERT_EQ(0, qsend(e->sfd, "done", 4, 0, S_FIN));
	rx->sid = 0;
	EXPECT_EQ(0, read_streams(e->cfd, rx, 1));
	EXPECT_EQ(4, rx->len);
	EXPECT_EQ(0, memcmp(rx->data, "done", 4));
	free(rx);
}

static bool early_flag(gnutls_session_t s)
{
	return gnutls_session_get_flags(s) & GNUTLS_SFLAGS_EARLY_DATA;
}

/* A ClientHello from e->cfd, sent with libquic's step API; 0 or -errno. */
static int send_client_hello(struct env *e)
{
	const struct tls_opts o = { 0 };
	struct quic_handshake_step *step = NULL;
	gnutls_session_t s;
	ssize_t n;
	int ret;

	ret = tls_session(&s, false, &o, e->ccred, e->cfd);
	if (ret)
		return ret;
	ret = quic_handshake_init(s, &step);
	if (!ret && (!step || step->op != QUIC_HANDSHAKE_STEP_OP_SENDMSG))
		ret = -EPROTO;
	if (!ret) {
		n = sendmsg(e->cfd, step->s_sendmsg.msg,
			    step->s_sendmsg.flags);
		ret = n < 0 ? -errno : 0;
	}
	quic_handshake_deinit(s);
	gnutls_deinit(s);
	return ret;
}

/* ---- the resume fixture: one test per behaviour, both families ---- */

FIXTURE(resume) {
	struct env e;
};

FIXTURE_VARIANT(resume) {
	int family;
};

#define QUIC_FIXTURE		resume
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(resume)
{
	ASSERT_EQ(0, own_netns()) {
		TH_LOG("network namespace: %s", strerror(errno));
	}
	ASSERT_EQ(0, env_init(&self->e, variant->family));
}

FIXTURE_TEARDOWN(resume)
{
	env_fini(&self->e);
}

static void expect_field(struct __test_metadata *_metadata,
			 const char *name, uint64_t want, uint64_t got)
{
	EXPECT_EQ(want, got) {
		TH_LOG("%s", name);
	}
}

static void expect_tp(struct __test_metadata *_metadata,
		      const struct quic_transport_param *w,
		      const struct quic_transport_param *g)
{
	expect_field(_metadata, "disable_active_migration",
		     w->disable_active_migration, g->disable_active_migration);
	expect_field(_metadata, "stateless_reset", w->stateless_reset,
		     g->stateless_reset);
	expect_field(_metadata, "active_connection_id_limit",
		     w->active_connection_id_limit,
		     g->active_connection_id_limit);
	expect_field(_metadata, "ack_delay_exponent", w->ack_delay_exponent,
		     g->ack_delay_exponent);
	expect_field(_metadata, "max_datagram_frame_size",
		     w->max_datagram_frame_size, g->max_datagram_frame_size);
	expect_field(_metadata, "max_udp_payload_size",
		     w->max_udp_payload_size, g->max_udp_payload_size);
	expect_field(_metadata, "max_idle_timeout", w->max_idle_timeout,
		     g->max_idle_timeout);
	expect_field(_metadata, "max_ack_delay", w->max_ack_delay,
		     g->max_ack_delay);
	expect_field(_metadata, "max_streams_bidi", w->max_streams_bidi,
		     g->max_streams_bidi);
	expect_field(_metadata, "max_streams_uni", w->max_streams_uni,
		     g->max_streams_uni);
	expect_field(_metadata, "max_data", w->max_data, g->max_data);
	expect_field(_metadata, "max_stream_data_bidi_local",
		     w->max_stream_data_bidi_local,
		     g->max_stream_data_bidi_local);
	expect_field(_metadata, "max_stream_data_bidi_remote",
		     w->max_stream_data_bidi_remote,
		     g->max_stream_data_bidi_remote);
	expect_field(_metadata, "max_stream_data_uni", w->max_stream_data_uni,
		     g->max_stream_data_uni);
}

/*
 * a. The first connection: the ticket arrives (event), the session data
 * exports, and TRANSPORT_PARAM with remote = 1 returns, on each end, what
 * the other end set - zeros before the handshake.
 */
TEST_F_TIMEOUT(resume, first_connection_ticket_and_peer_params, 120)
{
	const struct quic_transport_param st = {
		.disable_active_migration = 1,
		.stateless_reset = 1,
		.active_connection_id_limit = 6,
		.ack_delay_exponent = 5,
		.max_datagram_frame_size = 1400,
		.max_udp_payload_size = 1500,
		.max_idle_timeout = IDLE_US,
		.max_ack_delay = 30000,
		.max_streams_bidi = 20,
		.max_streams_uni = 30,
		.max_data = 3000000,
		.max_stream_data_bidi_local = 500000,
		.max_stream_data_bidi_remote = 600000,
		.max_stream_data_uni = 700000,
	};
	const struct quic_transport_param ct = {
		.active_connection_id_limit = 5,
		.ack_delay_exponent = 4,
		.max_datagram_frame_size = 1300,
		.max_udp_payload_size = 1400,
		.max_idle_timeout = IDLE_US - 5000000,
		.max_ack_delay = 20000,
		.max_streams_bidi = 40,
		.max_streams_uni = 50,
		.max_data = 4000000,
		.max_stream_data_bidi_local = 300000,
		.max_stream_data_bidi_remote = 400000,
		.max_stream_data_uni = 800000,
	};
	const struct quic_transport_param zero = { .remote = 1 };
	const struct tls_opts o = { .early = true };
	struct quic_transport_param p;
	struct env *e = &self->e;
	int ret;

	ASSERT_EQ(0, env_listen(e, &st));
	e->cfd = cli_socket(e, &ct);
	ASSERT_LE(0, e->cfd);
	ASSERT_EQ(0, ticket_event(e->cfd));
	ASSERT_EQ(0, get_tp(e->cfd, 1, &p));
	EXPECT_EQ(0, memcmp(&zero, &p, sizeof(p)));
	handshake_ok(_metadata, e, &o, &o, false);

	ASSERT_EQ(0, get_tp(e->cfd, 1, &p));
	EXPECT_EQ(1, p.remote);
	expect_tp(_metadata, &st, &p);
	ASSERT_EQ(0, get_tp(e->sfd, 1, &p));
	EXPECT_EQ(1, p.remote);
	expect_tp(_metadata, &ct, &p);
	/* remote = 0 still selects the local values. */
	ASSERT_EQ(0, get_tp(e->cfd, 0, &p));
	EXPECT_EQ(0, p.remote);
	expect_tp(_metadata, &ct, &p);

	ret = wait_ticket(e->cfd);
	ASSERT_EQ(0, ret) {
		TH_LOG("no NewSessionTicket: %s", strerror(-ret));
	}
	e->sdata_len = sizeof(e->sdata);
	ret = quic_session_get_data(e->cs, e->sdata, &e->sdata_len);
	EXPECT_EQ(0, ret);
	EXPECT_LT(0, e->sdata_len);
}

/* Counters of the namespace, before and after a resumed connection. */
struct zcount {
	long in, out, drop;
};

static void zcount(struct zcount *z)
{
	z->in = snmp("QuicIn0RttPackets");
	z->out = snmp("QuicOut0RttPackets");
	z->drop = snmp("QuicIn0RttDrop");
}

/*
 * Data queued before the handshake of a resumed connection: the client
 * sets the remembered parameters, queues the plan, imports the session
 * and runs the handshake with @c against a server with @s; then sends
 * the rest, the server reads it all and answers.
 */
static void resumed_transfer(struct __test_metadata *_metadata,
			     struct env *e, const struct tls_opts *c,
			     const struct tls_opts *s)
{
	/* What went where, for the log of a failed handshake. */
	e->ps = lo_sniffer();
	ASSERT_EQ(0, cli_connect(e, false));
	ASSERT_EQ(0, set_tp(e->cfd, &e->peer_tp));
	early_queue(_metadata, e->cfd);
	handshake_ok(_metadata, e, c, s, true);
	early_finish(_metadata, e->cfd);
	early_check(_metadata, e->sfd);
	answer(_metadata, e);
}

/*
 * c. The ticket allows early data, the client offers it and sends its
 * queued data in 0-RTT packets, but the server's session does not enable
 * it: resumed, no early data on either end, the server drops the 0-RTT
 * packets and the data arrives in 1-RTT packets.
 */
TEST_F_TIMEOUT(resume, zero_rtt_refused_by_server, 120)
{
	const struct tls_opts early = { .early = true }, plain = { 0 };
	struct env *e = &self->e;
	struct zcount z0, z1;

	ASSERT_EQ(0, env_listen(e, NULL));
	first_conn(_metadata, e, &early);
	zcount(&z0);
	resumed_transfer(_metadata, e, &early, &plain);
	zcount(&z1);
	EXPECT_TRUE(gnutls_session_is_resumed(e->cs));
	EXPECT_TRUE(gnutls_session_is_resumed(e->srv));
	EXPECT_FALSE(early_flag(e->cs));
	EXPECT_FALSE(early_flag(e->srv));
	EXPECT_LT(z0.out, z1.out);
	EXPECT_EQ(z0.in, z1.in);
	EXPECT_LT(z0.drop, z1.drop);
}

/*
 * c. The server's ticket key is not the one the ticket was made with: a
 * full handshake, the 0-RTT packets are dropped, the data still arrives.
 */
TEST_F_TIMEOUT(resume, zero_rtt_with_unknown_ticket_key, 120)
{
	const struct tls_opts early = { .early = true };
	const struct tls_opts other = { .early = true, .fresh_key = true };
	struct env *e = &self->e;
	struct zcount z0, z1;

	ASSERT_EQ(0, env_listen(e, NULL));
	first_conn(_metadata, e, &early);
	zcount(&z0);
	resumed_transfer(_metadata, e, &early, &other);
	zcount(&z1);
	EXPECT_FALSE(gnutls_session_is_resumed(e->cs));
	EXPECT_FALSE(gnutls_session_is_resumed(e->srv));
	EXPECT_FALSE(early_flag(e->cs));
	EXPECT_FALSE(early_flag(e->srv));
	EXPECT_LT(z0.out, z1.out);
	EXPECT_EQ(z0.in, z1.in);
	EXPECT_LT(z0.drop, z1.drop);
}

/*
 * d. A client without early data resumes: no 0-RTT packet at all, and
 * streams work both ways after the handshake.
 */
TEST_F_TIMEOUT(resume, resumed_without_early_data, 120)
{
	const struct tls_opts early = { .early = true }, plain = { 0 };
	struct env *e = &self->e;
	struct rx *rx = calloc(1, sizeof(*rx));
	struct zcount z0, z1;

	ASSERT_NE(NULL, rx);
	ASSERT_EQ(0, env_listen(e, NULL));
	first_conn(_metadata, e, &early);
	zcount(&z0);
	ASSERT_EQ(0, cli_connect(e, false));
	handshake_ok(_metadata, e, &plain, &early, true);
	EXPECT_TRUE(gnutls_session_is_resumed(e->cs));
	EXPECT_TRUE(gnutls_session_is_resumed(e->srv));
	EXPECT_FALSE(early_flag(e->cs));
	EXPECT_FALSE(early_flag(e->srv));

	ASSERT_EQ(0, qsend(e->cfd, "ping", 4, 0, S_NEW | S_FIN));
	rx->sid = 0;
	ASSERT_EQ(0, read_streams(e->sfd, rx, 1));
	EXPECT_EQ(4, rx->len);
	EXPECT_EQ(0, memcmp(rx->data, "ping", 4));
	answer(_metadata, e);
	zcount(&z1);
	EXPECT_EQ(z0.out, z1.out);
	EXPECT_EQ(z0.in, z1.in);
	EXPECT_EQ(z0.drop, z1.drop);
	free(rx);
}

/*
 * d. Data queued before the handshake of a client that offers no early
 * data (so TLS installs no EARLY secret) leaves in 1-RTT packets.
 */
TEST_F_TIMEOUT(resume, queued_without_early_secret_goes_1rtt, 120)
{
	const struct tls_opts early = { .early = true }, plain = { 0 };
	struct env *e = &self->e;
	struct zcount z0, z1;

	ASSERT_EQ(0, env_listen(e, NULL));
	first_conn(_metadata, e, &early);
	zcount(&z0);
	resumed_transfer(_metadata, e, &plain, &early);
	zcount(&z1);
	EXPECT_TRUE(gnutls_session_is_resumed(e->cs));
	EXPECT_FALSE(early_flag(e->cs));
	EXPECT_FALSE(early_flag(e->srv));
	EXPECT_EQ(z0.out, z1.out);
	EXPECT_EQ(z0.in, z1.in);
}

/*
 * e. 5.2 rule 6 before any parameters are known: every open fails with
 * EINVAL; once remote = 1 is set, opens within the limits are queued and
 * nothing is transmitted: no datagram on lo, no request at the listener.
 */
TEST_F(resume, early_send_needs_remembered_params)
{
	const struct quic_transport_param tp = remembered(2, 1);
	struct pollfd pfd;
	struct env *e = &self->e;
	int ps;

	ASSERT_EQ(0, env_listen(e, NULL));
	ps = lo_sniffer();
	ASSERT_LE(0, ps);
	e->cfd = cli_socket(e, NULL);
	ASSERT_LE(0, e->cfd);
	EXPECT_EQ(EINVAL, qsend(e->cfd, "x", 1, 0, S_NEW));
	EXPECT_EQ(EINVAL, qsend(e->cfd, "x", 1, -1, S_NEW | S_FIN));
	EXPECT_EQ(EINVAL, qsend(e->cfd, "x", 1, 2, S_NEW | S_UNI));
	EXPECT_EQ(EINVAL, stream_open(e->cfd, -1, 0));
	EXPECT_EQ(EINVAL, stream_open(e->cfd, 2, S_UNI));

	ASSERT_EQ(0, set_tp(e->cfd, &tp));
	EXPECT_EQ(0, qsend(e->cfd, "early", 5, 0, S_NEW));
	EXPECT_EQ(0, qsend(e->cfd, "early", 5, 2, S_NEW | S_UNI | S_FIN));

	pfd.fd = e->lfd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 500)) {
		TH_LOG("the listener has a request before the handshake");
	}
	EXPECT_EQ(0, sniff_log(ps, addr_port(&e->ss)));
	close(ps);
}

/*
 * e. Beyond the remembered stream limits before the APP send key: EINVAL,
 * never a wait - also with MSG_QUIC_STREAM_DONTWAIT and for STREAM_OPEN.
 */
TEST_F(resume, early_send_beyond_remembered_limit)
{
	const struct quic_transport_param tp = remembered(2, 1);
	struct env *e = &self->e;
	int fd;

	ASSERT_EQ(0, env_listen(e, NULL));
	e->cfd = cli_socket(e, NULL);
	ASSERT_LE(0, e->cfd);
	ASSERT_EQ(0, set_tp(e->cfd, &tp));
	EXPECT_EQ(0, qsend(e->cfd, "a", 1, 0, S_NEW));
	EXPECT_EQ(0, qsend(e->cfd, "b", 1, 4, S_NEW));
	/* Stream 8 would be the third client bidirectional stream. */
	EXPECT_EQ(EINVAL, qsend(e->cfd, "c", 1, 8, S_NEW));
	EXPECT_EQ(EINVAL, qsend(e->cfd, "c", 1, 8,
				S_NEW | MSG_QUIC_STREAM_DONTWAIT));
	EXPECT_EQ(EINVAL, stream_open(e->cfd, -1, 0));
	EXPECT_EQ(EINVAL, stream_open(e->cfd, 8, 0));
	EXPECT_EQ(0, qsend(e->cfd, "u", 1, 2, S_NEW | S_UNI));
	EXPECT_EQ(EINVAL, qsend(e->cfd, "v", 1, 6, S_NEW | S_UNI));
	/* The streams within the limits still take data. */
	EXPECT_EQ(0, qsend(e->cfd, "a", 1, 0, S_FIN));
	EXPECT_EQ(0, qsend(e->cfd, "b", 1, 4, 0));

	/* Straight to stream 8 on a fresh socket: above the highest ID. */
	fd = cli_socket(e, NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_tp(fd, &tp));
	EXPECT_EQ(EINVAL, qsend(fd, "c", 1, 8, S_NEW));
	EXPECT_EQ(0, qsend(fd, "b", 1, 4, S_NEW));
	close(fd);
}

/*
 * e. remote = 1 is set only in ESTABLISHING: EINVAL on a socket that was
 * never connected, on a listener and on both ends of a connection.
 */
TEST_F_TIMEOUT(resume, remembered_params_only_while_establishing, 60)
{
	const struct quic_transport_param tp = remembered(10, 10);
	const struct tls_opts o = { 0 };
	struct env *e = &self->e;
	int fd;

	ASSERT_EQ(0, env_listen(e, NULL));
	fd = socket(e->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, set_tp(fd, &tp));
	close(fd);
	EXPECT_EQ(EINVAL, set_tp(e->lfd, &tp));

	ASSERT_EQ(0, cli_connect(e, false));
	EXPECT_EQ(0, set_tp(e->cfd, &tp));
	handshake_ok(_metadata, e, &o, &o, false);
	EXPECT_EQ(EINVAL, set_tp(e->cfd, &tp));
	EXPECT_EQ(EINVAL, set_tp(e->sfd, &tp));
}

/*
 * e. An EARLY secret is installed by a client for sending and by a
 * server for receiving; the other direction is EINVAL (4.3 d).
 */
TEST_F(resume, early_secret_direction)
{
	struct quic_crypto_secret s = { .level = QUIC_CRYPTO_EARLY,
					.type = TLS_CIPHER_AES_GCM_128 };
	struct env *e = &self->e;

	pattern(s.secret, 32, 7);
	ASSERT_EQ(0, env_listen(e, NULL));
	e->cfd = cli_socket(e, NULL);
	ASSERT_LE(0, e->cfd);
	s.send = 0;
	EXPECT_EQ(EINVAL, setopt_err(e->cfd, SOL_QUIC,
				     QUIC_SOCKOPT_CRYPTO_SECRET, &s,
				     sizeof(s)));

	/* A server in ESTABLISHING: the ClientHello made it accept. */
	ASSERT_EQ(0, send_client_hello(e));
	e->sfd = accept(e->lfd, NULL, NULL);
	ASSERT_LE(0, e->sfd) {
		TH_LOG("accept: %s", strerror(errno));
	}
	s.send = 1;
	EXPECT_EQ(EINVAL, setopt_err(e->sfd, SOL_QUIC,
				     QUIC_SOCKOPT_CRYPTO_SECRET, &s,
				     sizeof(s)));

	/* The right directions are taken. */
	s.send = 1;
	EXPECT_EQ(0, setopt_err(e->cfd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET,
				&s, sizeof(s)));
	s.send = 0;
	EXPECT_EQ(0, setopt_err(e->sfd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET,
				&s, sizeof(s)));
}

/*
 * e. remote = 1 values are checked like local ones (section 6): one bad
 * field is EINVAL with nothing applied; stream counts above 4096 are
 * clamped, not refused.
 */
TEST_F(resume, remembered_params_validated)
{
	struct quic_transport_param bad[6], p;
	struct env *e = &self->e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		bad[i] = remembered(10, 10);
	bad[0].max_udp_payload_size = 1000;
	bad[1].ack_delay_exponent = 21;
	bad[2].active_connection_id_limit = 1;
	bad[3].max_idle_timeout = 999999;
	bad[4].max_datagram_frame_size = 1199;
	bad[5].max_ack_delay = 16384000;

	ASSERT_EQ(0, env_listen(e, NULL));
	e->cfd = cli_socket(e, NULL);
	ASSERT_LE(0, e->cfd);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, set_tp(e->cfd, &bad[i])) {
			TH_LOG("bad struct %zu taken", i);
		}
	}
	/* Nothing was applied: no limits, no peer values. */
	EXPECT_EQ(EINVAL, qsend(e->cfd, "x", 1, 0, S_NEW));
	ASSERT_EQ(0, get_tp(e->cfd, 1, &p));
	EXPECT_EQ(0, p.max_streams_bidi);
	EXPECT_EQ(0, p.max_data);

	p = remembered(5000, 4097);
	EXPECT_EQ(0, set_tp(e->cfd, &p));
	ASSERT_EQ(0, get_tp(e->cfd, 1, &p));
	EXPECT_EQ(4096, p.max_streams_bidi);
	EXPECT_EQ(4096, p.max_streams_uni);
	EXPECT_EQ(1048576, p.max_data);
	EXPECT_EQ(0, qsend(e->cfd, "x", 1, 0, S_NEW));
}

/* ---- the zero_rtt fixture: 0-RTT taken, per family and cipher ---- */

FIXTURE(zero_rtt) {
	struct env e;
};

FIXTURE_VARIANT(zero_rtt) {
	int family;
	unsigned int type;	/* TLS_CIPHER_*, unused */
	const char *prio;	/* GnuTLS priority name */
	int gnutls;		/* gnutls_cipher_algorithm_t */
	bool psk;		/* unused */
};

#define QUIC_FIXTURE		zero_rtt
#define QUIC_VARIANTS_CIPHER
#include "quic_variants.h"

FIXTURE_SETUP(zero_rtt)
{
	ASSERT_EQ(0, own_netns()) {
		TH_LOG("network namespace: %s", strerror(errno));
	}
	ASSERT_EQ(0, env_init(&self->e, variant->family));
}

FIXTURE_TEARDOWN(zero_rtt)
{
	env_fini(&self->e);
}

/*
 * b. Both ends enable early data: the queued streams leave in 0-RTT
 * packets, the server takes them (GNUTLS_SFLAGS_EARLY_DATA on both ends)
 * and reads them once its handshake is done, the rest after it.
 */
TEST_F_TIMEOUT(zero_rtt, accepted, 120)
{
	const struct tls_opts o = { .cipher = variant->prio, .early = true };
	struct env *e = &self->e;
	struct zcount z0, z1;

	ASSERT_EQ(0, env_listen(e, NULL));
	first_conn(_metadata, e, &o);
	zcount(&z0);
	resumed_transfer(_metadata, e, &o, &o);
	zcount(&z1);
	EXPECT_TRUE(gnutls_session_is_resumed(e->cs));
	EXPECT_TRUE(gnutls_session_is_resumed(e->srv));
	EXPECT_TRUE(early_flag(e->cs));
	EXPECT_TRUE(early_flag(e->srv));
	EXPECT_EQ(variant->gnutls, gnutls_cipher_get(e->cs));
	EXPECT_EQ(variant->gnutls, gnutls_cipher_get(e->srv));
	EXPECT_LT(z0.out, z1.out) {
		TH_LOG("QuicOut0RttPackets %ld -> %ld", z0.out, z1.out);
	}
	EXPECT_LT(z0.in, z1.in) {
		TH_LOG("QuicIn0RttPackets %ld -> %ld", z0.in, z1.in);
	}
}

TEST_HARNESS_MAIN
