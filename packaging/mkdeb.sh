#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# packaging/mkdeb.sh [--kernels "KREL..."] [OUTDIR]: build the Debian
# packages of scalio with dpkg-deb (bookworm's dkms has no mkdeb):
#
#   scalio-dkms_<ver>_all.deb         module sources in /usr/src/scalio-<ver>
#                                     and dkms.conf; postinst runs dkms
#                                     add + install for every kernel whose
#                                     headers are installed, prerm dkms remove
#   scalio-modules-<krel>_<ver>_<arch>.deb
#                                     both modules prebuilt by dkms (from the
#                                     same source tree, in a scratch dkms
#                                     tree) for kernel <krel>, in
#                                     /lib/modules/<krel>/updates/dkms: for
#                                     machines without a compiler (the test
#                                     bed's VMs); one per --kernels entry
#   scalio-tools_<ver>_<arch>.deb     scalioctl, the fio engine, the YCSB
#                                     driver, man pages, systemd units
#
# Needs the tools built (make tools) and, for the module packages, the
# kernels' headers.  OUTDIR defaults to build/deb.  <ver> is
# PACKAGE_VERSION of dkms.conf.
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
ver=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$top/dkms.conf")
[ -n "$ver" ] || { echo "mkdeb: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")
work=$out/.work
rm -rf "$work"
rm -f "$out"/scalio-*.deb
mkdir -p "$work"
maint="scalio developers <scalio@localhost>"

# copyright STAGE PKG
copyright() {
	install -d "$1/usr/share/doc/$2"
	cat > "$1/usr/share/doc/$2/copyright" <<EOT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: scalio

Files: *
License: GPL-2.0
 On Debian systems the full text of the GNU General Public License
 version 2 is in /usr/share/common-licenses/GPL-2.
EOT
}

# build STAGE: fix modes, write md5sums, dpkg-deb --build into $out.
build() {
	local stage=$1
	find "$stage" -type d -exec chmod 755 {} +
	(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
		sort -z | xargs -0r md5sum > DEBIAN/md5sums)
	chmod 644 "$stage/DEBIAN/md5sums" "$stage/DEBIAN/control"
	[ ! -f "$stage/DEBIAN/conffiles" ] || chmod 644 "$stage/DEBIAN/conffiles"
	dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
}

# The module sources, as DKMS builds them: no build products.
copy_sources() {
	local dst=$1 d
	install -d "$dst"
	install -m 644 "$top/Kbuild" "$top/dkms.conf" "$dst/"
	for d in common uapi target host; do
		install -d "$dst/$d"
		find "$top/$d" -maxdepth 1 -type f \( -name '*.[ch]' -o -name Kbuild \) \
			-exec install -m 644 -t "$dst/$d" {} +
	done
}

# ---------------------------------------------------------------- dkms
s=$work/dkms
copy_sources "$s/usr/src/scalio-$ver"
copyright "$s" scalio-dkms
install -d "$s/DEBIAN"
cat > "$s/DEBIAN/control" <<EOT
Package: scalio-dkms
Version: $ver
Architecture: all
Maintainer: $maint
Depends: dkms (>= 2.8), kmod
Recommends: scalio-tools
Conflicts: scalio-modules
Section: kernel
Priority: optional
Description: scalio key-value store kernel modules (DKMS source)
 Sources of scalio-target.ko (storage server: DRAM index, RDMA transport,
 group commit) and scalio-host.ko (client: /dev/scalio/<store>), built by
 DKMS for every installed kernel with headers and rebuilt on kernel updates.
 Load with "modprobe scalio-target" / "modprobe scalio-host".
EOT
sed "s/@VER@/$ver/" "$top/packaging/dkms.postinst" > "$s/DEBIAN/postinst"
sed "s/@VER@/$ver/" "$top/packaging/dkms.prerm" > "$s/DEBIAN/prerm"
chmod 755 "$s/DEBIAN/postinst" "$s/DEBIAN/prerm"
build "$s"

# ------------------------------------------------------ prebuilt modules
for k in $kernels; do
	[ -d "/lib/modules/$k/build" ] || { echo "mkdeb: no headers for $k" >&2; exit 1; }
	dk=$work/dkms-$k
	copy_sources "$dk/src/scalio-$ver"
	install -d "$dk/tree"
	if ! (cd "$dk" && dkms build -m scalio -v "$ver" -k "$k" \
			--dkmstree "$dk/tree" --sourcetree "$dk/src") > "$dk/build.log" 2>&1; then
		cat "$dk/build.log" >&2
		exit 1
	fi
	s=$work/modules-$k
	install -d "$s/lib/modules/$k/updates/dkms" "$s/DEBIAN"
	install -m 644 "$dk/tree/scalio/$ver/$k/"*/module/scalio-*.ko* \
		"$s/lib/modules/$k/updates/dkms/"
	copyright "$s" "scalio-modules-$k"
	cat > "$s/DEBIAN/control" <<EOT
Package: scalio-modules-$k
Version: $ver
Architecture: $arch
Maintainer: $maint
Depends: kmod, linux-image-$k
Provides: scalio-modules
Conflicts: scalio-dkms
Recommends: scalio-tools
Section: kernel
Priority: optional
Description: scalio key-value store kernel modules for Linux $k
 scalio-target.ko and scalio-host.ko built by DKMS from scalio-dkms's
 sources for kernel $k, for machines without a compiler.
EOT
	printf '#!/bin/sh\nset -e\n# new modules: refresh their dependencies\ndepmod -a %s || true\n' \
		"$k" > "$s/DEBIAN/postinst"
	printf '#!/bin/sh\nset -e\ndepmod -a %s 2>/dev/null || true\n' "$k" > "$s/DEBIAN/postrm"
	chmod 755 "$s/DEBIAN/postinst" "$s/DEBIAN/postrm"
	build "$s"
done

# ---------------------------------------------------------------- tools
s=$work/tools
for f in tools/scalioctl/scalioctl tools/ycsb/scalio-ycsb tools/fio/scalio-fio.so; do
	[ -f "$top/$f" ] || { echo "mkdeb: $f not built (make tools)" >&2; exit 1; }
done
install -D -m 755 "$top/tools/scalioctl/scalioctl" "$s/usr/sbin/scalioctl"
install -D -m 755 "$top/tools/ycsb/scalio-ycsb" "$s/usr/bin/scalio-ycsb"
install -D -m 644 "$top/tools/fio/scalio-fio.so" "$s/usr/lib/$multiarch/fio/scalio-fio.so"
make -s -C "$top/man" install DESTDIR="$s" mandir=/usr/share/man
if [ -d "$top/systemd" ]; then
	for u in "$top"/systemd/*.service; do
		[ -f "$u" ] && install -D -m 644 "$u" "$s/lib/systemd/system/$(basename "$u")"
	done
fi
install -d -m 755 "$s/etc/scalio"
copyright "$s" scalio-tools
install -d "$s/usr/share/doc/scalio-tools/examples/fio"
for f in "$top"/tools/fio/examples/*.fio; do
	# The packaged engine's path instead of the build tree's.
	sed "s|external:\./scalio-fio\.so|external:/usr/lib/$multiarch/fio/scalio-fio.so|" \
		"$f" > "$s/usr/share/doc/scalio-tools/examples/fio/$(basename "$f")"
done
gzip -9n < "$top/tools/scalioctl/README.md" > "$s/usr/share/doc/scalio-tools/README.scalioctl.md.gz"
install -d "$s/DEBIAN"
# The engine is built against the headers of fio's Debian source package
# (scripts/fio-source.sh): it fits that fio version.
fiover=$(dpkg-query -W -f='${Version}' fio 2>/dev/null || true)
cat > "$s/DEBIAN/control" <<EOT
Package: scalio-tools
Version: $ver
Architecture: $arch
Maintainer: $maint
Depends: libc6, kmod
Recommends: nvme-cli, scalio-dkms | scalio-modules
Suggests: fio${fiover:+ (= $fiover)}
Section: admin
Priority: optional
Description: scalio key-value store: control tool, fio engine, YCSB driver
 scalioctl sets up the storage server (nvmet + the scalio store in configfs),
 attaches clients, issues key-value operations, and saves and restores the
 whole configuration (systemd units scalio-target.service and
 scalio-host.service).  Also the fio ioengine
 (ioengine=external:/usr/lib/$multiarch/fio/scalio-fio.so) and the YCSB
 driver scalio-ycsb.
EOT
build "$s"
rm -rf "$work"
ls -1 "$out"/*.deb
