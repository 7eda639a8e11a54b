#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 11-crash: no acknowledged PUT is lost when the target crashes.
#
# In host1, tests/selftests/scalio_crash writes a "hot" key space (8
# writers x 8 keys, each key with increasing versions, values 12..2048
# bytes) and logs every PUT it attempts and every one acknowledged to
# host1's /tmp before it goes on (only the target crashes, so tmpfs keeps
# them; as in 12-cleaner, 9p to /share would slow every PUT, most on the
# debug lane; they are copied to /share at the end or on a failure); a
# "cold" key space is written once before.  Two rounds of:
#   writers running -> vmctl kill-target (QEMU SIGKILL: no flush, no
#   shutdown) in the middle of the workload -> vmctl start-target (same SSD
#   images: target-setup recovers the store) -> round 1: detach + attach;
#   round 2: the attached store reconnects by itself (its reconnects
#   counter grows) -> scalio_crash verify.  A job the target's agent ran
#   before round 1's crash must not run again in a later boot (it would
#   repeat a test's side effects): it appends to a file in /ctl, which
#   must hold one line after each round.
# verify reads every key: its value must be byte-identical to one version
# of that key, at least the last acknowledged one and at most the last
# attempted one (a PUT in flight at the crash may or may not survive; an
# acknowledged one must); a version once read must stay (recorded).  Then
# the same checks after a store disable/enable cycle (the host reconnects
# by itself) and after a module
# reload (target-teardown, rmmod/insmod scalio-target, target-setup; an
# insmod with kato_ms out of range must be refused first), a
# last write+verify, and a negative control: a value overwritten behind
# the checker's back must make verify fail.  Finally both modules are
# unloaded (the bed skips its own teardown once a VM was killed) and the
# kernel logs must be clean.
# Usage: 11-crash.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }

suite_share crash

# The guest side, run in host1 with /share = $share (POSIX sh).
cat > "$share/crash.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
X=/scalio/tests/selftests/scalio_crash
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
CFS=/sys/kernel/config/scalio/stores/$S
MARK=/ctl/vm/target/rerun.marker
HOT="-l /tmp/hot -p hot -t 8 -k 8 -V 12 -v 2048"
COLD="-l /tmp/cold -p cold -t 2 -k 64 -V 12 -v 4096"
T0=$(date +%s)
save() { cp -r /tmp/hot /tmp/cold /share/ 2> /dev/null; }
fail() { echo "FAIL: $*"; save; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
acked() { cat /tmp/hot/w*.log 2>/dev/null | grep -c '^K'; }
reattach() {
	scalioctl detach "$S" || fail "detach $S"
	scalioctl attach "$S" --addr "$A" || fail "attach $S"
}
hstat() { scalioctl stats "$S" --host-only | awk -v k="$1" '$1 == k { print $2 }'; }
# wait_reconnect N: the host module re-establishes the connection by itself
# (its reconnects counter passes N); no bound but the bed's hang guard.
reconnected() {
	target_up || never "the target is down"
	[ "$(hstat reconnects)" -gt "$1" ]
}
wait_reconnect() {
	wait_until "an automatic reconnect" reconnected "$1" ||
		fail "no automatic reconnect (reconnects $(hstat reconnects))"
	echo "# reconnected by itself: reconnects $1 -> $(hstat reconnects)"
}
# acked_enough: $want PUTs acknowledged (never once the writers, $wpid, stopped)
acked_enough() {
	kill -0 "$wpid" 2> /dev/null || never "the writers stopped"
	[ "$(acked)" -ge "$want" ]
}
writers_gone() { ! kill -0 "$wpid" 2> /dev/null; }
verify_all() {
	$X verify $HOT || fail "verify of the hot keys $1"
	$X verify $COLD || fail "verify of the cold keys $1"
}
tstats() {
	vmctl exec-target "grep -E '^(keys|log_used_units|log_total_units|batches|cleaner_runs) ' $CFS/stats" |
		tr '\n' ' '
	echo
}

step "cold keys: 2 x 64, written once"
$X write $COLD -n 64 || fail "writing the cold keys"
$X verify $COLD || fail "verify of the cold keys before any crash"

for r in 1 2; do
	before=$(acked)
	step "round $r: writers running ($before PUTs acknowledged so far)"
	$X write $HOT > /share/writer.$r.out 2>&1 &
	wpid=$!
	# Crash once this round has some hundred acknowledged PUTs behind it
	# (a different number each round), so batches are in flight.
	want=$((before + 150 + r * 100))
	wait_until "$want acknowledged PUTs" acked_enough ||
		{ cat /share/writer.$r.out; fail "the writers stopped before the crash"; }
	tstats
	# A job the target ran before the crash must not run again after it
	# (the new boot's agent skips claimed jobs): count its runs in /ctl.
	[ $r = 1 ] && { vmctl exec-target "echo ran >> $MARK" || fail "marker job"; }
	step "round $r: kill-target with $(acked) PUTs acknowledged"
	vmctl kill-target || fail "kill-target"
	# The writers must notice (each stops at its first failed PUT).
	wait_until "the writers to notice the crash" writers_gone
	wait $wpid
	wrc=$?
	cat /share/writer.$r.out
	[ $wrc = 1 ] || fail "writers exited $wrc after the crash, expected 1 (a PUT failed)"
	rc0=$(hstat reconnects)
	step "round $r: start-target (recovery)"
	vmctl start-target || fail "start-target"
	vmctl exec-target "dmesg | grep -i 'scalio' | tail -n 6"
	if [ $r = 1 ]; then
		reattach	# explicitly
	else
		wait_reconnect "$rc0"	# the store stayed attached
	fi
	tstats
	[ "$(grep -c ran $MARK)" = 1 ] ||
		fail "a job run before the crash ran $(grep -c ran $MARK) times"
	step "round $r: verify"
	verify_all "after crash $r"
done

step "disable/enable cycle, the host staying attached"
rc0=$(hstat reconnects)
vmctl exec-target "echo 0 > $CFS/enable && cat $CFS/enable && echo 1 > $CFS/enable && cat $CFS/enable" ||
	fail "disable/enable of $S"
wait_reconnect "$rc0"
verify_all "after disable/enable"

step "module reload: target-teardown, rmmod, insmod, target-setup"
scalioctl detach "$S" || fail "detach"
vmctl exec-target "set -e
scalioctl target-teardown --store $S
rmmod scalio_target
# An out-of-range default is refused at load time.
for p in kato_ms=2999 kato_ms=3600001; do
	if insmod \$SCALIO_KO_DIR/scalio-target.ko \$p 2> /dev/null; then
		echo \"insmod with \$p succeeded\"; exit 1
	fi
done
insmod \$SCALIO_KO_DIR/scalio-target.ko \$SCALIO_TARGET_PARAMS
scalioctl target-setup --store $S --addr $A \$SCALIO_SSDS
dmesg | grep -i scalio | tail -n 4" || fail "module reload in the target"
scalioctl attach "$S" --addr "$A" || fail "attach after the module reload"
tstats
verify_all "after the module reload"

step "writes after all that"
$X write $HOT -n 20 || fail "writing after the reload"
verify_all "after the last writes"

step "negative control: a value changed behind the checker's back"
scalioctl put "$S" hot.3.5 "not a logged version" || fail "put"
if $X verify $HOT -N; then
	fail "verify accepted a value that was never logged"
fi
echo "# verify failed as it must"

step "unload: detach, rmmod scalio_host; target-teardown, rmmod scalio_target"
scalioctl detach "$S" || fail "final detach"
rmmod scalio_host || fail "rmmod scalio_host"
vmctl exec-target "scalioctl target-teardown --store $S && rmmod scalio_target" ||
	fail "final teardown in the target"
save
step "CRASH TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --share "$share" -- 'sh /share/crash.sh'
rc=$?
[ -n "${SCALIO_VM_LOGROOT:-}" ] && echo "# writer logs in $share"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: acknowledged PUTs survived 2 crashes, a disable/enable and a module reload"
exit 0
