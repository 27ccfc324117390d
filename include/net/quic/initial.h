/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: opening a client's first Initial before any socket owns it
 * (net/quic/initial.c), so that the receive path can read the ClientHello
 * to choose a listener (socket-api.md 7.4).
 */

#ifndef __NET_QUIC_INITIAL_H
#define __NET_QUIC_INITIAL_H

#include <linux/types.h>

struct quic_pkt_hdr;

int quic_initial_open(u8 *pkt, const struct quic_pkt_hdr *h, u32 *off,
		      u32 *len);

#endif /* __NET_QUIC_INITIAL_H */
