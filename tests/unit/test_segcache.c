// SPDX-License-Identifier: GPL-2.0
/*
 * Segment cache bookkeeping: hits only on the exact seg word and
 * generation, LRU eviction within the unit budget, replacement, buffer
 * reuse, a disabled cache, and a random walk checked against a reference
 * model (every buffer freed exactly once, as ASan confirms: LeakSanitizer
 * runs at the end of each test, see leakcheck.c).
 */
#include "kselftest_harness.h"
#include "common/scalio_segcache.h"

#define NR	64

/* Room for any cache of NR buckets (the pool is at most NR entries). */
static struct scalio_sc_ent ents[NR + NR / 4];
static int nr_freed;

static void free_data(void *p)
{
	nr_freed++;
	free(p);
}

static void *buf(u32 units)
{
	void *p = malloc(units);

	memset(p, 0x5a, units);
	return p;
}

/* Bucket @key's cached image, found without touching the LRU order. */
static void *cached(struct scalio_segcache *sc, u32 key)
{
	u32 e;

	for (e = 0; e < sc->nr_ents; e++)
		if (sc->ents[e].data && sc->ents[e].key == key)
			return sc->ents[e].data;
	return NULL;
}

/* Walk the list both ways and check it against @used. */
static void check_list(struct __test_metadata *_metadata,
		       struct scalio_segcache *sc)
{
	u32 i, n = 0, prev = SCALIO_SC_NONE;
	u64 used = 0;

	for (i = sc->mru; i != SCALIO_SC_NONE; i = sc->ents[i].next) {
		EXPECT_TRUE(sc->ents[i].data != NULL);
		EXPECT_EQ(sc->ents[i].prev, prev);
		used += sc->ents[i].units;
		prev = i;
		if (++n > sc->nr)
			break;
	}
	EXPECT_EQ(prev, sc->lru);
	EXPECT_EQ(used, sc->used);
	EXPECT_TRUE(sc->used <= sc->cap);
	for (i = 0, n = 0; i < sc->nr_ents; i++)
		n += sc->ents[i].data != NULL;
	/* Every entry in use is on the hash chain of its key. */
	for (i = 0, used = 0; i <= sc->hmask; i++) {
		u32 e, k = 0;

		for (e = sc->heads[i]; e != SCALIO_SC_NONE && k <= sc->nr_ents;
		     e = sc->ents[e].hnext, k++) {
			EXPECT_TRUE(sc->ents[e].data != NULL);
			EXPECT_TRUE(sc->ents[e].key < sc->nr);
		}
		used += k;
	}
	EXPECT_EQ(n, used);
	for (i = sc->mru, used = 0; i != SCALIO_SC_NONE && used <= sc->nr;
	     i = sc->ents[i].next)
		used++;
	EXPECT_EQ(n, used);
}

TEST(exact_match)
{
	struct scalio_segcache sc;

	scalio_sc_init(&sc, ents, NR, 100, free_data);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 3, 0x1234, 7) == NULL);
	EXPECT_EQ(sc.misses, 1);
	EXPECT_EQ(scalio_sc_store(&sc, 3, 0x1234, 7, buf(2), 2), 0);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 3, 0x1234, 7) != NULL);
	EXPECT_EQ(sc.hits, 1);
	/* Another generation under the same seg word: stale, dropped. */
	nr_freed = 0;
	EXPECT_TRUE(scalio_sc_lookup(&sc, 3, 0x1234, 8) == NULL);
	EXPECT_EQ(nr_freed, 1);
	EXPECT_EQ(sc.used, 0);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 3, 0x1234, 7) == NULL);
	/* Another seg word (the cleaner moved it): stale too. */
	scalio_sc_store(&sc, 3, 0x1234, 7, buf(2), 2);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 3, 0x9999, 7) == NULL);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 3, 0x1234, 7) == NULL);
	EXPECT_EQ(sc.misses, 5);
	/* Out of range never touches memory. */
	EXPECT_TRUE(scalio_sc_lookup(&sc, NR, 1, 1) == NULL);
	check_list(_metadata, &sc);
	scalio_sc_clear(&sc);
}

TEST(lru_order)
{
	struct scalio_segcache sc;
	u32 i;

	scalio_sc_init(&sc, ents, NR, 8, free_data);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(scalio_sc_store(&sc, i, 100 + i, i, buf(2), 2), 0);
	EXPECT_EQ(sc.used, 8);
	/* Touch 0: 1 is now the least recently used. */
	EXPECT_TRUE(scalio_sc_lookup(&sc, 0, 100, 0) != NULL);
	EXPECT_EQ(scalio_sc_store(&sc, 10, 110, 10, buf(2), 2), 1);
	EXPECT_TRUE(cached(&sc, 1) == NULL);
	EXPECT_TRUE(cached(&sc, 0) != NULL);
	EXPECT_EQ(sc.evictions, 1);
	/* A big one evicts as many as needed, oldest first. */
	EXPECT_EQ(scalio_sc_store(&sc, 11, 111, 11, buf(5), 5), 3);
	EXPECT_TRUE(cached(&sc, 10) != NULL && cached(&sc, 11) != NULL);
	EXPECT_TRUE(cached(&sc, 0) == NULL && cached(&sc, 2) == NULL &&
	      cached(&sc, 3) == NULL);
	EXPECT_EQ(sc.used, 7);
	check_list(_metadata, &sc);
	/* Replacing an entry is not an eviction. */
	EXPECT_EQ(scalio_sc_store(&sc, 11, 112, 12, buf(6), 6), 0);
	EXPECT_EQ(sc.used, 8);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 11, 111, 11) == NULL);
	check_list(_metadata, &sc);
	scalio_sc_clear(&sc);
	EXPECT_EQ(sc.used, 0);
	EXPECT_EQ(sc.mru, SCALIO_SC_NONE);
}

TEST(budget_limits)
{
	struct scalio_segcache sc;

	/* Disabled: nothing is kept, the buffer is freed. */
	scalio_sc_init(&sc, ents, NR, 0, free_data);
	EXPECT_TRUE(!scalio_sc_admits(&sc, 1));
	nr_freed = 0;
	scalio_sc_store(&sc, 1, 1, 1, buf(1), 1);
	EXPECT_EQ(nr_freed, 1);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 1, 1, 1) == NULL);
	/* Larger than the whole budget: dropped, and the old entry too. */
	scalio_sc_init(&sc, ents, NR, 4, free_data);
	scalio_sc_store(&sc, 1, 1, 1, buf(2), 2);
	scalio_sc_store(&sc, 2, 2, 2, buf(2), 2);
	scalio_sc_store(&sc, 1, 3, 3, buf(5), 5);
	EXPECT_TRUE(cached(&sc, 1) == NULL);
	EXPECT_TRUE(cached(&sc, 2) != NULL);
	EXPECT_EQ(sc.evictions, 0);
	check_list(_metadata, &sc);
	scalio_sc_clear(&sc);
}

TEST(take_reuse)
{
	struct scalio_segcache sc;
	void *p, *q;

	scalio_sc_init(&sc, ents, NR, 10, free_data);
	p = buf(3);
	scalio_sc_store(&sc, 5, 50, 5, p, 3);
	EXPECT_TRUE(scalio_sc_take(&sc, 5, 2) == NULL);	/* size differs: dropped */
	EXPECT_TRUE(cached(&sc, 5) == NULL);
	p = buf(3);
	scalio_sc_store(&sc, 5, 50, 5, p, 3);
	q = scalio_sc_take(&sc, 5, 3);
	EXPECT_TRUE(q == p);
	EXPECT_EQ(sc.used, 0);
	EXPECT_TRUE(scalio_sc_take(&sc, 5, 3) == NULL);
	scalio_sc_store(&sc, 5, 51, 6, q, 3);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 5, 51, 6) == q);
	scalio_sc_drop(&sc, 5);
	scalio_sc_drop(&sc, 5);
	EXPECT_EQ(sc.used, 0);
	check_list(_metadata, &sc);
}

/*
 * The pool is sized by the budget, not by the buckets: 1,000,000 buckets
 * and a budget of 4 units take 4 entries, and keys far apart share them.
 */
TEST(pool_by_budget)
{
	static struct scalio_sc_ent mem[8];
	struct scalio_segcache sc;
	u32 k;

	ASSERT_TRUE(scalio_sc_mem_bytes(1000000, 4) <= sizeof(mem));
	EXPECT_EQ(scalio_sc_mem_bytes(1000000, 4),
		  4 * sizeof(struct scalio_sc_ent) + 4 * sizeof(u32));
	EXPECT_EQ(scalio_sc_mem_bytes(3, 1000), 3 * sizeof(struct scalio_sc_ent) +
		  4 * sizeof(u32));
	scalio_sc_init(&sc, mem, 1000000, 4, free_data);
	EXPECT_EQ(sc.nr_ents, 4);
	for (k = 0; k < 4; k++)
		scalio_sc_store(&sc, k * 250000 + 7, k, k, buf(1), 1);
	for (k = 0; k < 4; k++)
		EXPECT_TRUE(scalio_sc_lookup(&sc, k * 250000 + 7, k, k) != NULL);
	/* A fifth evicts the least recently used (the first looked up). */
	EXPECT_EQ(scalio_sc_store(&sc, 999999, 9, 9, buf(1), 1), 1);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 7, 0, 0) == NULL);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 999999, 9, 9) != NULL);
	EXPECT_TRUE(scalio_sc_lookup(&sc, 1000000, 9, 9) == NULL);
	check_list(_metadata, &sc);
	scalio_sc_clear(&sc);
	EXPECT_EQ(sc.used, 0);
}

/* Reference: per block, the (seg, gen) cached and its last use. */
TEST(random_walk)
{
	struct scalio_segcache sc;
	u64 ref_seg[NR] = { 0 }, ref_gen[NR] = { 0 };
	unsigned int seed = 1, step;

	scalio_sc_init(&sc, ents, NR, 40, free_data);
	for (step = 0; step < 200000; step++) {
		u32 i = rand_r(&seed) % NR, units = 1 + rand_r(&seed) % 6;
		u64 seg = 1 + rand_r(&seed) % 3, gen = rand_r(&seed) % 2;
		const void *d;

		switch (rand_r(&seed) % 4) {
		case 0:
		case 1:
			d = scalio_sc_lookup(&sc, i, seg, gen);
			if (d) {
				EXPECT_EQ(ref_seg[i], seg);
				EXPECT_EQ(ref_gen[i], gen);
			}
			if (!d || ref_seg[i] != seg || ref_gen[i] != gen)
				ref_seg[i] = 0;
			break;
		case 2:
			scalio_sc_store(&sc, i, seg, gen, buf(units), units);
			ref_seg[i] = seg;
			ref_gen[i] = gen;
			break;
		default:
			scalio_sc_drop(&sc, i);
			ref_seg[i] = 0;
			break;
		}
		/* Evicted entries are simply absent: never a wrong hit. */
		if (!cached(&sc, i))
			ref_seg[i] = 0;
		if (!(step % 1000))
			check_list(_metadata, &sc);
		if (!_metadata->passed)
			break;
	}
	check_list(_metadata, &sc);
	EXPECT_TRUE(sc.hits > 1000 && sc.evictions > 1000);
	scalio_sc_clear(&sc);
}

TEST_HARNESS_MAIN
