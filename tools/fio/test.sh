#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs the engine inside the installed fio against mock_scalio.so (the
# LD_PRELOAD stand-in for /dev/scalio/<store> and its io_uring commands,
# from tools/ycsb): checks that fio accepts the engine's ABI, that written
# blocks verify on read-back (also at iodepth 32, with completions out of
# order, and with uring=0),
# that reads of never-written keys succeed as zeroes (or fail with ENOENT
# with missing_key_error=1), and that bs > 4096 is refused at init.
# Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mock=$here/../ycsb/mock_scalio.so
eng=$here/scalio-fio.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
n=0
fail=0

if ! command -v fio > /dev/null; then
	echo "1..0 # SKIP fio is not installed"
	exit 0
fi
[ -f "$mock" ] || make -C "$here/../ycsb" mock_scalio.so > /dev/null

tap() {	# tap COND NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2"; sed 's/^/# /' "$tmp/out" | tail -25
		fail=$((fail + 1)); fi
}

runfio() {
	LD_PRELOAD=$mock fio --output-format=normal "$@" > "$tmp/out" 2>&1
}

# Write 1 MiB of 4 KiB blocks with crc32c verify, read back in one job.
runfio --name=w --ioengine=external:"$eng" --store=kv0 --filename=scalio \
	--size=1m --bs=4k --rw=randwrite --verify=crc32c --do_verify=1 --thread
rc=$?
tap $(( rc != 0 )) "randwrite + crc32c verify through PUT/GET (fio exit $rc)"
grep -q "issued rwts: total=256,256," "$tmp/out"
tap $? "all 256 blocks were read back for verification"
MOCK_SCALIO_CORRUPT=50 runfio --name=w --ioengine=external:"$eng" \
	--filename=scalio --size=1m --bs=4k --rw=randwrite --verify=crc32c \
	--do_verify=1 --thread
rc=$?
tap $(( rc == 0 )) "a corrupted GET fails fio's verification (fio exit $rc)"

# iodepth through io_uring (the mock completes each batch in reverse
# order), and the synchronous ioctl path (uring=0).
runfio --name=w --ioengine=external:"$eng" --filename=scalio --size=1m \
	--bs=4k --rw=randwrite --verify=crc32c --do_verify=1 --thread \
	--iodepth=32 --iodepth_batch_submit=8
rc=$?
tap $(( rc != 0 )) "iodepth=32: randwrite + verify, completions out of order (fio exit $rc)"
grep -q "issued rwts: total=256,256," "$tmp/out" &&
	grep -Eq "IO depths.* 32=[1-9]" "$tmp/out"
tap $? "iodepth=32: all 256 blocks read back, depth 32 reached"
runfio --name=w --ioengine=external:"$eng" --uring=0 --filename=scalio \
	--size=256k --bs=4k --rw=randwrite --verify=crc32c --do_verify=1 --thread
rc=$?
tap $(( rc != 0 )) "uring=0: synchronous ioctls, randwrite + verify (fio exit $rc)"

# Reads of never-written keys on a fresh store: zeroes, counted.
runfio --name=r --ioengine=external:"$eng" --filename=scalio --size=256k \
	--bs=4k --rw=read --thread
rc=$?
tap $(( rc != 0 )) "reads on a fresh store succeed (fio exit $rc)"
grep -q "64 reads of never-written keys returned zeroes" "$tmp/out"
tap $? "the 64 never-written reads are reported"

# missing_key_error=1: a read of a never-written key fails with ENOENT (an
# error fio can be told to count and go on: continue_on_error, ignore_error);
# the written ones still read and verify.
runfio --name=r --ioengine=external:"$eng" --missing_key_error=1 \
	--filename=scalio --size=256k --bs=4k --rw=read --thread
rc=$?
grep -q "err= *2" "$tmp/out"
tap $(( rc == 0 || $? != 0 )) "missing_key_error=1: a read of a never-written key fails with ENOENT (fio exit $rc)"
runfio --name=r --ioengine=external:"$eng" --missing_key_error=1 \
	--continue_on_error=read --ignore_error=ENOENT --filename=scalio \
	--size=256k --bs=4k --rw=read --thread
grep -q "64 reads of never-written keys failed (missing_key_error=1)" "$tmp/out"
tap $? "missing_key_error=1, ENOENT ignored: all 64 failed reads are counted"
runfio --name=w --ioengine=external:"$eng" --missing_key_error=1 \
	--filename=scalio --size=256k --bs=4k --rw=write --verify=crc32c \
	--do_verify=1 --thread
rc=$?
tap $(( rc != 0 )) "missing_key_error=1: written keys read back and verify (fio exit $rc)"

# Binary keys, 1 KiB mixed workload with several threads.
runfio --name=m --ioengine=external:"$eng" --binary_keys=1 \
	--filename=scalio --size=1m --bs=1k --rw=randrw --numjobs=3 --thread \
	--number_ios=500 --group_reporting
rc=$?
tap $(( rc != 0 )) "randrw, binary keys, 3 threads (fio exit $rc)"

# Trim -> DELETE.
runfio --name=t --ioengine=external:"$eng" --filename=scalio --size=64k \
	--bs=4k --rw=trim --thread
rc=$?
tap $(( rc != 0 )) "trim maps to DELETE (fio exit $rc)"

# Refusals.
runfio --name=big --ioengine=external:"$eng" --filename=scalio --size=1m \
	--bs=8k --rw=read --thread
rc=$?
grep -q "block size 8192 > 4096" "$tmp/out"
tap $(( rc == 0 || $? != 0 )) "bs=8k is refused at init with a clear error"
runfio --name=nodev --ioengine=external:"$eng" --store=nope/x \
	--filename=scalio --size=1m --bs=4k --rw=read --thread
rc=$?
grep -q "bad store name" "$tmp/out"
tap $(( rc == 0 || $? != 0 )) "a bad store name is refused"
fio --name=nomock --ioengine=external:"$eng" --store=absent \
	--filename=scalio --size=64k --bs=4k --rw=read --thread > "$tmp/out" 2>&1
rc=$?
grep -q "/dev/scalio/absent" "$tmp/out"
tap $(( rc == 0 || $? != 0 )) "a missing store device is reported with its path"

echo "1..$n"
[ $fail -eq 0 ] || echo "# $fail of $n tests failed"
[ $fail -eq 0 ]
