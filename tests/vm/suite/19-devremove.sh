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
#   C. the store's clients move to a second device (issue 37: its address
#      failed over to another adapter): rxe1 on a dummy netdev (10.78.0.1)
#      in the target, the store listening on 0.0.0.0.  rxe reports
#      IB_ATOMIC_HCA, not IB_ATOMIC_GLOB, so the store may be served over
#      one device at a time.  host1 attaches over rxe0 and detaches; once
#      the target freed its connections, a client over rxe1
#      (tests/hostile/scalio_hostile in the target, through rxe loopback,
#      as host1: ADMIT and HELLO) must be admitted, not refused with
#      EOPNOTSUPP for a device no connection uses any more.  The check
#      itself stays: while a client holds rxe1, host1's attach over rxe0
#      is refused; once that client is gone, host1 attaches again and
#      every key reads back.  Control: 19-devremove.rdev-kept.
#   D. rxe0 removed under the attached host1 (the store still on
#      0.0.0.0): the remove callback drops its connections and frees the
#      device state itself (their last put leaves it to the waiting
#      remover), the listener's per-device child goes with the device and
#      comes back with it; host1 detaches and attaches again, every key
#      reads back.
# Kernel logs must be clean.
# Usage: 19-devremove.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
make -C "$top/tests/hostile" > /dev/null ||
	{ echo "FAIL: make -C tests/hostile failed (libibverbs-dev, librdmacm-dev?)"; exit 1; }
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

step "C. the store's clients move to a second device (issue 37)"
H=/scalio/tests/hostile/scalio_hostile
B=10.78.0.1
DDC=/sys/kernel/debug/dynamic_debug/control
T "test -w $DDC" || fail "C: no $DDC (dynamic debug) in the target"
T "modprobe dummy && ip link add dummy0 type dummy &&
   ip addr add $B/24 dev dummy0 && ip link set dummy0 up &&
   rdma link add rxe1 type rxe netdev dummy0" ||
	fail "C: rxe1 on a dummy netdev"
T "ibv_devinfo -v -d rxe0 | grep atomic_cap; ibv_devinfo -v -d rxe1 | grep atomic_cap"
# Settled: every connection the target logged as connected since now has
# been freed (and with it the rdev put), from its debug lines.
T "echo 'module scalio_target format \"connected to store\" +p' > $DDC &&
   echo 'module scalio_target format \"freed\" +p' > $DDC" ||
	fail "C: enabling the target's connection debug lines"
settled() {
	target_up || never "the target is down"
	c=$(T "dmesg | grep -c 'connected to store $S '")
	f=$(T "dmesg | grep -c 'of store $S freed'")
	[ "$f" -ge "$c" ]
}
wait_settled() {
	WAIT_INTERVAL=1 wait_until "the target to free every connection" settled ||
		fail "C: the target's connections are not freed"
}
refusals() { T "dmesg | grep -c 'store $S: refusing a client on $1:'"; }
scalioctl detach "$S" || fail "C: detach"
T "echo 0 > $CFS/enable && echo 0.0.0.0 > $CFS/addr_traddr &&
   echo 600000 > $CFS/attr_kato_ms && echo 1 > $CFS/enable" ||
	fail "C: enable on 0.0.0.0 (keep-alive 600 s: the held client is idle)"
scalioctl attach "$S" --addr "$A" > /dev/null || fail "C: attach over rxe0"
verify "C, rxe0"
scalioctl detach "$S" || fail "C: detach from rxe0"
wait_settled
# The local client admits as host1 (the target's allowed_hosts lists it).
T "cp /etc/nvme/hostnqn /tmp/hostnqn.target &&
   echo '$(cat /etc/nvme/hostnqn)' > /etc/nvme/hostnqn &&
   mkdir -p /etc/scalio && cp /etc/scalio/hostkey /etc/scalio/hostkey.target 2> /dev/null;
   cp /ctl/vm/host1/scalio.key /etc/scalio/hostkey" ||
	fail "C: host1's identity for the local client"
r1=$(refusals rxe1)
out=$(T "$H $B 4800 $S cycles 2 2>&1")
echo "$out" | sed 's/^/   | /'
if ! echo "$out" | grep -q 'cycles: 2 of 2 connects succeeded'; then
	T "dmesg | grep 'store $S: refusing' | tail -n 3"
	[ "$(refusals rxe1)" -gt "$r1" ] &&
		fail "C: a client over rxe1 refused after the last client over rxe0 left (the store still counts rxe0)"
	fail "C: a client over rxe1 failed after the last client over rxe0 left"
fi
wait_settled
# A client held on rxe1 (admitted, idle): host1 over rxe0 is refused.
T "touch /tmp/c.pause; rm -f /tmp/c.stop
   $H $B 4800 $S flood 1 /tmp/c.stop /tmp/c.pause > /tmp/flood.out 2>&1 &" ||
	fail "C: start the held client"
flood_up() {
	target_up || never "the target is down"
	! T "grep -q 'still up' /tmp/flood.out" || never "the held client exited"
	T "grep -q 'connections admitted' /tmp/flood.out"
}
WAIT_INTERVAL=1 wait_until "the held client over rxe1" flood_up ||
	fail "C: the held client did not connect"
T "grep -q 'flood: 1 connections admitted' /tmp/flood.out" || {
	T "cat /tmp/flood.out"; fail "C: the held client was not admitted"; }
r0=$(refusals rxe0)
if scalioctl attach "$S" --addr "$A"; then
	fail "C: host1 attached over rxe0 while a client holds rxe1 (no IB_ATOMIC_GLOB)"
fi
[ "$(refusals rxe0)" -gt "$r0" ] ||
	fail "C: host1's attach over rxe0 failed, but not refused for rxe1"
T "touch /tmp/c.stop"
flood_done() {
	target_up || never "the target is down"
	T "grep -q 'still up' /tmp/flood.out"
}
WAIT_INTERVAL=1 wait_until "the held client to exit" flood_done ||
	fail "C: the held client does not exit"
T "cat /tmp/flood.out" | sed 's/^/   | /'
T "grep -q '1 of 1 connections still up' /tmp/flood.out" ||
	fail "C: the held client was dropped before host1's attach was judged"
T "mv /tmp/hostnqn.target /etc/nvme/hostnqn && rm -f /etc/scalio/hostkey &&
   { ! test -e /etc/scalio/hostkey.target || mv /etc/scalio/hostkey.target /etc/scalio/hostkey; }" ||
	fail "C: restore the target's identity"
wait_settled
scalioctl attach "$S" --addr "$A" > /dev/null ||
	fail "C: host1's attach over rxe0 after the client over rxe1 left"
verify "C, rxe0 again"
T "dmesg | grep 'store $S' | grep -v 'freed\|connected to' | tail -n 4"

step "D. rxe0 removed under the attached host1"
d0=$(T "dmesg | grep -c 'store $S: rxe0 removed, dropping its clients'")
link_delete
[ "$(T "dmesg | grep -c 'store $S: rxe0 removed, dropping its clients'")" -gt "$d0" ] ||
	fail "D: the target did not drop host1's connections on rxe0"
sleep 2
link_add
scalioctl detach "$S" || fail "D: detach while rxe0 was away"
attach
verify "D"
T "dmesg | grep 'store $S' | grep -v 'freed\|connected to' | tail -n 3"
step "DEVICE REMOVAL TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 1 --share "$share" \
	-- 'sh /share/devremove.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: the store listens again after its RDMA device went away, in an enable too; its clients move to a second device once the first has none"
exit 0
