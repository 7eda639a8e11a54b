#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/vsep-guest.sh: the part of `make bench-vsep` (bench/vsep.sh) that
# runs in host1 of one test-bed boot (tests/vm/run --no-setup, one SSD per
# inline max measured).
#
# What key-value separation (on-SSD format 5) buys and costs, per value
# size and store attribute attr_value_inline_max, to choose its default.
# For each geometry NBxNBK in $VS_GEOMS and each value size in $VS_SIZES:
#
#   1. one freshly formatted store per inline max of $VS_MAXES (the first
#      one, 4096 = never separate, is the reference), all alive at once:
#      store vs<i> on the target's i-th SSD, scalio port 4800+i,
#      `target-setup --format --nblocks NB --nbuckets NBK --inline-cache 0
#      --value-inline-max MAX`, other attributes at their defaults; all
#      attached by this host.  The inline cache is off so that every GET
#      is a miss (values of up to 72 bytes would otherwise hit, extents
#      of them too);
#   2. fill: $VS_KEYS keys written once into each store (fio, scalio
#      engine, io_uring, 64 in flight, sequential keys; binary_keys=1:
#      8-byte keys), one store after the other;
#   3. update: $VS_UPDATES PUTs at random keys of the loaded ones into
#      each store (fio randwrite: each key at most once, 64 in flight);
#   4. get: $VS_ROUNDS rounds; in each, every store in turn (the order
#      rotated by one store each round) serves $VS_GETS GETs at random
#      loaded keys (fio randread, norandommap: uniform with repeats;
#      missing_key_error=1) from one fio job with ONE GET in flight, so
#      fio's completion latencies are the misses' own; the stores
#      alternate within minutes of each other, and a round's latencies
#      are compared inside the round;
#   5. detach, target-teardown of every store.
#
# Each phase takes its store's counters (scalioctl stats --json: this
# host's and the target's) before and after, and this VM's block-layer
# read counters of its NVMe(-oF) disks (/sys/block/nvme*/stat: the
# offloaded misses' reads, in sectors; only the phase's store is busy).
#
# Output under /share: meta.txt, modules.txt, ssds.txt and per point
# g<NB>x<NBK>-v<SIZE>-m<MAX>-<phase>.{before,after,json,err,blk-before,blk-after}
# (phase: load, upd, get<ROUND>), g<NB>x<NBK>-v<SIZE>-m<MAX>-{setup,attrs,attach}.txt
# and g<NB>x<NBK>-v<SIZE>-order.txt (the rounds' store orders).
# bench/vsep-report.py turns them into the tables.
set -u

GEOMS=${VS_GEOMS:-64x64 64x2048}
SIZES=${VS_SIZES:-64 256 1024 4096}
MAXES=${VS_MAXES:-4096 128 0}
KEYS=${VS_KEYS:-2000}
UPDATES=${VS_UPDATES:-2000}
ROUNDS=${VS_ROUNDS:-6}
GETS=${VS_GETS:-200}
DEPTH=64
FIO_ENGINE=/scalio/tools/fio/scalio-fio.so
A=${SCALIO_TARGET_ADDR:-10.77.0.1}
OUT=/share
T0=$(date +%s)

fail() { echo "bench-vsep: FAIL: $*" >&2; exit 1; }
step() { printf '\n=== [%4ss] %s\n' $(($(date +%s) - T0)) "$*"; }
T() { vmctl exec-target "$@"; }

for g in $GEOMS; do
	case $g in
	[0-9]*x[0-9]*) ;;
	*) fail "geometry '$g' is not NBxNBK (cache blocks x buckets)" ;;
	esac
done
# shellcheck disable=SC2086
set -- $MAXES
NST=$#
[ "$1" = 4096 ] || fail "the first of VS_MAXES ('$MAXES') must be 4096 (never separate: the reference)"
# shellcheck disable=SC2086
SSDS=($(T 'echo $SCALIO_SSDS'))
[ ${#SSDS[@]} -ge "$NST" ] ||
	fail "${#SSDS[@]} SSDs in the target for $NST inline maxes ($MAXES)"

{
	echo "guest_kernel $(uname -r)"
	echo "geoms $GEOMS"
	echo "sizes $SIZES"
	echo "maxes $MAXES"
	echo "keys $KEYS"
	echo "updates $UPDATES"
	echo "rounds $ROUNDS"
	echo "gets $GETS"
	echo "depth $DEPTH"
	echo "ssds ${SSDS[*]}"
} > $OUT/meta.txt

{
	echo "dir $SCALIO_KO_DIR"
	md5sum "$SCALIO_KO_DIR"/scalio-target.ko "$SCALIO_KO_DIR"/scalio-host.ko
} > $OUT/modules.txt 2>&1

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

# fio_phase STORE FILE RW IOS VSIZE DEPTH: one fio job on STORE.  Writes:
# fio's random map (each key at most once); reads: none (keys drawn with
# repeats).
fio_phase() {
	local st=$1 f=$2 rw=$3 n=$4 bs=$5 depth=$6 nomap=0
	[ "$rw" = randread ] && nomap=1
	scalioctl stats $st --json > $f.before || fail "stats $st"
	blkstat $f.blk-before
	fio --name=vs --ioengine=external:$FIO_ENGINE --store=$st \
		--binary_keys=1 --missing_key_error=1 --filename=scalio \
		--size=$((KEYS * bs)) --bs=$bs --rw=$rw --iodepth=$depth \
		--number_ios=$n --loops=$(((n + KEYS - 1) / KEYS)) \
		--norandommap=$nomap --percentile_list=50:90:99 --thread \
		--output-format=json > $f.json 2> $f.err ||
		fail "fio $rw (${f##*/}): $(tail -3 $f.err)"
	blkstat $f.blk-after
	scalioctl stats $st --json > $f.after || fail "stats $st"
	python3 -c "import json; t=open('$f.json').read()
j=json.loads(t[t.index('{'):])['jobs'][0]
b=json.load(open('$f.before')); a=json.load(open('$f.after'))
t=lambda k: a['target_' + k] - b['target_' + k]
h=lambda k: a[k] - b[k]
if '$rw'.endswith('read'):
	r=j['read']; g=max(h('gets'), 1)
	print('  %s: %d GETs (fio %d, err %d), hits %d, SSD reads/GET %.2f (extents %.2f), p50 %.0f us' % (
		'$st', h('gets'), r['total_ios'], j['error'], h('cache_hits'),
		h('ssd_reads') / g, h('get_val_reads') / g,
		r['clat_ns']['percentile']['50.000000'] / 1000))
else:
	w=j['write']; p=max(t('rpc_puts'), 1)
	print('  %s: %d PUTs (fio %d, err %d), WA %.2f, extents %d, keys %d, index_bytes %d' % (
		'$st', t('rpc_puts'), w['total_ios'], j['error'],
		t('ssd_write_bytes') / (p * (8 + $bs)), t('vals_written'),
		a['target_keys'], a['target_index_bytes']))"
}

for g in $GEOMS; do
	nb=${g%x*} nbk=${g#*x}
	for sz in $SIZES; do
		pg=$OUT/g${nb}x$nbk-v$sz
		i=0
		for m in $MAXES; do
			p=$pg-m$m
			step "$nb x $nbk, $sz B values: store vs$i, value_inline_max $m, on ${SSDS[$i]}"
			T "scalioctl target-setup --store vs$i --addr $A \
				--port $((4800 + i)) --nvme-port 4420 --nblocks $nb \
				--nbuckets $nbk --inline-cache 0 \
				--value-inline-max $m --format ${SSDS[$i]}" \
				> $p-setup.txt 2>&1 ||
				fail "target-setup vs$i: $(cat $p-setup.txt)"
			T "d=/sys/kernel/config/scalio/stores/vs$i; for a in \$d/attr_*; do
				echo \"\${a##*/} \$(cat \$a)\"; done" > $p-attrs.txt 2>&1
			grep -qx "attr_value_inline_max $m" $p-attrs.txt ||
				fail "vs$i: attr_value_inline_max is not $m: $(cat $p-attrs.txt)"
			scalioctl attach vs$i --addr $A --port $((4800 + i)) \
				> $p-attach.txt 2>&1 ||
				fail "attach vs$i: $(cat $p-attach.txt)"
			i=$((i + 1))
		done
		i=0
		for m in $MAXES; do
			step "$nb x $nbk, $sz B, max $m: fill $KEYS keys, update $UPDATES, $DEPTH in flight"
			fio_phase vs$i $pg-m$m-load write $KEYS $sz $DEPTH
			fio_phase vs$i $pg-m$m-upd randwrite $UPDATES $sz $DEPTH
			i=$((i + 1))
		done
		: > $pg-order.txt
		for r in $(seq 1 $ROUNDS); do
			order=
			for k in $(seq 0 $((NST - 1))); do
				order="$order $(((k + r - 1) % NST))"
			done
			echo "$r$order" >> $pg-order.txt
			step "$nb x $nbk, $sz B: GET round $r of $ROUNDS, stores$order, $GETS GETs each, 1 in flight"
			for i in $order; do
				# shellcheck disable=SC2086
				m=$(set -- $MAXES; shift $i; echo $1)
				fio_phase vs$i $pg-m$m-get$r randread $GETS $sz 1
			done
		done
		for i in $(seq 0 $((NST - 1))); do
			scalioctl detach vs$i > /dev/null || fail "detach vs$i"
			T "scalioctl target-teardown --store vs$i" > /dev/null ||
				fail "target-teardown vs$i"
		done
	done
done
step "done"
