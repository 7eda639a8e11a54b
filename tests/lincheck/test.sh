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

# Random histories, linearizable by construction, and broken copies.
for s in 1 2 3; do
	"$here/gen_history" -n 3000 -c 6 -k 3 -s $s -e 3 > "$tmp/g" ||
		{ echo "gen_history failed"; exit 1; }
	expect "random linearizable history, seed $s (3000 ops, 6 clients, 3% failed)" 0 < "$tmp/g"
	"$here/gen_history" -n 3000 -c 6 -k 3 -s $s -e 3 -b > "$tmp/g"
	expect "same history with one impossible read, seed $s" 1 < "$tmp/g"
done

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
check "recorded all ops (4 x 2000 + 6)" '[ "$last_out" = "OK 8006 5" ]'
check "escapes: empty value, lone '-', newline, space, percent" \
	'grep -q "^t[0-9]* put e % ok" "$tmp/h" && grep -q " put e %2D ok" "$tmp/h" && grep -q " put e a%0Ab err" "$tmp/h" && grep -q "k%203" "$tmp/h" && grep -q "%25" "$tmp/h"'
"$here/test_history" "$tmp/rec" -b
expect "recorded history with a lying read is not" 1 < "$tmp/rec"

echo "1..$n"
[ $fail -eq 0 ] || echo "# $fail of $n tests failed"
[ $fail -eq 0 ]
