// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the SOL_QUIC socket options, every one of them.
 *
 * EVENT, CONFIG, TRANSPORT_PARAM, ALPN, CONNECTION_CLOSE, the client side
 * of TOKEN and SESSION_TICKET storage read and write the settings kept in
 * struct quic_sock_opts; the others act on the connection (streams,
 * connection IDs, key update, the handshake's secrets and transport
 * parameters). One dispatch per direction takes the socket lock once.
 * Rules follow quic-api.rst, sections 5.5 to 5.11, 6 and 7: struct
 * arguments are copied as min(optlen, sizeof) with missing bytes read as
 * zero, struct results are truncated to min(*optlen, sizeof), and byte
 * strings fail with EINVAL when the user's buffer is too small.
 */

#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tls.h>
#include <linux/uaccess.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "conn.h"
#include "info.h"
#include "input.h"
#include "keyupdate.h"
#include "output.h"
#include "protocol.h"
#include "sendq.h"
#include "socket.h"
#include "sockopt.h"
#include "stream.h"
#include "token.h"
#include "version.h"

/* Default initial RTT estimate, in microseconds (quic-api.rst, 2.7). */
#define QUIC_CONFIG_DEF_INITIAL_RTT_US		333000
/* QUIC_SOCKOPT_CONFIG ranges of non-zero fields (quic-api.rst, 6). */
#define QUIC_CONFIG_MIN_INITIAL_RTT_US		1000
#define QUIC_CONFIG_MAX_INITIAL_RTT_US		6000000
#define QUIC_CONFIG_MIN_PLPMTUD_US		5000000
#define QUIC_CONFIG_MAX_PLPMTUD_US		(U32_MAX / 30)
#define QUIC_CONFIG_MIN_KEEPALIVE_US		1500000
/* Largest TRANSPORT_PARAM_EXT a handshake hands over. */
#define QUIC_TP_EXT_MAX_LEN			512

/**
 * quic_sock_opts_init - set the options of a fresh socket
 * @o: the options
 * @server: the socket is a server one (created by accept())
 *
 * Defaults of quic-api.rst, sections 2.7 and 7.6: version 0 (V1),
 * 333 ms initial RTT, Reno, no events, no ALPN, token, ticket or
 * remembered peer parameters. The local transport parameters are the
 * connection's (quic_conn_init()).
 */
void quic_sock_opts_init(struct quic_sock_opts *o, bool server)
{
	memset(o, 0, sizeof(*o));
	o->config.initial_smoothed_rtt = QUIC_CONFIG_DEF_INITIAL_RTT_US;
	o->config.congestion_control_algo = QUIC_CONG_ALG_RENO;
	o->server = server;
}

/**
 * quic_sock_opts_free - release what the options hold
 * @o: the options
 *
 * The session ticket may be key material: it is wiped.
 */
void quic_sock_opts_free(struct quic_sock_opts *o)
{
	quic_sock_opts_drop_ticket(o);
	memzero_explicit(o->token, sizeof(o->token));
	o->token_len = 0;
}

/**
 * quic_sock_opts_drop_ticket - forget the session ticket that was set
 * @o: the options
 *
 * quic-api.rst 5.10: installing the 1-RTT receive secret discards it.
 */
void quic_sock_opts_drop_ticket(struct quic_sock_opts *o)
{
	kfree_sensitive(o->ticket);
	o->ticket = NULL;
	o->ticket_len = 0;
}

/**
 * quic_sock_opts_take_ticket - keep the NewSessionTicket a client captured
 * @o: the options
 * @ticket: the TLS message, kmalloc()ed; the options own it from now on
 * @len: its length, at most QUIC_TICKET_MAX_LEN
 */
void quic_sock_opts_take_ticket(struct quic_sock_opts *o, u8 *ticket,
				u16 len)
{
	quic_sock_opts_drop_ticket(o);
	o->ticket = ticket;
	o->ticket_len = len;
}

/**
 * quic_sock_opts_copy - pass a listener's options to an accepted socket
 * @dst: the accepted socket's options, set up by quic_sock_opts_init()
 * @src: the listener's options
 *
 * Copies what quic-api.rst, section 4.2, step 2, says is inherited: the
 * configuration, the event mask and the ALPN list (the local transport
 * parameters are the connection's: the caller copies them). Token,
 * session ticket, close information and the peer's parameters are per
 * connection and are left alone, as is the role.
 */
void quic_sock_opts_copy(struct quic_sock_opts *dst,
			 const struct quic_sock_opts *src)
{
	dst->config = src->config;
	dst->events = src->events;
	dst->alpn_len = src->alpn_len;
	memcpy(dst->alpn, src->alpn, src->alpn_len);
}

/**
 * quic_sock_opts_is_server - the role of a socket
 * @sk: the socket
 *
 * Return: true for a listener or a socket created by accept()
 * (quic-api.rst, section 3), false for a client.
 */
bool quic_sock_opts_is_server(const struct sock *sk)
{
	return quic_sk(sk)->opts.server ||
	       READ_ONCE(sk->sk_state) == TCP_LISTEN;
}

/* Copy a struct argument: min(optlen, size) bytes, the rest zero. */
static int quic_opt_copy_in(void *dst, size_t size, sockptr_t optval,
			    unsigned int optlen)
{
	memset(dst, 0, size);
	if (copy_from_sockptr(dst, optval, min_t(size_t, optlen, size)))
		return -EFAULT;
	return 0;
}

/* Read the input part of a struct getsockopt argument. */
static int quic_opt_get_in(void *dst, size_t size, sockptr_t optval,
			   int len)
{
	memset(dst, 0, size);
	if (copy_from_sockptr(dst, optval, min_t(size_t, len, size)))
		return -EFAULT;
	return 0;
}

/* Return @len bytes of @src and their number: getsockopt()'s output. */
static int quic_opt_put(const void *src, int len, sockptr_t optval,
			sockptr_t optlen)
{
	if (copy_to_sockptr(optlen, &len, sizeof(len)) ||
	    copy_to_sockptr(optval, src, len))
		return -EFAULT;
	return 0;
}

/* Return a struct result, truncated to the user's buffer. The socket slab
 * has no usercopy whitelist: results are staged on the stack (or in
 * kmalloc() memory), never copied straight out of struct quic_sock.
 */
static int quic_opt_put_struct(const void *src, size_t size,
			       sockptr_t optval, sockptr_t optlen,
			       int len)
{
	return quic_opt_put(src, min_t(size_t, len, size), optval, optlen);
}

/* Return a byte string; a buffer smaller than @room is -EINVAL. */
static int quic_opt_put_bytes(const void *src, u32 size, u32 room,
			      sockptr_t optval, sockptr_t optlen,
			      int len)
{
	if ((u32)len < room)
		return -EINVAL;
	return quic_opt_put(src, size, optval, optlen);
}

static bool quic_opt_bad(u64 v, u64 lo, u64 hi)
{
	return v && (v < lo || v > hi);
}

static int quic_set_event(struct quic_sock_opts *o, sockptr_t optval,
			  unsigned int optlen)
{
	struct quic_event_option ev;
	int err;

	err = quic_opt_copy_in(&ev, sizeof(ev), optval, optlen);
	if (err)
		return err;
	if (ev.type == QUIC_EVENT_NONE || ev.type >= QUIC_EVENT_MAX)
		return -EINVAL;
	if (ev.on)
		o->events |= BIT(ev.type);
	else
		o->events &= ~BIT(ev.type);
	return 0;
}

static int quic_get_event(struct quic_sock_opts *o, sockptr_t optval,
			  sockptr_t optlen, int len)
{
	struct quic_event_option ev;
	int err;

	err = quic_opt_get_in(&ev, sizeof(ev), optval, len);
	if (err)
		return err;
	if (ev.type == QUIC_EVENT_NONE || ev.type >= QUIC_EVENT_MAX)
		return -EINVAL;
	ev.on = quic_sock_opts_event_on(o, ev.type);
	return quic_opt_put_struct(&ev, sizeof(ev), optval, optlen, len);
}

static int quic_set_config(struct sock *sk, struct quic_sock_opts *o,
			   sockptr_t optval, unsigned int optlen)
{
	struct quic_config *cur = &o->config;
	struct quic_config c;
	int err;

	if (sk->sk_state == TCP_ESTABLISHED)
		return -EINVAL;
	err = quic_opt_copy_in(&c, sizeof(c), optval, optlen);
	if (err)
		return err;
	if (quic_opt_bad(c.payload_cipher_type, TLS_CIPHER_AES_GCM_128,
			 TLS_CIPHER_CHACHA20_POLY1305) ||
	    quic_opt_bad(c.initial_smoothed_rtt, QUIC_CONFIG_MIN_INITIAL_RTT_US,
			 QUIC_CONFIG_MAX_INITIAL_RTT_US) ||
	    c.congestion_control_algo >= QUIC_CONG_ALG_MAX ||
	    quic_opt_bad(c.plpmtud_probe_interval, QUIC_CONFIG_MIN_PLPMTUD_US,
			 QUIC_CONFIG_MAX_PLPMTUD_US) ||
	    quic_opt_bad(c.keepalive_probe_interval,
			 QUIC_CONFIG_MIN_KEEPALIVE_US, U32_MAX))
		return -EINVAL;

	/* A zero field leaves the value unchanged (quic-api.rst, 9 item 14). */
	if (c.version)
		cur->version = c.version;
	if (c.plpmtud_probe_interval)
		cur->plpmtud_probe_interval = c.plpmtud_probe_interval;
	if (c.initial_smoothed_rtt) {
		cur->initial_smoothed_rtt = c.initial_smoothed_rtt;
		quic_conn_rtt_config(sk);
	}
	if (c.payload_cipher_type)
		cur->payload_cipher_type = c.payload_cipher_type;
	if (c.congestion_control_algo) {
		cur->congestion_control_algo = c.congestion_control_algo;
		quic_conn_cong_config(sk);
	}
	if (c.validate_peer_address)
		cur->validate_peer_address = c.validate_peer_address;
	if (c.stream_data_nodelay)
		cur->stream_data_nodelay = c.stream_data_nodelay;
	if (c.receive_session_ticket)
		cur->receive_session_ticket = c.receive_session_ticket;
	if (c.certificate_request)
		cur->certificate_request = c.certificate_request;
	if (c.keepalive_probe_interval)
		cur->keepalive_probe_interval = c.keepalive_probe_interval;
	return 0;
}

static int quic_get_config(struct sock *sk, struct quic_sock_opts *o,
			   sockptr_t optval, sockptr_t optlen, int len)
{
	struct quic_config c = o->config;
	u32 version = quic_version_wire(sk);

	/* quic-api.rst 6: on a connection, the version in use (after any
	 * negotiation; an accepted socket's is the client's), 0 while it is
	 * V1 by default; still after it closed.
	 */
	if (sk->sk_state != TCP_LISTEN && quic_sk(sk)->conn.ids.scid.len)
		c.version = version == QUIC_VERSION_V1 && !c.version ? 0 :
								      version;

	return quic_opt_put_struct(&c, sizeof(c), optval, optlen, len);
}

/* Our transport parameters are the connection's, read by the handshake
 * (quic_conn_get_local_tp()) with the connection IDs it adds.
 */
static int quic_set_tparams(struct sock *sk, struct quic_sock_opts *o,
			    sockptr_t optval, unsigned int optlen)
{
	struct quic_transport_param p;
	struct quic_pnspace *sp;
	int err;

	err = quic_opt_copy_in(&p, sizeof(p), optval, optlen);
	if (err)
		return err;
	if (p.remote) {
		/* Remembered peer values, for 0-RTT (quic-api.rst, 4.6). */
		if (sk->sk_state != TCP_SYN_RECV)
			return -EINVAL;
		err = quic_tparams_from_user(&o->remembered, &p);
		if (err)
			return err;
		o->remembered_set = 1;
		return quic_conn_remember_tp(sk, &o->remembered);
	}
	/* Once the handshake sent ours (its first CRYPTO data went), they
	 * are what the peer holds us to (RFC 9000 7.4): no more changes.
	 */
	sp = quic_sk(sk)->conn.space.at[QUIC_CRYPTO_INITIAL];
	if (sk->sk_state == TCP_ESTABLISHED || sp->crypto_send_off ||
	    sp->discarded)
		return -EINVAL;
	return quic_tparams_from_user(&quic_sk(sk)->conn.local_tp, &p);
}

/* The peer's values are those it sent once they are in (quic-api.rst
 * 6), else those remembered, else zero.
 */
static int quic_get_tparams(struct sock *sk, struct quic_sock_opts *o,
			    sockptr_t optval, sockptr_t optlen, int len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_transport_param p;
	u8 remote;
	int err;

	err = quic_opt_get_in(&p, sizeof(p), optval, len);
	if (err)
		return err;
	remote = p.remote;
	memset(&p, 0, sizeof(p));
	p.remote = remote;
	if (!remote)
		quic_tparams_to_user(&c->local_tp, &p);
	else if (c->hs.peer_tp_set)
		quic_tparams_to_user(&c->peer_tp, &p);
	else if (o->remembered_set)
		quic_tparams_to_user(&o->remembered, &p);
	return quic_opt_put_struct(&p, sizeof(p), optval, optlen, len);
}

/* Parse a comma-separated ALPN list into its TLS wire form: spaces before
 * each element are skipped, a NUL ends the string; an empty list or
 * element is -EINVAL.
 */
static int quic_alpn_to_wire(const char *s, u32 len, u8 *wire)
{
	u32 i = 0, start, n = 0;

	len = strnlen(s, len);
	if (!len)
		return -EINVAL;
	do {
		while (i < len && s[i] == ' ')
			i++;
		start = i;
		while (i < len && s[i] != ',')
			i++;
		/* 128 bytes of text never make an element over 255. */
		if (i == start)
			return -EINVAL;
		wire[n++] = i - start;
		memcpy(wire + n, s + start, i - start);
		n += i - start;
	} while (i++ < len);
	return n;
}

static int quic_set_alpn(struct sock *sk, struct quic_sock_opts *o,
			 sockptr_t optval, unsigned int optlen)
{
	u8 wire[QUIC_ALPN_MAX_WIRE_LEN];
	char s[QUIC_ALPN_MAX_LEN];
	int n;

	/* The listener's set is hashed at listen(): it must come first. */
	if (sk->sk_state == TCP_LISTEN)
		return -EINVAL;
	if (!optlen || optlen > QUIC_ALPN_MAX_LEN)
		return -EINVAL;
	if (copy_from_sockptr(s, optval, optlen))
		return -EFAULT;
	n = quic_alpn_to_wire(s, optlen, wire);
	if (n < 0)
		return n;
	memcpy(o->alpn, wire, n);
	o->alpn_len = n;
	return 0;
}

static int quic_get_alpn(struct quic_sock_opts *o, sockptr_t optval,
			 sockptr_t optlen, int len)
{
	char s[QUIC_ALPN_MAX_LEN];
	u32 i = 0, n = 0, elen;

	/* The comma-separated form: each length byte but the first becomes
	 * a comma, so it is one byte shorter than the wire form.
	 */
	while (i < o->alpn_len) {
		elen = o->alpn[i++];
		if (n)
			s[n++] = ',';
		memcpy(s + n, o->alpn + i, elen);
		n += elen;
		i += elen;
	}
	return quic_opt_put_bytes(s, n, o->alpn_len, optval, optlen, len);
}

static int quic_set_close(struct quic_sock_opts *o, sockptr_t optval,
			  unsigned int optlen)
{
	struct quic_connection_close c;
	size_t n;
	int err;

	err = quic_opt_copy_in(&c, sizeof(c), optval, optlen);
	if (err)
		return err;
	n = strnlen(c.phrase, QUIC_CLOSE_PHRASE_BUFFER_SIZE - 1);
	memset(&o->close, 0, sizeof(o->close));
	o->close.errcode = c.errcode;
	memcpy(o->close.phrase, c.phrase, n);
	/* quic-api.rst 5.8: frame is not kept; CRYPTO with a CRYPTO_ERROR
	 * code marks a TLS alert (HTTP/3's codes share the range).
	 */
	o->close_alert = c.frame == QUIC_FRAME_CRYPTO &&
			 c.errcode >= QUIC_TRANSPORT_ERROR_CRYPTO &&
			 c.errcode <= QUIC_TRANSPORT_ERROR_CRYPTO + 0xff;
	return 0;
}

static int quic_get_close(struct quic_sock_opts *o, sockptr_t optval,
			  sockptr_t optlen, int len)
{
	struct quic_connection_close c = o->close;

	return quic_opt_put_struct(&c, sizeof(c), optval, optlen, len);
}

static int quic_set_token(struct sock *sk, struct quic_sock_opts *o,
			  sockptr_t optval, unsigned int optlen)
{
	u8 token[QUIC_TOKEN_MAX_LEN];

	/* A server sends a fresh NEW_TOKEN; what it was given is ignored. */
	if (quic_sock_opts_is_server(sk))
		return quic_conn_new_token(sk);
	if (!optlen || optlen > QUIC_TOKEN_MAX_LEN)
		return -EINVAL;
	if (copy_from_sockptr(token, optval, optlen))
		return -EFAULT;
	memcpy(o->token, token, optlen);
	o->token_len = optlen;
	return 0;
}

static int quic_get_token(struct sock *sk, struct quic_sock_opts *o,
			  sockptr_t optval, sockptr_t optlen, int len)
{
	/* libquic tells the roles apart by this failing (section 7.1). */
	u8 token[QUIC_TOKEN_MAX_LEN];

	if (quic_sock_opts_is_server(sk))
		return -EINVAL;
	memcpy(token, o->token, o->token_len);
	return quic_opt_put_bytes(token, o->token_len, o->token_len,
				  optval, optlen, len);
}

static int quic_set_ticket(struct quic_sock_opts *o, sockptr_t optval,
			   unsigned int optlen)
{
	u8 *ticket;

	if (optlen < QUIC_TICKET_MIN_LEN || optlen > QUIC_TICKET_MAX_LEN)
		return -EINVAL;
	ticket = memdup_sockptr(optval, optlen);
	if (IS_ERR(ticket))
		return PTR_ERR(ticket);
	kfree_sensitive(o->ticket);
	o->ticket = ticket;
	o->ticket_len = optlen;
	return 0;
}

/* quic-api.rst 5.10: a server's ticket key is the one set, else the one
 * derived for this client and listener; a client's ticket is the session
 * data set while establishing, then the NewSessionTicket captured.
 */
static int quic_get_ticket(struct sock *sk, struct quic_sock_opts *o,
			   sockptr_t optval, sockptr_t optlen, int len)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u8 key[QUIC_TICKET_KEY_LEN];
	int err;

	if (!quic_sock_opts_is_server(sk)) {
		if (sk->sk_state == TCP_LISTEN)
			return -EPIPE;
		return quic_opt_put_bytes(o->ticket, o->ticket_len,
					  o->ticket_len, optval, optlen, len);
	}
	if (sk->sk_state == TCP_LISTEN || sk->sk_state == TCP_CLOSE)
		return -EPIPE;
	if (o->ticket)
		return quic_opt_put_bytes(o->ticket, o->ticket_len,
					  o->ticket_len, optval, optlen, len);
	quic_token_ticket_key(&quic_net(sock_net(sk))->token_key, &c->paths.local,
			      &c->paths.peer, key);
	err = quic_opt_put_bytes(key, sizeof(key), sizeof(key), optval, optlen,
				 len);
	memzero_explicit(key, sizeof(key));
	return err;
}

/* The options below act on the connection. */

/* The stream that QUIC_SOCKOPT_STREAM_RESET (@send) or
 * QUIC_SOCKOPT_STREAM_STOP_SENDING names (quic-api.rst 5.7): a freed
 * stream is ENOSTR, except a peer's one for a reset, which is resolved
 * as a send is (EINVAL).
 */
static struct quic_stream *quic_sockopt_stream_get(struct sock *sk, s64 id,
						   bool send)
{
	struct quic_stream_table *t = &quic_sk(sk)->conn.streams;
	struct quic_stream *st;

	if (id < 0 || id > QUIC_STREAM_MAX_OFFSET ||
	    (send ? !quic_stream_id_send(t, id) : !quic_stream_id_recv(t, id)))
		return ERR_PTR(-EINVAL);
	st = quic_stream_find(t, id);
	if (st)
		return st;
	if (quic_stream_id_used(t, id) &&
	    (!send || quic_stream_id_local(t, id)))
		return ERR_PTR(-ENOSTR);
	return ERR_PTR(-EINVAL);
}

/* QUIC_SOCKOPT_STREAM_RESET and QUIC_SOCKOPT_STREAM_STOP_SENDING. */
static int quic_set_stream_ctl(struct sock *sk, int optname,
			       sockptr_t optval, unsigned int optlen)
{
	bool reset = optname == QUIC_SOCKOPT_STREAM_RESET;
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_errinfo info = {}, *ei = &info;
	struct quic_stream *st;
	int err;

	if (quic_opt_copy_in(&info, sizeof(info), optval, optlen))
		return -EFAULT;
	if (!quic_streams_up(sk))
		return -EINVAL;
	st = quic_sockopt_stream_get(sk, ei->stream_id, reset);
	if (IS_ERR(st))
		return PTR_ERR(st);
	if (reset) {
		err = quic_stream_app_reset(&c->streams, st, ei->errcode);
		if (!err) {
			quic_sock_active_drop(c, st->id);
			quic_sendq_stream_drop(sk, st->id);
		}
	} else {
		err = quic_stream_app_stop_sending(&c->streams, st,
						   ei->errcode);
	}
	if (!err)
		quic_output_flush(sk, GFP_KERNEL);
	return err;
}

/* QUIC_SOCKOPT_STREAM_OPEN: open a stream as sendmsg() with
 * MSG_QUIC_STREAM_NEW would, waiting for stream credit unless
 * MSG_QUIC_STREAM_DONTWAIT.
 */
static int quic_stream_open_wait(struct sock *sk, struct quic_stream_info *si)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct quic_conn *c = &quic_sk(sk)->conn;
	bool uni = si->stream_flags & MSG_QUIC_STREAM_UNI;
	long timeo = sock_sndtimeo(sk, false);
	struct quic_stream *st;
	bool created;
	int err;

	for (;;) {
		if (!quic_is_conn(sk))
			return -EPIPE;
		if (!quic_streams_up(sk))
			return -EINVAL;
		created = si->stream_id == -1 ||
			  !quic_stream_find(&c->streams, si->stream_id);
		st = quic_stream_send_get(&c->streams, si->stream_id, uni, true);
		if (!IS_ERR(st))
			break;
		err = PTR_ERR(st);
		if (err == -EAGAIN)
			err = quic_streams_limit_err(sk);
		if (err != -EAGAIN)
			return err;
		quic_stream_open_blocked(&c->streams, uni);
		quic_output_flush(sk, GFP_KERNEL);
		if ((si->stream_flags & MSG_QUIC_STREAM_DONTWAIT) || !timeo)
			return -EAGAIN;
		if (signal_pending(current))
			return sock_intr_errno(timeo);
		add_wait_queue(sk_sleep(sk), &wait);
		sk_wait_event(sk, &timeo, sk->sk_state != TCP_ESTABLISHED ||
			      quic_stream_open_allowed(&c->streams,
						       si->stream_id, uni),
			      &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
	}
	si->stream_id = st->id;
	si->stream_flags |= MSG_QUIC_STREAM_NEW;
	if (created)
		quic_sock_active_set(c, st->id);
	return 0;
}

static int quic_get_stream_open(struct sock *sk, sockptr_t optval,
				sockptr_t optlen, int len)
{
	struct quic_stream_info si = {};
	int err;

	len = min_t(int, len, sizeof(si));
	if (copy_from_sockptr(&si, optval, len))
		return -EFAULT;
	if (si.stream_flags & ~QUIC_STREAM_FLAGS)
		return -EINVAL;
	err = quic_stream_open_wait(sk, &si);
	if (err)
		return err;
	return quic_opt_put_struct(&si, sizeof(si), optval, optlen, len);
}

/* QUIC_SOCKOPT_CONNECTION_ID (quic-api.rst 5.11). */
static int quic_set_cid(struct sock *sk, sockptr_t optval,
			unsigned int optlen)
{
	struct quic_connection_id_info info;

	if (optlen < sizeof(info))
		return -EINVAL;
	if (copy_from_sockptr(&info, optval, sizeof(info)))
		return -EFAULT;
	return quic_conn_set_cid(sk, &info);
}

static int quic_get_cid(struct sock *sk, sockptr_t optval,
			sockptr_t optlen, int len)
{
	struct quic_connection_id_info info;
	int err;

	if (len < (int)sizeof(info))
		return -EINVAL;
	if (copy_from_sockptr(&info, optval, sizeof(info)))
		return -EFAULT;
	err = quic_conn_get_cid(sk, &info);
	if (err)
		return err;
	return quic_opt_put_struct(&info, sizeof(info), optval, optlen,
				   sizeof(info));
}

static int quic_set_key_update(struct sock *sk)
{
	int err = quic_key_update_local(sk);

	if (!err)
		quic_output_flush(sk, GFP_KERNEL);
	return err;
}

static int quic_set_secret(struct sock *sk, sockptr_t optval,
			   unsigned int optlen)
{
	struct quic_crypto_secret secret;
	int err;

	if (optlen < sizeof(secret))
		return -EINVAL;
	if (copy_from_sockptr(&secret, optval, sizeof(secret)))
		return -EFAULT;
	err = quic_conn_set_secret(sk, &secret);
	memzero_explicit(&secret, sizeof(secret));
	if (err)
		return err;
	/* The packets that waited for this key, or for the handshake's end. */
	quic_input_parked_run(sk);
	return sk->sk_state == TCP_CLOSE ? -EPIPE : 0;
}

/* TRANSPORT_PARAM_EXT: the handshake hands over the peer's transport
 * parameters (set) and takes ours, with the CIDs conn.c knows (get).
 */
static int quic_set_tp_ext(struct sock *sk, sockptr_t optval,
			   unsigned int optlen)
{
	u8 *buf;
	int err;

	if (optlen > QUIC_TP_EXT_MAX_LEN)
		return -EINVAL;
	buf = memdup_sockptr(optval, optlen);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	err = quic_conn_set_peer_tp(sk, buf, optlen);
	kfree(buf);
	return err;
}

static int quic_get_tp_ext(struct sock *sk, sockptr_t optval,
			   sockptr_t optlen, int len)
{
	u8 *buf;
	int err;

	len = min_t(int, len, QUIC_SOCKOPT_MAX_LEN);
	buf = kzalloc(len ? len : 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = quic_conn_get_local_tp(sk, buf, len);
	if (err >= 0)
		err = quic_opt_put(buf, err, optval, optlen);
	kfree(buf);
	return err;
}

/* QUIC_SOCKOPT_INFO: as TCP_INFO, the first @len bytes of the layout. */
static int quic_get_info(struct sock *sk, sockptr_t optval,
			 sockptr_t optlen, int len)
{
	struct quic_info info;

	quic_info_get(sk, &info);
	return quic_opt_put(&info, min_t(int, len, sizeof(info)), optval,
			    optlen);
}

#define QUIC_OPT_SET	BIT(0)
#define QUIC_OPT_GET	BIT(1)

/* The directions each SOL_QUIC option exists in. */
static const u8 quic_sockopt_dirs[] = {
	[QUIC_SOCKOPT_EVENT]			= QUIC_OPT_SET | QUIC_OPT_GET,
	[QUIC_SOCKOPT_STREAM_OPEN]		= QUIC_OPT_GET,
	[QUIC_SOCKOPT_STREAM_RESET]		= QUIC_OPT_SET,
	[QUIC_SOCKOPT_STREAM_STOP_SENDING]	= QUIC_OPT_SET,
	[QUIC_SOCKOPT_CONNECTION_ID]		= QUIC_OPT_SET | QUIC_OPT_GET,
	[QUIC_SOCKOPT_CONNECTION_CLOSE]		= QUIC_OPT_SET | QUIC_OPT_GET,
	[QUIC_SOCKOPT_CONNECTION_MIGRATION]	= QUIC_OPT_SET,
	[QUIC_SOCKOPT_KEY_UPDATE]		= QUIC_OPT_SET,
	[QUIC_SOCKOPT_TRANSPORT_PARAM]		= QUIC_OPT_SET | QUIC_OPT_GET,
	[QUIC_SOCKOPT_CONFIG]			= QUIC_OPT_SET | QUIC_OPT_GET,
	[QUIC_SOCKOPT_TOKEN]			= QUIC_OPT_SET | QUIC_OPT_GET,
	[QUIC_SOCKOPT_ALPN]			= QUIC_OPT_SET | QUIC_OPT_GET,
	[QUIC_SOCKOPT_SESSION_TICKET]		= QUIC_OPT_SET | QUIC_OPT_GET,
	[QUIC_SOCKOPT_CRYPTO_SECRET]		= QUIC_OPT_SET,
	[QUIC_SOCKOPT_TRANSPORT_PARAM_EXT]	= QUIC_OPT_SET | QUIC_OPT_GET,
	[QUIC_SOCKOPT_INFO]			= QUIC_OPT_GET,
};

static bool quic_sockopt_exists(int optname, u8 dir)
{
	if (optname < 0 || optname >= (int)ARRAY_SIZE(quic_sockopt_dirs))
		return false;
	return quic_sockopt_dirs[optname] & dir;
}

/**
 * quic_sockopt_set - setsockopt(SOL_QUIC)
 * @sk: the socket
 * @optname: the option
 * @optval: the argument
 * @optlen: its length
 *
 * Every SOL_QUIC option, under one hold of the socket lock.
 *
 * Return: 0 or a negative errno: -ENOPROTOOPT for an option number that
 * does not exist or has no set direction, -EOPNOTSUPP for what is not
 * built yet.
 */
int quic_sockopt_set(struct sock *sk, int optname, sockptr_t optval,
		     unsigned int optlen)
{
	struct quic_sock_opts *o = &quic_sk(sk)->opts;
	int err;

	if (!quic_sockopt_exists(optname, QUIC_OPT_SET))
		return -ENOPROTOOPT;
	if (optlen > QUIC_SOCKOPT_MAX_LEN)
		return -EINVAL;
	lock_sock(sk);
	switch (optname) {
	case QUIC_SOCKOPT_EVENT:
		err = quic_set_event(o, optval, optlen);
		break;
	case QUIC_SOCKOPT_CONFIG:
		err = quic_set_config(sk, o, optval, optlen);
		break;
	case QUIC_SOCKOPT_TRANSPORT_PARAM:
		err = quic_set_tparams(sk, o, optval, optlen);
		break;
	case QUIC_SOCKOPT_ALPN:
		err = quic_set_alpn(sk, o, optval, optlen);
		break;
	case QUIC_SOCKOPT_CONNECTION_CLOSE:
		err = quic_set_close(o, optval, optlen);
		break;
	case QUIC_SOCKOPT_TOKEN:
		err = quic_set_token(sk, o, optval, optlen);
		break;
	case QUIC_SOCKOPT_SESSION_TICKET:
		err = quic_set_ticket(o, optval, optlen);
		break;
	case QUIC_SOCKOPT_STREAM_RESET:
	case QUIC_SOCKOPT_STREAM_STOP_SENDING:
		err = quic_set_stream_ctl(sk, optname, optval, optlen);
		break;
	case QUIC_SOCKOPT_CONNECTION_ID:
		err = quic_set_cid(sk, optval, optlen);
		break;
	case QUIC_SOCKOPT_KEY_UPDATE:
		err = quic_set_key_update(sk);
		break;
	case QUIC_SOCKOPT_CRYPTO_SECRET:
		err = quic_set_secret(sk, optval, optlen);
		break;
	case QUIC_SOCKOPT_TRANSPORT_PARAM_EXT:
		err = quic_set_tp_ext(sk, optval, optlen);
		break;
	case QUIC_SOCKOPT_CONNECTION_MIGRATION:
		err = quic_sock_migrate(sk, optval, optlen);
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	release_sock(sk);
	return err;
}

/**
 * quic_sockopt_get - getsockopt(SOL_QUIC)
 * @sk: the socket
 * @optname: the option
 * @optval: the caller's buffer, user or kernel memory
 * @optlen: its length, updated on success
 *
 * Every SOL_QUIC option, under one hold of the socket lock.
 *
 * Return: 0 or a negative errno: -ENOPROTOOPT for an option number that
 * does not exist or has no get direction.
 */
int quic_sockopt_get(struct sock *sk, int optname, sockptr_t optval,
		     sockptr_t optlen)
{
	struct quic_sock_opts *o = &quic_sk(sk)->opts;
	int len, err;

	if (!quic_sockopt_exists(optname, QUIC_OPT_GET))
		return -ENOPROTOOPT;
	if (copy_from_sockptr(&len, optlen, sizeof(len)))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	lock_sock(sk);
	switch (optname) {
	case QUIC_SOCKOPT_EVENT:
		err = quic_get_event(o, optval, optlen, len);
		break;
	case QUIC_SOCKOPT_CONFIG:
		err = quic_get_config(sk, o, optval, optlen, len);
		break;
	case QUIC_SOCKOPT_TRANSPORT_PARAM:
		err = quic_get_tparams(sk, o, optval, optlen, len);
		break;
	case QUIC_SOCKOPT_ALPN:
		err = quic_get_alpn(o, optval, optlen, len);
		break;
	case QUIC_SOCKOPT_CONNECTION_CLOSE:
		err = quic_get_close(o, optval, optlen, len);
		break;
	case QUIC_SOCKOPT_TOKEN:
		err = quic_get_token(sk, o, optval, optlen, len);
		break;
	case QUIC_SOCKOPT_SESSION_TICKET:
		err = quic_get_ticket(sk, o, optval, optlen, len);
		break;
	case QUIC_SOCKOPT_STREAM_OPEN:
		err = quic_get_stream_open(sk, optval, optlen, len);
		break;
	case QUIC_SOCKOPT_CONNECTION_ID:
		err = quic_get_cid(sk, optval, optlen, len);
		break;
	case QUIC_SOCKOPT_TRANSPORT_PARAM_EXT:
		err = quic_get_tp_ext(sk, optval, optlen, len);
		break;
	case QUIC_SOCKOPT_INFO:
		err = quic_get_info(sk, optval, optlen, len);
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	release_sock(sk);
	return err;
}
