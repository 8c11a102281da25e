#!/bin/sh
# The project's tests with node's own runner, through pnpm (corepack's, at package.json's packageManager):
# nothing to install. (package.json's scripts are trimmed to `node --test`: the coverage, lint and
# type-test tools they also ran are devDependencies; test/jest.test.js needs jest, and
# test/no-warnings.test.js fails on node 20 with the fix or without it: both are left out of the snapshot.)
set -eu
corepack pnpm test
