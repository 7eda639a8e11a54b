// SPDX-License-Identifier: GPL-2.0
/*
 * Standalone driver for fuzz_parse.c when libFuzzer is not used: replays
 * a built-in corpus of valid inputs (one or more per target) and then N
 * pseudo-random mutations of them (bit flips, byte sets, truncation,
 * extension, splices), with a fixed seed so that runs are reproducible.
 *
 *   fuzz_parse [--runs N] [--seed S]      KTAP result on stdout
 *   fuzz_parse --write-corpus DIR         seed files for libFuzzer
 *   fuzz_parse FILE...                    replay files (crash reproducers)
 *
 * Any parser bug aborts the process (ASan, UBSan or an invariant check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "common/scalio_format.h"
#include "common/scalio_proto.h"
#include "common/scalio_slot.h"

#define MAX_INPUT	(SCALIO_MSG_SIZE + 4 * SCALIO_UNIT_SIZE)
#define MAX_SEEDS	64

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
	struct seed *s = &seeds[nr_seeds++];

	s->data = malloc(len + 1);
	s->data[0] = target;
	memcpy(s->data + 1, body, len);
	s->len = len + 1;
}

static void make_seeds(void)
{
	static u64 w[MAX_INPUT / 8];
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
	add_seed(FUZZ_SEG, b, units * SCALIO_UNIT_SIZE);

	/* Requests and responses of every opcode. */
	for (op = 1; op < SCALIO_MSG_OP_MAX; op++) {
		struct scalio_msg_kv_req *kq = (void *)b;
		struct scalio_msg_kv_rep *kr = (void *)b;
		u32 len = sizeof(*h);

		memset(b, 0, 1024);
		if (op == SCALIO_MSG_CHUNKS || op == SCALIO_MSG_SSD_INFO)
			len = 32;
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
	super->nr_blocks = cpu_to_le32(64);
	super->nr_units = cpu_to_le64(1000);
	super->ckpt_units = cpu_to_le64(1);	/* 64 entries */
	super->log_start = cpu_to_le64(4);
	super->log_units = cpu_to_le64(996);
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
			while (n < MAX_INPUT && rnd() % 16)
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
	static u8 d[MAX_INPUT + 1];
	unsigned long runs = 100000, r;
	size_t n;
	int i, bad = 0;

	make_seeds();
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			rng_state = strtoull(argv[++i], NULL, 0) | 1;
		else if (!strcmp(argv[i], "--write-corpus") && i + 1 < argc)
			return write_corpus(argv[++i]);
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
		LLVMFuzzerTestOneInput(d, n);
	}
	printf("# accepted per target:");
	for (i = 0; i < FUZZ_NR_TARGETS; i++)
		printf(" %lu", fuzz_accepted[i]);
	printf("\nok 2 - random mutations (%lu inputs, no crash)\n", runs);
	return bad ? 1 : 0;
}
