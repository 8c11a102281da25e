#!/bin/sh
set -eu
# -B: no stale __pycache__ when a repair rewrites a module within the second, to the same size.
python3 -B -m unittest -q test_stock
