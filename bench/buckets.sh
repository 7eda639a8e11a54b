#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/buckets.sh: the body of `make bench-buckets`: what decoupling the
# DRAM cache blocks from the on-SSD key buckets buys and costs, geometries
# side by side in ONE test-bed boot (issue 36).
#
#   bench/buckets.sh [--kver 6.1|6.12] [--out DIR]
#
# Boots the bed once (tests/vm/run --no-setup, one host, one SSD; the run
# builds and loads this tree's modules) and runs bench/buckets-guest.sh in
# the host: for each geometry (cache blocks x buckets) and value size a
# freshly formatted store is loaded, updated and read (GETs) at 64 in
# flight, measured by the store's own counters (host and target) and the
# host VM's block-layer reads.  bench/buckets-report.py then prints the
# table (buckets.md in the output dir).  Not part of `make check`;
# bench/results.md is not touched.
#
#   --out DIR  raw files and the report (default
#              build/bench/buckets-<date>-<time>)
#
# Sizes: BK_GEOMS (NBxNBK tokens, default "4096x4096 64x4096 64x64
# 16x4096"), BK_SIZES (default "64 1024"), BK_KEYS (4000), BK_UPDATES
# (2000), BK_GETS (4000), from the environment.
# Exit: 0 ok, 1 the benchmark failed (its log says why), 2 usage.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=6.1
out=

usage() { sed -n '4,25p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=${2:?--kver needs 6.1 or 6.12}; shift ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bench/buckets.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
krel=$(vm_krel "$kver")
[ -n "$krel" ] || { echo "bench/buckets.sh: no $kver kernel installed" >&2; exit 1; }

# The bed builds tools/fio/scalio-fio.so only with fio's source headers.
[ -f "$top/build/fio-src/fio.h" ] || {
	echo "bench/buckets.sh: no build/fio-src (the fio engine's headers):" \
	     "run scripts/fio-source.sh or make deps" >&2
	exit 1
}

stamp=$(date +%Y%m%d-%H%M%S)
[ -n "$out" ] || out=$top/build/bench/buckets-$stamp
mkdir -p "$out/raw" || exit 1
out=$(cd "$out" && pwd)
raw=$out/raw

{
	bench_machine_meta
	echo "krel $krel"
} > "$raw/host-meta.txt"

vars=$(bench_env_vars BK_)
echo "bench-buckets: kernel $kver, output in $out"
[ -n "$vars" ] && echo "bench-buckets: $(echo $vars)"
bench_vm_run bench-buckets "$raw" "$out" 1 3600 \
	"$(echo $vars) bash /scalio/bench/buckets-guest.sh" || exit 1
bench_report bench-buckets "$top/bench/buckets-report.py" "$raw" "$out/buckets.md" || exit 1
