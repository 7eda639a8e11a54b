#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/buckets-report.py RAWDIR: the tables of `make bench-buckets`
(bench/buckets.sh), as Markdown on stdout, from the raw files
bench/buckets-guest.sh wrote.

Every figure is a delta of the store's own counters (scalioctl stats
--json, before and after a phase: this host's counters unprefixed, the
target's as target_*), of the host VM's block-layer read counters
(/sys/block/nvme*/stat) or fio's rate of that phase.  Keys are 8 bytes
(fio's binary_keys=1), so a PUT's user bytes are 8 + value size.
"""
import os
import sys

from reportlib import Phase, div, meta

KLEN = 8            # fio binary_keys=1
BLOCK_HDR = 64      # a cache block: 64 B header + 128 B per slot
SLOT = 128
INLINE_MAX = 72     # SCALIO_INLINE_MAX: largest value a slot caches
PAGE = 4096         # the guests' PAGE_SIZE (x86-64)
CHUNK = (2 << 20) - PAGE    # SCALIO_INDEX_CHUNK_BYTES (target/scalio_target.h)


def page_align(n):
    return (n + PAGE - 1) // PAGE * PAGE


def index_split(nb, nbk, slots):
    """target/index.c's allocation: (cache block bytes, header page bytes,
    bucket bytes of the index proper).  Blocks are allocated in chunks of
    page-aligned memory, and so are the chunks' seg words; the per-bucket
    part the commit threads add (generations, batch slots, segment cache
    entries, checkpoint entries) is what index_bytes has beyond these."""
    bsz = BLOCK_HDR + SLOT * slots
    bpb = nbk // nb
    per = min(CHUNK // bsz, CHUNK // (bpb * 8))
    blocks = segmem = 0
    first = 0
    while first < nb:
        n = min(per, nb - first)
        blocks += page_align(n * bsz)
        segmem += page_align(n * bpb * 8)
        first += n
    return blocks, PAGE, nbk * 8 + segmem


def ratio(a, b):
    return '%.2f' % (a / b) if b else 'n/a'


def main():
    raw = sys.argv[1]
    hm = meta(os.path.join(raw, 'host-meta.txt'))
    gm = meta(os.path.join(raw, 'meta.txt'))
    geoms = [tuple(int(x) for x in g.split('x')) for g in gm['geoms'].split()]
    sizes = [int(x) for x in gm['sizes'].split()]
    keys_req = int(gm['keys'])
    updates = int(gm['updates'])
    gets = int(gm['gets'])

    P = {}
    for nb, nbk in geoms:
        for sz in sizes:
            pre = os.path.join(raw, 'nb%d-nbk%d-v%d' % (nb, nbk, sz))
            P[nb, nbk, sz] = {
                'load': Phase(pre + '-load', 'write'),
                'upd': Phase(pre + '-upd', 'write'),
                'get': Phase(pre + '-get', 'read'),
            }

    out = []
    w = out.append
    w('Produced by `make bench-buckets` (bench/buckets.sh) on %s.'
      % hm['date'])
    w('')
    w('| | |')
    w('| --- | --- |')
    w('| build machine | %s, %s cores, %s GB RAM, %s; load average at '
      'start %s, at end %s |' % (hm['machine_cpu'], hm['machine_cores'],
                                 hm['machine_mem_gb'], hm['machine_kernel'],
                                 hm['machine_load'],
                                 hm.get('machine_load_end', '?')))
    w('| VM kernel | %s (target and host VM, 1 vCPU and 1 GiB each) |'
      % gm['guest_kernel'])
    w('| emulator | %s, TCG (no KVM) |' % hm['qemu'])
    w('| source | commit %s: modules, scalioctl and fio engine, all '
      'geometries |' % hm['commit'])
    w('| bed | one boot: one target VM with one emulated NVMe SSD (1 GiB '
      'image), one host VM |')
    w('| workload | per geometry (cache blocks x buckets) and value size: a '
      'freshly formatted store (one SSD, other attributes at their '
      'defaults); load %d keys (fio, scalio ioengine over io_uring, 64 in '
      'flight, keys 8 B, sequential); %d PUTs at random loaded keys (fio '
      'randwrite, each key at most once); %d GETs at random loaded keys '
      '(fio randread with norandommap: uniform, with repeats, so a hit '
      'needs the key still cached from an earlier GET or PUT; a missing '
      'key fails the run); one fio job, %s in '
      'flight, in each phase |' % (keys_req, updates, gets, gm['depth']))
    w('| wall | %s s in the VMs |' % hm.get('wall', '?'))
    w('')
    w('DRAM: `index_bytes` (target counter) after the run, split into the '
      'cache blocks, nr_blocks x (%d + %d x slots) B allocated in page-'
      'aligned chunks of up to 2 MiB (computed from the geometry as '
      'target/index.c allocates them), one 4 KiB header page (in DRAM / key, '
      'in neither part) and the rest, the buckets\' part: seg words (the '
      'table and the chunks\' page-aligned copy), generation, batch slot '
      'and checkpoint entry per bucket, plus the segment cache\'s pool '
      '(bounded by attr_seg_cache_mb, not by the buckets). Keys: the '
      'target\'s `keys` after the run. WA: SSD bytes written (`ssd_write_bytes` '
      'delta) / (PUTs x (8 + value)) over the update phase, PUTs = the '
      'target\'s `rpc_puts` delta. GET figures: the host\'s counters over '
      'the GET phase; a miss is `cache_misses`; SSD reads are the host\'s '
      '`ssd_reads` (offloaded NVMe-oF reads) plus the target\'s '
      '`ssd_reads` (misses it served); bytes read per miss are the host '
      'VM\'s block-layer sectors read on its NVMe(-oF) disks (no scalio '
      'counter counts read bytes; reads the target does for misses it '
      'serves are not in that figure). Throughput is a ratio to the first '
      'geometry of the same value size, same boot; absolute rates are raw '
      'data only, in the last table.' % (BLOCK_HDR, SLOT))
    w('')
    for sz in sizes:
        w('### %d B values' % sz)
        w('')
        if sz > INLINE_MAX:
            w('Values over %d B (SCALIO_INLINE_MAX) are never cached in a '
              'slot: every GET is a miss at any geometry, and the hit ratio '
              'is 0 by design.' % INLINE_MAX)
            w('')
        w('| geometry (blocks x buckets) | keys | index_bytes | DRAM / key '
          '| cache blocks / key | buckets / key | B per bucket | '
          'keys / bucket | WA (update) | SSD reads / miss (host + target) '
          '| SSD B read / miss | hit ratio | retries / GET | PUT/s ratio | '
          'GET/s ratio |')
        w('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: '
          '| ---: | ---: | ---: | ---: | ---: | ---: |')
        base = P[geoms[0][0], geoms[0][1], sz]
        for nb, nbk in geoms:
            ph = P[nb, nbk, sz]
            ld, up, gt = ph['load'], ph['upd'], ph['get']
            a = gt.after
            slots = gt.a['slots_per_block']
            keys = a['keys']
            ib = a['index_bytes']
            nbk_st = gt.a.get('nr_buckets', nbk)
            blocks_b, hdr_b, _ = index_split(gt.a['nr_blocks'], nbk_st, slots)
            bucket_b = ib - blocks_b - hdr_b
            user = up.t['rpc_puts'] * (KLEN + sz)
            miss = gt.h['cache_misses']
            reads = gt.h['ssd_reads'] + gt.t['ssd_reads']
            w('| %d x %d | %d | %d | %s | %s | %s | %s | %s | %s | %s (%s + '
              '%s) | %s | %s | %s | %s | %s |' % (
                  nb, nbk, keys, ib, div(ib, keys, '%.1f'),
                  div(blocks_b, keys, '%.1f'), div(bucket_b, keys, '%.1f'),
                  div(bucket_b, nbk_st, '%.1f'), div(keys, nbk_st),
                  div(up.t['ssd_write_bytes'], user),
                  div(reads, miss), div(gt.h['ssd_reads'], miss),
                  div(gt.t['ssd_reads'], miss),
                  div(gt.blk_bytes, miss, '%.0f') if gt.blk_ok else 'n/a',
                  div(gt.h['cache_hits'], gt.h['gets'], '%.3f'),
                  div(gt.h['retries'], gt.h['gets']),
                  ratio(up.iops, base['upd'].iops),
                  ratio(gt.iops, base['get'].iops)))
        w('')

    w('### Raw data')
    w('')
    w('| geometry | value | load PUT/s | update PUT/s | GET/s | GETs | '
      'hits | misses | host ssd_reads | host rpc_gets | target ssd_reads '
      '(GET phase) | host VM read I/Os, bytes | retries | SSD B written '
      '(update) | live_bytes | log used | cleaner runs |')
    w('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: '
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for nb, nbk in geoms:
        for sz in sizes:
            ph = P[nb, nbk, sz]
            ld, up, gt = ph['load'], ph['upd'], ph['get']
            a = gt.after
            cr = sum(ph[p].t['cleaner_runs'] for p in ph)
            w('| %d x %d | %d B | %.0f | %.0f | %.0f | %d | %d | %d | %d | %d '
              '| %d | %s | %d | %d | %d | %.2f %% | %d |' % (
                  nb, nbk, sz, ld.iops, up.iops, gt.iops, gt.h['gets'],
                  gt.h['cache_hits'], gt.h['cache_misses'],
                  gt.h['ssd_reads'], gt.h['rpc_gets'], gt.t['ssd_reads'],
                  '%d, %d' % (gt.blk_ios, gt.blk_bytes) if gt.blk_ok
                  else 'n/a', gt.h['retries'], up.t['ssd_write_bytes'],
                  a['live_bytes'],
                  100.0 * a['log_used_units'] / max(a['log_total_units'], 1),
                  cr))
    w('')
    bad = []
    for k, ph in P.items():
        for n, p in ph.items():
            done = p.h['gets'] if n == 'get' else p.t['rpc_puts']
            if p.fio_err or p.fio_ios != done:
                bad.append((k, n, p.fio_ios, done, p.fio_err))
            if n == 'get' and p.fio_ios != gets:
                bad.append((k, n, 'fio GETs', p.fio_ios, 'asked', gets))
        if ph['get'].after['keys'] != keys_req:
            bad.append((k, 'keys', ph['get'].after['keys'], 'asked',
                        keys_req))
    if bad:
        w('**Check:** phases where fio\'s completed operations differ from '
          'the store\'s counters (PUTs: target rpc_puts; GETs: host gets) '
          'or from what was asked, or fio reported an error: %s' % bad)
        w('')
    print('\n'.join(out))


if __name__ == '__main__':
    main()
