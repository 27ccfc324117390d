// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/cidtable.c and net/quic/lookup.c: the hash table from
 * connection IDs to owners, and the per-namespace tables built on it (our
 * IDs, the client-chosen DCIDs, the peers' Stateless Reset Tokens); what
 * colliding IDs do to a table of either hash, and a micro-benchmark of it.
 */

#define pr_fmt(fmt) fmt

#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include "../cidtable.h"
#include "../connid.h"
#include "../hash.h"
#include "../lookup.h"

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

/* HashDoS: IDs that all collide in the fast hash, built rather than
 * searched for.  For a key of 8 or 16 bytes every step of
 * quic_fast_hash_bytes() can be undone:
 *
 * - quic_fx_finish() is a bijection of 64-bit states (a xorshift by 32 is
 *   its own inverse, and a multiplication by the odd QUIC_FX_MUL is undone
 *   by its inverse modulo 2^64) followed by taking the high half.  Undone
 *   from any of the 2^32 64-bit values whose high half is 0, it gives an
 *   input that hashes to 0; XORing the length back out of that input gives
 *   the state the last word must lead to.
 * - The last word is absorbed as (rol64(h, 5) ^ word) * QUIC_FX_MUL, so
 *   after any state h the word rol64(h, 5) ^ (s * QUIC_FX_MUL^-1) leads to
 *   the chosen state s.
 *
 * An 8-byte ID is that last word alone, after h = 0.  A 16-byte ID is any
 * first word, then the last word for the state the first one left.  Both
 * hash to 0 in all 32 bits, so they share bucket 0 of a table of any size:
 * of the odcid table's too, whose 2^6 to 2^14 buckets depend on memory
 * (quic_lookup_table_bits, private to lookup.c).  At the other lengths the
 * last 8-byte load overlaps the word before it, which ties bytes of the
 * two together; an attacker needs only one length, and a client may choose
 * any from 8 to 20 bytes for its first DCID.
 *
 * Nothing secret goes in: anyone can compute these IDs, which is why a
 * table of IDs that a peer chooses must use the keyed hash.
 */
#define HASHDOS_IDS	BALANCE_IDS
/* IDs looked up but not inserted: colliding ones, then random ones. */
#define HASHDOS_ABSENT	64
/* Lookups (or insertions) between two cond_resched(): a chain of
 * HASHDOS_IDS takes long to walk in an emulated VM.
 */
#define HASHDOS_CHUNK	256

/* QUIC_FX_MUL^-1 modulo 2^64, by Newton's iteration x *= 2 - m * x: an odd
 * m is its own inverse modulo 8, and each step doubles the low bits that
 * are right (3, 6, 12, 24, 48, 96).
 */
static u64 hashdos_mul_inverse(void)
{
	u64 x = QUIC_FX_MUL;
	int i;

	for (i = 0; i < 5; i++)
		x *= 2 - QUIC_FX_MUL * x;
	return x;
}

/* The state that quic_fx_finish() turns into the 64-bit value @out, of
 * which it returns the high half: its steps undone in reverse order.
 */
static u64 hashdos_unfinish(u64 out, u64 inv)
{
	out *= inv;
	out ^= out >> 32;
	out *= inv;
	out ^= out >> 32;
	return out;
}

/* Colliding ID number @n of the set drawn from @seed: 8 bytes for an even
 * @n, 16 for an odd one, with quic_fast_hash_bytes() 0.  Distinct @n below
 * 2^32 give distinct IDs: the 16-byte ones differ in their first word, the
 * 8-byte ones in the state they lead to.
 */
static void hashdos_cid(struct quic_cid *cid, u64 seed, u32 n)
{
	u64 inv = hashdos_mul_inverse(), h = 0, s;

	memset(cid, 0, sizeof(*cid));
	cid->len = n & 1 ? 16 : 8;
	if (cid->len == 16) {
		put_unaligned_le64(seed + n, cid->data);
		h = quic_fx_add(0, seed + n);
		h ^= h >> 32;
	}
	/* The hash is the high half, 0; the low half tells the IDs apart.
	 * quic_fast_hash_bytes() finishes the last state s XOR the length.
	 */
	s = hashdos_unfinish((u32)(seed + n), inv) ^ cid->len;
	put_unaligned_le64(rol64(h, 5) ^ (s * inv), cid->data + cid->len - 8);
}

/* Add @ids[0..@n) to @tbl, each owned by itself; *@added counts them. */
static int hashdos_fill(struct quic_cidtable *tbl, struct quic_cid *ids,
			u32 n, u32 *added)
{
	int err;
	u32 i;

	for (i = 0; i < n; i++) {
		err = quic_cidtable_add(tbl, &ids[i], &ids[i], GFP_KERNEL);
		if (err)
			return err;
		(*added)++;
		if (i % HASHDOS_CHUNK == HASHDOS_CHUNK - 1)
			cond_resched();
	}
	return 0;
}

/* Look up @ids[@from..@to) in @tbl under one rcu_read_lock(): how many
 * are found with themselves as owner; *@hits counts those found at all.
 */
static u32 hashdos_find(struct quic_cidtable *tbl,
			const struct quic_cid *ids, u32 from, u32 to,
			u32 *hits)
{
	u32 i, mine = 0;
	void *o;

	rcu_read_lock();
	for (i = from; i < to; i++) {
		o = quic_cidtable_find(tbl, ids[i].data, ids[i].len);
		*hits += !!o;
		mine += o == &ids[i];
	}
	rcu_read_unlock();
	return mine;
}

/* hashdos_find() of @ids[0..@n), HASHDOS_CHUNK at a time. */
static u32 hashdos_find_all(struct quic_cidtable *tbl,
			    const struct quic_cid *ids, u32 n, u32 *hits)
{
	u32 i, mine = 0;

	*hits = 0;
	for (i = 0; i < n; i += HASHDOS_CHUNK) {
		mine += hashdos_find(tbl, ids, i, min(i + HASHDOS_CHUNK, n),
				     hits);
		cond_resched();
	}
	return mine;
}

/* HASHDOS_IDS colliding IDs put the fast table's entries in one chain,
 * and leave the keyed table's chains as short as for random IDs; both
 * still find each ID, and no other: neither IDs that collide too nor
 * random ones.
 */
static int lookup_hashdos(struct quic_test *t)
{
	static const char * const names[] = { "fast", "keyed" };
	struct quic_cidtable *tbl = kcalloc(2, sizeof(*tbl), GFP_KERNEL);
	u32 added[2] = {}, mine, hits, max, i, h;
	u64 seed = get_random_u64();
	struct quic_cid *ids;
	int err = -ENOMEM, k;

	ids = kvcalloc(HASHDOS_IDS + 2 * HASHDOS_ABSENT, sizeof(*ids),
		       GFP_KERNEL);
	if (!tbl || !ids)
		goto out_free;
	for (i = 0; i < HASHDOS_IDS + HASHDOS_ABSENT; i++) {
		hashdos_cid(&ids[i], seed, i);
		h = quic_fast_hash_bytes(ids[i].data, ids[i].len);
		if (h) {
			err = quic_test_fail(t, "constructed ID %u hashes to %#x, not 0",
					     i, h);
			goto out_free;
		}
	}
	for (; i < HASHDOS_IDS + 2 * HASHDOS_ABSENT; i++) {
		ids[i].len = 8 + get_random_u32_below(QUIC_CID_MAX_LEN - 7);
		get_random_bytes(ids[i].data, ids[i].len);
	}

	err = quic_cidtable_init(&tbl[0], BALANCE_BITS, false) ?:
	      quic_cidtable_init(&tbl[1], BALANCE_BITS, true);
	if (err)
		goto out;
	for (k = 0; k < 2; k++) {
		err = hashdos_fill(&tbl[k], ids, HASHDOS_IDS, &added[k]);
		if (err) {
			err = quic_test_fail(t, "%s: add of ID %u: %d",
					     names[k], added[k], err);
			goto out;
		}
		max = quic_cidtable_max_chain(&tbl[k]);
		if (k ? max > BALANCE_MAX : max != HASHDOS_IDS) {
			err = quic_test_fail(t, "%s: %u colliding IDs, longest chain %u",
					     names[k], HASHDOS_IDS, max);
			goto out;
		}
		mine = hashdos_find_all(&tbl[k], ids, HASHDOS_IDS, &hits);
		if (mine != HASHDOS_IDS || hits != HASHDOS_IDS) {
			err = quic_test_fail(t, "%s: %u of %u found, %u with their owner",
					     names[k], hits, HASHDOS_IDS, mine);
			goto out;
		}
		hashdos_find_all(&tbl[k], ids + HASHDOS_IDS,
				 2 * HASHDOS_ABSENT, &hits);
		if (hits) {
			err = quic_test_fail(t, "%s: %u of %u absent IDs found",
					     names[k], hits, 2 * HASHDOS_ABSENT);
			goto out;
		}
	}
out:
	/* The leak counter of namespace exit sees every entry left. */
	for (k = 0; k < 2; k++)
		if (quic_cidtable_destroy(&tbl[k]) != added[k] && !err)
			err = quic_test_fail(t, "destroy miscounted the entries left");
out_free:
	kvfree(ids);
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
	QUIC_TEST_CASE(lookup_hashdos),
	QUIC_TEST_CASE(lookup_reset_table),
};

/* Micro-benchmark of the HashDoS: the mean cost of quic_cidtable_find()
 * over HASHDOS_IDS colliding IDs and over as many random ones (of the same
 * lengths), each set alone in a table of BALANCE_BITS, in either hash.  In
 * the keyed table both sets are random as far as it can tell, so the two
 * costs should be within a factor of 2; in the fast table each colliding
 * lookup walks half the chain of them all on average, hundreds of times
 * the cost of a random one or more.  Lookups are timed HASHDOS_CHUNK at a time,
 * with a cond_resched() between chunks, outside the time; the best of
 * BENCH_PASSES passes over the set counts.
 */
#define BENCH_PASSES	3

/* The time of the best pass over @ids[0..@n), into *@ns. */
static int hashdos_bench_one(bool keyed, struct quic_cid *ids, u32 n,
			     u64 *ns)
{
	struct quic_cidtable *tbl = kzalloc(sizeof(*tbl), GFP_KERNEL);
	u32 added = 0, pass, i, mine, hits;
	u64 best = U64_MAX, sum, t0;
	int err;

	if (!tbl)
		return -ENOMEM;
	err = quic_cidtable_init(tbl, BALANCE_BITS, keyed) ?:
	      hashdos_fill(tbl, ids, n, &added);
	for (pass = 0; !err && pass < BENCH_PASSES; pass++) {
		sum = 0;
		mine = 0;
		hits = 0;
		for (i = 0; i < n; i += HASHDOS_CHUNK) {
			t0 = ktime_get_ns();
			mine += hashdos_find(tbl, ids, i,
					     min(i + HASHDOS_CHUNK, n), &hits);
			sum += ktime_get_ns() - t0;
			cond_resched();
		}
		if (mine != n || hits != n)
			err = -EINVAL;
		best = min(best, sum);
	}
	quic_cidtable_destroy(tbl);
	kfree(tbl);
	*ns = best;
	return err;
}

static void quic_lookup_bench(void)
{
	static const char * const names[] = { "fast", "keyed" };
	u64 seed = get_random_u64(), coll_ns, rand_ns;
	struct quic_cid *ids, *rnd;
	char what[96];
	int k;
	u32 i;

	ids = kvcalloc(2 * HASHDOS_IDS, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return;
	rnd = ids + HASHDOS_IDS;
	for (i = 0; i < HASHDOS_IDS; i++) {
		hashdos_cid(&ids[i], seed, i);
		rnd[i].len = ids[i].len;
		get_random_bytes(rnd[i].data, rnd[i].len);
	}
	/* Keyed first: the figure that should hold under attack. */
	for (k = 1; k >= 0; k--) {
		if (hashdos_bench_one(k, ids, HASHDOS_IDS, &coll_ns) ||
		    hashdos_bench_one(k, rnd, HASHDOS_IDS, &rand_ns)) {
			pr_info("# bench: quic_lookup: %s table not filled, or an ID lost\n",
				names[k]);
			break;
		}
		snprintf(what, sizeof(what),
			 "quic_cidtable_find, %s, %u colliding IDs",
			 names[k], HASHDOS_IDS);
		quic_test_bench_time(what, coll_ns, HASHDOS_IDS);
		snprintf(what, sizeof(what),
			 "quic_cidtable_find, %s, %u random IDs",
			 names[k], HASHDOS_IDS);
		quic_test_bench_time(what, rand_ns, HASHDOS_IDS);
		snprintf(what, sizeof(what), "ratio %s: colliding vs random",
			 names[k]);
		quic_test_bench_ratio(what, coll_ns, rand_ns);
	}
	kvfree(ids);
}

const struct quic_test_suite quic_lookup_suite = {
	.name		= "quic_lookup",
	.cases		= quic_lookup_cases,
	.num_cases	= ARRAY_SIZE(quic_lookup_cases),
	.bench		= quic_lookup_bench,
};
