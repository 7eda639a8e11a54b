// SPDX-License-Identifier: GPL-2.0
/*
 * scalio_export STORE DIR [N]: SCALIO_IOC_SCAN and scalioctl export /
 * import against a real store (tests/vm/suite/13-fio.sh), files in DIR.
 *
 *   1. hostile SCAN arguments fail with their errno, never an oops: a
 *      cursor at or past the store's bucket count, no buffer, a buffer too
 *      small, unaligned or too large, flags and reserved bits, max_buckets
 *      over the limit, a kernel address, a NULL argument, a mapping
 *      shorter than buf_len (EFAULT once a record crosses into it);
 *   2. N pairs (default 2000) of 1- to 32-byte keys (200 of 1 byte) and
 *      values of 0..4096 bytes PUT with SCALIO_IOC_MULTI; every fifth
 *      deleted, every fifth (another) overwritten;
 *   3. a SCAN of the first quarter of the store with the smallest
 *      buffer: every bucket once, whole, in seg table order (the buckets
 *      of block 0, then of block 1...); an EOVERFLOW gives the size its
 *      bucket needs;
 *   4. `scalioctl export STORE DIR/e1`, its file read here (the format of
 *      Documentation/export.rst, independently of scalioctl): each live
 *      pair once with its last value, no deleted key;
 *   5. every key of e1 deleted; `scalioctl export STORE -` (stdout) of
 *      the empty store: no pairs, and `import --check` finds it intact;
 *   6. `scalioctl import STORE DIR/e1`; a GET of every key of e1 (this
 *      test's and the store's others) returns e1's value, the deleted
 *      keys read ENOENT.
 * Exit 0 pass, 1 fail, 2 usage, 4 no store.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../uapi/scalio.h"
#include "sel_util.h"

static const char *store, *dir;
static int fd, failed;
static uint32_t nr_blocks, nr_buckets, bpb;

/* The scan position of @bucket (the kernel's scalio_bucket_pos()). */
static uint32_t bucket_pos(uint32_t bucket)
{
	return (bucket & (nr_blocks - 1)) * bpb + bucket / nr_blocks;
}

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("FAIL: " __VA_ARGS__);				\
		printf("\n");						\
		failed = 1;						\
	}								\
} while (0)

/* ---- the test's pairs */

enum { LIVE, DELETED, REWRITTEN };

static int state(uint32_t i)
{
	return i % 5 == 3 ? DELETED : i % 5 == 4 ? REWRITTEN : LIVE;
}

static uint32_t mkkey(uint32_t i, uint8_t *k)
{
	uint32_t len, j;

	if (i < 200) {		/* 1-byte keys: 0x00 .. 0xc7 */
		k[0] = (uint8_t)i;
		return 1;
	}
	len = 6 + i % 27;	/* "X<i>" padded with '-' to 6..32 bytes */
	j = (uint32_t)snprintf((char *)k, 33, "X%u", i);
	memset(k + j, '-', len - j);
	return len;
}

/* Which of the test's keys @k is, or -1. */
static long keyidx(const uint8_t *k, uint32_t klen, uint32_t n)
{
	char tmp[33];
	unsigned long i;
	char *end;

	if (klen == 1)
		return k[0] < 200 && k[0] < n ? k[0] : -1;
	if (klen < 6 || k[0] != 'X')
		return -1;
	memcpy(tmp, k + 1, klen - 1);
	tmp[klen - 1] = '\0';
	i = strtoul(tmp, &end, 10);
	if (end == tmp || i < 200 || i >= n)
		return -1;
	return 6 + i % 27 == klen ? (long)i : -1;
}

static uint32_t mkval(uint32_t i, uint32_t ver, uint8_t *v)
{
	static const uint32_t len[] = { 0, 1, 72, 73, 500, 1000, 4095, 4096 };
	uint32_t n = len[(i + ver) % 8], j;
	uint64_t x = 0;

	for (j = 0; j < n; j++) {
		if (j % 8 == 0)
			x = sel_mix64(((uint64_t)i << 32) + ver * 1000003ULL + j);
		v[j] = (uint8_t)(x >> (8 * (j % 8)));
	}
	return n;
}

/* ---- MULTI in rounds of up to SCALIO_MULTI_MAX */

struct op {
	uint8_t		key[SCALIO_KEY_MAX];
	uint32_t	klen;
	uint8_t		*val;
	uint32_t	vlen;
	int		result;
};

static int multi(uint32_t opcode, struct op *ops, uint32_t nr)
{
	struct scalio_multi_op m[SCALIO_MULTI_MAX];
	struct scalio_multi mh;
	uint32_t i;

	memset(m, 0, sizeof(m));
	for (i = 0; i < nr; i++) {
		m[i].opcode = opcode;
		m[i].kv.key = (uintptr_t)ops[i].key;
		m[i].kv.klen = ops[i].klen;
		if (opcode != SCALIO_OP_DELETE) {
			m[i].kv.value = (uintptr_t)ops[i].val;
			m[i].kv.vlen = opcode == SCALIO_OP_GET ?
				       SCALIO_VALUE_MAX : ops[i].vlen;
		}
	}
	memset(&mh, 0, sizeof(mh));
	mh.ops = (uintptr_t)m;
	mh.nr = nr;
	if (ioctl(fd, SCALIO_IOC_MULTI, &mh))
		return -errno;
	for (i = 0; i < nr; i++) {
		ops[i].result = m[i].kv.result;
		if (opcode == SCALIO_OP_GET && !m[i].kv.result)
			ops[i].vlen = m[i].kv.vlen;
	}
	return 0;
}

static struct op *ops;

static void ops_init(void)
{
	uint32_t i;

	ops = calloc(SCALIO_MULTI_MAX, sizeof(*ops));
	for (i = 0; ops && i < SCALIO_MULTI_MAX; i++)
		ops[i].val = malloc(SCALIO_VALUE_MAX);
	if (!ops || !ops[SCALIO_MULTI_MAX - 1].val) {
		printf("FAIL: out of memory\n");
		exit(1);
	}
}

/* Apply @opcode to the test's keys i in [0, n) with want(i); values of @ver. */
static void apply(uint32_t opcode, uint32_t n, bool (*want)(uint32_t),
		  uint32_t ver, const char *what)
{
	uint32_t i = 0, nr, j, bad = 0;
	uint32_t idx[SCALIO_MULTI_MAX];

	while (i < n) {
		for (nr = 0; i < n && nr < SCALIO_MULTI_MAX; i++) {
			if (!want(i))
				continue;
			ops[nr].klen = mkkey(i, ops[nr].key);
			ops[nr].vlen = mkval(i, ver, ops[nr].val);
			idx[nr++] = i;
		}
		if (!nr)
			break;
		if (multi(opcode, ops, nr)) {
			CHECK(0, "%s: SCALIO_IOC_MULTI: %s", what, strerror(errno));
			return;
		}
		for (j = 0; j < nr; j++)
			if (ops[j].result && bad++ < 5)
				CHECK(0, "%s of pair %u: %s", what, idx[j],
				      strerror(-ops[j].result));
	}
	printf("# %s: done\n", what);
}

static bool all(uint32_t i) { (void)i; return true; }
static bool to_delete(uint32_t i) { return state(i) == DELETED; }
static bool to_rewrite(uint32_t i) { return state(i) == REWRITTEN; }

/* ---- the export file, read from its documented layout */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/*
 * Call @fn for each pair of the export file @path.
 * Return: pairs, or -1 if the file does not have the documented layout.
 */
static long for_each_pair(const char *path,
			  void (*fn)(const uint8_t *k, uint32_t klen,
				     const uint8_t *v, uint32_t vlen, void *arg),
			  void *arg)
{
	uint8_t h[128], *frame = malloc(256 * (4 + 32 + 4096));
	FILE *f = fopen(path, "rb");
	long pairs = 0, frames = 0;
	uint32_t nr, len, pos, klen, vlen, i;

	if (!f || !frame || fread(h, 1, 128, f) != 128 ||
	    memcmp(h, "SCALIOEX", 8) || le32(h + 8) != 1 ||
	    le32(h + 12) != 128 || le32(h + 20) != nr_blocks)
		goto bad;
	for (;;) {
		if (fread(h, 1, 4, f) != 4)
			goto bad;
		if (!memcmp(h, "TAIL", 4)) {
			if (fread(h + 4, 1, 36, f) != 36 ||
			    le64(h + 8) != (uint64_t)frames ||
			    le64(h + 16) != (uint64_t)pairs || fgetc(f) != EOF)
				goto bad;
			break;
		}
		if (memcmp(h, "PAIR", 4) || fread(h + 4, 1, 20, f) != 20)
			goto bad;
		nr = le32(h + 4);
		len = le32(h + 8);
		if (!nr || nr > 256 || len > 256 * (4 + 32 + 4096) ||
		    fread(frame, 1, len, f) != len)
			goto bad;
		for (i = 0, pos = 0; i < nr; i++) {
			if (len - pos < 4)
				goto bad;
			klen = frame[pos];
			vlen = frame[pos + 2] | frame[pos + 3] << 8;
			if (!klen || klen > 32 || vlen > 4096 ||
			    len - pos - 4 < klen + vlen)
				goto bad;
			fn(frame + pos + 4, klen, frame + pos + 4 + klen, vlen,
			   arg);
			pos += 4 + klen + vlen;
		}
		if (pos != len)
			goto bad;
		pairs += nr;
		frames++;
	}
	fclose(f);
	free(frame);
	return pairs;
bad:
	if (f)
		fclose(f);
	free(frame);
	return -1;
}

struct seen {
	uint32_t	n;
	uint8_t		*count;		/* per test key */
	uint32_t	wrong;		/* test keys with another value */
	uint32_t	others;		/* keys not the test's */
};

static void note_pair(const uint8_t *k, uint32_t klen, const uint8_t *v,
		      uint32_t vlen, void *arg)
{
	struct seen *s = arg;
	long i = keyidx(k, klen, s->n);
	uint8_t want[SCALIO_VALUE_MAX];
	uint32_t wlen;

	if (i < 0) {
		s->others++;
		return;
	}
	s->count[i]++;
	wlen = mkval((uint32_t)i, state((uint32_t)i) == REWRITTEN ? 2 : 1, want);
	if (state((uint32_t)i) == DELETED || vlen != wlen ||
	    memcmp(v, want, vlen)) {
		if (s->wrong++ < 5)
			printf("# pair %ld exported with %u bytes (state %d, want %u)\n",
			       i, vlen, state((uint32_t)i), wlen);
	}
}

/* Every key of a file into a list, to delete or GET them all. */
struct keyval {
	uint8_t		key[SCALIO_KEY_MAX];
	uint32_t	klen;
	uint32_t	vlen;
	uint8_t		*val;
};

struct kvlist {
	struct keyval	*v;
	uint32_t	n, cap;
};

static void collect(const uint8_t *k, uint32_t klen, const uint8_t *v,
		    uint32_t vlen, void *arg)
{
	struct kvlist *l = arg;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			exit(1);
	}
	memcpy(l->v[l->n].key, k, klen);
	l->v[l->n].klen = klen;
	l->v[l->n].vlen = vlen;
	l->v[l->n].val = malloc(vlen + 1);
	memcpy(l->v[l->n].val, v, vlen);
	l->n++;
}

static int run(const char *cmd)
{
	int st = system(cmd);

	printf("# %s: exit %d\n", cmd, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- 1. hostile arguments */

static int scan(struct scalio_scan *s)
{
	return ioctl(fd, SCALIO_IOC_SCAN, s) ? errno : 0;
}

static const char *const hostile_what[] = {
	"bucket = nr_buckets", "bucket = 0xffffffff", "buf 0", "buf_len 0",
	"buf_len below the minimum", "buf_len unaligned",
	"buf_len over the maximum", "buf_len 0xfffffff8", "flags 1",
	"reserved[6] 1", "max_buckets over the limit", "a kernel address",
};

/* Case @i of hostile_what applied to @s; the errno it must give. */
static int hostile_case(unsigned int i, struct scalio_scan *s)
{
	switch (i) {
	case 0: s->bucket = nr_buckets; break;
	case 1: s->bucket = 0xffffffffU; break;
	case 2: s->buf = 0; break;
	case 3: s->buf_len = 0; break;
	case 4: s->buf_len = SCALIO_SCAN_BUF_MIN - 8; break;
	case 5: s->buf_len = SCALIO_SCAN_BUF_MIN + 4; break;
	case 6: s->buf_len = SCALIO_SCAN_BUF_MAX + 8; break;
	case 7: s->buf_len = 0xfffffff8U; break;
	case 8: s->flags = 1; break;
	case 9: s->reserved[6] = 1; break;
	case 10: s->max_buckets = SCALIO_SCAN_BUCKETS_MAX + 1; break;
	default: s->buf = 0xffff888000000000ULL; return EFAULT;
	}
	return EINVAL;
}

static void hostile(void)
{
	static uint8_t buf[SCALIO_SCAN_BUF_MIN] __attribute__((aligned(8)));
	struct scalio_scan s0 = {
		.buf = (uintptr_t)buf, .buf_len = sizeof(buf),
		.max_buckets = 1,
	}, s;
	unsigned int i;
	int e, want;

	for (i = 0; i < sizeof(hostile_what) / sizeof(hostile_what[0]); i++) {
		s = s0;
		want = hostile_case(i, &s);
		e = scan(&s);
		CHECK(e == want, "SCAN with %s: %s, expected %s",
		      hostile_what[i], strerror(e), strerror(want));
	}
	e = ioctl(fd, SCALIO_IOC_SCAN, NULL) ? errno : 0;
	CHECK(e == EFAULT, "SCAN with a NULL argument: %s", strerror(e));
	s = s0;
	s.bucket = nr_buckets - 1;
	e = scan(&s);
	/* (EOVERFLOW: that bucket holds more than the smallest buffer.) */
	CHECK(e == EOVERFLOW || (!e && s.bucket == nr_buckets &&
	      s.nr_buckets == 1 && s.store_buckets == nr_buckets),
	      "SCAN of the last position: %s, cursor %u, %u buckets",
	      strerror(e), s.bucket, s.nr_buckets);
	printf("# hostile SCAN arguments: done\n");
}

/* A mapping shorter than buf_len: EFAULT as soon as a record crosses it. */
static void short_buffer(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct scalio_scan s = { .buf_len = SCALIO_SCAN_BUF_MAX };
	uint8_t *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int e;

	if (m == MAP_FAILED || mprotect(m + pg, pg, PROT_NONE)) {
		CHECK(0, "mmap: %s", strerror(errno));
		return;
	}
	s.buf = (uintptr_t)m;
	/* The test's pairs hold far more than a page. */
	s.max_buckets = SCALIO_SCAN_BUCKETS_MAX;
	do {
		s.buf_len = SCALIO_SCAN_BUF_MAX;
		e = scan(&s);
	} while (!e && s.bucket < nr_buckets);
	CHECK(e == EFAULT, "SCAN into one page with buf_len %u: %s, cursor %u",
	      SCALIO_SCAN_BUF_MAX, strerror(e), s.bucket);
	munmap(m, 2 * pg);
}

/* ---- 3. the whole store with the smallest buffer */

static void scan_all(uint32_t n)
{
	uint32_t len = SCALIO_SCAN_BUF_MIN, pos = 0, pairs = 0, mine = 0;
	uint8_t *buf = malloc(SCALIO_SCAN_BUF_MAX);
	uint32_t overflows = 0, calls = 0, off, i, last = 0, rpos;
	bool first = true;

	/* A quarter of the store: each call re-reads the bucket that did not fit. */
	while (buf && pos < nr_buckets / 4) {
		struct scalio_scan s = {
			.buf = (uintptr_t)buf, .buf_len = len, .bucket = pos,
		};
		int e = scan(&s);

		calls++;
		if (e == EOVERFLOW) {
			CHECK(s.buf_len > len && s.buf_len <= SCALIO_SCAN_BUF_MAX,
			      "EOVERFLOW at position %u asks for %u bytes", pos,
			      s.buf_len);
			if (s.buf_len <= len || s.buf_len > SCALIO_SCAN_BUF_MAX)
				break;
			overflows++;
			len = (s.buf_len + 7) & ~7U;
			continue;
		}
		if (e) {
			CHECK(0, "SCAN at position %u: %s", pos, strerror(e));
			break;
		}
		CHECK(s.bucket > pos && s.bucket == pos + s.nr_buckets &&
		      s.store_buckets == nr_buckets && s.buf_len <= len,
		      "SCAN at position %u: cursor %u, %u buckets, %u bytes",
		      pos, s.bucket, s.nr_buckets, s.buf_len);
		for (i = 0, off = 0; i < s.nr_pairs; i++) {
			struct scalio_scan_rec r;

			memcpy(&r, buf + off, sizeof(r));
			/* Records come in scan order: their positions grow. */
			rpos = r.bucket < nr_buckets ? bucket_pos(r.bucket) :
						       UINT32_MAX;
			CHECK(rpos >= pos && rpos < s.bucket &&
			      (first || rpos >= last) && r.klen &&
			      r.klen <= 32 && r.vlen <= 4096 && !r.flags,
			      "record %u at position %u: bucket %u klen %u vlen %u",
			      i, pos, r.bucket, r.klen, r.vlen);
			last = rpos;
			first = false;
			if (keyidx(buf + off + sizeof(r), r.klen, n) >= 0)
				mine++;
			off += SCALIO_SCAN_REC_SIZE(r.klen, r.vlen);
		}
		CHECK(off == s.buf_len, "SCAN at position %u: %u bytes of records, %u reported",
		      pos, off, s.buf_len);
		pairs += s.nr_pairs;
		pos = s.bucket;
		len = SCALIO_SCAN_BUF_MIN;
	}
	printf("# scan of positions 0..%u in %u calls with %u-byte buffers: %u pairs (%u of the test's), %u EOVERFLOW\n",
	       pos - 1, calls, SCALIO_SCAN_BUF_MIN, pairs, mine, overflows);
	free(buf);
}

int main(int argc, char **argv)
{
	struct scalio_stats st = { .size = sizeof(st) };
	uint32_t n = 2000, i, live = 0, j, nr, bad = 0;
	char path[512], cmd[1024];
	struct seen sn = { 0 };
	struct kvlist l = { 0 };
	long pairs;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: scalio_export STORE DIR [N]\n");
		return 2;
	}
	store = argv[1];
	dir = argv[2];
	if (argc == 4)
		n = (uint32_t)sel_num_arg("scalio_export", argv[3], 200, 100000);
	snprintf(path, sizeof(path), SCALIO_STORE_DEV_FMT, store);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		printf("SKIP: %s: %s\n", path, strerror(errno));
		return 4;
	}
	if (ioctl(fd, SCALIO_IOC_STATS, &st)) {
		printf("FAIL: STATS: %s\n", strerror(errno));
		return 1;
	}
	nr_blocks = st.nr_blocks;
	nr_buckets = st.nr_buckets;
	if (!nr_blocks || (nr_blocks & (nr_blocks - 1)) ||
	    !nr_buckets || (nr_buckets & (nr_buckets - 1)) ||
	    nr_buckets < nr_blocks) {
		printf("FAIL: STATS: %u blocks, %u buckets\n", nr_blocks,
		       nr_buckets);
		return 1;
	}
	bpb = nr_buckets / nr_blocks;
	ops_init();

	hostile();
	apply(SCALIO_OP_PUT, n, all, 1, "PUT of every pair");
	apply(SCALIO_OP_DELETE, n, to_delete, 1, "DELETE of every fifth");
	apply(SCALIO_OP_PUT, n, to_rewrite, 2, "PUT of new values of every fifth");
	short_buffer();
	scan_all(n);

	/* 4. export, read here */
	snprintf(cmd, sizeof(cmd), "rm -f %s/e1 && scalioctl export %s %s/e1",
		 dir, store, dir);
	CHECK(run(cmd) == 0, "export failed");
	snprintf(path, sizeof(path), "%s/e1", dir);
	sn.n = n;
	sn.count = calloc(n, 1);
	pairs = for_each_pair(path, note_pair, &sn);
	CHECK(pairs >= 0, "%s does not have the documented layout", path);
	for (i = 0; i < n; i++) {
		if (state(i) != DELETED)
			live++;
		if (sn.count[i] != (state(i) == DELETED ? 0 : 1) && bad++ < 5)
			CHECK(0, "pair %u (state %d) exported %u times", i,
			      state(i), sn.count[i]);
	}
	CHECK(!sn.wrong, "%u pairs exported with a wrong value", sn.wrong);
	printf("# e1: %ld pairs: %u of the test's live ones, %u others\n",
	       pairs, live, sn.others);

	/* 5. empty the store, export it to stdout */
	CHECK(for_each_pair(path, collect, &l) == pairs, "e1 read twice differs");
	for (i = 0; i < l.n; i += nr) {
		nr = l.n - i < SCALIO_MULTI_MAX ? l.n - i : SCALIO_MULTI_MAX;
		for (j = 0; j < nr; j++) {
			memcpy(ops[j].key, l.v[i + j].key, l.v[i + j].klen);
			ops[j].klen = l.v[i + j].klen;
		}
		CHECK(!multi(SCALIO_OP_DELETE, ops, nr), "DELETE: %s", strerror(errno));
		for (j = 0; j < nr; j++)
			CHECK(!ops[j].result, "DELETE of e1's key %u: %s", i + j,
			      strerror(-ops[j].result));
	}
	snprintf(cmd, sizeof(cmd), "scalioctl export %s - > %s/e2 && scalioctl import --check %s/e2",
		 store, dir, dir);
	CHECK(run(cmd) == 0, "export of the empty store failed");
	snprintf(path, sizeof(path), "%s/e2", dir);
	pairs = for_each_pair(path, note_pair, &sn);
	CHECK(pairs == 0, "the empty store exported %ld pairs", pairs);

	/* 6. import e1, GET every key */
	snprintf(cmd, sizeof(cmd), "scalioctl import %s %s/e1", store, dir);
	CHECK(run(cmd) == 0, "import failed");
	bad = 0;
	for (i = 0; i < l.n; i += nr) {
		nr = l.n - i < SCALIO_MULTI_MAX ? l.n - i : SCALIO_MULTI_MAX;
		for (j = 0; j < nr; j++) {
			memcpy(ops[j].key, l.v[i + j].key, l.v[i + j].klen);
			ops[j].klen = l.v[i + j].klen;
		}
		CHECK(!multi(SCALIO_OP_GET, ops, nr), "GET: %s", strerror(errno));
		for (j = 0; j < nr; j++) {
			struct keyval *kv = &l.v[i + j];

			if ((ops[j].result || ops[j].vlen != kv->vlen ||
			     memcmp(ops[j].val, kv->val, kv->vlen)) && bad++ < 5)
				CHECK(0, "GET of e1's key %u after import: %s, %u bytes, want %u",
				      i + j, strerror(-ops[j].result), ops[j].vlen,
				      kv->vlen);
		}
	}
	CHECK(!bad, "%u keys read back wrong after the import", bad);
	/* The deleted pairs stay deleted. */
	bad = 0;
	for (i = 0; i < n; i += nr) {
		for (nr = 0; i + nr < n && nr < SCALIO_MULTI_MAX; nr++)
			ops[nr].klen = mkkey(i + nr, ops[nr].key);
		CHECK(!multi(SCALIO_OP_GET, ops, nr), "GET: %s", strerror(errno));
		for (j = 0; j < nr; j++)
			if (state(i + j) == DELETED && ops[j].result != -ENOENT &&
			    bad++ < 5)
				CHECK(0, "deleted pair %u after import: %s", i + j,
				      strerror(-ops[j].result));
	}
	printf("# import: %u keys read back\n", l.n);
	printf("%s: scalio_export\n", failed ? "FAIL" : "PASS");
	return failed;
}
