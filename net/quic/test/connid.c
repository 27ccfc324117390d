// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/connid.c: the connection ID sets (RFC 9000, sections
 * 5.1, 19.15 and 19.16) and Stateless Reset Tokens (section 10.3). The
 * per-namespace ID tables are lookup.c's.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/quic.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "../connid.h"

#include "test.h"

#define PV	QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION
#define LIMIT	QUIC_TRANSPORT_ERROR_CONNECTION_ID_LIMIT
#define FENC	QUIC_TRANSPORT_ERROR_FRAME_ENCODING

/* A distinct 8-byte ID and token for number @n. */
static void mk_cid(struct quic_cid *cid, u32 n)
{
	cid->len = 8;
	memset(cid->data, 0xc0, 8);
	memcpy(cid->data, &n, sizeof(n));
}

static void mk_token(u8 *token, u32 n)
{
	memset(token, 0x70, QUIC_RESET_TOKEN_LEN);
	memcpy(token, &n, sizeof(n));
}

/* Feed NEW_CONNECTION_ID(@seq, @rpt) carrying mk_cid(@seq). */
static int new_cid(struct quic_cid_set *set, u64 seq, u64 rpt)
{
	u8 token[QUIC_RESET_TOKEN_LEN];
	struct quic_cid cid;

	mk_cid(&cid, seq);
	mk_token(token, seq);
	return quic_cid_dest_new(set, seq, rpt, cid.data, cid.len, token);
}

/* A destination set of limit @limit whose number 0 is mk_cid(0). */
static struct quic_cid_set *dest_set(u64 limit)
{
	struct quic_cid_set *set = kmalloc(sizeof(*set), GFP_KERNEL);
	struct quic_cid cid;

	if (!set)
		return NULL;
	quic_cid_set_init(set, limit);
	mk_cid(&cid, 0);
	quic_cid_set_first(set, &cid, NULL);
	return set;
}

static int connid_set_limits(struct quic_test *t)
{
	struct quic_cid_set *set = kmalloc(sizeof(*set), GFP_KERNEL);
	struct quic_cid cid = { .len = 0 };
	int err = 0;
	u64 seq, i;

	if (!set)
		return -ENOMEM;
	quic_cid_set_init(set, 0);
	if (set->limit != QUIC_CID_LIMIT_MIN) {
		err = quic_test_fail(t, "limit 0 -> %u", set->limit);
		goto out;
	}
	quic_cid_set_init(set, 1ULL << 40);
	if (set->limit != QUIC_CID_LIMIT_MAX) {
		err = quic_test_fail(t, "limit 2^40 -> %u", set->limit);
		goto out;
	}
	if (quic_cid_src_add(set, &cid, NULL, &seq) != -EINVAL) {
		err = quic_test_fail(t, "empty ID accepted");
		goto out;
	}
	quic_cid_set_init(set, 5);
	for (i = 0; i < 5; i++) {
		mk_cid(&cid, i);
		err = quic_cid_src_add(set, &cid, NULL, &seq);
		if (err || seq != i) {
			err = quic_test_fail(t, "add %llu: err %d seq %llu",
					     i, err, seq);
			goto out;
		}
	}
	mk_cid(&cid, 5);
	if (quic_cid_src_add(set, &cid, NULL, &seq) != -ENOSPC) {
		err = quic_test_fail(t, "issued past the peer's limit");
		goto out;
	}
	if (quic_cid_set_active(set)->seq != 0 ||
	    quic_cid_set_active_count(set) != 5)
		err = quic_test_fail(t, "active %llu count %u",
				     quic_cid_set_active(set)->seq,
				     quic_cid_set_active_count(set));
out:
	kfree(set);
	return err;
}

static int connid_dest_limit(struct quic_test *t)
{
	struct quic_cid_set *set = dest_set(2);
	int err = 0, ret;

	if (!set)
		return -ENOMEM;
	ret = new_cid(set, 1, 0);
	if (ret) {
		err = quic_test_fail(t, "seq 1: %d", ret);
		goto out;
	}
	ret = new_cid(set, 2, 0);
	if (ret != LIMIT) {
		err = quic_test_fail(t, "third active ID: %d, want %d", ret,
				     LIMIT);
		goto out;
	}
	/* Retiring one in the same frame makes room. */
	kfree(set);
	set = dest_set(2);
	if (!set)
		return -ENOMEM;
	ret = new_cid(set, 1, 0) ?: new_cid(set, 2, 1);
	if (ret)
		err = quic_test_fail(t, "seq 2 retiring 0: %d", ret);
	else if (quic_cid_set_active_count(set) != 2 ||
		 quic_cid_set_active(set)->seq != 1)
		err = quic_test_fail(t, "active %llu, %u live",
				     quic_cid_set_active(set)->seq,
				     quic_cid_set_active_count(set));
out:
	kfree(set);
	return err;
}

static int connid_dest_duplicate(struct quic_test *t)
{
	struct quic_cid_set *set = dest_set(4);
	u8 token[QUIC_RESET_TOKEN_LEN];
	struct quic_cid cid;
	int err = 0, ret;

	if (!set)
		return -ENOMEM;
	ret = new_cid(set, 1, 0) ?: new_cid(set, 1, 0);
	if (ret || set->count != 2) {
		err = quic_test_fail(t, "repeated frame: %d, %u IDs", ret,
				     set->count);
		goto out;
	}
	mk_cid(&cid, 9);
	mk_token(token, 1);
	ret = quic_cid_dest_new(set, 1, 0, cid.data, cid.len, token);
	if (ret != PV) {
		err = quic_test_fail(t, "same seq, other ID: %d", ret);
		goto out;
	}
	mk_cid(&cid, 1);
	mk_token(token, 9);
	ret = quic_cid_dest_new(set, 1, 0, cid.data, cid.len, token);
	if (ret != PV) {
		err = quic_test_fail(t, "same seq, other token: %d", ret);
		goto out;
	}
	mk_token(token, 2);
	ret = quic_cid_dest_new(set, 2, 0, cid.data, cid.len, token);
	if (ret != PV) {
		err = quic_test_fail(t, "same ID, other seq: %d", ret);
		goto out;
	}
	if (set->count != 2)
		err = quic_test_fail(t, "rejected frames changed the set");
out:
	kfree(set);
	return err;
}

static int connid_dest_retire_prior_to(struct quic_test *t)
{
	struct quic_cid_set *set = dest_set(4);
	int err = 0, ret;
	u64 seq;

	if (!set)
		return -ENOMEM;
	ret = new_cid(set, 1, 0) ?: new_cid(set, 2, 0) ?: new_cid(set, 3, 0);
	ret = ret ?: new_cid(set, 4, 2);
	if (ret) {
		err = quic_test_fail(t, "setup: %d", ret);
		goto out;
	}
	if (quic_cid_set_active(set)->seq != 2 ||
	    quic_cid_set_active_count(set) != 3 ||
	    quic_cid_set_lowest(set) != 2) {
		err = quic_test_fail(t, "after rpt 2: active %llu live %u",
				     quic_cid_set_active(set)->seq,
				     quic_cid_set_active_count(set));
		goto out;
	}
	/* Smaller Retire Prior To than before: ignored. */
	ret = new_cid(set, 5, 1);
	if (ret || set->retire_prior_to != 2 ||
	    quic_cid_set_active_count(set) != 4) {
		err = quic_test_fail(t, "decreasing rpt: %d, rpt %llu", ret,
				     set->retire_prior_to);
		goto out;
	}
	if (!quic_cid_dest_pop_retired(set, &seq) || seq != 0 ||
	    !quic_cid_dest_pop_retired(set, &seq) || seq != 1 ||
	    quic_cid_dest_pop_retired(set, &seq)) {
		err = quic_test_fail(t, "retired IDs to announce: not 0, 1");
		goto out;
	}
	/* Everything below 7 at once; 6 arrives late, after 7. */
	ret = new_cid(set, 7, 7);
	if (ret || quic_cid_set_active(set)->seq != 7 ||
	    quic_cid_set_active_count(set) != 1) {
		err = quic_test_fail(t, "rpt 7: %d", ret);
		goto out;
	}
	ret = new_cid(set, 6, 0);
	if (ret || !quic_cid_set_find(set, 6)->retired) {
		err = quic_test_fail(t, "late seq 6 not retired: %d", ret);
		goto out;
	}
	for (ret = 2; ret <= 6; ret++) {
		if (!quic_cid_dest_pop_retired(set, &seq) || seq != ret) {
			err = quic_test_fail(t, "retire %d missing", ret);
			goto out;
		}
	}
	if (quic_cid_dest_pop_retired(set, &seq))
		err = quic_test_fail(t, "extra retirement %llu", seq);
out:
	kfree(set);
	return err;
}

static int connid_dest_errors(struct quic_test *t)
{
	u8 id[QUIC_CID_MAX_LEN + 1] = { 1 }, token[QUIC_RESET_TOKEN_LEN] = {};
	struct quic_cid_set *set = dest_set(2);
	struct quic_cid empty = { .len = 0 };
	int err = 0, ret = 0;
	u64 seq, popped;

	if (!set)
		return -ENOMEM;
	if (quic_cid_dest_new(set, 1, 2, id, 8, token) != FENC ||
	    quic_cid_dest_new(set, 1, 0, id, 0, token) != FENC ||
	    quic_cid_dest_new(set, 1, 0, id, 21, token) != FENC) {
		err = quic_test_fail(t, "bad frame fields accepted");
		goto out;
	}
	/* A retired ID whose RETIRE_CONNECTION_ID is never queued takes a
	 * slot: a peer that keeps retiring runs into the limit.
	 */
	for (seq = 1; seq < 64; seq++) {
		ret = new_cid(set, seq, seq);
		if (ret)
			break;
	}
	if (ret != LIMIT || seq != QUIC_CID_SET_SLOTS) {
		err = quic_test_fail(t, "retired pile-up: %d at seq %llu", ret,
				     seq);
		goto out;
	}
	/* With announcements collected it goes on for ever. */
	while (quic_cid_dest_pop_retired(set, &seq))
		;
	for (seq = 100; seq < 200; seq++) {
		ret = new_cid(set, seq, seq);
		while (quic_cid_dest_pop_retired(set, &popped))
			;
		if (ret) {
			err = quic_test_fail(t, "seq %llu: %d", seq, ret);
			goto out;
		}
	}
	/* A peer that uses an empty ID cannot send NEW_CONNECTION_ID. */
	quic_cid_set_init(set, 2);
	quic_cid_set_first(set, &empty, NULL);
	if (new_cid(set, 1, 0) != PV)
		err = quic_test_fail(t, "NEW_CONNECTION_ID with empty ID");
out:
	kfree(set);
	return err;
}

static int connid_src_retire(struct quic_test *t)
{
	struct quic_cid_set *set = kmalloc(sizeof(*set), GFP_KERNEL);
	struct quic_cid cid, removed, c0;
	int err = 0, ret;
	u64 seq, i;

	if (!set)
		return -ENOMEM;
	quic_cid_set_init(set, 4);
	for (i = 0; i < 4; i++) {
		mk_cid(&cid, i);
		quic_cid_src_add(set, &cid, NULL, &seq);
	}
	mk_cid(&c0, 0);
	ret = quic_cid_src_retire(set, 4, c0.data, c0.len, &removed);
	if (ret != PV) {
		err = quic_test_fail(t, "never issued: %d", ret);
		goto out;
	}
	mk_cid(&cid, 1);
	ret = quic_cid_src_retire(set, 1, cid.data, cid.len, &removed);
	if (ret != PV) {
		err = quic_test_fail(t, "retiring the packet's DCID: %d", ret);
		goto out;
	}
	ret = quic_cid_src_retire(set, 1, c0.data, c0.len, &removed);
	if (ret || !quic_cid_eq(&removed, &cid) ||
	    quic_cid_set_find(set, 1)) {
		err = quic_test_fail(t, "retire 1: %d", ret);
		goto out;
	}
	ret = quic_cid_src_retire(set, 1, c0.data, c0.len, &removed);
	if (ret || removed.len) {
		err = quic_test_fail(t, "retire 1 again: %d len %u", ret,
				     removed.len);
		goto out;
	}
	/* Retiring the active one moves to the lowest live one. */
	ret = quic_cid_src_retire(set, 0, cid.data, cid.len, &removed);
	if (ret || quic_cid_set_active(set)->seq != 2) {
		err = quic_test_fail(t, "retire active: %d", ret);
		goto out;
	}
	/* Room for two more, numbered on. */
	mk_cid(&cid, 10);
	ret = quic_cid_src_add(set, &cid, NULL, &seq);
	if (ret || seq != 4) {
		err = quic_test_fail(t, "replacement: %d seq %llu", ret, seq);
		goto out;
	}
	/* We issued an empty ID: any RETIRE_CONNECTION_ID is a violation. */
	quic_cid_set_init(set, 2);
	cid.len = 0;
	quic_cid_set_first(set, &cid, NULL);
	if (quic_cid_src_retire(set, 0, c0.data, c0.len, &removed) != PV)
		err = quic_test_fail(t, "retiring an empty ID accepted");
out:
	kfree(set);
	return err;
}

static int connid_src_retire_prior_to(struct quic_test *t)
{
	struct quic_cid_set *set = kmalloc(sizeof(*set), GFP_KERNEL);
	struct quic_cid cid, removed;
	int err = 0;
	u64 seq, i;

	if (!set)
		return -ENOMEM;
	quic_cid_set_init(set, 3);
	for (i = 0; i < 3; i++) {
		mk_cid(&cid, i);
		quic_cid_src_add(set, &cid, NULL, &seq);
	}
	if (quic_cid_src_retire_prior_to(set, 0) != -EINVAL ||
	    quic_cid_src_retire_prior_to(set, 3) != -EINVAL) {
		err = quic_test_fail(t, "out-of-range prior_to accepted");
		goto out;
	}
	if (quic_cid_src_retire_prior_to(set, 2) ||
	    quic_cid_set_active(set)->seq != 2 ||
	    quic_cid_set_active_count(set) != 1 ||
	    quic_cid_set_lowest(set) != 2 || set->retire_prior_to != 2) {
		err = quic_test_fail(t, "prior_to 2 not applied");
		goto out;
	}
	if (quic_cid_src_retire_prior_to(set, 2) != -EINVAL) {
		err = quic_test_fail(t, "prior_to 2 twice accepted");
		goto out;
	}
	/* Two new IDs fit while 0 and 1 wait for the peer. */
	for (i = 3; i < 5; i++) {
		mk_cid(&cid, i);
		if (quic_cid_src_add(set, &cid, NULL, &seq) || seq != i) {
			err = quic_test_fail(t, "issue %llu failed", i);
			goto out;
		}
	}
	mk_cid(&cid, 5);
	if (quic_cid_src_add(set, &cid, NULL, &seq) != -ENOSPC) {
		err = quic_test_fail(t, "issued past the limit");
		goto out;
	}
	mk_cid(&cid, 4);
	if (quic_cid_src_retire(set, 0, cid.data, cid.len, &removed) ||
	    quic_cid_src_retire(set, 1, cid.data, cid.len, &removed) ||
	    set->count != 3)
		err = quic_test_fail(t, "peer's retirements: %u left",
				     set->count);
out:
	kfree(set);
	return err;
}

static int connid_select(struct quic_test *t)
{
	struct quic_cid_set *set = dest_set(4);
	int err = 0;
	u64 seq;

	if (!set)
		return -ENOMEM;
	if (new_cid(set, 1, 0) || new_cid(set, 2, 0) || new_cid(set, 3, 0)) {
		err = quic_test_fail(t, "setup failed");
		goto out;
	}
	if (quic_cid_set_select(set, 0) != -EINVAL ||
	    quic_cid_set_select(set, 9) != -EINVAL) {
		err = quic_test_fail(t, "bad selection accepted");
		goto out;
	}
	if (quic_cid_set_select(set, 2) || quic_cid_set_active(set)->seq != 2 ||
	    quic_cid_set_select(set, 1) != -EINVAL) {
		err = quic_test_fail(t, "select 2 then 1");
		goto out;
	}
	if (quic_cid_dest_retire_prior_to(set, 0) != -EINVAL ||
	    quic_cid_dest_retire_prior_to(set, 4) != -EINVAL ||
	    quic_cid_dest_retire_prior_to(set, 3) ||
	    quic_cid_set_active(set)->seq != 3 ||
	    quic_cid_set_select(set, 2) != -EINVAL) {
		err = quic_test_fail(t, "our own prior_to");
		goto out;
	}
	/* The peer repeats an ID we retired: retired again. */
	while (quic_cid_dest_pop_retired(set, &seq))
		;
	if (new_cid(set, 1, 0) || !quic_cid_set_find(set, 1)->retired)
		err = quic_test_fail(t, "repeat of a retired ID");
out:
	kfree(set);
	return err;
}

static int connid_reset_token(struct quic_test *t)
{
	u8 a[QUIC_RESET_TOKEN_LEN], b[QUIC_RESET_TOKEN_LEN];
	struct quic_hash_key k1, k2;
	struct quic_cid c1, c2;

	quic_hash_key_init(&k1);
	quic_hash_key_init(&k2);
	mk_cid(&c1, 1);
	mk_cid(&c2, 2);

	quic_cid_reset_token(&k1, &c1, a);
	quic_cid_reset_token(&k1, &c1, b);
	if (memcmp(a, b, sizeof(a)))
		return quic_test_fail(t, "not deterministic");
	if (!memcmp(a, a + 8, 8))
		return quic_test_fail(t, "both halves equal");
	quic_cid_reset_token(&k2, &c1, b);
	if (!memcmp(a, b, 8) || !memcmp(a + 8, b + 8, 8))
		return quic_test_fail(t, "same token under two keys");
	quic_cid_reset_token(&k1, &c2, b);
	if (!memcmp(a, b, 8) || !memcmp(a + 8, b + 8, 8))
		return quic_test_fail(t, "same token for two IDs");
	/* The length is part of the input: a trailing zero byte counts. */
	c2 = c1;
	c1.len = 7;
	c1.data[7] = 0;
	c2.data[7] = 0;
	quic_cid_reset_token(&k1, &c1, a);
	quic_cid_reset_token(&k1, &c2, b);
	if (!memcmp(a, b, sizeof(a)))
		return quic_test_fail(t, "length not mixed in");
	return 0;
}

static int connid_token_eq(struct quic_test *t)
{
	u8 a[QUIC_RESET_TOKEN_LEN], b[QUIC_RESET_TOKEN_LEN];
	struct quic_cid_set *set;
	int err = 0, i;

	mk_token(a, 5);
	memcpy(b, a, sizeof(a));
	if (!quic_reset_token_eq(a, b))
		return quic_test_fail(t, "equal tokens differ");
	for (i = 0; i < QUIC_RESET_TOKEN_LEN; i++) {
		b[i] ^= 0x80;
		if (quic_reset_token_eq(a, b))
			return quic_test_fail(t, "byte %d ignored", i);
		b[i] ^= 0x80;
	}

	/* Only the tokens of IDs we used and did not retire count. */
	set = dest_set(4);
	if (!set)
		return -ENOMEM;
	mk_token(a, 0);
	quic_cid_set_first_token(set, a);
	if (new_cid(set, 1, 0) || new_cid(set, 2, 0)) {
		err = quic_test_fail(t, "setup failed");
		goto out;
	}
	mk_token(b, 2);
	if (!quic_cid_dest_match_reset(set, a) ||
	    quic_cid_dest_match_reset(set, b)) {
		err = quic_test_fail(t, "used/unused tokens mismatched");
		goto out;
	}
	quic_cid_set_select(set, 2);
	new_cid(set, 3, 1);
	if (quic_cid_dest_match_reset(set, a) ||
	    !quic_cid_dest_match_reset(set, b))
		err = quic_test_fail(t, "retired token matched, or new not");
out:
	kfree(set);
	return err;
}

static int connid_generate(struct quic_test *t)
{
	struct quic_cid a, b;

	quic_cid_generate(&a);
	quic_cid_generate(&b);
	if (a.len != QUIC_CID_LOCAL_LEN || b.len != QUIC_CID_LOCAL_LEN)
		return quic_test_fail(t, "length %u", a.len);
	if (quic_cid_eq(&a, &b))
		return quic_test_fail(t, "two draws equal");
	return 0;
}

/* NEW_CONNECTION_ID is due for each ID issued after number 0, once;
 * again when marked (its packet lost), never for a retired ID.
 */
static int connid_src_to_send(struct quic_test *t)
{
	const struct quic_cid_entry *e;
	struct quic_cid_set *set;
	struct quic_cid cid;
	int err = 0;
	u64 seq, i;

	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return -ENOMEM;
	quic_cid_set_init(set, 4);
	for (i = 0; i < 3; i++) {
		mk_cid(&cid, i);
		quic_cid_src_add(set, &cid, NULL, &seq);
	}
	for (i = 1; i < 3; i++) {
		e = quic_cid_src_next_to_send(set);
		if (!e || e->seq != i) {
			err = quic_test_fail(t, "due: %lld, want %llu",
					     e ? (s64)e->seq : -1, i);
			goto out;
		}
		quic_cid_src_mark(set, e->seq, false);
	}
	if (quic_cid_src_next_to_send(set)) {
		err = quic_test_fail(t, "due after all were sent");
		goto out;
	}
	quic_cid_src_mark(set, 2, true);
	e = quic_cid_src_next_to_send(set);
	if (!e || e->seq != 2) {
		err = quic_test_fail(t, "lost ID not due again");
		goto out;
	}
	quic_cid_src_mark(set, 2, false);
	quic_cid_src_retire_prior_to(set, 2);
	quic_cid_src_mark(set, U64_MAX, true);
	e = quic_cid_src_next_to_send(set);
	if (!e || e->seq != 2) {
		err = quic_test_fail(t, "all: number 0 or a retired ID due");
		goto out;
	}
	quic_cid_src_mark(set, 2, false);
	if (quic_cid_src_next_to_send(set))
		err = quic_test_fail(t, "retired ID due");
out:
	kfree(set);
	return err;
}

static const struct quic_test_case quic_connid_cases[] = {
	QUIC_TEST_CASE(connid_set_limits),
	QUIC_TEST_CASE(connid_dest_limit),
	QUIC_TEST_CASE(connid_dest_duplicate),
	QUIC_TEST_CASE(connid_dest_retire_prior_to),
	QUIC_TEST_CASE(connid_dest_errors),
	QUIC_TEST_CASE(connid_src_retire),
	QUIC_TEST_CASE(connid_src_retire_prior_to),
	QUIC_TEST_CASE(connid_src_to_send),
	QUIC_TEST_CASE(connid_select),
	QUIC_TEST_CASE(connid_reset_token),
	QUIC_TEST_CASE(connid_token_eq),
	QUIC_TEST_CASE(connid_generate),
};

const struct quic_test_suite quic_connid_suite = {
	.name		= "quic_connid",
	.cases		= quic_connid_cases,
	.num_cases	= ARRAY_SIZE(quic_connid_cases),
};
