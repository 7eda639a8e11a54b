#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run test binaries from bin/ and print one KTAP stream: a top-level plan,
# each binary's own output (stdout and stderr) indented as its subtests,
# then "ok N - name" or "not ok N - name" for the binary.  The test_*
# programs print kselftest_harness.h's TAP ("ok N global.case"), the
# fuzzer and the model their own KTAP.  Exit status 1 if any binary failed
# (non-zero exit, including a sanitizer abort).
#
# usage: run.sh "prog [args]"...

cd "$(dirname "$0")" || exit 2
echo "KTAP version 1"
echo "1..$#"
n=0
failed=0
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
for t in "$@"; do
	n=$((n + 1))
	name=${t%% *}
	start=$(date +%s)
	# shellcheck disable=SC2086
	bin/$t >"$out" 2>&1
	rc=$?
	sed 's/^/    /' "$out"
	secs=$(($(date +%s) - start))
	echo "# $name: ${secs}s"
	if [ $rc -eq 0 ]; then
		echo "ok $n - $name"
	else
		echo "# $name exited with status $rc"
		echo "not ok $n - $name"
		failed=$((failed + 1))
	fi
done
echo "# totals: $((n - failed)) passed, $failed failed of $n"
[ $failed -eq 0 ]
