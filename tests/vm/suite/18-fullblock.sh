#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 18-fullblock: a full hash block is its own error (-EFBIG), not a full
# log (-ENOSPC), and costs nothing already stored.
#
# A store of one hash block (--nblocks 1): every key lands in it, and its
# segment may not exceed 255 log units (about 1 MiB).  host1 PUTs 4 KiB
# values under new keys until a PUT fails; that PUT must fail with EFBIG
# ("File too large") after at least 200 keys, and then:
#   - every key acknowledged before reads back its value, and the refused
#     key is absent;
#   - shrinking a stored value (key0 to 1 byte) makes room: the refused
#     key then goes in; deleting one makes room for another;
#   - a restart of the target (kill, start, reattach) recovers exactly
#     that state; kernel logs stay clean.
# Usage: 18-fullblock.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

suite_share fullblock

cat > "$share/fullblock.sh" << 'EOF2'
set -u
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
fail() { echo "FAIL: $*"; exit 1; }
val() { printf '%-4096s' "value-$1"; }
# check_key KEY WANT: KEY reads back exactly WANT
check_key() {
	got=$(scalioctl get "$S" "$1") || fail "GET $1 failed"
	[ "$got" = "$2" ] || fail "GET $1: wrong value (${#got} bytes)"
}
check_all() {
	j=$1
	while [ "$j" -lt "$2" ]; do
		check_key "key$j" "$(val "$j")"
		j=$((j + 1))
	done
}

i=0
while scalioctl put "$S" "key$i" "$(val "$i")" 2> /tmp/err; do
	i=$((i + 1))
	[ $i -le 400 ] || fail "400 PUTs of 4 KiB into one block and no refusal"
done
echo "PUT key$i refused: $(cat /tmp/err)"
grep -q "File too large" /tmp/err || fail "the PUT that did not fit failed otherwise (want EFBIG)"
[ $i -ge 200 ] || fail "the block was full after only $i keys"
full=$i
scalioctl get "$S" "key$full" > /dev/null 2>&1 && fail "the refused key key$full is stored"
echo "$full keys of 4 KiB fit"

scalioctl put "$S" key0 x || fail "shrinking key0"
scalioctl put "$S" "key$full" "$(val "$full")" || fail "PUT key$full after key0 shrank"
scalioctl del "$S" key1 || fail "DELETE key1"
scalioctl put "$S" "key$((full + 1))" "$(val $((full + 1)))" ||
	fail "PUT key$((full + 1)) after key1 was deleted"
scalioctl put "$S" "key$((full + 2))" "$(val $((full + 2)))" 2> /tmp/err &&
	fail "the block took key$((full + 2)) too: it was full again"
grep -q "File too large" /tmp/err || fail "second refusal: $(cat /tmp/err)"

verify() {
	check_key key0 x
	scalioctl get "$S" key1 > /dev/null 2>&1 && fail "key1 is back after its DELETE"
	check_all 2 $((full + 2))
	scalioctl get "$S" "key$((full + 2))" > /dev/null 2>&1 && fail "a refused key is stored"
	echo "$1: the block's keys read back"
}
verify "before the restart"
hstat() { scalioctl stats "$S" --host-only | awk -v k="$1" '$1 == k { print $2 }'; }
rc0=$(hstat reconnects)
vmctl kill-target || fail kill-target
vmctl start-target || fail start-target
# The store stayed attached: the host reconnects by itself (hang guard).
n=0
while [ "$(hstat reconnects)" -le "$rc0" ]; do
	n=$((n + 1))
	[ $n -le 240 ] || fail "no reconnect within 120 s of the restart"
	sleep 0.5
done
verify "after the restart"
echo "FULLBLOCK TEST PASSED"
EOF2

"$top/tests/vm/run" --kver "$kver" --ssds 1 --share "$share" \
	--target-setup-args "--nblocks 1" -- 'sh /share/fullblock.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: a full block refuses with EFBIG and loses nothing"
exit 0
