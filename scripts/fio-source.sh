#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch fio's source (for its ioengine headers) into build/fio-src once.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dst=$top/build/fio-src
[ -f "$dst/fio.h" ] && exit 0
if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	cat > /etc/apt/sources.list.d/scalio-src.sources <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt-get update
fi
tmp=$(mktemp -d)
(cd "$tmp" && apt-get source --download-only fio >/dev/null && dpkg-source -x --no-check fio_*.dsc src >/dev/null)
mkdir -p "$(dirname "$dst")"
rm -rf "$dst"
mv "$tmp/src" "$dst"
rm -rf "$tmp"
echo "fio source in $dst"
