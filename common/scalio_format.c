// SPDX-License-Identifier: GPL-2.0
/*
 * On-SSD format: checksums, superblock and batch header sealing and
 * checking, and the segment builder and parser.
 *
 * Everything read back from an SSD is untrusted: a segment may be torn,
 * stale (the cleaner moved it and reused its units), or plain garbage.
 * The parser bounds-checks every length against the bytes actually
 * available before it touches them.
 *
 * Pure logic: linked into both modules (the top-level Kbuild) and built
 * into the user-space unit tests.
 */
#include "scalio_format.h"
#include "scalio_index.h"

/**
 * scalio_crc() - checksum of a structure that embeds its own crc field
 * @buf:	the structure
 * @len:	bytes covered
 * @crc_off:	offset of the 4-byte crc field inside @buf (crc_off + 4 <= len)
 *
 * Return: ~crc32c(~0, @buf) computed as if the crc field held zeroes, so
 * the value stored in the field does not matter.
 */
u32 scalio_crc(const void *buf, size_t len, size_t crc_off)
{
	static const u8 zero[4];
	const u8 *p = buf;
	u32 crc;

	if (crc_off > len || len - crc_off < sizeof(zero))
		return 0;	/* caller bug; never reads out of bounds */
	crc = crc32c(~0U, p, crc_off);
	crc = crc32c(crc, zero, sizeof(zero));
	crc = crc32c(crc, p + crc_off + sizeof(zero),
		     len - crc_off - sizeof(zero));
	return ~crc;
}

void scalio_sb_seal(struct scalio_sb *sb)
{
	sb->crc = cpu_to_le32(scalio_crc(sb, sizeof(*sb),
					 offsetof(struct scalio_sb, crc)));
}

static bool scalio_fmt_pow2(u64 x)
{
	return x && !(x & (x - 1));
}

static bool scalio_fmt_zero(const u8 *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/**
 * scalio_sb_check() - validate a superblock read from an SSD
 * @sb:	the superblock (unit 0, or its copy at unit 1)
 *
 * Checks the magic, the crc, the format version and that the geometry is
 * self-consistent and bounded: at most SCALIO_MAX_SSDS SSDs and
 * SCALIO_MAX_BLOCKS blocks and SCALIO_MAX_BUCKETS buckets (at least as
 * many as blocks), 32-bit unit numbers, checkpoint slots exactly as large
 * as the buckets the SSD owns need, the log right after them and
 * inside the device, reserved fields zero.  So nothing sized from a
 * superblock that passes can ask for more memory than the geometry needs.
 *
 * Return: 0; -ENODATA when the magic is absent (not a scalio superblock);
 * -EBADMSG for a bad crc; -EPROTONOSUPPORT for another format version;
 * -ERANGE for an intact superblock with an impossible geometry.
 */
int scalio_sb_check(const struct scalio_sb *sb)
{
	u64 nr_units, ckpt_units, log_start, log_units;
	u32 nr_ssds, nr_blocks, nr_buckets, idx, i;

	if (le64_to_cpu(sb->magic) != SCALIO_SB_MAGIC)
		return -ENODATA;
	if (le32_to_cpu(sb->crc) !=
	    scalio_crc(sb, sizeof(*sb), offsetof(struct scalio_sb, crc)))
		return -EBADMSG;
	if (le32_to_cpu(sb->version) != SCALIO_FORMAT_VERSION)
		return -EPROTONOSUPPORT;

	nr_ssds = le32_to_cpu(sb->nr_ssds);
	nr_blocks = le32_to_cpu(sb->nr_blocks);
	idx = le32_to_cpu(sb->ssd_index);
	if (!nr_ssds || nr_ssds > SCALIO_MAX_SSDS || idx >= nr_ssds)
		return -ERANGE;
	if (!scalio_fmt_pow2(nr_blocks) || nr_blocks > SCALIO_MAX_BLOCKS)
		return -ERANGE;
	nr_buckets = le32_to_cpu(sb->nr_buckets);
	if (!scalio_fmt_pow2(nr_buckets) || nr_buckets > SCALIO_MAX_BUCKETS ||
	    nr_buckets < nr_blocks)
		return -ERANGE;

	nr_units = le64_to_cpu(sb->nr_units);
	ckpt_units = le64_to_cpu(sb->ckpt_units);
	log_start = le64_to_cpu(sb->log_start);
	log_units = le64_to_cpu(sb->log_units);
	/* Seg words hold 35-bit sector numbers: 32-bit unit numbers. */
	if (nr_units > 0xffffffffULL)
		return -ERANGE;
	if (ckpt_units !=
	    scalio_ckpt_units(scalio_owned_buckets(nr_buckets, nr_ssds, idx)))
		return -ERANGE;
	/* All values are below 2^33 here: the sums cannot overflow. */
	if (log_start != SCALIO_CKPT_UNIT + 2 * ckpt_units ||
	    log_start > nr_units)
		return -ERANGE;
	/* A batch needs a header unit and at least one segment unit. */
	if (log_units < 2 || log_units > nr_units - log_start)
		return -ERANGE;

	if (sb->pad || sb->reserved32)
		return -ERANGE;
	/*
	 * Every store of this format got a random seed at format: 0 is not a
	 * store, and must not place keys by the public seed.
	 */
	if (!sb->hash_seed)
		return -ERANGE;
	for (i = 0; i < ARRAY_SIZE(sb->reserved); i++)
		if (sb->reserved[i])
			return -ERANGE;
	return 0;
}

/* Is @seg (a seg word from a checkpoint) a segment of SSD @idx in @sb's log? */
static bool scalio_seg_in_log(u64 seg, u32 idx, const struct scalio_sb *sb)
{
	u64 start = le64_to_cpu(sb->log_start);
	u64 end = start + le64_to_cpu(sb->log_units);

	return scalio_seg_ssd(seg) == idx && scalio_seg_unit(seg) >= start &&
	       scalio_seg_len(seg) &&
	       (u64)scalio_seg_unit(seg) + scalio_seg_len(seg) <= end;
}

/*
 * Does @seg lie in the part of the log still in use, from @head up to
 * @tail (circular; @head == @tail: the whole log, or none of it when
 * @empty)?  @seg is inside the log and does not wrap (scalio_seg_in_log()).
 */
static bool scalio_seg_in_use(u64 seg, u64 head, u64 tail, bool empty)
{
	u64 u = scalio_seg_unit(seg), e = u + scalio_seg_len(seg);

	if (head < tail)
		return u >= head && e <= tail;
	if (head > tail)
		return u >= head || e <= tail;
	return !empty;
}

/*
 * scalio_ckpt_check() - validate a checkpoint slot image
 *
 * See scalio_format.h.  @sb must have passed scalio_sb_check(), and the
 * caller must have read scalio_ckpt_bytes(@nr_owned) bytes into @h.
 */
int scalio_ckpt_check(const struct scalio_ckpt_hdr *h,
		      const struct scalio_sb *sb, u32 nr_owned)
{
	const struct scalio_ckpt_entry *e = (const void *)(h + 1);
	u64 start = le64_to_cpu(sb->log_start);
	u64 end = start + le64_to_cpu(sb->log_units);
	u64 head = le64_to_cpu(h->log_head), tail = le64_to_cpu(h->log_tail);
	u64 head_seq = le64_to_cpu(h->head_seq);
	u64 next = le64_to_cpu(h->next_batch);
	u32 idx = le32_to_cpu(sb->ssd_index), i;

	if (le64_to_cpu(h->magic) != SCALIO_CKPT_MAGIC)
		return -ENODATA;
	if (le32_to_cpu(h->nr_entries) != nr_owned)
		return -EBADMSG;
	if (le32_to_cpu(h->crc) !=
	    scalio_crc(h, scalio_ckpt_bytes(nr_owned),
		       offsetof(struct scalio_ckpt_hdr, crc)))
		return -EBADMSG;
	if (!le64_to_cpu(h->seq) || h->reserved)
		return -ERANGE;
	if (head < start || head >= end || tail < start || tail >= end)
		return -ERANGE;
	/* Every batch takes a unit at least: bounds the batches in use. */
	if (!head_seq || head_seq > next ||
	    next - head_seq > le64_to_cpu(sb->log_units))
		return -ERANGE;
	for (i = 0; i < nr_owned; i++) {
		u64 seg = le64_to_cpu(e[i].seg), gen = le64_to_cpu(e[i].gen);

		if (gen >= next)
			return -ERANGE;
		if (!seg)
			continue;
		if (!scalio_seg_in_log(seg, idx, sb) ||
		    scalio_seg_gen(seg) != (gen & SCALIO_SEG_GEN_MASK))
			return -ERANGE;
		/*
		 * A bucket's segment lies in a batch still in use: one the
		 * cleaner has freed may be overwritten by the next batches.
		 */
		if (gen < head_seq ||
		    !scalio_seg_in_use(seg, head, tail, head_seq == next))
			return -ERANGE;
	}
	return 0;
}

/* Bounds the header's counts before any arithmetic on them can wrap. */
#define SCALIO_MAX_UNITS_HDR	(1U << 20)

void scalio_batch_hdr_seal(struct scalio_batch_hdr *bh)
{
	bh->crc = cpu_to_le32(scalio_crc(bh, sizeof(*bh),
				 offsetof(struct scalio_batch_hdr, crc)));
}

/**
 * scalio_batch_hdr_check() - validate a batch header found in the log
 * @bh:		the header (first bytes of the batch's first unit)
 * @seq:	the sequence number the batch must carry
 *
 * Return: 0; -EBADMSG for a bad magic, crc or inconsistent counts (no
 * batch here: end of the log); -ESTALE for an intact header of another
 * batch (an older lap of the circular log).
 */
int scalio_batch_hdr_check(const struct scalio_batch_hdr *bh, u64 seq)
{
	u32 nr_units, nr_segs, nr_vals, val_sectors;

	if (le64_to_cpu(bh->magic) != SCALIO_BATCH_MAGIC)
		return -EBADMSG;
	if (le32_to_cpu(bh->crc) !=
	    scalio_crc(bh, sizeof(*bh), offsetof(struct scalio_batch_hdr, crc)))
		return -EBADMSG;
	nr_units = le32_to_cpu(bh->nr_units);
	nr_segs = le32_to_cpu(bh->nr_segs);
	nr_vals = le32_to_cpu(bh->nr_vals);
	val_sectors = le32_to_cpu(bh->val_sectors);
	/*
	 * Every batch holds a segment; each takes a sector after the header
	 * and the value extents, which take 32 bytes at least each.
	 */
	if (!nr_units || !nr_segs || bh->flags ||
	    nr_units > SCALIO_MAX_UNITS_HDR ||
	    val_sectors > nr_units * SCALIO_SECTORS_PER_UNIT - 1 ||
	    nr_segs > nr_units * SCALIO_SECTORS_PER_UNIT - 1 - val_sectors ||
	    !nr_vals != !val_sectors ||
	    nr_vals > val_sectors * (SCALIO_SECTOR_SIZE /
				     scalio_val_size(1, 1)))
		return -EBADMSG;
	if (le64_to_cpu(bh->seq) != seq)
		return -ESTALE;
	return 0;
}

/*
 * scalio_batch_check() - validate a whole batch image read from the log
 *
 * See scalio_format.h.  The header is checked first; its unit count is
 * bounded by SCALIO_BATCH_MAX_UNITS and the end of the log before the
 * caller reads the rest.  Then every value extent must be intact, carry
 * the batch's sequence number and end inside the header's val_sectors,
 * whose rest is zeroes; every segment must be intact, belong to a
 * bucket of this SSD and carry the batch's sequence number as generation
 * (stale segments of an older lap fail), and the segments, packed on
 * sectors after the extents, must end in the batch's last unit.  A torn
 * batch therefore never passes with its segments intact but an extent
 * they point to torn.
 */
int scalio_batch_check(const void *buf, u32 avail, u64 seq,
		       const struct scalio_sb *sb, u64 pos, u32 *need)
{
	const struct scalio_batch_hdr *bh = buf;
	u64 start = le64_to_cpu(sb->log_start);
	u64 end = start + le64_to_cpu(sb->log_units);
	u32 nr_ssds = le32_to_cpu(sb->nr_ssds);
	u32 nr_buckets = le32_to_cpu(sb->nr_buckets);
	u32 idx = le32_to_cpu(sb->ssd_index);
	u32 n, nr_segs, nr_vals, off, voff, vend, k, sectors;
	int ret;

	if (!avail)
		return -EINVAL;
	ret = scalio_batch_hdr_check(bh, seq);
	if (ret)
		return ret;
	n = le32_to_cpu(bh->nr_units);
	nr_segs = le32_to_cpu(bh->nr_segs);
	if (n > SCALIO_BATCH_MAX_UNITS || pos < start || pos >= end ||
	    n > end - pos)
		return -EUCLEAN;
	if (n > avail) {
		*need = n;
		return -EAGAIN;
	}

	sectors = n * SCALIO_SECTORS_PER_UNIT;
	nr_vals = le32_to_cpu(bh->nr_vals);
	vend = (1 + le32_to_cpu(bh->val_sectors)) << SCALIO_SECTOR_SHIFT;
	if (vend > sectors << SCALIO_SECTOR_SHIFT)
		return -EUCLEAN;
	voff = SCALIO_SECTOR_SIZE;
	for (k = 0; k < nr_vals; k++) {
		const struct scalio_val_hdr *vh = (const void *)
						  ((const u8 *)buf + voff);

		if (scalio_val_check(vh, vend - voff, NULL, 0, NULL, NULL) ||
		    le64_to_cpu(vh->gen) != seq)
			return -EUCLEAN;
		voff += scalio_val_size(vh->klen, le32_to_cpu(vh->len));
	}
	/* The extents end in their area's last sector; zeroes after them. */
	if (nr_vals && (ALIGN(voff, SCALIO_SECTOR_SIZE) != vend ||
			!scalio_fmt_zero((const u8 *)buf + voff, vend - voff)))
		return -EUCLEAN;

	off = vend >> SCALIO_SECTOR_SHIFT;
	for (k = 0; k < nr_segs; k++) {
		const struct scalio_seg_hdr *sh;
		u32 bucket;

		if (off >= sectors)
			return -EUCLEAN;
		sh = (const void *)((const u8 *)buf +
				    ((size_t)off << SCALIO_SECTOR_SHIFT));
		bucket = le32_to_cpu(sh->bucket);
		if (bucket >= nr_buckets ||
		    scalio_bucket_ssd(bucket, nr_ssds) != idx)
			return -EUCLEAN;
		if (scalio_seg_check(sh,
				     (size_t)(sectors - off) << SCALIO_SECTOR_SHIFT,
				     bucket, seq & SCALIO_SEG_GEN_MASK) ||
		    le64_to_cpu(sh->gen) != seq)
			return -EUCLEAN;
		off += DIV_ROUND_UP(le32_to_cpu(sh->len), SCALIO_SECTOR_SIZE);
	}
	/* No unit after the one the last segment ends in. */
	if (DIV_ROUND_UP(off, SCALIO_SECTORS_PER_UNIT) != n)
		return -EUCLEAN;
	return n;
}

/**
 * scalio_batch_iter_init() - start walking the segments of a checked batch
 * @it:		the walk
 * @buf:	a batch that passed scalio_batch_check()
 */
void scalio_batch_iter_init(struct scalio_batch_iter *it, const void *buf)
{
	const struct scalio_batch_hdr *bh = buf;

	it->buf = buf;
	it->off = 1 + le32_to_cpu(bh->val_sectors);
	it->left = le32_to_cpu(bh->nr_segs);
	it->voff = SCALIO_SECTOR_SIZE;
	it->vleft = le32_to_cpu(bh->nr_vals);
}

int scalio_batch_next_val(struct scalio_batch_iter *it,
			  const struct scalio_val_hdr **vh, u32 *off)
{
	const struct scalio_val_hdr *h;

	if (!it->vleft)
		return 0;
	h = (const void *)((const u8 *)it->buf + it->voff);
	*vh = h;
	*off = it->voff;
	it->voff += scalio_val_size(h->klen, le32_to_cpu(h->len));
	it->vleft--;
	return 1;
}

int scalio_batch_next_seg(struct scalio_batch_iter *it,
			  const struct scalio_seg_hdr **seg, u32 *sector,
			  u32 *sectors)
{
	const struct scalio_seg_hdr *sh;

	if (!it->left)
		return 0;
	sh = (const void *)((const u8 *)it->buf +
			    ((size_t)it->off << SCALIO_SECTOR_SHIFT));
	*seg = sh;
	*sector = it->off;
	*sectors = DIV_ROUND_UP(le32_to_cpu(sh->len), SCALIO_SECTOR_SIZE);
	it->off += *sectors;
	it->left--;
	return 1;
}

/*
 * Decode the record at byte @pos of a segment whose header says it is @len
 * bytes long.  Return: bytes the record takes, or 0 if it is malformed or
 * does not fit before @len.
 */
static u32 scalio_rec_decode(const u8 *seg, u32 pos, u32 len,
			     struct scalio_rec *rec)
{
	const struct scalio_rec_hdr *rh;
	u32 klen, vlen, size;

	if (pos > len || len - pos < sizeof(*rh))
		return 0;
	rh = (const void *)(seg + pos);
	klen = rh->klen;
	vlen = le16_to_cpu(rh->vlen);
	if (!klen || klen > SCALIO_KEY_MAX || (rh->flags & ~SCALIO_REC_VPTR) ||
	    vlen > SCALIO_VALUE_MAX)
		return 0;
	if ((rh->flags & SCALIO_REC_VPTR) && vlen != sizeof(struct scalio_vptr))
		return 0;
	size = scalio_rec_size(klen, vlen);
	if (len - pos < size)
		return 0;
	rec->key = seg + pos + sizeof(*rh);
	rec->klen = klen;
	rec->value = rec->key + klen;
	rec->vlen = vlen;
	rec->flags = rh->flags;
	if (rec->flags & SCALIO_REC_VPTR) {
		struct scalio_vref v;

		/* The pointed-to value must be one a PUT could store. */
		scalio_rec_vref(rec, &v);
		if (!v.len || v.len > SCALIO_VALUE_MAX ||
		    v.pos >= SCALIO_VAL_POS_MAX)
			return 0;
	}
	return size;
}

bool scalio_rec_vref(const struct scalio_rec *rec, struct scalio_vref *v)
{
	struct scalio_vptr p;

	if (!(rec->flags & SCALIO_REC_VPTR) || rec->vlen != sizeof(p))
		return false;
	memcpy(&p, rec->value, sizeof(p));
	v->pos = le64_to_cpu(p.pos);
	v->gen = le64_to_cpu(p.gen);
	v->len = le32_to_cpu(p.len);
	v->crc = le32_to_cpu(p.crc);
	return true;
}

void scalio_vptr_encode(struct scalio_vptr *p, const struct scalio_vref *v)
{
	p->pos = cpu_to_le64(v->pos);
	p->gen = cpu_to_le64(v->gen);
	p->len = cpu_to_le32(v->len);
	p->crc = cpu_to_le32(v->crc);
}

/*
 * scalio_val_build() - see scalio_format.h.  The padding to 8 bytes is
 * zeroed, so a batch's extent area holds no stale bytes.
 */
u32 scalio_val_build(void *buf, const u8 *key, u32 klen, const u8 *value,
		     u32 len, u64 gen, u64 pos, struct scalio_vref *v)
{
	struct scalio_val_hdr *vh = buf;
	u32 used = sizeof(*vh) + klen + len, size;

	if (!klen || klen > SCALIO_KEY_MAX || !len || len > SCALIO_VALUE_MAX)
		return 0;
	size = scalio_val_size(klen, len);
	vh->magic = cpu_to_le32(SCALIO_VAL_MAGIC);
	vh->klen = klen;
	vh->flags = 0;
	vh->reserved = 0;
	vh->len = cpu_to_le32(len);
	vh->gen = cpu_to_le64(gen);
	memcpy((u8 *)buf + sizeof(*vh), key, klen);
	memcpy((u8 *)buf + sizeof(*vh) + klen, value, len);
	memset((u8 *)buf + used, 0, size - used);
	vh->crc = cpu_to_le32(scalio_crc(buf, used,
					 offsetof(struct scalio_val_hdr, crc)));
	v->pos = pos;
	v->gen = gen;
	v->len = len;
	v->crc = le32_to_cpu(vh->crc);
	return size;
}

int scalio_val_check(const void *buf, size_t avail, const u8 *key, u32 klen,
		     const struct scalio_vref *v, const u8 **value)
{
	const struct scalio_val_hdr *vh = buf;
	u32 len, used;

	if (avail < sizeof(*vh) ||
	    le32_to_cpu(vh->magic) != SCALIO_VAL_MAGIC)
		return -EBADMSG;
	len = le32_to_cpu(vh->len);
	if (!vh->klen || vh->klen > SCALIO_KEY_MAX || vh->flags ||
	    vh->reserved || !len || len > SCALIO_VALUE_MAX)
		return -EBADMSG;
	used = sizeof(*vh) + vh->klen + len;
	if (avail < used)
		return -EBADMSG;
	if (le32_to_cpu(vh->crc) !=
	    scalio_crc(buf, used, offsetof(struct scalio_val_hdr, crc)))
		return -EBADMSG;
	if (key && (vh->klen != klen ||
		    memcmp((const u8 *)buf + sizeof(*vh), key, klen)))
		return -ESTALE;
	if (v && (le64_to_cpu(vh->gen) != v->gen || len != v->len ||
		  le32_to_cpu(vh->crc) != v->crc))
		return -ESTALE;
	if (value)
		*value = (const u8 *)buf + sizeof(*vh) + vh->klen;
	return 0;
}

/*
 * scalio_seg_check() - validate a segment buffer
 *
 * See scalio_format.h.  Integrity is checked first (magic, lengths, crc,
 * every record well-formed and exactly @nr_records of them filling @len),
 * identity last, so -ESTALE always means "an intact segment, but not the
 * one the caller's seg word names".
 */
int scalio_seg_check(const void *buf, size_t buf_len, u32 bucket, s64 genlo)
{
	const struct scalio_seg_hdr *sh = buf;
	struct scalio_rec rec;
	u32 len, nr, pos, i, size;
	u64 val_bytes = 0;

	if (buf_len < sizeof(*sh))
		return -EBADMSG;
	if (le32_to_cpu(sh->magic) != SCALIO_SEG_MAGIC)
		return -EBADMSG;
	len = le32_to_cpu(sh->len);
	if (len < sizeof(*sh) || len > buf_len || len > SCALIO_SEG_MAX_BYTES)
		return -EBADMSG;
	if (le32_to_cpu(sh->crc) !=
	    scalio_crc(buf, len, offsetof(struct scalio_seg_hdr, crc)))
		return -EBADMSG;

	nr = le32_to_cpu(sh->nr_records);
	/* The smallest record is 5 bytes: bound @nr before looping on it. */
	if (nr > (len - sizeof(*sh)) / scalio_rec_size(1, 0))
		return -EBADMSG;
	pos = sizeof(*sh);
	for (i = 0; i < nr; i++) {
		struct scalio_vref v;

		size = scalio_rec_decode(buf, pos, len, &rec);
		if (!size)
			return -EBADMSG;
		if (scalio_rec_vref(&rec, &v))
			val_bytes += scalio_val_size(rec.klen, v.len);
		pos += size;
	}
	if (pos != len || val_bytes != le32_to_cpu(sh->val_bytes))
		return -EBADMSG;

	if (le32_to_cpu(sh->bucket) != bucket)
		return -ESTALE;
	if (genlo >= 0 &&
	    (le64_to_cpu(sh->gen) & SCALIO_SEG_GEN_MASK) != (u64)genlo)
		return -ESTALE;
	return 0;
}

/*
 * scalio_seg_next() - iterate records of a checked segment
 *
 * See scalio_format.h.  @pos is a byte offset in the segment (0 = start).
 * Bounds come from the header's len, which scalio_seg_check() verified
 * against the buffer; every record is still checked against it.
 */
int scalio_seg_next(const void *buf, u32 *pos, struct scalio_rec *rec)
{
	const struct scalio_seg_hdr *sh = buf;
	u32 len = le32_to_cpu(sh->len), p = *pos, size;

	if (le32_to_cpu(sh->magic) != SCALIO_SEG_MAGIC ||
	    len < sizeof(*sh) || len > SCALIO_SEG_MAX_BYTES)
		return -EBADMSG;
	if (p < sizeof(*sh))
		p = sizeof(*sh);
	if (p == len)
		return 0;
	size = scalio_rec_decode(buf, p, len, rec);
	if (!size)
		return -EBADMSG;
	*pos = p + size;
	return 1;
}

int scalio_seg_find(const void *buf, const u8 *key, u32 klen,
		    struct scalio_rec *rec)
{
	struct scalio_rec r;
	u32 pos = 0;
	int ret;

	while ((ret = scalio_seg_next(buf, &pos, &r)) > 0) {
		if (r.klen == klen && !memcmp(r.key, key, klen)) {
			*rec = r;
			return 0;
		}
	}
	return ret ? ret : -ENOENT;
}

/**
 * scalio_seg_build_init() - start a segment in a caller's buffer
 * @sb:		builder
 * @buf:	destination; should be a whole number of sectors so that
 *		scalio_seg_build_finish() can pad the last one
 * @cap:	bytes of @buf (at most SCALIO_SEG_MAX_BYTES are used)
 */
void scalio_seg_build_init(struct scalio_seg_builder *sb, void *buf, u32 cap)
{
	sb->buf = buf;
	sb->cap = min_t(u32, cap, SCALIO_SEG_MAX_BYTES);
	sb->len = sizeof(struct scalio_seg_hdr);
	sb->nr = 0;
	sb->val_bytes = 0;
}

/* Append a record of @flags (its value bytes are @value, @vlen). */
static int scalio_seg_build_rec(struct scalio_seg_builder *sb, const u8 *key,
				u32 klen, u8 flags, const void *value, u32 vlen)
{
	struct scalio_rec_hdr *rh;
	u32 size;

	if (!klen || klen > SCALIO_KEY_MAX || vlen > SCALIO_VALUE_MAX)
		return -EINVAL;
	size = scalio_rec_size(klen, vlen);
	if (sb->len > sb->cap || sb->cap - sb->len < size)
		return -ENOSPC;
	rh = (void *)(sb->buf + sb->len);
	rh->klen = klen;
	rh->flags = flags;
	rh->vlen = cpu_to_le16(vlen);
	memcpy(sb->buf + sb->len + sizeof(*rh), key, klen);
	if (vlen)
		memcpy(sb->buf + sb->len + sizeof(*rh) + klen, value, vlen);
	sb->len += size;
	sb->nr++;
	return 0;
}

/**
 * scalio_seg_build_add() - append one record
 * @sb:		the builder
 * @key:	key bytes
 * @klen:	key length
 * @value:	value bytes
 * @vlen:	value length
 *
 * Return: 0, -ENOSPC if it does not fit in the capacity, or -EINVAL for a
 * key or value length outside 1..SCALIO_KEY_MAX / 0..SCALIO_VALUE_MAX.
 */
int scalio_seg_build_add(struct scalio_seg_builder *sb, const u8 *key,
			 u32 klen, const u8 *value, u32 vlen)
{
	return scalio_seg_build_rec(sb, key, klen, 0, value, vlen);
}

/**
 * scalio_seg_build_add_vref() - append a record whose value is an extent
 * @sb:		the builder
 * @key:	key bytes
 * @klen:	key length
 * @v:		the extent (scalio_val_build(), or an older record's pointer)
 *
 * Return: as scalio_seg_build_add(); -EINVAL also for a bad @v->len.
 */
int scalio_seg_build_add_vref(struct scalio_seg_builder *sb, const u8 *key,
			      u32 klen, const struct scalio_vref *v)
{
	struct scalio_vptr p;
	int ret;

	if (!v->len || v->len > SCALIO_VALUE_MAX)
		return -EINVAL;
	scalio_vptr_encode(&p, v);
	ret = scalio_seg_build_rec(sb, key, klen, SCALIO_REC_VPTR, &p,
				   sizeof(p));
	if (!ret)
		sb->val_bytes += scalio_val_size(klen, v->len);
	return ret;
}

/**
 * scalio_seg_build_finish() - write the header and seal the segment
 * @sb:		builder (needs a capacity of at least a header)
 * @bucket:	bucket of the segment
 * @gen:	generation (the batch's sequence number)
 *
 * Zero-pads the last sector (within the capacity).
 *
 * Return: sectors the segment occupies.
 */
u32 scalio_seg_build_finish(struct scalio_seg_builder *sb, u32 bucket,
			    u64 gen)
{
	struct scalio_seg_hdr *sh = (void *)sb->buf;
	u32 end = ALIGN(sb->len, SCALIO_SECTOR_SIZE);

	if (sb->cap < sizeof(*sh))
		return 0;
	sh->magic = cpu_to_le32(SCALIO_SEG_MAGIC);
	sh->bucket = cpu_to_le32(bucket);
	sh->gen = cpu_to_le64(gen);
	sh->nr_records = cpu_to_le32(sb->nr);
	sh->len = cpu_to_le32(sb->len);
	sh->crc = 0;
	sh->val_bytes = cpu_to_le32(sb->val_bytes);
	sh->crc = cpu_to_le32(scalio_crc(sh, sb->len,
					 offsetof(struct scalio_seg_hdr, crc)));
	if (end > sb->cap)
		end = sb->cap;
	if (end > sb->len)
		memset(sb->buf + sb->len, 0, end - sb->len);
	return DIV_ROUND_UP(sb->len, SCALIO_SECTOR_SIZE);
}
