#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/demo.sh: the body of `make demo`, the first thing to run.
#
#   tests/demo.sh [--kver 6.1|6.12] [--records N] [--ops N] [--workload W]
#                 [--threads N] [other tests/vm/run options]
#
# Boots the VM test bed (a target VM with two emulated NVMe SSDs exported
# over soft-RoCE, one host VM; store kv0 set up and attached), then in the
# host: one PUT and GET by hand, loads N records (default 2000) with
# scalio-ycsb, runs a short YCSB mix (workload B, 95 % reads / 5 % updates,
# Zipfian, 1500 ops: about 20 s on this bed) and prints its table and the
# store's counters.  About 2-3 minutes on 2 cores (QEMU TCG, no KVM).
# Everything is real: kernel modules, RDMA (soft-RoCE), NVMe-oF, SSD writes.
# Numbers are ~1000x below hardware; `make bench` measures properly.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
records=2000
ops=1500
workload=b
threads=8
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--records) records=${2:?}; shift ;;
	--ops) ops=${2:?}; shift ;;
	--workload) workload=${2:?}; shift ;;
	--threads) threads=${2:?}; shift ;;
	-h|--help) sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) args+=("$1") ;;
	esac
	shift
done
case $workload in a|b|c|d|f) ;; *)
	echo "demo: --workload must be one of a b c d f" >&2; exit 2 ;;
esac
for v in "$records" "$ops" "$threads"; do
	case $v in ''|*[!0-9]*) echo "demo: '$v' is not a number" >&2; exit 2 ;; esac
done

bold= dim= off=
if [ -t 1 ]; then
	bold=$(printf '\033[1m') dim=$(printf '\033[2m') off=$(printf '\033[0m')
fi
cat << EOF
${bold}scalio demo${off}: a key-value store for JBOF storage servers, for real,
in two QEMU VMs on this machine:

    host VM 10.77.0.2                      target VM 10.77.0.1 (the JBOF)
    scalio-host.ko  --- soft-RoCE ---->    scalio-target.ko: hash index in DRAM
    scalioctl, scalio-ycsb  (RDMA + RPC)   nvmet-rdma: 2 emulated NVMe SSDs
                    --- NVMe-oF over RDMA (offloaded reads) --->

${dim}Booting takes about a minute (no KVM here: QEMU emulates every instruction).
Progress lines "vm[..]" come from tests/vm/run.${off}
EOF

t0=$(date +%s)
# The guest side (POSIX sh, in host1, cwd /share), written to the share
# dir so that the runner's "running on host1" line stays short.
# $1..$4: records, ops, workload, threads.
share=$(mktemp -d "${TMPDIR:-/tmp}/scalio-demo.XXXXXX")
trap 'rm -rf "$share"' EXIT
cat > "$share/demo.sh" << 'GUEST'
set -e
R=$1 N=$2 W=$3 T=$4
b=$(printf "\033[1m") o=$(printf "\033[0m")
[ -t 1 ] || { b=; o=; }
step() { printf "\n%s==> %s%s\n" "$b" "$*" "$o"; }
run() { echo "\$ $*"; "$@"; }

step "1. One pair by hand: PUT then GET through /dev/scalio/kv0"
run scalioctl put kv0 hello world
run scalioctl get kv0 hello

step "2. Load $R records (16 B keys, 64 B values; batched PUTs)"
scalio-ycsb --workload $W --records $R --threads $T --load --quiet \
	--json /share/load.json | sed -n "/^\[load\]/,\$p" |
	grep -E "^\[load\]|operations|throughput|INSERT|^  op |SSD writes|target CPU"

step "3. YCSB workload $W: $N ops, $T threads, Zipfian 0.99"
echo "   (every GET checks its value; counters are measured deltas)"
scalio-ycsb --workload $W --records $R --ops $N --threads $T --run \
	--json /share/run.json

step "4. The store as the host sees it (scalioctl stats kv0)"
scalioctl stats kv0
GUEST
rc=0
"$top/tests/vm/run" --share "$share" "${args[@]}" -- \
	"sh /share/demo.sh $records $ops $workload $threads" || rc=$?
echo
if [ $rc != 0 ]; then
	echo "${bold}demo FAILED${off} (tests/vm/run exit $rc: see its messages above" \
	     "and the logs it names)"
	exit $rc
fi
echo "${bold}demo done in $(($(date +%s) - t0)) s${off}: modules unloaded, kernel logs clean."
cat << EOF
How to read it:
  throughput / latency   of this emulated bed: ~1000x below hardware
  cache hit ratio        GETs answered from the target's DRAM slots by one RDMA READ
  offloaded SSD reads    misses read from the SSD over NVMe-oF, no target CPU
  SSD writes per PUT     < 1 when PUTs are group-committed (batched)
  target CPU per op      scalio's own CPU time on the target per operation
Next: ${bold}make bench${off} (breakdown and scaling, ~15 min; Documentation/benchmarks.rst)
EOF
