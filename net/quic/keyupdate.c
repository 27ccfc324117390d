// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: key updates of a connection (RFC 9001 section 6).
 *
 * crypto.c keeps three key slots per direction and switches between them
 * without sleeping; preparing the next phase's keys may sleep (some AEAD
 * implementations allocate in setkey). So the next keys of both
 * directions are prepared in process context: when the 1-RTT keys are
 * installed, after a local update, and from a work item after the peer
 * started one. The same calls give the keys that just became current
 * their AEAD transform: an AES-GCM key has none while it is the next one.
 *
 * Local update (setsockopt QUIC_SOCKOPT_KEY_UPDATE, quic-api.rst 5.9):
 * the send side moves to the next phase; the receive side follows when
 * the peer's first packet of that phase opens. Until then the update is
 * not confirmed and another one is refused (RFC 9001 6.1 asks for an
 * acknowledgment of a packet of the current phase; a packet of the new
 * phase from the peer implies that it saw ours).
 *
 * The same work item frees the keys of the Initial and Handshake spaces
 * once they are discarded, when that happens in softirq.
 *
 * Peer update: the receive side moved in quic_crypto_aead_decrypt(); the
 * send side follows here, and a QUIC_EVENT_KEY_UPDATE carries the new
 * phase. A peer that starts yet another update before our work item
 * prepared the keys sees its packets dropped until it is done.
 */

#include <net/sock.h>

#include "conn.h"
#include "crypto.h"
#include "event.h"
#include "keyupdate.h"
#include "socket.h"
#include "timer.h"

static int quic_key_prepare(struct quic_conn *c)
{
	struct quic_pnspace *s = c->space.at[QUIC_CRYPTO_APP];
	int err;

	if (!quic_crypto_ready(&s->rx) || !quic_crypto_ready(&s->tx))
		return -ENOKEY;
	err = quic_crypto_key_update_prepare(&s->rx);
	if (!err)
		err = quic_crypto_key_update_prepare(&s->tx);
	return err;
}

/**
 * quic_key_free_discarded() - free the keys of the discarded spaces
 * @sk: the socket, locked, in process context
 *
 * Those of the Initial and Handshake spaces, once discarded.
 */
void quic_key_free_discarded(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	int i;

	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		if (!c->space.at[i]->discarded || !quic_conn_space_own(c, i))
			continue;
		quic_crypto_free(&c->space.at[i]->rx);
		quic_crypto_free(&c->space.at[i]->tx);
	}
}

/**
 * quic_key_discard() - a space was discarded: free its keys
 * @sk: the socket, locked
 *
 * Its transforms are freed at once in process context; from softirq
 * (a packet or a timer discarded it), by the work item, as freeing
 * transforms is kept out of atomic context.
 */
void quic_key_discard(struct sock *sk)
{
	if (sock_owned_by_user(sk)) {
		quic_key_free_discarded(sk);
		return;
	}
	quic_timer_work(sk, QUIC_WORK_KEYS_FREE);
}

/**
 * quic_key_update_ready() - the 1-RTT keys are installed: prepare the next
 * @sk: the socket, locked, in process context
 *
 * Return: 0 or a crypto API errno.
 */
int quic_key_update_ready(struct sock *sk)
{
	return quic_key_prepare(&quic_sk(sk)->conn);
}

/**
 * quic_key_update_local() - setsockopt(QUIC_SOCKOPT_KEY_UPDATE)
 * @sk: the socket, locked, in process context
 *
 * Return: 0; -EPIPE unless established; -EINVAL before the handshake is
 * confirmed or while our previous update is not; a crypto API errno.
 */
int quic_key_update_local(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = c->space.at[QUIC_CRYPTO_APP];
	int err;

	if (sk->sk_state != TCP_ESTABLISHED)
		return -EPIPE;
	if (!c->hs.handshake_confirmed || s->tx.key_phase != s->rx.key_phase)
		return -EINVAL;
	err = quic_key_prepare(c);
	if (!err)
		err = quic_crypto_key_update(&s->tx);
	if (err)
		return err;
	trace_quic_key(sk, "update", QUIC_CRYPTO_APP, true, s->tx.key_phase);
	/* The new send keys get their transform; until then (on error) they
	 * protect without one (crypto.c), so the update stands.
	 */
	quic_key_prepare(c);
	return 0;
}

/**
 * quic_key_update_peer() - a packet opened with the next receive keys
 * @sk: the socket, locked; softirq or process context
 *
 * Follows the peer's update on the send side unless the update was ours,
 * and queues the preparation of the keys after these.
 *
 * Return: 0, or a transport error code to close with.
 */
u32 quic_key_update_peer(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = c->space.at[QUIC_CRYPTO_APP];
	u8 phase;

	if (s->tx.key_phase != s->rx.key_phase) {
		if (quic_crypto_key_update(&s->tx))
			return QUIC_TRANSPORT_ERROR_KEY_UPDATE;
		phase = s->rx.key_phase;
		trace_quic_key(sk, "update", QUIC_CRYPTO_APP, true, phase);
		quic_event_put(sk, QUIC_EVENT_KEY_UPDATE, &phase, sizeof(phase));
	}
	trace_quic_key(sk, "update", QUIC_CRYPTO_APP, false, s->rx.key_phase);
	quic_timer_work(sk, QUIC_WORK_KEYS_NEXT);
	return 0;
}
