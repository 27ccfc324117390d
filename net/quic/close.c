// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: closing, draining and the idle timeout of a connection.
 *
 * A connection ends in one of three ways. We close it (an error of ours,
 * close() or shutdown()): our CONNECTION_CLOSE goes (output.c builds it)
 * and the connection stays in the closing state for three PTOs, answering
 * what still arrives with that datagram again, at a limited rate. The
 * peer closes it (CONNECTION_CLOSE, or a Stateless Reset): it drains for
 * three PTOs, sending nothing. Or nothing came for the idle timeout: it
 * ends silently. In every case the socket is TCP_CLOSE from then on and
 * recvmsg() gives ENOTCONN; our IDs stay in the table until the closing
 * or draining state ends, so that late packets find the socket.
 *
 * The closing and draining states are timed by the loss timer (loss.c
 * calls quic_close_done()), the idle timeout by the idle timer (timer.c
 * calls quic_close_idle_timeout()).
 *
 * Locking: everything here runs with the socket locked, as all of a
 * connection's state (conn.h): process context holds it with lock_sock(),
 * softirq receive and the timers with bh_lock_sock() when no user owns the
 * socket (otherwise the receive path queues to the socket backlog and a
 * timer's expiry is deferred to release_sock()). quic_close_shutdown()
 * takes the lock itself.
 */

#include <linux/jiffies.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "close.h"
#include "conn.h"
#include "event.h"
#include "export.h"
#include "mib.h"
#include "output.h"
#include "packet.h"
#include "path.h"
#include "recovery.h"
#include "socket.h"
#include "timer.h"
#include "udp.h"

/* CONNECTION_CLOSE answers in the closing state: one for the 1st, 2nd,
 * 4th, 8th... packet received, up to the 2^this-th.
 */
#define QUIC_CLOSE_ANSWERS	8
/* The backed-off PTO is at most the idle timeout over this, so that a
 * path back from an outage sees a probe before the idle timeout ends.
 */
#define QUIC_CLOSE_PROBES_PER_IDLE	6
/* ... and at most this without an idle timeout (TCP's RTO max is 120 s). */
#define QUIC_CLOSE_PTO_MAX_US		(60ULL * USEC_PER_SEC)

/* The current PTO without backoff (RFC 9002 6.2.1), in microseconds: the
 * closing and draining states and the idle timeout's floor are counted
 * in it (RFC 9000 10.1 and 10.2).
 */
static u64 quic_close_pto_us(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	return quic_rtt_pto(&c->loss.rec.rtt, c->hs.peer_tp_set ?
			    c->peer_tp.max_ack_delay_us : 0, 0);
}

/* The connection is over: @sk_err for the socket (0 for none), @ev the
 * CONNECTION_CLOSE event to report (NULL for none). Our IDs stay in the
 * table through the closing and draining states, so that late packets
 * find the socket; then they go.
 *
 * The event is queued once the state is TCP_CLOSE: a poll() woken by it
 * then sees the hangup too, and a reader, which takes the socket lock,
 * finds the event before ENOTCONN.
 */
static void __quic_close_conn(struct sock *sk, u32 err, int sk_err,
			      const struct quic_connection_close *ev)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (sk->sk_state == TCP_CLOSE)
		return;
	c->close.err = err;
	quic_set_state(sk, TCP_CLOSE);
	if (sk_err)
		WRITE_ONCE(sk->sk_err, sk_err);
	if (ev)
		quic_event_put(sk, QUIC_EVENT_CONNECTION_CLOSE, ev, sizeof(*ev));
	quic_timer_stop_all(sk);
	if (c->hs.was_established)
		QUIC_INC_STATS(sock_net(sk), QUIC_MIB_CONN_CLOSED);
	if (c->close.skb && !c->close.draining)
		c->close.closing = true;
	if (c->close.closing || c->close.draining)
		quic_timer_reset(sk, QUIC_TIMER_LOSS, jiffies +
				 usecs_to_jiffies(3 * quic_close_pto_us(sk)));
	else
		quic_conn_unhash(sk);
	sk->sk_state_change(sk);
	if (sk_err)
		sk_error_report(sk);
}

/* The close information getsockopt(CONNECTION_CLOSE) returns from now
 * on, and the CONNECTION_CLOSE event reports (quic-api.rst 5.6).
 */
static struct quic_connection_close *
quic_close_info(struct sock *sk, u32 err, u8 frame, const u8 *phrase,
		u32 len)
{
	struct quic_connection_close *cc = &quic_sk(sk)->opts.close;

	memset(cc, 0, sizeof(*cc));
	cc->errcode = err;
	cc->frame = frame;
	len = min_t(u32, len, QUIC_CLOSE_PHRASE_BUFFER_SIZE - 1);
	if (len)
		memcpy(cc->phrase, phrase, len);
	return cc;
}

/**
 * quic_close_abort() - the connection is over, with nothing sent
 * @sk: the socket, locked
 * @err: the transport error reported
 * @sk_err: the socket error the user gets
 */
void quic_close_abort(struct sock *sk, u32 err, int sk_err)
{
	__quic_close_conn(sk, err, sk_err,
			  quic_close_info(sk, err, 0, NULL, 0));
}

/**
 * quic_close_conn() - the connection is over
 * @sk: the socket, locked
 * @err: the transport error we closed with (a CONNECTION_CLOSE carrying
 *	it was just sent, or could not be), 0 for a close by the application
 *
 * Wakes readers and writers; recvmsg() gives ENOTCONN from now on. A
 * close for an error is reported with a CONNECTION_CLOSE event. If a
 * CONNECTION_CLOSE went out, the connection stays in the closing state
 * for three PTOs and answers what still arrives.
 */
void quic_close_conn(struct sock *sk, u32 err)
{
	if (sk->sk_state == TCP_CLOSE)
		return;
	__quic_close_conn(sk, err, err ? ECONNABORTED : 0, !err ? NULL :
			   quic_close_info(sk, err, 0, NULL, 0));
}

/**
 * quic_close_frame() - the peer sent CONNECTION_CLOSE
 * @sk: the socket, locked
 * @f: the decoded frame, its reason pointing into the packet
 * @app: an application close (0x1d)
 *
 * The code, frame type and reason phrase (cut to 63 bytes) are reported
 * and kept for getsockopt(CONNECTION_CLOSE); the connection drains for
 * three PTOs, sending nothing (RFC 9000 10.2.2).
 */
void quic_close_frame(struct sock *sk, const struct quic_frame_close *f,
		      bool app)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_connection_close *cc;

	if (sk->sk_state == TCP_CLOSE)
		return;
	cc = quic_close_info(sk, (u32)f->err,
			     app ? 0 : (u8)f->frame_type, f->reason, f->len);
	c->close.draining = true;
	kfree_skb(c->close.skb);
	c->close.skb = NULL;
	__quic_close_conn(sk, (u32)f->err, ECONNRESET, cc);
}

/**
 * quic_close_sent() - keep our CONNECTION_CLOSE for the closing state
 * @sk: the socket, locked
 * @skb: the datagram about to be sent
 */
void quic_close_sent(struct sock *sk, const struct sk_buff *skb)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	kfree_skb(c->close.skb);
	c->close.skb = skb_copy(skb, GFP_ATOMIC);
	c->close.rcvd = 0;
}

/**
 * quic_close_rcv() - a datagram for a closed connection
 * @sk: the socket, locked, in TCP_CLOSE
 * @skb: the datagram; consumed
 *
 * Closing state: answer with our CONNECTION_CLOSE again, for the 1st,
 * 2nd, 4th, 8th... datagram only (RFC 9000 10.2.1 asks for a limited
 * rate). Draining state, or no state: drop it.
 */
void quic_close_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct sk_buff *copy;
	u32 n;

	quic_path_amp_rcvd(sk, skb->len);
	kfree_skb(skb);
	if (!c->close.closing || !c->close.skb || !quic_sk(sk)->udp)
		return;
	n = ++c->close.rcvd;
	if (n & (n - 1) || n > BIT(QUIC_CLOSE_ANSWERS) ||
	    quic_path_amp_room(sk) < c->close.skb->len)
		return;
	copy = skb_copy(c->close.skb, GFP_ATOMIC);
	if (copy) {
		quic_path_amp_sent(sk, copy->len);
		quic_udp_xmit(quic_sk(sk)->udp, copy, &c->paths.local, &c->paths.peer, 0,
			      &c->out.dst_cache);
	}
}

/**
 * quic_close_done() - the end of the closing or draining state
 * @sk: the socket, locked, closing or draining
 *
 * The loss timer, which times those states, fired (loss.c).
 */
void quic_close_done(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	c->close.closing = false;
	c->close.draining = false;
	kfree_skb(c->close.skb);
	c->close.skb = NULL;
	quic_conn_unhash(sk);
}

/**
 * quic_close_free() - the closing state ends with the socket
 * @sk: the socket, locked, being freed, its timers stopped
 */
void quic_close_free(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	kfree_skb(c->close.skb);
	c->close.skb = NULL;
	c->close.closing = false;
	c->close.draining = false;
}

/**
 * quic_close_idle_us() - the idle timeout in force (RFC 9000 10.1)
 * @local: our max_idle_timeout in microseconds, 0 for none
 * @peer: the peer's, 0 for none
 * @floor: the least timeout, three PTOs
 *
 * Return: the smaller of the non-zero values, at least @floor; 0 if both
 * are 0 (no idle timeout).
 */
u64 quic_close_idle_us(u64 local, u64 peer, u64 floor)
{
	u64 t = !local ? peer : !peer ? local : min(local, peer);

	return t ? max(t, floor) : 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_close_idle_us);

/* The idle timeout in microseconds, 0 for none. Its floor is three
 * times the current PTO (RFC 9000 10.1), so it is computed again whenever
 * it is used.
 */
static u64 quic_close_idle_usecs(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 l = c->local_tp.max_idle_timeout_us;
	u64 p = c->hs.peer_tp_set ? c->peer_tp.max_idle_timeout_us : 0;

	return quic_close_idle_us(l, p, 3 * quic_close_pto_us(sk));
}

/* An idle timeout of quic_close_idle_usecs() in jiffies, 0 for none. */
static unsigned long quic_close_idle_jiffies(u64 us)
{
	return us ? usecs_to_jiffies(min_t(u64, us, U32_MAX)) : 0;
}

/**
 * quic_close_idle_start() - (re)start the idle timer with the values in force
 * @sk: the socket, locked
 */
void quic_close_idle_start(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 us = quic_close_idle_usecs(sk);
	unsigned long t = quic_close_idle_jiffies(us);

	c->close.idle_last = jiffies;
	c->close.idle_sent = false;
	/* Probes often enough that one follows a path back in time. */
	quic_recovery_set_max_backoff(&c->loss.rec,
				      us ? div_u64(us, QUIC_CLOSE_PROBES_PER_IDLE) :
					   QUIC_CLOSE_PTO_MAX_US);
	if (t)
		quic_timer_reset(sk, QUIC_TIMER_IDLE, jiffies + t);
	else
		quic_timer_stop(sk, QUIC_TIMER_IDLE);
}

/**
 * quic_close_idle_touch() - a packet was processed: the idle period restarts
 * @sk: the socket, locked
 *
 * Only a timestamp: the timer, when it fires, looks at it and waits on.
 */
void quic_close_idle_touch(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	c->close.idle_last = jiffies;
	c->close.idle_sent = false;
}

/**
 * quic_close_idle_sent() - an ack-eliciting packet was sent
 * @sk: the socket, locked
 *
 * RFC 9000 10.1: the first one since a packet was processed restarts the
 * idle period too, so that a peer gets the whole timeout to answer it.
 */
void quic_close_idle_sent(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (c->close.idle_sent)
		return;
	c->close.idle_sent = true;
	c->close.idle_last = jiffies;
}

/**
 * quic_close_idle_timeout() - the idle timer fired (timer.c)
 * @sk: the socket, locked, not running a user's call
 *
 * Waits on if a packet came (or went) since it was armed; else closes
 * silently (RFC 9000 10.1): no CONNECTION_CLOSE, an all-zero
 * CONNECTION_CLOSE event (quic-api.rst 5.6) and ETIMEDOUT.
 */
void quic_close_idle_timeout(struct sock *sk)
{
	struct quic_connection_close cc = {};
	unsigned long t, end;

	if (sk->sk_state == TCP_CLOSE)
		return;
	t = quic_close_idle_jiffies(quic_close_idle_usecs(sk));
	if (!t)
		return;
	end = quic_sk(sk)->conn.close.idle_last + t;
	if (time_before(jiffies, end)) {
		quic_timer_reset(sk, QUIC_TIMER_IDLE, end);
		return;
	}
	__quic_close_conn(sk, 0, ETIMEDOUT, &cc);
}

/**
 * quic_close_shutdown() - shutdown() (quic-api.rst 5.8)
 * @sk: the socket
 * @how: SHUT_RD, SHUT_WR or SHUT_RDWR
 *
 * With SHUT_WR or SHUT_RDWR the application close of close() is sent
 * (and the connection stays in the closing state for three PTOs); any
 * @how then closes the connection.
 *
 * On a listener, as on TCP: SHUT_RD and SHUT_RDWR stop listening and wake
 * accept() (EINVAL) and poll() (POLLHUP, and POLLIN|POLLRDHUP); SHUT_WR
 * does nothing. listen() may be called again afterwards.
 *
 * Return: 0, -EINVAL for a bad @how, or -ENOTCONN on a closed socket.
 */
int quic_close_shutdown(struct sock *sk, int how)
{
	int err = 0;

	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		if (how != SHUT_WR) {
			WRITE_ONCE(sk->sk_shutdown,
				   sk->sk_shutdown | (how + 1));
			quic_conn_listen_stop(sk);
		}
	} else if (sk->sk_state != TCP_SYN_RECV &&
		   sk->sk_state != TCP_ESTABLISHED) {
		err = -ENOTCONN;
	} else {
		WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | (how + 1));
		quic_close_local(sk, how != SHUT_RD);
	}
	release_sock(sk);
	return err;
}

/**
 * quic_close_local() - close() or shutdown() of a connection
 * @sk: the socket, locked, ESTABLISHING or ESTABLISHED
 * @send: send the CONNECTION_CLOSE (not for SHUT_RD)
 *
 * Established: what is queued is flushed once (as far as flow control
 * and one flush go; nothing is retransmitted after), then an application
 * CONNECTION_CLOSE with the code and phrase of QUIC_SOCKOPT_CONNECTION_CLOSE.
 * Establishing: a transport close with APPLICATION_ERROR (RFC 9000
 * 10.2.3), or with the stored code if it was set as a TLS alert (frame
 * CRYPTO, a CRYPTO_ERROR code): the alert with which the user-space half
 * failed the handshake (RFC 9001 4.8).
 */
void quic_close_local(struct sock *sk, bool send)
{
	const struct quic_sock_opts *o = &quic_sk(sk)->opts;

	if (send) {
		if (sk->sk_state == TCP_ESTABLISHED)
			quic_output_flush(sk, GFP_KERNEL);
		if (sk->sk_state != TCP_ESTABLISHED && o->close_alert)
			quic_output_close(sk, o->close.errcode, GFP_KERNEL);
		else
			quic_output_close_app(sk, GFP_KERNEL);
	}
	__quic_close_conn(sk, 0, 0, NULL);
}

/* RFC 9000 10.3.1: a Stateless Reset from the peer, if @token (the last
 * 16 bytes of the datagram) is the one of an ID of the peer we used: the
 * connection drains, silently.
 */
static void quic_close_reset_rcvd(struct sock *sk, const u8 *token)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (sk->sk_state == TCP_CLOSE || !quic_cid_dest_match_reset(&c->ids.dst,
								    token))
		return;
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_RESET_RCVD);
	c->close.draining = true;
	kfree_skb(c->close.skb);
	c->close.skb = NULL;
	__quic_close_conn(sk, QUIC_TRANSPORT_ERROR_CRYPTO, ECONNRESET,
			  quic_close_info(sk, QUIC_TRANSPORT_ERROR_CRYPTO,
					  0, NULL, 0));
}

/**
 * quic_close_reset_check() - is a datagram a Stateless Reset for us?
 * @sk: the socket, locked: the one whose ID the datagram's first packet
 *	carried (it did not decrypt), or the one whose peer's token ends it
 *	(quic_stateless_reset_sk())
 * @buf: the whole datagram
 * @len: its length
 *
 * RFC 9000 10.3.1: compared with the tokens of the peer's IDs we used;
 * on a match the connection drains.
 *
 * Return: true if it was a Stateless Reset.
 */
bool quic_close_reset_check(struct sock *sk, const u8 *buf, u32 len)
{
	const u8 *token;

	if (sk->sk_state == TCP_CLOSE ||
	    !quic_packet_is_stateless_reset_candidate(buf, len, &token))
		return false;
	quic_close_reset_rcvd(sk, token);
	return sk->sk_state == TCP_CLOSE;
}
