// SPDX-License-Identifier: GPL-2.0
/*
 * scalioctl put / get / del / stats: one ioctl each on /dev/scalio/<store>;
 * stats -o prometheus also reads the target's stores from configfs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prom.h"
#include "scalioctl.h"

/**
 * open_store() - open /dev/scalio/@name read-write
 *
 * Return: EXIT_OK with *fd set, or EXIT_FAIL after printing why.
 */
int open_store(const char *name, int *fd)
{
	char path[64 + SCALIO_NAME_MAX];

	snprintf(path, sizeof(path), SCALIO_STORE_DEV_FMT, name);
	*fd = open(path, O_RDWR | O_CLOEXEC);
	if (*fd < 0) {
		int e = errno;

		if (e == ENOENT)
			err_msg("open %s: %s (store '%s' not attached? run 'scalioctl attach')",
				path, strerror(e), name);
		else
			err_msg("open %s: %s", path, strerror(e));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Decode @s (hex if @hex, else literal bytes) into a new buffer.
 * Return: length, or -1 if @s is not valid hex.
 */
static long decode_arg(const char *s, bool hex, unsigned char **out)
{
	size_t n = strlen(s), i;
	unsigned char *buf;

	if (!hex) {
		*out = (unsigned char *)strdup(s);
		if (!*out) {
			err_msg("out of memory");
			exit(EXIT_FAIL);
		}
		return (long)n;
	}
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (n % 2)
		return -1;
	buf = malloc(n / 2 + 1);
	if (!buf) {
		err_msg("out of memory");
		exit(EXIT_FAIL);
	}
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(buf);
			return -1;
		}
		buf[i] = (unsigned char)(hi << 4 | lo);
	}
	*out = buf;
	return (long)(n / 2);
}

/* Common option parsing of put/get/del: [--hex] NAME KEY [VALUE]. */
static int parse_kv_args(const char *cmd, int argc, char **argv, int nargs,
			 bool *hex, char ***args)
{
	static const struct option opts[] = {
		{ "hex", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*hex = false;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'x':
			*hex = true;
			break;
		case 'h':
			return print_command_help(cmd) == EXIT_OK ? -1 : EXIT_USAGE;
		default:
			return usage_error(cmd, "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (argc - optind != nargs)
		return usage_error(cmd, "expected %d arguments, got %d", nargs,
				   argc - optind);
	if (!valid_store_name(argv[optind]))
		return usage_error(cmd, "invalid store name '%s'", argv[optind]);
	*args = argv + optind;
	return EXIT_OK;
}

static int get_key(const char *cmd, const char *arg, bool hex,
		   unsigned char **key, uint32_t *klen)
{
	long n = decode_arg(arg, hex, key);

	if (n < 0)
		return usage_error(cmd, "KEY '%s' is not valid hex", arg);
	if (n < 1 || n > SCALIO_KEY_MAX) {
		free(*key);
		return usage_error(cmd, "KEY must be 1..%d bytes (got %ld)",
				   SCALIO_KEY_MAX, n);
	}
	*klen = (uint32_t)n;
	return EXIT_OK;
}

int cmd_put(int argc, char **argv)
{
	unsigned char *key, *val;
	struct scalio_kv kv;
	uint32_t klen;
	char **args;
	bool hex;
	long vlen;
	int fd, ret;

	ret = parse_kv_args("put", argc, argv, 3, &hex, &args);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	ret = get_key("put", args[1], hex, &key, &klen);
	if (ret)
		return ret;
	vlen = decode_arg(args[2], hex, &val);
	if (vlen < 0) {
		free(key);
		return usage_error("put", "VALUE is not valid hex");
	}
	if (vlen > SCALIO_VALUE_MAX) {
		free(key);
		free(val);
		return usage_error("put", "VALUE must be 0..%d bytes (got %ld)",
				   SCALIO_VALUE_MAX, vlen);
	}
	ret = open_store(args[0], &fd);
	if (ret)
		goto out;
	memset(&kv, 0, sizeof(kv));
	kv.key = (uintptr_t)key;
	kv.value = (uintptr_t)val;
	kv.klen = klen;
	kv.vlen = (uint32_t)vlen;
	if (ioctl(fd, SCALIO_IOC_PUT, &kv)) {
		err_msg("put into store '%s': SCALIO_IOC_PUT: %s", args[0],
			strerror(errno));
		ret = EXIT_FAIL;
	}
	close(fd);
out:
	free(key);
	free(val);
	return ret;
}

static void print_value(const unsigned char *v, size_t n, bool hex)
{
	size_t i;

	if (hex) {
		for (i = 0; i < n; i++)
			printf("%02x", v[i]);
	} else {
		fwrite(v, 1, n, stdout);
	}
	putchar('\n');
}

int cmd_get(int argc, char **argv)
{
	unsigned char *key, *buf = NULL;
	struct scalio_kv kv;
	uint32_t klen, size = SCALIO_VALUE_MAX;
	char **args;
	bool hex;
	int fd, ret, tries;

	ret = parse_kv_args("get", argc, argv, 2, &hex, &args);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	ret = get_key("get", args[1], hex, &key, &klen);
	if (ret)
		return ret;
	ret = open_store(args[0], &fd);
	if (ret)
		goto out;
	/* A value may grow between two GETs: retry with the reported size. */
	for (tries = 0; tries < 4; tries++) {
		unsigned char *nbuf = realloc(buf, size ? size : 1);

		if (!nbuf) {
			err_msg("out of memory");
			ret = EXIT_FAIL;
			break;
		}
		buf = nbuf;
		memset(&kv, 0, sizeof(kv));
		kv.key = (uintptr_t)key;
		kv.value = (uintptr_t)buf;
		kv.klen = klen;
		kv.vlen = size;
		if (!ioctl(fd, SCALIO_IOC_GET, &kv)) {
			if (kv.vlen > size) {
				err_msg("get: kernel reported %u bytes for a %u-byte buffer",
					kv.vlen, size);
				ret = EXIT_FAIL;
				break;
			}
			print_value(buf, kv.vlen, hex);
			ret = EXIT_OK;
			break;
		}
		if (errno == ENOENT) {
			fprintf(stderr, "%s: get: key '%s' not found in store '%s'\n",
				progname, args[1], args[0]);
			ret = EXIT_MISSING;
			break;
		}
		if (errno == EOVERFLOW && kv.vlen > size) {
			size = kv.vlen;
			continue;
		}
		err_msg("get from store '%s': SCALIO_IOC_GET: %s", args[0],
			strerror(errno));
		ret = EXIT_FAIL;
		break;
	}
	if (tries == 4) {
		err_msg("get: value size kept changing");
		ret = EXIT_FAIL;
	}
	close(fd);
out:
	free(buf);
	free(key);
	return ret;
}

int cmd_del(int argc, char **argv)
{
	struct scalio_kv kv;
	unsigned char *key;
	uint32_t klen;
	char **args;
	bool hex;
	int fd, ret;

	ret = parse_kv_args("del", argc, argv, 2, &hex, &args);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	ret = get_key("del", args[1], hex, &key, &klen);
	if (ret)
		return ret;
	ret = open_store(args[0], &fd);
	if (ret)
		goto out;
	memset(&kv, 0, sizeof(kv));
	kv.key = (uintptr_t)key;
	kv.klen = klen;
	if (ioctl(fd, SCALIO_IOC_DELETE, &kv)) {
		if (errno == ENOENT) {
			fprintf(stderr, "%s: del: key '%s' not found in store '%s'\n",
				progname, args[1], args[0]);
			ret = EXIT_MISSING;
		} else {
			err_msg("del from store '%s': SCALIO_IOC_DELETE: %s",
				args[0], strerror(errno));
			ret = EXIT_FAIL;
		}
	}
	close(fd);
out:
	free(key);
	return ret;
}

struct counter {
	const char *name;
	size_t off;
};

#define HC(f) { #f, offsetof(struct scalio_host_stats, f) }
static const struct counter host_counters[] = {
	HC(gets), HC(puts), HC(deletes), HC(cache_hits), HC(cache_misses),
	HC(ssd_reads), HC(rpc_gets), HC(rdma_reads), HC(rdma_cas),
	HC(cas_failures), HC(retries), HC(lease_reclaims), HC(invalidations),
	HC(header_mismatches), HC(errors), HC(reconnects), HC(waits),
	HC(lease_renewals), HC(lease_giveups), HC(ssd_read_timeouts),
	HC(reconnect_waits), HC(reconnect_wait_ns), HC(fast_io_fails),
	HC(lost_get_retries), HC(get_val_reads), HC(get_val_stale),
	HC(retired_evictions), HC(opt_misses), HC(bg_queued), HC(bg_fills), HC(bg_fill_drops),
	HC(bg_waits),
};

#define TC(f) { #f, offsetof(struct scalio_target_stats, f) }
static const struct counter target_counters[] = {
	TC(rpc_gets), TC(rpc_puts), TC(rpc_deletes), TC(rpc_other),
	TC(ssd_reads), TC(ssd_writes), TC(ssd_write_bytes), TC(batches),
	TC(batched_ops), TC(cleaner_runs), TC(cleaner_moved),
	TC(cpu_ns_commit), TC(cpu_ns_rpc), TC(cpu_ns_cleaner),
	TC(log_used_units), TC(log_total_units), TC(keys), TC(ssd_failed),
	TC(seg_cache_hits), TC(seg_cache_misses), TC(seg_cache_evictions),
	TC(commit_write_ns), TC(commit_wait_ns), TC(live_bytes),
	TC(index_bytes), TC(vals_written), TC(val_bytes_written),
	TC(vals_moved), TC(live_val_bytes), TC(blocks_retired),
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t counter_val(const void *base, const struct counter *c)
{
	uint64_t v;

	memcpy(&v, (const char *)base + c->off, sizeof(v));
	return v;
}

/* One flat object of "name": number pairs, on one line. */
static int print_stats_json(const struct scalio_stats *st)
{
	struct json_object *o = jx(json_object_new_object());
	char name[64];
	size_t i;
	int ret;

	json_put(o, "features", json_object_new_uint64(st->features));
	json_put(o, "nr_ssds", json_object_new_int64(st->nr_ssds));
	json_put(o, "nr_blocks", json_object_new_int64(st->nr_blocks));
	json_put(o, "nr_buckets", json_object_new_int64(st->nr_buckets));
	json_put(o, "slots_per_block",
		 json_object_new_int64(st->slots_per_block));
	json_put(o, "offload_read",
		 json_object_new_int(!!(st->features & SCALIO_F_OFFLOAD_READ)));
	json_put(o, "inline_cache",
		 json_object_new_int(!!(st->features & SCALIO_F_INLINE_CACHE)));
	json_put(o, "fill_token",
		 json_object_new_int(!!(st->features & SCALIO_F_FILL_TOKEN)));
	json_put(o, "block_epoch",
		 json_object_new_int(!!(st->features & SCALIO_F_BLOCK_EPOCH)));
	json_put(o, "target_valid", json_object_new_int64(st->target_valid));
	for (i = 0; i < ARRAY_LEN(host_counters); i++)
		json_put(o, host_counters[i].name,
			 json_object_new_uint64(counter_val(&st->host,
							    &host_counters[i])));
	for (i = 0; st->target_valid && i < ARRAY_LEN(target_counters); i++) {
		snprintf(name, sizeof(name), "target_%s",
			 target_counters[i].name);
		json_put(o, name,
			 json_object_new_uint64(counter_val(&st->target,
							    &target_counters[i])));
	}
	ret = json_write(stdout, o, false);
	json_object_put(o);
	if (ret)
		err_msg("write standard output: %s", strerror(-ret));
	return ret ? EXIT_FAIL : EXIT_OK;
}

static void print_stats_table(const char *store, const struct scalio_stats *st)
{
	size_t i;

	printf("store %s: %u SSD(s), %u blocks x %u slots, %u buckets, features:%s%s%s%s%s\n",
	       store, st->nr_ssds, st->nr_blocks, st->slots_per_block,
	       st->nr_buckets,
	       st->features & SCALIO_F_OFFLOAD_READ ? " offload_read" : "",
	       st->features & SCALIO_F_INLINE_CACHE ? " inline_cache" : "",
	       st->features & SCALIO_F_FILL_TOKEN ? " fill_token" : "",
	       st->features & SCALIO_F_BLOCK_EPOCH ? " block_epoch" : "",
	       st->features & (SCALIO_F_OFFLOAD_READ | SCALIO_F_INLINE_CACHE |
			       SCALIO_F_FILL_TOKEN | SCALIO_F_BLOCK_EPOCH) ?
	       "" : " none");
	printf("\nhost counters\n");
	for (i = 0; i < ARRAY_LEN(host_counters); i++)
		printf("  %-20s %20" PRIu64 "\n", host_counters[i].name,
		       counter_val(&st->host, &host_counters[i]));
	if (!st->target_valid) {
		printf("\ntarget counters: not available\n");
		return;
	}
	printf("\ntarget counters (all clients)\n");
	for (i = 0; i < ARRAY_LEN(target_counters); i++)
		printf("  %-20s %20" PRIu64 "\n", target_counters[i].name,
		       counter_val(&st->target, &target_counters[i]));
	if (st->target.log_total_units)
		printf("  %-20s %19.1f%%\n", "log_used",
		       100.0 * (double)st->target.log_used_units /
		       (double)st->target.log_total_units);
	if (st->target.log_total_units && st->target.live_bytes)
		printf("  %-20s %19.1f%%\n", "log_live",
		       100.0 * (double)st->target.live_bytes /
		       ((double)st->target.log_total_units * 4096));
	if (st->target.keys && st->target.index_bytes)
		printf("  %-20s %20.1f\n", "index_bytes_per_key",
		       (double)st->target.index_bytes /
		       (double)st->target.keys);
	printf("\nSSDs\n");
	for (i = 0; i < st->nr_ssds && i < 64; i++)
		printf("  ssd%-17zu %20s\n", i,
		       st->target.ssd_failed >> i & 1 ?
		       "FAILED (I/O error; target-resume once fixed)" : "ok");
}

/* ---- stats -o prometheus: what this machine's stores show ---- */

/**
 * prom_read_target() - read what the exposition shows of a target store
 * @t:		filled in
 * @dir:	the store's configfs directory
 * @name:	its name
 *
 * Return: 0, or a negative errno of reading its stats.
 */
static int prom_read_target(struct prom_target *t, const char *dir, const char *name)
{
	char p[PATH_MAX], buf[16];
	static char text[65536];
	unsigned int i;
	int ret;

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	for (i = 0; i < PROM_MAX_SSDS; i++)
		t->ssd[i].state = -1;
	pathf(p, "%s/stats", dir);
	ret = read_file(p, text, sizeof(text));
	if (ret < 0)
		return ret;
	prom_parse_target_stats(t, text);
	pathf(p, "%s/enable", dir);
	t->enabled = read_file(p, buf, sizeof(buf)) > 0 ? buf[0] == '1' : -1;
	for (i = 0; i < PROM_MAX_SSDS; i++) {
		struct prom_ssd *s = &t->ssd[i];

		pathf(p, "%s/ssds/%u", dir, i);
		if (!path_exists(p))
			continue;
		s->present = true;
		pathf(p, "%s/ssds/%u/device_path", dir, i);
		if (read_file(p, s->device_path, sizeof(s->device_path)) < 0)
			s->device_path[0] = '\0';
		pathf(p, "%s/ssds/%u/nqn", dir, i);
		if (read_file(p, s->nqn, sizeof(s->nqn)) < 0)
			s->nqn[0] = '\0';
	}
	return 0;
}

/* The host's counters of one attached store, without the target's. */
static int host_stats(const char *name, struct scalio_stats *st)
{
	int fd, ret;

	ret = open_store(name, &fd);
	if (ret)
		return -ENODEV;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	ret = ioctl(fd, SCALIO_IOC_STATS, st) ? -errno : 0;
	close(fd);
	if (ret)
		err_msg("stats of store '%s': SCALIO_IOC_STATS: %s", name,
			strerror(-ret));
	return ret;
}

/**
 * prom_collect() - print the exposition of this machine's stores
 * @f:		output
 * @only:	one store's name, or NULL for all
 *
 * Target stores come from configfs, attached stores from sysfs (both
 * moved by SCALIO_CONFIGFS / SCALIO_SYSFS).  A store named by @only must
 * exist on one side at least.
 *
 * Return: EXIT_OK, or EXIT_FAIL after saying why (nothing is printed).
 */
static int prom_collect(FILE *f, const char *only)
{
	char dir[PATH_MAX], (*hnames)[SCALIO_NAME_MAX] = NULL, **tnames = NULL;
	struct prom_target *tgt = NULL;
	struct prom_host *hst = NULL;
	int i, nt = 0, nh = 0, ntn, nhn, ret = EXIT_FAIL;

	pathf(dir, "%s/scalio/stores", cfs_root());
	ntn = list_dir(dir, DT_DIR, &tnames);
	if (ntn == -ENOENT)
		ntn = 0;
	if (ntn < 0) {
		err_msg("%s: %s", dir, strerror(-ntn));
		return EXIT_FAIL;
	}
	nhn = attached_stores(&hnames);
	if (nhn < 0) {
		err_msg("attached stores: %s", strerror(-nhn));
		goto out;
	}
	tgt = calloc((size_t)ntn + 1, sizeof(*tgt));
	hst = calloc((size_t)nhn + 1, sizeof(*hst));
	if (!tgt || !hst) {
		err_msg("out of memory");
		goto out;
	}
	for (i = 0; i < ntn; i++) {
		char p[PATH_MAX];
		int err;

		if (only && strcmp(only, tnames[i]))
			continue;
		pathf(p, "%s/%s", dir, tnames[i]);
		err = prom_read_target(&tgt[nt], p, tnames[i]);
		if (err) {
			err_msg("%s/stats: %s", p, strerror(-err));
			goto out;
		}
		nt++;
	}
	for (i = 0; i < nhn; i++) {
		if (only && strcmp(only, hnames[i]))
			continue;
		snprintf(hst[nh].name, sizeof(hst[nh].name), "%s", hnames[i]);
		if (host_stats(hnames[i], &hst[nh].st))
			goto out;
		nh++;
	}
	if (only && !nt && !nh) {
		err_msg("store '%s' is neither configured nor attached here",
			only);
		goto out;
	}
	prom_print_host(f, hst, nh);
	prom_print_target(f, tgt, nt);
	ret = EXIT_OK;
out:
	free(tgt);
	free(hst);
	free(hnames);
	free_list(tnames, ntn > 0 ? ntn : 0);
	return ret;
}

/**
 * prom_textfile() - write the exposition for node_exporter's textfile
 * collector
 * @dir:	its directory (--collector.textfile.directory)
 * @only:	as for prom_collect()
 *
 * Writes @dir/scalio.prom through a hidden temporary file in @dir and a
 * rename, so the collector never reads half a file (it only reads names
 * ending in .prom), and leaves the old file in place on failure.
 *
 * Return: EXIT_OK or EXIT_FAIL.
 */
static int prom_textfile(const char *dir, const char *only)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	int fd, ret;
	FILE *f;

	/* mkstemp() replaces the Xs: a fresh name, written then renamed. */
	pathf(tmp, "%s/.scalio.prom.XXXXXX", dir);
	pathf(dst, "%s/scalio.prom", dir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err_msg("%s: %s", tmp, strerror(errno));
		return EXIT_FAIL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err_msg("%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return EXIT_FAIL;
	}
	ret = prom_collect(f, only);
	if (fchmod(fd, 0644) && !ret) {
		err_msg("%s: %s", tmp, strerror(errno));
		ret = EXIT_FAIL;
	}
	if ((fflush(f) || ferror(f)) && !ret) {
		err_msg("%s: %s", tmp, strerror(errno));
		ret = EXIT_FAIL;
	}
	if (fclose(f) && !ret) {
		err_msg("%s: %s", tmp, strerror(errno));
		ret = EXIT_FAIL;
	}
	if (!ret && rename(tmp, dst)) {
		err_msg("%s: %s", dst, strerror(errno));
		ret = EXIT_FAIL;
	}
	if (ret)
		unlink(tmp);
	return ret;
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'O' },
		{ "textfile", required_argument, NULL, 't' },
		{ "host-only", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_format fmt = 0;	/* not given */
	const char *name, *textfile = NULL;
	struct scalio_stats st;
	bool host_only = false;
	int c, fd, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			fmt = OUT_JSON;
			break;
		case 'o':
		case 'O':
			ret = parse_out_format("stats", optarg,
					       OUT_TEXT | OUT_JSON | OUT_PROMETHEUS,
					       &fmt);
			if (ret)
				return ret;
			break;
		case 't':
			textfile = optarg;
			break;
		case 'H':
			host_only = true;
			break;
		case 'h':
			return print_command_help("stats");
		default:
			return usage_error("stats", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (textfile && fmt && fmt != OUT_PROMETHEUS)
		return usage_error("stats", "--textfile writes -o prometheus");
	if (textfile || !fmt)
		fmt = textfile ? OUT_PROMETHEUS : OUT_TEXT;
	if (fmt == OUT_PROMETHEUS ? argc - optind > 1 : argc - optind != 1)
		return usage_error("stats", "expected the store NAME");
	name = optind < argc ? argv[optind] : NULL;
	if (name && !valid_store_name(name))
		return usage_error("stats", "invalid store name '%s'", name);
	if (textfile)
		return prom_textfile(textfile, name);
	if (fmt == OUT_PROMETHEUS)
		return prom_collect(stdout, name);
	ret = open_store(name, &fd);
	if (ret)
		return ret;
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.flags = host_only ? 0 : SCALIO_STATS_F_TARGET;
	if (ioctl(fd, SCALIO_IOC_STATS, &st)) {
		if (host_only)
			goto fail;
		/* The target may be unreachable: still show the host's view. */
		fprintf(stderr, "%s: warning: target counters unavailable: %s\n",
			progname, strerror(errno));
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		if (ioctl(fd, SCALIO_IOC_STATS, &st))
			goto fail;
	}
	close(fd);
	if (fmt == OUT_JSON)
		return print_stats_json(&st);
	print_stats_table(name, &st);
	return EXIT_OK;
fail:
	err_msg("stats of store '%s': SCALIO_IOC_STATS: %s", name,
		strerror(errno));
	close(fd);
	return EXIT_FAIL;
}
