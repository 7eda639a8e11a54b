#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install everything scalio needs to build and test (Debian bookworm).
# Idempotent: does nothing when scripts/need-deps.sh is satisfied.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if "$here/need-deps.sh" 2>/dev/null; then
	echo "deps: all present"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "deps: run as root (apt-get)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
if "$here/need-deps.sh" --packages 2>/dev/null; then
	echo "deps: packages present"
else
	apt-get update
	# shellcheck disable=SC2046
	apt-get install -y --no-install-recommends $("$here/need-deps.sh" --list)
fi
# The test bed's QEMU (scripts/need-deps.sh says why 10): Debian 12 has it
# in bookworm-backports, taken for QEMU alone.
. /etc/os-release
if ! "$here/need-deps.sh" --qemu && [ "${VERSION_CODENAME:-}" = bookworm ]; then
	echo "deb http://deb.debian.org/debian bookworm-backports main" \
		> /etc/apt/sources.list.d/scalio-bookworm-backports.list
	apt-get update
	apt-get install -y --no-install-recommends -t bookworm-backports \
		qemu-system-x86
fi
# fio's headers for the external ioengine come from its source package;
# the fio VM test needs them, so a failure here is a failure of make deps.
"$here/fio-source.sh"
"$here/need-deps.sh"
