/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the fuzz target (fuzz_parse.c) and its driver. */
#ifndef _SCALIO_FUZZ_H
#define _SCALIO_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* First input byte (mod FUZZ_NR_TARGETS) selects what is parsed. */
enum fuzz_target {
	FUZZ_SEG,		/* scalio_seg_check + next + find */
	FUZZ_MSG_REQ,		/* scalio_msg_check(response = false) */
	FUZZ_MSG_REP,		/* scalio_msg_check(response = true) */
	FUZZ_SB,		/* scalio_sb_check */
	FUZZ_BATCH_HDR,		/* scalio_batch_hdr_check */
	FUZZ_BLOCK,		/* slot functions on a block copy */
	FUZZ_BUILD,		/* segment builder round trip */
	FUZZ_CKPT,		/* scalio_ckpt_check (recovery) */
	FUZZ_BATCH,		/* scalio_batch_check + next_seg (recovery) */
	FUZZ_NR_TARGETS,
};

/* Inputs each target's parser accepted (valid-input coverage). */
extern unsigned long fuzz_accepted[FUZZ_NR_TARGETS];

/*
 * How far inputs of the on-SSD targets got: [0] inputs, [1] with the
 * magic, [2] with a good crc too (so the field checks ran), [3] accepted.
 */
enum { FUZZ_ST_IN, FUZZ_ST_MAGIC, FUZZ_ST_CRC, FUZZ_ST_OK, FUZZ_NR_ST };
extern unsigned long fuzz_stage[FUZZ_NR_TARGETS][FUZZ_NR_ST];

/* The geometry the recovery targets check against (one SSD, 64 blocks). */
#define FUZZ_NR_OWNED	64
#define FUZZ_BATCH_POS	100
#define FUZZ_BATCH_SEQ	7
struct scalio_sb;
void fuzz_geometry(struct scalio_sb *sb);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
