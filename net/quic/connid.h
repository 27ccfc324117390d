/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC connection ID management (net/quic/connid.c): the per-connection
 * sets of our and the peer's connection IDs (RFC 9000, sections 5.1,
 * 19.15 and 19.16) and stateless reset tokens (section 10.3). The per
 * network namespace tables that map a destination CID to its owner are
 * lookup.h's.
 *
 * Error convention: the functions that process what a peer sent
 * (quic_cid_dest_new(), quic_cid_src_retire()) return 0, or a positive
 * QUIC_TRANSPORT_ERROR_* code (include/uapi/linux/quic.h) with which the
 * caller closes the connection; they never return a negative errno.  The
 * functions driven by us or by the user return 0 or a negative errno.
 *
 * Locking: a struct quic_cid_set belongs to one connection and is
 * serialised by its owner (the socket lock).
 */

#ifndef _NET_QUIC_CONNID_H
#define _NET_QUIC_CONNID_H

#include <linux/types.h>
#include "cid.h"
#include "hash.h"

/* Largest active_connection_id_limit we advertise or honour
 * (quic-api.rst, section 6: 2 to 8).
 */
#define QUIC_CID_LIMIT_MAX	8
/* Smallest legal active_connection_id_limit (RFC 9000, section 18.2). */
#define QUIC_CID_LIMIT_MIN	2
/* Slots in a set: the active IDs plus as many retired ones that wait for
 * their RETIRE_CONNECTION_ID (dest set) or for the peer's (source set).
 */
#define QUIC_CID_SET_SLOTS	(2 * QUIC_CID_LIMIT_MAX)
/* RETIRE_CONNECTION_ID frames waiting to be sent (destination set). */
#define QUIC_CID_RETIRE_MAX	QUIC_CID_SET_SLOTS
/* Length of the connection IDs we issue (quic-api.rst, section 5.11). */
#define QUIC_CID_LOCAL_LEN	8
/* Length of a Stateless Reset Token (RFC 9000, section 10.3). */
#define QUIC_RESET_TOKEN_LEN	16

/**
 * struct quic_cid_entry - one connection ID of a set
 * @seq: its sequence number
 * @cid: the connection ID
 * @token: its Stateless Reset Token; meaningful if @has_token
 * @has_token: @token is known (always, except for the peer's first CID
 *	before its transport parameters arrive, and for a client's first CID)
 * @used: destination set: it has been the active ID, so a Stateless Reset
 *	carrying its token is honoured (RFC 9000, section 10.3.1)
 * @retired: source set: we asked the peer to retire it (Retire Prior To)
 *	and wait for its RETIRE_CONNECTION_ID; destination set: retired,
 *	a RETIRE_CONNECTION_ID is still to be queued for it
 * @to_send: source set: its NEW_CONNECTION_ID is to be sent (again)
 */
struct quic_cid_entry {
	u64		seq;
	u8		token[QUIC_RESET_TOKEN_LEN];
	struct quic_cid	cid;
	u8		has_token:1,
			used:1,
			retired:1,
			to_send:1;
};

/**
 * struct quic_cid_set - the connection IDs of one side of a connection
 * @entries: the IDs held, sorted by sequence number
 * @count: used entries
 * @limit: most active (not retired) IDs: for the source set the peer's
 *	active_connection_id_limit (capped at %QUIC_CID_LIMIT_MAX), for the
 *	destination set ours
 * @next_seq: source set: the sequence number of the next ID we issue;
 *	destination set: one more than the largest received
 * @retire_prior_to: source set: the Retire Prior To we send; destination
 *	set: every number below it is retired (the largest Retire Prior To
 *	received, or our own, whichever is larger)
 * @active_seq: the sequence number of the ID in use: the one we send to
 *	(destination set) or the one the peer is expected to use (source set)
 * @retire_seq: destination set: sequence numbers of RETIRE_CONNECTION_ID
 *	frames to send
 * @nr_retire: destination set: entries in @retire_seq
 */
struct quic_cid_set {
	struct quic_cid_entry	entries[QUIC_CID_SET_SLOTS];
	u8			count;
	u8			limit;
	u64			next_seq;
	u64			retire_prior_to;
	u64			active_seq;
	u64			retire_seq[QUIC_CID_RETIRE_MAX];
	u8			nr_retire;
};

void quic_cid_set_init(struct quic_cid_set *set, u64 limit);
int quic_cid_set_first(struct quic_cid_set *set, const struct quic_cid *cid,
		       const u8 *token);
int quic_cid_set_first_token(struct quic_cid_set *set, const u8 *token);
const struct quic_cid_entry *quic_cid_set_find(const struct quic_cid_set *set,
					       u64 seq);
const struct quic_cid_entry *
quic_cid_set_active(const struct quic_cid_set *set);
u32 quic_cid_set_active_count(const struct quic_cid_set *set);
int quic_cid_set_select(struct quic_cid_set *set, u64 seq);
u64 quic_cid_set_lowest(const struct quic_cid_set *set);

int quic_cid_src_add(struct quic_cid_set *set, const struct quic_cid *cid,
		     const u8 *token, u64 *seq);
const struct quic_cid_entry *
quic_cid_src_next_to_send(const struct quic_cid_set *set);
void quic_cid_src_mark(struct quic_cid_set *set, u64 seq, bool send);
int quic_cid_src_retire_prior_to(struct quic_cid_set *set, u64 prior_to);
int quic_cid_src_retire(struct quic_cid_set *set, u64 seq, const u8 *dcid,
			u32 dcid_len, struct quic_cid *removed);

int quic_cid_dest_new(struct quic_cid_set *set, u64 seq, u64 retire_prior_to,
		      const u8 *id, u32 len, const u8 *token);
int quic_cid_dest_retire_prior_to(struct quic_cid_set *set, u64 prior_to);
bool quic_cid_dest_pop_retired(struct quic_cid_set *set, u64 *seq);
bool quic_cid_dest_collect_retired(struct quic_cid_set *set);
bool quic_cid_dest_retire_pop(struct quic_cid_set *set, u64 *seq);
void quic_cid_dest_retire_push(struct quic_cid_set *set, u64 seq);
bool quic_cid_dest_match_reset(const struct quic_cid_set *set,
			       const u8 *token);

void quic_cid_generate(struct quic_cid *cid);
void quic_cid_reset_token(const struct quic_hash_key *key,
			  const struct quic_cid *cid,
			  u8 token[QUIC_RESET_TOKEN_LEN]);
bool quic_reset_token_eq(const u8 *a, const u8 *b);

#endif /* _NET_QUIC_CONNID_H */
