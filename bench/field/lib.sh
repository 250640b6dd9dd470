# shellcheck shell=bash
# Shared by the field-test recipes (bench/field/*.sh); sourced, not run.
#
# field_lint NAME BUILD_DIR OUT_DIR [PATH_REGEX]
#   Keeps the compile database's entries that nvcc compiles (the issue counts "units nvcc
#   compiles": a CMake database also holds g++ entries for .cpp/.c files, which are not part
#   of the count), optionally only those whose file matches PATH_REGEX, writes them to
#   OUT_DIR/db/compile_commands.json, and runs syncwatch-lint on them with -j2, JSON
#   output and run statistics. Exit status of syncwatch-lint is kept in OUT_DIR/NAME.rc
#   (1 = findings, 2 = a tool error such as a unit that did not parse).
#
# Environment: SYNCWATCH_LINT (default: syncwatch-lint on PATH), JOBS (default 2, as the
# issue asks), LINT_ARGS (extra syncwatch-lint options).

field_filter_db() {  # SRC_DB DST_DB [PATH_REGEX]
  python3 - "$@" <<'PY'
import json, os, re, sys
src, dst = sys.argv[1], sys.argv[2]
pat = re.compile(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
entries = json.load(open(src))
def is_nvcc(e):
    cmd = e.get("command") or " ".join(e.get("arguments", []))
    return os.path.basename(cmd.split()[0]) == "nvcc"
kept = [e for e in entries if is_nvcc(e) and (pat is None or pat.search(e["file"]))]
os.makedirs(os.path.dirname(dst), exist_ok=True)
json.dump(kept, open(dst, "w"), indent=1)
print(f"field: {len(entries)} entries, {len(kept)} compiled by nvcc"
      f" ({len({e['file'] for e in kept})} distinct files)", file=sys.stderr)
PY
}

field_lint() {  # NAME BUILD_DIR OUT_DIR [PATH_REGEX]
  local name=$1 build=$2 out=$3 regex=${4:-}
  local lint=${SYNCWATCH_LINT:-syncwatch-lint} jobs=${JOBS:-2}
  local -a extra=()
  read -r -a extra <<< "${LINT_ARGS:-}"
  mkdir -p "$out"
  field_filter_db "$build/compile_commands.json" "$out/db/compile_commands.json" "$regex"
  local rc=0
  # -j2: the issue's setting (and a 2-core machine); --run-stats-json names the units that
  # did not parse and the wall time; the report itself is JSON for labelling.
  "$lint" -p "$out/db" -j "$jobs" --format=json --output="$out/$name.json" \
    --run-stats --run-stats-json="$out/$name.stats.json" "${extra[@]}" \
    2> "$out/$name.stderr" || rc=$?
  echo "$rc" > "$out/$name.rc"
  # 0 and 1 are normal (1 = findings); 2 = tool errors: the parse failures are in .stderr
  tail -n 1 "$out/$name.stderr" >&2
  return 0
}
