#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# man/test.sh: the man pages render without warnings, and they do not drift
# from the code.  TAP output; exit 1 on any failure.
#   - groff -ww -man -Tutf8 and man --warnings -l print nothing on stderr;
#   - every subcommand of `scalioctl help` has a .SS section in scalioctl.8,
#     and every --option of `scalioctl CMD --help` appears in that section;
#   - every store attribute the target module lists in its `features`
#     (target/configfs.c) and every counter of uapi/scalio.h's stats
#     structs appears in scalio.7, and every Prometheus family of
#     tools/scalioctl/prom.c, and exactly the module_param()s of
#     target/*.c and host/*.c in its MODULE PARAMETERS.
# SCALIOCTL overrides the binary (default: tools/scalioctl/scalioctl).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
man=$top/man
ctl=${SCALIOCTL:-$top/tools/scalioctl/scalioctl}
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }

# Man source with escapes of hyphens and fonts removed, for grepping.
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(aq/'"'"'/g' "$1"; }

for page in "$man"/*.[1-8]; do
	p=$(basename "$page")
	err=$(LC_ALL=C.UTF-8 groff -ww -man -Tutf8 "$page" 2>&1 >/dev/null)
	if [ -z "$err" ]; then ok "groff -ww $p"; else notok "groff -ww $p" "$err"; fi
	err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	if [ -z "$err" ]; then ok "man --warnings $p"; else notok "man --warnings $p" "$err"; fi
done

# ---- scalioctl.8 against scalioctl's own help
if [ ! -x "$ctl" ]; then
	notok "scalioctl binary" "$ctl not built (make -C tools/scalioctl)"
	echo "1..$n"
	exit 1
fi
src=$(plain "$man/scalioctl.8")
cmds=$("$ctl" help | awk '/^Commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } c && /^$/ { c = 0 }')
[ -n "$cmds" ] || notok "scalioctl help lists commands" "no command list in 'scalioctl help'"
for c in $cmds; do
	# The section: from ".SS c" to the next .SS or .SH.
	sect=$(awk -v c="$c" '$1 == ".SS" { on = ($2 == c); next } $1 == ".SH" { on = 0 } on' <<< "$src")
	if [ -z "$sect" ]; then
		notok "scalioctl.8 documents '$c'" "no '.SS $c' section in man/scalioctl.8"
		continue
	fi
	missing=
	for o in $("$ctl" "$c" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -qE -- "(^|[^a-z0-9-])$o([^a-z0-9-]|$)" <<< "$sect" || missing="$missing $o"
	done
	if [ -z "$missing" ]; then
		ok "scalioctl.8 documents '$c' and its options"
	else
		notok "scalioctl.8 documents '$c' and its options" "missing in its section:$missing"
	fi
done

# ---- scalio.7 against the module and the uapi
src=$(plain "$man/scalio.7")
feats=$(sed -n '/scalio_tgt_store_features\[\] = {/,/};/p' "$top/target/configfs.c" |
	grep -oE '"[a-z_]+"' | tr -d '"' | grep -vx ssds)
missing=
for a in $feats; do
	grep -qE "^\.B $a( |$)" <<< "$src" || missing="$missing $a"
done
if [ -n "$feats" ] && [ -z "$missing" ]; then
	ok "scalio.7 documents every store attribute in features"
else
	notok "scalio.7 documents every store attribute in features" "missing:$missing"
fi
for s in scalio_host_stats scalio_target_stats; do
	fields=$(sed -n "/^struct $s {/,/^};/p" "$top/uapi/scalio.h" |
		grep -oE '__u64[[:space:]]+[a-z_0-9]+;' | awk '{ print $2 }' | tr -d ';' |
		grep -v '^reserved')
	missing=
	for f in $fields; do
		grep -qE "^\.B (.*[ \"])?$f([ \"]|$)" <<< "$src" || missing="$missing $f"
	done
	if [ -n "$fields" ] && [ -z "$missing" ]; then
		ok "scalio.7 documents every counter of struct $s"
	else
		notok "scalio.7 documents every counter of struct $s" "missing:$missing"
	fi
done
# Every family of the Prometheus exposition (tools/scalioctl/prom.c),
# except the per-counter ones scalio.7 names by pattern.
missing=
for m in $(grep -ohE '"scalio_(host|target)_[a-z_]+"' "$top/tools/scalioctl/prom.c" | tr -d '"' | sort -u); do
	f=${m#scalio_host_}
	f=${f#scalio_target_}
	f=${f%_total}
	grep -qE "^\.BR? (.*[ \"])?$m([ \",]|$)" <<< "$src" && continue
	# scalio_{host,target}_NAME_total of a counter NAME documented above
	[ "$m" != "${m%_total}" ] && grep -qE "^\.B (.*[ \"])?$f([ \"]|$)" <<< "$src" &&
		grep -qE '^\.BI scalio_(host|target)_ name _total' <<< "$src" && continue
	missing="$missing $m"
done
if [ -z "$missing" ]; then
	ok "scalio.7 documents every Prometheus family"
else
	notok "scalio.7 documents every Prometheus family" "missing:$missing"
fi
# Module parameters: every module_param of the modules is in scalio.7's
# MODULE PARAMETERS, and every parameter named there exists.
mp=$(awk '$1 == ".SH" { on = ($2 == "MODULE") } on' <<< "$src")
params=$(cat "$top"/target/*.c "$top"/host/*.c |
	sed -n 's/^[[:space:]]*module_param\(_named\)\{0,1\}(\([a-z_0-9]*\),.*/\2/p' | sort -u)
missing=
for p in $params; do
	grep -qE "^\.BR? (.*[ \"])?$p([ \",]|$)" <<< "$mp" || missing="$missing $p"
done
stale=
# (names with an underscore: the others are also ordinary words)
# shellcheck disable=SC2013 # words, not lines
for p in $(grep -E '^\.BR? ' <<< "$mp" | grep -oE '\b[a-z]+(_[a-z0-9]+)+\b' | sort -u); do
	case $p in attr_*|scalio_*|nqn*) continue ;; esac
	grep -qx "$p" <<< "$params" || stale="$stale $p"
done
if [ -n "$params" ] && [ -z "$missing" ] && [ -z "$stale" ]; then
	ok "scalio.7 lists exactly the module parameters of the modules"
else
	notok "scalio.7 lists exactly the module parameters of the modules" "missing:$missing" "no such parameter:$stale"
fi
echo "1..$n"
[ $bad = 0 ]
