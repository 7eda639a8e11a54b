// SPDX-License-Identifier: GPL-2.0
/*
 * GET: the one-sided read path and the slot consistency protocol, built
 * on the pure decisions of common/scalio_slot.c.
 *
 *   1. RDMA READ the block; a consistent C copy of the key is the answer.
 *   2. a live B of the key's fingerprint: back off and re-read; a torn C
 *      copy: re-read.
 *   3. miss: choose a victim, CAS it to B (our id, fingerprint, lease),
 *      RDMA WRITE the key into it.
 *   4. double-read the block; on a collision release and retry.  Only
 *      after that READ completed, a separate READ of the seg word of the
 *      key's bucket.
 *   5. read the bucket's segment from its bound SSD (or ask the target
 *      by RPC), check its header against seg, find the key; if its record
 *      points to a value extent (format 5), read and check that too.
 *   6. write value and checksum into the slot, CAS B -> C (B -> A when
 *      absent or too big); return the value only if that CAS succeeded.
 *
 * With optimistic_miss (the default) a miss does not wait for 3-6: step 1
 * reads seg first and the block fenced behind it, and a block with no
 * slot of the key lets the GET answer with what that seg names (read as
 * in 5, seg never read again); a background fill then runs 3, 4 and 6 and
 * publishes only if seg still reads the same (scalio_host_get_optimistic(),
 * scalio_host_bgfill_work()).  Anything unusual falls back to 3-6.
 *
 * Blocks and buckets: the slots a GET locks are in the key's cache block;
 * its segment, seg word and SSD are its bucket's (scalio_hash_bucket()).
 * A bucket lies in one block, so a writer's invalidation of the key's
 * block still covers every fill of the bucket's keys.
 *
 * With inline_cache off a GET is a seg READ plus an SSD read (or the plain
 * GET RPC when offload_read is off too).
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/ratelimit.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "scalio_host.h"
#include "trace.h"

/* The points of debug_hold_fill (the bit numbers; see below). */
#define SCALIO_HOLD_WRITE	0
#define SCALIO_HOLD_CAS		1
#define SCALIO_HOLD_LOST	2

#ifdef SCALIO_TEST_HOOKS
/*
 * A filler sleeps until this long after its lease started (the clock read
 * its deadline was computed from) while it holds its B lock, between the
 * double-read and the seg read: tests use it to keep slots in B (a host
 * killed while filling, lease reclaim) and to widen the races the protocol
 * must survive.  The protocol is correct for any delay; a delay near the
 * lease only makes fills abandon and retry.  The lease is not renewed
 * during this sleep (it stands for a stalled filler).
 */
static unsigned int scalio_host_debug_fill_delay_ms;
module_param_named(debug_fill_delay_ms, scalio_host_debug_fill_delay_ms, uint,
		   0644);
MODULE_PARM_DESC(debug_fill_delay_ms,
		 "TESTING ONLY: hold a B lock until this many ms after its lease started, before reading the SSD");

/* ... plus a random 0..this many ms, so that concurrent fills interleave. */
static unsigned int scalio_host_debug_fill_jitter_ms;
module_param_named(debug_fill_jitter_ms, scalio_host_debug_fill_jitter_ms, uint,
		   0644);
MODULE_PARM_DESC(debug_fill_jitter_ms,
		 "TESTING ONLY: add a random 0..N ms to debug_fill_delay_ms");

/*
 * A known-broken variant, for the suite to show it is caught: a GET skips an expired B of its key
 * (lookup and double-read) instead of reclaiming it by CAS, so that a late
 * filler can still publish an old value.
 */
bool scalio_host_debug_skip_reclaim;
module_param_named(debug_skip_reclaim, scalio_host_debug_skip_reclaim, bool,
		   0644);
MODULE_PARM_DESC(debug_skip_reclaim,
		 "TESTING ONLY: skip expired locks without reclaiming them (breaks linearizability)");

/*
 * A filler sleeps a random 0..this many ms between its block READ (step 1)
 * and its lock CAS (step 3), so that two fillers of one key can choose
 * their victims from different snapshots of the block and lock different
 * slots: the race the double-read exists for (31-lin-broken's
 * skip_double_read variant).  Correct code only sees more failed CASes.
 */
static unsigned int scalio_host_debug_lock_delay_ms;
module_param_named(debug_lock_delay_ms, scalio_host_debug_lock_delay_ms, uint,
		   0644);
MODULE_PARM_DESC(debug_lock_delay_ms,
		 "TESTING ONLY: sleep a random 0..N ms between a miss's block READ and its lock CAS");

/*
 * Publish as a host that predates SCALIO_F_FILL_TOKEN would (version-only
 * checksum) even when the store asks for fill tokens: a mixed fleet, and
 * the negative control of the version-wrap fix.
 */
static bool scalio_host_debug_skip_fill_token;
module_param_named(debug_skip_fill_token, scalio_host_debug_skip_fill_token, bool,
		   0644);
MODULE_PARM_DESC(debug_skip_fill_token,
		 "TESTING ONLY: publish without the fill token even when the store has it");

static bool scalio_host_fill_token(struct scalio_host_hstore *hs)
{
	return (hs->features & SCALIO_F_FILL_TOKEN) &&
	       !READ_ONCE(scalio_host_debug_skip_fill_token);
}

/*
 * A filler that caches a value sleeps a random 0..this many ms after its
 * lease check, WRITEs the value in a chain of its own, sleeps again, then
 * CASes: a stalled filler's late WRITE can land while another filler's
 * WRITE and CAS are apart (with debug_ver_bits, the version wrap).
 */
static unsigned int scalio_host_debug_publish_delay_ms;
module_param_named(debug_publish_delay_ms, scalio_host_debug_publish_delay_ms,
		   uint, 0644);
MODULE_PARM_DESC(debug_publish_delay_ms,
		 "TESTING ONLY: sleep 0..N ms before the value WRITE and again before the publish CAS");

/* Sleep as debug_publish_delay_ms says; false when it is off. */
static bool scalio_host_publish_delay(void)
{
	unsigned int max = min(READ_ONCE(scalio_host_debug_publish_delay_ms),
			       600000U);

	if (!max)
		return false;
	msleep_interruptible(get_random_u32_below(max + 1));
	return true;
}

/*
 * One-shot holds: a test stops one fill at an exact point for as long as
 * it needs, where a delay would only make the interleaving likely (23-wrap
 * drives a slot through a version wrap around a held filler).  Bit 0: the
 * next fill to reach its value WRITE holds before it; bit 1: the next fill
 * whose value WRITE has executed holds before its publish CAS; bit 2: the
 * next fill whose publish CAS failed holds before it starts over.  A fill
 * takes its bit, so only one fill holds at each point.  With bit 0 or 1
 * armed the WRITE and the CAS go in chains of their own, as with
 * debug_publish_delay_ms.
 */
static unsigned long scalio_host_debug_hold_fill;
module_param_named(debug_hold_fill, scalio_host_debug_hold_fill, ulong, 0644);
MODULE_PARM_DESC(debug_hold_fill,
		 "TESTING ONLY: one-shot fill holds: bit 0 before the value WRITE, bit 1 before the publish CAS, bit 2 after a failed publish CAS");

/* A held fill sets this to 1 and waits until the test writes 0. */
static unsigned int scalio_host_debug_fill_held;
module_param_named(debug_fill_held, scalio_host_debug_fill_held, uint, 0644);
MODULE_PARM_DESC(debug_fill_held,
		 "TESTING ONLY: 1 while a fill is held by debug_hold_fill; write 0 to release it");

#define SCALIO_HOLD_MAX_MS	120000	/* a forgotten hold ends by itself */

/* Must the publish go apart (a hold before the WRITE or the CAS armed)? */
static bool scalio_host_hold_armed(void)
{
	return READ_ONCE(scalio_host_debug_hold_fill) &
	       (BIT(SCALIO_HOLD_WRITE) | BIT(SCALIO_HOLD_CAS));
}

/*
 * Hold here if hold @bit is armed: on slot @slot, lock @mine, @word the
 * publish word (or the word a failed CAS found).  Return: the jiffies
 * held, which the caller adds to the GET's time: the test's pace is not
 * the GET's.
 */
static unsigned long scalio_host_hold(int bit, u32 slot, u64 mine, u64 word)
{
	unsigned long t0 = jiffies;

	if (!test_and_clear_bit(bit, &scalio_host_debug_hold_fill))
		return 0;
	/* the words, for the test's log: which versions met */
	pr_info("fill held at %d: slot %u lock %016llx v%u, %s %016llx v%u\n",
		bit, slot, mine, scalio_ctl_version(mine),
		bit == SCALIO_HOLD_LOST ? "found" : "publish", word,
		scalio_ctl_version(word));
	WRITE_ONCE(scalio_host_debug_fill_held, 1);
	while (READ_ONCE(scalio_host_debug_fill_held) &&
	       !fatal_signal_pending(current) &&
	       time_before(jiffies, t0 + msecs_to_jiffies(SCALIO_HOLD_MAX_MS)))
		msleep_interruptible(10);
	WRITE_ONCE(scalio_host_debug_fill_held, 0);
	return jiffies - t0;
}

static unsigned int scalio_host_fill_delay_ms(void)
{
	unsigned int delay = READ_ONCE(scalio_host_debug_fill_delay_ms);
	unsigned int jitter = READ_ONCE(scalio_host_debug_fill_jitter_ms);

	if (jitter)
		delay += get_random_u32_below(min(jitter, 600000U) + 1);
	return min(delay, 600000U);
}

static void scalio_host_lock_delay(void)
{
	unsigned int max = min(READ_ONCE(scalio_host_debug_lock_delay_ms), 600000U);

	if (max)
		msleep_interruptible(get_random_u32_below(max + 1));
}

/*
 * Victim choice is deterministic (first A slot, else the LRU C), so two
 * fillers with the same block snapshot pick the same slot and one CAS
 * fails.  This picks a random A or C slot instead, so that they can lock
 * different slots of one block: with debug_skip_double_read, two copies
 * of one key.  Any victim is correct: eviction is always allowed.
 */
static bool scalio_host_debug_random_victim;
module_param_named(debug_random_victim, scalio_host_debug_random_victim, bool,
		   0644);
MODULE_PARM_DESC(debug_random_victim,
		 "TESTING ONLY: evict a random A or C slot instead of the first A or the LRU C");

/*
 * A GET miss whose record points to a value extent sleeps this long
 * between its segment read and its extent read: the extent can move and
 * its space be reused meanwhile (26-vsep's relocation race).  The value
 * is read again every 10 ms, so that a test can hold GETs there for as
 * long as its writes take and end the sleep by writing 0.
 */
static unsigned int scalio_host_debug_vread_delay_ms;
module_param_named(debug_vread_delay_ms, scalio_host_debug_vread_delay_ms,
		   uint, 0644);
MODULE_PARM_DESC(debug_vread_delay_ms,
		 "TESTING ONLY: sleep up to this many ms (read again every 10 ms) between a miss's segment read and its value extent read");

static void scalio_host_vread_delay(unsigned long *end)
{
	unsigned long t0 = jiffies, last = t0;
	unsigned int ms;

	for (;;) {
		ms = min(READ_ONCE(scalio_host_debug_vread_delay_ms), 600000U);
		if (!time_before(jiffies, t0 + msecs_to_jiffies(ms)) ||
		    fatal_signal_pending(current))
			return;
		msleep_interruptible(10);
		/*
		 * The test's pace is not the GET's: its time stands still,
		 * and the lease renewal (which reads it) goes on.
		 */
		WRITE_ONCE(*end, *end + (jiffies - last));
		last = jiffies;
	}
}

static bool scalio_host_victim_random(const struct scalio_block_view *v, u32 *idx)
{
	u32 i = get_random_u32_below(v->slots), n;

	if (!READ_ONCE(scalio_host_debug_random_victim))
		return false;
	for (n = 0; n < v->slots; n++, i = (i + 1) % v->slots) {
		u8 st = scalio_ctl_state(le64_to_cpu(scalio_view_slot(v, i)->ctl));

		if (st == SCALIO_SLOT_A || st == SCALIO_SLOT_C) {
			*idx = i;
			return true;
		}
	}
	return false;
}
#else
static bool scalio_host_fill_token(struct scalio_host_hstore *hs)
{
	return hs->features & SCALIO_F_FILL_TOKEN;
}

static bool scalio_host_publish_delay(void)
{
	return false;
}

static bool scalio_host_hold_armed(void)
{
	return false;
}

static unsigned long scalio_host_hold(int bit, u32 slot, u64 mine, u64 word)
{
	return 0;
}

static unsigned int scalio_host_fill_delay_ms(void)
{
	return 0;
}

static void scalio_host_lock_delay(void)
{
}

static bool scalio_host_victim_random(const struct scalio_block_view *v, u32 *idx)
{
	return false;
}

static void scalio_host_vread_delay(unsigned long *end)
{
}
#endif

/* scalio_host_fill() result: start the GET again from step 1. */
#define SCALIO_RESTART		1

/*
 * A miss answers after one chain (seg, then the block) and its SSD read;
 * the cache fill runs in the background.  Off: the fill runs first and
 * the GET answers only once it published (the comparison the bench makes).
 */
static bool scalio_host_optimistic_miss = true;
module_param_named(optimistic_miss, scalio_host_optimistic_miss, bool, 0644);
MODULE_PARM_DESC(optimistic_miss,
		 "answer a GET miss before its cache fill, which runs in the background (default Y)");

/* Background fills in flight per store; a miss beyond them is not cached. */
#define SCALIO_HOST_BG_MAX	64

static struct workqueue_struct *scalio_host_bg_wq;

#ifdef SCALIO_TEST_HOOKS
/*
 * A background fill starts this many ms after its GET answered: writes
 * of the key land in between, which the fill's seg check must see.
 */
static unsigned int scalio_host_debug_bg_delay_ms;
module_param_named(debug_bg_delay_ms, scalio_host_debug_bg_delay_ms, uint,
		   0644);
MODULE_PARM_DESC(debug_bg_delay_ms,
		 "TESTING ONLY: start background cache fills this many ms late");

/*
 * The known-broken variant: a background fill publishes the value its GET
 * read without checking that seg still names the segment it came from.
 */
static bool scalio_host_debug_skip_bg_seg_check;
module_param_named(debug_skip_bg_seg_check, scalio_host_debug_skip_bg_seg_check,
		   bool, 0644);
MODULE_PARM_DESC(debug_skip_bg_seg_check,
		 "TESTING ONLY: background fills publish without the seg check (breaks linearizability)");

static void scalio_host_bg_delay(void)
{
	unsigned int ms = READ_ONCE(scalio_host_debug_bg_delay_ms);

	if (ms)
		msleep(min(ms, 10000U));
}

static bool scalio_host_bg_skip_seg_check(void)
{
	return READ_ONCE(scalio_host_debug_skip_bg_seg_check);
}
#else
static void scalio_host_bg_delay(void)
{
}

static bool scalio_host_bg_skip_seg_check(void)
{
	return false;
}
#endif

/**
 * struct scalio_host_get - one GET in progress
 * @hs:		store
 * @io:		bounce page
 * @key:	the key
 * @klen:	its length
 * @fp:		its fingerprint
 * @block:	its cache block (the slots)
 * @bucket:	its bucket (segment, seg word and SSD)
 * @raddr:	remote address of the block
 * @rkey:	its rkey
 * @value:	out, SCALIO_VALUE_MAX bytes
 * @vlen:	out
 * @end:	jiffies when the GET's time (SCALIO_OP_TIMEOUT_MS) is up
 * @gen:	the connection's generation when the GET entered it
 * @held:	the GET holds the connection (io_rwsem for reading); false
 *		once it came back from its SSD read to another connection
 *		(then @io is NULL: its page was freed with the old one)
 * @hash:	the key's hash (for trace events)
 * @hit:	answered from a cached slot (for its trace event)
 * @retries:	block re-reads so far (for its trace event)
 * @opt:	on the optimistic miss path: the segment read must not read
 *		seg again, nor ask the target (scalio_host_get_optimistic())
 * @opt_off:	this GET fell back from the optimistic path: fill first
 * @bg:		a background fill (scalio_host_bgfill_work()): it publishes
 *		@value only if seg still reads @pre_seg
 * @pre_seg:	the seg word @value was read from (@bg)
 */
struct scalio_host_get {
	struct scalio_host_hstore	*hs;
	struct scalio_host_io	*io;
	const u8		*key;
	u32			klen;
	u16			fp;
	u32			block;
	u32			bucket;
	u64			raddr;
	u32			rkey;
	u8			*value;
	u32			vlen;
	unsigned long		end;
	u32			gen;
	bool			held;
	u64			hash;
	bool			hit;
	u32			retries;
	bool			opt;
	bool			opt_off;
	bool			bg;
	u64			pre_seg;
};

/* The chunk holding @block (< nr_blocks). */
static const struct scalio_host_hchunk *scalio_host_chunk_of(struct scalio_host_hstore *hs,
							     u32 block)
{
	u32 lo = 0, hi = hs->nr_chunks;

	/* The chunks are contiguous and in block order (checked at attach). */
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (hs->chunks[mid].first_block <= block)
			lo = mid;
		else
			hi = mid;
	}
	return &hs->chunks[lo];
}

/**
 * scalio_host_seg_locate() - where a seg word is published
 * @hs:		store, under its connection (a reconnect replaces the chunks)
 * @pos:	seg table position, < nr_buckets (scalio_bucket_pos())
 * @raddr:	out: remote address of the seg word
 * @rkey:	out: rkey of its chunk's seg table
 *
 * A chunk's seg table holds the seg words of its blocks' buckets, bpb per
 * block, from the first one of its first block at seg_addr.  The chunks
 * tile the blocks (checked at attach) and nr_buckets <= 2^28, so nothing
 * here overflows.
 *
 * Return: the positions from @pos to the end of its chunk (>= 1): so many
 * seg words can be read from @raddr with one READ.
 */
u32 scalio_host_seg_locate(struct scalio_host_hstore *hs, u32 pos, u64 *raddr,
			   u32 *rkey)
{
	const struct scalio_host_hchunk *c = scalio_host_chunk_of(hs, pos / hs->bpb);

	*raddr = c->seg_addr + (u64)(pos - c->first_block * hs->bpb) * sizeof(u64);
	*rkey = c->seg_rkey;
	return (c->first_block + c->nr_blocks) * hs->bpb - pos;
}

/**
 * scalio_host_block_locate() - remote address and rkey of a hash block
 * @hs:		store
 * @block:	block number (< nr_blocks)
 * @raddr:	out
 * @rkey:	out
 */
int scalio_host_block_locate(struct scalio_host_hstore *hs, u32 block, u64 *raddr,
			     u32 *rkey)
{
	const struct scalio_host_hchunk *c;

	if (block >= hs->nr_blocks)
		return -EINVAL;
	c = scalio_host_chunk_of(hs, block);
	*raddr = c->addr + (u64)(block - c->first_block) * hs->block_size;
	*rkey = c->rkey;
	return 0;
}

/* Add a READ of the target's clock word (into the word area) to @ch. */
static void scalio_host_chain_clock(struct scalio_host_chain *ch)
{
	struct scalio_host_hstore *hs = ch->conn->hs;

	scalio_host_chain_read(ch, SCALIO_IO_WORD_OFF, sizeof(u64), hs->hdr_addr +
			  offsetof(struct scalio_index_hdr, clock),
			  hs->hdr_rkey, false);
}

/* The clock word a chain just read: note it, and return it. */
static u64 scalio_host_clock_got(struct scalio_host_hstore *hs, struct scalio_host_io *io)
{
	u64 now = le64_to_cpu(*(__le64 *)(io->buf + SCALIO_IO_WORD_OFF));

	spin_lock(&hs->clock_lock);
	/* Several readers race: keep the newest value. */
	if (now >= hs->clock) {
		hs->clock = now;
		hs->clock_jiffies = jiffies;
	}
	spin_unlock(&hs->clock_lock);
	return now;
}

/**
 * scalio_host_clock_refresh() - read the target's clock word
 * @hs:		store
 * @io:		bounce page (its word area is used)
 * @now:	out: the clock
 */
int scalio_host_clock_refresh(struct scalio_host_hstore *hs, struct scalio_host_io *io,
			      u64 *now)
{
	struct scalio_host_chain ch;
	int ret;

	scalio_host_chain_init(&ch, &hs->conn, io);
	scalio_host_chain_clock(&ch);
	ret = scalio_host_chain_exec(&ch);
	if (!ret)
		*now = scalio_host_clock_got(hs, io);
	return ret;
}

/**
 * scalio_host_clock_now() - estimate of the target clock without a round trip
 * @hs:	store
 *
 * The last clock read plus the local time elapsed since.  Used where a
 * wrong guess only costs a retry (is a B lease still live? is our own lease
 * close to its end? last_ts hints); lock deadlines are always computed from
 * a fresh read.
 */
u64 scalio_host_clock_now(struct scalio_host_hstore *hs)
{
	u64 clock;
	unsigned long j;

	spin_lock(&hs->clock_lock);
	clock = hs->clock;
	j = hs->clock_jiffies;
	spin_unlock(&hs->clock_lock);
	return clock + (u64)jiffies_to_msecs(jiffies - j) *
		       SCALIO_CLOCK_HZ / 1000;
}

/* The lease a fill takes, in target clock ticks (capped, see protocol.rst). */
static u32 scalio_host_lease_ticks(struct scalio_host_hstore *hs)
{
	return clamp_t(u32, hs->lease_ticks, 1, SCALIO_LEASE_MAX_TICKS);
}

static unsigned long scalio_host_ticks_to_jiffies(u64 ticks)
{
	return msecs_to_jiffies(div_u64(ticks * 1000, SCALIO_CLOCK_HZ));
}

/**
 * scalio_host_backoff() - sleep before retrying: exponential, with jitter,
 * bounded (10 us doubling up to 5 ms)
 * @attempt:	retries so far
 */
void scalio_host_backoff(unsigned int attempt)
{
	unsigned int d = 10U << min(attempt, 9U);
	unsigned int lo;

	d = min(d, 5000U);
	lo = d / 2 + get_random_u32_below(d / 2 + 1);
	usleep_range(lo, lo + d / 4 + 1);
}

/*
 * Add a READ of the seg word of the key's bucket to @ch, from the
 * read-only seg table the target publishes (the block header is
 * client-writable, so seg is not kept there).  @fence: start only after
 * the chain's earlier READs returned.  The word lands in the bounce
 * page's seg word (apart from the clock's, read in the same chain by
 * the seg-first step 1).
 */
static void scalio_host_chain_seg(struct scalio_host_chain *ch, struct scalio_host_get *g,
				  bool fence)
{
	struct scalio_host_hstore *hs = g->hs;
	u64 raddr;
	u32 rkey;

	scalio_host_seg_locate(hs, scalio_bucket_pos(g->bucket, hs->nr_blocks,
						     hs->bpb), &raddr, &rkey);
	scalio_host_chain_read(ch, SCALIO_IO_SEG_OFF, sizeof(u64), raddr, rkey,
			       fence);
}

static u64 scalio_host_seg_got(struct scalio_host_get *g)
{
	return le64_to_cpu(*(__le64 *)(g->io->buf + SCALIO_IO_SEG_OFF));
}

static int scalio_host_read_seg(struct scalio_host_get *g, u64 *seg)
{
	struct scalio_host_chain ch;
	int ret;

	scalio_host_chain_init(&ch, &g->hs->conn, g->io);
	scalio_host_chain_seg(&ch, g, false);
	ret = scalio_host_chain_exec(&ch);
	if (!ret)
		*seg = scalio_host_seg_got(g);
	return ret;
}

/* GET by RPC: the target reads its own seg and segment. */
static int scalio_host_get_rpc(struct scalio_host_get *g)
{
	struct scalio_host_hstore *hs = g->hs;
	const struct scalio_msg_kv_rep *rep;
	struct scalio_host_rpc *rpc;
	u32 vlen;
	int ret;

	rpc = scalio_host_kv_rpc_get(&hs->conn, g->key, g->klen);
	if (IS_ERR(rpc))
		return PTR_ERR(rpc);
	scalio_host_hstat_inc(hs, SCALIO_HS_RPC_GETS);
	ret = scalio_host_rpc_exec(&hs->conn, rpc, SCALIO_MSG_GET,
				   sizeof(struct scalio_msg_kv_req));
	if (!ret)
		ret = scalio_host_rpc_status(rpc);
	if (ret)
		goto out;
	ret = -EPROTO;
	rep = rpc->rsp;
	if (rpc->rsp_len < sizeof(*rep))
		goto out;
	vlen = le16_to_cpu(rep->vlen);
	if (vlen > SCALIO_VALUE_MAX || rpc->rsp_len != sizeof(*rep) + vlen)
		goto out;
	memcpy(g->value, rep->value, vlen);
	g->vlen = vlen;
	ret = 0;
out:
	scalio_host_rpc_put(&hs->conn, rpc);
	return ret;
}

/**
 * scalio_host_get_read_seg() - the SSD read of step 5, without holding the
 *	connection
 * @g:		the GET (holding the connection)
 * @seg:	the seg word to read the segment of
 * @bufp:	out, as scalio_host_ssd_read_seg()
 *
 * The read waits for NVMe-oF, which may stall (its own path reconnecting,
 * up to the GET's time): the GET lets go of its connection meanwhile, so
 * that a teardown or a reconnect of it does not wait for the read.  The
 * GET keeps its bounce page and its slot lock; the lease renewal, a work
 * item, enters the connection on its own.  Coming back to another
 * connection (a reconnect or a teardown happened), nothing it read or
 * locked through the old one may be used: not the seg word (the
 * invalidations a reconnect pays assume no fill of the old connection
 * publishes after them), the lock word (perhaps another client id's now)
 * nor the rkeys; the GET is lost with the connection and starts over
 * (scalio_host_get()), its lock left to expire, as a GET whose connection
 * failed under it always was.
 *
 * Return: as scalio_host_ssd_read_seg(), g->held still true; or, with
 * g->held false and g->io NULL, the read's -ETIMEDOUT or -EINTR (the GET's
 * time is up or it was killed: no point starting over), else -ENOTCONN.
 */
static int scalio_host_get_read_seg(struct scalio_host_get *g, u64 seg,
				    void **bufp)
{
	struct scalio_host_conn *conn = &g->hs->conn;
	int ret;

	scalio_host_conn_leave(conn);
	ret = scalio_host_ssd_read_seg(g->hs, seg, g->end, bufp);
	if (!scalio_host_conn_return(conn, g->gen))
		return ret;
	g->held = false;
	g->io = NULL;
	if (!ret)
		scalio_host_ssd_free_seg(*bufp, seg);
	return ret == -ETIMEDOUT || ret == -EINTR ? ret : -ENOTCONN;
}

/**
 * scalio_host_get_val() - read and check the value extent a record names
 * @g:		the GET (holding the connection)
 * @seg:	the seg word whose segment held the record
 * @v:		the record's value pointer
 *
 * Like the segment read, the extent read lets go of the connection
 * (scalio_host_get_read_seg()).
 *
 * Return: 0 with the value in g->value; as scalio_host_ssd_read_val(),
 * g->held still true; or as scalio_host_get_read_seg() when the GET came
 * back to another connection.
 */
static int scalio_host_get_val(struct scalio_host_get *g, u64 seg,
			       const struct scalio_vref *v)
{
	struct scalio_host_conn *conn = &g->hs->conn;
	int ret;

	scalio_host_conn_leave(conn);
	scalio_host_vread_delay(&g->end);
	scalio_host_hstat_inc(g->hs, SCALIO_HS_GET_VAL_READS);
	ret = scalio_host_ssd_read_val(g->hs, scalio_seg_ssd(seg), v, g->key,
				       g->klen, g->value, g->end);
	trace_scalio_host_val_read(g->hs, false, g->bucket, g->hash, v->pos,
				   v->len, ret);
	if (!scalio_host_conn_return(conn, g->gen)) {
		if (!ret)
			g->vlen = v->len;
		return ret;
	}
	g->held = false;
	g->io = NULL;
	return ret == -ETIMEDOUT || ret == -EINTR ? ret : -ENOTCONN;
}

/*
 * Step 5's bucket read (scalio_host_ssd_read_bucket()): the GET, and its
 * record's value pointer.
 */
struct scalio_host_get_bucket {
	struct scalio_host_get	*g;
	struct scalio_vref	v;
};

static int scalio_host_get_bucket_seg(void *ctx, u64 seg, void **bufp)
{
	struct scalio_host_get_bucket *b = ctx;

	return scalio_host_get_read_seg(b->g, seg, bufp);
}

/* Find the key; its value, or SCALIO_HOST_SEG_VAL for its extent. */
static int scalio_host_get_bucket_use(void *ctx, u64 seg, const void *sh,
				      u64 *vpos)
{
	struct scalio_host_get_bucket *b = ctx;
	struct scalio_host_get *g = b->g;
	struct scalio_rec rec;
	int ret;

	ret = scalio_seg_find(sh, g->key, g->klen, &rec);
	if (!ret && rec.vlen > SCALIO_VALUE_MAX)
		ret = -EBADMSG;
	if (ret)
		return ret;
	if (scalio_rec_vref(&rec, &b->v))
		return SCALIO_HOST_SEG_VAL;
	memcpy(g->value, rec.value, rec.vlen);
	g->vlen = rec.vlen;
	return 0;
}

/* The extent, read once the segment is freed; a GET counts what it met. */
static int scalio_host_get_bucket_val(void *ctx, u64 seg, u64 *vpos)
{
	struct scalio_host_get_bucket *b = ctx;
	int ret;

	ret = scalio_host_get_val(b->g, seg, &b->v);
	if (ret == -ESTALE)
		scalio_host_hstat_inc(b->g->hs, SCALIO_HS_GET_VAL_STALE);
	*vpos = b->v.pos;
	return ret;
}

static int scalio_host_get_bucket_word(void *ctx, u64 *seg)
{
	struct scalio_host_get_bucket *b = ctx;

	/*
	 * The optimistic path answers only from the seg its block READ
	 * followed: a newer one would not be covered by that READ.
	 */
	if (b->g->opt)
		return -EAGAIN;
	return scalio_host_read_seg(b->g, seg);
}

static DEFINE_RATELIMIT_STATE(scalio_host_get_rs_never,
			      DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);
static DEFINE_RATELIMIT_STATE(scalio_host_get_rs_damaged,
			      DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

/*
 * A GET's part: the reads let go of the connection (and come back to it,
 * or the GET is lost with it), the seg word is read again on it; the
 * extents' ESTALE counted (get_val_stale); no segment: -ENOENT.
 */
static const struct scalio_host_bucket_ops scalio_host_get_bucket_ops = {
	.read_seg	= scalio_host_get_bucket_seg,
	.use_seg	= scalio_host_get_bucket_use,
	.read_val	= scalio_host_get_bucket_val,
	.seg_word	= scalio_host_get_bucket_word,
	.empty		= -ENOENT,
	.who		= "",
	.func		= "scalio_host_get_ssd",
	.rs_never	= &scalio_host_get_rs_never,
	.rs_damaged	= &scalio_host_get_rs_damaged,
};

/*
 * Step 5 on the direct path: read the segment @seg names from the bound
 * SSD, check it against @seg, find the key, and read its value extent if
 * its record points to one, as scalio_host_ssd_read_bucket() rules (seg
 * read again and all of it retried while it moves, -EIO for a damaged
 * extent).  An SSD that is not bound (-ENODEV): the target answers by
 * RPC.  Returns 0 or -ENOENT only with the connection held
 * (scalio_host_get_read_seg()).
 */
static int scalio_host_get_ssd(struct scalio_host_get *g, u64 seg)
{
	struct scalio_host_get_bucket b = { .g = g };
	int ret;

	ret = scalio_host_ssd_read_bucket(g->hs, g->bucket, seg,
					  &scalio_host_get_bucket_ops, &b);
	if (ret == -ENODEV)	/* that SSD is not bound */
		return g->opt ? -EAGAIN : scalio_host_get_rpc(g);
	return ret;
}

/* Is the direct SSD path usable for this GET's bucket? */
static bool scalio_host_get_direct(struct scalio_host_get *g)
{
	struct scalio_host_hstore *hs = g->hs;

	return (hs->features & SCALIO_F_OFFLOAD_READ) &&
	       scalio_host_ssd_bound(hs, scalio_bucket_ssd(g->bucket,
							   hs->nr_ssds));
}

/* Step 5 without the inline cache: seg, then the segment (or an RPC). */
static int scalio_host_get_fetch(struct scalio_host_get *g)
{
	u64 seg;
	int ret;

	if (!scalio_host_get_direct(g))
		return scalio_host_get_rpc(g);
	ret = scalio_host_read_seg(g, &seg);
	if (ret)
		return ret;
	return scalio_host_get_ssd(g, seg);
}

/* CAS slot @slot's ctl word; *@cur gets the value found. */
static int scalio_host_cas_ctl(struct scalio_host_get *g, u32 slot, u64 old, u64 new,
			       u64 *cur)
{
	return scalio_host_rdma_cas(&g->hs->conn, g->io,
			       g->raddr + scalio_slot_offset(slot), g->rkey,
			       old, scalio_host_ctl(new), cur);
}

/* Is @cur the D a writer made of our lock @mine (owner, fp, next version)? */
static bool scalio_host_is_our_d(struct scalio_host_get *g, u64 cur, u64 mine)
{
	u64 d = scalio_host_ctl(scalio_ctl_invalidate(mine));

	return scalio_ctl_state(cur) == SCALIO_SLOT_D &&
	       scalio_ctl_owner(cur) == g->hs->conn.client_id &&
	       scalio_ctl_fp(cur) == g->fp &&
	       scalio_ctl_version(cur) == scalio_ctl_version(d);
}

/*
 * Give up our lock: B -> A.  If a writer turned it into D meanwhile, D -> A.
 * If it was reclaimed, there is nothing left of ours to release.
 */
static int scalio_host_unlock(struct scalio_host_get *g, u32 slot, u64 mine)
{
	u64 cur, cur2;
	int ret;

	ret = scalio_host_cas_ctl(g, slot, mine, scalio_ctl_release(mine), &cur);
	if (ret || cur == mine)
		return ret;
	if (scalio_host_is_our_d(g, cur, mine))
		ret = scalio_host_cas_ctl(g, slot, cur, scalio_ctl_release(cur),
					  &cur2);
	return ret;
}

/**
 * scalio_host_reclaim() - clear an expired (or dead) lock: CAS it to A
 * @g:		the GET
 * @slot:	the slot
 * @ctl:	its ctl word as read
 * @done:	out: the CAS succeeded
 *
 * The version bump makes the late owner's renewal and publish CASes fail,
 * which is what lets anyone treat the key as absent afterwards.
 */
static int scalio_host_reclaim(struct scalio_host_get *g, u32 slot, u64 ctl, bool *done)
{
	u64 cur;
	int ret;

	ret = scalio_host_cas_ctl(g, slot, ctl, scalio_ctl_release(ctl), &cur);
	if (ret)
		return ret;
	*done = cur == ctl;
	if (*done)
		scalio_host_hstat_inc(g->hs, SCALIO_HS_LEASE_RECLAIMS);
	trace_scalio_host_slot_reclaim(g->hs, g->block, slot, *done);
	return 0;
}

/**
 * struct scalio_host_fill_ref - a fill of this client in flight on a slot
 * @node:	on hs->fills while @word[0] is set
 * @block:	the slot's block
 * @slot:	the slot
 * @word:	its lock word as last installed; [1]: the word a renewal CAS
 *		in flight may install (0 otherwise: no B word is 0)
 * @listed:	on hs->fills (read without the lock by the fill only)
 *
 * In flight from the lock CAS until scalio_host_fill() returns: its last
 * chain (the publish's value WRITE and CAS) has then executed, or was
 * flushed with the connection.
 */
struct scalio_host_fill_ref {
	struct list_head	node;
	u32			block;
	u32			slot;
	u64			word[2];
	bool			listed;
};

/* Does a fill of ours other than @f, in flight on its slot, hold @word? */
static bool scalio_host_fill_held(struct scalio_host_hstore *hs,
				  const struct scalio_host_fill_ref *f, u64 word)
{
	const struct scalio_host_fill_ref *o;

	lockdep_assert_held(&hs->fill_lock);
	list_for_each_entry(o, &hs->fills, node)
		if (o != f && o->block == f->block && o->slot == f->slot &&
		    (o->word[0] == word || o->word[1] == word))
			return true;
	return false;
}

/**
 * scalio_host_fill_word() - the fill token's host rule
 * @hs:		store
 * @f:		our fill (@f->block and @f->slot set)
 * @word:	the lock or renewal word (state B) we mean to install
 * @i:		where to record it: 0 a lock, 1 a renewal's next word
 *
 * Two fills of this client with the same lock word on one slot share a
 * fill token: a late value WRITE of one validates under the other's
 * publish (scalio_slot_csum_tok()), and its renewal or publish CAS
 * succeeds on the other's lock.  The version alone cannot tell them apart
 * once it wrapped, nor can the deadline once the 16-bit clock did.  So a
 * word one of our fills in flight holds is never installed: the deadline
 * moves back a tick instead (an earlier deadline is always safe: the lock
 * only expires sooner).  The check and the record are one step under
 * hs->fill_lock, so that two of our fills choosing at once see each other.
 *
 * Return: @word, its deadline moved back by 0 or more ticks.
 */
static u64 scalio_host_fill_word(struct scalio_host_hstore *hs,
				 struct scalio_host_fill_ref *f, u64 word,
				 int i)
{
	spin_lock(&hs->fill_lock);
	while (scalio_host_fill_held(hs, f, word))
		word = scalio_ctl_make(SCALIO_SLOT_B, scalio_ctl_version(word),
				       scalio_ctl_owner(word),
				       scalio_ctl_lease(word) - 1,
				       scalio_ctl_fp(word));
	f->word[i] = word;
	if (!f->listed)
		list_add(&f->node, &hs->fills);
	f->listed = true;
	spin_unlock(&hs->fill_lock);
	return word;
}

/* A renewal CAS returned: @word (0: none) is the fill's lock again. */
static void scalio_host_fill_renewed(struct scalio_host_hstore *hs,
				     struct scalio_host_fill_ref *f, u64 word)
{
	spin_lock(&hs->fill_lock);
	if (word)
		f->word[0] = word;
	f->word[1] = 0;
	spin_unlock(&hs->fill_lock);
}

/* The fill is over: none of its words can land any more. */
static void scalio_host_fill_done(struct scalio_host_hstore *hs,
				  struct scalio_host_fill_ref *f)
{
	if (!f->listed)
		return;
	spin_lock(&hs->fill_lock);
	list_del(&f->node);
	f->listed = false;
	spin_unlock(&hs->fill_lock);
}

/* How far scalio_host_fill_word() moved @word's deadline back, in ticks. */
static u16 scalio_host_fill_moved(u64 deadline, u64 word)
{
	return (u16)deadline - scalio_ctl_lease(word);
}

/**
 * struct scalio_host_renewal - keeps a filler's lease alive across slow I/O
 * @work:	renews every half lease while the fill reads the segment
 * @g:		the GET; the atomic word of its bounce page belongs to @work
 *		until scalio_host_renewal_stop(); @work uses it only while it
 *		holds the GET's connection itself (the GET may have left it)
 * @slot:	our slot
 * @mine:	our lock as last renewed
 * @deadline:	its deadline (target clock)
 * @lease:	lease length, ticks
 * @lost:	a renewal CAS failed: the lock was reclaimed or invalidated
 * @fill:	the fill's words in flight (its renewals obey the host rule)
 *
 * An SSD read or an RPC may take longer than the lease (a slow or
 * throttled device); without renewal every such fill would be reclaimed by
 * the next GET and no GET of the key would ever complete.  A renewal is a
 * CAS B -> B with a later deadline and a new version: once anyone has
 * reclaimed or invalidated the lock it fails, and the filler abandons.
 */
struct scalio_host_renewal {
	struct delayed_work	work;
	struct scalio_host_get	*g;
	u32			slot;
	u64			mine;
	u64			deadline;
	u32			lease;
	bool			lost;
	struct scalio_host_fill_ref	*fill;
};

/* Time until the lease is half over (renew then). */
static unsigned long scalio_host_renewal_delay(struct scalio_host_renewal *r)
{
	s64 left = (s64)(r->deadline - r->lease / 2 -
			 scalio_host_clock_now(r->g->hs));

	return left > 0 ? scalio_host_ticks_to_jiffies(left) : 0;
}

/*
 * One renewal CAS; false (and r->lost) if the lock is no longer ours.
 * False too, without a CAS, once the GET's own time is up: a read that
 * stalls (an NVMe-oF path that hangs while RDMA works) must not hold the
 * key for every reader on every host for as long as it stalls.  The lock
 * then expires and is reclaimed; this GET fails with -ETIMEDOUT anyway.
 */
static bool scalio_host_renewal_renew(struct scalio_host_renewal *r)
{
	u64 deadline, next, cur;

	/* READ_ONCE: debug_vread_delay_ms moves it meanwhile */
	if (time_after(jiffies, READ_ONCE(r->g->end))) {
		scalio_host_hstat_inc(r->g->hs, SCALIO_HS_LEASE_GIVEUPS);
		trace_scalio_host_slot_renew(r->g->hs, r->g->block, r->slot,
					     false);
		return false;
	}
	deadline = scalio_host_clock_now(r->g->hs) + r->lease;
	next = scalio_host_fill_word(r->g->hs, r->fill,
				     scalio_host_ctl(scalio_ctl_renew(r->mine,
								      (u16)deadline)),
				     1);
	deadline -= scalio_host_fill_moved(deadline, next);
	if (scalio_host_cas_ctl(r->g, r->slot, r->mine, next, &cur) ||
	    cur != r->mine) {
		/* the CAS returned: next is not in the slot, or not ours */
		scalio_host_fill_renewed(r->g->hs, r->fill, 0);
		r->lost = true;
		trace_scalio_host_slot_renew(r->g->hs, r->g->block, r->slot,
					     false);
		return false;
	}
	scalio_host_fill_renewed(r->g->hs, r->fill, next);
	r->mine = next;
	r->deadline = deadline;
	scalio_host_hstat_inc(r->g->hs, SCALIO_HS_LEASE_RENEWALS);
	trace_scalio_host_slot_renew(r->g->hs, r->g->block, r->slot, true);
	return true;
}

/*
 * The renewal's CAS goes on the GET's connection, which the GET may have
 * left for its SSD read (scalio_host_get_read_seg()): enter it here, and
 * only if it is still the one the lock was taken on.  Without waiting: the
 * GET cancels this work synchronously, holding the connection.  Another
 * connection (or one being torn down) means the lock is lost to us.
 */
static void scalio_host_renewal_work(struct work_struct *work)
{
	struct scalio_host_renewal *r = container_of(to_delayed_work(work),
						struct scalio_host_renewal, work);
	struct scalio_host_conn *conn = &r->g->hs->conn;
	bool again;

	if (scalio_host_conn_return(conn, r->g->gen)) {
		r->lost = true;
		trace_scalio_host_slot_renew(r->g->hs, r->g->block, r->slot,
					     false);
		return;
	}
	again = scalio_host_renewal_renew(r);
	scalio_host_conn_exit(conn);
	if (again)
		queue_delayed_work(system_long_wq, &r->work,
				   scalio_host_renewal_delay(r));
}

/*
 * Half the lease or more already gone (a filler that stalled after
 * locking): renew here, before the I/O.  Left to the work, a fetch that
 * needs no I/O (an absent key) would cancel it unrun and the fill would
 * then abandon a lock that nobody had taken from it.
 */
static void scalio_host_renewal_start(struct scalio_host_renewal *r)
{
	INIT_DELAYED_WORK_ONSTACK(&r->work, scalio_host_renewal_work);
	if (!scalio_host_renewal_delay(r) && !scalio_host_renewal_renew(r))
		return;
	queue_delayed_work(system_long_wq, &r->work, scalio_host_renewal_delay(r));
}

/* After this, r->mine, r->deadline and r->lost are the fill's again. */
static void scalio_host_renewal_stop(struct scalio_host_renewal *r)
{
	cancel_delayed_work_sync(&r->work);
	destroy_delayed_work_on_stack(&r->work);
}

/**
 * __scalio_host_fill() - steps 3 to 6 of GET after a miss
 * @g:		the GET (its bounce page holds the block copy of step 1)
 * @f:		the fill's words in flight, on hs->fills from the lock on
 *		(scalio_host_fill_word())
 * @attempt:	retries so far (for back-off)
 * @now:	the target clock, read in step 1's chain
 *
 * Network waits (chains, rdma.c): the lock CAS; the key WRITE, the
 * double-read READ and, fenced behind it, the seg READ; the SSD read; the
 * value WRITE and the publish CAS.  With step 1 (block and clock READs)
 * that is 4 waits and one SSD read for a miss.
 *
 * Return: 0 (value filled), -ENOENT, SCALIO_RESTART, or an error.
 */
static int __scalio_host_fill(struct scalio_host_get *g,
			      struct scalio_host_fill_ref *f,
			      unsigned int attempt, u64 now)
{
	struct scalio_host_hstore *hs = g->hs;
	struct scalio_host_conn *conn = &hs->conn;
	struct scalio_block_view v = {
		.buf	= g->io->buf + SCALIO_IO_BLOCK_OFF,
		.slots	= hs->slots,
	};
	struct scalio_slot *ws = g->io->buf + SCALIO_IO_SLOT_OFF;
	struct scalio_host_renewal r = {
		.g	= g,
		.lease	= scalio_host_lease_ticks(hs),
		.fill	= f,
	};
	enum scalio_collision coll = SCALIO_COLL_NONE;
	bool direct = scalio_host_get_direct(g);
	bool token = scalio_host_fill_token(hs);
	u64 old, mine, pub, cur, ctl_addr, seg = 0, epoch;
	bool reclaim, present, cache, done, split;
	struct scalio_host_chain ch;
	unsigned int delay;
	u32 victim, idx;
	int ret;

	/*
	 * 3. victim, lock with a lease from step 1's clock read (at most one
	 * round trip old: the deadline can only be early, never late)
	 */
	scalio_host_lock_delay();
	if (!scalio_host_victim_random(&v, &victim) &&
	    !scalio_victim_choose(&v, now, &victim)) {
		scalio_host_backoff(attempt);
		return SCALIO_RESTART;	/* every slot live-locked */
	}
	old = le64_to_cpu(scalio_view_slot(&v, victim)->ctl);
	reclaim = scalio_ctl_state(old) == SCALIO_SLOT_B ||
		  scalio_ctl_state(old) == SCALIO_SLOT_D;
	r.deadline = now + r.lease;
	f->block = g->block;
	f->slot = victim;
	mine = scalio_host_fill_word(hs, f,
				     scalio_host_ctl(scalio_ctl_lock(old,
							conn->client_id,
							(u16)r.deadline, g->fp)),
				     0);
	r.deadline -= scalio_host_fill_moved(r.deadline, mine);
	ctl_addr = g->raddr + scalio_slot_offset(victim);
	ret = scalio_host_cas_ctl(g, victim, old, mine, &cur);
	if (ret)
		return ret;
	if (cur != old)
		return SCALIO_RESTART;
	if (reclaim) {	/* locking an expired B or D is its reclaim */
		scalio_host_hstat_inc(hs, SCALIO_HS_LEASE_RECLAIMS);
		trace_scalio_host_slot_reclaim(hs, g->block, victim, true);
	}

	/*
	 * ... and write the key before the double-read: one chain of the key
	 * WRITE, the double-read READ (the responder runs them in order: the
	 * READ sees our key) and the seg READ, fenced so that it starts only
	 * once the double-read returned.
	 */
	memset(ws, 0, sizeof(*ws));
	ws->klen = g->klen;
	memcpy(ws->key, g->key, g->klen);
	scalio_host_chain_init(&ch, conn, g->io);
	scalio_host_chain_write(&ch, SCALIO_IO_SLOT_OFF +
			   offsetof(struct scalio_slot, klen),
			   offsetof(struct scalio_slot, value) -
			   offsetof(struct scalio_slot, klen),
			   ctl_addr + offsetof(struct scalio_slot, klen),
			   g->rkey);

	/*
	 * 4. double-read: does anyone else hold or cache this key?  An
	 * expired B of the key is reclaimed, then the block read again (with
	 * seg again behind it): it is never taken for absent while its late
	 * owner could still publish.
	 */
	for (;;) {
		if (!scalio_host_debug_skip_double_read)
			scalio_host_chain_read(&ch, SCALIO_IO_BLOCK_OFF,
					       hs->block_size, g->raddr, g->rkey,
					  false);
		if (direct)
			scalio_host_chain_seg(&ch, g, true);
		if (ch.n) {
			ret = scalio_host_chain_exec(&ch);
			if (ret)
				return ret;
		}
		seg = direct ? scalio_host_seg_got(g) : 0;
		if (scalio_host_debug_skip_double_read)
			break;
		coll = scalio_block_collision(&v, victim, mine, g->key, g->klen,
					      g->fp, scalio_host_clock_now(hs), &idx);
		if (coll != SCALIO_COLL_RECLAIM)
			break;
		if (scalio_host_debug_skip_reclaim) {
			coll = SCALIO_COLL_NONE;	/* the broken variant */
			break;
		}
		ret = scalio_host_reclaim(g, idx,
					  le64_to_cpu(scalio_view_slot(&v, idx)->ctl),
				     &done);
		if (ret)
			return ret;
		if (!done) {
			coll = SCALIO_COLL_YES;	/* it changed: start over */
			break;
		}
		scalio_host_chain_init(&ch, conn, g->io);
	}
	if (coll == SCALIO_COLL_YES) {
		ret = scalio_host_unlock(g, victim, mine);
		if (ret)
			return ret;
		scalio_host_backoff(attempt);
		return SCALIO_RESTART;
	}
	/*
	 * The block's epoch as read before the seg READ: the value is bound
	 * to it, so that once the target retires the block (a departed
	 * writer's owed invalidation) nobody serves what we read before.
	 */
	epoch = scalio_view_epoch(&v);

	delay = scalio_host_fill_delay_ms();
	if (delay) {
		/*
		 * Counted from the lease's start (step 1's clock), so that
		 * which locks expire mid-fill depends on the delay and the
		 * lease, not on the bed's round-trip times.
		 */
		u64 held = div_u64((scalio_host_clock_now(hs) - now) * 1000,
				   SCALIO_CLOCK_HZ);

		if (held < delay)
			msleep_interruptible(delay - held);
	}

	/*
	 * 5. the segment seg names (seg was read behind the double-read), or
	 * an RPC, renewing the lease while that takes.
	 */
	r.slot = victim;
	r.mine = mine;
	scalio_host_renewal_start(&r);
	if (r.lost)	/* taken from us while we stalled: abandon below */
		ret = 0;
	else if (g->bg)	/* the value its GET read, if seg still names it */
		ret = (direct && seg == g->pre_seg) ||
		      scalio_host_bg_skip_seg_check() ? 0 : -ESTALE;
	else
		ret = direct ? scalio_host_get_ssd(g, seg) : scalio_host_get_rpc(g);
	scalio_host_renewal_stop(&r);
	mine = r.mine;
	if (ret && ret != -ENOENT) {
		/* back on another connection: the lock is left to expire */
		if (g->held)
			scalio_host_unlock(g, victim, mine);
		return ret;
	}
	present = !ret;

	/*
	 * Abandon, without touching the slot, if the lock is lost or the
	 * lease nearly over.  Only an optimisation: a late publish CAS fails
	 * anyway once anyone reclaimed the lock, and nobody treats a lock as
	 * absent without reclaiming it.
	 */
	if (r.lost || scalio_host_clock_now(hs) + r.lease / 4 >= r.deadline) {
		ret = scalio_host_unlock(g, victim, mine);
		if (ret)
			return ret;
		scalio_host_backoff(attempt);
		return SCALIO_RESTART;
	}

	/*
	 * 6. publish (or release), and answer only if that CAS succeeded: the
	 * value WRITE and the CAS in one chain (the CAS lands after the WRITE)
	 */
	cache = present && g->vlen <= SCALIO_INLINE_MAX;
	scalio_host_chain_init(&ch, conn, g->io);
	if (cache) {
		/*
		 * With fill tokens the C word keeps our owner and deadline
		 * and the checksum binds it whole: a late WRITE of a fill
		 * that stalled across a version wrap cannot validate under
		 * another fill's publish.
		 */
		pub = scalio_host_ctl(token ? scalio_ctl_publish_tok(mine) :
					      scalio_ctl_publish(mine));
		ws->vlen = g->vlen;
		memcpy(ws->value, g->value, g->vlen);
		ws->etag = cpu_to_le16((u16)epoch);
		if (token)
			ws->csum = cpu_to_le32(scalio_slot_csum_tok(pub, epoch,
								    g->key,
								    g->klen,
								    g->value,
								    g->vlen));
		else
			ws->csum = cpu_to_le32(scalio_slot_csum(scalio_ctl_version(pub),
								g->key, g->klen,
								g->value, g->vlen));
		/*
		 * last_ts too: a new entry inherits the evicted one's (or an
		 * empty slot's 0) otherwise, and is the next LRU victim
		 */
		ws->last_ts = cpu_to_le64(scalio_host_clock_now(hs));
		scalio_host_chain_write(&ch, SCALIO_IO_SLOT_OFF +
				   offsetof(struct scalio_slot, last_ts),
				   SCALIO_SLOT_SIZE -
				   offsetof(struct scalio_slot, last_ts),
				   ctl_addr +
				   offsetof(struct scalio_slot, last_ts),
				   g->rkey);
		/* the test hooks: a stall, then the WRITE and the CAS apart */
		split = scalio_host_hold_armed();
		split |= scalio_host_publish_delay();
		if (split) {
			g->end += scalio_host_hold(SCALIO_HOLD_WRITE, victim,
						   mine, pub);
			ret = scalio_host_chain_exec(&ch);
			if (ret)
				return ret;
			scalio_host_publish_delay();
			g->end += scalio_host_hold(SCALIO_HOLD_CAS, victim,
						   mine, pub);
			scalio_host_chain_init(&ch, conn, g->io);
		}
	} else {
		pub = scalio_host_ctl(scalio_ctl_release(mine));
	}
	scalio_host_chain_cas(&ch, ctl_addr, g->rkey, mine, pub);
	ret = scalio_host_chain_exec(&ch);
	if (ret)
		return ret;
	cur = scalio_host_chain_cas_old(&ch);
	trace_scalio_host_slot_fill(hs, g->block, g->bucket, victim,
				    present ? g->vlen : 0, cur == mine && cache,
				    cur != mine);
	if (cur == mine)
		return present ? 0 : -ENOENT;
	g->end += scalio_host_hold(SCALIO_HOLD_LOST, victim, mine, cur);

	/*
	 * Lost the lock: a writer's D (release it) or a reclaim.  Back off
	 * before refilling: the writer that made the D may still be
	 * invalidating, and refilling at once only races it again.
	 */
	if (scalio_host_is_our_d(g, cur, mine)) {
		ret = scalio_host_cas_ctl(g, victim, cur, scalio_ctl_release(cur),
					  &old);
		if (ret)
			return ret;
	}
	scalio_host_backoff(attempt);
	return SCALIO_RESTART;
}

/* __scalio_host_fill(), and its lock words off hs->fills once it is over. */
static int scalio_host_fill(struct scalio_host_get *g, unsigned int attempt,
			    u64 now)
{
	struct scalio_host_fill_ref f = {};
	int ret;

	ret = __scalio_host_fill(g, &f, attempt, now);
	scalio_host_fill_done(g->hs, &f);
	return ret;
}

/*
 * A C slot that may hold our key keeps looking torn (scalio_slot_torn()):
 * its contents were damaged (a filler whose lease ran out wrote into a slot
 * someone else had reclaimed).  Evicting a cache slot (C -> A, CAS on the
 * exact ctl word we saw) is always safe, as eviction of the LRU victim is:
 * do it, so that readers of the key do not spin on it until they time out.
 */
static int scalio_host_evict_torn(struct scalio_host_get *g,
				  const struct scalio_block_view *v)
{
	u64 ctl, cur;
	u32 i;
	int ret;

	for (i = 0; i < v->slots; i++) {
		const struct scalio_slot *s = scalio_view_slot(v, i);

		if (!scalio_slot_torn(s, scalio_view_epoch(v), g->key, g->klen,
				      g->fp))
			continue;
		ctl = le64_to_cpu(s->ctl);
		ret = scalio_host_cas_ctl(g, i, ctl, scalio_ctl_release(ctl), &cur);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Step 1's chain: the block and the clock, one wait.  @seg_first: the
 * seg word (into *@seg) first and the block fenced behind it, so that
 * every slot word returned was read after the seg word.
 */
static int scalio_host_read_block(struct scalio_host_get *g, bool seg_first,
				  u64 *now, u64 *seg)
{
	struct scalio_host_hstore *hs = g->hs;
	struct scalio_host_chain ch;
	int ret;

	scalio_host_chain_init(&ch, &hs->conn, g->io);
	if (seg_first)
		scalio_host_chain_seg(&ch, g, false);
	scalio_host_chain_read(&ch, SCALIO_IO_BLOCK_OFF, hs->block_size,
			       g->raddr, g->rkey, seg_first);
	scalio_host_chain_clock(&ch);
	ret = scalio_host_chain_exec(&ch);
	if (ret)
		return ret;
	*now = scalio_host_clock_got(hs, g->io);
	if (seg_first)
		*seg = scalio_host_seg_got(g);
	return 0;
}

/**
 * struct scalio_host_bgfill - a cache fill that runs after its GET answered
 * @work:	on scalio_host_bg_wq
 * @node:	on hs->bg_list while queued or running (hs->fill_lock)
 * @hs:		store
 * @gen:	the connection's generation the GET read on
 * @seg:	the seg word the value was read from
 * @now:	the clock read with the block (the lock's deadline counts
 *		from it: it can only be early)
 * @hash:	the key's hash
 * @klen:	key length
 * @vlen:	value length (<= SCALIO_INLINE_MAX)
 * @key:	the key
 * @value:	the value
 * @block:	the block as the GET read it (the victim is chosen in it)
 */
struct scalio_host_bgfill {
	struct work_struct	work;
	struct list_head	node;
	struct scalio_host_hstore	*hs;
	u32			gen;
	u64			seg;
	u64			now;
	u64			hash;
	u32			klen;
	u32			vlen;
	u8			key[SCALIO_KEY_MAX];
	u8			value[SCALIO_INLINE_MAX];
	u8			block[];
};

/*
 * The block and clock a background fill starts from: its GET's, unless a
 * quarter lease has gone by since (a slow queue, a test's delay), then
 * read again (a wait of its own) and still a miss.
 */
static int scalio_host_bgfill_block(struct scalio_host_get *g,
				    struct scalio_host_bgfill *f)
{
	struct scalio_host_hstore *hs = g->hs;
	struct scalio_block_view v = {
		.buf	= g->io->buf + SCALIO_IO_BLOCK_OFF,
		.slots	= hs->slots,
	};
	u32 idx;
	int ret;

	if (scalio_host_clock_now(hs) - f->now < scalio_host_lease_ticks(hs) / 4) {
		memcpy(g->io->buf + SCALIO_IO_BLOCK_OFF, f->block, hs->block_size);
		return 0;
	}
	ret = scalio_host_read_block(g, false, &f->now, NULL);
	if (ret)
		return ret;
	if (scalio_block_lookup(&v, g->key, g->klen, g->fp, f->now, &idx) !=
	    SCALIO_LOOKUP_MISS)
		return -EBUSY;	/* filled, busy, or to be reclaimed by a GET */
	return 0;
}

/*
 * Steps 3, 4 and 6 of a miss the GET already answered, on a bounce page of
 * its own and its own hold of the connection: lock a victim of the block
 * the GET read, write the key, double-read, read seg (fenced), and publish
 * the value only if seg still names the segment it was read from: then it
 * is what a fill that read the SSD now would publish.  Anything else (the
 * key busy, seg moved, the lock lost, the connection gone or replaced)
 * ends the fill with nothing cached: the next miss of the key fills it.
 * It never retries, never waits for a reconnect, and never answers.
 */
static void scalio_host_bgfill_work(struct work_struct *work)
{
	struct scalio_host_bgfill *f = container_of(work, struct scalio_host_bgfill,
						    work);
	struct scalio_host_hstore *hs = f->hs;
	struct scalio_host_conn *conn = &hs->conn;
	struct scalio_host_get g = {
		.hs	= hs,
		.key	= f->key,
		.klen	= f->klen,
		.value	= f->value,
		.vlen	= f->vlen,
		.hash	= f->hash,
		.bg	= true,
		.pre_seg = f->seg,
	};
	int ret;

	scalio_host_bg_delay();
	ret = scalio_host_conn_enter_nowait(conn);
	if (ret)
		goto out;
	g.held = true;
	g.gen = scalio_host_conn_gen(conn);
	ret = -ESTALE;
	if (g.gen != f->gen || READ_ONCE(hs->bg_stop))
		goto out_exit;
	g.bucket = scalio_hash_bucket(f->hash, hs->nr_buckets);
	g.block = scalio_bucket_block(g.bucket, hs->nr_blocks);
	g.fp = scalio_hash_fp(f->hash);
	ret = scalio_host_block_locate(hs, g.block, &g.raddr, &g.rkey);
	if (ret)
		goto out_exit;
	g.io = scalio_host_io_get(conn);
	if (!g.io) {
		ret = -ENOTCONN;
		goto out_exit;
	}
	g.io->bg = true;
	g.end = jiffies + msecs_to_jiffies(SCALIO_OP_TIMEOUT_MS);
	ret = scalio_host_bgfill_block(&g, f);
	if (!ret)
		ret = scalio_host_fill(&g, 0, f->now);
	if (g.io) {
		g.io->bg = false;
		scalio_host_io_put(conn, g.io);
	}
out_exit:
	if (g.held)
		scalio_host_conn_exit(conn);
out:
	if (ret)
		scalio_host_hstat_inc(hs, SCALIO_HS_BG_FILL_DROPS);
	scalio_host_hstat_inc(hs, SCALIO_HS_BG_FILLS);
	spin_lock(&hs->fill_lock);
	list_del(&f->node);
	spin_unlock(&hs->fill_lock);
	kfree(f);
	atomic_dec(&hs->bg_inflight);
}

/* Is a background fill of @f's key queued or running?  hs->fill_lock. */
static bool scalio_host_bgfill_dup(struct scalio_host_hstore *hs,
				   const struct scalio_host_bgfill *f)
{
	const struct scalio_host_bgfill *o;

	lockdep_assert_held(&hs->fill_lock);
	list_for_each_entry(o, &hs->bg_list, node)
		if (o->hash == f->hash && o->klen == f->klen &&
		    !memcmp(o->key, f->key, f->klen))
			return true;
	return false;
}

/*
 * Hand the fill of what the optimistic path answered (@g's key and value,
 * read from @seg; @v and @now as read with it) to the background.  Not
 * queued, and counted a drop, when SCALIO_HOST_BG_MAX are in flight, one
 * of the same key is (it publishes, or the key's next miss fills it), or
 * the store is being detached.  Every fill handed over is counted
 * (bg_queued), and again once it is over (bg_fills), after its drop if it
 * cached nothing (bg_fill_drops): bg_queued - bg_fills are in flight.
 */
static void scalio_host_bgfill_queue(struct scalio_host_get *g,
				     const struct scalio_block_view *v,
				     u64 now, u64 seg)
{
	struct scalio_host_hstore *hs = g->hs;
	struct scalio_host_bgfill *f;

	scalio_host_hstat_inc(hs, SCALIO_HS_BG_QUEUED);
	if (atomic_inc_return(&hs->bg_inflight) > SCALIO_HOST_BG_MAX)
		goto drop;
	f = kmalloc(struct_size(f, block, hs->block_size),
		    GFP_NOIO | __GFP_NOWARN);
	if (!f)
		goto drop;
	INIT_WORK(&f->work, scalio_host_bgfill_work);
	f->hs = hs;
	f->gen = g->gen;
	f->seg = seg;
	f->now = now;
	f->hash = g->hash;
	f->klen = g->klen;
	f->vlen = g->vlen;
	memcpy(f->key, g->key, g->klen);
	memcpy(f->value, g->value, g->vlen);
	memcpy(f->block, v->buf, hs->block_size);
	spin_lock(&hs->fill_lock);
	if (!hs->bg_stop && !scalio_host_bgfill_dup(hs, f)) {
		list_add_tail(&f->node, &hs->bg_list);
		queue_work(scalio_host_bg_wq, &f->work);
		f = NULL;
	}
	spin_unlock(&hs->fill_lock);
	if (!f)
		return;
	kfree(f);
drop:
	atomic_dec(&hs->bg_inflight);
	scalio_host_hstat_inc(hs, SCALIO_HS_BG_FILL_DROPS);
	scalio_host_hstat_inc(hs, SCALIO_HS_BG_FILLS);
}

/**
 * scalio_host_bgfill_stop() - no more background fills for a store
 * @hs:		store being detached (its connection still there)
 *
 * Waits for those queued or running: each is bounded by its fill's time,
 * and one that finds the store leaving stops before locking anything.
 */
void scalio_host_bgfill_stop(struct scalio_host_hstore *hs)
{
	spin_lock(&hs->fill_lock);
	hs->bg_stop = true;
	spin_unlock(&hs->fill_lock);
	flush_workqueue(scalio_host_bg_wq);
	WARN_ON_ONCE(atomic_read(&hs->bg_inflight));
}

int scalio_host_read_module_init(void)
{
	scalio_host_bg_wq = alloc_workqueue("scalio_fill", WQ_UNBOUND, 0);
	return scalio_host_bg_wq ? 0 : -ENOMEM;
}

void scalio_host_read_module_exit(void)
{
	destroy_workqueue(scalio_host_bg_wq);
}

/*
 * Step 1's chain: does it read seg first?  Only when GETs recently missed
 * more often than not: the fenced block READ behind seg costs a hit one
 * round trip more, and saves a miss a whole chain.
 */
static bool scalio_host_seg_first(struct scalio_host_get *g)
{
	return READ_ONCE(scalio_host_optimistic_miss) && !g->opt_off &&
	       READ_ONCE(g->hs->miss_avg) > 512 && scalio_host_get_direct(g);
}

/* A GET's outcome moves the recent miss ratio (1/8 per GET, racy). */
static void scalio_host_miss_note(struct scalio_host_hstore *hs, bool miss)
{
	s32 avg = READ_ONCE(hs->miss_avg);

	avg += ((miss ? 1024 : 0) - avg) / 8;
	WRITE_ONCE(hs->miss_avg, clamp(avg, 0, 1024));
}

/**
 * scalio_host_get_optimistic() - answer a miss before filling the cache
 * @g:		the GET, its block (@v) just read by a chain that READ @seg
 *		first and the block fenced behind it, and found no slot of
 *		the key in it (SCALIO_LOOKUP_MISS)
 * @v:		that block copy
 * @now:	the clock read with it
 * @seg:	that seg word
 *
 * No slot held or cached the key at any moment the block READ looked
 * (all after the seg READ returned), so no fill that read an older seg
 * can still publish (its lock would have been seen, or was lost), and
 * every later fill reads this seg or a newer one: the value @seg names is
 * a linearizable answer, as of the seg READ (Documentation/protocol.rst,
 * "A miss that waits once").  It is read from the SSD without reading seg
 * again (a header mismatch or a moved value falls back); a value that
 * fits a slot is then cached by a background fill.
 *
 * Return: 0 or -ENOENT (answered), SCALIO_RESTART (fall back to the
 * locked fill), or an error as scalio_host_get_ssd().
 */
static int scalio_host_get_optimistic(struct scalio_host_get *g,
				      const struct scalio_block_view *v,
				      u64 now, u64 seg)
{
	int ret;

	g->opt = true;
	ret = scalio_host_get_ssd(g, seg);
	g->opt = false;
	if (ret == -EAGAIN) {
		g->opt_off = true;
		return SCALIO_RESTART;
	}
	if (ret && ret != -ENOENT)
		return ret;
	scalio_host_hstat_inc(g->hs, SCALIO_HS_OPT_MISSES);
	if (!ret && g->vlen <= SCALIO_INLINE_MAX)
		scalio_host_bgfill_queue(g, v, now, seg);
	return ret;
}

/* GET with the inline cache: the whole slot protocol. */
static int scalio_host_get_cached(struct scalio_host_get *g)
{
	struct scalio_host_hstore *hs = g->hs;
	struct scalio_block_view v = {
		.buf	= g->io->buf + SCALIO_IO_BLOCK_OFF,
		.slots	= hs->slots,
	};
	const struct scalio_slot *s;
	unsigned int attempt, torn = 0;
	unsigned long busy_since = 0;
	enum scalio_lookup res;
	u64 now, ctl, busy_ctl = 0, done_ctl, seg = 0;
	bool done, seg_first = scalio_host_seg_first(g), reread = false;
	u32 idx;
	int ret;

	for (attempt = 0;; attempt++) {
		if (attempt && !reread) {
			scalio_host_hstat_inc(hs, SCALIO_HS_RETRIES);
			g->retries++;
			if (time_after(jiffies, g->end))
				return -ETIMEDOUT;
			if (fatal_signal_pending(current))
				return -EINTR;
		}
		reread = false;
		/*
		 * 1. read the block, and the clock in the same chain: leases
		 * are judged, and a miss's lock deadline is set, by a fresh
		 * clock at no extra wait.  Seg-first: the seg word before
		 * them, the block fenced behind it, for a miss to answer from
		 * (scalio_host_get_optimistic()).
		 */
		ret = scalio_host_read_block(g, seg_first, &now, &seg);
		if (ret)
			return ret;
		res = scalio_block_lookup(&v, g->key, g->klen, g->fp, now, &idx);
		switch (res) {
		case SCALIO_LOOKUP_HIT:
			scalio_host_miss_note(hs, false);
			s = scalio_view_slot(&v, idx);
			g->vlen = s->vlen;
			memcpy(g->value, s->value, s->vlen);
			scalio_host_hstat_inc(hs, SCALIO_HS_CACHE_HITS);
			g->hit = true;
			scalio_host_rdma_write_ts(&hs->conn, g->raddr +
					     scalio_slot_offset(idx) +
					     offsetof(struct scalio_slot,
						      last_ts),
					     g->rkey, now);
			return 0;
		case SCALIO_LOOKUP_RECLAIM:
			if (scalio_host_debug_skip_reclaim)
				break;		/* the broken variant: a miss */
			/* an expired lock of the key: reclaim, then re-read */
			ret = scalio_host_reclaim(g, idx, le64_to_cpu(
					scalio_view_slot(&v, idx)->ctl), &done);
			if (ret)
				return ret;
			continue;
		case SCALIO_LOOKUP_BUSY:
			/*
			 * 2. a filler holds the key: never go around it.  But
			 * a lock that stays unchanged (a live filler renews
			 * it) for longer than any lease is dead, whatever its
			 * 16-bit deadline seems to say: reclaim it.
			 */
			ctl = le64_to_cpu(scalio_view_slot(&v, idx)->ctl);
			if (ctl != busy_ctl) {
				busy_ctl = ctl;
				busy_since = jiffies;
			} else if (time_after(jiffies, busy_since +
					      scalio_host_ticks_to_jiffies(
					      scalio_host_lease_ticks(hs) * 9 / 8) +
					      msecs_to_jiffies(10))) {
				ret = scalio_host_reclaim(g, idx, ctl, &done);
				if (ret)
					return ret;
				continue;
			}
			scalio_host_backoff(attempt);
			continue;
		case SCALIO_LOOKUP_RETIRED:
			/*
			 * filled before the target retired the block's
			 * cache: evict it (a failed CAS means it changed),
			 * then re-read
			 */
			ctl = le64_to_cpu(scalio_view_slot(&v, idx)->ctl);
			ret = scalio_host_cas_ctl(g, idx, ctl,
						  scalio_ctl_release(ctl), &done_ctl);
			if (ret)
				return ret;
			if (done_ctl == ctl)
				scalio_host_hstat_inc(hs, SCALIO_HS_RETIRED_EVICTIONS);
			continue;
		case SCALIO_LOOKUP_TORN:
			/* re-read at once: a fill or a write was in flight */
			if (++torn < 8)
				continue;
			torn = 0;
			ret = scalio_host_evict_torn(g, &v);
			if (ret)
				return ret;
			scalio_host_backoff(attempt);
			continue;
		case SCALIO_LOOKUP_MISS:
			break;
		}
		if (READ_ONCE(scalio_host_optimistic_miss) && !g->opt_off &&
		    scalio_host_get_direct(g)) {
			if (!seg_first) {
				/* read again, seg first: not a retry */
				seg_first = true;
				reread = true;
				continue;
			}
			ret = scalio_host_get_optimistic(g, &v, now, seg);
			if (ret == SCALIO_RESTART) {
				seg_first = false;
				continue;
			}
		} else {
			ret = scalio_host_fill(g, attempt, now);
			if (ret == SCALIO_RESTART)
				continue;
		}
		/* answered on a miss path: this GET is a miss (hits: above) */
		if (!ret || ret == -ENOENT) {
			scalio_host_hstat_inc(hs, SCALIO_HS_CACHE_MISSES);
			scalio_host_miss_note(hs, true);
		}
		return ret;
	}
}

/**
 * scalio_host_get() - look a key up
 * @hs:		store
 * @key:	key, 1..SCALIO_KEY_MAX bytes (checked by the caller)
 * @klen:	key length
 * @value:	out, SCALIO_VALUE_MAX bytes
 * @vlen:	out: value length
 *
 * A GET changes nothing the target or another client relies on (a slot
 * lock it leaves behind expires and is reclaimed), so when the connection
 * is lost under it, it waits for the reconnect and starts over, as long as
 * the store's fast_io_fail_ms allows: a reader rides out a target restart
 * or a short partition instead of failing.  Writes must not do this
 * (write.c, scalio_host_write()).  Each loss is traced
 * (scalio_host_get_lost), each start over counted (lost_get_retries).
 *
 * Return: 0, -ENOENT, -EHOSTDOWN (the connection stayed down for
 * fast_io_fail_ms), -ENOTCONN, -ETIMEDOUT, -EIO, -EINTR...
 */
int scalio_host_get(struct scalio_host_hstore *hs, const u8 *key, u32 klen,
		    u8 *value, u32 *vlen)
{
	struct scalio_host_conn *conn = &hs->conn;
	struct scalio_host_get g = {
		.hs	= hs,
		.key	= key,
		.klen	= klen,
		.value	= value,
	};
	u64 hash = scalio_key_hash(hs->hash_seed, key, klen);
	u64 t0 = scalio_host_trace_t0(trace_scalio_host_get_done_enabled());
	unsigned long wait_end = 0;
	bool lost;
	int ret;

	g.hash = hash;
	g.bucket = scalio_hash_bucket(hash, hs->nr_buckets);
	g.block = scalio_bucket_block(g.bucket, hs->nr_blocks);
	g.fp = scalio_hash_fp(hash);
	scalio_host_hstat_inc(hs, SCALIO_HS_GETS);
	trace_scalio_host_get_issue(hs, hash, 0);

again:
	ret = scalio_host_conn_enter_until(conn, &wait_end, SCALIO_HOST_OP_GET);
	if (ret)
		goto out;
	g.gen = scalio_host_conn_gen(conn);
	g.held = true;
	if (!(hs->features & SCALIO_F_INLINE_CACHE) &&
	    !(hs->features & SCALIO_F_OFFLOAD_READ)) {
		/* the baseline: a plain RPC */
		ret = scalio_host_get_rpc(&g);
		goto out_unlock;
	}
	ret = scalio_host_block_locate(hs, g.block, &g.raddr, &g.rkey);
	if (ret)
		goto out_unlock;
	g.io = scalio_host_io_get(conn);
	if (!g.io) {
		ret = scalio_host_io_get_err(conn);
		goto out_unlock;
	}
	/* the whole GET's time, on either path (SSD reads wait until then) */
	g.end = jiffies + msecs_to_jiffies(SCALIO_OP_TIMEOUT_MS);
	if (hs->features & SCALIO_F_INLINE_CACHE)
		ret = scalio_host_get_cached(&g);
	else
		ret = scalio_host_get_fetch(&g);
	if (g.io)	/* NULL: it went with the connection it came from */
		scalio_host_io_put(conn, g.io);
	g.io = NULL;
out_unlock:
	/*
	 * Lost with the connection: -ENOTCONN, or a timeout that failed it
	 * (read while we hold io_rwsem, before a reconnect can clear it).
	 * A GET that came back from its SSD read to another connection no
	 * longer holds it, and returns -ENOTCONN unless its time is up.
	 */
	lost = ret == -ENOTCONN ||
	       (ret == -ETIMEDOUT && g.held && scalio_host_conn_dead(conn));
	if (g.held)
		scalio_host_conn_exit(conn);
	g.held = false;
	if (lost) {
		bool retry = scalio_host_conn_may_retry(conn, &wait_end);

		trace_scalio_host_get_lost(hs, hash, ret, retry);
		if (retry) {
			scalio_host_hstat_inc(hs, SCALIO_HS_LOST_GET_RETRIES);
			g.hit = false;
			goto again;
		}
	}
out:
	if (!ret)
		*vlen = g.vlen;
	else if (ret != -ENOENT)
		scalio_host_hstat_inc(hs, SCALIO_HS_ERRORS);
	if (trace_scalio_host_get_done_enabled())
		trace_scalio_host_get_done(hs, hash, ret, ret ? 0 : g.vlen,
					   g.hit, g.retries,
					   scalio_host_trace_since(t0));
	return ret;
}
