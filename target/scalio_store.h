/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals shared by the files of the store half of scalio-target
 * (core.c, configfs.c, commit.c, recovery.c, cleaner.c).  The transport
 * half never includes this; its contract is scalio_target.h.
 *
 * Log space.  The log is a circle of log_units units starting at
 * log_start.  Units in use run from log.head (the oldest batch that may
 * still hold a live segment) forward to log.tail (where the next batch
 * goes); log.used_units counts them, including the units skipped at the
 * end of the log when a batch did not fit there and went to log_start.
 * Only the SSD's commit kthread (and, before it starts, recovery) touches
 * any of this.
 *
 * Space rules, so that the cleaner can always make progress:
 *   - no batch is larger than SCALIO_BUF_UNITS units (header included);
 *   - a client batch is written only if SCALIO_LOG_RESERVE units stay
 *     free afterwards: enough for the cleaner to relocate one buffer of
 *     live segments even if it has to wrap;
 *   - a PUT that makes its bucket's segment larger goes in only if
 *     SCALIO_SHRINK_RESERVE more units stay free: a log full of live data
 *     still takes DELETEs (and PUTs that do not grow), whose garbage the
 *     cleaner can then reclaim;
 *   - the cleaner runs before a batch is built whenever fewer than
 *     scalio_tgt_log_levels()'s start units are free.
 */
#ifndef _SCALIO_STORE_H
#define _SCALIO_STORE_H

#include <linux/sched/cputime.h>

#include "scalio_target.h"
#include "../common/scalio_segcache.h"
#include "../common/scalio_space.h"

/* Largest batch, in units; also the size of the read arena. */
#define SCALIO_BUF_UNITS	512U
/*
 * Stop admitting requests to a batch once it is estimated this large: one
 * more may add a whole segment and a value extent (3 units at most).
 */
#define SCALIO_BATCH_SOFT_UNITS	(SCALIO_BUF_UNITS - SCALIO_SEG_LEN_MAX - 4 - 3)
/* Free units a client batch must leave for the cleaner. */
#define SCALIO_LOG_RESERVE	(2 * SCALIO_BUF_UNITS + 2)
/* Free units only requests that add no live data may use. */
#define SCALIO_SHRINK_RESERVE	SCALIO_BUF_UNITS
/* Smallest log a store accepts. */
#define SCALIO_LOG_MIN_UNITS	(8 * SCALIO_BUF_UNITS)
/*
 * Where a batch after a damaged one can start: batches are at most
 * SCALIO_BATCH_MAX_UNITS long, so the two after it begin within this many
 * units of its start (or of the log start, after a wrap), and, each taking
 * a unit at least, none has a sequence number more than this much higher.
 */
#define SCALIO_PROBE_UNITS	(2 * SCALIO_BATCH_MAX_UNITS)
/* Units a read of one value extent covers at most (4152 bytes, unaligned). */
#define SCALIO_VAL_READ_UNITS	3U
/* Most buckets one batch touches (attr_batch_max is at most this). */
#define SCALIO_TB_MAX		1024U

/* The value is an extent already on the SSD: @vref says where. */
#define SCALIO_KENT_VPTR	0x01
/* The value (@value, @vlen) goes to a new extent of the batch. */
#define SCALIO_KENT_NEWVAL	0x02

/**
 * struct scalio_tgt_kent - one record of a bucket being rewritten
 * @key:	key bytes (in an old segment or in a request)
 * @value:	value bytes (idem; for a new extent, in a request or in a
 *		log batch the cleaner read)
 * @klen:	key length
 * @vlen:	value length (SCALIO_KENT_VPTR: the vptr's, unused)
 * @flags:	SCALIO_KENT_*; 0: the value is stored inline
 * @vref:	where the extent is (SCALIO_KENT_VPTR), or will be once the
 *		batch is built (SCALIO_KENT_NEWVAL)
 */
struct scalio_tgt_kent {
	const u8		*key;
	const u8		*value;
	u8			klen;
	u8			flags;
	u16			vlen;
	struct scalio_vref	vref;
};

/* Bytes @e's record takes in its segment. */
static inline u32 scalio_tgt_kent_rec_bytes(const struct scalio_tgt_kent *e)
{
	return scalio_rec_size(e->klen, e->flags ?
			       sizeof(struct scalio_vptr) : e->vlen);
}

/* Bytes of log the extent of @e's value takes (0: inline). */
static inline u32 scalio_tgt_kent_val_bytes(const struct scalio_tgt_kent *e)
{
	if (e->flags & SCALIO_KENT_NEWVAL)
		return scalio_val_size(e->klen, e->vlen);
	if (e->flags & SCALIO_KENT_VPTR)
		return scalio_val_size(e->klen, e->vref.len);
	return 0;
}

/**
 * struct scalio_tgt_tbucket - a bucket touched by the batch being built
 * @bucket:	hash bucket
 * @nr:		records in @ents
 * @cap:	capacity of @ents
 * @ents:	the bucket's records after the batch's operations
 * @bytes:	size of the segment @ents make (header included)
 * @val_bytes:	log bytes of the extents @ents point to
 * @old_nr:	records of the segment it replaces
 * @old_bytes:	its bytes (0: none)
 * @old_val_bytes: bytes of the extents it points to
 * @dirty:	the batch writes a new segment for the bucket
 * @seg:	new seg word, once the batch is written
 */
struct scalio_tgt_tbucket {
	u32			bucket;
	u32			nr;
	u32			cap;
	struct scalio_tgt_kent	*ents;
	u32			bytes;
	u32			val_bytes;
	u32			old_nr;
	u32			old_bytes;
	u32			old_val_bytes;
	bool			dirty;
	u64			seg;
};

/**
 * struct scalio_tgt_commit - per-SSD state of the store half
 * @buf:	image of the batch being written (SCALIO_BUF_UNITS units)
 * @arena:	old segments read for the batch being built, or log batches
 *		read by the cleaner (SCALIO_BUF_UNITS units)
 * @arena_used:	units of @arena in use
 * @ckpt:	image of one checkpoint slot (sb.ckpt_units units)
 * @nr_owned:	buckets this SSD owns
 * @tb_of:	owned bucket index -> 1 + index in @tbs, 0 if untouched
 * @tbs:	touched buckets of the batch being built
 * @nr_tbs:	entries of @tbs in use
 * @batch:	requests of the batch being built, in arrival order
 * @pending_bytes: payload bytes on ssd->pending (ssd->lock)
 * @stopping:	no more requests are accepted (ssd->lock)
 * @since_ckpt:	log units written since the last checkpoint
 * @keys:	keys stored on this SSD
 * @live_bytes:	bytes of its buckets' current segments (what the cleaner
 *		must keep; the rest of the used log is garbage)
 * @live_sectors: sectors those segments take (each starts on a sector):
 *		what relocating them all would write, for the cleaner levels
 * @live_val_bytes: bytes of the value extents their records point to
 *		(also live: the cleaner relocates them with their buckets)
 * @new_val_bytes: bytes of the new extents of the batch being built
 * @failed:	a log write failed: no more writes until the store is
 *		resumed (scalio_tgt_store_resume()) or re-enabled
 * @failed_pos:	where the failed batch was written (its units may hold
 *		part of it)
 * @resume:	a resume request for the commit kthread (ssd->lock)
 * @resume_ret:	its result, valid once @resume is clear again
 * @status:	result of each request of the batch being built
 * @sc:		segment cache (segcache.c)
 * @sc_mem:	its entries and hash heads (scalio_sc_mem_bytes())
 * @sc_bytes:	their size: bounded by the cache's budget, not the buckets
 * @stuck_head:	log head at which the cleaner last could not go on
 * @stuck_until: until then (jiffies) it does not try that head again
 */
struct scalio_tgt_commit {
	void			*buf;
	void			*arena;
	u32			arena_used;
	void			*ckpt;
	u32			nr_owned;
	u16			*tb_of;
	struct scalio_tgt_tbucket	*tbs;
	u32			nr_tbs;
	struct list_head	batch;
	u64			pending_bytes;
	bool			stopping;
	u64			since_ckpt;
	u64			keys;
	u64			live_bytes;
	u64			live_sectors;
	u64			live_val_bytes;
	u32			new_val_bytes;
	bool			failed;
	u64			failed_pos;
	bool			resume;
	int			resume_ret;
	int			status[SCALIO_BATCH_MAX_LIMIT];
	struct scalio_segcache	sc;
	void			*sc_mem;
	size_t			sc_bytes;
	u64			stuck_head;
	unsigned long		stuck_until;
};

/* core.c */
void scalio_tgt_store_set_defaults(struct scalio_tgt_store *st);

/* commit.c: per-SSD state, alloc before recovery, free after stop. */
int scalio_tgt_commit_alloc(struct scalio_tgt_ssd *ssd);
void scalio_tgt_commit_free(struct scalio_tgt_ssd *ssd);

/* Index into ssd->gens and commit->tb_of of a bucket this SSD owns. */
static inline u32 scalio_tgt_owned_idx(const struct scalio_tgt_ssd *ssd,
				       u32 bucket)
{
	return bucket / ssd->store->nr_ssds;
}

/*
 * CPU time the calling task (an SSD's commit kthread) has used, in ns: user
 * plus system time as the scheduler accounts it.
 */
static inline u64 scalio_tgt_task_cpu_ns(void)
{
	u64 utime, stime;

	task_cputime_adjusted(current, &utime, &stime);
	return utime + stime;
}

/* Sectors the new value extents of the batch being built take. */
static inline u32 scalio_tgt_val_sectors(const struct scalio_tgt_commit *c)
{
	return DIV_ROUND_UP(c->new_val_bytes, SCALIO_SECTOR_SIZE);
}

/* Sectors a bucket of the batch takes in it (0 if unchanged). */
static inline u32 scalio_tgt_tb_sectors(const struct scalio_tgt_tbucket *tb)
{
	return tb->dirty ? DIV_ROUND_UP(tb->bytes, SCALIO_SECTOR_SIZE) : 0;
}

/* Units of a batch of @sectors sectors, its header sector included. */
static inline u32 scalio_tgt_batch_units(u32 sectors)
{
	return DIV_ROUND_UP(sectors, SCALIO_SECTORS_PER_UNIT);
}

/* First unit of the checkpoint slot that checkpoint @seq goes to. */
static inline u64 scalio_tgt_ckpt_slot_unit(const struct scalio_tgt_ssd *ssd,
					    u64 seq)
{
	return SCALIO_CKPT_UNIT +
	       (seq & 1) * le64_to_cpu(ssd->log.sb.ckpt_units);
}

/* Read errors that may mean the units themselves are bad. */
static inline bool scalio_tgt_media_err(int err)
{
	return err == -EIO || err == -ENODATA || err == -EILSEQ;
}

/*
 * Is @ssd failed: a log write failed (writes refused until resumed),
 * or its last I/O did (a read error, a device that went away)?
 */
static inline bool scalio_tgt_commit_failed(const struct scalio_tgt_ssd *ssd)
{
	return READ_ONCE(ssd->commit->failed) || READ_ONCE(ssd->io_failed);
}

/* segcache.c: the commit kthread's cache of recently written segments. */
int scalio_tgt_segcache_alloc(struct scalio_tgt_ssd *ssd);
void scalio_tgt_segcache_free(struct scalio_tgt_ssd *ssd);
const void *scalio_tgt_segcache_lookup(struct scalio_tgt_ssd *ssd, u32 bucket,
				       u64 seg, u64 gen);
void scalio_tgt_segcache_publish(struct scalio_tgt_ssd *ssd, u32 bucket, u64 seg,
				 u64 gen, const void *img);

/*
 * log.c: log space, the batch being built and its write, checkpoints, and
 * reading batches back.  Commit kthread, or recovery before it starts.
 */
u64 scalio_tgt_log_end(const struct scalio_tgt_ssd *ssd);
u64 scalio_tgt_log_free(const struct scalio_tgt_ssd *ssd);
u64 scalio_tgt_log_consume(const struct scalio_tgt_ssd *ssd, u32 n);
void scalio_tgt_log_levels(const struct scalio_tgt_ssd *ssd,
			   struct scalio_space_levels *lv);
u64 scalio_tgt_log_dist(const struct scalio_tgt_ssd *ssd, u64 from, u64 to);
int scalio_tgt_tb_reserve(struct scalio_tgt_tbucket *tb, u32 n);
struct scalio_tgt_tbucket *scalio_tgt_tb_get(struct scalio_tgt_ssd *ssd,
					    u32 bucket, const void *seg);
int scalio_tgt_tb_find(const struct scalio_tgt_tbucket *tb, const u8 *key,
		       u32 klen);
int scalio_tgt_batch_write(struct scalio_tgt_ssd *ssd, u64 reserve);
void scalio_tgt_batch_reset(struct scalio_tgt_ssd *ssd);
int scalio_tgt_checkpoint_write(struct scalio_tgt_ssd *ssd);
/* The units a seg word names, the segment moved to the start of @buf. */
int scalio_tgt_seg_read(struct scalio_tgt_ssd *ssd, u64 seg, void *buf,
			u32 units);
/* A live segment, read and checked. */
int scalio_tgt_seg_read_live(struct scalio_tgt_ssd *ssd, u32 bucket, u64 seg,
			     u64 gen, void *buf);
int scalio_tgt_val_read(struct scalio_tgt_ssd *ssd, const u8 *key, u32 klen,
			const struct scalio_vref *v, void *buf,
			const u8 **value);
int scalio_tgt_log_read_units(struct scalio_tgt_ssd *ssd, u64 pos, void *buf,
			      u32 n);
/* Read and verify the batch with sequence @seq at @pos. */
int scalio_tgt_log_read_batch(struct scalio_tgt_ssd *ssd, u64 pos, u64 seq,
			      void *buf, u32 max_units);
/* scalio_batch_next_seg() (common/scalio_format.h) walks what it read. */
int scalio_tgt_log_probe(struct scalio_tgt_ssd *ssd, u64 pos, u64 seq,
			 u64 below, u64 *fpos, u64 *fseq, u32 *unreadable);

/* cleaner.c: make room in the log (commit kthread). */
int scalio_tgt_cleaner_run(struct scalio_tgt_ssd *ssd, u64 need_units);

#endif /* _SCALIO_STORE_H */
