// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: connection state of a QUIC socket.
 *
 * The packet-number spaces with their keys, ACK ranges, sent packets and
 * CRYPTO streams; the installation of the TLS secrets and of the peer's
 * transport parameters; the loss timer; and the table that finds a
 * connection from a received packet.
 *
 * STAND-IN (to swap for connid.c when merging): the connection table below
 * is a small module-wide table keyed by our single SCID (and, on a
 * server, the client's original DCID) with the fast hash, and listeners
 * sit on a plain list. connid.c replaces both with the per-netns CID
 * tables.
 */

#include <linux/jiffies.h>
#include <linux/prandom_siphash.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/sock.h>

#include <net/quic/conn.h>
#include <net/tls.h>
#include <net/quic/hash.h>
#include <net/quic/mib.h>
#include <net/quic/protocol.h>
#include <net/quic/packet.h>
#include <net/quic/socket.h>

/* STAND-IN connection table (see the top of the file). */
#define QUIC_CONN_HASH_BITS	6
static struct hlist_head quic_conn_table[1 << QUIC_CONN_HASH_BITS];
static struct hlist_head quic_conn_otable[1 << QUIC_CONN_HASH_BITS];
static HLIST_HEAD(quic_listeners);
static DEFINE_SPINLOCK(quic_conn_lock);

/* Loss timer: a fixed initial PTO, doubled on each expiry. */
#define QUIC_CONN_PTO_MS	200
#define QUIC_CONN_PTO_MAX	8

static u32 quic_conn_bucket(const u8 *cid, u32 len)
{
	return quic_hash_bucket(quic_fast_hash_bytes(cid, len),
				QUIC_CONN_HASH_BITS);
}

static void quic_conn_timeout(struct timer_list *t);

/**
 * quic_conn_init() - set up the connection state of a new socket
 * @sk: the socket
 */
void quic_conn_init(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		quic_ackrange_init(&c->space[i].recv);
		quic_sent_init(&c->space[i].sent);
		INIT_LIST_HEAD(&c->space[i].crypto_out);
		skb_queue_head_init(&c->space[i].parked);
	}
	INIT_LIST_HEAD(&c->requests);
	INIT_LIST_HEAD(&c->stream_out);
	c->active_sid = -1;
	INIT_HLIST_NODE(&c->hnode);
	INIT_HLIST_NODE(&c->onode);
	INIT_HLIST_NODE(&c->listen_node);
	timer_setup(&c->timer, quic_conn_timeout, 0);
	quic_tparams_init_local(&c->local_tp);
	quic_tparams_init_peer(&c->peer_tp);
	c->version = QUIC_VERSION_V1;
}

/**
 * quic_conn_request_free() - free a request and its parked datagrams
 * @req: the request, unlinked
 */
void quic_conn_request_free(struct quic_request *req)
{
	skb_queue_purge(&req->skbs);
	kfree(req);
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
	struct quic_pnspace *s = &quic_sk(sk)->conn.space[level];
	struct quic_crypto_chunk *ch, *tmp;

	s->discarded = true;
	s->ack_pending = false;
	quic_sent_remove_all(&s->sent, quic_output_pkt_free, sk);
	list_for_each_entry_safe(ch, tmp, &s->crypto_out, list) {
		list_del(&ch->list);
		kfree(ch);
	}
	skb_queue_purge(&s->parked);
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
	struct quic_request *req, *tmp;
	int i;

	sk_stop_timer(sk, &c->timer);
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		quic_conn_discard_space(sk, i);
		quic_crypto_free(&c->space[i].rx);
		quic_crypto_free(&c->space[i].tx);
	}
	quic_output_stream_free(sk);
	if (c->streams_ready) {
		quic_stream_table_free(&c->streams);
		c->streams_ready = false;
	}
	list_for_each_entry_safe(req, tmp, &c->requests, list) {
		list_del(&req->list);
		quic_conn_request_free(req);
	}
}

/**
 * quic_conn_hash() - make the connection findable by its CIDs
 * @sk: the socket
 */
void quic_conn_hash(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	spin_lock_bh(&quic_conn_lock);
	if (!c->hashed) {
		hlist_add_head_rcu(&c->hnode, &quic_conn_table
				   [quic_conn_bucket(c->scid.data, c->scid.len)]);
		if (c->is_server)
			hlist_add_head_rcu(&c->onode, &quic_conn_otable
					   [quic_conn_bucket(c->odcid.data,
							     c->odcid.len)]);
		c->hashed = 1;
	}
	spin_unlock_bh(&quic_conn_lock);
}

/**
 * quic_conn_unhash() - remove the connection from the table
 * @sk: the socket
 *
 * Lookups under RCU may still see it; they take a reference and find the
 * socket closed.
 */
void quic_conn_unhash(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	spin_lock_bh(&quic_conn_lock);
	if (c->hashed) {
		hlist_del_init_rcu(&c->hnode);
		if (c->is_server)
			hlist_del_init_rcu(&c->onode);
		c->hashed = 0;
	}
	spin_unlock_bh(&quic_conn_lock);
}

/**
 * quic_conn_listen_add() - make a listener findable by new Initials
 * @sk: the socket, bound
 */
void quic_conn_listen_add(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	spin_lock_bh(&quic_conn_lock);
	if (!c->listening) {
		hlist_add_head_rcu(&c->listen_node, &quic_listeners);
		c->listening = 1;
	}
	spin_unlock_bh(&quic_conn_lock);
}

/**
 * quic_conn_listen_del() - remove a listener
 * @sk: the socket
 */
void quic_conn_listen_del(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	spin_lock_bh(&quic_conn_lock);
	if (c->listening) {
		hlist_del_init_rcu(&c->listen_node);
		c->listening = 0;
	}
	spin_unlock_bh(&quic_conn_lock);
}

static struct sock *quic_conn_sk(struct quic_conn *c)
{
	return (struct sock *)container_of(c, struct quic_sock, conn);
}

/**
 * quic_conn_lookup() - find the connection a packet is for
 * @net: the namespace
 * @dcid: the packet's DCID
 * @len: its length
 * @peer: the sender, for the original-DCID match of a server
 *
 * Under RCU.
 *
 * Return: the socket with a reference held, or NULL.
 */
struct sock *quic_conn_lookup(struct net *net, const u8 *dcid, u32 len,
			      const union quic_addr *peer)
{
	u32 b = quic_conn_bucket(dcid, len);
	struct quic_conn *c;
	struct sock *sk;

	hlist_for_each_entry_rcu(c, &quic_conn_table[b], hnode) {
		sk = quic_conn_sk(c);
		if (net_eq(sock_net(sk), net) &&
		    quic_cid_eq_bytes(&c->scid, dcid, len) &&
		    refcount_inc_not_zero(&sk->sk_refcnt))
			return sk;
	}
	hlist_for_each_entry_rcu(c, &quic_conn_otable[b], onode) {
		sk = quic_conn_sk(c);
		if (net_eq(sock_net(sk), net) &&
		    quic_cid_eq_bytes(&c->odcid, dcid, len) &&
		    !memcmp(&c->peer, peer, sizeof(*peer)) &&
		    refcount_inc_not_zero(&sk->sk_refcnt))
			return sk;
	}
	return NULL;
}

/**
 * quic_conn_lookup_listener() - find the listener of a shared UDP socket
 * @net: the namespace
 * @us: the UDP socket the datagram arrived on
 * @port: its local port
 *
 * Under RCU. A listener on the same UDP socket wins over one that only
 * shares the port.
 *
 * Return: the socket with a reference held, or NULL.
 */
struct sock *quic_conn_lookup_listener(struct net *net,
				       const struct quic_udp_sock *us,
				       __be16 port)
{
	struct sock *sk, *best = NULL;
	struct quic_conn *c;

	hlist_for_each_entry_rcu(c, &quic_listeners, listen_node) {
		sk = quic_conn_sk(c);
		if (!net_eq(sock_net(sk), net) || inet_sk(sk)->inet_sport != port)
			continue;
		best = sk;
		if (quic_sk(sk)->udp == us)
			break;
	}
	if (best && !refcount_inc_not_zero(&best->sk_refcnt))
		best = NULL;
	return best;
}

static int quic_conn_initial_keys(struct sock *sk, const struct quic_cid *cid)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = &c->space[QUIC_CRYPTO_INITIAL];

	return quic_crypto_initial_keys(&s->rx, &s->tx, cid->data, cid->len,
					c->version, c->is_server);
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
	int err;

	c->peer = *peer;
	c->scid.len = QUIC_CONN_CID_LEN;
	prandom_siphash_bytes(c->scid.data, c->scid.len);
	c->dcid.len = QUIC_CONN_CID_LEN;
	prandom_siphash_bytes(c->dcid.data, c->dcid.len);
	c->odcid = c->dcid;
	err = quic_conn_initial_keys(sk, &c->dcid);
	if (err)
		return err;
	c->local_tp.initial_scid = c->scid;
	quic_tparams_set(&c->local_tp, QUIC_TPB_INITIAL_SCID);
	quic_conn_hash(sk);
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

	c->is_server = 1;
	c->local = req->local;
	c->peer = req->peer;
	c->version = req->version;
	c->dcid = req->scid;
	c->odcid = req->dcid;
	c->scid.len = QUIC_CONN_CID_LEN;
	prandom_siphash_bytes(c->scid.data, c->scid.len);
	err = quic_conn_initial_keys(sk, &c->odcid);
	if (err)
		return err;
	c->local_tp.initial_scid = c->scid;
	quic_tparams_set(&c->local_tp, QUIC_TPB_INITIAL_SCID);
	c->local_tp.original_dcid = c->odcid;
	quic_tparams_set(&c->local_tp, QUIC_TPB_ORIGINAL_DCID);
	quic_conn_hash(sk);
	return 0;
}

/* Received stream data is charged to the receive buffer.  Flow control
 * already bounds it by the connection window; the charge is refused only
 * beyond the buffer size plus that window.
 */
static int quic_conn_charge(void *ctx, int bytes)
{
	struct sock *sk = ctx;
	struct quic_stream_table *t = &quic_sk(sk)->conn.streams;
	u64 limit = READ_ONCE(sk->sk_rcvbuf) + 2 * t->recv.window_max;

	if (bytes > 0 &&
	    (u64)atomic_read(&sk->sk_rmem_alloc) + bytes > limit)
		return -ENOBUFS;
	atomic_add(bytes, &sk->sk_rmem_alloc);
	return 0;
}

/* The stream table, from both sides' transport parameters. */
static int quic_conn_streams_init(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_stream_params lp, pp;
	u64 err;
	int ret;

	lp.max_data = c->local_tp.max_data;
	lp.max_stream_data_bidi_local = c->local_tp.max_stream_data_bidi_local;
	lp.max_stream_data_bidi_remote = c->local_tp.max_stream_data_bidi_remote;
	lp.max_stream_data_uni = c->local_tp.max_stream_data_uni;
	lp.max_streams_bidi = c->local_tp.max_streams_bidi;
	lp.max_streams_uni = c->local_tp.max_streams_uni;
	pp.max_data = c->peer_tp.max_data;
	pp.max_stream_data_bidi_local = c->peer_tp.max_stream_data_bidi_local;
	pp.max_stream_data_bidi_remote = c->peer_tp.max_stream_data_bidi_remote;
	pp.max_stream_data_uni = c->peer_tp.max_stream_data_uni;
	pp.max_streams_bidi = c->peer_tp.max_streams_bidi;
	pp.max_streams_uni = c->peer_tp.max_streams_uni;
	ret = quic_stream_table_init(&c->streams, c->is_server, &lp,
				     lp.max_data, max(lp.max_stream_data_uni,
				     max(lp.max_stream_data_bidi_local,
					 lp.max_stream_data_bidi_remote)),
				     quic_conn_charge, sk);
	if (ret)
		return ret;
	if (c->peer_tp_set) {
		ret = quic_stream_set_peer(&c->streams, &pp, &err);
		if (ret) {
			quic_stream_table_free(&c->streams);
			return ret;
		}
	}
	c->streams_ready = true;
	return 0;
}

/* Both 1-RTT keys are in: the handshake is complete (socket-api 4.3 d). */
static void quic_conn_complete(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	/* Without a stream table, stream sendmsg() gives EINVAL and
	 * STREAM frames are not acknowledged.
	 */
	quic_conn_streams_init(sk);

	inet_sk_set_state(sk, TCP_ESTABLISHED);
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_CONN_OPENED);
	if (c->is_server) {
		/* RFC 9001 4.9.2: the server's handshake is confirmed. */
		c->handshake_confirmed = 1;
		c->handshake_done_pending = 1;
		quic_conn_discard_space(sk, QUIC_CRYPTO_HANDSHAKE);
		quic_output_flush(sk, GFP_KERNEL);
	}
	sk->sk_state_change(sk);
}

/**
 * quic_conn_set_secret() - QUIC_SOCKOPT_CRYPTO_SECRET
 * @sk: the socket, locked
 * @s: the secret from user space
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
	if (s->level == QUIC_CRYPTO_EARLY)
		return -EOPNOTSUPP;	/* 0-RTT is not supported yet */
	if (s->level != QUIC_CRYPTO_HANDSHAKE && s->level != QUIC_CRYPTO_APP)
		return -EINVAL;
	len = s->type == TLS_CIPHER_AES_GCM_256 ? 48 : 32;
	sp = &c->space[s->level];
	if (sp->discarded)
		return -EINVAL;
	k = s->send ? &sp->tx : &sp->rx;
	err = quic_crypto_set_secret(k, s->type, s->secret, len, c->version);
	if (err)
		return err;

	/* 1-RTT packets wait for the stream table that completion sets up. */
	if (!s->send && s->level != QUIC_CRYPTO_APP)
		quic_input_process_parked(sk, s->level);
	if (sk->sk_state != TCP_SYN_RECV)
		return sk->sk_state == TCP_CLOSE ? -EPIPE : 0;
	if (s->level == QUIC_CRYPTO_HANDSHAKE && s->send && !c->is_server)
		/* RFC 9001 4.9.1: a client drops Initial keys when it first
		 * sends a Handshake packet; the server when it first
		 * processes one (input.c).
		 */
		quic_conn_discard_space(sk, QUIC_CRYPTO_INITIAL);
	sp = &c->space[QUIC_CRYPTO_APP];
	if (quic_crypto_ready(&sp->rx) && quic_crypto_ready(&sp->tx)) {
		quic_conn_complete(sk);
		quic_input_process_parked(sk, QUIC_CRYPTO_APP);
		if (sk->sk_state == TCP_CLOSE)
			return -EPIPE;
	}
	return 0;
}

/* What we advertise is what the user set (sockopt.c: CONFIG and
 * TRANSPORT_PARAM, which may change until the handshake reads them)
 * plus the connection IDs this connection chose.
 */
static void quic_conn_sync_local_tp(struct sock *sk)
{
	static const enum quic_tparam_bit cid_bits[] = {
		QUIC_TPB_ORIGINAL_DCID, QUIC_TPB_INITIAL_SCID, QUIC_TPB_RETRY_SCID,
	};
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_cid odcid = c->local_tp.original_dcid;
	struct quic_cid iscid = c->local_tp.initial_scid;
	struct quic_cid rscid = c->local_tp.retry_scid;
	bool had[ARRAY_SIZE(cid_bits)];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cid_bits); i++)
		had[i] = quic_tparams_has(&c->local_tp, cid_bits[i]);
	c->local_tp = quic_sk(sk)->opts.local;
	c->local_tp.original_dcid = odcid;
	c->local_tp.initial_scid = iscid;
	c->local_tp.retry_scid = rscid;
	for (i = 0; i < ARRAY_SIZE(cid_bits); i++) {
		if (had[i])
			quic_tparams_set(&c->local_tp, cid_bits[i]);
		else
			quic_tparams_clear(&c->local_tp, cid_bits[i]);
	}
}

/**
 * quic_conn_get_local_tp() - QUIC_SOCKOPT_TRANSPORT_PARAM_EXT get
 * @sk: the socket, locked
 * @buf: where to encode
 * @room: bytes at @buf
 *
 * Return: the length, or -EINVAL.
 */
int quic_conn_get_local_tp(struct sock *sk, u8 *buf, u32 room)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	int len;

	if (sk->sk_state != TCP_SYN_RECV)
		return -EINVAL;
	quic_conn_sync_local_tp(sk);
	len = quic_tparams_encode(buf, room, &c->local_tp, c->is_server);
	return len < 0 ? -EINVAL : len;
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
		     !quic_cid_eq(&tp.initial_scid, &c->dcid)))
		err = -EINVAL;
	if (!err && !c->is_server &&
	    (!quic_tparams_has(&tp, QUIC_TPB_ORIGINAL_DCID) ||
	     !quic_cid_eq(&tp.original_dcid, &c->odcid) ||
	     quic_tparams_has(&tp, QUIC_TPB_RETRY_SCID)))
		err = -EINVAL;
	if (err) {
		quic_output_close(sk, QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM,
				  GFP_KERNEL);
		quic_conn_closed(sk, QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM);
		return -EINVAL;
	}
	c->peer_tp = tp;
	c->peer_tp_set = 1;
	return 0;
}

/**
 * quic_conn_closed() - the connection is over
 * @sk: the socket, locked
 * @err: the transport error code, 0 for none
 *
 * Wakes readers and writers; recvmsg() gives ENOTCONN from now on.
 */
void quic_conn_closed(struct sock *sk, u32 err)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (sk->sk_state == TCP_CLOSE)
		return;
	c->close_err = err;
	inet_sk_set_state(sk, TCP_CLOSE);
	quic_conn_unhash(sk);
	sk_stop_timer(sk, &c->timer);
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_CONN_CLOSED);
	WRITE_ONCE(sk->sk_err, err ? ECONNABORTED : ECONNRESET);
	sk->sk_state_change(sk);
	sk_error_report(sk);
}

/**
 * quic_conn_timer_arm() - (re)arm the loss timer if packets are in flight
 * @sk: the socket, locked
 */
void quic_conn_timer_arm(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	unsigned long t;
	int i;

	for (i = 0; i < QUIC_PNSPACE_NUM; i++)
		if (c->space[i].sent.eliciting_in_flight)
			break;
	if (i == QUIC_PNSPACE_NUM || sk->sk_state == TCP_CLOSE) {
		sk_stop_timer(sk, &c->timer);
		return;
	}
	t = msecs_to_jiffies(QUIC_CONN_PTO_MS << min_t(u32, c->pto_count,
						       QUIC_CONN_PTO_MAX));
	if (!timer_pending(&c->timer))
		sk_reset_timer(sk, &c->timer, jiffies + t);
}

/* PTO (RFC 9002 6.2, simplified): send again every CRYPTO chunk not yet
 * acknowledged, or a PING when there is none, in each space with
 * ack-eliciting packets in flight.
 */
static void quic_conn_pto(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_crypto_chunk *ch;
	struct quic_pnspace *s;
	int i;

	c->pto_count++;
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		s = &c->space[i];
		if (s->discarded || !s->sent.eliciting_in_flight)
			continue;
		s->ping = list_empty(&s->crypto_out);
		list_for_each_entry(ch, &s->crypto_out, list)
			ch->need_send = true;
		if (i == QUIC_CRYPTO_APP && c->streams_ready) {
			quic_output_stream_resend(sk);
			s->ping = false;
		}
		/* Forget the old copies: a late ACK of them is harmless. */
		quic_sent_remove_all(&s->sent, quic_output_pkt_free, sk);
		if (i == QUIC_CRYPTO_APP && c->is_server && !c->hd_acked) {
			c->handshake_done_pending = 1;
			s->ping = false;
		}
	}
	quic_output_flush(sk, GFP_ATOMIC);
}

static void quic_conn_timeout(struct timer_list *t)
{
	struct quic_conn *c = from_timer(c, t, timer);
	struct sock *sk = quic_conn_sk(c);

	bh_lock_sock(sk);
	if (sock_owned_by_user(sk)) {
		sk_reset_timer(sk, &c->timer, jiffies + 1);
	} else if (sk->sk_state != TCP_CLOSE) {
		quic_conn_pto(sk);
		quic_conn_timer_arm(sk);
	}
	bh_unlock_sock(sk);
	sock_put(sk);
}
