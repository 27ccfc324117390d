// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the pure parts of net/quic/conn.c: the idle timeout in force
 * (RFC 9000, section 10.1).
 */

#include <linux/kernel.h>
#include "../close.h"
#include "../conn.h"

#include "test.h"

/* The smaller non-zero value wins; 0 on one side means "none there";
 * the result never falls below three PTOs.
 */
static int conn_idle_timeout(struct quic_test *t)
{
	static const struct {
		u64 local, peer, floor, want;
	} v[] = {
		{ 0, 0, 600000, 0 },
		{ 30000000, 0, 600000, 30000000 },
		{ 0, 5000000, 600000, 5000000 },
		{ 30000000, 5000000, 600000, 5000000 },
		{ 2000000, 5000000, 600000, 2000000 },
		{ 1000, 0, 600000, 600000 },
		{ 1000, 2000, 600000, 600000 },
		{ U64_MAX, U64_MAX - 1, 600000, U64_MAX - 1 },
	};
	u32 i;
	u64 got;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		got = quic_close_idle_us(v[i].local, v[i].peer, v[i].floor);
		if (got != v[i].want)
			return quic_test_fail(t, "case %u: %llu, want %llu", i,
					      got, v[i].want);
	}
	return 0;
}

static const struct quic_test_case quic_conn_cases[] = {
	QUIC_TEST_CASE(conn_idle_timeout),
};

const struct quic_test_suite quic_conn_suite = {
	.name		= "quic_conn",
	.cases		= quic_conn_cases,
	.num_cases	= ARRAY_SIZE(quic_conn_cases),
};
