#!/bin/sh
# The project's tests with node's own runner, through pnpm (corepack's, at package.json's packageManager):
# nothing to install. (package.json's scripts are trimmed to `node --test`: the coverage, lint and
# type-test tools they also ran are devDependencies.)
set -eu
corepack pnpm test
