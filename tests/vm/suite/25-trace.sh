#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 25-trace: the host module's tracepoints (host/trace.h) tell the same
# story as its counters.  In host1, with kv0 attached, every scalio_host
# event is enabled through tracefs during a small workload: N PUTs from
# one process, then 4 processes each PUTting and GETting their own keys at
# once, two GET passes over every key (misses that fill, then hits), GETs
# of absent keys, DELETEs of present and absent keys; then V keys with
# values over value_inline_max (128 bytes: each in a value extent, on-SSD
# format 5), GET twice each (values that long are never cached: every GET
# reads its extent), and `scalioctl export` (SCAN reads them too).  Then,
# against the deltas of `scalioctl stats --host-only` and what the
# workload saw:
#   - every ring buffer kept every event (no overrun);
#   - get_issue = get_done = gets; get_done with hit=1 = cache_hits;
#     slot_fill with lost=0 = the misses answered by their fill
#     (cache_misses - opt_misses) + the background fills that cached
#     (bg_fills - bg_fill_drops, all waited for); some misses answered
#     before their fill (opt_misses) and some background fills cached;
#     slot_reclaim done=1 = lease_reclaims; slot_renew done=1 =
#     lease_renewals;
#   - put_issue = put_done = puts, and put_done result=0 = the PUTs the
#     workload saw acknowledged; delete_done = deletes, result=0 for the
#     present keys and -2 (ENOENT) for the absent ones;
#   - val_read op=get = get_val_reads (at least 2 V), with result=-116
#     (ESTALE) = get_val_stale; val_read op=scan: V, one per big key's
#     hash, all result=0, and the export holds every pair;
#   - get_done result=-2 = the GETs of absent keys that said "not found";
#   - fields: store=kv0 everywhere, a non-zero latency_ns on every
#     completion, one distinct hash per distinct key PUT (N + 4 x M + V), each
#     GET's hash is a PUT's hash or an absent key's.
# The target's events (target/trace.h, trace system scalio_target) are
# enabled in the target VM over the same workload plus a detach and attach
# of host1, and checked against the target's counters: batch_committed
# events with ret=0 = the batches delta, their ops summed = batched_ops,
# one batch_formed per batch_committed, a non-zero latency_ns on each, and
# an admit event with ret=0 for host1's NQN (the attach).
# Kernel logs must be clean.
# Usage: 25-trace.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
suite_share trace

cat > "$share/trace.sh" << 'EOF'
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
set -u
S=${SCALIO_STORE:-kv0}
T=/sys/kernel/tracing
N=40	# keys of the single-process part
M=15	# keys of each of the 4 concurrent processes
V=12	# keys with values over value_inline_max (value extents)
nfail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
hstat() {
	scalioctl stats --json --host-only "$S" | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p"
}
mountpoint -q $T || mount -t tracefs nodev $T || { echo "FAIL: no tracefs"; exit 1; }
[ -d $T/events/scalio_host ] || { echo "FAIL: no scalio_host events in $T/events"; exit 1; }
echo "# events: $(cd $T/events/scalio_host && echo scalio_host_*)"
echo 0 > $T/tracing_on
echo > $T/trace
echo 8192 > $T/buffer_size_kb
echo 1 > $T/events/scalio_host/enable
C="gets puts deletes cache_hits cache_misses lease_reclaims lease_renewals get_val_reads get_val_stale opt_misses bg_queued bg_fills bg_fill_drops"
for c in $C; do eval "b_$c=\$(hstat $c)"; done
# The target's side: its own tracefs, its counters through the host's stats.
tstat() {
	scalioctl stats --json "$S" | sed -n "s/.*\"target_$1\": \([0-9]*\).*/\1/p"
}
vmctl exec-target "mountpoint -q $T || mount -t tracefs nodev $T; echo 0 > $T/tracing_on;
	echo > $T/trace; echo 8192 > $T/buffer_size_kb; echo 1 > $T/events/scalio_target/enable;
	echo 1 > $T/tracing_on" || { echo "FAIL: enabling the target's events"; exit 1; }
tb_batches=$(tstat batches)
tb_ops=$(tstat batched_ops)
echo 1 > $T/tracing_on

# --- the workload
acked=0
i=0
while [ $i -lt $N ]; do
	scalioctl put "$S" "tr.k$i" "v$i" > /dev/null && acked=$((acked + 1))
	i=$((i + 1))
done
# 4 processes at once, each its own keys: PUT, GET, GET
for p in 1 2 3 4; do
	(
		a=0 j=0
		while [ $j -lt $M ]; do
			scalioctl put "$S" "tr.p$p.$j" "w$p.$j" > /dev/null && a=$((a + 1))
			scalioctl get "$S" "tr.p$p.$j" > /dev/null
			scalioctl get "$S" "tr.p$p.$j" > /dev/null
			j=$((j + 1))
		done
		echo $a > /tmp/tr.acked.$p
	) &
done
wait
for p in 1 2 3 4; do acked=$((acked + $(cat /tmp/tr.acked.$p))); done
# two passes: misses that fill, then hits
for pass in 1 2; do
	i=0
	while [ $i -lt $N ]; do
		[ "$(scalioctl get "$S" "tr.k$i")" = "v$i" ] || bad "GET tr.k$i (pass $pass)"
		i=$((i + 1))
	done
done
absent=0
for i in 1 2 3 4 5 6; do
	scalioctl get "$S" "tr.absent$i" > /dev/null 2>&1
	[ $? = 1 ] && absent=$((absent + 1))
done
dok=0
for i in 0 1 2 3 4; do
	scalioctl del "$S" "tr.k$i" > /dev/null 2>&1 && dok=$((dok + 1))
done
scalioctl del "$S" tr.absent1 > /dev/null 2>&1
[ $? = 1 ] && dabs=1 || dabs=0
# values in extents: 200 to 2,400 bytes, GET twice (never cached), then SCAN
bigval() { printf 'big%d.%0*d' "$1" $((200 * ($1 + 1))) 0; }
i=0
while [ $i -lt $V ]; do
	scalioctl put "$S" "tr.big$i" "$(bigval $i)" > /dev/null && acked=$((acked + 1))
	i=$((i + 1))
done
for pass in 1 2; do
	i=0
	while [ $i -lt $V ]; do
		[ "$(scalioctl get "$S" "tr.big$i")" = "$(bigval $i)" ] ||
			bad "GET tr.big$i (pass $pass)"
		i=$((i + 1))
	done
done
rm -f /tmp/tr.exp
scalioctl export -q "$S" /tmp/tr.exp || bad "export"

# the misses' background fills: their events are in the trace too
bg_over() { [ "$(hstat bg_fills)" = "$(hstat bg_queued)" ]; }
wait_until "the background fills" bg_over || bad "waiting for the background fills"
echo 0 > $T/tracing_on
for c in $C; do eval "d_$c=\$(( \$(hstat $c) - b_$c ))"; done
td_batches=$(( $(tstat batches) - tb_batches ))
td_ops=$(( $(tstat batched_ops) - tb_ops ))
# a new attach: the target's admit event
scalioctl detach "$S" && scalioctl attach "$S" --addr "${SCALIO_TARGET_ADDR:-10.77.0.1}" > /dev/null ||
	bad "detach and attach"
vmctl exec-target "echo 0 > $T/tracing_on; echo 0 > $T/events/scalio_target/enable;
	grep -v '^#' $T/trace; echo > $T/trace" > /tmp/tt.txt ||
	{ echo "FAIL: reading the target's trace"; exit 1; }
echo 0 > $T/events/scalio_host/enable
grep -v '^#' $T/trace > /tmp/tr.txt
overrun=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
echo > $T/trace
echo "# $(wc -l < /tmp/tr.txt) events; counter deltas:$(for c in $C; do eval "printf ' %s=%s' $c \$d_$c"; done)"
echo "# PUTs acknowledged $acked, GETs not found $absent, DELETEs done $dok + $dabs not found"
for e in get_issue get_done put_issue put_done delete_issue delete_done slot_fill slot_reclaim slot_renew val_read reconnect; do
	grep "scalio_host_$e:" /tmp/tr.txt | head -n 1 | sed 's/^ *//; s/^/# sample: /'
done

# n EVENT [FIELD=VALUE...]: events of that name whose fields all match
n() {
	local e=$1
	shift
	grep "scalio_host_$e: " /tmp/tr.txt | {
		f=cat
		for kv in "$@"; do f="$f | grep -- ' $kv\\( \\|\$\\)'"; done
		eval "$f"
	} | wc -l
}
eq() {	# eq WHAT GOT WANT (two numbers)
	[ -n "$2" ] && [ "$2" = "$3" ] && ok "$1: $2" || bad "$1: '$2', expected '$3'"
}
eq "ring buffer overruns" "$overrun" 0
eq "get_issue events = gets" "$(n get_issue)" "$d_gets"
eq "get_done events = gets" "$(n get_done)" "$d_gets"
eq "get_done hit=1 = cache_hits" "$(n get_done hit=1)" "$d_cache_hits"
eq "slot_fill lost=0 = cache_misses - opt_misses + bg_fills - bg_fill_drops" \
	"$(n slot_fill lost=0)" \
	"$((d_cache_misses - d_opt_misses + d_bg_fills - d_bg_fill_drops))"
[ "$d_opt_misses" -gt 0 ] && [ "$d_bg_fills" -gt "$d_bg_fill_drops" ] &&
	ok "misses answered before their fill: $d_opt_misses, background fills $d_bg_fills ($d_bg_fill_drops cached nothing)" ||
	bad "no miss answered before its fill ($d_opt_misses), or no background fill cached ($d_bg_fills, $d_bg_fill_drops dropped)"
eq "slot_reclaim done=1 = lease_reclaims" "$(n slot_reclaim done=1)" "$d_lease_reclaims"
eq "slot_renew done=1 = lease_renewals" "$(n slot_renew done=1)" "$d_lease_renewals"
eq "get_done result=-2 = GETs not found" "$(n get_done result=-2)" "$absent"
eq "put_issue events = puts" "$(n put_issue)" "$d_puts"
eq "put_done events = puts" "$(n put_done)" "$d_puts"
eq "put_done result=0 = PUTs acknowledged" "$(n put_done result=0)" "$acked"
eq "PUTs acknowledged" "$acked" $((N + 4 * M + V))
eq "delete_done events = deletes" "$(n delete_done)" "$d_deletes"
eq "delete_done result=0 = DELETEs done" "$(n delete_done result=0)" "$dok"
eq "delete_done result=-2 = DELETEs not found" "$(n delete_done result=-2)" "$dabs"
[ "$d_cache_hits" -ge $N ] && ok "the second pass hit ($d_cache_hits hits)" ||
	bad "only $d_cache_hits cache hits: the workload did not reach the cache"
eq "events of another store" "$(grep 'scalio_host_' /tmp/tr.txt | grep -vc " store=$S ")" 0
eq "completions with latency_ns=0" "$(grep -E 'scalio_host_(get|put|delete)_done:' /tmp/tr.txt | grep -c ' latency_ns=0$')" 0
hashes() { grep "scalio_host_$1: " /tmp/tr.txt | sed -n 's/.* hash=\([0-9a-f]*\) .*/\1/p' | sort -u; }
hashes put_issue > /tmp/tr.put
eq "distinct hashes PUT" "$(wc -l < /tmp/tr.put)" $((N + 4 * M + V))
eq "GET hashes of no PUT (the 6 absent keys)" \
	"$(hashes get_done | comm -23 - /tmp/tr.put | wc -l)" 6
# value extents: a GET's reads are its counters', a SCAN's one per big key
eq "val_read op=get = get_val_reads" "$(n val_read op=get)" "$d_get_val_reads"
eq "val_read op=get result=-116 = get_val_stale" "$(n val_read op=get result=-116)" "$d_get_val_stale"
[ "$d_get_val_reads" -ge $((2 * V)) ] && ok "GETs read $d_get_val_reads value extents" ||
	bad "get_val_reads +$d_get_val_reads: the GETs of $V big values twice did not read their extents"
eq "val_read op=scan" "$(n val_read op=scan)" "$V"
eq "val_read op=scan result=0" "$(n val_read op=scan result=0)" "$V"
grep "scalio_host_val_read: .* op=scan " /tmp/tr.txt | sed -n 's/.* hash=\([0-9a-f]*\) .*/\1/p' |
	sort -u > /tmp/tr.vscan
grep "scalio_host_val_read: .* op=get " /tmp/tr.txt | sed -n 's/.* hash=\([0-9a-f]*\) .*/\1/p' |
	sort -u > /tmp/tr.vget
eq "distinct hashes of SCAN's extent reads" "$(wc -l < /tmp/tr.vscan)" "$V"
eq "... and of GETs' (the same keys)" "$(comm -3 /tmp/tr.vscan /tmp/tr.vget | wc -l)" 0
eq "extent read hashes of no PUT" "$(comm -23 /tmp/tr.vscan /tmp/tr.put | wc -l)" 0
eq "pairs in the export (import --check)" \
	"$(scalioctl import --check /tmp/tr.exp 2>&1 | sed -n 's/.*intact: \([0-9]*\) pairs.*/\1/p')" \
	$((N + 4 * M + V - dok))
eq "val_read events with len<=128 or pos=0" \
	"$(grep 'scalio_host_val_read: ' /tmp/tr.txt | grep -cE ' pos=0 | len=([0-9]|[0-9][0-9]|1[01][0-9]|12[0-8]) ')" 0

# the target's events
echo "# target: $(wc -l < /tmp/tt.txt) events; batches +$td_batches, batched_ops +$td_ops"
for e in batch_formed batch_committed admit; do
	grep "scalio_tgt_$e:" /tmp/tt.txt | head -n 1 | sed 's/^ *//; s/^/# sample: /'
done
tn() { grep -c "scalio_tgt_$1: .*${2:-}" /tmp/tt.txt; }
committed=$(grep 'scalio_tgt_batch_committed: ' /tmp/tt.txt | grep ' ret=0 ')
eq "target batch_committed ret=0 = batches" "$(echo "$committed" | grep -c .)" "$td_batches"
eq "target batch_committed ops summed = batched_ops" \
	"$(echo "$committed" | sed -n 's/.* ops=\([0-9]*\) .*/\1/p' | awk '{ s += $1 } END { print s + 0 }')" "$td_ops"
eq "target batch_formed = batch_committed" "$(tn batch_formed)" "$(tn batch_committed)"
eq "target batch_committed with latency_ns=0" "$(echo "$committed" | grep -c ' latency_ns=0$')" 0
[ "$td_batches" -gt 0 ] && ok "the workload committed $td_batches batches" || bad "no batch committed"
nqn=$(cat /etc/nvme/hostnqn 2> /dev/null)
[ "$(tn admit " host=$nqn proof=[0-9-]* ret=0")" -ge 1 ] && ok "target admit event for $nqn" ||
	bad "no admit event with ret=0 for host1 ($nqn)"
[ $nfail = 0 ] || { echo "TRACE TEST FAILED: $nfail check(s)"; exit 1; }
echo "TRACE TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 1 --share "$share" \
	-- 'sh /share/trace.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: the host's and the target's trace events agree with their counters"
exit 0
