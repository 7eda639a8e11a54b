#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of tests/vm/logcheck (TAP), on a real report of the debug lane
# (testdata/lockdep-nvmet.dmesg and -2.dmesg: stock nvmet/rdma_cm code, 11-crash
# and 30-linearizable at c41147b) and variants of it that must NOT pass: the same report with a
# scalio frame in it, with other locks, or next to another warning, and the
# release lane (no exemptions).
set -u
here=$(cd "$(dirname "$0")" && pwd)
lc=$here/logcheck
log=$here/testdata/lockdep-nvmet.dmesg
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
# check NAME WANT_RC [--debug] FILE
check() {
	local name=$1 want=$2 got
	shift 2
	"$lc" "$@" > "$tmp/out" 2> "$tmp/err"
	got=$?
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name (exit $got, want $want)"
		sed 's/^/#   /' "$tmp/out" "$tmp/err" | head -n 10
		failed=1
	fi
}
echo "1..8"
check "the stock nvmet lockdep report is cut out and named" 3 --debug "$log"
grep -q '^stock: nvmet-config-sem' "$tmp/err" || { echo "# no stock: line"; failed=1; }
[ ! -s "$tmp/out" ] || { echo "# lines printed for a stock report"; failed=1; }
check "the same report from 30-linearizable's final teardown is cut out" 3 --debug "$here/testdata/lockdep-nvmet-2.dmesg"
sed 's/nvmet_disable_port+0x128/scalio_rdma_store_disable+0x128/' "$log" > "$tmp/ours.log"
check "the same report with a scalio frame fails" 1 --debug "$tmp/ours.log"
sed 's/(nvmet_config_sem)/(other_sem)/g' "$log" > "$tmp/other.log"
check "a circular report between other locks fails" 1 --debug "$tmp/other.log"
{ cat "$log"; echo "[  300.000000] WARNING: CPU: 0 PID: 1 at target/rdma.c:10 x+0x1/0x2"; } > "$tmp/mixed.log"
check "another warning after the stock report fails" 1 --debug "$tmp/mixed.log"
check "the release lane exempts nothing" 1 "$log"
grep -v 'circular\|Call Trace\|lockdep\|WARNING' "$log" > "$tmp/clean.log"
check "a clean log passes" 0 --debug "$tmp/clean.log"
# A report cut short (no end of stack) is kept whole: not exempted.
sed '/<\/TASK>/,$d' "$log" | sed '/print_circular_bug/,$d' > "$tmp/cut.log"
echo "[  300.000000] scalio_target: scalio_conn_free+0x1/0x2" >> "$tmp/cut.log"
check "a truncated report with a scalio frame after it fails" 1 --debug "$tmp/cut.log"
exit $failed
