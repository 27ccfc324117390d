/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the connection-independent SOL_QUIC socket options
 * (net/quic/sockopt.c): what a socket stores on behalf of its user before
 * and independently of a connection, and the setsockopt()/getsockopt()
 * handlers of those options (quic-api.rst, sections 5.6, 5.8, 5.10, 6).
 */

#ifndef _NET_QUIC_SOCKOPT_H
#define _NET_QUIC_SOCKOPT_H

#include <linux/quic.h>
#include <linux/sockptr.h>
#include <linux/types.h>
#include "tparam.h"

struct sock;

/* Longest QUIC_SOCKOPT_ALPN string, and its TLS wire form (one length
 * byte per element instead of the commas, plus one).
 */
#define QUIC_ALPN_MAX_LEN		128
#define QUIC_ALPN_MAX_WIRE_LEN		(QUIC_ALPN_MAX_LEN + 1)
/* Longest client token (QUIC_SOCKOPT_TOKEN). */
#define QUIC_TOKEN_MAX_LEN		120
/* Session ticket bounds (QUIC_SOCKOPT_SESSION_TICKET). */
#define QUIC_TICKET_MIN_LEN		64
#define QUIC_TICKET_MAX_LEN		4096

/**
 * struct quic_sock_opts - the user-visible settings of a QUIC socket
 * @config: QUIC_SOCKOPT_CONFIG values
 * @remembered: the peer's transport parameters of an earlier connection,
 *	as set with QUIC_SOCKOPT_TRANSPORT_PARAM and remote = 1 for 0-RTT
 *	(quic-api.rst 4.6), meaningful once @remembered_set
 * @close: QUIC_SOCKOPT_CONNECTION_CLOSE information: the local settings
 *	until a close happens, then those of that close
 * @ticket: session ticket (client: session data or captured ticket;
 *	server: ticket key), kmalloc()ed, NULL if none
 * @ticket_len: bytes at @ticket
 * @events: bit n set when event type n is enabled
 * @remembered_set: @remembered was set
 * @server: the socket was created by accept(); listeners are servers too
 *	(see quic_sock_opts_is_server())
 * @close_alert: @close was set with frame CRYPTO and a CRYPTO_ERROR code:
 *	the TLS alert of a handshake the user-space half failed, sent as a
 *	transport close before the handshake completes (quic_close_local())
 * @alpn_len: bytes at @alpn; 0 when no ALPN is set
 * @token_len: bytes at @token
 * @alpn: ALPN list in TLS wire form (length-prefixed elements)
 * @token: client: the token sent in Initial packets
 *
 * Our transport parameters and the peer's are the connection's
 * (quic_conn.local_tp and quic_conn.peer_tp), QUIC_SOCKOPT_TRANSPORT_PARAM
 * reads and writes them there; @remembered stands in for the peer's until
 * those are in, for a get and for the stream limits of 0-RTT, and is
 * never used in place of the peer's values elsewhere (RFC 9000 7.4.1).
 */
struct quic_sock_opts {
	struct quic_config		config;
	struct quic_tparams		remembered;
	struct quic_connection_close	close;
	u8				*ticket;
	u16				ticket_len;
	u16				events;
	u8				remembered_set:1,
					server:1,
					close_alert:1;
	u8				alpn_len;
	u8				token_len;
	u8				alpn[QUIC_ALPN_MAX_WIRE_LEN];
	u8				token[QUIC_TOKEN_MAX_LEN];
};

/* setsockopt() rejects larger arguments of SOL_QUIC options. */
#define QUIC_SOCKOPT_MAX_LEN	4096

void quic_sock_opts_init(struct quic_sock_opts *o, bool server);
void quic_sock_opts_free(struct quic_sock_opts *o);
void quic_sock_opts_drop_ticket(struct quic_sock_opts *o);
void quic_sock_opts_take_ticket(struct quic_sock_opts *o, u8 *ticket,
				u16 len);
void quic_sock_opts_copy(struct quic_sock_opts *dst,
			 const struct quic_sock_opts *src);
bool quic_sock_opts_is_server(const struct sock *sk);

int quic_sockopt_set(struct sock *sk, int optname, sockptr_t optval,
		     unsigned int optlen);
int quic_sockopt_get(struct sock *sk, int optname, sockptr_t optval,
		     sockptr_t optlen);

/**
 * quic_sock_opts_event_on - whether an event type is enabled
 * @o: the options
 * @type: a QUIC_EVENT_* value
 *
 * Return: true if the user enabled @type with QUIC_SOCKOPT_EVENT.
 */
static inline bool quic_sock_opts_event_on(const struct quic_sock_opts *o,
					   u8 type)
{
	return type < QUIC_EVENT_MAX && (o->events & BIT(type));
}

#endif /* _NET_QUIC_SOCKOPT_H */
