// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: connection state of a QUIC socket.
 *
 * The packet-number spaces with their keys, ACK ranges, sent packets and
 * CRYPTO streams; the installation of the TLS secrets and of the peer's
 * transport parameters. Closing, draining and the idle timeout are
 * close.c's; loss detection and PTO are loss.c's. Finding the socket a
 * datagram is for is lookup.c's; the answers to datagrams no connection
 * takes are stateless.c's.
 */

#include <crypto/algapi.h>
#include <linux/jiffies.h>
#include <linux/prandom_siphash.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/dst_cache.h>
#include <net/sock.h>

#ifdef QUIC_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include "close.h"
#include "conn.h"
#include "ctrl.h"
#include "event.h"
#include <net/tls.h>
#include "export.h"
#include "frame.h"
#include "hash.h"
#include "input.h"
#include "keyupdate.h"
#include "lookup.h"
#include "loss.h"
#include "mib.h"
#include "output.h"
#include "protocol.h"
#include "packet.h"
#include "path.h"
#include "socket.h"
#include "token.h"
#include "version.h"

/* Received CRYPTO data waiting for a gap to fill is charged to the
 * receive buffer, as received stream data is. The reassembly bounds it
 * itself (its cap and piece limit), so the charge is never refused: a
 * small receive buffer must not stall a handshake whose next bytes are
 * the ones missing.
 */
static int quic_conn_crypto_charge(void *ctx, int bytes)
{
	struct sock *sk = ctx;

	atomic_add(bytes, &sk->sk_rmem_alloc);
	return 0;
}

/* The work item's jobs (timer.c), in the order of enum quic_work_id. */
static void quic_conn_work(struct sock *sk, unsigned long jobs)
{
	if (jobs & BIT(QUIC_WORK_KEYS_FREE)) {
		quic_key_free_discarded(sk);
		quic_conn_spaces_free(sk);
	}
	if (jobs & BIT(QUIC_WORK_RETRY))
		quic_conn_retry_apply(sk);
	if (jobs & BIT(QUIC_WORK_VERSION)) {
		struct quic_version_move m;

		/* The Initials that waited for the new version's keys run
		 * between the move and the test of whether it holds.
		 */
		if (quic_version_apply(sk, &m)) {
			quic_input_parked_run(sk);
			quic_version_settle(sk, &m);
		}
	}
	if ((jobs & BIT(QUIC_WORK_KEYS_NEXT)) &&
	    sk->sk_state == TCP_ESTABLISHED)
		quic_key_update_ready(sk);
}

static const struct quic_timer_ops quic_conn_timer_ops = {
	.fire = {
		[QUIC_TIMER_LOSS]	= quic_loss_timeout,
		[QUIC_TIMER_ACK]	= quic_output_ack_timeout,
		[QUIC_TIMER_IDLE]	= quic_close_idle_timeout,
		[QUIC_TIMER_PACE]	= quic_output_pace_timeout,
	},
	.work = quic_conn_work,
};

/* What the Initial and Handshake spaces point to once both are discarded
 * and freed: a space with nothing in it, read-only after the module's
 * init, shared by every connection. Its lists are empty ones, so that a
 * walk finds nothing.
 */
static struct quic_pnspace quic_conn_space_gone __ro_after_init = {
	.sent.head = LIST_HEAD_INIT(quic_conn_space_gone.sent.head),
	.sent.tree = RB_ROOT,
	.out.chunks = LIST_HEAD_INIT(quic_conn_space_gone.out.chunks),
	.out.lost = LIST_HEAD_INIT(quic_conn_space_gone.out.lost),
	.out.next = &quic_conn_space_gone.out.chunks,
	.crypto_in.pieces =
		LIST_HEAD_INIT(quic_conn_space_gone.crypto_in.pieces),
	.discarded = true,
};

static void quic_conn_space_init(struct sock *sk, u8 level,
				 struct quic_pnspace *s)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	c->space.at[level] = s;
	quic_ackrange_init(&s->recv);
	quic_sent_init(&s->sent);
	quic_outq_init(&s->out);
	quic_reasm_init(&s->crypto_in,
			level == QUIC_CRYPTO_APP ? QUIC_TICKET_MAX_LEN :
			QUIC_CONN_CRYPTO_MAX, quic_conn_crypto_charge, sk);
}

/**
 * quic_conn_init() - set up the connection state of a new socket
 * @sk: the socket
 *
 * Without memory for the Initial and Handshake spaces, they are the
 * discarded one: connect() and accept() then fail with -ENOMEM.
 */
void quic_conn_init(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *hs;

	memset(c, 0, sizeof(*c));
	quic_input_init(&c->in);
	quic_conn_space_init(sk, QUIC_CRYPTO_APP, &c->space.app);
	hs = kcalloc(2, sizeof(*hs), GFP_KERNEL);
	c->space.hs = hs;
	if (hs) {
		quic_conn_space_init(sk, QUIC_CRYPTO_INITIAL, &hs[0]);
		quic_conn_space_init(sk, QUIC_CRYPTO_HANDSHAKE, &hs[1]);
	} else {
		c->space.at[QUIC_CRYPTO_INITIAL] = &quic_conn_space_gone;
		c->space.at[QUIC_CRYPTO_HANDSHAKE] = &quic_conn_space_gone;
	}
	INIT_LIST_HEAD(&c->requests);
	skb_queue_head_init(&c->events);
	quic_sock_active_set(c, -1);
	quic_lookup_listen_init(&c->listen);
	quic_timer_init(sk, &quic_conn_timer_ops);
	quic_recovery_init(&c->loss.rec, QUIC_INITIAL_RTT_US);
	quic_cong_init(&c->cong, QUIC_CONG_ALG_RENO, QUIC_CONN_MAX_DGRAM);
	/* Without the cache (no memory), every datagram looks its route up. */
	dst_cache_init(&c->out.dst_cache, GFP_KERNEL);
	quic_cid_set_init(&c->ids.src, QUIC_CID_LIMIT_MIN);
	quic_cid_set_init(&c->ids.dst, QUIC_CID_LIMIT_MAX);
	quic_tparams_init_local(&c->local_tp);
	quic_tparams_init_peer(&c->peer_tp);
	quic_vn_init(&c->vn, QUIC_VERSION_V1);
}

/**
 * quic_conn_inherit() - an accepted socket's connection takes the
 *	listener's settings
 * @nsk: the new socket, not yet visible to anyone else
 * @lsk: the listener, locked
 *
 * Our transport parameters, as set on the listener (quic-api.rst 4.2).
 */
void quic_conn_inherit(struct sock *nsk, const struct sock *lsk)
{
	quic_sk(nsk)->conn.local_tp = quic_sk(lsk)->conn.local_tp;
}

/**
 * quic_conn_request_free() - free a request and its parked datagrams
 * @req: the request, unlinked
 */
void quic_conn_request_free(struct quic_request *req)
{
	skb_queue_purge(&req->skbs);
	atomic_dec(&req->us->half_open);
	kfree(req);
}

/* A server connection stops counting as half-open. */
static void quic_conn_half_open_end(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (c->hs.half_open) {
		c->hs.half_open = 0;
		atomic_dec(&quic_sk(sk)->udp->half_open);
	}
}

/* Drop the requests a listener has not handed to accept() yet. */
static void quic_conn_requests_purge(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_request *req, *tmp;

	list_for_each_entry_safe(req, tmp, &c->requests, list) {
		list_del(&req->list);
		quic_conn_request_free(req);
	}
	WRITE_ONCE(sk->sk_ack_backlog, 0);
}

/**
 * quic_conn_discard_space() - drop the keys and state of one level
 * @sk: the socket, locked
 * @level: QUIC_CRYPTO_INITIAL or QUIC_CRYPTO_HANDSHAKE (or any, on close)
 *
 * Nothing of that level is sent, retransmitted or accepted afterwards.
 */
void quic_conn_discard_space(struct sock *sk, u8 level)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = c->space.at[level];
	bool keys = !s->discarded && (quic_crypto_ready(&s->tx) ||
				      quic_crypto_ready(&s->rx));

	/* Freed: nothing of it is left but what parked at its level. */
	if (!quic_conn_space_own(c, level)) {
		quic_input_discard(sk, level);
		return;
	}
	s->discarded = true;
	s->ack_pending = false;
	quic_output_discard(sk, level);
	quic_input_discard(sk, level);
	quic_reasm_free(&s->crypto_in);
	quic_key_discard(sk);
	if (keys) {
		trace_quic_key(sk, "discard", level, true, 0);
		trace_quic_key(sk, "discard", level, false, 0);
	}
	/* Both long spaces gone: the work item frees them, as a caller up
	 * the stack may still hold a pointer to one (on close,
	 * quic_conn_free() does).
	 */
	if (level != QUIC_CRYPTO_APP && sk->sk_state != TCP_CLOSE &&
	    c->space.at[QUIC_CRYPTO_INITIAL]->discarded &&
	    c->space.at[QUIC_CRYPTO_HANDSHAKE]->discarded)
		quic_timer_work(sk, QUIC_WORK_KEYS_FREE);
}

/**
 * quic_conn_spaces_free() - free the Initial and Handshake spaces
 * @sk: the socket, locked, in process context, with no pointer to either
 *	space held
 *
 * Once both are discarded (or the socket goes). From then on both are
 * the shared discarded space.
 */
void quic_conn_spaces_free(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *hs = c->space.hs;
	int i;

	if (!hs || !hs[0].discarded || !hs[1].discarded)
		return;
	for (i = 0; i < 2; i++) {
		quic_crypto_free(&hs[i].rx);
		quic_crypto_free(&hs[i].tx);
	}
	c->space.at[QUIC_CRYPTO_INITIAL] = &quic_conn_space_gone;
	c->space.at[QUIC_CRYPTO_HANDSHAKE] = &quic_conn_space_gone;
	c->space.hs = NULL;
	kfree(hs);
}

/**
 * quic_conn_destroy() - release what the connection holds to the end
 * @sk: the socket, from the proto's .destroy: nothing sends on it any more
 */
void quic_conn_destroy(struct sock *sk)
{
	struct quic_pnspace *hs = quic_sk(sk)->conn.space.hs;

	/* A socket that failed before its close (quic_conn_free()). */
	if (hs) {
		hs[0].discarded = true;
		hs[1].discarded = true;
		quic_conn_spaces_free(sk);
	}
	dst_cache_destroy(&quic_sk(sk)->conn.out.dst_cache);
	quic_dgram_destroy(sk);
}

/**
 * quic_conn_free_early() - the 0-RTT key goes
 * @c: the connection, its socket locked, in process context
 */
void quic_conn_free_early(struct quic_conn *c)
{
	if (!c->early.key)
		return;
	quic_crypto_free(c->early.key);
	kfree(c->early.key);
	c->early.key = NULL;
}

/**
 * quic_conn_free() - release everything the connection holds
 * @sk: the socket, locked, unhashed
 *
 * Process context (freeing keys may sleep).
 */
void quic_conn_free(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	int i;

	quic_conn_unhash(sk);
	/* A timer that fired as this began may still run its handler from
	 * release_sock(): every handler does nothing on a closed socket.
	 */
	quic_set_state(sk, TCP_CLOSE);
	quic_timer_stop_all(sk);
	quic_close_free(sk);
	for (i = 0; i < QUIC_PNSPACE_NUM; i++)
		quic_conn_discard_space(sk, i);
	quic_crypto_free(&c->space.app.rx);
	quic_crypto_free(&c->space.app.tx);
	quic_conn_spaces_free(sk);
	quic_output_free(sk);
	skb_queue_purge(&c->events);
	quic_dgram_free(sk);
	if (c->streams_ready) {
		quic_stream_table_free(&c->streams);
		c->streams_ready = false;
	}
	quic_conn_requests_purge(sk);
	quic_conn_half_open_end(sk);
	kfree(c->early.ticket_buf);
	c->early.ticket_buf = NULL;
	quic_conn_free_early(c);
	quic_path_free(sk);
}

/**
 * quic_conn_crypto_app() - CRYPTO data in a 1-RTT packet
 * @sk: the socket, locked
 * @f: the CRYPTO frame
 *
 * quic-api.rst 4.5: a client collects the in-order bytes from offset 0,
 * at most QUIC_TICKET_MAX_LEN of them, until they hold one TLS message
 * (the server's NewSessionTicket): QUIC_SOCKOPT_SESSION_TICKET then
 * returns it and QUIC_EVENT_NEW_SESSION_TICKET carries it. Anything else
 * (a server's, a second message, one too long) is dropped. Bytes that
 * arrive ahead of a gap wait in the level's reassembly (RFC 9000 7.5).
 *
 * Return: 0, or 1 if the packet must not be acknowledged (no memory: the
 * peer sends it again).
 */
int quic_conn_crypto_app(struct sock *sk, const struct quic_frame *f)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_reasm *r = &c->space.at[QUIC_CRYPTO_APP]->crypto_in;
	u64 end = f->data.offset + f->data.len;
	const u8 *data;
	u32 n, need;
	int ret = 0;

	if (c->is_server || c->early.ticket_done)
		return 0;
	/* Data beyond what is kept is acknowledged and dropped. */
	if (f->data.offset >= QUIC_TICKET_MAX_LEN)
		return 0;
	end = min_t(u64, end, QUIC_TICKET_MAX_LEN);
	/* Within the cap: only -ENOBUFS or -ENOMEM. */
	if (quic_reasm_add(r, f->data.offset, f->data.data,
			   end - f->data.offset))
		ret = 1;
	while ((n = quic_reasm_peek(r, &data))) {
		if (!c->early.ticket_buf) {
			c->early.ticket_buf = kmalloc(QUIC_TICKET_MAX_LEN,
						      GFP_ATOMIC | __GFP_NOWARN);
			if (!c->early.ticket_buf)
				return 1;
		}
		memcpy(c->early.ticket_buf + quic_reasm_offset(r), data, n);
		quic_reasm_pull(r, n);
	}
	/* A handshake message: type (1), length (3), body. */
	end = quic_reasm_offset(r);
	if (end < 4)
		return ret;
	need = 4 + get_unaligned_be24(c->early.ticket_buf + 1);
	if (need > QUIC_TICKET_MAX_LEN)
		goto give_up;
	if (end < need)
		return ret;
	c->early.ticket_done = 1;
	quic_reasm_free(r);
	quic_event_put(sk, QUIC_EVENT_NEW_SESSION_TICKET, c->early.ticket_buf, need);
	quic_sock_opts_take_ticket(&quic_sk(sk)->opts, c->early.ticket_buf, need);
	c->early.ticket_buf = NULL;
	return 0;
give_up:	/* too long to be kept: nothing is */
	c->early.ticket_done = 1;
	quic_reasm_free(r);
	kfree(c->early.ticket_buf);
	c->early.ticket_buf = NULL;
	return 0;
}

/**
 * quic_conn_hash() - make the connection findable by its original DCID
 * @sk: the socket, a server connection, locked
 *
 * Our own IDs enter the namespace table as they are issued. The client's
 * original DCID (its choice) goes to the keyed table; if another client
 * chose the same one, only that client's retransmitted Initials are lost
 * here: they are matched to the request queue or dropped.
 */
void quic_conn_hash(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (c->is_server && !c->ids.odcid_hashed &&
	    !quic_lookup_odcid_add(sock_net(sk), &c->ids.odcid, sk, GFP_KERNEL))
		c->ids.odcid_hashed = true;
}

/**
 * quic_conn_unhash() - remove the connection from the CID tables
 * @sk: the socket, locked
 *
 * Lookups under RCU may still see it; they take a reference and find the
 * socket closed.
 */
void quic_conn_unhash(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct net *net = sock_net(sk);
	u32 i;

	if (c->ids.hashed) {
		for (i = 0; i < c->ids.src.count; i++)
			quic_lookup_cid_del(net, &c->ids.src.entries[i].cid, sk);
		c->ids.hashed = false;
	}
	if (c->ids.odcid_hashed) {
		quic_lookup_odcid_del(net, &c->ids.odcid, sk);
		c->ids.odcid_hashed = false;
	}
	if (c->ids.reset_hashed) {
		quic_lookup_reset_del(net, c->ids.reset_token, sk);
		c->ids.reset_hashed = false;
	}
}

/* The reset table holds the token of the peer's ID we send to. */
static void quic_conn_sync_reset(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	const struct quic_cid_entry *e = quic_cid_set_active(&c->ids.dst);
	struct net *net = sock_net(sk);

	if (!c->ids.hashed || !e || !e->has_token ||
	    (c->ids.reset_hashed && !memcmp(c->ids.reset_token, e->token,
					QUIC_RESET_TOKEN_LEN)))
		return;
	if (c->ids.reset_hashed)
		quic_lookup_reset_del(net, c->ids.reset_token, sk);
	memcpy(c->ids.reset_token, e->token, QUIC_RESET_TOKEN_LEN);
	c->ids.reset_hashed = !quic_lookup_reset_add(net, c->ids.reset_token, sk,
						 GFP_ATOMIC);
}

/**
 * quic_conn_listen_stop() - leave the listening state
 * @sk: the socket, locked, listening
 *
 * For listen(fd, 0), shutdown(SHUT_RD or SHUT_RDWR) and close(): new
 * Initials stop finding the socket, the requests accept() has not taken
 * are dropped, and every task waiting in accept() or poll() is woken to
 * find the socket closed (accept() then fails with EINVAL, as on TCP).
 */
void quic_conn_listen_stop(struct sock *sk)
{
	lockdep_assert(lockdep_sock_is_held(sk));
	quic_lookup_listen_del(sk);
	quic_conn_requests_purge(sk);
	quic_set_state(sk, TCP_CLOSE);
	sk->sk_state_change(sk);
}

/* Our ID numbered 0, the SCID of our long headers, into the table. */
static int quic_conn_first_cid(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	const struct quic_cid_entry *e;
	int err;

	c->ids.dst.limit = clamp_t(u64, c->local_tp.active_cid_limit,
				   QUIC_CID_LIMIT_MIN, QUIC_CID_LIMIT_MAX);
	err = quic_lookup_cid_issue(sock_net(sk), &c->ids.src, sk, GFP_KERNEL, &e);
	if (err)
		return err;
	c->ids.scid = e->cid;
	c->ids.hashed = true;
	return 0;
}

/**
 * quic_conn_initial_keys() - derive the Initial keys of the version in use
 * @sk: the socket, locked, in process context
 * @cid: the client's DCID they derive from
 *
 * Return: 0 or a negative errno.
 */
int quic_conn_initial_keys(struct sock *sk, const struct quic_cid *cid)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = c->space.at[QUIC_CRYPTO_INITIAL];

	int err;

	/* Freed with the Handshake space: no Initial keys any more. */
	if (!quic_conn_space_own(c, QUIC_CRYPTO_INITIAL))
		return -EINVAL;
	err = quic_crypto_initial_keys(&s->rx, &s->tx, cid->data, cid->len,
				       c->vn.version, c->is_server);
	if (!err) {
		trace_quic_key(sk, "install", QUIC_CRYPTO_INITIAL, true, 0);
		trace_quic_key(sk, "install", QUIC_CRYPTO_INITIAL, false, 0);
	}
	return err;
}

/**
 * quic_conn_rtt_config() - the application's initial RTT, until a sample
 * @sk: the socket, locked
 *
 * At the start of a connection, and again when QUIC_SOCKOPT_CONFIG sets
 * it before the first RTT sample.
 */
void quic_conn_rtt_config(struct sock *sk)
{
	struct quic_rtt *r = &quic_sk(sk)->conn.loss.rec.rtt;
	u64 init = quic_sk(sk)->opts.config.initial_smoothed_rtt;

	if (!r->has_sample)
		quic_rtt_init(r, init ?: QUIC_INITIAL_RTT_US);
}

/**
 * quic_conn_cong_config() - the application's congestion controller
 * @sk: the socket, locked
 *
 * At the start of a connection, and again when QUIC_SOCKOPT_CONFIG sets
 * it during the handshake: the window carries over, in bytes.
 */
void quic_conn_cong_config(struct sock *sk)
{
	struct quic_cong *cg = &quic_sk(sk)->conn.cong;

	cg->algo = quic_sk(sk)->opts.config.congestion_control_algo;
	cg->epoch = 0;
}

/**
 * quic_conn_client_start() - connect(): CIDs, Initial keys, hashing
 * @sk: the socket, locked, bound
 * @peer: the server's address
 *
 * Return: 0 or a negative errno.
 */
int quic_conn_client_start(struct sock *sk, const union quic_addr *peer)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 version = quic_sk(sk)->opts.config.version;
	int err;

	if (!c->space.hs)
		return -ENOMEM;
	/* A Retry is checked in softirq, with the shared transform. */
	err = quic_crypto_retry_init();
	if (err)
		return err;
	quic_paths_set_peer(&c->paths, peer);
	quic_vn_client_init(&c->vn, version);
	quic_conn_rtt_config(sk);
	quic_conn_cong_config(sk);
	err = quic_conn_first_cid(sk);
	if (err)
		return err;
	c->ids.dcid.len = QUIC_CONN_CID_LEN;
	prandom_siphash_bytes(c->ids.dcid.data, c->ids.dcid.len);
	c->ids.odcid = c->ids.dcid;
	err = quic_conn_initial_keys(sk, &c->ids.dcid);
	if (err) {
		quic_conn_unhash(sk);
		quic_cid_set_init(&c->ids.src, QUIC_CID_LIMIT_MIN);
		return err;
	}
	c->local_tp.initial_scid = c->ids.scid;
	quic_tparams_set(&c->local_tp, QUIC_TPB_INITIAL_SCID);
	quic_close_idle_start(sk);
	return 0;
}

/**
 * quic_conn_server_start() - accept(): a server connection from a request
 * @sk: the new socket, locked, holding the listener's UDP socket
 * @req: the request
 *
 * Return: 0 or a negative errno.
 */
int quic_conn_server_start(struct sock *sk, struct quic_request *req)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	int err;

	if (!c->space.hs)
		return -ENOMEM;
	quic_conn_set_server(c, true);
	quic_conn_rtt_config(sk);
	quic_conn_cong_config(sk);
	quic_paths_set_local(&c->paths, &req->local);
	quic_paths_set_peer(&c->paths, &req->peer);
	quic_vn_init(&c->vn, req->version);
	c->ids.dcid = req->scid;
	c->ids.odcid = req->dcid;
	quic_paths_amp_init(&c->paths, req->validated);
	c->hs.half_open = 1;
	atomic_inc(&quic_sk(sk)->udp->half_open);
	err = quic_cid_set_first(&c->ids.dst, &c->ids.dcid, NULL);
	if (err)
		return err;
	err = quic_conn_first_cid(sk);
	if (err)
		return err;
	err = quic_conn_initial_keys(sk, &c->ids.odcid);
	if (err) {
		quic_conn_unhash(sk);
		return err;
	}
	c->local_tp.initial_scid = c->ids.scid;
	quic_tparams_set(&c->local_tp, QUIC_TPB_INITIAL_SCID);
	/* RFC 9000 7.3: after a Retry, the DCID of the client's first
	 * Initial (carried by the token) and the SCID of our Retry.
	 */
	c->local_tp.original_dcid = req->retried ? req->odcid : c->ids.odcid;
	quic_tparams_set(&c->local_tp, QUIC_TPB_ORIGINAL_DCID);
	if (req->retried) {
		c->local_tp.retry_scid = req->dcid;
		quic_tparams_set(&c->local_tp, QUIC_TPB_RETRY_SCID);
	}
	quic_conn_hash(sk);
	quic_close_idle_start(sk);
	return 0;
}

/* Received stream data is charged to the receive buffer.  Flow control
 * already bounds it by the connection window; the charge is refused only
 * beyond the buffer size plus that window, and beyond what the int of
 * sk_rmem_alloc holds with room to spare (a window of 512 MiB grows to
 * 2 GiB).
 */
static int quic_conn_charge(void *ctx, int bytes)
{
	struct sock *sk = ctx;
	struct quic_stream_table *t = &quic_sk(sk)->conn.streams;
	u64 limit = min_t(u64, READ_ONCE(sk->sk_rcvbuf) +
			  2 * t->recv.window_max, INT_MAX / 2);

	if (bytes > 0 &&
	    (u64)atomic_read(&sk->sk_rmem_alloc) + bytes > limit)
		return -ENOBUFS;
	atomic_add(bytes, &sk->sk_rmem_alloc);
	return 0;
}

/* The peer's limits of @tp, as the stream table takes them. */
static void quic_conn_stream_params(struct quic_stream_params *sp,
				    const struct quic_tparams *tp)
{
	sp->max_data = tp->max_data;
	sp->max_stream_data_bidi_local = tp->max_stream_data_bidi_local;
	sp->max_stream_data_bidi_remote = tp->max_stream_data_bidi_remote;
	sp->max_stream_data_uni = tp->max_stream_data_uni;
	sp->max_streams_bidi = tp->max_streams_bidi;
	sp->max_streams_uni = tp->max_streams_uni;
}

/* The stream table, from our transport parameters and the peer's @peer
 * (those it sent, or, for 0-RTT, those remembered), if any. A table set
 * up for 0-RTT only takes the peer's limits, which may only grow (RFC
 * 9000 7.4.1).
 */
static int quic_conn_streams_init(struct sock *sk,
				  const struct quic_tparams *peer)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_stream_params lp, pp;
	u64 err;
	int ret;

	if (!c->streams_ready) {
		quic_conn_stream_params(&lp, &c->local_tp);
		ret = quic_stream_table_init(&c->streams, c->is_server, &lp,
					     QUIC_STREAM_WINDOW_GROWTH *
					     lp.max_data,
					     QUIC_STREAM_WINDOW_GROWTH *
					     max(lp.max_stream_data_uni,
						 max(lp.max_stream_data_bidi_local,
						     lp.max_stream_data_bidi_remote)),
					     quic_conn_charge, sk);
		if (ret)
			return ret;
	}
	if (peer) {
		quic_conn_stream_params(&pp, peer);
		ret = quic_stream_set_peer(&c->streams, &pp, &err);
		if (ret) {
			if (!c->streams_ready)
				quic_stream_table_free(&c->streams);
			return ret;
		}
	}
	WRITE_ONCE(c->streams_ready, true);
	return 0;
}

/* Issue IDs up to the peer's active_connection_id_limit (RFC 9000 5.1.1),
 * each sent in a NEW_CONNECTION_ID frame with its reset token.
 */
static void quic_conn_issue_cids(struct sock *sk, gfp_t gfp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	const struct quic_cid_entry *e;

	while (!quic_lookup_cid_issue(sock_net(sk), &c->ids.src, sk, gfp, &e))
		;
}

/* Both 1-RTT keys are in: the handshake is complete (quic-api.rst 4.3 d). */
static void quic_conn_complete(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	/* Without a stream table, stream sendmsg() gives EINVAL and
	 * STREAM frames are not acknowledged.
	 */
	quic_conn_streams_init(sk, c->hs.peer_tp_set ? &c->peer_tp : NULL);
	quic_conn_issue_cids(sk, GFP_KERNEL);

	quic_set_state(sk, TCP_ESTABLISHED);
	c->hs.was_established = 1;
	/* A client is established before TLS hands it its Finished: 1-RTT
	 * packets wait for it, then share its datagram.
	 */
	if (!c->is_server &&
	    !c->space.at[QUIC_CRYPTO_HANDSHAKE]->crypto_send_off)
		c->hs.fin_pending = 1;
	quic_conn_half_open_end(sk);
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_CONN_OPENED);
	/* quic-api.rst 5.9: a path to a preferred address of the other
	 * family needs a local address, found here where we may sleep.
	 */
	if (!c->is_server)
		quic_path_preferred_prepare(sk);
	if (c->is_server) {
		/* RFC 9001 4.9.2: the server's handshake is confirmed. */
		c->hs.handshake_confirmed = 1;
		quic_ctrl_want_handshake_done(&c->ctrl);
		/* quic-api.rst 4.4 */
		quic_ctrl_want_new_token(&c->ctrl);
		quic_conn_discard_space(sk, QUIC_CRYPTO_HANDSHAKE);
		quic_output_flush(sk, GFP_KERNEL);
	}
	sk->sk_state_change(sk);
}

/**
 * quic_conn_handshake_done_rcvd() - a client receives HANDSHAKE_DONE
 * @sk: the socket, locked
 *
 * The handshake is confirmed (RFC 9001 4.1.2): the Handshake keys go
 * and a path to the server's preferred address may start.
 */
void quic_conn_handshake_done_rcvd(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	c->hs.fin_pending = 0;
	if (c->hs.handshake_confirmed)
		return;
	c->hs.handshake_confirmed = 1;
	quic_conn_discard_space(sk, QUIC_CRYPTO_HANDSHAKE);
	quic_conn_path_changed(sk, quic_path_preferred_start(sk));
}

/* The EARLY secret (quic-api.rst 4.3 d, 4.6): a client's to send
 * 0-RTT packets with, a server's to take them, once TLS accepted early
 * data. A client's queued stream data leaves now; a server's 0-RTT
 * packets wait for the handshake to complete (input.c).
 */
static int quic_conn_set_early(struct sock *sk,
			       const struct quic_crypto_secret *s, u32 len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	int err;

	if (!s->send == !c->is_server || c->early.key ||
	    quic_crypto_ready(&c->space.at[QUIC_CRYPTO_APP]->tx) ||
	    quic_crypto_ready(&c->space.at[QUIC_CRYPTO_APP]->rx))
		return -EINVAL;
	c->early.key = kzalloc(sizeof(*c->early.key), GFP_KERNEL);
	if (!c->early.key)
		return -ENOMEM;
	err = quic_crypto_set_secret(c->early.key, s->type, s->secret, len,
				     c->vn.version);
	if (err) {
		kfree(c->early.key);
		c->early.key = NULL;
		return err;
	}
	trace_quic_key(sk, "install", QUIC_CRYPTO_EARLY, s->send, 0);
	if (!c->is_server)
		quic_output_flush(sk, GFP_KERNEL);
	return 0;
}

/**
 * quic_conn_set_secret() - QUIC_SOCKOPT_CRYPTO_SECRET
 * @sk: the socket, locked
 * @s: the secret from user space
 *
 * The packets that waited for the key are marked ready, for the caller
 * to run with quic_input_parked_run() once the key is in.
 *
 * Return: 0, -EINVAL or a crypto API errno.
 */
int quic_conn_set_secret(struct sock *sk, const struct quic_crypto_secret *s)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *sp;
	struct quic_crypto *k;
	u32 len;
	int err;

	if (sk->sk_state != TCP_SYN_RECV)
		return -EINVAL;
	len = s->type == TLS_CIPHER_AES_GCM_256 ? 48 : 32;
	if (s->level == QUIC_CRYPTO_EARLY)
		return quic_conn_set_early(sk, s, len);
	if (s->level != QUIC_CRYPTO_HANDSHAKE && s->level != QUIC_CRYPTO_APP)
		return -EINVAL;
	sp = c->space.at[s->level];
	if (sp->discarded)
		return -EINVAL;
	k = s->send ? &sp->tx : &sp->rx;
	err = quic_crypto_set_secret(k, s->type, s->secret, len, c->vn.version);
	if (err)
		return err;
	trace_quic_key(sk, "install", s->level, s->send, k->key_phase);
	/* quic-api.rst 5.10: the token that got us here (set, or of a
	 * Retry) is spent; NEW_TOKEN frames bring the next.
	 */
	if (!c->is_server && !s->send && s->level == QUIC_CRYPTO_APP) {
		memzero_explicit(quic_sk(sk)->opts.token, QUIC_TOKEN_MAX_LEN);
		quic_sk(sk)->opts.token_len = 0;
	}
	/* So is the session ticket that was set (quic-api.rst 5.10): a
	 * client's get returns the NewSessionTicket that comes next, a
	 * server's the key derived for this client.
	 */
	if (!s->send && s->level == QUIC_CRYPTO_APP)
		quic_sock_opts_drop_ticket(&quic_sk(sk)->opts);
	/* RFC 9001 4.9.3: with 1-RTT keys a client sends no more 0-RTT
	 * packets; those in flight are acknowledged or lost, and what they
	 * carried then goes again in 1-RTT packets.
	 */
	if (s->send && s->level == QUIC_CRYPTO_APP && !c->is_server) {
		quic_conn_early_end(c);
		quic_conn_free_early(c);
	}

	/* 1-RTT packets wait for the stream table that completion sets up. */
	if (!s->send && s->level != QUIC_CRYPTO_APP)
		quic_input_parked_ready(sk, s->level);
	if (sk->sk_state != TCP_SYN_RECV)
		return sk->sk_state == TCP_CLOSE ? -EPIPE : 0;
	if (s->level == QUIC_CRYPTO_HANDSHAKE && s->send && !c->is_server)
		/* RFC 9001 4.9.1: a client drops Initial keys when it first
		 * sends a Handshake packet; the server when it first
		 * processes one (input.c).
		 */
		quic_conn_discard_space(sk, QUIC_CRYPTO_INITIAL);
	sp = c->space.at[QUIC_CRYPTO_APP];
	if (quic_crypto_ready(&sp->rx) && quic_crypto_ready(&sp->tx)) {
		err = quic_key_update_ready(sk);
		if (err)
			return err;
		quic_conn_complete(sk);
		quic_input_parked_ready(sk, QUIC_CRYPTO_APP);
	}
	return 0;
}

/**
 * quic_conn_path_reset() - the peer's IP address changed
 * @sk: the socket, locked
 *
 * RFC 9000 9.4: the congestion controller and the RTT estimate start
 * again, and so does the search for the datagram size (pmtu.c).
 */
static void quic_conn_path_reset(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 init = quic_sk(sk)->opts.config.initial_smoothed_rtt;

	quic_cong_init(&c->cong, c->cong.algo, QUIC_CONN_MAX_DGRAM);
	quic_rtt_init(&c->loss.rec.rtt, init ?: QUIC_INITIAL_RTT_US);
	quic_out_reset_dgram(&c->out);
}

/**
 * quic_conn_retry_rcvd() - a client receives a Retry (RFC 9000 17.2.5.2)
 * @sk: the socket, locked
 * @pkt: the Retry packet
 * @h: its header
 *
 * Taken only by a client that has accepted no Retry and processed no
 * packet from the server yet, with a token that fits, a Source
 * Connection ID other than the one it sent to, and an integrity tag made
 * with its original DCID.  The token then goes into every Initial, the
 * SCID becomes the DCID, and the Initial keys are derived from it: at
 * once when the user owns the socket, else by the work item.
 *
 * Return: 0 if taken, -EBADMSG for a wrong integrity tag, -EINVAL for a
 * Retry the client must discard for another reason.
 */
int quic_conn_retry_rcvd(struct sock *sk, const u8 *pkt,
			 const struct quic_pkt_hdr *h)
{
	struct quic_sock_opts *o = &quic_sk(sk)->opts;
	struct quic_conn *c = &quic_sk(sk)->conn;
	u8 tag[QUIC_RETRY_TAG_LEN];

	if (c->is_server || c->hs.retried || c->in.dcid_learned ||
	    sk->sk_state != TCP_SYN_RECV || h->version != c->vn.version ||
	    !h->token_len || h->token_len > QUIC_TOKEN_MAX_LEN ||
	    quic_cid_eq_bytes(&c->ids.dcid, h->scid, h->scid_len))
		return -EINVAL;
	if (quic_crypto_retry_tag(tag, c->ids.odcid.data, c->ids.odcid.len, pkt,
				  h->tag_offset, h->version) ||
	    crypto_memneq(tag, pkt + h->tag_offset, QUIC_RETRY_TAG_LEN))
		return -EBADMSG;
	if (!quic_cid_set(&c->ids.retry_scid, h->scid, h->scid_len))
		return -EINVAL;
	memcpy(o->token, h->token, h->token_len);
	o->token_len = h->token_len;
	c->hs.retried = 1;
	c->hs.retry_pending = 1;
	/* Owned by the user: the backlog, run by release_sock() in process
	 * context without the spinlock. Else (softirq, or a task with BHs
	 * off such as threaded NAPI or a tun writer) nothing may sleep.
	 */
	if (sock_owned_by_user(sk))
		quic_conn_retry_apply(sk);
	else
		quic_timer_work(sk, QUIC_WORK_RETRY);
	return 0;
}

/**
 * quic_conn_retry_apply() - send the Initials again after a Retry
 * @sk: the socket, locked, in process context
 *
 * The DCID and the Initial keys change; what the Initials carried is
 * queued again, without counting it lost, and recovery starts over (RFC
 * 9002 6.3). Packet numbers go on.
 */
void quic_conn_retry_apply(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	int err;

	if (!c->hs.retry_pending || sk->sk_state != TCP_SYN_RECV)
		return;
	c->hs.retry_pending = 0;
	c->ids.dcid = c->ids.retry_scid;
	quic_cid_set_first(&c->ids.dst, &c->ids.dcid, NULL);
	err = quic_conn_initial_keys(sk, &c->ids.dcid);
	if (err) {
		quic_close_conn(sk, QUIC_TRANSPORT_ERROR_INTERNAL);
		return;
	}
	quic_loss_retry(sk);
	quic_recovery_pto_reset(&c->loss.rec);
	quic_output_flush(sk, GFP_KERNEL);
}

/**
 * quic_conn_new_token() - setsockopt(QUIC_SOCKOPT_TOKEN) on a server
 * @sk: the socket, locked, a server connection
 *
 * Sends a fresh NEW_TOKEN (RFC 9000 8.1.3), for the client's later
 * connections to this server, as at the end of the handshake.
 *
 * Return: 0; -EINVAL unless established; -EAGAIN while the last one is
 * not acknowledged (quic-api.rst 5.10).
 */
int quic_conn_new_token(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (sk->sk_state != TCP_ESTABLISHED)
		return -EINVAL;
	if (c->ctrl.new_token_pending || c->ctrl.new_token_unacked)
		return -EAGAIN;
	quic_ctrl_want_new_token(&c->ctrl);
	quic_output_flush(sk, GFP_KERNEL);
	return 0;
}

/**
 * quic_conn_new_token_rcvd() - a client receives NEW_TOKEN
 * @sk: the socket, locked
 * @token: the token (not empty: frame.c)
 * @len: its length
 *
 * Stored for getsockopt(QUIC_SOCKOPT_TOKEN), replacing the one before,
 * and given to the user in a QUIC_EVENT_NEW_TOKEN. One longer than a
 * token the socket API can hold is ignored.
 */
void quic_conn_new_token_rcvd(struct sock *sk, const u8 *token, u32 len)
{
	struct quic_sock_opts *o = &quic_sk(sk)->opts;

	if (len > QUIC_TOKEN_MAX_LEN)
		return;
	memcpy(o->token, token, len);
	o->token_len = len;
	quic_event_put(sk, QUIC_EVENT_NEW_TOKEN, token, len);
}

/* The user's settings of our parameters (sockopt.c), which may change
 * until the handshake reads them, are in force from then on: our
 * active_connection_id_limit and our idle timeout.
 */
static void quic_conn_local_tp_apply(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	c->ids.dst.limit = clamp_t(u64, c->local_tp.active_cid_limit,
				   QUIC_CID_LIMIT_MIN, QUIC_CID_LIMIT_MAX);
	quic_close_idle_start(sk);
}

/**
 * quic_conn_get_local_tp() - QUIC_SOCKOPT_TRANSPORT_PARAM_EXT get
 * @sk: the socket, locked
 * @buf: where to encode
 * @room: bytes at @buf
 *
 * What we advertise is @local_tp, the user's settings with the connection
 * IDs and the preferred address this connection chose, and what only the
 * version in use and our IDs decide.
 *
 * Return: the length, or -EINVAL.
 */
int quic_conn_get_local_tp(struct sock *sk, u8 *buf, u32 room)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_tparams tp;
	int len;

	if (sk->sk_state != TCP_SYN_RECV)
		return -EINVAL;
	quic_conn_local_tp_apply(sk);
	tp = c->local_tp;
	/* RFC 9368 3: our Chosen Version is the one in use. A client that
	 * probes with a version we do not speak has no Chosen Version to
	 * give (version.c). A server sends its own whether or not the
	 * client sent one: a client that followed a Version Negotiation
	 * sends none and needs the server's to rule out a downgrade
	 * (RFC 9368 4); only disable_compatible_version turns it off.
	 */
	tp.chosen_version = c->vn.version;
	if (!c->is_server && (c->vn.probe || c->vn.changed))
		quic_tparams_clear(&tp, QUIC_TPB_VERSION_INFO);
	/* A server's token is the one of its ID numbered 0 (RFC 9000 10.3). */
	if (c->is_server && c->ids.src.count && c->ids.src.entries[0].has_token)
		memcpy(tp.stateless_reset_token, c->ids.src.entries[0].token,
		       QUIC_RESET_TOKEN_LEN);
	else
		quic_tparams_clear(&tp, QUIC_TPB_STATELESS_RESET_TOKEN);
	len = quic_tparams_encode(buf, room, &tp, c->is_server);
	return len < 0 ? -EINVAL : len;
}

/**
 * quic_conn_remember_tp() - the peer's parameters of an earlier connection
 * @sk: the socket, locked, in ESTABLISHING
 * @tp: what the user set (QUIC_SOCKOPT_TRANSPORT_PARAM, remote = 1)
 *
 * quic-api.rst 4.6: a client may then open streams within those limits
 * and queue data on them before the handshake, to go in 0-RTT packets.
 * Once the server's own parameters are in, they are the ones that count.
 *
 * Return: 0 or a negative errno.
 */
int quic_conn_remember_tp(struct sock *sk, const struct quic_tparams *tp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (c->is_server || c->hs.peer_tp_set)
		return 0;
	quic_conn_local_tp_apply(sk);
	return quic_conn_streams_init(sk, tp);
}

/**
 * quic_conn_set_peer_tp() - QUIC_SOCKOPT_TRANSPORT_PARAM_EXT set
 * @sk: the socket, locked
 * @data: the peer's extension body
 * @len: its length
 *
 * On a validation failure the connection is closed with
 * TRANSPORT_PARAMETER_ERROR.
 *
 * Return: 0 or -EINVAL.
 */
int quic_conn_set_peer_tp(struct sock *sk, const u8 *data, u32 len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_tparams tp;
	int err;

	if (sk->sk_state != TCP_SYN_RECV || len > 512)
		return -EINVAL;
	err = quic_tparams_decode(data, len, &tp, !c->is_server);
	if (!err && (!quic_tparams_has(&tp, QUIC_TPB_INITIAL_SCID) ||
		     !quic_cid_eq(&tp.initial_scid, &c->ids.dcid)))
		err = -EINVAL;
	/* RFC 9000 7.3: the server's record of our first DCID and, exactly
	 * when we followed a Retry, of the Retry's SCID.
	 */
	if (!err && !c->is_server &&
	    (!quic_tparams_has(&tp, QUIC_TPB_ORIGINAL_DCID) ||
	     !quic_cid_eq(&tp.original_dcid, &c->ids.odcid) ||
	     quic_tparams_has(&tp, QUIC_TPB_RETRY_SCID) != c->hs.retried ||
	     (c->hs.retried && !quic_cid_eq(&tp.retry_scid, &c->ids.retry_scid))))
		err = -EINVAL;
	/* RFC 9000 5.1.1: the ID of a preferred address is numbered 1. */
	if (!err && !c->is_server &&
	    quic_tparams_has(&tp, QUIC_TPB_PREFERRED_ADDRESS) &&
	    quic_cid_dest_new(&c->ids.dst, 1, 0, tp.preferred_address.cid.data,
			      tp.preferred_address.cid.len,
			      tp.preferred_address.reset_token))
		err = -EINVAL;
	if (err) {
		quic_output_close(sk, QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM,
				  GFP_KERNEL);
		quic_close_conn(sk, QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM);
		return -EINVAL;
	}
	/* RFC 9368 4: the peer's Chosen Version is the version in use (the
	 * one of the client's first Initial), or the negotiation was
	 * tampered with.
	 */
	if (quic_version_check_peer(sk, &tp)) {
		quic_output_close(sk, QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION,
				  GFP_KERNEL);
		quic_close_conn(sk, QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION);
		return -EPROTONOSUPPORT;
	}
	/* RFC 9368 2.3: a server may move to the version it prefers. */
	err = quic_version_upgrade(sk, &tp);
	if (err) {
		quic_close_conn(sk, QUIC_TRANSPORT_ERROR_INTERNAL);
		return err;
	}
	c->peer_tp = tp;
	c->hs.peer_tp_set = 1;
	c->ids.src.limit = clamp_t(u64, tp.active_cid_limit, QUIC_CID_LIMIT_MIN,
				   QUIC_CID_LIMIT_MAX);
	if (!c->is_server &&
	    quic_tparams_has(&tp, QUIC_TPB_STATELESS_RESET_TOKEN)) {
		quic_cid_set_first_token(&c->ids.dst, tp.stateless_reset_token);
		quic_conn_sync_reset(sk);
	}
	quic_close_idle_start(sk);
	return 0;
}

/* The CONNECTION_ID event: a set lost an ID. */
static void quic_conn_cid_event(struct sock *sk, bool dest)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_cid_set *set = dest ? &c->ids.dst : &c->ids.src;
	struct quic_connection_id_info info = {};

	info.dest = dest;
	info.active = (u32)set->active_seq;
	info.prior_to = (u32)quic_cid_set_lowest(set);
	quic_event_put(sk, QUIC_EVENT_CONNECTION_ID, &info, sizeof(info));
}

/* Our DCID follows the active ID of the peer's set. */
static void quic_conn_sync_dcid(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	const struct quic_cid_entry *e = quic_cid_set_active(&c->ids.dst);

	if (e)
		c->ids.dcid = e->cid;
	quic_conn_sync_reset(sk);
}

/**
 * quic_conn_new_cid() - the peer sent NEW_CONNECTION_ID
 * @sk: the socket, locked
 * @f: the decoded frame
 *
 * Return: 0 or a transport error code (connid.c: FRAME_ENCODING,
 * PROTOCOL_VIOLATION, CONNECTION_ID_LIMIT) to close with.
 */
int quic_conn_new_cid(struct sock *sk, const struct quic_frame_new_cid *f)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	int err;

	err = quic_cid_dest_new(&c->ids.dst, f->seq, f->retire_prior_to, f->id,
				f->len, f->token);
	if (err)
		return err;
	quic_conn_sync_dcid(sk);
	if (quic_cid_dest_collect_retired(&c->ids.dst))
		quic_conn_cid_event(sk, true);
	return 0;
}

/**
 * quic_conn_retire_cid() - the peer sent RETIRE_CONNECTION_ID
 * @sk: the socket, locked
 * @seq: the frame's Sequence Number
 * @dcid: the DCID of the packet that carried it
 * @len: its length
 *
 * The ID leaves the table and a new one is issued in its place.
 *
 * Return: 0 or a transport error code (PROTOCOL_VIOLATION).
 */
int quic_conn_retire_cid(struct sock *sk, u64 seq, const u8 *dcid, u32 len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_cid removed;
	int err;

	err = quic_cid_src_retire(&c->ids.src, seq, dcid, len, &removed);
	if (err || !removed.len)
		return err;
	quic_lookup_cid_del(sock_net(sk), &removed, sk);
	quic_conn_issue_cids(sk, GFP_ATOMIC);
	quic_conn_cid_event(sk, false);
	return 0;
}

/**
 * quic_conn_get_cid() - getsockopt(QUIC_SOCKOPT_CONNECTION_ID)
 * @sk: the socket, locked
 * @info: in: @dest selects the set; out: @active and @prior_to
 *
 * Return: 0, or -EINVAL unless established.
 */
int quic_conn_get_cid(struct sock *sk, struct quic_connection_id_info *info)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_cid_set *set = info->dest ? &c->ids.dst : &c->ids.src;

	if (sk->sk_state != TCP_ESTABLISHED)
		return -EINVAL;
	memset(info->reserved, 0, sizeof(info->reserved));
	info->active = (u32)set->active_seq;
	info->prior_to = (u32)quic_cid_set_lowest(set);
	return 0;
}

/**
 * quic_conn_rotate_dcid() - a new path: the next ID the peer issued
 * @sk: the socket, locked
 *
 * RFC 9000 9.5: the first spare ID above the one in use, never used yet,
 * becomes the destination ID, and those below it are retired. Without
 * a spare the ID stays.
 */
static void quic_conn_rotate_dcid(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_cid_set *set = &c->ids.dst;
	u32 i;

	for (i = 0; i < set->count; i++) {
		const struct quic_cid_entry *e = &set->entries[i];

		if (e->seq <= set->active_seq || e->retired || e->used)
			continue;
		quic_cid_set_select(set, e->seq);
		quic_cid_dest_retire_prior_to(set, e->seq);
		quic_cid_dest_collect_retired(&c->ids.dst);
		quic_conn_sync_dcid(sk);
		return;
	}
}

/**
 * quic_conn_path_changed() - do what a path event asks of the connection
 * @sk: the socket, locked
 * @what: QUIC_PATH_* bits (path.h), from path.c
 */
void quic_conn_path_changed(struct sock *sk, unsigned int what)
{
	if (what & QUIC_PATH_NEW_ROUTE)
		quic_conn_path_reset(sk);
	if (what & QUIC_PATH_NEW_DCID)
		quic_conn_rotate_dcid(sk);
	if (what & QUIC_PATH_NEW_LOCAL)
		quic_sock_set_local(sk, &quic_sk(sk)->conn.paths.local);
}

/**
 * quic_conn_set_cid() - setsockopt(QUIC_SOCKOPT_CONNECTION_ID)
 * @sk: the socket, locked
 * @info: @dest selects the set; a non-zero @active switches to that ID;
 *	a non-zero @prior_to retires the IDs numbered below it
 *
 * quic-api.rst 5.11. Source set: new IDs are issued, their frames
 * carrying Retire Prior To; destination set: RETIRE_CONNECTION_ID frames
 * go out.
 *
 * Return: 0, or -EINVAL for a state or value the rules refuse.
 */
int quic_conn_set_cid(struct sock *sk,
		      const struct quic_connection_id_info *info)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_cid_set *set = info->dest ? &c->ids.dst : &c->ids.src;
	const struct quic_cid_entry *e;

	if (sk->sk_state != TCP_ESTABLISHED)
		return -EINVAL;
	if (info->prior_to &&
	    (!set->next_seq || info->prior_to <= quic_cid_set_lowest(set) ||
	     info->prior_to > set->next_seq - 1 ||
	     (u64)info->prior_to + set->limit > U32_MAX))
		return -EINVAL;
	if (info->active) {
		e = quic_cid_set_find(set, info->active);
		if (!e || e->retired || info->active <= set->active_seq)
			return -EINVAL;
		if (info->prior_to && info->active < info->prior_to)
			return -EINVAL;
		quic_cid_set_select(set, info->active);
	}
	if (info->prior_to) {
		if (info->dest) {
			quic_cid_dest_retire_prior_to(set, info->prior_to);
			quic_cid_dest_collect_retired(&c->ids.dst);
		} else {
			quic_cid_src_retire_prior_to(set, info->prior_to);
			quic_conn_issue_cids(sk, GFP_KERNEL);
			/* Every live ID again, with the new Retire Prior To. */
			quic_cid_src_mark(&c->ids.src, U64_MAX, true);
		}
	}
	if (info->dest)
		quic_conn_sync_dcid(sk);
	quic_output_flush(sk, GFP_KERNEL);
	return 0;
}
