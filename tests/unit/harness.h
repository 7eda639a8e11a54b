/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP-producing test harness for the user-space unit tests.
 *
 * Each test binary lists its cases with T_CASE() in a table and ends with
 * T_MAIN(table).  A case fails when any CHECK* inside it fails; the
 * failing expression and, for CHECK_EQ, both values are printed as KTAP
 * diagnostics ("# ...").  The binary prints "KTAP version 1", the plan,
 * one "ok N - name" / "not ok N - name" line per case, and exits 1 if any
 * case failed.  run.sh nests the binaries' output under one top-level plan.
 */
#ifndef _SCALIO_TEST_HARNESS_H
#define _SCALIO_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct t_case {
	const char *name;
	void (*fn)(void);
};

static int t_case_failed;
static unsigned long t_checks;

#define T_CASE(f)	{ #f, f }

#define CHECK(cond) do {						\
	t_checks++;							\
	if (!(cond)) {							\
		printf("# %s:%d: CHECK(%s) failed\n",			\
		       __FILE__, __LINE__, #cond);			\
		t_case_failed = 1;					\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	t_checks++;							\
	if (_a != _b) {							\
		printf("# %s:%d: CHECK_EQ(%s, %s) failed: %lld (0x%llx) != %lld (0x%llx)\n", \
		       __FILE__, __LINE__, #a, #b, _a,			\
		       (unsigned long long)_a, _b, (unsigned long long)_b); \
		t_case_failed = 1;					\
	}								\
} while (0)

static inline int t_run(const struct t_case *cases, size_t n)
{
	size_t i;
	int failed = 0;

	printf("KTAP version 1\n1..%zu\n", n);
	for (i = 0; i < n; i++) {
		t_case_failed = 0;
		cases[i].fn();
		printf("%sok %zu - %s\n", t_case_failed ? "not " : "", i + 1,
		       cases[i].name);
		fflush(stdout);
		failed += t_case_failed;
	}
	printf("# %zu cases, %d failed, %lu checks\n", n, failed, t_checks);
	return failed ? 1 : 0;
}

#define T_MAIN(table)							\
int main(void)								\
{									\
	return t_run(table, sizeof(table) / sizeof(table[0]));		\
}

#endif /* _SCALIO_TEST_HARNESS_H */
