// SPDX-License-Identifier: GPL-2.0
/*
 * scalio-target: store enable/disable, module parameters and statistics.
 *
 * A store is configured through configfs (configfs.c) and brought up by
 * scalio_tgt_store_enable(), which validates the whole configuration before
 * touching anything, then opens the SSDs, allocates the DRAM index,
 * formats or recovers every SSD into it, starts one commit kthread per SSD
 * and finally hands the store to the transport (rdma.c), which starts
 * listening.  scalio_tgt_store_disable() undoes this in reverse: the transport
 * goes first so that no new work arrives, then the live reference is
 * killed and waited for (every connection and every request in flight
 * holds one), then the commit kthreads stop (each writes a final
 * checkpoint) and everything is closed and freed.
 *
 * Locking: see scalio_target.h.  Lock order: store->lock, then
 * scalio_tgt_stores_lock.  store->enabled changes under both, so that
 * scalio_tgt_store_get_live() (stores lock only) never touches the percpu_ref
 * of a store that is not fully up.
 */
#define pr_fmt(fmt) "scalio-target: " fmt

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "scalio_store.h"

DEFINE_MUTEX(scalio_tgt_stores_lock);
LIST_HEAD(scalio_tgt_stores);

/* Module parameters only seed the attributes of new stores. */
static unsigned int nr_blocks = SCALIO_DEF_NR_BLOCKS;
module_param(nr_blocks, uint, 0444);
MODULE_PARM_DESC(nr_blocks, "Default hash blocks per store (power of two)");

static unsigned int nr_buckets;
module_param(nr_buckets, uint, 0444);
MODULE_PARM_DESC(nr_buckets,
		 "Default buckets per store (power of two >= nr_blocks; 0 = as formatted, or as many as blocks)");

static unsigned int slots_per_block = SCALIO_DEF_SLOTS;
module_param(slots_per_block, uint, 0444);
MODULE_PARM_DESC(slots_per_block, "Default slots per block (4, 8 or 16)");

static unsigned int batch_max = SCALIO_DEF_BATCH_MAX;
module_param(batch_max, uint, 0444);
MODULE_PARM_DESC(batch_max, "Default most requests per group commit (1..1024)");

static unsigned int batch_timeout_us = SCALIO_DEF_BATCH_TIMEOUT_US;
module_param(batch_timeout_us, uint, 0444);
MODULE_PARM_DESC(batch_timeout_us,
		 "Default cap on a request's wait for company, us (0 = never wait, ..100000)");

static unsigned int lease_ms = SCALIO_DEF_LEASE_MS;
module_param(lease_ms, uint, 0444);
MODULE_PARM_DESC(lease_ms, "Default slot lock lease, ms (10..10000)");

static unsigned int kato_ms = SCALIO_KATO_DEF_MS;
module_param(kato_ms, uint, 0444);
MODULE_PARM_DESC(kato_ms,
		 "Default keep-alive timeout: a client silent this long is disconnected, ms (3000..3600000)");

static bool offload_read = true;
module_param(offload_read, bool, 0444);
MODULE_PARM_DESC(offload_read, "Default: hosts read the SSDs directly");

static bool inline_cache = true;
module_param(inline_cache, bool, 0444);
MODULE_PARM_DESC(inline_cache, "Default: values cached in index slots");

static unsigned int seg_cache_mb = SCALIO_DEF_SEG_CACHE_MB;
module_param(seg_cache_mb, uint, 0444);
MODULE_PARM_DESC(seg_cache_mb,
		 "Default MiB of recently written segments kept in DRAM per store (0 = off)");

static unsigned int value_inline_max = SCALIO_DEF_VALUE_INLINE_MAX;
module_param(value_inline_max, uint, 0444);
MODULE_PARM_DESC(value_inline_max,
		 "Default: values longer than this many bytes are stored apart from their keys (0..4096; 4096: never)");

void scalio_tgt_store_set_defaults(struct scalio_tgt_store *st)
{
	st->nr_blocks = nr_blocks;
	st->nr_buckets_attr = nr_buckets;
	st->slots = slots_per_block;
	st->batch_max = batch_max;
	st->batch_timeout_us = batch_timeout_us;
	st->lease_ms = lease_ms;
	st->offload_read = offload_read;
	st->inline_cache = inline_cache;
	st->seg_cache_mb = seg_cache_mb;
	st->value_inline_max = min_t(u32, value_inline_max, SCALIO_VALUE_MAX);
	st->kato_ms = kato_ms;
	st->trsvcid = SCALIO_DEFAULT_PORT;
	st->max_clients = SCALIO_DEF_MAX_CLIENTS;
	st->max_host_clients = SCALIO_DEF_MAX_HOST_CLIENTS;
}

int scalio_tgt_params_check(void)
{
	/* The uAPI's attribute limits must fit the on-SSD format's. */
	BUILD_BUG_ON(SCALIO_NR_BLOCKS_MAX > SCALIO_MAX_BLOCKS);
	BUILD_BUG_ON(SCALIO_NR_BUCKETS_MAX > SCALIO_MAX_BUCKETS);
	BUILD_BUG_ON(SCALIO_BATCH_MAX_LIMIT > SCALIO_TB_MAX);
	if (!is_power_of_2(nr_blocks) || nr_blocks > SCALIO_NR_BLOCKS_MAX ||
	    (nr_buckets && !scalio_buckets_valid(nr_buckets, nr_blocks)) ||
	    !scalio_slots_valid(slots_per_block) ||
	    !batch_max || batch_max > SCALIO_BATCH_MAX_LIMIT ||
	    batch_timeout_us > SCALIO_BATCH_TIMEOUT_MAX_US ||
	    lease_ms < SCALIO_LEASE_MIN_MS || lease_ms > SCALIO_LEASE_MAX_MS ||
	    seg_cache_mb > SCALIO_SEG_CACHE_MB_MAX ||
	    kato_ms < SCALIO_KATO_MIN_MS || kato_ms > SCALIO_KATO_MAX_MS) {
		pr_err("invalid module parameters\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * Validate the whole configuration of @st before anything is allocated,
 * and set st->nr_ssds.  Every reason to refuse is logged.
 */
/*
 * What enabling @st with @n SSDs allocates, by far the most of it sized by
 * the geometry: the index blocks, per bucket two seg words, a generation,
 * a batch slot and a checkpoint entry, the segment cache's bookkeeping
 * (bounded by its budget), per SSD the batch and arena buffers.  A geometry that
 * needs more than half of the memory available is refused with -ENOMEM
 * and a message, before anything is allocated (rather than the
 * allocations failing late or the OOM killer stepping in).
 */
static int scalio_tgt_store_mem_check(struct scalio_tgt_store *st, u32 n)
{
	u64 need, avail = (u64)si_mem_available() << PAGE_SHIFT;

	need = (u64)st->nr_blocks * SCALIO_BLOCK_SIZE(st->slots) +
	       (u64)st->nr_buckets * (3 * sizeof(u64) + sizeof(u16) +
				      sizeof(struct scalio_ckpt_entry)) +
	       scalio_sc_mem_bytes(st->nr_buckets,
				   (u64)st->seg_cache_mb <<
				   (20 - SCALIO_UNIT_SHIFT)) +
	       (u64)n * 2 * ((u64)SCALIO_BUF_UNITS << SCALIO_UNIT_SHIFT);
	if (need > avail / 2) {
		pr_err("%s: attr_nr_blocks %u x attr_slots_per_block %u, attr_nr_buckets %u on %u SSD(s) needs %llu MiB; %llu MiB are available\n",
		       st->name, st->nr_blocks, st->slots, st->nr_buckets, n,
		       need >> 20,
		       avail >> 20);
		return -ENOMEM;
	}
	return 0;
}

static int scalio_tgt_store_validate(struct scalio_tgt_store *st)
{
	u32 n, i, j;
	int ret;

	for (n = 0; n < SCALIO_MAX_SSDS && st->ssds[n]; n++)
		;
	if (!n) {
		pr_err("%s: no SSDs configured (mkdir ssds/0)\n", st->name);
		return -EINVAL;
	}
	for (i = n; i < SCALIO_MAX_SSDS; i++) {
		if (st->ssds[i]) {
			pr_err("%s: SSDs must be numbered 0..n-1: ssd %u exists but ssd %u does not\n",
			       st->name, i, n);
			return -EINVAL;
		}
	}
	for (i = 0; i < n; i++) {
		struct scalio_tgt_ssd *ssd = st->ssds[i];

		if (!ssd->device_path[0] || !ssd->nqn[0]) {
			pr_err("%s: ssd %u needs device_path and nqn\n",
			       st->name, i);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(ssd->device_path,
				    st->ssds[j]->device_path)) {
				pr_err("%s: ssds %u and %u are both %s\n",
				       st->name, j, i, ssd->device_path);
				return -EINVAL;
			}
		}
	}
	if (!is_power_of_2(st->nr_blocks) || st->nr_blocks < n) {
		pr_err("%s: attr_nr_blocks %u must be a power of two >= the %u SSDs\n",
		       st->name, st->nr_blocks, n);
		return -EINVAL;
	}
	if (!scalio_slots_valid(st->slots)) {
		pr_err("%s: attr_slots_per_block must be 4, 8 or 16\n",
		       st->name);
		return -EINVAL;
	}
	st->nr_buckets = st->nr_buckets_attr ?: st->nr_blocks;
	if (!scalio_buckets_valid(st->nr_buckets, st->nr_blocks)) {
		pr_err("%s: attr_nr_buckets %u must be 0 or a power of two from attr_nr_blocks (%u) to %u times that, at most %u\n",
		       st->name, st->nr_buckets_attr, st->nr_blocks,
		       SCALIO_BUCKETS_PER_BLOCK_MAX, SCALIO_NR_BUCKETS_MAX);
		return -EINVAL;
	}
	if (!st->batch_max || st->batch_max > SCALIO_BATCH_MAX_LIMIT ||
	    st->batch_timeout_us > SCALIO_BATCH_TIMEOUT_MAX_US) {
		pr_err("%s: bad batch attributes\n", st->name);
		return -EINVAL;
	}
	if (st->seg_cache_mb > SCALIO_SEG_CACHE_MB_MAX) {
		pr_err("%s: attr_seg_cache_mb must be at most %u\n",
		       st->name, SCALIO_SEG_CACHE_MB_MAX);
		return -EINVAL;
	}
	if (!st->traddr[0] || !st->trsvcid || st->trsvcid > 65535) {
		pr_err("%s: addr_traddr and addr_trsvcid must be set\n",
		       st->name);
		return -EINVAL;
	}
	ret = scalio_tgt_store_mem_check(st, n);
	if (ret)
		return ret;
	st->nr_ssds = n;
	return 0;
}

static void scalio_tgt_store_live_release(struct percpu_ref *ref)
{
	struct scalio_tgt_store *st = container_of(ref, struct scalio_tgt_store,
						   live);

	complete(&st->live_done);
}

/* Make @st invisible to scalio_tgt_store_get_live() and drain its users. */
static void scalio_tgt_store_drain(struct scalio_tgt_store *st)
{
	percpu_ref_kill(&st->live);
	wait_for_completion(&st->live_done);
	percpu_ref_exit(&st->live);
}

static void scalio_tgt_store_set_enabled(struct scalio_tgt_store *st, bool on)
{
	mutex_lock(&scalio_tgt_stores_lock);
	st->enabled = on;
	mutex_unlock(&scalio_tgt_stores_lock);
}

/**
 * scalio_tgt_store_enable() - bring a configured store up
 * @st:		store; st->lock held
 *
 * Return: 0 (also if already enabled), or a negative errno with nothing
 * left allocated or open.
 */
int scalio_tgt_store_enable(struct scalio_tgt_store *st)
{
	u32 i, n;
	int ret, k;

	lockdep_assert_held(&st->lock);
	if (st->enabled)
		return 0;
	/* The report tells about this enable only. */
	st->report_len = 0;
	if (st->report)
		st->report[0] = '\0';
	ret = scalio_tgt_store_validate(st);
	if (ret)
		return ret;
	n = st->nr_ssds;
	memset(st->uuid, 0, sizeof(st->uuid));
	/* Nothing adds to them while the store is disabled. */
	for_each_possible_cpu(k)
		memset(per_cpu_ptr(st->stats, k), 0, sizeof(*st->stats));

	for (i = 0; i < n; i++) {
		ret = scalio_tgt_ssd_open(st->ssds[i]);
		if (ret)
			goto out_close;
	}
	/* attr_nr_buckets 0: the count SSD 0 was formatted with, if valid. */
	if (!st->nr_buckets_attr && !st->format_on_enable) {
		u32 nb = scalio_tgt_sb_buckets(st->ssds[0]);

		if (nb != st->nr_buckets &&
		    scalio_buckets_valid(nb, st->nr_blocks)) {
			st->nr_buckets = nb;
			ret = scalio_tgt_store_mem_check(st, n);
			if (ret)
				goto out_close;
		}
	}
	ret = scalio_tgt_index_alloc(&st->index, st->nr_blocks, st->nr_buckets,
				     st->slots, n);
	if (ret)
		goto out_close;
	for (i = 0; i < n; i++) {
		ret = scalio_tgt_commit_alloc(st->ssds[i]);
		if (ret)
			goto out_free_commit;
	}
	/* SSD 0 first: it decides between formatting and recovering. */
	for (i = 0; i < n; i++) {
		ret = scalio_tgt_recover_ssd(st->ssds[i]);
		if (ret)
			goto out_free_commit;
	}
	for (i = 0; i < n; i++) {
		ret = scalio_tgt_commit_start(st->ssds[i]);
		if (ret)
			goto out_stop;
	}
	reinit_completion(&st->live_done);
	ret = percpu_ref_init(&st->live, scalio_tgt_store_live_release, 0,
			      GFP_KERNEL);
	if (ret)
		goto out_stop;
	scalio_tgt_store_set_enabled(st, true);

	ret = scalio_tgt_rdma_store_enable(st);
	if (ret) {
		pr_err("%s: cannot listen on %s:%u: %d\n", st->name,
		       st->traddr, st->trsvcid, ret);
		goto out_live;
	}
	/* One-shot actions: a later enable recovers, and refuses damage. */
	st->format_on_enable = false;
	st->force_recover = false;
	pr_info("%s: enabled: %u SSD(s), %u blocks x %u slots, %u buckets, batch_max %u, listening on %s:%u\n",
		st->name, n, st->nr_blocks, st->slots, st->nr_buckets,
		st->batch_max,
		st->traddr, st->trsvcid);
	return 0;

out_live:
	scalio_tgt_store_set_enabled(st, false);
	scalio_tgt_store_drain(st);
out_stop:
	for (i = 0; i < n; i++)
		scalio_tgt_commit_stop(st->ssds[i]);
out_free_commit:
	for (i = 0; i < n; i++)
		scalio_tgt_commit_free(st->ssds[i]);
	scalio_tgt_index_free(&st->index);
out_close:
	for (i = 0; i < n; i++)
		scalio_tgt_ssd_close(st->ssds[i]);
	return ret;
}

/**
 * scalio_tgt_store_disable() - take a store down
 * @st:		store; st->lock held
 *
 * Waits for every connection and request to finish; the commit kthreads
 * write a final checkpoint before they exit.
 */
void scalio_tgt_store_disable(struct scalio_tgt_store *st)
{
	u32 i, n = st->nr_ssds;

	lockdep_assert_held(&st->lock);
	if (!st->enabled)
		return;
	/* No new live references from now on, then stop the transport. */
	scalio_tgt_store_set_enabled(st, false);
	scalio_tgt_rdma_store_disable(st);
	scalio_tgt_store_drain(st);

	for (i = 0; i < n; i++)
		scalio_tgt_commit_stop(st->ssds[i]);
	for (i = 0; i < n; i++)
		scalio_tgt_commit_free(st->ssds[i]);
	scalio_tgt_index_free(&st->index);
	for (i = 0; i < n; i++)
		scalio_tgt_ssd_close(st->ssds[i]);
	pr_info("%s: disabled\n", st->name);
}

struct scalio_tgt_store *scalio_tgt_store_get_live(const char *name)
{
	struct scalio_tgt_store *st, *found = NULL;

	mutex_lock(&scalio_tgt_stores_lock);
	list_for_each_entry(st, &scalio_tgt_stores, entry) {
		if (strncmp(st->name, name, SCALIO_NAME_MAX))
			continue;
		if (st->enabled && percpu_ref_tryget_live(&st->live))
			found = st;
		break;
	}
	mutex_unlock(&scalio_tgt_stores_lock);
	return found;
}

static u64 scalio_tgt_stat_sum(struct scalio_tgt_store *st,
			       enum scalio_tgt_tstat i)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(st->stats, cpu)->v[i]);
	return sum;
}

/**
 * scalio_tgt_store_stats() - snapshot of a store's counters
 * @st:		store; a live reference or st->lock held
 * @out:	filled (zeroes for log figures when the store is disabled)
 */
void scalio_tgt_store_stats(struct scalio_tgt_store *st,
			    struct scalio_target_stats *out)
{
	u32 i;

	memset(out, 0, sizeof(*out));
	out->rpc_gets = scalio_tgt_stat_sum(st, SCALIO_TS_RPC_GETS);
	out->rpc_puts = scalio_tgt_stat_sum(st, SCALIO_TS_RPC_PUTS);
	out->rpc_deletes = scalio_tgt_stat_sum(st, SCALIO_TS_RPC_DELETES);
	out->rpc_other = scalio_tgt_stat_sum(st, SCALIO_TS_RPC_OTHER);
	out->ssd_reads = scalio_tgt_stat_sum(st, SCALIO_TS_SSD_READS);
	out->ssd_writes = scalio_tgt_stat_sum(st, SCALIO_TS_SSD_WRITES);
	out->ssd_write_bytes =
		scalio_tgt_stat_sum(st, SCALIO_TS_SSD_WRITE_BYTES);
	out->batches = scalio_tgt_stat_sum(st, SCALIO_TS_BATCHES);
	out->batched_ops = scalio_tgt_stat_sum(st, SCALIO_TS_BATCHED_OPS);
	out->cleaner_runs = scalio_tgt_stat_sum(st, SCALIO_TS_CLEANER_RUNS);
	out->cleaner_moved =
		scalio_tgt_stat_sum(st, SCALIO_TS_CLEANER_MOVED);
	out->cpu_ns_commit =
		scalio_tgt_stat_sum(st, SCALIO_TS_CPU_NS_COMMIT);
	out->cpu_ns_rpc = scalio_tgt_stat_sum(st, SCALIO_TS_CPU_NS_RPC);
	out->cpu_ns_cleaner =
		scalio_tgt_stat_sum(st, SCALIO_TS_CPU_NS_CLEANER);
	out->seg_cache_hits =
		scalio_tgt_stat_sum(st, SCALIO_TS_SEGCACHE_HITS);
	out->seg_cache_misses =
		scalio_tgt_stat_sum(st, SCALIO_TS_SEGCACHE_MISSES);
	out->seg_cache_evictions =
		scalio_tgt_stat_sum(st, SCALIO_TS_SEGCACHE_EVICTIONS);
	out->commit_write_ns =
		scalio_tgt_stat_sum(st, SCALIO_TS_COMMIT_WRITE_NS);
	out->commit_wait_ns =
		scalio_tgt_stat_sum(st, SCALIO_TS_COMMIT_WAIT_NS);
	out->vals_written = scalio_tgt_stat_sum(st, SCALIO_TS_VALS_WRITTEN);
	out->val_bytes_written =
		scalio_tgt_stat_sum(st, SCALIO_TS_VAL_BYTES_WRITTEN);
	out->vals_moved = scalio_tgt_stat_sum(st, SCALIO_TS_VALS_MOVED);
	out->blocks_retired =
		scalio_tgt_stat_sum(st, SCALIO_TS_BLOCKS_RETIRED);

	if (!st->enabled)
		return;
	out->index_bytes = st->index.bytes;
	for (i = 0; i < st->nr_ssds; i++) {
		struct scalio_tgt_ssd *ssd = st->ssds[i];

		if (!ssd || !ssd->commit)
			continue;
		out->log_used_units += READ_ONCE(ssd->log.used_units);
		out->log_total_units += le64_to_cpu(ssd->log.sb.log_units);
		out->keys += READ_ONCE(ssd->commit->keys);
		out->live_bytes += READ_ONCE(ssd->commit->live_bytes);
		out->live_val_bytes += READ_ONCE(ssd->commit->live_val_bytes);
		/*
		 * Per owned bucket a generation, a batch slot and a checkpoint
		 * entry; the segment cache's bookkeeping (sized by its budget).
		 */
		out->index_bytes += (u64)ssd->commit->nr_owned *
				    (sizeof(*ssd->gens) +
				     sizeof(*ssd->commit->tb_of) +
				     sizeof(struct scalio_ckpt_entry)) +
				    ssd->commit->sc_bytes;
		if (scalio_tgt_commit_failed(ssd))
			out->ssd_failed |= 1ULL << i;
	}
}
