// SPDX-License-Identifier: GPL-2.0
/*
 * quic_test under KUnit, for kernels built with CONFIG_KUNIT (main.c is
 * the front end for kernels without it, such as Debian's).
 *
 * Each suite of net/quic/test is a KUnit suite of the same name with one
 * parameterised case, "cases", whose parameters are the suite's cases:
 * KUnit reports every case by name, and a failing case reports the
 * reason it gave quic_test_fail(). The cases themselves stay plain
 * functions returning 0 or an error, so that both front ends run them.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "test.h"

/* The case after @prev in @s (the first when @prev is NULL), or NULL. */
static const void *quic_kunit_next(const struct quic_test_suite *s,
				   const void *prev, char *desc)
{
	const struct quic_test_case *c = prev;

	c = c ? c + 1 : s->cases;
	if (c >= s->cases + s->num_cases)
		return NULL;
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
	return c;
}

static void quic_kunit_run(struct kunit *test)
{
	const struct quic_test_case *c = test->param_value;
	struct quic_test t = {};
	int err;

	err = c->run(&t);
	if (err == QUIC_TEST_SKIPPED)
		kunit_skip(test, "%s", t.reason);
	else if (err)
		KUNIT_FAIL(test, "%s (%d)", t.reason[0] ? t.reason : "failed",
			   err);
}

#define QUIC_KUNIT_SUITE(id)						\
static const void *quic_kunit_##id##_gen(const void *prev, char *desc)	\
{									\
	return quic_kunit_next(&quic_##id##_suite, prev, desc);		\
}									\
									\
static struct kunit_case quic_kunit_##id##_cases[] = {			\
	{ .name = "cases", .run_case = quic_kunit_run,			\
	  .generate_params = quic_kunit_##id##_gen },			\
	{}								\
};									\
									\
static struct kunit_suite quic_kunit_##id = {				\
	.name = "quic_" #id,						\
	.test_cases = quic_kunit_##id##_cases,				\
}

QUIC_KUNIT_SUITE(hash);
QUIC_KUNIT_SUITE(tparam);
QUIC_KUNIT_SUITE(packet);
QUIC_KUNIT_SUITE(varint);
QUIC_KUNIT_SUITE(frame);
QUIC_KUNIT_SUITE(ackrange);
QUIC_KUNIT_SUITE(sent);
QUIC_KUNIT_SUITE(udp);
QUIC_KUNIT_SUITE(gso);
QUIC_KUNIT_SUITE(crypto);
QUIC_KUNIT_SUITE(connid);
QUIC_KUNIT_SUITE(lookup);
QUIC_KUNIT_SUITE(stream);
QUIC_KUNIT_SUITE(conn);
QUIC_KUNIT_SUITE(recovery);
QUIC_KUNIT_SUITE(cong);
QUIC_KUNIT_SUITE(pmtu);
QUIC_KUNIT_SUITE(outq);
QUIC_KUNIT_SUITE(reasm);
QUIC_KUNIT_SUITE(token);
QUIC_KUNIT_SUITE(alpn);
QUIC_KUNIT_SUITE(ecn);
QUIC_KUNIT_SUITE(kernel);
QUIC_KUNIT_SUITE(kconn);

kunit_test_suites(&quic_kunit_hash, &quic_kunit_tparam, &quic_kunit_packet,
		  &quic_kunit_varint, &quic_kunit_frame, &quic_kunit_ackrange,
		  &quic_kunit_sent, &quic_kunit_udp, &quic_kunit_gso,
		  &quic_kunit_crypto,
		  &quic_kunit_connid, &quic_kunit_lookup, &quic_kunit_stream,
		  &quic_kunit_conn, &quic_kunit_recovery, &quic_kunit_cong,
		  &quic_kunit_pmtu, &quic_kunit_outq, &quic_kunit_reasm,
		  &quic_kunit_token, &quic_kunit_alpn, &quic_kunit_ecn,
		  &quic_kunit_kernel, &quic_kunit_kconn);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of the QUIC transport");
MODULE_IMPORT_NS(QUIC_INTERNAL);
