// SPDX-License-Identifier: GPL-2.0
/*
 * quic_test without KUnit (Debian's kernels; kunit.c is the front end
 * for kernels with KUnit): self-tests of the pure pieces of net/quic.
 *
 * Loading the module runs every suite and reports to the kernel log in the
 * shape that tools/testing/selftests/net/quic/ktap.sh reads: one KTAP
 * version line, then per suite a subtest header, a plan and one result line
 * per case, all unindented, and a summary:
 *
 *	KTAP version 1
 *	# Subtest: quic_hash
 *	1..2
 *	ok 1 first_case
 *	not ok 2 second_case # why it failed
 *	# quic_hash: pass:1 fail:1
 *
 * With bench=1 it prints "# bench: ..." figures instead and asserts nothing.
 * Loading always succeeds, so the module can be unloaded and loaded again.
 */

#define pr_fmt(fmt) fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "test.h"

static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "Print micro-benchmark figures instead of running the tests");

static const struct quic_test_suite *const quic_test_suites[] = {
	&quic_hash_suite,
	&quic_tparam_suite,
	&quic_packet_suite,
	&quic_varint_suite,
	&quic_frame_suite,
	&quic_ackrange_suite,
	&quic_sent_suite,
	&quic_udp_suite,
	&quic_gso_suite,
	&quic_crypto_suite,
	&quic_connid_suite,
	&quic_lookup_suite,
	&quic_stream_suite,
	&quic_conn_suite,
	&quic_recovery_suite,
	&quic_cong_suite,
	&quic_pmtu_suite,
	&quic_outq_suite,
	&quic_reasm_suite,
	&quic_token_suite,
	&quic_alpn_suite,
	&quic_ecn_suite,
	&quic_kernel_suite,
	&quic_kconn_suite,
};

static void quic_test_run_suite(const struct quic_test_suite *s)
{
	unsigned int i, pass = 0;
	struct quic_test t;
	int err;

	pr_info("# Subtest: %s\n", s->name);
	pr_info("1..%u\n", s->num_cases);
	for (i = 0; i < s->num_cases; i++) {
		const struct quic_test_case *c = &s->cases[i];

		memset(&t, 0, sizeof(t));
		err = c->run(&t);
		if (!err) {
			pr_info("ok %u %s\n", i + 1, c->name);
			pass++;
		} else if (err == QUIC_TEST_SKIPPED) {
			pr_info("ok %u %s # SKIP %s\n", i + 1, c->name, t.reason);
			pass++;
		} else {
			if (!t.reason[0])
				snprintf(t.reason, sizeof(t.reason),
					 "error %d", err);
			pr_info("not ok %u %s # %s\n", i + 1, c->name, t.reason);
		}
		cond_resched();
	}
	pr_info("# %s: pass:%u fail:%u\n", s->name, pass, s->num_cases - pass);
}

static int __init quic_test_init(void)
{
	unsigned int i;

	if (bench) {
		for (i = 0; i < ARRAY_SIZE(quic_test_suites); i++)
			if (quic_test_suites[i]->bench)
				quic_test_suites[i]->bench();
		return 0;
	}

	pr_info("KTAP version 1\n");
	for (i = 0; i < ARRAY_SIZE(quic_test_suites); i++)
		quic_test_run_suite(quic_test_suites[i]);
	return 0;
}

static void __exit quic_test_exit(void)
{
}

module_init(quic_test_init);
module_exit(quic_test_exit);

MODULE_DESCRIPTION("Self-tests and micro-benchmarks of the QUIC transport");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(QUIC_INTERNAL);
