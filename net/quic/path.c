// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: path validation and peer address changes (RFC 9000 8.2, 9).
 *
 * A PATH_CHALLENGE is answered with a PATH_RESPONSE carrying its data,
 * sent to the address the challenge came from, in a datagram of its own
 * expanded to 1200 bytes as far as the anti-amplification limit of that
 * address lets it (RFC 9000 8.2.2).
 *
 * A server whose client sends a non-probing 1-RTT packet, the highest
 * numbered yet, from a new address (a NAT rebinding, or a client that
 * moved) sends to that address from then on and validates it with a
 * PATH_CHALLENGE (RFC 9000 9.3); until the PATH_RESPONSE comes it sends
 * at most three times what it received from there. When the IP address
 * changed, not only the port, the congestion controller, the RTT estimate
 * and the datagram size start again (9.4). A PATH_CHALLENGE lost
 * QUIC_PATH_TRIES times in all fails the validation: the server goes back
 * to the address it used before. The validated move is reported with
 * QUIC_EVENT_CONNECTION_MIGRATION (socket-api.md 5.6).
 *
 * An endpoint moves its own local address with
 * QUIC_SOCKOPT_CONNECTION_MIGRATION (socket-api.md 5.9): it probes the
 * new path with a PATH_CHALLENGE sent from there and switches to it when
 * the PATH_RESPONSE comes, raising the event with local_migration set;
 * QUIC_PATH_TRIES challenges lost, it stays where it is.
 *
 * Either way the destination connection ID moves to the next one the
 * peer issued, if it issued a spare (RFC 9000 9.5), so that the new path
 * cannot be linked to the old one by it.
 */

#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include <net/quic/conn.h>
#include <net/quic/event.h>
#include <net/quic/mib.h>
#include <net/quic/path.h>
#include <net/quic/socket.h>
#include <net/quic/udp.h>

/* The path state, allocated on first use; NULL without memory (the peer
 * asks again, or moves again).
 */
static struct quic_path *quic_path_get(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (!c->path)
		c->path = kzalloc(sizeof(*c->path), GFP_ATOMIC | __GFP_NOWARN);
	return c->path;
}

/**
 * quic_path_free() - release the path state
 * @sk: the socket, locked
 */
void quic_path_free(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (c->path && c->path->new_us)
		quic_udp_sock_put(c->path->new_us);
	kfree(c->path);
	c->path = NULL;
}

/**
 * quic_path_challenge_rcvd() - a PATH_CHALLENGE arrived
 * @sk: the socket, locked
 * @data: its 8 bytes
 * @from: the address it came from
 * @len: the bytes of the datagram that brought it
 *
 * The response goes to @from; only the latest challenge is answered.
 */
void quic_path_challenge_rcvd(struct sock *sk, const u8 *data,
			      const union quic_addr *from, u32 len)
{
	struct quic_path *p = quic_path_get(sk);

	if (!p)
		return;
	memcpy(p->response, data, QUIC_FRAME_PATH_DATA_LEN);
	p->resp_addr = *from;
	p->resp_budget = 3 * len;
	p->response_pending = 1;
}

/* The peer is reached at @addr again, validated. */
static void quic_path_settle(struct sock *sk, const union quic_addr *addr)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_path *p = c->path;

	if (memcmp(&c->peer, addr, sizeof(*addr))) {
		c->peer = *addr;
		dst_cache_reset(&c->dst_cache);
	}
	p->validating = 0;
	p->challenge_pending = 0;
	quic_conn_addr_validated(sk);
}

/* Do @a and @b differ in more than the port? */
static bool quic_path_ip_changed(const union quic_addr *a,
				 const union quic_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return true;
	if (a->sa.sa_family == AF_INET)
		return a->v4.sin_addr.s_addr != b->v4.sin_addr.s_addr;
	return !ipv6_addr_equal(&a->v6.sin6_addr, &b->v6.sin6_addr);
}

/* The PATH_RESPONSE to our probe came: our local address moves. The old
 * UDP socket goes once nothing else holds it; packets the peer sent
 * there meanwhile are lost and sent again.
 */
static void quic_path_switch_local(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_path *p = c->path;
	struct quic_udp_sock *old = quic_sk(sk)->udp;

	if (quic_path_ip_changed(&c->local, &p->new_local))
		quic_conn_path_reset(sk);
	quic_sk(sk)->udp = p->new_us;
	p->new_us = NULL;
	c->local = p->new_local;
	quic_sock_set_local(sk, &c->local);
	dst_cache_reset(&c->dst_cache);
	p->migrating = 0;
	p->challenge_pending = 0;
	quic_udp_sock_put(old);
}

/**
 * quic_path_response_rcvd() - a PATH_RESPONSE arrived
 * @sk: the socket, locked
 * @data: its 8 bytes
 *
 * One that echoes our challenge validates the peer's new address.
 */
void quic_path_response_rcvd(struct sock *sk, const u8 *data)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_path *p = c->path;
	u8 local = 0;

	if (!p || !(p->validating || p->migrating) ||
	    memcmp(p->challenge, data, QUIC_FRAME_PATH_DATA_LEN))
		return;
	if (p->migrating) {
		quic_path_switch_local(sk);
		local = 1;
	} else {
		quic_path_settle(sk, &c->peer);
	}
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_PATH_MIGRATED);
	quic_event_put(sk, QUIC_EVENT_CONNECTION_MIGRATION, &local,
		       sizeof(local));
}

/* The probe of our new local address failed: stay where we are. */
static void quic_path_abandon(struct sock *sk)
{
	struct quic_path *p = quic_sk(sk)->conn.path;

	quic_udp_sock_put(p->new_us);
	p->new_us = NULL;
	p->migrating = 0;
	p->challenge_pending = 0;
}

/**
 * quic_path_peer_moved() - a non-probing packet came from a new address
 * @sk: the socket, locked
 * @from: that address
 * @len: the bytes of the datagram that brought it
 *
 * Only a server follows its peer, once the handshake is confirmed (RFC
 * 9000 9), and not when its local disable_active_migration parameter is
 * set: socket-api.md 5.9 has it ignore address changes then.
 */
void quic_path_peer_moved(struct sock *sk, const union quic_addr *from,
			  u32 len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_path *p;

	if (!c->is_server || sk->sk_state != TCP_ESTABLISHED ||
	    !c->handshake_confirmed ||
	    quic_tparams_has(&c->local_tp, QUIC_TPB_DISABLE_ACTIVE_MIGRATION))
		return;
	p = quic_path_get(sk);
	if (!p)
		return;
	if (p->validating && !memcmp(&p->prev, from, sizeof(*from))) {
		quic_path_settle(sk, from);	/* back where it was */
		return;
	}
	if (!p->validating)
		p->prev = c->peer;
	if (quic_path_ip_changed(&c->peer, from))
		quic_conn_path_reset(sk);
	quic_conn_rotate_dcid(sk);
	c->peer = *from;
	dst_cache_reset(&c->dst_cache);
	quic_conn_amp_restart(sk, len);
	get_random_bytes(p->challenge, sizeof(p->challenge));
	p->tries = 0;
	p->validating = 1;
	p->challenge_pending = 1;
}

/**
 * quic_path_challenge_lost() - a packet with our PATH_CHALLENGE was lost
 * @sk: the socket, locked
 *
 * Another goes, up to QUIC_PATH_TRIES; then the validation failed and the
 * server goes back to the address it used before.
 *
 * Return: true if another PATH_CHALLENGE is due.
 */
bool quic_path_challenge_lost(struct sock *sk)
{
	struct quic_path *p = quic_sk(sk)->conn.path;

	if (!p || !(p->validating || p->migrating))
		return false;
	if (p->tries < QUIC_PATH_TRIES) {
		p->challenge_pending = 1;
		return true;
	}
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_PATH_FAILED);
	if (p->migrating)
		quic_path_abandon(sk);
	else
		quic_path_settle(sk, &p->prev);
	return false;
}

/**
 * quic_path_migrate() - QUIC_SOCKOPT_CONNECTION_MIGRATION, established
 * @sk: the socket, locked
 * @local: the local address to move to, checked by the caller
 * @us: its UDP socket, referenced; the reference is the path's on success
 *
 * The PATH_CHALLENGE goes from @local at the next flush; the move
 * happens when the PATH_RESPONSE comes (quic_path_response_rcvd()).
 *
 * Return: 0, -EAGAIN while a move is under way, or -ENOMEM.
 */
int quic_path_migrate(struct sock *sk, const union quic_addr *local,
		      struct quic_udp_sock *us)
{
	struct quic_path *p = quic_path_get(sk);

	if (!p)
		return -ENOMEM;
	if (p->validating || p->migrating)
		return -EAGAIN;
	p->new_local = *local;
	p->new_us = us;
	quic_conn_rotate_dcid(sk);
	get_random_bytes(p->challenge, sizeof(p->challenge));
	p->tries = 0;
	p->migrating = 1;
	p->challenge_pending = 1;
	return 0;
}
