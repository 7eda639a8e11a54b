// SPDX-License-Identifier: GPL-2.0
/*
 * Group commit: one kthread per SSD turns queued PUT/DELETE requests into
 * durable batches in that SSD's log.
 *
 * A round of the kthread:
 *   1. wait for requests.  The commit is self-clocking: the thread writes
 *      one batch at a time, so what arrives during a write forms the next
 *      batch.  It waits for more only when clients announced more and it
 *      is still arriving, and never longer than a few of this SSD's own
 *      write times (the batching policy, common/scalio_batch.h);
 *   2. if the log is short of space, run the cleaner;
 *   3. take up to batch_max requests; for each bucket they touch read the
 *      bucket's current segment (its seg word says where; from the segment
 *      cache, segcache.c, when it holds it) and apply the
 *      operations in arrival order to an in-memory copy of its records;
 *   4. lay the batch out at the log tail -- a header sector, then one new
 *      segment per changed bucket packed on sectors, all with generation =
 *      the batch's sequence number -- and write it with ONE durable write;
 *   5. only then publish the buckets' new seg words (one 8-byte store each)
 *      and complete every request.
 *
 * A request is acknowledged only after step 5, so every acknowledged write
 * is in a batch that recovery will find.  The cleaner (cleaner.c) uses the
 * same batch engine of log.c (scalio_tgt_tb_get / scalio_tgt_batch_write)
 * to re-append live segments; it runs in this kthread, between rounds, so
 * a bucket is never being rewritten by both at once.
 *
 * A bucket whose last key is deleted gets an empty segment (so recovery
 * sees the deletion) but its seg word becomes 0 ("no key here"), which
 * lets hosts answer misses on it without reading the SSD.
 */
#define pr_fmt(fmt) "scalio-target: commit: " fmt

#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>

#include "scalio_store.h"
#include "trace.h"

int scalio_tgt_commit_alloc(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c;
	u32 nr_owned = DIV_ROUND_UP(st->nr_buckets - ssd->index, st->nr_ssds);

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ssd->commit = c;
	c->nr_owned = nr_owned;
	INIT_LIST_HEAD(&c->batch);
	c->buf = vmalloc((size_t)SCALIO_BUF_UNITS << SCALIO_UNIT_SHIFT);
	c->arena = vmalloc((size_t)SCALIO_BUF_UNITS << SCALIO_UNIT_SHIFT);
	c->tb_of = kvcalloc(nr_owned, sizeof(*c->tb_of), GFP_KERNEL);
	c->tbs = kvcalloc(SCALIO_TB_MAX, sizeof(*c->tbs), GFP_KERNEL);
	ssd->gens = kvcalloc(nr_owned, sizeof(*ssd->gens), GFP_KERNEL);
	if (!c->buf || !c->arena || !c->tb_of || !c->tbs || !ssd->gens ||
	    scalio_tgt_segcache_alloc(ssd)) {
		scalio_tgt_commit_free(ssd);
		return -ENOMEM;
	}

	spin_lock_irq(&ssd->lock);
	INIT_LIST_HEAD(&ssd->pending);
	INIT_LIST_HEAD(&ssd->flows);
	INIT_LIST_HEAD(&ssd->flow0.reqs);
	INIT_LIST_HEAD(&ssd->flow0.entry);
	ssd->nr_pending = 0;
	scalio_batch_init(&ssd->policy, st->batch_max,
			  SCALIO_BATCH_SOFT_UNITS * SCALIO_UNIT_SIZE / 2,
			  (u64)st->batch_timeout_us * NSEC_PER_USEC);
	spin_unlock_irq(&ssd->lock);
	memset(&ssd->log, 0, sizeof(ssd->log));
	return 0;
}

void scalio_tgt_commit_free(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_commit *c = ssd->commit;
	u32 i;

	if (!c)
		return;
	scalio_tgt_segcache_free(ssd);
	if (c->tbs) {
		for (i = 0; i < SCALIO_TB_MAX; i++)
			kvfree(c->tbs[i].ents);
		kvfree(c->tbs);
	}
	kvfree(c->tb_of);
	vfree(c->ckpt);
	vfree(c->arena);
	vfree(c->buf);
	kvfree(ssd->gens);
	ssd->gens = NULL;
	kfree(c);
	ssd->commit = NULL;
}

/**
 * scalio_tgt_flows_alloc() - the flows of a new writer
 * @gfp:	allocation flags
 *
 * One per possible SSD of a store (SCALIO_MAX_SSDS of 32 bytes: a store's
 * SSDs may change while it is disabled, a writer lives while it is
 * enabled).  Set each request's @flows to them; kfree() them once the
 * writer's last request was answered.
 *
 * Return: the flows, or NULL.
 */
struct scalio_tgt_flow *scalio_tgt_flows_alloc(gfp_t gfp)
{
	struct scalio_tgt_flow *flows;
	u32 i;

	flows = kcalloc(SCALIO_MAX_SSDS, sizeof(*flows), gfp);
	if (!flows)
		return NULL;
	for (i = 0; i < SCALIO_MAX_SSDS; i++) {
		INIT_LIST_HEAD(&flows[i].reqs);
		INIT_LIST_HEAD(&flows[i].entry);
	}
	return flows;
}

static struct scalio_tgt_flow *scalio_tgt_req_flow(struct scalio_tgt_ssd *ssd,
						   struct scalio_tgt_treq *req)
{
	return req->flows ? &req->flows[ssd->index] : &ssd->flow0;
}

/* Queue @req at the tail (@head false) or head of its flow.  ssd->lock. */
static void scalio_tgt_flow_add(struct scalio_tgt_ssd *ssd,
				struct scalio_tgt_treq *req, bool head)
{
	struct scalio_tgt_flow *f = scalio_tgt_req_flow(ssd, req);

	if (head)
		list_add(&req->flow_entry, &f->reqs);
	else
		list_add_tail(&req->flow_entry, &f->reqs);
	if (list_empty(&f->entry)) {
		/* a flow put back (head) was being served: it goes first */
		if (head)
			list_add(&f->entry, &ssd->flows);
		else
			list_add_tail(&f->entry, &ssd->flows);
	}
}

/* The next request to serve: the first of the flow whose turn it is. */
static struct scalio_tgt_treq *scalio_tgt_flow_peek(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_flow *f;

	f = list_first_entry_or_null(&ssd->flows, struct scalio_tgt_flow, entry);
	return f ? list_first_entry(&f->reqs, struct scalio_tgt_treq,
				    flow_entry) : NULL;
}

/*
 * Take @req off its flow; the flow goes to the back of the line, or off
 * it when it has no more.  ssd->lock.
 */
static void scalio_tgt_flow_take(struct scalio_tgt_ssd *ssd,
				 struct scalio_tgt_treq *req)
{
	struct scalio_tgt_flow *f = scalio_tgt_req_flow(ssd, req);

	list_del_init(&req->flow_entry);
	if (list_empty(&f->reqs))
		list_del_init(&f->entry);
	else
		list_move_tail(&f->entry, &ssd->flows);
}

/*
 * Bring @bucket into the batch: its current segment comes from the segment
 * cache if that holds exactly it, else is read into the arena.
 * Return: the bucket, NULL if the arena has no room (defer the request),
 * or an ERR_PTR.
 */
static struct scalio_tgt_tbucket *scalio_tgt_tb_load(struct scalio_tgt_ssd *ssd,
						    u32 bucket)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u32 i = scalio_tgt_owned_idx(ssd, bucket);
	u64 seg, gen = ssd->gens[i];
	u32 len;
	void *buf;
	int ret;

	if (c->tb_of[i])
		return &c->tbs[c->tb_of[i] - 1];
	seg = scalio_tgt_index_get_seg(&st->index, bucket);
	if (!seg)
		return scalio_tgt_tb_get(ssd, bucket, NULL);
	buf = (void *)scalio_tgt_segcache_lookup(ssd, bucket, seg, gen);
	if (buf)
		return scalio_tgt_tb_get(ssd, bucket, buf);
	len = scalio_seg_len(seg);
	if (c->arena_used + len > SCALIO_BUF_UNITS)
		return NULL;
	buf = c->arena + ((size_t)c->arena_used << SCALIO_UNIT_SHIFT);
	ret = scalio_tgt_seg_read_live(ssd, bucket, seg, gen, buf);
	if (ret) {
		pr_err_ratelimited("%s: ssd %u: bucket %u: segment at unit %u unreadable (%d)\n",
				   st->name, ssd->index, bucket,
				   scalio_seg_unit(seg), ret);
		return ERR_PTR(-EIO);
	}
	c->arena_used += len;
	return scalio_tgt_tb_get(ssd, bucket, buf);
}

/* Drop what @e accounts for in its bucket and the batch. */
static void scalio_tgt_kent_forget(struct scalio_tgt_commit *c,
				   struct scalio_tgt_tbucket *tb,
				   const struct scalio_tgt_kent *e)
{
	tb->bytes -= scalio_tgt_kent_rec_bytes(e);
	tb->val_bytes -= scalio_tgt_kent_val_bytes(e);
	if (e->flags & SCALIO_KENT_NEWVAL)
		c->new_val_bytes -= scalio_tgt_kent_val_bytes(e);
}

/*
 * Apply @req to its bucket.  A value longer than the store's inline limit
 * goes to a new extent of the batch; the record then holds its pointer.
 * Unless @may_grow, a PUT that adds live data (a larger segment or a
 * larger extent) is refused with -ENOSPC: the log keeps its last
 * SCALIO_SHRINK_RESERVE units for requests that do not.
 */
static int scalio_tgt_tb_apply(struct scalio_tgt_commit *c,
			       struct scalio_tgt_tbucket *tb,
			       struct scalio_tgt_treq *req, u32 inline_max,
			       bool may_grow)
{
	int k = scalio_tgt_tb_find(tb, req->key, req->klen);
	struct scalio_tgt_kent ne = {
		.key = req->key, .value = req->value,
		.klen = req->klen, .vlen = req->vlen,
	};
	u32 bytes, old_bytes = 0, old_vals = 0;
	int ret;

	if (req->op == SCALIO_MSG_DELETE) {
		if (k < 0)
			return -ENOENT;
		scalio_tgt_kent_forget(c, tb, &tb->ents[k]);
		tb->ents[k] = tb->ents[--tb->nr];
		tb->dirty = true;
		return 0;
	}

	if (req->vlen > inline_max)
		ne.flags = SCALIO_KENT_NEWVAL;
	if (k >= 0) {
		old_bytes = scalio_tgt_kent_rec_bytes(&tb->ents[k]);
		old_vals = scalio_tgt_kent_val_bytes(&tb->ents[k]);
	}
	bytes = tb->bytes - old_bytes + scalio_tgt_kent_rec_bytes(&ne);
	if (bytes > SCALIO_SEG_MAX_BYTES)
		return -EFBIG;	/* this bucket's segment is full */
	if (bytes + scalio_tgt_kent_val_bytes(&ne) >
	    tb->bytes + old_vals && !may_grow)
		return -ENOSPC;
	if (k < 0) {
		ret = scalio_tgt_tb_reserve(tb, tb->nr + 1);
		if (ret)
			return ret;
		k = tb->nr++;
	} else {
		scalio_tgt_kent_forget(c, tb, &tb->ents[k]);
	}
	tb->ents[k] = ne;
	tb->bytes = bytes;
	tb->val_bytes += scalio_tgt_kent_val_bytes(&ne);
	c->new_val_bytes += scalio_tgt_kent_val_bytes(&ne);
	tb->dirty = true;
	return 0;
}

/* Put @reqs (in order) back at the head of the queue. */
static void scalio_tgt_commit_requeue(struct scalio_tgt_ssd *ssd,
				      struct list_head *reqs)
{
	struct scalio_tgt_commit *c = ssd->commit;
	struct scalio_tgt_treq *req;
	unsigned long flags;
	u32 nr = 0;
	u64 bytes = 0;

	list_for_each_entry(req, reqs, entry) {
		nr++;
		bytes += req->klen + (req->op == SCALIO_MSG_PUT ? req->vlen : 0);
	}
	spin_lock_irqsave(&ssd->lock, flags);
	/*
	 * Each flow's share of @reqs is the tail of what was taken from it,
	 * in its order: put back last to first, at the heads.
	 */
	list_for_each_entry_reverse(req, reqs, entry)
		scalio_tgt_flow_add(ssd, req, true);
	list_splice(reqs, &ssd->pending);
	ssd->nr_pending += nr;
	c->pending_bytes += bytes;
	spin_unlock_irqrestore(&ssd->lock, flags);
	INIT_LIST_HEAD(reqs);
}

/* One group commit: steps 3-5 of the file comment. */
static void scalio_tgt_commit_round(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	struct scalio_tgt_treq *req, *tmp;
	LIST_HEAD(applied);
	u32 nr = 0, bytes = 0, est = 1, k, i, sectors = 1, units = 0;
	u32 grown, refused = 0, inline_max = READ_ONCE(st->value_inline_max);
	u64 t0 = 0, seq = 0, written, tw, now = ktime_get_ns();
	u64 free = scalio_tgt_log_free(ssd);
	bool may_grow;
	int ret;

	/* Take the batch: one request of each writer in turn. */
	spin_lock_irq(&ssd->lock);
	while ((req = scalio_tgt_flow_peek(ssd))) {
		u32 b = req->klen +
			(req->op == SCALIO_MSG_PUT ? req->vlen : 0);

		if (!scalio_batch_fits(&ssd->policy, nr, bytes, b))
			break;
		scalio_tgt_flow_take(ssd, req);
		req->taken_ns = now;
		list_move_tail(&req->entry, &c->batch);
		nr++;
		bytes += b;
		ssd->nr_pending--;
		c->pending_bytes -= b;
	}
	spin_unlock_irq(&ssd->lock);
	if (!nr)
		return;

	/*
	 * Apply in arrival order.  Once the batch is estimated full (or the
	 * arena cannot hold another old segment) the remaining requests go
	 * back to the head of the queue for the next round; the first
	 * request always fits.  @est counts the header and segment sectors;
	 * the new extents' sectors come on top.
	 */
	k = 0;
	list_for_each_entry(req, &c->batch, entry) {
		struct scalio_tgt_tbucket *tb;
		u32 before;

		tb = scalio_tgt_batch_units(est + scalio_tgt_val_sectors(c)) >
		     SCALIO_BATCH_SOFT_UNITS ?
		     NULL : scalio_tgt_tb_load(ssd, req->bucket);
		if (!tb)
			break;
		if (IS_ERR(tb)) {
			c->status[k++] = PTR_ERR(tb) == -ENOMEM ? -ENOMEM : -EIO;
			continue;
		}
		before = scalio_tgt_tb_sectors(tb);
		/* Room for the batch with this request at its largest? */
		grown = est - before +
			DIV_ROUND_UP(tb->bytes +
				     scalio_rec_size(req->klen,
						     max_t(u32, req->vlen,
							   sizeof(struct scalio_vptr))),
				     SCALIO_SECTOR_SIZE) +
			DIV_ROUND_UP(c->new_val_bytes +
				     scalio_val_size(req->klen, req->vlen),
				     SCALIO_SECTOR_SIZE);
		may_grow = free >= SCALIO_LOG_RESERVE + SCALIO_SHRINK_RESERVE +
			   scalio_tgt_log_consume(ssd,
					scalio_tgt_batch_units(grown));
		c->status[k] = scalio_tgt_tb_apply(c, tb, req, inline_max,
						   may_grow);
		if (c->status[k++] == -ENOSPC)
			refused++;
		est = est - before + scalio_tgt_tb_sectors(tb);
	}
	if (refused)
		pr_warn_ratelimited("%s: ssd %u: log nearly full: refusing %u PUTs that add data (DELETEs and PUTs that do not grow still go in)\n",
				    st->name, ssd->index, refused);
	if (k < nr) {
		list_cut_before(&applied, &c->batch, &req->entry);
		scalio_tgt_commit_requeue(ssd, &c->batch);
		list_splice_init(&applied, &c->batch);
	}

	if (trace_scalio_tgt_batch_formed_enabled() ||
	    trace_scalio_tgt_batch_committed_enabled()) {
		sectors += scalio_tgt_val_sectors(c);
		for (i = 0; i < c->nr_tbs; i++)
			sectors += scalio_tgt_tb_sectors(&c->tbs[i]);
		if (sectors > 1)
			units = scalio_tgt_batch_units(sectors);
		t0 = ktime_get_ns();
	}
	trace_scalio_tgt_batch_formed(ssd, k, c->nr_tbs, units);
	written = ssd->log.next_batch;
	tw = ktime_get_ns();
	ret = scalio_tgt_batch_write(ssd, SCALIO_LOG_RESERVE);
	tw = ktime_get_ns() - tw;
	if (!ret && ssd->log.next_batch != written) {
		/* What a write of this SSD costs: it bounds the next waits. */
		spin_lock_irq(&ssd->lock);
		scalio_batch_written(&ssd->policy, tw);
		spin_unlock_irq(&ssd->lock);
		scalio_tgt_stat_add(st, SCALIO_TS_COMMIT_WRITE_NS, tw);
	}
	if (trace_scalio_tgt_batch_committed_enabled()) {
		if (!ret && units)
			seq = ssd->log.next_batch - 1;
		trace_scalio_tgt_batch_committed(ssd, seq, k, ret ? 0 : units,
						 ret, ktime_get_ns() - t0);
	}
	if (ret == -ENOSPC)
		pr_warn_ratelimited("%s: ssd %u: log full: failing a batch of %u requests\n",
				    st->name, ssd->index, k);

	scalio_tgt_stat_add(st, SCALIO_TS_BATCHES, 1);
	scalio_tgt_stat_add(st, SCALIO_TS_BATCHED_OPS, k);
	/*
	 * A failed write fails every request, -ENOENT ones too: their
	 * answer may depend on an earlier request of the same batch.
	 */
	k = 0;
	list_for_each_entry_safe(req, tmp, &c->batch, entry) {
		int s = ret ? ret : c->status[k];

		k++;
		list_del_init(&req->entry);
		req->seg = 0;
		if (!s) {
			u32 i = scalio_tgt_owned_idx(ssd, req->bucket);

			req->seg = c->tbs[c->tb_of[i] - 1].seg;
		}
		req->done(req, s);
		atomic64_inc(&ssd->reqs_out);
	}
	wake_up_all(&ssd->done_wq);
	scalio_tgt_batch_reset(ssd);
}

/*
 * The company the queued requests announced (scalio_batch_wait_ns()): the
 * largest inflight hint, or 0 if one carries none.  Only the first
 * batch_max requests count: with more queued the batch is full anyway.
 * Caller holds ssd->lock.
 */
static u32 scalio_tgt_commit_announced(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_treq *req;
	u32 max = 0, n = 0;

	list_for_each_entry(req, &ssd->pending, entry) {
		if (n++ == ssd->policy.batch_max)
			break;
		if (!req->inflight)
			return 0;
		max = max_t(u32, max, req->inflight);
	}
	return max;
}

/*
 * Ask the policy whether to wait for more requests, and wait (on an
 * hrtimer: timeouts are in microseconds) until it says go, a request
 * arrives and changes its mind, or the thread is told to stop.
 */
static void scalio_tgt_commit_wait_batch(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_commit *c = ssd->commit;
	struct scalio_tgt_treq *first;
	DEFINE_WAIT(wait);
	u64 wait_ns, t0 = 0;
	ktime_t kt;
	u32 nr;

	for (;;) {
		spin_lock_irq(&ssd->lock);
		first = list_first_entry_or_null(&ssd->pending,
						 struct scalio_tgt_treq, entry);
		nr = ssd->nr_pending;
		wait_ns = first ? scalio_batch_wait_ns(&ssd->policy, nr,
				min_t(u64, c->pending_bytes, U32_MAX),
				first->arrival_ns, ktime_get_ns(),
				scalio_tgt_commit_announced(ssd)) : 0;
		spin_unlock_irq(&ssd->lock);
		if (!wait_ns || kthread_should_stop())
			break;
		if (!t0)
			t0 = ktime_get_ns();

		prepare_to_wait(&ssd->wq, &wait, TASK_IDLE);
		if (READ_ONCE(ssd->nr_pending) == nr &&
		    !kthread_should_stop()) {
			kt = ns_to_ktime(wait_ns);
			schedule_hrtimeout(&kt, HRTIMER_MODE_REL);
		}
		finish_wait(&ssd->wq, &wait);
	}
	if (t0)
		scalio_tgt_stat_add(ssd->store, SCALIO_TS_COMMIT_WAIT_NS,
				    ktime_get_ns() - t0);
}

/*
 * Handle a resume request (commit kthread, between rounds).  A failed SSD
 * is probed with the one write that makes resuming safe: the header unit
 * of the failed batch is overwritten with zeroes, durably (preflush +
 * FUA), so that whatever of that batch reached the media can never pass
 * for the batch of the same sequence number that the next round writes at
 * the tail.  The unit is free log space: nothing acknowledged is there.
 * Only if that write succeeds does the SSD take writes again; else it
 * stays failed.  An SSD failed only by a read error is probed with a read
 * of its superblock (a success clears ssd->io_failed).
 */
static void scalio_tgt_commit_resume(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_commit *c = ssd->commit;
	int ret = 0;

	if (c->failed) {
		memset(c->buf, 0, SCALIO_UNIT_SIZE);
		ret = scalio_tgt_ssd_write(ssd, c->failed_pos, c->buf, 1);
		if (!ret) {
			c->failed = false;
			pr_info("%s: ssd %u: probe write at unit %llu succeeded: writes resumed\n",
				ssd->store->name, ssd->index, c->failed_pos);
		}
	} else if (READ_ONCE(ssd->io_failed)) {
		ret = scalio_tgt_ssd_read(ssd, SCALIO_SB_UNIT, c->buf, 1);
	}
	spin_lock_irq(&ssd->lock);
	c->resume_ret = ret ? -EIO : 0;
	c->resume = false;
	spin_unlock_irq(&ssd->lock);
	wake_up_all(&ssd->done_wq);
}

/**
 * scalio_tgt_store_resume() - let failed SSDs take writes again
 * @st:		enabled store (st->lock held)
 *
 * After a log write error an SSD refuses writes (scalio_tgt_batch_write()).
 * Once the operator has cleared the fault, this probes every failed SSD
 * in its commit kthread (scalio_tgt_commit_resume()) and lets those that pass
 * take writes again, without the disable / enable cycle.  SSDs that are
 * not failed are left alone.
 *
 * Return: 0 when no SSD is failed any more; -EIO when a probe failed (that
 * SSD stays failed; the others are still probed); -EINTR (fatal signal;
 * the probe may still complete).
 */
int scalio_tgt_store_resume(struct scalio_tgt_store *st)
{
	int ret = 0, r;
	u32 i;

	for (i = 0; i < st->nr_ssds; i++) {
		struct scalio_tgt_ssd *ssd = st->ssds[i];
		struct scalio_tgt_commit *c = ssd ? ssd->commit : NULL;

		if (!c || !ssd->thread || !scalio_tgt_commit_failed(ssd))
			continue;
		spin_lock_irq(&ssd->lock);
		c->resume = true;
		spin_unlock_irq(&ssd->lock);
		wake_up(&ssd->wq);
		if (wait_event_killable(ssd->done_wq, !READ_ONCE(c->resume)))
			return -EINTR;
		spin_lock_irq(&ssd->lock);
		r = c->resume_ret;
		spin_unlock_irq(&ssd->lock);
		if (r) {
			pr_err("%s: ssd %u: probe failed: writes still refused\n",
			       st->name, ssd->index);
			ret = r;
		}
	}
	return ret;
}

static int scalio_tgt_commit_thread(void *data)
{
	struct scalio_tgt_ssd *ssd = data;
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 log_units = le64_to_cpu(ssd->log.sb.log_units);
	struct scalio_tgt_treq *req, *tmp;
	struct scalio_space_levels lv;
	LIST_HEAD(dead);
	u64 t0;

	while (!kthread_should_stop()) {
		wait_event_idle(ssd->wq, READ_ONCE(ssd->nr_pending) ||
				READ_ONCE(c->resume) || kthread_should_stop());
		if (kthread_should_stop())
			break;
		if (READ_ONCE(c->resume))
			scalio_tgt_commit_resume(ssd);
		if (!READ_ONCE(ssd->nr_pending))
			continue;
		scalio_tgt_commit_wait_batch(ssd);

		/* Space first, while no batch is being built. */
		scalio_tgt_log_levels(ssd, &lv);
		if (scalio_tgt_log_free(ssd) < lv.start)
			scalio_tgt_cleaner_run(ssd, lv.goal);

		t0 = scalio_tgt_task_cpu_ns();
		scalio_tgt_commit_round(ssd);
		/* Bound the log recovery has to replay. */
		if (c->since_ckpt > log_units / 4)
			scalio_tgt_checkpoint_write(ssd);
		scalio_tgt_stat_add(st, SCALIO_TS_CPU_NS_COMMIT,
				    scalio_tgt_task_cpu_ns() - t0);
		cond_resched();
	}

	spin_lock_irq(&ssd->lock);
	c->stopping = true;
	list_for_each_entry(req, &ssd->pending, entry)
		scalio_tgt_flow_take(ssd, req);
	list_splice_init(&ssd->pending, &dead);
	ssd->nr_pending = 0;
	c->pending_bytes = 0;
	spin_unlock_irq(&ssd->lock);
	list_for_each_entry_safe(req, tmp, &dead, entry) {
		list_del_init(&req->entry);
		req->done(req, -ESHUTDOWN);
		atomic64_inc(&ssd->reqs_out);
	}
	wake_up_all(&ssd->done_wq);
	if (scalio_tgt_checkpoint_write(ssd))
		pr_err("%s: ssd %u: final checkpoint failed; the next enable replays the log\n",
		       st->name, ssd->index);
	return 0;
}

int scalio_tgt_commit_start(struct scalio_tgt_ssd *ssd)
{
	struct task_struct *t;

	t = kthread_run(scalio_tgt_commit_thread, ssd, "scalio-%s-%u",
			ssd->store->name, ssd->index);
	if (IS_ERR(t)) {
		pr_err("%s: ssd %u: cannot start the commit thread\n",
		       ssd->store->name, ssd->index);
		return PTR_ERR(t);
	}
	ssd->thread = t;
	return 0;
}

void scalio_tgt_commit_stop(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_commit *c = ssd->commit;

	if (ssd->thread) {
		kthread_stop(ssd->thread);
		ssd->thread = NULL;
	} else if (c) {
		spin_lock_irq(&ssd->lock);
		c->stopping = true;
		spin_unlock_irq(&ssd->lock);
	}
}

void scalio_tgt_store_write(struct scalio_tgt_store *st,
			    struct scalio_tgt_treq *req)
{
	struct scalio_tgt_ssd *ssd;
	struct scalio_tgt_commit *c;
	unsigned long flags;
	u32 bytes;

	if ((req->op != SCALIO_MSG_PUT && req->op != SCALIO_MSG_DELETE) ||
	    !req->klen || req->klen > SCALIO_KEY_MAX ||
	    (req->op == SCALIO_MSG_PUT &&
	     (req->vlen > SCALIO_VALUE_MAX || (req->vlen && !req->value)))) {
		req->done(req, -EINVAL);
		return;
	}
	if (req->op == SCALIO_MSG_DELETE)
		req->vlen = 0;
	bytes = req->klen + req->vlen;
	req->bucket = scalio_hash_bucket(scalio_key_hash(st->hash_seed, req->key,
						       req->klen),
				       st->nr_buckets);
	req->seg = 0;
	ssd = st->ssds[scalio_bucket_ssd(req->bucket, st->nr_ssds)];
	c = ssd->commit;
	req->arrival_ns = ktime_get_ns();

	spin_lock_irqsave(&ssd->lock, flags);
	if (!c || c->stopping) {
		spin_unlock_irqrestore(&ssd->lock, flags);
		req->done(req, -ESHUTDOWN);
		return;
	}
	list_add_tail(&req->entry, &ssd->pending);
	scalio_tgt_flow_add(ssd, req, false);
	WRITE_ONCE(ssd->nr_pending, ssd->nr_pending + 1);
	ssd->reqs_in++;
	c->pending_bytes += bytes;
	scalio_batch_arrival(&ssd->policy, req->arrival_ns);
	spin_unlock_irqrestore(&ssd->lock, flags);
	wake_up(&ssd->wq);
}

/**
 * scalio_tgt_store_write_barrier() - wait until every write queued so far is
 *	answered
 * @st:		store
 * @timeout:	in jiffies
 *
 * A client that lost its connection may have writes of the old connection
 * still queued here; it invalidates their keys after its handshake, which
 * is only sound once they are durable and seg updated.  HELLO waits here.
 *
 * Return: 0, -ETIMEDOUT, or -EINTR (fatal signal).
 */
int scalio_tgt_store_write_barrier(struct scalio_tgt_store *st,
				   unsigned long timeout)
{
	unsigned long end = jiffies + timeout;
	u32 i;

	for (i = 0; i < st->nr_ssds; i++) {
		struct scalio_tgt_ssd *ssd = st->ssds[i];
		struct scalio_tgt_commit *c = ssd->commit;
		long left;
		u64 want;

		spin_lock_irq(&ssd->lock);
		want = ssd->reqs_in;
		spin_unlock_irq(&ssd->lock);
		left = (long)(end - jiffies);
		if (left <= 0)
			left = 1;
		left = wait_event_killable_timeout(ssd->done_wq,
						   atomic64_read(&ssd->reqs_out) >= want ||
				!c || READ_ONCE(c->stopping), left);
		if (left < 0)
			return -EINTR;
		if (!left)
			return -ETIMEDOUT;
	}
	return 0;
}
