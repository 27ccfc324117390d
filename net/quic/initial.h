/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: opening a client's first Initial before any socket owns it
 * (net/quic/initial.c), so that the receive path can read the ClientHello
 * to choose a listener (quic-api.rst 7.4), and a listener queue only
 * Initials that start a connection.
 */

#ifndef __NET_QUIC_INITIAL_H
#define __NET_QUIC_INITIAL_H

#include <linux/types.h>

struct quic_pkt_hdr;

/**
 * enum quic_initial_verdict - what a client's first Initial can do
 * @QUIC_INITIAL_HELLO: it starts the client's ClientHello
 * @QUIC_INITIAL_NOTHING: it breaks no rule but starts no connection
 * @QUIC_INITIAL_VIOLATION: it breaks a rule of RFC 9000
 */
enum quic_initial_verdict {
	QUIC_INITIAL_HELLO,
	QUIC_INITIAL_NOTHING,
	QUIC_INITIAL_VIOLATION,
};

int quic_initial_open(u8 *pkt, const struct quic_pkt_hdr *h, u32 *off,
		      u32 *len);
int quic_initial_check(u8 *pkt, const struct quic_pkt_hdr *h, u32 *err);

#endif /* __NET_QUIC_INITIAL_H */
