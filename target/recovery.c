// SPDX-License-Identifier: GPL-2.0
/*
 * Formatting, checkpoints and crash recovery of one SSD of a store.
 *
 * Layout (scalio_format.h): superblock at unit 0, two checkpoint slots,
 * then the circular log.  A checkpoint holds every owned block's seg word
 * and generation plus the log head, tail, next batch sequence and the
 * sequence of the batch at the head.  Checkpoint seq s goes to slot s & 1,
 * so a torn checkpoint write only ever destroys the older of the two, and
 * recovery uses the valid slot with the highest seq.
 *
 * Why replay is complete: a request is acknowledged only after its batch
 * is durable, batches are written one at a time in sequence order, each
 * at the unit where the previous one ended (or at log_start when it does
 * not fit before the end of the log), and no unit of the log is reused
 * before a checkpoint that no longer needs it is durable (the cleaner
 * writes one before it moves the head).  So following the chain of
 * batches from the newest valid checkpoint's tail, seq by seq, finds every
 * acknowledged batch, and the first missing or invalid one ends the chain.
 * A batch is applied only if its header and every segment in it check out
 * (segment generation = batch seq, so stale segments of an older lap are
 * rejected); a torn batch was never acknowledged.  Its header, if intact,
 * is zeroed so that it can never be mistaken for a later batch with the
 * same sequence number written elsewhere.
 *
 * Fresh stores start their batch sequence at a random base, so batches
 * left on a device by an earlier store cannot continue the new chain.
 */
#define pr_fmt(fmt) "scalio-target: recovery: " fmt

#include <linux/module.h>
#include <linux/random.h>
#include <linux/uuid.h>
#include <linux/vmalloc.h>

#include "scalio_store.h"

static u64 scalio_ckpt_bytes(u32 nr_owned)
{
	return sizeof(struct scalio_ckpt_hdr) +
	       (u64)nr_owned * sizeof(struct scalio_ckpt_entry);
}

static u64 scalio_ckpt_slot_unit(const struct scalio_ssd *ssd, u64 seq)
{
	return 1 + (seq & 1) * le64_to_cpu(ssd->log.sb.ckpt_units);
}

/**
 * scalio_checkpoint_write() - write the SSD's seg table and log state
 * @ssd:	SSD (commit kthread, or recovery before it starts)
 *
 * Return: 0 once durable, or -EIO (the previous checkpoint stays valid).
 */
int scalio_checkpoint_write(struct scalio_ssd *ssd)
{
	struct scalio_store *st = ssd->store;
	struct scalio_commit *c = ssd->commit;
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
		u32 block = ssd->index + i * st->nr_ssds;

		e[i].seg = cpu_to_le64(scalio_index_get_seg(&st->index, block));
		e[i].gen = cpu_to_le64(ssd->gens[i]);
	}
	h->crc = cpu_to_le32(scalio_crc(h, bytes,
					offsetof(struct scalio_ckpt_hdr, crc)));
	ret = scalio_ssd_write(ssd, scalio_ckpt_slot_unit(ssd, seq), h, units);
	if (ret)
		return -EIO;
	ssd->log.ckpt_seq = seq;
	c->since_ckpt = 0;
	return 0;
}

/**
 * scalio_log_read_batch() - read and verify the batch @seq at unit @pos
 * @ssd:	SSD
 * @pos:	log unit where the batch should start
 * @seq:	sequence number it must carry
 * @buf:	destination, @max_units units
 * @max_units:	room in @buf
 *
 * Return: the batch's units; -EBADMSG (no batch header here), -ESTALE
 * (the header of another batch), -EUCLEAN (header of this batch but torn
 * or corrupt contents), -E2BIG (does not fit @max_units), -EIO.
 */
int scalio_log_read_batch(struct scalio_ssd *ssd, u64 pos, u64 seq,
			  void *buf, u32 max_units)
{
	struct scalio_store *st = ssd->store;
	const struct scalio_batch_hdr *bh = buf;
	u32 n, nr_segs, off, k;
	int ret;

	if (!max_units)
		return -E2BIG;
	if (scalio_ssd_read(ssd, pos, buf, 1))
		return -EIO;
	ret = scalio_batch_hdr_check(bh, seq);
	if (ret)
		return ret;
	n = le32_to_cpu(bh->nr_units);
	nr_segs = le32_to_cpu(bh->nr_segs);
	if (n > SCALIO_BUF_UNITS || pos + n > scalio_log_end(ssd))
		return -EUCLEAN;
	if (n > max_units)
		return -E2BIG;
	if (n > 1 && scalio_ssd_read(ssd, pos + 1,
				     buf + SCALIO_UNIT_SIZE, n - 1))
		return -EIO;

	off = 1;
	for (k = 0; k < nr_segs; k++) {
		const struct scalio_seg_hdr *sh;
		u32 block;

		if (off >= n)
			return -EUCLEAN;
		sh = buf + ((size_t)off << SCALIO_UNIT_SHIFT);
		block = le32_to_cpu(sh->block);
		if (block >= st->nr_blocks ||
		    scalio_block_ssd(block, st->nr_ssds) != ssd->index)
			return -EUCLEAN;
		if (scalio_seg_check(sh, (size_t)(n - off) << SCALIO_UNIT_SHIFT,
				     block, seq & SCALIO_SEG_GEN_MASK) ||
		    le64_to_cpu(sh->gen) != seq)
			return -EUCLEAN;
		off += DIV_ROUND_UP(le32_to_cpu(sh->len), SCALIO_UNIT_SIZE);
	}
	if (off != n)
		return -EUCLEAN;
	return n;
}

int scalio_batch_next_seg(const void *buf, u32 *off,
			  const struct scalio_seg_hdr **seg, u32 *units)
{
	const struct scalio_batch_hdr *bh = buf;
	const struct scalio_seg_hdr *sh;

	if (*off >= le32_to_cpu(bh->nr_units))
		return 0;
	sh = buf + ((size_t)*off << SCALIO_UNIT_SHIFT);
	*seg = sh;
	*units = DIV_ROUND_UP(le32_to_cpu(sh->len), SCALIO_UNIT_SIZE);
	*off += *units;
	return 1;
}

/* Is there a valid scalio superblock on @ssd?  (@buf: one unit) */
static int scalio_sb_read(struct scalio_ssd *ssd, void *buf)
{
	if (scalio_ssd_read(ssd, 0, buf, 1))
		return -EIO;
	return scalio_sb_check(buf);
}

static int scalio_format_ssd(struct scalio_ssd *ssd)
{
	struct scalio_store *st = ssd->store;
	struct scalio_commit *c = ssd->commit;
	struct scalio_sb *sb = &ssd->log.sb;
	u64 nr_units, ckpt_units, log_start, base;
	int ret;

	nr_units = min_t(u64, ssd->capacity_sectors / SCALIO_SECTORS_PER_UNIT,
			 U32_MAX);	/* seg words hold 32-bit unit numbers */
	ckpt_units = DIV_ROUND_UP(scalio_ckpt_bytes(c->nr_owned),
				  SCALIO_UNIT_SIZE);
	log_start = 1 + 2 * ckpt_units;
	if (nr_units < log_start + SCALIO_LOG_MIN_UNITS) {
		pr_err("%s: ssd %u: %s is too small: %llu units, need %llu\n",
		       st->name, ssd->index, ssd->device_path, nr_units,
		       log_start + SCALIO_LOG_MIN_UNITS);
		return -ENOSPC;
	}

	memset(sb, 0, sizeof(*sb));
	sb->magic = cpu_to_le64(SCALIO_SB_MAGIC);
	sb->version = cpu_to_le32(SCALIO_FORMAT_VERSION);
	sb->ssd_index = cpu_to_le32(ssd->index);
	sb->nr_ssds = cpu_to_le32(st->nr_ssds);
	sb->nr_blocks = cpu_to_le32(st->nr_blocks);
	memcpy(sb->uuid, st->uuid, sizeof(sb->uuid));
	sb->hash_seed = cpu_to_le64(st->hash_seed);
	sb->nr_units = cpu_to_le64(nr_units);
	sb->ckpt_units = cpu_to_le64(ckpt_units);
	sb->log_start = cpu_to_le64(log_start);
	sb->log_units = cpu_to_le64(nr_units - log_start);
	sb->seq = cpu_to_le64(1);
	scalio_sb_seal(sb);

	vfree(c->ckpt);
	c->ckpt = vmalloc(ckpt_units << SCALIO_UNIT_SHIFT);
	if (!c->ckpt)
		return -ENOMEM;

	/* Random start (< 2^40, > 0): see the file comment. */
	base = (get_random_u64() >> 24) | 1;
	ssd->log.head = log_start;
	ssd->log.tail = log_start;
	ssd->log.next_batch = base;
	ssd->log.head_seq = base;
	ssd->log.used_units = 0;
	ssd->log.ckpt_seq = 0;

	/* Log start, both checkpoint slots, then the superblock. */
	memset(c->buf, 0, SCALIO_UNIT_SIZE);
	ret = scalio_ssd_write(ssd, log_start, c->buf, 1);
	if (!ret)
		ret = scalio_checkpoint_write(ssd);
	if (!ret)
		ret = scalio_checkpoint_write(ssd);
	if (!ret) {
		memset(c->buf, 0, SCALIO_UNIT_SIZE);
		memcpy(c->buf, sb, sizeof(*sb));
		ret = scalio_ssd_write(ssd, 0, c->buf, 1);
	}
	if (ret) {
		pr_err("%s: ssd %u: format of %s failed: %d\n", st->name,
		       ssd->index, ssd->device_path, ret);
		return ret;
	}
	pr_info("%s: ssd %u: formatted %s: %llu units, log %llu units\n",
		st->name, ssd->index, ssd->device_path, nr_units,
		nr_units - log_start);
	return 0;
}

/*
 * Format every SSD of a store whose SSD 0 is blank: only if all of them
 * are, so that a store missing one device is never half re-formatted.
 */
static int scalio_format_store(struct scalio_store *st)
{
	struct scalio_ssd *ssd0 = st->ssds[0];
	u32 j;
	int ret;

	for (j = 1; j < st->nr_ssds; j++) {
		struct scalio_ssd *o = st->ssds[j];

		ret = scalio_sb_read(o, ssd0->commit->arena);
		if (ret == -EIO)
			return -EIO;
		if (ret != -ENODATA) {
			pr_err("%s: ssd 0 (%s) has no scalio superblock, but ssd %u (%s) has one: refusing to format part of a store\n",
			       st->name, ssd0->device_path, j,
			       o->device_path);
			return -EINVAL;
		}
	}
	generate_random_uuid(st->uuid);
	/* Secret, so that keys cannot be chosen to fill one block. */
	st->hash_seed = get_random_u64() | 1;
	for (j = 0; j < st->nr_ssds; j++) {
		ret = scalio_format_ssd(st->ssds[j]);
		if (ret)
			return ret;
	}
	pr_info("%s: new store %pU on %u SSD(s)\n", st->name, st->uuid,
		st->nr_ssds);
	return 0;
}

/* Check a superblock found on @ssd against the store's configuration. */
static int scalio_sb_match(struct scalio_ssd *ssd, const struct scalio_sb *sb)
{
	struct scalio_store *st = ssd->store;
	static const u8 zero_uuid[16];
	u64 need_ckpt;

	if (le32_to_cpu(sb->nr_ssds) != st->nr_ssds ||
	    le32_to_cpu(sb->nr_blocks) != st->nr_blocks ||
	    le32_to_cpu(sb->ssd_index) != ssd->index) {
		pr_err("%s: ssd %u: %s belongs to a store with %u SSDs and %u blocks, as ssd %u; configured: %u SSDs, %u blocks, ssd %u\n",
		       st->name, ssd->index, ssd->device_path,
		       le32_to_cpu(sb->nr_ssds), le32_to_cpu(sb->nr_blocks),
		       le32_to_cpu(sb->ssd_index), st->nr_ssds,
		       st->nr_blocks, ssd->index);
		return -EINVAL;
	}
	if (memcmp(st->uuid, zero_uuid, sizeof(zero_uuid)) &&
	    memcmp(st->uuid, sb->uuid, sizeof(sb->uuid))) {
		pr_err("%s: ssd %u: %s belongs to another store (uuid %pU, expected %pU)\n",
		       st->name, ssd->index, ssd->device_path, sb->uuid,
		       st->uuid);
		return -EINVAL;
	}
	if (le64_to_cpu(sb->nr_units) >
	    ssd->capacity_sectors / SCALIO_SECTORS_PER_UNIT) {
		pr_err("%s: ssd %u: %s is smaller than when it was formatted\n",
		       st->name, ssd->index, ssd->device_path);
		return -EINVAL;
	}
	need_ckpt = DIV_ROUND_UP(scalio_ckpt_bytes(ssd->commit->nr_owned),
				 SCALIO_UNIT_SIZE);
	if (le64_to_cpu(sb->ckpt_units) < need_ckpt ||
	    le64_to_cpu(sb->log_units) < SCALIO_LOG_MIN_UNITS ||
	    le64_to_cpu(sb->nr_units) > U32_MAX) {
		pr_err("%s: ssd %u: %s: inconsistent superblock geometry\n",
		       st->name, ssd->index, ssd->device_path);
		return -EINVAL;
	}
	if (ssd->index && st->hash_seed !=
	    (le64_to_cpu(sb->hash_seed) ?: SCALIO_HASH_SEED)) {
		pr_err("%s: ssd %u: %s: hash seed differs from ssd 0's\n",
		       st->name, ssd->index, ssd->device_path);
		return -EINVAL;
	}
	memcpy(st->uuid, sb->uuid, sizeof(st->uuid));
	st->hash_seed = le64_to_cpu(sb->hash_seed) ?: SCALIO_HASH_SEED;
	return 0;
}

/* Validate checkpoint slot image @h; return its seq or 0 if invalid. */
static u64 scalio_ckpt_valid(struct scalio_ssd *ssd,
			     const struct scalio_ckpt_hdr *h)
{
	u32 nr_owned = ssd->commit->nr_owned;
	u64 start = le64_to_cpu(ssd->log.sb.log_start);
	u64 end = scalio_log_end(ssd);
	u64 head = le64_to_cpu(h->log_head), tail = le64_to_cpu(h->log_tail);

	if (le64_to_cpu(h->magic) != SCALIO_CKPT_MAGIC ||
	    le32_to_cpu(h->nr_entries) != nr_owned)
		return 0;
	if (le32_to_cpu(h->crc) !=
	    scalio_crc(h, scalio_ckpt_bytes(nr_owned),
		       offsetof(struct scalio_ckpt_hdr, crc)))
		return 0;
	if (head < start || head >= end || tail < start || tail >= end ||
	    !le64_to_cpu(h->head_seq) ||
	    le64_to_cpu(h->head_seq) > le64_to_cpu(h->next_batch))
		return 0;
	return le64_to_cpu(h->seq);
}

/* Load the newest valid checkpoint into the index and the log state. */
static int scalio_ckpt_load(struct scalio_ssd *ssd)
{
	struct scalio_store *st = ssd->store;
	struct scalio_commit *c = ssd->commit;
	u64 ckpt_units = le64_to_cpu(ssd->log.sb.ckpt_units);
	u64 start = le64_to_cpu(ssd->log.sb.log_start);
	u64 end = scalio_log_end(ssd), L = end - start;
	u32 units = DIV_ROUND_UP(scalio_ckpt_bytes(c->nr_owned),
				 SCALIO_UNIT_SIZE);
	struct scalio_ckpt_hdr *h = c->ckpt;
	struct scalio_ckpt_entry *e = (void *)(h + 1);
	u64 seq[2], best;
	u32 slot, i;

	for (slot = 0; slot < 2; slot++) {
		if (scalio_ssd_read(ssd, 1 + slot * ckpt_units, h, units))
			return -EIO;
		seq[slot] = scalio_ckpt_valid(ssd, h);
	}
	if (!seq[0] && !seq[1]) {
		pr_err("%s: ssd %u: no valid checkpoint on %s\n", st->name,
		       ssd->index, ssd->device_path);
		return -EIO;
	}
	slot = seq[1] > seq[0] ? 1 : 0;
	best = seq[slot];
	/* @h holds slot 1: re-read slot 0 if that is the newer one. */
	if (slot == 0 && scalio_ssd_read(ssd, 1, h, units))
		return -EIO;
	if (scalio_ckpt_valid(ssd, h) != best)
		return -EIO;	/* changed under us: cannot happen */

	for (i = 0; i < c->nr_owned; i++) {
		u32 block = ssd->index + i * st->nr_ssds;
		u64 seg = le64_to_cpu(e[i].seg), gen = le64_to_cpu(e[i].gen);

		if (seg && (scalio_seg_ssd(seg) != ssd->index ||
			    scalio_seg_unit(seg) < start ||
			    !scalio_seg_len(seg) ||
			    scalio_seg_unit(seg) + scalio_seg_len(seg) > end ||
			    scalio_seg_gen(seg) !=
			    (gen & SCALIO_SEG_GEN_MASK))) {
			pr_err("%s: ssd %u: checkpoint %llu: bad entry for block %u\n",
			       st->name, ssd->index, best, block);
			return -EIO;
		}
		ssd->gens[i] = gen;
		scalio_index_set_seg(&st->index, block, seg);
	}
	ssd->log.ckpt_seq = best;
	ssd->log.head = le64_to_cpu(h->log_head);
	ssd->log.tail = le64_to_cpu(h->log_tail);
	ssd->log.next_batch = le64_to_cpu(h->next_batch);
	ssd->log.head_seq = le64_to_cpu(h->head_seq);
	ssd->log.used_units = (ssd->log.tail + L - ssd->log.head) % L;
	return 0;
}

/*
 * Zero the header unit of a torn batch @seq at @pos, so that it can never
 * pass for the batch of that sequence number written elsewhere later.
 */
static int scalio_log_zap(struct scalio_ssd *ssd, u64 pos, u64 seq)
{
	struct scalio_commit *c = ssd->commit;

	pr_warn("%s: ssd %u: batch %llu at unit %llu is torn (never acknowledged): discarding it\n",
		ssd->store->name, ssd->index, seq, pos);
	memset(c->buf, 0, SCALIO_UNIT_SIZE);
	return scalio_ssd_write(ssd, pos, c->buf, 1);
}

/* Replay the batches written after the checkpoint into the index. */
static int scalio_log_replay(struct scalio_ssd *ssd, u64 *replayed)
{
	struct scalio_store *st = ssd->store;
	struct scalio_commit *c = ssd->commit;
	u64 start = le64_to_cpu(ssd->log.sb.log_start);
	u64 end = scalio_log_end(ssd), L = end - start;
	u64 pos, waste, seq;
	int n;

	*replayed = 0;
	for (;;) {
		const struct scalio_seg_hdr *sh;
		u32 off = 1, units;

		seq = ssd->log.next_batch;
		pos = ssd->log.tail;
		waste = 0;
		n = scalio_log_read_batch(ssd, pos, seq, c->arena,
					  SCALIO_BUF_UNITS);
		if (n == -EIO)
			return -EIO;
		if (n < 0 && pos != start) {
			/* Not here: it may have wrapped to the log start. */
			int n2 = scalio_log_read_batch(ssd, start, seq, c->arena,
						       SCALIO_BUF_UNITS);

			if (n2 == -EIO)
				return -EIO;
			if (n2 >= 0) {
				if (n == -EUCLEAN &&
				    scalio_log_zap(ssd, pos, seq))
					return -EIO;
				waste = end - pos;
				pos = start;
				n = n2;
			} else if (n2 == -EUCLEAN) {
				if (scalio_log_zap(ssd, start, seq))
					return -EIO;
			}
		}
		if (n == -EUCLEAN || n == -E2BIG) {
			if (scalio_log_zap(ssd, pos, seq))
				return -EIO;
			break;
		}
		if (n < 0)
			break;	/* end of the chain */
		if (ssd->log.used_units + waste + n >= L) {
			pr_warn("%s: ssd %u: batch %llu would overrun the log head; stopping replay\n",
				st->name, ssd->index, seq);
			break;
		}
		while (scalio_batch_next_seg(c->arena, &off, &sh, &units)) {
			u32 block = le32_to_cpu(sh->block);
			u32 i = scalio_owned_idx(ssd, block);
			u64 seg = 0;

			if (seq <= ssd->gens[i])
				continue;
			if (le32_to_cpu(sh->nr_records))
				seg = scalio_seg_make(ssd->index,
						      pos + off - units, units,
						      seq);
			ssd->gens[i] = seq;
			scalio_index_set_seg(&st->index, block, seg);
		}
		ssd->log.tail = pos + n == end ? start : pos + n;
		ssd->log.used_units += waste + n;
		ssd->log.next_batch = seq + 1;
		(*replayed)++;
	}
	return 0;
}

/* Count the keys of the SSD (one unit read per non-empty block). */
static int scalio_count_keys(struct scalio_ssd *ssd)
{
	struct scalio_store *st = ssd->store;
	struct scalio_commit *c = ssd->commit;
	const struct scalio_seg_hdr *sh = c->arena;
	u64 keys = 0;
	u32 i;

	for (i = 0; i < c->nr_owned; i++) {
		u32 block = ssd->index + i * st->nr_ssds;
		u64 seg = scalio_index_get_seg(&st->index, block);

		if (!seg)
			continue;
		if (scalio_ssd_read(ssd, scalio_seg_unit(seg), c->arena, 1))
			return -EIO;
		if (le32_to_cpu(sh->magic) != SCALIO_SEG_MAGIC ||
		    le32_to_cpu(sh->block) != block ||
		    le64_to_cpu(sh->gen) != ssd->gens[i]) {
			pr_err("%s: ssd %u: block %u: segment at unit %u is not the one recorded\n",
			       st->name, ssd->index, block,
			       scalio_seg_unit(seg));
			return -EIO;
		}
		keys += le32_to_cpu(sh->nr_records);
	}
	c->keys = keys;
	return 0;
}

/**
 * scalio_recover_ssd() - format a blank SSD or recover it into the index
 * @ssd:	opened SSD of a store being enabled (commit state allocated,
 *		commit kthread not running); SSDs are recovered in index
 *		order
 *
 * When SSD 0 has no superblock the whole store is formatted, with one new
 * uuid, provided no SSD of it has a superblock; a blank SSD in a store
 * whose SSD 0 is formatted is refused.
 *
 * Return: 0; -EINVAL when the device belongs to another store or
 * geometry; -ENOSPC when it is too small; -EIO.
 */
int scalio_recover_ssd(struct scalio_ssd *ssd)
{
	struct scalio_store *st = ssd->store;
	struct scalio_commit *c = ssd->commit;
	u64 replayed;
	int ret;

	ret = scalio_sb_read(ssd, c->arena);
	if (ret == -ENODATA) {
		if (ssd->index) {
			pr_err("%s: ssd %u: %s has no scalio superblock, but ssd 0 has one: refusing to format part of a store\n",
			       st->name, ssd->index, ssd->device_path);
			return -EINVAL;
		}
		ret = scalio_format_store(st);
		if (ret)
			return ret;
		ret = scalio_sb_read(ssd, c->arena);
	}
	if (ret == -EIO)
		return -EIO;
	if (ret) {
		pr_err("%s: ssd %u: %s: unusable superblock (%d)\n", st->name,
		       ssd->index, ssd->device_path, ret);
		return ret == -EPROTONOSUPPORT ? -EINVAL : -EIO;
	}

	memcpy(&ssd->log.sb, c->arena, sizeof(ssd->log.sb));
	ret = scalio_sb_match(ssd, &ssd->log.sb);
	if (ret)
		return ret;
	vfree(c->ckpt);
	c->ckpt = vmalloc(le64_to_cpu(ssd->log.sb.ckpt_units) <<
			  SCALIO_UNIT_SHIFT);
	if (!c->ckpt)
		return -ENOMEM;

	ret = scalio_ckpt_load(ssd);
	if (!ret)
		ret = scalio_log_replay(ssd, &replayed);
	if (!ret)
		ret = scalio_count_keys(ssd);
	if (!ret)
		ret = scalio_checkpoint_write(ssd);
	if (ret) {
		pr_err("%s: ssd %u: recovery of %s failed: %d\n", st->name,
		       ssd->index, ssd->device_path, ret);
		return ret;
	}
	pr_info("%s: ssd %u: recovered %s: checkpoint %llu + %llu batches, %llu keys, log %llu/%llu units used\n",
		st->name, ssd->index, ssd->device_path, ssd->log.ckpt_seq - 1,
		replayed, c->keys, ssd->log.used_units,
		le64_to_cpu(ssd->log.sb.log_units));
	return 0;
}
