#!/bin/sh
set -eu
# Offline: the crate has no dependencies, so nothing is fetched. --no-fail-fast: every test binary
# runs (unit tests, tests/, doc tests) even when one fails, so the broken build prints as many
# summaries as the fixed one, and code-commit can compare them.
export CARGO_NET_OFFLINE=true
cargo test --offline --no-fail-fast
