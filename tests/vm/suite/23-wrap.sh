#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 23-wrap: the version wrap of issue 39 (Documentation/protocol.rst,
# "Version wrap and the fill token"), driven step by step around a held
# filler instead of hoped for: a stalled filler's late value WRITE lands in
# a slot that another filler has locked at a version equal to the stalled
# one's modulo 2^bits, and that filler's publish CAS makes the stale value
# valid.  With the fill token the late WRITE fails the checksum instead
# (torn, evicted, refilled).  31-lin-broken's opt-in wrap variant
# (LIN_VARIANTS=wrap) finds the same by chance, about one round in eight;
# this test never depends on chance, and on the bed's speed only in that
# B's SSD read must take less than half a lease (2 s) after its renewal.
#
# Both hosts run with debug_ver_bits=1 (1-bit versions).  The store has one
# block of four slots and a 4 s lease.  Each round, on a fresh key K:
#   a. host1 PUTs K=v1.
#   b. filler A, a GET of K in host1 with debug_hold_fill=5: misses, locks
#      slot s (version a), reads v1 from the SSD, passes its lease check
#      and holds before its value WRITE (hold 0).
#   c. A's lease runs out while it holds (the hold does not renew it).
#   d. host2 PUTs K=v2: its invalidation turns A's lock into D (a+1).
#   e. filler B, a GET of K in host2 with debug_fill_delay_ms at 3/4 of the
#      lease and debug_hold_fill=2: reclaims the expired D (a+2), locks s
#      (a+3), sleeps past half its lease so that it renews once (a+4),
#      reads v2, WRITEs it, holds before its publish CAS (hold 1).  B
#      would publish at a+5, A at a+1: the same 1-bit version.  The test
#      checks that from the words the two holds log (same slot, same
#      publish version); if not, the attack did not happen and it fails.
#      (The PUT invalidates at once rather than after a debug_write_delay_ms:
#      a delayed invalidation would have to land only after the fresh GETs
#      of step h, a race with the bed's speed; B's renewal is the extra
#      transition the invalidation's D costs the parity.)
#   f. A is released: its WRITE of v1 lands over B's v2, its CAS fails
#      (the slot is B's lock) and it holds again before starting over
#      (hold 2), so that nothing but the test moves the slot (B's lease may
#      run out meanwhile: nobody reclaims it).
#   g. B is released: its CAS publishes; B's GET returns v2.
#   h. a fresh GET of K in host1 and one in host2, after B's GET and the
#      PUT of v2 returned: v2 is the only right answer.  Then A is
#      released (v1 and v2 are both right for it: it overlapped the PUT),
#      K is written v3 and read back from both hosts, the parameters reset.
# The variant round runs with debug_skip_fill_token=1 in both hosts: the
# defence removed.  Its fresh GETs must return the stale v1 (the test
# fails if they do not: the attack did not happen, the test is broken).
# The control round, on another key, runs the same steps with the fill
# token (debug_skip_fill_token=0): its fresh GETs must return v2 (host1's a
# miss: the torn slot evicted and filled again; the variant's a hit).  No
# GET or PUT may fail in either round, and each round ends with a PUT of
# v3 and GETs from both hosts, still with its parameters but no hold: they
# must return v3.  The held fills log their ctl words
# ("fill held at N" in dmesg), printed on a failure.
#
# WRAP_VARIANT_SKIP=0 runs the variant round with the token on: the test
# must then fail ("the attack did not happen"), which shows it can.
#
# Usage: 23-wrap.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"
lease_ms=4000
variant_skip=${WRAP_VARIANT_SKIP:-1}
t_start=$(date +%s)

suite_share wrap

# bg.sh NAME CMD...: run CMD detached in the background (so that vmctl
# returns), its output in /tmp/NAME.out, its exit status in /tmp/NAME.rc.
cat > "$share/bg.sh" << 'EOF'
n=$1
shift
rm -f "/tmp/$n.out" "/tmp/$n.rc"
setsid sh -c '"$@" > "/tmp/$0.out" 2>&1; echo $? > "/tmp/$0.rc"' "$n" "$@" \
	> /dev/null 2>&1 < /dev/null &
EOF

# The guest side, run in host1 (POSIX sh).
cat > "$share/wrap.sh" << EOF
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=\${SCALIO_STORE:-kv0}
P=/sys/module/scalio_host/parameters
LEASE_MS=$lease_ms
T0=\$(date +%s)
WAIT_INTERVAL=0.1
fail() {
	echo "FAIL: \$*"
	# let held fills go, so that the bed can unload the modules
	echo 0 > \$P/debug_hold_fill
	echo 0 > \$P/debug_fill_held
	vmctl exec-host 2 "echo 0 > \$P/debug_hold_fill; echo 0 > \$P/debug_fill_held"
	echo "# host1's held fills:"
	dmesg | grep 'fill held at' | tail -n 6
	echo "# host2's held fills:"
	vmctl exec-host 2 "dmesg | grep 'fill held at' | tail -n 6"
	exit 1
}
step() { echo "=== [\$(( \$(date +%s) - T0 ))s] \$*"; }
h2() { vmctl exec-host 2 "\$1"; }

# set_params a=1,b=2: module parameters in both hosts
set_params() {
	c=:
	for kv in \$(echo "\$1" | tr ',' ' '); do
		echo "\${kv#*=}" > \$P/\${kv%%=*} || fail "setting \$kv in host1"
		c="\$c && echo \${kv#*=} > \$P/\${kv%%=*}"
	done
	h2 "\$c" || fail "setting \$1 in host2"
}

# word MSG NAME [N]: the Nth (default 1st) token after NAME in MSG
word() { echo "\$1" | awk -v n="\$2" -v k="\${3:-1}" '{ for (i = 1; i < NF; i++) if (\$i == n) { print \$(i + k); exit } }' | tr -d ,; }

# hstat NAME STATS: a host counter from 'scalioctl stats --host-only'
hstat() { echo "\$2" | awk -v k="\$1" '\$1 == k { print \$2 }'; }

# last_hold N [2]: host1's (host2's) latest "fill held at N" line
last_hold() {
	c="dmesg | grep 'scalio-host: fill held at \$1:' | tail -n 1"
	if [ \$# = 2 ]; then h2 "\$c"; else sh -c "\$c"; fi
}

[ -e \$P/debug_hold_fill ] || fail "scalio_host has no debug_hold_fill (not a test build)"
scalioctl stats \$S --host-only | head -n 1 | grep -q fill_token ||
	fail "the store does not ask for fill tokens"

# round NAME SKIP WANT: one round on key wrap.NAME with
# debug_skip_fill_token=SKIP; the fresh GETs must return value WANT (v1, v2)
round() {
	n=\$1 K=wrap.\$1 skip=\$2
	V1=\$K.v1 V2=\$K.v2 V3=\$K.v3
	step "\$n: debug_ver_bits=1, debug_skip_fill_token=\$skip in both hosts"
	set_params optimistic_miss=0,debug_ver_bits=1,debug_skip_fill_token=\$skip
	scalioctl put \$S \$K \$V1 || fail "\$n: put \$K=\$V1"
	e1=\$(hstat errors "\$(scalioctl stats \$S --host-only)")
	e2=\$(hstat errors "\$(h2 "scalioctl stats \$S --host-only")")

	step "\$n: b. filler A in host1 (holds 0 and 2)"
	echo 5 > \$P/debug_hold_fill || fail "arming host1's holds"
	sh /share/bg.sh a scalioctl get \$S \$K
	a_held() {
		[ ! -e /tmp/a.rc ] || never "A's GET returned: \$(cat /tmp/a.out)"
		[ "\$(cat \$P/debug_fill_held)" = 1 ]
	}
	wait_until "filler A to hold before its value WRITE" a_held ||
		fail "\$n: filler A never held"
	msg_a=\$(last_hold 0)
	echo "# A: \$msg_a"

	step "\$n: c. A's lease runs out"
	# its deadline: bits 31..16 of its lock word, in the target clock
	# (ms since the target booted, from jiffies: its /proc/uptime, to
	# within the 2 s asked for on top: the clock starts with the tick,
	# a little after the uptime)
	dl=\$((0x\$(word "\$msg_a" lock | cut -c9-12)))
	a_expired() {
		up=\$(vmctl exec-target "cat /proc/uptime") ||
			never "reading the target's uptime"
		up=\${up%% *}
		ahead=\$(((dl - \${up%.*} * 1000 - 1\${up#*.} * 10 + 1000) & 65535))
		[ \$ahead -ge 32768 ] && [ \$((ahead - 65536)) -lt -2000 ]
	}
	sleep \$((LEASE_MS / 1000))
	wait_until "A's lease to be 2 s over in the target clock" a_expired ||
		fail "\$n: waiting for A's lease"
	echo "# A's deadline \$dl, target clock about \$((\${up%.*} * 1000 + 1\${up#*.} * 10 - 1000))"

	step "\$n: d. host2 PUTs \$K=\$V2 (its invalidation makes A's lock D)"
	st2=\$(h2 "scalioctl stats \$S --host-only")
	h2 "scalioctl put \$S \$K \$V2" || fail "\$n: host2: put \$K=\$V2"

	step "\$n: e. filler B in host2 (renews once, holds 1)"
	h2 "echo \$((LEASE_MS * 3 / 4)) > \$P/debug_fill_delay_ms &&
		echo 2 > \$P/debug_hold_fill && sh /share/bg.sh b scalioctl get \$S \$K" ||
		fail "\$n: starting filler B"
	b_held() {
		r=\$(h2 "if [ -e /tmp/b.rc ]; then echo returned: \\\$(cat /tmp/b.out); else cat \$P/debug_fill_held; fi")
		case \$r in returned*) never "B's GET \$r" ;; esac
		[ "\$r" = 1 ]
	}
	wait_until "filler B to hold before its publish CAS" b_held ||
		fail "\$n: filler B never held"
	h2 "echo 0 > \$P/debug_fill_delay_ms" || fail "\$n: host2: debug_fill_delay_ms=0"
	msg_b=\$(last_hold 1 2)
	echo "# B: \$msg_b"
	st2b=\$(h2 "scalioctl stats \$S --host-only")
	echo "# host2: invalidations +\$((\$(hstat invalidations "\$st2b") - \$(hstat invalidations "\$st2"))), lease_reclaims +\$((\$(hstat lease_reclaims "\$st2b") - \$(hstat lease_reclaims "\$st2"))), lease_renewals +\$((\$(hstat lease_renewals "\$st2b") - \$(hstat lease_renewals "\$st2")))"
	sa=\$(word "\$msg_a" slot) sb=\$(word "\$msg_b" slot)
	pa=\$(word "\$msg_a" publish) pb=\$(word "\$msg_b" publish)
	va=\$(word "\$msg_a" publish 2) vb=\$(word "\$msg_b" publish 2)
	[ -n "\$sa" ] && [ "\$sa" = "\$sb" ] ||
		fail "\$n: A holds slot '\$sa', B slot '\$sb': the attack did not happen (test broken)"
	[ -n "\$va" ] && [ "\$va" = "\$vb" ] ||
		fail "\$n: A would publish at \$va, B at \$vb: no wrap, the attack did not happen (test broken)"
	echo "# the wrap: A and B both publish slot \$sa at version \$va (A \$pa, B \$pb)"

	step "\$n: f. release A: its late WRITE of \$V1 lands, its CAS fails"
	echo 0 > \$P/debug_fill_held
	wait_until "filler A to hold after its failed CAS" a_held ||
		fail "\$n: filler A never held after its CAS"
	msg_l=\$(last_hold 2)
	echo "# A: \$msg_l"
	[ "\$(word "\$msg_l" found)" = "\$(word "\$msg_b" lock)" ] ||
		fail "\$n: A's CAS did not fail on B's lock: the attack did not happen (test broken)"

	step "\$n: g. release B: it publishes"
	h2 "echo 0 > \$P/debug_fill_held" || fail "\$n: releasing B"
	b_done() {
		r=\$(h2 "cat /tmp/b.rc 2> /dev/null")
		[ -n "\$r" ]
	}
	wait_until "B's GET to return" b_done || fail "\$n: B's GET never returned"
	rb=\$(h2 "cat /tmp/b.rc") vb=\$(h2 "cat /tmp/b.out")
	[ "\$rb" = 0 ] || fail "\$n: B's GET failed (\$rb): \$vb"
	[ "\$vb" = "\$V2" ] || fail "\$n: B's GET returned '\$vb', expected \$V2"
	echo "# B's GET returned \$vb"

	step "\$n: h. fresh GETs in host1 and host2 (the PUT of \$V2 and B's GET returned)"
	hits=\$(hstat cache_hits "\$(scalioctl stats \$S --host-only)")
	g1=\$(scalioctl get \$S \$K) || fail "\$n: host1: fresh get \$K: \$g1"
	hit=\$((\$(hstat cache_hits "\$(scalioctl stats \$S --host-only)") - hits))
	g2=\$(h2 "scalioctl get \$S \$K") || fail "\$n: host2: fresh get \$K: \$g2"
	echo "# \$n: fresh GETs: host1 '\$g1' (cache hits +\$hit), host2 '\$g2'"
	eval "want=\\\$\$3"
	if [ "\$g1" != "\$want" ] || [ "\$g2" != "\$want" ]; then
		[ "\$want" = "\$V2" ] ||
			fail "\$n: fresh GETs returned '\$g1' (host1), '\$g2' (host2), not the stale \$want: the attack did not happen (test broken, or the defence on)"
		fail "\$n: fresh GETs returned '\$g1' (host1), '\$g2' (host2), expected \$want (\$V1: A's late WRITE validated under B's publish)"
	fi
	# without the token the slot is valid (a hit); with it, torn: the
	# GET evicts it and fills again (a miss)
	[ "\$hit" = "\$skip" ] ||
		fail "\$n: host1's fresh GET: cache hits +\$hit with debug_skip_fill_token=\$skip"
	[ "\$g1" != "\$V1" ] ||
		echo "# \$n: STALE: \$V1 read after B's GET returned \$V2 and the PUT of \$V2 returned (not linearizable)"

	step "\$n: release A, clean up"
	echo 0 > \$P/debug_fill_held
	a_done() { [ -s /tmp/a.rc ]; }
	wait_until "A's GET to return" a_done || fail "\$n: A's GET never returned"
	ra=\$(cat /tmp/a.rc) va=\$(cat /tmp/a.out)
	[ "\$ra" = 0 ] || fail "\$n: A's GET failed (\$ra): \$va"
	[ "\$va" = "\$V1" ] || [ "\$va" = "\$V2" ] ||
		fail "\$n: A's GET returned '\$va', expected \$V1 or \$V2"
	echo "# A's GET returned \$va"
	scalioctl put \$S \$K \$V3 || fail "\$n: put \$K=\$V3"
	for j in 1 2; do
		g1=\$(scalioctl get \$S \$K) || fail "\$n: host1: get \$K after the PUT of \$V3"
		g2=\$(h2 "scalioctl get \$S \$K") || fail "\$n: host2: get \$K after the PUT of \$V3"
		[ "\$g1" = "\$V3" ] && [ "\$g2" = "\$V3" ] ||
			fail "\$n: after the PUT of \$V3: host1 '\$g1', host2 '\$g2'"
	done
	set_params debug_hold_fill=0,debug_fill_held=0,debug_fill_delay_ms=0,debug_skip_fill_token=0,debug_ver_bits=0,optimistic_miss=1
	[ "\$(hstat errors "\$(scalioctl stats \$S --host-only)")" = "\$e1" ] &&
		[ "\$(hstat errors "\$(h2 "scalioctl stats \$S --host-only")")" = "\$e2" ] ||
		fail "\$n: a host counted op errors"
	echo "\$3" > /share/\$n.result
}

round variant $variant_skip V1
round control 0 V2
step "WRAP TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --hosts 2 --share "$share" --timeout 600 \
	--ssds 1 --target-setup-args "--nblocks 1 --slots 4 --lease-ms $lease_ms" \
	-- 'sh /share/wrap.sh'
rc=$?
echo "# 23-wrap: $(($(date +%s) - t_start)) s wall"
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
for r in variant:V1 control:V2; do
	[ "$(cat "$share/${r%%:*}.result" 2> /dev/null)" = "${r#*:}" ] ||
		{ echo "FAIL: the ${r%%:*} round did not finish"; exit 1; }
done
echo "PASS: without the fill token a late WRITE across a version wrap was read back stale; with it the fresh value"
exit 0
