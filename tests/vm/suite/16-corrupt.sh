#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 16-corrupt: a damaged SSD is never reformatted and never silently loses
# an acknowledged write.  One store on one SSD (--no-setup: the test runs
# target-setup itself, in the target, between damages); the damage is done
# with dd inside the target VM while the store is down, at places
# tests/selftests/scalio_ondisk finds from the on-SSD format.
#
#   0. a blank SSD without --format is refused (ENODATA, "not a scalio
#      store"); a geometry needing more than the VM's memory is refused
#      with ENOMEM before anything is allocated; --format creates the
#      store; 40 keys written.
#   A. primary superblock damaged (teardown, dd, setup): recovered from the
#      copy, reported; every key reads back.
#   B. both superblocks damaged: refused (EUCLEAN, "damaged"), not
#      formatted; the saved units put back: every key reads back.
#   B2. both superblocks of another on-SSD format version (2, re-sealed
#      by tests/selftests/scalio_sbver): refused (EINVAL), the report
#      names both versions and what to do; put back: every key reads.
#   C. newest checkpoint slot damaged: recovered from the older slot +
#      the log, reported; new values of all keys read back.  Then both
#      slots damaged: refused (EUCLEAN, "no valid checkpoint"), not
#      formatted, nothing written; the saved bytes put back: every key
#      reads back.
#   C3. the newest checkpoint slot's read fails once with EIO (test hook
#      debug_fail_ckpt_slot): refused with EIO, nothing written (not the
#      older slot used and the newest overwritten); then it reads: every
#      key reads back.
#   E. target killed with 40 batches after the checkpoint.  A record
#      length inside a middle batch damaged: refused ("would be lost");
#      the byte put back and a later batch header damaged: refused again;
#      --force-recover: the report names the dropped batch and keys; every
#      key reads its last acknowledged value unless the report lists it
#      as LOST.  The batch of a DELETE (k3's) is dropped too: k3 comes back
#      with its older value, and the report must say so (BACK), unless a
#      later batch rewrote its block.
#   F. twice the log written after E's forced recovery (the SSD is small):
#      every PUT succeeds, as the cleaner steps over the dropped batches
#      (it used to stop there for good: ENOSPC); E's keys still read back.
#   D. crc of a checkpointed segment damaged: the store comes up; GETs of
#      that block fail, never return a wrong value; other keys read back.
#      Then --force-recover drops that block, reported as LOST: its keys
#      read "not found", all others their values, and twice the log
#      written afterwards succeeds (the cleaner could not move the damaged
#      segment).
#   D2. a byte of a value stored apart (format 5) damaged: its GET fails
#      with EIO; --force-recover checks the extents of the segments it
#      keeps and drops kx's bucket, reported as LOST; kx then takes PUTs.
#   G. a new store of one bucket: ga's PUT (a value stored apart), then
#      gb's (its segment keeps ga's pointer into ga's batch); ga's batch
#      header damaged, --force-recover drops the batch and keeps gb's
#      segment; after twice the log written, ga still reads back: the
#      cleaner, stepping over the dropped batch, moved ga's extent.
#      Control: 16-corrupt.no-skip-vals.
#
# Usage: 16-corrupt.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
t_start=$(date +%s)

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }

suite_share corrupt

cat > "$share/corrupt.sh" << 'EOF'
set -u
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
OD=/scalio/tests/selftests/scalio_ondisk
X=/scalio/tests/selftests/scalio_crash
N=40
T0=$(date +%s)
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
T() { vmctl exec-target "$*"; }
# setup ARGS...: target-setup in the target; output in /share/setup.out.
setup() {
	T "scalioctl target-setup --store $S --addr $A --nblocks 64 $* \$SCALIO_SSDS" \
		> /share/setup.out 2>&1
	rc=$?
	sed 's/^/  | /' /share/setup.out
	return $rc
}
down() {
	scalioctl detach "$S" || fail "detach"
	T "scalioctl target-teardown --store $S" || fail "target-teardown"
}
up() {
	setup "$@" || fail "target-setup $* failed"
	scalioctl attach "$S" --addr "$A" > /dev/null || fail "attach"
}
ondisk() { T "$OD \$SCALIO_SSDS" > /share/ondisk.out || fail "scalio_ondisk"; }
# damage OFFSET BYTES: overwrite BYTES bytes at byte OFFSET ("y\ny\n...").
damage() {
	T "yes | head -c $2 | dd of=\$SCALIO_SSDS bs=1 seek=$1 conv=notrunc,fsync status=none" ||
		fail "dd at $1"
}
save() { T "dd if=\$SCALIO_SSDS of=/ctl/save.$1 bs=1 skip=$2 count=$3 status=none" || fail "save $1"; }
restore() { T "dd if=/ctl/save.$1 of=\$SCALIO_SSDS bs=1 seek=$2 conv=notrunc,fsync status=none" || fail "restore $1"; }
expect_refused() {
	grep -q "$1" /share/setup.out || fail "$2: the refusal does not say '$1'"
	! grep -q 'no scalio superblock (blank)' /share/setup.out ||
		fail "$2: the store looked blank"
}
# write R: key k<i> = v<i>.R for i = 1..N, one PUT each (one batch each).
write() {
	i=1
	while [ $i -le $N ]; do
		scalioctl put "$S" "k$i" "v$i.$1" || fail "put k$i round $1"
		echo "k$i v$i.$1" >> /share/acked
		i=$((i + 1))
	done
}
# flood NAME: PUTs of 32 4-KiB values, twice the 24 MiB SSD's log (each
# PUT is a batch of 3 units or more); every PUT must succeed and read back.
flood() {
	$X write -l "/tmp/$1" -p "$1" -t 8 -k 4 -V 4096 -v 4096 -F -n 500 \
		> /tmp/flood.out 2>&1 ||
		{ cat /tmp/flood.out; fail "$2: a PUT failed"; }
	grep 'acknowledged in' /tmp/flood.out
	$X verify -l "/tmp/$1" -p "$1" -t 8 -k 4 -V 4096 -v 4096 -F \
		> /tmp/flood.out 2>&1 || { cat /tmp/flood.out; fail "$2: $1 keys"; }
	scalioctl stats --json "$S" > /share/stats.json || fail "$2: stats"
	for c in cleaner_runs cleaner_moved log_used_units; do
		printf '# %s %s\n' $c "$(sed -n "s/.*\"target_$c\": \([0-9]*\).*/\1/p" /share/stats.json)"
	done
}
# verify: every key holds its last acknowledged value, or is reported LOST
# (then it must hold an earlier acknowledged value).
# A deleted key is "-" in /share/acked; one whose delete a forced recovery
# dropped must be reported BACK (with an older value).
verify() {
	i=1
	while [ $i -le $N ]; do
		want=$(awk -v k="k$i" '$1 == k { v = $2 } END { print v }' /share/acked)
		got=$(scalioctl get "$S" "k$i" 2> /dev/null)
		case $? in
		0) ;;
		1) got=- ;;
		*) got="(error)" ;;
		esac
		if [ "$got" != "$want" ]; then
			if [ "$want" = - ]; then
				grep -q "key 'k$i' was deleted by it: BACK" /share/report ||
					fail "$1: deleted k$i = '$got' (not reported back)"
			else
				grep -q "key 'k$i' LOST" /share/report ||
					fail "$1: k$i = '$got', expected '$want' (not reported lost)"
			fi
			awk -v k="k$i" -v g="$got" '$1 == k && $2 == g { f = 1 } END { exit !f }' \
				/share/acked || fail "$1: k$i = '$got': never written"
			echo "# k$i: '$got' instead of '$want', reported"
		fi
		i=$((i + 1))
	done
}
: > /share/acked
: > /share/report
: > /share/dbad

step "0. a blank SSD without --format is refused"
setup && fail "target-setup of a blank SSD without --format succeeded"
grep -q 'not a scalio store' /share/setup.out || fail "0: no 'not a scalio store'"
grep -q 'No data available' /share/setup.out || fail "0: errno is not ENODATA"
setup --format --nblocks 16777216 --slots 16 &&
	fail "a geometry larger than the memory was enabled"
grep -q 'Cannot allocate memory' /share/setup.out || fail "0: errno is not ENOMEM"
T "dmesg | grep 'needs .* MiB; .* MiB are available'" || fail "0: no memory message"
up --format
write 1
verify "0"

step "A. primary superblock damaged: recovered from the copy"
down
damage 40 16
up
grep -q 'using the copy; rewriting it succeeded' /share/setup.out ||
	fail "A: no report of the recovery from the copy"
verify "A"

step "B. both superblocks damaged: refused, not formatted"
down
save sb 0 8192
damage 40 16
damage 4136 16
setup && fail "B: a store with both superblocks damaged was enabled"
expect_refused 'Structure needs cleaning' "B"
expect_refused 'bad crc (damaged)' "B"
restore sb 0
up
verify "B"

step "B2. a store of another on-SSD format version: refused, says what to do"
down
save sb 0 8192
T "/scalio/tests/selftests/scalio_sbver \$SCALIO_SSDS 3" ||
	fail "B2: scalio_sbver"
setup && fail "B2: a store of on-SSD format version 3 was enabled"
expect_refused 'Invalid argument' "B2"
expect_refused 'of another format version' "B2"
expect_refused "format version 3; this module reads version 5 only: with the scalio release that wrote it, 'scalioctl export' its pairs" "B2"
restore sb 0
up
verify "B2"

step "C. newest checkpoint slot damaged: older slot + log"
write 2
down
ondisk
ck=$(awk '$1 == "newest" { sub("unit=", "", $2); print $2 }' /share/ondisk.out)
[ -n "$ck" ] || fail "C: no checkpoint found"
damage $((ck * 4096 + 64)) 16
up
grep -q 'checkpoint slot . is invalid' /share/setup.out ||
	fail "C: no report of the invalid checkpoint slot"
verify "C"
down
ondisk
cka=$(awk '$1 == "ckpt" && $2 == "slot=A" { sub("unit=", "", $3); print $3 }' /share/ondisk.out)
ckb=$(awk '$1 == "ckpt" && $2 == "slot=B" { sub("unit=", "", $3); print $3 }' /share/ondisk.out)
[ -n "$cka" ] && [ -n "$ckb" ] || fail "C: checkpoint slots not found"
save cka $((cka * 4096 + 64)) 16
save ckb $((ckb * 4096 + 64)) 16
damage $((cka * 4096 + 64)) 16
damage $((ckb * 4096 + 64)) 16
setup && fail "C: a store with both checkpoint slots damaged was enabled"
expect_refused 'Structure needs cleaning' "C (both slots)"
expect_refused 'no valid checkpoint' "C (both slots)"
# Refused means nothing was written: the damage is still there.
T "dd if=\$SCALIO_SSDS bs=1 skip=$((cka * 4096 + 64)) count=16 status=none" |
	grep -q '^y$' || fail "C: the refused enable wrote over checkpoint slot A"
restore cka $((cka * 4096 + 64))
restore ckb $((ckb * 4096 + 64))
up
verify "C (both slots put back)"

step "C3. the newest checkpoint slot unreadable once: refused, nothing written"
down
ondisk
ck=$(awk '$1 == "newest" { sub("unit=", "", $2); print $2 }' /share/ondisk.out)
seq0=$(awk '$1 == "newest" { sub("seq=", "", $3); print $3 }' /share/ondisk.out)
cka=$(awk '$1 == "ckpt" && $2 == "slot=A" { sub("unit=", "", $3); print $3 }' /share/ondisk.out)
[ -n "$ck" ] && [ -n "$seq0" ] && [ -n "$cka" ] || fail "C3: checkpoint slots not found"
hook=2
[ "$ck" = "$cka" ] && hook=1
# Test hook: the next read of that slot fails with EIO (a transient error).
T "echo $hook > /sys/module/scalio_target/parameters/debug_fail_ckpt_slot" ||
	fail "C3: no debug_fail_ckpt_slot (the target lacks the test hooks)"
setup && fail "C3: enabled with the newest checkpoint slot unreadable (the older one was used)"
expect_refused 'unreadable (I/O error)' "C3"
grep -q 'Input/output error' /share/setup.out || fail "C3: errno is not EIO"
ondisk
seq1=$(awk '$1 == "newest" { sub("seq=", "", $3); print $3 }' /share/ondisk.out)
[ "$seq1" = "$seq0" ] || fail "C3: the refused enable wrote a checkpoint ($seq0 -> $seq1)"
up
verify "C3 (the slot reads again)"

step "E. batches after the checkpoint, target killed"
write 3
# Then 5 DELETEs and 5 PUTs (one batch each): the third DELETE's batch is
# dropped below.
for i in 1 2 3 4 5; do
	scalioctl del "$S" "k$i" || fail "del k$i"
	echo "k$i -" >> /share/acked
done
for i in 6 7 8 9 10; do
	scalioctl put "$S" "k$i" "v$i.4" || fail "put k$i round 4"
	echo "k$i v$i.4" >> /share/acked
done
scalioctl detach "$S" || fail "detach"
vmctl kill-target || fail "kill-target"
vmctl start-target || fail "start-target"
ondisk
nb=$(grep -c '^batch ' /share/ondisk.out)
echo "# $nb batches after the checkpoint"
# One batch per operation since C's enable checkpointed: b3 below relies
# on it.
[ "$nb" = 50 ] || fail "E: $nb batches after the checkpoint, expected 50"
b1=$(awk -v n=$((nb / 3)) '$1 == "seg" && ++c == n { sub("off=", "", $7); print $7 }' /share/ondisk.out)
b2=$(awk -v n=$((2 * nb / 3)) '$1 == "batch" && ++c == n { sub("unit=", "", $3); print $3 }' /share/ondisk.out)
echo "# record length damaged in the segment at byte $b1, header of the batch at unit $b2"
save rec $((b1 + 34)) 2
damage $((b1 + 34)) 2
setup && fail "E: a damaged mid-log segment was accepted"
expect_refused 'would be lost' "E (record length)"
restore rec $((b1 + 34))
damage $((b2 * 4096)) 8
setup && fail "E: a damaged mid-log batch header was accepted"
expect_refused 'would be lost' "E (batch header)"
b3=$(awk -v n=$((nb - 7)) '$1 == "batch" && ++c == n { sub("unit=", "", $3); print $3 }' /share/ondisk.out)
echo "# and the header of the batch of k3's DELETE at unit $b3"
damage $((b3 * 4096)) 8
up --force-recover
grep 'report:' /share/setup.out > /share/report
grep -q 'dropped batches' /share/report || fail "E: no report of the dropped batches"
grep -q "key 'k" /share/report || fail "E: the report names no key"
verify "E"
# k3 reads its old value unless a later batch rewrote its block (then the
# DELETE holds: that batch's segment was built without k3).
if scalioctl get "$S" k3 > /dev/null 2>&1; then
	grep -q "key 'k3' was deleted by it: BACK" /share/report ||
		fail "E: k3 is back without a report"
	echo "# E: k3's DELETE was dropped: k3 is back, reported"
else
	echo "# E: k3 stays deleted (a later batch rewrote its block)"
fi
# Known values again for what follows: k1..k5 rewritten, and every key's
# value as read now becomes what later steps expect (E's report excuses
# nothing after E).
for i in 1 2 3 4 5; do
	scalioctl put "$S" "k$i" "v$i.5" || fail "put k$i round 5"
	echo "k$i v$i.5" >> /share/acked
done
i=6
while [ $i -le $N ]; do
	got=$(scalioctl get "$S" "k$i") || fail "E: get k$i"
	echo "k$i $got" >> /share/acked
	i=$((i + 1))
done
: > /share/report

step "F. twice the log after the forced recovery: the cleaner steps over"
flood hot "F"
T "dmesg | grep 'stepped over'" ||
	fail "F: the cleaner never stepped over the dropped batches"
verify "F"
# Only E's keys from here on: D damages a block that holds some of them.
t=0
while [ $t -lt 8 ]; do
	for k in 0 1 2 3; do
		scalioctl del "$S" "hot.$t.$k" || fail "F: del hot.$t.$k"
	done
	t=$((t + 1))
done

step "D. crc of a checkpointed segment damaged"
down
ondisk
u=$(awk '$1 == "entry" { sub("off=", "", $7); print $7; exit }' /share/ondisk.out)
[ -n "$u" ] || fail "D: no segment in the checkpoint"
damage $((u + 24)) 4
up
bad=0
i=1
while [ $i -le $N ]; do
	want=$(awk -v k="k$i" '$1 == k { v = $2 } END { print v }' /share/acked)
	if got=$(scalioctl get "$S" "k$i" 2> /share/get.err); then
		if [ "$got" != "$want" ] && ! grep -q "key 'k$i' LOST" /share/report; then
			fail "D: k$i = '$got', expected '$want'"
		fi
	else
		bad=$((bad + 1))
		echo "# k$i: $(cat /share/get.err)"
		echo "k$i" >> /share/dbad
	fi
	i=$((i + 1))
done
[ $bad -ge 1 ] || fail "D: no GET saw the damaged segment"
echo "# $bad GET(s) failed cleanly, the others read back"
down
up --force-recover
grep 'report:' /share/setup.out > /share/report
grep -q 'bucket dropped, its keys are LOST' /share/report ||
	fail "D: the forced recovery reported no dropped bucket"
i=1
while [ $i -le $N ]; do
	want=$(awk -v k="k$i" '$1 == k { v = $2 } END { print v }' /share/acked)
	got=$(scalioctl get "$S" "k$i" 2> /share/get.err)
	rc=$?
	if grep -qx "k$i" /share/dbad; then
		[ $rc = 1 ] || fail "D: k$i of the dropped block: exit $rc ($(cat /share/get.err)), expected not found"
	elif [ $rc != 0 ] || [ "$got" != "$want" ]; then
		fail "D: k$i = '$got' (exit $rc), expected '$want' after the forced recovery"
	fi
	i=$((i + 1))
done
flood hot2 "D"
verify_dropped=$(head -n 1 /share/dbad)
scalioctl put "$S" "$verify_dropped" again || fail "D: put $verify_dropped"
[ "$(scalioctl get "$S" "$verify_dropped")" = again ] ||
	fail "D: $verify_dropped does not read back after the drop"

step "D2. a value stored apart damaged: GET fails, a forced recovery drops its bucket"
xv=$(head -c 1000 /dev/zero | tr '\0' x)
scalioctl put "$S" kx "$xv" || fail "D2: put kx"
[ "$(scalioctl get "$S" kx)" = "$xv" ] || fail "D2: kx does not read back"
down
ondisk
pos=$(awk '$1 == "vptr" && $2 == "key=kx" { sub("pos=", "", $3); print $3 }' /share/ondisk.out)
[ -n "$pos" ] || { cat /share/ondisk.out; fail "D2: kx's value pointer not found (its value not stored apart?)"; }
# Inside the value: header 24 bytes, key 2.
damage $((pos + 24 + 2 + 100)) 4
up
scalioctl get "$S" kx > /dev/null 2> /share/get.err &&
	fail "D2: GET kx succeeded with its value damaged"
grep -q 'Input/output error' /share/get.err ||
	fail "D2: GET kx did not fail with EIO: $(cat /share/get.err)"
echo "# D2: GET kx failed cleanly: $(cat /share/get.err)"
down
up --force-recover
grep 'report:' /share/setup.out > /share/report
grep -q "a key's value at byte $pos is damaged or gone.*bucket dropped, its keys are LOST" \
	/share/report || fail "D2: the forced recovery did not report kx's bucket dropped"
scalioctl get "$S" kx > /dev/null 2>&1
[ $? = 1 ] || fail "D2: kx of the dropped bucket is not 'not found' after the forced recovery"
scalioctl put "$S" kx again || fail "D2: put kx after the drop"
[ "$(scalioctl get "$S" kx)" = again ] || fail "D2: kx does not read back after the drop"

step "G. a damaged batch header over a live value extent: the cleaner moves it"
# One bucket: gb's PUT rewrites the bucket's segment, which keeps ga's
# record pointing into ga's batch.  That batch's header damaged, a forced
# recovery drops the batch but keeps gb's segment (ga's extent in it
# still checks).  The cleaner cannot walk the dropped batch: stepping
# over it, it must find ga's extent from the records and move it before
# the units are written again (scalio_tgt_cleaner_skip_vals()).
down
up --format --nblocks 1 --nbuckets 1
gv=$(head -c 1000 /dev/zero | tr '\0' g)
hv=$(head -c 1000 /dev/zero | tr '\0' h)
scalioctl put "$S" ga "$gv" || fail "G: put ga"
scalioctl put "$S" gb "$hv" || fail "G: put gb"
scalioctl detach "$S" || fail "detach"
vmctl kill-target || fail "kill-target"
vmctl start-target || fail "start-target"
ondisk
grep '^batch \|^seg ' /share/ondisk.out
[ "$(grep -c '^batch ' /share/ondisk.out)" = 2 ] ||
	fail "G: $(grep -c '^batch ' /share/ondisk.out) batches after the checkpoint, expected 2 (ga's and gb's)"
g1=$(awk '$1 == "batch" && $5 == "segs=1" && $6 == "vals=1" { sub("unit=", "", $3); print $3; exit }' /share/ondisk.out)
[ -n "$g1" ] || fail "G: ga's batch (one segment, one value) not found"
awk '$1 == "seg" && ++n == 2 && $5 == "records=2" { f = 1 } END { exit !f }' /share/ondisk.out ||
	fail "G: gb's segment does not hold both keys"
echo "# G: ga's batch at unit $g1, its header damaged"
damage $((g1 * 4096)) 8
up --force-recover --nblocks 1 --nbuckets 1
grep 'report:' /share/setup.out
grep -q 'dropped batches' /share/setup.out || fail "G: no report of the dropped batch"
[ "$(scalioctl get "$S" ga)" = "$gv" ] || fail "G: ga does not read back after the forced recovery"
[ "$(scalioctl get "$S" gb)" = "$hv" ] || fail "G: gb does not read back after the forced recovery"
n0=$(T "dmesg | grep -c 'stepped over'")
# Values apart, a 4-KiB PUT of a flood costs about one unit: three floods
# write the log twice over, so ga's old units are written again.
for r in 1 2 3; do
	flood ghot$r "G"
done
n1=$(T "dmesg | grep -c 'stepped over'")
[ "$n1" -gt "$n0" ] || fail "G: the cleaner never stepped over ga's dropped batch"
[ "$(scalioctl get "$S" ga)" = "$gv" ] ||
	fail "G: ga's value, stored apart in the dropped batch, is lost after a lap of the log"
[ "$(scalioctl get "$S" gb)" = "$hv" ] || fail "G: gb does not read back after a lap of the log"
echo "# G: ga and gb read back after the cleaner stepped over ga's batch"

step "unload"
scalioctl detach "$S" || fail "final detach"
rmmod scalio_host || fail "rmmod scalio_host"
T "scalioctl target-teardown --store $S && rmmod scalio_target" ||
	fail "final teardown in the target"
step "CORRUPTION TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 1 --ssd-size 24M --no-setup --share "$share" \
	-- 'sh /share/corrupt.sh'
rc=$?
echo "# 16-corrupt: $(($(date +%s) - t_start)) s wall"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: damage was repaired with a report or refused; never a reformat or a silent loss"
exit 0
