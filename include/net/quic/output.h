/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the send path of a connection (net/quic/output.c): the data
 * queued to send until it is acknowledged, the packet builder, and what
 * acknowledged and lost packets mean for recovery (recovery.h).
 *
 * Everything here takes the socket locked (conn.h).
 */
#ifndef __NET_QUIC_OUTPUT_H
#define __NET_QUIC_OUTPUT_H

#include <linux/types.h>

struct iov_iter;
struct quic_ack_range;
struct quic_frame_ack;
struct quic_stream;
struct sock;

int quic_output_crypto_room(struct sock *sk, u8 level, u32 len);
int quic_output_crypto(struct sock *sk, u8 level, struct iov_iter *from,
		       u32 len);
void quic_output_flush(struct sock *sk, gfp_t gfp);
void quic_output_ack_timeout(struct sock *sk);
void quic_output_pace_timeout(struct sock *sk);
void quic_output_close(struct sock *sk, u32 err, gfp_t gfp);
void quic_output_close_app(struct sock *sk, gfp_t gfp);
int quic_output_ack_rcvd(struct sock *sk, u8 level, bool ecn,
			 const struct quic_frame_ack *ack,
			 const struct quic_ack_range *ranges);
void quic_output_loss_timeout(struct sock *sk);
int quic_output_stream(struct sock *sk, struct quic_stream *st,
		       struct iov_iter *from, u32 len, bool fin);
void quic_output_discard(struct sock *sk, u8 level);
void quic_output_retry(struct sock *sk);
void quic_output_free(struct sock *sk);
u64 quic_output_unsent(struct sock *sk);
bool quic_output_done(struct sock *sk);
void quic_output_msd(struct sock *sk, s64 id);
void quic_output_stream_drop(struct sock *sk, s64 id);

#endif /* __NET_QUIC_OUTPUT_H */
