/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of scalio-target (trace system scalio_target).
 *
 *   trace-cmd record -e scalio_target ...
 *   perf trace -e 'scalio_target:*'
 *   bpftrace -e 'tracepoint:scalio_target:scalio_tgt_batch_committed
 *                { @lat = hist(args->latency_ns); }'
 *
 * Each event costs a static branch while it is disabled; whatever only an
 * event needs (timestamps, unit counts, key hashes) is computed under
 * trace_<event>_enabled() or in TP_fast_assign.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM scalio_target

#if !defined(_SCALIO_TGT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SCALIO_TGT_TRACE_H

#include <linux/tracepoint.h>

#include "scalio_target.h"

/*
 * scalio_tgt_batch_formed - the commit kthread took requests into a batch
 * @ops:	requests applied to the batch (those that did not fit wait
 *		for the next one)
 * @buckets:	buckets the batch touches
 * @units:	log units it will take (header included)
 */
TRACE_EVENT(scalio_tgt_batch_formed,
	TP_PROTO(const struct scalio_tgt_ssd *ssd, u32 ops, u32 buckets,
		 u32 units),
	TP_ARGS(ssd, ops, buckets, units),
	TP_STRUCT__entry(
		__array(char,	store, SCALIO_NAME_MAX)
		__field(u32,	ssd)
		__field(u32,	ops)
		__field(u32,	buckets)
		__field(u32,	units)
	),
	TP_fast_assign(
		strscpy(__entry->store, ssd->store->name, SCALIO_NAME_MAX);
		__entry->ssd = ssd->index;
		__entry->ops = ops;
		__entry->buckets = buckets;
		__entry->units = units;
	),
	TP_printk("store=%s ssd=%u ops=%u buckets=%u units=%u",
		  __entry->store, __entry->ssd, __entry->ops, __entry->buckets,
		  __entry->units)
);

/*
 * scalio_tgt_batch_committed - a batch's write finished
 * @seq:	its sequence number (meaningful when @ret is 0)
 * @ops:	requests answered with it
 * @units:	log units it took
 * @ret:	0 (durable, requests acknowledged) or the error they got
 * @latency_ns:	from scalio_tgt_batch_formed to the end of the write
 */
TRACE_EVENT(scalio_tgt_batch_committed,
	TP_PROTO(const struct scalio_tgt_ssd *ssd, u64 seq, u32 ops, u32 units,
		 int ret, u64 latency_ns),
	TP_ARGS(ssd, seq, ops, units, ret, latency_ns),
	TP_STRUCT__entry(
		__array(char,	store, SCALIO_NAME_MAX)
		__field(u32,	ssd)
		__field(u64,	seq)
		__field(u32,	ops)
		__field(u32,	units)
		__field(int,	ret)
		__field(u64,	latency_ns)
	),
	TP_fast_assign(
		strscpy(__entry->store, ssd->store->name, SCALIO_NAME_MAX);
		__entry->ssd = ssd->index;
		__entry->seq = seq;
		__entry->ops = ops;
		__entry->units = units;
		__entry->ret = ret;
		__entry->latency_ns = latency_ns;
	),
	TP_printk("store=%s ssd=%u seq=%llu ops=%u units=%u ret=%d latency_ns=%llu",
		  __entry->store, __entry->ssd, __entry->seq, __entry->ops,
		  __entry->units, __entry->ret, __entry->latency_ns)
);

/*
 * scalio_tgt_cleaner_move - one cleaner pass moved the log head
 * @old_head, @new_head: log head before and after (units)
 * @moved:	live segments re-appended at the tail
 * @vals:	live value extents relocated (counted in vals_moved)
 * @freed:	log units given back
 */
TRACE_EVENT(scalio_tgt_cleaner_move,
	TP_PROTO(const struct scalio_tgt_ssd *ssd, u64 old_head, u64 new_head,
		 u64 moved, u64 vals, u64 freed),
	TP_ARGS(ssd, old_head, new_head, moved, vals, freed),
	TP_STRUCT__entry(
		__array(char,	store, SCALIO_NAME_MAX)
		__field(u32,	ssd)
		__field(u64,	old_head)
		__field(u64,	new_head)
		__field(u64,	moved)
		__field(u64,	vals)
		__field(u64,	freed)
	),
	TP_fast_assign(
		strscpy(__entry->store, ssd->store->name, SCALIO_NAME_MAX);
		__entry->ssd = ssd->index;
		__entry->old_head = old_head;
		__entry->new_head = new_head;
		__entry->moved = moved;
		__entry->vals = vals;
		__entry->freed = freed;
	),
	TP_printk("store=%s ssd=%u head=%llu->%llu moved=%llu vals=%llu freed=%llu",
		  __entry->store, __entry->ssd, __entry->old_head,
		  __entry->new_head, __entry->moved, __entry->vals,
		  __entry->freed)
);

/*
 * scalio_tgt_admit - an ADMIT was decided
 * @client:	client id of the connection
 * @hostnqn:	the NQN the host claimed
 * @proof:	it sent a proof of its secret
 * @ret:	0 (admitted) or the errno it was refused with
 */
TRACE_EVENT(scalio_tgt_admit,
	TP_PROTO(const struct scalio_tgt_store *st, u16 client,
		 const char *hostnqn, bool proof, int ret),
	TP_ARGS(st, client, hostnqn, proof, ret),
	TP_STRUCT__entry(
		__array(char,	store, SCALIO_NAME_MAX)
		__array(char,	hostnqn, SCALIO_NQN_MAX)
		__field(u16,	client)
		__field(bool,	proof)
		__field(int,	ret)
	),
	TP_fast_assign(
		strscpy(__entry->store, st->name, SCALIO_NAME_MAX);
		strscpy(__entry->hostnqn, hostnqn, SCALIO_NQN_MAX);
		__entry->client = client;
		__entry->proof = proof;
		__entry->ret = ret;
	),
	TP_printk("store=%s client=%u host=%s proof=%d ret=%d",
		  __entry->store, __entry->client, __entry->hostnqn,
		  __entry->proof, __entry->ret)
);

/*
 * scalio_tgt_reap - the keep-alive reaper disconnects a connection
 * @hostnqn:	its host, or "unknown" before it was identified
 * @why:	"no keep-alive", "not admitted in time", "responses not taken"
 * @kato_ms:	the store's keep-alive timeout
 */
TRACE_EVENT(scalio_tgt_reap,
	TP_PROTO(const struct scalio_tgt_store *st, u16 client,
		 const char *hostnqn, const char *why, u32 kato_ms),
	TP_ARGS(st, client, hostnqn, why, kato_ms),
	TP_STRUCT__entry(
		__array(char,	store, SCALIO_NAME_MAX)
		__array(char,	hostnqn, SCALIO_NQN_MAX)
		__array(char,	why, 24)
		__field(u16,	client)
		__field(u32,	kato_ms)
	),
	TP_fast_assign(
		strscpy(__entry->store, st->name, SCALIO_NAME_MAX);
		strscpy(__entry->hostnqn, hostnqn, SCALIO_NQN_MAX);
		strscpy(__entry->why, why, sizeof(__entry->why));
		__entry->client = client;
		__entry->kato_ms = kato_ms;
	),
	TP_printk("store=%s client=%u host=%s why=\"%s\" kato_ms=%u",
		  __entry->store, __entry->client, __entry->hostnqn,
		  __entry->why, __entry->kato_ms)
);

/*
 * scalio_tgt_retire - a connection ended owing invalidations: its writes'
 * cache blocks get a new epoch (settle.c)
 * @hostnqn:	its host, or "not identified"
 * @owed:	writes it had not confirmed invalidated (0 with @all)
 * @all:	more than SCALIO_TGT_OWED_MAX: every block was retired
 * @blocks:	block retirements
 */
TRACE_EVENT(scalio_tgt_retire,
	TP_PROTO(const struct scalio_tgt_store *st, u16 client,
		 const char *hostnqn, u32 owed, bool all, u64 blocks),
	TP_ARGS(st, client, hostnqn, owed, all, blocks),
	TP_STRUCT__entry(
		__array(char,	store, SCALIO_NAME_MAX)
		__array(char,	hostnqn, SCALIO_NQN_MAX)
		__field(u16,	client)
		__field(u32,	owed)
		__field(bool,	all)
		__field(u64,	blocks)
	),
	TP_fast_assign(
		strscpy(__entry->store, st->name, SCALIO_NAME_MAX);
		strscpy(__entry->hostnqn, hostnqn, SCALIO_NQN_MAX);
		__entry->client = client;
		__entry->owed = owed;
		__entry->all = all;
		__entry->blocks = blocks;
	),
	TP_printk("store=%s client=%u host=%s owed=%u all=%d blocks=%llu",
		  __entry->store, __entry->client, __entry->hostnqn,
		  __entry->owed, __entry->all, __entry->blocks)
);

/*
 * scalio_tgt_ssd_error - a read or write of an SSD failed
 * @write:	a write (else a read)
 * @unit:	first unit
 * @units:	its length in units
 * @ret:	the error
 */
TRACE_EVENT(scalio_tgt_ssd_error,
	TP_PROTO(const struct scalio_tgt_ssd *ssd, bool write, u64 unit,
		 u32 units, int ret),
	TP_ARGS(ssd, write, unit, units, ret),
	TP_STRUCT__entry(
		__array(char,	store, SCALIO_NAME_MAX)
		__field(u32,	ssd)
		__field(bool,	write)
		__field(u64,	unit)
		__field(u32,	units)
		__field(int,	ret)
	),
	TP_fast_assign(
		strscpy(__entry->store, ssd->store->name, SCALIO_NAME_MAX);
		__entry->ssd = ssd->index;
		__entry->write = write;
		__entry->unit = unit;
		__entry->units = units;
		__entry->ret = ret;
	),
	TP_printk("store=%s ssd=%u %s unit=%llu units=%u ret=%d",
		  __entry->store, __entry->ssd,
		  __entry->write ? "write" : "read", __entry->unit,
		  __entry->units, __entry->ret)
);

/*
 * scalio_tgt_rpc_get - a GET served by the target was answered
 * @client:	client id of the connection
 * @key_hash:	scalio_key_hash() of the key (the store's seed)
 * @ret:	0 (hit), -ENOENT (miss) or the error answered
 * @vlen:	value length answered
 * @latency_ns:	from the request's dispatch to its answer
 */
TRACE_EVENT(scalio_tgt_rpc_get,
	TP_PROTO(const struct scalio_tgt_store *st, u16 client, u64 key_hash,
		 int ret, u32 vlen, u64 latency_ns),
	TP_ARGS(st, client, key_hash, ret, vlen, latency_ns),
	TP_STRUCT__entry(
		__array(char,	store, SCALIO_NAME_MAX)
		__field(u16,	client)
		__field(u64,	key_hash)
		__field(int,	ret)
		__field(u32,	vlen)
		__field(u64,	latency_ns)
	),
	TP_fast_assign(
		strscpy(__entry->store, st->name, SCALIO_NAME_MAX);
		__entry->client = client;
		__entry->key_hash = key_hash;
		__entry->ret = ret;
		__entry->vlen = vlen;
		__entry->latency_ns = latency_ns;
	),
	TP_printk("store=%s client=%u key_hash=%016llx ret=%d vlen=%u latency_ns=%llu",
		  __entry->store, __entry->client, __entry->key_hash,
		  __entry->ret, __entry->vlen, __entry->latency_ns)
);

/*
 * A PUT or DELETE answered: how long it waited in its SSD's commit queue
 * before a batch took it, and in all from arrival to answer.
 */
TRACE_EVENT(scalio_tgt_rpc_write,
	TP_PROTO(const struct scalio_tgt_store *st, u16 client, u8 op, int ret,
		 u64 queue_ns, u64 latency_ns),
	TP_ARGS(st, client, op, ret, queue_ns, latency_ns),
	TP_STRUCT__entry(
		__array(char,	store, SCALIO_NAME_MAX)
		__field(u16,	client)
		__field(u8,	op)
		__field(int,	ret)
		__field(u64,	queue_ns)
		__field(u64,	latency_ns)
	),
	TP_fast_assign(
		strscpy(__entry->store, st->name, SCALIO_NAME_MAX);
		__entry->client = client;
		__entry->op = op;
		__entry->ret = ret;
		__entry->queue_ns = queue_ns;
		__entry->latency_ns = latency_ns;
	),
	TP_printk("store=%s client=%u op=%s ret=%d queue_ns=%llu latency_ns=%llu",
		  __entry->store, __entry->client,
		  __entry->op == SCALIO_MSG_PUT ? "put" : "delete",
		  __entry->ret, __entry->queue_ns, __entry->latency_ns)
);

#endif /* _SCALIO_TGT_TRACE_H */

/* Out of tree: found through CFLAGS_target/trace.o (Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace

/* This part must be outside protection */
#include <trace/define_trace.h>
