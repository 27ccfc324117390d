/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: version negotiation (RFC 9000 6, RFC 9368), net/quic/version.c.
 */
#ifndef __NET_QUIC_VERSION_H
#define __NET_QUIC_VERSION_H

#include <linux/types.h>

struct sock;
struct quic_pkt_hdr;
struct quic_tparams;

u32 quic_version_wire(const struct sock *sk);
int quic_version_vn_rcvd(struct sock *sk, const struct quic_pkt_hdr *h);
bool quic_version_rcvd(struct sock *sk, const struct quic_pkt_hdr *h);
void quic_version_apply(struct sock *sk);
int quic_version_upgrade(struct sock *sk, const struct quic_tparams *tp);
int quic_version_check_peer(struct sock *sk, const struct quic_tparams *tp);

#endif /* __NET_QUIC_VERSION_H */
