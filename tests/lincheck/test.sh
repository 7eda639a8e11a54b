#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit tests of lincheck and of the history recorder.  Prints TAP; exits
# non-zero on any mismatch.  Run from anywhere: `make -C tests/lincheck test`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lc=$here/lincheck
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0

# expect NAME EXIT_CODE [lincheck options] <<< history
expect() {
	local name=$1 want=$2 out rc
	shift 2
	cat > "$tmp/h"
	out=$("$lc" "$@" "$tmp/h" 2>&1)
	rc=$?
	n=$((n + 1))
	if [ "$rc" -eq "$want" ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name (exit $rc, want $want)"
		echo "$out" | sed 's/^/# /'
		fail=$((fail + 1))
	fi
	last_out=$out
}

# check NAME CONDITION-STRING: a shell test on the previous output
check() {
	n=$((n + 1))
	if eval "$2"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		echo "$last_out" | sed 's/^/# /'
		fail=$((fail + 1))
	fi
}

expect "empty history is linearizable" 0 < /dev/null
check "empty history prints OK 0 0" '[ "$last_out" = "OK 0 0" ]'

expect "sequential put/get/del" 0 <<'H'
# comments and blank lines are ignored

c1 put a 1 ok 0 10
c1 get a 1 ok 20 30
c2 del a - ok 40 50
c2 get a - missing 60 70
c1 del a - missing 80 90
H
check "OK line counts ops and keys" '[ "$last_out" = "OK 5 1" ]'

expect "stale read after a completed write" 1 <<'H'
c1 put a 1 ok 0 10
c1 put a 2 ok 20 30
c2 get a 1 ok 40 50
H
check "violation names the key and the culprit line" \
	'echo "$last_out" | grep -q "VIOLATION key a" && echo "$last_out" | grep -q "line 3: c2 get a 1"'

expect "read of a never-written value" 1 <<'H'
c1 put a 1 ok 0 10
c2 get a 7 ok 20 30
H

expect "read of a value before its put was invoked" 1 <<'H'
c2 get a 1 ok 0 10
c1 put a 1 ok 20 30
H

expect "missing read after a completed put" 1 <<'H'
c1 put a 1 ok 0 10
c2 get a - missing 20 30
H

expect "lost delete" 1 <<'H'
c1 put a x ok 0 10
c1 del a - ok 20 30
c2 get a x ok 40 50
H

expect "overlapping puts, read order fixes the only linearization" 0 <<'H'
c1 put a 1 ok 0 100
c2 put a 2 ok 0 100
c3 get a 1 ok 110 120
c3 get a 1 ok 130 140
H

expect "overlapping puts, reads that need both orders" 1 <<'H'
c1 put a 1 ok 0 100
c2 put a 2 ok 0 100
c3 get a 1 ok 110 120
c4 get a 2 ok 130 140
H

expect "concurrent read may see old or new value" 0 <<'H'
c1 put a 1 ok 0 10
c1 put a 2 ok 20 60
c2 get a 1 ok 30 40
c3 get a 2 ok 35 45
c2 get a 2 ok 70 80
H

expect "concurrent reads in both orders of one write: new then old" 1 <<'H'
c1 put a 1 ok 0 10
c1 put a 2 ok 20 100
c2 get a 2 ok 30 40
c3 get a 1 ok 50 60
H

expect "touching intervals (return == invoke) overlap" 0 <<'H'
c1 put a 1 ok 0 10
c2 get a - missing 10 20
H

expect "failed put whose value is read later" 0 <<'H'
c1 put a 1 err 0 10
c2 get a 1 ok 50 60
H

expect "failed put never read: absent stays possible" 0 <<'H'
c1 put a 1 err 0 10
c2 get a - missing 50 60
H

expect "failed put takes effect at most once" 1 <<'H'
c1 put a 0 ok 0 5
c1 put a 1 err 10 20
c2 get a 1 ok 30 40
c2 put a 2 ok 45 48
c2 get a 1 ok 50 60
H

expect "failed put cannot take effect before its invoke" 1 <<'H'
c2 get a 1 ok 0 10
c1 put a 1 err 20 30
H

expect "failed put may take effect long after it returned" 0 <<'H'
c1 put a 1 err 0 10
c2 put a 2 ok 20 30
c2 get a 2 ok 40 50
c2 get a 1 ok 60 70
H

expect "failed delete explains a later missing read" 0 <<'H'
c1 put a 1 ok 0 10
c1 del a - err 20 30
c2 get a 1 ok 40 50
c2 get a - missing 60 70
H

expect "failed get constrains nothing" 0 <<'H'
c1 put a 1 ok 0 10
c2 get a - err 20 30
c2 get a 1 ok 40 50
H

expect "delete of an absent key reporting missing" 0 <<'H'
c1 del a - missing 0 10
H

expect "delete reporting missing on a present key" 1 <<'H'
c1 put a 1 ok 0 10
c1 del a - missing 20 30
H

expect "blind delete ok on an absent key (default)" 0 <<'H'
c1 del a - ok 0 10
H

expect "strict delete ok on an absent key (-s)" 1 -s <<'H'
c1 del a - ok 0 10
H

expect "keys are independent: only key b violates" 1 <<'H'
c1 put a 1 ok 0 10
c1 put b 1 ok 20 30
c2 get a 1 ok 40 50
c2 get b 2 ok 60 70
H
check "reports key b" 'echo "$last_out" | grep -q "VIOLATION key b"'

expect "-a reports every violating key" 1 -a <<'H'
c1 get a 1 ok 0 10
c1 get b 1 ok 20 30
H
check "both keys reported" '[ "$(echo "$last_out" | grep -c VIOLATION)" -eq 2 ]'

expect "bad input: wrong field count" 2 <<'H'
c1 put a 1 ok 0
H
expect "bad input: unknown op" 2 <<'H'
c1 cas a 1 ok 0 10
H
expect "bad input: unknown result" 2 <<'H'
c1 put a 1 fine 0 10
H
expect "bad input: non-integer timestamp" 2 <<'H'
c1 put a 1 ok 0 1x
H
expect "bad input: return before invoke" 2 <<'H'
c1 put a 1 ok 10 5
H
expect "bad input: put without a value" 2 <<'H'
c1 put a - ok 0 10
H
expect "bad input: get ok without a value" 2 <<'H'
c1 get a - ok 0 10
H
expect "bad input: a client with overlapping ops" 2 <<'H'
c1 put a 1 ok 0 10
c1 get a 1 ok 5 20
H

# Ops whose return was never seen (closing clock read failed): pending
# forever, i.e. may or may not have taken effect.  Dropping such an op
# instead can make a correct history look broken (a dropped op must never
# be what makes a broken-variant run "fail" the checker).
expect "never-returned put explains a later read of its value" 0 <<'H'
c1 put a 1 ok 0 -
c2 get a 1 ok 20 30
H
expect "the same history with that put dropped: a false violation" 1 <<'H'
c2 get a 1 ok 20 30
H
expect "never-returned put may not have taken effect" 0 <<'H'
c1 put a 0 ok 0 5
c1 put a 1 ok 10 -
c2 get a 0 ok 20 30
c2 get a 1 ok 40 50
H
expect "never-returned put takes effect at most once" 1 <<'H'
c1 put a 1 ok 0 -
c2 get a - missing 50 60
c2 get a 1 ok 70 80
c2 get a - missing 90 100
H
check "the report counts the never-returned op" \
	'echo "$last_out" | grep -q "1 ops of unknown outcome, failed or never returned"'
expect "never-returned del may delete later" 0 <<'H'
c1 put a 1 ok 0 10
c1 del a - ok 20 -
c2 get a 1 ok 30 40
c2 get a - missing 50 60
H
expect "never-returned del cannot undo a later put" 1 <<'H'
c1 put a 1 ok 0 10
c1 del a - ok 20 -
c2 get a - missing 30 40
c2 get a 1 ok 50 60
H
expect "never-returned get constrains nothing" 0 <<'H'
c1 put a 1 ok 0 10
c2 get a 7 ok 20 -
H
expect "bad input: an op after a never-returned one of the same client" 2 <<'H'
c1 put a 1 ok 0 -
c1 get a 1 ok 20 30
H

# Timelines: stamps of two runs of a clock (a target reboot restarts its
# clock word near zero) cannot be compared; such a history is refused.
expect "one monotonic timeline, two recorders" 0 <<'H'
#% timeline monotonic 1f0e-boot
#% timeline monotonic 1f0e-boot
c1 put a 1 ok 0 10
c2 get a 1 ok 20 30
H
expect "monotonic stamps of two boots: refused" 2 <<'H'
#% timeline monotonic 1f0e-boot
#% timeline monotonic 2a7c-boot
c1 put a 1 ok 0 10
c2 get a 1 ok 20 30
H
check "refusal names both boots" \
	'echo "$last_out" | grep -q "refused (line 2).*boot 2a7c-boot.*boot 1f0e-boot"'
expect "one target timeline, two recorders" 0 <<'H'
#% timeline target 77c1-boot
#% timeline target 77c1-boot
c1 put a 1 ok 0 10
H
# Before the reboot the target clock read 60000+; after it, 5000+: by the
# stamps alone the put of 2 (after the reboot) precedes the get that found
# the key absent (before it), a violation that never happened.  Refused,
# not reported as a violation.
expect "history across a target reboot: refused, not a violation" 2 <<'H'
#% timeline target 77c1-boot
c1 get a - missing 60000 60010
#% timeline target 9e02-boot
c2 put a 2 ok 5000 5010
H
check "refusal says the history spans a target restart" \
	'echo "$last_out" | grep -q "refused (line 3): target clock of boot 9e02-boot here, of boot 77c1-boot at line 1: the history spans a target restart"'
expect "the same without timeline lines: checked (a violation)" 1 <<'H'
c1 get a - missing 60000 60010
c2 put a 2 ok 5000 5010
H
expect "a recorder saw its clock restart: refused" 2 <<'H'
#% timeline target 77c1-boot
#% restart clock-went-back
c1 put a 1 ok 0 10
H
check "refusal says why" 'echo "$last_out" | grep -q "clock-went-back"'
expect "monotonic and target stamps mixed: refused" 2 <<'H'
#% timeline monotonic 1f0e-boot
#% timeline target 1f0e-boot
H
expect "bad input: unknown directive" 2 <<'H'
#% epoch 3
H
expect "bad input: timeline without an epoch" 2 <<'H'
#% timeline target
H
expect "plain comments starting with # are still ignored" 0 <<'H'
#%timeline is not a directive without the space
# timeline target x
H

# Random histories, linearizable by construction, and broken copies.
for s in 1 2 3; do
	"$here/gen_history" -n 3000 -c 6 -k 3 -s $s -e 3 > "$tmp/g" ||
		{ echo "gen_history failed"; exit 1; }
	expect "random linearizable history, seed $s (3000 ops, 6 clients, 3% failed)" 0 < "$tmp/g"
	"$here/gen_history" -n 3000 -c 6 -k 3 -s $s -e 3 -b > "$tmp/g"
	expect "same history with one impossible read, seed $s" 1 < "$tmp/g"
done

# Values of mixed lengths (0 to 4096 bytes), as scalio_lin writes them.
"$here/gen_history" -n 3000 -c 8 -k 2 -s 7 -e 2 -l 4096 > "$tmp/g"
expect "random history, values of 0 to 4096 bytes" 0 < "$tmp/g"
check "it has empty and 4 KiB-class values" \
	'grep -q " put k[0-9] % " "$tmp/g" && [ "$(awk "length(\$4) > 3000" "$tmp/g" | wc -l)" -gt 10 ]'
"$here/gen_history" -n 3000 -c 8 -k 2 -s 7 -e 2 -l 4096 -b > "$tmp/g"
expect "the same with one impossible read" 1 < "$tmp/g"

# A hot key: several thousand ops on one key in seconds.
"$here/gen_history" -n 6000 -c 8 -k 1 -s 42 -e 2 > "$tmp/g"
start=$(date +%s)
expect "hot key: 6000 ops, 8 clients" 0 < "$tmp/g"
el=$(( $(date +%s) - start ))
check "hot key checked in under 30 s (took ${el}s)" '[ "$el" -lt 30 ]'

# The recorder.
"$here/test_history" "$tmp/rec"
rc=$?
n=$((n + 1))
if [ $rc -eq 0 ]; then echo "ok $n - recorder writes a history"; else
	echo "not ok $n - recorder failed ($rc)"; fail=$((fail + 1)); fi
expect "recorded history of a locked map is linearizable" 0 < "$tmp/rec"
check "recorded all ops (4 x 2000 + 8)" '[ "$last_out" = "OK 8008 6" ]'
check "timeline line and the never-returned put" \
	'grep -q "^#% timeline monotonic [0-9a-f-]*$" "$tmp/rec" && grep -q "^nv put n pending ok 20 -$" "$tmp/rec"'
check "escapes: empty value, lone '-', newline, space, percent" \
	'grep -q "^t[0-9]* put e % ok" "$tmp/h" && grep -q " put e %2D ok" "$tmp/h" && grep -q " put e a%0Ab err" "$tmp/h" && grep -q "k%203" "$tmp/h" && grep -q "%25" "$tmp/h"'
"$here/test_history" "$tmp/rec" -b
expect "recorded history with a lying read is not" 1 < "$tmp/rec"
"$here/test_history" "$tmp/rec" -r
expect "recorded history with a restart is refused" 2 < "$tmp/rec"

echo "1..$n"
[ $fail -eq 0 ] || echo "# $fail of $n tests failed"
[ $fail -eq 0 ]
