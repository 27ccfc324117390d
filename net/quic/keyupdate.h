/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: key updates of the 1-RTT keys (net/quic/keyupdate.c, RFC 9001 6).
 */
#ifndef __NET_QUIC_KEYUPDATE_H
#define __NET_QUIC_KEYUPDATE_H

#include <linux/types.h>

struct sock;

int quic_key_update_ready(struct sock *sk);
int quic_key_update_local(struct sock *sk);
u32 quic_key_update_peer(struct sock *sk);
void quic_key_discard(struct sock *sk);
void quic_key_free_discarded(struct sock *sk);

#endif /* __NET_QUIC_KEYUPDATE_H */
