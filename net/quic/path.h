/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: path validation and peer address changes (RFC 9000 8.2, 9), and
 * the anti-amplification limit (8.1), net/quic/path.c.
 */
#ifndef __NET_QUIC_PATH_H
#define __NET_QUIC_PATH_H

#include <linux/bits.h>
#include <linux/types.h>

#include "frame.h"
#include "protocol.h"

struct sock;
struct quic_udp_sock;

/* PATH_CHALLENGEs sent for one validation before it may fail, and at
 * most, while the time RFC 9000 8.2.4 gives it has not run out.
 */
#define QUIC_PATH_TRIES		3
#define QUIC_PATH_TRIES_MAX	16

/**
 * struct quic_path_amp - a server's anti-amplification limit (RFC 9000 8.1)
 * @bytes_rcvd: before @validated: bytes received from the client's address
 * @bytes_sent: before @validated: bytes sent to it
 * @validated: the client's address is validated (a token, or a Handshake
 *	packet from it); until then what we send is capped at three times
 *	what we received. A move to an address not validated starts it
 *	again (RFC 9000 9.3).
 *
 * Kept in struct quic_conn, not in the struct quic_path allocated on
 * first use: the limit applies from the first datagram.
 */
struct quic_path_amp {
	u32	bytes_rcvd;
	u32	bytes_sent;
	u8	validated:1;
};

/**
 * struct quic_paths - the addresses of a connection and their validation
 * @local: the local address of the path
 * @peer: the peer's address
 * @amp: server: the anti-amplification limit of the client's address;
 *	held here, as the limit applies during the handshake
 * @path: path validation state, kmalloc()ed on first use
 *
 * Owned by path.c: other files read it and set it only through the
 * helpers below (the connection's start and connect()).
 */
struct quic_paths {
	union quic_addr		local;
	union quic_addr		peer;
	struct quic_path_amp	amp;
	struct quic_path	*path;
};

/**
 * quic_paths_set_local() - the local address a connection starts with
 * @p: its paths
 * @a: the address
 */
static inline void quic_paths_set_local(struct quic_paths *p,
					const union quic_addr *a)
{
	p->local = *a;
}

/**
 * quic_paths_set_peer() - the peer address a connection starts with
 * @p: its paths
 * @a: the address
 */
static inline void quic_paths_set_peer(struct quic_paths *p,
				       const union quic_addr *a)
{
	p->peer = *a;
}

/**
 * quic_paths_amp_init() - a server's client address, validated or not
 * @p: the connection's paths
 * @validated: the client's Initial carried a valid token
 */
static inline void quic_paths_amp_init(struct quic_paths *p, bool validated)
{
	p->amp.validated = validated;
}

/**
 * struct quic_path - a path being validated, and a challenge to answer
 * @prev: server, while @validating: the peer address in use before it
 *	moved, validated, to go back to if the new one fails validation;
 *	client, once @preferred: the server's address before it moved to
 *	its preferred address
 * @new_local: while @migrating: the local address being moved to
 * @new_us: while @migrating: its UDP socket, referenced
 * @new_peer: while @preferring: the server's preferred address (client)
 * @pref_local: server: the preferred address it offers; client: the
 *	local address of the path to a preferred address of the other family
 * @pref_us: the UDP socket of @pref_local, referenced
 * @resp_addr: where the PATH_RESPONSE goes: the challenge's source
 * @challenge: the data of our PATH_CHALLENGE
 * @response: the data of the peer's PATH_CHALLENGE, to echo
 * @resp_budget: bytes the response datagram may take towards an address
 *	not validated (three times what came from it, RFC 9000 8.1)
 * @since: when this validation began (jiffies)
 * @tries: PATH_CHALLENGEs sent for this validation
 * @validating: the peer moved to an address not validated yet
 * @migrating: we are moving to @new_local (QUIC_SOCKOPT_CONNECTION_MIGRATION)
 * @challenge_pending: a PATH_CHALLENGE is to be sent
 * @response_pending: a PATH_RESPONSE is to be sent
 * @resp_pref: server: the challenge to answer came to @pref_local, and
 *	the response leaves from there
 * @preferring: client: the path to @new_peer is being validated
 * @preferred: client: it moved to the server's preferred address, from
 *	@prev
 *
 * Allocated the first time a connection needs it: most never do.
 */
struct quic_path {
	union quic_addr	prev;
	union quic_addr	new_local;
	struct quic_udp_sock *new_us;
	union quic_addr	new_peer;
	union quic_addr	pref_local;
	struct quic_udp_sock *pref_us;
	union quic_addr	resp_addr;
	u8		challenge[QUIC_FRAME_PATH_DATA_LEN];
	u8		response[QUIC_FRAME_PATH_DATA_LEN];
	u32		resp_budget;
	unsigned long	since;
	u8		tries;
	u8		validating:1,
			migrating:1,
			challenge_pending:1,
			response_pending:1,
			resp_pref:1,
			preferring:1,
			preferred:1;
};

/* What a path event asks of the rest of the connection, which path.c
 * does not own: quic_conn_path_changed() (conn.c) does it.
 *
 * QUIC_PATH_NEW_ROUTE: another IP address at one end; congestion
 *	control, the RTT estimate and the datagram size start over (RFC 9000
 *	9.4)
 * QUIC_PATH_NEW_DCID: a new path takes a connection ID not used before
 *	(RFC 9000 9.5)
 * QUIC_PATH_NEW_LOCAL: our local address moved; the socket's name follows
 */
#define QUIC_PATH_NEW_ROUTE	BIT(0)
#define QUIC_PATH_NEW_DCID	BIT(1)
#define QUIC_PATH_NEW_LOCAL	BIT(2)

void quic_path_free(struct sock *sk);
void quic_path_amp_rcvd(struct sock *sk, u32 len);
u32 quic_path_amp_room(struct sock *sk);
u32 quic_path_amp_min(struct sock *sk);
void quic_path_amp_sent(struct sock *sk, u32 len);
void quic_path_addr_validated(struct sock *sk);
void quic_path_challenge_rcvd(struct sock *sk, const u8 *data,
			      const union quic_addr *from, u32 len,
			      const struct quic_udp_sock *to);
unsigned int __must_check quic_path_response_rcvd(struct sock *sk,
						  const u8 *data);
unsigned int __must_check quic_path_peer_moved(struct sock *sk,
					       const union quic_addr *from,
					       u32 len);
bool quic_path_peer_known(struct sock *sk, const union quic_addr *from);
bool quic_path_challenge_lost(struct sock *sk, u64 try);
void quic_path_challenge_pto(struct sock *sk);
int quic_path_migrate(struct sock *sk, const union quic_addr *local,
		      struct quic_udp_sock *us);
int quic_path_prefer(struct sock *sk, const union quic_addr *addr,
		     struct quic_udp_sock *us);
unsigned int __must_check
quic_path_local_arrived(struct sock *sk, const struct quic_udp_sock *to);
void quic_path_preferred_prepare(struct sock *sk);
unsigned int __must_check quic_path_preferred_start(struct sock *sk);
void quic_path_pick_source(struct sock *sk, const union quic_addr *peer,
			   union quic_addr *local);

#endif /* __NET_QUIC_PATH_H */
