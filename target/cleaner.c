// SPDX-License-Identifier: GPL-2.0
/*
 * The log cleaner: keeps an SSD's circular log from filling up.
 *
 * Runs in the SSD's commit kthread, between group commits, when fewer
 * than scalio_log_low() units are free.  One pass:
 *   1. read batches from the log head into the arena, oldest first, until
 *      enough would be freed or the arena (or the free space that the
 *      relocation itself needs) is used up;
 *   2. a segment is live iff its block's seg word still points to it
 *      (same start unit); every live segment becomes a block of a new
 *      batch -- through the commit engine, so it is rewritten with a new
 *      generation and published exactly like a client write;
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
 */
#define pr_fmt(fmt) "scalio-target: cleaner: " fmt

#include <linux/module.h>
#include <linux/sched.h>

#include "scalio_store.h"

/*
 * Read head batches and mark their live segments for relocation.
 * Return: 0 with *@new_head / *@new_seq / *@freed set, or -errno.
 */
static int scalio_cleaner_collect(struct scalio_ssd *ssd, u64 need,
				  u32 budget, u64 *new_head, u64 *new_seq,
				  u64 *freed, u64 *moved)
{
	struct scalio_store *st = ssd->store;
	struct scalio_commit *c = ssd->commit;
	u64 start = le64_to_cpu(ssd->log.sb.log_start);
	u64 end = scalio_log_end(ssd);
	u64 pos = ssd->log.head, seq = ssd->log.head_seq;
	u64 free = scalio_log_free(ssd);
	u32 au = 0;

	*freed = 0;
	*moved = 0;
	while (pos != ssd->log.tail) {
		const struct scalio_seg_hdr *sh;
		u32 off = 1, units;
		void *buf = c->arena + ((size_t)au << SCALIO_UNIT_SHIFT);
		int n;

		n = scalio_log_read_batch(ssd, pos, seq, buf, budget - au);
		if (n == -EBADMSG || n == -ESTALE) {
			/* Units skipped by a wrap: the batch is at the start. */
			if (pos == start)
				goto corrupt;
			*freed += end - pos;
			pos = start;
			continue;
		}
		if (n == -E2BIG)
			break;		/* the arena is full */
		if (n < 0)
			goto corrupt;

		while (scalio_batch_next_seg(buf, &off, &sh, &units)) {
			u32 block = le32_to_cpu(sh->block);
			u64 w = scalio_index_get_seg(&st->index, block);
			struct scalio_tblock *tb;

			if (!w || scalio_seg_unit(w) != pos + off - units)
				continue;	/* superseded: garbage */
			tb = scalio_tb_get(ssd, block, sh);
			if (IS_ERR(tb))
				return PTR_ERR(tb);
			tb->dirty = true;
			(*moved)++;
		}
		au += n;
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

corrupt:
	pr_err_ratelimited("%s: ssd %u: log head batch %llu at unit %llu unreadable: cannot clean\n",
			   st->name, ssd->index, seq, pos);
	return -EIO;
}

/**
 * scalio_cleaner_run() - free log space until @need_units are free
 * @ssd:	SSD (commit kthread context, no batch being built)
 * @need_units:	target of free units
 *
 * Return: 0 when the target was reached, -ENOSPC when the live data
 * leaves no room to reach it, -EIO.
 */
int scalio_cleaner_run(struct scalio_ssd *ssd, u64 need_units)
{
	struct scalio_store *st = ssd->store;
	struct scalio_commit *c = ssd->commit;
	u64 t0 = current->se.sum_exec_runtime, total_moved = 0;
	int ret = 0;

	if (c->failed)
		return -EIO;
	if (scalio_log_free(ssd) >= need_units)
		return 0;
	scalio_stat_add(st, SCALIO_TS_CLEANER_RUNS, 1);

	while (scalio_log_free(ssd) < need_units && ssd->log.used_units) {
		u64 free = scalio_log_free(ssd);
		u64 old_head = ssd->log.head, old_seq = ssd->log.head_seq;
		u64 head, seq, freed, moved;
		u32 budget;

		/* The relocation batch may have to wrap: twice its size. */
		budget = min_t(u64, SCALIO_BUF_UNITS, free / 2);
		if (budget < 2) {
			ret = -ENOSPC;
			break;
		}
		ret = scalio_cleaner_collect(ssd, need_units, budget - 1,
					     &head, &seq, &freed, &moved);
		if (!ret && !freed)
			ret = -ENOSPC;	/* head batch larger than the budget */
		if (!ret)
			ret = scalio_batch_write(ssd, 0);
		scalio_batch_reset(ssd);
		if (ret)
			break;

		ssd->log.head = head;
		ssd->log.head_seq = seq;
		WRITE_ONCE(ssd->log.used_units, ssd->log.used_units - freed);
		ret = scalio_checkpoint_write(ssd);
		if (ret) {
			/* Relocated copies are harmless; keep the old units. */
			ssd->log.head = old_head;
			ssd->log.head_seq = old_seq;
			WRITE_ONCE(ssd->log.used_units,
				   ssd->log.used_units + freed);
			break;
		}
		total_moved += moved;
		if (scalio_log_free(ssd) <= free) {
			/* Everything was live: cleaning cannot gain space. */
			ret = -ENOSPC;
			break;
		}
	}
	if (ret == -ENOSPC)
		pr_warn_ratelimited("%s: ssd %u: log nearly full of live data (%llu of %llu units used)\n",
				    st->name, ssd->index, ssd->log.used_units,
				    le64_to_cpu(ssd->log.sb.log_units));
	scalio_stat_add(st, SCALIO_TS_CLEANER_MOVED, total_moved);
	scalio_stat_add(st, SCALIO_TS_CPU_NS_CLEANER,
			current->se.sum_exec_runtime - t0);
	return ret;
}
