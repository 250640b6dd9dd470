#include "ResultCache.h"

#include "syncwatch/json_limits.h"

#include <set>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace syncwatch {

namespace {

// 2: findings carry their enclosing function.
constexpr int FormatVersion = 2;

std::optional<std::string> contentHash(const std::string &Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                                                    /*RequiresNullTerminator=*/false);
  if (!Buf)
    return std::nullopt;
  return utohexstr(xxh3_64bits(arrayRefFromStringRef((*Buf)->getBuffer())), /*LowerCase=*/true);
}

json::Value spanJson(const SourceSpan &S) {
  return json::Array{S.File, S.Line, S.Column, S.EndLine, S.EndColumn};
}

bool spanOf(const json::Value *V, SourceSpan &S) {
  const json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A || A->size() != 5)
    return false;
  std::optional<StringRef> File = (*A)[0].getAsString();
  std::optional<int64_t> L = (*A)[1].getAsInteger(), C = (*A)[2].getAsInteger(),
                         EL = (*A)[3].getAsInteger(), EC = (*A)[4].getAsInteger();
  if (!File || !L || !C || !EL || !EC)
    return false;
  S = SourceSpan{File->str(), unsigned(*L), unsigned(*C), unsigned(*EL), unsigned(*EC)};
  return true;
}

json::Value fixesJson(const std::vector<FixIt> &Fixes) {
  json::Array A;
  for (const FixIt &F : Fixes)
    A.push_back(json::Object{{"at", spanJson(F.Where)}, {"text", F.Text}});
  return A;
}

bool fixesOf(const json::Value *V, std::vector<FixIt> &Out) {
  const json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A)
    return false;
  for (const json::Value &E : *A) {
    const json::Object *O = E.getAsObject();
    FixIt F;
    std::optional<StringRef> Text = O ? O->getString("text") : std::nullopt;
    if (!O || !spanOf(O->get("at"), F.Where) || !Text)
      return false;
    F.Text = Text->str();
    Out.push_back(std::move(F));
  }
  return true;
}

json::Value findingJson(const Finding &F) {
  json::Array Notes, Evidence;
  for (const FindingNote &N : F.Notes)
    Notes.push_back(json::Object{{"at", spanJson(N.Where)}, {"message", N.Message},
                                 {"fixes", fixesJson(N.SuggestedFixes)}});
  for (const auto &[K, V] : F.Evidence)
    Evidence.push_back(json::Array{K, V});
  return json::Object{{"rule", F.Rule},        {"level", static_cast<int64_t>(F.Level)},
                      {"at", spanJson(F.Where)}, {"message", F.Message},
                      {"notes", std::move(Notes)}, {"fixes", fixesJson(F.Fixes)},
                      {"evidence", std::move(Evidence)}, {"fingerprint", F.Fingerprint},
                      {"rank", F.Rank}, {"function", F.Function}, {"mangledFunction", F.MangledFunction}};
}

bool findingOf(const json::Value &V, Finding &F) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return false;
  std::optional<StringRef> Rule = O->getString("rule"), Message = O->getString("message"),
                           Print = O->getString("fingerprint"), Function = O->getString("function"),
                           Mangled = O->getString("mangledFunction");
  std::optional<int64_t> Level = O->getInteger("level");
  std::optional<double> Rank = O->getNumber("rank");
  const json::Array *Notes = O->getArray("notes"), *Evidence = O->getArray("evidence");
  if (!Rule || !Message || !Print || !Function || !Mangled || !Level || !Rank || !Notes || !Evidence ||
      !spanOf(O->get("at"), F.Where) || !fixesOf(O->get("fixes"), F.Fixes))
    return false;
  F.Rule = Rule->str();
  F.Message = Message->str();
  F.Fingerprint = Print->str();
  F.Function = Function->str();
  F.MangledFunction = Mangled->str();
  F.Level = static_cast<Severity>(*Level);
  F.Rank = *Rank;
  for (const json::Value &NV : *Notes) {
    const json::Object *N = NV.getAsObject();
    FindingNote Note;
    std::optional<StringRef> Msg = N ? N->getString("message") : std::nullopt;
    if (!N || !Msg || !spanOf(N->get("at"), Note.Where) || !fixesOf(N->get("fixes"), Note.SuggestedFixes))
      return false;
    Note.Message = Msg->str();
    F.Notes.push_back(std::move(Note));
  }
  for (const json::Value &EV : *Evidence) {
    const json::Array *P = EV.getAsArray();
    if (!P || P->size() != 2 || !(*P)[0].getAsString() || !(*P)[1].getAsString())
      return false;
    F.Evidence.emplace_back((*P)[0].getAsString()->str(), (*P)[1].getAsString()->str());
  }
  return true;
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

std::optional<std::vector<Finding>> ResultCache::lookup(const std::string &Key, std::vector<std::string> *DepsOut) {
  auto Miss = [&]() -> std::optional<std::vector<Finding>> {
    ++Misses;
    return std::nullopt;
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(entryPath(Key));
  if (!Buf)
    return Miss();
  if (!jsonLimitsError((*Buf)->getBuffer()).empty())
    return Miss();  // a damaged entry is rewritten by this run
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V) {
    consumeError(V.takeError());
    return Miss(); // a damaged entry is rewritten by this run
  }
  const json::Object *O = V->getAsObject();
  const json::Array *Deps = O ? O->getArray("deps") : nullptr;
  const json::Array *Findings = O ? O->getArray("findings") : nullptr;
  if (!Deps || !Findings)
    return Miss();
  for (const json::Value &D : *Deps) {
    const json::Array *P = D.getAsArray();
    if (!P || P->size() != 2 || !(*P)[0].getAsString() || !(*P)[1].getAsString())
      return Miss();
    std::optional<std::string> Now = contentHash((*P)[0].getAsString()->str());
    if (!Now || *Now != *(*P)[1].getAsString())
      return Miss();
  }
  // Every file a cached finding names - its location, its notes', its fixes' - must be one
  // the unit read: CI caches are shared and restored from storage, and an entry whose fix
  // names another file would make --fix edit it.
  std::set<std::string> Read;
  for (const json::Value &D : *Deps)
    Read.insert(D.getAsArray()->front().getAsString()->str());
  auto WasRead = [&](const std::string &File) {
    if (File.empty() || Read.count(File))
      return true;
    SmallString<256> Real;
    return !sys::fs::real_path(File, Real) && Read.count(std::string(Real));
  };
  std::vector<Finding> Out;
  for (const json::Value &FV : *Findings) {
    Finding F;
    if (!findingOf(FV, F) || !WasRead(F.Where.File))
      return Miss();
    for (const FixIt &X : F.Fixes)
      if (!WasRead(X.Where.File))
        return Miss();
    for (const FindingNote &N : F.Notes) {
      if (!WasRead(N.Where.File))
        return Miss();
      for (const FixIt &X : N.SuggestedFixes)
        if (!WasRead(X.Where.File))
          return Miss();
    }
    Out.push_back(std::move(F));
  }
  ++Hits;
  if (DepsOut)
    DepsOut->assign(Read.begin(), Read.end());
  return Out;
}

void ResultCache::store(const std::string &Key, const std::vector<std::string> &Deps,
                        const std::vector<Finding> &Findings) {
  json::Array DepList, List;
  for (const std::string &D : Deps) {
    std::optional<std::string> H = contentHash(D);
    if (!H)
      return; // it vanished mid-run: the tree changed under us, keep nothing
    DepList.push_back(json::Array{D, *H});
  }
  for (const Finding &F : Findings)
    List.push_back(findingJson(F));
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
    OS << json::Value(json::Object{{"version", FormatVersion},
                                   {"deps", std::move(DepList)},
                                   {"findings", std::move(List)}});
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
