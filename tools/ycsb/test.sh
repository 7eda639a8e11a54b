#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Smoke test of scalio-ycsb against mock_scalio.so (an in-process map behind
# LD_PRELOAD; see mock_scalio.c): every workload loads, runs, verifies its
# values, writes JSON, and its recorded history passes lincheck.  Also
# checks that a corrupted value is detected (exit 1), and that the man page
# documents every option.  Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lc=$here/../../tests/lincheck/lincheck
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0

t() {	# t NAME COMMAND...: one TAP line from a command's status
	local name=$1
	shift
	n=$((n + 1))
	if "$@" > "$tmp/out" 2>&1; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/# /' "$tmp/out" | tail -20
		fail=$((fail + 1))
	fi
}

ycsb() {
	LD_PRELOAD=$here/mock_scalio.so "$here/scalio-ycsb" --quiet "$@"
}

for w in a b c d f; do
	t "workload $w: load + run, values verified" \
		ycsb --workload $w --records 2000 --ops 20000 --threads 4 \
		--load --run --json "$tmp/$w.json" --history "$tmp/$w.hist" --seed 7
	t "workload $w: JSON is valid" python3 -c \
		"import json,sys; d=json.load(open('$tmp/$w.json')); assert d['phases']['run']['ops']==20000, d; assert d['phases']['run']['errors']==0"
	t "workload $w: history is linearizable" "$lc" "$tmp/$w.hist"
done

# --depth: operations in flight through io_uring (the mock completes each
# batch in reverse order); the store's counters must match the driver's.
for w in a f; do
	t "workload $w --depth 16: values verified" \
		ycsb --workload $w --records 2000 --ops 20000 --threads 2 \
		--depth 16 --load --run --json "$tmp/d$w.json" --seed 3
	t "workload $w --depth 16: store GETs/PUTs = the driver's ops" python3 -c "
import json
d = json.load(open('$tmp/d$w.json'))
r = d['phases']['run']; lat = r['latency_us']; h = r['host_delta']
n = lambda k: lat.get(k, {}).get('count', 0)
assert d['depth'] == 16 and r['ops'] == 20000 and r['errors'] == 0, d
assert h['gets'] == n('READ') + n('READ-MODIFY-WRITE'), (h, lat)
assert h['puts'] == n('UPDATE') + n('READ-MODIFY-WRITE'), (h, lat)"
done
n=$((n + 1))
ycsb --workload a --records 100 --ops 10 --depth 4 --run --history "$tmp/x" \
	> /dev/null 2>&1
if [ $? -eq 2 ]; then echo "ok $n - --depth with --history is a usage error";
else echo "not ok $n - --depth with --history accepted"; fail=$((fail + 1)); fi

t "workload c: hit ratio is a measured delta (mock: 0 hits)" \
	grep -q '"cache_hit_ratio": 0,' "$tmp/c.json"
t "workload d: inserts happened" python3 -c \
	"import json; d=json.load(open('$tmp/d.json')); assert d['phases']['run']['latency_us']['INSERT']['count'] > 0"
t "workload f: read-modify-write counted" python3 -c \
	"import json; d=json.load(open('$tmp/f.json')); assert d['phases']['run']['latency_us']['READ-MODIFY-WRITE']['count'] > 0"

# Run without a load in the same process: values of another run are
# accepted (version unknown), missing keys are errors.
n=$((n + 1))
if ycsb --workload c --records 100 --ops 100 --run > "$tmp/out" 2>&1; then
	echo "not ok $n - run on an empty store must fail (missing keys)"
	fail=$((fail + 1))
else
	rc=$?
	if [ $rc -eq 1 ] && grep -q "key missing" "$tmp/out"; then
		echo "ok $n - run on an empty store reports missing keys (exit 1)"
	else
		echo "not ok $n - wrong failure (exit $rc)"; fail=$((fail + 1))
		sed 's/^/# /' "$tmp/out"
	fi
fi

# A store returning a corrupted value: detected, exit 1, and the recorded
# read makes the history fail lincheck.
n=$((n + 1))
MOCK_SCALIO_CORRUPT=500 LD_PRELOAD=$here/mock_scalio.so "$here/scalio-ycsb" \
	--quiet --workload c --records 200 --ops 2000 --load --run \
	--history "$tmp/bad.hist" > "$tmp/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "corrupt value" "$tmp/out"; then
	echo "ok $n - corrupted values are detected (exit 1)"
else
	echo "not ok $n - corrupted values not detected (exit $rc)"
	sed 's/^/# /' "$tmp/out"; fail=$((fail + 1))
fi
n=$((n + 1))
"$lc" "$tmp/bad.hist" > "$tmp/out" 2>&1
if [ $? -eq 1 ]; then echo "ok $n - lincheck flags the corrupted read";
else echo "not ok $n - lincheck missed the corrupted read";
	fail=$((fail + 1)); fi

# Key size, value size and option errors.
t "custom key/value size" ycsb --workload a --records 500 --ops 2000 \
	--key-size 12 --value-size 1000 --load --run
n=$((n + 1))
ycsb --workload a --records 500 --ops 10 --value-size 20 --load > /dev/null 2>&1
if [ $? -eq 2 ]; then echo "ok $n - too small --value-size is a usage error";
else echo "not ok $n - too small --value-size accepted"; fail=$((fail + 1)); fi
n=$((n + 1))
ycsb --workload x --load > /dev/null 2>&1
if [ $? -eq 2 ]; then echo "ok $n - unknown workload is a usage error";
else echo "not ok $n - unknown workload accepted"; fail=$((fail + 1)); fi
n=$((n + 1))
"$here/scalio-ycsb" --store no-such-store --load --records 10 > "$tmp/out" 2>&1
if [ $? -eq 3 ] && grep -q "no-such-store" "$tmp/out"; then
	echo "ok $n - missing device: exit 3 with the path"
else echo "not ok $n - missing device"; fail=$((fail + 1)); fi

# The man page documents every option of the usage text (man/scalio-ycsb.1).
page=$here/../../man/scalio-ycsb.1
missing=
for o in $("$here/scalio-ycsb" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
	sed 's/\\-/-/g' "$page" | grep -qE -- "^\.B[I]? $o( |$)" || missing="$missing $o"
done
n=$((n + 1))
if [ -z "$missing" ]; then echo "ok $n - scalio-ycsb.1 documents every option"
else echo "not ok $n - scalio-ycsb.1 lacks:$missing"; fail=$((fail + 1)); fi

echo "1..$n"
[ $fail -eq 0 ] || echo "# $fail of $n tests failed"
[ $fail -eq 0 ]
