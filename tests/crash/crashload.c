// SPDX-License-Identifier: GPL-2.0
/*
 * crashload: the workload and the checker of the crash-point test
 * (tests/vm/suite/21-crashpoints.sh).
 *
 *   crashload run   -l DIR -H HOST -S STOPFILE [-t THREADS] [-k KEYS]
 *                   [-d DEL%] [-V VMIN] [-v VMAX] [-s STORE]
 *   crashload check -l DIR -m MARKS [-a ACKMARK] [-b BOUNDMARK] [-s STORE]
 *
 * run: THREADS writers, each on its own keys "h<HOST>.<t>.<k>" round
 * robin; every operation on a key has the next version 1, 2, 3, ... and
 * is a DELETE with probability DEL% (default 25), else a PUT of that
 * version's value, a pure function of key and version (length VMIN..VMAX,
 * a header naming both, then pseudo-random bytes).  Each writer appends to
 * DIR/h<HOST>.<t>.log, one write(2) per line:
 *     A key v P|D     about to issue the PUT / DELETE of version v
 *     K key v P|D     ... acknowledged (the ioctl returned 0; a DELETE of
 *                     an absent key, ENOENT, too: the key is absent after it)
 *     E key v P|D e   ... failed with errno e; the writer stops
 * Writers stop when STOPFILE exists (looked at every 32 operations) or at
 * their first error (exit 1).
 *
 * The test takes marks while this runs: it records the size of every log
 * file, then inserts a dm-log-writes mark, and appends "NAME FILE:SIZE..."
 * to MARKS.  A K line within a mark's sizes was written after its
 * operation was acknowledged, so that operation's batch reached the log
 * before the mark; an A line not within a mark's sizes was written after
 * the previous mark was inserted, so its write is logged after that one.
 *
 * check: for a state replayed to a point between two marks, ACKMARK is the
 * last mark before it (none: nothing was acknowledged) and BOUNDMARK the
 * mark after the first mark after it (none: every line counts).  For every
 * key in any log, lo is its last version acknowledged within ACKMARK and
 * hi its last version attempted within BOUNDMARK; the store must hold a
 * version u in [lo, hi]: the value of u when u is a PUT (byte for byte),
 * absent when u is a DELETE or 0.  So an acknowledged PUT reads back with
 * its value or a later one, an acknowledged DELETE is never undone, and no
 * key returns a value never written.  Prints one line per bad key (at most
 * 20), then "# check: ..."; exit 0 all keys good, 1 a key failed, 2 usage,
 * 3 a GET failed with an error other than ENOENT.
 */
#include <dirent.h>
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
#include <unistd.h>

#include "../../uapi/scalio.h"
#include "sel_util.h"

#define VAL_HDR		12	/* "CLD1", version, key hash (le32 each) */
#define MAX_FILES	64
#define MAX_KEYS	8192
#define MAX_VERS	65536
#define MAX_REPORTS	20

struct params {
	const char *dir, *store, *stop, *marks, *ackmark, *boundmark;
	unsigned int host, threads, keys, del_pct, vmin, vmax;
};

static struct params P = {
	.store = "kv0", .threads = 4, .keys = 16, .del_pct = 25,
	.vmin = VAL_HDR, .vmax = 1500,
};

static char dev_path[64];
static atomic_int stop_now;

static uint32_t key_hash(const char *key)
{
	uint32_t h = 2166136261u;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619u;
	return h;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get_le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The value of version @v of @key into @buf; returns its length. */
static uint32_t make_value(const char *key, uint32_t v, unsigned char *buf)
{
	uint32_t kh = key_hash(key);
	uint64_t s = sel_mix64(((uint64_t)kh << 32) | v);
	uint32_t len = P.vmin + (uint32_t)(s % (P.vmax - P.vmin + 1)), i;

	memcpy(buf, "CLD1", 4);
	put_le32(buf + 4, v);
	put_le32(buf + 8, kh);
	for (i = VAL_HDR; i < len; i++) {
		if (!(i & 7))
			s = sel_mix64(s + i);
		buf[i] = (unsigned char)(s >> ((i & 7) * 8));
	}
	return len;
}

/* Append one line to @fd with a single write(2). */
static int log_line(int fd, const char *fmt, const char *key, uint32_t v,
		    char op, int e)
{
	char line[SCALIO_KEY_MAX + 64];
	int n = snprintf(line, sizeof(line), fmt, key, v, op, e);

	return write(fd, line, (size_t)n) == n ? 0 : -1;
}

struct writer {
	pthread_t tid;
	unsigned int idx;
	int err;
	unsigned long ops, dels;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	unsigned char *buf = malloc(SCALIO_VALUE_MAX);
	uint32_t *ver = calloc(P.keys, sizeof(*ver));
	char path[4096], key[SCALIO_KEY_MAX + 1];
	uint64_t rnd = sel_mix64(((uint64_t)P.host << 32) | w->idx) | 1;
	int fd, log;
	unsigned int k = 0;

	snprintf(path, sizeof(path), "%s/h%u.%u.log", P.dir, P.host, w->idx);
	log = open(path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC, 0644);
	fd = open(dev_path, O_RDWR);
	if (!buf || !ver || log < 0 || fd < 0) {
		fprintf(stderr, "crashload: writer %u: setup: %s\n", w->idx,
			strerror(errno));
		w->err = EIO;
		return NULL;
	}
	while (!stop_now) {
		struct scalio_kv kv = { 0 };
		uint32_t v = ++ver[k];
		bool del;
		char op;
		int ret;

		rnd = sel_mix64(rnd);
		del = rnd % 100 < P.del_pct;
		op = del ? 'D' : 'P';
		snprintf(key, sizeof(key), "h%u.%u.%u", P.host, w->idx, k);
		kv.key = (uintptr_t)key;
		kv.klen = (uint32_t)strlen(key);
		if (!del) {
			kv.value = (uintptr_t)buf;
			kv.vlen = make_value(key, v, buf);
		}
		if (log_line(log, "A %s %u %c\n", key, v, op, 0))
			break;
		ret = ioctl(fd, del ? SCALIO_IOC_DELETE : SCALIO_IOC_PUT, &kv) ?
			errno : 0;
		if (del && ret == ENOENT)
			ret = 0;
		if (ret) {
			log_line(log, "E %s %u %c %d\n", key, v, op, ret);
			fprintf(stderr, "crashload: %s v%u %s: %s\n", key, v,
				del ? "DELETE" : "PUT", strerror(ret));
			w->err = ret;
			break;
		}
		if (log_line(log, "K %s %u %c\n", key, v, op, 0))
			break;
		w->ops++;
		w->dels += del;
		k = (k + 1) % P.keys;
		if (!(w->ops % 32) && P.stop && !access(P.stop, F_OK))
			stop_now = 1;
	}
	if (!w->err && !stop_now) {
		fprintf(stderr, "crashload: writer %u: log write: %s\n",
			w->idx, strerror(errno));
		w->err = EIO;
	}
	stop_now = 1;
	close(fd);
	close(log);
	free(buf);
	free(ver);
	return NULL;
}

static int cmd_run(void)
{
	struct writer *w = calloc(P.threads, sizeof(*w));
	unsigned long ops = 0, dels = 0;
	unsigned int i;
	int rc = 0;

	if (!w)
		return 1;
	for (i = 0; i < P.threads; i++) {
		w[i].idx = i;
		if (pthread_create(&w[i].tid, NULL, writer_main, &w[i])) {
			stop_now = 1;
			P.threads = i;
			rc = 1;
			break;
		}
	}
	for (i = 0; i < P.threads; i++) {
		pthread_join(w[i].tid, NULL);
		ops += w[i].ops;
		dels += w[i].dels;
		if (w[i].err)
			rc = 1;
	}
	printf("# run: host %u: %lu operations acknowledged (%lu DELETEs)%s\n",
	       P.host, ops, dels, rc ? ", stopped by an error" : "");
	free(w);
	return rc;
}

/* What check knows of one key. */
struct key {
	char name[SCALIO_KEY_MAX + 1];
	uint32_t lo, hi;
	char *op;		/* op[v]: 'P', 'D' or 0 (not attempted) */
	uint32_t nop;
};

static struct key *keys;
static unsigned int nkeys;

static struct key *key_get(const char *name)
{
	unsigned int i;

	for (i = 0; i < nkeys; i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	if (nkeys == MAX_KEYS) {
		fprintf(stderr, "crashload: more than %d keys\n", MAX_KEYS);
		exit(2);
	}
	snprintf(keys[nkeys].name, sizeof(keys[nkeys].name), "%s", name);
	return &keys[nkeys++];
}

/*
 * The size recorded for log @file in mark @mark of the marks file, or
 * -1 when @mark is NULL (no bound); exit 2 when the mark is unknown.  A
 * file the mark does not name did not exist then: size 0.
 */
static long mark_size(const char *mark, const char *file)
{
	char line[8192], *tok, *save;
	long size = 0;
	bool found = false;
	FILE *f;

	if (!mark)
		return -1;
	f = fopen(P.marks, "r");
	if (!f) {
		perror(P.marks);
		exit(2);
	}
	while (!found && fgets(line, sizeof(line), f)) {
		tok = strtok_r(line, " \n", &save);
		if (!tok || strcmp(tok, mark))
			continue;
		found = true;
		while ((tok = strtok_r(NULL, " \n", &save))) {
			char *colon = strrchr(tok, ':');

			if (colon && (size_t)(colon - tok) == strlen(file) &&
			    !strncmp(tok, file, strlen(file)))
				size = atol(colon + 1);
		}
	}
	fclose(f);
	if (!found) {
		fprintf(stderr, "crashload: mark '%s' not in %s\n", mark,
			P.marks);
		exit(2);
	}
	return size;
}

/* Read one writer log; @ack/@bound: byte limits (-1: whole file). */
static void read_log(const char *file, long ack, long bound)
{
	char path[4096], line[SCALIO_KEY_MAX + 64], name[SCALIO_KEY_MAX + 1];
	char kind, op;
	long off = 0;
	uint32_t v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", P.dir, file);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		long end = off + (long)strlen(line);
		struct key *k;

		/* Only whole lines within a limit count. */
		if (line[strlen(line) - 1] != '\n')
			break;
		if (sscanf(line, "%c %32s %u %c", &kind, name, &v, &op) != 4 ||
		    (op != 'P' && op != 'D') || v >= MAX_VERS) {
			fprintf(stderr, "crashload: %s: bad line '%s'\n", path,
				line);
			exit(2);
		}
		k = key_get(name);
		if (kind == 'A' && (bound < 0 || end <= bound)) {
			if (v >= k->nop) {
				uint32_t n = v + 64;

				k->op = realloc(k->op, n);
				if (!k->op)
					exit(2);
				memset(k->op + k->nop, 0, n - k->nop);
				k->nop = n;
			}
			k->op[v] = op;
			if (v > k->hi)
				k->hi = v;
		}
		if (kind == 'K' && ack >= 0 && end <= ack && v > k->lo)
			k->lo = v;
		off = end;
	}
	fclose(f);
}

static int cmd_check(void)
{
	unsigned char *got = malloc(SCALIO_VALUE_MAX),
		      *want = malloc(SCALIO_VALUE_MAX);
	unsigned int i, bad = 0, present = 0, files = 0;
	struct dirent *de;
	int fd, rc = 0;
	DIR *d;

	keys = calloc(MAX_KEYS, sizeof(*keys));
	if (!got || !want || !keys)
		return 2;
	d = opendir(P.dir);
	if (!d) {
		perror(P.dir);
		return 2;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (de->d_name[0] != 'h' || n < 5 ||
		    strcmp(de->d_name + n - 4, ".log"))
			continue;
		read_log(de->d_name, P.ackmark ? mark_size(P.ackmark, de->d_name) : 0,
			 mark_size(P.boundmark, de->d_name));
		files++;
	}
	closedir(d);
	fd = open(dev_path, O_RDWR);
	if (fd < 0) {
		perror(dev_path);
		return 2;
	}
	for (i = 0; i < nkeys; i++) {
		struct key *k = &keys[i];
		struct scalio_kv kv = {
			.key = (uintptr_t)k->name, .klen = strlen(k->name),
			.value = (uintptr_t)got, .vlen = SCALIO_VALUE_MAX,
		};
		uint32_t u, v, len;
		const char *why = NULL;
		int ret;

		ret = ioctl(fd, SCALIO_IOC_GET, &kv) ? errno : 0;
		if (ret && ret != ENOENT) {
			printf("# %s: GET failed: %s\n", k->name, strerror(ret));
			rc = 3;
			continue;
		}
		if (ret == ENOENT) {
			/* Absent: version lo is a DELETE or 0, or a later one is. */
			for (u = k->lo; u <= k->hi; u++)
				if (!u || (u < k->nop && k->op[u] == 'D'))
					break;
			if (u > k->hi)
				why = "absent, but no DELETE in the window";
			v = 0;
		} else {
			present++;
			v = kv.vlen >= VAL_HDR && !memcmp(got, "CLD1", 4) ?
				get_le32(got + 4) : UINT32_MAX;
			if (v == UINT32_MAX)
				why = "a value this workload never writes";
			else if (v < k->lo)
				why = "an older version than one acknowledged (lost acknowledged write)";
			else if (v > k->hi)
				why = "a version not attempted before this point";
			else if (v >= k->nop || k->op[v] != 'P')
				why = "the value of a version that was a DELETE";
			else {
				len = make_value(k->name, v, want);
				if (len != kv.vlen || memcmp(got, want, len))
					why = "corrupt value";
			}
		}
		if (why) {
			if (++bad <= MAX_REPORTS)
				printf("# BAD %s: read %s%u (window %u..%u): %s\n",
				       k->name, ret ? "absent, version " : "version ",
				       v, k->lo, k->hi, why);
			if (!rc)
				rc = 1;
		}
	}
	close(fd);
	printf("# check: %u keys from %u logs (acknowledged up to %s, attempted up to %s): %u present, %u bad\n",
	       nkeys, files, P.ackmark ? P.ackmark : "none",
	       P.boundmark ? P.boundmark : "the end", present, bad);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: crashload run -l DIR -H HOST -S STOPFILE [-t THREADS] [-k KEYS]\n"
		"                     [-d DEL%%] [-V VMIN] [-v VMAX] [-s STORE]\n"
		"       crashload check -l DIR -m MARKS [-a ACKMARK] [-b BOUNDMARK] [-s STORE]\n");
}

static unsigned int num(const char *s, unsigned int min, unsigned int max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || !*s || v < min || v > max) {
		fprintf(stderr, "crashload: bad number '%s' (%u..%u)\n", s,
			min, max);
		exit(2);
	}
	return (unsigned int)v;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "l:H:S:t:k:d:V:v:s:m:a:b:")) != -1) {
		switch (c) {
		case 'l':
			P.dir = optarg;
			break;
		case 'H':
			P.host = num(optarg, 0, 255);
			break;
		case 'S':
			P.stop = optarg;
			break;
		case 't':
			P.threads = num(optarg, 1, 64);
			break;
		case 'k':
			P.keys = num(optarg, 1, 1000);
			break;
		case 'd':
			P.del_pct = num(optarg, 0, 100);
			break;
		case 'V':
			P.vmin = num(optarg, VAL_HDR, SCALIO_VALUE_MAX);
			break;
		case 'v':
			P.vmax = num(optarg, VAL_HDR, SCALIO_VALUE_MAX);
			break;
		case 's':
			P.store = optarg;
			break;
		case 'm':
			P.marks = optarg;
			break;
		case 'a':
			P.ackmark = *optarg ? optarg : NULL;
			break;
		case 'b':
			P.boundmark = *optarg ? optarg : NULL;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!P.dir || P.vmin > P.vmax || optind != argc) {
		usage(stderr);
		return 2;
	}
	snprintf(dev_path, sizeof(dev_path), "/dev/scalio/%s", P.store);
	if (!strcmp(cmd, "run") && P.stop)
		return cmd_run();
	if (!strcmp(cmd, "check") && P.marks)
		return cmd_check();
	usage(stderr);
	return 2;
}
