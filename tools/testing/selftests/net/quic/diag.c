// SPDX-License-Identifier: GPL-2.0
/*
 * Listing QUIC sockets: getsockopt(QUIC_SOCKOPT_INFO), the sock_diag dump
 * of quic_diag.ko and its filters, dump-one by cookie, tools/quic/ss's
 * quic-ss, and /proc/net/quic/conns and eps. Every test runs in a network
 * namespace of its own, on both families, with a listener and two
 * connections it accepted: five QUIC sockets, the only ones listed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/quic.h>

#include "kselftest_harness.h"
#include "quic_common.h"
#include "quic_conn_common.h"

#define PSK_FILE	"/tmp/quic_diag_test.psk"
#define NCONN		2
#define ST_ESTABLISHED	1
#define ST_LISTEN	10
#define ALL_STATES	0xffffffffU

struct diag_ent {
	int family;
	int state;
	int sport;
	int dport;
	uint64_t cookie;
	int has_info;
	int has_cids;
	struct quic_info info;
};

struct diag_req {
	struct nlmsghdr nlh;
	struct inet_diag_req_v2 r;
	unsigned char attrs[64];
};

static void diag_attr(struct diag_req *q, int type, const void *d, int len)
{
	struct nlattr *a = (void *)((char *)q + NLMSG_ALIGN(q->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, d, len);
	q->nlh.nlmsg_len = NLMSG_ALIGN(q->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* What a request carries besides family and states. */
struct diag_how {
	int sport;		/* a bytecode filter on it, unless -1 */
	int bad_proto;		/* INET_DIAG_REQ_PROTOCOL of 2 bytes */
	int bad_bc;		/* bytecode whose jump is 0 */
	uint64_t cookie;	/* not 0: dump one, this socket */
};

/*
 * A sock_diag request for QUIC sockets; the sockets it returns in @e (at
 * most @max). Returns their number, or a negative errno.
 */
static int diag(int family, unsigned int states, const struct diag_how *how,
		struct diag_ent *e, int max)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	static char buf[32768];
	uint32_t proto = IPPROTO_QUIC;
	int fd, n = 0, done = 0;
	struct diag_req q;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(q.r));
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nlh.nlmsg_flags = NLM_F_REQUEST | (how->cookie ? 0 : NLM_F_DUMP);
	q.r.sdiag_family = family;
	q.r.idiag_states = states;
	q.r.idiag_ext = 1 << (INET_DIAG_INFO - 1);
	if (how->cookie) {
		q.r.id.idiag_cookie[0] = (uint32_t)how->cookie;
		q.r.id.idiag_cookie[1] = (uint32_t)(how->cookie >> 32);
	}
	diag_attr(&q, INET_DIAG_REQ_PROTOCOL, &proto, how->bad_proto ? 2 : 4);
	if (how->sport >= 0 || how->bad_bc) {
		struct {
			struct inet_diag_bc_op op;
			struct inet_diag_hostcond c;
		} bc;

		memset(&bc, 0, sizeof(bc));
		bc.op.code = INET_DIAG_BC_S_COND;
		bc.op.yes = how->bad_bc ? 0 : sizeof(bc);
		bc.op.no = sizeof(bc) + 4;
		bc.c.family = AF_UNSPEC;
		bc.c.port = how->sport;
		diag_attr(&q, INET_DIAG_REQ_BYTECODE, &bc, sizeof(bc));
	}
	if (sendto(fd, &q, q.nlh.nlmsg_len, 0, (struct sockaddr *)&nl,
		   sizeof(nl)) < 0) {
		n = -errno;
		goto out;
	}
	while (!done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (len <= 0) {
			n = len ? -errno : n;
			break;
		}
		for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			struct inet_diag_msg *r = NLMSG_DATA(h);
			struct nlattr *a;
			int rem;

			if (h->nlmsg_type == NLMSG_DONE) {
				/* A dump that failed: its errno here. */
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) &&
				    *(int *)NLMSG_DATA(h) < 0)
					n = *(int *)NLMSG_DATA(h);
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *err = NLMSG_DATA(h);

				if (err->error)
					n = err->error;
				done = 1;
				break;
			}
			if (n >= max)
				continue;
			memset(&e[n], 0, sizeof(e[n]));
			e[n].family = r->idiag_family;
			e[n].state = r->idiag_state;
			e[n].sport = ntohs(r->id.idiag_sport);
			e[n].dport = ntohs(r->id.idiag_dport);
			e[n].cookie = r->id.idiag_cookie[0] |
				      (uint64_t)r->id.idiag_cookie[1] << 32;
			rem = h->nlmsg_len - NLMSG_LENGTH(sizeof(*r));
			a = (void *)((char *)r + NLMSG_ALIGN(sizeof(*r)));
			while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= rem) {
				int dl = a->nla_len - NLA_HDRLEN;
				void *d = (char *)a + NLA_HDRLEN;

				if (a->nla_type == INET_DIAG_INFO &&
				    dl >= (int)sizeof(struct quic_info)) {
					e[n].has_info = 1;
					memcpy(&e[n].info, d, sizeof(e[n].info));
				}
				if (a->nla_type == QUIC_DIAG_CIDS &&
				    dl >= (int)sizeof(struct quic_diag_cids))
					e[n].has_cids = ((struct quic_diag_cids *)
							 d)->scid_len > 0;
				rem -= NLA_ALIGN(a->nla_len);
				a = (void *)((char *)a + NLA_ALIGN(a->nla_len));
			}
			n++;
		}
		if (how->cookie && n)
			done = 1;
	}
out:
	close(fd);
	return n;
}

static const struct diag_how dump_all = { .sport = -1 };

static uint64_t cookie_of(int fd)
{
	uint64_t c = 0;
	socklen_t len = sizeof(c);

	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c, &len))
		return 0;
	return c;
}

static const struct diag_ent *find_cookie(const struct diag_ent *e, int n,
					  uint64_t cookie)
{
	int i;

	for (i = 0; i < n; i++)
		if (e[i].cookie == cookie)
			return &e[i];
	return NULL;
}

/* The text of a file or command output, NUL-terminated, in @buf. */
static int slurp(FILE *f, char *buf, size_t size)
{
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	return 0;
}

/* Lines of @text containing @needle. */
static int count_lines(const char *text, const char *needle)
{
	const char *p = text;
	int n = 0;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (memmem(p, len, needle, strlen(needle)))
			n++;
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

FIXTURE(diag) {
	int lfd;
	int port;
	int cfd[NCONN];
	int sfd[NCONN];
	int cport[NCONN];
};

FIXTURE_VARIANT(diag) {
	int family;
};

#define QUIC_FIXTURE		diag
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(diag)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int i;

	for (i = 0; i < NCONN; i++) {
		self->cfd[i] = -1;
		self->sfd[i] = -1;
	}
	ASSERT_EQ(0, own_netns()) {
		TH_LOG("network namespace: %s", strerror(errno));
	}
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	self->lfd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);
	ASSERT_LE(0, self->lfd);
	len = make_addr(&ss, variant->family, loopback(variant->family), 0);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(self->lfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(0, listen(self->lfd, 4));
	self->port = addr_port(&ss);
	for (i = 0; i < NCONN; i++) {
		struct quic_pair_server a = { .psk = PSK_FILE, .lfd = self->lfd,
					      .fd = -1 };
		pthread_t th;
		int ret;

		self->cfd[i] = socket(variant->family, SOCK_DGRAM,
				      IPPROTO_QUIC);
		ASSERT_LE(0, self->cfd[i]);
		ASSERT_EQ(0, pthread_create(&th, NULL, quic_pair_server_main,
					    &a));
		ret = connect(self->cfd[i], (struct sockaddr *)&ss, len);
		if (!ret)
			ret = quic_client_handshake(self->cfd[i], PSK_FILE,
						    NULL, NULL);
		if (ret)
			shutdown(self->lfd, SHUT_RDWR);
		pthread_join(th, NULL);
		self->sfd[i] = a.fd;
		ASSERT_EQ(0, ret);
		ASSERT_EQ(0, a.ret);
		self->cport[i] = local_port(self->cfd[i]);
	}
}

FIXTURE_TEARDOWN(diag)
{
	int i;

	for (i = 0; i < NCONN; i++) {
		if (self->cfd[i] >= 0)
			close(self->cfd[i]);
		if (self->sfd[i] >= 0)
			close(self->sfd[i]);
	}
	close(self->lfd);
	unlink(PSK_FILE);
}

static void check_info(struct __test_metadata *_metadata,
		       const struct quic_info *i)
{
	EXPECT_EQ(QUIC_INFO_VERSION, i->qi_version);
	EXPECT_EQ(ST_ESTABLISHED, i->qi_state);
	EXPECT_EQ(1, i->qi_quic_version);
	EXPECT_NE(0, i->qi_cipher);
	EXPECT_LT(0, i->qi_pkts_sent);
	EXPECT_LT(0, i->qi_pkts_rcvd);
	EXPECT_LT(0, i->qi_bytes_sent);
	EXPECT_LT(0, i->qi_srtt_us);
	EXPECT_LT(0, i->qi_cwnd);
}

/* QUIC_SOCKOPT_INFO at both ends, full and short, and its bad input. */
TEST_F(diag, sockopt_info)
{
	struct quic_info info;
	socklen_t len;
	int fds[2] = { self->cfd[0], self->sfd[0] }, i;

	for (i = 0; i < 2; i++) {
		memset(&info, 0xa5, sizeof(info));
		len = sizeof(info);
		ASSERT_EQ(0, getsockopt(fds[i], SOL_QUIC, QUIC_SOCKOPT_INFO,
					&info, &len));
		EXPECT_EQ(sizeof(info), len);
		check_info(_metadata, &info);
		EXPECT_EQ(i, info.qi_is_server);
	}
	/* A short buffer: the start of the struct, optlen as filled. */
	memset(&info, 0xa5, sizeof(info));
	len = 8;
	ASSERT_EQ(0, getsockopt(self->cfd[0], SOL_QUIC, QUIC_SOCKOPT_INFO,
				&info, &len));
	EXPECT_EQ(8, len);
	EXPECT_EQ(QUIC_INFO_VERSION, info.qi_version);
	EXPECT_EQ(ST_ESTABLISHED, info.qi_state);
	EXPECT_EQ(0xa5a5a5a5, info.qi_cipher);	/* beyond optlen: untouched */
	/* A listener: version and state, no connection. */
	len = sizeof(info);
	ASSERT_EQ(0, getsockopt(self->lfd, SOL_QUIC, QUIC_SOCKOPT_INFO,
				&info, &len));
	EXPECT_EQ(ST_LISTEN, info.qi_state);
	EXPECT_EQ(0, info.qi_pkts_sent);
	/* Bad input. */
	len = -1;
	EXPECT_EQ(-1, getsockopt(self->cfd[0], SOL_QUIC, QUIC_SOCKOPT_INFO,
				 &info, &len));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->cfd[0], SOL_QUIC, QUIC_SOCKOPT_INFO,
				 &info, sizeof(info)));
	EXPECT_EQ(ENOPROTOOPT, errno);
}

/* The dump lists the five sockets, with their ports, states, cookies. */
TEST_F(diag, dump)
{
	struct diag_ent e[16];
	const struct diag_ent *d;
	int n, i, other;

	n = diag(variant->family, ALL_STATES, &dump_all, e, 16);
	if (n == -ENOENT)
		SKIP(return, "no quic_diag");
	ASSERT_EQ(1 + 2 * NCONN, n);
	d = find_cookie(e, n, cookie_of(self->lfd));
	ASSERT_NE(NULL, d);
	EXPECT_EQ(ST_LISTEN, d->state);
	EXPECT_EQ(self->port, d->sport);
	EXPECT_EQ(variant->family, d->family);
	EXPECT_TRUE(d->has_info);
	for (i = 0; i < NCONN; i++) {
		d = find_cookie(e, n, cookie_of(self->sfd[i]));
		ASSERT_NE(NULL, d);
		EXPECT_EQ(ST_ESTABLISHED, d->state);
		EXPECT_EQ(self->port, d->sport);
		EXPECT_EQ(self->cport[i], d->dport);
		EXPECT_TRUE(d->has_cids);
		ASSERT_TRUE(d->has_info);
		check_info(_metadata, &d->info);
		EXPECT_EQ(1, d->info.qi_is_server);
		d = find_cookie(e, n, cookie_of(self->cfd[i]));
		ASSERT_NE(NULL, d);
		EXPECT_EQ(ST_ESTABLISHED, d->state);
		EXPECT_EQ(self->cport[i], d->sport);
		EXPECT_EQ(self->port, d->dport);
		EXPECT_TRUE(d->has_cids);
		ASSERT_TRUE(d->has_info);
		check_info(_metadata, &d->info);
		EXPECT_EQ(0, d->info.qi_is_server);
	}
	/* The other family has none of them. */
	other = variant->family == AF_INET ? AF_INET6 : AF_INET;
	EXPECT_EQ(0, diag(other, ALL_STATES, &dump_all, e, 16));
}

/* The state filter and the port filter narrow the dump; one by cookie. */
TEST_F(diag, filters)
{
	struct diag_how how = { .sport = self->port };
	struct diag_ent e[16];
	int n, i;

	n = diag(variant->family, 1U << ST_LISTEN, &dump_all, e, 16);
	if (n == -ENOENT)
		SKIP(return, "no quic_diag");
	ASSERT_EQ(1, n);
	EXPECT_EQ(cookie_of(self->lfd), e[0].cookie);
	/* The listener's port: the listener and what it accepted. */
	n = diag(variant->family, ALL_STATES, &how, e, 16);
	ASSERT_EQ(1 + NCONN, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(self->port, e[i].sport);
	/* Both filters: the listener alone. */
	n = diag(variant->family, 1U << ST_LISTEN, &how, e, 16);
	EXPECT_EQ(1, n);
	/* A client's port: that client alone. */
	how.sport = self->cport[1];
	n = diag(variant->family, 1U << ST_ESTABLISHED, &how, e, 16);
	ASSERT_EQ(1, n);
	EXPECT_EQ(cookie_of(self->cfd[1]), e[0].cookie);
	/* Dump one, by cookie. */
	how.sport = -1;
	how.cookie = cookie_of(self->sfd[1]);
	n = diag(variant->family, ALL_STATES, &how, e, 16);
	ASSERT_EQ(1, n);
	EXPECT_EQ(how.cookie, e[0].cookie);
	EXPECT_EQ(self->cport[1], e[0].dport);
	how.cookie = 12345;	/* no such socket */
	EXPECT_EQ(-ENOENT, diag(variant->family, ALL_STATES, &how, e, 16));
}

/* Bad requests get an error, and the next request works. */
TEST_F(diag, bad_requests)
{
	struct diag_how how = { .sport = -1, .bad_proto = 1 };
	struct diag_ent e[16];

	EXPECT_EQ(-EINVAL, diag(variant->family, ALL_STATES, &how, e, 16));
	how.bad_proto = 0;
	how.bad_bc = 1;
	EXPECT_EQ(-EINVAL, diag(variant->family, ALL_STATES, &how, e, 16));
	how.bad_bc = 0;
	how.cookie = 0;
	if (diag(variant->family, ALL_STATES, &dump_all, e, 16) == -ENOENT)
		SKIP(return, "no quic_diag");
	EXPECT_EQ(1 + 2 * NCONN, diag(variant->family, ALL_STATES, &dump_all,
				      e, 16));
}

/* /proc/net/quic/eps and conns list them. */
TEST_F(diag, proc)
{
	char text[8192], port[16];
	int i;

	snprintf(port, sizeof(port), ":%d ", self->port);
	ASSERT_EQ(0, slurp(fopen("/proc/net/quic/eps", "r"), text,
			   sizeof(text)));
	EXPECT_EQ(0, strncmp(text, "local_address", 13));
	EXPECT_EQ(1, count_lines(text, port)) {
		TH_LOG("eps:\n%s", text);
	}
	ASSERT_EQ(0, slurp(fopen("/proc/net/quic/conns", "r"), text,
			   sizeof(text)));
	EXPECT_EQ(0, strncmp(text, "local_address", 13));
	EXPECT_EQ(1 + 2 * NCONN, count_lines(text, ""));	/* every line */
	TH_LOG("conns:\n%s", text);
	EXPECT_EQ(2 * NCONN, count_lines(text, " ESTABLISHED ")) {
		TH_LOG("conns:\n%s", text);
	}
	for (i = 0; i < NCONN; i++) {
		snprintf(port, sizeof(port), ":%d ", self->cport[i]);
		EXPECT_EQ(2, count_lines(text, port)) {
			TH_LOG("conns:\n%s", text);
		}
	}
}

/* quic-ss (tools/quic/ss) lists the listener and what it accepted. */
TEST_F(diag, quic_ss)
{
	char exe[PATH_MAX], cmd[PATH_MAX + 64], text[8192], port[16];
	ssize_t len;
	FILE *f;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, len);
	exe[len] = '\0';
	snprintf(cmd, sizeof(cmd), "%s/../../../../quic/ss/quic-ss",
		 dirname(exe));
	if (access(cmd, X_OK))
		SKIP(return, "quic-ss not built");
	if (diag(variant->family, ALL_STATES, &dump_all, NULL, 0) == -ENOENT)
		SKIP(return, "no quic_diag");
	strcat(cmd, " -l -e");
	f = popen(cmd, "r");
	ASSERT_EQ(0, slurp(f, text, sizeof(text)));
	ASSERT_EQ(0, pclose(f));
	snprintf(port, sizeof(port), ":%d ", self->port);
	EXPECT_EQ(1, count_lines(text, "LISTEN")) {
		TH_LOG("quic-ss -l:\n%s", text);
	}
	EXPECT_EQ(1, count_lines(text, port));
	/* Connections on the listener's port: those it accepted. */
	snprintf(cmd + strlen(cmd) - strlen(" -l -e"), 64, " -i --sport %d",
		 self->port);
	f = popen(cmd, "r");
	ASSERT_EQ(0, slurp(f, text, sizeof(text)));
	ASSERT_EQ(0, pclose(f));
	EXPECT_EQ(NCONN, count_lines(text, "ESTAB")) {
		TH_LOG("quic-ss:\n%s", text);
	}
	EXPECT_EQ(NCONN, count_lines(text, "srtt:"));
	TH_LOG("%s:\n%s", cmd, text);
	EXPECT_EQ(0, count_lines(text, "LISTEN"));
}

TEST_HARNESS_MAIN
