#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py RAWDIR OUTDIR: results.md, breakdown.png, scaling.png, sweep.png.

Reads what bench/guest.sh left in RAWDIR (scalio-ycsb --json files, /proc/stat
samples of both VMs, perftest and fio outputs, phase times) and what
bench/run.sh saved beside it (runner.log, host-meta.txt).  Every number in
the report is measured in that one run; ratios are taken between points of
the same run.  Documentation/benchmarks.rst explains the columns.
"""
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CFG_ORDER = ["base", "offload", "cache", "batch", "locked", "batchcap"]
CFG_LABEL = {
    "base": "baseline",
    "offload": "+ offloaded read",
    "cache": "+ inline cache",
    "batch": "+ batched write",
    "locked": "+ batched write, misses fill first",
    "batchcap": "+ batched write, wait capped at 100 us",
}
CFG_DESC = {
    "base": "offload_read=0 inline_cache=0 batch_max=1: every GET and PUT "
            "is an RPC served by the target CPU (LEED-like)",
    "offload": "offload_read=1: a GET reads the block's `seg` word by RDMA "
               "and the segment from the SSD over NVMe-oF, no target CPU",
    "cache": "inline_cache=1: hash-block slots cache values; a hit is one "
             "RDMA READ, a miss fills the slot (CAS protocol)",
    "batch": "batch_max=64 (defaults): self-clocked group commit, waits "
             "for announced company bounded by the SSD's write time",
    "locked": "as batched write, with the host's optimistic_miss=0: a "
              "miss fills its slot before it answers (4 waits), instead of "
              "answering after its seg-first read and filling in the "
              "background",
    "batchcap": "batch_max=64 with batch_timeout_us=100 (see meta): the "
                "wait for company capped at the old fixed default, only "
                "for write-heavy workloads",
}
WRITE_OPS = ["UPDATE", "INSERT", "READ-MODIFY-WRITE"]


def kv_file(path):
    d = {}
    if os.path.exists(path):
        for line in open(path):
            k, _, v = line.rstrip("\n").partition(" ")
            if k:
                d[k] = v
    return d


def cpu_busy(lines):
    """(busy ticks, total ticks) between two 'cpu ...' lines of /proc/stat."""
    a = [int(x) for x in lines[0].split()[1:]]
    b = [int(x) for x in lines[1].split()[1:]]
    d = [y - x for x, y in zip(a, b)]
    idle = d[3] + d[4]
    busy = d[0] + d[1] + d[2] + d[5] + d[6] + (d[7] if len(d) > 7 else 0)
    return busy, busy + idle


def load_point(raw, name):
    path = os.path.join(raw, name + ".json")
    if not os.path.exists(path):
        return None
    j = json.load(open(path))
    r = j["phases"]["run"]
    p = {"ops": r["ops"], "secs": r["seconds"], "errors": r["errors"],
         "thr": r["throughput_ops_per_s"], "hit": r.get("cache_hit_ratio"),
         "rd_get": r.get("ssd_reads_per_get"),
         "hrd_get": r.get("host_ssd_reads_per_get"),
         "trd_get": r.get("target_ssd_reads_per_get"),
         "wr_put": r.get("ssd_writes_per_put"),
         "cpu_us": (r["target_cpu_ns_per_op"] / 1e3
                    if r.get("target_cpu_ns_per_op") is not None else None),
         "h": r.get("host_delta", {}), "t": r.get("target_delta", {}),
         "lat": r["latency_us"]}
    lat = r["latency_us"]
    p["rlat"] = lat.get("READ")
    p["wlat"] = next((lat[k] for k in WRITE_OPS if k in lat), None)
    p["wname"] = next((k for k in WRITE_OPS if k in lat), None)
    t = p["t"]
    p["per_batch"] = (t["batched_ops"] / t["batches"]
                      if t.get("batches") else None)
    h = p["h"]
    p["rdma_per_op"] = ((h.get("rdma_reads", 0) + h.get("rdma_cas", 0))
                        / p["ops"] if p["ops"] and h else None)
    cpu = os.path.join(raw, name + ".cpu")
    p["tvm"] = p["hvm"] = p["tvm_ms_op"] = p["sirq_us"] = None
    if os.path.exists(cpu):
        lines = [x for x in open(cpu) if x.startswith("cpu ")]
        if len(lines) == 4:
            tb, tt = cpu_busy([lines[0], lines[2]])
            # softirq (field 7 of the cpu line): rxe and the network stack
            sa = int(lines[0].split()[7])
            sb = int(lines[2].split()[7])
            p["sirq_us"] = ((sb - sa) * 10e3 / p["ops"]
                            if p["ops"] else None)
            hb, ht = cpu_busy([lines[1], lines[3]])
            p["tvm"] = tb / tt if tt else None
            p["hvm"] = hb / ht if ht else None
            # USER_HZ = 100: a tick is 10 ms.
            p["tvm_ms_op"] = tb * 10.0 / p["ops"] if p["ops"] else None
    return p


def perftest(path, lat):
    """Parse the result line under '#bytes' of ib_read_bw / ib_read_lat."""
    if not os.path.exists(path):
        return None
    lines = open(path).read().splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("#bytes") and i + 1 < len(lines):
            f = lines[i + 1].split()
            try:
                if lat:
                    return {"size": int(f[0]), "iters": int(f[1]),
                            "min": float(f[2]), "typical": float(f[4]),
                            "avg": float(f[5]), "p99": float(f[7])}
                return {"size": int(f[0]), "iters": int(f[1]),
                        "mbs": float(f[3]), "rate": float(f[4]) * 1e6}
            except (IndexError, ValueError):
                return None
    return None


def fio(path):
    if not os.path.exists(path):
        return None
    try:
        txt = open(path).read()
        j = json.loads(txt[txt.index("{"):])
        r = j["jobs"][0]["read"]
        cl = r.get("clat_ns", {})
        pct = cl.get("percentile", {})
        return {"iops": r["iops"], "p50": pct.get("50.000000", 0) / 1e3,
                "p99": pct.get("99.000000", 0) / 1e3,
                "mean": cl.get("mean", 0) / 1e3}
    except (ValueError, KeyError, IndexError):
        return None


def json_after_notes(path):
    """A JSON object from a file that may start with other text."""
    txt = open(path).read()
    return json.loads(txt[txt.index("{"):])


def load_sweep(raw, name, depth=None):
    """One point of the group-commit sweep (files sweep-NAME.*), or None."""
    base = os.path.join(raw, "sweep-%s" % name)
    try:
        w = json_after_notes(base + ".json")["jobs"][0]["write"]
        b = json_after_notes(base + ".before")
        a = json_after_notes(base + ".after")
    except (OSError, ValueError, KeyError, IndexError):
        return None
    d = lambda k: a.get(k, 0) - b.get(k, 0)
    pct = w.get("clat_ns", {}).get("percentile", {})
    puts = d("puts")
    return {"depth": int(depth if depth is not None else name),
            "ios": w["total_ios"], "puts": puts,
            "iops": w["iops"],
            "p50": pct.get("50.000000", 0) / 1e6,
            "p99": pct.get("99.000000", 0) / 1e6,
            "wr_put": (d("target_ssd_writes") / puts) if puts else None,
            "per_batch": (d("target_batched_ops") / d("target_batches")
                          if d("target_batches") else None),
            # wall ms per batch the commit threads spent writing / waiting
            "write_ms": (d("target_commit_write_ns") / d("target_batches")
                         / 1e6 if d("target_batches") else None),
            "wait_ms": (d("target_commit_wait_ns") / d("target_batches")
                        / 1e6 if d("target_batches") else None)}


def sweep_row(p, ref):
    """A sweep table row; the ops/s ratio is against @ref (or blank)."""
    return "| %d | %.1f | %s | %.2f | %.2f | %s | %s | %s | %s | %s |" % (
        p["depth"], p["iops"],
        f(p["iops"] / ref["iops"], "{:.2f}x") if ref and ref["iops"] else "",
        p["p50"], p["p99"], f(p["wr_put"], "{:.3f}"),
        f(p["per_batch"], "{:.1f}"), f(p.get("write_ms"), "{:.2f}"),
        f(p.get("wait_ms"), "{:.2f}"),
        "yes" if p["ios"] == p["puts"] else
        "NO (%d vs %d)" % (p["ios"], p["puts"]))


def f(v, fmt="{:.0f}", none="n/a"):
    return none if v is None else fmt.format(v)


def ms(lat, key):
    return None if not lat else lat[key] / 1e3


def pct(v):
    return f(None if v is None else v * 100, "{:.0f} %")


def runner_times(path):
    """Build, boot and teardown times from tests/vm/run's progress lines."""
    t = {}
    if not os.path.exists(path):
        return t
    for line in open(path):
        m = re.match(r"vm\[\s*(\d+)s\]: (.*)", line)
        if not m:
            continue
        s, msg = int(m.group(1)), m.group(2)
        if msg.startswith("building modules"):
            t.setdefault("build_start", s)
        elif msg.startswith("booting"):
            t.setdefault("boot_start", s)
        elif msg.startswith("setup done"):
            t["cmd_start"] = s
        elif msg.startswith("CMD exited"):
            t["cmd_end"] = s
        elif msg.startswith("teardown done"):
            t["teardown_end"] = s
        elif msg.startswith("PASS") or msg.startswith("FAIL"):
            t["end"] = s
    return t


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report.py RAWDIR OUTDIR")
    raw, out = sys.argv[1], sys.argv[2]
    hm = kv_file(os.path.join(raw, "host-meta.txt"))
    gm = kv_file(os.path.join(raw, "meta.txt"))
    bw = perftest(os.path.join(raw, "limits", "rdma_read_bw.txt"), False)
    lat = perftest(os.path.join(raw, "limits", "rdma_read_lat.txt"), True)
    qd16 = fio(os.path.join(raw, "limits", "fio_qd16.json"))
    qd1 = fio(os.path.join(raw, "limits", "fio_qd1.json"))
    iops_lim = qd16["iops"] if qd16 else None
    rdma_lim = bw["rate"] if bw else None

    brk = {}
    wls = []
    for c in CFG_ORDER:
        for w in "abcdf":
            p = load_point(raw, "brk-%s-%s" % (c, w))
            if p:
                brk[(c, w)] = p
                if w not in wls:
                    wls.append(w)
    wls.sort()
    cfgs = [c for c in CFG_ORDER if any((c, w) in brk for w in wls)]
    scale = {}
    for fn in sorted(os.listdir(raw)):
        m = re.match(r"scale-(\d+)ssd-([a-z])\.json$", fn)
        if m:
            scale[(int(m.group(1)), m.group(2))] = load_point(raw, fn[:-5])
    sn = sorted({n for n, _ in scale})
    sw = sorted({w for _, w in scale})

    L = []
    quick = hm.get("quick") == "1"
    L.append("# scalio benchmark results%s" % (" (QUICK smoke run: not "
             "meaningful)" if quick else ""))
    L.append("")
    L.append("Produced by `make bench` (`bench/run.sh`, "
             "Documentation/benchmarks.rst) on %s." % hm.get("date", "?"))
    L.append("")
    L.append("| | |")
    L.append("| --- | --- |")
    L.append("| build machine | %s, %s cores, %s GB RAM, %s; load average "
             "at start %s, at end %s |" % (hm.get("machine_cpu", "?"),
                                hm.get("machine_cores", "?"),
                                hm.get("machine_mem_gb", "?"),
                                hm.get("machine_kernel", "?"),
                                hm.get("machine_load", "?"),
                                hm.get("machine_load_end", "?")))
    L.append("| VM kernel | %s (target and host VM, 1 vCPU and 1 GiB "
             "each) |" % gm.get("guest_kernel", "?"))
    L.append("| emulator | %s, TCG (no KVM) |" % hm.get("qemu", "?"))
    L.append("| source | commit %s |" % hm.get("commit", "?"))
    L.append("| workload | %s records, key 16 B, value 64 B, Zipfian 0.99 "
             "(D: latest), %s client threads in one host VM, %s ops per "
             "point after a %s-op read warm-up per configuration |"
             % (gm.get("records"), gm.get("threads"), gm.get("ops"),
                gm.get("warm")))
    nb = int(gm.get("nblocks", "0") or 0)
    L.append("| store | %s hash blocks x 8 slots = %d cache slots (%.0f %% "
             "of the records); breakdown store on 2 SSDs |"
             % (nb, nb * 8, 100.0 * nb * 8 / max(1, int(gm.get("records", 1)))))
    L.append("")
    L.append("**What this bed is.** Both machines are QEMU VMs under TCG "
             "(binary translation, no KVM) sharing a 2-core build machine; "
             "RDMA is soft-RoCE (`rdma_rxe`), i.e. the RDMA NIC is kernel "
             "code running on the emulated CPUs; the SSDs are QEMU's "
             "emulated NVMe devices exported by stock `nvmet-rdma` (no "
             "NVMe-oF target offload: every \"offloaded\" read is served "
             "by the target VM's CPU in nvmet and rxe). Everything runs "
             "about three orders of magnitude slower than hardware, and the "
             "cost model is different: an RDMA round trip or an NVMe-oF "
             "I/O costs CPU on both VMs instead of being free NIC work. "
             "Read the ratios between rows of one run, never the absolute "
             "numbers, and see \"What the numbers can and cannot say\" in "
             "Documentation/benchmarks.rst.")
    L.append("")

    # ---------------------------------------------------------- limits
    L.append("## Test-bed limits (same boot)")
    L.append("")
    L.append("| measurement | result |")
    L.append("| --- | --- |")
    if bw:
        L.append("| RDMA READ rate, %d B, 1 QP, host VM <- target VM "
                 "(ib_read_bw -R) | %.0f ops/s (%.2f MB/s) |"
                 % (bw["size"], bw["rate"], bw["mbs"]))
    else:
        L.append("| RDMA READ rate (ib_read_bw) | failed |")
    if lat:
        L.append("| RDMA READ latency, %d B (ib_read_lat -R, %d iters) | "
                 "typical %.0f us, avg %.0f us, p99 %.0f us |"
                 % (lat["size"], lat["iters"], lat["typical"], lat["avg"],
                    lat["p99"]))
    else:
        L.append("| RDMA READ latency (ib_read_lat) | failed |")
    if qd16:
        L.append("| NVMe-oF 4 KiB random read, raw namespace, libaio "
                 "iodepth 16 (fio) | %.0f IOPS (p50 %.1f ms, p99 %.1f ms) |"
                 % (qd16["iops"], qd16["p50"] / 1e3, qd16["p99"] / 1e3))
    if qd1:
        L.append("| NVMe-oF 4 KiB random read, psync iodepth 1 (fio) | "
                 "%.0f IOPS (p50 %.1f ms, p99 %.1f ms) |"
                 % (qd1["iops"], qd1["p50"] / 1e3, qd1["p99"] / 1e3))
    L.append("")
    L.append("\"% NVMe-oF\" below is a point's throughput divided by the "
             "iodepth-16 IOPS above (what one host gets from one raw "
             "namespace); \"% RDMA rd\" divides by the RDMA READ rate.")
    L.append("")

    # ---------------------------------------------------------- summary
    if brk:
        L.append("## Breakdown: throughput relative to the baseline")
        L.append("")
        L.append("Workload columns: ops/s of the configuration divided by "
                 "ops/s of the baseline in the same run (paper, figure 13: "
                 "offloaded read 1.5-3.2x, inline cache 3.6x / 6.7x / 2.7x "
                 "on B / C / D, batched write up to 1.96x).")
        L.append("")
        L.append("| configuration | " + " | ".join(
            "YCSB " + w.upper() for w in wls) + " |")
        L.append("| --- |" + " ---: |" * len(wls))
        for c in cfgs:
            row = []
            for w in wls:
                p, b = brk.get((c, w)), brk.get(("base", w))
                row.append(f(p["thr"] / b["thr"], "{:.2f}x")
                           if p and b and b["thr"] else "")
            L.append("| %s | %s |" % (CFG_LABEL[c], " | ".join(row)))
        L.append("")
        L.append("Configurations (store `kv0`, switched in the same boot "
                 "with `scalioctl target-set`, then detach/attach):")
        L.append("")
        for c in cfgs:
            extra = ""
            cf = kv_file(os.path.join(raw, "config-%s.txt" % c))
            if cf:
                extra = " (read back: " + ", ".join(
                    "%s=%s" % (k.replace("attr_", ""), v)
                    for k, v in cf.items()
                    if k in ("attr_offload_read", "attr_inline_cache",
                             "attr_batch_max", "attr_batch_timeout_us",
                             "host_optimistic_miss")) + ")"
            L.append("- **%s**: %s%s" % (CFG_LABEL[c], CFG_DESC[c], extra))
        L.append("")

        L.append("## Breakdown per workload")
        L.append("")
        L.append("Latencies in ms (p50 / p99); \"write\" is UPDATE (A, B), "
                 "INSERT (D) or READ-MODIFY-WRITE (F). SSD reads per GET = "
                 "offloaded NVMe-oF reads by the host + reads by the target "
                 "(the target's also include the segment reads of its write "
                 "path). Target CPU = scalio's own accounted CPU per op "
                 "(`cpu_ns_commit + cpu_ns_rpc + cpu_ns_cleaner`); target "
                 "VM = whole target VM busy (nvmet, rxe, scalio) from "
                 "/proc/stat.")
        L.append("")
        hdr = ("| config | ops/s | x base | % NVMe-oF | % RDMA rd | read "
               "p50 / p99 | write p50 / p99 | hit ratio | SSD rd/GET "
               "(host+tgt) | SSD wr/PUT | ops/batch | target CPU us/op "
               "(x base) | RDMA ops/op | target VM busy, ms/op | host VM "
               "busy |")
        for w in wls:
            b = brk.get(("base", w))
            L.append("### YCSB %s" % w.upper())
            L.append("")
            L.append(hdr)
            L.append("| --- |" + " ---: |" * 14)
            for c in cfgs:
                p = brk.get((c, w))
                if not p:
                    continue
                xb = (f(p["thr"] / b["thr"], "{:.2f}x")
                      if b and b["thr"] else "")
                cx = ""
                if (b and b["cpu_us"] and p["cpu_us"] is not None):
                    cx = " (%.2fx)" % (p["cpu_us"] / b["cpu_us"])
                rd = "n/a"
                if p["hrd_get"] is not None:
                    rd = "%.2f (%.2f+%s)" % (
                        p["rd_get"] if p["rd_get"] is not None
                        else p["hrd_get"], p["hrd_get"],
                        f(p["trd_get"], "{:.2f}"))
                L.append("| %s | %.1f | %s | %s | %s | %s / %s | %s | %s | "
                         "%s | %s | %s | %s%s | %s | %s, %s | %s |" % (
                             CFG_LABEL[c], p["thr"], xb,
                             pct(p["thr"] / iops_lim if iops_lim else None),
                             pct(p["thr"] / rdma_lim if rdma_lim else None),
                             f(ms(p["rlat"], "p50"), "{:.1f}"),
                             f(ms(p["rlat"], "p99"), "{:.0f}"),
                             ("%s / %s" % (f(ms(p["wlat"], "p50"), "{:.1f}"),
                                           f(ms(p["wlat"], "p99"), "{:.0f}"))
                              if p["wlat"] else "-"),
                             pct(p["hit"]), rd,
                             f(p["wr_put"], "{:.2f}"),
                             f(p["per_batch"], "{:.2f}"),
                             f(p["cpu_us"], "{:.1f}"), cx,
                             f(p["rdma_per_op"], "{:.2f}"),
                             pct(p["tvm"]), f(p["tvm_ms_op"], "{:.1f}"),
                             pct(p["hvm"])))
            L.append("")

    # ---------------------------------------------------------- scaling
    if scale:
        L.append("## Scaling over SSDs (full configuration)")
        L.append("")
        L.append("Separate stores of 1, 2 and 4 SSDs in the same boot "
                 "(`sc1`, `sc2`, `sc4`; defaults: offload_read=1, "
                 "inline_cache=1, batch_max=64), each freshly loaded and "
                 "warmed up the same way.")
        L.append("")
        L.append("| workload | SSDs | ops/s | x 1 SSD | % NVMe-oF | read p50 "
                 "/ p99 | hit ratio | SSD rd/GET (host+tgt) | SSD wr/PUT | "
                 "ops/batch | target CPU us/op | target VM busy | host VM "
                 "busy |")
        L.append("| --- | ---: |" + " ---: |" * 11)
        for w in sw:
            one = scale.get((sn[0], w))
            for n in sn:
                p = scale.get((n, w))
                if not p:
                    continue
                L.append("| %s | %d | %.1f | %s | %s | %s / %s | %s | "
                         "%s (%s+%s) | %s | %s | %s | %s | %s |" % (
                             "YCSB " + w.upper(), n, p["thr"],
                             f(p["thr"] / one["thr"], "{:.2f}x")
                             if one and one["thr"] else "",
                             pct(p["thr"] / iops_lim if iops_lim else None),
                             f(ms(p["rlat"], "p50"), "{:.1f}"),
                             f(ms(p["rlat"], "p99"), "{:.0f}"),
                             pct(p["hit"]), f(p["rd_get"], "{:.2f}"),
                             f(p["hrd_get"], "{:.2f}"),
                             f(p["trd_get"], "{:.2f}"),
                             f(p["wr_put"], "{:.2f}"),
                             f(p["per_batch"], "{:.2f}"),
                             f(p["cpu_us"], "{:.1f}"), pct(p["tvm"]),
                             pct(p["hvm"])))
        L.append("")

    # ---------------------------------------------------------- sweep
    sweep = [p for p in (load_sweep(raw, x)
                         for x in gm.get("sweep", "").split()) if p]
    if sweep:
        one = next((p for p in sweep if p["depth"] == 1), None)
        L.append("## Group commit: PUTs in flight from one thread")
        L.append("")
        L.append("Store `kv0` in the batch configuration (batch_max=64, "
                 "the defaults: self-clocked group commit, a batch waits "
                 "for announced company at most 4 of the SSD's measured "
                 "write times); one fio job (the scalio engine, "
                 "io_uring) of %s PUTs of 1 KiB at random keys per depth. "
                 "SSD writes per PUT, PUTs per batch and the commit "
                 "threads' write and wait time per batch are target counter "
                 "deltas; latency is fio's completion latency." %
                 gm.get("sweep_ios", "?"))
        L.append("")
        L.append("| PUTs in flight | PUT/s | x depth 1 | p50 ms | p99 ms | "
                 "SSD wr/PUT | PUTs/batch | write ms/batch | wait ms/batch | "
                 "fio PUTs = store PUTs |")
        L.append("| ---: |" + " ---: |" * 8 + " --- |")
        for p in sweep:
            L.append(sweep_row(p, one))
        L.append("")

    nb = load_sweep(raw, "1-nobatch", 1)
    one = next((p for p in sweep if p["depth"] == 1), None)
    d64 = next((p for p in sweep if p["depth"] == 64), None)
    if nb and one:
        L.append("Depth 1 with `batch_max=1` (no group commit) in the same "
                 "boot: %.1f PUT/s, p50 %.2f ms, p99 %.2f ms; batched / "
                 "unbatched p50 latency at depth 1: **%.2fx**."
                 % (nb["iops"], nb["p50"], nb["p99"],
                    one["p50"] / nb["p50"] if nb["p50"] else 0))
        L.append("")

    # The same store with the wait for company capped at the old fixed
    # default (batch_timeout_us = meta cap_timeout_us, 100): about what
    # the store did before the commit became self-clocked.
    cap = [p for p in (load_sweep(raw, "%s-cap" % x, int(x))
                       for x in gm.get("sweep", "").split()) if p]
    t64 = next((p for p in cap if p["depth"] == 64), None)
    t1 = next((p for p in cap if p["depth"] == 1), None)
    if cap:
        L.append("The same jobs with `batch_timeout_us=%s`, same boot: the "
                 "wait for company capped at the old fixed default, sized "
                 "for a hardware SSD (so about what group commit did before "
                 "it followed the SSD's write time). Each PUT tells the "
                 "target how many writes its host has outstanding to that "
                 "SSD (the inflight hint, Documentation/protocol.rst), and "
                 "the commit thread waits only for announced company: "
                 "depth 1 never waits. \"x depth 1\" is against depth 1 "
                 "in this table, \"x default\" against the same depth "
                 "above:" % gm.get("cap_timeout_us", "?"))
        L.append("")
        L.append("| PUTs in flight | PUT/s | x depth 1 | x default | "
                 "p50 ms | p99 ms | SSD wr/PUT | PUTs/batch | "
                 "write ms/batch | wait ms/batch | fio PUTs = store PUTs |")
        L.append("| ---: |" + " ---: |" * 9 + " --- |")
        for p in cap:
            row = sweep_row(p, t1).split(" | ")
            q = next((q for q in sweep if q["depth"] == p["depth"]), None)
            row.insert(3, "%.2fx" % (p["iops"] / q["iops"])
                       if q and q["iops"] else "")
            L.append(" | ".join(row))
        L.append("")
        if nb and t1 and nb["p50"]:
            L.append("Depth 1 in this table against `batch_max=1`: p50 "
                     "latency **%.2fx**, PUT/s %.2fx."
                     % (t1["p50"] / nb["p50"],
                        t1["iops"] / nb["iops"] if nb["iops"] else 0))
            L.append("")

    # Alternating depth-1 pairs: batched (defaults), then batch_max=1
    # (files sweep-lat1-{batch,nobatch}-R.*).
    pairs = []
    for r in range(1, int(gm.get("lat1_rounds", "0") or 0) + 1):
        b = load_sweep(raw, "lat1-batch-%d" % r, 1)
        u = load_sweep(raw, "lat1-nobatch-%d" % r, 1)
        if b and u and u["p50"]:
            pairs.append((b, u, b["p50"] / u["p50"]))
    lat1 = sorted(x[2] for x in pairs)[len(pairs) // 2] if pairs else None
    if pairs:
        L.append("A lone PUT's price for group commit, depth 1 in %d "
                 "alternating pairs of %s PUTs (batched with the "
                 "defaults, then `batch_max=1`, so the bed's drift between "
                 "runs minutes apart does not decide the ratio):"
                 % (len(pairs), gm.get("lat1_ios", "?")))
        L.append("")
        L.append("| pair | batched PUT/s | p50 ms | batch_max=1 PUT/s | "
                 "p50 ms | p50 batched / batch_max=1 | batched SSD wr/PUT |")
        L.append("| ---: |" + " ---: |" * 6)
        for i, (b, u, r) in enumerate(pairs, 1):
            L.append("| %d | %.1f | %.2f | %.1f | %.2f | %.2fx | %s |"
                     % (i, b["iops"], b["p50"], u["iops"], u["p50"], r,
                        f(b["wr_put"], "{:.3f}")))
        L.append("")
        L.append("Median ratio: **%.2fx**." % lat1)
        L.append("")

    # ---------------------------------------------------------- depth
    # depth-CONFIG.dN-W.json (older runs: depth-dN-W.json, batch only)
    dep = {}
    for fn in sorted(os.listdir(raw)):
        m = re.match(r"depth-(?:([a-z]+)\.)?d(\d+)-([a-z])\.json$", fn)
        if m:
            dep[(m.group(1) or "batch", int(m.group(2)), m.group(3))] = \
                load_point(raw, fn[:-5])
    if dep:
        order = [c for c in CFG_ORDER if c in {c for c, _, _ in dep}]
        order += sorted({c for c, _, _ in dep} - set(order))
        L.append("## One thread, operations in flight (YCSB --depth)")
        L.append("")
        L.append("Store `kv0`, each configuration of the breakdown (switched "
                 "and warmed up the same way); one YCSB thread keeping 1 or "
                 "N operations in flight through io_uring. \"x depth 1\" "
                 "compares with the same configuration at depth 1, \"x "
                 "base\" with the baseline at the same depth.")
        L.append("")
        L.append("| workload | configuration | in flight | ops/s | x depth 1 "
                 "| x base | read p50 / p99 ms | write p50 / p99 ms | hit "
                 "ratio | SSD wr/PUT | ops/batch | waits/op |")
        L.append("| --- | --- | ---: |" + " ---: |" * 9)
        for w in sorted({w for _, _, w in dep}):
            for d in sorted({d for _, d, x in dep if x == w}):
                for c in order:
                    p = dep.get((c, d, w))
                    if not p:
                        continue
                    d1p = dep.get((c, 1, w))
                    base = dep.get(("base", d, w))
                    L.append("| YCSB %s | %s | %d | %.1f | %s | %s | %s / %s "
                             "| %s / %s | %s | %s | %s | %s |" % (
                                 w.upper(), CFG_LABEL.get(c, c), d,
                                 p["thr"],
                                 f(p["thr"] / d1p["thr"], "{:.2f}x")
                                 if d1p and d1p["thr"] else "",
                                 f(p["thr"] / base["thr"], "{:.2f}x")
                                 if base and base["thr"] else "",
                                 f(ms(p["rlat"], "p50"), "{:.1f}"),
                                 f(ms(p["rlat"], "p99"), "{:.0f}"),
                                 f(ms(p["wlat"], "p50"), "{:.1f}"),
                                 f(ms(p["wlat"], "p99"), "{:.0f}"),
                                 pct(p["hit"]), f(p["wr_put"], "{:.2f}"),
                                 f(p["per_batch"], "{:.2f}"),
                                 f(p["h"].get("waits", 0) / p["ops"]
                                   if p["ops"] and "waits" in p["h"]
                                   else None, "{:.2f}")))
        L.append("")

    # ---------------------------------------------------------- CPU
    if brk:
        L.append("## Target CPU per operation, three ways")
        L.append("")
        L.append("Per point of the breakdown: scalio's own CPU (its "
                 "counters: commit and cleaner kthreads, RPC handlers), the "
                 "target VM's softirq time (rxe, i.e. the RDMA NIC in "
                 "software, and the network stack) and the rest of the "
                 "target VM's busy time (nvmet, the block layer, NVMe "
                 "emulation, everything else), from /proc/stat samples "
                 "taken around each point. A real RDMA NIC takes the "
                 "softirq share off the CPU; NVMe-oF target offload takes "
                 "most of the rest for offloaded reads.")
        L.append("")
        L.append("| configuration | workload | total us/op | scalio | "
                 "softirq (rxe, net) | rest (nvmet, block, ...) |")
        L.append("| --- | --- | ---: | ---: | ---: | ---: |")
        for c in cfgs:
            for w in wls:
                p = brk.get((c, w))
                if not p or p["tvm_ms_op"] is None:
                    continue
                tot = p["tvm_ms_op"] * 1e3
                sc = p["cpu_us"] or 0
                sq = p["sirq_us"] or 0
                rest = max(tot - sc - sq, 0)
                L.append("| %s | YCSB %s | %.0f | %.0f (%s) | %.0f (%s) | "
                         "%.0f (%s) |" % (
                             CFG_LABEL[c], w.upper(), tot, sc,
                             pct(sc / tot if tot else None), sq,
                             pct(sq / tot if tot else None), rest,
                             pct(rest / tot if tot else None)))
        L.append("")

    # ---------------------------------------------------------- waits
    wt = []
    for ps in (0, 1):
        try:
            b = json_after_notes(os.path.join(raw, "waits-%d.before" % ps))
            a = json_after_notes(os.path.join(raw, "waits-%d.after" % ps))
        except (OSError, ValueError):
            wt = []
            break
        d = {k: a.get(k, 0) - b.get(k, 0) for k in a}
        wt.append(d)
    miss_w = hit_w = None
    if len(wt) == 2:
        m, h = wt
        miss_w = m["waits"] / m["gets"] if m.get("gets") and "waits" in m \
            else None
        hit_w = h["waits"] / h["gets"] if h.get("gets") and "waits" in h \
            else None
        L.append("## Network waits per GET")
        L.append("")
        L.append("%s fresh keys PUT, then each read twice by `scalioctl get` "
                 "(one thread): the first pass fills the inline cache, the "
                 "second hits it. From the host's counters (`waits`: one per "
                 "chain of one-sided requests posted together on the "
                 "caller's path; `bg_waits`: those of the misses' "
                 "background fills, waited for before the second pass; "
                 "Documentation/protocol.rst \"Network waits\")."
                 % gm.get("wait_keys", "?"))
        L.append("")
        L.append("| pass | GETs | misses | hits | waits | waits/GET | "
                 "background fills | their waits/fill | "
                 "RDMA ops/GET | SSD reads/GET |")
        L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
                 "---: | ---: |")
        for name, d in (("first (misses)", m), ("second (hits)", h)):
            g = d.get("gets", 0)
            bq = d.get("bg_queued")
            L.append("| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s |" % (
                name, g, d.get("cache_misses", 0), d.get("cache_hits", 0),
                d.get("waits", "n/a"),
                f(d["waits"] / g if g and "waits" in d else None, "{:.2f}"),
                f(bq, "{:d}"),
                f(d.get("bg_waits", 0) / bq if bq else None, "{:.2f}"),
                f((d.get("rdma_reads", 0) + d.get("rdma_cas", 0)) / g
                  if g else None, "{:.2f}"),
                f(d.get("ssd_reads", 0) / g if g else None, "{:.2f}")))
        L.append("")

    # ---------------------------------------------------------- miss path
    def hdelta(name):
        try:
            b = json_after_notes(os.path.join(raw, name + ".before"))
            a = json_after_notes(os.path.join(raw, name + ".after"))
        except (OSError, ValueError):
            return None
        return {k: a.get(k, 0) - b.get(k, 0) for k in a
                if isinstance(a.get(k), (int, float))}

    def per_get(d, k):
        return d[k] / d["gets"] if d and d.get("gets") and k in d else None

    mrows = []
    for r in range(1, int(gm.get("miss_rounds", 0) or 0) + 1):
        on = load_point(raw, "miss-o1.r%d-c" % r)
        off = load_point(raw, "miss-o0.r%d-c" % r)
        if on and off and on["rlat"] and off["rlat"]:
            mrows.append((r, on, off, hdelta("miss-o1.r%d" % r),
                          hdelta("miss-o0.r%d" % r)))
    mhit = load_point(raw, "miss-hit-c")
    miss_ratio = hit_ratio_lat = None
    if mrows:
        L.append("## A miss that waits once: GET latency at depth 1")
        L.append("")
        L.append("Store `kv0` (batch configuration), one YCSB C thread, "
                 "uniform keys, %s GETs per point: misses over %s records "
                 "(the cache holds a few %% of them), in alternating pairs "
                 "with the host's `optimistic_miss` on (the default: a miss "
                 "answers after its seg-first chain and its SSD read, the "
                 "cache fill runs in the background) and off (the fill "
                 "first: 4 waits); waits per GET are the caller's "
                 "(`waits`), the background fills' apart (`bg_waits`)."
                 % (gm.get("miss_ops", "?"), gm.get("miss_records", "?")))
        L.append("")
        L.append("| pair | on: GET/s | p50 ms | p99 ms | hit ratio | "
                 "waits/GET | bg waits/GET | off: GET/s | p50 ms | p99 ms | "
                 "waits/GET | p50 on / off |")
        L.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
                 "---: | ---: | ---: | ---: |")
        ratios = []
        for r, on, off, hon, hoff in mrows:
            rr = on["rlat"]["p50"] / off["rlat"]["p50"] \
                if off["rlat"]["p50"] else None
            if rr is not None:
                ratios.append(rr)
            L.append("| %d | %.1f | %.2f | %.2f | %s | %s | %s | %.1f | "
                     "%.2f | %.2f | %s | %s |" % (
                         r, on["thr"], ms(on["rlat"], "p50"),
                         ms(on["rlat"], "p99"), pct(on["hit"]),
                         f(per_get(hon, "waits"), "{:.2f}"),
                         f(per_get(hon, "bg_waits"), "{:.2f}"),
                         off["thr"], ms(off["rlat"], "p50"),
                         ms(off["rlat"], "p99"),
                         f(per_get(hoff, "waits"), "{:.2f}"),
                         f(rr, "{:.2f}x")))
        ratios.sort()
        L.append("")
        if ratios:
            L.append("Median p50 on / off: **%.2fx**." %
                     ratios[len(ratios) // 2])
        p50s = sorted(on["rlat"]["p50"] for _, on, _, _, _ in mrows)
        med = p50s[len(p50s) // 2]
        if lat and qd1 and lat["typical"] and qd1["p50"]:
            ref = lat["typical"] + qd1["p50"]
            miss_ratio = med / ref
            L.append("Median miss p50 with `optimistic_miss` on: %.2f ms, "
                     "against one RDMA READ (typical %.2f ms) + one NVMe-oF "
                     "4 KiB read at depth 1 (p50 %.2f ms) = %.2f ms: "
                     "**%.2fx**." % (med / 1e3, lat["typical"] / 1e3,
                                     qd1["p50"] / 1e3, ref / 1e3,
                                     miss_ratio))
        if mhit and mhit["rlat"]:
            hh = hdelta("miss-hit")
            L.append("")
            L.append("Hits (the first %s records, cached by a warm-up): "
                     "%.1f GET/s, p50 %.2f ms, p99 %.2f ms, hit ratio %s, "
                     "%s waits per GET." % (
                         gm.get("hit_records", "?"), mhit["thr"],
                         ms(mhit["rlat"], "p50"), ms(mhit["rlat"], "p99"),
                         pct(mhit["hit"]),
                         f(per_get(hh, "waits"), "{:.2f}")))
            if lat and lat["typical"]:
                hit_ratio_lat = mhit["rlat"]["p50"] / lat["typical"]
                L.append("Hit p50 against one RDMA READ (typical): "
                         "**%.2fx**." % hit_ratio_lat)
        L.append("")

    # ---------------------------------------------------------- goals
    goals = []
    if d64:
        goals.append(("SSD writes per PUT at 64 in flight", "<= 0.1",
                      d64["wr_put"], d64["wr_put"] is not None and
                      d64["wr_put"] <= 0.1, "{:.3f}"))
    if d64 and one and one["iops"]:
        r = d64["iops"] / one["iops"]
        goals.append(("PUT/s at depth 64 / depth 1, one thread", ">= 4x",
                      r, r >= 4, "{:.2f}x"))
    if lat1 is not None:
        goals.append(("PUT p50 at depth 1, batched (defaults) / "
                      "batch_max=1, median of %d alternating pairs"
                      % len(pairs),
                      "<= 1.05x", lat1, lat1 <= 1.05, "{:.2f}x"))
    elif nb and one and nb["p50"]:
        r = one["p50"] / nb["p50"]
        goals.append(("PUT p50 at depth 1, batched / batch_max=1",
                      "<= 1.05x", r, r <= 1.05, "{:.2f}x"))
    if miss_w is not None:
        goals.append(("network waits per miss, caller's path", "1",
                      miss_w, miss_w <= 1 + 1e-9, "{:.2f}"))
    if hit_w is not None:
        goals.append(("network waits per hit", "1", hit_w,
                      abs(hit_w - 1) < 1e-9, "{:.2f}"))
    if miss_ratio is not None:
        goals.append(("miss p50 at depth 1 / (RDMA READ + NVMe-oF read)",
                      "<= 1.2x", miss_ratio, miss_ratio <= 1.2, "{:.2f}x"))
    if hit_ratio_lat is not None:
        goals.append(("hit p50 at depth 1 / RDMA READ", "<= 1.2x",
                      hit_ratio_lat, hit_ratio_lat <= 1.2, "{:.2f}x"))
    if goals:
        L.append("## Goals (issues 11 and 38), measured in this run")
        L.append("")
        L.append("| goal | target | measured | met |")
        L.append("| --- | --- | ---: | --- |")
        for name, tgt, v, ok, fmt in goals:
            L.append("| %s | %s | %s | %s |" % (name, tgt, f(v, fmt),
                                               "yes" if ok else "**no**"))
        L.append("")

    # ---------------------------------------------------------- projection
    # A model on datasheet inputs (bench/projection.py, bench/hardware.conf)
    try:
        sys.dont_write_bytecode = True     # no __pycache__ in bench/
        import projection
        L += projection.section(raw, labels=CFG_LABEL)
    except Exception as e:  # the measured report must not depend on it
        L += ["## Projection to hardware (a model, not a measurement)", "",
              "Failed: %s: %s" % (type(e).__name__, e), ""]

    # ---------------------------------------------------------- checks
    L.append("## Counter checks")
    L.append("")
    L.append("Facts computed from the counters of this run:")
    L.append("")
    for c in cfgs:
        p = brk.get((c, "c"))
        if p and p["t"]:
            L.append("- YCSB C, %s: target SSD reads %d for %d GETs, "
                     "offloaded (host) SSD reads %d, RPC GETs at the "
                     "target %d, cache hits %d." % (
                         CFG_LABEL[c], p["t"].get("ssd_reads", 0),
                         p["h"].get("gets", 0), p["h"].get("ssd_reads", 0),
                         p["t"].get("rpc_gets", 0),
                         p["h"].get("cache_hits", 0)))
    for c in ("cache", "batch", "batchcap"):
        for w in ("a", "f"):
            p = brk.get((c, w))
            if p and p["t"]:
                L.append("- YCSB %s, %s: %d PUTs in %d batches (%.2f per "
                         "batch), %d SSD writes, %d target SSD reads "
                         "(segment read-modify-write of the commit path), "
                         "%d GETs." % (
                             w.upper(), CFG_LABEL[c],
                             p["t"].get("rpc_puts", 0),
                             p["t"].get("batches", 0),
                             p["per_batch"] or 0,
                             p["t"].get("ssd_writes", 0),
                             p["t"].get("ssd_reads", 0),
                             p["h"].get("gets", 0)))
    p = brk.get(("cache", "c"))
    if p and p["h"].get("cache_misses"):
        h = p["h"]
        per_miss = ((h.get("rdma_reads", 0) + h.get("rdma_cas", 0)
                     - h.get("cache_hits", 0)) / h["cache_misses"])
        L.append("- YCSB C, + inline cache: %.2f one-sided RDMA ops per "
                 "GET; counting one READ per hit leaves %.1f per miss "
                 "(slot fill: READ, CAS, re-read, publish ...), each a "
                 "round trip of the bed (RDMA READ typical latency %s us "
                 "above), where the baseline's GET is one RPC."
                 % (p["rdma_per_op"] or 0, per_miss,
                    f(lat["typical"] if lat else None)))
    nssd_kv0 = 2
    for c in ("batch", "batchcap"):
        p = brk.get((c, "a"))
        cf = kv_file(os.path.join(raw, "config-%s.txt" % c))
        if p and p["t"].get("rpc_puts") and p["secs"]:
            gap = p["secs"] / (p["t"]["rpc_puts"] / nssd_kv0) * 1e6
            to = int(cf.get("attr_batch_timeout_us", "0") or 0)
            L.append("- YCSB A, %s: PUTs reached each of the %d SSDs' "
                     "commit threads every %.0f us on average (timeout %d "
                     "us). The commit thread waits for company only when "
                     "the queued PUTs announce more (their inflight hint: "
                     "the writes their host has outstanding to that SSD); "
                     "8 synchronous threads have at most 8 writes "
                     "outstanding, spread over the 2 SSDs."
                     % (CFG_LABEL[c], nssd_kv0, gap, to))
    errs = sum(p["errors"] for p in list(brk.values()) +
               list(scale.values()) if p)
    L.append("- Errors (missing keys, wrong values, failed ioctls) over all "
             "points: %d." % errs)
    L.append("")

    # ---------------------------------------------------------- times
    L.append("## Time of each phase")
    L.append("")
    rt = runner_times(os.path.join(out, "runner.log"))
    L.append("| phase | seconds |")
    L.append("| --- | ---: |")
    if "boot_start" in rt:
        L.append("| build modules + tools, boot files | %d |"
                 % rt["boot_start"])
        if "cmd_start" in rt:
            L.append("| boot target + host, modules loaded | %d |"
                     % (rt["cmd_start"] - rt["boot_start"]))
    groups = {}
    for line in open(os.path.join(raw, "phases.txt")):
        parts = line.split()
        if len(parts) < 3:
            continue
        name, t0, t1 = " ".join(parts[:-2]), int(parts[-2]), int(parts[-1])
        if name.split(" ")[0] in ("brk", "scale", "depth"):
            key = "measured points: " + name.split(":")[0]
        elif name.startswith("limits"):
            key = "test-bed limits"
        elif name.startswith("switch"):
            key = "configuration switches (detach, target-set, attach)"
        elif name.startswith("warm"):
            key = "warm-ups"
        elif name.startswith("load"):
            key = "loads"
        else:
            key = name
        groups[key] = groups.get(key, 0) + t1 - t0
    for k, v in groups.items():
        L.append("| %s | %d |" % (k, v))
    if "cmd_end" in rt and "teardown_end" in rt:
        L.append("| teardown (detach, unload, log check) | %d |"
                 % (rt.get("end", rt["teardown_end"]) - rt["cmd_end"]))
    if "wall" in hm:
        L.append("| **total wall time** | **%s** |" % hm["wall"])
    L.append("")
    L.append("Plots: `breakdown.png`, `scaling.png`, `sweep.png`. Raw data: the run's "
             "`raw/` directory (scalio-ycsb JSON per point, /proc/stat "
             "samples, perftest and fio outputs).")
    L.append("")
    open(os.path.join(out, "results.md"), "w").write("\n".join(L))

    # ---------------------------------------------------------- plots
    colors = ["#888888", "#4c72b0", "#55a868", "#c44e52", "#dd8452"]
    if cfgs:
        fig, axs = plt.subplots(1, 3, figsize=(15, 4.5))
        width = 0.8 / max(1, len(cfgs))
        for i, c in enumerate(cfgs):
            xs, ys, hs, cs = [], [], [], []
            for j, w in enumerate(wls):
                p, b = brk.get((c, w)), brk.get(("base", w))
                if p and b and b["thr"]:
                    xs.append(j + (i - (len(cfgs) - 1) / 2) * width)
                    ys.append(p["thr"] / b["thr"])
                    hs.append((p["hit"] or 0) * 100)
                    cs.append(p["cpu_us"] or 0)
            kw = dict(width=width, color=colors[i % len(colors)],
                      label=CFG_LABEL[c])
            axs[0].bar(xs, ys, **kw)
            axs[1].bar(xs, cs, **kw)
            axs[2].bar(xs, hs, **kw)
        for ax in axs:
            ax.set_xticks(range(len(wls)))
            ax.set_xticklabels(["YCSB " + w.upper() for w in wls])
        axs[0].axhline(1.0, color="black", linewidth=0.8)
        axs[0].set_ylabel("throughput / baseline (same run)")
        axs[0].set_title("Throughput relative to baseline")
        axs[1].set_ylabel("scalio target CPU per op (us)")
        axs[1].set_title("Target CPU per op (scalio's own)")
        axs[2].set_ylabel("cache hit ratio (%)")
        axs[2].set_title("Inline cache hit ratio")
        axs[2].set_ylim(0, 100)
        hs, ls = axs[0].get_legend_handles_labels()
        fig.legend(hs, ls, loc="lower center", ncol=len(ls), fontsize=9)
        fig.suptitle("scalio breakdown on the QEMU TCG + soft-RoCE bed (%s)%s"
                     % (gm.get("guest_kernel", "?"), " QUICK" if quick else ""))
        fig.tight_layout(rect=(0, 0.07, 1, 1))
        fig.savefig(os.path.join(out, "breakdown.png"), dpi=100)
        plt.close(fig)

    if scale:
        fig, axs = plt.subplots(1, 2, figsize=(11, 4.5))
        for k, w in enumerate(sw):
            ns = [n for n in sn if scale.get((n, w))]
            ys = [scale[(n, w)]["thr"] for n in ns]
            axs[0].plot(ns, ys, "o-", color=colors[(k + 1) % len(colors)],
                        label="YCSB " + w.upper())
            if ys and ys[0]:
                axs[1].plot(ns, [y / ys[0] for y in ys], "o-",
                            color=colors[(k + 1) % len(colors)],
                            label="YCSB " + w.upper())
        if sn:
            axs[1].plot(sn, [n / sn[0] for n in sn], "--", color="black",
                        linewidth=0.8, label="linear")
        for ax in axs:
            ax.set_xlabel("SSDs in the store")
            ax.set_xticks(sn)
            ax.legend(fontsize=8)
        axs[0].set_ylabel("throughput (ops/s, TCG bed)")
        axs[0].set_ylim(bottom=0)
        axs[0].set_title("Throughput")
        axs[1].set_ylabel("throughput / 1 SSD")
        axs[1].set_ylim(bottom=0)
        axs[1].set_title("Relative to one SSD")
        fig.suptitle("scalio scaling, full configuration (%s)%s"
                     % (gm.get("guest_kernel", "?"), " QUICK" if quick else ""))
        fig.tight_layout()
        fig.savefig(os.path.join(out, "scaling.png"), dpi=100)
        plt.close(fig)

    if sweep:
        fig, axs = plt.subplots(1, 2, figsize=(11, 4.5))
        ds = [p["depth"] for p in sweep]
        tl = "cap %s us" % gm.get("cap_timeout_us", "?")
        axs[0].plot(ds, [p["iops"] for p in sweep], "o-", color=colors[1],
                    label="defaults (self-clocked)")
        if cap:
            axs[0].plot([p["depth"] for p in cap], [p["iops"] for p in cap],
                        "o:", color=colors[4], label=tl)
            axs[0].legend(fontsize=8)
        axs[0].set_ylabel("PUT/s, one thread (TCG bed)")
        axs[0].set_ylim(bottom=0)
        axs[0].set_title("Throughput")
        axs[1].plot(ds, [p["per_batch"] or 0 for p in sweep], "o-",
                    color=colors[2], label="PUTs per batch (defaults)")
        axs[1].plot(ds, [(p["wr_put"] or 0) * 100 for p in sweep], "s--",
                    color=colors[3], label="SSD writes per 100 PUTs (defaults)")
        if cap:
            axs[1].plot([p["depth"] for p in cap],
                        [p["per_batch"] or 0 for p in cap], "o:",
                        color=colors[4], label="PUTs per batch (%s)" % tl)
            axs[1].plot([p["depth"] for p in cap],
                        [(p["wr_put"] or 0) * 100 for p in cap], "s:",
                        color=colors[5 % len(colors)],
                        label="SSD writes per 100 PUTs (%s)" % tl)
        axs[1].set_ylim(bottom=0)
        axs[1].legend(fontsize=8)
        axs[1].set_title("Group commit")
        for ax in axs:
            ax.set_xscale("log", base=2)
            ax.set_xticks(ds)
            ax.set_xticklabels([str(d) for d in ds])
            ax.set_xlabel("PUTs in flight")
        fig.suptitle("scalio group-commit sweep (%s)%s"
                     % (gm.get("guest_kernel", "?"),
                        " QUICK" if quick else ""))
        fig.tight_layout()
        fig.savefig(os.path.join(out, "sweep.png"), dpi=100)
        plt.close(fig)
    print("report: %s" % os.path.join(out, "results.md"))


if __name__ == "__main__":
    main()
