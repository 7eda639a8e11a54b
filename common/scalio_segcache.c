// SPDX-License-Identifier: GPL-2.0
/*
 * Segment cache bookkeeping (see scalio_segcache.h): an intrusive doubly
 * linked LRU threaded through an array indexed by owned bucket.
 */
#include "scalio_segcache.h"

void scalio_sc_init(struct scalio_segcache *sc, struct scalio_sc_ent *ents,
		    u32 nr, u64 cap_units, void (*free_data)(void *data))
{
	u32 i;

	memset(sc, 0, sizeof(*sc));
	sc->ents = ents;
	sc->nr = nr;
	sc->cap = cap_units;
	sc->mru = SCALIO_SC_NONE;
	sc->lru = SCALIO_SC_NONE;
	sc->free_data = free_data;
	for (i = 0; i < nr; i++)
		ents[i] = (struct scalio_sc_ent) {
			.prev = SCALIO_SC_NONE, .next = SCALIO_SC_NONE,
		};
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

/* Unlink entry @i and return its data (NULL if it had none). */
static void *scalio_sc_remove(struct scalio_segcache *sc, u32 i)
{
	struct scalio_sc_ent *e = &sc->ents[i];
	void *data = e->data;

	if (!data)
		return NULL;
	scalio_sc_unlink(sc, i);
	sc->used -= e->units;
	e->data = NULL;
	e->units = 0;
	e->seg = 0;
	e->gen = 0;
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
	struct scalio_sc_ent *e;

	if (i >= sc->nr) {
		sc->misses++;
		return NULL;
	}
	e = &sc->ents[i];
	if (e->data && (e->seg != seg || e->gen != gen))
		sc->free_data(scalio_sc_remove(sc, i));
	if (!e->data) {
		sc->misses++;
		return NULL;
	}
	sc->hits++;
	scalio_sc_unlink(sc, i);
	scalio_sc_link_mru(sc, i);
	return e->data;
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
 * entries until the budget holds.  A segment the budget cannot hold at
 * all (see scalio_sc_admits()) is freed at once and @i left uncached.
 *
 * Return: the number of entries evicted (replacement not counted).
 */
u32 scalio_sc_store(struct scalio_segcache *sc, u32 i, u64 seg, u64 gen,
		    void *data, u32 units)
{
	struct scalio_sc_ent *e;
	u32 evicted = 0;

	if (i >= sc->nr || !scalio_sc_admits(sc, units)) {
		if (i < sc->nr)
			scalio_sc_drop(sc, i);
		sc->free_data(data);
		return 0;
	}
	scalio_sc_drop(sc, i);
	while (sc->used + units > sc->cap && sc->lru != SCALIO_SC_NONE) {
		sc->free_data(scalio_sc_remove(sc, sc->lru));
		evicted++;
	}
	e = &sc->ents[i];
	e->data = data;
	e->seg = seg;
	e->gen = gen;
	e->units = units;
	sc->used += units;
	scalio_sc_link_mru(sc, i);
	sc->evictions += evicted;
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
	void *data;

	if (i >= sc->nr || !sc->ents[i].data)
		return NULL;
	if (sc->ents[i].units != units) {
		scalio_sc_drop(sc, i);
		return NULL;
	}
	data = scalio_sc_remove(sc, i);
	return data;
}

/* Forget bucket @i's entry (its segment moved, or it has none now). */
void scalio_sc_drop(struct scalio_segcache *sc, u32 i)
{
	if (i < sc->nr && sc->ents[i].data)
		sc->free_data(scalio_sc_remove(sc, i));
}

/* Forget every entry (counters are kept). */
void scalio_sc_clear(struct scalio_segcache *sc)
{
	while (sc->lru != SCALIO_SC_NONE)
		sc->free_data(scalio_sc_remove(sc, sc->lru));
}
