/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The export file of scalioctl export / import (Documentation/export.rst):
 * a header, frames of pairs each with its own checksum, a trailer with the
 * counts and a checksum of the whole file.  Reading and writing stream:
 * one frame in memory at a time.  No scalio device is needed here
 * (test_dump.c drives it alone).
 */
#ifndef SCALIOCTL_DUMP_H
#define SCALIOCTL_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <xxhash.h>

#define DUMP_MAGIC		"SCALIOEX"
#define DUMP_VERSION		1
#define DUMP_HDR_LEN		128
#define DUMP_FRAME_MAGIC	"PAIR"
#define DUMP_FRAME_HDR_LEN	24
#define DUMP_TRAILER_MAGIC	"TAIL"
#define DUMP_TRAILER_LEN	40
#define DUMP_PAIR_HDR_LEN	4
/* Pairs per frame: one SCALIO_IOC_MULTI each at import. */
#define DUMP_FRAME_PAIRS	256
#define DUMP_FRAME_MAX_BYTES	(DUMP_FRAME_PAIRS * \
				 (DUMP_PAIR_HDR_LEN + 32 + 4096))

/* Little-endian fields of the file (the writer's, reader's and tests'). */
static inline void dump_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void dump_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t dump_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t dump_get64(const uint8_t *p)
{
	return (uint64_t)dump_get32(p) | (uint64_t)dump_get32(p + 4) << 32;
}

/* What the header says of the store a dump came from (information only). */
struct dump_info {
	uint32_t	version;
	uint32_t	nr_blocks;
	uint32_t	nr_ssds;
	uint32_t	slots;
	uint64_t	features;
	uint64_t	time;
	char		store[32];
};

struct dump_writer {
	FILE		*f;
	XXH64_state_t	*file_sum;
	uint8_t		*frame;		/* header room + payload */
	uint32_t	nr;		/* pairs in the frame being built */
	uint32_t	len;		/* its payload bytes */
	uint64_t	frames;
	uint64_t	pairs;
	uint64_t	bytes;
};

struct dump_reader {
	FILE		*f;
	XXH64_state_t	*file_sum;
	struct dump_info info;
	uint8_t		*payload;	/* the frame just read */
	uint32_t	nr;
	uint32_t	len;
	uint64_t	frames;		/* frames read and checked */
	uint64_t	pairs;		/* their pairs */
	uint64_t	off;		/* bytes read */
	char		err[256];	/* why the last call failed */
};

/* One pair of a frame (pointers into the frame). */
struct dump_pair {
	const uint8_t	*key;
	const uint8_t	*value;
	uint32_t	klen;
	uint32_t	vlen;
};

/* Writer: 0 or -errno (of the write) from each. */
int dump_write_open(struct dump_writer *w, FILE *f,
		    const struct dump_info *info);
int dump_write_pair(struct dump_writer *w, const void *key, uint32_t klen,
		    const void *value, uint32_t vlen);
int dump_write_finish(struct dump_writer *w);	/* last frame + trailer */
void dump_write_free(struct dump_writer *w);

/* Reader: 0 or -1 with r->err set. */
int dump_read_open(struct dump_reader *r, FILE *f);
/* 1: a frame checked and loaded; 0: the trailer checked, end of file. */
int dump_read_frame(struct dump_reader *r);
/* The next pair of the loaded frame: 1, or 0 after its last. */
int dump_frame_next(const struct dump_reader *r, uint32_t *pos,
		    struct dump_pair *p);
void dump_read_free(struct dump_reader *r);

#endif /* SCALIOCTL_DUMP_H */
