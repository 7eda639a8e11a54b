// SPDX-License-Identifier: GPL-2.0
/*
 * Group-commit batching policy (rules in scalio_batch.h).
 *
 * Two smoothed measures, in integer arithmetic:
 *  - the gap between arrivals, alpha = 1/8.  A sample is first clipped to
 *    4x the estimate (or 1 us), so one idle pause between bursts raises it by at
 *    most 3/8 instead of dragging it to the pause's length (a burst after
 *    an idle second would otherwise be waited for as if it trickled);
 *  - the duration of a batch write, alpha = 1/4 (there are fewer samples).
 * The first sample of each is taken as is.
 *
 * Pure logic: compiled into the target module and the user-space tests.
 */
#include "scalio_batch.h"

/* ewma_gap_ns value meaning "no gap observed yet". */
#define SCALIO_BATCH_NO_ESTIMATE	(~0ULL)
/* Gaps below this are never clipped (nor is 4x a tiny estimate). */
#define SCALIO_BATCH_GAP_FLOOR_NS	1000ULL

void scalio_batch_init(struct scalio_batch_policy *p, u32 batch_max,
		       u32 max_bytes, u64 timeout_ns)
{
	p->batch_max = batch_max ? batch_max : 1;
	p->max_bytes = max_bytes;
	p->timeout_ns = timeout_ns;
	p->ewma_gap_ns = SCALIO_BATCH_NO_ESTIMATE;
	p->last_arrival_ns = 0;
	p->ewma_write_ns = 0;
}

void scalio_batch_arrival(struct scalio_batch_policy *p, u64 now_ns)
{
	u64 gap;

	if (p->last_arrival_ns) {
		/* A clock that went backwards counts as a zero gap. */
		gap = now_ns > p->last_arrival_ns ?
		      now_ns - p->last_arrival_ns : 0;
		if (p->ewma_gap_ns == SCALIO_BATCH_NO_ESTIMATE) {
			p->ewma_gap_ns = gap;
		} else {
			/* Clip to 4x the estimate, at least 1 us. */
			if (gap > SCALIO_BATCH_GAP_FLOOR_NS &&
			    gap / 4 > p->ewma_gap_ns)
				gap = max_t(u64, 4 * p->ewma_gap_ns,
					    SCALIO_BATCH_GAP_FLOOR_NS);
			if (gap >= p->ewma_gap_ns)
				p->ewma_gap_ns += (gap - p->ewma_gap_ns) >> 3;
			else
				p->ewma_gap_ns -= (p->ewma_gap_ns - gap) >> 3;
		}
	}
	/* 0 marks "no arrival yet"; an arrival at time 0 is recorded as 1. */
	p->last_arrival_ns = now_ns ? now_ns : 1;
}

void scalio_batch_written(struct scalio_batch_policy *p, u64 ns)
{
	if (!ns)
		ns = 1;		/* 0 means "not measured" */
	if (!p->ewma_write_ns)
		p->ewma_write_ns = ns;
	else if (ns >= p->ewma_write_ns)
		p->ewma_write_ns += (ns - p->ewma_write_ns) >> 2;
	else
		p->ewma_write_ns -= (p->ewma_write_ns - ns) >> 2;
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
	u64 bound, age, quiet, stream, left;

	if (!nr || p->batch_max <= 1 || !p->timeout_ns)
		return 0;
	if (nr >= p->batch_max || bytes >= p->max_bytes)
		return 0;
	/* Unannounced or already here: the self-clocked batch is it. */
	if (!announced || nr >= announced)
		return 0;

	bound = p->ewma_write_ns > p->timeout_ns / SCALIO_BATCH_WRITE_FACTOR ?
		p->timeout_ns : p->ewma_write_ns * SCALIO_BATCH_WRITE_FACTOR;
	age = now_ns > oldest_ns ? now_ns - oldest_ns : 0;
	if (age >= bound)
		return 0;
	left = bound - age;
	/*
	 * Wait only for company expected sooner than a write takes (what
	 * waiting may save) and within what is left of the bound.  Sparse
	 * writers (a few synchronous threads) announce each other but come
	 * further apart: not worth waiting for.  This also keeps anything
	 * from waiting before a write and a gap were measured (0 and
	 * SCALIO_BATCH_NO_ESTIMATE), and bounds the stream below.
	 */
	if (p->ewma_gap_ns >= left || p->ewma_gap_ns >= p->ewma_write_ns)
		return 0;

	/* Is the announced company still coming? */
	quiet = now_ns > p->last_arrival_ns ? now_ns - p->last_arrival_ns : 0;
	stream = p->ewma_gap_ns * SCALIO_BATCH_GAP_FACTOR;
	if (quiet >= stream)
		return 0;
	return min_t(u64, left, stream - quiet);
}
