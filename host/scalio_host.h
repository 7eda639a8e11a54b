/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scalio-host private header: every struct of the host module and the
 * prototypes between its files.
 *
 *   core.c   module init/exit, /dev/scalio-ctl (ATTACH, DETACH), the store
 *            list, per-store misc devices /dev/scalio/<store>
 *   ioctl.c  the store device's ioctls: copying and validating arguments
 *   rdma.c   the transport: QP/CQ, buffers, tagged RPCs, one-sided READ,
 *            WRITE and compare-and-swap; calls nothing above it
 *   conn.c   the connection lifecycle: rdma_cm, teardown, reconnect (which
 *            pays owed invalidations), RDMA device removal
 *   handshake.c HELLO, CHUNKS, SSD_INFO and STATS
 *   uring.c  the store device's io_uring commands (asynchronous ioctls)
 *   read.c   GET: the one-sided slot protocol
 *   write.c  PUT/DELETE by RPC, then slot invalidation
 *   ssd.c    SSD binding and segment reads with bios
 *   scan.c   SCALIO_IOC_SCAN: every pair of a run of buckets, read as GET
 *            misses read (scalioctl export)
 *
 * Locking:
 *   scalio_host_hstores_lock (mutex) protects the list of stores and their
 *   ->state transitions.
 *   hs->open_lock (mutex) protects ->opens and ->removing; DETACH refuses
 *   while the store device is open.
 *   conn->io_rwsem is held for reading by every data-path operation and
 *   for writing by the teardown that frees the QP, so the QP never goes
 *   away under a poster.  Teardown first marks the connection dead and
 *   moves the QP to the error state, which flushes every posted work
 *   request and thereby wakes every waiter: the write lock is then granted
 *   promptly.  A GET does not hold io_rwsem across its SSD read, which
 *   waits for NVMe-oF and not for this connection: it lets go with
 *   scalio_host_conn_leave() and takes it back with
 *   scalio_host_conn_return(), which fails if conn->gen moved meanwhile
 *   (every release of the RDMA resources bumps it, under the write lock):
 *   then nothing the GET got from the old connection (its bounce page,
 *   slot lock, seg word, rkeys) may be used again, and it starts over.
 *   conn->teardown_lock (mutex) serializes the failure work with the
 *   teardown, so the work never touches a QP or cm_id being destroyed.
 *   conn->state_wq is where operations wait for a lost connection to come
 *   back (scalio_host_conn_enter_until()); woken at the end of every
 *   reconnect attempt, when the store stops being live and when no
 *   reconnect is to be expected any more (SCALIO_CONN_GONE).
 *   conn->rpc_lock (spinlock, irq-safe) protects the tag table's states and
 *   its free list.
 *   hs->bind_lock (mutex) serializes SSD_BIND; a bound SSD stays bound until
 *   the store is detached, so readers need no lock (they load ->bound with
 *   acquire semantics).
 */
#ifndef _SCALIO_HOST_H
#define _SCALIO_HOST_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../common/scalio_compat.h"
#include "../common/scalio_index.h"
#include "../common/scalio_format.h"
#include "../common/scalio_proto.h"
#include "../common/scalio_slot.h"

#define SCALIO_HOST_QD_DEFAULT		64
#define SCALIO_HOST_NR_IO		64	/* one-sided bounce buffers */
#define SCALIO_HOST_TS_MAX		16	/* background last_ts writes */
#define SCALIO_RPC_TIMEOUT_MS		10000
#define SCALIO_OP_TIMEOUT_MS		30000	/* whole GET retry budget */
#define SCALIO_ATTACH_TIMEOUT_MS	5000
/*
 * The whole handshake (ADMIT, HELLO, every CHUNKS page, every SSD_INFO)
 * of an attach or a reconnect, however the target paces its answers: a
 * target answering each request just under SCALIO_RPC_TIMEOUT_MS cannot
 * hold the attach, or a reconnect and the locks it holds, any longer.  A
 * real target's handshake is a few round trips of a few ms (its HELLO may
 * wait up to 5 s for the commits of a lost connection).
 */
#define SCALIO_HOST_HANDSHAKE_MS	30000
/*
 * Index chunks a HELLO may announce.  The host keeps 32 bytes per chunk
 * (2 MiB at most, from kvcalloc) and fetches them in at most
 * SCALIO_HOST_CHUNKS_MAX / SCALIO_CHUNKS_PER_MSG (258) CHUNKS pages.  The
 * target cuts its index in chunks of about 2 MiB: SCALIO_NR_BLOCKS_MAX
 * blocks of SCALIO_SLOTS_MAX slots make about 17,000 of them.
 */
#define SCALIO_HOST_CHUNKS_MAX		(1U << 16)
#define SCALIO_RECONNECT_MIN_MS		500	/* first retry after a loss */
#define SCALIO_RECONNECT_MAX_MS		10000	/* retry interval cap */
/* Keys remembered for a deferred invalidation before falling back to a sweep. */
#define SCALIO_INVAL_DEFER_MAX		1024
#define SCALIO_INVAL_RETRY_MS		200	/* retry of a deferred one, live conn */

/* Layout of one bounce page (struct scalio_host_io). */
#define SCALIO_IO_BLOCK_OFF	0	/* a block copy, up to 2112 bytes */
#define SCALIO_IO_ATOMIC_OFF	2304	/* 8 bytes: CAS result */
#define SCALIO_IO_WORD_OFF	2312	/* 8 bytes: clock word */
#define SCALIO_IO_SEG_OFF	2320	/* 8 bytes: seg word */
#define SCALIO_IO_SLOT_OFF	2432	/* 128 bytes: slot tail to write */
#define SCALIO_IO_SIZE		PAGE_SIZE

/* Counters of struct scalio_host_stats, in its field order. */
enum scalio_host_hstat {
	SCALIO_HS_GETS,
	SCALIO_HS_PUTS,
	SCALIO_HS_DELETES,
	SCALIO_HS_CACHE_HITS,
	SCALIO_HS_CACHE_MISSES,
	SCALIO_HS_SSD_READS,
	SCALIO_HS_RPC_GETS,
	SCALIO_HS_RDMA_READS,
	SCALIO_HS_RDMA_CAS,
	SCALIO_HS_CAS_FAILURES,
	SCALIO_HS_RETRIES,
	SCALIO_HS_LEASE_RECLAIMS,
	SCALIO_HS_INVALIDATIONS,
	SCALIO_HS_HEADER_MISMATCHES,
	SCALIO_HS_ERRORS,
	SCALIO_HS_RECONNECTS,
	SCALIO_HS_WAITS,
	SCALIO_HS_LEASE_RENEWALS,
	SCALIO_HS_LEASE_GIVEUPS,
	SCALIO_HS_SSD_READ_TIMEOUTS,
	SCALIO_HS_RECONNECT_WAITS,
	SCALIO_HS_RECONNECT_WAIT_NS,
	SCALIO_HS_FAST_IO_FAILS,
	SCALIO_HS_LOST_GET_RETRIES,
	SCALIO_HS_GET_VAL_READS,
	SCALIO_HS_GET_VAL_STALE,
	SCALIO_HS_RETIRED_EVICTIONS,
	SCALIO_HS_OPT_MISSES,
	SCALIO_HS_BG_QUEUED,
	SCALIO_HS_BG_FILLS,
	SCALIO_HS_BG_FILL_DROPS,
	SCALIO_HS_BG_WAITS,
	SCALIO_HS_NR,
};

/*
 * What an operation that waits for the connection is (the conn_wait trace
 * event's op field).
 */
enum scalio_host_op {
	SCALIO_HOST_OP_GET,
	SCALIO_HOST_OP_PUT,
	SCALIO_HOST_OP_DELETE,
	SCALIO_HOST_OP_STATS,
	SCALIO_HOST_OP_CLOCK,
};

enum scalio_host_rpc_state {
	SCALIO_RPC_FREE,
	SCALIO_RPC_WAITING,	/* sent, waiter sleeping */
	SCALIO_RPC_DONE,	/* response copied, or failed */
	SCALIO_RPC_ABANDONED,	/* waiter timed out; tag held until answered */
};

/**
 * struct scalio_host_settle - a write whose invalidation is not settled yet
 * @entry:	on conn->unsettled, in @seq order, from its request's send
 *		until scalio_host_settle_done()
 * @seq:	its request's tag sequence number
 * @listed:	on conn->unsettled
 *
 * The host's settle mark (hdr.settled) is the @seq of the first entry, or
 * the next sequence number when there is none, or an owed invalidation's
 * older one (conn->debt_seq): every write below it is settled.
 */
struct scalio_host_settle {
	struct list_head	entry;
	u32			seq;
	bool			listed;
};

/**
 * struct scalio_host_rpc - one entry of the tag table
 * @send_cqe:	completion of the SEND
 * @conn:	owner
 * @entry:	on conn->rpc_free while free
 * @idx:	index in the table (low 16 bits of the wire tag)
 * @seq:	the connection's next tag sequence number at every use (high
 *		bits of the wire tag): a late response to an earlier use of
 *		the entry never matches, and writes are ordered by it for
 *		their settle marks (hdr.settled)
 * @settle:	a PUT or DELETE: listed on conn->unsettled under @seq when
 *		sent; NULL for other requests
 * @opcode:	request opcode; the response must carry the same
 * @state:	enum scalio_host_rpc_state, under conn->rpc_lock
 * @rsp_pending: a response (or the connection's failure) is still due
 * @posted:	the request was handed to the QP in its last use: it may
 *		have reached the target
 * @refs:	waiter + send completion + response; freed at zero
 * @status:	0, or -ENOTCONN when the connection failed
 * @req:	send buffer (SCALIO_MSG_SIZE, DMA-mapped to the device)
 * @req_dma:	its mapping
 * @rsp:	private copy of the response
 * @rsp_len:	its length
 * @done:	completed when the response arrives or the connection fails
 */
struct scalio_host_rpc {
	struct ib_cqe		send_cqe;
	struct scalio_host_conn	*conn;
	struct list_head	entry;
	u16			idx;
	u16			opcode;
	u32			seq;
	struct scalio_host_settle	*settle;
	enum scalio_host_rpc_state	state;
	bool			rsp_pending;
	bool			posted;
	atomic_t		refs;
	int			status;
	void			*req;
	u64			req_dma;
	void			*rsp;
	u32			rsp_len;
	struct completion	done;
};

/**
 * struct scalio_host_recv - one posted receive buffer
 */
struct scalio_host_recv {
	struct ib_cqe		cqe;
	struct scalio_host_conn	*conn;
	void			*buf;
	u64			dma;
};

/**
 * struct scalio_host_io - a DMA-mapped bounce page for one-sided operations
 * @entry:	on conn->io_free while free
 * @buf:	SCALIO_IO_SIZE bytes (layout: SCALIO_IO_*_OFF)
 * @dma:	mapping (bidirectional)
 * @bg:		used by a background cache fill: its waits count apart
 *		(bg_waits)
 */
struct scalio_host_io {
	struct list_head	entry;
	void			*buf;
	u64			dma;
	bool			bg;
};

/* Most one-sided operations posted together (host/read.c needs 3). */
#define SCALIO_CHAIN_MAX	4

/* One request of a chain; both start with their struct ib_send_wr. */
union scalio_host_chain_wr {
	struct ib_rdma_wr	rdma;
	struct ib_atomic_wr	atomic;
};

/**
 * struct scalio_host_chain - one-sided operations posted as one list and waited
 * for once (rdma.c: scalio_host_chain_*)
 * @conn:	connection
 * @io:		bounce page
 * @n:		operations added
 * @cas:	the last one is a CAS (nothing may follow it)
 * @broken:	an operation could not be added: exec refuses the chain
 * @compare:	its compare value
 * @cqe:	shared by every request of the chain
 * @pending:	completions still to come
 * @status:	first failed completion's status
 * @done:	completed when @pending reaches 0
 * @sge:	one per request
 * @wr:		the requests
 */
struct scalio_host_chain {
	struct scalio_host_conn	*conn;
	struct scalio_host_io	*io;
	unsigned int		n;
	bool			cas;
	bool			broken;
	u64			compare;
	struct ib_cqe		cqe;
	atomic_t		pending;
	enum ib_wc_status	status;
	struct completion	done;
	struct ib_sge		sge[SCALIO_CHAIN_MAX];
	union scalio_host_chain_wr	wr[SCALIO_CHAIN_MAX];
};

/* Connection state bits (conn->flags). */
enum {
	SCALIO_CONN_CONNECTED,	/* ESTABLISHED seen */
	SCALIO_CONN_DEAD,	/* failed or being torn down: no new work */
	SCALIO_CONN_FREED,	/* RDMA resources released */
	SCALIO_CONN_RECONNECTING, /* a reconnect attempt is building it */
	SCALIO_CONN_PROTO_ERR,	/* the target broke the protocol on it */
	SCALIO_CONN_GONE,	/* no reconnect will bring it back by itself */
};

/**
 * struct scalio_host_rej - why a connect was rejected
 * @err:	the connect's error (0: it was not rejected)
 * @status:	the CM's reject reason (rdma_reject_msg())
 * @target:	the target refused, @err is its errno; else nobody there
 *		decided (nobody listens, typically)
 */
struct scalio_host_rej {
	int	err;
	int	status;
	bool	target;
};

/**
 * struct scalio_host_conn - the RC connection of one attached store
 */
struct scalio_host_conn {
	struct scalio_host_hstore	*hs;
	struct rdma_cm_id	*cm_id;
	struct ib_device	*dev;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	unsigned long		flags;

	/* connecting */
	struct completion	cm_done;
	int			cm_error;
	u16			client_id;
	u16			qd;		/* granted */
	u16			qd_req;		/* requested (receives posted) */
	u8			peer_minor;	/* target's protocol minor */
	u8			challenge[SCALIO_CHALLENGE_LEN]; /* for ADMIT */
	struct scalio_conn_bind	bind;		/* this connection, for ADMIT */
	struct scalio_host_rej	cm_rej;		/* of the last connect */

	/* rejections since the store was last connected (a quiet log) */
	struct scalio_host_rej	rej_last;	/* the last one logged */
	u32			rej_total;	/* since connected */
	u32			rej_quiet;	/* since the last line */
	unsigned long		rej_logged;	/* jiffies of the last line */

	/* RPC tag table */
	struct scalio_host_rpc	*rpcs;
	spinlock_t		rpc_lock;
	struct list_head	rpc_free;
	wait_queue_head_t	rpc_wq;
	u32			rpc_seq;	/* next tag sequence number */
	/* settle marks (SCALIO_F_BLOCK_EPOCH), under rpc_lock */
	struct list_head	unsettled;	/* struct scalio_host_settle */
	bool			debt;		/* an invalidation is owed... */
	u32			debt_seq;	/* ...since this write's */
	struct scalio_host_recv	*recvs;

	/* one-sided bounce buffers */
	struct scalio_host_io	*ios;
	spinlock_t		io_lock;
	struct list_head	io_free;
	wait_queue_head_t	io_wq;
	atomic_t		ts_inflight;

	struct rw_semaphore	io_rwsem;
	u32			gen;	/* bumped (io_rwsem written) at each release */
	struct mutex		teardown_lock;
	struct work_struct	fail_work;
	wait_queue_head_t	state_wq;
	atomic_t		waiting;	/* operations waiting in state_wq */
};

/**
 * struct scalio_host_hchunk - one registered piece of the remote index
 * @addr:	remote address of block @first_block
 * @rkey:	its rkey (read, write, atomic)
 * @first_block: first block of the chunk
 * @nr_blocks:	blocks in the chunk
 * @seg_addr:	remote address of the first seg word of block @first_block:
 *		the seg words of the chunk's blocks' buckets follow, bpb per
 *		block (scalio_bucket_pos())
 * @seg_rkey:	rkey of the seg table chunk (read only)
 */
struct scalio_host_hchunk {
	u64	addr;
	u32	rkey;
	u32	first_block;
	u32	nr_blocks;
	u32	seg_rkey;
	u64	seg_addr;
};

/**
 * struct scalio_host_hssd - what the target exports for one SSD, and its binding
 * @nqn:	NVMe-oF subsystem NQN
 * @nsid:	namespace id
 * @capacity_sectors: size on the target
 * @bdev:	the bound block device (valid when @bound)
 * @bound:	set (release) once @bdev is usable; never cleared before detach
 */
struct scalio_host_hssd {
	char			nqn[SCALIO_NQN_MAX];
	u32			nsid;
	u64			capacity_sectors;
	struct scalio_bdev	bdev;
	bool			bound;
};

enum scalio_host_hstore_state {
	SCALIO_HS_ATTACHING,
	SCALIO_HS_LIVE,
	SCALIO_HS_DETACHING,
};

/**
 * struct scalio_host_hstore - one attached store
 * @entry:	on scalio_host_hstores
 * @name:	store name
 * @state:	enum scalio_host_hstore_state, under scalio_host_hstores_lock
 * @conn:	the connection
 * @nr_blocks, @slots, @block_size, @nr_ssds, @features, @lease_ticks:
 *		geometry and settings from HELLO
 * @nr_buckets:	buckets of the store, from HELLO (a power of two, at
 *		least @nr_blocks): a key's segment, seg word and SSD
 * @bpb:	@nr_buckets / @nr_blocks, seg words per block in the seg table
 * @hash_seed:	the store's key-hash seed, from HELLO
 * @hdr_addr, @hdr_rkey: the target's region header (clock word)
 * @chunks:	@nr_chunks index chunks, in block order, covering every block
 * @ssds:	per-SSD information and bindings
 * @writes_out:	PUT/DELETE RPCs outstanding per SSD (the inflight hint)
 * @bind_lock:	serializes SSD_BIND
 * @clock_lock:	protects @clock and @clock_jiffies
 * @clock:	last target clock read
 * @clock_jiffies: local jiffies when @clock was read
 * @traddr, @trsvcid, @timeout_ms: where the store was attached, for
 *		reconnecting
 * @fast_io_fail_ms: how long an operation waits for a lost connection to
 *		come back before failing (0: it fails at once); sysfs
 *		attribute of the same name, read with READ_ONCE()
 * @reconnect_work: re-establishes a lost connection while the store is
 *		live (scalio_host_reconnect_work())
 * @reconnect_delay: the next retry's delay, in jiffies
 * @inval_lock:	protects @inval_list and @inval_all
 * @inval_list:	keys written whose invalidation is still owed (struct
 *		scalio_host_inval_key): the write's outcome was unknown, or its
 *		invalidation failed
 * @inval_all:	too many were owed: sweep every block instead
 * @inval_work:	pays the debt while the connection is up
 *		(scalio_host_inval_work()); a reconnect pays it before the store
 *		serves anything again
 * @hostnqn:	the NQN this host is admitted as
 * @host_id:	its stable identity (the same in every connection)
 * @secret:	@secret_len bytes proven at admission; never sent
 * @keepalive_ms: KEEPALIVE period: the store's KATO (HELLO) / 3
 * @keepalive_due: jiffies the queued KEEPALIVE is due at
 * @handshake_end: jiffies the running handshake must be over by
 * @keepalive_work: a KEEPALIVE every @keepalive_ms while live
 * @misc:	the store device
 * @misc_name:	"scalio-<store>"
 * @nodename:	"scalio/<store>"
 * @open_lock:	protects @opens and @removing
 * @uring_wq:	runs the store's io_uring commands (uring.c), at most
 *		queue_depth at once
 * @uring_inflight: io_uring commands accepted and not yet completed
 * @fill_lock:	protects @fills
 * @fills:	this client's fills in flight (struct scalio_host_fill_ref,
 *		read.c): the fill token's host rule
 * @bg_stop:	no more background fills (detach); under @fill_lock
 * @bg_inflight: background fills queued and not yet over (read.c)
 * @bg_list:	those of them that were queued (one per key); under
 *		@fill_lock
 * @miss_avg:	recent GETs' miss ratio, 0..1024 (an average kept without
 *		locks: a hint that picks step 1's chain, read.c)
 * @stats:	host counters (enum scalio_host_hstat)
 */
struct scalio_host_hstore {
	struct list_head	entry;
	char			name[SCALIO_NAME_MAX];
	enum scalio_host_hstore_state state;
	struct scalio_host_conn	conn;

	u32			nr_blocks;
	u32			nr_buckets;
	u32			bpb;
	u32			slots;
	u32			block_size;
	u32			nr_ssds;
	u32			features;
	u32			lease_ticks;
	u64			hash_seed;
	u32			keepalive_ms;
	unsigned long		keepalive_due;
	unsigned long		handshake_end;
	u64			hdr_addr;
	u32			hdr_rkey;
	u32			nr_chunks;
	struct scalio_host_hchunk	*chunks;
	struct scalio_host_hssd	ssds[SCALIO_MAX_SSDS];
	atomic_t		writes_out[SCALIO_MAX_SSDS];
	struct mutex		bind_lock;

	spinlock_t		clock_lock;
	u64			clock;
	unsigned long		clock_jiffies;

	char			traddr[SCALIO_ADDR_MAX];
	u32			trsvcid;
	u32			timeout_ms;
	u32			fast_io_fail_ms;
	struct delayed_work	reconnect_work;
	unsigned long		reconnect_delay;

	spinlock_t		inval_lock;
	struct list_head	inval_list;
	bool			inval_all;
	struct delayed_work	inval_work;

	char			hostnqn[SCALIO_NQN_MAX];
	u8			host_id[SCALIO_HOSTID_LEN];
	u8			secret[SCALIO_SECRET_MAX];
	u32			secret_len;
	struct delayed_work	keepalive_work;

	struct miscdevice	misc;
	char			misc_name[SCALIO_NAME_MAX + 8];
	char			nodename[SCALIO_NAME_MAX + 8];
	bool			misc_registered;
	struct mutex		open_lock;
	int			opens;
	bool			removing;

	struct workqueue_struct	*uring_wq;
	atomic_t		uring_inflight;

	spinlock_t		fill_lock;
	struct list_head	fills;
	bool			bg_stop;
	atomic_t		bg_inflight;
	struct list_head	bg_list;
	u32			miss_avg;

	atomic64_t		stats[SCALIO_HS_NR];
};

static inline void scalio_host_hstat_inc(struct scalio_host_hstore *hs,
					 enum scalio_host_hstat i)
{
	atomic64_inc(&hs->stats[i]);
}

static inline void scalio_host_hstat_add(struct scalio_host_hstore *hs,
					 enum scalio_host_hstat i, u64 n)
{
	atomic64_add(n, &hs->stats[i]);
}

static inline bool scalio_host_conn_dead(struct scalio_host_conn *conn)
{
	return test_bit(SCALIO_CONN_DEAD, &conn->flags);
}

/* Why a dead connection takes no request: the target's violation or not. */
static inline int scalio_host_conn_dead_err(struct scalio_host_conn *conn)
{
	return test_bit(SCALIO_CONN_PROTO_ERR, &conn->flags) ? -EPROTO :
							       -ENOTCONN;
}

/* Why scalio_host_io_get() gave no bounce page: the connection died, or a signal. */
static inline int scalio_host_io_get_err(struct scalio_host_conn *conn)
{
	return scalio_host_conn_dead(conn) ? scalio_host_conn_dead_err(conn) : -EINTR;
}

static inline void scalio_host_conn_exit(struct scalio_host_conn *conn)
{
	up_read(&conn->io_rwsem);
}

/* The connection's generation; io_rwsem held for reading. */
static inline u32 scalio_host_conn_gen(const struct scalio_host_conn *conn)
{
	return conn->gen;
}

/*
 * Test hooks: module parameters that break the protocol on purpose (the
 * broken variants the VM suite must catch).  They exist only in a test
 * build (make SCALIO_TEST_HOOKS=1, what scripts/build-kmod.sh builds); in
 * the default build they are constant false and the code they guard is
 * compiled out.
 */
#ifdef SCALIO_TEST_HOOKS
extern bool scalio_host_debug_skip_double_read;	/* core.c */
extern bool scalio_host_debug_skip_invalidate;	/* core.c */
extern bool scalio_host_debug_skip_reclaim;		/* read.c */
extern unsigned int scalio_host_debug_ver_bits;	/* core.c */

/* @ctl with its version cut to debug_ver_bits bits (when 1..19). */
static inline u64 scalio_host_ctl(u64 ctl)
{
	unsigned int bits = READ_ONCE(scalio_host_debug_ver_bits);
	u64 cut;

	if (!bits || bits >= SCALIO_CTL_VER_BITS)
		return ctl;
	cut = ((1ULL << SCALIO_CTL_VER_BITS) - 1) & ~((1ULL << bits) - 1);
	return ctl & ~(cut << SCALIO_CTL_VER_SHIFT);
}
#else
#define scalio_host_debug_skip_double_read	false
#define scalio_host_debug_skip_invalidate	false
#define scalio_host_debug_skip_reclaim	false

static inline u64 scalio_host_ctl(u64 ctl)
{
	return ctl;
}
#endif

/**
 * struct scalio_host_kop - one operation on kernel buffers
 * @hs:		store
 * @op:		enum scalio_opcode
 * @key:	copied key
 * @klen:	key length
 * @value:	GET: SCALIO_VALUE_MAX bytes out; PUT: the copied value
 * @vlen:	PUT: in; GET: out
 * @result:	0 or a negative errno
 * @work:	MULTI, io_uring: runs scalio_host_kop_run()
 * @pending:	MULTI: ops still running
 * @done:	MULTI: completed by the last op
 */
struct scalio_host_kop {
	struct scalio_host_hstore	*hs;
	u32			op;
	u8			key[SCALIO_KEY_MAX];
	u32			klen;
	u8			*value;
	u32			vlen;
	int			result;
	struct work_struct	work;
	atomic_t		*pending;
	struct completion	*done;
};

/* Module parameters (core.c). */
extern unsigned int scalio_host_queue_depth;
extern char scalio_host_hostnqn[SCALIO_NQN_MAX];
extern u8 scalio_host_hostid[SCALIO_HOSTID_LEN];

/* core.c */
extern struct mutex scalio_host_hstores_lock;
extern struct list_head scalio_host_hstores;
int scalio_host_hstore_register_dev(struct scalio_host_hstore *hs);

/* ioctl.c */
int scalio_host_ioctl_init(void);
void scalio_host_ioctl_exit(void);
long scalio_host_store_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg);
int scalio_host_kop_prepare(struct scalio_host_kop *k, struct scalio_host_hstore *hs,
			    u32 op, const struct scalio_kv *kv);
void scalio_host_kop_run(struct scalio_host_kop *k);
int scalio_host_kop_finish(struct scalio_host_kop *k, struct scalio_kv *kv);
void scalio_host_kop_free(struct scalio_host_kop *k);

/* uring.c */
int scalio_host_uring_store_init(struct scalio_host_hstore *hs);
void scalio_host_uring_store_exit(struct scalio_host_hstore *hs);
int scalio_host_store_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags);

/* rdma.c: the transport */
void scalio_host_conn_fail(struct scalio_host_conn *conn);
void scalio_host_rpc_fail_all(struct scalio_host_conn *conn);
int scalio_host_conn_create_qp(struct scalio_host_conn *conn);
int scalio_host_conn_alloc_bufs(struct scalio_host_conn *conn);
void scalio_host_conn_free_bufs(struct scalio_host_conn *conn);
int scalio_host_post_recv(struct scalio_host_conn *conn, struct scalio_host_recv *rv);
struct scalio_host_rpc *scalio_host_rpc_get(struct scalio_host_conn *conn);
struct scalio_host_rpc *scalio_host_kv_rpc_get(struct scalio_host_conn *conn, const u8 *key,
					       u32 klen);
void scalio_host_settle_done(struct scalio_host_conn *conn,
			     struct scalio_host_settle *settle);
void scalio_host_settle_debt(struct scalio_host_conn *conn,
			     const struct scalio_host_settle *settle, bool owed);
int scalio_host_rpc_exec(struct scalio_host_conn *conn, struct scalio_host_rpc *rpc,
			 u16 opcode, u32 len);
int scalio_host_rpc_exec_by(struct scalio_host_conn *conn, struct scalio_host_rpc *rpc,
			    u16 opcode, u32 len, unsigned long end);
void scalio_host_rpc_put(struct scalio_host_conn *conn, struct scalio_host_rpc *rpc);
int scalio_host_rpc_status(const struct scalio_host_rpc *rpc);
struct scalio_host_io *scalio_host_io_get(struct scalio_host_conn *conn);
void scalio_host_io_put(struct scalio_host_conn *conn, struct scalio_host_io *io);
void scalio_host_chain_init(struct scalio_host_chain *ch, struct scalio_host_conn *conn,
			    struct scalio_host_io *io);
void scalio_host_chain_read(struct scalio_host_chain *ch, u32 off, u32 len, u64 raddr,
			    u32 rkey, bool fence);
void scalio_host_chain_write(struct scalio_host_chain *ch, u32 off, u32 len, u64 raddr,
			     u32 rkey);
void scalio_host_chain_cas(struct scalio_host_chain *ch, u64 raddr, u32 rkey,
			   u64 compare, u64 swap);
int scalio_host_chain_exec(struct scalio_host_chain *ch);
u64 scalio_host_chain_cas_old(const struct scalio_host_chain *ch);
int scalio_host_rdma_read(struct scalio_host_conn *conn, struct scalio_host_io *io,
			  u32 off, u32 len, u64 raddr, u32 rkey);
int scalio_host_rdma_write(struct scalio_host_conn *conn, struct scalio_host_io *io,
			   u32 off, u32 len, u64 raddr, u32 rkey);
int scalio_host_rdma_cas(struct scalio_host_conn *conn, struct scalio_host_io *io,
			 u64 raddr, u32 rkey, u64 compare, u64 swap, u64 *old);
void scalio_host_rdma_write_ts(struct scalio_host_conn *conn, u64 raddr, u32 rkey,
			       u64 ts);

/* conn.c: the connection lifecycle */
int scalio_host_conn_module_init(void);
void scalio_host_conn_module_exit(void);
void scalio_host_conn_init(struct scalio_host_hstore *hs);
int scalio_host_conn_connect(struct scalio_host_hstore *hs, const char *traddr,
			     u32 trsvcid, u32 timeout_ms, u32 total_ms);
void scalio_host_conn_destroy(struct scalio_host_conn *conn);
int scalio_host_conn_reconnect(struct scalio_host_hstore *hs);
void scalio_host_reconnect_work(struct work_struct *work);
void scalio_host_reconnect_schedule(struct scalio_host_hstore *hs);
int scalio_host_conn_enter_nowait(struct scalio_host_conn *conn);
int scalio_host_conn_enter_until(struct scalio_host_conn *conn,
				 unsigned long *end, enum scalio_host_op op);
int scalio_host_conn_enter(struct scalio_host_conn *conn,
			   enum scalio_host_op op);
int scalio_host_conn_fast_fail(struct scalio_host_conn *conn);
bool scalio_host_conn_may_retry(struct scalio_host_conn *conn,
				unsigned long *end);
void scalio_host_conn_leave(struct scalio_host_conn *conn);
int scalio_host_conn_return(struct scalio_host_conn *conn, u32 gen);
void scalio_host_conn_wake(struct scalio_host_conn *conn);

/* handshake.c */
int scalio_host_conn_handshake(struct scalio_host_hstore *hs, bool again);
void scalio_host_keepalive_send(struct scalio_host_hstore *hs);
void scalio_host_keepalive_schedule(struct scalio_host_hstore *hs);
void scalio_host_keepalive_work(struct work_struct *work);
int scalio_host_rpc_stats(struct scalio_host_hstore *hs,
			  struct scalio_target_stats *out);

/* read.c */
int scalio_host_get(struct scalio_host_hstore *hs, const u8 *key, u32 klen,
		    u8 *value, u32 *vlen);
int scalio_host_block_locate(struct scalio_host_hstore *hs, u32 block, u64 *raddr,
			     u32 *rkey);
u32 scalio_host_seg_locate(struct scalio_host_hstore *hs, u32 pos, u64 *raddr,
			   u32 *rkey);
int scalio_host_clock_refresh(struct scalio_host_hstore *hs, struct scalio_host_io *io,
			      u64 *now);
u64 scalio_host_clock_now(struct scalio_host_hstore *hs);
void scalio_host_backoff(unsigned int attempt);

/* scan.c */
int scalio_host_ioctl_scan(struct scalio_host_hstore *hs,
			   struct scalio_scan __user *argp);

/* write.c */
int scalio_host_inval_flush(struct scalio_host_hstore *hs);
void scalio_host_inval_work(struct work_struct *work);
void scalio_host_inval_forget(struct scalio_host_hstore *hs);
int scalio_host_put(struct scalio_host_hstore *hs, const u8 *key, u32 klen,
		    const u8 *value, u32 vlen);
int scalio_host_delete(struct scalio_host_hstore *hs, const u8 *key, u32 klen);

/* ssd.c */
int scalio_host_ssd_bind(struct scalio_host_hstore *hs, u32 index, const char *path);
void scalio_host_ssd_unbind_all(struct scalio_host_hstore *hs);
bool scalio_host_ssd_bound(struct scalio_host_hstore *hs, u32 index);
int scalio_host_ssd_read(struct scalio_host_hstore *hs, u32 index, u64 pos,
			 u32 len, unsigned long end, void **bufp, u32 *offp,
			 size_t *bytesp);
int scalio_host_ssd_read_seg(struct scalio_host_hstore *hs, u64 seg, unsigned long end,
			     void **bufp);
int scalio_host_read_module_init(void);
void scalio_host_read_module_exit(void);
void scalio_host_bgfill_stop(struct scalio_host_hstore *hs);
int scalio_host_ssd_module_init(void);
void scalio_host_ssd_module_exit(void);
void scalio_host_ssd_free(void *buf, size_t bytes);
int scalio_host_ssd_read_val(struct scalio_host_hstore *hs, u32 index,
			     const struct scalio_vref *v, const u8 *key,
			     u32 klen, u8 *value, unsigned long end);
void scalio_host_ssd_free_seg(void *buf, u64 seg);

/* Segment reads of one bucket that may fail their check (GET and SCAN). */
#define SCALIO_HOST_SEG_RETRIES	16
/* ->use_seg's answer: read the value extent (->read_val) once freed. */
#define SCALIO_HOST_SEG_VAL	1

/**
 * struct scalio_host_bucket_ops - a read path's part in
 *	scalio_host_ssd_read_bucket()
 * @read_seg:	read the segment @seg names, as scalio_host_ssd_read_seg()
 *		(a GET lets go of its connection meanwhile and reads within
 *		its own time; a scan gives each read a time of its own)
 * @use_seg:	the path's work on the checked segment @sh: 0, an error, or
 *		SCALIO_HOST_SEG_VAL; it may read value extents itself, with the
 *		segment at hand (set *@vpos to an extent's byte address
 *		before returning its error)
 * @read_val:	after @use_seg's SCALIO_HOST_SEG_VAL, with the segment's
 *		buffer freed: read the value extent (*@vpos its address);
 *		NULL if @use_seg never asks for it
 * @seg_word:	read the bucket's seg word again into *@seg
 * @empty:	the result for a bucket without a segment (seg word 0)
 * @who:	what the log lines say after the store's name ("" or "scan: ")
 * @func:	the function named by the rate limits' "callbacks suppressed"
 * @rs_never:	the rate limit of the "segment never matched" line
 * @rs_damaged:	the rate limit of the "value extent ... is damaged" line
 *
 * Each path has rate limits of its own, as its lines had.
 */
struct scalio_host_bucket_ops {
	int	(*read_seg)(void *ctx, u64 seg, void **bufp);
	int	(*use_seg)(void *ctx, u64 seg, const void *sh, u64 *vpos);
	int	(*read_val)(void *ctx, u64 seg, u64 *vpos);
	int	(*seg_word)(void *ctx, u64 *seg);
	int	empty;
	const char	*who;
	const char	*func;
	struct ratelimit_state	*rs_never;
	struct ratelimit_state	*rs_damaged;
};

int scalio_host_ssd_read_bucket(struct scalio_host_hstore *hs, u32 bucket,
				u64 seg, const struct scalio_host_bucket_ops *ops,
				void *ctx);

/*
 * An operation's latency for its trace event, with the clock read only
 * while the event is on (the hot path pays nothing otherwise): @t0 is 0
 * when the event was off as the operation began.
 */
static inline u64 scalio_host_trace_t0(bool on)
{
	return on ? ktime_get_ns() : 0;
}

static inline u64 scalio_host_trace_since(u64 t0)
{
	return t0 ? ktime_get_ns() - t0 : 0;
}

#endif /* _SCALIO_HOST_H */
