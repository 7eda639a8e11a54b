/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * scalio user API: the host module's character devices and their ioctls.
 *
 * Sequence of use:
 *   1. open /dev/scalio-ctl and issue SCALIO_IOC_ATTACH with the target's
 *      RDMA address and the store name.  The module connects, performs the
 *      handshake and creates /dev/scalio/<store>.
 *   2. on /dev/scalio/<store>: SCALIO_IOC_SSD_INFO for each SSD index gives
 *      the NVMe-oF subsystem NQN and namespace id under which the target's
 *      nvmet exports that SSD; user space runs `nvme connect` and hands the
 *      resulting block device to the module with SCALIO_IOC_SSD_BIND.
 *      Until an SSD is bound, cache misses on its blocks are served by the
 *      target (as with offload_read=0).
 *   3. GET, PUT, DELETE, MULTI, STATS and SCAN on /dev/scalio/<store>.
 *   4. SCALIO_IOC_DETACH on /dev/scalio-ctl removes the store device; it
 *      fails with -EBUSY while the store device is open.
 *
 * Keys are 1..SCALIO_KEY_MAX bytes, values 0..SCALIO_VALUE_MAX bytes, both
 * opaque.  All pointers are passed as __u64.  Every reserved field must be
 * zero, every flags field may only hold defined bits, or the ioctl fails
 * with -EINVAL.
 */
#ifndef _UAPI_LINUX_SCALIO_H
#define _UAPI_LINUX_SCALIO_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define SCALIO_KEY_MAX		32
#define SCALIO_VALUE_MAX	4096
#define SCALIO_NAME_MAX		32	/* store name, including the NUL */
#define SCALIO_ADDR_MAX		64	/* IPv4 or IPv6 literal, with NUL */
#define SCALIO_NQN_MAX		224	/* NVMF_NQN_SIZE + NUL, rounded */
#define SCALIO_PATH_MAX		128	/* block device path, with NUL */
#define SCALIO_MULTI_MAX	256	/* ops in one SCALIO_IOC_MULTI */
#define SCALIO_SECRET_MIN	16	/* admission secret, bytes */
#define SCALIO_SECRET_MAX	128
#define SCALIO_HOST_ID_LEN	16	/* a UUID */

/*
 * Limits of the target's store attributes (configfs, the attr_* files of
 * /sys/kernel/config/scalio/stores/<store>/, and the module parameters that
 * seed them): a value outside gets -EINVAL.  Tools check them first.
 */
#define SCALIO_NR_BLOCKS_MAX	(1U << 24)	/* attr_nr_blocks: power of 2 */
#define SCALIO_NR_BUCKETS_MAX	(1U << 28)	/* attr_nr_buckets: power of 2 */
/* attr_nr_buckets / attr_nr_blocks at most (a block's seg words: 512 KiB) */
#define SCALIO_BUCKETS_PER_BLOCK_MAX (1U << 16)
#define SCALIO_SLOTS_MIN	4		/* attr_slots_per_block: 4, 8, 16 */
#define SCALIO_SLOTS_MAX	16
#define SCALIO_BATCH_MAX_LIMIT	1024U		/* attr_batch_max: 1.. */
#define SCALIO_BATCH_TIMEOUT_MAX_US 100000U	/* attr_batch_timeout_us: 0.. */
#define SCALIO_LEASE_MIN_MS	10		/* attr_lease_ms */
#define SCALIO_LEASE_MAX_MS	10000
#define SCALIO_SEG_CACHE_MB_MAX	65536		/* attr_seg_cache_mb: 0.. */
#define SCALIO_KATO_MIN_MS	3000		/* attr_kato_ms */
#define SCALIO_KATO_MAX_MS	3600000
#define SCALIO_KATO_DEF_MS	15000
/* ATTACH's fast_io_fail_ms (the host's store attribute of that name). */
#define SCALIO_FAST_IO_FAIL_DEF_MS	15000
#define SCALIO_FAST_IO_FAIL_MAX_MS	600000

#define SCALIO_CTL_DEV		"/dev/scalio-ctl"
#define SCALIO_STORE_DEV_FMT	"/dev/scalio/%s"

/**
 * struct scalio_kv - one key/value operation (GET, PUT, DELETE)
 * @key:	user pointer to the key bytes
 * @value:	user pointer to the value buffer (GET: out, PUT: in; DELETE: 0)
 * @klen:	key length, 1..SCALIO_KEY_MAX
 * @vlen:	PUT: value length, 0..SCALIO_VALUE_MAX.  GET: in, size of the
 *		buffer at @value; out, length of the stored value.  A GET whose
 *		buffer is too small fails with -EOVERFLOW and still reports the
 *		needed length here.
 * @flags:	must be 0
 * @result:	MULTI only: 0 or a negative errno for this op (out)
 * @reserved:	must be 0
 *
 * Errors of a PUT that the target refuses: -EFBIG, the key's hash block
 * is full (its segment would exceed 255 units; other keys still go in);
 * -ENOSPC, the store's log is full (the cleaner cannot free space).
 */
struct scalio_kv {
	__u64	key;
	__u64	value;
	__u32	klen;
	__u32	vlen;
	__u32	flags;
	__s32	result;
	__u64	reserved[2];
};

enum scalio_opcode {
	SCALIO_OP_GET		= 1,
	SCALIO_OP_PUT		= 2,
	SCALIO_OP_DELETE	= 3,
};

/**
 * struct scalio_multi_op - one element of a SCALIO_IOC_MULTI array
 * @opcode:	enum scalio_opcode
 * @pad:	must be 0
 * @kv:		the operation; kv.result receives its outcome
 */
struct scalio_multi_op {
	__u32			opcode;
	__u32			pad;
	struct scalio_kv	kv;
};

/**
 * struct scalio_multi - a batch of independent operations issued together
 * @ops:	user pointer to an array of struct scalio_multi_op
 * @nr:		number of ops, 1..SCALIO_MULTI_MAX
 * @flags:	must be 0
 * @nr_done:	out: ops completed (successfully or not)
 * @reserved:	must be 0
 *
 * The ops are issued concurrently; no order among them is guaranteed.  The
 * ioctl returns 0 when every op has completed (each op's result tells its
 * outcome), or a negative errno if the array itself could not be read.
 */
struct scalio_multi {
	__u64	ops;
	__u32	nr;
	__u32	flags;
	__u32	nr_done;
	__u32	reserved[3];
};

/**
 * struct scalio_attach_auth - who this host is, for the target's admission
 * @size:	sizeof(struct scalio_attach_auth) as user space knows it; a
 *		larger one is accepted if the extra bytes are zero
 * @secret_len:	bytes of @secret in use: 0 (no secret) or
 *		SCALIO_SECRET_MIN..SCALIO_SECRET_MAX
 * @host_id:	the host's stable identity (e.g. /etc/nvme/hostid as a
 *		UUID); all zero selects the module's (parameter hostid)
 * @hostnqn:	host NQN, NUL-terminated; empty selects the module's
 *		(parameter hostnqn)
 * @secret:	the secret the target holds for @hostnqn (its
 *		allowed_hosts/<nqn>/dhchap_key).  It never leaves this host:
 *		the module proves it with HMAC-SHA256 over a challenge.
 * @reserved:	must be 0
 */
struct scalio_attach_auth {
	__u32	size;
	__u32	secret_len;
	__u8	host_id[SCALIO_HOST_ID_LEN];
	char	hostnqn[SCALIO_NQN_MAX];
	__u8	secret[SCALIO_SECRET_MAX];
	__u64	reserved[4];
};

/**
 * struct scalio_attach - connect to a store (on /dev/scalio-ctl)
 * @store:	store name as configured on the target, NUL-terminated
 * @traddr:	target RDMA address (IPv4 or IPv6 literal), NUL-terminated
 * @trsvcid:	target RDMA port
 * @flags:	SCALIO_ATTACH_F_*
 * @timeout_ms:	connect timeout; 0 selects the default (5000)
 * @reserved0:	must be 0
 * @auth:	user pointer to a struct scalio_attach_auth, or 0 for the
 *		module's host NQN and id and no secret
 * @fast_io_fail_ms: with SCALIO_ATTACH_F_FAST_IO_FAIL, how long an
 *		operation that finds the connection down waits for the
 *		reconnect before it fails with -EHOSTDOWN, 0 (fail at once)
 *		to SCALIO_FAST_IO_FAIL_MAX_MS; without the flag it must be 0
 *		and SCALIO_FAST_IO_FAIL_DEF_MS applies
 * @reserved:	must be 0
 *
 * Besides the connection errors, ATTACH fails with -EACCES when the target
 * does not admit the host NQN, -ENOKEY when the target holds a secret for
 * it and none was given, -EKEYREJECTED when the secret is wrong.
 */
struct scalio_attach {
	char	store[SCALIO_NAME_MAX];
	char	traddr[SCALIO_ADDR_MAX];
	__u32	trsvcid;
	__u32	flags;
	__u32	timeout_ms;
	__u32	reserved0;
	__u64	auth;
	__u32	fast_io_fail_ms;
	__u32	reserved;
};

/* struct scalio_attach flags */
#define SCALIO_ATTACH_F_FAST_IO_FAIL	(1U << 0)	/* fast_io_fail_ms is set */

/**
 * struct scalio_detach - disconnect a store (on /dev/scalio-ctl)
 * @store:	store name, NUL-terminated
 * @flags:	must be 0
 * @reserved:	must be 0
 */
struct scalio_detach {
	char	store[SCALIO_NAME_MAX];
	__u32	flags;
	__u32	reserved[7];
};

/**
 * struct scalio_ssd_info - what the target exports for SSD @index
 * @index:	in: SSD index, 0..nr_ssds-1
 * @nsid:	out: NVMe namespace id
 * @nr_ssds:	out: number of SSDs of the store
 * @bound:	out: 1 if a block device is bound to this index
 * @nqn:	out: NVMe-oF subsystem NQN, NUL-terminated
 * @capacity_sectors: out: size the target sees, in 512-byte sectors
 * @reserved:	must be 0 (in), 0 (out)
 */
struct scalio_ssd_info {
	__u32	index;
	__u32	nsid;
	__u32	nr_ssds;
	__u32	bound;
	char	nqn[SCALIO_NQN_MAX];
	__u64	capacity_sectors;
	__u64	reserved[4];
};

/**
 * struct scalio_ssd_bind - hand a connected NVMe-oF namespace to the store
 * @index:	SSD index the namespace carries
 * @flags:	must be 0
 * @path:	block device path (e.g. /dev/nvme1n1), NUL-terminated.  The
 *		module opens it read-only and checks that its size matches and
 *		that its superblock names this store and @index (-EINVAL
 *		otherwise: another SSD of the store, or of another store).
 * @reserved:	must be 0
 */
struct scalio_ssd_bind {
	__u32	index;
	__u32	flags;
	char	path[SCALIO_PATH_MAX];
	__u64	reserved[4];
};

/* Store feature bits reported in scalio_stats.features. */
#define SCALIO_F_OFFLOAD_READ	(1ULL << 0)	/* GET misses read the SSD directly */
#define SCALIO_F_INLINE_CACHE	(1ULL << 1)	/* values cached in index slots */
#define SCALIO_F_FILL_TOKEN	(1ULL << 2)	/* slots published with the fill token */
#define SCALIO_F_BLOCK_EPOCH	(1ULL << 3)	/* slots bound to their block's epoch */

/**
 * struct scalio_host_stats - counters of this host for one store
 *
 * All counters are measured events since attach.
 */
struct scalio_host_stats {
	__u64	gets;
	__u64	puts;
	__u64	deletes;
	__u64	cache_hits;
	__u64	cache_misses;
	__u64	ssd_reads;		/* NVMe-oF reads issued by this host */
	__u64	rpc_gets;		/* GETs served by the target */
	__u64	rdma_reads;
	__u64	rdma_cas;
	__u64	cas_failures;
	__u64	retries;		/* GET restarts (B seen, collision, lost lock) */
	__u64	lease_reclaims;
	__u64	invalidations;		/* slots invalidated by this host's writes */
	__u64	header_mismatches;	/* segment header did not match seg */
	__u64	errors;
	__u64	reconnects;		/* connections re-established after a loss */
	__u64	waits;			/* network waits of KV ops and clock reads */
	__u64	lease_renewals;		/* slot locks renewed by a slow fill */
	__u64	lease_giveups;		/* fills that stopped renewing: GET timed out */
	__u64	ssd_read_timeouts;	/* SSD reads still running at their GET's end (or kill) */
	__u64	reconnect_waits;	/* operations' waits for a lost connection */
	__u64	reconnect_wait_ns;	/* ... and their time */
	__u64	fast_io_fails;		/* operations failed unsent with EHOSTDOWN */
	__u64	lost_get_retries;	/* GETs lost with the connection, started over */
	__u64	get_val_reads;		/* value extents GET misses read (format 5) */
	__u64	get_val_stale;		/* ... that had moved: seg read again */
	__u64	retired_evictions;	/* C slots evicted as filled under an older block epoch */
	__u64	opt_misses;		/* misses answered before their cache fill */
	__u64	bg_queued;		/* cache fills handed to the background */
	__u64	bg_fills;		/* ... that are over (or were refused) */
	__u64	bg_fill_drops;		/* ... that cached nothing (busy, moved, lost, full) */
	__u64	bg_waits;		/* network waits of background fills (not in waits) */
};

/**
 * struct scalio_target_stats - counters of the target for one store
 *
 * Fetched from the target over the connection; summed over all clients.
 * CPU times are in nanoseconds of task time spent by the target's
 * commit/cleaner kthreads and by its RPC handlers.  @ssd_failed has bit i
 * set when a log write of SSD i failed (its writes fail with -EIO until
 * the store is re-enabled) or its last I/O failed (0 from targets that
 * predate it).
 */
struct scalio_target_stats {
	__u64	rpc_gets;
	__u64	rpc_puts;
	__u64	rpc_deletes;
	__u64	rpc_other;
	__u64	ssd_reads;
	__u64	ssd_writes;
	__u64	ssd_write_bytes;
	__u64	batches;
	__u64	batched_ops;
	__u64	cleaner_runs;
	__u64	cleaner_moved;
	__u64	cpu_ns_commit;
	__u64	cpu_ns_rpc;
	__u64	cpu_ns_cleaner;
	__u64	log_used_units;
	__u64	log_total_units;
	__u64	keys;
	__u64	ssd_failed;
	__u64	seg_cache_hits;		/* commit path found a block's segment in DRAM */
	__u64	seg_cache_misses;	/* ... and had to read it from the SSD */
	__u64	seg_cache_evictions;
	__u64	commit_write_ns;	/* wall time of the commit threads' batch writes */
	__u64	commit_wait_ns;		/* ... and of their waits for announced company */
	__u64	live_bytes;		/* bytes of the blocks' current segments on the SSDs */
	__u64	index_bytes;		/* DRAM of the index: blocks, seg tables, generations */
	__u64	vals_written;		/* value extents written by client writes */
	__u64	val_bytes_written;	/* ... their bytes */
	__u64	vals_moved;		/* value extents the cleaner relocated */
	__u64	live_val_bytes;		/* bytes of the extents current records point to */
	__u64	blocks_retired;		/* block epochs advanced for departed writers' owed invalidations */
	__u64	reserved[2];
};

/**
 * struct scalio_stats - SCALIO_IOC_STATS result
 * @size:	in: sizeof(struct scalio_stats) as user space knows it:
 *		SCALIO_STATS_SIZE_VER0 (up to @target) or the size of this
 *		version; the module reads and writes only @size bytes
 * @flags:	in: SCALIO_STATS_F_TARGET to fetch the target's counters
 * @features:	out: SCALIO_F_* of the store
 * @nr_ssds:	out
 * @nr_blocks:	out: cache blocks in the index
 * @slots_per_block: out
 * @target_valid: out: 1 if @target was filled
 * @host:	out
 * @target:	out
 * @nr_buckets:	out: buckets of the store (segments on the SSDs); since
 *		SCALIO_STATS_SIZE_VER1
 * @pad:	0
 *
 * Fields are only ever added at the end; the ioctl number of
 * SCALIO_IOC_STATS carries @size (_IOC_SIZE) and the module accepts every
 * size it knows.
 */
struct scalio_stats {
	__u32	size;
	__u32	flags;
	__u64	features;
	__u32	nr_ssds;
	__u32	nr_blocks;
	__u32	slots_per_block;
	__u32	target_valid;
	struct scalio_host_stats	host;
	struct scalio_target_stats	target;
	/* SCALIO_STATS_SIZE_VER0 ends here */
	__u32	nr_buckets;
	__u32	pad;
};

#define SCALIO_STATS_F_TARGET	(1U << 0)
/* The sizes struct scalio_stats had: VER0 without nr_buckets. */
#define SCALIO_STATS_SIZE_VER0	544
#define SCALIO_STATS_SIZE_VER1	552

/**
 * struct scalio_scan - SCALIO_IOC_SCAN: the pairs of a run of buckets
 * @buf:	user pointer to the output buffer (records, see below)
 * @buf_len:	in: bytes at @buf, a multiple of 8 in
 *		SCALIO_SCAN_BUF_MIN..SCALIO_SCAN_BUF_MAX; out: bytes filled,
 *		or with -EOVERFLOW the bytes the first bucket's pairs need
 * @bucket:	in: the cursor: how many buckets of the scan order come
 *		before the first one to scan (0 starts a scan), below
 *		@store_buckets; out: the cursor of the next bucket to scan,
 *		= @store_buckets when the scan is complete.  It is a position
 *		in the scan order, not a bucket number (see below)
 * @max_buckets: in: scan at most this many buckets,
 *		1..SCALIO_SCAN_BUCKETS_MAX, or 0 for as many as fit (up to
 *		SCALIO_SCAN_BUCKETS_MAX)
 * @flags:	must be 0
 * @nr_buckets:	out: buckets scanned (their pairs are all in @buf)
 * @nr_pairs:	out: records in @buf
 * @store_buckets: out: buckets of the store (the cursor's end)
 * @reserved:	must be 0
 *
 * Reads the buckets the way a GET miss does, without the target's CPU:
 * each bucket's seg word with a one-sided RDMA READ, its segment from the
 * bound SSD over NVMe-oF, checked against the seg word (bucket,
 * generation, crc) and read again when the segment moved.  Buckets are
 * never split: every bucket scanned has all of its pairs in @buf, as they
 * were at one moment (when its seg word was read).  Different buckets are
 * read at different moments: a scan of the whole store is a point-in-time
 * copy only while nobody writes.  Deleted keys have no record: a segment
 * holds only the bucket's live pairs.
 *
 * The scan order is the order of the target's seg table: the buckets of
 * cache block 0, then those of block 1, and so on (many seg words come
 * with one READ).  Walking the cursor from 0 to @store_buckets visits
 * every bucket once; each record names the bucket it came from.
 *
 * @buf receives @nr_pairs records, each a struct scalio_scan_rec, the key,
 * the value and zeroes up to SCALIO_SCAN_REC_SIZE(klen, vlen) bytes.
 *
 * The call stops before a bucket whose pairs do not fit any more, after
 * @max_buckets buckets, at the end of the store, or at a signal (after at
 * least one bucket).  A bucket that cannot be read ends the call there if
 * buckets were scanned before it (success, @bucket names it); otherwise
 * the call fails with its error and @bucket unchanged: -EIO (its segment
 * is damaged, or never matched its seg word), -ENODEV (its SSD is not
 * bound, or too many SSD reads hang), -ETIMEDOUT, -ENOTCONN, -EHOSTDOWN,
 * -EINTR.  -EOVERFLOW: the first bucket's pairs need more than @buf_len
 * (given back in @buf_len; at most SCALIO_SCAN_BUF_MAX).  -EINVAL: a
 * field out of range (@bucket at or past the store's bucket count
 * included).
 */
struct scalio_scan {
	__u64	buf;
	__u32	buf_len;
	__u32	bucket;
	__u32	max_buckets;
	__u32	flags;
	__u32	nr_buckets;
	__u32	nr_pairs;
	__u32	store_buckets;
	__u32	reserved[7];
};

/**
 * struct scalio_scan_rec - one pair in a SCALIO_IOC_SCAN buffer
 * @bucket:	the bucket it was read from (a bucket number)
 * @klen:	1..SCALIO_KEY_MAX
 * @flags:	0
 * @vlen:	0..SCALIO_VALUE_MAX
 *
 * Followed by the key, the value and zero padding to the next record
 * (8-byte aligned within the buffer).
 */
struct scalio_scan_rec {
	__u32	bucket;
	__u8	klen;
	__u8	flags;
	__u16	vlen;
};

#define SCALIO_SCAN_REC_SIZE(klen, vlen) \
	((sizeof(struct scalio_scan_rec) + (klen) + (vlen) + 7) & ~7UL)
#define SCALIO_SCAN_BUF_MIN	8192
/* Holds any bucket: a segment is at most 255 units of records of 5 bytes. */
#define SCALIO_SCAN_BUF_MAX	(16U << 20)
#define SCALIO_SCAN_BUCKETS_MAX	4096

#define SCALIO_IOC_MAGIC	0xE7

/* On /dev/scalio-ctl. */
#define SCALIO_IOC_ATTACH	_IOW(SCALIO_IOC_MAGIC, 0x01, struct scalio_attach)
#define SCALIO_IOC_DETACH	_IOW(SCALIO_IOC_MAGIC, 0x02, struct scalio_detach)

/* On /dev/scalio/<store>. */
#define SCALIO_IOC_GET		_IOWR(SCALIO_IOC_MAGIC, 0x10, struct scalio_kv)
#define SCALIO_IOC_PUT		_IOWR(SCALIO_IOC_MAGIC, 0x11, struct scalio_kv)
#define SCALIO_IOC_DELETE	_IOWR(SCALIO_IOC_MAGIC, 0x12, struct scalio_kv)
#define SCALIO_IOC_MULTI	_IOWR(SCALIO_IOC_MAGIC, 0x13, struct scalio_multi)
#define SCALIO_IOC_STATS	_IOWR(SCALIO_IOC_MAGIC, 0x14, struct scalio_stats)
#define SCALIO_IOC_SSD_INFO	_IOWR(SCALIO_IOC_MAGIC, 0x15, struct scalio_ssd_info)
#define SCALIO_IOC_SSD_BIND	_IOW(SCALIO_IOC_MAGIC, 0x16, struct scalio_ssd_bind)
/*
 * SCALIO_IOC_CLOCK: the target's clock word (the one leases and last_ts
 * are stamped with), read with one RDMA READ at the time of the call.  In
 * ticks of 1/clock_hz s (the clock_hz of the target's index header: 1000,
 * i.e. milliseconds), advanced by the target only, never decreasing, and
 * common to every host of the store: tests bracket operations with it to
 * get timestamps comparable across hosts without any clock synchronization.
 * The target advances it from a timer, so it moves in steps of a few ticks.
 */
#define SCALIO_IOC_CLOCK	_IOR(SCALIO_IOC_MAGIC, 0x17, __u64)
/* SCALIO_IOC_SCAN: struct scalio_scan above (scalioctl export). */
#define SCALIO_IOC_SCAN		_IOWR(SCALIO_IOC_MAGIC, 0x18, struct scalio_scan)

/*
 * Asynchronous GET, PUT and DELETE: IORING_OP_URING_CMD on
 * /dev/scalio/<store> (Documentation/uapi.rst has a liburing example).
 *
 *   sqe->opcode	IORING_OP_URING_CMD
 *   sqe->fd		the open store device
 *   sqe->cmd_op	SCALIO_URING_CMD_GET, _PUT or _DELETE
 *   sqe->cmd		struct scalio_uring_cmd (the first 16 bytes; with
 *			IORING_SETUP_SQE128 the other 64 must be zero)
 *   sqe->uring_cmd_flags  0 (registered buffers are not supported)
 *
 * At submission the struct scalio_kv, the key and a PUT's value are
 * copied in and checked as by the ioctls; a bad field completes the
 * command at once with cqe->res = -EINVAL, -E2BIG or -EFAULT, an unknown
 * cmd_op with -ENOTTY, and more than SCALIO_URING_MAX_INFLIGHT commands in
 * flight on one store with -EBUSY.  The command then runs in the
 * background; its completion has
 *   cqe->res		GET: the value's length (>= 0); PUT, DELETE: 0;
 *			or a negative errno as the ioctl would return it
 *   cqe->big_cqe[0]	(IORING_SETUP_CQE32 only) GET: the value's length,
 *			also with -EOVERFLOW (the size needed)
 * and, as the ioctls do, kv.vlen (GET) and kv.result are written back to
 * the struct scalio_kv, whose memory (and a GET's value buffer) must
 * therefore stay valid until the completion.  Operations in flight
 * together are independent: no order among them is guaranteed.  Closing
 * the ring or the device with commands in flight is safe: each finishes
 * (in bounded time) or is cancelled with -ECANCELED.  IORING_SETUP_IOPOLL
 * rings are refused (-EOPNOTSUPP).
 */

/**
 * struct scalio_uring_cmd - the payload of a scalio IORING_OP_URING_CMD
 * @kv:		user pointer to the operation's struct scalio_kv
 * @flags:	must be 0
 * @reserved:	must be 0
 */
struct scalio_uring_cmd {
	__u64	kv;
	__u32	flags;
	__u32	reserved;
};

#define SCALIO_URING_MAX_INFLIGHT	1024	/* per store, all rings */

#define SCALIO_URING_CMD_GET	_IOWR(SCALIO_IOC_MAGIC, 0x20, struct scalio_uring_cmd)
#define SCALIO_URING_CMD_PUT	_IOWR(SCALIO_IOC_MAGIC, 0x21, struct scalio_uring_cmd)
#define SCALIO_URING_CMD_DELETE	_IOWR(SCALIO_IOC_MAGIC, 0x22, struct scalio_uring_cmd)

#endif /* _UAPI_LINUX_SCALIO_H */
