/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counters of struct scalio_target_stats that configfs shows, in the
 * order of the lines of a store's stats file.  Included by configfs.c with
 * SCALIO_TGT_STAT(f) defined, once for stats and once for statistics/, so
 * the two cannot list different counters.  No include guard on purpose.
 */
SCALIO_TGT_STAT(rpc_gets)
SCALIO_TGT_STAT(rpc_puts)
SCALIO_TGT_STAT(rpc_deletes)
SCALIO_TGT_STAT(rpc_other)
SCALIO_TGT_STAT(ssd_reads)
SCALIO_TGT_STAT(ssd_writes)
SCALIO_TGT_STAT(ssd_write_bytes)
SCALIO_TGT_STAT(batches)
SCALIO_TGT_STAT(batched_ops)
SCALIO_TGT_STAT(cleaner_runs)
SCALIO_TGT_STAT(cleaner_moved)
SCALIO_TGT_STAT(cpu_ns_commit)
SCALIO_TGT_STAT(cpu_ns_rpc)
SCALIO_TGT_STAT(cpu_ns_cleaner)
SCALIO_TGT_STAT(log_used_units)
SCALIO_TGT_STAT(log_total_units)
SCALIO_TGT_STAT(keys)
SCALIO_TGT_STAT(ssd_failed)
SCALIO_TGT_STAT(seg_cache_hits)
SCALIO_TGT_STAT(seg_cache_misses)
SCALIO_TGT_STAT(seg_cache_evictions)
SCALIO_TGT_STAT(commit_write_ns)
SCALIO_TGT_STAT(commit_wait_ns)
SCALIO_TGT_STAT(live_bytes)
SCALIO_TGT_STAT(index_bytes)
SCALIO_TGT_STAT(vals_written)
SCALIO_TGT_STAT(val_bytes_written)
SCALIO_TGT_STAT(vals_moved)
SCALIO_TGT_STAT(live_val_bytes)
SCALIO_TGT_STAT(blocks_retired)
