/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the send path of a connection (net/quic/output.c): the packet
 * builder. The data queued to send and the records of the packets sent
 * are sendq.h's; what acknowledged and lost packets mean for recovery
 * (recovery.h) is in output.c too.
 *
 * Everything here takes the socket locked (conn.h).
 */
#ifndef __NET_QUIC_OUTPUT_H
#define __NET_QUIC_OUTPUT_H

#include <linux/types.h>

struct quic_ack_range;
struct quic_frame_ack;
struct sock;

void quic_output_flush(struct sock *sk, gfp_t gfp);
void quic_output_ack_timeout(struct sock *sk);
void quic_output_pace_timeout(struct sock *sk);
void quic_output_close(struct sock *sk, u32 err, gfp_t gfp);
void quic_output_close_app(struct sock *sk, gfp_t gfp);
int quic_output_ack_rcvd(struct sock *sk, u8 level, bool ecn,
			 const struct quic_frame_ack *ack,
			 const struct quic_ack_range *ranges);
void quic_output_loss_timeout(struct sock *sk);
u32 quic_output_data_max(struct sock *sk, s64 id, u64 off);
void quic_output_discard(struct sock *sk, u8 level);
void quic_output_retry(struct sock *sk);
void quic_output_free(struct sock *sk);
void quic_output_msd(struct sock *sk, s64 id);

#endif /* __NET_QUIC_OUTPUT_H */
