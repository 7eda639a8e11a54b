// SPDX-License-Identifier: GPL-2.0
/*
 * scalioctl attach / detach: the client's side.  The host module does the
 * RDMA handshake; this tool connects each SSD's NVMe-oF subsystem, finds
 * the namespace's block device and binds it, all through libnvme (the
 * library of nvme-cli): its topology tree, nvmf_add_ctrl() and
 * nvme_disconnect_ctrl().
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <libnvme.h>

#include "scalioctl.h"

#define CONNECT_WAIT_MS	20000	/* namespace scanning is asynchronous */
#define DEVNODE_WAIT_MS	5000
/* Where libnvme's nvmf_hostnqn_from_file() / nvmf_hostid_from_file() read. */
#define NVME_HOSTNQN	"/etc/nvme/hostnqn"
#define NVME_HOSTID	"/etc/nvme/hostid"
#define SCALIO_HOSTKEY	"/etc/scalio/hostkey"	/* default --key-file */

/* Who this host is, for the target's admission and for the NVMe connect. */
struct host_ident {
	char	nqn[SCALIO_NQN_MAX];	/* "" : the module's default */
	char	id[40];			/* UUID text, "" : none */
	struct scalio_attach_auth auth;
	/* NVMe DH-HMAC-CHAP keys of the secret (dhchap.c); "" : none */
	char	dh_host[DHCHAP_KEY_LEN];
	char	dh_ctrl[DHCHAP_KEY_LEN];
};

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * libnvme's messages.  With -v they go to stderr (LOG_INFO: connects and
 * disconnects); otherwise up to LOG_NOTICE is kept in memory, and the last
 * line goes into our own message when an operation fails: libnvme reports
 * a refused connect as one of its ENVME_CONNECT_* codes and logs the
 * kernel's errno (e.g. "Failed to write to /dev/nvme-fabrics: Input/output
 * error") only as a message.
 */
static FILE *nvme_log;
static char *nvme_log_buf;
static size_t nvme_log_len, nvme_log_mark;

static nvme_root_t nvme_root(void)
{
	nvme_root_t r;

	if (!nvme_log) {
		nvme_log = verbose ? stderr :
			open_memstream(&nvme_log_buf, &nvme_log_len);
		if (!nvme_log)
			nvme_log = stderr;
	}
	r = nvme_create_root(nvme_log, verbose ? LOG_INFO : LOG_NOTICE);
	if (!r)
		err_msg("libnvme: cannot create its topology root: %s",
			strerror(errno));
	return r;
}

/* From here on, nvme_last_msg() looks at what libnvme logs. */
static void nvme_log_start(void)
{
	if (nvme_log && nvme_log != stderr && !fflush(nvme_log))
		nvme_log_mark = nvme_log_len;
}

/*
 * The last line libnvme logged since nvme_log_start() ("" if none, or
 * with -v: it went to stderr).  Ends the log: call it once, at the end.
 */
static const char *nvme_last_msg(void)
{
	char *first, *end, *start;

	if (!nvme_log || nvme_log == stderr || fflush(nvme_log) ||
	    !nvme_log_buf || nvme_log_len <= nvme_log_mark)
		return "";
	first = nvme_log_buf + nvme_log_mark;
	end = nvme_log_buf + nvme_log_len;
	while (end > first && end[-1] == '\n')
		*--end = '\0';
	start = end;
	while (start > first && start[-1] != '\n')
		start--;
	return start;
}

/* An error of libnvme: its ENVME_CONNECT_* codes or an errno. */
static const char *nvme_strerror(int err)
{
	return err >= ENVME_CONNECT_RESOLVE ? nvme_errno_to_string(err) :
	       strerror(err);
}

/* What a subsystem scan keeps: subsystem @nqn, or every one of @store. */
struct nqn_match {
	const char *nqn;
	const char *store;
};

static bool nqn_matches(const char *nqn, const struct nqn_match *m)
{
	if (!nqn)
		return false;
	return m->nqn ? !strcmp(nqn, m->nqn) : is_store_nqn(nqn, m->store);
}

/*
 * Only the wanted subsystems: libnvme opens (and identifies) every
 * namespace it scans, so the others are left out before that.
 */
static bool scan_filter(nvme_subsystem_t s, nvme_ctrl_t c, nvme_ns_t n,
			void *arg)
{
	(void)n;
	if (s)
		return nqn_matches(nvme_subsystem_get_nqn(s), arg);
	if (c)
		return nqn_matches(nvme_ctrl_get_subsysnqn(c), arg);
	return true;
}

/* The topology of the subsystems @m matches; NULL with a message. */
static nvme_root_t nvme_scan_subsys(const struct nqn_match *m)
{
	nvme_root_t r = nvme_root();

	if (r && nvme_scan_topology(r, scan_filter, (void *)m) < 0) {
		err_msg("libnvme: cannot scan the NVMe topology: %s",
			strerror(errno));
		nvme_free_tree(r);
		r = NULL;
	}
	return r;
}

static bool ctrl_usable(nvme_ctrl_t c)
{
	const char *state = nvme_ctrl_get_state(c);

	if (!state)
		return true;	/* no state attribute: assume live */
	return strncmp(state, "deleting", 8) && strcmp(state, "dead");
}

static bool subsys_is(nvme_subsystem_t s, const char *nqn)
{
	const char *v = nvme_subsystem_get_nqn(s);

	return v && !strcmp(v, nqn);
}

/* A connected, non-deleting controller of subsystem @nqn in @r. */
static nvme_ctrl_t live_ctrl(nvme_root_t r, const char *nqn)
{
	nvme_subsystem_t s;
	nvme_host_t h;
	nvme_ctrl_t c;

	nvme_for_each_host(r, h)
		nvme_for_each_subsystem(h, s) {
			if (!subsys_is(s, nqn))
				continue;
			nvme_subsystem_for_each_ctrl(s, c)
				if (ctrl_usable(c))
					return c;
		}
	return NULL;
}

/* Name of a connected, non-deleting controller of subsystem @nqn. */
static bool find_ctrl(const char *nqn, char *ctrl, size_t len)
{
	struct nqn_match m = { .nqn = nqn };
	nvme_root_t r = nvme_scan_subsys(&m);
	nvme_ctrl_t c;

	if (!r)
		return false;
	c = live_ctrl(r, nqn);
	if (c)
		snprintf(ctrl, len, "%s", nvme_ctrl_get_name(c));
	nvme_free_tree(r);
	return c;
}

/*
 * Namespace @nsid of subsystem @s.  With native multipath the visible
 * head nvmeSnY is the subsystem's; without it, controller nvmeX carries
 * nvmeXnY (taken only from a live controller).
 */
static nvme_ns_t subsys_ns(nvme_subsystem_t s, uint32_t nsid)
{
	nvme_ctrl_t c;
	nvme_ns_t n;

	nvme_subsystem_for_each_ns(s, n)
		if ((uint32_t)nvme_ns_get_nsid(n) == nsid)
			return n;
	nvme_subsystem_for_each_ctrl(s, c) {
		if (!ctrl_usable(c))
			continue;
		nvme_ctrl_for_each_ns(c, n)
			if ((uint32_t)nvme_ns_get_nsid(n) == nsid)
				return n;
	}
	return NULL;
}

/**
 * find_nvme_blockdev() - block device of namespace @nsid of subsystem @nqn
 * @nqn:	subsystem NQN
 * @nsid:	namespace id
 * @path:	out: /dev/nvmeXnY
 * @len:	its size
 *
 * libnvme lists a namespace only once it could open its /dev node and
 * identify it, so a namespace not (yet) openable is not found (yet).
 *
 * Return: 0; -ENOENT if not found (yet), -ENOTCONN if no controller of
 * @nqn is live either, -EIO if libnvme cannot scan (message printed).
 */
static int find_nvme_blockdev(const char *nqn, uint32_t nsid, char *path,
			      size_t len)
{
	struct nqn_match m = { .nqn = nqn };
	nvme_root_t r = nvme_scan_subsys(&m);
	nvme_subsystem_t s;
	nvme_host_t h;
	nvme_ns_t n;
	int ret = -ENOENT;

	if (!r)
		return -EIO;
	/* A subsystem connected as several host NQNs is under each host. */
	nvme_for_each_host(r, h)
		nvme_for_each_subsystem(h, s) {
			if (!subsys_is(s, nqn))
				continue;
			n = subsys_ns(s, nsid);
			if (n) {
				snprintf(path, len, "/dev/%s",
					 nvme_ns_get_name(n));
				ret = 0;
				goto out;
			}
		}
	if (!live_ctrl(r, nqn))
		ret = -ENOTCONN;
out:
	nvme_free_tree(r);
	return ret;
}

/*
 * Connect subsystem @nqn at rdma @addr:@port as host @hi, with nvme-cli's
 * defaults (nvmf_default_config()).  /etc/nvme/config.json is not read:
 * the store's attach parameters are the whole configuration.
 */
static int nvme_connect(const char *addr, uint32_t port, const char *nqn,
			const struct host_ident *hi)
{
	struct nvme_fabrics_config cfg;
	char svc[16], why[256], ctrl[NAME_MAX + 1], *gen = NULL;
	const char *hostnqn = hi->nqn;
	nvme_root_t r;
	nvme_host_t h;
	nvme_ctrl_t c;
	int err;

	r = nvme_root();
	if (!r)
		return EXIT_FAIL;
	/* No host NQN anywhere: libnvme's machine one, as nvme-cli takes. */
	if (!hostnqn[0]) {
		gen = nvmf_hostnqn_generate();
		if (!gen) {
			err_msg("connect %s: no host NQN (give --hostnqn or write %s)",
				nqn, NVME_HOSTNQN);
			nvme_free_tree(r);
			return EXIT_FAIL;
		}
		hostnqn = gen;
	}
	/* The same host NQN and id as the store's: nvmet admits hosts by it. */
	h = nvme_lookup_host(r, hostnqn, hi->id[0] ? hi->id : NULL);
	snprintf(svc, sizeof(svc), "%u", port);
	c = h ? nvme_create_ctrl(r, nqn, "rdma", addr, NULL, NULL, svc) : NULL;
	if (!c) {
		err_msg("libnvme: cannot set up a controller for %s: %s", nqn,
			strerror(errno));
		free(gen);
		nvme_free_tree(r);
		return EXIT_FAIL;
	}
	/*
	 * The keys of the host's secret, both ways: nvmet proves the
	 * controller key too.  Used only if nvmet asks for authentication
	 * (a kernel without it, Debian's 6.1, never does).
	 */
	if (hi->dh_host[0]) {
		nvme_ctrl_set_dhchap_host_key(c, hi->dh_host);
		nvme_ctrl_set_dhchap_key(c, hi->dh_ctrl);
	}
	nvmf_default_config(&cfg);
	nvme_log_start();
	if (!nvmf_add_ctrl(h, c, &cfg)) {
		free(gen);
		nvme_free_tree(r);	/* @c is in the tree now */
		return EXIT_OK;
	}
	err = errno;
	snprintf(why, sizeof(why), "%s", nvme_last_msg());
	/* Not in the tree: nvmf_add_ctrl() links it only once connected. */
	if (!nvme_ctrl_get_subsystem(c))
		nvme_free_ctrl(c);
	nvme_free_tree(r);
	/*
	 * It may have lost a race with another connect (EALREADY), or have
	 * connected with libnvme not finding the new controller's subsystem
	 * right after: fine if a live controller is there now.
	 */
	if (find_ctrl(nqn, ctrl, sizeof(ctrl))) {
		free(gen);
		return EXIT_OK;
	}
	err_msg("NVMe-oF connect of %s at rdma %s port %u as host %s: %s%s%s",
		nqn, addr, port, hostnqn, nvme_strerror(err),
		why[0] ? "; libnvme: " : "", why);
	free(gen);
	return EXIT_FAIL;
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
			if (!ret || ret == -EIO)	/* found, or cannot scan */
				break;
			sleep_ms(100);
		}
		if (ret) {
			err_msg("ssd %u: no block device for namespace %u of %s after %d s (%s)",
				si->index, si->nsid, si->nqn,
				CONNECT_WAIT_MS / 1000,
				ret == -ENOTCONN ? "no live controller" :
				ret == -ENOENT ? "the controller is live but libnvme finds no openable namespace"
					       : "libnvme cannot scan");
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

/* Copy @v (NULL: none) into @buf and free it. */
static void take_str(char *buf, size_t len, char *v)
{
	snprintf(buf, len, "%s", v ? v : "");
	free(v);
}

/* --hostnqn / --hostid, else /etc/nvme's (libnvme reads them for nvme-cli). */
static int host_ident_init(struct host_ident *hi, const char *nqn,
			   const char *id, const char *key_file)
{
	memset(hi, 0, sizeof(*hi));
	hi->auth.size = sizeof(hi->auth);
	if (nqn)
		snprintf(hi->nqn, sizeof(hi->nqn), "%s", nqn);
	else
		take_str(hi->nqn, sizeof(hi->nqn), nvmf_hostnqn_from_file());
	if (id)
		snprintf(hi->id, sizeof(hi->id), "%s", id);
	else
		take_str(hi->id, sizeof(hi->id), nvmf_hostid_from_file());
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
	if (key_file) {
		if (read_secret(key_file, hi->auth.secret, &hi->auth.secret_len))
			return EXIT_FAIL;
		dhchap_keys(hi->auth.secret, hi->auth.secret_len, hi->dh_host,
			    hi->dh_ctrl);
	}
	return EXIT_OK;
}

/**
 * attach_state_path() - where attach records what save cannot read back
 * @buf:	result
 * @len:	its size
 * @store:	store name
 *
 * $SCALIO_RUNDIR (default /run/scalio)/<store>.attach, one KEY=VALUE a
 * line: "nvme_port=PORT", the nvmet port the SSDs were connected at, and
 * "key_file=PATH", the key file the store was attached with (never the
 * secret).  The module shows the address, port and host identity, but
 * not these.  /run goes away at reboot, as the attachment does.
 */
void attach_state_path(char *buf, size_t len, const char *store)
{
	const char *r = getenv("SCALIO_RUNDIR");

	snprintf(buf, len, "%s/%s.attach", r && *r ? r : "/run/scalio", store);
}

/**
 * attach_state_get() - one value of @store's attach state
 * @store:	store name
 * @key:	"key_file" or "nvme_port"
 * @buf:	out: the value
 * @len:	its size
 *
 * Return: true if the state has @key (with a non-empty value).
 */
bool attach_state_get(const char *store, const char *key, char *buf,
		      size_t len)
{
	char p[PATH_MAX], line[PATH_MAX + 32];
	size_t k = strlen(key);
	bool found = false;
	FILE *f;

	attach_state_path(p, sizeof(p), store);
	f = fopen(p, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, key, k) || line[k] != '=' || !line[k + 1])
			continue;
		snprintf(buf, len, "%s", line + k + 1);
		found = true;
	}
	fclose(f);
	return found;
}

/* Record @nvme_port and @key_file (if any) for @store; failure only warns. */
static void write_attach_state(const char *store, uint32_t nvme_port,
			       const char *key_file)
{
	char p[PATH_MAX], abs[PATH_MAX], *slash;
	int err = 0;
	FILE *f;

	attach_state_path(p, sizeof(p), store);
	slash = strrchr(p, '/');
	if (slash) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	f = fopen(p, "we");
	if (!f) {
		err = errno;
	} else {
		if (fprintf(f, "nvme_port=%u\n", nvme_port) < 0)
			err = errno;
		if (key_file) {
			if (!realpath(key_file, abs))
				snprintf(abs, sizeof(abs), "%s", key_file);
			if (fprintf(f, "key_file=%s\n", abs) < 0)
				err = errno;
		}
		if (fclose(f) && !err)
			err = errno;
	}
	if (err)
		fprintf(stderr, "%s: warning: cannot record the nvme port and key file in %s: %s (save will not know them)\n",
			progname, p, strerror(err));
}

/*
 * The port of a live controller of @store's subsystems: save's fallback
 * for an attachment whose state has no nvme_port (an older scalioctl).
 * 0 if none.
 */
uint32_t store_nvme_port(const char *store)
{
	nvme_root_t r = nvme_scan_subsys(&(struct nqn_match){ .store = store });
	nvme_subsystem_t s;
	uint32_t port = 0;
	nvme_host_t h;
	nvme_ctrl_t c;

	if (!r)
		return 0;
	nvme_for_each_host(r, h)
		nvme_for_each_subsystem(h, s)
			nvme_subsystem_for_each_ctrl(s, c) {
				const char *v = nvme_ctrl_get_trsvcid(c);

				if (!port && v && ctrl_usable(c) &&
				    parse_u32(v, 1, 65535, &port))
					port = 0;
			}
	nvme_free_tree(r);
	return port;
}

/*
 * Fill what @hi lacks from the store's own identity (the module's
 * attributes, scalio's sysfs): with no --hostnqn and no /etc/nvme/hostnqn
 * the store is attached as the module's default host NQN and id, and the
 * NVMe-oF connects must be that host too.  Older modules lack them.
 */
static void store_ident(struct host_ident *hi, const char *store)
{
	char p[PATH_MAX], v[SCALIO_NQN_MAX];
	uint8_t id[16];
	static const uint8_t zero[16];

	if (!hi->nqn[0]) {
		pathf(p, "%s/class/misc/scalio-%s/hostnqn", sys_root(), store);
		if (read_file(p, v, sizeof(v)) > 0 && valid_nqn(v))
			snprintf(hi->nqn, sizeof(hi->nqn), "%s", v);
	}
	if (!hi->id[0]) {
		pathf(p, "%s/class/misc/scalio-%s/hostid", sys_root(), store);
		if (read_file(p, v, sizeof(v)) > 0 && !parse_uuid(v, id) &&
		    memcmp(id, zero, sizeof(id)))
			snprintf(hi->id, sizeof(hi->id), "%.36s", v);
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
		return " (EKEYREJECTED: the secret in --key-file is not the target's, or the target could not prove it: see the kernel log)";
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
	write_attach_state(name, nvme_port, key_file);
	store_ident(&hi, name);
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
	memset(hi.dh_host, 0, sizeof(hi.dh_host));
	memset(hi.dh_ctrl, 0, sizeof(hi.dh_ctrl));
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

/*
 * Disconnect every controller of subsystem @nqn (nvme disconnect -n does
 * the same): one per host NQN it was connected as, or a second one of a
 * lost connect race.  Controllers already being deleted are left alone.
 */
static int disconnect_subsys(const char *nqn)
{
	struct nqn_match m = { .nqn = nqn };
	nvme_root_t r = nvme_scan_subsys(&m);
	nvme_subsystem_t s;
	nvme_ctrl_t c, _c;
	nvme_host_t h;
	int ret = EXIT_OK;

	if (!r)
		return EXIT_FAIL;
	nvme_for_each_host(r, h)
		nvme_for_each_subsystem(h, s) {
			if (!subsys_is(s, nqn))
				continue;
			nvme_subsystem_for_each_ctrl_safe(s, c, _c) {
				char name[NAME_MAX + 1];

				if (!ctrl_usable(c))
					continue;
				/* nvme_disconnect_ctrl() frees it */
				snprintf(name, sizeof(name), "%s",
					 nvme_ctrl_get_name(c));
				if (nvme_disconnect_ctrl(c)) {
					err_msg("nvme: disconnect %s (%s): %s", nqn,
						name, strerror(errno));
					ret = EXIT_FAIL;
					continue;
				}
				info_msg("nvme: %s disconnected", nqn);
			}
		}
	nvme_free_tree(r);
	return ret;
}

int cmd_detach(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char nqns[SCALIO_MAX_SSDS * 2][SCALIO_NQN_MAX];
	char p[PATH_MAX];
	struct scalio_detach dt;
	struct scalio_ssd_info si;
	int c, i, fd, ctl, nr_nqns = 0, ret = EXIT_OK;
	bool attached = true;
	const char *name;
	char dev[64 + SCALIO_NAME_MAX];
	nvme_subsystem_t s;
	uint32_t k, nr;
	nvme_root_t r;
	nvme_host_t h;

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
	/* And subsystems of the store's name connected without it. */
	r = nvme_scan_subsys(&(struct nqn_match){ .store = name });
	if (r) {
		nvme_for_each_host(r, h)
			nvme_for_each_subsystem(h, s)
				add_nqn(nqns, &nr_nqns, SCALIO_MAX_SSDS * 2,
					nvme_subsystem_get_nqn(s));
		nvme_free_tree(r);
	}

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

	for (i = 0; i < nr_nqns; i++)
		if (disconnect_subsys(nqns[i]))
			ret = EXIT_FAIL;
	if (!attached && nr_nqns == 0)
		return EXIT_FAIL;
	return ret;
}
