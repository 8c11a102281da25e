#!/bin/sh
set -eu
# The tests run under AddressSanitizer: a use after free is a failure, not luck. Leak checking is off
# (the failing-allocation tests leak on purpose). The C89 build, then the same tests with every hash
# colliding; both targets are phony, so they are always rebuilt, and -k runs both even when one fails.
export ASAN_OPTIONS=detect_leaks=0
make -k test test_hash_collisions \
  CFLAGS="-O0 -g -Wall -Wextra -std=c89 -pedantic-errors -DTESTS_MAIN -fsanitize=address,undefined -fno-sanitize-recover=all"
