#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/buckets-guest.sh: the part of `make bench-buckets` (bench/buckets.sh)
# that runs in host1 of one test-bed boot (tests/vm/run --no-setup --ssds 1).
#
# What decoupling the DRAM cache blocks from the on-SSD key buckets buys
# (DRAM per key) and costs (write amplification, SSD reads per GET miss,
# cache hit ratio, throughput), issue 36, all on this tree's modules in this
# one boot.  For each geometry NBxNBK in $BK_GEOMS (NB cache blocks, NBK
# buckets) and each value size in $BK_SIZES:
#
#   1. a fresh store `bk` on the target's one SSD (scalioctl target-setup
#      --format --nblocks NB --nbuckets NBK, other attributes at their
#      defaults), attached by this host;
#   2. load: $BK_KEYS keys written once (fio, scalio engine, io_uring,
#      iodepth 64, sequential keys; binary_keys=1: 8-byte keys);
#   3. update: $BK_UPDATES PUTs at random keys of the loaded ones (fio
#      randwrite, number_ios, one job, 64 in flight);
#   4. get: $BK_GETS GETs at random keys of the loaded ones (fio randread,
#      norandommap=1: uniform keys with repeats, so the cache can hit;
#      missing_key_error=1: every GET must find its key; one job, 64 in
#      flight);
#   5. detach, target-teardown.
#
# Each phase takes the store's counters (scalioctl stats --json: this
# host's and the target's) before and after, and this VM's block-layer
# read counters of its NVMe(-oF) devices (/sys/block/nvme*/stat: the
# offloaded GET misses' SSD reads, in sectors).
#
# Output under /share: meta.txt, modules.txt and per point
# nb<NB>-nbk<NBK>-v<SIZE>-<phase>.{before,after,json,err,blk-before,blk-after}
# (phase: load, upd, get), nb<NB>-nbk<NBK>-v<SIZE>-{setup,attrs,attach}.txt.
# bench/buckets-report.py turns them into the table.
set -u

GEOMS=${BK_GEOMS:-4096x4096 64x4096 64x64 16x4096}
SIZES=${BK_SIZES:-64 1024}
KEYS=${BK_KEYS:-4000}
UPDATES=${BK_UPDATES:-2000}
GETS=${BK_GETS:-4000}
DEPTH=64
FIO_ENGINE=/scalio/tools/fio/scalio-fio.so
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
S=bk
OUT=/share
T0=$(date +%s)

fail() { echo "bench-buckets: FAIL: $*" >&2; exit 1; }
step() { printf '\n=== [%4ss] %s\n' $(($(date +%s) - T0)) "$*"; }
T() { vmctl exec-target "$@"; }

for g in $GEOMS; do
	case $g in
	[0-9]*x[0-9]*) ;;
	*) fail "geometry '$g' is not NBxNBK (cache blocks x buckets)" ;;
	esac
done

{
	echo "guest_kernel $(uname -r)"
	echo "geoms $GEOMS"
	echo "sizes $SIZES"
	echo "keys $KEYS"
	echo "updates $UPDATES"
	echo "gets $GETS"
	echo "depth $DEPTH"
	echo "ssds $SCALIO_NSSDS"
} > $OUT/meta.txt

{
	echo "dir $SCALIO_KO_DIR"
	md5sum "$SCALIO_KO_DIR"/scalio-target.ko "$SCALIO_KO_DIR"/scalio-host.ko
} > $OUT/modules.txt 2>&1

stats() { scalioctl stats $S --json > "$1" || fail "stats $S"; }

# blkstat FILE: "dev read_ios read_sectors" of this VM's NVMe disks.
blkstat() {
	local s
	: > "$1"
	for s in /sys/block/nvme*/stat; do
		[ -e "$s" ] || continue
		s=${s%/stat}
		echo "${s##*/} $(awk '{ print $1, $3 }' $s/stat)" >> "$1"
	done
}

# fio_phase FILE RW IOS VSIZE: one fio job on store bk, 64 in flight.
# Writes: fio's random map (each key at most once, as bench-wa); reads:
# none (keys drawn with repeats).
fio_phase() {
	local f=$1 rw=$2 n=$3 bs=$4 nomap=0
	[ "$rw" = randread ] && nomap=1
	stats $f.before
	blkstat $f.blk-before
	fio --name=bk --ioengine=external:$FIO_ENGINE --store=$S \
		--binary_keys=1 --missing_key_error=1 --filename=scalio \
		--size=$((KEYS * bs)) --bs=$bs --rw=$rw --iodepth=$DEPTH \
		--number_ios=$n --loops=$(((n + KEYS - 1) / KEYS)) \
		--norandommap=$nomap --thread \
		--output-format=json > $f.json 2> $f.err ||
		fail "fio $rw (${f##*/}): $(tail -3 $f.err)"
	blkstat $f.blk-after
	stats $f.after
	python3 -c "import json; t=open('$f.json').read()
j=json.loads(t[t.index('{'):])['jobs'][0]
b=json.load(open('$f.before')); a=json.load(open('$f.after'))
t=lambda k: a['target_' + k] - b['target_' + k]
h=lambda k: a[k] - b[k]
if '$rw'.endswith('read'):
	r=j['read']; m=h('cache_misses')
	print('  %d GETs (fio %d, err %d), %.0f GET/s, hits %d, misses %d, host SSD reads %d, target GETs %d' % (
		h('gets'), r['total_ios'], j['error'], r['iops'], h('cache_hits'), m,
		h('ssd_reads'), t('rpc_gets')))
else:
	w=j['write']; p=max(t('rpc_puts'), 1)
	print('  %d PUTs (fio %d, err %d), %.0f PUT/s, %.0f SSD bytes/PUT, WA %.2f, keys %d, index_bytes %d' % (
		t('rpc_puts'), w['total_ios'], j['error'], w['iops'],
		t('ssd_write_bytes') / p, t('ssd_write_bytes') / (p * (8 + $bs)),
		a['target_keys'], a['target_index_bytes']))"
}

for g in $GEOMS; do
	nb=${g%x*} nbk=${g#*x}
	for sz in $SIZES; do
		p=$OUT/nb$nb-nbk$nbk-v$sz
		step "$nb blocks x $nbk buckets, $sz B values: format"
		T "scalioctl target-setup --store $S --addr $A --port 4800 \
			--nvme-port 4420 --nblocks $nb --nbuckets $nbk \
			--format \${SCALIO_SSDS%% *}" > $p-setup.txt 2>&1 ||
			fail "target-setup ($nb x $nbk): $(cat $p-setup.txt)"
		T "d=/sys/kernel/config/scalio/stores/$S; for a in \$d/attr_*; do
			echo \"\${a##*/} \$(cat \$a)\"; done" > $p-attrs.txt 2>&1
		scalioctl attach $S --addr $A --port 4800 > $p-attach.txt 2>&1 ||
			fail "attach ($nb x $nbk): $(cat $p-attach.txt)"
		step "nb$nb nbk$nbk v$sz: load $KEYS keys, $DEPTH in flight"
		fio_phase $p-load write $KEYS $sz
		step "nb$nb nbk$nbk v$sz: $UPDATES updates at random keys, $DEPTH in flight"
		fio_phase $p-upd randwrite $UPDATES $sz
		step "nb$nb nbk$nbk v$sz: $GETS GETs at random keys, $DEPTH in flight"
		fio_phase $p-get randread $GETS $sz
		scalioctl detach $S > /dev/null || fail "detach ($nb x $nbk)"
		T "scalioctl target-teardown --store $S" > /dev/null ||
			fail "target-teardown ($nb x $nbk)"
	done
done
step "done"
