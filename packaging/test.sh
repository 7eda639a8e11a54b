#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# packaging/test.sh [DEBDIR]: install the packages built by mkdeb.sh into a
# scratch root with dpkg (--root, maintainer scripts run chrootless with
# DPKG_ROOT set) and check what an operator relies on:
#   - scalio-tools puts scalioctl, the YCSB driver, the fio engine, the man
#     pages (which render) and the systemd units at their standard paths;
#   - scalio-dkms's postinst has DKMS build and install both modules for
#     every kernel with headers into lib/modules/<krel>/updates/dkms, and
#     depmod then resolves their dependencies on the kernel's own modules:
#     modprobe --show-depends finds scalio-target and scalio_host (dash or
#     underscore) with ib_core/rdma_cm/nvme-core in front;
#   - removing scalio-dkms removes the modules again.
# Nothing outside the scratch root and DEBDIR is touched.  TAP output.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
debs=${1:-$top/build/deb}
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
check() { local what=$1; shift; if "$@" > "$log" 2>&1; then ok "$what"; else notok "$what" "$(tail -n 5 "$log")"; fi; }

root=$(mktemp -d /tmp/scalio-pkgtest.XXXXXX)
log=$root.log
trap 'rm -rf "$root" "$log"' EXIT
ver=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$top/dkms.conf")
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
dkms_deb=$debs/scalio-dkms_${ver}_all.deb
tools_deb=$debs/scalio-tools_${ver}_${arch}.deb
for f in "$dkms_deb" "$tools_deb"; do
	[ -f "$f" ] || { echo "Bail out! $f missing: run make dkms-deb"; exit 1; }
done

mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/usr/lib" \
	"$root/usr/bin" "$root/usr/sbin" "$root/tmp"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
# A merged-/usr root like bookworm's.
ln -s usr/lib "$root/lib"
ln -s usr/sbin "$root/sbin"
ln -s usr/bin "$root/bin"
# Dependencies (dkms, kmod, libc6) are the build machine's: not in the
# scratch root's database.
dp() { dpkg --root="$root" --log=/dev/null --force-script-chrootless \
	--force-depends --force-not-root "$@"; }

check "dpkg -i scalio-tools" dp -i "$tools_deb"
for f in usr/sbin/scalioctl usr/bin/scalio-ycsb "usr/lib/$multiarch/fio/scalio-fio.so" \
	 usr/share/man/man8/scalioctl.8.gz usr/share/man/man7/scalio.7.gz \
	 lib/systemd/system/scalio-target.service lib/systemd/system/scalio-host.service; do
	if [ -f "$root/$f" ]; then ok "scalio-tools ships /$f"; else notok "scalio-tools ships /$f"; fi
done
check "installed scalioctl runs" "$root/usr/sbin/scalioctl" help
for p in man8/scalioctl.8.gz man7/scalio.7.gz; do
	err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$root/usr/share/man/$p" 2>&1 >/dev/null)
	if [ -z "$err" ]; then ok "man renders installed $p"; else notok "man renders installed $p" "$err"; fi
done

# DKMS builds for every kernel with headers; that takes a while.
check "dpkg -i scalio-dkms (DKMS build + install)" nice -n 19 dpkg --root="$root" \
	--log=/dev/null --force-script-chrootless --force-depends -i "$dkms_deb"
nk=0
for b in /lib/modules/*/build; do
	[ -d "$b" ] || continue
	k=${b#/lib/modules/}
	k=${k%/build}
	nk=$((nk + 1))
	m=$root/lib/modules/$k
	# .ko, or .ko.xz where the kernel compresses its modules
	tko=$(ls "$m"/updates/dkms/scalio-target.ko* 2>/dev/null | head -n 1)
	if [ -n "$tko" ] && ls "$m"/updates/dkms/scalio-host.ko* > /dev/null 2>&1; then
		ok "$k: both modules in updates/dkms"
	else
		notok "$k: both modules in updates/dkms" "$(ls -R "$m" 2>&1 | head)"
		continue
	fi
	v=$(modinfo -F vermagic "$tko" | awk '{ print $1 }')
	if [ "$v" = "$k" ]; then ok "$k: vermagic matches"; else notok "$k: vermagic matches" "got '$v'"; fi
	# The kernel's own modules next to ours (a symlink farm), so that
	# depmod -b resolves our dependencies as it does on a real system.
	cp -rs "/lib/modules/$k/kernel" "$m/kernel"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "/lib/modules/$k/$f" ] && cp "/lib/modules/$k/$f" "$m/"
	done
	check "$k: depmod" depmod -b "$root" -a "$k"
	for mod in scalio-target scalio_host; do
		dep=$(modprobe -d "$root" -S "$k" --show-depends "$mod" 2>&1)
		want=$([ $mod = scalio-target ] && echo /configfs.ko || echo /rdma_cm.ko)
		if grep -q "updates/dkms/${mod//_/-}.ko" <<< "$dep" &&
		   grep -q "/ib_core.ko" <<< "$dep" && grep -q "$want" <<< "$dep"; then
			ok "$k: modprobe resolves $mod and its dependencies"
		else
			notok "$k: modprobe resolves $mod and its dependencies" "$dep"
		fi
	done
done
[ $nk -gt 0 ] || notok "kernel headers installed" "no /lib/modules/*/build"

check "dpkg -r scalio-dkms" dpkg --root="$root" --log=/dev/null \
	--force-script-chrootless --force-depends -r scalio-dkms
left=$(find "$root/lib/modules" -name 'scalio-*.ko*' 2>/dev/null)
if [ -z "$left" ]; then ok "modules removed with scalio-dkms"; else notok "modules removed with scalio-dkms" "$left"; fi
echo "1..$n"
[ $bad = 0 ]
