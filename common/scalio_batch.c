// SPDX-License-Identifier: GPL-2.0
/*
 * Group-commit batching policy (rules in scalio_batch.h).
 *
 * The load estimate is an exponentially weighted moving average of the
 * gaps between arrivals, alpha = 1/8, in integer arithmetic.  Until two
 * requests have arrived there is no estimate and the policy never waits,
 * so a lone request is written at once.
 *
 * Pure logic: compiled into the target module and the user-space tests.
 */
#include "scalio_batch.h"

/* ewma_gap_ns value meaning "no gap observed yet". */
#define SCALIO_BATCH_NO_ESTIMATE	(~0ULL)

void scalio_batch_init(struct scalio_batch_policy *p, u32 batch_max,
		       u32 max_bytes, u64 timeout_ns)
{
	p->batch_max = batch_max ? batch_max : 1;
	p->max_bytes = max_bytes;
	p->timeout_ns = timeout_ns;
	p->ewma_gap_ns = SCALIO_BATCH_NO_ESTIMATE;
	p->last_arrival_ns = 0;
}

void scalio_batch_arrival(struct scalio_batch_policy *p, u64 now_ns)
{
	u64 gap;

	if (p->last_arrival_ns) {
		/* A clock that went backwards counts as a zero gap. */
		gap = now_ns > p->last_arrival_ns ?
		      now_ns - p->last_arrival_ns : 0;
		if (p->ewma_gap_ns == SCALIO_BATCH_NO_ESTIMATE)
			p->ewma_gap_ns = gap;
		else if (gap >= p->ewma_gap_ns)
			p->ewma_gap_ns += (gap - p->ewma_gap_ns) >> 3;
		else
			p->ewma_gap_ns -= (p->ewma_gap_ns - gap) >> 3;
	}
	/* 0 marks "no arrival yet"; an arrival at time 0 is recorded as 1. */
	p->last_arrival_ns = now_ns ? now_ns : 1;
}

/* An empty batch takes any request, even one larger than max_bytes. */
bool scalio_batch_fits(const struct scalio_batch_policy *p, u32 nr,
		       u32 bytes_in, u32 bytes)
{
	if (!nr)
		return true;
	return nr < p->batch_max &&
	       (u64)bytes_in + bytes <= p->max_bytes;
}

u64 scalio_batch_wait_ns(const struct scalio_batch_policy *p, u32 nr,
			 u32 bytes, u64 oldest_ns, u64 now_ns, u32 announced)
{
	u64 age;

	if (!nr)
		return 0;
	if (p->batch_max <= 1 || !p->timeout_ns)
		return 0;
	if (nr >= p->batch_max || bytes >= p->max_bytes)
		return 0;
	if (announced) {
		/* Every client said what it has coming: all of it is here. */
		if (nr >= announced)
			return 0;
	} else if (p->ewma_gap_ns >= p->timeout_ns) {
		/* Light load: no request expected within the timeout. */
		return 0;
	}
	age = now_ns > oldest_ns ? now_ns - oldest_ns : 0;
	if (age >= p->timeout_ns)
		return 0;
	return p->timeout_ns - age;
}
