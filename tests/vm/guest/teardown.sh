#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Undo what boot.sh (or a test) set up, so that the modules' exit paths run
# at the end of every test-bed run: hosts detach every store and unload
# scalio-host; the target tears every store down and unloads scalio-target.
# Run by tests/vm/run through the agent (hosts first).  Exits non-zero when
# anything refuses to go away.
set -u
ctl=/ctl/vm/$SCALIO_VM
. "$ctl/config"
err=0
cfs=/sys/kernel/config

if [ "$SCALIO_ROLE" = host ]; then
	for d in /dev/scalio/*; do
		[ -c "$d" ] || continue
		echo "detach ${d##*/}"
		scalioctl detach "${d##*/}" || err=1
	done
	if grep -q '^scalio_host ' /proc/modules; then
		echo "rmmod scalio_host"
		rmmod scalio_host || err=1
	fi
	# Fabrics controllers left behind (--no-modules runs, or a test's own).
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/transport" 2>/dev/null)" = rdma ] || continue
		echo "disconnect $(cat "$c/subsysnqn")"
		nvme disconnect -d "${c##*/}" > /dev/null || err=1
	done
else
	if [ -d "$cfs/scalio/stores" ]; then
		for s in "$cfs"/scalio/stores/*; do
			[ -d "$s" ] || continue
			if command -v scalioctl > /dev/null; then
				echo "target-teardown ${s##*/}"
				scalioctl target-teardown --store "${s##*/}" || err=1
				continue
			fi
			# No tools built (early bring-up): undo a bare mkdir'ed store.
			echo "remove store ${s##*/} (configfs)"
			echo 0 > "$s/enable" || err=1
			for d in "$s"/ssds/*; do
				[ -d "$d" ] && { rmdir "$d" || err=1; }
			done
			rmdir "$s" || err=1
		done
	fi
	if grep -q '^scalio_target ' /proc/modules; then
		echo "rmmod scalio_target"
		rmmod scalio_target || err=1
	fi
	# nvmet exports left behind (--no-modules runs, or a test's own).
	n=$cfs/nvmet
	if [ -d "$n" ]; then
		for l in "$n"/ports/*/subsystems/*; do
			[ -L "$l" ] && { rm "$l" || err=1; }
		done
		for s in "$n"/subsystems/*; do
			[ -d "$s" ] || continue
			echo "remove nvmet subsystem ${s##*/}"
			for ns in "$s"/namespaces/*; do
				[ -d "$ns" ] || continue
				echo 0 > "$ns/enable"
				rmdir "$ns" || err=1
			done
			rmdir "$s" || err=1
		done
		for p in "$n"/ports/*; do
			[ -d "$p" ] && { rmdir "$p" || err=1; }
		done
	fi
fi
exit $err
