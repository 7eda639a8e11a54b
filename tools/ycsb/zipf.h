/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Key-choice generators of the YCSB core workloads, as pure functions.
 *
 * Every generator takes its uniform random number from the caller
 * (u in [0, 1)), so results are a deterministic function of the seed of
 * the caller's rng and easy to unit test.  Nothing here is thread-safe:
 * each thread owns its generators.
 *
 * Zipfian: Gray et al., "Quickly generating billion-record synthetic
 * databases" (SIGMOD'94), exactly as YCSB's ZipfianGenerator: rank 0 has
 * probability 1/zeta(n, theta), rank 1 0.5^theta/zeta(n, theta), the rest
 * follows the closed-form approximation.
 *
 * Scrambled Zipfian: as YCSB's ScrambledZipfianGenerator, a Zipfian over
 * 10^10 items whose value is hashed with YCSB's 64-bit FNV and reduced
 * modulo the number of records, so popular items are spread over the key
 * space instead of being the lowest key numbers.
 *
 * Latest: as YCSB's SkewedLatestGenerator, a Zipfian over recency: the
 * most recently inserted key is the most popular.
 */
#ifndef SCALIO_YCSB_ZIPF_H
#define SCALIO_YCSB_ZIPF_H

#include <stdint.h>

#define ZIPF_DEFAULT_THETA	0.99
/* YCSB's ScrambledZipfianGenerator item space and its zeta for 0.99. */
#define ZIPF_SCRAMBLE_ITEMS	10000000000ULL
#define ZIPF_SCRAMBLE_ZETAN_099	26.46902820178302

/* xoshiro256** seeded through splitmix64: small, fast, good enough. */
struct ycsb_rng {
	uint64_t s[4];
};

void ycsb_rng_seed(struct ycsb_rng *r, uint64_t seed);
uint64_t ycsb_rng_next(struct ycsb_rng *r);
/* Uniform double in [0, 1) with 53 random bits. */
double ycsb_rng_double(struct ycsb_rng *r);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t ycsb_rng_below(struct ycsb_rng *r, uint64_t n);

/* YCSB's Utils.fnvhash64(): FNV-1 over the 8 little-endian bytes, abs(). */
uint64_t ycsb_fnvhash64(uint64_t v);

/*
 * zeta(n, theta) = sum_{i=1..n} i^-theta.  Summed directly for small n,
 * by Euler-Maclaurin for large n (relative error < 1e-12), so 10^10 items
 * cost microseconds instead of minutes.
 */
double zipf_zeta(uint64_t n, double theta);
/* sum_{i=from+1..to} i^-theta, summed directly (to - from small). */
double zipf_zeta_delta(uint64_t from, uint64_t to, double theta);

struct zipf_gen {
	uint64_t base;		/* smallest value returned */
	uint64_t items;		/* number of values the constants are for */
	double theta;
	double alpha;		/* 1 / (1 - theta) */
	double zeta2;		/* zeta(2, theta) */
	double zetan;		/* zeta(items, theta) */
	double eta;
};

/*
 * zipf_init - Zipfian over [min, max], theta in (0, 1).  Returns 0, or -1
 * on bad arguments.  zetan may be given (> 0) to skip computing it.
 */
int zipf_init(struct zipf_gen *z, uint64_t min, uint64_t max, double theta,
	      double zetan);
/* One value in [min, max]; rank 0 (the value min) is the most popular. */
uint64_t zipf_next(const struct zipf_gen *z, double u);
/*
 * zipf_next_n - value in [base, base + n - 1] for a growing item count:
 * when n exceeds the count the constants are for, zeta is extended
 * incrementally (cheap for the small steps of an insert workload).
 */
uint64_t zipf_next_n(struct zipf_gen *z, uint64_t n, double u);
/* Probability of rank r (0-based) under the exact generator, r = 0 or 1. */
double zipf_prob_rank(const struct zipf_gen *z, unsigned int r);

struct scrambled_zipf {
	struct zipf_gen z;	/* over ZIPF_SCRAMBLE_ITEMS */
	uint64_t min;
	uint64_t count;
};

int scrambled_zipf_init(struct scrambled_zipf *s, uint64_t min, uint64_t max,
			double theta);
uint64_t scrambled_zipf_next(const struct scrambled_zipf *s, double u);

struct latest_gen {
	struct zipf_gen z;
};

/* Latest over a key space that starts with @count keys [0, count). */
int latest_init(struct latest_gen *l, uint64_t count, double theta);
/* A key in [0, count): count - 1 is the most popular. */
uint64_t latest_next(struct latest_gen *l, uint64_t count, double u);

#endif /* SCALIO_YCSB_ZIPF_H */
