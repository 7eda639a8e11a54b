// SPDX-License-Identifier: GPL-2.0
/*
 * Index words and the slot protocol's pure functions: ctl and seg word
 * encoding, lease expiry across the 16-bit wrap, hash placement, the slot
 * checksum, and lookup / victim / collision / invalidation scenarios on
 * hand-built blocks.
 */
#include "kselftest_harness.h"
#include "common/scalio_slot.h"
#include "common/scalio_format.h"

#define SLOTS	8
#define NOW	1000		/* target clock in the scenarios */
#define LIVE	(NOW + 500)	/* a lease deadline in the future */
#define EXPIRED	(NOW - 1)	/* one that has passed */

static u64 blk_words[SCALIO_BLOCK_SIZE(SCALIO_SLOTS_MAX) / 8];
static struct scalio_block_view view = { blk_words, SLOTS };

static const u8 K[] = "user:1234";
#define KLEN	9
#define FP	0xbeef
#define FP2	0x1234

static struct scalio_slot *slot(u32 i)
{
	return (struct scalio_slot *)((u8 *)blk_words + scalio_slot_offset(i));
}

static void blk_clear(void)
{
	memset(blk_words, 0, sizeof(blk_words));
}

/* A consistent C slot of @key with @value, published at @ver. */
static void set_c(u32 i, u32 ver, const void *key, u32 klen, u16 fp,
		  const char *value, u64 last_ts)
{
	struct scalio_slot *s = slot(i);
	u32 vlen = strlen(value);

	s->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_C, ver, 0, 0, fp));
	s->last_ts = cpu_to_le64(last_ts);
	s->klen = klen;
	s->vlen = vlen;
	memset(s->key, 0, sizeof(s->key));
	memcpy(s->key, key, klen);
	memcpy(s->value, value, vlen);
	s->csum = cpu_to_le32(scalio_slot_csum(ver, key, klen,
					       (const u8 *)value, vlen));
}

static void set_ctl(u32 i, enum scalio_slot_state st, u32 ver, u32 owner,
		    u16 lease, u16 fp)
{
	slot(i)->ctl = cpu_to_le64(scalio_ctl_make(st, ver, owner, lease, fp));
}

static u64 ctl_of(u32 i)
{
	return le64_to_cpu(slot(i)->ctl);
}

TEST(ctl_encoding)
{
	static const enum scalio_slot_state st[] = {
		SCALIO_SLOT_A, SCALIO_SLOT_B, SCALIO_SLOT_C, SCALIO_SLOT_D };
	u64 c;
	int i;

	EXPECT_EQ(scalio_ctl_make(SCALIO_SLOT_B, 5, 3, 0x1234, 0xabcd),
		 0xC00014031234ABCDULL);
	EXPECT_EQ(scalio_ctl_make(SCALIO_SLOT_C, 0, 0, 0, 1),
		 0x8000000000000001ULL);
	EXPECT_EQ(scalio_ctl_make(SCALIO_SLOT_D, 0xfffff, 0x3ff, 0xffff, 0xffff),
		 0x7fffffffffffffffULL);
	EXPECT_EQ(scalio_ctl_make(SCALIO_SLOT_A, 0, 0, 0, 0), 0);
	/* The all-zero word is state A, version 0. */
	EXPECT_EQ(scalio_ctl_state(0), SCALIO_SLOT_A);
	/* State table: occupied, filling. */
	EXPECT_EQ(scalio_ctl_state(SCALIO_CTL_OCCUPIED | SCALIO_CTL_FILLING),
		 SCALIO_SLOT_B);
	EXPECT_EQ(scalio_ctl_state(SCALIO_CTL_OCCUPIED), SCALIO_SLOT_C);
	EXPECT_EQ(scalio_ctl_state(SCALIO_CTL_FILLING), SCALIO_SLOT_D);
	for (i = 0; i < 4; i++) {
		c = scalio_ctl_make(st[i], 0x12345, 0x2aa, 0xfedc, 0x9876);
		EXPECT_EQ(scalio_ctl_state(c), st[i]);
		EXPECT_EQ(scalio_ctl_version(c), 0x12345);
		EXPECT_EQ(scalio_ctl_owner(c), 0x2aa);
		EXPECT_EQ(scalio_ctl_lease(c), 0xfedc);
		EXPECT_EQ(scalio_ctl_fp(c), 0x9876);
	}
	/* Version and owner are taken modulo their widths. */
	c = scalio_ctl_make(SCALIO_SLOT_B, 0x100003, 0x401, 0, 0);
	EXPECT_EQ(scalio_ctl_version(c), 3);
	EXPECT_EQ(scalio_ctl_owner(c), 1);
	EXPECT_EQ(scalio_ctl_state(c), SCALIO_SLOT_B);
	EXPECT_EQ(SCALIO_MAX_CLIENTS, 1023);
}

TEST(ctl_transitions)
{
	u64 c = scalio_ctl_make(SCALIO_SLOT_C, 7, 0, 0, 0x5555);
	u64 b, p, d;

	b = scalio_ctl_lock(c, 12, 0x0102, FP);
	EXPECT_EQ(b, scalio_ctl_make(SCALIO_SLOT_B, 8, 12, 0x0102, FP));
	/* Lock keeps nothing but the version, whatever the old state. */
	EXPECT_EQ(scalio_ctl_lock(scalio_ctl_make(SCALIO_SLOT_D, 9, 3, 4, 5),
				 1, 2, 3),
		 scalio_ctl_make(SCALIO_SLOT_B, 10, 1, 2, 3));
	EXPECT_EQ(scalio_ctl_lock(scalio_ctl_make(SCALIO_SLOT_A, 0xfffff, 0, 0,
						 0), 1, 2, 3),
		 scalio_ctl_make(SCALIO_SLOT_B, 0, 1, 2, 3));
	p = scalio_ctl_publish(b);
	EXPECT_EQ(p, scalio_ctl_make(SCALIO_SLOT_C, 9, 0, 0, FP));
	EXPECT_EQ(scalio_ctl_release(b), scalio_ctl_make(SCALIO_SLOT_A, 9, 0, 0, 0));
	EXPECT_EQ(scalio_ctl_release(p), scalio_ctl_make(SCALIO_SLOT_A, 10, 0, 0, 0));
	d = scalio_ctl_invalidate(b);
	EXPECT_EQ(d, scalio_ctl_make(SCALIO_SLOT_D, 9, 12, 0x0102, FP));
	EXPECT_EQ(scalio_ctl_release(d), scalio_ctl_make(SCALIO_SLOT_A, 10, 0, 0, 0));
	EXPECT_EQ(scalio_ctl_invalidate(p),
		 scalio_ctl_make(SCALIO_SLOT_A, 10, 0, 0, 0));
	/* Nothing to do for A and D. */
	EXPECT_EQ(scalio_ctl_invalidate(d), d);
	EXPECT_EQ(scalio_ctl_invalidate(0), 0);
	/* Renewal: B -> B, new deadline, owner and fp kept, version + 1. */
	EXPECT_EQ(scalio_ctl_renew(b, 0x0200),
		 scalio_ctl_make(SCALIO_SLOT_B, 9, 12, 0x0200, FP));
	EXPECT_TRUE(scalio_ctl_renew(b, 0x0102) != b);
	/* A renewed lock publishes and invalidates like any lock. */
	EXPECT_EQ(scalio_ctl_publish(scalio_ctl_renew(b, 0x0200)),
		 scalio_ctl_make(SCALIO_SLOT_C, 10, 0, 0, FP));
	/* Publish wraps the version too. */
	EXPECT_EQ(scalio_ctl_version(scalio_ctl_publish(
		scalio_ctl_make(SCALIO_SLOT_B, 0xfffff, 1, 1, 1))), 0);
}

TEST(seg_word)
{
	u64 s = scalio_seg_make(3, 0x123456789ULL, 17, 0x123456789ULL);

	EXPECT_EQ(s, 0x32468acf12236789ULL);
	EXPECT_EQ(scalio_seg_ssd(s), 3);
	EXPECT_EQ(scalio_seg_sector(s), 0x123456789ULL);
	EXPECT_EQ(scalio_seg_unit(s), 0x2468acf1);
	EXPECT_EQ(scalio_seg_offset(s), 512);
	EXPECT_EQ(scalio_seg_len(s), 17);
	EXPECT_EQ(scalio_seg_gen(s), 0x16789);
	s = scalio_seg_make(15, (1ULL << 35) - 1, 255, 0x1ffff);
	EXPECT_EQ(s, ~0ULL);
	EXPECT_EQ(scalio_seg_ssd(s), 15);
	EXPECT_EQ(scalio_seg_unit(s), 0xffffffff);
	EXPECT_EQ(scalio_seg_offset(s), 3584);
	EXPECT_EQ(scalio_seg_len(s), 255);
	EXPECT_EQ(scalio_seg_gen(s), 0x1ffff);
	/* Out-of-range fields do not spill into their neighbours. */
	s = scalio_seg_make(0x11, 1ULL << 35, 0x101, 0x20000);
	EXPECT_EQ(s, scalio_seg_make(1, 0, 1, 0));
	/* The units a segment spans depend on where in its unit it starts. */
	EXPECT_EQ(scalio_seg_span(8, 32), 1);
	EXPECT_EQ(scalio_seg_span(8, 4096), 1);
	EXPECT_EQ(scalio_seg_span(9, 4096), 2);
	EXPECT_EQ(scalio_seg_span(15, 512), 1);
	EXPECT_EQ(scalio_seg_span(15, 513), 2);
	/* The largest segment spans 255 units from any sector. */
	EXPECT_EQ(scalio_seg_span(15, SCALIO_SEG_MAX_BYTES), 255);
	EXPECT_EQ(scalio_seg_span(8, SCALIO_SEG_MAX_BYTES), 255);
	EXPECT_EQ(scalio_seg_span(15, SCALIO_SEG_MAX_BYTES + 1), 256);
}

TEST(lease_wrap)
{
	EXPECT_TRUE(!scalio_lease_expired(0xffef, 0xfff0));
	EXPECT_TRUE(!scalio_lease_expired(0xfff0, 0xfff0));	/* not yet */
	EXPECT_TRUE(scalio_lease_expired(0xfff1, 0xfff0));
	EXPECT_TRUE(scalio_lease_expired(0x10005, 0xfff0));	/* clock wrapped */
	EXPECT_TRUE(!scalio_lease_expired(0xfffa, 0x0005));	/* deadline wrapped */
	EXPECT_TRUE(!scalio_lease_expired(0x10005, 0x0005));
	EXPECT_TRUE(scalio_lease_expired(0x10006, 0x0005));
	/* Only the low 16 bits of the clock matter. */
	EXPECT_TRUE(scalio_lease_expired(0x123450006ULL, 0x0005));
	EXPECT_TRUE(!scalio_lease_expired(0x123450004ULL, 0x0005));
	/*
	 * A live deadline is at most the lease cap plus the clock estimate's
	 * error ahead; further ahead it can only be a past deadline seen
	 * across the wrap, so it is expired.
	 */
	EXPECT_TRUE(!scalio_lease_expired(0, SCALIO_LEASE_AHEAD_MAX));
	EXPECT_TRUE(scalio_lease_expired(0, SCALIO_LEASE_AHEAD_MAX + 1));
	EXPECT_TRUE(scalio_lease_expired(0, 0x7fff));
	EXPECT_TRUE(scalio_lease_expired(0x7fff, 0));
	EXPECT_TRUE(!scalio_lease_expired(0xfff0, (u16)(0xfff0 +
						   SCALIO_LEASE_AHEAD_MAX)));
	EXPECT_TRUE(scalio_lease_expired(0xfff0, (u16)(0xfff0 +
						  SCALIO_LEASE_AHEAD_MAX + 1)));
	/* A deadline 40 s in the past (not 65.5 s) is not "live" again. */
	EXPECT_TRUE(scalio_lease_expired(1000 + 40000, 1000));
	/* The cap leaves room: the two cases never overlap. */
	EXPECT_TRUE(SCALIO_LEASE_AHEAD_MAX < (1 << 15));
	EXPECT_TRUE(SCALIO_LEASE_MAX_TICKS + SCALIO_CLOCK_ERR_TICKS ==
	      SCALIO_LEASE_AHEAD_MAX);
}

/*
 * Buckets and blocks: a key's bucket lies in the key's block, and the
 * published positions are a bijection that keeps each block's buckets
 * together (what lets a chunk of blocks carry its buckets' seg words).
 */
TEST(bucket_placement)
{
	static const u32 geo[][2] = {	/* nr_blocks, buckets per block */
		{ 1, 1 }, { 1, 8 }, { 4, 1 }, { 4, 4 }, { 64, 16 }, { 8, 256 },
	};
	static u8 seen[8 * 256];
	u32 g, b, n, bpb, nb, pos;
	char key[16];
	u64 h;

	for (g = 0; g < ARRAY_SIZE(geo); g++) {
		nb = geo[g][0];
		bpb = geo[g][1];
		n = nb * bpb;
		memset(seen, 0, sizeof(seen));
		for (b = 0; b < n; b++) {
			pos = scalio_bucket_pos(b, nb, bpb);
			ASSERT_TRUE(pos < n);
			EXPECT_EQ(seen[pos], 0);
			seen[pos] = 1;
			EXPECT_EQ(scalio_pos_bucket(pos, nb, bpb), b);
			/* Position pos belongs to block pos / bpb. */
			EXPECT_EQ(pos / bpb, scalio_bucket_block(b, nb));
		}
		for (b = 0; b < 1000; b++) {
			int kl = snprintf(key, sizeof(key), "k%u", b);

			h = scalio_key_hash(SCALIO_HASH_SEED, key, kl);
			EXPECT_EQ(scalio_bucket_block(scalio_hash_bucket(h, n),
						      nb),
				  scalio_hash_block(h, nb));
		}
	}
	EXPECT_TRUE(scalio_buckets_valid(4096, 4096));
	EXPECT_TRUE(scalio_buckets_valid(1U << 28, 1U << 12));
	EXPECT_FALSE(scalio_buckets_valid(1U << 29, 1U << 13));
	EXPECT_FALSE(scalio_buckets_valid(1U << 17, 1));	/* bpb > max */
	EXPECT_FALSE(scalio_buckets_valid(2048, 4096));
	EXPECT_FALSE(scalio_buckets_valid(0, 1));
	EXPECT_FALSE(scalio_buckets_valid(4096, 0));
	EXPECT_FALSE(scalio_buckets_valid(6144, 1024));
}

TEST(hash_placement)
{
	static const u32 nblocks[] = { 1, 2, 64, 4096, 1U << 20 };
	u32 counts[64] = { 0 }, i, j, lo = ~0U, hi = 0;
	char key[16];
	u64 h;

	h = scalio_key_hash(SCALIO_HASH_SEED, "key", 3);
	EXPECT_EQ(h, xxh64("key", 3, SCALIO_HASH_SEED));
	EXPECT_TRUE(h != xxh64("key", 3, 0));
	for (i = 0; i < ARRAY_SIZE(nblocks); i++)
		EXPECT_EQ(scalio_hash_block(h, nblocks[i]),
			 (u32)(h % nblocks[i]));
	EXPECT_EQ(scalio_hash_fp(0x1234000000000000ULL), 0x1234);
	EXPECT_EQ(scalio_hash_fp(0x0000ffffffffffffULL), 1);
	EXPECT_EQ(scalio_hash_fp(0xffff000000000000ULL), 0xffff);
	EXPECT_EQ(scalio_bucket_ssd(13, 4), 1);
	EXPECT_EQ(scalio_bucket_ssd(13, 1), 0);
	/* 64000 keys over 64 blocks: every block within 20% of 1000. */
	for (i = 0; i < 64000; i++) {
		int n = snprintf(key, sizeof(key), "k%u", i);

		h = scalio_key_hash(SCALIO_HASH_SEED, key, n);
		counts[scalio_hash_block(h, 64)]++;
		EXPECT_TRUE(scalio_hash_fp(h) != 0);
	}
	for (j = 0; j < 64; j++) {
		lo = counts[j] < lo ? counts[j] : lo;
		hi = counts[j] > hi ? counts[j] : hi;
	}
	EXPECT_TRUE(lo > 800 && hi < 1200);
}

TEST(slot_csum)
{
	u8 seq[12 + 3 + 5];

	/* le32 version, le32 klen, le32 vlen, key, value. */
	memcpy(seq, "\x05\x00\x00\x00\x03\x00\x00\x00\x05\x00\x00\x00"
		    "abc" "hello", sizeof(seq));
	EXPECT_EQ(scalio_slot_csum(5, (const u8 *)"abc", 3,
				  (const u8 *)"hello", 5),
		 ~crc32c(~0U, seq, sizeof(seq)));
	/* Only the 20 version bits count. */
	EXPECT_EQ(scalio_slot_csum(5 | (1 << 20), (const u8 *)"abc", 3,
				  (const u8 *)"hello", 5),
		 ~crc32c(~0U, seq, sizeof(seq)));
	EXPECT_TRUE(scalio_slot_csum(6, (const u8 *)"abc", 3,
			       (const u8 *)"hello", 5) !=
	      scalio_slot_csum(5, (const u8 *)"abc", 3,
			       (const u8 *)"hello", 5));
	/* Moving a byte between key and value changes it. */
	EXPECT_TRUE(scalio_slot_csum(5, (const u8 *)"abch", 4,
			       (const u8 *)"ello", 4) !=
	      scalio_slot_csum(5, (const u8 *)"abc", 3,
			       (const u8 *)"hello", 5));
	EXPECT_EQ(scalio_slot_csum(0, NULL, 0, NULL, 0),
		 ~crc32c(~0U, "\0\0\0\0\0\0\0\0\0\0\0\0", 12));
}

TEST(slot_valid)
{
	struct scalio_slot *s = slot(0);

	EXPECT_EQ(sizeof(struct scalio_slot), SCALIO_SLOT_SIZE);
	blk_clear();
	set_c(0, 41, K, KLEN, FP, "value", 0);
	EXPECT_TRUE(scalio_slot_valid(s, 0, K, KLEN));
	EXPECT_TRUE(scalio_slot_valid(s, 0, NULL, 0));
	EXPECT_TRUE(!scalio_slot_valid(s, 0, K, KLEN - 1));
	EXPECT_TRUE(!scalio_slot_valid(s, 0, (const u8 *)"user:1235", KLEN));
	/* A torn copy: value from another fill. */
	s->value[2] ^= 1;
	EXPECT_TRUE(!scalio_slot_valid(s, 0, K, KLEN));
	s->value[2] ^= 1;
	/* ctl from a newer fill of the same contents: version mismatch. */
	s->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_C, 43, 0, 0, FP));
	EXPECT_TRUE(!scalio_slot_valid(s, 0, K, KLEN));
	set_c(0, 41, K, KLEN, FP, "value", 0);
	s->klen = 0;
	EXPECT_TRUE(!scalio_slot_valid(s, 0, NULL, 0));
	s->klen = 33;
	EXPECT_TRUE(!scalio_slot_valid(s, 0, NULL, 0));
	set_c(0, 41, K, KLEN, FP, "value", 0);
	s->vlen = SCALIO_INLINE_MAX + 1;
	EXPECT_TRUE(!scalio_slot_valid(s, 0, NULL, 0));
	set_c(0, 41, K, KLEN, FP, "value", 0);
	s->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_B, 41, 1, LIVE, FP));
	EXPECT_TRUE(!scalio_slot_valid(s, 0, K, KLEN));
	s->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_D, 41, 1, LIVE, FP));
	EXPECT_TRUE(!scalio_slot_valid(s, 0, K, KLEN));
}

static enum scalio_lookup lookup(u32 *idx)
{
	*idx = 99;
	return scalio_block_lookup(&view, K, KLEN, FP, NOW, idx);
}

TEST(lookup_scenarios)
{
	u32 idx;

	blk_clear();
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_MISS);

	set_c(2, 1, K, KLEN, FP, "v1", 5);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_HIT);
	EXPECT_EQ(idx, 2);

	/* Torn C of the key. */
	slot(2)->value[0] ^= 0x40;
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_TORN);
	/* Torn C found by key bytes although the ctl's fp is another's. */
	slot(2)->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_C, 1, 0, 0, FP2));
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_TORN);

	/*
	 * Our key's bytes with a matching checksum, under another key's
	 * fingerprint: what a late filler's WRITE leaves on a slot published
	 * again since at the same 20-bit version.  Torn (re-read, evicted),
	 * never a hit; for the key whose fingerprint it names it is a valid
	 * slot of another key.
	 */
	blk_clear();
	set_c(2, 1, K, KLEN, FP2, "stale", 5);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_TORN);
	EXPECT_TRUE(scalio_slot_torn(slot(2), 0, K, KLEN, FP));
	EXPECT_TRUE(!scalio_slot_torn(slot(2), 0, (const u8 *)"other", 5, FP2));
	set_c(2, 1, K, KLEN, FP, "v1", 5);
	EXPECT_TRUE(!scalio_slot_torn(slot(2), 0, K, KLEN, FP));

	/* Valid C of another key sharing our fp: a miss, not a torn slot. */
	blk_clear();
	set_c(1, 1, "other", 5, FP, "zz", 5);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_MISS);

	/*
	 * Live B with our fp: busy.  Expired: never a miss, but a slot to
	 * reclaim by CAS first.  Other fp, live or expired: miss.
	 */
	blk_clear();
	set_ctl(4, SCALIO_SLOT_B, 3, 7, LIVE, FP);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_BUSY);
	EXPECT_EQ(idx, 4);
	set_ctl(4, SCALIO_SLOT_B, 3, 7, EXPIRED, FP);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_RECLAIM);
	EXPECT_EQ(idx, 4);
	set_ctl(4, SCALIO_SLOT_B, 3, 7, LIVE, FP2);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_MISS);
	set_ctl(4, SCALIO_SLOT_B, 3, 7, EXPIRED, FP2);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_MISS);
	/* D with our fp: a miss while live, reclaimed once expired. */
	set_ctl(4, SCALIO_SLOT_D, 3, 7, LIVE, FP);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_MISS);
	set_ctl(4, SCALIO_SLOT_D, 3, 7, EXPIRED, FP);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_RECLAIM);
	EXPECT_EQ(idx, 4);
	/* The dead lock of the issue: 40 s past its deadline, not live. */
	set_ctl(4, SCALIO_SLOT_B, 3, 7, (u16)(NOW - 40000), FP);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_RECLAIM);
	/* Reclaiming it (the CAS the caller makes) leaves a miss. */
	slot(4)->ctl = cpu_to_le64(scalio_ctl_release(ctl_of(4)));
	EXPECT_EQ(scalio_ctl_version(ctl_of(4)), 4);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_MISS);

	/*
	 * RECLAIM comes before BUSY (a dead lock is cleared by the first GET
	 * that meets it, whatever else it waits for) and after HIT.
	 */
	blk_clear();
	set_ctl(1, SCALIO_SLOT_B, 3, 7, LIVE, FP);
	set_ctl(5, SCALIO_SLOT_B, 3, 8, EXPIRED, FP);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_RECLAIM);
	EXPECT_EQ(idx, 5);
	set_c(6, 9, K, KLEN, FP, "v", 5);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_HIT);
	EXPECT_EQ(idx, 6);
	/* ... and before TORN. */
	slot(6)->csum ^= cpu_to_le32(1);
	set_ctl(1, SCALIO_SLOT_A, 4, 0, 0, 0);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_RECLAIM);
	EXPECT_EQ(idx, 5);

	/* Precedence: HIT over BUSY, BUSY over TORN. */
	blk_clear();
	set_ctl(0, SCALIO_SLOT_B, 3, 7, LIVE, FP);
	set_c(1, 9, K, KLEN, FP, "v", 5);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_HIT);
	EXPECT_EQ(idx, 1);
	slot(1)->csum ^= cpu_to_le32(1);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_BUSY);
	EXPECT_EQ(idx, 0);
	set_ctl(0, SCALIO_SLOT_A, 4, 0, 0, 0);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_TORN);
	/* The last slot of a 16-slot block is looked at too. */
	blk_clear();
	view.slots = 16;
	set_c(15, 2, K, KLEN, FP, "v", 5);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_HIT);
	EXPECT_EQ(idx, 15);
	view.slots = 4;
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_MISS);
	view.slots = SLOTS;
}

static bool victim(u32 *idx)
{
	*idx = 99;
	return scalio_victim_choose(&view, NOW, idx);
}

TEST(victim_scenarios)
{
	u32 i, idx;

	/* All C: the oldest last_ts. */
	blk_clear();
	for (i = 0; i < SLOTS; i++)
		set_c(i, 1, &i, 4, FP2, "x", 100 + (i * 5) % 8);
	EXPECT_TRUE(victim(&idx));
	EXPECT_EQ(idx, 0);			/* last_ts 100 */
	slot(0)->last_ts = cpu_to_le64(200);
	EXPECT_TRUE(victim(&idx));
	EXPECT_EQ(idx, 5);			/* 100 + 25 % 8 = 101 */
	/* An A slot is preferred over any C, the lowest index first. */
	set_ctl(6, SCALIO_SLOT_A, 4, 0, 0, 0);
	set_ctl(3, SCALIO_SLOT_A, 4, 0, 0, 0);
	EXPECT_TRUE(victim(&idx));
	EXPECT_EQ(idx, 3);

	/* All live B or D: no victim. */
	blk_clear();
	for (i = 0; i < SLOTS; i++)
		set_ctl(i, i & 1 ? SCALIO_SLOT_B : SCALIO_SLOT_D, 1, i + 1,
			LIVE, FP);
	EXPECT_TRUE(!victim(&idx));
	/* One expired B: chosen. */
	set_ctl(5, SCALIO_SLOT_B, 1, 6, EXPIRED, FP);
	EXPECT_TRUE(victim(&idx));
	EXPECT_EQ(idx, 5);
	/* Two expired: the older deadline wins. */
	set_ctl(2, SCALIO_SLOT_D, 1, 3, (u16)(NOW - 20), FP);
	EXPECT_TRUE(victim(&idx));
	EXPECT_EQ(idx, 2);
	/* A C slot beats an expired B. */
	set_c(7, 1, K, KLEN, FP, "x", 0xffffffffULL);
	EXPECT_TRUE(victim(&idx));
	EXPECT_EQ(idx, 7);

	blk_clear();
	for (i = 0; i < SLOTS; i++)
		set_ctl(i, SCALIO_SLOT_B, 1, 1, LIVE, FP);
	set_ctl(1, SCALIO_SLOT_B, 1, 1, 0xfff0, FP);	/* before the wrap */
	set_ctl(4, SCALIO_SLOT_B, 1, 1, 0x0002, FP);	/* after it */
	EXPECT_TRUE(scalio_victim_choose(&view, 0x10003, &idx));
	EXPECT_EQ(idx, 1);
	EXPECT_TRUE(scalio_victim_choose(&view, 0xfff5, &idx));
	EXPECT_EQ(idx, 1);
	/* At 0xfff5 the deadline 0x0002 is still ahead. */
	set_ctl(1, SCALIO_SLOT_B, 1, 1, LIVE, FP);
	EXPECT_TRUE(!scalio_victim_choose(&view, 0xfff5, &idx));
}

static u32 coll_idx;

static bool collide(u32 mine, u64 my_ctl)
{
	coll_idx = 99;
	return scalio_block_collision(&view, mine, my_ctl, K, KLEN, FP, NOW,
				      &coll_idx) != SCALIO_COLL_NONE;
}

static enum scalio_collision collision(u32 mine, u64 my_ctl)
{
	coll_idx = 99;
	return scalio_block_collision(&view, mine, my_ctl, K, KLEN, FP, NOW,
				      &coll_idx);
}

TEST(collision_scenarios)
{
	u64 mine = scalio_ctl_make(SCALIO_SLOT_B, 2, 9, LIVE, FP);

	blk_clear();
	slot(3)->ctl = cpu_to_le64(mine);
	EXPECT_TRUE(!collide(3, mine));
	EXPECT_TRUE(collide(8, mine));		/* no such slot */
	EXPECT_TRUE(collide(2, mine));		/* not our lock */
	/* Lost lock: reclaimed, invalidated, or re-locked by another. */
	slot(3)->ctl = cpu_to_le64(scalio_ctl_invalidate(mine));
	EXPECT_TRUE(collide(3, mine));
	slot(3)->ctl = cpu_to_le64(scalio_ctl_lock(mine, 4, LIVE, FP));
	EXPECT_TRUE(collide(3, mine));
	slot(3)->ctl = cpu_to_le64(mine);

	/* Another live B with the same fp. */
	set_ctl(0, SCALIO_SLOT_B, 5, 4, LIVE, FP);
	EXPECT_EQ(collision(3, mine), SCALIO_COLL_YES);
	/*
	 * Expired, it still counts (its late owner may publish): the caller
	 * is told which slot to reclaim first.  Not with another fp.
	 */
	set_ctl(0, SCALIO_SLOT_B, 5, 4, EXPIRED, FP);
	EXPECT_EQ(collision(3, mine), SCALIO_COLL_RECLAIM);
	EXPECT_EQ(coll_idx, 0);
	set_ctl(0, SCALIO_SLOT_B, 5, 4, LIVE, FP2);
	EXPECT_TRUE(!collide(3, mine));
	set_ctl(0, SCALIO_SLOT_B, 5, 4, EXPIRED, FP2);
	EXPECT_TRUE(!collide(3, mine));
	/* A D slot of the key is not occupied, live or expired. */
	set_ctl(0, SCALIO_SLOT_D, 5, 4, LIVE, FP);
	EXPECT_TRUE(!collide(3, mine));
	set_ctl(0, SCALIO_SLOT_D, 5, 4, EXPIRED, FP);
	EXPECT_TRUE(!collide(3, mine));
	/* A definite collision wins over a slot to reclaim. */
	set_ctl(0, SCALIO_SLOT_B, 5, 4, EXPIRED, FP);
	set_ctl(7, SCALIO_SLOT_B, 5, 4, LIVE, FP);
	EXPECT_EQ(collision(3, mine), SCALIO_COLL_YES);
	set_ctl(7, SCALIO_SLOT_A, 6, 0, 0, 0);
	/* So does a lost lock. */
	EXPECT_EQ(collision(2, mine), SCALIO_COLL_YES);
	/* After the reclaim CAS the double-read finds nothing. */
	slot(0)->ctl = cpu_to_le64(scalio_ctl_release(ctl_of(0)));
	EXPECT_EQ(collision(3, mine), SCALIO_COLL_NONE);

	/* A valid C with the same key. */
	set_c(6, 7, K, KLEN, FP, "old", 1);
	EXPECT_TRUE(collide(3, mine));
	/* A valid C of another key with the same fp: no collision. */
	set_c(6, 7, "other", 5, FP, "old", 1);
	EXPECT_TRUE(!collide(3, mine));
	/* A torn C that may be ours: by fp, or by key bytes. */
	slot(6)->value[0] ^= 1;
	EXPECT_TRUE(collide(3, mine));
	set_c(6, 7, K, KLEN, FP2, "old", 1);
	slot(6)->csum ^= cpu_to_le32(4);
	EXPECT_TRUE(collide(3, mine));
	/* A torn C of an unrelated key and fp is not a collision. */
	set_c(6, 7, "other", 5, FP2, "old", 1);
	slot(6)->csum ^= cpu_to_le32(4);
	EXPECT_TRUE(!collide(3, mine));
}

static bool inv(u32 start, u32 *idx, u64 *nc)
{
	return scalio_invalidate_next(&view, K, KLEN, FP, start, idx, nc);
}

TEST(invalidate_scenarios)
{
	u64 nc;
	u32 idx;

	blk_clear();
	EXPECT_TRUE(!inv(0, &idx, &nc));
	set_c(0, 3, "other", 5, FP2, "x", 0);		/* unrelated */
	set_ctl(1, SCALIO_SLOT_B, 10, 7, LIVE, FP);	/* filler of our fp */
	set_ctl(2, SCALIO_SLOT_D, 11, 8, LIVE, FP);	/* already D */
	set_c(3, 20, K, KLEN, FP, "old", 0);		/* our C */
	set_ctl(4, SCALIO_SLOT_B, 12, 9, EXPIRED, FP);	/* crashed filler */
	set_c(5, 30, K, KLEN, FP, "old", 0);		/* torn copy of ours */
	slot(5)->value[1] ^= 1;
	set_c(6, 40, "other", 5, FP, "x", 0);		/* fp twin */
	set_c(7, 50, K, KLEN, FP2, "x", 0);		/* key bytes ours */

	EXPECT_TRUE(inv(0, &idx, &nc));
	EXPECT_EQ(idx, 1);
	EXPECT_EQ(nc, scalio_ctl_make(SCALIO_SLOT_D, 11, 7, LIVE, FP));
	EXPECT_TRUE(inv(idx + 1, &idx, &nc));
	EXPECT_EQ(idx, 3);
	EXPECT_EQ(nc, scalio_ctl_make(SCALIO_SLOT_A, 21, 0, 0, 0));
	EXPECT_TRUE(inv(idx + 1, &idx, &nc));
	EXPECT_EQ(idx, 4);
	EXPECT_EQ(nc, scalio_ctl_make(SCALIO_SLOT_D, 13, 9, EXPIRED, FP));
	EXPECT_TRUE(inv(idx + 1, &idx, &nc));
	EXPECT_EQ(idx, 5);
	EXPECT_EQ(nc, scalio_ctl_make(SCALIO_SLOT_A, 31, 0, 0, 0));
	EXPECT_TRUE(inv(idx + 1, &idx, &nc));
	EXPECT_EQ(idx, 6);
	EXPECT_TRUE(inv(idx + 1, &idx, &nc));
	EXPECT_EQ(idx, 7);
	EXPECT_EQ(nc, scalio_ctl_make(SCALIO_SLOT_A, 51, 0, 0, 0));
	EXPECT_TRUE(!inv(idx + 1, &idx, &nc));
	EXPECT_TRUE(!inv(SLOTS, &idx, &nc));
	EXPECT_TRUE(!inv(~0U, &idx, &nc));
	/* Applying the CASes leaves nothing to invalidate. */
	for (idx = 0; inv(0, &idx, &nc); )
		slot(idx)->ctl = cpu_to_le64(nc);
	EXPECT_EQ(scalio_ctl_state(ctl_of(1)), SCALIO_SLOT_D);
	EXPECT_EQ(scalio_ctl_state(ctl_of(3)), SCALIO_SLOT_A);
	EXPECT_EQ(scalio_ctl_state(ctl_of(0)), SCALIO_SLOT_C);

	/* The sweep (no key): every B and C slot, whatever its key. */
	blk_clear();
	set_c(0, 3, "other", 5, FP2, "x", 0);
	set_ctl(1, SCALIO_SLOT_B, 10, 7, LIVE, FP2);
	set_ctl(2, SCALIO_SLOT_D, 11, 8, LIVE, FP);
	set_ctl(4, SCALIO_SLOT_B, 12, 9, EXPIRED, FP);
	EXPECT_TRUE(scalio_invalidate_next(&view, NULL, 0, 0, 0, &idx, &nc));
	EXPECT_EQ(idx, 0);
	EXPECT_EQ(nc, scalio_ctl_make(SCALIO_SLOT_A, 4, 0, 0, 0));
	EXPECT_TRUE(scalio_invalidate_next(&view, NULL, 0, 0, idx + 1, &idx, &nc));
	EXPECT_EQ(idx, 1);
	EXPECT_EQ(nc, scalio_ctl_make(SCALIO_SLOT_D, 11, 7, LIVE, FP2));
	EXPECT_TRUE(scalio_invalidate_next(&view, NULL, 0, 0, idx + 1, &idx, &nc));
	EXPECT_EQ(idx, 4);
	EXPECT_TRUE(!scalio_invalidate_next(&view, NULL, 0, 0, idx + 1, &idx, &nc));
	for (idx = 0; scalio_invalidate_next(&view, NULL, 0, 0, 0, &idx, &nc); )
		slot(idx)->ctl = cpu_to_le64(nc);
	for (idx = 0; idx < SLOTS; idx++)
		EXPECT_TRUE(scalio_ctl_state(ctl_of(idx)) == SCALIO_SLOT_A ||
		      scalio_ctl_state(ctl_of(idx)) == SCALIO_SLOT_D);
}

/* A GET's full sequence on one block, by the pure functions alone. */
TEST(fill_sequence)
{
	u64 locked, pub;
	u32 idx, v;

	blk_clear();
	set_c(0, 1, "a", 1, FP2, "x", 50);
	set_c(1, 1, "b", 1, FP2, "x", 40);
	set_ctl(2, SCALIO_SLOT_B, 1, 3, LIVE, FP2);
	set_ctl(3, SCALIO_SLOT_B, 1, 3, LIVE, FP2);
	view.slots = 4;
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_MISS);
	EXPECT_TRUE(victim(&v));
	EXPECT_EQ(v, 1);
	locked = scalio_ctl_lock(ctl_of(v), 5, LIVE, FP);
	slot(v)->ctl = cpu_to_le64(locked);
	slot(v)->klen = KLEN;
	memcpy(slot(v)->key, K, KLEN);
	EXPECT_TRUE(!collide(v, locked));
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_BUSY);
	pub = scalio_ctl_publish(locked);
	slot(v)->vlen = 3;
	memcpy(slot(v)->value, "new", 3);
	slot(v)->csum = cpu_to_le32(scalio_slot_csum(scalio_ctl_version(pub),
						     K, KLEN,
						     (const u8 *)"new", 3));
	/* Before the publish CAS the slot is still B: no hit. */
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_BUSY);
	slot(v)->ctl = cpu_to_le64(pub);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_HIT);
	EXPECT_EQ(idx, v);
	EXPECT_TRUE(!memcmp(slot(idx)->value, "new", 3));
	view.slots = SLOTS;
}

/*
 * The value WRITE of a filler (key, value and checksum for the C word it
 * means to publish) as it lands in slot @i, at whatever moment: an RDMA
 * WRITE is not conditional on the lock.  @tok: the fill-token design.
 */
static void fill_write(u32 i, u64 lock, const char *value, bool tok)
{
	struct scalio_slot *s = slot(i);
	u32 vlen = strlen(value);
	u64 pub = tok ? scalio_ctl_publish_tok(lock) :
			scalio_ctl_publish(lock);

	s->klen = KLEN;
	s->vlen = vlen;
	memset(s->key, 0, sizeof(s->key));
	memcpy(s->key, K, KLEN);
	memcpy(s->value, value, vlen);
	s->csum = cpu_to_le32(tok ?
		scalio_slot_csum_tok(pub, 0, K, KLEN, (const u8 *)value, vlen) :
		scalio_slot_csum(scalio_ctl_version(pub), K, KLEN,
				 (const u8 *)value, vlen));
}

/*
 * Filler F locks slot 0, reads "old" from the SSD and stalls before its
 * value WRITE.  Its lease runs out; other fills (client 5, or F's own
 * client @same_owner with another deadline) take the slot through a full
 * wrap of the 20-bit version and publish "new" at the very version F's
 * publish would have had.  Then F's WRITE lands.  Return what a lookup of
 * the key finds afterwards (and the slot in @idx).
 */
static enum scalio_lookup wrap_stale_fill(struct __test_metadata *_metadata,
					  bool tok, bool same_owner, u32 *idx)
{
	u32 owner = same_owner ? 3 : 5;
	u64 f_lock, f_pub, cur, g_lock, g_pub;
	unsigned long n = 0;

	blk_clear();
	view.slots = 2;
	f_lock = scalio_ctl_lock(0, 3, EXPIRED, FP);
	f_pub = tok ? scalio_ctl_publish_tok(f_lock) :
		      scalio_ctl_publish(f_lock);
	/* F's lease passed: a reader reclaims it (B -> A) */
	cur = scalio_ctl_release(f_lock);
	/* lock + release cycles, until a lock would publish at f_pub's version */
	do {
		cur = scalio_ctl_release(scalio_ctl_lock(cur, owner, LIVE, FP));
		n++;
	} while (((scalio_ctl_version(cur) + 2) &
		  ((1U << SCALIO_CTL_VER_BITS) - 1)) !=
		 scalio_ctl_version(f_pub) && n <= 1UL << SCALIO_CTL_VER_BITS);
	EXPECT_EQ(n, (1UL << (SCALIO_CTL_VER_BITS - 1)) - 1);	/* a wrap */
	g_lock = scalio_ctl_lock(cur, owner, LIVE, FP);
	g_pub = tok ? scalio_ctl_publish_tok(g_lock) :
		      scalio_ctl_publish(g_lock);
	EXPECT_EQ(scalio_ctl_version(g_pub), scalio_ctl_version(f_pub));
	slot(0)->ctl = cpu_to_le64(g_lock);
	fill_write(0, g_lock, "new", tok);
	slot(0)->ctl = cpu_to_le64(g_pub);
	EXPECT_EQ(lookup(idx), SCALIO_LOOKUP_HIT);
	EXPECT_TRUE(!memcmp(slot(0)->value, "new", 3));
	/* F wakes up: its WRITE lands (its publish CAS then fails) */
	fill_write(0, f_lock, "old", tok);
	EXPECT_TRUE(le64_to_cpu(slot(0)->ctl) != f_lock);
	return lookup(idx);
}

TEST(version_wrap)
{
	u64 lock = scalio_ctl_lock(scalio_ctl_make(SCALIO_SLOT_A, 9, 0, 0, 0),
				   7, LIVE, FP);
	u64 pub = scalio_ctl_publish_tok(lock);
	enum scalio_lookup res;
	u32 idx;

	/* the token: owner and deadline kept, version + 1 */
	EXPECT_EQ(pub, scalio_ctl_make(SCALIO_SLOT_C, 11, 7, LIVE, FP));
	EXPECT_EQ(scalio_ctl_invalidate(pub),
		 scalio_ctl_make(SCALIO_SLOT_A, 12, 0, 0, 0));
	/* a tokened C validates under its own word only */
	blk_clear();
	view.slots = 2;
	slot(0)->ctl = cpu_to_le64(pub);
	fill_write(0, lock, "value", true);
	EXPECT_TRUE(scalio_slot_valid(slot(0), 0, K, KLEN));
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_HIT);
	slot(0)->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_C, 11, 7,
						   LIVE + 1, FP));
	EXPECT_TRUE(!scalio_slot_valid(slot(0), 0, K, KLEN));
	slot(0)->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_C, 11, 8,
						   LIVE, FP));
	EXPECT_TRUE(!scalio_slot_valid(slot(0), 0, K, KLEN));
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_TORN);
	/* the untokened (owner 0) format is checked as before */
	slot(0)->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_C, 11, 0, 0,
						   FP));
	EXPECT_TRUE(!scalio_slot_valid(slot(0), 0, K, KLEN));
	fill_write(0, lock, "value", false);
	EXPECT_TRUE(scalio_slot_valid(slot(0), 0, K, KLEN));

	/* The 20-bit version design: the stale value is a HIT (the bug). */
	res = wrap_stale_fill(_metadata, false, false, &idx);
	EXPECT_EQ(res, SCALIO_LOOKUP_HIT);
	EXPECT_TRUE(!memcmp(slot(idx)->value, "old", 3));
	/* With the fill token it is torn: re-read, then evicted. */
	EXPECT_EQ(wrap_stale_fill(_metadata, true, false, &idx), SCALIO_LOOKUP_TORN);
	/* the same client, a later deadline: still another token */
	EXPECT_EQ(wrap_stale_fill(_metadata, true, true, &idx), SCALIO_LOOKUP_TORN);
	view.slots = SLOTS;
}

/* A tokened fill of slot @i, as host/read.c publishes under block epoch @ep. */
static void fill_epoch(u32 i, u32 ver, u64 ep, const char *value)
{
	struct scalio_slot *s = slot(i);
	u64 lock = scalio_ctl_lock(scalio_ctl_make(SCALIO_SLOT_A, ver, 0, 0, 0),
				   7, LIVE, FP);
	u64 pub = scalio_ctl_publish_tok(lock);
	u32 vlen = strlen(value);

	s->ctl = cpu_to_le64(pub);
	s->klen = KLEN;
	s->vlen = vlen;
	memset(s->key, 0, sizeof(s->key));
	memcpy(s->key, K, KLEN);
	memcpy(s->value, value, vlen);
	s->etag = cpu_to_le16((u16)ep);
	s->csum = cpu_to_le32(scalio_slot_csum_tok(pub, ep, K, KLEN,
						   (const u8 *)value, vlen));
}

static void set_epoch(u64 ep)
{
	((struct scalio_block_hdr *)blk_words)->epoch = cpu_to_le64(ep);
}

/*
 * Block epochs (SCALIO_F_BLOCK_EPOCH): what the target retires is served
 * no more, whatever the slot's ctl word says; epoch 0 sums as before.
 */
TEST(block_epoch)
{
	u64 ctl = scalio_ctl_make(SCALIO_SLOT_C, 11, 7, LIVE, FP);
	u64 lock;
	u32 idx;

	/* Epoch 0 adds nothing; any other epoch, all 64 bits of it, does. */
	EXPECT_TRUE(scalio_slot_csum_tok(ctl, 5, K, KLEN, (const u8 *)"v", 1) !=
		    scalio_slot_csum_tok(ctl, 0, K, KLEN, (const u8 *)"v", 1));
	EXPECT_TRUE(scalio_slot_csum_tok(ctl, 5, K, KLEN, (const u8 *)"v", 1) !=
		    scalio_slot_csum_tok(ctl, 5 + 0x10000, K, KLEN,
					 (const u8 *)"v", 1));
	EXPECT_TRUE(scalio_slot_csum_tok(ctl, 5, K, KLEN, (const u8 *)"v", 1) !=
		    scalio_slot_csum_tok(ctl, 5 + (1ULL << 40), K, KLEN,
					 (const u8 *)"v", 1));

	blk_clear();
	view.slots = 2;
	/* filled under epoch 0, served under 0 */
	fill_epoch(0, 9, 0, "old");
	EXPECT_TRUE(scalio_slot_valid(slot(0), 0, K, KLEN));
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_HIT);
	/* the target retires the block: the slot is not served, but named */
	set_epoch(1);
	EXPECT_TRUE(!scalio_slot_valid(slot(0), 1, K, KLEN));
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_RETIRED);
	EXPECT_EQ(idx, 0);
	/* ... and counts as a copy the key's double-read must not ignore */
	lock = scalio_ctl_lock(0, 3, LIVE, FP);
	set_ctl(1, SCALIO_SLOT_B, scalio_ctl_version(lock), 3, LIVE, FP);
	EXPECT_TRUE(collide(1, ctl_of(1)));
	EXPECT_TRUE(scalio_slot_torn(slot(0), 1, K, KLEN, FP));
	slot(1)->ctl = 0;
	/* a fill under the new epoch is served */
	fill_epoch(0, 12, 1, "new");
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_HIT);
	EXPECT_TRUE(!memcmp(slot(idx)->value, "new", 3));
	/* its tag coming round again after 2^16 epochs: torn, not a hit */
	set_epoch(1 + 0x10000);
	EXPECT_TRUE(!scalio_slot_valid(slot(0), 1 + 0x10000, K, KLEN));
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_TORN);
	/* a fill that read epoch 4 and published after the move to 5 */
	set_epoch(5);
	fill_epoch(0, 20, 4, "late");
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_RETIRED);
	/* an untokened C (owner 0) carries its tag too */
	set_c(0, 21, K, KLEN, FP, "x", 0);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_RETIRED);
	slot(0)->etag = cpu_to_le16(5);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_HIT);
	/* a retired C of another key does not concern this one */
	set_c(0, 21, "other", 5, FP2, "x", 0);
	EXPECT_EQ(lookup(&idx), SCALIO_LOOKUP_MISS);
	set_epoch(0);
	view.slots = SLOTS;
}

TEST_HARNESS_MAIN
