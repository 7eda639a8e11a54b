/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scalio-target private header: every struct of the target module, and the
 * interface between its two halves:
 *   - the store (core.c, configfs.c, index.c, ssd.c, commit.c, recovery.c,
 *     cleaner.c): configuration, the DRAM index, the on-SSD log, group
 *     commit, recovery and cleaning;
 *   - the transport (rdma.c, rpc.c): the RDMA listener, connections, index
 *     MR registration, and RPC parsing, dispatch and replies.
 *
 * Locking:
 *   scalio_tgt_stores_lock (mutex) protects the list of stores.
 *   store->lock (mutex) protects the configuration and the enable state;
 *   configfs stores refuse edits with -EBUSY while the store is enabled.
 *   store->live (percpu_ref) is held by every connection and every request
 *   in flight; disable kills it and waits for it before tearing down.
 *   ssd->lock (spinlock) protects ssd->pending.
 *   Only the SSD's commit kthread writes its log state, its buckets' seg
 *   words and the shadow generations (the cleaner runs inside that kthread).
 */
#ifndef _SCALIO_TARGET_H
#define _SCALIO_TARGET_H

#include <linux/configfs.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/completion.h>
#include <linux/wait.h>
#include <linux/timer.h>
#include <linux/atomic.h>
#include <linux/socket.h>

#include "../common/scalio_compat.h"
#include "../common/scalio_index.h"
#include "../common/scalio_format.h"
#include "../common/scalio_proto.h"
#include "../common/scalio_batch.h"

/* Defaults of new stores (module parameters seed them). */
#define SCALIO_DEF_NR_BLOCKS		4096
#define SCALIO_DEF_SLOTS		8
#define SCALIO_DEF_BATCH_MAX		64
/*
 * Only a guard: a request waits for company at most a few of its SSD's
 * measured write times (common/scalio_batch.h); this caps that when a
 * stalled device inflates the measure.
 */
#define SCALIO_DEF_BATCH_TIMEOUT_US	100000
#define SCALIO_DEF_LEASE_MS		2000
#define SCALIO_DEF_SEG_CACHE_MB		32
/*
 * Values longer than this go to value extents (attr_value_inline_max);
 * Documentation/admin-guide.rst says how the default was measured.
 */
#define SCALIO_DEF_VALUE_INLINE_MAX	128
/* HELLO waits at most this long for earlier writes to be answered. */
#define SCALIO_HELLO_BARRIER_MS		5000
/*
 * rxe registers at most 512 pages per MR, and 6.1's rxe must not get an
 * MR of a multiple of 256 pages (scalio_tgt_tmap_init()): 511 pages of blocks.
 */
#define SCALIO_INDEX_CHUNK_BYTES	((2U << 20) - PAGE_SIZE)
#define SCALIO_DEF_MAX_CLIENTS		64
#define SCALIO_DEF_MAX_HOST_CLIENTS	4

/*
 * Counters of a store (the stats attribute).  The CPU figures: cpu_ns_commit
 * and cpu_ns_cleaner are CPU time of the SSDs' commit kthreads
 * (task_cputime_adjusted()) in commit rounds and in the cleaner;
 * cpu_ns_rpc is the time RPC handlers take from dispatch to answer,
 * without the SSD read of a GET (wall time: a preempted handler counts).
 */
enum scalio_tgt_tstat {
	SCALIO_TS_RPC_GETS,
	SCALIO_TS_RPC_PUTS,
	SCALIO_TS_RPC_DELETES,
	SCALIO_TS_RPC_OTHER,
	SCALIO_TS_SSD_READS,
	SCALIO_TS_SSD_WRITES,
	SCALIO_TS_SSD_WRITE_BYTES,
	SCALIO_TS_BATCHES,
	SCALIO_TS_BATCHED_OPS,
	SCALIO_TS_CLEANER_RUNS,
	SCALIO_TS_CLEANER_MOVED,
	SCALIO_TS_CPU_NS_COMMIT,
	SCALIO_TS_CPU_NS_RPC,
	SCALIO_TS_CPU_NS_CLEANER,
	SCALIO_TS_SEGCACHE_HITS,
	SCALIO_TS_SEGCACHE_MISSES,
	SCALIO_TS_SEGCACHE_EVICTIONS,
	SCALIO_TS_COMMIT_WRITE_NS,
	SCALIO_TS_COMMIT_WAIT_NS,
	SCALIO_TS_VALS_WRITTEN,
	SCALIO_TS_VAL_BYTES_WRITTEN,
	SCALIO_TS_VALS_MOVED,
	SCALIO_TS_BLOCKS_RETIRED,
	SCALIO_TS_NR,
};

/* One CPU's share of a store's counters. */
struct scalio_tgt_pcpu_stats {
	u64	v[SCALIO_TS_NR];
};

/**
 * struct scalio_tgt_index_chunk - one piece of the index, registered as one MR
 * @mem:	vmalloc'ed, page aligned, @bytes long; client-writable
 * @bytes:	multiple of PAGE_SIZE, at most SCALIO_INDEX_CHUNK_BYTES
 * @seg_mem:	published seg words of the chunk's blocks' buckets (__le64
 *		each, scalio_bucket_pos() order), vmalloc'ed, page aligned,
 *		@seg_bytes long; clients may only read it
 * @seg_bytes:	multiple of PAGE_SIZE
 * @first_block: first block it holds
 * @nr_blocks:	blocks it holds (never split)
 */
struct scalio_tgt_index_chunk {
	void	*mem;
	size_t	bytes;
	__le64	*seg_mem;
	size_t	seg_bytes;
	u32	first_block;
	u32	nr_blocks;
};

/**
 * struct scalio_tgt_index - the DRAM hash index of a store
 * @hdr:	one zeroed page: struct scalio_index_hdr with the clock word;
 *		vmalloc'ed like the chunks (vmalloc_to_page() maps both)
 * @chunks:	array of @nr_chunks
 * @segs:	the authoritative seg word of every bucket: private memory no
 *		client can reach; set_seg copies each store into the
 *		chunk's published @seg_mem
 * @nr_blocks:	power of two
 * @nr_buckets:	power of two, @nr_blocks * @bpb
 * @bpb:	buckets per block
 * @slots:	slots per block
 * @block_size:	SCALIO_BLOCK_SIZE(slots)
 * @blocks_per_chunk: blocks in every chunk but possibly the last
 * @bytes:	DRAM it takes: header page, chunks, both seg tables
 * @clock_timer: advances hdr->clock at SCALIO_CLOCK_HZ
 * @epoch:	the last block epoch handed out (scalio_tgt_index_epoch_next()):
 *		private, so the target never reads the epoch words clients
 *		can write
 */
struct scalio_tgt_index {
	struct scalio_index_hdr		*hdr;
	struct scalio_tgt_index_chunk	*chunks;
	u64				*segs;
	u32				nr_chunks;
	u32				nr_blocks;
	u32				nr_buckets;
	u32				bpb;
	u32				slots;
	u32				block_size;
	u32				blocks_per_chunk;
	u64				bytes;
	struct timer_list		clock_timer;
	atomic64_t			epoch;
};

struct scalio_tgt_store;

/**
 * struct scalio_tgt_flow - one writer's queue at one SSD
 * @reqs:	its queued requests (struct scalio_tgt_treq, @flow_entry), in
 *		arrival order
 * @entry:	on the SSD's @flows while @reqs is not empty
 *
 * The commit thread takes a batch round-robin over the SSD's flows, one
 * request of each in turn, so a writer with a deep queue cannot push
 * another writer's request back by more than one request per flow.  A
 * writer (a connection) has one flow per possible SSD of its store
 * (scalio_tgt_flows_alloc(), kfree()); it must outlive its queued requests, which a
 * connection does (it is freed only once every request it received was
 * answered).  Both lists are under the SSD's lock.
 */
struct scalio_tgt_flow {
	struct list_head	reqs;
	struct list_head	entry;
};

/**
 * struct scalio_tgt_treq - a PUT or DELETE handed to the store
 * @entry:	on the SSD's pending list (store-owned while queued)
 * @flow_entry:	on its flow's @reqs while queued
 * @flows:	the writer's flows, one per SSD of the store
 *		(scalio_tgt_flows_alloc()), or NULL: the SSD's own flow
 * @op:		SCALIO_MSG_PUT or SCALIO_MSG_DELETE
 * @klen:	key length
 * @vlen:	value length (PUT)
 * @bucket:	bucket of the key (filled by scalio_tgt_store_write())
 * @arrival_ns:	ktime when queued
 * @taken_ns:	ktime when a batch took it (for the caller's tracing)
 * @key:	the key
 * @value:	PUT: the value, owned by the caller until @done runs
 * @done:	called exactly once, from the commit kthread, after the
 *		request's batch is durable and seg words are updated (status
 *		0, or -ENOENT for DELETE of a missing key), or with a negative
 *		errno if the request failed (-ENOSPC, -EIO, -ESHUTDOWN)
 * @seg:	the bucket's new seg word, valid when @done gets 0
 */
struct scalio_tgt_treq {
	struct list_head	entry;
	struct list_head	flow_entry;
	struct scalio_tgt_flow	*flows;
	u8			op;
	u8			klen;
	u16			vlen;
	u16			inflight;
	u32			bucket;
	u64			arrival_ns;
	u64			taken_ns;
	u8			key[SCALIO_KEY_MAX];
	const u8		*value;
	void                    (*done)(struct scalio_tgt_treq *req,
					int status);
	u64			seg;
};

/**
 * struct scalio_tgt_ssd - one SSD of a store (configfs: stores/<name>/ssds/<n>)
 * @group:	configfs group
 * @store:	owner
 * @index:	position in the store (the configfs name, 0..15)
 * @device_path: block device on the target
 * @nqn:	NVMe-oF subsystem NQN nvmet exports it under
 * @nsid:	namespace id within @nqn
 * @bdev:	opened device while the store is enabled
 * @capacity_sectors: device size
 * @lock:	protects @pending, @nr_pending, @reqs_in, @flows and the
 *		flows on it
 * @pending:	queued struct scalio_tgt_treq, in arrival order
 * @flows:	flows with queued requests, in the order they are served
 * @flow0:	the flow of requests that name none
 * @reqs_in:	writes ever queued
 * @reqs_out:	writes ever answered (done called); with @reqs_in, what
 *		scalio_tgt_store_write_barrier() waits on
 * @done_wq:	scalio_tgt_store_write_barrier() sleeps here
 * @wq:		commit kthread sleeps here
 * @thread:	commit kthread
 * @policy:	batching state
 * @log:	log state, owned by the commit kthread (commit.c / cleaner.c)
 * @gens:	full generation of each owned bucket's current segment
 *		(index i = bucket / nr_ssds), owned by the commit kthread
 * @commit:	buffers and batch state of the store half (scalio_store.h)
 */
struct scalio_tgt_ssd {
	struct config_group		group;
	struct scalio_tgt_store		*store;
	u32				index;
	char				device_path[SCALIO_PATH_MAX];
	char				nqn[SCALIO_NQN_MAX];
	u32				nsid;

	struct scalio_bdev		bdev;
	u64				capacity_sectors;
	bool				io_failed;	/* last I/O failed */

	spinlock_t			lock;
	struct list_head		pending;
	struct list_head		flows;
	struct scalio_tgt_flow		flow0;
	u32				nr_pending;
	u64				reqs_in;
	atomic64_t			reqs_out;
	wait_queue_head_t		done_wq;
	wait_queue_head_t		wq;
	struct task_struct		*thread;
	struct scalio_batch_policy	policy;

	struct {
		struct scalio_sb	sb;
		u64			head;	/* oldest unit in use */
		u64			tail;	/* next unit to write */
		u64			next_batch;
		u64			ckpt_seq;
		u64			used_units;
		u64			head_seq;	/* batch at head */
	} log;
	u64				*gens;
	struct scalio_tgt_commit		*commit;	/* commit.c private */
};

/**
 * struct scalio_tgt_host - a host allowed to use a store
 *			(configfs: stores/<name>/allowed_hosts/<host NQN>)
 * @group:	configfs group
 * @store:	owner
 * @entry:	on store->hosts (store->hosts_lock)
 * @nqn:	the host NQN (the directory name)
 * @secret:	@secret_len bytes; 0 bytes: the NQN alone admits the host
 * @secret_len:	0 or SCALIO_SECRET_MIN..SCALIO_SECRET_MAX
 *
 * @secret and @secret_len are under store->hosts_lock.
 */
struct scalio_tgt_host {
	struct config_group	group;
	struct scalio_tgt_store	*store;
	struct list_head	entry;
	char			nqn[SCALIO_NQN_MAX];
	u8			secret[SCALIO_SECRET_MAX];
	u32			secret_len;
};

/**
 * struct scalio_tgt_store - one store (configfs: stores/<name>)
 * @group:	configfs group
 * @ssds_group:	configfs "ssds" default group
 * @stats_group: configfs "statistics" default group (one counter a file)
 * @entry:	on the global list
 * @name:	configfs name
 * @lock:	see the top of this file
 * @enabled:	store is up
 * @live:	see the top of this file
 * @live_done:	completed when @live reaches zero after a kill
 * @nr_blocks, @slots, @batch_max, @batch_timeout_us, @offload_read,
 * @inline_cache, @lease_ms, @seg_cache_mb, @kato_ms, @value_inline_max:
 *		attributes (attr_*)
 * @nr_buckets_attr: attr_nr_buckets (0: as the superblocks say, or as
 *		many as @nr_blocks for a new store)
 * @nr_buckets:	buckets while enabled (@nr_buckets_attr resolved)
 * @traddr, @trsvcid: RDMA listen address (addr_*)
 * @allow_any_host: admit hosts not in @hosts (attr_allow_any_host)
 * @max_clients: connections allowed at once (attr_max_clients)
 * @max_host_clients: connections one host NQN may hold at once under
 *		different host ids (attr_max_host_clients)
 * @hosts_lock:	protects @hosts and the secrets of its entries
 * @hosts:	struct scalio_tgt_host entries (allowed_hosts/)
 * @hosts_group: configfs "allowed_hosts" default group
 * @ssds:	configured SSDs, by index (NULL if absent)
 * @nr_ssds:	SSDs present, contiguous from 0 when enabled
 * @index:	DRAM index while enabled
 * @uuid:	store identity (from the superblocks, or new)
 * @hash_seed:	key-hash seed (from the superblocks, or new)
 * @stats:	counters
 * @format_on_enable: the next enable formats every SSD (attribute;
 *		cleared by a successful enable)
 * @force_recover: the next enable may drop damaged log batches that
 *		later batches follow (attribute; cleared likewise)
 * @report:	what the last enable found (a PAGE_SIZE text buffer)
 * @report_len:	bytes of @report in use
 * @transport:	owned by rdma.c
 */
struct scalio_tgt_store {
	struct config_group		group;
	struct config_group		ssds_group;
	struct config_group		stats_group;
	struct list_head		entry;
	char				name[SCALIO_NAME_MAX];

	struct mutex			lock;
	bool				enabled;
	struct percpu_ref		live;
	struct completion		live_done;

	u32				nr_blocks;
	u32				nr_buckets_attr;
	u32				nr_buckets;
	u32				slots;
	u32				batch_max;
	u32				batch_timeout_us;
	u32				lease_ms;
	u32				value_inline_max;
	bool				offload_read;
	bool				inline_cache;
	u32				seg_cache_mb;
	u32				kato_ms;
	char				traddr[SCALIO_ADDR_MAX];
	u32				trsvcid;
	bool				allow_any_host;
	u32				max_clients;
	u32				max_host_clients;
	struct mutex			hosts_lock;
	struct list_head		hosts;
	struct config_group		hosts_group;

	struct scalio_tgt_ssd		*ssds[SCALIO_MAX_SSDS];
	u32				nr_ssds;

	struct scalio_tgt_index		index;
	u8				uuid[16];
	u64				hash_seed;
	struct scalio_tgt_pcpu_stats __percpu *stats;

	bool				format_on_enable;
	bool				force_recover;
	char				*report;
	size_t				report_len;

	void				*transport;
};

/* Any context: the counters are per CPU, summed when read. */
static inline void scalio_tgt_stat_add(struct scalio_tgt_store *st,
				       enum scalio_tgt_tstat i, u64 v)
{
	this_cpu_add(st->stats->v[i], v);
}

/* core.c */
extern struct mutex scalio_tgt_stores_lock;
extern struct list_head scalio_tgt_stores;
/* Module parameters sane (module load). */
int scalio_tgt_params_check(void);
int scalio_tgt_store_enable(struct scalio_tgt_store *st);
void scalio_tgt_store_disable(struct scalio_tgt_store *st);
/* Find an enabled store and take a live reference, or NULL. */
struct scalio_tgt_store *scalio_tgt_store_get_live(const char *name);
static inline void scalio_tgt_store_put_live(struct scalio_tgt_store *st)
{
	percpu_ref_put(&st->live);
}
void scalio_tgt_store_stats(struct scalio_tgt_store *st,
			    struct scalio_target_stats *out);

/* configfs.c */
int scalio_tgt_configfs_init(void);
void scalio_tgt_configfs_exit(void);

/* index.c */
int scalio_tgt_index_alloc(struct scalio_tgt_index *idx, u32 nr_blocks,
			   u32 nr_buckets, u32 slots, u32 nr_ssds);
void scalio_tgt_index_free(struct scalio_tgt_index *idx);
/* Set a bucket's seg word and publish it (one aligned 8-byte store). */
void scalio_tgt_index_set_seg(struct scalio_tgt_index *idx, u32 bucket,
			      u64 seg);
/* The private copy: never what a client wrote. */
u64 scalio_tgt_index_get_seg(struct scalio_tgt_index *idx, u32 bucket);
u64 scalio_tgt_index_clock(struct scalio_tgt_index *idx);
u64 scalio_tgt_index_epoch_next(struct scalio_tgt_index *idx);
void scalio_tgt_index_retire(struct scalio_tgt_index *idx, u32 b, u64 epoch);
u64 scalio_tgt_index_retire_all(struct scalio_tgt_index *idx);

/* ssd.c: synchronous I/O in units; write is durable (preflush + FUA). */
int scalio_tgt_ssd_open(struct scalio_tgt_ssd *ssd);
void scalio_tgt_ssd_close(struct scalio_tgt_ssd *ssd);
int scalio_tgt_ssd_read(struct scalio_tgt_ssd *ssd, u64 unit, void *buf,
			u32 units);
int scalio_tgt_ssd_write(struct scalio_tgt_ssd *ssd, u64 unit, const void *buf,
			 u32 units);

/* commit.c */
int scalio_tgt_commit_start(struct scalio_tgt_ssd *ssd);
void scalio_tgt_commit_stop(struct scalio_tgt_ssd *ssd);	/* fails queued reqs */
/**
 * scalio_tgt_store_write() - queue a PUT or DELETE for group commit
 * @st:		store, with a live reference held by the caller
 * @req:	filled request; req->done is called exactly once (possibly
 *		before this function returns, on error)
 */
void scalio_tgt_store_write(struct scalio_tgt_store *st,
			    struct scalio_tgt_treq *req);
struct scalio_tgt_flow *scalio_tgt_flows_alloc(gfp_t gfp);
int scalio_tgt_store_write_barrier(struct scalio_tgt_store *st,
				   unsigned long timeout);
/* Probe failed SSDs, let those that pass take writes again (st->lock). */
int scalio_tgt_store_resume(struct scalio_tgt_store *st);

/* get.c */
/**
 * scalio_tgt_store_read() - look a key up on the SSD (GET by RPC)
 * @st:		store, live reference held; may sleep
 * @key, @klen:	key
 * @value:	SCALIO_VALUE_MAX bytes
 * @vlen:	out
 * @seg:	out: the seg word read
 *
 * Return: 0, -ENOENT, -EIO.
 */
int scalio_tgt_store_read(struct scalio_tgt_store *st, const u8 *key, u32 klen,
			  u8 *value, u32 *vlen, u64 *seg);

/* recovery.c: format an SSD when asked, or recover its log into the index. */
int scalio_tgt_recover_ssd(struct scalio_tgt_ssd *ssd);
u32 scalio_tgt_sb_buckets(struct scalio_tgt_ssd *ssd);
/* recovery.c: report a finding of enable (dmesg + the report attribute). */
__printf(3, 4)
void scalio_tgt_report(struct scalio_tgt_store *st, bool err, const char *fmt,
		       ...);

/* admit.c: who may use a store */
struct scalio_conn_bind;
/* How a host was admitted: by its proof, by its NQN alone, by any host. */
enum scalio_tgt_admit_how {
	SCALIO_TGT_ADMIT_SECRET,
	SCALIO_TGT_ADMIT_NQN_ALONE,
	SCALIO_TGT_ADMIT_ANY_HOST,
};
int scalio_tgt_admit(struct scalio_tgt_store *st, const char *hostnqn,
		     const u8 *host_id, const u8 *challenge, const u8 *nonce,
		     u16 client_id, const struct scalio_conn_bind *bind,
		     const u8 *mac, u8 *tmac, enum scalio_tgt_admit_how *how);
bool scalio_tgt_admit_listed(struct scalio_tgt_store *st, const char *hostnqn);

/* rdma.c / rpc.c: the transport half */
struct scalio_tgt_msg_ops;
int scalio_tgt_rdma_init(const struct scalio_tgt_msg_ops *ops);
void scalio_tgt_rdma_exit(void);
/* Start listening on st->traddr:st->trsvcid (store->lock held). */
int scalio_tgt_rdma_store_enable(struct scalio_tgt_store *st);
/* Stop listening, disconnect every client, drop their references. */
void scalio_tgt_rdma_store_disable(struct scalio_tgt_store *st);
/*
 * control.c: disconnect every client of @st admitted as @hostnqn, or (NULL)
 * every one admitted without an allowed_hosts entry (store->lock held).
 */
void scalio_tgt_ctl_hosts_changed(struct scalio_tgt_store *st,
				  const char *hostnqn, const char *why);

#endif /* _SCALIO_TARGET_H */
