// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: connection IDs (RFC 9000, sections 5.1, 10.3, 19.15 and 19.16).
 *
 * A connection holds two small sets: the IDs we issued (source set),
 * which the peer addresses us with, and the IDs the peer issued
 * (destination set), which we address it with.  Each is a sorted array of
 * at most %QUIC_CID_SET_SLOTS entries: the active_connection_id_limit is
 * at most 8 here, and as many retired IDs may wait for their
 * RETIRE_CONNECTION_ID.  No allocation, and every operation is a scan of
 * at most 16 entries.
 *
 * The IDs we issue are 8 random bytes from prandom_siphash: unpredictable
 * to an observer, so the table they go into uses the fast unkeyed hash
 * (include/net/quic/hash.h).  The client's original or initial DCID, seen
 * before the client knows any ID of ours, is chosen by the peer and goes
 * into a second table under the namespace's own SipHash key.
 *
 * Stateless reset tokens are a PRF of the CID under a per-namespace
 * 128-bit secret: SipHash-2-4 is a PRF with a 64-bit output, so the token
 * is two SipHash outputs over the CID, prefixed with a domain byte 0 and 1
 * and the CID length.  This needs no crypto transform (it runs in any
 * context, for every CID we issue and for every stateless reset we send)
 * and costs two short SipHash calls; a 128-bit key makes guessing a
 * token as hard as guessing the key.  The secret is drawn at namespace
 * creation, so tokens do not survive a reboot, which RFC 9000 allows
 * (section 10.3.2: an endpoint that loses state cannot send a reset that
 * the peer accepts, and the connection times out instead).
 */

#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/prandom_siphash.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/quic.h>
#include <crypto/algapi.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include <net/quic/connid.h>
#include <net/quic/export.h>

/* Bounds of log2 of the per-namespace table sizes. */
#define QUIC_CID_TABLE_MIN_BITS	6
#define QUIC_CID_TABLE_MAX_BITS	14

/* Tries to draw an 8-byte ID that no connection of the namespace uses. */
#define QUIC_CID_ISSUE_TRIES	4

/**
 * quic_cid_set_init() - empty a set
 * @set: the set
 * @limit: the active_connection_id_limit that bounds it, clamped to
 *	%QUIC_CID_LIMIT_MIN .. %QUIC_CID_LIMIT_MAX (issuing fewer IDs than the
 *	peer allows is always legal)
 */
void quic_cid_set_init(struct quic_cid_set *set, u64 limit)
{
	memset(set, 0, sizeof(*set));
	set->limit = clamp_t(u64, limit, QUIC_CID_LIMIT_MIN, QUIC_CID_LIMIT_MAX);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_set_init);

static int quic_cid_set_index(const struct quic_cid_set *set, u64 seq)
{
	int i;

	for (i = 0; i < set->count; i++)
		if (set->entries[i].seq == seq)
			return i;
	return -1;
}

/* Insert a zeroed entry for @seq, keeping the order; NULL if full. */
static struct quic_cid_entry *quic_cid_set_insert(struct quic_cid_set *set,
						  u64 seq)
{
	struct quic_cid_entry *e;
	int i;

	if (set->count >= QUIC_CID_SET_SLOTS)
		return NULL;
	for (i = set->count; i > 0 && set->entries[i - 1].seq > seq; i--)
		;
	e = &set->entries[i];
	memmove(e + 1, e, (set->count - i) * sizeof(*e));
	set->count++;
	memset(e, 0, sizeof(*e));
	e->seq = seq;
	return e;
}

static void quic_cid_set_remove(struct quic_cid_set *set, int i)
{
	set->count--;
	memmove(&set->entries[i], &set->entries[i + 1],
		(set->count - i) * sizeof(set->entries[0]));
}

/* Make the lowest live ID active if the active one is gone or retired. */
static void quic_cid_set_fix_active(struct quic_cid_set *set, bool dest)
{
	int i = quic_cid_set_index(set, set->active_seq);
	int j;

	if (i >= 0 && !set->entries[i].retired)
		return;
	for (j = 0; j < set->count; j++) {
		if (!set->entries[j].retired) {
			set->active_seq = set->entries[j].seq;
			if (dest)
				set->entries[j].used = true;
			return;
		}
	}
}

/**
 * quic_cid_set_first() - set the ID with sequence number 0
 * @set: the set
 * @cid: the ID: the peer's Source Connection ID from the handshake
 *	(destination set), or the one we chose (source set)
 * @token: its Stateless Reset Token, or NULL if not known yet
 *
 * During the handshake the peer's first ID may change (the server's first
 * Initial and a Retry replace the client's choice), so this may be called
 * again as long as the set holds no other ID.  It becomes the active ID.
 *
 * Return: 0, -EINVAL if @cid is longer than %QUIC_CID_MAX_LEN, or -EBUSY
 * if the set already holds IDs with other numbers.
 */
int quic_cid_set_first(struct quic_cid_set *set, const struct quic_cid *cid,
		       const u8 *token)
{
	struct quic_cid_entry *e = &set->entries[0];

	if (cid->len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	if (set->count > 1 || (set->count == 1 && e->seq) ||
	    set->next_seq > 1)
		return -EBUSY;
	memset(e, 0, sizeof(*e));
	quic_cid_set(&e->cid, cid->data, cid->len);
	if (token) {
		memcpy(e->token, token, QUIC_RESET_TOKEN_LEN);
		e->has_token = true;
	}
	e->used = true;
	set->count = 1;
	set->next_seq = 1;
	set->active_seq = 0;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_set_first);

/**
 * quic_cid_set_first_token() - learn the token of the ID numbered 0
 * @set: the destination set
 * @token: the server's stateless_reset_token transport parameter
 *
 * Return: 0, or -ENOENT if the set holds no ID numbered 0.
 */
int quic_cid_set_first_token(struct quic_cid_set *set, const u8 *token)
{
	int i = quic_cid_set_index(set, 0);

	if (i < 0)
		return -ENOENT;
	memcpy(set->entries[i].token, token, QUIC_RESET_TOKEN_LEN);
	set->entries[i].has_token = true;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_set_first_token);

/**
 * quic_cid_set_find() - the entry with a sequence number
 * @set: the set
 * @seq: the sequence number
 *
 * Return: the entry, retired or not, or NULL if the set does not hold it.
 */
const struct quic_cid_entry *quic_cid_set_find(const struct quic_cid_set *set,
					       u64 seq)
{
	int i = quic_cid_set_index(set, seq);

	return i < 0 ? NULL : &set->entries[i];
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_set_find);

/**
 * quic_cid_set_active() - the ID in use
 * @set: the set
 *
 * Return: the active entry, or NULL if the set is empty.
 */
const struct quic_cid_entry *quic_cid_set_active(const struct quic_cid_set *set)
{
	return quic_cid_set_find(set, set->active_seq);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_set_active);

/**
 * quic_cid_set_active_count() - how many IDs are not retired
 * @set: the set
 *
 * Return: the number of entries not marked retired.
 */
u32 quic_cid_set_active_count(const struct quic_cid_set *set)
{
	u32 i, n = 0;

	for (i = 0; i < set->count; i++)
		n += !set->entries[i].retired;
	return n;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_set_active_count);

/**
 * quic_cid_set_lowest() - the lowest sequence number still live
 * @set: the set
 *
 * Return: the smallest number of an entry not marked retired, or
 * @set->next_seq if there is none (the prior_to of socket-api.md 5.10).
 */
u64 quic_cid_set_lowest(const struct quic_cid_set *set)
{
	u32 i;

	for (i = 0; i < set->count; i++)
		if (!set->entries[i].retired)
			return set->entries[i].seq;
	return set->next_seq;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_set_lowest);

/**
 * quic_cid_set_select() - switch to another ID
 * @set: the set
 * @seq: the sequence number of the ID to use from now on
 *
 * socket-api.md, section 5.10: the new number must be larger than the
 * active one and name an ID the set holds and has not retired.
 *
 * Return: 0, or -EINVAL.
 */
int quic_cid_set_select(struct quic_cid_set *set, u64 seq)
{
	int i = quic_cid_set_index(set, seq);

	if (i < 0 || seq <= set->active_seq || set->entries[i].retired)
		return -EINVAL;
	set->active_seq = seq;
	set->entries[i].used = true;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_set_select);

/**
 * quic_cid_src_add() - record an ID we issue
 * @set: the source set
 * @cid: the new ID, not empty
 * @token: its Stateless Reset Token, or NULL (only for number 0, which
 *	a client never sends a token for)
 * @seq: set to the sequence number given to it
 *
 * Sequence numbers are given in strictly increasing order, from 0.  The
 * caller then sends the ID in a NEW_CONNECTION_ID frame (number 0 travels
 * in the handshake) with Retire Prior To = @set->retire_prior_to.
 *
 * Return: 0, -EINVAL for an empty or over-long @cid, or -ENOSPC if the
 * peer's limit of active IDs (or the set) is full.
 */
int quic_cid_src_add(struct quic_cid_set *set, const struct quic_cid *cid,
		     const u8 *token, u64 *seq)
{
	struct quic_cid_entry *e;

	if (!cid->len || cid->len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	if (quic_cid_set_active_count(set) >= set->limit ||
	    set->count >= QUIC_CID_SET_SLOTS)
		return -ENOSPC;
	e = quic_cid_set_insert(set, set->next_seq);
	quic_cid_set(&e->cid, cid->data, cid->len);
	if (token) {
		memcpy(e->token, token, QUIC_RESET_TOKEN_LEN);
		e->has_token = true;
	}
	e->to_send = e->seq > 0;	/* number 0 travels in the handshake */
	*seq = set->next_seq++;
	quic_cid_set_fix_active(set, false);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_src_add);

/**
 * quic_cid_src_next_to_send() - the next of our IDs to announce
 * @set: the source set
 *
 * Return: the live ID of the lowest number whose NEW_CONNECTION_ID is to
 * be sent, or NULL.
 */
const struct quic_cid_entry *
quic_cid_src_next_to_send(const struct quic_cid_set *set)
{
	u32 i;

	for (i = 0; i < set->count; i++)
		if (set->entries[i].to_send && !set->entries[i].retired)
			return &set->entries[i];
	return NULL;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_src_next_to_send);

/**
 * quic_cid_src_mark() - whether NEW_CONNECTION_ID of our IDs is to be sent
 * @set: the source set
 * @seq: the ID's number, or U64_MAX for every live ID
 * @send: to be sent (queued, lost, Retire Prior To changed), or not
 *	(sent)
 *
 * Number 0 and retired IDs are never announced.
 */
void quic_cid_src_mark(struct quic_cid_set *set, u64 seq, bool send)
{
	struct quic_cid_entry *e;
	u32 i;

	for (i = 0; i < set->count; i++) {
		e = &set->entries[i];
		if (seq != U64_MAX && e->seq != seq)
			continue;
		e->to_send = send && e->seq && !e->retired;
	}
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_src_mark);

/**
 * quic_cid_src_retire_prior_to() - ask the peer to retire our older IDs
 * @set: the source set
 * @prior_to: the new Retire Prior To
 *
 * Marks every ID numbered below @prior_to retired; they stay in the set
 * (and in the namespace table) until the peer's RETIRE_CONNECTION_ID.
 * The caller issues new IDs, whose NEW_CONNECTION_ID frames carry the
 * new value (RFC 9000, section 5.1.2).
 *
 * Return: 0, or -EINVAL unless lowest live number < @prior_to <= highest
 * issued number (socket-api.md, section 5.10).
 */
int quic_cid_src_retire_prior_to(struct quic_cid_set *set, u64 prior_to)
{
	u32 i;

	if (!set->next_seq || prior_to <= quic_cid_set_lowest(set) ||
	    prior_to > set->next_seq - 1)
		return -EINVAL;
	for (i = 0; i < set->count; i++)
		if (set->entries[i].seq < prior_to)
			set->entries[i].retired = true;
	set->retire_prior_to = prior_to;
	quic_cid_set_fix_active(set, false);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_src_retire_prior_to);

/**
 * quic_cid_src_retire() - process a RETIRE_CONNECTION_ID frame
 * @set: the source set
 * @seq: the frame's Sequence Number
 * @dcid: the Destination Connection ID of the packet carrying the frame
 * @dcid_len: its length
 * @removed: set to the ID removed, which the caller takes out of the
 *	namespace table and replaces with a new one; its length is 0 when
 *	nothing was removed (a repeated frame)
 *
 * RFC 9000, section 19.16.
 *
 * Return: 0, or %QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION if @seq was never
 * issued, names the ID the packet was sent to, or if we issued an empty
 * ID (which cannot be retired).
 */
int quic_cid_src_retire(struct quic_cid_set *set, u64 seq, const u8 *dcid,
			u32 dcid_len, struct quic_cid *removed)
{
	int i;

	removed->len = 0;
	if (seq >= set->next_seq || (set->count && !set->entries[0].cid.len))
		return QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
	i = quic_cid_set_index(set, seq);
	if (i < 0)
		return 0;
	if (quic_cid_eq_bytes(&set->entries[i].cid, dcid, dcid_len))
		return QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
	*removed = set->entries[i].cid;
	quic_cid_set_remove(set, i);
	quic_cid_set_fix_active(set, false);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_src_retire);

/* Retire every destination ID below @floor; raise the floor. */
static void quic_cid_dest_retire_below(struct quic_cid_set *set, u64 floor)
{
	u32 i;

	if (floor <= set->retire_prior_to)
		return;
	for (i = 0; i < set->count; i++)
		if (set->entries[i].seq < floor)
			set->entries[i].retired = true;
	set->retire_prior_to = floor;
}

/**
 * quic_cid_dest_new() - process a NEW_CONNECTION_ID frame
 * @set: the destination set
 * @seq: the frame's Sequence Number
 * @retire_prior_to: its Retire Prior To
 * @id: its Connection ID
 * @len: the ID's length
 * @token: its 16-byte Stateless Reset Token
 *
 * RFC 9000, sections 5.1.1, 5.1.2 and 19.15.  A frame received again is
 * accepted and changes nothing.  Retire Prior To only ever grows: a
 * smaller value than one seen before is ignored.  The IDs it retires, and
 * an ID that arrives already below it, are marked retired for the caller
 * to collect with quic_cid_dest_pop_retired() and send
 * RETIRE_CONNECTION_ID frames for (an ID retired and collected before
 * that arrives again is retired again: a second RETIRE_CONNECTION_ID for
 * a number is harmless).  If the active ID is retired, the lowest live
 * one becomes active.
 *
 * Return: 0, or a transport error: %QUIC_TRANSPORT_ERROR_FRAME_ENCODING
 * for a bad length or Retire Prior To above Sequence Number;
 * %QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION if the peer uses an empty ID,
 * or a number or an ID comes again with different contents;
 * %QUIC_TRANSPORT_ERROR_CONNECTION_ID_LIMIT if more IDs than our limit are
 * active afterwards, or too many retired IDs wait for their
 * RETIRE_CONNECTION_ID (section 5.1.2 allows that error for it).
 */
int quic_cid_dest_new(struct quic_cid_set *set, u64 seq, u64 retire_prior_to,
		      const u8 *id, u32 len, const u8 *token)
{
	struct quic_cid_entry *e;
	u32 i;

	if (!len || len > QUIC_CID_MAX_LEN || retire_prior_to > seq)
		return QUIC_TRANSPORT_ERROR_FRAME_ENCODING;
	if (set->count && !set->entries[0].cid.len)
		return QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;

	for (i = 0; i < set->count; i++) {
		e = &set->entries[i];
		if (e->seq == seq) {
			if (!quic_cid_eq_bytes(&e->cid, id, len) ||
			    (e->has_token &&
			     memcmp(e->token, token, QUIC_RESET_TOKEN_LEN)))
				return QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
		} else if (quic_cid_eq_bytes(&e->cid, id, len)) {
			return QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
		}
	}

	quic_cid_dest_retire_below(set, retire_prior_to);
	if (quic_cid_set_index(set, seq) < 0) {
		e = quic_cid_set_insert(set, seq);
		if (!e)
			return QUIC_TRANSPORT_ERROR_CONNECTION_ID_LIMIT;
		quic_cid_set(&e->cid, id, len);
		memcpy(e->token, token, QUIC_RESET_TOKEN_LEN);
		e->has_token = true;
		e->retired = seq < set->retire_prior_to;
		set->next_seq = max(set->next_seq, seq + 1);
	}
	if (quic_cid_set_active_count(set) > set->limit)
		return QUIC_TRANSPORT_ERROR_CONNECTION_ID_LIMIT;
	quic_cid_set_fix_active(set, true);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_dest_new);

/**
 * quic_cid_dest_retire_prior_to() - retire the peer's older IDs ourselves
 * @set: the destination set
 * @prior_to: retire every ID numbered below this
 *
 * The caller then collects them with quic_cid_dest_pop_retired() and
 * sends RETIRE_CONNECTION_ID frames (socket-api.md, section 5.10).
 *
 * Return: 0, or -EINVAL unless lowest live number < @prior_to <= highest
 * received number.
 */
int quic_cid_dest_retire_prior_to(struct quic_cid_set *set, u64 prior_to)
{
	if (!set->next_seq || prior_to <= quic_cid_set_lowest(set) ||
	    prior_to > set->next_seq - 1)
		return -EINVAL;
	/* The highest number is live, as everything below the floor is
	 * retired and the floor never passes the highest number.
	 */
	quic_cid_dest_retire_below(set, prior_to);
	quic_cid_set_fix_active(set, true);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_dest_retire_prior_to);

/**
 * quic_cid_dest_pop_retired() - take a retired ID out of the set
 * @set: the destination set
 * @seq: set to its sequence number, for a RETIRE_CONNECTION_ID frame
 *
 * Once the frame is queued the ID is forgotten; the frame is then
 * retransmitted like any other until acknowledged.
 *
 * Return: true if an ID was taken, false if none waits.
 */
bool quic_cid_dest_pop_retired(struct quic_cid_set *set, u64 *seq)
{
	u32 i;

	for (i = 0; i < set->count; i++) {
		if (set->entries[i].retired) {
			*seq = set->entries[i].seq;
			quic_cid_set_remove(set, i);
			return true;
		}
	}
	return false;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_dest_pop_retired);

/**
 * quic_cid_dest_match_reset() - is this a Stateless Reset from the peer?
 * @set: the destination set
 * @token: the last 16 bytes of a datagram that could not be processed
 *
 * Compares @token in constant time with the token of every ID that we
 * have used and not retired (RFC 9000, section 10.3.1), without stopping
 * at a match.
 *
 * Return: true if one of them matches.
 */
bool quic_cid_dest_match_reset(const struct quic_cid_set *set, const u8 *token)
{
	bool match = false;
	u32 i;

	for (i = 0; i < set->count; i++) {
		const struct quic_cid_entry *e = &set->entries[i];

		if (e->has_token && e->used && !e->retired)
			match |= quic_reset_token_eq(e->token, token);
	}
	return match;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_dest_match_reset);

/**
 * quic_cid_generate() - draw a new connection ID of ours
 * @cid: set to %QUIC_CID_LOCAL_LEN bytes from prandom_siphash
 */
void quic_cid_generate(struct quic_cid *cid)
{
	cid->len = QUIC_CID_LOCAL_LEN;
	prandom_siphash_bytes(cid->data, QUIC_CID_LOCAL_LEN);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_generate);

/**
 * quic_cid_reset_token() - the Stateless Reset Token of one of our IDs
 * @key: the 128-bit secret
 * @cid: the ID
 * @token: set to SipHash-2-4(0 | len | ID) followed by
 *	SipHash-2-4(1 | len | ID), both under @key, little-endian
 *
 * A PRF of the ID (see the top of this file), so it is the same whenever
 * it is computed again, and an ID we have forgotten still gets its token
 * (RFC 9000, section 10.3).
 */
void quic_cid_reset_token(const struct quic_hash_key *key,
			  const struct quic_cid *cid,
			  u8 token[QUIC_RESET_TOKEN_LEN])
{
	u8 buf[2 + QUIC_CID_MAX_LEN];
	u32 len = min_t(u32, cid->len, QUIC_CID_MAX_LEN);

	buf[1] = len;
	memcpy(buf + 2, cid->data, len);
	buf[0] = 0;
	put_unaligned_le64(siphash(buf, len + 2, &key->key), token);
	buf[0] = 1;
	put_unaligned_le64(siphash(buf, len + 2, &key->key), token + 8);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_reset_token);

/**
 * quic_reset_token_eq() - compare two Stateless Reset Tokens
 * @a: one token
 * @b: the other
 *
 * Takes the same time wherever the tokens differ (crypto_memneq()).
 *
 * Return: true if the 16 bytes are equal.
 */
bool quic_reset_token_eq(const u8 *a, const u8 *b)
{
	return !crypto_memneq(a, b, QUIC_RESET_TOKEN_LEN);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_reset_token_eq);

/**
 * struct quic_cid_node - one entry of a struct quic_cid_table
 * @node: in its bucket, under RCU
 * @rcu: frees it after the readers that may see it
 * @owner: what the lookup returns
 * @cid: the key
 */
struct quic_cid_node {
	struct hlist_node	node;
	struct rcu_head		rcu;
	void			*owner;
	struct quic_cid		cid;
};

/**
 * quic_cid_table_init() - allocate an empty table
 * @tbl: the table
 * @bits: log2 of the number of buckets, at most 20
 * @keyed: hash with a fresh secret SipHash key (IDs a peer chose) rather
 *	than the fast hash (IDs we chose)
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int quic_cid_table_init(struct quic_cid_table *tbl, unsigned int bits,
			bool keyed)
{
	if (bits > 20)
		return -EINVAL;
	spin_lock_init(&tbl->lock);
	tbl->bits = bits;
	tbl->count = 0;
	tbl->keyed = keyed;
	if (keyed)
		quic_hash_key_init(&tbl->key);
	else
		memset(&tbl->key, 0, sizeof(tbl->key));
	tbl->buckets = kvcalloc(1U << bits, sizeof(*tbl->buckets), GFP_KERNEL);
	return tbl->buckets ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_table_init);

/**
 * quic_cid_table_destroy() - free a table
 * @tbl: the table; no reader may use it any more
 *
 * Entries still in the table are freed too.
 *
 * Return: how many entries were left.
 */
unsigned int quic_cid_table_destroy(struct quic_cid_table *tbl)
{
	struct quic_cid_node *n;
	struct hlist_node *tmp;
	unsigned int i, left = 0;

	if (!tbl->buckets)
		return 0;
	spin_lock_bh(&tbl->lock);
	for (i = 0; i < 1U << tbl->bits; i++) {
		hlist_for_each_entry_safe(n, tmp, &tbl->buckets[i], node) {
			hlist_del_rcu(&n->node);
			kfree_rcu(n, rcu);
			left++;
		}
	}
	tbl->count = 0;
	spin_unlock_bh(&tbl->lock);
	kvfree(tbl->buckets);
	tbl->buckets = NULL;
	memzero_explicit(&tbl->key, sizeof(tbl->key));
	return left;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_table_destroy);

/**
 * quic_cid_table_bucket() - the bucket an ID hashes to
 * @tbl: the table
 * @id: the ID
 * @len: its length
 *
 * Return: the bucket index, below 2^@tbl->bits.
 */
u32 quic_cid_table_bucket(const struct quic_cid_table *tbl, const u8 *id,
			  u32 len)
{
	u32 h;

	if (tbl->keyed)
		h = quic_keyed_hash(&tbl->key, id, len);
	else
		h = quic_fast_hash_bytes(id, len);
	return quic_hash_bucket(h, tbl->bits);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_table_bucket);

/**
 * __quic_cid_table_add() - map an ID to an owner
 * @tbl: the table
 * @cid: the ID
 * @owner: what quic_cid_table_lookup() returns for it
 * @gfp: allocation flags
 *
 * Return: 0, -EINVAL for an over-long ID, -ENOMEM, or -EEXIST if the
 * table already maps @cid (for one of our random IDs: draw another).
 */
int __quic_cid_table_add(struct quic_cid_table *tbl,
			 const struct quic_cid *cid, void *owner, gfp_t gfp)
{
	struct quic_cid_node *n, *pos;
	struct hlist_head *head;

	if (cid->len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	n = kmalloc(sizeof(*n), gfp);
	if (!n)
		return -ENOMEM;
	n->owner = owner;
	n->cid = *cid;
	head = &tbl->buckets[quic_cid_table_bucket(tbl, cid->data, cid->len)];

	spin_lock_bh(&tbl->lock);
	hlist_for_each_entry(pos, head, node) {
		if (quic_cid_eq(&pos->cid, cid)) {
			spin_unlock_bh(&tbl->lock);
			kfree(n);
			return -EEXIST;
		}
	}
	hlist_add_head_rcu(&n->node, head);
	tbl->count++;
	spin_unlock_bh(&tbl->lock);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(__quic_cid_table_add);

/**
 * __quic_cid_table_del() - remove an ID of an owner
 * @tbl: the table
 * @cid: the ID
 * @owner: its owner; an entry of another owner is left alone
 *
 * The entry is freed after an RCU grace period.
 *
 * Return: true if it was found and removed.
 */
bool __quic_cid_table_del(struct quic_cid_table *tbl,
			  const struct quic_cid *cid, const void *owner)
{
	struct quic_cid_node *n;
	struct hlist_head *head;

	if (cid->len > QUIC_CID_MAX_LEN)
		return false;
	head = &tbl->buckets[quic_cid_table_bucket(tbl, cid->data, cid->len)];

	spin_lock_bh(&tbl->lock);
	hlist_for_each_entry(n, head, node) {
		if (n->owner == owner && quic_cid_eq(&n->cid, cid)) {
			hlist_del_rcu(&n->node);
			tbl->count--;
			spin_unlock_bh(&tbl->lock);
			kfree_rcu(n, rcu);
			return true;
		}
	}
	spin_unlock_bh(&tbl->lock);
	return false;
}
EXPORT_SYMBOL_IF_QUIC_TEST(__quic_cid_table_del);

/**
 * __quic_cid_table_lookup() - the owner of an ID
 * @tbl: the table
 * @id: the ID, e.g. the Destination Connection ID of a packet
 * @len: its length
 *
 * The caller holds rcu_read_lock() and keeps the owner alive by its own
 * means (a reference taken under it, or an RCU-freed owner).
 *
 * Return: the owner, or NULL.
 */
void *__quic_cid_table_lookup(struct quic_cid_table *tbl, const u8 *id,
			      u32 len)
{
	struct quic_cid_node *n;
	struct hlist_head *head;

	if (len > QUIC_CID_MAX_LEN)
		return NULL;
	head = &tbl->buckets[quic_cid_table_bucket(tbl, id, len)];
	hlist_for_each_entry_rcu(n, head, node)
		if (quic_cid_eq_bytes(&n->cid, id, len))
			return READ_ONCE(n->owner);
	return NULL;
}
EXPORT_SYMBOL_IF_QUIC_TEST(__quic_cid_table_lookup);

/**
 * quic_cid_table_max_chain() - the longest bucket
 * @tbl: the table
 *
 * Return: the number of entries in the fullest bucket.
 */
u32 quic_cid_table_max_chain(struct quic_cid_table *tbl)
{
	struct quic_cid_node *n;
	u32 i, len, max = 0;

	spin_lock_bh(&tbl->lock);
	for (i = 0; i < 1U << tbl->bits; i++) {
		len = 0;
		hlist_for_each_entry(n, &tbl->buckets[i], node)
			len++;
		max = max(max, len);
	}
	spin_unlock_bh(&tbl->lock);
	return max;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_table_max_chain);

/**
 * struct quic_cid_net - per network namespace connection ID state
 * @src: our IDs, fast hash
 * @odcid: the client-chosen original and initial DCIDs, keyed hash
 * @reset: the peers' Stateless Reset Tokens, keyed hash
 * @reset_key: the secret of the Stateless Reset Tokens
 */
struct quic_cid_net {
	struct quic_cid_table	src;
	struct quic_cid_table	odcid;
	struct quic_cid_table	reset;
	struct quic_hash_key	reset_key;
};

static unsigned int quic_cid_net_id __read_mostly;
static unsigned int quic_cid_table_bits __read_mostly;

static struct quic_cid_net *quic_cid_net(struct net *net)
{
	return net_generic(net, quic_cid_net_id);
}

/**
 * quic_cid_table_add() - map one of our IDs to its connection
 * @net: the namespace
 * @cid: the ID
 * @owner: the connection
 * @gfp: allocation flags
 *
 * Return: as __quic_cid_table_add().
 */
int quic_cid_table_add(struct net *net, const struct quic_cid *cid,
		       void *owner, gfp_t gfp)
{
	return __quic_cid_table_add(&quic_cid_net(net)->src, cid, owner, gfp);
}

/**
 * quic_cid_table_del() - remove one of our IDs
 * @net: the namespace
 * @cid: the ID
 * @owner: the connection it was added for
 */
void quic_cid_table_del(struct net *net, const struct quic_cid *cid,
			const void *owner)
{
	__quic_cid_table_del(&quic_cid_net(net)->src, cid, owner);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_table_del);

/**
 * quic_cid_table_lookup() - the connection a packet is addressed to
 * @net: the namespace
 * @dcid: the packet's Destination Connection ID
 * @len: its length
 *
 * Caller holds rcu_read_lock().
 *
 * Return: the owner, or NULL.
 */
void *quic_cid_table_lookup(struct net *net, const u8 *dcid, u32 len)
{
	return __quic_cid_table_lookup(&quic_cid_net(net)->src, dcid, len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_table_lookup);

/**
 * quic_odcid_table_add() - map a client-chosen DCID to its listener or
 *	request
 * @net: the namespace
 * @cid: the DCID of the client's first Initial
 * @owner: the listener or request
 * @gfp: allocation flags
 *
 * Return: as __quic_cid_table_add().
 */
int quic_odcid_table_add(struct net *net, const struct quic_cid *cid,
			 void *owner, gfp_t gfp)
{
	return __quic_cid_table_add(&quic_cid_net(net)->odcid, cid, owner, gfp);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_odcid_table_add);

/**
 * quic_odcid_table_del() - remove a client-chosen DCID
 * @net: the namespace
 * @cid: the DCID
 * @owner: the owner it was added for
 */
void quic_odcid_table_del(struct net *net, const struct quic_cid *cid,
			  const void *owner)
{
	__quic_cid_table_del(&quic_cid_net(net)->odcid, cid, owner);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_odcid_table_del);

/**
 * quic_odcid_table_lookup() - the owner of a client-chosen DCID
 * @net: the namespace
 * @dcid: the DCID of a client Initial or 0-RTT packet
 * @len: its length
 *
 * Caller holds rcu_read_lock().
 *
 * Return: the owner, or NULL.
 */
void *quic_odcid_table_lookup(struct net *net, const u8 *dcid, u32 len)
{
	return __quic_cid_table_lookup(&quic_cid_net(net)->odcid, dcid, len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_odcid_table_lookup);

/* A token as the key of the reset table. */
static void quic_reset_key(struct quic_cid *k, const u8 *token)
{
	k->len = QUIC_RESET_TOKEN_LEN;
	memcpy(k->data, token, QUIC_RESET_TOKEN_LEN);
}

/**
 * quic_reset_table_add() - map a peer's Stateless Reset Token to its
 *	connection
 * @net: the namespace
 * @token: the 16-byte token of the peer's ID we send to
 * @owner: the connection
 * @gfp: allocation flags
 *
 * A Stateless Reset carries no ID of ours (RFC 9000, section 10.3), so it
 * is found by its token. The peer chose it: keyed hash.
 *
 * Return: as __quic_cid_table_add().
 */
int quic_reset_table_add(struct net *net, const u8 *token, void *owner,
			 gfp_t gfp)
{
	struct quic_cid k;

	quic_reset_key(&k, token);
	return __quic_cid_table_add(&quic_cid_net(net)->reset, &k, owner, gfp);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_reset_table_add);

/**
 * quic_reset_table_del() - remove a peer's token
 * @net: the namespace
 * @token: the token
 * @owner: the connection it was added for
 */
void quic_reset_table_del(struct net *net, const u8 *token, const void *owner)
{
	struct quic_cid k;

	quic_reset_key(&k, token);
	__quic_cid_table_del(&quic_cid_net(net)->reset, &k, owner);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_reset_table_del);

/**
 * quic_reset_table_lookup() - the connection a Stateless Reset is for
 * @net: the namespace
 * @token: the last 16 bytes of the datagram
 *
 * Caller holds rcu_read_lock(), and compares the token again in constant
 * time (quic_cid_dest_match_reset()) before acting on it.
 *
 * Return: the owner, or NULL.
 */
void *quic_reset_table_lookup(struct net *net, const u8 *token)
{
	return __quic_cid_table_lookup(&quic_cid_net(net)->reset, token,
				       QUIC_RESET_TOKEN_LEN);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_reset_table_lookup);

/**
 * quic_cid_table_count() - how many IDs a namespace table holds
 * @net: the namespace
 * @odcid: count the client-chosen DCID table rather than ours
 *
 * Return: the number of entries.
 */
unsigned int quic_cid_table_count(struct net *net, bool odcid)
{
	struct quic_cid_net *cn = quic_cid_net(net);

	return odcid ? READ_ONCE(cn->odcid.count) : READ_ONCE(cn->src.count);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_table_count);

/**
 * quic_cid_net_reset_token() - the Stateless Reset Token of an ID of ours
 * @net: the namespace, whose secret keys the token
 * @cid: the ID
 * @token: set to the token
 */
void quic_cid_net_reset_token(struct net *net, const struct quic_cid *cid,
			      u8 token[QUIC_RESET_TOKEN_LEN])
{
	quic_cid_reset_token(&quic_cid_net(net)->reset_key, cid, token);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_net_reset_token);

/**
 * quic_cid_src_issue() - issue a new ID of ours
 * @net: the namespace
 * @set: the connection's source set
 * @owner: the connection, for the namespace table
 * @gfp: allocation flags
 * @entry: set to the new entry, whose number, ID and token go into a
 *	NEW_CONNECTION_ID frame (or the handshake, for number 0)
 *
 * Draws a random ID that no connection of @net uses, adds it to the table
 * and gives it its token and the next sequence number.
 *
 * Return: 0, -ENOSPC if the peer's limit is reached, -ENOMEM, or -EBUSY
 * if every draw collided (which takes a broken random source).
 */
int quic_cid_src_issue(struct net *net, struct quic_cid_set *set,
		       void *owner, gfp_t gfp,
		       const struct quic_cid_entry **entry)
{
	u8 token[QUIC_RESET_TOKEN_LEN];
	struct quic_cid cid;
	int err, tries;
	u64 seq;

	if (quic_cid_set_active_count(set) >= set->limit ||
	    set->count >= QUIC_CID_SET_SLOTS)
		return -ENOSPC;
	for (tries = 0; tries < QUIC_CID_ISSUE_TRIES; tries++) {
		quic_cid_generate(&cid);
		err = quic_cid_table_add(net, &cid, owner, gfp);
		if (err != -EEXIST)
			break;
	}
	if (err)
		return err == -EEXIST ? -EBUSY : err;
	quic_cid_net_reset_token(net, &cid, token);
	err = quic_cid_src_add(set, &cid, token, &seq);
	if (err) {
		quic_cid_table_del(net, &cid, owner);
		return err;
	}
	*entry = quic_cid_set_find(set, seq);
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_src_issue);

static int __net_init quic_cid_net_init(struct net *net)
{
	struct quic_cid_net *cn = quic_cid_net(net);
	int err;

	err = quic_cid_table_init(&cn->src, quic_cid_table_bits, false);
	if (err)
		goto err_src;
	err = quic_cid_table_init(&cn->odcid, quic_cid_table_bits, true);
	if (err)
		goto err_odcid;
	err = quic_cid_table_init(&cn->reset, quic_cid_table_bits, true);
	if (err)
		goto err_reset;
	quic_hash_key_init(&cn->reset_key);
	return 0;

err_reset:
	quic_cid_table_destroy(&cn->reset);
err_odcid:
	quic_cid_table_destroy(&cn->odcid);
err_src:
	quic_cid_table_destroy(&cn->src);
	return err;
}

static void __net_exit quic_cid_net_exit(struct net *net)
{
	struct quic_cid_net *cn = quic_cid_net(net);
	unsigned int left;

	/* Every connection and request removes its IDs before it goes. */
	left = quic_cid_table_destroy(&cn->src);
	left += quic_cid_table_destroy(&cn->odcid);
	left += quic_cid_table_destroy(&cn->reset);
	if (left)
		pr_err("quic: %u connection IDs leaked in a namespace\n", left);
	memzero_explicit(&cn->reset_key, sizeof(cn->reset_key));
}

static struct pernet_operations quic_cid_net_ops = {
	.init	= quic_cid_net_init,
	.exit	= quic_cid_net_exit,
	.id	= &quic_cid_net_id,
	.size	= sizeof(struct quic_cid_net),
};

/**
 * quic_connid_init() - set up the connection ID tables of every namespace
 *
 * Each table gets one bucket per 64 pages of memory (256 KiB with 4 KiB
 * pages), between 2^6 and 2^14 buckets, like SCTP's tables sized by
 * memory, but per namespace and so smaller.
 *
 * Return: 0 or a negative errno.
 */
int quic_connid_init(void)
{
	unsigned long goal = totalram_pages() >> 6;

	quic_cid_table_bits = clamp_t(unsigned int,
				      goal ? ilog2(goal) : 0,
				      QUIC_CID_TABLE_MIN_BITS,
				      QUIC_CID_TABLE_MAX_BITS);
	return register_pernet_subsys(&quic_cid_net_ops);
}

/**
 * quic_connid_exit() - tear down what quic_connid_init() set up
 */
void quic_connid_exit(void)
{
	unregister_pernet_subsys(&quic_cid_net_ops);
}
