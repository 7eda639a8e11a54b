// SPDX-License-Identifier: GPL-2.0
/*
 * GET served by the target (the RPC path): look a key up on the SSD that
 * owns its bucket, for hosts that do not read the SSD themselves.
 *
 * Lock-free against the commit kthread and the cleaner: the seg word is
 * read from the index, the segment read and checked, and a value stored
 * apart read from its extent and checked against the record's pointer; a
 * segment or extent rewritten meanwhile fails its check or shows a changed
 * seg word, and the lookup is tried again.
 */
#define pr_fmt(fmt) "scalio-target: get: " fmt

#include <linux/mm.h>
#include <linux/slab.h>

#include "scalio_store.h"

/*
 * A value extent failed its read or check under an unchanged seg word:
 * the record points to damage (or, forged, outside the log).  Say which.
 */
static void scalio_tgt_get_val_failed(struct scalio_tgt_store *st,
				      struct scalio_tgt_ssd *ssd, u32 bucket,
				      const struct scalio_vref *v, int err)
{
	const char *why = err == -EUCLEAN ? "points outside the log" :
			  err == -EIO ? "could not be read" : "is damaged";

	pr_warn_ratelimited("%s: ssd %u: bucket %u: value extent at byte %llu (%u bytes) %s: GET fails with EIO\n",
			    st->name, ssd->index, bucket, v->pos, v->len, why);
}

int scalio_tgt_store_read(struct scalio_tgt_store *st, const u8 *key, u32 klen,
			  u8 *value, u32 *vlen, u64 *segp)
{
	u32 bucket, len, buf_units = 0, tries;
	struct scalio_tgt_ssd *ssd;
	struct scalio_rec rec;
	struct scalio_vref v;
	const u8 *val;
	void *buf = NULL;
	u64 seg;
	int ret = -EIO;

	*segp = 0;
	if (!klen || klen > SCALIO_KEY_MAX)
		return -EINVAL;
	bucket = scalio_hash_bucket(scalio_key_hash(st->hash_seed, key, klen),
				  st->nr_buckets);
	ssd = st->ssds[scalio_bucket_ssd(bucket, st->nr_ssds)];

	/*
	 * The segment may move under us (a commit or the cleaner rewrites
	 * the bucket and reuses the units): the header check catches that,
	 * and a changed seg word says to try again.
	 */
	for (tries = 0; tries < 16; tries++) {
		seg = scalio_tgt_index_get_seg(&st->index, bucket);
		*segp = seg;
		if (!seg) {
			ret = -ENOENT;
			break;
		}
		len = scalio_seg_len(seg);
		if (scalio_seg_ssd(seg) != ssd->index || !len) {
			ret = -EIO;
			break;
		}
		/* Room for an extent after the segment. */
		if (len > buf_units) {
			kvfree(buf);
			buf = kvmalloc((size_t)(len + SCALIO_VAL_READ_UNITS) <<
				       SCALIO_UNIT_SHIFT, GFP_KERNEL);
			if (!buf) {
				buf_units = 0;
				ret = -ENOMEM;
				break;
			}
			buf_units = len;
		}
		ret = scalio_tgt_seg_read(ssd, seg, buf, len);
		if (!ret)
			ret = scalio_seg_check(buf,
					       ((size_t)len << SCALIO_UNIT_SHIFT) -
					       scalio_seg_offset(seg),
					       bucket, scalio_seg_gen(seg));
		if (ret) {
			ret = -EIO;
			if (scalio_tgt_index_get_seg(&st->index, bucket) != seg)
				continue;
			pr_warn_ratelimited("%s: ssd %u: bucket %u: segment at unit %u (seg %llx) does not read back intact: GET fails with EIO\n",
					    st->name, ssd->index, bucket,
					    scalio_seg_unit(seg), seg);
			break;
		}
		ret = scalio_seg_find(buf, key, klen, &rec);
		if (ret) {
			if (ret != -ENOENT)
				ret = -EIO;
			break;
		}
		val = rec.value;
		*vlen = rec.vlen;
		if (scalio_rec_vref(&rec, &v)) {
			/* The cleaner may have moved it: as for the segment. */
			ret = scalio_tgt_val_read(ssd, key, klen, &v,
						  buf + ((size_t)len <<
							 SCALIO_UNIT_SHIFT),
						  &val);
			if (ret) {
				if (scalio_tgt_index_get_seg(&st->index,
							     bucket) != seg) {
					ret = -EIO;
					continue;
				}
				scalio_tgt_get_val_failed(st, ssd, bucket, &v,
							  ret);
				ret = -EIO;
				break;
			}
			*vlen = v.len;
		}
		memcpy(value, val, *vlen);
		break;
	}
	kvfree(buf);
	return ret;
}
