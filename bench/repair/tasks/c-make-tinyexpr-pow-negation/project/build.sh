#!/bin/sh
set -eu
# the smoke tests twice: default and with exponentiation from the right (-B: always rebuilt)
make -B smoke smoke_pr
