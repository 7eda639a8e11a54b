// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the YCSB key generators (zipf.c).  Prints TAP; exits
 * non-zero when any test fails.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zipf.h"

static int nr_test, nr_fail;

static void ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	nr_test++;
	if (!cond)
		nr_fail++;
	printf("%s %d - ", cond ? "ok" : "not ok", nr_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* |f - p| within k binomial standard deviations of n samples. */
static int close_to(double f, double p, uint64_t n, double k)
{
	double sigma = sqrt(p * (1.0 - p) / (double)n);

	return fabs(f - p) <= k * sigma;
}

static void test_fnv(void)
{
	/* Reference values from an independent (Python) implementation. */
	static const struct { uint64_t in, out; } v[] = {
		{ 0, 6284781860667377211ULL },
		{ 1, 8517097267634966620ULL },
		{ 42, 55488592825689361ULL },
		{ 123456789, 2350796791908741607ULL },
		{ 1099511627783ULL, 6089181255519459853ULL },
	};
	unsigned int i, good = 1;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (ycsb_fnvhash64(v[i].in) != v[i].out)
			good = 0;
	ok(good, "fnvhash64 matches YCSB's Utils.fnvhash64 reference values");
}

static void test_zeta(void)
{
	uint64_t n = (1ULL << 20) + 12345;
	double d, e;

	d = zipf_zeta_delta(0, n, 0.99);
	e = zipf_zeta(n, 0.99);
	ok(fabs(d - e) / d < 1e-11,
	   "Euler-Maclaurin zeta(%llu, 0.99) = %.12f vs direct %.12f",
	   (unsigned long long)n, e, d);
	d = zipf_zeta_delta(0, 3000000, 0.5);
	e = zipf_zeta(3000000, 0.5);
	ok(fabs(d - e) / d < 1e-11,
	   "Euler-Maclaurin zeta(3e6, 0.5) = %.9f vs direct %.9f", e, d);
	e = zipf_zeta(ZIPF_SCRAMBLE_ITEMS, 0.99);
	ok(fabs(e - ZIPF_SCRAMBLE_ZETAN_099) < 1e-9,
	   "zeta(1e10, 0.99) = %.14f matches YCSB's constant %.14f", e,
	   ZIPF_SCRAMBLE_ZETAN_099);
	ok(zipf_zeta(1, 0.99) == 1.0 && fabs(zipf_zeta(2, 0.99) -
	   (1.0 + pow(2, -0.99))) < 1e-15, "zeta(1) and zeta(2) exact");
}

static void test_zipf_plain(void)
{
	const uint64_t items = 100000, samples = 100000;
	struct zipf_gen z;
	struct ycsb_rng r;
	uint64_t i, c0 = 0, c1 = 0, out = 0, v;
	double p0, p1;

	ok(zipf_init(&z, 0, items - 1, 0.99, 0) == 0, "zipf_init 1e5 items");
	ok(zipf_init(&z, 0, 10, 1.0, 0) < 0 && zipf_init(&z, 5, 4, 0.5, 0) < 0,
	   "zipf_init refuses theta >= 1 and max < min");
	zipf_init(&z, 0, items - 1, 0.99, 0);
	ycsb_rng_seed(&r, 1);
	for (i = 0; i < samples; i++) {
		v = zipf_next(&z, ycsb_rng_double(&r));
		if (v >= items)
			out++;
		c0 += v == 0;
		c1 += v == 1;
	}
	p0 = zipf_prob_rank(&z, 0);
	p1 = zipf_prob_rank(&z, 1);
	ok(out == 0, "all 1e5 zipfian samples in [0, 1e5)");
	ok(close_to((double)c0 / samples, p0, samples, 5),
	   "rank-1 frequency %.5f close to 1/zeta(1e5, 0.99) = %.5f",
	   (double)c0 / samples, p0);
	ok(close_to((double)c1 / samples, p1, samples, 5),
	   "rank-2 frequency %.5f close to 0.5^0.99/zeta = %.5f",
	   (double)c1 / samples, p1);
	ok(zipf_next(&z, 0.0) == 0 && zipf_next(&z, 0.999999999999) < items,
	   "extreme uniforms stay in range");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_scrambled(void)
{
	const uint64_t records = 100000, samples = 100000;
	struct scrambled_zipf s, s2;
	struct ycsb_rng r, r2;
	uint64_t *v = malloc(samples * sizeof(*v));
	uint64_t i, out = 0, best = 0, best_key = 0, run = 0, hot;
	double p0;
	int same = 1, differ = 0;

	if (!v)
		exit(2);
	ok(scrambled_zipf_init(&s, 0, records - 1, 0.99) == 0,
	   "scrambled_zipf_init");
	ycsb_rng_seed(&r, 7);
	for (i = 0; i < samples; i++) {
		v[i] = scrambled_zipf_next(&s, ycsb_rng_double(&r));
		if (v[i] >= records)
			out++;
	}
	ok(out == 0, "all scrambled samples in [0, records)");
	qsort(v, samples, sizeof(*v), cmp_u64);
	for (i = 0; i < samples; i++) {
		run = (i && v[i] == v[i - 1]) ? run + 1 : 1;
		if (run > best) {
			best = run;
			best_key = v[i];
		}
	}
	hot = ycsb_fnvhash64(0) % records;
	ok(best_key == hot, "hottest key %llu is fnvhash64(rank 0) %% n = %llu",
	   (unsigned long long)best_key, (unsigned long long)hot);
	/* Other ranks hashing onto the same key add about 1/n. */
	p0 = 1.0 / ZIPF_SCRAMBLE_ZETAN_099;
	ok(close_to((double)best / samples, p0, samples, 5) ||
	   fabs((double)best / samples - p0) < 0.002,
	   "hottest key frequency %.5f close to 1/zeta(1e10, 0.99) = %.5f",
	   (double)best / samples, p0);

	/* Determinism by seed. */
	scrambled_zipf_init(&s2, 0, records - 1, 0.99);
	ycsb_rng_seed(&r, 12345);
	ycsb_rng_seed(&r2, 12345);
	for (i = 0; i < 10000; i++)
		if (scrambled_zipf_next(&s, ycsb_rng_double(&r)) !=
		    scrambled_zipf_next(&s2, ycsb_rng_double(&r2)))
			same = 0;
	ok(same, "same seed gives the same 10000 keys");
	ycsb_rng_seed(&r, 12345);
	ycsb_rng_seed(&r2, 12346);
	for (i = 0; i < 1000; i++)
		if (scrambled_zipf_next(&s, ycsb_rng_double(&r)) !=
		    scrambled_zipf_next(&s2, ycsb_rng_double(&r2)))
			differ++;
	ok(differ > 500, "different seeds give different keys (%d/1000 differ)",
	   differ);
	/* A non-default theta takes the Euler-Maclaurin zeta over 1e10. */
	ok(scrambled_zipf_init(&s2, 10, 19, 0.5) == 0 &&
	   scrambled_zipf_next(&s2, 0.3) >= 10 &&
	   scrambled_zipf_next(&s2, 0.3) <= 19,
	   "scrambled zipf with theta 0.5 over [10, 19]");
	free(v);
}

static void test_latest(void)
{
	struct latest_gen l;
	struct ycsb_rng r;
	uint64_t count = 1000, i, c_last = 0, out = 0, v;
	const uint64_t samples = 100000;
	double p;

	ok(latest_init(&l, count, 0.99) == 0, "latest_init");
	ycsb_rng_seed(&r, 3);
	p = 1.0 / zipf_zeta(count, 0.99);
	for (i = 0; i < samples; i++) {
		v = latest_next(&l, count, ycsb_rng_double(&r));
		if (v >= count)
			out++;
		c_last += v == count - 1;
	}
	ok(out == 0, "latest samples in [0, count)");
	ok(close_to((double)c_last / samples, p, samples, 5),
	   "newest key frequency %.5f close to 1/zeta(1000) = %.5f",
	   (double)c_last / samples, p);
	/* Growing key space: incremental zeta equals a fresh one. */
	for (i = 0; i < 5000; i++) {
		count++;
		v = latest_next(&l, count, ycsb_rng_double(&r));
		if (v >= count)
			out++;
	}
	ok(out == 0, "latest stays in range while the key space grows");
	ok(fabs(l.z.zetan - zipf_zeta(count, 0.99)) < 1e-9,
	   "incremental zeta %.12f equals zeta(%llu) %.12f", l.z.zetan,
	   (unsigned long long)count, zipf_zeta(count, 0.99));
}

static void test_rng(void)
{
	struct ycsb_rng r;
	uint64_t hist[10] = { 0 }, i;
	const uint64_t n = 100000;
	int good = 1;
	double d, lo = 1, hi = 0;

	ycsb_rng_seed(&r, 99);
	for (i = 0; i < n; i++) {
		hist[ycsb_rng_below(&r, 10)]++;
		d = ycsb_rng_double(&r);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	for (i = 0; i < 10; i++)
		if (!close_to((double)hist[i] / n, 0.1, n, 5))
			good = 0;
	ok(good, "ycsb_rng_below(10) is uniform");
	ok(lo >= 0.0 && hi < 1.0 && lo < 0.001 && hi > 0.999,
	   "ycsb_rng_double in [0, 1)");
}

int main(void)
{
	test_fnv();
	test_zeta();
	test_zipf_plain();
	test_scrambled();
	test_latest();
	test_rng();
	printf("1..%d\n", nr_test);
	if (nr_fail)
		printf("# %d of %d tests failed\n", nr_fail, nr_test);
	return nr_fail ? 1 : 0;
}
