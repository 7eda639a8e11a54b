#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the kernel's checkpatch.pl (from linux-source-6.1) over scalio's
# kernel and shared sources.  Exit non-zero on errors or warnings.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cp=${CHECKPATCH:-}
if [ -z "$cp" ]; then
	for d in /usr/src/linux-source-6.1 "$top/build/linux-source-6.1"; do
		[ -x "$d/scripts/checkpatch.pl" ] && cp=$d/scripts/checkpatch.pl && break
	done
fi
if [ -z "$cp" ]; then
	tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
	[ -n "$tarball" ] || { echo "checkpatch: install linux-source-6.1" >&2; exit 4; }
	mkdir -p "$top/build"
	tar -C "$top/build" -xf "$tarball" linux-source-6.1/scripts \
		linux-source-6.1/Documentation/dev-tools/checkpatch.rst
	cp=$top/build/linux-source-6.1/scripts/checkpatch.pl
fi
cd "$top"
files=$(ls common/*.[ch] target/*.[ch] host/*.[ch] uapi/*.h 2>/dev/null)
# shellcheck disable=SC2086
ign=FILE_PATH_CHANGES,SPDX_LICENSE_TAG
rc=0
# The compat header is the one place that compares kernel versions.
"$cp" --no-tree --quiet --show-types \
	--ignore $ign,LINUX_VERSION_CODE,CONSTANT_COMPARISON \
	--max-line-length=100 -f common/scalio_compat.h || rc=1
# shellcheck disable=SC2086
"$cp" --no-tree --quiet --show-types --ignore $ign \
	--max-line-length=100 -f $(echo "$files" | grep -v '^common/scalio_compat.h$') || rc=1
exit $rc
