// SPDX-License-Identifier: GPL-2.0
/*
 * scalioctl attach / detach: the client's side.  The host module does the
 * RDMA handshake; this tool connects each SSD's NVMe-oF subsystem with
 * nvme-cli, finds the resulting block device in sysfs and binds it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scalioctl.h"

#define SYS_NVME	"/sys/class/nvme"
#define SYS_NVME_SUBSYS	"/sys/class/nvme-subsystem"
#define CONNECT_WAIT_MS	20000	/* namespace scanning is asynchronous */
#define DEVNODE_WAIT_MS	5000
#define NVME_HOSTNQN	"/etc/nvme/hostnqn"
#define NVME_HOSTID	"/etc/nvme/hostid"
#define SCALIO_HOSTKEY	"/etc/scalio/hostkey"	/* default --key-file */

/* Who this host is, for the target's admission and for nvme connect. */
struct host_ident {
	char	nqn[SCALIO_NQN_MAX];	/* "" : the module's default */
	char	id[40];			/* UUID text, "" : none */
	struct scalio_attach_auth auth;
};

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static bool ctrl_usable(const char *ctrl)
{
	char p[PATH_MAX], state[64];

	pathf(p, SYS_NVME "/%s/state", ctrl);
	if (read_file(p, state, sizeof(state)) < 0)
		return true;	/* no state attribute: assume live */
	return strncmp(state, "deleting", 8) && strcmp(state, "dead");
}

/* Name of a connected, non-deleting controller of subsystem @nqn. */
static bool find_ctrl(const char *nqn, char *ctrl, size_t len)
{
	char p[PATH_MAX], buf[SCALIO_NQN_MAX];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(SYS_NVME);

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (strncmp(de->d_name, "nvme", 4))
			continue;
		pathf(p, SYS_NVME "/%s/subsysnqn", de->d_name);
		if (read_file(p, buf, sizeof(buf)) < 0 || strcmp(buf, nqn))
			continue;
		if (!ctrl_usable(de->d_name))
			continue;
		snprintf(ctrl, len, "%s", de->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

static bool nsid_is(const char *dir, uint32_t nsid)
{
	char p[PATH_MAX], buf[32];
	uint32_t v;

	pathf(p, "%s/nsid", dir);
	return read_file(p, buf, sizeof(buf)) > 0 &&
	       !parse_u32(buf, 0, UINT32_MAX, &v) && v == nsid;
}

/* /dev/<name> for a visible block device, if the node is there. */
static int devnode(const char *name, char *path, size_t len)
{
	char p[PATH_MAX];

	pathf(p, "/sys/block/%s", name);
	if (!path_exists(p))
		return -ENOENT;
	snprintf(path, len, "/dev/%s", name);
	return path_exists(path) ? 0 : -EAGAIN;
}

/**
 * find_nvme_blockdev() - block device of namespace @nsid of subsystem @nqn
 * @nqn:	subsystem NQN (the controller's subsysnqn attribute)
 * @nsid:	namespace id
 * @path:	out: /dev/nvmeXnY
 *
 * Without native multipath a controller nvmeX carries its namespaces as
 * nvmeXnY.  With it, the controller carries hidden path devices
 * nvmeScXnY and the visible head nvmeSnY hangs below the subsystem
 * nvme-subsysS; both layouts are searched.
 *
 * Return: 0, -ENOENT if not found (yet), -EAGAIN if sysfs has it but the
 * /dev node has not appeared yet.
 */
int find_nvme_blockdev(const char *nqn, uint32_t nsid, char *path, size_t len)
{
	char p[PATH_MAX], buf[SCALIO_NQN_MAX], dir[PATH_MAX];
	struct dirent *de, *ne;
	int ret = -ENOENT;
	DIR *d, *nd;

	d = opendir(SYS_NVME);
	while (d && ret && (de = readdir(d))) {
		if (strncmp(de->d_name, "nvme", 4))
			continue;
		pathf(p, SYS_NVME "/%s/subsysnqn", de->d_name);
		if (read_file(p, buf, sizeof(buf)) < 0 || strcmp(buf, nqn) ||
		    !ctrl_usable(de->d_name))
			continue;
		pathf(dir, SYS_NVME "/%s", de->d_name);
		nd = opendir(dir);
		while (nd && ret && (ne = readdir(nd))) {
			unsigned int s, c, n;
			char name[NAME_MAX + 1];
			int end = 0;

			if (strncmp(ne->d_name, "nvme", 4))
				continue;
			pathf(p, "%s/%s", dir, ne->d_name);
			if (!nsid_is(p, nsid))
				continue;
			if (sscanf(ne->d_name, "nvme%uc%un%u%n", &s, &c, &n,
				   &end) == 3 && !ne->d_name[end])
				/* multipath path device: use its head */
				snprintf(name, sizeof(name), "nvme%un%u", s, n);
			else
				snprintf(name, sizeof(name), "%s", ne->d_name);
			ret = devnode(name, path, len);
		}
		if (nd)
			closedir(nd);
	}
	if (d)
		closedir(d);
	if (ret != -ENOENT)
		return ret;

	/* Multipath heads listed under their subsystem. */
	d = opendir(SYS_NVME_SUBSYS);
	while (d && ret == -ENOENT && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		pathf(p, SYS_NVME_SUBSYS "/%s/subsysnqn",
			 de->d_name);
		if (read_file(p, buf, sizeof(buf)) < 0 || strcmp(buf, nqn))
			continue;
		pathf(dir, SYS_NVME_SUBSYS "/%s", de->d_name);
		nd = opendir(dir);
		while (nd && ret == -ENOENT && (ne = readdir(nd))) {
			if (strncmp(ne->d_name, "nvme", 4) ||
			    strchr(ne->d_name, 'c'))
				continue;
			pathf(p, "%s/%s", dir, ne->d_name);
			if (nsid_is(p, nsid))
				ret = devnode(ne->d_name, path, len);
		}
		if (nd)
			closedir(nd);
	}
	if (d)
		closedir(d);
	return ret;
}

static int nvme_connect(const char *addr, uint32_t port, const char *nqn,
			const struct host_ident *hi)
{
	char svc[16];
	char *argv[16] = { "nvme", "connect", "-t", "rdma", "-a", (char *)addr,
			   "-s", svc, "-n", (char *)nqn, NULL };
	int n = 10, ret;

	/* The same host NQN as the store's: nvmet admits hosts by it. */
	if (hi->nqn[0]) {
		argv[n++] = "--hostnqn";
		argv[n++] = (char *)hi->nqn;
	}
	if (hi->id[0]) {
		argv[n++] = "--hostid";
		argv[n++] = (char *)hi->id;
	}
	argv[n] = NULL;
	snprintf(svc, sizeof(svc), "%u", port);
	ret = run_cmd(argv, !verbose);
	if (ret < 0) {
		err_msg("cannot run 'nvme connect': %s%s", strerror(-ret),
			ret == -ENOENT ? " (install nvme-cli)" : "");
		return EXIT_FAIL;
	}
	if (ret) {
		char ctrl[NAME_MAX + 1];

		/* It may have lost a race with another connect: fine. */
		if (find_ctrl(nqn, ctrl, sizeof(ctrl)))
			return EXIT_OK;
		err_msg("'nvme connect -t rdma -a %s -s %u -n %s' failed (exit %d)",
			addr, port, nqn, ret);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int attach_ssd(int fd, const char *store, const struct scalio_ssd_info *si,
		      const char *addr, uint32_t nvme_port,
		      const struct host_ident *hi)
{
	struct scalio_ssd_bind bind;
	char ctrl[NAME_MAX + 1], path[SCALIO_PATH_MAX];
	int waited, ret;

	ret = find_nvme_blockdev(si->nqn, si->nsid, path, sizeof(path));
	if (ret) {
		if (find_ctrl(si->nqn, ctrl, sizeof(ctrl))) {
			if (verbose)
				fprintf(stderr, "  %s already connected as %s\n",
					si->nqn, ctrl);
		} else if (nvme_connect(addr, nvme_port, si->nqn, hi)) {
			return EXIT_FAIL;
		}
		for (waited = 0; waited < CONNECT_WAIT_MS; waited += 100) {
			ret = find_nvme_blockdev(si->nqn, si->nsid, path,
						 sizeof(path));
			if (!ret)
				break;
			sleep_ms(100);
		}
		if (ret) {
			err_msg("ssd %u: no block device for namespace %u of %s after %d s (%s)",
				si->index, si->nsid, si->nqn,
				CONNECT_WAIT_MS / 1000,
				ret == -EAGAIN ? "sysfs has it but no /dev node"
					       : "not in " SYS_NVME);
			return EXIT_FAIL;
		}
	}
	memset(&bind, 0, sizeof(bind));
	bind.index = si->index;
	snprintf(bind.path, sizeof(bind.path), "%s", path);
	/*
	 * A new namespace's /dev node and sysfs entry appear before its disk
	 * can be opened (device_add() comes before bdev_add()): the open
	 * fails with ENXIO meanwhile.  Seen on the debug-kernel lane.
	 */
	for (waited = 0; ioctl(fd, SCALIO_IOC_SSD_BIND, &bind); waited += 100) {
		if (errno != ENXIO || waited >= CONNECT_WAIT_MS) {
			err_msg("store %s: SCALIO_IOC_SSD_BIND ssd %u to %s: %s",
				store, si->index, path, strerror(errno));
			return EXIT_FAIL;
		}
		sleep_ms(100);
	}
	info_msg("store %s: ssd %u = %s (%s)", store, si->index, path, si->nqn);
	return EXIT_OK;
}

enum { OPT_ADDR = 256, OPT_PORT, OPT_NVME_PORT, OPT_TIMEOUT, OPT_HOSTNQN,
       OPT_HOSTID, OPT_KEY_FILE, OPT_FAST_IO_FAIL };

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

/* A UUID in its 8-4-4-4-12 text form into 16 bytes. */
static int parse_uuid(const char *s, uint8_t *out)
{
	static const int dash[] = { 8, 13, 18, 23 };
	int i, j = 0, d = 0;

	if (strlen(s) != 36)
		return -EINVAL;
	for (i = 0; i < 36; i++) {
		if (d < 4 && i == dash[d]) {
			if (s[i] != '-')
				return -EINVAL;
			d++;
			continue;
		}
		if (hexval(s[i]) < 0 || hexval(s[i + 1]) < 0)
			return -EINVAL;
		out[j++] = hexval(s[i]) << 4 | hexval(s[i + 1]);
		i++;
	}
	return 0;
}

bool valid_nqn(const char *nqn)
{
	size_t i, n = strlen(nqn);

	if (n < 5 || n >= SCALIO_NQN_MAX || strncmp(nqn, "nqn.", 4))
		return false;
	for (i = 0; i < n; i++)
		if (nqn[i] <= ' ' || nqn[i] > '~' || nqn[i] == '/')
			return false;
	return true;
}

/**
 * read_secret() - load an admission secret from a file
 * @path:	the file: the secret (16..128 printable bytes), one line
 * @secret:	out: SCALIO_SECRET_MAX bytes
 * @len:	out: bytes used
 *
 * Return: EXIT_OK, or EXIT_FAIL with a message printed.
 */
int read_secret(const char *path, uint8_t *secret, uint32_t *len)
{
	char buf[SCALIO_SECRET_MAX + 2];
	size_t n, i;
	FILE *f = fopen(path, "re");

	if (!f) {
		err_msg("cannot read the key file %s: %s", path,
			strerror(errno));
		return EXIT_FAIL;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
		     buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (n < SCALIO_SECRET_MIN || n > SCALIO_SECRET_MAX) {
		err_msg("key file %s: the secret must be %d..%d bytes (has %zu)",
			path, SCALIO_SECRET_MIN, SCALIO_SECRET_MAX, n);
		return EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] <= ' ' || buf[i] > '~') {
			err_msg("key file %s: the secret must be printable ASCII without blanks",
				path);
			return EXIT_FAIL;
		}
	}
	memcpy(secret, buf, n);
	*len = n;
	memset(buf, 0, sizeof(buf));
	return EXIT_OK;
}

/* --hostnqn / --hostid, else /etc/nvme's, as nvme-cli does. */
static int host_ident_init(struct host_ident *hi, const char *nqn,
			   const char *id, const char *key_file)
{
	memset(hi, 0, sizeof(*hi));
	hi->auth.size = sizeof(hi->auth);
	if (nqn)
		snprintf(hi->nqn, sizeof(hi->nqn), "%s", nqn);
	else if (read_file(NVME_HOSTNQN, hi->nqn, sizeof(hi->nqn)) < 0)
		hi->nqn[0] = '\0';
	if (id)
		snprintf(hi->id, sizeof(hi->id), "%s", id);
	else if (read_file(NVME_HOSTID, hi->id, sizeof(hi->id)) < 0)
		hi->id[0] = '\0';
	if (hi->nqn[0] && !valid_nqn(hi->nqn)) {
		err_msg("host NQN '%s'%s is not a valid NQN", hi->nqn,
			nqn ? "" : " (from " NVME_HOSTNQN ")");
		return EXIT_FAIL;
	}
	if (hi->id[0] && parse_uuid(hi->id, hi->auth.host_id)) {
		err_msg("host id '%s'%s is not a UUID", hi->id,
			id ? "" : " (from " NVME_HOSTID ")");
		return EXIT_FAIL;
	}
	snprintf(hi->auth.hostnqn, sizeof(hi->auth.hostnqn), "%s", hi->nqn);
	if (!key_file && !access(SCALIO_HOSTKEY, F_OK))
		key_file = SCALIO_HOSTKEY;
	if (key_file)
		return read_secret(key_file, hi->auth.secret,
				   &hi->auth.secret_len);
	return EXIT_OK;
}

/**
 * attach_state_path() - where attach records what save cannot read back
 * @buf:	result
 * @len:	its size
 * @store:	store name
 *
 * $SCALIO_RUNDIR (default /run/scalio)/<store>.attach: the path of the
 * key file the store was attached with ("key_file=PATH"), never the
 * secret; the module shows the host NQN and id but not where the secret
 * came from.  /run goes away at reboot, as the attachment does.
 */
void attach_state_path(char *buf, size_t len, const char *store)
{
	const char *r = getenv("SCALIO_RUNDIR");

	snprintf(buf, len, "%s/%s.attach", r && *r ? r : "/run/scalio", store);
}

/* Record @key_file (or no key file) for @store; failure only warns. */
static void write_attach_state(const char *store, const char *key_file)
{
	char p[PATH_MAX], abs[PATH_MAX], *slash;
	FILE *f;

	attach_state_path(p, sizeof(p), store);
	if (!key_file) {
		unlink(p);
		return;
	}
	if (!realpath(key_file, abs))
		snprintf(abs, sizeof(abs), "%s", key_file);
	slash = strrchr(p, '/');
	if (slash) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	f = fopen(p, "we");
	if (!f || fprintf(f, "key_file=%s\n", abs) < 0 || fclose(f)) {
		fprintf(stderr, "%s: warning: cannot record the key file in %s: %s (save will not know it)\n",
			progname, p, strerror(errno));
		if (f)
			fclose(f);
	}
}

/* What an ATTACH refusal means, for the operator. */
static const char *attach_hint(int err)
{
	switch (err) {
	case EACCES:
		return " (EACCES: the store does not admit this host NQN: see scalioctl allow-host)";
	case ENOKEY:
		return " (ENOKEY: the target holds a secret for this host: give --key-file)";
	case EKEYREJECTED:
		return " (EKEYREJECTED: the secret in --key-file is not the target's)";
	case EUSERS:
		return " (EUSERS: the store has attr_max_clients clients, or this host NQN attr_max_host_clients)";
	default:
		return "";
	}
}

int cmd_attach(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "addr", required_argument, NULL, OPT_ADDR },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "nvme-port", required_argument, NULL, OPT_NVME_PORT },
		{ "timeout-ms", required_argument, NULL, OPT_TIMEOUT },
		{ "fast-io-fail-ms", required_argument, NULL, OPT_FAST_IO_FAIL },
		{ "hostnqn", required_argument, NULL, OPT_HOSTNQN },
		{ "hostid", required_argument, NULL, OPT_HOSTID },
		{ "key-file", required_argument, NULL, OPT_KEY_FILE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *hostnqn = NULL, *hostid = NULL, *key_file = NULL;
	static struct host_ident hi;
	uint32_t port = SCALIO_DEFAULT_PORT, nvme_port = NVME_DEFAULT_PORT;
	uint32_t timeout_ms = 0, fail_ms = 0, i, nr;
	int fail_ms_set = 0;
	struct scalio_attach at;
	struct scalio_ssd_info si;
	const char *addr = NULL, *name;
	int c, ctl, fd = -1, waited, ret = EXIT_OK;
	char dev[64 + SCALIO_NAME_MAX];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_ADDR:
			if (!valid_ip_literal(optarg))
				return usage_error("attach",
						   "--addr '%s' is not an IPv4 or IPv6 address",
						   optarg);
			addr = optarg;
			break;
		case OPT_PORT:
			if (parse_u32(optarg, 1, 65535, &port))
				return usage_error("attach", "--port must be 1..65535");
			break;
		case OPT_NVME_PORT:
			if (parse_u32(optarg, 1, 65535, &nvme_port))
				return usage_error("attach",
						   "--nvme-port must be 1..65535");
			break;
		case OPT_TIMEOUT:
			if (parse_u32(optarg, 1, 3600000, &timeout_ms))
				return usage_error("attach",
						   "--timeout-ms must be 1..3600000");
			break;
		case OPT_FAST_IO_FAIL:
			if (parse_u32(optarg, 0, SCALIO_FAST_IO_FAIL_MAX_MS,
				      &fail_ms))
				return usage_error("attach",
						   "--fast-io-fail-ms must be 0..%u",
						   SCALIO_FAST_IO_FAIL_MAX_MS);
			fail_ms_set = 1;
			break;
		case OPT_HOSTNQN:
			hostnqn = optarg;
			break;
		case OPT_HOSTID:
			hostid = optarg;
			break;
		case OPT_KEY_FILE:
			key_file = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			return print_command_help("attach");
		default:
			return usage_error("attach", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return usage_error("attach", "expected the store NAME");
	name = argv[optind];
	if (!valid_store_name(name))
		return usage_error("attach", "invalid store name '%s'", name);
	if (!addr)
		return usage_error("attach", "--addr IP is required");
	if (hostnqn && !valid_nqn(hostnqn))
		return usage_error("attach", "--hostnqn '%s' is not a valid NQN",
				   hostnqn);
	if (!key_file && !access(SCALIO_HOSTKEY, F_OK))
		key_file = SCALIO_HOSTKEY;
	if (host_ident_init(&hi, hostnqn, hostid, key_file))
		return EXIT_FAIL;

	ctl = open(SCALIO_CTL_DEV, O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		err_msg("open %s: %s%s", SCALIO_CTL_DEV, strerror(errno),
			errno == ENOENT ? " (is scalio-host.ko loaded?)" : "");
		return EXIT_FAIL;
	}
	memset(&at, 0, sizeof(at));
	snprintf(at.store, sizeof(at.store), "%s", name);
	snprintf(at.traddr, sizeof(at.traddr), "%s", addr);
	at.trsvcid = port;
	at.timeout_ms = timeout_ms;
	if (fail_ms_set) {
		at.flags |= SCALIO_ATTACH_F_FAST_IO_FAIL;
		at.fast_io_fail_ms = fail_ms;
	}
	at.auth = (uintptr_t)&hi.auth;
	ret = ioctl(ctl, SCALIO_IOC_ATTACH, &at) ? errno : 0;
	memset(&hi.auth.secret, 0, sizeof(hi.auth.secret));
	if (ret) {
		if (ret != EEXIST) {
			err_msg("attach store %s at %s:%u as host %s: SCALIO_IOC_ATTACH: %s%s",
				name, addr, port,
				hi.nqn[0] ? hi.nqn : "(module default)",
				strerror(ret), attach_hint(ret));
			close(ctl);
			return EXIT_FAIL;
		}
		info_msg("store %s: already attached, binding unbound SSDs", name);
	} else {
		info_msg("store %s: attached to %s:%u", name, addr, port);
	}
	write_attach_state(name, key_file);
	ret = EXIT_OK;
	close(ctl);

	/* devtmpfs creates the node at once; with udev it may lag. */
	snprintf(dev, sizeof(dev), SCALIO_STORE_DEV_FMT, name);
	for (waited = 0; waited < DEVNODE_WAIT_MS; waited += 50) {
		fd = open(dev, O_RDWR | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			break;
		sleep_ms(50);
	}
	if (fd < 0) {
		err_msg("open %s: %s", dev, strerror(errno));
		return EXIT_FAIL;
	}

	nr = 1;
	for (i = 0; i < nr; i++) {
		memset(&si, 0, sizeof(si));
		si.index = i;
		if (ioctl(fd, SCALIO_IOC_SSD_INFO, &si)) {
			err_msg("store %s: SCALIO_IOC_SSD_INFO ssd %u: %s", name, i,
				strerror(errno));
			ret = EXIT_FAIL;
			break;
		}
		nr = si.nr_ssds;
		if (i >= nr)
			break;
		si.nqn[SCALIO_NQN_MAX - 1] = '\0';
		if (si.bound) {
			info_msg("store %s: ssd %u already bound (%s)", name, i,
				 si.nqn);
			continue;
		}
		if (attach_ssd(fd, name, &si, addr, nvme_port, &hi)) {
			ret = EXIT_FAIL;
			break;
		}
	}
	close(fd);
	return ret;
}

/* Add @nqn to @list unless present. */
static void add_nqn(char (*list)[SCALIO_NQN_MAX], int *nr, int max,
		    const char *nqn)
{
	int i;

	for (i = 0; i < *nr; i++)
		if (!strcmp(list[i], nqn))
			return;
	if (*nr < max)
		snprintf(list[(*nr)++], SCALIO_NQN_MAX, "%s", nqn);
}

int cmd_detach(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char nqns[SCALIO_MAX_SSDS * 2][SCALIO_NQN_MAX];
	char p[PATH_MAX], buf[SCALIO_NQN_MAX], ctrl[NAME_MAX + 1];
	struct scalio_detach dt;
	struct scalio_ssd_info si;
	int c, i, fd, ctl, nr_nqns = 0, ret = EXIT_OK;
	bool attached = true;
	const char *name;
	struct dirent *de;
	char dev[64 + SCALIO_NAME_MAX];
	uint32_t k, nr;
	DIR *d;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			verbose = 1;
			break;
		case 'h':
			return print_command_help("detach");
		default:
			return usage_error("detach", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return usage_error("detach", "expected the store NAME");
	name = argv[optind];
	if (!valid_store_name(name))
		return usage_error("detach", "invalid store name '%s'", name);

	/* Learn the SSD subsystems before the store device goes away. */
	snprintf(dev, sizeof(dev), SCALIO_STORE_DEV_FMT, name);
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		nr = 1;
		for (k = 0; k < nr && k < SCALIO_MAX_SSDS; k++) {
			memset(&si, 0, sizeof(si));
			si.index = k;
			if (ioctl(fd, SCALIO_IOC_SSD_INFO, &si))
				break;
			nr = si.nr_ssds;
			si.nqn[SCALIO_NQN_MAX - 1] = '\0';
			if (k < nr && si.nqn[0])
				add_nqn(nqns, &nr_nqns, SCALIO_MAX_SSDS * 2, si.nqn);
		}
		close(fd);
	}
	d = opendir(SYS_NVME);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "nvme", 4))
			continue;
		pathf(p, SYS_NVME "/%s/subsysnqn", de->d_name);
		if (read_file(p, buf, sizeof(buf)) > 0 && is_store_nqn(buf, name))
			add_nqn(nqns, &nr_nqns, SCALIO_MAX_SSDS * 2, buf);
	}
	if (d)
		closedir(d);

	ctl = open(SCALIO_CTL_DEV, O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		err_msg("open %s: %s%s", SCALIO_CTL_DEV, strerror(errno),
			errno == ENOENT ? " (is scalio-host.ko loaded?)" : "");
		return EXIT_FAIL;
	}
	memset(&dt, 0, sizeof(dt));
	snprintf(dt.store, sizeof(dt.store), "%s", name);
	if (ioctl(ctl, SCALIO_IOC_DETACH, &dt)) {
		int e = errno;

		close(ctl);
		if (e == EBUSY) {
			err_msg("detach store %s: %s (%s is open)", name,
				strerror(e), dev);
			return EXIT_FAIL;
		}
		if (e != ENOENT && e != ENODEV) {
			err_msg("detach store %s: SCALIO_IOC_DETACH: %s", name,
				strerror(e));
			return EXIT_FAIL;
		}
		attached = false;
		fprintf(stderr, "%s: store %s is not attached\n", progname, name);
	} else {
		close(ctl);
		info_msg("store %s: detached", name);
	}
	attach_state_path(p, sizeof(p), name);
	unlink(p);

	for (i = 0; i < nr_nqns; i++) {
		char *argv_dc[] = { "nvme", "disconnect", "-n", nqns[i], NULL };
		int r;

		if (!find_ctrl(nqns[i], ctrl, sizeof(ctrl)))
			continue;
		r = run_cmd(argv_dc, !verbose);
		if (r) {
			err_msg("'nvme disconnect -n %s' failed: %s", nqns[i],
				r < 0 ? strerror(-r) : "non-zero exit status");
			ret = EXIT_FAIL;
			continue;
		}
		info_msg("nvme: %s disconnected", nqns[i]);
	}
	if (!attached && nr_nqns == 0)
		return EXIT_FAIL;
	return ret;
}
