/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: datagram packetization layer path MTU discovery (DPLPMTUD, RFC
 * 8899 section 5, as RFC 9000 14.3 applies it to QUIC).
 *
 * Pure: the caller (output.c) sends the probes (PING and PADDING, alone
 * in a datagram of the size asked) and reports their fate by packet
 * number. Sizes are UDP payloads. The search starts from BASE_PLPMTU
 * (1200, QUIC's smallest datagram): the largest size allowed is probed
 * first, then the range between the largest confirmed and the smallest
 * failed size is halved until it is narrower than QUIC_PMTU_STEP. Only
 * confirmed sizes are used.
 */
#ifndef _NET_QUIC_PMTU_H
#define _NET_QUIC_PMTU_H

#include <linux/types.h>

/* RFC 8899 5.1.2: MAX_PROBES. */
#define QUIC_PMTU_MAX_PROBES	3
/* The search ends when the unknown range is this narrow. */
#define QUIC_PMTU_STEP		16

/**
 * struct quic_pmtu - the search state of a path
 * @base: BASE_PLPMTU, the size every QUIC path carries
 * @max: MAX_PLPMTU: the route's MTU and both ends' max_udp_payload_size
 * @plpmtu: the largest size confirmed, the one in use
 * @fail: the smallest size that failed MAX_PROBES times, @max + 1 before
 * @probe: the size of the probe in flight, 0 if none
 * @probe_pn: its packet number
 * @lost: probes of the size being probed lost so far
 * @done: the search is over (SEARCH_COMPLETE)
 * @raise_at: the caller's: when to search again (quic_pmtu_restart()),
 *	0 if not planned
 */
struct quic_pmtu {
	u32	base;
	u32	max;
	u32	plpmtu;
	u32	fail;
	u32	probe;
	u64	probe_pn;
	u8	lost;
	bool	done;
	u64	raise_at;
};

void quic_pmtu_init(struct quic_pmtu *p, u32 base, u32 max);
void quic_pmtu_restart(struct quic_pmtu *p);
u32 quic_pmtu_next(const struct quic_pmtu *p);
void quic_pmtu_sent(struct quic_pmtu *p, u32 size, u64 pn);
bool quic_pmtu_acked(struct quic_pmtu *p, u64 pn);
bool quic_pmtu_lost(struct quic_pmtu *p, u64 pn);

#endif /* _NET_QUIC_PMTU_H */
