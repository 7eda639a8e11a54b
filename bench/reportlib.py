# SPDX-License-Identifier: GPL-2.0
"""What the benchmarks' report scripts share: reading their raw files."""
import json


def meta(path):
    """A 'key value' file (host-meta.txt, meta.txt) as a dict."""
    d = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip('\n').partition(' ')
            d[k] = v
    return d


def load_json(path):
    """JSON that may follow other output (e.g. a tool's banner)."""
    with open(path) as f:
        t = f.read()
    return json.loads(t[t.index('{'):])


SECTOR = 512


def blk(path):
    """Sum of (read I/Os, sectors read) over the NVMe disks listed."""
    ios = sectors = 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 3:
                ios += int(w[1])
                sectors += int(w[2])
    return ios, sectors


def div(a, b, f='%.2f'):
    return f % (a / b) if b else 'n/a'


class Phase:
    """One fio phase of a bench: the scalioctl stats --json before and
    after it (t: target counter deltas, h: host counter deltas, after:
    target counters after), fio's job (I/Os, errors, IOPS for @ddir) and
    the guest's block-layer read counters (blk_ok False without them)."""

    def __init__(self, prefix, ddir):
        b = load_json(prefix + '.before')
        a = load_json(prefix + '.after')
        self.job = load_json(prefix + '.json')['jobs'][0]
        self.t = {k[7:]: a[k] - b[k] for k in a
                  if k.startswith('target_') and isinstance(a[k], int)}
        self.h = {k: a[k] - b[k] for k in a
                  if not k.startswith('target_') and isinstance(a[k], int)}
        self.after = {k[7:]: a[k] for k in a if k.startswith('target_')}
        self.a = a
        self.fio_ios = self.job[ddir]['total_ios']
        self.fio_err = self.job['error']
        self.iops = self.job[ddir]['iops']
        try:
            bi0, bs0 = blk(prefix + '.blk-before')
            bi1, bs1 = blk(prefix + '.blk-after')
            self.blk_ios, self.blk_bytes = bi1 - bi0, (bs1 - bs0) * SECTOR
            self.blk_ok = True
        except OSError:
            self.blk_ios = self.blk_bytes = 0
            self.blk_ok = False
