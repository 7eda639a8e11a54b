#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/wa-report.py RAWDIR: the tables of `make bench-wa` (bench/wa.sh),
as Markdown on stdout, from the raw files bench/wa-guest.sh wrote.

Every figure is a delta of the target's own counters (scalioctl stats
--json, before and after a phase) or fio's PUT rate of that phase; keys are
8 bytes (fio's binary_keys=1), so a PUT's user bytes are 8 + value size.
The fill estimates at the end are computed from the format's constants and
the store's geometry, not measured; they are labelled so.
"""
import os
import sys

from reportlib import load_json, meta

UNIT = 4096
SECTOR = 512
SEG_HDR = 32        # struct scalio_seg_hdr
REC_HDR = 4         # struct scalio_rec_hdr
KLEN = 8            # fio binary_keys=1
# Largest segment: 255 units (format 2: from a unit; format 3: from any
# sector, SCALIO_SEG_MAX_BYTES).
SEG_MAX = {'v2': 255 * UNIT, 'v3': 255 * UNIT - (UNIT - SECTOR)}
ALIGN = {'v2': UNIT, 'v3': SECTOR}
NAME = {'v2': 'format 2', 'v3': 'format 3'}


class Phase:
    def __init__(self, raw, prefix, vsize):
        b = load_json(prefix + '.before')
        a = load_json(prefix + '.after')
        job = load_json(prefix + '.json')['jobs'][0]
        self.d = {k[7:]: a[k] - b[k] for k in a
                  if k.startswith('target_') and isinstance(a[k], int)}
        self.after = {k[7:]: a[k] for k in a if k.startswith('target_')}
        self.nr_blocks = a['nr_blocks']
        self.slots = a['slots_per_block']
        self.fio_ios = job['write']['total_ios']
        self.fio_err = job['error']
        self.iops = job['write']['iops']
        self.puts = self.d['rpc_puts']
        self.user = self.puts * (KLEN + vsize)
        self.wa = self.d['ssd_write_bytes'] / self.user if self.user else 0
        self.bpp = self.d['ssd_write_bytes'] / self.puts if self.puts else 0
        self.wpp = self.d['ssd_writes'] / self.puts if self.puts else 0
        self.opb = (self.d['batched_ops'] / self.d['batches']
                    if self.d['batches'] else 0)


def fmt_ratio(a, b):
    return '%.2fx' % (a / b) if b else 'n/a'


def main():
    raw = sys.argv[1]
    hm = meta(os.path.join(raw, 'host-meta.txt'))
    gm = meta(os.path.join(raw, 'meta.txt'))
    versions = gm['versions'].split()
    nblocks = [int(x) for x in gm['nblocks'].split()]
    sizes = [int(x) for x in gm['sizes'].split()]
    depths = [int(x) for x in gm['depths'].split()]
    keys = int(gm['keys'])
    updates = int(gm['updates'])

    P = {}
    for v in versions:
        for nb in nblocks:
            for sz in sizes:
                for ph in ['load'] + ['d%d' % d for d in depths]:
                    pre = os.path.join(raw, '%s-nb%d-v%d-%s' % (v, nb, sz, ph))
                    P[v, nb, sz, ph] = Phase(raw, pre, sz)

    out = []
    w = out.append
    w('Produced by `make bench-wa` (bench/wa.sh) on %s.' % hm['date'])
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
    w('| source | format 3: commit %s; format 2: modules built from commit '
      '%s; scalioctl, fio engine and uAPI of %s for both |'
      % (hm['commit'], hm['v2_commit'], hm['commit']))
    w('| bed | one boot: one target VM with one emulated NVMe SSD (1 GiB '
      'image), one host VM; both modules reloaded between the versions '
      '(format 2 first, then format 3) |')
    w('| workload | per version, geometry and value size: a freshly '
      'formatted store (one SSD, 8 slots per block, other attributes at '
      'their defaults: batch_max 64, inline cache and offloaded reads on); '
      'load %d keys (fio, scalio ioengine over io_uring, %s in flight, '
      'keys 8 B); then %d PUTs at random keys of those (fio randwrite: each '
      'key once, in random order) from one fio job keeping %s PUTs in '
      'flight |' % (keys, gm['load_depth'], updates,
                    ' and then '.join(str(d) for d in depths)))
    w('| wall | %s s in the VMs |' % hm.get('wall', '?'))
    w('')
    w('Write amplification = SSD bytes written (target counter '
      '`ssd_write_bytes`: batches, and checkpoints or cleaning if any) / '
      '(PUTs x (8 B key + value)), over the update phase only; PUTs = the '
      'target\'s `rpc_puts` delta. Ratios are format 3 / format 2, same '
      'boot.')
    w('')
    for nb in nblocks:
        slots = P[versions[0], nb, sizes[0], 'load'].slots
        w('### %d hash blocks (%s)' % (
            nb, '`make bench`\'s and 14-segcache\'s geometry: about %d keys '
            'per block' % (keys // nb) if keys // nb > 1 else
            'the bed\'s default geometry (`target-setup` without '
            '`--nblocks`): about %.1f keys per block' % (keys / nb)))
        w('')
        w('| value | in flight | SSD B / user B, f2 | f3 | f3/f2 | '
          'SSD B per PUT, f2 | f3 | SSD writes / PUT, f2 | f3 | '
          'PUTs / batch, f2 | f3 | PUT/s, f2 | f3 | f3/f2 |')
        w('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: '
          '| ---: | ---: | ---: | ---: | ---: |')
        for sz in sizes:
            for d in depths:
                a = P['v2', nb, sz, 'd%d' % d]
                b = P['v3', nb, sz, 'd%d' % d]
                w('| %d B | %d | %.2f | %.2f | %s | %.0f | %.0f | %.3f | '
                  '%.3f | %.2f | %.2f | %.0f | %.0f | %s |' % (
                      sz, d, a.wa, b.wa, fmt_ratio(b.wa, a.wa), a.bpp, b.bpp,
                      a.wpp, b.wpp, a.opb, b.opb, a.iops, b.iops,
                      fmt_ratio(b.iops, a.iops)))
        w('')

    # Goals at 64 in flight.
    if 64 in depths:
        w('### Issue 36\'s write goal (one host, 64 PUTs in flight)')
        w('')
        w('| geometry | value | goal | format 2 | format 3 |')
        w('| --- | ---: | ---: | ---: | ---: |')
        for nb in nblocks:
            for sz, goal in ((1024, 2), (64, 8)):
                if sz not in sizes:
                    continue
                cells = []
                for v in ('v2', 'v3'):
                    x = P[v, nb, sz, 'd64'].wa
                    cells.append('%.2f (%s)' % (x, 'met' if x <= goal
                                                else 'not met'))
                w('| %d blocks | %d B | <= %d | %s | %s |'
                  % (nb, sz, goal, cells[0], cells[1]))
        w('')

    # DRAM per key and fill.
    w('### DRAM per stored key, and what fills up first')
    w('')
    w('Index DRAM = nr_blocks x (64 + 128 x slots) B of hash blocks (a '
      '64 B header, reserved, and the slots: the inline cache) + 8 B per '
      'block of seg table; outside the cache that leaves the seg table '
      '(and the blocks\' 64 B headers, which hold nothing). Keys: the '
      'target\'s `keys` counter after the run. Log: `log_used_units` / '
      '`log_total_units` after the run (load + updates; `cleaner_runs` '
      'says whether the cleaner ran). Format 3 also has the target\'s own '
      'counters `index_bytes` (the index\'s DRAM: blocks, seg table, '
      'generations, header page) and `live_bytes` (the blocks\' current '
      'segments on the SSD); format 2 has neither.')
    w('')
    w('| geometry | value | index DRAM (seg table) | keys (f2 / f3) | '
      'DRAM per key: whole index | seg table only | '
      'f3 `index_bytes` (per key) | log used after the run, f2 / f3 | '
      'f3 `live_bytes` / log | cleaner runs f2 / f3 |')
    w('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for nb in nblocks:
        for sz in sizes:
            ph = {v: P[v, nb, sz, 'd%d' % depths[-1]] for v in ('v2', 'v3')}
            a = ph['v2'].after
            idx = nb * (64 + 128 * ph['v2'].slots) + 8 * nb
            k2, k3 = ph['v2'].after['keys'], ph['v3'].after['keys']
            cr = [sum(P[v, nb, sz, p].d['cleaner_runs'] for p in
                      ['load'] + ['d%d' % d for d in depths])
                  for v in ('v2', 'v3')]
            a3 = ph['v3'].after
            ib = a3.get('index_bytes', 0)
            lb = a3.get('live_bytes', 0)
            w('| %d blocks | %d B | %d B (%d B) | %d / %d | %.1f B | %.2f B '
              '| %s | %.2f %% / %.2f %% | %s | %d / %d |' % (
                  nb, sz, idx, 8 * nb, k2, k3, idx / max(k3, 1),
                  8.0 * nb / max(k3, 1),
                  '%d B (%.1f B)' % (ib, ib / max(k3, 1)) if ib else 'n/a',
                  100.0 * a['log_used_units'] / a['log_total_units'],
                  100.0 * a3['log_used_units'] / a3['log_total_units'],
                  '%d B (%.2f %%)' % (lb, 100.0 * lb /
                                      (a3['log_total_units'] * UNIT))
                  if lb else 'n/a', cr[0], cr[1]))
    w('')
    w('What fills up first, computed (not measured) from the geometry and '
      'the format: with uniformly hashed keys a block holds keys / nr_blocks '
      'records of 4 + 8 + value bytes behind a 32 B segment header, and a '
      'segment may not exceed 255 units (a PUT that would grow it fails '
      'with EFBIG): the *segment cap*, at about nr_blocks x (max segment - '
      '32) / (12 + value) keys (fewer in practice: the fullest block gets '
      'there first). The *log* (the SSD) is full for the admin guide\'s '
      'sizing when live segments take half of it; live bytes = nr_blocks x '
      'the segment rounded up to a unit (format 2) or a sector (format 3). '
      'The index DRAM is fixed at setup; the last columns divide it (and '
      'the seg table alone) by the keys of the first limit, where each '
      'PUT rewrites a segment of keys / nr_blocks records.')
    w('')
    w('| geometry | value | format | segment cap at | log half full at | '
      'fills first | DRAM per key there: whole index | seg table |')
    w('| --- | ---: | --- | ---: | ---: | --- | ---: | ---: |')
    for nb in nblocks:
        for sz in sizes:
            for v in ('v2', 'v3'):
                ph = P[v, nb, sz, 'd%d' % depths[-1]]
                rec = REC_HDR + KLEN + sz
                cap = nb * ((SEG_MAX[v] - SEG_HDR) // rec)
                half = ph.after['log_total_units'] * UNIT / 2
                # keys per block k with nb * (SEG_HDR + k*rec + ALIGN/2) = half
                per = (half / nb - SEG_HDR - ALIGN[v] / 2) / rec
                logk = int(max(per, 0) * nb)
                first = 'segment cap (EFBIG)' if cap < logk else 'log (ENOSPC)'
                idx = nb * (64 + 128 * ph.slots) + 8 * nb
                w('| %d blocks | %d B | %s | %d keys | %d keys | %s | %.2f B '
                  '| %.4f B |' % (nb, sz, NAME[v], cap, logk, first,
                                  idx / min(cap, logk),
                                  8.0 * nb / min(cap, logk)))
    w('')
    bad = [(k, p.fio_ios, p.puts, p.fio_err) for k, p in P.items()
           if p.fio_err or p.fio_ios != p.puts]
    if bad:
        w('**Check:** phases where fio\'s completed PUTs differ from the '
          'target\'s rpc_puts, or fio reported an error: %s' % bad)
        w('')
    print('\n'.join(out))


if __name__ == '__main__':
    main()
