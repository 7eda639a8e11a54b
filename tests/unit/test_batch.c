// SPDX-License-Identifier: GPL-2.0
/*
 * Group-commit batching policy: exact EWMA arithmetic, the rules of
 * scalio_batch.h one by one, and a discrete-event simulation of the
 * self-clocked commit thread with one closed-loop client.
 */
#include "kselftest_harness.h"
#include "common/scalio_batch.h"

#define US	1000ULL
#define T	(1000 * US)	/* batch_timeout_us: the cap */

TEST(init_values)
{
	struct scalio_batch_policy p;

	scalio_batch_init(&p, 0, 1 << 20, T);
	EXPECT_EQ(p.batch_max, 1);
	scalio_batch_init(&p, 64, 1 << 20, T);
	EXPECT_EQ(p.batch_max, 64);
	EXPECT_EQ(p.max_bytes, 1 << 20);
	EXPECT_EQ(p.timeout_ns, T);
	EXPECT_EQ(p.last_arrival_ns, 0);
}

TEST(ewma_exact)
{
	struct scalio_batch_policy p;

	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_arrival(&p, 10000);
	EXPECT_EQ(p.last_arrival_ns, 10000);
	scalio_batch_arrival(&p, 10800);	/* first gap: taken as is */
	EXPECT_EQ(p.ewma_gap_ns, 800);
	scalio_batch_arrival(&p, 12400);	/* gap 1600: 800 + 800/8 */
	EXPECT_EQ(p.ewma_gap_ns, 900);
	scalio_batch_arrival(&p, 12500);	/* gap 100: 900 - 800/8 */
	EXPECT_EQ(p.ewma_gap_ns, 800);
	scalio_batch_arrival(&p, 12000);	/* clock went back: gap 0 */
	EXPECT_EQ(p.ewma_gap_ns, 700);
	EXPECT_EQ(p.last_arrival_ns, 12000);
	/* An arrival at time 0 still counts as an arrival. */
	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_arrival(&p, 0);
	scalio_batch_arrival(&p, 500);
	EXPECT_EQ(p.ewma_gap_ns, 499);
}

/* A measured write time and a dense stream, so that waits can happen. */
static void measured(struct scalio_batch_policy *p, u64 *t, u64 write_ns)
{
	int i;

	scalio_batch_written(p, write_ns);
	for (i = 0; i < 50; i++)
		scalio_batch_arrival(p, *t += 1 * US);
}

TEST(gap_clip)
{
	struct scalio_batch_policy p;

	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_arrival(&p, 10000);
	scalio_batch_arrival(&p, 10700);	/* first gap 700 */
	EXPECT_EQ(p.ewma_gap_ns, 700);
	/* An idle second is clipped to max(4 x 700, 1 us) = 2800. */
	scalio_batch_arrival(&p, 10700 + 1000000000ULL);
	EXPECT_EQ(p.ewma_gap_ns, 700 + (2800 - 700) / 8);
	/* A zero estimate leaves zero through the 1 us floor. */
	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_arrival(&p, 5000);
	scalio_batch_arrival(&p, 5000);
	EXPECT_EQ(p.ewma_gap_ns, 0);
	scalio_batch_arrival(&p, 5000 + 1000000);
	EXPECT_EQ(p.ewma_gap_ns, 1000 / 8);
	/* Gaps below the floor are never clipped. */
	scalio_batch_arrival(&p, 5000 + 1000000 + 999);
	EXPECT_EQ(p.ewma_gap_ns, 125 + (999 - 125) / 8);
}

TEST(write_ewma)
{
	struct scalio_batch_policy p;

	scalio_batch_init(&p, 64, 1 << 20, T);
	EXPECT_EQ(p.ewma_write_ns, 0);
	scalio_batch_written(&p, 8000);		/* first: as is */
	EXPECT_EQ(p.ewma_write_ns, 8000);
	scalio_batch_written(&p, 16000);	/* + 8000/4 */
	EXPECT_EQ(p.ewma_write_ns, 10000);
	scalio_batch_written(&p, 2000);		/* - 8000/4 */
	EXPECT_EQ(p.ewma_write_ns, 8000);
	/* A zero duration still counts as measured. */
	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_written(&p, 0);
	EXPECT_EQ(p.ewma_write_ns, 1);
}

/* Requests without a hint (older hosts) never wait: self-clocking only. */
TEST(unhinted)
{
	struct scalio_batch_policy p;
	u64 t = 1000000;

	scalio_batch_init(&p, 64, 1 << 20, T);
	measured(&p, &t, 20 * US);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 1, 100, t, t, 0), 0);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 5, 500, t, t, 0), 0);
	/* Nothing queued: nothing to wait for. */
	EXPECT_EQ(scalio_batch_wait_ns(&p, 0, 0, 0, 0, 64), 0);
}

/* Until a write and a gap were measured there is no basis for a wait. */
TEST(unmeasured)
{
	struct scalio_batch_policy p;
	u64 t = 1000000;

	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_arrival(&p, t);
	scalio_batch_arrival(&p, t + US);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 1, 100, t, t + US, 64), 0);
	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_written(&p, 20 * US);
	scalio_batch_arrival(&p, t);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 1, 100, t, t, 64), 0);
}

/*
 * Announced company is waited for: until it is all there, the batch is
 * full, the stream stops (4 smoothed gaps without an arrival), or the
 * oldest request has waited 4 write times, or the cap.
 */
TEST(hinted)
{
	struct scalio_batch_policy p;
	u64 t = 1000000, t0;

	scalio_batch_init(&p, 64, 1 << 20, T);
	measured(&p, &t, 20 * US);		/* bound: 80 us < T */
	EXPECT_EQ(p.ewma_gap_ns, 1 * US);
	t0 = t;					/* the last arrival */
	/* A lone client (hint 1) or all announced here: write now. */
	EXPECT_EQ(scalio_batch_wait_ns(&p, 1, 100, t0, t0, 1), 0);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0, 3), 0);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0, 2), 0);
	/* Company missing: wait for the next arrival, 4 gaps at most. */
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0, 4), 4 * US);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0 + 3500, 4), 500);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0 + 4 * US, 4), 0);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0, t0 + 5 * US, 4), 0);
	/* Still arriving: up to 4 write times since the oldest. */
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0 - 78 * US, t0, 4),
		 2 * US);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0 - 80 * US, t0, 4), 0);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0 - 100 * US, t0, 4), 0);
	/* ... unless the next arrival would come after the bound. */
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0 - 79 * US + 1, t0, 4),
		 US + 1);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0 - 79 * US, t0, 4), 0);
	/* A hint past batch_max (or a lying one) ends at a full batch. */
	EXPECT_EQ(scalio_batch_wait_ns(&p, 63, 300, t0, t0, 0xffff), 4 * US);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 64, 300, t0, t0, 0xffff), 0);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 5, 1 << 20, t0, t0, 0xffff), 0);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 5, (1 << 20) - 1, t0, t0, 6),
		 4 * US);
	/* An oldest stamp in the future is treated as just arrived. */
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0 + 50, t0, 4), 4 * US);

	/* A slow device: the cap bounds the wait, not 4 write times. */
	scalio_batch_written(&p, 10 * T);
	EXPECT_TRUE(p.ewma_write_ns > T / 4);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0 - T + 3 * US, t0, 4),
		 3 * US);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t0 - T, t0, 4), 0);
	/* Right at the cap / 4. */
	scalio_batch_init(&p, 64, 1 << 20, T);
	t = 1000000;
	measured(&p, &t, T / 4);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t - T + 3 * US, t, 4),
		 3 * US);
	/* A huge gap estimate: sparse writers, no wait, no overflow. */
	p.ewma_gap_ns = ~0ULL - 1;
	EXPECT_EQ(scalio_batch_wait_ns(&p, 3, 300, t, t, 4), 0);
}

/*
 * A few synchronous writers (YCSB A from 8 threads): their PUTs announce
 * each other, but come further apart than a write takes; waiting for them
 * would only delay every PUT.
 */
TEST(sparse)
{
	struct scalio_batch_policy p;
	u64 t = 1000000;
	int i;

	scalio_batch_init(&p, 64, 1 << 20, T);
	scalio_batch_written(&p, 50 * US);	/* bound: 200 us */
	for (i = 0; i < 20; i++)
		scalio_batch_arrival(&p, t += 300 * US);
	EXPECT_EQ(p.ewma_gap_ns, 300 * US);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 1, 100, t, t, 8), 0);
	/* Within the bound (200 us) but slower than a write (50 us). */
	for (i = 0; i < 60; i++)
		scalio_batch_arrival(&p, t += 100 * US);
	EXPECT_TRUE(p.ewma_gap_ns >= 50 * US && p.ewma_gap_ns < 200 * US);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 1, 100, t, t, 8), 0);
	/* Denser than the bound: waited for (4 gaps, within the bound). */
	for (i = 0; i < 40; i++)
		scalio_batch_arrival(&p, t += 40 * US);
	EXPECT_TRUE(p.ewma_gap_ns < 50 * US);
	EXPECT_TRUE(scalio_batch_wait_ns(&p, 1, 100, t, t, 8) > 0);
}

TEST(no_batching)
{
	struct scalio_batch_policy p;
	u64 t = 1000;

	scalio_batch_init(&p, 1, 1 << 20, T);
	measured(&p, &t, 20 * US);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 1, 100, t, t, 64), 0);
	EXPECT_TRUE(!scalio_batch_fits(&p, 1, 100, 100));
	EXPECT_TRUE(scalio_batch_fits(&p, 0, 0, 100));

	/* batch_timeout_us = 0: batches, never waits. */
	scalio_batch_init(&p, 64, 1 << 20, 0);
	measured(&p, &t, 20 * US);
	EXPECT_EQ(scalio_batch_wait_ns(&p, 1, 100, t, t, 64), 0);
	EXPECT_TRUE(scalio_batch_fits(&p, 1, 100, 100));
}

TEST(fits)
{
	struct scalio_batch_policy p;

	scalio_batch_init(&p, 4, 1000, T);
	EXPECT_TRUE(scalio_batch_fits(&p, 0, 0, 5000));	/* alone: always */
	EXPECT_TRUE(scalio_batch_fits(&p, 3, 500, 500));
	EXPECT_TRUE(!scalio_batch_fits(&p, 4, 0, 1));
	EXPECT_TRUE(!scalio_batch_fits(&p, 3, 500, 501));
	scalio_batch_init(&p, 1024, ~0U, T);
	EXPECT_TRUE(!scalio_batch_fits(&p, 1, ~0U, ~0U));	/* no u32 wrap */
	EXPECT_TRUE(scalio_batch_fits(&p, 1, ~0U - 1, 1));
}

/*
 * Discrete-event simulation of the commit thread and one closed-loop
 * client: the client keeps @depth writes outstanding, sends one every
 * @send ns while it has a free slot, each reaching the target @half ns
 * later with hint @depth (@hint false: no hint); the commit thread writes
 * one batch at a time, each taking @write ns, and its acks reach the
 * client @half ns later.  The thread asks the policy exactly as
 * scalio_tgt_commit_wait_batch() does: after every arrival and when its
 * wait ends.
 */
struct sim_result {
	double	mean_batch;
	u64	max_wait;	/* longest a request waited before its write */
	u64	done_at;
};

#define SIM_MAX	4096

static struct sim_result simulate(struct __test_metadata *_metadata,
				  u32 batch_max, u32 depth, bool hint,
				  u64 send, u64 half, u64 write, int n)
{
	struct scalio_batch_policy p;
	struct sim_result r = { 0 };
	static u64 q_arr[SIM_MAX], ack_at[SIM_MAX];
	u64 now = 0, next_send = 0, wake = ~0ULL, wend = ~0ULL;
	int qh = 0, qt = 0, in_write = 0, outstanding = 0, sent = 0;
	int written = 0, batches = 0, nack = 0, i;
	/* messages in flight to the target, in send order */
	static u64 fly[SIM_MAX];
	int fh = 0, ft = 0;

	scalio_batch_init(&p, batch_max, 1 << 30, T);
	while (written < n) {
		u64 next_arr = fh < ft ? fly[fh] : ~0ULL;
		u64 next_ack = ~0ULL;
		u64 can_send = (sent < n && outstanding < (int)depth) ?
			       next_send : ~0ULL;
		u64 ev;

		for (i = 0; i < nack; i++)
			next_ack = min_t(u64, next_ack, ack_at[i]);
		ev = min_t(u64, min_t(u64, next_arr, next_ack),
			   min_t(u64, min_t(u64, can_send, wend), wake));
		EXPECT_TRUE(ev != ~0ULL);
		if (ev == ~0ULL)
			break;
		now = ev;
		if (ev == can_send) {
			fly[ft++] = now + half;
			sent++;
			outstanding++;
			next_send = now + send;
			continue;
		}
		if (ev == next_ack) {
			for (i = 0; i < nack; i++)
				if (ack_at[i] == now) {
					ack_at[i--] = ack_at[--nack];
					outstanding--;
					if (next_send < now)
						next_send = now;
				}
			continue;
		}
		if (ev == next_arr) {
			fh++;
			scalio_batch_arrival(&p, now);
			q_arr[qt++] = now;
		} else if (ev == wend) {
			scalio_batch_written(&p, write);
			for (i = 0; i < in_write; i++)
				ack_at[nack++] = now + half;
			written += in_write;
			in_write = 0;
			wend = ~0ULL;
		} else {
			wake = ~0ULL;
		}
		/* The thread, when not writing, asks the policy. */
		if (!in_write && qh < qt) {
			u32 nr = min_t(u32, qt - qh, batch_max);
			u64 w = scalio_batch_wait_ns(&p, nr, nr * 100,
						     q_arr[qh], now,
						     hint ? depth : 0);

			if (w) {
				wake = now + w;
				continue;
			}
			wake = ~0ULL;
			for (i = 0; i < (int)nr; i++)
				r.max_wait = max_t(u64, r.max_wait,
						   now - q_arr[qh + i]);
			qh += nr;
			in_write = nr;
			batches++;
			wend = now + write;
		}
	}
	r.mean_batch = batches ? (double)written / batches : 0;
	r.done_at = now;
	return r;
}

TEST(simulation)
{
	struct sim_result a, b;

	/* Depth 1: every request alone, and none waits. */
	a = simulate(_metadata, 64, 1, true, 1 * US, 5 * US, 20 * US, 200);
	EXPECT_TRUE(a.mean_batch == 1.0);
	EXPECT_EQ(a.max_wait, 0);
	/*
	 * Depth 64, a client slower at sending than the SSD at writing
	 * (each send 2 us, a write 20 us: the bed's shape): self-clocking
	 * alone batches about write / send; waiting for the announced
	 * company batches far more, never waiting past 4 write times.
	 */
	a = simulate(_metadata, 64, 64, false, 2 * US, 5 * US, 20 * US, 3000);
	b = simulate(_metadata, 64, 64, true, 2 * US, 5 * US, 20 * US, 3000);
	EXPECT_TRUE(a.mean_batch >= 5.0 && a.mean_batch <= 16.0);
	EXPECT_TRUE(b.mean_batch >= 3 * a.mean_batch);
	EXPECT_TRUE(b.max_wait <= 4 * 20 * US + 20 * US);
	/* ... and the client is not slower for it (closed loop). */
	EXPECT_TRUE(b.done_at <= a.done_at + a.done_at / 20);
	/* A fast client: full batches, waits short. */
	b = simulate(_metadata, 64, 128, true, 100, 5 * US, 20 * US, 3000);
	EXPECT_TRUE(b.mean_batch > 60.0);
	/* batch_max 1: one request per write, no wait. */
	a = simulate(_metadata, 1, 64, true, 1 * US, 5 * US, 20 * US, 500);
	EXPECT_TRUE(a.mean_batch == 1.0);
}

TEST_HARNESS_MAIN
