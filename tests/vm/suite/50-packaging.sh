#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 50-packaging: the Debian packages work on the machines of the bed, and a
# saved configuration survives a reboot of the target.
#
# On the build machine: packaging/mkdeb.sh builds (from debian/, with
# dpkg-buildpackage) scalio-tools and
# scalio-modules-<krel> (both modules built by DKMS from scalio-dkms's
# sources; compiling them inside a TCG guest would take many minutes) into
# build/deb-vm.  The bed runs with --no-modules --no-setup: nothing of the
# build tree is loaded or configured.  In each VM (its /usr is the build
# machine's, read-only, so an overlayfs with a tmpfs upper layer makes it
# writable; dpkg's database holds the build machine's entries of the packages'
# dependencies, so those are checked for real) the packages are installed with
# dpkg -i and the modules loaded with modprobe from /lib/modules
# (scalio-target with a dash, scalio_host with an underscore).
#   target, boot 0: target-setup with the packaged scalioctl on
#     /dev/scalio-ssd<i> (links by QEMU serial, as /dev/disk/by-id would be)
#   host: the target admits the host, and the operator saves the target's
#     configuration on demand (save --target /etc/scalio/target.json);
#     attach, PUT 64 keys, save --host; then the units' ExecStop lines:
#     host (save to /run/scalio + clear: detached), target (same: configfs
#     empty); the stops must leave the operator's files in /etc/scalio
#     alone (same inode and content) and write /run/scalio's; the saved
#     target.json goes to /ctl (the "disk" that survives)
#   vmctl kill-target + start-target (same SSD images), boot 1: the
#     installed files kept in /ctl at the stop are put back (the VM's root
#     is a tmpfs; a disk would keep them), the target unit's
#     ExecStartPre + ExecStart lines (modprobe, restore): store enabled and
#     recovered; a second restore of the same file changes nothing
#     (restore merges into what exists: exit 0, the store still enabled)
#   host: the host unit's ExecStartPre + ExecStart (restore --host:
#     attach again); every key reads back; then clear both sides and
#     unload the modules (the bed's teardown finds nothing left).
# The unit files are read from the installed package, so their commands
# are what runs.  Usage: 50-packaging.sh [--kver 6.1|6.12]; exit 0 pass,
# 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
suite_kver "$@"

# The packages install into Debian kernels (scalio-modules-<krel> depends
# on linux-image-<krel>, DKMS builds against its headers package); the
# debug lane's kernel is built here and is no package.
vm_is_debug "$kver" &&
	{ echo "SKIP: the debug kernel is not a Debian package (packages are tested on 6.1 and 6.12)"; exit 4; }
command -v dpkg-deb > /dev/null || { echo "SKIP: dpkg-deb not installed"; exit 4; }
command -v dkms > /dev/null || { echo "FAIL: dkms not installed (make deps)"; exit 1; }
[ -d "/lib/modules/$krel/build" ] || { echo "FAIL: no headers for $krel"; exit 1; }
out=$top/build/deb-vm
make -C "$top/tools" > /dev/null || { echo "FAIL: make -C tools"; exit 1; }
# One builder at a time (the same lock as the bed's builds for this kernel).
mkdir -p "$top/build"
flock -w 1800 "$top/build/.vm-lock-$krel" nice -n 19 \
	"$top/packaging/mkdeb.sh" --kernels "$krel" "$out" > "$out.log" 2>&1 ||
	{ cat "$out.log"; echo "FAIL: packaging/mkdeb.sh"; exit 1; }
# dpkg's database in the VMs: the build machine's entries of what the
# packages depend on (they are installed there, and so in the VMs' /usr):
# the names in their Depends (dpkg-shlibdeps's libraries included).
deps=$(for d in "$out"/scalio-tools_*.deb "$out"/scalio-modules-"$krel"_*.deb; do
	dpkg-deb -f "$d" Depends; done | tr ',|' '\n\n' | sed 's/(.*//; s/:.*//; s/ //g' | sort -u)
# shellcheck disable=SC2086
pkgs=$(dpkg-query -W -f='${binary:Package}\n' $deps) ||
	{ echo "FAIL: dependencies of the packages not installed: $deps"; exit 1; }
echo "$pkgs" > "$out/pkgs"
# What linux-image-<krel> put in /boot, which the VMs lack: the modules
# package's postinst (dh_installmodules's) runs depmod only when the
# kernel's System.map is there.
cp "/boot/System.map-$krel" "$out/" || { echo "FAIL: no /boot/System.map-$krel"; exit 1; }
# shellcheck disable=SC2086
dpkg-query -s $pkgs > "$out/status" || exit 1

# The guest side (bash; /scalio/build/deb-vm/guest.sh in every VM).
cat > "$out/guest.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
D=/scalio/build/deb-vm
K=$SCALIO_KREL
CTL=/usr/sbin/scalioctl
fail() { echo "FAIL: $*"; exit 1; }

# Writable /usr: an overlay on the read-only 9p /usr.
mount_usr() {
	mkdir -p /tmp/ovl/upper /tmp/ovl/work /var/lib/dpkg/info /var/lib/dpkg/updates || return 1
	modprobe overlay || return 1
	mount -t overlay overlay \
		-o lowerdir=/usr,upperdir=/tmp/ovl/upper,workdir=/tmp/ovl/work /usr
}

# The target's "disk" across its reboot: the VM's root is a tmpfs, so what
# dpkg installed (the overlay's upper layer and dpkg's database) is kept in
# /ctl at shutdown and put back at the next boot, as a root fs would keep it.
keep_root() {
	tar --xattrs -C /tmp/ovl/upper -cf /ctl/pkgtest/usr-upper.tar . &&
		tar -C /var/lib -cf /ctl/pkgtest/dpkg.tar dpkg
}

reuse_root() {
	mkdir -p /tmp/ovl/upper /var/lib && tar --xattrs -C /tmp/ovl/upper -xf /ctl/pkgtest/usr-upper.tar &&
		tar -C /var/lib -xf /ctl/pkgtest/dpkg.tar && mount_usr || return 1
	dpkg-query -W -f='${Status}\n' scalio-tools | grep -q 'ok installed' || return 1
	echo "packages still installed: $(dpkg-query -W -f='${Package} ${Version}; ' 'scalio-*')"
}

# A dpkg database that knows what the packages depend on, then dpkg -i.
install_pkgs() {
	mount_usr || return 1
	cp "$D/status" /var/lib/dpkg/status && touch /var/lib/dpkg/available || return 1
	for p in $(cat "$D/pkgs"); do touch "/var/lib/dpkg/info/$p.list"; done
	mkdir -p /boot && cp "$D/System.map-$K" /boot/ || return 1
	echo "[$(cut -d' ' -f1 /proc/uptime)] dpkg -i"
	dpkg --log=/dev/null -i "$D"/scalio-modules-"$K"_*.deb "$D"/scalio-tools_*.deb || return 1
	echo "[$(cut -d' ' -f1 /proc/uptime)] installed: $(dpkg-query -W -f='${Package} ${Version} ${Status}\n' 'scalio-*' | tr '\n' ';')"
	[ -x $CTL ] && ls "/lib/modules/$K/updates/dkms/scalio-target.ko"* > /dev/null || return 1
	grep -q 'updates/dkms/scalio-host.ko[.a-z]*:' "/lib/modules/$K/modules.dep" ||
		{ echo "depmod did not index the modules"; return 1; }
}

# The Exec<what>= lines of an installed unit, run in order, in the
# /run/<dir> its RuntimeDirectory= would have systemd create.
unit() {
	local f=/lib/systemd/system/$1.service l rc
	[ -f "$f" ] || { echo "no $f"; return 1; }
	while IFS= read -r l; do
		case $l in RuntimeDirectory=*) mkdir -p "/run/${l#*=}" ;; esac
		case $l in "$2="*) ;; *) continue ;; esac
		echo "+ ${l#*=}"
		sh -c "${l#*=}"
		rc=$?
		[ $rc = 0 ] || { echo "unit $1 $2: '${l#*=}' exited $rc"; return 1; }
	done < "$f"
}

# What a unit's stop must leave alone: the operator's saved file (its inode:
# save writes a new file and renames it over the old; its content).
keep_file() {
	stat -c %i "$1" > "$2.ino" && cp "$1" "$2.saved"
}

same_file() {
	[ "$(stat -c %i "$1")" = "$(cat "$2.ino")" ] && cmp -s "$1" "$2.saved"
}

ssd_links() {
	local i=0 d
	for d in $SCALIO_SSDS; do
		ln -sf "$d" /dev/scalio-ssd$i
		i=$((i + 1))
	done
}

target_boot() {
	ssd_links
	if [ "$SCALIO_BOOT_GEN" = 0 ]; then
		install_pkgs || fail "installing the packages"
		modprobe scalio-target || fail "modprobe scalio-target"
		echo "loaded $(modinfo -n scalio_target)"
		modinfo -n scalio_target | grep -q "^/lib/modules/$K/updates/dkms/scalio-target.ko" ||
			fail "scalio_target not loaded from updates/dkms"
		$CTL target-setup --store kv0 --addr "$SCALIO_TARGET_ADDR" --format \
			/dev/scalio-ssd0 /dev/scalio-ssd1 || fail "target-setup"
		return 0
	fi
	reuse_root || fail "the installed packages did not survive the reboot"
	mkdir -p /etc/scalio
	cp /ctl/pkgtest/target.json /etc/scalio/target.json || fail "no saved target.json"
	unit scalio-target ExecStartPre || fail "scalio-target.service ExecStartPre"
	unit scalio-target ExecStart || fail "scalio-target.service ExecStart"
	grep -q 1 /sys/kernel/config/scalio/stores/kv0/enable || fail "kv0 not enabled after restore"
	echo "store kv0 restored: $(tr '\n' ' ' < /sys/kernel/config/scalio/stores/kv0/stats | cut -c1-200)"
	out=$($CTL restore /etc/scalio/target.json 2>&1)
	rc=$?
	echo "second restore: exit $rc: $out"
	[ $rc = 0 ] || fail "a second restore of the same file failed"
	grep -q 1 /sys/kernel/config/scalio/stores/kv0/enable ||
		fail "kv0 not enabled after a second restore"
}

host_main() {
	local i v nqn
	install_pkgs || fail "installing the packages"
	modprobe scalio_host || fail "modprobe scalio_host"
	modinfo -n scalio-host | grep -q "^/lib/modules/$K/updates/dkms/scalio-host.ko" ||
		fail "scalio-host not loaded from updates/dkms"
	WAIT_INTERVAL=0.1 wait_until /dev/scalio-ctl test -c /dev/scalio-ctl
	# Admission: the target admits this host by NQN and secret; its
	# hosts file names the key file (in /ctl: it survives the reboot),
	# which is what the saved target.json records, never the secret.
	nqn=$(cat /etc/nvme/hostnqn)
	mkdir -p /ctl/pkgtest /etc/scalio/keys
	head -c 24 /dev/urandom | base64 > /ctl/pkgtest/host.key
	vmctl exec-target "bash -c 'echo $nqn /ctl/pkgtest/host.key > /etc/scalio/allowed_hosts && $CTL allow-host kv0 $nqn --key-file /ctl/pkgtest/host.key'" ||
		fail "allow-host"
	# The operator saves the target's configuration on demand.
	vmctl exec-target "bash -c '. $D/guest.sh && $CTL save --target /etc/scalio/target.json && keep_file /etc/scalio/target.json /ctl/pkgtest/target'" ||
		fail "save --target"
	install -m 600 /ctl/pkgtest/host.key /etc/scalio/keys/kv0.key
	$CTL attach kv0 --addr "$SCALIO_TARGET_ADDR" --key-file /etc/scalio/keys/kv0.key || fail "attach"
	for i in $(seq 64); do
		$CTL put kv0 "key$i" "value $i $(printf '%0*d' $((i * 7)) 0)" || fail "put key$i"
	done
	mkdir -p /etc/scalio
	$CTL save --host /etc/scalio/host.json || fail "save --host"
	cat /etc/scalio/host.json
	grep -q '"nvme_port": 4420' /etc/scalio/host.json || fail "host.json lacks the nvme port"
	grep -q "\"hostnqn\": \"$(cat /sys/class/misc/scalio-kv0/hostnqn)\"" /etc/scalio/host.json ||
		fail "host.json lacks the host NQN"
	grep -q '"key_file": "/etc/scalio/keys/kv0.key"' /etc/scalio/host.json ||
		fail "host.json lacks the key file"
	! grep -qF "$(cat /ctl/pkgtest/host.key)" /etc/scalio/host.json ||
		fail "host.json holds the secret"
	keep_file /etc/scalio/host.json /tmp/host || fail "keeping host.json"
	echo "=== stop: host unit, then target unit"
	unit scalio-host ExecStop || fail "scalio-host.service ExecStop"
	[ ! -e /dev/scalio/kv0 ] || fail "kv0 still attached after the host unit stopped"
	same_file /etc/scalio/host.json /tmp/host || fail "the host unit's stop rewrote /etc/scalio/host.json"
	grep -q '"kv0"' /run/scalio/host.json || fail "the host unit's stop saved no /run/scalio/host.json with kv0"
	vmctl exec-target "bash -c '. $D/guest.sh && target_stop'" || fail "target stop"
	grep -q '"kv0"' /ctl/pkgtest/target.json || fail "saved target.json has no kv0"
	! grep -qE '\(set\)|attr_format_on_enable|attr_force_recover' /ctl/pkgtest/target.json ||
		fail "target.json holds a one-shot attribute or '(set)'"
	grep -q '"dhchap_key_file": "/ctl/pkgtest/host.key"' /ctl/pkgtest/target.json ||
		fail "target.json does not name the host's key file"
	! grep -qF "$(cat /ctl/pkgtest/host.key)" /ctl/pkgtest/target.json ||
		fail "target.json holds the secret"
	echo "=== reboot the target"
	vmctl kill-target || fail "kill-target"
	vmctl start-target || fail "start-target (restore)"
	cat /ctl/vm/target/target-cmd.1.out
	echo "=== start: host unit"
	unit scalio-host ExecStartPre || fail "scalio-host.service ExecStartPre"
	unit scalio-host ExecStart || fail "scalio-host.service ExecStart"
	for i in $(seq 64); do
		v=$($CTL get kv0 "key$i") || fail "get key$i after the reboot"
		[ "$v" = "value $i $(printf '%0*d' $((i * 7)) 0)" ] || fail "key$i reads '$v'"
	done
	echo "64 keys read back after the target rebooted and restored its configuration"
	$CTL clear --host || fail "clear --host"
	rmmod scalio_host || fail "rmmod scalio_host"
	vmctl exec-target "$CTL clear --target && rmmod scalio_target" || fail "target cleanup"
	echo "PASS"
}

target_stop() {
	unit scalio-target ExecStop || fail "scalio-target.service ExecStop"
	same_file /etc/scalio/target.json /ctl/pkgtest/target ||
		fail "the target unit's stop rewrote /etc/scalio/target.json"
	grep -q '"kv0"' /run/scalio/target.json || fail "the target unit's stop saved no /run/scalio/target.json with kv0"
	for d in nvmet/subsystems nvmet/ports scalio/stores; do
		[ -z "$(ls /sys/kernel/config/$d)" ] || fail "$d not empty after clear: $(ls /sys/kernel/config/$d)"
	done
	mkdir -p /ctl/pkgtest
	cp /etc/scalio/target.json /ctl/pkgtest/target.json || fail "keeping target.json"
	keep_root || fail "keeping the installed packages"
	echo "target saved and cleared"
}
EOF

"$top/tests/vm/run" --kver "$kver" --no-modules --no-setup \
	--target-cmd "bash -c '. /scalio/build/deb-vm/guest.sh && target_boot'" \
	-- 'bash -c ". /scalio/build/deb-vm/guest.sh && host_main"'
rc=$?
[ $rc = 0 ] || { echo "FAIL: exit $rc"; exit 1; }
echo PASS
