// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_fabric: a GET/PUT workload that keeps going through fabric
 * faults and says, second by second, what it got (tests/vm/suite/
 * 22-fabric.sh).
 *
 * Each of -t threads owns -k keys ("<prefix>.<t>.<k>"): one writer per
 * key, so the thread's model predicts every read.  A thread does -g % GETs
 * and the rest PUTs, one synchronous ioctl at a time (-t threads: -t
 * operations in flight), and never stops on an error: it records it and
 * goes on.  For each key it keeps the last acknowledged version (acked:
 * must survive) and the last attempted one (a failed PUT may or may not
 * have landed).  A GET must return a version in [acked, attempted]
 * (byte-identical value); anything else is "wrong".
 *
 * When the file -L appears (the driving script lifted a fault), one GET
 * is started at once from the main thread, the "probe": an operation that
 * began after the lift, with no other operation of this program in step
 * with it, logged as "probe START.MS END.MS ok|ERRNO-NAME".
 *
 * Until the file -S exists (or -T seconds), then every key is read once
 * more (retrying while the store does not answer): a key whose version is
 * below its acked one, or not byte-identical, is "lost".
 *
 * Output, one line a second (wall clock, to line up with the faults the
 * driving script injects):
 *   sec EPOCH get_ok N get_err N put_ok N put_err N
 * each error also as "err EPOCH.MS get|put ERRNO-NAME START.MS" (when it
 * failed, and when it was started), and at the end:
 *   total get_ok N get_err N put_ok N put_err N wrong N lost N
 *   errno NAME N (one line per errno seen)
 * Exit 0 when nothing was wrong or lost (errors are the script's to judge),
 * 1 otherwise, 2 usage, 4 skip (store device absent).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <unistd.h>

#include "../../uapi/scalio.h"
#include "sel_util.h"

#define MAX_SECS	4096
#define MAX_ERRNO_SEEN	256

static const char *store = "kv0", *prefix = "fab", *stop_file, *lift_file;
static unsigned int nthreads = 8, nkeys = 16, get_pct = 80, vmax = 512;
static unsigned long max_secs = 600;
static long t_start;
static atomic_bool stopping;
static atomic_ulong cnt[MAX_SECS][4];	/* get_ok get_err put_ok put_err */
static atomic_ulong errnos[MAX_ERRNO_SEEN];
static atomic_ulong wrong, lost;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

struct key {
	char name[SCALIO_KEY_MAX];
	uint32_t acked, attempted;
};

struct thread {
	pthread_t tid;
	unsigned int idx;
	int fd;
	uint64_t rng;
	struct key *keys;
};

static long now_s(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec;
}

/* Version @v of key @k: a length and bytes that name both. */
static uint32_t make_value(const char *k, uint32_t v, uint8_t *buf)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a of the key */
	uint32_t len, i;

	for (i = 0; k[i]; i++)
		h = (h ^ (uint8_t)k[i]) * 0x100000001b3ULL;
	h = sel_mix64(h ^ ((uint64_t)v << 32));
	len = 16 + h % (vmax - 15);

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(sel_mix64(h + i) >> 7);
	memcpy(buf, &v, sizeof(v));
	return len;
}

static void record(int op, int ret, const struct timeval *t0)
{
	long s = now_s();
	long rel = s - t_start;
	int put = op == SCALIO_OP_PUT;

	if (rel >= 0 && rel < MAX_SECS)
		atomic_fetch_add(&cnt[rel][put * 2 + !!ret], 1);
	if (ret) {
		struct timeval tv;

		atomic_fetch_add(&errnos[-ret < MAX_ERRNO_SEEN ? -ret : 0], 1);
		gettimeofday(&tv, NULL);
		pthread_mutex_lock(&out_lock);
		printf("err %ld.%03ld %s %s %ld.%03ld\n", (long)tv.tv_sec,
		       (long)tv.tv_usec / 1000, put ? "put" : "get",
		       strerrorname_np(-ret) ? : "?", (long)t0->tv_sec,
		       (long)t0->tv_usec / 1000);
		fflush(stdout);
		pthread_mutex_unlock(&out_lock);
	}
}

static int kv_ioctl(int fd, unsigned long cmd, const char *k, uint8_t *val,
		    uint32_t *vlen)
{
	struct scalio_kv kv = {
		.key = (uintptr_t)k, .klen = strlen(k),
		.value = (uintptr_t)val, .vlen = *vlen,
	};
	int ret;

	do {
		ret = ioctl(fd, cmd, &kv) ? -errno : 0;
	} while (ret == -EINTR);
	*vlen = kv.vlen;
	return ret;
}

/* Is @got (@len bytes, or ENOENT as version 0) a version in [lo, hi]? */
static bool value_ok(const struct key *k, int ret, const uint8_t *got,
		     uint32_t len, uint32_t lo, uint32_t hi)
{
	static __thread uint8_t want[SCALIO_VALUE_MAX];
	uint32_t v, wlen;

	if (ret == -ENOENT)
		return lo == 0;
	if (len < sizeof(v))
		return false;
	memcpy(&v, got, sizeof(v));
	if (v < lo || v > hi || !v)
		return false;
	wlen = make_value(k->name, v, want);
	return wlen == len && !memcmp(want, got, len);
}

static void *worker(void *arg)
{
	struct thread *t = arg;
	static __thread uint8_t buf[SCALIO_VALUE_MAX];

	while (!atomic_load(&stopping)) {
		struct timeval t0;
		struct key *k;
		uint32_t len;
		int ret;

		t->rng = sel_mix64(t->rng + 0x9e3779b97f4a7c15ULL);
		k = &t->keys[t->rng % nkeys];
		if ((t->rng >> 20) % 100 < get_pct) {
			len = sizeof(buf);
			gettimeofday(&t0, NULL);
			ret = kv_ioctl(t->fd, SCALIO_IOC_GET, k->name, buf, &len);
			record(SCALIO_OP_GET, ret == -ENOENT ? 0 : ret, &t0);
			if ((!ret || ret == -ENOENT) &&
			    !value_ok(k, ret, buf, len, k->acked, k->attempted)) {
				atomic_fetch_add(&wrong, 1);
				printf("# wrong: key %s read %s, acked %u attempted %u\n",
				       k->name, ret ? "ENOENT" : "a bad value",
				       k->acked, k->attempted);
			}
		} else {
			uint32_t v = k->attempted + 1;

			len = make_value(k->name, v, buf);
			k->attempted = v;
			gettimeofday(&t0, NULL);
			ret = kv_ioctl(t->fd, SCALIO_IOC_PUT, k->name, buf, &len);
			record(SCALIO_OP_PUT, ret, &t0);
			if (!ret)
				k->acked = v;
		}
	}
	return NULL;
}

/* One GET, now: its start, end and outcome (see -L). */
static void probe(struct thread *t)
{
	static uint8_t buf[SCALIO_VALUE_MAX];
	struct timeval t0, t1;
	uint32_t len = sizeof(buf);
	int ret;

	gettimeofday(&t0, NULL);
	ret = kv_ioctl(t->fd, SCALIO_IOC_GET, t->keys[0].name, buf, &len);
	gettimeofday(&t1, NULL);
	pthread_mutex_lock(&out_lock);
	printf("probe %ld.%03ld %ld.%03ld %s\n", (long)t0.tv_sec,
	       (long)t0.tv_usec / 1000, (long)t1.tv_sec,
	       (long)t1.tv_usec / 1000,
	       !ret || ret == -ENOENT ? "ok" : strerrorname_np(-ret) ? : "?");
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

/* Read every key back once the store answers again: nothing acked lost. */
static void verify(struct thread *ts)
{
	static uint8_t buf[SCALIO_VALUE_MAX];
	unsigned int i, j, tries;

	for (i = 0; i < nthreads; i++) {
		for (j = 0; j < nkeys; j++) {
			struct key *k = &ts[i].keys[j];
			uint32_t len;
			int ret;

			for (tries = 0;; tries++) {
				len = sizeof(buf);
				ret = kv_ioctl(ts[i].fd, SCALIO_IOC_GET, k->name,
					       buf, &len);
				if (!ret || ret == -ENOENT || tries >= 60)
					break;
				sleep(1);
			}
			if ((ret && ret != -ENOENT) ||
			    !value_ok(k, ret, buf, len, k->acked, k->attempted)) {
				atomic_fetch_add(&lost, 1);
				printf("# lost: key %s (%s), acked %u attempted %u\n",
				       k->name, ret && ret != -ENOENT ?
				       strerror(-ret) : "value", k->acked,
				       k->attempted);
			}
		}
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: scalio_fabric [-s STORE] [-t THREADS] [-k KEYS] [-g GET%%]\n"
		"         [-v VMAX] [-p PREFIX] [-S STOPFILE] [-L LIFTFILE] [-T SECONDS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct thread *ts;
	char dev[64 + SCALIO_NAME_MAX];
	unsigned long tot[4] = { 0 };
	long s, last = -1, end;
	unsigned int i, j;
	int c;

	while ((c = getopt(argc, argv, "s:t:k:g:v:p:S:L:T:")) != -1) {
		switch (c) {
		case 's': store = optarg; break;
		case 't': nthreads = sel_num_arg(argv[0], optarg, 1, 256); break;
		case 'k': nkeys = sel_num_arg(argv[0], optarg, 1, 100000); break;
		case 'g': get_pct = sel_num_arg(argv[0], optarg, 0, 100); break;
		case 'v': vmax = sel_num_arg(argv[0], optarg, 16, SCALIO_VALUE_MAX); break;
		case 'p': prefix = optarg; break;
		case 'S': stop_file = optarg; break;
		case 'L': lift_file = optarg; break;
		case 'T': max_secs = sel_num_arg(argv[0], optarg, 1, MAX_SECS - 1); break;
		default: usage();
		}
	}
	snprintf(dev, sizeof(dev), SCALIO_STORE_DEV_FMT, store);
	if (access(dev, F_OK)) {
		printf("# SKIP: no %s\n", dev);
		return 4;
	}
	ts = calloc(nthreads, sizeof(*ts));
	if (!ts)
		return 1;
	t_start = now_s();
	for (i = 0; i < nthreads; i++) {
		ts[i].idx = i;
		ts[i].rng = sel_mix64(i + 1 + (uint64_t)t_start);
		ts[i].keys = calloc(nkeys, sizeof(*ts[i].keys));
		ts[i].fd = open(dev, O_RDWR | O_CLOEXEC);
		if (!ts[i].keys || ts[i].fd < 0) {
			perror(dev);
			return 1;
		}
		for (j = 0; j < nkeys; j++)
			snprintf(ts[i].keys[j].name, SCALIO_KEY_MAX, "%s.%u.%u",
				 prefix, i, j);
	}
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&ts[i].tid, NULL, worker, &ts[i]))
			return 1;
	end = t_start + max_secs;
	for (;;) {
		usleep(50000);
		if (lift_file && !access(lift_file, F_OK)) {
			probe(&ts[0]);
			lift_file = NULL;
		}
		s = now_s();
		/* Each finished second once: the workers have moved on. */
		while (last + 1 < s - t_start && last + 1 < MAX_SECS) {
			last++;
			pthread_mutex_lock(&out_lock);
			printf("sec %ld get_ok %lu get_err %lu put_ok %lu put_err %lu\n",
			       t_start + last, cnt[last][0], cnt[last][1],
			       cnt[last][2], cnt[last][3]);
			fflush(stdout);
			pthread_mutex_unlock(&out_lock);
		}
		if (s >= end || (stop_file && !access(stop_file, F_OK)))
			break;
	}
	atomic_store(&stopping, true);
	for (i = 0; i < nthreads; i++)
		pthread_join(ts[i].tid, NULL);
	verify(ts);
	for (s = 0; s < MAX_SECS; s++)
		for (j = 0; j < 4; j++)
			tot[j] += cnt[s][j];
	printf("total get_ok %lu get_err %lu put_ok %lu put_err %lu wrong %lu lost %lu\n",
	       tot[0], tot[1], tot[2], tot[3], atomic_load(&wrong),
	       atomic_load(&lost));
	for (i = 0; i < MAX_ERRNO_SEEN; i++)
		if (errnos[i])
			printf("errno %s %lu\n", strerrorname_np(i) ? : "?",
			       atomic_load(&errnos[i]));
	return atomic_load(&wrong) || atomic_load(&lost) ? 1 : 0;
}
