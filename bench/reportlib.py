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
