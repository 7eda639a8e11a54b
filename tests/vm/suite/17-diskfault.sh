#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 17-diskfault: a failing SSD gives clean errors and loses no acknowledged
# write.  One store on one SSD seen through device-mapper (--no-setup: the
# test puts /dev/mapper/sd0 = linear over the NVMe disk in the target and
# runs target-setup on it; nvmet exports the dm device too, so the hosts'
# direct reads see the same faults).  Faults are table swaps of sd0
# (dmsetup suspend/load/resume):
#
#   W. write errors (dm-flakey error_writes): PUTs fail with EIO,
#      nothing is acknowledged; stats says "ssd0 failed"; GETs still read
#      back every acknowledged value; target-resume fails (its probe write
#      fails) and PUTs stay refused.  Fault cleared: the store is still up
#      and reads everything, PUTs are still refused until target-resume,
#      which then succeeds (no disable/enable): PUTs work again and every
#      acknowledged write reads back.
#   R. every I/O fails (dm error): GETs return an error or the right value
#      (host caches), never a wrong one; a host that attaches meanwhile
#      fails to bind the SSD with EIO (its superblock is unreadable).
#      Fault cleared: attach binds it, all read back.
#   S. a stalled SSD (dm-delay: every write held 12 s, longer than the
#      host's 10 s RPC timeout; reads not delayed): a PUT either fails or
#      is acknowledged no sooner than its write completed (>= 12 s); reads
#      of the other keys go on; the stall ends: the host is served again,
#      the stalled key holds its old or its new value (new if the PUT was
#      acknowledged), ssd0 is not failed, everything acknowledged reads
#      back.
#   K. the target is killed during a write fault, rebooted, sd0 rebuilt,
#      target-setup (no --format) recovers: every acknowledged write reads
#      back (those acknowledged after W's resume too).
#   L. after a kill, the header of the next-to-last batch of the log
#      fails every I/O: the recovery is refused (EUCLEAN) naming that
#      batch unreadable with an intact one after it; the last batch's
#      header instead: refused as the end of the log (it may hold
#      acknowledged writes); neither refusal wrote anything
#      (scalio_ondisk before and after); forced, with the first fault:
#      the unreadable batch is dropped as a gap, its unit named, the last
#      batch replayed, every other value reads back.  Then the last
#      batch's header unreadable, forced: the log ends before it (its key
#      keeps its old value); with that unit readable again, a PUT, a kill
#      and a recovery never bring the dropped batch back.
#   U. one unit inside a multi-unit segment, beyond the log ends that
#      recovery probes, fails every I/O (dm error over that unit) while
#      the store is disabled: enabling it still works
#      (warming the segment cache falls back to the header read), GET and
#      PUT of that block fail with an error, every other value reads
#      back; fault cleared: that block reads and takes PUTs again.
#   V. the same for kbig's new segment, then --force-recover: a forced
#      recovery reads every segment whole; this one fails (EIO, three
#      tries) while the superblock still reads, so its block is dropped and
#      reported (its keys are LOST), not the enable failed: the keys count
#      falls by that segment's records, the keys whose GETs failed are
#      not found, every other value reads back.
#   G. the NVMe controller is removed under the store (PCI remove): GETs
#      and PUTs fail cleanly, stats shows ssd0 failed, no oops; unload.
#
# Usage: 17-diskfault.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
t_start=$(date +%s)
command -v dmsetup > /dev/null ||
	{ echo "SKIP: dmsetup is not installed (make deps)"; exit 4; }
make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }

suite_share diskfault

cat > "$share/diskfault.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
CFS=/sys/kernel/config/scalio/stores/$S
N=20
T0=$(date +%s)
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
T() { vmctl exec-target "$*"; }
# table KIND [UNIT]: swap sd0's table (linear, flakey-w = write errors,
# error, hole = linear but the 4 KiB unit UNIT fails every I/O).
table() {
	T "sz=\$(blockdev --getsz \$SCALIO_SSDS)
	case $1 in
	linear) t=\"0 \$sz linear \$SCALIO_SSDS 0\" ;;
	flakey-w) t=\"0 \$sz flakey \$SCALIO_SSDS 0 0 1 1 error_writes\" ;;
	delay-w) t=\"0 \$sz delay \$SCALIO_SSDS 0 0 \$SCALIO_SSDS 0 12000\" ;;
	error) t=\"0 \$sz error\" ;;
	hole) a=\$(( (${2:-0}) * 8 ))
		t=\"0 \$a linear \$SCALIO_SSDS 0
\$a 8 error
\$((a + 8)) \$((sz - a - 8)) linear \$SCALIO_SSDS \$((a + 8))\" ;;
	esac
	# No udev in the VMs: dmsetup makes the node itself.
	if [ -e /dev/mapper/sd0 ]; then
		dmsetup suspend --noudevsync --noflush sd0 &&
			echo \"\$t\" | dmsetup load sd0 &&
			dmsetup resume --noudevsync sd0
	else
		echo \"\$t\" | dmsetup create --noudevsync sd0 &&
			dmsetup mknodes sd0 && [ -b /dev/mapper/sd0 ]
	fi" || fail "dm table $1"
}
# Values stay in their segments (--value-inline-max 4096): U and V need
# multi-unit segments beyond the probed log start, which 4 KiB values
# stored apart would not make.
setup() {
	T "scalioctl target-setup --store $S --addr $A --nblocks 64 --value-inline-max 4096 $* /dev/mapper/sd0" \
		> /share/setup.out 2>&1
	rc=$?
	sed 's/^/  | /' /share/setup.out
	return $rc
}
state() { T "grep '^ssd0 ' $CFS/stats" | awk '{ print $2 }'; }
write() {
	i=1
	while [ $i -le $N ]; do
		scalioctl put "$S" "k$i" "v$i.$1" || fail "put k$i round $1"
		echo "k$i v$i.$1" >> /share/acked
		i=$((i + 1))
	done
}
want() { awk -v k="$1" '$1 == k { v = $2 } END { print v }' /share/acked; }
# verify [errors-ok]: every key reads its last acknowledged value; with an
# argument, an error is accepted too (counted), a wrong value never.
verify() {
	errs=0
	i=1
	while [ $i -le $N ]; do
		w=$(want "k$i")
		if got=$(scalioctl get "$S" "k$i" 2> /share/get.err); then
			[ "$got" = "$w" ] || fail "$2: k$i = '$got', expected '$w'"
		else
			[ -n "$1" ] || fail "$2: GET k$i failed: $(cat /share/get.err)"
			errs=$((errs + 1))
		fi
		i=$((i + 1))
	done
	echo "# $2: $errs GET error(s), every value read was right"
}
# crash STEP: detach, kill the target, boot it again, sd0 linear again.
crash() {
	scalioctl detach "$S" || fail "$1: detach"
	vmctl kill-target || fail "$1: kill-target"
	vmctl start-target || fail "$1: start-target"
	T "modprobe dm-mod && modprobe dm-flakey && modprobe dm-delay" || fail "modprobe dm"
	table linear
}
: > /share/acked

step "setup on dm linear over the SSD"
T "modprobe dm-mod && modprobe dm-flakey && modprobe dm-delay" || fail "modprobe dm"
table linear
setup --format || fail "target-setup --format"
scalioctl attach "$S" --addr "$A" > /dev/null || fail "attach"
write 1
verify "" "before faults"

step "W. write errors"
table flakey-w
scalioctl put "$S" k1 lost.1 2> /share/put.err &&
	fail "W: a PUT was acknowledged while writes fail"
echo "# W: PUT failed: $(cat /share/put.err)"
grep -q 'Input/output error' /share/put.err || fail "W: the PUT did not fail with EIO"
[ "$(state)" = failed ] || fail "W: stats does not show ssd0 failed ($(state))"
scalioctl stats "$S" | grep 'ssd0 ' | tee /share/stats.out
grep -q 'ssd0 *FAILED' /share/stats.out || fail "W: scalioctl stats does not show ssd0 FAILED"
scalioctl put "$S" k2 lost.2 && fail "W: a second PUT was acknowledged"
verify "" "W (reads during write errors)"
# The fault is still on: the probe write must fail, the SSD stay failed.
T "scalioctl target-resume --store $S" > /share/resume.out 2>&1 &&
	{ cat /share/resume.out; fail "W: target-resume succeeded while writes fail"; }
sed 's/^/  | /' /share/resume.out
[ "$(state)" = failed ] || fail "W: ssd0 not failed after a failed resume ($(state))"
scalioctl put "$S" k2 lost.2b && fail "W: PUT acknowledged after a failed resume"
table linear
[ "$(T "cat $CFS/enable")" = 1 ] || fail "W: the store went down"
verify "" "W (fault cleared)"
scalioctl put "$S" k3 lost.3 && fail "W: PUT acknowledged before resume"
T "scalioctl target-resume --store $S" > /share/resume.out 2>&1 ||
	{ cat /share/resume.out; fail "W: target-resume failed after the fault cleared"; }
sed 's/^/  | /' /share/resume.out
[ "$(state)" = ok ] || fail "W: ssd0 not ok after resume ($(state))"
scalioctl put "$S" k1 v1.w || fail "W: PUT failed after resume"
echo "k1 v1.w" >> /share/acked
write w
verify "" "W (after resume, no re-enable)"

step "R. every I/O fails"
table error
verify errors-ok "R (all I/O failing)"
[ "$(T "cat $CFS/enable")" = 1 ] || fail "R: the store went down"
# A host attaching now cannot read the SSD's superblock: binding the
# namespace must fail with EIO, not bind a device it could not check.
scalioctl detach "$S" > /dev/null || fail "R: detach"
scalioctl attach "$S" --addr "$A" > /dev/null 2> /share/attach.err &&
	fail "R: attach bound an SSD whose superblock cannot be read"
grep -q 'SSD_BIND.*Input/output error' /share/attach.err ||
	fail "R: the bind did not fail with EIO: $(cat /share/attach.err)"
table linear
# attached already: this binds the SSD now that it reads
scalioctl attach "$S" --addr "$A" > /dev/null || fail "R: attach after the fault cleared"
verify "" "R (fault cleared)"

step "S. a stalled SSD: writes held 12 s"
table delay-w
t0=$(date +%s)
if scalioctl put "$S" k4 v4.stall 2> /share/put.err; then
	dt=$(($(date +%s) - t0))
	echo "# S: PUT acknowledged after $dt s"
	[ $dt -ge 12 ] || fail "S: PUT acknowledged after $dt s, before its write (held 12 s) completed"
	echo "k4 v4.stall" >> /share/acked
	stalled_ok=1
else
	echo "# S: PUT failed after $(($(date +%s) - t0)) s: $(cat /share/put.err)"
	stalled_ok=0
fi
old4=$(want k4)
# The stalled key may still be in flight; every other key reads right.
i=1
while [ $i -le $N ]; do
	if [ $i != 4 ] && got=$(scalioctl get "$S" "k$i" 2> /dev/null); then
		[ "$got" = "$(want "k$i")" ] || fail "S: k$i = '$got' during the stall"
	fi
	i=$((i + 1))
done
table linear
# Served again (the host may be reconnecting; no bound but the bed's hang
# guard).
put_k5() {
	target_up || never "the target is down"
	scalioctl put "$S" k5 v5.s 2> /share/put.err
}
WAIT_INTERVAL=1 wait_until "a PUT acknowledged after the stall" put_k5 ||
	fail "S: no PUT acknowledged after the stall's end: $(cat /share/put.err)"
echo "k5 v5.s" >> /share/acked
got=$(scalioctl get "$S" k4) || fail "S: GET k4 after the stall"
case $got in
v4.stall) ;;
"$old4") [ $stalled_ok = 0 ] || fail "S: k4 lost its acknowledged value" ;;
*) fail "S: k4 = '$got', neither its old value '$old4' nor v4.stall" ;;
esac
echo "# S: k4 = $got after the stall (PUT acknowledged: $stalled_ok)"
[ "$got" = v4.stall ] && [ $stalled_ok = 0 ] && echo "k4 v4.stall" >> /share/acked
[ "$(state)" = ok ] || fail "S: a stall left ssd0 $(state)"
verify "" "S (stall over)"

step "K. target killed during a write fault"
write 2
table flakey-w
scalioctl put "$S" k5 lost.5 && fail "K: PUT acknowledged during the fault"
crash K
setup || fail "K: recovery after the kill"
scalioctl attach "$S" --addr "$A" > /dev/null || fail "attach"
verify "" "K (after the kill)"

step "L. a log unit unreadable after a crash"
# One batch per PUT (one writer, each PUT waits for its ack): the chain
# after the newest checkpoint ends with k$((N - 1))'s batch and k$N's.
write l
crash L
OD=/scalio/tests/selftests/scalio_ondisk
# The raw SSD (sd0 is linear over it from unit 0): readable whatever sd0 does.
# Dropped first: dm's writes bypass the raw device's page cache.
ondisk() {
	T "blockdev --flushbufs \$SCALIO_SSDS && $OD \$SCALIO_SSDS" > "$1" ||
		fail "L: scalio_ondisk"
}
ondisk /share/l.0
nb=$(grep -c '^batch ' /share/l.0)
[ "$nb" -ge 2 ] || { cat /share/l.0; fail "L: $nb batch(es) after the checkpoint, 2 needed"; }
# last_batches FILE: "SEQ UNIT SEQ UNIT" of the chain's last two batches.
last_batches() {
	awk '$1 == "batch" { ps = s; pu = u; s = $2; u = $3 }
		END { sub("seq=", "", ps); sub("unit=", "", pu); sub("seq=", "", s)
			sub("unit=", "", u); print ps, pu, s, u }' "$1"
}
set -- $(last_batches /share/l.0)
ps=$1 pu=$2 ls=$3 lu=$4
echo "# L: $nb batches after the checkpoint; the last two: $ps at unit $pu, $ls at unit $lu"
# refused NAME PATTERN: the recovery is refused (EUCLEAN), the report
# matches PATTERN, and nothing on the SSD changed.
refused() {
	setup && fail "$1: recovery succeeded"
	grep -q 'Structure needs cleaning' /share/setup.out ||
		fail "$1: the recovery did not fail with EUCLEAN"
	grep -Eq "$2" /share/setup.out || fail "$1: the report does not say /$2/"
	ondisk /share/l.1
	cmp -s /share/l.0 /share/l.1 ||
		{ diff /share/l.0 /share/l.1; fail "$1: the refused recovery wrote to the SSD"; }
	T "scalioctl target-teardown --store $S" || fail "$1: teardown"
}
step "L1. batch $ps's header unreadable, batch $ls intact after it"
table hole "$pu"
refused L1 "batch $ps \\(at unit $pu or [0-9]+\\) is unreadable \\(a media error\\), but intact batch $ls follows"
step "L2. the last batch's header unreadable"
table hole "$lu"
refused L2 "the end of the log cannot be read: the next batch is unreadable"
step "L3. batch $ps's header unreadable, forced"
table hole "$pu"
setup --force-recover || fail "L3: the forced recovery failed"
grep -q "unit $pu of the dropped batches is unreadable" /share/setup.out ||
	fail "L3: the report does not name unit $pu unreadable"
table linear
scalioctl attach "$S" --addr "$A" > /dev/null || fail "L3: attach"
# k$N's batch was replayed; k$((N - 1))'s was dropped: its old value is
# back, or its new one if k$N's block holds k$((N - 1)) too (a segment
# holds its whole block).
got=$(scalioctl get "$S" "k$N") || fail "L3: GET k$N"
[ "$got" = "v$N.l" ] || fail "L3: k$N = '$got', expected 'v$N.l' (its batch follows the dropped one)"
p=$((N - 1))
old=$(awk -v k="k$p" '$1 == k { o = v; v = $2 } END { print o }' /share/acked)
got=$(scalioctl get "$S" "k$p") || fail "L3: GET k$p"
case $got in
"v$p.l") echo "# L3: k$p kept by k$N's batch" ;;
"$old") echo "# L3: k$p is back to '$old' (its batch was dropped)"
	echo "k$p $old" >> /share/acked ;;
*) fail "L3: k$p = '$got', expected 'v$p.l' or '$old'" ;;
esac
verify "" "L3 (after the forced recovery)"
step "L4. the last batch's header unreadable, forced"
scalioctl put "$S" k1 v1.l4a || fail "L4: PUT k1"
echo "k1 v1.l4a" >> /share/acked
scalioctl put "$S" k2 v2.l4 || fail "L4: PUT k2"
crash L4
ondisk /share/l.2
set -- $(last_batches /share/l.2)
[ -n "${4:-}" ] || { cat /share/l.2; fail "L4: no batch after the checkpoint"; }
echo "# L4: the last batch, k2's: $3 at unit $4"
table hole "$4"
setup --force-recover || fail "L4: the forced recovery failed"
grep -q "forced: the log ends before batch $3 (unit $4)" /share/setup.out ||
	fail "L4: the report does not say the log ends before batch $3"
table linear
scalioctl attach "$S" --addr "$A" > /dev/null || fail "L4: attach"
# k2's batch was acknowledged, and the forced recovery dropped it (as
# reported): k2 holds its old value; k1's batch, before it, was replayed.
verify "" "L4 (after the forced recovery)"
# That batch reads again now (table linear), whole, where the next batch
# goes: it must never come back, not at the next recovery (its sequence
# number is behind the log's now), not after new writes and a crash.
scalioctl detach "$S" || fail "L4: detach"
T "scalioctl target-teardown --store $S" || fail "L4: teardown"
setup || fail "L4: recovery with the dropped batch readable again"
scalioctl attach "$S" --addr "$A" > /dev/null || fail "L4: attach"
verify "" "L4 (the dropped batch readable again)"
scalioctl put "$S" k3 v3.l4 || fail "L4: PUT k3 after the forced recovery"
echo "k3 v3.l4" >> /share/acked
crash L4
setup || fail "L4: recovery after a kill"
scalioctl attach "$S" --addr "$A" > /dev/null || fail "L4: attach"
verify "" "L4 (after new writes and a kill)"

step "U. a segment body unreadable when the store is enabled"
big=$(head -c 4096 /dev/zero | tr '\0' b)
# Recovery reads the first and last SCALIO_PROBE_UNITS (1,024) units of
# the log whole (looking for batches after a torn one: an error there
# rightly fails the enable), so kbig's segment must lie beyond them: 600
# PUTs of a 4 KiB value each go first (4,405 units in a release-lane run;
# over 1,100 is checked below), from one process with 4 writer threads
# (one scalioctl process per PUT took ~6 minutes on the debug lane).
/scalio/tests/selftests/scalio_crash write -l /tmp/ufill -p f -t 4 -k 150 \
	-n 150 -V 4096 -v 4096 -F > /share/ufill.out 2>&1 ||
	{ cat /share/ufill.out; fail "U: the fill PUTs"; }
grep '^# write:' /share/ufill.out
scalioctl put "$S" kbig "$big" || fail "U: PUT of a 4 KiB value"
scalioctl detach "$S" || fail "U: detach"
T "scalioctl target-teardown --store $S" || fail "U: teardown"
T "/scalio/tests/selftests/scalio_ondisk /dev/mapper/sd0" > /share/ondisk.out ||
	fail "U: scalio_ondisk"
# kbig's segment: the last batch's (the teardown checkpointed it: the
# checkpoint entry of the highest generation; else the log chain's last).
seg=$(awk '$1 == "seg" { sub("unit=", "", $3); u = $3 }
	$1 == "entry" { g = $5; sub("gen=", "", g); g += 0
		if (g > best) { best = g; c = $3; sub("unit=", "", c) } }
	END { print (u != "" ? u : c) }' /share/ondisk.out)
[ -n "$seg" ] || { cat /share/ondisk.out; fail "U: kbig's segment not found"; }
lstart=$(awk '$1 == "geometry" { sub("log_start=", "", $3); print $3 }' /share/ondisk.out)
[ $((seg - lstart)) -gt 1100 ] ||
	fail "U: kbig's segment at unit $seg is within the probed log start ($lstart)"
echo "# U: kbig's segment starts at unit $seg; unit $((seg + 1)) now fails every I/O"
table hole $((seg + 1))
setup || fail "U: an unreadable segment body failed the enable (the cache warming must fall back to the header)"
scalioctl attach "$S" --addr "$A" > /dev/null || fail "U: attach"
scalioctl get "$S" kbig > /dev/null 2> /share/get.err &&
	fail "U: GET kbig succeeded with its segment unreadable"
echo "# U: GET kbig failed: $(cat /share/get.err)"
scalioctl put "$S" kbig new 2> /share/put.err &&
	fail "U: PUT kbig acknowledged although its segment cannot be read"
grep -q 'Input/output error' /share/put.err ||
	fail "U: PUT kbig did not fail with EIO: $(cat /share/put.err)"
verify errors-ok "U (one segment body unreadable)"
table linear
verify "" "U (fault cleared)"
got=$(scalioctl get "$S" kbig) && [ "$got" = "$big" ] ||
	fail "U: kbig does not read back after the fault cleared"
scalioctl put "$S" kbig v.big || fail "U: PUT kbig after the fault cleared"
[ "$(scalioctl get "$S" kbig)" = v.big ] || fail "U: kbig's new value"

step "V. a forced recovery drops the block of an unreadable segment"
scalioctl detach "$S" || fail "V: detach"
T "scalioctl target-teardown --store $S" || fail "V: teardown"
T "/scalio/tests/selftests/scalio_ondisk /dev/mapper/sd0" > /share/ondisk.out ||
	fail "V: scalio_ondisk"
# kbig's segment again (the PUT of v.big was the last write): unit, units
# and records, from the chain's last seg line or the newest checkpoint entry
# shellcheck disable=SC2046
set -- $(awk '$1 == "seg" { u = $3; n = $6; r = $5 }
	$1 == "entry" { g = $5; sub("gen=", "", g); g += 0
		if (g > best) { best = g; cu = $3; cn = $4; cr = $6 } }
	END { if (u == "") { u = cu; n = cn; r = cr }
		sub("unit=", "", u); sub("(units|len)=", "", n)
		sub("records=", "", r); print u, n, r }' /share/ondisk.out)
vseg=${1:-} vunits=${2:-0} vrec=${3:--1}
[ -n "$vseg" ] && [ "$vunits" -ge 2 ] && [ "$vrec" -ge 1 ] &&
	[ $((vseg - lstart)) -gt 1100 ] ||
	{ cat /share/ondisk.out; fail "V: kbig's segment (unit '$vseg', $vunits units, $vrec records) is not a multi-unit one beyond the probed log start"; }
echo "# V: kbig's segment: unit $vseg, $vunits units, $vrec records; unit $((vseg + 1)) fails every I/O"
table hole $((vseg + 1))
setup || fail "V: the enable with one segment body unreadable"
scalioctl attach "$S" --addr "$A" > /dev/null || fail "V: attach"
keys0=$(T "cat $CFS/stats" | awk '$1 == "keys" { print $2 }')
: > /share/vbad
for k in kbig $(seq -f 'k%g' 1 $N); do
	scalioctl get "$S" "$k" > /dev/null 2>&1 || echo "$k" >> /share/vbad
done
grep -qx kbig /share/vbad || fail "V: GET kbig succeeded with its segment unreadable"
echo "# V: $keys0 keys; GETs that failed: $(tr '\n' ' ' < /share/vbad)"
scalioctl detach "$S" || fail "V: detach before the forced recovery"
T "scalioctl target-teardown --store $S" || fail "V: teardown before the forced recovery"
setup --force-recover ||
	fail "V: the forced recovery failed on a segment it should drop"
grep -q "segment at unit $vseg is unreadable.*bucket dropped, its keys are LOST" \
	/share/setup.out || fail "V: the forced recovery did not report the dropped block"
scalioctl attach "$S" --addr "$A" > /dev/null || fail "V: attach after the forced recovery"
keys1=$(T "cat $CFS/stats" | awk '$1 == "keys" { print $2 }')
[ "$keys1" = $((keys0 - vrec)) ] ||
	fail "V: $keys1 keys after the forced recovery, expected $keys0 - $vrec"
for k in kbig $(seq -f 'k%g' 1 $N); do
	got=$(scalioctl get "$S" "$k" 2> /share/get.err)
	rc=$?
	if grep -qx "$k" /share/vbad; then
		[ $rc = 1 ] ||
			fail "V: $k of the dropped block: exit $rc ($(cat /share/get.err)), expected not found"
		continue
	fi
	[ $rc = 0 ] && [ "$got" = "$(want "$k")" ] ||
		fail "V: $k = '$got' (exit $rc), expected '$(want "$k")' after the forced recovery"
done
table linear

step "G. the NVMe controller disappears"
T "c=\$(basename \$(dirname \$(dirname /sys/class/block/\${SCALIO_SSDS#/dev/}/device 2>/dev/null) 2>/dev/null))
	for n in /sys/class/nvme/nvme*; do
		[ \"\$(cat \$n/serial | tr -d ' ')\" = ssd0 ] && echo 1 > \$n/device/remove && exit 0
	done; exit 1" || fail "G: PCI remove"
scalioctl put "$S" k1 gone 2> /share/put.err && fail "G: PUT acknowledged on a removed SSD"
echo "# G: PUT failed: $(cat /share/put.err)"
[ "$(state)" = failed ] || fail "G: stats does not show ssd0 failed ($(state))"
verify errors-ok "G (SSD removed)"
T "grep -E '^(ssd|keys)' $CFS/stats"

step "unload"
scalioctl detach "$S" || fail "final detach"
rmmod scalio_host || fail "rmmod scalio_host"
T "scalioctl target-teardown --store $S && rmmod scalio_target" ||
	fail "final teardown in the target"
step "DISK FAULT TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 1 --no-setup --share "$share" \
	-- 'sh /share/diskfault.sh'
rc=$?
echo "# 17-diskfault: $(($(date +%s) - t_start)) s wall"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: failing SSD: clean errors, no acknowledged write lost"
exit 0
