/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slot consistency protocol as pure functions over a copy of a hash
 * block (what an RDMA READ returned).  The host's GET and invalidation code
 * calls these to decide what to CAS; the unit tests and the exhaustive
 * interleaving checker call the same functions.  Nothing here touches the
 * network.  Reference: Documentation/protocol.rst.
 */
#ifndef _SCALIO_SLOT_H
#define _SCALIO_SLOT_H

#include "scalio_index.h"

/**
 * struct scalio_block_view - a host's copy of one hash block
 * @buf:	SCALIO_BLOCK_SIZE(@slots) bytes as read
 * @slots:	slots per block
 */
struct scalio_block_view {
	const void	*buf;
	u32		slots;
};

static inline const struct scalio_block_hdr *
scalio_view_hdr(const struct scalio_block_view *v)
{
	return v->buf;
}

/* The block's epoch, read with its slots (struct scalio_block_hdr). */
static inline u64 scalio_view_epoch(const struct scalio_block_view *v)
{
	return le64_to_cpu(scalio_view_hdr(v)->epoch);
}

static inline const struct scalio_slot *
scalio_view_slot(const struct scalio_block_view *v, u32 i)
{
	return (const void *)((const u8 *)v->buf + SCALIO_BLOCK_HDR_SIZE +
			      i * SCALIO_SLOT_SIZE);
}

/* Byte offset of slot @i (and of its ctl word) within a block. */
static inline u32 scalio_slot_offset(u32 i)
{
	return SCALIO_BLOCK_HDR_SIZE + i * SCALIO_SLOT_SIZE;
}

/**
 * scalio_slot_valid() - is slot @s a consistent C-state copy of @key?
 *
 * @s:		the slot, as read
 * @epoch:	its block's epoch, read in the same READ (scalio_view_epoch())
 * @key:	the key, or NULL for any
 * @klen:	its length
 *
 * True iff its ctl is in state C, its etag is @epoch's, klen/vlen are in
 * range, the key matches (when @key is non-NULL) and the checksum matches
 * ctl's version (a C word that names an owner: matches the whole word and
 * @epoch, scalio_slot_csum_tok()): a torn read fails this test and must be
 * re-read; a slot filled under an older epoch fails it for good.
 */
bool scalio_slot_valid(const struct scalio_slot *s, u64 epoch, const u8 *key,
		       u32 klen);

/**
 * scalio_slot_torn() - is slot @s a damaged C copy that may be @key's?
 *
 * True iff @s is in state C and either its ctl names fingerprint @fp and
 * it fails its checksum, or it holds @key's bytes under another
 * fingerprint or with a bad checksum.  Such a slot is re-read, and evicted
 * if it stays so; a reader never takes it for a hit.
 */
bool scalio_slot_torn(const struct scalio_slot *s, u64 epoch, const u8 *key,
		      u32 klen, u16 fp);

enum scalio_lookup {
	SCALIO_LOOKUP_HIT,	/* @idx: valid C slot of the key */
	SCALIO_LOOKUP_RECLAIM,	/* @idx: an expired B or D with the key's fp */
	SCALIO_LOOKUP_BUSY,	/* @idx: a live B slot with the key's fp */
	SCALIO_LOOKUP_RETIRED,	/* @idx: a C of the key's fp, older epoch */
	SCALIO_LOOKUP_TORN,	/* a C slot scalio_slot_torn() for the key */
	SCALIO_LOOKUP_MISS,	/* none of the above */
};

/**
 * scalio_block_lookup() - step 1/2 of GET: classify a block for a key
 * @v:		block copy
 * @key, @klen:	the key
 * @fp:		its fingerprint
 * @now:	target clock (estimate)
 * @idx:	out, the slot concerned (HIT/RECLAIM/BUSY)
 *
 * RECLAIM: the caller must CAS slot @idx from the ctl in @v to
 * scalio_ctl_release() of it before it may treat the key as absent, then
 * read the block again.  RETIRED: the same CAS (an eviction): the slot
 * was filled before the target retired what the block cached, and would
 * make the double-read of a fill of the key fail for as long as it stays.  An expired lock is never skipped: only the
 * version bump of a CAS makes its late owner's publish fail.
 */
enum scalio_lookup scalio_block_lookup(const struct scalio_block_view *v,
				       const u8 *key, u32 klen, u16 fp,
				       u64 now, u32 *idx);

/**
 * scalio_victim_choose() - step 3 of GET: choose a slot to lock
 * @v:		block copy
 * @now:	target clock
 * @idx:	out
 *
 * Preference: an A slot (lowest index), else the C slot with the oldest
 * last_ts, else a B or D slot whose lease has expired (oldest deadline).
 * Locking an expired B or D is itself the reclaim CAS (the version bump).
 *
 * Return: true if a victim was found (all slots live-locked otherwise).
 */
bool scalio_victim_choose(const struct scalio_block_view *v, u64 now,
			  u32 *idx);

enum scalio_collision {
	SCALIO_COLL_NONE,	/* nobody else holds or caches the key */
	SCALIO_COLL_YES,	/* release our lock and retry */
	SCALIO_COLL_RECLAIM,	/* @idx: an expired B of our fp: reclaim */
};

/**
 * scalio_block_collision() - step 4 of GET: the double-read check
 * @v:		fresh block copy
 * @mine:	our slot
 * @my_ctl:	the ctl value our lock CAS installed
 * @key, @klen, @fp: our key
 * @now:	target clock (estimate)
 * @idx:	out (RECLAIM): the expired slot
 *
 * Another B with our fingerprint is a collision whatever its lease: a
 * late filler holding it may still publish.  When it has expired the
 * caller may instead reclaim it (CAS to scalio_ctl_release() of the ctl in
 * @v) and, if that CAS succeeds, repeat the double-read while still
 * holding its own lock; a failed CAS means the slot changed: release.
 *
 * Return: YES if our slot no longer holds @my_ctl, or another slot holds
 * the key occupied (a live B with the same fp, a valid or torn C that may
 * be the key's); else RECLAIM if an expired B with the same fp exists;
 * else NONE.
 */
enum scalio_collision scalio_block_collision(const struct scalio_block_view *v,
					     u32 mine, u64 my_ctl,
					     const u8 *key, u32 klen, u16 fp,
					     u64 now, u32 *idx);

/**
 * scalio_invalidate_next() - writer's step 3: next slot to invalidate
 * @v:		block copy read after the write was durable
 * @key, @klen, @fp: the written key
 * @start:	first slot index to consider
 * @idx:	out: slot to CAS
 * @new_ctl:	out: the value to CAS it to (B -> D, C -> A)
 *
 * Considers B slots with the key's fingerprint (their key may not be
 * written yet) and C slots holding the key (checksum not required: a torn
 * copy of a C slot of the key must still be invalidated).  A NULL @key
 * names every B and C slot of the block: the sweep of a client that lost
 * track of which keys it still had to invalidate.
 *
 * Return: true if a slot needs invalidating; false when none is left.
 */
bool scalio_invalidate_next(const struct scalio_block_view *v,
			    const u8 *key, u32 klen, u16 fp, u32 start,
			    u32 *idx, u64 *new_ctl);

/**
 * scalio_slot_csum_tok() - checksum of a slot published with a fill token
 * @ctl:	the whole C-state ctl word the slot is published with
 *		(scalio_ctl_publish_tok() of the filler's lock)
 * @epoch:	the block epoch the filler read before its seg READ (0: not
 *		bound, as hosts that predate SCALIO_F_BLOCK_EPOCH sum)
 * @key, @klen:	the key
 * @value, @vlen: the value
 *
 * Binds all 64 bits of @ctl (version, owner, lease deadline, fingerprint),
 * not only the version: a filler's late value WRITE validates only under
 * the C word of its own fill, never under one published by another fill
 * whose version wrapped to the same 20 bits.
 */
u32 scalio_slot_csum_tok(u64 ctl, u64 epoch, const u8 *key, u32 klen,
			 const u8 *value, u32 vlen);

/* The ctl values of the protocol's transitions (all bump the version). */
u64 scalio_ctl_lock(u64 old, u32 owner, u16 lease_deadline, u16 fp);
u64 scalio_ctl_renew(u64 locked, u16 lease_deadline);	/* B -> B */
u64 scalio_ctl_publish(u64 locked);	/* B -> C */
u64 scalio_ctl_publish_tok(u64 locked);	/* B -> C, fill token kept */
u64 scalio_ctl_release(u64 cur);	/* B -> A, D -> A, C -> A */
u64 scalio_ctl_invalidate(u64 cur);	/* B -> D, C -> A */

#endif /* _SCALIO_SLOT_H */
