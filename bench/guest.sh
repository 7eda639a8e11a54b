#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/guest.sh: the measuring half of `make bench`, run by bench/run.sh
# in host1 of the VM test bed (tests/vm/run --no-setup), in ONE boot, so
# that every figure of a run is taken on the same bed under the same load.
#
#   1. stores, set up from here through `vmctl exec-target`:
#        kv0  on SSDs 0-1   the breakdown store
#        sc1  on SSD  2     scaling, 1 SSD   (full configuration)
#        sc2  on SSDs 3-4   scaling, 2 SSDs  (full configuration)
#        sc4  on SSDs 5-8   scaling, 4 SSDs  (full configuration)
#      all attached by this host (ports 4800..4803, nvmet port 4420).
#   2. test-bed limits: RDMA READ rate and latency (perftest over rdma_cm,
#      server in the target), 4 KiB random-read IOPS and latency of one raw
#      NVMe-oF namespace (fio, read-only).
#   3. breakdown on kv0: YCSB A B C D F per configuration, switched in this
#      boot with detach / `scalioctl target-set` / attach:
#        base     offload_read=0 inline_cache=0 batch_max=1
#        offload  offload_read=1 inline_cache=0 batch_max=1
#        cache    offload_read=1 inline_cache=1 batch_max=1
#        batch    offload_read=1 inline_cache=1 batch_max=64  (defaults)
#        locked   as batch, with the host's optimistic_miss=0 (a miss
#                 fills its slot before it answers: the path before
#                 misses answered ahead of their fill)
#        batchcap as batch, batch_timeout_us=$BENCH_CAP_TIMEOUT_US (100: the
#                 wait for company capped at the old fixed default; A, F)
#   4. scaling: YCSB C and A on sc1, sc2, sc4.
#   5. group-commit sweep on kv0 (batch configuration): one fio job of
#      $SWEEP_IOS PUTs (1 KiB, random keys) at each iodepth of $SWEEP
#      through the engine's io_uring path, store counters before/after;
#      then the same depths with batch_timeout_us=$BENCH_CAP_TIMEOUT_US
#      (as the breakdown's batchcap), and depth 1 once more with
#      batch_max=1; then $LAT1_ROUNDS alternating pairs of depth-1 jobs
#      ($LAT1_IOS PUTs), batched (defaults) / batch_max=1 (the latency
#      batching costs a lone PUT, a ratio smaller than the bed's drift).
#   6. depth: YCSB $DEPTH_WORKLOADS on kv0 (batch configuration) from ONE
#      thread with 1 and with $DEPTH operations in flight (--depth).
#   7. waits: $WAIT_KEYS fresh keys PUT, then each read twice by
#      scalioctl; host counters before and after each pass give the
#      network waits per miss (first pass) and per hit (second), and
#      those of the misses' background fills (bg_waits) apart.
#   8. misspath: GET latency from one thread at depth 1 (YCSB C,
#      uniform): misses over $MISS_RECORDS records (loaded here; the cache
#      holds a few % of them) in $MISS_ROUNDS alternating pairs with the
#      host's optimistic_miss on (the default: the miss answers before its
#      fill) and off (it fills first); hits over the first $HIT_RECORDS
#      records (all cached after a warm-up).  Host counters around each.
#
# BENCH_ONLY="limits breakdown scaling sweep depth waits misspath" (any subset) runs only those
# sections (the stores are always set up); unset: all of them.
#
# Every point: one `scalio-ycsb --run --json`, with /proc/stat of the
# target VM (through vmctl) and of this VM sampled just before and after.
# Output under /share: <group>-<cfg>-<workload>.json / .cpu, limits/*,
# config-<cfg>.txt, phases.txt ("name start end", seconds since the start),
# meta.txt.  Parameters come from the environment (bench/run.sh sets them).
set -u

RECORDS=${BENCH_RECORDS:-2000}
OPS=${BENCH_OPS:-1200}
WARM=${BENCH_WARM:-400}
THREADS=${BENCH_THREADS:-8}
NBLOCKS=${BENCH_NBLOCKS:-64}
WORKLOADS=${BENCH_WORKLOADS:-a b c d f}
CONFIGS=${BENCH_CONFIGS:-base offload cache batch locked batchcap}
CAP_WORKLOADS=${BENCH_CAP_WORKLOADS:-a f}
# The 100 us default scaled by about this bed's slowdown of an RDMA round
# trip (typical READ 1.5 ms here, 2-4 us on hardware: 400-700x).
CAP_TIMEOUT_US=${BENCH_CAP_TIMEOUT_US:-100}
SCALE=${BENCH_SCALE:-1 2 4}
SCALE_WORKLOADS=${BENCH_SCALE_WORKLOADS:-c a}
LIMIT_SECS=${BENCH_LIMIT_SECS:-6}
LAT_ITERS=${BENCH_LAT_ITERS:-300}
RDMA_SIZE=${BENCH_RDMA_SIZE:-1088}	# one hash block: 64 B + 8 x 128 B
SWEEP=${BENCH_SWEEP:-1 4 16 64 128}
SWEEP_IOS=${BENCH_SWEEP_IOS:-2000}
LAT1_ROUNDS=${BENCH_LAT1_ROUNDS:-3}
LAT1_IOS=${BENCH_LAT1_IOS:-1000}
DEPTH=${BENCH_DEPTH:-64}
DEPTH_WORKLOADS=${BENCH_DEPTH_WORKLOADS:-a c}
DEPTH_CONFIGS=${BENCH_DEPTH_CONFIGS:-base offload cache batch}
WAIT_KEYS=${BENCH_WAIT_KEYS:-64}
MISS_RECORDS=${BENCH_MISS_RECORDS:-20000}
MISS_OPS=${BENCH_MISS_OPS:-400}
MISS_ROUNDS=${BENCH_MISS_ROUNDS:-3}
HIT_RECORDS=${BENCH_HIT_RECORDS:-100}
ONLY=${BENCH_ONLY:-}
FIO_ENGINE=/scalio/tools/fio/scalio-fio.so
OPTP=/sys/module/scalio_host/parameters/optimistic_miss

A=${SCALIO_TARGET_ADDR:-10.77.0.1}
OUT=/share
T0=$(date +%s)
PHASE=
PHASE_T=0

# On a failure, soft-RoCE's own counters (retransmissions, RNR, sequence
# errors) on both ends tell a lost-packet stall from a scalio one.
rxe_counters() {
	local d=/sys/class/infiniband/rxe0/ports/1/hw_counters c
	for c in "$d"/*; do
		[ "$(cat "$c" 2>/dev/null)" = 0 ] || echo "${c##*/}=$(cat "$c")"
	done | tr '\n' ' '
}
fail() {
	echo "bench: FAIL: $*" >&2
	echo "bench: rxe counters: host: $(rxe_counters)" >&2
	echo "bench: rxe counters: target: $(vmctl exec-target "$(declare -f rxe_counters); rxe_counters" 2>&1)" >&2
	exit 1
}
want() { [ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) ;; *) false ;; esac; }
now() { echo $(($(date +%s) - T0)); }
phase() {	# phase NAME: end the current phase, start NAME ("" ends)
	local t
	t=$(now)
	[ -n "$PHASE" ] && echo "$PHASE $PHASE_T $t" >> $OUT/phases.txt
	PHASE=$1
	PHASE_T=$t
	[ -n "$1" ] && printf '\n=== [%4ss] %s\n' "$t" "$1"
	return 0
}

: > $OUT/phases.txt
{
	echo "guest_kernel $(uname -r)"
	echo "records $RECORDS"
	echo "ops $OPS"
	echo "warm $WARM"
	echo "threads $THREADS"
	echo "nblocks $NBLOCKS"
	echo "cap_timeout_us $CAP_TIMEOUT_US"
	echo "rdma_size $RDMA_SIZE"
	echo "limit_secs $LIMIT_SECS"
	echo "sweep $SWEEP"
	echo "sweep_ios $SWEEP_IOS"
	echo "lat1_rounds $LAT1_ROUNDS"
	echo "lat1_ios $LAT1_IOS"
	echo "depth $DEPTH"
	echo "depth_workloads $DEPTH_WORKLOADS"
	echo "wait_keys $WAIT_KEYS"
	echo "miss_records $MISS_RECORDS"
	echo "miss_ops $MISS_OPS"
	echo "miss_rounds $MISS_ROUNDS"
	echo "hit_records $HIT_RECORDS"
} > $OUT/meta.txt

# ---------------------------------------------------------------- setup
phase setup
NSSD=0
for n in 2 $SCALE; do NSSD=$((NSSD + n)); done
# Store NAME PORT FIRST COUNT [target-setup options]: SSDs FIRST.. of the
# target's $SCALIO_SSDS.
mkstore() {
	local name=$1 port=$2 first=$3 count=$4
	shift 4
	vmctl exec-target "set -- \$SCALIO_SSDS; shift $first;
		devs=; i=0; while [ \$i -lt $count ]; do
			devs=\"\$devs \$1\"; shift; i=\$((i + 1)); done
		scalioctl target-setup --store $name --addr $A --port $port \
			--nvme-port 4420 --nblocks $NBLOCKS --format $* \$devs" ||
		fail "target-setup $name"
	scalioctl attach $name --addr $A --port $port > $OUT/attach-$name.txt ||
		fail "attach $name"
	cat $OUT/attach-$name.txt
}
mkstore kv0 4800 0 2 --offload-read 0 --inline-cache 0 --batch-max 1
first=2
port=4801
for n in $SCALE; do
	mkstore sc$n $port $first $n
	first=$((first + n))
	port=$((port + 1))
done
[ "$first" -le "${SCALIO_NSSDS:-0}" ] ||
	fail "need $first SSDs, the bed has ${SCALIO_NSSDS:-?}"

# ---------------------------------------------------------------- limits
mkdir -p $OUT/limits
# perf NAME CMD...: perftest server in the target, client here.
perf() {
	local name=$1 try
	shift
	for try in 1 2 3; do
		vmctl exec-target "timeout 90 $* > /tmp/$name.srv 2>&1;
			cat /tmp/$name.srv" > $OUT/limits/$name.srv 2>&1 &
		sleep 3
		if timeout 90 "$@" $A > $OUT/limits/$name.txt 2>&1; then
			wait
			return 0
		fi
		# The server may still wait for us: one more client ends it.
		timeout 20 "$@" $A > /dev/null 2>&1
		wait
	done
	echo "bench: $name failed:" >&2
	cat $OUT/limits/$name.txt >&2
	return 1
}
if want limits; then
	phase "limits: RDMA READ rate (ib_read_bw, $RDMA_SIZE B, $LIMIT_SECS s)"
	perf rdma_read_bw ib_read_bw -d rxe0 -R -s $RDMA_SIZE -D $LIMIT_SECS
	grep -A1 '#bytes' $OUT/limits/rdma_read_bw.txt
	phase "limits: RDMA READ latency (ib_read_lat, $RDMA_SIZE B, $LAT_ITERS iterations)"
	perf rdma_read_lat ib_read_lat -d rxe0 -R -s $RDMA_SIZE -n $LAT_ITERS
	grep -A1 '#bytes' $OUT/limits/rdma_read_lat.txt

	dev=$(sed -n 's/^store kv0: ssd 0 = \(\/dev\/[^ ]*\).*/\1/p' $OUT/attach-kv0.txt)
	[ -b "$dev" ] || fail "no block device for kv0 ssd 0 (attach said '$dev')"
	echo "$dev" > $OUT/limits/nvmeof_dev.txt
	phase "limits: NVMe-oF 4 KiB random read, libaio iodepth 16 ($dev)"
	fio --name=nvmeof-qd16 --filename="$dev" --readonly --rw=randread --bs=4k \
		--ioengine=libaio --iodepth=16 --direct=1 --runtime=$LIMIT_SECS \
		--time_based --output-format=json > $OUT/limits/fio_qd16.json ||
		fail "fio (libaio)"
	phase "limits: NVMe-oF 4 KiB random read, psync iodepth 1 ($dev)"
	fio --name=nvmeof-qd1 --filename="$dev" --readonly --rw=randread --bs=4k \
		--ioengine=psync --direct=1 --runtime=$LIMIT_SECS \
		--time_based --output-format=json > $OUT/limits/fio_qd1.json ||
		fail "fio (psync)"
fi

# ---------------------------------------------------------------- points
# The target VM's /proc/stat is sampled by a loop in the target (started
# once: a vmctl round trip per sample would cost seconds per point).  It
# tags each sample with the current contents of $MARK, which this side
# sets before and after each point; /ctl is shared and uncached (9p).
CTLB=/ctl/bench
MARK=$CTLB/mark
TSTAT=$CTLB/tstat
mkdir -p $CTLB && : > $TSTAT && echo idle > $MARK && rm -f $CTLB/stop ||
	fail "cannot write $CTLB"
# Builtins only but sleep, so the sampler itself costs the target little.
vmctl exec-target "while [ ! -e $CTLB/stop ]; do
		read -r m < $MARK; read -r l < /proc/stat
		echo \"\$m \$l\" >> $TSTAT; sleep 0.3; done" > /dev/null 2>&1 &
SAMPLER=$!
stop_sampler() {
	touch $CTLB/stop
	wait $SAMPLER
}
trap 'touch $CTLB/stop' EXIT
# mark TAG: tag the target's samples with TAG; return once one is taken
# (within 20 s), printing it.
mark() {
	local i=0 l
	echo "$1" > $MARK
	while [ $i -lt 200 ]; do
		l=$(grep "^$1 cpu " $TSTAT | head -1)
		[ -n "$l" ] && { echo "${l#"$1" }"; return 0; }
		sleep 0.1
		i=$((i + 1))
	done
	fail "the target's /proc/stat sampler does not answer"
}

# point GROUP CFG STORE WORKLOAD OPS [YCSB OPTIONS]: one measured YCSB run
# (options after OPS override the defaults, e.g. --threads 1 --depth 64).
point() {
	local g=$1 c=$2 s=$3 w=$4 n=$5 f=$OUT/$1-$2-$4
	shift 5
	phase "$g $c: YCSB $w on $s ($n ops, $THREADS threads $*)"
	mark "s-$g-$c-$w" > $f.cpu
	head -1 /proc/stat >> $f.cpu
	scalio-ycsb --store $s --workload $w --records $RECORDS --ops $n \
		--threads $THREADS "$@" --run --quiet --json $f.json > $f.txt 2>&1
	local rc=$?
	mark "e-$g-$c-$w" >> $f.cpu
	head -1 /proc/stat >> $f.cpu
	grep -E 'throughput|READ |UPDATE|INSERT|MODIFY|hit ratio|per GET \(|per PUT|CPU per' $f.txt
	[ $rc = 0 ] || fail "scalio-ycsb $w on $s exited $rc: $(tail -3 $f.txt)"
}

# load STORE: insert the records (not measured as a point).
load() {
	phase "load $RECORDS records into $1"
	scalio-ycsb --store $1 --workload a --records $RECORDS --threads \
		$THREADS --load --quiet --json $OUT/load-$1.json > \
		$OUT/load-$1.txt 2>&1 || fail "load $1: $(tail -3 $OUT/load-$1.txt)"
	grep throughput $OUT/load-$1.txt
}

# warm STORE: an unmeasured read-only run, so each configuration's cache
# starts from the same (warm) state.
warm() {
	[ "$WARM" -gt 0 ] || return 0
	phase "warm-up: YCSB c on $1 ($WARM ops)"
	scalio-ycsb --store $1 --workload c --records $RECORDS --ops $WARM \
		--threads $THREADS --run --quiet > $OUT/warm-$1-$2.txt 2>&1 ||
		fail "warm-up on $1: $(tail -3 $OUT/warm-$1-$2.txt)"
	grep 'hit ratio' $OUT/warm-$1-$2.txt
}

# setcfg CFG: switch kv0 (detach, target-set, attach) and record it.
cur=base
setcfg() {
	local attrs
	case $1 in
	base)	attrs="offload_read=0 inline_cache=0 batch_max=1" ;;
	offload) attrs="offload_read=1 inline_cache=0 batch_max=1" ;;
	cache)	attrs="offload_read=1 inline_cache=1 batch_max=1" ;;
	batch)	attrs="offload_read=1 inline_cache=1 batch_max=64" ;;
	locked)	attrs="offload_read=1 inline_cache=1 batch_max=64" ;;
	batchcap) attrs="offload_read=1 inline_cache=1 batch_max=64 batch_timeout_us=$CAP_TIMEOUT_US" ;;
	*)	fail "unknown configuration $1" ;;
	esac
	# batch_timeout_us back to its default unless this config sets it.
	case $attrs in *batch_timeout_us*) ;; *) attrs="$attrs batch_timeout_us=100000" ;; esac
	if [ "$1" != "$cur" ]; then
		phase "switch kv0 to $1: $attrs"
		scalioctl detach kv0 > /dev/null || fail "detach kv0"
		vmctl exec-target "scalioctl target-set --store kv0 $attrs" \
			> /dev/null || fail "target-set $attrs"
		scalioctl attach kv0 --addr $A --port 4800 > /dev/null ||
			fail "attach kv0"
	fi
	cur=$1
	vmctl exec-target 'd=/sys/kernel/config/scalio/stores/kv0;
		for a in attr_offload_read attr_inline_cache attr_batch_max \
			attr_batch_timeout_us attr_nr_blocks attr_slots_per_block; do
			echo "$a $(cat $d/$a)"; done' > $OUT/config-$1.txt ||
		fail "reading kv0's attributes"
	# the host's miss path: filling first only in the locked configuration
	if [ "$1" = locked ]; then echo 0; else echo 1; fi > $OPTP ||
		fail "setting optimistic_miss"
	echo "host_optimistic_miss $(cat $OPTP)" >> $OUT/config-$1.txt
	echo "kv0: $(tr '\n' ' ' < $OUT/config-$1.txt)"
}

if want breakdown; then
	load kv0
	for c in $CONFIGS; do
		wl=$WORKLOADS
		[ "$c" = batchcap ] && wl=$CAP_WORKLOADS
		setcfg $c
		warm kv0 $c
		for w in $wl; do
			point brk $c kv0 $w $OPS
		done
	done
fi

if want scaling; then
	for n in $SCALE; do
		load sc$n
		warm sc$n scale
		for w in $SCALE_WORKLOADS; do
			point scale ${n}ssd sc$n $w $OPS
		done
	done
fi

# sweep DEPTH [NAME]: one job of SWEEP_IOS PUTs with DEPTH in flight on
# kv0 (files sweep-NAME.*, NAME defaults to DEPTH).
sweep() {
	local d=$1 f=$OUT/sweep-${2:-$1}
	phase "sweep: $SWEEP_IOS PUTs, one thread, $d in flight (kv0)"
	scalioctl stats kv0 --json > $f.before || fail "stats kv0"
	fio --name=sweep$d --ioengine=external:$FIO_ENGINE --store=kv0 \
		--filename=scalio --size=4m --bs=1k --rw=randwrite \
		--iodepth=$d --number_ios=$SWEEP_IOS --thread \
		--output-format=json > $f.json 2> $f.err ||
		fail "fio sweep at depth $d: $(tail -3 $f.err)"
	scalioctl stats kv0 --json > $f.after || fail "stats kv0"
	python3 -c "import json,sys; t=open('$f.json').read()
w=json.loads(t[t.index('{'):])['jobs'][0]['write']
print('  %.0f PUT/s, p50 %.2f ms, p99 %.2f ms' % (w['iops'],
	w['clat_ns']['percentile']['50.000000'] / 1e6,
	w['clat_ns']['percentile']['99.000000'] / 1e6))"
}
if want sweep; then
	setcfg batch
	for d in $SWEEP; do
		sweep $d
	done
	setcfg batchcap
	for d in $SWEEP; do
		sweep $d $d-cap
	done
	setcfg cache
	sweep 1 1-nobatch
	# The latency a lone PUT pays for group commit is a ratio near 1,
	# smaller than this bed's drift between two runs minutes apart: so
	# alternate batched (defaults) and batch_max=1 at depth 1,
	# $LAT1_ROUNDS rounds, and compare the pairs.
	for r in $(seq 1 $LAT1_ROUNDS); do
		setcfg batch
		SWEEP_IOS=$LAT1_IOS sweep 1 lat1-batch-$r
		setcfg cache
		SWEEP_IOS=$LAT1_IOS sweep 1 lat1-nobatch-$r
	done
fi

# The breakdown again with one thread keeping 1 and DEPTH operations in
# flight (io_uring), per configuration: which steps pay off once a client
# no longer waits for each operation in turn.
if want depth; then
	want breakdown || load kv0
	for c in $DEPTH_CONFIGS; do
		setcfg $c
		warm kv0 depth-$c
		for w in $DEPTH_WORKLOADS; do
			point depth $c.d1 kv0 $w $OPS --threads 1 --depth 1
			point depth $c.d$DEPTH kv0 $w $OPS --threads 1 --depth $DEPTH
		done
	done
fi

# hstats FILE: this host's counters for kv0 (JSON).
hstats() { scalioctl stats kv0 --json --host-only > $OUT/$1 || fail "stats kv0"; }
if want waits; then
	setcfg batch
	phase "waits: $WAIT_KEYS fresh keys, PUT, then GET twice each"
	i=0
	while [ $i -lt $WAIT_KEYS ]; do
		scalioctl put kv0 "bench-wait-$i" "v$i" > /dev/null ||
			fail "put bench-wait-$i"
		i=$((i + 1))
	done
	for pass in 0 1; do
		hstats waits-$pass.before
		i=0
		while [ $i -lt $WAIT_KEYS ]; do
			[ "$(scalioctl get kv0 "bench-wait-$i")" = "v$i" ] ||
				fail "get bench-wait-$i: wrong value"
			i=$((i + 1))
		done
		hstats waits-$pass.after
		# the misses' background fills are over before the hits
		while [ "$(sed -n 's/.*"bg_fills": \([0-9]*\).*/\1/p' $OUT/waits-$pass.after)" != \
			"$(sed -n 's/.*"bg_queued": \([0-9]*\).*/\1/p' $OUT/waits-$pass.after)" ]; do
			sleep 0.5
			hstats waits-$pass.after
		done
	done
fi

if want misspath; then
	setcfg batch
	phase "misspath: load $MISS_RECORDS records into kv0"
	scalio-ycsb --store kv0 --workload a --records $MISS_RECORDS \
		--threads $THREADS --load --quiet > $OUT/load-miss.txt 2>&1 ||
		fail "load $MISS_RECORDS records: $(tail -3 $OUT/load-miss.txt)"
	r=1
	while [ $r -le $MISS_ROUNDS ]; do
		for o in 1 0; do
			echo $o > $OPTP || fail "optimistic_miss=$o"
			hstats miss-o$o.r$r.before
			# a seed of its own: keys the other point of the pair
			# has not just cached
			point miss o$o.r$r kv0 c $MISS_OPS --threads 1 \
				--records $MISS_RECORDS --distribution uniform \
				--seed $((2 * r + o))
			hstats miss-o$o.r$r.after
		done
		r=$((r + 1))
	done
	echo 1 > $OPTP || fail "optimistic_miss=1"
	phase "misspath: warm-up of $HIT_RECORDS records"
	scalio-ycsb --store kv0 --workload c --records $HIT_RECORDS --ops 400 \
		--threads 1 --distribution uniform --run --quiet \
		> $OUT/warm-hit.txt 2>&1 || fail "warm-up: $(tail -3 $OUT/warm-hit.txt)"
	hstats miss-hit.before
	point miss hit kv0 c $MISS_OPS --threads 1 --records $HIT_RECORDS \
		--distribution uniform
	hstats miss-hit.after
fi
stop_sampler
cp $TSTAT $OUT/target-stat.txt
phase ""
echo
echo "bench: all points done in $(now) s"
