#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/fill.sh (make bench-fill): how full a store gets before it refuses
# PUTs, on a small SSD so that it fits the bed, and what the cleaner writes
# on the way.
#
# One boot, store kv0 on one SSD of FILL_SSD_SIZE (default 64M) with
# FILL_NBLOCKS hash blocks (default 8192: segments of a few KiB, so that
# the log, not a block, fills first).  Four writers of
# tests/selftests/scalio_crash PUT new keys of FILL_VALUE bytes (default
# 1024), each key once, until each writer's PUT fails.  Then:
#   - every writer must have stopped on ENOSPC (the log is full), not on
#     another error;
#   - the fill level: the store's live_bytes (its blocks' current
#     segments) over the log's bytes, and the user bytes (key + value) of
#     the acknowledged keys over the log's bytes; keys, DRAM per key
#     (index_bytes / keys), SSD bytes written per user byte, cleaner runs;
#   - every acknowledged PUT reads back (scalio_crash verify), and again
#     after the target is killed and restarted (recovery of a full log).
# With --base REV (make bench-fill BASE=REV) a boot with REV's modules
# (git archive of REV, built by its own scripts/build-kmod.sh) fills the
# same way first, for the comparison: its figures are printed beside
# this tree's, with the ratio of SSD bytes written per user byte.  The
# baseline boot only fills and measures (no read-back).
# The issue's goal is a fill of live data >= 80 % of the log.  It prints
# what it measured; it fails only on an error other than ENOSPC or a lost
# write.
# Usage: bench/fill.sh [--kver 6.1|6.12] [--base REV]; exit 0 done, 1 fail.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
base=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--kver) args=(--kver "${2:?--kver needs 6.1 or 6.12}"); shift ;;
	--base) base=${2:?--base needs a commit}; shift ;;
	*) echo "bench/fill.sh: unknown option '$1'" >&2; exit 1 ;;
	esac
	shift
done
suite_kver "${args[@]}"
make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }
suite_share fill

SIZE=${FILL_SSD_SIZE:-64M}
NB=${FILL_NBLOCKS:-8192}
VLEN=${FILL_VALUE:-1024}
echo "SIZE=$SIZE NB=$NB VLEN=$VLEN" > "$share/fill.sh"
cat >> "$share/fill.sh" << 'EOF'
# fill.sh [LABEL [measure]]: LABEL names the result file; "measure" stops
# after the figures (the baseline's boot).
LABEL=${1:-this}
MODE=${2:-full}
set -u
X=/scalio/tests/selftests/scalio_crash
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
T0=$(date +%s)
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
stat() {
	scalioctl stats --json "$S" | sed -n "s/.*\"target_$1\": \([0-9]*\).*/\1/p"
}
total=$(stat log_total_units)
[ -n "$total" ] && [ "$total" -gt 0 ] || fail "no log_total_units"
log=$((total * 4096))
# More keys than fit: 4 writers, each key once.
K=$((log / VLEN / 4 + 1000))
step "log of $total units ($log bytes); up to 4 x $K keys of $VLEN bytes"
w0=$(stat ssd_write_bytes)
$X write -l /tmp/fill -p f -t 4 -k $K -n $K -V "$VLEN" -v "$VLEN" -F \
	> /tmp/fill.out 2>&1
grep -v '^ok\|^#.*acknowledged' /tmp/fill.out | tail -n 8
acked=$(cat /tmp/fill/w*.log | grep -c '^K ')
errs=$(cat /tmp/fill/w*.log | awk '$1 == "E" { print $4 }' | sort | uniq -c | tr '\n' ' ')
echo "# $acked PUTs acknowledged; the writers stopped on errno: $errs"
[ "$(cat /tmp/fill/w*.log | awk '$1 == "E" && $4 != 28' | wc -l)" = 0 ] ||
	fail "a writer stopped on another error than ENOSPC (28): $errs"
[ "$(cat /tmp/fill/w*.log | grep -c '^E ')" = 4 ] ||
	fail "not every writer stopped on a refused PUT: $errs"
live=$(stat live_bytes) used=$(stat log_used_units) keys=$(stat keys)
ib=$(stat index_bytes) wb=$(( $(stat ssd_write_bytes) - w0 ))
user=$((acked * (VLEN + 8)))
echo "RESULT fill: keys $keys, live_bytes $live = $((live * 1000 / log)) permille of the log; user bytes (key + value) $user = $((user * 1000 / log)) permille; log used $used of $total units; cleaner runs $(stat cleaner_runs), moved $(stat cleaner_moved); SSD bytes written per user byte $((wb * 100 / user))/100; DRAM per key $((ib / keys)) B (index $ib B)"
echo "keys=$keys live_permille=$((live * 1000 / log)) wa_x100=$((wb * 100 / user)) runs=$(stat cleaner_runs) moved=$(stat cleaner_moved) dram_per_key=$((ib / keys)) errs=$(echo $errs | tr ' ' ,)" \
	> /share/result-$LABEL
[ "$keys" = "$acked" ] || fail "keys $keys, but $acked PUTs of new keys were acknowledged"
[ "$MODE" = measure ] && { echo "FILL MEASURED"; exit 0; }
step "every acknowledged PUT reads back"
$X verify -l /tmp/fill > /tmp/verify.out 2>&1 ||
	{ tail -n 5 /tmp/verify.out; fail "an acknowledged PUT is lost"; }
step "and after the target is killed and restarted"
vmctl kill-target || fail "kill-target"
vmctl start-target || fail "start-target"
scalioctl detach "$S" > /dev/null || fail "detach"
scalioctl attach "$S" --addr "$A" > /dev/null || fail "attach"
$X verify -l /tmp/fill > /tmp/verify.out 2>&1 ||
	{ tail -n 5 /tmp/verify.out; fail "an acknowledged PUT is lost after the restart"; }
[ "$(stat live_bytes)" = "$live" ] ||
	fail "live_bytes $(stat live_bytes) after the restart, $live before"
echo "FILL DONE"
EOF

# fill_boot LABEL MODE: one boot of the bed running the fill.
fill_boot() {
	"$top/tests/vm/run" --kver "$kver" --ssds 1 --ssd-size "$SIZE" \
		--timeout 3600 --share "$share" \
		--target-setup-args "--nblocks $NB" -- "sh /share/fill.sh $1 $2"
}

if [ -n "$base" ]; then
	rev=$(git -C "$top" rev-parse --verify "$base^{commit}") ||
		{ echo "FAIL: no commit $base"; exit 1; }
	bdir=$top/build/fill-base
	echo "bench-fill: building the modules of $base for $krel"
	rm -rf "$bdir/src" && mkdir -p "$bdir/src" &&
		git -C "$top" archive "$rev" Kbuild common uapi target host scripts |
		tar -x -C "$bdir/src" || exit 1
	"$bdir/src/scripts/build-kmod.sh" "$(vm_kdir "$krel")" "$bdir/$krel" \
		> "$share/build-base.log" 2>&1 ||
		{ cat "$share/build-base.log"; echo "FAIL: building $base"; exit 1; }
	echo "=== baseline: the modules of $base"
	SCALIO_VM_KO_DIR=$bdir/$krel fill_boot base measure ||
		{ echo "FAIL: the baseline's boot (tests/vm/run) failed"; exit 1; }
fi
echo "=== this tree: $(git -C "$top" rev-parse --short HEAD)$(git -C "$top" status --porcelain -uno | grep -q . && echo ' (with uncommitted changes)')"
fill_boot this full || { echo "FAIL: tests/vm/run failed"; exit 1; }
for f in "$share"/result-*; do
	echo "RESULT ${f##*/result-}: $(cat "$f")"
done
if [ -n "$base" ]; then
	wa() { sed -n 's/.*wa_x100=\([0-9]*\).*/\1/p' "$share/result-$1"; }
	b=$(wa base) t=$(wa this)
	[ -n "$b" ] && [ -n "$t" ] && [ "$b" -gt 0 ] &&
		echo "RESULT SSD bytes written per user byte: $base $((b / 100)).$(printf %02d $((b % 100))), this tree $((t / 100)).$(printf %02d $((t % 100))): $((t * 1000 / b))/1000 of the baseline"
fi
echo "PASS: the store filled up to ENOSPC and lost nothing"
exit 0
