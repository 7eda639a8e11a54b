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
 * Pure logic: compiled into both modules (through target/common.c and
 * host/common.c) and into the user-space unit tests.
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

/**
 * scalio_sb_check() - validate a superblock read from an SSD
 * @sb:	the superblock (unit 0)
 *
 * Checks the magic, the crc, the format version and that the geometry is
 * self-consistent (checkpoint slots and log inside the device, SSD index
 * inside the store, reserved fields zero).
 *
 * Return: 0; -ENODATA when the magic is absent (not a scalio device);
 * -EPROTONOSUPPORT for another format version; -EBADMSG for a bad crc or
 * an inconsistent geometry.
 */
int scalio_sb_check(const struct scalio_sb *sb)
{
	u64 nr_units, ckpt_units, log_start, log_units;
	u32 nr_ssds, i;

	if (le64_to_cpu(sb->magic) != SCALIO_SB_MAGIC)
		return -ENODATA;
	if (le32_to_cpu(sb->crc) !=
	    scalio_crc(sb, sizeof(*sb), offsetof(struct scalio_sb, crc)))
		return -EBADMSG;
	if (le32_to_cpu(sb->version) != SCALIO_FORMAT_VERSION)
		return -EPROTONOSUPPORT;

	nr_ssds = le32_to_cpu(sb->nr_ssds);
	if (!nr_ssds || nr_ssds > SCALIO_MAX_SSDS ||
	    le32_to_cpu(sb->ssd_index) >= nr_ssds)
		return -EBADMSG;
	if (!scalio_fmt_pow2(le32_to_cpu(sb->nr_blocks)))
		return -EBADMSG;

	nr_units = le64_to_cpu(sb->nr_units);
	ckpt_units = le64_to_cpu(sb->ckpt_units);
	log_start = le64_to_cpu(sb->log_start);
	log_units = le64_to_cpu(sb->log_units);
	/* Each comparison is ordered so that no sum can overflow. */
	if (!ckpt_units || ckpt_units > nr_units / 2)
		return -EBADMSG;
	if (log_start < 1 + 2 * ckpt_units || log_start > nr_units)
		return -EBADMSG;
	/* A batch needs a header unit and at least one segment unit. */
	if (log_units < 2 || log_units > nr_units - log_start)
		return -EBADMSG;

	if (sb->pad)
		return -EBADMSG;
	for (i = 0; i < ARRAY_SIZE(sb->reserved); i++)
		if (sb->reserved[i])
			return -EBADMSG;
	return 0;
}

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
	u32 nr_units, nr_segs;

	if (le64_to_cpu(bh->magic) != SCALIO_BATCH_MAGIC)
		return -EBADMSG;
	if (le32_to_cpu(bh->crc) !=
	    scalio_crc(bh, sizeof(*bh), offsetof(struct scalio_batch_hdr, crc)))
		return -EBADMSG;
	nr_units = le32_to_cpu(bh->nr_units);
	nr_segs = le32_to_cpu(bh->nr_segs);
	/* Every segment takes at least one unit after the header unit. */
	if (!nr_units || nr_segs > nr_units - 1 || bh->flags)
		return -EBADMSG;
	if (le64_to_cpu(bh->seq) != seq)
		return -ESTALE;
	return 0;
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
	if (!klen || klen > SCALIO_KEY_MAX || rh->flags ||
	    vlen > SCALIO_VALUE_MAX)
		return 0;
	size = scalio_rec_size(klen, vlen);
	if (len - pos < size)
		return 0;
	rec->key = seg + pos + sizeof(*rh);
	rec->klen = klen;
	rec->value = rec->key + klen;
	rec->vlen = vlen;
	return size;
}

/**
 * scalio_seg_check() - validate a segment buffer
 *
 * See scalio_format.h.  Integrity is checked first (magic, lengths, crc,
 * every record well-formed and exactly @nr_records of them filling @len),
 * identity last, so -ESTALE always means "an intact segment, but not the
 * one the caller's seg word names".
 */
int scalio_seg_check(const void *buf, size_t buf_len, u32 block, s64 gen20)
{
	const struct scalio_seg_hdr *sh = buf;
	struct scalio_rec rec;
	u32 len, nr, pos, i, size;

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
	if (sh->reserved)
		return -EBADMSG;

	nr = le32_to_cpu(sh->nr_records);
	/* The smallest record is 5 bytes: bound @nr before looping on it. */
	if (nr > (len - sizeof(*sh)) / scalio_rec_size(1, 0))
		return -EBADMSG;
	pos = sizeof(*sh);
	for (i = 0; i < nr; i++) {
		size = scalio_rec_decode(buf, pos, len, &rec);
		if (!size)
			return -EBADMSG;
		pos += size;
	}
	if (pos != len)
		return -EBADMSG;

	if (le32_to_cpu(sh->block) != block)
		return -ESTALE;
	if (gen20 >= 0 &&
	    (le64_to_cpu(sh->gen) & SCALIO_SEG_GEN_MASK) != (u64)gen20)
		return -ESTALE;
	return 0;
}

/**
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
 * @buf:	destination; should be a whole number of units so that
 *		scalio_seg_build_finish() can pad the last one
 * @cap:	bytes of @buf (at most SCALIO_SEG_MAX_BYTES are used)
 */
void scalio_seg_build_init(struct scalio_seg_builder *sb, void *buf, u32 cap)
{
	sb->buf = buf;
	sb->cap = cap < SCALIO_SEG_MAX_BYTES ? cap : SCALIO_SEG_MAX_BYTES;
	sb->len = sizeof(struct scalio_seg_hdr);
	sb->nr = 0;
}

/**
 * scalio_seg_build_add() - append one record
 *
 * Return: 0, -ENOSPC if it does not fit in the capacity, or -EINVAL for a
 * key or value length outside 1..SCALIO_KEY_MAX / 0..SCALIO_VALUE_MAX.
 */
int scalio_seg_build_add(struct scalio_seg_builder *sb, const u8 *key,
			 u32 klen, const u8 *value, u32 vlen)
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
	rh->flags = 0;
	rh->vlen = cpu_to_le16(vlen);
	memcpy(sb->buf + sb->len + sizeof(*rh), key, klen);
	if (vlen)
		memcpy(sb->buf + sb->len + sizeof(*rh) + klen, value, vlen);
	sb->len += size;
	sb->nr++;
	return 0;
}

/**
 * scalio_seg_build_finish() - write the header and seal the segment
 * @sb:		builder (needs a capacity of at least a header)
 * @block:	hash block of the segment
 * @gen:	generation (the batch's sequence number)
 *
 * Zero-pads the last unit (within the capacity).
 *
 * Return: units the segment occupies.
 */
u32 scalio_seg_build_finish(struct scalio_seg_builder *sb, u32 block, u64 gen)
{
	struct scalio_seg_hdr *sh = (void *)sb->buf;
	u32 end = ALIGN(sb->len, SCALIO_UNIT_SIZE);

	if (sb->cap < sizeof(*sh))
		return 0;
	sh->magic = cpu_to_le32(SCALIO_SEG_MAGIC);
	sh->block = cpu_to_le32(block);
	sh->gen = cpu_to_le64(gen);
	sh->nr_records = cpu_to_le32(sb->nr);
	sh->len = cpu_to_le32(sb->len);
	sh->crc = 0;
	sh->reserved = 0;
	sh->crc = cpu_to_le32(scalio_crc(sh, sb->len,
					 offsetof(struct scalio_seg_hdr, crc)));
	if (end > sb->cap)
		end = sb->cap;
	if (end > sb->len)
		memset(sb->buf + sb->len, 0, end - sb->len);
	return DIV_ROUND_UP(sb->len, SCALIO_UNIT_SIZE);
}
