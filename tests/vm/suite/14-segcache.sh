#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 14-segcache: the target's segment cache takes the SSD read out of the
# write path, and every value stays right.
#
# One boot, store kv0 on one SSD with 64 hash blocks (as `make bench`):
# load 2,000 records, then YCSB A (Zipfian 0.99, 8 threads, every value
# checked by the driver) twice, on the same data:
#   1. attr_seg_cache_mb at its default: target_ssd_reads per PUT must be
#      <= 0.1 (only the first rewrite of each block since the store was
#      created reads its segment), and seg_cache_hits > 0;
#   2. attr_seg_cache_mb=0 (target-set: disable, set, re-enable): the
#      negative control.  Every batch reads its blocks' segments again,
#      so ssd_reads per PUT must be >= 0.5, and seg_cache_hits stays 0.
# Between the two, the values the first run wrote are read back by the
# second (the driver checks them), across a store re-enable.  Prints both
# ratios.  In between, the host's network waits (counter `waits`,
# Documentation/protocol.rst "Network waits"): 32 fresh keys are PUT, then
# each read twice from one thread; the first GETs must all be misses
# answered before their fill (opt_misses) with at most 2 waits each on the
# caller's path (1 once the host has seen mostly misses), their fills in
# the background (waited for: bg_fills = bg_queued; their waits,
# bg_waits, apart); the second pass all hits with exactly 1 wait each,
# but for the keys whose background fill cached nothing (bg_fill_drops,
# at most 4: a fill meets another's lock only by chance here).
# Then the store is re-enabled unchanged: recovery warms the cache, so
# rewriting those 32 keys must read no segment (32 cache hits), and they
# read back rewritten.
# Kernel logs must be clean.
# Usage: 14-segcache.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
suite_share segcache

cat > "$share/segcache.sh" << 'EOF2'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
Y="scalio-ycsb --store $S --workload a --records 2000 --threads 8 --quiet"
fail() { echo "FAIL: $*"; exit 1; }
stat() {
	scalioctl stats --json "$S" | sed -n "s/.*\"target_$1\": \([0-9]*\).*/\1/p"
}
# measure LABEL: one YCSB A run; sets reads, puts, hits (deltas)
measure() {
	local r0 p0 h0 m0
	r0=$(stat ssd_reads) p0=$(stat rpc_puts) h0=$(stat seg_cache_hits)
	m0=$(stat seg_cache_misses)
	$Y --ops 1200 --seed $2 --run > /tmp/run.out 2>&1 ||
		{ cat /tmp/run.out; fail "YCSB A ($1)"; }
	reads=$(( $(stat ssd_reads) - r0 )) puts=$(( $(stat rpc_puts) - p0 ))
	hits=$(( $(stat seg_cache_hits) - h0 ))
	misses=$(( $(stat seg_cache_misses) - m0 ))
	[ "$puts" -gt 100 ] || fail "only $puts PUTs in YCSB A ($1)"
	echo "# $1: $puts PUTs, $reads target SSD reads, ssd_reads/PUT $(awk "BEGIN{printf \"%.3f\", $reads/$puts}"), seg_cache hits $hits misses $misses, evictions $(stat seg_cache_evictions)"
}

$Y --load > /tmp/load.out 2>&1 || { cat /tmp/load.out; fail "load"; }
echo "# seg_cache_mb $(vmctl exec-target "cat /sys/kernel/config/scalio/stores/$S/attr_seg_cache_mb")"
measure "cache at default" 1
[ "$hits" -gt 0 ] || fail "no segment cache hits"
[ $((reads * 10)) -le "$puts" ] || fail "ssd_reads/PUT above 0.1 with the cache on"

hstat() {
	scalioctl stats --json --host-only "$S" | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p"
}
# gets_pass KIND: GET waitkey0..N-1 once each, value checked; sets gets,
# waits and n (the KIND counter's delta: cache_misses or cache_hits)
gets_pass() {
	local g0 w0 n0 i=0
	g0=$(hstat gets) w0=$(hstat waits) n0=$(hstat "$1")
	while [ $i -lt $N ]; do
		[ "$(scalioctl get "$S" "waitkey$i")" = "v$i" ] ||
			fail "GET waitkey$i: wrong value or error"
		i=$((i + 1))
	done
	gets=$(( $(hstat gets) - g0 )) waits=$(( $(hstat waits) - w0 ))
	n=$(( $(hstat "$1") - n0 ))
	echo "# $N GETs: $n $1, $waits waits: $(awk "BEGIN{printf \"%.2f\", $waits/$gets}") per GET"
}
N=32
i=0
while [ $i -lt $N ]; do
	scalioctl put "$S" "waitkey$i" "v$i" > /dev/null || fail "PUT waitkey$i"
	i=$((i + 1))
done
o0=$(hstat opt_misses) q0=$(hstat bg_queued) d0=$(hstat bg_fill_drops)
b0=$(hstat bg_waits)
gets_pass cache_misses
[ "$gets" = $N ] && [ "$n" = $N ] || fail "expected $N GETs and $N misses, got $gets and $n"
[ "$waits" -le $((2 * N)) ] || fail "$waits waits for $N misses: more than 2 per miss on the caller's path"
opt=$(( $(hstat opt_misses) - o0 )) queued=$(( $(hstat bg_queued) - q0 ))
[ "$opt" = $N ] && [ "$queued" = $N ] ||
	fail "$opt misses answered before their fill, $queued fills queued: expected $N each"
bg_over() { [ "$(hstat bg_fills)" = "$(hstat bg_queued)" ]; }
wait_until "the background fills" bg_over || fail "waiting for the background fills"
drops=$(( $(hstat bg_fill_drops) - d0 )) bgw=$(( $(hstat bg_waits) - b0 ))
echo "# $N background fills: $drops cached nothing, $bgw waits: $(awk "BEGIN{printf \"%.2f\", $bgw/$N}") per fill"
[ "$drops" -le 4 ] || fail "$drops of $N background fills cached nothing"
[ "$bgw" -ge $((3 * (N - drops))) ] ||
	fail "$bgw background waits for $((N - drops)) published fills: fewer than 3 each"
gets_pass cache_hits
[ "$gets" = $N ] && [ "$n" = $((N - drops)) ] ||
	fail "expected $N GETs and $((N - drops)) hits, got $gets and $n"
[ "$waits" -le $((n + 2 * drops)) ] && [ "$waits" -ge $N ] ||
	fail "$waits waits for $n hits and $drops misses: not 1 per hit"

# Re-enable the store as it is (target-set: disable, set, re-enable):
# recovery warms the cache, so rewriting the 32 keys reads no segment.
mb=$(vmctl exec-target "cat /sys/kernel/config/scalio/stores/$S/attr_seg_cache_mb")
scalioctl detach "$S" > /dev/null || fail detach
vmctl exec-target "scalioctl target-set --store $S seg_cache_mb=$mb" > /dev/null ||
	fail "target-set seg_cache_mb=$mb"
scalioctl attach "$S" --addr "$A" > /dev/null || fail attach
echo "# $(vmctl exec-target "dmesg | grep -o 'recovered .*segments cached' | tail -n 1")"
r0=$(stat ssd_reads) h0=$(stat seg_cache_hits)
i=0
while [ $i -lt $N ]; do
	scalioctl put "$S" "waitkey$i" "r$i" > /dev/null || fail "re-PUT waitkey$i"
	i=$((i + 1))
done
reads=$(( $(stat ssd_reads) - r0 )) hits=$(( $(stat seg_cache_hits) - h0 ))
echo "# after a re-enable: $N PUTs to existing keys, $reads target SSD reads, $hits segment cache hits"
[ "$reads" = 0 ] || fail "$reads segment reads after a re-enable: recovery did not warm the cache"
[ "$hits" = $N ] || fail "$hits segment cache hits for $N PUTs after a re-enable"
i=0
while [ $i -lt $N ]; do
	[ "$(scalioctl get "$S" "waitkey$i")" = "r$i" ] ||
		fail "GET waitkey$i after its rewrite: wrong value or error"
	i=$((i + 1))
done

scalioctl detach "$S" > /dev/null || fail detach
vmctl exec-target "scalioctl target-set --store $S seg_cache_mb=0" > /dev/null ||
	fail "target-set seg_cache_mb=0"
scalioctl attach "$S" --addr "$A" > /dev/null || fail attach
measure "cache off" 2
[ "$hits" = 0 ] || fail "$hits segment cache hits with the cache off"
[ $((reads * 2)) -ge "$puts" ] ||
	fail "negative control: ssd_reads/PUT below 0.5 with the cache off"
echo "SEGCACHE TEST PASSED"
EOF2

"$top/tests/vm/run" --kver "$kver" --ssds 1 --share "$share" \
	--target-setup-args "--nblocks 64" -- 'sh /share/segcache.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: the segment cache spares the write path's SSD reads"
exit 0
