#!/usr/bin/env bash
# The install tree, the .deb and the wheel, used as a user would, with the build tree gone:
#   tests/install/package_test.sh BUILD_DIR
# 1. cmake --install into a temporary prefix, then the build tree is moved away (restored at
#    the end) and everything runs from / : syncwatch-lint over an nvcc compile database in
#    another directory, the plugin in clang-tidy-22, syncwatch-clang-tidy, the preloaded
#    library in a shell, syncwatch replay, and find_package(syncwatch) from a CMake project.
# 2. the .deb (ci/package.sh: cpack -G DEB): metadata, contents, dpkg -i into a scratch root,
#    its tools run there.
# 3. the wheel (ci/package.sh: scikit-build-core, auditwheel): contents, tags, RUNPATH; pip-installed into
#    a fresh target with nvidia-cuda-cupti, `python -m syncwatch` and the preload from it.
# 4. pre-commit: the repository's hook run by pre-commit itself on a changed .cu file.
set -uo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:?usage: package_test.sh BUILD_DIR}" && pwd)"
pkg_venv="${HOME}/.cache/syncwatch/pkg-venv"
cuda="${CUDA_PATH:-/usr/local/cuda}"
tmp="$(mktemp -d /tmp/syncwatch-package.XXXXXX)"
fails=0
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1${2:+: $2}"; fails=$((fails + 1)); }
check() { local name="$1"; shift; if "$@" >"$tmp/last.log" 2>&1; then ok "$name"; else fail "$name" "$(tail -5 "$tmp/last.log")"; fi; }
moved=""
restore() { [ -n "$moved" ] && [ -d "$moved" ] && mv "$moved" "$build"; rm -rf "$tmp"; }
trap restore EXIT

# --- 1. install, then no build tree -----------------------------------------------------
prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL cmake --install"; exit 1; }
# the .deb and the wheel need the build tree: made before it goes, by the one command the
# README gives for them (ci/package.sh), into a dist directory of this test's own
if "$src/ci/package.sh" "$build" "$tmp/dist" >"$tmp/package.log" 2>&1 &&
   grep -qx "ci/package.sh: $tmp/dist/syncwatch_[0-9.]*_amd64.deb" "$tmp/package.log" &&
   grep -qx "ci/package.sh: $tmp/dist/syncwatch-[0-9.]*-py3-none-manylinux_2_34_x86_64.whl" "$tmp/package.log"; then
  ok "ci/package.sh BUILD DIST: the .deb and the wheel, both paths printed"
else
  fail "ci/package.sh builds the .deb and the wheel" "$(tail -8 "$tmp/package.log")"
fi
moved="$build.moved-away.$$"
mv "$build" "$moved"

cd /
for tool in syncwatch-lint syncwatch-clang-tidy syncwatch-lsp syncwatch; do
  check "installed $tool --version" sh -c "v=\$('$prefix/bin/$tool' --version) && case \"\$v\" in *0.1.0*) ;; *) exit 1;; esac"
done
check "nothing installed names the build tree" sh -c "! grep -rl '$build/' '$prefix/share' '$prefix/lib/cmake'"

# An nvcc compile database, relative -I and file names, in a directory of its own.
db="$tmp/db"; mkdir -p "$db"
python3 - "$src/test_inputs/static" "$cuda" "$db/compile_commands.json" <<'PY'
import json, sys
static, cuda, out = sys.argv[1:]
files = ["bs_pos_stream_create_with_memcpy.cu", "ds_pos_launch_no_stream_with_streams.cu",
         "pa_pos_malloc_image_upload.cu"]
json.dump([{"directory": static, "file": f, "output": f + ".o",
            "command": f"{cuda}/bin/nvcc -forward-unknown-to-host-compiler -I. -O3 "
                       f"-arch=sm_90 -std=c++17 -x cu -c {f} -o {f}.o"} for f in files],
          open(out, "w"), indent=1)
PY
"$prefix/bin/syncwatch-lint" -p "$db" --format=sarif --output="$tmp/lint.sarif" >"$tmp/lint.log" 2>&1
rc=$?
python3 - "$tmp/lint.sarif" "$prefix" <<'PY' >"$tmp/sarif.log" 2>&1
import json, os, sys, urllib.parse
sarif = json.load(open(sys.argv[1])); prefix = sys.argv[2]
run = sarif["runs"][0]
assert run["results"], "no findings"
assert not [n for n in run.get("invocations", [{}])[0].get("toolExecutionNotifications", [])
            if n.get("level") == "error"], "a unit did not parse"
uris = {r["helpUri"] for r in run["tool"]["driver"]["rules"] if r.get("helpUri")}
assert uris, "no rule pages"
for u in uris:
    p = urllib.parse.unquote(urllib.parse.urlparse(u).path)
    assert p.startswith(prefix) and os.path.exists(p), u
PY
if [ "$rc" -eq 1 ] && [ -s "$tmp/lint.sarif" ] && python3 -c 1 && [ -z "$(grep -v '^ *$' "$tmp/sarif.log")" ]; then
  ok "installed syncwatch-lint over an nvcc database, from /: findings, every unit parsed, rule pages in share/"
else
  fail "installed syncwatch-lint over an nvcc database (exit $rc)" "$(tail -3 "$tmp/lint.log"; cat "$tmp/sarif.log")"
fi

plugin_out="$(clang-tidy-22 --load="$prefix/lib/libsyncwatch-tidy.so" --checks='-*,syncwatch-*' --quiet \
  "$src/test_inputs/static/bs_pos_stream_create_with_memcpy.cu" -- --cuda-host-only \
  -Wno-unknown-cuda-version --cuda-path="$cuda" --cuda-gpu-arch=sm_90 -isystem "$cuda/include/cccl" 2>&1)"
if grep -q "syncwatch-blocking-stream" <<<"$plugin_out"; then ok "installed plugin loads into clang-tidy-22";
else fail "installed plugin loads into clang-tidy-22" "$(tail -3 <<<"$plugin_out")"; fi
wrap_out="$("$prefix/bin/syncwatch-clang-tidy" clang-tidy-22 --load="$prefix/lib/libsyncwatch-tidy.so" \
  --checks='-*,syncwatch-*' --quiet "$src/test_inputs/static/ds_pos_launch_no_stream_with_streams.cu" -- \
  "$cuda/bin/nvcc" -O3 -arch=sm_90 -c "$src/test_inputs/static/ds_pos_launch_no_stream_with_streams.cu" 2>&1)"
if grep -q "syncwatch-default-stream" <<<"$wrap_out"; then ok "installed syncwatch-clang-tidy on an nvcc command (compat headers from share/)";
else fail "installed syncwatch-clang-tidy on an nvcc command" "$(tail -3 <<<"$wrap_out")"; fi

if [ -e "$prefix/lib/libsyncwatch.so" ]; then
  out="$(LD_PRELOAD="$prefix/lib/libsyncwatch.so" sh -c 'echo preloaded; exit 3' 2>"$tmp/pre.err")"; rc=$?
  if [ "$out" = preloaded ] && [ $rc -eq 3 ] && [ ! -s "$tmp/pre.err" ]; then ok "installed libsyncwatch.so preloaded into a shell: same output, exit code, no stderr";
  else fail "installed libsyncwatch.so preloaded into a shell" "$out rc=$rc $(cat "$tmp/pre.err")"; fi
  out="$("$prefix/bin/syncwatch" run --out "$tmp/reports" -- sh -c 'echo ran' 2>/dev/null)"
  [ "$out" = ran ] && ok "installed syncwatch run finds lib/libsyncwatch.so" || fail "installed syncwatch run" "$out"
else
  fail "libsyncwatch.so installed" "no $prefix/lib/libsyncwatch.so (CUPTI not found at build?)"
fi
"$prefix/bin/syncwatch" replay "$src/test_inputs/runtime/h200_two_stacks.swrec" >"$tmp/replay.txt" 2>&1
[ $? -eq 1 ] && grep -q "syncwatch-" "$tmp/replay.txt" && ok "installed syncwatch replay" ||
  fail "installed syncwatch replay" "$(tail -2 "$tmp/replay.txt")"

# A moved prefix still works: nothing is found through the install path itself.
cp -a "$prefix" "$tmp/moved-prefix"
check "a moved prefix: syncwatch-lint still finds its data" sh -c \
  "out=\$('$tmp/moved-prefix/bin/syncwatch-lint' '$src/test_inputs/static/ds_pos_launch_no_stream_with_streams.cu' -- --cuda-path='$cuda' 2>&1); case \"\$out\" in *syncwatch-default-stream*) ;; *) exit 1;; esac"
rm -rf "$tmp/moved-prefix/share/syncwatch/compat"
out="$("$tmp/moved-prefix/bin/syncwatch-lint" "$src/test_inputs/static/ds_pos_launch_no_stream_with_streams.cu" -- 2>&1)"; rc=$?
[ $rc -eq 2 ] && grep -q "cannot find syncwatch's data files" <<<"$out" && ok "a broken install: a clear error, exit 2" ||
  fail "a broken install: a clear error, exit 2" "rc=$rc $out"

# find_package(syncwatch) from a CMake project: CMAKE_CXX_CLANG_TIDY and syncwatch_lint().
consumer="$tmp/consumer-build"
if cmake -S "$src/tests/install/consumer" -B "$consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
     -DCUDA_INCLUDE="$cuda/include" >"$tmp/consumer.log" 2>&1; then
  ok "find_package(syncwatch) from an installed prefix"
  ninja -C "$consumer" staging >"$tmp/consumer-build.log" 2>&1
  grep -q "syncwatch-pageable-async-copy" "$tmp/consumer-build.log" &&
    ok "CMAKE_CXX_CLANG_TIDY=\${SYNCWATCH_CLANG_TIDY} warns during the build" ||
    fail "CMAKE_CXX_CLANG_TIDY=\${SYNCWATCH_CLANG_TIDY}" "$(tail -5 "$tmp/consumer-build.log")"
  ninja -C "$consumer" lint >"$tmp/consumer-lint.log" 2>&1; rc=$?
  [ $rc -ne 0 ] && grep -q "staging.cpp:10:.*syncwatch-pageable-async-copy" "$tmp/consumer-lint.log" &&
    ok "syncwatch_lint(lint): the finding, and the target fails on it" ||
    fail "syncwatch_lint(lint)" "rc=$rc $(tail -5 "$tmp/consumer-lint.log")"
else
  fail "find_package(syncwatch)" "$(tail -5 "$tmp/consumer.log")"
fi

# --- 2. the .deb -------------------------------------------------------------------------
debs=("$tmp"/dist/syncwatch_*_amd64.deb); deb=""; [ -e "${debs[0]}" ] && deb="${debs[0]}"
if [ -n "$deb" ]; then
  info="$(dpkg-deb -I "$deb")"
  grep -q "^ Depends:.*libclang-cpp22" <<<"$info" && grep -q "^ Package: syncwatch" <<<"$info" &&
    ok "the .deb's metadata (Package, Depends on LLVM 22's runtime)" || fail "the .deb's metadata" "$info"
  contents="$(dpkg-deb -c "$deb" | awk '{print $6}')"
  missing=""
  for f in ./usr/bin/syncwatch-lint ./usr/bin/syncwatch-clang-tidy ./usr/bin/syncwatch-lsp ./usr/bin/syncwatch \
           ./usr/lib/libsyncwatch-tidy.so ./usr/lib/libsyncwatch.so \
           ./usr/share/syncwatch/compat/syncwatch_nvcc_compat.h \
           ./usr/share/syncwatch/schema/sarif-schema-2.1.0.json \
           ./usr/share/syncwatch/docs/rules/syncwatch-implicit-sync.md \
           ./usr/lib/cmake/syncwatch/syncwatchConfig.cmake; do
    grep -qx "$f" <<<"$contents" || missing+=" $f"
  done
  [ -z "$missing" ] && ok "the .deb holds the tools, libraries, share/syncwatch and the CMake config" ||
    fail "the .deb's contents" "missing$missing"
  # dpkg -i into a scratch root (its own dpkg database; the dependencies are this machine's)
  root="$tmp/root"; mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"; : >"$root/var/lib/dpkg/status"
  if dpkg --root="$root" --force-depends --force-script-chrootless --force-not-root -i "$deb" >"$tmp/dpkg.log" 2>&1 &&
     grep -q "^Status: install ok installed" "$root/var/lib/dpkg/status"; then
    ok "dpkg -i into a scratch root"
    check "the .deb's syncwatch-lint runs from the scratch root" sh -c \
      "out=\$('$root/usr/bin/syncwatch-lint' '$src/test_inputs/static/ds_pos_launch_no_stream_with_streams.cu' -- --cuda-path='$cuda' 2>&1); case \"\$out\" in *syncwatch-default-stream*) ;; *) exit 1;; esac"
  else
    fail "dpkg -i into a scratch root" "$(tail -3 "$tmp/dpkg.log")"
  fi
fi

# --- 3. the wheel ------------------------------------------------------------------------
whls=("$tmp"/dist/syncwatch-*.whl); whl=""; [ -e "${whls[0]}" ] && whl="${whls[0]}"
if [ -n "$whl" ]; then
  python3 - "$whl" <<'PY' >"$tmp/wheel-check.log" 2>&1 && ok "the wheel: manylinux py3 tag, the command, libsyncwatch.so, entry point, no LLVM" || fail "the wheel's contents" "$(cat "$tmp/wheel-check.log")"
import sys, zipfile
whl = sys.argv[1]
assert "-py3-none-manylinux_2_34_x86_64.whl" in whl, whl
z = zipfile.ZipFile(whl); names = set(z.namelist())
for need in ("syncwatch/__init__.py", "syncwatch/__main__.py", "syncwatch/bin/syncwatch",
             "syncwatch/lib/libsyncwatch.so"):
    assert need in names, need
assert not any("syncwatch-lint" in n or "tidy" in n for n in names), "the analyzer is not in the wheel"
assert (z.getinfo("syncwatch/bin/syncwatch").external_attr >> 16) & 0o111, "not executable"
ep = z.read("syncwatch-0.1.0.dist-info/entry_points.txt").decode()
assert "syncwatch = syncwatch.__main__:main" in ep, ep
meta = z.read("syncwatch-0.1.0.dist-info/METADATA").decode()
assert "Requires-Dist: nvidia-cuda-cupti" in meta, "no CUPTI dependency"
PY
  rpath="$(cd "$tmp" && python3 -m zipfile -e "$whl" wx >/dev/null && readelf -d wx/syncwatch/lib/libsyncwatch.so)"
  grep -q 'RUNPATH.*\$ORIGIN/../../nvidia/cu13/lib' <<<"$rpath" && ! grep -q "NEEDED.*libLLVM" <<<"$rpath" &&
    ok "the wheel's libsyncwatch.so: RUNPATH to nvidia/cu13/lib, CUPTI not bundled" || fail "the wheel's RUNPATH" "$rpath"
  target="$tmp/target"
  if python3 -m pip install -q --disable-pip-version-check --no-deps --target "$target" "$whl" \
       "nvidia-cuda-cupti>=13,<14" >"$tmp/pip.log" 2>&1; then
    out="$(PYTHONPATH="$target" python3 -m syncwatch --version 2>&1)"
    [ "$out" = "syncwatch 0.1.0" ] && ok "python -m syncwatch --version" || fail "python -m syncwatch --version" "$out"
    ldd_out="$(ldd "$target/syncwatch/lib/libsyncwatch.so")"
    grep -qF "libcupti.so.13 => $target/syncwatch/lib/../../nvidia/cu13/lib/" <<<"$ldd_out" &&
      ok "the wheel's library loads CUPTI from the nvidia-cuda-cupti wheel" || fail "CUPTI from the wheel" "$(ldd "$target/syncwatch/lib/libsyncwatch.so" | grep cupti)"
    out="$(PYTHONPATH="$target" python3 -m syncwatch run --out "$tmp/wheel-reports" -- python3 -c 'print("py ok")' 2>"$tmp/wrun.err")"; rc=$?
    [ "$out" = "py ok" ] && [ $rc -eq 0 ] && ok "python -m syncwatch run -- python3 ...: the job's output and exit code" ||
      fail "python -m syncwatch run" "rc=$rc $out $(cat "$tmp/wrun.err")"
    out="$(PYTHONPATH="$target" python3 -m syncwatch run -- sh -c 'exit 7' 2>/dev/null)"; rc=$?
    [ $rc -eq 7 ] && ok "python -m syncwatch run keeps the job's exit code" || fail "exit code through python -m syncwatch" "rc=$rc"
  else
    fail "pip install the wheel with nvidia-cuda-cupti" "$(tail -3 "$tmp/pip.log")"
  fi
fi

# --- 4. pre-commit ------------------------------------------------------------------------
if [ -x "$pkg_venv/bin/pre-commit" ]; then
  repo="$tmp/precommit"; mkdir -p "$repo/build" && cd "$repo" && git init -q .
  cp "$src/test_inputs/static/ds_pos_launch_no_stream_with_streams.cu" kernel.cu
  printf '#include <cstdio>\nint main() { std::puts("clean"); return 0; }\n' > clean.cpp
  printf '[{"directory": "%s", "file": "kernel.cu", "command": "%s/bin/nvcc -O2 -arch=sm_90 -c kernel.cu -o kernel.o"},\n {"directory": "%s", "file": "clean.cpp", "command": "g++ -O2 -c clean.cpp -o clean.o"}]\n' \
    "$repo" "$cuda" "$repo" > build/compile_commands.json
  git add . >/dev/null 2>&1
  export PATH="$prefix/bin:$PATH"
  out="$("$pkg_venv/bin/pre-commit" try-repo "$src" syncwatch-lint --files kernel.cu clean.cpp 2>&1)"; rc=$?
  if [ $rc -ne 0 ] && grep -q "kernel.cu:.*syncwatch-default-stream" <<<"$out" && ! grep -q "clean.cpp:" <<<"$out"; then
    ok "pre-commit try-repo: the syncwatch-lint hook fails on the changed .cu file's finding"
  else
    fail "pre-commit hook" "rc=$rc $(tail -8 <<<"$out")"
  fi
  cd /
else
  fail "pre-commit" "$pkg_venv/bin/pre-commit missing: run ci/setup.sh"
fi

echo "$([ $fails -eq 0 ] && echo "all passed" || echo "$fails failed")"
[ $fails -eq 0 ]
