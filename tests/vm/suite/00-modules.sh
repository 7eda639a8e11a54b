#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 00-modules: boot target + host with the scalio modules; check that both
# load, that the target has store kv0 in configfs and the host has
# /dev/scalio-ctl, and that the host module refuses a queue_depth out of
# range at load; tests/vm/run then detaches, tears down and unloads both
# modules and requires clean kernel logs.  When tools/scalioctl is not built
# yet, the store is created directly in configfs (mkdir) instead of by
# scalioctl target-setup, and nothing is attached.
# Usage: 00-modules.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
kver=6.1
[ "${1:-}" = --kver ] && kver=${2:?}
cfs=/sys/kernel/config/scalio

opts=() tcheck=
if [ -f "$top/tools/Makefile" ]; then
	# The bed's normal setup: scalioctl target-setup + attach.
	tcheck="test -d $cfs/stores/kv0 && echo 'store kv0:' && cat $cfs/stores/kv0/enable"
	# ...and a module parameter out of range is refused at load time.
	hcheck="test -c /dev/scalio/kv0 && echo 'host: /dev/scalio/kv0'
scalioctl detach kv0
rmmod scalio_host
for p in queue_depth=0 queue_depth=129; do
	if insmod \$SCALIO_KO_DIR/scalio-host.ko \$p 2> /dev/null; then
		echo \"insmod scalio-host.ko \$p succeeded\"; exit 1
	fi
	dmesg | grep -q \"\$p is out of range\"
done
insmod \$SCALIO_KO_DIR/scalio-host.ko
for try in 1 2 3; do
	scalioctl attach kv0 --addr \$SCALIO_TARGET_ADDR \\
		--timeout-ms \$((5000 * SCALIO_TIMEOUT_FACTOR)) > /dev/null && break
	[ \$try = 3 ] && exit 1
	sleep 2
done
test -c /dev/scalio/kv0
echo 'host: reloaded, kv0 attached again'"
else
	echo "tools/ not there yet: creating kv0 by mkdir in configfs, no attach"
	opts=(--no-setup --no-tools)
	tcheck="mkdir $cfs/stores/kv0 && echo 'store kv0 created' && cat $cfs/stores/kv0/features"
	hcheck=true
fi
"$top/tests/vm/run" --kver "$kver" "${opts[@]}" -- "
set -e
grep '^scalio_host ' /proc/modules
test -c /dev/scalio-ctl && echo 'host: /dev/scalio-ctl'
$hcheck
vmctl exec-target \"grep '^scalio_target ' /proc/modules && test -d $cfs/stores && $tcheck\"
echo 'modules and store present'
"
[ $? = 0 ] || exit 1
