#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh: the body of `make bench` (Documentation/benchmarks.rst).
#
#   bench/run.sh [--kver 6.1|6.12] [--quick] [--out DIR] [--no-publish]
#
# Boots the VM test bed ONCE (tests/vm/run --no-setup, one host, nine
# emulated SSDs) and runs bench/guest.sh in the host: test-bed limits,
# the YCSB breakdown (base / +offloaded read / +inline cache / +batched
# write), the 1-2-4 SSD scaling and the group-commit sweep (one thread,
# 1..128 PUTs in flight), all in that one boot so the figures compare.  Then bench/report.py turns the raw files into results.md,
# breakdown.png and scaling.png.
#
#   --quick       a tiny version (a few hundred ops, two workloads, 1 and 2
#                 SSDs) to check that the whole pipeline works; never
#                 published
#   --out DIR     where raw files and the report go
#                 (default build/bench/<date>-<time>[-quick])
#   --no-publish  leave bench/results.md and the PNGs alone (a full run
#                 otherwise copies its report there)
#
# Sizes can be overridden with the BENCH_* variables of bench/guest.sh.
# Exit: 0 ok, 1 the benchmark failed (its log says why), 2 usage.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
kver=6.1
quick=0
out=
publish=1

usage() { sed -n '4,24p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=${2:?--kver needs 6.1 or 6.12}; shift ;;
	--quick) quick=1 ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--no-publish) publish=0 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bench/run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
[ $quick = 1 ] && publish=0

py=/usr/bin/python3
[ -x $py ] || py=python3
$py -c 'import matplotlib' 2>/dev/null || {
	echo "bench/run.sh: python3 with matplotlib is needed (make deps)" >&2
	exit 1
}

stamp=$(date +%Y%m%d-%H%M%S)
[ -n "$out" ] || out=$top/build/bench/$stamp$([ $quick = 1 ] && echo -quick)
raw=$out/raw
mkdir -p "$raw" || exit 1
out=$(cd "$out" && pwd)
raw=$out/raw

# The sizes: about 15 minutes on 2 cores under TCG for the full run.
if [ $quick = 1 ]; then
	vars="BENCH_RECORDS=200 BENCH_OPS=100 BENCH_WARM=50 BENCH_THREADS=8
	      BENCH_WORKLOADS='a c' BENCH_CAP_WORKLOADS=a BENCH_SCALE='1 2'
	      BENCH_SCALE_WORKLOADS=c BENCH_LIMIT_SECS=2 BENCH_LAT_ITERS=50
	      BENCH_SWEEP_IOS=300 BENCH_DEPTH_WORKLOADS=c BENCH_WAIT_KEYS=8"
	timeout=900
else
	vars=
	timeout=2700
fi
# Caller's BENCH_* settings win.
for v in $(compgen -e | grep '^BENCH_'); do
	vars="$vars $v='${!v}'"
done
scale=$(eval "$vars"; echo "${BENCH_SCALE:-1 2 4}")
nssds=2
for n in $scale; do nssds=$((nssds + n)); done

{
	bench_machine_meta
	echo "quick $quick"
	echo "nssds $nssds"
	echo "vars $(echo $vars)"
} > "$raw/host-meta.txt"

echo "bench: kernel $kver, $nssds SSDs, output in $out"
[ -n "$vars" ] && echo "bench: $(echo $vars)"
bench_vm_run bench "$raw" "$out" "$nssds" "$timeout" \
	"$(echo $vars) bash /scalio/bench/guest.sh" || exit 1

$py "$top/bench/report.py" "$raw" "$out" || {
	echo "bench: FAILED: report.py" >&2
	exit 1
}
if [ $publish = 1 ]; then
	# Keep the sections of `make bench-wa` and `make bench-fill` (pasted
	# by hand, from the first of them to the end of the file).
	wa=$(sed -n '/^## Write amplification: format 2 against format 3/,$p' \
		"$top/bench/results.md" 2>/dev/null)
	cp "$out/results.md" "$out/breakdown.png" "$out/scaling.png" \
		"$out/sweep.png" "$top/bench/" || exit 1
	[ -z "$wa" ] || printf '\n%s\n' "$wa" >> "$top/bench/results.md"
	echo "bench: published bench/results.md, bench/breakdown.png," \
	     "bench/scaling.png, bench/sweep.png (raw data in $raw)"
fi
echo "bench: report $out/results.md ($BENCH_WALL s in the VMs)"
exit 0
