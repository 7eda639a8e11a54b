// SPDX-License-Identifier: GPL-2.0
/*
 * The log of one SSD: its space, the batch being built and written at its
 * tail, and reading batches and checkpoints back.
 *
 * Everything here runs in the SSD's commit kthread, or in recovery before
 * that thread starts: no locking of its own.  The commit path (commit.c),
 * the cleaner (cleaner.c) and recovery (recovery.c) are built on these
 * helpers and never call each other's internals.
 *
 * Log space: units log_start .. log_start + log_units, used circularly
 * from the head (oldest batch still needed) to the tail (where the next
 * batch goes).  A batch never wraps: one that does not fit before the end
 * is written at log_start, and the units it skipped count as used.
 */
#define pr_fmt(fmt) "scalio-target: " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/vmalloc.h>

#include "scalio_store.h"

u64 scalio_tgt_log_end(const struct scalio_tgt_ssd *ssd)
{
	return le64_to_cpu(ssd->log.sb.log_start) +
	       le64_to_cpu(ssd->log.sb.log_units);
}

u64 scalio_tgt_log_free(const struct scalio_tgt_ssd *ssd)
{
	return le64_to_cpu(ssd->log.sb.log_units) - ssd->log.used_units;
}

/* Free units a batch of @n units at the tail takes (a wrap skips the end). */
u64 scalio_tgt_log_consume(const struct scalio_tgt_ssd *ssd, u32 n)
{
	u64 tail = ssd->log.tail, end = scalio_tgt_log_end(ssd);

	return tail + n <= end ? n : end - tail + n;
}

/*
 * When the cleaner runs and how far, from the log's size and its live
 * data (common/scalio_space.h).
 */
void scalio_tgt_log_levels(const struct scalio_tgt_ssd *ssd,
			   struct scalio_space_levels *lv)
{
	u64 live = DIV_ROUND_UP(ssd->commit->live_sectors +
				DIV_ROUND_UP(ssd->commit->live_val_bytes,
					     SCALIO_SECTOR_SIZE),
				SCALIO_SECTORS_PER_UNIT);

	scalio_space_levels(le64_to_cpu(ssd->log.sb.log_units), live,
			    SCALIO_LOG_RESERVE + SCALIO_SHRINK_RESERVE,
			    SCALIO_BUF_UNITS, lv);
}

/* Make room for @n records in @tb. */
int scalio_tgt_tb_reserve(struct scalio_tgt_tbucket *tb, u32 n)
{
	struct scalio_tgt_kent *ents;
	u32 cap;

	if (n <= tb->cap)
		return 0;
	cap = max3(16U, tb->cap * 2, n);
	ents = kvmalloc_array(cap, sizeof(*ents), GFP_KERNEL);
	if (!ents)
		return -ENOMEM;
	if (tb->nr)
		memcpy(ents, tb->ents, tb->nr * sizeof(*ents));
	kvfree(tb->ents);
	tb->ents = ents;
	tb->cap = cap;
	return 0;
}

/**
 * scalio_tgt_tb_get() - the batch's copy of a bucket, created on first use
 * @ssd:	SSD owning @bucket
 * @bucket:	bucket
 * @seg:	when the bucket is new to the batch: its current segment,
 *		already checked (records are referenced, not copied: it must
 *		stay until the batch is reset), or NULL for "no records"
 *
 * Return: the bucket, or ERR_PTR(-E2BIG / -ENOMEM / -EBADMSG).
 */
struct scalio_tgt_tbucket *scalio_tgt_tb_get(struct scalio_tgt_ssd *ssd,
					    u32 bucket, const void *seg)
{
	struct scalio_tgt_commit *c = ssd->commit;
	u32 i = scalio_tgt_owned_idx(ssd, bucket);
	struct scalio_tgt_tbucket *tb;
	struct scalio_rec rec;
	u32 pos = 0, nr;
	int ret;

	if (c->tb_of[i])
		return &c->tbs[c->tb_of[i] - 1];
	if (c->nr_tbs >= SCALIO_TB_MAX)
		return ERR_PTR(-E2BIG);
	tb = &c->tbs[c->nr_tbs];
	tb->bucket = bucket;
	tb->nr = 0;
	tb->bytes = sizeof(struct scalio_seg_hdr);
	tb->dirty = false;
	tb->seg = 0;
	tb->old_bytes = 0;
	tb->val_bytes = 0;
	if (seg) {
		const struct scalio_seg_hdr *sh = seg;

		nr = le32_to_cpu(sh->nr_records);
		tb->old_bytes = le32_to_cpu(sh->len);
		ret = scalio_tgt_tb_reserve(tb, nr);
		if (ret)
			return ERR_PTR(ret);
		while ((ret = scalio_seg_next(seg, &pos, &rec)) > 0) {
			struct scalio_tgt_kent *e;

			if (tb->nr >= nr)
				return ERR_PTR(-EBADMSG);
			e = &tb->ents[tb->nr];
			*e = (struct scalio_tgt_kent) {
				.key = rec.key, .value = rec.value,
				.klen = rec.klen, .vlen = rec.vlen,
			};
			if (scalio_rec_vref(&rec, &e->vref))
				e->flags = SCALIO_KENT_VPTR;
			tb->bytes += scalio_tgt_kent_rec_bytes(e);
			tb->val_bytes += scalio_tgt_kent_val_bytes(e);
			tb->nr++;
		}
		if (ret < 0)
			return ERR_PTR(ret);
	}
	tb->old_nr = tb->nr;
	tb->old_val_bytes = tb->val_bytes;
	c->tb_of[i] = ++c->nr_tbs;
	return tb;
}

/* Index of @key's record in @tb, or -1. */
int scalio_tgt_tb_find(const struct scalio_tgt_tbucket *tb, const u8 *key,
		       u32 klen)
{
	u32 k;

	for (k = 0; k < tb->nr; k++)
		if (tb->ents[k].klen == klen &&
		    !memcmp(tb->ents[k].key, key, klen))
			return k;
	return -1;
}

/* Forget the batch being built (requests are handled by the caller). */
void scalio_tgt_batch_reset(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_commit *c = ssd->commit;
	u32 i;

	for (i = 0; i < c->nr_tbs; i++) {
		struct scalio_tgt_tbucket *tb = &c->tbs[i];

		c->tb_of[scalio_tgt_owned_idx(ssd, tb->bucket)] = 0;
		/* Keep small record arrays for the next batch. */
		if (tb->cap > 256) {
			kvfree(tb->ents);
			tb->ents = NULL;
			tb->cap = 0;
		}
		tb->nr = 0;
	}
	c->nr_tbs = 0;
	c->arena_used = 0;
	c->new_val_bytes = 0;
}

/**
 * scalio_tgt_batch_write() - write the dirty buckets of the batch, publish them
 * @ssd:	SSD
 * @reserve:	free log units that must remain after the write
 *
 * Builds one batch (header sector, the new value extents packed on 8
 * bytes, then one segment per dirty bucket packed on sectors, generation =
 * the batch's sequence number, zeroes to the end of the last unit) at the
 * log tail, or at log_start if it does not fit
 * before the end of the log, writes it durably, then publishes each
 * bucket's new seg word and generation and advances the log.  Nothing is
 * published if the write fails.  Commit kthread only.
 *
 * Return: 0 (also when nothing is dirty), -ENOSPC, -EIO.
 */
int scalio_tgt_batch_write(struct scalio_tgt_ssd *ssd, u64 reserve)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 start = le64_to_cpu(ssd->log.sb.log_start);
	u64 end = scalio_tgt_log_end(ssd);
	u64 tail = ssd->log.tail, seq = ssd->log.next_batch;
	struct scalio_batch_hdr *bh = c->buf;
	u64 pos, consume;
	u32 i, n, sectors, nr_segs = 0, nr_vals = 0, off, voff, vsecs;
	s64 dkeys = 0, dbytes = 0, dsecs = 0, dvals = 0;
	int ret;

	vsecs = scalio_tgt_val_sectors(c);
	sectors = 1 + vsecs;
	for (i = 0; i < c->nr_tbs; i++) {
		if (c->tbs[i].dirty) {
			sectors += scalio_tgt_tb_sectors(&c->tbs[i]);
			nr_segs++;
		}
	}
	if (!nr_segs)
		return 0;
	if (c->failed)
		return -EIO;
	n = scalio_tgt_batch_units(sectors);
	if (n > SCALIO_BUF_UNITS)
		return -E2BIG;	/* the admission rules make this impossible */

	pos = tail + n <= end ? tail : start;
	consume = scalio_tgt_log_consume(ssd, n);
	if (consume + reserve > scalio_tgt_log_free(ssd))
		return -ENOSPC;

	memset(bh, 0, SCALIO_SECTOR_SIZE);
	/* The new extents first: their records below point to them. */
	voff = SCALIO_SECTOR_SIZE;
	for (i = 0; i < c->nr_tbs; i++) {
		struct scalio_tgt_tbucket *tb = &c->tbs[i];
		u32 k;

		for (k = 0; tb->dirty && k < tb->nr; k++) {
			struct scalio_tgt_kent *e = &tb->ents[k];
			u32 size;

			if (!(e->flags & SCALIO_KENT_NEWVAL))
				continue;
			size = scalio_val_build(c->buf + voff, e->key, e->klen,
						e->value, e->vlen, seq,
						(pos << SCALIO_UNIT_SHIFT) + voff,
						&e->vref);
			if (!size || voff + size > (1 + vsecs) *
						   SCALIO_SECTOR_SIZE)
				return -EIO;	/* sizes were checked: a bug */
			voff += size;
			nr_vals++;
		}
	}
	if (voff != SCALIO_SECTOR_SIZE + c->new_val_bytes)
		return -EIO;
	memset(c->buf + voff, 0, (1 + vsecs) * SCALIO_SECTOR_SIZE - voff);
	off = 1 + vsecs;
	for (i = 0; i < c->nr_tbs; i++) {
		struct scalio_tgt_tbucket *tb = &c->tbs[i];
		struct scalio_seg_builder b;
		u64 sector = pos * SCALIO_SECTORS_PER_UNIT + off;
		u32 k, secs;

		if (!tb->dirty)
			continue;
		scalio_seg_build_init(&b, c->buf + ((size_t)off <<
						    SCALIO_SECTOR_SHIFT),
				      (SCALIO_BUF_UNITS * SCALIO_SECTORS_PER_UNIT -
				       off) << SCALIO_SECTOR_SHIFT);
		for (k = 0; k < tb->nr; k++) {
			const struct scalio_tgt_kent *e = &tb->ents[k];

			ret = e->flags ?
			      scalio_seg_build_add_vref(&b, e->key, e->klen,
							&e->vref) :
			      scalio_seg_build_add(&b, e->key, e->klen,
						   e->value, e->vlen);
			if (ret)
				return -EIO;	/* sizes were checked: a bug */
		}
		secs = scalio_seg_build_finish(&b, tb->bucket, seq);
		if (secs != scalio_tgt_tb_sectors(tb) || b.len != tb->bytes)
			return -EIO;
		tb->seg = tb->nr ? scalio_seg_make(ssd->index, sector,
						   scalio_seg_span(sector, b.len),
						   seq) : 0;
		off += secs;
	}
	/* The rest of the last unit: zeroes, not an older batch's bytes. */
	memset(c->buf + ((size_t)off << SCALIO_SECTOR_SHIFT), 0,
	       ((size_t)n << SCALIO_UNIT_SHIFT) -
	       ((size_t)off << SCALIO_SECTOR_SHIFT));
	bh->magic = cpu_to_le64(SCALIO_BATCH_MAGIC);
	bh->seq = cpu_to_le64(seq);
	bh->nr_units = cpu_to_le32(n);
	bh->nr_segs = cpu_to_le32(nr_segs);
	bh->nr_vals = cpu_to_le32(nr_vals);
	bh->val_sectors = cpu_to_le32(vsecs);
	bh->flags = 0;
	scalio_batch_hdr_seal(bh);

	ret = scalio_tgt_ssd_write(ssd, pos, c->buf, n);
	if (ret) {
		/*
		 * The units at @pos may now hold part of batch @seq.  Writing
		 * @seq again elsewhere could leave two candidates for
		 * recovery, so stop writing, as a file system goes read-only
		 * on a write error, until the store is resumed (which first
		 * zeroes the header unit at @pos, scalio_tgt_commit_resume()) or
		 * re-enabled (recovery sorts the log out).
		 */
		c->failed = true;
		c->failed_pos = pos;
		pr_err("commit: %s: ssd %u: log write failed: failing all writes until the store is resumed or re-enabled\n",
		       st->name, ssd->index);
		return -EIO;
	}

	/* Durable: publish. */
	for (i = 0, off = 1 + vsecs; i < c->nr_tbs; i++) {
		struct scalio_tgt_tbucket *tb = &c->tbs[i];
		u32 k;

		if (!tb->dirty)
			continue;
		/* The new extents are on the SSD now: plain pointers. */
		for (k = 0; k < tb->nr; k++)
			if (tb->ents[k].flags & SCALIO_KENT_NEWVAL)
				tb->ents[k].flags = SCALIO_KENT_VPTR;
		dvals += (s64)(tb->seg ? tb->val_bytes : 0) -
			 tb->old_val_bytes;
		scalio_tgt_index_set_seg(&st->index, tb->bucket, tb->seg);
		ssd->gens[scalio_tgt_owned_idx(ssd, tb->bucket)] = seq;
		dkeys += (s64)tb->nr - tb->old_nr;
		dbytes += (s64)(tb->seg ? tb->bytes : 0) - tb->old_bytes;
		dsecs += (s64)(tb->seg ? scalio_tgt_tb_sectors(tb) : 0) -
			 DIV_ROUND_UP(tb->old_bytes, SCALIO_SECTOR_SIZE);
		/* The images are all built: the cache may now evict. */
		scalio_tgt_segcache_publish(ssd, tb->bucket, tb->seg, seq,
					    c->buf + ((size_t)off <<
						      SCALIO_SECTOR_SHIFT));
		off += scalio_tgt_tb_sectors(tb);
	}
	WRITE_ONCE(c->keys, c->keys + dkeys);
	WRITE_ONCE(c->live_bytes, c->live_bytes + dbytes);
	WRITE_ONCE(c->live_sectors, c->live_sectors + dsecs);
	WRITE_ONCE(c->live_val_bytes, c->live_val_bytes + dvals);
	if (nr_vals) {
		scalio_tgt_stat_add(st, SCALIO_TS_VALS_WRITTEN, nr_vals);
		scalio_tgt_stat_add(st, SCALIO_TS_VAL_BYTES_WRITTEN,
				    c->new_val_bytes);
	}
	ssd->log.tail = pos + n == end ? start : pos + n;
	WRITE_ONCE(ssd->log.used_units, ssd->log.used_units + consume);
	ssd->log.next_batch = seq + 1;
	c->since_ckpt += consume;
	return 0;
}

/**
 * scalio_tgt_seg_read() - read the units a seg word names
 * @ssd:	SSD of @seg
 * @seg:	seg word (non-zero)
 * @buf:	destination, @units units
 * @units:	units to read from the one the segment starts in (1 to read
 *		its header, scalio_seg_len(@seg) for all of it)
 *
 * The segment is moved to the start of @buf: its first
 * @units * SCALIO_UNIT_SIZE - scalio_seg_offset(@seg) bytes are there.
 *
 * Return: 0 or the read's error.
 */
int scalio_tgt_seg_read(struct scalio_tgt_ssd *ssd, u64 seg, void *buf,
			u32 units)
{
	u32 off = scalio_seg_offset(seg);
	int ret;

	ret = scalio_tgt_ssd_read(ssd, scalio_seg_unit(seg), buf, units);
	if (!ret && off)
		memmove(buf, buf + off, ((size_t)units << SCALIO_UNIT_SHIFT) -
					off);
	return ret;
}

/**
 * scalio_tgt_seg_read_live() - read a bucket's live segment and check it
 * @ssd:	SSD owning @bucket
 * @bucket:	bucket
 * @seg:	its seg word (non-zero; length at most SCALIO_BUF_UNITS)
 * @gen:	its generation (ssd->gens[])
 * @buf:	destination, scalio_seg_len(@seg) units; the segment starts
 *		at its first byte
 *
 * Return: 0; the read's error; -EBADMSG (not intact) or -ESTALE (intact,
 * but not that bucket and generation).
 */
int scalio_tgt_seg_read_live(struct scalio_tgt_ssd *ssd, u32 bucket, u64 seg,
			     u64 gen, void *buf)
{
	u32 len = scalio_seg_len(seg);
	int ret;

	ret = scalio_tgt_seg_read(ssd, seg, buf, len);
	if (ret)
		return ret;
	ret = scalio_seg_check(buf, ((size_t)len << SCALIO_UNIT_SHIFT) -
			       scalio_seg_offset(seg), bucket,
			       gen & SCALIO_SEG_GEN_MASK);
	if (!ret && le64_to_cpu(((struct scalio_seg_hdr *)buf)->gen) != gen)
		ret = -ESTALE;
	return ret;
}

/**
 * scalio_tgt_val_read() - read and check the value extent a record points to
 * @ssd:	the SSD of the record's bucket
 * @key:	the record's key
 * @klen:	its length
 * @v:		the record's value pointer
 * @buf:	SCALIO_VAL_READ_UNITS units
 * @value:	out: the value (@v->len bytes in @buf)
 *
 * Return: 0; -EUCLEAN for a pointer outside the log; -EIO for a read
 * error; -EBADMSG / -ESTALE from scalio_val_check() (damaged, or not the
 * extent @v names: moved and overwritten).
 */
int scalio_tgt_val_read(struct scalio_tgt_ssd *ssd, const u8 *key, u32 klen,
			const struct scalio_vref *v, void *buf,
			const u8 **value)
{
	u64 first = v->pos >> SCALIO_UNIT_SHIFT;
	u64 last = (v->pos + sizeof(struct scalio_val_hdr) + klen + v->len -
		    1) >> SCALIO_UNIT_SHIFT;
	u32 off = v->pos & (SCALIO_UNIT_SIZE - 1);
	u32 n = last - first + 1;
	int ret;

	if (first < le64_to_cpu(ssd->log.sb.log_start) ||
	    last >= scalio_tgt_log_end(ssd) || n > SCALIO_VAL_READ_UNITS)
		return -EUCLEAN;
	ret = scalio_tgt_ssd_read(ssd, first, buf, n);
	if (ret)
		return -EIO;
	return scalio_val_check(buf + off, ((size_t)n << SCALIO_UNIT_SHIFT) -
				off, key, klen, v, value);
}

/**
 * scalio_tgt_checkpoint_write() - write the SSD's seg table and log state
 * @ssd:	SSD (commit kthread, or recovery before it starts)
 *
 * Return: 0 once durable, or -EIO (the previous checkpoint stays valid).
 */
int scalio_tgt_checkpoint_write(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	struct scalio_ckpt_hdr *h = c->ckpt;
	struct scalio_ckpt_entry *e = (void *)(h + 1);
	u64 seq = ssd->log.ckpt_seq + 1, bytes = scalio_ckpt_bytes(c->nr_owned);
	u32 i, units = DIV_ROUND_UP(bytes, SCALIO_UNIT_SIZE);
	int ret;

	memset(h, 0, (size_t)units << SCALIO_UNIT_SHIFT);
	h->magic = cpu_to_le64(SCALIO_CKPT_MAGIC);
	h->seq = cpu_to_le64(seq);
	h->log_head = cpu_to_le64(ssd->log.head);
	h->log_tail = cpu_to_le64(ssd->log.tail);
	h->next_batch = cpu_to_le64(ssd->log.next_batch);
	h->head_seq = cpu_to_le64(ssd->log.head_seq);
	h->nr_entries = cpu_to_le32(c->nr_owned);
	for (i = 0; i < c->nr_owned; i++) {
		u32 bucket = ssd->index + i * st->nr_ssds;

		e[i].seg = cpu_to_le64(scalio_tgt_index_get_seg(&st->index,
								bucket));
		e[i].gen = cpu_to_le64(ssd->gens[i]);
	}
	h->crc = cpu_to_le32(scalio_crc(h, bytes,
					offsetof(struct scalio_ckpt_hdr, crc)));
	ret = scalio_tgt_ssd_write(ssd, scalio_tgt_ckpt_slot_unit(ssd, seq), h,
				   units);
	if (ret)
		return -EIO;
	ssd->log.ckpt_seq = seq;
	c->since_ckpt = 0;
	return 0;
}

/*
 * Read @n log units at @pos into @buf.  A media error is tried three
 * times; if it persists while the superblock still reads (into @buf: its
 * contents are lost anyway), the units are bad on the medium: -ENODATA.
 * A device or path that went away, or any other error: -EIO.
 */
int scalio_tgt_log_read_units(struct scalio_tgt_ssd *ssd, u64 pos, void *buf,
			      u32 n)
{
	int ret, tries = 0;

	for (;;) {
		ret = scalio_tgt_ssd_read(ssd, pos, buf, n);
		if (!ret)
			return 0;
		if (!scalio_tgt_media_err(ret))
			return -EIO;
		if (++tries == 3)
			break;
		msleep(100);
	}
	if (scalio_tgt_ssd_read(ssd, SCALIO_SB_UNIT, buf, 1))
		return -EIO;
	return -ENODATA;
}

/**
 * scalio_tgt_log_read_batch() - read and verify the batch @seq at unit @pos
 * @ssd:	SSD
 * @pos:	log unit where the batch should start
 * @seq:	sequence number it must carry
 * @buf:	destination, @max_units units
 * @max_units:	room in @buf
 *
 * The checks are scalio_batch_check()'s (common/, fuzzed).
 *
 * Return: the batch's units; -EBADMSG (no batch header here), -ESTALE
 * (the header of another batch), -EUCLEAN (header of this batch but torn
 * or corrupt contents), -E2BIG (does not fit @max_units), -ENODATA (its
 * header or contents are unreadable on the medium), -EIO.
 */
int scalio_tgt_log_read_batch(struct scalio_tgt_ssd *ssd, u64 pos, u64 seq,
			      void *buf, u32 max_units)
{
	const struct scalio_sb *sb = &ssd->log.sb;
	u32 need = 0;
	int ret;

	if (!max_units)
		return -E2BIG;
	ret = scalio_tgt_log_read_units(ssd, pos, buf, 1);
	if (ret)
		return ret;
	ret = scalio_batch_check(buf, 1, seq, sb, pos, &need);
	if (ret != -EAGAIN)
		return ret;
	if (need > max_units)
		return -E2BIG;
	ret = scalio_tgt_log_read_units(ssd, pos + 1, buf + SCALIO_UNIT_SIZE,
					need - 1);
	if (ret)
		return ret;
	ret = scalio_batch_check(buf, need, seq, sb, pos, &need);
	return ret == -EAGAIN ? -EUCLEAN : ret;
}

/* Units from @from forward to @to in the circular log. */
u64 scalio_tgt_log_dist(const struct scalio_tgt_ssd *ssd, u64 from, u64 to)
{
	u64 start = le64_to_cpu(ssd->log.sb.log_start);

	if (to >= from)
		return to - from;
	return scalio_tgt_log_end(ssd) - from + (to - start);
}

/*
 * Read @chunk units at @u into the commit arena for scalio_tgt_log_probe();
 * with @unreadable, a stretch bad on the medium is read unit by unit, and
 * the units that fail are zeroed in the arena (no header there) and
 * counted if they are free log space (after the tail, before the head):
 * only there can a batch after the chain's end be.  In-use units are the
 * segments' business (recovery checks those it needs).
 */
static int scalio_tgt_log_probe_read(struct scalio_tgt_ssd *ssd, u64 u,
				     u32 chunk, u32 *unreadable)
{
	struct scalio_tgt_commit *c = ssd->commit;
	u64 L = le64_to_cpu(ssd->log.sb.log_units);
	u32 k;
	int ret;

	if (!unreadable)
		return scalio_tgt_ssd_read(ssd, u, c->arena, chunk) ? -EIO : 0;
	ret = scalio_tgt_log_read_units(ssd, u, c->arena, chunk);
	if (ret != -ENODATA)
		return ret;
	for (k = 0; k < chunk; k++) {
		void *p = c->arena + ((size_t)k << SCALIO_UNIT_SHIFT);

		if (!scalio_tgt_ssd_read(ssd, u + k, p, 1))
			continue;
		memset(p, 0, SCALIO_UNIT_SIZE);
		if (scalio_tgt_log_dist(ssd, ssd->log.tail, u + k) <
		    L - ssd->log.used_units)
			(*unreadable)++;
	}
	return 0;
}

/**
 * scalio_tgt_log_probe() - look for intact batches after the end of the chain
 * @ssd:	SSD
 * @pos:	where batch @seq was expected (the chain's tail)
 * @seq:	first sequence number the chain lacks
 * @below:	only batches numbered below this count (0: no bound)
 * @fpos:	out: unit of the lowest-numbered intact later batch
 * @fseq:	out: its sequence number
 *
 * @unreadable:	NULL: any read error fails the probe; else out: units of
 *		free log space, and batches whose contents, the probe
 *		could not read from the medium (recovery decides on it;
 *		the cleaner only steps over them)
 *
 * Reads SCALIO_PROBE_UNITS units from @pos and from the log start; each
 * unit that holds an intact header with a sequence number just above
 * @seq is verified as a whole batch.  Uses the commit arena and buffer.
 * Recovery calls it at the end of the chain, the cleaner at a damaged
 * batch at the log head.  With @unreadable, a stretch that fails with a
 * media error is read again unit by unit, and the units that still fail
 * are skipped.
 *
 * Return: 1 with *@fpos / *@fseq set, 0 when there is none, -EIO.
 */
int scalio_tgt_log_probe(struct scalio_tgt_ssd *ssd, u64 pos, u64 seq,
			 u64 below, u64 *fpos, u64 *fseq, u32 *unreadable)
{
	struct scalio_tgt_commit *c = ssd->commit;
	u64 start = le64_to_cpu(ssd->log.sb.log_start);
	u64 end = scalio_tgt_log_end(ssd), from[2] = { pos, start }, best = 0;
	u32 w, k, chunk;

	for (w = 0; w < 2; w++) {
		u64 u = from[w];
		u64 left = min_t(u64, SCALIO_PROBE_UNITS, end - u);

		if (w && pos == start)
			break;
		/* Each unit once: the first window may reach into this one. */
		if (w && pos > start && pos - start < left)
			left = pos - start;
		for (; left; u += chunk, left -= chunk) {
			chunk = min_t(u64, left, SCALIO_BUF_UNITS);
			if (scalio_tgt_log_probe_read(ssd, u, chunk,
						      unreadable))
				return -EIO;
			for (k = 0; k < chunk; k++) {
				const struct scalio_batch_hdr *bh =
					c->arena + ((size_t)k << SCALIO_UNIT_SHIFT);
				u64 s = le64_to_cpu(bh->seq);
				int n;

				if (s <= seq || s - seq > SCALIO_PROBE_UNITS ||
				    (best && s >= best) || (below && s >= below) ||
				    scalio_batch_hdr_check(bh, s))
					continue;
				n = scalio_tgt_log_read_batch(ssd, u + k, s,
							      c->buf,
							      SCALIO_BUF_UNITS);
				if (n == -ENODATA && unreadable) {
					(*unreadable)++;
					continue;
				}
				if (n == -EIO || n == -ENODATA)
					return -EIO;
				if (n > 0) {
					best = s;
					*fpos = u + k;
				}
			}
		}
	}
	*fseq = best;
	return best ? 1 : 0;
}
