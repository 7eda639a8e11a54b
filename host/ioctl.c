// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of /dev/scalio/<store>: copy the argument in, validate every
 * field (uapi/scalio.h), run the operation on kernel buffers, copy the
 * result out.  Validation order: copy (-EFAULT), flags/reserved/sizes
 * (-EINVAL, -E2BIG), then the operation.
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "scalio_host.h"

/* MULTI runs its ops here, all at once. */
static struct workqueue_struct *scalio_host_multi_wq;

/* SCALIO_IOC_STATS as user space built before nr_buckets had it. */
#define SCALIO_IOC_STATS_VER0	_IOC(_IOC_READ | _IOC_WRITE, SCALIO_IOC_MAGIC, \
				     _IOC_NR(SCALIO_IOC_STATS), \
				     SCALIO_STATS_SIZE_VER0)

static bool scalio_host_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/*
 * Checks common to every struct scalio_kv; @op is the operation it is
 * used for.  kv->result is an output and is not checked.
 */
static int scalio_host_kv_check(const struct scalio_kv *kv, u32 op)
{
	if (kv->flags || !scalio_host_zero(kv->reserved, sizeof(kv->reserved)))
		return -EINVAL;
	if (!kv->klen || kv->klen > SCALIO_KEY_MAX)
		return -EINVAL;
	switch (op) {
	case SCALIO_OP_PUT:
		if (kv->vlen > SCALIO_VALUE_MAX)
			return -E2BIG;
		break;
	case SCALIO_OP_DELETE:
		if (kv->value || kv->vlen)
			return -EINVAL;
		break;
	}
	return 0;
}

/*
 * Copy key and (PUT) value in and allocate the GET buffer.  On error the
 * op must not run; its result is the error.
 */
int scalio_host_kop_prepare(struct scalio_host_kop *k, struct scalio_host_hstore *hs,
			    u32 op, const struct scalio_kv *kv)
{
	int ret;

	k->hs = hs;
	k->op = op;
	k->value = NULL;
	k->result = 0;
	ret = scalio_host_kv_check(kv, op);
	if (ret)
		return ret;
	k->klen = kv->klen;
	if (copy_from_user(k->key, u64_to_user_ptr(kv->key), kv->klen))
		return -EFAULT;
	switch (op) {
	case SCALIO_OP_GET:
		k->value = kvmalloc(SCALIO_VALUE_MAX, GFP_KERNEL);
		if (!k->value)
			return -ENOMEM;
		k->vlen = 0;
		break;
	case SCALIO_OP_PUT:
		k->vlen = kv->vlen;
		if (!k->vlen)
			break;
		k->value = vmemdup_user(u64_to_user_ptr(kv->value), k->vlen);
		if (IS_ERR(k->value)) {
			ret = PTR_ERR(k->value);
			k->value = NULL;
			return ret;
		}
		break;
	case SCALIO_OP_DELETE:
		k->vlen = 0;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

void scalio_host_kop_run(struct scalio_host_kop *k)
{
	switch (k->op) {
	case SCALIO_OP_GET:
		k->result = scalio_host_get(k->hs, k->key, k->klen, k->value,
					    &k->vlen);
		break;
	case SCALIO_OP_PUT:
		k->result = scalio_host_put(k->hs, k->key, k->klen, k->value,
					    k->vlen);
		break;
	case SCALIO_OP_DELETE:
		k->result = scalio_host_delete(k->hs, k->key, k->klen);
		break;
	default:
		k->result = -EINVAL;
		break;
	}
}

/*
 * Hand a finished op's outcome back into @kv (and, for a GET, the value to
 * the user's buffer).  Return: the op's final result.
 */
int scalio_host_kop_finish(struct scalio_host_kop *k, struct scalio_kv *kv)
{
	int ret = k->result;

	if (k->op == SCALIO_OP_GET && !ret) {
		if (k->vlen > kv->vlen)
			ret = -EOVERFLOW;	/* kv->vlen: the size needed */
		else if (k->vlen &&
			 copy_to_user(u64_to_user_ptr(kv->value), k->value,
				      k->vlen))
			ret = -EFAULT;
		kv->vlen = k->vlen;
	}
	return ret;
}

void scalio_host_kop_free(struct scalio_host_kop *k)
{
	kvfree(k->value);
	k->value = NULL;
}

static int scalio_host_ioctl_kv(struct scalio_host_hstore *hs, u32 op,
				struct scalio_kv __user *argp)
{
	struct scalio_kv kv;
	struct scalio_host_kop k;
	int ret;

	if (copy_from_user(&kv, argp, sizeof(kv)))
		return -EFAULT;
	ret = scalio_host_kop_prepare(&k, hs, op, &kv);
	if (ret)
		goto out;
	scalio_host_kop_run(&k);
	ret = scalio_host_kop_finish(&k, &kv);
	if (op == SCALIO_OP_GET && (!ret || ret == -EOVERFLOW) &&
	    put_user(kv.vlen, &argp->vlen))
		ret = -EFAULT;
out:
	scalio_host_kop_free(&k);
	return ret;
}

static void scalio_host_multi_work(struct work_struct *work)
{
	struct scalio_host_kop *k = container_of(work, struct scalio_host_kop, work);

	scalio_host_kop_run(k);
	if (atomic_dec_and_test(k->pending))
		complete(k->done);
}

static int scalio_host_ioctl_multi(struct scalio_host_hstore *hs,
				   struct scalio_multi __user *argp)
{
	struct scalio_multi m;
	struct scalio_multi_op *ops;
	struct scalio_host_kop *kops;
	DECLARE_COMPLETION_ONSTACK(done);
	atomic_t pending;
	u32 i, nr_run = 0;
	int ret = 0;

	if (copy_from_user(&m, argp, sizeof(m)))
		return -EFAULT;
	if (m.flags || !scalio_host_zero(m.reserved, sizeof(m.reserved)) ||
	    !m.nr || m.nr > SCALIO_MULTI_MAX)
		return -EINVAL;
	ops = kvmalloc_array(m.nr, sizeof(*ops), GFP_KERNEL);
	kops = kvcalloc(m.nr, sizeof(*kops), GFP_KERNEL);
	if (!ops || !kops) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (copy_from_user(ops, u64_to_user_ptr(m.ops),
			   array_size(m.nr, sizeof(*ops)))) {
		ret = -EFAULT;
		goto out_free;
	}

	/* Validate and copy in every op; a bad op fails alone. */
	atomic_set(&pending, 1);
	for (i = 0; i < m.nr; i++) {
		struct scalio_host_kop *k = &kops[i];

		k->result = ops[i].pad ? -EINVAL :
			scalio_host_kop_prepare(k, hs, ops[i].opcode, &ops[i].kv);
		if (k->result)
			continue;
		k->pending = &pending;
		k->done = &done;
		INIT_WORK(&k->work, scalio_host_multi_work);
		atomic_inc(&pending);
		nr_run++;
		queue_work(scalio_host_multi_wq, &k->work);
	}
	/* Every op is bounded by its own timeouts: this wait ends. */
	if (!atomic_dec_and_test(&pending))
		wait_for_completion(&done);

	for (i = 0; i < m.nr; i++) {
		struct scalio_host_kop *k = &kops[i];

		ops[i].kv.result = k->result ? k->result :
				   scalio_host_kop_finish(k, &ops[i].kv);
	}
	if (copy_to_user(u64_to_user_ptr(m.ops), ops,
			 array_size(m.nr, sizeof(*ops)))) {
		ret = -EFAULT;
		goto out_free;
	}
	m.nr_done = m.nr;
	if (put_user(m.nr_done, &argp->nr_done))
		ret = -EFAULT;
	pr_debug("%s: multi: %u ops, %u run\n", hs->name, m.nr, nr_run);

out_free:
	if (kops)
		for (i = 0; i < m.nr; i++)
			scalio_host_kop_free(&kops[i]);
	kvfree(kops);
	kvfree(ops);
	return ret;
}

static void scalio_host_fill_host_stats(struct scalio_host_hstore *hs,
					struct scalio_host_stats *h)
{
	memset(h, 0, sizeof(*h));
	h->gets = atomic64_read(&hs->stats[SCALIO_HS_GETS]);
	h->puts = atomic64_read(&hs->stats[SCALIO_HS_PUTS]);
	h->deletes = atomic64_read(&hs->stats[SCALIO_HS_DELETES]);
	h->cache_hits = atomic64_read(&hs->stats[SCALIO_HS_CACHE_HITS]);
	h->cache_misses = atomic64_read(&hs->stats[SCALIO_HS_CACHE_MISSES]);
	h->ssd_reads = atomic64_read(&hs->stats[SCALIO_HS_SSD_READS]);
	h->rpc_gets = atomic64_read(&hs->stats[SCALIO_HS_RPC_GETS]);
	h->rdma_reads = atomic64_read(&hs->stats[SCALIO_HS_RDMA_READS]);
	h->rdma_cas = atomic64_read(&hs->stats[SCALIO_HS_RDMA_CAS]);
	h->cas_failures = atomic64_read(&hs->stats[SCALIO_HS_CAS_FAILURES]);
	h->retries = atomic64_read(&hs->stats[SCALIO_HS_RETRIES]);
	h->lease_reclaims = atomic64_read(&hs->stats[SCALIO_HS_LEASE_RECLAIMS]);
	h->invalidations = atomic64_read(&hs->stats[SCALIO_HS_INVALIDATIONS]);
	h->header_mismatches =
		atomic64_read(&hs->stats[SCALIO_HS_HEADER_MISMATCHES]);
	h->errors = atomic64_read(&hs->stats[SCALIO_HS_ERRORS]);
	h->reconnects = atomic64_read(&hs->stats[SCALIO_HS_RECONNECTS]);
	h->waits = atomic64_read(&hs->stats[SCALIO_HS_WAITS]);
	h->lease_renewals = atomic64_read(&hs->stats[SCALIO_HS_LEASE_RENEWALS]);
	h->lease_giveups = atomic64_read(&hs->stats[SCALIO_HS_LEASE_GIVEUPS]);
	h->ssd_read_timeouts =
		atomic64_read(&hs->stats[SCALIO_HS_SSD_READ_TIMEOUTS]);
	h->reconnect_waits =
		atomic64_read(&hs->stats[SCALIO_HS_RECONNECT_WAITS]);
	h->reconnect_wait_ns =
		atomic64_read(&hs->stats[SCALIO_HS_RECONNECT_WAIT_NS]);
	h->fast_io_fails = atomic64_read(&hs->stats[SCALIO_HS_FAST_IO_FAILS]);
	h->lost_get_retries =
		atomic64_read(&hs->stats[SCALIO_HS_LOST_GET_RETRIES]);
	h->get_val_reads = atomic64_read(&hs->stats[SCALIO_HS_GET_VAL_READS]);
	h->get_val_stale = atomic64_read(&hs->stats[SCALIO_HS_GET_VAL_STALE]);
	h->retired_evictions =
		atomic64_read(&hs->stats[SCALIO_HS_RETIRED_EVICTIONS]);
	h->opt_misses = atomic64_read(&hs->stats[SCALIO_HS_OPT_MISSES]);
	h->bg_queued = atomic64_read(&hs->stats[SCALIO_HS_BG_QUEUED]);
	h->bg_fills = atomic64_read(&hs->stats[SCALIO_HS_BG_FILLS]);
	h->bg_fill_drops = atomic64_read(&hs->stats[SCALIO_HS_BG_FILL_DROPS]);
	h->bg_waits = atomic64_read(&hs->stats[SCALIO_HS_BG_WAITS]);
}

/**
 * scalio_host_ioctl_stats() - SCALIO_IOC_STATS of any version
 * @hs:		the store
 * @argp:	user pointer to a struct scalio_stats of @usize bytes
 * @usize:	the command's size (_IOC_SIZE), a SCALIO_STATS_SIZE_VER*
 *
 * The struct only grows at its end: user space built against an older
 * header passes its own size, in the command and in ->size, and gets the
 * fields it knows; no byte past @usize is read or written.
 *
 * Return: 0, -EFAULT, -EINVAL (->size is not @usize, or unknown flags),
 * or the STATS RPC's error.
 */
static int scalio_host_ioctl_stats(struct scalio_host_hstore *hs,
				   struct scalio_stats __user *argp, u32 usize)
{
	struct scalio_stats *st;
	int ret = 0;

	BUILD_BUG_ON(offsetof(struct scalio_stats, nr_buckets) !=
		     SCALIO_STATS_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct scalio_stats) != SCALIO_STATS_SIZE_VER1);
	if (usize != SCALIO_STATS_SIZE_VER0 && usize != sizeof(*st))
		return -EINVAL;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	if (copy_from_user(st, argp, usize)) {
		ret = -EFAULT;
		goto out;
	}
	if (st->size != usize || (st->flags & ~SCALIO_STATS_F_TARGET)) {
		ret = -EINVAL;
		goto out;
	}
	st->features = hs->features;
	st->nr_ssds = hs->nr_ssds;
	st->nr_blocks = hs->nr_blocks;
	st->nr_buckets = hs->nr_buckets;
	st->pad = 0;
	st->slots_per_block = hs->slots;
	st->target_valid = 0;
	memset(&st->target, 0, sizeof(st->target));
	if (st->flags & SCALIO_STATS_F_TARGET) {
		struct scalio_host_conn *conn = &hs->conn;

		ret = scalio_host_conn_enter(conn, SCALIO_HOST_OP_STATS);
		if (!ret) {
			ret = scalio_host_rpc_stats(hs, &st->target);
			scalio_host_conn_exit(conn);
		}
		if (ret)
			goto out;
		st->target_valid = 1;
	}
	/* Last, so the counters include the STATS RPC's own effects. */
	scalio_host_fill_host_stats(hs, &st->host);
	if (copy_to_user(argp, st, usize))
		ret = -EFAULT;
out:
	kfree(st);
	return ret;
}

static int scalio_host_ioctl_ssd_info(struct scalio_host_hstore *hs,
				      struct scalio_ssd_info __user *argp)
{
	struct scalio_ssd_info si;
	struct scalio_host_hssd *ssd;

	if (copy_from_user(&si, argp, sizeof(si)))
		return -EFAULT;
	if (!scalio_host_zero(si.reserved, sizeof(si.reserved)) ||
	    si.index >= hs->nr_ssds)
		return -EINVAL;
	ssd = &hs->ssds[si.index];
	si.nsid = ssd->nsid;
	si.nr_ssds = hs->nr_ssds;
	si.bound = scalio_host_ssd_bound(hs, si.index);
	memcpy(si.nqn, ssd->nqn, sizeof(si.nqn));
	si.capacity_sectors = ssd->capacity_sectors;
	if (copy_to_user(argp, &si, sizeof(si)))
		return -EFAULT;
	return 0;
}

static int scalio_host_ioctl_ssd_bind(struct scalio_host_hstore *hs,
				      struct scalio_ssd_bind __user *argp)
{
	struct scalio_ssd_bind b;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&b, argp, sizeof(b)))
		return -EFAULT;
	if (b.flags || !scalio_host_zero(b.reserved, sizeof(b.reserved)) ||
	    b.index >= hs->nr_ssds || !b.path[0] ||
	    !memchr(b.path, '\0', sizeof(b.path)))
		return -EINVAL;
	return scalio_host_ssd_bind(hs, b.index, b.path);
}

/*
 * SCALIO_IOC_CLOCK: one RDMA READ of the target's clock word, made during
 * this call (never a cached or extrapolated value), so that a caller that
 * brackets an operation with two calls gets a value no later than the
 * operation's start and one no earlier than its end.
 */
static int scalio_host_ioctl_clock(struct scalio_host_hstore *hs, __u64 __user *argp)
{
	struct scalio_host_conn *conn = &hs->conn;
	struct scalio_host_io *io;
	u64 now = 0;
	int ret;

	ret = scalio_host_conn_enter(conn, SCALIO_HOST_OP_CLOCK);
	if (ret)
		return ret;
	io = scalio_host_io_get(conn);
	if (!io) {
		ret = scalio_host_io_get_err(conn);
		goto out_unlock;
	}
	ret = scalio_host_clock_refresh(hs, io, &now);
	scalio_host_io_put(conn, io);
out_unlock:
	scalio_host_conn_exit(conn);
	if (!ret && put_user(now, argp))
		ret = -EFAULT;
	return ret;
}

/**
 * scalio_host_store_ioctl() - unlocked_ioctl of /dev/scalio/<store>
 * @file:	the open store device (private_data: the store)
 * @cmd:	SCALIO_IOC_*
 * @arg:	user pointer to the command's structure
 */
long scalio_host_store_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct scalio_host_hstore *hs = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case SCALIO_IOC_GET:
		return scalio_host_ioctl_kv(hs, SCALIO_OP_GET, argp);
	case SCALIO_IOC_PUT:
		return scalio_host_ioctl_kv(hs, SCALIO_OP_PUT, argp);
	case SCALIO_IOC_DELETE:
		return scalio_host_ioctl_kv(hs, SCALIO_OP_DELETE, argp);
	case SCALIO_IOC_MULTI:
		return scalio_host_ioctl_multi(hs, argp);
	case SCALIO_IOC_STATS:
	case SCALIO_IOC_STATS_VER0:
		return scalio_host_ioctl_stats(hs, argp, _IOC_SIZE(cmd));
	case SCALIO_IOC_SSD_INFO:
		return scalio_host_ioctl_ssd_info(hs, argp);
	case SCALIO_IOC_SSD_BIND:
		return scalio_host_ioctl_ssd_bind(hs, argp);
	case SCALIO_IOC_CLOCK:
		return scalio_host_ioctl_clock(hs, argp);
	case SCALIO_IOC_SCAN:
		return scalio_host_ioctl_scan(hs, argp);
	default:
		return -ENOTTY;
	}
}

int scalio_host_ioctl_init(void)
{
	/* Unbound, one worker per queued op up to the default cap. */
	scalio_host_multi_wq = alloc_workqueue("scalio_multi", WQ_UNBOUND, 0);
	return scalio_host_multi_wq ? 0 : -ENOMEM;
}

void scalio_host_ioctl_exit(void)
{
	destroy_workqueue(scalio_host_multi_wq);
}
