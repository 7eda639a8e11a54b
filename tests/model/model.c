// SPDX-License-Identifier: GPL-2.0
/*
 * Exhaustive interleaving checker of the slot consistency protocol
 * (DESIGN.md section 3), driving the real common/scalio_slot.c functions.
 *
 * World: one hash block of 2 slots in "target memory", two keys K and K2
 * of that block whose values live in the block's on-SSD segment (the seg
 * word names a segment generation; each commit writes a new one, K2 = w0
 * in all of them).  Processes:
 *
 *   writers W1, W2: PUT(K), PUT(K, too large for a slot), DELETE(K)
 *              (--w1, --w2; --puts N): commit (durable write + seg
 *              update, one target step), then the invalidation loop;
 *   readers R1, R2: GETs of K (--gets1, --gets2 of them);
 *   reader  R3: GETs of K2 (--gets3): victim pressure, it evicts K's C
 *              slots and locks, reclaims and fills slots K also wants;
 *   cleaner:   relocates the live segment (--cleans N times) and lets
 *              later batches overwrite freed units (header mismatches).
 *
 * Each GET takes the code's steps (host/read.c) as the code takes them:
 * block READ and lookup (HIT returns; RECLAIM: CAS the expired lock to A
 * and re-read; BUSY / TORN: re-read), victim choice, lock CAS, key WRITE,
 * double-read READ, the seg READ fenced behind it (a step of its own),
 * collision check (RECLAIM: CAS, then double-read again; collision:
 * release), segment read with its header check (a mismatch reads seg
 * again), lease renewal CASes while the segment is read (--renew N), the
 * lease check, the value WRITE, and the publish CAS (B -> A for a value
 * absent or too large): separate steps, so the clock may pass the deadline
 * and the slot be reclaimed between any two of them.
 *
 * Every RDMA READ of the block is NOT atomic: each part of each slot (the
 * ctl word; the data: klen, key, vlen, value, csum) is read at its own
 * step, in any order, interleaved with everything else.  Every ctl change
 * is a CAS of the whole word; key and value writes are unconditional RDMA
 * WRITEs (they land even if the writer lost its lock meanwhile).
 *
 * Leases: a global target clock advances by nondeterministic "tick" steps
 * (at most --ticks of them).  A lock's lease deadline is the clock at lock
 * (or renewal) time, so one tick later it has expired.  --lag N: a
 * reader's clock estimate lags by up to N ticks until it reads the clock
 * again.  With --busy-reclaim a reader that finds a live lock of its key
 * may also reclaim it at once (a clock estimate running ahead, or the
 * host's "unchanged for longer than any lease" rule): reclaim at any
 * moment.  --fp-collide gives K2 and K3 K's fingerprint.  --vbits N cuts
 * every ctl version to N bits, so versions wrap.  --depart: W1 may leave
 * right after its commit, owing its invalidation (its host died); the
 * target then retires the block (a step of its own, at any moment after:
 * a new epoch in the block header, which every READ of the block reads as
 * a part of its own, a fill binding the epoch its double-read saw), and
 * from that step on W1's write must have taken effect.  --opt: a GET miss
 * responds from the segment a seg word read before the block names
 * (scalio_host_get_optimistic()) and a background fill, a process of its
 * own (bg1..bg3), caches it (scalio_host_bgfill_work()); README.md.
 * A crashed client is a
 * process that is never scheduled again; every prefix of every
 * interleaving is explored and checked (the checker is online).
 *
 * Linearizability of K is checked online (Lowe's just-in-time method): the
 * state carries the set of possible linearized configurations (register
 * value, and for each pending operation whether it has taken effect and,
 * for a GET, which value it saw).  On a response the configurations in
 * which that operation took effect with the returned value survive; an
 * empty set is a violation.  K2 is never written: each GET of it must
 * return w0.  States are stored as 64-bit hashes (or, with --bitstate, as
 * bits of a fixed-size bit array: a partial search for big bounds).
 *
 * Broken variants (--variant) must each produce a violation:
 *   no-double-read   skip step 4 (no collision re-read before reading seg)
 *   no-invalidation  PUT returns right after the commit
 *   seg-early        seg read inside the double-read READ, in any order
 *                    with the slot parts (not after the slot check)
 *   return-after-d   a filler whose lock a writer turned into D returns the
 *                    value it read (after clearing the D) instead of retrying
 *   skip-reclaim     lookup and double-read skip an expired B of the key
 *                    instead of reclaiming it by CAS (issue 13)
 *   wrap             the design as built, run with a small --vbits: a
 *                    filler stalled across a wrap publishes a stale value
 *   token-no-rule    the fill token without its host rule (--same-owner:
 *                    one client's two fills may share a lock word)
 *   no-retire        (--depart) the departed writer's connection ends
 *                    and the block keeps its epoch: the old value stays
 *                    cached
 *   opt-block-first  (--opt) the optimistic miss reads the block before
 *                    the seg word, not fenced behind it
 *   opt-no-seg-check (--opt) the background fill publishes the returned
 *                    value without comparing the seg words
 * and the fix of the version wrap must not:
 *   fill-token       C keeps the lock's owner and deadline, the checksum
 *                    binds the whole C word (scalio_ctl_publish_tok(),
 *                    scalio_slot_csum_tok()), and a client never locks
 *                    with the word of one of its own fills in flight
 *
 * Usage: model [--puts N | --w1 OPS] [--w2 OPS] [--gets1 N] [--gets2 N]
 *              [--gets3 N] [--ticks N] [--attempts N] [--cached] [--full]
 *              [--renew N] [--busy-reclaim] [--cleans N] [--lag N]
 *              [--fp-collide] [--same-owner] [--depart] [--opt] [--vbits N]
 *              [--bitstate LOG2BITS | --walks N [--depth N]]
 *              [--variant V] [--first] [--no-trace]
 *        model [--jobs N] --tap       the standard suite as KTAP (used by
 *                                     make run)
 *        model [--jobs N] --tap-long  the long suite (make -C tests/model
 *                                     long)
 * --jobs N: N searches of the suite at once, each in a process of its
 * own; the output is the same, in the same order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "common/scalio_slot.h"

#define NSLOTS		2
/*
 * 0, 4 write K; 1 and 2 read K, 3 reads K2; 5, 6, 7: the background fills
 * (--opt) of readers 1, 2, 3, each a process of its own.
 */
#define NPROC		8
#define BG0		5	/* background fill of reader 1 */
#define NOPS		2	/* operations per writer */
/*
 * Value ids: 0 = v0 (initial); writer w's operation j writes 1 + 2w + j
 * (v1, v2 by W1; v3, v4 by W2), or ABSENT (a DELETE); W0 is K2's only
 * value, X3 K3's (never read).
 */
#define ABSENT		5
#define NREG		6	/* register values of K: v0..v4, ABSENT */
#define W0		6
#define X3		7
#define NGEN		8	/* segment generations: 1 + commits + cleans */

/* Key ids as stored in a slot's data: 0 none, 1 K, 2 K2, 3 K3. */
static const u8 *const keys[4] = { NULL, (const u8 *)"model-key",
				   (const u8 *)"other-key",
				   (const u8 *)"third-key" };
#define KLEN		9

enum variant {
	V_NONE,
	V_NO_DOUBLE_READ,
	V_NO_INVALIDATION,
	V_SEG_EARLY,
	V_RETURN_AFTER_D,
	V_SKIP_RECLAIM,
	V_WRAP,
	V_FILL_TOKEN,
	V_TOKEN_NO_RULE,
	V_NO_RETIRE,
	V_OPT_BLOCK_FIRST,
	V_OPT_NO_SEG_CHECK,
	V_NR,
};

static const char *const variant_names[V_NR] = {
	"correct", "no-double-read", "no-invalidation", "seg-early",
	"return-after-d", "skip-reclaim", "wrap", "fill-token",
	"token-no-rule", "no-retire", "opt-block-first", "opt-no-seg-check",
};

/* The variants that model a correct design (no violation expected). */
static bool variant_correct(int v)
{
	return v == V_NONE || v == V_FILL_TOKEN;
}

struct config {
	/* W1, W2: 'p' PUT, 'b' PUT too large for a slot, 'd' DELETE */
	char	ops[2][NOPS + 1];
	int	gets[3];	/* GETs by R1, R2 (key K) and R3 (key K2) */
	int	ticks;		/* clock ticks available (lease expiries) */
	int	attempts;	/* lock CASes per GET before giving up */
	bool	cached;		/* slot 0 starts as a valid C of v0 */
	bool	full;		/* slot 1 starts as a valid C of K3 */
	int	renew;		/* lease renewals per fill */
	bool	busy_reclaim;	/* readers may reclaim a live lock of their key */
	int	cleans;		/* cleaner relocations of the segment */
	int	lag;		/* a reader's clock may lag the target's by this */
	bool	fp_collide;	/* K2 and K3 share K's fingerprint */
	bool	same_owner;	/* R1 and R2: two threads of one client */
	bool	depart;		/* W1 may leave after its commit */
	int	vbits;		/* ctl version width (20: the real one) */
	int	bitstate;	/* 0: hash compaction; else log2 of the bits */
	enum variant variant;
	bool	first;		/* stop at the first violation */
	bool	trace;		/* print the first violating trace */
	/* bounded random walk instead of the exhaustive search */
	long	walks;		/* number of walks (seeds 1..walks) */
	int	depth;		/* steps per walk */
	bool	opt;		/* optimistic miss, background fill */
};

static struct config cfg;
static u16 key_fp[4];

/* Slot parts, each written and read as a unit. */
struct aslot {
	u64	ctl;
	u8	key;		/* key id, 0: never written */
	u8	val;		/* 0: none (vlen 0), else value id + 1 */
	u8	etag;		/* block epoch the filler read; with val */
	u8	pad;
	u32	csum;		/* written with val */
};

enum pc {
	P_IDLE,			/* between operations */
	P_DONE,			/* all operations done */
	P_HALT,			/* gave up (attempt bound): op stays pending */
	R_LOOKUP,		/* reading the block for step 1 */
	R_RECLAIM,		/* CAS an expired (or, busy-reclaim, live) lock to A */
	R_LOCK,			/* CAS the victim to B */
	R_WKEY,			/* RDMA WRITE of the key */
	R_DREAD,		/* double-read (step 4) */
	R_DRECLAIM,		/* CAS an expired B seen by the double-read */
	R_RELEASE,		/* CAS our B back to A (collision, abandon) */
	R_UNLOCK_D,		/* ... it was our D: CAS D -> A */
	R_SEGRD,		/* the seg READ fenced behind the double-read */
	R_SEG,			/* renew, or read the segment (step 5) */
	R_SEGRE,		/* renew, or read seg again (header mismatch) */
	R_WVAL,			/* lease check */
	R_WVAL2,		/* RDMA WRITE of key, value and csum */
	R_PUB,			/* CAS B -> C (B -> A if not cached) */
	R_DCLEAR,		/* publish found our D: CAS D -> A */
	R_OPTSEG,		/* --opt: read the segment, respond */
	W_COMMIT,		/* target: durable write, seg update */
	W_SCAN,			/* writer's invalidation READ */
	W_CAS,			/* writer's invalidation CAS */
};

struct proc {
	u8	pc;
	u8	done;		/* completed operations */
	u8	attempts;
	u8	mask;		/* parts read by the current READ */
	u8	mine;		/* slot locked, or victim / slot to invalidate */
	u8	value;		/* value id read from the SSD */
	u8	seg;		/* seg word (a generation) as read */
	u8	other;		/* slot to reclaim; writer: scan start */
	u8	renewed;	/* renewals in this fill */
	u8	lag;		/* clock estimate = target clock - lag */
	u8	ep;		/* block epoch as read (--depart) */
	u8	fill_ep;	/* ... by the double-read: the fill binds it */
	u8	opt;		/* OPT_* (--opt) */
	u8	oseg;		/* bg fill: seg its GET responded from */
	u8	pad[2];
	u64	expect;		/* ctl a CAS expects */
	u64	target;		/* ctl a CAS installs (writer) */
	u64	my_ctl;		/* our lock */
	struct aslot snap[NSLOTS];
};

/*
 * A configuration of the linearizability check: the register's value, for
 * each writer whether its pending operation took effect, for each reader
 * of K 0 (pending) or the value its GET took + 1.  Values are numbered
 * densely (lin_idx[]) among those the configuration's operations can
 * write, and unused fields have radix 1: the set takes only the words the
 * bounds need (conf_init()), and only those are hashed.
 */
#define NCONF	(NREG * 2 * 2 * 7 * 7)
#define LINW	((NCONF + 63) / 64)

struct state {
	struct aslot slot[NSLOTS];
	u8	seg;		/* the seg word: generation it names */
	u8	ngen;		/* generations written so far */
	u8	gone;		/* generations whose units were reused */
	u8	clock;
	u8	ticks_left;
	u8	cleans_left;
	u8	epoch;		/* the block header's epoch (target-written) */
	u8	departed;	/* 1: W1 left after its commit; 2: retired */
	u8	segval[NGEN];	/* K's value in each generation */
	struct proc p[NPROC];
	u64	lin[LINW];	/* set of configurations: lin_words used */
};

/* reader flags (struct proc's opt), --opt */
#define OPT_WANT	1	/* old chain missed: read seg first now */
#define OPT_FELL	2	/* fell back: the locked path for this GET */
#define OPT_VICTIM	4	/* R_OPTSEG: mine/expect: the bg victim */

static bool is_bg(int pi)
{
	return pi >= BG0;
}

/* The reader a process is or whose background fill it is. */
static int reader_of(int pi)
{
	return is_bg(pi) ? pi - BG0 + 1 : pi;
}

static int proc_key(int pi)
{
	return reader_of(pi) == 3 ? 2 : 1;
}

static bool is_writer(int pi)
{
	return pi == 0 || pi == 4;
}

/* The client id a reader (and its background fill) locks with. */
static u32 owner_of(int pi)
{
	pi = reader_of(pi);
	return cfg.same_owner && pi == 2 ? 1 : pi;
}

/* A process's name in traces: R1..R3, their background fills bg1..bg3. */
static const char *pn(int pi)
{
	static const char *const n[NPROC] = { "W1", "R1", "R2", "R3", "W2",
					      "bg1", "bg2", "bg3" };

	return n[pi];
}

static bool opt_variant(void)
{
	return cfg.variant == V_OPT_BLOCK_FIRST ||
	       cfg.variant == V_OPT_NO_SEG_CHECK;
}

static bool token_design(void)
{
	return cfg.variant == V_FILL_TOKEN || cfg.variant == V_TOKEN_NO_RULE;
}

/* Value id written by writer @w's operation @j. */
static int op_val(int w, int j)
{
	return cfg.ops[w][j] == 'd' ? ABSENT : 1 + 2 * w + j;
}

static int nops(int w)
{
	return strlen(cfg.ops[w]);
}

/* Too large for a slot: read, returned, never cached. */
static bool val_big(int v)
{
	return v >= 1 && v <= 4 && cfg.ops[(v - 1) / 2][(v - 1) % 2] == 'b';
}

/*
 * The ctl word as a design with a cfg.vbits-bit version would hold it:
 * every ctl the real functions return goes through this, so versions wrap
 * after 2^vbits transitions of a slot instead of 2^20.
 */
static u64 vw(u64 ctl)
{
	u64 m = (((1ULL << SCALIO_CTL_VER_BITS) - 1) ^
		 ((1ULL << cfg.vbits) - 1)) << SCALIO_CTL_VER_SHIFT;

	return ctl & ~m;
}

/* ---- linearizability: configuration sets ------------------------------ */

static int lin_idx[NREG];	/* value id -> dense index */
static int lin_val[NREG];	/* dense index -> value id */
static int nreg, rad_w1, rad_w2, rad_r1, rad_r2, nconf, lin_words;

static void conf_init(void)
{
	int w, j, v;

	nreg = 0;
	for (v = 0; v < NREG; v++)
		lin_idx[v] = -1;
	lin_idx[0] = nreg;
	lin_val[nreg++] = 0;
	for (w = 0; w < 2; w++) {
		for (j = 0; j < nops(w); j++) {
			v = op_val(w, j);
			if (lin_idx[v] < 0) {
				lin_idx[v] = nreg;
				lin_val[nreg++] = v;
			}
		}
	}
	rad_w1 = nops(0) ? 2 : 1;
	rad_w2 = nops(1) ? 2 : 1;
	rad_r1 = cfg.gets[0] ? nreg + 1 : 1;
	rad_r2 = cfg.gets[1] ? nreg + 1 : 1;
	nconf = nreg * rad_w1 * rad_w2 * rad_r1 * rad_r2;
	lin_words = (nconf + 63) / 64;
}

/*
 * @reg: a value id; @w1, @w2: writer linearized; @r1, @r2: 0 pending,
 * else the dense index of the value taken + 1.
 */
static int conf_enc(int reg, int w1, int w2, int r1, int r2)
{
	return lin_idx[reg] + nreg * (w1 + rad_w1 * (w2 + rad_w2 *
						     (r1 + rad_r1 * r2)));
}

static void conf_dec(int c, int *reg, int *w1, int *w2, int *r1, int *r2)
{
	*reg = lin_val[c % nreg];
	c /= nreg;
	*w1 = c % rad_w1;
	c /= rad_w1;
	*w2 = c % rad_w2;
	c /= rad_w2;
	*r1 = c % rad_r1;
	*r2 = c / rad_r1;
}

static bool lin_has(const struct state *s, int c)
{
	return s->lin[c / 64] >> (c % 64) & 1;
}

static void lin_add(struct state *s, int c)
{
	s->lin[c / 64] |= 1ULL << (c % 64);
}

static bool op_pending(const struct state *s, int p)
{
	u8 pc = s->p[p].pc;

	return pc != P_IDLE && pc != P_DONE;
}

/* Close the set under "a pending, not yet linearized op takes effect". */
static void lin_close(struct state *s)
{
	bool changed = true;
	int c, reg, w1, w2, r1, r2, n[4], k;

	while (changed) {
		changed = false;
		for (c = 0; c < nconf; c++) {
			if (!lin_has(s, c))
				continue;
			conf_dec(c, &reg, &w1, &w2, &r1, &r2);
			for (k = 0; k < 4; k++)
				n[k] = -1;
			if (op_pending(s, 0) && !w1)
				n[0] = conf_enc(op_val(0, s->p[0].done), 1, w2,
						r1, r2);
			if (op_pending(s, 4) && !w2)
				n[1] = conf_enc(op_val(1, s->p[4].done), w1, 1,
						r1, r2);
			if (op_pending(s, 1) && !r1)
				n[2] = conf_enc(reg, w1, w2, lin_idx[reg] + 1,
						r2);
			if (op_pending(s, 2) && !r2)
				n[3] = conf_enc(reg, w1, w2, r1,
						lin_idx[reg] + 1);
			for (k = 0; k < 4; k++) {
				if (n[k] >= 0 && !lin_has(s, n[k])) {
					lin_add(s, n[k]);
					changed = true;
				}
			}
		}
	}
}

/* Response of process @p (GET returning value id @v).  False: violation. */
static bool lin_respond(struct state *s, int p, int v)
{
	u64 out[LINW] = { 0 };
	int c, reg, w1, w2, r1, r2, n;
	bool any = false;

	if (p == 3)		/* K2 is never written */
		return v == W0;
	/* a value no operation wrote cannot be linearized */
	if (v >= NREG || lin_idx[v] < 0)
		return false;
	for (c = 0; c < nconf; c++) {
		if (!lin_has(s, c))
			continue;
		conf_dec(c, &reg, &w1, &w2, &r1, &r2);
		if (p == 0 && w1)
			n = conf_enc(reg, 0, w2, r1, r2);
		else if (p == 4 && w2)
			n = conf_enc(reg, w1, 0, r1, r2);
		else if (p == 1 && r1 == lin_idx[v] + 1)
			n = conf_enc(reg, w1, w2, 0, r2);
		else if (p == 2 && r2 == lin_idx[v] + 1)
			n = conf_enc(reg, w1, w2, r1, 0);
		else
			continue;
		out[n / 64] |= 1ULL << (n % 64);
		any = true;
	}
	memcpy(s->lin, out, sizeof(out));
	return any;
}

/* ---- memory: materializing slot copies for the real functions ---------- */

static void value_bytes(int v, u8 out[2])
{
	out[0] = v == X3 ? 'x' : v == W0 ? 'w' : 'v';
	out[1] = v == X3 ? '3' : v == W0 ? '0' : '0' + v;
}

/*
 * The checksum a filler stores for value @v of key @kid under C word @pub,
 * having read block epoch @ep in its double-read.
 */
static u32 fill_csum(u64 pub, u8 ep, int kid, int v)
{
	u8 vb[2];

	value_bytes(v, vb);
	if (token_design())
		return scalio_slot_csum_tok(pub, ep, keys[kid], KLEN, vb, 2);
	return scalio_slot_csum(scalio_ctl_version(pub), keys[kid], KLEN, vb,
				2);
}

static void materialize(struct scalio_slot *out, const struct aslot *a)
{
	memset(out, 0, sizeof(*out));
	out->ctl = cpu_to_le64(a->ctl);
	if (a->key) {
		out->klen = KLEN;
		memcpy(out->key, keys[a->key], KLEN);
	}
	if (a->val) {
		out->vlen = 2;
		value_bytes(a->val - 1, out->value);
	}
	out->etag = cpu_to_le16(a->etag);
	out->csum = cpu_to_le32(a->csum);
}

static u64 blockbuf[SCALIO_BLOCK_SIZE(NSLOTS) / 8];

/* A block as read: slot parts @snap, the header's epoch @ep. */
static const struct scalio_block_view *view_of(const struct aslot *snap,
					       u8 ep)
{
	static struct scalio_block_view v = { blockbuf, NSLOTS };
	int i;

	memset(blockbuf, 0, sizeof(blockbuf));
	blockbuf[0] = cpu_to_le64(ep);	/* struct scalio_block_hdr's epoch */
	for (i = 0; i < NSLOTS; i++)
		materialize((struct scalio_slot *)((u8 *)blockbuf +
						   scalio_slot_offset(i)),
			    &snap[i]);
	return &v;
}

/* ---- steps -------------------------------------------------------------- */

/*
 * A READ of the block takes one step per part: slot i's ctl word is part
 * 2i, its data (klen, key, vlen, value, csum) part 2i + 1.  A slot's data
 * is written by two WRITEs of one filler (key, then key + value + csum);
 * the model reads the data as one unit, so it does not mix bytes of two
 * WRITEs within one slot's data (the checksum, bound to the version, would
 * reject most such mixes anyway).  Part 4 is the seg word (seg-early only).
 */
#define PART_CTL	0
#define PART_DATA	1
#define PART_SEG	4
#define PART_EPOCH	5	/* the block header's epoch (--depart only) */
#define SLOT_PARTS	(2 * NSLOTS)
#define ALL_SLOT_PARTS	((1 << SLOT_PARTS) - 1)

static const char *const part_names[] = {
	"slot0.ctl", "slot0.data", "slot1.ctl", "slot1.data", "seg", "epoch",
};

/*
 * The parts a reader's block READ takes: the slots, and with --depart the
 * header's epoch word, read at its own moment like any other part.
 */
static unsigned int block_parts(void)
{
	return ALL_SLOT_PARTS | (cfg.depart ? 1U << PART_EPOCH : 0);
}

/* Is @choice a part of the block READ not read yet? */
static bool part_left(const struct proc *p, int choice, int nparts)
{
	bool part = choice < nparts || (cfg.depart && choice == PART_EPOCH);

	return part && !(p->mask & 1 << choice);
}

static char *desc;		/* when non-NULL, steps describe themselves */

/* Coverage: how often each protocol path was taken (per transition). */
enum event {
	EV_HIT, EV_BUSY, EV_TORN, EV_NO_VICTIM, EV_LOCK_FAIL, EV_COLLISION,
	EV_RECLAIM, EV_LOOKUP_RECLAIM, EV_DREAD_RECLAIM, EV_BUSY_RECLAIM,
	EV_EVICT, EV_RENEW, EV_RENEW_FAIL, EV_ABANDON, EV_PUB, EV_PUB_D,
	EV_PUB_LOST, EV_INVAL, EV_INVAL_FAIL, EV_HDR_MISMATCH, EV_UNCACHED,
	EV_CLEAN, EV_REUSE, EV_WRAP, EV_LATE_WRITE, EV_LAGGED, EV_TOKEN_RULE,
	EV_RETIRE, EV_RETIRED, EV_OPT_REREAD, EV_OPT_RESPOND, EV_OPT_FALLBACK,
	EV_BG_START, EV_BG_PUBLISH, EV_BG_STALE, EV_BG_END, EV_BG_BUSY,
	EV_NR,
};

static const char *const event_names[EV_NR] = {
	"hit", "busy", "torn", "no-victim", "lock-fail", "collision",
	"victim-reclaim", "lookup-reclaim", "dread-reclaim", "busy-reclaim",
	"evict", "renew", "renew-fail", "abandon", "publish", "publish-saw-D",
	"publish-lost", "invalidate", "invalidate-fail", "header-mismatch",
	"uncached", "clean", "reuse", "wrap", "late-write",
	"lagged-decision", "token-rule", "retire", "retired-evict",
	"opt-reread", "opt-respond", "opt-fallback", "bg-start",
	"bg-publish", "bg-stale", "bg-end", "bg-busy",
};

static unsigned long events[EV_NR];

#define EVENT(e) do { if (!desc) events[e]++; } while (0)

#define SAY(...) do { if (desc) sprintf(desc, __VA_ARGS__); } while (0)
#define SAYMORE(...) do { if (desc) sprintf(desc + strlen(desc), __VA_ARGS__); } while (0)

static void read_part(struct state *s, struct proc *p, int part)
{
	int i = part / 2;

	p->mask |= 1 << part;
	if (part == PART_SEG) {
		p->seg = s->seg;
		return;
	}
	if (part == PART_EPOCH) {
		p->ep = s->epoch;
		return;
	}
	if (part % 2 == PART_CTL) {
		p->snap[i].ctl = s->slot[i].ctl;
	} else {
		p->snap[i].key = s->slot[i].key;
		p->snap[i].val = s->slot[i].val;
		p->snap[i].etag = s->slot[i].etag;
		p->snap[i].csum = s->slot[i].csum;
	}
}

static void clear_read(struct proc *p)
{
	p->mask = 0;
	p->ep = 0;
	memset(p->snap, 0, sizeof(p->snap));
}

static void restart_get(struct proc *p)
{
	clear_read(p);
	p->expect = p->my_ctl = 0;
	p->mine = p->value = p->other = p->renewed = p->seg = 0;
	p->fill_ep = 0;
	p->opt &= OPT_FELL;	/* a fallback holds for the whole GET */
	p->pc = R_LOOKUP;
}

/* The background fill ends (scalio_host_bgfill_work() returns). */
static void bg_end(struct state *s, int pi)
{
	memset(&s->p[pi], 0, sizeof(s->p[pi]));
	s->p[pi].pc = P_DONE;
}

/*
 * A fill that did not publish: a GET starts over (scalio_get()'s loop);
 * a background fill ends, it never retries.
 */
static void retry(struct state *s, int pi)
{
	if (is_bg(pi)) {
		EVENT(EV_BG_END);
		bg_end(s, pi);
		return;
	}
	restart_get(&s->p[pi]);
}

static int total_ops(int pi)
{
	if (is_bg(pi))
		return 0;
	if (is_writer(pi))
		return nops(pi == 4);
	return cfg.gets[pi - 1];
}

static bool finish(struct state *s, int pi, int value)
{
	u8 done = s->p[pi].done, lag = s->p[pi].lag;
	bool ok = lin_respond(s, pi, value);

	memset(&s->p[pi], 0, sizeof(s->p[pi]));
	s->p[pi].done = done + 1;
	s->p[pi].lag = lag;
	s->p[pi].pc = done + 1 >= total_ops(pi) ? P_DONE : P_IDLE;
	return ok;
}

/*
 * Process @pi's estimate of the target clock (scalio_clock_now(): the
 * clock word read in step 1's chain, extrapolated): it lags the target's
 * clock by up to cfg.lag ticks until the process reads the clock again.
 */
static u8 est(const struct state *s, int pi)
{
	if (s->p[pi].lag)
		EVENT(EV_LAGGED);
	return s->clock - s->p[pi].lag;
}

/* Has the lease of @ctl passed, by process @pi's clock? */
static bool expired(const struct state *s, int pi, u64 ctl)
{
	return scalio_lease_expired(est(s, pi), scalio_ctl_lease(ctl));
}

static const char *vname(int v)
{
	static const char *const n[] = { "v0", "v1", "v2", "v3", "v4",
					 "absent", "w0", "x3" };

	return n[v];
}

/* The value K2 or K has in generation @g of the segment. */
static int seg_value(const struct state *s, int kid, int g)
{
	return kid == 2 ? W0 : s->segval[g];
}

/*
 * May step 1's READ take part @choice now?  The block parts, in any order;
 * --opt: the seg word too, first (the seg-first chain, chosen by the
 * host's miss predictor: any round may take it, unless the GET fell
 * back), and it must after an old chain's MISS (OPT_WANT): then no block
 * part before it.  opt-block-first: the seg part at any point of the READ.
 */
static bool lookup_part_ok(const struct proc *p, int choice)
{
	bool seg_read = p->mask & 1 << PART_SEG;
	bool block_first = cfg.variant == V_OPT_BLOCK_FIRST;

	if (choice == PART_SEG && block_first)
		return (p->opt & OPT_WANT) && !seg_read &&
		       (p->mask & block_parts()) == block_parts();
	if (choice == PART_SEG)
		return cfg.opt && !(p->opt & OPT_FELL) && !seg_read &&
		       !p->mask;
	if (!part_left(p, choice, SLOT_PARTS))
		return false;
	return !(p->opt & OPT_WANT) || seg_read || block_first;
}

/* Has step 1's READ got every part its chain reads? */
static bool lookup_complete(const struct proc *p)
{
	if ((p->mask & block_parts()) != block_parts())
		return false;
	return !(p->opt & OPT_WANT) || (p->mask & 1 << PART_SEG);
}

/* R_LOOKUP: the READ is complete; classify it as host/read.c does. */
static int reader_lookup(struct state *s, int pi)
{
	struct proc *p = &s->p[pi];
	int kid = proc_key(pi);
	const struct scalio_block_view *v = view_of(p->snap, p->ep);
	bool seg_first = p->mask & 1 << PART_SEG;
	enum scalio_lookup res;
	u32 idx;

	/* the seg word read is used only on the optimistic path below */
	u8 seg = p->seg;

	p->seg = 0;
	p->opt &= ~OPT_WANT;
	res = scalio_block_lookup(v, keys[kid], KLEN, key_fp[kid], est(s, pi),
				  &idx);
	if (res == SCALIO_LOOKUP_RECLAIM && cfg.variant == V_SKIP_RECLAIM)
		res = SCALIO_LOOKUP_MISS;	/* the old, broken behaviour */
	switch (res) {
	case SCALIO_LOOKUP_HIT: {
		int val = p->snap[idx].val - 1;

		EVENT(EV_HIT);
		SAYMORE(" -> HIT slot%u, GET returns %s", idx, vname(val));
		return finish(s, pi, val) ? 1 : -1;
	}
	case SCALIO_LOOKUP_RECLAIM:
	case SCALIO_LOOKUP_RETIRED:
		/*
		 * an expired lock of the key, or a slot of it filled before
		 * the block was retired: CAS it to A, then read again
		 */
		if (res == SCALIO_LOOKUP_RECLAIM) {
			EVENT(EV_LOOKUP_RECLAIM);
			SAYMORE(" -> RECLAIM slot%u", idx);
		} else {
			EVENT(EV_RETIRED);
			SAYMORE(" -> RETIRED slot%u, evict", idx);
		}
		p->other = idx;
		p->expect = p->snap[idx].ctl;
		clear_read(p);
		p->pc = R_RECLAIM;
		return 1;
	case SCALIO_LOOKUP_BUSY:
		EVENT(EV_BUSY);
		SAYMORE(" -> BUSY, retry");
		p->other = idx;
		p->expect = p->snap[idx].ctl;
		clear_read(p);
		/* choice 0 of R_RECLAIM re-reads, 1 reclaims (busy-reclaim) */
		p->pc = cfg.busy_reclaim ? R_RECLAIM : R_LOOKUP;
		return 1;
	case SCALIO_LOOKUP_TORN:
		EVENT(EV_TORN);
		SAYMORE(" -> TORN, retry");
		clear_read(p);
		return 1;
	case SCALIO_LOOKUP_MISS:
		break;
	}
	if (cfg.opt && !(p->opt & OPT_FELL)) {
		if (seg_first) {
			/*
			 * scalio_host_get_optimistic(): a MISS with the seg
			 * word read before the block: read that segment,
			 * respond.  The background fill's victim comes from
			 * this copy and this clock estimate.
			 */
			if (scalio_victim_choose(v, est(s, pi), &idx)) {
				p->opt |= OPT_VICTIM;
				p->mine = idx;
				p->expect = p->snap[idx].ctl;
			}
			clear_read(p);
			p->seg = seg;
			p->pc = R_OPTSEG;
			SAYMORE(" -> MISS, optimistic: segment gen %d", seg);
			return 1;
		}
		/* the old chain missed: read again, seg first (no retry) */
		EVENT(EV_OPT_REREAD);
		SAYMORE(" -> MISS, read again seg-first");
		clear_read(p);
		p->opt |= OPT_WANT;
		return 1;
	}
	if (!scalio_victim_choose(v, est(s, pi), &idx)) {
		EVENT(EV_NO_VICTIM);
		SAYMORE(" -> MISS, no victim, retry");
		clear_read(p);
		return 1;
	}
	p->mine = idx;
	p->expect = p->snap[idx].ctl;
	clear_read(p);
	p->pc = R_LOCK;
	SAYMORE(" -> MISS, victim slot%u", idx);
	return 1;
}

/*
 * The double-read READ and the seg READ fenced behind it have both
 * completed (scalio_fill(): one chain, then scalio_block_collision() on
 * the copy): the collision check, local.
 */
static int reader_dread(struct state *s, int pi)
{
	struct proc *p = &s->p[pi];
	int kid = proc_key(pi);
	const struct scalio_block_view *v = view_of(p->snap, p->ep);
	enum scalio_collision coll;
	u32 idx;

	coll = scalio_block_collision(v, p->mine, p->my_ctl, keys[kid], KLEN,
				      key_fp[kid], est(s, pi), &idx);
	if (coll == SCALIO_COLL_RECLAIM && cfg.variant == V_SKIP_RECLAIM)
		coll = SCALIO_COLL_NONE;	/* the old, broken behaviour */
	switch (coll) {
	case SCALIO_COLL_YES:
		EVENT(EV_COLLISION);
		SAYMORE(" -> collision, release");
		clear_read(p);
		p->pc = R_RELEASE;
		return 1;
	case SCALIO_COLL_RECLAIM:
		EVENT(EV_DREAD_RECLAIM);
		SAYMORE(" -> expired B in slot%u: reclaim", idx);
		p->other = idx;
		p->expect = p->snap[idx].ctl;
		clear_read(p);
		p->pc = R_DRECLAIM;
		return 1;
	case SCALIO_COLL_NONE:
		break;
	}
	/* the epoch this double-read saw: the fill binds it (host/read.c) */
	p->fill_ep = p->ep;
	clear_read(p);
	if (is_bg(pi)) {
		/*
		 * scalio_host_bgfill_work(): no segment read; the seg word
		 * just read must be the one the GET responded from (no
		 * commit in between), else release and end.
		 * opt-no-seg-check: publish the returned value anyway.
		 */
		if (p->seg != p->oseg && cfg.variant != V_OPT_NO_SEG_CHECK) {
			EVENT(EV_BG_STALE);
			SAYMORE(" -> no collision, seg gen %d != gen %d: "
				"release", p->seg, p->oseg);
			p->pc = R_RELEASE;
			return 1;
		}
		SAYMORE(" -> no collision, seg gen %d, publish %s", p->seg,
			vname(p->value));
		p->pc = R_WVAL;
		return 1;
	}
	SAYMORE(" -> no collision, segment gen %d", p->seg);
	p->pc = R_SEG;
	return 1;
}

/* A CAS of slot @i from @old to @new; true if it succeeded. */
static bool cas(struct state *s, int i, u64 old, u64 new)
{
	if (s->slot[i].ctl != old)
		return false;
	s->slot[i].ctl = new;
	return true;
}

/* Does another fill of @pi's client in flight on its slot hold @lock? */
static bool same_token(const struct state *s, int pi, u64 lock)
{
	int q;

	for (q = 1; q < NPROC; q++)
		if (q != pi && !is_writer(q) &&
		    owner_of(q) == owner_of(pi) && s->p[q].my_ctl == lock &&
		    s->p[q].mine == s->p[pi].mine)
			return true;
	return false;
}

/*
 * The fill token's host rule (scalio_host_fill_word() in host/read.c): a
 * lock or renewal word that another fill of the same client in flight on
 * this slot holds gets its deadline moved back a tick, until none does.
 * The host checks and records under its fill_lock, then CASes; here the
 * check and the CAS are one step (the host's record before its CAS only
 * makes its other fills see the word earlier).
 */
static u64 token_rule(const struct state *s, int pi, u64 word)
{
	while (cfg.variant == V_FILL_TOKEN && same_token(s, pi, word)) {
		EVENT(EV_TOKEN_RULE);
		word = vw(scalio_ctl_make(SCALIO_SLOT_B,
					  scalio_ctl_version(word),
					  scalio_ctl_owner(word),
					  scalio_ctl_lease(word) - 1,
					  scalio_ctl_fp(word)));
	}
	return word;
}

/*
 * A lease renewal CAS (scalio_renewal_renew(), from scalio_renewal_start()
 * and the renewal work, any time while the segment is fetched): at most
 * cfg.renew of them per fill.  A failed one abandons: scalio_fill() unlocks
 * once the fetch returns (the fetch touches no slot: one step here).
 */
static int reader_renew(struct state *s, int pi)
{
	struct proc *p = &s->p[pi];
	/* the fill token's host rule covers the renewed word too */
	u64 next = token_rule(s, pi, vw(scalio_ctl_renew(p->my_ctl,
							 est(s, pi))));

	p->renewed++;
	if (cas(s, p->mine, p->my_ctl, next)) {
		EVENT(EV_RENEW);
		p->my_ctl = next;
		SAY("%s renew CAS slot%d ok (deadline %d)", pn(pi), p->mine,
		    scalio_ctl_lease(next));
		return 1;
	}
	EVENT(EV_RENEW_FAIL);
	SAY("%s renew CAS slot%d fails: abandon", pn(pi), p->mine);
	p->pc = R_RELEASE;
	return 1;
}

static bool can_renew(const struct proc *p)
{
	return p->renewed < cfg.renew;
}

/*
 * R_OPTSEG, scalio_host_get_optimistic(): read the segment the seg word
 * of the seg-first chain named, with the normal fill's header check.  A
 * mismatch (the cleaner reused its units) does not read seg again, which
 * would read it after the block: the GET falls back to the locked path
 * for the rest of it, nothing returned yet.  Else it responds now with
 * the value found (or ABSENT), and a value a slot can hold gets a
 * background fill (scalio_host_bgfill_work(), queued after the response)
 * from the victim step 1's copy gave, if that copy had one.  The model
 * runs a reader's background fills one at a time, in process pi + 4: a
 * fill queued while the previous one still runs is not modelled (bg-busy).
 */
static int reader_optimistic(struct state *s, int pi)
{
	struct proc *p = &s->p[pi], *bg = &s->p[pi - 1 + BG0];
	int kid = proc_key(pi), val;
	u8 mine = p->mine, seg = p->seg, lag = p->lag;
	u64 expect = p->expect;
	bool victim = p->opt & OPT_VICTIM;

	if (s->gone & 1 << p->seg) {
		EVENT(EV_OPT_FALLBACK);
		SAY("%s read the segment of gen %d: header mismatch, fall back",
		    pn(pi), p->seg);
		restart_get(p);
		p->opt |= OPT_FELL;
		return 1;
	}
	val = seg_value(s, kid, seg);
	EVENT(EV_OPT_RESPOND);
	SAY("%s read the segment of gen %d -> %s, GET returns %s", pn(pi),
	    seg, vname(val), vname(val));
	if (!finish(s, pi, val))
		return -1;
	if (val == ABSENT || val_big(val) || !victim)
		return 1;
	if (bg->pc != P_DONE) {
		EVENT(EV_BG_BUSY);
		return 1;
	}
	/* the background fill starts at the lock CAS */
	EVENT(EV_BG_START);
	SAYMORE(", queues %s (victim slot%d)", pn(pi - 1 + BG0), mine);
	memset(bg, 0, sizeof(*bg));
	bg->pc = R_LOCK;
	bg->mine = mine;
	bg->expect = expect;
	bg->value = val;
	bg->oseg = seg;
	bg->lag = lag;
	return 1;
}

/* Returns 0 if not enabled, 1 if applied, -1 if applied and violating. */
static int reader_step(struct state *s, int pi, int choice)
{
	struct proc *p = &s->p[pi];
	int kid = proc_key(pi);
	int nparts;

	switch (p->pc) {
	case P_IDLE:
		if (choice)
			return 0;
		p->pc = R_LOOKUP;
		p->attempts = 0;
		clear_read(p);
		lin_close(s);
		SAY("%s invoke GET(%s)", pn(pi), kid == 1 ? "K" : "K2");
		return 1;

	case R_LOOKUP:
		/*
		 * scalio_get_cached(): step 1's block READ, part by part;
		 * --opt: or the seg-first chain, the seg READ first (a step
		 * of its own), the block READ fenced behind it.
		 */
		if (!lookup_part_ok(p, choice))
			return 0;
		read_part(s, p, choice);
		if (choice == PART_SEG)
			SAY("%s seg READ (seg-first chain) -> gen %d", pn(pi),
			    p->seg);
		else
			SAY("%s lookup-read %s", pn(pi), part_names[choice]);
		if (!lookup_complete(p))
			return 1;
		return reader_lookup(s, pi);

	case R_RECLAIM: {
		/* scalio_reclaim(): CAS the expired lock to A */
		u64 old = p->expect;
		bool live = !expired(s, pi, old) &&
			    scalio_ctl_state(old) == SCALIO_SLOT_B;

		/* A BUSY lock (live): choice 0 re-reads, 1 reclaims it. */
		if (live && choice == 0 && cfg.busy_reclaim) {
			SAY("%s back off, re-read", pn(pi));
			retry(s, pi);
			return 1;
		}
		if (choice != (live && cfg.busy_reclaim))
			return 0;
		if (cas(s, p->other, old, vw(scalio_ctl_release(old)))) {
			if (live)
				EVENT(EV_BUSY_RECLAIM);
			SAY("%s reclaim CAS slot%d -> A ok%s", pn(pi), p->other,
			    live ? " (lock still live)" : "");
		} else {
			SAY("%s reclaim CAS slot%d fails", pn(pi), p->other);
		}
		retry(s, pi);
		return 1;
	}

	case R_LOCK: {
		/* scalio_fill() step 3: the lock CAS, deadline from "now" */
		u64 lock;

		if (choice)
			return 0;
		if (p->attempts >= cfg.attempts) {
			p->pc = P_HALT;
			SAY("%s gives up (attempt bound)", pn(pi));
			return 1;
		}
		p->attempts++;
		/*
		 * The fill token's host rule: never the lock word of a fill
		 * of the same client still in flight on this slot (from its
		 * lock CAS until scalio_host_fill() returned, its publish
		 * chain executed): an earlier deadline then.
		 */
		lock = token_rule(s, pi, vw(scalio_ctl_lock(p->expect,
							    owner_of(pi),
							    est(s, pi),
							    key_fp[kid])));
		if (!cas(s, p->mine, p->expect, lock)) {
			EVENT(EV_LOCK_FAIL);
			SAY("%s CAS slot%d -> B fails", pn(pi), p->mine);
			retry(s, pi);
			return 1;
		}
		if (scalio_ctl_version(lock) < scalio_ctl_version(p->expect))
			EVENT(EV_WRAP);
		if (scalio_ctl_state(p->expect) == SCALIO_SLOT_B ||
		    scalio_ctl_state(p->expect) == SCALIO_SLOT_D)
			EVENT(EV_RECLAIM);
		if (scalio_ctl_state(p->expect) == SCALIO_SLOT_C &&
		    s->slot[p->mine].key != kid)
			EVENT(EV_EVICT);
		p->my_ctl = lock;
		p->expect = 0;
		p->pc = R_WKEY;
		SAY("%s CAS slot%d -> B (ver %u) ok", pn(pi), p->mine,
		    scalio_ctl_version(lock));
		return 1;
	}

	case R_WKEY:
		/* the chain's key WRITE (klen..key: vlen and csum written 0) */
		if (choice)
			return 0;
		s->slot[p->mine].key = kid;
		s->slot[p->mine].val = 0;
		s->slot[p->mine].etag = 0;
		s->slot[p->mine].csum = 0;
		p->pc = cfg.variant == V_NO_DOUBLE_READ ? R_SEGRD : R_DREAD;
		SAY("%s write key into slot%d", pn(pi), p->mine);
		return 1;

	case R_DREAD:
		/*
		 * The chain's double-read READ, part by part; seg-early: the
		 * seg READ not fenced, so in any order with the parts.
		 */
		nparts = SLOT_PARTS + (cfg.variant == V_SEG_EARLY);
		if (!part_left(p, choice, nparts))
			return 0;
		read_part(s, p, choice);
		if (choice == PART_SEG)
			SAY("%s double-read seg -> gen %d", pn(pi), p->seg);
		else
			SAY("%s double-read %s", pn(pi), part_names[choice]);
		if (p->mask != (block_parts() | ((1U << nparts) - 1)))
			return 1;
		if (cfg.variant == V_SEG_EARLY)
			return reader_dread(s, pi);
		p->pc = R_SEGRD;
		return 1;

	case R_SEGRD:
		/*
		 * scalio_chain_seg(..., fence = true): the seg READ starts
		 * only once the double-read READ returned, and is a step of
		 * its own.  scalio_block_collision() runs once both are in.
		 */
		if (choice)
			return 0;
		p->seg = s->seg;
		SAY("%s fenced seg READ -> gen %d", pn(pi), p->seg);
		if (cfg.variant == V_NO_DOUBLE_READ) {
			p->pc = R_SEG;
			return 1;
		}
		return reader_dread(s, pi);

	case R_DRECLAIM:
		if (choice)
			return 0;
		if (cas(s, p->other, p->expect,
			vw(scalio_ctl_release(p->expect)))) {
			SAY("%s reclaim CAS slot%d -> A ok, double-read again",
			    pn(pi), p->other);
			p->pc = R_DREAD;
		} else {
			SAY("%s reclaim CAS slot%d fails: collision", pn(pi),
			    p->other);
			p->pc = R_RELEASE;
		}
		p->expect = 0;
		p->other = 0;
		return 1;

	case R_RELEASE: {
		/* scalio_unlock(): CAS B -> A; our D -> A */
		u64 cur = s->slot[p->mine].ctl;

		if (choice)
			return 0;
		if (cas(s, p->mine, p->my_ctl,
			vw(scalio_ctl_release(p->my_ctl)))) {
			SAY("%s CAS slot%d B -> A ok", pn(pi), p->mine);
		} else if (cur == vw(scalio_ctl_invalidate(p->my_ctl))) {
			SAY("%s CAS slot%d B -> A fails: our D", pn(pi),
			    p->mine);
			p->expect = cur;
			p->pc = R_UNLOCK_D;
			return 1;
		} else {
			SAY("%s CAS slot%d B -> A fails", pn(pi), p->mine);
		}
		retry(s, pi);
		return 1;
	}

	case R_UNLOCK_D:
		if (choice)
			return 0;
		cas(s, p->mine, p->expect, vw(scalio_ctl_release(p->expect)));
		SAY("%s CAS slot%d D -> A", pn(pi), p->mine);
		retry(s, pi);
		return 1;

	case R_SEG:
		/*
		 * scalio_get_ssd(): read the segment the seg word named and
		 * check its header (scalio_seg_check(): block and generation).
		 * The cleaner may have reused its units since: a mismatch
		 * reads seg again (R_SEGRE).  The real loop gives up with
		 * -EIO after SCALIO_SEG_RETRIES; the model's is bounded by
		 * the cleaner's and writers' bounds.
		 */
		if (choice == 1 && can_renew(p))
			return reader_renew(s, pi);
		if (choice)
			return 0;
		if (s->gone & 1 << p->seg) {
			EVENT(EV_HDR_MISMATCH);
			SAY("%s read the segment of gen %d: header mismatch",
			    pn(pi), p->seg);
			p->pc = R_SEGRE;
			return 1;
		}
		p->value = seg_value(s, kid, p->seg);
		p->pc = R_WVAL;
		SAY("%s read the segment of gen %d -> %s%s", pn(pi), p->seg,
		    vname(p->value), val_big(p->value) ? " (too large)" : "");
		return 1;

	case R_SEGRE:
		/* scalio_read_seg(): a plain READ of the seg word */
		if (choice == 1 && can_renew(p))
			return reader_renew(s, pi);
		if (choice)
			return 0;
		p->seg = s->seg;
		p->pc = R_SEG;
		SAY("%s seg READ again -> gen %d", pn(pi), p->seg);
		return 1;

	case R_WVAL:
		if (choice)
			return 0;
		/*
		 * The filler checks its lease (against its clock estimate),
		 * then WRITEs, then CASes: three steps.  Without ticks the
		 * check cannot fail and the WRITE is taken in the same step
		 * (same behaviours, fewer states).  Not cached (absent, or
		 * too large for a slot): no WRITE, the CAS releases.
		 */
		if (expired(s, pi, p->my_ctl)) {
			EVENT(EV_ABANDON);
			p->pc = R_RELEASE;
			SAY("%s lease nearly over: abandon", pn(pi));
			return 1;
		}
		if (p->value == ABSENT || val_big(p->value)) {
			p->pc = R_PUB;
			SAY("%s lease still valid, not cached", pn(pi));
			return 1;
		}
		if (cfg.ticks) {
			p->pc = R_WVAL2;
			SAY("%s lease still valid", pn(pi));
			return 1;
		}
		fallthrough;
	case R_WVAL2: {
		/*
		 * The publish chain's value WRITE (last_ts..value: key,
		 * value, checksum of the C word it means to publish).
		 */
		u64 pub = vw(token_design() ?
			     scalio_ctl_publish_tok(p->my_ctl) :
			     scalio_ctl_publish(p->my_ctl));

		if (choice)
			return 0;
		/* a WRITE landing on a slot whose lock we lost */
		if (s->slot[p->mine].ctl != p->my_ctl)
			EVENT(EV_LATE_WRITE);
		s->slot[p->mine].key = kid;
		s->slot[p->mine].val = p->value + 1;
		s->slot[p->mine].etag = p->fill_ep;
		s->slot[p->mine].csum = fill_csum(pub, p->fill_ep, kid,
						  p->value);
		p->pc = R_PUB;
		SAYMORE("%s%s write %s + csum into slot%d",
			desc && desc[0] ? ", " : "", pn(pi), vname(p->value),
			p->mine);
		return 1;
	}

	case R_PUB: {
		/* the publish chain's CAS: B -> C, or B -> A if not cached */
		bool cache = p->value != ABSENT && !val_big(p->value);
		u64 cur = s->slot[p->mine].ctl, pub;

		if (choice)
			return 0;
		if (!cache)
			pub = scalio_ctl_release(p->my_ctl);
		else if (token_design())
			pub = scalio_ctl_publish_tok(p->my_ctl);
		else
			pub = scalio_ctl_publish(p->my_ctl);
		/* The CAS alone: whatever the clock says now. */
		if (cas(s, p->mine, p->my_ctl, vw(pub))) {
			EVENT(cache ? EV_PUB : EV_UNCACHED);
			if (is_bg(pi)) {
				EVENT(EV_BG_PUBLISH);
				SAY("%s CAS slot%d B -> C ok (%s)", pn(pi),
				    p->mine, vname(p->value));
				bg_end(s, pi);
				return 1;
			}
			SAY("%s CAS slot%d B -> %c ok%s, GET returns %s",
			    pn(pi), p->mine, cache ? 'C' : 'A',
			    expired(s, pi, p->my_ctl) ?
			    " (after its deadline)" : "", vname(p->value));
			return finish(s, pi, p->value) ? 1 : -1;
		}
		if (cur == vw(scalio_ctl_invalidate(p->my_ctl))) {
			EVENT(EV_PUB_D);
			p->expect = cur;
			p->pc = R_DCLEAR;
			SAY("%s CAS slot%d B -> C fails: D", pn(pi), p->mine);
			return 1;
		}
		EVENT(EV_PUB_LOST);
		SAY("%s CAS slot%d B -> C fails: lock lost", pn(pi), p->mine);
		retry(s, pi);
		return 1;
	}

	case R_DCLEAR:
		/* scalio_is_our_d(): CAS our D -> A, back off, restart */
		if (choice)
			return 0;
		cas(s, p->mine, p->expect, vw(scalio_ctl_release(p->expect)));
		if (cfg.variant == V_RETURN_AFTER_D && !is_bg(pi)) {
			SAY("%s CAS slot%d D -> A, GET returns %s (broken)",
			    pn(pi), p->mine, vname(p->value));
			return finish(s, pi, p->value) ? 1 : -1;
		}
		SAY("%s CAS slot%d D -> A, back off, restart", pn(pi), p->mine);
		retry(s, pi);
		return 1;

	case R_OPTSEG:
		if (choice)
			return 0;
		return reader_optimistic(s, pi);
	}
	return 0;
}

/* The writer's scan continues at @start over its snapshot. */
static int writer_next(struct proc *p, u32 start)
{
	const struct scalio_block_view *v = view_of(p->snap, p->ep);
	u32 idx;
	u64 nc;

	if (!scalio_invalidate_next(v, keys[1], KLEN, key_fp[1], start, &idx,
				    &nc))
		return 0;
	p->mine = idx;
	p->expect = p->snap[idx].ctl;
	p->target = vw(nc);
	p->pc = W_CAS;
	return 1;
}

static const char *op_name(int w, int j)
{
	switch (cfg.ops[w][j]) {
	case 'd':
		return "DELETE(K)";
	case 'b':
		return "PUT(K, too large)";
	default:
		return "PUT(K)";
	}
}

/* Writers W1 (@pi 0) and W2 (@pi 4): scalio_write(), PUT and DELETE alike. */
static int writer_step(struct state *s, int pi, int choice)
{
	struct proc *p = &s->p[pi];
	int w = pi == 4, name = w + 1, g;

	switch (p->pc) {
	case P_IDLE:
		if (choice)
			return 0;
		p->pc = W_COMMIT;
		lin_close(s);
		SAY("W%d invoke %s = %s", name, op_name(w, p->done),
		    vname(op_val(w, p->done)));
		return 1;

	case W_COMMIT:
		/*
		 * scalio_write_rpc() answered: the target's group commit
		 * (scalio_batch_write()) made the new segment durable, then
		 * published it (scalio_index_set_seg()): one target step.
		 * A DELETE's segment holds no K.
		 */
		/* --depart: W1 may leave right after (choice 1) */
		if (choice > (cfg.depart && pi == 0))
			return 0;
		g = s->ngen++;
		s->segval[g] = op_val(w, p->done);
		s->seg = g;
		SAY("W%d commit: gen %d (%s) durable, seg updated", name, g,
		    vname(s->segval[g]));
		if (choice) {
			/* the writer's host dies: its invalidation is owed */
			SAYMORE(", W%d leaves owing its invalidation", name);
			p->pc = P_HALT;
			s->departed = 1;
			return 1;
		}
		if (cfg.variant == V_NO_INVALIDATION) {
			SAYMORE(", returns (broken)");
			return finish(s, pi, 0) ? 1 : -1;
		}
		clear_read(p);
		p->other = 0;
		p->pc = W_SCAN;
		return 1;

	case W_SCAN:
		/* scalio_invalidate_block(): READ the block, part by part */
		if (choice >= SLOT_PARTS || (p->mask & 1 << choice))
			return 0;
		read_part(s, p, choice);
		SAY("W%d inval-read %s", name, part_names[choice]);
		if (p->mask != ALL_SLOT_PARTS)
			return 1;
		/* from the slot whose CAS failed, not from the first */
		if (writer_next(p, p->other)) {
			SAYMORE(" -> invalidate slot%d", p->mine);
			return 1;
		}
		SAYMORE(" -> nothing to invalidate, returns");
		return finish(s, pi, 0) ? 1 : -1;

	case W_CAS:
		/* scalio_invalidate_block(): CAS B -> D, C -> A */
		if (choice)
			return 0;
		if (!cas(s, p->mine, p->expect, p->target)) {
			EVENT(EV_INVAL_FAIL);
			SAY("W%d CAS slot%d fails, re-read", name, p->mine);
			clear_read(p);
			p->other = p->mine;
			p->pc = W_SCAN;
			return 1;
		}
		EVENT(EV_INVAL);
		SAY("W%d CAS slot%d -> %c ok", name, p->mine,
		    "ABCD"[scalio_ctl_state(p->target)]);
		if (writer_next(p, p->mine + 1))
			return 1;
		SAYMORE(", returns");
		return finish(s, pi, 0) ? 1 : -1;
	}
	return 0;
}

/*
 * The cleaner (scalio_cleaner_run(), in the commit thread): a pass
 * relocates the live segment through the commit engine (a new generation
 * with the same contents, durable, then seg updated: one step, as a
 * commit), then checkpoints and frees the old units.  A later batch may
 * overwrite any freed units ("reuse"): a reader that read an older seg
 * word then finds another header there.  Choice 0 relocates (at most
 * cfg.cleans times), choice 1 reuses the units of every generation the seg
 * word no longer names (only the cleaner frees units: not without it).
 */
static int cleaner_step(struct state *s, int choice)
{
	u8 garbage = ((1U << s->ngen) - 1) & ~(1U << s->seg) & ~s->gone;
	int g;

	if (choice == 0) {
		if (!s->cleans_left)
			return 0;
		s->cleans_left--;
		g = s->ngen++;
		s->segval[g] = s->segval[s->seg];
		SAY("cleaner relocates gen %d to gen %d, seg updated", s->seg,
		    g);
		s->seg = g;
		EVENT(EV_CLEAN);
		return 1;
	}
	if (choice != 1 || !garbage || !cfg.cleans)
		return 0;
	s->gone |= garbage;
	EVENT(EV_REUSE);
	SAY("a batch overwrites the freed units (gone: %#x)", s->gone);
	return 1;
}

#define NCHOICE		6
#define ACT_CLEAN	(NPROC * NCHOICE)	/* 2 choices */
#define ACT_REFRESH	(ACT_CLEAN + 2)		/* one per process */
#define ACT_TICK	(ACT_REFRESH + NPROC)
#define ACT_RETIRE	(ACT_TICK + 1)
#define NACT		(ACT_RETIRE + 1)

/*
 * The target drops the departed writer's connection and retires the
 * block (target/settle.c: a new epoch in the block header, one store).
 * From then on the departed write must have taken effect: the
 * configurations in which it has not are dropped, so a GET that starts
 * after this step and returns an older value is a violation.  (no-retire:
 * the connection ends, the epoch stays: the broken variant.)
 */
static int retire_step(struct state *s)
{
	int c, reg, w1, w2, r1, r2;

	if (s->departed != 1)
		return 0;
	s->departed = 2;
	if (cfg.variant != V_NO_RETIRE) {
		s->epoch++;
		EVENT(EV_RETIRE);
	}
	SAY("target: W1's connection ends, block retired (epoch %d)",
	    s->epoch);
	lin_close(s);
	for (c = 0; c < nconf; c++) {
		if (!lin_has(s, c))
			continue;
		conf_dec(c, &reg, &w1, &w2, &r1, &r2);
		if (!w1)
			s->lin[c / 64] &= ~(1ULL << (c % 64));
	}
	return 1;
}

/*
 * Can anybody observe the clock?  Only lease deadlines are compared with
 * it: those of B and D slots and the lock a filler holds.  With none of
 * them around a tick changes nothing but the clock's absolute value, and
 * every comparison is relative (a new lock's deadline is the clock then),
 * so ticks are only explored when observable.  With lagging estimates a
 * tick also changes how far each reader lags: always observable.
 */
static bool lease_observable(const struct state *s)
{
	int i;

	if (cfg.lag)
		return true;

	for (i = 0; i < NSLOTS; i++) {
		enum scalio_slot_state st = scalio_ctl_state(s->slot[i].ctl);

		if (st == SCALIO_SLOT_B || st == SCALIO_SLOT_D)
			return true;
	}
	for (i = 1; i < NPROC; i++)
		if (!is_writer(i) && (s->p[i].my_ctl || s->p[i].expect))
			return true;
	return false;
}

/* A reader may read the clock word again (its estimate catches up). */
static bool can_refresh(const struct state *s, int pi)
{
	u8 pc = s->p[pi].pc;

	/* a background fill keeps the estimate of its GET's READ */
	return s->p[pi].lag && pc != P_DONE && pc != P_HALT && !is_bg(pi);
}

/* Cheap pre-check of apply()'s enabling conditions (saves a state copy). */
static bool enabled(const struct state *s, int a)
{
	const struct proc *p;
	int choice = a % NCHOICE, nparts;

	if (a == ACT_RETIRE)
		return s->departed == 1;
	if (a == ACT_TICK)
		return s->ticks_left && lease_observable(s);
	if (a >= ACT_REFRESH)
		return can_refresh(s, a - ACT_REFRESH);
	if (a >= ACT_CLEAN)
		return a == ACT_CLEAN ? s->cleans_left : cfg.cleans && s->ngen > 1;
	p = &s->p[a / NCHOICE];
	switch (p->pc) {
	case P_DONE:
	case P_HALT:
		return false;
	case W_SCAN:
		return choice < SLOT_PARTS && !(p->mask & 1 << choice);
	case R_LOOKUP:
		return lookup_part_ok(p, choice);
	case R_DREAD:
		nparts = SLOT_PARTS + (cfg.variant == V_SEG_EARLY);
		break;
	case W_COMMIT:
		return choice <= (cfg.depart && a / NCHOICE == 0);
	case R_SEG:
	case R_SEGRE:
		return choice == 0 || (choice == 1 && can_renew(p));
	case R_RECLAIM:
		return choice <= 1;	/* reader_step() decides */
	default:
		return choice == 0;
	}
	return part_left(p, choice, nparts);
}

/* Apply action @a to @s.  0: not enabled; 1: applied; -1: violation. */
static int apply(struct state *s, int a)
{
	int pi = a / NCHOICE, choice = a % NCHOICE, i;

	if (a == ACT_RETIRE)
		return retire_step(s);
	if (a == ACT_TICK) {
		if (!s->ticks_left || !lease_observable(s))
			return 0;
		s->ticks_left--;
		s->clock++;
		/* every reader's estimate stays behind, up to cfg.lag */
		for (i = 1; i < NPROC; i++)
			if (!is_writer(i) && s->p[i].lag < cfg.lag &&
			    !(is_bg(i) && s->p[i].pc == P_DONE))
				s->p[i].lag++;
		SAY("clock tick -> %d", s->clock);
		return 1;
	}
	if (a >= ACT_REFRESH) {
		pi = a - ACT_REFRESH;
		if (!can_refresh(s, pi))
			return 0;
		s->p[pi].lag = 0;
		SAY("%s reads the clock: %d", pn(pi), s->clock);
		return 1;
	}
	if (a >= ACT_CLEAN)
		return cleaner_step(s, a - ACT_CLEAN);
	if (is_writer(pi))
		return writer_step(s, pi, choice);
	return reader_step(s, pi, choice);
}

/* ---- search ------------------------------------------------------------ */

static u64 hash_state(const struct state *s)
{
	const u64 *w = (const void *)s;
	u64 h = 0x9e3779b97f4a7c15ULL, k;
	size_t i, end = offsetof(struct state, lin) / 8 + lin_words;
	/* without --opt the background fills are never used: skip them */
	size_t skip = offsetof(struct state, p[BG0]) / 8;
	size_t resume = cfg.opt ? skip : offsetof(struct state, lin) / 8;

	BUILD_BUG_ON(offsetof(struct state, lin) % 8);
	BUILD_BUG_ON(offsetof(struct state, p[BG0]) % 8);
	/* Word-wise multiply-rotate, then the murmur3 finalizer. */
	for (i = 0; i < end; i++) {
		if (i == skip)
			i = resume;
		k = w[i] * 0x87c37b91114253d5ULL;
		k = (k << 31) | (k >> 33);
		h ^= k * 0x4cf5ad432745937fULL;
		h = ((h << 27) | (h >> 37)) * 5 + 0x52dce729;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h ? h : 1;
}

static u64 *table;
static size_t table_size, table_used;

/*
 * Bitstate (Holzmann's supertrace): two bits per state in a fixed array.
 * A state whose two bits are both already set is taken as visited, so
 * some states are never explored: a partial search whose memory does not
 * grow, for bounds too big for the exact table.
 */
static bool visit_bits(u64 h)
{
	u64 mask = (1ULL << cfg.bitstate) - 1;
	u64 a = h & mask, b = (h >> 32 ^ h * 0x9e3779b97f4a7c15ULL) & mask;
	bool seen = (table[a / 64] >> (a % 64) & 1) &&
		    (table[b / 64] >> (b % 64) & 1);

	table[a / 64] |= 1ULL << (a % 64);
	table[b / 64] |= 1ULL << (b % 64);
	if (!seen)
		table_used++;
	return !seen;
}

static bool visit(u64 h)
{
	size_t i;

	if (cfg.bitstate)
		return visit_bits(h);
	/* Grow at 3/4 load: the table is most of the memory used. */
	if (table_used * 4 >= table_size * 3) {
		u64 *old = table;
		size_t n = table_size, j;

		table_size = n ? n * 2 : 1 << 20;
		table = calloc(table_size, sizeof(*table));
		if (!table) {
			fprintf(stderr, "out of memory\n");
			exit(2);
		}
		for (j = 0; j < n; j++) {
			if (!old[j])
				continue;
			for (i = old[j] & (table_size - 1); table[i];
			     i = (i + 1) & (table_size - 1))
				;
			table[i] = old[j];
		}
		free(old);
	}
	for (i = h & (table_size - 1); table[i]; i = (i + 1) & (table_size - 1))
		if (table[i] == h)
			return false;
	table[i] = h;
	table_used++;
	return true;
}

struct frame {
	struct state	s;
	int		next;	/* next action to try */
	int		via;	/* action that led here */
};

struct result {
	unsigned long	states;
	unsigned long	transitions;
	unsigned long	violations;
	unsigned long	complete;	/* states with every process finished */
	int		max_depth;
	double		secs;
};

static void print_trace(const struct frame *stack, int depth, int last)
{
	char buf[256];
	struct state s;
	int i;

	printf("# violation trace (%s):\n", variant_names[cfg.variant]);
	for (i = 1; i <= depth + 1; i++) {
		int a = i <= depth ? stack[i].via : last;

		s = stack[i - 1].s;
		buf[0] = 0;
		desc = buf;
		apply(&s, a);
		desc = NULL;
		printf("#   %2d. %s\n", i, buf);
	}
}

static void initial(struct state *s)
{
	u8 vb[2];
	int i;

	memset(s, 0, sizeof(*s));
	s->seg = 0;		/* generation 0 holds v0 (and w0) */
	s->ngen = 1;
	s->segval[0] = 0;
	s->ticks_left = cfg.ticks;
	s->cleans_left = cfg.cleans;
	if (cfg.cached) {
		u64 c = scalio_ctl_make(SCALIO_SLOT_C, 2, 0, 0, key_fp[1]);

		value_bytes(0, vb);
		s->slot[0].ctl = c;
		s->slot[0].key = 1;
		s->slot[0].val = 1;
		s->slot[0].csum = scalio_slot_csum(2, keys[1], KLEN, vb, 2);
	}
	if (cfg.full) {
		u64 c = scalio_ctl_make(SCALIO_SLOT_C, 2, 0, 0, key_fp[3]);

		value_bytes(X3, vb);
		s->slot[1].ctl = c;
		s->slot[1].key = 3;
		s->slot[1].val = X3 + 1;
		s->slot[1].csum = scalio_slot_csum(2, keys[3], KLEN, vb, 2);
	}
	for (i = 0; i < NPROC; i++)
		s->p[i].pc = total_ops(i) ? P_IDLE : P_DONE;
	lin_add(s, conf_enc(0, 0, 0, 0, 0));
}

static bool all_done(const struct state *s)
{
	int i;

	for (i = 0; i < NPROC; i++)
		if (s->p[i].pc != P_DONE)
			return false;
	return true;
}

static void search_init(void)
{
	int k;

	for (k = 1; k < 4; k++)
		key_fp[k] = scalio_hash_fp(scalio_key_hash(SCALIO_HASH_SEED,
							   keys[k], KLEN));
	if (cfg.fp_collide)
		key_fp[2] = key_fp[3] = key_fp[1];
	memset(events, 0, sizeof(events));
	conf_init();
}

static struct result search(void)
{
	struct result r = { 0 };
	struct frame *stack;
	int depth = 0, cap = 4096, ret;
	clock_t t0 = clock();
	struct state next;

	search_init();
	free(table);
	table = NULL;
	table_size = table_used = 0;
	if (cfg.bitstate) {
		table = calloc((1ULL << cfg.bitstate) / 64, sizeof(*table));
		if (!table) {
			fprintf(stderr, "out of memory\n");
			exit(2);
		}
	}
	stack = malloc(cap * sizeof(*stack));
	initial(&stack[0].s);
	stack[0].next = 0;
	stack[0].via = -1;
	visit(hash_state(&stack[0].s));
	r.states = 1;

	while (depth >= 0) {
		struct frame *f = &stack[depth];

		if (f->next >= NACT) {
			depth--;
			continue;
		}
		if (!enabled(&f->s, f->next)) {
			f->next++;
			continue;
		}
		next = f->s;
		ret = apply(&next, f->next++);
		if (!ret)
			continue;	/* enabled() is only a pre-check */
		r.transitions++;
		if (ret < 0) {
			if (!r.violations && cfg.trace)
				print_trace(stack, depth, f->next - 1);
			r.violations++;
			if (cfg.first)
				break;
			continue;	/* do not explore past a violation */
		}
		if (!visit(hash_state(&next)))
			continue;
		r.states++;
		if (all_done(&next))
			r.complete++;
		if (depth + 1 >= cap) {
			cap *= 2;
			stack = realloc(stack, cap * sizeof(*stack));
			f = &stack[depth];
		}
		depth++;
		if (depth > r.max_depth)
			r.max_depth = depth;
		stack[depth].s = next;
		stack[depth].next = 0;
		stack[depth].via = f->next - 1;
	}
	free(stack);
	r.secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	return r;
}

/* xorshift64*: the walks' own generator, reproducible from the seed. */
static u64 rng_next(u64 *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dULL;
}

/*
 * Bounded random walks (cfg.walks of them, seeds 1..walks): from the
 * initial state, a uniformly chosen enabled action at every step, for at
 * most cfg.depth steps or until every process is done.  No state set:
 * for bounds whose state space no exhaustive search covers in time.  A
 * violating walk is replayed as a trace.  r.states counts steps taken,
 * r.complete walks that ended with every operation done.
 */
static struct result walk(void)
{
	struct result r = { 0 };
	clock_t t0 = clock();
	struct frame *stack = malloc((cfg.depth + 2) * sizeof(*stack));
	int en[NACT], n, k, d, ret;
	long seed;

	search_init();
	for (seed = 1; seed <= cfg.walks; seed++) {
		u64 x = 0x9e3779b97f4a7c15ULL * (u64)seed;

		initial(&stack[0].s);
		for (d = 0; d < cfg.depth; d++) {
			struct state next;

			for (n = 0, k = 0; k < NACT; k++)
				if (enabled(&stack[d].s, k))
					en[n++] = k;
			if (!n)
				break;
			/* enabled() may over-approximate: try from a random one */
			for (ret = 0, k = rng_next(&x) % n; n; n--) {
				next = stack[d].s;
				ret = apply(&next, en[k]);
				if (ret)
					break;
				en[k] = en[n - 1];
				k = n > 1 ? rng_next(&x) % (n - 1) : 0;
			}
			if (!ret)
				break;
			r.transitions++;
			if (ret < 0) {
				if (!r.violations && cfg.trace) {
					printf("# random walk, seed %ld:\n", seed);
					print_trace(stack, d, en[k]);
				}
				r.violations++;
				break;
			}
			stack[d + 1].s = next;
			stack[d + 1].via = en[k];
			if (d + 1 > r.max_depth)
				r.max_depth = d + 1;
			if (all_done(&next)) {
				r.complete++;
				break;
			}
		}
		if (r.violations && cfg.first)
			break;
	}
	r.states = r.transitions;
	free(stack);
	r.secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	return r;
}

static void describe(char *buf, size_t n)
{
	int len;

	len = snprintf(buf, n, "%s: ops=%s/%s gets=%d+%d+%d(K2) ticks=%d attempts=%d",
		       variant_names[cfg.variant],
		       cfg.ops[0][0] ? cfg.ops[0] : "-",
		       cfg.ops[1][0] ? cfg.ops[1] : "-", cfg.gets[0],
		       cfg.gets[1], cfg.gets[2], cfg.ticks, cfg.attempts);
	len += snprintf(buf + len, n - len, "%s%s%s%s%s%s%s%s",
			cfg.opt ? " opt" : "",
			cfg.cached ? " cached" : "", cfg.full ? " full" : "",
			cfg.busy_reclaim ? " busy-reclaim" : "",
			cfg.fp_collide ? " fp-collide" : "",
			cfg.same_owner ? " same-owner" : "",
			cfg.depart ? " depart" : "",
			cfg.bitstate ? " bitstate" : "");
	if (cfg.renew)
		len += snprintf(buf + len, n - len, " renew=%d", cfg.renew);
	if (cfg.cleans)
		len += snprintf(buf + len, n - len, " cleans=%d", cfg.cleans);
	if (cfg.lag)
		len += snprintf(buf + len, n - len, " lag=%d", cfg.lag);
	if (cfg.vbits != SCALIO_CTL_VER_BITS)
		len += snprintf(buf + len, n - len, " vbits=%d", cfg.vbits);
	if (cfg.walks)
		snprintf(buf + len, n - len, " walks=%ld depth=%d", cfg.walks,
			 cfg.depth);
}

static void print_events(const char *prefix)
{
	int i;

	printf("%sevents:", prefix);
	for (i = 0; i < EV_NR; i++)
		printf(" %s=%lu", event_names[i], events[i]);
	printf("\n");
}

/* ---- the standard suite ------------------------------------------------- */

struct suite_case {
	struct config	c;
	u64		must_see;	/* SEE(EV_*): events that must occur */
};

#define SEE(e)	(1ULL << (e))
/* opts: CACHED, FULL, BUSYREC, FPCOL; renew: renewals per fill */
#define CACHED		1
#define FULL		2
#define BUSYREC		4
#define FPCOL		8
#define SAMEOWN		16
#define DEPART		32
#define OPT		64
#define CASE(v, w1, w2, g1, g2, g3, ticks, att, opts, renew, cleans, lag, \
	     vbits, see)						\
	{ { { w1, w2 }, { g1, g2, g3 }, ticks, att, (opts) & CACHED,	\
	    (opts) & FULL, renew, (opts) & BUSYREC, cleans, lag,	\
	    (opts) & FPCOL, (opts) & SAMEOWN, (opts) & DEPART, vbits, 0, v, \
	    true, true, 0, 0, (opts) & OPT }, see }
#define CORRECT(w1, g1, g2, g3, ticks, att, opts, renew, see)		\
	CASE(V_NONE, w1, "", g1, g2, g3, ticks, att, opts, renew, 0, 0, 20, \
	     see)
#define BROKEN(v, w1, g1, g2, g3, ticks, att, opts)			\
	CASE(v, w1, "", g1, g2, g3, ticks, att, opts, 0, 0, 0, 20, 0)

/* Bigger bounds: exhaustive (walks 0) or random walks. */
#define WALK(v, w1, w2, g1, g2, g3, ticks, att, opts, renew, cleans, lag, \
	     vbits, walks, depth)					\
	{ { { w1, w2 }, { g1, g2, g3 }, ticks, att, (opts) & CACHED,	\
	    (opts) & FULL, renew, (opts) & BUSYREC, cleans, lag,	\
	    (opts) & FPCOL, (opts) & SAMEOWN, (opts) & DEPART, vbits, 0, v, \
	    true, true, walks, depth, (opts) & OPT }, 0 }

/*
 * The standard suite (make check, about 3 minutes): exhaustive searches.
 * suite_long (make -C tests/model long): bigger bounds, exhaustive where
 * they finish, else bounded random walks over many seeds.
 */
static const struct suite_case suite[] = {
	/* The protocol as built: no violation within these bounds. */
	CORRECT("p", 2, 1, 0, 0, 2, 0, 0, SEE(EV_HIT) | SEE(EV_BUSY) |
		SEE(EV_TORN) | SEE(EV_COLLISION) | SEE(EV_PUB_D)),
	CORRECT("p", 2, 1, 0, 0, 2, CACHED, 0, SEE(EV_HIT) | SEE(EV_INVAL)),
	CORRECT("pp", 1, 1, 0, 0, 2, CACHED, 0, SEE(EV_PUB_D) |
		SEE(EV_INVAL_FAIL)),
	/* the shape: a lease expiring between check, WRITE and CAS */
	CORRECT("p", 2, 1, 0, 1, 1, 0, 0, SEE(EV_LOOKUP_RECLAIM) |
		SEE(EV_DREAD_RECLAIM) | SEE(EV_ABANDON) | SEE(EV_PUB_LOST) |
		SEE(EV_PUB_D)),
	/* renewal racing a writer and the K2 reader */
	CORRECT("p", 1, 0, 1, 1, 1, 0, 1, SEE(EV_RENEW) |
		SEE(EV_RENEW_FAIL) | SEE(EV_PUB_D)),
	/* reclaim of a live lock at any moment (clock estimate ahead) */
	CORRECT("", 1, 1, 0, 1, 1, BUSYREC, 1, SEE(EV_BUSY_RECLAIM) |
		SEE(EV_RENEW_FAIL) | SEE(EV_LOOKUP_RECLAIM)),
	/* the cleaner moves the segment, freed units are overwritten */
	CASE(V_NONE, "p", "", 1, 1, 0, 0, 1, 0, 0, 1, 0, 20,
	     SEE(EV_HDR_MISMATCH) | SEE(EV_CLEAN) | SEE(EV_REUSE) |
	     SEE(EV_PUB_D)),
	/* two writers: a PUT and a DELETE, then a value too large */
	CASE(V_NONE, "p", "d", 1, 0, 0, 0, 1, 0, 0, 0, 0, 20,
	     SEE(EV_UNCACHED) | SEE(EV_PUB_D) | SEE(EV_INVAL)),
	CASE(V_NONE, "b", "p", 1, 1, 0, 0, 1, CACHED, 0, 0, 0, 20,
	     SEE(EV_UNCACHED) | SEE(EV_HIT) | SEE(EV_INVAL_FAIL)),
	/* K2 and K3 share K's fingerprint */
	CASE(V_NONE, "p", "", 1, 0, 1, 0, 1, CACHED | FULL | FPCOL, 0, 0, 0,
	     20, SEE(EV_EVICT) | SEE(EV_COLLISION) | SEE(EV_INVAL)),
	/* renewals (2 a fill) from a clock estimate that lags */
	CASE(V_NONE, "p", "", 2, 0, 0, 2, 1, 0, 2, 0, 1, 20,
	     SEE(EV_RENEW) | SEE(EV_RENEW_FAIL) | SEE(EV_LAGGED) |
	     SEE(EV_ABANDON) | SEE(EV_HIT)),
	/* a 1-bit version: the fill token keeps a wrapped fill out */
	CASE(V_FILL_TOKEN, "p", "", 2, 1, 0, 1, 1, 0, 0, 0, 0, 1,
	     SEE(EV_WRAP) | SEE(EV_LATE_WRITE) | SEE(EV_TORN) |
	     SEE(EV_PUB_LOST)),
	/* ... and its host rule, for two fills of one client */
	CASE(V_FILL_TOKEN, "p", "", 2, 1, 0, 0, 1, BUSYREC | SAMEOWN, 0, 0,
	     0, 1, SEE(EV_TOKEN_RULE) | SEE(EV_LATE_WRITE) |
	     SEE(EV_BUSY_RECLAIM)),
	/* Each broken variant: a violation must be found. */
	BROKEN(V_NO_DOUBLE_READ, "pp", 2, 1, 0, 0, 2, 0),
	BROKEN(V_NO_INVALIDATION, "p", 1, 1, 0, 0, 2, CACHED),
	BROKEN(V_SEG_EARLY, "pp", 2, 1, 0, 0, 2, 0),
	BROKEN(V_RETURN_AFTER_D, "pp", 2, 1, 0, 0, 2, 0),
	BROKEN(V_SKIP_RECLAIM, "p", 2, 1, 0, 1, 1, 0),
	/* the 20-bit version design with a 1-bit version: a stale fill */
	CASE(V_WRAP, "p", "", 2, 1, 0, 1, 1, 0, 0, 0, 0, 1, 0),
	/* the fill token without the host rule: one client's two fills */
	CASE(V_TOKEN_NO_RULE, "p", "", 2, 1, 0, 0, 1, BUSYREC | SAMEOWN, 0,
	     0, 0, 1, 0),
	/*
	 * A writer that leaves after its commit, owing its invalidation:
	 * the target retires the block (fill tokens and block epochs, as
	 * built); without the retirement the old value stays served.
	 */
	CASE(V_FILL_TOKEN, "p", "", 2, 1, 0, 0, 1, CACHED | DEPART, 0, 0, 0,
	     20, SEE(EV_RETIRE) | SEE(EV_RETIRED) | SEE(EV_HIT)),
	CASE(V_FILL_TOKEN, "p", "", 1, 1, 0, 0, 1, DEPART, 0, 0, 0, 20,
	     SEE(EV_RETIRE) | SEE(EV_RETIRED) | SEE(EV_PUB)),
	CASE(V_NO_RETIRE, "p", "", 2, 0, 0, 0, 1, CACHED | DEPART, 0, 0, 0,
	     20, 0),
	/*
	 * --opt: a miss responds from the segment named by a seg word read
	 * before the block (scalio_host_get_optimistic()), a background
	 * fill caches the value (scalio_host_bgfill_work()).
	 */
	CASE(V_NONE, "p", "", 1, 1, 0, 0, 1, OPT, 0, 0, 0, 20,
	     SEE(EV_OPT_REREAD) | SEE(EV_OPT_RESPOND) | SEE(EV_BG_START) |
	     SEE(EV_BG_PUBLISH) | SEE(EV_BG_STALE) | SEE(EV_BG_END) |
	     SEE(EV_PUB_D) | SEE(EV_HIT) | SEE(EV_COLLISION)),
	/* the reader's next GET while its background fill runs */
	CASE(V_NONE, "p", "", 2, 0, 0, 0, 1, OPT, 0, 0, 0, 20,
	     SEE(EV_BG_BUSY) | SEE(EV_BG_PUBLISH) | SEE(EV_BG_STALE) |
	     SEE(EV_HIT) | SEE(EV_LATE_WRITE)),
	/* leases: reclaims of background fills' locks, abandons */
	CASE(V_NONE, "p", "", 1, 1, 0, 1, 1, OPT, 0, 0, 0, 20,
	     SEE(EV_LOOKUP_RECLAIM) | SEE(EV_DREAD_RECLAIM) |
	     SEE(EV_ABANDON) | SEE(EV_PUB_LOST) | SEE(EV_BG_PUBLISH) |
	     SEE(EV_BG_STALE)),
	/* a PUT then a DELETE; the cleaner: fall back to the locked path */
	CASE(V_NONE, "pd", "", 1, 0, 0, 0, 1, OPT, 0, 1, 0, 20,
	     SEE(EV_OPT_FALLBACK) | SEE(EV_HDR_MISMATCH) | SEE(EV_PUB) |
	     SEE(EV_OPT_RESPOND) | SEE(EV_BG_PUBLISH) | SEE(EV_BG_STALE)),
	/* a value too large for a slot: no background fill */
	CASE(V_NONE, "bp", "", 1, 0, 0, 0, 1, OPT, 0, 0, 0, 20,
	     SEE(EV_OPT_RESPOND) | SEE(EV_BG_PUBLISH) | SEE(EV_BG_STALE)),
	/* the fill token's host rule covers the background fills too */
	CASE(V_FILL_TOKEN, "p", "", 1, 1, 0, 0, 1, OPT | SAMEOWN, 0, 0, 0, 1,
	     SEE(EV_TOKEN_RULE) | SEE(EV_BG_PUBLISH) | SEE(EV_WRAP) |
	     SEE(EV_LATE_WRITE)),
	/* a departed writer: background fills bind their epoch */
	CASE(V_FILL_TOKEN, "p", "", 1, 1, 0, 0, 1, OPT | CACHED | DEPART, 0,
	     0, 0, 20, SEE(EV_RETIRE) | SEE(EV_RETIRED) | SEE(EV_HIT) |
	     SEE(EV_BG_PUBLISH) | SEE(EV_OPT_RESPOND)),
	/* background fill publishing without comparing the seg words */
	CASE(V_OPT_NO_SEG_CHECK, "p", "", 1, 1, 0, 0, 1, OPT, 0, 0, 0, 20,
	     0),
	/*
	 * the block read before the seg word: random walks (the exhaustive
	 * search needs 3 GETs and 29 M states, 78 s, to the first one)
	 */
	WALK(V_OPT_BLOCK_FIRST, "p", "", 2, 1, 0, 0, 1, OPT, 0, 0, 0, 20,
	     200000, 400),
};

static const struct suite_case suite_long[] = {
	/* moved from the standard suite (20 to 200 s of CPU each) */
	CASE(V_NONE, "p", "", 1, 0, 1, 1, 1, 0, 2, 0, 1, 20,
	     SEE(EV_RENEW) | SEE(EV_RENEW_FAIL) | SEE(EV_LAGGED) |
	     SEE(EV_ABANDON)),
	/* two PUTs with leases */
	CORRECT("pp", 1, 1, 0, 1, 1, CACHED, 0, SEE(EV_LOOKUP_RECLAIM) |
		SEE(EV_PUB_D) | SEE(EV_INVAL_FAIL) | SEE(EV_ABANDON)),
	/* victim pressure: a full block, K2 evicts K's cached value */
	CORRECT("p", 1, 0, 1, 1, 2, CACHED | FULL, 0, SEE(EV_EVICT) |
		SEE(EV_NO_VICTIM) | SEE(EV_INVAL_FAIL)),
	CASE(V_NONE, "p", "d", 1, 1, 0, 0, 1, 0, 0, 0, 0, 20,
	     SEE(EV_UNCACHED) | SEE(EV_PUB_D) | SEE(EV_INVAL)),
	CASE(V_NONE, "p", "", 1, 0, 1, 1, 2, CACHED | FULL | FPCOL, 0, 0, 0,
	     20, SEE(EV_EVICT) | SEE(EV_COLLISION) | SEE(EV_INVAL)),
	/* exhaustive: the old suite's "2 PUTs, 2+1 GETs, 2 attempts" */
	CORRECT("pp", 2, 1, 0, 0, 2, 0, 0, SEE(EV_PUB_D)),
	/* exhaustive: the cleaner with a lease expiry and two writers */
	CASE(V_NONE, "p", "d", 1, 1, 0, 1, 1, 0, 0, 1, 0, 20,
	     SEE(EV_HDR_MISMATCH) | SEE(EV_ABANDON) | SEE(EV_UNCACHED)),
	/* exhaustive: the fill token at 2 version bits, with renewals */
	CASE(V_FILL_TOKEN, "p", "", 2, 1, 0, 1, 1, 0, 1, 0, 0, 2,
	     SEE(EV_WRAP) | SEE(EV_LATE_WRITE)),
	/* exhaustive: the fill token, two writers, a lagging clock */
	CASE(V_FILL_TOKEN, "p", "b", 1, 1, 0, 1, 1, 0, 0, 0, 1, 1,
	     SEE(EV_WRAP) | SEE(EV_LAGGED)),
	/* random walks: everything at once */
	WALK(V_NONE, "pd", "bp", 2, 2, 1, 3, 3, CACHED | BUSYREC, 2, 2, 1,
	     20, 200000, 400),
	WALK(V_NONE, "pp", "dp", 2, 2, 1, 3, 3, FULL | FPCOL, 2, 2, 1, 20,
	     200000, 400),
	WALK(V_FILL_TOKEN, "pd", "p", 2, 2, 1, 3, 3, CACHED | BUSYREC |
	     SAMEOWN, 2, 1, 1, 1, 200000, 400),
	WALK(V_FILL_TOKEN, "pp", "b", 2, 2, 1, 3, 3, FPCOL | SAMEOWN, 2, 1, 1,
	     2, 200000, 400),
	/* the walks find these broken variants too (not wrap, seg-early) */
	WALK(V_SKIP_RECLAIM, "pp", "d", 2, 2, 1, 3, 3, 0, 2, 1, 1, 20,
	     200000, 400),
	WALK(V_NO_DOUBLE_READ, "pp", "d", 2, 2, 1, 3, 3, 0, 2, 1, 1, 20,
	     200000, 400),
	WALK(V_RETURN_AFTER_D, "pp", "", 2, 1, 0, 0, 2, 0, 0, 0, 0, 20,
	     200000, 400),
	WALK(V_TOKEN_NO_RULE, "pd", "p", 2, 2, 1, 3, 3, BUSYREC | SAMEOWN, 2,
	     1, 1, 1, 200000, 400),
};

/* Searches of a suite run at once (--jobs N, before --tap). */
static int jobs = 1;

/* Case @i of a suite: search, print its lines; whether it passed. */
static bool run_case(const struct suite_case *sc, size_t i)
{
	bool expect = !variant_correct(sc->c.variant);
	char name[300];
	struct result r;
	bool ok;
	int e;

	cfg = sc->c;
	describe(name, sizeof(name));
	r = cfg.walks ? walk() : search();
	ok = expect ? r.violations > 0 : r.violations == 0;
	printf("# %s: %lu %s, %lu transitions, %lu complete, depth %d, %lu violations, %.1fs\n",
	       name, r.states, cfg.walks ? "steps" : "states",
	       r.transitions, r.complete, r.max_depth, r.violations,
	       r.secs);
	print_events("#   ");
	for (e = 0; e < EV_NR; e++) {
		if ((sc->must_see & SEE(e)) && !events[e]) {
			printf("# path '%s' never taken\n",
			       event_names[e]);
			ok = false;
		}
	}
	printf("%sok %zu - %s %s\n", ok ? "" : "not ", i + 1, name,
	       expect ? "finds a violation" : "has no violation");
	fflush(stdout);
	return ok;
}

#define CASE_PASSED	0
#define CASE_FAILED	3	/* its "not ok" printed; else it died */

/*
 * The cases, up to @jobs at once: each runs in a child of its own (a
 * search is all global state) with its stdout in a temporary file, and
 * the files are printed in case order as the cases end: the output is
 * the one a single process prints.  A child that ends otherwise than
 * with CASE_PASSED or CASE_FAILED (a sanitizer report, a signal) gets a
 * "not ok" line here.
 */
static int run_cases(const struct suite_case *cases, size_t n)
{
	FILE **out = calloc(n, sizeof(*out));
	pid_t *pid = calloc(n, sizeof(*pid));
	int *status = calloc(n, sizeof(*status));
	bool *ended = calloc(n, sizeof(*ended));
	size_t i, next = 0, shown = 0, running = 0;
	char name[300], buf[4096];
	int failed = 0, st;
	size_t len;
	pid_t p;

	if (!out || !pid || !status || !ended) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	printf("KTAP version 1\n1..%zu\n", n);
	fflush(stdout);
	if (jobs <= 1) {
		for (i = 0; i < n; i++)
			failed += !run_case(&cases[i], i);
		goto out;
	}
	while (shown < n) {
		while (running < (size_t)jobs && next < n) {
			out[next] = tmpfile();
			if (!out[next]) {
				perror("tmpfile");
				exit(2);
			}
			p = fork();
			if (p < 0) {
				perror("fork");
				exit(2);
			}
			if (!p) {
				if (dup2(fileno(out[next]), STDOUT_FILENO) < 0)
					_exit(2);
				exit(run_case(&cases[next], next) ?
				     CASE_PASSED : CASE_FAILED);
			}
			pid[next++] = p;
			running++;
		}
		p = wait(&st);
		if (p < 0) {
			perror("wait");
			exit(2);
		}
		for (i = 0; i < next && pid[i] != p; i++)
			;
		if (i == next)
			continue;
		status[i] = st;
		ended[i] = true;
		running--;
		for (; shown < n && ended[shown]; shown++) {
			rewind(out[shown]);
			while ((len = fread(buf, 1, sizeof(buf), out[shown])))
				fwrite(buf, 1, len, stdout);
			fclose(out[shown]);
			st = status[shown];
			if (WIFEXITED(st) && WEXITSTATUS(st) == CASE_PASSED)
				continue;
			failed++;
			if (WIFEXITED(st) && WEXITSTATUS(st) == CASE_FAILED)
				continue;
			cfg = cases[shown].c;
			describe(name, sizeof(name));
			if (WIFEXITED(st))
				printf("# %s: the search exited with status %d\n",
				       name, WEXITSTATUS(st));
			else
				printf("# %s: the search was killed by signal %d\n",
				       name, WTERMSIG(st));
			printf("not ok %zu - %s\n", shown + 1, name);
		}
		fflush(stdout);
	}
out:
	free(out);
	free(pid);
	free(status);
	free(ended);
	return failed ? 1 : 0;
}

static bool set_ops(char *dst, const char *src)
{
	size_t n = strlen(src);

	if (n > NOPS || strspn(src, "pbd") != n)
		return false;
	strcpy(dst, src);
	return true;
}

int main(int argc, char **argv)
{
	char name[300];
	struct result r;
	int i, v;

	cfg = (struct config){ .ops = { "p", "" }, .gets = { 2, 1, 0 },
			       .attempts = 2, .vbits = SCALIO_CTL_VER_BITS,
			       .variant = V_NONE, .trace = true,
			       .depth = 400 };
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : "0";

		if (!strcmp(a, "--jobs")) {
			jobs = atoi(val), i++;
			continue;
		}
		if (!strcmp(a, "--tap"))
			return run_cases(suite, ARRAY_SIZE(suite));
		if (!strcmp(a, "--tap-long"))
			return run_cases(suite_long, ARRAY_SIZE(suite_long));
		if (!strcmp(a, "--cached")) {
			cfg.cached = true;
		} else if (!strcmp(a, "--full")) {
			cfg.full = true;
		} else if (!strcmp(a, "--renew")) {
			cfg.renew = atoi(val), i++;
		} else if (!strcmp(a, "--busy-reclaim")) {
			cfg.busy_reclaim = true;
		} else if (!strcmp(a, "--fp-collide")) {
			cfg.fp_collide = true;
		} else if (!strcmp(a, "--same-owner")) {
			cfg.same_owner = true;
		} else if (!strcmp(a, "--depart")) {
			cfg.depart = true;
		} else if (!strcmp(a, "--opt")) {
			cfg.opt = true;
		} else if (!strcmp(a, "--first")) {
			cfg.first = true;
		} else if (!strcmp(a, "--no-trace")) {
			cfg.trace = false;
		} else if (!strcmp(a, "--puts")) {
			int n = atoi(val);

			i++;
			if (n < 0 || n > NOPS)
				n = NOPS + 1;
			memset(cfg.ops[0], 0, sizeof(cfg.ops[0]));
			memset(cfg.ops[0], 'p', n);
		} else if (!strcmp(a, "--w1") || !strcmp(a, "--w2")) {
			if (!set_ops(cfg.ops[a[3] - '1'], val)) {
				fprintf(stderr, "%s: at most %d of p, b, d\n", a,
					NOPS);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--gets1")) {
			cfg.gets[0] = atoi(val), i++;
		} else if (!strcmp(a, "--gets2")) {
			cfg.gets[1] = atoi(val), i++;
		} else if (!strcmp(a, "--gets3")) {
			cfg.gets[2] = atoi(val), i++;
		} else if (!strcmp(a, "--ticks")) {
			cfg.ticks = atoi(val), i++;
		} else if (!strcmp(a, "--attempts")) {
			cfg.attempts = atoi(val), i++;
		} else if (!strcmp(a, "--cleans")) {
			cfg.cleans = atoi(val), i++;
		} else if (!strcmp(a, "--lag")) {
			cfg.lag = atoi(val), i++;
		} else if (!strcmp(a, "--vbits")) {
			cfg.vbits = atoi(val), i++;
		} else if (!strcmp(a, "--bitstate")) {
			cfg.bitstate = atoi(val), i++;
		} else if (!strcmp(a, "--walks")) {
			cfg.walks = atol(val), i++;
		} else if (!strcmp(a, "--depth")) {
			cfg.depth = atoi(val), i++;
		} else if (!strcmp(a, "--variant")) {
			for (v = 0; v < V_NR; v++)
				if (!strcmp(val, variant_names[v]))
					break;
			if (v == V_NR) {
				fprintf(stderr, "unknown variant %s\n", val);
				return 2;
			}
			cfg.variant = v;
			i++;
		} else {
			fprintf(stderr, "usage: see the comment at the top of %s\n",
				__FILE__);
			return 2;
		}
	}
	if (strlen(cfg.ops[0]) > NOPS || cfg.gets[0] < 0 || cfg.gets[1] < 0 ||
	    cfg.gets[2] < 0 || cfg.ticks < 0 || cfg.ticks > 100 ||
	    cfg.attempts < 1 || cfg.renew < 0 || cfg.renew > 100 ||
	    cfg.cleans < 0 || cfg.cleans > NGEN - 1 - 2 * NOPS ||
	    cfg.lag < 0 || cfg.lag > 100 || cfg.vbits < 1 ||
	    cfg.vbits > SCALIO_CTL_VER_BITS || cfg.walks < 0 ||
	    cfg.depth < 1 || cfg.depth > 100000 ||
	    (cfg.bitstate && (cfg.bitstate < 20 || cfg.bitstate > 36))) {
		fprintf(stderr, "bounds: puts 0..2, gets >= 0, ticks 0..100, attempts >= 1, renew 0..100, cleans 0..3, lag 0..100, vbits 1..20, depth 1..100000, bitstate 20..36\n");
		return 2;
	}
	if (opt_variant())
		cfg.opt = true;
	describe(name, sizeof(name));
	r = cfg.walks ? walk() : search();
	printf("%s: %lu %s, %lu transitions, %lu complete, depth %d, %lu violations, %.1fs\n",
	       name, r.states, cfg.walks ? "steps" : "states", r.transitions,
	       r.complete, r.max_depth, r.violations, r.secs);
	print_events("");
	return r.violations ? 1 : 0;
}
