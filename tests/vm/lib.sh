# SPDX-License-Identifier: GPL-2.0
# Helpers shared by tests/vm/run, the suite scripts and tests/check.sh
# (sourced, bash).

# vm_krel SERIES: the newest installed kernel release of SERIES (6.1, 6.12)
# that has both /boot/vmlinuz-<krel> and /lib/modules/<krel>.
vm_krel() {
	local k
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
	[ "${1:-}" = --kver ] && kver=${2:?--kver needs 6.1 or 6.12}
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

# vm_build_extmod SRCDIR KREL OUTDIR: build the out-of-tree module in SRCDIR
# against KREL in a copy at OUTDIR (so the source tree stays clean); fails
# on any compiler warning.
vm_build_extmod() {
	local src=$1 krel=$2 out=$3
	mkdir -p "$out" && cp "$src"/*.c "$src"/Kbuild "$out"/ || return 1
	make -C "/lib/modules/$krel/build" M="$out" W=1 modules > "$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; return 1; }
	! grep -E 'warning:|error:' "$out/build.log" >&2
}
