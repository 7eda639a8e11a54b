# SPDX-License-Identifier: GPL-2.0
#
# Waiting without a time limit, for the VM suite's guest scripts (POSIX sh:
# they run under dash; in a VM, `. /scalio/tests/vm/guest/wait.sh`).
#
# A test never limits its own time.  Under TCG the same step takes 3-5
# times longer on the debug-kernel lane than on the release lane, and longer
# again on a loaded build machine: any bound a test picks is too short on
# one lane or meaningless on the other.  The one bound on a VM test is the
# bed's hang guard (tests/vm/run --timeout), which tests/vm/run scales by
# SCALIO_TIMEOUT_FACTOR.  So a wait here has no bound: it says how long it
# has been waiting, and it stops as soon as what it waits for can no longer
# come, rather than waiting for the hang guard.
#
#   wait_until WHAT CMD [ARG...]
#	Runs CMD until it succeeds, sleeping WAIT_INTERVAL seconds (default
#	0.5) between tries, with no bound.  Every WAIT_REPORT_S seconds
#	(default 60) prints "# still waiting for WHAT (N s)" to stdout.
#	Returns 0 once CMD succeeded; 2 when a try failed and called never
#	(after printing "# gave up waiting for WHAT: REASON").  Either way
#	leaves the seconds it waited in wait_s (3: no temporary file for
#	never).  One wait at a time per shell: CMD must not call wait_until.
#   never REASON
#	For CMD: what is waited for can never come (the process that would
#	bring it has exited, the target is down, a job returned without it).
#	Works from CMD and from any subshell of it ($(...), a pipeline): it
#	adds REASON to a file wait_until made for this wait (named in
#	_wait_never; the first REASON of the try is the one printed); not
#	from another program.  Returns 1.  A try whose CMD succeeds counts
#	even when it called never, so a CMD tests liveness first and the
#	condition last, as its status; the condition then sees what came just
#	before the process ended:
#		acked_enough() {
#			kill -0 $wpid 2> /dev/null || never "the writers exited"
#			[ "$(acked)" -ge $want ]
#		}
#		wait_until "$want PUTs acknowledged" acked_enough || fail ...
#   target_up
#	True while the target VM is up (`vmctl state target` says ready),
#	for a CMD that needs the target:
#		target_up || never "the target is down"
# shellcheck shell=sh

# _wait_clock: uptime in hundredths of a second in _wait_t (no fork: a
# wait polls while other VMs work, and under TCG a fork costs real CPU)
_wait_clock() {
	read -r _wait_t _wait_x < /proc/uptime
	_wait_t=$((${_wait_t%.*} * 100 + 1${_wait_t#*.} - 100))
}

wait_until() {
	_wait_what=$1
	shift
	_wait_rep=${WAIT_REPORT_S:-60}
	[ "$_wait_rep" -gt 0 ] 2> /dev/null || _wait_rep=60
	_wait_never=$(mktemp "${TMPDIR:-/tmp}/wait-never.XXXXXX") || return 3
	_wait_clock
	_wait_t0=$_wait_t
	_wait_n=0
	_wait_rc=0
	until "$@"; do
		if [ -s "$_wait_never" ]; then
			read -r _wait_why < "$_wait_never"
			echo "# gave up waiting for $_wait_what: $_wait_why"
			_wait_rc=2
			break
		fi
		_wait_clock
		wait_s=$(((_wait_t - _wait_t0) / 100))
		if [ $((wait_s / _wait_rep)) -gt $_wait_n ]; then
			_wait_n=$((wait_s / _wait_rep))
			echo "# still waiting for $_wait_what ($wait_s s)"
		fi
		sleep "${WAIT_INTERVAL:-0.5}"
	done
	rm -f "$_wait_never"
	_wait_never=
	_wait_clock
	wait_s=$(((_wait_t - _wait_t0) / 100))
	return $_wait_rc
}

never() {
	printf '%s\n' "$*" >> "${_wait_never:-/dev/null}"
	return 1
}

target_up() {
	[ "$(vmctl state target 2> /dev/null)" = ready ]
}
