#!/usr/bin/env bash
# README command 2: set up, build, and run every test (ctest; GPU tests skip without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
ci/build.sh
cd build
ctest --output-on-failure -j2 --timeout 900
cd ..
# The readers of outside input under libFuzzer (clang-22, ASan+UBSan), 20 s a target, from
# the committed seed corpora and the inputs that once crashed them.
tests/fuzz/run_fuzzers.sh build 20
# The install tree, the .deb, the wheel and the pre-commit hook, with the build tree moved away.
tests/install/package_test.sh build
