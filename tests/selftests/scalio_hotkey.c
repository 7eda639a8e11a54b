// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_hotkey: a writer of one hot key and readers of it, for the
 * starvation measurement of issue 13 (tests/vm/suite/34-hotkey.sh).
 *
 *   scalio_hotkey put -k KEY -n N -s FIRST -o LATFILE [-P PAUSEFILE -r R
 *		-b BUSYFILE]
 *	N PUTs of KEY, one after the other, values "hot.<seq>" with seq
 *	FIRST, FIRST+1, ...; each PUT's latency (CLOCK_MONOTONIC, ns) goes
 *	to LATFILE, one a line.  Then one GET must return the last value.
 *	With -P: R rounds, each of N PUTs with PAUSEFILE present (the
 *	readers pause: latencies to LATFILE) and N PUTs without it (the
 *	readers run: to BUSYFILE), one second after each switch; so the
 *	lone and the busy PUTs are interleaved in time and a drift of the
 *	machine's load hits both alike.  Exit 1 if any PUT fails
 *	(-ETIMEDOUT: the writer starved) or the final GET does not return
 *	its value.
 *   scalio_hotkey read -k KEY -t THREADS -x STOPFILE [-P PAUSEFILE]
 *	THREADS threads GET KEY in a loop until STOPFILE exists, idle while
 *	PAUSEFILE exists.  Every value must be "hot.<seq>" and, as the one
 *	writer's PUTs are sequential, each thread's seqs never decrease (a
 *	decrease is a stale read: not linearizable).  Exit 1 on any GET
 *	error, a bad or stale value, or a thread without a single GET.
 *   scalio_hotkey report ALONE BUSY
 *	p50 and p99 of the two latency files and their ratios BUSY/ALONE,
 *	on one line starting with "hotkey:".
 *
 * -S STORE selects the store (default kv0).  Exit 2 usage, 4 no store.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

#define MAX_THREADS	64

static const char *prog = "scalio_hotkey";
static const char *key = "hot";
static const char *stop_file, *pause_file;
static int fd;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int kv_ioctl(unsigned long req, void *val, uint32_t *vlen)
{
	struct scalio_kv kv = {
		.key = (uintptr_t)key,
		.klen = (uint32_t)strlen(key),
		.value = (uintptr_t)val,
		.vlen = *vlen,
	};

	if (ioctl(fd, req, &kv))
		return -errno;
	*vlen = kv.vlen;
	return 0;
}

/* "hot.<seq>" -> seq, or -1 if the value is not of that form. */
static long long parse_val(const char *v, uint32_t len)
{
	char buf[32], *end;
	long long seq;

	if (len < 5 || len >= sizeof(buf) || memcmp(v, "hot.", 4))
		return -1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	errno = 0;
	seq = strtoll(buf + 4, &end, 10);
	if (errno || *end || end == buf + 4 || seq < 0)
		return -1;
	return seq;
}

/* @n PUTs from value @seq on, latencies to @f; 0 or 1 (a PUT failed). */
static int put_series(unsigned long n, unsigned long *seq, FILE *f)
{
	char val[32];
	uint32_t vlen;
	unsigned long i;
	int ret;

	for (i = 0; i < n; i++) {
		uint64_t t0, t1;

		vlen = (uint32_t)snprintf(val, sizeof(val), "hot.%lu", *seq);
		t0 = now_ns();
		ret = kv_ioctl(SCALIO_IOC_PUT, val, &vlen);
		t1 = now_ns();
		if (ret) {
			fprintf(stderr, "%s: PUT of hot.%lu failed after %.1f ms: %s%s\n",
				prog, *seq, (double)(t1 - t0) / 1e6,
				strerror(-ret), ret == -ETIMEDOUT ?
				" (the writer starved)" : "");
			return 1;
		}
		(*seq)++;
		fprintf(f, "%llu\n", (unsigned long long)(t1 - t0));
	}
	return 0;
}

/* Creates (@on) or removes @path; 0 or 1. */
static int set_file(const char *path, bool on)
{
	int ffd;

	if (!on)
		return unlink(path) && errno != ENOENT;
	ffd = open(path, O_WRONLY | O_CREAT, 0644);
	if (ffd < 0)
		return 1;
	close(ffd);
	return 0;
}

static int do_put(unsigned long n, unsigned long first, const char *out,
		  unsigned long rounds, const char *busy_out)
{
	FILE *f = fopen(out, "w"), *fb = NULL;
	unsigned long seq = first, r;
	char val[32];
	uint32_t vlen;
	int ret = 0;

	if (!f || (busy_out && !(fb = fopen(busy_out, "w")))) {
		fprintf(stderr, "%s: %s: %s\n", prog, f ? busy_out : out,
			strerror(errno));
		return 1;
	}
	if (!pause_file) {
		ret = put_series(n, &seq, f);
	} else {
		for (r = 0; r < rounds && !ret; r++) {
			/* alone: readers paused; then busy: readers on */
			ret = set_file(pause_file, true);
			if (!ret) {
				sleep(1);
				ret = put_series(n, &seq, f);
			}
			if (!ret)
				ret = set_file(pause_file, false);
			if (!ret) {
				sleep(1);
				ret = put_series(n, &seq, fb);
			}
		}
		set_file(pause_file, false);
	}
	if (fclose(f) || (fb && fclose(fb))) {
		fprintf(stderr, "%s: writing latencies: %s\n", prog,
			strerror(errno));
		return 1;
	}
	if (ret)
		return 1;
	vlen = sizeof(val);
	ret = kv_ioctl(SCALIO_IOC_GET, val, &vlen);
	if (ret || parse_val(val, vlen) != (long long)(seq - 1)) {
		fprintf(stderr, "%s: GET after the PUTs: %s, '%.*s', expected hot.%lu\n",
			prog, ret ? strerror(-ret) : "ok", ret ? 0 : (int)vlen,
			val, seq - 1);
		return 1;
	}
	printf("# put: %lu PUTs of %s ok, last value read back\n",
	       seq - first, key);
	return 0;
}

struct reader {
	pthread_t tid;
	unsigned long gets, errors, bad, stale;
	long long first, last;
	char msg[160];
};

static void *reader(void *arg)
{
	struct reader *r = arg;
	char val[SCALIO_VALUE_MAX];
	long long seq;
	uint32_t vlen;
	int ret;

	r->first = r->last = -1;
	for (;;) {
		if (!access(stop_file, F_OK))
			break;
		if (pause_file && !access(pause_file, F_OK)) {
			usleep(20000);
			continue;
		}
		vlen = sizeof(val);
		ret = kv_ioctl(SCALIO_IOC_GET, val, &vlen);
		if (ret) {
			if (!r->errors++)
				snprintf(r->msg, sizeof(r->msg), "GET: %s",
					 strerror(-ret));
			if (r->errors > 100)
				break;
			continue;
		}
		r->gets++;
		seq = parse_val(val, vlen);
		if (seq < 0) {
			if (!r->bad++)
				snprintf(r->msg, sizeof(r->msg),
					 "bad value '%.*s'",
					 (int)(vlen < 40 ? vlen : 40), val);
			continue;
		}
		if (seq < r->last && !r->stale++)
			snprintf(r->msg, sizeof(r->msg),
				 "read hot.%lld after hot.%lld: stale", seq,
				 r->last);
		if (r->first < 0)
			r->first = seq;
		if (seq > r->last)
			r->last = seq;
	}
	return NULL;
}

static int do_read(unsigned int threads)
{
	struct reader *r = calloc(threads, sizeof(*r));
	unsigned long gets = 0;
	double t0 = sel_now_s(), el;
	unsigned int i;
	int fail = 0;

	if (!r)
		return 1;
	for (i = 0; i < threads; i++)
		if (pthread_create(&r[i].tid, NULL, reader, &r[i])) {
			perror("pthread_create");
			return 1;
		}
	for (i = 0; i < threads; i++) {
		pthread_join(r[i].tid, NULL);
		gets += r[i].gets;
		if (r[i].errors || r[i].bad || r[i].stale || !r[i].gets) {
			fprintf(stderr, "%s: reader %u: %lu GETs, %lu errors, %lu bad, %lu stale: %s\n",
				prog, i, r[i].gets, r[i].errors, r[i].bad,
				r[i].stale, r[i].msg[0] ? r[i].msg : "no GET");
			fail = 1;
		}
	}
	el = sel_now_s() - t0;
	printf("# read: %u threads, %lu GETs in %.1f s (%.0f/s), seqs seen %lld..%lld (thread 0)\n",
	       threads, gets, el, el > 0 ? gets / el : 0.0, r[0].first,
	       r[0].last);
	free(r);
	return fail;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorted latencies of @path; NULL (and a message) when empty/unreadable. */
static uint64_t *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	uint64_t *v = NULL, x;
	size_t cap = 0;
	unsigned long long u;

	*n = 0;
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return NULL;
	}
	while (fscanf(f, "%llu", &u) == 1) {
		x = u;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				break;
		}
		v[(*n)++] = x;
	}
	fclose(f);
	if (!v || !*n) {
		fprintf(stderr, "%s: %s: no latencies\n", prog, path);
		free(v);
		return NULL;
	}
	qsort(v, *n, sizeof(*v), cmp_u64);
	return v;
}

/* Nearest-rank percentile of sorted @v. */
static double pct(const uint64_t *v, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)n + 0.999999);

	if (i < 1)
		i = 1;
	if (i > n)
		i = n;
	return (double)v[i - 1] / 1e6;
}

static int do_report(const char *alone, const char *busy)
{
	size_t na, nb;
	uint64_t *a = load(alone, &na), *b = load(busy, &nb);
	double a50, a99, b50, b99;

	if (!a || !b)
		return 1;
	a50 = pct(a, na, 50);
	a99 = pct(a, na, 99);
	b50 = pct(b, nb, 50);
	b99 = pct(b, nb, 99);
	printf("hotkey: PUT alone (%zu) p50 %.2f ms p99 %.2f ms; busy (%zu) p50 %.2f ms p99 %.2f ms; ratio p50 %.2f p99 %.2f\n",
	       na, a50, a99, nb, b50, b99, b50 / a50, b99 / a99);
	free(a);
	free(b);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: %s [-S STORE] [-k KEY] put -n N -s FIRST -o LATFILE\n"
		"              [-P PAUSEFILE -r ROUNDS -b BUSYFILE]\n"
		"       %s [-S STORE] [-k KEY] read -t THREADS -x STOPFILE\n"
		"              [-P PAUSEFILE]\n"
		"       %s report ALONE BUSY\n", prog, prog, prog);
	return 2;
}

int main(int argc, char **argv)
{
	const char *store = "kv0", *out = NULL, *busy_out = NULL, *mode;
	unsigned long n = 0, first = 0, threads = 0, rounds = 1;
	char path[64];
	int c;

	while ((c = getopt(argc, argv, "+S:k:")) != -1) {
		switch (c) {
		case 'S': store = optarg; break;
		case 'k': key = optarg; break;
		default: return usage();
		}
	}
	if (optind >= argc || !*key || strlen(key) > SCALIO_KEY_MAX)
		return usage();
	mode = argv[optind];
	optind++;
	if (!strcmp(mode, "report"))
		return argc - optind == 2 ?
		       do_report(argv[optind], argv[optind + 1]) : usage();
	while ((c = getopt(argc, argv, "n:s:o:t:x:P:r:b:")) != -1) {
		switch (c) {
		case 'n': n = sel_num_arg(prog, optarg, 1, 10000000); break;
		case 's': first = sel_num_arg(prog, optarg, 0, 1UL << 40); break;
		case 'o': out = optarg; break;
		case 't': threads = sel_num_arg(prog, optarg, 1, MAX_THREADS); break;
		case 'x': stop_file = optarg; break;
		case 'P': pause_file = optarg; break;
		case 'r': rounds = sel_num_arg(prog, optarg, 1, 1000); break;
		case 'b': busy_out = optarg; break;
		default: return usage();
		}
	}
	if (optind != argc)
		return usage();
	snprintf(path, sizeof(path), SCALIO_STORE_DEV_FMT, store);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		printf("SKIP: %s: %s\n", path, strerror(errno));
		return 4;
	}
	if (!strcmp(mode, "put") && n && out && !pause_file == !busy_out)
		return do_put(n, first, out, rounds, busy_out);
	if (!strcmp(mode, "read") && threads && stop_file)
		return do_read((unsigned int)threads);
	return usage();
}
