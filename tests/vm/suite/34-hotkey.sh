#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 34-hotkey: a writer of one hot key is not starved by its readers
# (issue 13, "No starvation"), measured.
#
# One run with two host VMs, store in its default (cache) mode.  8 reader
# threads GET key "hot" in a loop, HOT_READERS1 (4) in host1 and
# HOT_READERS2 (4) in host2, while a writer in host1
# (tests/selftests/scalio_hotkey) PUTs it in HOT_ROUNDS (6) rounds of
# HOT_PUTS (50) PUTs with the readers paused (a pause file in /share that
# they poll) and HOT_PUTS PUTs with them running: every busy PUT must turn
# the readers' cached copy (C) or fill locks (B) into A/D while they keep
# refilling it.  Lone and busy series alternate, so a drift of the
# machine's load during the run hits both alike (two lone series a minute
# apart differed by 2x at p50 on this shared machine).  The test prints the
# writer's PUT latency p50 and p99 with readers next to the same without,
# and their ratios:
#   hotkey: PUT alone (300) p50 .. p99 ..; busy (300) p50 .. p99 ..; ratio p50 R p99 R
# The ratio is a measurement, not a pass criterion (no time limit in the
# test).  The test fails only if a PUT fails (-ETIMEDOUT: the writer
# starved outright) or its value is not read back, if a reader's GET fails
# or returns a value that is not one of the writer's or older than one it
# already read (the writer's PUTs are sequential: per reader the values
# never go back), or if the readers made no GET.
#
# Usage: 34-hotkey.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
puts=${HOT_PUTS:-50}
rounds=${HOT_ROUNDS:-6}
# The debug lane is after its checkers' reports, not the ratios: 2 rounds.
vm_is_debug "$kver" && rounds=${HOT_ROUNDS:-2}
r1=${HOT_READERS1:-4}
r2=${HOT_READERS2:-4}
t_start=$(date +%s)

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }

suite_share hotkey

# The guest side, run in host1 (POSIX sh).
cat > "$share/hot.sh" << EOF
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
H=/scalio/tests/selftests/scalio_hotkey
S=\${SCALIO_STORE:-kv0}
T0=\$(date +%s)
fail() { echo "FAIL: \$*"; touch /share/stop; exit 1; }
step() { echo "=== [\$(( \$(date +%s) - T0 ))s] \$*"; }
# gets [N]: the GET counter of this host or of host N
gets() {
	if [ \$# = 1 ]; then
		vmctl exec-host \$1 "scalioctl stats \$S --host-only"
	else
		scalioctl stats \$S --host-only
	fi | awk '\$1 == "gets" { print \$2 }'
}
# readers_moved G0 PID [N]: the GET counter (of host N) has passed G0;
# never once the readers (PID) exited
readers_moved() {
	kill -0 "\$2" 2> /dev/null || never "the readers of host\${3:-1} exited"
	[ "\$(gets \${3:-})" -gt "\$1" ]
}
# wait_gets G0 PID [N]: until the GET counter (of host N) has passed G0
wait_gets() {
	WAIT_INTERVAL=0.1 wait_until "a GET of the readers of host\${3:-1}" readers_moved "\$@" ||
		fail "the readers of host\${3:-1} never issued a GET"
}

rm -f /share/stop /share/pause
scalioctl put \$S hot hot.0 || fail "the first PUT"
step "$r1 readers in host1 and $r2 in host2"
g0=\$(gets)
g2=\$(gets 2)
if [ $r2 -gt 0 ]; then
	vmctl exec-host 2 "\$H read -t $r2 -x /share/stop -P /share/pause" > /share/read2.out 2>&1 &
	p2=\$!
fi
if [ $r1 -gt 0 ]; then
	\$H read -t $r1 -x /share/stop -P /share/pause > /share/read1.out 2>&1 &
	p1=\$!
fi
# the readers are running once the hosts' GET counters move
[ $r1 = 0 ] || wait_gets \$g0 "\$p1"
[ $r2 = 0 ] || wait_gets \$g2 "\$p2" 2
step "writer: $rounds rounds of $puts PUTs alone and $puts with the readers"
\$H put -n $puts -r $rounds -s 1 -P /share/pause -o /share/alone.lat -b /share/busy.lat
rc=\$?
touch /share/stop
rr1=0
rr2=0
[ $r1 = 0 ] || { wait \$p1; rr1=\$?; }
[ $r2 = 0 ] || { wait \$p2; rr2=\$?; }
cat /share/read1.out /share/read2.out 2>/dev/null
[ \$rc = 0 ] || fail "a PUT failed"
[ \$rr1 = 0 ] && [ \$rr2 = 0 ] ||
	fail "readers: exit \$rr1 (host1), \$rr2 (host2)"
echo "# host1: \$(scalioctl stats \$S --host-only | awk '\$1 ~ /^(puts|invalidations|rdma_cas|cas_failures|retries|lease_reclaims)\$/ { printf "%s=%s ", \$1, \$2 }')"
step "done"
EOF

"$top/tests/vm/run" --kver "$kver" --hosts 2 --share "$share" --timeout 900 \
	-- 'sh /share/hot.sh'
rc=$?
echo "# 34-hotkey: $(($(date +%s) - t_start)) s wall"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
out=$("$top/tests/selftests/scalio_hotkey" report "$share/alone.lat" \
	"$share/busy.lat") || { echo "FAIL: no latencies to report"; exit 1; }
echo "$out"
echo "PASS: $((2 * rounds * puts)) PUTs of a hot key with $((r1 + r2)) readers on two hosts completed, values checked"
exit 0
