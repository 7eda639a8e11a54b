// SPDX-License-Identifier: GPL-2.0
/*
 * Segment cache bookkeeping (see scalio_segcache.h): a pool of entries,
 * found by owned bucket index through hash chains, on an intrusive doubly
 * linked LRU.
 */
#include "scalio_segcache.h"

/* Entries: every cached segment takes a unit of the budget at least. */
static u32 scalio_sc_pool(u32 nr, u64 cap_units)
{
	return cap_units < nr ? (u32)cap_units : nr;
}

/* Hash chains: a power of two >= the pool, so chains stay short. */
static u32 scalio_sc_hsize(u32 pool)
{
	u32 h = 1;

	while (h < pool && h < 0x80000000U)
		h <<= 1;
	return h;
}

/**
 * scalio_sc_mem_bytes() - memory scalio_sc_init() needs
 * @nr:		owned buckets
 * @cap_units:	budget in units
 *
 * Return: bytes for the entry pool and the hash chains' heads.
 */
size_t scalio_sc_mem_bytes(u32 nr, u64 cap_units)
{
	u32 pool = scalio_sc_pool(nr, cap_units);

	return (size_t)pool * sizeof(struct scalio_sc_ent) +
	       (size_t)scalio_sc_hsize(pool) * sizeof(u32);
}

/**
 * scalio_sc_init() - an empty cache
 * @sc:		cache
 * @mem:	scalio_sc_mem_bytes(@nr, @cap_units) bytes, suitably aligned
 *		for struct scalio_sc_ent
 * @nr:		owned buckets: the keys are 0 .. @nr - 1
 * @cap_units:	budget in units (0: disabled)
 * @free_data:	releases an entry's data
 */
void scalio_sc_init(struct scalio_segcache *sc, void *mem, u32 nr,
		    u64 cap_units, void (*free_data)(void *data))
{
	u32 i;

	memset(sc, 0, sizeof(*sc));
	sc->nr = nr;
	sc->cap = cap_units;
	sc->nr_ents = scalio_sc_pool(nr, cap_units);
	sc->hmask = scalio_sc_hsize(sc->nr_ents) - 1;
	sc->ents = mem;
	sc->heads = (u32 *)(sc->ents + sc->nr_ents);
	sc->mru = SCALIO_SC_NONE;
	sc->lru = SCALIO_SC_NONE;
	sc->free_data = free_data;
	for (i = 0; i <= sc->hmask; i++)
		sc->heads[i] = SCALIO_SC_NONE;
	for (i = 0; i < sc->nr_ents; i++)
		sc->ents[i] = (struct scalio_sc_ent) {
			.prev = SCALIO_SC_NONE, .hnext = SCALIO_SC_NONE,
			.next = i + 1 < sc->nr_ents ? i + 1 : SCALIO_SC_NONE,
		};
	sc->free = sc->nr_ents ? 0 : SCALIO_SC_NONE;
}

static u32 *scalio_sc_head(struct scalio_segcache *sc, u32 key)
{
	/* Owned indexes are dense: a multiplicative hash spreads runs. */
	return &sc->heads[(key * 0x9e3779b1U) >> 7 & sc->hmask];
}

/* The entry caching bucket @key, or SCALIO_SC_NONE. */
static u32 scalio_sc_find(struct scalio_segcache *sc, u32 key)
{
	u32 e;

	if (key >= sc->nr || !sc->nr_ents)
		return SCALIO_SC_NONE;
	for (e = *scalio_sc_head(sc, key); e != SCALIO_SC_NONE;
	     e = sc->ents[e].hnext)
		if (sc->ents[e].key == key)
			return e;
	return SCALIO_SC_NONE;
}

static void scalio_sc_unlink(struct scalio_segcache *sc, u32 i)
{
	struct scalio_sc_ent *e = &sc->ents[i];

	if (e->prev != SCALIO_SC_NONE)
		sc->ents[e->prev].next = e->next;
	else
		sc->mru = e->next;
	if (e->next != SCALIO_SC_NONE)
		sc->ents[e->next].prev = e->prev;
	else
		sc->lru = e->prev;
	e->prev = SCALIO_SC_NONE;
	e->next = SCALIO_SC_NONE;
}

static void scalio_sc_link_mru(struct scalio_segcache *sc, u32 i)
{
	struct scalio_sc_ent *e = &sc->ents[i];

	e->prev = SCALIO_SC_NONE;
	e->next = sc->mru;
	if (sc->mru != SCALIO_SC_NONE)
		sc->ents[sc->mru].prev = i;
	else
		sc->lru = i;
	sc->mru = i;
}

/* Unlink entry @i, put it on the free list and return its data. */
static void *scalio_sc_remove(struct scalio_segcache *sc, u32 i)
{
	struct scalio_sc_ent *e = &sc->ents[i];
	void *data = e->data;
	u32 *p;

	scalio_sc_unlink(sc, i);
	for (p = scalio_sc_head(sc, e->key); *p != i; p = &sc->ents[*p].hnext)
		;
	*p = e->hnext;
	sc->used -= e->units;
	*e = (struct scalio_sc_ent) {
		.prev = SCALIO_SC_NONE, .hnext = SCALIO_SC_NONE,
		.next = sc->free,
	};
	sc->free = i;
	return data;
}

/**
 * scalio_sc_lookup() - the cached image of bucket @i's current segment
 * @sc:		cache
 * @i:		owned index of the bucket
 * @seg:	the bucket's authoritative seg word (nonzero)
 * @gen:	the bucket's authoritative full generation
 *
 * A hit moves the entry to the MRU end.  An entry stored under another
 * seg word or generation is stale: it is dropped and the lookup misses.
 *
 * Return: the image (valid until the entry is next replaced, evicted or
 * dropped), or NULL on a miss.
 */
const void *scalio_sc_lookup(struct scalio_segcache *sc, u32 i, u64 seg,
			     u64 gen)
{
	u32 e = scalio_sc_find(sc, i);

	if (e != SCALIO_SC_NONE &&
	    (sc->ents[e].seg != seg || sc->ents[e].gen != gen)) {
		sc->free_data(scalio_sc_remove(sc, e));
		e = SCALIO_SC_NONE;
	}
	if (e == SCALIO_SC_NONE) {
		sc->misses++;
		return NULL;
	}
	sc->hits++;
	scalio_sc_unlink(sc, e);
	scalio_sc_link_mru(sc, e);
	return sc->ents[e].data;
}

/**
 * scalio_sc_store() - remember @data as bucket @i's current segment
 * @sc:		cache
 * @i:		owned index of the bucket
 * @seg:	the seg word just published for it
 * @gen:	its full generation
 * @data:	image of @units units; the cache owns it from now on
 * @units:	size
 *
 * Replaces any older entry of @i, then evicts least recently used
 * entries until the budget holds and an entry is free.  A segment the
 * budget cannot hold at all (see scalio_sc_admits()) is freed at once and
 * @i left uncached.
 *
 * Return: the number of entries evicted (replacement not counted).
 */
u32 scalio_sc_store(struct scalio_segcache *sc, u32 i, u64 seg, u64 gen,
		    void *data, u32 units)
{
	struct scalio_sc_ent *e;
	u32 evicted = 0, k;

	scalio_sc_drop(sc, i);
	if (i >= sc->nr || !scalio_sc_admits(sc, units)) {
		sc->free_data(data);
		return 0;
	}
	while ((sc->used + units > sc->cap || sc->free == SCALIO_SC_NONE) &&
	       sc->lru != SCALIO_SC_NONE) {
		sc->free_data(scalio_sc_remove(sc, sc->lru));
		evicted++;
	}
	sc->evictions += evicted;
	/* Cannot happen (the pool holds what the budget does), but be safe. */
	if (sc->free == SCALIO_SC_NONE) {
		sc->free_data(data);
		return evicted;
	}
	k = sc->free;
	e = &sc->ents[k];
	sc->free = e->next;
	*e = (struct scalio_sc_ent) {
		.data = data, .seg = seg, .gen = gen, .units = units, .key = i,
		.hnext = *scalio_sc_head(sc, i),
	};
	*scalio_sc_head(sc, i) = k;
	sc->used += units;
	scalio_sc_link_mru(sc, k);
	return evicted;
}

/**
 * scalio_sc_take() - remove bucket @i's entry and hand its buffer back
 * @sc:		cache
 * @i:		owned index of the bucket
 * @units:	size the caller wants to reuse the buffer for
 *
 * Return: the entry's data if it had exactly @units units (the caller
 * now owns it), else NULL (the entry, if any, is dropped).
 */
void *scalio_sc_take(struct scalio_segcache *sc, u32 i, u32 units)
{
	u32 e = scalio_sc_find(sc, i);

	if (e == SCALIO_SC_NONE)
		return NULL;
	if (sc->ents[e].units != units) {
		sc->free_data(scalio_sc_remove(sc, e));
		return NULL;
	}
	return scalio_sc_remove(sc, e);
}

/* Forget bucket @i's entry (its segment moved, or it has none now). */
void scalio_sc_drop(struct scalio_segcache *sc, u32 i)
{
	u32 e = scalio_sc_find(sc, i);

	if (e != SCALIO_SC_NONE)
		sc->free_data(scalio_sc_remove(sc, e));
}

/* Forget every entry (counters are kept). */
void scalio_sc_clear(struct scalio_segcache *sc)
{
	while (sc->lru != SCALIO_SC_NONE)
		sc->free_data(scalio_sc_remove(sc, sc->lru));
}
