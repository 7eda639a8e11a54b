// SPDX-License-Identifier: GPL-2.0
/*
 * Key-choice generators of the YCSB core workloads (see zipf.h).
 */
#include <math.h>
#include <stdint.h>

#include "zipf.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void ycsb_rng_seed(struct ycsb_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ycsb_rng_next(struct ycsb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double ycsb_rng_double(struct ycsb_rng *r)
{
	return (double)(ycsb_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t ycsb_rng_below(struct ycsb_rng *r, uint64_t n)
{
	/* Lemire's multiply-shift with rejection of the biased zone. */
	unsigned __int128 m = (unsigned __int128)ycsb_rng_next(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t t = -n % n;

		while (lo < t) {
			m = (unsigned __int128)ycsb_rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

uint64_t ycsb_fnvhash64(uint64_t v)
{
	uint64_t h = 0xCBF29CE484222325ULL;
	int64_t s;
	int i;

	for (i = 0; i < 8; i++) {
		h ^= v & 0xff;
		v >>= 8;
		h *= 1099511628211ULL;
	}
	/* Java's Math.abs(long); abs(Long.MIN_VALUE) stays MIN_VALUE. */
	s = (int64_t)h;
	if (s < 0 && s != INT64_MIN)
		s = -s;
	return (uint64_t)s;
}

double zipf_zeta_delta(uint64_t from, uint64_t to, double theta)
{
	double sum = 0.0;
	uint64_t i;

	for (i = from + 1; i <= to; i++)
		sum += pow((double)i, -theta);
	return sum;
}

/* Below this the sum is direct; above, Euler-Maclaurin from EM_START. */
#define ZETA_DIRECT_MAX	(1ULL << 20)
#define EM_START	1000ULL

double zipf_zeta(uint64_t n, double theta)
{
	double a = (double)EM_START, b = (double)n;
	double head, integral, f_a, f_b, d1, d3, s;

	if (n <= ZETA_DIRECT_MAX)
		return zipf_zeta_delta(0, n, theta);

	/*
	 * sum_{i=a..b} f(i) = int_a^b f + (f(a) + f(b)) / 2
	 *                     + (f'(b) - f'(a)) / 12 - (f'''(b) - f'''(a)) / 720
	 * with f(x) = x^-theta; the next term is below 1e-18 at a = 1000.
	 */
	head = zipf_zeta_delta(0, EM_START - 1, theta);
	s = 1.0 - theta;
	if (fabs(s) < 1e-12)
		integral = log(b / a);
	else
		integral = pow(a, s) * expm1(s * log(b / a)) / s;
	f_a = pow(a, -theta);
	f_b = pow(b, -theta);
	d1 = -theta * (pow(b, -theta - 1) - pow(a, -theta - 1));
	d3 = -theta * (theta + 1) * (theta + 2) *
	     (pow(b, -theta - 3) - pow(a, -theta - 3));
	return head + integral + (f_a + f_b) / 2 + d1 / 12 - d3 / 720;
}

static void zipf_set_eta(struct zipf_gen *z)
{
	z->eta = (1.0 - pow(2.0 / (double)z->items, 1.0 - z->theta)) /
		 (1.0 - z->zeta2 / z->zetan);
}

int zipf_init(struct zipf_gen *z, uint64_t min, uint64_t max, double theta,
	      double zetan)
{
	if (max < min || !(theta > 0.0 && theta < 1.0))
		return -1;
	if (max - min == UINT64_MAX)
		return -1;
	z->base = min;
	z->items = max - min + 1;
	z->theta = theta;
	z->alpha = 1.0 / (1.0 - theta);
	z->zeta2 = zipf_zeta(2, theta);
	z->zetan = zetan > 0.0 ? zetan : zipf_zeta(z->items, theta);
	zipf_set_eta(z);
	return 0;
}

static uint64_t zipf_draw(const struct zipf_gen *z, uint64_t n, double u)
{
	double uz = u * z->zetan;
	uint64_t r;

	if (uz < 1.0)
		return z->base;
	if (uz < 1.0 + pow(0.5, z->theta))
		return z->base + (n > 1 ? 1 : 0);
	r = (uint64_t)((double)n * pow(z->eta * u - z->eta + 1.0, z->alpha));
	if (r >= n)		/* guard against rounding at u -> 1 */
		r = n - 1;
	return z->base + r;
}

uint64_t zipf_next(const struct zipf_gen *z, double u)
{
	return zipf_draw(z, z->items, u);
}

uint64_t zipf_next_n(struct zipf_gen *z, uint64_t n, double u)
{
	if (n == 0)
		return z->base;
	if (n > z->items) {
		z->zetan += zipf_zeta_delta(z->items, n, z->theta);
		z->items = n;
		zipf_set_eta(z);
	}
	return zipf_draw(z, n, u);
}

double zipf_prob_rank(const struct zipf_gen *z, unsigned int r)
{
	if (r == 0)
		return 1.0 / z->zetan;
	if (r == 1)
		return pow(0.5, z->theta) / z->zetan;
	return -1.0;
}

int scrambled_zipf_init(struct scrambled_zipf *s, uint64_t min, uint64_t max,
			double theta)
{
	double zetan = 0.0;

	if (max < min)
		return -1;
	/* YCSB uses its precomputed constant for the default theta. */
	if (theta == ZIPF_DEFAULT_THETA)
		zetan = ZIPF_SCRAMBLE_ZETAN_099;
	if (zipf_init(&s->z, 0, ZIPF_SCRAMBLE_ITEMS - 1, theta, zetan))
		return -1;
	s->min = min;
	s->count = max - min + 1;
	return 0;
}

uint64_t scrambled_zipf_next(const struct scrambled_zipf *s, double u)
{
	return s->min + ycsb_fnvhash64(zipf_next(&s->z, u)) % s->count;
}

int latest_init(struct latest_gen *l, uint64_t count, double theta)
{
	if (count == 0)
		return -1;
	return zipf_init(&l->z, 0, count - 1, theta, 0.0);
}

uint64_t latest_next(struct latest_gen *l, uint64_t count, double u)
{
	if (count == 0)
		return 0;
	return count - 1 - zipf_next_n(&l->z, count, u);
}
