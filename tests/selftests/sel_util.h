/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the scalio selftest programs (and tests/crash):
 * argument parsing, a monotonic clock and a 64-bit mixer.
 */
#ifndef _SCALIO_SEL_UTIL_H
#define _SCALIO_SEL_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* A number in [min, max] from a command-line argument, or exit 2. */
static inline unsigned long sel_num_arg(const char *prog, const char *s,
					unsigned long min, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad number '%s' (%lu..%lu)\n",
			prog, s, min, max);
		exit(2);
	}
	return v;
}

/* Seconds on CLOCK_MONOTONIC. */
static inline double sel_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A 64-bit mixer (splitmix64's finalizer): derives well-spread values
 * from a key and a version, so a value read back names them.
 */
static inline uint64_t sel_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif /* _SCALIO_SEL_UTIL_H */
