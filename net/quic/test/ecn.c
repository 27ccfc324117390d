// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/ecn.h: marks counted per packet number space
 * (RFC 9000 13.4.1), and the validation of the peer's counts (13.4.2.1).
 */

#include <linux/kernel.h>
#include <linux/string.h>
#include <net/inet_ecn.h>
#include "../ecn.h"
#include <uapi/linux/quic.h>

#include "test.h"

/* Each space counts its own marks; 0-RTT packets count in the 1-RTT one;
 * CE asks for an ACK at once; the Initial and Handshake counts stop at
 * 255; unmarked packets count nowhere.
 */
static int ecn_spaces(struct quic_test *t)
{
	struct quic_ecn e = {};
	u64 c[QUIC_ECN_COUNTS];
	int i;

	if (quic_ecn_counts(&e, QUIC_CRYPTO_APP, c))
		return quic_test_fail(t, "counts before any mark");
	if (quic_ecn_rcvd(&e, QUIC_CRYPTO_INITIAL, INET_ECN_ECT_0) ||
	    !quic_ecn_rcvd(&e, QUIC_CRYPTO_HANDSHAKE, INET_ECN_CE) ||
	    quic_ecn_rcvd(&e, QUIC_CRYPTO_EARLY, INET_ECN_ECT_1) ||
	    quic_ecn_rcvd(&e, QUIC_CRYPTO_APP, INET_ECN_NOT_ECT))
		return quic_test_fail(t, "CE not told apart");
	if (!quic_ecn_counts(&e, QUIC_CRYPTO_INITIAL, c) || c[0] != 1 ||
	    c[1] || c[2])
		return quic_test_fail(t, "Initial %llu/%llu/%llu", c[0], c[1],
				      c[2]);
	if (!quic_ecn_counts(&e, QUIC_CRYPTO_HANDSHAKE, c) || c[0] || c[1] ||
	    c[2] != 1)
		return quic_test_fail(t, "Handshake %llu/%llu/%llu", c[0],
				      c[1], c[2]);
	if (!quic_ecn_counts(&e, QUIC_CRYPTO_APP, c) || c[0] || c[1] != 1 ||
	    c[2])
		return quic_test_fail(t, "1-RTT %llu/%llu/%llu", c[0], c[1],
				      c[2]);
	for (i = 0; i < 300; i++)
		quic_ecn_rcvd(&e, QUIC_CRYPTO_INITIAL, INET_ECN_ECT_0);
	quic_ecn_counts(&e, QUIC_CRYPTO_INITIAL, c);
	if (c[0] != 255)
		return quic_test_fail(t, "Initial count %llu", c[0]);
	return 0;
}

/* Validation: counts that cover the marked packets confirm ECN and a CE
 * increase is a congestion event; then an ACK without counts, counts
 * that fall, ECT(1) we never sent, or too few marks, each fail it, and
 * a failed state marks nothing.
 */
static int ecn_validation(struct quic_test *t)
{
	u64 ok[QUIC_ECN_COUNTS] = { 3, 0, 0 }, ce[QUIC_ECN_COUNTS] = { 4, 0, 1 };
	u64 fall[QUIC_ECN_COUNTS] = { 2, 0, 1 }, ect1[QUIC_ECN_COUNTS] = { 9, 1, 1 };
	u64 few[QUIC_ECN_COUNTS] = { 5, 0, 1 };
	struct quic_ecn e = {};

	if (quic_ecn_tos(&e) != INET_ECN_ECT_0)
		return quic_test_fail(t, "not marking at first");
	if (quic_ecn_on_ack(&e, ok, 3) || e.state != QUIC_ECN_CAPABLE)
		return quic_test_fail(t, "not confirmed");
	if (quic_ecn_on_ack(&e, ce, 2) != 1)
		return quic_test_fail(t, "CE not a congestion event");
	if (quic_ecn_on_ack(&e, NULL, 0))
		return quic_test_fail(t, "ACK of nothing marked failed");
	if (quic_ecn_on_ack(&e, few, 3) != -1)
		return quic_test_fail(t, "too few marks passed");
	if (quic_ecn_tos(&e) != INET_ECN_NOT_ECT)
		return quic_test_fail(t, "still marking after failure");
	memset(&e, 0, sizeof(e));
	if (quic_ecn_on_ack(&e, NULL, 1) != -1)
		return quic_test_fail(t, "no counts passed");
	memset(&e, 0, sizeof(e));
	if (quic_ecn_on_ack(&e, ce, 5) != 1 ||
	    quic_ecn_on_ack(&e, fall, 0) != -1)
		return quic_test_fail(t, "falling counts passed");
	memset(&e, 0, sizeof(e));
	if (quic_ecn_on_ack(&e, ect1, 1) != -1)
		return quic_test_fail(t, "ECT(1) passed");
	return 0;
}

static const struct quic_test_case quic_ecn_cases[] = {
	QUIC_TEST_CASE(ecn_spaces),
	QUIC_TEST_CASE(ecn_validation),
};

const struct quic_test_suite quic_ecn_suite = {
	.name		= "quic_ecn",
	.cases		= quic_ecn_cases,
	.num_cases	= ARRAY_SIZE(quic_ecn_cases),
};
