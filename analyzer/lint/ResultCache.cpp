#include "ResultCache.h"

#include "syncwatch/json_limits.h"
#include "syncwatch/cache_entry.h"

#include <set>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace syncwatch {

namespace {

constexpr int FormatVersion = kCacheEntryVersion;  // syncwatch/cache_entry.h

std::optional<std::string> contentHash(const std::string &Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                                                    /*RequiresNullTerminator=*/false);
  if (!Buf)
    return std::nullopt;
  return utohexstr(xxh3_64bits(arrayRefFromStringRef((*Buf)->getBuffer())), /*LowerCase=*/true);
}

} // namespace

ResultCache::ResultCache(std::string D) : Dir(std::move(D)) {
  if (Dir.empty())
    return;
  SmallString<256> Abs(Dir);
  sys::fs::make_absolute(Abs);
  Dir = std::string(Abs);
  if (std::error_code EC = sys::fs::create_directories(Dir)) {
    noteProblem("cannot create the result cache '" + Dir + "': " + EC.message());
    Dir.clear();
    return;
  }
  std::string Exe = sys::fs::getMainExecutable(nullptr, nullptr);
  ToolHash = contentHash(Exe).value_or(std::string(SYNCWATCH_VERSION) + ":" + Exe);
}

std::string ResultCache::keyOf(const std::vector<std::vector<std::string>> &Commands,
                               const std::vector<std::string> &Directories,
                               const std::string &Checks) const {
  SHA256 H;
  auto Add = [&](StringRef S) {
    H.update(S);
    H.update(StringRef("\0", 1));
  };
  Add(std::to_string(FormatVersion));
  Add(ToolHash);
  Add(Checks);
  for (std::size_t I = 0; I < Commands.size(); ++I) {
    Add(I < Directories.size() ? Directories[I] : "");
    for (const std::string &Arg : Commands[I])
      Add(Arg);
    Add("\n");
  }
  return toHex(H.final(), /*LowerCase=*/true);
}

std::string ResultCache::entryPath(const std::string &Key) const {
  SmallString<256> P(Dir);
  sys::path::append(P, Key.substr(0, 2), Key + ".json");
  return std::string(P);
}

std::optional<CacheEntry> ResultCache::lookup(const std::string &Key, std::vector<std::string> *DepsOut) {
  auto Miss = [&]() -> std::optional<CacheEntry> {
    ++Misses;
    return std::nullopt;
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(entryPath(Key));
  if (!Buf)
    return Miss();
  std::string Text((*Buf)->getBuffer());
  CacheEntry Entry;
  std::string Error;
  // A damaged entry (or one of another version) is a miss, rewritten by this run.
  if (!jsonLimitsError(Text).empty() || !readCacheEntry(Text, Entry, Error))
    return Miss();
  for (const auto &[File, Hash] : Entry.Deps) {
    std::optional<std::string> Now = contentHash(File);
    if (!Now || *Now != Hash)
      return Miss();
  }
  // Every file a cached finding names - its location, its fixes' - must be one the unit
  // read: CI caches are shared and restored from storage, and an entry whose fix names
  // another file would make --fix edit it. A note's place is only text, and a cross-unit
  // note names the unit that called (CrossUnit.h): its file need not have been read.
  std::set<std::string> Read;
  for (const auto &Dep : Entry.Deps)
    Read.insert(Dep.first);
  auto WasRead = [&](const std::string &File) {
    if (File.empty() || Read.count(File))
      return true;
    SmallString<256> Real;
    return !sys::fs::real_path(File, Real) && Read.count(std::string(Real));
  };
  for (const Finding &F : Entry.Findings) {
    if (!WasRead(F.Where.File))
      return Miss();
    for (const FixIt &X : F.Fixes)
      if (!WasRead(X.Where.File))
        return Miss();
    for (const FindingNote &N : F.Notes) {
      if (!N.SuggestedFixes.empty() && !WasRead(N.Where.File))
        return Miss();
      for (const FixIt &X : N.SuggestedFixes)
        if (!WasRead(X.Where.File))
          return Miss();
    }
  }
  ++Hits;
  if (DepsOut)
    DepsOut->assign(Read.begin(), Read.end());
  return Entry;
}

void ResultCache::store(const std::string &Key, const std::vector<std::string> &Deps,
                        const std::vector<Finding> &Findings, const UnitSummary &Summary) {
  CacheEntry Entry;
  Entry.Summary = Summary;
  for (const std::string &D : Deps) {
    std::optional<std::string> H = contentHash(D);
    if (!H)
      return; // it vanished mid-run: the tree changed under us, keep nothing
    Entry.Deps.emplace_back(D, *H);
  }
  Entry.Findings = Findings;
  std::string Path = entryPath(Key);
  if (std::error_code EC = sys::fs::create_directories(sys::path::parent_path(Path))) {
    noteProblem("cannot write the result cache '" + Dir + "': " + EC.message());
    return;
  }
  SmallString<256> Temp;
  int FD = -1;
  if (std::error_code EC = sys::fs::createUniqueFile(Path + ".tmp-%%%%%%%%", FD, Temp)) {
    noteProblem("cannot write the result cache '" + Dir + "': " + EC.message());
    return;
  }
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << cacheEntryText(Entry);
    OS.flush();
    if (OS.has_error()) {
      OS.clear_error();
      sys::fs::remove(Temp);
      noteProblem("cannot write the result cache '" + Dir + "'");
      return;
    }
  }
  if (std::error_code EC = sys::fs::rename(Temp, Path)) {
    sys::fs::remove(Temp);
    noteProblem("cannot write the result cache '" + Dir + "': " + EC.message());
  }
}

void ResultCache::noteProblem(const std::string &Why) {
  std::lock_guard<std::mutex> G(Lock);
  if (Problem.empty())
    Problem = Why;
}

std::string ResultCache::problem() const {
  std::lock_guard<std::mutex> G(Lock);
  return Problem;
}

} // namespace syncwatch
