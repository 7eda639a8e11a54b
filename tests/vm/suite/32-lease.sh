#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 32-lease: a client that dies while it holds slots in state B does not
# block the other clients: once its lease has expired, their GETs reclaim
# the slots and return the right values (DESIGN.md section 3, step 2 and
# "Client crash").
#
# Store geometry --nblocks 1 --slots 4 (every key in one block of four
# slots, all on one SSD) and --lease-ms 10000 (the cap).  In host1: PUT keys
# lease.0..3; in host2, with the host module parameter
# debug_fill_delay_ms=120000 (a filler sleeps that long holding its B lock,
# before it reads the SSD), start GETs of the four keys in the background; host1 waits until host2's counters show
# four successful lock CASes (all four slots in B, none of them published)
# and `vmctl kill-host 2`.  Then host1 GETs the four keys: each must wait
# for the lease (a live B of the key means "back off", never "read around
# it") and then return the value PUT before, and host1's lease_reclaims
# must have grown: with no A or C slot in the block, the first GET's only
# possible victim is one of the dead host's expired B slots.  Each GET
# must reclaim its own key's dead lock by CAS (issue 13: an expired B of
# the key is never skipped as absent), so lease_reclaims must grow by at
# least four: skipping them (debug_skip_reclaim, the old code) counts one
# reclaim, that of the first victim, as later GETs evict the C slots the
# earlier ones published instead.  A PUT +
# GET after the reclaims checks that the slots work normally again.  The
# bed skips its teardown once a VM was killed: the script detaches and
# unloads the modules itself, and the kernel logs must be clean.
#
# First, in the same bed: host2 caches inval.k; host1 PUTs a new value with
# debug_lose_conn_after_write=1 (the connection drops between the target's
# durable acknowledgement and the invalidation), so the PUT fails; once
# host1 has reconnected by itself, host2 must read the new value: the
# reconnect paid the invalidation the loss left owed.
#
# Usage: 32-lease.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
lease_ms=10000
t_start=$(date +%s)

suite_share lease

# The guest side, run in host1 (POSIX sh).
cat > "$share/lease.sh" << EOF
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=\${SCALIO_STORE:-kv0}
LEASE_MS=$lease_ms
N=4
T0=\$(date +%s)
fail() { echo "FAIL: \$*"; exit 1; }
step() { echo "=== [\$(( \$(date +%s) - T0 ))s] \$*"; }
now_ms() { echo \$((\$(date +%s%N) / 1000000)); }
# hstat NAME [STATS]: a host counter of store S, from host1 or from the
# output STATS of 'scalioctl stats --host-only'
hstat() {
	if [ \$# = 2 ]; then
		echo "\$2"
	else
		scalioctl stats \$S --host-only
	fi | awk -v k="\$1" '\$1 == k { print \$2 }'
}

step "a write that loses its connection before its invalidation: the reconnect pays it"
scalioctl put \$S inval.k old-value || fail "put inval.k"
for j in 1 2; do
	v=\$(vmctl exec-host 2 "scalioctl get \$S inval.k") || fail "host2: get inval.k"
	[ "\$v" = old-value ] || fail "host2: inval.k = '\$v', expected old-value"
done
[ "\$(hstat cache_hits "\$(vmctl exec-host 2 "scalioctl stats \$S --host-only")")" -ge 1 ] ||
	fail "host2 does not hold inval.k in its cache (no cache hit)"
rc0=\$(hstat reconnects)
echo 1 > /sys/module/scalio_host/parameters/debug_lose_conn_after_write ||
	fail "setting debug_lose_conn_after_write"
if scalioctl put \$S inval.k new-value; then
	fail "the PUT succeeded although its invalidation was cut off"
fi
reconnected() {
	target_up || never "the target is down"
	[ "\$(hstat reconnects)" -gt "\$rc0" ]
}
wait_until "host1 to reconnect" reconnected || fail "host1 did not reconnect"
echo "# host1 reconnected after \$wait_s s"
# The PUT was committed (the target acknowledged it): once host1 is back,
# no client may still return the old value from its cache.
v=\$(vmctl exec-host 2 "scalioctl get \$S inval.k") || fail "host2: get inval.k after the loss"
[ "\$v" = new-value ] ||
	fail "host2: inval.k = '\$v' after host1 reconnected: its stale cached copy survived the owed invalidation"
v=\$(scalioctl get \$S inval.k) || fail "host1: get inval.k after the reconnect"
[ "\$v" = new-value ] || fail "host1: inval.k = '\$v'"
scalioctl del \$S inval.k || fail "del inval.k"

step "PUT lease.0..\$((N - 1)) from host1"
i=0
while [ \$i -lt \$N ]; do
	scalioctl put \$S lease.\$i "value-of-lease.\$i" || fail "put lease.\$i"
	i=\$((i + 1))
done

st=\$(vmctl exec-host 2 "scalioctl stats \$S --host-only")
h2hits0=\$(hstat cache_hits "\$st")
h2miss0=\$(hstat cache_misses "\$st")
h2cas0=\$(( \$(hstat rdma_cas "\$st") - \$(hstat cas_failures "\$st") ))
step "host2: debug_fill_delay_ms=120000, GETs of the \$N keys in the background"
vmctl exec-host 2 "echo 0 > /sys/module/scalio_host/parameters/optimistic_miss &&
	echo 120000 > /sys/module/scalio_host/parameters/debug_fill_delay_ms &&
	i=0; while [ \\\$i -lt \$N ]; do
		setsid scalioctl get \$S lease.\\\$i > /tmp/get.\\\$i 2>&1 < /dev/null &
		i=\\\$((i + 1))
	done" || fail "starting the GETs in host2"

# All four slots in B: \$N lock CASes succeeded, nothing published.
i=0
while :; do
	st=\$(vmctl exec-host 2 "scalioctl stats \$S --host-only")
	cas=\$(hstat rdma_cas "\$st")
	casf=\$(hstat cas_failures "\$st")
	[ -n "\$cas" ] && [ -n "\$casf" ] && [ \$((cas - casf - h2cas0)) -ge \$N ] && break
	i=\$((i + 1))
	[ \$i -lt 60 ] || fail "host2 never locked \$N slots (rdma_cas \$cas, failures \$casf)"
	sleep 0.3
done
t_locked=\$(now_ms)
echo "\$st" | grep -E 'gets|cache_|rdma_cas|cas_failures|lease'
[ "\$(hstat cache_misses "\$st")" = "\$h2miss0" ] && [ "\$(hstat cache_hits "\$st")" = "\$h2hits0" ] ||
	fail "a host2 GET finished: the slots are not all held in B"

step "kill-host 2 while it holds \$N slots in B"
rec0=\$(hstat lease_reclaims)
ret0=\$(hstat retries)
vmctl kill-host 2 || fail "kill-host 2"
t_kill=\$(now_ms)

step "host1: GET the \$N keys"
i=0
while [ \$i -lt \$N ]; do
	t0=\$(now_ms)
	v=\$(scalioctl get \$S lease.\$i) || fail "get lease.\$i after the kill"
	t1=\$(now_ms)
	echo "# lease.\$i = '\$v' after \$((t1 - t0)) ms (\$((t1 - t_locked)) ms after the locks were seen)"
	[ "\$v" = "value-of-lease.\$i" ] || fail "lease.\$i: got '\$v'"
	if [ \$i = 0 ]; then
		# it found its key in a live B: backed off (retries) until the
		# lease ran out, at most LEASE_MS after the locks were seen
		[ \$((t1 - t_locked)) -ge \$((LEASE_MS / 2)) ] ||
			fail "the first GET returned \$((t1 - t_locked)) ms after the locks were seen: it did not wait for the lease"
		[ "\$(hstat retries)" -gt "\$ret0" ] ||
			fail "the first GET never backed off: the lease had expired before it started"
	fi
	i=\$((i + 1))
done
scalioctl stats \$S --host-only | grep -E 'gets|cache_|rdma_cas|cas_failures|retries|lease'
rec1=\$(hstat lease_reclaims)
echo "# host1 lease_reclaims: \$rec0 -> \$rec1"
[ \$((rec1 - rec0)) -ge \$N ] ||
	fail "lease_reclaims grew by \$((rec1 - rec0)), expected >= \$N: a GET skipped its key's dead lock without reclaiming it"

step "the reclaimed slots work: PUT, GET (cached), GET"
scalioctl put \$S lease.0 new-value || fail "put after the reclaims"
for j in 1 2; do
	v=\$(scalioctl get \$S lease.0) || fail "get after the reclaims"
	[ "\$v" = new-value ] || fail "lease.0: got '\$v' after the PUT"
done
[ "\$(hstat cache_hits)" -ge 1 ] || fail "no cache hit after the reclaims"

step "unload (the bed does not, a VM was killed)"
scalioctl detach \$S || fail "detach"
rmmod scalio_host || fail "rmmod scalio_host"
vmctl exec-target "scalioctl target-teardown --store \$S && rmmod scalio_target" ||
	fail "teardown in the target"
step "LEASE TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --hosts 2 --share "$share" --timeout 600 \
	--ssds 1 --target-setup-args "--nblocks 1 --slots 4 --lease-ms $lease_ms" \
	-- 'sh /share/lease.sh'
rc=$?
echo "# 32-lease: $(($(date +%s) - t_start)) s wall"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: GETs of a killed host's B slots completed after its lease, values correct"
exit 0
