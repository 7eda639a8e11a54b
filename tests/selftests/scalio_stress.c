// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_stress: concurrent GET/PUT/DELETE on /dev/scalio/<store>, every
 * result checked exactly.
 *
 * Each thread owns a private key space ("st.<run>.<t>.p<k>") and a share
 * of a common key space ("st.<run>.s<k>", key k owned by thread k mod T):
 * the common keys of all threads interleave in the same hash blocks and
 * commit batches, yet every key has exactly one writer, so each thread's
 * model of its own keys predicts every GET and DELETE result exactly.
 * After the threads finish, every key is read back once more and then
 * deleted.
 *
 * Defaults: 8 threads x 10000 ops (50% GET, 35% PUT, 15% DELETE), 32
 * private + 32 common keys per thread, values 0..1024 bytes (now and then
 * 4096).  Under QEMU TCG an op takes about 1 ms: use -n for shorter runs.
 * Output is KTAP; exit 0 pass, 1 fail, 4 skip (store device absent).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../../uapi/scalio.h"
#include "sel_util.h"

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4
#define MAX_REPORTS	20
/* Past this many errors (e.g. the connection is gone) the run stops. */
#define MAX_ERRORS	1000

struct params {
	const char *store;
	unsigned int threads;
	unsigned long ops;
	unsigned int priv_keys;
	unsigned int common_keys;	/* per thread */
	unsigned int vmax;
	unsigned int get_pct, put_pct;	/* rest: DELETE */
	uint64_t seed;
	bool keep;
};

static struct params P = {
	.store = "kv0", .threads = 8, .ops = 10000, .priv_keys = 32,
	.common_keys = 32, .vmax = 1024, .get_pct = 50, .put_pct = 35,
};

static unsigned int run_id;
static atomic_int reports;
static atomic_ulong total_errors;
static atomic_bool aborted;
static atomic_ulong progress;
static char dev_path[64];

struct key_model {
	char key[SCALIO_KEY_MAX];
	uint32_t klen;
	bool present;
	uint32_t version;	/* of the value last PUT */
};

struct thread {
	pthread_t tid;
	unsigned int idx;
	int fd;
	uint64_t rng;
	struct key_model *keys;
	unsigned int nr_keys;
	unsigned long gets, puts, dels, hits, misses;
	unsigned long errors;
	unsigned char *buf, *expect;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* The value of (key, version): length and bytes follow from both. */
static uint32_t make_value(const struct key_model *k, uint32_t version,
			   unsigned char *out)
{
	uint64_t h = sel_mix64(((uint64_t)version << 32) ^ k->klen ^
			 ((uint64_t)(unsigned char)k->key[k->klen - 1] << 8) ^
			 ((uint64_t)(unsigned char)k->key[k->klen / 2] << 16));
	uint32_t len, i;

	if (h % 64 == 0)
		len = SCALIO_VALUE_MAX;
	else if (h % 64 == 1)
		len = 0;
	else
		len = (uint32_t)((h >> 8) % (P.vmax + 1));
	for (i = 0; i < len; i++) {
		if (i % 8 == 0)
			h = sel_mix64(h + i);
		out[i] = (unsigned char)(h >> (8 * (i % 8)));
	}
	/* Name the key and version in the first bytes, for reports. */
	if (len >= 8) {
		memcpy(out, &version, 4);
		memcpy(out + 4, &k->klen, 4);
	}
	return len;
}

static void report(struct thread *t, const struct key_model *k,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void report(struct thread *t, const struct key_model *k,
		   const char *fmt, ...)
{
	va_list ap;

	t->errors++;
	if (atomic_fetch_add(&total_errors, 1) + 1 >= MAX_ERRORS)
		atomic_store(&aborted, true);
	if (atomic_fetch_add(&reports, 1) >= MAX_REPORTS)
		return;
	printf("# thread %u key '%.*s': ", t->idx, (int)k->klen, k->key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int kv_ioctl(int fd, unsigned long cmd, struct scalio_kv *kv)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, kv) ? -errno : 0;
	} while (ret == -EINTR);
	return ret;
}

static void do_get(struct thread *t, struct key_model *k)
{
	struct scalio_kv kv = {
		.key = (uintptr_t)k->key, .klen = k->klen,
		.value = (uintptr_t)t->buf, .vlen = SCALIO_VALUE_MAX,
	};
	uint32_t elen;
	int ret;

	t->gets++;
	ret = kv_ioctl(t->fd, SCALIO_IOC_GET, &kv);
	if (!k->present) {
		if (ret != -ENOENT)
			report(t, k, "GET of a deleted key: %s (vlen %u), expected ENOENT",
			       ret ? strerror(-ret) : "success", kv.vlen);
		else
			t->misses++;
		return;
	}
	if (ret) {
		report(t, k, "GET: %s, expected version %u", strerror(-ret),
		       k->version);
		return;
	}
	elen = make_value(k, k->version, t->expect);
	if (kv.vlen != elen || memcmp(t->buf, t->expect, elen)) {
		uint32_t got_ver = 0;

		if (kv.vlen >= 4)
			memcpy(&got_ver, t->buf, 4);
		report(t, k, "GET: %u bytes (version tag %u), expected %u bytes of version %u",
		       kv.vlen, got_ver, elen, k->version);
		return;
	}
	t->hits++;
}

/*
 * After a failed PUT the key holds the old or the new version (or is
 * absent): read it so that one failure is reported once, not at every
 * later GET of the key.
 */
static void resync(struct thread *t, struct key_model *k, uint32_t version)
{
	struct scalio_kv kv = {
		.key = (uintptr_t)k->key, .klen = k->klen,
		.value = (uintptr_t)t->expect, .vlen = SCALIO_VALUE_MAX,
	};
	uint32_t ver = 0;

	if (kv_ioctl(t->fd, SCALIO_IOC_GET, &kv)) {
		k->present = false;
		return;
	}
	k->present = true;
	if (kv.vlen >= 4)
		memcpy(&ver, t->expect, 4);
	k->version = ver == version ? version : k->version;
}

static void do_put(struct thread *t, struct key_model *k)
{
	uint32_t version = k->version + 1;
	struct scalio_kv kv = {
		.key = (uintptr_t)k->key, .klen = k->klen,
		.value = (uintptr_t)t->buf,
	};
	int ret;

	t->puts++;
	kv.vlen = make_value(k, version, t->buf);
	ret = kv_ioctl(t->fd, SCALIO_IOC_PUT, &kv);
	if (ret) {
		/*
		 * A failed PUT leaves the key in an unknown state (it may or
		 * may not have been applied): learn it by reading.
		 */
		report(t, k, "PUT version %u (%u bytes): %s", version, kv.vlen,
		       strerror(-ret));
		resync(t, k, version);
		return;
	}
	k->version = version;
	k->present = true;
}

static void do_del(struct thread *t, struct key_model *k)
{
	struct scalio_kv kv = { .key = (uintptr_t)k->key, .klen = k->klen };
	int ret;

	t->dels++;
	ret = kv_ioctl(t->fd, SCALIO_IOC_DELETE, &kv);
	if (k->present && ret)
		report(t, k, "DELETE of a present key: %s", strerror(-ret));
	else if (!k->present && ret != -ENOENT)
		report(t, k, "DELETE of an absent key: %s, expected ENOENT",
		       ret ? strerror(-ret) : "success");
	k->present = false;
}

static void *worker(void *arg)
{
	struct thread *t = arg;
	unsigned long i;

	for (i = 0; i < P.ops && !atomic_load(&aborted); i++) {
		struct key_model *k = &t->keys[rnd(&t->rng) % t->nr_keys];
		unsigned int r = (unsigned int)(rnd(&t->rng) % 100);

		if (r < P.get_pct)
			do_get(t, k);
		else if (r < P.get_pct + P.put_pct)
			do_put(t, k);
		else
			do_del(t, k);
		atomic_fetch_add(&progress, 1);
	}
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: scalio_stress [options]\n"
		"  -d STORE   store name (default kv0, or $SCALIO_STORE)\n"
		"  -t N       threads (default 8)\n"
		"  -n N       ops per thread (default 10000; ~1 ms each under TCG)\n"
		"  -p N       private keys per thread (default 32)\n"
		"  -c N       common-space keys per thread (default 32)\n"
		"  -v N       largest ordinary value size (default 1024; 1/64 of\n"
		"             the values are 4096 bytes, 1/64 empty)\n"
		"  -g PCT     GET share (default 50)   -w PCT  PUT share (default 35)\n"
		"  -s SEED    random seed (default: time)\n"
		"  -k         keep the keys at the end (default: delete them)\n");
}

int main(int argc, char **argv)
{
	unsigned long total = 0, errors = 0, gets = 0, puts = 0, dels = 0;
	unsigned long hits = 0, misses = 0, final_errors = 0, last = 0;
	unsigned int i, k;
	struct thread *th;
	const char *env;
	double t0, t1;
	bool started_all = true;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	env = getenv("SCALIO_STORE");
	if (env && *env)
		P.store = env;
	P.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	while ((c = getopt(argc, argv, "d:t:n:p:c:v:g:w:s:kh")) != -1) {
		switch (c) {
		case 'd': P.store = optarg; break;
		case 't': P.threads = (unsigned int)sel_num_arg("scalio_stress", optarg, 1, 256); break;
		case 'n': P.ops = sel_num_arg("scalio_stress", optarg, 0, 1UL << 40); break;
		case 'p': P.priv_keys = (unsigned int)sel_num_arg("scalio_stress", optarg, 0, 100000); break;
		case 'c': P.common_keys = (unsigned int)sel_num_arg("scalio_stress", optarg, 0, 100000); break;
		case 'v': P.vmax = (unsigned int)sel_num_arg("scalio_stress", optarg, 0, SCALIO_VALUE_MAX); break;
		case 'g': P.get_pct = (unsigned int)sel_num_arg("scalio_stress", optarg, 0, 100); break;
		case 'w': P.put_pct = (unsigned int)sel_num_arg("scalio_stress", optarg, 0, 100); break;
		case 's': P.seed = sel_num_arg("scalio_stress", optarg, 0, ~0UL); break;
		case 'k': P.keep = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || P.get_pct + P.put_pct > 100 ||
	    P.priv_keys + P.common_keys == 0) {
		usage(stderr);
		return 2;
	}

	printf("TAP version 13\n1..1\n");
	snprintf(dev_path, sizeof(dev_path), SCALIO_STORE_DEV_FMT, P.store);
	if (access(dev_path, F_OK)) {
		printf("ok 1 scalio_stress # SKIP %s absent: store not attached\n",
		       dev_path);
		return KSFT_SKIP;
	}
	run_id = (unsigned int)sel_mix64(P.seed) & 0xffffff;
	printf("# %u threads x %lu ops (GET %u%% PUT %u%% DELETE %u%%), %u private + %u common keys each, values <= %u bytes, seed %" PRIu64 "\n",
	       P.threads, P.ops, P.get_pct, P.put_pct,
	       100 - P.get_pct - P.put_pct, P.priv_keys, P.common_keys, P.vmax,
	       P.seed);

	th = calloc(P.threads, sizeof(*th));
	if (!th) {
		perror("calloc");
		return KSFT_FAIL;
	}
	for (i = 0; i < P.threads; i++) {
		struct thread *t = &th[i];

		t->idx = i;
		t->rng = sel_mix64(P.seed + i + 1) | 1;
		t->nr_keys = P.priv_keys + P.common_keys;
		t->keys = calloc(t->nr_keys, sizeof(*t->keys));
		t->buf = malloc(SCALIO_VALUE_MAX);
		t->expect = malloc(SCALIO_VALUE_MAX);
		if (!t->keys || !t->buf || !t->expect) {
			perror("malloc");
			return KSFT_FAIL;
		}
		for (k = 0; k < P.priv_keys; k++)
			t->keys[k].klen = (uint32_t)snprintf(t->keys[k].key,
				SCALIO_KEY_MAX, "st.%06x.%u.p%u", run_id, i, k);
		/* Common key j belongs to thread j % threads. */
		for (k = 0; k < P.common_keys; k++)
			t->keys[P.priv_keys + k].klen = (uint32_t)snprintf(
				t->keys[P.priv_keys + k].key, SCALIO_KEY_MAX,
				"st.%06x.s%u", run_id, k * P.threads + i);
		t->fd = open(dev_path, O_RDWR);
		if (t->fd < 0) {
			printf("# open %s: %s\n", dev_path, strerror(errno));
			printf("not ok 1 scalio_stress\n");
			return KSFT_FAIL;
		}
	}

	t0 = sel_now_s();
	for (i = 0; i < P.threads; i++) {
		if (pthread_create(&th[i].tid, NULL, worker, &th[i])) {
			printf("# pthread_create failed\n");
			started_all = false;
			P.threads = i;
			break;
		}
	}
	/* Progress every ~10% so a slow run under TCG shows it is alive. */
	for (;;) {
		unsigned long done = atomic_load(&progress);
		unsigned long all = P.ops * P.threads;

		if (done >= all || atomic_load(&aborted))
			break;
		if (all >= 10 && done - last >= all / 10) {
			printf("# progress: %lu / %lu ops, %.0f ops/s\n", done, all,
			       done / (sel_now_s() - t0));
			last = done;
		}
		usleep(200000);
	}
	for (i = 0; i < P.threads; i++)
		pthread_join(th[i].tid, NULL);
	t1 = sel_now_s();

	for (i = 0; i < P.threads; i++) {
		total += th[i].gets + th[i].puts + th[i].dels;
		gets += th[i].gets;
		puts += th[i].puts;
		dels += th[i].dels;
		hits += th[i].hits;
		misses += th[i].misses;
		errors += th[i].errors;
	}

	if (atomic_load(&aborted))
		printf("# %d errors: run aborted, no final check\n", MAX_ERRORS);
	/* Final check: every key as its owner's model says, then clean up. */
	for (i = 0; i < P.threads && !atomic_load(&aborted); i++) {
		struct thread *t = &th[i];
		unsigned long before = t->errors;

		for (k = 0; k < t->nr_keys; k++) {
			do_get(t, &t->keys[k]);
			if (!P.keep && t->keys[k].present)
				do_del(t, &t->keys[k]);
		}
		final_errors += t->errors - before;
		close(t->fd);
	}

	printf("# ops %lu in %.1f s (%.0f ops/s): get %lu (found %lu, absent %lu), put %lu, delete %lu\n",
	       total, t1 - t0, total / (t1 - t0 > 0 ? t1 - t0 : 1), gets, hits,
	       misses, puts, dels);
	printf("# errors %lu during the run, %lu in the final check\n", errors,
	       final_errors);
	if (errors || final_errors || !started_all || atomic_load(&aborted)) {
		printf("not ok 1 scalio_stress\n");
		return KSFT_FAIL;
	}
	printf("ok 1 scalio_stress\n");
	return KSFT_PASS;
}
