#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# packaging/test.sh [DEBDIR]: check the packages built by mkdeb.sh.
#   - lintian (pedantic) finds nothing that debian/*.lintian-overrides does
#     not justify;
#   - they install with dpkg -i on this machine as it is, with their real
#     maintainer scripts and dependency checks, into a throw-away copy of
#     it: a private mount namespace where / is an overlay (tmpfs upper
#     layer) and dpkg runs chrooted into it.  Nothing outside reaches the
#     machine's own /, and the namespace goes away with the test;
#   - scalio-tools puts scalioctl, the YCSB driver, the fio engine, the man
#     pages (which render) and the systemd units at their standard paths,
#     and dpkg-shlibdeps found the tools' libraries (liburing2);
#   - scalio-dkms's postinst (dh_dkms's, DKMS's common.postinst) builds and
#     installs both modules into lib/modules/<krel>/updates/dkms for every
#     kernel with headers (DKMS's autoinstall_all_kernels set in the copy:
#     by default it builds only for the running kernel and the newest),
#     and depmod resolves their dependencies on the kernel's own modules:
#     modprobe --show-depends finds scalio-target and scalio_host (dash or
#     underscore) with ib_core/rdma_cm/nvme-core in front;
#   - DKMS refuses the kernels dkms.conf's BUILD_EXCLUSIVE_KERNEL excludes
#     (those the compat header refuses), and takes the supported ones;
#   - removing scalio-dkms removes the modules again.
# Needs root (mounts).  TAP output.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
debs=$(cd "${1:-$top/build/deb}" && pwd)
if [ -z "${SCALIO_PKGTEST_NS:-}" ]; then
	exec unshare --mount --propagation private env SCALIO_PKGTEST_NS=1 "$0" "$debs"
fi
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
check() { local what=$1; shift; if "$@" > "$log" 2>&1; then ok "$what"; else notok "$what" "$(tail -n 5 "$log")"; fi; }

ver=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$top/dkms.conf")
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
dkms_deb=scalio-dkms_${ver}_all.deb
tools_deb=scalio-tools_${ver}_${arch}.deb
for f in "$dkms_deb" "$tools_deb"; do
	[ -f "$debs/$f" ] || { echo "Bail out! $debs/$f missing: run make dkms-deb"; exit 1; }
done

scratch=$(mktemp -d /tmp/scalio-pkgtest.XXXXXX)
log=$scratch/log
trap 'umount -R "$scratch/root" 2>/dev/null; umount "$scratch/t" 2>/dev/null; rm -rf "$scratch"' EXIT

# lintian (its "running with root privileges" note is no finding).
check "lintian --pedantic: clean but for justified overrides" \
	lintian --pedantic -I --fail-on error,warning,info,pedantic "$debs"/scalio-*.deb

# The throw-away copy of this machine.
mkdir -p "$scratch/t" "$scratch/root"
mount -t tmpfs scalio-pkgtest "$scratch/t" && mkdir "$scratch/t/u" "$scratch/t/w" &&
	mount -t overlay scalio-pkgtest -o "lowerdir=/,upperdir=$scratch/t/u,workdir=$scratch/t/w" \
		"$scratch/root" || { echo "Bail out! cannot mount the overlay"; exit 1; }
r=$scratch/root
for d in proc sys dev; do mount --rbind "/$d" "$r/$d"; done
mount -t tmpfs scalio-pkgtest-tmp "$r/tmp"
mkdir -p "$r/tmp/debs" && cp "$debs"/scalio-*.deb "$r/tmp/debs/"
in_root() { chroot "$r" env -u DPKG_ROOT PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
# Nothing of a previous installation on this machine may hide a failure.
in_root dpkg -r scalio-tools scalio-dkms > /dev/null 2>&1
rm -rf "$r/var/lib/dkms/scalio" "$r/usr/src/scalio-$ver"
find "$r/lib/modules" -name 'scalio-*.ko*' -delete 2>/dev/null
echo 'autoinstall_all_kernels="yes"' >> "$r/etc/dkms/framework.conf"

check "dpkg -i scalio-tools (dependencies checked)" in_root dpkg --log=/dev/null -i "/tmp/debs/$tools_deb"
for f in usr/sbin/scalioctl usr/bin/scalio-ycsb "usr/lib/$multiarch/fio/scalio-fio.so" \
	 usr/share/man/man8/scalioctl.8.gz usr/share/man/man7/scalio.7.gz \
	 usr/share/man/man1/scalio-ycsb.1.gz \
	 lib/systemd/system/scalio-target.service lib/systemd/system/scalio-host.service; do
	if [ -f "$r/$f" ]; then ok "scalio-tools ships /$f"; else notok "scalio-tools ships /$f"; fi
done
dep=$(dpkg-deb -f "$debs/$tools_deb" Depends)
if grep -q 'liburing2' <<< "$dep"; then ok "scalio-tools depends on liburing2"; else notok "scalio-tools depends on liburing2" "$dep"; fi
if grep -q 'libnvme1' <<< "$dep"; then ok "scalio-tools depends on libnvme1 (scalioctl's NVMe-oF)"; else notok "scalio-tools depends on libnvme1" "$dep"; fi
check "installed scalioctl runs" in_root /usr/sbin/scalioctl help
for p in man8/scalioctl.8.gz man7/scalio.7.gz man1/scalio-ycsb.1.gz; do
	err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$r/usr/share/man/$p" 2>&1 >/dev/null)
	if [ -z "$err" ]; then ok "man renders installed $p"; else notok "man renders installed $p" "$err"; fi
done

# DKMS builds for every kernel with headers; that takes a while.
check "dpkg -i scalio-dkms (DKMS build + install)" nice -n 19 \
	chroot "$r" dpkg --log=/dev/null -i "/tmp/debs/$dkms_deb"
nk=0
for b in /lib/modules/*/build; do
	[ -d "$b" ] || continue
	k=${b#/lib/modules/}
	k=${k%/build}
	nk=$((nk + 1))
	m=$r/lib/modules/$k
	# .ko, or .ko.xz where the kernel compresses its modules
	tko=$(ls "$m"/updates/dkms/scalio-target.ko* 2>/dev/null | head -n 1)
	if [ -n "$tko" ] && ls "$m"/updates/dkms/scalio-host.ko* > /dev/null 2>&1; then
		ok "$k: both modules in updates/dkms"
	else
		notok "$k: both modules in updates/dkms" "$(ls -R "$m/updates" 2>&1 | head)"
		continue
	fi
	v=$(modinfo -F vermagic "$tko" | awk '{ print $1 }')
	if [ "$v" = "$k" ]; then ok "$k: vermagic matches"; else notok "$k: vermagic matches" "got '$v'"; fi
	for mod in scalio-target scalio_host; do
		dep=$(in_root modprobe -S "$k" --show-depends "$mod" 2>&1)
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

# BUILD_EXCLUSIVE_KERNEL: the kernels the compat header refuses are
# skipped (exit 77, "does not meet the build-exclusive requirements")
# before anything is compiled, the others go on to the build.
for k in 6.2.0-1-amd64 6.11.10-amd64 6.10.0-1-amd64; do
	in_root dkms build -m scalio -v "$ver" -k "$k" > "$log" 2>&1
	rc=$?
	if [ $rc = 77 ]; then ok "dkms refuses kernel $k"; else notok "dkms refuses kernel $k" "exit $rc" "$(tail -n 3 "$log")"; fi
done
for k in 6.1.999-amd64 6.12.999-amd64 7.0.0-amd64; do
	in_root dkms build -m scalio -v "$ver" -k "$k" > "$log" 2>&1
	rc=$?
	if [ $rc != 77 ]; then ok "dkms takes kernel $k"; else notok "dkms takes kernel $k" "exit 77: $(tail -n 3 "$log")"; fi
done

check "dpkg -r scalio-dkms" in_root dpkg --log=/dev/null -r scalio-dkms
left=$(find "$r/lib/modules" -name 'scalio-*.ko*' 2>/dev/null)
if [ -z "$left" ]; then ok "modules removed with scalio-dkms"; else notok "modules removed with scalio-dkms" "$left"; fi
echo "1..$n"
[ $bad = 0 ]
