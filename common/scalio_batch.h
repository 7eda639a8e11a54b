/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Group-commit batching policy, as pure logic.  The target's commit kthread
 * asks it, after draining its queue, whether to write now or wait a little
 * for more requests.  Rules:
 *  - never wait when batch_max == 1 or batch_timeout_us == 0;
 *  - write at once when the batch is full (ops or bytes);
 *  - under light load (requests arrive further apart than the timeout, as
 *    tracked by an EWMA of inter-arrival gaps) write at once: a lone
 *    request never waits for a timer;
 *  - otherwise wait until the oldest request has waited batch_timeout_us,
 *    or the batch fills.
 * When every queued request carries its client's inflight hint (protocol
 * minor 1: the writes that client had outstanding to this SSD when it
 * sent it, itself included), the hint replaces the load estimate: wait
 * (within the same bounds) only while the batch holds fewer requests than
 * the largest hint announced.  A client with one write outstanding never
 * waits, whatever the timeout; one with 64 is waited for.
 */
#ifndef _SCALIO_BATCH_H
#define _SCALIO_BATCH_H

#include "scalio_types.h"

/**
 * struct scalio_batch_policy - per-SSD batching state
 * @batch_max:	most requests in one batch (1 = no batching)
 * @max_bytes:	most payload bytes in one batch
 * @timeout_ns:	longest a request may wait for company (0 = never wait)
 * @ewma_gap_ns: smoothed gap between arrivals
 * @last_arrival_ns: time of the previous arrival (0: none yet)
 */
struct scalio_batch_policy {
	u32	batch_max;
	u32	max_bytes;
	u64	timeout_ns;
	u64	ewma_gap_ns;
	u64	last_arrival_ns;
};

void scalio_batch_init(struct scalio_batch_policy *p, u32 batch_max,
		       u32 max_bytes, u64 timeout_ns);

/* Record an arrival at @now_ns (updates the gap estimate). */
void scalio_batch_arrival(struct scalio_batch_policy *p, u64 now_ns);

/* May a request of @bytes join a batch already holding @nr / @bytes_in? */
bool scalio_batch_fits(const struct scalio_batch_policy *p, u32 nr,
		       u32 bytes_in, u32 bytes);

/**
 * scalio_batch_wait_ns() - how long to wait before writing the batch
 * @p:		policy
 * @nr:		requests in the batch
 * @bytes:	payload bytes in the batch
 * @oldest_ns:	arrival time of its oldest request
 * @now_ns:	now
 * @announced:	largest inflight hint among the queued requests, or 0 when
 *		one of them carries none (then the load estimate decides)
 *
 * Return: 0 to write now, else nanoseconds to wait for more (the caller
 * re-asks when woken by an arrival or the wait expires).
 */
u64 scalio_batch_wait_ns(const struct scalio_batch_policy *p, u32 nr,
			 u32 bytes, u64 oldest_ns, u64 now_ns, u32 announced);

#endif /* _SCALIO_BATCH_H */
