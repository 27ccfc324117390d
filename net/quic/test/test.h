/* SPDX-License-Identifier: GPL-2.0 */
/*
 * quic_test: a tiny framework for the in-kernel self-tests of net/quic.
 *
 * One suite per file, net/quic/test/<topic>.c, defining a struct
 * quic_test_suite; declare it below, list it in quic_test_suites[] in main.c
 * and with QUIC_KUNIT_SUITE() in kunit.c, and add test/<topic>.o to
 * quic_test-y.  A case returns 0 when it passes, and otherwise the value of
 * quic_test_fail(), whose message ends up in the failure report, or a
 * negative errno; a case that cannot run where it is (no loopback
 * address, say) returns quic_test_skip().  Cases must not print.  Helpers shared by all: case.c.
 */

#ifndef _NET_QUIC_TEST_TEST_H
#define _NET_QUIC_TEST_TEST_H

#include <linux/compiler.h>
#include <linux/types.h>

struct quic_test {
	char reason[96];
};

struct quic_test_case {
	const char *name;
	int (*run)(struct quic_test *t);
};

#define QUIC_TEST_CASE(fn)	{ .name = #fn, .run = fn }

struct quic_test_suite {
	const char *name;
	const struct quic_test_case *cases;
	unsigned int num_cases;
	void (*bench)(void);	/* optional, run instead of the cases */
};

/* What quic_test_skip() returns: the case did not run, and says why. */
#define QUIC_TEST_SKIPPED	1

/**
 * struct quic_test_mem - memory a charge callback accounts, for the
 *	stream and reassembly tests
 * @mem: bytes charged now
 * @limit: charges beyond this are refused
 */
struct quic_test_mem {
	s64 mem;
	s64 limit;
};

__printf(2, 3) int quic_test_fail(struct quic_test *t, const char *fmt, ...);
int quic_test_mem_charge(void *ctx, int bytes);
__printf(2, 3) int quic_test_skip(struct quic_test *t, const char *fmt, ...);
void quic_test_bench_time(const char *what, u64 ns, u64 ops);
void quic_test_bench_ratio(const char *what, u64 num, u64 den);

/* Loopback helpers of udp.c, for the tests that send datagrams. */
union quic_addr;
struct quic_udp_key;
struct socket;
bool quic_test_lo_up(void);
void quic_test_loopback(struct quic_udp_key *key, int family);
void quic_test_addr(union quic_addr *a, int family, __be16 port);
int quic_test_receiver(int family, struct socket **sockp, __be16 *port);

extern const struct quic_test_suite quic_hash_suite;
extern const struct quic_test_suite quic_tparam_suite;
extern const struct quic_test_suite quic_packet_suite;
extern const struct quic_test_suite quic_varint_suite;
extern const struct quic_test_suite quic_frame_suite;
extern const struct quic_test_suite quic_ackrange_suite;
extern const struct quic_test_suite quic_sent_suite;
extern const struct quic_test_suite quic_udp_suite;
extern const struct quic_test_suite quic_gso_suite;
extern const struct quic_test_suite quic_crypto_suite;
extern const struct quic_test_suite quic_connid_suite;
extern const struct quic_test_suite quic_lookup_suite;
extern const struct quic_test_suite quic_stream_suite;
extern const struct quic_test_suite quic_conn_suite;
extern const struct quic_test_suite quic_recovery_suite;
extern const struct quic_test_suite quic_cong_suite;
extern const struct quic_test_suite quic_pmtu_suite;
extern const struct quic_test_suite quic_outq_suite;
extern const struct quic_test_suite quic_reasm_suite;
extern const struct quic_test_suite quic_token_suite;
extern const struct quic_test_suite quic_alpn_suite;
extern const struct quic_test_suite quic_ecn_suite;
extern const struct quic_test_suite quic_kernel_suite;
extern const struct quic_test_suite quic_kconn_suite;

#endif /* _NET_QUIC_TEST_TEST_H */
