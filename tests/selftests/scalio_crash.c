// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_crash: durability checker for crash, recovery and cleaner tests.
 *
 *   scalio_crash write  -l DIR [-t THREADS] [-k KEYS] [-n OPS] [-d SECS]
 *                       [-V VMIN] [-v VMAX] [-p PREFIX] [-d STORE]
 *   scalio_crash verify -l DIR [-N]
 *
 * write: THREADS writers PUT to their own keys "PREFIX.<t>.<k>" round
 * robin, each key with increasing versions 1, 2, 3, ...  The value of
 * (key, version) is a pure function of both (length VMIN..VMAX, a header
 * naming the key and version, then pseudo-random bytes), so any value read
 * back tells exactly which version it is and whether it is intact.  Every
 * writer keeps a log DIR/w<t>.log, one line per event, each fsync'ed before
 * the writer goes on:
 *     A k v    PUT of version v of key k is about to be issued (attempted)
 *     K k v    ... and was acknowledged (the ioctl returned 0)
 *     E k v e  ... and failed with errno e; the writer stops
 *     R k v    verify read version v of key k (0: absent)
 * A writer stops at its first failed PUT (the target went away), after OPS
 * PUTs, or after SECS seconds.  Run again on the same DIR, it resumes above
 * every version in its log, so versions keep increasing across crashes.
 *
 * verify: for each key, replaying its log gives the window [lo, hi] its
 * stored version must fall in: lo is the last acknowledged version (a PUT
 * that returned 0 must survive), hi the last attempted one (a PUT in flight
 * at the crash may or may not have landed; nothing newer can exist).  An
 * R line pins both to what was read then: once a recovered store showed a
 * version, it must keep showing exactly that until the next write.  Version
 * 0 is "absent" (ENOENT).  Every key is read with SCALIO_IOC_GET; the value
 * must be byte-identical to its version's; verify then appends R lines
 * (unless -N).  Exit 0 when every key holds, 1 otherwise.
 *
 * Logs live on a directory that survives the target's crash (/share in the
 * VM test bed).  KTAP-style output; exit 0 pass, 1 fail, 2 usage, 4 skip
 * (store device absent).
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../uapi/scalio.h"
#include "sel_util.h"

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4
#define MAX_REPORTS	20
#define VAL_HDR		12	/* "SCR1", version (le32), key hash (le32) */
#define PREFIX_MAX	12

struct params {
	const char *store;
	const char *dir;
	const char *prefix;
	unsigned int threads;
	unsigned int keys;		/* per thread */
	unsigned long ops;		/* per thread, 0: unlimited */
	unsigned long secs;		/* 0: unlimited */
	unsigned int vmin, vmax;
	bool no_record;
	bool no_sync;
};

static struct params P = {
	.store = "kv0", .prefix = "cr", .threads = 4, .keys = 16,
	.vmin = VAL_HDR, .vmax = 1024,
};

static char dev_path[64];
static atomic_bool stop;
static atomic_ulong acked_total;

struct key_state {
	char name[SCALIO_KEY_MAX + 1];
	uint32_t klen;
	uint32_t next;		/* write: next version to issue */
	uint32_t lo, hi;	/* verify: allowed window */
};

struct writer {
	pthread_t tid;
	unsigned int idx;
	int fd, log;
	struct key_state *keys;
	unsigned long puts, acked;
	int err;		/* first PUT error (negative errno) */
	bool joined;
	unsigned char *buf;
};

static uint32_t key_hash(const char *key, uint32_t klen)
{
	uint32_t h = 2166136261u, i;

	for (i = 0; i < klen; i++)
		h = (h ^ (unsigned char)key[i]) * 16777619u;
	return h;
}

/* The value of (key, version); returns its length (VMIN..VMAX). */
static uint32_t make_value(const struct key_state *k, uint32_t version,
			   unsigned char *out)
{
	uint32_t kh = key_hash(k->name, k->klen);
	uint64_t h = sel_mix64(((uint64_t)version << 32) | kh);
	uint32_t len = P.vmin + (uint32_t)(h % (P.vmax - P.vmin + 1)), i;

	for (i = VAL_HDR; i < len; i++) {
		if ((i - VAL_HDR) % 8 == 0)
			h = sel_mix64(h + i);
		out[i] = (unsigned char)(h >> (8 * ((i - VAL_HDR) % 8)));
	}
	memcpy(out, "SCR1", 4);
	out[4] = (unsigned char)version;
	out[5] = (unsigned char)(version >> 8);
	out[6] = (unsigned char)(version >> 16);
	out[7] = (unsigned char)(version >> 24);
	out[8] = (unsigned char)kh;
	out[9] = (unsigned char)(kh >> 8);
	out[10] = (unsigned char)(kh >> 16);
	out[11] = (unsigned char)(kh >> 24);
	return len;
}

static void key_init(struct key_state *k, unsigned int t, unsigned int i)
{
	k->klen = (uint32_t)snprintf(k->name, sizeof(k->name), "%s.%u.%u",
				     P.prefix, t, i);
}

/* Append one line to a log and make it durable before going on. */
static int log_line(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int log_line(int fd, const char *fmt, ...)
{
	char line[96];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (write(fd, line, (size_t)n) != n || (!P.no_sync && fsync(fd))) {
		fprintf(stderr, "scalio_crash: log write: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Replay DIR/w<t>.log into @keys: the next version to write (above every
 * version seen) and the [lo, hi] window verify checks.  A line cut short
 * (no newline: the writer was killed in the middle) is ignored; the event
 * it would have recorded did not happen yet (A is logged before its PUT,
 * K after its acknowledgement).
 */
static int replay_log(unsigned int t, struct key_state *keys)
{
	char path[4096], line[128];
	unsigned int i;
	FILE *f;

	for (i = 0; i < P.keys; i++) {
		key_init(&keys[i], t, i);
		keys[i].next = 1;
		keys[i].lo = keys[i].hi = 0;
	}
	snprintf(path, sizeof(path), "%s/w%u.log", P.dir, t);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned int k, v;
		char ev;

		if (!strchr(line, '\n'))
			break;
		if (sscanf(line, "%c %u %u", &ev, &k, &v) != 3 || k >= P.keys) {
			fprintf(stderr, "%s: bad line '%s'\n", path, line);
			fclose(f);
			errno = EINVAL;
			return -1;
		}
		switch (ev) {
		case 'A':
			keys[k].hi = v;
			break;
		case 'K':
			keys[k].lo = v;
			break;
		case 'R':
			keys[k].lo = keys[k].hi = v;
			break;
		case 'E':
			/* Failed: it may or may not have landed (A set hi). */
			break;
		default:
			fprintf(stderr, "%s: bad event '%c'\n", path, ev);
			fclose(f);
			errno = EINVAL;
			return -1;
		}
		if (v >= keys[k].next)
			keys[k].next = v + 1;
	}
	fclose(f);
	return 0;
}

/* DIR/meta fixes the key space; a later run must not change it. */
static int meta_sync(bool create)
{
	char path[4096], prefix[PREFIX_MAX + 2];
	unsigned int threads, keys, vmin, vmax;
	FILE *f;

	snprintf(path, sizeof(path), "%s/meta", P.dir);
	f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT || !create) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return -1;
		}
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return -1;
		}
		fprintf(f, "%s %u %u %u %u\n", P.prefix, P.threads, P.keys,
			P.vmin, P.vmax);
		if (fflush(f) || fsync(fileno(f))) {
			fclose(f);
			return -1;
		}
		fclose(f);
		return 0;
	}
	if (fscanf(f, "%13s %u %u %u %u", prefix, &threads, &keys, &vmin,
		   &vmax) != 5) {
		fprintf(stderr, "%s: unreadable\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (create && (strcmp(prefix, P.prefix) || threads != P.threads ||
		       keys != P.keys || vmin != P.vmin || vmax != P.vmax))
		fprintf(stderr, "# %s: continuing its key space (%s, %u threads x %u keys, values %u..%u)\n",
			path, prefix, threads, keys, vmin, vmax);
	P.prefix = strdup(prefix);
	P.threads = threads;
	P.keys = keys;
	P.vmin = vmin;
	P.vmax = vmax;
	return P.prefix ? 0 : -1;
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	double deadline = P.secs ? sel_now_s() + (double)P.secs : 0;
	unsigned int i = 0;

	while (!atomic_load(&stop)) {
		struct key_state *k = &w->keys[i];
		struct scalio_kv kv = {
			.key = (uintptr_t)k->name, .klen = k->klen,
			.value = (uintptr_t)w->buf,
		};
		uint32_t v = k->next;
		int ret;

		if ((P.ops && w->puts >= P.ops) ||
		    (deadline && sel_now_s() >= deadline))
			break;
		kv.vlen = make_value(k, v, w->buf);
		if (log_line(w->log, "A %u %u\n", i, v)) {
			w->err = -EIO;
			break;
		}
		w->puts++;
		do {
			ret = ioctl(w->fd, SCALIO_IOC_PUT, &kv) ? -errno : 0;
		} while (ret == -EINTR);
		if (ret) {
			w->err = ret;
			log_line(w->log, "E %u %u %d\n", i, v, -ret);
			break;
		}
		if (log_line(w->log, "K %u %u\n", i, v)) {
			w->err = -EIO;
			break;
		}
		k->next = v + 1;
		w->acked++;
		atomic_fetch_add(&acked_total, 1);
		i = (i + 1) % P.keys;
	}
	return NULL;
}

static int cmd_write(void)
{
	unsigned long puts = 0, acked = 0, last = 0;
	struct writer *ws;
	unsigned int t;
	double t0, t1, tp;
	int failed = 0;

	if (mkdir(P.dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: %s\n", P.dir, strerror(errno));
		return KSFT_FAIL;
	}
	if (meta_sync(true))
		return KSFT_FAIL;
	ws = calloc(P.threads, sizeof(*ws));
	if (!ws)
		return KSFT_FAIL;
	for (t = 0; t < P.threads; t++) {
		struct writer *w = &ws[t];
		char path[4096];

		w->idx = t;
		w->keys = calloc(P.keys, sizeof(*w->keys));
		w->buf = malloc(SCALIO_VALUE_MAX);
		if (!w->keys || !w->buf)
			return KSFT_FAIL;
		if (replay_log(t, w->keys)) {
			fprintf(stderr, "replay of writer %u's log: %s\n", t,
				strerror(errno));
			return KSFT_FAIL;
		}
		snprintf(path, sizeof(path), "%s/w%u.log", P.dir, t);
		w->log = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
		w->fd = open(dev_path, O_RDWR);
		if (w->log < 0 || w->fd < 0) {
			fprintf(stderr, "open %s: %s\n",
				w->log < 0 ? path : dev_path, strerror(errno));
			return KSFT_FAIL;
		}
	}
	printf("# write: %u threads x %u keys '%s.<t>.<k>', values %u..%u bytes, %lu ops/thread, %lu s\n",
	       P.threads, P.keys, P.prefix, P.vmin, P.vmax, P.ops, P.secs);
	t0 = tp = sel_now_s();
	for (t = 0; t < P.threads; t++) {
		if (pthread_create(&ws[t].tid, NULL, writer_fn, &ws[t])) {
			fprintf(stderr, "pthread_create failed\n");
			atomic_store(&stop, true);
			P.threads = t;
			failed = 1;
			break;
		}
	}
	/* Progress every 10 s: a crash test reads how far the writers got. */
	for (;;) {
		bool running = false;

		for (t = 0; t < P.threads; t++) {
			if (ws[t].joined)
				continue;
			if (pthread_tryjoin_np(ws[t].tid, NULL) == EBUSY)
				running = true;
			else
				ws[t].joined = true;
		}
		if (!running)
			break;
		if (sel_now_s() - tp >= 10) {
			unsigned long a = atomic_load(&acked_total);

			tp = sel_now_s();
			printf("# progress: %lu acknowledged PUTs, %.0f/s\n", a,
			       (double)(a - last) / 10);
			last = a;
		}
		usleep(100000);
	}
	t1 = sel_now_s();
	for (t = 0; t < P.threads; t++) {
		struct writer *w = &ws[t];

		puts += w->puts;
		acked += w->acked;
		if (w->err) {
			printf("# writer %u stopped: PUT failed: %s\n", t,
			       strerror(-w->err));
			failed = 1;
		}
		close(w->fd);
		close(w->log);
	}
	printf("# write: %lu PUTs issued, %lu acknowledged in %.1f s (%.0f/s)\n",
	       puts, acked, t1 - t0, acked / (t1 - t0 > 0 ? t1 - t0 : 1));
	return failed ? KSFT_FAIL : KSFT_PASS;
}

static int cmd_verify(void)
{
	unsigned long keys = 0, present = 0, bad = 0, in_flight = 0;
	unsigned char *buf, *expect;
	struct key_state *ks;
	int fd, ret = KSFT_PASS;
	unsigned int t, i;

	if (meta_sync(false))
		return KSFT_FAIL;
	ks = calloc(P.keys, sizeof(*ks));
	buf = malloc(SCALIO_VALUE_MAX);
	expect = malloc(SCALIO_VALUE_MAX);
	fd = open(dev_path, O_RDWR);
	if (!ks || !buf || !expect || fd < 0) {
		fprintf(stderr, "verify: %s\n", strerror(errno));
		return KSFT_FAIL;
	}
	for (t = 0; t < P.threads; t++) {
		char path[4096];
		int log = -1;

		if (replay_log(t, ks)) {
			fprintf(stderr, "replay of writer %u's log: %s\n", t,
				strerror(errno));
			return KSFT_FAIL;
		}
		snprintf(path, sizeof(path), "%s/w%u.log", P.dir, t);
		if (!P.no_record) {
			log = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
			if (log < 0) {
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
				return KSFT_FAIL;
			}
		}
		for (i = 0; i < P.keys; i++) {
			struct key_state *k = &ks[i];
			struct scalio_kv kv = {
				.key = (uintptr_t)k->name, .klen = k->klen,
				.value = (uintptr_t)buf,
				.vlen = SCALIO_VALUE_MAX,
			};
			uint32_t v = 0, elen;
			int r;

			keys++;
			do {
				r = ioctl(fd, SCALIO_IOC_GET, &kv) ? -errno : 0;
			} while (r == -EINTR);
			if (r && r != -ENOENT) {
				if (bad++ < MAX_REPORTS)
					printf("# key '%s': GET failed: %s (acked %u, attempted %u)\n",
					       k->name, strerror(-r), k->lo, k->hi);
				continue;
			}
			if (!r) {
				present++;
				if (kv.vlen >= VAL_HDR && !memcmp(buf, "SCR1", 4))
					v = buf[4] | buf[5] << 8 | buf[6] << 16 |
					    (uint32_t)buf[7] << 24;
				elen = v ? make_value(k, v, expect) : 0;
				if (!v || kv.vlen != elen ||
				    memcmp(buf, expect, elen)) {
					if (bad++ < MAX_REPORTS)
						printf("# key '%s': %u bytes that are no version's value (header version %u; acked %u, attempted %u)\n",
						       k->name, kv.vlen, v, k->lo,
						       k->hi);
					continue;
				}
			}
			if (v < k->lo || v > k->hi) {
				if (bad++ < MAX_REPORTS)
					printf("# key '%s': read %s%u, expected %u..%u (%s)\n",
					       k->name, v ? "version " : "absent = ",
					       v, k->lo, k->hi,
					       v < k->lo ? "an acknowledged PUT was lost"
							 : "a version that was never written");
				continue;
			}
			if (v > k->lo)
				in_flight++;
			if (log >= 0 && log_line(log, "R %u %u\n", i, v))
				return KSFT_FAIL;
		}
		if (log >= 0)
			close(log);
	}
	close(fd);
	printf("# verify %s: %lu keys (%u writers x %u), %lu present, %lu holding an in-flight PUT, %lu bad\n",
	       P.dir, keys, P.threads, P.keys, present, in_flight, bad);
	if (bad)
		ret = KSFT_FAIL;
	printf("%s 1 scalio_crash verify %s\n", ret ? "not ok" : "ok", P.dir);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: scalio_crash write  -l DIR [-t THREADS] [-k KEYS] [-n OPS] [-T SECS]\n"
		"                           [-V VMIN] [-v VMAX] [-p PREFIX] [-s STORE]\n"
		"                           [-F]\n"
		"       scalio_crash verify -l DIR [-N] [-s STORE]\n"
		"  -l DIR     log directory (must survive the target's crash)\n"
		"  -t N       writer threads (default 4)\n"
		"  -k N       keys per writer (default 16)\n"
		"  -n N       PUTs per writer (default: no limit)\n"
		"  -T SECS    stop after SECS seconds (default: no limit)\n"
		"  -V/-v N    value sizes VMIN..VMAX (default 12..1024)\n"
		"  -p PREFIX  key prefix, at most %d bytes (default cr)\n"
		"  -s STORE   store (default kv0, or $SCALIO_STORE)\n"
		"  -N         verify only: do not record what was read\n"
		"  -F         no fsync of the log (only when the target will not\n"
		"             crash: the log must then only survive this process)\n"
		"A writer stops at its first failed PUT.  DIR/meta keeps the key\n"
		"space: a later write or verify on DIR uses the first one's.\n",
		PREFIX_MAX);
}

int main(int argc, char **argv)
{
	const char *env, *cmd;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	env = getenv("SCALIO_STORE");
	if (env && *env)
		P.store = env;
	optind = 2;
	while ((c = getopt(argc, argv, "l:t:k:n:T:V:v:p:s:NFh")) != -1) {
		switch (c) {
		case 'l': P.dir = optarg; break;
		case 't': P.threads = (unsigned int)sel_num_arg("scalio_crash", optarg, 1, 64); break;
		case 'k': P.keys = (unsigned int)sel_num_arg("scalio_crash", optarg, 1, 100000); break;
		case 'n': P.ops = sel_num_arg("scalio_crash", optarg, 0, 1UL << 40); break;
		case 'T': P.secs = sel_num_arg("scalio_crash", optarg, 0, 1UL << 30); break;
		case 'V': P.vmin = (unsigned int)sel_num_arg("scalio_crash", optarg, VAL_HDR, SCALIO_VALUE_MAX); break;
		case 'v': P.vmax = (unsigned int)sel_num_arg("scalio_crash", optarg, VAL_HDR, SCALIO_VALUE_MAX); break;
		case 'p': P.prefix = optarg; break;
		case 's': P.store = optarg; break;
		case 'N': P.no_record = true; break;
		case 'F': P.no_sync = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || !P.dir || P.vmin > P.vmax || !*P.prefix ||
	    strlen(P.prefix) > PREFIX_MAX || strchr(P.prefix, ' ') ||
	    (strcmp(cmd, "write") && strcmp(cmd, "verify"))) {
		usage(stderr);
		return 2;
	}
	snprintf(dev_path, sizeof(dev_path), SCALIO_STORE_DEV_FMT, P.store);
	if (access(dev_path, F_OK)) {
		printf("ok 1 scalio_crash # SKIP %s absent: store not attached\n",
		       dev_path);
		return KSFT_SKIP;
	}
	return strcmp(cmd, "write") ? cmd_verify() : cmd_write();
}
