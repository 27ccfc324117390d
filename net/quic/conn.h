/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: connection state of a QUIC socket (net/quic/conn.c). The send
 * path is in output.h, the receive path in input.h, key updates in
 * keyupdate.h.
 *
 * Everything here is serialised by the socket lock: process context holds
 * it with lock_sock(), softirq receive and the timers with bh_lock_sock()
 * when the socket is not owned by a user (otherwise the receive path
 * queues to the socket backlog and a timer's expiry is deferred to
 * release_sock(): timer.h).
 */
#ifndef __NET_QUIC_CONN_H
#define __NET_QUIC_CONN_H

#include <linux/list.h>
#include <linux/quic.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/dst_cache.h>
#include "ackrange.h"
#include "cid.h"
#include "close.h"
#include "cong.h"
#include "connid.h"
#include "crypto.h"
#include "ctrl.h"
#include "datagram.h"
#include "ecn.h"
#include "input.h"
#include "lookup.h"
#include "loss.h"
#include "outq.h"
#include "output.h"
#include "path.h"
#include "pmtu.h"
#include "reasm.h"
#include "recovery.h"
#include "sent.h"
#include "stream.h"
#include "timer.h"
#include "tparam.h"
#include "udp.h"
#include "version.h"

struct quic_ack_range;
struct quic_frame;
struct quic_frame_ack;
struct quic_frame_new_cid;
struct quic_out_pkt;
struct quic_path;
struct quic_pkt_hdr;
struct sock;

/* Length of the connection IDs we choose (quic-api.rst 7.3). */
#define QUIC_CONN_CID_LEN		8
/* Largest datagram we build during the handshake, and the least after. */
#define QUIC_CONN_MAX_DGRAM		1200
/* Largest datagram we build once established (with the path MTU and the
 * max_udp_payload_size of both ends): its skb and a STREAM chunk filling
 * it stay within a 16 KiB slab object.
 */
#define QUIC_CONN_MAX_DGRAM_CAP		15360
/* Bytes of the packet numbers we send (output.c writes them, the
 * anti-amplification floor counts them).
 */
#define QUIC_CONN_PN_LEN		4
/* Packets of a level kept while its receive key is missing. */
#define QUIC_CONN_MAX_PARKED		32
/* CRYPTO data of the Initial and Handshake levels buffered beyond what
 * was delivered (RFC 9000 7.5 asks for at least 4096 bytes): a server's
 * Handshake flight is its certificate chain, commonly 3 to 12 KB and a
 * few tens of KB with long chains or large keys; 64 KiB takes any such
 * flight whole, in whatever order its packets arrive. At most about
 * twice this is held per level (reasm.h), and only during the handshake.
 */
#define QUIC_CONN_CRYPTO_MAX		QUIC_INPUT_CRYPTO_MAX
/* Requests and parked datagrams a listener keeps per request. */
#define QUIC_CONN_REQ_MAX_SKBS		8

/**
 * struct quic_pnspace - one packet-number space and its encryption level
 * @rx: receive keys
 * @tx: transmit keys
 * @recv: packet numbers received, for ACK frames and duplicates
 * @sent: packets sent and not yet acknowledged
 * @out: CRYPTO data (and, in the 1-RTT space, STREAM data) to deliver
 * @next_pn: the next packet number to send
 * @crypto_send_off: CRYPTO stream offset for the next bytes queued
 * @crypto_in: CRYPTO data received and not yet delivered; its delivery
 *	point is the CRYPTO stream offset delivered so far
 * @ack_pending: an ack-eliciting packet arrived since our last ACK
 * @ack_eliciting: ack-eliciting packets received since our last ACK;
 *	U8_MAX asks for an ACK at once (a packet arrived out of order)
 * @rx_eliciting: ack-eliciting packets received since the first or the
 *	last one out of order (saturates)
 * @ping: send a PING (probe with nothing to retransmit)
 * @discarded: keys dropped; nothing more is sent or received here
 * @loss_time: when the oldest packet not yet lost will be by the time
 *	threshold (RFC 9002 6.1.2), or 0
 */
struct quic_pnspace {
	struct quic_crypto	rx;
	struct quic_crypto	tx;
	struct quic_ackrange	recv;
	struct quic_sent	sent;
	struct quic_outq	out;
	u64			next_pn;
	u64			crypto_send_off;
	struct quic_reasm	crypto_in;
	bool			ack_pending;
	u8			ack_eliciting;
	u32			rx_eliciting;
	bool			ping;
	bool			discarded;
	u64			loss_time;
};

/**
 * struct quic_spaces - the packet-number spaces of a connection
 * @at: the spaces, by enum quic_crypto_level: the Initial and Handshake
 *	ones in @hs, allocated with the socket (quic_conn_init()) and freed
 *	once both are discarded, then a shared read-only space that says
 *	only that it is discarded; the 1-RTT one is @app
 * @app: the 1-RTT space, kept to the end
 * @hs: the Initial and Handshake spaces while either is in use
 *
 * A space that is discarded is read for its @discarded only, and never
 * written.
 */
struct quic_spaces {
	struct quic_pnspace	*at[QUIC_PNSPACE_NUM];
	struct quic_pnspace	app;
	struct quic_pnspace	*hs;
};

/**
 * struct quic_request - a client Initial waiting for accept()
 * @list: link in the listener's request queue
 * @local: the address the client targeted
 * @peer: the client's address
 * @dcid: the DCID of the client's Initial: the one it chose, or after a
 *	Retry the SCID of our Retry
 * @scid: the client's SCID
 * @odcid: the DCID the client chose first (@dcid unless @retried)
 * @us: the UDP socket whose half-open count the request holds
 * @version: the client's version
 * @retried: the Initial carried the token of our Retry
 * @validated: the Initial carried a valid token: the client's address is
 *	validated (RFC 9000 8.1)
 * @skbs: its datagrams, parked until accept()
 */
struct quic_request {
	struct list_head	list;
	union quic_addr		local;
	union quic_addr		peer;
	struct quic_cid		dcid;
	struct quic_cid		scid;
	struct quic_cid		odcid;
	struct quic_udp_sock	*us;
	u32			version;
	bool			retried;
	bool			validated;
	struct sk_buff_head	skbs;
};

/**
 * struct quic_ids - the connection IDs a connection uses
 * @scid: our connection ID
 * @dcid: the peer's connection ID
 * @odcid: the original DCID of the client's first Initial
 * @retry_scid: client: the SCID of the Retry, checked against the
 *	server's retry_source_connection_id
 * @reset_token: the peer's token in the namespace's reset table
 * @reset_hashed: @reset_token is in that table
 * @odcid_hashed: @odcid is in the namespace's original-DCID table
 * @hashed: @src's IDs are in the namespace table
 * @src: the connection IDs we issued (connid.c's set; ctrl.c and loss.c
 *	mark their NEW_CONNECTION_ID frames sent and lost in it)
 * @dst: the connection IDs the peer issued; @dcid is its active one
 *	(ctrl.c and loss.c queue RETIRE_CONNECTION_ID frames in it)
 *
 * Owned by conn.c: other files read it and change it only through conn.c's
 * functions (quic_conn_learn_dcid(), quic_conn_forget_scid()).
 */
struct quic_ids {
	struct quic_cid		scid;
	struct quic_cid		dcid;
	struct quic_cid		odcid;
	struct quic_cid		retry_scid;
	u8			reset_token[QUIC_RESET_TOKEN_LEN];
	bool			reset_hashed;
	bool			odcid_hashed;
	bool			hashed;
	struct quic_cid_set	src;
	struct quic_cid_set	dst;
};

/**
 * struct quic_early - 0-RTT and the session ticket of a connection
 * @key: the 0-RTT key, kmalloc()ed when TLS installs the EARLY secret
 *	(client: send, server: receive), freed with the connection
 * @ticket_buf: client: the server's first NewSessionTicket while it arrives
 * @ticket_done: client: that NewSessionTicket was captured, or could not
 *	be; later 1-RTT CRYPTO data is dropped
 * @off: server: 0-RTT packets are no longer taken (a 1-RTT packet came:
 *	RFC 9001 4.9.3); client: 0-RTT packets are no longer sent (the 1-RTT
 *	send key is in)
 *
 * Owned by conn.c: other files read it and end 0-RTT only through
 * quic_conn_early_end().
 */
struct quic_early {
	struct quic_crypto	*key;
	u8			*ticket_buf;
	u8			ticket_done:1,
				off:1;
};

/**
 * struct quic_hs - how far a connection's handshake got
 * @peer_tp_set: the connection's peer_tp holds the peer's parameters
 * @handshake_confirmed: handshake confirmed (RFC 9001 4.1.2)
 * @was_established: reached ESTABLISHED (counted in QuicConnOpened, so its
 *	end is counted in QuicConnClosed)
 * @half_open: server: counted in its UDP socket's half-open connections
 * @retried: client: a Retry was accepted; no other is
 * @retry_pending: client: the Initial keys for ids.retry_scid are still to
 *	be derived (process context: timer.c's work item)
 * @fin_pending: client: established, its Finished not queued yet; no
 *	1-RTT packet goes before it, so that the first ones coalesce with it
 *
 * Owned by conn.c: no other file writes it.
 */
struct quic_hs {
	u8	peer_tp_set:1,
		handshake_confirmed:1,
		was_established:1,
		half_open:1,
		retried:1,
		retry_pending:1,
		fin_pending:1;
};

/**
 * struct quic_conn - the connection of a QUIC socket
 * @space: the packet-number spaces (conn.c)
 * @local_tp: our transport parameters: the user's settings
 *	(QUIC_SOCKOPT_TRANSPORT_PARAM, or the listener's) and the connection
 *	IDs and preferred address this connection chose; the only copy
 * @peer_tp: the peer's transport parameters, once received; the only copy
 * @ids: the connection IDs in use and their hashing (conn.c)
 * @paths: the addresses and their validation (path.c)
 * @requests: listener: queued requests
 * @timers: loss/PTO (and the end of closing or draining), delayed ACK and
 *	idle timers (timer.c)
 * @listen: the listener hash's link (lookup.c)
 * @vn: the version and its negotiation (version.c)
 * @loss: RTT estimate, PTO backoff and loss-timer state (loss.c)
 * @cong: congestion window and pacing (cong.c)
 * @is_server: server role (listener or accepted socket)
 * @hs: how far the handshake got (conn.c)
 * @early: 0-RTT and the session ticket (conn.c)
 * @ecn: ECN marks received and sent, and their validation (ecn.c)
 * @streams: streams and flow control, once @streams_ready
 * @active_sid: the stream a send with stream ID -1 goes to, or -1
 *	(socket.c)
 * @streams_ready: @streams is set up (handshake complete, or, on a
 *	client, the peer's remembered parameters set for 0-RTT)
 * @stream_rx: some stream has data (or a FIN) to read (socket.c)
 * @events: notifications waiting for recvmsg() (event.c)
 * @dgram: datagrams to send and received (datagram.c), kzalloc()ed with
 *	the first one, freed with the socket
 * @close: closing, draining and the idle timeout (close.c)
 * @out: the send side's buffers and budget (output.c)
 * @in: the receive side's batch and packet state (input.c)
 * @ctrl: control frames waiting to be sent (ctrl.c)
 */
struct quic_conn {
	struct quic_spaces	space;
	struct quic_tparams	local_tp;
	struct quic_tparams	peer_tp;
	struct quic_ids		ids;
	struct quic_paths	paths;
	struct list_head	requests;
	struct quic_timers	timers;
	struct quic_listen	listen;
	struct quic_vn		vn;
	struct quic_loss	loss;
	struct quic_cong	cong;
	bool			is_server;
	struct quic_hs		hs;
	struct quic_early	early;
	struct quic_ecn		ecn;
	struct quic_stream_table streams;
	s64			active_sid;
	bool			streams_ready;
	bool			stream_rx;
	struct sk_buff_head	events;
	struct quic_dgram	*dgram;
	struct quic_close	close;
	struct quic_out		out;
	struct quic_in		in;
	struct quic_ctrl	ctrl;
};

/* conn.c */
void quic_conn_init(struct sock *sk);
void quic_conn_spaces_free(struct sock *sk);
void quic_conn_free(struct sock *sk);
void quic_conn_inherit(struct sock *nsk, const struct sock *lsk);
void quic_conn_destroy(struct sock *sk);
int quic_conn_client_start(struct sock *sk, const union quic_addr *peer);
int quic_conn_crypto_app(struct sock *sk, const struct quic_frame *f);
int quic_conn_server_start(struct sock *sk, struct quic_request *req);
void quic_conn_hash(struct sock *sk);
void quic_conn_unhash(struct sock *sk);
void quic_conn_listen_stop(struct sock *sk);
void quic_conn_request_free(struct quic_request *req);
void quic_conn_path_changed(struct sock *sk, unsigned int what);
int quic_conn_retry_rcvd(struct sock *sk, const u8 *pkt,
			 const struct quic_pkt_hdr *h);
void quic_conn_retry_apply(struct sock *sk);
int quic_conn_initial_keys(struct sock *sk, const struct quic_cid *cid);
void quic_conn_free_early(struct quic_conn *c);
int quic_conn_new_token(struct sock *sk);
void quic_conn_new_token_rcvd(struct sock *sk, const u8 *token, u32 len);
int quic_conn_set_secret(struct sock *sk, const struct quic_crypto_secret *s);
int quic_conn_set_peer_tp(struct sock *sk, const u8 *data, u32 len);
int quic_conn_remember_tp(struct sock *sk, const struct quic_tparams *tp);
int quic_conn_get_local_tp(struct sock *sk, u8 *buf, u32 room);
void quic_conn_discard_space(struct sock *sk, u8 level);
int quic_conn_new_cid(struct sock *sk, const struct quic_frame_new_cid *f);
int quic_conn_retire_cid(struct sock *sk, u64 seq, const u8 *dcid, u32 len);
int quic_conn_get_cid(struct sock *sk, struct quic_connection_id_info *info);
int quic_conn_set_cid(struct sock *sk,
		      const struct quic_connection_id_info *info);
void quic_conn_rtt_config(struct sock *sk);
void quic_conn_cong_config(struct sock *sk);
void quic_conn_handshake_done_rcvd(struct sock *sk);

/* Bytes in flight, all spaces (a discarded space has none). */
static inline u64 quic_conn_in_flight(const struct quic_conn *c)
{
	u64 n = 0;
	int i;

	for (i = 0; i < QUIC_PNSPACE_NUM; i++)
		n += c->space.at[i]->sent.bytes_in_flight;
	return n;
}

/* Whether the space of @level is the connection's own: false for the
 * Initial and Handshake ones once freed (then the shared discarded one).
 */
static inline bool quic_conn_space_own(const struct quic_conn *c, u8 level)
{
	return level == QUIC_CRYPTO_APP || c->space.hs;
}

/* The role and handshake flags are conn.c's: other files change them only
 * through these.
 */

/**
 * quic_conn_set_server() - the connection's role
 * @c: the connection, its socket locked
 * @server: a listener or an accepted socket
 */
static inline void quic_conn_set_server(struct quic_conn *c, bool server)
{
	c->is_server = server;
}

/**
 * quic_conn_early_end() - 0-RTT packets are no longer taken or sent
 * @c: the connection, its socket locked
 */
static inline void quic_conn_early_end(struct quic_conn *c)
{
	c->early.off = 1;
}

/**
 * quic_conn_fin_queued() - a client's Finished is queued
 * @c: the connection, its socket locked
 *
 * 1-RTT packets need no longer wait for it.
 */
static inline void quic_conn_fin_queued(struct quic_conn *c)
{
	c->hs.fin_pending = 0;
}

/**
 * quic_conn_learn_dcid() - a client takes the server's SCID (RFC 9000 7.2)
 * @c: the connection, its socket locked
 * @id: the SCID of the first packet it processes
 * @len: its length
 *
 * Return: false if it does not fit.
 */
static inline bool quic_conn_learn_dcid(struct quic_conn *c, const u8 *id,
					u32 len)
{
	if (!quic_cid_set(&c->ids.dcid, id, len))
		return false;
	quic_cid_set_first(&c->ids.dst, &c->ids.dcid, NULL);
	return true;
}

/**
 * quic_conn_forget_scid() - connect() failed: the socket may connect again
 * @c: the connection, its socket locked
 */
static inline void quic_conn_forget_scid(struct quic_conn *c)
{
	memset(&c->ids.scid, 0, sizeof(c->ids.scid));
}

#endif /* __NET_QUIC_CONN_H */
