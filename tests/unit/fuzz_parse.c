// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for every parser that takes bytes from an SSD or the
 * network, plus the slot functions (which take bytes from a remote block
 * copy).  libFuzzer entry point; fuzz_main.c is a standalone driver for
 * builds without libFuzzer.
 *
 * The input is copied into a heap buffer of exactly the length given to
 * the parser, so ASan reports any read beyond what was "received".  After
 * a parser accepts an input, the harness reads everything the accepted
 * length fields claim is there, so a check that lets an inconsistent
 * length through is caught too.  Invariant violations abort().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "common/scalio_format.h"
#include "common/scalio_proto.h"
#include "common/scalio_slot.h"

static volatile u32 sink;
unsigned long fuzz_accepted[FUZZ_NR_TARGETS];
unsigned long fuzz_stage[FUZZ_NR_TARGETS][FUZZ_NR_ST];

/* Count the stages an on-SSD input passed (see fuzz.h). */
static void stage(int t, bool magic, bool crc, bool ok)
{
	fuzz_stage[t][FUZZ_ST_IN]++;
	fuzz_stage[t][FUZZ_ST_MAGIC] += magic;
	fuzz_stage[t][FUZZ_ST_CRC] += magic && crc;
	fuzz_stage[t][FUZZ_ST_OK] += ok;
}

void fuzz_geometry(struct scalio_sb *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->magic = cpu_to_le64(SCALIO_SB_MAGIC);
	sb->version = cpu_to_le32(SCALIO_FORMAT_VERSION);
	sb->nr_ssds = cpu_to_le32(1);
	sb->nr_blocks = cpu_to_le32(FUZZ_NR_OWNED / 4);
	sb->nr_buckets = cpu_to_le32(FUZZ_NR_OWNED);
	sb->nr_units = cpu_to_le64(4096);
	sb->ckpt_units = cpu_to_le64(1);
	sb->log_start = cpu_to_le64(4);
	sb->log_units = cpu_to_le64(4092);
	sb->hash_seed = cpu_to_le64(SCALIO_HASH_SEED);
	scalio_sb_seal(sb);
}

static void touch(const void *p, size_t n)
{
	const u8 *b = p;
	u32 s = 0;

	while (n--)
		s += *b++;
	sink += s;
}

#define FUZZ_ASSERT(c) do {						\
	if (!(c)) {							\
		fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n",	\
			#c, __FILE__, __LINE__);			\
		abort();						\
	}								\
} while (0)

static void fuzz_seg(const u8 *d, size_t n)
{
	struct scalio_rec rec, found;
	u32 pos = 0, nr = 0;
	s64 gen = n ? (d[0] & 1 ? -1 : 2) : -1;
	u8 *buf = malloc(n ? n : 1);
	int ret;

	memcpy(buf, d, n);
	ret = scalio_seg_check(buf, n, 1, gen);
	FUZZ_ASSERT(ret == 0 || ret == -EBADMSG || ret == -ESTALE);
	{
		const struct scalio_seg_hdr *sh = (void *)buf;
		bool magic = n >= sizeof(*sh) &&
			     le32_to_cpu(sh->magic) == SCALIO_SEG_MAGIC;
		u32 len = magic ? le32_to_cpu(sh->len) : 0;

		stage(FUZZ_SEG, magic,
		      len >= sizeof(*sh) && len <= n &&
		      le32_to_cpu(sh->crc) ==
		      scalio_crc(buf, len, offsetof(struct scalio_seg_hdr, crc)),
		      ret == 0);
	}
	if (ret == 0) {
		fuzz_accepted[FUZZ_SEG]++;
		while ((ret = scalio_seg_next(buf, &pos, &rec)) == 1) {
			FUZZ_ASSERT(rec.klen >= 1 && rec.klen <= SCALIO_KEY_MAX);
			FUZZ_ASSERT(rec.vlen <= SCALIO_VALUE_MAX);
			FUZZ_ASSERT(rec.value + rec.vlen <= buf + n);
			touch(rec.key, rec.klen);
			touch(rec.value, rec.vlen);
			/* find returns the first record of that key. */
			FUZZ_ASSERT(scalio_seg_find(buf, rec.key, rec.klen,
						    &found) == 0);
			FUZZ_ASSERT(found.klen == rec.klen &&
				    !memcmp(found.key, rec.key, rec.klen));
			nr++;
		}
		FUZZ_ASSERT(ret == 0);
		FUZZ_ASSERT(nr == le32_to_cpu(((struct scalio_seg_hdr *)buf)->
					      nr_records));
	}
	free(buf);
}

static void fuzz_msg(const u8 *d, size_t n, bool response)
{
	u8 *buf;
	u32 len;
	u16 op;

	if (n > SCALIO_MSG_SIZE + 16)
		n = SCALIO_MSG_SIZE + 16;
	buf = malloc(n ? n : 1);
	memcpy(buf, d, n);
	if (scalio_msg_check(buf, n, response)) {
		free(buf);
		return;
	}
	/* Accepted: everything its fields describe must be in the buffer. */
	fuzz_accepted[response ? FUZZ_MSG_REP : FUZZ_MSG_REQ]++;
	len = n;
	op = le16_to_cpu(((struct scalio_msg_hdr *)buf)->opcode);
	FUZZ_ASSERT(len >= sizeof(struct scalio_msg_hdr) &&
		    len <= SCALIO_MSG_SIZE);
	if (!response && (op == SCALIO_MSG_GET || op == SCALIO_MSG_PUT ||
			  op == SCALIO_MSG_DELETE)) {
		struct scalio_msg_kv_req *m = (void *)buf;

		FUZZ_ASSERT(m->klen >= 1 && m->klen <= SCALIO_KEY_MAX);
		touch(m->key, m->klen);
		touch(m->value, le16_to_cpu(m->vlen));
	} else if (response && le32_to_cpu(((struct scalio_msg_hdr *)buf)->
					   status) == 0) {
		switch (op) {
		case SCALIO_MSG_GET: {
			struct scalio_msg_kv_rep *m = (void *)buf;

			touch(m->value, le16_to_cpu(m->vlen));
			break;
		}
		case SCALIO_MSG_CHUNKS: {
			struct scalio_msg_chunks_rep *m = (void *)buf;

			touch(m->chunk, le32_to_cpu(m->nr) * sizeof(m->chunk[0]));
			break;
		}
		case SCALIO_MSG_SSD_INFO: {
			struct scalio_msg_ssd_info_rep *m = (void *)buf;

			touch(m->nqn, strlen(m->nqn));
			break;
		}
		case SCALIO_MSG_HELLO:
			FUZZ_ASSERT(len == sizeof(struct scalio_msg_hello_rep));
			break;
		case SCALIO_MSG_STATS:
			FUZZ_ASSERT(len == sizeof(struct scalio_msg_stats_rep));
			break;
		}
	}
	free(buf);
}

static void fuzz_fixed(const u8 *d, size_t n, bool sb)
{
	size_t sz = sb ? sizeof(struct scalio_sb) :
			 sizeof(struct scalio_batch_hdr);
	u8 *buf = calloc(1, sz);
	int ret;

	memcpy(buf, d, n < sz ? n : sz);
	if (sb) {
		const struct scalio_sb *p = (void *)buf;

		ret = scalio_sb_check((void *)buf);
		stage(FUZZ_SB, le64_to_cpu(p->magic) == SCALIO_SB_MAGIC,
		      le32_to_cpu(p->crc) ==
		      scalio_crc(p, sz, offsetof(struct scalio_sb, crc)),
		      ret == 0);
		FUZZ_ASSERT(ret == 0 || ret == -ENODATA || ret == -EBADMSG ||
			    ret == -EPROTONOSUPPORT || ret == -ERANGE);
		fuzz_accepted[FUZZ_SB] += !ret;
	} else {
		const struct scalio_batch_hdr *p = (void *)buf;

		ret = scalio_batch_hdr_check((void *)buf, 7);
		FUZZ_ASSERT(ret == 0 || ret == -EBADMSG || ret == -ESTALE);
		stage(FUZZ_BATCH_HDR,
		      le64_to_cpu(p->magic) == SCALIO_BATCH_MAGIC,
		      le32_to_cpu(p->crc) ==
		      scalio_crc(p, sz, offsetof(struct scalio_batch_hdr, crc)),
		      ret == 0);
		fuzz_accepted[FUZZ_BATCH_HDR] += !ret;
	}
	free(buf);
}

static void fuzz_block(const u8 *d, size_t n)
{
	static const u32 slot_choices[] = { 4, 8, 16, 4 };
	struct scalio_block_view v;
	u32 slots, size, idx, i, start, steps;
	u8 key[SCALIO_KEY_MAX], klen;
	u16 fp;
	u64 now, nc, mine;
	u8 *buf;

	if (n < 16)
		return;
	slots = slot_choices[d[0] & 3];
	klen = 1 + d[1] % SCALIO_KEY_MAX;
	fp = d[2] | d[3] << 8;
	now = d[4] | d[5] << 8;
	mine = d[6] % 20;	/* sometimes out of range */
	memset(key, 0, sizeof(key));
	memcpy(key, d + 7, 8);
	d += 16;
	n -= 16;
	size = SCALIO_BLOCK_SIZE(slots);
	buf = calloc(1, size);
	memcpy(buf, d, n < size ? n : size);
	v.buf = buf;
	v.slots = slots;

	switch (scalio_block_lookup(&v, key, klen, fp, now, &idx)) {
	case SCALIO_LOOKUP_HIT:
		fuzz_accepted[FUZZ_BLOCK]++;
		FUZZ_ASSERT(idx < slots);
		FUZZ_ASSERT(scalio_slot_valid(scalio_view_slot(&v, idx),
					      scalio_view_epoch(&v),
					      key, klen));
		break;
	case SCALIO_LOOKUP_BUSY:
		FUZZ_ASSERT(idx < slots);
		break;
	case SCALIO_LOOKUP_RECLAIM: {
		u64 ctl;

		FUZZ_ASSERT(idx < slots);
		ctl = le64_to_cpu(scalio_view_slot(&v, idx)->ctl);
		FUZZ_ASSERT(scalio_ctl_fp(ctl) == fp);
		FUZZ_ASSERT(scalio_ctl_state(ctl) == SCALIO_SLOT_B ||
			    scalio_ctl_state(ctl) == SCALIO_SLOT_D);
		FUZZ_ASSERT(scalio_lease_expired(now, scalio_ctl_lease(ctl)));
		break;
	}
	case SCALIO_LOOKUP_RETIRED: {
		const struct scalio_slot *s;

		/* a C of the key's fingerprint, tagged with another epoch */
		FUZZ_ASSERT(idx < slots);
		s = scalio_view_slot(&v, idx);
		FUZZ_ASSERT(scalio_ctl_state(le64_to_cpu(s->ctl)) ==
			    SCALIO_SLOT_C);
		FUZZ_ASSERT(scalio_ctl_fp(le64_to_cpu(s->ctl)) == fp);
		FUZZ_ASSERT(le16_to_cpu(s->etag) !=
			    (u16)scalio_view_epoch(&v));
		break;
	}
	default:
		break;
	}
	if (scalio_victim_choose(&v, now, &idx)) {
		u64 ctl = le64_to_cpu(scalio_view_slot(&v, idx)->ctl);

		FUZZ_ASSERT(idx < slots);
		FUZZ_ASSERT(scalio_ctl_state(ctl) == SCALIO_SLOT_A ||
			    scalio_ctl_state(ctl) == SCALIO_SLOT_C ||
			    scalio_lease_expired(now, scalio_ctl_lease(ctl)));
	}
	if (mine < slots) {
		idx = ~0U;
		if (scalio_block_collision(&v, mine,
				le64_to_cpu(scalio_view_slot(&v, mine)->ctl),
				key, klen, fp, now, &idx) ==
		    SCALIO_COLL_RECLAIM) {
			u64 ctl;

			FUZZ_ASSERT(idx < slots && idx != mine);
			ctl = le64_to_cpu(scalio_view_slot(&v, idx)->ctl);
			FUZZ_ASSERT(scalio_ctl_state(ctl) == SCALIO_SLOT_B &&
				    scalio_ctl_fp(ctl) == fp);
		}
	} else {
		FUZZ_ASSERT(scalio_block_collision(&v, mine, 0, key, klen,
						   fp, now, &idx) ==
			    SCALIO_COLL_YES);
	}
	/* Applying every invalidation terminates and leaves none. */
	start = 0;
	for (steps = 0; scalio_invalidate_next(&v, key, klen, fp, start,
					       &idx, &nc); steps++) {
		u64 old = le64_to_cpu(scalio_view_slot(&v, idx)->ctl);

		FUZZ_ASSERT(idx >= start && idx < slots && steps < slots);
		FUZZ_ASSERT(scalio_ctl_state(nc) == SCALIO_SLOT_A ||
			    scalio_ctl_state(nc) == SCALIO_SLOT_D);
		FUZZ_ASSERT(scalio_ctl_version(nc) ==
			    ((scalio_ctl_version(old) + 1) & 0xfffff));
		((struct scalio_slot *)scalio_view_slot(&v, idx))->ctl =
			cpu_to_le64(nc);
		start = idx + 1;
	}
	for (i = 0; i < slots; i++)
		touch(scalio_view_slot(&v, i), SCALIO_SLOT_SIZE);
	free(buf);
}

/* Records described by the input must build, check and read back. */
static void fuzz_build(const u8 *d, size_t n)
{
	static u64 words[4 * SCALIO_UNIT_SIZE / 8];
	static u8 val[SCALIO_VALUE_MAX];
	static u16 klens[4 * SCALIO_UNIT_SIZE], vlens[4 * SCALIO_UNIT_SIZE];
	u8 *seg = (u8 *)words;
	struct scalio_seg_builder b;
	struct scalio_rec rec;
	u32 klen, vlen, units, nr = 0, cap, pos = 0, i;
	u8 key[SCALIO_KEY_MAX];
	int ret;

	if (n < 2)
		return;
	cap = (1 + d[0] % 4) * SCALIO_UNIT_SIZE;
	d++;
	n--;
	scalio_seg_build_init(&b, seg, cap);
	while (n >= 3) {
		klen = d[0] & 0x3f;
		vlen = (d[1] | d[2] << 8) & 0x1fff;
		d += 3;
		n -= 3;
		memset(key, (u8)nr, sizeof(key));
		memset(val, (u8)~nr, sizeof(val));
		ret = scalio_seg_build_add(&b, key, klen, val, vlen);
		if (!klen || klen > SCALIO_KEY_MAX ||
		    vlen > SCALIO_VALUE_MAX) {
			FUZZ_ASSERT(ret == -EINVAL);
			continue;
		}
		FUZZ_ASSERT(ret == 0 || ret == -ENOSPC);
		if (ret)
			break;
		klens[nr] = klen;
		vlens[nr] = vlen;
		nr++;
	}
	units = scalio_seg_build_finish(&b, 42, 0x100005);
	FUZZ_ASSERT(units >= 1 && units * SCALIO_SECTOR_SIZE <= cap);
	FUZZ_ASSERT(b.nr == nr);
	FUZZ_ASSERT(scalio_seg_check(seg, units * SCALIO_SECTOR_SIZE, 42,
				     0x100005 & SCALIO_SEG_GEN_MASK) == 0);
	FUZZ_ASSERT(scalio_seg_check(seg, units * SCALIO_SECTOR_SIZE, 43,
				     0x100005 & SCALIO_SEG_GEN_MASK) == -ESTALE);
	for (i = 0; i < nr; i++) {
		FUZZ_ASSERT(scalio_seg_next(seg, &pos, &rec) == 1);
		FUZZ_ASSERT(rec.klen == klens[i] && rec.vlen == vlens[i]);
		FUZZ_ASSERT(rec.klen == 0 || (rec.key[0] == (u8)i &&
				rec.key[rec.klen - 1] == (u8)i));
		FUZZ_ASSERT(rec.vlen == 0 || (rec.value[0] == (u8)~i &&
				rec.value[rec.vlen - 1] == (u8)~i));
	}
	FUZZ_ASSERT(scalio_seg_next(seg, &pos, &rec) == 0);
	fuzz_accepted[FUZZ_BUILD] += nr > 0;
}

/* Recovery: a checkpoint slot of the fuzz geometry. */
static void fuzz_ckpt(const u8 *d, size_t n)
{
	size_t sz = scalio_ckpt_bytes(FUZZ_NR_OWNED);
	struct scalio_ckpt_hdr *h = calloc(1, sz);
	const struct scalio_ckpt_entry *e = (const void *)(h + 1);
	struct scalio_sb sb;
	u32 i;
	int ret;

	fuzz_geometry(&sb);
	memcpy(h, d, n < sz ? n : sz);
	ret = scalio_ckpt_check(h, &sb, FUZZ_NR_OWNED);
	FUZZ_ASSERT(ret == 0 || ret == -ENODATA || ret == -EBADMSG ||
		    ret == -ERANGE);
	stage(FUZZ_CKPT, le64_to_cpu(h->magic) == SCALIO_CKPT_MAGIC,
	      le32_to_cpu(h->nr_entries) == FUZZ_NR_OWNED &&
	      le32_to_cpu(h->crc) ==
	      scalio_crc(h, sz, offsetof(struct scalio_ckpt_hdr, crc)),
	      ret == 0);
	if (!ret) {
		fuzz_accepted[FUZZ_CKPT]++;
		/* What recovery relies on once a checkpoint passes. */
		FUZZ_ASSERT(le64_to_cpu(h->log_tail) >= 4 &&
			    le64_to_cpu(h->log_tail) < 4096);
		for (i = 0; i < FUZZ_NR_OWNED; i++) {
			u64 w = le64_to_cpu(e[i].seg);

			FUZZ_ASSERT(!w || (scalio_seg_unit(w) >= 4 &&
					   scalio_seg_len(w) &&
					   scalio_seg_unit(w) +
					   scalio_seg_len(w) <= 4096));
		}
	}
	free(h);
}

/* Recovery: a whole batch read from the log (seq 7 at unit 100). */
static void fuzz_batch(const u8 *d, size_t n)
{
	u32 avail = n / SCALIO_UNIT_SIZE, need = 0, sector, sectors, nr = 0;
	const struct scalio_seg_hdr *sh;
	struct scalio_batch_iter it;
	struct scalio_sb sb;
	u8 *buf;
	int ret;

	if (!avail)
		avail = 1;
	buf = calloc(avail, SCALIO_UNIT_SIZE);
	memcpy(buf, d, n < (size_t)avail * SCALIO_UNIT_SIZE ? n :
	       (size_t)avail * SCALIO_UNIT_SIZE);
	fuzz_geometry(&sb);
	ret = scalio_batch_check(buf, avail, FUZZ_BATCH_SEQ, &sb,
				 FUZZ_BATCH_POS, &need);
	FUZZ_ASSERT(ret > 0 || ret == -EAGAIN || ret == -EBADMSG ||
		    ret == -ESTALE || ret == -EUCLEAN);
	{
		const struct scalio_batch_hdr *bh = (void *)buf;

		stage(FUZZ_BATCH, le64_to_cpu(bh->magic) == SCALIO_BATCH_MAGIC,
		      le32_to_cpu(bh->crc) ==
		      scalio_crc(bh, sizeof(*bh),
				 offsetof(struct scalio_batch_hdr, crc)),
		      ret > 0);
	}
	if (ret == -EAGAIN)
		FUZZ_ASSERT(need > avail && need <= SCALIO_BATCH_MAX_UNITS);
	if (ret > 0) {
		fuzz_accepted[FUZZ_BATCH]++;
		FUZZ_ASSERT((u32)ret <= avail);
		/* Replay walks the segments: each must check out again. */
		scalio_batch_iter_init(&it, buf);
		while (scalio_batch_next_seg(&it, &sh, &sector, &sectors)) {
			struct scalio_rec rec;
			u32 pos = 0;

			/* Inside the batch, after its header sector. */
			FUZZ_ASSERT(sector >= 1 && sectors >= 1 &&
				    sector + sectors <= (u32)ret *
				    SCALIO_SECTORS_PER_UNIT);
			FUZZ_ASSERT(scalio_seg_check(sh, (size_t)sectors *
						     SCALIO_SECTOR_SIZE,
						     le32_to_cpu(sh->bucket),
						     FUZZ_BATCH_SEQ &
						     SCALIO_SEG_GEN_MASK) == 0);
			while (scalio_seg_next(sh, &pos, &rec) == 1)
				touch(rec.value, rec.vlen);
			nr++;
		}
		FUZZ_ASSERT(nr == le32_to_cpu(((struct scalio_batch_hdr *)buf)->
					      nr_segs));
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % FUZZ_NR_TARGETS) {
	case FUZZ_SEG:
		fuzz_seg(data + 1, size - 1);
		break;
	case FUZZ_MSG_REQ:
		fuzz_msg(data + 1, size - 1, false);
		break;
	case FUZZ_MSG_REP:
		fuzz_msg(data + 1, size - 1, true);
		break;
	case FUZZ_SB:
		fuzz_fixed(data + 1, size - 1, true);
		break;
	case FUZZ_BATCH_HDR:
		fuzz_fixed(data + 1, size - 1, false);
		break;
	case FUZZ_BLOCK:
		fuzz_block(data + 1, size - 1);
		break;
	case FUZZ_BUILD:
		fuzz_build(data + 1, size - 1);
		break;
	case FUZZ_CKPT:
		fuzz_ckpt(data + 1, size - 1);
		break;
	case FUZZ_BATCH:
		fuzz_batch(data + 1, size - 1);
		break;
	}
	return 0;
}
