/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Group-commit batching policy, as pure logic.  The target's commit kthread
 * asks it, after draining its queue, whether to write now or wait a little
 * for more requests.
 *
 * The commit is self-clocking: one batch write per SSD is in flight at a
 * time, and whatever arrives while it runs forms the next batch (jbd2 and
 * RocksDB's write group work the same way).  No timer is needed for that.
 * On top of it the thread waits for company only when it was announced and
 * is still arriving:
 *  - never wait when batch_max == 1 or batch_timeout_us == 0;
 *  - write at once when the batch is full (ops or bytes);
 *  - wait only when every queued request carries its client's inflight
 *    hint (protocol minor 1: the writes that client had outstanding to
 *    this SSD when it sent it, itself included) and the batch holds fewer
 *    requests than the largest hint: a client with one write outstanding
 *    never waits, one with 64 is waited for.  Unhinted requests (older
 *    hosts) never wait: they get the self-clocked batching alone;
 *  - stop waiting once the announced requests stop arriving: when no
 *    request came for four smoothed gaps between arrivals (a steady
 *    random stream has such a gap 1.8 % of the time: e^-4), and do not
 *    wait when the smoothed gap is longer than one batch write (what the
 *    wait may save) or than what is left of the bound below: sparse
 *    writers announce each other but come too far apart;
 *  - and never let a request wait longer than SCALIO_BATCH_WRITE_FACTOR
 *    times what this SSD's batch writes take (a smoothed measure), nor
 *    longer than batch_timeout_us (an absolute cap against a stalled
 *    device inflating that measure).
 * So the price of waiting is bounded by the device's own write time, on
 * any hardware, with nothing to tune; until a write has been measured,
 * nothing waits.
 */
#ifndef _SCALIO_BATCH_H
#define _SCALIO_BATCH_H

#include "scalio_types.h"

/* A request waits for company at most this many smoothed write times. */
#define SCALIO_BATCH_WRITE_FACTOR	4
/* The announced stream has stopped after this many smoothed gaps. */
#define SCALIO_BATCH_GAP_FACTOR		4

/**
 * struct scalio_batch_policy - per-SSD batching state
 * @batch_max:	most requests in one batch (1 = no batching)
 * @max_bytes:	most payload bytes in one batch
 * @timeout_ns:	absolute cap on a request's wait for company (0 = never wait)
 * @ewma_gap_ns: smoothed gap between arrivals
 * @last_arrival_ns: time of the previous arrival (0: none yet)
 * @ewma_write_ns: smoothed duration of a batch write (0: none measured)
 */
struct scalio_batch_policy {
	u32	batch_max;
	u32	max_bytes;
	u64	timeout_ns;
	u64	ewma_gap_ns;
	u64	last_arrival_ns;
	u64	ewma_write_ns;
};

void scalio_batch_init(struct scalio_batch_policy *p, u32 batch_max,
		       u32 max_bytes, u64 timeout_ns);

/* Record an arrival at @now_ns (updates the gap estimate). */
void scalio_batch_arrival(struct scalio_batch_policy *p, u64 now_ns);

/* Record that a batch write took @ns (updates the write-time estimate). */
void scalio_batch_written(struct scalio_batch_policy *p, u64 ns);

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
 *		one of them carries none (then nothing waits)
 *
 * Return: 0 to write now, else nanoseconds to wait for more (the caller
 * re-asks when woken by an arrival or the wait expires).
 */
u64 scalio_batch_wait_ns(const struct scalio_batch_policy *p, u32 nr,
			 u32 bytes, u64 oldest_ns, u64 now_ns, u32 announced);

#endif /* _SCALIO_BATCH_H */
