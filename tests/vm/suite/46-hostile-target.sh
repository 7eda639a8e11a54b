#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 46-hostile-target: the host module against a lying target.  A fake
# target (tests/hostile/scalio_faketarget, user space, librdmacm +
# libibverbs) listens on the target VM beside the real store and answers
# host1's `scalioctl attach` with one lie per scenario:
#   ok        no lie: the attach must succeed (so every failure below is
#             the lie's doing, not the fake's)
#   cm-*      malformed accept private data (none, magic, major, queue
#             depth 0 or above the request, client id 0 or too big; a
#             short one cannot be sent: the CM pads it with zeros)
#   hello-*   a HELLO answer with a bad geometry (blocks, slots, block
#             size, SSDs, chunks, buckets), lease or unknown feature bits;
#             hello-nbuckets-*: no buckets, fewer than blocks, not a power
#             of two, more than SCALIO_BUCKETS_PER_BLOCK_MAX per block,
#             above SCALIO_NR_BUCKETS_MAX (refused by the message check,
#             before the HELLO's fields are used)
#   chunks-*  index chunks that leave a gap, overlap, fall short, run
#             past the table, restart, claim more entries than sent, none
#   ssd-*     an SSD_INFO answer for another index, with an unterminated
#             NQN, an NQN that is no NQN ("--help /../x"), too short
#   oversize  a message one byte larger than the host's buffers
#   noise-*   a copy of the HELLO answer sent before it with a tag index
#             past the table, a stale use count, another opcode, no
#             response flag, a lying length, a positive status, or as a
#             runt; noise-replay: the answer sent twice; noise-writeimm:
#             a zero-byte RDMA WRITE with immediate before it (takes a
#             receive, fills nothing)
#   each must fail the attach with EPROTO (oversize: any error; no correct
#   target sends any of it, so the host fails the connection at once
#   rather than waiting out the request's timeout), leave no
#   /dev/scalio/fake, and name the reason in the host's log;
#   hello-nblocks-big, hello-nchunks-huge, hello-nchunks-many: a table
#             above SCALIO_NR_BLOCKS_MAX, 2^31 chunks (a 64 GiB chunk
#             table: kvcalloc would WARN), a well-formed index of more
#             chunks than the host's cap: refused at HELLO, nothing sized
#             by them (2^31 blocks can have no valid bucket count: that
#             one is refused as a malformed message)
#   chunks-one  one chunk per CHUNKS answer, each 4 s late: refused at the
#             first short answer (EPROTO within 10 s, not 64 x 4 s later)
#   chunks-slow full CHUNKS answers, each 4 s late, 257 of them: the
#             handshake's total bound (30 s) ends the attach with
#             ETIMEDOUT within 45 s
#   chunks-kill the same, and the attaching process is sent SIGKILL after
#             3 s: it is gone within 3 s more (the waits are killable)
#   kato-tiny HELLO tells a 1 ms keep-alive timeout: the host clamps it to
#             3 s and sends at most one KEEPALIVE a second.
#   admit-noproof, admit-badproof, admit-reflect
#             ADMIT answered 0 without the target's proof of host1's
#             secret, with a wrong one, or with host1's own proof sent
#             back: the attach fails with EKEYREJECTED, naming the proof
#             (otherwise the fake proves the secret: it is given host1's
#             key file, so every other lie gets past ADMIT);
#   relay     the fake relays host1's attach of kv0 to the real target (its
#             own connection, host1's connect data, the target's challenge
#             passed back, host1's ADMIT passed on): the real target must
#             refuse the proof (EKEYREJECTED: it was made on host1's
#             connection to the fake) and log why, and the attach fails.
#             Control: 46-hostile-target.no-conn-bind (the connection out
#             of the proofs) makes the target admit the relay.
#   chunks-rkey (last) a well-formed store whose second index chunk has a
#             wrong rkey: the attach succeeds; a GET of a block of that
#             chunk fails (the RDMA READ's remote access error fails the
#             connection), never returns a value; detach works.
# Both kernels' logs must stay clean (the bed checks).
# Usage: [FAKE_ONLY="scenario ..."] 46-hostile-target.sh [--kver 6.1|6.12];
# exit 0 pass, 1 fail.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

make -C "$top/tests/hostile" > /dev/null ||
	{ echo "FAIL: make -C tests/hostile failed (libibverbs-dev, librdmacm-dev?)"; exit 1; }

suite_share hostile_target

# FAKE_ONLY="sc1 sc2 ...": run only these scenarios (debugging).
cat > "$share/fake.sh" << EOF
ONLY="${FAKE_ONLY:-}"
EOF
cat >> "$share/fake.sh" << 'EOF'
set -u
FT=/scalio/tests/hostile/scalio_faketarget
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
P=4900
F=${SCALIO_TIMEOUT_FACTOR:-1}
nfail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
tg() { vmctl exec-target "$*"; }

# want SCENARIO: is it to run?
want() {
	[ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) ;; *) return 1 ;; esac
}
nrun=0 ran=''	# scenarios run, and in which order

# The scenarios, in the order this script runs them; the fake target
# serves one connection to each, in this order.
ALL="ok cm-none cm-magic cm-major cm-qd0 cm-qd-big cm-cid0 cm-cid-big
	hello-short hello-nblocks0 hello-nblocks3 hello-slots5 hello-bsize
	hello-nssds0 hello-nssds-big hello-nchunks0 hello-nchunks-big
	hello-lease0 hello-lease-big hello-features
	hello-nbuckets0 hello-nbuckets-few hello-nbuckets-npow2
	hello-nbuckets-bpb hello-nbuckets-big
	hello-nblocks-big hello-nchunks-huge hello-nchunks-many
	chunks-one chunks-slow chunks-kill
	chunks-gap chunks-overlap chunks-short-cover chunks-nr-big chunks-first
	chunks-len chunks-zero ssd-short ssd-nqn-unterminated ssd-index
	ssd-nqn-bad oversize noise-tag noise-stale noise-replay noise-op
	noise-flag noise-len noise-status noise-runt noise-writeimm kato-tiny
	admit-noproof admit-badproof admit-reflect relay chunks-rkey"
W=$((10 * F))	# kato-tiny's connection, in seconds
list='' args=''
for sc in $ALL; do
	want "$sc" || continue
	list="$list $sc"
	case $sc in
	kato-tiny) args="$args $sc=$((3 * W))" ;;
	*) args="$args $sc" ;;
	esac
done

# One vmctl call starts the fake target for every scenario (each call
# costs seconds on the debug lane) and waits until it listens (never: it
# exited).
tg "FT_KEY=\$SCALIO_CTL/vm/host1/scalio.key FT_RELAY=$A:4800 \
	$FT $P $((60 * F)) $args > /tmp/ft.log 2>&1 &
	ft=\$!
	. /scalio/tests/vm/guest/wait.sh
	listens() {
		kill -0 \"\$ft\" 2> /dev/null || never 'it exited'
		grep -q listening /tmp/ft.log
	}
	WAIT_INTERVAL=0.2 wait_until 'the fake target to listen' listens && exit 0
	cat /tmp/ft.log; exit 1" || bad "no fake target"

# finish: wait for the fake target to be done with every scenario (it ends
# the last connection SECONDS after accepting it; never: it exited without
# saying done), print its log, and check that it served every scenario, in
# order.  A connection too many would shift every later lie by one: then
# the last attach finds no fake target and fails with another error than
# EPROTO.
finish() {
	tg ". /scalio/tests/vm/guest/wait.sh
		ft_done() {
			pgrep -f \"^$FT \" > /dev/null || never 'it exited'
			grep -q '^done' /tmp/ft.log
		}
		WAIT_INTERVAL=0.2 wait_until 'the fake target to finish' ft_done ||
			echo NOT-DONE
		cat /tmp/ft.log" > /tmp/ft.log 2>&1
	sed 's/^/   ft| /' /tmp/ft.log
	! grep -q NOT-DONE /tmp/ft.log || bad "fake target ended without finishing"
	served=$(sed -n 's/^end \([^ ]*\) .*/\1/p' /tmp/ft.log | tr '\n' ' ')
	[ "$(echo $served)" = "$(echo $list)" ] && ok "fake target served each scenario once, in order" ||
		bad "fake target served '$(echo $served)', not '$(echo $list)'"
}

# Host kernel log lines since the last mark (the log is never cleared: the
# bed checks all of it at the end).
mark() { m0=$(dmesg | wc -l); }
newlog() { dmesg | tail -n +$((m0 + 1)); }

# must_fail SCENARIO LOG-PATTERN [ERROR [STORE]]: the attach (of STORE,
# default fake) fails at SCALIO_IOC_ATTACH with ERROR (default EPROTO's
# text), leaves no device, and the host logs PATTERN.
must_fail() {
	sc=$1 pat=$2 err=${3:-Protocol error} st=${4:-fake}
	want "$sc" || return 0
	nrun=$((nrun + 1)) ran="$ran $sc"
	echo "== $sc"
	mark
	out=$(scalioctl attach $st --addr "$A" --port $P 2>&1)
	rc=$?
	echo "$out" | sed 's/^/   | /'
	if [ $rc = 0 ] || ! echo "$out" | grep -q "SCALIO_IOC_ATTACH: "; then
		bad "$sc: attach did not fail at SCALIO_IOC_ATTACH (rc $rc)"
	elif [ "$sc" != oversize ] &&
	     ! echo "$out" | grep -q "SCALIO_IOC_ATTACH: $err"; then
		bad "$sc: attach failed with another error (not $err)"
	else
		ok "$sc: attach refused"
	fi
	[ -e /dev/scalio/$st ] && { bad "$sc: /dev/scalio/$st exists"; scalioctl detach $st; }
	if newlog | grep -Eq "$pat"; then
		ok "$sc: host log: $(newlog | grep -E "$pat" | head -n 1 | sed 's/^\[[^]]*\] //')"
	else
		bad "$sc: host log lacks /$pat/"; newlog | tail -n 5
	fi
}

# must_attach SCENARIO: the kernel attach succeeds (scalioctl then fails
# to nvme-connect the fake SSD: expected).
must_attach() {
	sc=$1
	want "$sc" || return 1
	nrun=$((nrun + 1)) ran="$ran $sc"
	echo "== $sc"
	mark
	out=$(scalioctl attach fake --addr "$A" --port $P 2>&1)
	echo "$out" | sed 's/^/   | /'
	if echo "$out" | grep -q "SCALIO_IOC_ATTACH" || [ ! -e /dev/scalio/fake ]; then
		bad "$sc: attach failed"
		return 1
	fi
	ok "$sc: attached"
}

MALFORMED='protocol violation by the target: (malformed message|runt or oversized)'
if must_attach ok; then
	scalioctl detach fake > /dev/null || bad "ok: detach"
fi

for sc in cm-none cm-magic cm-major cm-qd0 cm-qd-big cm-cid0 cm-cid-big; do
	must_fail $sc "fake: bad accept private data"
done
for sc in hello-short hello-nblocks0 hello-nblocks3 hello-slots5 hello-bsize \
	  hello-nssds0 hello-nssds-big hello-nchunks0 hello-nchunks-big; do
	must_fail $sc "$MALFORMED"
done
for sc in hello-lease0 hello-lease-big hello-features; do
	must_fail $sc "HELLO with bad geometry"
done
# A bucket count that is none: EPROTO, nothing sized by it.
for sc in hello-nbuckets0 hello-nbuckets-few hello-nbuckets-npow2 \
	  hello-nbuckets-bpb hello-nbuckets-big; do
	must_fail $sc "$MALFORMED"
done
# (In the fake target's order: 2^31 blocks have no valid bucket count.)
must_fail hello-nblocks-big "HELLO with bad geometry"
must_fail hello-nchunks-huge "$MALFORMED"
must_fail hello-nchunks-many "HELLO with bad geometry"
# One chunk per answer, each 4 s late: refused at the first answer.
t0=$(date +%s)
must_fail chunks-one "CHUNKS page at 0: 1 chunks, 64 expected"
want chunks-one && { dt=$(($(date +%s) - t0))
	[ $dt -le $((10 * F)) ] && ok "chunks-one: refused in ${dt}s" ||
		bad "chunks-one: refused after ${dt}s (more than $((10 * F)))"; }
# Full answers, each 4 s late: 257 of them would take 17 minutes; the
# handshake's bound (30 s, plus one request's timeout at most) ends it.
# The attach runs under timeout(1) so that a missing bound fails the test
# rather than hanging it (SIGTERM is fatal to scalioctl).
if want chunks-slow; then
	nrun=$((nrun + 1)) ran="$ran chunks-slow"
	echo "== chunks-slow"
	mark
	t0=$(date +%s)
	out=$(timeout 150 scalioctl attach fake --addr "$A" --port $P 2>&1)
	rc=$?
	dt=$(($(date +%s) - t0))
	echo "$out" | sed 's/^/   | /'
	if [ $rc = 124 ]; then
		bad "chunks-slow: attach still running after ${dt}s"
	elif echo "$out" | grep -q "SCALIO_IOC_ATTACH: Connection timed out" &&
	     [ $dt -le 45 ]; then
		ok "chunks-slow: attach timed out after ${dt}s"
	else
		bad "chunks-slow: attach ended after ${dt}s with rc $rc"
	fi
	[ -e /dev/scalio/fake ] && { bad "chunks-slow: /dev/scalio/fake exists"; scalioctl detach fake; }
	newlog | grep -q 'fake: handshake failed: -110' &&
		ok "chunks-slow: host log: handshake failed: -110" ||
		{ bad "chunks-slow: host log lacks -110"; newlog | tail -n 5; }
fi
# The same target, and the attaching process is killed after 3 s.
if want chunks-kill; then
	nrun=$((nrun + 1)) ran="$ran chunks-kill"
	echo "== chunks-kill"
	scalioctl attach fake --addr "$A" --port $P > /dev/null 2>&1 &
	pid=$!
	sleep 3
	kill -KILL $pid 2> /dev/null
	t0=$(date +%s)
	gone=0
	for i in $(seq 1 30); do
		kill -0 $pid 2> /dev/null || { gone=1; break; }
		sleep 0.1
	done
	[ $gone = 1 ] && ok "chunks-kill: the killed attach ended at once" ||
		bad "chunks-kill: the killed attach still runs 3 s later ($(cat /proc/$pid/stat 2> /dev/null | cut -d' ' -f3))"
	wait $pid 2> /dev/null
	[ -e /dev/scalio/fake ] && { bad "chunks-kill: /dev/scalio/fake exists"; scalioctl detach fake; }
fi
for sc in chunks-gap chunks-overlap chunks-short-cover chunks-nr-big \
	  chunks-first; do
	must_fail $sc "fake: handshake failed: -71"
done
for sc in chunks-len chunks-zero ssd-short ssd-nqn-unterminated; do
	must_fail $sc "$MALFORMED"
done
for sc in ssd-index ssd-nqn-bad; do
	must_fail $sc "bad SSD_INFO answer"
done
must_fail oversize "RECV failed"

# Responses no correct target sends fail the connection (and the attach).
V="fake: protocol violation by the target"
must_fail noise-tag "$V: response with bad tag"
for sc in noise-stale noise-replay; do
	must_fail $sc "$V: unexpected response"
done
must_fail noise-op "$V: (unexpected response|malformed message)"
for sc in noise-flag noise-len noise-status; do
	must_fail $sc "$V: malformed message"
done
must_fail noise-runt "$V: runt or oversized"
must_fail noise-writeimm "$V: RDMA WRITE with immediate"

# A 1 ms KATO from the target: keep-alives at most once a second.  The
# host keeps this connection W seconds (the scenario), then detaches: the
# fake's own limit for it is 3 W, so the fake never ends it first (the
# host would reconnect, and that would be taken for the next scenario's
# connection).  kdt bounds the connection's life from above.
katt=0
t0=$(date +%s)
if must_attach kato-tiny; then
	katt=1
	sleep $W
	scalioctl detach fake > /dev/null || bad "kato-tiny: detach"
	kdt=$(($(date +%s) - t0 + 1))
fi

# ADMIT answered without (or with a wrong, or with our own) proof of our
# secret: not a target that holds it.
K="Key was rejected by service"
must_fail admit-noproof "fake: the target admitted host .* without proving its secret" "$K"
must_fail admit-badproof "fake: the target's proof of host .*'s secret is wrong" "$K"
must_fail admit-reflect "fake: the target's proof of host .*'s secret is wrong" "$K"
# The relay: host1 attaches kv0 through the fake, which passes the
# handshake on to the real target.  kv0 is detached first (one device per
# store) and attached again after.
if want relay; then
	scalioctl detach kv0 > /dev/null || bad "relay: detach kv0"
	tm0=$(tg "dmesg | wc -l")
	must_fail relay "kv0: the target rejected the secret of host" "$K" kv0
	tlog=$(tg "dmesg | tail -n +$((tm0 + 1))")
	if echo "$tlog" | grep -q "refused: wrong secret, or a proof made on another connection (a relay)"; then
		ok "relay: the real target: $(echo "$tlog" | grep 'a relay' | head -n 1 | sed 's/^\[[^]]*\] //')"
	else
		bad "relay: the real target did not refuse the relayed proof"; echo "$tlog" | tail -n 5
	fi
	scalioctl attach kv0 --addr "$A" > /dev/null || bad "relay: attach kv0 again"
fi

# chunks-rkey, last: the attach succeeds, then a GET of a block in the
# second chunk reads the index with the wrong rkey: the RDMA READ fails
# with a remote access error, and the host must fail that GET and the
# connection (no value, no hang, no oops), and detach cleanly.  GETs of
# the first chunk's blocks find nothing (the fake index is empty).  Last
# because the host's reconnect after the failure would otherwise be taken
# for the next scenario's connection.
if must_attach chunks-rkey; then
	mark
	hit='' nf=0
	for i in $(seq 1 32); do
		out=$(scalioctl get fake "rk$i" 2>&1)
		rc=$?
		if [ $rc = 1 ]; then
			nf=$((nf + 1))	# not found: a block of the first chunk
			continue
		fi
		hit="rk$i: exit $rc: $out"
		break
	done
	if [ -z "$hit" ]; then
		bad "chunks-rkey: none of 32 GETs failed ($nf not found)"
	elif echo "$hit" | grep -q 'exit 0'; then
		bad "chunks-rkey: a GET returned a value: $hit"
	else
		ok "chunks-rkey: GET failed after $nf not found: $hit"
	fi
	if newlog | grep -q 'fake: one-sided op failed: remote access error'; then
		ok "chunks-rkey: host log: $(newlog | grep 'one-sided op failed' | head -n 1 | sed 's/^\[[^]]*\] //')"
	else
		bad "chunks-rkey: host log lacks the failed one-sided op"; newlog | tail -n 5
	fi
	scalioctl detach fake > /dev/null || bad "chunks-rkey: detach"
	[ -e /dev/scalio/fake ] && bad "chunks-rkey: /dev/scalio/fake still there after detach"
fi
finish
if want relay; then
	grep '^relay' /tmp/ft.log | sed 's/^/   /'
	if grep -q '^relay: the target answered ADMIT with -129$' /tmp/ft.log; then
		ok "relay: the real target answered the relayed ADMIT with EKEYREJECTED"
	else
		bad "relay: the real target did not refuse the relayed ADMIT with EKEYREJECTED"
	fi
fi
if [ $katt = 1 ]; then
	ka=$(sed -n 's/^end kato-tiny keepalives \([0-9]*\) .*/\1/p' /tmp/ft.log)
	if [ -n "$ka" ] && [ "$ka" -ge 1 ] && [ "$ka" -le $((kdt + 2)) ]; then
		ok "kato-tiny: $ka keep-alives in at most ${kdt}s (clamped to one a second)"
	else
		bad "kato-tiny: '$ka' keep-alives in at most ${kdt}s (at most $((kdt + 2)) allowed)"
	fi
fi

# The real store is untouched by all this.
scalioctl put "${SCALIO_STORE:-kv0}" ht.k v && [ "$(scalioctl get "${SCALIO_STORE:-kv0}" ht.k)" = v ] &&
	ok "the real store still works" || bad "the real store does not answer"

# Every scenario named ran (a skipped one must not pass for a refused one).
if [ -n "$ONLY" ]; then
	want=$(echo $ONLY | wc -w)
else
	want=58
fi
[ "$nrun" = "$want" ] && ok "$nrun scenarios ran" ||
	bad "$nrun scenarios ran, $want expected"
[ "$(echo $ran)" = "$(echo $list)" ] ||
	bad "scenarios ran in the order '$(echo $ran)', the fake served '$(echo $list)'"

[ $nfail = 0 ] || { echo "HOSTILE TARGET TEST FAILED: $nfail check(s)"; exit 1; }
echo "HOSTILE TARGET TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --ssds 1 --ssd-size 20M --share "$share" \
	-- 'sh /share/fake.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: every lie of the fake target refused; logs clean"
exit 0
