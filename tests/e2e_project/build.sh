#!/bin/sh
set -eu
python3 -m unittest -q test_stock
