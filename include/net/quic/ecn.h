/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: Explicit Congestion Notification (RFC 9000 13.4), net/quic/ecn.c.
 */
#ifndef __NET_QUIC_ECN_H
#define __NET_QUIC_ECN_H

#include <linux/types.h>

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
 * struct quic_ecn - the ECN state of a connection's 1-RTT space
 * @rcvd: 1-RTT and 0-RTT packets received marked ECT(0), ECT(1), CE
 * @peer: the counts of the peer's last ACK_ECN frame
 * @state: enum quic_ecn_state
 *
 * Only datagrams that carry nothing but a 1-RTT packet are marked, so only
 * the 1-RTT space has counts to report and to validate.
 */
struct quic_ecn {
	u32	rcvd[QUIC_ECN_COUNTS];
	u32	peer[QUIC_ECN_COUNTS];
	u8	state;
};

u8 quic_ecn_tos(const struct quic_ecn *e);
bool quic_ecn_rcvd(struct quic_ecn *e, u8 tos);
bool quic_ecn_counts(const struct quic_ecn *e, u64 *counts);
int quic_ecn_on_ack(struct quic_ecn *e, const u64 *counts, u32 newly_ect);

#endif /* __NET_QUIC_ECN_H */
