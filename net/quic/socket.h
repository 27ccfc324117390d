/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the socket (net/quic/socket.c).
 */

#ifndef __NET_QUIC_SOCKET_H
#define __NET_QUIC_SOCKET_H

#include <linux/ipv6.h>
#include <linux/net.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <trace/events/quic.h>
#include "sockopt.h"
#include "conn.h"

struct quic_udp_sock;

/**
 * struct quic_sock - a QUIC socket: one connection or one listener
 * @inet: the inet socket; must come first
 * @bound: bind() succeeded; a socket binds once
 * @udp: the shared UDP socket of the bound address, once bound
 * @opts: the connection-independent SOL_QUIC option settings
 * @conn: the connection (conn.c)
 *
 * The bound address and port live in the inet fields (inet_rcv_saddr,
 * inet_saddr, inet_sport, sk_v6_rcv_saddr), as for the other inet
 * protocols.
 */
struct quic_sock {
	struct inet_sock	inet;
	u8			bound;
	struct quic_udp_sock	*udp;
	struct quic_sock_opts	opts;
	struct quic_conn	conn;
};

/**
 * struct quic6_sock - an AF_INET6 QUIC socket
 * @quic: the QUIC socket; must come first
 * @inet6: the IPv6 state; must come last (see inet6_sk_generic())
 */
struct quic6_sock {
	struct quic_sock	quic;
	struct ipv6_pinfo	inet6;
};

static inline struct quic_sock *quic_sk(const struct sock *sk)
{
	return (struct quic_sock *)sk;
}

/* The socket a connection belongs to. */
static inline struct sock *quic_conn_sk(struct quic_conn *c)
{
	return (struct sock *)container_of(c, struct quic_sock, conn);
}

/* Every state change of a QUIC socket, traced (quic:quic_state). */
static inline void quic_set_state(struct sock *sk, int state)
{
	if (sk->sk_state != state)
		trace_quic_state(sk, sk->sk_state, state);
	inet_sk_set_state(sk, state);
}

/* A connection, being set up or established. */
static inline bool quic_is_conn(const struct sock *sk)
{
	return sk->sk_state == TCP_SYN_RECV || sk->sk_state == TCP_ESTABLISHED;
}

/* Streams may be opened and written: the connection is established, or
 * a client set the peer's remembered parameters for 0-RTT (quic-api.rst
 * 4.6).
 */
static inline bool quic_streams_up(const struct sock *sk)
{
	return quic_is_conn(sk) && quic_sk(sk)->conn.streams_ready;
}

/* quic-api.rst 5.2 rule 6: beyond the peer's stream limit, a sender
 * waits for MAX_STREAMS; before the 1-RTT send key (0-RTT) it cannot.
 */
static inline int quic_streams_limit_err(const struct sock *sk)
{
	return sk->sk_state == TCP_ESTABLISHED ? -EAGAIN : -EINVAL;
}

/* The MSG_QUIC_STREAM_* flags sendmsg() and STREAM_OPEN take. */
#define QUIC_STREAM_FLAGS	(MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN | \
				 MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_DONTWAIT | \
				 MSG_QUIC_STREAM_SNDBLOCK)

/* Every flag sendmsg() takes (quic-api.rst 5.2); others give EINVAL. */
#define QUIC_SEND_FLAGS		(QUIC_STREAM_FLAGS | MSG_MORE | MSG_DONTWAIT | \
				 MSG_NOSIGNAL | MSG_WAITALL | MSG_BATCH | \
				 MSG_QUIC_DATAGRAM | MSG_CMSG_COMPAT)

/* The protocols and socket operations registered by protocol.c. */
extern struct proto quic_prot;
extern struct proto quic_v6_prot;
extern const struct proto_ops quic_proto_ops;
extern const struct proto_ops quic_v6_proto_ops;

/* Whether @sk, from a caller outside the socket layer (a kernel user),
 * is a QUIC socket at all.
 */
static inline bool quic_sk_is_quic(const struct sock *sk)
{
	return sk && (sk->sk_prot == &quic_prot ||
		      sk->sk_prot == &quic_v6_prot);
}

int quic_sock_autobind(struct sock *sk, int family);
void quic_sock_set_local(struct sock *sk, const union quic_addr *a);
int quic_sock_migrate(struct sock *sk, sockptr_t optval, unsigned int optlen);

/* The connection's active_sid and stream_rx are socket.c's (the send and
 * receive calls): other files change them only through these.
 */

/**
 * quic_sock_active_set() - the stream a send with stream ID -1 goes to
 * @c: the connection, its socket locked
 * @id: the stream ID, or -1 for none
 */
static inline void quic_sock_active_set(struct quic_conn *c, s64 id)
{
	c->active_sid = id;
}

/**
 * quic_sock_active_drop() - a stream can take no more sends
 * @c: the connection, its socket locked
 * @id: the stream ID; if it was the active stream, there is none now
 */
static inline void quic_sock_active_drop(struct quic_conn *c, s64 id)
{
	if (c->active_sid == id)
		c->active_sid = -1;
}

/**
 * quic_sock_stream_readable() - some stream has data (or a FIN) to read
 * @c: the connection, its socket locked
 */
static inline void quic_sock_stream_readable(struct quic_conn *c)
{
	WRITE_ONCE(c->stream_rx, true);
}

#endif /* __NET_QUIC_SOCKET_H */
