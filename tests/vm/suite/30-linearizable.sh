#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 30-linearizable: the one-sided GET protocol (DESIGN.md section 3) is
# linearizable under concurrent clients on two hosts.
#
# One run with two host VMs.  For each store mode
#   cache    offload_read=1 inline_cache=1 (the default: the slot protocol)
#   nocache  offload_read=1 inline_cache=0 (seg READ + NVMe-oF read)
#   rpcfill  offload_read=0 inline_cache=1 (slot protocol, misses by RPC)
#   widened  the cache mode with the host parameters debug_write_delay_ms=100
#            (a writer sleeps between its commit and its invalidation) and
#            debug_fill_jitter_ms=50 (a filler sleeps 0..50 ms holding its
#            B lock before the seg read): the race windows the protocol's
#            invalidation and double-read close are held open for long
#            and debug_bg_delay_ms=50 (a miss's background fill starts
#            50 ms after the GET answered: writes of the key land in
#            between, which the fill's seg check must see)
#   locked   the cache mode with optimistic_miss=0 in both hosts: every
#            miss fills its slot before it answers (the path a miss
#            falls back to); opt_misses must stay 0 in it and be > 0 in
#            cache, mono and widened, with background fills that cached
#   mono     the cache mode from host1 alone with LIN_MONO_THREADS (16)
#            threads, stamped with host1's CLOCK_MONOTONIC (nanoseconds)
#            instead of the target clock (milliseconds, in steps of a
#            jiffy): one sharp timeline, so far fewer ops count as
#            concurrent and the check is much stricter
# both hosts run tests/selftests/scalio_lin at the same time (host2 through
# `vmctl exec-host 2`, backgrounded in host1's shell) for a fixed time:
# 4 threads each, mixed GET/PUT/DELETE on 8 hot keys (Zipf-like), every
# op stamped with the target's clock (SCALIO_IOC_CLOCK) before and after.
# PUT values have mixed lengths, 0 to 4096 bytes (scalio_lin -L 4096): one
# in 16 empty, half of the rest up to 72 bytes (cached in slots), half
# longer (never cached: seg READ and SSD read on every GET); each mode
# must have read values of both kinds successfully.
# The two histories of a mode are concatenated and checked on the build
# machine by tests/lincheck/lincheck -s (strict delete: the store reports
# "missing" for a DELETE of an absent key): it must exit 0 (a history
# that spans a target restart is refused, exit 2: a failure too).  The
# modes with the cache must also have exercised it: cache_hits > 0 and
# rdma_cas > 0 summed over both hosts.  Modes are switched in the same
# boot (detach, `scalioctl target-set`, attach), each with fresh keys.
#
# Env: LIN_SECONDS (default 24, 72 on the debug lane: the cache mode; the
#      others get half),
#      LIN_THREADS (4), LIN_MONO_THREADS (16), LIN_KEYS (8),
#      LIN_MODES ("cache mono widened locked nocache rpcfill"),
#      LIN_HOST_PARAMS (host module parameters a=1,b=2 set in both hosts
#      for the whole run, e.g. to run the correct module with the
#      parameters of a 31-lin-broken variant minus its debug_skip_*).
# Usage: 30-linearizable.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
secs=${LIN_SECONDS:-24}
# The debug lane runs several times slower: a workload as long records too
# few operations for the check below (rpcfill: 132 of 200 once).
vm_is_debug "$kver" && [ -z "${LIN_SECONDS:-}" ] && secs=72
threads=${LIN_THREADS:-4}
mono_threads=${LIN_MONO_THREADS:-16}
keys=${LIN_KEYS:-8}
modes=${LIN_MODES:-cache mono widened locked nocache rpcfill}
host_params=${LIN_HOST_PARAMS:-}
t_start=$(date +%s)

make -C "$top/tests" > /dev/null ||
	{ echo "FAIL: make -C tests (selftest programs) failed"; exit 1; }
make -C "$top/tests/lincheck" lincheck > /dev/null ||
	{ echo "FAIL: make -C tests/lincheck failed"; exit 1; }
lincheck=$top/tests/lincheck/lincheck

suite_share lin

# The guest side, run in host1 (POSIX sh).  $1: modes, $2: seconds.
cat > "$share/lin.sh" << EOF
set -u
X=/scalio/tests/selftests/scalio_lin
S=\${SCALIO_STORE:-kv0}
A=\${SCALIO_TARGET_ADDR:-10.77.0.1}
# the target's boot id names the timeline of the target-clock stamps
TB=\$(vmctl exec-target cat /proc/sys/kernel/random/boot_id) || {
	echo "FAIL: reading the target's boot id"; exit 1; }
ARGS="-t $threads -k $keys -n 100000000 -E \$TB -L 4096"
WIDEN=debug_write_delay_ms=100,debug_fill_jitter_ms=50,debug_bg_delay_ms=50
T0=\$(date +%s)
fail() { echo "FAIL: \$*"; exit 1; }
step() { echo "=== [\$(( \$(date +%s) - T0 ))s] \$*"; }

# set_mode ATTR=VAL...: detach both hosts, change the store, attach both.
set_mode() {
	scalioctl detach \$S || fail "detach host1"
	vmctl exec-host 2 "scalioctl detach \$S" || fail "detach host2"
	vmctl exec-target "scalioctl target-set --store \$S \$*" ||
		fail "target-set \$*"
	scalioctl attach \$S --addr \$A > /dev/null || fail "attach host1"
	vmctl exec-host 2 "scalioctl attach \$S --addr \$A > /dev/null" ||
		fail "attach host2"
}

# run_mode NAME SECONDS: scalio_lin on both hosts at once, keys NAME.<i>.
run_mode() {
	n=\$1
	s=\$2
	step "\$n: scalio_lin on host1 and host2 for \$s s"
	vmctl exec-host 2 "\$X \$ARGS -T \$s -S 2 -c h2 -p \$n -o /share/\$n.h2.hist" \
		> /share/\$n.h2.out 2>&1 &
	p=\$!
	\$X \$ARGS -T \$s -S 1 -c h1 -p \$n -o /share/\$n.h1.hist \
		> /share/\$n.h1.out 2>&1
	r1=\$?
	wait \$p
	r2=\$?
	cat /share/\$n.h1.out /share/\$n.h2.out
	[ \$r1 = 0 ] && [ \$r2 = 0 ] ||
		fail "\$n: scalio_lin exited \$r1 (host1), \$r2 (host2)"
}

# run_mono NAME SECONDS: scalio_lin on host1 alone, many threads,
# stamped with host1's CLOCK_MONOTONIC.
run_mono() {
	step "\$1: scalio_lin on host1, $mono_threads threads, CLOCK_MONOTONIC, for \$2 s"
	\$X -t $mono_threads -k $keys -n 100000000 -L 4096 -C monotonic \
		-T \$2 -S 3 -c h1m -p \$1 -o /share/\$1.h1.hist \
		> /share/\$1.h1.out 2>&1
	r1=\$?
	cat /share/\$1.h1.out
	: > /share/\$1.h2.hist
	: > /share/\$1.h2.out
	[ \$r1 = 0 ] || fail "\$1: scalio_lin exited \$r1"
}

# set_params a=1,b=2: host module parameters in both hosts
set_params() {
	for kv in \$(echo "\$1" | tr ',' ' '); do
		echo "\${kv#*=}" > /sys/module/scalio_host/parameters/\${kv%%=*} ||
			fail "setting \$kv in host1"
		vmctl exec-host 2 "echo \${kv#*=} > /sys/module/scalio_host/parameters/\${kv%%=*}" ||
			fail "setting \$kv in host2"
	done
}

cur=cache	# the store as target-setup made it
[ -z "$host_params" ] || set_params "$host_params"
for m in $modes; do
	case \$m in
	cache|widened|mono|locked)	want=cache ;;
	nocache|rpcfill) want=\$m ;;
	*)		fail "unknown mode \$m" ;;
	esac
	[ \$want = \$cur ] || case \$want in
	cache)		set_mode offload_read=1 inline_cache=1 ;;
	nocache)	set_mode offload_read=1 inline_cache=0 ;;
	rpcfill)	set_mode offload_read=0 inline_cache=1 ;;
	esac
	cur=\$want
	case \$m in
	cache)
		run_mode cache $secs ;;
	mono)
		run_mono mono $((secs / 2)) ;;
	widened)
		set_params \$WIDEN
		run_mode widened $((secs / 2))
		set_params debug_write_delay_ms=0,debug_fill_jitter_ms=0,debug_bg_delay_ms=0 ;;
	locked)
		set_params optimistic_miss=0
		run_mode locked $((secs / 2))
		set_params optimistic_miss=1 ;;
	*)
		run_mode \$m $((secs / 2)) ;;
	esac
done
step "workloads done"
EOF

"$top/tests/vm/run" --kver "$kver" --hosts 2 --share "$share" --timeout 900 \
	-- 'sh /share/lin.sh'
rc=$?
[ -n "${SCALIO_VM_LOGROOT:-}" ] && echo "# histories in $share"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }

# Sum counter NAME over the "# host:" lines of both hosts of mode $1.
counter() {
	cat "$share/$1.h1.out" "$share/$1.h2.out" |
		grep '^# host:' | tr ' ' '\n' |
		awk -F= -v k="$2" '$1 == k { s += $2 } END { print s + 0 }'
}

# GETs that returned a value of length class $2 (1 empty, 2 short, 3
# long), summed over both hosts of mode $1 (scalio_lin's "values" line:
# "... get E/S/L; ...").
gets_len() {
	cat "$share/$1.h1.out" "$share/$1.h2.out" |
		sed -n 's/^# .*: values .* get \([0-9/]*\);.*/\1/p' |
		awk -F/ -v c="$2" '{ s += $c } END { print s + 0 }'
}

fail=0
# scalio_lin prints the host's counters since attach, and the cache-family
# modes run on one attach: locked's opt_misses must equal those of the
# last two-host mode before it
opt_before=0
for m in $modes; do
	case $m in
	cache|widened) opt_before=$(counter "$m" opt_misses) ;;
	nocache|rpcfill) opt_before=0 ;;
	esac
	[ "$m" = locked ] && break
done
for m in $modes; do
	cat "$share/$m.h1.hist" "$share/$m.h2.hist" > "$share/$m.hist" || {
		echo "FAIL: $m: histories missing"
		fail=1
		continue
	}
	ops=$(wc -l < "$share/$m.hist")
	t0=$(date +%s%N)
	out=$("$lincheck" -s "$share/$m.hist" 2>&1)
	lrc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	echo "# $m: lincheck -s on $ops ops: exit $lrc in $ms ms: $out" |
		head -n 20
	hits=$(counter "$m" cache_hits)
	misses=$(counter "$m" cache_misses)
	opt=$(counter "$m" opt_misses)
	bgf=$(counter "$m" bg_fills)
	bgd=$(counter "$m" bg_fill_drops)
	cas=$(counter "$m" rdma_cas)
	short=$(gets_len "$m" 2)
	long=$(gets_len "$m" 3)
	echo "# $m: cache_hits=$hits cache_misses=$misses rdma_cas=$cas" \
	     "invalidations=$(counter "$m" invalidations)" \
	     "retries=$(counter "$m" retries) errors=$(counter "$m" errors)" \
	     "ssd_reads=$(counter "$m" ssd_reads)" \
	     "lease_reclaims=$(counter "$m" lease_reclaims)" \
	     "opt_misses=$opt bg_fills=$bgf bg_fill_drops=$bgd" \
	     "bg_waits=$(counter "$m" bg_waits) waits=$(counter "$m" waits);" \
	     "GETs ok of values empty/short/long: $(gets_len "$m" 1)/$short/$long"
	if [ $lrc != 0 ]; then
		echo "FAIL: $m: lincheck exit $lrc (1: not linearizable, 2: refused or bad input)"
		fail=1
	elif [ "$ops" -lt 200 ]; then
		echo "FAIL: $m: only $ops ops recorded"
		fail=1
	elif [ "$m" != nocache ] && { [ "$hits" = 0 ] || [ "$cas" = 0 ]; }; then
		echo "FAIL: $m: the cache was not exercised (hits $hits, CAS $cas)"
		fail=1
	elif case $m in cache|mono|widened) true ;; *) false ;; esac &&
	     { [ "$opt" = 0 ] || [ "$bgf" -le "$bgd" ]; }; then
		echo "FAIL: $m: misses not answered before their fill (opt_misses $opt), or no background fill cached ($bgf, $bgd dropped)"
		fail=1
	elif [ "$m" = locked ] && [ "$opt" != "$opt_before" ]; then
		echo "FAIL: $m: $((opt - opt_before)) misses answered before their fill"
		fail=1
	elif [ "$short" = 0 ] || [ "$long" = 0 ]; then
		echo "FAIL: $m: values of both paths were not read (short $short, long $long)"
		fail=1
	fi
done
echo "# 30-linearizable: $(($(date +%s) - t_start)) s wall"
[ $fail = 0 ] || exit 1
echo "PASS: linearizable histories (two hosts; mono: one host, CLOCK_MONOTONIC) in modes: $modes"
exit 0
