// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: DPLPMTUD, the search for the largest datagram a path carries
 * (see pmtu.h).
 */

#include <linux/minmax.h>
#include <linux/string.h>
#include "export.h"
#include "pmtu.h"

static void quic_pmtu_check_done(struct quic_pmtu *p)
{
	if (p->plpmtu >= p->max || p->fail - p->plpmtu <= QUIC_PMTU_STEP)
		p->done = true;
}

/**
 * quic_pmtu_init() - a path whose search has not started
 * @p: the state
 * @base: BASE_PLPMTU (1200 for QUIC)
 * @max: the largest size the route and the transport parameters allow
 */
void quic_pmtu_init(struct quic_pmtu *p, u32 base, u32 max)
{
	memset(p, 0, sizeof(*p));
	p->base = base;
	p->max = max(max, base);
	p->plpmtu = base;
	p->fail = p->max + 1;
	quic_pmtu_check_done(p);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_pmtu_init);

/**
 * quic_pmtu_restart() - search again above the size in use
 * @p: the state
 *
 * After the PLPMTUD probe interval, a path may have grown (RFC 8899
 * 5.2: the PROBE_RAISE_TIMER).
 */
void quic_pmtu_restart(struct quic_pmtu *p)
{
	if (p->probe)
		return;
	p->fail = p->max + 1;
	p->lost = 0;
	p->done = false;
	quic_pmtu_check_done(p);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_pmtu_restart);

/**
 * quic_pmtu_next() - the size of the next probe
 * @p: the state
 *
 * Return: the size, or 0 if no probe is due (one is in flight, or the
 *	search is over).
 */
u32 quic_pmtu_next(const struct quic_pmtu *p)
{
	if (p->done || p->probe)
		return 0;
	if (p->fail > p->max)
		return p->max;
	return p->plpmtu + (p->fail - p->plpmtu) / 2;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_pmtu_next);

/**
 * quic_pmtu_sent() - a probe was sent
 * @p: the state
 * @size: its size, as quic_pmtu_next() gave it
 * @pn: its packet number
 */
void quic_pmtu_sent(struct quic_pmtu *p, u32 size, u64 pn)
{
	p->probe = size;
	p->probe_pn = pn;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_pmtu_sent);

/**
 * quic_pmtu_acked() - a packet was acknowledged
 * @p: the state
 * @pn: its packet number
 *
 * Return: true if it was the probe: its size is confirmed and in use.
 */
bool quic_pmtu_acked(struct quic_pmtu *p, u64 pn)
{
	if (!p->probe || pn != p->probe_pn)
		return false;
	p->plpmtu = max(p->plpmtu, p->probe);
	p->probe = 0;
	p->lost = 0;
	quic_pmtu_check_done(p);
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_pmtu_acked);

/**
 * quic_pmtu_lost() - a packet was declared lost
 * @p: the state
 * @pn: its packet number
 *
 * A lost probe says nothing of congestion (RFC 9000 14.4): the caller
 * keeps it from its congestion controller. After MAX_PROBES losses its
 * size is taken as too large.
 *
 * Return: true if it was the probe.
 */
bool quic_pmtu_lost(struct quic_pmtu *p, u64 pn)
{
	if (!p->probe || pn != p->probe_pn)
		return false;
	if (++p->lost >= QUIC_PMTU_MAX_PROBES) {
		p->fail = p->probe;
		p->lost = 0;
	}
	p->probe = 0;
	quic_pmtu_check_done(p);
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_pmtu_lost);
