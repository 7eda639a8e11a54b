#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Exit 0 when every dependency of make check is installed; with --list,
# print the Debian packages instead; with --packages, check only those
# (and the kernel headers), not fio's source in build/; with --qemu, check
# only the QEMU version.
# flex, bison, bc and libelf-dev build the debug-kernel lane's kernel
# (tests/vm/debug-kernel/build, make check-debug).
pkgs="build-essential linux-image-amd64 linux-headers-amd64
linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.1
qemu-system-x86 busybox-static nvme-cli rdma-core ibverbs-utils perftest dmsetup
fio sparse spin libxxhash-dev liburing-dev libibverbs-dev librdmacm-dev iproute2 kmod cpio zstd xz-utils python3
python3-matplotlib dpkg-dev flex bison bc libelf-dev groff-base man-db dkms
coccinelle
python3-prometheus-client libjson-c-dev uuid-dev libnvme-dev libssl-dev zlib1g-dev
debhelper dh-dkms lintian"
if [ "${1:-}" = --list ]; then
	echo $pkgs
	exit 0
fi
# QEMU 10 (bookworm-backports on Debian 12, scripts/install-deps.sh): the
# emulated NVMe of Debian 12's QEMU 7.2 leaves a command unprocessed now
# and then until the guest resets the controller (Documentation/testing.rst).
qv=$(qemu-system-x86_64 --version 2>/dev/null |
	sed -n '1s/.*version \([0-9]*\)\..*/\1/p')
if [ "${1:-}" = --qemu ]; then
	[ "${qv:-0}" -ge 10 ]
	exit
fi
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ "${qv:-0}" -ge 10 ] || missing="$missing (QEMU >= 10, have ${qv:-none})"
ls -d /lib/modules/6.1.*/build >/dev/null 2>&1 || missing="$missing (6.1 headers)"
ls -d /lib/modules/6.12.*/build >/dev/null 2>&1 || missing="$missing (6.12 headers)"
# fio's source lives in this checkout's build/ (scripts/fio-source.sh), so a
# fresh clone needs it even when every package is installed.
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" != --packages ] && [ ! -f "$top/build/fio-src/fio.h" ]; then
	missing="$missing (fio source)"
fi
if [ -n "$missing" ]; then
	echo "missing:$missing" >&2
	exit 1
fi
exit 0
