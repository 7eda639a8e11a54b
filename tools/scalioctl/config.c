// SPDX-License-Identifier: GPL-2.0
/*
 * scalioctl save / restore / clear: the whole configuration of a machine
 * as one JSON document, as nvmetcli does for nvmet alone.
 *
 * Target: nvmet's hosts, subsystems (attributes, allowed hosts,
 * namespaces, passthru) and ports (attributes, referrals, ANA groups,
 * subsystem links), and scalio's stores (attributes, SSDs).  The tree is
 * walked generically, driven by the table of groups below: every readable
 * and writable attribute file is saved as its text, "enable" separately
 * because it is written last.  nvmet's configfs is shared with nvmetcli
 * and the operator's own subsystems: save records scalio's nvmet objects
 * only (owned_find(); --all: every one), restore merges into what exists
 * (merge_check(): what exists must match, nothing else is touched), in
 * dependency order (nvmet hosts, subsystems with namespaces, ports with
 * their links, then scalio stores), skipping attributes that already hold
 * the saved value (defaults, write-once attributes, a restore over
 * itself), and clear removes scalio's objects only.
 *
 * Host: the attached stores with the address each was attached with (from
 * the store device's sysfs attributes) and the nvmet port of its SSDs
 * (from the NVMe-oF controllers); restore runs attach for each.
 *
 * SCALIO_CONFIGFS and SCALIO_SYSFS move /sys/kernel/config and /sys (for
 * the tests, on a fake tree of plain files: attribute files are then
 * created by writing them).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scalioctl.h"

#define CONFIG_VERSION	1
#define ATTR_MAX	4096	/* a configfs attribute is at most a page */
#define FILE_MAX	(16 << 20)

/*
 * A kind of configfs group: its directory holds one subdirectory per
 * item; an item has attributes, maybe an "enable", child groups and link
 * directories (symlinks to items elsewhere).  Arrays are in restore order.
 */
struct link_spec {
	const char *dir;	/* in the item: "subsystems" */
	const char *target;	/* the linked items' group, from the root */
};

struct group_spec {
	const char *key;	/* JSON member and directory name */
	bool has_enable;
	bool single;		/* one default item named like the group */
	const char *keep;	/* a default item (never created, removed) */
	bool keyed;		/* items hold DH-HMAC-CHAP secrets */
	bool exact;		/* an existing parent has exactly these items */
	const struct group_spec *children;
	const struct link_spec *links;
};

static const struct group_spec ns_groups[] = {
	{ .key = "namespaces", .has_enable = true },
	{ .key = "passthru", .has_enable = true, .single = true },
	{ NULL },
};

static const struct link_spec subsys_links[] = {
	{ "allowed_hosts", "nvmet/hosts" },
	{ NULL },
};

static const struct group_spec port_groups[] = {
	{ .key = "referrals", .has_enable = true },
	{ .key = "ana_groups", .keep = "1" },
	{ NULL },
};

static const struct link_spec port_links[] = {
	{ "subsystems", "nvmet/subsystems" },
	{ NULL },
};

static const struct group_spec nvmet_groups[] = {
	{ .key = "hosts", .keyed = true },
	{ .key = "subsystems", .children = ns_groups, .links = subsys_links },
	{ .key = "ports", .children = port_groups, .links = port_links },
	{ NULL },
};

static const struct group_spec scalio_store_groups[] = {
	{ .key = "ssds", .exact = true },
	{ .key = "allowed_hosts", .keyed = true },
	{ NULL },
};

static const struct group_spec scalio_groups[] = {
	{ .key = "stores", .has_enable = true, .children = scalio_store_groups },
	{ NULL },
};

/* The two configfs subsystems, in restore order. */
static const struct {
	const char *key;
	const struct group_spec *groups;
} roots[] = {
	{ "nvmet", nvmet_groups },
	{ "scalio", scalio_groups },
};

#define NR_ROOTS (sizeof(roots) / sizeof(roots[0]))

const char *cfs_root(void)
{
	const char *r = getenv("SCALIO_CONFIGFS");

	return r && *r ? r : CONFIGFS_ROOT;
}

static bool cfs_fake(void)
{
	const char *r = getenv("SCALIO_CONFIGFS");

	return r && *r;
}

const char *sys_root(void)
{
	const char *r = getenv("SCALIO_SYSFS");

	return r && *r ? r : "/sys";
}

static bool dry_run;

/*
 * Attributes never saved nor restored: one-shot actions of the next
 * enable.  A restored store recovers what is on its SSDs; formatting or
 * forcing recovery stays an explicit target-setup --format/--force-recover.
 */
static bool one_shot_attr(const char *name)
{
	return !strcmp(name, "attr_format_on_enable") ||
	       !strcmp(name, "attr_force_recover");
}

/*
 * The DH-HMAC-CHAP secrets of an allowed host (nvmet's host, scalio's
 * allowed_hosts entry): never saved as text, nor printed.
 */
static bool secret_attr(const char *name)
{
	return !strcmp(name, "dhchap_key") || !strcmp(name, "dhchap_ctrl_key");
}

/* 8-4-4-4-12 hex digits, as /etc/nvme/hostid holds. */
static bool valid_uuid(const char *s)
{
	int i;

	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isxdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return !s[36];
}

/* The hosts file of target-setup: "NQN [KEYFILE]" lines. */
static const char *hosts_file(void)
{
	const char *r = getenv("SCALIO_HOSTS_FILE");

	return r && *r ? r : "/etc/scalio/allowed_hosts";
}

/* The key file of @nqn in the hosts file, into @out; 0 or -ENOENT. */
static int hosts_file_key(const char *nqn, char *out, size_t len)
{
	FILE *f = fopen(hosts_file(), "re");
	char line[PATH_MAX + SCALIO_NQN_MAX], *n, *k, *save;
	int ret = -ENOENT;

	if (!f)
		return ret;
	while (ret && fgets(line, sizeof(line), f)) {
		n = strtok_r(line, " \t\n", &save);
		if (!n || *n == '#' || strcmp(n, nqn))
			continue;
		k = strtok_r(NULL, " \t\n", &save);
		if (k && *k == '/' && strlen(k) < len) {
			snprintf(out, len, "%s", k);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* ---- small file-system helpers ---- */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/**
 * list_dir() - the sorted names in @dir (no dot entries) whose type is
 * @want (DT_DIR, DT_REG or DT_LNK, decided with lstat)
 *
 * Return: the count (*@out to be freed with free_list()), or -errno.
 */
int list_dir(const char *dir, int want, char ***out)
{
	char **v = NULL, p[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int n = 0, cap = 0;
	DIR *d = opendir(dir);

	*out = NULL;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int t;

		if (de->d_name[0] == '.')
			continue;
		pathf(p, "%s/%s", dir, de->d_name);
		if (lstat(p, &st))
			continue;
		t = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ?
		    DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
		if (t != want)
			continue;
		if (n == cap) {
			char **nv;

			cap = cap ? 2 * cap : 16;
			nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv)
				goto nomem;
			v = nv;
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto nomem;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), name_cmp);
	*out = v;
	return n;
nomem:
	closedir(d);
	while (n--)
		free(v[n]);
	free(v);
	return -ENOMEM;
}

void free_list(char **v, int n)
{
	while (n-- > 0)
		free(v[n]);
	free(v);
}

/* A saved attribute: readable and writable by its owner. */
static bool is_rw_attr(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISREG(st.st_mode) &&
	       (st.st_mode & S_IRUSR) && (st.st_mode & S_IWUSR);
}

/* Write an attribute (fake trees: create it); 0 or -errno. */
static int put_attr(const char *path, const char *val)
{
	size_t len = strlen(val);
	int fd, ret = 0;
	ssize_t n;

	if (dry_run) {
		printf("write %s = %s\n", path, val);
		return 0;
	}
	if (verbose)
		fprintf(stderr, "  %s <- %s\n", path, val);
	fd = open(path, O_WRONLY | O_CLOEXEC |
		  (cfs_fake() ? O_CREAT | O_TRUNC : 0), 0644);
	if (fd < 0)
		return -errno;
	/* configfs takes a value in one write(). */
	n = write(fd, val, len);
	if (n == (ssize_t)len && cfs_fake() && write(fd, "\n", 1) != 1)
		n = -1;
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int do_mkdir(const char *path)
{
	struct stat st;

	/* Restore merges: what exists is neither made again nor printed. */
	if (!lstat(path, &st) && S_ISDIR(st.st_mode))
		return 0;
	if (dry_run) {
		printf("mkdir %s\n", path);
		return 0;
	}
	if (verbose)
		fprintf(stderr, "  mkdir %s\n", path);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* A configfs entry name taken from the file: one plain path component. */
static bool valid_entry(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < NAME_MAX && !strchr(s, '/') && strcmp(s, ".") &&
	       strcmp(s, "..");
}

/* ---- what is scalio's in nvmet ---- */

/*
 * nvmet's configfs is shared with nvmetcli and with the operator's own
 * subsystems; nothing in an nvmet object says who made it.  scalio's own
 * configfs tree does: save, restore and clear take as scalio's
 *   - subsystems: those a store names (stores/<s>/ssds/<i>/nqn), and every
 *     subsystem under scalio's NQN prefix (nqn.2024-11.io.scalio:, a naming
 *     authority no one else uses: target-setup's, and what a restore that
 *     stopped before its stores left);
 *   - hosts: those linked into scalio's subsystems, and those a store
 *     admits (stores/<s>/allowed_hosts/<nqn>, which target-setup and
 *     allow-host mirror into nvmet);
 *   - ports: those with a link to one of scalio's subsystems.
 * A host or port may also serve foreign subsystems: it is then shared, and
 * clear leaves it (only scalio's links go).
 */
struct strlist {
	char **v;
	int n;
};

static bool sl_has(const struct strlist *l, const char *s)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

static void sl_add(struct strlist *l, const char *s)
{
	char **v;

	if (sl_has(l, s))
		return;
	v = realloc(l->v, (size_t)(l->n + 1) * sizeof(*v));
	if (v) {
		l->v = v;
		v[l->n] = strdup(s);
	}
	if (!v || !v[l->n]) {
		err_msg("out of memory");
		exit(EXIT_FAIL);
	}
	l->n++;
}

static void sl_free(struct strlist *l)
{
	free_list(l->v, l->n);
	l->v = NULL;
	l->n = 0;
}

struct owned {
	struct strlist subs, hosts, ports;
};

static void owned_free(struct owned *o)
{
	sl_free(&o->subs);
	sl_free(&o->hosts);
	sl_free(&o->ports);
}

/* The names of the entries of type @type in @dir, each added to @l if @pred. */
static void add_entries(struct strlist *l, const char *dir, int type,
			bool (*pred)(const char *name))
{
	char **names;
	int i, n = list_dir(dir, type, &names);

	for (i = 0; i < n; i++)
		if (!pred || pred(names[i]))
			sl_add(l, names[i]);
	if (n > 0)
		free_list(names, n);
}

static bool scalio_nqn(const char *name)
{
	return !strncmp(name, SCALIO_NQN_PREFIX, strlen(SCALIO_NQN_PREFIX));
}

/* Whether nvmet item @name of group @group (hosts, subsystems) exists. */
static bool nvmet_item(const char *group, const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	pathf(p, "%s/nvmet/%s/%s", cfs_root(), group, name);
	return !lstat(p, &st) && S_ISDIR(st.st_mode);
}

/* scalio's objects in nvmet, as the configfs trees now are, into @o. */
static void owned_find(struct owned *o)
{
	char dir[PATH_MAX], p[PATH_MAX], nqn[SCALIO_NQN_MAX], **stores, **ssds;
	struct strlist cand = { NULL, 0 };
	int i, k, ns, nd;

	memset(o, 0, sizeof(*o));
	pathf(dir, "%s/scalio/stores", cfs_root());
	ns = list_dir(dir, DT_DIR, &stores);
	for (i = 0; i < ns; i++) {
		pathf(p, "%s/%s/ssds", dir, stores[i]);
		nd = list_dir(p, DT_DIR, &ssds);
		for (k = 0; k < nd; k++) {
			pathf(p, "%s/%s/ssds/%s/nqn", dir, stores[i], ssds[k]);
			if (read_file(p, nqn, sizeof(nqn)) > 0 &&
			    valid_entry(nqn))
				sl_add(&cand, nqn);
		}
		if (nd > 0)
			free_list(ssds, nd);
		pathf(p, "%s/%s/allowed_hosts", dir, stores[i]);
		add_entries(&o->hosts, p, DT_DIR, NULL);
	}
	if (ns > 0)
		free_list(stores, ns);
	pathf(p, "%s/nvmet/subsystems", cfs_root());
	add_entries(&cand, p, DT_DIR, scalio_nqn);
	for (i = 0; i < cand.n; i++) {
		if (!nvmet_item("subsystems", cand.v[i]))
			continue;
		sl_add(&o->subs, cand.v[i]);
		pathf(p, "%s/nvmet/subsystems/%s/allowed_hosts", cfs_root(),
		      cand.v[i]);
		add_entries(&o->hosts, p, DT_LNK, NULL);
	}
	sl_free(&cand);
	/* Only the hosts nvmet has. */
	for (i = k = 0; i < o->hosts.n; i++) {
		if (nvmet_item("hosts", o->hosts.v[i]))
			o->hosts.v[k++] = o->hosts.v[i];
		else
			free(o->hosts.v[i]);
	}
	o->hosts.n = k;
	pathf(dir, "%s/nvmet/ports", cfs_root());
	ns = list_dir(dir, DT_DIR, &stores);
	for (i = 0; i < ns; i++) {
		struct strlist links = { NULL, 0 };

		pathf(p, "%s/%s/subsystems", dir, stores[i]);
		add_entries(&links, p, DT_LNK, NULL);
		for (k = 0; k < links.n; k++)
			if (sl_has(&o->subs, links.v[k]))
				sl_add(&o->ports, stores[i]);
		sl_free(&links);
	}
	if (ns > 0)
		free_list(stores, ns);
}

/* ---- save ---- */

/* Set unless save --all: only these nvmet objects are saved. */
static const struct owned *save_only;

/* Whether save keeps item @name of group @g (nvmet's top groups filtered). */
static bool save_wanted(const struct group_spec *g, const char *name)
{
	if (!save_only)
		return true;
	if (g == &nvmet_groups[0])
		return sl_has(&save_only->hosts, name);
	if (g == &nvmet_groups[1])
		return sl_has(&save_only->subs, name);
	if (g == &nvmet_groups[2])
		return sl_has(&save_only->ports, name);
	return true;
}

/* Every rw attribute of @dir but "enable", into object "attrs". */
static int save_attrs(struct json_object *it, const char *dir, bool keyed)
{
	char p[PATH_MAX], val[ATTR_MAX], **names;
	struct json_object *attrs;
	int i, n, r, ret = 0;

	n = list_dir(dir, DT_REG, &names);
	if (n < 0)
		return n == -ENOENT ? 0 : n;
	attrs = jx(json_object_new_object());
	json_put(it, "attrs", attrs);
	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], "enable") || one_shot_attr(names[i]) ||
		    (keyed && secret_attr(names[i])))
			continue;
		pathf(p, "%s/%s", dir, names[i]);
		if (!is_rw_attr(p))
			continue;
		r = read_file(p, val, sizeof(val));
		if (r < 0) {
			/* Some attributes refuse reads in some states. */
			if (r == -EINVAL || r == -EOPNOTSUPP)
				continue;
			err_msg("read %s: %s", p, strerror(-r));
			ret = r;
			break;
		}
		json_put(attrs, names[i], json_object_new_string(val));
	}
	free_list(names, n);
	return ret;
}

static int save_group(struct json_object *to, const char *parent,
		      const struct group_spec *g);

/*
 * An allowed host's secret is never saved (scalio reads it back as
 * "(set)", nvmet as the secret itself): record the path of its key file
 * from the hosts file instead, "" when unknown (then restore refuses the
 * host rather than admit it without its secret).  The hosts file names one
 * key per host.  An nvmet host's keys are those target-setup / allow-host
 * derive from that file (dhchap.c): restore derives both again.  Keys of
 * another origin (set by hand) are not saved, with a warning.
 */
static void save_key(struct json_object *it, const char *dir, const char *nqn)
{
	char p[PATH_MAX], val[ATTR_MAX], key[PATH_MAX];
	char dh[2][DHCHAP_KEY_LEN];
	uint8_t secret[SCALIO_SECRET_MAX + 1];
	bool nvmet = strstr(dir, "/nvmet/hosts/") != NULL, derived = false;
	uint32_t len;

	pathf(p, "%s/dhchap_key", dir);
	if (read_file(p, val, sizeof(val)) <= 0 || !strcmp(val, "(null)")) {
		pathf(p, "%s/dhchap_ctrl_key", dir);
		if (read_file(p, val, sizeof(val)) > 0 && strcmp(val, "(null)"))
			fprintf(stderr, "%s: warning: %s has a controller key but no host key: not saved, set it again after a restore\n",
				progname, dir);
		memset(val, 0, sizeof(val));
		return;
	}
	if (hosts_file_key(nqn, key, sizeof(key))) {
		fprintf(stderr, "%s: warning: %s has a secret but %s names no key file for it: restore will refuse this host until it does\n",
			progname, dir, hosts_file());
		key[0] = '\0';
	} else if (nvmet && !read_secret(key, secret, &len)) {
		dhchap_keys(secret, len, dh[0], dh[1]);
		derived = !strcmp(val, dh[0]);
		pathf(p, "%s/dhchap_ctrl_key", dir);
		if (derived && (read_file(p, val, sizeof(val)) <= 0 ||
				strcmp(val, dh[1])))
			derived = false;
		memset(secret, 0, sizeof(secret));
		memset(dh, 0, sizeof(dh));
	}
	memset(val, 0, sizeof(val));
	json_put(it, "dhchap_key_file", json_object_new_string(key));
	/* Else the file's text is the host key (set by hand, older saves). */
	if (derived)
		json_put(it, "dhchap_keys", json_object_new_string("derived"));
}

/* One item @dir of group @g, into @to (its array, or for a single one its parent). */
static int save_item(struct json_object *to, const char *dir, const char *name,
		     const struct group_spec *g)
{
	struct json_object *it, *links;
	const struct group_spec *c;
	const struct link_spec *l;
	char p[PATH_MAX], val[64], **names;
	int i, n, ret;

	it = jx(json_object_new_object());
	json_put(to, g->single ? g->key : NULL, it);
	if (!g->single)
		json_put(it, "name", json_object_new_string(name));
	ret = save_attrs(it, dir, g->keyed);
	if (!ret && g->keyed)
		save_key(it, dir, name);
	for (c = g->children; !ret && c && c->key; c++)
		ret = save_group(it, dir, c);
	for (l = g->links; !ret && l && l->dir; l++) {
		pathf(p, "%s/%s", dir, l->dir);
		n = list_dir(p, DT_LNK, &names);
		if (n < 0) {
			if (n != -ENOENT)
				ret = n;
			continue;
		}
		links = jx(json_object_new_array());
		json_put(it, l->dir, links);
		for (i = 0; i < n; i++)
			/* A shared port: scalio's links only. */
			if (!save_only || l != port_links ||
			    sl_has(&save_only->subs, names[i]))
				json_put(links, NULL,
					 json_object_new_string(names[i]));
		free_list(names, n);
	}
	if (!ret && g->has_enable) {
		pathf(p, "%s/enable", dir);
		if (read_file(p, val, sizeof(val)) >= 0)
			json_put(it, "enable", json_object_new_string(val));
	}
	return ret;
}

/* Group @g of the item at @parent, as member g->key of @to. */
static int save_group(struct json_object *to, const char *parent,
		      const struct group_spec *g)
{
	char dir[PATH_MAX], item[PATH_MAX], **names;
	struct json_object *arr;
	int i, n, ret = 0;

	pathf(dir, "%s/%s", parent, g->key);
	if (g->single)
		return path_exists(dir) ? save_item(to, dir, g->key, g) : 0;
	n = list_dir(dir, DT_DIR, &names);
	if (n < 0)
		return n == -ENOENT ? 0 : n;
	arr = jx(json_object_new_array());
	json_put(to, g->key, arr);
	for (i = 0; i < n && !ret; i++) {
		if (!save_wanted(g, names[i]))
			continue;
		pathf(item, "%s/%s", dir, names[i]);
		ret = save_item(arr, item, names[i], g);
	}
	free_list(names, n);
	return ret;
}

static int save_target(struct json_object *doc, bool all)
{
	struct json_object *t, *sub;
	const struct group_spec *g;
	struct owned o;
	char dir[PATH_MAX];
	size_t i;
	int ret = 0;

	if (!all) {
		owned_find(&o);
		save_only = &o;
	}
	t = jx(json_object_new_object());
	json_put(doc, "target", t);
	for (i = 0; i < NR_ROOTS && !ret; i++) {
		pathf(dir, "%s/%s", cfs_root(), roots[i].key);
		if (!path_exists(dir))
			continue;
		sub = jx(json_object_new_object());
		json_put(t, roots[i].key, sub);
		for (g = roots[i].groups; g->key && !ret; g++)
			ret = save_group(sub, dir, g);
	}
	if (ret)
		err_msg("saving %s: %s", cfs_root(), strerror(-ret));
	if (!all) {
		save_only = NULL;
		owned_free(&o);
	}
	return ret;
}

/*
 * The nvmet port @store's SSDs were connected at: attach records it; an
 * attachment by an older scalioctl has only its live controllers to tell
 * (libnvme, which reads the real /sys even under $SCALIO_SYSFS).
 */
static uint32_t host_nvme_port(const char *store)
{
	char v[16];
	uint32_t port;

	if (attach_state_get(store, "nvme_port", v, sizeof(v)))
		return parse_u32(v, 1, 65535, &port) ? 0 : port;
	return store_nvme_port(store);
}

/*
 * The attached stores: misc devices with the host module's store
 * attributes (store, traddr, trsvcid, timeout_ms).  Calls @fn for each;
 * returns how many, or -errno.
 */
int for_each_attached(int (*fn)(const char *dir, const char *name, void *arg),
		      void *arg)
{
	char dir[PATH_MAX], p[PATH_MAX], name[SCALIO_NAME_MAX], **names;
	int i, n, nr = 0, ret = 0;

	pathf(dir, "%s/class/misc", sys_root());
	n = list_dir(dir, DT_LNK, &names);
	if (n <= 0)
		n = list_dir(dir, DT_DIR, &names);
	if (n < 0)
		return n == -ENOENT ? 0 : n;
	for (i = 0; i < n && !ret; i++) {
		if (strncmp(names[i], "scalio-", 7))
			continue;
		pathf(p, "%s/%s/store", dir, names[i]);
		if (read_file(p, name, sizeof(name)) <= 0 ||
		    !valid_store_name(name))
			continue;
		pathf(p, "%s/%s", dir, names[i]);
		ret = fn(p, name, arg);
		nr++;
	}
	free_list(names, n);
	return ret ? ret : nr;
}

struct name_list {
	char (*v)[SCALIO_NAME_MAX];
	int n;
};

static int add_attached(const char *dir, const char *name, void *arg)
{
	struct name_list *list = arg;
	char (*v)[SCALIO_NAME_MAX];

	(void)dir;
	v = realloc(list->v, (size_t)(list->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	list->v = v;
	snprintf(v[list->n++], SCALIO_NAME_MAX, "%s", name);
	return 0;
}

/**
 * attached_stores() - the names of the stores attached on this host
 * @out:	set to an array to free(), NULL with none
 *
 * Return: how many, or -errno.
 */
int attached_stores(char (**out)[SCALIO_NAME_MAX])
{
	struct name_list list = { NULL, 0 };
	int ret;

	ret = for_each_attached(add_attached, &list);
	if (ret < 0) {
		free(list.v);
		list.v = NULL;
		list.n = ret;
	}
	*out = list.v;
	return list.n;
}

static int save_one_host_store(const char *dir, const char *name, void *arg)
{
	struct json_object *w;
	char p[PATH_MAX], addr[SCALIO_ADDR_MAX], num[40];
	char nqn[PATH_MAX + 16];
	uint32_t v;

	pathf(p, "%s/traddr", dir);
	if (read_file(p, addr, sizeof(addr)) <= 0 || !valid_ip_literal(addr)) {
		err_msg("store %s: no valid address in %s", name, p);
		return -EINVAL;
	}
	w = jx(json_object_new_object());
	json_put(arg, NULL, w);
	json_put(w, "name", json_object_new_string(name));
	json_put(w, "addr", json_object_new_string(addr));
	pathf(p, "%s/trsvcid", dir);
	if (read_file(p, num, sizeof(num)) > 0 && !parse_u32(num, 1, 65535, &v))
		json_put(w, "port", json_object_new_int64(v));
	v = host_nvme_port(name);
	if (v)
		json_put(w, "nvme_port", json_object_new_int64(v));
	pathf(p, "%s/timeout_ms", dir);
	if (read_file(p, num, sizeof(num)) > 0 &&
	    !parse_u32(num, 1, 3600000, &v))
		json_put(w, "timeout_ms", json_object_new_int64(v));
	pathf(p, "%s/fast_io_fail_ms", dir);
	if (read_file(p, num, sizeof(num)) > 0 &&
	    !parse_u32(num, 0, SCALIO_FAST_IO_FAIL_MAX_MS, &v))
		json_put(w, "fast_io_fail_ms", json_object_new_int64(v));
	/* Older modules have no hostnqn/hostid: attach's defaults then. */
	pathf(p, "%s/hostnqn", dir);
	if (read_file(p, nqn, sizeof(nqn)) > 0 && valid_nqn(nqn))
		json_put(w, "hostnqn", json_object_new_string(nqn));
	pathf(p, "%s/hostid", dir);
	if (read_file(p, num, sizeof(num)) > 0 && valid_uuid(num))
		json_put(w, "hostid", json_object_new_string(num));
	if (attach_state_get(name, "key_file", p, sizeof(p)) && p[0] == '/')
		json_put(w, "key_file", json_object_new_string(p));
	return 0;
}

static int save_host(struct json_object *doc)
{
	struct json_object *h, *stores;
	int ret;

	h = jx(json_object_new_object());
	json_put(doc, "host", h);
	stores = jx(json_object_new_array());
	json_put(h, "stores", stores);
	ret = for_each_attached(save_one_host_store, stores);
	return ret < 0 ? ret : 0;
}

static bool target_present(void)
{
	char p[PATH_MAX];
	size_t i;

	for (i = 0; i < NR_ROOTS; i++) {
		pathf(p, "%s/%s", cfs_root(), roots[i].key);
		if (path_exists(p))
			return true;
	}
	return false;
}

static bool host_present(void)
{
	char p[PATH_MAX];

	pathf(p, "%s/module/scalio_host", sys_root());
	return path_exists(p) || (!getenv("SCALIO_SYSFS") &&
				  path_exists(SCALIO_CTL_DEV));
}

enum { SIDE_TARGET = 1, SIDE_HOST = 2 };

/* --target / --host / neither (= what this machine runs). */
static int parse_side_opts(const char *cmd, int argc, char **argv, int *side,
			   bool allow_dry, bool *all)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "target", no_argument, NULL, 't' },
		{ "host", no_argument, NULL, 'H' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*side = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (!all)
				return usage_error(cmd, "unknown option '--all'");
			*all = true;
			break;
		case 't':
			*side |= SIDE_TARGET;
			break;
		case 'H':
			*side |= SIDE_HOST;
			break;
		case 'n':
			if (!allow_dry)
				return usage_error(cmd, "unknown option '--dry-run'");
			dry_run = true;
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
	return -1;
}

static struct json_object *to_cli(struct json_object *doc);

int cmd_save(int argc, char **argv)
{
	char tmp[PATH_MAX];
	const char *file = NULL;
	struct json_object *doc, *out;
	int side, ret, fd;
	bool all = false;
	FILE *f = stdout;

	ret = parse_side_opts("save", argc, argv, &side, false, &all);
	if (ret >= 0)
		return ret;
	if (argc - optind > 1)
		return usage_error("save", "unexpected argument '%s'",
				   argv[optind + 1]);
	if (argc - optind == 1 && strcmp(argv[optind], "-"))
		file = argv[optind];
	if (!side) {
		side = (target_present() ? SIDE_TARGET : 0) |
		       (host_present() ? SIDE_HOST : 0);
		if (!side) {
			err_msg("neither the target's configfs (%s/nvmet, %s/scalio) nor the scalio-host module is there: nothing to save (use --target or --host)",
				cfs_root(), cfs_root());
			return EXIT_FAIL;
		}
	}
	if (file) {
		/*
		 * Written aside and renamed: a failed save keeps the old file.
		 * A new file of our own, never one a link or someone else
		 * put there first.
		 */
		pathf(tmp, "%s.tmp.%d", file, (int)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_CLOEXEC, 0600);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			err_msg("create %s: %s", tmp, strerror(errno));
			if (fd >= 0)
				close(fd);
			return EXIT_FAIL;
		}
	}
	doc = jx(json_object_new_object());
	json_put(doc, "scalio_config", json_object_new_int(CONFIG_VERSION));
	ret = 0;
	if (side & SIDE_TARGET)
		ret = save_target(doc, all);
	if (!ret && (side & SIDE_HOST))
		ret = save_host(doc);
	if (!ret) {
		out = to_cli(doc);
		ret = json_write(f, out, true);
		json_object_put(out);
		if (ret == -EILSEQ)
			err_msg("a configuration value is not valid UTF-8: not saved");
		else if (ret)
			err_msg("write %s: %s", file ? tmp : "standard output",
				strerror(-ret));
	}
	json_object_put(doc);
	if (file) {
		if (!ret && fsync(fileno(f)))
			ret = -errno;
		if (fclose(f) && !ret)
			ret = -errno;
		if (!ret && rename(tmp, file)) {
			ret = -errno;
			err_msg("rename %s to %s: %s", tmp, file, strerror(errno));
		}
		if (ret)
			unlink(tmp);
	}
	return ret ? EXIT_FAIL : EXIT_OK;
}

/* ---- restore: validation ---- */

static int bad(const char *where, const char *what)
{
	err_msg("malformed configuration: %s: %s", where, what);
	return -EINVAL;
}

static int check_item(struct json_object *it, const struct group_spec *g,
		      const char *where);

static int check_group(struct json_object *arr, const struct group_spec *g,
		       const char *where)
{
	size_t i, k, len;
	char w[512];

	if (g->single) {
		if (!json_object_is_type(arr, json_type_object))
			return bad(where, "not an object");
		snprintf(w, sizeof(w), "%s/%s", where, g->key);
		return check_item(arr, g, w);
	}
	if (!json_object_is_type(arr, json_type_array))
		return bad(where, "not an array");
	len = json_object_array_length(arr);
	for (i = 0; i < len; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		const char *n = json_str(json_get(e, "name"));

		if (!json_object_is_type(e, json_type_object))
			return bad(where, "an element is not an object");
		if (!n || !valid_entry(n))
			return bad(where, "an element has no valid \"name\"");
		for (k = 0; k < i; k++)
			if (!strcmp(json_str(json_get(json_object_array_get_idx(arr, k),
						      "name")), n))
				return bad(where, "duplicate name");
		snprintf(w, sizeof(w), "%s/%s", where, n);
		if (check_item(e, g, w))
			return -EINVAL;
	}
	return 0;
}

static int check_item(struct json_object *it, const struct group_spec *g,
		      const char *where)
{
	const struct group_spec *c;
	const struct link_spec *l;
	size_t i;
	char w[512];

	json_object_object_foreach(it, key, m) {
		const char *str = json_str(m);

		snprintf(w, sizeof(w), "%s: \"%s\"", where, key);
		if (!strcmp(key, "name") && !g->single)
			continue;
		if (!strcmp(key, "attrs")) {
			if (!json_object_is_type(m, json_type_object))
				return bad(w, "not an object");
			json_object_object_foreach(m, akey, a)
				if (!valid_entry(akey) || !strcmp(akey, "enable") ||
				    (g->keyed && secret_attr(akey)) ||
				    !json_str(a))
					return bad(w, "attributes must be \"file\": \"text\"");
			continue;
		}
		if (!strcmp(key, "secrets") && g->keyed) {
			if (!json_object_is_type(m, json_type_object))
				return bad(w, "not an object");
			json_object_object_foreach(m, skey, sv)
				if (!secret_attr(skey) || !json_str(sv))
					return bad(w, "secrets are dhchap_key and dhchap_ctrl_key, as text");
			continue;
		}
		if (!strcmp(key, "dhchap_key_file") && g->keyed) {
			if (!str || (str[0] && str[0] != '/'))
				return bad(w, "must be an absolute path or \"\"");
			continue;
		}
		if (!strcmp(key, "dhchap_keys") && g->keyed) {
			if (!str || strcmp(str, "derived"))
				return bad(w, "must be \"derived\"");
			continue;
		}
		if (!strcmp(key, "enable") && g->has_enable) {
			if (!str || (strcmp(str, "0") && strcmp(str, "1")))
				return bad(w, "must be \"0\" or \"1\"");
			continue;
		}
		for (c = g->children; c && c->key; c++)
			if (!strcmp(key, c->key))
				break;
		if (c && c->key) {
			if (check_group(m, c, w))
				return -EINVAL;
			continue;
		}
		for (l = g->links; l && l->dir; l++)
			if (!strcmp(key, l->dir))
				break;
		if (l && l->dir) {
			if (!json_object_is_type(m, json_type_array))
				return bad(w, "not an array");
			for (i = 0; i < json_object_array_length(m); i++) {
				str = json_str(json_object_array_get_idx(m, i));
				if (!str || !valid_entry(str))
					return bad(w, "links must be names");
			}
			continue;
		}
		return bad(w, "unknown member");
	}
	return 0;
}

/* Member @key of an element of host.stores, checked. */
static int check_host_member(const char *store, const char *key,
			     struct json_object *m)
{
	const char *str = json_str(m);
	uint32_t v;

	if (!strcmp(key, "name") || !strcmp(key, "addr"))
		return 0;
	if (!strcmp(key, "port") || !strcmp(key, "nvme_port")) {
		if (json_u32(m, 65535, &v) || !v)
			return bad(store, "ports must be 1..65535");
	} else if (!strcmp(key, "timeout_ms")) {
		if (json_u32(m, 3600000, &v) || !v)
			return bad(store, "timeout_ms must be 1..3600000");
	} else if (!strcmp(key, "fast_io_fail_ms")) {
		if (json_u32(m, SCALIO_FAST_IO_FAIL_MAX_MS, &v))
			return bad(store, "fast_io_fail_ms must be 0..600000");
	} else if (!strcmp(key, "hostnqn")) {
		if (!str || !valid_nqn(str))
			return bad(store, "hostnqn must be an NQN");
	} else if (!strcmp(key, "hostid")) {
		if (!str || !valid_uuid(str))
			return bad(store, "hostid must be a UUID");
	} else if (!strcmp(key, "key_file")) {
		/* A path, never a secret. */
		if (!str || str[0] != '/' || strlen(str) >= PATH_MAX)
			return bad(store, "key_file must be an absolute path");
	} else {
		return bad(store, "unknown member");
	}
	return 0;
}

static int check_host(struct json_object *h)
{
	struct json_object *st;
	size_t i, k, len;

	if (!json_object_is_type(h, json_type_object))
		return bad("host", "not an object");
	json_object_object_foreach(h, key, val) {
		(void)val;
		if (strcmp(key, "stores"))
			return bad("host", "unknown member");
	}
	st = json_get(h, "stores");
	if (!st)
		return 0;
	if (!json_object_is_type(st, json_type_array))
		return bad("host: stores", "not an array");
	len = json_object_array_length(st);
	for (i = 0; i < len; i++) {
		struct json_object *e = json_object_array_get_idx(st, i);
		const char *n = json_str(json_get(e, "name"));
		const char *a = json_str(json_get(e, "addr"));

		if (!json_object_is_type(e, json_type_object) || !n ||
		    !valid_store_name(n))
			return bad("host: stores", "an element has no valid \"name\"");
		for (k = 0; k < i; k++)
			if (!strcmp(json_str(json_get(json_object_array_get_idx(st, k),
						      "name")), n))
				return bad("host: stores", "duplicate name");
		if (!a || !valid_ip_literal(a))
			return bad(n, "no valid \"addr\"");
		json_object_object_foreach(e, skey, sm)
			if (check_host_member(n, skey, sm))
				return -EINVAL;
	}
	return 0;
}

static int check_config(struct json_object *cfg)
{
	const struct group_spec *g;
	struct json_object *t, *m;
	uint32_t v;
	size_t i;

	if (!json_object_is_type(cfg, json_type_object))
		return bad("top level", "not an object");
	if (json_u32(json_get(cfg, "scalio_config"), UINT32_MAX, &v) ||
	    v != CONFIG_VERSION)
		return bad("top level", "\"scalio_config\" must be 1");
	json_object_object_foreach(cfg, key, val) {
		(void)val;
		if (strcmp(key, "scalio_config") && strcmp(key, "target") &&
		    strcmp(key, "host"))
			return bad("top level", "unknown member");
	}
	t = json_get(cfg, "target");
	if (t) {
		if (!json_object_is_type(t, json_type_object))
			return bad("target", "not an object");
		json_object_object_foreach(t, tkey, sub) {
			for (i = 0; i < NR_ROOTS; i++)
				if (!strcmp(tkey, roots[i].key))
					break;
			if (i == NR_ROOTS ||
			    !json_object_is_type(sub, json_type_object))
				return bad("target", "unknown member or not an object");
			json_object_object_foreach(sub, gkey, r) {
				for (g = roots[i].groups; g->key; g++)
					if (!strcmp(gkey, g->key))
						break;
				if (!g->key)
					return bad(tkey, "unknown member");
				if (check_group(r, g, g->key))
					return -EINVAL;
			}
		}
	}
	m = json_get(cfg, "host");
	if (m && check_host(m))
		return -EINVAL;
	return 0;
}

/* ---- nvmetcli's config.json schema ---- */

/*
 * The nvmet part of a saved file is in the schema of nvmetcli's
 * /etc/nvmet/config.json (top-level "hosts", "ports", "subsystems"), so
 * either tool restores what the other saved; scalio's own tree and the
 * host side are in member "scalio", which nvmetcli ignores.  Internally
 * (and in files of version 1) an item is {"name", "attrs": {FILE: TEXT},
 * "enable": "0"|"1", children, links}; nvmetcli names an item by an id
 * member (integers for port, namespace and ANA group ids), groups
 * attribute FILE "GROUP_NAME" as member NAME of object GROUP, and writes
 * "enable" and some attributes as integers.  The conversion below maps
 * one to the other; the restore then goes through the checks of version 1.
 */
#define CLI_VERSION	2

struct cli_kind {
	const char *group;		/* internal group key */
	const char *id;			/* NULL: a single item (passthru) */
	bool int_id;
	const char *const *attr_groups;	/* as nvmetcli's attr_groups */
	const char *const *ints;	/* attributes also written as integers */
	const char *enable;		/* the member of "enable" */
};

static const char *const cli_dhchap[] = { "dhchap", NULL };
static const char *const cli_attr[] = { "attr", NULL };
static const char *const cli_ns[] = { "device", "ana", "resv", NULL };
static const char *const cli_device[] = { "device", NULL };
static const char *const cli_port[] = { "addr", "param", NULL };
static const char *const cli_addr[] = { "addr", NULL };
static const char *const cli_ana[] = { "ana", NULL };
static const char *const cli_ns_ints[] = { "ana_grpid", NULL };
static const char *const cli_pt_ints[] = {
	"clear_ids", "admin_timeout", "io_timeout", NULL
};

static const struct cli_kind cli_kinds[] = {
	{ "hosts", "nqn", false, cli_dhchap, NULL, "enable" },
	{ "subsystems", "nqn", false, cli_attr, NULL, "enable" },
	{ "namespaces", "nsid", true, cli_ns, cli_ns_ints, "enable" },
	/*
	 * nvmetcli never reads a passthru's enable, and its restore stops
	 * at one it was given: keep ours under a name it ignores.
	 */
	{ "passthru", NULL, false, cli_device, cli_pt_ints, "scalio_enable" },
	{ "ports", "portid", true, cli_port, NULL, "enable" },
	{ "referrals", "name", false, cli_addr, NULL, "enable" },
	{ "ana_groups", "grpid", true, cli_ana, NULL, "enable" },
	{ NULL },
};

/* Attributes of no group nvmetcli knows, kept for our own restore. */
#define CLI_EXTRA	"scalio_attrs"

static const struct cli_kind *cli_kind(const char *group)
{
	const struct cli_kind *k;

	for (k = cli_kinds; k->group; k++)
		if (!strcmp(k->group, group))
			return k;
	return NULL;
}

static bool in_list(const char *const *list, const char *s)
{
	while (list && *list)
		if (!strcmp(*list++, s))
			return true;
	return false;
}

/* A decimal integer of configfs text, as nvmetcli's int() reads it. */
static bool text_int(const char *s, int64_t *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && !*end;
}

/* Member @key of object @o, created empty when missing. */
static struct json_object *obj_member(struct json_object *o, const char *key)
{
	struct json_object *m = json_get(o, key);

	if (!m) {
		m = jx(json_object_new_object());
		json_put(o, key, m);
	}
	return m;
}

static struct json_object *to_cli_item(struct json_object *it,
				       const struct group_spec *g);

/* Internal group @g's member of @it, as nvmetcli's array in @o. */
static void to_cli_group(struct json_object *o, struct json_object *it,
			 const struct group_spec *g)
{
	struct json_object *m = json_get(it, g->key), *arr;
	size_t i;

	if (!m)
		return;
	arr = jx(json_object_new_array());
	json_put(o, g->key, arr);
	if (g->single) {
		json_put(arr, NULL, to_cli_item(m, g));
		return;
	}
	for (i = 0; i < json_object_array_length(m); i++)
		json_put(arr, NULL,
			 to_cli_item(json_object_array_get_idx(m, i), g));
}

/* Internal item @it of group @g in nvmetcli's schema. */
static struct json_object *to_cli_item(struct json_object *it,
				       const struct group_spec *g)
{
	const struct cli_kind *k = cli_kind(g->key);
	struct json_object *o = jx(json_object_new_object()), *m;
	const struct group_spec *c;
	const struct link_spec *l;
	const char *const *ag;
	char pre[NAME_MAX];
	int64_t v;

	if (k->id) {
		const char *name = json_str(json_get(it, "name"));

		if (k->int_id && text_int(name, &v))
			json_put(o, k->id, json_object_new_int64(v));
		else
			json_put(o, k->id, json_object_new_string(name));
	}
	/* nvmetcli writes every group of the kind, empty or not. */
	for (ag = k->attr_groups; *ag; ag++)
		obj_member(o, *ag);
	m = json_get(it, "attrs");
	if (m) {
		json_object_object_foreach(m, file, val) {
			const char *us = strchr(file, '_');
			bool grouped = false, as_int = false;

			if (us) {
				snprintf(pre, sizeof(pre), "%.*s",
					 (int)(us - file), file);
				grouped = in_list(k->attr_groups, pre);
			}
			if (grouped)
				json_put(obj_member(o, pre), us + 1,
					 json_object_get(val));
			if (in_list(k->ints, file) &&
			    text_int(json_str(val), &v)) {
				json_put(o, file, json_object_new_int64(v));
				as_int = true;
			}
			if (!grouped && !as_int)
				json_put(obj_member(o, CLI_EXTRA), file,
					 json_object_get(val));
		}
	}
	/* As nvmetcli, which writes 0 for a namespace without ANA group. */
	if (!strcmp(g->key, "namespaces") && !json_get(o, "ana_grpid"))
		json_put(o, "ana_grpid", json_object_new_int(0));
	m = json_get(it, "enable");
	if (m)
		json_put(o, k->enable,
			 json_object_new_int(!strcmp(json_str(m), "1")));
	m = json_get(it, "dhchap_key_file");
	if (m)
		json_put(o, "dhchap_key_file", json_object_get(m));
	m = json_get(it, "dhchap_keys");
	if (m)
		json_put(o, "dhchap_keys", json_object_get(m));
	for (c = g->children; c && c->key; c++)
		to_cli_group(o, it, c);
	for (l = g->links; l && l->dir; l++) {
		m = json_get(it, l->dir);
		if (m)
			json_put(o, l->dir, json_object_get(m));
	}
	return o;
}

/*
 * to_cli() - a saved document (version 1 layout, @doc) in nvmetcli's
 * schema: nvmet's groups at the top level, the rest under "scalio".
 */
static struct json_object *to_cli(struct json_object *doc)
{
	struct json_object *o = jx(json_object_new_object()), *sc, *t, *m;
	const struct group_spec *g;

	t = json_get(doc, "target");
	m = json_get(t, "nvmet");
	for (g = nvmet_groups; m && g->key; g++) {
		if (json_get(m, g->key))
			to_cli_group(o, m, g);
		else
			json_put(o, g->key, json_object_new_array());
	}
	sc = jx(json_object_new_object());
	json_put(o, "scalio", sc);
	json_put(sc, "version", json_object_new_int(CLI_VERSION));
	m = json_get(t, "scalio");
	if (m)
		json_put(sc, "target", json_object_get(m));
	m = json_get(doc, "host");
	if (m)
		json_put(sc, "host", json_object_get(m));
	return o;
}

static int from_cli_item(struct json_object *o, const struct group_spec *g,
			 const char *where, struct json_object **out);

/* nvmetcli's array @arr of group @g into internal member of @it. */
static int from_cli_group(struct json_object *it, struct json_object *arr,
			  const struct group_spec *g, const char *where)
{
	struct json_object *a, *e;
	size_t i, len;
	char w[512];

	snprintf(w, sizeof(w), "%s/%s", where, g->key);
	if (!json_object_is_type(arr, json_type_array))
		return bad(w, "not an array");
	len = json_object_array_length(arr);
	if (g->single) {
		if (len > 1)
			return bad(w, "more than one");
		if (!len)
			return 0;
		if (from_cli_item(json_object_array_get_idx(arr, 0), g, w, &e))
			return -EINVAL;
		json_put(it, g->key, e);
		return 0;
	}
	a = jx(json_object_new_array());
	json_put(it, g->key, a);
	for (i = 0; i < len; i++) {
		if (from_cli_item(json_object_array_get_idx(arr, i), g, w, &e))
			return -EINVAL;
		json_put(a, NULL, e);
	}
	return 0;
}

/* One attribute group @grp ("GROUP": {NAME: TEXT}) into @attrs. */
static int from_cli_attrs(struct json_object *attrs, struct json_object *secrets,
			  const char *grp, struct json_object *m,
			  const char *where)
{
	char file[NAME_MAX + 1];

	if (!json_object_is_type(m, json_type_object))
		return bad(where, "an attribute group is not an object");
	json_object_object_foreach(m, name, val) {
		bool is_int = json_object_is_type(val, json_type_int);

		if (!json_str(val) && !is_int)
			return bad(where, "attributes must be text");
		if (grp)
			snprintf(file, sizeof(file), "%s_%s", grp, name);
		else
			snprintf(file, sizeof(file), "%s", name);
		if (secrets && secret_attr(file)) {
			json_put(secrets, file, json_object_get(val));
			continue;
		}
		json_put(attrs, file, is_int ?
			 json_object_new_string(json_object_get_string(val)) :
			 json_object_get(val));
	}
	return 0;
}

/* nvmetcli's item @o of group @g as an internal item, into *@out. */
static int from_cli_item(struct json_object *o, const struct group_spec *g,
			 const char *where, struct json_object **out)
{
	const struct cli_kind *k = cli_kind(g->key);
	struct json_object *it, *attrs, *secrets = NULL, *m;
	const struct group_spec *c;
	const struct link_spec *l;
	char w[512], name[32];
	int64_t v;

	*out = NULL;
	if (!json_object_is_type(o, json_type_object))
		return bad(where, "an element is not an object");
	it = jx(json_object_new_object());
	if (k->id) {
		m = json_get(o, k->id);
		if (k->int_id && json_object_is_type(m, json_type_int) &&
		    json_object_get_int64(m) >= 0) {
			snprintf(name, sizeof(name), "%lld",
				 (long long)json_object_get_int64(m));
			json_put(it, "name", json_object_new_string(name));
		} else if (!k->int_id && json_str(m)) {
			json_put(it, "name", json_object_get(m));
		} else {
			snprintf(w, sizeof(w), "no valid \"%s\"", k->id);
			goto bad_item;
		}
	}
	snprintf(w, sizeof(w), "%s/%s", where,
		 k->id ? json_str(json_get(it, "name")) : g->key);
	attrs = jx(json_object_new_object());
	json_put(it, "attrs", attrs);
	if (g->keyed) {
		secrets = jx(json_object_new_object());
		json_put(it, "secrets", secrets);
	}
	json_object_object_foreach(o, key, val) {
		if (k->id && !strcmp(key, k->id))
			continue;
		if (!strcmp(key, "enable") || !strcmp(key, k->enable)) {
			if (!json_object_is_type(val, json_type_int) ||
			    json_object_get_int64(val) < 0 ||
			    json_object_get_int64(val) > 1) {
				json_object_put(it);
				return bad(w, "\"enable\" must be 0 or 1");
			}
			json_put(it, "enable", json_object_new_string(
				 json_object_get_int64(val) ? "1" : "0"));
			continue;
		}
		if (!strcmp(key, "dhchap_key_file") ||
		    !strcmp(key, "dhchap_keys") || in_list(k->ints, key)) {
			/* Checked later (the key file), integers below. */
			if (!in_list(k->ints, key))
				json_put(it, key, json_object_get(val));
			continue;
		}
		for (c = g->children; c && c->key; c++)
			if (!strcmp(key, c->key))
				break;
		if (c && c->key) {
			if (from_cli_group(it, val, c, w))
				goto fail;
			continue;
		}
		for (l = g->links; l && l->dir; l++)
			if (!strcmp(key, l->dir))
				break;
		if (l && l->dir) {
			json_put(it, key, json_object_get(val));
			continue;
		}
		/*
		 * Any other object is an attribute group, so that the
		 * groups of a newer nvmetcli are restored as well.
		 */
		if (json_object_is_type(val, json_type_object)) {
			if (from_cli_attrs(attrs, secrets,
					   strcmp(key, CLI_EXTRA) ? key : NULL,
					   val, w))
				goto fail;
			continue;
		}
		snprintf(name, sizeof(name), "%.20s", key);
		json_object_put(it);
		snprintf(w + strlen(w), sizeof(w) - strlen(w), ": \"%s\"", name);
		return bad(w, "unknown member");
	}
	/* Integers that the attribute groups did not already give. */
	json_object_object_foreach(o, ikey, ival) {
		if (!in_list(k->ints, ikey) || json_get(attrs, ikey))
			continue;
		if (!json_object_is_type(ival, json_type_int)) {
			json_object_put(it);
			return bad(w, "not an integer");
		}
		v = json_object_get_int64(ival);
		/* nvmetcli writes ana_grpid 0 when the kernel has none. */
		if (!strcmp(ikey, "ana_grpid") && !v)
			continue;
		snprintf(name, sizeof(name), "%lld", (long long)v);
		json_put(attrs, ikey, json_object_new_string(name));
	}
	*out = it;
	return 0;
bad_item:
	json_object_put(it);
	return bad(where, w);
fail:
	json_object_put(it);
	return -EINVAL;
}

/*
 * from_cli() - a file in nvmetcli's schema (@cfg, maybe with our "scalio"
 * member) as a document of version 1, into *@out.
 *
 * Return: 0, or -EINVAL (with a message).
 */
static int from_cli(struct json_object *cfg, struct json_object **out)
{
	struct json_object *doc, *t, *nv = NULL, *sc, *m;
	const struct group_spec *g;
	uint32_t v;

	*out = NULL;
	if (!json_object_is_type(cfg, json_type_object))
		return bad("top level", "not an object");
	json_object_object_foreach(cfg, key, val) {
		(void)val;
		for (g = nvmet_groups; g->key; g++)
			if (!strcmp(key, g->key))
				break;
		if (!g->key && strcmp(key, "scalio") && strcmp(key, "discovery"))
			return bad("top level", "unknown member");
	}
	m = json_get(cfg, "discovery");
	if (m) {
		if (!json_object_is_type(m, json_type_object))
			return bad("discovery", "not an object");
		if (json_object_object_length(m))
			fprintf(stderr, "%s: warning: \"discovery\" (nvmet's discovery_nqn) is not restored\n",
				progname);
	}
	doc = jx(json_object_new_object());
	json_put(doc, "scalio_config", json_object_new_int(CONFIG_VERSION));
	t = jx(json_object_new_object());
	json_put(doc, "target", t);
	for (g = nvmet_groups; g->key; g++) {
		m = json_get(cfg, g->key);
		if (!m)
			continue;
		if (!nv) {
			nv = jx(json_object_new_object());
			json_put(t, "nvmet", nv);
		}
		if (from_cli_group(nv, m, g, "nvmet"))
			goto fail;
	}
	sc = json_get(cfg, "scalio");
	if (sc) {
		if (!json_object_is_type(sc, json_type_object) ||
		    json_u32(json_get(sc, "version"), UINT32_MAX, &v) ||
		    v != CLI_VERSION) {
			bad("scalio", "\"version\" must be 2");
			goto fail;
		}
		json_object_object_foreach(sc, skey, sval) {
			if (!strcmp(skey, "target"))
				json_put(t, "scalio", json_object_get(sval));
			else if (!strcmp(skey, "host"))
				json_put(doc, "host", json_object_get(sval));
			else if (strcmp(skey, "version")) {
				bad("scalio", "unknown member");
				goto fail;
			}
		}
	}
	if (!json_object_object_length(t))
		json_object_object_del(doc, "target");
	*out = doc;
	return 0;
fail:
	json_object_put(doc);
	return -EINVAL;
}

/*
 * Files of version 1 held nvmet hosts' secrets as attributes: keep them
 * apart, as "secrets", which are written but never printed.
 */
static void v1_secrets(struct json_object *cfg)
{
	struct json_object *hosts, *h, *attrs, *sec;
	size_t i;

	hosts = json_get(json_get(json_get(cfg, "target"), "nvmet"), "hosts");
	if (!json_object_is_type(hosts, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(hosts); i++) {
		h = json_object_array_get_idx(hosts, i);
		attrs = json_get(h, "attrs");
		if (!json_object_is_type(attrs, json_type_object))
			continue;
		sec = NULL;
		json_object_object_foreach(attrs, key, val) {
			if (!secret_attr(key))
				continue;
			if (!sec)
				sec = obj_member(h, "secrets");
			json_put(sec, key, json_object_get(val));
		}
		json_object_object_del(attrs, "dhchap_key");
		json_object_object_del(attrs, "dhchap_ctrl_key");
	}
}

/* ---- restore: apply ---- */

/* A secret attribute's text: "" when none is set. */
static void read_secret_attr(const char *path, char *cur, size_t len)
{
	if (read_file(path, cur, len) < 0 || !strcmp(cur, "(null)"))
		cur[0] = '\0';
}

static int restore_item(const char *dir, struct json_object *it,
			const struct group_spec *g);
static int restore_key(const char *dir, const char *file, bool derived);
static int restore_secrets(const char *dir, struct json_object *secrets);
static int put_secret(const char *path, const char *secret);

static int restore_group(const char *parent, struct json_object *arr,
			 const struct group_spec *g)
{
	char dir[PATH_MAX], item[PATH_MAX];
	size_t i;
	int ret;

	pathf(dir, "%s/%s", parent, g->key);
	if (g->single) {
		if (!dry_run && !cfs_fake() && !path_exists(dir)) {
			err_msg("%s does not exist on this kernel", dir);
			return -ENOENT;
		}
		if (cfs_fake()) {
			ret = do_mkdir(dir);
			if (ret)
				return ret;
		}
		return restore_item(dir, arr, g);
	}
	/* A default group in configfs; only a fake tree needs it made. */
	if (cfs_fake()) {
		ret = do_mkdir(dir);
		if (ret)
			goto fail_dir;
	}
	for (i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		const char *name = json_str(json_get(e, "name"));

		pathf(item, "%s/%s", dir, name);
		if (!g->keep || strcmp(name, g->keep) || cfs_fake()) {
			ret = do_mkdir(item);
			if (ret) {
				pathf(dir, "%s", item);
				goto fail_dir;
			}
		}
		ret = restore_item(item, e, g);
		if (ret)
			return ret;
	}
	return 0;
fail_dir:
	err_msg("mkdir %s: %s", dir, strerror(-ret));
	return ret;
}

/* The "attrs" of an item (checked: strings) into its directory @dir. */
static int restore_attrs(const char *dir, struct json_object *attrs)
{
	char p[PATH_MAX], cur[ATTR_MAX];
	int ret;

	if (!attrs)
		return 0;
	json_object_object_foreach(attrs, akey, aval) {
		const char *val = json_str(aval);

		if (one_shot_attr(akey)) {
			if (strcmp(val, "0"))
				fprintf(stderr, "%s: warning: %s/%s not restored: restore never formats nor forces recovery (target-setup --format/--force-recover does)\n",
					progname, dir, akey);
			continue;
		}
		pathf(p, "%s/%s", dir, akey);
		if (!cfs_fake() && !path_exists(p)) {
			err_msg("%s: attribute not supported by this kernel", p);
			return -ENOENT;
		}
		/* Defaults and write-once values need no write. */
		if (read_file(p, cur, sizeof(cur)) >= 0 && !strcmp(cur, val))
			continue;
		ret = put_attr(p, val);
		if (ret) {
			err_msg("write '%s' to %s: %s", val, p, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int restore_item(const char *dir, struct json_object *it,
			const struct group_spec *g)
{
	const struct group_spec *c;
	const struct link_spec *l;
	char p[PATH_MAX], lk[PATH_MAX], cur[ATTR_MAX];
	struct json_object *m;
	struct stat st;
	size_t i;
	int ret;

	ret = restore_attrs(dir, json_get(it, "attrs"));
	if (ret)
		return ret;
	m = json_get(it, "dhchap_key_file");
	if (g->keyed && m) {
		ret = restore_key(dir, json_str(m),
				  json_get(it, "dhchap_keys") != NULL);
		if (ret)
			return ret;
	}
	m = json_get(it, "secrets");
	if (g->keyed && m) {
		ret = restore_secrets(dir, m);
		if (ret)
			return ret;
	}
	for (c = g->children; c && c->key; c++) {
		m = json_get(it, c->key);
		if (m) {
			ret = restore_group(dir, m, c);
			if (ret)
				return ret;
		}
	}
	for (l = g->links; l && l->dir; l++) {
		m = json_get(it, l->dir);
		if (m && cfs_fake()) {
			pathf(cur, "%s/%s", dir, l->dir);
			do_mkdir(cur);
		}
		for (i = 0; m && i < json_object_array_length(m); i++) {
			const char *name = json_str(json_object_array_get_idx(m, i));

			pathf(p, "%s/%s/%s", cfs_root(), l->target, name);
			pathf(lk, "%s/%s/%s", dir, l->dir, name);
			if (!lstat(lk, &st))
				continue;	/* merged: there already */
			if (dry_run) {
				printf("link %s -> %s\n", lk, p);
				continue;
			}
			if (verbose)
				fprintf(stderr, "  ln -s %s %s\n", p, lk);
			if (symlink(p, lk) && errno != EEXIST) {
				ret = -errno;
				err_msg("link %s -> %s: %s", lk, p, strerror(errno));
				return ret;
			}
		}
	}
	m = json_get(it, "enable");
	pathf(p, "%s/enable", dir);
	if (g->has_enable && m && (read_file(p, cur, sizeof(cur)) < 0 ||
				   strcmp(cur, json_str(m)))) {
		ret = put_attr(p, json_str(m));
		if (ret) {
			err_msg("enable %s: %s%s", dir, strerror(-ret),
				strstr(dir, "/scalio/") ? " (see dmesg for the reason)" : "");
			return ret;
		}
	}
	return 0;
}

/*
 * Give allowed host @dir its secret from @file, or when "" (save did not
 * know it) from the hosts file (@derived: an nvmet host's two NVMe keys
 * derived from it, dhchap.c, as target-setup / allow-host set them); without one the restore fails: a host
 * that had a secret is not admitted without it.
 */
static int restore_key(const char *dir, const char *file, bool derived)
{
	const char *nqn = strrchr(dir, '/') + 1;
	char key[PATH_MAX], p[PATH_MAX];
	uint8_t secret[SCALIO_SECRET_MAX + 1];
	uint32_t len;
	int ret;

	if (file[0])
		pathf(key, "%s", file);
	else if (hosts_file_key(nqn, key, sizeof(key))) {
		err_msg("%s had a secret that save could not record: name its key file in %s (\"%s KEYFILE\")",
			dir, hosts_file(), nqn);
		return -ENOKEY;
	}
	pathf(p, "%s/dhchap_key", dir);
	/* A dry run reads the key file only to leave out what holds it already. */
	if (dry_run && access(key, R_OK)) {
		printf("write %s = (secret from %s)\n", p, key);
		return 0;
	}
	if (read_secret(key, secret, &len)) {
		err_msg("%s: no secret from %s", dir, key);
		return -ENOKEY;
	}
	secret[len] = '\0';
	if (derived) {
		/* nvmet: the NVMe keys of the secret, both (dhchap.c). */
		char dh[2][DHCHAP_KEY_LEN];

		dhchap_keys(secret, len, dh[0], dh[1]);
		ret = put_secret(p, dh[0]);
		pathf(p, "%s/dhchap_ctrl_key", dir);
		if (!ret)
			ret = put_secret(p, dh[1]);
		memset(dh, 0, sizeof(dh));
	} else {
		ret = put_secret(p, (char *)secret);
	}
	memset(secret, 0, sizeof(secret));
	return ret;
}

/*
 * Write a secret, never printed; 0 or -errno.  Not when the attribute
 * holds it already (a restore over itself), or reads "(set)": scalio's
 * write-only secret, of an existing host that merge_check_keys() let by.
 */
static int put_secret(const char *path, const char *secret)
{
	char cur[ATTR_MAX];
	int ret, v;

	read_secret_attr(path, cur, sizeof(cur));
	ret = !strcmp(cur, secret) || !strcmp(cur, "(set)");
	memset(cur, 0, sizeof(cur));
	if (ret)
		return 0;
	if (dry_run) {
		printf("write %s = (secret)\n", path);
		return 0;
	}
	v = verbose;
	verbose = 0;
	ret = put_attr(path, secret);
	verbose = v;
	if (ret)
		err_msg("write a secret to %s: %s", path, strerror(-ret));
	return ret;
}

/*
 * Secrets given as text (nvmetcli's "dhchap" group holds them, and older
 * saves of nvmet hosts did): written as they are, "" meaning none.
 */
static int restore_secrets(const char *dir, struct json_object *secrets)
{
	char p[PATH_MAX];
	int ret;

	json_object_object_foreach(secrets, name, val) {
		if (!json_str(val)[0])
			continue;
		pathf(p, "%s/%s", dir, name);
		ret = put_secret(p, json_str(val));
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- restore: merging into what exists ---- */

/*
 * Restore merges into a configfs tree that may hold other objects
 * (nvmetcli's, the operator's): it creates what is missing and leaves the
 * rest alone.  An object of the file that exists already must hold the
 * file's settings: every attribute the file gives reads back the same, an
 * allowed host holds the same secret, nothing enabled is to be disabled,
 * a store has the same SSDs.  Then the restore writes nothing to it but
 * the items, links and enables it lacks; else it is a conflict and nothing
 * is restored.  All is checked before the first change.
 */
static int merge_conflict(const char *dir, const char *fmt, ...)
{
	char why[2 * ATTR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	err_msg("conflict: %s exists with other settings than the file's (%s): nothing restored; remove or rename one of the two",
		dir, why);
	return -EEXIST;
}

/*
 * The secrets the restore gives keyed item @it at @dir (as restore_key()
 * and restore_secrets() write them): @key[0] dhchap_key, @key[1]
 * dhchap_ctrl_key, "" for none.  0, or -ENOKEY with a message.
 */
static int item_keys(const char *dir, struct json_object *it,
		     char key[2][ATTR_MAX])
{
	const char *nqn = strrchr(dir, '/') + 1, *file;
	uint8_t secret[SCALIO_SECRET_MAX + 1];
	char path[PATH_MAX], dh[2][DHCHAP_KEY_LEN];
	struct json_object *m;
	uint32_t len;

	key[0][0] = key[1][0] = '\0';
	m = json_get(it, "dhchap_key_file");
	if (m) {
		file = json_str(m);
		if (file[0]) {
			pathf(path, "%s", file);
		} else if (hosts_file_key(nqn, path, sizeof(path))) {
			err_msg("%s had a secret that save could not record: name its key file in %s (\"%s KEYFILE\")",
				dir, hosts_file(), nqn);
			return -ENOKEY;
		}
		if (read_secret(path, secret, &len)) {
			err_msg("%s: no secret from %s", dir, path);
			return -ENOKEY;
		}
		secret[len] = '\0';
		if (json_get(it, "dhchap_keys")) {
			dhchap_keys(secret, len, dh[0], dh[1]);
			snprintf(key[0], ATTR_MAX, "%s", dh[0]);
			snprintf(key[1], ATTR_MAX, "%s", dh[1]);
			memset(dh, 0, sizeof(dh));
		} else {
			snprintf(key[0], ATTR_MAX, "%s", (char *)secret);
		}
		memset(secret, 0, sizeof(secret));
	}
	m = json_get(it, "secrets");
	if (m) {
		json_object_object_foreach(m, name, val) {
			if (json_str(val)[0])
				snprintf(key[strcmp(name, "dhchap_key") ? 1 : 0],
					 ATTR_MAX, "%s", json_str(val));
		}
	}
	return 0;
}

/*
 * Whether existing keyed item @dir holds @it's secrets (never printed).
 * A controller key the file lacks is left as it is (save does not record
 * one set by hand); scalio's allowed hosts read "(set)", which matches any.
 */
static int merge_check_keys(const char *dir, struct json_object *it)
{
	static const char *const names[] = { "dhchap_key", "dhchap_ctrl_key" };
	char key[2][ATTR_MAX], cur[ATTR_MAX], p[PATH_MAX];
	int i, ret = 0;

	ret = item_keys(dir, it, key);
	for (i = 0; !ret && i < 2; i++) {
		pathf(p, "%s/%s", dir, names[i]);
		read_secret_attr(p, cur, sizeof(cur));
		if (!key[i][0] && (i || !cur[0]))
			continue;
		if (!key[i][0])
			ret = merge_conflict(dir, "it has a DH-HMAC-CHAP %s, the file none",
				       names[i]);
		else if (!cur[0])
			ret = merge_conflict(dir, "it has no DH-HMAC-CHAP %s, the file one",
				       names[i]);
		else if (strcmp(cur, key[i]) && strcmp(cur, "(set)"))
			ret = merge_conflict(dir, "it has another DH-HMAC-CHAP %s",
				       names[i]);
	}
	memset(key, 0, sizeof(key));
	memset(cur, 0, sizeof(cur));
	return ret;
}

static int merge_check_item(const char *dir, struct json_object *it,
			    const struct group_spec *g);

/* Group @g of existing item @parent against the file's @arr. */
static int merge_check_group(const char *parent, struct json_object *arr,
			     const struct group_spec *g)
{
	char dir[PATH_MAX], item[PATH_MAX], **names;
	size_t i, len;
	int k, n, ret = 0;

	pathf(dir, "%s/%s", parent, g->key);
	if (g->single)
		return merge_check_item(dir, arr, g);
	len = json_object_array_length(arr);
	if (g->exact) {
		n = list_dir(dir, DT_DIR, &names);
		for (k = 0; k < n && !ret; k++) {
			for (i = 0; i < len; i++)
				if (!strcmp(names[k], json_str(json_get(
					json_object_array_get_idx(arr, i), "name"))))
					break;
			if (i == len)
				ret = merge_conflict(parent, "it has %s/%s, the file not",
					       g->key, names[k]);
		}
		for (i = 0; i < len && !ret; i++) {
			pathf(item, "%s/%s", dir, json_str(json_get(
				json_object_array_get_idx(arr, i), "name")));
			if (!path_exists(item))
				ret = merge_conflict(parent, "the file has %s/%s, it not",
					       g->key, strrchr(item, '/') + 1);
		}
		if (n > 0)
			free_list(names, n);
	}
	for (i = 0; i < len && !ret; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);

		pathf(item, "%s/%s", dir, json_str(json_get(e, "name")));
		ret = merge_check_item(item, e, g);
	}
	return ret;
}

/* Existing item @dir (if it exists) against the file's @it. */
static int merge_check_item(const char *dir, struct json_object *it,
			    const struct group_spec *g)
{
	const struct group_spec *c;
	char p[PATH_MAX], cur[ATTR_MAX];
	struct json_object *m;
	struct stat st;
	int r, ret = 0;

	if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
		return 0;	/* new: the restore makes it */
	m = json_get(it, "attrs");
	if (m) {
		json_object_object_foreach(m, akey, aval) {
			if (one_shot_attr(akey))
				continue;
			pathf(p, "%s/%s", dir, akey);
			r = read_file(p, cur, sizeof(cur));
			if (r == -ENOENT && !cfs_fake()) {
				err_msg("%s: attribute not supported by this kernel: nothing restored",
					p);
				return r;
			}
			if (r < 0)
				return merge_conflict(dir, "%s: %s", akey,
						      strerror(-r));
			if (strcmp(cur, json_str(aval)))
				return merge_conflict(dir, "%s is '%s', the file has '%s'",
						akey, cur, json_str(aval));
		}
	}
	if (g->keyed) {
		ret = merge_check_keys(dir, it);
		if (ret)
			return ret;
	}
	m = json_get(it, "enable");
	pathf(p, "%s/enable", dir);
	if (g->has_enable && m && !strcmp(json_str(m), "0") &&
	    read_file(p, cur, sizeof(cur)) >= 0 && !strcmp(cur, "1"))
		return merge_conflict(dir, "it is enabled, the file has it disabled");
	for (c = g->children; c && c->key && !ret; c++) {
		m = json_get(it, c->key);
		if (m)
			ret = merge_check_group(dir, m, c);
	}
	return ret;
}

/* Whether the file (@nv, its nvmet part) or configfs has @name in @group. */
static bool link_target_known(struct json_object *nv, const char *group,
			      const char *name)
{
	struct json_object *arr = json_get(nv, group);
	size_t i;

	for (i = 0; arr && i < json_object_array_length(arr); i++)
		if (!strcmp(json_str(json_get(json_object_array_get_idx(arr, i),
					      "name")), name))
			return true;
	return nvmet_item(group, name);
}

/* Every link of the file's nvmet part @nv goes to an item that will exist. */
static int merge_check_links(struct json_object *nv)
{
	const struct group_spec *g;
	const struct link_spec *l;
	struct json_object *arr, *e, *links;
	size_t i, k;

	for (g = nvmet_groups; g->key; g++) {
		arr = json_get(nv, g->key);
		for (i = 0; arr && i < json_object_array_length(arr); i++) {
			e = json_object_array_get_idx(arr, i);
			for (l = g->links; l && l->dir; l++) {
				links = json_get(e, l->dir);
				for (k = 0; links && k < json_object_array_length(links); k++) {
					const char *name = json_str(json_object_array_get_idx(links, k));

					if (link_target_known(nv, strchr(l->target, '/') + 1, name))
						continue;
					err_msg("%s/%s of %s %s links to %s, which neither the file nor %s/%s has: nothing restored",
						g->key, json_str(json_get(e, "name")),
						g->key, l->dir, name, cfs_root(),
						l->target);
					return -ENOENT;
				}
			}
		}
	}
	return 0;
}

/* The whole target part @t against configfs; 0 when it merges. */
static int merge_check(struct json_object *t)
{
	const struct group_spec *g;
	struct json_object *sub, *m;
	char dir[PATH_MAX];
	size_t i;
	int ret = 0;

	m = json_get(t, "nvmet");
	if (m)
		ret = merge_check_links(m);
	for (i = 0; i < NR_ROOTS && !ret; i++) {
		sub = json_get(t, roots[i].key);
		pathf(dir, "%s/%s", cfs_root(), roots[i].key);
		for (g = roots[i].groups; sub && g->key && !ret; g++) {
			m = json_get(sub, g->key);
			if (m)
				ret = merge_check_group(dir, m, g);
		}
	}
	return ret;
}

static int restore_target(struct json_object *t)
{
	const struct group_spec *g;
	struct json_object *sub, *m;
	char dir[PATH_MAX];
	size_t i;
	int ret;

	if (merge_check(t))
		return EXIT_FAIL;
	for (i = 0; i < NR_ROOTS; i++) {
		sub = json_get(t, roots[i].key);
		if (!sub)
			continue;
		pathf(dir, "%s/%s", cfs_root(), roots[i].key);
		if (!dry_run && !path_exists(dir)) {
			if (!cfs_fake()) {
				err_msg("%s does not exist: load %s first", dir,
					i ? "scalio-target" : "nvmet (and nvmet-rdma)");
				return EXIT_FAIL;
			}
			do_mkdir(dir);
		}
		for (g = roots[i].groups; g->key; g++) {
			m = json_get(sub, g->key);
			if (!m)
				continue;
			ret = restore_group(dir, m, g);
			if (ret) {
				err_msg("restore stopped; 'scalioctl clear --target' removes what was restored");
				return EXIT_FAIL;
			}
		}
	}
	if (!dry_run)
		info_msg("target configuration restored");
	return EXIT_OK;
}

static int count_one(const char *dir, const char *name, void *arg)
{
	(void)dir;
	snprintf(arg, SCALIO_NAME_MAX, "%s", name);
	return 0;
}

static int restore_host(struct json_object *h)
{
	struct json_object *st = json_get(h, "stores"), *m;
	char first[SCALIO_NAME_MAX] = "", nums[4][16];
	int n, ret = EXIT_OK;
	size_t i;
	uint32_t v;

	n = for_each_attached(count_one, first);
	if (n > 0) {
		err_msg("store %s is attached: restore needs a host with no store attached (scalioctl clear --host)",
			first);
		return EXIT_FAIL;
	}
	for (i = 0; st && i < json_object_array_length(st); i++) {
		struct json_object *e = json_object_array_get_idx(st, i);
		static const char *const idopt[][2] = {
			{ "hostnqn", "--hostnqn" }, { "hostid", "--hostid" },
			{ "key_file", "--key-file" },
		};
		static const char *const numopt[][2] = {
			{ "port", "--port" }, { "nvme_port", "--nvme-port" },
			{ "timeout_ms", "--timeout-ms" },
			{ "fast_io_fail_ms", "--fast-io-fail-ms" },
		};
		char *argv[20];
		size_t k;
		int argc = 0;

		argv[argc++] = "attach";
		argv[argc++] = (char *)json_str(json_get(e, "name"));
		argv[argc++] = "--addr";
		argv[argc++] = (char *)json_str(json_get(e, "addr"));
		for (k = 0; k < sizeof(numopt) / sizeof(numopt[0]); k++) {
			if (json_u32(json_get(e, numopt[k][0]), UINT32_MAX, &v))
				continue;
			snprintf(nums[k], sizeof(nums[k]), "%u", v);
			argv[argc++] = (char *)numopt[k][1];
			argv[argc++] = nums[k];
		}
		for (k = 0; k < sizeof(idopt) / sizeof(idopt[0]); k++) {
			m = json_get(e, idopt[k][0]);
			if (m) {
				argv[argc++] = (char *)idopt[k][1];
				argv[argc++] = (char *)json_str(m);
			}
		}
		argv[argc] = NULL;
		if (dry_run) {
			int i;

			printf("scalioctl");
			for (i = 0; i < argc; i++)
				printf(" %s", argv[i]);
			putchar('\n');
			continue;
		}
		/* One store's failure does not keep the others away. */
		if (cmd_attach(argc, argv))
			ret = EXIT_FAIL;
	}
	return ret;
}

/* Read all of @file ("-": standard input) into a new buffer. */
static char *slurp(const char *file, size_t *len)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "re") : stdin;
	size_t cap = 4096, n = 0;
	char *buf = NULL, *nb;

	if (!f) {
		err_msg("open %s: %s", file, strerror(errno));
		return NULL;
	}
	for (;;) {
		nb = n + 1 >= cap || !buf ? realloc(buf, cap *= 2) : buf;
		if (!nb) {
			err_msg("out of memory");
			goto fail;
		}
		buf = nb;
		n += fread(buf + n, 1, cap - n - 1, f);
		if (ferror(f)) {
			err_msg("read %s: %s", file, strerror(errno));
			goto fail;
		}
		if (feof(f))
			break;
		if (n > FILE_MAX) {
			err_msg("%s: larger than %d bytes", file, FILE_MAX);
			goto fail;
		}
	}
	if (f != stdin)
		fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	if (f != stdin)
		fclose(f);
	free(buf);
	return NULL;
}

int cmd_restore(int argc, char **argv)
{
	struct json_object *cfg, *t, *h;
	char *text;
	int side, ret;
	size_t len;

	ret = parse_side_opts("restore", argc, argv, &side, true, NULL);
	if (ret >= 0)
		return ret;
	if (argc - optind != 1)
		return usage_error("restore", "expected one FILE");
	text = slurp(argv[optind], &len);
	if (!text)
		return EXIT_FAIL;
	cfg = json_read_text(text, len, argv[optind]);
	free(text);
	if (!cfg)
		return EXIT_FAIL;
	/* Version 1 files have "scalio_config"; nvmetcli's have not. */
	if (json_get(cfg, "scalio_config")) {
		v1_secrets(cfg);
	} else {
		struct json_object *v1;

		ret = from_cli(cfg, &v1);
		json_object_put(cfg);
		if (ret) {
			err_msg("%s: nothing restored", argv[optind]);
			return EXIT_FAIL;
		}
		cfg = v1;
	}
	if (check_config(cfg)) {
		err_msg("%s: nothing restored", argv[optind]);
		json_object_put(cfg);
		return EXIT_FAIL;
	}
	t = json_get(cfg, "target");
	h = json_get(cfg, "host");
	if (!side)
		side = SIDE_TARGET | SIDE_HOST;
	if (((side & SIDE_TARGET) && !t && !(side & SIDE_HOST)) ||
	    ((side & SIDE_HOST) && !h && !(side & SIDE_TARGET)) || (!t && !h)) {
		err_msg("%s: no %s configuration in it", argv[optind],
			side == SIDE_HOST ? "host" : side == SIDE_TARGET ?
			"target" : "target or host");
		json_object_put(cfg);
		return EXIT_FAIL;
	}
	ret = EXIT_OK;
	if ((side & SIDE_TARGET) && t)
		ret = restore_target(t);
	if (ret == EXIT_OK && (side & SIDE_HOST) && h)
		ret = restore_host(h);
	json_object_put(cfg);
	return ret;
}

/* ---- clear ---- */

static int clear_group(const char *parent, const struct group_spec *g);
static int clear_link(const char *lk);

static int fake_rm_one(const char *path, const struct stat *st, int flag,
		       struct FTW *ftw)
{
	(void)st;
	if (ftw->level == 0)
		return 0;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Empty @dir of a fake tree (its files stand for configfs attributes). */
static void fake_rm(const char *dir)
{
	nftw(dir, fake_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Undo one item: disable, children, links, then (unless default) rmdir. */
static int clear_item(const char *dir, const struct group_spec *g, bool rm)
{
	const struct group_spec *c;
	const struct link_spec *l;
	char p[PATH_MAX], en[16], **names;
	int i, n, ret = 0;

	if (g->has_enable) {
		pathf(p, "%s/enable", dir);
		if (read_file(p, en, sizeof(en)) > 0 && strcmp(en, "0") &&
		    put_attr(p, "0")) {
			err_msg("disable %s failed", dir);
			ret = -EIO;
		}
	}
	for (l = g->links; l && l->dir; l++) {
		char lk[PATH_MAX];

		pathf(p, "%s/%s", dir, l->dir);
		n = list_dir(p, DT_LNK, &names);
		for (i = 0; i < n; i++) {
			pathf(lk, "%s/%s", p, names[i]);
			if (clear_link(lk))
				ret = -EIO;
		}
		if (n > 0)
			free_list(names, n);
	}
	for (c = g->children; c && c->key; c++)
		if (clear_group(dir, c))
			ret = -EIO;
	if (rm) {
		if (dry_run) {
			printf("rmdir %s\n", dir);
		} else {
			if (verbose)
				fprintf(stderr, "  rmdir %s\n", dir);
			/* A fake tree holds plain files configfs would drop. */
			if (cfs_fake())
				fake_rm(dir);
			if (rmdir(dir) && errno != ENOENT) {
				err_msg("rmdir %s: %s", dir, strerror(errno));
				ret = -errno;
			}
		}
	}
	return ret;
}

static int clear_group(const char *parent, const struct group_spec *g)
{
	char dir[PATH_MAX], item[PATH_MAX], **names;
	int i, n, ret = 0;

	pathf(dir, "%s/%s", parent, g->key);
	if (g->single)
		return path_exists(dir) ? clear_item(dir, g, false) : 0;
	n = list_dir(dir, DT_DIR, &names);
	if (n <= 0)
		return n == -ENOENT ? 0 : n;
	for (i = 0; i < n; i++) {
		pathf(item, "%s/%s", dir, names[i]);
		if (clear_item(item, g, !g->keep || strcmp(names[i], g->keep)))
			ret = -EIO;
	}
	free_list(names, n);
	return ret;
}

/* Remove link @lk (or print it, with --dry-run); 0 or -errno. */
static int clear_link(const char *lk)
{
	if (dry_run) {
		printf("unlink %s\n", lk);
		return 0;
	}
	if (verbose)
		fprintf(stderr, "  rm %s\n", lk);
	if (unlink(lk) && errno != ENOENT) {
		err_msg("unlink %s: %s", lk, strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * nvmet: scalio's objects only (owned_find()).  A port that also serves
 * foreign subsystems loses scalio's links and stays; a host that a
 * foreign subsystem admits stays.  Decided before anything is removed, so
 * that --dry-run prints what a clear does.
 */
static int clear_nvmet(const struct owned *o)
{
	char dir[PATH_MAX], p[PATH_MAX], lk[PATH_MAX], **names;
	struct strlist links = { NULL, 0 };
	int i, k, n, foreign, ret = 0;

	pathf(dir, "%s/nvmet", cfs_root());
	for (i = 0; i < o->ports.n; i++) {
		pathf(p, "%s/ports/%s/subsystems", dir, o->ports.v[i]);
		add_entries(&links, p, DT_LNK, NULL);
		for (k = foreign = 0; k < links.n; k++)
			foreign += !sl_has(&o->subs, links.v[k]);
		if (!foreign) {
			pathf(p, "%s/ports/%s", dir, o->ports.v[i]);
			if (clear_item(p, &nvmet_groups[2], true))
				ret = -EIO;
		} else {
			for (k = 0; k < links.n; k++) {
				if (!sl_has(&o->subs, links.v[k]))
					continue;
				pathf(lk, "%s/%s", p, links.v[k]);
				if (clear_link(lk))
					ret = -EIO;
			}
			info_msg("nvmet: port %s kept: it serves %d other subsystem(s)",
				 o->ports.v[i], foreign);
		}
		sl_free(&links);
	}
	for (i = 0; i < o->subs.n; i++) {
		pathf(p, "%s/subsystems/%s", dir, o->subs.v[i]);
		if (clear_item(p, &nvmet_groups[1], true))
			ret = -EIO;
	}
	pathf(p, "%s/subsystems", dir);
	n = list_dir(p, DT_DIR, &names);
	for (i = 0; i < o->hosts.n; i++) {
		for (k = foreign = 0; k < n && !foreign; k++) {
			struct stat st;

			if (sl_has(&o->subs, names[k]))
				continue;
			pathf(lk, "%s/subsystems/%s/allowed_hosts/%s", dir,
			      names[k], o->hosts.v[i]);
			foreign = !lstat(lk, &st);
		}
		if (foreign) {
			info_msg("nvmet: host %s kept: subsystem %s admits it",
				 o->hosts.v[i], names[k - 1]);
			continue;
		}
		pathf(p, "%s/hosts/%s", dir, o->hosts.v[i]);
		if (clear_item(p, &nvmet_groups[0], true))
			ret = -EIO;
	}
	if (n > 0)
		free_list(names, n);
	return ret;
}

/*
 * Reverse restore order: scalio's stores (all of scalio's tree), then
 * scalio's nvmet ports, subsystems and hosts, which the stores name, so
 * found first.
 */
static int clear_target(void)
{
	const struct group_spec *g;
	struct owned o;
	char dir[PATH_MAX];
	int ret = 0;

	owned_find(&o);
	pathf(dir, "%s/scalio", cfs_root());
	if (path_exists(dir)) {
		for (g = scalio_groups; g->key; g++)
			;
		while (g-- != scalio_groups)
			if (clear_group(dir, g))
				ret = -EIO;
	}
	if (clear_nvmet(&o))
		ret = -EIO;
	owned_free(&o);
	return ret;
}

static int detach_one(const char *dir, const char *name, void *arg)
{
	char *argv[] = { "detach", (char *)name, NULL };
	int *ret = arg;

	(void)dir;
	if (dry_run) {
		printf("scalioctl detach %s\n", name);
		return 0;
	}
	if (cmd_detach(2, argv))
		*ret = EXIT_FAIL;
	return 0;
}

int cmd_clear(int argc, char **argv)
{
	int side, ret, r = EXIT_OK;

	ret = parse_side_opts("clear", argc, argv, &side, true, NULL);
	if (ret >= 0)
		return ret;
	if (optind != argc)
		return usage_error("clear", "unexpected argument '%s'",
				   argv[optind]);
	if (!side)
		return usage_error("clear", "give --target and/or --host");
	if ((side & SIDE_HOST) && for_each_attached(detach_one, &r) < 0)
		r = EXIT_FAIL;
	if ((side & SIDE_TARGET) && clear_target())
		r = EXIT_FAIL;
	return r;
}
