#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the scalio test bed, started by the initramfs /init once /usr,
# /scalio and /ctl are mounted.  Reads its configuration from
# /ctl/vm/$vmname/config (written by tests/vm/run), brings up the network and
# soft-RoCE, sets up its role (target: emulated SSDs + nvmet + scalio store;
# host: nvme-rdma + scalio-host + attach), reports progress in
# /ctl/vm/$vmname/state, then serves jobs from /ctl/vm/$vmname/jobs/ forever.
#
# Runs with the build machine's /usr, so bash, kmod, iproute2, nvme-cli are
# the build machine's own binaries.

name=${vmname:?vmname= missing from the kernel command line}
CTL=/ctl
VMDIR=$CTL/vm/$name
exec >>"$VMDIR/boot.log" 2>&1
# shellcheck source=/dev/null
. "$VMDIR/config"

export PATH=/scalio/tools/scalioctl:/scalio/tools/ycsb:/scalio/tests/vm/bin:/scalio/tests:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/bb
export HOME=/root TERM=dumb LANG=C.UTF-8
export SCALIO_VM=$name SCALIO_ROLE=$ROLE SCALIO_CTL=$CTL SCALIO_KREL=$KREL
export SCALIO_HOST_INDEX=$IDX SCALIO_NHOSTS=$NHOSTS SCALIO_NSSDS=$NSSDS
export SCALIO_STORE=$STORE SCALIO_TARGET_ADDR=$TARGET_ADDR
export SCALIO_MODULES=$MODULES SCALIO_BOOT_GEN=$GEN SCALIO_FRESH_DISKS=$FRESH_DISKS
export SCALIO_BUILD=/scalio/build/$KREL SCALIO_KO_DIR=$CTL/ko
# in-VM waits multiply their bounds by this (4 on the debug-kernel lane)
export SCALIO_TIMEOUT_FACTOR=${TIMEOUT_FACTOR:-1}
# ...and so does the target's keep-alive timeout (a slow kernel can stall a
# host's keep-alive past the default, SCALIO_KATO_DEF_MS in the uAPI
# header); the default lane keeps defaults.
SCALIO_TARGET_PARAMS=
if [ "$SCALIO_TIMEOUT_FACTOR" != 1 ]; then
	kato=$(sed -n 's/^#define SCALIO_KATO_DEF_MS[[:space:]]*\([0-9]*\).*/\1/p' \
		/scalio/uapi/scalio.h)
	SCALIO_TARGET_PARAMS="kato_ms=$((${kato:?no SCALIO_KATO_DEF_MS} * SCALIO_TIMEOUT_FACTOR))"
fi
export SCALIO_TARGET_PARAMS

t0=$(cut -d' ' -f1 /proc/uptime)
log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }
state() { echo "$*" > "$VMDIR/state.tmp" && mv "$VMDIR/state.tmp" "$VMDIR/state"; }
fail() {
	log "SETUP FAILED: $*"
	state "failed: $*"
	agent
}

# load_built KO [PARAM=VALUE...]: load a module we built (insmod, as it is
# not in /lib/modules) after modprobing everything it depends on.
load_built() {
	local ko=$1 dep
	shift
	[ -f "$ko" ] || { log "missing $ko"; return 1; }
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
		modprobe "$dep" || return 1
	done
	insmod "$ko" "$@"
}

# The SSD with QEMU serial "ssd$1" (stable across boots, unlike nvmeN).
ssd_dev() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/serial" 2>/dev/null | tr -d ' ')" = "ssd$1" ] || continue
		[ "$(cat "$c/transport" 2>/dev/null)" = pcie ] || continue
		blk_of "$c" && return 0
	done
	return 1
}

# The block device of the first namespace under sysfs dir $1 (a controller
# or, with native multipath, a subsystem): hidden per-path nodes have no
# /dev entry.
blk_of() {
	local b
	for b in "$1"/nvme*n*; do
		[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}

ssd_nqn() { echo "nqn.2024-11.io.scalio:$STORE-ssd$1"; }
# Host i's NVMe host NQN (setup_common writes it into that host's /etc/nvme).
host_nqn() { printf 'nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-%012x\n' "$1"; }

# Admission as a careful operator does it: every host by its NQN and a
# secret of its own, listed in /etc/scalio/allowed_hosts ("NQN KEYFILE"),
# which every scalioctl target-setup reads (also a test's own).  Secrets
# are made once per run and kept in the host's /ctl dir, so a rebooted
# target admits the same hosts; each host copies its own to
# /etc/scalio/hostkey, scalioctl attach's default --key-file.
bed_hosts_file() {
	local i key
	mkdir -p /etc/scalio || return 1
	: > /etc/scalio/allowed_hosts
	for ((i = 1; i <= NHOSTS; i++)); do
		key=$CTL/vm/host$i/scalio.key
		if [ ! -s "$key" ]; then
			head -c 24 /dev/urandom | base64 > "$key.tmp" &&
				mv "$key.tmp" "$key" || return 1
		fi
		echo "$(host_nqn $i) $key" >> /etc/scalio/allowed_hosts
	done
}

# Export the SSDs with nvmet-rdma by hand: only for --no-modules runs, where
# there is no scalio store for scalioctl target-setup to create.  The nvmet
# layout is the one target-setup makes (scalioctl documents it).
bare_target_setup() {
	local n=/sys/kernel/config/nvmet i s h
	mkdir "$n/ports/1" || return 1
	echo rdma > "$n/ports/1/addr_trtype"
	echo ipv4 > "$n/ports/1/addr_adrfam"
	echo "$TARGET_ADDR" > "$n/ports/1/addr_traddr"
	echo "$NVME_PORT" > "$n/ports/1/addr_trsvcid"
	for ((i = 0; i < NSSDS; i++)); do
		s=$n/subsystems/$(ssd_nqn $i)
		mkdir "$s" || return 1
		echo 0 > "$s/attr_allow_any_host"
		for ((h = 1; h <= NHOSTS; h++)); do
			mkdir -p "$n/hosts/$(host_nqn $h)" &&
				ln -s "$n/hosts/$(host_nqn $h)" "$s/allowed_hosts/" ||
				return 1
		done
		mkdir "$s/namespaces/1"
		ssd_dev $i > "$s/namespaces/1/device_path"
		# Same identity every boot, or hosts drop the namespace when
		# they reconnect to a restarted target ("identifiers changed").
		printf '5ca1ab1e-0000-4000-8000-%012x\n' "$i" > "$s/namespaces/1/device_uuid"
		echo 1 > "$s/namespaces/1/enable" || return 1
		ln -s "$s" "$n/ports/1/subsystems/$(ssd_nqn $i)" || return 1
	done
	log "nvmet: exported $NSSDS SSD(s) on rdma $TARGET_ADDR:$NVME_PORT (nvmet offload: unavailable (CPU path))"
}

# nvme connect every SSD (--no-modules runs; scalioctl attach does this
# itself otherwise) and check that each shows up as a block device.
bare_host_setup() {
	local i nqn c found
	for ((i = 0; i < NSSDS; i++)); do
		nqn=$(ssd_nqn $i)
		nvme connect -t rdma -a "$TARGET_ADDR" -s "$NVME_PORT" -n "$nqn" || return 1
		found=
		for _ in $(seq 50); do
			for c in /sys/class/nvme-subsystem/* /sys/class/nvme/*; do
				[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
				found=$(blk_of "$c") && break 2
			done
			sleep 0.1
		done
		[ -n "$found" ] || { log "no namespace for $nqn"; return 1; }
		log "connected $nqn as $found ($(cat "/sys/class/block/${found#/dev/}/size") sectors)"
	done
}

setup_common() {
	hostname "$name"
	printf '127.0.0.1 localhost\n%s target\n' "$TARGET_ADDR" > /etc/hosts
	for ((i = 1; i <= NHOSTS; i++)); do
		echo "10.77.0.$((i + 1)) host$i" >> /etc/hosts
	done
	# Stable per-VM NVMe host identity (nvme-cli would invent one).
	printf '00000000-0000-4000-8000-%012x' "$IDX" > /etc/nvme/hostid
	echo "nqn.2014-08.org.nvmexpress:uuid:$(cat /etc/nvme/hostid)" > /etc/nvme/hostnqn
	modprobe configfs && mount -t configfs configfs /sys/kernel/config ||
		return 1
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	# Debug kernel: no automatic kmemleak scans (each costs tens of
	# seconds of the VM's one CPU under TCG); tests/vm/run scans twice
	# after the teardown, which is what decides.
	[ -w /sys/kernel/debug/kmemleak ] &&
		echo scan=off > /sys/kernel/debug/kmemleak
	if [ "$ROLE" = host ] && [ "$SHARE" = 1 ]; then
		mkdir -p /share
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 share /share ||
			return 1
	fi
	# the NIC is virtio-net or e1000 (SCALIO_VM_NIC on the build machine)
	modprobe virtio_net || return 1
	[ -e /sys/class/net/eth0 ] || modprobe e1000 || return 1
	for _ in $(seq 50); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
	ip link set lo up
	ip addr add "$VM_IP/24" dev eth0 || return 1
	ip link set eth0 up || return 1
	# rdma_rxe needs the crc32 algorithm before it loads.
	modprobe crc32_generic && modprobe rdma_rxe || return 1
	rdma link add rxe0 type rxe netdev eth0 || return 1
	log "network: $VM_IP on eth0, soft-RoCE rxe0"
}

setup_target() {
	local i dev devs=
	modprobe nvme || return 1
	for ((i = 0; i < NSSDS; i++)); do
		for _ in $(seq 100); do
			dev=$(ssd_dev $i) && [ -b "$dev" ] && break
			dev=
			sleep 0.1
		done
		[ -n "$dev" ] || {
			log "SSD ssd$i did not appear; NVMe controllers:"
			for dev in /sys/class/nvme/nvme*; do
				log "  $dev: serial '$(cat "$dev/serial" 2>/dev/null)' transport $(cat "$dev/transport" 2>/dev/null) state $(cat "$dev/state" 2>/dev/null): $(cd "$dev" && echo nvme*n*)"
			done
			return 1
		}
		devs="$devs $dev"
	done
	export SCALIO_SSDS=${devs# }
	echo "$SCALIO_SSDS" > "$VMDIR/ssds"
	log "SSDs: $SCALIO_SSDS"
	modprobe nvmet && modprobe nvmet-rdma || return 1
	if [ "$MODULES" = 1 ]; then
		# shellcheck disable=SC2086
		load_built "$SCALIO_KO_DIR/scalio-target.ko" $SCALIO_TARGET_PARAMS ||
			return 1
		log "scalio-target loaded $SCALIO_TARGET_PARAMS"
		bed_hosts_file || return 1
	fi
	if [ "$SETUP" = 1 ]; then
		if [ "$MODULES" = 1 ]; then
			# Format only blank images, on their first boot: every
			# later boot (and a --disks reuse) must recover the store.
			local fmt=
			[ "$GEN" = 0 ] && [ "$FRESH_DISKS" = 1 ] && fmt=--format
			# shellcheck disable=SC2086
			scalioctl target-setup --store "$STORE" --addr "$TARGET_ADDR" \
				--port "$PORT" --nvme-port "$NVME_PORT" $TARGET_SETUP_ARGS \
				$fmt $SCALIO_SSDS || return 1
		else
			bare_target_setup || return 1
		fi
	fi
	if [ -s "$VMDIR/target-cmd" ]; then
		log "running --target-cmd"
		(cd /tmp && sh -c "$(cat "$VMDIR/target-cmd")") \
			> "$VMDIR/target-cmd.$GEN.out" 2>&1 < /dev/null
		local rc=$?
		echo $rc > "$VMDIR/target-cmd.$GEN.rc"
		[ $rc = 0 ] || { log "--target-cmd exited with $rc"; return 1; }
	fi
}

setup_host() {
	local i
	modprobe nvme-rdma || return 1
	if [ "$MODULES" = 1 ]; then
		load_built "$SCALIO_KO_DIR/scalio-host.ko" || return 1
		for _ in $(seq 50); do
			[ -c /dev/scalio-ctl ] && break
			sleep 0.1
		done
		[ -c /dev/scalio-ctl ] || { log "no /dev/scalio-ctl"; return 1; }
		log "scalio-host loaded"
	fi
	state "waiting for target"
	log "waiting for the target"
	until grep -qx ready "$CTL/vm/target/state" 2>/dev/null; do
		sleep 0.3
	done
	if [ "$MODULES" = 1 ] && [ -s "$VMDIR/scalio.key" ]; then
		mkdir -p /etc/scalio && cp "$VMDIR/scalio.key" /etc/scalio/hostkey &&
			chmod 600 /etc/scalio/hostkey || return 1
	fi
	if [ "$SETUP" = 1 ]; then
		if [ "$MODULES" = 1 ]; then
			# Up to three tries: under TCG on a loaded build machine an
			# ARP or CM exchange of the first connect can time out.
			# Each step's timeout (5 s by default) scales with the
			# lane: on the debug kernel a connect can take longer.
			for try in 1 2 3; do
				scalioctl attach "$STORE" --addr "$TARGET_ADDR" \
					--port "$PORT" --nvme-port "$NVME_PORT" \
					--timeout-ms $((5000 * SCALIO_TIMEOUT_FACTOR)) && break
				[ $try = 3 ] && return 1
				log "attach failed (try $try), again in 2 s"
				sleep 2
			done
		else
			bare_host_setup || return 1
		fi
	fi
}

# Serve jobs: the runner and vmctl write <id>.cmd (a sh command) and then
# create <id>.go, whose presence says the command is complete.  Each job
# runs in the background with its output in <id>.out/<id>.err and its
# status in <id>.rc, one line written last (a reader that has not read a
# whole line yet goes on waiting).  No process is spawned but the job's own
# (a fork and a sh): under TCG every fork+exec costs real time, up to a
# second on the debug kernel, and a vmctl call waits for all of them.  A
# job is claimed by creating its <id>.out before it starts; an agent of a
# later boot (start-target) skips every claimed job and runs the rest.
agent() {
	local jd=$VMDIR/jobs g id wd=/tmp
	local -A claimed=()
	[ "$ROLE" = host ] && [ "$SHARE" = 1 ] && wd=/share
	mkdir -p "$jd"
	# Tick with read -t on a FIFO nobody writes: no fork+exec of sleep
	# five times a second.
	mkfifo /run/agent-tick && exec 9<> /run/agent-tick
	while :; do
		for g in "$jd"/*.go; do
			[ -e "$g" ] || continue
			id=${g%.go}
			[ -z "${claimed[$id]:-}" ] || continue
			claimed[$id]=1
			[ -e "$id.out" ] && continue
			: > "$id.out"
			(
				cd "$wd" && sh "$id.cmd" > "$id.out" 2> "$id.err" < /dev/null
				echo $? > "$id.rc"
			) &
		done
		read -r -t 0.2 -u 9 _
	done
}

log "boot: $name role=$ROLE gen=$GEN kernel $(uname -r), userspace after ${t0}s"
state setup
setup_common || fail "network/soft-RoCE setup"
if [ "$ROLE" = target ]; then
	setup_target || fail "target setup"
else
	setup_host || fail "host setup"
fi
log "ready"
state ready
agent
