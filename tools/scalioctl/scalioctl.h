/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scalioctl: control tool of the scalio key-value store.
 *
 * Shared declarations of the command modules: main.c (dispatch, help,
 * helpers), target.c (nvmet + scalio configfs on the storage server),
 * host.c (attach/detach, NVMe-oF through libnvme), kv.c (put, get,
 * del, stats, its Prometheus collection), config.c (save, restore,
 * clear), list.c (list), export.c (export, import; dump.c: the file),
 * json_io.c (JSON on json-c), nsuuid.c (the
 * namespace UUIDs), prom.c (the Prometheus exposition).
 */
#ifndef SCALIOCTL_H
#define SCALIOCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "../../uapi/scalio.h"

/* Exit codes of the CLI contract. */
#define EXIT_OK		0
#define EXIT_MISSING	1	/* get/del: key not found */
#define EXIT_USAGE	2	/* bad command line */
#define EXIT_FAIL	3	/* any other failure */

#define SCALIO_DEFAULT_PORT	4800
#define NVME_DEFAULT_PORT	4420
#define SCALIO_MAX_SSDS		16
#define SCALIO_NQN_PREFIX	"nqn.2024-11.io.scalio:"

#define CONFIGFS_ROOT	"/sys/kernel/config"
#define NVMET_ROOT	CONFIGFS_ROOT "/nvmet"
#define SCALIO_ROOT	CONFIGFS_ROOT "/scalio"
#define STORES_ROOT	SCALIO_ROOT "/stores"

extern const char *progname;
extern int verbose;

/* A command: name, handler, one-line summary and full help text. */
struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage;
};

/* -o FORMAT of the commands that print state. */
enum out_format {
	OUT_TEXT = 1 << 0,
	OUT_JSON = 1 << 1,
	OUT_PROMETHEUS = 1 << 2,
};

/* main.c: messages and small helpers. */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool want_help(int argc, char **argv);
int parse_out_format(const char *cmd, const char *arg, unsigned int allowed,
		     enum out_format *fmt);
int print_command_help(const char *cmd);
int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
bool valid_store_name(const char *name);
bool valid_ip_literal(const char *addr);
void subsys_nqn(char *buf, size_t len, const char *store, unsigned int i);
bool is_store_nqn(const char *nqn, const char *store);

/*
 * Format a path into a PATH_MAX buffer; exits with EXIT_FAIL (and says
 * so) if it does not fit, so callers never act on a truncated path.
 */
void pathf(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* File helpers (return 0 or a negative errno; print nothing). */
int write_file(const char *path, const char *val);
int read_file(const char *path, char *buf, size_t len);	/* trims '\n' */
bool path_exists(const char *path);
int run_cmd(char *const argv[], bool quiet);	/* exit status or -errno */

/* target.c */
int cmd_target_setup(int argc, char **argv);
int cmd_target_teardown(int argc, char **argv);
int cmd_target_set(int argc, char **argv);
int cmd_target_resume(int argc, char **argv);
int cmd_allow_host(int argc, char **argv);
int cmd_deny_host(int argc, char **argv);

/* host.c */
bool valid_nqn(const char *nqn);
int read_secret(const char *path, uint8_t *secret, uint32_t *len);

/* dhchap.c: a host's NVMe DH-HMAC-CHAP keys, from its scalio secret */
#define DHCHAP_KEY_LEN	60	/* "DHHC-1:00:" 48 base64 ":" NUL */
void dhchap_keys(const uint8_t *secret, uint32_t len, char host[DHCHAP_KEY_LEN],
		 char ctrl[DHCHAP_KEY_LEN]);
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);
void attach_state_path(char *buf, size_t len, const char *store);
bool attach_state_get(const char *store, const char *key, char *buf,
		      size_t len);
uint32_t store_nvme_port(const char *store);

/* kv.c */
int cmd_put(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_del(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int open_store(const char *name, int *fd);

/* json_io.c: JSON on json-c */
struct json_object *json_read_text(const char *text, size_t len,
				   const char *name);
int json_write(FILE *f, struct json_object *root, bool pretty);
const char *json_str(struct json_object *j);
struct json_object *json_get(struct json_object *obj, const char *key);
int json_u32(struct json_object *j, uint32_t max, uint32_t *out);
struct json_object *jx(struct json_object *o);
void json_put(struct json_object *parent, const char *key,
	      struct json_object *v);

/* config.c */
const char *cfs_root(void);	/* CONFIGFS_ROOT or $SCALIO_CONFIGFS */
const char *sys_root(void);	/* /sys or $SCALIO_SYSFS */
int list_dir(const char *dir, int want, char ***out);
void free_list(char **v, int n);
int attached_stores(char (**out)[SCALIO_NAME_MAX]);
int for_each_attached(int (*fn)(const char *dir, const char *name, void *arg),
		      void *arg);
int cmd_save(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_clear(int argc, char **argv);

/* export.c */
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);

/* list.c */
int cmd_list(int argc, char **argv);

#endif /* SCALIOCTL_H */
