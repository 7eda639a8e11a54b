#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 02-leak: attach/detach does not leak.  Debian's kernels have no kmemleak,
# so this measures: in host1, 3 warm-up cycles of detach + attach + PUT +
# GET, then the bytes held in the kmalloc-* slabs (active objects x object
# size, /proc/slabinfo) on host1 and on the target, 12 more cycles, and the
# same bytes again.  Each cycle builds and tears down a whole connection on
# both sides (host: about 1 MiB of message and bounce buffers; target:
# about 500 KiB, its receive buffers and the request buffers it used) and
# the NVMe-oF bindings, so a leak of any of them grows by that much per
# cycle (12 times that over the run); the noise seen across 12 cycles is
# under 100 KiB.  Fails when either side grew by SCALIO_LEAK_MAX_KB (default
# 1024) or more.  Small objects leaked once per cycle stay under the noise:
# this guards against leaking what a connection is made of.  On the debug
# lane (6.1-debug) 4 cycles instead of 12: kmemleak, run after every test
# there, finds even one leaked object, and a leaked connection still grows
# a side by more than the limit in 4 cycles.
# Usage: 02-leak.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
max_kb=${SCALIO_LEAK_MAX_KB:-1024}
cycles=12
vm_is_debug "$kver" && cycles=4

suite_share leak

cat > "$share/leak.sh" << EOF
set -u
S=\${SCALIO_STORE:-kv0}
A=\${SCALIO_TARGET_ADDR:-10.77.0.1}
MAX=$max_kb
N=$cycles
fail() { echo "FAIL: \$*"; exit 1; }
slab='awk '"'"'NR > 2 && \$1 ~ /^kmalloc-/ { s += \$2 * \$4 } END { print s }'"'"' /proc/slabinfo'
cycle() {
	scalioctl detach \$S || fail "detach (cycle \$1)"
	scalioctl attach \$S --addr \$A || fail "attach (cycle \$1)"
	scalioctl put \$S leak.k "v\$1" || fail "put (cycle \$1)"
	[ "\$(scalioctl get \$S leak.k)" = "v\$1" ] || fail "get (cycle \$1)"
}
for i in 1 2 3; do cycle \$i; done
h0=\$(sh -c "\$slab") && t0=\$(vmctl exec-target "\$slab") || fail "reading slabinfo"
i=4
while [ \$i -le \$((N + 3)) ]; do cycle \$i; i=\$((i + 1)); done
h1=\$(sh -c "\$slab") && t1=\$(vmctl exec-target "\$slab") || fail "reading slabinfo"
dh=\$(( (h1 - h0) / 1024 ))
dt=\$(( (t1 - t0) / 1024 ))
echo "# kmalloc slabs over \$N attach/detach cycles: host1 \$((h0 / 1024)) -> \$((h1 / 1024)) KiB (\$dh KiB), target \$((t0 / 1024)) -> \$((t1 / 1024)) KiB (\$dt KiB); limit \$MAX KiB"
[ \$dh -lt \$MAX ] || fail "host1 grew by \$dh KiB over \$N cycles: a leak"
[ \$dt -lt \$MAX ] || fail "target grew by \$dt KiB over \$N cycles: a leak"
scalioctl del \$S leak.k || fail "del"
echo "LEAK TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --share "$share" -- 'sh /share/leak.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: $cycles attach/detach cycles left the kmalloc slabs of both VMs within ${max_kb} KiB"
exit 0
