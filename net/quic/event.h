/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: notifications delivered by recvmsg() (net/quic/event.c,
 * quic-api.rst section 5.6).
 */

#ifndef __NET_QUIC_EVENT_H
#define __NET_QUIC_EVENT_H

#include <linux/types.h>

struct msghdr;
struct sock;
struct quic_stream;

int quic_event_put(struct sock *sk, u8 type, const void *data, u32 len);
void quic_event_stream_update(struct sock *sk, s64 id, u8 state, u64 errcode,
			      u64 finalsz);
bool quic_event_pending(const struct sock *sk);
int quic_event_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
		       int flags);

#endif /* __NET_QUIC_EVENT_H */
