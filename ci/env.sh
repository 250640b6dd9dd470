# Puts a from-source build's tools on PATH, for this shell:
#   source ci/env.sh [BUILD_DIR]      (default: build/ of this checkout; ci/build.sh makes it)
# syncwatch-lint, syncwatch-clang-tidy and syncwatch-lsp (BUILD_DIR/analyzer), syncwatch
# (BUILD_DIR/interposer); SYNCWATCH_PRELOAD is libsyncwatch.so's absolute path, for
# LD_PRELOAD=$SYNCWATCH_PRELOAD. The tools find their data in the source tree while they
# stay in the build tree they were built in (docs/install.md).
_sw_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
_sw_build="$(cd "${1:-$_sw_root/build}" 2>/dev/null && pwd)" || _sw_build=""
if [ -z "$_sw_build" ] || { [ ! -x "$_sw_build/analyzer/syncwatch-lint" ] && [ ! -x "$_sw_build/interposer/syncwatch" ]; }; then
  echo "ci/env.sh: no syncwatch build in ${1:-$_sw_root/build} (ci/build.sh makes one)" >&2
else
  for _sw_dir in "$_sw_build/interposer" "$_sw_build/analyzer"; do
    case ":$PATH:" in *":$_sw_dir:"*) ;; *) [ -d "$_sw_dir" ] && PATH="$_sw_dir:$PATH" ;; esac
  done
  export PATH
  [ -f "$_sw_build/interposer/libsyncwatch.so" ] && export SYNCWATCH_PRELOAD="$_sw_build/interposer/libsyncwatch.so"
  echo "ci/env.sh: syncwatch's tools from $_sw_build are on PATH" >&2
fi
unset _sw_root _sw_build _sw_dir
