# Sourced by ci/test.sh, ci/demo.sh, ci/package.sh and ci/build.sh (from the repository root):
#   ci_phase NAME        a phase begins: "ci/test.sh: [m:ss] NAME" on stderr, the time since
#                        the script started; the phase before it ends with its own time
#   ci_at_exit COMMAND   run at exit (the scripts' clean-ups; this file owns the EXIT trap)
#   ci_check_build_dir D warn when D was configured for another source tree (never fails)
# Long runs say where they are: on 2 cores ci/test.sh takes about 25 min, ci/demo.sh 6 and
# ci/package.sh 2.5 once the packages are installed (README.md).
_ci_name="ci/$(basename "$0")"
_ci_phase=""
_ci_phase_start=$SECONDS
_ci_exit_commands=()

ci_clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

_ci_phase_end() {
  if [ -n "$_ci_phase" ]; then
    echo "$_ci_name: [$(ci_clock $SECONDS)] $_ci_phase: done in $(ci_clock $((SECONDS - _ci_phase_start)))" >&2
  fi
  _ci_phase=""
}

ci_phase() {
  _ci_phase_end
  _ci_phase="$1"
  _ci_phase_start=$SECONDS
  echo "$_ci_name: [$(ci_clock $SECONDS)] $1" >&2
}

ci_at_exit() { _ci_exit_commands+=("$1"); }

_ci_exit() {
  local rc=$? c
  for c in "${_ci_exit_commands[@]}"; do eval "$c" || true; done
  [ -z "$_ci_phase" ] || _ci_phase_end
  echo "$_ci_name: [$(ci_clock $SECONDS)] finished, exit $rc" >&2
}
trap _ci_exit EXIT

# A build directory copied from another checkout is not self-contained: its cache names the
# tree it was configured for, and cmake, cpack and `cmake --install` follow those absolute
# paths back there (a package of the other tree's sources, or a build that fails).
ci_check_build_dir() {
  local cache="$1/CMakeCache.txt" home here
  [ -f "$cache" ] || return 0
  home="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")"
  here="$(pwd -P)"
  if [ -n "$home" ] && [ "$(cd "$home" 2>/dev/null && pwd -P)" != "$here" ]; then
    echo "$_ci_name: warning: $1 was configured for another source tree ($home), not this one" \
         "($here): cmake, cpack and cmake --install follow its paths back there; use a build" \
         "directory of this tree (rm -rf $1 && ci/build.sh)" >&2
  fi
}
