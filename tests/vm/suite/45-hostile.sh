#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 45-hostile: a hostile client (tests/hostile/scalio_hostile, user space,
# librdmacm + libibverbs) attacks the target from host1, one attack at a
# time, beside host1's well-behaved scalio-host module:
#   connect-bad   malformed connect private data (short, magic, major,
#                 unterminated or unknown store, queue depth 0; 65535 must
#                 be accepted, clamped; an all-zero host id)
#   admit-bad     ADMIT as a host NQN not in allowed_hosts (-EACCES) and
#                 with a wrong HMAC (-EKEYREJECTED): refused, dropped
#   rpc-bad       hdr.len != received bytes, a SEND of 8 KiB + 1, unknown
#                 opcode, the response flag, klen 0 and 33, vlen 4097, a
#                 status in a request, a write's inflight hint above the
#                 granted depth, more requests than the granted depth
#   inval         SEND-with-invalidate of every rkey it was given, each
#                 from the connection it was given to; host1 must not
#                 even reconnect (each connection has its own MRs)
#   inval-key     SEND-with-invalidate of host1's rkey (from the target's
#                 debug log, after host1 attaches again): the target must
#                 find the key's owner and disconnect host1 too, before
#                 host1 (idle) uses its dead MR; skipped without dynamic
#                 debug (the debug lane's kernel)
#   stale         READs of the index, seg table and header with the keys
#                 of a connection that has ended, from a new one: refused
#                 (its own keys work); host1 must not reconnect
#   norecv        requests without a receive buffer posted
#   writeimm      an RDMA WRITE with immediate into the index (queue depth
#                 1): it takes the target's one receive without filling
#                 it; the target must drop the connection, not parse the
#                 buffer's old contents (the client's last HELLO) again
#   hold          4 connections that are not admitted, with
#                 attr_max_clients=4: host1's attach must still succeed
#                 (the target drops the oldest of them for it); once with
#                 connections that send nothing, once with ones whose ADMIT
#                 was refused and that never take the answer
#   cycles        $CYCLES connect (+ HELLO every other one) / disconnect
#                 cycles while host1 PUTs
#   scribble      RDMA WRITE garbage over every byte of every index chunk
#                 (and a WRITE to the read-only seg table and header, which
#                 must fail); then PUTs until the cleaner has run, a store
#                 disable/enable and a crash + recovery
# After each: the target answers (scalioctl stats), every key host1 wrote
# before reads back its acknowledged value (scalio_crash verify), and
# neither kernel log has a warning.  Every attack but admit-bad is admitted
# first (host1's NQN and /etc/scalio/hostkey, its own host id), so that it
# reaches the RPC layer.  CYCLES defaults to 1000 (about 65 s under TCG).
# The client learns that the target dropped a connection from the CM's
# DISCONNECTED event, not by waiting out its 10 s for an answer.
# Usage: 45-hostile.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }
make -C "$top/tests/hostile" > /dev/null ||
	{ echo "FAIL: make -C tests/hostile failed (libibverbs-dev, librdmacm-dev?)"; exit 1; }

suite_share hostile

cat > "$share/hostile.sh" << EOF
CYCLES=${CYCLES:-1000}
EOF
cat >> "$share/hostile.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
X=/scalio/tests/selftests/scalio_crash
H=/scalio/tests/hostile/scalio_hostile
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
P=4800
PRE="-l /tmp/pre -p pre -t 2 -k 50 -V 12 -v 200"
HOT="-l /tmp/hot -p hot -t 4 -k 4 -V 4096 -v 4096"
T0=$(date +%s)
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
stat() {
	scalioctl stats --json "$S" | sed -n "s/.*\"target_$1\": \([0-9]*\).*/\1/p"
}
hstat() {
	scalioctl stats --json "$S" | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p"
}
# An attack on the attacker's own keys must not reach host1's connection.
same_conn() {
	local now
	now=$(hstat reconnects)
	[ -n "$now" ] && [ "$now" = "$1" ] ||
		fail "$2: host1 was disconnected (reconnects $1 -> $now)"
}
BAD='WARNING|BUG|Oops|Call Trace|refcount|lockdep|general protection|UBSAN|KASAN'
# The debug lane's PROVE_RCU announces itself at boot: not a report.
OKLINE='RCU lockdep checking is enabled'
# The waits poll once a second, with no bound but the bed's hang guard.
served() {
	target_up || never "the target is down"
	scalioctl stats "$S" > /dev/null 2>&1
}
reconnected_since() {
	target_up || never "the target is down"
	[ "$(hstat reconnects)" -gt "$1" ]
}
holding() {
	kill -0 "$hpid" 2> /dev/null || never "the hostile client exited"
	grep -q '^hold: holding 4' /tmp/hold.out
}
# check WHAT: target alive, the keys written before intact, logs clean.
check() {
	# host1 may be reconnecting after an attack that dropped it.
	WAIT_INTERVAL=1 wait_until "host1 to be served" served ||
		fail "$1: host1 not reconnected"
	vmctl exec-target "test -d /sys/kernel/config/scalio/stores/$S" ||
		fail "$1: target lost the store"
	$X verify $PRE -F > /tmp/verify.out 2>&1 ||
		{ cat /tmp/verify.out; fail "$1: keys written before the attack"; }
	[ -n "$(stat batches)" ] || fail "$1: no stats from the target"
	if dmesg | grep -E "$BAD" | grep -v "$OKLINE"; then fail "$1: host kernel log"; fi
	if vmctl exec-target "dmesg | grep -E '$BAD' | grep -v '$OKLINE'"; then
		fail "$1: target kernel log"
	fi
	step "$1: target alive, keys intact, logs clean"
}
attack() {
	step "attack: $*"
	$H "$A" $P "$S" "$@" || fail "attack $1: the hostile client says the target let it through"
}

step "keys before the attacks"
$X write $PRE -F -n 100 > /tmp/w.out 2>&1 || { cat /tmp/w.out; fail "writing"; }
check baseline

attack connect-bad
check connect-bad
attack admit-bad
check admit-bad
attack rpc-bad
check rpc-bad
r0=$(hstat reconnects)
attack inval
check inval
same_conn "$r0" inval
attack stale
check stale
same_conn "$r0" stale
attack norecv
check norecv
r0=$(hstat reconnects)
attack writeimm
vmctl exec-target "dmesg | grep 'RDMA WRITE with immediate'" ||
	fail "writeimm: the target did not log the violation"
check writeimm
same_conn "$r0" writeimm

# hold: connections that are not admitted (no credentials needed) fill
# every client slot; host1 must still get in: the target drops the oldest
# of them to make room.  First ones that send nothing, then ones whose
# ADMIT was refused and that never take the answer (the target cannot
# finish sending it).  Held for less than the keep-alive timeout, after
# which the reaper would drop them anyway.
MC=/sys/kernel/config/scalio/stores/$S/attr_max_clients
for how in silent refused; do
	step "hold ($how): 4 connections not admitted at attr_max_clients=4, then host1 attaches"
	scalioctl detach "$S" || fail "hold: detach"
	vmctl exec-target "echo 4 > $MC" || fail "hold: setting attr_max_clients"
	opt=
	[ $how = refused ] && opt=refused
	evict="dropping client [0-9]* (connected, not admitted) for a new one"
	e0=$(vmctl exec-target "dmesg | grep -c '$evict'")
	# The hold ends once host1 is in (/tmp/hold.stop) and the target has
	# dropped one of the 4, or after its seconds.
	rm -f /tmp/hold.stop
	$H "$A" $P "$S" hold 4 $((10 * ${SCALIO_TIMEOUT_FACTOR:-1})) $opt /tmp/hold.stop \
		> /tmp/hold.out 2>&1 &
	hpid=$!
	WAIT_INTERVAL=1 wait_until "the hostile client's 4 connections" holding ||
		fail "hold ($how): the hostile client did not get its 4 connections"
	scalioctl attach "$S" --addr "$A" ||
		{ cat /tmp/hold.out; fail "hold ($how): host1 locked out by connections not admitted"; }
	: > /tmp/hold.stop
	wait $hpid
	cat /tmp/hold.out
	grep -q '^hold: [1-9][0-9]* of 4 dropped' /tmp/hold.out ||
		fail "hold ($how): host1 got in, but the target dropped none of the held connections"
	# ...and dropped them to make room (not the reaper, not their own end).
	[ "$(vmctl exec-target "dmesg | grep -c '$evict'")" -gt "$e0" ] ||
		fail "hold ($how): the target logged no eviction for host1"
	vmctl exec-target "echo 64 > $MC" || fail "hold: resetting attr_max_clients"
	check "hold ($how)"
done

# inval-key: invalidating another client's key.  rxe looks an invalidated
# key up device-wide, whatever PD or QP it belongs to, so the target finds
# the key's owner (scalio_tgt_rdev_inval_work()) and disconnects it too, before
# it trips over its dead MR.  host1 stays idle meanwhile (stats is an RPC,
# no one-sided op): only the target's lookup can make it reconnect.  The
# keys are in the target's debug log (dynamic debug; the debug lane's
# kernel has it since 2026-11-28), logged when host1 attaches again.
DDC=/sys/kernel/debug/dynamic_debug/control
if vmctl exec-target "test -w $DDC"; then
	step "inval-key: host1's rkey invalidated by another client"
	vmctl exec-target "echo 'module scalio_target format \"registered as rkey\" +p' > $DDC" ||
		fail "inval-key: enabling the target's debug line"
	scalioctl detach "$S"; scalioctl attach "$S" --addr "$A" ||
		fail "inval-key: attach again"
	vmctl exec-target "echo 'module scalio_target format \"registered as rkey\" -p' > $DDC"
	H1=$(cat /etc/nvme/hostnqn)
	cid=$(vmctl exec-target "dmesg | sed -n 's/.*client \([0-9]*\) admitted: host $H1.*/\1/p' | tail -n 1")
	key=$(vmctl exec-target "dmesg | sed -n 's/.*client $cid: region 0 registered as rkey \(0x[0-9a-f]*\)\$/\1/p' | tail -n 1")
	[ -n "$cid" ] && [ -n "$key" ] ||
		fail "inval-key: host1's client id ($cid) or rkey ($key) not in the target's log"
	echo "   host1 is client $cid, its region 0 has rkey $key"
	r1=$(hstat reconnects)
	attack inval-key "$key"
	WAIT_INTERVAL=1 wait_until "host1 (idle) to be disconnected and reconnect" reconnected_since "$r1" ||
		fail "inval-key: host1 (idle) not disconnected: the target did not find its key's owner"
	vmctl exec-target "dmesg | grep -q \"client $cid's index MR rkey $key was invalidated\"" ||
		fail "inval-key: the target's log does not name client $cid and rkey $key"
	step "inval-key: host1 disconnected by the target and reconnected ($(hstat reconnects) reconnects)"
	check inval-key
else
	step "inval-key: skipped (no dynamic debug in the target's kernel)"
fi

step "cycles: $CYCLES during PUTs"
$X write -l /tmp/cyc -p cyc -t 2 -k 8 -V 12 -v 64 -F -T 3600 > /tmp/cyc.out 2>&1 &
wpid=$!
attack cycles "$CYCLES"
kill $wpid 2> /dev/null
wait $wpid
check cycles

attack scribble
check scribble
step "PUTs after the scribble until the cleaner has run"
r0=$(stat cleaner_runs)
n=0
while [ "$(stat cleaner_runs)" -le "$r0" ]; do
	n=$((n + 1))
	[ $n -le 40 ] || fail "the cleaner did not run after 40 rounds"
	$X write $HOT -F -n 100 > /tmp/w.out 2>&1 ||
		{ cat /tmp/w.out; fail "PUTs after the scribble"; }
done
$X verify $HOT -F > /tmp/v.out 2>&1 || { cat /tmp/v.out; fail "hot keys"; }
check "scribble + cleaner ($(stat cleaner_runs) runs, $(stat cleaner_moved) moved)"

step "store disable + enable"
vmctl exec-target "cd /sys/kernel/config/scalio/stores/$S && echo 0 > enable && echo 1 > enable" ||
	fail "disable/enable after the scribble"
scalioctl detach "$S"; scalioctl attach "$S" --addr "$A" || fail "attach after enable"
$X verify $HOT -F > /tmp/v.out 2>&1 || { cat /tmp/v.out; fail "hot keys after enable"; }
check "disable + enable"

step "scribble again, then crash and recovery"
attack scribble
vmctl kill-target || fail "kill-target"
vmctl start-target || fail "start-target (recovery)"
scalioctl detach "$S"; scalioctl attach "$S" --addr "$A" || fail "attach after recovery"
$X verify $HOT -F > /tmp/v.out 2>&1 || { cat /tmp/v.out; fail "hot keys after recovery"; }
check recovery
step "HOSTILE TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 1 --ssd-size 20M --share "$share" \
	--timeout 1800 -- 'sh /share/hostile.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: every attack refused or survived; keys intact, logs clean"
exit 0
