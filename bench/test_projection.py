#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of bench/projection.py's arithmetic against values computed by
hand (in the comments).  `make -C bench test`; prints TAP lines."""
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import projection as P  # noqa: E402

SETUP = {"name": "t", "ssds": 2, "ssd_read_iops": 100000,
         "ssd_write_iops": 50000, "ssd_write_mbps": 100,
         "ssd_read_lat_us": 80, "ssd_write_lat_us": 20, "nic_msg_rate": 1e6,
         "nic_atomic_rate": 1e5, "nic_gbps": 8, "rtt_us": 5,
         "target_cores": 4, "core_speed": 0.5, "nvmet_offload": True,
         "client_threads": 10, "client_cores": 2}
SIZES = {"block_bytes": 1000, "rpc_bytes": 100, "ssd_read_bytes": 4000,
         "nvmf_msgs_per_read": 3, "rdma_writes_per_miss": 1}
DEMAND = {"ops": 100, "gets": 0.5, "puts": 0.5, "waits": 2.0,
          "rdma_reads": 1.0, "rdma_cas": 0.5, "misses": 0.5, "rpcs": 0.5,
          "host_rd": 0.5, "tgt_rd": 0.0, "tgt_wr": 0.5, "wr_bytes": 2000,
          "hit": 0.5, "scalio_ns": 1000, "sirq_ns": 5000, "rest_ns": 3000,
          "host_ns": 2000}


def close(a, b, rel=1e-9):
    assert math.isclose(a, b, rel_tol=rel, abs_tol=1e-12), "%r != %r" % (a, b)


def test_project_costs():
    p = P.project(DEMAND, SETUP, SIZES, 100)
    # rest kept: own I/Os 0.5 of (0.5 + 0.5 offloaded) = 0.5;
    # (1000 + 0.5 * 3000) / 100 / 0.5 = 50 ns
    close(p["cpu_us"], 0.05)
    close(p["host_us"], 0.02)                    # 2000 / 100 ns
    # 1 READ + 0.5 WRITE (misses) + 2 x 0.5 RPC + 3 x 0.5 NVMe-oF
    close(p["nic_msgs"], 4.0)
    # 1000 + 0.5 x 100 + 2 x 0.5 x 100 + 0.5 x 4000
    close(p["nic_bytes"], 3150)
    # 0.5 / 1e5 + max(0.5 / 5e4, 2000 / 1e8) = 5e-6 + 2e-5
    close(p["ssd_s"], 2.5e-5)
    # 2 x 5 + 0.5 x 80 + 0.5 x 20 + 0.05 + 0.02
    close(p["lat0_us"], 60.07)


def test_project_bounds():
    p = P.project(DEMAND, SETUP, SIZES, 100)
    b = p["bounds"]
    close(b["cpu"], 4 / 0.05e-6)                 # 80 M
    close(b["nic"], 1 / 9e-6)                    # 4/1e6 + 0.5/1e5 s
    close(b["nicbw"], 1e9 / 3150)
    close(b["ssd"], 80000)                       # 2 / 2.5e-5
    close(b["client_cpu"], 1e8)                  # 2 / 0.02e-6
    close(b["clients"], 10 / 60.07e-6)
    assert p["bound"] == "ssd", p["bound"]
    close(p["ops"], 80000)
    assert p["node_bound"] == "ssd", p["node_bound"]
    close(p["lat_us"], 125)                      # 10 threads / 80 K ops/s
    close(p["util"]["nic"], 80000 * 9e-6)        # 0.72
    close(p["util"]["ssd"], 1.0)


def test_no_target_offload():
    s = dict(SETUP, nvmet_offload=False)
    # all of the rest stays: (1000 + 3000) / 100 / 0.5 = 80 ns
    close(P.project(DEMAND, s, SIZES, 100)["cpu_us"], 0.08)


def test_rpc_message_cpu():
    # 2 x 0.5 RPCs x 0.5 us = 0.5 us, plus 0.025 us from the counters
    # (2500 bed ns / 100), on cores of speed 0.5: 1.05 us
    p = P.project(DEMAND, SETUP, SIZES, 100, rpc_msg_us=0.5)
    close(p["cpu_us"], 1.05)
    close(p["bounds"]["cpu"], 4 / 1.05e-6)


def test_cpu_bound():
    # 4 SSDs: SSD bound 160 K; NIC 111 K, clients 10 / 70.02 us = 143 K
    s = dict(SETUP, target_cores=1, core_speed=1.0, ssds=4)
    d = dict(DEMAND, scalio_ns=1e6, rest_ns=0.0)   # 1 ms bed
    p = P.project(d, s, SIZES, 100)              # 10 us on the cores
    close(p["cpu_us"], 10)
    assert p["bound"] == "cpu", p["bound"]
    close(p["ops"], 1e5)
    # clients bind first with 5 threads (5 / 70.02 us = 71 K); the node: CPU
    p5 = P.project(d, dict(s, client_threads=5), SIZES, 100)
    assert p5["bound"] == "clients", p5["bound"]
    close(p5["ops"], 5 / 70.02e-6)
    assert p5["node_bound"] == "cpu", p5["node_bound"]
    close(p5["node_ops"], 1e5)
    close(p5["lat_us"], 70.02)
    # lat0 = 10 + 40 + 10 + 10 + 0.02 = 70.02; 10 threads / 100 K = 100 us
    close(p["lat0_us"], 70.02)
    close(p["lat_us"], 100)


def test_calibrate():
    dem = {("offload", "c"): dict(DEMAND, rest_ns=2e6, host_rd=1.0)}
    close(P.calibrate(dem, {"cpu_scale": "auto", "nvmet_us_per_io": 2})[0],
          1000)                                  # 2 ms bed / 2 us
    close(P.calibrate(dem, {"cpu_scale": 250.0})[0], 250)
    close(P.calibrate({}, {"cpu_scale": "auto",
                           "cpu_scale_fallback": 400})[0], 400)
    # 2 us of bed CPU per read would be a scale of 1: noise, fallback
    dem = {("offload", "c"): dict(DEMAND, rest_ns=2e3, host_rd=1.0)}
    close(P.calibrate(dem, {"cpu_scale": "auto", "nvmet_us_per_io": 2,
                            "cpu_scale_fallback": 400})[0], 400)


def test_demand_from():
    run = {"ops": 100, "cache_hit_ratio": 0,
           "host_delta": {"gets": 100, "waits": 100},
           "target_delta": {"rpc_gets": 100, "ssd_reads": 100,
                            "cpu_ns_rpc": 1000000}}
    z = [0] * 8
    # target: busy 10 + 20 + 30 = 60 ticks, softirq 30; host: 60, 10
    cpu = [z, z, [10, 0, 20, 100, 0, 0, 30, 0], [40, 0, 10, 50, 0, 0, 10, 0]]
    d = P.demand_from(run, cpu)
    close(d["scalio_ns"], 1e4)
    close(d["sirq_ns"], 3e6)                     # 30 ticks x 10 ms / 100
    close(d["rest_ns"], 6e6 - 1e4 - 3e6)
    close(d["host_ns"], 5e6)                     # (60 - 10) x 10 ms / 100
    close(d["rpcs"], 1.0)
    close(d["tgt_rd"], 1.0)
    close(d["waits"], 1.0)


def test_leed_demands():
    c = dict(DEMAND, gets=1.0, puts=0.0, tgt_rd=1.0, tgt_wr=0.0,
             host_rd=0.0, scalio_ns=100, rest_ns=1000, wr_bytes=0)
    a = dict(DEMAND, gets=0.5, puts=0.5, tgt_rd=0.5, tgt_wr=0.5,
             host_rd=0.0, scalio_ns=300, rest_ns=800, wr_bytes=4000)
    leed = {"ssd_reads_per_get": 2, "ssd_reads_per_put": 1,
            "ssd_writes_per_put": 2, "put_write_bytes": 1536}
    ld = P.leed_demands({("base", "c"): c, ("base", "a"): a}, leed)
    g, p = ld["get"], ld["put"]
    close(g["tgt_rd"], 2)
    close(g["rest_ns"], 2000)                    # 1000 x 2 / 1
    close(g["scalio_ns"], 100)
    # PUT = 2A - C: scalio 500, rest 600, 0 reads + 1 write, 8000 bytes;
    # then LEED's 3 accesses: rest 600 x 3 / 1
    close(p["scalio_ns"], 500)
    close(p["rest_ns"], 1800)
    close(p["tgt_rd"], 1)
    close(p["tgt_wr"], 2)
    close(p["wr_bytes"], 1536)
    close(p["puts"], 1)
    close(p["gets"], 0)


def test_inputs_file():
    inp = P.load_inputs()
    for name in ("scalio-paper", "leed-paper"):
        s = inp["setups"][name]
        for k in P.SETUP_KEYS:
            assert isinstance(s[k], float), (name, k, s[k])
    assert inp["setups"]["scalio-paper"]["nvmet_offload"] is True
    assert inp["setups"]["leed-paper"]["nvmet_offload"] is False
    assert inp["projection"]["default_setup"] in inp["setups"]


def test_section_end_to_end():
    """A raw directory with two points renders the section and the check."""
    z = "cpu 0 0 0 1000 0 0 0 0\n"
    with tempfile.TemporaryDirectory() as raw:
        for cfg, hd, td in (
                ("base", {"gets": 100, "waits": 100, "rpc_gets": 100},
                 {"rpc_gets": 100, "ssd_reads": 100, "cpu_ns_rpc": 2000000}),
                ("offload", {"gets": 100, "waits": 100, "rdma_reads": 100,
                             "ssd_reads": 100}, {})):
            run = {"ops": 100, "seconds": 1, "errors": 0,
                   "throughput_ops_per_s": 100, "cache_hit_ratio": 0,
                   "host_delta": hd, "target_delta": td, "latency_us": {}}
            json.dump({"phases": {"run": run}},
                      open(os.path.join(raw, "brk-%s-c.json" % cfg), "w"))
            open(os.path.join(raw, "brk-%s-c.cpu" % cfg), "w").write(
                z + z + "cpu 0 0 40 1060 0 0 20 0\n" +
                "cpu 0 0 30 1070 0 0 10 0\n")
        L = P.section(raw)
        text = "\n".join(L)
        assert L[0].startswith("## Projection to hardware"), L[0]
        # offload C: rest = (60 - 20) ticks x 10 ms / 100 = 4 ms per read
        # -> 2000 bed ns per ns against nvmet_us_per_io = 2
        assert "**2000 bed ns per hardware ns**" in text, text
        assert "| baseline | YCSB C |" in text
        assert "### Check: the baseline" in text
        assert "| leed-paper | GET |" in text


TESTS = [v for k, v in sorted(globals().items()) if k.startswith("test_")]


def main():
    print("1..%d" % len(TESTS))
    bad = 0
    for i, t in enumerate(TESTS, 1):
        try:
            t()
            print("ok %d - %s" % (i, t.__name__))
        except Exception as e:  # report every failure, then exit non-zero
            bad += 1
            print("not ok %d - %s: %s: %s" % (i, t.__name__,
                                              type(e).__name__, e))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
