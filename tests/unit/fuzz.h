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
	FUZZ_NR_TARGETS,
};

/* Inputs each target's parser accepted (valid-input coverage). */
extern unsigned long fuzz_accepted[FUZZ_NR_TARGETS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
