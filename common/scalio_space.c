// SPDX-License-Identifier: GPL-2.0
/*
 * Log space policy (rules in scalio_space.h).
 *
 * Pure logic: compiled into the target module and the user-space tests.
 */
#include "scalio_space.h"

void scalio_space_levels(u64 log_units, u64 live_units, u64 reserve,
			 u64 batch_max, struct scalio_space_levels *lv)
{
	u64 low = reserve + max_t(u64, 2 * batch_max, log_units / 8);
	u64 floor = reserve + batch_max;
	u64 room = log_units > live_units ? log_units - live_units : 0;

	lv->start = min_t(u64, low, max_t(u64, floor, room / 4));
	lv->goal = max_t(u64, lv->start,
			 min_t(u64, low + log_units / 8, room / 2));
}
