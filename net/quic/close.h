/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: closing, draining and the idle timeout of a connection
 * (net/quic/close.c).
 *
 * Everything here takes the socket locked (conn.h).
 */
#ifndef __NET_QUIC_CLOSE_H
#define __NET_QUIC_CLOSE_H

#include <linux/types.h>

struct quic_frame_close;
struct sk_buff;
struct sock;

/**
 * struct quic_close - how a connection ends
 * @err: transport error to close with, set by the input path
 * @skb: closing state: a copy of our CONNECTION_CLOSE datagram
 * @rcvd: closing state: packets received since it began
 * @idle_last: jiffies of the last packet processed, of the first
 *	ack-eliciting packet sent after it, or of the start
 * @idle_sent: an ack-eliciting packet went out since the last one processed
 * @closing: closing state (RFC 9000 10.2.1): we sent CONNECTION_CLOSE
 * @draining: draining state (RFC 9000 10.2.2): the peer sent it
 *
 * Owned by close.c: other files read it and change it only through
 * close.c's functions (quic_close_conn(), quic_close_idle_sent(), ...).
 */
struct quic_close {
	u32			err;
	struct sk_buff		*skb;
	u32			rcvd;
	unsigned long		idle_last;
	bool			idle_sent;
	bool			closing;
	bool			draining;
};

void quic_close_conn(struct sock *sk, u32 err);
void quic_close_abort(struct sock *sk, u32 err, int sk_err);
void quic_close_frame(struct sock *sk, const struct quic_frame_close *f,
		      bool app);
void quic_close_sent(struct sock *sk, const struct sk_buff *skb);
void quic_close_rcv(struct sock *sk, struct sk_buff *skb);
void quic_close_done(struct sock *sk);
void quic_close_free(struct sock *sk);
u64 quic_close_idle_us(u64 local, u64 peer, u64 floor);
void quic_close_idle_start(struct sock *sk);
void quic_close_idle_touch(struct sock *sk);
void quic_close_idle_sent(struct sock *sk);
void quic_close_idle_timeout(struct sock *sk);
int quic_close_shutdown(struct sock *sk, int how);
void quic_close_local(struct sock *sk, bool send);
bool quic_close_reset_check(struct sock *sk, const u8 *buf, u32 len);

#endif /* __NET_QUIC_CLOSE_H */
