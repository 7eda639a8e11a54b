#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 20-drain: a store whose disable waits on a stalled SSD does not hold up
# the other stores.  Two stores in one target: kv0 on SSD 0 seen through
# device-mapper (/dev/mapper/sd0, linear), kvb on SSD 1.
#
#   1. kv0 set up, attached, keys written.
#   2. sd0 suspended (dmsetup suspend --noflush: its I/O waits); a PUT
#      reaches the target (rpc_puts grows) and its write waits there, so
#      the request holds a reference on its connection.
#   3. kv0 disabled in the background: it stops listening, drops its
#      client and waits for that request ("waiting for N connection(s)").
#   4. Meanwhile kvb is set up (--format) and enabled, attached, written
#      and read back, while kv0's disable is still waiting.  A disable
#      that held the transport's global lock while it drained
#      (scalio_tgt_rdma_lock, before this test) kept kvb's enable waiting for
#      a resume that never comes: the run then ends at the bed's hang
#      guard, a failure.
#   5. sd0 resumed: kv0's disable completes; kv0 enabled again, attached
#      again: every acknowledged write reads back (the stalled PUT's key
#      holds its new value if that PUT was acknowledged, else its old or
#      its new one); kvb still reads back.
#   6. Both stores idle: every statistics/ file holds one value, equal to
#      the stats line of its name, and ssds/<i>/state to its ssd<i> line
#      (tests/vm/guest/statfiles.sh).
#
# Usage: 20-drain.sh [--kver 6.1|6.12|6.1-debug]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
t_start=$(date +%s)
command -v dmsetup > /dev/null ||
	{ echo "SKIP: dmsetup is not installed (make deps)"; exit 4; }

suite_share drain

cat > "$share/drain.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
CFS=/sys/kernel/config/scalio/stores
N=10
T0=$(date +%s)
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
T() { vmctl exec-target "$*"; }
stat_of() { T "awk '\$1 == \"$2\" { print \$2 }' $CFS/$1/stats"; }
puts_grew() {
	target_up || never "the target is down"
	[ "$(stat_of kv0 rpc_puts)" -gt "$p0" ]
}
draining() {
	kill -0 "$dpid" 2> /dev/null || never "the disable returned: $(cat /share/disable.out)"
	T "dmesg | grep -q 'store kv0: not listening; waiting for'"
}
verify() {
	s=$1 pfx=$2 i=1
	while [ $i -le $N ]; do
		got=$(scalioctl get "$s" "$pfx$i") ||
			fail "$3: GET $s $pfx$i failed"
		[ "$got" = "v$pfx$i" ] || fail "$3: $s $pfx$i = '$got', expected 'v$pfx$i'"
		i=$((i + 1))
	done
}
write() {
	s=$1 pfx=$2 i=1
	while [ $i -le $N ]; do
		scalioctl put "$s" "$pfx$i" "v$pfx$i" || fail "PUT $s $pfx$i"
		i=$((i + 1))
	done
}

step "1. kv0 on dm linear over SSD 0"
T "modprobe dm-mod" || fail "modprobe dm-mod"
T "set -- \$SCALIO_SSDS; [ \$# = 2 ] || exit 1
	echo \"0 \$(blockdev --getsz \$1) linear \$1 0\" |
		dmsetup create --noudevsync sd0 && dmsetup mknodes sd0 &&
		[ -b /dev/mapper/sd0 ]" || fail "dmsetup create sd0"
T "scalioctl target-setup --store kv0 --addr $A --port 4800 --nblocks 64 --format /dev/mapper/sd0" ||
	fail "target-setup kv0"
scalioctl attach kv0 --addr "$A" --port 4800 > /dev/null || fail "attach kv0"
write kv0 a
scalioctl put kv0 stall old || fail "PUT kv0 stall old"
verify kv0 a "kv0 before"

step "2. sd0 suspended; a PUT waits in the target"
# kv0's disable and its commit kthread wait in D state as long as sd0 is
# suspended, on purpose; on the debug lane that can pass the hung-task
# detector's 120 s, whose report would fail the run's log check.
HT=/proc/sys/kernel/hung_task_timeout_secs
ht=$(T "cat $HT 2> /dev/null")
[ -z "$ht" ] || T "echo 0 > $HT" || fail "turn off the hung-task report"
p0=$(stat_of kv0 rpc_puts)
T "dmsetup suspend --noudevsync --noflush sd0" || fail "dmsetup suspend sd0"
scalioctl put kv0 stall new > /share/stall.out 2>&1 &
ppid=$!
wait_until "the PUT to reach the target" puts_grew || fail "the PUT never reached the target"

step "3. kv0 disabled: it waits for that PUT's write"
T "echo 0 > $CFS/kv0/enable" > /share/disable.out 2>&1 &
dpid=$!
wait_until "kv0's disable to drain" draining || fail "kv0's disable did not wait for the PUT"

step "4. kvb set up and used while kv0's disable waits"
T "set -- \$SCALIO_SSDS
	scalioctl target-setup --store kvb --addr $A --port 4801 --nblocks 64 --format \$2" ||
	fail "target-setup kvb while kv0's disable waits"
kill -0 $dpid 2> /dev/null ||
	fail "kv0's disable ended while sd0 was suspended: nothing was attacked ($(cat /share/disable.out))"
scalioctl attach kvb --addr "$A" --port 4801 > /dev/null || fail "attach kvb"
write kvb b
verify kvb b "kvb while kv0 drains"
kill -0 $dpid 2> /dev/null || fail "kv0's disable ended while sd0 was suspended"
echo "# kvb enabled, written and read while kv0's disable waited"

step "5. sd0 resumed: kv0 comes back"
T "dmsetup resume --noudevsync sd0" || fail "dmsetup resume sd0"
wait $dpid || fail "disabling kv0: $(cat /share/disable.out)"
[ -z "$ht" ] || T "echo $ht > $HT" || fail "restore $HT"
if wait $ppid; then
	want=new
	echo "# the stalled PUT was acknowledged"
else
	want=
	echo "# the stalled PUT failed: $(cat /share/stall.out)"
fi
T "echo 1 > $CFS/kv0/enable" || fail "enable kv0 again"
scalioctl detach kv0 > /dev/null || fail "detach kv0"
scalioctl attach kv0 --addr "$A" --port 4800 > /dev/null || fail "attach kv0 again"
verify kv0 a "kv0 after"
got=$(scalioctl get kv0 stall) || fail "GET kv0 stall"
case $want:$got in
new:new|:old|:new) echo "# kv0 stall = $got" ;;
*) fail "kv0 stall = '$got' (stalled PUT acknowledged: ${want:-no})" ;;
esac
verify kvb b "kvb after"

step "6. statistics/ and ssds/<i>/state = stats"
for s in kv0 kvb; do
	T "sh /scalio/tests/vm/guest/statfiles.sh $s" ||
		fail "$s: statistics/ or ssds/*/state differ from stats"
done

step "unload"
scalioctl detach kv0 > /dev/null || fail "final detach kv0"
scalioctl detach kvb > /dev/null || fail "final detach kvb"
rmmod scalio_host || fail "rmmod scalio_host"
T "scalioctl target-teardown --store kv0 && scalioctl target-teardown --store kvb &&
	dmsetup remove --noudevsync sd0 && rmmod scalio_target" ||
	fail "final teardown in the target"
step "DRAIN TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 2 --no-setup --share "$share" \
	--timeout 900 -- 'sh /share/drain.sh'
rc=$?
echo "# 20-drain: $(($(date +%s) - t_start)) s wall"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: a draining store does not hold up the others"
exit 0
