#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 33-lease-slowio: an SSD read slower than the lease does not livelock GETs
# (issue 13).  A filler renews its lease by CAS while it reads the segment;
# without that, every fill would lose its lock (to its own abandon check or
# to the next reader's reclaim) and no GET of the key would ever complete.
#
# The target's SSD sits behind dm-delay: the bed runs with --no-setup, the
# target creates /dev/mapper/slow over its SSD (no delay yet), the store is
# set up on it with the default lease (2000 ms) and attached in both hosts.
# host1 PUTs the keys; then the dm table is swapped (suspend, load, resume)
# for one that delays every read by 2500 ms, more than the lease (writes
# are not delayed).  Both hosts GET every key at once from two processes
# each (so every key has concurrent fillers and waiters): each GET must
# return the PUT value, host1's lease_renewals must grow (its fills outlast
# the lease), its lease_reclaims must not (nobody took a slow but live
# filler for a dead one) and its retries stay bounded.
# A second round must hit the cache.
#
# Then host1's connection is lost while a GET of host1 waits for its SSD
# read (issue 39): every target read now takes 60 s, longer than a GET's
# 30 s; host1 GETs a fresh key, and once its fill has renewed its lease
# (the renewal enters the connection by itself: the GET does not hold it
# during the read) a PUT with debug_lose_conn_after_write=1 drops host1's
# connection.  The reconnect must not wait for the read: host1 reconnects
# while the read still waits (ssd_read_timeouts unchanged when the
# reconnect is seen; a GET holding the connection across its read delayed
# the first attempt until the read or the GET's time was over), and in
# host1's trace the first scalio_host_reconnect_begin after the loss came
# so soon that its delay plus the attempt's budget_ms stays below the
# store's fast_io_fail_ms (the bound operations wait for a reconnect, as
# 22-fabric C judges the later attempts).  Then the delay goes (dm-delay
# submits the held read at once); the GET, back on another connection,
# starts over (lost_get_retries +1) and returns the value.  Control:
# tests/vm/controls/33-lease-slowio.get-holds-conn.patch.
#
# Then a read that stalls for longer than its GET's whole time (30 s):
# host1 reads the SSD through a second target address B (its own nvmet
# port, set up before the attach; host2 uses the store's address), reads
# run at full speed again, host1 PUTs a new key, B is taken off the
# target (host1's NVMe-oF path hangs, RDMA to the store works on) and
# host1 GETs the key: its fill locks the slot and its read stalls.  20 s
# later host2 GETs the same key: it must get the value while B is still
# down, and host1's GET must fail with ETIMEDOUT at its own end, also
# while B is down: it stops waiting for the read then and releases its
# lock (or, if its renewals stopped first, the lock expires and host2
# reclaims it).  A GET that waited for its read would hold the key, the
# connection and with it detach and reconnect for as long as nvme-rdma
# queues the read: host1 connects to B with ctrl_loss_tmo 120 s (times
# the bed's timeout factor), after which such a GET fails with EIO.
# The read left behind holds host1's module: rmmod fails with "in use"
# while B is down, and works once B is back and the read completed.
#
# Usage: 33-lease-slowio.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
delay_ms=2500
t_start=$(date +%s)

command -v dmsetup > /dev/null || { echo "SKIP: dmsetup not installed"; exit 4; }
suite_share slowio

cat > "$share/slowio.sh" << EOF
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=\$SCALIO_STORE
A=\$SCALIO_TARGET_ADDR
N=4
B=10.77.0.100	# the target's second address (NVMe-oF for host1)
DELAY_MS=$delay_ms
T0=\$(date +%s)
fail() { echo "FAIL: \$*"; exit 1; }
step() { echo "=== [\$(( \$(date +%s) - T0 ))s] \$*"; }
hstat() {
	if [ \$# = 2 ]; then echo "\$2"; else scalioctl stats \$S --host-only; fi |
		awk -v k="\$1" '\$1 == k { print \$2 }'
}

step "target: dm-delay over its SSD (no delay yet), store with the default lease"
vmctl exec-target '
	set -e
	modprobe dm-delay
	dev=\$SCALIO_SSDS
	sz=\$(blockdev --getsz \$dev)
	echo "0 \$sz delay \$dev 0 0 \$dev 0 0" | dmsetup create --noudevsync slow
	dmsetup mknodes slow	# no udev in the bed
	scalioctl target-setup --store '\$S' --addr '\$A' --nblocks 16 --format /dev/mapper/slow
' || fail "target setup on dm-delay"

step "target: nvmet port 2 on a second address \$B; host1 reads its SSD there"
vmctl exec-target '
	set -e
	ip addr add '\$B'/24 dev eth0
	n=\$(ls /sys/kernel/config/nvmet/subsystems)
	p=/sys/kernel/config/nvmet/ports/2
	mkdir \$p
	echo rdma > \$p/addr_trtype
	echo ipv4 > \$p/addr_adrfam
	echo '\$B' > \$p/addr_traddr
	echo 4420 > \$p/addr_trsvcid
	ln -s /sys/kernel/config/nvmet/subsystems/\$n \$p/subsystems/\$n
	echo "nqn=\$n"
' > /tmp/port2 2>&1 || { cat /tmp/port2; fail "nvmet port 2"; }
NQN=\$(sed -n 's/^nqn=//p' /tmp/port2)
# scalioctl attach binds the namespace of a controller already connected
nvme connect -t rdma -a \$B -s 4420 -n "\$NQN" \\
	--ctrl-loss-tmo=\$((120 * \${SCALIO_TIMEOUT_FACTOR:-1})) ||
	fail "host1: nvme connect to \$B"
# attach, retried: on a loaded bed the connect can time out once
attach() {
	for _ in 1 2 3; do
		\$1 "scalioctl attach \$S --addr \$A" && return 0
		sleep 2
	done
	return 1
}
attach "sh -c" || fail "host1: attach"
attach "vmctl exec-host 2" || fail "host2: attach"
# the fill a miss waits for is what renews while the SSD is slow: no
# answer before the fill (a background fill reads no SSD)
echo 0 > /sys/module/scalio_host/parameters/optimistic_miss &&
	vmctl exec-host 2 "echo 0 > /sys/module/scalio_host/parameters/optimistic_miss" ||
	fail "optimistic_miss=0"

step "PUT \$N keys"
i=0
while [ \$i -lt \$N ]; do
	scalioctl put \$S slow.\$i "value-of-slow.\$i" || fail "put slow.\$i"
	i=\$((i + 1))
done

# read_delay MS: every SSD read of the target takes MS ms from now on
read_delay() {
	vmctl exec-target '
		set -e
		dev=\$SCALIO_SSDS
		sz=\$(blockdev --getsz \$dev)
		dmsetup suspend --noudevsync slow
		echo "0 \$sz delay \$dev 0 '\$1' \$dev 0 0" | dmsetup load slow
		dmsetup resume --noudevsync slow
		dmsetup table slow
	' || fail "switching the dm table to a \$1 ms read delay"
}

step "every SSD read now takes \$DELAY_MS ms (the lease is 2000 ms)"
read_delay \$DELAY_MS

st=\$(scalioctl stats \$S --host-only)
rec0=\$(hstat lease_reclaims "\$st")
ren0=\$(hstat lease_renewals "\$st")
miss0=\$(hstat cache_misses "\$st")
ssd0=\$(hstat ssd_reads "\$st")

# getall TAG: GET every key, check its value, in a background process
getall='i=0; while [ \$i -lt '\$N' ]; do
	v=\$(scalioctl get '\$S' slow.\$i) || { echo "get slow.\$i failed"; exit 1; }
	[ "\$v" = "value-of-slow.\$i" ] || { echo "slow.\$i = \$v"; exit 1; }
	i=\$((i + 1)); done'

step "GETs of every key: two processes in each host at once"
t0=\$(date +%s)
sh -c "\$getall" > /tmp/g1 2>&1 & p1=\$!
sh -c "\$getall" > /tmp/g2 2>&1 & p2=\$!
vmctl exec-host 2 "sh -c '\$getall' > /tmp/g3 2>&1 & q=\\\$!;
	sh -c '\$getall' > /tmp/g4 2>&1 || { cat /tmp/g4; exit 1; };
	wait \\\$q || { cat /tmp/g3; exit 1; }" > /tmp/h2.out 2>&1; rc2=\$?
wait \$p1; r1=\$?
wait \$p2; r2=\$?
t1=\$(date +%s)
cat /tmp/g1 /tmp/g2 /tmp/h2.out
[ \$r1 = 0 ] && [ \$r2 = 0 ] && [ \$rc2 = 0 ] ||
	fail "a GET failed or returned a wrong value under slow SSD reads (host1: \$r1 \$r2, host2: \$rc2)"
st=\$(scalioctl stats \$S --host-only)
echo "\$st" | grep -E 'gets|cache_|ssd_reads|retries|lease'
echo "# 4 x \$N GETs in \$((t1 - t0)) s"
[ "\$(hstat ssd_reads "\$st")" -gt "\$ssd0" ] || fail "no SSD read: the test did not exercise the slow path"
[ "\$(hstat cache_misses "\$st")" -gt "\$miss0" ] || fail "no cache miss in host1"
# Each fill's read outlasts its lease: it completed only by renewing.
[ "\$(hstat lease_renewals "\$st")" -gt "\$ren0" ] ||
	fail "host1's fills completed without renewing a lease (lease_renewals \$ren0)"
[ "\$(hstat lease_reclaims "\$st")" = "\$rec0" ] ||
	fail "host1 reclaimed \$(( \$(hstat lease_reclaims "\$st") - rec0 )) lock(s): a slow filler was taken for a dead one"

step "a second round hits the cache"
h0=\$(hstat cache_hits)
sh -c "\$getall" || fail "second round"
[ "\$(hstat cache_hits)" -ge \$((h0 + N)) ] || fail "second round did not hit the cache"

step "host1's connection lost while its GET waits for an SSD read: the reconnect must not wait"
T=/sys/kernel/tracing
mountpoint -q \$T || mount -t tracefs nodev \$T || fail "no tracefs"
scalioctl put \$S lost.0 value-of-lost.0 || fail "put lost.0"
read_delay 60000
echo 0 > \$T/tracing_on
echo > \$T/trace
echo 1 > \$T/events/scalio_host/scalio_host_reconnect_begin/enable
echo 1 > \$T/events/scalio_host/scalio_host_reconnect/enable
echo 1 > \$T/tracing_on
rc0=\$(hstat reconnects)
ssd0=\$(hstat ssd_reads)
to0=\$(hstat ssd_read_timeouts)
ren0=\$(hstat lease_renewals)
lg0=\$(hstat lost_get_retries)
(scalioctl get \$S lost.0; echo "rc=\$?") > /tmp/l1 2>&1 & lp=\$!
# in its read (counted at submission) with a renewed lease
stalled() {
	kill -0 \$lp 2> /dev/null || never "host1's GET of lost.0 returned: \$(tr '\\n' ' ' < /tmp/l1)"
	[ "\$(hstat ssd_reads)" -gt "\$ssd0" ] && [ "\$(hstat lease_renewals)" -gt "\$ren0" ]
}
wait_until "host1's GET to read the SSD and renew its lease" stalled ||
	{ read_delay 0; fail "host1's GET of lost.0 did not stall in its SSD read"; }
echo "lose" > \$T/trace_marker
echo 1 > /sys/module/scalio_host/parameters/debug_lose_conn_after_write ||
	fail "setting debug_lose_conn_after_write"
# the same key and value: its block's segment is in the target's cache (no read)
scalioctl put \$S lost.0 value-of-lost.0 &&
	fail "the PUT that was to lose the connection succeeded"
echo 0 > /sys/module/scalio_host/parameters/debug_lose_conn_after_write
reconnected() {
	target_up || never "the target is down"
	[ "\$(hstat reconnects)" -gt "\$rc0" ]
}
wait_until "host1 to reconnect" reconnected || { read_delay 0; fail "host1 did not reconnect"; }
to1=\$(hstat ssd_read_timeouts)
echo 0 > \$T/tracing_on
grep -E 'tracing_mark_write: lose|scalio_host_reconnect' \$T/trace > /tmp/rc.lost
echo 0 > \$T/events/scalio_host/enable
echo > \$T/trace
step "reconnected (ssd_read_timeouts \$to0 -> \$to1); the reads are fast again"
read_delay 0
wait \$lp
step "host1's GET returned: \$(tr '\\n' ' ' < /tmp/l1)"
sed 's/^ *//; s/^/#   /' /tmp/rc.lost | head -n 6
# The first attempt after the loss, in the trace's clock: its delay from the
# loss plus its budget must fit in the bound of the operations waiting.
bound=\$(cat /sys/class/misc/scalio-\$S/fast_io_fail_ms)
first=\$(awk '
	function ts(  i) { for (i = 1; i <= NF; i++) if (\$i ~ /^[0-9]+\\.[0-9]+:\$/) return substr(\$i, 1, length(\$i) - 1) }
	/tracing_mark_write: lose/ { t0 = ts() }
	/scalio_host_reconnect_begin: / && t0 != "" { split(\$NF, a, "="); printf "%d %d\\n", (ts() - t0) * 1000, a[2]; exit }' /tmp/rc.lost)
echo "# first reconnect attempt after the loss: \${first% *} ms after it, budget \${first#* } ms, bound \$bound ms"
[ "\$to1" = "\$to0" ] ||
	fail "host1 reconnected only after its GET gave its SSD read up (ssd_read_timeouts \$to0 -> \$to1): the reconnect waited for the read"
[ -n "\$first" ] || fail "no scalio_host_reconnect_begin after the loss in host1's trace"
[ \$(( \${first% *} + \${first#* } )) -lt "\$bound" ] ||
	fail "the first reconnect attempt began \${first% *} ms after the loss: with its budget of \${first#* } ms past the \$bound ms bound"
grep -q '^value-of-lost.0\$' /tmp/l1 && grep -q '^rc=0\$' /tmp/l1 ||
	fail "host1's GET of lost.0 across the reconnect: \$(tr '\\n' ' ' < /tmp/l1)"
[ "\$(hstat lost_get_retries)" -gt "\$lg0" ] ||
	fail "host1's GET did not start over after its read (lost_get_retries \$lg0 -> \$(hstat lost_get_retries))"
[ "\$(hstat ssd_read_timeouts)" = "\$to0" ] ||
	fail "ssd_read_timeouts moved: \$to0 -> \$(hstat ssd_read_timeouts)"

step "a read that stalls past its GET's time: host1's fill must give the key up"
read_delay 0
scalioctl put \$S stall.0 value-of-stall.0 || fail "put stall.0"
gu0=\$(hstat lease_giveups)
to0=\$(hstat ssd_read_timeouts)
st2() { vmctl exec-host 2 "scalioctl stats \$S --host-only"; }
rc0=\$(hstat lease_reclaims "\$(st2)")
vmctl exec-target "ip addr del \$B/24 dev eth0" || fail "taking \$B off the target"
step "\$B is gone: host1 GETs stall.0 (its read hangs)"
(scalioctl get \$S stall.0; echo "rc=\$?") > /tmp/s1 2>&1 & sp=\$!
sleep 20
step "host2 GETs stall.0 while host1's read hangs"
v2=\$(vmctl exec-host 2 "scalioctl get \$S stall.0" 2>&1); r2=\$?
step "host2: rc \$r2, '\$v2'; host1's GET must time out while \$B is down"
wait \$sp
step "host1's GET returned: \$(tr '\\n' ' ' < /tmp/s1)"
[ \$r2 = 0 ] && [ "\$v2" = value-of-stall.0 ] ||
	fail "host2's GET of stall.0 failed (rc \$r2: \$v2) while host1's read of it hung: host1 held the key past its own GET's time"
grep -q 'Connection timed out' /tmp/s1 ||
	fail "host1's GET did not fail with ETIMEDOUT while its read hung: it waited for the read"
[ "\$(hstat ssd_read_timeouts)" = \$((to0 + 1)) ] ||
	fail "host1: ssd_read_timeouts went from \$to0 to \$(hstat ssd_read_timeouts), not up by 1"
# How host1's lock went (either way host2 had the value): released when
# its GET ended, or given up (renewals stop at the GET's end) and
# reclaimed by host2.
echo "# host1 lease_giveups \$gu0 -> \$(hstat lease_giveups), host2 lease_reclaims \$rc0 -> \$(hstat lease_reclaims "\$(st2)")"

step "host1's module is held by the read it left (\$B is still down)"
# the debug lane's leak check: note where the module is before it goes
bash /scalio/tests/vm/guest/kmemleak.sh mark > /dev/null
rmmod scalio_host 2> /tmp/rm && fail "rmmod scalio_host worked while a read it left was queued"
grep -q 'in use' /tmp/rm || fail "rmmod scalio_host: \$(cat /tmp/rm)"
step "\$B comes back: the read completes, the module unloads"
vmctl exec-target "ip addr add \$B/24 dev eth0" || fail "putting \$B back"
# no time limit: nvme-rdma reconnects within its reconnect_delay
until rmmod scalio_host 2> /tmp/rm; do
	grep -q 'in use' /tmp/rm || fail "rmmod scalio_host: \$(cat /tmp/rm)"
	sleep 1
done
step "SLOW-IO TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --hosts 2 --share "$share" --timeout 600 \
	--ssds 1 --no-setup -- 'sh /share/slowio.sh'
rc=$?
echo "# 33-lease-slowio: $(($(date +%s) - t_start)) s wall"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: GETs completed with checked values while every SSD read outlasted the lease"
exit 0
