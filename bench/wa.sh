#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/wa.sh: the body of `make bench-wa`: write amplification of on-SSD
# format 2 against format 3, side by side in ONE test-bed boot (issue 36).
#
#   bench/wa.sh [--kver 6.1|6.12] [--out DIR] [--v2 REV]
#
# Builds the modules of REV (default 53170e9, the last format-2 commit:
# `git archive` of REV into build/wa-v2/src, scripts/build-kmod.sh there),
# boots the bed once (tests/vm/run --no-setup, one host, one SSD; the run
# builds and loads this tree's modules, format 3) and runs
# bench/wa-guest.sh in the host: for each version both modules are
# reloaded, and for each store geometry and value size a freshly formatted
# store is loaded and updated at 64 and at 1 PUT in flight, measured by the
# target's own counters.  bench/wa-report.py then prints the table
# (wa.md in the output dir).  Not part of `make check`; bench/results.md
# is not touched (its section "Write amplification" is pasted by hand).
#
#   --out DIR  raw files and the report (default build/bench/wa-<date>-<time>)
#   --v2 REV   the format-2 commit to compare against
#
# Sizes: WA_VERSIONS WA_NBLOCKS WA_SIZES WA_KEYS WA_UPDATES WA_DEPTHS of
# bench/wa-guest.sh, from the environment.
# Exit: 0 ok, 1 the benchmark failed (its log says why), 2 usage.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=6.1
out=
v2rev=53170e9

usage() { sed -n '4,24p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=${2:?--kver needs 6.1 or 6.12}; shift ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--v2) v2rev=${2:?--v2 needs a commit}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bench/wa.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
krel=$(vm_krel "$kver")
[ -n "$krel" ] || { echo "bench/wa.sh: no $kver kernel installed" >&2; exit 1; }

stamp=$(date +%Y%m%d-%H%M%S)
[ -n "$out" ] || out=$top/build/bench/wa-$stamp
mkdir -p "$out/raw" || exit 1
out=$(cd "$out" && pwd)
raw=$out/raw

# The format-2 modules, from REV's own sources and build script.
v2src=$top/build/wa-v2/src
v2rev_full=$(git -C "$top" rev-parse --verify "$v2rev^{commit}") ||
	{ echo "bench/wa.sh: no commit $v2rev" >&2; exit 1; }
echo "bench-wa: building the format-2 modules of $v2rev for $krel"
rm -rf "$v2src" && mkdir -p "$v2src" &&
	git -C "$top" archive "$v2rev_full" Kbuild common uapi target host scripts |
	tar -x -C "$v2src" || exit 1
grep -q 'SCALIO_FORMAT_VERSION[[:space:]]*2' "$v2src/common/scalio_format.h" ||
	{ echo "bench/wa.sh: $v2rev is not format 2" >&2; exit 1; }
"$v2src/scripts/build-kmod.sh" "$(vm_kdir "$krel")" "$top/build/wa-v2/$krel" \
	> "$out/build-v2.log" 2>&1 ||
	{ cat "$out/build-v2.log" >&2; echo "bench/wa.sh: format-2 build failed" >&2; exit 1; }
mkdir -p "$raw/ko-v2" &&
	cp "$top/build/wa-v2/$krel/scalio-target.ko" "$top/build/wa-v2/$krel/scalio-host.ko" \
		"$raw/ko-v2/" || exit 1

{
	bench_machine_meta
	echo "krel $krel"
	echo "v2_commit $(git -C "$top" rev-parse --short "$v2rev_full")"
} > "$raw/host-meta.txt"

vars=$(bench_env_vars WA_)
echo "bench-wa: kernel $kver, output in $out"
[ -n "$vars" ] && echo "bench-wa: $(echo $vars)"
bench_vm_run bench-wa "$raw" "$out" 1 3600 \
	"$(echo $vars) bash /scalio/bench/wa-guest.sh" || exit 1
bench_report bench-wa "$top/bench/wa-report.py" "$raw" "$out/wa.md" || exit 1
