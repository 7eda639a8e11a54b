/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bookkeeping of the target's segment cache, as pure logic: which buckets'
 * current segments are held in DRAM, in LRU order, within a budget of
 * units.  The commit kthread of an SSD owns one cache (no locking); it
 * looks a bucket up before reading the bucket's segment from the SSD and
 * stores the new image of every segment a durable batch published.
 *
 * An entry is addressed by the bucket's owned index (bucket / nr_ssds) and
 * records the exact seg word and full generation it was stored under.  A
 * lookup hits only when both still match the bucket's authoritative ones,
 * so an entry left behind by any path that moved the bucket (commit,
 * cleaner, recovery) can never be served: it is dropped as a miss.
 *
 * The data buffers are the caller's: the cache frees them only through
 * the free_data callback given to scalio_sc_init(), on replacement,
 * eviction, a mismatching lookup, scalio_sc_drop() and scalio_sc_clear().
 */
#ifndef _SCALIO_SEGCACHE_H
#define _SCALIO_SEGCACHE_H

#include "scalio_types.h"

#define SCALIO_SC_NONE	0xffffffffU

/**
 * struct scalio_sc_ent - one cached segment (data NULL: a free entry)
 * @data:	segment image, @units units
 * @seg:	seg word it was stored under
 * @gen:	full generation it was stored under
 * @units:	size of @data in units (what it costs of the budget)
 * @key:	owned index of the bucket it caches
 * @hnext:	next entry of its hash chain, or SCALIO_SC_NONE
 * @prev:	more recently used entry, or SCALIO_SC_NONE
 * @next:	less recently used entry (free entries: the next free one),
 *		or SCALIO_SC_NONE
 */
struct scalio_sc_ent {
	void	*data;
	u64	seg;
	u64	gen;
	u32	units;
	u32	key;
	u32	hnext;
	u32	prev;
	u32	next;
};

/**
 * struct scalio_segcache - an LRU of segment images within a unit budget
 * @ents:	the entry pool, @nr_ents of them
 * @heads:	hash chains by owned index, @hmask + 1 of them
 * @nr:		owned buckets (valid keys are below it)
 * @nr_ents:	entries in the pool: no more than the budget can hold
 * @hmask:	hash size - 1 (a power of two minus one)
 * @free:	first free entry, or SCALIO_SC_NONE
 * @mru:	most recently used entry, or SCALIO_SC_NONE
 * @lru:	least recently used entry, or SCALIO_SC_NONE
 * @used:	units held
 * @cap:	budget in units (0: the cache is disabled)
 * @free_data:	releases an entry's data
 * @hits, @misses, @evictions: counters since init
 *
 * Its memory is one caller-allocated area of scalio_sc_mem_bytes(): a
 * pool sized by the budget, not by the buckets, since every entry holds a
 * unit at least.  So a store of many buckets pays for its cache only.
 */
struct scalio_segcache {
	struct scalio_sc_ent	*ents;
	u32			*heads;
	u32			nr;
	u32			nr_ents;
	u32			hmask;
	u32			free;
	u32			mru;
	u32			lru;
	u64			used;
	u64			cap;
	void			(*free_data)(void *data);
	u64			hits;
	u64			misses;
	u64			evictions;
};

size_t scalio_sc_mem_bytes(u32 nr, u64 cap_units);
void scalio_sc_init(struct scalio_segcache *sc, void *mem, u32 nr,
		    u64 cap_units, void (*free_data)(void *data));
/* Whether a segment of @units units may be stored at all. */
static inline bool scalio_sc_admits(const struct scalio_segcache *sc,
				    u32 units)
{
	return units && units <= sc->cap;
}
const void *scalio_sc_lookup(struct scalio_segcache *sc, u32 i, u64 seg,
			     u64 gen);
u32 scalio_sc_store(struct scalio_segcache *sc, u32 i, u64 seg, u64 gen,
		    void *data, u32 units);
void *scalio_sc_take(struct scalio_segcache *sc, u32 i, u32 units);
void scalio_sc_drop(struct scalio_segcache *sc, u32 i);
void scalio_sc_clear(struct scalio_segcache *sc);

#endif /* _SCALIO_SEGCACHE_H */
