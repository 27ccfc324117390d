/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC tracepoints (net/quic): packets, congestion state, connection and
 * key events, paths, streams, a listener's decisions and drops.
 *
 * Every event names its socket by its cookie (the one SO_COOKIE, sock_diag
 * and BPF see), so that a trace can be cut per connection; events of a
 * listener carry the listener's. Spaces are QUIC_CRYPTO_* levels: 0
 * 1-RTT, 1 Initial, 2 Handshake, 3 0-RTT. A packet's frames are a bit
 * mask: bit N for frame type N (0x00 to 0x1e), bit 31 for DATAGRAM.
 * tools/quic/qlog turns a recorded trace into qlog.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM quic

#if !defined(_TRACE_QUIC_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_QUIC_H

#include <linux/tracepoint.h>
#include <linux/sock_diag.h>
#include <net/sock.h>

#ifndef _TRACE_QUIC_HELPERS
#define _TRACE_QUIC_HELPERS
/* The socket's cookie, made on first use (only when an event fires). */
static inline u64 quic_trace_cookie(struct sock *sk)
{
	u32 c[2];

	if (!sk)
		return 0;
	sock_diag_save_cookie(sk, c);
	return ((u64)c[1] << 32) | c[0];
}
#endif

/* Kernels from 6.10 take the source of a __string from its declaration. */
#undef quic_assign_str
#ifdef QUIC_HAVE_ASSIGN_STR_DST
#define quic_assign_str(dst, src)	__assign_str(dst)
#else
#define quic_assign_str(dst, src)	__assign_str(dst, src)
#endif

TRACE_DEFINE_ENUM(TCP_ESTABLISHED);
TRACE_DEFINE_ENUM(TCP_SYN_SENT);
TRACE_DEFINE_ENUM(TCP_SYN_RECV);
TRACE_DEFINE_ENUM(TCP_CLOSE);
TRACE_DEFINE_ENUM(TCP_LISTEN);

#define quic_trace_state(s)						\
	__print_symbolic(s, { TCP_ESTABLISHED, "ESTABLISHED" },		\
			 { TCP_SYN_SENT, "SYN_SENT" },			\
			 { TCP_SYN_RECV, "SYN_RECV" },			\
			 { TCP_CLOSE, "CLOSE" },			\
			 { TCP_LISTEN, "LISTEN" })

DECLARE_EVENT_CLASS(quic_packet_io,
		    TP_PROTO(struct sock *sk, u8 space, u64 pn, u32 size,
			     u32 frames),
		    TP_ARGS(sk, space, pn, size, frames),
		    TP_STRUCT__entry(__field(u64, cookie)
				     __field(u64, pn)
				     __field(u32, size)
				     __field(u32, frames)
				     __field(u8, space)),
		    TP_fast_assign(__entry->cookie = quic_trace_cookie(sk);
				   __entry->pn = pn;
				   __entry->size = size;
				   __entry->frames = frames;
				   __entry->space = space;),
		    TP_printk("cookie=%llu space=%u pn=%llu size=%u frames=%#x",
			      __entry->cookie, __entry->space, __entry->pn,
			      __entry->size, __entry->frames)
);

/* A packet was sealed for sending (coalesced packets fire one each). */
DEFINE_EVENT(quic_packet_io, quic_packet_sent,
	     TP_PROTO(struct sock *sk, u8 space, u64 pn, u32 size, u32 frames),
	     TP_ARGS(sk, space, pn, size, frames)
);

/* A packet was opened and its frames processed. */
DEFINE_EVENT(quic_packet_io, quic_packet_rcvd,
	     TP_PROTO(struct sock *sk, u8 space, u64 pn, u32 size, u32 frames),
	     TP_ARGS(sk, space, pn, size, frames)
);

DECLARE_EVENT_CLASS(quic_packet_fate,
		    TP_PROTO(struct sock *sk, u8 space, u64 pn, u32 size),
		    TP_ARGS(sk, space, pn, size),
		    TP_STRUCT__entry(__field(u64, cookie)
				     __field(u64, pn)
				     __field(u32, size)
				     __field(u8, space)),
		    TP_fast_assign(__entry->cookie = quic_trace_cookie(sk);
				   __entry->pn = pn;
				   __entry->size = size;
				   __entry->space = space;),
		    TP_printk("cookie=%llu space=%u pn=%llu size=%u",
			      __entry->cookie, __entry->space, __entry->pn,
			      __entry->size)
);

/* A sent packet was acknowledged. */
DEFINE_EVENT(quic_packet_fate, quic_packet_acked,
	     TP_PROTO(struct sock *sk, u8 space, u64 pn, u32 size),
	     TP_ARGS(sk, space, pn, size)
);

/* A sent ack-eliciting packet was declared lost (RFC 9002 6.1). */
DEFINE_EVENT(quic_packet_fate, quic_packet_lost,
	     TP_PROTO(struct sock *sk, u8 space, u64 pn, u32 size),
	     TP_ARGS(sk, space, pn, size)
);

/* An ACK proved packets declared lost delivered: the loss was spurious;
 * @largest: the ACK's largest packet number; @undo: the congestion event
 * it started was undone.
 */
TRACE_EVENT(quic_loss_spurious,
	    TP_PROTO(struct sock *sk, u64 largest, bool undo),
	    TP_ARGS(sk, largest, undo),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u64, largest)
			     __field(bool, undo)),
	    TP_fast_assign(__entry->cookie = quic_trace_cookie(sk);
			   __entry->largest = largest;
			   __entry->undo = undo;),
	    TP_printk("cookie=%llu largest=%llu undo=%d", __entry->cookie,
		      __entry->largest, __entry->undo)
);

/* The congestion and RTT state after @why: "ack", "loss", "ecn_ce" or
 * "undo" (as tcp:tcp_probe); times in microseconds, the rate in bytes/s.
 */
TRACE_EVENT(quic_cong,
	    TP_PROTO(struct sock *sk, const char *why, u64 cwnd, u64 ssthresh,
		     u64 in_flight, u64 srtt, u64 rttvar, u64 min_rtt,
		     u64 latest_rtt, u64 pacing_rate),
	    TP_ARGS(sk, why, cwnd, ssthresh, in_flight, srtt, rttvar, min_rtt,
		    latest_rtt, pacing_rate),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __string(why, why)
			     __field(u64, cwnd)
			     __field(u64, ssthresh)
			     __field(u64, in_flight)
			     __field(u64, srtt)
			     __field(u64, rttvar)
			     __field(u64, min_rtt)
			     __field(u64, latest_rtt)
			     __field(u64, pacing_rate)),
	    TP_fast_assign(__entry->cookie = quic_trace_cookie(sk);
			   quic_assign_str(why, why);
			   __entry->cwnd = cwnd;
			   __entry->ssthresh = ssthresh;
			   __entry->in_flight = in_flight;
			   __entry->srtt = srtt;
			   __entry->rttvar = rttvar;
			   __entry->min_rtt = min_rtt;
			   __entry->latest_rtt = latest_rtt;
			   __entry->pacing_rate = pacing_rate;),
	    TP_printk("cookie=%llu why=%s cwnd=%llu ssthresh=%llu in_flight=%llu srtt=%llu rttvar=%llu min_rtt=%llu latest_rtt=%llu pacing_rate=%llu",
		      __entry->cookie, __get_str(why), __entry->cwnd,
		      __entry->ssthresh, __entry->in_flight, __entry->srtt,
		      __entry->rttvar, __entry->min_rtt, __entry->latest_rtt,
		      __entry->pacing_rate)
);

/* The socket's state changed (TCP_* values, as sk_state). */
TRACE_EVENT(quic_state,
	    TP_PROTO(struct sock *sk, int oldstate, int newstate),
	    TP_ARGS(sk, oldstate, newstate),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u8, oldstate)
			     __field(u8, newstate)),
	    TP_fast_assign(__entry->cookie = quic_trace_cookie(sk);
			   __entry->oldstate = oldstate;
			   __entry->newstate = newstate;),
	    TP_printk("cookie=%llu old=%s new=%s", __entry->cookie,
		      quic_trace_state(__entry->oldstate),
		      quic_trace_state(__entry->newstate))
);

/* Keys of a space were installed ("install"), updated to a new 1-RTT key
 * phase ("update") or discarded ("discard"); @send: the transmit
 * direction.
 */
TRACE_EVENT(quic_key,
	    TP_PROTO(struct sock *sk, const char *what, u8 space, bool send,
		     u8 phase),
	    TP_ARGS(sk, what, space, send, phase),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __string(what, what)
			     __field(u8, space)
			     __field(u8, send)
			     __field(u8, phase)),
	    TP_fast_assign(__entry->cookie = quic_trace_cookie(sk);
			   quic_assign_str(what, what);
			   __entry->space = space;
			   __entry->send = send;
			   __entry->phase = phase;),
	    TP_printk("cookie=%llu what=%s space=%u send=%u phase=%u",
		      __entry->cookie, __get_str(what), __entry->space,
		      __entry->send, __entry->phase)
);

/* A path event: a validation started ("validating"), succeeded
 * ("validated", @value 1 for a new local address) or failed ("failed",
 * @value the challenges sent); the server followed to its preferred
 * address ("migrated"); a new datagram size in use ("mtu", @value the
 * size: it grows as PMTU probes succeed, and falls back to 1200 after a
 * black hole); ECN validated ("ecn_capable") or failed ("ecn_failed").
 */
TRACE_EVENT(quic_path,
	    TP_PROTO(struct sock *sk, const char *what, u64 value),
	    TP_ARGS(sk, what, value),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __string(what, what)
			     __field(u64, value)),
	    TP_fast_assign(__entry->cookie = quic_trace_cookie(sk);
			   quic_assign_str(what, what);
			   __entry->value = value;),
	    TP_printk("cookie=%llu what=%s value=%llu", __entry->cookie,
		      __get_str(what), __entry->value)
);

/* A stream's send or receive part changed state: @state is a
 * QUIC_STREAM_SEND_STATE_* or QUIC_STREAM_RECV_STATE_* value of
 * <linux/quic.h>, as the user's stream update event carries.
 */
TRACE_EVENT(quic_stream,
	    TP_PROTO(struct sock *sk, s64 id, u8 state),
	    TP_ARGS(sk, id, state),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(s64, id)
			     __field(u8, state)),
	    TP_fast_assign(__entry->cookie = quic_trace_cookie(sk);
			   __entry->id = id;
			   __entry->state = state;),
	    TP_printk("cookie=%llu id=%lld state=%u", __entry->cookie,
		      __entry->id, __entry->state)
);

/* A listener decided on a client's Initial that no connection owns:
 * "accept" (a request was made; "accept_retried" after a Retry), "retry"
 * (a Retry was sent), "token_invalid" (a token of ours that expired or
 * was made for another client; a Retry token so is also refused) or
 * "refuse" (a CONNECTION_CLOSE for a frame rule broken). Its drops are
 * quic_drop events of the listener.
 */
TRACE_EVENT(quic_initial,
	    TP_PROTO(struct sock *sk, const char *decision),
	    TP_ARGS(sk, decision),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __string(decision, decision)),
	    TP_fast_assign(__entry->cookie = quic_trace_cookie(sk);
			   quic_assign_str(decision, decision);),
	    TP_printk("cookie=%llu decision=%s", __entry->cookie,
		      __get_str(decision))
);

/* A received datagram or packet was dropped; @reason is the name of the
 * counter of /proc/net/quic/snmp it was counted in. @sk is the socket it
 * reached, if any (cookie 0: none).
 */
TRACE_EVENT(quic_drop,
	    TP_PROTO(struct sock *sk, const char *reason),
	    TP_ARGS(sk, reason),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __string(reason, reason)),
	    TP_fast_assign(__entry->cookie = quic_trace_cookie(sk);
			   quic_assign_str(reason, reason);),
	    TP_printk("cookie=%llu reason=%s", __entry->cookie,
		      __get_str(reason))
);

#endif /* _TRACE_QUIC_H */

#include <trace/define_trace.h>
