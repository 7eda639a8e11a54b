// SPDX-License-Identifier: GPL-2.0
/*
 * scalioctl export / import: every pair of a store into a versioned file
 * (dump.c, Documentation/export.rst) with SCALIO_IOC_SCAN, and back into a
 * store with SCALIO_IOC_MULTI, one frame (up to 256 PUTs) in flight at a
 * time.  Both stream: memory does not grow with the store.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "dump.h"
#include "scalioctl.h"

/* First scan buffer; grown on EOVERFLOW up to SCALIO_SCAN_BUF_MAX. */
#define SCAN_BUF_START	(1U << 20)
/* Buckets per SCALIO_IOC_SCAN: each may be an SSD read; progress between. */
#define SCAN_BUCKETS	256

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The bucket at scan position @pos (the kernel's scalio_pos_bucket()): the
 * scan walks the seg table, the buckets of block 0 first, then block 1's.
 */
static uint32_t pos_bucket(uint32_t pos, uint32_t nr_blocks, uint32_t bpb)
{
	return (pos % bpb) * nr_blocks + pos / bpb;
}

static void hexkey(char *out, const uint8_t *key, uint32_t klen)
{
	for (uint32_t i = 0; i < klen; i++)
		sprintf(out + 2 * i, "%02x", key[i]);
	out[2 * klen] = '\0';
}

/*
 * [-q] [--check] [--skip-damaged] ARGS...: the options of export and
 * import (--check: import only; --skip-damaged: export only, @skip NULL
 * for import).
 */
static int parse_dump_args(const char *cmd, int argc, char **argv,
			   bool allow_check, bool *quiet, bool *check,
			   bool *skip, char ***args, int *nargs)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "check", no_argument, NULL, 'c' },
		{ "skip-damaged", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*quiet = false;
	*check = false;
	if (skip)
		*skip = false;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			*quiet = true;
			break;
		case 'c':
			if (!allow_check)
				return usage_error(cmd, "unknown option '--check'");
			*check = true;
			break;
		case 's':
			if (!skip)
				return usage_error(cmd, "unknown option '--skip-damaged'");
			*skip = true;
			break;
		case 'h':
			return print_command_help(cmd) == EXIT_OK ? -1 : EXIT_USAGE;
		default:
			return usage_error(cmd, "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	*nargs = argc - optind;
	if (*nargs != (*check ? 1 : 2))
		return usage_error(cmd, "expected %s, got %d arguments",
				   *check ? "FILE" : "STORE FILE", *nargs);
	*args = argv + optind;
	if (!*check && !valid_store_name((*args)[0]))
		return usage_error(cmd, "invalid store name '%s'", (*args)[0]);
	return EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
	struct scalio_stats st = { .size = sizeof(st) };
	struct dump_info info = { 0 };
	struct dump_writer w = { 0 };
	bool quiet, check, to_stdout, skip;
	uint32_t buf_len = SCAN_BUF_START, pos = 0, bpb, skipped = 0;
	double t0, last;
	const char *store, *path;
	char **args;
	uint8_t *buf = NULL;
	FILE *f = NULL;
	int fd = -1, ret, nargs;

	ret = parse_dump_args("export", argc, argv, false, &quiet, &check,
			      &skip, &args, &nargs);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	store = args[0];
	path = args[1];
	to_stdout = !strcmp(path, "-");
	ret = open_store(store, &fd);
	if (ret)
		return ret;
	if (ioctl(fd, SCALIO_IOC_STATS, &st)) {
		err_msg("export '%s': SCALIO_IOC_STATS: %s", store, strerror(errno));
		ret = EXIT_FAIL;
		goto out;
	}
	/* The counts name the scan's end and its buckets: check them. */
	if (!st.nr_blocks || (st.nr_blocks & (st.nr_blocks - 1)) ||
	    !st.nr_buckets || (st.nr_buckets & (st.nr_buckets - 1)) ||
	    st.nr_buckets < st.nr_blocks) {
		err_msg("export '%s': SCALIO_IOC_STATS: %u blocks, %u buckets: not a store's geometry",
			store, st.nr_blocks, st.nr_buckets);
		ret = EXIT_FAIL;
		goto out;
	}
	bpb = st.nr_buckets / st.nr_blocks;
	if (to_stdout && isatty(STDOUT_FILENO)) {
		err_msg("export: refusing to write the binary export to a terminal");
		ret = EXIT_USAGE;
		goto out;
	}
	f = to_stdout ? stdout : fopen(path, "wbx");
	if (!f) {
		err_msg("export: %s: %s%s", path, strerror(errno),
			errno == EEXIST ? " (remove it first: export never overwrites)" : "");
		ret = EXIT_FAIL;
		goto out;
	}
	info.nr_blocks = st.nr_blocks;
	info.nr_ssds = st.nr_ssds;
	info.slots = st.slots_per_block;
	info.features = st.features;
	info.time = (uint64_t)time(NULL);
	snprintf(info.store, sizeof(info.store), "%s", store);
	buf = malloc(buf_len);
	ret = buf ? dump_write_open(&w, f, &info) : -ENOMEM;
	if (ret)
		goto write_err;

	t0 = last = now_s();
	/* The cursor is a scan position, 0..nr_buckets (see uapi/scalio.h). */
	while (pos < st.nr_buckets) {
		struct scalio_scan s = {
			.buf = (uintptr_t)buf,
			.buf_len = buf_len,
			.bucket = pos,
			.max_buckets = SCAN_BUCKETS,
		};
		uint32_t off = 0, i;

		if (ioctl(fd, SCALIO_IOC_SCAN, &s)) {
			if (errno == EOVERFLOW && s.buf_len > buf_len &&
			    s.buf_len <= SCALIO_SCAN_BUF_MAX) {
				uint8_t *nb;

				buf_len = (s.buf_len + 7) & ~7U;
				nb = realloc(buf, buf_len);
				if (!nb) {
					ret = -ENOMEM;
					goto write_err;
				}
				buf = nb;
				continue;
			}
			if (errno == EIO && skip) {
				/* The call failed on its first bucket: that one. */
				err_msg("export '%s': bucket %u (scan position %u of %u) is damaged: skipped, its pairs are NOT in %s",
					store, pos_bucket(pos, st.nr_blocks, bpb),
					pos, st.nr_buckets, path);
				skipped++;
				pos++;
				continue;
			}
			err_msg("export '%s': bucket %u (scan position %u of %u): SCALIO_IOC_SCAN: %s%s",
				store, pos_bucket(pos, st.nr_blocks, bpb), pos,
				st.nr_buckets, strerror(errno),
				errno == EIO ? " (its segment is damaged: see the target's report and dmesg; --skip-damaged exports the rest)" :
				errno == ENODEV ? " (an SSD is not bound: run 'scalioctl attach')" : "");
			err_msg("export '%s': stopped after %" PRIu64 " pairs of scan positions 0..%u; %s is incomplete (no trailer: import refuses it)",
				store, w.pairs + w.nr, pos ? pos - 1 : 0, path);
			ret = EXIT_FAIL;
			goto out;
		}
		if (s.bucket <= pos || s.bucket > st.nr_buckets ||
		    s.store_buckets != st.nr_buckets || s.buf_len > buf_len) {
			err_msg("export '%s': SCALIO_IOC_SCAN answered cursor %u after %u",
				store, s.bucket, pos);
			ret = EXIT_FAIL;
			goto out;
		}
		for (i = 0; i < s.nr_pairs; i++) {
			struct scalio_scan_rec r;
			size_t size;

			if (s.buf_len - off < sizeof(r))
				break;
			memcpy(&r, buf + off, sizeof(r));
			size = SCALIO_SCAN_REC_SIZE(r.klen, r.vlen);
			if (!r.klen || r.klen > SCALIO_KEY_MAX ||
			    r.vlen > SCALIO_VALUE_MAX || size > s.buf_len - off)
				break;
			ret = dump_write_pair(&w, buf + off + sizeof(r), r.klen,
					      buf + off + sizeof(r) + r.klen,
					      r.vlen);
			if (ret)
				goto write_err;
			off += size;
		}
		if (i != s.nr_pairs) {
			err_msg("export '%s': SCALIO_IOC_SCAN returned a malformed record at scan position %u",
				store, pos);
			ret = EXIT_FAIL;
			goto out;
		}
		pos = s.bucket;
		if (!quiet && (now_s() - last >= 1.0 || pos == st.nr_buckets)) {
			last = now_s();
			fprintf(stderr, "export %s: %u/%u buckets, %" PRIu64 " pairs, %.1f s\n",
				store, pos, st.nr_buckets, w.pairs + w.nr,
				last - t0);
		}
	}
	ret = dump_write_finish(&w);
	if (ret)
		goto write_err;
	if (!to_stdout) {
		if (fsync(fileno(f)) || fclose(f)) {
			f = NULL;
			ret = -errno;
			goto write_err;
		}
		f = NULL;
	}
	if (!quiet)
		fprintf(stderr, "export %s: %" PRIu64 " pairs of %u buckets in %" PRIu64 " bytes to %s\n",
			store, w.pairs, st.nr_buckets - skipped, w.bytes,
			to_stdout ? "standard output" : path);
	if (skipped) {
		/* A whole file, but not the whole store: never exit 0. */
		err_msg("export '%s': %u damaged bucket(s) skipped: %s is intact and importable but lacks their pairs",
			store, skipped, path);
		ret = EXIT_FAIL;
		goto out;
	}
	ret = EXIT_OK;
	goto out;

write_err:
	err_msg("export '%s': writing %s: %s", store, path, strerror(-ret));
	ret = EXIT_FAIL;
out:
	if (f && !to_stdout)
		fclose(f);
	dump_write_free(&w);
	free(buf);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* PUT the pairs of the loaded frame with one SCALIO_IOC_MULTI. */
static int import_frame(int fd, const char *store, struct dump_reader *r,
			struct scalio_multi_op *ops, uint64_t *done)
{
	struct scalio_multi m = { 0 };
	struct dump_pair p;
	uint32_t pos = 0, n = 0, i, failed = 0;
	char hex[2 * SCALIO_KEY_MAX + 1];

	while (dump_frame_next(r, &pos, &p) == 1) {
		memset(&ops[n], 0, sizeof(ops[n]));
		ops[n].opcode = SCALIO_OP_PUT;
		ops[n].kv.key = (uintptr_t)p.key;
		ops[n].kv.value = (uintptr_t)p.value;
		ops[n].kv.klen = p.klen;
		ops[n].kv.vlen = p.vlen;
		n++;
	}
	m.ops = (uintptr_t)ops;
	m.nr = n;
	if (ioctl(fd, SCALIO_IOC_MULTI, &m)) {
		err_msg("import '%s': SCALIO_IOC_MULTI: %s", store, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!ops[i].kv.result) {
			(*done)++;
			continue;
		}
		if (failed++ < 5) {
			hexkey(hex, (const uint8_t *)(uintptr_t)ops[i].kv.key,
			       ops[i].kv.klen);
			err_msg("import '%s': PUT of key 0x%s (%u-byte value): %s",
				store, hex, ops[i].kv.vlen,
				strerror(-ops[i].kv.result));
		}
	}
	if (failed > 5)
		err_msg("import '%s': ... and %u more PUTs of that frame failed",
			store, failed - 5);
	return failed ? -1 : 0;
}

int cmd_import(int argc, char **argv)
{
	struct scalio_multi_op *ops = NULL;
	struct dump_reader r = { 0 };
	bool quiet, check, from_stdin;
	const char *store = NULL, *path;
	uint64_t done = 0;
	double t0, last;
	char **args;
	FILE *f;
	int fd = -1, ret, nargs;

	ret = parse_dump_args("import", argc, argv, true, &quiet, &check,
			      NULL, &args, &nargs);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (check) {
		path = args[0];
	} else {
		store = args[0];
		path = args[1];
	}
	from_stdin = !strcmp(path, "-");
	f = from_stdin ? stdin : fopen(path, "rb");
	if (!f) {
		err_msg("import: %s: %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	if (dump_read_open(&r, f)) {
		err_msg("import: %s: %s; nothing imported", path, r.err);
		ret = EXIT_FAIL;
		goto out;
	}
	if (!quiet)
		fprintf(stderr, "import %s: format %u, exported from store '%.31s' (%u blocks, %u SSDs) at %" PRIu64 "\n",
			path, r.info.version, r.info.store, r.info.nr_blocks,
			r.info.nr_ssds, r.info.time);
	if (!check) {
		ret = open_store(store, &fd);
		if (ret)
			goto out;
		ops = calloc(DUMP_FRAME_PAIRS, sizeof(*ops));
		if (!ops) {
			err_msg("out of memory");
			ret = EXIT_FAIL;
			goto out;
		}
	}
	t0 = last = now_s();
	for (;;) {
		ret = dump_read_frame(&r);
		if (ret < 0) {
			err_msg("import: %s: %s", path, r.err);
			if (check)
				err_msg("import: %s: %" PRIu64 " pairs in %" PRIu64 " frames before it are intact",
					path, r.pairs, r.frames);
			else
				err_msg("import '%s': %" PRIu64 " pairs imported before the damage (every pair of the first %" PRIu64 " frames); none after it",
					store, done, r.frames);
			ret = EXIT_FAIL;
			goto out;
		}
		if (!ret)
			break;
		if (!check && import_frame(fd, store, &r, ops, &done)) {
			err_msg("import '%s': stopped after frame %" PRIu64 ": %" PRIu64 " of its first %" PRIu64 " pairs imported",
				store, r.frames, done, r.pairs);
			ret = EXIT_FAIL;
			goto out;
		}
		if (!quiet && now_s() - last >= 1.0) {
			last = now_s();
			fprintf(stderr, "import %s: %" PRIu64 " pairs, %llu bytes, %.1f s\n",
				path, r.pairs, (unsigned long long)r.off, last - t0);
		}
	}
	if (check)
		printf("%s: intact: %" PRIu64 " pairs in %" PRIu64 " frames, %llu bytes\n",
		       path, r.pairs, r.frames, (unsigned long long)r.off);
	else if (!quiet)
		fprintf(stderr, "import %s: %" PRIu64 " pairs imported into '%s', checksum ok\n",
			path, done, store);
	ret = EXIT_OK;
out:
	if (!from_stdin)
		fclose(f);
	dump_read_free(&r);
	free(ops);
	if (fd >= 0)
		close(fd);
	return ret;
}
