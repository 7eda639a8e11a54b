#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh DIR TEST... - run prebuilt kselftests and print KTAP.
#
# Plain POSIX sh (busybox ash in the test VMs): no compiler, no writes to
# the tree.  Each test's output is indented as "# ..." lines (nested KTAP);
# exit status 0 = ok, 4 = skip, anything else = not ok.  DIR/settings may
# give timeout=SECONDS (0: none).  STRESS_ARGS is passed to scalio_stress.
# Exit status: 0 if no test failed, 1 otherwise.

dir=$1
shift
[ -n "$dir" ] && [ $# -gt 0 ] || {
	echo "usage: run_tests.sh DIR TEST..." >&2
	exit 2
}

timeout=0
if [ -f "$dir/settings" ]; then
	t=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$dir/settings")
	[ -n "$t" ] && timeout=$t
fi
tmo=
if [ "$timeout" -gt 0 ] && command -v timeout >/dev/null 2>&1; then
	tmo="timeout $timeout"
fi

# Unbuffered where sed can (GNU): progress lines of a long test show up
# while it runs, not at its end.
sed='sed'
echo | sed -u q >/dev/null 2>&1 && sed='sed -u'

echo "TAP version 13"
echo "1..$#"
exec 3>&1
n=0
failed=0
for t in "$@"; do
	n=$((n + 1))
	name=${t##*/}
	path=$dir/$name
	echo "# selftests: scalio: $name"
	if [ ! -f "$path" ]; then
		echo "# $path missing: build it with 'make -C tests' on the build machine"
		echo "not ok $n selftests: scalio: $name # missing"
		failed=1
		continue
	fi
	case $name in
	*.sh)		cmd="sh $path" ;;
	scalio_stress)	cmd="$path $STRESS_ARGS" ;;
	*)		cmd=$path ;;
	esac
	# The exit status travels on fd 4 out of the pipeline into $rc.
	rc=$( { { $tmo $cmd 2>&1 3>&- 4>&-; echo $? >&4; } |
		$sed 's/^/# /' >&3; } 4>&1 )
	case $rc in
	0)
		echo "ok $n selftests: scalio: $name" ;;
	4)
		echo "ok $n selftests: scalio: $name # SKIP" ;;
	124)
		echo "not ok $n selftests: scalio: $name # TIMEOUT $timeout seconds"
		failed=1 ;;
	*)
		echo "not ok $n selftests: scalio: $name # exit=$rc"
		failed=1 ;;
	esac
done
exit $failed
