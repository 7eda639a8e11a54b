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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

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

int main(int argc, char **argv)
{
	uint8_t key[32], val[4096];
	uint32_t klen, vlen, n, i = 0, pos;
	struct dump_pair p;
	FILE *f;
	int ret;

	if (argc != 4)
		return fprintf(stderr, "usage: test_dump write|verify FILE N\n"), 2;
	n = (uint32_t)strtoul(argv[3], NULL, 0);
	if (!strcmp(argv[1], "write")) {
		struct dump_info info = { .nr_blocks = 4096, .nr_ssds = 2,
					  .slots = 8, .time = 1 };
		struct dump_writer w;

		strcpy(info.store, "kv0");
		f = fopen(argv[2], "wb");
		if (!f)
			return perror(argv[2]), 1;
		ret = dump_write_open(&w, f, &info);
		for (i = 0; !ret && i < n; i++) {
			pair(i, key, &klen, val, &vlen);
			ret = dump_write_pair(&w, key, klen, val, vlen);
		}
		if (!ret)
			ret = dump_write_finish(&w);
		dump_write_free(&w);
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
