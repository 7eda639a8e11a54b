#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 35-departed: a writer that dies between its durable acknowledgement and
# its invalidation does not leave its old value cached for ever
# (Documentation/protocol.rst, "A writer that leaves owing
# invalidations").  The target retires the cache blocks of writes whose
# invalidation a departed connection had not confirmed (its settle mark),
# so every reader serves the new value once the target has dropped the
# writer's connection: at most the store's keep-alive timeout after the
# writer's last request.
#
# Two hosts, one SSD, --kato-ms 6000.  host1 PUTs dw.k=old; host1 and
# host2 read it three times (cache hits: both hold it cached; a miss
# fills in the background, so the first round may find it not yet there).  host2, with the
# host module parameter debug_write_delay_ms=600000, PUTs dw.k=new in the
# background: the target commits it and answers, then host2 sleeps before
# invalidating.  Once the target's ssd_writes show the commit, host1 still
# reads old-value from its cache: the stale copy the test is about.  Then
# `vmctl kill-host 2`.  The target's reaper drops the silent connection
# (its "reaping client" line) and frees it (the debug line "client N of
# store S freed", dynamic debug); from then on host1 must read new-value
# at once, the target's blocks_retired must have grown and host1's
# retired_evictions too.  Without the retirement (the control
# 35-departed.no-retire) host1 still reads old-value there.  The time
# from the kill to the connection's end is reported next to the
# documented bound (KATO + min(KATO / 3, 5 s)).
#
# Then, in host1: PUT and GET keys of its own and detach; a clean detach
# sends its last settle mark first, so blocks_retired must not grow.
#
# Usage: 35-departed.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
kato_ms=6000
t_start=$(date +%s)

suite_share departed

# The guest side, run in host1 (POSIX sh).
cat > "$share/departed.sh" << EOF
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=\${SCALIO_STORE:-kv0}
KATO_MS=$kato_ms
DDC=/sys/kernel/debug/dynamic_debug/control
T0=\$(date +%s)
fail() { echo "FAIL: \$*"; exit 1; }
step() { echo "=== [\$(( \$(date +%s) - T0 ))s] \$*"; }
now_ms() { echo \$((\$(date +%s%N) / 1000000)); }
# stat NAME [STATS]: a counter of store S (host or target), from host1 or
# from the output STATS of 'scalioctl stats'
stat() {
	if [ \$# = 2 ]; then
		echo "\$2"
	else
		scalioctl stats \$S
	fi | awk -v k="\$1" '\$1 == k { print \$2; exit }'
}
h2() { vmctl exec-host 2 "\$1"; }
tlog() { vmctl exec-target "dmesg | grep -c '\$1'"; }

vmctl exec-target "test -w \$DDC" || fail "the target has no dynamic debug control"
vmctl exec-target "echo 'module scalio_target format \"of store\" +p' > \$DDC" ||
	fail "enabling the target's 'client N of store S freed' line"

step "dw.k cached by both hosts"
scalioctl put \$S dw.k old-value || fail "put dw.k"
for j in 1 2 3; do
	v=\$(h2 "scalioctl get \$S dw.k") || fail "host2: get dw.k"
	[ "\$v" = old-value ] || fail "host2: dw.k = '\$v'"
	v=\$(scalioctl get \$S dw.k) || fail "host1: get dw.k"
	[ "\$v" = old-value ] || fail "host1: dw.k = '\$v'"
done
[ "\$(stat cache_hits)" -ge 1 ] || fail "host1 does not hold dw.k in its cache"
[ "\$(stat cache_hits "\$(h2 "scalioctl stats \$S --host-only")")" -ge 1 ] ||
	fail "host2 does not hold dw.k in its cache"

step "host2: PUT dw.k=new-value, stalled between its commit and its invalidation"
st=\$(scalioctl stats \$S)
w0=\$(stat ssd_writes "\$st") r0=\$(stat blocks_retired "\$st")
e0=\$(stat retired_evictions "\$st")
echo "# before: ssd_writes \$w0, blocks_retired \$r0, host1 retired_evictions \$e0"
h2 "echo 600000 > /sys/module/scalio_host/parameters/debug_write_delay_ms &&
	{ setsid scalioctl put \$S dw.k new-value > /tmp/put.out 2>&1 < /dev/null & }" ||
	fail "starting host2's PUT"
committed() {
	target_up || never "the target is down"
	[ "\$(stat ssd_writes)" -gt "\$w0" ]
}
wait_until "host2's PUT to be committed" committed || fail "host2's PUT was not committed"
# The write is durable and answered; host2 has not invalidated: host1's
# cached copy is stale now, and is served (what the retirement is for).
v=\$(scalioctl get \$S dw.k) || fail "host1: get dw.k after the commit"
echo "# host1 reads '\$v' with host2's write committed and not invalidated"
[ "\$v" = old-value ] ||
	fail "host1 read '\$v': no stale cached copy, the test proves nothing (did host2's delay not hold?)"

step "kill-host 2 before it invalidates"
reaped0=\$(tlog 'reaping client') freed0=\$(tlog 'of store '\$S' freed')
vmctl kill-host 2 || fail "kill-host 2"
t_kill=\$(now_ms)
freed() {
	target_up || never "the target is down"
	[ "\$(tlog 'reaping client')" -gt "\$reaped0" ] &&
	[ "\$(tlog 'of store '\$S' freed')" -gt "\$freed0" ]
}
wait_until "the target to drop host2's connection" freed ||
	fail "the target never dropped the dead host's connection"
t_freed=\$(now_ms)
vmctl exec-target "dmesg | grep -E 'reaping client|left owing|of store '\$S' freed' | tail -n 4"
bound=\$((KATO_MS + (KATO_MS / 3 < 5000 ? KATO_MS / 3 : 5000)))
echo "# host2's connection ended \$((t_freed - t_kill)) ms after the kill (documented bound: KATO + min(KATO / 3, 5 s) = \$bound ms, plus the time to notice)"

step "host1 serves the new value at once"
v=\$(scalioctl get \$S dw.k) || fail "host1: get dw.k after the writer left"
echo "# host1 reads '\$v'"
[ "\$v" = new-value ] ||
	fail "host1 still serves '\$v' from its cache after the target dropped the writer: the owed invalidation was never paid"
st=\$(scalioctl stats \$S)
r1=\$(stat blocks_retired "\$st") e1=\$(stat retired_evictions "\$st")
echo "# blocks_retired \$r0 -> \$r1, host1 retired_evictions \$e0 -> \$e1"
[ "\$r1" -gt "\$r0" ] || fail "blocks_retired did not grow"
[ "\$e1" -gt "\$e0" ] || fail "host1 did not evict the retired slot"
vmctl exec-target "dmesg | grep -q 'left owing the invalidation'" ||
	fail "the target did not say it retired the departed writer's blocks"
for j in 1 2; do
	v=\$(scalioctl get \$S dw.k) || fail "host1: get dw.k"
	[ "\$v" = new-value ] || fail "host1: dw.k = '\$v'"
done

step "host1: writes, then a clean detach retires nothing"
i=0
while [ \$i -lt 20 ]; do
	scalioctl put \$S own.\$i "v\$i" || fail "put own.\$i"
	[ "\$(scalioctl get \$S own.\$i)" = "v\$i" ] || fail "get own.\$i"
	i=\$((i + 1))
done
r2=\$(stat blocks_retired)
scalioctl detach \$S || fail "detach"
detached() {
	target_up || never "the target is down"
	[ "\$(tlog 'of store '\$S' freed')" -gt "\$((freed0 + 1))" ]
}
wait_until "the target to free host1's connection" detached ||
	fail "host1's connection was never freed"
r3=\$(vmctl exec-target "cat /sys/kernel/config/scalio/stores/\$S/statistics/blocks_retired")
echo "# blocks_retired \$r2 before host1's detach, \$r3 after"
[ "\$r3" = "\$r2" ] ||
	fail "host1's clean detach retired blocks (\$r2 -> \$r3): its last settle mark did not arrive"

step "unload (the bed does not, a VM was killed)"
rmmod scalio_host || fail "rmmod scalio_host"
vmctl exec-target "echo 'module scalio_target format \"of store\" -p' > \$DDC"
vmctl exec-target "scalioctl target-teardown --store \$S && rmmod scalio_target" ||
	fail "teardown in the target"
step "DEPARTED TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --hosts 2 --share "$share" --timeout 600 \
	--ssds 1 --target-setup-args "--kato-ms $kato_ms" \
	-- 'sh /share/departed.sh'
rc=$?
echo "# 35-departed: $(($(date +%s) - t_start)) s wall"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: a dead writer's owed invalidation is paid by the target's retirement"
exit 0
