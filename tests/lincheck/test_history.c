// SPDX-License-Identifier: GPL-2.0
/*
 * test_history - exercises the recorder (history.c): several threads run
 * ops against a mutex-protected in-memory map (linearizable by
 * construction) and record them; the resulting file must pass lincheck.
 * With -b one recorded read lies about its value (must fail lincheck).
 * Also records keys and values that need escaping, a timeline line, and
 * a PUT that never returned (LC_NEVER) whose value a later GET reads.
 * With -r the recorder also notes a clock restart (lincheck must refuse).
 *
 * usage: test_history FILE [-b|-r]
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"

#define NKEYS		4
#define NTHREADS	4
#define NOPS		2000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char map[NKEYS][32];
static int present[NKEYS];
static int lie;

static void *worker(void *arg)
{
	long t = (long)arg;
	unsigned int seed = (unsigned int)t * 7919 + 1;
	char key[16], val[32], client[16];
	int i;

	snprintf(client, sizeof(client), "w%ld", t);
	for (i = 0; i < NOPS; i++) {
		int k = rand_r(&seed) % NKEYS, r = rand_r(&seed) % 10;
		enum lc_result res = LC_OK;
		uint64_t t0, t1;
		size_t vlen = 0;

		snprintf(key, sizeof(key), "k %d", k);	/* space: escaped */
		t0 = lc_now();
		pthread_mutex_lock(&lock);
		if (r < 5) {
			if (present[k]) {
				strcpy(val, map[k]);
				vlen = strlen(val);
			} else {
				res = LC_MISSING;
			}
			pthread_mutex_unlock(&lock);
			t1 = lc_now();
			if (lie && t == 0 && i == NOPS / 2 && res == LC_OK)
				strcpy(val, "never-written");
			lc_record(client, LC_GET, key, strlen(key), val,
				  strlen(val), res, t0, t1);
		} else if (r < 9) {
			snprintf(val, sizeof(val), "v%ld.%d%%", t, i);
			strcpy(map[k], val);
			present[k] = 1;
			pthread_mutex_unlock(&lock);
			t1 = lc_now();
			lc_record(client, LC_PUT, key, strlen(key), val,
				  strlen(val), LC_OK, t0, t1);
		} else {
			res = present[k] ? LC_OK : LC_MISSING;
			present[k] = 0;
			pthread_mutex_unlock(&lock);
			t1 = lc_now();
			lc_record(client, LC_DEL, key, strlen(key), NULL, 0,
				  res, t0, t1);
		}
		(void)vlen;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	char boot[64];
	long t;

	if (argc < 2)
		return 2;
	lie = argc > 2 && !strcmp(argv[2], "-b");
	if (lc_history_open(argv[1]))
		return 2;
	if (lc_boot_id(boot, sizeof(boot)) ||
	    lc_history_timeline("monotonic", boot) ||
	    lc_history_timeline("bad clock", boot) != -EINVAL)
		return 3;
	if (argc > 2 && !strcmp(argv[2], "-r") &&
	    lc_history_restart("clock-went-back"))
		return 3;
	for (t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	/* Tokens that need escaping, on their own key. */
	lc_record(NULL, LC_PUT, "e", 1, "", 0, LC_OK, 1, 2);
	lc_record(NULL, LC_GET, "e", 1, "", 0, LC_OK, 3, 4);
	lc_record(NULL, LC_PUT, "e", 1, "-", 1, LC_OK, 5, 6);
	lc_record(NULL, LC_GET, "e", 1, "-", 1, LC_OK, 7, 8);
	lc_record(NULL, LC_PUT, "e", 1, "a\nb", 3, LC_ERR, 9, 10);
	lc_record(NULL, LC_GET, "e", 1, "a\nb", 3, LC_OK, 11, 12);
	/* Its return never seen: pending forever, the read is explained. */
	lc_record("nv", LC_PUT, "n", 1, "pending", 7, LC_OK, 20, LC_NEVER);
	lc_record("nr", LC_GET, "n", 1, "pending", 7, LC_OK, 30, 40);
	return lc_history_close() ? 1 : 0;
}
