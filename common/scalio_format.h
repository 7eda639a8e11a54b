/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-SSD format, per SSD.  Pure logic: compiles in the kernel and in user
 * space.  All fields little-endian; every structure ends in a crc32c.
 *
 *   unit 0                     superblock (struct scalio_sb), written FUA
 *   unit 1                     its copy (written after unit 0 is durable)
 *   units 2 .. 2+2*ckpt_units  two checkpoint slots (A/B), alternating
 *   units log_start ..         circular log of batches
 *
 * A "unit" is 4 KiB, a "sector" 512 bytes.  A batch is written with one
 * sequential, durable write of whole units, starting on a unit: a batch
 * header sector; then the batch's value extents (key-value separation:
 * values above the store's inline limit), packed back to back on 8 bytes
 * from the second sector on, zero-padded to a sector; then the batch's
 * segments packed back to back, each starting on a sector boundary; then
 * zeroes up to the end of the last unit.  A batch that does not fit before the end of the log is written at
 * log_start instead (recovery looks there when the next header is not
 * where the previous batch ended).  A segment holds every live record of
 * one bucket; a newer segment of the bucket (higher generation, which is
 * the sequence number of the batch that wrote it) supersedes older ones.
 * Buckets map to SSDs round-robin (scalio_bucket_ssd()).  A record whose
 * value lives in an extent holds a value pointer (struct scalio_vptr)
 * instead of the value; the extent is written in the same batch as the
 * first segment that points to it, and rewritten (relocated) only by the
 * cleaner, in one batch with its bucket's new segment.
 *
 * crc convention: crc = ~crc32c(~0, bytes with the crc field zeroed).
 */
#ifndef _SCALIO_FORMAT_H
#define _SCALIO_FORMAT_H

#include "scalio_types.h"

#define SCALIO_UNIT_SHIFT	12
#define SCALIO_UNIT_SIZE	(1U << SCALIO_UNIT_SHIFT)
#define SCALIO_SECTORS_PER_UNIT	(SCALIO_UNIT_SIZE >> 9)
#define SCALIO_SECTOR_SHIFT	9
#define SCALIO_SECTOR_SIZE	(1U << SCALIO_SECTOR_SHIFT)

#define SCALIO_SB_MAGIC		0x4253534f494c4353ULL	/* "SCLIOSSB" */
#define SCALIO_CKPT_MAGIC	0x54504b43494c4353ULL	/* "SCLICKPT" */
#define SCALIO_BATCH_MAGIC	0x48544142494c4353ULL	/* "SCLIBATH" */
#define SCALIO_SEG_MAGIC	0x47455353U		/* "SSEG" */
#define SCALIO_VAL_MAGIC	0x4c415653U		/* "SVAL" */
/*
 * 3: segments packed on sectors in a batch; seg words address sectors.
 * 4: a segment per bucket, apart from the cache blocks (nr_buckets).
 * 5: value extents (key-value separation); records may hold a vptr.
 */
#define SCALIO_FORMAT_VERSION	5

/* Where the superblock, its copy and the first checkpoint slot live. */
#define SCALIO_SB_UNIT		0
#define SCALIO_SB_COPY_UNIT	1
#define SCALIO_CKPT_UNIT	2
/* Most hash blocks and buckets a store may have (bounds any geometry read). */
#define SCALIO_MAX_BLOCKS	(1U << 24)
#define SCALIO_MAX_BUCKETS	(1U << 28)
/* Largest batch a store writes, in units, header included. */
#define SCALIO_BATCH_MAX_UNITS	512U

/**
 * struct scalio_sb - superblock, units 0 and 1 of every SSD of a store
 * @magic:	SCALIO_SB_MAGIC
 * @version:	SCALIO_FORMAT_VERSION
 * @ssd_index:	which SSD of the store this is
 * @nr_ssds:	SSDs in the store (must match on every SSD)
 * @nr_blocks:	cache blocks of the store (must match the configuration)
 * @uuid:	store identity, equal on all SSDs of the store
 * @nr_units:	usable size of the device in units
 * @ckpt_units:	units per checkpoint slot
 * @log_start:	first unit of the log
 * @log_units:	units in the log
 * @seq:	incremented on every superblock write
 * @hash_seed:	the store's secret key-hash seed (random at format, never
 *		0, equal on all SSDs)
 * @nr_buckets:	buckets of the store (power of two, >= @nr_blocks; must
 *		match the configuration)
 * @reserved:	0
 * @crc:	see file comment
 */
struct scalio_sb {
	__le64	magic;
	__le32	version;
	__le32	ssd_index;
	__le32	nr_ssds;
	__le32	nr_blocks;
	__u8	uuid[16];
	__le64	nr_units;
	__le64	ckpt_units;
	__le64	log_start;
	__le64	log_units;
	__le64	seq;
	__le64	hash_seed;
	__le32	nr_buckets;
	__le32	reserved32;
	__le64	reserved[5];
	__le32	pad;
	__le32	crc;
};

/**
 * struct scalio_ckpt_hdr - head of a checkpoint slot
 * @magic:	SCALIO_CKPT_MAGIC
 * @seq:	checkpoint sequence; recovery uses the valid slot with the
 *		highest @seq
 * @log_head:	oldest unit that may still hold a live segment
 * @log_tail:	unit where the next batch goes; recovery scans from here
 * @next_batch: sequence number the batch at @log_tail must carry
 * @nr_entries:	entries following (buckets of this SSD)
 * @crc:	over the header and all entries
 * @head_seq:	sequence number of the batch at @log_head (= @next_batch
 *		when the log is empty); lets the cleaner tell the batch at
 *		the head from stale units skipped by a wrap
 *
 * Followed by @nr_entries struct scalio_ckpt_entry, in bucket order of the
 * buckets this SSD owns (bucket = ssd_index + i * nr_ssds).
 */
struct scalio_ckpt_hdr {
	__le64	magic;
	__le64	seq;
	__le64	log_head;
	__le64	log_tail;
	__le64	next_batch;
	__le32	nr_entries;
	__le32	crc;
	__le64	head_seq;
	__le64	reserved;
};

/**
 * struct scalio_ckpt_entry - one bucket's segment at checkpoint time
 * @seg:	the bucket's seg word (0: no segment)
 * @gen:	full generation of that segment
 */
struct scalio_ckpt_entry {
	__le64	seg;
	__le64	gen;
};

/**
 * struct scalio_batch_hdr - first sector of every batch
 * @magic:	SCALIO_BATCH_MAGIC
 * @seq:	batch sequence number, +1 per batch on this SSD; it is also the
 *		generation of every segment and value extent in the batch
 * @nr_units:	units of the whole batch, header sector included
 * @nr_segs:	segments, from sector 1 + @val_sectors on
 * @nr_vals:	value extents, from the batch's second sector on
 * @val_sectors: sectors the value extents take (zero-padded)
 * @flags:	0
 * @crc:	over this header
 */
struct scalio_batch_hdr {
	__le64	magic;
	__le64	seq;
	__le32	nr_units;
	__le32	nr_segs;
	__le32	nr_vals;
	__le32	val_sectors;
	__le32	flags;
	__le32	crc;
};

/**
 * struct scalio_val_hdr - head of a value extent (8-byte aligned)
 * @magic:	SCALIO_VAL_MAGIC
 * @klen:	key length, 1..SCALIO_KEY_MAX
 * @flags:	0
 * @reserved:	0
 * @len:	value bytes, 1..SCALIO_VALUE_MAX
 * @crc:	over the header, the key and the value
 * @gen:	the writing batch's sequence number
 *
 * Followed by the key, then the value; the next extent starts on the next
 * multiple of 8 bytes.  The key makes an extent self-describing: the
 * cleaner finds its bucket from it, and a reader that followed an old
 * value pointer to reused space sees another key (or gen, or crc).
 */
struct scalio_val_hdr {
	__le32	magic;
	__u8	klen;
	__u8	flags;
	__le16	reserved;
	__le32	len;
	__le32	crc;
	__le64	gen;
};

/**
 * struct scalio_vptr - a record's value when it lives in an extent
 * @pos:	byte address of the extent's header on the bucket's SSD
 * @gen:	the extent's generation
 * @len:	value bytes
 * @crc:	the extent's crc
 *
 * Stored unaligned in a record (rec_hdr.flags & SCALIO_REC_VPTR, vlen ==
 * sizeof(struct scalio_vptr)).
 */
struct scalio_vptr {
	__le64	pos;
	__le64	gen;
	__le32	len;
	__le32	crc;
} __packed;

/**
 * struct scalio_seg_hdr - head of a segment (starts on a sector boundary)
 * @magic:	SCALIO_SEG_MAGIC
 * @bucket:	bucket whose keys this segment holds
 * @gen:	generation (= the writing batch's sequence number)
 * @nr_records:	records that follow
 * @len:	bytes of header plus records
 * @crc:	over the header and the records
 * @val_bytes:	bytes the value extents its records point to take
 *		(scalio_val_size() each), so that recovery counts live data
 *		from headers alone
 *
 * Records follow, packed: struct scalio_rec_hdr, key, value.
 */
struct scalio_seg_hdr {
	__le32	magic;
	__le32	bucket;
	__le64	gen;
	__le32	nr_records;
	__le32	len;
	__le32	crc;
	__le32	val_bytes;
};

/**
 * struct scalio_rec_hdr - head of one record in a segment
 * @klen:	1..SCALIO_KEY_MAX
 * @flags:	0 or SCALIO_REC_VPTR
 * @vlen:	bytes of value that follow the key: 0..SCALIO_VALUE_MAX, or
 *		sizeof(struct scalio_vptr) with SCALIO_REC_VPTR
 */
struct scalio_rec_hdr {
	__u8	klen;
	__u8	flags;
	__le16	vlen;
} __packed;

/* The record's value is a struct scalio_vptr to a value extent. */
#define SCALIO_REC_VPTR		0x01
/* Bounds a value pointer's byte address (far above any SSD's size). */
#define SCALIO_VAL_POS_MAX	(1ULL << 52)

/*
 * Largest segment: it spans at most SCALIO_SEG_LEN_MAX units (the seg
 * word's length field) even when it starts in a unit's last sector.
 */
#define SCALIO_SEG_MAX_BYTES	(255U * SCALIO_UNIT_SIZE - \
				 (SCALIO_UNIT_SIZE - SCALIO_SECTOR_SIZE))

u32 scalio_crc(const void *buf, size_t len, size_t crc_off);

void scalio_sb_seal(struct scalio_sb *sb);
/*
 * Return: 0, -ENODATA (no magic: not a scalio superblock),
 * -EPROTONOSUPPORT (other format version), -EBADMSG (bad crc) or
 * -ERANGE (intact, but the geometry is inconsistent or out of bounds).
 */
int scalio_sb_check(const struct scalio_sb *sb);

/* Buckets SSD @ssd_index of a store owns: ssd_index + i * nr_ssds. */
static inline u32 scalio_owned_buckets(u32 nr_buckets, u32 nr_ssds,
				       u32 ssd_index)
{
	if (!nr_ssds || ssd_index >= nr_buckets)
		return 0;
	return (nr_buckets - ssd_index - 1) / nr_ssds + 1;
}

/* Bytes and units of a checkpoint of @nr_owned buckets. */
static inline u64 scalio_ckpt_bytes(u32 nr_owned)
{
	return sizeof(struct scalio_ckpt_hdr) +
	       (u64)nr_owned * sizeof(struct scalio_ckpt_entry);
}

static inline u64 scalio_ckpt_units(u32 nr_owned)
{
	return DIV_ROUND_UP(scalio_ckpt_bytes(nr_owned), SCALIO_UNIT_SIZE);
}

/*
 * scalio_ckpt_check() - validate a checkpoint slot image
 * @h:		slot image, scalio_ckpt_bytes(@nr_owned) bytes at least
 * @sb:		the SSD's checked superblock
 * @nr_owned:	buckets the SSD owns
 *
 * Checks magic, crc, the log positions and every entry's seg word (on
 * this SSD, inside the log, generation matching, in a batch still in use:
 * between the log's head and tail, generation from head_seq on).
 *
 * Return: 0; -ENODATA (no checkpoint magic), -EBADMSG (bad crc) or
 * -ERANGE (intact but inconsistent).
 */
int scalio_ckpt_check(const struct scalio_ckpt_hdr *h,
		      const struct scalio_sb *sb, u32 nr_owned);

/*
 * scalio_batch_check() - validate a whole batch image read from the log
 * @buf:	the batch, @avail units of it read
 * @avail:	units available in @buf (at least 1)
 * @seq:	the sequence number the batch must carry
 * @sb:		the SSD's checked superblock
 * @pos:	log unit the batch was read at
 *
 * Return: the batch's units (all of them checked) when @avail covers
 * it; -EAGAIN with *@need set when the header is good but more units
 * must be read; -EBADMSG (no intact header), -ESTALE (intact header of
 * another batch), -EUCLEAN (header of this batch but torn contents).
 */
int scalio_batch_check(const void *buf, u32 avail, u64 seq,
		       const struct scalio_sb *sb, u64 pos, u32 *need);

/**
 * struct scalio_batch_iter - a walk over the segments and value extents
 *	of a checked batch
 * @buf:	the batch
 * @off:	sector of the next segment inside the batch
 * @left:	segments not yet walked
 * @voff:	byte offset of the next value extent inside the batch
 * @vleft:	value extents not yet walked
 */
struct scalio_batch_iter {
	const void	*buf;
	u32		off;
	u32		left;
	u32		voff;
	u32		vleft;
};

void scalio_batch_iter_init(struct scalio_batch_iter *it, const void *buf);
/*
 * scalio_batch_next_val() - the next value extent of a checked batch
 * @it:		the walk
 * @vh:		out: the extent
 * @off:	out: its byte offset from the batch's start
 * Return: 1 with the outputs set, 0 past the last extent.
 */
int scalio_batch_next_val(struct scalio_batch_iter *it,
			  const struct scalio_val_hdr **vh, u32 *off);
/*
 * scalio_batch_next_seg() - the next segment of a checked batch
 * @it:		the walk (scalio_batch_iter_init())
 * @seg:	out: the segment
 * @sector:	out: its first sector, counted from the batch's start
 * @sectors:	out: sectors it takes
 * Return: 1 with the outputs set, 0 past the last segment.
 */
int scalio_batch_next_seg(struct scalio_batch_iter *it,
			  const struct scalio_seg_hdr **seg, u32 *sector,
			  u32 *sectors);

void scalio_batch_hdr_seal(struct scalio_batch_hdr *bh);
/* Return: 0, -EBADMSG (no intact header) or -ESTALE (intact, other seq). */
int scalio_batch_hdr_check(const struct scalio_batch_hdr *bh, u64 seq);

/**
 * struct scalio_rec - a decoded record (pointers into the segment buffer)
 */
struct scalio_rec {
	const u8	*key;
	const u8	*value;
	u32		klen;
	u32		vlen;
	u32		flags;
};

/**
 * struct scalio_vref - a decoded value pointer (struct scalio_vptr)
 */
struct scalio_vref {
	u64	pos;
	u64	gen;
	u32	len;
	u32	crc;
};

/*
 * Sectors a read of the extent of @v (key of @klen bytes) covers, from
 * sector scalio_val_first_sector(); the extent starts
 * scalio_val_sector_off() bytes into the first one.
 */
static inline u64 scalio_val_first_sector(const struct scalio_vref *v)
{
	return v->pos >> SCALIO_SECTOR_SHIFT;
}

static inline u32 scalio_val_sector_off(const struct scalio_vref *v)
{
	return v->pos & (SCALIO_SECTOR_SIZE - 1);
}

/* Bytes a value extent takes in a batch, padding to 8 bytes included. */
static inline u32 scalio_val_size(u32 klen, u32 len)
{
	return ALIGN((u32)sizeof(struct scalio_val_hdr) + klen + len, 8);
}

static inline u32 scalio_val_read_sectors(const struct scalio_vref *v,
					  u32 klen)
{
	return DIV_ROUND_UP(scalio_val_sector_off(v) +
			    sizeof(struct scalio_val_hdr) + klen + v->len,
			    SCALIO_SECTOR_SIZE);
}

/*
 * scalio_rec_vref() - the value pointer of a checked record
 * Return: true with *@v set if @rec holds one (SCALIO_REC_VPTR).
 */
bool scalio_rec_vref(const struct scalio_rec *rec, struct scalio_vref *v);

/* Encode @v as the bytes of a record's value. */
void scalio_vptr_encode(struct scalio_vptr *p, const struct scalio_vref *v);

/**
 * scalio_val_build() - write a value extent
 * @buf:	destination, scalio_val_size(@klen, @len) bytes
 * @key:	key (1..SCALIO_KEY_MAX bytes)
 * @klen:	its length
 * @value:	value (1..SCALIO_VALUE_MAX bytes)
 * @len:	its length
 * @gen:	the batch's sequence number
 * @pos:	byte address the extent will have on the SSD
 * @v:		out: the pointer a record stores for it
 *
 * Return: bytes written (scalio_val_size()), or 0 for a bad length.
 */
u32 scalio_val_build(void *buf, const u8 *key, u32 klen, const u8 *value,
		     u32 len, u64 gen, u64 pos, struct scalio_vref *v);

/**
 * scalio_val_check() - validate a value extent read from an SSD
 * @buf:	the extent's bytes, from its header on
 * @avail:	bytes available at @buf
 * @key:	the key the caller looks up, or NULL (integrity only)
 * @klen:	its length
 * @v:		the pointer that led here, or NULL (integrity only)
 * @value:	out (may be NULL): the value bytes (@v->len of them)
 *
 * Integrity first (magic, lengths, crc), identity last, as for segments.
 * Return: 0; -EBADMSG (not an intact extent) or -ESTALE (an intact
 * extent, but another key's, generation, length or crc than @v names:
 * the value was moved and its space reused).
 */
int scalio_val_check(const void *buf, size_t avail, const u8 *key, u32 klen,
		     const struct scalio_vref *v, const u8 **value);

/**
 * scalio_seg_check() - validate a segment buffer
 * @buf:	segment bytes (at least @buf_len)
 * @buf_len:	bytes available (length of the seg in units * unit size)
 * @bucket:	expected bucket
 * @genlo:	expected low bits of the generation (SCALIO_SEG_GEN_MASK),
 *		or -1 for any
 *
 * Return: 0, or -EBADMSG (bad magic/crc/lengths) / -ESTALE (bucket or
 * generation mismatch: the segment was moved or rewritten).
 */
int scalio_seg_check(const void *buf, size_t buf_len, u32 bucket, s64 genlo);

/**
 * scalio_seg_find() - look up a key in a checked segment
 * Return: 0 and *@rec filled, -ENOENT if absent, -EBADMSG if corrupt.
 */
int scalio_seg_find(const void *buf, const u8 *key, u32 klen,
		    struct scalio_rec *rec);

/**
 * scalio_seg_next() - iterate records of a checked segment
 * @buf:	segment
 * @pos:	in/out cursor; start at 0
 * @rec:	out
 * Return: 1 with *@rec filled, 0 at the end, -EBADMSG if corrupt.
 */
int scalio_seg_next(const void *buf, u32 *pos, struct scalio_rec *rec);

/**
 * struct scalio_seg_builder - builds a segment into a caller's buffer
 * @buf:	destination, @cap bytes
 * @cap:	capacity
 * @len:	bytes used so far (header included)
 * @nr:		records so far
 * @val_bytes:	extent bytes its records point to so far
 */
struct scalio_seg_builder {
	u8	*buf;
	u32	cap;
	u32	len;
	u32	nr;
	u32	val_bytes;
};

void scalio_seg_build_init(struct scalio_seg_builder *sb, void *buf, u32 cap);
/* Return: 0, -ENOSPC, or -EINVAL (klen not 1..32 or vlen > 4096). */
int scalio_seg_build_add(struct scalio_seg_builder *sb, const u8 *key,
			 u32 klen, const u8 *value, u32 vlen);
/* A record whose value lives in the extent @v names.  Return: as above. */
int scalio_seg_build_add_vref(struct scalio_seg_builder *sb, const u8 *key,
			      u32 klen, const struct scalio_vref *v);
/* Seal header + crc; zero-pad to a sector boundary.  Return: sectors used. */
u32 scalio_seg_build_finish(struct scalio_seg_builder *sb, u32 bucket,
			    u64 gen);

/* Bytes a record of this size takes in a segment. */
static inline u32 scalio_rec_size(u32 klen, u32 vlen)
{
	return sizeof(struct scalio_rec_hdr) + klen + vlen;
}

#endif /* _SCALIO_FORMAT_H */
