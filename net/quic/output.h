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

/* Streams whose MAX_STREAM_DATA waits to be sent, before "all". */
#define QUIC_CONN_MSD_PENDING		8

/**
 * struct quic_ctrl - connection-level control frames waiting to be sent
 * @msd_pending: streams whose MAX_STREAM_DATA is to be sent
 * @nr_msd: entries in @msd_pending
 * @msd_all: MAX_STREAM_DATA is to be sent for every open stream
 * @max_data_pending: MAX_DATA is to be sent
 * @handshake_done_pending: server: HANDSHAKE_DONE is to be sent
 * @new_token_pending: server: a NEW_TOKEN frame is to be sent
 * @new_token_unacked: server: the last NEW_TOKEN sent is not acknowledged
 * @hd_acked: server: our HANDSHAKE_DONE was acknowledged
 *
 * Owned by output.c, which sends them: other files ask for a frame
 * through the helpers below.
 */
struct quic_ctrl {
	s64			msd_pending[QUIC_CONN_MSD_PENDING];
	u8			nr_msd;
	bool			msd_all;
	bool			max_data_pending;
	u8			handshake_done_pending:1,
				new_token_pending:1,
				new_token_unacked:1,
				hd_acked:1;
};

/**
 * quic_ctrl_want_max_data() - a MAX_DATA frame is to be sent
 * @q: the pending control frames
 */
static inline void quic_ctrl_want_max_data(struct quic_ctrl *q)
{
	q->max_data_pending = true;
}

/**
 * quic_ctrl_want_handshake_done() - a HANDSHAKE_DONE frame is to be sent
 * @q: the pending control frames
 */
static inline void quic_ctrl_want_handshake_done(struct quic_ctrl *q)
{
	q->handshake_done_pending = 1;
}

/**
 * quic_ctrl_want_new_token() - a NEW_TOKEN frame is to be sent
 * @q: the pending control frames
 */
static inline void quic_ctrl_want_new_token(struct quic_ctrl *q)
{
	q->new_token_pending = 1;
}

/**
 * quic_ctrl_new_token_acked() - the last NEW_TOKEN sent was acknowledged
 * @q: the pending control frames
 */
static inline void quic_ctrl_new_token_acked(struct quic_ctrl *q)
{
	q->new_token_unacked = 0;
}

/**
 * quic_ctrl_handshake_done_acked() - our HANDSHAKE_DONE was acknowledged
 * @q: the pending control frames
 */
static inline void quic_ctrl_handshake_done_acked(struct quic_ctrl *q)
{
	q->hd_acked = 1;
}

/**
 * quic_ctrl_new_token_lost() - a NEW_TOKEN frame was lost
 * @q: the pending control frames
 *
 * A fresh one goes, unless a newer one was sent or is queued.
 *
 * Return: true if one is to be sent again.
 */
static inline bool quic_ctrl_new_token_lost(struct quic_ctrl *q)
{
	if (!q->new_token_unacked || q->new_token_pending)
		return false;
	q->new_token_unacked = 0;
	q->new_token_pending = 1;
	return true;
}

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

void quic_output_flush(struct sock *sk, gfp_t gfp);
void quic_output_ack_timeout(struct sock *sk);
void quic_output_pace_timeout(struct sock *sk);
void quic_output_close(struct sock *sk, u32 err, gfp_t gfp);
void quic_output_close_app(struct sock *sk, gfp_t gfp);
void quic_output_set_dgram(struct quic_conn *c, u32 size);
void quic_output_pmtu_check(struct sock *sk);
u32 quic_output_data_max(struct sock *sk, s64 id, u64 off);
void quic_output_discard(struct sock *sk, u8 level);
void quic_output_free(struct sock *sk);
void quic_output_msd(struct sock *sk, s64 id);

#endif /* __NET_QUIC_OUTPUT_H */
