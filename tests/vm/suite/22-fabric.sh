#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 22-fabric: operations ride out fabric faults instead of failing at once
# (issue 39).  In host1, tests/selftests/scalio_fabric runs FABRIC_THREADS
# synchronous workers (80 % GET, 20 % PUT, one writer per key, every read
# checked against the writer's model) through each fault, logging ok and
# failed operations by second and every error with its errno:
#   A. the target is restarted (vmctl kill-target, start-target: recovery)
#      with the store's fast_io_fail_ms set above the restart time;
#   B. host1 is partitioned from the target (all its frames lost both
#      ways: sent into a dummy device, dropped on arrival)
#      for FABRIC_PART seconds: longer than the transport's retransmission
#      (~8.6 s, so the connection is really lost and re-made) and shorter
#      than the default bound (15 s, which the attach left);
#   C. a partition of RoCE longer than a bound of 5 s (times the lane's
#      SCALIO_TIMEOUT_FACTOR, as the attach's steps), lifted as the
#      third reconnect attempt made during it has sent its (lost) REQ
#      (rdma_cma:cm_send_req): operations must fail with
#      EHOSTDOWN while the partition still holds (no hang); none started
#      after the lift may, a probe GET the workload starts as it sees the
#      lift included (the reconnect must find the fabric back within
#      their bound: while operations wait, an attempt's time and the
#      delay after it add up to less than the bound), and none started
#      after the reconnect may fail at all; goodput during the partition
#      and after the lift is reported;
#   D. with the partition on again and the device closed, a detach must
#      complete (the bed's hang guard catches a hang); then attach again;
#   E. an attach whose connection request is lost (RoCE dropped, ARP not;
#      lifted as the REQ is out) must succeed on the IB CM's resend and
#      log the wait for it; the reconnect attempts of C must have logged
#      their connect step timing out, by name.
#   F. an attach whose address query is lost (ARP dropped, the target's
#      neighbour entry flushed; let through once the host logs that it
#      asks once more) must succeed.
#   G. a target that keeps refusing the reconnect: a connection of host1's
#      own (tests/hostile/scalio_hostile flood, paused but for a few PUTs
#      every 2 s, its keep-alive) holds the store's one client place
#      (attr_max_clients 1), the store's connection is dropped
#      (debug_lose_conn_after_write) and a GET waits, so every attempt,
#      0.5 s apart, is refused with EUSERS; after FABRIC_REFUSALS refused
#      attempts (traced: scalio_host_reconnect result=-87) the place is
#      given back.  However many attempts were refused, the host logs at
#      most 2 refusal lines ("target refused the connection", "connection
#      rejected"), no "reconnect failed" for a refused attempt, and once
#      "reconnected to ... after N refused attempts", N the refused
#      attempts traced.
# In A and B: no GET fails; at most FABRIC_THREADS PUTs fail (those in
# flight at the fault), each with ENOTCONN or ETIMEDOUT (outcome unknown,
# never EHOSTDOWN); in all: no read returns a value outside [acked,
# attempted] and, read back at the end, no acknowledged PUT is lost.  The
# goodput (successful ops/s) of the fault window over that of the 20 s
# before it is reported, never judged.
# The host's counters of these waits (scalioctl stats): reconnect_waits,
# reconnect_wait_ns, fast_io_fails, lost_get_retries are 0 after the
# attach and do not move over A's baseline (a healthy connection); in A,
# B and C waits, their time and GETs started over must grow, the mean wait
# within the bound; fast_io_fails must not move in A and B, and in C grow
# by exactly the EHOSTDOWN errors the workload logged.  The events
# scalio_host_conn_wait and scalio_host_get_lost, traced from the attach
# to the end of C, must match the counters (one conn_wait per wait, their
# waited_ns summed, one get_lost retry=1 per GET started over), some
# waits ending in EHOSTDOWN (C).
# Negative controls: tests/vm/controls/22-fabric.no-wait.patch,
# 22-fabric.no-wait-count.patch (the waits no longer counted),
# 22-fabric.refusal-lines.patch (G: a line at each refused attempt).
# Usage: 22-fabric.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }
make -C "$top/tests/hostile" > /dev/null ||
	{ echo "FAIL: make -C tests/hostile failed (libibverbs-dev, librdmacm-dev?)"; exit 1; }

suite_share fabric

cat > "$share/fabric.sh" << EOF
THREADS=${FABRIC_THREADS:-8} PART=${FABRIC_PART:-11}
GREF=${FABRIC_REFUSALS:-8}
EOF
cat >> "$share/fabric.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
F=/scalio/tests/selftests/scalio_fabric
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
ATTR=/sys/class/misc/scalio-$S/fast_io_fail_ms
BASE=20		# seconds of baseline before each fault
T0=$(date +%s)
bad=0
fail() { echo "FAIL: $*"; exit 1; }
check() { echo "# FAILED: $*"; bad=1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
hstat() { scalioctl stats "$S" --host-only | awk -v k="$1" '$1 == k { print $2 }'; }
# A partition loses host1's frames in flight, as a cut link does: those it
# sends are redirected to a dummy device that discards them (for the
# sender a transmit that succeeded), those that arrive are dropped on
# arrival.  Not by a qdisc that refuses the transmit (netem loss): 6.12's
# rxe takes a refused transmit for an error and fails the QP that sent
# it, its GSI QP included, and nothing connects again (testing.rst).
# cut WHAT FILTER...: lose the frames the u32 FILTER matches, both ways,
# and only those (part_off lifts it)
cut() {
	what=$1
	shift
	modprobe -a dummy sch_ingress cls_u32 act_mirred act_gact 2> /dev/null
	if ! ip link show fabric-cut > /dev/null 2>&1; then
		ip link add fabric-cut type dummy && ip link set fabric-cut up ||
			fail "the dummy device the $what partition sends into"
	fi
	tc qdisc add dev eth0 clsact &&
		tc filter add dev eth0 egress "$@" \
			action mirred egress redirect dev fabric-cut &&
		tc filter add dev eth0 ingress "$@" action drop ||
		fail "the $what partition"
}
# part_on: every frame of host1's fabric link
part_on() { cut whole protocol all prio 1 u32 match u32 0 0; }
part_off() { tc qdisc del dev eth0 clsact || fail "lifting the partition"; }
# roce_on: RoCE v2 (UDP 4791, both ways) only; ARP and the rest go through
roce_on() {
	cut RoCE protocol ip prio 1 u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff
}
# The host's counters of the waits (reconnect_waits, reconnect_wait_ns,
# fast_io_fails, lost_get_retries): snap NAME saves them as NAME_<counter>;
# moved NAME0 NAME1 C: the delta of counter C.
W="reconnect_waits reconnect_wait_ns fast_io_fails lost_get_retries"
snap() { for c in $W; do eval "$1_$c=\$(hstat $c)"; done; }
moved() { eval "echo \$(( \$$2_$3 - \$$1_$3 ))"; }
# show NAME0 NAME1 PHASE: print the deltas
show() {
	echo "# $3: reconnect_waits +$(moved $1 $2 reconnect_waits)," \
		"reconnect_wait_ns +$(moved $1 $2 reconnect_wait_ns)," \
		"fast_io_fails +$(moved $1 $2 fast_io_fails)," \
		"lost_get_retries +$(moved $1 $2 lost_get_retries)"
}
# judge_waits NAME0 NAME1 PHASE BOUND_MS: operations waited, within the
# bound on average, and GETs lost in flight started over
judge_waits() {
	w=$(moved $1 $2 reconnect_waits) ns=$(moved $1 $2 reconnect_wait_ns)
	[ "$w" -gt 0 ] || check "$3: reconnect_waits did not move"
	[ "$ns" -gt 0 ] || check "$3: reconnect_wait_ns did not move"
	[ "$w" -gt 0 ] && [ $((ns / w / 1000000)) -gt $(($4 + 1000)) ] &&
		check "$3: the waits averaged $((ns / w / 1000000)) ms, over the bound of $4 ms"
	[ "$(moved $1 $2 lost_get_retries)" -gt 0 ] ||
		check "$3: lost_get_retries did not move (no GET in flight at the loss?)"
}
T=/sys/kernel/tracing

# start NAME: the workload in the background, its output in /share
start() {
	rm -f /tmp/stop.$1 /tmp/lift.$1
	$F -s "$S" -t $THREADS -k 16 -g 80 -p "$1" -S /tmp/stop.$1 -L /tmp/lift.$1 \
		> /share/fab.$1.out 2>&1 &
	wpid=$!
	sleep $BASE
}
# finish NAME T0 T1: let it run 15 s more, stop it, summarize the window
# [T0, T1 + 10) against the BASE seconds before T0 (the first 2 skipped)
finish() {
	sleep 15
	touch /tmp/stop.$1
	wait $wpid
	rc=$?
	[ $rc = 0 ] || check "$1: scalio_fabric exited $rc (wrong or lost values)"
	grep -E '^(total|errno|#)' /share/fab.$1.out
	awk -v t0="$2" -v t1="$3" -v b=$BASE -v n="$1" '
		$1 == "sec" && $2 >= t0 - b + 2 && $2 < t0 { bo += $4 + $8; bs++ }
		$1 == "sec" && $2 >= t0 && $2 < t1 + 10 { fo += $4 + $8; fs++ }
		END {
			gb = bs ? bo / bs : 0; gf = fs ? fo / fs : 0
			printf "# goodput %s: before %.1f ops/s (%d s), fault window %.1f ops/s (%d s), ratio %.2f\n",
				n, gb, bs, gf, fs, gb ? gf / gb : 0
		}' /share/fab.$1.out
}
# errs NAME OP [ERRNO]: errors of OP (get|put), of that errno if given
errs() { grep -c "^err [0-9.]* $2 ${3:-}" /share/fab.$1.out; }
# judge_ride NAME: the A/B criteria
judge_ride() {
	g=$(errs $1 get) p=$(errs $1 put)
	pu=$(( $(errs $1 put ENOTCONN) + $(errs $1 put ETIMEDOUT) ))
	echo "# $1: GET errors $g, PUT errors $p ($pu ENOTCONN/ETIMEDOUT), in flight at most $THREADS"
	[ "$g" = 0 ] || check "$1: $g GETs failed"
	[ "$p" -le $THREADS ] || check "$1: $p PUTs failed, more than the $THREADS in flight"
	[ "$pu" = "$p" ] || check "$1: a PUT failed with another errno than ENOTCONN/ETIMEDOUT"
}

[ -w "$ATTR" ] || fail "no writable $ATTR"
def=$(cat $ATTR)
echo "# fast_io_fail_ms after attach: $def"
[ "$def" = 15000 ] || check "the default bound is $def, expected 15000"
# The attribute refuses what is out of range.
echo 600001 > $ATTR 2> /dev/null && check "fast_io_fail_ms took 600001"
echo x > $ATTR 2> /dev/null && check "fast_io_fail_ms took 'x'"
[ "$(cat $ATTR)" = 15000 ] || check "a refused write changed fast_io_fail_ms"

# A fresh attach has waited for nothing.
snap s0
for c in $W; do
	v=$(eval "echo \$s0_$c")
	[ "$v" = 0 ] || check "after attach: $c is '$v', not 0"
done
# The wait events of the whole run (until C), against the counters.
mountpoint -q $T || mount -t tracefs nodev $T || fail "no tracefs"
[ -d $T/events/scalio_host/scalio_host_conn_wait ] || fail "no scalio_host_conn_wait event"
echo 0 > $T/tracing_on
echo > $T/trace
echo 4096 > $T/buffer_size_kb
echo 1 > $T/events/scalio_host/scalio_host_conn_wait/enable
echo 1 > $T/events/scalio_host/scalio_host_get_lost/enable
echo 1 > $T/events/scalio_host/scalio_host_reconnect/enable
echo 1 > $T/events/scalio_host/scalio_host_reconnect_begin/enable
echo 1 > $T/tracing_on

step "A. target restart, bound 300 s"
echo 300000 > $ATTR || fail "set the bound"
rc0=$(hstat reconnects)
snap a0
start A
# the baseline, on a healthy connection: nothing waits
snap a1
show a0 a1 "A baseline (clean)"
for c in $W; do
	[ "$(moved a0 a1 $c)" = 0 ] || check "A baseline: $c moved on a healthy connection"
done
ta=$(date +%s)
step "A: kill-target"
vmctl kill-target || fail "kill-target"
vmctl start-target || fail "start-target"
tb=$(date +%s)
step "A: target back after $((tb - ta)) s"
reconnected() {
	target_up || never "the target is down"
	[ "$(hstat reconnects)" -gt "$rc0" ]
}
wait_until "the store to reconnect" reconnected || fail "no reconnect"
finish A $ta $tb
judge_ride A
snap a2
show a1 a2 A
judge_waits a1 a2 A 300000
[ "$(moved a1 a2 fast_io_fails)" = 0 ] || check "A: fast_io_fails moved under a 300 s bound"

step "B. partition of ${PART} s, bound 15 s"
echo 15000 > $ATTR || fail "set the bound"
rc0=$(hstat reconnects)
snap b0
start B
ta=$(date +%s)
part_on
sleep $PART
part_off
tb=$(date +%s)
wait_until "the store to reconnect" reconnected || fail "no reconnect after B"
echo "# B: reconnects $rc0 -> $(hstat reconnects)"
finish B $ta $tb
judge_ride B
snap b1
show b0 b1 B
judge_waits b0 b1 B 15000
[ "$(moved b0 b1 fast_io_fails)" = 0 ] || check "B: fast_io_fails moved (partition shorter than the bound)"

# C's bound: 5 s, scaled with the lane like the attach's steps (on the
# debug kernel each is 20 s, and an attempt gets at least half of one).
CB=$((5000 * ${SCALIO_TIMEOUT_FACTOR:-1}))
step "C. RoCE partition until the third reconnect REQ, bound $CB ms"
echo $CB > $ATTR || fail "set the bound"
rc0=$(hstat reconnects)
snap c0
# The connection requests to the store's port, in a trace instance of
# their own: its pipe is read (and emptied) here, the main buffer is
# counted below.
I=$T/instances/fabric
mkdir $I || fail "no trace instance"
echo 1 > $I/events/rdma_cma/cm_send_req/enable || fail "no rdma_cma:cm_send_req event"
start C
ta=$(date +%s)
echo "partition C" > $T/trace_marker
roce_on
# Lift the partition as the third reconnect attempt made during it has
# sent its REQ, which is lost: the worst moment for the fabric to come
# back.  The attempt under way cannot succeed before the IB CM resends
# (after about 6 s), and the fabric's return must be found within the
# bound of what started after the lift.  (The third, not the first: the
# first follows the loss by 0.5 s, as a GET leaves the connection for its
# SSD read (scalio_host_conn_leave()) and no reconnect waits for it; by
# the third, some 6 s after the loss, what waited since the loss has
# reached the bound and failed with EHOSTDOWN while the partition held.)
# Only RoCE is dropped: with ARP gone too, attempts would spend the
# partition resolving the address, and one under way at the lift would be
# saved by the next ARP reply.
exec 3< $I/trace_pipe
n=0
while [ $n -lt 3 ] && read -r line <&3; do
	case $line in *:4800*) ;; *) continue ;; esac
	n=$((n + 1))
	echo "# C: REQ $n: ${line##*: }"
done
tb=$(date +%s)
part_off
# The workload's probe: one GET started as it sees this (no fork here).
: > /tmp/lift.C
# The lift, in ms of the clock the workload stamps its operations with:
# an operation started at or after it found the fabric whole.
lift=$(date +%s%3N)
echo "lift" > $T/trace_marker
exec 3<&-
echo 0 > $I/events/rdma_cma/cm_send_req/enable
rmdir $I
[ $n = 3 ] || fail "C: the trace pipe ended after $n REQs"
wait_until "the store to reconnect" reconnected || fail "no reconnect after C"
# When the reconnect was seen (at most one poll late): operations started
# after it found the connection up.
seen=$(date +%s%3N)
finish C $ta $tb
down=$(errs C '[a-z]*' EHOSTDOWN)
# EHOSTDOWN errors logged before the partition was lifted: ops came back
# with the bound's error instead of hanging until the network did.
early=$(awk -v l=$lift '$1 == "err" && $4 == "EHOSTDOWN" && $2 * 1000 < l' /share/fab.C.out | wc -l)
# Operations started after the lift wait for the reconnect, which must
# come within their bound: none of them fails with EHOSTDOWN, and none
# started after the reconnect was seen fails at all.
after=$(awk -v l=$lift '$1 == "err" && $4 == "EHOSTDOWN" && $5 * 1000 >= l' /share/fab.C.out | wc -l)
afterseen=$(awk -v l=$seen '$1 == "err" && $5 * 1000 >= l' /share/fab.C.out | wc -l)
late=$(awk -v tb=$tb '$1 == "sec" && $2 > tb + 5 { n += $4 + $8 } END { print n + 0 }' /share/fab.C.out)
echo "# C: EHOSTDOWN $down: $early failed before the lift, $after of the operations started after it;" \
	"$afterseen errors of those started after the reconnect was seen ($((seen - lift)) ms after the lift); $late ops succeeded from 5 s after the lift"
# Goodput: ops/s during the partition and after the lift (to the end of
# the window), against the BASE seconds before the partition.
awk -v ta=$ta -v tb=$tb -v b=$BASE '
	$1 == "sec" && $2 >= ta - b + 2 && $2 < ta { bo += $4 + $8; bs++ }
	$1 == "sec" && $2 >= ta && $2 < tb { po += $4 + $8; ps++ }
	$1 == "sec" && $2 > tb { ao += $4 + $8; as++ }
	END {
		gb = bs ? bo / bs : 0
		printf "# goodput C: before %.1f ops/s (%d s), partition %.1f ops/s (%d s, ratio %.2f), after the lift %.1f ops/s (%d s, ratio %.2f)\n",
			gb, bs, ps ? po / ps : 0, ps, gb && ps ? po / ps / gb : 0,
			as ? ao / as : 0, as, gb && as ? ao / as / gb : 0
	}' /share/fab.C.out
# The attempts of C and the lift, from the main buffer (its clock).
sed -n '/tracing_mark_write: partition C/,$p' $T/trace |
	grep -E 'scalio_host_reconnect(_begin)?: |tracing_mark_write: ' > /tmp/rc.C
sed 's/^ *//; s/^/#   /' /tmp/rc.C | tail -n 16
[ "$early" -gt 0 ] || check "C: no operation failed with EHOSTDOWN during the partition"
[ "$late" -gt 0 ] || check "C: no operation succeeded after the partition"
[ "$after" = 0 ] || check "C: $after operations started after the lift failed with EHOSTDOWN"
# The workers' waits run in step (they all met the loss together), so
# whether one starts just after the lift is chance; the probe does.
probe=$(grep '^probe ' /share/fab.C.out)
echo "# C: $probe (start, end, result)"
[ "${probe##* }" = ok ] || check "C: the probe GET started after the lift failed: ${probe:-none}"
[ "$afterseen" = 0 ] || check "C: $afterseen operations started after the reconnect failed"
# What makes that hold whenever the fabric comes back: while operations
# wait, an attempt's time and the delay before the next one (each attempt
# of C that failed) add up to less than their bound.
sched=$(awk '
	/reconnect_begin: / { split($NF, a, "="); bud = a[2] }
	/reconnect: / && !/result=0 / && bud != "" { split($NF, a, "="); print bud + a[2]; bud = "" }' /tmp/rc.C |
	sort -n | tail -n 1)
echo "# C: longest attempt budget + retry delay while waiting: ${sched:-none} ms"
[ -n "$sched" ] && [ "$sched" -lt $CB ] ||
	check "C: a reconnect attempt and the delay after it took ${sched:-?} ms of the $CB ms bound"
snap c1
show c0 c1 C
judge_waits c0 c1 C $CB
# Every EHOSTDOWN the workload saw (its workers' and its probe's) is one
# fast_io_fails (nothing else ran).
[ "${probe##* }" = EHOSTDOWN ] && down=$((down + 1))
[ "$(moved c0 c1 fast_io_fails)" = "$down" ] ||
	check "C: fast_io_fails +$(moved c0 c1 fast_io_fails), the workload saw $down EHOSTDOWN"

# The trace since the attach against the counters (from 0 then).
echo 0 > $T/tracing_on
grep -v '^#' $T/trace > /tmp/tw.txt
overrun=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
echo 0 > $T/events/scalio_host/enable
echo > $T/trace
snap tr
grep -m 3 'scalio_host_conn_wait:' /tmp/tw.txt | sed 's/^ *//; s/^/# sample: /'
grep -m 1 'scalio_host_get_lost:' /tmp/tw.txt | sed 's/^ *//; s/^/# sample: /'
ev=$(grep -c 'scalio_host_conn_wait: store=' /tmp/tw.txt)
evns=$(sed -n 's/.*scalio_host_conn_wait: .* waited_ns=\([0-9]*\)$/\1/p' /tmp/tw.txt |
	awk '{ s += $1 } END { printf "%.0f\n", s }')
evdown=$(grep 'scalio_host_conn_wait: ' /tmp/tw.txt | grep -c ' result=-112 ')
evlost=$(grep 'scalio_host_get_lost: ' /tmp/tw.txt | grep -c ' retry=1$')
echo "# trace: $ev conn_wait events (waited_ns summed $evns, $evdown result=-EHOSTDOWN), $evlost get_lost retry=1; overruns $overrun"
[ "$overrun" = 0 ] || check "trace: $overrun events overwritten"
[ "$ev" = "$tr_reconnect_waits" ] || check "trace: $ev conn_wait events, reconnect_waits $tr_reconnect_waits"
[ "$evns" = "$tr_reconnect_wait_ns" ] || check "trace: waited_ns sums to $evns, reconnect_wait_ns $tr_reconnect_wait_ns"
[ "$evlost" = "$tr_lost_get_retries" ] || check "trace: $evlost get_lost retry=1, lost_get_retries $tr_lost_get_retries"
[ "$evdown" -gt 0 ] && [ "$evdown" -le "$tr_fast_io_fails" ] ||
	check "trace: $evdown waits ended in EHOSTDOWN, fast_io_fails $tr_fast_io_fails"

step "D. detach while partitioned"
echo 15000 > $ATTR || fail "set the bound"
part_on
sleep 12
scalioctl detach "$S"
drc=$?
part_off
[ $drc = 0 ] || check "D: detach while partitioned failed ($drc)"
for try in 1 2 3 4 5; do
	scalioctl attach "$S" --addr "$A" > /dev/null && break
	[ $try = 5 ] && fail "attach after D"
	sleep 3
done
[ "$(cat $ATTR)" = 15000 ] || check "D: a new attach's bound is $(cat $ATTR)"
scalioctl put "$S" after-d yes || check "put after D"

step "E. attach whose connection request is lost"
# RoCE (UDP 4791) dropped, ARP not: the attach resolves the target and
# sends its REQ into the partition, which is lifted as soon as the REQ is
# out.  The IB CM resends it after about 6 s, later than the 5 s connect
# step: the attach must wait for the resend (and log it), not fail.
scalioctl detach "$S" > /dev/null || fail "detach before E"
mkdir $I || fail "no trace instance"
echo 1 > $I/events/rdma_cma/cm_send_req/enable || fail "no rdma_cma:cm_send_req event"
roce_on
# The default 5 s step on every lane: the resend is the CM's, at 6.1 s.
scalioctl attach "$S" --addr "$A" --timeout-ms 5000 > /tmp/attach.E 2>&1 &
apid=$!
exec 3< $I/trace_pipe
while read -r line <&3; do
	case $line in *:4800*) break ;; esac
done
part_off
exec 3<&-
echo 0 > $I/events/rdma_cma/cm_send_req/enable
rmdir $I
echo "# E: REQ sent: ${line##*: }"
wait $apid
arc=$?
sed 's/^/# E: attach: /' /tmp/attach.E
[ $arc = 0 ] || check "E: the attach whose REQ was lost failed ($arc)"
dmesg | grep -E 'kv0: connect to .* (unanswered|timed out) after' | tail -n 3 | sed 's/^/# E: /'
dmesg | grep -q "$S: connect to $A:4800 unanswered after" ||
	check "E: no 'unanswered ... waiting for the REQ's resend' in the log"
# C's attempts timed out in their connect step, and the log named it.
dmesg | grep -q "$S: connect to $A:4800 timed out after" ||
	check "C: no reconnect attempt logged its connect step timing out"
scalioctl put "$S" after-e yes || check "put after E"

step "F. attach whose address query is lost"
# The target's neighbour entry flushed and ARP dropped: the attach's
# address query goes unanswered.  Once the host logs that it asks once
# more (on a fresh id), ARP is let through: the attach must succeed.
scalioctl detach "$S" > /dev/null || fail "detach before F"
ip neigh flush dev eth0
cut ARP protocol arp prio 1 u32 match u32 0 0
n0=$(dmesg | grep -c "$S: address of $A:4800 unresolved after")
scalioctl attach "$S" --addr "$A" --timeout-ms 5000 > /tmp/attach.F 2>&1 &
apid=$!
while kill -0 $apid 2> /dev/null &&
	[ "$(dmesg | grep -c "$S: address of $A:4800 unresolved after")" = "$n0" ]; do
	sleep 0.2
done
part_off
wait $apid
arc=$?
sed 's/^/# F: attach: /' /tmp/attach.F
dmesg | grep -E "$S: address (of|resolution to) $A" | tail -n 2 | sed 's/^/# F: /'
[ $arc = 0 ] || check "F: the attach whose address query was lost failed ($arc)"
scalioctl put "$S" after-f yes || check "put after F"

step "G. a target that refuses the reconnect $GREF times"
H=/scalio/tests/hostile/scalio_hostile
C=/sys/kernel/config/scalio/stores/$S
mc0=$(vmctl exec-target "cat $C/attr_max_clients") || fail "G: read attr_max_clients"
rm -f /tmp/stop.G
touch /tmp/pause.G
$H "$A" 4800 "$S" flood 1 /tmp/stop.G /tmp/pause.G > /tmp/flood.G 2>&1 &
fpid=$!
flood_up() {
	kill -0 $fpid 2> /dev/null || never "the flood client exited: $(cat /tmp/flood.G)"
	grep -q '^flood: 1 connections admitted' /tmp/flood.G
}
wait_until "the flood connection" flood_up || fail "G: no flood connection"
# Its keep-alive: a few PUTs every 2 s (the target reaps a connection
# silent for its KATO).
(while [ ! -e /tmp/stop.G ]; do
	sleep 2
	rm -f /tmp/pause.G
	sleep 0.1
	touch /tmp/pause.G
done) &
kpid=$!
vmctl exec-target "echo 1 > $C/attr_max_clients" || fail "G: set attr_max_clients"
mark="scalio-test: 22-fabric step G"
echo "$mark" > /dev/kmsg
echo 0 > $T/tracing_on
echo > $T/trace
echo 1 > $T/events/scalio_host/scalio_host_reconnect/enable
echo 1 > $T/tracing_on
rc0=$(hstat reconnects)
echo 1 > /sys/module/scalio_host/parameters/debug_lose_conn_after_write ||
	fail "G: set debug_lose_conn_after_write"
scalioctl put "$S" g.lose x 2> /dev/null &&
	check "G: the PUT that was to lose the connection succeeded"
echo 0 > /sys/module/scalio_host/parameters/debug_lose_conn_after_write
# A GET waits all along: the attempts follow each other after 0.5 s.
(while [ ! -e /tmp/stop.G ]; do scalioctl get "$S" after-f > /dev/null 2>&1; done) &
gpid=$!
refusals() { grep -c "scalio_host_reconnect: store=$S result=-87 " $T/trace; }
refused_enough() {
	kill -0 $fpid 2> /dev/null || never "the flood client exited"
	[ "$(hstat reconnects)" = "$rc0" ] || never "the store reconnected while refused"
	[ "$(refusals)" -ge "$GREF" ]
}
wait_until "$GREF refused reconnect attempts" refused_enough ||
	fail "G: the target did not refuse $GREF attempts"
vmctl exec-target "echo $mc0 > $C/attr_max_clients" || fail "G: restore attr_max_clients"
wait_until "the store to reconnect" reconnected || fail "no reconnect after G"
touch /tmp/stop.G
wait $gpid
wait $kpid
wait $fpid || check "G: the flood client failed: $(cat /tmp/flood.G)"
echo 0 > $T/tracing_on
grep -v '^#' $T/trace > /tmp/tr.G
echo 0 > $T/events/scalio_host/enable
echo > $T/trace
dmesg | sed -n "/$mark/,\$p" > /tmp/log.G
refused=$(grep -c "scalio_host_reconnect: store=$S result=-87 " /tmp/tr.G)
failed=$(grep "scalio_host_reconnect: store=$S result=-" /tmp/tr.G | grep -vc " result=-87 ")
lines=$(grep -cE "$S: (target refused the connection|connection rejected)" /tmp/log.G)
flines=$(grep -c "$S: reconnect failed" /tmp/log.G)
back=$(grep "$S: reconnected to " /tmp/log.G)
grep -E "$S: (target refused|connection rejected|reconnect failed|reconnected)" /tmp/log.G |
	head -n 12 | sed 's/^/# G: /'
echo "# G: $refused attempts refused (EUSERS), $failed failed otherwise; $lines refusal lines, $flines 'reconnect failed'"
[ "$refused" -ge "$GREF" ] || check "G: only $refused attempts were refused"
[ "$lines" -ge 1 ] || check "G: no refusal was logged"
[ "$lines" -le 2 ] || check "G: $lines refusal lines for $refused refused attempts (at most 2)"
[ "$flines" -le "$failed" ] ||
	check "G: $flines 'reconnect failed' lines, $failed attempts failed other than refused"
[ "$(echo "$back" | grep -c .)" = 1 ] &&
	echo "$back" | grep -q "$S: reconnected to $A:4800 after $refused refused attempts\$" ||
	check "G: not one 'reconnected ... after $refused refused attempts': ${back:-none}"
scalioctl put "$S" after-g yes || check "put after G"

[ $bad = 0 ] || fail "see above"
step "FABRIC TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 1 --share "$share" \
	-- 'sh /share/fabric.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: GETs ride out a target restart and a partition; writes fail only in flight; the bound holds"
exit 0
