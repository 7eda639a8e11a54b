// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_sbver DEV VERSION: rewrite the format version of both superblocks
 * of a scalio SSD (units 0 and 1) and re-seal their crc, so that the
 * corruption test can show how a store of another on-SSD format version
 * is refused.  Only units that hold an intact superblock are touched;
 * exit status 1 if there is none.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <unistd.h>

#define __packed __attribute__((packed))
#include "../../common/scalio_format.h"

/* CRC32C (Castagnoli), as the kernel's crc32c() and the format use it. */
static unsigned int crc32c_bytes(const unsigned char *p, size_t len)
{
	unsigned int crc = ~0U;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78U & -(crc & 1));
	}
	return ~crc;
}

static unsigned int sb_crc(struct scalio_sb *sb)
{
	struct scalio_sb t = *sb;

	t.crc = 0;
	return crc32c_bytes((const unsigned char *)&t, sizeof(t));
}

int main(int argc, char **argv)
{
	struct scalio_sb sb;
	int fd, u, done = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: scalio_sbver DEV VERSION\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (u = 0; u < 2; u++) {
		off_t at = (off_t)u * SCALIO_UNIT_SIZE;

		if (pread(fd, &sb, sizeof(sb), at) != sizeof(sb))
			return 1;
		if (le64_to_cpu(sb.magic) != SCALIO_SB_MAGIC ||
		    le32_to_cpu(sb.crc) != sb_crc(&sb))
			continue;
		sb.version = cpu_to_le32(strtoul(argv[2], NULL, 0));
		sb.crc = cpu_to_le32(sb_crc(&sb));
		if (pwrite(fd, &sb, sizeof(sb), at) != sizeof(sb))
			return 1;
		printf("unit %d: version %u\n", u, le32_to_cpu(sb.version));
		done++;
	}
	if (fsync(fd))
		return 1;
	return done ? 0 : 1;
}
