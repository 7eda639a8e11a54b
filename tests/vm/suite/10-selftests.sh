#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 10-selftests: the kselftests of tests/selftests against the real modules.
# Builds them on the build machine (make -C tests: the VMs have no
# compiler), then in host1 with kv0 attached runs `make -C /scalio/tests
# run_tests`:
#   scalio_uapi       every ioctl's failure classes (exact errnos) + fuzz
#   scalio_stress     8 threads x 10,000 mixed GET/PUT/DELETE ops, every
#                     result checked against a per-key model
#   scalioctl_cli.sh  the scalioctl command-line contract
# Passes only when all three report ok and none was skipped (a skip would
# mean the store was not attached).  STRESS_ARGS overrides the stress size
# (default "-t 8 -n 10000", the issue's acceptance size; "-t 8 -n 2500" on
# the debug-kernel lane, where its checkers need every path, not the
# volume).
# Usage: 10-selftests.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
stress=${STRESS_ARGS:--t 8 -n 10000}
vm_is_debug "$kver" && stress=${STRESS_ARGS:--t 8 -n 2500}

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# 8 x 10,000 ops take about 6-7 minutes under TCG; the hang guard leaves
# room for a busy machine.
"$top/tests/vm/run" --kver "$kver" --timeout 1800 -- "
	t0=\$(date +%s)
	make -C /scalio/tests run_tests STRESS_ARGS='$stress'
	rc=\$?
	echo \"# run_tests: exit \$rc in \$((\$(date +%s) - t0)) s\"
	exit \$rc" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
for t in scalio_uapi scalio_uring scalio_stress scalioctl_cli.sh; do
	if ! grep -q "^ok [0-9]* selftests: scalio: $t\$" "$log"; then
		echo "FAIL: $t did not pass (skipped or missing)"
		exit 1
	fi
done
echo "PASS: scalio_uapi, scalio_uring, scalio_stress ($stress), scalioctl_cli.sh"
exit 0
