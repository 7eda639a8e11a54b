#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check a Prometheus text exposition (scalioctl stats -o prometheus).

Usage: check_prom.py FILE [EXPECT]...

FILE ('-': standard input) is parsed with the Prometheus Python client's
parser (Debian python3-prometheus-client), then held to what that parser
lets through but Prometheus' own (Go) parser, node_exporter's textfile
collector and the naming conventions do not: the line grammar (label
value escapes); every family once, with HELP and TYPE (counter or gauge);
a counter's samples named NAME_total, a gauge's not; base units (seconds,
bytes) at the end of the name before _total; no timestamps; every sample
labelled with its store.

Each EXPECT is NAME{LABEL=VALUE,...}=NUMBER (labels in any order, values
unquoted): such a sample must be present with that value, or with
NAME{...}=absent, must not be.  Exit status 0 if all holds, 1 otherwise
(each problem on stderr).
"""
import math
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

NAME_RE = re.compile(r'^scalio_(host|target)_[a-z][a-z0-9_]*$')
# The exposition grammar, line by line: the client's parser accepts some
# lines Prometheus refuses (an unescaped quote in a label value is cut
# short there, not refused).
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE_RE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{(%s(,%s)*)?\})? '
                       r'(-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|NaN|[+-]Inf)$'
                       % (LABEL, LABEL))
COMMENT_RE = re.compile(r'^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*'
                        r'|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge))$')
UNIT_RE = re.compile(r'_(seconds|bytes)_')


def parse_expect(s):
    m = re.match(r'^([a-z_0-9]+)\{([^}]*)\}=(.+)$', s)
    if not m:
        raise SystemExit('check_prom.py: bad EXPECT %r' % s)
    labels = {}
    for kv in filter(None, m.group(2).split(',')):
        k, v = kv.split('=', 1)
        labels[k] = v
    return m.group(1), labels, m.group(3)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    path = sys.argv[1]
    text = sys.stdin.read() if path == '-' else open(path, encoding='utf-8').read()
    problems = []
    for n, line in enumerate(text.split('\n'), 1):
        if line == '' and n == len(text.split('\n')):
            continue
        if not (COMMENT_RE.match(line) if line.startswith('#') else SAMPLE_RE.match(line)):
            problems.append('line %d does not follow the format: %r' % (n, line))
    if text and not text.endswith('\n'):
        problems.append('the last line has no newline')
    try:
        families = list(text_string_to_metric_families(text))
    except ValueError as e:
        print('parser: %s' % e, file=sys.stderr)
        return 1
    seen = set()
    samples = {}
    for f in families:
        if f.name in seen:
            problems.append('family %s declared more than once' % f.name)
        seen.add(f.name)
        if f.type not in ('counter', 'gauge'):
            problems.append('family %s has type %s (no TYPE line?)' % (f.name, f.type))
        if not f.documentation:
            problems.append('family %s has no HELP' % f.name)
        if not NAME_RE.match(f.name):
            problems.append('family %s: not scalio_host_* / scalio_target_*' % f.name)
        if f.type == 'gauge' and f.name.endswith('_total'):
            problems.append('gauge %s is named like a counter' % f.name)
        if UNIT_RE.search(f.name + '_'):
            if not re.search(r'_(seconds|bytes)$', f.name):
                problems.append('family %s: unit not at the end' % f.name)
        for s in f.samples:
            want = f.name + '_total' if f.type == 'counter' else f.name
            if s.name != want:
                problems.append('sample %s in family %s (%s): expected %s'
                                % (s.name, f.name, f.type, want))
            if s.timestamp is not None:
                problems.append('sample %s has a timestamp' % s.name)
            if 'store' not in s.labels:
                problems.append('sample %s%s has no store label' % (s.name, s.labels))
            if f.type == 'counter' and (s.value < 0 or math.isnan(s.value)):
                problems.append('counter %s%s is %s' % (s.name, s.labels, s.value))
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in samples:
                problems.append('sample %s%s appears twice' % (s.name, s.labels))
            samples[key] = s.value
    for e in sys.argv[2:]:
        name, labels, value = parse_expect(e)
        key = (name, tuple(sorted(labels.items())))
        if value == 'absent':
            if key in samples:
                problems.append('%s: present' % e)
        elif key not in samples:
            problems.append('%s: missing' % e)
        elif not math.isclose(samples[key], float(value), rel_tol=1e-12):
            problems.append('%s: is %r' % (e, samples[key]))
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
