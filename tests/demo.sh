#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/demo.sh [--kver 6.1|6.12] [tests/vm/run options]: the body of
# `make demo`.  Boots the test bed (target with two SSDs, one host, store kv0
# set up and attached) and stores, reads back and counts one pair from the
# host.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
exec "$top/tests/vm/run" "$@" -- '
set -e
echo "+ scalioctl put kv0 hello world"
scalioctl put kv0 hello world
echo "+ scalioctl get kv0 hello"
scalioctl get kv0 hello
echo "+ scalioctl stats kv0"
scalioctl stats kv0
'
