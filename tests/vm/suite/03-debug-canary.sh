#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 03-debug-canary: prove that the debug-kernel lane (--kver 6.1-debug) has
# its checkers on and that its checks fail a run.  Builds
# tests/vm/debug-kernel/canary against the debug kernel, loads it in the
# target VM with a use-after-free, a lock-order inversion, an out-of-range
# shift and a leak, and PASSES only if tests/vm/run then fails the run
# (status 97) naming KASAN's (or KFENCE's), lockdep's and UBSAN's reports
# and the kmemleak check's scalio leak.  Skips on the other lanes (their kernels
# have none of these checkers: that is why the lane exists).
# Usage: 03-debug-canary.sh [--kver 6.1-debug]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
kver=6.1
[ "${1:-}" = --kver ] && kver=${2:?}
vm_is_debug "$kver" || { echo "SKIP: only on the debug-kernel lane (--kver 6.1-debug)"; exit 4; }
krel=$(vm_krel "$kver")
[ -n "$krel" ] || { echo "SKIP: the debug kernel does not build"; exit 4; }

vm_build_extmod "$top/tests/vm/debug-kernel/canary" "$krel" "$top/build/$krel/debug-canary" ||
	{ echo "FAIL: the canary module does not build"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$top/tests/vm/run" --kver "$kver" --no-modules --no-tools --no-setup --ssds 1 \
	--target-cmd "insmod /scalio/build/$krel/debug-canary/scalio_debug_canary.ko uaf=1 inversion=1 shift=40 leak=1" \
	-- 'echo host up' 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" != 97 ]; then
	echo "FAIL: tests/vm/run exited $rc, expected 97 (kernel log or leak check failed)"
	exit 1
fi
fail=0
# The use-after-free is KASAN's to report, unless KFENCE sampled that
# allocation (one in every kfence.sample_interval ms): then KFENCE reports
# it and KASAN, which does not check KFENCE's objects, stays silent.
for want in 'BUG: (KASAN: use-after-free in|KFENCE: use-after-free read in) canary_read' \
	    'WARNING: possible circular locking dependency detected' \
	    'UBSAN: shift-out-of-bounds in .*scalio_debug_canary' \
	    'kmemleak: target leaked memory from scalio code' \
	    'canary_leak'; do
	grep -qE -- "$want" "$log" && continue
	echo "FAIL: the run did not report: $want"
	fail=1
done
[ $fail = 0 ] || exit 1
echo "PASS: KASAN, lockdep, UBSAN and the kmemleak check each caught the canary's bug"
exit 0
