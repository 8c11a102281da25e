#!/bin/sh
set -eu
# offline: the crate has no dependencies, so nothing is fetched
export CARGO_NET_OFFLINE=true
cargo test --offline
