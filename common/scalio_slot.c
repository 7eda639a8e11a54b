// SPDX-License-Identifier: GPL-2.0
/*
 * The slot consistency protocol (Documentation/protocol.rst) as pure functions
 * over a host's copy of a hash block.  The copy may be torn: one RDMA READ
 * is not atomic against other clients' CASes and WRITEs, so every word of
 * a slot may come from a different moment.  Only the ctl word itself is
 * read atomically (it is an aligned 8-byte word).  Hence:
 *
 *  - a C slot is trusted only when its checksum matches the version of the
 *    ctl word read with it (scalio_slot_valid());
 *  - whenever a copy is ambiguous, the functions pick the answer that
 *    costs a retry or a cache miss, never the one that could return or
 *    keep a stale value.
 *
 * Leases: a B or D slot whose lease deadline has passed does not make a
 * reader wait and may be chosen as a victim, but it is never treated as
 * absent until someone has reclaimed it by CAS: the version bump is what
 * makes the late owner's publish CAS fail (its own lease check is not
 * atomic with that CAS).  Lookup and the double-read therefore name such a
 * slot (RECLAIM) instead of skipping it.
 *
 * Pure logic: compiled into both modules and the user-space tests.
 */
#include "scalio_slot.h"

#define SCALIO_CTL_VER_MASK	((1U << SCALIO_CTL_VER_BITS) - 1)

/**
 * scalio_slot_csum() - checksum a filler stores before publishing a slot
 * @version:	version of the C-state ctl word the slot is published with
 * @key:	the key
 * @klen:	its length
 * @value:	the value
 * @vlen:	its length
 *
 * The checksum is ~crc32c(~0, S) over the byte sequence S =
 *   le32(version & 0xfffff) || le32(klen) || le32(vlen) ||
 *   key[0..klen) || value[0..vlen)
 * (12 + klen + vlen bytes).  Binding the version makes a copy whose ctl
 * and contents come from different fills fail the check.
 */
u32 scalio_slot_csum(u32 version, const u8 *key, u32 klen,
		     const u8 *value, u32 vlen)
{
	__le32 hdr[3];
	u32 crc;

	hdr[0] = cpu_to_le32(version & SCALIO_CTL_VER_MASK);
	hdr[1] = cpu_to_le32(klen);
	hdr[2] = cpu_to_le32(vlen);
	crc = crc32c(~0U, hdr, sizeof(hdr));
	if (klen)
		crc = crc32c(crc, key, klen);
	if (vlen)
		crc = crc32c(crc, value, vlen);
	return ~crc;
}

/*
 * scalio_slot_csum_tok() - checksum of a slot published with a fill token
 *
 * See scalio_slot.h.  ~crc32c(~0, S) over S = le64(@ctl) || [le64(@epoch)
 * if @epoch != 0] || le32(klen) || le32(vlen) || key || value.  The token is the lock's owner and lease
 * deadline, which scalio_ctl_publish_tok() keeps in the C word: a stale
 * filler (its lease long gone, its slot's version wrapped while it stalled)
 * binds its own owner and deadline, so its WRITE cannot complete a C word
 * that another fill published.  Two fills of one slot can only share a
 * token if they share the owner, hence the host-side rule that a client
 * never installs a lock word equal to one of its own fills still in flight.
 */
u32 scalio_slot_csum_tok(u64 ctl, u64 epoch, const u8 *key, u32 klen,
			 const u8 *value, u32 vlen)
{
	__le64 word = cpu_to_le64(ctl), ep = cpu_to_le64(epoch);
	__le32 lens[2];
	u32 crc;

	lens[0] = cpu_to_le32(klen);
	lens[1] = cpu_to_le32(vlen);
	crc = crc32c(~0U, &word, sizeof(word));
	/* Epoch 0 adds nothing: the sum of hosts that predate the epoch. */
	if (epoch)
		crc = crc32c(crc, &ep, sizeof(ep));
	crc = crc32c(crc, lens, sizeof(lens));
	if (klen)
		crc = crc32c(crc, key, klen);
	if (vlen)
		crc = crc32c(crc, value, vlen);
	return ~crc;
}

static bool scalio_slot_has_key(const struct scalio_slot *s, const u8 *key,
				u32 klen)
{
	return s->klen == klen && klen && klen <= SCALIO_KEY_MAX &&
	       !memcmp(s->key, key, klen);
}

/* Was C slot @s filled under another epoch of its block than @epoch? */
static bool scalio_slot_stale(const struct scalio_slot *s, u64 epoch)
{
	return le16_to_cpu(s->etag) != (u16)epoch;
}

bool scalio_slot_valid(const struct scalio_slot *s, u64 epoch, const u8 *key,
		       u32 klen)
{
	u64 ctl = le64_to_cpu(s->ctl);

	if (scalio_ctl_state(ctl) != SCALIO_SLOT_C)
		return false;
	/*
	 * Filled under an older epoch of the block: the target has retired
	 * what it caches since.  A tag that matches after 2^16 epochs is
	 * caught by the checksum, which binds the whole epoch.
	 */
	if (scalio_slot_stale(s, epoch))
		return false;
	if (!s->klen || s->klen > SCALIO_KEY_MAX ||
	    s->vlen > SCALIO_INLINE_MAX)
		return false;
	if (key && !scalio_slot_has_key(s, key, klen))
		return false;
	/*
	 * A C word naming an owner was published by scalio_ctl_publish_tok()
	 * (scalio_ctl_publish() clears the owner): its checksum binds the
	 * whole word.
	 */
	if (scalio_ctl_owner(ctl))
		return le32_to_cpu(s->csum) ==
		       scalio_slot_csum_tok(ctl, epoch, s->key, s->klen,
					    s->value, s->vlen);
	return le32_to_cpu(s->csum) ==
	       scalio_slot_csum(scalio_ctl_version(ctl), s->key, s->klen,
				s->value, s->vlen);
}

/*
 * scalio_slot_torn() - is slot @s a damaged C copy that may be @key's?
 *
 * See scalio_slot.h.  A C slot that names the key's fingerprint and fails
 * its checksum, or one that holds the key's bytes but is no consistent copy
 * of the key: fails its checksum, or names another fingerprint.  The
 * latter is what a filler whose lease ran out leaves when its late WRITE
 * lands on a slot published again since at the same 20-bit version (after
 * a wrap): the checksum then matches, the fingerprint does not.
 */
bool scalio_slot_torn(const struct scalio_slot *s, u64 epoch, const u8 *key,
		      u32 klen, u16 fp)
{
	u64 ctl = le64_to_cpu(s->ctl);

	if (scalio_ctl_state(ctl) != SCALIO_SLOT_C)
		return false;
	if (scalio_ctl_fp(ctl) == fp)
		return !scalio_slot_valid(s, epoch, NULL, 0);
	return scalio_slot_has_key(s, key, klen);
}

/* Does a B or D slot still hold its lease at @now? */
static bool scalio_ctl_live(u64 ctl, u64 now)
{
	return !scalio_lease_expired(now, scalio_ctl_lease(ctl));
}

/*
 * scalio_block_lookup() - step 1/2 of GET: classify a block for a key
 *
 * See scalio_slot.h.  Precedence: HIT (a consistent C copy of the key is
 * a linearizable answer whatever else the block holds; it must name the
 * key's fingerprint too), then RECLAIM (an
 * expired B or D of the key's fingerprint: a dead lock is cleared by the
 * first GET that meets it, before it waits on any other), then BUSY (a
 * live filler of the key's fingerprint), then RETIRED (a C slot of the
 * key's fingerprint filled under an older epoch of the block), then TORN
 * (scalio_slot_torn()), then MISS.  A live D is a miss: its owner's
 * publish CAS cannot succeed.
 */
enum scalio_lookup scalio_block_lookup(const struct scalio_block_view *v,
				       const u8 *key, u32 klen, u16 fp,
				       u64 now, u32 *idx)
{
	u64 epoch = scalio_view_epoch(v);
	u32 i, busy = 0, stale = 0, retired = 0;
	bool torn = false, have_busy = false, have_stale = false;
	bool have_retired = false;

	for (i = 0; i < v->slots; i++) {
		const struct scalio_slot *s = scalio_view_slot(v, i);
		u64 ctl = le64_to_cpu(s->ctl);

		switch (scalio_ctl_state(ctl)) {
		case SCALIO_SLOT_C:
			if (scalio_ctl_fp(ctl) != fp) {
				if (scalio_slot_torn(s, epoch, key, klen, fp))
					torn = true;
				break;
			}
			if (scalio_slot_valid(s, epoch, key, klen)) {
				*idx = i;
				return SCALIO_LOOKUP_HIT;
			}
			if (scalio_slot_stale(s, epoch)) {
				if (!have_retired) {
					have_retired = true;
					retired = i;
				}
			} else if (scalio_slot_torn(s, epoch, key, klen, fp)) {
				torn = true;
			}
			break;
		case SCALIO_SLOT_B:
		case SCALIO_SLOT_D:
			if (scalio_ctl_fp(ctl) != fp)
				break;
			if (!scalio_ctl_live(ctl, now)) {
				if (!have_stale) {
					have_stale = true;
					stale = i;
				}
			} else if (scalio_ctl_state(ctl) == SCALIO_SLOT_B &&
				   !have_busy) {
				have_busy = true;
				busy = i;
			}
			break;
		default:
			break;
		}
	}
	if (have_stale) {
		*idx = stale;
		return SCALIO_LOOKUP_RECLAIM;
	}
	if (have_busy) {
		*idx = busy;
		return SCALIO_LOOKUP_BUSY;
	}
	if (have_retired) {
		*idx = retired;
		return SCALIO_LOOKUP_RETIRED;
	}
	return torn ? SCALIO_LOOKUP_TORN : SCALIO_LOOKUP_MISS;
}

bool scalio_victim_choose(const struct scalio_block_view *v, u64 now,
			  u32 *idx)
{
	u32 i, best_c = 0, best_x = 0;
	bool have_c = false, have_x = false;
	u64 best_ts = 0;
	u16 best_lease = 0;

	for (i = 0; i < v->slots; i++) {
		const struct scalio_slot *s = scalio_view_slot(v, i);
		u64 ctl = le64_to_cpu(s->ctl);
		u64 ts = le64_to_cpu(s->last_ts);
		u16 lease = scalio_ctl_lease(ctl);

		switch (scalio_ctl_state(ctl)) {
		case SCALIO_SLOT_A:
			*idx = i;
			return true;
		case SCALIO_SLOT_C:
			if (!have_c || ts < best_ts) {
				have_c = true;
				best_c = i;
				best_ts = ts;
			}
			break;
		case SCALIO_SLOT_B:
		case SCALIO_SLOT_D:
			if (scalio_ctl_live(ctl, now))
				break;
			/* Oldest deadline first, wrap-safe like the lease. */
			if (!have_x || (s16)(lease - best_lease) < 0) {
				have_x = true;
				best_x = i;
				best_lease = lease;
			}
			break;
		}
	}
	if (have_c) {
		*idx = best_c;
		return true;
	}
	if (have_x) {
		*idx = best_x;
		return true;
	}
	return false;
}

/*
 * scalio_block_collision() - step 4 of GET: the double-read check
 *
 * See scalio_slot.h.  Besides a B of our fingerprint and a valid C of our
 * key, a C slot that fails its checksum and may hold our key (same
 * fingerprint or same key bytes) counts too: a torn copy cannot prove the
 * key is not cached, and releasing is always safe.  A valid C of another
 * key that merely shares our fingerprint does not count, or the key could
 * never be cached while that one is.  A D slot does not count: its owner's
 * publish CAS cannot succeed.
 */
enum scalio_collision scalio_block_collision(const struct scalio_block_view *v,
					     u32 mine, u64 my_ctl,
					     const u8 *key, u32 klen, u16 fp,
					     u64 now, u32 *idx)
{
	bool have_stale = false;
	u32 i;

	if (mine >= v->slots ||
	    le64_to_cpu(scalio_view_slot(v, mine)->ctl) != my_ctl)
		return SCALIO_COLL_YES;
	for (i = 0; i < v->slots; i++) {
		const struct scalio_slot *s = scalio_view_slot(v, i);
		u64 ctl = le64_to_cpu(s->ctl);

		if (i == mine)
			continue;
		switch (scalio_ctl_state(ctl)) {
		case SCALIO_SLOT_B:
			if (scalio_ctl_fp(ctl) != fp)
				break;
			if (scalio_ctl_live(ctl, now))
				return SCALIO_COLL_YES;
			if (!have_stale) {
				have_stale = true;
				*idx = i;
			}
			break;
		case SCALIO_SLOT_C:
			if (scalio_slot_valid(s, scalio_view_epoch(v), NULL, 0)) {
				if (scalio_slot_has_key(s, key, klen))
					return SCALIO_COLL_YES;
			} else if (scalio_ctl_fp(ctl) == fp ||
				   scalio_slot_has_key(s, key, klen)) {
				return SCALIO_COLL_YES;
			}
			break;
		default:
			break;
		}
	}
	return have_stale ? SCALIO_COLL_RECLAIM : SCALIO_COLL_NONE;
}

/*
 * scalio_invalidate_next() - writer's step 3: next slot to invalidate
 *
 * See scalio_slot.h.  B slots of the key's fingerprint are invalidated
 * whatever their lease (a late filler could otherwise still publish what
 * it read before the write).  C slots are matched by key bytes OR by
 * fingerprint: the NIC may have copied the key bytes before the ctl word,
 * from a moment when the slot still held an earlier key, so the key bytes
 * of a copy cannot prove that a C slot is not ours.  Invalidating another
 * key's C slot costs that key one cache miss.  A NULL @key matches every B
 * and C slot.
 */
bool scalio_invalidate_next(const struct scalio_block_view *v,
			    const u8 *key, u32 klen, u16 fp, u32 start,
			    u32 *idx, u64 *new_ctl)
{
	u32 i;

	for (i = start; i < v->slots; i++) {
		const struct scalio_slot *s = scalio_view_slot(v, i);
		u64 ctl = le64_to_cpu(s->ctl);
		enum scalio_slot_state st = scalio_ctl_state(ctl);

		bool ours = !key || scalio_ctl_fp(ctl) == fp;

		if ((st == SCALIO_SLOT_B && ours) ||
		    (st == SCALIO_SLOT_C &&
		     (ours || scalio_slot_has_key(s, key, klen)))) {
			*idx = i;
			*new_ctl = scalio_ctl_invalidate(ctl);
			return true;
		}
	}
	return false;
}

/**
 * scalio_ctl_lock() - the ctl value that locks a victim slot (-> B)
 * @old:	the victim's current ctl (any state)
 * @owner:	our client id
 * @lease_deadline: target clock value after which the lock may be reclaimed
 * @fp:		fingerprint of the key we fill
 *
 * Nothing of @old is kept except its version, incremented.
 */
u64 scalio_ctl_lock(u64 old, u32 owner, u16 lease_deadline, u16 fp)
{
	return scalio_ctl_make(SCALIO_SLOT_B, scalio_ctl_version(old) + 1,
			       owner, lease_deadline, fp);
}

/**
 * scalio_ctl_renew() - extend a filler's lease (B -> B)
 * @locked:	the filler's current lock
 * @lease_deadline: the new deadline
 *
 * Owner and fingerprint kept, version + 1: a renewal CAS fails once the
 * lock was reclaimed or invalidated, and a reader waiting on the lock sees
 * it change (so it does not take a slow filler for a dead one).
 */
u64 scalio_ctl_renew(u64 locked, u16 lease_deadline)
{
	return scalio_ctl_make(SCALIO_SLOT_B, scalio_ctl_version(locked) + 1,
			       scalio_ctl_owner(locked), lease_deadline,
			       scalio_ctl_fp(locked));
}

/* B -> C: owner and lease cleared, fingerprint kept, version + 1. */
u64 scalio_ctl_publish(u64 locked)
{
	return scalio_ctl_make(SCALIO_SLOT_C, scalio_ctl_version(locked) + 1,
			       0, 0, scalio_ctl_fp(locked));
}

/**
 * scalio_ctl_publish_tok() - B -> C, keeping the fill token
 * @locked:	the filler's lock
 *
 * Owner, lease deadline and fingerprint kept, version + 1.  The filler
 * checksums its value with scalio_slot_csum_tok() of this word, and
 * scalio_slot_valid() checks a C word that names an owner that way.
 */
u64 scalio_ctl_publish_tok(u64 locked)
{
	return scalio_ctl_make(SCALIO_SLOT_C, scalio_ctl_version(locked) + 1,
			       scalio_ctl_owner(locked),
			       scalio_ctl_lease(locked),
			       scalio_ctl_fp(locked));
}

/* B, C or D -> A: everything cleared but the version, + 1. */
u64 scalio_ctl_release(u64 cur)
{
	return scalio_ctl_make(SCALIO_SLOT_A, scalio_ctl_version(cur) + 1,
			       0, 0, 0);
}

/**
 * scalio_ctl_invalidate() - a writer's invalidation of a slot
 * @cur:	the slot's ctl as read
 *
 * B -> D keeps owner, lease and fingerprint (the filler sees its lock
 * turned into D and releases it; if it crashed, the lease tells when others
 * may reclaim it); C -> A.  Both bump the version.  A and D need nothing:
 * @cur is returned unchanged.
 */
u64 scalio_ctl_invalidate(u64 cur)
{
	switch (scalio_ctl_state(cur)) {
	case SCALIO_SLOT_B:
		return scalio_ctl_make(SCALIO_SLOT_D,
				       scalio_ctl_version(cur) + 1,
				       scalio_ctl_owner(cur),
				       scalio_ctl_lease(cur),
				       scalio_ctl_fp(cur));
	case SCALIO_SLOT_C:
		return scalio_ctl_release(cur);
	default:
		return cur;
	}
}
