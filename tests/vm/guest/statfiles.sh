#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# statfiles.sh STORE: in the target, check a store's one-value files
# against its all-in-one stats file (POSIX sh, run under dash):
#   - statistics/ holds exactly the counters of the stats lines, each file
#     one line with one decimal number, equal to the stats line of its name;
#   - ssds/<i>/state is the "ssd<i> STATE" line of stats, for every SSD.
# Meant for an idle store: stats is read before and after the files, and a
# try whose two reads differ (a counter moved meanwhile) is taken again.
# Prints "# statistics/: N counters, M SSD states = stats"; exit 0 when all
# hold, 1 with the first difference otherwise.
set -u
d=/sys/kernel/config/scalio/stores/${1:?usage: statfiles.sh STORE}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

check() {
	: > "$tmp/files"
	for f in "$d"/statistics/*; do
		n=${f##*/}
		lines=$(wc -l < "$f") || return 1
		v=$(cat "$f") || return 1
		if [ "$lines" != 1 ] || ! echo "$v" | grep -qxE '[0-9]+'; then
			echo "statistics/$n: not one decimal value: '$v'"
			return 1
		fi
		echo "$n $v" >> "$tmp/files"
	done
	for s in "$d"/ssds/*/state; do
		[ -e "$s" ] || continue
		i=${s%/state}
		i=${i##*/}
		echo "ssd$i $(cat "$s")" >> "$tmp/files"
	done
	return 0
}

try=1
while :; do
	cat "$d/stats" > "$tmp/before" || exit 1
	check > "$tmp/why" || { cat "$tmp/why"; echo "FAIL: $d"; exit 1; }
	cat "$d/stats" > "$tmp/after" || exit 1
	cmp -s "$tmp/before" "$tmp/after" && break
	try=$((try + 1))
	if [ $try -gt 5 ]; then
		echo "FAIL: $d/stats kept moving; not idle"
		exit 1
	fi
done
sort "$tmp/before" > "$tmp/want"
sort "$tmp/files" > "$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got"; then
	echo "statistics/ and ssds/*/state differ from $d/stats (- stats, + files):"
	diff "$tmp/want" "$tmp/got" | grep '^[<>]' | sed 's/^</-/; s/^>/+/'
	echo "FAIL: $d"
	exit 1
fi
echo "# statistics/: $(grep -vc '^ssd[0-9]' "$tmp/got") counters," \
	"$(grep -c '^ssd[0-9]' "$tmp/got") SSD states = stats"
exit 0
