#!/bin/sh
set -eu
# -B: the test programs depend on test/tests.c only, so a stale one would be reused after jsmn.c changes
make -B test
