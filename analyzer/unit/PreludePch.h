// Parses the CUDA prelude once per distinct command and reuses it across files.
//
// Every .cu file starts with the same implicit include, clang's
// __clang_cuda_runtime_wrapper.h (cuda_runtime.h, CUDA's math and device headers, <cmath>,
// <cstdlib> ...): about 60% of a typical file's parse (docs/benchmarks.md). Files parsed
// with the same command (a CMake target's files) get a precompiled header of exactly that
// prelude - nothing the file would not have included anyway - built on first use and
// passed with -include-pch; the wrapper's own include guard then skips it. A file whose
// parse fails with the PCH is parsed again without it, so the PCH can cost time, never a
// result.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace syncwatch {

class PreludePchCache {
public:
  PreludePchCache() = default;
  ~PreludePchCache();
  PreludePchCache(const PreludePchCache &) = delete;
  PreludePchCache &operator=(const PreludePchCache &) = delete;

  // The key of a CUDA file's final clang command (the command without its input), or ""
  // when the file is not parsed as CUDA.
  // Directory: the entry's working directory, which relative paths in it are resolved from.
  static std::string keyOf(const std::vector<std::string> &FinalArgs, llvm::StringRef File,
                           llvm::StringRef Directory);

  // Marks the keys two or more files share: only those get a PCH (one file gains nothing).
  void plan(const std::vector<std::string> &Keys);

  // The PCH for a planned key, built on first use (other workers wait for it); "" when the
  // key was not planned or the prelude did not build.
  std::string pchFor(const std::string &Key, const std::vector<std::string> &FinalArgs,
                     llvm::StringRef File, llvm::StringRef Directory);

  // A PCH of the prelude and File's own preamble (Text's leading #includes and #defines, as
  // clang's Lexer::ComputePreamble bounds it), for a file analyzed again and again (an
  // editor's buffer): built when the preamble changed, reused while it did not. The file's
  // preamble is not parsed again. "" when Text has no preamble or it did not build. One PCH per
  // file is kept.
  // The parse skips those bytes of the file (cc1's -preamble-bytes=N,S: PreambleBytes gets
  // "N,S"), as clang's own precompiled preambles (clangd's) do: headers without include
  // guards are then not included twice. BuiltNow: set when this call built it (the preamble
  // is new or changed).
  std::string preamblePchFor(const std::vector<std::string> &FinalArgs, llvm::StringRef File,
                             llvm::StringRef Directory, llvm::StringRef Text, std::string &PreambleBytes,
                             bool *BuiltNow = nullptr);

  // The file's preamble PCH did not serve (a header changed on disk since it was built):
  // rebuilt at the next call.
  void forgetPreamble(llvm::StringRef File);

  unsigned built() const { return Built; }
  unsigned fallbacks() const { return Fallbacks; }
  void noteFallback() { ++Fallbacks; }

private:
  std::string build(const std::vector<std::string> &FinalArgs, llvm::StringRef File,
                    llvm::StringRef Directory, llvm::StringRef Preamble = "");
  // File -> (its command and preamble, the PCH built of them).
  std::map<std::string, std::pair<std::string, std::shared_future<std::string>>> Preambles;

  std::mutex Lock;
  std::map<std::string, unsigned> Shared;
  std::map<std::string, std::shared_future<std::string>> Pchs;
  std::string Dir;
  unsigned NextId = 0;
  std::atomic<unsigned> Built{0}, Fallbacks{0};
};

// Removes every prelude directory still there (a signal stopped the run).
void removePreludeDirectories();

} // namespace syncwatch
