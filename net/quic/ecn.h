/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: Explicit Congestion Notification (RFC 9000 13.4), net/quic/ecn.c.
 */
#ifndef __NET_QUIC_ECN_H
#define __NET_QUIC_ECN_H

#include <linux/types.h>

/* The spaces whose received marks are counted apart from the 1-RTT one. */
enum {
	QUIC_ECN_SPACE_INITIAL,
	QUIC_ECN_SPACE_HANDSHAKE,
	QUIC_ECN_LONG_SPACES,
};

/* Where a connection's use of ECN stands. */
enum quic_ecn_state {
	QUIC_ECN_TESTING,	/* marking; no ACK has confirmed it yet */
	QUIC_ECN_CAPABLE,	/* marking; the path and peer carry ECN */
	QUIC_ECN_FAILED,	/* validation failed: no marks any more */
};

/* Indices of the counts, in ACK_ECN order. */
enum {
	QUIC_ECN_ECT0,
	QUIC_ECN_ECT1,
	QUIC_ECN_CE,
	QUIC_ECN_COUNTS,
};

/**
 * struct quic_ecn - the ECN state of a connection
 * @rcvd: 1-RTT and 0-RTT packets received marked ECT(0), ECT(1), CE
 * @peer: the counts of the peer's last 1-RTT ACK_ECN frame
 * @state: enum quic_ecn_state
 * @long_rcvd: Initial and Handshake packets received marked ECT(0),
 *	ECT(1), CE; a handshake has few, and the counts stop at 255
 *
 * We mark only datagrams that carry nothing but a 1-RTT packet, so only
 * the 1-RTT space has our marks to validate; a peer's marks are counted
 * and reported in every space (RFC 9000 13.4.1).
 */
struct quic_ecn {
	u32	rcvd[QUIC_ECN_COUNTS];
	u32	peer[QUIC_ECN_COUNTS];
	u8	state;
	u8	long_rcvd[QUIC_ECN_LONG_SPACES][QUIC_ECN_COUNTS];
};

u8 quic_ecn_tos(const struct quic_ecn *e);
bool quic_ecn_rcvd(struct quic_ecn *e, u8 level, u8 tos);
bool quic_ecn_counts(const struct quic_ecn *e, u8 level, u64 *counts);
int quic_ecn_on_ack(struct quic_ecn *e, const u64 *counts, u32 newly_ect);

#endif /* __NET_QUIC_ECN_H */
