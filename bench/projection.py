#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/projection.py RAW_DIR [--inputs FILE] [--setup NAME]: a projection
of a bench run to real hardware -- a model, not a measurement.

For each point of the breakdown (brk-<cfg>-<workload>.json/.cpu in RAW_DIR,
written by bench/guest.sh) it takes the demand per operation the counters
measured -- target CPU (scalio's own, and the part of nvmet / block layer
a NIC with NVMe-oF target offload would not take), NIC messages, network
waits, SSD I/Os and bytes, client CPU -- and datasheet figures from
bench/hardware.conf (NIC message rate, RTT, SSD IOPS and latency, number
of SSDs, target cores and their speed, and how many bed CPU ns make one
hardware ns), and computes which resource saturates first, and the
throughput and latency that allows.  It applies the same arithmetic to the
baseline (every operation an RPC, LEED-like) with the LEED paper's and the
Scalio paper's setups, to compare with their published LEED numbers.

Standard library only; bench/report.py imports it (section()) for the
"Projection to hardware" section of results.md.  Method and limits:
Documentation/benchmarks.rst, "Projection to hardware".
"""
import argparse
import configparser
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INPUTS = os.path.join(HERE, "hardware.conf")

CFG_ORDER = ["base", "offload", "cache", "batch", "locked", "batchcap"]
CFG_LABEL = {"base": "baseline", "offload": "+ offloaded read",
             "cache": "+ inline cache", "batch": "+ batched write",
             "locked": "+ batched write, misses fill first",
             "batchcap": "+ batched write (variant)"}
USER_HZ = 100           # /proc/stat ticks per second
# A calibration outside this range is noise (a point of a few ticks), not
# TCG: the published and quick runs gave 500-1000.
SCALE_RANGE = (50, 5000)

SETUP_KEYS = ("ssds", "ssd_read_iops", "ssd_write_iops", "ssd_write_mbps",
              "ssd_read_lat_us", "ssd_write_lat_us", "nic_msg_rate",
              "nic_atomic_rate", "nic_gbps", "rtt_us", "target_cores",
              "core_speed", "client_threads", "client_cores")
SIZE_KEYS = ("block_bytes", "rpc_bytes", "ssd_read_bytes",
             "nvmf_msgs_per_read", "rdma_writes_per_miss")
RESOURCES = [("cpu", "target CPU"), ("nic", "NIC messages"),
             ("nicbw", "NIC bandwidth"), ("ssd", "SSDs"),
             ("client_cpu", "client CPU"), ("clients", "client threads")]


# ------------------------------------------------------------------ inputs
def load_inputs(path=None):
    """The inputs file as {"projection", "calibration", "sizes", "leed",
    "setups": {name: {...}}}; numbers as floats, nvmet_offload as bool."""
    cp = configparser.ConfigParser(inline_comment_prefixes=("#",),
                                   comment_prefixes=("#",))
    path = path or DEFAULT_INPUTS
    with open(path) as fh:
        cp.read_file(fh)
    out = {"path": path, "setups": {}}

    def num(v):
        try:
            return float(v)
        except ValueError:
            return v
    for sec in cp.sections():
        d = {k: num(v) for k, v in cp.items(sec)}
        if sec.startswith("setup "):
            name = sec[6:].strip()
            d["name"] = name
            d["nvmet_offload"] = cp.getboolean(sec, "nvmet_offload",
                                               fallback=True)
            missing = [k for k in SETUP_KEYS if k not in d]
            if missing:
                raise ValueError("%s: [%s] lacks %s" % (path, sec,
                                                       ", ".join(missing)))
            out["setups"][name] = d
        else:
            out[sec] = d
    for k in ("projection", "calibration", "sizes", "leed"):
        out.setdefault(k, {})
    for k in SIZE_KEYS:
        if k not in out["sizes"]:
            raise ValueError("%s: [sizes] lacks %s" % (path, k))
    return out


# ------------------------------------------------------------------ demand
def cpu_lines(path):
    """The four 'cpu ...' lines of a point's .cpu file (target before,
    host before, target after, host after) as lists of ints, or None."""
    if not os.path.exists(path):
        return None
    ls = [[int(x) for x in line.split()[1:]]
          for line in open(path) if line.startswith("cpu ")]
    return ls if len(ls) == 4 else None


def busy_softirq(a, b):
    """(busy ticks, softirq ticks) between two /proc/stat cpu lines."""
    d = [y - x for x, y in zip(a, b)]
    busy = d[0] + d[1] + d[2] + d[5] + d[6] + (d[7] if len(d) > 7 else 0)
    return busy, d[6]


def demand_from(run, cpu):
    """Per-operation demand of one point, in the bed's units: @run is the
    "run" phase of a scalio-ycsb --json file, @cpu its cpu_lines() (or
    None).  CPU figures in bed ns per op."""
    n = run.get("ops") or 0
    if not n:
        return None
    h = run.get("host_delta") or {}
    t = run.get("target_delta") or {}
    d = {"ops": n,
         "gets": h.get("gets", 0) / n,
         "puts": (h.get("puts", 0) + h.get("deletes", 0)) / n,
         "waits": h.get("waits", 0) / n,
         "rdma_reads": h.get("rdma_reads", 0) / n,
         "rdma_cas": h.get("rdma_cas", 0) / n,
         "misses": h.get("cache_misses", 0) / n,
         "rpcs": (t.get("rpc_gets", 0) + t.get("rpc_puts", 0)
                  + t.get("rpc_deletes", 0)) / n,
         "host_rd": h.get("ssd_reads", 0) / n,
         "tgt_rd": t.get("ssd_reads", 0) / n,
         "tgt_wr": t.get("ssd_writes", 0) / n,
         "wr_bytes": t.get("ssd_write_bytes", 0) / n,
         "hit": run.get("cache_hit_ratio"),
         "scalio_ns": (t.get("cpu_ns_commit", 0) + t.get("cpu_ns_rpc", 0)
                       + t.get("cpu_ns_cleaner", 0)) / n,
         "sirq_ns": None, "rest_ns": None, "host_ns": None}
    if cpu:
        tick = 1e9 / USER_HZ
        tb, ts = busy_softirq(cpu[0], cpu[2])
        hb, hs = busy_softirq(cpu[1], cpu[3])
        d["sirq_ns"] = ts * tick / n
        d["rest_ns"] = max(tb * tick / n - d["scalio_ns"] - d["sirq_ns"], 0)
        d["host_ns"] = max((hb - hs) * tick / n, 0)
    return d


def load_demands(raw):
    """{(cfg, workload): demand} of the breakdown points in @raw."""
    out = {}
    for c in CFG_ORDER:
        for w in "abcdf":
            base = os.path.join(raw, "brk-%s-%s" % (c, w))
            if not os.path.exists(base + ".json"):
                continue
            try:
                run = json.load(open(base + ".json"))["phases"]["run"]
            except (OSError, ValueError, KeyError):
                continue
            d = demand_from(run, cpu_lines(base + ".cpu"))
            if d:
                out[(c, w)] = d
    return out


# ------------------------------------------------------------------ model
def calibrate(demands, cal):
    """(bed ns per reference-core ns, how it was obtained)."""
    v = cal.get("cpu_scale", "auto")
    if v != "auto":
        return float(v), "stated in the inputs (cpu_scale = %g)" % float(v)
    ref = float(cal.get("nvmet_us_per_io", 2.0))
    d = demands.get(("offload", "c"))
    fb = float(cal.get("cpu_scale_fallback", 500))
    if d and d["rest_ns"] and d["host_rd"] > 0:
        per_io = d["rest_ns"] / d["host_rd"]
        sc = per_io / (ref * 1e3)
        lo, hi = SCALE_RANGE
        if not lo <= sc <= hi:
            return fb, ("cpu_scale_fallback = %g: the calibration point "
                        "gave %.0f, outside %g-%g (a handful of 10 ms "
                        "ticks?)" % (fb, sc, lo, hi))
        return (sc,
                "calibrated in this run: the target VM's non-scalio, "
                "non-softirq CPU per offloaded NVMe-oF read in \"+ offloaded "
                "read\" YCSB C (nvmet-rdma, block layer, NVMe driver) = "
                "%.0f us of bed CPU, against nvmet_us_per_io = %g us on "
                "hardware" % (per_io / 1e3, ref))
    return fb, ("cpu_scale_fallback = %g (no \"+ offloaded read\" YCSB C "
                "point with CPU samples to calibrate on)" % fb)


def target_cpu_us(d, setup, scale, rpc_msg_us=0.0):
    """Target CPU per op on the setup's cores, in us: scalio's own, plus the
    share of the target's other non-softirq CPU (nvmet, block layer) that
    serves the target's own SSD I/Os; the share serving offloaded reads
    goes to the NIC when the setup has NVMe-oF target offload.  Softirq
    (rxe: the software NIC, and the network stack) goes to the NIC, but
    for what a real NIC leaves to the CPU of each RPC message (posting it,
    its completion): @rpc_msg_us on the reference core."""
    rest = d["rest_ns"] or 0.0
    own = d["tgt_rd"] + d["tgt_wr"]
    keep = 1.0
    if setup["nvmet_offload"] and own + d["host_rd"] > 0:
        keep = own / (own + d["host_rd"])
    return ((d["scalio_ns"] + keep * rest) / scale / 1e3
            + 2 * d["rpcs"] * rpc_msg_us) / setup["core_speed"]


def project(d, setup, sizes, scale, rpc_msg_us=0.0):
    """Project one point's demand @d onto @setup (datasheet inputs), with
    @scale bed ns per reference-core ns and @rpc_msg_us of CPU per RPC
    message on the reference core.  Returns per-op costs on the
    hardware, each resource's throughput bound (ops/s), the binding one,
    the throughput, and the latency unloaded and at that throughput."""
    s = setup
    cpu_us = target_cpu_us(d, s, scale, rpc_msg_us)
    host_us = (d["host_ns"] or 0.0) / scale / 1e3
    writes = sizes["rdma_writes_per_miss"] * d["misses"]
    msgs = (d["rdma_reads"] + writes + 2 * d["rpcs"]
            + sizes["nvmf_msgs_per_read"] * d["host_rd"])
    nic_s = msgs / s["nic_msg_rate"] + d["rdma_cas"] / s["nic_atomic_rate"]
    nic_bytes = (d["rdma_reads"] * sizes["block_bytes"]
                 + writes * sizes["rpc_bytes"]
                 + 2 * d["rpcs"] * sizes["rpc_bytes"]
                 + d["host_rd"] * sizes["ssd_read_bytes"])
    ssd_rd = d["host_rd"] + d["tgt_rd"]
    ssd_s = (ssd_rd / s["ssd_read_iops"]
             + max(d["tgt_wr"] / s["ssd_write_iops"],
                   d["wr_bytes"] / (s["ssd_write_mbps"] * 1e6)))
    lat0 = (d["waits"] * s["rtt_us"] + ssd_rd * s["ssd_read_lat_us"]
            + d["puts"] * s["ssd_write_lat_us"] + cpu_us + host_us)
    inf = float("inf")
    b = {"cpu": s["target_cores"] / (cpu_us * 1e-6) if cpu_us > 0 else inf,
         "nic": 1 / nic_s if nic_s > 0 else inf,
         "nicbw": (s["nic_gbps"] * 1e9 / 8 / nic_bytes
                   if nic_bytes > 0 else inf),
         "ssd": s["ssds"] / ssd_s if ssd_s > 0 else inf,
         "client_cpu": (s["client_cores"] / (host_us * 1e-6)
                        if host_us > 0 else inf),
         "clients": s["client_threads"] / (lat0 * 1e-6) if lat0 > 0 else inf}
    bound = min(b, key=lambda k: b[k])
    x = b[bound]
    # what the storage node itself allows, with clients enough to load it
    node = min(("cpu", "nic", "nicbw", "ssd"), key=lambda k: b[k])
    return {"node_bound": node, "node_ops": b[node],"cpu_us": cpu_us, "host_us": host_us, "nic_msgs": msgs,
            "nic_cas": d["rdma_cas"], "nic_bytes": nic_bytes,
            "ssd_rd": ssd_rd, "ssd_wr": d["tgt_wr"], "ssd_s": ssd_s,
            "bounds": b, "bound": bound, "ops": x, "lat0_us": lat0,
            # closed loop: the threads queue at the bottleneck (Little)
            "lat_us": max(lat0, s["client_threads"] / x * 1e6),
            "util": {k: x / v if v not in (0, inf) else 0.0
                     for k, v in b.items()}}


def leed_demands(dem, leed):
    """Per-GET and per-PUT demand of the baseline with LEED's on-SSD layout:
    GET from the baseline's YCSB C, PUT = 2 x YCSB A - YCSB C (A is half
    GETs, half UPDATEs), each with LEED's SSD accesses (GET 2 reads, PUT 1
    read + 2 appends) and the target's non-scalio CPU (the I/O path)
    scaled by LEED's accesses over the measured ones.  Returns
    {"get": d, "put": d} (missing ones left out)."""
    out = {}
    c, a = dem.get(("base", "c")), dem.get(("base", "a"))

    def relayout(d, rd, wr, wbytes):
        d = dict(d)
        had = d["tgt_rd"] + d["tgt_wr"]
        if d["rest_ns"] is not None and had > 0:
            d["rest_ns"] *= (rd + wr) / had
        d["tgt_rd"], d["tgt_wr"], d["host_rd"] = rd, wr, 0.0
        if wbytes is not None:
            d["wr_bytes"] = wbytes
        return d
    if c:
        out["get"] = relayout(c, leed.get("ssd_reads_per_get", 2), 0.0, 0.0)
    if c and a:
        put = {}
        for k, v in a.items():
            cv = c.get(k)
            if isinstance(v, (int, float)) and isinstance(cv, (int, float)):
                put[k] = max(2 * v - cv, 0.0)
            else:
                put[k] = v
        put["gets"], put["puts"] = 0.0, 1.0
        out["put"] = relayout(put, leed.get("ssd_reads_per_put", 1),
                              leed.get("ssd_writes_per_put", 2),
                              leed.get("put_write_bytes"))
    return out


def with_ssds(setup, n):
    s = dict(setup)
    s["ssds"] = n
    return s


# ------------------------------------------------------------------ report
def fmt_ops(x):
    if x == float("inf"):
        return "inf"
    if x >= 1e6:
        return "%.2f M" % (x / 1e6)
    if x >= 1e3:
        return "%.0f K" % (x / 1e3)
    return "%.0f" % x


def fmt_us(v):
    return "%.1f" % v if v < 100 else "%.0f" % v


def section(raw, inputs=None, setup=None, labels=None):
    """The markdown lines of the "Projection to hardware" section."""
    labels = labels or CFG_LABEL
    L = ["## Projection to hardware (a model, not a measurement)", ""]
    try:
        inp = load_inputs(inputs)
    except (OSError, ValueError, configparser.Error) as e:
        return L + ["No projection: cannot read the inputs (%s)." % e, ""]
    name = setup or inp["projection"].get("default_setup", "scalio-paper")
    if name not in inp["setups"]:
        return L + ["No projection: no setup `%s` in %s." % (name,
                                                          inp["path"]), ""]
    s = inp["setups"][name]
    sizes = inp["sizes"]
    dem = load_demands(raw)
    if not dem:
        return L + ["No projection: no breakdown points in this run.", ""]
    scale, how = calibrate(dem, inp["calibration"])
    rmu = float(inp["calibration"].get("rpc_msg_cpu_us", 0.0))
    rel = os.path.relpath(inp["path"], os.path.dirname(HERE)) \
        if inp["path"].startswith(os.path.dirname(HERE)) else inp["path"]
    L.append("**This is arithmetic, not a measurement.** Each breakdown "
             "point's demand per operation, as this run's counters measured "
             "it (target CPU, NIC messages, network waits, SSD I/Os and "
             "bytes, client CPU), is divided into datasheet capacities "
             "(`%s`, setup `%s`: %s); the resource that saturates first "
             "sets the throughput, and latency is the sum of the serial "
             "steps (unloaded) or, with the setup's client threads queued "
             "at that resource, threads / throughput. The last column "
             "leaves out the clients (their threads and CPU): what the "
             "storage node allows with clients enough to load it. CPU measured under "
             "TCG is scaled by **%.0f bed ns per hardware ns** (%s) and "
             "by the cores' speed; each RPC message adds %g us of the "
             "reference core (what a real NIC leaves to the CPU). Method and limits: "
             "Documentation/benchmarks.rst, \"Projection to hardware\"."
             % (rel, name, s.get("description", name), scale, how, rmu))
    L.append("")
    L.append("Inputs (setup `%s`): %d SSDs of %s read / %s write IOPS, "
             "%g MB/s write, read %g us, write %g us; NIC %s msg/s, %s "
             "CAS/s, %g Gb/s, RTT %g us; %g target cores at %gx the "
             "reference core, NVMe-oF target offload %s; %g client "
             "threads on %g client cores. Wire sizes: hash block %g B, "
             "RPC message %g B, SSD read %g B, %g NIC messages per "
             "NVMe-oF read."
             % (name, s["ssds"], fmt_ops(s["ssd_read_iops"]),
                fmt_ops(s["ssd_write_iops"]), s["ssd_write_mbps"],
                s["ssd_read_lat_us"], s["ssd_write_lat_us"],
                fmt_ops(s["nic_msg_rate"]), fmt_ops(s["nic_atomic_rate"]),
                s["nic_gbps"], s["rtt_us"], s["target_cores"],
                s["core_speed"], "yes" if s["nvmet_offload"] else "no",
                s["client_threads"], s["client_cores"],
                sizes["block_bytes"], sizes["rpc_bytes"],
                sizes["ssd_read_bytes"], sizes["nvmf_msgs_per_read"]))
    L.append("")
    L.append("| configuration | workload | target CPU us/op | NIC msgs/op "
             "(CAS) | waits/op | SSD rd + wr /op | hit ratio | bound by | "
             "ops/s | x base | latency us, unloaded / loaded | NIC % | "
             "SSD % | target CPU % | storage node alone: ops/s, bound by |")
    L.append("| --- | --- |" + " ---: |" * 5 + " --- |" + " ---: |" * 7)
    wls = sorted({w for _, w in dem})
    res_name = dict(RESOURCES)
    proj = {}
    for c in CFG_ORDER:
        for w in wls:
            d = dem.get((c, w))
            if not d:
                continue
            p = proj[(c, w)] = project(d, s, sizes, scale, rmu)
            b = proj.get(("base", w))
            u = p["util"]
            L.append("| %s | YCSB %s | %s | %.2f (%.2f) | %.2f | %.2f + "
                     "%.2f | %s | %s | %s | %s | %s / %s | %.1f %% | "
                     "%.0f %% | %.0f %% | %s, %s |" % (
                         labels.get(c, c), w.upper(), fmt_us(p["cpu_us"]),
                         p["nic_msgs"], p["nic_cas"], d["waits"],
                         p["ssd_rd"], p["ssd_wr"],
                         "n/a" if d["hit"] is None else
                         "%.0f %%" % (d["hit"] * 100),
                         res_name[p["bound"]], fmt_ops(p["ops"]),
                         "%.2fx" % (p["ops"] / b["ops"]) if b else "",
                         fmt_us(p["lat0_us"]), fmt_us(p["lat_us"]),
                         max(u["nic"], u["nicbw"]) * 100, u["ssd"] * 100,
                         u["cpu"] * 100, fmt_ops(p["node_ops"]),
                         res_name[p["node_bound"]]))
    L.append("")
    L.append("Measured demand behind the CPU column (bed us per op): "
             "scalio's own CPU (its `cpu_ns_*` counters, kept), softirq "
             "(rxe and the network stack: NIC work on hardware, dropped), "
             "the rest of the target VM's busy time (nvmet, block layer: "
             "kept in the share of the target's own SSD I/Os, %s), client "
             "VM busy time less softirq." % (
                 "the share of offloaded reads goes to the NIC"
                 if s["nvmet_offload"] else "all of it: no target offload"))
    L.append("")
    L.append("| configuration | workload | scalio | softirq | rest | rest "
             "kept | client |")
    L.append("| --- | --- |" + " ---: |" * 5)
    for c in CFG_ORDER:
        for w in wls:
            d = dem.get((c, w))
            if not d or d["rest_ns"] is None:
                continue
            own = d["tgt_rd"] + d["tgt_wr"]
            keep = 1.0
            if s["nvmet_offload"] and own + d["host_rd"] > 0:
                keep = own / (own + d["host_rd"])
            L.append("| %s | YCSB %s | %.0f | %.0f | %.0f | %.0f %% | %.0f |"
                     % (labels.get(c, c), w.upper(), d["scalio_ns"] / 1e3,
                        d["sirq_ns"] / 1e3, d["rest_ns"] / 1e3, keep * 100,
                        d["host_ns"] / 1e3))
    L.append("")
    L += leed_check(dem, inp, scale, rmu)
    return L


def leed_check(dem, inp, scale, rmu=0.0):
    """The baseline projected onto the papers' setups, against LEED."""
    L = []
    leed = inp["leed"]
    sizes = inp["sizes"]
    ld = leed_demands(dem, leed)
    lp = inp["setups"].get("leed-paper")
    sp = inp["setups"].get("scalio-paper")
    if not ld or not leed:
        return L
    L.append("### Check: the baseline with the papers' setups against LEED")
    L.append("")
    L.append("The baseline (every GET and PUT an RPC served by the target "
             "CPU) is LEED-like, but its layout is not LEED's: here a GET "
             "reads one segment, LEED's reads the key log, then the value "
             "log (2 reads); a PUT here appends one batch, LEED's appends "
             "the value, reads and re-appends the segment (1 read, 2 "
             "writes). The check gives the baseline's measured per-GET "
             "(YCSB C) and per-PUT (2 x YCSB A - YCSB C) demand LEED's "
             "accesses, scales its I/O-path CPU (the \"rest\") by them, "
             "and projects it with the same arithmetic.")
    L.append("")
    if lp:
        L.append("| setup | op | target CPU us/op | SSD rd + wr /op | "
                 "bound by | projected ops/s | LEED paper | projected / "
                 "paper | unloaded latency us | LEED paper |")
        L.append("| --- | --- |" + " ---: |" * 2 + " --- |" + " ---: |" * 5)
        res_name = dict(RESOURCES)
        for op, ref_x, ref_l in (("get", "get_ops", "get_lat_us"),
                                 ("put", "put_ops", "put_lat_us")):
            d = ld.get(op)
            if not d:
                continue
            p = project(d, lp, sizes, scale, rmu)
            rx, rl = leed.get(ref_x), leed.get(ref_l)
            L.append("| %s | %s | %s | %.2f + %.2f | %s | %s | %s | %s | "
                     "%s | %s |" % (
                         lp["name"], op.upper(), fmt_us(p["cpu_us"]),
                         p["ssd_rd"], p["ssd_wr"], res_name[p["bound"]],
                         fmt_ops(p["ops"]), fmt_ops(rx) if rx else "",
                         "%.2fx" % (p["ops"] / rx) if rx else "",
                         fmt_us(p["lat0_us"]), "%g" % rl if rl else ""))
        L.append("")
    if sp and "get" in ld:
        d = ld["get"]
        row = []
        first_cpu = None
        for n in range(1, 9):
            p = project(d, with_ssds(sp, n), sizes, scale, rmu)
            row.append(p)
            if first_cpu is None and p["bound"] != "ssd":
                first_cpu = n
        best = max(row, key=lambda p: p["ops"])
        rn = dict(RESOURCES)
        if first_cpu is None:
            verdict = "keeps scaling to 8 SSDs (SSD-bound throughout)"
        elif first_cpu == 1:
            verdict = ("is never SSD-bound (%s binds from 1 SSD)"
                       % rn[row[0]["bound"]])
        else:
            verdict = ("stops scaling at %d SSDs, where %s take over from "
                       "the SSDs" % (first_cpu - 1,
                                     rn[row[first_cpu - 1]["bound"]]))
        ref = leed.get("scalio_paper_max_ops", 600000)
        L.append("The same LEED-layout GET on the Scalio paper's setup "
                 "(`%s`), 1 to 8 SSDs (YCSB C), projected ops/s: %s. The "
                 "Scalio paper (figure 5) has LEED stop scaling at %g SSDs, "
                 "its target CPU saturated, at no more than %s ops/s; the "
                 "projection %s, at %s ops/s (%.2fx the paper's; the "
                 "target CPU alone would allow %s), using %.2f %% of the "
                 "NIC's message rate there (paper: below 1 %%)."
                 % (sp["name"],
                             ", ".join("%d: %s" % (i + 1, fmt_ops(p["ops"]))
                                       for i, p in enumerate(row)),
                             leed.get("scalio_paper_plateau_ssds", 4),
                             fmt_ops(ref), verdict, fmt_ops(best["ops"]),
                             best["ops"] / ref,
                             fmt_ops(best["bounds"]["cpu"]),
                             best["util"]["nic"] * 100))
        L.append("")
    return L


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Project a bench run's measured per-operation demand "
        "onto hardware described by datasheet inputs (a model, not a "
        "measurement).")
    ap.add_argument("raw", metavar="RAW_DIR",
                    help="the run's raw/ directory (bench/guest.sh output)")
    ap.add_argument("--inputs", metavar="FILE", default=None,
                    help="datasheet inputs (default bench/hardware.conf)")
    ap.add_argument("--setup", default=None,
                    help="the [setup NAME] to project on (default: the "
                    "inputs' default_setup)")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.raw):
        ap.error("%s is not a directory" % a.raw)
    print("\n".join(section(a.raw, a.inputs, a.setup)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
