#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scalioctl_cli.sh - the scalioctl command-line contract on an attached
# store: put/get/del output and exit codes (0 ok, 1 missing, 2 usage,
# 3 failure), --hex, literal bytes, stats, target-setup's attribute
# limits.  KTAP output; exit 4 (skip) when the store is not attached.  SCALIO_STORE selects the store (kv0).

store=${SCALIO_STORE:-kv0}
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../tools/scalioctl/scalioctl
[ -x "$ctl" ] || ctl=$(command -v scalioctl)

echo "TAP version 13"
if [ -z "$ctl" ] || [ ! -x "$ctl" ]; then
	echo "1..0 # SKIP scalioctl not built"
	exit 4
fi
if [ ! -e "/dev/scalio/$store" ]; then
	echo "1..0 # SKIP /dev/scalio/$store absent: store not attached"
	exit 4
fi

run=$$.$(date +%s)
n=0
fails=0
echo "1..13"

# check DESC EXPECTED_STATUS EXPECTED_STDOUT CMD...  (stdout compared
# exactly; "-" skips the comparison)
check() {
	desc=$1 want_rc=$2 want_out=$3
	shift 3
	out=$("$ctl" "$@" 2>/dev/null)
	rc=$?
	n=$((n + 1))
	if [ "$rc" != "$want_rc" ]; then
		echo "# '$*': exit $rc, expected $want_rc"
		echo "not ok $n $desc"
		fails=$((fails + 1))
	elif [ "$want_out" != "-" ] && [ "$out" != "$want_out" ]; then
		echo "# '$*': printed '$out', expected '$want_out'"
		echo "not ok $n $desc"
		fails=$((fails + 1))
	else
		echo "ok $n $desc"
	fi
}

# Several steps as one test point: all must hold.
group() {
	desc=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $desc"
	else
		echo "not ok $n $desc"
		fails=$((fails + 1))
	fi
}

k=cli.$run
roundtrip() {
	"$ctl" put "$store" "$k" "hello world" || return 1
	[ "$("$ctl" get "$store" "$k")" = "hello world" ] || return 1
	"$ctl" put "$store" "$k" "second" || return 1
	[ "$("$ctl" get "$store" "$k")" = "second" ]
}
group "put, get, overwrite" roundtrip

check "get prints the value" 0 "second" get "$store" "$k"
check "del of a present key exits 0" 0 "" del "$store" "$k"
check "get of a missing key exits 1" 1 "" get "$store" "$k"
check "del of a missing key exits 1" 1 "" del "$store" "$k"

literal() {
	"$ctl" put "$store" -- "-$k" "-v a  b" || return 1
	[ "$("$ctl" get "$store" -- "-$k")" = "-v a  b" ] || return 1
	"$ctl" put "$store" "e.$k" "" || return 1
	[ "$("$ctl" get "$store" "e.$k")" = "" ] || return 1
	"$ctl" del "$store" -- "-$k" && "$ctl" del "$store" "e.$k"
}
group "literal bytes: leading dash, spaces, empty value" literal

hex() {
	hk=$(printf '%s' "h.$k" | od -An -tx1 | tr -d ' \n')
	"$ctl" put --hex "$store" "$hk" 00ff7f0a || return 1
	[ "$("$ctl" get --hex "$store" "$hk")" = "00ff7f0a" ] || return 1
	"$ctl" del "$store" "h.$k"
}
group "--hex keys and values (binary value round trip)" hex

check "missing arguments exit 2" 2 "" put "$store" "$k"
check "33-byte key exits 2" 2 "" put "$store" 012345678901234567890123456789012 v
check "unknown command exits 2" 2 "" frobnicate
check "unknown store exits 3" 3 "" get "no-such-store-$$" "$k"

# target-setup checks store attributes against the target's limits
# (uapi/scalio.h) before touching configfs: exit 2, the range named.
attr_limits() {
	for a in "nblocks 33554432" "nblocks 3" "slots 12" "batch-max 0" \
		 "batch-max 1025" "batch-timeout-us 100001" "lease-ms 9" \
		 "lease-ms 10001" "seg-cache-mb 65537" "kato-ms 2999" \
		 "kato-ms 3600001" "offload-read 2"; do
		set -- $a
		msg=$("$ctl" target-setup --store "cli$$" --"$1" "$2" 2>&1 >/dev/null)
		rc=$?
		if [ "$rc" != 2 ] || ! echo "$msg" | grep -q -- "--$1 must be"; then
			echo "# target-setup --$1 $2: exit $rc, '$msg'"
			return 1
		fi
	done
}
group "target-setup refuses attribute values outside the target's limits" attr_limits

stats() {
	js=$("$ctl" stats --json "$store") || return 1
	case $js in
	"{"*"}") ;;
	*) echo "# not a JSON object: $js"; return 1 ;;
	esac
	for f in gets puts cache_hits features nr_ssds nr_blocks nr_buckets target_rpc_gets; do
		echo "$js" | grep -q "\"$f\": [0-9][0-9]*" || {
			echo "# stats --json lacks \"$f\": $js"
			return 1
		}
	done
	"$ctl" stats "$store" | grep -q "cache_hits"
}
group "stats --json and table" stats

echo "# $((n - fails)) / $n passed"
[ "$fails" -eq 0 ]
