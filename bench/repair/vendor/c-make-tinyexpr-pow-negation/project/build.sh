#!/bin/sh
set -eu
# the smoke tests twice: default and with exponentiation from the right (-B: always rebuilt; -k: both run even when one fails)
make -k -B smoke smoke_pr
