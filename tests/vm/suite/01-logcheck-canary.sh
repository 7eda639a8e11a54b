#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 01-logcheck-canary: prove that the test bed's kernel log check can fail.
# Builds tests/vm/canary (a module whose init does WARN_ON(1)), loads it in
# the target VM with --target-cmd, and PASSES only if tests/vm/run then
# fails the run (status 97: kernel log check) and names the canary's
# WARNING.  Needs neither the scalio modules nor the tools.
# In the same run host1 runs user_gpf, a program that takes a general
# protection fault: the bed must show the kernel's "traps: user_gpf[PID]
# general protection fault" line as a user-space fault and must not count
# it (no kernel log report from host1), while the target's WARNING still
# fails the run.
# Usage: 01-logcheck-canary.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
kver=6.1
[ "${1:-}" = --kver ] && kver=${2:?}
krel=$(vm_krel "$kver")
[ -n "$krel" ] || { echo "SKIP: no $kver kernel installed"; exit 4; }

vm_build_extmod "$top/tests/vm/canary" "$krel" "$top/build/$krel/canary" ||
	{ echo "FAIL: canary module does not build"; exit 1; }
cc -O2 -Wall -o "$top/build/$krel/canary/user_gpf" "$top/tests/vm/canary/user_gpf.c" ||
	{ echo "FAIL: user_gpf does not build"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$top/tests/vm/run" --kver "$kver" --no-modules --no-tools --no-setup --ssds 1 \
	--target-cmd "insmod /scalio/build/$krel/canary/scalio_canary.ko" \
	-- "/scalio/build/$krel/canary/user_gpf; echo host up" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" != 97 ]; then
	echo "FAIL: tests/vm/run exited $rc, expected 97 (kernel log check failed)"
	exit 1
fi
if ! grep -q 'WARNING:.*scalio_canary' "$log"; then
	echo "FAIL: the log check failed, but did not report the canary's WARNING"
	exit 1
fi
if ! grep -q 'user-space fault in host1.dmesg.log.*traps: user_gpf\[[0-9]*\] general protection fault' "$log"; then
	echo "FAIL: the bed did not show host1's user-space fault (user_gpf)"
	exit 1
fi
if grep -q 'kernel log check: host1' "$log"; then
	echo "FAIL: host1's user-space fault was counted as a kernel report"
	exit 1
fi
echo "PASS: the log check caught the canary's WARNING and failed the run; host1's user-space fault was shown, not counted"
exit 0
