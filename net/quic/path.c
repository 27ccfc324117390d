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
 * QUIC_PATH_TRIES times in all, once three initial PTOs have passed
 * (RFC 9000 8.2.4), fails the validation: the server goes back to the
 * address it used before. The validated move is reported with
 * QUIC_EVENT_CONNECTION_MIGRATION (quic-api.rst 5.6).
 *
 * An endpoint moves its own local address with
 * QUIC_SOCKOPT_CONNECTION_MIGRATION (quic-api.rst 5.9): it probes the
 * new path with a PATH_CHALLENGE sent from there and switches to it when
 * the PATH_RESPONSE comes, raising the event with local_migration set;
 * QUIC_PATH_TRIES challenges lost, it stays where it is.
 *
 * Either way the destination connection ID moves to the next one the
 * peer issued, if it issued a spare (RFC 9000 9.5), so that the new path
 * cannot be linked to the old one by it.
 *
 * The anti-amplification limit (RFC 9000 8.1) is kept here too: until
 * the client's address is validated, a server sends at most three times
 * what it received from there, from its first datagram on and again
 * after the client moved.
 */

#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "conn.h"
#include "event.h"
#include "mib.h"
#include "packet.h"
#include "path.h"
#include "recovery.h"
#include "socket.h"
#include "udp.h"

/* The frames of the least 1-RTT packet a server sends under the
 * anti-amplification limit: a PATH_CHALLENGE and room as much again, as
 * quic_out_path_one() asks for; or an ACK of a few ranges.
 */
#define QUIC_PATH_AMP_MIN_FRAMES	(2 * (1 + QUIC_FRAME_PATH_DATA_LEN))

/**
 * quic_path_amp_rcvd() - count a datagram from a client not yet validated
 * @sk: the socket, locked
 * @len: the datagram's UDP payload length
 *
 * RFC 9000 8.1: every datagram attributed to the connection counts.
 */
void quic_path_amp_rcvd(struct sock *sk, u32 len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (c->is_server && !c->paths.amp.validated)
		c->paths.amp.bytes_rcvd = min_t(u64, (u64)c->paths.amp.bytes_rcvd + len,
						U32_MAX);
}

/**
 * quic_path_amp_room() - what the anti-amplification limit lets us send
 * @sk: the socket, locked
 *
 * Return: bytes a server may still send to an address not validated
 * (three times what it received, less what it sent), else U32_MAX.
 */
u32 quic_path_amp_room(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 limit;

	if (!c->is_server || c->paths.amp.validated)
		return U32_MAX;
	limit = 3ULL * c->paths.amp.bytes_rcvd;
	return limit > c->paths.amp.bytes_sent ?
	       min_t(u64, limit - c->paths.amp.bytes_sent, U32_MAX - 1) : 0;
}

/**
 * quic_path_amp_min() - the least room worth a datagram under the limit
 * @sk: the socket, locked
 *
 * During the handshake, a whole datagram of 1200 bytes: the client's
 * Initials are padded to that and so are ours (RFC 9000 14.1). Once the
 * handshake is confirmed, the limit holds only for a new peer address
 * (quic_path_amp_restart()): a 1-RTT packet with an ACK or a
 * PATH_CHALLENGE, unpadded as far as the budget falls short (RFC 9000
 * 8.2.1), may go in less.
 *
 * Return: that many bytes.
 */
u32 quic_path_amp_min(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (sk->sk_state != TCP_ESTABLISHED || !c->hs.handshake_confirmed)
		return QUIC_CONN_MAX_DGRAM;
	return 1 + c->ids.dcid.len + QUIC_CONN_PN_LEN + QUIC_PATH_AMP_MIN_FRAMES +
	       QUIC_PACKET_TAG_LEN;
}

/**
 * quic_path_amp_sent() - count a datagram sent before validation
 * @sk: the socket, locked
 * @len: its UDP payload length
 */
void quic_path_amp_sent(struct sock *sk, u32 len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (c->is_server && !c->paths.amp.validated)
		c->paths.amp.bytes_sent = min_t(u64, (u64)c->paths.amp.bytes_sent + len,
						U32_MAX);
}

/**
 * quic_path_addr_validated() - the client's address is validated
 * @sk: the socket, locked
 *
 * By a Handshake packet it sent (RFC 9000 8.1.1): only a client that
 * received our Initial at that address can build one.
 */
void quic_path_addr_validated(struct sock *sk)
{
	quic_sk(sk)->conn.paths.amp.validated = 1;
}

/**
 * quic_path_amp_restart() - the peer moved to an address not validated
 * @sk: the socket, a server, locked
 * @len: the bytes of the datagram that came from there
 *
 * RFC 9000 9.3: until quic_path_peer_moved() validates it, the
 * anti-amplification limit holds again, counted from that datagram.
 */
static void quic_path_amp_restart(struct sock *sk, u32 len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	c->paths.amp.validated = 0;
	c->paths.amp.bytes_rcvd = len;
	c->paths.amp.bytes_sent = 0;
}

/* The path state, allocated on first use; NULL without memory (the peer
 * asks again, or moves again).
 */
static struct quic_path *quic_path_get(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (!c->paths.path)
		c->paths.path = kzalloc(sizeof(*c->paths.path), GFP_ATOMIC | __GFP_NOWARN);
	return c->paths.path;
}

/**
 * quic_path_free() - release the path state
 * @sk: the socket, locked
 */
void quic_path_free(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (c->paths.path && c->paths.path->new_us)
		quic_udp_sock_put(c->paths.path->new_us);
	if (c->paths.path && c->paths.path->pref_us)
		quic_udp_sock_put(c->paths.path->pref_us);
	kfree(c->paths.path);
	c->paths.path = NULL;
}

/**
 * quic_path_challenge_rcvd() - a PATH_CHALLENGE arrived
 * @sk: the socket, locked
 * @data: its 8 bytes
 * @from: the address it came from
 * @len: the bytes of the datagram that brought it
 * @to: the UDP socket it arrived on
 *
 * The response goes to @from, from our preferred address if the
 * challenge came there; only the latest challenge is answered.
 */
void quic_path_challenge_rcvd(struct sock *sk, const u8 *data,
			      const union quic_addr *from, u32 len,
			      const struct quic_udp_sock *to)
{
	struct quic_path *p = quic_path_get(sk);

	if (!p)
		return;
	memcpy(p->response, data, QUIC_FRAME_PATH_DATA_LEN);
	p->resp_addr = *from;
	p->resp_budget = 3 * len;
	p->resp_pref = p->pref_us && to == p->pref_us;
	p->response_pending = 1;
}

/* The peer is reached at @addr again, validated. */
static void quic_path_settle(struct sock *sk, const union quic_addr *addr)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_path *p = c->paths.path;

	if (memcmp(&c->paths.peer, addr, sizeof(*addr))) {
		c->paths.peer = *addr;
		dst_cache_reset(&c->out.dst_cache);
	}
	p->validating = 0;
	p->challenge_pending = 0;
	quic_path_addr_validated(sk);
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

/* Our local address moves to @addr, whose UDP socket @us (referenced)
 * the connection takes; the old one goes once nothing else holds it.
 * Return: QUIC_PATH_* bits for quic_conn_path_changed().
 */
static unsigned int __must_check
quic_path_move_local(struct sock *sk, const union quic_addr *addr,
		     struct quic_udp_sock *us)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_udp_sock *old = quic_sk(sk)->udp;
	unsigned int what = QUIC_PATH_NEW_LOCAL;

	if (quic_path_ip_changed(&c->paths.local, addr))
		what |= QUIC_PATH_NEW_ROUTE;
	quic_sk(sk)->udp = us;
	c->paths.local = *addr;
	dst_cache_reset(&c->out.dst_cache);
	quic_udp_sock_put(old);
	return what;
}

/* The PATH_RESPONSE to our probe came: our local address moves. The old
 * UDP socket goes once nothing else holds it; packets the peer sent
 * there meanwhile are lost and sent again. Return: QUIC_PATH_* bits.
 */
static unsigned int quic_path_switch_local(struct sock *sk)
{
	struct quic_path *p = quic_sk(sk)->conn.paths.path;
	unsigned int what;

	what = quic_path_move_local(sk, &p->new_local, p->new_us);
	p->new_us = NULL;
	p->migrating = 0;
	p->challenge_pending = 0;
	return what;
}

/* The PATH_RESPONSE to our probe of the server's preferred address came:
 * the peer is reached there from now on, and, for an address of the
 * other family, from the local address prepared for it.
 *
 * Return: QUIC_PATH_* bits, QUIC_PATH_NEW_LOCAL if our local address
 * moved too.
 */
static unsigned int quic_path_switch_peer(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_path *p = c->paths.path;
	unsigned int what = 0;

	if (quic_path_ip_changed(&c->paths.peer, &p->new_peer))
		what |= QUIC_PATH_NEW_ROUTE;
	p->prev = c->paths.peer;
	p->preferred = 1;
	c->paths.peer = p->new_peer;
	dst_cache_reset(&c->out.dst_cache);
	if (p->pref_us) {
		what |= quic_path_move_local(sk, &p->pref_local, p->pref_us);
		p->pref_us = NULL;
	}
	p->preferring = 0;
	p->challenge_pending = 0;
	return what;
}

/**
 * quic_path_response_rcvd() - a PATH_RESPONSE arrived
 * @sk: the socket, locked
 * @data: its 8 bytes
 *
 * One that echoes our challenge validates the peer's new address.
 *
 * Return: QUIC_PATH_* bits for quic_conn_path_changed().
 */
unsigned int quic_path_response_rcvd(struct sock *sk, const u8 *data)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_path *p = c->paths.path;
	unsigned int what = 0;
	u8 local;

	if (!p || !(p->validating || p->migrating || p->preferring) ||
	    memcmp(p->challenge, data, QUIC_FRAME_PATH_DATA_LEN))
		return 0;
	if (p->migrating)
		what = quic_path_switch_local(sk);
	else if (p->preferring)
		what = quic_path_switch_peer(sk);
	else
		quic_path_settle(sk, &c->paths.peer);
	local = !!(what & QUIC_PATH_NEW_LOCAL);
	trace_quic_path(sk, "validated", local);
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_PATH_MIGRATED);
	quic_event_put(sk, QUIC_EVENT_CONNECTION_MIGRATION, &local,
		       sizeof(local));
	return what;
}

/* The probe of our new local address failed: stay where we are. */
static void quic_path_abandon(struct sock *sk)
{
	struct quic_path *p = quic_sk(sk)->conn.paths.path;

	quic_udp_sock_put(p->new_us);
	p->new_us = NULL;
	p->migrating = 0;
	p->challenge_pending = 0;
}

/* A validation begins: a new PATH_CHALLENGE goes at the next flush, its
 * tries and time counted from now (quic_path_challenge_lost()).
 */
static void quic_path_challenge_start(struct sock *sk, struct quic_path *p)
{
	trace_quic_path(sk, "validating", p->migrating);
	get_random_bytes(p->challenge, sizeof(p->challenge));
	p->tries = 0;
	p->since = jiffies;
	p->challenge_pending = 1;
}

/**
 * quic_path_peer_moved() - a non-probing packet came from a new address
 * @sk: the socket, locked
 * @from: that address
 * @len: the bytes of the datagram that brought it
 *
 * Only a server follows its peer, once the handshake is confirmed (RFC
 * 9000 9), and not when its local disable_active_migration parameter is
 * set: quic-api.rst 5.9 has it ignore address changes then.
 *
 * Return: QUIC_PATH_* bits for quic_conn_path_changed().
 */
unsigned int quic_path_peer_moved(struct sock *sk, const union quic_addr *from,
				  u32 len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	unsigned int what = QUIC_PATH_NEW_DCID;
	struct quic_path *p;

	if (!c->is_server || sk->sk_state != TCP_ESTABLISHED ||
	    !c->hs.handshake_confirmed ||
	    quic_tparams_has(&c->local_tp, QUIC_TPB_DISABLE_ACTIVE_MIGRATION))
		return 0;
	p = quic_path_get(sk);
	if (!p)
		return 0;
	if (p->validating && !memcmp(&p->prev, from, sizeof(*from))) {
		quic_path_settle(sk, from);	/* back where it was */
		return 0;
	}
	if (!p->validating)
		p->prev = c->paths.peer;
	if (quic_path_ip_changed(&c->paths.peer, from))
		what |= QUIC_PATH_NEW_ROUTE;
	c->paths.peer = *from;
	dst_cache_reset(&c->out.dst_cache);
	quic_path_amp_restart(sk, len);
	p->validating = 1;
	quic_path_challenge_start(sk, p);
	return what;
}

/**
 * quic_path_peer_known() - may a 1-RTT packet from @from be processed?
 * @sk: the socket, locked
 * @from: the address it came from
 *
 * A server follows its client (quic_path_peer_moved()). A client takes
 * packets only from the server's address in use, from the preferred
 * address it is validating, and, once it moved there, from the address
 * it moved from, which the server leaves only when our packets reach its
 * preferred one (RFC 9000 9.6). Servers do not migrate (RFC 9000 9):
 * a client drops what comes from any other address, unanswered.
 *
 * Return: true to process the packet, false to drop it.
 */
bool quic_path_peer_known(struct sock *sk, const union quic_addr *from)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	const struct quic_path *p = c->paths.path;

	if (c->is_server || quic_addr_equal(from, &c->paths.peer))
		return true;
	if (!p)
		return false;
	return (p->preferring && quic_addr_equal(from, &p->new_peer)) ||
	       (p->preferred && quic_addr_equal(from, &p->prev));
}

/* RFC 9000 8.2.4: a validation is abandoned no sooner than three times
 * the PTO of a new path, computed with the initial RTT (RFC 9002 6.2.2:
 * the RTT, four times half of it, and the peer's max_ack_delay). On a
 * fast path QUIC_PATH_TRIES PTOs pass long before that, and a challenge
 * held a little longer (a busy host, a client slow to send from its new
 * address) would fail a path that works.
 */
static bool quic_path_time_left(struct sock *sk, const struct quic_path *p)
{
	u64 init = quic_sk(sk)->opts.config.initial_smoothed_rtt;
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_rtt fresh;
	u64 pto;

	quic_rtt_init(&fresh, init ?: QUIC_INITIAL_RTT_US);
	pto = quic_rtt_pto(&fresh, c->peer_tp.max_ack_delay_us, 0);
	return time_before(jiffies, p->since + usecs_to_jiffies(3 * pto));
}

/**
 * quic_path_challenge_lost() - a packet with our PATH_CHALLENGE was lost
 * @sk: the socket, locked
 * @try: which PATH_CHALLENGE of the validation it carried, from 1
 *
 * Only the last one sent counts (an older one's loss found after a PTO
 * already sent another is none of the validation's business): another
 * goes, up to QUIC_PATH_TRIES, and more while quic_path_time_left(); then
 * the validation failed and the server goes back to the address it used
 * before.
 *
 * Return: true if another PATH_CHALLENGE is due.
 */
bool quic_path_challenge_lost(struct sock *sk, u64 try)
{
	struct quic_path *p = quic_sk(sk)->conn.paths.path;

	if (!p || !(p->validating || p->migrating || p->preferring) ||
	    p->challenge_pending || try != p->tries)
		return false;
	if (p->tries < QUIC_PATH_TRIES ||
	    (p->tries < QUIC_PATH_TRIES_MAX && quic_path_time_left(sk, p))) {
		p->challenge_pending = 1;
		return true;
	}
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_PATH_FAILED);
	trace_quic_path(sk, "failed", p->tries);
	if (p->migrating) {
		quic_path_abandon(sk);
	} else if (p->preferring) {
		p->preferring = 0;	/* the server stays where it is */
		p->challenge_pending = 0;
		if (p->pref_us) {
			quic_udp_sock_put(p->pref_us);
			p->pref_us = NULL;
		}
	} else {
		quic_path_settle(sk, &p->prev);
	}
	return false;
}

/**
 * quic_path_challenge_pto() - the PTO fired
 * @sk: the socket, locked
 *
 * RFC 9000 8.2.1 leaves it to us when a PATH_CHALLENGE goes again: with
 * the PTO, as for any lost frame, since the PTO probes go to the oldest
 * packets, or none while data waits.
 *
 * A challenge still waiting a whole PTO later found no room under the
 * anti-amplification limit of the client's new address: a client that
 * only downloads sends nothing more once our datagrams there are lost,
 * so no room comes. That try is spent as if it had been lost, so that
 * the validation fails after QUIC_PATH_TRIES PTOs and the time RFC 9000
 * 8.2.4 gives it, and the server goes back to the address it used
 * before, rather than both ends waiting for the other until the idle
 * timeout.
 */
void quic_path_challenge_pto(struct sock *sk)
{
	struct quic_path *p = quic_sk(sk)->conn.paths.path;

	if (!p)
		return;
	if (p->validating && p->challenge_pending) {
		p->challenge_pending = 0;
		p->tries++;
	}
	if (p->tries)
		quic_path_challenge_lost(sk, p->tries);
}

/**
 * quic_path_migrate() - QUIC_SOCKOPT_CONNECTION_MIGRATION, established
 * @sk: the socket, locked
 * @local: the local address to move to, checked by the caller
 * @us: its UDP socket, referenced; the reference is the path's on success
 *
 * The PATH_CHALLENGE goes from @local at the next flush; the move
 * happens when the PATH_RESPONSE comes (quic_path_response_rcvd()). The
 * caller moves to an unused DCID (QUIC_PATH_NEW_DCID).
 *
 * Return: 0, -EAGAIN while a move is under way, or -ENOMEM.
 */
int quic_path_migrate(struct sock *sk, const union quic_addr *local,
		      struct quic_udp_sock *us)
{
	struct quic_path *p = quic_path_get(sk);

	if (!p)
		return -ENOMEM;
	if (p->validating || p->migrating || p->preferring)
		return -EAGAIN;
	p->new_local = *local;
	p->new_us = us;
	p->migrating = 1;
	quic_path_challenge_start(sk, p);
	return 0;
}

/**
 * quic_path_prefer() - a server offers a preferred address
 * @sk: the socket, locked, a server connection in ESTABLISHING
 * @addr: the address, checked by the caller
 * @us: its UDP socket, referenced; the reference is the path's on success
 *
 * quic-api.rst 5.9. The address goes in our preferred_address parameter
 * with a connection ID of its own, numbered 1 (RFC 9000 5.1.1), which no
 * NEW_CONNECTION_ID announces again. Packets to the address reach the
 * connection by their DCID, as any other; the first non-probing one moves
 * our local address there (quic_path_local_arrived()). Set again, the
 * address changes and the ID stays.
 *
 * Return: 0, -EINVAL if the peer's parameters, already in, disabled
 * active migration, -ENOMEM, or as quic_lookup_cid_issue().
 */
int quic_path_prefer(struct sock *sk, const union quic_addr *addr,
		     struct quic_udp_sock *us)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_preferred_address *pa = &c->local_tp.preferred_address;
	const struct quic_cid_entry *e;
	struct quic_path *p;
	int err;

	if (c->hs.peer_tp_set &&
	    quic_tparams_has(&c->peer_tp, QUIC_TPB_DISABLE_ACTIVE_MIGRATION))
		return -EINVAL;
	p = quic_path_get(sk);
	if (!p)
		return -ENOMEM;
	if (!quic_tparams_has(&c->local_tp, QUIC_TPB_PREFERRED_ADDRESS)) {
		err = quic_lookup_cid_issue(sock_net(sk), &c->ids.src, sk,
					    GFP_KERNEL, &e);
		if (err)
			return err;
		quic_cid_src_mark(&c->ids.src, e->seq, false);
		pa->cid = e->cid;
		memcpy(pa->reset_token, e->token, QUIC_RESET_TOKEN_LEN);
	}
	memset(pa->ipv4_addr, 0, sizeof(pa->ipv4_addr));
	memset(pa->ipv6_addr, 0, sizeof(pa->ipv6_addr));
	pa->ipv4_port = 0;
	pa->ipv6_port = 0;
	if (addr->sa.sa_family == AF_INET) {
		memcpy(pa->ipv4_addr, &addr->v4.sin_addr, sizeof(pa->ipv4_addr));
		pa->ipv4_port = ntohs(addr->v4.sin_port);
	} else {
		memcpy(pa->ipv6_addr, &addr->v6.sin6_addr,
		       sizeof(pa->ipv6_addr));
		pa->ipv6_port = ntohs(addr->v6.sin6_port);
	}
	quic_tparams_set(&c->local_tp, QUIC_TPB_PREFERRED_ADDRESS);
	if (p->pref_us)
		quic_udp_sock_put(p->pref_us);
	p->pref_us = us;
	p->pref_local = *addr;
	return 0;
}

/**
 * quic_path_local_arrived() - a non-probing packet, the newest, came to a
 *	local address other than the one in use
 * @sk: the socket, locked
 * @to: the UDP socket it arrived on
 *
 * On a server, our preferred address: the client moved there (RFC 9000
 * 9.6), and so do we. getsockname() returns it from now on.
 *
 * Return: QUIC_PATH_* bits for quic_conn_path_changed().
 */
unsigned int quic_path_local_arrived(struct sock *sk,
				     const struct quic_udp_sock *to)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_path *p = c->paths.path;
	unsigned int what;
	u8 local = 1;

	if (!p || !p->pref_us || to != p->pref_us || !c->is_server ||
	    sk->sk_state != TCP_ESTABLISHED)
		return 0;
	what = quic_path_move_local(sk, &p->pref_local, p->pref_us);
	p->pref_us = NULL;
	p->resp_pref = 0;
	trace_quic_path(sk, "migrated", local);
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_PATH_MIGRATED);
	quic_event_put(sk, QUIC_EVENT_CONNECTION_MIGRATION, &local,
		       sizeof(local));
	return what;
}

/**
 * quic_path_pick_source() - the source address of a path from a wildcard
 * @sk: the socket, locked
 * @peer: the peer's address
 * @local: the local address of the path, its port set; of @peer's family
 *
 * A socket bound to a wildcard address sends from the address its route
 * to @peer picks: as TCP's connect() does, @local takes that address, so
 * that getsockname() names the path in use (quic-api.rst 5.1) and a
 * CONNECTION_MIGRATION built from it is a real address. Without a route
 * yet, @local stays the wildcard and each datagram picks its own.
 */
void quic_path_pick_source(struct sock *sk, const union quic_addr *peer,
			   union quic_addr *local)
{
	struct net *net = sock_net(sk);
	struct dst_entry *dst;
	struct flowi6 fl6 = {};
	struct flowi4 fl4 = {};
	struct rtable *rt;

	if (peer->sa.sa_family == AF_INET) {
		if (local->v4.sin_addr.s_addr != htonl(INADDR_ANY))
			return;
		fl4.flowi4_oif = sk->sk_bound_dev_if;
		fl4.flowi4_mark = sk->sk_mark;
		fl4.flowi4_proto = IPPROTO_UDP;
		fl4.daddr = peer->v4.sin_addr.s_addr;
		fl4.fl4_dport = peer->v4.sin_port;
		fl4.fl4_sport = local->v4.sin_port;
		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt))
			return;
		local->v4.sin_addr.s_addr = fl4.saddr;
		ip_rt_put(rt);
		return;
	}
	if (!ipv6_addr_any(&local->v6.sin6_addr))
		return;
	fl6.flowi6_oif = sk->sk_bound_dev_if;
	if (!fl6.flowi6_oif &&
	    __ipv6_addr_needs_scope_id(ipv6_addr_type(&peer->v6.sin6_addr)))
		fl6.flowi6_oif = peer->v6.sin6_scope_id;
	fl6.flowi6_mark = sk->sk_mark;
	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.daddr = peer->v6.sin6_addr;
	fl6.fl6_dport = peer->v6.sin6_port;
	fl6.fl6_sport = local->v6.sin6_port;
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (IS_ERR(dst))
		return;
	local->v6.sin6_addr = fl6.saddr;
	dst_release(dst);
}

/* Can @a, from a peer's preferred_address, be a peer's address? Not a
 * wildcard, multicast or broadcast one, nor a v4-mapped IPv6 one (an
 * IPv4 address has its own field, and union quic_addr keeps them apart).
 */
static bool quic_path_pref_usable(const union quic_addr *a)
{
	int type;

	if (a->sa.sa_family == AF_INET)
		return a->v4.sin_port &&
		       !ipv4_is_zeronet(a->v4.sin_addr.s_addr) &&
		       !ipv4_is_multicast(a->v4.sin_addr.s_addr) &&
		       !ipv4_is_lbcast(a->v4.sin_addr.s_addr);
	type = ipv6_addr_type(&a->v6.sin6_addr);
	return a->v6.sin6_port &&
	       !(type & (IPV6_ADDR_ANY | IPV6_ADDR_MULTICAST | IPV6_ADDR_MAPPED));
}

/* The server's preferred address a client moves to (RFC 9000 9.6): the
 * one of the family in use if the server offered it, else the one of
 * the other family if the socket can carry that family: an IPv4 one on
 * an AF_INET6 socket that is not IPV6_V6ONLY (as a v4-mapped address
 * there), an IPv6 one on an AF_INET6 socket only.
 *
 * Return: true with the address in *@a, false if there is none to use.
 */
static bool quic_path_pref_peer(struct sock *sk, union quic_addr *a)
{
	const struct quic_conn *c = &quic_sk(sk)->conn;
	const struct quic_preferred_address *pa;
	union quic_addr v4 = {}, v6 = {};
	bool ok4, ok6;

	if (c->is_server || !c->hs.peer_tp_set ||
	    !quic_tparams_has(&c->peer_tp, QUIC_TPB_PREFERRED_ADDRESS))
		return false;
	pa = &c->peer_tp.preferred_address;
	v4.v4.sin_family = AF_INET;
	memcpy(&v4.v4.sin_addr, pa->ipv4_addr, sizeof(pa->ipv4_addr));
	v4.v4.sin_port = htons(pa->ipv4_port);
	v6.v6.sin6_family = AF_INET6;
	memcpy(&v6.v6.sin6_addr, pa->ipv6_addr, sizeof(pa->ipv6_addr));
	v6.v6.sin6_port = htons(pa->ipv6_port);
	ok4 = quic_path_pref_usable(&v4) &&
	      !(sk->sk_family == AF_INET6 && ipv6_only_sock(sk));
	ok6 = quic_path_pref_usable(&v6) && sk->sk_family == AF_INET6;
	if (c->paths.peer.sa.sa_family == AF_INET6 ? ok6 : !ok4 && ok6)
		*a = v6;
	else if (ok4)
		*a = v4;
	else
		return false;
	return true;
}

/**
 * quic_path_preferred_prepare() - a client readies a path to the server's
 *	preferred address of the other family
 * @sk: the socket, locked, a client whose handshake just completed
 *
 * quic-api.rst 5.9. An address of the family in use is probed from our
 * address in use; one of the other family needs a local address of that
 * family: a UDP socket of its own, on the wildcard address and a port
 * the kernel picks, and the source address the route to the preferred
 * address gives. Process context: it sleeps. Without a route or a
 * socket, nothing is prepared and the connection stays where it is.
 */
void quic_path_preferred_prepare(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	static const struct in_addr any4 = { .s_addr = htonl(INADDR_ANY) };
	struct quic_udp_sock *us;
	union quic_addr a, local;
	struct quic_udp_key key;
	struct quic_path *p;

	if (!quic_path_pref_peer(sk, &a) ||
	    a.sa.sa_family == c->paths.local.sa.sa_family)
		return;
	p = quic_path_get(sk);
	if (!p || p->pref_us)
		return;
	if (a.sa.sa_family == AF_INET)
		quic_udp_key_init(&key, AF_INET, &any4, 0, false,
				  sk->sk_bound_dev_if);
	else
		quic_udp_key_init(&key, AF_INET6, &in6addr_any, 0, true,
				  sk->sk_bound_dev_if);
	us = quic_udp_sock_get(sock_net(sk), &key);
	if (IS_ERR(us))
		return;
	memset(&local, 0, sizeof(local));
	local.sa.sa_family = a.sa.sa_family;
	if (a.sa.sa_family == AF_INET)
		local.v4.sin_port = us->key.port;
	else
		local.v6.sin6_port = us->key.port;
	quic_path_pick_source(sk, &a, &local);
	if (a.sa.sa_family == AF_INET ?
	    local.v4.sin_addr.s_addr == htonl(INADDR_ANY) :
	    ipv6_addr_any(&local.v6.sin6_addr)) {
		quic_udp_sock_put(us);	/* no route there */
		return;
	}
	p->pref_local = local;
	p->pref_us = us;
}

/**
 * quic_path_preferred_start() - a client moves to the server's preferred
 *	address
 * @sk: the socket, locked, a client that just received HANDSHAKE_DONE
 *
 * quic-api.rst 5.9: the address of the family in use, if the server
 * offered one, is probed from our address with the connection ID of the
 * parameter, numbered 1 (QUIC_PATH_NEW_DCID); else the one of the
 * other family, from the local address quic_path_preferred_prepare()
 * found for it, if it found one. The PATH_RESPONSE moves the peer there
 * (and us to that local address). A failed probe leaves the connection
 * where it is.
 *
 * Return: QUIC_PATH_* bits for quic_conn_path_changed(), 0 if no probe
 * starts.
 */
unsigned int quic_path_preferred_start(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_path *p;
	union quic_addr a;

	if (sk->sk_state != TCP_ESTABLISHED || !quic_path_pref_peer(sk, &a) ||
	    quic_addr_equal(&a, &c->paths.peer))
		return 0;
	p = quic_path_get(sk);
	if (!p || p->validating || p->migrating || p->preferring)
		return 0;
	if (a.sa.sa_family != c->paths.local.sa.sa_family &&
	    (!p->pref_us || a.sa.sa_family != p->pref_local.sa.sa_family))
		return 0;
	p->new_peer = a;
	p->preferring = 1;
	quic_path_challenge_start(sk, p);
	return QUIC_PATH_NEW_DCID;
}
