// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: Explicit Congestion Notification (RFC 9000 13.4, RFC 9002 7.1).
 *
 * Datagrams that carry only a 1-RTT packet leave marked ECT(0); received
 * packets are counted by their marks, per packet number space, and the
 * counts go in ACK_ECN frames. The peer's counts validate the path (13.4.2.1): an
 * ACK that newly acknowledges marked packets must carry counts, which
 * must not fall, and whose ECT(0) and CE increase must cover those
 * packets, with no ECT(1) we never sent; else marking stops for good. An
 * increase of the CE count is a congestion event, as a loss is (RFC 9002
 * 7.1), without a retransmission. A path that bleaches the marks (clears
 * them) so fails validation at the first ACK of a marked packet.
 */

#include <net/inet_ecn.h>
#include <uapi/linux/quic.h>

#include "ecn.h"
#include "export.h"

/* The index of the Initial or Handshake space in long_rcvd, or -1 for the
 * 1-RTT space (where 0-RTT packets count too).
 */
static int quic_ecn_long(u8 level)
{
	if (level == QUIC_CRYPTO_INITIAL)
		return QUIC_ECN_SPACE_INITIAL;
	if (level == QUIC_CRYPTO_HANDSHAKE)
		return QUIC_ECN_SPACE_HANDSHAKE;
	return -1;
}

/**
 * quic_ecn_tos() - the ECN codepoint of the next datagram
 * @e: the state
 *
 * Return: INET_ECN_ECT_0, or 0 (Not-ECT) once validation failed.
 */
u8 quic_ecn_tos(const struct quic_ecn *e)
{
	return e->state == QUIC_ECN_FAILED ? INET_ECN_NOT_ECT : INET_ECN_ECT_0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ecn_tos);

/**
 * quic_ecn_rcvd() - count a packet received
 * @e: the state
 * @level: its level (QUIC_CRYPTO_*)
 * @tos: the ECN bits of the datagram that brought it
 *
 * Return: true if it was marked CE (to be acknowledged at once, RFC 9000
 * 13.2.1).
 */
bool quic_ecn_rcvd(struct quic_ecn *e, u8 level, u8 tos)
{
	int sp = quic_ecn_long(level), i;
	u8 *l;

	if (unlikely(sp >= 0)) {
		l = e->long_rcvd[sp];
		switch (tos & INET_ECN_MASK) {
		case INET_ECN_ECT_0:
			i = QUIC_ECN_ECT0;
			break;
		case INET_ECN_ECT_1:
			i = QUIC_ECN_ECT1;
			break;
		case INET_ECN_CE:
			i = QUIC_ECN_CE;
			break;
		default:
			return false;
		}
		if (l[i] < U8_MAX)
			l[i]++;
		return i == QUIC_ECN_CE;
	}
	switch (tos & INET_ECN_MASK) {
	case INET_ECN_ECT_0:
		e->rcvd[QUIC_ECN_ECT0]++;
		break;
	case INET_ECN_ECT_1:
		e->rcvd[QUIC_ECN_ECT1]++;
		break;
	case INET_ECN_CE:
		e->rcvd[QUIC_ECN_CE]++;
		return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ecn_rcvd);

/**
 * quic_ecn_counts() - the counts for an ACK_ECN frame
 * @e: the state
 * @level: the level of the space acknowledged (QUIC_CRYPTO_*)
 * @counts: filled with ECT(0), ECT(1), CE
 *
 * Return: true if any packet was marked: then the ACK is an ACK_ECN.
 */
bool quic_ecn_counts(const struct quic_ecn *e, u8 level, u64 *counts)
{
	int sp = quic_ecn_long(level), i;

	for (i = 0; i < QUIC_ECN_COUNTS; i++)
		counts[i] = sp >= 0 ? e->long_rcvd[sp][i] : e->rcvd[i];
	return counts[QUIC_ECN_ECT0] || counts[QUIC_ECN_ECT1] ||
	       counts[QUIC_ECN_CE];
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ecn_counts);

/**
 * quic_ecn_on_ack() - the peer acknowledged 1-RTT packets
 * @e: the state
 * @counts: the ACK_ECN frame's counts, or NULL for an ACK frame
 * @newly_ect: packets we marked ECT(0) that it acknowledges first
 *
 * Return: 1 if the CE count grew (a congestion event), 0, or -1 if
 * validation failed just now (marking stops).
 */
int quic_ecn_on_ack(struct quic_ecn *e, const u64 *counts, u32 newly_ect)
{
	u64 ect0, ce;
	int i;

	if (e->state == QUIC_ECN_FAILED)
		return 0;
	if (!counts) {
		if (!newly_ect)
			return 0;
		goto fail;
	}
	for (i = 0; i < QUIC_ECN_COUNTS; i++)
		if (counts[i] < e->peer[i] || counts[i] > U32_MAX)
			goto fail;
	if (counts[QUIC_ECN_ECT1] != e->peer[QUIC_ECN_ECT1])
		goto fail;
	ect0 = counts[QUIC_ECN_ECT0] - e->peer[QUIC_ECN_ECT0];
	ce = counts[QUIC_ECN_CE] - e->peer[QUIC_ECN_CE];
	if (ect0 + ce < newly_ect)
		goto fail;
	for (i = 0; i < QUIC_ECN_COUNTS; i++)
		e->peer[i] = counts[i];
	if (newly_ect)
		e->state = QUIC_ECN_CAPABLE;
	return ce ? 1 : 0;
fail:
	e->state = QUIC_ECN_FAILED;
	return -1;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_ecn_on_ack);
