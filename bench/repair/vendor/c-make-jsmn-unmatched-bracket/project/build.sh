#!/bin/sh
set -eu
# -B: the test programs depend on test/tests.c only, so a stale one would be reused after jsmn.c
# changes. -k: all four configurations run even when one fails, so the broken build prints as many
# summaries as the fixed one, and code-commit can compare them.
make -k -B test
