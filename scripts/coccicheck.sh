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
cocci=()
for c in "$ks"/scripts/coccinelle/*/*.cocci "$ks"/scripts/coccinelle/*/*/*.cocci; do
	grep -q '^virtual report' "$c" || continue
	grep -q 'script:ocaml' "$c" && continue
	cocci+=("$c")
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One spatch per patch over the three directories: the files --dir would
# take (*.c, in find's order), each a group of its own, so each is
# handled alone as with --dir.  (Starting spatch, which parses the patch
# and kconfig.h, cost about as much as the files; it ran three times per
# patch.)
for d in target host common; do
	find "$top/$d" -name '*.c' | sed 'a\
'
done > "$tmp/files"
# One spatch at a time per CPU (each is single-threaded); every patch's
# reports go to a file of its own and are printed below in patch order.
jobs_max=$(nproc 2> /dev/null || echo 1)
for i in "${!cocci[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n
	done
	spatch -D report --no-show-diff --very-quiet --cocci-file "${cocci[$i]}" \
		"${inc[@]}" --file-groups "$tmp/files" > "$tmp/$i" 2>/dev/null &
done
wait
found=0 n=${#cocci[@]}
for i in "${!cocci[@]}"; do
	out=$(cat "$tmp/$i")
	[ -n "$out" ] || continue
	found=1
	echo "== ${cocci[$i]#"$ks"/}"
	echo "$out"
done
echo "coccicheck: $n semantic patches over target/ host/ common/: $([ $found = 0 ] && echo clean || echo findings)"
[ $found = 0 ]
