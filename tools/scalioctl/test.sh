#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/scalioctl/test.sh: save / restore / clear on fake configfs and sysfs
# trees of plain files (SCALIO_CONFIGFS, SCALIO_SYSFS), no kernel needed.
#   - save writes every rw attribute, links and enables, not read-only or
#     write-only files; restore on an empty tree rebuilds the same tree
#     (save of the copy == the original save), in dependency order;
#   - restore merges into a tree that holds other (nvmetcli's) objects,
#     leaves them as they are, is idempotent, and refuses an object of the
#     same name with other settings, an attached host and every kind of
#     malformed file, and then changes nothing;
#   - save records scalio's objects only (--all: every one); clear removes
#     scalio's objects only, keeping shared ports and hosts; host
#     save/restore --dry-run.
# TAP output.  SCALIOCTL overrides the binary.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ctl=${SCALIOCTL:-$here/scalioctl}
py=${PYTHON:-/usr/bin/python3}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
attr() { printf '%s\n' "$2" > "$1"; chmod "${3:-644}" "$1"; }
# tree DIR: what a tree holds (paths, types, contents; links by name only)
tree() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | while read -r f; do
		if [ -L "$f" ]; then echo "L $f"
		elif [ -d "$f" ]; then echo "D $f"
		else echo "F $f $(stat -c %a "$f") $(cat "$f" 2>/dev/null)"; fi
	done)
}
# empty_cfs DIR: what an empty configfs with nvmet and scalio-target looks like
empty_cfs() { mkdir -p "$1/nvmet/hosts" "$1/nvmet/subsystems" "$1/nvmet/ports" "$1/scalio/stores"; }

# ---- a populated fake target
C=$t/cfs
empty_cfs "$C"
H=$C/nvmet/hosts/nqn.2014-08.org.nvmexpress:uuid:host1
mkdir -p "$H"
attr "$H/dhchap_key" ""
attr "$H/dhchap_hash" "hmac(sha256)"
nqn0=nqn.2024-11.io.scalio:kv0-ssd0
nqn1=nqn.2024-11.io.scalio:kv0-ssd1
for i in 0 1; do
	S=$C/nvmet/subsystems/nqn.2024-11.io.scalio:kv0-ssd$i
	mkdir -p "$S/namespaces/1" "$S/allowed_hosts" "$S/passthru"
	attr "$S/attr_allow_any_host" $((1 - i))
	attr "$S/attr_serial" "serial \"$i\" é"
	attr "$S/attr_model" "Linux"
	attr "$S/namespaces/1/device_path" "/dev/ssd$i"
	attr "$S/namespaces/1/device_uuid" "0000000$i-1111-4222-8333-444444444444"
	attr "$S/namespaces/1/enable" 1
	attr "$S/namespaces/1/revalidate_size" "" 200
	attr "$S/passthru/device_path" ""
	attr "$S/passthru/enable" 0
done
ln -s "$H" "$C/nvmet/subsystems/$nqn1/allowed_hosts/$(basename "$H")"
P=$C/nvmet/ports/1
mkdir -p "$P/subsystems" "$P/referrals/ref0" "$P/ana_groups/1"
attr "$P/addr_trtype" rdma
attr "$P/addr_adrfam" ipv4
attr "$P/addr_traddr" 10.77.0.1
attr "$P/addr_trsvcid" 4420
attr "$P/ana_groups/1/ana_state" optimized
attr "$P/referrals/ref0/addr_traddr" 10.77.0.9
attr "$P/referrals/ref0/enable" 1
ln -s "$C/nvmet/subsystems/$nqn0" "$P/subsystems/$nqn0"
ln -s "$C/nvmet/subsystems/$nqn1" "$P/subsystems/$nqn1"
T=$C/scalio/stores/kv0
for i in 0 1; do
	mkdir -p "$T/ssds/$i"
	attr "$T/ssds/$i/device_path" "/dev/ssd$i"
	attr "$T/ssds/$i/nqn" "nqn.2024-11.io.scalio:kv0-ssd$i"
	attr "$T/ssds/$i/nsid" 1
done
attr "$T/attr_batch_max" 16
attr "$T/attr_nr_blocks" 1024
attr "$T/addr_traddr" 10.77.0.1
attr "$T/addr_trsvcid" 4800
attr "$T/enable" 1
attr "$T/stats" "rpc_gets 5" 444
attr "$T/features" "attr_nr_blocks,enable,statistics" 444
# statistics/ (a default group of read-only counters) and ssds/<i>/state
mkdir -p "$T/statistics"
attr "$T/statistics/rpc_gets" 5 444
attr "$T/statistics/keys" 0 444
attr "$T/ssds/0/state" ok 444
mkdir -p "$C/scalio/stores/kv1/ssds"
attr "$C/scalio/stores/kv1/enable" 0
attr "$C/scalio/stores/kv1/attr_batch_max" 64

export SCALIO_CONFIGFS=$C SCALIO_SYSFS=$t/nosys
if "$ctl" save --target "$t/a.json" 2> "$t/err"; then ok "save --target"; else notok "save --target" "$(cat "$t/err")"; fi
if [ "$(stat -c %a "$t/a.json")" = 600 ]; then ok "saved file is mode 0600"; else notok "saved file is mode 0600"; fi
"$ctl" save --target > "$t/a2.json" 2>/dev/null
if cmp -s "$t/a.json" "$t/a2.json"; then ok "save to stdout = save to FILE"; else notok "save to stdout = save to FILE"; fi
if grep -q '"attr_batch_max": "16"' "$t/a.json" && grep -q '"enable": "1"' "$t/a.json" &&
   grep -q '"serial": "serial \\"0\\" é"' "$t/a.json" &&
   grep -q "\"$(basename "$H")\"" "$t/a.json"; then
	ok "save holds attributes, enables and links"
else
	notok "save holds attributes, enables and links" "$(head -c 1500 "$t/a.json")"
fi
if ! grep -qE '"(stats|features|revalidate_size|statistics|rpc_gets|keys)"|"state": "ok"' "$t/a.json"; then
	ok "read-only and write-only files, statistics/, are not saved"
else
	notok "read-only and write-only files are not saved"
fi

# ---- restore on an empty tree gives the same tree
C2=$t/cfs2
empty_cfs "$C2"
if SCALIO_CONFIGFS=$C2 "$ctl" restore "$t/a.json" > "$t/out" 2>&1; then ok "restore on an empty tree"; else notok "restore on an empty tree" "$(cat "$t/out")"; fi
SCALIO_CONFIGFS=$C2 "$ctl" save --target "$t/b.json" 2>/dev/null
if cmp -s "$t/a.json" "$t/b.json"; then ok "save of the restored tree = original save"; else notok "save of the restored tree = original save" "$(diff "$t/a.json" "$t/b.json" | head)"; fi
# (an empty dhchap_key is no secret: nothing to restore)
tree "$C" | grep -vE '/(stats|features|revalidate_size|state) |/statistics($| |/)|/dhchap_key 644 $' > "$t/ta"
tree "$C2" > "$t/tb"
if diff -q "$t/ta" "$t/tb" > /dev/null; then ok "restored tree = original tree"; else notok "restored tree = original tree" "$(diff "$t/ta" "$t/tb" | head)"; fi
if [ "$(readlink "$C2/nvmet/ports/1/subsystems/$nqn0")" = "$C2/nvmet/subsystems/$nqn0" ]; then
	ok "links point into the restored tree"
else
	notok "links point into the restored tree" "$(readlink "$C2/nvmet/ports/1/subsystems/$nqn0")"
fi

# ---- the order of a restore (dry run on an empty tree)
C3=$t/cfs3
empty_cfs "$C3"
SCALIO_CONFIGFS=$C3 "$ctl" restore --dry-run "$t/a.json" > "$t/plan" 2>&1
line() { grep -n -m1 -F -- "$1" "$t/plan" | cut -d: -f1; }
host=$(line "mkdir $C3/nvmet/hosts/")
sub=$(line "mkdir $C3/nvmet/subsystems/$nqn0")
nsen=$(line "write $C3/nvmet/subsystems/$nqn1/namespaces/1/enable = 1")
nspath=$(line "write $C3/nvmet/subsystems/$nqn1/namespaces/1/device_path")
allow=$(line "link $C3/nvmet/subsystems/$nqn1/allowed_hosts/")
port=$(line "mkdir $C3/nvmet/ports/1")
padr=$(line "write $C3/nvmet/ports/1/addr_traddr")
plink=$(line "link $C3/nvmet/ports/1/subsystems/$nqn0")
ssd=$(line "mkdir $C3/scalio/stores/kv0/ssds/1")
sen=$(line "write $C3/scalio/stores/kv0/enable = 1")
last=$(grep -n "/stores/kv0" "$t/plan" | tail -n 1 | cut -d: -f1)
if [ -n "$host" ] && [ -n "$sen" ] && [ "$host" -lt "$sub" ] && [ "$nspath" -lt "$nsen" ] &&
   [ "$host" -lt "$allow" ] && [ "$nsen" -lt "$port" ] && [ "$padr" -lt "$plink" ] &&
   [ "$plink" -lt "$ssd" ] && [ "$ssd" -lt "$sen" ] && [ "$sen" = "$last" ] &&
   ! grep -q "kv1/enable = 1" "$t/plan"; then
	ok "restore order: hosts, subsystems + namespaces (enabled last), ports + links, stores, enable last"
else
	notok "restore order" "$(cat "$t/plan")"
fi
if [ -z "$(find "$C3" -mindepth 3)" ]; then ok "--dry-run changes nothing"; else notok "--dry-run changes nothing"; fi

# ---- refusals: nothing may change
before=$(tree "$C")
out=$("$ctl" restore "$t/a.json" 2>&1); rc=$?
plan=$("$ctl" restore --dry-run "$t/a.json" 2>&1)
if [ $rc = 0 ] && [ "$(tree "$C")" = "$before" ] && [ -z "$plan" ]; then
	ok "restore onto the tree it was saved from changes nothing (--dry-run plans nothing)"
else
	notok "restore onto the tree it was saved from changes nothing" "exit $rc: $out" "plan: $plan" \
		"$(diff <(echo "$before") <(tree "$C") | head)"
fi
bad_file() {	# bad_file WHAT EXPECTED-MESSAGE TEXT
	printf '%s' "$3" > "$t/bad.json"
	local out rc
	out=$(SCALIO_CONFIGFS=$C3 "$ctl" restore "$t/bad.json" 2>&1); rc=$?
	if [ $rc = 3 ] && grep -qF -- "$2" <<< "$out" && [ -z "$(find "$C3" -mindepth 3)" ] &&
	   [ ! -e "$t/escaped" ]; then
		ok "restore refuses $1"
	else
		notok "restore refuses $1" "exit $rc: $out"
	fi
}
bad_file "a truncated file" "not valid JSON" "$(head -c 200 "$t/a.json")"
bad_file "another version" '"scalio_config" must be 1' '{"scalio_config": 2, "target": {}}'
bad_file "a file without configuration" "no target or host configuration" '{"scalio_config": 1}'
bad_file "a name with '/'" 'no valid "name"' '{"scalio_config": 1, "target": {"nvmet": {"hosts": [{"name": "../../../escaped"}]}}}'
bad_file "the name '..'" 'no valid "name"' '{"scalio_config": 1, "target": {"nvmet": {"hosts": [{"name": ".."}]}}}'
bad_file "an attribute path" "attributes must be" '{"scalio_config": 1, "target": {"scalio": {"stores": [{"name": "a", "attrs": {"../../escaped": "1"}}]}}}'
bad_file "enable among attributes" "attributes must be" '{"scalio_config": 1, "target": {"scalio": {"stores": [{"name": "a", "attrs": {"enable": "1"}}]}}}'
bad_file "a bad enable" 'must be "0" or "1"' '{"scalio_config": 1, "target": {"scalio": {"stores": [{"name": "a", "enable": "yes"}]}}}'
bad_file "a number as attribute value" "attributes must be" '{"scalio_config": 1, "target": {"scalio": {"stores": [{"name": "a", "attrs": {"x": 1}}]}}}'
bad_file "duplicate store names" "duplicate name" '{"scalio_config": 1, "target": {"scalio": {"stores": [{"name": "a"}, {"name": "a"}]}}}'
bad_file "an unknown member" "unknown member" '{"scalio_config": 1, "target": {"scalio": {"stores": [{"name": "a", "bogus": []}]}}}'
bad_file "a link name with '/'" "links must be names" '{"scalio_config": 1, "target": {"nvmet": {"ports": [{"name": "1", "subsystems": ["a/b"]}]}}}'
bad_file "a late error (nothing applied first)" 'no valid "name"' '{"scalio_config": 1, "target": {"nvmet": {"hosts": [{"name": "h"}]}, "scalio": {"stores": [{"name": "b/c"}]}}}'
bad_file "duplicate keys" "duplicate member" '{"scalio_config": 1, "scalio_config": 1}'
bad_file "invalid UTF-8" "invalid UTF-8" "$(printf '{"scalio_config": 1, "target": {"nvmet": {"hosts": [{"name": "\xff"}]}}}')"
bad_file "a host name instead of an address" 'no valid "addr"' '{"scalio_config": 1, "host": {"stores": [{"name": "kv0", "addr": "host.example"}]}}'
bad_file "a host key_file that is not a path" "key_file must be an absolute path" '{"scalio_config": 1, "host": {"stores": [{"name": "kv0", "addr": "10.0.0.1", "key_file": "c2VjcmV0"}]}}'
bad_file "a bad host id" "hostid must be a UUID" '{"scalio_config": 1, "host": {"stores": [{"name": "kv0", "addr": "10.0.0.1", "hostid": "x"}]}}'
bad_file "a port out of range" "ports must be 1..65535" '{"scalio_config": 1, "host": {"stores": [{"name": "kv0", "addr": "10.0.0.1", "port": 70000}]}}'
# JSON that json-c accepts (or mends) but RFC 8259 does not
H0='{"scalio_config": 1, "target": {"nvmet": {"hosts": [{"name": '
bad_file "a trailing comma" "not valid JSON" '{"scalio_config": 1, "target": {},}'
bad_file "a comment" "not valid JSON" '{"scalio_config": 1, /* c */ "target": {}}'
bad_file "text after the document" "not valid JSON" '{"scalio_config": 1, "target": {}} x'
bad_file "a duplicate key spelled with an escape" "duplicate member" '{"scalio_config": 1, "scalio_\u0063onfig": 1, "target": {}}'
bad_file "a single-quoted string" "single-quoted" "{'scalio_config': 1, 'target': {}}"
bad_file "NaN" "not a JSON literal" '{"scalio_config": 1, "target": {}, "x": NaN}'
bad_file "a number ending in '.'" "ends in '.'" '{"scalio_config": 1., "target": {}}'
bad_file "a fraction as the version" '"scalio_config" must be 1' '{"scalio_config": 1.0, "target": {}}'
bad_file '\u0000 in a name' '\u0000' "$H0"'"a\u0000b"}]}}}'
bad_file "a raw newline in a string" "control character" "$H0"'"a
b"}]}}}'
bad_file "an unpaired surrogate escape" "unpaired surrogate" "$H0"'"a\ud800"}]}}}'
bad_file "a lone low surrogate escape" "unpaired surrogate" "$H0"'"a\udc00b"}]}}}'
bad_file "overlong UTF-8" "invalid UTF-8" "$(printf '%s"\xc0\xaf"}]}}}' "$H0")"
bad_file "UTF-8 of a surrogate" "invalid UTF-8" "$(printf '%s"\xed\xa0\x80"}]}}}' "$H0")"
bad_file "nesting deeper than 32" "not valid JSON" "{\"scalio_config\": 1, \"target\": {}, \"x\": $(printf '[%.0s' $(seq 33))$(printf ']%.0s' $(seq 33))}"
bad_file "(the error's position)" "line 2, column 13" '{"scalio_config": 1,
  "target": x}'
printf '%s"\\ud83d\\ude00 \xc3\xa9"}]}}}' "$H0" > "$t/ok.json"
out=$(SCALIO_CONFIGFS=$C3 "$ctl" restore --dry-run "$t/ok.json" 2>&1)
if grep -q "hosts/😀 é" <<< "$out"; then ok "restore takes a surrogate pair and UTF-8"; else notok "restore takes a surrogate pair and UTF-8" "$out"; fi
C8=$t/cfs8
empty_cfs "$C8"
mkdir -p "$C8/scalio/stores/kv8"
printf 'x\377y\n' > "$C8/scalio/stores/kv8/attr_bad"
out=$(SCALIO_CONFIGFS=$C8 "$ctl" save --target "$t/u.json" 2>&1); rc=$?
if [ $rc = 3 ] && grep -q "not valid UTF-8: not saved" <<< "$out" && [ ! -e "$t/u.json" ] && ! ls "$t"/u.json.tmp* > /dev/null 2>&1; then
	ok "save refuses a value that is not UTF-8 (no file written)"
else
	notok "save refuses a value that is not UTF-8" "exit $rc: $out" "$(ls "$t")"
fi
out=$(SCALIO_CONFIGFS=$C3 "$ctl" restore "$t/missing.json" 2>&1); rc=$?
if [ $rc = 3 ] && grep -q "No such file" <<< "$out"; then ok "restore of a missing file fails"; else notok "restore of a missing file fails" "$out"; fi
out=$("$ctl" restore 2>&1); rc=$?
if [ $rc = 2 ]; then ok "restore without FILE is a usage error"; else notok "restore without FILE is a usage error" "exit $rc"; fi

# ---- clear
if SCALIO_CONFIGFS=$C2 "$ctl" clear --target > "$t/out" 2>&1 &&
   [ -z "$(find "$C2" -mindepth 3)" ]; then
	ok "clear --target empties the tree"
else
	notok "clear --target empties the tree" "$(cat "$t/out")" "$(find "$C2" -mindepth 3 | head)"
fi
if SCALIO_CONFIGFS=$C2 "$ctl" restore "$t/a.json" > /dev/null 2>&1; then ok "restore after clear"; else notok "restore after clear"; fi

# ---- beside nvmetcli: foreign hosts, subsystems and ports stay as they are
# Foreign objects: a host, two subsystems (one admits scalio's host1 too),
# port 1 shared with scalio (the same address as scalio's port 1 and its
# referral; it serves a foreign subsystem), port 2 foreign only.
CF=$t/cfsf
empty_cfs "$CF"
FN=$CF/nvmet
fh=nqn.2014-08.org.example:foreign-host
fs=nqn.2014-08.org.example:foreign-disk
fs2=nqn.2014-08.org.example:foreign-tcp
h1=$(basename "$H")
for h in "$fh" "$h1"; do
	mkdir -p "$FN/hosts/$h"
	attr "$FN/hosts/$h/dhchap_key" ""
	attr "$FN/hosts/$h/dhchap_hash" "hmac(sha256)"
done
for s in "$fs" "$fs2"; do
	S=$FN/subsystems/$s
	mkdir -p "$S/namespaces/1" "$S/allowed_hosts" "$S/passthru"
	attr "$S/attr_allow_any_host" 0
	attr "$S/attr_serial" "foreign"
	attr "$S/namespaces/1/device_path" "/dev/foreign-${s##*-}"
	attr "$S/namespaces/1/enable" 1
done
ln -s "$FN/hosts/$fh" "$FN/subsystems/$fs/allowed_hosts/$fh"
ln -s "$FN/hosts/$h1" "$FN/subsystems/$fs/allowed_hosts/$h1"
cp -a "$C/nvmet/ports/1" "$FN/ports/1"
rm "$FN/ports/1/subsystems/"*
ln -s "$FN/subsystems/$fs" "$FN/ports/1/subsystems/$fs"
mkdir -p "$FN/ports/2/subsystems" "$FN/ports/2/referrals" "$FN/ports/2/ana_groups/1"
attr "$FN/ports/2/addr_trtype" tcp
attr "$FN/ports/2/addr_adrfam" ipv4
attr "$FN/ports/2/addr_traddr" 10.77.0.2
attr "$FN/ports/2/addr_trsvcid" 4420
attr "$FN/ports/2/ana_groups/1/ana_state" optimized
ln -s "$FN/subsystems/$fs2" "$FN/ports/2/subsystems/$fs2"
foreign=$(tree "$CF")
cfs() { SCALIO_CONFIGFS=$CF "$ctl" "$@"; }
# lines of $1 (a tree) missing from tree $2
lost() { comm -23 <(LC_ALL=C sort <<< "$1") <(LC_ALL=C sort <<< "$2"); }
out=$(cfs restore "$t/a.json" 2>&1); rc=$?
after=$(tree "$CF")
if [ $rc = 0 ] && [ -z "$(lost "$foreign" "$after")" ] && [ "$(cat "$CF/scalio/stores/kv0/enable")" = 1 ] &&
   [ -L "$FN/ports/1/subsystems/$nqn0" ] && [ -L "$FN/ports/1/subsystems/$nqn1" ] &&
   [ -L "$FN/subsystems/$nqn1/allowed_hosts/$h1" ] && [ ! -e "$FN/ports/2/subsystems/$nqn0" ]; then
	ok "restore merges into a tree with foreign hosts, subsystems and ports, which stay as they were"
else
	notok "restore merges into a tree with foreign objects" "exit $rc: $out" "lost: $(lost "$foreign" "$after" | head)"
fi
cfs save --target "$t/f.json" 2> "$t/err"
if cmp -s "$t/a.json" "$t/f.json"; then
	ok "save beside foreign objects records scalio's only (a shared port with scalio's links only)"
else
	notok "save beside foreign objects records scalio's only" "$(cat "$t/err")" "$(diff "$t/a.json" "$t/f.json" | head -20)"
fi
cfs save --all --target "$t/fa.json" 2> "$t/err"
if "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = {x["nqn"] for x in d["subsystems"]}; p = {x["portid"]: x for x in d["ports"]}
sys.exit(0 if s >= {sys.argv[2], sys.argv[3]} and len(p) == 2 and len(p[1]["subsystems"]) == 3 and
	 len(d["hosts"]) == 2 else 1)' "$t/fa.json" "$fs" "$fs2"; then
	ok "save --all records every nvmet object"
else
	notok "save --all records every nvmet object" "$(cat "$t/err")" "$(head -c 800 "$t/fa.json")"
fi
out=$(cfs restore "$t/a.json" 2>&1); rc=$?
plan=$(cfs restore --dry-run "$t/a.json" 2>&1)
if [ $rc = 0 ] && [ "$(tree "$CF")" = "$after" ] && [ -z "$plan" ]; then
	ok "restore twice: the second changes nothing (--dry-run plans nothing)"
else
	notok "restore twice: the second changes nothing" "exit $rc: $out" "plan: $plan" "$(diff <(echo "$after") <(tree "$CF") | head)"
fi
out=$(cfs clear --target 2>&1); rc=$?
if [ $rc = 0 ] && [ "$(tree "$CF")" = "$foreign" ] && grep -q "port 1 kept: it serves 1 other" <<< "$out" &&
   grep -q "host $h1 kept: subsystem $fs admits it" <<< "$out"; then
	ok "clear --target removes scalio's objects only: shared port 1 and host1 stay, with the foreign links"
else
	notok "clear --target removes scalio's objects only" "exit $rc: $out" "$(diff <(echo "$foreign") <(tree "$CF") | head -20)"
fi
# conflict DESCRIPTION MESSAGE: restore of a.json must fail with MESSAGE, changing nothing
# (its output stays in $cout)
conflict() {
	local before rc
	before=$(tree "$CF")
	cout=$(cfs restore "$t/a.json" 2>&1); rc=$?
	if [ $rc = 3 ] && grep -qF -- "$2" <<< "$cout" && [ "$(tree "$CF")" = "$before" ]; then
		ok "restore refuses $1, changing nothing"
	else
		notok "restore refuses $1, changing nothing" "exit $rc: $cout" "$(diff <(echo "$before") <(tree "$CF") | head)"
	fi
}
attr "$FN/ports/1/addr_traddr" 10.99.0.1
conflict "a port of the same id at another address" \
	"conflict: $FN/ports/1 exists with other settings than the file's (addr_traddr is '10.99.0.1', the file has '10.77.0.1')"
attr "$FN/ports/1/addr_traddr" 10.77.0.1
attr "$FN/hosts/$h1/dhchap_key" "DHHC-1:00:Zm9yZWlnbi1mb3JlaWduLWZvcmVpZ24tMTIzNDU2Nzg=:"
conflict "a host that has a secret the file does not give it" "$FN/hosts/$h1 exists with other settings than the file's (it has a DH-HMAC-CHAP dhchap_key, the file none)"
if grep -q "dhchap_key" <<< "$cout" && ! grep -q Zm9yZWln <<< "$cout"; then
	ok "the conflict message never shows the secret"
else
	notok "the conflict message never shows the secret" "$cout"
fi
attr "$FN/hosts/$h1/dhchap_key" ""
cp -a "$C/scalio/stores/kv0" "$CF/scalio/stores/kv0"
attr "$CF/scalio/stores/kv0/attr_batch_max" 32
conflict "a store of the same name with other attributes" "$CF/scalio/stores/kv0 exists with other settings than the file's (attr_batch_max is '32', the file has '16')"
rm -r "$CF/scalio/stores/kv0"
cp -a "$C/scalio/stores/kv0" "$CF/scalio/stores/kv0"
rm -r "$CF/scalio/stores/kv0/ssds/1"
conflict "a store of the same name with other SSDs" "$CF/scalio/stores/kv0 exists with other settings than the file's (the file has ssds/1, it not)"
rm -r "$CF/scalio/stores/kv0"
cp -a "$C/scalio/stores/kv1" "$CF/scalio/stores/kv1"
attr "$CF/scalio/stores/kv1/enable" 1
conflict "to disable an enabled store" "$CF/scalio/stores/kv1 exists with other settings than the file's (it is enabled, the file has it disabled)"
rm -r "$CF/scalio/stores/kv1"
if [ "$(tree "$CF")" = "$foreign" ]; then ok "(the foreign tree is back as it was)"; else notok "(the foreign tree is back as it was)"; fi
bad_file "a link to a subsystem neither in the file nor in configfs" "links to nqn.missing, which neither the file nor" '{"scalio_config": 1, "target": {"nvmet": {"ports": [{"name": "1", "subsystems": ["nqn.missing"]}]}}}'
# A subsystem under scalio's NQN prefix that no store names (a restore that
# stopped before its stores) is scalio's: clear removes it, on its own port.
CO=$t/cfso
empty_cfs "$CO"
mkdir -p "$CO/nvmet/subsystems/$nqn0/namespaces" "$CO/nvmet/ports/3/subsystems"
ln -s "$CO/nvmet/subsystems/$nqn0" "$CO/nvmet/ports/3/subsystems/$nqn0"
if SCALIO_CONFIGFS=$CO "$ctl" clear --target > "$t/out" 2>&1 && [ -z "$(find "$CO" -mindepth 3)" ]; then
	ok "clear --target removes a subsystem of scalio's NQN prefix that no store names, and its port"
else
	notok "clear --target removes a subsystem of scalio's NQN prefix" "$(cat "$t/out")" "$(find "$CO" -mindepth 3)"
fi
# A subsystem of another name is scalio's when a store names it.
cn=nqn.2014-08.org.example:named-by-kv3
mkdir -p "$CO/nvmet/subsystems/$cn/namespaces" "$CO/nvmet/subsystems/$fs/namespaces" "$CO/scalio/stores/kv3/ssds/0"
attr "$CO/scalio/stores/kv3/ssds/0/nqn" "$cn"
out=$(SCALIO_CONFIGFS=$CO "$ctl" save --target 2>&1)
if SCALIO_CONFIGFS=$CO "$ctl" clear --target > "$t/out" 2>&1 && grep -q "\"$cn\"" <<< "$out" && ! grep -q "$fs" <<< "$out" &&
   [ "$(cd "$CO" && find . -mindepth 3)" = "./nvmet/subsystems/$fs
./nvmet/subsystems/$fs/namespaces" ]; then
	ok "a subsystem a store names is scalio's whatever its NQN (saved, cleared), another is not"
else
	notok "a subsystem a store names is scalio's" "$(cat "$t/out")" "$out" "$(find "$CO" -mindepth 3)"
fi

# ---- admission secrets and one-shot attributes of a store
nA=nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-4000-8000-000000000001
nB=nqn.2014-08.org.nvmexpress:uuid:bbbbbbbb-0000-4000-8000-000000000002
nC=nqn.2014-08.org.nvmexpress:uuid:cccccccc-0000-4000-8000-000000000003
secret=c2VjcmV0LXNlY3JldC1zZWNyZXQK0123
C4=$t/cfs4
empty_cfs "$C4"
K=$C4/scalio/stores/kv5
mkdir -p "$K/ssds" "$K/allowed_hosts/$nA" "$K/allowed_hosts/$nB" "$K/allowed_hosts/$nC"
attr "$K/attr_batch_max" 8
attr "$K/attr_format_on_enable" 1
attr "$K/attr_force_recover" 1
attr "$K/enable" 1
attr "$K/allowed_hosts/$nA/dhchap_key" "(set)"
attr "$K/allowed_hosts/$nB/dhchap_key" "(set)"
attr "$K/allowed_hosts/$nC/dhchap_key" ""
printf '%s\n' "$secret" > "$t/keyA"
printf '%s\n' "$secret-B" > "$t/keyB"
printf '# NQN KEYFILE\n%s %s\n%s\n' "$nA" "$t/keyA" "$nC" > "$t/hosts"
export SCALIO_HOSTS_FILE=$t/hosts
SCALIO_CONFIGFS=$C4 "$ctl" save --target "$t/k.json" 2> "$t/err"; rc=$?
if [ $rc = 0 ] && grep -q "\"dhchap_key_file\": \"$t/keyA\"" "$t/k.json" &&
   grep -q '"dhchap_key_file": ""' "$t/k.json" && grep -q "$nB.*names no key file" "$t/err" &&
   ! grep -qE '\(set\)|"dhchap_key"|'"$secret" "$t/k.json"; then
	ok "save records key file paths, never '(set)' or a secret; warns of an unknown one"
else
	notok "save records key file paths" "exit $rc: $(cat "$t/err")" "$(cat "$t/k.json")"
fi
if ! grep -qE 'attr_format_on_enable|attr_force_recover' "$t/k.json" && grep -q '"attr_batch_max": "8"' "$t/k.json"; then
	ok "save leaves out attr_format_on_enable and attr_force_recover"
else
	notok "save leaves out attr_format_on_enable and attr_force_recover" "$(cat "$t/k.json")"
fi
C5=$t/cfs5
empty_cfs "$C5"
out=$(SCALIO_CONFIGFS=$C5 "$ctl" restore "$t/k.json" 2>&1); rc=$?
if [ $rc = 3 ] && grep -q "$nB had a secret that save could not record" <<< "$out" &&
   [ ! -e "$C5/scalio/stores/kv5/enable" ]; then
	ok "restore refuses a host whose secret is unknown (store not enabled)"
else
	notok "restore refuses a host whose secret is unknown" "exit $rc: $out"
fi
printf '%s %s\n' "$nB" "$t/keyB" >> "$t/hosts"
C6=$t/cfs6
empty_cfs "$C6"
out=$(SCALIO_CONFIGFS=$C6 "$ctl" restore -v "$t/k.json" 2>&1); rc=$?
R=$C6/scalio/stores/kv5
if [ $rc = 0 ] && [ "$(cat "$R/allowed_hosts/$nA/dhchap_key")" = "$secret" ] &&
   [ "$(cat "$R/allowed_hosts/$nB/dhchap_key")" = "$secret-B" ] &&
   [ ! -e "$R/allowed_hosts/$nC/dhchap_key" ] && [ -d "$R/allowed_hosts/$nC" ] &&
   [ "$(cat "$R/enable")" = 1 ] && ! grep -q "$secret" <<< "$out"; then
	ok "restore gives each allowed host its secret from its key file (never printed)"
else
	notok "restore gives each allowed host its secret" "exit $rc: $out" "$(tree "$C6")"
fi
before=$(tree "$C6")
out=$(SCALIO_CONFIGFS=$C6 "$ctl" restore "$t/k.json" 2>&1); rc=$?
plan=$(SCALIO_CONFIGFS=$C6 "$ctl" restore --dry-run "$t/k.json" 2>&1)
if [ $rc = 0 ] && [ "$(tree "$C6")" = "$before" ] && [ -z "$plan" ]; then
	ok "restore twice with allowed hosts' secrets: the second writes nothing"
else
	notok "restore twice with allowed hosts' secrets" "exit $rc: $out" "plan: $plan"
fi
attr "$R/allowed_hosts/$nA/dhchap_key" "$secret-other"
before=$(tree "$C6")
out=$(SCALIO_CONFIGFS=$C6 "$ctl" restore "$t/k.json" 2>&1); rc=$?
if [ $rc = 3 ] && grep -qF "$R/allowed_hosts/$nA exists with other settings than the file's (it has another DH-HMAC-CHAP dhchap_key)" <<< "$out" &&
   [ "$(tree "$C6")" = "$before" ] && ! grep -q "$secret" <<< "$out"; then
	ok "restore refuses an allowed host that holds another secret, changing nothing (secrets never printed)"
else
	notok "restore refuses an allowed host that holds another secret" "exit $rc: $out"
fi
attr "$R/allowed_hosts/$nA/dhchap_key" "$secret"
if [ ! -e "$R/attr_format_on_enable" ] && [ ! -e "$R/attr_force_recover" ]; then
	ok "restore enables without format_on_enable / force_recover"
else
	notok "restore enables without format_on_enable / force_recover" "$(tree "$C6")"
fi
printf '{"scalio_config": 1, "target": {"scalio": {"stores": [{"name": "kv6", "attrs": {"attr_format_on_enable": "1", "attr_force_recover": "1"}, "enable": "1"}]}}}' > "$t/fmt.json"
C7=$t/cfs7
empty_cfs "$C7"
out=$(SCALIO_CONFIGFS=$C7 "$ctl" restore "$t/fmt.json" 2>&1); rc=$?
if [ $rc = 0 ] && [ ! -e "$C7/scalio/stores/kv6/attr_format_on_enable" ] &&
   [ ! -e "$C7/scalio/stores/kv6/attr_force_recover" ] &&
   [ "$(grep -c "restore never formats" <<< "$out")" = 2 ]; then
	ok "restore of a file asking for format_on_enable / force_recover recovers instead, with a warning"
else
	notok "restore of a file asking for format_on_enable" "exit $rc: $out" "$(tree "$C7")"
fi
bad_file "a relative key file" "absolute path" '{"scalio_config": 1, "target": {"scalio": {"stores": [{"name": "a", "allowed_hosts": [{"name": "h", "dhchap_key_file": "k"}]}]}}}'
bad_file "a secret among the attributes" "attributes must be" '{"scalio_config": 1, "target": {"scalio": {"stores": [{"name": "a", "allowed_hosts": [{"name": "h", "attrs": {"dhchap_key": "s3cr3t-s3cr3t-s3cr3t"}}]}]}}}'
unset SCALIO_HOSTS_FILE

out=$("$ctl" clear 2>&1); rc=$?
if [ $rc = 2 ]; then ok "clear without --target/--host is a usage error"; else notok "clear without --target/--host is a usage error" "exit $rc"; fi

# ---- host side: sysfs of the host module and of nvme
Y=$t/sys
mkdir -p "$Y/module/scalio_host" "$Y/class/misc/scalio-ctl" "$Y/class/misc/scalio-kv0" \
	"$Y/class/misc/scalio-kv2"
attr "$Y/class/misc/scalio-kv0/store" kv0
attr "$Y/class/misc/scalio-kv0/traddr" 10.77.0.1
attr "$Y/class/misc/scalio-kv0/trsvcid" 4801
attr "$Y/class/misc/scalio-kv0/timeout_ms" 7000
attr "$Y/class/misc/scalio-kv0/hostnqn" "$nA"
attr "$Y/class/misc/scalio-kv0/hostid" aaaaaaaa-0000-4000-8000-000000000001
mkdir -p "$t/run"
# attach's record: the nvme port (no longer read from /sys/class/nvme:
# libnvme does that, on the real /sys) and the key file
printf 'nvme_port=4421\nkey_file=%s\n' "$t/keyA" > "$t/run/kv0.attach"
export SCALIO_RUNDIR=$t/run
attr "$Y/class/misc/scalio-kv2/store" kv2
attr "$Y/class/misc/scalio-kv2/traddr" fd00::1
attr "$Y/class/misc/scalio-kv2/trsvcid" 4800
export SCALIO_CONFIGFS=$t/nocfs
if SCALIO_SYSFS=$Y "$ctl" save "$t/h.json" 2> "$t/err"; then ok "save on a host"; else notok "save on a host" "$(cat "$t/err")"; fi
if ! grep -q '"target"' "$t/h.json" && grep -q '"nvme_port": 4421' "$t/h.json" &&
   grep -q '"timeout_ms": 7000' "$t/h.json" && grep -q '"addr": "fd00::1"' "$t/h.json" &&
   [ "$(grep -c nvme_port "$t/h.json")" = 1 ]; then
	ok "host save: stores with address, ports and timeout"
else
	notok "host save: stores with address, ports and timeout" "$(cat "$t/h.json")"
fi
if grep -q "\"hostnqn\": \"$nA\"" "$t/h.json" && grep -q '"hostid": "aaaaaaaa-0000-4000-8000-000000000001"' "$t/h.json" &&
   grep -q "\"key_file\": \"$t/keyA\"" "$t/h.json" && ! grep -q "$secret" "$t/h.json" &&
   [ "$(grep -c hostnqn "$t/h.json")" = 1 ]; then
	ok "host save: host NQN, host id and key file path (never the secret)"
else
	notok "host save: host NQN, host id and key file path" "$(cat "$t/h.json")"
fi
# A record of an older scalioctl: key_file alone, on one line.
cp "$t/run/kv0.attach" "$t/kv0.attach.new"
printf 'key_file=%s\n' "$t/keyA" > "$t/run/kv0.attach"
if SCALIO_SYSFS=$Y "$ctl" save "$t/h-old.json" 2> "$t/err" &&
   grep -q "\"key_file\": \"$t/keyA\"" "$t/h-old.json" && ! grep -q nvme_port "$t/h-old.json"; then
	ok "host save reads an older attach record (key file, no nvme port)"
else
	notok "host save reads an older attach record" "$(cat "$t/err" "$t/h-old.json")"
fi
mv "$t/kv0.attach.new" "$t/run/kv0.attach"
mkdir -p "$t/sys-empty/class/misc/scalio-ctl"
out=$(SCALIO_SYSFS=$t/sys-empty "$ctl" restore --dry-run --host "$t/h.json" 2>&1)
if [ "$out" = "scalioctl attach kv0 --addr 10.77.0.1 --port 4801 --nvme-port 4421 --timeout-ms 7000 --hostnqn $nA --hostid aaaaaaaa-0000-4000-8000-000000000001 --key-file $t/keyA
scalioctl attach kv2 --addr fd00::1 --port 4800" ]; then
	ok "host restore attaches each store with its parameters"
else
	notok "host restore attaches each store with its parameters" "$out"
fi
out=$(SCALIO_SYSFS=$Y "$ctl" restore --host "$t/h.json" 2>&1); rc=$?
if [ $rc = 3 ] && grep -q "store kv[02] is attached" <<< "$out"; then ok "host restore refuses while a store is attached"; else notok "host restore refuses while a store is attached" "exit $rc: $out"; fi
out=$(SCALIO_SYSFS=$Y "$ctl" clear --host --dry-run 2>&1)
if [ "$out" = "scalioctl detach kv0
scalioctl detach kv2" ]; then ok "clear --host detaches every store"; else notok "clear --host detaches every store" "$out"; fi
out=$(SCALIO_SYSFS=$t/sys-empty "$ctl" restore --target "$t/h.json" 2>&1); rc=$?
if [ $rc = 3 ] && grep -q "no target configuration" <<< "$out"; then ok "restore --target of a host file fails"; else notok "restore --target of a host file fails" "exit $rc: $out"; fi

# ---- stats -o prometheus: checked with the Prometheus client's parser
chk() { "$py" "$here/check_prom.py" "$@"; }
if out=$("$here/test_prom" > "$t/p.prom" && chk "$t/p.prom" \
	'scalio_host_gets_total{store=h0}=100' 'scalio_host_gets_total{store=h1}=9007199254740992' \
	'scalio_host_puts_total{store=h1}=201' 'scalio_host_ssd_read_timeouts_total{store=h0}=2000' \
	'scalio_host_reconnect_waits_total{store=h1}=2101' \
	'scalio_host_reconnect_wait_seconds_total{store=h0}=2.2e-06' \
	'scalio_host_fast_io_fails_total{store=h0}=2300' 'scalio_host_lost_get_retries_total{store=h1}=2401' \
	'scalio_host_get_val_reads_total{store=h0}=2500' 'scalio_host_get_val_stale_total{store=h1}=2601' \
	'scalio_host_ssds{store=h1}=3' \
	'scalio_target_rpc_gets_total{store=kv"0}=1' 'scalio_target_ssd_written_bytes_total{store=kv"0}=7' \
	'scalio_target_cpu_seconds_total{store=kv"0,kind=commit}=2.5' \
	'scalio_target_cpu_seconds_total{store=kv"0,kind=rpc}=1e-9' \
	'scalio_target_log_used_bytes{store=kv"0}=12288' 'scalio_target_log_size_bytes{store=kv"0}=4194304' \
	'scalio_target_keys{store=kv"0}=17' 'scalio_target_seg_cache_evictions_total{store=kv"0}=20' \
	'scalio_target_commit_write_seconds_total{store=kv"0}=1.5' \
	'scalio_target_commit_wait_seconds_total{store=kv"0}=3e-09' \
	'scalio_target_live_bytes{store=kv"0}=40960' 'scalio_target_index_bytes{store=kv"0}=69632' \
	'scalio_target_ssd_state{store=kv"0,ssd=1,state=failed}=1' 'scalio_target_ssd_state{store=kv"0,ssd=1,state=ok}=0' \
	'scalio_target_ssd_state{store=kv"0,ssd=2,state=down}=1' \
	'scalio_target_ssd_state{store=kv"0,ssd=3,state=ok}=absent' \
	"scalio_target_ssd_info{store=kv\"0,ssd=0,device_path=/dev/disk/by-id/a\"b\\c
d,nqn=$nqn0}=1" 2>&1); then
	ok "prometheus: host and target counters, units, SSD states, escaped labels parse"
else
	notok "prometheus: host and target counters, units, SSD states, escaped labels parse" "$out"
fi
# The checks can fail: the parser on a broken label, a family twice.
sed 's/a\\"b/a"b/' "$t/p.prom" > "$t/bad.prom"
grep -m1 -A2 '^# HELP scalio_host_gets_total' "$t/p.prom" >> "$t/p2.prom"
cat "$t/p.prom" "$t/p2.prom" > "$t/dup.prom"
if ! chk "$t/bad.prom" 2>/dev/null && ! chk "$t/dup.prom" 2>/dev/null; then
	ok "prometheus: the checker refuses an unescaped label and a family twice"
else
	notok "prometheus: the checker refuses an unescaped label and a family twice"
fi
attr "$C/scalio/stores/kv1/stats" "$(printf 'rpc_gets 3\nkeys 0')" 444
tgt() { SCALIO_CONFIGFS=$C SCALIO_SYSFS=$t/nosys "$ctl" "$@"; }
if out=$(tgt stats -o prometheus > "$t/c.prom" 2>&1 && chk "$t/c.prom" \
	'scalio_target_rpc_gets_total{store=kv0}=5' 'scalio_target_rpc_gets_total{store=kv1}=3' \
	'scalio_target_keys{store=kv1}=0' \
	'scalio_target_store_enabled{store=kv0}=1' 'scalio_target_store_enabled{store=kv1}=0' \
	"scalio_target_ssd_info{store=kv0,ssd=1,device_path=/dev/ssd1,nqn=$nqn1}=1" 2>&1) &&
   ! grep -q scalio_host_ "$t/c.prom"; then
	ok "stats -o prometheus on a target: every store from configfs, no host families"
else
	notok "stats -o prometheus on a target" "$out" "$(head -c 1500 "$t/c.prom")"
fi
if out=$(tgt stats -o prometheus kv1 2>&1 > "$t/c1.prom" && chk "$t/c1.prom" \
	'scalio_target_rpc_gets_total{store=kv1}=3' 'scalio_target_rpc_gets_total{store=kv0}=absent' 2>&1); then
	ok "stats -o prometheus NAME: that store only"
else
	notok "stats -o prometheus NAME: that store only" "$out"
fi
out=$(tgt stats -o prometheus kv9 2>&1); rc=$?
if [ $rc = 3 ] && grep -q "neither configured nor attached" <<< "$out"; then ok "stats -o prometheus of an unknown store fails"; else notok "stats -o prometheus of an unknown store fails" "exit $rc: $out"; fi
out=$(SCALIO_CONFIGFS=$C SCALIO_SYSFS=$Y "$ctl" stats -o prometheus 2>&1); rc=$?
if [ $rc = 3 ] && grep -q "/dev/scalio/kv0" <<< "$out"; then ok "stats -o prometheus fails when an attached store cannot be read"; else notok "stats -o prometheus fails when an attached store cannot be read" "exit $rc: $out"; fi
mkdir -p "$t/textfile"
if tgt stats --textfile "$t/textfile" 2> "$t/err" && cmp -s "$t/textfile/scalio.prom" "$t/c.prom" &&
   [ "$(stat -c %a "$t/textfile/scalio.prom")" = 644 ] && [ "$(ls -A "$t/textfile")" = scalio.prom ]; then
	ok "stats --textfile DIR writes DIR/scalio.prom (0644, nothing else)"
else
	notok "stats --textfile DIR writes DIR/scalio.prom" "$(cat "$t/err")" "$(ls -la "$t/textfile")"
fi
mv "$C/scalio/stores/kv1/stats" "$t/kv1stats"
mkdir "$C/scalio/stores/kv1/stats"
out=$(tgt stats --textfile "$t/textfile" 2>&1); rc=$?
if [ $rc = 3 ] && cmp -s "$t/textfile/scalio.prom" "$t/c.prom" && [ "$(ls -A "$t/textfile")" = scalio.prom ]; then
	ok "stats --textfile keeps the old file when a store's stats cannot be read"
else
	notok "stats --textfile keeps the old file when a store's stats cannot be read" "exit $rc: $out" "$(ls -A "$t/textfile")"
fi
rmdir "$C/scalio/stores/kv1/stats"
mv "$t/kv1stats" "$C/scalio/stores/kv1/stats"
out=$(tgt stats -o yaml kv0 2>&1); rc=$?
out2=$(tgt stats --json --textfile "$t/textfile" 2>&1); rc2=$?
if [ $rc = 2 ] && [ $rc2 = 2 ]; then ok "stats: unknown -o format and --textfile with --json are usage errors"; else notok "stats usage errors" "exit $rc: $out" "exit $rc2: $out2"; fi

# ---- list, --version
attr "$T/stats" "$(printf 'rpc_gets 5\nkeys 7\nssd0 ok\nssd1 failed')" 444
jq_py() { "$py" -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$2"; }
out=$(SCALIO_CONFIGFS=$C SCALIO_SYSFS=$t/nosys "$ctl" list -o json 2>&1 > "$t/l.json"); rc=$?
if [ $rc = 0 ] && jq_py "[s['name'] for s in d['target']['stores']] == ['kv0', 'kv1'] and
	d['target']['stores'][0]['enabled'] is True and d['target']['stores'][1]['enabled'] is False and
	d['target']['stores'][0]['addr'] == '10.77.0.1' and d['target']['stores'][0]['port'] == 4800 and
	d['target']['stores'][0]['keys'] == 7 and
	d['target']['stores'][0]['ssds'][1] == {'index': 1, 'device_path': '/dev/ssd1', 'nqn': '$nqn1', 'nsid': 1, 'state': 'failed'} and
	d['target']['stores'][0]['ssds'][0]['state'] == 'ok' and d['host'] == {'stores': []}" "$t/l.json"; then
	ok "list -o json: the target's stores with their SSDs and states"
else
	notok "list -o json: the target's stores" "exit $rc: $out" "$(cat "$t/l.json")"
fi
out=$(SCALIO_CONFIGFS=$C SCALIO_SYSFS=$Y "$ctl" list --host --json 2>&1 > "$t/lh.json"); rc=$?
if [ $rc = 0 ] && jq_py "'target' not in d and [s['name'] for s in d['host']['stores']] == ['kv0', 'kv2'] and
	d['host']['stores'][0]['addr'] == '10.77.0.1' and d['host']['stores'][0]['port'] == 4801 and
	d['host']['stores'][0]['hostnqn'] == '$nA' and d['host']['stores'][0]['state'] == 'unknown' and
	d['host']['stores'][0]['error'] == 'No such file or directory'" "$t/lh.json"; then
	ok "list --host --json: the attached stores, unknown state when the device cannot be asked"
else
	notok "list --host --json: the attached stores" "exit $rc: $out" "$(cat "$t/lh.json")"
fi
out=$(SCALIO_CONFIGFS=$C SCALIO_SYSFS=$Y "$ctl" list 2>&1); rc=$?
if [ $rc = 0 ] && grep -q "^target store kv0: enabled, 10.77.0.1:4800, 2 SSD(s), 0 allowed host(s), 7 keys$" <<< "$out" &&
   grep -q "^  ssd1 failed /dev/ssd1 $nqn1$" <<< "$out" && grep -q "^target store kv1: disabled, no address, 0 SSD(s)" <<< "$out" &&
   grep -q "^host store kv2: unknown (No such file or directory), target \[fd00::1\]:4800$" <<< "$out"; then
	ok "list: the same as text"
else
	notok "list: the same as text" "exit $rc: $out"
fi
out=$("$ctl" list -o prometheus 2>&1); rc=$?
out2=$("$ctl" list kv0 2>&1); rc2=$?
if [ $rc = 2 ] && [ $rc2 = 2 ]; then ok "list: -o prometheus and arguments are usage errors"; else notok "list usage errors" "exit $rc: $out" "exit $rc2: $out2"; fi
v=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$here/../../dkms.conf")
if [ -n "$v" ] && [ "$("$ctl" --version)" = "scalioctl $v" ]; then ok "--version prints dkms.conf's PACKAGE_VERSION"; else notok "--version" "$("$ctl" --version) vs $v"; fi

# ---- bash completion (scalioctl.bash), from scalioctl's own help
comp() {	# comp WORD...: the completions of the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _scalioctl; echo "${COMPREPLY[*]}"' \
		_ "$here/scalioctl.bash" "$ctl" "$@"
}
c1=$(comp st) c2=$(comp stats --t) c3=$(comp stats -o "") c4=$(comp list -o "") c5=$(comp list --) c6=$(comp "")
if [ "$c1" = stats ] && [ "$c2" = --textfile ] && [ "$c3" = "json prometheus text" ] &&
   [ "$c4" = "json text" ] && grep -qw -- --target <<< "$c5" && grep -qw -- --json <<< "$c5" &&
   grep -qw list <<< "$c6" && grep -qw -- --version <<< "$c6" && grep -qw target-setup <<< "$c6"; then
	ok "bash completion: commands, options and -o formats from the help"
else
	notok "bash completion" "st: $c1" "stats --t: $c2" "stats -o: $c3" "list -o: $c4" "list --: $c5" "'': $c6"
fi

# ---- namespace identifiers (nsuuid.c): version 5, the old form kept
nu=$here/test_nsuuid
q=nqn.2024-11.io.scalio:kv0-ssd0
v5=$("$py" -c 'import sys, uuid; print(uuid.uuid5(uuid.uuid5(uuid.NAMESPACE_DNS, "scalio.io"), sys.argv[1]))' "$q")
old=c9363b8b-e36b-4dfc-ac6c-02345b778a0f	# what scalioctl wrote for $q before version 5
if [ "$("$nu" v5 "$q")" = "$v5" ] && [ "$("$nu" legacy "$q")" = "$old" ] && [ "${v5:14:1}" = 5 ]; then
	ok "namespace id: uuid5(uuid5(DNS, scalio.io), NQN) as Python computes it; the old form unchanged"
else
	notok "namespace id forms" "v5 $("$nu" v5 "$q") want $v5" "old $("$nu" legacy "$q") want $old"
fi
c1=$("$nu" choose "$q" v5) c2=$("$nu" choose "$q" legacy) c3=$("$nu" choose "$q" v5 "$old")
c4=$("$nu" choose "$q" legacy "$v5") c5=$("$nu" choose "$q" v5 00000000-0000-0000-0000-000000000000)
c6=$("$nu" choose nqn.2024-11.io.scalio:kv0-ssd1 v5 "$old")
if [ "$c1" = "$v5" ] && [ "$c2" = "$old" ] && [ "$c3" = "$old" ] && [ "$c4" = "$v5" ] &&
   [ "$c5" = "$v5" ] && [ "$c6" = "$("$nu" v5 nqn.2024-11.io.scalio:kv0-ssd1)" ]; then
	ok "namespace id: version 5 unless asked for the old form; a namespace keeps an id of its own NQN"
else
	notok "namespace id choice" "v5: $c1" "legacy: $c2" "v5, configfs old: $c3" "legacy, configfs v5: $c4" "foreign: $c5" "another NQN's: $c6"
fi

# ---- nvmetcli's config.json schema: a file nvmetcli wrote restores, and
# saves back to the same configuration (compared as JSON, the secrets
# aside); the saved file restores the same tree again.
export SCALIO_SYSFS=$t/nosys
# norm FILE: the configuration as nvmetcli reads it: lists in any order,
# no secret, none of scalio's members, "ana_grpid": 0 (no ANA group file)
# as nothing
norm() {
	"$py" - "$1" <<'PYEOF'
import json, sys
def walk(o):
    if isinstance(o, dict):
        d = {}
        for k, v in o.items():
            if k in ("scalio", "dhchap_key_file", "scalio_attrs"):
                continue
            if k == "ana_grpid" and v == 0:
                continue
            if k == "dhchap":
                v = {a: b for a, b in v.items() if a not in ("key", "ctrl_key")}
            d[k] = walk(v)
        return d
    if isinstance(o, list):
        return sorted((walk(e) for e in o), key=lambda e: json.dumps(e, sort_keys=True))
    return o
print(json.dumps(walk(json.load(open(sys.argv[1]))), sort_keys=True, indent=1))
PYEOF
}
fx=$here/testdata/nvmetcli-config.json
n7=nqn.2014-08.org.nvmexpress:uuid:77777777-0000-4000-8000-000000000007
s7='DHHC-1:00:c2VjcmV0LW52bWV0Y2xpLXNlY3JldC0xMjM0NTY3OA==:'
printf '%s\n' "$s7" > "$t/key7"
printf '%s %s\n' "$n7" "$t/key7" > "$t/hosts7"
CN=$t/cfsn
empty_cfs "$CN"
out=$(SCALIO_CONFIGFS=$CN "$ctl" restore -v "$fx" 2>&1); rc=$?
N=$CN/nvmet
if [ $rc = 0 ] && [ "$(cat "$N/hosts/$n7/dhchap_key")" = "$s7" ] &&
   [ "$(cat "$N/hosts/$n7/dhchap_hash")" = "hmac(sha256)" ] && [ ! -e "$N/hosts/$n7/dhchap_ctrl_key" ] &&
   [ "$(cat "$N/ports/2/addr_traddr")" = fd00::1 ] && [ "$(cat "$N/ports/1/param_inline_data_size")" = 8192 ] &&
   [ "$(cat "$N/ports/1/ana_groups/2/ana_state")" = non-optimized ] &&
   [ "$(cat "$N/ports/1/referrals/ref0/enable")" = 1 ] &&
   [ "$(cat "$N/subsystems/nqn.2024-11.io.scalio:kv0-ssd1/namespaces/1/ana_grpid")" = 2 ] &&
   [ ! -e "$N/subsystems/nqn.2024-11.io.scalio:kv0-ssd1/namespaces/7/ana_grpid" ] &&
   [ "$(cat "$N/subsystems/nqn.2024-11.io.scalio:kv0-ssd1/namespaces/1/device_nguid")" = 11111111-2222-3333-4444-555555555555 ] &&
   [ "$(cat "$N/subsystems/nqn.2024-11.io.scalio:kv0-ssd1/passthru/clear_ids")" = 1 ] &&
   [ -L "$N/subsystems/nqn.2024-11.io.scalio:kv0-ssd1/allowed_hosts/$n7" ] &&
   [ -L "$N/ports/2/subsystems/nqn.2024-11.io.scalio:kv0-ssd1" ] && ! grep -qF "$s7" <<< "$out"; then
	ok "restore of a file nvmetcli wrote (secret written, never printed)"
else
	notok "restore of a file nvmetcli wrote" "exit $rc: $out" "$(tree "$CN" | head -40)"
fi
SCALIO_HOSTS_FILE=$t/hosts7 SCALIO_CONFIGFS=$CN "$ctl" save --target "$t/n.json" 2> "$t/err"; rc=$?
norm "$fx" > "$t/n.want"
norm "$t/n.json" > "$t/n.got"
if [ $rc = 0 ] && diff -u "$t/n.want" "$t/n.got" > "$t/n.diff"; then
	ok "save after it gives nvmetcli's configuration back"
else
	notok "save after it gives nvmetcli's configuration back" "exit $rc: $(cat "$t/err")" "$(head -30 "$t/n.diff")"
fi
if ! grep -qF "$s7" "$t/n.json" && grep -q "\"dhchap_key_file\": \"$t/key7\"" "$t/n.json" &&
   "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = {x["portid"]: x for x in d["ports"]}
ns = {x["nqn"]: x for x in d["subsystems"]}["nqn.2024-11.io.scalio:kv0-ssd1"]["namespaces"]
ok = (isinstance(p[1]["portid"], int) and p[1]["ana_groups"][0]["grpid"] in (1, 2)
      and all(isinstance(n["nsid"], int) and isinstance(n["enable"], int) for n in ns)
      and {n["nsid"]: n for n in ns}[1]["ana_grpid"] == 2
      and {n["nsid"]: n for n in ns}[1]["device"]["path"] == "/dev/nvme1n1"
      and d["scalio"]["version"] == 2)
sys.exit(0 if ok else 1)' "$t/n.json"; then
	ok "saved nvmet part: integer ids and enables, grouped attributes, the secret by key file only"
else
	notok "saved nvmet part in nvmetcli's types" "$(head -c 1500 "$t/n.json")"
fi
CM=$t/cfsm
empty_cfs "$CM"
out=$(SCALIO_CONFIGFS=$CM "$ctl" restore "$t/n.json" 2>&1); rc=$?
if [ $rc = 0 ] && diff <(tree "$CN") <(tree "$CM") > "$t/nm.diff"; then
	ok "the saved file restores the same tree (the secret from its key file)"
else
	notok "the saved file restores the same tree" "exit $rc: $out" "$(head "$t/nm.diff")"
fi
before=$(tree "$CM")
out=$(SCALIO_CONFIGFS=$CM "$ctl" restore "$t/n.json" 2>&1); rc=$?
plan=$(SCALIO_CONFIGFS=$CM "$ctl" restore --dry-run "$t/n.json" 2>&1)
if [ $rc = 0 ] && [ "$(tree "$CM")" = "$before" ] && [ -z "$plan" ]; then
	ok "restore twice with an nvmet host's key file: the second writes nothing"
else
	notok "restore twice with an nvmet host's key file" "exit $rc: $out" "plan: $plan"
fi
SCALIO_HOSTS_FILE=$t/nohosts SCALIO_CONFIGFS=$CN "$ctl" save --target "$t/n2.json" 2> "$t/err"; rc=$?
if [ $rc = 0 ] && grep -q "$n7.*names no key file" "$t/err" && ! grep -qF "$s7" "$t/n2.json" "$t/err" &&
   grep -q '"dhchap_key_file": ""' "$t/n2.json"; then
	ok "an nvmet host secret with no key file is not saved, with a warning"
else
	notok "an nvmet host secret with no key file" "exit $rc: $(cat "$t/err")"
fi
# The scalio part rides along; nvmetcli's members alone restore nvmet only.
if "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
st = d["scalio"]["target"]["stores"]
sys.exit(0 if [s["name"] for s in st] == ["kv0", "kv1"] and "subsystems" in d else 1)' "$t/a.json"; then
	ok "scalio's stores are saved under \"scalio\" beside nvmet's members"
else
	notok "scalio's stores under \"scalio\"" "$(head -c 800 "$t/a.json")"
fi

# nvmetcli's own restore of that file (NVMETCLI_PY: the path of nvmetcli's
# nvmet/nvme.py, from its source) builds the same nvmet tree, but for the
# secret, which the file holds only as a key file
if [ -n "${NVMETCLI_PY:-}" ]; then
	CK=$t/cfsk
	mkdir -p "$CK/nvmet/hosts" "$CK/nvmet/subsystems" "$CK/nvmet/ports"
	out=$("$py" "$here/nvmetcli_fake.py" "$NVMETCLI_PY" "$CK" "$t/n.json" 2>&1); rc=$?
	if [ $rc = 0 ] && diff <(tree "$CN/nvmet" | grep -v "$n7/dhchap_key ") <(tree "$CK/nvmet") > "$t/nk.diff"; then
		ok "nvmetcli's restore of the saved file builds the same nvmet tree"
	else
		notok "nvmetcli's restore of the saved file" "exit $rc: $out" "$(head "$t/nk.diff")"
	fi
	# The first tree: a passthru's enable, which nvmetcli does not restore
	CK=$t/cfsk2
	mkdir -p "$CK/nvmet/hosts" "$CK/nvmet/subsystems" "$CK/nvmet/ports"
	out=$("$py" "$here/nvmetcli_fake.py" "$NVMETCLI_PY" "$CK" "$t/a.json" 2>&1); rc=$?
	if [ $rc = 0 ] && diff <(tree "$C/nvmet" | grep -vE '/(revalidate_size|dhchap_key|passthru/enable) ') \
			       <(tree "$CK/nvmet") > "$t/nk.diff"; then
		ok "nvmetcli's restore of another saved file builds the same nvmet tree"
	else
		notok "nvmetcli's restore of another saved file" "exit $rc: $out" "$(head "$t/nk.diff")"
	fi
else
	ok "nvmetcli's restore of the saved file # SKIP NVMETCLI_PY not set"
	ok "nvmetcli's restore of another saved file # SKIP NVMETCLI_PY not set"
fi
# The file is written aside as a new file, never through a link there.
out=$( (ln -s "$t/victim" "$t/s.json.tmp.$BASHPID"; SCALIO_CONFIGFS=$CN exec "$ctl" save --target "$t/s.json") 2>&1); rc=$?
if [ $rc = 3 ] && [ ! -e "$t/victim" ] && [ ! -e "$t/s.json" ] && grep -q "File exists" <<< "$out"; then
	ok "save does not write through a link at its temporary file"
else
	notok "save does not write through a link at its temporary file" "exit $rc: $out" "$(ls -ld "$t"/victim "$t"/s.json* 2>&1)"
fi

# ---- a file of version 1 (the format before nvmetcli's schema) still restores
cat > "$t/v1.json" <<'V1EOF'
{
  "scalio_config": 1,
  "target": {
    "nvmet": {
      "hosts": [ { "name": "nqn.h1", "attrs": { "dhchap_key": "DHHC-1:00:djEtc2VjcmV0LXYxLXNlY3JldC0xMjM0NTY3ODk=:", "dhchap_hash": "hmac(sha512)" } } ],
      "subsystems": [ { "name": "nqn.s1", "attrs": { "attr_allow_any_host": "0" },
        "namespaces": [ { "name": "3", "attrs": { "device_path": "/dev/ssd3", "ana_grpid": "1" }, "enable": "1" } ],
        "allowed_hosts": [ "nqn.h1" ] } ],
      "ports": [ { "name": "5", "attrs": { "addr_trtype": "rdma", "addr_traddr": "10.77.0.3" },
        "referrals": [], "ana_groups": [ { "name": "1", "attrs": { "ana_state": "optimized" } } ],
        "subsystems": [ "nqn.s1" ] } ]
    },
    "scalio": { "stores": [ { "name": "kv9", "attrs": { "attr_batch_max": "4" }, "enable": "0" } ] }
  }
}
V1EOF
CV=$t/cfsv
empty_cfs "$CV"
out=$(SCALIO_CONFIGFS=$CV "$ctl" restore -v "$t/v1.json" 2>&1); rc=$?
V=$CV/nvmet
if [ $rc = 0 ] && [ "$(cat "$V/hosts/nqn.h1/dhchap_key")" = "DHHC-1:00:djEtc2VjcmV0LXYxLXNlY3JldC0xMjM0NTY3ODk=:" ] &&
   [ "$(cat "$V/subsystems/nqn.s1/namespaces/3/device_path")" = /dev/ssd3 ] &&
   [ "$(cat "$V/subsystems/nqn.s1/namespaces/3/enable")" = 1 ] &&
   [ -L "$V/ports/5/subsystems/nqn.s1" ] && [ -L "$V/subsystems/nqn.s1/allowed_hosts/nqn.h1" ] &&
   [ "$(cat "$CV/scalio/stores/kv9/attr_batch_max")" = 4 ] && ! grep -q djEtc2Vj <<< "$out"; then
	ok "a file of version 1 restores (its nvmet secret written, never printed)"
else
	notok "a file of version 1 restores" "exit $rc: $out" "$(tree "$CV")"
fi
SCALIO_HOSTS_FILE=$t/nohosts SCALIO_CONFIGFS=$CV "$ctl" save --all --target "$t/v1b.json" 2> /dev/null
if "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = d["ports"][0]; s = d["subsystems"][0]; n = s["namespaces"][0]
ok = (p["portid"] == 5 and p["addr"]["traddr"] == "10.77.0.3" and p["subsystems"] == ["nqn.s1"]
      and n["nsid"] == 3 and n["enable"] == 1 and n["ana_grpid"] == 1
      and s["allowed_hosts"] == ["nqn.h1"] and d["hosts"][0]["dhchap"] == {"hash": "hmac(sha512)"}
      and d["scalio"]["target"]["stores"][0]["attrs"]["attr_batch_max"] == "4")
sys.exit(0 if ok else 1)' "$t/v1b.json" && ! grep -q djEtc2Vj "$t/v1b.json"; then
	ok "a version 1 configuration saves in nvmetcli's schema"
else
	notok "a version 1 configuration saves in nvmetcli's schema" "$(cat "$t/v1b.json")"
fi
CB=$t/cfsb
empty_cfs "$CB"
bad_nv() {	# bad_nv WHAT EXPECTED-MESSAGE TEXT
	printf '%s' "$3" > "$t/badnv.json"
	local out rc
	out=$(SCALIO_CONFIGFS=$CB "$ctl" restore "$t/badnv.json" 2>&1); rc=$?
	if [ $rc = 3 ] && grep -qF -- "$2" <<< "$out" && [ -z "$(find "$CB" -mindepth 3)" ]; then
		ok "restore refuses $1 (nvmetcli schema)"
	else
		notok "restore refuses $1 (nvmetcli schema)" "exit $rc: $out"
	fi
}
bad_nv "a port id as text" 'no valid "portid"' '{"ports": [{"portid": "1"}]}'
bad_nv "a subsystem without nqn" 'no valid "nqn"' '{"subsystems": [{"attr": {}}]}'
bad_nv "an nqn with '/'" 'no valid "name"' '{"subsystems": [{"nqn": "../../escaped"}]}'
bad_nv "an attribute group name with '/'" 'attributes must be' '{"hosts": [{"nqn": "h", "../x": {"y": "1"}}]}'
bad_nv "an enable of 2" '"enable" must be 0 or 1' '{"ports": [{"portid": 1, "referrals": [{"name": "r", "enable": 2}]}]}'
bad_nv "two passthru" "more than one" '{"subsystems": [{"nqn": "s", "passthru": [{}, {}]}]}'
bad_nv "an unknown top-level member" "unknown member" '{"hosts": [], "bogus": 1}'
bad_nv "another scalio version" '"version" must be 2' '{"hosts": [], "scalio": {"version": 3}}'
bad_nv "an attribute array" "attributes must be text" '{"hosts": [{"nqn": "h", "dhchap": {"hash": []}}]}'
bad_nv "a late error (nothing applied first)" 'no valid "name"' '{"hosts": [{"nqn": "h"}], "scalio": {"version": 2, "target": {"stores": [{"name": "b/c"}]}}}'
# ---- admission without a secret must be asked for (allow-host --no-key)
CA=$t/cfsa
empty_cfs "$CA"
mkdir -p "$CA/scalio/stores/kv0/allowed_hosts"
nk=nqn.2014-08.org.nvmexpress:uuid:nokey
out=$(SCALIO_CONFIGFS=$CA "$ctl" allow-host kv0 $nk 2>&1); rc=$?
if [ $rc = 2 ] && grep -q -- --no-key <<< "$out" && [ ! -e "$CA/scalio/stores/kv0/allowed_hosts/$nk" ]; then
	ok "allow-host with neither --key-file nor --no-key is a usage error"
else
	notok "allow-host with neither --key-file nor --no-key is a usage error" "exit $rc: $out"
fi
out=$(SCALIO_CONFIGFS=$CA "$ctl" allow-host kv0 $nk --no-key --key-file "$t/none" 2>&1); rc=$?
if [ $rc = 2 ] && grep -q "exclude each other" <<< "$out"; then
	ok "allow-host --key-file with --no-key is a usage error"
else
	notok "allow-host --key-file with --no-key is a usage error" "exit $rc: $out"
fi
# (allow-host --no-key itself: 40-admission, on a real configfs)
out=$(SCALIO_CONFIGFS=$CA "$ctl" target-setup --store kv9 --addr 10.0.0.1 --allow-host $nk rel 2>&1); rc=$?
if [ $rc = 2 ] && grep -q -- "--no-key" <<< "$out"; then
	ok "target-setup --allow-host without --no-key is a usage error"
else
	notok "target-setup --allow-host without --no-key is a usage error" "exit $rc: $out"
fi
# (every named option parses: --hosts-file and --allow-host were once
# overwritten by the attribute options)
out=$(SCALIO_CONFIGFS=$CA "$ctl" target-setup --store kv9 --addr 10.0.0.1 --hosts-file "$t/none" \
	--allow-host $nk --no-key --kato-ms 5000 rel 2>&1); rc=$?
if [ $rc = 2 ] && ! grep -q "unknown option" <<< "$out" && grep -q "rel" <<< "$out"; then
	ok "target-setup parses --hosts-file, --allow-host, --no-key and the attribute options together"
else
	notok "target-setup parses --hosts-file, --allow-host, --no-key and the attribute options together" "exit $rc: $out"
fi
# ---- export files (export / import, dump.c): the reader refuses every
# truncation and damage, with what came before it, and reads back what the
# writer wrote (test_dump: the same code as scalioctl's, sanitizers on).
td=$here/test_dump
D=$t/dump
if "$td" write "$D" 3000 && "$td" verify "$D" 3000; then
	ok "export file: 3000 pairs of 1..32-byte keys and 0..4096-byte values read back"
else
	notok "export file: 3000 pairs read back"
fi
# The reader against 20,000 damaged copies, half re-sealed so that the
# checks behind the checksums are reached (test_dump.c says what must hold).
if out=$("$td" fuzz 40 20000 1 2>&1); then
	ok "export file reader: 20000 damaged copies refused or read whole, no other pair handed out ($(sed -n 's/.*damaged anywhere: //p' <<< "$out"))"
else
	notok "export file reader fuzz" "$out"
fi
out=$("$ctl" import --check "$D" 2>&1); rc=$?
if [ $rc = 0 ] && grep -q "intact: 3000 pairs in 12 frames" <<< "$out"; then
	ok "import --check of an intact file counts its pairs"
else
	notok "import --check of an intact file counts its pairs" "exit $rc: $out"
fi
out=$("$ctl" import --check - < "$D" 2>&1); rc=$?
if [ $rc = 0 ] && grep -q "intact: 3000 pairs" <<< "$out"; then
	ok "import --check - reads standard input"
else
	notok "import --check - reads standard input" "exit $rc: $out"
fi
"$td" write "$t/empty" 0
out=$("$ctl" import --check "$t/empty" 2>&1); rc=$?
if [ $rc = 0 ] && grep -q "intact: 0 pairs in 0 frames, 168 bytes" <<< "$out"; then
	ok "an export of no pairs is a header and a trailer"
else
	notok "an export of no pairs is a header and a trailer" "exit $rc: $out"
fi
size=$(stat -c %s "$D")
# cut N EXPECTED: the first N bytes must be refused as truncated.
for cut in 0 10 100 140 152 30000 337700 $((size - 41)) $((size - 40)) $((size - 1)); do
	head -c "$cut" "$D" > "$t/cut"
	out=$("$ctl" import -q --check "$t/cut" 2>&1); rc=$?
	if [ $rc = 3 ] && grep -q "truncated: the file ends in" <<< "$out" &&
	   ! grep -q intact: <<< "$out"; then
		ok "a file cut at byte $cut is refused as truncated"
	else
		notok "a file cut at byte $cut is refused as truncated" "exit $rc: $out"
	fi
done
if ! "$td" verify "$t/cut" 3000 2> /dev/null; then
	ok "the reader hands out no pair of a cut frame"
else
	notok "the reader hands out no pair of a cut frame"
fi
# damage OFFSET BYTE EXPECTED WHAT
damage() {
	cp "$D" "$t/bad"
	printf "$2" | dd of="$t/bad" bs=1 seek="$1" conv=notrunc status=none
	out=$("$ctl" import -q --check "$t/bad" 2>&1); rc=$?
	if [ $rc = 3 ] && grep -q -- "$3" <<< "$out"; then
		ok "$4 is refused: $3"
	else
		notok "$4 is refused: $3" "exit $rc: $out"
	fi
}
damage 0 'X' "not a scalio export file" "another magic"
damage 8 '\002' "export format version 2: this scalioctl reads version 1" "format version 2"
damage 60 'Z' "damaged header: checksum mismatch" "a changed header byte"
damage 133 '\377' "damaged frame header at byte 128" "a frame's pair count"
damage 500000 'X' "damaged frame at byte 337710: checksum mismatch" "a changed value byte in frame 2"
damage $((size - 30)) 'X' "damaged trailer" "a changed trailer"
cp "$D" "$t/bad"; printf 'X' | dd of="$t/bad" bs=1 seek=500000 conv=notrunc status=none
out=$("$ctl" import -q --check "$t/bad" 2>&1)
if grep -q "256 pairs in 1 frames before it are intact" <<< "$out"; then
	ok "the damage message says what came before it"
else
	notok "the damage message says what came before it" "$out"
fi
cp "$D" "$t/bad"; printf 'more' >> "$t/bad"
out=$("$ctl" import -q --check "$t/bad" 2>&1); rc=$?
if [ $rc = 3 ] && grep -q "data after the trailer" <<< "$out"; then
	ok "data after the trailer is refused"
else
	notok "data after the trailer is refused" "exit $rc: $out"
fi
# Two intact frames swapped: each frame checks, the file checksum does not.
python3 - "$D" "$t/bad" << 'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
pos, frames = 128, []
while d[pos:pos + 4] == b'PAIR':
    n = struct.unpack_from('<I', d, pos + 8)[0]
    frames.append(d[pos:pos + 24 + n]); pos += 24 + n
frames[1], frames[2] = frames[2], frames[1]
open(sys.argv[2], 'wb').write(d[:128] + b''.join(frames) + d[pos:])
PY
out=$("$ctl" import -q --check "$t/bad" 2>&1); rc=$?
if [ $rc = 3 ] && grep -q "file checksum mismatch" <<< "$out"; then
	ok "frames in another order are refused by the file checksum"
else
	notok "frames in another order are refused by the file checksum" "exit $rc: $out"
fi
out=$("$ctl" export kv0 2>&1); rc=$?
if [ $rc = 2 ] && grep -q "expected STORE FILE" <<< "$out"; then
	ok "export without FILE is a usage error"
else
	notok "export without FILE is a usage error" "exit $rc: $out"
fi
out=$("$ctl" import --check a b 2>&1); rc=$?
if [ $rc = 2 ] && grep -q "expected FILE" <<< "$out"; then
	ok "import --check with a store is a usage error"
else
	notok "import --check with a store is a usage error" "exit $rc: $out"
fi

# ---- NVMe DH-HMAC-CHAP keys (dhchap.c): HMAC-SHA256 of the secret under
# two labels, as DHHC-1:00 secrets (base64 of the key and its CRC-32)
td2=$here/test_dhchap
dh_ok=1
for s in 0123456789abcdef "$(printf 'k%.0s' $(seq 100))" 'DHHC-1:00:4UdsvU2xRenLyxoaFTycsMa0gL8C47wx7BQRukIfjEMglvRc:'; do
	want=$("$py" -c 'import sys, hmac, hashlib, base64, zlib
s = sys.argv[1].encode()
for l in (b"scalio nvme dhchap host key", b"scalio nvme dhchap ctrl key"):
    k = hmac.new(s, l, hashlib.sha256).digest()
    print("DHHC-1:00:" + base64.b64encode(k + zlib.crc32(k).to_bytes(4, "little")).decode() + ":")' "$s")
	got=$("$td2" "$s")
	[ "$got" = "$want" ] || { dh_ok=0; echo "# secret $s: got $got want $want"; }
	if command -v nvme >/dev/null; then
		for k in $got; do
			nvme check-dhchap-key --key="$k" >/dev/null 2>&1 ||
				{ dh_ok=0; echo "# nvme check-dhchap-key refuses $k"; }
		done
	fi
done
if [ $dh_ok = 1 ]; then
	ok "dhchap keys: HMAC-SHA256(secret, label) as Python computes it, valid DHHC-1 keys (nvme check-dhchap-key)"
else
	notok "dhchap keys"
fi
echo "1..$n"
[ $bad = 0 ]
