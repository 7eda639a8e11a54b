#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 18-fullblock: a full hash block is its own error (-EFBIG), not a full
# log (-ENOSPC), and costs nothing already stored.
#
# A store of one hash block (--nblocks 1), values kept in the segment
# (--value-inline-max 4096): every key lands in it, and its
# segment may not exceed 255 log units (about 1 MiB).  host1 PUTs two keys
# of its own (sk.0.01, dk.0.01), then tests/selftests/scalio_crash (one
# process, one writer) PUTs 4 KiB values under new keys until a PUT fails;
# that PUT must fail with EFBIG ("File too large") after at least 200 keys
# in all, and then:
#   - every key acknowledged before reads back its value (scalio_crash
#     verify), and the refused key is absent;
#   - shrinking a stored value (sk.0.01 to 1 byte) makes room: a new key
#     then goes in; deleting one (dk.0.01) makes room for another; the
#     next is refused again;
#   - a restart of the target (kill, start, reattach) recovers exactly
#     that state; kernel logs stay clean.
# The fill and the checks of the filled keys are one process each: one
# scalioctl process per PUT and per GET (about 700 in all) took most of
# the 23 minutes this test ran on the debug lane.
# Usage: 18-fullblock.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }
suite_share fullblock

cat > "$share/fullblock.sh" << 'EOF2'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=${SCALIO_STORE:-kv0}
T0=$(date +%s)
fail() { echo "FAIL: $*"; exit 1; }
el() { echo "[$(($(date +%s) - T0))s]"; }
val() { printf '%-4096s' "value-$1"; }
# check_key KEY WANT: KEY reads back exactly WANT
check_key() {
	got=$(scalioctl get "$S" "$1") || fail "GET $1 failed"
	[ "$got" = "$2" ] || fail "GET $1: wrong value (${#got} bytes)"
}
absent() {
	scalioctl get "$S" "$1" > /dev/null 2>&1 && fail "$1 is stored ($2)"
}

# Names as long as the filler's (f.0.NNN): room freed by one key must fit
# the next.
scalioctl put "$S" sk.0.01 "$(val sk)" || fail "PUT sk.0.01"
scalioctl put "$S" dk.0.01 "$(val dk)" || fail "PUT dk.0.01"
# The filler: one writer, prefix f, values of exactly $FV bytes.
L=/tmp/fill FP=f FV=4096
/scalio/tests/selftests/scalio_crash write -s "$S" -l "$L" -p $FP -t 1 -k 400 \
	-n 400 -V $FV -v $FV -F > /tmp/fill.out 2>&1
frc=$?
cat /tmp/fill.out
[ $frc != 0 ] || fail "400 PUTs of 4 KiB into one block and no refusal"
grep -q '^# writer 0 stopped: PUT failed: File too large$' /tmp/fill.out ||
	fail "the PUT that did not fit failed otherwise (want EFBIG)"
full=$(grep -c '^K ' "$L/w0.log")
[ $((full + 2)) -ge 200 ] || fail "the block was full after only $((full + 2)) keys"
refused=$FP.0.$full
grep -q "^E $full 1 " "$L/w0.log" || fail "the writer's log does not show $refused refused"
absent "$refused" "refused"
echo "$(el) $((full + 2)) keys of 4 KiB fit; $refused refused"
# verify reads every key of the writer's key space (its meta file): cut it
# to the keys written, up to the refused one; each GET of this full block
# costs a second or more on the debug lane.
echo "$FP 1 $((full + 1)) $FV $FV" > "$L/meta"

scalioctl put "$S" sk.0.01 x || fail "shrinking sk.0.01"
scalioctl put "$S" nk.0.01 "$(val n1)" || fail "PUT nk.0.01 after sk.0.01 shrank"
scalioctl del "$S" dk.0.01 || fail "DELETE dk.0.01"
scalioctl put "$S" nk.0.02 "$(val n2)" || fail "PUT nk.0.02 after dk.0.01 was deleted"
scalioctl put "$S" nk.0.03 "$(val n3)" 2> /tmp/err &&
	fail "the block took nk.0.03 too: it was full again"
grep -q "File too large" /tmp/err || fail "second refusal: $(cat /tmp/err)"
echo "$(el) room made by a shrink and a delete, then refused again"

verify() {
	check_key sk.0.01 x
	absent dk.0.01 "back after its DELETE"
	check_key nk.0.01 "$(val n1)"
	check_key nk.0.02 "$(val n2)"
	absent nk.0.03 "refused"
	absent "$refused" "refused"
	# -N: record nothing; every filled key must hold its one version.
	/scalio/tests/selftests/scalio_crash verify -s "$S" -l "$L" -N > /tmp/verify.out 2>&1 ||
		{ cat /tmp/verify.out; fail "$1: the filled keys do not read back"; }
	grep '^# verify' /tmp/verify.out
	echo "$(el) scalio_crash verify done"
	echo "$(el) $1: the block's keys read back"
}
verify "before the restart"
hstat() { scalioctl stats "$S" --host-only | awk -v k="$1" '$1 == k { print $2 }'; }
rc0=$(hstat reconnects)
vmctl kill-target || fail kill-target
vmctl start-target || fail start-target
# The store stayed attached: the host reconnects by itself (no bound but
# the bed's hang guard).
reconnected() {
	target_up || never "the target is down"
	[ "$(hstat reconnects)" -gt "$rc0" ]
}
wait_until "a reconnect after the restart" reconnected ||
	fail "no reconnect after the restart"
verify "after the restart"
echo "FULLBLOCK TEST PASSED"
EOF2

"$top/tests/vm/run" --kver "$kver" --ssds 1 --share "$share" \
	--target-setup-args "--nblocks 1 --value-inline-max 4096" -- 'sh /share/fullblock.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: a full block refuses with EFBIG and loses nothing"
exit 0
