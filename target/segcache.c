// SPDX-License-Identifier: GPL-2.0
/*
 * The segment cache: recently written segments kept in DRAM, so that the
 * next batch touching a bucket takes its records from memory instead of
 * reading its current segment from the SSD (commit.c, scalio_tgt_tb_load()).
 *
 * One cache per SSD, owned by that SSD's commit kthread like the rest of
 * the log state: no locking.  The bookkeeping (exact-match lookups, LRU,
 * budget) is common/scalio_segcache.c; this file sizes it from the store's
 * attr_seg_cache_mb, owns the buffers and counts hits, misses and
 * evictions in the store's stats.
 *
 * What makes a cached image safe to use:
 *   - it is stored only after the batch holding it is durable and its seg
 *     word published (scalio_tgt_batch_write(), for client batches and for the
 *     cleaner's relocations alike), so a failed write leaves nothing;
 *   - a lookup hits only when the entry's seg word and full generation are
 *     exactly the bucket's current ones, so an image of a segment that has
 *     since moved (by any path) is dropped, never served;
 *   - at every enable it starts empty and recovery fills it, while it
 *     has room, with segments read from the SSD that passed the commit
 *     path's own checks (recovery.c, scalio_tgt_count_keys()).
 */
#define pr_fmt(fmt) "scalio-target: segcache: " fmt

#include <linux/mm.h>
#include <linux/slab.h>

#include "scalio_store.h"

static void scalio_tgt_segcache_free_data(void *data)
{
	kvfree(data);
}

/**
 * scalio_tgt_segcache_alloc() - set up @ssd's cache (empty)
 * @ssd:	SSD; its commit state is allocated
 *
 * The store's attr_seg_cache_mb is split evenly over its SSDs.
 *
 * Return: 0 or -ENOMEM.
 */
int scalio_tgt_segcache_alloc(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 cap = ((u64)st->seg_cache_mb << (20 - SCALIO_UNIT_SHIFT)) /
		  st->nr_ssds;

	c->sc_bytes = scalio_sc_mem_bytes(c->nr_owned, cap);
	c->sc_mem = kvmalloc(c->sc_bytes, GFP_KERNEL);
	if (!c->sc_mem)
		return -ENOMEM;
	scalio_sc_init(&c->sc, c->sc_mem, c->nr_owned, cap,
		       scalio_tgt_segcache_free_data);
	return 0;
}

void scalio_tgt_segcache_free(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_commit *c = ssd->commit;

	if (!c->sc_mem)
		return;
	scalio_sc_clear(&c->sc);
	kvfree(c->sc_mem);
	c->sc_mem = NULL;
}

/**
 * scalio_tgt_segcache_lookup() - the cached image of @bucket's current segment
 * @ssd:	SSD owning @bucket (commit kthread)
 * @bucket:	bucket
 * @seg:	its current seg word (nonzero)
 * @gen:	its current full generation
 *
 * Return: the image, valid until the batch being built is reset (nothing
 * replaces or evicts entries before the batch's segments are built), or
 * NULL: read the segment from the SSD.
 */
const void *scalio_tgt_segcache_lookup(struct scalio_tgt_ssd *ssd, u32 bucket,
				       u64 seg, u64 gen)
{
	struct scalio_tgt_commit *c = ssd->commit;
	const void *data;

	if (!c->sc.cap)
		return NULL;	/* disabled: not a miss worth counting */
	data = scalio_sc_lookup(&c->sc, scalio_tgt_owned_idx(ssd, bucket), seg,
				gen);
	scalio_tgt_stat_add(ssd->store, data ? SCALIO_TS_SEGCACHE_HITS :
			    SCALIO_TS_SEGCACHE_MISSES, 1);
	return data;
}

/**
 * scalio_tgt_segcache_publish() - remember a segment that is now durable
 * @ssd:	SSD owning @bucket (commit kthread)
 * @bucket:	bucket
 * @seg:	the seg word just published (0: the bucket has no segment)
 * @gen:	its full generation
 * @img:	the segment (header checked or built here; its len bytes
 *		are copied)
 *
 * Call only after the write that holds the segment completed and the seg
 * word was published.  Any older image of @bucket is dropped.
 */
void scalio_tgt_segcache_publish(struct scalio_tgt_ssd *ssd, u32 bucket, u64 seg,
				 u64 gen, const void *img)
{
	struct scalio_tgt_commit *c = ssd->commit;
	u32 i = scalio_tgt_owned_idx(ssd, bucket);
	u32 len = le32_to_cpu(((const struct scalio_seg_hdr *)img)->len);
	u32 units = DIV_ROUND_UP(len, SCALIO_UNIT_SIZE);
	size_t bytes = (size_t)units << SCALIO_UNIT_SHIFT;
	void *data;
	u32 evicted;

	if (!seg || len > SCALIO_SEG_MAX_BYTES ||
	    !scalio_sc_admits(&c->sc, units)) {
		scalio_sc_drop(&c->sc, i);
		return;
	}
	data = scalio_sc_take(&c->sc, i, units);
	if (!data)
		data = kvmalloc(bytes, GFP_KERNEL | __GFP_NOWARN);
	if (!data)
		return;		/* no memory: simply not cached */
	memcpy(data, img, len);
	memset(data + len, 0, bytes - len);
	evicted = scalio_sc_store(&c->sc, i, seg, gen, data, units);
	if (evicted)
		scalio_tgt_stat_add(ssd->store, SCALIO_TS_SEGCACHE_EVICTIONS,
				    evicted);
}
