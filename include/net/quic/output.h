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

struct quic_conn;
struct sock;

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
