#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/soak/soak.sh [--kver 6.1|6.12] [--duration SECONDS]: the long run
# behind `make soak` (not in `make check`: hours).
#
# One boot of a target VM (2 SSDs, small enough that the cleaner and the
# checkpoints run all the time) and two host VMs.  Rounds of about
# SOAK_ROUND seconds until --duration has passed; in each round:
#   - both hosts run scalio-ycsb (workload A, Zipfian, SOAK_DEPTH in flight
#     per thread through io_uring) in runs of 1000 operations for the
#     whole round, host1 also a durability ledger (tests/selftests/scalio_crash write: every acknowledged PUT
#     logged before it goes on);
#   - in the middle of the round, one fault, in turn: a target crash
#     (vmctl kill-target, start-target: recovery), a detach and attach of
#     host2, a partition of host2 from the target (all its frames dropped
#     by netem for SOAK_PARTITION seconds), or none;
#   - after it: the ledger is verified (every acknowledged PUT reads back
#     with its value or a later one: "lost" counts the keys that do not),
#     then a sampled linearizability window: tests/selftests/scalio_lin on
#     both hosts for SOAK_LIN seconds on fresh keys, checked here by
#     tests/lincheck/lincheck;
#   - memory of all three kernels: MemAvailable and slab (Slab:) from
#     /proc/meminfo.
# Errors that operations returned are counted by errno (ycsb's first error
# message per run and its count).  The report (build/soak/<time>/report.txt,
# also printed) has ops, errors, lost, lin windows checked and failed, and
# the memory and slab growth of each kernel from the first round to the
# last.  Exit 0 when lost = 0, every window is linearizable and the run
# ended cleanly (kernel logs included); 1 otherwise.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=6.1 duration=${SOAK_DURATION:-7200} report_only=
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift ;;
	--duration) duration=$2; shift ;;
	--report) report_only=$2; shift ;;
	*) echo "usage: tests/soak/soak.sh [--kver 6.1|6.12] [--duration SECONDS] [--report DIR]" >&2; exit 2 ;;
	esac
	shift
done
round=${SOAK_ROUND:-180}
depth=${SOAK_DEPTH:-16}
part=${SOAK_PARTITION:-12}
lin=${SOAK_LIN:-20}
out=$top/build/soak/$(date +%Y%m%d-%H%M%S)

# ---------------------------------------------------------------- report
# report: from $out (share/, run.log), $rc and $secs; exit status as above.
report() {
	lin_ok=0 lin_bad=0
	for h in "$share"/lin.*.h1.hist; do
		[ -e "$h" ] || continue
		w=${h%.h1.hist}
		cat "$h" "$w.h2.hist" > "$w.hist" 2> /dev/null
		if "$top/tests/lincheck/lincheck" -s "$w.hist" > "$w.check" 2>&1; then
			lin_ok=$((lin_ok + 1))
		else
			lin_bad=$((lin_bad + 1))
		fi
	done
	# ops and errors of the run phases, by kind of round (seed % 10: host;
	# seed / 10 % 4: the fault)
	ycsb_sum() {
		python3 - "$share" <<- 'PY'
	import glob, json, os, sys
	acc = {}
	for f in glob.glob(os.path.join(sys.argv[1], "y.*.json")):
	    seed = int(f.split(".")[-2]) // 1000
	    kind = ["none", "target crash", "detach+attach", "partition"][(seed // 10) % 4]
	    run = json.load(open(f))["phases"]["run"]
	    a = acc.setdefault(kind, [0, 0, 0.0])
	    a[0] += run["ops"]; a[1] += run["errors"]; a[2] += run["seconds"]
	for k, (o, e, t) in sorted(acc.items()):
	    print(f"  {k:14s} ops {o:8d}  errors {e:7d} ({100.0 * e / max(o, 1):5.1f} %)  goodput {(o - e) / max(t, 1e-9):8.1f} ops/s per host")
	PY
	}
	lost=$(awk '$3 != 0' "$share/verify.txt" 2> /dev/null | wc -l)
	{
		echo "soak: kernel $kver, $secs s, $(cat "$share/rounds" 2> /dev/null || echo '?') rounds, vm/run exit $rc"
		echo "ycsb run phases by the round's fault (both hosts):"
		ycsb_sum
		echo "errors by message (first error of each ycsb run):"
		grep -h 'first:' "$share"/y.*.out 2> /dev/null | sed 's/.*first: //' | sort | uniq -c | sed 's/^/  /'
		echo "ledger verifications failed (lost): $lost of $(wc -l < "$share/verify.txt" 2> /dev/null || echo 0)"
		echo "linearizability windows: $lin_ok linearizable, $lin_bad not"
		echo "memory (kB, first round -> last): MemAvailable, Slab"
		for v in host1 host2 target; do
			awk -v v=$v '$3 == v { if (!n++) { a0 = $4; s0 = $5 } a = $4; s = $5 }
				END { printf "  %-7s %d -> %d (%+d), slab %d -> %d (%+d)\n", v, a0, a, a - a0, s0, s, s - s0 }' \
				"$share/mem.txt" 2> /dev/null
		done
	} | tee "$out/report.txt"
	[ "$rc" = 0 ] && [ "$lost" = 0 ] && [ "$lin_bad" = 0 ] && [ "$lin_ok" -gt 0 ]
}

if [ -n "$report_only" ]; then
	out=$report_only share=$out/share
	rc=$(sed -n 's/.*PASS in \([0-9]*\)s.*/0/p' "$out/run.log" | head -n 1)
	secs=$(sed -n 's/.*PASS in \([0-9]*\)s.*/\1/p' "$out/run.log" | head -n 1)
	report
	exit
fi
share=$out/share
mkdir -p "$share"
make -C "$top/tests" > /dev/null || { echo "soak: make -C tests failed"; exit 1; }
make -C "$top/tests/lincheck" lincheck > /dev/null || { echo "soak: lincheck build failed"; exit 1; }

cat > "$share/soak.sh" << EOF
DURATION=$duration ROUND=$round DEPTH=$depth PART=$part LIN=$lin
EOF
cat >> "$share/soak.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
CR=/scalio/tests/selftests/scalio_crash
LN=/scalio/tests/selftests/scalio_lin
LEDGER="-l /tmp/ledger -p ledger -t 2 -k 64 -V 12 -v 2048"
T0=$(date +%s)
END=$((T0 + DURATION))
step() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
mem() {
	for v in host1 host2 target; do
		case $v in
		host1) m=$(cat /proc/meminfo) ;;
		host2) m=$(vmctl exec-host 2 cat /proc/meminfo) ;;
		target) m=$(vmctl exec-target cat /proc/meminfo) ;;
		esac
		echo "$m" | awk -v r="$1" -v v=$v \
			'/^MemAvailable:/ { a = $2 } /^Slab:/ { s = $2 }
			 END { print "mem", r, v, a, s }'
	done >> /share/mem.txt
}
hreconnects() {
	scalioctl stats "$S" --host-only | awk '$1 == "reconnects" { print $2 }'
}
# serving: a PUT goes through (the host module reconnected by itself)
serving() { scalioctl put "$S" soak.probe "$(date +%s)" > /dev/null 2>&1; }
# ycsb on host $1 for $2 seconds (by that host's clock: the VMs' clocks
# differ), in runs of 1000 operations, each with its own seed
# $3 * 1000 + run (its JSON: /share/y.SEED.json)
ycsb() {
	c="i=0; e=\$((\$(date +%s) + $2)); while [ \$(date +%s) -lt \$e ]; do i=\$((i + 1)); s=\$(($3 * 1000 + i));
		scalio-ycsb --store $S --run --workload a --records 2000 --threads 2 --depth $DEPTH --ops 1000 --seed \$s --value-size 512 --json /share/y.\$s.json > /share/y.\$s.out 2>&1; done"
	if [ "$1" = 1 ]; then
		sh -c "$c"
	else
		vmctl exec-host 2 "$c"
	fi
}
mem 0
step "load"
scalio-ycsb --store "$S" --load --records 2000 --value-size 512 --quiet ||
	{ echo "FAIL: load"; exit 1; }
r=0
while [ "$(date +%s)" -lt $END ]; do
	r=$((r + 1))
	f=$((r % 4))
	step "round $r: fault $f"
	ycsb 1 $ROUND $((r * 10 + 1)) & p1=$!
	ycsb 2 $ROUND $((r * 10 + 2)) & p2=$!
	$CR write $LEDGER -T $ROUND > /share/ledger.$r.out 2>&1 & pl=$!
	sleep $((ROUND / 2))
	case $f in
	1)	step "target crash"
		vmctl kill-target
		vmctl start-target || { echo "FAIL: target did not come back"; exit 1; } ;;
	3)	step "host2 partitioned for $PART s"
		vmctl exec-host 2 "modprobe sch_netem; tc qdisc add dev eth0 root netem loss 100% &&
			sleep $PART; tc qdisc del dev eth0 root" ;;
	esac
	wait $p1 $p2 $pl
	# Detach needs the device closed: host2 is idle now.
	if [ $f = 2 ]; then
		step "host2 detach + attach"
		vmctl exec-host 2 "scalioctl detach $S && scalioctl attach $S --addr $A > /dev/null" ||
			{ echo "FAIL: host2 detach/attach"; exit 1; }
	fi
	# The ledger's writer stops at its first failed PUT; verify then reads
	# every key once the store answers again.
	wait_until "host1 served again" serving
	$CR verify $LEDGER > /share/verify.$r.out 2>&1
	echo "verify $r $?" >> /share/verify.txt
	step "lin window $r"
	TB=$(vmctl exec-target cat /proc/sys/kernel/random/boot_id)
	vmctl exec-host 2 "$LN -t 2 -k 8 -n 100000000 -E $TB -L 4096 -T $LIN -S 2 -c h2 -p w$r -o /share/lin.$r.h2.hist" \
		> /share/lin.$r.h2.out 2>&1 & p=$!
	$LN -t 2 -k 8 -n 100000000 -E "$TB" -L 4096 -T $LIN -S 1 -c h1 -p w$r \
		-o /share/lin.$r.h1.hist > /share/lin.$r.h1.out 2>&1
	wait $p
	mem $r
	echo "# reconnects $(hreconnects)"
done
step "soak done: $r rounds"
echo "$r" > /share/rounds
EOF


start=$(date +%s)
"$top/tests/vm/run" --kver "$kver" --hosts 2 --ssds 2 --ssd-size 64M --share "$share" \
	--logdir "$out/vm" --timeout $((duration * 2 + 1800)) -- 'sh /share/soak.sh' \
	2>&1 | tee "$out/run.log"
rc=${PIPESTATUS[0]}
secs=$(($(date +%s) - start))
report
