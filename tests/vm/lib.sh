# SPDX-License-Identifier: GPL-2.0
# Helpers shared by tests/vm/run, the suite scripts and tests/check.sh
# (sourced, bash).

vm_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# The debug-kernel lane (series 6.1-debug): the kernel tests/vm/debug-kernel/
# build makes from linux-source-6.1 (KASAN, lockdep, kmemleak, UBSAN, ...).
vm_debug_dir=$vm_top/build/debug-kernel

# vm_is_debug SERIES: true for the debug-kernel lane's series.
vm_is_debug() { [ "$1" = 6.1-debug ]; }

# vm_timeout_factor SERIES: how much longer than on Debian's kernel things
# take on SERIES: $SCALIO_TIMEOUT_FACTOR, else 4 on the debug lane (KASAN +
# lockdep + kmemleak under TCG), else 1.  tests/vm/run multiplies its hang
# guards by it and passes it to the guests (SCALIO_TIMEOUT_FACTOR there).
vm_timeout_factor() {
	local f=${SCALIO_TIMEOUT_FACTOR:-}
	[ -n "$f" ] || { vm_is_debug "$1" && f=4 || f=1; }
	[[ $f =~ ^[1-9][0-9]*$ ]] || { echo "SCALIO_TIMEOUT_FACTOR must be a positive integer" >&2; f=1; }
	echo "$f"
}

# vm_krel SERIES: the newest installed kernel release of SERIES (6.1, 6.12)
# that has both /boot/vmlinuz-<krel> and /lib/modules/<krel>; for 6.1-debug
# the debug kernel's release, building it first when it is not up to date
# (one build at a time per tree; progress on stderr).
vm_krel() {
	local k
	if vm_is_debug "$1"; then
		mkdir -p "$vm_top/build" &&
		flock -w 7200 "$vm_top/build/.debug-kernel-lock" \
			"$vm_top/tests/vm/debug-kernel/build" "$vm_debug_dir"
		return
	fi
	ls /lib/modules 2>/dev/null | grep -E "^${1//./\\.}[.-]" | sort -V |
		while read -r k; do
			[ -f "/boot/vmlinuz-$k" ] && echo "$k"
		done | tail -n1
}

# suite_kver [--kver 6.1|6.12]: for tests/vm/suite/*.sh: set kver (the
# series, default $SCALIO_KVER or 6.1) and krel (its newest installed
# kernel); with no such kernel, print SKIP and exit 4 (kselftest's skip).
suite_kver() {
	kver=${SCALIO_KVER:-6.1}
	[ "${1:-}" = --kver ] && kver=${2:?--kver needs 6.1, 6.12 or 6.1-debug}
	krel=$(vm_krel "$kver")
	[ -n "$krel" ] || { echo "SKIP: no $kver kernel installed"; exit 4; }
}

# suite_share NAME: make $share, a fresh directory the VMs see as /share,
# under $SCALIO_VM_LOGROOT (kept, for the logs) or $TMPDIR (removed on exit).
suite_share() {
	local root=${SCALIO_VM_LOGROOT:-${TMPDIR:-/tmp}}

	mkdir -p "$root" || exit 1
	share=$(mktemp -d "$root/$1-share.XXXXXX") || exit 1
	[ -n "${SCALIO_VM_LOGROOT:-}" ] || trap 'rm -rf "$share"' EXIT
}

# vm_kdir KREL: the kernel build tree external modules of KREL build against.
vm_kdir() {
	if [ "$(cat "$vm_debug_dir/release" 2>/dev/null)" = "$1" ]; then
		echo "$vm_debug_dir/linux-source-6.1"
	else
		echo "/lib/modules/$1/build"
	fi
}

# vm_build_extmod SRCDIR KREL OUTDIR: build the out-of-tree module in SRCDIR
# against KREL in a copy at OUTDIR (so the source tree stays clean); fails
# on any compiler warning.
vm_build_extmod() {
	local src=$1 krel=$2 out=$3
	mkdir -p "$out" && cp "$src"/*.c "$src"/Kbuild "$out"/ || return 1
	make -C "$(vm_kdir "$krel")" M="$out" W=1 modules > "$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; return 1; }
	! grep -E 'warning:|error:' "$out/build.log" >&2
}
