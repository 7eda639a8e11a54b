#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 31-lin-broken: the linearizability test of 30-linearizable.sh can fail:
# with a step of the protocol switched off in both hosts, the checker must
# REJECT the recorded history (lincheck exit 1).
#
#   skip_invalidate   debug_skip_invalidate=1: a PUT/DELETE returns without
#                     invalidating the cached copies of its key, so a later
#                     GET hits the old value.
#
# Each variant runs the same two-host workload as 30-linearizable.sh
# (scalio_lin on host1 and host2 at once, 8 hot keys, target-clock stamps)
# in rounds of LIN_SECONDS (default 12) on fresh keys, with lincheck run in
# host1 after every round, until a round's history is rejected; up to
# LIN_ROUNDS (default 3) rounds.  The test passes iff every variant was
# rejected in some round; the build machine checks the rejected history
# again and prints lincheck's explanation.  The parameters are set through
# /sys/module/scalio_host/parameters/ and cleared after each variant.
#
# Why debug_skip_double_read is not a variant: without the double-read a
# violation needs two fillers of one key holding different slots at once.
# A live B of the key makes a later filler back off, so both must read the
# block before either locks; and concurrent fillers pick the same victim
# (the first A slot: the loser's CAS fails) unless the block changed
# between their two reads.  Then a write of the key must commit between the
# two fillers' seg reads, both must publish before the writer's
# invalidation reaches their slots, the stale copy must be in the lower
# slot, and a GET must hit it at least one target-clock tick after the
# fresh filler's GET returned.  Tried in this bed: every key in one block
# (--ssds 1, --target-setup-args "--nblocks 1 --slots 16", for victim
# churn) with the host parameters debug_fill_jitter_ms=50 and
# debug_write_delay_ms=100 widening both windows: no violation in 3 rounds
# of 15 s (about 950 ops each), where skip_invalidate is caught in round 1
# of 3100 ops.  That race is covered by the protocol model instead
# (tests/model, variant no-double-read).  LIN_VARIANTS, LIN_RUN_ARGS,
# LIN_SECONDS and LIN_ROUNDS let the experiment be repeated, e.g.
#   LIN_RUN_ARGS='--ssds 1 --target-setup-args "--nblocks 1 --slots 16"'
#   LIN_VARIANTS=skipdr:debug_skip_double_read=1,debug_write_delay_ms=100,debug_fill_jitter_ms=50
#
# Usage: 31-lin-broken.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
secs=${LIN_SECONDS:-12}
rounds=${LIN_ROUNDS:-3}
# name:param=value[,param=value...]
variants=${LIN_VARIANTS:-skip_invalidate:debug_skip_invalidate=1}
# extra options for tests/vm/run (--ssds, --target-setup-args ...)
run_args=${LIN_RUN_ARGS:-}
t_start=$(date +%s)

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }
make -C "$top/tests/lincheck" lincheck > /dev/null ||
	{ echo "FAIL: make -C tests/lincheck failed"; exit 1; }
lincheck=$top/tests/lincheck/lincheck

suite_share linbroken

# The guest side, run in host1 (POSIX sh).
cat > "$share/broken.sh" << EOF
set -u
X=/scalio/tests/selftests/scalio_lin
L=/scalio/tests/lincheck/lincheck
P=/sys/module/scalio_host/parameters
ARGS="-t 4 -k 8 -n 100000000"
T0=\$(date +%s)
fail() { echo "FAIL: \$*"; exit 1; }
step() { echo "=== [\$(( \$(date +%s) - T0 ))s] \$*"; }

# set_params a=1,b=2: module parameters in both hosts
set_params() {
	for kv in \$(echo "\$1" | tr ',' ' '); do
		echo "\${kv#*=}" > \$P/\${kv%%=*} || fail "setting \$kv in host1"
		vmctl exec-host 2 "echo \${kv#*=} > \$P/\${kv%%=*}" ||
			fail "setting \$kv in host2"
	done
}

# run_round NAME SECONDS: scalio_lin on both hosts at once, keys NAME.<i>
run_round() {
	n=\$1
	vmctl exec-host 2 "\$X \$ARGS -T \$2 -S 2 -c h2 -p \$n -o /share/\$n.h2.hist" \
		> /share/\$n.h2.out 2>&1 &
	p=\$!
	\$X \$ARGS -T \$2 -S 1 -c h1 -p \$n -o /share/\$n.h1.hist \
		> /share/\$n.h1.out 2>&1
	r1=\$?
	wait \$p
	r2=\$?
	grep -h '^#' /share/\$n.h1.out /share/\$n.h2.out
	# a broken protocol may also make ops fail (exit 1): the history
	# records them as "err", which the checker allows for
	[ \$r1 -le 1 ] && [ \$r2 -le 1 ] ||
		fail "\$n: scalio_lin exited \$r1 (host1), \$r2 (host2)"
	[ -s /share/\$n.h1.hist ] && [ -s /share/\$n.h2.hist ] ||
		fail "\$n: no history"
}

for v in $variants; do
	name=\${v%%:*}
	params=\${v#*:}
	step "\$name: \$params in both hosts"
	set_params "\$params"
	r=1
	found=0
	while [ \$r -le $rounds ]; do
		n=\$name.\$r
		run_round \$n $secs
		cat /share/\$n.h1.hist /share/\$n.h2.hist > /share/\$n.hist
		\$L -s /share/\$n.hist > /share/\$n.lincheck 2>&1
		lrc=\$?
		step "\$n: lincheck exit \$lrc on \$(wc -l < /share/\$n.hist) ops"
		[ \$lrc = 0 ] || [ \$lrc = 1 ] || {
			cat /share/\$n.lincheck
			fail "\$n: lincheck exit \$lrc"
		}
		if [ \$lrc = 1 ]; then
			found=1
			echo "\$n" > /share/\$name.rejected
			break
		fi
		r=\$((r + 1))
	done
	set_params "\$(echo "\$params" | sed 's/=[^,]*/=0/g')"
	[ \$found = 1 ] || echo "# \$name: no violation in $rounds rounds"
done
step "done"
EOF

# shellcheck disable=SC2086
eval "\"\$top/tests/vm/run\" --kver \"\$kver\" --hosts 2 --share \"\$share\" \
	--timeout 900 $run_args -- 'sh /share/broken.sh'"
rc=$?
[ -n "${SCALIO_VM_LOGROOT:-}" ] && echo "# histories in $share"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }

fail=0
for v in $variants; do
	name=${v%%:*}
	if [ ! -f "$share/$name.rejected" ]; then
		echo "FAIL: $name: the checker accepted every history ($rounds rounds of $secs s)"
		fail=1
		continue
	fi
	n=$(cat "$share/$name.rejected")
	out=$("$lincheck" -s "$share/$n.hist" 2>&1)
	lrc=$?
	echo "# $name: round ${n##*.}: lincheck -s exit $lrc on $(wc -l < "$share/$n.hist") ops:"
	echo "$out" | head -n 12 | sed 's/^/#   /'
	if [ $lrc != 1 ]; then
		echo "FAIL: $name: lincheck exit $lrc on the build machine, expected 1"
		fail=1
	fi
done
echo "# 31-lin-broken: $(($(date +%s) - t_start)) s wall"
[ $fail = 0 ] || exit 1
names=
for v in $variants; do names="$names ${v%%:*}"; done
echo "PASS: the checker rejected every broken variant:$names"
exit 0
