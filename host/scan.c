// SPDX-License-Identifier: GPL-2.0
/*
 * SCALIO_IOC_SCAN: the pairs of a run of buckets, read as a GET miss
 * reads (scalioctl export).  The scan walks the target's read-only seg
 * table in its own order (positions, block by block: scalio_bucket_pos()),
 * so that the seg words of consecutive positions of one chunk come with
 * one one-sided RDMA READ; position p holds the seg word of bucket
 * scalio_pos_bucket(p).  Each segment comes from the bound SSD over
 * NVMe-oF, checked against its seg word and bucket with scalio_seg_check()
 * and read again (seg word first) when it moved; so is a record's value
 * extent (format 5), which is checked against its key and pointer.  The
 * target's CPU takes no part.
 *
 * The connection is held (io_rwsem) only for the seg word READs, not
 * across the SSD reads nor the copies to user space.
 */
#define pr_fmt(fmt) "scalio-host: " fmt

#include <linux/jiffies.h>
#include <linux/ratelimit.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "scalio_host.h"
#include "trace.h"

/* Seg words read with one RDMA READ: the bounce page's area before its CAS word. */
#define SCALIO_SCAN_WORDS	(SCALIO_IO_ATOMIC_OFF / sizeof(u64))

/* One scan: the user's request, where its output goes, and its progress. */
struct scalio_host_scan {
	struct scalio_host_hstore	*hs;
	u8 __user	*ubuf;
	u32		buf_len;
	u32		used;
	u32		nr_pairs;
	u32		need;		/* the bucket that did not fit: its bytes */
	u8		*rec;		/* one record, assembled */
	unsigned long	wait_end;	/* the wait for a lost connection */
	u32		pos;		/* the bucket being read: its position */
	u32		bucket;		/* ... and its number */
};

/*
 * Read the seg words at seg table positions @pos .. @pos + *@nr - 1 into
 * @words (*@nr is cut to the end of the chunk), with one RDMA READ.  A
 * connection lost under it is waited for, as a GET waits.
 */
static int scalio_host_scan_seg_words(struct scalio_host_scan *sc, u32 pos,
				      u32 *nr, u64 *words)
{
	struct scalio_host_hstore *hs = sc->hs;
	struct scalio_host_conn *conn = &hs->conn;
	struct scalio_host_io *io;
	u32 rkey, run, i;
	u64 raddr;
	int ret;

again:
	ret = scalio_host_conn_enter_until(conn, &sc->wait_end,
					   SCALIO_HOST_OP_GET);
	if (ret)
		return ret;
	io = scalio_host_io_get(conn);
	if (!io) {
		ret = scalio_host_io_get_err(conn);
		goto out;
	}
	/* Under the connection: a reconnect replaces the chunks. */
	run = scalio_host_seg_locate(hs, pos, &raddr, &rkey);
	*nr = min(*nr, run);
	ret = scalio_host_rdma_read(conn, io, 0, *nr * sizeof(u64), raddr, rkey);
	if (!ret)
		for (i = 0; i < *nr; i++)
			words[i] = le64_to_cpu(((__le64 *)io->buf)[i]);
	scalio_host_io_put(conn, io);
out:
	scalio_host_conn_exit(conn);
	if ((ret == -ENOTCONN ||
	     (ret == -ETIMEDOUT && scalio_host_conn_dead(conn))) &&
	    scalio_host_conn_may_retry(conn, &sc->wait_end))
		goto again;
	return ret;
}

/* The value a record stands for: its own bytes, or its extent's. */
static u32 scalio_host_scan_vlen(const struct scalio_rec *rec)
{
	struct scalio_vref v;

	return scalio_rec_vref(rec, &v) ? v.len : rec->vlen;
}

/*
 * Copy the pairs of a checked segment, read from SSD @index, to the
 * user's buffer as records; a record that points to a value extent
 * (format 5) gets its value from the extent, read and checked as a GET
 * miss does (scalio_host_ssd_read_val()).  The bucket counts only once
 * all its records are out: a retry writes them again from the same place.
 * Return: 0, -ENOSPC (they do not fit: sc->need says how much they
 * take), -EBADMSG, -EFAULT, or scalio_host_ssd_read_val()'s errors
 * (-ESTALE, -EUCLEAN with *@vpos the extent's byte address...).
 */
static int scalio_host_scan_emit(struct scalio_host_scan *sc, u32 bucket,
				 u32 index, const void *seg, u64 *vpos)
{
	struct scalio_scan_rec *rh = (void *)sc->rec;
	struct scalio_rec rec;
	struct scalio_vref v;
	u32 pos = 0, need = 0, nr = 0, used = sc->used, size;
	int ret;

	while ((ret = scalio_seg_next(seg, &pos, &rec)) > 0)
		need += SCALIO_SCAN_REC_SIZE(rec.klen,
					     scalio_host_scan_vlen(&rec));
	if (ret)
		return ret;
	if (need > sc->buf_len - sc->used) {
		sc->need = need;
		return -ENOSPC;
	}
	pos = 0;
	while ((ret = scalio_seg_next(seg, &pos, &rec)) > 0) {
		u32 vlen = scalio_host_scan_vlen(&rec);
		u8 *val = sc->rec + sizeof(*rh) + rec.klen;

		size = SCALIO_SCAN_REC_SIZE(rec.klen, vlen);
		memset(sc->rec, 0, size);
		rh->bucket = bucket;
		rh->klen = rec.klen;
		rh->vlen = vlen;
		memcpy(sc->rec + sizeof(*rh), rec.key, rec.klen);
		if (scalio_rec_vref(&rec, &v)) {
			ret = scalio_host_ssd_read_val(sc->hs, index, &v,
						       rec.key, rec.klen, val,
						       jiffies +
						       msecs_to_jiffies(SCALIO_OP_TIMEOUT_MS));
			if (trace_scalio_host_val_read_enabled())
				trace_scalio_host_val_read(sc->hs, true, bucket,
							   scalio_key_hash(sc->hs->hash_seed,
									   rec.key,
									   rec.klen),
							   v.pos, v.len, ret);
			if (ret) {
				*vpos = v.pos;
				return ret;
			}
		} else {
			memcpy(val, rec.value, vlen);
		}
		if (copy_to_user(sc->ubuf + used, sc->rec, size))
			return -EFAULT;
		used += size;
		nr++;
	}
	if (ret)
		return ret;
	sc->used = used;
	sc->nr_pairs += nr;
	return 0;
}

static int scalio_host_scan_bucket_seg(void *ctx, u64 seg, void **bufp)
{
	struct scalio_host_scan *sc = ctx;

	return scalio_host_ssd_read_seg(sc->hs, seg, jiffies +
					msecs_to_jiffies(SCALIO_OP_TIMEOUT_MS),
					bufp);
}

static int scalio_host_scan_bucket_use(void *ctx, u64 seg, const void *sh,
				       u64 *vpos)
{
	struct scalio_host_scan *sc = ctx;

	return scalio_host_scan_emit(sc, sc->bucket, scalio_seg_ssd(seg), sh,
				     vpos);
}

static int scalio_host_scan_bucket_word(void *ctx, u64 *seg)
{
	struct scalio_host_scan *sc = ctx;
	u32 one = 1;

	return scalio_host_scan_seg_words(sc, sc->pos, &one, seg);
}

static DEFINE_RATELIMIT_STATE(scalio_host_scan_rs_never,
			      DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);
static DEFINE_RATELIMIT_STATE(scalio_host_scan_rs_damaged,
			      DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

/*
 * A scan's part: each read with a time of its own, the extents read by
 * scalio_host_scan_emit() with the segment at hand (not counted as a
 * GET's), the seg word read again waiting for a lost connection; no
 * segment: no pairs.
 */
static const struct scalio_host_bucket_ops scalio_host_scan_bucket_ops = {
	.read_seg	= scalio_host_scan_bucket_seg,
	.use_seg	= scalio_host_scan_bucket_use,
	.seg_word	= scalio_host_scan_bucket_word,
	.empty		= 0,
	.who		= "scan: ",
	.func		= "scalio_host_scan_bucket",
	.rs_never	= &scalio_host_scan_rs_never,
	.rs_damaged	= &scalio_host_scan_rs_damaged,
};

/*
 * One bucket, at seg table position @pos: the segment @seg names and the
 * value extents its records point to, read and checked as a GET miss
 * reads them (scalio_host_ssd_read_bucket(): read again while they move,
 * -EIO when damaged).
 * Return: 0, -ENOSPC (does not fit), -EIO (damaged), -ENODEV, -EFAULT, or
 * the reads' errors.
 */
static int scalio_host_scan_bucket(struct scalio_host_scan *sc, u32 pos,
				   u64 seg)
{
	struct scalio_host_hstore *hs = sc->hs;

	sc->pos = pos;
	sc->bucket = scalio_pos_bucket(pos, hs->nr_blocks, hs->bpb);
	return scalio_host_ssd_read_bucket(hs, sc->bucket, seg,
					   &scalio_host_scan_bucket_ops, sc);
}

static bool scalio_host_scan_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/**
 * scalio_host_ioctl_scan() - SCALIO_IOC_SCAN: the pairs of a run of buckets
 * @hs:		the store
 * @argp:	user pointer to a struct scalio_scan
 *
 * Validates every field, then scans from the cursor @argp->bucket, a seg
 * table position (the scan order; see uapi/scalio.h): seg words a page at
 * a time, each bucket's segment from its SSD, whole buckets into the
 * user's buffer until one does not fit, @argp->max_buckets are done, the
 * store ends, a signal comes or a bucket fails.
 *
 * Context: process, may sleep.
 * Return: 0 with the struct's outputs written back, or a negative errno
 * (-EOVERFLOW writes back buf_len: the bytes the first bucket needs).
 */
int scalio_host_ioctl_scan(struct scalio_host_hstore *hs,
			   struct scalio_scan __user *argp)
{
	struct scalio_host_scan sc = { .hs = hs };
	struct scalio_scan s;
	u32 pos, end, nr, i;
	u64 *words;
	int ret = 0;

	if (copy_from_user(&s, argp, sizeof(s)))
		return -EFAULT;
	if (s.flags || !scalio_host_scan_zero(s.reserved, sizeof(s.reserved)) ||
	    !s.buf || s.buf_len < SCALIO_SCAN_BUF_MIN ||
	    s.buf_len > SCALIO_SCAN_BUF_MAX || s.buf_len % 8 ||
	    s.max_buckets > SCALIO_SCAN_BUCKETS_MAX ||
	    s.bucket >= hs->nr_buckets)
		return -EINVAL;
	sc.ubuf = u64_to_user_ptr(s.buf);
	sc.buf_len = s.buf_len;
	if (!access_ok(sc.ubuf, sc.buf_len))
		return -EFAULT;

	words = kmalloc_array(SCALIO_SCAN_WORDS, sizeof(u64), GFP_KERNEL);
	sc.rec = kmalloc(SCALIO_SCAN_REC_SIZE(SCALIO_KEY_MAX, SCALIO_VALUE_MAX),
			 GFP_KERNEL);
	if (!words || !sc.rec) {
		ret = -ENOMEM;
		goto out;
	}

	/* The cursor is a position: consecutive ones share seg word READs. */
	pos = s.bucket;
	end = hs->nr_buckets - pos;
	end = pos + min_t(u32, end, s.max_buckets ?: SCALIO_SCAN_BUCKETS_MAX);
	while (pos < end) {
		nr = min_t(u32, end - pos, SCALIO_SCAN_WORDS);
		ret = scalio_host_scan_seg_words(&sc, pos, &nr, words);
		if (ret)
			break;
		for (i = 0; i < nr; i++) {
			if (pos != s.bucket && signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			ret = scalio_host_scan_bucket(&sc, pos, words[i]);
			if (ret)
				break;
			pos++;
		}
		if (ret)
			break;
	}
	/* What ended the call concerns @pos; the buckets before it are done. */
	if (ret == -ENOSPC && pos == s.bucket) {
		ret = -EOVERFLOW;
		if (put_user(sc.need, &argp->buf_len))
			ret = -EFAULT;
		goto out;
	}
	if (ret && ret != -EFAULT && pos != s.bucket)
		ret = 0;
	if (ret)
		goto out;
	s.buf_len = sc.used;
	s.nr_buckets = pos - s.bucket;
	s.bucket = pos;
	s.nr_pairs = sc.nr_pairs;
	s.store_buckets = hs->nr_buckets;
	if (copy_to_user(argp, &s, sizeof(s)))
		ret = -EFAULT;
out:
	kfree(sc.rec);
	kfree(words);
	return ret;
}
