// SPDX-License-Identifier: GPL-2.0
/*
 * scalio-ycsb - YCSB core workloads A, B, C, D and F against a scalio
 * store, through the ioctls of /dev/scalio/<store>.
 *
 * Keys are "user" + the record number zero-padded to --key-size bytes
 * (default 16).  Values (--value-size bytes, default 64) embed their key,
 * a run id and a version, followed by filler derived from all three, so
 * every GET checks the whole value: a value of another key, a torn value
 * or a version never written by this run is counted as an error.
 *
 * --depth N keeps N operations in flight per thread, submitted as io_uring
 * commands (SCALIO_URING_CMD_*): each of a thread's N slots runs YCSB
 * operations one after the other (a read-modify-write's PUT after its
 * GET), and a latency is measured from submission to completion.
 *
 * Store counters come from SCALIO_IOC_STATS (with the target's, when
 * available) before and after each phase: hit ratio, SSD reads per GET,
 * SSD writes per PUT and target CPU per op are measured deltas, not
 * estimates.  Target counters sum over all clients of the store.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <liburing.h>

#include <scalio.h>

#include "zipf.h"
#include "history.h"

enum op_type { OPT_READ, OPT_UPDATE, OPT_INSERT, OPT_RMW, NR_OPT };
static const char *const opt_names[NR_OPT] = {
	"READ", "UPDATE", "INSERT", "READ-MODIFY-WRITE"
};

enum dist { DIST_ZIPFIAN, DIST_UNIFORM, DIST_LATEST };

struct workload {
	char name;
	double read, update, insert, rmw;
	enum dist dist;
};

static const struct workload workloads[] = {
	{ 'a', 0.50, 0.50, 0.00, 0.00, DIST_ZIPFIAN },
	{ 'b', 0.95, 0.05, 0.00, 0.00, DIST_ZIPFIAN },
	{ 'c', 1.00, 0.00, 0.00, 0.00, DIST_ZIPFIAN },
	{ 'd', 0.95, 0.00, 0.05, 0.00, DIST_LATEST },
	{ 'f', 0.50, 0.00, 0.00, 0.50, DIST_ZIPFIAN },
};

/* Options. */
static const char *opt_store = "kv0";
static const struct workload *wl = &workloads[0];
static uint64_t opt_records = 100000;
static uint64_t opt_ops = 100000;
static unsigned int opt_threads = 4;
static double opt_theta = ZIPF_DEFAULT_THETA;
static unsigned int opt_key_size = 16;
static unsigned int opt_value_size = 64;
static int opt_load, opt_run;
static const char *opt_json;
static uint64_t opt_seed = 1;
static const char *opt_history;
static int opt_dist = -1;
static unsigned int opt_load_batch = 16;
static int opt_quiet;
static unsigned int opt_depth = 1;

/* Shared run state. */
static int store_fd = -1;
static uint32_t run_id;
static _Atomic uint32_t *versions;	/* last version issued per key */
static uint64_t nr_keys;		/* size of versions[] */
static int loaded_here;			/* this process loaded the records */
static _Atomic uint64_t insert_next;	/* D: next key number to insert */
static _Atomic uint64_t insert_acked;	/* D: keys [0, acked) all inserted */
static _Atomic unsigned char *inserted;	/* D: per inserted key, done */
static _Atomic uint64_t progress;	/* ops done in the current phase */
static _Atomic int stop_now;

/* Log-linear latency histogram: 32 sub-buckets per power of two. */
#define HIST_SUB_BITS	5
#define HIST_SUB	(1 << HIST_SUB_BITS)
#define HIST_BUCKETS	((64 - HIST_SUB_BITS) * HIST_SUB + 2 * HIST_SUB)

struct hist {
	uint64_t count, sum_ns, max_ns;
	uint64_t b[HIST_BUCKETS];
};

static unsigned int hist_index(uint64_t v)
{
	unsigned int msb, e;

	if (v < 2 * HIST_SUB)
		return (unsigned int)v;
	msb = 63 - (unsigned int)__builtin_clzll(v);
	e = msb - HIST_SUB_BITS;
	return e * HIST_SUB + (unsigned int)(v >> e);
}

/* Midpoint of bucket @i, in ns. */
static double hist_value(unsigned int i)
{
	unsigned int e, m;

	if (i < 2 * HIST_SUB)
		return i;
	e = i / HIST_SUB - 1;
	m = i - e * HIST_SUB;
	return ((double)m + 0.5) * (double)(1ULL << e);
}

static void hist_add(struct hist *h, uint64_t ns)
{
	h->b[hist_index(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

static void hist_merge(struct hist *d, const struct hist *s)
{
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		d->b[i] += s->b[i];
	d->count += s->count;
	d->sum_ns += s->sum_ns;
	if (s->max_ns > d->max_ns)
		d->max_ns = s->max_ns;
}

static double hist_pct(const struct hist *h, double p)
{
	uint64_t want, acc = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	want = (uint64_t)ceil(p * (double)h->count);
	if (want < 1)
		want = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		acc += h->b[i];
		if (acc >= want)
			return hist_value(i) < (double)h->max_ns ?
			       hist_value(i) : (double)h->max_ns;
	}
	return (double)h->max_ns;
}

struct op_stats {
	struct hist lat;
	uint64_t errors;	/* ioctl failures other than a missing key */
	uint64_t missing;	/* reads of a key that should exist */
	uint64_t bad_value;	/* reads whose value failed verification */
};

struct worker {
	pthread_t th;
	int joined;
	uint64_t t_end;		/* when this worker finished */
	unsigned int id;
	uint64_t nr_ops;	/* run phase: ops; load phase: key range */
	uint64_t first;
	struct ycsb_rng rng;
	struct scrambled_zipf zipf;
	struct latest_gen latest;
	struct op_stats st[NR_OPT];
	char client[32];
	char first_error[160];
};

static void die(int code, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "scalio-ycsb: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(code);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------ keys, values */

static unsigned int make_key(char *buf, uint64_t keynum)
{
	int n = snprintf(buf, SCALIO_KEY_MAX + 1, "user%0*" PRIu64,
			 (int)opt_key_size - 4, keynum);

	return (unsigned int)n;
}

/* Filler byte stream determined by (key, run id, version). */
static void fill(char *p, size_t n, const char *key, uint32_t rid,
		 uint32_t ver)
{
	uint64_t x = 0xcbf29ce484222325ULL, z = 0;
	size_t i;

	for (i = 0; key[i]; i++)
		x = (x ^ (unsigned char)key[i]) * 0x100000001b3ULL;
	x ^= ((uint64_t)rid << 32) | ver;
	for (i = 0; i < n; i++) {
		if (i % 8 == 0) {
			z = (x += 0x9e3779b97f4a7c15ULL);
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
			z ^= z >> 31;
		}
		p[i] = (char)('a' + ((z >> (8 * (i % 8))) & 0xff) % 26);
	}
}

/* "<key>|<run id>|<version>|" then filler, exactly opt_value_size bytes. */
static unsigned int make_value(char *buf, const char *key, uint32_t rid,
			       uint32_t ver)
{
	int n = snprintf(buf, opt_value_size + 1, "%s|%08x|%u|", key, rid,
			 ver);

	fill(buf + n, opt_value_size - (size_t)n, key, rid, ver);
	return opt_value_size;
}

/*
 * check_value - verify a value read for @key.  Returns 0 if it is one this
 * tool wrote for this key; sets the version if it is of this run.
 */
static int check_value(const char *key, const char *v, unsigned int len,
		       uint64_t keynum, char *why, size_t whylen)
{
	char expect[SCALIO_VALUE_MAX + 1];
	unsigned int klen = (unsigned int)strlen(key), rid, ver;
	char *end;

	if (len != opt_value_size) {
		snprintf(why, whylen, "length %u, expected %u", len,
			 opt_value_size);
		return -1;
	}
	if (memcmp(v, key, klen) || v[klen] != '|') {
		snprintf(why, whylen, "value belongs to another key: %.*s",
			 (int)(len < 40 ? len : 40), v);
		return -1;
	}
	rid = (unsigned int)strtoul(v + klen + 1, &end, 16);
	if (end != v + klen + 9 || *end != '|') {
		snprintf(why, whylen, "malformed value header");
		return -1;
	}
	ver = (unsigned int)strtoul(end + 1, &end, 10);
	if (*end != '|') {
		snprintf(why, whylen, "malformed value version");
		return -1;
	}
	make_value(expect, key, rid, ver);
	if (memcmp(expect, v, len)) {
		snprintf(why, whylen, "corrupt value (run %08x version %u)",
			 rid, ver);
		return -1;
	}
	if (rid == run_id && keynum < nr_keys &&
	    ver > atomic_load(&versions[keynum])) {
		snprintf(why, whylen, "version %u never written (last %u)",
			 ver, atomic_load(&versions[keynum]));
		return -1;
	}
	if (rid != run_id && loaded_here) {
		snprintf(why, whylen, "value of another run (%08x)", rid);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------ store access */

static int kv_ioctl(unsigned long req, const char *key, unsigned int klen,
		    void *val, unsigned int *vlen)
{
	struct scalio_kv kv;

	memset(&kv, 0, sizeof(kv));
	kv.key = (uintptr_t)key;
	kv.klen = klen;
	kv.value = (uintptr_t)val;
	kv.vlen = vlen ? *vlen : 0;
	if (ioctl(store_fd, req, &kv) < 0)
		return -errno;
	if (vlen)
		*vlen = kv.vlen;
	return 0;
}

static void note_error(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_error(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (w->first_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(w->first_error, sizeof(w->first_error), fmt, ap);
	va_end(ap);
}

static void record(struct worker *w, enum lc_op op, const char *key,
		   unsigned int klen, uint32_t rid, uint32_t ver, int has_val,
		   enum lc_result res, uint64_t t0, uint64_t t1)
{
	char tok[32];
	int n = 0;

	if (!opt_history)
		return;
	if (has_val)
		n = snprintf(tok, sizeof(tok), "%08x.%u", rid, ver);
	lc_record(w->client, op, key, klen, tok, (size_t)n, res, t0, t1);
}

/* One GET with verification.  Returns 0, or -1 on any error. */
/* Check a GET's outcome @r (0 or -errno) and value; 0 or -1. */
static int read_done(struct worker *w, struct op_stats *st, uint64_t keynum,
		     const char *key, unsigned int klen, const char *val,
		     unsigned int vlen, int r, uint64_t t0, uint64_t t1)
{
	char why[128];

	if (r == -ENOENT) {
		st->missing++;
		note_error(w, "GET %s: key missing", key);
		record(w, LC_GET, key, klen, 0, 0, 0, LC_MISSING, t0, t1);
		return -1;
	}
	if (r) {
		st->errors++;
		note_error(w, "GET %s: %s", key, strerror(-r));
		record(w, LC_GET, key, klen, 0, 0, 0, LC_ERR, t0, t1);
		return -1;
	}
	if (check_value(key, val, vlen, keynum, why, sizeof(why))) {
		st->bad_value++;
		note_error(w, "GET %s: %s", key, why);
		/* Record what was read: the checker flags it too. */
		if (opt_history)
			lc_record(w->client, LC_GET, key, klen, "corrupt", 7,
				  LC_OK, t0, t1);
		return -1;
	}
	if (opt_history) {
		unsigned int rid = 0, ver = 0;

		sscanf(val + klen + 1, "%8x|%u|", &rid, &ver);
		record(w, LC_GET, key, klen, rid, ver, 1, LC_OK, t0, t1);
	}
	return 0;
}

static int do_read(struct worker *w, struct op_stats *st, uint64_t keynum,
		   uint64_t *lat)
{
	char key[SCALIO_KEY_MAX + 1], val[SCALIO_VALUE_MAX];
	unsigned int klen = make_key(key, keynum), vlen = sizeof(val);
	uint64_t t0 = now_ns(), t1;
	int r = kv_ioctl(SCALIO_IOC_GET, key, klen, val, &vlen);

	t1 = now_ns();
	*lat += t1 - t0;
	return read_done(w, st, keynum, key, klen, val, vlen, r, t0, t1);
}

/* Account a PUT's outcome @r (0 or -errno); 0 or -1. */
static int write_done(struct worker *w, struct op_stats *st, const char *key,
		      unsigned int klen, uint32_t ver, int r, uint64_t t0,
		      uint64_t t1)
{
	record(w, LC_PUT, key, klen, run_id, ver, 1, r ? LC_ERR : LC_OK, t0,
	       t1);
	if (r) {
		st->errors++;
		note_error(w, "PUT %s: %s", key, strerror(-r));
		return -1;
	}
	return 0;
}

/* One PUT of the next version of @keynum (0 for an insert). */
static int do_write(struct worker *w, struct op_stats *st, uint64_t keynum,
		    int insert, uint64_t *lat)
{
	char key[SCALIO_KEY_MAX + 1], val[SCALIO_VALUE_MAX + 1];
	unsigned int klen = make_key(key, keynum), vlen;
	uint32_t ver = insert ? 0 : atomic_fetch_add(&versions[keynum], 1) + 1;
	uint64_t t0, t1;
	int r;

	vlen = make_value(val, key, run_id, ver);
	t0 = now_ns();
	r = kv_ioctl(SCALIO_IOC_PUT, key, klen, val, &vlen);
	t1 = now_ns();
	*lat += t1 - t0;
	return write_done(w, st, key, klen, ver, r, t0, t1);
}

/* D: mark @keynum inserted and advance the acknowledged limit. */
static void ack_insert(uint64_t keynum)
{
	uint64_t a;

	atomic_store(&inserted[keynum - opt_records], 1);
	a = atomic_load(&insert_acked);
	while (a < atomic_load(&insert_next) &&
	       atomic_load(&inserted[a - opt_records])) {
		if (atomic_compare_exchange_weak(&insert_acked, &a, a + 1))
			a++;
	}
}

static uint64_t choose_key(struct worker *w)
{
	double u = ycsb_rng_double(&w->rng);
	enum dist d = opt_dist >= 0 ? (enum dist)opt_dist : wl->dist;

	switch (d) {
	case DIST_UNIFORM:
		return ycsb_rng_below(&w->rng, atomic_load(&insert_acked));
	case DIST_LATEST:
		return latest_next(&w->latest, atomic_load(&insert_acked), u);
	default:
		return scrambled_zipf_next(&w->zipf, u);
	}
}

static enum op_type choose_type(struct worker *w)
{
	double r = ycsb_rng_double(&w->rng);

	if (r < wl->read)
		return OPT_READ;
	if (r < wl->read + wl->update)
		return OPT_UPDATE;
	if (r < wl->read + wl->update + wl->insert)
		return OPT_INSERT;
	return OPT_RMW;
}

/* --depth: one of a thread's operations in flight. */
struct slot {
	struct scalio_kv kv;
	struct scalio_uring_cmd uc;
	enum op_type t;
	int writing;		/* the PUT (of an update, insert or RMW) */
	uint64_t k;
	uint32_t ver;
	uint64_t t0;		/* submission of the current GET or PUT */
	uint64_t lat;		/* the YCSB operation's latency so far */
	unsigned int klen;
	char key[SCALIO_KEY_MAX + 1];
	char val[SCALIO_VALUE_MAX + 1];
};

/* Queue @s's current GET or PUT on @ring. */
static void slot_queue(struct io_uring *ring, struct slot *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)	/* never: at most ring-size slots, each one op */
		die(3, "io_uring: no free SQE");
	memset(&s->kv, 0, sizeof(s->kv));
	s->kv.key = (uintptr_t)s->key;
	s->kv.klen = s->klen;
	s->kv.value = (uintptr_t)s->val;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = store_fd;
	if (s->writing) {
		s->ver = s->t == OPT_INSERT ? 0 :
			 atomic_fetch_add(&versions[s->k], 1) + 1;
		s->kv.vlen = make_value(s->val, s->key, run_id, s->ver);
		sqe->cmd_op = SCALIO_URING_CMD_PUT;
	} else {
		s->kv.vlen = SCALIO_VALUE_MAX;
		sqe->cmd_op = SCALIO_URING_CMD_GET;
	}
	memset(&s->uc, 0, sizeof(s->uc));
	s->uc.kv = (uintptr_t)&s->kv;
	memcpy(sqe->cmd, &s->uc, sizeof(s->uc));
	sqe->user_data = (uintptr_t)s;
	s->t0 = now_ns();
}

/* Start @s's next YCSB operation; 0 if there was none to start. */
static int slot_start(struct worker *w, struct io_uring *ring, struct slot *s,
		      uint64_t *issued)
{
	while (*issued < w->nr_ops && !atomic_load(&stop_now)) {
		(*issued)++;
		s->t = choose_type(w);
		s->lat = 0;
		if (s->t == OPT_INSERT) {
			s->k = atomic_fetch_add(&insert_next, 1);
			if (s->k >= nr_keys) {	/* cannot happen */
				note_error(w, "insert space exhausted");
				w->st[s->t].errors++;
				continue;
			}
		} else {
			s->k = choose_key(w);
		}
		s->writing = s->t == OPT_UPDATE || s->t == OPT_INSERT;
		s->klen = make_key(s->key, s->k);
		slot_queue(ring, s);
		return 1;
	}
	return 0;
}

/* Run phase with opt_depth operations in flight, through io_uring. */
static void run_worker_depth(struct worker *w)
{
	struct io_uring ring;
	struct slot *slots = calloc(opt_depth, sizeof(*slots));
	uint64_t issued = 0;
	unsigned int i, inflight = 0;
	int ret;

	if (!slots)
		die(3, "out of memory");
	ret = io_uring_queue_init(opt_depth, &ring, 0);
	if (ret)
		die(3, "io_uring_queue_init(%u): %s", opt_depth, strerror(-ret));
	for (i = 0; i < opt_depth; i++)
		inflight += slot_start(w, &ring, &slots[i], &issued);
	while (inflight) {
		struct io_uring_cqe *cqe;
		struct slot *s;
		uint64_t t1;
		int r, err;

		ret = io_uring_submit(&ring);
		if (ret < 0 && ret != -EINTR)
			die(3, "io_uring_submit: %s", strerror(-ret));
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret == -EINTR)
			continue;
		if (ret)
			die(3, "io_uring_wait_cqe: %s", strerror(-ret));
		s = (struct slot *)(uintptr_t)cqe->user_data;
		r = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		t1 = now_ns();
		s->lat += t1 - s->t0;
		if (!s->writing) {
			err = read_done(w, &w->st[s->t], s->k, s->key, s->klen,
					s->val, r >= 0 ? (unsigned int)r : 0,
					r >= 0 ? 0 : r, s->t0, t1);
			if (!err && s->t == OPT_RMW) {
				s->writing = 1;	/* its PUT, same slot */
				slot_queue(&ring, s);
				continue;
			}
		} else {
			err = write_done(w, &w->st[s->t], s->key, s->klen,
					 s->ver, r, s->t0, t1);
			if (!err && s->t == OPT_INSERT)
				ack_insert(s->k);
		}
		hist_add(&w->st[s->t].lat, s->lat);
		atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
		inflight--;
		inflight += slot_start(w, &ring, s, &issued);
	}
	io_uring_queue_exit(&ring);
	free(slots);
}

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	uint64_t i;

	if (opt_depth > 1) {
		run_worker_depth(w);
		w->t_end = now_ns();
		return NULL;
	}
	for (i = 0; i < w->nr_ops && !atomic_load(&stop_now); i++) {
		enum op_type t = choose_type(w);
		uint64_t k, lat = 0;
		int err = 0;

		if (t == OPT_INSERT) {
			k = atomic_fetch_add(&insert_next, 1);
			if (k >= nr_keys) {	/* cannot happen: sized for ops */
				note_error(w, "insert space exhausted");
				w->st[t].errors++;
				continue;
			}
			err = do_write(w, &w->st[t], k, 1, &lat);
			if (!err)
				ack_insert(k);
		} else {
			k = choose_key(w);
			if (t == OPT_READ) {
				err = do_read(w, &w->st[t], k, &lat);
			} else if (t == OPT_UPDATE) {
				err = do_write(w, &w->st[t], k, 0, &lat);
			} else {
				err = do_read(w, &w->st[t], k, &lat);
				if (!err)
					err = do_write(w, &w->st[t], k, 0, &lat);
			}
		}
		(void)err;
		hist_add(&w->st[t].lat, lat);
		atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
	}
	w->t_end = now_ns();
	return NULL;
}

/* Load: PUT version 0 of keys [first, first + nr_ops), batched by MULTI. */
static void *load_worker(void *arg)
{
	struct worker *w = arg;
	static _Atomic int multi_unsupported;
	struct scalio_multi_op mops[SCALIO_MULTI_MAX];
	static __thread char keys[SCALIO_MULTI_MAX][SCALIO_KEY_MAX + 1];
	static __thread char vals[SCALIO_MULTI_MAX][SCALIO_VALUE_MAX + 1];
	struct op_stats *st = &w->st[OPT_INSERT];
	uint64_t k = w->first, end = w->first + w->nr_ops;

	while (k < end && !atomic_load(&stop_now)) {
		unsigned int n = opt_load_batch, i;
		uint64_t t0, t1, lat;
		struct scalio_multi m;

		if (n > end - k)
			n = (unsigned int)(end - k);
		if (n <= 1 || atomic_load(&multi_unsupported)) {
			lat = 0;
			do_write(w, st, k, 1, &lat);
			hist_add(&st->lat, lat);
			atomic_fetch_add_explicit(&progress, 1,
						  memory_order_relaxed);
			k++;
			continue;
		}
		memset(mops, 0, n * sizeof(mops[0]));
		for (i = 0; i < n; i++) {
			mops[i].opcode = SCALIO_OP_PUT;
			mops[i].kv.klen = make_key(keys[i], k + i);
			mops[i].kv.key = (uintptr_t)keys[i];
			mops[i].kv.vlen = make_value(vals[i], keys[i], run_id, 0);
			mops[i].kv.value = (uintptr_t)vals[i];
		}
		memset(&m, 0, sizeof(m));
		m.ops = (uintptr_t)mops;
		m.nr = n;
		t0 = now_ns();
		if (ioctl(store_fd, SCALIO_IOC_MULTI, &m) < 0) {
			if (errno == ENOTTY || errno == EOPNOTSUPP ||
			    errno == ENOSYS) {
				atomic_store(&multi_unsupported, 1);
				continue;
			}
			st->errors += n;
			note_error(w, "MULTI PUT of %u keys: %s", n,
				   strerror(errno));
			k += n;
			atomic_fetch_add(&progress, n);
			continue;
		}
		t1 = now_ns();
		for (i = 0; i < n; i++) {
			/* Each op's latency is the batch's. */
			hist_add(&st->lat, t1 - t0);
			/*
			 * The ops of one MULTI run concurrently: record each
			 * slot of the batch as its own sequential client.
			 */
			if (opt_history) {
				char cl[48], tok[24];
				int tn = snprintf(tok, sizeof(tok), "%08x.0",
						  run_id);

				snprintf(cl, sizeof(cl), "%s.%u", w->client, i);
				lc_record(cl, LC_PUT, keys[i], mops[i].kv.klen,
					  tok, (size_t)tn, mops[i].kv.result ?
					  LC_ERR : LC_OK, t0, t1);
			}
			if (mops[i].kv.result) {
				st->errors++;
				note_error(w, "PUT %s (MULTI): %s", keys[i],
					   strerror(-mops[i].kv.result));
			}
		}
		atomic_fetch_add(&progress, n);
		k += n;
	}
	w->t_end = now_ns();
	return NULL;
}

/* ------------------------------------------------------ stats */

struct snap {
	struct scalio_stats s;
	int ok;
};

static void take_stats(struct snap *sn)
{
	memset(sn, 0, sizeof(*sn));
	sn->s.size = sizeof(sn->s);
	sn->s.flags = SCALIO_STATS_F_TARGET;
	if (ioctl(store_fd, SCALIO_IOC_STATS, &sn->s) == 0) {
		sn->ok = 1;
		return;
	}
	/* Target unreachable for stats: host counters only. */
	memset(&sn->s, 0, sizeof(sn->s));
	sn->s.size = sizeof(sn->s);
	if (ioctl(store_fd, SCALIO_IOC_STATS, &sn->s) == 0)
		sn->ok = 1;
	else
		fprintf(stderr, "scalio-ycsb: SCALIO_IOC_STATS: %s\n",
			strerror(errno));
}

struct derived {
	int host_ok, target_ok;
	struct scalio_host_stats h;	/* deltas */
	struct scalio_target_stats t;	/* deltas */
	double hit_ratio;		/* -1 if no GETs */
	double ssd_reads_per_get;	/* host (offloaded) + target */
	double host_ssd_reads_per_get;
	double target_ssd_reads_per_get;
	double ssd_writes_per_put;
	double target_cpu_ns_per_op;
};

#define D(f) (b->s.host.f - a->s.host.f)
#define T(f) (b->s.target.f - a->s.target.f)

static void derive(const struct snap *a, const struct snap *b,
		   uint64_t my_ops, struct derived *d)
{
	uint64_t writes;

	memset(d, 0, sizeof(*d));
	d->hit_ratio = d->ssd_reads_per_get = d->ssd_writes_per_put = -1;
	d->host_ssd_reads_per_get = d->target_ssd_reads_per_get = -1;
	d->target_cpu_ns_per_op = -1;
	if (!a->ok || !b->ok)
		return;
	d->host_ok = 1;
	d->h.gets = D(gets);
	d->h.puts = D(puts);
	d->h.deletes = D(deletes);
	d->h.cache_hits = D(cache_hits);
	d->h.cache_misses = D(cache_misses);
	d->h.ssd_reads = D(ssd_reads);
	d->h.rpc_gets = D(rpc_gets);
	d->h.rdma_reads = D(rdma_reads);
	d->h.rdma_cas = D(rdma_cas);
	d->h.cas_failures = D(cas_failures);
	d->h.retries = D(retries);
	d->h.lease_reclaims = D(lease_reclaims);
	d->h.invalidations = D(invalidations);
	d->h.header_mismatches = D(header_mismatches);
	d->h.errors = D(errors);
	d->h.waits = D(waits);
	d->h.lease_renewals = D(lease_renewals);
	if (d->h.gets) {
		d->hit_ratio = (double)d->h.cache_hits / (double)d->h.gets;
		d->host_ssd_reads_per_get = (double)d->h.ssd_reads /
					    (double)d->h.gets;
	}
	if (!a->s.target_valid || !b->s.target_valid)
		return;
	d->target_ok = 1;
	d->t.rpc_gets = T(rpc_gets);
	d->t.rpc_puts = T(rpc_puts);
	d->t.rpc_deletes = T(rpc_deletes);
	d->t.rpc_other = T(rpc_other);
	d->t.ssd_reads = T(ssd_reads);
	d->t.ssd_writes = T(ssd_writes);
	d->t.ssd_write_bytes = T(ssd_write_bytes);
	d->t.batches = T(batches);
	d->t.batched_ops = T(batched_ops);
	d->t.cleaner_runs = T(cleaner_runs);
	d->t.cleaner_moved = T(cleaner_moved);
	d->t.cpu_ns_commit = T(cpu_ns_commit);
	d->t.cpu_ns_rpc = T(cpu_ns_rpc);
	d->t.cpu_ns_cleaner = T(cpu_ns_cleaner);
	d->t.log_used_units = b->s.target.log_used_units;
	d->t.log_total_units = b->s.target.log_total_units;
	d->t.keys = b->s.target.keys;
	if (d->h.gets) {
		d->target_ssd_reads_per_get = (double)d->t.ssd_reads /
					      (double)d->h.gets;
		d->ssd_reads_per_get = (double)(d->h.ssd_reads +
						d->t.ssd_reads) /
				       (double)d->h.gets;
	}
	/* The target sees every client's writes: divide by all of them. */
	writes = d->t.rpc_puts + d->t.rpc_deletes;
	if (!writes)
		writes = d->h.puts + d->h.deletes;
	if (writes)
		d->ssd_writes_per_put = (double)d->t.ssd_writes /
					(double)writes;
	if (my_ops)
		d->target_cpu_ns_per_op = (double)(d->t.cpu_ns_commit +
					  d->t.cpu_ns_rpc +
					  d->t.cpu_ns_cleaner) /
					  (double)my_ops;
}

/* ------------------------------------------------------ progress */

struct phase {
	const char *name;
	uint64_t total;
	uint64_t t_start, t_end;
	struct op_stats st[NR_OPT];
	struct derived d;
	uint64_t ops, errors;
	char first_error[160];
};

static void show_progress(const struct phase *ph, int tty, int final)
{
	uint64_t done = atomic_load(&progress), el = now_ns() - ph->t_start;
	double pct = ph->total ? 100.0 * (double)done / (double)ph->total : 100;
	double rate = el ? (double)done * 1e9 / (double)el : 0;

	if (opt_quiet)
		return;
	if (tty) {
		char bar[41];
		int i, fillc = (int)(pct * 40 / 100);

		for (i = 0; i < 40; i++)
			bar[i] = i < fillc ? '#' : '.';
		bar[40] = '\0';
		fprintf(stderr, "\r%-4s [%s] %5.1f%% %" PRIu64 "/%" PRIu64
			" %.0f ops/s%s", ph->name, bar, pct, done, ph->total,
			rate, final ? "\n" : "");
	} else {
		fprintf(stderr, "%s: %" PRIu64 "/%" PRIu64 " (%.1f%%) %.0f ops/s"
			" %.1f s\n", ph->name, done, ph->total, pct, rate,
			(double)el / 1e9);
	}
}

static void run_phase(struct phase *ph, int load)
{
	struct worker *ws = calloc(opt_threads, sizeof(*ws));
	int tty = isatty(2);
	uint64_t last_line, per, rem;
	struct snap a, b;
	unsigned int i, t;

	if (!ws)
		die(3, "out of memory");
	per = ph->total / opt_threads;
	rem = ph->total % opt_threads;
	for (i = 0; i < opt_threads; i++) {
		struct worker *w = &ws[i];

		w->id = i;
		w->nr_ops = per + (i < rem);
		w->first = i ? ws[i - 1].first + ws[i - 1].nr_ops : 0;
		ycsb_rng_seed(&w->rng, opt_seed * 0x9E3779B97F4A7C15ULL +
			      i * 7919 + (load ? 1 : 2));
		if (scrambled_zipf_init(&w->zipf, 0, opt_records - 1,
					opt_theta))
			die(2, "bad zipfian constant %g", opt_theta);
		if (latest_init(&w->latest, opt_records, opt_theta))
			die(2, "bad zipfian constant %g", opt_theta);
		snprintf(w->client, sizeof(w->client), "%s%u",
			 load ? "l" : "t", i);
	}
	atomic_store(&progress, 0);
	take_stats(&a);
	ph->t_start = now_ns();
	for (i = 0; i < opt_threads; i++)
		if (pthread_create(&ws[i].th, NULL,
				   load ? load_worker : run_worker, &ws[i]))
			die(3, "pthread_create failed");
	last_line = ph->t_start;
	while (atomic_load(&progress) < ph->total) {
		uint64_t t;

		usleep(20000);
		t = now_ns();
		if (t - last_line >= (tty ? 200000000ULL : 5000000000ULL)) {
			show_progress(ph, tty, 0);
			last_line = t;
		}
		/* All workers finished early (e.g. errors): stop waiting. */
		for (i = 0; i < opt_threads; i++)
			if (!ws[i].joined &&
			    pthread_tryjoin_np(ws[i].th, NULL) == 0)
				ws[i].joined = 1;
		for (i = 0; i < opt_threads && ws[i].joined; i++)
			;
		if (i == opt_threads)
			break;
	}
	for (i = 0; i < opt_threads; i++)
		if (!ws[i].joined)
			pthread_join(ws[i].th, NULL);
	ph->t_end = ph->t_start;
	for (i = 0; i < opt_threads; i++)
		if (ws[i].t_end > ph->t_end)
			ph->t_end = ws[i].t_end;
	if (tty || ph->total >= 10000)
		show_progress(ph, tty, 1);
	take_stats(&b);
	for (i = 0; i < opt_threads; i++) {
		for (t = 0; t < NR_OPT; t++) {
			hist_merge(&ph->st[t].lat, &ws[i].st[t].lat);
			ph->st[t].errors += ws[i].st[t].errors;
			ph->st[t].missing += ws[i].st[t].missing;
			ph->st[t].bad_value += ws[i].st[t].bad_value;
		}
		if (!ph->first_error[0] && ws[i].first_error[0])
			memcpy(ph->first_error, ws[i].first_error,
			       sizeof(ph->first_error));
	}
	for (t = 0; t < NR_OPT; t++) {
		ph->ops += ph->st[t].lat.count;
		ph->errors += ph->st[t].errors + ph->st[t].missing +
			      ph->st[t].bad_value;
	}
	derive(&a, &b, ph->ops, &ph->d);
	free(ws);
}

/* ------------------------------------------------------ reporting */

static void fmt_ratio(char *buf, size_t len, double v, const char *fmt)
{
	if (v < 0)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, fmt, v);
}

static void print_phase(const struct phase *ph)
{
	double secs = (double)(ph->t_end - ph->t_start) / 1e9;
	char b1[32];
	unsigned int t;

	printf("\n[%s] workload %c, %" PRIu64 " records, %u threads, "
	       "zipfian %.2f, key %u B, value %u B\n", ph->name, wl->name,
	       opt_records, opt_threads, opt_theta, opt_key_size,
	       opt_value_size);
	printf("  %-20s %" PRIu64 " in %.3f s\n", "operations", ph->ops, secs);
	printf("  %-20s %.0f ops/s\n", "throughput",
	       secs > 0 ? (double)ph->ops / secs : 0);
	printf("  %-18s %10s %10s %10s %10s %10s %8s\n", "op", "count",
	       "avg us", "p50 us", "p99 us", "p99.9 us", "errors");
	for (t = 0; t < NR_OPT; t++) {
		const struct op_stats *s = &ph->st[t];

		if (!s->lat.count)
			continue;
		printf("  %-18s %10" PRIu64 " %10.1f %10.1f %10.1f %10.1f %8"
		       PRIu64 "\n", opt_names[t], s->lat.count,
		       (double)s->lat.sum_ns / (double)s->lat.count / 1e3,
		       hist_pct(&s->lat, 0.50) / 1e3,
		       hist_pct(&s->lat, 0.99) / 1e3,
		       hist_pct(&s->lat, 0.999) / 1e3,
		       s->errors + s->missing + s->bad_value);
	}
	if (!ph->d.host_ok) {
		printf("  store counters: unavailable\n");
	} else {
		fmt_ratio(b1, sizeof(b1), ph->d.hit_ratio * 100, "%.1f %%");
		printf("  %-28s %s (%llu hits / %llu GETs)\n",
		       "cache hit ratio", b1, ph->d.h.cache_hits, ph->d.h.gets);
		fmt_ratio(b1, sizeof(b1), ph->d.host_ssd_reads_per_get,
			  "%.3f");
		printf("  %-28s %s\n", "offloaded SSD reads per GET", b1);
		if (ph->d.target_ok) {
			fmt_ratio(b1, sizeof(b1),
				  ph->d.target_ssd_reads_per_get, "%.3f");
			printf("  %-28s %s\n", "target SSD reads per GET", b1);
			fmt_ratio(b1, sizeof(b1), ph->d.ssd_reads_per_get,
				  "%.3f");
			printf("  %-28s %s\n", "SSD reads per GET (total)", b1);
			fmt_ratio(b1, sizeof(b1), ph->d.ssd_writes_per_put,
				  "%.3f");
			printf("  %-28s %s (%llu writes, %llu batches)\n",
			       "SSD writes per PUT", b1,
			       ph->d.t.ssd_writes, ph->d.t.batches);
			fmt_ratio(b1, sizeof(b1),
				  ph->d.target_cpu_ns_per_op / 1e3, "%.2f us");
			printf("  %-28s %s\n", "target CPU per op", b1);
		} else {
			printf("  target counters: unavailable\n");
		}
		printf("  %-28s %llu retries, %llu CAS failures, %llu "
		       "invalidations\n",
		       "host protocol", ph->d.h.retries, ph->d.h.cas_failures,
		       ph->d.h.invalidations);
	}
	if (ph->errors) {
		printf("  ERRORS: %" PRIu64 " (missing keys, bad values or "
		       "failed ioctls); first: %s\n", ph->errors,
		       ph->first_error);
	}
}

static void json_num(FILE *f, const char *name, double v, int last)
{
	if (v < 0 || isnan(v))
		fprintf(f, "\"%s\": null%s", name, last ? "" : ", ");
	else
		fprintf(f, "\"%s\": %.6g%s", name, v, last ? "" : ", ");
}

static void json_phase(FILE *f, const struct phase *ph)
{
	double secs = (double)(ph->t_end - ph->t_start) / 1e9;
	const struct derived *d = &ph->d;
	int first = 1;
	unsigned int t;

	fprintf(f, "    \"%s\": {\n      ", ph->name);
	fprintf(f, "\"ops\": %" PRIu64 ", \"errors\": %" PRIu64 ", ",
		ph->ops, ph->errors);
	json_num(f, "seconds", secs, 0);
	json_num(f, "throughput_ops_per_s",
		 secs > 0 ? (double)ph->ops / secs : 0, 1);
	fprintf(f, ",\n      \"latency_us\": {");
	for (t = 0; t < NR_OPT; t++) {
		const struct op_stats *s = &ph->st[t];

		if (!s->lat.count)
			continue;
		fprintf(f, "%s\n        \"%s\": {\"count\": %" PRIu64 ", ",
			first ? "" : ",", opt_names[t], s->lat.count);
		json_num(f, "avg", (double)s->lat.sum_ns /
			 (double)s->lat.count / 1e3, 0);
		json_num(f, "p50", hist_pct(&s->lat, 0.50) / 1e3, 0);
		json_num(f, "p99", hist_pct(&s->lat, 0.99) / 1e3, 0);
		json_num(f, "p99.9", hist_pct(&s->lat, 0.999) / 1e3, 0);
		json_num(f, "max", (double)s->lat.max_ns / 1e3, 0);
		fprintf(f, "\"errors\": %" PRIu64 ", \"missing\": %" PRIu64
			", \"bad_values\": %" PRIu64 "}", s->errors,
			s->missing, s->bad_value);
		first = 0;
	}
	fprintf(f, "\n      },\n      ");
	json_num(f, "cache_hit_ratio", d->hit_ratio, 0);
	json_num(f, "ssd_reads_per_get", d->ssd_reads_per_get, 0);
	json_num(f, "host_ssd_reads_per_get", d->host_ssd_reads_per_get, 0);
	json_num(f, "target_ssd_reads_per_get", d->target_ssd_reads_per_get,
		 0);
	json_num(f, "ssd_writes_per_put", d->ssd_writes_per_put, 0);
	json_num(f, "target_cpu_ns_per_op", d->target_cpu_ns_per_op, 1);
	if (d->host_ok) {
		fprintf(f, ",\n      \"host_delta\": {\"gets\": %llu"
			", \"puts\": %llu" ", \"deletes\": %llu"
			", \"cache_hits\": %llu" ", \"cache_misses\": %llu"
			", \"ssd_reads\": %llu" ", \"rpc_gets\": %llu"
			", \"rdma_reads\": %llu" ", \"rdma_cas\": %llu"
			", \"cas_failures\": %llu" ", \"retries\": %llu"
			", \"lease_reclaims\": %llu"
			", \"invalidations\": %llu"
			", \"header_mismatches\": %llu" ", \"errors\": %llu"
			", \"waits\": %llu" ", \"lease_renewals\": %llu"
			"}", d->h.gets, d->h.puts, d->h.deletes,
			d->h.cache_hits, d->h.cache_misses, d->h.ssd_reads,
			d->h.rpc_gets, d->h.rdma_reads, d->h.rdma_cas,
			d->h.cas_failures, d->h.retries, d->h.lease_reclaims,
			d->h.invalidations, d->h.header_mismatches,
			d->h.errors, d->h.waits, d->h.lease_renewals);
	}
	if (d->target_ok) {
		fprintf(f, ",\n      \"target_delta\": {\"rpc_gets\": %llu"
			", \"rpc_puts\": %llu" ", \"rpc_deletes\": %llu"
			", \"rpc_other\": %llu" ", \"ssd_reads\": %llu"
			", \"ssd_writes\": %llu" ", \"ssd_write_bytes\": %llu"
			", \"batches\": %llu" ", \"batched_ops\": %llu"
			", \"cleaner_runs\": %llu"
			", \"cleaner_moved\": %llu" ", \"cpu_ns_commit\": %llu"
			", \"cpu_ns_rpc\": %llu"
			", \"cpu_ns_cleaner\": %llu" ", \"keys\": %llu"
			"}", d->t.rpc_gets, d->t.rpc_puts, d->t.rpc_deletes,
			d->t.rpc_other, d->t.ssd_reads, d->t.ssd_writes,
			d->t.ssd_write_bytes, d->t.batches, d->t.batched_ops,
			d->t.cleaner_runs, d->t.cleaner_moved,
			d->t.cpu_ns_commit, d->t.cpu_ns_rpc,
			d->t.cpu_ns_cleaner, d->t.keys);
	}
	fprintf(f, "\n    }");
}

static void write_json(const struct phase *load, const struct phase *run)
{
	FILE *f = strcmp(opt_json, "-") ? fopen(opt_json, "w") : stdout;

	if (!f)
		die(3, "%s: %s", opt_json, strerror(errno));
	fprintf(f, "{\n  \"tool\": \"scalio-ycsb\", \"store\": \"%s\", "
		"\"workload\": \"%c\", \"records\": %" PRIu64 ", \"ops\": %"
		PRIu64 ", \"threads\": %u, \"depth\": %u, "
		"\"zipfian_constant\": %g, "
		"\"key_size\": %u, \"value_size\": %u, \"seed\": %" PRIu64
		", \"run_id\": \"%08x\",\n  \"phases\": {\n", opt_store,
		wl->name, opt_records, opt_ops, opt_threads, opt_depth, opt_theta,
		opt_key_size, opt_value_size, opt_seed, run_id);
	if (load)
		json_phase(f, load);
	if (load && run)
		fprintf(f, ",\n");
	if (run)
		json_phase(f, run);
	fprintf(f, "\n  }\n}\n");
	if (f != stdout && fclose(f))
		die(3, "%s: %s", opt_json, strerror(errno));
}

/* ------------------------------------------------------ main */

static void usage(FILE *f)
{
	fprintf(f,
"usage: scalio-ycsb [options] --load|--run|--load --run\n"
"  --store NAME        store device /dev/scalio/NAME (default kv0)\n"
"  --workload a|b|c|d|f  YCSB core workload (default a)\n"
"                      a 50/50 read/update, b 95/5 read/update, c read,\n"
"                      d 95 read/5 insert (latest), f 50 read/50 RMW\n"
"  --records N         records loaded (default 100000)\n"
"  --ops N             operations in the run phase (default 100000)\n"
"  --threads N         client threads (default 4)\n"
"  --zipf THETA        Zipfian constant, 0 < THETA < 1 (default 0.99)\n"
"  --distribution zipfian|uniform|latest  override the workload's\n"
"  --key-size N        key bytes, \"user\" + digits, 8..%d (default 16)\n"
"  --value-size N      value bytes (default 64, up to %d)\n"
"  --load              load phase: insert the records\n"
"  --load-batch N      PUTs per SCALIO_IOC_MULTI while loading (default 16)\n"
"  --depth N           run phase: operations in flight per thread, through\n"
"                      io_uring (default 1: one synchronous ioctl at a time)\n"
"  --run               run phase: the workload's operations\n"
"  --json FILE         also write results as JSON (- for stdout)\n"
"  --history FILE      record every op for tests/lincheck/lincheck\n"
"  --seed N            random seed (default 1)\n"
"  --quiet             no progress output\n"
"Exit: 0 ok, 1 errors (missing keys, wrong values, failed ops), 2 usage,\n"
"3 device failure.\n", SCALIO_KEY_MAX, SCALIO_VALUE_MAX);
}

static uint64_t parse_u64(const char *s, const char *what, uint64_t min,
			  uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || *s == '-' || v < min || v > max)
		die(2, "bad %s '%s' (%" PRIu64 "..%" PRIu64 ")", what, s, min,
		    max);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "workload", required_argument, NULL, 'w' },
		{ "records", required_argument, NULL, 'r' },
		{ "ops", required_argument, NULL, 'o' },
		{ "threads", required_argument, NULL, 't' },
		{ "zipf", required_argument, NULL, 'z' },
		{ "distribution", required_argument, NULL, 'D' },
		{ "key-size", required_argument, NULL, 'k' },
		{ "value-size", required_argument, NULL, 'v' },
		{ "load", no_argument, NULL, 'L' },
		{ "load-batch", required_argument, NULL, 'B' },
		{ "run", no_argument, NULL, 'R' },
		{ "json", required_argument, NULL, 'j' },
		{ "history", required_argument, NULL, 'H' },
		{ "seed", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "depth", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct phase load_ph = { .name = "load" }, run_ph = { .name = "run" };
	char path[64 + SCALIO_NAME_MAX];
	unsigned int i, digits;
	uint64_t max_keynum;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!*optarg || strlen(optarg) >= SCALIO_NAME_MAX ||
			    strchr(optarg, '/'))
				die(2, "bad store name '%s'", optarg);
			opt_store = optarg;
			break;
		case 'w':
			for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]);
			     i++)
				if (optarg[0] == workloads[i].name ||
				    optarg[0] == workloads[i].name - 32)
					break;
			if (optarg[1] || i == sizeof(workloads) /
			    sizeof(workloads[0]))
				die(2, "unknown workload '%s' (a, b, c, d, f)",
				    optarg);
			wl = &workloads[i];
			break;
		case 'r':
			opt_records = parse_u64(optarg, "--records", 1,
						1ULL << 40);
			break;
		case 'o':
			opt_ops = parse_u64(optarg, "--ops", 0, 1ULL << 40);
			break;
		case 't':
			opt_threads = (unsigned int)parse_u64(optarg,
						"--threads", 1, 1024);
			break;
		case 'z': {
			char *end;

			opt_theta = strtod(optarg, &end);
			if (*end || !(opt_theta > 0 && opt_theta < 1))
				die(2, "bad --zipf '%s' (0 < theta < 1)",
				    optarg);
			break;
		}
		case 'D':
			if (!strcmp(optarg, "zipfian"))
				opt_dist = DIST_ZIPFIAN;
			else if (!strcmp(optarg, "uniform"))
				opt_dist = DIST_UNIFORM;
			else if (!strcmp(optarg, "latest"))
				opt_dist = DIST_LATEST;
			else
				die(2, "bad --distribution '%s'", optarg);
			break;
		case 'k':
			opt_key_size = (unsigned int)parse_u64(optarg,
					"--key-size", 8, SCALIO_KEY_MAX);
			break;
		case 'v':
			opt_value_size = (unsigned int)parse_u64(optarg,
					"--value-size", 1, SCALIO_VALUE_MAX);
			break;
		case 'L':
			opt_load = 1;
			break;
		case 'B':
			opt_load_batch = (unsigned int)parse_u64(optarg,
					"--load-batch", 1, SCALIO_MULTI_MAX);
			break;
		case 'R':
			opt_run = 1;
			break;
		case 'j':
			opt_json = optarg;
			break;
		case 'H':
			opt_history = optarg;
			break;
		case 'S':
			opt_seed = parse_u64(optarg, "--seed", 0, UINT64_MAX);
			break;
		case 'q':
			opt_quiet = 1;
			break;
		case 'd':
			opt_depth = (unsigned int)parse_u64(optarg, "--depth", 1,
						SCALIO_URING_MAX_INFLIGHT);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "scalio-ycsb: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!opt_load && !opt_run) {
		usage(stderr);
		return 2;
	}
	if (opt_depth > 1 && opt_history)
		die(2, "--history records one operation at a time per client: "
		    "not with --depth > 1");
	if ((uint64_t)opt_depth * opt_threads > SCALIO_URING_MAX_INFLIGHT)
		die(2, "--depth %u x --threads %u exceeds the %u operations a "
		    "store accepts in flight", opt_depth, opt_threads,
		    SCALIO_URING_MAX_INFLIGHT);
	/* Keys: "user" + (key-size - 4) digits must hold every key number. */
	max_keynum = opt_records + (wl->insert > 0 ? opt_ops : 0);
	digits = opt_key_size - 4;
	if (digits < 20) {
		uint64_t lim = 1;

		for (i = 0; i < digits; i++)
			lim *= 10;
		if (max_keynum > lim)
			die(2, "--key-size %u holds %" PRIu64 " keys, need %"
			    PRIu64, opt_key_size, lim, max_keynum);
	}
	if (opt_value_size < opt_key_size + 22)
		die(2, "--value-size must be at least key size + 22 (%u) to "
		    "embed key, run id and version", opt_key_size + 22);

	nr_keys = max_keynum;
	versions = calloc(nr_keys, sizeof(*versions));
	if (wl->insert > 0 && opt_run)
		inserted = calloc(opt_ops ? opt_ops : 1, 1);
	if (!versions || (wl->insert > 0 && opt_run && !inserted))
		die(3, "out of memory for %" PRIu64 " keys", nr_keys);
	atomic_store(&insert_next, opt_records);
	atomic_store(&insert_acked, opt_records);
	{
		struct ycsb_rng r;

		ycsb_rng_seed(&r, opt_seed ^ now_ns() ^ ((uint64_t)getpid() << 32));
		run_id = (uint32_t)ycsb_rng_next(&r);
	}

	snprintf(path, sizeof(path), SCALIO_STORE_DEV_FMT, opt_store);
	store_fd = open(path, O_RDWR | O_CLOEXEC);
	if (store_fd < 0)
		die(3, "%s: %s%s", path, strerror(errno), errno == ENOENT ?
		    " (is the store attached? scalioctl attach)" : "");
	if (opt_history) {
		int r = lc_history_open(opt_history);

		if (r)
			die(3, "%s: %s", opt_history, strerror(-r));
	}

	if (opt_load) {
		load_ph.total = opt_records;
		run_phase(&load_ph, 1);
		loaded_here = 1;
		print_phase(&load_ph);
		fflush(stdout);
		if (load_ph.errors)
			rc = 1;
	}
	if (opt_run) {
		run_ph.total = opt_ops;
		run_phase(&run_ph, 0);
		print_phase(&run_ph);
		if (run_ph.errors)
			rc = 1;
	}
	if (opt_json)
		write_json(opt_load ? &load_ph : NULL, opt_run ? &run_ph : NULL);
	if (opt_history) {
		int r = lc_history_close();

		if (r) {
			fprintf(stderr, "scalio-ycsb: history %s: %s\n",
				opt_history, strerror(-r));
			rc = rc ? rc : 3;
		}
	}
	close(store_fd);
	if (rc == 1)
		fprintf(stderr, "scalio-ycsb: FAILED: %" PRIu64 " errors\n",
			load_ph.errors + run_ph.errors);
	return rc;
}
