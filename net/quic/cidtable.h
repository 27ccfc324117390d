/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: a hash table from connection IDs to their owners
 * (net/quic/cidtable.c), the building block of the per network namespace
 * tables of lookup.c.
 *
 * Locking: writers take the table's spinlock; lookups run under
 * rcu_read_lock(), and a removed entry is freed after a grace period.
 */

#ifndef _NET_QUIC_CIDTABLE_H
#define _NET_QUIC_CIDTABLE_H

#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include "cid.h"
#include "hash.h"

/**
 * struct quic_cidtable - a hash table from connection IDs to owners
 * @lock: serialises writers
 * @bits: log2 of the number of buckets
 * @count: entries, for the leak check and the tests
 * @keyed: hash with @key (IDs a peer chose) instead of the fast hash
 * @key: the SipHash key, if @keyed
 * @buckets: 2^@bits RCU hlists of the entries
 */
struct quic_cidtable {
	spinlock_t		lock;	/* writers; readers use RCU */
	unsigned int		bits;
	unsigned int		count;
	bool			keyed;
	struct quic_hash_key	key;
	struct hlist_head	*buckets;
};

int quic_cidtable_init(struct quic_cidtable *tbl, unsigned int bits,
		       bool keyed);
unsigned int quic_cidtable_destroy(struct quic_cidtable *tbl);
u32 quic_cidtable_bucket(const struct quic_cidtable *tbl, const u8 *id,
			 u32 len);
int quic_cidtable_add(struct quic_cidtable *tbl, const struct quic_cid *cid,
		      void *owner, gfp_t gfp);
bool quic_cidtable_del(struct quic_cidtable *tbl, const struct quic_cid *cid,
		       const void *owner);
void *quic_cidtable_find(struct quic_cidtable *tbl, const u8 *id, u32 len);
u32 quic_cidtable_max_chain(struct quic_cidtable *tbl);

#endif /* _NET_QUIC_CIDTABLE_H */
