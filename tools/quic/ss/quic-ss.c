// SPDX-License-Identifier: GPL-2.0
/*
 * quic-ss: list the QUIC sockets of this network namespace, as ss(8) does
 * TCP's, through the sock_diag interface of quic_diag.ko. One line per
 * socket: state, receive and send queues, local and peer address.
 *
 *   quic-ss [-l | -a] [-4 | -6] [-e] [-i] [--sport N] [--dport N]
 *
 *   (none)	connections (every state but LISTEN and CLOSE)
 *   -l		listeners only
 *   -a		every socket
 *   -4, -6	one address family only
 *   -e		uid, inode and cookie
 *   -i		connection IDs and struct quic_info: RTT, window, packets
 *   --sport N	local port N (an inet_diag bytecode filter in the kernel)
 *   --dport N	peer port N (a QUIC socket's peer is not in its inet
 *		fields, which the kernel filter sees: matched here)
 *
 * Exits 0 when the dumps succeeded, 1 on an error: quic_diag not
 * available (not built, or not loadable) is named as such.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/quic.h>

#define TCPF(s)		(1U << (s))
/* The TCP states a QUIC socket takes (<netinet/tcp.h> numbering). */
enum {
	ST_ESTABLISHED = 1,
	ST_SYN_SENT = 2,
	ST_SYN_RECV = 3,
	ST_CLOSE = 7,
	ST_LISTEN = 10,
};

static const char *state_name(int st)
{
	switch (st) {
	case ST_ESTABLISHED: return "ESTAB";
	case ST_SYN_SENT: return "SYN-SENT";
	case ST_SYN_RECV: return "SYN-RECV";
	case ST_CLOSE: return "UNCONN";
	case ST_LISTEN: return "LISTEN";
	}
	return "UNKNOWN";
}

struct opts {
	unsigned int states;
	int family;		/* 0: both */
	int ext;		/* -e */
	int info;		/* -i */
	int sport;		/* -1: any */
	int dport;
};

struct req {
	struct nlmsghdr nlh;
	struct inet_diag_req_v2 r;
	unsigned char attrs[64];
};

/* Append attribute @type to @q; the message length grows. */
static void put_attr(struct req *q, int type, const void *data, int len)
{
	struct nlattr *a = (void *)((char *)q + NLMSG_ALIGN(q->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	q->nlh.nlmsg_len = NLMSG_ALIGN(q->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Bytecode: local port == @port. */
static void put_sport(struct req *q, int port)
{
	struct {
		struct inet_diag_bc_op op;
		struct inet_diag_hostcond cond;
	} bc;

	memset(&bc, 0, sizeof(bc));
	bc.op.code = INET_DIAG_BC_S_COND;
	bc.op.yes = sizeof(bc);
	bc.op.no = sizeof(bc) + 4;	/* past the end: rejected */
	bc.cond.family = AF_UNSPEC;
	bc.cond.prefix_len = 0;
	bc.cond.port = port;
	put_attr(q, INET_DIAG_REQ_BYTECODE, &bc, sizeof(bc));
}

static void print_addr(int family, const __u32 *addr, __u16 port)
{
	char buf[INET6_ADDRSTRLEN], col[INET6_ADDRSTRLEN + 16];
	static const __u32 zero[4];

	if (!memcmp(addr, zero, family == AF_INET ? 4 : 16))
		strcpy(buf, "*");
	else
		inet_ntop(family, addr, buf, sizeof(buf));
	if (port)
		snprintf(col, sizeof(col), family == AF_INET6 && buf[0] != '*' ?
			 "[%s]:%u" : "%s:%u", buf, ntohs(port));
	else
		snprintf(col, sizeof(col), "%s:*", buf);
	printf(" %-45s", col);
}

static void print_hex(const char *name, const __u8 *b, int len)
{
	int i;

	printf(" %s:", name);
	if (!len)
		printf("-");
	for (i = 0; i < len; i++)
		printf("%02x", b[i]);
}

static void print_info(const struct quic_info *q, unsigned int len)
{
	struct quic_info i = { 0 };

	memcpy(&i, q, len < sizeof(i) ? len : sizeof(i));
	printf(" ver:%#x cipher:%u%s", i.qi_quic_version, i.qi_cipher,
	       i.qi_is_server ? " server" : "");
	printf(" srtt:%.3fms rttvar:%.3fms minrtt:%.3fms",
	       i.qi_srtt_us / 1000.0, i.qi_rttvar_us / 1000.0,
	       i.qi_min_rtt_us / 1000.0);
	printf(" cwnd:%llu ssthresh:%lld inflight:%llu pmtu:%u",
	       (unsigned long long)i.qi_cwnd, (long long)i.qi_ssthresh,
	       (unsigned long long)i.qi_bytes_in_flight, i.qi_pmtu);
	printf(" pkts_sent:%llu bytes_sent:%llu",
	       (unsigned long long)i.qi_pkts_sent,
	       (unsigned long long)i.qi_bytes_sent);
	printf(" pkts_rcvd:%llu bytes_rcvd:%llu",
	       (unsigned long long)i.qi_pkts_rcvd,
	       (unsigned long long)i.qi_bytes_rcvd);
	printf(" pkts_lost:%llu retrans:%llu ptos:%llu streams:%u/%u",
	       (unsigned long long)i.qi_pkts_lost,
	       (unsigned long long)i.qi_pkts_retrans,
	       (unsigned long long)i.qi_ptos, i.qi_streams_bidi,
	       i.qi_streams_uni);
}

static void print_msg(const struct opts *o, struct nlmsghdr *h)
{
	struct inet_diag_msg *r = NLMSG_DATA(h);
	struct quic_diag_cids *cids = NULL;
	struct quic_info *info = NULL;
	unsigned int info_len = 0;
	struct nlattr *a;
	int rem;

	if (o->dport >= 0 && ntohs(r->id.idiag_dport) != o->dport)
		return;
	rem = h->nlmsg_len - NLMSG_LENGTH(sizeof(*r));
	a = (struct nlattr *)((char *)r + NLMSG_ALIGN(sizeof(*r)));
	while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= rem) {
		void *d = (char *)a + NLA_HDRLEN;
		int dl = a->nla_len - NLA_HDRLEN;

		if ((a->nla_type & NLA_TYPE_MASK) == INET_DIAG_INFO) {
			info = d;
			info_len = dl;
		} else if ((a->nla_type & NLA_TYPE_MASK) == QUIC_DIAG_CIDS &&
			   dl >= (int)sizeof(*cids)) {
			cids = d;
		}
		rem -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	printf("%-9s %6u %6u", state_name(r->idiag_state), r->idiag_rqueue,
	       r->idiag_wqueue);
	print_addr(r->idiag_family, r->id.idiag_src, r->id.idiag_sport);
	print_addr(r->idiag_family, r->id.idiag_dst, r->id.idiag_dport);
	if (o->ext)
		printf(" uid:%u ino:%u sk:%08x%08x", r->idiag_uid,
		       r->idiag_inode, r->id.idiag_cookie[1],
		       r->id.idiag_cookie[0]);
	if (o->info && (cids || info)) {
		printf("\n\t");
		if (cids) {
			print_hex("scid", cids->scid, cids->scid_len);
			print_hex("dcid", cids->dcid, cids->dcid_len);
		}
		if (info)
			print_info(info, info_len);
	}
	printf("\n");
}

/* One dump of @family; 0, or a negative errno. */
static int dump(const struct opts *o, int family)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	__u32 proto = IPPROTO_QUIC;
	static char buf[32768];
	struct req q;
	int fd, err = 0, done = 0;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(q.r));
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q.nlh.nlmsg_seq = 1;
	q.r.sdiag_family = family;
	q.r.idiag_states = o->states;
	if (o->info)
		q.r.idiag_ext = 1 << (INET_DIAG_INFO - 1);
	put_attr(&q, INET_DIAG_REQ_PROTOCOL, &proto, sizeof(proto));
	if (o->sport >= 0)
		put_sport(&q, o->sport);
	if (sendto(fd, &q, q.nlh.nlmsg_len, 0, (struct sockaddr *)&nl,
		   sizeof(nl)) < 0) {
		err = -errno;
		goto out;
	}
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n < 0) {
			err = -errno;
			break;
		}
		for (; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				/* A dump that failed: its errno here. */
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) &&
				    *(int *)NLMSG_DATA(h) < 0)
					err = *(int *)NLMSG_DATA(h);
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				err = e->error ? e->error : -EPROTO;
				done = 1;
				break;
			}
			if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY)
				print_msg(o, h);
		}
		if (!n)
			break;
	}
out:
	close(fd);
	return err;
}

static const char usage_text[] =
	"usage: quic-ss [-l | -a] [-4 | -6] [-e] [-i] [--sport N] [--dport N]\n";

static const char no_diag_text[] =
	"quic-ss: no sock_diag handler for QUIC: quic_diag not loaded (modprobe quic_diag)\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "listening", no_argument, NULL, 'l' },
		{ "all", no_argument, NULL, 'a' },
		{ "extended", no_argument, NULL, 'e' },
		{ "info", no_argument, NULL, 'i' },
		{ "sport", required_argument, NULL, 's' },
		{ "dport", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct opts o = {
		.states = ~(TCPF(ST_LISTEN) | TCPF(ST_CLOSE)),
		.sport = -1,
		.dport = -1,
	};
	int c, i, err;

	while ((c = getopt_long(argc, argv, "la46eih", lo, NULL)) != -1) {
		switch (c) {
		case 'l':
			o.states = TCPF(ST_LISTEN);
			break;
		case 'a':
			o.states = ~0U;
			break;
		case '4':
			o.family = AF_INET;
			break;
		case '6':
			o.family = AF_INET6;
			break;
		case 'e':
			o.ext = 1;
			break;
		case 'i':
			o.info = 1;
			break;
		case 's':
		case 'd':
			i = atoi(optarg[0] == ':' ? optarg + 1 : optarg);
			if (i < 0 || i > 65535) {
				usage(stderr);
				return 1;
			}
			if (c == 's')
				o.sport = i;
			else
				o.dport = i;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}
	printf("%-9s %6s %6s %-45s %-45s\n", "State", "Recv-Q", "Send-Q",
	       "Local Address:Port", "Peer Address:Port");
	for (i = 0; i < 2; i++) {
		int family = i ? AF_INET6 : AF_INET;

		if (o.family && o.family != family)
			continue;
		err = dump(&o, family);
		if (err == -ENOENT) {
			fputs(no_diag_text, stderr);
			return 1;
		}
		if (err) {
			fprintf(stderr, "quic-ss: sock_diag dump: %s\n",
				strerror(-err));
			return 1;
		}
	}
	return 0;
}
