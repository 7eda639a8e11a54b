// SPDX-License-Identifier: GPL-2.0
/*
 * On-SSD format: crc convention, superblock and batch header seal/check,
 * segment builder, checker, finder and iterator, and corruption sweeps
 * (every byte flipped, every truncation) that must yield an error and
 * never a crash (run under ASan/UBSan).
 */
#include "kselftest_harness.h"
#include <stddef.h>
#include "common/scalio_format.h"
#include "common/scalio_index.h"

#define SEG_CAP	(4 * SCALIO_UNIT_SIZE)

/* 8-byte aligned buffers: the structures are accessed through pointers. */
static u64 segbuf_words[SEG_CAP / 8];
static u8 *const segbuf = (u8 *)segbuf_words;
static u64 workbuf_words[SEG_CAP / 8];
static u8 *const workbuf = (u8 *)workbuf_words;

TEST(crc_convention)
{
	u8 buf[13], ref[13];

	memcpy(buf, "123456789\xde\xad\xbe\xef", 13);
	memcpy(ref, "123456789\0\0\0\0", 13);
	/* The crc field is treated as zero whatever it holds. */
	EXPECT_EQ(scalio_crc(buf, 13, 9), ~crc32c(~0U, ref, 13));
	memset(buf + 9, 0x55, 4);
	EXPECT_EQ(scalio_crc(buf, 13, 9), ~crc32c(~0U, ref, 13));
	/* Field at the start. */
	memcpy(ref, "\0\0\0\0" "56789abcd", 13);
	memcpy(buf, "XXXX" "56789abcd", 13);
	EXPECT_EQ(scalio_crc(buf, 13, 0), ~crc32c(~0U, ref, 13));
	/* A field that does not fit is a caller bug, answered without reads. */
	EXPECT_EQ(scalio_crc(buf, 13, 10), 0);
	EXPECT_EQ(scalio_crc(buf, 3, 0), 0);
	EXPECT_EQ(scalio_crc(buf, 13, (size_t)-1), 0);
}

TEST(struct_sizes)
{
	EXPECT_EQ(sizeof(struct scalio_sb), 144);
	EXPECT_EQ(offsetof(struct scalio_sb, crc), 140);
	EXPECT_EQ(sizeof(struct scalio_batch_hdr), 40);
	EXPECT_EQ(sizeof(struct scalio_val_hdr), 24);
	EXPECT_EQ(sizeof(struct scalio_vptr), 24);
	EXPECT_EQ(scalio_val_size(1, 1), 32);
	EXPECT_EQ(scalio_val_size(32, 4096), 4152);
	EXPECT_EQ(sizeof(struct scalio_seg_hdr), 32);
	EXPECT_EQ(sizeof(struct scalio_rec_hdr), 4);
	EXPECT_EQ(sizeof(struct scalio_ckpt_hdr), 64);
	EXPECT_EQ(sizeof(struct scalio_ckpt_entry), 16);
	EXPECT_EQ(scalio_rec_size(3, 10), 17);
}

static void sb_make(struct scalio_sb *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->magic = cpu_to_le64(SCALIO_SB_MAGIC);
	sb->version = cpu_to_le32(SCALIO_FORMAT_VERSION);
	sb->ssd_index = cpu_to_le32(1);
	sb->nr_ssds = cpu_to_le32(2);
	sb->nr_blocks = cpu_to_le32(1024);
	sb->nr_buckets = cpu_to_le32(4096);
	memcpy(sb->uuid, "0123456789abcdef", 16);
	sb->nr_units = cpu_to_le64(1 << 20);
	/* SSD 1 of 2 owns 2048 buckets: 64 + 2048 * 16 bytes = 9 units. */
	sb->ckpt_units = cpu_to_le64(9);
	sb->log_start = cpu_to_le64(20);
	sb->log_units = cpu_to_le64((1 << 20) - 20);
	sb->seq = cpu_to_le64(7);
	sb->hash_seed = cpu_to_le64(SCALIO_HASH_SEED);
	scalio_sb_seal(sb);
}

TEST(sb_seal_check)
{
	struct scalio_sb sb, ref;

	sb_make(&sb);
	EXPECT_EQ(scalio_sb_check(&sb), 0);
	EXPECT_EQ(le32_to_cpu(sb.crc),
		 scalio_crc(&sb, sizeof(sb), offsetof(struct scalio_sb, crc)));
	/* Sealing is idempotent and independent of the old crc. */
	ref = sb;
	sb.crc = cpu_to_le32(0x12345678);
	scalio_sb_seal(&sb);
	EXPECT_TRUE(!memcmp(&sb, &ref, sizeof(sb)));
	/* Smallest legal log: header + one segment unit, ending at nr_units. */
	sb.log_units = cpu_to_le64(2);
	sb.nr_units = cpu_to_le64(22);
	scalio_sb_seal(&sb);
	EXPECT_EQ(scalio_sb_check(&sb), 0);
}

TEST(sb_corruption)
{
	struct scalio_sb sb, bad;
	size_t i;
	int bit, detected = 0;

	sb_make(&sb);
	for (i = 0; i < sizeof(sb); i++) {
		for (bit = 0; bit < 8; bit++) {
			bad = sb;
			((u8 *)&bad)[i] ^= 1 << bit;
			if (scalio_sb_check(&bad) != 0)
				detected++;
			else
				TH_LOG("undetected flip byte %zu bit %d",
				       i, bit);
		}
	}
	EXPECT_EQ(detected, sizeof(sb) * 8);

	bad = sb;
	bad.magic = cpu_to_le64(0);
	EXPECT_EQ(scalio_sb_check(&bad), -ENODATA);
	bad = sb;
	bad.crc ^= cpu_to_le32(1);
	EXPECT_EQ(scalio_sb_check(&bad), -EBADMSG);
}

#define SB_BAD(field, val, err) do {				\
	struct scalio_sb _b;					\
	sb_make(&_b);						\
	_b.field = (val);					\
	scalio_sb_seal(&_b);					\
	EXPECT_EQ(scalio_sb_check(&_b), err);			\
} while (0)

/* Resealed (crc-valid) superblocks with an impossible geometry. */
TEST(sb_geometry)
{
	SB_BAD(version, cpu_to_le32(SCALIO_FORMAT_VERSION + 1),
	       -EPROTONOSUPPORT);
	SB_BAD(version, cpu_to_le32(0), -EPROTONOSUPPORT);
	SB_BAD(nr_ssds, cpu_to_le32(0), -ERANGE);
	SB_BAD(nr_ssds, cpu_to_le32(17), -ERANGE);
	SB_BAD(nr_ssds, cpu_to_le32(16), -ERANGE); /* checkpoint too large */
	SB_BAD(ssd_index, cpu_to_le32(2), -ERANGE);
	SB_BAD(ssd_index, cpu_to_le32(0), 0);
	SB_BAD(nr_blocks, cpu_to_le32(0), -ERANGE);
	SB_BAD(nr_blocks, cpu_to_le32(1023), -ERANGE);
	SB_BAD(nr_blocks, cpu_to_le32(1 << 25), -ERANGE);
	SB_BAD(nr_blocks, cpu_to_le32(8192), -ERANGE); /* more than buckets */
	SB_BAD(nr_blocks, cpu_to_le32(4096), 0);
	SB_BAD(nr_blocks, cpu_to_le32(1), 0);
	SB_BAD(nr_buckets, cpu_to_le32(0), -ERANGE);
	SB_BAD(nr_buckets, cpu_to_le32(4095), -ERANGE);
	SB_BAD(nr_buckets, cpu_to_le32(1 << 29), -ERANGE);
	SB_BAD(nr_buckets, cpu_to_le32(512), -ERANGE); /* fewer than blocks */
	SB_BAD(nr_buckets, cpu_to_le32(8192), -ERANGE); /* ckpt too small */
	SB_BAD(nr_buckets, cpu_to_le32(2048), -ERANGE); /* ckpt too large */
	SB_BAD(reserved32, cpu_to_le32(1), -ERANGE);
	SB_BAD(ckpt_units, cpu_to_le64(0), -ERANGE);
	SB_BAD(ckpt_units, cpu_to_le64(8), -ERANGE);
	SB_BAD(ckpt_units, cpu_to_le64(10), -ERANGE);
	SB_BAD(ckpt_units, cpu_to_le64(~0ULL), -ERANGE);
	SB_BAD(log_start, cpu_to_le64(19), -ERANGE);
	SB_BAD(log_start, cpu_to_le64(21), -ERANGE);
	SB_BAD(log_start, cpu_to_le64(~0ULL), -ERANGE);
	SB_BAD(log_units, cpu_to_le64(1), -ERANGE);
	SB_BAD(log_units, cpu_to_le64((1 << 20) - 19), -ERANGE);
	SB_BAD(log_units, cpu_to_le64(~0ULL), -ERANGE);
	SB_BAD(log_units, cpu_to_le64((1 << 20) - 21), 0);
	SB_BAD(nr_units, cpu_to_le64(0), -ERANGE);
	SB_BAD(nr_units, cpu_to_le64(1ULL << 32), -ERANGE);
	SB_BAD(pad, cpu_to_le32(1), -ERANGE);
	SB_BAD(reserved[4], cpu_to_le64(1), -ERANGE);
	SB_BAD(hash_seed, cpu_to_le64(~0ULL), 0);
	/* No store without a seed of its own: never the public one. */
	SB_BAD(hash_seed, cpu_to_le64(0), -ERANGE);
	SB_BAD(seq, cpu_to_le64(~0ULL), 0);
}

TEST(batch_hdr)
{
	struct scalio_batch_hdr bh, bad;
	size_t i;
	int bit, detected = 0;

	memset(&bh, 0, sizeof(bh));
	bh.magic = cpu_to_le64(SCALIO_BATCH_MAGIC);
	bh.seq = cpu_to_le64(0x100000005ULL);
	bh.nr_units = cpu_to_le32(9);
	bh.nr_segs = cpu_to_le32(8);
	scalio_batch_hdr_seal(&bh);
	EXPECT_EQ(scalio_batch_hdr_check(&bh, 0x100000005ULL), 0);
	EXPECT_EQ(scalio_batch_hdr_check(&bh, 0x100000004ULL), -ESTALE);
	EXPECT_EQ(scalio_batch_hdr_check(&bh, 5), -ESTALE);

	for (i = 0; i < sizeof(bh); i++) {
		for (bit = 0; bit < 8; bit++) {
			bad = bh;
			((u8 *)&bad)[i] ^= 1 << bit;
			if (scalio_batch_hdr_check(&bad, 0x100000005ULL) ==
			    -EBADMSG)
				detected++;
		}
	}
	EXPECT_EQ(detected, sizeof(bh) * 8);

	bad = bh;
	bad.nr_segs = cpu_to_le32(9 * 8);	/* no sector left for one */
	scalio_batch_hdr_seal(&bad);
	EXPECT_EQ(scalio_batch_hdr_check(&bad, 0x100000005ULL), -EBADMSG);
	bad = bh;
	bad.nr_units = 0;
	bad.nr_segs = 0;
	scalio_batch_hdr_seal(&bad);
	EXPECT_EQ(scalio_batch_hdr_check(&bad, 0x100000005ULL), -EBADMSG);
	bad = bh;
	bad.nr_units = cpu_to_le32(1);		/* stores never write empty ones */
	bad.nr_segs = 0;
	scalio_batch_hdr_seal(&bad);
	EXPECT_EQ(scalio_batch_hdr_check(&bad, 0x100000005ULL), -EBADMSG);
	bad = bh;
	bad.flags = cpu_to_le32(1);
	scalio_batch_hdr_seal(&bad);
	EXPECT_EQ(scalio_batch_hdr_check(&bad, 0x100000005ULL), -EBADMSG);
	/* Extents and their sectors come together, and fit. */
	bad = bh;
	bad.nr_vals = cpu_to_le32(1);
	scalio_batch_hdr_seal(&bad);
	EXPECT_EQ(scalio_batch_hdr_check(&bad, 0x100000005ULL), -EBADMSG);
	bad.nr_vals = 0;
	bad.val_sectors = cpu_to_le32(1);
	scalio_batch_hdr_seal(&bad);
	EXPECT_EQ(scalio_batch_hdr_check(&bad, 0x100000005ULL), -EBADMSG);
	bad.nr_vals = cpu_to_le32(17);		/* 32 bytes each at least */
	scalio_batch_hdr_seal(&bad);
	EXPECT_EQ(scalio_batch_hdr_check(&bad, 0x100000005ULL), -EBADMSG);
	bad.nr_vals = cpu_to_le32(16);
	scalio_batch_hdr_seal(&bad);
	EXPECT_EQ(scalio_batch_hdr_check(&bad, 0x100000005ULL), 0);
	bad.val_sectors = cpu_to_le32(9 * 8 - 8);	/* no room for 8 segs */
	scalio_batch_hdr_seal(&bad);
	EXPECT_EQ(scalio_batch_hdr_check(&bad, 0x100000005ULL), -EBADMSG);
	bad.val_sectors = cpu_to_le32(0xffffffff);
	scalio_batch_hdr_seal(&bad);
	EXPECT_EQ(scalio_batch_hdr_check(&bad, 0x100000005ULL), -EBADMSG);
}

static const u8 key32[32] = "0123456789abcdefghijklmnopqrstuv";
static u8 val4096[SCALIO_VALUE_MAX];

TEST(val_roundtrip)
{
	static u8 buf[2 * SCALIO_UNIT_SIZE], bad[2 * SCALIO_UNIT_SIZE];
	struct scalio_vref v, w;
	const u8 *value = NULL;
	u32 n, i, bit, used, detected = 0;

	for (i = 0; i < sizeof(val4096); i++)
		val4096[i] = (u8)(i * 5 + 1);
	memset(buf, 0xee, sizeof(buf));
	n = scalio_val_build(buf, (const u8 *)"akey", 4, val4096, 1001, 99,
			     123456, &v);
	EXPECT_EQ(n, scalio_val_size(4, 1001));
	EXPECT_EQ(n, 1032);
	/* The padding is zeroed, the byte after it untouched. */
	EXPECT_EQ(buf[n - 1], 0);
	EXPECT_EQ(buf[n], 0xee);
	EXPECT_EQ(v.pos, 123456);
	EXPECT_EQ(v.gen, 99);
	EXPECT_EQ(v.len, 1001);
	EXPECT_EQ(scalio_val_check(buf, n, (const u8 *)"akey", 4, &v, &value),
		  0);
	ASSERT_NE(value, NULL);
	EXPECT_EQ(memcmp(value, val4096, 1001), 0);
	EXPECT_EQ(scalio_val_check(buf, n, NULL, 0, NULL, NULL), 0);
	/* Identity: another key, generation, length or crc is stale. */
	EXPECT_EQ(scalio_val_check(buf, n, (const u8 *)"akez", 4, &v, NULL),
		  -ESTALE);
	EXPECT_EQ(scalio_val_check(buf, n, (const u8 *)"ake", 3, &v, NULL),
		  -ESTALE);
	w = v;
	w.gen++;
	EXPECT_EQ(scalio_val_check(buf, n, (const u8 *)"akey", 4, &w, NULL),
		  -ESTALE);
	w = v;
	w.len--;
	EXPECT_EQ(scalio_val_check(buf, n, (const u8 *)"akey", 4, &w, NULL),
		  -ESTALE);
	w = v;
	w.crc ^= 1;
	EXPECT_EQ(scalio_val_check(buf, n, (const u8 *)"akey", 4, &w, NULL),
		  -ESTALE);
	/* Too few bytes available: never read past them. */
	used = sizeof(struct scalio_val_hdr) + 4 + 1001;
	EXPECT_EQ(scalio_val_check(buf, used - 1, NULL, 0, NULL, NULL),
		  -EBADMSG);
	EXPECT_EQ(scalio_val_check(buf, used, NULL, 0, NULL, NULL), 0);
	EXPECT_EQ(scalio_val_check(buf, 3, NULL, 0, NULL, NULL), -EBADMSG);
	/* Every bit flip in what the crc covers is caught. */
	for (i = 0; i < used; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(bad, buf, n);
			bad[i] ^= 1 << bit;
			if (scalio_val_check(bad, n, (const u8 *)"akey", 4, &v,
					     NULL) == -EBADMSG)
				detected++;
		}
	}
	EXPECT_EQ(detected, used * 8);
	/* Lengths a PUT cannot store are refused. */
	EXPECT_EQ(scalio_val_build(buf, (const u8 *)"k", 1, val4096, 0, 1, 0,
				   &w), 0);
	EXPECT_EQ(scalio_val_build(buf, (const u8 *)"k", 1, val4096,
				   SCALIO_VALUE_MAX + 1, 1, 0, &w), 0);
	EXPECT_EQ(scalio_val_build(buf, key32, 0, val4096, 1, 1, 0, &w), 0);
	EXPECT_EQ(scalio_val_build(buf, key32, 33, val4096, 1, 1, 0, &w), 0);
}

TEST(seg_vref_records)
{
	static u8 buf[SCALIO_UNIT_SIZE];
	struct scalio_seg_builder b;
	struct scalio_vref v = { .pos = 4096 * 77 + 8, .gen = 5, .len = 700,
				 .crc = 0xabcdef01 }, got;
	struct scalio_rec rec;
	struct scalio_rec_hdr *rh;
	u32 pos = 0;

	scalio_seg_build_init(&b, buf, sizeof(buf));
	EXPECT_EQ(scalio_seg_build_add_vref(&b, (const u8 *)"big", 3, &v), 0);
	EXPECT_EQ(scalio_seg_build_add(&b, (const u8 *)"small", 5,
				       (const u8 *)"xy", 2), 0);
	scalio_seg_build_finish(&b, 4, 5);
	ASSERT_EQ(scalio_seg_check(buf, sizeof(buf), 4, 5), 0);
	EXPECT_EQ(b.val_bytes, scalio_val_size(3, 700));
	EXPECT_EQ(scalio_seg_find(buf, (const u8 *)"big", 3, &rec), 0);
	EXPECT_EQ(rec.flags, SCALIO_REC_VPTR);
	EXPECT_EQ(rec.vlen, sizeof(struct scalio_vptr));
	ASSERT_TRUE(scalio_rec_vref(&rec, &got));
	EXPECT_EQ(got.pos, v.pos);
	EXPECT_EQ(got.gen, v.gen);
	EXPECT_EQ(got.len, v.len);
	EXPECT_EQ(got.crc, v.crc);
	EXPECT_EQ(scalio_seg_find(buf, (const u8 *)"small", 5, &rec), 0);
	EXPECT_EQ(rec.flags, 0);
	EXPECT_FALSE(scalio_rec_vref(&rec, &got));
	EXPECT_EQ(scalio_seg_next(buf, &pos, &rec), 1);

	/* A vptr record must be exactly a vptr long, with a storable length. */
	rh = (void *)(buf + sizeof(struct scalio_seg_hdr));
	rh->vlen = cpu_to_le16(sizeof(struct scalio_vptr) - 1);
	scalio_seg_build_finish(&b, 4, 5);
	EXPECT_EQ(scalio_seg_check(buf, sizeof(buf), 4, 5), -EBADMSG);
	rh->vlen = cpu_to_le16(sizeof(struct scalio_vptr));
	rh->flags = 0x02;			/* unknown flag */
	scalio_seg_build_finish(&b, 4, 5);
	EXPECT_EQ(scalio_seg_check(buf, sizeof(buf), 4, 5), -EBADMSG);
	rh->flags = SCALIO_REC_VPTR;
	scalio_seg_build_finish(&b, 4, 5);
	EXPECT_EQ(scalio_seg_check(buf, sizeof(buf), 4, 5), 0);
	v.len = 0;
	scalio_vptr_encode((void *)(rh + 1) + 3, &v);
	scalio_seg_build_finish(&b, 4, 5);
	EXPECT_EQ(scalio_seg_check(buf, sizeof(buf), 4, 5), -EBADMSG);
	v.len = SCALIO_VALUE_MAX + 1;
	scalio_vptr_encode((void *)(rh + 1) + 3, &v);
	scalio_seg_build_finish(&b, 4, 5);
	EXPECT_EQ(scalio_seg_check(buf, sizeof(buf), 4, 5), -EBADMSG);
	v.len = 1;
	v.pos = SCALIO_VAL_POS_MAX;
	scalio_vptr_encode((void *)(rh + 1) + 3, &v);
	scalio_seg_build_finish(&b, 4, 5);
	EXPECT_EQ(scalio_seg_check(buf, sizeof(buf), 4, 5), -EBADMSG);
	v.pos--;
	scalio_vptr_encode((void *)(rh + 1) + 3, &v);
	scalio_seg_build_finish(&b, 4, 5);
	/* The header's val_bytes must add up the extents pointed to. */
	EXPECT_EQ(scalio_seg_check(buf, sizeof(buf), 4, 5), -EBADMSG);
	b.val_bytes = scalio_val_size(3, 1);
	scalio_seg_build_finish(&b, 4, 5);
	EXPECT_EQ(scalio_seg_check(buf, sizeof(buf), 4, 5), 0);
	EXPECT_EQ(le32_to_cpu(((struct scalio_seg_hdr *)buf)->val_bytes), 32);
	v.len = 0;
	EXPECT_EQ(scalio_seg_build_add_vref(&b, (const u8 *)"z", 1, &v),
		  -EINVAL);
}


/* Three records: 32 + 6 + 8 + 4132 = 4178 bytes, nine sectors. */
static u32 build_sample(struct __test_metadata *_metadata,
			u8 *buf, u32 cap, u32 block, u64 gen)
{
	struct scalio_seg_builder b;
	u32 i;

	for (i = 0; i < sizeof(val4096); i++)
		val4096[i] = (u8)(i * 7 + 3);
	scalio_seg_build_init(&b, buf, cap);
	EXPECT_EQ(b.len, 32);
	EXPECT_EQ(scalio_seg_build_add(&b, (const u8 *)"a", 1,
				      (const u8 *)"1", 1), 0);
	EXPECT_EQ(scalio_seg_build_add(&b, (const u8 *)"key2", 4, NULL, 0), 0);
	EXPECT_EQ(scalio_seg_build_add(&b, key32, 32, val4096, 4096), 0);
	EXPECT_EQ(b.len, 4178);
	EXPECT_EQ(b.nr, 3);
	return scalio_seg_build_finish(&b, block, gen);
}

TEST(seg_roundtrip)
{
	const struct scalio_seg_hdr *sh = (const void *)segbuf;
	struct scalio_rec rec;
	u32 pos = 0, units, i;
	int n = 0;

	memset(segbuf, 0xee, SEG_CAP);
	units = build_sample(_metadata, segbuf, SEG_CAP, 77, 0x300000009ULL);
	EXPECT_EQ(units, 9);
	EXPECT_EQ(le32_to_cpu(sh->magic), SCALIO_SEG_MAGIC);
	EXPECT_EQ(le32_to_cpu(sh->bucket), 77);
	EXPECT_EQ(le64_to_cpu(sh->gen), 0x300000009ULL);
	EXPECT_EQ(le32_to_cpu(sh->nr_records), 3);
	EXPECT_EQ(le32_to_cpu(sh->len), 4178);
	EXPECT_EQ(le32_to_cpu(sh->crc),
		 scalio_crc(segbuf, 4178, offsetof(struct scalio_seg_hdr, crc)));
	/* Padding to the sector boundary is zeroed, the rest untouched. */
	for (i = 4178; i < 4608; i++)
		if (segbuf[i])
			break;
	EXPECT_EQ(i, 4608);
	EXPECT_EQ(segbuf[4608], 0xee);
	/* First record at byte 32: klen, flags, le16 vlen, key, value. */
	EXPECT_TRUE(!memcmp(segbuf + 32, "\x01\x00\x01\x00" "a1", 6));
	EXPECT_TRUE(!memcmp(segbuf + 38, "\x04\x00\x00\x00" "key2", 8));
	EXPECT_TRUE(!memcmp(segbuf + 46, "\x20\x00\x00\x10", 4));

	EXPECT_EQ(scalio_seg_check(segbuf, 8192, 77, 9), 0);
	EXPECT_EQ(scalio_seg_check(segbuf, 4178, 77, 9), 0);
	EXPECT_EQ(scalio_seg_check(segbuf, 8192, 77, -1), 0);
	EXPECT_EQ(scalio_seg_check(segbuf, 8192, 78, 9), -ESTALE);
	EXPECT_EQ(scalio_seg_check(segbuf, 8192, 77, 8), -ESTALE);
	EXPECT_EQ(scalio_seg_check(segbuf, 8192, 77, 0x300000009LL), -ESTALE);
	EXPECT_EQ(scalio_seg_check(segbuf, 8192, 77, 9 | (1 << 20)), -ESTALE);
	EXPECT_EQ(scalio_seg_check(segbuf, 4177, 77, 9), -EBADMSG);

	EXPECT_EQ(scalio_seg_find(segbuf, (const u8 *)"a", 1, &rec), 0);
	EXPECT_EQ(rec.klen, 1);
	EXPECT_EQ(rec.vlen, 1);
	EXPECT_EQ(rec.value[0], '1');
	EXPECT_TRUE(rec.key == segbuf + 36);
	EXPECT_EQ(scalio_seg_find(segbuf, (const u8 *)"key2", 4, &rec), 0);
	EXPECT_EQ(rec.vlen, 0);
	EXPECT_EQ(scalio_seg_find(segbuf, key32, 32, &rec), 0);
	EXPECT_EQ(rec.vlen, 4096);
	EXPECT_TRUE(!memcmp(rec.value, val4096, 4096));
	EXPECT_EQ(scalio_seg_find(segbuf, (const u8 *)"key", 3, &rec), -ENOENT);
	EXPECT_EQ(scalio_seg_find(segbuf, (const u8 *)"key22", 5, &rec),
		 -ENOENT);
	EXPECT_EQ(scalio_seg_find(segbuf, key32, 31, &rec), -ENOENT);
	EXPECT_EQ(scalio_seg_find(segbuf, key32, 0, &rec), -ENOENT);

	while (scalio_seg_next(segbuf, &pos, &rec) == 1) {
		n++;
		if (n == 1)
			EXPECT_TRUE(rec.klen == 1 && rec.key[0] == 'a');
		if (n == 2)
			EXPECT_TRUE(rec.klen == 4 && !memcmp(rec.key, "key2", 4));
		if (n == 3)
			EXPECT_TRUE(rec.klen == 32 && rec.vlen == 4096);
	}
	EXPECT_EQ(n, 3);
	EXPECT_EQ(pos, 4178);
	EXPECT_EQ(scalio_seg_next(segbuf, &pos, &rec), 0);
	/* A cursor inside a record is detected as garbage, not trusted. */
	pos = 4177;
	EXPECT_EQ(scalio_seg_next(segbuf, &pos, &rec), -EBADMSG);
	pos = 5000;
	EXPECT_EQ(scalio_seg_next(segbuf, &pos, &rec), -EBADMSG);
}

TEST(seg_empty)
{
	struct scalio_seg_builder b;
	struct scalio_rec rec;
	u32 pos = 0;

	scalio_seg_build_init(&b, segbuf, SCALIO_UNIT_SIZE);
	EXPECT_EQ(scalio_seg_build_finish(&b, 0, 1), 1);
	EXPECT_EQ(scalio_seg_check(segbuf, SCALIO_UNIT_SIZE, 0, 1), 0);
	EXPECT_EQ(scalio_seg_check(segbuf, 32, 0, 1), 0);
	EXPECT_EQ(scalio_seg_check(segbuf, 31, 0, 1), -EBADMSG);
	EXPECT_EQ(scalio_seg_find(segbuf, (const u8 *)"a", 1, &rec), -ENOENT);
	EXPECT_EQ(scalio_seg_next(segbuf, &pos, &rec), 0);
	/* A builder without room for a header produces nothing. */
	scalio_seg_build_init(&b, segbuf, 16);
	EXPECT_EQ(scalio_seg_build_add(&b, (const u8 *)"a", 1, NULL, 0),
		 -ENOSPC);
	EXPECT_EQ(scalio_seg_build_finish(&b, 0, 1), 0);
}

TEST(seg_enospc)
{
	struct scalio_seg_builder b;
	struct scalio_rec rec;
	u8 key[8] = "kkkkkkk", val[100];
	u32 i;
	int ret;

	memset(val, 'v', sizeof(val));
	scalio_seg_build_init(&b, segbuf, SCALIO_UNIT_SIZE);
	/* (4096 - 32) / (4 + 8 + 100) = 36 records fit. */
	for (i = 0; i < 100; i++) {
		key[7] = (u8)i;
		ret = scalio_seg_build_add(&b, key, 8, val, 100);
		if (ret)
			break;
	}
	EXPECT_EQ(i, 36);
	EXPECT_EQ(ret, -ENOSPC);
	EXPECT_EQ(b.len, 32 + 36 * 112);
	EXPECT_EQ(b.nr, 36);
	/* 32 bytes left: a 4 + 8 + 20 record fits exactly, then nothing. */
	EXPECT_EQ(scalio_seg_build_add(&b, key, 8, val, 21), -ENOSPC);
	EXPECT_EQ(scalio_seg_build_add(&b, key, 8, val, 20), 0);
	EXPECT_EQ(b.len, 4096);
	EXPECT_EQ(scalio_seg_build_add(&b, key, 1, NULL, 0), -ENOSPC);
	EXPECT_EQ(scalio_seg_build_finish(&b, 5, 6), 8);
	EXPECT_EQ(scalio_seg_check(segbuf, 4096, 5, 6), 0);
	key[7] = 35;
	EXPECT_EQ(scalio_seg_find(segbuf, key, 8, &rec), 0);
	EXPECT_EQ(rec.vlen, 100);
	EXPECT_TRUE(rec.key == segbuf + 32 + 35 * 112 + 4);
	EXPECT_EQ(scalio_seg_find(segbuf, key, 8, &rec), 0);

	/* Bad lengths are refused before any copy. */
	scalio_seg_build_init(&b, segbuf, SEG_CAP);
	EXPECT_EQ(scalio_seg_build_add(&b, key, 0, val, 1), -EINVAL);
	EXPECT_EQ(scalio_seg_build_add(&b, key32, 33, val, 1), -EINVAL);
	EXPECT_EQ(scalio_seg_build_add(&b, key, 1, val4096,
				      SCALIO_VALUE_MAX + 1), -EINVAL);
	EXPECT_EQ(b.nr, 0);
	EXPECT_EQ(b.len, 32);
	/* The capacity is clamped to the largest segment a seg word names. */
	scalio_seg_build_init(&b, segbuf, ~0U);
	EXPECT_EQ(b.cap, SCALIO_SEG_MAX_BYTES);
}

/* Flip every bit of the used bytes; truncate at every length. */
TEST(seg_corruption_sweep)
{
	u32 len = 4178, i, bit, undetected = 0, badtrunc = 0;
	int ret;

	build_sample(_metadata, segbuf, SEG_CAP, 12, 34);
	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(workbuf, segbuf, 8192);
			workbuf[i] ^= 1 << bit;
			ret = scalio_seg_check(workbuf, 8192, 12, 34);
			if (ret != -EBADMSG && ret != -ESTALE)
				undetected++;
		}
	}
	EXPECT_EQ(undetected, 0);
	/* Bytes past len (padding) are not part of the segment. */
	memcpy(workbuf, segbuf, 8192);
	workbuf[5000] ^= 0xff;
	EXPECT_EQ(scalio_seg_check(workbuf, 8192, 12, 34), 0);

	for (i = 0; i < len; i++) {
		/* A heap copy of exactly i bytes so ASan sees any overread. */
		u8 *t = malloc(i ? i : 1);

		memcpy(t, segbuf, i);
		if (scalio_seg_check(t, i, 12, 34) != -EBADMSG)
			badtrunc++;
		free(t);
	}
	EXPECT_EQ(badtrunc, 0);
}

/* Rewrite the crc after a corruption, to reach the structural checks. */
static void reseal(u8 *buf)
{
	struct scalio_seg_hdr *sh = (void *)buf;
	u32 len = le32_to_cpu(sh->len);

	sh->crc = cpu_to_le32(scalio_crc(buf, len,
					 offsetof(struct scalio_seg_hdr, crc)));
}

static int crafted(struct __test_metadata *_metadata,
		   void (*edit)(u8 *buf), bool seal)
{
	struct scalio_rec rec;
	u32 pos = 0;
	int ret, n = 0;

	build_sample(_metadata, segbuf, SEG_CAP, 1, 2);
	edit(segbuf);
	if (seal)
		reseal(segbuf);
	ret = scalio_seg_check(segbuf, 8192, 1, 2);
	/* find and next must not crash on unchecked input either. */
	scalio_seg_find(segbuf, key32, 32, &rec);
	while (scalio_seg_next(segbuf, &pos, &rec) == 1 && n++ < 100)
		;
	return ret;
}

static void e_nr_plus(u8 *b) { ((struct scalio_seg_hdr *)b)->nr_records = cpu_to_le32(4); }
static void e_nr_minus(u8 *b) { ((struct scalio_seg_hdr *)b)->nr_records = cpu_to_le32(2); }
static void e_nr_huge(u8 *b) { ((struct scalio_seg_hdr *)b)->nr_records = cpu_to_le32(~0U); }
static void e_klen0(u8 *b) { b[32] = 0; }
static void e_klen33(u8 *b) { b[46] = 33; }
static void e_flags(u8 *b) { b[33] = 1; }
static void e_vlen_big(u8 *b) { b[48] = 0x01; }	/* 0x1000 -> 4097 */
static void e_vlen_shift(u8 *b) { b[34] = 2; }	/* record 1 eats record 2 */
static void e_len_short(u8 *b) { ((struct scalio_seg_hdr *)b)->len = cpu_to_le32(4177); }
static void e_len_long(u8 *b) { ((struct scalio_seg_hdr *)b)->len = cpu_to_le32(4179); }
static void e_len_tiny(u8 *b) { ((struct scalio_seg_hdr *)b)->len = cpu_to_le32(31); }
static void e_len_buf(u8 *b) { ((struct scalio_seg_hdr *)b)->len = cpu_to_le32(8193); }
static void e_len_max(u8 *b) { ((struct scalio_seg_hdr *)b)->len = cpu_to_le32(~0U); }
static void e_val_bytes(u8 *b) { ((struct scalio_seg_hdr *)b)->val_bytes = cpu_to_le32(1); }
static void e_magic(u8 *b) { b[0] ^= 1; }
static void e_block(u8 *b) { ((struct scalio_seg_hdr *)b)->bucket = cpu_to_le32(2); }

TEST(seg_crafted)
{
	EXPECT_EQ(crafted(_metadata, e_nr_plus, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_nr_minus, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_nr_huge, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_klen0, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_klen33, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_flags, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_vlen_big, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_vlen_shift, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_len_short, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_len_long, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_len_tiny, false), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_len_buf, false), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_len_max, false), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_val_bytes, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_magic, true), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_block, false), -EBADMSG);
	EXPECT_EQ(crafted(_metadata, e_block, true), -ESTALE);
}

/* Random garbage, and random edits of a valid segment, under ASan. */
TEST(seg_random)
{
	u64 x = 0x9e3779b97f4a7c15ULL;
	struct scalio_rec rec;
	u32 i, j, pos, len, ok = 0;
	int ret;

	for (i = 0; i < 20000; i++) {
		build_sample(_metadata, segbuf, SEG_CAP, 3, 4);
		for (j = 0; j < 1 + i % 5; j++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			segbuf[(x >> 8) % 4300] = (u8)x;
		}
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		len = (i & 1) ? 8192 : (u32)(x % 8193);
		ret = scalio_seg_check(segbuf, len, 3, 4);
		EXPECT_TRUE(ret == 0 || ret == -EBADMSG || ret == -ESTALE);
		if (ret)
			continue;
		ok++;
		pos = 0;
		while (scalio_seg_next(segbuf, &pos, &rec) == 1)
			EXPECT_TRUE(rec.key + rec.klen + rec.vlen <= segbuf + len);
	}
	/* Edits in the padding or rewriting a byte to itself keep it valid. */
	EXPECT_TRUE(ok > 0);
}

/* A 2-block checkpoint of SSD 1 of 2 (sb_make's geometry, 2048 blocks). */
static u8 ckbuf[9 * SCALIO_UNIT_SIZE];

/* A seg word for a segment starting at the first sector of unit @u. */
#define SEGU(ssd, u, len, gen) scalio_seg_make(ssd, (u64)(u) * 8, len, gen)

static struct scalio_ckpt_hdr *ckpt_make(struct scalio_sb *sb)
{
	struct scalio_ckpt_hdr *h = (void *)ckbuf;
	struct scalio_ckpt_entry *e = (void *)(h + 1);

	sb_make(sb);
	memset(ckbuf, 0, sizeof(ckbuf));
	h->magic = cpu_to_le64(SCALIO_CKPT_MAGIC);
	h->seq = cpu_to_le64(3);
	h->log_head = cpu_to_le64(20);
	h->log_tail = cpu_to_le64(100);
	h->next_batch = cpu_to_le64(1000);
	h->head_seq = cpu_to_le64(990);
	h->nr_entries = cpu_to_le32(2048);
	e[0].seg = cpu_to_le64(SEGU(1, 30, 2, 995));
	e[0].gen = cpu_to_le64(995);
	e[5].gen = cpu_to_le64(12);
	return h;
}

static void ckpt_seal(struct scalio_ckpt_hdr *h)
{
	h->crc = cpu_to_le32(scalio_crc(h, scalio_ckpt_bytes(2048),
					offsetof(struct scalio_ckpt_hdr, crc)));
}

#define CK_BAD(stmt, err) do {						\
	struct scalio_sb _sb;						\
	struct scalio_ckpt_hdr *h = ckpt_make(&_sb);			\
	struct scalio_ckpt_entry *e = (void *)(h + 1);			\
	(void)e;							\
	stmt;								\
	ckpt_seal(h);							\
	EXPECT_EQ(scalio_ckpt_check(h, &_sb, 2048), err);		\
} while (0)

TEST(ckpt_checks)
{
	struct scalio_sb sb;
	struct scalio_ckpt_hdr *h = ckpt_make(&sb);

	EXPECT_EQ(scalio_owned_buckets(4096, 2, 1), 2048);
	EXPECT_EQ(scalio_owned_buckets(4, 3, 2), 1);
	EXPECT_EQ(scalio_owned_buckets(1, 2, 1), 0);
	EXPECT_EQ(scalio_ckpt_units(2048), 9);
	ckpt_seal(h);
	EXPECT_EQ(scalio_ckpt_check(h, &sb, 2048), 0);
	EXPECT_EQ(scalio_ckpt_check(h, &sb, 2047), -EBADMSG);
	ckbuf[5000] ^= 1;
	EXPECT_EQ(scalio_ckpt_check(h, &sb, 2048), -EBADMSG);
	CK_BAD(h->magic = 0, -ENODATA);
	CK_BAD(h->seq = 0, -ERANGE);
	CK_BAD(h->log_head = cpu_to_le64(19), -ERANGE);
	CK_BAD(h->log_tail = cpu_to_le64(1 << 20), -ERANGE);
	CK_BAD(h->head_seq = 0, -ERANGE);
	CK_BAD(h->head_seq = cpu_to_le64(1001), -ERANGE);
	CK_BAD(h->next_batch = cpu_to_le64(1ULL << 40), -ERANGE);
	CK_BAD(h->reserved = 1, -ERANGE);
	CK_BAD(e[0].gen = cpu_to_le64(996), -ERANGE);
	CK_BAD(e[1].gen = cpu_to_le64(1000), -ERANGE);
	CK_BAD(e[0].seg = cpu_to_le64(SEGU(0, 30, 2, 995)), -ERANGE);
	CK_BAD(e[0].seg = cpu_to_le64(SEGU(1, 19, 2, 995)), -ERANGE);
	CK_BAD(e[0].seg = cpu_to_le64(SEGU(1, (1 << 20) - 1, 2,
						       995)), -ERANGE);
	CK_BAD(e[0].seg = cpu_to_le64(SEGU(1, 30, 0, 995)), -ERANGE);
	CK_BAD(e[2].seg = 0, 0);
	/* A segment must lie in a batch still in use: head..tail, head_seq.. */
	CK_BAD(e[0].seg = cpu_to_le64(SEGU(1, 98, 2, 995)), 0);
	CK_BAD(e[0].seg = cpu_to_le64(SEGU(1, 99, 2, 995)), -ERANGE);
	CK_BAD(e[0].seg = cpu_to_le64(SEGU(1, 100, 2, 995)), -ERANGE);
	CK_BAD(e[0].seg = cpu_to_le64(SEGU(1, 500, 2, 995)), -ERANGE);
	CK_BAD(e[0].seg = cpu_to_le64(SEGU(1, 20, 2, 995)), 0);
	CK_BAD({ e[0].seg = cpu_to_le64(SEGU(1, 30, 2, 989));
		 e[0].gen = cpu_to_le64(989); }, -ERANGE);
	CK_BAD({ e[0].seg = cpu_to_le64(SEGU(1, 30, 2, 990));
		 e[0].gen = cpu_to_le64(990); }, 0);
	/* Segments start on any sector; the units they span count. */
	CK_BAD(e[0].seg = cpu_to_le64(scalio_seg_make(1, 98 * 8 + 7, 2, 995)),
	       0);
	CK_BAD(e[0].seg = cpu_to_le64(scalio_seg_make(1, 98 * 8 + 7, 3, 995)),
	       -ERANGE);
	CK_BAD(e[0].seg = cpu_to_le64(scalio_seg_make(1, 20 * 8 - 1, 2, 995)),
	       -ERANGE);
	/* Wrapped: in use from head to the log's end, and from its start. */
	CK_BAD(h->log_head = cpu_to_le64(900), 0);
	CK_BAD({ h->log_head = cpu_to_le64(900);
		 e[0].seg = cpu_to_le64(SEGU(1, 500, 2, 995)); },
	       -ERANGE);
	CK_BAD({ h->log_head = cpu_to_le64(900);
		 e[0].seg = cpu_to_le64(SEGU(1, 950, 2, 995)); }, 0);
	CK_BAD({ h->log_head = cpu_to_le64(900);
		 e[0].seg = cpu_to_le64(SEGU(1, 899, 2, 995)); },
	       -ERANGE);
	/* head == tail: a full log is all in use, an empty one none of it. */
	CK_BAD(h->log_head = cpu_to_le64(100), 0);
	CK_BAD({ h->log_head = cpu_to_le64(100);
		 e[0].seg = cpu_to_le64(SEGU(1, 500, 2, 995)); }, 0);
	CK_BAD({ h->log_head = cpu_to_le64(100);
		 h->head_seq = cpu_to_le64(1000); }, -ERANGE);
	CK_BAD({ h->log_head = cpu_to_le64(100);
		 h->head_seq = cpu_to_le64(1000); e[0].seg = 0; }, 0);
}

/*
 * A batch of two segments (blocks 1 and 3 of SSD 1) at unit 40, packed:
 * header sector 0, block 1's 138 bytes in sector 1, block 3's 4134 bytes
 * in sectors 2..10, zeroes to the end of unit 1.
 */
static u8 bbuf[8 * SCALIO_UNIT_SIZE];

static u32 batch_make(u64 seq)
{
	struct scalio_batch_hdr *bh = (void *)bbuf;
	struct scalio_seg_builder b;
	u32 off = 1;

	memset(bbuf, 0, sizeof(bbuf));
	scalio_seg_build_init(&b, bbuf + SCALIO_SECTOR_SIZE,
			      4 * SCALIO_UNIT_SIZE);
	scalio_seg_build_add(&b, (const u8 *)"k1", 2, val4096, 100);
	off += scalio_seg_build_finish(&b, 1, seq);
	scalio_seg_build_init(&b, bbuf + off * SCALIO_SECTOR_SIZE,
			      4 * SCALIO_UNIT_SIZE);
	scalio_seg_build_add(&b, (const u8 *)"k3", 2, val4096, 4096);
	off += scalio_seg_build_finish(&b, 3, seq);
	bh->magic = cpu_to_le64(SCALIO_BATCH_MAGIC);
	bh->seq = cpu_to_le64(seq);
	bh->nr_units = cpu_to_le32(DIV_ROUND_UP(off, 8));
	bh->nr_segs = cpu_to_le32(2);
	scalio_batch_hdr_seal(bh);
	return DIV_ROUND_UP(off, 8);
}

/*
 * A batch with two value extents (for "k1" and "k3", 300 and 2000 bytes)
 * in its first sectors, then the segments of buckets 1 and 3 whose
 * records point to them.  Return: units.
 */
static u32 batch_make_vals(u64 seq, u32 *vsec)
{
	struct scalio_batch_hdr *bh = (void *)bbuf;
	struct scalio_seg_builder b;
	struct scalio_vref v1, v3;
	u32 voff = SCALIO_SECTOR_SIZE, off;

	memset(bbuf, 0, sizeof(bbuf));
	voff += scalio_val_build(bbuf + voff, (const u8 *)"k1", 2, val4096,
				 300, seq, 40 * 4096 + voff, &v1);
	voff += scalio_val_build(bbuf + voff, (const u8 *)"k3", 2, val4096,
				 2000, seq, 40 * 4096 + voff, &v3);
	off = DIV_ROUND_UP(voff, SCALIO_SECTOR_SIZE);
	*vsec = off - 1;
	scalio_seg_build_init(&b, bbuf + off * SCALIO_SECTOR_SIZE,
			      4 * SCALIO_UNIT_SIZE);
	scalio_seg_build_add_vref(&b, (const u8 *)"k1", 2, &v1);
	off += scalio_seg_build_finish(&b, 1, seq);
	scalio_seg_build_init(&b, bbuf + off * SCALIO_SECTOR_SIZE,
			      4 * SCALIO_UNIT_SIZE);
	scalio_seg_build_add_vref(&b, (const u8 *)"k3", 2, &v3);
	scalio_seg_build_add(&b, (const u8 *)"k5", 2, val4096, 10);
	off += scalio_seg_build_finish(&b, 3, seq);
	bh->magic = cpu_to_le64(SCALIO_BATCH_MAGIC);
	bh->seq = cpu_to_le64(seq);
	bh->nr_units = cpu_to_le32(DIV_ROUND_UP(off, 8));
	bh->nr_segs = cpu_to_le32(2);
	bh->nr_vals = cpu_to_le32(2);
	bh->val_sectors = cpu_to_le32(*vsec);
	scalio_batch_hdr_seal(bh);
	return DIV_ROUND_UP(off, 8);
}

TEST(batch_vals)
{
	struct scalio_batch_hdr *bh = (void *)bbuf;
	const struct scalio_val_hdr *vh;
	const struct scalio_seg_hdr *sh;
	struct scalio_batch_iter it;
	struct scalio_rec rec;
	struct scalio_vref v;
	struct scalio_sb sb;
	u32 n, vsec, need = 0, off, sector, sectors, k = 0;

	sb_make(&sb);
	n = batch_make_vals(90, &vsec);
	EXPECT_EQ(vsec, 5);	/* 512 + 328 + 2032 bytes: sectors 1..5 */
	EXPECT_EQ(n, 1);
	EXPECT_EQ(scalio_batch_check(bbuf, n, 90, &sb, 40, &need), 1);
	scalio_batch_iter_init(&it, bbuf);
	while (scalio_batch_next_val(&it, &vh, &off)) {
		EXPECT_EQ(off, k ? 512 + 328 : 512);
		EXPECT_EQ(le32_to_cpu(vh->len), k ? 2000 : 300);
		k++;
	}
	EXPECT_EQ(k, 2);
	/* The segments start after the extents' sectors. */
	EXPECT_EQ(scalio_batch_next_seg(&it, &sh, &sector, &sectors), 1);
	EXPECT_EQ(sector, 6);
	EXPECT_EQ(scalio_seg_find(sh, (const u8 *)"k1", 2, &rec), 0);
	ASSERT_TRUE(scalio_rec_vref(&rec, &v));
	EXPECT_EQ(v.pos, 40 * 4096 + 512);
	EXPECT_EQ(scalio_val_check(bbuf + v.pos - 40 * 4096,
				   sizeof(bbuf) - (v.pos - 40 * 4096),
				   (const u8 *)"k1", 2, &v, NULL), 0);
	EXPECT_EQ(scalio_batch_next_seg(&it, &sh, &sector, &sectors), 1);
	EXPECT_EQ(scalio_batch_next_seg(&it, &sh, &sector, &sectors), 0);

	/* A torn extent fails the whole batch, segments intact or not. */
	bbuf[512 + 328 + 1500] ^= 0x10;
	EXPECT_EQ(scalio_batch_check(bbuf, n, 90, &sb, 40, &need), -EUCLEAN);
	/* An extent of another batch (generation) fails it too. */
	batch_make_vals(91, &vsec);
	EXPECT_EQ(scalio_batch_check(bbuf, n, 91, &sb, 40, &need), 1);
	bh->seq = cpu_to_le64(92);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_check(bbuf, n, 92, &sb, 40, &need), -EUCLEAN);
	/* Bytes after the last extent in its area must be zero. */
	batch_make_vals(90, &vsec);
	bbuf[6 * 512 - 1] = 1;
	EXPECT_EQ(scalio_batch_check(bbuf, n, 90, &sb, 40, &need), -EUCLEAN);
	/* The area must end where the extents end: a sector more or less. */
	batch_make_vals(90, &vsec);
	bh->val_sectors = cpu_to_le32(vsec + 1);
	scalio_batch_hdr_seal(bh);
	/* (here the header itself has no sector left for the 2 segments) */
	EXPECT_EQ(scalio_batch_check(bbuf, n, 90, &sb, 40, &need), -EBADMSG);
	bh->nr_units = cpu_to_le32(2);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 90, &sb, 40, &need), -EUCLEAN);
	bh->nr_units = cpu_to_le32(1);
	bh->val_sectors = cpu_to_le32(vsec - 1);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_check(bbuf, n, 90, &sb, 40, &need), -EUCLEAN);
	/* One extent fewer than written leaves non-zero bytes behind. */
	bh->val_sectors = cpu_to_le32(vsec);
	bh->nr_vals = cpu_to_le32(1);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_check(bbuf, n, 90, &sb, 40, &need), -EUCLEAN);
	/* One more than written runs into zeroes: no extent there. */
	bh->nr_vals = cpu_to_le32(3);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_check(bbuf, n, 90, &sb, 40, &need), -EUCLEAN);
}

TEST(batch_checks)
{
	const struct scalio_seg_hdr *sh;
	struct scalio_batch_hdr *bh = (void *)bbuf;
	struct scalio_batch_iter it;
	struct scalio_sb sb;
	u32 n, need = 0, sector, sectors, segs = 0;

	sb_make(&sb);
	n = batch_make(777);
	EXPECT_EQ(n, 2);
	EXPECT_EQ(scalio_batch_check(bbuf, 1, 777, &sb, 40, &need), -EAGAIN);
	EXPECT_EQ(need, 2);
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, 40, &need), 2);
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 778, &sb, 40, &need), -ESTALE);
	scalio_batch_iter_init(&it, bbuf);
	while (scalio_batch_next_seg(&it, &sh, &sector, &sectors)) {
		segs++;
		EXPECT_EQ(sector, segs == 1 ? 1 : 2);
		EXPECT_EQ(sectors, segs == 1 ? 1 : 9);
		EXPECT_EQ(le32_to_cpu(sh->bucket), segs == 1 ? 1 : 3);
	}
	EXPECT_EQ(segs, 2);
	/* The walk stops at nr_segs, not at the zeroes after them. */
	EXPECT_EQ(scalio_batch_next_seg(&it, &sh, &sector, &sectors), 0);
	/* Outside the log, or running past its end. */
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, 19, &need), -EUCLEAN);
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, (1 << 20) - 1, &need),
		 -EUCLEAN);
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, (1 << 20) - 2, &need),
		 2);
	/* Segment damage: record length, crc, generation, foreign block. */
	bbuf[SCALIO_SECTOR_SIZE + 34] ^= 1;
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, 40, &need), -EUCLEAN);
	batch_make(777);
	bbuf[2 * SCALIO_SECTOR_SIZE + 100] ^= 1;
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, 40, &need), -EUCLEAN);
	/* A unit more than the segments need, or one less. */
	batch_make(777);
	bh->nr_units = cpu_to_le32(3);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_check(bbuf, 3, 777, &sb, 40, &need), -EUCLEAN);
	bh->nr_units = cpu_to_le32(1);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, 40, &need), -EUCLEAN);
	bh->nr_units = cpu_to_le32(SCALIO_BATCH_MAX_UNITS + 1);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, 40, &need), -EUCLEAN);
	/* One segment fewer than written: the batch must end in its unit. */
	bh->nr_units = cpu_to_le32(2);
	bh->nr_segs = cpu_to_le32(1);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, 40, &need), -EUCLEAN);
	/* More segments than sectors is refused from the header alone. */
	bh->nr_units = cpu_to_le32(1);
	bh->nr_segs = cpu_to_le32(8);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_hdr_check(bh, 777), -EBADMSG);
	bh->nr_segs = cpu_to_le32(7);
	scalio_batch_hdr_seal(bh);
	EXPECT_EQ(scalio_batch_hdr_check(bh, 777), 0);
	sb.ssd_index = 0;
	scalio_sb_seal(&sb);
	batch_make(777);
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, 40, &need), -EUCLEAN);
	bh->magic = 0;
	EXPECT_EQ(scalio_batch_check(bbuf, 2, 777, &sb, 40, &need), -EBADMSG);
}

TEST_HARNESS_MAIN
