#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# coccicheck.sh: the kernel's semantic patches (scripts/coccinelle from
# linux-source-6.1, MODE=report) over the module sources (target/, host/,
# common/).  Prints what they report; exits 1 when anything is reported,
# 4 when spatch or linux-source-6.1 is missing.  Scripts written in OCaml
# are left out (Debian's coccinelle has no OCaml compiler for them), as are
# those without a report mode.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=/usr/src/linux-source-6.1.tar.xz
command -v spatch > /dev/null || { echo "coccicheck: spatch not installed (apt-get install coccinelle)"; exit 4; }
[ -r "$tarball" ] || { echo "coccicheck: no $tarball"; exit 4; }
ks=$top/build/cocci/linux-source-6.1
if [ ! -d "$ks/scripts/coccinelle" ]; then
	mkdir -p "$top/build/cocci"
	tar -C "$top/build/cocci" -xf "$tarball" linux-source-6.1/scripts/coccinelle \
		linux-source-6.1/include linux-source-6.1/arch/x86/include || exit 1
fi
inc=(-I "$ks/arch/x86/include" -I "$ks/arch/x86/include/uapi" -I "$ks/include"
     -I "$ks/include/uapi" -I "$top" --include "$ks/include/linux/kconfig.h")
found=0 n=0
for c in "$ks"/scripts/coccinelle/*/*.cocci "$ks"/scripts/coccinelle/*/*/*.cocci; do
	grep -q '^virtual report' "$c" || continue
	grep -q 'script:ocaml' "$c" && continue
	n=$((n + 1))
	out=$(for d in target host common; do
		spatch -D report --no-show-diff --very-quiet --cocci-file "$c" \
			"${inc[@]}" --dir "$top/$d" 2>/dev/null
	done)
	[ -n "$out" ] || continue
	found=1
	echo "== ${c#"$ks"/}"
	echo "$out"
done
echo "coccicheck: $n semantic patches over target/ host/ common/: $([ $found = 0 ] && echo clean || echo findings)"
[ $found = 0 ]
