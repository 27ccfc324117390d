/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the send path of a connection (net/quic/output.c): the packet
 * builder. The data queued to send and the records of the packets sent
 * are sendq.h's; what acknowledged and lost packets mean for recovery
 * (recovery.h) is loss.h's.
 *
 * Everything here takes the socket locked (conn.h).
 */
#ifndef __NET_QUIC_OUTPUT_H
#define __NET_QUIC_OUTPUT_H

#include <linux/types.h>
#include <net/dst_cache.h>
#include "pmtu.h"
#include "recovery.h"

struct quic_conn;
struct quic_out_pkt;
struct sock;

/**
 * struct quic_out - the send side's buffers and budget
 * @buf: the 1-RTT frame buffer, QUIC_CONN_MAX_DGRAM bytes
 * @long_buf: the Initial and Handshake frame buffers, QUIC_CONN_MAX_DGRAM
 *	bytes each, freed once both spaces are discarded
 * @spare: per space, a packet record the last flush left unused, for the
 *	next one
 * @probes: PTO probe datagrams still allowed past the window and pacer
 *	(granted by loss.c, spent here)
 * @max_dgram: the datagram size once established, 0 before; it follows
 *	@pmtu's plpmtu
 * @pmtu: the path MTU search (pmtu.c): output.c sends the probes, loss.c
 *	reports them acknowledged or lost
 * @dst_cache: the route of the path, cached (udp.c)
 * @pkts_sent: packets sent (QUIC_SOCKOPT_INFO)
 * @bytes_sent: their bytes
 *
 * Owned by output.c: other files read it and set it only through the
 * helpers below.
 */
struct quic_out {
	u8			*buf;
	u8			*long_buf;
	struct quic_out_pkt	*spare[QUIC_PNSPACE_NUM];
	u8			probes;
	u32			max_dgram;
	struct quic_pmtu	pmtu;
	struct dst_cache	dst_cache;
	u64			pkts_sent;
	u64			bytes_sent;
};

/**
 * quic_out_set_probes() - allow PTO probes past the window and pacer
 * @o: the send side
 * @n: how many datagrams, 0 to end them
 */
static inline void quic_out_set_probes(struct quic_out *o, u8 n)
{
	o->probes = n;
}

/**
 * quic_out_reset_dgram() - no datagram size until established again
 * @o: the send side
 */
static inline void quic_out_reset_dgram(struct quic_out *o)
{
	o->max_dgram = 0;
}

int quic_output_init(void);
void quic_output_exit(void);
void quic_output_flush(struct sock *sk, gfp_t gfp);
void quic_output_ack_timeout(struct sock *sk);
void quic_output_pace_timeout(struct sock *sk);
void quic_output_close(struct sock *sk, u32 err, gfp_t gfp);
void quic_output_close_app(struct sock *sk, gfp_t gfp);
void quic_output_set_dgram(struct quic_conn *c, u32 size);
void quic_output_pmtu_check(struct sock *sk);
u32 quic_output_frame_room(struct sock *sk);
void quic_output_discard(struct sock *sk, u8 level);
void quic_output_free(struct sock *sk);

#endif /* __NET_QUIC_OUTPUT_H */
