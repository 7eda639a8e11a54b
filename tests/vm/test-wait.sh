#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of tests/vm/guest/wait.sh (TAP): wait_until's tries, its progress
# lines, never (directly, from a subshell, conditionally), target_up.  Each
# wait runs in a subshell of its own; a CMD that fails ends its subshell
# after 500 tries (a bound on work: a broken wait_until must not hang this
# test), and every wait that must give up has a CMD that would succeed some
# tries later, so a wait_until that ignores never fails the case instead of
# hanging.
# The CMDs are called through wait_until "$@" and count their tries in n
# inside run's subshell.
# shellcheck disable=SC2317,SC2030,SC2031
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp
# shellcheck source=tests/vm/guest/wait.sh
. "$here/guest/wait.sh"
export WAIT_INTERVAL=0.02
n=0 failed=0

# tick K: one try of a CMD: counts tries in n; fails (status 2, as a
# failing [ does) before try K, then succeeds.
tick() {
	n=$((n + 1))
	[ "$n" -le 500 ] || { echo "status runaway tries $n"; exit 0; }
	[ "$n" -ge "$1" ] || return 2
}
# run CMD...: run CMD (a wait_until ...) in a subshell; its output and a
# last line "status S tries N" in $tmp/out.
run() {
	(
		n=0
		"$@"
		echo "status $? tries $n"
	) > "$tmp/out" 2>&1
}
# check NAME: ok if the test just before it succeeded
t=0
check() {
	local rc=$?
	t=$((t + 1))
	if [ $rc = 0 ]; then
		echo "ok $t - $1"
	else
		echo "not ok $t - $1"
		sed 's/^/#   | /' "$tmp/out"
		failed=1
	fi
}
last() { tail -n 1 "$tmp/out"; }
lines() { grep -c "$1" "$tmp/out"; }

echo "1..12"

run wait_until "x" tick 1
[ "$(last)" = "status 0 tries 1" ] && [ "$(wc -l < "$tmp/out")" = 1 ]
check "a CMD that succeeds at once: status 0, one try, nothing printed"

run wait_until "x" tick 4
[ "$(last)" = "status 0 tries 4" ] && [ "$(wc -l < "$tmp/out")" = 1 ]
check "a CMD that fails 3 times (status 2 each, not never) succeeds at its 4th try"

# never at once (twice: the first reason is told); were it ignored, the
# CMD would succeed at its 5th try
nv_now() { tick 5 && return; never "the writer exited"; never "2nd reason"; }
run wait_until "the acks" nv_now
[ "$(last)" = "status 2 tries 1" ]
check "never stops the wait at the try that calls it: status 2"
[ "$(head -n 1 "$tmp/out")" = "# gave up waiting for the acks: the writer exited" ]
check "never prints '# gave up waiting for WHAT: REASON' (its first REASON)"

# never from a $(...) and from a pipeline, the CMD's status its own
nv_sub() { : "$(never "said in a subshell")"; tick 5; }
run wait_until "y" nv_sub
[ "$(last)" = "status 2 tries 1" ] && [ "$(lines "gave up waiting for y: said in a subshell")" = 1 ]
check "never works from a \$(...) of CMD"
nv_pipe() { echo x | never "said in a pipeline"; tick 5; }
run wait_until "z" nv_pipe
[ "$(last)" = "status 2 tries 1" ] && [ "$(lines "gave up waiting for z: said in a pipeline")" = 1 ]
check "never works from a pipeline in CMD"

# a conditional never: a process that must be alive for the wait to go on
sleep 0.5 &
spid=$!
nv_alive() { kill -0 "$spid" 2> /dev/null || never "the sleeper exited"; tick 400; }
run wait_until "the sleeper's work" nv_alive
read -r _ st _ tries <<< "$(last)"
[ "$st" = 2 ] && [ "$tries" -gt 5 ] && [ "$tries" -lt 400 ] &&
	[ "$(lines "^# gave up waiting for the sleeper.s work: the sleeper exited$")" = 1 ]
check "a conditional never: waits while the process runs, gives up once it exited"

# what came before the process ended counts: success wins over never
nv_ok() { never "gone"; tick 1; }
run wait_until "w" nv_ok
[ "$(last)" = "status 0 tries 1" ] && [ "$(wc -l < "$tmp/out")" = 1 ]
check "a try that succeeds wins over its never: status 0, nothing printed"

# progress: a 1 s report period, a CMD that succeeds after about 2.5 s
slow() { n=$((n + 1)); [ -e "$tmp/slow.done" ]; }
(sleep 2.5; touch "$tmp/slow.done") &
WAIT_REPORT_S=1 run wait_until "the slow thing" slow
wait
read -r _ st _ _ <<< "$(last)"
[ "$st" = 0 ] &&
	[ "$(lines "^# still waiting for the slow thing ([0-9]* s)$")" -ge 2 ] &&
	[ "$(lines "^# still waiting for the slow thing (1 s)$")" = 1 ] &&
	[ "$(lines "^# still waiting for the slow thing (2 s)$")" = 1 ] &&
	[ "$(grep -vc "^# still waiting\|^status" "$tmp/out")" = 0 ]
check "progress: '# still waiting for WHAT (N s)' once every WAIT_REPORT_S, then status 0"

: > "$tmp/out"
! ls "$tmp"/wait-never.* > /dev/null 2>&1 && ! never "nobody waits" &&
	! ls "$tmp"/wait-never.* > /dev/null 2>&1
check "no never file is left behind; never outside a wait returns 1 and writes none"

# The guests' shell is dash (sh): the same there.
sh -c '. "$1"
	WAIT_INTERVAL=0.02 n=0
	c() { n=$((n + 1)); [ $n -lt 3 ] || never "3 tries"; [ $n -ge 6 ]; }
	wait_until "c" c
	echo "status $? tries $n"
	wait_until "n >= 3" test $n -ge 3
	echo "status $? waited $wait_s"' sh "$here/guest/wait.sh" > "$tmp/out" 2>&1
[ "$(cat "$tmp/out")" = "# gave up waiting for c: 3 tries
status 2 tries 3
status 0 waited 0" ]
check "under sh (dash, the guests' shell): never gives up, a success returns 0"

# target_up asks vmctl state target
mkdir "$tmp/bin"
cat > "$tmp/bin/vmctl" << 'EOF'
#!/bin/sh
[ "$1 $2" = "state target" ] && cat "$TMPDIR/state"
EOF
chmod +x "$tmp/bin/vmctl"
up() { echo "$1" > "$tmp/state"; PATH=$tmp/bin:$PATH target_up; }
up ready && ! up booting && ! up killed && ! up dead && ! up "failed: target setup"
check "target_up: true for ready, false for booting, killed, dead, failed"
exit $failed
