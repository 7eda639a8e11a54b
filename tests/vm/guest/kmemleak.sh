#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmemleak.sh mark|scan: the debug-kernel lane's leak check, run in every VM
# by tests/vm/run through the agent.
#   mark  remember where the scalio modules are loaded (their core address
#         range from /proc/modules), before the teardown unloads them;
#   scan  let kmemleak scan twice (an object must be unreferenced for two
#         scans, 5 s apart at least, before it is reported), print its
#         report, and exit 1 when a leaked object's allocation backtrace
#         names scalio (a scalio_* function or a scalio module, loaded) or
#         lies in a remembered scalio address range (unloaded: the frames
#         then print as bare addresses).  Leaks elsewhere in the kernel are
#         printed but do not fail the run.
# Exits 0 without doing anything on kernels without kmemleak.
set -u
k=/sys/kernel/debug/kmemleak
marks=/run/scalio-kmemleak.ranges
[ -e "$k" ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -w "$k" ] || { echo "no kmemleak in this kernel"; exit 0; }

case ${1:-} in
mark)
	# "name size refs deps state address": addresses need root (we are).
	awk '$1 ~ /^scalio_/ { print $1, $2, $6 }' /proc/modules >> "$marks"
	cat "$marks" 2>/dev/null
	exit 0 ;;
scan) ;;
*) echo "usage: kmemleak.sh mark|scan" >&2; exit 2 ;;
esac

awk '$1 ~ /^scalio_/ { print $1, $2, $6 }' /proc/modules >> "$marks"
echo scan > "$k"
sleep 6
echo scan > "$k"
report=$(cat "$k")
[ -n "$report" ] || { echo "kmemleak: no leaks"; exit 0; }
printf '%s\n' "$report"
# One record per "unreferenced object" line; a record is scalio's when a
# line of its backtrace names scalio or holds an address inside a marked
# range.
printf '%s\n' "$report" | awk -v marks="$marks" '
	# Kernel text addresses all start 0xffffffff: compare the low 32
	# bits, which awk numbers (doubles) hold exactly.
	function hex(s,   i, c, v) {
		v = 0
		s = tolower(s)
		sub(/^0x/, "", s)
		if (length(s) > 8) s = substr(s, length(s) - 7)
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1)) - 1
			if (c < 0) return -1
			v = v * 16 + c
		}
		return v
	}
	BEGIN {
		n = 0
		while ((getline l < marks) > 0) {
			split(l, f, " ")
			lo[n] = hex(f[3]); hi[n] = lo[n] + f[2]; n++
		}
	}
	function judge() {
		if (rec != "" && mine) { leaks++; printf "SCALIO LEAK:\n%s", rec }
		rec = ""; mine = 0; bt = 0
	}
	/unreferenced object/ { judge() }
	{ rec = rec $0 "\n" }
	/backtrace:/ { bt = 1; next }
	# Only the allocation backtrace counts (not, e.g., comm "scalioctl").
	bt {
		if ($0 ~ /scalio/) mine = 1
		line = $0
		while (match(line, /ffffffff[0-9a-f]+/)) {
			a = hex(substr(line, RSTART, RLENGTH))
			for (i = 0; i < n; i++)
				if (a >= lo[i] && a < hi[i]) mine = 1
			line = substr(line, RSTART + RLENGTH)
		}
	}
	END { judge(); exit leaks > 0 }'
