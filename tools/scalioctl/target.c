// SPDX-License-Identifier: GPL-2.0
/*
 * scalioctl target-setup / target-teardown / target-set: the storage
 * server's side, done entirely through configfs.  nvmet exports each SSD
 * as its own subsystem (one namespace) on one RDMA port; the scalio store
 * is configured under /sys/kernel/config/scalio/stores/<name>/.
 */
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nsuuid.h"
#include "scalioctl.h"

#define NVMET_PORT_ID	"1"
#define NVMET_NSID	"1"

/*
 * Store attributes settable from target-setup's command line, with the
 * limits the target enforces (uapi/scalio.h), so a bad value is refused
 * here with its range rather than by the kernel with a bare EINVAL.
 */
enum attr_kind { ATTR_RANGE, ATTR_POW2, ATTR_SLOTS };

struct store_attr {
	const char *opt;	/* long option */
	const char *file;	/* configfs attribute */
	uint32_t min, max;
	enum attr_kind kind;
};

static const struct store_attr store_attrs[] = {
	{ "nblocks", "attr_nr_blocks", 1, SCALIO_NR_BLOCKS_MAX, ATTR_POW2 },
	{ "nbuckets", "attr_nr_buckets", 1, SCALIO_NR_BUCKETS_MAX, ATTR_POW2 },
	{ "slots", "attr_slots_per_block", SCALIO_SLOTS_MIN, SCALIO_SLOTS_MAX,
	  ATTR_SLOTS },
	{ "batch-max", "attr_batch_max", 1, SCALIO_BATCH_MAX_LIMIT, ATTR_RANGE },
	{ "batch-timeout-us", "attr_batch_timeout_us", 0,
	  SCALIO_BATCH_TIMEOUT_MAX_US, ATTR_RANGE },
	{ "offload-read", "attr_offload_read", 0, 1, ATTR_RANGE },
	{ "inline-cache", "attr_inline_cache", 0, 1, ATTR_RANGE },
	{ "lease-ms", "attr_lease_ms", SCALIO_LEASE_MIN_MS, SCALIO_LEASE_MAX_MS,
	  ATTR_RANGE },
	{ "seg-cache-mb", "attr_seg_cache_mb", 0, SCALIO_SEG_CACHE_MB_MAX,
	  ATTR_RANGE },
	{ "kato-ms", "attr_kato_ms", SCALIO_KATO_MIN_MS, SCALIO_KATO_MAX_MS,
	  ATTR_RANGE },
	{ "value-inline-max", "attr_value_inline_max", 0, SCALIO_VALUE_MAX,
	  ATTR_RANGE },
};

#define NR_STORE_ATTRS (sizeof(store_attrs) / sizeof(store_attrs[0]))

/* Parse @arg for @sa into @v; false when it is outside the attribute's limits. */
static bool store_attr_ok(const struct store_attr *sa, const char *arg,
			  uint32_t *v)
{
	if (parse_u32(arg, sa->min, sa->max, v))
		return false;
	switch (sa->kind) {
	case ATTR_POW2:
	case ATTR_SLOTS:	/* 4, 8 or 16: the powers of two in range */
		return !(*v & (*v - 1));
	default:
		return true;
	}
}

/* What @sa accepts, for messages (a static buffer). */
static const char *store_attr_allowed(const struct store_attr *sa)
{
	static char buf[64];

	switch (sa->kind) {
	case ATTR_POW2:
		snprintf(buf, sizeof(buf), "a power of two up to %u", sa->max);
		break;
	case ATTR_SLOTS:
		snprintf(buf, sizeof(buf), "%u, %u or %u", sa->min,
			 2 * sa->min, sa->max);
		break;
	default:
		snprintf(buf, sizeof(buf), "%u..%u", sa->min, sa->max);
	}
	return buf;
}

static int fail_path(const char *what, const char *path, int err)
{
	err_msg("%s %s: %s", what, path, strerror(-err));
	return EXIT_FAIL;
}

static int cfg_mkdir(const char *path)
{
	if (verbose)
		fprintf(stderr, "  mkdir %s\n", path);
	if (mkdir(path, 0755) && errno != EEXIST)
		return fail_path("mkdir", path, -errno);
	return EXIT_OK;
}

static int cfg_write(const char *path, const char *val)
{
	int ret = write_file(path, val);

	if (ret) {
		err_msg("write '%s' to %s: %s", val, path, strerror(-ret));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Remove a configfs directory if present. */
static int cfg_rmdir(const char *path)
{
	if (verbose)
		fprintf(stderr, "  rmdir %s\n", path);
	if (rmdir(path) && errno != ENOENT)
		return fail_path("rmdir", path, -errno);
	return EXIT_OK;
}

/* True if @path reads back as exactly @val. */
static bool attr_is(const char *path, const char *val)
{
	char buf[512];

	return read_file(path, buf, sizeof(buf)) >= 0 && !strcmp(buf, val);
}

/* Compare a numeric attribute: "4096" vs 4096. */
static bool attr_num_is(const char *path, uint32_t val)
{
	char buf[64];
	uint32_t v;

	return read_file(path, buf, sizeof(buf)) >= 0 &&
	       !parse_u32(buf, 0, UINT32_MAX, &v) && v == val;
}

static bool configfs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return path_exists(CONFIGFS_ROOT "/nvmet") ||
		       path_exists(SCALIO_ROOT);
	while (fgets(line, sizeof(line), f)) {
		char dev[128], mnt[256], type[64];

		if (sscanf(line, "%127s %255s %63s", dev, mnt, type) == 3 &&
		    !strcmp(mnt, CONFIGFS_ROOT) && !strcmp(type, "configfs")) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

static void modprobe(const char *mod)
{
	char *argv[] = { "modprobe", (char *)mod, NULL };

	/* Already loaded, built in or not installed: the checks after tell. */
	run_cmd(argv, !verbose);
}

/*
 * Make configfs, nvmet (+ nvmet-rdma) and the scalio target available.
 * configfs must be modprobed before it can be mounted.
 */
static int prepare_target(void)
{
	if (!configfs_mounted()) {
		modprobe("configfs");
		if (verbose)
			fprintf(stderr, "  mount -t configfs configfs %s\n",
				CONFIGFS_ROOT);
		if (mount("configfs", CONFIGFS_ROOT, "configfs", 0, NULL) &&
		    errno != EBUSY)
			return fail_path("mount configfs on", CONFIGFS_ROOT,
					 -errno);
	}
	if (!path_exists(NVMET_ROOT))
		modprobe("nvmet");
	if (!path_exists("/sys/module/nvmet_rdma"))
		modprobe("nvmet-rdma");
	if (!path_exists(NVMET_ROOT)) {
		err_msg("%s does not exist: nvmet is not available (modprobe nvmet failed)",
			NVMET_ROOT);
		return EXIT_FAIL;
	}
	if (!path_exists(STORES_ROOT)) {
		err_msg("%s does not exist: load scalio-target.ko first",
			STORES_ROOT);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int parse_store_opt(const char *cmd, const char *arg)
{
	if (!valid_store_name(arg))
		return usage_error(cmd, "invalid store name '%s' (1..%d chars of [A-Za-z0-9_.-])",
				   arg, SCALIO_NAME_MAX - 1);
	return EXIT_OK;
}

enum {
	OPT_STORE = 256, OPT_ADDR, OPT_PORT, OPT_NVME_PORT, OPT_ALLOW_HOST,
	OPT_HOSTS_FILE, OPT_FORMAT, OPT_FORCE_RECOVER, OPT_LEGACY_NS_UUID,
	OPT_NO_KEY, OPT_ATTR0,
};

#define DEFAULT_HOSTS_FILE	"/etc/scalio/allowed_hosts"

#define SCALIO_MAX_HOSTS_ARG	64	/* --allow-host options */

/*
 * The options of a command that takes only --store NAME, -v and -h.
 * Returns -1 to go on (*store set), else the exit status to return.
 */
static int parse_store_cmd(const char *cmd, int argc, char **argv,
			   const char **store)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, OPT_STORE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*store = NULL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_STORE:
			if (parse_store_opt(cmd, optarg))
				return EXIT_USAGE;
			*store = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			return print_command_help(cmd);
		default:
			return usage_error(cmd, "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (!*store)
		return usage_error(cmd, "--store NAME is required");
	return -1;
}

/*
 * One nvmet subsystem per SSD, namespace 1 = @dev, with the identifier
 * nsuuid.c gives it (@legacy: the form of older versions).  Reports
 * through @offload whether attr_offload could be turned on.
 */
static int setup_subsystem(const char *nqn, const char *dev, bool legacy,
			   int *offload)
{
	char sub[PATH_MAX], ns[PATH_MAX], p[PATH_MAX];
	int ret;

	pathf(sub, NVMET_ROOT "/subsystems/%s", nqn);
	ret = cfg_mkdir(sub);
	if (ret)
		return ret;
	/* Nobody by default: hosts are admitted by NQN (allow-host). */
	pathf(p, "%s/attr_allow_any_host", sub);
	if (!attr_is(p, "0")) {
		ret = cfg_write(p, "0");
		if (ret)
			return ret;
	}
	pathf(p, "%s/attr_offload", sub);
	if (path_exists(p)) {
		ret = attr_is(p, "1") ? 0 : write_file(p, "1");
		if (!ret) {
			if (*offload < 0)
				*offload = 1;
		} else {
			fprintf(stderr, "%s: warning: %s: cannot enable: %s\n",
				progname, p, strerror(-ret));
			*offload = 0;
		}
	} else {
		*offload = 0;
	}

	pathf(ns, "%s/namespaces/" NVMET_NSID, sub);
	ret = cfg_mkdir(ns);
	if (ret)
		return ret;
	pathf(p, "%s/device_path", ns);
	if (attr_is(p, dev)) {
		pathf(p, "%s/enable", ns);
		if (attr_is(p, "1"))
			return EXIT_OK;		/* re-used as it is */
	} else {
		pathf(p, "%s/enable", ns);
		if (attr_is(p, "1")) {
			ret = cfg_write(p, "0");
			if (ret)
				return ret;
		}
		pathf(p, "%s/device_path", ns);
		ret = cfg_write(p, dev);
		if (ret)
			return ret;
	}
	pathf(p, "%s/device_uuid", ns);
	if (path_exists(p)) {
		char uuid[NS_UUID_LEN], cur[64];

		if (read_file(p, cur, sizeof(cur)) < 0)
			cur[0] = '\0';
		ns_uuid_choose(nqn, legacy, cur, uuid);
		if (strcmp(cur, uuid)) {
			ret = cfg_write(p, uuid);
			if (ret)
				return ret;
		}
	}
	pathf(p, "%s/enable", ns);
	return cfg_write(p, "1");
}

/* Number of entries (other than . and ..) in a directory; -1 if absent. */
static int dir_entries(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* nvmet port 1 on @addr:@svc over RDMA. */
static int setup_port(const char *addr, uint32_t svc)
{
	const char *adrfam = strchr(addr, ':') ? "ipv6" : "ipv4";
	char port[PATH_MAX], p[PATH_MAX], svcs[16];
	bool same;
	int ret;

	snprintf(svcs, sizeof(svcs), "%u", svc);
	pathf(port, NVMET_ROOT "/ports/" NVMET_PORT_ID);
	ret = cfg_mkdir(port);
	if (ret)
		return ret;

	pathf(p, "%s/addr_trtype", port);
	same = attr_is(p, "rdma");
	pathf(p, "%s/addr_adrfam", port);
	same = same && attr_is(p, adrfam);
	pathf(p, "%s/addr_traddr", port);
	same = same && attr_is(p, addr);
	pathf(p, "%s/addr_trsvcid", port);
	same = same && attr_is(p, svcs);
	if (same)
		return EXIT_OK;

	/* nvmet refuses address changes while subsystems are linked. */
	pathf(p, "%s/subsystems", port);
	if (dir_entries(p) > 0) {
		char cur[128] = "?", cursvc[16] = "?";

		pathf(p, "%s/addr_traddr", port);
		read_file(p, cur, sizeof(cur));
		pathf(p, "%s/addr_trsvcid", port);
		read_file(p, cursvc, sizeof(cursvc));
		err_msg("nvmet port %s is in use with address %s:%s; tear it down first (scalioctl target-teardown)",
			port, cur, cursvc);
		return EXIT_FAIL;
	}
	pathf(p, "%s/addr_trtype", port);
	ret = cfg_write(p, "rdma");
	if (ret)
		return ret;
	pathf(p, "%s/addr_adrfam", port);
	ret = cfg_write(p, adrfam);
	if (ret)
		return ret;
	pathf(p, "%s/addr_traddr", port);
	ret = cfg_write(p, addr);
	if (ret)
		return ret;
	pathf(p, "%s/addr_trsvcid", port);
	return cfg_write(p, svcs);
}

static int link_subsystem(const char *nqn)
{
	char sub[PATH_MAX], link[PATH_MAX];

	pathf(sub, NVMET_ROOT "/subsystems/%s", nqn);
	pathf(link, NVMET_ROOT "/ports/" NVMET_PORT_ID "/subsystems/%s", nqn);
	if (verbose)
		fprintf(stderr, "  ln -s %s %s\n", sub, link);
	if (symlink(sub, link) && errno != EEXIST) {
		int e = errno;

		err_msg("link %s into nvmet port " NVMET_PORT_ID ": %s%s", nqn,
			strerror(e), e == EINVAL ?
			" (is nvmet-rdma loaded and the address configured on an RDMA device?)" :
			"");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* ---- hosts: scalio allowed_hosts and nvmet hosts, kept in step ---- */

/* Remove nvmet host @nqn unless a subsystem still links it. */
static void nvmet_host_put(const char *nqn)
{
	char p[PATH_MAX];

	pathf(p, NVMET_ROOT "/hosts/%s", nqn);
	/* configfs refuses (EBUSY) while a link points at it: fine. */
	if (rmdir(p) == 0 && verbose)
		fprintf(stderr, "  rmdir %s\n", p);
}

/* The nvmet subsystem NQNs of @store's SSDs (from its configuration). */
static int store_subsystems(const char *store,
			    char (*nqns)[SCALIO_NQN_MAX], int max)
{
	char p[PATH_MAX];
	int i, n = 0;

	for (i = 0; i < SCALIO_MAX_SSDS && n < max; i++) {
		pathf(p, STORES_ROOT "/%s/ssds/%d/nqn", store, i);
		if (read_file(p, nqns[n], SCALIO_NQN_MAX) > 0 && nqns[n][0])
			n++;
	}
	return n;
}

/* nvmet: host @hostnqn exists and is in every subsystem's allowed_hosts. */
static int nvmet_allow(const char *store, const char *hostnqn)
{
	char subs[SCALIO_MAX_SSDS][SCALIO_NQN_MAX];
	char host[PATH_MAX], link[PATH_MAX];
	int i, n, ret;

	pathf(host, NVMET_ROOT "/hosts/%s", hostnqn);
	ret = cfg_mkdir(host);
	if (ret)
		return ret;
	n = store_subsystems(store, subs, SCALIO_MAX_SSDS);
	for (i = 0; i < n; i++) {
		pathf(link, NVMET_ROOT "/subsystems/%s/allowed_hosts/%s",
		      subs[i], hostnqn);
		if (verbose)
			fprintf(stderr, "  ln -s %s %s\n", host, link);
		if (symlink(host, link) && errno != EEXIST)
			return fail_path("link host into", link, -errno);
	}
	return EXIT_OK;
}

/*
 * Whether this kernel's nvmet has NVMe in-band authentication
 * (CONFIG_NVME_TARGET_AUTH): its host entries have dhchap_key.  Looked
 * at on any host entry, else on a probe entry made and removed here.
 */
static bool nvmet_has_auth(void)
{
	static int known = -1;
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (known >= 0)
		return known;
	d = opendir(NVMET_ROOT "/hosts");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		pathf(p, NVMET_ROOT "/hosts/%s/dhchap_key", de->d_name);
		known = path_exists(p);
		break;
	}
	if (d)
		closedir(d);
	if (known < 0) {
		pathf(p, NVMET_ROOT "/hosts/nqn.2014-08.io.scalio:auth-probe");
		if (mkdir(p, 0755) && errno != EEXIST)
			return false;	/* cannot tell: as without it */
		pathf(p, NVMET_ROOT "/hosts/nqn.2014-08.io.scalio:auth-probe/dhchap_key");
		known = path_exists(p);
		pathf(p, NVMET_ROOT "/hosts/nqn.2014-08.io.scalio:auth-probe");
		rmdir(p);
	}
	return known;
}

/* The loud line of a kernel without nvmet authentication, once. */
static void warn_no_auth(void)
{
	static bool said;

	if (said)
		return;
	said = true;
	fprintf(stderr, "%s: WARNING: this kernel's nvmet has no NVMe in-band authentication (no %s/hosts/*/dhchap_key): the SSD subsystems admit hosts by NQN alone, anyone on the NVMe-oF port's network who knows an allowed NQN can read and write the raw SSDs: fence that port (Documentation/admin-guide.rst, \"The SSDs\")\n",
		progname, NVMET_ROOT);
}

/* Write secret @val to @path (never printed, not even with -v). */
static int put_key(const char *path, const char *val)
{
	int ret = write_file(path, val);

	if (ret) {
		err_msg("write a key to %s: %s", path, strerror(-ret));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/*
 * nvmet host @hostnqn (made if absent) authenticates with the NVMe
 * DH-HMAC-CHAP keys of @secret (dhchap.c), both ways: the host proves
 * dhchap_key, nvmet proves dhchap_ctrl_key; HMAC-SHA256, no DH group.
 * *@changed tells whether the keys differ from what nvmet had (then its
 * existing controllers were admitted with other keys, or none).  On a
 * kernel without nvmet authentication, only the loud warning.
 */
static int nvmet_set_keys(const char *hostnqn, const uint8_t *secret,
			  uint32_t len, bool *changed)
{
	static const char * const names[] = { "dhchap_key", "dhchap_ctrl_key" };
	char keys[2][DHCHAP_KEY_LEN], host[PATH_MAX], p[PATH_MAX];
	char cur[256];
	int i, ret;

	*changed = false;
	pathf(host, NVMET_ROOT "/hosts/%s", hostnqn);
	ret = cfg_mkdir(host);
	if (ret)
		return ret;
	if (!nvmet_has_auth()) {
		warn_no_auth();
		return EXIT_OK;
	}
	pathf(p, "%s/dhchap_hash", host);
	if (!attr_is(p, "hmac(sha256)") && cfg_write(p, "hmac(sha256)"))
		return EXIT_FAIL;
	pathf(p, "%s/dhchap_dhgroup", host);
	if (path_exists(p) && !attr_is(p, "null") && cfg_write(p, "null"))
		return EXIT_FAIL;
	dhchap_keys(secret, len, keys[0], keys[1]);
	ret = EXIT_OK;
	for (i = 0; i < 2 && !ret; i++) {
		pathf(p, "%s/%s", host, names[i]);
		if (read_file(p, cur, sizeof(cur)) >= 0 && !strcmp(cur, keys[i]))
			continue;
		*changed = true;
		if (verbose)
			fprintf(stderr, "  write %s = (key)\n", p);
		ret = put_key(p, keys[i]);
	}
	memset(keys, 0, sizeof(keys));
	memset(cur, 0, sizeof(cur));
	return ret;
}

/*
 * Drop every nvmet controller of @store's SSD subsystems: nvmet deletes a
 * subsystem's controllers on a port when the subsystem is unlinked from
 * it (nvmet_port_subsys_drop_link(): nvmet_port_del_ctrls()), on 6.1 and
 * 6.12 alike; it is linked again at once.  nvmet offers nothing finer
 * (no per-host or per-controller drop in configfs; its debugfs "state" is
 * not built in Debian's kernels, CONFIG_NVME_TARGET_DEBUGFS unset), so
 * every host of these subsystems loses its controllers: admitted ones
 * reconnect, authenticating again, after their reconnect_delay (10 s by
 * default); a denied host's reconnects are refused.
 */
static int nvmet_kick(const char *store)
{
	char subs[SCALIO_MAX_SSDS][SCALIO_NQN_MAX];
	char sub[PATH_MAX], link[PATH_MAX];
	int i, n, ret = EXIT_OK;
	struct dirent *de;
	DIR *d;

	n = store_subsystems(store, subs, SCALIO_MAX_SSDS);
	d = opendir(NVMET_ROOT "/ports");
	if (!d)
		return EXIT_OK;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < n; i++) {
			pathf(link, NVMET_ROOT "/ports/%s/subsystems/%s",
			      de->d_name, subs[i]);
			if (unlink(link)) {
				if (errno != ENOENT)
					ret = fail_path("unlink", link, -errno);
				continue;
			}
			if (verbose)
				fprintf(stderr, "  rm %s; ln -s again\n", link);
			pathf(sub, NVMET_ROOT "/subsystems/%s", subs[i]);
			if (symlink(sub, link) && errno != EEXIST)
				ret = fail_path("link again", link, -errno);
		}
	}
	closedir(d);
	return ret;
}

static int nvmet_deny(const char *store, const char *hostnqn)
{
	char subs[SCALIO_MAX_SSDS][SCALIO_NQN_MAX];
	char link[PATH_MAX];
	int i, n, ret = EXIT_OK;

	n = store_subsystems(store, subs, SCALIO_MAX_SSDS);
	for (i = 0; i < n; i++) {
		pathf(link, NVMET_ROOT "/subsystems/%s/allowed_hosts/%s",
		      subs[i], hostnqn);
		if (verbose)
			fprintf(stderr, "  rm %s\n", link);
		if (unlink(link) && errno != ENOENT)
			ret = fail_path("unlink", link, -errno);
	}
	nvmet_host_put(hostnqn);
	return ret;
}

/* Give every host of the store's allowed_hosts access to its SSDs too. */
static int nvmet_sync_hosts(const char *store)
{
	char dir[PATH_MAX];
	struct dirent *de;
	int ret = EXIT_OK;
	DIR *d;

	pathf(dir, STORES_ROOT "/%s/allowed_hosts", store);
	d = opendir(dir);
	if (!d)
		return EXIT_OK;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && nvmet_allow(store, de->d_name))
			ret = EXIT_FAIL;
	closedir(d);
	return ret;
}

/*
 * scalio: allowed_hosts/<nqn>, with its secret when @key_file is given;
 * nvmet: host <nqn> with the NVMe keys of that secret (nvmet_set_keys()).
 * Sets *@kick when nvmet's keys changed: the store's nvmet controllers
 * are to be dropped (nvmet_kick()) once the host is linked.
 */
static int store_allow(const char *store, const char *hostnqn,
		       const char *key_file, bool *kick)
{
	char p[PATH_MAX];
	uint8_t secret[SCALIO_SECRET_MAX + 1];
	uint32_t len = 0;
	bool changed = false;
	int ret;

	if (key_file && read_secret(key_file, secret, &len))
		return EXIT_FAIL;
	pathf(p, STORES_ROOT "/%s/allowed_hosts/%s", store, hostnqn);
	ret = cfg_mkdir(p);
	if (ret || !key_file)
		goto out;
	secret[len] = '\0';
	pathf(p, STORES_ROOT "/%s/allowed_hosts/%s/dhchap_key", store,
	      hostnqn);
	ret = write_file(p, (char *)secret);
	if (ret) {
		err_msg("set the secret of %s: %s", p, strerror(-ret));
		ret = EXIT_FAIL;
		goto out;
	}
	ret = nvmet_set_keys(hostnqn, secret, len, &changed);
	if (changed && kick)
		*kick = true;
out:
	memset(secret, 0, sizeof(secret));
	return ret;
}

/*
 * The operator's admission list: one host per line, "NQN [KEYFILE]";
 * blank lines and '#' comments are skipped.  Every host gets an
 * allowed_hosts entry, with its secret when a key file is named.
 */
static int store_allow_file(const char *store, const char *path, bool *kick)
{
	char line[SCALIO_NQN_MAX + PATH_MAX + 4];
	char nqn[SCALIO_NQN_MAX], key[PATH_MAX];
	int n, lineno = 0, ret = EXIT_OK;
	FILE *f = fopen(path, "re");

	if (!f) {
		err_msg("cannot read the hosts file %s: %s", path,
			strerror(errno));
		return EXIT_FAIL;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		lineno++;
		n = sscanf(line, "%223s %4095s", nqn, key);
		if (n < 1 || nqn[0] == '#')
			continue;
		if (!valid_nqn(nqn)) {
			err_msg("%s:%d: '%s' is not a valid NQN", path, lineno,
				nqn);
			ret = EXIT_FAIL;
			break;
		}
		if (n < 2)
			err_msg("warning: %s:%d: host %s has no KEYFILE: admitted by its NQN alone",
				path, lineno, nqn);
		ret = store_allow(store, nqn, n == 2 ? key : NULL, kick);
	}
	fclose(f);
	return ret;
}

static int parse_host_cmd(const char *cmd, int argc, char **argv,
			  const char **store, const char **hostnqn,
			  const char **key_file, bool *no_key)
{
	static const struct option opts[] = {
		{ "key-file", required_argument, NULL, 'k' },
		{ "no-key", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (!key_file)
				return usage_error(cmd, "unknown option '--key-file'");
			*key_file = optarg;
			break;
		case 'n':
			if (!no_key)
				return usage_error(cmd, "unknown option '--no-key'");
			*no_key = true;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			return print_command_help(cmd);
		default:
			return usage_error(cmd, "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return usage_error(cmd, "expected STORE and host NQN");
	*store = argv[optind];
	*hostnqn = argv[optind + 1];
	if (parse_store_opt(cmd, *store))
		return EXIT_USAGE;
	if (!valid_nqn(*hostnqn))
		return usage_error(cmd, "'%s' is not a valid NQN", *hostnqn);
	/* Admitting by NQN alone must be asked for, not a default. */
	if (no_key && *key_file && *no_key)
		return usage_error(cmd, "--key-file and --no-key exclude each other");
	if (no_key && !*key_file && !*no_key)
		return usage_error(cmd, "give the host's secret (--key-file FILE), or --no-key to admit it by its NQN alone (anyone who knows the NQN gets in)");
	return -1;
}

int cmd_allow_host(int argc, char **argv)
{
	const char *store, *hostnqn, *key_file = NULL;
	char dir[PATH_MAX];
	bool no_key = false, kick = false;
	int ret;

	ret = parse_host_cmd("allow-host", argc, argv, &store, &hostnqn,
			     &key_file, &no_key);
	if (ret >= 0)
		return ret;
	pathf(dir, STORES_ROOT "/%s", store);
	if (!path_exists(dir)) {
		err_msg("store '%s' does not exist (%s)", store, dir);
		return EXIT_FAIL;
	}
	ret = store_allow(store, hostnqn, key_file, &kick);
	if (ret)
		return ret;
	ret = nvmet_allow(store, hostnqn);
	if (ret)
		return ret;
	/* A changed key: controllers admitted with the old one (or none) go. */
	if (kick) {
		ret = nvmet_kick(store);
		if (ret)
			return ret;
	}
	info_msg("store %s: host %s allowed%s (scalio and nvmet%s)", store,
		 hostnqn, key_file ? " with a secret" :
		 " by its NQN alone (--no-key: no secret)",
		 !key_file ? "" : nvmet_has_auth() ?
		 ": DH-HMAC-CHAP, both ways" : ": no NVMe authentication on this kernel");
	if (kick)
		info_msg("store %s: nvmet keys of %s changed: every controller of the store's SSDs was dropped, admitted hosts reconnect",
			 store, hostnqn);
	return EXIT_OK;
}

int cmd_deny_host(int argc, char **argv)
{
	const char *store, *hostnqn;
	char p[PATH_MAX];
	int ret;

	ret = parse_host_cmd("deny-host", argc, argv, &store, &hostnqn, NULL,
			     NULL);
	if (ret >= 0)
		return ret;
	ret = nvmet_deny(store, hostnqn);
	pathf(p, STORES_ROOT "/%s/allowed_hosts/%s", store, hostnqn);
	if (cfg_rmdir(p))
		ret = EXIT_FAIL;
	/*
	 * nvmet keeps a denied host's controllers (allowed_hosts is checked
	 * at connect only): drop them all, the others reconnect.
	 */
	if (nvmet_kick(store))
		ret = EXIT_FAIL;
	if (!ret)
		info_msg("store %s: host %s denied (scalio and nvmet); its connections are dropped, and every nvmet controller of the store's SSDs (admitted hosts reconnect)",
			 store, hostnqn);
	return ret;
}

struct setup_args {
	const char *store, *addr;
	uint32_t port, nvme_port;
	bool attr_set[NR_STORE_ATTRS];
	uint32_t attr_val[NR_STORE_ATTRS];
	char **devs;
	int nr_devs;
	const char *hosts[SCALIO_MAX_HOSTS_ARG];
	int nr_hosts;
	const char *hosts_file;
	bool format, force_recover, legacy_ns_uuid, no_key;
};

/* Does the enabled store @dir already run exactly the requested setup? */
static bool store_matches(const char *dir, const struct setup_args *a)
{
	char p[PATH_MAX], nqn[SCALIO_NQN_MAX];
	size_t i;
	int n;

	pathf(p, "%s/addr_traddr", dir);
	if (!attr_is(p, a->addr))
		return false;
	pathf(p, "%s/addr_trsvcid", dir);
	if (!attr_num_is(p, a->port))
		return false;
	for (i = 0; i < NR_STORE_ATTRS; i++) {
		if (!a->attr_set[i])
			continue;
		pathf(p, "%s/%s", dir, store_attrs[i].file);
		if (!attr_num_is(p, a->attr_val[i]))
			return false;
	}
	pathf(p, "%s/ssds", dir);
	if (dir_entries(p) != a->nr_devs)
		return false;
	for (n = 0; n < a->nr_devs; n++) {
		subsys_nqn(nqn, sizeof(nqn), a->store, n);
		pathf(p, "%s/ssds/%d/device_path", dir, n);
		if (!attr_is(p, a->devs[n]))
			return false;
		pathf(p, "%s/ssds/%d/nqn", dir, n);
		if (!attr_is(p, nqn))
			return false;
		pathf(p, "%s/ssds/%d/nsid", dir, n);
		if (!attr_is(p, NVMET_NSID))
			return false;
	}
	return true;
}

/* One-shot actions of the next enable (attr_format_on_enable ...). */
static int set_actions(const char *dir, const struct setup_args *a)
{
	static const char * const names[] = {
		"attr_format_on_enable", "attr_force_recover",
	};
	bool want[] = { a->format, a->force_recover };
	char p[PATH_MAX];
	size_t i;
	int ret;

	for (i = 0; i < 2; i++) {
		pathf(p, "%s/%s", dir, names[i]);
		if (!path_exists(p)) {
			if (!want[i])
				continue;
			err_msg("%s does not exist: this scalio-target is too old for --%s",
				p, i ? "force-recover" : "format");
			return EXIT_FAIL;
		}
		ret = cfg_write(p, want[i] ? "1" : "0");
		if (ret)
			return ret;
	}
	return EXIT_OK;
}

/*
 * Copy the lines of the store attribute @attr in @dir to @out: every line
 * after "scalioctl: report: " (@report), or only its "ssd<i> ..." lines
 * as they are.
 */
static void print_attr_lines(const char *dir, const char *attr, bool report,
			     FILE *out)
{
	char p[PATH_MAX], line[512];
	FILE *f;

	pathf(p, "%s/%s", dir, attr);
	f = fopen(p, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (report)
			fprintf(out, "%s: report: %s", progname, line);
		else if (!strncmp(line, "ssd", 3) && isdigit((unsigned char)line[3]))
			fputs(line, out);
	}
	fclose(f);
}

/* Print what the store's last enable found (repairs, refusals, drops). */
static void print_report(const char *dir)
{
	print_attr_lines(dir, "report", true, stderr);
}

/* Say why enabling failed, from the errno of the enable write. */
static void enable_failed(const char *store, int err)
{
	const char *why;

	switch (-err) {
	case ENODATA:
		why = "an SSD holds no scalio store; --format creates one (it destroys what the SSDs hold)";
		break;
	case EUCLEAN:
		why = "the store is damaged (see the report); nothing was formatted. If the report says batches would be lost, --force-recover drops them and lists what was lost";
		break;
	case EINVAL:
		why = "an SSD belongs to another store or geometry, or the configuration is invalid (see dmesg)";
		break;
	case ENOMEM:
		why = "not enough memory for this geometry (--nblocks, --nbuckets, --slots)";
		break;
	default:
		why = "see dmesg";
	}
	err_msg("store %s could not be enabled: %s: %s", store, strerror(-err),
		why);
}

static int setup_store(const struct setup_args *a)
{
	char dir[PATH_MAX], p[PATH_MAX], nqn[SCALIO_NQN_MAX], num[16];
	size_t i;
	int ret, n;

	pathf(dir, STORES_ROOT "/%s", a->store);
	ret = cfg_mkdir(dir);
	if (ret)
		return ret;
	pathf(p, "%s/enable", dir);
	if (attr_is(p, "1")) {
		if (!a->format && store_matches(dir, a)) {
			info_msg("store %s: already enabled with this configuration, re-used",
				 a->store);
			return EXIT_OK;
		}
		info_msg("store %s: enabled with another configuration, re-configuring",
			 a->store);
		ret = cfg_write(p, "0");
		if (ret)
			return ret;
	}

	for (n = 0; n < a->nr_devs; n++) {
		subsys_nqn(nqn, sizeof(nqn), a->store, n);
		pathf(p, "%s/ssds/%d", dir, n);
		ret = cfg_mkdir(p);
		if (ret)
			return ret;
		pathf(p, "%s/ssds/%d/device_path", dir, n);
		ret = cfg_write(p, a->devs[n]);
		if (ret)
			return ret;
		pathf(p, "%s/ssds/%d/nqn", dir, n);
		ret = cfg_write(p, nqn);
		if (ret)
			return ret;
		pathf(p, "%s/ssds/%d/nsid", dir, n);
		ret = cfg_write(p, NVMET_NSID);
		if (ret)
			return ret;
	}
	/* SSDs left over from a larger earlier setup (kept contiguous). */
	for (n = SCALIO_MAX_SSDS - 1; n >= a->nr_devs; n--) {
		pathf(p, "%s/ssds/%d", dir, n);
		if (path_exists(p)) {
			ret = cfg_rmdir(p);
			if (ret)
				return ret;
		}
	}

	for (i = 0; i < NR_STORE_ATTRS; i++) {
		if (!a->attr_set[i])
			continue;
		pathf(p, "%s/%s", dir, store_attrs[i].file);
		snprintf(num, sizeof(num), "%u", a->attr_val[i]);
		ret = cfg_write(p, num);
		if (ret)
			return ret;
	}
	pathf(p, "%s/addr_traddr", dir);
	ret = cfg_write(p, a->addr);
	if (ret)
		return ret;
	pathf(p, "%s/addr_trsvcid", dir);
	snprintf(num, sizeof(num), "%u", a->port);
	ret = cfg_write(p, num);
	if (ret)
		return ret;

	ret = set_actions(dir, a);
	if (ret)
		return ret;
	pathf(p, "%s/enable", dir);
	ret = write_file(p, "1");
	print_report(dir);
	if (ret) {
		enable_failed(a->store, ret);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

#define SETUP_FIXED_OPTS	12	/* named in cmd_target_setup()'s opts */

int cmd_target_setup(int argc, char **argv)
{
	/* the fixed options, then one per store attribute, then the end */
	struct option opts[SETUP_FIXED_OPTS + NR_STORE_ATTRS + 1] = {
		{ "store", required_argument, NULL, OPT_STORE },
		{ "addr", required_argument, NULL, OPT_ADDR },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "nvme-port", required_argument, NULL, OPT_NVME_PORT },
		{ "format", no_argument, NULL, OPT_FORMAT },
		{ "force-recover", no_argument, NULL, OPT_FORCE_RECOVER },
		{ "legacy-ns-uuid", no_argument, NULL, OPT_LEGACY_NS_UUID },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
		{ "hosts-file", required_argument, NULL, OPT_HOSTS_FILE },
		{ "no-key", no_argument, NULL, OPT_NO_KEY },
	};
	struct setup_args a = {
		.port = SCALIO_DEFAULT_PORT, .nvme_port = NVME_DEFAULT_PORT,
	};
	char nqn[SCALIO_NQN_MAX];
	int c, i, ret, offload = -1;
	bool kick = false;
	struct stat st;
	size_t k;

	for (k = 0; k < NR_STORE_ATTRS; k++) {
		opts[SETUP_FIXED_OPTS + k].name = store_attrs[k].opt;
		opts[SETUP_FIXED_OPTS + k].has_arg = required_argument;
		opts[SETUP_FIXED_OPTS + k].val = OPT_ATTR0 + (int)k;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_STORE:
			if (parse_store_opt("target-setup", optarg))
				return EXIT_USAGE;
			a.store = optarg;
			break;
		case OPT_ADDR:
			if (!valid_ip_literal(optarg))
				return usage_error("target-setup",
						   "--addr '%s' is not an IPv4 or IPv6 address",
						   optarg);
			a.addr = optarg;
			break;
		case OPT_PORT:
			if (parse_u32(optarg, 1, 65535, &a.port))
				return usage_error("target-setup",
						   "--port must be 1..65535");
			break;
		case OPT_NVME_PORT:
			if (parse_u32(optarg, 1, 65535, &a.nvme_port))
				return usage_error("target-setup",
						   "--nvme-port must be 1..65535");
			break;
		case OPT_ALLOW_HOST:
			if (!valid_nqn(optarg))
				return usage_error("target-setup",
						   "--allow-host '%s' is not a valid NQN",
						   optarg);
			if (a.nr_hosts == SCALIO_MAX_HOSTS_ARG)
				return usage_error("target-setup",
						   "at most %d --allow-host",
						   SCALIO_MAX_HOSTS_ARG);
			a.hosts[a.nr_hosts++] = optarg;
			break;
		case OPT_HOSTS_FILE:
			a.hosts_file = optarg;
			break;
		case OPT_NO_KEY:
			a.no_key = true;
			break;
		case OPT_FORMAT:
			a.format = true;
			break;
		case OPT_LEGACY_NS_UUID:
			a.legacy_ns_uuid = true;
			break;
		case OPT_FORCE_RECOVER:
			a.force_recover = true;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			return print_command_help("target-setup");
		default:
			if (c >= OPT_ATTR0 && c < OPT_ATTR0 + (int)NR_STORE_ATTRS) {
				const struct store_attr *sa = &store_attrs[c - OPT_ATTR0];
				uint32_t v;

				if (!store_attr_ok(sa, optarg, &v))
					return usage_error("target-setup",
							   "--%s must be %s (got '%s')",
							   sa->opt,
							   store_attr_allowed(sa),
							   optarg);
				a.attr_set[c - OPT_ATTR0] = true;
				a.attr_val[c - OPT_ATTR0] = v;
				break;
			}
			return usage_error("target-setup", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (!a.store)
		return usage_error("target-setup", "--store NAME is required");
	if (!a.addr)
		return usage_error("target-setup", "--addr IP is required");
	if (a.nr_hosts && !a.no_key)
		return usage_error("target-setup",
				   "--allow-host admits by NQN alone (anyone who knows the NQN gets in): add --no-key to mean it, or list the host with its KEYFILE in --hosts-file");
	a.devs = argv + optind;
	a.nr_devs = argc - optind;
	if (a.nr_devs < 1 || a.nr_devs > SCALIO_MAX_SSDS)
		return usage_error("target-setup", "give 1..%d SSD devices (got %d)",
				   SCALIO_MAX_SSDS, a.nr_devs);
	for (i = 0; i < a.nr_devs; i++) {
		if (a.devs[i][0] != '/' ||
		    strlen(a.devs[i]) >= SCALIO_PATH_MAX)
			return usage_error("target-setup",
					   "DEV '%s' must be an absolute path shorter than %d",
					   a.devs[i], SCALIO_PATH_MAX);
		if (stat(a.devs[i], &st))
			return fail_path("stat", a.devs[i], -errno);
		if (!S_ISBLK(st.st_mode)) {
			err_msg("%s is not a block device", a.devs[i]);
			return EXIT_FAIL;
		}
	}

	ret = prepare_target();
	if (ret)
		return ret;
	for (i = 0; i < a.nr_devs; i++) {
		subsys_nqn(nqn, sizeof(nqn), a.store, (unsigned int)i);
		ret = setup_subsystem(nqn, a.devs[i], a.legacy_ns_uuid,
				      &offload);
		if (ret)
			return ret;
	}
	ret = setup_port(a.addr, a.nvme_port);
	if (ret)
		return ret;
	for (i = 0; i < a.nr_devs; i++) {
		subsys_nqn(nqn, sizeof(nqn), a.store, (unsigned int)i);
		ret = link_subsystem(nqn);
		if (ret)
			return ret;
		info_msg("nvmet: %s = %s on rdma %s:%u", nqn, a.devs[i], a.addr,
			 a.nvme_port);
	}
	info_msg("nvmet offload: %s",
		 offload == 1 ? "on" : "unavailable (CPU path)");

	ret = setup_store(&a);
	if (ret)
		return ret;
	for (i = 0; i < a.nr_hosts; i++) {
		ret = store_allow(a.store, a.hosts[i], NULL, &kick);
		if (ret)
			return ret;
	}
	if (!a.hosts_file && path_exists(DEFAULT_HOSTS_FILE))
		a.hosts_file = DEFAULT_HOSTS_FILE;
	if (a.hosts_file) {
		ret = store_allow_file(a.store, a.hosts_file, &kick);
		if (ret)
			return ret;
	}
	/* nvmet admits exactly the store's hosts, old and new. */
	ret = nvmet_sync_hosts(a.store);
	if (ret)
		return ret;
	if (kick) {
		ret = nvmet_kick(a.store);
		if (ret)
			return ret;
	}
	if (nvmet_has_auth())
		info_msg("nvmet: in-band authentication: hosts with a key file authenticate to the SSDs by DH-HMAC-CHAP, both ways");
	else
		warn_no_auth();
	info_msg("store %s: enabled, %d SSD(s), listening on %s:%u", a.store,
		 a.nr_devs, a.addr, a.port);
	return EXIT_OK;
}

/* Remove nvmet subsystem @nqn: unlink it from every port, drop its namespaces. */
static int remove_subsystem(const char *nqn)
{
	char sub[PATH_MAX], p[PATH_MAX];
	struct dirent *de;
	int ret = EXIT_OK;
	DIR *d;

	d = opendir(NVMET_ROOT "/ports");
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			pathf(p, NVMET_ROOT "/ports/%s/subsystems/%s",
				 de->d_name, nqn);
			if (!path_exists(p))
				continue;
			if (verbose)
				fprintf(stderr, "  rm %s\n", p);
			if (unlink(p) && errno != ENOENT)
				ret = fail_path("unlink", p, -errno);
		}
		closedir(d);
	}

	/* Host links go before the subsystem can. */
	pathf(sub, NVMET_ROOT "/subsystems/%s/allowed_hosts", nqn);
	d = opendir(sub);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			pathf(p, "%s/%s", sub, de->d_name);
			if (unlink(p) && errno != ENOENT)
				ret = fail_path("unlink", p, -errno);
			nvmet_host_put(de->d_name);
		}
		closedir(d);
	}

	pathf(sub, NVMET_ROOT "/subsystems/%s/namespaces", nqn);
	d = opendir(sub);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			pathf(p, "%s/%s/enable", sub, de->d_name);
			if (attr_is(p, "1") && cfg_write(p, "0"))
				ret = EXIT_FAIL;
			pathf(p, "%s/%s", sub, de->d_name);
			if (cfg_rmdir(p))
				ret = EXIT_FAIL;
		}
		closedir(d);
	}
	pathf(sub, NVMET_ROOT "/subsystems/%s", nqn);
	if (cfg_rmdir(sub))
		ret = EXIT_FAIL;
	return ret;
}

/* rmdir every allowed_hosts/<nqn> of the store directory @dir. */
static int remove_store_hosts(const char *dir)
{
	char hosts[PATH_MAX], p[PATH_MAX];
	struct dirent *de;
	int ret = EXIT_OK;
	DIR *d;

	pathf(hosts, "%s/allowed_hosts", dir);
	d = opendir(hosts);
	if (!d)
		return EXIT_OK;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		pathf(p, "%s/%s", hosts, de->d_name);
		if (cfg_rmdir(p))
			ret = EXIT_FAIL;
	}
	closedir(d);
	return ret;
}

int cmd_target_teardown(int argc, char **argv)
{
	char nqns[SCALIO_MAX_SSDS * 2][SCALIO_NQN_MAX];
	char dir[PATH_MAX], p[PATH_MAX];
	const char *store = NULL;
	int i, n, nr_nqns = 0, ret;
	bool found = false;
	struct dirent *de;
	DIR *d;

	ret = parse_store_cmd("target-teardown", argc, argv, &store);
	if (ret >= 0)
		return ret;
	ret = EXIT_OK;
	if (optind != argc)
		return usage_error("target-teardown", "unexpected argument '%s'",
				   argv[optind]);
	if (!configfs_mounted()) {
		err_msg("configfs is not mounted on %s: nothing to tear down",
			CONFIGFS_ROOT);
		return EXIT_FAIL;
	}

	pathf(dir, STORES_ROOT "/%s", store);
	if (path_exists(dir)) {
		found = true;
		pathf(p, "%s/enable", dir);
		if (attr_is(p, "1") && cfg_write(p, "0"))
			return EXIT_FAIL;
		if (remove_store_hosts(dir))
			return EXIT_FAIL;
		for (n = SCALIO_MAX_SSDS - 1; n >= 0; n--) {
			pathf(p, "%s/ssds/%d/nqn", dir, n);
			if (nr_nqns < SCALIO_MAX_SSDS &&
			    read_file(p, nqns[nr_nqns], SCALIO_NQN_MAX) > 0)
				nr_nqns++;
			pathf(p, "%s/ssds/%d", dir, n);
			if (path_exists(p) && cfg_rmdir(p))
				return EXIT_FAIL;
		}
		if (cfg_rmdir(dir))
			return EXIT_FAIL;
		info_msg("store %s: disabled and removed", store);
	}

	d = opendir(NVMET_ROOT "/subsystems");
	if (d) {
		while ((de = readdir(d)) && nr_nqns < SCALIO_MAX_SSDS * 2)
			if (is_store_nqn(de->d_name, store) &&
			    strlen(de->d_name) < SCALIO_NQN_MAX)
				strcpy(nqns[nr_nqns++], de->d_name);
		closedir(d);
	}
	for (i = 0; i < nr_nqns; i++) {
		bool dup = false;

		for (n = 0; n < i; n++)
			dup = dup || !strcmp(nqns[n], nqns[i]);
		pathf(p, NVMET_ROOT "/subsystems/%s", nqns[i]);
		if (dup || !path_exists(p))
			continue;
		found = true;
		if (remove_subsystem(nqns[i]))
			ret = EXIT_FAIL;
		else
			info_msg("nvmet: %s removed", nqns[i]);
	}
	/* Port 1 is the one target-setup made; drop it once it is unused. */
	pathf(p, NVMET_ROOT "/ports/" NVMET_PORT_ID "/subsystems");
	if (dir_entries(p) == 0) {
		pathf(p, NVMET_ROOT "/ports/" NVMET_PORT_ID);
		if (cfg_rmdir(p))
			ret = EXIT_FAIL;
		else
			info_msg("nvmet: port " NVMET_PORT_ID " removed");
	}
	if (!found) {
		err_msg("store '%s': neither %s nor its nvmet subsystems exist",
			store, dir);
		return EXIT_FAIL;
	}
	return ret;
}

int cmd_target_set(int argc, char **argv)
{
	char dir[PATH_MAX], en[PATH_MAX], p[PATH_MAX];
	const char *store = NULL;
	bool was_enabled;
	int i, ret;

	ret = parse_store_cmd("target-set", argc, argv, &store);
	if (ret >= 0)
		return ret;
	ret = EXIT_OK;
	if (optind == argc)
		return usage_error("target-set", "give at least one ATTR=VALUE");

	pathf(dir, STORES_ROOT "/%s", store);
	if (!path_exists(dir)) {
		err_msg("store '%s' does not exist (%s)", store, dir);
		return EXIT_FAIL;
	}
	/* Check every ATTR before touching anything. */
	for (i = optind; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		size_t nlen = eq ? (size_t)(eq - argv[i]) : 0;

		if (!eq || nlen == 0)
			return usage_error("target-set", "'%s' is not ATTR=VALUE",
					   argv[i]);
		if (argv[i][0] == '/' || strstr(argv[i], "..") ||
		    (nlen == 6 && (!strncmp(argv[i], "enable", 6) ||
				   !strncmp(argv[i], "resume", 6))))
			return usage_error("target-set", "attribute '%.*s' cannot be set",
					   (int)nlen, argv[i]);
		pathf(p, "%s/%.*s", dir, (int)nlen, argv[i]);
		if (!path_exists(p)) {
			pathf(p, "%s/attr_%.*s", dir, (int)nlen,
				 argv[i]);
			if (!path_exists(p))
				return usage_error("target-set",
						   "store '%s' has no attribute '%.*s' (see %s/features)",
						   store, (int)nlen, argv[i], dir);
		}
	}

	pathf(en, "%s/enable", dir);
	was_enabled = attr_is(en, "1");
	if (was_enabled && cfg_write(en, "0"))
		return EXIT_FAIL;
	for (i = optind; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		int nlen = (int)(eq - argv[i]);

		pathf(p, "%s/%.*s", dir, nlen, argv[i]);
		if (!path_exists(p))
			pathf(p, "%s/attr_%.*s", dir, nlen, argv[i]);
		if (cfg_write(p, eq + 1)) {
			ret = EXIT_FAIL;
			break;
		}
		info_msg("store %s: %s = %s", store, strrchr(p, '/') + 1, eq + 1);
	}
	if (was_enabled) {
		if (cfg_write(en, "1")) {
			err_msg("store %s left disabled", store);
			return EXIT_FAIL;
		}
		info_msg("store %s: re-enabled", store);
	}
	return ret;
}

/* Print the store's "ssd<i> STATE" lines of its stats attribute. */
static void print_ssd_states(const char *dir)
{
	print_attr_lines(dir, "stats", false, stdout);
}

int cmd_target_resume(int argc, char **argv)
{
	char dir[PATH_MAX], p[PATH_MAX];
	const char *store = NULL;
	int ret;

	ret = parse_store_cmd("target-resume", argc, argv, &store);
	if (ret >= 0)
		return ret;
	if (optind != argc)
		return usage_error("target-resume", "unexpected argument '%s'",
				   argv[optind]);
	pathf(dir, STORES_ROOT "/%s", store);
	pathf(p, "%s/resume", dir);
	if (!path_exists(dir)) {
		err_msg("store '%s' does not exist (%s)", store, dir);
		return EXIT_FAIL;
	}
	if (!path_exists(p)) {
		err_msg("store '%s': the target module has no resume (%s)",
			store, p);
		return EXIT_FAIL;
	}
	pathf(p, "%s/enable", dir);
	if (!attr_is(p, "1")) {
		err_msg("store '%s' is not enabled", store);
		return EXIT_FAIL;
	}
	pathf(p, "%s/resume", dir);
	ret = write_file(p, "1");
	print_ssd_states(dir);
	if (ret) {
		err_msg("store %s: a failed SSD still fails its probe write (%s): writes stay refused",
			store, strerror(-ret));
		return EXIT_FAIL;
	}
	info_msg("store %s: every SSD takes writes", store);
	return EXIT_OK;
}
