// SPDX-License-Identifier: GPL-2.0
/*
 * quic_flood: a flood sender, to benchmark and test a QUIC listener under
 * load (and a TCP listener, for comparison); see print_usage(). Modes:
 *
 * junk:    1200-byte UDP payloads shaped as a v1 long-header Initial, with
 *          a fresh random 8-byte DCID and SCID each time and a random body
 *          that never decrypts;
 * initial: valid client Initials (RFC 9001 5.2 keys, via quic_initial.h):
 *          a CRYPTO frame with a ClientHello, then PADDING; a pool of them
 *          with distinct DCIDs is built at start and cycled through;
 * replay:  one such Initial, again and again;
 * syn:     TCP SYNs with an MSS option, from a raw IPv4 socket.
 *
 * The UDP modes send from a pool of UDP sockets on ephemeral ports, one
 * sendmmsg() batch per socket in turn; with -s, a raw IPv4 socket with
 * random source ports and addresses. One line goes to stdout at the end:
 *   sent N pkts in T s: R pps[ dropped D]
 * where D counts the datagrams refused with EAGAIN or ENOBUFS.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "quic_initial.h"

#define PKT_LEN		1200	/* every UDP payload */
#define POOL_LEN	256	/* distinct payloads, cycled through */
#define SOCK_NUM	64	/* UDP sockets, so the source port varies */
#define BATCH_MAX	1024
#define BATCH_DEF	32
#define SCID_LEN	8
#define HDR_ROOM	64	/* IP and UDP or TCP headers of one packet */
#define SYN_OPT_LEN	4	/* the MSS option */
#define JUNK_DCID	6	/* offsets in a junk packet */
#define JUNK_SCID	15
#define JUNK_BODY	26
#define HELLO_RANDOM	6	/* offsets in the ClientHello */
#define HELLO_SHARE	82
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum flood_mode { MODE_JUNK, MODE_INITIAL, MODE_REPLAY, MODE_SYN };

static const char * const mode_names[] = {
	[MODE_JUNK] = "junk",
	[MODE_INITIAL] = "initial",
	[MODE_REPLAY] = "replay",
	[MODE_SYN] = "syn",
};

struct flood {
	enum flood_mode mode;
	bool spoof;
	unsigned short port;
	double secs;			/* 0: no time limit */
	unsigned long long count;	/* 0: no count limit */
	unsigned long long rate;	/* 0: as fast as possible */
	unsigned int batch;

	struct sockaddr_storage dst;
	socklen_t dlen;
	uint32_t daddr;			/* IPv4 target, network order */
	uint32_t src_net, src_mask;	/* spoofed sources, host order */
	int fds[SOCK_NUM];
	int nfds;
	int raw;

	uint8_t (*pool)[PKT_LEN];
	uint32_t psum[POOL_LEN];	/* their checksum sums */
	unsigned int npool, next;

	struct mmsghdr msgs[BATCH_MAX];
	struct iovec iov[BATCH_MAX][2];
	uint8_t hdr[BATCH_MAX][HDR_ROOM];

	unsigned long long sent, dropped;
};

static struct flood fl;
static uint64_t rng;

/* xorshift64*: fast, and random enough for addresses, ports and junk. */
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static void rnd_bytes(uint8_t *p, size_t len)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			v = rnd();
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

static uint16_t rnd_port(void)
{
	return 1024 + rnd() % (65536 - 1024);
}

/* RFC 1071: the one's complement sum does not depend on byte order, so
 * words are added as they lie in memory and the result stored as is.
 */
static uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t s = sum;
	uint16_t w;

	for (; len > 1; p += 2, len -= 2) {
		memcpy(&w, p, 2);
		s += w;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, 1);
		s += w;
	}
	while (s >> 32)
		s = (s & 0xffffffff) + (s >> 32);
	return (uint32_t)s;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The IPv4 pseudo-header of a UDP or TCP checksum. */
static uint32_t csum_pseudo(uint32_t saddr, uint32_t daddr, uint8_t proto,
			    uint16_t len)
{
	uint16_t tail[2] = { htons(proto), htons(len) };

	return csum_add(csum_add(csum_add(0, &saddr, 4), &daddr, 4), tail, 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* A TLS 1.3 ClientHello (RFC 8446 4.1.2) in its handshake header, with
 * TLS_AES_128_GCM_SHA256 only; the random and the x25519 key share are
 * drawn at start.
 */
static uint8_t hello[] = {
	0x01, 0x00, 0x00, 0x7c,		/* client_hello, 124 bytes */
	0x03, 0x03,			/* legacy_version */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* random */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x00,				/* legacy_session_id: empty */
	0x00, 0x02, 0x13, 0x01,		/* cipher_suites */
	0x01, 0x00,			/* legacy_compression_methods */
	0x00, 0x51,			/* extensions, 81 bytes */
	0x00, 0x2b, 0x00, 0x03, 0x02, 0x03, 0x04,	/* versions: 1.3 */
	0x00, 0x0a, 0x00, 0x04, 0x00, 0x02, 0x00, 0x1d,	/* groups: x25519 */
	0x00, 0x0d, 0x00, 0x06, 0x00, 0x04,	/* signature_algorithms */
	0x04, 0x03, 0x08, 0x04,
	0x00, 0x33, 0x00, 0x26, 0x00, 0x24,	/* key_share */
	0x00, 0x1d, 0x00, 0x20,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x00, 0x39, 0x00, 0x0a,		/* quic_transport_parameters */
	0x01, 0x02, 0x67, 0x10,		/* max_idle_timeout: 10 s */
	0x04, 0x04, 0x80, 0x10, 0x00, 0x00,	/* initial_max_data: 1 MiB */
};

/* A valid client Initial of PKT_LEN bytes: one CRYPTO frame at offset 0
 * with @hello, then PADDING up to the end.
 */
static int build_initial(uint8_t *pkt)
{
	uint8_t dcid[QI_CID_MAX], scid[SCID_LEN], frames[PKT_LEN] = { 0 };
	uint8_t dcid_len = 8 + rnd() % (QI_CID_MAX - 8 + 1);
	size_t flen;

	rnd_bytes(dcid, dcid_len);
	rnd_bytes(scid, sizeof(scid));
	/* All but the header, packet number (4 bytes) and tag. */
	flen = PKT_LEN - (10 + dcid_len + sizeof(scid)) - 4 - QI_TAG_LEN;
	frames[0] = 0x06;		/* CRYPTO */
	frames[1] = 0x00;		/* offset 0 */
	put16(frames + 2, 0x4000 | sizeof(hello));
	memcpy(frames + 4, hello, sizeof(hello));
	if (qi_build(pkt, PKT_LEN, dcid, dcid_len, scid, sizeof(scid),
		     frames, flen) != PKT_LEN)
		return -1;
	return 0;
}

/* The DCID and SCID are drawn again before each send. */
static void build_junk(uint8_t *p)
{
	size_t len = PKT_LEN - JUNK_BODY;

	rnd_bytes(p, PKT_LEN);
	p[0] = 0xc0 | (p[0] & 3);	/* Initial, any pn length */
	memcpy(p + 1, "\0\0\0\1\x08", 5);	/* v1, DCID length */
	p[JUNK_SCID - 1] = 8;
	p[JUNK_BODY - 3] = 0;		/* token length */
	put16(p + JUNK_BODY - 2, 0x4000 | len);
}

static int build_pool(struct flood *f)
{
	unsigned int i;

	rnd_bytes(hello + HELLO_RANDOM, 32);
	rnd_bytes(hello + HELLO_SHARE, 32);
	f->npool = f->mode == MODE_REPLAY ? 1 : POOL_LEN;
	f->pool = malloc(f->npool * sizeof(*f->pool));
	if (!f->pool)
		return -1;
	for (i = 0; i < f->npool; i++) {
		if (f->mode == MODE_JUNK)
			build_junk(f->pool[i]);
		else if (build_initial(f->pool[i]))
			return -1;
		f->psum[i] = csum_add(0, f->pool[i], PKT_LEN);
	}
	fprintf(stderr, "quic_flood: pool of %u %s packets\n", f->npool,
		mode_names[f->mode]);
	return 0;
}

/* The index of the next payload; junk gets fresh connection IDs. */
static unsigned int next_payload(struct flood *f)
{
	unsigned int k = f->next++ % f->npool;
	uint8_t *p = f->pool[k];

	if (f->mode == MODE_JUNK) {
		rnd_bytes(p + JUNK_DCID, 8);
		rnd_bytes(p + JUNK_SCID, 8);
		if (f->spoof)
			f->psum[k] = csum_add(0, p, PKT_LEN);
	}
	return k;
}

/* A random source: never the network, broadcast or target address. */
static uint32_t spoof_saddr(const struct flood *f)
{
	uint32_t a, d = ntohl(f->daddr);

	do {
		a = f->src_net | ((uint32_t)rnd() & ~f->src_mask);
	} while (a == f->src_net || (a | f->src_mask) == 0xffffffff ||
		 a == d);
	return htonl(a);
}

static void build_ip(uint8_t *buf, uint32_t saddr, uint32_t daddr,
		     uint8_t proto, uint16_t len)
{
	struct iphdr ip = {
		.version = 4,
		.ihl = sizeof(ip) / 4,
		.tot_len = htons(len),
		.id = (uint16_t)rnd(),
		.ttl = 64,
		.protocol = proto,
		.saddr = saddr,
		.daddr = daddr,
	};

	ip.check = csum_fold(csum_add(0, &ip, sizeof(ip)));
	memcpy(buf, &ip, sizeof(ip));
}

/* IPv4 and UDP headers for payload @k, in front of it. */
static void build_udp(struct flood *f, uint8_t *buf, unsigned int k)
{
	uint16_t ulen = sizeof(struct udphdr) + PKT_LEN;
	uint32_t saddr = spoof_saddr(f), sum;
	struct udphdr uh = {
		.source = htons(rnd_port()),
		.dest = htons(f->port),
		.len = htons(ulen),
	};

	sum = csum_pseudo(saddr, f->daddr, IPPROTO_UDP, ulen);
	sum = csum_add(sum + f->psum[k], &uh, sizeof(uh));
	uh.check = csum_fold(sum);
	if (!uh.check)
		uh.check = 0xffff;
	build_ip(buf, saddr, f->daddr, IPPROTO_UDP, sizeof(struct iphdr) + ulen);
	memcpy(buf + sizeof(struct iphdr), &uh, sizeof(uh));
}

/* A whole SYN: IPv4, TCP and an MSS option of 1460. */
static void build_syn(struct flood *f, uint8_t *buf)
{
	static const uint8_t mss[SYN_OPT_LEN] = { 2, 4, 0x05, 0xb4 };
	uint16_t tlen = sizeof(struct tcphdr) + SYN_OPT_LEN;
	uint8_t *t = buf + sizeof(struct iphdr);
	uint32_t saddr = spoof_saddr(f), sum;
	struct tcphdr th = {
		.source = htons(rnd_port()),
		.dest = htons(f->port),
		.seq = htonl((uint32_t)rnd()),
		.doff = tlen / 4,
		.syn = 1,
		.window = htons(64240),
	};

	sum = csum_pseudo(saddr, f->daddr, IPPROTO_TCP, tlen);
	sum = csum_add(csum_add(sum, &th, sizeof(th)), mss, sizeof(mss));
	th.check = csum_fold(sum);
	memcpy(t, &th, sizeof(th));
	memcpy(t + sizeof(th), mss, sizeof(mss));
	build_ip(buf, saddr, f->daddr, IPPROTO_TCP, sizeof(struct iphdr) + tlen);
}

static void setup_msgs(struct flood *f)
{
	size_t syn_len = sizeof(struct iphdr) + sizeof(struct tcphdr) +
			 SYN_OPT_LEN;
	unsigned int i;

	for (i = 0; i < BATCH_MAX; i++) {
		struct msghdr *m = &f->msgs[i].msg_hdr;
		struct iovec *v = f->iov[i];

		m->msg_name = &f->dst;
		m->msg_namelen = f->dlen;
		m->msg_iov = v;
		m->msg_iovlen = 1;
		v[0].iov_len = PKT_LEN;
		if (f->mode == MODE_SYN) {
			v[0].iov_base = f->hdr[i];
			v[0].iov_len = syn_len;
		} else if (f->spoof) {
			v[0].iov_base = f->hdr[i];
			v[0].iov_len = sizeof(struct iphdr) +
				       sizeof(struct udphdr);
			v[1].iov_len = PKT_LEN;
			m->msg_iovlen = 2;
		}
	}
}

static void fill_batch(struct flood *f, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		if (f->mode == MODE_SYN) {
			build_syn(f, f->hdr[i]);
			continue;
		}
		k = next_payload(f);
		if (f->spoof) {
			build_udp(f, f->hdr[i], k);
			f->iov[i][1].iov_base = f->pool[k];
		} else {
			f->iov[i][0].iov_base = f->pool[k];
		}
	}
}

/* Send @n messages; a full buffer drops the rest of the batch. */
static int send_batch(struct flood *f, int fd, unsigned int n)
{
	unsigned int off = 0;
	int r;

	while (off < n) {
		r = sendmmsg(fd, f->msgs + off, n - off, MSG_DONTWAIT);
		if (r > 0) {
			f->sent += r;
			off += r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == ENOBUFS)) {
			f->dropped += n - off;
			return 0;
		}
		perror("quic_flood: sendmmsg");
		return -1;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* Paced at f->rate, in batches no more than about 10 ms apart. */
static int run(struct flood *f, double *elapsed)
{
	unsigned long long done = 0;
	unsigned int n, batch = f->batch, s = 0;
	uint64_t t0 = now_ns(), t = t0, due;
	struct timespec ts;
	int fd;

	if (f->rate && f->rate / 100 < batch)
		batch = f->rate / 100 ? f->rate / 100 : 1;
	for (;;) {
		if (f->secs > 0 && t - t0 >= f->secs * 1e9)
			break;
		if (f->count && done >= f->count)
			break;
		n = batch;
		if (f->count && f->count - done < n)
			n = f->count - done;
		due = f->rate ? t0 + done * 1e9 / f->rate : 0;
		if (t < due) {
			ts.tv_sec = due / 1000000000;
			ts.tv_nsec = due % 1000000000;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					NULL);
			t = now_ns();
			continue;
		}
		fill_batch(f, n);
		fd = f->raw >= 0 ? f->raw : f->fds[s++ % f->nfds];
		if (send_batch(f, fd, n))
			return -1;
		done += n;
		t = now_ns();
	}
	*elapsed = (t - t0) / 1e9;
	return 0;
}

static int open_sockets(struct flood *f)
{
	struct sockaddr_storage ss = { .ss_family = f->dst.ss_family };
	int one = 1, i;

	f->raw = -1;
	if (f->spoof || f->mode == MODE_SYN) {
		f->raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
		if (f->raw < 0 ||
		    setsockopt(f->raw, IPPROTO_IP, IP_HDRINCL, &one,
			       sizeof(one))) {
			perror("quic_flood: raw socket (root needed)");
			return -1;
		}
		/* The raw socket takes the ports from our headers. */
		((struct sockaddr_in *)&f->dst)->sin_port = 0;
		return 0;
	}
	for (i = 0; i < SOCK_NUM; i++) {
		f->fds[i] = socket(f->dst.ss_family, SOCK_DGRAM, 0);
		if (f->fds[i] < 0 ||
		    bind(f->fds[i], (struct sockaddr *)&ss, f->dlen)) {
			perror("quic_flood: udp socket");
			return -1;
		}
		f->nfds++;
	}
	return 0;
}

static int set_target(struct flood *f, const char *addr)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&f->dst;
	struct sockaddr_in *sin = (struct sockaddr_in *)&f->dst;
	uint32_t d;

	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(f->port);
		f->dlen = sizeof(*sin);
		f->daddr = sin->sin_addr.s_addr;
		d = ntohl(f->daddr);
		f->src_mask = (d >> 24) == 127 ? 0xff000000 : 0xffffff00;
		f->src_net = d & f->src_mask;
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		if (f->spoof || f->mode == MODE_SYN) {
			fprintf(stderr, "quic_flood: -s and syn are IPv4 only\n");
			return -1;
		}
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(f->port);
		f->dlen = sizeof(*sin6);
		return 0;
	}
	fprintf(stderr, "quic_flood: bad address %s\n", addr);
	return -1;
}

static void print_usage(FILE *out)
{
	fprintf(out,
		"usage: quic_flood -m MODE -a ADDR -p PORT [-d SECONDS | -n COUNT]\n"
		"                  [-r RATE_PPS] [-s] [-b BATCH]\n"
		"  -m  junk | initial | replay | syn\n"
		"  -d  seconds to run (default 5); -n: datagrams to send\n"
		"  -r  packets per second (default 0: as fast as possible)\n"
		"  -s  spoof: raw IPv4 socket, random source port and address\n"
		"      (127.0.0.0/8 for a loopback ADDR, else ADDR's /24);\n"
		"      syn mode always does so\n"
		"  -b  datagrams per sendmmsg() (default %d, at most %d)\n",
		BATCH_DEF, BATCH_MAX);
}

static unsigned long long num(const char *s, unsigned long long min,
			      unsigned long long max, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min ||
	    v > max) {
		fprintf(stderr, "quic_flood: bad %s: %s\n", what, s);
		exit(2);
	}
	return v;
}

static int parse_mode(const char *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mode_names); i++)
		if (!strcmp(s, mode_names[i]))
			return i;
	fprintf(stderr, "quic_flood: bad mode: %s\n", s);
	exit(2);
}

static void parse_args(struct flood *f, int argc, char **argv,
		       const char **addr)
{
	bool have_d = false, have_m = false;
	char *end;
	int opt;

	f->batch = BATCH_DEF;
	while ((opt = getopt(argc, argv, "m:a:p:d:n:r:sb:h")) != -1) {
		switch (opt) {
		case 'm':
			f->mode = parse_mode(optarg);
			have_m = true;
			break;
		case 'a':
			*addr = optarg;
			break;
		case 'p':
			f->port = num(optarg, 1, 65535, "port");
			break;
		case 'd':
			f->secs = strtod(optarg, &end);
			if (end == optarg || *end || !(f->secs > 0)) {
				fprintf(stderr, "quic_flood: bad seconds\n");
				exit(2);
			}
			have_d = true;
			break;
		case 'n':
			f->count = num(optarg, 1, ~0ULL, "count");
			break;
		case 'r':
			f->rate = num(optarg, 0, ~0ULL, "rate");
			break;
		case 's':
			f->spoof = true;
			break;
		case 'b':
			f->batch = num(optarg, 1, BATCH_MAX, "batch");
			break;
		case 'h':
			print_usage(stdout);
			exit(0);
		default:
			print_usage(stderr);
			exit(2);
		}
	}
	if (!have_m || !*addr || !f->port || optind < argc) {
		print_usage(stderr);
		exit(2);
	}
	if (!have_d && !f->count)
		f->secs = 5;
}

int main(int argc, char **argv)
{
	struct flood *f = &fl;
	const char *addr = NULL;
	double elapsed;

	parse_args(f, argc, argv, &addr);
	if (getrandom(&rng, sizeof(rng), 0) != (ssize_t)sizeof(rng) || !rng)
		rng = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^ getpid();
	if (set_target(f, addr) || open_sockets(f))
		return 1;
	if (f->mode != MODE_SYN && build_pool(f)) {
		fprintf(stderr, "quic_flood: cannot build the packets\n");
		return 1;
	}
	setup_msgs(f);
	if (run(f, &elapsed))
		return 1;
	printf("sent %llu pkts in %.2f s: %llu pps", f->sent, elapsed,
	       elapsed > 0 ? (unsigned long long)(f->sent / elapsed) : 0ULL);
	if (f->dropped)
		printf(" dropped %llu", f->dropped);
	printf("\n");
	return 0;
}
