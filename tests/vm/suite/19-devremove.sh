#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 19-devremove: the target's RDMA device goes away and comes back (`rdma
# link delete rxe0` / `rdma link add`, as a NIC reset or hot-unplug would),
# with the host detached.
#   A. while the store is enabled and idle: the listener's DEVICE_REMOVAL
#      lets the CM destroy it and schedules a repair, which listens again
#      once the device is back; the host attaches and reads every key
#      (the test relinks nvmet's port first: stock nvmet does not listen
#      again by itself).
#   B. in the middle of an enable, between binding the listener's address
#      and rdma_listen() (test hook debug_listen_delay_ms holds it there):
#      the cm_id is not yet published, so the removal must not let the CM
#      destroy it under the enable (a use-after-free of the cm_id before
#      the fix, which KASAN reports on the debug lane; on the release
#      lane it may go unnoticed).  The device is removed once the target
#      logged that the enable is held there (10 s times the lane's
#      timeout factor).  The enable must then fail cleanly ("cannot listen");
#      after the device is back the store is enabled and every key reads
#      back.
# Kernel logs must be clean.
# Usage: 19-devremove.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
suite_share devremove

cat > "$share/devremove.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
CFS=/sys/kernel/config/scalio/stores/$S
HOOK=/sys/module/scalio_target/parameters/debug_listen_delay_ms
N=10
T0=$(date +%s)
fail() { echo "FAIL: $*"; T "dmesg | tail -n 30"; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
T() { vmctl exec-target "$*"; }
listening() { T "dmesg | grep -c 'store $S listening on'"; }
listens() {
	target_up || never "the target is down"
	[ "$(listening)" -gt "$1" ]
}
# wait_listening N0: until the store has logged more listens than N0.
wait_listening() {
	WAIT_INTERVAL=1 wait_until "the store to listen again" listens "$1" ||
		fail "the store does not listen again"
}
# nvmet_relisten: stock nvmet-rdma lets the CM destroy its port's listener
# on DEVICE_REMOVAL and never listens again (its repair work runs only on
# ADDR_CHANGE); unlinking and relinking the port's subsystems makes it
# listen anew, as an administrator would after a NIC reset.
nvmet_relisten() {
	T "P=/sys/kernel/config/nvmet/ports/1/subsystems
	   for l in \$P/*; do n=\${l##*/}; rm \$l &&
	   ln -s /sys/kernel/config/nvmet/subsystems/\$n \$P/\$n || exit 1; done" ||
		fail "relink the nvmet port's subsystems"
}
# attach: the new device's address may take a moment to be usable: retry.
attach() {
	nvmet_relisten
	for try in 1 2 3 4 5 6; do
		scalioctl attach "$S" --addr "$A" > /dev/null && return 0
		sleep 3
	done
	fail "attach after the device came back"
}
verify() {
	i=1
	while [ $i -le $N ]; do
		got=$(scalioctl get "$S" "k$i") || fail "$1: get k$i"
		[ "$got" = "v$i" ] || fail "$1: k$i = '$got', expected 'v$i'"
		i=$((i + 1))
	done
}
link_delete() { T "rdma link delete rxe0" || fail "rdma link delete"; }
link_add() { T "rdma link add rxe0 type rxe netdev eth0" || fail "rdma link add"; }

i=1
while [ $i -le $N ]; do
	scalioctl put "$S" "k$i" "v$i" || fail "put k$i"
	i=$((i + 1))
done
T "test -w $HOOK" || fail "no $HOOK: the target module lacks the test hooks"
scalioctl detach "$S" || fail "detach"

step "A. device removed under the enabled, idle store"
n0=$(listening)
link_delete
sleep 2
link_add
wait_listening "$n0"
T "dmesg | grep 'store $S' | tail -n 3"
attach
verify "A"
scalioctl detach "$S" || fail "detach after A"

step "B. device removed between bind and listen of an enable"
T "echo 0 > $CFS/enable" || fail "disable"
held="store $S: test hook: listener bound, held"
h0=$(T "dmesg | grep -c '$held'")
c0=$(T "dmesg | grep -c 'store $S: cannot listen on'")
# Long: only wall time (the removal waits for the enable anyway).
T "echo \$((10000 * SCALIO_TIMEOUT_FACTOR)) > $HOOK" || fail "set the hook"
T "rm -f /tmp/enable.rc; (echo 1 > $CFS/enable; echo \$? > /tmp/enable.rc) > /tmp/enable.out 2>&1 &" ||
	fail "background enable"
# Remove the device only once the enable is inside the window (never: the
# enable returned without reaching it).
held_now() {
	target_up || never "the target is down"
	! T "test -s /tmp/enable.rc" || never "the enable returned"
	[ "$(T "dmesg | grep -c '$held'")" -gt "$h0" ]
}
WAIT_INTERVAL=0.2 wait_until "the enable to reach the test hook" held_now ||
	fail "the enable never reached the test hook"
link_delete
returned() {
	target_up || never "the target is down"
	T "test -s /tmp/enable.rc"
}
WAIT_INTERVAL=1 wait_until "the enable to return" returned ||
	fail "the enable never returned"
T "echo 0 > $HOOK" || fail "clear the hook"
rc=$(T "cat /tmp/enable.rc")
echo "# the enable returned $rc: $(T "cat /tmp/enable.out")"
# The removal came while the enable was held before rdma_listen(): the
# cm_id is in DEVICE_REMOVAL state and rdma_listen() refuses it.
[ "$rc" != 0 ] || fail "B: the enable succeeded: the removal missed the window"
[ "$(T "dmesg | grep -c 'store $S: cannot listen on'")" -gt "$c0" ] ||
	fail "B: no 'cannot listen' from the held enable"
link_add
# The new device's address may take a moment to be usable: a few tries.
for try in 1 2 3 4 5; do
	T "echo 1 > $CFS/enable" && break
	[ $try = 5 ] && fail "enable after the device came back"
	sleep 2
done
T "dmesg | grep 'store $S' | tail -n 4"
attach
verify "B"
scalioctl put "$S" after-b yes || fail "put after B"
[ "$(scalioctl get "$S" after-b)" = yes ] || fail "after-b does not read back"
step "DEVICE REMOVAL TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 1 --share "$share" \
	-- 'sh /share/devremove.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: the store listens again after its RDMA device went away, in an enable too"
exit 0
