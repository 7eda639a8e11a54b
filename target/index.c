// SPDX-License-Identifier: GPL-2.0
/*
 * The DRAM hash index of a store.
 *
 * The index is what clients read, CAS and write with one-sided RDMA, so
 * its memory is laid out for registration: a header page and chunks of at
 * most SCALIO_INDEX_CHUNK_BYTES (one fast-registration MR each under
 * rxe), every one vmalloc'ed, page aligned and a whole number of pages,
 * each holding whole blocks, and beside each chunk the page-aligned
 * published seg words of its blocks' buckets.  All memory starts zeroed:
 * every ctl word is then state A (empty, version 0) and every seg word is
 * 0 (no segment) until recovery publishes the buckets' segments.
 *
 * Trust: clients may write every byte of the block chunks, so the target
 * never reads them.  The seg words it trusts live in @segs, plain kernel
 * memory no MR covers; the published copy is registered read-only.
 *
 * After registration the target CPU writes only two kinds of words, both
 * in read-only memory: the clock in the header (from a timer) and the
 * published seg words (from the commit kthreads), each with one aligned
 * 8-byte store so that an RDMA READ sees either the old or the new value.
 * It never writes a word clients CAS.
 */
#define pr_fmt(fmt) "scalio-target: index: " fmt

#include <linux/module.h>
#include <linux/vmalloc.h>
#include <linux/jiffies.h>
#include <linux/log2.h>

#include "scalio_target.h"

/*
 * The clock: milliseconds since boot, derived from jiffies, so it advances
 * SCALIO_CLOCK_HZ units per second on average whatever HZ is and however
 * late the timer fires; it only ever grows, also across a disable and
 * enable of the store.
 */
static u64 scalio_tgt_clock_now(void)
{
	return jiffies64_to_msecs(get_jiffies_64() - INITIAL_JIFFIES);
}

static void scalio_tgt_clock_tick(struct timer_list *t)
{
	struct scalio_tgt_index *idx = from_timer(idx, t, clock_timer);

	WRITE_ONCE(idx->hdr->clock, cpu_to_le64(scalio_tgt_clock_now()));
	/* One jiffy: 1..10 ms depending on HZ; finer is pointless. */
	mod_timer(&idx->clock_timer, jiffies + 1);
}

/**
 * scalio_tgt_index_alloc() - allocate and initialise a store's index
 * @idx:	zeroed or freed index
 * @nr_blocks:	power of two
 * @nr_buckets:	power of two, nr_blocks..nr_blocks *
 *		SCALIO_BUCKETS_PER_BLOCK_MAX
 * @slots:	4, 8 or 16
 * @nr_ssds:	SSDs of the store (recorded in the header)
 *
 * Also starts the clock timer; scalio_tgt_index_free() stops it.
 *
 * Return: 0, -EINVAL for a bad geometry, -ENOMEM.
 */
int scalio_tgt_index_alloc(struct scalio_tgt_index *idx, u32 nr_blocks,
			   u32 nr_buckets, u32 slots, u32 nr_ssds)
{
	struct scalio_index_hdr *hdr;
	u32 i, first;

	BUILD_BUG_ON((u64)SCALIO_BUCKETS_PER_BLOCK_MAX * sizeof(u64) >
		     SCALIO_INDEX_CHUNK_BYTES);

	BUILD_BUG_ON(sizeof(struct scalio_index_hdr) > PAGE_SIZE);
	BUILD_BUG_ON(sizeof(struct scalio_slot) != SCALIO_SLOT_SIZE);
	BUILD_BUG_ON(sizeof(struct scalio_block_hdr) != SCALIO_BLOCK_HDR_SIZE);

	memset(idx, 0, sizeof(*idx));
	if (!scalio_buckets_valid(nr_buckets, nr_blocks) ||
	    !scalio_slots_valid(slots) ||
	    !nr_ssds || nr_ssds > SCALIO_MAX_SSDS)
		return -EINVAL;

	idx->nr_blocks = nr_blocks;
	idx->nr_buckets = nr_buckets;
	idx->bpb = nr_buckets / nr_blocks;
	idx->slots = slots;
	idx->block_size = SCALIO_BLOCK_SIZE(slots);
	/* Both a chunk and its seg words must fit one MR. */
	idx->blocks_per_chunk = min(SCALIO_INDEX_CHUNK_BYTES / idx->block_size,
				    SCALIO_INDEX_CHUNK_BYTES /
				    (u32)(idx->bpb * sizeof(u64)));
	idx->nr_chunks = DIV_ROUND_UP(nr_blocks, idx->blocks_per_chunk);

	idx->hdr = vzalloc(PAGE_SIZE);
	if (!idx->hdr)
		goto out_nomem;
	idx->chunks = kcalloc(idx->nr_chunks, sizeof(*idx->chunks),
			      GFP_KERNEL);
	if (!idx->chunks)
		goto out_nomem;
	idx->segs = kvcalloc(nr_buckets, sizeof(*idx->segs), GFP_KERNEL);
	if (!idx->segs)
		goto out_nomem;
	idx->bytes = PAGE_SIZE + (u64)nr_buckets * sizeof(*idx->segs);

	for (i = 0, first = 0; i < idx->nr_chunks; i++) {
		struct scalio_tgt_index_chunk *c = &idx->chunks[i];

		c->first_block = first;
		c->nr_blocks = min(idx->blocks_per_chunk, nr_blocks - first);
		c->bytes = PAGE_ALIGN((size_t)c->nr_blocks * idx->block_size);
		/* vmalloc memory is page aligned and comes zeroed here. */
		c->mem = vzalloc(c->bytes);
		if (!c->mem)
			goto out_nomem;
		c->seg_bytes = PAGE_ALIGN((size_t)c->nr_blocks * idx->bpb *
					  sizeof(u64));
		c->seg_mem = vzalloc(c->seg_bytes);
		if (!c->seg_mem)
			goto out_nomem;
		idx->bytes += c->bytes + c->seg_bytes;
		first += c->nr_blocks;
	}

	hdr = idx->hdr;
	hdr->magic = cpu_to_le64(SCALIO_INDEX_MAGIC);
	hdr->version = cpu_to_le32(SCALIO_INDEX_VERSION);
	hdr->nr_blocks = cpu_to_le32(nr_blocks);
	hdr->slots_per_block = cpu_to_le32(slots);
	hdr->block_size = cpu_to_le32(idx->block_size);
	hdr->nr_ssds = cpu_to_le32(nr_ssds);
	hdr->clock_hz = cpu_to_le32(SCALIO_CLOCK_HZ);
	hdr->clock = cpu_to_le64(scalio_tgt_clock_now());
	hdr->nr_buckets = cpu_to_le32(nr_buckets);

	timer_setup(&idx->clock_timer, scalio_tgt_clock_tick, 0);
	mod_timer(&idx->clock_timer, jiffies + 1);
	return 0;

out_nomem:
	pr_err("cannot allocate the index (%u blocks of %u bytes, %u buckets)\n",
	       nr_blocks, SCALIO_BLOCK_SIZE(slots), nr_buckets);
	scalio_tgt_index_free(idx);
	return -ENOMEM;
}

/* Stops the clock and frees everything; safe on a partly built index. */
void scalio_tgt_index_free(struct scalio_tgt_index *idx)
{
	u32 i;

	if (idx->clock_timer.function)
		del_timer_sync(&idx->clock_timer);
	if (idx->chunks) {
		for (i = 0; i < idx->nr_chunks; i++) {
			vfree(idx->chunks[i].mem);
			vfree(idx->chunks[i].seg_mem);
		}
		kfree(idx->chunks);
	}
	kvfree(idx->segs);
	vfree(idx->hdr);
	memset(idx, 0, sizeof(*idx));
}

void scalio_tgt_index_set_seg(struct scalio_tgt_index *idx, u32 bucket,
			      u64 seg)
{
	u32 pos = scalio_bucket_pos(bucket, idx->nr_blocks, idx->bpb);
	u32 c = pos / idx->bpb / idx->blocks_per_chunk;
	u32 off = pos - idx->chunks[c].first_block * idx->bpb;

	/* RPC GETs read it concurrently (scalio_tgt_store_read()). */
	WRITE_ONCE(idx->segs[bucket], seg);
	/* One aligned 8-byte store: RDMA readers see old or new, whole. */
	WRITE_ONCE(idx->chunks[c].seg_mem[off], cpu_to_le64(seg));
}

u64 scalio_tgt_index_get_seg(struct scalio_tgt_index *idx, u32 bucket)
{
	return READ_ONCE(idx->segs[bucket]);
}

u64 scalio_tgt_index_clock(struct scalio_tgt_index *idx)
{
	return le64_to_cpu(READ_ONCE(idx->hdr->clock));
}

/* The block header of cache block @b. */
static struct scalio_block_hdr *scalio_tgt_index_block_hdr(struct scalio_tgt_index *idx,
							  u32 b)
{
	struct scalio_tgt_index_chunk *c = &idx->chunks[b / idx->blocks_per_chunk];

	return c->mem + (size_t)(b - c->first_block) * idx->block_size;
}

/**
 * scalio_tgt_index_epoch_next() - a block epoch no fill can have read yet
 * @idx:	index
 *
 * Block epochs (struct scalio_block_hdr) come from a counter of the
 * target's own, never from the words clients can write, and only ever
 * move to values no block has had.  The seg words of the writes a retire
 * covers must be published before: this orders them before the epochs
 * the caller then stores.
 *
 * Return: the epoch to give the blocks retired now.
 */
u64 scalio_tgt_index_epoch_next(struct scalio_tgt_index *idx)
{
	u64 epoch = atomic64_inc_return(&idx->epoch);

	/* the retired writes' seg words reach readers before the epochs */
	wmb();
	return epoch;
}

/**
 * scalio_tgt_index_retire() - stop every host serving what a block caches
 * @idx:	index
 * @b:		cache block
 * @epoch:	from scalio_tgt_index_epoch_next()
 *
 * A C slot is served only under the epoch its filler read before its seg
 * READ: what was cached in @b is served no more, and a fill in flight
 * that read the old epoch publishes a slot nobody serves.
 */
void scalio_tgt_index_retire(struct scalio_tgt_index *idx, u32 b, u64 epoch)
{
	if (b < idx->nr_blocks)
		WRITE_ONCE(scalio_tgt_index_block_hdr(idx, b)->epoch,
			   cpu_to_le64(epoch));
}

/**
 * scalio_tgt_index_retire_all() - retire every block (scalio_tgt_index_retire())
 * @idx:	index
 *
 * Sleeps.  Return: blocks retired.
 */
u64 scalio_tgt_index_retire_all(struct scalio_tgt_index *idx)
{
	u64 epoch = scalio_tgt_index_epoch_next(idx);
	u32 b;

	for (b = 0; b < idx->nr_blocks; b++) {
		scalio_tgt_index_retire(idx, b, epoch);
		if (!(b % 4096))
			cond_resched();
	}
	return idx->nr_blocks;
}
