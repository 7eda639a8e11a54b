// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_lin: a concurrent GET/PUT/DELETE workload on a small hot key set
 * that records every operation, with timestamps comparable across hosts,
 * for tests/lincheck (DESIGN.md section 3: "concurrent clients on two
 * hosts, history checked for linearizability").
 *
 * Threads issue a mix of GET/PUT/DELETE on -k keys "<prefix>.<i>" chosen
 * with a Zipf-like skew (key i with weight 1/(i+1)), so a few keys are hot
 * and many operations on them overlap.  Every PUT writes a value unique in
 * the whole test: it starts with "<client>.<thread>.<seq>" (-c must differ
 * between the hosts) and is padded with letters derived from that tag to
 * a random length (-L MAX): one PUT in 16 writes the empty value, half of
 * the others a value short enough to be cached in a slot (up to
 * SCALIO_INLINE_MAX, 72 bytes), half a longer one (73..MAX bytes, never
 * cached: its GETs always take the seg READ and SSD read path), so both
 * paths are exercised and checked; a torn mix of two values reads as a
 * value never written.  -L 0 writes the bare tags.  Each op becomes one
 * line of the history file (-o; format in tests/lincheck/history.h), the
 * files of all hosts are concatenated and checked by
 * tests/lincheck/lincheck.
 *
 * Timestamps (-C target, the default): the target's clock word
 * (SCALIO_IOC_CLOCK), read with one RDMA READ just before each op is
 * issued and again just after it returned.  With -C monotonic: this
 * machine's CLOCK_MONOTONIC (nanoseconds), read the same way: one sharp
 * timeline for the threads of one host.  Why every recorded interval
 * contains the op's true interval, so that the checker never reports a
 * violation that did not happen (target clock; the monotonic clock is the
 * same argument with a finer, local clock):
 *
 *  - The clock word is written only by the target, never decreases, and
 *    every host reads the same word: it is one global, monotonic clock.
 *  - invoke_ts is a value the word held at some instant during the first
 *    READ; that READ completed (the ioctl returned) before the op's ioctl
 *    was entered, so invoke_ts <= clock(op start).
 *  - return_ts is a value the word held during the second READ, which was
 *    issued only after the op's ioctl returned, so return_ts >=
 *    clock(op end).
 *  - lincheck orders A before B only if A.return_ts < B.invoke_ts.  Then
 *    clock(A end) <= A.return_ts < B.invoke_ts <= clock(B start), and as
 *    the clock is monotonic, A really ended before B started.  Ops whose
 *    stamps are equal or overlap are treated as concurrent, which only
 *    gives the checker more freedom.  The clock's coarse steps (the target
 *    advances it from a timer) likewise only widen the intervals: a
 *    coarser clock makes the check weaker, never wrong.
 *  - If the closing clock read fails, the op is recorded as never returned
 *    (history.h: LC_NEVER): pending forever, it may or may not have taken
 *    effect.  Dropping it would be unsound (a dropped PUT leaves a later
 *    GET of its value unexplained).  The thread then stops.
 *  - A reboot of the target restarts its clock word near zero: stamps from
 *    before and after it cannot be compared.  The history names its
 *    timeline ("#% timeline target <epoch>", -E: the target's boot id,
 *    which the test learns from the target; histories of other boots are
 *    refused together).  During the run, a clock read lower than the
 *    thread's previous one, or the target's boot time (this host's wall
 *    clock minus the target clock: only comparable within one host, the
 *    VMs' wall clocks differ by tens of seconds) moving by more than 2 s
 *    between start and end, adds "#% restart": lincheck then refuses the
 *    history instead of checking it.
 *
 * usage: scalio_lin [-s STORE] [-t THREADS] [-n OPS] [-T SECONDS] [-k KEYS]
 *                   [-S SEED] [-c CLIENT] [-p PREFIX] [-g GET%] [-w PUT%]
 *                   [-C target|monotonic] [-E EPOCH] [-L MAX] -o HISTORY
 * Prints op counts and the host's counters (hit ratio, CAS, retries...).
 * Exit: 0 ran (every op recorded), 1 error (an op failed unexpectedly,
 * or the history could not be written), 2 usage, 4 store device absent.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
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
#include "../lincheck/history.h"

#define MAX_KEYS	256
#define MAX_THREADS	64
#define MAX_REPORTS	10
#define INLINE_MAX	72	/* SCALIO_INLINE_MAX: largest cached value */
#define BOOT_SLACK_MS	2000	/* boot estimate drift that means a reboot */

/* Value length classes, for the statistics. */
enum { LEN_EMPTY, LEN_SHORT, LEN_LONG, NR_LEN };

struct params {
	const char *store;
	const char *out;
	const char *client;
	const char *prefix;
	unsigned int threads;
	unsigned long ops;		/* per thread */
	unsigned int seconds;		/* 0: no time limit */
	unsigned int keys;
	unsigned int get_pct, put_pct;	/* rest: DELETE */
	unsigned int max_len;		/* 0: bare tags */
	bool monotonic;			/* stamps: CLOCK_MONOTONIC */
	const char *epoch;		/* target clock: the target's boot id */
	uint64_t seed;
};

static struct params P = {
	.store = "kv0", .client = "h", .prefix = "lin", .threads = 4,
	.ops = 1000, .keys = 8, .get_pct = 60, .put_pct = 30, .seed = 1,
	.max_len = SCALIO_VALUE_MAX, .epoch = "unspecified",
};

static char dev_path[64];
static double key_cdf[MAX_KEYS];
static struct timespec deadline;
static atomic_int reports;
static atomic_bool clock_went_back;

struct thread {
	pthread_t tid;
	unsigned int idx;
	int fd;
	uint64_t rng;
	char client[48];
	unsigned long n[3][3];		/* [op][result] */
	unsigned long puts_len[NR_LEN];	/* PUTs ok by value length class */
	unsigned long gets_len[NR_LEN];	/* GETs ok by value length class */
	unsigned long never;		/* ops recorded as never returned */
	unsigned long unexpected;
	uint64_t ticks;			/* sum of recorded interval widths */
	bool clock_failed, record_failed;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Key index with weight 1/(i+1): key 0 is the hottest. */
static unsigned int pick_key(uint64_t *rng)
{
	double u = (double)(rnd(rng) >> 11) / (double)(1ULL << 53);
	unsigned int lo = 0, hi = P.keys - 1;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (key_cdf[mid] >= u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void report(const char *fmt, const char *client, const char *key,
		   int err)
{
	if (atomic_fetch_add(&reports, 1) < MAX_REPORTS)
		fprintf(stderr, fmt, client, key, strerror(err));
}

static bool time_up(void)
{
	struct timespec now;

	if (!P.seconds)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline.tv_sec ||
	       (now.tv_sec == deadline.tv_sec &&
		now.tv_nsec >= deadline.tv_nsec);
}

/* One RDMA READ of the target's clock word, or CLOCK_MONOTONIC. */
static int stamp(int fd, uint64_t *ts)
{
	__u64 v;

	if (P.monotonic) {
		*ts = lc_now();
		return 0;
	}
	if (ioctl(fd, SCALIO_IOC_CLOCK, &v))
		return -errno;
	*ts = v;
	return 0;
}

/*
 * The target's boot time on this host's wall clock (ms): wall clock minus
 * the target clock (ms since the target booted).  Good to the wall clock
 * and the READ's round trip; different after a reboot of the target.
 */
static int target_boot_ms(int fd, int64_t *boot)
{
	struct timespec a, b;
	__u64 v;

	clock_gettime(CLOCK_REALTIME, &a);
	if (ioctl(fd, SCALIO_IOC_CLOCK, &v))
		return -errno;
	clock_gettime(CLOCK_REALTIME, &b);
	*boot = ((int64_t)a.tv_sec + b.tv_sec) * 500 +
		((int64_t)a.tv_nsec + b.tv_nsec) / 2000000 - (int64_t)v;
	return 0;
}

static unsigned int len_class(size_t len)
{
	return !len ? LEN_EMPTY : len <= INLINE_MAX ? LEN_SHORT : LEN_LONG;
}

/*
 * make_value - the value of one PUT: its unique tag, padded with letters
 * derived from the tag to a random length (see the top comment).
 * Returns the length.
 */
static size_t make_value(struct thread *t, char *val, unsigned long seq)
{
	int n = snprintf(val, SCALIO_VALUE_MAX + 1, "%s.%lu", t->client, seq);
	uint64_t r = rnd(&t->rng), h = 1469598103934665603ULL;
	size_t len, i;

	if (!P.max_len)
		return (size_t)n;
	if (r % 16 == 0)
		return 0;
	if (P.max_len <= INLINE_MAX || (r >> 8) % 2)
		len = (size_t)n + (r >> 16) %
		      ((P.max_len < INLINE_MAX ? P.max_len : INLINE_MAX) -
		       (size_t)n + 1);
	else
		len = INLINE_MAX + 1 + (r >> 16) % (P.max_len - INLINE_MAX);
	for (i = 0; i < (size_t)n; i++)
		h = (h ^ (unsigned char)val[i]) * 1099511628211ULL;
	for (i = (size_t)n; i < len; i++) {
		h ^= h >> 29;
		h *= 0xbf58476d1ce4e5b9ULL;
		val[i] = (char)('a' + (h >> 40) % 26);
	}
	return len;
}

static void *worker(void *arg)
{
	struct thread *t = arg;
	char key[SCALIO_KEY_MAX + 1], *val;
	unsigned char *buf;
	unsigned long i, seq = 0;
	uint64_t last = 0;

	buf = malloc(SCALIO_VALUE_MAX);
	val = malloc(SCALIO_VALUE_MAX + 1);
	if (!buf || !val) {
		free(buf);
		free(val);
		t->record_failed = true;
		return NULL;
	}
	for (i = 0; i < P.ops && !time_up(); i++) {
		unsigned int k = pick_key(&t->rng);
		unsigned int r = (unsigned int)(rnd(&t->rng) % 100);
		struct scalio_kv kv = { 0 };
		enum lc_op op;
		enum lc_result res;
		const void *v = NULL;
		size_t vlen = 0;
		uint64_t t0 = 0, t1 = 0;
		int ret, err;

		snprintf(key, sizeof(key), "%s.%u", P.prefix, k);
		kv.key = (uintptr_t)key;
		kv.klen = (uint32_t)strlen(key);
		if (r < P.get_pct) {
			op = LC_GET;
			kv.value = (uintptr_t)buf;
			kv.vlen = SCALIO_VALUE_MAX;
		} else if (r < P.get_pct + P.put_pct) {
			op = LC_PUT;
			kv.value = (uintptr_t)val;
			kv.vlen = (uint32_t)make_value(t, val, seq++);
			v = val;
			vlen = kv.vlen;
		} else {
			op = LC_DEL;
		}

		/* invoke_ts: this READ completes before the op is issued */
		ret = stamp(t->fd, &t0);
		if (ret) {
			report("%s: clock read before an op on %s: %s\n",
			       t->client, key, -ret);
			t->clock_failed = true;
			break;
		}
		ret = ioctl(t->fd, op == LC_GET ? SCALIO_IOC_GET :
				   op == LC_PUT ? SCALIO_IOC_PUT :
						  SCALIO_IOC_DELETE, &kv);
		err = ret ? errno : 0;
		if (t0 < last && !atomic_exchange(&clock_went_back, true))
			lc_history_restart("target-clock-went-back");
		/* return_ts: this READ is issued after the op returned */
		ret = stamp(t->fd, &t1);
		if (ret) {
			/*
			 * No return stamp: record the op as never returned
			 * (it may or may not have taken effect), never drop
			 * it: an unrecorded PUT could leave a later GET of
			 * its value unexplained.  Then stop this thread.
			 */
			report("%s: clock read after an op on %s: %s\n",
			       t->client, key, -ret);
			t->clock_failed = true;
			t1 = LC_NEVER;
		}
		last = t1;

		if (!err) {
			res = LC_OK;
			if (op == LC_GET) {
				v = buf;
				vlen = kv.vlen;
			}
		} else if (err == ENOENT && op != LC_PUT) {
			res = LC_MISSING;
		} else {
			/* outcome unknown: the checker lets it take effect
			 * at any time after its invoke, or never */
			res = LC_ERR;
			t->unexpected++;
			report("%s: op on %s failed: %s\n", t->client, key,
			       err);
		}
		if (lc_record(t->client, op, key, kv.klen, v, vlen, res,
			      t0, t1)) {
			t->record_failed = true;
			break;
		}
		t->n[op][res]++;
		if (t1 == LC_NEVER) {
			t->never++;
			break;
		}
		if (res == LC_OK && op == LC_PUT)
			t->puts_len[len_class(vlen)]++;
		if (res == LC_OK && op == LC_GET)
			t->gets_len[len_class(vlen)]++;
		t->ticks += t1 - t0;
	}
	free(buf);
	free(val);
	return NULL;
}

static void print_stats(int fd)
{
	struct scalio_stats st = { .size = sizeof(st) };
	const struct scalio_host_stats *h = &st.host;
	uint64_t served;

	if (ioctl(fd, SCALIO_IOC_STATS, &st)) {
		perror("SCALIO_IOC_STATS");
		return;
	}
	served = h->cache_hits + h->cache_misses;
	printf("# host: features=%s%s%s gets=%llu puts=%llu deletes=%llu cache_hits=%llu cache_misses=%llu hit_ratio=%.3f\n",
	       st.features & SCALIO_F_OFFLOAD_READ ? "offload_read," : "",
	       st.features & SCALIO_F_INLINE_CACHE ? "inline_cache" : "",
	       st.features & SCALIO_F_FILL_TOKEN ? ",fill_token" : "",
	       (unsigned long long)h->gets, (unsigned long long)h->puts,
	       (unsigned long long)h->deletes,
	       (unsigned long long)h->cache_hits,
	       (unsigned long long)h->cache_misses,
	       served ? (double)h->cache_hits / (double)served : 0.0);
	printf("# host: ssd_reads=%llu rpc_gets=%llu rdma_reads=%llu rdma_cas=%llu cas_failures=%llu retries=%llu lease_reclaims=%llu invalidations=%llu header_mismatches=%llu errors=%llu\n",
	       (unsigned long long)h->ssd_reads,
	       (unsigned long long)h->rpc_gets,
	       (unsigned long long)h->rdma_reads,
	       (unsigned long long)h->rdma_cas,
	       (unsigned long long)h->cas_failures,
	       (unsigned long long)h->retries,
	       (unsigned long long)h->lease_reclaims,
	       (unsigned long long)h->invalidations,
	       (unsigned long long)h->header_mismatches,
	       (unsigned long long)h->errors);
	printf("# host: waits=%llu opt_misses=%llu bg_queued=%llu bg_fills=%llu bg_fill_drops=%llu bg_waits=%llu\n",
	       (unsigned long long)h->waits,
	       (unsigned long long)h->opt_misses,
	       (unsigned long long)h->bg_queued,
	       (unsigned long long)h->bg_fills,
	       (unsigned long long)h->bg_fill_drops,
	       (unsigned long long)h->bg_waits);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scalio_lin [options] -o HISTORY\n"
		"  -s STORE    store name (default kv0)\n"
		"  -t N        threads (default 4, max %d)\n"
		"  -n N        ops per thread (default 1000)\n"
		"  -T SEC      stop after SEC seconds (default: no limit)\n"
		"  -k N        keys (default 8, max %d)\n"
		"  -S SEED     random seed (default 1)\n"
		"  -c NAME     client name, unique per host (default h)\n"
		"  -p PREFIX   key prefix, same on every host (default lin)\n"
		"  -g PCT      GET share (default 60)\n"
		"  -w PCT      PUT share (default 30; rest DELETE)\n"
		"  -C CLOCK    stamps: target (default: the target's clock\n"
		"              word, comparable across hosts) or monotonic\n"
		"              (this host's CLOCK_MONOTONIC: one host only)\n"
		"  -E EPOCH    target clock: the target's boot id, named in the\n"
		"              history's timeline (default unspecified)\n"
		"  -L MAX      value lengths 0..MAX (MAX >= 72), mixed around\n"
		"              the 72-byte slot limit (default %d; 0: tags only)\n"
		"  -o FILE     history output (required)\n",
		MAX_THREADS, MAX_KEYS, SCALIO_VALUE_MAX);
}

static bool parse_ul(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	struct thread *th;
	unsigned long v, tot[3][3] = { { 0 } }, unexpected = 0, nops = 0;
	unsigned long puts_len[NR_LEN] = { 0 }, gets_len[NR_LEN] = { 0 };
	unsigned long never = 0;
	struct scalio_stats st0 = { .size = sizeof(st0) };
	struct scalio_stats st1 = { .size = sizeof(st1) };
	int64_t boot0 = 0, boot1 = 0;
	char epoch[64];
	uint64_t ticks = 0;
	bool failed = false;
	double sum = 0;
	unsigned int i;
	int c, fd, ret;

	while ((c = getopt(argc, argv, "s:t:n:T:k:S:c:p:g:w:o:C:E:L:h")) != -1) {
		switch (c) {
		case 's': P.store = optarg; break;
		case 'c': P.client = optarg; break;
		case 'p': P.prefix = optarg; break;
		case 'o': P.out = optarg; break;
		case 't':
			if (!parse_ul(optarg, MAX_THREADS, &v) || !v)
				goto bad;
			P.threads = (unsigned int)v;
			break;
		case 'n':
			if (!parse_ul(optarg, ~0UL, &v))
				goto bad;
			P.ops = v;
			break;
		case 'T':
			if (!parse_ul(optarg, 86400, &v))
				goto bad;
			P.seconds = (unsigned int)v;
			break;
		case 'k':
			if (!parse_ul(optarg, MAX_KEYS, &v) || !v)
				goto bad;
			P.keys = (unsigned int)v;
			break;
		case 'S':
			if (!parse_ul(optarg, ~0UL, &v))
				goto bad;
			P.seed = v;
			break;
		case 'g':
			if (!parse_ul(optarg, 100, &v))
				goto bad;
			P.get_pct = (unsigned int)v;
			break;
		case 'w':
			if (!parse_ul(optarg, 100, &v))
				goto bad;
			P.put_pct = (unsigned int)v;
			break;
		case 'C':
			if (!strcmp(optarg, "monotonic"))
				P.monotonic = true;
			else if (strcmp(optarg, "target"))
				goto bad;
			break;
		case 'E':
			P.epoch = optarg;
			break;
		case 'L':
			if (!parse_ul(optarg, SCALIO_VALUE_MAX, &v))
				goto bad;
			P.max_len = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc || !P.out || P.get_pct + P.put_pct > 100 ||
	    strlen(P.prefix) + 4 > SCALIO_KEY_MAX || strlen(P.client) > 24 ||
	    (P.max_len && P.max_len < INLINE_MAX) ||
	    strchr(P.client, ' ') || strchr(P.prefix, ' ') ||
	    !*P.epoch || strpbrk(P.epoch, " \t\n") || strlen(P.epoch) > 60)
		goto bad;

	snprintf(dev_path, sizeof(dev_path), SCALIO_STORE_DEV_FMT, P.store);
	fd = open(dev_path, O_RDWR);
	if (fd < 0) {
		printf("SKIP: %s: %s\n", dev_path, strerror(errno));
		return 4;
	}
	for (i = 0; i < P.keys; i++)
		sum += 1.0 / (i + 1);
	for (i = 0, key_cdf[0] = 0; i < P.keys; i++)
		key_cdf[i] = (i ? key_cdf[i - 1] : 0) + 1.0 / (i + 1) / sum;
	key_cdf[P.keys - 1] = 1.0;

	ret = lc_history_open(P.out);
	if (ret) {
		fprintf(stderr, "%s: %s\n", P.out, strerror(-ret));
		return 1;
	}
	/* The timeline of the stamps: lincheck refuses to mix two. */
	if (P.monotonic)
		ret = lc_boot_id(epoch, sizeof(epoch));
	else
		ret = target_boot_ms(fd, &boot0);
	if (!ret && !P.monotonic)
		snprintf(epoch, sizeof(epoch), "%s", P.epoch);
	if (!ret)
		ret = lc_history_timeline(P.monotonic ? "monotonic" : "target",
					  epoch);
	if (ret) {
		fprintf(stderr, "%s: the clock's timeline: %s\n", P.out,
			strerror(-ret));
		return 1;
	}
	if (ioctl(fd, SCALIO_IOC_STATS, &st0))
		perror("SCALIO_IOC_STATS");
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += P.seconds;

	th = calloc(P.threads, sizeof(*th));
	if (!th) {
		perror("calloc");
		return 1;
	}
	for (i = 0; i < P.threads; i++) {
		th[i].idx = i;
		th[i].fd = fd;
		th[i].rng = P.seed * 0x9E3779B97F4A7C15ULL + i * 7919 + 1;
		/* fold the client name in: hosts differ even with one seed */
		for (const char *p = P.client; *p; p++)
			th[i].rng = th[i].rng * 31 + (unsigned char)*p;
		th[i].rng |= 1;
		snprintf(th[i].client, sizeof(th[i].client), "%s.t%u",
			 P.client, i);
		if (pthread_create(&th[i].tid, NULL, worker, &th[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (i = 0; i < P.threads; i++) {
		unsigned int o, r;

		pthread_join(th[i].tid, NULL);
		for (o = 0; o < 3; o++)
			for (r = 0; r < 3; r++) {
				tot[o][r] += th[i].n[o][r];
				nops += th[i].n[o][r];
			}
		unexpected += th[i].unexpected;
		never += th[i].never;
		for (o = 0; o < NR_LEN; o++) {
			puts_len[o] += th[i].puts_len[o];
			gets_len[o] += th[i].gets_len[o];
		}
		ticks += th[i].ticks;
		if (th[i].clock_failed || th[i].record_failed)
			failed = true;
	}
	/* A target reboot during the run: its clock restarted. */
	if (!P.monotonic && !target_boot_ms(fd, &boot1) &&
	    llabs(boot1 - boot0) > BOOT_SLACK_MS) {
		fprintf(stderr, "%s: the target's boot time moved from %lld to %lld ms: it restarted\n",
			P.client, (long long)boot0, (long long)boot1);
		lc_history_restart("target-boot-time-moved");
		failed = true;
	}
	if (atomic_load(&clock_went_back)) {
		fprintf(stderr, "%s: the target clock went back: it restarted\n",
			P.client);
		failed = true;
	}
	if (!ioctl(fd, SCALIO_IOC_STATS, &st1) &&
	    st1.host.reconnects != st0.host.reconnects)
		printf("# %s: %llu reconnects during the run\n", P.client,
		       (unsigned long long)(st1.host.reconnects -
					    st0.host.reconnects));
	ret = lc_history_close();
	if (ret) {
		fprintf(stderr, "%s: writing the history: %s\n", P.out,
			strerror(-ret));
		failed = true;
	}

	printf("# %s: %lu ops by %u threads on %u keys: get ok=%lu missing=%lu err=%lu, put ok=%lu err=%lu, del ok=%lu missing=%lu err=%lu; mean interval %.1f clock ticks\n",
	       P.client, nops, P.threads, P.keys,
	       tot[LC_GET][LC_OK], tot[LC_GET][LC_MISSING], tot[LC_GET][LC_ERR],
	       tot[LC_PUT][LC_OK], tot[LC_PUT][LC_ERR],
	       tot[LC_DEL][LC_OK], tot[LC_DEL][LC_MISSING], tot[LC_DEL][LC_ERR],
	       nops ? (double)ticks / (double)nops : 0.0);
	printf("# %s: values (ok) empty/short(1..%d)/long(>%d): put %lu/%lu/%lu get %lu/%lu/%lu; never returned %lu; clock %s\n",
	       P.client, INLINE_MAX, INLINE_MAX, puts_len[LEN_EMPTY],
	       puts_len[LEN_SHORT], puts_len[LEN_LONG], gets_len[LEN_EMPTY],
	       gets_len[LEN_SHORT], gets_len[LEN_LONG], never,
	       P.monotonic ? "monotonic (ns)" : "target (ticks)");
	print_stats(fd);
	close(fd);
	free(th);
	if (unexpected) {
		fprintf(stderr, "%s: %lu ops failed unexpectedly\n", P.client,
			unexpected);
		failed = true;
	}
	return failed ? 1 : 0;
bad:
	usage(stderr);
	return 2;
}
