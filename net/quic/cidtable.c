// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: a hash table from connection IDs to their owners (see cidtable.h).
 *
 * An array of RCU hlists sized once, at creation: lookups in softirq walk
 * one bucket without a lock, writers serialise on a spinlock, and a
 * removed entry is freed after the readers that may still see it. Whether
 * the table hashes with the fast unkeyed hash or with SipHash under a key
 * of its own depends on who chooses the IDs (net/quic/hash.h);
 * the caller says which.
 */

#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cidtable.h"
#include "export.h"

/**
 * struct quic_cidtable_node - one entry of a struct quic_cidtable
 * @node: in its bucket, under RCU
 * @rcu: frees it after the readers that may see it
 * @owner: what the lookup returns
 * @cid: the key
 */
struct quic_cidtable_node {
	struct hlist_node	node;
	struct rcu_head		rcu;
	void			*owner;
	struct quic_cid		cid;
};

/**
 * quic_cidtable_init() - allocate an empty table
 * @tbl: the table
 * @bits: log2 of the number of buckets, at most 20
 * @keyed: hash with a fresh secret SipHash key (IDs a peer chose) rather
 *	than the fast hash (IDs we chose)
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int quic_cidtable_init(struct quic_cidtable *tbl, unsigned int bits,
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
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cidtable_init);

/**
 * quic_cidtable_destroy() - free a table
 * @tbl: the table; no reader may use it any more
 *
 * Entries still in the table are freed too. A table that was never
 * allocated, or is destroyed already, is left alone.
 *
 * Return: how many entries were left.
 */
unsigned int quic_cidtable_destroy(struct quic_cidtable *tbl)
{
	struct quic_cidtable_node *n;
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
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cidtable_destroy);

/**
 * quic_cidtable_bucket() - the bucket an ID hashes to
 * @tbl: the table
 * @id: the ID
 * @len: its length
 *
 * Return: the bucket index, below 2^@tbl->bits.
 */
u32 quic_cidtable_bucket(const struct quic_cidtable *tbl, const u8 *id,
			 u32 len)
{
	u32 h;

	if (tbl->keyed)
		h = quic_keyed_hash(&tbl->key, id, len);
	else
		h = quic_fast_hash_bytes(id, len);
	return quic_hash_bucket(h, tbl->bits);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cidtable_bucket);

/**
 * quic_cidtable_add() - map an ID to an owner
 * @tbl: the table
 * @cid: the ID
 * @owner: what quic_cidtable_find() returns for it
 * @gfp: allocation flags
 *
 * Return: 0, -EINVAL for an over-long ID, -ENOMEM, or -EEXIST if the
 * table already maps @cid (for one of our random IDs: draw another).
 */
int quic_cidtable_add(struct quic_cidtable *tbl, const struct quic_cid *cid,
		      void *owner, gfp_t gfp)
{
	struct quic_cidtable_node *n, *pos;
	struct hlist_head *head;

	if (cid->len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	n = kmalloc(sizeof(*n), gfp);
	if (!n)
		return -ENOMEM;
	n->owner = owner;
	n->cid = *cid;
	head = &tbl->buckets[quic_cidtable_bucket(tbl, cid->data, cid->len)];

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
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cidtable_add);

/**
 * quic_cidtable_del() - remove an ID of an owner
 * @tbl: the table
 * @cid: the ID
 * @owner: its owner; an entry of another owner is left alone
 *
 * The entry is freed after an RCU grace period.
 *
 * Return: true if it was found and removed.
 */
bool quic_cidtable_del(struct quic_cidtable *tbl, const struct quic_cid *cid,
		       const void *owner)
{
	struct quic_cidtable_node *n;
	struct hlist_head *head;

	if (cid->len > QUIC_CID_MAX_LEN)
		return false;
	head = &tbl->buckets[quic_cidtable_bucket(tbl, cid->data, cid->len)];

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
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cidtable_del);

/**
 * quic_cidtable_find() - the owner of an ID
 * @tbl: the table
 * @id: the ID, e.g. the Destination Connection ID of a packet
 * @len: its length
 *
 * The caller holds rcu_read_lock() and keeps the owner alive by its own
 * means (a reference taken under it, or an RCU-freed owner).
 *
 * Return: the owner, or NULL.
 */
void *quic_cidtable_find(struct quic_cidtable *tbl, const u8 *id, u32 len)
{
	struct quic_cidtable_node *n;
	struct hlist_head *head;

	if (len > QUIC_CID_MAX_LEN)
		return NULL;
	head = &tbl->buckets[quic_cidtable_bucket(tbl, id, len)];
	hlist_for_each_entry_rcu(n, head, node)
		if (quic_cid_eq_bytes(&n->cid, id, len))
			return READ_ONCE(n->owner);
	return NULL;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cidtable_find);

/**
 * quic_cidtable_max_chain() - the longest bucket
 * @tbl: the table
 *
 * Return: the number of entries in the fullest bucket.
 */
u32 quic_cidtable_max_chain(struct quic_cidtable *tbl)
{
	struct quic_cidtable_node *n;
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
EXPORT_SYMBOL_IF_QUIC_TEST(quic_cidtable_max_chain);
