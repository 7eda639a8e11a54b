/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DRAM hash index: its memory layout, the slot consistency word (ctl),
 * the block's segment pointer (seg), and key placement.  Shared by the
 * target (which owns the memory) and the hosts (which read and CAS it with
 * one-sided RDMA).  Pure logic: compiles in the kernel and in user space.
 *
 * Byte order: every index word is little-endian.  RDMA atomics operate on
 * the responder's native 64-bit words, so target and hosts must be
 * little-endian machines (x86-64, arm64 LE); the modules refuse to build
 * otherwise.
 *
 * Layout: a region header page (struct scalio_index_hdr, its own MR) and
 * nr_blocks blocks of SCALIO_BLOCK_SIZE(slots) bytes, 64-byte aligned, in
 * chunks that never split a block.  Beside each chunk, a seg table chunk
 * registered for REMOTE_READ only: for each block of the chunk, the seg
 * words of its buckets (scalio_bucket_pos()).  It is a copy the target
 * publishes; its authoritative seg table is private kernel memory.
 *
 * Blocks and buckets: the cache (slots) is cut in nr_blocks blocks, the
 * keys on the SSDs in nr_buckets buckets, each with its own segment and
 * seg word.  Both counts are powers of two and nr_buckets >= nr_blocks, so
 * a bucket's keys all fall in one block (the low bits of the key hash pick
 * both): the DRAM cache is sized by what should be cached, the bucket
 * table by how many keys the SSDs hold.
 *
 * Trust boundary: clients can write every byte of the block chunks (slots
 * and block headers).  The target never reads them to make a decision;
 * everything it trusts (seg words, the clock) is in memory clients can
 * only read, or not reach at all.
 */
#ifndef _SCALIO_INDEX_H
#define _SCALIO_INDEX_H

#include "scalio_types.h"
#include "../uapi/scalio.h"

#define SCALIO_INDEX_MAGIC	0x5844494f494c4353ULL	/* "SCLIOIDX" */
/*
 * 2: seg moved out of the block header into the read-only seg table.
 * 3: seg words address 512-byte sectors (segments packed in batches).
 * 4: seg words per bucket, apart from the cache blocks (nr_buckets).
 */
#define SCALIO_INDEX_VERSION	4

#define SCALIO_SLOT_SIZE	128
#define SCALIO_BLOCK_HDR_SIZE	64
#define SCALIO_INLINE_MAX	72	/* largest value cached in a slot */
#define SCALIO_BLOCK_SIZE(slots) \
	(SCALIO_BLOCK_HDR_SIZE + (slots) * SCALIO_SLOT_SIZE)
#define SCALIO_MAX_SSDS		16
#define SCALIO_CLOCK_HZ		1000	/* target clock word: ticks per second */

/**
 * struct scalio_index_hdr - region header, readable by clients
 * @magic:	SCALIO_INDEX_MAGIC
 * @version:	SCALIO_INDEX_VERSION
 * @nr_blocks:	hash blocks (power of two)
 * @slots_per_block: 4, 8 or 16
 * @block_size:	bytes per block
 * @nr_ssds:	SSDs of the store
 * @clock_hz:	rate of @clock
 * @clock:	target clock, advanced by the target only; clients stamp
 *		last_ts and lease deadlines with it so no clock sync between
 *		machines is needed
 * @nr_buckets:	buckets (power of two, >= @nr_blocks)
 * @reserved:	0
 */
struct scalio_index_hdr {
	__le64	magic;
	__le32	version;
	__le32	nr_blocks;
	__le32	slots_per_block;
	__le32	block_size;
	__le32	nr_ssds;
	__le32	clock_hz;
	__le64	clock;
	__le32	nr_buckets;
	__le32	reserved32;
	__le64	reserved[3];
};

/**
 * struct scalio_block_hdr - first 64 bytes of every hash block
 * @epoch:	the block's cache epoch (SCALIO_F_BLOCK_EPOCH): written by
 *		the target CPU only, with a plain store (no client CASes it),
 *		starting at 0.  A filler binds the epoch it read in its
 *		double-read into its slot (@etag, and the checksum), and a
 *		reader trusts a C slot only under the epoch it reads with it;
 *		so when the target advances the epoch, every value cached in
 *		the block stops being served at once.  It does so for the
 *		blocks of writes whose invalidation a departed client never
 *		confirmed (Documentation/protocol.rst, "A writer that leaves
 *		owing invalidations").  Clients can write this word like the
 *		slots; the target never reads it to decide anything but the
 *		next value.
 * @reserved:	0.  Client-writable like the slots, so nothing the target
 *		relies on lives here (index version 1 kept the block's seg
 *		word here; it is in the seg table now).
 */
struct scalio_block_hdr {
	__le64	epoch;
	__le64	reserved[7];
};

/**
 * struct scalio_slot - one cache slot (128 bytes)
 * @ctl:	consistency word (SCALIO_CTL_* helpers); changed by clients only,
 *		always with an RDMA compare-and-swap of the whole word.  The
 *		target CPU writes it only before the index is registered.
 * @last_ts:	last access, target clock (client-side LRU)
 * @klen:	key length
 * @vlen:	value length (<= SCALIO_INLINE_MAX)
 * @etag:	low 16 bits of the block epoch the filler read before its
 *		seg READ (0 from hosts that predate SCALIO_F_BLOCK_EPOCH): a
 *		C slot whose @etag differs from the block's epoch is stale
 * @csum:	scalio_slot_csum() of the C-state version, key and value
 * @key:	the key, written by the filler before its double-read
 * @value:	the cached value
 */
struct scalio_slot {
	__le64	ctl;
	__le64	last_ts;
	__u8	klen;
	__u8	vlen;
	__le16	etag;
	__le32	csum;
	__u8	key[SCALIO_KEY_MAX];
	__u8	value[SCALIO_INLINE_MAX];
};

/*
 * ctl word:
 *   bit  63     occupied
 *   bit  62     filling (the inverse of the paper's "complete", so that an
 *               all-zero word is state A, version 0)
 *   bits 61..42 version, incremented by every transition (ABA guard; the
 *               slot checksum covers it)
 *   bits 41..32 owner client id (B/D), 0 otherwise
 *   bits 31..16 lease deadline (B/D), low 16 bits of the target clock
 *   bits 15..0  key fingerprint (B/C/D)
 *
 * state  occupied  complete(!filling)
 *   A       0          1      empty
 *   B       1          0      locked by a filler
 *   C       1          1      valid
 *   D       0          0      invalidated while being filled
 */
#define SCALIO_CTL_OCCUPIED	(1ULL << 63)
#define SCALIO_CTL_FILLING	(1ULL << 62)
#define SCALIO_CTL_VER_SHIFT	42
#define SCALIO_CTL_VER_BITS	20
#define SCALIO_CTL_OWNER_SHIFT	32
#define SCALIO_CTL_OWNER_BITS	10
#define SCALIO_CTL_LEASE_SHIFT	16
#define SCALIO_CTL_LEASE_BITS	16
#define SCALIO_CTL_FP_BITS	16
#define SCALIO_MAX_CLIENTS	((1U << SCALIO_CTL_OWNER_BITS) - 1)

enum scalio_slot_state {
	SCALIO_SLOT_A = 0,	/* empty */
	SCALIO_SLOT_B = 1,	/* filling */
	SCALIO_SLOT_C = 2,	/* valid */
	SCALIO_SLOT_D = 3,	/* invalidated while filling */
};

static inline enum scalio_slot_state scalio_ctl_state(u64 ctl)
{
	bool occ = ctl & SCALIO_CTL_OCCUPIED, fill = ctl & SCALIO_CTL_FILLING;

	if (occ)
		return fill ? SCALIO_SLOT_B : SCALIO_SLOT_C;
	return fill ? SCALIO_SLOT_D : SCALIO_SLOT_A;
}

static inline u32 scalio_ctl_version(u64 ctl)
{
	return (ctl >> SCALIO_CTL_VER_SHIFT) & ((1U << SCALIO_CTL_VER_BITS) - 1);
}

static inline u32 scalio_ctl_owner(u64 ctl)
{
	return (ctl >> SCALIO_CTL_OWNER_SHIFT) &
	       ((1U << SCALIO_CTL_OWNER_BITS) - 1);
}

static inline u16 scalio_ctl_lease(u64 ctl)
{
	return (ctl >> SCALIO_CTL_LEASE_SHIFT) & 0xffff;
}

static inline u16 scalio_ctl_fp(u64 ctl)
{
	return ctl & 0xffff;
}

/**
 * scalio_ctl_make() - build a ctl word
 * @state:	target state
 * @version:	version (taken modulo 2^20)
 * @owner:	client id (B/D), else 0
 * @lease:	lease deadline (B/D), else 0
 * @fp:		key fingerprint (B/C/D), else 0
 */
static inline u64 scalio_ctl_make(enum scalio_slot_state state, u32 version,
				  u32 owner, u16 lease, u16 fp)
{
	u64 ctl = 0;

	if (state == SCALIO_SLOT_B || state == SCALIO_SLOT_C)
		ctl |= SCALIO_CTL_OCCUPIED;
	if (state == SCALIO_SLOT_B || state == SCALIO_SLOT_D)
		ctl |= SCALIO_CTL_FILLING;
	ctl |= (u64)(version & ((1U << SCALIO_CTL_VER_BITS) - 1))
		<< SCALIO_CTL_VER_SHIFT;
	ctl |= (u64)(owner & ((1U << SCALIO_CTL_OWNER_BITS) - 1))
		<< SCALIO_CTL_OWNER_SHIFT;
	ctl |= (u64)lease << SCALIO_CTL_LEASE_SHIFT;
	ctl |= fp;
	return ctl;
}

/*
 * Lease bounds.  A lock's deadline is the low 16 bits of the target clock
 * (65.5 s at 1 kHz), so "has it passed?" is answered modulo 2^16 against a
 * reader's estimate of the clock, which may lag or lead the target's by up
 * to SCALIO_CLOCK_ERR_TICKS (Documentation/protocol.rst, "Leases").  A live
 * lock's deadline lies at most SCALIO_LEASE_MAX_TICKS ahead of the true
 * clock, hence at most SCALIO_LEASE_AHEAD_MAX ahead of any estimate; a
 * deadline further ahead than that can only be a past one seen across the
 * wrap, and counts as expired.  The sum stays below 2^15, so the two cases
 * never overlap.  (SCALIO_LEASE_MIN_MS / MAX_MS: uapi/scalio.h.)
 */
#define SCALIO_LEASE_MAX_TICKS	(SCALIO_LEASE_MAX_MS * SCALIO_CLOCK_HZ / 1000)
#define SCALIO_CLOCK_ERR_TICKS	(5 * SCALIO_CLOCK_HZ)
#define SCALIO_LEASE_AHEAD_MAX	(SCALIO_LEASE_MAX_TICKS + SCALIO_CLOCK_ERR_TICKS)

/**
 * scalio_lease_expired() - has a 16-bit lease deadline passed?
 * @now:	current target clock (or a reader's estimate of it)
 * @deadline:	lease field of a ctl word
 *
 * Expired when @deadline is behind @now (modulo 2^16), or further ahead
 * than any live lease can be (SCALIO_LEASE_AHEAD_MAX): a dead lock met
 * long after its deadline looks live for at most that many ticks in every
 * 2^16, never for half of them.
 */
static inline bool scalio_lease_expired(u64 now, u16 deadline)
{
	s16 ahead = (s16)(deadline - (u16)now);

	return ahead < 0 || ahead > SCALIO_LEASE_AHEAD_MAX;
}

/*
 * seg word (the seg table, one per bucket; see the top of this file):
 *   bits 63..60 SSD index
 *   bits 59..25 start, in 512-byte sectors from the start of the SSD
 *   bits 24..17 units (4 KiB) to read, from the unit holding the start
 *               to the one holding the segment's last byte (1..255)
 *   bits 16..0  low 17 bits of the segment's generation
 * 0 means "no segment".
 *
 * Segments are packed in a batch on sector boundaries, but readers read
 * whole units (the device's logical block may be 4 KiB): a reader reads
 * scalio_seg_len() units from scalio_seg_unit() and finds the segment
 * scalio_seg_offset() bytes into them.
 */
#define SCALIO_SEG_SECTOR_SIZE	512U
#define SCALIO_SEG_SECTORS_PER_UNIT 8U
#define SCALIO_SEG_SSD_SHIFT	60
#define SCALIO_SEG_SECTOR_SHIFT	25
#define SCALIO_SEG_SECTOR_MASK	((1ULL << 35) - 1)
#define SCALIO_SEG_LEN_SHIFT	17
#define SCALIO_SEG_LEN_MAX	255
#define SCALIO_SEG_GEN_MASK	((1U << 17) - 1)

static inline u64 scalio_seg_make(u32 ssd, u64 sector, u32 len, u64 gen)
{
	return ((u64)(ssd & 0xf) << SCALIO_SEG_SSD_SHIFT) |
	       ((sector & SCALIO_SEG_SECTOR_MASK) << SCALIO_SEG_SECTOR_SHIFT) |
	       ((u64)(len & 0xff) << SCALIO_SEG_LEN_SHIFT) |
	       (gen & SCALIO_SEG_GEN_MASK);
}

/* Units a segment of @bytes starting at @sector spans (its seg word len). */
static inline u32 scalio_seg_span(u64 sector, u32 bytes)
{
	u32 off = (sector % SCALIO_SEG_SECTORS_PER_UNIT) * SCALIO_SEG_SECTOR_SIZE;

	return DIV_ROUND_UP(off + bytes, SCALIO_SEG_SECTORS_PER_UNIT *
					 SCALIO_SEG_SECTOR_SIZE);
}

static inline u32 scalio_seg_ssd(u64 seg)
{
	return seg >> SCALIO_SEG_SSD_SHIFT;
}

static inline u64 scalio_seg_sector(u64 seg)
{
	return (seg >> SCALIO_SEG_SECTOR_SHIFT) & SCALIO_SEG_SECTOR_MASK;
}

/* The unit holding the segment's first byte. */
static inline u32 scalio_seg_unit(u64 seg)
{
	return scalio_seg_sector(seg) / SCALIO_SEG_SECTORS_PER_UNIT;
}

/* Where the segment starts in its first unit, in bytes. */
static inline u32 scalio_seg_offset(u64 seg)
{
	return (scalio_seg_sector(seg) % SCALIO_SEG_SECTORS_PER_UNIT) *
	       SCALIO_SEG_SECTOR_SIZE;
}

static inline u32 scalio_seg_len(u64 seg)
{
	return (seg >> SCALIO_SEG_LEN_SHIFT) & 0xff;
}

static inline u32 scalio_seg_gen(u64 seg)
{
	return seg & SCALIO_SEG_GEN_MASK;
}

/*
 * Hash placement: one xxh64 of the key gives block and fingerprint.  The
 * seed is the store's own secret (superblock hash_seed, handed to admitted
 * hosts in HELLO) so that nobody can choose keys that pile into one block.
 * SCALIO_HASH_SEED is a fixed seed for tests and models (no store has it:
 * scalio_sb_check() refuses a superblock without a seed).
 */
#define SCALIO_HASH_SEED	0x5ca11005ca11005ULL

static inline u64 scalio_key_hash(u64 seed, const void *key, u32 klen)
{
	return xxh64(key, klen, seed);
}

/* @nr_blocks is a power of two. */
static inline u32 scalio_hash_block(u64 hash, u32 nr_blocks)
{
	return (u32)hash & (nr_blocks - 1);
}

/* @nr_buckets is a power of two, >= nr_blocks. */
static inline u32 scalio_hash_bucket(u64 hash, u32 nr_buckets)
{
	return (u32)hash & (nr_buckets - 1);
}

/* The cache block that holds the keys of @bucket. */
static inline u32 scalio_bucket_block(u32 bucket, u32 nr_blocks)
{
	return bucket & (nr_blocks - 1);
}

/*
 * Where a bucket's seg word is published: the seg words of block 0's
 * buckets first, then block 1's, and so on, so that a chunk of blocks
 * carries the seg words of exactly its blocks' buckets.  @bpb is
 * nr_buckets / nr_blocks.
 */
static inline u32 scalio_bucket_pos(u32 bucket, u32 nr_blocks, u32 bpb)
{
	return (bucket & (nr_blocks - 1)) * bpb + bucket / nr_blocks;
}

/* The inverse of scalio_bucket_pos(). */
static inline u32 scalio_pos_bucket(u32 pos, u32 nr_blocks, u32 bpb)
{
	return (pos % bpb) * nr_blocks + pos / bpb;
}

/* Is @nr_buckets a valid bucket count for @nr_blocks cache blocks? */
static inline bool scalio_buckets_valid(u32 nr_buckets, u32 nr_blocks)
{
	return nr_buckets && !(nr_buckets & (nr_buckets - 1)) &&
	       nr_blocks && !(nr_blocks & (nr_blocks - 1)) &&
	       nr_buckets >= nr_blocks &&
	       nr_buckets <= SCALIO_NR_BUCKETS_MAX &&
	       nr_buckets / nr_blocks <= SCALIO_BUCKETS_PER_BLOCK_MAX;
}

/* Never 0, so that a B slot always names a fingerprint. */
static inline u16 scalio_hash_fp(u64 hash)
{
	u16 fp = hash >> 48;

	return fp ? fp : 1;
}

/* Slots per block the format allows: 4, 8 or 16 (a power of two). */
static inline bool scalio_slots_valid(u32 slots)
{
	return slots >= SCALIO_SLOTS_MIN && slots <= SCALIO_SLOTS_MAX &&
	       !(slots & (slots - 1));
}

/* Buckets map to SSDs round-robin: each SSD owns its own log. */
static inline u32 scalio_bucket_ssd(u32 bucket, u32 nr_ssds)
{
	return bucket % nr_ssds;
}

u32 scalio_slot_csum(u32 version, const u8 *key, u32 klen,
		     const u8 *value, u32 vlen);

#endif /* _SCALIO_INDEX_H */
