/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: what a connection tells about itself, struct quic_info
 * (QUIC_SOCKOPT_INFO and the quic_diag dump), net/quic/info.c.
 */
#ifndef __NET_QUIC_INFO_H
#define __NET_QUIC_INFO_H

struct quic_info;
struct sock;

void quic_info_get(struct sock *sk, struct quic_info *info);

#endif /* __NET_QUIC_INFO_H */
