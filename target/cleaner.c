// SPDX-License-Identifier: GPL-2.0
/*
 * The log cleaner: keeps an SSD's circular log from filling up.
 *
 * Runs in the SSD's commit kthread, between group commits, when fewer
 * units are free than the levels of common/scalio_space.h say (they
 * follow the room live data leaves).  One pass:
 *   1. read batches from the log head into the arena, oldest first, until
 *      enough would be freed or the arena (or the free space that the
 *      relocation itself needs) is used up;
 *   2. a segment is live iff its bucket's seg word still points to it
 *      (same start unit); every live segment becomes a bucket of a new
 *      batch -- through the commit engine, so it is rewritten with a new
 *      generation and published exactly like a client write.  A value
 *      extent is live iff its key's record still points to it; it is
 *      written again in the new batch and its bucket with it, the record
 *      pointing to the new copy;
 *   3. write that relocation batch (durable), then a checkpoint that
 *      records the new head, and only then treat the old units as free.
 *
 * Step 3's order is what makes cleaning crash-safe: until the checkpoint
 * is durable, recovery starts from an older checkpoint whose segments and
 * log chain are all still intact, because nothing has been written over
 * them.  Clients reading a moved segment at its old place are fine too:
 * they check the segment header against the seg word and retry.
 *
 * A pass that cannot gain space (everything live) stops the run; the
 * commit path then fails batches with -ENOSPC instead of overwriting.
 *
 * A batch at the head that does not read back intact (damaged on the SSD,
 * or dropped by a forced recovery) is stepped over rather than stopping
 * the cleaner for good: the next intact batch is found as recovery finds
 * it, and every live segment in between is relocated first.  Only a live
 * segment that is itself damaged (its keys would be lost) or a read error
 * stops it, and then it tries that head again only every
 * SCALIO_CLEANER_BACKOFF.
 */
#define pr_fmt(fmt) "scalio-target: cleaner: " fmt

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sort.h>

/* A head the cleaner cannot pass is tried again after this long. */
#define SCALIO_CLEANER_BACKOFF	(10 * HZ)

#include "scalio_store.h"
#include "trace.h"

/*
 * Bring @bucket (current seg word @w) into the relocation batch, reading
 * its segment into the arena at *@au unless the segment cache holds it.
 * Its units count against @budget either way: the relocation batch
 * rewrites the bucket.
 * Return: the bucket; ERR_PTR(-E2BIG) when it does not fit; -EIO.
 */
static struct scalio_tgt_tbucket *
scalio_tgt_cleaner_tb(struct scalio_tgt_ssd *ssd, u32 bucket, u64 w,
		      u32 budget, u32 *au)
{
	struct scalio_tgt_commit *c = ssd->commit;
	u32 i = scalio_tgt_owned_idx(ssd, bucket), len = scalio_seg_len(w);
	u64 gen = ssd->gens[i];
	const void *seg;
	void *buf;

	if (c->tb_of[i])
		return &c->tbs[c->tb_of[i] - 1];
	if (*au + len > budget)
		return ERR_PTR(-E2BIG);
	seg = scalio_tgt_segcache_lookup(ssd, bucket, w, gen);
	if (!seg) {
		buf = c->arena + ((size_t)*au << SCALIO_UNIT_SHIFT);
		if (scalio_tgt_seg_read_live(ssd, bucket, w, gen, buf)) {
			pr_err_ratelimited("%s: ssd %u: bucket %u: segment at unit %u unreadable: cannot clean\n",
					   ssd->store->name, ssd->index, bucket,
					   scalio_seg_unit(w));
			return ERR_PTR(-EIO);
		}
		seg = buf;
	}
	*au += len;
	return scalio_tgt_tb_get(ssd, bucket, seg);
}

/* Relocate @e's extent, whose value is at @value: a new one in the batch. */
static void scalio_tgt_cleaner_move_val(struct scalio_tgt_commit *c,
					struct scalio_tgt_tbucket *tb,
					struct scalio_tgt_kent *e,
					const u8 *value)
{
	e->flags = SCALIO_KENT_NEWVAL;
	e->value = value;
	e->vlen = e->vref.len;
	c->new_val_bytes += scalio_tgt_kent_val_bytes(e);
	tb->dirty = true;
}

/*
 * Mark the live value extents of the checked batch at @buf (log unit
 * @pos) for relocation.  An extent is live iff its key's record still
 * points to it (same byte address and generation); the record's bucket
 * comes into the relocation batch (scalio_tgt_cleaner_tb()), and the
 * extent is written again, from @buf, in front of it.
 * Return: 0; -E2BIG when a bucket does not fit @budget (the batch must not
 * be freed then; what was marked is only rewritten); -EIO, -ENOMEM.
 */
static int scalio_tgt_cleaner_vals(struct scalio_tgt_ssd *ssd, const void *buf,
				   u64 pos, u32 budget, u32 *au, u64 *vmoved)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	const struct scalio_val_hdr *vh;
	struct scalio_batch_iter it;
	u32 off;

	scalio_batch_iter_init(&it, buf);
	while (scalio_batch_next_val(&it, &vh, &off)) {
		const u8 *key = (const u8 *)(vh + 1);
		u32 bucket = scalio_hash_bucket(scalio_key_hash(st->hash_seed,
								key, vh->klen),
						st->nr_buckets);
		struct scalio_tgt_tbucket *tb;
		struct scalio_tgt_kent *e;
		u64 w;
		int k;

		if (scalio_bucket_ssd(bucket, st->nr_ssds) != ssd->index)
			continue;	/* no record here can point to it */
		w = scalio_tgt_index_get_seg(&st->index, bucket);
		if (!w)
			continue;
		tb = scalio_tgt_cleaner_tb(ssd, bucket, w, budget, au);
		if (IS_ERR(tb))
			return PTR_ERR(tb);
		k = scalio_tgt_tb_find(tb, key, vh->klen);
		if (k < 0)
			continue;
		e = &tb->ents[k];
		if (!(e->flags & SCALIO_KENT_VPTR) ||
		    e->vref.pos != (pos << SCALIO_UNIT_SHIFT) + off ||
		    e->vref.gen != le64_to_cpu(vh->gen))
			continue;	/* superseded: garbage */
		scalio_tgt_cleaner_move_val(c, tb, e, key + vh->klen);
		(*vmoved)++;
	}
	return 0;
}

/*
 * Step over a damaged range [@pos, +@dist units) holding value extents
 * nobody can walk: find the records that point into it (every bucket
 * with such values is read), read each extent on its own and relocate
 * it.  Return: 0 when all are relocated; 1 when @budget ran out first
 * (the head must stay: the next pass finds the rest); -E2BIG when not
 * even one fits; -EIO when one is unreadable (its value would be lost).
 */
static int scalio_tgt_cleaner_skip_vals(struct scalio_tgt_ssd *ssd, u64 pos,
					u64 dist, u32 budget, u32 *au,
					u64 *vmoved)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u32 i, k;

	for (i = 0; i < c->nr_owned && READ_ONCE(c->live_val_bytes); i++) {
		u32 bucket = ssd->index + i * st->nr_ssds;
		u64 w = scalio_tgt_index_get_seg(&st->index, bucket);
		struct scalio_tgt_tbucket *tb;
		u32 mark = *au, nr_tbs = c->nr_tbs;
		bool hit = false;

		if (!w)
			continue;
		tb = scalio_tgt_cleaner_tb(ssd, bucket, w, budget, au);
		if (PTR_ERR_OR_ZERO(tb) == -E2BIG)
			return *au ? 1 : -E2BIG;
		if (IS_ERR(tb))
			return PTR_ERR(tb);
		for (k = 0; k < tb->nr; k++) {
			struct scalio_tgt_kent *e = &tb->ents[k];
			const u8 *value;
			void *vbuf;
			int ret;

			if (!(e->flags & SCALIO_KENT_VPTR) ||
			    scalio_tgt_log_dist(ssd, pos, e->vref.pos >>
						SCALIO_UNIT_SHIFT) >= dist)
				continue;
			if (*au + SCALIO_VAL_READ_UNITS > budget)
				return 1;	/* this bucket's tb is in: kept */
			vbuf = c->arena + ((size_t)*au << SCALIO_UNIT_SHIFT);
			ret = scalio_tgt_val_read(ssd, e->key, e->klen,
						  &e->vref, vbuf, &value);
			if (ret) {
				pr_err_ratelimited("%s: ssd %u: bucket %u: live value extent at byte %llu, in a damaged log range, is unreadable (%d): cannot clean (target-setup --force-recover drops the bucket)\n",
						   st->name, ssd->index, bucket,
						   e->vref.pos, ret);
				return -EIO;
			}
			*au += SCALIO_VAL_READ_UNITS;
			scalio_tgt_cleaner_move_val(c, tb, e, value);
			(*vmoved)++;
			hit = true;
		}
		/* A bucket loaded only to look: not part of the batch. */
		if (!hit && c->nr_tbs > nr_tbs) {
			c->tb_of[i] = 0;
			c->nr_tbs--;
			*au = mark;
		}
	}
	return 0;
}

/* A live segment in damaged units: owned bucket index, units from @pos. */
struct scalio_tgt_skip_seg {
	u32	idx;
	u32	dist;
};

static int scalio_tgt_skip_seg_cmp(const void *a, const void *b)
{
	const struct scalio_tgt_skip_seg *x = a, *y = b;

	return x->dist < y->dist ? -1 : x->dist > y->dist;
}

/*
 * Step over the damaged batch @seq at @pos (the first of this pass): find
 * the next intact batch before the tail and relocate every live segment in
 * between, in unit order, each read into the arena at *@au and checked on
 * its own.  When they do not all fit @budget, the head only moves up to
 * the first one that does not (*@nseq stays @seq): the next pass goes on
 * from there.
 * Return: 0 with *@npos / *@nseq set; -EIO when no intact batch follows or
 * a live segment there is unreadable; -E2BIG when not even one fits;
 * -ENOMEM.
 */
static int scalio_tgt_cleaner_skip(struct scalio_tgt_ssd *ssd, u64 pos, u64 seq,
				   u32 budget, u32 *au, u64 *npos, u64 *nseq,
				   u64 *moved, u64 *vmoved)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 tail = ssd->log.tail, next = ssd->log.next_batch;
	struct scalio_tgt_skip_seg *segs = NULL;
	u32 i, n = 0, live = 0, unreadable = 0;
	u64 fpos, fseq, dist;
	int ret;

	/* Units it cannot read are stepped over: live ones are checked below. */
	ret = scalio_tgt_log_probe(ssd, pos, seq, next, &fpos, &fseq,
				   &unreadable);
	if (ret < 0)
		return ret;
	if (!ret) {
		/* Nothing intact after it: the damage runs up to the tail. */
		fpos = tail;
		fseq = next;
	}
	dist = scalio_tgt_log_dist(ssd, pos, fpos);
	if (fseq <= seq || dist > scalio_tgt_log_dist(ssd, pos, tail) ||
	    (!ret && dist > 2 * SCALIO_BATCH_MAX_UNITS)) {
		pr_err_ratelimited("%s: ssd %u: log head batch %llu at unit %llu unreadable and no intact batch follows: cannot clean\n",
				   st->name, ssd->index, seq, pos);
		return -EIO;
	}

	/* Each segment takes a sector at least: at most 8 * @dist of them. */
	if (dist) {
		segs = kvmalloc_array(dist * SCALIO_SECTORS_PER_UNIT,
				      sizeof(*segs), GFP_KERNEL);
		if (!segs)
			return -ENOMEM;
	}
	for (i = 0; i < c->nr_owned && n < dist * SCALIO_SECTORS_PER_UNIT; i++) {
		u64 w = scalio_tgt_index_get_seg(&st->index,
						 ssd->index + i * st->nr_ssds);
		u64 d;

		if (!w)
			continue;
		d = scalio_tgt_log_dist(ssd, pos, scalio_seg_unit(w));
		if (d < dist)
			segs[n++] = (struct scalio_tgt_skip_seg) { i, d };
	}
	sort(segs, n, sizeof(*segs), scalio_tgt_skip_seg_cmp, NULL);

	*npos = fpos;
	*nseq = fseq;
	for (i = 0; i < n; i++) {
		u32 bucket = ssd->index + segs[i].idx * st->nr_ssds;
		u64 w = scalio_tgt_index_get_seg(&st->index, bucket);
		u64 gen = ssd->gens[segs[i].idx];
		u32 unit = scalio_seg_unit(w), len = scalio_seg_len(w);
		struct scalio_tgt_tbucket *tb;
		void *buf;

		if (*au + len > budget) {
			ret = *au ? 0 : -E2BIG;
			/* Relocate these first; the head stops here. */
			*npos = unit;
			*nseq = seq;
			goto vals;
		}
		buf = c->arena + ((size_t)*au << SCALIO_UNIT_SHIFT);
		ret = scalio_tgt_seg_read_live(ssd, bucket, w, gen, buf);
		if (ret) {
			pr_err_ratelimited("%s: ssd %u: bucket %u: live segment at unit %u, in damaged log batch %llu, is unreadable (%d): cannot clean (target-setup --force-recover drops the bucket)\n",
					   st->name, ssd->index, bucket, unit,
					   seq, ret);
			ret = -EIO;
			goto out;
		}
		tb = scalio_tgt_tb_get(ssd, bucket, buf);
		if (IS_ERR(tb)) {
			ret = PTR_ERR(tb);
			goto out;
		}
		tb->dirty = true;
		*au += len;
		(*moved)++;
		live++;
	}
	pr_warn("%s: ssd %u: log head batches %llu..%llu (units %llu..+%llu) damaged or dropped: stepped over, %u live segment(s) relocated\n",
		st->name, ssd->index, seq, fseq - 1, pos, dist, live);
	ret = 0;
vals:
	/* The values stored apart in the range the head passes. */
	if (!ret) {
		ret = scalio_tgt_cleaner_skip_vals(ssd, pos,
						   scalio_tgt_log_dist(ssd, pos,
								       *npos),
						   budget, au, vmoved);
		if (ret == 1) {
			/* Relocate these first; the head stays. */
			*npos = pos;
			*nseq = seq;
			ret = 0;
		}
	}
out:
	kvfree(segs);
	return ret;
}

/*
 * Read head batches and mark their live segments for relocation.
 * Return: 0 with *@new_head / *@new_seq / *@freed set (*@stepped: the
 * pass stepped over, or into, a damaged range, or relocated only part of
 * the head batch's values), or -errno.
 */
static int scalio_tgt_cleaner_collect(struct scalio_tgt_ssd *ssd, u64 need,
				      u32 budget, u64 *new_head, u64 *new_seq,
				      u64 *freed, u64 *moved, u64 *vmoved,
				      bool *stepped)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 start = le64_to_cpu(ssd->log.sb.log_start);
	u64 end = scalio_tgt_log_end(ssd);
	u64 pos = ssd->log.head, seq = ssd->log.head_seq;
	/* Where a wrap was assumed (0: none; unit 0 is a superblock). */
	u64 free = scalio_tgt_log_free(ssd), wrap_from = 0;
	u32 au = 0, xau;
	int ret;

	*freed = 0;
	*moved = 0;
	*vmoved = 0;
	*stepped = false;
	if (pos == c->stuck_head && time_before(jiffies, c->stuck_until))
		return -EIO;
	while (pos != ssd->log.tail) {
		const struct scalio_seg_hdr *sh;
		struct scalio_batch_iter it;
		u32 sector, sectors;
		void *buf = c->arena + ((size_t)au << SCALIO_UNIT_SHIFT);
		u64 npos, nseq;
		int n;

		n = scalio_tgt_log_read_batch(ssd, pos, seq, buf, budget - au);
		if ((n == -EBADMSG || n == -ESTALE || n == -ENODATA) &&
		    pos != start && !wrap_from) {
			/* Units skipped by a wrap: the batch is at the start. */
			wrap_from = pos;
			*freed += end - pos;
			pos = start;
			continue;
		}
		if (n == -E2BIG)
			break;		/* the arena is full */
		if (n < 0) {
			if (wrap_from) {
				/* Not at the start either: damaged at @wrap_from. */
				*freed -= end - wrap_from;
				pos = wrap_from;
			}
			if (au)
				break;	/* relocate what is read first */
			ret = scalio_tgt_cleaner_skip(ssd, pos, seq, budget,
						      &au, &npos, &nseq, moved,
						      vmoved);
			if (ret) {
				/* Not again for a while: each try reads 8 MiB. */
				c->stuck_head = pos;
				c->stuck_until = jiffies + SCALIO_CLEANER_BACKOFF;
				return ret;
			}
			*stepped = true;
			*freed += scalio_tgt_log_dist(ssd, pos, npos);
			pos = npos;
			wrap_from = 0;
			if (nseq == seq)
				break;	/* partly relocated */
			seq = nseq;
			if (free + *freed >= need + 2 * ((u64)au + 1))
				break;
			continue;
		}
		wrap_from = 0;

		scalio_batch_iter_init(&it, buf);
		while (scalio_batch_next_seg(&it, &sh, &sector, &sectors)) {
			u32 bucket = le32_to_cpu(sh->bucket);
			u64 w = scalio_tgt_index_get_seg(&st->index, bucket);
			struct scalio_tgt_tbucket *tb;

			if (!w || scalio_seg_sector(w) !=
				  pos * SCALIO_SECTORS_PER_UNIT + sector)
				continue;	/* superseded: garbage */
			tb = scalio_tgt_tb_get(ssd, bucket, sh);
			if (IS_ERR(tb))
				return PTR_ERR(tb);
			tb->dirty = true;
			(*moved)++;
		}
		/* Buckets loaded for the batch's values go after it. */
		xau = au + n;
		ret = scalio_tgt_cleaner_vals(ssd, buf, pos, budget, &xau,
					      vmoved);
		if (ret == -E2BIG && au)
			break;		/* relocate what is read first */
		if (ret == -E2BIG && *vmoved) {
			/*
			 * The head batch's live values and their buckets
			 * need more than one relocation batch: move those
			 * marked, keep the head; the next pass finds fewer.
			 */
			*stepped = true;
			break;
		}
		if (ret)
			return ret;
		au = xau;
		*freed += n;
		pos = pos + n == end ? start : pos + n;
		seq++;
		/* Enough once the pass gains @need even if all was live. */
		if (free + *freed >= need + 2 * ((u64)au + 1))
			break;
	}
	*new_head = pos;
	*new_seq = seq;
	return 0;
}

/**
 * scalio_tgt_cleaner_run() - free log space until @need_units are free
 * @ssd:	SSD (commit kthread context, no batch being built)
 * @need_units:	target of free units
 *
 * Return: 0 when the target was reached, -ENOSPC when the live data
 * leaves no room to reach it, -EIO (a head it cannot pass), -E2BIG,
 * -ENOMEM.
 */
int scalio_tgt_cleaner_run(struct scalio_tgt_ssd *ssd, u64 need_units)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 t0 = scalio_tgt_task_cpu_ns(), total_moved = 0;
	int ret = 0;

	if (c->failed)
		return -EIO;
	if (scalio_tgt_log_free(ssd) >= need_units)
		return 0;
	scalio_tgt_stat_add(st, SCALIO_TS_CLEANER_RUNS, 1);

	while (scalio_tgt_log_free(ssd) < need_units && ssd->log.used_units) {
		u64 free = scalio_tgt_log_free(ssd);
		u64 old_head = ssd->log.head, old_seq = ssd->log.head_seq;
		u64 head, seq, freed, moved, vmoved;
		bool stepped;
		u32 budget;

		/* The relocation batch may have to wrap: twice its size. */
		budget = min_t(u64, SCALIO_BUF_UNITS, free / 2);
		if (budget < 3) {
			ret = -ENOSPC;
			break;
		}
		/*
		 * What it reads, less two units: the relocation batch (at
		 * most that plus a header sector) must itself fit what a
		 * later pass reads, or the cleaner would stop at it for good.
		 */
		ret = scalio_tgt_cleaner_collect(ssd, need_units, budget - 2,
						 &head, &seq, &freed, &moved,
						 &vmoved, &stepped);
		/* Nothing gained: head batch larger than the budget. */
		if (!ret && !freed && !moved && !vmoved && seq == old_seq)
			ret = -ENOSPC;
		if (!ret)
			ret = scalio_tgt_batch_write(ssd, 0);
		scalio_tgt_batch_reset(ssd);
		if (ret)
			break;

		ssd->log.head = head;
		ssd->log.head_seq = seq;
		WRITE_ONCE(ssd->log.used_units, ssd->log.used_units - freed);
		ret = scalio_tgt_checkpoint_write(ssd);
		if (ret) {
			/* Relocated copies are harmless; keep the old units. */
			ssd->log.head = old_head;
			ssd->log.head_seq = old_seq;
			WRITE_ONCE(ssd->log.used_units,
				   ssd->log.used_units + freed);
			break;
		}
		total_moved += moved;
		scalio_tgt_stat_add(st, SCALIO_TS_VALS_MOVED, vmoved);
		trace_scalio_tgt_cleaner_move(ssd, old_head, head, moved, vmoved,
					      freed);
		/*
		 * A pass in a damaged range, or over part of a head batch's
		 * values, may gain nothing yet (its batch takes what it
		 * moved), but each moves at least one segment or value out
		 * of it or the head past it.
		 */
		if (!stepped && scalio_tgt_log_free(ssd) <= free) {
			/* Everything was live: cleaning cannot gain space. */
			ret = -ENOSPC;
			break;
		}
	}
	if (ret == -ENOSPC)
		pr_warn_ratelimited("%s: ssd %u: log nearly full of live data (%llu of %llu units used)\n",
				    st->name, ssd->index, ssd->log.used_units,
				    le64_to_cpu(ssd->log.sb.log_units));
	scalio_tgt_stat_add(st, SCALIO_TS_CLEANER_MOVED, total_moved);
	scalio_tgt_stat_add(st, SCALIO_TS_CPU_NS_CLEANER,
			    scalio_tgt_task_cpu_ns() - t0);
	return ret;
}
