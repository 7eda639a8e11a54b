// SPDX-License-Identifier: GPL-2.0
/*
 * The host's side of NVMe-oF reads: user space connects each SSD of the
 * store with `nvme connect` and hands the block device to the store
 * (SCALIO_IOC_SSD_BIND); GET misses then read segments with bios on that
 * device, without involving the target's CPU.
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "scalio_host.h"

/*
 * Segments up to this order come from the page allocator, larger ones
 * from vmalloc.
 */
#define SCALIO_SEG_PAGES_ORDER	3

/**
 * scalio_host_ssd_bound() - is a block device bound for SSD @index?
 * @hs:		store
 * @index:	SSD index
 */
bool scalio_host_ssd_bound(struct scalio_host_hstore *hs, u32 index)
{
	/* Pairs with the release in scalio_host_ssd_bind(): ->bdev is set. */
	return index < hs->nr_ssds && smp_load_acquire(&hs->ssds[index].bound);
}

/*
 * Is @bdev SSD @index of this store?  Its superblock (unit 0, or the copy
 * in unit 1 when that one fails its checks) must be intact and name that
 * index, the store's SSD count, block and bucket counts and hash seed.  Same-sized
 * SSDs bound in the wrong order, or one device bound twice, would
 * otherwise only show as GETs that fail their segment checks.
 * Return: 0, -EINVAL (not that SSD), -ENOMEM, -EIO.
 */
static int scalio_host_ssd_check_sb(struct scalio_host_hstore *hs, u32 index,
				    struct block_device *bdev, const char *path)
{
	const struct scalio_sb *sb;
	struct bio_vec bv;
	struct page *page;
	struct bio bio;
	int ret = -EINVAL, u;

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	sb = page_address(page);
	for (u = 0; u < 2; u++) {
		bio_init(&bio, bdev, &bv, 1, REQ_OP_READ);
		bio.bi_iter.bi_sector = (sector_t)u * SCALIO_SECTORS_PER_UNIT;
		__bio_add_page(&bio, page, SCALIO_UNIT_SIZE, 0);
		ret = submit_bio_wait(&bio);
		bio_uninit(&bio);
		if (ret) {
			ret = -EIO;
			continue;
		}
		ret = scalio_sb_check(sb) ? -EINVAL : 0;
		if (!ret)
			break;
	}
	if (ret == -EIO) {
		pr_warn("%s: ssd %u: %s: superblock unreadable\n", hs->name,
			index, path);
	} else if (ret) {
		pr_warn("%s: ssd %u: %s holds no intact scalio superblock\n",
			hs->name, index, path);
	} else if (le32_to_cpu(sb->nr_ssds) != hs->nr_ssds ||
		   le32_to_cpu(sb->nr_blocks) != hs->nr_blocks ||
		   le32_to_cpu(sb->nr_buckets) != hs->nr_buckets ||
		   le64_to_cpu(sb->hash_seed) != hs->hash_seed) {
		pr_warn("%s: ssd %u: %s belongs to another store\n", hs->name,
			index, path);
		ret = -EINVAL;
	} else if (le32_to_cpu(sb->ssd_index) != index) {
		pr_warn("%s: ssd %u: %s is ssd %u of this store\n", hs->name,
			index, path, le32_to_cpu(sb->ssd_index));
		ret = -EINVAL;
	}
	__free_page(page);
	return ret;
}

/**
 * scalio_host_ssd_bind() - bind a connected NVMe-oF namespace to SSD @index
 * @hs:		store
 * @index:	SSD index (checked by the caller against nr_ssds)
 * @path:	block device path, NUL-terminated
 *
 * Opens the device read-only (exclusively, with the store as holder) and
 * checks that its size is what the target exports for that SSD and that
 * its superblock names this store and that index.
 *
 * Return: 0, -EBUSY (already bound), -EINVAL (size mismatch, or not that
 * SSD of this store), -EIO, -ENOMEM, or the open's error (-ENOENT,
 * -ENOTBLK...).
 */
int scalio_host_ssd_bind(struct scalio_host_hstore *hs, u32 index, const char *path)
{
	struct scalio_host_hssd *ssd = &hs->ssds[index];
	struct scalio_bdev bdev = {};
	sector_t nr;
	int ret;

	mutex_lock(&hs->bind_lock);
	ret = -EBUSY;
	if (ssd->bound)
		goto unlock;
	ret = scalio_bdev_open(&bdev, path, false, hs);
	if (ret)
		goto unlock;
	nr = bdev_nr_sectors(bdev.bdev);
	if (nr != ssd->capacity_sectors) {
		pr_warn("%s: ssd %u: %s has %llu sectors, the target exports %llu\n",
			hs->name, index, path, (unsigned long long)nr,
			ssd->capacity_sectors);
		ret = -EINVAL;
		goto close;
	}
	if (bdev_logical_block_size(bdev.bdev) > SCALIO_UNIT_SIZE) {
		ret = -EINVAL;
		goto close;
	}
	ret = scalio_host_ssd_check_sb(hs, index, bdev.bdev, path);
	if (ret)
		goto close;
	ssd->bdev = bdev;
	/* Readers check ->bound without the lock: publish ->bdev first. */
	smp_store_release(&ssd->bound, true);
	pr_info("%s: ssd %u bound to %s\n", hs->name, index, path);
	ret = 0;
	goto unlock;
close:
	scalio_bdev_close(&bdev);
unlock:
	mutex_unlock(&hs->bind_lock);
	return ret;
}

/**
 * scalio_host_ssd_unbind_all() - close every bound device (detach: no GET left;
 * a read a GET gave up on keeps its disk pinned until it completes)
 * @hs:	store
 */
void scalio_host_ssd_unbind_all(struct scalio_host_hstore *hs)
{
	u32 i;

	for (i = 0; i < SCALIO_MAX_SSDS; i++) {
		struct scalio_host_hssd *ssd = &hs->ssds[i];

		if (!ssd->bound)
			continue;
		scalio_bdev_close(&ssd->bdev);
		ssd->bound = false;
	}
}

static void *scalio_host_seg_alloc(size_t bytes)
{
	unsigned int order = get_order(bytes);

	if (order <= SCALIO_SEG_PAGES_ORDER)
		return (void *)__get_free_pages(GFP_NOIO, order);
	return __vmalloc(bytes, GFP_NOIO);
}

/**
 * scalio_host_ssd_free() - free a buffer from scalio_host_ssd_read()
 * @buf:	the buffer
 * @bytes:	its size, as scalio_host_ssd_read() returned it
 */
void scalio_host_ssd_free(void *buf, size_t bytes)
{
	if (is_vmalloc_addr(buf))
		vfree(buf);
	else
		free_pages((unsigned long)buf, get_order(bytes));
}

/**
 * scalio_host_ssd_free_seg() - free a buffer from scalio_host_ssd_read_seg()
 * @buf:	the buffer
 * @seg:	the seg word it was read for (gives its size)
 */
void scalio_host_ssd_free_seg(void *buf, u64 seg)
{
	scalio_host_ssd_free(buf, (size_t)scalio_seg_len(seg) <<
			     SCALIO_UNIT_SHIFT);
}

/*
 * An SSD read in flight.  Its GET waits only until its own time is up: an
 * NVMe-oF path that hangs (nvme-rdma requeues I/O while it reconnects,
 * until ctrl_loss_tmo: 600 s by default) must not hold the GET's caller,
 * nor (through the lease renewals) the key for every reader, for that
 * long.  The GET does not hold its connection meanwhile (read.c,
 * scalio_host_get_read_seg()): nothing here uses it, so a reconnect or a
 * teardown of the connection does not wait for the read.  A waiter that
 * gives up leaves buffer and bio to the completion, which has them freed
 * by scalio_host_ssd_wq; @state says who owns them.
 */
struct scalio_host_ssd_read {
	struct completion	done;
	atomic_t		state;		/* SCALIO_SSD_READ_* */
	int			status;
	void			*buf;
	size_t			bytes;
	struct bio		*bio;
	struct gendisk		*disk;		/* pinned while abandoned */
	struct work_struct	free_work;
};

enum {
	SCALIO_SSD_READ_INFLIGHT,
	SCALIO_SSD_READ_DONE,		/* completed: the waiter frees */
	SCALIO_SSD_READ_ABANDONED,	/* given up: the completion frees */
};

/*
 * Reads given up on are at most this many, all stores together: each
 * holds its buffer (up to a segment) and a module reference until it
 * completes.  Beyond it, GETs go to the target by RPC.
 */
#define SCALIO_SSD_ABANDONED_MAX	32

static atomic_t scalio_host_ssd_abandoned = ATOMIC_INIT(0);
static struct workqueue_struct *scalio_host_ssd_wq;

static void scalio_host_ssd_read_free_work(struct work_struct *work)
{
	struct scalio_host_ssd_read *rd = container_of(work, struct scalio_host_ssd_read,
						  free_work);

	scalio_host_ssd_free(rd->buf, rd->bytes);
	bio_put(rd->bio);
	put_disk(rd->disk);
	kfree(rd);
	atomic_dec(&scalio_host_ssd_abandoned);
	/* Module exit flushes scalio_host_ssd_wq: this returns before it frees. */
	module_put(THIS_MODULE);
}

static void scalio_host_ssd_read_end(struct bio *bio)
{
	struct scalio_host_ssd_read *rd = bio->bi_private;

	rd->status = blk_status_to_errno(bio->bi_status);
	if (atomic_cmpxchg(&rd->state, SCALIO_SSD_READ_INFLIGHT,
			   SCALIO_SSD_READ_DONE) == SCALIO_SSD_READ_INFLIGHT)
		complete(&rd->done);	/* the waiter may free @rd now */
	else {
		/* A failed cmpxchg orders nothing: see the waiter's stores. */
		smp_mb();
		/*
		 * The free work drops the module reference.  Returning from
		 * here after it ran is covered by free_module()'s
		 * synchronize_rcu() when we run in interrupt context, not
		 * from a preempted kworker: a window of a few instructions.
		 */
		queue_work(scalio_host_ssd_wq, &rd->free_work);
	}
}

/**
 * scalio_host_ssd_module_init() - set up what SSD reads need
 *
 * Return: 0 or -ENOMEM.
 */
int scalio_host_ssd_module_init(void)
{
	scalio_host_ssd_wq = alloc_workqueue("scalio_ssd", WQ_MEM_RECLAIM, 0);
	return scalio_host_ssd_wq ? 0 : -ENOMEM;
}

/**
 * scalio_host_ssd_module_exit() - undo scalio_host_ssd_module_init()
 *
 * No read is abandoned any more (each held a module reference until its
 * buffer was freed); the flush waits for the last free work to return.
 */
void scalio_host_ssd_module_exit(void)
{
	destroy_workqueue(scalio_host_ssd_wq);
}

/*
 * The GET's time is up, or it got a fatal signal: leave the read to its
 * completion unless that already came.  True if it did not.
 */
static bool scalio_host_ssd_read_abandon(struct scalio_host_ssd_read *rd,
					 struct block_device *bdev)
{
	/* Pin what the completion uses; the store may be detached first. */
	__module_get(THIS_MODULE);
	rd->disk = bdev->bd_disk;
	get_device(disk_to_dev(rd->disk));
	atomic_inc(&scalio_host_ssd_abandoned);
	INIT_WORK(&rd->free_work, scalio_host_ssd_read_free_work);
	if (atomic_cmpxchg(&rd->state, SCALIO_SSD_READ_INFLIGHT,
			   SCALIO_SSD_READ_ABANDONED) ==
	    SCALIO_SSD_READ_INFLIGHT)
		return true;
	/* It completed meanwhile: ours after all. */
	atomic_dec(&scalio_host_ssd_abandoned);
	put_disk(rd->disk);
	module_put(THIS_MODULE);
	wait_for_completion(&rd->done);
	return false;
}

/**
 * scalio_host_ssd_read() - read a byte range of a bound SSD
 * @hs:		store
 * @index:	SSD index
 * @pos:	byte address of the first byte wanted
 * @len:	bytes wanted (>= 1)
 * @end:	the GET's end (jiffies): wait for the read until then
 * @bufp:	out: the device's logical blocks holding the range, to be
 *		freed with scalio_host_ssd_free()
 * @offp:	out: where @pos is in *@bufp
 * @bytesp:	out: the size of *@bufp
 *
 * The range is read rounded out to the device's logical blocks (at most
 * a unit: checked at bind), so a device with 4 KiB blocks works too.  A
 * read still running at @end, or when the caller gets a fatal signal,
 * is left to complete on its own (the store may be detached meanwhile;
 * the module cannot be unloaded until it completes).  While
 * SCALIO_SSD_ABANDONED_MAX are, this reads nothing and returns -ENODEV:
 * the caller asks the target instead.
 *
 * Context: process, may sleep; uses nothing of the store's connection
 * (the caller need not hold it).
 * Return: 0, -ENODEV (that SSD is not bound, or too many reads hang),
 * -EBADMSG (the range is empty or ends past the device: a stale or
 * damaged address), -ENOMEM, -EIO, -ETIMEDOUT (still running at @end),
 * -EINTR.
 */
int scalio_host_ssd_read(struct scalio_host_hstore *hs, u32 index, u64 pos,
			 u32 len, unsigned long end, void **bufp, u32 *offp,
			 size_t *bytesp)
{
	struct scalio_host_ssd_read *rd;
	struct block_device *bdev;
	u64 first, stop;
	size_t bytes, done;
	sector_t sector;
	u32 lbs;
	long left;
	int ret;

	if (!scalio_host_ssd_bound(hs, index) ||
	    atomic_read(&scalio_host_ssd_abandoned) >= SCALIO_SSD_ABANDONED_MAX)
		return -ENODEV;
	bdev = hs->ssds[index].bdev.bdev;
	lbs = bdev_logical_block_size(bdev);
	/* pos and len come from the SSD: bound them before any arithmetic */
	if (!len || pos >= SCALIO_VAL_POS_MAX ||
	    len > SCALIO_SEG_LEN_MAX * SCALIO_UNIT_SIZE)
		return -EBADMSG;
	first = round_down(pos, lbs);
	stop = round_up(pos + len, lbs);
	if (stop > (u64)bdev_nr_sectors(bdev) << SECTOR_SHIFT)
		return -EBADMSG;
	if (time_after_eq(jiffies, end))
		return -ETIMEDOUT;
	bytes = stop - first;
	sector = first >> SECTOR_SHIFT;

	rd = kzalloc(sizeof(*rd), GFP_NOIO);
	if (!rd)
		return -ENOMEM;
	rd->buf = scalio_host_seg_alloc(bytes);
	if (!rd->buf) {
		kfree(rd);
		return -ENOMEM;
	}
	rd->bytes = bytes;
	init_completion(&rd->done);
	atomic_set(&rd->state, SCALIO_SSD_READ_INFLIGHT);
	rd->bio = bio_alloc(bdev, DIV_ROUND_UP(bytes, PAGE_SIZE), REQ_OP_READ,
			    GFP_NOIO);
	rd->bio->bi_iter.bi_sector = sector;
	rd->bio->bi_private = rd;
	rd->bio->bi_end_io = scalio_host_ssd_read_end;
	/* The buffer starts on a page: each piece is a page or its rest. */
	for (done = 0; done < bytes; ) {
		void *p = rd->buf + done;
		struct page *page = is_vmalloc_addr(p) ? vmalloc_to_page(p) :
							 virt_to_page(p);
		u32 n = min_t(size_t, bytes - done, PAGE_SIZE - offset_in_page(p));

		if (bio_add_page(rd->bio, page, n, offset_in_page(p)) != n) {
			ret = -EIO;
			goto out_free;
		}
		done += n;
	}
	scalio_host_hstat_inc(hs, SCALIO_HS_SSD_READS);
	submit_bio(rd->bio);

	left = wait_for_completion_killable_timeout(&rd->done,
						    max_t(long, (long)(end - jiffies), 1));
	if (left <= 0 && scalio_host_ssd_read_abandon(rd, bdev)) {
		scalio_host_hstat_inc(hs, SCALIO_HS_SSD_READ_TIMEOUTS);
		pr_warn_ratelimited("%s: ssd %u: read at sector %llu still running at its GET's end: left to finish on its own\n",
				    hs->name, index,
				    (unsigned long long)sector);
		return left ? -EINTR : -ETIMEDOUT;
	}
	if (is_vmalloc_addr(rd->buf))
		invalidate_kernel_vmap_range(rd->buf, bytes);
	ret = rd->status;
	if (ret) {
		pr_err_ratelimited("%s: ssd %u: read of %zu bytes at sector %llu failed: %d\n",
				   hs->name, index, bytes,
				   (unsigned long long)sector, ret);
		ret = -EIO;
	}
out_free:
	if (ret) {
		scalio_host_ssd_free(rd->buf, bytes);
	} else {
		*bufp = rd->buf;
		*offp = pos - first;
		*bytesp = bytes;
	}
	bio_put(rd->bio);
	kfree(rd);
	return ret;
}

/**
 * scalio_host_ssd_read_seg() - read the segment a seg word names
 * @hs:		store
 * @seg:	seg word (non-zero, SSD index < nr_ssds, length >= 1)
 * @end:	as scalio_host_ssd_read()
 * @bufp:	out: the units holding the segment (scalio_seg_len(seg) of
 *		them, from scalio_seg_unit(seg); the segment starts
 *		scalio_seg_offset(seg) bytes in), to be freed with
 *		scalio_host_ssd_free_seg()
 *
 * Readers read whole units (Documentation/ondisk.rst).
 *
 * Return: as scalio_host_ssd_read().
 */
int scalio_host_ssd_read_seg(struct scalio_host_hstore *hs, u64 seg, unsigned long end,
			     void **bufp)
{
	size_t bytes;
	u32 off;

	return scalio_host_ssd_read(hs, scalio_seg_ssd(seg),
				    (u64)scalio_seg_unit(seg) << SCALIO_UNIT_SHIFT,
				    scalio_seg_len(seg) << SCALIO_UNIT_SHIFT,
				    end, bufp, &off, &bytes);
}

/**
 * scalio_host_ssd_read_val() - read and check the value extent a record
 *	points to (on-SSD format 5)
 * @hs:		store
 * @index:	the SSD of the record's segment (the extent's too)
 * @v:		the record's value pointer
 * @key:	the record's key: the extent must be this key's
 * @klen:	its length
 * @value:	out: @v->len bytes of value
 * @end:	as scalio_host_ssd_read()
 *
 * The pointer comes from a segment that passed its crc, yet one that
 * would reach past the SSD, into its superblocks or off the extents'
 * 8-byte packing is damaged or hostile: it is not followed.
 *
 * Return: 0; -ESTALE (an intact extent of another key, generation,
 * length or crc: the value moved and its space was reused); -EUCLEAN
 * (not an intact extent, or an impossible pointer: damaged, or moved and
 * overwritten by something else: the caller tells which by the seg
 * word); or as scalio_host_ssd_read().
 */
int scalio_host_ssd_read_val(struct scalio_host_hstore *hs, u32 index,
			     const struct scalio_vref *v, const u8 *key,
			     u32 klen, u8 *value, unsigned long end)
{
	u32 len = sizeof(struct scalio_val_hdr) + klen + v->len, off;
	const u8 *val;
	size_t bytes;
	void *buf;
	int ret;

	if (index >= hs->nr_ssds || !v->len || v->len > SCALIO_VALUE_MAX ||
	    v->pos % 8 || v->pos < 2 * SCALIO_UNIT_SIZE ||
	    v->pos >= SCALIO_VAL_POS_MAX ||
	    v->pos + len > hs->ssds[index].capacity_sectors << SECTOR_SHIFT)
		return -EUCLEAN;
	ret = scalio_host_ssd_read(hs, index, v->pos, len, end, &buf, &off,
				   &bytes);
	if (ret == -EBADMSG)	/* past the device */
		return -EUCLEAN;
	if (ret)
		return ret;
	/* All of the buffer: another key's extent may be longer than ours. */
	ret = scalio_val_check(buf + off, bytes - off, key, klen, v, &val);
	if (!ret)
		memcpy(value, val, v->len);
	else if (ret != -ESTALE)
		ret = -EUCLEAN;
	scalio_host_ssd_free(buf, bytes);
	return ret;
}

/**
 * scalio_host_ssd_read_bucket() - read a bucket's segment by its seg word,
 *	and what it leads to, until they match
 * @hs:		store
 * @bucket:	the bucket
 * @seg:	its seg word, as read
 * @ops:	the read path's part (GET: read.c; SCAN: scan.c)
 * @ctx:	passed to @ops
 *
 * The rules both read paths share (Documentation/protocol.rst, GET step
 * 5).  The segment @seg names is read (@ops->read_seg), checked against
 * @seg and @bucket (scalio_seg_check(): crc, bucket, generation) and
 * handed to @ops->use_seg, then freed; and if @ops->use_seg asks for it,
 * the value extent is read (@ops->read_val).  A seg word we cannot use
 * (another SSD than the bucket's, no units), a segment that fails its
 * check or whose records do not parse (-EBADMSG, -ESTALE) and a value
 * extent of another key or generation (-ESTALE) mean the segment or the
 * value moved, or was rewritten or torn in flight: the header_mismatches
 * counter moves, the seg word is read again (@ops->seg_word) and all of it
 * again, SCALIO_HOST_SEG_RETRIES times at most ("segment never matched",
 * -EIO).  An extent that is not intact (-EUCLEAN) while the seg word still
 * names the segment that pointed to it is damaged (its space is reused
 * only once seg names another segment): -EIO, and a line naming it.  Both
 * lines are rate-limited, by @ops's own limits.
 *
 * Context: process, may sleep.
 * Return: @ops->empty for a bucket without a segment, 0, -EIO (damaged,
 * or never matched), or the first other error of @ops's callbacks
 * (-ENODEV: that SSD is not bound, or too many reads hang...).
 */
int scalio_host_ssd_read_bucket(struct scalio_host_hstore *hs, u32 bucket,
				u64 seg, const struct scalio_host_bucket_ops *ops,
				void *ctx)
{
	unsigned int tries;
	u64 old, vpos = 0;
	bool damaged;
	void *buf;
	int ret;

	for (tries = 0;; tries++) {
		if (!seg)
			return ops->empty;
		damaged = false;
		/* A bucket's segments are all on the bucket's SSD. */
		if (scalio_seg_ssd(seg) != scalio_bucket_ssd(bucket, hs->nr_ssds) ||
		    !scalio_seg_len(seg))
			ret = -EBADMSG;	/* a seg word we cannot use */
		else
			ret = ops->read_seg(ctx, seg, &buf);
		if (!ret) {
			/* Whole units were read: the segment starts inside. */
			void *sh = buf + scalio_seg_offset(seg);

			ret = scalio_seg_check(sh, ((size_t)scalio_seg_len(seg)
					       << SCALIO_UNIT_SHIFT) -
					       scalio_seg_offset(seg), bucket,
					       scalio_seg_gen(seg));
			if (!ret)
				ret = ops->use_seg(ctx, seg, sh, &vpos);
			scalio_host_ssd_free_seg(buf, seg);
			/* format 5: the value is in an extent of its own */
			if (ret == SCALIO_HOST_SEG_VAL)
				ret = ops->read_val(ctx, seg, &vpos);
			damaged = ret == -EUCLEAN;
			if (ret != -EBADMSG && ret != -ESTALE &&
			    ret != -EUCLEAN)
				return ret;
		} else if (ret != -EBADMSG) {
			return ret;
		}
		scalio_host_hstat_inc(hs, SCALIO_HS_HEADER_MISMATCHES);
		if (tries >= SCALIO_HOST_SEG_RETRIES) {
			if (___ratelimit(ops->rs_never, ops->func))
				pr_warn("%s: %sbucket %u: segment never matched seg %llx\n",
					hs->name, ops->who, bucket, seg);
			return -EIO;
		}
		old = seg;
		ret = ops->seg_word(ctx, &seg);
		if (ret)
			return ret;
		if (damaged && seg == old) {
			if (___ratelimit(ops->rs_damaged, ops->func))
				pr_warn("%s: %sssd %u: bucket %u: value extent at byte %llu (seg %llx) is damaged\n",
					hs->name, ops->who,
					scalio_seg_ssd(seg), bucket, vpos, seg);
			return -EIO;
		}
	}
}
