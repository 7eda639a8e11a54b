// SPDX-License-Identifier: GPL-2.0
/*
 * test_dump: the export file's writer and reader (dump.c) without a store.
 *
 *   test_dump write FILE N   N pairs of varied sizes (1- and 32-byte keys,
 *                            values of 0..4096 bytes), derived from their
 *                            index, as scalioctl export writes them
 *   test_dump verify FILE N  read FILE back: exactly those N pairs in that
 *                            order, the trailer checked; exit 0, or 1 with
 *                            the reader's error (and how many pairs came
 *                            before it) on stderr
 *   test_dump fuzz N ROUNDS SEED
 *                            the reader against ROUNDS damaged copies of a
 *                            file of N pairs (in memory): half of them
 *                            damaged anywhere (flipped, set, cut, inserted
 *                            or removed bytes), half inside one frame and
 *                            then re-sealed (its checksum, the file's and
 *                            the trailer's recomputed), so that the field
 *                            checks behind the checksums are reached.  The
 *                            reader must refuse a copy or read it whole;
 *                            a copy damaged anywhere that reads must give
 *                            exactly the N pairs, and every pair handed out
 *                            must lie inside its frame.  Exit 1 on the
 *                            first violation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

/* Pair @i: key "k<i>" padded to 1..32 bytes, value of varied length. */
static void pair(uint32_t i, uint8_t *key, uint32_t *klen, uint8_t *val,
		 uint32_t *vlen)
{
	static const uint32_t vl[] = { 0, 1, 72, 73, 1000, 4095, 4096 };
	uint32_t j;

	*klen = i < 256 ? 1 : 2 + i % 31;
	if (*klen == 1) {
		key[0] = (uint8_t)i;
	} else {
		memset(key, '.', *klen);
		snprintf((char *)key, *klen, "k%u", i);
	}
	*vlen = vl[i % 7];
	for (j = 0; j < *vlen; j++)
		val[j] = (uint8_t)(i * 31 + j);
}

/* Write a file of pairs 0 .. @n - 1 to @f, as scalioctl export does. */
static int write_pairs(FILE *f, const struct dump_info *info, uint32_t n)
{
	uint8_t key[32], val[4096];
	uint32_t klen, vlen, i;
	struct dump_writer w;
	int ret;

	ret = dump_write_open(&w, f, info);
	for (i = 0; !ret && i < n; i++) {
		pair(i, key, &klen, val, &vlen);
		ret = dump_write_pair(&w, key, klen, val, vlen);
	}
	if (!ret)
		ret = dump_write_finish(&w);
	dump_write_free(&w);
	return ret;
}

/*
 * Re-seal @b (@n bytes, a well-formed file whose frames were changed in
 * place): every frame's checksum, then the trailer's file checksum and
 * its own, the way dump.c computes them.  Returns false when the frame
 * chain no longer parses (then the copy is fed as it is).
 */
static bool reseal(uint8_t *b, size_t n)
{
	XXH64_state_t *st = XXH64_createState();
	size_t off = DUMP_HDR_LEN;
	bool ok = false;

	XXH64_reset(st, 0);
	XXH64_update(st, b, DUMP_HDR_LEN);
	while (off + DUMP_FRAME_HDR_LEN <= n &&
	       !memcmp(b + off, DUMP_FRAME_MAGIC, 4)) {
		uint32_t len = dump_get32(b + off + 8);

		if (len > n - off - DUMP_FRAME_HDR_LEN)
			goto out;
		dump_put64(b + off + 16, XXH64(b + off, 16, 0) ^
			XXH64(b + off + DUMP_FRAME_HDR_LEN, len, 0));
		XXH64_update(st, b + off, DUMP_FRAME_HDR_LEN + (size_t)len);
		off += DUMP_FRAME_HDR_LEN + (size_t)len;
	}
	if (off + DUMP_TRAILER_LEN != n ||
	    memcmp(b + off, DUMP_TRAILER_MAGIC, 4))
		goto out;
	dump_put64(b + off + 24, XXH64_digest(st));
	dump_put64(b + off + 32, XXH64(b + off, 32, 0));
	ok = true;
out:
	XXH64_freeState(st);
	return ok;
}

/*
 * Read @b through the reader.  Returns 0 when it refused the copy, 1 when
 * it read it whole, 2 when it read it whole and the pairs are the @n of
 * the writer's file, -1 on a violation (said on stderr).  *@other: a pair
 * other than the writer's at its place was handed out (before a refusal,
 * too: import would have stored it).
 */
static int fuzz_read(const uint8_t *b, size_t len, uint32_t n, bool *other)
{
	uint8_t key[32], val[4096];
	uint32_t klen, vlen, i = 0, pos;
	struct dump_reader r;
	struct dump_pair p;
	bool same = true;
	FILE *f;
	int ret;

	f = len ? fmemopen((void *)b, len, "rb") : fopen("/dev/null", "rb");
	if (!f)
		return perror("fmemopen"), -1;
	ret = dump_read_open(&r, f);
	while (!ret && (ret = dump_read_frame(&r)) == 1) {
		pos = 0;
		while ((ret = dump_frame_next(&r, &pos, &p)) == 1) {
			if (p.key < r.payload || p.klen < 1 || p.klen > 32 ||
			    p.vlen > 4096 ||
			    p.value + p.vlen > r.payload + r.len) {
				fprintf(stderr, "fuzz: a pair outside its frame\n");
				ret = -2;
				break;
			}
			pair(i, key, &klen, val, &vlen);
			if (i >= n || p.klen != klen || p.vlen != vlen ||
			    memcmp(p.key, key, klen) ||
			    memcmp(p.value, val, vlen))
				same = false;
			*other |= !same;
			i++;
		}
		if (ret)
			break;
	}
	if (ret == -1 && !r.err[0]) {
		fprintf(stderr, "fuzz: refused without saying why\n");
		ret = -2;
	}
	dump_read_free(&r);
	fclose(f);
	if (ret == -2)
		return -1;
	if (ret)
		return 0;
	return same && i == n ? 2 : 1;
}

static int fuzz(uint32_t n, uint32_t rounds, uint64_t seed)
{
	struct dump_info info = { .nr_blocks = 64, .nr_ssds = 1, .slots = 4 };
	uint32_t counts[2][3] = { { 0 } }, round;
	uint8_t *ref = NULL, *b;
	bool other = false;
	size_t len = 0;
	FILE *f;
	int ret;

	f = open_memstream((char **)&ref, &len);
	if (!f)
		return perror("open_memstream"), 1;
	ret = write_pairs(f, &info, n);
	if (fclose(f) || ret || fuzz_read(ref, len, n, &other) != 2 || other) {
		free(ref);
		return fprintf(stderr, "fuzz: the intact file does not read\n"), 1;
	}
	b = malloc(len + 64);
	seed = seed ? seed : 1;
	for (round = 0; round < rounds; round++) {
		bool sealed = round & 1;
		size_t blen = len, at;
		uint32_t k, m = 1 + rnd(&seed) % 3;

		memcpy(b, ref, len);
		for (k = 0; k < m; k++) {
			/*
			 * Sealed rounds change a frame's bytes in place only,
			 * half of the time the first frame's counts or its
			 * first pair's header, which the checksums now cover.
			 */
			if (!sealed)
				at = rnd(&seed) % blen;
			else if (rnd(&seed) % 2)
				at = DUMP_HDR_LEN + 4 + rnd(&seed) % 8 +
				     (rnd(&seed) % 2 ? 20 : 0);
			else
				at = DUMP_HDR_LEN + 4 +
				     rnd(&seed) % (len - DUMP_HDR_LEN -
						   DUMP_TRAILER_LEN - 4);
			switch (sealed ? rnd(&seed) % 2 : rnd(&seed) % 5) {
			case 0:
				b[at] ^= (uint8_t)(1 << (rnd(&seed) % 8));
				break;
			case 1:
				b[at] = (uint8_t)rnd(&seed);
				break;
			case 2:
				blen = at;
				break;
			case 3:
				if (blen < len + 64) {
					memmove(b + at + 1, b + at, blen - at);
					b[at] = (uint8_t)rnd(&seed);
					blen++;
				}
				break;
			default:
				memmove(b + at, b + at + 1, blen - at - 1);
				blen--;
				break;
			}
			if (!blen)
				break;
		}
		if (sealed)
			reseal(b, blen);
		other = false;
		ret = fuzz_read(b, blen, n, &other);
		if (ret >= 0 && !sealed && other) {
			fprintf(stderr, "fuzz: a copy damaged anywhere handed out other pairs (%s)\n",
				ret ? "and read whole" : "before its refusal");
			ret = -1;
		}
		if (ret < 0) {
			fprintf(stderr, "fuzz: round %u (seed %llu)\n", round,
				(unsigned long long)seed);
			break;
		}
		counts[sealed][ret]++;
	}
	free(b);
	free(ref);
	if (ret < 0)
		return 1;
	printf("fuzz: %u rounds over a file of %u pairs (%zu bytes): damaged anywhere: %u refused, %u unchanged; re-sealed: %u refused, %u read as other pairs, %u unchanged\n",
	       rounds, n, len, counts[0][0], counts[0][2], counts[1][0],
	       counts[1][1], counts[1][2]);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t key[32], val[4096];
	uint32_t klen, vlen, n, i = 0, pos;
	struct dump_pair p;
	FILE *f;
	int ret;

	if (argc == 5 && !strcmp(argv[1], "fuzz"))
		return fuzz((uint32_t)strtoul(argv[2], NULL, 0),
			    (uint32_t)strtoul(argv[3], NULL, 0),
			    strtoull(argv[4], NULL, 0));
	if (argc != 4)
		return fprintf(stderr, "usage: test_dump write|verify FILE N | fuzz N ROUNDS SEED\n"), 2;
	n = (uint32_t)strtoul(argv[3], NULL, 0);
	if (!strcmp(argv[1], "write")) {
		struct dump_info info = { .nr_blocks = 4096, .nr_ssds = 2,
					  .slots = 8, .time = 1 };
		strcpy(info.store, "kv0");
		f = fopen(argv[2], "wb");
		if (!f)
			return perror(argv[2]), 1;
		ret = write_pairs(f, &info, n);
		if (fclose(f) || ret)
			return fprintf(stderr, "write failed: %d\n", ret), 1;
		return 0;
	}
	if (strcmp(argv[1], "verify"))
		return 2;
	{
		struct dump_reader r;

		f = fopen(argv[2], "rb");
		if (!f)
			return perror(argv[2]), 1;
		ret = dump_read_open(&r, f);
		while (!ret && (ret = dump_read_frame(&r)) == 1) {
			pos = 0;
			while (dump_frame_next(&r, &pos, &p) == 1) {
				pair(i, key, &klen, val, &vlen);
				if (p.klen != klen || p.vlen != vlen ||
				    memcmp(p.key, key, klen) ||
				    memcmp(p.value, val, vlen)) {
					fprintf(stderr, "pair %u differs\n", i);
					ret = -2;
					break;
				}
				i++;
			}
			if (ret == -2)
				break;
			ret = 0;
		}
		if (ret == -1)
			fprintf(stderr, "%s (after %u pairs)\n", r.err, i);
		else if (!ret && i != n)
			fprintf(stderr, "%u pairs, expected %u\n", i, n), ret = -1;
		if (!ret && strcmp(r.info.store, "kv0"))
			fprintf(stderr, "store '%s'\n", r.info.store), ret = -1;
		dump_read_free(&r);
		fclose(f);
		return ret ? 1 : 0;
	}
}
