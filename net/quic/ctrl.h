/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the connection-level control frames waiting to be sent, and their
 * building into a 1-RTT packet (net/quic/ctrl.c). The packet builder,
 * which calls quic_ctrl_frames(), is output.h's.
 *
 * Everything here takes the socket locked (conn.h).
 */
#ifndef __NET_QUIC_CTRL_H
#define __NET_QUIC_CTRL_H

#include <linux/types.h>

struct quic_out_pkt;
struct sock;

/* Streams whose MAX_STREAM_DATA waits to be sent, before "all". */
#define QUIC_CTRL_MSD_PENDING		8

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
 * Owned by ctrl.c, which builds them: other files ask for a frame
 * through the helpers below.
 */
struct quic_ctrl {
	s64			msd_pending[QUIC_CTRL_MSD_PENDING];
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

u32 quic_ctrl_frames(struct sock *sk, u8 *buf, u32 room,
		     struct quic_out_pkt *rec);
void quic_ctrl_msd(struct sock *sk, s64 id);

#endif /* __NET_QUIC_CTRL_H */
