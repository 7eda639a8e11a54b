#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 24-logfull: a log full of live data refuses PUTs that add data with
# ENOSPC, still takes DELETEs and PUTs that do not grow, takes new PUTs
# again once DELETEs made room, and loses nothing.
#
# One 24 MiB SSD (a log of about 6,100 units), 2048 hash blocks, values
# kept in their segments (--value-inline-max 4096: with values stored
# apart a fill leaves no garbage, and a lone DELETE's batch unit costs as
# much as the 4 KiB value it frees, so 64 DELETEs one at a time make no
# room; issue 36's notes).  host1
# first PUTs 64 "d" keys and one "sk" key (4 KiB values), then four
# writers of tests/selftests/scalio_crash PUT new keys of 4 KiB until each
# is refused.  Then:
#   - every writer stopped on ENOSPC ("No space left on device");
#   - shrinking sk.0.0 to one byte succeeds (it adds no data: the last
#     SCALIO_SHRINK_RESERVE units of the log are kept for such requests);
#   - DELETE of the 64 d keys succeeds, every one;
#   - 16 new keys of 4 KiB then go in (the cleaner reclaims the DELETEs'
#     garbage), within 32 rounds of up to 8 PUTs that stop at a refusal
#     (ENOSPC only);
#   - every acknowledged key reads back, the deleted ones are absent;
#   - a restart of the target (kill, start, reconnect) recovers exactly
#     that, with the same live_bytes; kernel logs stay clean.
# Controls: 24-logfull.no-shrink-reserve, 24-logfull.bio-sector0.
# Usage: 24-logfull.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }
suite_share logfull

cat > "$share/logfull.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
X=/scalio/tests/selftests/scalio_crash
S=${SCALIO_STORE:-kv0}
T0=$(date +%s)
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
stat() {
	scalioctl stats --json "$S" | sed -n "s/.*\"target_$1\": \([0-9]*\).*/\1/p"
}
show() {
	echo "# keys $(stat keys), live_bytes $(stat live_bytes), log $(stat log_used_units)/$(stat log_total_units) units used, cleaner runs $(stat cleaner_runs), moved $(stat cleaner_moved)"
}
# Every value is 4 KiB: each key is 9 sectors of its block's segment.
V="-V 4096 -v 4096"

step "64 keys to delete later, one to shrink"
$X write -s "$S" -l /tmp/d -p d -t 1 -k 64 -n 64 $V > /tmp/d.out 2>&1 ||
	{ cat /tmp/d.out; fail "PUT of the d keys"; }
$X write -s "$S" -l /tmp/sk -p sk -t 1 -k 1 -n 1 $V > /tmp/sk.out 2>&1 ||
	{ cat /tmp/sk.out; fail "PUT of sk.0.0"; }

step "four writers PUT new keys until refused"
total=$(stat log_total_units)
K=$((total / 4 + 100))
$X write -s "$S" -l /tmp/f -p f -t 4 -k $K -n $K $V -F > /tmp/f.out 2>&1
grep -v '^ok\|acknowledged in' /tmp/f.out | tail -n 6
show
n=$(grep -c '^# writer [0-3] stopped: PUT failed: No space left on device$' /tmp/f.out)
[ "$n" = 4 ] || fail "$n of 4 writers stopped on ENOSPC"
acked=$(cat /tmp/f/w*.log | grep -c '^K ')
live=$(stat live_bytes)
echo "# $acked keys of 4 KiB acknowledged; live data $((live * 100 / (total * 4096)))% of the log"
[ "$acked" -ge $((total / 4)) ] || fail "only $acked keys of 4 KiB in a log of $total units"

step "a PUT that shrinks a value goes in"
scalioctl put "$S" sk.0.0 x || fail "shrinking sk.0.0 in the full log"
step "DELETE of the 64 d keys"
i=0
while [ $i -lt 64 ]; do
	scalioctl del "$S" d.0.$i || fail "DELETE d.0.$i in the full log"
	i=$((i + 1))
done
show
# Until the cleaner has reached the DELETEs' garbage, new keys may still be
# refused (the garbage lies anywhere in the log, the cleaner works from its
# head, and on a log this small a wrap can keep up to a batch of units
# skipped): a writer retries as a client would, each refusal running the
# cleaner once more, and 16 keys must go in within 32 rounds of up to 8.
step "16 new keys go in again"
r=0 nacked=0
while [ $nacked -lt 16 ] && [ $r -lt 32 ]; do
	$X write -s "$S" -l /tmp/n$r -p n$r -t 1 -k 8 -n 8 $V > /tmp/n.out 2>&1
	a=$(grep -c '^K ' /tmp/n$r/w0.log)
	grep -q '^E ' /tmp/n$r/w0.log && ! grep -q '^E .* 28$' /tmp/n$r/w0.log &&
		{ tail -n 3 /tmp/n.out; fail "a new PUT failed otherwise than with ENOSPC"; }
	nacked=$((nacked + a))
	r=$((r + 1))
done
echo "# $nacked new keys acknowledged in $r round(s)"
show
[ $nacked -ge 16 ] || fail "only $nacked new keys went in after the DELETEs, in $r rounds"

check() {
	$X verify -s "$S" -l /tmp/f -N > /tmp/verify.out 2>&1 ||
		{ tail -n 5 /tmp/verify.out; fail "$1: the filled keys"; }
	i=0
	while [ $i -lt $r ]; do
		$X verify -s "$S" -l /tmp/n$i -N > /tmp/verify.out 2>&1 ||
			{ tail -n 5 /tmp/verify.out; fail "$1: the new keys of round $i"; }
		i=$((i + 1))
	done
	[ "$(scalioctl get "$S" sk.0.0)" = x ] || fail "$1: sk.0.0 is not the shrunk value"
	for i in 0 9 31 63; do
		scalioctl get "$S" d.0.$i > /dev/null 2>&1 && fail "$1: d.0.$i is back"
	done
	echo "# $1: every key as acknowledged"
}
check "before the restart"
live=$(stat live_bytes)

step "restart of the target"
hstat() { scalioctl stats "$S" --host-only | awk -v k="$1" '$1 == k { print $2 }'; }
rc0=$(hstat reconnects)
vmctl kill-target || fail kill-target
vmctl start-target || fail start-target
reconnected() {
	target_up || never "the target is down"
	[ "$(hstat reconnects)" -gt "$rc0" ]
}
wait_until "a reconnect after the restart" reconnected ||
	fail "no reconnect after the restart"
check "after the restart"
[ "$(stat live_bytes)" = "$live" ] ||
	fail "live_bytes $(stat live_bytes) recounted by recovery, $live before"
echo "LOGFULL TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 1 --ssd-size 24M --share "$share" \
	--target-setup-args "--nblocks 2048 --value-inline-max 4096" -- 'sh /share/logfull.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: a full log refuses PUTs with ENOSPC, takes DELETEs, and loses nothing"
exit 0
