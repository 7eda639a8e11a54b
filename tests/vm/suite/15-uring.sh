#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 15-uring: the io_uring interface of /dev/scalio/<store>.
#
# One boot: tests/selftests/scalio_uring (many GET/PUT/DELETE in flight
# with every value checked, the errno of each bad field, 128-byte SQEs and
# 32-byte CQEs, and a ring closed, a process exiting and a process
# SIGKILLed with up to 256 commands in flight), then DETACH of the store:
# it fails with -EBUSY while anything still holds the device, so it
# succeeding (abandoned rings are torn down asynchronously, and each
# command is bounded by its own timeouts: the test waits for it with no
# bound but the bed's hang guard) shows that no command leaked; then attach
# again, and the bed's teardown and kernel log check.
# Before the detach, scalio-ycsb --depth 64 (workload C, one thread, 500
# fresh records: 64 misses in flight at once, each a chain of up to 4
# work requests) and --depth 16 (workload F, 2 threads, every value
# checked): the store's GET and PUT counters must equal its ops.
# Usage: 15-uring.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$top/tests/vm/run" --kver "$kver" -- '
	S=${SCALIO_STORE:-kv0}
	# shellcheck source=tests/vm/guest/wait.sh
	. /scalio/tests/vm/guest/wait.sh
	make -C /scalio/tests run_tests TESTS=scalio_uring || exit 1
	# 64 GETs in flight from one thread, most of them misses: 64 chains
	# of up to 4 signaled work requests at once (a QP sized for one per
	# bounce buffer overflowed, and their completions were lost)
	scalio-ycsb --store "$S" --workload c --records 500 --ops 2000 \
		--threads 1 --depth 64 --load --run --quiet \
		> /tmp/c.out 2>&1 || { cat /tmp/c.out; dmesg | tail -n 20; exit 1; }
	grep -E "throughput|READ|hit ratio" /tmp/c.out
	scalio-ycsb --store "$S" --workload f --records 500 --ops 3000 \
		--threads 2 --depth 16 --load --run --quiet --json /tmp/y.json \
		> /tmp/y.out 2>&1 || {
		cat /tmp/y.out
		# what the host saw: the run report stops at the counters
		grep -i "error" /tmp/y.out | tail -n 5
		scalioctl stats "$S"
		dmesg | tail -n 40
		exit 1
	}
	grep -E "throughput|READ" /tmp/y.out
	python3 -c "
import json
r = json.load(open(\"/tmp/y.json\"))[\"phases\"][\"run\"]
lat, h = r[\"latency_us\"], r[\"host_delta\"]
n = lambda k: lat.get(k, {}).get(\"count\", 0)
print(\"# ycsb --depth 16: store GETs\", h[\"gets\"], \"PUTs\", h[\"puts\"])
assert r[\"errors\"] == 0 and r[\"ops\"] == 3000, r
assert h[\"gets\"] == n(\"READ\") + n(\"READ-MODIFY-WRITE\"), (h, lat)
assert h[\"puts\"] == n(\"READ-MODIFY-WRITE\"), (h, lat)" || exit 1
	WAIT_INTERVAL=1 wait_until "the store to detach (the rings torn down)" \
		scalioctl detach "$S" 2> /tmp/detach.err
	echo "# detached after ${wait_s} s"
	scalioctl attach "$S" --addr "$SCALIO_TARGET_ADDR" > /dev/null || exit 1
	echo "URING TEST PASSED"' 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
grep -q "^ok [0-9]* selftests: scalio: scalio_uring\$" "$log" ||
	{ echo "FAIL: scalio_uring did not pass (skipped or missing)"; exit 1; }
echo "PASS: scalio_uring, and the store detached cleanly afterwards"
exit 0
