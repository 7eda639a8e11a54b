# SPDX-License-Identifier: GPL-2.0
# bench/lib.sh: what the benchmarks' host sides share (sourced by
# bench/run.sh, bench/wa.sh and bench/buckets.sh; needs $top and $kver).

# bench_machine_meta: the machine's lines of a host-meta.txt (when, where,
# which commit), for a report to print next to its figures.
bench_machine_meta() {
	echo "date $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "kver $kver"
	echo "machine_kernel $(uname -sr)"
	echo "machine_cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "machine_cores $(nproc)"
	echo "machine_mem_gb $(awk '/MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)"
	echo "machine_load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "qemu $(qemu-system-x86_64 --version | head -1)"
	echo "commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$top" status --porcelain 2>/dev/null | grep -q . && echo ' (with uncommitted changes)')"
}

# bench_vm_run NAME RAW OUT SSDS TIMEOUT CMD: one boot of the bed (one
# host, no store set up) running CMD in the host, its output teed to
# OUT/guest.log and OUT/runner.log; appends the wall time and the end
# load to RAW/host-meta.txt and sets BENCH_WALL (seconds).  Returns 1,
# saying so, when tests/vm/run failed.
bench_vm_run() {
	local name=$1 raw=$2 out=$3 ssds=$4 timeout=$5 cmd=$6 t0 t1 rc

	t0=$(date +%s)
	"$top/tests/vm/run" --kver "$kver" --ssds "$ssds" --hosts 1 --no-setup \
		--share "$raw" --timeout "$timeout" -- "$cmd" \
		> >(tee "$out/guest.log") 2> >(tee "$out/runner.log" >&2)
	rc=$?
	t1=$(date +%s)
	wait
	BENCH_WALL=$((t1 - t0))
	echo "wall $BENCH_WALL" >> "$raw/host-meta.txt"
	echo "machine_load_end $(cut -d' ' -f1-3 /proc/loadavg)" >> "$raw/host-meta.txt"
	if [ $rc != 0 ]; then
		echo "$name: FAILED: tests/vm/run exited $rc (logs: $out/runner.log," \
		     "$out/guest.log)" >&2
		return 1
	fi
}

# bench_env_vars PREFIX: the environment's PREFIX* variables as NAME='value'
# words (the caller's settings, handed on to the guest script).
bench_env_vars() {
	local v vars=

	for v in $(compgen -e | grep "^$1"); do
		vars="$vars $v='${!v}'"
	done
	echo "$vars"
}

# bench_report NAME REPORT_PY RAW OUTFILE: turn RAW into the report OUTFILE
# and print it, with the time the VMs took (bench_vm_run's BENCH_WALL).
bench_report() {
	python3 "$2" "$3" > "$4" || {
		echo "$1: FAILED: $(basename "$2")" >&2
		return 1
	}
	cat "$4"
	echo "$1: report $4 ($BENCH_WALL s in the VMs)"
}
