#!/bin/sh
# The project's unit tests with the standard library's runner: offline, nothing to install.
set -eu
python3 -m unittest test_schedule
