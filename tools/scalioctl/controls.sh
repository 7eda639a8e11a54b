#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/scalioctl/controls.sh: each defence of save / restore / clear beside
# nvmetcli (issue 35), removed in turn from a copy of config.c, must make
# test.sh fail; the copy unchanged must pass.  Works in a temporary copy of
# the tree (never edits this one).  Prints, per control, the tests that
# failed; exit 1 if a control passed (its defence is not tested) or the
# baseline failed.  Not part of `make test`: 15 runs of it, about 4 minutes.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/tools"
cp -a "$here" "$w/tools/scalioctl"
cp -a "$top/uapi" "$w/uapi"
cp "$top/dkms.conf" "$w/dkms.conf"
cd "$w/tools/scalioctl" || exit 1
cp config.c config.c.orig

# run NAME: build and test; prints the failed tests; returns test.sh's status
run() {
	local out rc
	out=$(make -s test 2>&1); rc=$?
	echo "== $1: $(grep -c '^not ok' <<< "$out") failed"
	grep '^not ok' <<< "$out" | sed 's/^/   /'
	[ $rc = 0 ] || grep -q '^not ok' <<< "$out" || echo "$out" | tail -5
	return $rc
}

bad=0
run baseline || bad=1
# control NAME: config.c with the Python (old, new) pair on stdin applied once
control() {
	cp config.c.orig config.c
	if ! python3 -c 'import sys
src = open("config.c").read()
old, new = sys.stdin.read().split("\n====\n")
if src.count(old) != 1:
    sys.exit("control %s: the text to replace is not in config.c once" % sys.argv[1])
open("config.c", "w").write(src.replace(old, new.rstrip("\n")))' "$1"; then
		bad=1
		return
	fi
	if run "$1"; then
		echo "   CONTROL PASSED: its defence is not tested"
		bad=1
	fi
}

control no-merge-check <<'EOF'
	if (merge_check(t))
====
	if (0 && merge_check(t))
EOF
control save-every-nvmet-item <<'EOF'
	if (!save_only)
		return true;
====
	if (!save_only || 1)
		return true;
EOF
control save-every-port-link <<'EOF'
			if (!save_only || l != port_links ||
====
			if (1 || !save_only || l != port_links ||
EOF
control every-subsystem-scalios <<'EOF'
	add_entries(&cand, p, DT_DIR, scalio_nqn);
====
	add_entries(&cand, p, DT_DIR, NULL); (void)scalio_nqn;
EOF
control no-nqn-prefix-marker <<'EOF'
	add_entries(&cand, p, DT_DIR, scalio_nqn);
====
	(void)scalio_nqn;
EOF
control no-store-marker <<'EOF'
				sl_add(&cand, nqn);
====
				(void)nqn;
EOF
control shared-port-removed <<'EOF'
		if (!foreign) {
			pathf(p, "%s/ports/%s", dir, o->ports.v[i]);
====
		if (1) {
			pathf(p, "%s/ports/%s", dir, o->ports.v[i]);
EOF
control shared-host-removed <<'EOF'
			foreign = !lstat(lk, &st);
====
			foreign = 0 && !lstat(lk, &st);
EOF
control no-secret-skip <<'EOF'
	if (ret)
		return 0;
	if (dry_run) {
====
	if (0 && ret)
		return 0;
	if (dry_run) {
EOF
control no-link-check <<'EOF'
	if (m)
		ret = merge_check_links(m);
====
	if (0 && m)
		ret = merge_check_links(m);
EOF
control no-exact-ssds <<'EOF'
	if (g->exact) {
====
	if (0 && g->exact) {
EOF
control no-enable-conflict <<'EOF'
	if (g->has_enable && m && !strcmp(json_str(m), "0") &&
====
	if (0 && g->has_enable && m && !strcmp(json_str(m), "0") &&
EOF
control no-secret-conflict <<'EOF'
	if (g->keyed) {
		ret = merge_check_keys(dir, it);
====
	if (0 && g->keyed) {
		ret = merge_check_keys(dir, it);
EOF
control no-skip-of-what-exists <<'EOF'
	if (!lstat(path, &st) && S_ISDIR(st.st_mode))
		return 0;
====
	if (0 && !lstat(path, &st) && S_ISDIR(st.st_mode))
		return 0;
EOF
exit $bad
