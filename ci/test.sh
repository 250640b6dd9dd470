#!/usr/bin/env bash
# README command 2: set up, build, and run every test (ctest; GPU tests skip without a GPU).
# About 25 min on 2 cores once ci/setup.sh's packages are in (2026-12-05, a fresh clone: build 5:21,
# ctest 14:00, fuzzers 3:51, packages 1:06); the first run adds the apt and pip installs.
# Each phase prints its elapsed time.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh
ci_phase "setup (ci/setup.sh)"
ci/setup.sh
ci_phase "build (ci/build.sh)"
ci/build.sh
ci_phase "ctest"
(cd build && ctest --output-on-failure -j2 --timeout 900)
# The readers of outside input under libFuzzer (clang-22, ASan+UBSan), 20 s a target, from
# the committed seed corpora and the inputs that once crashed them.
ci_phase "fuzzers (tests/fuzz/run_fuzzers.sh)"
tests/fuzz/run_fuzzers.sh build 20
# The install tree, the .deb, the wheel and the pre-commit hook, with the build tree moved away.
ci_phase "install and packages (tests/install/package_test.sh)"
tests/install/package_test.sh build
