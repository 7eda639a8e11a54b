#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# packaging/mkdeb.sh [--kernels "KREL..."] [OUTDIR]: build the Debian
# packages of scalio from debian/ with dpkg-buildpackage (make dkms-deb):
#
#   scalio-dkms_<ver>_all.deb         module sources in /usr/src/scalio-<ver>
#                                     and dkms.conf (dh_dkms: DKMS builds and
#                                     installs them at installation and for
#                                     every kernel installed later)
#   scalio-tools_<ver>_<arch>.deb     scalioctl, the fio engine, the YCSB
#                                     driver, man pages, systemd units
#   scalio-modules-<krel>_<ver>_<arch>.deb
#                                     both modules prebuilt by DKMS for
#                                     kernel <krel>, for machines without a
#                                     compiler (the test bed's VMs); one per
#                                     --kernels entry
#
# The build runs in a copy of the tree under OUTDIR/.work (dpkg-buildpackage
# writes its products next to the source directory, and debhelper its state
# into debian/), so the checkout stays clean.  The module packages are not
# in debian/control: their stanzas (debian/scalio-modules.control.in) are
# added to the copy's, one per kernel, with their lintian overrides
# (debian/scalio-modules.lintian-overrides.in).  OUTDIR defaults to
# build/deb; <ver> is debian/changelog's, which must be dkms.conf's
# PACKAGE_VERSION.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kernels=
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) kernels=${2?}; shift ;;
	-*) echo "usage: packaging/mkdeb.sh [--kernels \"KREL...\"] [OUTDIR]" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
out=$(mkdir -p "${1:-$top/build/deb}" && cd "${1:-$top/build/deb}" && pwd)
for k in $kernels; do
	[ -d "/lib/modules/$k/build" ] || { echo "mkdeb: no headers for $k" >&2; exit 1; }
done
[ -f "$top/build/fio-src/fio.h" ] ||
	{ echo "mkdeb: no fio source in build/fio-src (scripts/fio-source.sh)" >&2; exit 1; }
work=$out/.work
rm -rf "$work"
rm -f "$out"/scalio-*.deb
src=$work/scalio
mkdir -p "$src/build"

# What the packages are built from: the tracked and new files of the tree
# (no build products; tests/lincheck has the history recorder scalio-ycsb
# links), and fio's headers for the engine.
(cd "$top" && git ls-files -z -co --exclude-standard -- Makefile Kbuild dkms.conf \
	common uapi target host tools man systemd debian tests/lincheck) |
	(cd "$top" && tar --null -T - -cf -) | tar -C "$src" -xf -
ln -s "$top/build/fio-src" "$src/build/fio-src"
for k in $kernels; do
	sed "s/@KREL@/$k/g" "$top/debian/scalio-modules.control.in" >> "$src/debian/control"
	# Where DKMS compresses the modules (as the kernel does its own),
	# lintian reads no strings from them: no spelling override then.
	if grep -q '^CONFIG_MODULE_COMPRESS_NONE=y' "/lib/modules/$k/build/.config"; then
		cp "$top/debian/scalio-modules.lintian-overrides.in" \
			"$src/debian/scalio-modules-$k.lintian-overrides"
	else
		grep -v '^spelling-error-in-binary ' "$top/debian/scalio-modules.lintian-overrides.in" \
			> "$src/debian/scalio-modules-$k.lintian-overrides"
	fi
done

if ! (cd "$src" && DEB_KERNELS="$kernels" nice -n 10 dpkg-buildpackage -b -us -uc -j2) \
		> "$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log" >&2
	echo "mkdeb: dpkg-buildpackage failed (log: $work/build.log)" >&2
	exit 1
fi
mv "$work"/*.deb "$out/"
rm -rf "$work"
ls -1 "$out"/*.deb
