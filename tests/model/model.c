// SPDX-License-Identifier: GPL-2.0
/*
 * Exhaustive interleaving checker of the slot consistency protocol
 * (DESIGN.md section 3), driving the real common/scalio_slot.c functions.
 *
 * World: one hash block of 2 slots in "target memory", two keys K and K2
 * of that block whose values live in the block's on-SSD segment (the seg
 * word names the segment; segment g holds K = v_g and K2 = w0, and is
 * immutable).  Processes:
 *
 *   writer  W: PUT(K, v1) [, PUT(K, v2)]: commit (durable write + seg
 *              update, one target step), then the invalidation loop;
 *   readers R1, R2: GETs of K (--gets1, --gets2 of them);
 *   reader  R3: GETs of K2 (--gets3): victim pressure, it evicts K's C
 *              slots and locks, reclaims and fills slots K also wants.
 *
 * Each GET takes the code's steps (host/read.c) as the code takes them:
 * block READ and lookup (HIT returns; RECLAIM: CAS the expired lock to A
 * and re-read; BUSY / TORN: re-read), victim choice, lock CAS, key WRITE,
 * double-read READ and collision check (RECLAIM: CAS, then double-read
 * again; collision: release), optional lease renewal CASes while the
 * segment is read, seg + segment read, the lease check, the value WRITE,
 * and the publish CAS: three separate steps, so the clock may pass the
 * deadline and the slot be reclaimed between any two of them.
 *
 * Every RDMA READ of the block is NOT atomic: each part of each slot (the
 * ctl word; the data: klen, key, vlen, value, csum) is read at its own
 * step, in any order, interleaved with everything else.  Every ctl change
 * is a CAS of the whole word; key and value writes are unconditional RDMA
 * WRITEs (they land even if the writer lost its lock meanwhile).
 *
 * Leases: a global target clock advances by nondeterministic "tick" steps
 * (at most --ticks of them).  A lock's lease deadline is the clock at lock
 * (or renewal) time, so one tick later it has expired.  With --busy-reclaim
 * a reader that finds a live lock of its key may also reclaim it at once
 * (a clock estimate running ahead, or the host's "unchanged for longer
 * than any lease" rule): reclaim at any moment.  A crashed client is a
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
 *
 * Usage: model [--puts N] [--gets1 N] [--gets2 N] [--gets3 N] [--ticks N]
 *              [--attempts N] [--cached] [--full] [--renew] [--busy-reclaim]
 *              [--bitstate LOG2BITS] [--variant V] [--first] [--no-trace]
 *        model --tap        the standard suite as KTAP (used by make run)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/scalio_slot.h"

#define NSLOTS		2
#define NPROC		4	/* 0 = writer, 1 and 2 read K, 3 reads K2 */
#define NVAL		3	/* v0 (initial), v1, v2 */
#define W0		NVAL	/* value id of K2's only value */

#define X3		(NVAL + 1)	/* value id of K3's (never read) */

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
	V_NR,
};

static const char *const variant_names[V_NR] = {
	"correct", "no-double-read", "no-invalidation", "seg-early",
	"return-after-d", "skip-reclaim",
};

struct config {
	int	puts;		/* PUTs by the writer: 0..2 */
	int	gets[3];	/* GETs by R1, R2 (key K) and R3 (key K2) */
	int	ticks;		/* clock ticks available (lease expiries) */
	int	attempts;	/* lock CASes per GET before giving up */
	bool	cached;		/* slot 0 starts as a valid C of v0 */
	bool	full;		/* slot 1 starts as a valid C of K3 */
	bool	renew;		/* fillers may renew their lease (once a fill) */
	bool	busy_reclaim;	/* readers may reclaim a live lock of their key */
	int	bitstate;	/* 0: hash compaction; else log2 of the bits */
	enum variant variant;
	bool	first;		/* stop at the first violation */
	bool	trace;		/* print the first violating trace */
};

static struct config cfg;
static u16 key_fp[4];

/* Slot parts, each written and read as a unit. */
struct aslot {
	u64	ctl;
	u8	key;		/* key id, 0: never written */
	u8	val;		/* 0: none (vlen 0), else value id + 1 */
	u16	pad;
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
	R_SEG,			/* renew, or read the segment (step 5) */
	R_WVAL,			/* lease check */
	R_WVAL2,		/* RDMA WRITE of key, value and csum */
	R_PUB,			/* CAS B -> C */
	R_DCLEAR,		/* publish found our D: CAS D -> A */
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
	u8	seg;		/* seg-early: seg word read in the READ */
	u8	other;		/* slot to reclaim; writer: scan start */
	u8	renewed;	/* renewals in this fill */
	u8	pad[7];
	u64	expect;		/* ctl a CAS expects */
	u64	target;		/* ctl a CAS installs (writer) */
	u64	my_ctl;		/* our lock */
	struct aslot snap[NSLOTS];
};

struct state {
	struct aslot slot[NSLOTS];
	u8	seg;		/* value id of the segment the seg word names */
	u8	clock;
	u8	ticks_left;
	u8	pad[5];
	u64	lin[4];		/* set of configurations, 200 bits */
	struct proc p[NPROC];
};

static int proc_key(int pi)
{
	return pi == 3 ? 2 : 1;
}

/* ---- linearizability: configuration sets ------------------------------ */

/* config = reg + 4 * (wlin + 2 * (r1 + 5 * r2)); r = 0 pending, else v+1 */
#define NCONF	(4 * 2 * 5 * 5)

static int conf_enc(int reg, int wlin, int r1, int r2)
{
	return reg + 4 * (wlin + 2 * (r1 + 5 * r2));
}

static void conf_dec(int c, int *reg, int *wlin, int *r1, int *r2)
{
	*reg = c % 4;
	c /= 4;
	*wlin = c % 2;
	c /= 2;
	*r1 = c % 5;
	*r2 = c / 5;
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
	int c, reg, w, r1, r2;

	while (changed) {
		changed = false;
		for (c = 0; c < NCONF; c++) {
			int n;

			if (!lin_has(s, c))
				continue;
			conf_dec(c, &reg, &w, &r1, &r2);
			if (op_pending(s, 0) && !w) {
				/* PUT number done+1 writes value id done+1 */
				n = conf_enc(s->p[0].done + 1, 1, r1, r2);
				if (!lin_has(s, n)) {
					lin_add(s, n);
					changed = true;
				}
			}
			if (op_pending(s, 1) && !r1) {
				n = conf_enc(reg, w, reg + 1, r2);
				if (!lin_has(s, n)) {
					lin_add(s, n);
					changed = true;
				}
			}
			if (op_pending(s, 2) && !r2) {
				n = conf_enc(reg, w, r1, reg + 1);
				if (!lin_has(s, n)) {
					lin_add(s, n);
					changed = true;
				}
			}
		}
	}
}

/* Response of process @p (GET returning value id @v).  False: violation. */
static bool lin_respond(struct state *s, int p, int v)
{
	u64 out[4] = { 0 };
	int c, reg, w, r1, r2, n;
	bool any = false;

	if (p == 3)		/* K2 is never written */
		return v == W0;
	for (c = 0; c < NCONF; c++) {
		if (!lin_has(s, c))
			continue;
		conf_dec(c, &reg, &w, &r1, &r2);
		if (p == 0 && w)
			n = conf_enc(reg, 0, r1, r2);
		else if (p == 1 && r1 == v + 1)
			n = conf_enc(reg, w, 0, r2);
		else if (p == 2 && r2 == v + 1)
			n = conf_enc(reg, w, r1, 0);
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
	out->csum = cpu_to_le32(a->csum);
}

static u64 blockbuf[SCALIO_BLOCK_SIZE(NSLOTS) / 8];

static const struct scalio_block_view *view_of(const struct aslot *snap)
{
	static struct scalio_block_view v = { blockbuf, NSLOTS };
	int i;

	memset(blockbuf, 0, sizeof(blockbuf));
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
#define SLOT_PARTS	(2 * NSLOTS)
#define ALL_SLOT_PARTS	((1 << SLOT_PARTS) - 1)

static const char *const part_names[] = {
	"slot0.ctl", "slot0.data", "slot1.ctl", "slot1.data", "seg",
};

static char *desc;		/* when non-NULL, steps describe themselves */

/* Coverage: how often each protocol path was taken (per transition). */
enum event {
	EV_HIT, EV_BUSY, EV_TORN, EV_NO_VICTIM, EV_LOCK_FAIL, EV_COLLISION,
	EV_RECLAIM, EV_LOOKUP_RECLAIM, EV_DREAD_RECLAIM, EV_BUSY_RECLAIM,
	EV_EVICT, EV_RENEW, EV_RENEW_FAIL, EV_ABANDON, EV_PUB, EV_PUB_D,
	EV_PUB_LOST, EV_INVAL, EV_INVAL_FAIL, EV_NR,
};

static const char *const event_names[EV_NR] = {
	"hit", "busy", "torn", "no-victim", "lock-fail", "collision",
	"victim-reclaim", "lookup-reclaim", "dread-reclaim", "busy-reclaim",
	"evict", "renew", "renew-fail", "abandon", "publish", "publish-saw-D",
	"publish-lost", "invalidate", "invalidate-fail",
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
	if (part % 2 == PART_CTL) {
		p->snap[i].ctl = s->slot[i].ctl;
	} else {
		p->snap[i].key = s->slot[i].key;
		p->snap[i].val = s->slot[i].val;
		p->snap[i].csum = s->slot[i].csum;
	}
}

static void clear_read(struct proc *p)
{
	p->mask = 0;
	p->seg = 0;
	memset(p->snap, 0, sizeof(p->snap));
}

static void restart_get(struct proc *p)
{
	clear_read(p);
	p->expect = p->my_ctl = 0;
	p->mine = p->value = p->other = p->renewed = 0;
	p->pc = R_LOOKUP;
}

static bool finish(struct state *s, int pi, int value)
{
	u8 done = s->p[pi].done;
	int total = pi ? cfg.gets[pi - 1] : cfg.puts;
	bool ok = lin_respond(s, pi, value);

	memset(&s->p[pi], 0, sizeof(s->p[pi]));
	s->p[pi].done = done + 1;
	s->p[pi].pc = done + 1 >= total ? P_DONE : P_IDLE;
	return ok;
}

static bool expired(const struct state *s, u64 ctl)
{
	return scalio_lease_expired(s->clock, scalio_ctl_lease(ctl));
}

static const char *vname(int v)
{
	static const char *const n[] = { "v0", "v1", "v2", "w0", "x3" };

	return n[v];
}

/* R_LOOKUP: the READ is complete; classify it as host/read.c does. */
static int reader_lookup(struct state *s, int pi)
{
	struct proc *p = &s->p[pi];
	int kid = proc_key(pi);
	const struct scalio_block_view *v = view_of(p->snap);
	enum scalio_lookup res;
	u32 idx;

	res = scalio_block_lookup(v, keys[kid], KLEN, key_fp[kid], s->clock,
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
		EVENT(EV_LOOKUP_RECLAIM);
		SAYMORE(" -> RECLAIM slot%u", idx);
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
	if (!scalio_victim_choose(v, s->clock, &idx)) {
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

/* R_DREAD: the double-read is complete; the collision check. */
static int reader_dread(struct state *s, int pi)
{
	struct proc *p = &s->p[pi];
	int kid = proc_key(pi);
	const struct scalio_block_view *v = view_of(p->snap);
	enum scalio_collision coll;
	u32 idx;

	coll = scalio_block_collision(v, p->mine, p->my_ctl, keys[kid], KLEN,
				      key_fp[kid], s->clock, &idx);
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
	SAYMORE(" -> no collision");
	if (cfg.variant == V_SEG_EARLY) {
		p->value = kid == 2 ? W0 : p->seg;
		clear_read(p);
		p->pc = R_WVAL;
	} else {
		/*
		 * The code's seg READ, fenced behind the double-read in its
		 * chain: after every part above, before any renewal.  (The
		 * collision check between them is local.)  The segment it
		 * names is immutable: reading it later gives this value.
		 */
		p->value = kid == 2 ? W0 : s->seg;
		SAYMORE(", seg -> %s", vname(p->value));
		clear_read(p);
		p->pc = R_SEG;
	}
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
		SAY("R%d invoke GET(%s)", pi, kid == 1 ? "K" : "K2");
		return 1;

	case R_LOOKUP:
		if (choice >= SLOT_PARTS || (p->mask & 1 << choice))
			return 0;
		read_part(s, p, choice);
		SAY("R%d lookup-read %s", pi, part_names[choice]);
		if (p->mask != ALL_SLOT_PARTS)
			return 1;
		return reader_lookup(s, pi);

	case R_RECLAIM: {
		u64 old = p->expect;
		bool live = !expired(s, old) &&
			    scalio_ctl_state(old) == SCALIO_SLOT_B;

		/* A BUSY lock (live): choice 0 re-reads, 1 reclaims it. */
		if (live && choice == 0 && cfg.busy_reclaim) {
			SAY("R%d back off, re-read", pi);
			restart_get(p);
			return 1;
		}
		if (choice != (live && cfg.busy_reclaim))
			return 0;
		if (cas(s, p->other, old, scalio_ctl_release(old))) {
			if (live)
				EVENT(EV_BUSY_RECLAIM);
			SAY("R%d reclaim CAS slot%d -> A ok%s", pi, p->other,
			    live ? " (lock still live)" : "");
		} else {
			SAY("R%d reclaim CAS slot%d fails", pi, p->other);
		}
		restart_get(p);
		return 1;
	}

	case R_LOCK: {
		u64 lock;

		if (choice)
			return 0;
		if (p->attempts >= cfg.attempts) {
			p->pc = P_HALT;
			SAY("R%d gives up (attempt bound)", pi);
			return 1;
		}
		p->attempts++;
		lock = scalio_ctl_lock(p->expect, pi, s->clock, key_fp[kid]);
		if (!cas(s, p->mine, p->expect, lock)) {
			EVENT(EV_LOCK_FAIL);
			SAY("R%d CAS slot%d -> B fails", pi, p->mine);
			restart_get(p);
			return 1;
		}
		if (scalio_ctl_state(p->expect) == SCALIO_SLOT_B ||
		    scalio_ctl_state(p->expect) == SCALIO_SLOT_D)
			EVENT(EV_RECLAIM);
		if (scalio_ctl_state(p->expect) == SCALIO_SLOT_C &&
		    s->slot[p->mine].key != kid)
			EVENT(EV_EVICT);
		p->my_ctl = lock;
		p->expect = 0;
		p->pc = R_WKEY;
		SAY("R%d CAS slot%d -> B (ver %u) ok", pi, p->mine,
		    scalio_ctl_version(lock));
		return 1;
	}

	case R_WKEY:
		if (choice)
			return 0;
		/* klen..key: vlen and csum are written as 0 */
		s->slot[p->mine].key = kid;
		s->slot[p->mine].val = 0;
		s->slot[p->mine].csum = 0;
		p->pc = cfg.variant == V_NO_DOUBLE_READ ? R_SEG : R_DREAD;
		SAY("R%d write key into slot%d", pi, p->mine);
		return 1;

	case R_DREAD:
		nparts = SLOT_PARTS + (cfg.variant == V_SEG_EARLY);
		if (choice >= nparts || (p->mask & 1 << choice))
			return 0;
		read_part(s, p, choice);
		if (choice == PART_SEG)
			SAY("R%d double-read seg -> v%d", pi, p->seg);
		else
			SAY("R%d double-read %s", pi, part_names[choice]);
		if (p->mask != (1 << nparts) - 1)
			return 1;
		return reader_dread(s, pi);

	case R_DRECLAIM:
		if (choice)
			return 0;
		if (cas(s, p->other, p->expect, scalio_ctl_release(p->expect))) {
			SAY("R%d reclaim CAS slot%d -> A ok, double-read again",
			    pi, p->other);
			p->pc = R_DREAD;
		} else {
			SAY("R%d reclaim CAS slot%d fails: collision", pi,
			    p->other);
			p->pc = R_RELEASE;
		}
		p->expect = 0;
		p->other = 0;
		return 1;

	case R_RELEASE: {
		u64 cur = s->slot[p->mine].ctl;

		if (choice)
			return 0;
		if (cas(s, p->mine, p->my_ctl, scalio_ctl_release(p->my_ctl))) {
			SAY("R%d CAS slot%d B -> A ok", pi, p->mine);
		} else if (cur == scalio_ctl_invalidate(p->my_ctl)) {
			SAY("R%d CAS slot%d B -> A fails: our D", pi, p->mine);
			p->expect = cur;
			p->pc = R_UNLOCK_D;
			return 1;
		} else {
			SAY("R%d CAS slot%d B -> A fails", pi, p->mine);
		}
		restart_get(p);
		return 1;
	}

	case R_UNLOCK_D:
		if (choice)
			return 0;
		cas(s, p->mine, p->expect, scalio_ctl_release(p->expect));
		SAY("R%d CAS slot%d D -> A", pi, p->mine);
		restart_get(p);
		return 1;

	case R_SEG:
		if (choice == 1 && cfg.renew && !p->renewed) {
			u64 next = scalio_ctl_renew(p->my_ctl, s->clock);

			/* the renewal work, while the segment is read */
			p->renewed = 1;
			if (cas(s, p->mine, p->my_ctl, next)) {
				EVENT(EV_RENEW);
				p->my_ctl = next;
				SAY("R%d renew CAS slot%d ok (deadline %d)",
				    pi, p->mine, s->clock);
				return 1;
			}
			EVENT(EV_RENEW_FAIL);
			SAY("R%d renew CAS slot%d fails: abandon", pi,
			    p->mine);
			p->pc = R_RELEASE;
			return 1;
		}
		if (choice)
			return 0;
		/* without the double-read the seg READ is here */
		if (cfg.variant == V_NO_DOUBLE_READ)
			p->value = kid == 2 ? W0 : s->seg;
		p->pc = R_WVAL;
		SAY("R%d read the segment -> %s", pi, vname(p->value));
		return 1;

	case R_WVAL:
		if (choice)
			return 0;
		/*
		 * The filler checks its lease (against its clock estimate;
		 * here the clock), then WRITEs, then CASes: three steps.
		 * Without ticks the check cannot fail and the WRITE is taken
		 * in the same step (same behaviours, fewer states).
		 */
		if (expired(s, p->my_ctl)) {
			EVENT(EV_ABANDON);
			p->pc = R_RELEASE;
			SAY("R%d lease nearly over: abandon", pi);
			return 1;
		}
		if (cfg.ticks) {
			p->pc = R_WVAL2;
			SAY("R%d lease still valid", pi);
			return 1;
		}
		fallthrough;
	case R_WVAL2: {
		u64 pub = scalio_ctl_publish(p->my_ctl);
		u8 vb[2];

		if (choice)
			return 0;
		value_bytes(p->value, vb);
		s->slot[p->mine].key = kid;
		s->slot[p->mine].val = p->value + 1;
		s->slot[p->mine].csum =
			scalio_slot_csum(scalio_ctl_version(pub), keys[kid],
					 KLEN, vb, 2);
		p->pc = R_PUB;
		SAYMORE("%sR%d write %s + csum into slot%d",
			desc && desc[0] ? ", " : "", pi, vname(p->value),
			p->mine);
		return 1;
	}

	case R_PUB: {
		u64 cur = s->slot[p->mine].ctl;

		if (choice)
			return 0;
		/* The CAS alone: whatever the clock says now. */
		if (cas(s, p->mine, p->my_ctl, scalio_ctl_publish(p->my_ctl))) {
			EVENT(EV_PUB);
			SAY("R%d CAS slot%d B -> C ok%s, GET returns %s", pi,
			    p->mine, expired(s, p->my_ctl) ?
			    " (after its deadline)" : "", vname(p->value));
			return finish(s, pi, p->value) ? 1 : -1;
		}
		if (cur == scalio_ctl_invalidate(p->my_ctl)) {
			EVENT(EV_PUB_D);
			p->expect = cur;
			p->pc = R_DCLEAR;
			SAY("R%d CAS slot%d B -> C fails: D", pi, p->mine);
			return 1;
		}
		EVENT(EV_PUB_LOST);
		SAY("R%d CAS slot%d B -> C fails: lock lost", pi, p->mine);
		restart_get(p);
		return 1;
	}

	case R_DCLEAR:
		if (choice)
			return 0;
		cas(s, p->mine, p->expect, scalio_ctl_release(p->expect));
		if (cfg.variant == V_RETURN_AFTER_D) {
			SAY("R%d CAS slot%d D -> A, GET returns %s (broken)",
			    pi, p->mine, vname(p->value));
			return finish(s, pi, p->value) ? 1 : -1;
		}
		SAY("R%d CAS slot%d D -> A, back off, restart", pi, p->mine);
		restart_get(p);
		return 1;
	}
	return 0;
}

/* The writer's scan continues at @start over its snapshot. */
static int writer_next(struct proc *p, u32 start)
{
	const struct scalio_block_view *v = view_of(p->snap);
	u32 idx;
	u64 nc;

	if (!scalio_invalidate_next(v, keys[1], KLEN, key_fp[1], start, &idx,
				    &nc))
		return 0;
	p->mine = idx;
	p->expect = p->snap[idx].ctl;
	p->target = nc;
	p->pc = W_CAS;
	return 1;
}

static int writer_step(struct state *s, int choice)
{
	struct proc *p = &s->p[0];

	switch (p->pc) {
	case P_IDLE:
		if (choice)
			return 0;
		p->pc = W_COMMIT;
		lin_close(s);
		SAY("W invoke PUT(K, v%d)", p->done + 1);
		return 1;

	case W_COMMIT:
		if (choice)
			return 0;
		s->seg = p->done + 1;
		SAY("W commit: segment with v%d durable, seg updated", s->seg);
		if (cfg.variant == V_NO_INVALIDATION) {
			SAYMORE(", PUT returns (broken)");
			return finish(s, 0, 0) ? 1 : -1;
		}
		clear_read(p);
		p->other = 0;
		p->pc = W_SCAN;
		return 1;

	case W_SCAN:
		if (choice >= SLOT_PARTS || (p->mask & 1 << choice))
			return 0;
		read_part(s, p, choice);
		SAY("W inval-read %s", part_names[choice]);
		if (p->mask != ALL_SLOT_PARTS)
			return 1;
		/* from the slot whose CAS failed, not from the first */
		if (writer_next(p, p->other)) {
			SAYMORE(" -> invalidate slot%d", p->mine);
			return 1;
		}
		SAYMORE(" -> nothing to invalidate, PUT returns");
		return finish(s, 0, 0) ? 1 : -1;

	case W_CAS:
		if (choice)
			return 0;
		if (!cas(s, p->mine, p->expect, p->target)) {
			EVENT(EV_INVAL_FAIL);
			SAY("W CAS slot%d fails, re-read", p->mine);
			clear_read(p);
			p->other = p->mine;
			p->pc = W_SCAN;
			return 1;
		}
		EVENT(EV_INVAL);
		SAY("W CAS slot%d -> %c ok", p->mine,
		    "ABCD"[scalio_ctl_state(p->target)]);
		if (writer_next(p, p->mine + 1))
			return 1;
		SAYMORE(", PUT returns");
		return finish(s, 0, 0) ? 1 : -1;
	}
	return 0;
}

#define NCHOICE		5
#define ACT_TICK	(NPROC * NCHOICE)
#define NACT		(ACT_TICK + 1)

/*
 * Can anybody observe the clock?  Only lease deadlines are compared with
 * it: those of B and D slots and the lock a filler holds.  With none of
 * them around a tick changes nothing but the clock's absolute value, and
 * every comparison is relative (a new lock's deadline is the clock then),
 * so ticks are only explored when observable.
 */
static bool lease_observable(const struct state *s)
{
	int i;

	for (i = 0; i < NSLOTS; i++) {
		enum scalio_slot_state st = scalio_ctl_state(s->slot[i].ctl);

		if (st == SCALIO_SLOT_B || st == SCALIO_SLOT_D)
			return true;
	}
	for (i = 1; i < NPROC; i++)
		if (s->p[i].my_ctl || s->p[i].expect)
			return true;
	return false;
}

/* Cheap pre-check of apply()'s enabling conditions (saves a state copy). */
static bool enabled(const struct state *s, int a)
{
	const struct proc *p;
	int choice = a % NCHOICE, nparts;

	if (a == ACT_TICK)
		return s->ticks_left && lease_observable(s);
	p = &s->p[a / NCHOICE];
	switch (p->pc) {
	case P_DONE:
	case P_HALT:
		return false;
	case R_LOOKUP:
	case W_SCAN:
		nparts = SLOT_PARTS;
		break;
	case R_DREAD:
		nparts = SLOT_PARTS + (cfg.variant == V_SEG_EARLY);
		break;
	case R_SEG:
		return choice == 0 ||
		       (choice == 1 && cfg.renew && !p->renewed);
	case R_RECLAIM:
		return choice <= 1;	/* reader_step() decides */
	default:
		return choice == 0;
	}
	return choice < nparts && !(p->mask & 1 << choice);
}

/* Apply action @a to @s.  0: not enabled; 1: applied; -1: violation. */
static int apply(struct state *s, int a)
{
	int pi = a / NCHOICE, choice = a % NCHOICE;

	if (a == ACT_TICK) {
		if (!s->ticks_left || !lease_observable(s))
			return 0;
		s->ticks_left--;
		s->clock++;
		SAY("clock tick -> %d", s->clock);
		return 1;
	}
	if (pi == 0)
		return writer_step(s, choice);
	return reader_step(s, pi, choice);
}

/* ---- search ------------------------------------------------------------ */

static u64 hash_state(const struct state *s)
{
	const u64 *w = (const void *)s;
	u64 h = 0x9e3779b97f4a7c15ULL, k;
	size_t i;

	BUILD_BUG_ON(sizeof(*s) % 8);
	/* Word-wise multiply-rotate, then the murmur3 finalizer. */
	for (i = 0; i < sizeof(*s) / 8; i++) {
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
	s->seg = 0;
	s->ticks_left = cfg.ticks;
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
	s->p[0].pc = cfg.puts ? P_IDLE : P_DONE;
	for (i = 1; i < NPROC; i++)
		s->p[i].pc = cfg.gets[i - 1] ? P_IDLE : P_DONE;
	lin_add(s, conf_enc(0, 0, 0, 0));
}

static bool all_done(const struct state *s)
{
	int i;

	for (i = 0; i < NPROC; i++)
		if (s->p[i].pc != P_DONE)
			return false;
	return true;
}

static struct result search(void)
{
	struct result r = { 0 };
	struct frame *stack;
	int depth = 0, cap = 4096, ret, k;
	clock_t t0 = clock();
	struct state next;

	for (k = 1; k < 4; k++)
		key_fp[k] = scalio_hash_fp(scalio_key_hash(SCALIO_HASH_SEED, keys[k],
						       KLEN));
	memset(events, 0, sizeof(events));
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

static void describe(char *buf, size_t n)
{
	snprintf(buf, n, "%s: puts=%d gets=%d+%d+%d(K2) ticks=%d attempts=%d%s%s%s%s",
		 variant_names[cfg.variant], cfg.puts, cfg.gets[0], cfg.gets[1],
		 cfg.gets[2], cfg.ticks, cfg.attempts,
		 cfg.cached ? (cfg.full ? " cached full" : " cached") :
		 cfg.full ? " full" : "", cfg.renew ? " renew" : "",
		 cfg.busy_reclaim ? " busy-reclaim" : "",
		 cfg.bitstate ? " bitstate" : "");
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
	bool		expect_violation;
	unsigned int	must_see;	/* events (1 << EV_*) that must occur */
};

#define SEE(e)	(1U << (e))
/* opts: CACHED, FULL, RENEW, BUSYREC; bits: bitstate log2 */
#define CFG(v, puts, g1, g2, g3, ticks, att, opts, bits)		\
	{ puts, { g1, g2, g3 }, ticks, att, (opts) & CACHED,		\
	  (opts) & FULL, (opts) & RENEW, (opts) & BUSYREC, bits, v,	\
	  v != V_NONE, true }
#define CORRECT(puts, g1, g2, g3, ticks, att, opts, bits, see)		\
	{ CFG(V_NONE, puts, g1, g2, g3, ticks, att, opts, bits), false, see }
#define BROKEN(v, puts, g1, g2, g3, ticks, att, opts)			\
	{ CFG(v, puts, g1, g2, g3, ticks, att, opts, 0), true, 0 }
#define CACHED		1
#define FULL		2
#define RENEW		4
#define BUSYREC		8

static const struct suite_case suite[] = {
	/* The protocol as built: no violation within these bounds. */
	CORRECT(1, 2, 1, 0, 0, 2, 0, 0, SEE(EV_HIT) | SEE(EV_BUSY) |
		SEE(EV_TORN) | SEE(EV_COLLISION) | SEE(EV_PUB_D)),
	CORRECT(1, 2, 1, 0, 0, 2, CACHED, 0, SEE(EV_HIT) | SEE(EV_INVAL)),
	CORRECT(2, 1, 1, 0, 0, 2, CACHED, 0, SEE(EV_PUB_D) |
		SEE(EV_INVAL_FAIL)),
	/* the shape: a lease expiring between check, WRITE and CAS */
	CORRECT(1, 2, 1, 0, 1, 1, 0, 0, SEE(EV_LOOKUP_RECLAIM) |
		SEE(EV_DREAD_RECLAIM) | SEE(EV_ABANDON) | SEE(EV_PUB_LOST) |
		SEE(EV_PUB_D)),
	/* two PUTs with leases */
	CORRECT(2, 1, 1, 0, 1, 1, CACHED, 0, SEE(EV_LOOKUP_RECLAIM) |
		SEE(EV_PUB_D) | SEE(EV_INVAL_FAIL) | SEE(EV_ABANDON)),
	/* renewal racing a writer and the K2 reader */
	CORRECT(1, 1, 0, 1, 1, 1, RENEW, 0, SEE(EV_RENEW) |
		SEE(EV_RENEW_FAIL) | SEE(EV_PUB_D)),
	/* victim pressure: a full block, K2 evicts K's cached value */
	CORRECT(1, 1, 0, 1, 1, 2, CACHED | FULL, 0, SEE(EV_EVICT) |
		SEE(EV_NO_VICTIM) | SEE(EV_INVAL_FAIL)),
	/* reclaim of a live lock at any moment (clock estimate ahead) */
	CORRECT(0, 1, 1, 0, 1, 1, RENEW | BUSYREC, 0, SEE(EV_BUSY_RECLAIM) |
		SEE(EV_RENEW_FAIL) | SEE(EV_LOOKUP_RECLAIM)),
	/* Each broken variant: a violation must be found. */
	BROKEN(V_NO_DOUBLE_READ, 2, 2, 1, 0, 0, 2, 0),
	BROKEN(V_NO_INVALIDATION, 1, 1, 1, 0, 0, 2, CACHED),
	BROKEN(V_SEG_EARLY, 2, 2, 1, 0, 0, 2, 0),
	BROKEN(V_RETURN_AFTER_D, 2, 2, 1, 0, 0, 2, 0),
	BROKEN(V_SKIP_RECLAIM, 1, 2, 1, 0, 1, 1, 0),
};

static int run_suite(void)
{
	char name[200];
	size_t i;
	int failed = 0, e;

	printf("KTAP version 1\n1..%zu\n", ARRAY_SIZE(suite));
	for (i = 0; i < ARRAY_SIZE(suite); i++) {
		struct result r;
		bool ok;

		cfg = suite[i].c;
		describe(name, sizeof(name));
		r = search();
		ok = suite[i].expect_violation ? r.violations > 0 :
						 r.violations == 0;
		printf("# %s: %lu states, %lu transitions, %lu complete, depth %d, %lu violations, %.1fs\n",
		       name, r.states, r.transitions, r.complete, r.max_depth,
		       r.violations, r.secs);
		print_events("#   ");
		for (e = 0; e < EV_NR; e++) {
			if ((suite[i].must_see & SEE(e)) && !events[e]) {
				printf("# path '%s' never taken\n",
				       event_names[e]);
				ok = false;
			}
		}
		printf("%sok %zu - %s %s\n", ok ? "" : "not ", i + 1, name,
		       suite[i].expect_violation ? "finds a violation" :
						   "has no violation");
		fflush(stdout);
		failed += !ok;
	}
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	char name[200];
	struct result r;
	int i, v;

	cfg = (struct config){ 1, { 2, 1, 0 }, 0, 2, false, false, false,
			       false, 0, V_NONE, false, true };
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : "0";

		if (!strcmp(a, "--tap"))
			return run_suite();
		if (!strcmp(a, "--cached")) {
			cfg.cached = true;
		} else if (!strcmp(a, "--full")) {
			cfg.full = true;
		} else if (!strcmp(a, "--renew")) {
			cfg.renew = true;
		} else if (!strcmp(a, "--busy-reclaim")) {
			cfg.busy_reclaim = true;
		} else if (!strcmp(a, "--first")) {
			cfg.first = true;
		} else if (!strcmp(a, "--no-trace")) {
			cfg.trace = false;
		} else if (!strcmp(a, "--puts")) {
			cfg.puts = atoi(val), i++;
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
		} else if (!strcmp(a, "--bitstate")) {
			cfg.bitstate = atoi(val), i++;
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
	if (cfg.puts < 0 || cfg.puts > 2 || cfg.gets[0] < 0 ||
	    cfg.gets[1] < 0 || cfg.gets[2] < 0 || cfg.ticks < 0 ||
	    cfg.ticks > 100 || cfg.attempts < 1 ||
	    (cfg.bitstate && (cfg.bitstate < 20 || cfg.bitstate > 36))) {
		fprintf(stderr, "bounds: puts 0..2, gets >= 0, ticks 0..100, attempts >= 1, bitstate 20..36\n");
		return 2;
	}
	describe(name, sizeof(name));
	r = search();
	printf("%s: %lu states, %lu transitions, %lu complete, depth %d, %lu violations, %.1fs\n",
	       name, r.states, r.transitions, r.complete, r.max_depth,
	       r.violations, r.secs);
	print_events("");
	return r.violations ? 1 : 0;
}
