// SPDX-License-Identifier: GPL-2.0
/*
 * test_prom: prints the Prometheus exposition of two host stores with
 * known counters (no /dev/scalio needed) and of a target store parsed from
 * a stats text, for test.sh to check with a real parser (check_prom.py).
 * Built with sanitizers.
 *
 * Host store "h0": counter k of struct scalio_host_stats (in declaration
 * order, from 0) is 100 * (k + 1); "h1": 100 * (k + 1) + 1, and its gets
 * is 2^53 (the largest integer a Prometheus float holds exactly).
 */
#include <stdio.h>
#include <string.h>

#include "prom.h"

int main(void)
{
	static struct prom_target t;
	struct prom_host h[2];
	char text[] =
		"rpc_gets 1\nrpc_puts 2\nrpc_deletes 3\nrpc_other 4\n"
		"ssd_reads 5\nssd_writes 6\nssd_write_bytes 7\nbatches 8\n"
		"batched_ops 9\ncleaner_runs 10\ncleaner_moved 11\n"
		"cpu_ns_commit 2500000000\ncpu_ns_rpc 1\ncpu_ns_cleaner 0\n"
		"log_used_units 3\nlog_total_units 1024\nkeys 17\n"
		"ssd_failed 2\nseg_cache_hits 18\nseg_cache_misses 19\n"
		"seg_cache_evictions 20\ncommit_write_ns 1500000000\n"
		"commit_wait_ns 3\nlive_bytes 40960\nindex_bytes 69632\n"
		"a_counter_of_a_newer_module 21\n"
		"garbage\nkeys_bad 1x\n"
		"ssd0 ok\nssd1 failed\nssd2 down\nssd99 ok\nssd3x ok\n";
	int s, k;

	for (s = 0; s < 2; s++) {
		__u64 *c = (__u64 *)&h[s].st.host;

		memset(&h[s], 0, sizeof(h[s]));
		snprintf(h[s].name, sizeof(h[s].name), "h%d", s);
		h[s].st.nr_ssds = 2 + s;
		for (k = 0; k < 26; k++)
			c[k] = 100 * (k + 1) + s;
	}
	h[1].st.host.gets = 1ULL << 53;
	prom_print_host(stdout, h, 2);

	memset(&t, 0, sizeof(t));
	strcpy(t.name, "kv\"0");
	for (k = 0; k < PROM_MAX_SSDS; k++)
		t.ssd[k].state = -1;
	prom_parse_target_stats(&t, text);
	t.enabled = 1;
	strcpy(t.ssd[0].device_path, "/dev/disk/by-id/a\"b\\c\nd");
	strcpy(t.ssd[0].nqn, "nqn.2024-11.io.scalio:kv0-ssd0");
	t.ssd[3].present = true;	/* in ssds/, no state line */
	prom_print_target(stdout, &t, 1);
	return ferror(stdout) ? 1 : 0;
}
