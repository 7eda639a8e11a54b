#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 26-vsep: key-value separation (on-SSD format 5) seen from a host: values
# above the store's value_inline_max live in value extents, which a GET
# miss (and SCAN) follows from the key's record, checked against the key
# and the pointer (Documentation/protocol.rst, GET step 5).
#
# One boot, one SSD of 16,450 KiB (a log just above the target's minimum
# of 4,096 units, so that one lap of writes reuses every unit), 64 cache
# blocks, 256 buckets:
#   a. values of 0 to 4,096 bytes around value_inline_max 128 are PUT and
#      read back exactly: a miss (get_val_reads and the target's
#      vals_written count the extents), again (cache hits for values of up
#      to 72 bytes); after a store re-enable (recovery) through the
#      target's RPC GET (offload_read=0 inline_cache=0); after another,
#      with value_inline_max 40, new values around 40: a miss, again
#      (extents of 41..72 bytes are cache hits); then every pair by
#      `scalioctl export`, whose file must hold exactly these.
#   b. the relocation race: host1 GETs K1 and K2 (4 KiB extents) with
#      debug_vread_delay_ms held, so both stop between their segment read
#      and their extent read.  K1 is overwritten; other keys are churned
#      until K1's old extent is overwritten and K2's holds another key's
#      extent (the test reads the SSD to see it; K2, not overwritten, was
#      moved by the cleaner).  Released, K1's GET must return its old or
#      new value and K2's its value, never the bytes now there, and
#      get_val_stale must have moved for each extent of another key met.
#      A record's pointer past the end of the SSD (forged in the target,
#      its segment's crc sealed again): the GET fails with EIO naming it,
#      without reading there; so does the target's RPC GET (offload_read
#      0), which refuses it as outside its log and reads nothing past the
#      SSD's end.
#   c. the target's counters show values going to extents and moving.
#   d. a damaged extent (a byte flipped in the target): the GET fails
#      with EIO and a line naming the extent, export fails naming the
#      bucket, export --skip-damaged skips only it.
# Controls: tests/vm/controls/26-vsep.no-val-identity.patch (the extent
# check without key and pointer) must make b fail;
# 26-vsep.no-tgt-val-bound.patch (the target's bound on a pointer
# removed) must make a's RPC GET step fail.  Kernel logs must be
# clean.
# Usage: 26-vsep.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }
suite_share vsep

cat > "$share/vsep.py" << 'EOF2'
#!/usr/bin/python3
"""26-vsep's helpers: values, on-SSD value extents, export files.

  gen DIR KEY:SIZE...      DIR/KEY.SIZE: hex of KEY's value of SIZE bytes
  find DEV KEY...          "POS GEN" of each KEY's newest extent on DEV
  at DEV [POS KEY GEN]...  what is at byte POS of DEV, one word per POS:
                           "same" (KEY's extent of generation GEN),
                           "ext:KEY2:GEN2" (another extent), or "other"
  flip DEV POS             flip the byte at POS (in the target)
  forge DEV KEY POS        point KEY's record in its newest segment to
                           byte POS, crc sealed again (in the target);
                           print the segment's byte address
  export FILE DIR          FILE (scalioctl export) must hold exactly the
                           pairs KEY=DIR/cur.KEY

Devices are read and written with O_DIRECT.  An extent (struct
scalio_val_hdr): "SVAL", klen, flags, reserved (2), len, crc, gen (8),
the key, the value.
"""
import hashlib
import mmap
import os
import struct
import sys

HDR = 24


def value(key, size):
    out = b""
    n = 0
    while len(out) < size:
        out += hashlib.sha256(b"%s/%d/%d" % (key.encode(), size, n)).digest()
        n += 1
    return out[:size]


def devsize(dev):
    fd = os.open(dev, os.O_RDONLY)
    try:
        return os.lseek(fd, 0, os.SEEK_END)
    finally:
        os.close(fd)


def pread(dev, pos, length):
    first = pos & ~4095
    n = (pos + length - first + 4095) & ~4095
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    try:
        buf = mmap.mmap(-1, n)
        got = os.preadv(fd, [buf], first)
        return bytes(buf[:got])[pos - first:pos - first + length]
    finally:
        os.close(fd)


def extent_at(data, off):
    if data[off:off + 4] != b"SVAL" or len(data) < off + HDR:
        return None
    klen, flags, _r, vlen, _c, gen = struct.unpack_from("<BBHIIQ", data, off + 4)
    if not 1 <= klen <= 32 or flags or not 1 <= vlen <= 4096:
        return None
    return data[off + HDR:off + HDR + klen], gen


def cmd_gen(d, *pairs):
    for p in pairs:
        key, s = p.split(":")
        with open("%s/%s.%s" % (d, key, s), "w") as f:
            f.write(value(key, int(s)).hex())


def cmd_find(dev, *keys):
    size, chunk = devsize(dev), 1 << 20
    best = {k.encode(): None for k in keys}
    for base in range(0, size, chunk):
        data = pread(dev, base, min(chunk + 64, size - base))
        i = data.find(b"SVAL")
        while 0 <= i < chunk:
            e = extent_at(data, i)
            if e and e[0] in best and (not best[e[0]] or e[1] > best[e[0]][1]):
                best[e[0]] = (base + i, e[1])
            i = data.find(b"SVAL", i + 1)
    for k in keys:
        if not best[k.encode()]:
            sys.exit("no extent of key %s on %s" % (k, dev))
        print(*best[k.encode()])


def cmd_at(dev, *args):
    out = []
    for i in range(0, len(args), 3):
        pos, key, gen = int(args[i]), args[i + 1], int(args[i + 2])
        e = extent_at(pread(dev, pos, HDR + 32), 0)
        if e is None:
            out.append("other")
        elif e[0] == key.encode() and e[1] == gen:
            out.append("same")
        else:
            out.append("ext:%s:%d" % (e[0].decode(errors="replace"), e[1]))
    print(*out)


def cmd_flip(dev, pos):
    pos = int(pos)
    first = pos & ~4095
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    try:
        buf = mmap.mmap(-1, 4096)
        os.preadv(fd, [buf], first)
        buf[pos - first] ^= 0xff
        os.pwritev(fd, [buf], first)
        os.fsync(fd)
    finally:
        os.close(fd)


def crc32c(data):
    crc = 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1))
    return crc ^ 0xffffffff


def cmd_forge(dev, key, newpos):
    """struct scalio_seg_hdr: "SSEG", bucket, gen (8), nr_records, len,
    crc, val_bytes; records: klen, flags (1: a struct scalio_vptr value),
    vlen (2), key, value."""
    size, chunk, best = devsize(dev), 1 << 20, None
    for base in range(0, size, chunk):
        data = pread(dev, base, min(chunk, size - base))
        i = data.find(b"SSEG")
        while i >= 0:
            if i % 512 == 0 and i + 32 <= len(data):
                _b, gen, nr, ln = struct.unpack_from("<IQII", data, i + 4)
                p = i + 32
                for _ in range(nr if ln <= 65536 else 0):
                    if p + 4 > len(data):
                        break
                    klen, fl, vlen = struct.unpack_from("<BBH", data, p)
                    if data[p + 4:p + 4 + klen] == key.encode() and fl & 1 \
                            and (not best or gen > best[1]):
                        best = (base + i, gen, ln, p + 4 + klen - i)
                    p += 4 + klen + vlen
            i = data.find(b"SSEG", i + 1)
    if not best:
        sys.exit("no segment with a value pointer of %s" % key)
    pos, _gen, ln, voff = best
    first = pos & ~4095
    n = (pos + ln - first + 4095) & ~4095
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    try:
        buf = mmap.mmap(-1, n)
        os.preadv(fd, [buf], first)
        s = pos - first
        struct.pack_into("<Q", buf, s + voff, int(newpos))
        struct.pack_into("<I", buf, s + 24, 0)
        struct.pack_into("<I", buf, s + 24, crc32c(bytes(buf[s:s + ln])))
        os.pwritev(fd, [buf], first)
        os.fsync(fd)
    finally:
        os.close(fd)
    print(pos)


def cmd_export(path, d):
    want = {}
    for n in os.listdir(d):
        if n.startswith("cur."):
            with open("%s/%s" % (d, n)) as f:
                want[n[4:].encode()] = bytes.fromhex(f.read())
    data = open(path, "rb").read()
    if data[:8] != b"SCALIOEX":
        sys.exit("%s: not an export file" % path)
    off, got = struct.unpack_from("<I", data, 12)[0], {}
    while data[off:off + 4] == b"PAIR":
        n, plen = struct.unpack_from("<II", data, off + 4)
        p = off + 24
        for _ in range(n):
            klen, _f, vlen = struct.unpack_from("<BBH", data, p)
            k = data[p + 4:p + 4 + klen]
            if k in got:
                sys.exit("key %r exported twice" % k)
            got[k] = data[p + 4 + klen:p + 4 + klen + vlen]
            p += 4 + klen + vlen
        off += 24 + plen
    if data[off:off + 4] != b"TAIL":
        sys.exit("no trailer after the frames")
    bad = [k.decode() for k in want if got.get(k) != want[k]]
    extra = [k.decode() for k in got if k not in want]
    if bad or extra:
        sys.exit("export: %d pairs wrong or missing (%s), %d unexpected (%s)"
                 % (len(bad), " ".join(bad[:5]), len(extra), " ".join(extra[:5])))
    print(len(got))


globals()["cmd_" + sys.argv[1]](*sys.argv[2:])
EOF2

cat > "$share/vsep.sh" << 'EOF2'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
P=/sys/module/scalio_host/parameters
X=/scalio/tests/selftests/scalio_crash
PY="python3 /share/vsep.py"
E=/tmp/exp
T0=$(date +%s)
fail() { echo "FAIL: $*"; echo 0 > $P/debug_vread_delay_ms; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
# snap: the store's counters into J (one stats call); c NAME: one of them
# (target_NAME for the target's)
snap() { J=$(scalioctl stats --json "$S") || fail "scalioctl stats"; }
c() { echo "$J" | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p"; }
hstat() { snap; c "$1"; }
tstat() { snap; c "target_$1"; }
khex() { printf %s "$1" | od -An -v -tx1 | tr -d ' \n'; }
# tset ATTR=VALUE...: the store re-enabled with them (recovery runs)
tset() {
	scalioctl detach "$S" > /dev/null || fail detach
	vmctl exec-target "scalioctl target-set --store $S $*" > /dev/null ||
		fail "target-set $*"
	scalioctl attach "$S" --addr "$A" > /dev/null || fail "attach after $*"
}
# put KEY SIZE: KEY gets its value of SIZE bytes; the last one is E/KEY
put() {
	scalioctl put --hex "$S" "$(khex "$1")" "$(cat $E/"$1.$2")" > /dev/null ||
		fail "PUT $1 ($2 bytes)"
	cp $E/"$1.$2" $E/cur."$1"
}
# get KEY WHAT: KEY must read back its last value
get() {
	local got

	got=$(scalioctl get --hex "$S" "$(khex "$1")") || fail "GET $1 ($2)"
	[ "$got" = "$(cat $E/cur."$1")" ] ||
		fail "GET $1 ($2): ${#got} hex digits, not its value ($(wc -c < $E/cur."$1"))"
}
# pass WHAT KEY...: GET each key; sets d_vr, d_hit, d_rpc (counter deltas)
pass() {
	local what=$1 vr hit rpc k
	shift
	snap
	vr=$(c get_val_reads) hit=$(c cache_hits) rpc=$(c rpc_gets)
	for k in "$@"; do
		get "$k" "$what"
	done
	snap
	d_vr=$(( $(c get_val_reads) - vr )) d_hit=$(( $(c cache_hits) - hit ))
	d_rpc=$(( $(c rpc_gets) - rpc ))
	echo "# $what: $# GETs, get_val_reads +$d_vr, cache_hits +$d_hit, rpc_gets +$d_rpc"
}
# expect WHAT NAME GOT WANT
expect() { [ "$3" = "$4" ] || fail "$1: $2 $3, expected $4"; }
# count MIN MAX SIZE...: how many SIZEs are in MIN..MAX
count() {
	local lo=$1 hi=$2 n=0 s
	shift 2
	for s in "$@"; do
		[ "$s" -ge "$lo" ] && [ "$s" -le "$hi" ] && n=$((n + 1))
	done
	echo $n
}

[ -e $P/debug_vread_delay_ms ] || fail "scalio_host has no debug_vread_delay_ms (not a test build)"
DEV=$(ls /dev/nvme*n1 2> /dev/null | head -n 1)
[ -b "$DEV" ] || fail "no NVMe-oF namespace in host1"
mkdir -p $E
# tpy ARGS: vsep.py in the target, on its SSD (read locally: faster than
# over NVMe-oF); the target has no /share, so the helper goes along
vmctl exec-target "echo $(base64 -w0 /share/vsep.py) | base64 -d > /tmp/vsep.py" ||
	fail "copying vsep.py to the target"
tpy() {
	local cmd=$1
	shift
	vmctl exec-target "python3 /tmp/vsep.py $cmd \${SCALIO_SSDS%% *} $*"
}
TA=/sys/kernel/config/scalio/stores/$S/attr_value_inline_max
expect "the store" value_inline_max "$(vmctl exec-target "cat $TA")" 128

step "a. values around value_inline_max 128: PUT, miss, GET again"
SA="0 1 72 73 127 128 129 200 3000 4095 4096"
SB="40 41 56 72 73 4096"
AK="" BK="" G=""
for s in $SA; do AK="$AK a$s" G="$G a$s:$s"; done
for s in $SB; do BK="$BK b$s" G="$G b$s:$s"; done
# shellcheck disable=SC2086
$PY gen $E $G || fail "gen"
vw=$(tstat vals_written)
[ -n "$vw" ] || fail "no target_vals_written in scalioctl stats"
for s in $SA; do put "a$s" "$s"; done
# shellcheck disable=SC2086
nx=$(count 129 4096 $SA)
expect "PUTs" "target vals_written +" $(( $(tstat vals_written) - vw )) "$nx"
# shellcheck disable=SC2086
pass "misses" $AK
expect misses "get_val_reads +" "$d_vr" "$nx"
expect misses "cache_hits +" "$d_hit" 0
# shellcheck disable=SC2086
pass "again" $AK
expect again "cache_hits +" "$d_hit" "$(count 0 72 $SA)"
expect again "get_val_reads +" "$d_vr" "$nx"

step "a. re-enabled (recovery) with value_inline_max 40, GETs by RPC"
tset value_inline_max=40 offload_read=0 inline_cache=0
# shellcheck disable=SC2086
pass "by RPC" $AK
expect "by RPC" "rpc_gets +" "$d_rpc" "$(echo "$AK" | wc -w)"
expect "by RPC" "get_val_reads +" "$d_vr" 0

step "a. re-enabled at 40 with the inline cache: new values around 40"
tset offload_read=1 inline_cache=1
vw=$(tstat vals_written)
for s in $SB; do put "b$s" "$s"; done
# shellcheck disable=SC2086
nx=$(count 41 4096 $SB)
expect "PUTs at 40" "target vals_written +" $(( $(tstat vals_written) - vw )) "$nx"
# shellcheck disable=SC2086
pass "misses at 40" $BK
expect "misses at 40" "get_val_reads +" "$d_vr" "$nx"
# extents of 41..72 bytes are cached in the slots like inline values
# shellcheck disable=SC2086
pass "again at 40" $BK
expect "again at 40" "cache_hits +" "$d_hit" "$(count 0 72 $SB)"
expect "again at 40" "get_val_reads +" "$d_vr" "$(count 73 4096 $SB)"

step "a. scalioctl export: every pair, values from their extents"
scalioctl export "$S" /tmp/a.exp > /tmp/export.out 2>&1 ||
	{ cat /tmp/export.out; fail "export"; }
n=$($PY export /tmp/a.exp $E) || fail "the export file"
echo "# export: $n pairs, each with its value"

step "a. a pointer past the SSD, in an intact segment (forged in the target)"
$PY gen $E k3:500 || fail gen
put k3 500
get k3 "before the forgery"
end=$(vmctl exec-target "blockdev --getsize64 \${SCALIO_SSDS%% *}") || fail "SSD size"
sp=$(tpy forge k3 "$end") || fail "forging k3's segment"
echo "# k3's segment at byte $sp now points to byte $end, the SSD's end"
out=$(scalioctl get --hex "$S" "$(khex k3)" 2>&1) && fail "GET of k3 past the SSD succeeded"
echo "$out" | grep -q "Input/output error" || fail "GET of k3 past the SSD: $out (not EIO)"
dmesg | grep -q "value extent at byte $end .* is damaged" ||
	fail "no log line naming k3's extent at byte $end"
step "a. the same pointer through the target's RPC GET"
tset offload_read=0 inline_cache=0
snap
rpc=$(c rpc_gets)
out=$(scalioctl get --hex "$S" "$(khex k3)" 2>&1) && fail "RPC GET of k3 past the SSD succeeded"
echo "$out" | grep -q "Input/output error" || fail "RPC GET of k3 past the SSD: $out (not EIO)"
expect "RPC GET of k3" "rpc_gets +" $(( $(hstat rpc_gets) - rpc )) 1
vmctl exec-target dmesg > /tmp/tdmesg || fail "the target's kernel log"
grep "value extent at byte $end " /tmp/tdmesg
grep -q "value extent at byte $end .* points outside the log" /tmp/tdmesg ||
	fail "the target did not refuse k3's pointer as outside its log"
! grep "beyond end of device" /tmp/tdmesg ||
	fail "the target read past its SSD's end for k3's pointer"
tset offload_read=1 inline_cache=1
put k3 500
get k3 "rewritten after the forgery"

step "b. the relocation race: GETs held between segment and extent read"
# K1 and K2: 4 KiB extents (24 + 2 + 4070 bytes), each a unit's second
# sector, as are the churn's (24 + 5 + 4064, padded to 8)
$PY gen $E k1:4070 k2:4070 k1x:4070 || fail gen
put k1 4070
put k2 4070
f=$(tpy find k1 k2) || fail "the extents of k1 and k2 not found"
read -r p1 g1 p2 g2 <<< "$(tr "\n" " " <<< "$f")"
echo "# k1's extent at byte $p1 (gen $g1), k2's at $p2 (gen $g2)"
snap
st0=$(c get_val_stale) sr=$(c ssd_reads) vr=$(c get_val_reads)
mv0=$(c target_vals_moved)
echo 600000 > $P/debug_vread_delay_ms || fail "setting debug_vread_delay_ms"
for k in k1 k2; do
	( scalioctl get --hex "$S" "$(khex $k)" > /tmp/$k.out 2> /tmp/$k.err
	  echo $? > /tmp/$k.rc ) &
done
held() {
	[ ! -e /tmp/k1.rc ] && [ ! -e /tmp/k2.rc ] ||
		never "a GET returned: $(cat /tmp/k*.err)"
	[ $(( $(hstat ssd_reads) - sr )) -ge 2 ]
}
wait_until "both GETs between their segment and extent reads" held ||
	fail "the GETs did not stop before their extent reads"
expect "held GETs" "get_val_reads +" $(( $(hstat get_val_reads) - vr )) 0
# K1 overwritten: its old extent is garbage; K2 stays, the cleaner moves it
scalioctl put --hex "$S" "$(khex k1)" "$(cat $E/k1x.4070)" > /dev/null ||
	fail "PUT k1 (new value)"
total=$(tstat log_total_units)
churned=0 a1=same a2=same
while :; do
	read -r a1 a2 <<< "$($PY at "$DEV" "$p1" k1 "$g1" "$p2" k2 "$g2")"
	# k1's place reused by anything, k2's by another extent: a batch
	# of n PUTs has one at the second sector of n of its n + 1 units
	[ "$a1" != same ] && case "$a2" in ext:*) true ;; *) false ;; esac &&
		break
	[ $churned -lt $((6 * total)) ] ||
		fail "after $churned churn PUTs (6 laps of $total units): k1's old extent unit holds '$a1', k2's '$a2', not another key's extent"
	$X write -l /tmp/churn -p c -t 16 -k 4 -V 4064 -v 4064 -F -n 32 \
		> /tmp/churn.out 2>&1 || { cat /tmp/churn.out; fail "churn PUTs"; }
	churned=$((churned + 512))
done
echo "# after $churned churn PUTs: at k1's old extent '$a1', at k2's '$a2'"
echo 0 > $P/debug_vread_delay_ms
done_gets() { [ -e /tmp/k1.rc ] && [ -e /tmp/k2.rc ]; }
wait_until "the released GETs" done_gets
for k in k1 k2; do
	[ "$(cat /tmp/$k.rc)" = 0 ] || fail "the held GET of $k failed: $(cat /tmp/$k.err)"
done
got=$(cat /tmp/k1.out)
[ "$got" = "$(cat $E/k1.4070)" ] || [ "$got" = "$(cat $E/k1x.4070)" ] ||
	fail "the held GET of k1 returned neither of its values (${got:0:32}...)"
[ "$(cat /tmp/k2.out)" = "$(cat $E/k2.4070)" ] ||
	fail "the held GET of k2 returned other bytes than its value ($(head -c 32 /tmp/k2.out)...)"
st=$(( $(hstat get_val_stale) - st0 ))
echo "# get_val_stale +$st, header_mismatches $(hstat header_mismatches)"
want=1
case "$a1" in ext:*) want=2 ;; esac
[ "$st" -ge $want ] ||
	fail "get_val_stale +$st, expected $want: the GETs did not see their extents moved"
cp $E/k1x.4070 $E/cur.k1
get k1 "after the race"
get k2 "after the race"

step "c. the target's counters"
mv=$(( $(tstat vals_moved) - mv0 ))
echo "# vals_written $(tstat vals_written), val_bytes_written $(tstat val_bytes_written), vals_moved +$mv, live_val_bytes $(tstat live_val_bytes), cleaner_runs $(tstat cleaner_runs)"
[ "$mv" -gt 0 ] || fail "vals_moved did not move over a lap of the log"
[ "$(tstat live_val_bytes)" -gt 0 ] || fail "live_val_bytes 0"

step "d. a damaged extent"
read -r p2 g2 <<< "$(tpy find k2)" || fail "k2's extent not found"
echo "# k2's extent now at byte $p2 (gen $g2)"
tpy flip $((p2 + 24 + 2 + 100)) || fail "flipping a byte of k2's extent"
step "d. GET and export of the damaged store"
out=$(scalioctl get --hex "$S" "$(khex k2)" 2>&1) && fail "GET of the damaged k2 succeeded"
echo "# GET k2: $out"
echo "$out" | grep -q "Input/output error" || fail "GET of the damaged k2: $out (not EIO)"
dmesg | grep -q "value extent at byte $p2 .* is damaged" ||
	fail "no log line naming k2's damaged extent at byte $p2"
scalioctl export "$S" /tmp/d.exp > /tmp/d.out 2>&1
rc=$?
[ $rc = 3 ] || { cat /tmp/d.out; fail "export of a store with a damaged extent: exit $rc"; }
grep "SCALIO_IOC_SCAN" /tmp/d.out
scalioctl export --skip-damaged "$S" /tmp/d2.exp > /tmp/d2.out 2>&1
rc=$?
[ $rc = 3 ] || { cat /tmp/d2.out; fail "export --skip-damaged: exit $rc"; }
grep "skipped" /tmp/d2.out
[ "$(grep -c "is damaged: skipped" /tmp/d2.out)" = 1 ] ||
	{ cat /tmp/d2.out; fail "export --skip-damaged did not skip exactly one bucket"; }
scalioctl import --check /tmp/d2.exp > /tmp/d2.chk 2>&1 ||
	{ cat /tmp/d2.chk; fail "export --skip-damaged wrote no importable file"; }
scalioctl del "$S" "k2" > /dev/null || fail "DELETE of the damaged k2"
echo "VSEP TEST PASSED"
EOF2

"$top/tests/vm/run" --kver "$kver" --ssds 1 --ssd-size 16450K --share "$share" \
	--target-setup-args "--nblocks 64 --nbuckets 256" -- 'bash /share/vsep.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: values in extents read back right, and a moved extent is never taken for the value"
exit 0
