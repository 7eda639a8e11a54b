// SPDX-License-Identifier: GPL-2.0
/*
 * User-space implementations of the two kernel library functions the
 * common/ code uses, with the kernel's semantics (see scalio_types.h):
 *
 *  - crc32c(crc, buf, len): the raw reflected CRC-32C (Castagnoli,
 *    polynomial 0x82f63b78) update, table-driven, with no inversion on the
 *    way in or out (like lib/libcrc32c.c's crc32c());
 *  - xxh64(buf, len, seed): XXH64, via libxxhash (same as lib/xxhash.c).
 */
#include <xxhash.h>
#include "common/scalio_types.h"

static u32 crc32c_table[256];

static void crc32c_init(void)
{
	u32 i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (c & 1 ? 0x82f63b78U : 0);
		crc32c_table[i] = c;
	}
}

u32 crc32c(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

	if (!crc32c_table[1])
		crc32c_init();
	while (len--)
		crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

u64 xxh64(const void *buf, size_t len, u64 seed)
{
	return XXH64(buf, len, seed);
}
