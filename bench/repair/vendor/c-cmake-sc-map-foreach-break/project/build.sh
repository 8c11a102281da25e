#!/bin/sh
set -eu
# Debug: the tests are assert()s, which a release build (NDEBUG) would compile out
cmake -S . -B build -DSC_BUILD_TEST=1 -DCMAKE_BUILD_TYPE=Debug
cmake --build build
cd build
ctest --output-on-failure --timeout 10
