// SPDX-License-Identifier: GPL-2.0
/*
 * scalioctl stats -o prometheus: the counters of every store of this
 * machine in the Prometheus text exposition format (version 0.0.4).
 *
 * Each machine exports what it owns: a storage server the counters of its
 * stores from their configfs "stats" attribute (summed over all clients),
 * a client the counters of its attached stores from SCALIO_IOC_STATS
 * without fetching the target's (those would be the same series once per
 * client).  Names follow Prometheus' conventions: a scalio_host_ or
 * scalio_target_ prefix, base units (seconds, bytes) in the name,
 * counters end in _total; the store, and for per-SSD series the SSD
 * index, are labels.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"

#define LOG_UNIT_BYTES	4096ULL	/* log_*_units of the stats are 4 KiB */

enum prom_type { PROM_COUNTER, PROM_GAUGE };

/*
 * One sample family.  @src names the counter in the stats (the configfs
 * line of a target, the struct member of a host); @label adds a constant
 * label so that several sources make one family (CPU time by thread
 * kind).  Entries of one family are adjacent, the first one has the help.
 */
struct prom_metric {
	const char	*name;
	enum prom_type	type;
	const char	*help;
	const char	*src;
	const char	*label;
	uint64_t	mul;		/* unit conversion; 0 = 1 */
	bool		ns;		/* nanoseconds shown as seconds */
};

#define COUNTER(name, src, help) { name, PROM_COUNTER, help, src, NULL, 0, false }
#define GAUGE(name, src, help) { name, PROM_GAUGE, help, src, NULL, 0, false }

static const struct prom_metric host_metrics[] = {
	COUNTER("scalio_host_gets_total", "gets",
		"GETs issued by this host."),
	COUNTER("scalio_host_puts_total", "puts",
		"PUTs issued by this host."),
	COUNTER("scalio_host_deletes_total", "deletes",
		"DELETEs issued by this host."),
	COUNTER("scalio_host_cache_hits_total", "cache_hits",
		"GETs answered from an index slot."),
	COUNTER("scalio_host_cache_misses_total", "cache_misses",
		"GETs answered by filling a slot."),
	COUNTER("scalio_host_ssd_reads_total", "ssd_reads",
		"NVMe-oF reads this host issued to the SSDs."),
	COUNTER("scalio_host_rpc_gets_total", "rpc_gets",
		"GETs of this host served by the target."),
	COUNTER("scalio_host_rdma_reads_total", "rdma_reads",
		"One-sided RDMA READs issued."),
	COUNTER("scalio_host_rdma_cas_total", "rdma_cas",
		"RDMA compare-and-swaps issued."),
	COUNTER("scalio_host_cas_failures_total", "cas_failures",
		"Compare-and-swaps that lost to another client."),
	COUNTER("scalio_host_retries_total", "retries",
		"GET restarts (concurrent fill, collision, lost lock)."),
	COUNTER("scalio_host_lease_reclaims_total", "lease_reclaims",
		"Expired slot locks this host took over."),
	COUNTER("scalio_host_invalidations_total", "invalidations",
		"Slots invalidated by this host's writes."),
	COUNTER("scalio_host_header_mismatches_total", "header_mismatches",
		"Segments read whose header did not match the index."),
	COUNTER("scalio_host_errors_total", "errors",
		"Operations that failed other than with ENOENT."),
	COUNTER("scalio_host_reconnects_total", "reconnects",
		"Connections to the target re-established after a loss."),
	COUNTER("scalio_host_waits_total", "waits",
		"Times an operation waited for the network."),
	COUNTER("scalio_host_lease_renewals_total", "lease_renewals",
		"Slot locks renewed by a slow fill."),
	COUNTER("scalio_host_lease_giveups_total", "lease_giveups",
		"Fills that stopped renewing when their GET timed out."),
	COUNTER("scalio_host_ssd_read_timeouts_total", "ssd_read_timeouts",
		"SSD reads still running at the end of their GET."),
	COUNTER("scalio_host_reconnect_waits_total", "reconnect_waits",
		"Times an operation waited for a lost connection to come back."),
	{ "scalio_host_reconnect_wait_seconds_total", PROM_COUNTER,
	  "Time operations waited for a lost connection to come back.",
	  "reconnect_wait_ns", NULL, 0, true },
	COUNTER("scalio_host_fast_io_fails_total", "fast_io_fails",
		"Operations failed unsent with EHOSTDOWN (fast_io_fail_ms over)."),
	COUNTER("scalio_host_lost_get_retries_total", "lost_get_retries",
		"GETs lost with the connection that started over."),
	COUNTER("scalio_host_get_val_reads_total", "get_val_reads",
		"Value extents read by GET misses."),
	COUNTER("scalio_host_get_val_stale_total", "get_val_stale",
		"Value extents GET misses found moved (seg read again)."),
	COUNTER("scalio_host_retired_evictions_total", "retired_evictions",
		"Cached slots evicted as filled before the target retired their block."),
	COUNTER("scalio_host_opt_misses_total", "opt_misses",
		"GET misses answered before their cache fill."),
	COUNTER("scalio_host_bg_queued_total", "bg_queued",
		"Cache fills handed to the background."),
	COUNTER("scalio_host_bg_fills_total", "bg_fills",
		"Background cache fills over (or refused)."),
	COUNTER("scalio_host_bg_fill_drops_total", "bg_fill_drops",
		"Background cache fills that cached nothing."),
	COUNTER("scalio_host_bg_waits_total", "bg_waits",
		"Network waits of background cache fills."),
	GAUGE("scalio_host_ssds", "nr_ssds",
		"SSDs of the store."),
};

static const struct prom_metric target_metrics[] = {
	COUNTER("scalio_target_rpc_gets_total", "rpc_gets",
		"GETs served by the target's CPU."),
	COUNTER("scalio_target_rpc_puts_total", "rpc_puts",
		"PUTs served by the target."),
	COUNTER("scalio_target_rpc_deletes_total", "rpc_deletes",
		"DELETEs served by the target."),
	COUNTER("scalio_target_rpc_other_total", "rpc_other",
		"Other requests served by the target."),
	COUNTER("scalio_target_ssd_reads_total", "ssd_reads",
		"Reads of the target from its SSDs."),
	COUNTER("scalio_target_ssd_writes_total", "ssd_writes",
		"Durable log writes of the target to its SSDs."),
	COUNTER("scalio_target_ssd_written_bytes_total", "ssd_write_bytes",
		"Bytes of the durable log writes."),
	COUNTER("scalio_target_batches_total", "batches",
		"Group commits."),
	COUNTER("scalio_target_batched_ops_total", "batched_ops",
		"Operations in the group commits."),
	COUNTER("scalio_target_cleaner_runs_total", "cleaner_runs",
		"Log cleaner passes."),
	COUNTER("scalio_target_cleaner_moved_segments_total", "cleaner_moved",
		"Segments moved by the log cleaner."),
	/* The three CPU times make one family, by thread kind. */
	{ "scalio_target_cpu_seconds_total", PROM_COUNTER,
	  "CPU time of the target's threads, by kind.",
	  "cpu_ns_commit", "kind=\"commit\"", 0, true },
	{ "scalio_target_cpu_seconds_total", PROM_COUNTER, NULL,
	  "cpu_ns_rpc", "kind=\"rpc\"", 0, true },
	{ "scalio_target_cpu_seconds_total", PROM_COUNTER, NULL,
	  "cpu_ns_cleaner", "kind=\"cleaner\"", 0, true },
	{ "scalio_target_log_used_bytes", PROM_GAUGE,
	  "Bytes in use in the SSD logs.",
	  "log_used_units", NULL, LOG_UNIT_BYTES, false },
	{ "scalio_target_log_size_bytes", PROM_GAUGE,
	  "Size of the SSD logs.",
	  "log_total_units", NULL, LOG_UNIT_BYTES, false },
	GAUGE("scalio_target_keys", "keys",
		"Live keys in the store."),
	COUNTER("scalio_target_seg_cache_hits_total", "seg_cache_hits",
		"Segments the commit path found in DRAM."),
	COUNTER("scalio_target_seg_cache_misses_total", "seg_cache_misses",
		"Segments the commit path read from the SSD."),
	COUNTER("scalio_target_seg_cache_evictions_total", "seg_cache_evictions",
		"Segments evicted from the segment cache."),
	{ "scalio_target_commit_write_seconds_total", PROM_COUNTER,
	  "Wall time of the commit threads' batch writes.",
	  "commit_write_ns", NULL, 0, true },
	{ "scalio_target_commit_wait_seconds_total", PROM_COUNTER,
	  "Wall time the commit threads waited for announced requests.",
	  "commit_wait_ns", NULL, 0, true },
	GAUGE("scalio_target_live_bytes", "live_bytes",
		"Bytes of the blocks' current segments in the SSD logs."),
	GAUGE("scalio_target_index_bytes", "index_bytes",
		"DRAM the store's index takes."),
	COUNTER("scalio_target_vals_written_total", "vals_written",
		"Value extents written by client writes."),
	COUNTER("scalio_target_val_bytes_written_total", "val_bytes_written",
		"Bytes of the value extents written by client writes."),
	COUNTER("scalio_target_vals_moved_total", "vals_moved",
		"Value extents the cleaner relocated."),
	GAUGE("scalio_target_live_val_bytes", "live_val_bytes",
		"Bytes of the value extents current records point to."),
	COUNTER("scalio_target_blocks_retired_total", "blocks_retired",
		"Cache blocks retired for invalidations departed writers owed."),
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(ARRAY_LEN(target_metrics) == PROM_TARGET_METRICS,
	       "prom.h: PROM_TARGET_METRICS");

/* The states of an SSD in the stats, in the order of prom_ssd.state. */
static const char *const ssd_states[] = { "ok", "failed", "down" };

static void type_line(FILE *f, const struct prom_metric *m)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name,
		m->type == PROM_COUNTER ? "counter" : "gauge");
}

/* A label value: backslash, double quote and newline escaped. */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void sample(FILE *f, const struct prom_metric *m, const char *store,
		   uint64_t v)
{
	fprintf(f, "%s{store=\"", m->name);
	label_value(f, store);
	fputc('"', f);
	if (m->label)
		fprintf(f, ",%s", m->label);
	/* Exact decimals: no float rounding of nanoseconds. */
	if (m->ns)
		fprintf(f, "} %" PRIu64 ".%09" PRIu64 "\n", v / 1000000000,
			v % 1000000000);
	else
		fprintf(f, "} %" PRIu64 "\n", m->mul ? v * m->mul : v);
}

/* Where member @src of struct scalio_host_stats (or the geometry) is. */
static bool host_value(const struct scalio_stats *st, const char *src,
		       uint64_t *v)
{
#define HF(f) { #f, offsetof(struct scalio_host_stats, f) }
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		HF(gets), HF(puts), HF(deletes), HF(cache_hits),
		HF(cache_misses), HF(ssd_reads), HF(rpc_gets), HF(rdma_reads),
		HF(rdma_cas), HF(cas_failures), HF(retries),
		HF(lease_reclaims), HF(invalidations), HF(header_mismatches),
		HF(errors), HF(reconnects), HF(waits), HF(lease_renewals),
		HF(lease_giveups), HF(ssd_read_timeouts),
		HF(reconnect_waits), HF(reconnect_wait_ns), HF(fast_io_fails),
		HF(lost_get_retries), HF(get_val_reads), HF(get_val_stale),
		HF(retired_evictions), HF(opt_misses), HF(bg_queued),
		HF(bg_fills), HF(bg_fill_drops), HF(bg_waits),
	};
#undef HF
	size_t i;

	if (!strcmp(src, "nr_ssds")) {
		*v = st->nr_ssds;
		return true;
	}
	for (i = 0; i < ARRAY_LEN(fields); i++) {
		if (!strcmp(fields[i].name, src)) {
			memcpy(v, (const char *)&st->host + fields[i].off,
			       sizeof(*v));
			return true;
		}
	}
	return false;
}

/**
 * prom_print_host() - the exposition of host stores' counters
 * @f:	output
 * @h:	stores
 * @n:	number of stores
 *
 * Nothing at all without a store: a storage server that is no client
 * shows no empty host families.
 */
void prom_print_host(FILE *f, const struct prom_host *h, int n)
{
	size_t i;
	uint64_t v;
	int s;

	for (i = 0; i < ARRAY_LEN(host_metrics); i++) {
		const struct prom_metric *m = &host_metrics[i];

		if (n)
			type_line(f, m);
		for (s = 0; s < n; s++)
			if (host_value(&h[s].st, m->src, &v))
				sample(f, m, h[s].name, v);
	}
}

/**
 * prom_parse_target_stats() - take in a store's configfs "stats"
 * @t:		its name set, the rest zeroed and every ssd[].state -1
 * @text:	the attribute's text (modified)
 *
 * The text is "NAME VALUE" lines, then one "ssd<i> ok|failed|down" line
 * per SSD.  Names this tool does not know (a newer module) are skipped.
 */
void prom_parse_target_stats(struct prom_target *t, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, ' '), *end;
		unsigned long long v;
		unsigned int idx;
		size_t i;

		if (!val)
			continue;
		*val++ = '\0';
		if (!strncmp(line, "ssd", 3) && line[3] >= '0' &&
		    line[3] <= '9') {
			idx = (unsigned int)strtoul(line + 3, &end, 10);
			if (*end || idx >= PROM_MAX_SSDS)
				continue;
			t->ssd[idx].present = true;
			for (i = 0; i < ARRAY_LEN(ssd_states); i++)
				if (!strcmp(val, ssd_states[i]))
					t->ssd[idx].state = (int)i;
			continue;
		}
		errno = 0;
		v = strtoull(val, &end, 10);
		if (errno || end == val || *end)
			continue;
		for (i = 0; i < PROM_TARGET_METRICS; i++) {
			if (!strcmp(target_metrics[i].src, line)) {
				t->val[i] = v;
				t->have[i] = true;
			}
		}
	}
}

/* Whether family @i (its first entry) has a sample among @t[0..@n). */
static bool target_family_used(const struct prom_target *t, int n, size_t i)
{
	size_t k;
	int s;

	for (k = i; k < PROM_TARGET_METRICS &&
	     (k == i || !target_metrics[k].help); k++)
		for (s = 0; s < n; s++)
			if (t[s].have[k])
				return true;
	return false;
}

/* "NAME{store="S",ssd="I"" of a per-SSD sample; the caller closes it. */
static void ssd_sample(FILE *f, const char *name, const struct prom_target *t,
		       size_t i)
{
	fprintf(f, "%s{store=\"", name);
	label_value(f, t->name);
	fprintf(f, "\",ssd=\"%zu\"", i);
}

/**
 * prom_print_target() - the exposition of target stores' counters
 * @f:	output
 * @t:	stores read by prom_read_target()
 * @n:	number of stores
 *
 * A family is left out when no store has a sample of it (no store, or a
 * counter an older module does not have).
 */
void prom_print_target(FILE *f, const struct prom_target *t, int n)
{
	static const struct prom_metric enabled = GAUGE(
		"scalio_target_store_enabled", "enable",
		"Whether the store is enabled.");
	static const struct prom_metric state = GAUGE(
		"scalio_target_ssd_state", "ssd<i>",
		"State of an SSD of a store: 1 for its current state, 0 for the others.");
	static const struct prom_metric info = GAUGE(
		"scalio_target_ssd_info", "ssds/<i>",
		"The device and NVMe-oF subsystem of an SSD of a store.");
	bool used = false;
	size_t i, k;
	int s;

	for (i = 0; i < PROM_TARGET_METRICS; i++) {
		const struct prom_metric *m = &target_metrics[i];

		if (m->help) {
			used = target_family_used(t, n, i);
			if (used)
				type_line(f, m);
		}
		for (s = 0; s < n && used; s++)
			if (t[s].have[i])
				sample(f, m, t[s].name, t[s].val[i]);
	}
	if (!n)
		return;
	type_line(f, &enabled);
	for (s = 0; s < n; s++) {
		if (t[s].enabled < 0)
			continue;
		fprintf(f, "%s{store=\"", enabled.name);
		label_value(f, t[s].name);
		fprintf(f, "\"} %d\n", t[s].enabled);
	}
	type_line(f, &state);
	for (s = 0; s < n; s++) {
		for (i = 0; i < PROM_MAX_SSDS; i++) {
			if (!t[s].ssd[i].present || t[s].ssd[i].state < 0)
				continue;
			for (k = 0; k < ARRAY_LEN(ssd_states); k++) {
				ssd_sample(f, state.name, &t[s], i);
				fprintf(f, ",state=\"%s\"} %d\n", ssd_states[k],
					t[s].ssd[i].state == (int)k);
			}
		}
	}
	type_line(f, &info);
	for (s = 0; s < n; s++) {
		for (i = 0; i < PROM_MAX_SSDS; i++) {
			const struct prom_ssd *d = &t[s].ssd[i];

			if (!d->present)
				continue;
			ssd_sample(f, info.name, &t[s], i);
			fputs(",device_path=\"", f);
			label_value(f, d->device_path);
			fputs("\",nqn=\"", f);
			label_value(f, d->nqn);
			fputs("\"} 1\n", f);
		}
	}
}
