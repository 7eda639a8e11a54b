// SPDX-License-Identifier: GPL-2.0
/*
 * Group-commit batching policy: exact EWMA arithmetic, the rules of
 * scalio_batch.h one by one, and a small discrete-event simulation of the
 * commit thread under light and heavy load.
 */
#include "harness.h"
#include "common/scalio_batch.h"

#define US	1000ULL
#define T	(100 * US)	/* batch timeout */

static void init_values(void)
{
	struct scalio_batch_policy p;

	scalio_batch_init(&p, 0, 1 << 20, T);
	CHECK_EQ(p.batch_max, 1);
	scalio_batch_init(&p, 64, 1 << 20, T);
	CHECK_EQ(p.batch_max, 64);
	CHECK_EQ(p.max_bytes, 1 << 20);
	CHECK_EQ(p.timeout_ns, T);
	CHECK_EQ(p.last_arrival_ns, 0);
}

static void ewma_exact(void)
{
	struct scalio_batch_policy p;

	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_arrival(&p, 10000);
	CHECK_EQ(p.last_arrival_ns, 10000);
	scalio_batch_arrival(&p, 10800);	/* first gap: taken as is */
	CHECK_EQ(p.ewma_gap_ns, 800);
	scalio_batch_arrival(&p, 12400);	/* gap 1600: 800 + 800/8 */
	CHECK_EQ(p.ewma_gap_ns, 900);
	scalio_batch_arrival(&p, 12500);	/* gap 100: 900 - 800/8 */
	CHECK_EQ(p.ewma_gap_ns, 800);
	scalio_batch_arrival(&p, 12000);	/* clock went back: gap 0 */
	CHECK_EQ(p.ewma_gap_ns, 700);
	CHECK_EQ(p.last_arrival_ns, 12000);
	/* An arrival at time 0 still counts as an arrival. */
	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_arrival(&p, 0);
	scalio_batch_arrival(&p, 500);
	CHECK_EQ(p.ewma_gap_ns, 499);
}

static void lone_request(void)
{
	struct scalio_batch_policy p;

	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_arrival(&p, 5000);
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, 5000, 5000, 0), 0);
	/* Requests spaced more than the timeout apart never wait. */
	scalio_batch_arrival(&p, 5000 + 2 * T);
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, 5000 + 2 * T,
				      5000 + 2 * T, 0), 0);
	scalio_batch_arrival(&p, 5000 + 3 * T);
	CHECK_EQ(p.ewma_gap_ns, 2 * T - T / 8);
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, 5000 + 3 * T,
				      5000 + 3 * T, 0), 0);
	/* Nothing queued: nothing to wait for. */
	CHECK_EQ(scalio_batch_wait_ns(&p, 0, 0, 0, 0, 0), 0);
}

static void heavy_load(void)
{
	struct scalio_batch_policy p;
	u64 t = 1000000, t0;
	int i;

	scalio_batch_init(&p, 64, 1 << 20, T);
	for (i = 0; i < 100; i++)
		scalio_batch_arrival(&p, t += 10 * US);
	CHECK_EQ(p.ewma_gap_ns, 10 * US);
	t0 = t;
	/* Wait until the oldest request has waited the timeout, no more. */
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, 500, t0, t0, 0), T);
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, 500, t0, t0 + 30 * US, 0), 70 * US);
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, 500, t0, t0 + T - 1, 0), 1);
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, 500, t0, t0 + T, 0), 0);
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, 500, t0, t0 + 5 * T, 0), 0);
	/* An oldest stamp in the future is treated as just arrived. */
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, 500, t0 + 50, t0, 0), T);
	/* Full batch (ops or bytes): write now. */
	CHECK_EQ(scalio_batch_wait_ns(&p, 64, 500, t0, t0, 0), 0);
	CHECK_EQ(scalio_batch_wait_ns(&p, 63, 500, t0, t0, 0), T);
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, 1 << 20, t0, t0, 0), 0);
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, (1 << 20) - 1, t0, t0, 0), T);
	/* Gap estimate right at the timeout: light load. */
	p.ewma_gap_ns = T;
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, 500, t0, t0, 0), 0);
	p.ewma_gap_ns = T - 1;
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, 500, t0, t0, 0), T);
}

static void no_batching(void)
{
	struct scalio_batch_policy p;
	u64 t = 1000;
	int i;

	scalio_batch_init(&p, 1, 1 << 20, T);
	for (i = 0; i < 50; i++)
		scalio_batch_arrival(&p, t += 1 * US);
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, t, t, 0), 0);
	CHECK(!scalio_batch_fits(&p, 1, 100, 100));
	CHECK(scalio_batch_fits(&p, 0, 0, 100));

	scalio_batch_init(&p, 64, 1 << 20, 0);
	for (i = 0; i < 50; i++)
		scalio_batch_arrival(&p, t += 1 * US);
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, t, t, 0), 0);
}

static void fits(void)
{
	struct scalio_batch_policy p;

	scalio_batch_init(&p, 4, 1000, T);
	CHECK(scalio_batch_fits(&p, 0, 0, 5000));	/* alone: always */
	CHECK(scalio_batch_fits(&p, 3, 500, 500));
	CHECK(!scalio_batch_fits(&p, 4, 0, 1));
	CHECK(!scalio_batch_fits(&p, 3, 500, 501));
	scalio_batch_init(&p, 1024, ~0U, T);
	CHECK(!scalio_batch_fits(&p, 1, ~0U, ~0U));	/* no u32 wrap */
	CHECK(scalio_batch_fits(&p, 1, ~0U - 1, 1));
}

/*
 * Discrete-event simulation: arrivals every @gap ns; the commit thread
 * writes instantly whenever the policy says 0, otherwise sleeps until the
 * next arrival or the end of the wait, whichever comes first.
 * Returns the largest wait of any request, and the mean batch size.
 */
static u64 simulate(u32 batch_max, u64 gap, int n, double *mean_batch)
{
	struct scalio_batch_policy p;
	u64 now = 0, next = gap, oldest = 0, max_wait = 0, w;
	int arrived = 0, queued = 0, batches = 0, written = 0;

	scalio_batch_init(&p, batch_max, 1 << 20, T);
	while (written < n) {
		if (queued) {
			w = scalio_batch_wait_ns(&p, queued, queued * 100,
						 oldest, now, 0);
			if (!w) {
				if (now - oldest > max_wait)
					max_wait = now - oldest;
				written += queued;
				queued = 0;
				batches++;
				continue;
			}
			if (arrived == n || now + w < next) {
				now += w;
				continue;
			}
		}
		if (arrived == n)
			break;
		now = next;
		next += gap;
		scalio_batch_arrival(&p, now);
		if (!queued)
			oldest = now;
		if (queued < (int)batch_max &&
		    scalio_batch_fits(&p, queued, queued * 100, 100)) {
			queued++;
			arrived++;
		} else {
			/* Full: the thread writes first (never happens when
			 * the policy flushes full batches itself). */
			CHECK(0);
			break;
		}
	}
	*mean_batch = batches ? (double)written / batches : 0;
	return max_wait;
}

static void simulation(void)
{
	double mean;
	u64 mw;

	/* Light load: every request alone, and none waits at all. */
	mw = simulate(64, 1000 * US, 200, &mean);
	CHECK_EQ(mw, 0);
	CHECK(mean == 1.0);
	/* Heavy load: batches of about timeout / gap, none waits > T. */
	mw = simulate(64, 10 * US, 2000, &mean);
	CHECK(mw <= T);
	CHECK(mean >= 9.0 && mean <= 11.0);
	/* More than batch_max per timeout: full batches flush early (the
	 * first requests go alone until there is a gap estimate). */
	mw = simulate(8, 1 * US, 2000, &mean);
	CHECK(mw <= T);		/* only the tail, when arrivals stop */
	CHECK(mean > 7.9 && mean <= 8.0);
	/* batch_max 1: one request per write, no wait. */
	mw = simulate(1, 1 * US, 500, &mean);
	CHECK_EQ(mw, 0);
	CHECK(mean == 1.0);
}

/*
 * The inflight hint replaces the load estimate: a lone client (hint 1)
 * never waits, even under a long timeout and dense arrivals; a client
 * that announced company is waited for until it is all there, never past
 * the timeout, never past a full batch.
 */
static void hinted(void)
{
	struct scalio_batch_policy p;
	u64 t = 1000000, t0;
	int i;

	scalio_batch_init(&p, 64, 1 << 20, T);
	for (i = 0; i < 50; i++)
		scalio_batch_arrival(&p, t += 1 * US);
	t0 = t;
	/* Dense arrivals: unhinted requests wait, a hint of 1 does not. */
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, t0, t0, 0), T);
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, t0, t0, 1), 0);
	CHECK_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0, 3), 0);
	CHECK_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0, 2), 0);
	/* Company announced and missing: wait, bounded by the timeout. */
	CHECK_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0, 4), T);
	CHECK_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0 + T - 1, 4), 1);
	CHECK_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0 + T, 4), 0);
	/* A hint past batch_max (or a lying one) ends at a full batch. */
	CHECK_EQ(scalio_batch_wait_ns(&p, 63, 300, t0, t0, 0xffff), T);
	CHECK_EQ(scalio_batch_wait_ns(&p, 64, 300, t0, t0, 0xffff), 0);
	CHECK_EQ(scalio_batch_wait_ns(&p, 5, 1 << 20, t0, t0, 0xffff), 0);
	/* Light load by the estimate does not override announced company. */
	p.ewma_gap_ns = 10 * T;
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, t0, t0, 0), 0);
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, t0, t0, 2), T);
	/* No batching configured: hints change nothing. */
	scalio_batch_init(&p, 1, 1 << 20, T);
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, t0, t0, 64), 0);
	scalio_batch_init(&p, 64, 1 << 20, 0);
	CHECK_EQ(scalio_batch_wait_ns(&p, 1, 100, t0, t0, 64), 0);
}

static const struct t_case cases[] = {
	T_CASE(init_values),
	T_CASE(ewma_exact),
	T_CASE(lone_request),
	T_CASE(heavy_load),
	T_CASE(no_batching),
	T_CASE(fits),
	T_CASE(simulation),
	T_CASE(hinted),
};

T_MAIN(cases)
