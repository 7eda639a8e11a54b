#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 21-crashpoints: the store recovers to a correct state from a power cut
# at any flush point of a real workload.
#
# The target's store lives on one 24 MiB SSD seen through dm-log-writes
# (--no-setup: /dev/mapper/lw = log-writes over the first 24 MiB of ssd1,
# logging to ssd2; target-setup and nvmet both use /dev/mapper/lw), so
# every write reaching it is recorded in the order it became durable.
# Two hosts run tests/crash/crashload (4 writers each, PUT and DELETE of
# their own keys, every acknowledgement logged to /share) until the
# cleaner has run CRASH_CLEANS times and CRASH_MARKS marks were taken
# (about 1,000 operations apart).  Meanwhile host1 takes marks: it
# records the size of every acknowledgement log, then inserts a
# dm-log-writes mark (`dmsetup message lw 0 mark mN`).  An operation
# acknowledged within a mark's sizes was durable, and logged, before the
# mark.
#
# Then the log (tests/crash/lwlog) is replayed, in one boot, to
# CRASH_STATES of its flush/FUA entries (every one when there are fewer):
# always the last one before and the one of each checkpoint write (the
# commit point of every cleaner pass and every periodic checkpoint), the
# first after the format and the last, the rest evenly spread.  For each
# state the replay goes on from the previous one (ssd1 at 24 MiB), is
# copied to a scratch area (ssd1 at 48 MiB), and `target-setup` (no
# --format) enables the store there: recovery.  It must come up (a state
# before the format finished may be refused: no store there yet); host1
# attaches and `crashload check` reads every key: each operation
# acknowledged before the last mark preceding the state holds (a PUT's
# value or a later version, a DELETE not undone) and no key holds a value
# that was not attempted before the state (the mark after next bounds
# that).  Every state is checked even after a failure; the log (ssd2) and
# the list of failing states are kept in the share dir for a replay.
# Last, a negative control of the checker: the final state, checked
# against logs with one forged acknowledgement (a later PUT of a key that
# was never issued), must fail on that key.
#
# make check: CRASH_STATES=24, CRASH_CLEANS=1, CRASH_MARKS=10 (about 7
# minutes on 6.1); make check-crash: CRASH_STATES=240, CRASH_CLEANS=3,
# CRASH_MARKS=40 (all can be set in the environment).  A target/ patch that breaks recovery is in
# tests/vm/controls/21-crashpoints.*.patch.
# Usage: 21-crashpoints.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
t_start=$(date +%s)
command -v dmsetup > /dev/null ||
	{ echo "SKIP: dmsetup is not installed (make deps)"; exit 4; }
[ -e "/lib/modules/$krel/kernel/drivers/md/dm-log-writes.ko" ] ||
	[ -e "/lib/modules/$krel/kernel/drivers/md/dm-log-writes.ko.xz" ] ||
	{ echo "SKIP: $krel has no dm-log-writes module"; exit 4; }
make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }
make -C "$top/tests/crash" > /dev/null ||
	{ echo "FAIL: make -C tests/crash failed"; exit 1; }

states=${CRASH_STATES:-24}
cleans=${CRASH_CLEANS:-1}
marks=${CRASH_MARKS:-10}
[[ $states =~ ^[1-9][0-9]*$ && $cleans =~ ^[1-9][0-9]*$ && $marks =~ ^[1-9][0-9]*$ ]] ||
	{ echo "FAIL: CRASH_STATES, CRASH_CLEANS and CRASH_MARKS must be positive integers"; exit 1; }

suite_share crashpoints
mkdir -p "$share/disks"
{
	echo "STATES=$states CLEANS=$cleans MARKS=$marks"
	cat << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
CFS=/sys/kernel/config/scalio/stores/$S
CL=/scalio/tests/crash/crashload
LW=/scalio/tests/crash/lwlog
OD=/scalio/tests/selftests/scalio_ondisk
NB=256
# 24 MiB in 512-byte sectors: the store's SSD, and the replay and scratch
# areas after it on ssd1.
SZ=49152
T0=$(date +%s)
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
T() { vmctl exec-target "set -- \$SCALIO_SSDS; $*"; }
H2() { vmctl exec-host 2 "$*"; }
stat() {
	scalioctl stats --json "$S" | sed -n "s/.*\"target_$1\": \([0-9]*\).*/\1/p"
}
# mark NAME: the acknowledgement logs' sizes, then the mark in the log.
mark() {
	sizes=
	for f in /share/cl/h*.log; do
		[ -e "$f" ] && sizes="$sizes ${f##*/}:$(wc -c < "$f")"
	done
	T "dmsetup message lw 0 mark $1" || fail "mark $1"
	echo "$1$sizes" >> /share/marks
}
# ATTACH: up to three tries (under TCG a first connect's ARP or CM
# exchange can time out, as boot.sh knows), in host1 or through H2.
ATTACH="for try in 1 2 3; do scalioctl attach $S --addr $A > /dev/null \\
	--timeout-ms \$((5000 * \${SCALIO_TIMEOUT_FACTOR:-1})) && exit 0; sleep 2; done; exit 1"
attach() { sh -c "$ATTACH"; }
mkdir -p /share/cl
: > /share/marks

step "dm-log-writes over ssd1's first 24 MiB, logging to ssd2"
# No udev in the VMs: dmsetup makes the nodes itself.
T "modprobe dm-mod && modprobe dm-log-writes &&
	dm() { echo \"\$2\" | dmsetup create --noudevsync \$1 && dmsetup mknodes \$1; }
	dm lw \"0 $SZ log-writes \$1 \$2\" &&
	dm cp \"0 $SZ linear \$1 $SZ\" && dm cd \"0 $SZ linear \$1 $((2 * SZ))\"" ||
	fail "dm setup"
T "scalioctl target-setup --store $S --addr $A --nblocks $NB --format /dev/mapper/lw" ||
	fail "target-setup --format on /dev/mapper/lw"
mark formatted
attach || fail "host1: attach"
H2 "$ATTACH" || fail "host2: attach"

step "PUT/DELETE from two hosts until the cleaner has run $CLEANS time(s)"
RUN="run -l /share/cl -S /share/cl.stop -t 4 -k 16 -d 25 -V 12 -v 1500"
$CL $RUN -H 1 > /share/run1.out 2>&1 &
p1=$!
H2 "$CL $RUN -H 2" > /share/run2.out 2>&1 &
p2=$!
i=0
while :; do
	i=$((i + 1))
	kill -0 $p1 2> /dev/null && kill -0 $p2 2> /dev/null ||
		{ cat /share/run1.out /share/run2.out; fail "a writer stopped"; }
	mark "m$i"
	[ $i -ge "$MARKS" ] && [ "$(stat cleaner_runs)" -ge "$CLEANS" ] && break
	# A bound on marks, not on time: about 2,000 PUTs between marks
	# would be needed for the cleaner not to have run by then.
	[ $i -le $((MARKS + 3000)) ] || fail "the cleaner has not run $CLEANS times after $i marks"
done
touch /share/cl.stop
wait $p1; r1=$?
wait $p2; r2=$?
cat /share/run1.out /share/run2.out
[ $r1 = 0 ] && [ $r2 = 0 ] || fail "the writers exited $r1 and $r2"
mark end
step "$i marks; cleaner runs $(stat cleaner_runs), log $(stat log_used_units)/$(stat log_total_units) units used"
scalioctl detach "$S" || fail "host1: detach"
H2 "scalioctl detach $S" || fail "host2: detach"
T "scalioctl target-teardown --store $S" || fail "teardown"
mark final
T "dmsetup remove lw && dmsetup create --noudevsync fin --table \"0 $SZ linear \$1 0\" &&
	dmsetup mknodes fin && $OD /dev/mapper/fin && dmsetup remove fin" > /share/ondisk.out ||
	fail "scalio_ondisk of the final state"
# dm-log-writes stops logging when its log device is full.
T "! dmesg | grep 'log-writes.*Ran out of space'" ||
	fail "ssd2 is too small for the log of this workload"
ls=$(sed -n 's/^geometry.* log_start=\([0-9]*\).*/\1/p' /share/ondisk.out)
[ -n "$ls" ] || { cat /share/ondisk.out; fail "no log_start"; }
T "$LW list \$2" > /share/entries || fail "lwlog list"
head -n 1 /share/entries

# The states: "ENTRY ACKMARK BOUNDMARK KIND" (tests/crash/pickstates.awk).
awk -v n="$STATES" -v ls="$ls" -f /scalio/tests/crash/pickstates.awk \
	/share/marks /share/entries > /share/states 2> /share/states.info ||
	fail "choosing the states"
cat /share/states.info
step "$(wc -l < /share/states) states to check (log_start $ls)"

# check_state ACK BOUND: attach, check every key, detach.
check_state() {
	attach || { echo "# attach failed"; return 1; }
	$CL check -l /share/cl -m /share/marks -a "$1" -b "$2" > /share/check.out 2>&1
	crc=$?
	cat /share/check.out
	scalioctl detach "$S" || { echo "# detach failed"; return 1; }
	return $crc
}
: > /share/failed
prev=-1 up=0 refused=0 nst=0
while read -r e a b kind; do
	nst=$((nst + 1))
	[ "$a" = - ] && a=
	[ "$b" = - ] && b=
	T "if [ -d $CFS ]; then scalioctl target-teardown --store $S > /tmp/td.out 2>&1 ||
			{ cat /tmp/td.out; exit 10; }; fi
		$LW replay \$2 /dev/mapper/cp $((prev + 1)) $e || exit 11
		dd if=/dev/mapper/cp of=/dev/mapper/cd bs=1M iflag=direct oflag=direct status=none || exit 12
		scalioctl target-setup --store $S --addr $A --nblocks $NB /dev/mapper/cd" \
		> /share/setup.out 2>&1
	rc=$?
	prev=$e
	[ $rc -lt 10 ] || { cat /share/setup.out; fail "state $e: the replay failed ($rc)"; }
	if [ $rc != 0 ]; then
		refused=$((refused + 1))
		why=$(grep -m1 -i 'refused\|error\|failed' /share/setup.out)
		if [ -z "$a" ]; then
			echo "# state $e ($kind, before the format finished): refused: $why"
			continue
		fi
		sed 's/^/  | /' /share/setup.out
		echo "# state $e ($kind, after mark $a): REFUSED"
		echo "$e $kind refused" >> /share/failed
		continue
	fi
	up=$((up + 1))
	if check_state "$a" "$b" > /share/state.out 2>&1; then
		echo "# state $e ($kind, after mark ${a:-none}): up, $(sed -n 's/^# check: //p' /share/check.out)"
	else
		cat /share/state.out
		echo "# state $e ($kind, after mark ${a:-none}): CHECK FAILED"
		echo "$e $kind check" >> /share/failed
	fi
done < /share/states
[ "$prev" -ge 0 ] || fail "no state checked"
step "$nst states checked: $up came up, $refused refused, $(wc -l < /share/failed) failed"

step "negative control: the checker fed a forged acknowledgement"
# The last state (the store is still up with it, when nothing failed).
# One key gets an acknowledged PUT of a version that was never issued:
# the store must be found to have lost it.
if [ -s /share/failed ]; then
	echo "# skipped: states failed (the check can fail already)"
else
	rm -rf /share/neg && cp -r /share/cl /share/neg || fail "copy"
	f=$(ls /share/neg | head -n 1)
	set -- $(awk '$1 == "A" { k = $2; v = $3 } END { print k, v + 1 }' "/share/neg/$f")
	printf 'A %s %s P\nK %s %s P\n' "$1" "$2" "$1" "$2" >> "/share/neg/$f"
	{
		printf 'all'
		for g in /share/neg/h*.log; do printf ' %s:%s' "${g##*/}" "$(wc -c < "$g")"; done
		echo
	} > /share/neg.marks
	attach || fail "control: attach"
	$CL check -l /share/neg -m /share/neg.marks -a all > /share/neg.out 2>&1
	nrc=$?
	cat /share/neg.out
	scalioctl detach "$S" || fail "control: detach"
	[ $nrc = 1 ] || fail "control: the check passed (or erred: $nrc) with a forged acknowledgement"
	grep -q "BAD $1: " /share/neg.out ||
		fail "control: the check did not name $1"
fi
T "[ ! -d $CFS ] || scalioctl target-teardown --store $S" || fail "final teardown"
[ -s /share/failed ] && { cat /share/failed; fail "$(wc -l < /share/failed) state(s) failed"; }
step "CRASHPOINTS TEST PASSED"
EOF
} > "$share/crashpoints.sh"

# ssd2 holds the log: about 5 MiB per mark (sparse images).
"$top/tests/vm/run" --kver "$kver" --hosts 2 --ssds 2 \
	--ssd-size $((128 + 8 * marks))M \
	--disks "$share/disks" --no-setup --share "$share" \
	--timeout $((1800 + 30 * states)) -- 'sh /share/crashpoints.sh'
rc=$?
t=$(($(date +%s) - t_start))
if [ $rc != 0 ]; then
	echo "# the log (ssd2.img) and the failing states are kept in $share (disks/, failed, states)"
	trap - EXIT
	echo "FAIL: tests/vm/run exited $rc (${t}s)"
	exit 1
fi
rm -rf "$share/disks"
echo "PASS: $(grep -c . "$share/states") crash states of a 2-host PUT/DELETE workload with the cleaner recovered correctly (${t}s)"
exit 0
