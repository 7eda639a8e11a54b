// SPDX-License-Identifier: GPL-2.0
/*
 * SSD access for the store: open/close, and synchronous I/O in 4 KiB
 * units with bios.
 *
 * Everything the store does to an SSD is a whole-unit, synchronous read
 * or write issued by one thread (the SSD's commit kthread, recovery, or
 * an RPC reader), so one bio chain per call waited on with
 * submit_bio_wait() is both simplest and fast enough.  Buffers may be
 * vmalloc'ed (batch images of up to 2 MiB): they are mapped page by page.
 *
 * Durability: every write carries REQ_FUA (each bio of the chain) and the
 * first bio also REQ_PREFLUSH, so when scalio_tgt_ssd_write() returns 0 the
 * data is on stable media and so is everything written before it.  Only
 * then does the caller publish seg words or acknowledge requests.
 */
#define pr_fmt(fmt) "scalio-target: ssd: " fmt

#include <linux/module.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "scalio_target.h"
#include "trace.h"

/**
 * scalio_tgt_ssd_open() - open the SSD's block device for the store
 * @ssd:	configured SSD (device_path set)
 *
 * Opens it exclusively (a second store cannot claim the same device;
 * nvmet's own, non-exclusive open of it for export is unaffected).
 *
 * Return: 0, or a negative errno.
 */
int scalio_tgt_ssd_open(struct scalio_tgt_ssd *ssd)
{
	unsigned int lbs;
	int ret;

	ret = scalio_bdev_open(&ssd->bdev, ssd->device_path, true, ssd);
	if (ret) {
		pr_err("%s: cannot open %s: %d\n", ssd->store->name,
		       ssd->device_path, ret);
		return ret;
	}
	lbs = bdev_logical_block_size(ssd->bdev.bdev);
	if (lbs > SCALIO_UNIT_SIZE) {
		pr_err("%s: %s has %u-byte blocks, larger than a %u-byte unit\n",
		       ssd->store->name, ssd->device_path, lbs,
		       SCALIO_UNIT_SIZE);
		scalio_bdev_close(&ssd->bdev);
		return -EINVAL;
	}
	ssd->capacity_sectors = bdev_nr_sectors(ssd->bdev.bdev);
	return 0;
}

void scalio_tgt_ssd_close(struct scalio_tgt_ssd *ssd)
{
	scalio_bdev_close(&ssd->bdev);
}

static struct page *scalio_tgt_buf_page(const void *p)
{
	return is_vmalloc_addr(p) ? vmalloc_to_page(p) : virt_to_page(p);
}

/*
 * One synchronous I/O of @units units at @unit.  The first bio gets
 * @first_opf, every other one @opf; all are chained to the last one, on
 * which we wait, so the call fails if any part failed.
 */
static int scalio_tgt_ssd_rw(struct scalio_tgt_ssd *ssd, u64 unit, void *buf,
			     u32 units, blk_opf_t first_opf, blk_opf_t opf)
{
	struct block_device *bdev = ssd->bdev.bdev;
	size_t len = (size_t)units << SCALIO_UNIT_SHIFT;
	u64 sector = unit * SCALIO_SECTORS_PER_UNIT;
	unsigned int nr_pages;
	struct bio *bio;
	size_t done = 0;
	int ret;

	if (!bdev || !units)
		return -EINVAL;
	if (sector + (u64)units * SCALIO_SECTORS_PER_UNIT >
	    ssd->capacity_sectors)
		return -EIO;

	nr_pages = DIV_ROUND_UP(offset_in_page(buf) + len, PAGE_SIZE);
	bio = bio_alloc(bdev, min_t(unsigned int, nr_pages, BIO_MAX_VECS),
			first_opf, GFP_KERNEL);
	bio->bi_iter.bi_sector = sector;
	while (done < len) {
		void *p = buf + done;
		unsigned int off = offset_in_page(p);
		unsigned int n = min_t(size_t, PAGE_SIZE - off, len - done);

		if (bio_add_page(bio, scalio_tgt_buf_page(p), n, off) != n) {
			nr_pages = DIV_ROUND_UP(off + (len - done), PAGE_SIZE);
			/* Chains @bio to the new one and submits it. */
			bio = blk_next_bio(bio, bdev,
					   min_t(unsigned int, nr_pages,
						 BIO_MAX_VECS),
					   opf, GFP_KERNEL);
			/*
			 * A new bio starts at sector 0: without this, the rest
			 * of an I/O beyond BIO_MAX_VECS pages went to the
			 * superblock, the checkpoints and the log's start.
			 */
			bio->bi_iter.bi_sector = sector +
						 (done >> SECTOR_SHIFT);
			continue;
		}
		done += n;
	}
	ret = submit_bio_wait(bio);
	bio_put(bio);
	if (ret)
		trace_scalio_tgt_ssd_error(ssd, op_is_write(first_opf), unit,
					   units, ret);
	/* For the SSD's state in stats: failing until an I/O succeeds. */
	WRITE_ONCE(ssd->io_failed, ret != 0);
	return ret;
}

/**
 * scalio_tgt_ssd_read() - read whole units
 * @ssd:	opened SSD
 * @unit:	first unit
 * @buf:	destination, @units units (may be vmalloc'ed)
 * @units:	units to read
 *
 * Return: 0, -EIO (also for a range beyond the device).
 */
int scalio_tgt_ssd_read(struct scalio_tgt_ssd *ssd, u64 unit, void *buf,
			u32 units)
{
	size_t len = (size_t)units << SCALIO_UNIT_SHIFT;
	int ret;

	ret = scalio_tgt_ssd_rw(ssd, unit, buf, units, REQ_OP_READ,
				REQ_OP_READ);
	if (is_vmalloc_addr(buf))
		invalidate_kernel_vmap_range(buf, len);
	scalio_tgt_stat_add(ssd->store, SCALIO_TS_SSD_READS, 1);
	return ret;
}

/**
 * scalio_tgt_ssd_write() - durably write whole units
 * @ssd:	opened SSD
 * @unit:	first unit
 * @buf:	source, @units units (may be vmalloc'ed)
 * @units:	units to write
 *
 * Return: 0 once the data is on stable media, -EIO.
 */
int scalio_tgt_ssd_write(struct scalio_tgt_ssd *ssd, u64 unit, const void *buf,
			 u32 units)
{
	size_t len = (size_t)units << SCALIO_UNIT_SHIFT;
	int ret;

	if (is_vmalloc_addr(buf))
		flush_kernel_vmap_range((void *)buf, len);
	ret = scalio_tgt_ssd_rw(ssd, unit, (void *)buf, units,
				REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA | REQ_SYNC,
				REQ_OP_WRITE | REQ_FUA | REQ_SYNC);
	scalio_tgt_stat_add(ssd->store, SCALIO_TS_SSD_WRITES, 1);
	scalio_tgt_stat_add(ssd->store, SCALIO_TS_SSD_WRITE_BYTES, len);
	if (ret)
		pr_err("%s: ssd %u: write of %u units at %llu failed: %d\n",
		       ssd->store->name, ssd->index, units, unit, ret);
	return ret;
}
