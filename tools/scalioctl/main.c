// SPDX-License-Identifier: GPL-2.0
/*
 * scalioctl: command dispatch, help text and the helpers shared by the
 * command modules.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scalioctl.h"

const char *progname = "scalioctl";
int verbose;

static const struct command commands[] = {
	{
		"target-setup", cmd_target_setup,
		"export SSDs with nvmet and create + enable a scalio store",
		"Usage: scalioctl target-setup --store NAME --addr IP [--port PORT]\n"
		"           [--nvme-port PORT] [--nblocks N] [--nbuckets N] [--slots S]\n"
		"           [--batch-max N] [--batch-timeout-us N]\n"
		"           [--offload-read 0|1] [--inline-cache 0|1]\n"
		"           [--lease-ms N] [--seg-cache-mb N] [--kato-ms N]\n"
		"           [--value-inline-max N]\n"
		"           [--allow-host NQN... --no-key] [--hosts-file F]\n"
		"           [--format] [--force-recover] [--legacy-ns-uuid] DEV...\n"
		"\n"
		"On the storage server (modules nvmet, nvmet-rdma and scalio-target\n"
		"loaded; nvmet and nvmet-rdma are modprobed when missing, configfs is\n"
		"mounted on " CONFIGFS_ROOT " when it is not).\n"
		"\n"
		"For SSD i (the i-th DEV) an nvmet subsystem\n"
		"  " SCALIO_NQN_PREFIX "NAME-ssd<i>\n"
		"is created with attr_allow_any_host=0 and namespace 1 = DEV, and\n"
		"linked to nvmet RDMA port 1 (IP:--nvme-port).  attr_offload=1 is set\n"
		"when the kernel's nvmet has it (NVMe-oF target offload); the tool\n"
		"reports \"nvmet offload: on\" or \"nvmet offload: unavailable (CPU\n"
		"path)\".  Then the scalio store NAME is configured under\n"
		"  " STORES_ROOT "/NAME/\n"
		"(ssds/<i>/{device_path,nqn,nsid}, attributes, address) and enabled.\n"
		"Nobody is admitted by default: each --allow-host NQN gets an entry in\n"
		"the store's allowed_hosts/, and every host there (these and earlier\n"
		"ones) becomes an nvmet host (" NVMET_ROOT "/hosts/NQN) linked into\n"
		"each subsystem's allowed_hosts.  Secrets: see allow-host.\n"
		"\n"
		"Re-running with an existing setup re-uses it: an enabled store whose\n"
		"SSDs, address and given attributes already match is left running;\n"
		"otherwise it is disabled, reconfigured and enabled again.\n"
		"\n"
		"SSDs are formatted only with --format (a new store: whatever the\n"
		"SSDs held is lost).  Without it the store is recovered from them; a\n"
		"device that holds no scalio store, or a damaged one, is refused and\n"
		"the tool prints what the target found (the store's report).  If\n"
		"recovery finds damaged log batches that intact ones follow, it\n"
		"refuses rather than lose acknowledged writes; --force-recover drops\n"
		"the damaged batches and reports which batches and keys were lost.\n"
		"\n"
		"Options:\n"
		"  --store NAME            store name (1..31 chars of [A-Za-z0-9_.-])\n"
		"  --addr IP               RDMA address to listen on (IPv4 or IPv6)\n"
		"  --port PORT             scalio RDMA port (default 4800)\n"
		"  --nvme-port PORT        nvmet RDMA port (default 4420)\n"
		"  --format                format the SSDs (a new, empty store)\n"
		"  --force-recover         recover even if damaged batches are dropped\n"
		"  --legacy-ns-uuid        give the namespaces the identifier older\n"
		"                          scalioctl versions gave (their stores' hosts\n"
		"                          know it); default: RFC 4122 version 5\n"
		"  --nblocks N             cache blocks, a power of two (default 4096)\n"
		"  --nbuckets N            key buckets on the SSDs, a power of two from\n"
		"                          --nblocks to 65536 times it (default: as\n"
		"                          many as blocks)\n"
		"  --slots S               slots per block: 4, 8 or 16 (default 8)\n"
		"  --batch-max N           ops per group commit, 1..1024 (default 64)\n"
		"  --batch-timeout-us N    cap of the group-commit wait, 0..100000\n"
		"                          (default 100000; 0: never wait)\n"
		"  --offload-read 0|1      GET misses read the SSD directly (default 1)\n"
		"  --inline-cache 0|1      cache values in index slots (default 1)\n"
		"  --lease-ms N            slot lock lease (default 2000)\n"
		"  --seg-cache-mb N        MiB of recently written segments kept in\n"
		"                          target DRAM, 0 = off (default 32)\n"
		"  --kato-ms N             keep-alive timeout: a host silent this long\n"
		"                          is disconnected, 3000..3600000 (default 15000)\n"
		"  --value-inline-max N    values longer than N bytes are stored apart\n"
		"                          from their keys, 0..4096; 4096: never\n"
		"                          (default 128)\n"
		"  --allow-host NQN        admit this host NQN without a secret\n"
		"                          (repeatable; needs --no-key)\n"
		"  --no-key                yes, admit the --allow-host hosts by NQN alone\n"
		"  --hosts-file F          admit the hosts of F: lines \"NQN [KEYFILE]\"\n"
		"                          (default /etc/scalio/allowed_hosts if present;\n"
		"                          a line without KEYFILE: NQN alone, warned)\n"
		"  -v, --verbose           print every configfs write\n"
		"Attributes not given keep their current (or default) values.\n"
	},
	{
		"target-teardown", cmd_target_teardown,
		"disable and remove a store and its nvmet subsystems",
		"Usage: scalioctl target-teardown --store NAME [-v]\n"
		"\n"
		"Disables and removes the scalio store NAME, then removes the nvmet\n"
		"subsystems of its SSDs (" SCALIO_NQN_PREFIX "NAME-ssd<i>) from every\n"
		"port, and nvmet port 1 once no subsystem is linked to it any more.\n"
		"Fails (exit 3) when neither the store nor any of its subsystems\n"
		"exists.\n"
	},
	{
		"target-set", cmd_target_set,
		"change store attributes (disable, set, re-enable)",
		"Usage: scalioctl target-set --store NAME ATTR=VALUE... [-v]\n"
		"\n"
		"Writes each ATTR=VALUE into " STORES_ROOT "/NAME/.\n"
		"ATTR is a file name of the store directory (attr_batch_max,\n"
		"addr_trsvcid, ssds/0/nsid, ...); the attr_ prefix may be left out\n"
		"(batch_max=16).  An enabled store is disabled first and enabled again\n"
		"afterwards, also when a write fails (with the old values).\n"
	},
	{
		"target-resume", cmd_target_resume,
		"let SSDs failed by a write error take writes again",
		"Usage: scalioctl target-resume --store NAME [-v]\n"
		"\n"
		"After a log write error an SSD of the store refuses every write\n"
		"(PUT, DELETE: -EIO; reads go on) and stats shows it FAILED.  Once\n"
		"the fault is cleared, this writes 1 to " STORES_ROOT "/NAME/resume:\n"
		"the target probes each failed SSD with a durable write (it zeroes\n"
		"the header of the batch whose write failed, which was never\n"
		"acknowledged) and lets it take writes again if that succeeds; no\n"
		"disable / enable, no recovery.  Prints each SSD's state.  Fails\n"
		"(exit 3) while a failed SSD still fails its probe: it stays failed.\n"
	},
	{
		"allow-host", cmd_allow_host,
		"admit a host to a store and to its SSDs' nvmet subsystems",
		"Usage: scalioctl allow-host STORE NQN {--key-file FILE | --no-key} [-v]\n"
		"\n"
		"Creates " STORES_ROOT "/STORE/allowed_hosts/NQN (with FILE's\n"
		"secret in its dhchap_key), the nvmet host " NVMET_ROOT "/hosts/NQN,\n"
		"and links it into the allowed_hosts of every nvmet subsystem of the\n"
		"store.  The secret (16..128 printable bytes, one line; e.g. the output\n"
		"of `nvme gen-dhchap-key`) is what the host gives to `scalioctl attach\n"
		"--key-file`; it is proven by HMAC-SHA256 and never sent.  Works while\n"
		"the store is enabled.  --no-key admits the host by its NQN alone,\n"
		"without a secret (anyone who knows the NQN gets in; the target warns\n"
		"at each such admission); one of the two is required.\n"
		"\n"
		"With nvmet in-band authentication (its hosts have dhchap_key), the\n"
		"nvmet host gets the NVMe DH-HMAC-CHAP keys derived from the secret,\n"
		"both ways (dhchap_key, dhchap_ctrl_key), which attach uses; a change\n"
		"of them drops every nvmet controller of the store's SSDs (admitted\n"
		"hosts reconnect).  Without it, a WARNING: the SSDs admit by NQN alone.\n"
	},
	{
		"deny-host", cmd_deny_host,
		"remove a host from a store and its SSDs' nvmet subsystems",
		"Usage: scalioctl deny-host STORE NQN [-v]\n"
		"\n"
		"Removes allowed_hosts/NQN from the store (which drops that host's\n"
		"scalio connections at once) and unlinks the nvmet host from the\n"
		"store's subsystems (new NVMe-oF connections are refused).  nvmet\n"
		"cannot drop one host's controllers: every controller of the store's\n"
		"SSD subsystems is dropped (unlinked from the port and linked again);\n"
		"admitted hosts reconnect after their reconnect delay (10 s).\n"
	},
	{
		"attach", cmd_attach,
		"connect this host to a store and bind its SSDs",
		"Usage: scalioctl attach NAME --addr IP [--port PORT] [--nvme-port PORT]\n"
		"           [--timeout-ms MS] [--fast-io-fail-ms MS] [--hostnqn NQN]\n"
		"           [--hostid UUID] [--key-file FILE] [-v]\n"
		"\n"
		"On a client (modules nvme-rdma and scalio-host loaded).\n"
		"SCALIO_IOC_ATTACH on " SCALIO_CTL_DEV " (RDMA handshake with the\n"
		"target at IP:PORT, creates /dev/scalio/NAME).  Then for each SSD of\n"
		"the store: SCALIO_IOC_SSD_INFO, an NVMe-oF connect of subsystem NQN\n"
		"at rdma IP:NVME-PORT through libnvme (as `nvme connect` would) unless\n"
		"a controller of that subsystem is already connected, the block\n"
		"device of the namespace is found in libnvme's view of the subsystem\n"
		"(with or without native NVMe multipath), and handed to the module\n"
		"with SCALIO_IOC_SSD_BIND.\n"
		"Attaching a store that is already attached binds whatever SSDs are\n"
		"still unbound.\n"
		"\n"
		"Options:\n"
		"  --addr IP           target's RDMA address\n"
		"  --port PORT         scalio port (default 4800)\n"
		"  --nvme-port PORT    nvmet port (default 4420)\n"
		"  --timeout-ms MS     connect timeout (default: the module's, 5000)\n"
		"  --fast-io-fail-ms MS how long an operation waits for a lost\n"
		"                      connection to come back before it fails with\n"
		"                      EHOSTDOWN; 0 fails at once (default 15000)\n"
		"  --hostnqn NQN       host NQN (default: /etc/nvme/hostnqn as nvme-cli,\n"
		"                      else the module's hostnqn parameter)\n"
		"  --hostid UUID       host id (default: /etc/nvme/hostid, else the\n"
		"                      module's)\n"
		"  --key-file FILE     the secret the target holds for this NQN\n"
		"                      (default /etc/scalio/hostkey if present)\n"
		"The store and every NVMe-oF connect use the same host NQN and id.  A\n"
		"refusal says why: EACCES (NQN not allowed), ENOKEY (secret needed),\n"
		"EKEYREJECTED (wrong secret).\n"
	},
	{
		"detach", cmd_detach,
		"disconnect a store and its NVMe-oF controllers",
		"Usage: scalioctl detach NAME [-v]\n"
		"\n"
		"SCALIO_IOC_DETACH on " SCALIO_CTL_DEV " (fails while\n"
		"/dev/scalio/NAME is open), then disconnects (libnvme) the controllers\n"
		"of each SSD subsystem of the store, as `nvme disconnect -n NQN`.\n"
	},
	{
		"list", cmd_list,
		"list this machine's stores and their state",
		"Usage: scalioctl list [--target] [--host] [-o text|json]\n"
		"\n"
		"Target: the stores in " STORES_ROOT ": enabled or\n"
		"not, address, SSDs (index, device, subsystem NQN, nsid, and the\n"
		"state the store's stats give: ok, failed or down), allowed hosts,\n"
		"live keys.  Host: the attached stores: the target's address, the\n"
		"host NQN and id they were attached with, and which SSDs are bound\n"
		"(state ready: all; partial: GETs of the others go to the target;\n"
		"unknown: /dev/scalio/NAME could not be asked, with why).  Nothing\n"
		"goes over the network: 'scalioctl stats' shows whether the target\n"
		"answers.\n"
		"\n"
		"Options:\n"
		"  --target             only the target's stores\n"
		"  --host               only the attached stores\n"
		"  -o, --output FORMAT  text (default) or json: {\"target\": {\"stores\":\n"
		"                       [...]}, \"host\": {\"stores\": [...]}}\n"
		"  --json               the same as -o json\n"
	},
	{
		"put", cmd_put,
		"store a value",
		"Usage: scalioctl put [--hex] NAME KEY VALUE\n"
		"\n"
		"Stores VALUE under KEY in the attached store NAME.  KEY (1..32 bytes)\n"
		"and VALUE (0..4096 bytes) are taken literally as bytes; with --hex\n"
		"both are given in hexadecimal.  Put `--` before a KEY or VALUE that\n"
		"starts with '-'.\n"
	},
	{
		"get", cmd_get,
		"print a value",
		"Usage: scalioctl get [--hex] NAME KEY\n"
		"\n"
		"Prints the value stored under KEY followed by a newline (with --hex:\n"
		"KEY is given and the value printed in hexadecimal).  Exit status 1\n"
		"with a message on stderr when the key does not exist.\n"
	},
	{
		"del", cmd_del,
		"delete a key",
		"Usage: scalioctl del [--hex] NAME KEY\n"
		"\n"
		"Deletes KEY.  Exit status 1 when the key does not exist.\n"
	},
	{
		"stats", cmd_stats,
		"print host and target counters of a store",
		"Usage: scalioctl stats [-o text|json] [--host-only] NAME\n"
		"       scalioctl stats -o prometheus [--textfile DIR] [NAME]\n"
		"\n"
		"SCALIO_IOC_STATS on /dev/scalio/NAME: the host's counters (gets,\n"
		"cache_hits, ...) and the target's counters fetched over the\n"
		"connection, shown with the prefix target_ (target_rpc_gets, ...),\n"
		"plus features, nr_ssds, nr_blocks, slots_per_block and nr_buckets.\n"
		"\n"
		"-o prometheus prints the counters of every store of this machine (or\n"
		"of NAME only) in the Prometheus text format: those of the stores\n"
		"this target serves, from " STORES_ROOT "/*/stats\n"
		"(scalio_target_*), and those of the stores this host has attached,\n"
		"without the target's (scalio_host_*); each with a store label.\n"
		"\n"
		"Options:\n"
		"  -o, --output FORMAT  text (default), json: one flat JSON object of\n"
		"                       \"name\": number pairs, or prometheus\n"
		"  --json               the same as -o json\n"
		"  --host-only          do not fetch the target's counters\n"
		"  --textfile DIR       write -o prometheus to DIR/scalio.prom (0644,\n"
		"                       through a rename) for node_exporter's textfile\n"
		"                       collector\n"
	},
	{
		"export", cmd_export,
		"write every pair of a store to a file (scalioctl import reads it)",
		"Usage: scalioctl export [-q] [--skip-damaged] NAME FILE\n"
		"\n"
		"Writes every key and value of store NAME to FILE (\"-\": standard\n"
		"output; an existing FILE is never overwritten) in the versioned\n"
		"export format of Documentation/export.rst: a header (format version,\n"
		"the store's name and geometry), frames of up to 256 pairs each with\n"
		"its xxh64, a trailer with the counts and an xxh64 of the whole file.\n"
		"Any release that reads the format imports it, into a store of any\n"
		"geometry or on-SSD format.\n"
		"\n"
		"The pairs are read bucket by bucket with SCALIO_IOC_SCAN: one-sided\n"
		"RDMA and NVMe-oF reads, as GET misses read, without the target's CPU\n"
		"(every SSD must be bound: attach does it).  Each bucket's pairs\n"
		"are the bucket's state at one moment; different buckets are read at\n"
		"different moments, so the file is a point-in-time copy of the store\n"
		"only if nobody writes to it meanwhile: stop the writers first.\n"
		"Deleted keys are not exported.  Memory use does not grow with the\n"
		"store.  Progress (buckets done of all, pairs) goes to stderr once a\n"
		"second unless -q.  A bucket that cannot be read (a damaged segment:\n"
		"EIO) stops the export with exit status 3 naming the bucket; the\n"
		"file is then left without its trailer, and import refuses it.\n"
		"With --skip-damaged such a bucket is named and skipped instead: the\n"
		"file is whole (importable) but lacks that bucket's pairs, and the\n"
		"exit status is still 3.\n"
		"\n"
		"Options:\n"
		"  -q, --quiet      no progress or summary on stderr\n"
		"  --skip-damaged   skip a bucket whose segment is damaged (EIO)\n"
	},
	{
		"import", cmd_import,
		"put every pair of an export file into a store",
		"Usage: scalioctl import [-q] NAME FILE\n"
		"       scalioctl import --check [-q] FILE\n"
		"\n"
		"Reads FILE (\"-\": standard input), written by scalioctl export, and\n"
		"PUTs its pairs into store NAME, one SCALIO_IOC_MULTI of up to 256\n"
		"PUTs per frame of the file.  Keys already in NAME are overwritten,\n"
		"others are left as they are.  The magic, the format version and each\n"
		"frame's checksum are checked before any pair of that frame is put,\n"
		"and the trailer's counts and whole-file checksum at the end.  A\n"
		"damaged or truncated file stops the import with exit status 3; the\n"
		"message says where the damage is and how many pairs (those of the\n"
		"frames before it) were imported.  A PUT that fails (EFBIG: the\n"
		"key's block is full in this store; ENOSPC) stops it the same way,\n"
		"naming the keys.\n"
		"\n"
		"Options:\n"
		"  --check       check FILE only (no store): prints its pair count\n"
		"  -q, --quiet   no progress or summary on stderr\n"
	},
	{
		"save", cmd_save,
		"write this machine's scalio configuration as JSON",
		"Usage: scalioctl save [--target] [--host] [--all] [-v] [FILE]\n"
		"\n"
		"Writes the configuration as one JSON document to FILE (written\n"
		"aside and renamed, mode 0600) or, without FILE or with '-', to\n"
		"standard output.  Target: scalio's nvmet hosts, subsystems\n"
		"(attributes, allowed hosts, namespaces) and ports (attributes,\n"
		"referrals, ANA groups, links to scalio's subsystems), and the\n"
		"scalio stores (attributes, SSDs, enable), from " CONFIGFS_ROOT ".\n"
		"scalio's nvmet objects: the subsystems the stores name or under\n"
		SCALIO_NQN_PREFIX ", the hosts they or the stores admit, the\n"
		"ports they are linked to; other nvmet objects are nvmetcli's.\n"
		"Host: the attached stores with the address, ports and timeout\n"
		"each was attached with.\n"
		"\n"
		"Options:\n"
		"  --target   save the target's configuration\n"
		"  --host     save the host's attached stores\n"
		"  --all      save every nvmet object, not only scalio's\n"
		"Without --target or --host: whatever this machine runs (nvmet or\n"
		"scalio-target configfs present; scalio-host loaded).\n"
	},
	{
		"restore", cmd_restore,
		"bring back a saved configuration (merged into what exists)",
		"Usage: scalioctl restore [--target] [--host] [--dry-run] [-v] FILE\n"
		"\n"
		"Reads a document written by 'scalioctl save' (FILE '-': standard\n"
		"input), checks all of it, and then rebuilds the target's\n"
		"configuration in dependency order (nvmet hosts, subsystems and\n"
		"namespaces, ports and their links, then scalio stores, each enabled\n"
		"last) and/or attaches the host's stores ('scalioctl attach' each).\n"
		"On the target it merges: what is missing is created, other objects\n"
		"(nvmetcli's) are left alone, and an object of the file that exists\n"
		"must hold the file's settings; restoring twice changes nothing.\n"
		"Refuses, changing nothing, when the file is malformed, on a\n"
		"conflict (an existing object with other settings: named), or when\n"
		"a store is attached on the host.\n"
		"\n"
		"Options:\n"
		"  --target    restore only the target part\n"
		"  --host      restore only the host part\n"
		"  --dry-run   print what would be done, change nothing\n"
	},
	{
		"clear", cmd_clear,
		"remove scalio's target configuration / detach every store",
		"Usage: scalioctl clear [--target] [--host] [--dry-run] [-v]\n"
		"\n"
		"--target: disables and removes every scalio store, then scalio's\n"
		"nvmet ports (links, referrals, ANA groups), subsystems (namespaces\n"
		"disabled first) and hosts (as save finds them); a port or host that\n"
		"other subsystems use too is kept (scalio's links go), other nvmet\n"
		"objects are not touched.  --host: 'scalioctl detach' of every\n"
		"attached store.  One of them is required.\n"
		"\n"
		"Options:\n"
		"  --target    clear scalio's part of the target's configfs\n"
		"  --host      detach every store of this host\n"
		"  --dry-run   print what would be done, change nothing\n"
	},
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", progname, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/** err_msg() - print "scalioctl: error: ..." on stderr. */
void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
}

/** info_msg() - progress message on stdout. */
void info_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/** usage_error() - report a command-line error; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", progname, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s %s --help'.\n", progname, cmd);
	return EXIT_USAGE;
}

/* True if -h/--help appears before any "--". */
bool want_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

/**
 * parse_out_format() - the FORMAT of -o/--output
 * @cmd:	the command, for the message
 * @arg:	"text", "json" or "prometheus"
 * @allowed:	OUT_* the command offers
 * @fmt:	set on success
 *
 * Return: 0, or EXIT_USAGE after saying why.
 */
int parse_out_format(const char *cmd, const char *arg, unsigned int allowed,
		     enum out_format *fmt)
{
	static const struct {
		const char *name;
		enum out_format fmt;
	} names[] = {
		{ "text", OUT_TEXT },
		{ "json", OUT_JSON },
		{ "prometheus", OUT_PROMETHEUS },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(arg, names[i].name) && (allowed & names[i].fmt)) {
			*fmt = names[i].fmt;
			return 0;
		}
	}
	return usage_error(cmd, "unknown output format '%s'", arg);
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_help(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: scalioctl COMMAND [ARGS...]\n"
		"       scalioctl help [COMMAND]\n"
		"       scalioctl COMMAND --help\n"
		"       scalioctl --version\n"
		"\n"
		"Control tool of the scalio key-value store.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-16s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"Exit status: 0 ok, 1 key missing (get, del), 2 usage error,\n"
		"3 any other failure (with the reason on stderr).\n");
}

int print_command_help(const char *cmd)
{
	const struct command *c = find_command(cmd);

	if (!c) {
		fprintf(stderr, "%s: unknown command '%s'\n", progname, cmd);
		print_help(stderr);
		return EXIT_USAGE;
	}
	fputs(c->usage, stdout);
	return EXIT_OK;
}

/**
 * parse_u32() - parse a decimal (or 0x hex) number within [min, max]
 *
 * Return: 0, or -EINVAL / -ERANGE.
 */
int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

/* A store name is used in configfs, in /dev and in NQNs: keep it plain. */
bool valid_store_name(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n >= SCALIO_NAME_MAX || name[0] == '.')
		return false;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.'))
			return false;
	}
	return true;
}

bool valid_ip_literal(const char *addr)
{
	unsigned char buf[sizeof(struct in6_addr)];

	if (strlen(addr) >= SCALIO_ADDR_MAX)
		return false;
	return inet_pton(AF_INET, addr, buf) == 1 ||
	       inet_pton(AF_INET6, addr, buf) == 1;
}

/* The NQN under which target-setup exports SSD @i of @store. */
void subsys_nqn(char *buf, size_t len, const char *store, unsigned int i)
{
	snprintf(buf, len, SCALIO_NQN_PREFIX "%s-ssd%u", store, i);
}

void pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX) {
		err_msg("path too long: %.64s...", buf);
		exit(EXIT_FAIL);
	}
}

/* True if @nqn is one target-setup makes for @store: PREFIX<store>-ssd<n>. */
bool is_store_nqn(const char *nqn, const char *store)
{
	size_t n = strlen(SCALIO_NQN_PREFIX), s = strlen(store);

	if (strncmp(nqn, SCALIO_NQN_PREFIX, n) || strncmp(nqn + n, store, s) ||
	    strncmp(nqn + n + s, "-ssd", 4))
		return false;
	nqn += n + s + 4;
	if (!*nqn)
		return false;
	for (; *nqn; nqn++)
		if (*nqn < '0' || *nqn > '9')
			return false;
	return true;
}

/**
 * write_file() - write @val to a sysfs/configfs attribute in one write()
 *
 * Return: 0 or the negative errno of open() or write().
 */
int write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, ret = 0;

	if (verbose)
		fprintf(stderr, "  %s <- %s\n", path, val);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/**
 * read_file() - read a small attribute, NUL-terminated, trailing
 * newlines removed
 *
 * Return: length read, or a negative errno.
 */
int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}

bool path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/**
 * run_cmd() - fork/exec a program found on PATH and wait for it
 * @argv:	NULL-terminated argument vector
 * @quiet:	send its stdout and stderr to /dev/null
 *
 * Return: the program's exit status (0..255), 128 + signal number if it
 * was killed, or a negative errno if it could not be started (-ENOENT:
 * not installed).
 */
int run_cmd(char *const argv[], bool quiet)
{
	int pipefd[2], status, err = 0;
	ssize_t n;
	pid_t pid;

	if (verbose) {
		int i;

		fprintf(stderr, "  $");
		for (i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fputc('\n', stderr);
	}
	/* The pipe carries exec's errno back to the parent. */
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (pid == 0) {
		close(pipefd[0]);
		if (quiet) {
			int fd = open("/dev/null", O_RDWR);

			if (fd >= 0) {
				dup2(fd, STDOUT_FILENO);
				dup2(fd, STDERR_FILENO);
				if (fd > STDERR_FILENO)
					close(fd);
			}
		}
		execvp(argv[0], argv);
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	do {
		n = read(pipefd[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (n == (ssize_t)sizeof(err))
		return -err;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -EIO;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("scalioctl %s\n", SCALIO_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		if (argc > 2)
			return print_command_help(argv[2]);
		print_help(stdout);
		return EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "%s: unknown command '%s'\n\n", progname, argv[1]);
		print_help(stderr);
		return EXIT_USAGE;
	}
	if (want_help(argc - 1, argv + 1)) {
		fputs(c->usage, stdout);
		return EXIT_OK;
	}
	return c->run(argc - 1, argv + 1);
}
