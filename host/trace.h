/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scalio-host tracepoints: one key-value operation from issue to
 * completion, the slot protocol's fills, reclaims and lease renewals,
 * value extent reads, reconnects, and operations' waits for a lost
 * connection.  Keys are never traced, only their 64-bit hash under the
 * store's seed (the one that places them: equal keys, equal hashes).
 *
 * Enable with tracefs (events/scalio_host/), trace-cmd or perf trace; see
 * Documentation/admin-guide.rst, "Tracing".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM scalio_host

#if !defined(_SCALIO_HOST_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SCALIO_HOST_TRACE_H

#include <linux/tracepoint.h>
#include <linux/string.h>

#include "scalio_host.h"

DECLARE_EVENT_CLASS(scalio_host_kv_issue,
	TP_PROTO(const struct scalio_host_hstore *hs, u64 hash, u32 vlen),
	TP_ARGS(hs, hash, vlen),
	TP_STRUCT__entry(
		__array(char, store, SCALIO_NAME_MAX)
		__field(u64, hash)
		__field(u32, vlen)
	),
	TP_fast_assign(
		strscpy(__entry->store, hs->name, SCALIO_NAME_MAX);
		__entry->hash = hash;
		__entry->vlen = vlen;
	),
	TP_printk("store=%s hash=%016llx vlen=%u", __entry->store,
		  __entry->hash, __entry->vlen)
);

/* A GET starts (vlen 0). */
DEFINE_EVENT(scalio_host_kv_issue, scalio_host_get_issue,
	TP_PROTO(const struct scalio_host_hstore *hs, u64 hash, u32 vlen),
	TP_ARGS(hs, hash, vlen));
/* A PUT of @vlen bytes starts. */
DEFINE_EVENT(scalio_host_kv_issue, scalio_host_put_issue,
	TP_PROTO(const struct scalio_host_hstore *hs, u64 hash, u32 vlen),
	TP_ARGS(hs, hash, vlen));
/* A DELETE starts (vlen 0). */
DEFINE_EVENT(scalio_host_kv_issue, scalio_host_delete_issue,
	TP_PROTO(const struct scalio_host_hstore *hs, u64 hash, u32 vlen),
	TP_ARGS(hs, hash, vlen));

/*
 * A GET ends: @result 0 (found, @vlen bytes), -ENOENT or an error; @hit:
 * answered from a slot of the one-sided cache (the cache_hits counter);
 * @retries: block re-reads after a back-off or a torn copy (the retries
 * counter); @latency_ns from its issue.
 */
TRACE_EVENT(scalio_host_get_done,
	TP_PROTO(const struct scalio_host_hstore *hs, u64 hash, int result,
		 u32 vlen, bool hit, u32 retries, u64 latency_ns),
	TP_ARGS(hs, hash, result, vlen, hit, retries, latency_ns),
	TP_STRUCT__entry(
		__array(char, store, SCALIO_NAME_MAX)
		__field(u64, hash)
		__field(int, result)
		__field(u32, vlen)
		__field(bool, hit)
		__field(u32, retries)
		__field(u64, latency_ns)
	),
	TP_fast_assign(
		strscpy(__entry->store, hs->name, SCALIO_NAME_MAX);
		__entry->hash = hash;
		__entry->result = result;
		__entry->vlen = vlen;
		__entry->hit = hit;
		__entry->retries = retries;
		__entry->latency_ns = latency_ns;
	),
	TP_printk("store=%s hash=%016llx result=%d vlen=%u hit=%d retries=%u latency_ns=%llu",
		  __entry->store, __entry->hash, __entry->result,
		  __entry->vlen, __entry->hit, __entry->retries,
		  __entry->latency_ns)
);

DECLARE_EVENT_CLASS(scalio_host_write_done,
	TP_PROTO(const struct scalio_host_hstore *hs, u64 hash, int result,
		 u64 latency_ns),
	TP_ARGS(hs, hash, result, latency_ns),
	TP_STRUCT__entry(
		__array(char, store, SCALIO_NAME_MAX)
		__field(u64, hash)
		__field(int, result)
		__field(u64, latency_ns)
	),
	TP_fast_assign(
		strscpy(__entry->store, hs->name, SCALIO_NAME_MAX);
		__entry->hash = hash;
		__entry->result = result;
		__entry->latency_ns = latency_ns;
	),
	TP_printk("store=%s hash=%016llx result=%d latency_ns=%llu",
		  __entry->store, __entry->hash, __entry->result,
		  __entry->latency_ns)
);

/*
 * A PUT or DELETE ends: @result 0 once durable and invalidated (DELETE:
 * -ENOENT for a missing key), or an error; @latency_ns from its issue
 * (the RPC, its commit on the target, and the invalidation).
 */
DEFINE_EVENT(scalio_host_write_done, scalio_host_put_done,
	TP_PROTO(const struct scalio_host_hstore *hs, u64 hash, int result,
		 u64 latency_ns),
	TP_ARGS(hs, hash, result, latency_ns));
DEFINE_EVENT(scalio_host_write_done, scalio_host_delete_done,
	TP_PROTO(const struct scalio_host_hstore *hs, u64 hash, int result,
		 u64 latency_ns),
	TP_ARGS(hs, hash, result, latency_ns));

/*
 * A GET that missed filled slot @slot of @block: @vlen bytes read from the
 * segment of @bucket on the SSD or by RPC, @cached: the value was published in the slot (else the
 * slot was released: the key is absent or its value is too long to
 * cache), @lost: the lock was reclaimed or invalidated meanwhile and
 * nothing was published (the GET starts over).
 */
TRACE_EVENT(scalio_host_slot_fill,
	TP_PROTO(const struct scalio_host_hstore *hs, u32 block, u32 bucket,
		 u32 slot, u32 vlen, bool cached, bool lost),
	TP_ARGS(hs, block, bucket, slot, vlen, cached, lost),
	TP_STRUCT__entry(
		__array(char, store, SCALIO_NAME_MAX)
		__field(u32, block)
		__field(u32, bucket)
		__field(u32, slot)
		__field(u32, vlen)
		__field(bool, cached)
		__field(bool, lost)
	),
	TP_fast_assign(
		strscpy(__entry->store, hs->name, SCALIO_NAME_MAX);
		__entry->block = block;
		__entry->bucket = bucket;
		__entry->slot = slot;
		__entry->vlen = vlen;
		__entry->cached = cached;
		__entry->lost = lost;
	),
	TP_printk("store=%s block=%u bucket=%u slot=%u vlen=%u cached=%d lost=%d",
		  __entry->store, __entry->block, __entry->bucket,
		  __entry->slot, __entry->vlen, __entry->cached, __entry->lost)
);

DECLARE_EVENT_CLASS(scalio_host_slot_lock,
	TP_PROTO(const struct scalio_host_hstore *hs, u32 block, u32 slot,
		 bool done),
	TP_ARGS(hs, block, slot, done),
	TP_STRUCT__entry(
		__array(char, store, SCALIO_NAME_MAX)
		__field(u32, block)
		__field(u32, slot)
		__field(bool, done)
	),
	TP_fast_assign(
		strscpy(__entry->store, hs->name, SCALIO_NAME_MAX);
		__entry->block = block;
		__entry->slot = slot;
		__entry->done = done;
	),
	TP_printk("store=%s block=%u slot=%u done=%d", __entry->store,
		  __entry->block, __entry->slot, __entry->done)
);

/*
 * A GET reclaimed an expired fill lock on slot @slot of @block; @done:
 * its CAS won (the lease_reclaims counter), else someone changed the
 * slot first.
 */
DEFINE_EVENT(scalio_host_slot_lock, scalio_host_slot_reclaim,
	TP_PROTO(const struct scalio_host_hstore *hs, u32 block, u32 slot,
		 bool done),
	TP_ARGS(hs, block, slot, done));
/*
 * A filler renewed its lease on slot @slot of @block; @done: renewed
 * (the lease_renewals counter), else the lock was lost or the GET's time
 * was up.
 */
DEFINE_EVENT(scalio_host_slot_lock, scalio_host_slot_renew,
	TP_PROTO(const struct scalio_host_hstore *hs, u32 block, u32 slot,
		 bool done),
	TP_ARGS(hs, block, slot, done));

/*
 * A reconnect attempt of a live store starts connecting, with @budget_ms
 * for its rdma_cm steps (what the old connection's users left of the
 * attempt's time is not counted: they are gone by now).
 */
TRACE_EVENT(scalio_host_reconnect_begin,
	TP_PROTO(const struct scalio_host_hstore *hs, u32 budget_ms),
	TP_ARGS(hs, budget_ms),
	TP_STRUCT__entry(
		__array(char, store, SCALIO_NAME_MAX)
		__field(u32, budget_ms)
	),
	TP_fast_assign(
		strscpy(__entry->store, hs->name, SCALIO_NAME_MAX);
		__entry->budget_ms = budget_ms;
	),
	TP_printk("store=%s budget_ms=%u", __entry->store, __entry->budget_ms)
);

/*
 * A reconnect attempt of a live store ended: @result 0 (the reconnects
 * counter) or its error; @next_ms: the delay before the next attempt (0:
 * none).
 */
TRACE_EVENT(scalio_host_reconnect,
	TP_PROTO(const struct scalio_host_hstore *hs, int result, u32 next_ms),
	TP_ARGS(hs, result, next_ms),
	TP_STRUCT__entry(
		__array(char, store, SCALIO_NAME_MAX)
		__field(int, result)
		__field(u32, next_ms)
	),
	TP_fast_assign(
		strscpy(__entry->store, hs->name, SCALIO_NAME_MAX);
		__entry->result = result;
		__entry->next_ms = next_ms;
	),
	TP_printk("store=%s result=%d next_ms=%u", __entry->store,
		  __entry->result, __entry->next_ms)
);

TRACE_DEFINE_ENUM(SCALIO_HOST_OP_GET);
TRACE_DEFINE_ENUM(SCALIO_HOST_OP_PUT);
TRACE_DEFINE_ENUM(SCALIO_HOST_OP_DELETE);
TRACE_DEFINE_ENUM(SCALIO_HOST_OP_STATS);
TRACE_DEFINE_ENUM(SCALIO_HOST_OP_CLOCK);

/*
 * An operation that found the connection lost stops waiting for it to
 * come back (one event per wait: the reconnect_waits counter, @waited_ns
 * summed: reconnect_wait_ns): @op get, put, delete, stats (of the target)
 * or clock; @result 0 (the connection is back, the operation goes on),
 * -EHOSTDOWN (fast_io_fail_ms ran out, or the connection will not come
 * back: the operation fails unsent), -EINTR (fatal signal), -EPROTO...
 */
TRACE_EVENT(scalio_host_conn_wait,
	TP_PROTO(const struct scalio_host_hstore *hs, enum scalio_host_op op,
		 int result, u64 waited_ns),
	TP_ARGS(hs, op, result, waited_ns),
	TP_STRUCT__entry(
		__array(char, store, SCALIO_NAME_MAX)
		__field(u32, op)
		__field(int, result)
		__field(u64, waited_ns)
	),
	TP_fast_assign(
		strscpy(__entry->store, hs->name, SCALIO_NAME_MAX);
		__entry->op = op;
		__entry->result = result;
		__entry->waited_ns = waited_ns;
	),
	TP_printk("store=%s op=%s result=%d waited_ns=%llu", __entry->store,
		  __print_symbolic(__entry->op,
				   { SCALIO_HOST_OP_GET, "get" },
				   { SCALIO_HOST_OP_PUT, "put" },
				   { SCALIO_HOST_OP_DELETE, "delete" },
				   { SCALIO_HOST_OP_STATS, "stats" },
				   { SCALIO_HOST_OP_CLOCK, "clock" }),
		  __entry->result, __entry->waited_ns)
);

/*
 * A GET was lost with the connection (@err -ENOTCONN, or -ETIMEDOUT with
 * the connection failed); @retry: it waits for the reconnect and starts
 * over (the lost_get_retries counter), else its fast_io_fail_ms is over
 * (or 0) and it fails with @err.
 */
TRACE_EVENT(scalio_host_get_lost,
	TP_PROTO(const struct scalio_host_hstore *hs, u64 hash, int err,
		 bool retry),
	TP_ARGS(hs, hash, err, retry),
	TP_STRUCT__entry(
		__array(char, store, SCALIO_NAME_MAX)
		__field(u64, hash)
		__field(int, err)
		__field(bool, retry)
	),
	TP_fast_assign(
		strscpy(__entry->store, hs->name, SCALIO_NAME_MAX);
		__entry->hash = hash;
		__entry->err = err;
		__entry->retry = retry;
	),
	TP_printk("store=%s hash=%016llx err=%d retry=%d", __entry->store,
		  __entry->hash, __entry->err, __entry->retry)
);

/*
 * A value extent (on-SSD format 5) was read for a GET miss (@scan false:
 * one event per get_val_reads) or a SCAN: the record of the key of @hash,
 * in @bucket, points to @len bytes of value at byte @pos of its SSD.
 * @result 0; -ESTALE (-116: an intact extent of another key or
 * generation, the value moved; a GET's are its get_val_stale); -EUCLEAN
 * (-117: not an intact extent, or an impossible pointer: moved and
 * overwritten, or damaged); or the read's error (-ETIMEDOUT, -EIO...).
 */
TRACE_EVENT(scalio_host_val_read,
	TP_PROTO(const struct scalio_host_hstore *hs, bool scan, u32 bucket,
		 u64 hash, u64 pos, u32 len, int result),
	TP_ARGS(hs, scan, bucket, hash, pos, len, result),
	TP_STRUCT__entry(
		__array(char, store, SCALIO_NAME_MAX)
		__field(bool, scan)
		__field(u32, bucket)
		__field(u64, hash)
		__field(u64, pos)
		__field(u32, len)
		__field(int, result)
	),
	TP_fast_assign(
		strscpy(__entry->store, hs->name, SCALIO_NAME_MAX);
		__entry->scan = scan;
		__entry->bucket = bucket;
		__entry->hash = hash;
		__entry->pos = pos;
		__entry->len = len;
		__entry->result = result;
	),
	TP_printk("store=%s op=%s bucket=%u hash=%016llx pos=%llu len=%u result=%d",
		  __entry->store, __entry->scan ? "scan" : "get",
		  __entry->bucket, __entry->hash, __entry->pos, __entry->len,
		  __entry->result)
);

#endif /* _SCALIO_HOST_TRACE_H */

/* The module is built out of tree: this header is found through -I. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
