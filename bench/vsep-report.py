#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/vsep-report.py RAWDIR: the tables of `make bench-vsep`
(bench/vsep.sh), as Markdown on stdout, from the raw files
bench/vsep-guest.sh wrote.

Every figure is a delta of the store's own counters (scalioctl stats
--json, before and after a phase: this host's counters unprefixed, the
target's as target_*), of the host VM's block-layer read counters
(/sys/block/nvme*/stat) or fio's latencies of that phase.  Keys are 8
bytes (fio's binary_keys=1), so a PUT's user bytes are 8 + value size.
Latencies are reported as ratios to the never-separate store (inline max
4096) of the same value size in the same round; absolute times only in
the raw table.
"""
import os
import statistics
import sys

import reportlib
from reportlib import div, meta

KLEN = 8            # fio binary_keys=1
SECTOR = 512
UNIT = 4096
SEG_HDR = 32        # struct scalio_seg_hdr
REC_HDR = 4         # struct scalio_rec_hdr
VPTR = 24           # struct scalio_vptr
VAL_HDR = 24        # struct scalio_val_hdr
SEG_MAX = 255 * UNIT - (UNIT - SECTOR)  # SCALIO_SEG_MAX_BYTES


class Phase(reportlib.Phase):
    """A phase, with the clat percentiles of its fio job (us)."""

    def __init__(self, prefix, ddir):
        super().__init__(prefix, ddir)
        d = self.job[ddir]
        pct = d['clat_ns'].get('percentile', {})
        self.p50 = pct.get('50.000000', 0) / 1000.0
        self.p99 = pct.get('99.000000', 0) / 1000.0
        self.mean = d['clat_ns'].get('mean', 0) / 1000.0


def med_range(xs, f='%.2f'):
    """'median [min..max]' of a list of ratios."""
    if not xs:
        return 'n/a'
    return (f + ' [' + f + '..' + f + ']') % (statistics.median(xs),
                                               min(xs), max(xs))


def val_size(v):
    """Bytes an extent takes in a batch (8-byte packing)."""
    return (VAL_HDR + KLEN + v + 7) // 8 * 8


def main():
    raw = sys.argv[1]
    hm = meta(os.path.join(raw, 'host-meta.txt'))
    gm = meta(os.path.join(raw, 'meta.txt'))
    geoms = [tuple(int(x) for x in g.split('x')) for g in gm['geoms'].split()]
    sizes = [int(x) for x in gm['sizes'].split()]
    maxes = [int(x) for x in gm['maxes'].split()]
    keys_req = int(gm['keys'])
    updates = int(gm['updates'])
    rounds = int(gm['rounds'])
    gets = int(gm['gets'])
    ref = maxes[0]

    P = {}
    for nb, nbk in geoms:
        for sz in sizes:
            for m in maxes:
                pre = os.path.join(raw, 'g%dx%d-v%d-m%d' % (nb, nbk, sz, m))
                P[nb, nbk, sz, m] = {
                    'load': Phase(pre + '-load', 'write'),
                    'upd': Phase(pre + '-upd', 'write'),
                    'get': [Phase(pre + '-get%d' % r, 'read')
                            for r in range(1, rounds + 1)],
                }

    out = []
    w = out.append
    w('Produced by `make bench-vsep%s` (bench/vsep.sh) on %s.'
      % (' QUICK=1' if hm.get('quick') == '1' else '', hm['date']))
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
    w('| source | commit %s: modules, scalioctl and fio engine |'
      % hm['commit'])
    w('| bed | one boot: one target VM with %d emulated NVMe SSDs (1 GiB '
      'images), one host VM; per value size one store per inline max, '
      'each on its own SSD, all alive at once |' % len(maxes))
    w('| workload | per geometry (cache blocks x buckets), value size and '
      'value_inline_max: a freshly formatted store (inline cache off, '
      'other attributes at their defaults); fill %d keys (fio, scalio '
      'ioengine over io_uring, keys 8 B, sequential); %d PUTs at random '
      'loaded keys (fio randwrite, each key at most once); both at %s in '
      'flight, one store after the other; then %d rounds in which every '
      'store in turn (order rotated each round) serves %d GETs at random '
      'loaded keys, uniform with repeats, one in flight: all misses '
      '(inline cache off) |' % (keys_req, updates, gm['depth'], rounds, gets))
    w('| wall | %s s in the VMs |' % hm.get('wall', '?'))
    w('')
    w('Columns. *Apart*: values of this size are stored apart (value > '
      'inline max). *WA*: SSD bytes written (target `ssd_write_bytes` '
      'delta: batches, checkpoints, cleaning) / (PUTs x (8 + value)), PUTs '
      '= the target\'s `rpc_puts` delta; fill, update, and both phases '
      'together. *Extents / PUT*: target `vals_written` / PUTs over both '
      'phases. *SSD reads / miss*: host `ssd_reads` / `gets` over all GET '
      'rounds (every GET a miss), of which value-extent reads (host '
      '`get_val_reads`); *B read / miss*: the host VM\'s block-layer sectors '
      'read on its NVMe-oF disks / GETs. *GET p50, p99 ratio*: per round, '
      'fio\'s completion-latency percentile of this store / that of the '
      'inline-max-%d store of the same value size in the same round; '
      'median over the rounds [lowest..highest]; a row whose values are '
      'inline like the reference\'s is an A/A comparison and shows the '
      'bed\'s noise. *DRAM / key*: target `index_bytes` / `keys` after the '
      'run; *live B / key*: (`live_bytes` + `live_val_bytes`) / `keys`, '
      'what the store needs on the SSD per key.' % ref)
    w('')
    for nb, nbk in geoms:
        kpb = keys_req / nbk
        w('### %d cache blocks x %d buckets: %.1f keys per bucket on '
          'average' % (nb, nbk, kpb))
        w('')
        w('| value | inline max | apart | WA fill | WA update | WA fill + '
          'update | x never | extents / PUT | SSD reads / miss (extents) '
          '| x never | B read / miss | x never | GET p50 ratio | GET p99 '
          'ratio | DRAM / key | live B / key |')
        w('| ---: | ---: | :---: | ---: | ---: | ---: | ---: | ---: | ---: '
          '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
        for sz in sizes:
            rb = P[nb, nbk, sz, ref]
            rwa = rrd = rby = None
            for m in maxes:
                ph = P[nb, nbk, sz, m]
                ld, up, gl = ph['load'], ph['upd'], ph['get']
                puts = ld.t['rpc_puts'] + up.t['rpc_puts']
                wr = ld.t['ssd_write_bytes'] + up.t['ssd_write_bytes']
                wa = wr / (puts * (KLEN + sz)) if puts else 0
                g = sum(p.h['gets'] for p in gl)
                rd = sum(p.h['ssd_reads'] + p.t['ssd_reads'] for p in gl)
                vr = sum(p.h['get_val_reads'] for p in gl)
                by = sum(p.blk_bytes for p in gl)
                if m == ref:
                    rwa, rrd, rby = wa, rd / g, by / g
                r50 = [p.p50 / q.p50 for p, q in zip(gl, rb['get'])
                       if q.p50]
                r99 = [p.p99 / q.p99 for p, q in zip(gl, rb['get'])
                       if q.p99]
                a = gl[-1].after
                w('| %d B | %d | %s | %s | %s | %s | %s | %s | %s (%s) | %s '
                  '| %s | %s | %s | %s | %s | %s |' % (
                      sz, m, 'yes' if sz > m else 'no',
                      div(ld.t['ssd_write_bytes'],
                          ld.t['rpc_puts'] * (KLEN + sz)),
                      div(up.t['ssd_write_bytes'],
                          up.t['rpc_puts'] * (KLEN + sz)),
                      '%.2f' % wa, div(wa, rwa), div(
                          ld.t['vals_written'] + up.t['vals_written'], puts),
                      div(rd, g), div(vr, g), div(rd / g, rrd),
                      div(by, g, '%.0f'), div(by / g, rby),
                      'ref' if m == ref else med_range(r50),
                      'ref' if m == ref else med_range(r99),
                      div(a['index_bytes'], a['keys'], '%.1f'),
                      div(a['live_bytes'] + a['live_val_bytes'], a['keys'],
                          '%.0f')))
        w('')

        w('#### What fills up first (computed from the measured live bytes)')
        w('')
        w('A bucket\'s segment may not exceed %d B (SCALIO_SEG_MAX_BYTES; a '
          'PUT that would grow it fails with EFBIG); it holds a %d B header '
          'and per key a %d B record header, the key and the value or a %d '
          'B pointer: the *segment cap* is nbuckets x that many keys '
          '(fewer in practice: the fullest bucket gets there first). The '
          '*log* is full for the admin guide\'s sizing when live data '
          'takes half of it: log bytes (`log_total_units`, one 1 GiB SSD) '
          '/ 2 / the measured live bytes per key. The index DRAM is fixed '
          'at setup; the last column divides it by the keys of the first '
          'limit.' % (SEG_MAX, SEG_HDR, REC_HDR, VPTR))
        w('')
        w('| value | inline max | keys per bucket at the cap | segment cap '
          'at | log half full at | fills first | DRAM per key there |')
        w('| ---: | ---: | ---: | ---: | ---: | --- | ---: |')
        for sz in sizes:
            for m in maxes:
                a = P[nb, nbk, sz, m]['get'][-1].after
                rec = REC_HDR + KLEN + (VPTR if sz > m else sz)
                per = (SEG_MAX - SEG_HDR) // rec
                cap = per * nbk
                live = (a['live_bytes'] + a['live_val_bytes']) / a['keys']
                half = int(a['log_total_units'] * UNIT / 2 / live)
                first = min(cap, half)
                w('| %d B | %d | %d | %d keys | %d keys | %s | %.2f B |' % (
                    sz, m, per, cap, half,
                    'segment cap (EFBIG)' if cap < half else 'log (ENOSPC)',
                    a['index_bytes'] / first))
        w('')

    w('### Raw data')
    w('')
    w('Absolute rates and times of this bed (TCG, soft-RoCE): not results, '
      'only what the ratios above were computed from.')
    w('')
    w('| geometry | value | inline max | fill PUT/s | update PUT/s | SSD B '
      'written (fill, update) | extents written (B) | target ssd_reads '
      '(fill + update) | GETs | hits | host ssd_reads | get_val_reads | '
      'get_val_stale | host VM read I/Os, bytes | GET p50 per round (us) | '
      'GET p99 per round (us) | keys | live_bytes | live_val_bytes | '
      'index_bytes | log used | cleaner runs, vals moved |')
    w('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: '
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: '
      '| ---: | ---: |')
    for nb, nbk in geoms:
        for sz in sizes:
            for m in maxes:
                ph = P[nb, nbk, sz, m]
                ld, up, gl = ph['load'], ph['upd'], ph['get']
                a = gl[-1].after
                allp = [ld, up] + gl
                w('| %d x %d | %d B | %d | %.0f | %.0f | %d, %d | %d (%d) | %d '
                  '| %d | %d | %d | %d | %d | %d, %d | %s | %s | %d | %d | %d '
                  '| %d | %.2f %% | %d, %d |' % (
                      nb, nbk, sz, m, ld.iops, up.iops,
                      ld.t['ssd_write_bytes'], up.t['ssd_write_bytes'],
                      ld.t['vals_written'] + up.t['vals_written'],
                      ld.t['val_bytes_written'] + up.t['val_bytes_written'],
                      ld.t['ssd_reads'] + up.t['ssd_reads'],
                      sum(p.h['gets'] for p in gl),
                      sum(p.h['cache_hits'] for p in gl),
                      sum(p.h['ssd_reads'] for p in gl),
                      sum(p.h['get_val_reads'] for p in gl),
                      sum(p.h['get_val_stale'] for p in gl),
                      sum(p.blk_ios for p in gl), sum(p.blk_bytes for p in gl),
                      ' '.join('%.0f' % p.p50 for p in gl),
                      ' '.join('%.0f' % p.p99 for p in gl),
                      a['keys'], a['live_bytes'], a['live_val_bytes'],
                      a['index_bytes'],
                      100.0 * a['log_used_units'] / max(a['log_total_units'],
                                                        1),
                      sum(p.t['cleaner_runs'] for p in allp),
                      sum(p.t['vals_moved'] for p in allp)))
    w('')
    bad = []
    for k, ph in P.items():
        sz, m = k[2], k[3]
        for n in ('load', 'upd'):
            p = ph[n]
            if p.fio_err or p.fio_ios != p.t['rpc_puts']:
                bad.append((k, n, 'fio', p.fio_ios, 'rpc_puts',
                            p.t['rpc_puts'], 'err', p.fio_err))
            want = p.t['rpc_puts'] if sz > m else 0
            if p.t['vals_written'] != want:
                bad.append((k, n, 'vals_written', p.t['vals_written'],
                            'expected', want))
        for r, p in enumerate(ph['get'], 1):
            g = p.h['gets']
            if p.fio_err or p.fio_ios != g or g != gets:
                bad.append((k, 'get%d' % r, 'fio', p.fio_ios, 'gets', g,
                            'asked', gets, 'err', p.fio_err))
            if p.h['cache_hits']:
                bad.append((k, 'get%d' % r, 'cache_hits', p.h['cache_hits']))
            want = g if sz > m else 0
            if p.h['get_val_reads'] != want:
                bad.append((k, 'get%d' % r, 'get_val_reads',
                            p.h['get_val_reads'], 'expected', want))
        if ph['get'][-1].after['keys'] != keys_req:
            bad.append((k, 'keys', ph['get'][-1].after['keys'], 'asked',
                        keys_req))
    if bad:
        w('**Check:** phases where fio\'s completed operations differ from '
          'the store\'s counters or from what was asked, fio reported an '
          'error, a GET hit the cache, or values went to extents other than '
          'expected (all values apart when value > inline max, none '
          'otherwise): %s' % bad)
    else:
        w('Checks passed: every phase completed what was asked with no fio '
          'error; no GET hit the cache; values went to extents exactly when '
          'value > inline max (target `vals_written` = PUTs, host '
          '`get_val_reads` = GETs), never otherwise; every store held %d '
          'keys at the end.' % keys_req)
    w('')
    print('\n'.join(out))


if __name__ == '__main__':
    main()
