// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: version negotiation (RFC 9000 6, RFC 9368, RFC 9369).
 *
 * We speak two versions, 1 and 2, which share their first flight's
 * format: either can be upgraded to the other without a round trip.
 *
 * Incompatible negotiation, on a client. A QUIC_SOCKOPT_CONFIG version
 * we do not speak (a greased 0x?a?a?a?a one, say) goes in the long
 * headers of the first Initials, protected as version 1. The server
 * answers with Version Negotiation; the client takes the first of
 * versions 1 and 2 it lists and sends its first flight again in it, with
 * that version's Initial keys. TLS lives in user space, so the
 * ClientHello cannot be built again: the same one goes, and it carries
 * no version_information (RFC 9368 3), whose Chosen Version would be
 * the version the server refused. A client that started in a version we
 * speak sent one naming it: Version Negotiation ends that connection
 * with EPROTONOSUPPORT, unless it disabled compatible negotiation (and
 * so sent none). A Version Negotiation that lists the version sent,
 * comes after any packet from the server was processed, or does not echo
 * our connection IDs is ignored (RFC 9000 6.2); one with no version of
 * ours ends the connection with EPROTONOSUPPORT. The server's
 * version_information then rules out a forged Version Negotiation: from
 * its Available Versions the client must have picked the same version
 * (RFC 9368 4); without it, only version 1 stands (RFC 9368 8).
 *
 * Compatible negotiation (RFC 9368 2.3). A server upgrades a connection
 * to its own QUIC_SOCKOPT_CONFIG version (inherited from the listener)
 * when the client's version_information lists it among its Available
 * Versions and neither end set disable_compatible_version. It does so
 * when TLS hands it the client's transport parameters, before its first
 * flight: its Initial keys are derived again for the new version, and
 * packets of the old one are dropped from then on. A client that
 * receives an Initial of another version it listed, before it has
 * Handshake keys, moves to that version the same way, once such a
 * packet opens with its keys; the server's Chosen Version must then
 * name it (RFC 9368 4).
 *
 * Keys are derived in process context: the packet that shows the new
 * version waits, parked, for timer.c's work item.
 */

#include <net/sock.h>
#include <net/tcp_states.h>

#ifdef QUIC_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include "close.h"
#include "conn.h"
#include "input.h"
#include "loss.h"
#include "mib.h"
#include "output.h"
#include "packet.h"
#include "protocol.h"
#include "socket.h"
#include "timer.h"
#include "version.h"

/* The versions we speak, in the order a client prefers them. */
static const u32 quic_versions[] = { QUIC_VERSION_V1, QUIC_VERSION_V2 };

static u32 quic_version_other(u32 v)
{
	return v == QUIC_VERSION_V1 ? QUIC_VERSION_V2 : QUIC_VERSION_V1;
}

/**
 * quic_version_wire() - the Version field of our long headers
 * @sk: the socket
 *
 * Return: QUIC_SOCKOPT_CONFIG's version while a client probes with one
 * we do not speak, else the version in use.
 */
u32 quic_version_wire(const struct sock *sk)
{
	const struct quic_conn *c = &quic_sk(sk)->conn;

	if (unlikely(c->vn.probe))
		return quic_sk(sk)->opts.config.version;
	return c->vn.version;
}

static bool quic_version_listed(const struct quic_tparams *tp, u32 v)
{
	u32 i;

	if (!quic_tparams_has(tp, QUIC_TPB_VERSION_INFO))
		return false;
	for (i = 0; i < tp->num_versions; i++)
		if (tp->available_versions[i] == v)
			return true;
	return false;
}

/**
 * quic_version_vn_rcvd() - a client receives Version Negotiation
 * @sk: the socket, locked
 * @h: the packet's header
 *
 * Return: 0 if acted upon, -EINVAL if ignored.
 */
int quic_version_vn_rcvd(struct sock *sk, const struct quic_pkt_hdr *h)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 wire = quic_version_wire(sk), pick = 0, i, j, v;

	if (c->is_server || c->in.dcid_learned || c->hs.retried ||
	    c->vn.changed || sk->sk_state != TCP_SYN_RECV ||
	    !quic_cid_eq_bytes(&c->ids.scid, h->dcid, h->dcid_len) ||
	    !quic_cid_eq_bytes(&c->ids.dcid, h->scid, h->scid_len))
		return -EINVAL;
	for (i = 0; i < h->num_versions; i++)
		if (get_unaligned_be32(h->versions + 4 * i) == wire)
			return -EINVAL;
	for (j = 0; j < ARRAY_SIZE(quic_versions) && !pick; j++) {
		for (i = 0; i < h->num_versions; i++) {
			v = get_unaligned_be32(h->versions + 4 * i);
			if (v == quic_versions[j]) {
				pick = v;
				break;
			}
		}
	}
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_VN_RCVD);
	/* Nothing to send: the server speaks none of ours; or our
	 * ClientHello names a Chosen Version, which a server checks
	 * against the version in use (RFC 9368 4), and TLS cannot build
	 * another one here.
	 */
	if (!pick || (!c->vn.probe &&
		      quic_tparams_has(&c->local_tp, QUIC_TPB_VERSION_INFO))) {
		quic_close_abort(sk, QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION,
				 EPROTONOSUPPORT);
		return 0;
	}
	c->vn.changed = 1;
	c->vn.acted = 1;
	c->vn.probe = 0;
	c->vn.flip = pick != c->vn.version;
	c->vn.resend = 1;
	quic_timer_work(sk, QUIC_WORK_VERSION);
	return 0;
}

/**
 * quic_version_rcvd() - a packet of a version other than the one in use
 * @sk: the socket, locked
 * @h: its header
 *
 * On a client, an Initial of another version it listed, before it has
 * Handshake keys, is the server's compatible negotiation: the client
 * moves to that version. Until its keys are derived, the packets of that
 * version wait.
 *
 * Return: true if the packet is to wait for the keys of its version,
 * false if it is to be dropped.
 */
bool quic_version_rcvd(struct sock *sk, const struct quic_pkt_hdr *h)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	if (c->vn.flip)
		return h->version == quic_version_other(c->vn.version);
	if (c->is_server || c->vn.changed || c->vn.probe ||
	    sk->sk_state != TCP_SYN_RECV || h->type != QUIC_PACKET_INITIAL ||
	    !quic_version_supported(h->version) ||
	    quic_crypto_ready(&c->space.at[QUIC_CRYPTO_HANDSHAKE]->rx) ||
	    !quic_version_listed(&c->local_tp, h->version))
		return false;
	c->vn.changed = 1;
	c->vn.flip = 1;
	quic_timer_work(sk, QUIC_WORK_VERSION);
	return true;
}

/* The Initial keys of the version in use, from the DCID they derive from. */
static int quic_version_keys(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	return quic_conn_initial_keys(sk, c->hs.retried ? &c->ids.retry_scid :
						       &c->ids.odcid);
}

/* Whether the Initial space took a packet since @any and @largest. */
static bool quic_version_took(const struct quic_ackrange *r, bool any,
			      u64 largest)
{
	return r->any && (!any || r->largest != largest);
}

/**
 * quic_version_apply() - the client's move to another version
 * @sk: the socket, locked, in process context
 * @m: filled with what the move is, for quic_version_settle()
 *
 * The Initial keys of the new version. After Version Negotiation the
 * first flight goes again in it. Then the packets that waited are to be
 * processed (they are marked ready), and quic_version_settle() called.
 *
 * Return: true if the caller is to process them and settle the move.
 */
bool quic_version_apply(struct sock *sk, struct quic_version_move *m)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_ackrange *r = &c->space.at[QUIC_CRYPTO_INITIAL]->recv;

	m->flip = c->vn.flip;
	m->resend = c->vn.resend;
	m->any = r->any;
	m->largest = r->largest;
	if (!m->flip && !m->resend)
		return false;
	c->vn.flip = 0;
	c->vn.resend = 0;
	if (sk->sk_state != TCP_SYN_RECV)
		return false;
	if (m->flip) {
		c->vn.version = quic_version_other(c->vn.version);
		if (quic_version_keys(sk)) {
			quic_close_conn(sk, QUIC_TRANSPORT_ERROR_INTERNAL);
			return false;
		}
	}
	if (m->resend) {
		quic_loss_retry(sk);
		quic_recovery_pto_reset(&c->loss.rec);
	}
	quic_input_parked_ready(sk, QUIC_CRYPTO_INITIAL);
	return true;
}

/**
 * quic_version_settle() - the client's move, once the parked packets ran
 * @sk: the socket, locked, in process context
 * @m: the move, as quic_version_apply() described it
 *
 * A move the server made (compatible negotiation) holds only if one of
 * the packets opened with the new keys: else the client goes back to
 * its version, so that a forged packet cannot move it. Once it holds,
 * the 0-RTT key, whose labels were those of the old version, goes: what
 * 0-RTT packets carried is sent again in 1-RTT ones once they are lost.
 */
void quic_version_settle(struct sock *sk, const struct quic_version_move *m)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_ackrange *r = &c->space.at[QUIC_CRYPTO_INITIAL]->recv;

	if (sk->sk_state != TCP_SYN_RECV)
		return;
	if (m->flip && !m->resend && !quic_version_took(r, m->any, m->largest)) {
		c->vn.version = quic_version_other(c->vn.version);
		c->vn.changed = 0;
		if (quic_version_keys(sk)) {
			quic_close_conn(sk, QUIC_TRANSPORT_ERROR_INTERNAL);
			return;
		}
	} else if (m->flip) {
		quic_conn_early_end(c);
		quic_conn_free_early(c);
		if (!m->resend)
			QUIC_INC_STATS(sock_net(sk), QUIC_MIB_VERSION_CHANGED);
	}
	quic_output_flush(sk, GFP_KERNEL);
}

/**
 * quic_version_upgrade() - a server's compatible negotiation
 * @sk: the socket, locked, a server connection in process context
 * @tp: the client's transport parameters, validated
 *
 * Return: 0, or a negative errno if the new Initial keys failed.
 */
int quic_version_upgrade(struct sock *sk, const struct quic_tparams *tp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 want = quic_sk(sk)->opts.config.version;
	u32 was = c->vn.version;
	int err;

	if (!c->is_server || c->vn.changed ||
	    !quic_version_supported(want) || want == c->vn.version ||
	    !quic_tparams_has(&c->local_tp,
			      QUIC_TPB_VERSION_INFO) ||
	    !quic_version_listed(tp, want))
		return 0;
	c->vn.version = want;
	c->vn.changed = 1;
	err = quic_conn_initial_keys(sk, &c->ids.odcid);
	if (err) {
		c->vn.version = was;
		return err;
	}
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_VERSION_CHANGED);
	return 0;
}

/**
 * quic_version_check_peer() - the peer's version_information
 * @sk: the socket, locked
 * @tp: the peer's transport parameters
 *
 * RFC 9368 4: the peer's Chosen Version is the version in use (on a
 * server, the one of the client's first Initial: it is checked before
 * any upgrade). A client checks more (quic_tparams_check_server_versions()):
 * a move from the version it asked for needs the server's
 * version_information, and after Version Negotiation the server's
 * Available Versions must lead to the version it picked.
 *
 * Return: 0, or -EPROTONOSUPPORT (VERSION_NEGOTIATION_ERROR).
 */
int quic_version_check_peer(struct sock *sk, const struct quic_tparams *tp)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 first = quic_sk(sk)->opts.config.version ?: QUIC_VERSION_V1;

	if (c->is_server)
		return quic_tparams_check_version(tp, c->vn.version);
	return quic_tparams_check_server_versions(tp, &c->local_tp, c->vn.version,
						  first, quic_versions,
						  ARRAY_SIZE(quic_versions),
						  c->vn.acted);
}
