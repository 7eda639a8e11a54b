/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log space policy, as pure logic: when an SSD's commit thread runs the
 * cleaner, and how much free space a run aims for.
 *
 * The cleaner works head first: it reads the oldest batches and rewrites
 * their live segments at the tail.  What a run costs per unit it gains is
 * set by how much of the head is garbage, and garbage can only gather in
 * the room that live data leaves (the log minus the live data: free units
 * plus garbage).  Space kept free is room that garbage cannot use.  So:
 *  - with ample room the levels are the fixed ones the cleaner always had
 *    (start below reserve + max(2 batches, log/8) free, aim at log/8
 *    more), which leave about three quarters of the room to garbage;
 *  - as live data grows the levels shrink with the room: start below a
 *    quarter of it, aim at half of it.  A run can then always reach its
 *    goal from garbage (the room it leaves is at least half the room),
 *    and the head keeps at least about half the room's worth of garbage.
 *    A fixed goal that the room cannot hold (the levels above once live
 *    data passes about two thirds of the log) made every run clean until
 *    a pass gained nothing, once per batch: the whole log rewritten for a
 *    few PUTs;
 *  - never below the floor: room for the cleaner's own relocation
 *    (@reserve) plus the largest client batch.  Once the room is below
 *    twice the floor, runs happen before nearly every batch and gain what
 *    that batch needs; below the floor PUTs fail with ENOSPC.
 */
#ifndef _SCALIO_SPACE_H
#define _SCALIO_SPACE_H

#include "scalio_types.h"

/**
 * struct scalio_space_levels - cleaner levels of one SSD's log, in units
 * @start:	run the cleaner before a batch when fewer units are free
 * @goal:	a run stops once this many units are free (>= @start), or
 *		earlier when a pass gains nothing
 */
struct scalio_space_levels {
	u64	start;
	u64	goal;
};

/**
 * scalio_space_levels() - the cleaner levels for a log's current contents
 * @log_units:	units of the log
 * @live_units:	units the live data takes (its bytes rounded up)
 * @reserve:	free units a client batch must leave for the cleaner
 * @batch_max:	units of the largest batch
 * @lv:		result
 */
void scalio_space_levels(u64 log_units, u64 live_units, u64 reserve,
			 u64 batch_max, struct scalio_space_levels *lv);

#endif /* _SCALIO_SPACE_H */
