#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/check.sh [--kver 6.1|6.12|6.1-debug] [--resume]: the body of
# `make check` (and, with --kver 6.1-debug, of `make check-debug`).
#   1. unit tests (make -C tests/unit run; its TAP lines are counted), and
#      the tests of the user-space tools (make -C DIR test)
#   2. module builds with W=1 against the newest 6.1 and 6.12 trees (any
#      warning fails), sparse (C=2) on 6.1 (any warning in our files fails),
#      checkpatch.pl (scripts/checkpatch.sh), the kernel's coccinelle rules
#      (scripts/coccicheck.sh)
#   3. every tests/vm/suite/*.sh in order, booting the --kver series
# With --kver 6.1-debug (the debug-kernel lane), 1. and 2. are replaced by
# building the debug kernel (tests/vm/debug-kernel/build; cached) and the
# modules against it; the suite then runs on that kernel.
# Prints TAP-ish progress and ends with exactly one summary line
# "N passed, N failed[, N skipped]"; exits non-zero on any failure.  Logs go
# to build/check/ (build/check-debug/ for the debug lane).
# --resume (debug lane only, `make check-debug RESUME=1`): a VM test that
# already passed on this very source tree (clean work tree, same contents)
# and the same kernel release is reported with its earlier result instead
# of being run again.  The lane takes longer than a working session on a
# 2-core machine, so it can be finished in parts; every test still boots
# its own fresh VMs, so a part proves what a whole run would.  The passes
# are kept in tests/vm/debug-lane.passed, a tracked file (a session's
# machine may not be the next one's: commit it), keyed by the tree's
# contents without that file.
# --first "NAME ..." (debug lane, `make check-debug FIRST=...`): run these
# suite tests (e.g. 40-admission) before the others.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
kver=6.1 resume=0 first=
usage="usage: tests/check.sh [--kver 6.1|6.12|6.1-debug] [--resume] [--first 'NAME ...']"
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=${2:?--kver needs 6.1, 6.12 or 6.1-debug}; shift ;;
	--resume) resume=1 ;;
	--first) first=${2?--first needs suite test names}; shift ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
	shift
done
# The suite in the order it runs: --first's tests, then the rest by name.
suite=()
for f in $first; do
	[ -x "$top/tests/vm/suite/${f%.sh}.sh" ] ||
		{ echo "tests/check.sh: --first: no suite test $f" >&2; exit 2; }
	suite+=("$top/tests/vm/suite/${f%.sh}.sh")
done
logs=$top/build/check
vm_is_debug "$kver" && logs=$top/build/check-debug
# What a resumed lane may reuse: "TREE KERNEL NAME SECONDS DATE" lines of
# tests that passed, in $record (KERNEL: release/Debian source version).  TREE names the contents of a clean work
# tree (untracked files count: a new suite script changes the suite) other
# than the record itself: a hash of `git ls-tree -r HEAD` without it.
record=$top/tests/vm/debug-lane.passed
rec_path=tests/vm/debug-lane.passed
tree=
if [ $resume = 1 ]; then
	if ! vm_is_debug "$kver"; then
		echo "tests/check.sh: --resume is for the debug lane (--kver 6.1-debug)" >&2
		exit 2
	fi
	if [ -z "$(git -C "$top" status --porcelain -- . ":(exclude)$rec_path" 2> /dev/null)" ]; then
		tree=$(git -C "$top" ls-tree -r HEAD 2> /dev/null |
			grep -v -F -x -e "$(git -C "$top" ls-tree HEAD -- "$rec_path")" |
			git hash-object --stdin)
	fi
	if [ -z "$tree" ]; then
		echo "# --resume: not a clean git work tree; running every test"
		resume=0
	fi
fi
if [ $resume = 1 ]; then
	mkdir -p "$logs"
	# Keep the logs of the tests it will not run again; drop the rest.
	find "$logs" -mindepth 1 -maxdepth 1 ! -name 'vm-*' -exec rm -rf {} +
	echo "# --resume: tree $tree"
else
	rm -rf "$logs"
	mkdir -p "$logs"
fi
pass=0 fail=0 skip=0 n=0 t0=$SECONDS

# result ok|fail|skip NAME [DETAIL]
result() {
	n=$((n + 1))
	case $1 in
	ok) pass=$((pass + 1)); echo "ok $n - $2${3:+ ($3)}" ;;
	fail) fail=$((fail + 1)); echo "not ok $n - $2${3:+ ($3)}" ;;
	skip) skip=$((skip + 1)); echo "ok $n - $2 # SKIP${3:+ $3}" ;;
	esac
}
# show_tail FILE: the end of a failing step's log, indented as TAP comments.
show_tail() { tail -n "${2:-30}" "$1" | sed 's/^/#   /'; }

declare -A built=()
if vm_is_debug "$kver"; then
	echo "# debug kernel and module build"
	s=$SECONDS
	krel=$(vm_krel "$kver" 2> "$logs/debug-kernel.log")
	if [ -n "$krel" ]; then
		result ok "debug kernel $krel" "$((SECONDS - s))s; $(grep -o 'built .* job(s)' \
			"$vm_debug_dir/build.log" | tail -n1)"
		s=$SECONDS
		if flock -w 1800 "$top/build/.vm-lock-$krel" \
				"$top/scripts/build-kmod.sh" "$(vm_kdir "$krel")" "$top/build/$krel" \
				> "$logs/build-$krel.log" 2>&1; then
			built[$krel]=1
			result ok "build W=1 $krel" "$((SECONDS - s))s"
		else
			result fail "build W=1 $krel" "$((SECONDS - s))s"
			show_tail "$logs/build-$krel.log" 40
		fi
	else
		result fail "debug kernel" "see $logs/debug-kernel.log"
		show_tail "$logs/debug-kernel.log" 40
	fi
fi

# ------------------------------------------------------------ 1. unit tests
if vm_is_debug "$kver"; then
	:
elif [ -f "$top/tests/unit/Makefile" ]; then
	echo "# unit tests"
	# A guard, not a performance limit: CI must end within the hour.
	timeout -k 10 "${SCALIO_UNIT_TIMEOUT:-1500}" \
		make -C "$top/tests/unit" run > "$logs/unit.log" 2>&1
	urc=$?
	[ $urc = 124 ] && echo "# unit tests killed after ${SCALIO_UNIT_TIMEOUT:-1500}s" >> "$logs/unit.log"
	while IFS= read -r l; do
		t=$(sed -E 's/^(not )?ok [0-9]+ *(- *)?//' <<< "$l")
		case $l in
		"not ok "*) result fail "unit: $t" ;;
		"ok "*"# SKIP"*|"ok "*"# skip"*) result skip "unit: ${t%%#*}" "${t#*# [Ss][Kk][Ii][Pp]}" ;;
		"ok "*) result ok "unit: $t" ;;
		esac
	done < <(grep -E '^(not )?ok ' "$logs/unit.log")
	if [ $urc = 124 ] || { [ $urc != 0 ] && ! grep -q '^not ok ' "$logs/unit.log"; }; then
		result fail "unit: make -C tests/unit run exited $urc"
		show_tail "$logs/unit.log"
	fi
else
	result skip "unit tests" "tests/unit/Makefile not there"
fi

# User-space tools' own tests (TAP): the linearizability checker, the test
# bed's kernel log check (tests/vm/logcheck), the benchmark's projection
# to hardware (bench/projection.py's arithmetic), the YCSB
# driver against its LD_PRELOAD stand-in of the device, the fio engine,
# scalioctl save/restore on fake configfs trees (and its JSON reader),
# the man pages (render cleanly, document every command and option), the
# Debian packages (built from debian/, lintian, dpkg -i into a throw-away
# overlay of the machine, DKMS builds the modules for both kernels: the
# slowest, several minutes).
# The debug lane skips them (the normal lane runs them).
for d in tests/lincheck tests/vm bench tools/ycsb tools/fio tools/scalioctl man packaging; do
	vm_is_debug "$kver" && break
	tl=$logs/test-${d//\//-}.log
	timeout -k 10 1200 make -C "$top/$d" test > "$tl" 2>&1
	trc=$?
	nok=$(grep -c '^ok ' "$tl")
	nbad=$(grep -c '^not ok ' "$tl")
	if [ $trc = 0 ] && [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then
		result ok "tool tests: $d" "$nok cases"
	else
		result fail "tool tests: $d" "exit $trc, $nbad of $((nok + nbad)) cases failed"
		grep '^not ok ' "$tl" | sed 's/^/#   /'
		show_tail "$tl"
	fi
done

# ------------------------------------------------------------ 2. builds
vm_is_debug "$kver" || echo "# module builds (W=1) and sparse"
for series in 6.1 6.12; do
	vm_is_debug "$kver" && break
	krel=$(vm_krel "$series")
	if [ -z "$krel" ] || [ ! -d "/lib/modules/$krel/build" ]; then
		result fail "build $series" "no $series kernel headers (make deps)"
		continue
	fi
	s=$SECONDS
	# Same lock as tests/vm/run: other runs may be using build/<krel>.
	if flock -w 1800 "$top/build/.vm-lock-$krel" \
			"$top/scripts/build-kmod.sh" "/lib/modules/$krel/build" "$top/build/$krel" \
			> "$logs/build-$krel.log" 2>&1; then
		built[$krel]=1
		result ok "build W=1 $krel" "$((SECONDS - s))s"
	else
		result fail "build W=1 $krel" "$((SECONDS - s))s"
		show_tail "$logs/build-$krel.log" 40
	fi
done
krel=$(vm_krel 6.1)
if vm_is_debug "$kver"; then
	:
elif ! command -v sparse > /dev/null; then
	result fail "sparse" "sparse not installed (make deps)"
elif [ -z "$krel" ] || [ -z "${built[$krel]:-}" ]; then
	result skip "sparse C=2 ${krel:-6.1}" "the module does not build"
else
	# C=2 checks every source file whether or not it needs rebuilding.
	# With build-kmod.sh's own flags (W=1, the test hooks) nothing needs
	# rebuilding: the W=1 build above is reused and sparse alone runs.
	# (Other flags would rebuild every object, and the VM suite would
	# load that build.)
	s=$SECONDS
	out=$top/build/$krel
	flock -w 1800 "$top/build/.vm-lock-$krel" \
		make -C "/lib/modules/$krel/build" M="$out" C=2 W=1 SCALIO_TEST_HOOKS=1 modules \
		> "$logs/sparse-$krel.log" 2>&1
	src=$?
	# Only our files count: sparse also grumbles about kernel headers.
	grep -E "^($out/)?(target|host|common|uapi)/[^:]+:[0-9]+:[0-9]+: (warning|error):" \
		"$logs/sparse-$krel.log" > "$logs/sparse-ours.log"
	if [ $src = 0 ] && [ ! -s "$logs/sparse-ours.log" ]; then
		result ok "sparse C=2 $krel" "$((SECONDS - s))s"
	else
		result fail "sparse C=2 $krel" "$(wc -l < "$logs/sparse-ours.log") warning(s)"
		if [ -s "$logs/sparse-ours.log" ]; then
			show_tail "$logs/sparse-ours.log" 40
		else
			show_tail "$logs/sparse-$krel.log"
		fi
	fi
fi

# checkpatch.pl --no-tree from linux-source-6.1 over the kernel sources
s=$SECONDS
vm_is_debug "$kver" || "$top/scripts/checkpatch.sh" > "$logs/checkpatch.log" 2>&1
case $?,$kver in
*,6.1-debug) ;;
0,*) result ok "checkpatch" "$((SECONDS - s))s" ;;
4,*) result skip "checkpatch" "linux-source-6.1 not installed" ;;
*) result fail "checkpatch" "$(grep -c '^\(WARNING\|ERROR\|CHECK\):' "$logs/checkpatch.log") finding(s)"
   show_tail "$logs/checkpatch.log" 40 ;;
esac

# the kernel's coccinelle rules (scripts/coccinelle, report mode)
s=$SECONDS
vm_is_debug "$kver" || "$top/scripts/coccicheck.sh" > "$logs/coccicheck.log" 2>&1
case $?,$kver in
*,6.1-debug) ;;
0,*) result ok "coccicheck" "$(tail -n 1 "$logs/coccicheck.log" | sed 's/^coccicheck: //'), $((SECONDS - s))s" ;;
4,*) result fail "coccicheck" "$(tail -n 1 "$logs/coccicheck.log")" ;;
*) result fail "coccicheck" "$(tail -n 1 "$logs/coccicheck.log")"
   show_tail "$logs/coccicheck.log" 40 ;;
esac

# ------------------------------------------------------------ 3. VM suite
krel=$(vm_krel "$kver")
# The record's kernel: the release, and on the debug lane Debian's source
# version too (6.1.192-2 and a later -3 build the same release string; the
# build's stamp makes the cached kernel match the installed source).
kid=$krel
if vm_is_debug "$kver" && [ -n "$krel" ]; then
	kid=$krel/$(dpkg-query -W -f '${Version}' linux-source-6.1 2> /dev/null || echo unknown)
fi
echo "# VM suite on ${krel:-$kver}"
for t in "$top"/tests/vm/suite/*.sh; do
	[[ " ${suite[*]} " == *" $t "* ]] || suite+=("$t")
done
for t in "${suite[@]}"; do
	name=vm/$(basename "$t" .sh)
	if [ ! -x "$t" ]; then
		result fail "$name" "not executable"
		continue
	fi
	tl=$logs/${name//\//-}.log
	if [ $resume = 1 ] && prev=$(awk -v t="$tree" -v k="$kid" -v n="$name" \
			'$1 == t && $2 == k && $3 == n { l = $4 "s, passed " $5 } END { if (l == "") exit 1; print l }' \
			"$record" 2> /dev/null); then
		result ok "$name" "$prev on this tree"
		continue
	fi
	rm -rf "$tl" "$tl.1" "${logs:?}/${name//\//-}" "${logs:?}/${name//\//-}-again"
	s=$SECONDS
	# tests/vm/run puts each run's logs below SCALIO_VM_LOGROOT and
	# skips the module build that stage 2 just did.
	SCALIO_VM_LOGROOT=$logs/${name//\//-} \
	SCALIO_VM_PREBUILT=${built[$krel]:-0} \
		"$t" --kver "$kver" > "$tl" 2>&1 < /dev/null
	rc=$?
	again=
	# A known report of stock kernel code (tests/vm/logcheck) switched
	# lockdep off for the rest of that boot: run the test once more.
	if [ $rc != 0 ] && [ $rc != 4 ] &&
	   [ -n "$(find "$logs/${name//\//-}" -name stock-report 2> /dev/null)" ]; then
		mv "$tl" "$tl.1"
		SCALIO_VM_LOGROOT=$logs/${name//\//-}-again \
		SCALIO_VM_PREBUILT=${built[$krel]:-0} \
			"$t" --kver "$kver" > "$tl" 2>&1 < /dev/null
		rc=$?
		again="; run again after a known stock-kernel report (log $tl.1)"
	fi
	case $rc in
	0) result ok "$name" "$((SECONDS - s))s$again"
	   [ -z "$tree" ] || echo "$tree $kid $name $((SECONDS - s))" \
		"$(date -u +%Y-%m-%dT%H:%MZ)" >> "$record" ;;
	4) result skip "$name" "$(grep -m1 '^SKIP' "$tl")" ;;
	*) result fail "$name" "exit $rc, $((SECONDS - s))s, log $tl"
	   show_tail "$tl" 40 ;;
	esac
done

echo "# $((SECONDS - t0))s, logs in $logs"
summary="$pass passed, $fail failed"
[ $skip -gt 0 ] && summary="$summary, $skip skipped"
echo "$summary"
[ $fail = 0 ]
