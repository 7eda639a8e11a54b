// SPDX-License-Identifier: GPL-2.0
/*
 * Standalone driver for fuzz_parse.c when libFuzzer is not used: replays
 * a built-in corpus of valid inputs (one or more per target) and then N
 * pseudo-random mutations of them (bit flips, byte sets, truncation,
 * extension, splices), with a fixed seed so that runs are reproducible.
 *
 *   fuzz_parse [--runs N] [--seed S] [--corpus DIR]
 *                                         KTAP result on stdout; the files
 *                                         of DIR are seeds too
 *   fuzz_parse --write-corpus DIR         seed files for libFuzzer
 *   fuzz_parse FILE...                    replay files (crash reproducers)
 *
 * Most mutated inputs of the on-SSD targets get their crcs re-sealed
 * (reseal()), so that the field checks behind the crc are reached; the
 * run prints, per target, how many inputs had the magic, a good crc, and
 * were accepted.
 *
 * Any parser bug aborts the process (ASan, UBSan or an invariant check).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "common/scalio_format.h"
#include "common/scalio_proto.h"
#include "common/scalio_slot.h"

#define FUZZ_MAX_INPUT	(SCALIO_MSG_SIZE + 4 * SCALIO_UNIT_SIZE)
#define MAX_SEEDS	128

struct seed {
	u8	*data;
	size_t	len;
};

static struct seed seeds[MAX_SEEDS];
static int nr_seeds;
static u64 rng_state = 0x5ca1105ca1105ca1ULL;

static u64 rnd(void)
{
	u64 x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static void add_seed(u8 target, const void *body, size_t len)
{
	struct seed *s;

	if (nr_seeds == MAX_SEEDS || len + 1 > FUZZ_MAX_INPUT)
		return;
	s = &seeds[nr_seeds++];

	s->data = malloc(len + 1);
	s->data[0] = target;
	memcpy(s->data + 1, body, len);
	s->len = len + 1;
}

static void make_seeds(void)
{
	static u64 w[FUZZ_MAX_INPUT / 8];
	u8 *b = (u8 *)w;
	struct scalio_seg_builder sb;
	struct scalio_msg_hdr *h = (void *)b;
	struct scalio_sb *super = (void *)b;
	struct scalio_batch_hdr *bh = (void *)b;
	struct scalio_slot *s;
	u32 units, i, op;
	u8 val[300];

	/* A segment with a few records (block 1, generation 2). */
	memset(val, 'v', sizeof(val));
	scalio_seg_build_init(&sb, b, 2 * SCALIO_UNIT_SIZE);
	scalio_seg_build_add(&sb, (const u8 *)"alpha", 5, val, 10);
	scalio_seg_build_add(&sb, (const u8 *)"b", 1, NULL, 0);
	scalio_seg_build_add(&sb, (const u8 *)"gamma-gamma", 11, val, 300);
	units = scalio_seg_build_finish(&sb, 1, 2);
	/* The harness takes gen -1 when the first byte is odd: magic 'S'. */
	add_seed(FUZZ_SEG, b, sb.len);
	add_seed(FUZZ_SEG, b, units * SCALIO_SECTOR_SIZE);

	/* Requests and responses of every opcode. */
	for (op = 1; op < SCALIO_MSG_OP_MAX; op++) {
		struct scalio_msg_kv_req *kq = (void *)b;
		struct scalio_msg_kv_rep *kr = (void *)b;
		u32 len = sizeof(*h);

		memset(b, 0, 1024);
		if (op == SCALIO_MSG_CHUNKS || op == SCALIO_MSG_SSD_INFO)
			len = 32;
		if (op == SCALIO_MSG_ADMIT) {
			len = sizeof(struct scalio_msg_admit_req);
			strcpy(((struct scalio_msg_admit_req *)b)->hostnqn,
			       "nqn.x:host1");
		}
		if (op >= SCALIO_MSG_GET && op <= SCALIO_MSG_DELETE) {
			kq->klen = 3;
			memcpy(kq->key, "abc", 3);
			len = sizeof(*kq);
			if (op == SCALIO_MSG_PUT) {
				kq->vlen = cpu_to_le16(20);
				len += 20;
			}
		}
		h->opcode = cpu_to_le16(op);
		h->len = cpu_to_le32(len);
		add_seed(FUZZ_MSG_REQ, b, len);

		memset(b, 0, 1024);
		switch (op) {
		case SCALIO_MSG_HELLO: {
			struct scalio_msg_hello_rep *m = (void *)b;

			len = sizeof(*m);
			m->nr_blocks = cpu_to_le32(64);
			m->slots_per_block = cpu_to_le32(4);
			m->block_size = cpu_to_le32(SCALIO_BLOCK_SIZE(4));
			m->nr_ssds = cpu_to_le32(1);
			m->nr_chunks = cpu_to_le32(1);
			m->nr_buckets = cpu_to_le32(256);
			break;
		}
		case SCALIO_MSG_CHUNKS: {
			struct scalio_msg_chunks_rep *m = (void *)b;

			m->nr = cpu_to_le32(2);
			m->chunk[0].nr_blocks = cpu_to_le32(32);
			m->chunk[1].nr_blocks = cpu_to_le32(32);
			m->chunk[1].first_block = cpu_to_le32(32);
			len = sizeof(*m) + 2 * sizeof(m->chunk[0]);
			break;
		}
		case SCALIO_MSG_SSD_INFO:
			len = sizeof(struct scalio_msg_ssd_info_rep);
			strcpy(((struct scalio_msg_ssd_info_rep *)b)->nqn,
			       "nqn.x:kv0-ssd0");
			break;
		case SCALIO_MSG_STATS:
			len = sizeof(struct scalio_msg_stats_rep);
			break;
		case SCALIO_MSG_ADMIT:
			len = sizeof(struct scalio_msg_admit_rep);
			break;
		case SCALIO_MSG_KEEPALIVE:
			len = sizeof(*h);
			break;
		default:
			len = sizeof(*kr);
			if (op == SCALIO_MSG_GET) {
				kr->vlen = cpu_to_le16(7);
				len += 7;
			}
		}
		h->opcode = cpu_to_le16(op);
		h->flags = cpu_to_le16(SCALIO_MSG_F_RESPONSE);
		h->len = cpu_to_le32(len);
		add_seed(FUZZ_MSG_REP, b, len);
	}

	memset(b, 0, sizeof(*super));
	super->magic = cpu_to_le64(SCALIO_SB_MAGIC);
	super->version = cpu_to_le32(SCALIO_FORMAT_VERSION);
	super->nr_ssds = cpu_to_le32(1);
	super->nr_blocks = cpu_to_le32(16);
	super->nr_buckets = cpu_to_le32(64);
	super->nr_units = cpu_to_le64(1000);
	super->ckpt_units = cpu_to_le64(1);	/* 64 entries */
	super->log_start = cpu_to_le64(4);
	super->log_units = cpu_to_le64(996);
	super->hash_seed = cpu_to_le64(SCALIO_HASH_SEED);
	scalio_sb_seal(super);
	add_seed(FUZZ_SB, b, sizeof(*super));

	memset(b, 0, sizeof(*bh));
	bh->magic = cpu_to_le64(SCALIO_BATCH_MAGIC);
	bh->seq = cpu_to_le64(7);
	bh->nr_units = cpu_to_le32(3);
	bh->nr_segs = cpu_to_le32(2);
	scalio_batch_hdr_seal(bh);
	add_seed(FUZZ_BATCH_HDR, b, sizeof(*bh));

	/* A 4-slot block: C of the key, B of its fp, D, A. */
	memset(b, 0, 16 + SCALIO_BLOCK_SIZE(4));
	b[0] = 0;		/* 4 slots */
	b[1] = 4;		/* klen 5 */
	b[2] = 0x34;
	b[3] = 0x12;		/* fp 0x1234 */
	b[4] = 100;		/* now */
	b[6] = 1;		/* mine */
	memcpy(b + 7, "kkkkk", 5);
	s = (void *)(b + 16 + scalio_slot_offset(0));
	s->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_C, 3, 0, 0, 0x1234));
	s->klen = 5;
	s->vlen = 4;
	memcpy(s->key, "kkkkk", 5);
	memcpy(s->value, "vvvv", 4);
	s->csum = cpu_to_le32(scalio_slot_csum(3, s->key, 5, s->value, 4));
	s = (void *)(b + 16 + scalio_slot_offset(1));
	s->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_B, 5, 2, 200, 0x1234));
	s = (void *)(b + 16 + scalio_slot_offset(2));
	s->ctl = cpu_to_le64(scalio_ctl_make(SCALIO_SLOT_D, 5, 2, 50, 0x1234));
	add_seed(FUZZ_BLOCK, b, 16 + SCALIO_BLOCK_SIZE(4));

	/* A checkpoint of the fuzz geometry: two blocks with segments. */
	{
		struct scalio_ckpt_hdr *c = (void *)b;
		struct scalio_ckpt_entry *e = (void *)(c + 1);
		size_t sz = scalio_ckpt_bytes(FUZZ_NR_OWNED);

		memset(b, 0, sz);
		c->magic = cpu_to_le64(SCALIO_CKPT_MAGIC);
		c->seq = cpu_to_le64(5);
		c->log_head = cpu_to_le64(10);
		c->log_tail = cpu_to_le64(FUZZ_BATCH_POS);
		c->next_batch = cpu_to_le64(FUZZ_BATCH_SEQ);
		c->head_seq = cpu_to_le64(3);
		c->nr_entries = cpu_to_le32(FUZZ_NR_OWNED);
		e[1].seg = cpu_to_le64(scalio_seg_make(0, 10 * 8, 2, 3));
		e[1].gen = cpu_to_le64(3);
		e[7].seg = cpu_to_le64(scalio_seg_make(0, 50 * 8 + 3, 1, 6));
		e[7].gen = cpu_to_le64(6);
		c->crc = cpu_to_le32(scalio_crc(c, sz,
				offsetof(struct scalio_ckpt_hdr, crc)));
		add_seed(FUZZ_CKPT, b, sz);
	}

	/*
	 * Batches: header sector + segments of blocks 1 and 2 (seq 7) packed
	 * in one unit; one of two units, whose second segment crosses
	 * into the second unit; and one with two value extents first, which
	 * records of the first segment point to.
	 */
	for (i = 0; i < 3; i++) {
		u32 off = 1, voff = SCALIO_SECTOR_SIZE, nr_vals = 0, vsec = 0;
		struct scalio_vref v[2];

		memset(b, 0, 2 * SCALIO_UNIT_SIZE);
		if (i == 2) {
			voff += scalio_val_build(b + voff, (const u8 *)"xv1", 3,
						 val, 200, FUZZ_BATCH_SEQ,
						 voff, &v[0]);
			voff += scalio_val_build(b + voff, (const u8 *)"xv2", 3,
						 val, 300, FUZZ_BATCH_SEQ,
						 voff, &v[1]);
			nr_vals = 2;
			off = DIV_ROUND_UP(voff, SCALIO_SECTOR_SIZE);
			vsec = off - 1;
		}
		scalio_seg_build_init(&sb, b + off * SCALIO_SECTOR_SIZE,
				      SCALIO_UNIT_SIZE);
		if (i == 2) {
			scalio_seg_build_add_vref(&sb, (const u8 *)"xv1", 3,
						  &v[0]);
			scalio_seg_build_add_vref(&sb, (const u8 *)"xv2", 3,
						  &v[1]);
		}
		scalio_seg_build_add(&sb, (const u8 *)"key1", 4, val, 40);
		scalio_seg_build_add(&sb, (const u8 *)"k2", 2, val, 0);
		off += scalio_seg_build_finish(&sb, 1, FUZZ_BATCH_SEQ);
		scalio_seg_build_init(&sb, b + off * SCALIO_SECTOR_SIZE,
				      SCALIO_UNIT_SIZE);
		scalio_seg_build_add(&sb, (const u8 *)"other", 5, val, 100);
		if (i)
			scalio_seg_build_add(&sb, (const u8 *)"big", 3, val,
					     300);
		if (i)
			scalio_seg_build_add(&sb, (const u8 *)"big2", 4, val,
					     300);
		off += scalio_seg_build_finish(&sb, 2, FUZZ_BATCH_SEQ);
		bh->magic = cpu_to_le64(SCALIO_BATCH_MAGIC);
		bh->seq = cpu_to_le64(FUZZ_BATCH_SEQ);
		bh->nr_units = cpu_to_le32(DIV_ROUND_UP(off, 8));
		bh->nr_segs = cpu_to_le32(2);
		bh->nr_vals = cpu_to_le32(nr_vals);
		bh->val_sectors = cpu_to_le32(vsec);
		bh->flags = 0;
		scalio_batch_hdr_seal(bh);
		add_seed(FUZZ_BATCH, b, DIV_ROUND_UP(off, 8) *
			 SCALIO_UNIT_SIZE);
	}

	/* Builder: capacity byte then (klen, vlen lo, vlen hi) triples. */
	b[0] = 1;
	for (i = 0; i < 30; i++) {
		b[1 + 3 * i] = 1 + i;
		b[2 + 3 * i] = (u8)(i * 37);
		b[3 + 3 * i] = i % 3;
	}
	add_seed(FUZZ_BUILD, b, 1 + 3 * 30);
}

static void mutate(u8 *d, size_t *len, const struct seed *s)
{
	size_t n = *len;
	int k, edits = 1 + rnd() % 8;

	for (k = 0; k < edits; k++) {
		switch (rnd() % 7) {
		case 0:	/* bit flip, keeping the target byte */
			if (n > 1)
				d[1 + rnd() % (n - 1)] ^= 1 << (rnd() % 8);
			break;
		case 1:	/* interesting byte */
			if (n > 1)
				d[1 + rnd() % (n - 1)] =
					(u8[]){ 0, 1, 0x7f, 0x80, 0xff,
						0x20, 0x21, 0x10 }[rnd() % 8];
			break;
		case 2:	/* truncate */
			if (n > 1)
				n = 1 + rnd() % n;
			break;
		case 3:	/* extend with random bytes */
			while (n < FUZZ_MAX_INPUT && rnd() % 16)
				d[n++] = (u8)rnd();
			break;
		case 4:	/* splice from another seed of the same target */
			if (s->len > 1 && n > 1) {
				size_t at = 1 + rnd() % (n - 1);
				size_t from = 1 + rnd() % (s->len - 1);
				size_t cnt = rnd() % 64;

				while (cnt-- && at < n && from < s->len)
					d[at++] = s->data[from++];
			}
			break;
		case 5:	/* random le32 somewhere 4-aligned */
			if (n > 5) {
				size_t at = 1 + 4 * (rnd() % ((n - 1) / 4));

				if (at + 4 <= n) {
					u32 v = (u32)rnd() >> (rnd() % 32);

					memcpy(d + at, &v, 4);
				}
			}
			break;
		case 6:	/* random byte */
			if (n > 1)
				d[1 + rnd() % (n - 1)] = (u8)rnd();
			break;
		}
	}
	*len = n;
}

/* Recompute the crc at @crc_off over @len bytes of @p (unaligned). */
static void reseal_at(u8 *p, size_t len, size_t crc_off)
{
	static u64 tmp[FUZZ_MAX_INPUT / 8 + 1];
	u32 crc;

	memcpy(tmp, p, len);
	crc = cpu_to_le32(scalio_crc(tmp, len, crc_off));
	memcpy(p + crc_off, &crc, 4);
}

static u32 get_le32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return le32_to_cpu(v);
}

/* Re-seal the segment at @p (@room bytes) if its length fits. */
static u32 reseal_seg(u8 *p, size_t room)
{
	u32 len = room >= 32 ? get_le32(p + 16) : 0;

	if (len < 32 || len > room)
		return 0;
	reseal_at(p, len, offsetof(struct scalio_seg_hdr, crc));
	return len;
}

/*
 * Make a mutated on-SSD input crc-valid again, so that the checks behind
 * the crc see it: the mutation then models a bug or a crafted device
 * rather than a bit flip (which the crc already catches).
 */
static void put_magic(u8 *p, size_t m, u64 magic, size_t size)
{
	u64 v = cpu_to_le64(magic);

	if (m >= size && rnd() % 4)
		memcpy(p, &v, size);
}

/* Zero-pad a fixed-size structure that a truncation cut short. */
static void pad_to(u8 *d, size_t *n, size_t size)
{
	if (*n - 1 < size && size + 1 <= FUZZ_MAX_INPUT) {
		memset(d + *n, 0, size + 1 - *n);
		*n = size + 1;
	}
}

/*
 * Structure-aware finish of a mutation: usually keep the magic and
 * re-seal the crc, so that the field checks behind them are exercised.
 */
static void reseal(u8 *d, size_t *np)
{
	u8 *p = d + 1;
	size_t m, ck = scalio_ckpt_bytes(FUZZ_NR_OWNED);
	u32 off, voff, k, nr_segs, nr_vals, len;

	switch (d[0] % FUZZ_NR_TARGETS) {
	case FUZZ_SB:
		pad_to(d, np, sizeof(struct scalio_sb));
		put_magic(p, *np - 1, SCALIO_SB_MAGIC, 8);
		break;
	case FUZZ_BATCH_HDR:
		pad_to(d, np, sizeof(struct scalio_batch_hdr));
		put_magic(p, *np - 1, SCALIO_BATCH_MAGIC, 8);
		break;
	case FUZZ_CKPT:
		pad_to(d, np, ck);
		put_magic(p, *np - 1, SCALIO_CKPT_MAGIC, 8);
		break;
	case FUZZ_BATCH:
		put_magic(p, *np - 1, SCALIO_BATCH_MAGIC, 8);
		break;
	case FUZZ_SEG:
		put_magic(p, *np - 1, SCALIO_SEG_MAGIC, 4);
		break;
	}
	m = *np - 1;
	switch (d[0] % FUZZ_NR_TARGETS) {
	case FUZZ_SB:
		if (m >= sizeof(struct scalio_sb))
			reseal_at(p, sizeof(struct scalio_sb),
				  offsetof(struct scalio_sb, crc));
		break;
	case FUZZ_BATCH_HDR:
		if (m >= sizeof(struct scalio_batch_hdr))
			reseal_at(p, sizeof(struct scalio_batch_hdr),
				  offsetof(struct scalio_batch_hdr, crc));
		break;
	case FUZZ_SEG:
		reseal_seg(p, m);
		break;
	case FUZZ_CKPT:
		if (m >= ck)
			reseal_at(p, ck, offsetof(struct scalio_ckpt_hdr, crc));
		break;
	case FUZZ_BATCH:
		if (m < SCALIO_UNIT_SIZE)
			break;
		nr_segs = get_le32(p + 20);
		nr_vals = get_le32(p + 24);
		for (voff = SCALIO_SECTOR_SIZE, k = 0; k < nr_vals && k < 64 &&
		     voff + sizeof(struct scalio_val_hdr) <= m; k++) {
			len = sizeof(struct scalio_val_hdr) + p[voff + 4] +
			      get_le32(p + voff + 8);
			if (len > m - voff)
				break;
			reseal_at(p + voff, len,
				  offsetof(struct scalio_val_hdr, crc));
			voff += ALIGN(len, 8);
		}
		for (off = 1 + get_le32(p + 28), k = 0;
		     k < nr_segs && k < 64 && off < m / SCALIO_SECTOR_SIZE;
		     k++) {
			len = reseal_seg(p + (size_t)off * SCALIO_SECTOR_SIZE,
					 m - (size_t)off * SCALIO_SECTOR_SIZE);
			if (!len)
				break;
			off += DIV_ROUND_UP(len, SCALIO_SECTOR_SIZE);
		}
		reseal_at(p, sizeof(struct scalio_batch_hdr),
			  offsetof(struct scalio_batch_hdr, crc));
		break;
	}
}

/* Every regular file of @dir becomes a seed (a small kept corpus). */
static int load_corpus(const char *dir)
{
	static u8 buf[FUZZ_MAX_INPUT];
	char path[4096];
	struct dirent *de;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp) {
		perror(dir);
		return -1;
	}
	while ((de = readdir(dp))) {
		FILE *f;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		if (len > 1) {
			add_seed(buf[0], buf + 1, len - 1);
			n++;
		}
	}
	closedir(dp);
	return n;
}

static int write_corpus(const char *dir)
{
	char path[4096];
	FILE *f;
	int i;

	for (i = 0; i < nr_seeds; i++) {
		snprintf(path, sizeof(path), "%s/seed-%02d", dir, i);
		f = fopen(path, "wb");
		if (!f || fwrite(seeds[i].data, 1, seeds[i].len, f) !=
			  seeds[i].len) {
			perror(path);
			return 1;
		}
		fclose(f);
	}
	printf("wrote %d seeds to %s\n", nr_seeds, dir);
	return 0;
}

static int replay_file(const char *path)
{
	static u8 d[1 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(d, 1, sizeof(d), f);
	fclose(f);
	LLVMFuzzerTestOneInput(d, n);
	return 0;
}

int main(int argc, char **argv)
{
	static u8 d[FUZZ_MAX_INPUT + 1];
	unsigned long runs = 100000, r;
	size_t n;
	int i, bad = 0, bad_stage = 0;

	make_seeds();
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			rng_state = strtoull(argv[++i], NULL, 0) | 1;
		else if (!strcmp(argv[i], "--write-corpus") && i + 1 < argc)
			return write_corpus(argv[++i]);
		else if (!strcmp(argv[i], "--corpus") && i + 1 < argc) {
			if (load_corpus(argv[++i]) < 0)
				return 1;
		}
		else if (replay_file(argv[i]))
			return 1;
	}
	if (argc > 1 && strncmp(argv[1], "--", 2))
		return 0;

	printf("KTAP version 1\n1..2\n");
	for (i = 0; i < nr_seeds; i++) {
		unsigned long before = fuzz_accepted[seeds[i].data[0]];

		LLVMFuzzerTestOneInput(seeds[i].data, seeds[i].len);
		if (fuzz_accepted[seeds[i].data[0]] == before) {
			printf("# seed %d (target %d) was not accepted\n", i,
			       seeds[i].data[0]);
			bad++;
		}
	}
	printf("%sok 1 - corpus replay (%d seeds, each accepted)\n",
	       bad ? "not " : "", nr_seeds);
	fflush(stdout);
	for (r = 0; r < runs; r++) {
		const struct seed *s = &seeds[rnd() % nr_seeds];
		const struct seed *o = &seeds[rnd() % nr_seeds];

		memcpy(d, s->data, s->len);
		n = s->len;
		mutate(d, &n, o->data[0] == s->data[0] ? o : s);
		if (rnd() % 8)
			reseal(d, &n);
		LLVMFuzzerTestOneInput(d, n);
	}
	printf("# accepted per target:");
	for (i = 0; i < FUZZ_NR_TARGETS; i++)
		printf(" %lu", fuzz_accepted[i]);
	printf("\n");
	{
		static const char * const names[FUZZ_NR_TARGETS] = {
			[FUZZ_SEG] = "segment", [FUZZ_SB] = "superblock",
			[FUZZ_BATCH_HDR] = "batch header",
			[FUZZ_CKPT] = "checkpoint", [FUZZ_BATCH] = "batch",
		};
		unsigned long in = 0, crc = 0;

		for (i = 0; i < FUZZ_NR_TARGETS; i++) {
			unsigned long *st = fuzz_stage[i];

			if (!names[i] || !st[FUZZ_ST_IN])
				continue;
			printf("# stages %-12s inputs %7lu  magic %7lu  crc %7lu (%3lu%% reach the field checks)  accepted %7lu\n",
			       names[i], st[FUZZ_ST_IN], st[FUZZ_ST_MAGIC],
			       st[FUZZ_ST_CRC],
			       100 * st[FUZZ_ST_CRC] / st[FUZZ_ST_IN],
			       st[FUZZ_ST_OK]);
			in += st[FUZZ_ST_IN];
			crc += st[FUZZ_ST_CRC];
		}
		/* The point of resealing: most get past magic and crc. */
		printf("# stages all on-SSD inputs %lu, %lu%% reach the field checks\n",
		       in, in ? 100 * crc / in : 0);
		if (runs >= 10000 && 2 * crc < in)
			bad_stage++;
	}
	printf("%sok 2 - random mutations (%lu inputs, no crash; most on-SSD inputs reach the field checks)\n",
	       bad_stage ? "not " : "", runs);
	return bad || bad_stage ? 1 : 0;
}
