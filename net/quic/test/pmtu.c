// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/pmtu.h: the DPLPMTUD search (RFC 8899 5, RFC
 * 9000 14.3) over a path that carries what the test says.
 */

#include <linux/kernel.h>
#include "../pmtu.h"

#include "test.h"

/* Run the search over a path that carries @mtu; return the probes sent. */
static u32 search(struct quic_pmtu *p, u32 mtu)
{
	u32 size, probes = 0;
	u64 pn = 100;

	while ((size = quic_pmtu_next(p)) && probes < 100) {
		quic_pmtu_sent(p, size, pn);
		probes++;
		if (size <= mtu)
			quic_pmtu_acked(p, pn);
		else
			quic_pmtu_lost(p, pn);
		pn += 7;
	}
	return probes;
}

/* A path that carries the largest size: one probe, done. */
static int pmtu_max_first(struct quic_test *t)
{
	struct quic_pmtu p;
	u32 n;

	quic_pmtu_init(&p, 1200, 1472);
	if (quic_pmtu_next(&p) != 1472)
		return quic_test_fail(t, "first probe %u", quic_pmtu_next(&p));
	n = search(&p, 1500);
	if (n != 1 || p.plpmtu != 1472 || !p.done)
		return quic_test_fail(t, "%u probes, plpmtu %u", n, p.plpmtu);
	return 0;
}

/* A smaller path: each size fails MAX_PROBES times, the range halves,
 * the result is within QUIC_PMTU_STEP below the path and never above.
 */
static int pmtu_binary_search(struct quic_test *t)
{
	struct quic_pmtu p;
	u32 n;

	quic_pmtu_init(&p, 1200, 15360);
	n = search(&p, 1252);
	if (!p.done || p.plpmtu > 1252 || p.plpmtu + QUIC_PMTU_STEP < 1252)
		return quic_test_fail(t, "plpmtu %u after %u probes", p.plpmtu,
				      n);
	if (n > 40)
		return quic_test_fail(t, "%u probes", n);
	/* A path of the base size: the search ends at the base. */
	quic_pmtu_init(&p, 1200, 1472);
	search(&p, 1200);
	if (!p.done || p.plpmtu != 1200)
		return quic_test_fail(t, "base path: plpmtu %u", p.plpmtu);
	return 0;
}

/* Only the probe's own packet number counts; a restart searches above
 * the size in use; no probe when the base is all the route allows.
 */
static int pmtu_probe_pn(struct quic_test *t)
{
	struct quic_pmtu p;

	quic_pmtu_init(&p, 1200, 1472);
	quic_pmtu_sent(&p, 1472, 9);
	if (quic_pmtu_next(&p))
		return quic_test_fail(t, "second probe in flight");
	if (quic_pmtu_acked(&p, 8) || quic_pmtu_lost(&p, 10) ||
	    p.plpmtu != 1200)
		return quic_test_fail(t, "another packet counted");
	if (!quic_pmtu_lost(&p, 9) || p.lost != 1 || p.fail != 1473)
		return quic_test_fail(t, "lost once: %u/%u", p.lost, p.fail);
	if (quic_pmtu_next(&p) != 1472)
		return quic_test_fail(t, "not probed again");
	search(&p, 1300);
	quic_pmtu_restart(&p);
	if (p.done || quic_pmtu_next(&p) != 1472)
		return quic_test_fail(t, "restart: next %u", quic_pmtu_next(&p));
	quic_pmtu_init(&p, 1200, 1000);
	if (!p.done || p.plpmtu != 1200 || quic_pmtu_next(&p))
		return quic_test_fail(t, "route below the base");
	return 0;
}

static const struct quic_test_case quic_pmtu_cases[] = {
	QUIC_TEST_CASE(pmtu_max_first),
	QUIC_TEST_CASE(pmtu_binary_search),
	QUIC_TEST_CASE(pmtu_probe_pn),
};

const struct quic_test_suite quic_pmtu_suite = {
	.name		= "quic_pmtu",
	.cases		= quic_pmtu_cases,
	.num_cases	= ARRAY_SIZE(quic_pmtu_cases),
};
