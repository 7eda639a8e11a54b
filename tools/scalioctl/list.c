// SPDX-License-Identifier: GPL-2.0
/*
 * scalioctl list: the stores of this machine and their state.
 *
 * Target: the stores in configfs (enable, address, SSDs with their device,
 * subsystem and the state the "stats" attribute gives, allowed hosts).
 * Host: the attached stores from their device's sysfs attributes, and
 * from SCALIO_IOC_SSD_INFO which SSDs are bound (no network round trip;
 * whether the target answers is what `stats` shows).  Both are read from
 * SCALIO_CONFIGFS / SCALIO_SYSFS when set, as save does.
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
#include <unistd.h>

#include "scalioctl.h"

/* A file of @dir as a JSON string member of @o (skipped if unreadable). */
static void put_file(struct json_object *o, const char *key, const char *dir,
		     const char *file)
{
	char p[PATH_MAX], val[PATH_MAX];

	pathf(p, "%s/%s", dir, file);
	if (read_file(p, val, sizeof(val)) >= 0)
		json_put(o, key, json_object_new_string(val));
}

/* The same for a number; a value that is none is left out. */
static void put_num(struct json_object *o, const char *key, const char *dir,
		    const char *file)
{
	char p[PATH_MAX], val[32];
	uint32_t v;

	pathf(p, "%s/%s", dir, file);
	if (read_file(p, val, sizeof(val)) > 0 &&
	    !parse_u32(val, 0, UINT32_MAX, &v))
		json_put(o, key, json_object_new_int64(v));
}

/*
 * The "ssd<i> STATE" lines of a store's stats into ssds[i].state, and its
 * "keys" count into @st.
 */
static void target_states(struct json_object *st, struct json_object *ssds,
			  const char *dir)
{
	static char text[65536];
	char p[PATH_MAX], *line, *save = NULL;
	unsigned long long v;
	size_t i;

	pathf(p, "%s/stats", dir);
	if (read_file(p, text, sizeof(text)) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char state[16];
		unsigned int idx;

		if (sscanf(line, "ssd%u %15s", &idx, state) == 2) {
			for (i = 0; i < json_object_array_length(ssds); i++) {
				struct json_object *s =
					json_object_array_get_idx(ssds, i);

				if (json_object_get_int64(json_get(s, "index")) == idx)
					json_put(s, "state",
						 json_object_new_string(state));
			}
		} else if (sscanf(line, "keys %llu", &v) == 1) {
			json_put(st, "keys", json_object_new_uint64(v));
		}
	}
}

/* The stores in the target's configfs, as an array. */
static int list_target(struct json_object *to)
{
	char dir[PATH_MAX], sd[PATH_MAX], p[PATH_MAX], **names, **ids, **hosts;
	struct json_object *stores = jx(json_object_new_array());
	int i, k, n, ni, nh;

	json_put(to, "stores", stores);
	pathf(dir, "%s/scalio/stores", cfs_root());
	n = list_dir(dir, DT_DIR, &names);
	if (n < 0)
		return n == -ENOENT ? 0 : n;
	for (i = 0; i < n; i++) {
		struct json_object *st = jx(json_object_new_object());
		struct json_object *ssds = jx(json_object_new_array());
		struct json_object *allowed = jx(json_object_new_array());
		char val[8];

		json_put(stores, NULL, st);
		json_put(st, "name", json_object_new_string(names[i]));
		pathf(sd, "%s/%s", dir, names[i]);
		pathf(p, "%s/enable", sd);
		if (read_file(p, val, sizeof(val)) > 0)
			json_put(st, "enabled",
				 json_object_new_boolean(val[0] == '1'));
		put_file(st, "addr", sd, "addr_traddr");
		put_num(st, "port", sd, "addr_trsvcid");
		json_put(st, "ssds", ssds);
		pathf(p, "%s/ssds", sd);
		ni = list_dir(p, DT_DIR, &ids);
		for (k = 0; k < ni; k++) {
			struct json_object *s = jx(json_object_new_object());
			uint32_t idx;
			char id[PATH_MAX];

			if (parse_u32(ids[k], 0, SCALIO_MAX_SSDS - 1, &idx)) {
				json_object_put(s);
				continue;
			}
			pathf(id, "%s/ssds/%s", sd, ids[k]);
			json_put(s, "index", json_object_new_int64(idx));
			put_file(s, "device_path", id, "device_path");
			put_file(s, "nqn", id, "nqn");
			put_num(s, "nsid", id, "nsid");
			json_put(ssds, NULL, s);
		}
		if (ni > 0)
			free_list(ids, ni);
		target_states(st, ssds, sd);
		json_put(st, "allowed_hosts", allowed);
		pathf(p, "%s/allowed_hosts", sd);
		nh = list_dir(p, DT_DIR, &hosts);
		for (k = 0; k < nh; k++)
			json_put(allowed, NULL, json_object_new_string(hosts[k]));
		if (nh > 0)
			free_list(hosts, nh);
	}
	free_list(names, n);
	return 0;
}

/*
 * Which SSDs of an attached store are bound: "ready" when all are (every
 * GET miss can read its SSD), "partial" when some are not (their GETs go
 * to the target), "unknown" with the reason when the store device cannot
 * be asked.
 */
static void host_ssds(struct json_object *st, const char *name)
{
	struct json_object *ssds = jx(json_object_new_array());
	struct scalio_ssd_info si;
	char path[64 + SCALIO_NAME_MAX];
	uint32_t i, nr = 1, bound = 0;
	int fd;

	snprintf(path, sizeof(path), SCALIO_STORE_DEV_FMT, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		json_put(st, "state", json_object_new_string("unknown"));
		json_put(st, "error", json_object_new_string(strerror(errno)));
		json_object_put(ssds);
		return;
	}
	for (i = 0; i < nr && i < SCALIO_MAX_SSDS; i++) {
		struct json_object *s;

		memset(&si, 0, sizeof(si));
		si.index = i;
		if (ioctl(fd, SCALIO_IOC_SSD_INFO, &si))
			break;
		nr = si.nr_ssds;
		s = jx(json_object_new_object());
		json_put(s, "index", json_object_new_int64(i));
		json_put(s, "nqn", json_object_new_string(si.nqn));
		json_put(s, "nsid", json_object_new_int64(si.nsid));
		json_put(s, "bound", json_object_new_boolean(si.bound));
		json_put(ssds, NULL, s);
		bound += !!si.bound;
	}
	if (i < nr) {
		json_put(st, "state", json_object_new_string("unknown"));
		json_put(st, "error", json_object_new_string(strerror(errno)));
	} else {
		json_put(st, "state", json_object_new_string(bound == nr ?
							     "ready" : "partial"));
	}
	json_put(st, "ssds", ssds);
	close(fd);
}

static int list_one_attached(const char *dir, const char *name, void *arg)
{
	struct json_object *st = jx(json_object_new_object());

	json_put(arg, NULL, st);
	json_put(st, "name", json_object_new_string(name));
	put_file(st, "addr", dir, "traddr");
	put_num(st, "port", dir, "trsvcid");
	put_num(st, "timeout_ms", dir, "timeout_ms");
	put_num(st, "fast_io_fail_ms", dir, "fast_io_fail_ms");
	put_file(st, "hostnqn", dir, "hostnqn");
	put_file(st, "hostid", dir, "hostid");
	host_ssds(st, name);
	return 0;
}

/* "ADDR:PORT" ("[ADDR]:PORT" for IPv6) of @st, or "no address". */
static const char *addr_port(struct json_object *st, char *buf, size_t len)
{
	const char *a = json_str(json_get(st, "addr"));
	int port = json_object_get_int(json_get(st, "port"));

	if (!a || !*a)
		return "no address";
	snprintf(buf, len, strchr(a, ':') ? "[%s]:%d" : "%s:%d", a, port);
	return buf;
}

static void print_text(struct json_object *doc)
{
	char ap[SCALIO_ADDR_MAX + 16];
	struct json_object *t = json_get(doc, "target"), *h = json_get(doc, "host");
	size_t i, k;

	for (i = 0; t && i < json_object_array_length(json_get(t, "stores")); i++) {
		struct json_object *st = json_object_array_get_idx(json_get(t, "stores"), i);
		struct json_object *ssds = json_get(st, "ssds");
		struct json_object *en = json_get(st, "enabled");

		printf("target store %s: %s, %s, %zu SSD(s), %zu allowed host(s)",
		       json_str(json_get(st, "name")),
		       !en ? "?" : json_object_get_boolean(en) ? "enabled" : "disabled",
		       addr_port(st, ap, sizeof(ap)),
		       json_object_array_length(ssds),
		       json_object_array_length(json_get(st, "allowed_hosts")));
		if (json_get(st, "keys"))
			printf(", %s keys",
			       json_object_get_string(json_get(st, "keys")));
		putchar('\n');
		for (k = 0; k < json_object_array_length(ssds); k++) {
			struct json_object *s = json_object_array_get_idx(ssds, k);

			printf("  ssd%d %-6s %s %s\n",
			       json_object_get_int(json_get(s, "index")),
			       json_str(json_get(s, "state")) ?: "?",
			       json_str(json_get(s, "device_path")) ?: "-",
			       json_str(json_get(s, "nqn")) ?: "-");
		}
	}
	for (i = 0; h && i < json_object_array_length(json_get(h, "stores")); i++) {
		struct json_object *st = json_object_array_get_idx(json_get(h, "stores"), i);
		struct json_object *ssds = json_get(st, "ssds");
		const char *err = json_str(json_get(st, "error"));

		printf("host store %s: %s", json_str(json_get(st, "name")),
		       json_str(json_get(st, "state")));
		if (err)
			printf(" (%s)", err);
		printf(", target %s", addr_port(st, ap, sizeof(ap)));
		if (json_get(st, "hostnqn"))
			printf(", as %s", json_str(json_get(st, "hostnqn")));
		putchar('\n');
		for (k = 0; ssds && k < json_object_array_length(ssds); k++) {
			struct json_object *s = json_object_array_get_idx(ssds, k);

			printf("  ssd%d %-7s %s\n",
			       json_object_get_int(json_get(s, "index")),
			       json_object_get_boolean(json_get(s, "bound")) ?
			       "bound" : "unbound", json_str(json_get(s, "nqn")));
		}
	}
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "target", no_argument, NULL, 't' },
		{ "host", no_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_format fmt = OUT_TEXT;
	struct json_object *doc, *side;
	bool target = false, host = false;
	int c, ret = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			target = true;
			break;
		case 'H':
			host = true;
			break;
		case 'j':
			fmt = OUT_JSON;
			break;
		case 'o':
			ret = parse_out_format("list", optarg,
					       OUT_TEXT | OUT_JSON, &fmt);
			if (ret)
				return ret;
			break;
		case 'h':
			return print_command_help("list");
		default:
			return usage_error("list", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("list", "unexpected argument '%s'",
				   argv[optind]);
	if (!target && !host) {
		target = true;
		host = true;
	}
	doc = jx(json_object_new_object());
	if (target) {
		side = jx(json_object_new_object());
		json_put(doc, "target", side);
		ret = list_target(side);
		if (ret)
			err_msg("%s/scalio/stores: %s", cfs_root(),
				strerror(-ret));
	}
	if (!ret && host) {
		struct json_object *stores = jx(json_object_new_array());

		side = jx(json_object_new_object());
		json_put(doc, "host", side);
		json_put(side, "stores", stores);
		ret = for_each_attached(list_one_attached, stores);
		if (ret < 0)
			err_msg("attached stores: %s", strerror(-ret));
		else
			ret = 0;
	}
	if (!ret && fmt == OUT_JSON) {
		ret = json_write(stdout, doc, true);
		if (ret)
			err_msg("write standard output: %s", strerror(-ret));
	} else if (!ret) {
		print_text(doc);
	}
	json_object_put(doc);
	return ret ? EXIT_FAIL : EXIT_OK;
}
