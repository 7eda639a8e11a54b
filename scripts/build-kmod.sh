#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-kmod.sh KDIR OUTDIR: build both modules against KDIR in a private
# copy of the sources under OUTDIR (so several kernels can be built side by
# side).  Fails on any compiler warning (W=1).  This is the test build:
# SCALIO_TEST_HOOKS=1 compiles in the debug_* module parameters the VM
# suite uses (Documentation/testing.rst); a plain `make` has none of them.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$1 out=$2
shift 2
mkdir -p "$out"
for d in Kbuild common uapi target host; do
	rm -rf "${out:?}/$d.new"
	cp -r "$top/$d" "$out/$d.new"
	if [ -e "$out/$d" ] && diff -rq -x '*.o' -x '*.ko' -x '*.cmd' -x '*.mod*' -x '.*' \
			"$top/$d" "$out/$d" >/dev/null 2>&1; then
		rm -rf "${out:?}/$d.new"
	else
		rm -rf "${out:?}/$d"
		mv "$out/$d.new" "$out/$d"
	fi
done
log=$out/build.log
if ! make -C "$kdir" M="$out" W=1 SCALIO_TEST_HOOKS=1 modules "$@" >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
if grep -E 'warning:|error:' "$log" >&2; then
	echo "build-kmod: warnings against $kdir (see $log)" >&2
	exit 1
fi
echo "built $(ls "$out"/*.ko | tr '\n' ' ')against $kdir"
