// SPDX-License-Identifier: GPL-2.0
/*
 * Formatting, checkpoints and crash recovery of one SSD of a store.
 *
 * Layout (scalio_format.h): superblock at unit 0, two checkpoint slots,
 * then the circular log.  A checkpoint holds every owned bucket's seg word
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
 *
 * Damage.  A device is formatted only when the operator asks for it
 * (attr_format_on_enable); anything else that is not an intact store is
 * refused with a report of what was found.  The superblock has a copy at
 * unit 1: a damaged primary is recovered from it and rewritten.  The end
 * of the chain is not trusted blindly either: a damaged batch in the
 * middle of the log looks like the end of the chain, so recovery probes
 * the units where the following batches would be (after the end, and at
 * the log start) for an intact batch with a higher sequence number.  If
 * one exists, acknowledged writes would be lost: the store is refused
 * (nothing is written) unless attr_force_recover is set, in which case the
 * damaged batches are dropped, the later ones replayed, and what was
 * dropped is reported.
 *
 * Units bad on the medium.  A log unit that fails with a media error three
 * times while the superblock still reads is unreadable, not a dead device
 * (which fails the recovery with -EIO, as any other error does).  An
 * unreadable batch ends the chain as a damaged one does: with an intact
 * batch after it, refused or, forced, dropped as a gap and its unreadable
 * units named.  Unlike a torn batch, one that cannot be read at the end of
 * the log may be whole and acknowledged, and so may one in units the probe
 * could not read (free log space only): refused unless forced; forced,
 * the log ends there, the loss is reported, and the next batch takes a
 * sequence number past any batch those units could hold, so that one
 * which reads again later never continues the chain.
 */
#define pr_fmt(fmt) "scalio-target: recovery: " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/uuid.h>
#include <linux/vmalloc.h>

#include "scalio_store.h"

/**
 * scalio_tgt_report() - log a finding of enable and keep it for the operator
 * @st:		store (st->lock held)
 * @err:	an error (pr_err) rather than a notice (pr_warn)
 * @fmt:	one line, without the store name and newline
 *
 * The lines of the last enable are readable from the store's "report"
 * attribute (scalioctl target-setup prints them); when the page is full
 * the rest only goes to dmesg.
 */
void scalio_tgt_report(struct scalio_tgt_store *st, bool err, const char *fmt,
		       ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (err)
		pr_err("%s: %s\n", st->name, line);
	else
		pr_warn("%s: %s\n", st->name, line);
	if (st->report && st->report_len < PAGE_SIZE - 1)
		st->report_len += scnprintf(st->report + st->report_len,
					    PAGE_SIZE - st->report_len,
					    "%s\n", line);
}

/* What scalio_sb_check()'s result @ret means, for the report. */
static const char *scalio_tgt_sb_what(int ret, const void *unit)
{
	static const u8 zero[64];

	switch (ret) {
	case 0:
		return "intact";
	case -ENODATA:
		return memcmp(unit, zero, sizeof(zero)) ?
		       "no scalio superblock (other data)" :
		       "no scalio superblock (blank)";
	case -EBADMSG:
		return "scalio superblock with a bad crc (damaged)";
	case -EPROTONOSUPPORT:
		return "scalio superblock of another format version";
	case -ERANGE:
		return "scalio superblock with an impossible geometry";
	case -EIO:
		return "unreadable (I/O error)";
	default:
		return "unusable";
	}
}

/* Read the superblock at @unit into @buf (one unit) and check it. */
static int scalio_tgt_sb_read(struct scalio_tgt_ssd *ssd, u64 unit, void *buf)
{
	if (scalio_tgt_ssd_read(ssd, unit, buf, 1))
		return -EIO;
	return scalio_sb_check(buf);
}

/**
 * scalio_tgt_sb_buckets() - the bucket count an SSD's superblock records
 * @ssd:	an opened SSD (before the store's index is allocated)
 *
 * For an enable that leaves attr_nr_buckets at 0: a store keeps the
 * bucket count it was formatted with, so the administrator need not
 * repeat it.  Reads the superblock, or its copy when the primary is not
 * intact; everything else about them is left to recovery.
 *
 * Return: the bucket count, or 0 when neither superblock is intact.
 */
u32 scalio_tgt_sb_buckets(struct scalio_tgt_ssd *ssd)
{
	u32 nr = 0, unit;
	void *buf;

	buf = kmalloc(SCALIO_UNIT_SIZE, GFP_KERNEL);
	if (!buf)
		return 0;
	for (unit = SCALIO_SB_UNIT; unit <= SCALIO_SB_COPY_UNIT && !nr;
	     unit++)
		if (!scalio_tgt_sb_read(ssd, unit, buf))
			nr = le32_to_cpu(((struct scalio_sb *)buf)->nr_buckets);
	kfree(buf);
	return nr;
}

/* Write @sb (a sealed superblock) to @unit; @buf: one unit of scratch. */
static int scalio_tgt_sb_write(struct scalio_tgt_ssd *ssd, u64 unit,
			       const struct scalio_sb *sb, void *buf)
{
	memset(buf, 0, SCALIO_UNIT_SIZE);
	memcpy(buf, sb, sizeof(*sb));
	return scalio_tgt_ssd_write(ssd, unit, buf, 1);
}

static int scalio_tgt_format_ssd(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	struct scalio_sb *sb = &ssd->log.sb;
	u64 nr_units, ckpt_units, log_start, base;
	int ret;

	nr_units = min_t(u64, ssd->capacity_sectors / SCALIO_SECTORS_PER_UNIT,
			 U32_MAX);	/* seg words hold 32-bit unit numbers */
	ckpt_units = scalio_ckpt_units(c->nr_owned);
	log_start = SCALIO_CKPT_UNIT + 2 * ckpt_units;
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
	sb->nr_buckets = cpu_to_le32(st->nr_buckets);
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

	/*
	 * Both superblocks are cleared first, so that a format cut short
	 * leaves a device that is refused, not a half-old store.  Then the
	 * log start, both checkpoint slots, the superblock and its copy.
	 */
	memset(c->buf, 0, 2 * SCALIO_UNIT_SIZE);
	ret = scalio_tgt_ssd_write(ssd, SCALIO_SB_UNIT, c->buf, 2);
	if (!ret)
		ret = scalio_tgt_ssd_write(ssd, log_start, c->buf, 1);
	if (!ret)
		ret = scalio_tgt_checkpoint_write(ssd);
	if (!ret)
		ret = scalio_tgt_checkpoint_write(ssd);
	if (!ret)
		ret = scalio_tgt_sb_write(ssd, SCALIO_SB_UNIT, sb, c->buf);
	if (!ret)
		ret = scalio_tgt_sb_write(ssd, SCALIO_SB_COPY_UNIT, sb, c->buf);
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

/* Format every SSD of the store, with one new uuid (asked for). */
static int scalio_tgt_format_store(struct scalio_tgt_store *st)
{
	u32 j;
	int ret;

	generate_random_uuid(st->uuid);
	/* Secret, so that keys cannot be chosen to fill one bucket. */
	st->hash_seed = get_random_u64() | 1;
	for (j = 0; j < st->nr_ssds; j++) {
		ret = scalio_tgt_format_ssd(st->ssds[j]);
		if (ret)
			return ret;
	}
	pr_info("%s: new store %pU on %u SSD(s)\n", st->name, st->uuid,
		st->nr_ssds);
	return 0;
}

/* Check a superblock found on @ssd against the store's configuration. */
static int scalio_tgt_sb_match(struct scalio_tgt_ssd *ssd,
			       const struct scalio_sb *sb)
{
	struct scalio_tgt_store *st = ssd->store;
	static const u8 zero_uuid[16];
	u64 need_ckpt;

	if (le32_to_cpu(sb->nr_ssds) != st->nr_ssds ||
	    le32_to_cpu(sb->nr_blocks) != st->nr_blocks ||
	    le32_to_cpu(sb->nr_buckets) != st->nr_buckets ||
	    le32_to_cpu(sb->ssd_index) != ssd->index) {
		pr_err("%s: ssd %u: %s belongs to a store with %u SSDs, %u blocks and %u buckets, as ssd %u; configured: %u SSDs, %u blocks, %u buckets, ssd %u\n",
		       st->name, ssd->index, ssd->device_path,
		       le32_to_cpu(sb->nr_ssds), le32_to_cpu(sb->nr_blocks),
		       le32_to_cpu(sb->nr_buckets),
		       le32_to_cpu(sb->ssd_index), st->nr_ssds,
		       st->nr_blocks, st->nr_buckets, ssd->index);
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
	need_ckpt = scalio_ckpt_units(ssd->commit->nr_owned);
	if (le64_to_cpu(sb->ckpt_units) != need_ckpt ||
	    le64_to_cpu(sb->log_units) < SCALIO_LOG_MIN_UNITS ||
	    le64_to_cpu(sb->nr_units) > U32_MAX) {
		pr_err("%s: ssd %u: %s: inconsistent superblock geometry\n",
		       st->name, ssd->index, ssd->device_path);
		return -EINVAL;
	}
	if (ssd->index && st->hash_seed != le64_to_cpu(sb->hash_seed)) {
		pr_err("%s: ssd %u: %s: hash seed differs from ssd 0's\n",
		       st->name, ssd->index, ssd->device_path);
		return -EINVAL;
	}
	memcpy(st->uuid, sb->uuid, sizeof(st->uuid));
	st->hash_seed = le64_to_cpu(sb->hash_seed);
	return 0;
}

/**
 * scalio_tgt_sb_load() - find the SSD's superblock, from its copy if need be
 * @ssd:	SSD being recovered
 *
 * Uses the primary when it is intact, else the copy at unit 1; the one
 * that was damaged is rewritten from the other (and reported).  Nothing
 * is written unless the good one belongs to this store's configuration.
 *
 * Return: 0 with ssd->log.sb set; -ENODATA (no scalio superblock at
 * all: not a scalio store), -EUCLEAN (damaged), -EINVAL (another store,
 * geometry or format version), -EIO.
 */
static int scalio_tgt_sb_load(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	void *p0 = c->arena, *p1 = c->arena + SCALIO_UNIT_SIZE;
	int r0, r1, ret;

	r0 = scalio_tgt_sb_read(ssd, SCALIO_SB_UNIT, p0);
	r1 = scalio_tgt_sb_read(ssd, SCALIO_SB_COPY_UNIT, p1);
	if (r0 && r1) {
		scalio_tgt_report(st, true,
				  "ssd %u: %s: refused: unit 0 holds %s, unit 1 %s%s",
				  ssd->index, ssd->device_path,
				  scalio_tgt_sb_what(r0, p0),
				  scalio_tgt_sb_what(r1, p1),
				  r0 == -ENODATA && r1 == -ENODATA ?
				  "; not a scalio store (format it explicitly)" :
				  "; not formatting it");
		if (r0 == -EPROTONOSUPPORT || r1 == -EPROTONOSUPPORT) {
			u32 v = le32_to_cpu(((struct scalio_sb *)
					     (r0 == -EPROTONOSUPPORT ?
					      p0 : p1))->version);

			/* Releases writing versions 3 and 4 have scalioctl export. */
			scalio_tgt_report(st, true,
					  "ssd %u: the store is in on-SSD format version %u; this module reads version %u only: %s",
					  ssd->index, v, SCALIO_FORMAT_VERSION,
					  v == 3 || v == 4 ?
					  "with the scalio release that wrote it, 'scalioctl export' its pairs to a file, then 'scalioctl import' that file into a new store of this release" :
					  "copy its pairs into a new store with the scalio release that wrote it");
		}
		if (r0 == -EIO && r1 == -EIO)
			return -EIO;
		if (r0 == -ENODATA && r1 == -ENODATA)
			return -ENODATA;
		if (r0 == -EPROTONOSUPPORT || r1 == -EPROTONOSUPPORT)
			return -EINVAL;
		return -EUCLEAN;
	}
	memcpy(&ssd->log.sb, r0 ? p1 : p0, sizeof(ssd->log.sb));
	ret = scalio_tgt_sb_match(ssd, &ssd->log.sb);
	if (ret)
		return ret;
	if (!r0 && !r1 && !memcmp(p0, p1, sizeof(ssd->log.sb)))
		return 0;
	/* One of the two is damaged or differs: rewrite it. */
	ret = scalio_tgt_sb_write(ssd,
				  r0 ? SCALIO_SB_UNIT : SCALIO_SB_COPY_UNIT,
				  &ssd->log.sb, c->buf);
	scalio_tgt_report(st, false,
			  "ssd %u: %s: superblock %s holds %s: using the %s; rewriting it %s",
			  ssd->index, ssd->device_path,
			  r0 ? "(unit 0)" : "copy (unit 1)",
			  r0 ? scalio_tgt_sb_what(r0, p0) :
			  r1 ? scalio_tgt_sb_what(r1, p1) : "a different superblock",
			  r0 ? "copy" : "primary",
			  ret ? "failed" : "succeeded");
	return 0;
}

#ifdef SCALIO_TEST_HOOKS
/*
 * One-shot: the next read of checkpoint slot A (1) or B (2) fails with
 * -EIO, as a transient read error would.
 */
static unsigned int scalio_tgt_debug_fail_ckpt_slot;
module_param_named(debug_fail_ckpt_slot, scalio_tgt_debug_fail_ckpt_slot, uint,
		   0644);
MODULE_PARM_DESC(debug_fail_ckpt_slot,
		 "TESTING ONLY: the next read of checkpoint slot 1 (A) or 2 (B) fails with EIO");

static bool scalio_tgt_ckpt_read_hook(u32 slot)
{
	return cmpxchg(&scalio_tgt_debug_fail_ckpt_slot, slot + 1,
		       0) == slot + 1;
}
#else
static inline bool scalio_tgt_ckpt_read_hook(u32 slot)
{
	return false;
}
#endif

/*
 * Load the newest valid checkpoint into the index and the log state.  A
 * slot that cannot be read is not taken for invalid: it may hold the
 * newest checkpoint, which the closing checkpoint of this recovery would
 * then overwrite.  Refused with -EIO (nothing written) unless the recovery
 * is forced.
 */
static int scalio_tgt_ckpt_load(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	const struct scalio_sb *sb = &ssd->log.sb;
	u64 ckpt_units = le64_to_cpu(sb->ckpt_units);
	u64 L = le64_to_cpu(sb->log_units);
	struct scalio_ckpt_hdr *h = c->ckpt;
	struct scalio_ckpt_entry *e = (void *)(h + 1);
	u64 seq[2] = { 0, 0 };
	int err[2];
	u32 slot, i;

	/* ckpt_units was bounded by scalio_sb_check(): c->ckpt holds it. */
	for (slot = 0; slot < 2; slot++) {
		if (scalio_tgt_ckpt_read_hook(slot) ||
		    scalio_tgt_ssd_read(ssd,
					SCALIO_CKPT_UNIT + slot * ckpt_units,
					h, ckpt_units))
			err[slot] = -EIO;
		else
			err[slot] = scalio_ckpt_check(h, sb, c->nr_owned);
		if (!err[slot])
			seq[slot] = le64_to_cpu(h->seq);
	}
	if ((err[0] == -EIO) != (err[1] == -EIO) && !st->force_recover) {
		scalio_tgt_report(st, true,
				  "ssd %u: %s: refused: checkpoint slot %c is unreadable (I/O error) and may be the newest; nothing was written (enable again once it reads, or force the recovery to use slot %c)",
				  ssd->index, ssd->device_path,
				  err[0] == -EIO ? 'A' : 'B', err[0] == -EIO ? 'B' : 'A');
		return -EIO;
	}
	if (err[0] && err[1]) {
		scalio_tgt_report(st, true,
				  "ssd %u: %s: refused: no valid checkpoint (slot A: %d, slot B: %d)",
				  ssd->index, ssd->device_path, err[0], err[1]);
		return err[0] == -EIO && err[1] == -EIO ? -EIO : -EUCLEAN;
	}
	slot = seq[1] > seq[0] ? 1 : 0;
	if (err[0] || err[1])
		scalio_tgt_report(st, false,
				  "ssd %u: %s: checkpoint slot %c is invalid (%d): using slot %c (checkpoint %llu)",
				  ssd->index, ssd->device_path, err[0] ? 'A' : 'B',
				  err[0] ? err[0] : err[1], 'A' + slot, seq[slot]);
	/* @h holds slot 1: re-read slot 0 if that is the newer one. */
	if (slot == 0 &&
	    (scalio_tgt_ssd_read(ssd, SCALIO_CKPT_UNIT, h, ckpt_units) ||
	     scalio_ckpt_check(h, sb, c->nr_owned) ||
	     le64_to_cpu(h->seq) != seq[0]))
		return -EIO;	/* changed under us */

	for (i = 0; i < c->nr_owned; i++) {
		u32 bucket = ssd->index + i * st->nr_ssds;

		ssd->gens[i] = le64_to_cpu(e[i].gen);
		scalio_tgt_index_set_seg(&st->index, bucket,
					 le64_to_cpu(e[i].seg));
	}
	ssd->log.ckpt_seq = seq[slot];
	ssd->log.head = le64_to_cpu(h->log_head);
	ssd->log.tail = le64_to_cpu(h->log_tail);
	ssd->log.next_batch = le64_to_cpu(h->next_batch);
	ssd->log.head_seq = le64_to_cpu(h->head_seq);
	ssd->log.used_units = (ssd->log.tail + L - ssd->log.head) % L;
	return 0;
}

/* Gaps a forced recovery drops at most per SSD (then it gives up). */
#define SCALIO_MAX_GAPS		8
/* Lines of dropped keys reported per SSD. */
#define SCALIO_REPORT_KEYS	64

/**
 * struct scalio_tgt_gap - damaged batches a forced recovery dropped
 * @pos:	unit where the first of them was expected
 * @units:	units from there to the next intact batch
 * @seq:	first dropped sequence number
 * @next:	sequence number of the intact batch that follows
 */
struct scalio_tgt_gap {
	u64	pos;
	u64	units;
	u64	seq;
	u64	next;
};

/*
 * A dropped batch's intact segment @gsh of @bucket, not rewritten later:
 * each key the bucket holds now (its segment from before the gap) that
 * @gsh lacks was deleted by that batch, and is back with an older value.
 * Uses the commit arena.
 */
static int scalio_tgt_report_back(struct scalio_tgt_ssd *ssd, u32 bucket,
				  u64 gen, const void *gsh, u32 *lines)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 w = scalio_tgt_index_get_seg(&st->index, bucket);
	u64 cur = ssd->gens[scalio_tgt_owned_idx(ssd, bucket)];
	u32 len = scalio_seg_len(w), pos = 0;
	struct scalio_rec rec, found;
	int ret;

	if (!w)
		return 0;	/* the bucket is empty now: nothing back */
	if (!len || len > SCALIO_BUF_UNITS)
		return 0;
	ret = scalio_tgt_seg_read_live(ssd, bucket, w, cur, c->arena);
	if (ret != -EBADMSG && ret != -ESTALE && ret)
		return -EIO;
	if (ret) {
		scalio_tgt_report(st, true,
				  "ssd %u: bucket %u: its segment of batch %llu is damaged: keys deleted by batch %llu are unknown",
				  ssd->index, bucket, cur, gen);
		return 0;
	}
	while (scalio_seg_next(c->arena, &pos, &rec) > 0) {
		if (scalio_seg_find(gsh, rec.key, rec.klen, &found) != -ENOENT)
			continue;
		if (++*lines > SCALIO_REPORT_KEYS)
			continue;
		scalio_tgt_report(st, true,
				  "ssd %u: batch %llu: bucket %u: key '%*pE' was deleted by it: BACK with its value of batch %llu",
				  ssd->index, gen, bucket, (int)rec.klen, rec.key,
				  cur);
	}
	return 0;
}

/*
 * Does the segment header at @sh look like one a dropped batch of @gap
 * wrote on this SSD?  Only a candidate: its crc is checked on the whole.
 */
static bool scalio_tgt_gap_candidate(struct scalio_tgt_ssd *ssd,
				     const struct scalio_tgt_gap *gap,
				     const struct scalio_seg_hdr *sh)
{
	struct scalio_tgt_store *st = ssd->store;
	u64 gen = le64_to_cpu(sh->gen);
	u32 bucket = le32_to_cpu(sh->bucket);

	return le32_to_cpu(sh->magic) == SCALIO_SEG_MAGIC &&
	       gen >= gap->seq && gen < gap->next && bucket < st->nr_buckets &&
	       scalio_bucket_ssd(bucket, st->nr_ssds) == ssd->index;
}

/*
 * Report the candidate segment at sector @s of unit @u of @gap (read into
 * the commit buffer).  Return: sectors it takes from @s when intact (so
 * that records inside it are not taken for headers), 0 when not, or a
 * read error.
 */
static int scalio_tgt_report_gap_seg(struct scalio_tgt_ssd *ssd,
				     const struct scalio_tgt_gap *gap, u64 u,
				     u32 s, u32 *lines)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	const struct scalio_seg_hdr *sh = c->buf;
	u64 end = scalio_tgt_log_end(ssd), gen;
	u32 off = s << SCALIO_SECTOR_SHIFT, bucket, len, units, pos = 0;
	struct scalio_rec rec;
	bool kept;
	int ret;

	ret = scalio_tgt_log_read_units(ssd, u, c->buf, 1);
	if (ret)
		return ret == -ENODATA ? 0 : ret;
	memmove(c->buf, c->buf + off, SCALIO_UNIT_SIZE - off);
	if (!scalio_tgt_gap_candidate(ssd, gap, sh))
		return 0;	/* read otherwise this time */
	gen = le64_to_cpu(sh->gen);
	bucket = le32_to_cpu(sh->bucket);
	len = le32_to_cpu(sh->len);
	units = clamp_t(u64, DIV_ROUND_UP(off + min(len, SCALIO_SEG_MAX_BYTES),
					  SCALIO_UNIT_SIZE),
			1, min_t(u64, SCALIO_SEG_LEN_MAX, end - u));
	ret = scalio_tgt_log_read_units(ssd, u, c->buf, units);
	if (ret && ret != -ENODATA)
		return ret;
	memmove(c->buf, c->buf + off, ((size_t)units << SCALIO_UNIT_SHIFT) - off);
	kept = ssd->gens[scalio_tgt_owned_idx(ssd, bucket)] > gen;
	if (ret || scalio_seg_check(sh, ((size_t)units << SCALIO_UNIT_SHIFT) -
				    off, bucket, -1)) {
		scalio_tgt_report(st, true,
				  "ssd %u: batch %llu: bucket %u: segment at unit %llu (+%u) is %s: its keys are %s",
				  ssd->index, gen, bucket, u, off,
				  ret ? "unreadable (a media error)" : "damaged",
				  kept ? "kept by a later batch" :
				  "unknown and lost");
		return 0;
	}
	while (scalio_seg_next(sh, &pos, &rec) > 0) {
		if (++*lines > SCALIO_REPORT_KEYS)
			continue;
		scalio_tgt_report(st, true,
				  "ssd %u: batch %llu: bucket %u: key '%*pE' %s",
				  ssd->index, gen, bucket, (int)rec.klen,
				  rec.key, kept ? "kept by a later batch" :
				  "LOST (value of that batch)");
	}
	if (!kept) {
		ret = scalio_tgt_report_back(ssd, bucket, gen, sh, lines);
		if (ret)
			return ret;
	}
	return DIV_ROUND_UP(len, SCALIO_SECTOR_SIZE);
}

/*
 * Report what a forced recovery dropped in @gap: every intact segment the
 * dropped batches left in its units, with its keys, and whether a later
 * batch rewrote the bucket (then its keys are kept: a segment holds the
 * whole bucket) or they are lost; and the keys such a segment shows were
 * deleted, which come back.  What damaged units held is unknown: the
 * report says so.
 */
static int scalio_tgt_report_gap(struct scalio_tgt_ssd *ssd,
				 const struct scalio_tgt_gap *gap, u32 *lines)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 start = le64_to_cpu(ssd->log.sb.log_start);
	u64 end = scalio_tgt_log_end(ssd), u = gap->pos, left = gap->units;
	/* Sectors still inside an intact segment already reported. */
	u64 skip = 0;

	scalio_tgt_report(st, true,
			  "ssd %u: dropped batches %llu..%llu (units %llu..+%llu): damaged; any write or delete they held that is not named below is lost too",
			  ssd->index, gap->seq, gap->next - 1, gap->pos,
			  gap->units);
	for (; left; left--, u = u + 1 == end ? start : u + 1) {
		u32 s, found = 0;
		int ret;

		if (u == start)
			skip = 0;	/* a segment never wraps */
		ret = scalio_tgt_log_read_units(ssd, u, c->buf, 1);
		if (ret == -ENODATA) {
			scalio_tgt_report(st, true,
					  "ssd %u: unit %llu of the dropped batches is unreadable (a media error): what it held is unknown",
					  ssd->index, u);
			skip = 0;
			continue;
		}
		if (ret)
			return ret;
		/* Segments start on sectors: note the candidates first. */
		for (s = 0; s < SCALIO_SECTORS_PER_UNIT; s++)
			if (scalio_tgt_gap_candidate(ssd, gap, c->buf +
						     (s << SCALIO_SECTOR_SHIFT)))
				found |= 1U << s;
		for (s = 0; s < SCALIO_SECTORS_PER_UNIT; s++, skip -= !!skip) {
			if (skip || !(found & (1U << s)))
				continue;
			ret = scalio_tgt_report_gap_seg(ssd, gap, u, s, lines);
			if (ret < 0)
				return ret;
			skip = ret;
		}
	}
	return 0;
}

/* Zero log unit @pos (in the commit buffer). */
static int scalio_tgt_log_zero(struct scalio_tgt_ssd *ssd, u64 pos)
{
	struct scalio_tgt_commit *c = ssd->commit;

	memset(c->buf, 0, SCALIO_UNIT_SIZE);
	return scalio_tgt_ssd_write(ssd, pos, c->buf, 1);
}

/*
 * Zero the header unit of a torn batch @seq at @pos, so that it can never
 * pass for the batch of that sequence number written elsewhere later.
 */
static int scalio_tgt_log_zap(struct scalio_tgt_ssd *ssd, u64 pos, u64 seq)
{

	/*
	 * A batch cut short by a crash was never acknowledged.  One damaged
	 * after it was written looks the same when nothing follows it: say
	 * so, so that an operator who had no crash knows.
	 */
	scalio_tgt_report(ssd->store, false,
			  "ssd %u: batch %llu at unit %llu, the last of the log, is torn or damaged: discarded as never acknowledged",
			  ssd->index, seq, pos);
	return scalio_tgt_log_zero(ssd, pos);
}

/*
 * Follow the chain of batches from the log tail into the index.
 * Return: 0 at its end, with *@torn / *@torn_start set when the batch
 * that ends it is torn at the tail / at the log start, and *@bad set when
 * what ends it is unreadable on the medium (at the tail, or at the log
 * start where a batch that did not fit would be); -EIO.
 */
static int scalio_tgt_log_chain(struct scalio_tgt_ssd *ssd, u64 *replayed,
				bool *torn, bool *torn_start, bool *bad)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 start = le64_to_cpu(ssd->log.sb.log_start);
	u64 end = scalio_tgt_log_end(ssd), L = end - start;
	u64 pos, waste, seq;
	int n;

	*torn = false;
	*torn_start = false;
	*bad = false;
	for (;;) {
		const struct scalio_seg_hdr *sh;
		struct scalio_batch_iter it;
		u32 sector, sectors;

		seq = ssd->log.next_batch;
		pos = ssd->log.tail;
		waste = 0;
		n = scalio_tgt_log_read_batch(ssd, pos, seq, c->arena,
					      SCALIO_BUF_UNITS);
		if (n == -EIO)
			return -EIO;
		if (n < 0 && pos != start) {
			/* Not here: it may have wrapped to the log start. */
			int n2 = scalio_tgt_log_read_batch(ssd, start, seq,
							   c->arena,
							   SCALIO_BUF_UNITS);

			if (n2 == -EIO)
				return -EIO;
			if (n2 >= 0) {
				if (n == -EUCLEAN &&
				    scalio_tgt_log_zap(ssd, pos, seq))
					return -EIO;
				waste = end - pos;
				pos = start;
				n = n2;
			} else if (n2 == -EUCLEAN) {
				*torn_start = true;
			} else if (n2 == -ENODATA && n != -EUCLEAN &&
				   end - pos < SCALIO_BUF_UNITS) {
				/* It did not fit before the end: it may be there. */
				*bad = true;
			}
		}
		if (n == -EUCLEAN || n == -E2BIG)
			*torn = true;
		if (n == -ENODATA)
			*bad = true;
		if (n < 0)
			return 0;	/* end of the chain */
		if (ssd->log.used_units + waste + n >= L) {
			pr_warn("%s: ssd %u: batch %llu would overrun the log head; stopping replay\n",
				st->name, ssd->index, seq);
			return 0;
		}
		scalio_batch_iter_init(&it, c->arena);
		while (scalio_batch_next_seg(&it, &sh, &sector, &sectors)) {
			u32 bucket = le32_to_cpu(sh->bucket);
			u32 i = scalio_tgt_owned_idx(ssd, bucket);
			u64 seg = 0, at;

			if (seq <= ssd->gens[i])
				continue;
			at = pos * SCALIO_SECTORS_PER_UNIT + sector;
			if (le32_to_cpu(sh->nr_records))
				seg = scalio_seg_make(ssd->index, at,
						      scalio_seg_span(at,
						      le32_to_cpu(sh->len)),
						      seq);
			ssd->gens[i] = seq;
			scalio_tgt_index_set_seg(&st->index, bucket, seg);
		}
		ssd->log.tail = pos + n == end ? start : pos + n;
		ssd->log.used_units += waste + n;
		ssd->log.next_batch = seq + 1;
		(*replayed)++;
	}
}

/**
 * scalio_tgt_log_replay() - replay the batches written after the checkpoint
 * @ssd:	SSD
 * @replayed:	out: batches replayed
 *
 * Follows the chain, then probes for intact batches beyond its end (see
 * the file comment).  Nothing is written before the outcome is known:
 * torn batches at the end are zapped only when nothing follows them.
 *
 * Return: 0; -EUCLEAN when later batches follow a damaged one and the
 * recovery is not forced (or too much is damaged); -EIO.
 */
static int scalio_tgt_log_replay(struct scalio_tgt_ssd *ssd, u64 *replayed)
{
	struct scalio_tgt_store *st = ssd->store;
	u64 start = le64_to_cpu(ssd->log.sb.log_start);
	u64 L = le64_to_cpu(ssd->log.sb.log_units);
	struct scalio_tgt_gap gaps[SCALIO_MAX_GAPS];
	u32 nr_gaps = 0, lines = 0, g, unreadable;
	bool torn, torn_start, bad;
	u64 fpos, fseq, dist;
	int ret;

	*replayed = 0;
	for (;;) {
		ret = scalio_tgt_log_chain(ssd, replayed, &torn, &torn_start,
					   &bad);
		if (ret)
			return ret;
		unreadable = 0;
		ret = scalio_tgt_log_probe(ssd, ssd->log.tail,
					   ssd->log.next_batch,
					   0, &fpos, &fseq, &unreadable);
		if (ret < 0)
			return ret;
		if (!ret)
			break;
		dist = scalio_tgt_log_dist(ssd, ssd->log.tail, fpos);
		scalio_tgt_report(st, true,
				  "ssd %u: %s: batch %llu (at unit %llu or %llu) is %s, but intact batch %llu follows at unit %llu: %llu batch(es) of acknowledged writes would be lost",
				  ssd->index, ssd->device_path,
				  ssd->log.next_batch, ssd->log.tail, start,
				  bad ? "unreadable (a media error)" :
				  "missing or damaged", fseq,
				  fpos, fseq - ssd->log.next_batch);
		if (!st->force_recover) {
			scalio_tgt_report(st, true,
					  "ssd %u: refused: nothing was written; force the recovery (target-setup --force-recover) to drop the damaged batches",
					  ssd->index);
			return -EUCLEAN;
		}
		if (nr_gaps == SCALIO_MAX_GAPS ||
		    ssd->log.used_units + dist >= L) {
			scalio_tgt_report(st, true,
					  "ssd %u: refused even forced: too much of the log is damaged",
					  ssd->index);
			return -EUCLEAN;
		}
		gaps[nr_gaps].pos = ssd->log.tail;
		gaps[nr_gaps].units = dist;
		gaps[nr_gaps].seq = ssd->log.next_batch;
		gaps[nr_gaps].next = fseq;
		nr_gaps++;
		/* Skip the damaged batches: their units stay in use. */
		ssd->log.used_units += dist;
		ssd->log.tail = fpos;
		ssd->log.next_batch = fseq;
	}
	/*
	 * The real end, unless the medium hides what is there: a batch that
	 * cannot be read may be whole and acknowledged (a torn one never
	 * was), and so may one in units the probe could not read.
	 */
	if (bad || unreadable) {
		scalio_tgt_report(st, true,
				  "ssd %u: %s: the end of the log cannot be read: %s%u unit(s) or batch(es) after it unreadable (a media error): acknowledged writes may be there",
				  ssd->index, ssd->device_path,
				  bad ? "the next batch is unreadable, " : "",
				  unreadable);
		if (!st->force_recover) {
			scalio_tgt_report(st, true,
					  "ssd %u: refused: nothing was written; force the recovery (target-setup --force-recover) to end the log at batch %llu (unit %llu)",
					  ssd->index, ssd->log.next_batch,
					  ssd->log.tail);
			return -EUCLEAN;
		}
		/*
		 * Should those units read again one day, a whole batch there
		 * must never continue the chain: the next batch takes a
		 * sequence number past every one that could be there (the
		 * probe looks that far), still within the cleaner's reach.
		 */
		scalio_tgt_report(st, true,
				  "ssd %u: forced: the log ends before batch %llu (unit %llu); whatever the unreadable units held is LOST; the next batch is %llu",
				  ssd->index, ssd->log.next_batch, ssd->log.tail,
				  ssd->log.next_batch + SCALIO_PROBE_UNITS);
		ssd->log.next_batch += SCALIO_PROBE_UNITS;
	}
	/* The real end: a torn batch here was never acknowledged. */
	if (torn_start && scalio_tgt_log_zap(ssd, start, ssd->log.next_batch))
		return -EIO;
	if (torn && scalio_tgt_log_zap(ssd, ssd->log.tail, ssd->log.next_batch))
		return -EIO;
	for (g = 0; g < nr_gaps; g++) {
		ret = scalio_tgt_report_gap(ssd, &gaps[g], &lines);
		if (ret)
			return ret;
	}
	if (lines > SCALIO_REPORT_KEYS)
		scalio_tgt_report(st, true, "ssd %u: ... and %u more keys",
				  ssd->index, lines - SCALIO_REPORT_KEYS);
	return 0;
}

/*
 * For a forced recovery: read and check every value extent that the
 * checked segment @seg of @bucket points to (into c->buf, free here).  A
 * value in a dropped batch, or damaged, would fail its GETs and stop the
 * cleaner for good.
 * Return: 0; 1 (reported: drop the bucket); -EIO (the device is gone).
 */
static int scalio_tgt_recover_check_vals(struct scalio_tgt_ssd *ssd,
					 u32 bucket, const void *seg)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	struct scalio_rec rec;
	struct scalio_vref v;
	u32 pos = 0;
	int ret;

	while (scalio_seg_next(seg, &pos, &rec) > 0) {
		if (!scalio_rec_vref(&rec, &v))
			continue;
		ret = scalio_tgt_val_read(ssd, rec.key, rec.klen, &v, c->buf,
					  NULL);
		if (!ret)
			continue;
		if (ret == -EIO &&
		    scalio_tgt_ssd_read(ssd, SCALIO_SB_UNIT, c->buf, 1))
			return -EIO;
		scalio_tgt_report(st, true,
				  "ssd %u: bucket %u: a key's value at byte %llu is %s (%d): bucket dropped, its keys are LOST",
				  ssd->index, bucket, v.pos,
				  ret == -EIO ? "unreadable" : "damaged or gone",
				  ret);
		return 1;
	}
	return 0;
}

/*
 * Forced recovery: read @bucket's segment @seg whole and check it; drop the
 * bucket (empty, reported) when it is not intact, or when three reads of it
 * fail with a media error (-ENODATA, -EILSEQ) or a plain -EIO while the
 * superblock still reads: a device or path going away fails that read too
 * (and other errors, -ENOLINK, -ETIMEDOUT...), which is no proof of damage
 * and fails the recovery instead.
 * Return: 0 (intact), 1 (dropped), or the read error.
 */
static int scalio_tgt_recover_check_seg(struct scalio_tgt_ssd *ssd, u32 bucket,
					u64 seg)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 gen = ssd->gens[scalio_tgt_owned_idx(ssd, bucket)];
	u32 unit = scalio_seg_unit(seg), len = scalio_seg_len(seg);
	int ret = -EBADMSG, tries = 0;

	if (len && len <= SCALIO_BUF_UNITS) {
		for (;;) {
			ret = scalio_tgt_seg_read_live(ssd, bucket, seg, gen,
						       c->arena);
			if (!scalio_tgt_media_err(ret) || ++tries == 3)
				break;
			msleep(100);
		}
		if (ret && ret != -EBADMSG && ret != -ESTALE &&
		    !scalio_tgt_media_err(ret))
			return ret;
		/* Does the device still answer?  (c->buf: free here.) */
		if (scalio_tgt_media_err(ret) &&
		    scalio_tgt_ssd_read(ssd, SCALIO_SB_UNIT, c->buf, 1))
			return -EIO;
		if (scalio_tgt_media_err(ret)) {
			scalio_tgt_report(st, true,
					  "ssd %u: bucket %u: segment at unit %u is unreadable (%d): bucket dropped, its keys are LOST",
					  ssd->index, bucket, unit, ret);
			goto drop;
		}
	}
	if (!ret) {
		ret = scalio_tgt_recover_check_vals(ssd, bucket, c->arena);
		if (ret <= 0)
			return ret;
		goto drop;
	}
	scalio_tgt_report(st, true,
			  "ssd %u: bucket %u: segment at unit %u is %s: bucket dropped, its keys are LOST",
			  ssd->index, bucket, unit,
			  ret == -ESTALE ? "not the one recorded" : "damaged");
drop:
	scalio_tgt_index_set_seg(&st->index, bucket, 0);
	return 1;
}

/**
 * scalio_tgt_count_keys() - count the SSD's keys and warm its segment cache
 * @ssd:	SSD being recovered (commit kthread not running)
 * @primed:	out: segments put into the segment cache
 *
 * Reads each non-empty bucket's segment header.  While the segment cache
 * has room (no eviction), it reads the whole segment instead and, if the
 * segment passes the same checks as the commit path's read
 * (scalio_tgt_tb_load()), caches it: the first batch after an enable that
 * rewrites the bucket then needs no read.  A segment that fails those
 * checks, or whose whole read fails, is not cached; the commit path
 * reports it when it reads it.
 *
 * A forced recovery reads and checks every segment whole and drops the
 * buckets whose segment is damaged, not the recorded one or unreadable on
 * the medium (reported: their keys are lost): such a bucket could never be
 * written again, and the cleaner could never move it.  Other read errors
 * fail it.
 *
 * Return: 0; -EUCLEAN if a header is not the recorded segment's (not
 * forced); -EIO.
 */
static int scalio_tgt_count_keys(struct scalio_tgt_ssd *ssd, u32 *primed)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	const struct scalio_seg_hdr *sh = c->arena;
	u64 keys = 0, live = 0, secs = 0, vals = 0;
	u32 i;
	int ret;

	*primed = 0;
	for (i = 0; i < c->nr_owned; i++) {
		u32 bucket = ssd->index + i * st->nr_ssds;
		u64 seg = scalio_tgt_index_get_seg(&st->index, bucket);
		u32 unit, seg_len;
		bool warm;

		if (!seg)
			continue;
		unit = scalio_seg_unit(seg);
		seg_len = scalio_seg_len(seg);
		warm = seg_len && seg_len <= SCALIO_BUF_UNITS &&
		       c->sc.used + seg_len <= c->sc.cap;
		if (st->force_recover) {
			/* Read whole and checked: in the arena, no re-read. */
			ret = scalio_tgt_recover_check_seg(ssd, bucket, seg);
			if (ret < 0)
				return ret;
			if (ret)
				continue;	/* dropped */
			keys += le32_to_cpu(sh->nr_records);
			live += le32_to_cpu(sh->len);
			vals += le32_to_cpu(sh->val_bytes);
			if (warm) {
				scalio_tgt_segcache_publish(ssd, bucket, seg,
							    ssd->gens[i],
							    c->arena);
				(*primed)++;
			}
			continue;
		}
		/*
		 * A failed read of the whole segment only costs the warming:
		 * the header alone decides, as without the cache.
		 */
		if (warm)
			warm = !scalio_tgt_seg_read(ssd, seg, c->arena, seg_len);
		if (!warm && scalio_tgt_seg_read(ssd, seg, c->arena, 1))
			return -EIO;
		if (le32_to_cpu(sh->magic) != SCALIO_SEG_MAGIC ||
		    le32_to_cpu(sh->bucket) != bucket ||
		    le64_to_cpu(sh->gen) != ssd->gens[i]) {
			scalio_tgt_report(st, true,
					  "ssd %u: refused: bucket %u: segment at unit %u is not the one recorded",
					  ssd->index, bucket, unit);
			return -EUCLEAN;
		}
		keys += le32_to_cpu(sh->nr_records);
		live += le32_to_cpu(sh->len);
		vals += le32_to_cpu(sh->val_bytes);
		secs += DIV_ROUND_UP(le32_to_cpu(sh->len), SCALIO_SECTOR_SIZE);
		if (warm &&
		    !scalio_seg_check(c->arena,
				      ((size_t)seg_len << SCALIO_UNIT_SHIFT) -
				      scalio_seg_offset(seg),
				      bucket, ssd->gens[i] & SCALIO_SEG_GEN_MASK)) {
			scalio_tgt_segcache_publish(ssd, bucket, seg,
						    ssd->gens[i], c->arena);
			(*primed)++;
		}
	}
	c->keys = keys;
	c->live_bytes = live;
	c->live_sectors = secs;
	c->live_val_bytes = vals;
	return 0;
}

/**
 * scalio_tgt_recover_ssd() - format an SSD when asked, or recover it
 * @ssd:	opened SSD of a store being enabled (commit state allocated,
 *		commit kthread not running); SSDs are recovered in index
 *		order
 *
 * With attr_format_on_enable set, SSD 0 formats every SSD of the store
 * with one new uuid.  Otherwise nothing is ever formatted: a device that
 * holds no scalio store, or a damaged one, is refused with a report.
 *
 * Return: 0; -ENODATA when the device is not a scalio store; -EUCLEAN
 * when it is damaged beyond what recovery repairs by itself (or would
 * lose acknowledged writes without attr_force_recover); -EINVAL when it
 * belongs to another store, geometry or format version; -ENOSPC when it
 * is too small; -ENOMEM; -EIO.
 */
int scalio_tgt_recover_ssd(struct scalio_tgt_ssd *ssd)
{
	struct scalio_tgt_store *st = ssd->store;
	struct scalio_tgt_commit *c = ssd->commit;
	u64 replayed;
	u32 primed;
	int ret;

	if (!ssd->index && st->format_on_enable) {
		ret = scalio_tgt_format_store(st);
		if (ret)
			return ret;
	}
	ret = scalio_tgt_sb_load(ssd);
	if (ret)
		return ret;
	/* Bounded by scalio_sb_check(): what the owned buckets need. */
	vfree(c->ckpt);
	c->ckpt = vmalloc(le64_to_cpu(ssd->log.sb.ckpt_units) <<
			  SCALIO_UNIT_SHIFT);
	if (!c->ckpt)
		return -ENOMEM;

	ret = scalio_tgt_ckpt_load(ssd);
	if (!ret)
		ret = scalio_tgt_log_replay(ssd, &replayed);
	if (!ret)
		ret = scalio_tgt_count_keys(ssd, &primed);
	if (!ret)
		ret = scalio_tgt_checkpoint_write(ssd);
	if (ret) {
		pr_err("%s: ssd %u: recovery of %s failed: %d\n", st->name,
		       ssd->index, ssd->device_path, ret);
		if (st->force_recover)
			scalio_tgt_report(st, true,
					  "ssd %u: recovery failed (%d): nothing of ssd %u was dropped (what earlier SSDs dropped stands)",
					  ssd->index, ret, ssd->index);
		return ret;
	}
	pr_info("%s: ssd %u: recovered %s: checkpoint %llu + %llu batches, %llu keys, log %llu/%llu units used, %u segments cached\n",
		st->name, ssd->index, ssd->device_path, ssd->log.ckpt_seq - 1,
		replayed, c->keys, ssd->log.used_units,
		le64_to_cpu(ssd->log.sb.log_units), primed);
	return 0;
}
