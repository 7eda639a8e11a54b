#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 12-cleaner: the log cleaner keeps a small store writable forever.
#
# One 24 MiB SSD (a log of about 6,100 4 KiB units; the target's minimum
# is 4,096 + checkpoints).  In host1, tests/selftests/scalio_crash first
# writes 200 "cold" keys once (values 12..4096 bytes: the cleaner must
# relocate them every time the log head passes them), then overwrites 32
# "hot" keys (8 writers x 4 keys, 4096-byte values: two log units per PUT,
# the most one PUT can write) in rounds of 4,000 PUTs until the target has
# written at least 10x its log size (target_ssd_write_bytes >= 10 x
# target_log_total_units x 4 KiB; about 27,000 PUTs; 3x on the debug
# lane).  Every PUT must succeed (a writer stops
# at its first error, e.g. -ENOSPC: the log filled up), after every round
# the hot keys read back exactly their last acknowledged version and the
# log is not full, and at the end every cold key reads back its value and
# target_cleaner_runs and target_cleaner_moved are > 0.  Then a crash on
# the wrapped log: kill-target in the middle of more writes, start-target
# (recovery from a checkpoint the cleaner wrote), reattach, verify both key
# spaces and write another round through the cleaner.  Kernel logs must be
# clean.
# The PUT logs live in the host VM's /tmp (tmpfs; 9p to /share would
# halve the PUT rate): the host is never killed, and they are copied to
# /share for a post-mortem.
# Usage: 12-cleaner.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }

suite_share cleaner
# The debug lane wraps the log 3 times, not 10: its checkers need every
# path (cleaning, relocation, wrap, recovery), not the volume.
factor=10
vm_is_debug "$kver" && factor=3

echo "FACTOR=$factor" > "$share/cleaner.sh"
cat >> "$share/cleaner.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
X=/scalio/tests/selftests/scalio_crash
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
HOT="-l /tmp/hot -p hot -t 8 -k 4 -V 4096 -v 4096"
COLD="-l /tmp/cold -p cold -t 2 -k 100 -V 12 -v 4096"
T0=$(date +%s)
save() { cp -r /tmp/hot /tmp/cold /share/ 2> /dev/null; }
fail() { echo "FAIL: $*"; save; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
# stat NAME: one target counter from scalioctl stats --json
stat() {
	scalioctl stats --json "$S" | sed -n "s/.*\"target_$1\": \([0-9]*\).*/\1/p"
}
show() {
	echo "# ssd_write_bytes $(stat ssd_write_bytes), log $(stat log_used_units)/$(stat log_total_units) units used, cleaner_runs $(stat cleaner_runs), cleaner_moved $(stat cleaner_moved), keys $(stat keys)"
}
# round N: N PUTs per writer, then check the hot keys and the log.
round() {
	$X write $HOT -F -n "$1" > /tmp/write.out 2>&1 ||
		{ cat /tmp/write.out; fail "a PUT failed (see the writer's message above)"; }
	grep 'acknowledged in' /tmp/write.out
	$X verify $HOT -F > /tmp/verify.out || { cat /tmp/verify.out; fail "hot keys"; }
	used=$(stat log_used_units)
	[ -n "$used" ] && [ "$used" -lt "$total" ] ||
		fail "log full: $used of $total units used"
}

total=$(stat log_total_units)
[ -n "$total" ] && [ "$total" -gt 0 ] || fail "no target_log_total_units in stats"
goal=$((FACTOR * total * 4096))
step "log of $total units; goal: $goal bytes written (${FACTOR}x the log)"

# The cleaner's passes, as the target traces them (scalio_tgt_cleaner_move):
# summed, they must be what its counters say.
T=/sys/kernel/tracing
vmctl exec-target "mountpoint -q $T || mount -t tracefs nodev $T; echo 0 > $T/tracing_on;
	echo > $T/trace; echo 8192 > $T/buffer_size_kb;
	echo 1 > $T/events/scalio_target/scalio_tgt_cleaner_move/enable;
	echo 1 > $T/tracing_on" || fail "enabling the target's cleaner_move event"

step "cold keys: 200, written once"
$X write $COLD -F -n 100 || fail "writing the cold keys"
$X verify $COLD -F || fail "cold keys"

# A round writes 8 x 500 values of 4 KiB at least: a bound on rounds, not
# on time (the lanes differ 5-fold in speed).
max=$((goal / (8 * 500 * 4096) + 3))
i=0
while [ "$(stat ssd_write_bytes)" -lt $goal ]; do
	i=$((i + 1))
	[ $i -le $max ] ||
		fail "not $goal bytes written in $max rounds: ssd_write_bytes $(stat ssd_write_bytes)"
	round 500
	step "round $i done"
	show
done
$X verify $COLD -F || fail "cold keys after ${FACTOR}x the log"
runs=$(stat cleaner_runs) moved=$(stat cleaner_moved)
[ "${runs:-0}" -gt 0 ] || fail "cleaner_runs is ${runs:-missing} after ${FACTOR}x the log"
[ "${moved:-0}" -gt 0 ] || fail "cleaner_moved is ${moved:-missing}: the cold keys were never relocated"
step "${FACTOR}x the log written: cleaner ran $runs times, moved $moved segments"
# sum FIELD: FIELD= summed over the target's cleaner_move events
sum() {
	vmctl exec-target "grep 'scalio_tgt_cleaner_move: ' $T/trace" |
		sed -n "s/.* $1=\([0-9]*\) .*/\1/p" | awk '{ s += $1 } END { print s + 0 }'
}
ev=$(vmctl exec-target "grep -c 'scalio_tgt_cleaner_move: ' $T/trace")
tmoved=$(sum moved) tvals=$(sum vals)
echo "# $ev cleaner_move events: moved=$tmoved vals=$tvals; counters cleaner_moved $moved, vals_moved $(stat vals_moved)"
[ "$tmoved" = "$moved" ] && [ "$tvals" = "$(stat vals_moved)" ] ||
	fail "the cleaner_move events (moved $tmoved, vals $tvals) disagree with cleaner_moved $moved and vals_moved $(stat vals_moved)"
# Every key exists now and every value has a fixed size: the live bytes the
# commit path counted as it went must be what recovery counts afresh.
# Values longer than attr_value_inline_max (128) live in extents.
live0=$(( $(stat live_bytes) + $(stat live_val_bytes) )) used=$(stat log_used_units)
[ "${live0:-0}" -gt $((32 * 4096)) ] && [ "$live0" -le $((used * 4096)) ] ||
	fail "live_bytes + live_val_bytes ${live0:-missing}: not above the hot values' 128 KiB and within the $used units used"
vmoved=$(stat vals_moved)
[ "${vmoved:-0}" -gt 0 ] ||
	fail "vals_moved is ${vmoved:-missing}: the cold values stored apart were never relocated"
nb=$(scalioctl stats --json "$S" | sed -n 's/.*"nr_blocks": \([0-9]*\).*/\1/p')
nbk=$(scalioctl stats --json "$S" | sed -n 's/.*"nr_buckets": \([0-9]*\).*/\1/p')
sl=$(scalioctl stats --json "$S" | sed -n 's/.*"slots_per_block": \([0-9]*\).*/\1/p')
[ "${nbk:-0}" -gt "${nb:-0}" ] || fail "nr_buckets ${nbk:-missing}: not above the $nb blocks"
# Per block its slots; per bucket two seg words, a generation, a batch
# slot (2) and a checkpoint entry (16); the segment cache's pool, bounded
# by its budget, at most an entry (48) and two hash heads (8) a bucket.
ib=$(stat index_bytes) imin=$((nb * (64 + 128 * sl) + nbk * (3 * 8 + 2 + 16)))
[ "${ib:-0}" -ge "$imin" ] && [ "$ib" -lt $((imin + nbk * 56 + imin / 8 + 65536)) ] ||
	fail "index_bytes ${ib:-missing} for $nb blocks of $sl slots and $nbk buckets (at least $imin)"
echo "# live bytes $live0 ($((live0 * 100 / (total * 4096)))% of the log; $vmoved values relocated), index_bytes $ib: $((ib / $(stat keys))) B of DRAM per key"

step "crash on the wrapped log"
$X write $HOT > /tmp/writer.out 2>&1 &
wpid=$!
sleep 8
kill -0 $wpid 2> /dev/null || { cat /tmp/writer.out; fail "writers stopped before the crash"; }
vmctl kill-target || fail "kill-target"
writers_gone() { ! kill -0 "$wpid" 2> /dev/null; }
wait_until "the writers to notice the crash" writers_gone
wait $wpid
wrc=$?
cat /tmp/writer.out
[ $wrc = 1 ] || fail "writers exited $wrc after the crash, expected 1 (a PUT failed)"
vmctl start-target || fail "start-target"
vmctl exec-target "dmesg | grep 'scalio-target: recovery' | tail -n 2"
scalioctl detach "$S" || fail "detach"
scalioctl attach "$S" --addr "$A" || fail "attach"
$X verify $HOT || fail "hot keys after the crash"
$X verify $COLD -F || fail "cold keys after the crash"
show
live1=$(( $(stat live_bytes) + $(stat live_val_bytes) ))
[ "$live1" = "$live0" ] ||
	fail "live bytes $live1 recounted by recovery, $live0 counted by the commit path"

step "writes after recovery until the cleaner has run twice more"
r0=$(stat cleaner_runs)
i=0
while [ "$(stat cleaner_runs)" -lt $((r0 + 2)) ]; do
	# Each round writes more than half the log: two runs need a few.
	i=$((i + 1))
	[ $i -le 8 ] ||
		fail "the cleaner did not run twice in 8 rounds after recovery"
	round 250
	show
done
$X verify $COLD -F || fail "cold keys at the end"

step "negative control: a cold value changed behind the checker's back"
scalioctl put "$S" cold.1.7 "not a logged version" || fail "put"
if $X verify $COLD -N > /tmp/verify.out; then
	cat /tmp/verify.out
	fail "verify accepted a value that was never logged"
fi
grep "cold.1.7" /tmp/verify.out
save
step "CLEANER TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 1 --ssd-size 24M --share "$share" \
	--timeout 1800 -- 'sh /share/cleaner.sh'
rc=$?
[ -n "${SCALIO_VM_LOGROOT:-}" ] && echo "# PUT logs in $share"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: ${factor}x the log overwritten, the cleaner kept the store writable and every value intact"
exit 0
