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
# Then, on the store fio filled, export / import (issue 36):
#   - tests/selftests/scalio_export: SCALIO_IOC_SCAN's hostile arguments
#     (exact errnos), 2000 pairs of 1..32-byte keys and 0..4096-byte values
#     put, a fifth deleted, a fifth rewritten, `scalioctl export` read back
#     from its documented layout (each live pair once with its last value,
#     no deleted one), every key deleted and the empty store exported,
#     `scalioctl import`, a GET of every key;
#   - a damaged segment: a canary value of 118 bytes PUT (inline in its
#     segment: at most value_inline_max 128; a longer value is in a value
#     extent, whose damage 26-vsep tests), one byte of it changed on the
#     SSD (found with scalio_ondisk, written through the host's NVMe-oF
#     namespace): `scalioctl export` must fail naming its bucket
#     (EIO), and leave a file that import refuses; `export
#     --skip-damaged` must skip that bucket (exit 3, naming it) and write
#     a whole file with fewer pairs than the repaired store's export;
#     with the byte put back the canary reads back.
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
make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }
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

cat > "$share/export.sh" << 'EOF'
set -u
S=kv0
T0=$(date +%s)
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
step "scalio_export: SCAN arguments, round trip"
/scalio/tests/selftests/scalio_export $S /share || fail "scalio_export"
rm -f /share/e1 /share/e2

step "a damaged segment"
# Inline in the segment (format 5: up to value_inline_max, 128 bytes), so
# that the damage is the segment's, not a value extent's.
v=$(i=0; while [ $i -lt 9 ]; do printf 'EXPORTCANARY-'; i=$((i + 1)); done; printf '!')
[ ${#v} = 118 ] || fail "canary of ${#v} bytes"
scalioctl put $S exportcanary "$v" || fail "put of the canary"
# The canary's segment is in the newest batch of its SSD (nothing else
# writes now): read each SSD's last batch through the host's namespace.
at=
for d in $(ls /dev/nvme*n* | grep -v 'c[0-9]*n'); do
	blockdev --flushbufs "$d"
	/scalio/tests/selftests/scalio_ondisk "$d" > /tmp/ondisk.out || continue
	last=$(awk '/^batch /{u=$3; n=$4} END{sub("unit=","",u); sub("units=","",n); if (u != "") print u, n}' /tmp/ondisk.out)
	if [ -z "$last" ]; then
		tail=$(sed -n 's/^ckpt .* tail=\([0-9]*\) .*/\1/p' /tmp/ondisk.out | sort -n | tail -1)
		last="$((tail > 512 ? tail - 512 : 0)) 512"
	fi
	set -- $last
	off=$(dd if="$d" bs=4096 skip="$1" count="$2" iflag=direct status=none |
		grep -obaF EXPORTCANARY- | tail -1 | cut -d: -f1)
	[ -n "$off" ] && { at=$(($1 * 4096 + off)); dev=$d; break; }
done
[ -n "$at" ] || fail "canary not found in the last batch of any SSD"
# $at is the value's last mark (104 bytes in): damage a byte 60 before.
p=$((at - 60)) u=$(((at - 60) / 4096))
echo "# canary value on $dev ends at byte $at: damaging byte $p (unit $u)"
dd if="$dev" of=/tmp/unit.orig bs=4096 skip=$u count=1 iflag=direct status=none || fail "read unit $u"
cp /tmp/unit.orig /tmp/unit.bad
printf 'x' | dd of=/tmp/unit.bad bs=1 seek=$((p % 4096)) conv=notrunc status=none
dd if=/tmp/unit.bad of="$dev" bs=4096 seek=$u count=1 oflag=direct conv=fsync status=none ||
	fail "write unit $u"
scalioctl export -q $S /tmp/e4 2> /tmp/e4.err; rc=$?
cat /tmp/e4.err
scalioctl export -q --skip-damaged $S /tmp/e5 2> /tmp/e5.err; rc5=$?
cat /tmp/e5.err
dd if=/tmp/unit.orig of="$dev" bs=4096 seek=$u count=1 oflag=direct conv=fsync status=none ||
	fail "restore unit $u"
[ $rc != 0 ] || fail "the export of a store with a damaged segment succeeded (exit 0)"
[ $rc = 3 ] && grep -q "bucket [0-9]* (scan position [0-9]* of [0-9]*): SCALIO_IOC_SCAN: Input/output error" /tmp/e4.err ||
	fail "the export of a damaged segment did not fail with EIO naming its bucket (exit $rc)"
! scalioctl import --check /tmp/e4 > /dev/null 2>&1 || fail "the failed export's file imports"
rm -f /tmp/e4
# --skip-damaged: the rest of the store in a whole file, the status still 3.
[ $rc5 = 3 ] && grep -q "bucket [0-9]* (scan position [0-9]* of [0-9]*) is damaged: skipped" /tmp/e5.err &&
	grep -q "1 damaged bucket(s) skipped" /tmp/e5.err ||
	fail "export --skip-damaged of one damaged segment: exit $rc5, not 3 naming the skipped bucket"
n5=$(scalioctl import --check /tmp/e5 2>&1 | sed -n 's/.*intact: \([0-9]*\) pairs.*/\1/p')
[ -n "$n5" ] || fail "the --skip-damaged export's file does not pass import --check"
scalioctl export -q $S /tmp/e6 || fail "the export of the repaired store"
n6=$(scalioctl import --check /tmp/e6 2>&1 | sed -n 's/.*intact: \([0-9]*\) pairs.*/\1/p')
[ -n "$n6" ] && [ "$n5" -lt "$n6" ] ||
	fail "export --skip-damaged wrote $n5 pairs, the repaired store ${n6:-?}: the damaged bucket's pairs are not missing"
echo "# export --skip-damaged: $n5 of the $n6 pairs (one bucket skipped)"
rm -f /tmp/e5 /tmp/e6
# (A whole export of the intact store: scalio_export above.)
[ "$(scalioctl get $S exportcanary)" = "$v" ] || fail "the repaired canary does not read back"
scalioctl del $S exportcanary || fail "del of the canary"
step "export: done"
EOF

"$top/tests/vm/run" --kver "$kver" --share "$share" -- '
	set -e
	cd /share
	scalioctl stats kv0 --host-only --json > before.json
	fio --output-format=json --output=mixed.json mixed.fio
	scalioctl stats kv0 --host-only --json > after.json
	fio --output-format=json --output=verify.json verify.fio
	scalioctl stats kv0 --host-only --json > verified.json
	echo "# fio jobs done"
	sh /share/export.sh'
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
