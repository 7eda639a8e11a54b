#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 48-ssd-auth: the raw SSDs admit a host by DH-HMAC-CHAP, both ways, not
# by its NQN alone.  Needs nvmet's in-band authentication
# (CONFIG_NVME_TARGET_AUTH, Debian's 6.12; 6.1 has none): the test boots
# the 6.12 series whatever --kver says (it skips, exit 4, when no 6.12
# kernel is installed).  One boot, two hosts, admitted by the bed as an
# operator does (/etc/scalio/allowed_hosts: NQN and key file each):
#   1. target-setup gave each host's nvmet entry a host key and a
#      controller key (DHHC-1:00, hmac(sha256)), other keys for each host;
#      host1, attached by the bed with its key file, authenticated each SSD
#      controller and PUTs/GETs;
#   2. host2 (detached) with its own NQN cannot `nvme connect` to any SSD
#      subsystem with no key, with host1's key, nor with its own host key
#      and a wrong controller key (nvmet cannot prove it: the host refuses);
#      with both right keys it connects (the keys are read from the
#      target's configfs, as an operator's derivation gives them);
#   3. allow-host with another key file for host2 while it is connected:
#      its controllers are dropped at once (nvmet cannot drop one host's:
#      scalioctl drops every controller of the store's SSDs), its
#      reconnects with the old keys are refused; host1's controllers
#      reconnect by themselves, authenticating again, and host1 GETs;
#   4. host2 connected with the new keys; deny-host: its controllers go the
#      same way and its new `nvme connect` is refused; host1 GETs again.
# The bound (Documentation/admin-guide.rst "The SSDs"): nvmet drops the
# controllers when deny-host (or allow-host with a new key) returns; the
# host sees it at its next I/O or keep-alive and, refused, removes the
# controller or keeps retrying without access.  Control:
# 48-ssd-auth.no-nvmet-keys.
# Usage: 48-ssd-auth.sh [--kver 6.1|6.12]; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
# nvmet authentication is 6.12's: this test picks that series itself.
suite_kver --kver 6.12
[ -n "${SCALIO_VM_PREBUILT:-}" ] && [ -f "$top/build/$krel/scalio-target.ko" ] ||
	unset SCALIO_VM_PREBUILT

suite_share ssd-auth

cat > "$share/ssd-auth.sh" << 'EOF'
set -u
# shellcheck source=tests/vm/guest/wait.sh
. /scalio/tests/vm/guest/wait.sh
S=${SCALIO_STORE:-kv0}
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
H1=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-000000000001
H2=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-000000000002
N=/sys/kernel/config/nvmet
nfail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
h2() { vmctl exec-host 2 "$*"; }
tg() { vmctl exec-target "$*"; }
# live NQN: the names of this VM's live controllers of subsystem NQN
live='live() { for c in /sys/class/nvme/nvme*; do [ -e "$c/subsysnqn" ] || continue; [ "$(cat $c/subsysnqn)" = "$1" ] && [ "$(cat $c/state)" = live ] && echo "${c##*/}"; done; return 0; }'
eval "$live"
SSDS=$(tg "ls $N/subsystems" | grep -- "-ssd[0-9]*$" | tr '\n' ' ')
[ -n "$SSDS" ] || { echo "FAIL: no SSD subsystems on the target"; exit 1; }

echo "== 1. the keys target-setup gave, and host1's authenticated SSDs"
if ! tg "test -e $N/hosts/$H1/dhchap_key"; then
	echo "FAIL: nvmet has no dhchap_key: no in-band authentication on $(uname -r)"
	exit 1
fi
for h in $H1 $H2; do
	k=$(tg "cat $N/hosts/$h/dhchap_key") c=$(tg "cat $N/hosts/$h/dhchap_ctrl_key")
	hs=$(tg "cat $N/hosts/$h/dhchap_hash")
	case $k$c in
	DHHC-1:00:*:DHHC-1:00:*:) [ "$k" != "$c" ] && [ "$hs" = "hmac(sha256)" ] &&
		ok "${h##*-}: host and controller keys set, distinct, $hs" ||
		bad "${h##*-}: keys equal or hash '$hs'" ;;
	*) bad "${h##*-}: nvmet keys missing (dhchap_key and dhchap_ctrl_key)" ;;
	esac
done
K1=$(tg "cat $N/hosts/$H1/dhchap_key") C1=$(tg "cat $N/hosts/$H1/dhchap_ctrl_key")
K2=$(tg "cat $N/hosts/$H2/dhchap_key") C2=$(tg "cat $N/hosts/$H2/dhchap_ctrl_key")
[ "$K1" != "$K2" ] && [ "$C1" != "$C2" ] && ok "each host has keys of its own" ||
	bad "host1 and host2 share keys"
na=$(dmesg | grep -c "qid 0: authenticated\|qid 0: controller authenticated")
nssd=$(echo $SSDS | wc -w)
[ "$na" -ge "$nssd" ] &&
	ok "host1 authenticated its $nssd SSD controllers ($na 'authenticated' lines)" ||
	bad "host1 logged $na 'authenticated' lines for $nssd SSDs"
scalioctl put $S auth.k v1 && [ "$(scalioctl get $S auth.k)" = v1 ] &&
	ok "host1 PUTs and GETs" || bad "host1 cannot use the store"

echo "== 2. host2: no key, another host's key, a wrong controller key"
h2 "scalioctl detach $S" > /dev/null 2>&1
conn() {	# conn NQN [nvme connect options]: 0 if a live controller came
	s=$1
	shift
	h2 "nvme connect -t rdma -a $A -s 4420 -n $s --reconnect-delay 1 --ctrl-loss-tmo 10 $*" > /dev/null 2>&1
	[ -n "$(h2 "$live; live $s")" ]
}
# A 6.12 host without a key gives the refused connect up only after its
# admin queue's Fabrics command timed out 6 times (admin_timeout, 60 s):
# 3 s for these connects.
AT=$(h2 "cat /sys/module/nvme_core/parameters/admin_timeout")
h2 "echo 3 > /sys/module/nvme_core/parameters/admin_timeout"
for s in $SSDS; do
	conn $s && bad "$s: host2 connected without a key" ||
		ok "$s: host2 without a key refused"
	h2 "nvme disconnect -n $s" > /dev/null 2>&1
	conn $s --dhchap-secret "$K1" && bad "$s: host2 connected with host1's key" ||
		ok "$s: host2 with host1's key refused"
	h2 "nvme disconnect -n $s" > /dev/null 2>&1
	conn $s --dhchap-secret "$K2" --dhchap-ctrl-secret "$C1" &&
		bad "$s: host2 connected though nvmet did not prove its controller key" ||
		ok "$s: host2 with its own key but a wrong controller key refused"
	h2 "nvme disconnect -n $s" > /dev/null 2>&1
done
# 10 s from here: the refused reconnects of steps 3 and 4 end sooner.
h2 "echo 10 > /sys/module/nvme_core/parameters/admin_timeout"
h2 "dmesg" | grep -q "qid 0: no key" && h2 "dmesg" | grep -q "controller authentication failed" &&
	ok "host2 logged its missing key and nvmet's failed proof" ||
	bad "host2's log lacks 'qid 0: no key' or 'controller authentication failed'"
for s in $SSDS; do
	conn $s --dhchap-secret "$K2" --dhchap-ctrl-secret "$C2" &&
		ok "$s: host2 with both its keys connected" ||
		bad "$s: host2 with its right keys refused"
done

# gone NQNS: none of them has a live controller on host2
gone() {
	l=$(h2 "$live; for s in $SSDS; do live \$s; done") ||
		{ never "cannot list host2's controllers"; return 1; }
	[ -z "$l" ]
}
host1_back() {
	target_up || never "the target is down"
	for s in $SSDS; do [ -n "$(live $s)" ] || return 1; done
}
KF2=$(tg "awk -v h=$H2 '\$1 == h { print \$2 }' /etc/scalio/allowed_hosts")

echo "== 3. a new key for host2 while it is connected"
tg "umask 077; head -c 24 /dev/urandom | base64 > /tmp/h2.new" || bad "new key file"
out=$(tg "scalioctl allow-host $S $H2 --key-file /tmp/h2.new" 2>&1) ||
	bad "allow-host with the new key: $out"
echo "$out" | grep -q "DHHC-1" && bad "allow-host printed a key: $out"
if [ "$(tg "cat $N/hosts/$H2/dhchap_key")" != "$K2" ]; then
	ok "host2's nvmet keys changed"
	WAIT_INTERVAL=1 wait_until "host2's controllers to go" gone
	ok "host2's controllers with the old keys gone ${wait_s}s after allow-host"
	sleep 3
	gone && ok "and still gone 3 s later (reconnects with the old keys refused)" ||
		bad "host2 reconnected with its old keys"
else
	bad "host2's nvmet keys did not change (nothing drops its controllers: not waited for)"
fi
h2 "for s in $SSDS; do nvme disconnect -n \$s; done" > /dev/null 2>&1
WAIT_INTERVAL=1 wait_until "host1's controllers to reconnect" host1_back
echo "# host1's SSD controllers live again ${wait_s}s after the drop"
[ "$(scalioctl get $S auth.k)" = v1 ] && ok "host1 GETs after its controllers reconnected" ||
	bad "host1 cannot GET after the drop"
[ "$(dmesg | grep -c "qid 0: authenticated\|qid 0: controller authenticated")" -gt "$na" ] &&
	ok "host1's reconnects authenticated again" || bad "host1's reconnects did not authenticate"

echo "== 4. deny-host while host2 is connected"
K2=$(tg "cat $N/hosts/$H2/dhchap_key") C2=$(tg "cat $N/hosts/$H2/dhchap_ctrl_key")
for s in $SSDS; do
	conn $s --dhchap-secret "$K2" --dhchap-ctrl-secret "$C2" ||
		bad "$s: host2 with its new keys refused"
done
tg "scalioctl deny-host $S $H2" > /dev/null || bad "deny-host"
WAIT_INTERVAL=1 wait_until "the denied host2's controllers to go" gone
ok "denied host2's controllers gone ${wait_s}s after deny-host"
sleep 3
gone && ok "and still gone 3 s later (its reconnects refused)" ||
	bad "denied host2 reconnected"
h2 "for s in $SSDS; do nvme disconnect -n \$s; done" > /dev/null 2>&1
s=$(echo "$SSDS" | head -1)
conn $s --dhchap-secret "$K2" --dhchap-ctrl-secret "$C2" &&
	bad "denied host2 connected with its keys" || ok "denied host2's new connect refused"
WAIT_INTERVAL=1 wait_until "host1's controllers to reconnect" host1_back
[ "$(scalioctl get $S auth.k)" = v1 ] && ok "host1 GETs after deny-host" ||
	bad "host1 cannot GET after deny-host"
tg "scalioctl allow-host $S $H2 --key-file $KF2" > /dev/null || bad "allow-host back"
scalioctl del $S auth.k > /dev/null
h2 "echo ${AT:-60} > /sys/module/nvme_core/parameters/admin_timeout"

[ $nfail = 0 ] || { echo "SSD-AUTH TEST FAILED: $nfail check(s)"; exit 1; }
echo "SSD-AUTH TEST PASSED"
EOF

"$top/tests/vm/run" --kver "$kver" --hosts 2 --share "$share" -- 'sh /share/ssd-auth.sh'
rc=$?
[ $rc = 0 ] || { echo "FAIL: tests/vm/run exited $rc"; exit 1; }
echo "PASS: DH-HMAC-CHAP on the SSD subsystems, both ways; key changes and deny-host drop controllers"
exit 0
