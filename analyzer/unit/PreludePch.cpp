#include "PreludePch.h"
#include "SystemBodies.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace syncwatch {

namespace {

// A PCH without the function bodies of system headers, as the parses that read it skip them
// (SystemBodies.h): every parse from a PCH with them instantiated the standard templates the
// file uses (std::unordered_map<...>::operator[]...) in full again and read their bodies back,
// 14% of an edit's time on ggml-cuda.cu. clangd's preamble skips bodies the same way.
class SystemBodylessPch : public clang::GeneratePCHAction {
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &CI, llvm::StringRef InFile) override {
    return skippingSystemBodies(GeneratePCHAction::CreateASTConsumer(CI, InFile), CI);
  }
};

bool isInputOrOutput(const std::vector<std::string> &Args, std::size_t I, llvm::StringRef File) {
  return Args[I] == File || (Args[I] == "-o") || (I > 0 && Args[I - 1] == "-o");
}

// Every prelude directory alive, so that a run stopped by a signal removes them too (a
// killed run left a 9 MB /tmp/syncwatch-pch-* behind). Never destroyed.
std::mutex LiveDirsLock;
std::vector<std::string> *LiveDirs = new std::vector<std::string>;

} // namespace

void removePreludeDirectories() {
  std::lock_guard<std::mutex> G(LiveDirsLock);
  for (const std::string &D : *LiveDirs)
    llvm::sys::fs::remove_directories(D);
  LiveDirs->clear();
}

PreludePchCache::~PreludePchCache() {
  if (Dir.empty())
    return;
  llvm::sys::fs::remove_directories(Dir);
  std::lock_guard<std::mutex> G(LiveDirsLock);
  LiveDirs->erase(std::remove(LiveDirs->begin(), LiveDirs->end(), Dir), LiveDirs->end());
}

// The command without its input and output, and the directory it runs in (the same flags in
// another directory may name other headers); "" for a command with a PCH of its own or a
// device-side parse, which are left alone.
static std::string commandKey(const std::vector<std::string> &FinalArgs, llvm::StringRef File,
                              llvm::StringRef Directory) {
  std::string Key;
  for (std::size_t I = 0; I < FinalArgs.size(); ++I) {
    if (FinalArgs[I] == "-include-pch" || FinalArgs[I] == "--cuda-device-only")
      return "";
    if (isInputOrOutput(FinalArgs, I, File))
      continue;
    Key += FinalArgs[I];
    Key += '\0';
  }
  return Key + Directory.str();
}

std::string PreludePchCache::keyOf(const std::vector<std::string> &FinalArgs, llvm::StringRef File,
                                   llvm::StringRef Directory) {
  bool Cuda = llvm::sys::path::extension(File) == ".cu";
  for (std::size_t I = 1; I < FinalArgs.size(); ++I)
    if (FinalArgs[I - 1] == "-x")
      Cuda = FinalArgs[I] == "cuda" || FinalArgs[I] == "cu";
  return Cuda ? commandKey(FinalArgs, File, Directory) : "";
}

void PreludePchCache::plan(const std::vector<std::string> &Keys) {
  std::lock_guard<std::mutex> G(Lock);
  for (const std::string &K : Keys)
    if (!K.empty())
      ++Shared[K];
}

std::string PreludePchCache::pchFor(const std::string &Key, const std::vector<std::string> &FinalArgs,
                                    llvm::StringRef File, llvm::StringRef Directory) {
  if (Key.empty())
    return "";
  std::promise<std::string> Promise;
  std::shared_future<std::string> Future;
  bool Builder = false;
  {
    std::lock_guard<std::mutex> G(Lock);
    auto S = Shared.find(Key);
    if (S == Shared.end() || S->second < 2)
      return "";
    auto It = Pchs.find(Key);
    if (It == Pchs.end()) {
      Future = Promise.get_future().share();
      Pchs.emplace(Key, Future);
      Builder = true;
    } else {
      Future = It->second;
    }
  }
  if (Builder)
    Promise.set_value(build(FinalArgs, File, Directory));
  return Future.get();
}

std::string PreludePchCache::preamblePchFor(const std::vector<std::string> &FinalArgs, llvm::StringRef File,
                                            llvm::StringRef Directory, llvm::StringRef Text,
                                            std::string &PreambleBytes, bool *BuiltNow) {
  clang::LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = true;
  clang::PreambleBounds Bounds = clang::Lexer::ComputePreamble(Text, LO);
  llvm::StringRef Preamble = Text.take_front(Bounds.Size);
  if (Preamble.find("#include") == llvm::StringRef::npos && Preamble.find("#import") == llvm::StringRef::npos)
    return "";
  PreambleBytes = std::to_string(Bounds.Size) + "," + (Bounds.PreambleEndsAtStartOfLine ? "1" : "0");
  std::string Key = commandKey(FinalArgs, File, Directory);
  if (Key.empty())
    return "";
  Key += '\0' + Preamble.str();
  std::promise<std::string> Promise;
  std::shared_future<std::string> Future, Old;
  {
    std::lock_guard<std::mutex> G(Lock);
    auto It = Preambles.find(File.str());
    if (It != Preambles.end() && It->second.first == Key)
      return It->second.second.get();
    if (It != Preambles.end())
      Old = It->second.second;
    Future = Promise.get_future().share();
    Preambles[File.str()] = {Key, Future};
  }
  if (Old.valid())  // the preamble changed: its old PCH goes
    if (std::string P = Old.get(); !P.empty())
      llvm::sys::fs::remove(P);
  Promise.set_value(build(FinalArgs, File, Directory, Preamble));
  if (BuiltNow)
    *BuiltNow = true;
  return Future.get();
}

void PreludePchCache::forgetPreamble(llvm::StringRef File) {
  std::shared_future<std::string> Old;
  {
    std::lock_guard<std::mutex> G(Lock);
    auto It = Preambles.find(File.str());
    if (It == Preambles.end())
      return;
    Old = It->second.second;
    Preambles.erase(It);
  }
  if (std::string P = Old.get(); !P.empty())
    llvm::sys::fs::remove(P);
}

std::string PreludePchCache::build(const std::vector<std::string> &FinalArgs, llvm::StringRef File,
                                   llvm::StringRef Directory, llvm::StringRef Preamble) {
  unsigned Id;
  {
    std::lock_guard<std::mutex> G(Lock);
    if (Dir.empty()) {
      // Created and registered under the lock that a signal's clean-up takes: a signal in
      // between would otherwise leave the new directory behind (seen once in CI's signals test).
      std::lock_guard<std::mutex> L(LiveDirsLock);
      llvm::SmallString<256> D;
      if (llvm::sys::fs::createUniqueDirectory("syncwatch-pch", D))
        return "";
      Dir = std::string(D);
      LiveDirs->push_back(Dir);
    }
    Id = NextId++;
  }
  llvm::SmallString<256> Prelude(Dir), Pch(Dir);
  llvm::sys::path::append(Prelude, "prelude" + std::to_string(Id) + ".cu");
  llvm::sys::path::append(Pch, "prelude" + std::to_string(Id) + ".pch");
  {
    std::error_code EC;
    llvm::raw_fd_ostream Out(Prelude, EC);
    if (EC)
      return "";
    Out << "// syncwatch: the implicit CUDA prelude, precompiled\n";
    if (!Preamble.empty())
      Out << Preamble;
    Out.close();
    if (Out.has_error()) {  // a full disk: no PCH (LLVM would abort on a stream left in error)
      Out.clear_error();
      return "";
    }
  }
  // The file's own command, its input replaced by the empty prelude, emitting a PCH.
  std::vector<std::string> Args;
  for (std::size_t I = 0; I < FinalArgs.size(); ++I) {
    if (isInputOrOutput(FinalArgs, I, File) || FinalArgs[I] == "-fsyntax-only")
      continue;
    Args.push_back(FinalArgs[I]);
  }
  // A preamble's quoted includes are found from the file's own directory, as in the file.
  if (!Preamble.empty()) {
    llvm::SmallString<256> Own(File);
    if (!llvm::sys::path::is_absolute(Own))
      llvm::sys::path::make_absolute(Directory, Own);
    llvm::sys::path::remove_filename(Own);
    Args.push_back("-iquote");
    Args.push_back(std::string(Own));
  }
  // The templates the headers use are instantiated in the PCH, once, not again at the end of
  // every parse that includes it (clang-cl's /Yc does the same): on ggml-cuda.cu's preamble
  // the parse went from 0.43 to 0.33 s (docs/benchmarks.md).
  Args.push_back("-fpch-instantiate-templates");
  for (const char *A : {"-c", "-Xclang", "-emit-pch", "-o"})
    Args.push_back(A);
  Args.push_back(std::string(Pch));
  Args.push_back(std::string(Prelude));
  // The entry's relative paths (-I Common) are resolved from its own directory, in a file
  // system of this build's own: never the process's working directory, which other workers
  // share (issue 11's -j2 race).
  std::unique_ptr<llvm::vfs::FileSystem> Physical = llvm::vfs::createPhysicalFileSystem();
  if (Physical->setCurrentWorkingDirectory(Directory))
    return "";
  llvm::IntrusiveRefCntPtr<clang::FileManager> Files(new clang::FileManager(
      clang::FileSystemOptions(), llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>(Physical.release())));
  clang::IgnoringDiagConsumer Quiet;
  clang::tooling::ToolInvocation Invocation(Args, std::make_unique<SystemBodylessPch>(),
                                            Files.get());
  Invocation.setDiagnosticConsumer(&Quiet);
  if (!Invocation.run() || !llvm::sys::fs::exists(Pch))
    return "";
  ++Built;
  return std::string(Pch);
}

} // namespace syncwatch
