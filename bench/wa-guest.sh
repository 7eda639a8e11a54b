#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/wa-guest.sh: the part of `make bench-wa` (bench/wa.sh) that runs in
# host1 of one test-bed boot (tests/vm/run --no-setup --ssds 1).
#
# Write amplification of on-SSD format 2 against format 3 (issue 36), all
# in this one boot.  For each module version in $WA_VERSIONS (v2: the
# modules bench/wa.sh built from the last format-2 commit, copied to
# /share/ko-v2; v3: the modules this run loaded, $SCALIO_KO_DIR) both
# modules are reloaded (host: rmmod/insmod scalio-host; target: rmmod/insmod
# scalio-target: format 3 also changed the protocol's major version), then
# for each geometry in $WA_NBLOCKS and each value size in $WA_SIZES:
#
#   1. a fresh store `wa` on the target's one SSD
#      (scalioctl target-setup --format --nblocks NB, other attributes at
#      their defaults: batch_max 64, inline cache and offloaded reads on),
#      attached by this host; the superblock's format version is read back
#      from the SSD (od of unit 0) and must be the version under test;
#   2. load: $WA_KEYS keys written once (fio, scalio engine, io_uring,
#      iodepth 64, sequential keys; binary_keys=1: 8-byte keys);
#   3. for each depth of $WA_DEPTHS: $WA_UPDATES PUTs at random keys of the
#      loaded ones (fio rw=randwrite, number_ios, one job, io_uring, that
#      iodepth: the PUTs in flight from one thread), the store's counters
#      (scalioctl stats --json) taken before and after;
#   4. detach, target-teardown.
#
# Output under /share: meta.txt, modules-<ver>.txt, and per point
# <ver>-nb<NB>-v<SIZE>-<phase>.{before,after,json,err} (phase: load, d<D>),
# <ver>-nb<NB>-v<SIZE>-sb.txt (superblock words), attrs-<...>.txt.
# bench/wa-report.py turns them into the table.
set -u

VERSIONS=${WA_VERSIONS:-v2 v3}
NBLOCKS=${WA_NBLOCKS:-4096 64}
SIZES=${WA_SIZES:-64 1024 4096}
KEYS=${WA_KEYS:-2000}
UPDATES=${WA_UPDATES:-2000}
DEPTHS=${WA_DEPTHS:-64 1}
LOAD_DEPTH=64
FIO_ENGINE=/scalio/tools/fio/scalio-fio.so
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
S=wa
OUT=/share
KOV2=/ctl/wa-ko-v2	# the target cannot see /share: the v2 modules go here
T0=$(date +%s)

fail() { echo "bench-wa: FAIL: $*" >&2; exit 1; }
step() { printf '\n=== [%4ss] %s\n' $(($(date +%s) - T0)) "$*"; }
T() { vmctl exec-target "$@"; }

{
	echo "guest_kernel $(uname -r)"
	echo "versions $VERSIONS"
	echo "nblocks $NBLOCKS"
	echo "sizes $SIZES"
	echo "keys $KEYS"
	echo "updates $UPDATES"
	echo "depths $DEPTHS"
	echo "load_depth $LOAD_DEPTH"
	echo "ssds $SCALIO_NSSDS"
} > $OUT/meta.txt

[ -f /share/ko-v2/scalio-target.ko ] && [ -f /share/ko-v2/scalio-host.ko ] ||
	fail "no format-2 modules in /share/ko-v2"
mkdir -p $KOV2 && cp /share/ko-v2/*.ko $KOV2/ || fail "cannot copy to $KOV2"

kodir() { case $1 in v2) echo $KOV2 ;; v3) echo "$SCALIO_KO_DIR" ;; esac; }

# load_version VER: both modules of VER in place of whatever is loaded.
load_version() {
	local d
	d=$(kodir "$1")
	[ -n "$d" ] || fail "unknown version $1"
	step "load the $1 modules ($d) on both VMs"
	[ -z "$(ls /dev/scalio/ 2> /dev/null)" ] || fail "a store is still attached"
	if grep -q '^scalio_host ' /proc/modules; then
		rmmod scalio_host || fail "rmmod scalio_host"
	fi
	T "set -e
		if grep -q '^scalio_target ' /proc/modules; then rmmod scalio_target; fi
		insmod $d/scalio-target.ko \$SCALIO_TARGET_PARAMS
		modinfo -F srcversion $d/scalio-target.ko" > /tmp/tgt.txt 2>&1 ||
		fail "reloading scalio-target ($1): $(cat /tmp/tgt.txt)"
	insmod "$d/scalio-host.ko" || fail "insmod scalio-host ($1)"
	local i=0
	while [ ! -c /dev/scalio-ctl ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -c /dev/scalio-ctl ] || fail "no /dev/scalio-ctl after loading $1"
	{
		echo "dir $d"
		echo "target_srcversion $(cat /tmp/tgt.txt)"
		echo "host_srcversion $(modinfo -F srcversion "$d/scalio-host.ko")"
		md5sum "$d"/scalio-target.ko "$d"/scalio-host.ko
	} > $OUT/modules-$1.txt
	cat $OUT/modules-$1.txt
}

stats() { scalioctl stats $S --json > "$1" || fail "stats $S"; }

# fio_put FILE DEPTH RW IOS VSIZE: one fio job of PUTs on store wa.
fio_put() {
	local f=$1 d=$2 rw=$3 n=$4 bs=$5
	stats $f.before
	fio --name=wa --ioengine=external:$FIO_ENGINE --store=$S \
		--binary_keys=1 --filename=scalio --size=$((KEYS * bs)) \
		--bs=$bs --rw=$rw --iodepth=$d --number_ios=$n --thread \
		--output-format=json > $f.json 2> $f.err ||
		fail "fio $rw depth $d (${f##*/}): $(tail -3 $f.err)"
	stats $f.after
	python3 -c "import json; t=open('$f.json').read()
j=json.loads(t[t.index('{'):])['jobs'][0]; w=j['write']
b=json.load(open('$f.before')); a=json.load(open('$f.after'))
d=lambda k: a['target_' + k] - b['target_' + k]
p=max(d('rpc_puts'), 1)
print('  %d PUTs (fio %d, err %d), %.0f PUT/s, %.3f SSD writes/PUT, %.2f PUTs/batch, %.0f SSD bytes/PUT, WA %.2f' % (
	d('rpc_puts'), w['total_ios'], j['error'], w['iops'], d('ssd_writes') / p,
	d('batched_ops') / max(d('batches'), 1), d('ssd_write_bytes') / p,
	d('ssd_write_bytes') / (p * (8 + $bs))))"
}

for v in $VERSIONS; do
	load_version $v
	for nb in $NBLOCKS; do
		for sz in $SIZES; do
			p=$OUT/$v-nb$nb-v$sz
			step "$v: store of $nb blocks, $sz B values: format"
			T "scalioctl target-setup --store $S --addr $A --port 4800 \
				--nvme-port 4420 --nblocks $nb --format \${SCALIO_SSDS%% *}" \
				> $p-setup.txt 2>&1 ||
				fail "target-setup ($v, $nb blocks): $(cat $p-setup.txt)"
			# Superblock: magic (8 B) then the format version (le32).
			T "dd if=\${SCALIO_SSDS%% *} bs=4096 count=1 iflag=direct 2>/dev/null |
				od -A d -t u4 -N 16" > $p-sb.txt 2>&1 ||
				fail "reading the superblock: $(cat $p-sb.txt)"
			ver=$(awk 'NR == 1 { print $4 }' $p-sb.txt)
			[ "$ver" = "${v#v}" ] ||
				fail "$v wrote a superblock of format version '$ver'"
			echo "  superblock format version $ver"
			T "d=/sys/kernel/config/scalio/stores/$S; for a in \$d/attr_*; do
				echo \"\${a##*/} \$(cat \$a)\"; done" > $p-attrs.txt 2>&1
			scalioctl attach $S --addr $A --port 4800 > $p-attach.txt 2>&1 ||
				fail "attach ($v, $nb blocks): $(cat $p-attach.txt)"
			step "$v nb$nb v$sz: load $KEYS keys, $LOAD_DEPTH in flight"
			fio_put $p-load $LOAD_DEPTH write $KEYS $sz
			for d in $DEPTHS; do
				step "$v nb$nb v$sz: $UPDATES updates at random keys, $d in flight"
				fio_put $p-d$d $d randwrite $UPDATES $sz
			done
			scalioctl detach $S > /dev/null || fail "detach ($v)"
			T "scalioctl target-teardown --store $S" > /dev/null ||
				fail "target-teardown ($v)"
		done
	done
done
# Leave the run's own modules loaded for the bed's teardown.
case " $VERSIONS " in *" v3 ") ;; *) load_version v3 ;; esac
step "done"
