// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/cidtable.c and net/quic/lookup.c: the hash table from
 * connection IDs to owners, and the per-namespace tables built on it (our
 * IDs, the client-chosen DCIDs, the peers' Stateless Reset Tokens).
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/quic/cidtable.h>
#include <net/quic/connid.h>
#include <net/quic/hash.h>
#include <net/quic/lookup.h>

#include "test.h"

/* A distinct 8-byte ID for number @n. */
static void mk_cid(struct quic_cid *cid, u32 n)
{
	cid->len = 8;
	memset(cid->data, 0xc0, 8);
	memcpy(cid->data, &n, sizeof(n));
}

static int lookup_table_basic(struct quic_test *t)
{
	struct quic_cidtable *tbl = kzalloc(sizeof(*tbl), GFP_KERNEL);
	struct quic_cid a, b;
	int err = 0, ret;
	void *o;

	if (!tbl)
		return -ENOMEM;
	err = quic_cidtable_init(tbl, 4, false);
	if (err)
		goto out_free;
	mk_cid(&a, 1);
	mk_cid(&b, 2);
	ret = quic_cidtable_add(tbl, &a, &a, GFP_KERNEL) ?:
	      quic_cidtable_add(tbl, &b, &b, GFP_KERNEL);
	if (ret) {
		err = quic_test_fail(t, "add: %d", ret);
		goto out;
	}
	ret = quic_cidtable_add(tbl, &a, &b, GFP_KERNEL);
	if (ret != -EEXIST) {
		err = quic_test_fail(t, "duplicate: %d", ret);
		goto out;
	}
	rcu_read_lock();
	o = quic_cidtable_find(tbl, a.data, a.len);
	ret = o == &a && quic_cidtable_find(tbl, b.data, b.len) == &b &&
	      !quic_cidtable_find(tbl, a.data, 7) &&
	      !quic_cidtable_find(tbl, a.data, 21);
	rcu_read_unlock();
	if (!ret) {
		err = quic_test_fail(t, "lookup");
		goto out;
	}
	if (quic_cidtable_del(tbl, &a, &b) || tbl->count != 2) {
		err = quic_test_fail(t, "deleted another owner's ID");
		goto out;
	}
	if (!quic_cidtable_del(tbl, &a, &a) ||
	    !quic_cidtable_del(tbl, &b, &b) || tbl->count) {
		err = quic_test_fail(t, "delete: %u left", tbl->count);
		goto out;
	}
	rcu_read_lock();
	o = quic_cidtable_find(tbl, a.data, a.len);
	rcu_read_unlock();
	if (o)
		err = quic_test_fail(t, "found after delete");
out:
	if (quic_cidtable_destroy(tbl) && !err)
		err = quic_test_fail(t, "entries left at destroy");
out_free:
	kfree(tbl);
	return err;
}

/* The namespace tables, through the whole life of a connection's IDs. */
static int lookup_table_net(struct quic_test *t)
{
	unsigned int base = quic_lookup_cid_count(&init_net);
	unsigned int obase = quic_lookup_odcid_count(&init_net);
	struct quic_cid_set *set = kmalloc(sizeof(*set), GFP_KERNEL);
	const struct quic_cid_entry *e;
	u8 token[QUIC_RESET_TOKEN_LEN];
	struct quic_cid cid, removed;
	int err = 0, ret, i;
	void *o;

	if (!set)
		return -ENOMEM;
	quic_cid_set_init(set, 3);
	for (i = 0; i < 3; i++) {
		ret = quic_lookup_cid_issue(&init_net, set, set, GFP_KERNEL, &e);
		if (ret || e->seq != i || !e->has_token) {
			err = quic_test_fail(t, "issue %d: %d", i, ret);
			goto out;
		}
		quic_lookup_reset_token(&init_net, &e->cid, token);
		if (!quic_reset_token_eq(token, e->token)) {
			err = quic_test_fail(t, "token of %d", i);
			goto out;
		}
		rcu_read_lock();
		o = quic_lookup_cid_find(&init_net, e->cid.data, e->cid.len);
		rcu_read_unlock();
		if (o != set) {
			err = quic_test_fail(t, "lookup of %d", i);
			goto out;
		}
	}
	ret = quic_lookup_cid_issue(&init_net, set, set, GFP_KERNEL, &e);
	if (ret != -ENOSPC || quic_lookup_cid_count(&init_net) != base + 3) {
		err = quic_test_fail(t, "issued past the limit");
		goto out;
	}
	cid = set->entries[2].cid;
	ret = quic_cid_src_retire(set, 0, cid.data, cid.len, &removed);
	if (ret || !removed.len) {
		err = quic_test_fail(t, "retire: %d", ret);
		goto out;
	}
	quic_lookup_cid_del(&init_net, &removed, set);
	rcu_read_lock();
	o = quic_lookup_cid_find(&init_net, removed.data, removed.len);
	rcu_read_unlock();
	if (o) {
		err = quic_test_fail(t, "retired ID still found");
		goto out;
	}

	mk_cid(&cid, 77);
	ret = quic_lookup_odcid_add(&init_net, &cid, &cid, GFP_KERNEL);
	rcu_read_lock();
	o = quic_lookup_odcid_find(&init_net, cid.data, cid.len);
	rcu_read_unlock();
	if (ret || o != &cid ||
	    quic_lookup_odcid_add(&init_net, &cid, set, GFP_KERNEL) != -EEXIST ||
	    quic_lookup_odcid_count(&init_net) != obase + 1)
		err = quic_test_fail(t, "odcid table: %d", ret);
	quic_lookup_odcid_del(&init_net, &cid, &cid);
out:
	for (i = 0; i < set->count; i++)
		quic_lookup_cid_del(&init_net, &set->entries[i].cid, set);
	if (!err && (quic_lookup_cid_count(&init_net) != base ||
		     quic_lookup_odcid_count(&init_net) != obase))
		err = quic_test_fail(t, "entries left: %u and %u",
				     quic_lookup_cid_count(&init_net) - base,
				     quic_lookup_odcid_count(&init_net) - obase);
	kfree(set);
	return err;
}

#define BALANCE_IDS	10000
#define BALANCE_BITS	10
/* 9.8 IDs per bucket on average; a uniform hash has its fullest bucket
 * near 22, so 40 only fails for a hash that clusters.
 */
#define BALANCE_MAX	40

static int lookup_balance_one(struct quic_test *t, bool keyed, bool random)
{
	struct quic_cidtable *tbl = kzalloc(sizeof(*tbl), GFP_KERNEL);
	struct quic_cid cid;
	int err, i;
	u32 max;

	if (!tbl)
		return -ENOMEM;
	err = quic_cidtable_init(tbl, BALANCE_BITS, keyed);
	if (err)
		goto out_free;
	for (i = 0; i < BALANCE_IDS; i++) {
		if (random)
			quic_cid_generate(&cid);
		else
			mk_cid(&cid, i);
		err = quic_cidtable_add(tbl, &cid, tbl, GFP_KERNEL);
		if (err == -EEXIST && random) {
			i--;
			continue;
		}
		if (err)
			goto out;
	}
	max = quic_cidtable_max_chain(tbl);
	if (tbl->count != BALANCE_IDS || max > BALANCE_MAX)
		err = quic_test_fail(t, "%s %s: %u IDs, longest chain %u",
				     keyed ? "keyed" : "fast",
				     random ? "random" : "sequential",
				     tbl->count, max);
out:
	/* The leak counter of namespace exit sees every entry left. */
	if (quic_cidtable_destroy(tbl) != i && !err)
		err = quic_test_fail(t, "destroy miscounted the entries left");
out_free:
	kfree(tbl);
	return err;
}

static int lookup_table_balance(struct quic_test *t)
{
	return lookup_balance_one(t, false, true) ?:
	       lookup_balance_one(t, true, true) ?:
	       lookup_balance_one(t, true, false) ?:
	       lookup_balance_one(t, false, false);
}

/* Each namespace draws its own key for the client-chosen DCID table, so
 * the same DCIDs land in unrelated buckets, unlike with the fast hash.
 */
static int lookup_odcid_keyed(struct quic_test *t)
{
	struct quic_cidtable *tbl = kcalloc(2, sizeof(*tbl), GFP_KERNEL);
	struct quic_cid cid;
	int err, i, same = 0, fast = 0;

	if (!tbl)
		return -ENOMEM;
	err = quic_cidtable_init(&tbl[0], BALANCE_BITS, true);
	if (err)
		goto out_free;
	err = quic_cidtable_init(&tbl[1], BALANCE_BITS, true);
	if (err)
		goto out;
	if (!memcmp(&tbl[0].key, &tbl[1].key, sizeof(tbl[0].key))) {
		err = quic_test_fail(t, "two namespaces share a key");
		goto out;
	}
	for (i = 0; i < 64; i++) {
		u32 b0, b1;

		mk_cid(&cid, i);
		b0 = quic_cidtable_bucket(&tbl[0], cid.data, cid.len);
		b1 = quic_cidtable_bucket(&tbl[1], cid.data, cid.len);
		same += b0 == b1;
		fast += b0 == quic_hash_bucket(quic_fast_hash_bytes(cid.data,
								    cid.len),
					       BALANCE_BITS);
	}
	/* About 64/1024 of either by chance. */
	if (same > 8 || fast > 8)
		err = quic_test_fail(t, "%d of 64 in the same bucket, %d as the fast hash",
				     same, fast);
out:
	quic_cidtable_destroy(&tbl[1]);
	quic_cidtable_destroy(&tbl[0]);
out_free:
	kfree(tbl);
	return err;
}

/* The table of the peers' Stateless Reset Tokens: found by the exact 16
 * bytes, one owner per token, removed only by its owner.
 */
static int lookup_reset_table(struct quic_test *t)
{
	u8 tok[QUIC_RESET_TOKEN_LEN], other[QUIC_RESET_TOKEN_LEN];
	int a, b, err = 0;
	void *o, *o2;

	get_random_bytes(tok, sizeof(tok));
	memcpy(other, tok, sizeof(other));
	other[15] ^= 1;
	if (quic_lookup_reset_add(&init_net, tok, &a, GFP_KERNEL))
		return quic_test_fail(t, "add failed");
	if (quic_lookup_reset_add(&init_net, tok, &b, GFP_KERNEL) != -EEXIST)
		err = quic_test_fail(t, "a second owner of a token");
	rcu_read_lock();
	o = quic_lookup_reset_find(&init_net, tok);
	o2 = quic_lookup_reset_find(&init_net, other);
	rcu_read_unlock();
	if (!err && (o != &a || o2))
		err = quic_test_fail(t, "lookup: %p %p", o, o2);
	quic_lookup_reset_del(&init_net, tok, &b);
	rcu_read_lock();
	o = quic_lookup_reset_find(&init_net, tok);
	rcu_read_unlock();
	if (!err && o != &a)
		err = quic_test_fail(t, "removed by another owner");
	quic_lookup_reset_del(&init_net, tok, &a);
	rcu_read_lock();
	o = quic_lookup_reset_find(&init_net, tok);
	rcu_read_unlock();
	if (!err && o)
		err = quic_test_fail(t, "still there after removal");
	return err;
}

static const struct quic_test_case quic_lookup_cases[] = {
	QUIC_TEST_CASE(lookup_table_basic),
	QUIC_TEST_CASE(lookup_table_net),
	QUIC_TEST_CASE(lookup_table_balance),
	QUIC_TEST_CASE(lookup_odcid_keyed),
	QUIC_TEST_CASE(lookup_reset_table),
};

const struct quic_test_suite quic_lookup_suite = {
	.name		= "quic_lookup",
	.cases		= quic_lookup_cases,
	.num_cases	= ARRAY_SIZE(quic_lookup_cases),
};
