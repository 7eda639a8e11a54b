#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 13-fio: the fio ioengine (tools/fio/scalio-fio.so) against the real store.
# In host1 with kv0 attached, fio runs a mixed job (randrw 70/30, 1 KiB
# blocks, 2 jobs x 1500 I/Os, Zipfian keys) through the engine, then a
# verify job that writes 256 blocks and reads them back with fio's own
# md5 check.  fio's JSON report and the host counters of the store
# (`scalioctl stats --host-only --json`) taken before and after each job go
# to the share dir; on the build machine this script requires:
#   - fio exited 0 with no job error, and the verify job found no mismatch;
#   - the mixed job's completed reads == the store's GET delta and its
#     writes == the PUT delta (the engine does one ioctl per I/O, nothing
#     else touched the store), and both are non-zero;
#   - the host's errors counter did not move.
# Needs fio (make deps) and its source headers (scripts/fio-source.sh):
# without the engine built it fails, it does not skip.
# Usage: 13-fio.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

command -v fio > /dev/null || { echo "FAIL: fio is not installed (make deps)"; exit 1; }
make -C "$top/tools" > /dev/null ||
	{ echo "FAIL: make -C tools failed"; exit 1; }
[ -f "$top/tools/fio/scalio-fio.so" ] ||
	{ echo "FAIL: tools/fio/scalio-fio.so not built (scripts/fio-source.sh)"; exit 1; }

suite_share fio

cat > "$share/mixed.fio" << 'EOF'
[global]
ioengine=external:/scalio/tools/fio/scalio-fio.so
store=kv0
filename=scalio
size=4m
bs=1k
numjobs=2
thread
group_reporting
random_distribution=zipf:0.99

[mixed]
rw=randrw
rwmixread=70
number_ios=1500
iodepth=16
EOF
cat > "$share/verify.fio" << 'EOF'
[global]
ioengine=external:/scalio/tools/fio/scalio-fio.so
store=kv0
filename=scalio
size=256k
bs=1k

[verify]
iodepth=8
rw=randwrite
verify=md5
do_verify=1
verify_fatal=1
EOF

"$top/tests/vm/run" --kver "$kver" --share "$share" -- '
	set -e
	cd /share
	scalioctl stats kv0 --host-only --json > before.json
	fio --output-format=json --output=mixed.json mixed.fio
	scalioctl stats kv0 --host-only --json > after.json
	fio --output-format=json --output=verify.json verify.fio
	scalioctl stats kv0 --host-only --json > verified.json
	echo "# fio jobs done"'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }

python3 - "$share" << 'EOF'
import json, sys
d = sys.argv[1]
def load(n):
    with open(f"{d}/{n}") as f:
        txt = f.read()
    # fio may print notes before its JSON object
    return json.loads(txt[txt.index("{"):])
bad = []
b, a, v = load("before.json"), load("after.json"), load("verified.json")
mixed = load("mixed.json")["jobs"][0]
ver = load("verify.json")["jobs"][0]
reads, writes = mixed["read"]["total_ios"], mixed["write"]["total_ios"]
gets, puts = a["gets"] - b["gets"], a["puts"] - b["puts"]
print(f"# mixed: fio reads {reads} writes {writes}; store GETs {gets} PUTs {puts}")
print(f"# verify: fio writes {ver['write']['total_ios']} reads {ver['read']['total_ios']}, "
      f"store GETs {v['gets'] - a['gets']} PUTs {v['puts'] - a['puts']}")
if mixed["error"] or ver["error"]:
    bad.append(f"fio job error: mixed {mixed['error']}, verify {ver['error']}")
if not reads or not writes:
    bad.append("the mixed job did no reads or no writes")
if reads != gets:
    bad.append(f"fio reads {reads} != store GETs {gets}")
if writes != puts:
    bad.append(f"fio writes {writes} != store PUTs {puts}")
if ver["write"]["total_ios"] != 256 or ver["read"]["total_ios"] != 256:
    bad.append("the verify job did not write and read back 256 blocks")
if v["errors"] != b["errors"]:
    bad.append(f"host errors counter moved: {b['errors']} -> {v['errors']}")
for m in bad:
    print("FAIL:", m)
sys.exit(1 if bad else 0)
EOF
[ $? = 0 ] || exit 1
echo "PASS: fio mixed job ops match the store's counters; verify job clean"
exit 0
