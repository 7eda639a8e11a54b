#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/vsep.sh: the body of `make bench-vsep`: what key-value separation
# (on-SSD format 5, store attribute attr_value_inline_max) buys and costs
# per value size, the inline maxes side by side in ONE test-bed boot, to
# choose the attribute's default.
#
#   bench/vsep.sh [--kver 6.1|6.12] [--quick] [--out DIR]
#
# Boots the bed once (tests/vm/run --no-setup, one host, one SSD per
# inline max; the run builds and loads this tree's modules) and runs
# bench/vsep-guest.sh in the host: for each value size one freshly
# formatted store per inline max, all alive at once, is filled, updated,
# and read (GETs, all misses: inline cache off) in alternating rounds at
# one GET in flight, measured by the stores' own counters (host and
# target), the host VM's block-layer reads and fio's latencies.
# bench/vsep-report.py then prints the tables (vsep.md in the output
# dir).  Not part of `make check`; bench/results.md is not touched.
#
#   --quick    under 2 minutes in the VMs: 256 and 4096 B values, inline
#              max 4096 and 128, 1,000 keys in 32 x 32 buckets, 3 rounds
#              of 100 GETs (VS_* variables still override)
#   --out DIR  raw files and the report (default
#              build/bench/vsep-<date>-<time>)
#
# Sizes: VS_GEOMS (NBxNBK tokens, default "64x64 64x2048": about 31
# keys per bucket, then about one), VS_SIZES (default "64 256 1024
# 4096"), VS_MAXES (inline maxes, the first 4096, default "4096 128 0"),
# VS_KEYS (2000), VS_UPDATES (2000), VS_ROUNDS (6), VS_GETS (200 per
# store and round), from the environment.  About 14 minutes in the VMs
# on the shared 2-core machine.
# Exit: 0 ok, 1 the benchmark failed (its log says why), 2 usage.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=6.1
out=
quick=0

usage() { sed -n '4,33p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=${2:?--kver needs 6.1 or 6.12}; shift ;;
	--quick) quick=1 ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bench/vsep.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
krel=$(vm_krel "$kver")
[ -n "$krel" ] || { echo "bench/vsep.sh: no $kver kernel installed" >&2; exit 1; }

# The bed builds tools/fio/scalio-fio.so only with fio's source headers.
[ -f "$top/build/fio-src/fio.h" ] || {
	echo "bench/vsep.sh: no build/fio-src (the fio engine's headers):" \
	     "run scripts/fio-source.sh or make deps" >&2
	exit 1
}

if [ $quick = 1 ]; then
	export VS_GEOMS=${VS_GEOMS:-32x32} VS_SIZES=${VS_SIZES:-256 4096}
	export VS_MAXES=${VS_MAXES:-4096 128} VS_KEYS=${VS_KEYS:-1000}
	export VS_UPDATES=${VS_UPDATES:-1000} VS_ROUNDS=${VS_ROUNDS:-3}
	export VS_GETS=${VS_GETS:-100}
fi
# One SSD per inline max: the stores of one value size live side by side.
# shellcheck disable=SC2086
set -- ${VS_MAXES:-4096 128 0}
nssds=$#

stamp=$(date +%Y%m%d-%H%M%S)
[ -n "$out" ] || out=$top/build/bench/vsep-$stamp
mkdir -p "$out/raw" || exit 1
out=$(cd "$out" && pwd)
raw=$out/raw

{
	bench_machine_meta
	echo "krel $krel"
	echo "quick $quick"
} > "$raw/host-meta.txt"

vars=$(bench_env_vars VS_)
echo "bench-vsep: kernel $kver, output in $out"
[ -n "$vars" ] && echo "bench-vsep: $(echo $vars)"
bench_vm_run bench-vsep "$raw" "$out" "$nssds" 3600 \
	"$(echo $vars) bash /scalio/bench/vsep-guest.sh" || exit 1
bench_report bench-vsep "$top/bench/vsep-report.py" "$raw" "$out/vsep.md" || exit 1
