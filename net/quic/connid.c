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
 * The IDs we issue are 8 random bytes from prandom_siphash, unpredictable
 * to an observer.  Finding a connection by its IDs, in the tables of its
 * network namespace, is lookup.c's; this file knows no namespace.
 *
 * Stateless reset tokens are a PRF of the CID under a per-namespace
 * 128-bit secret, which lookup.c holds: SipHash-2-4 is a PRF with a
 * 64-bit output, so the token is two SipHash outputs over the CID,
 * prefixed with a domain byte 0 and 1 and the CID length.  This needs no
 * crypto transform (it runs in any context, for every CID we issue and
 * for every stateless reset we send) and costs two short SipHash calls;
 * a 128-bit key makes guessing a token as hard as guessing the key.  The
 * secret is drawn at namespace creation, so tokens do not survive a
 * reboot, which RFC 9000 allows (section 10.3.2: an endpoint that loses
 * state cannot send a reset that the peer accepts, and the connection
 * times out instead).
 */

#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/prandom_siphash.h>
#include <linux/string.h>
#include <linux/quic.h>
#include <crypto/algapi.h>

#include "connid.h"
#include "export.h"

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
 * @set->next_seq if there is none (the prior_to of quic-api.rst 5.11).
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
 * quic-api.rst, section 5.11: the new number must be larger than the
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
 * issued number (quic-api.rst, section 5.11).
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
 * sends RETIRE_CONNECTION_ID frames (quic-api.rst, section 5.11).
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
 * quic_cid_dest_collect_retired() - queue RETIRE_CONNECTION_ID frames
 * @set: the destination set
 *
 * The retired IDs leave the set (quic_cid_dest_pop_retired()) and their
 * numbers join the queue of RETIRE_CONNECTION_ID frames to send, while
 * it has room.
 *
 * Return: whether any was queued.
 */
bool quic_cid_dest_collect_retired(struct quic_cid_set *set)
{
	bool any = false;
	u64 seq;

	while (set->nr_retire < QUIC_CID_RETIRE_MAX &&
	       quic_cid_dest_pop_retired(set, &seq)) {
		set->retire_seq[set->nr_retire++] = seq;
		any = true;
	}
	return any;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_dest_collect_retired);

/**
 * quic_cid_dest_retire_pop() - the next RETIRE_CONNECTION_ID to send
 * @set: the destination set
 * @seq: set to the sequence number it retires
 *
 * Return: false if none is due.
 */
bool quic_cid_dest_retire_pop(struct quic_cid_set *set, u64 *seq)
{
	if (!set->nr_retire)
		return false;
	*seq = set->retire_seq[--set->nr_retire];
	return true;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_dest_retire_pop);

/**
 * quic_cid_dest_retire_push() - a RETIRE_CONNECTION_ID is to be sent
 *	(again: it did not fit, or its packet was lost)
 * @set: the destination set
 * @seq: the sequence number it retires
 */
void quic_cid_dest_retire_push(struct quic_cid_set *set, u64 seq)
{
	if (set->nr_retire < QUIC_CID_RETIRE_MAX)
		set->retire_seq[set->nr_retire++] = seq;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cid_dest_retire_push);

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
