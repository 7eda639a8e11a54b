#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The negative controls (tests/vm/controls/*.patch, see its README.md) must
# still apply to the sources and name a suite test that exists (TAP).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
n=0 failed=0
for p in "$here"/controls/*.patch; do
	[ -e "$p" ] || continue
	n=$((n + 1))
	name=$(basename "$p")
	t=${name%%.*}
	if [ ! -x "$here/suite/$t.sh" ]; then
		echo "not ok $n - $name: no suite test $t"
		failed=1
	elif ! out=$(cd "$top" && git apply --check "$p" 2>&1); then
		echo "not ok $n - $name no longer applies"
		echo "$out" | sed 's/^/#   /'
		failed=1
	elif ! grep -q "^| \`$name\`" "$here/controls/README.md"; then
		echo "not ok $n - $name is not described in controls/README.md"
		failed=1
	else
		echo "ok $n - $name applies ($t)"
	fi
done
[ $n -gt 0 ] || { echo "not ok 1 - no control patches"; failed=1; }
echo "1..$n"
exit $failed
