#include "UnitRunner.h"
#include "PreludePch.h"
#include "UnitParse.h"

#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>

using namespace clang;

namespace syncwatch {

tooling::ArgumentsAdjuster withClangToolAdjusters(tooling::ArgumentsAdjuster Own) {
  tooling::ArgumentsAdjuster ClangTools = tooling::combineAdjusters(
      tooling::combineAdjusters(tooling::getClangStripOutputAdjuster(), tooling::getClangSyntaxOnlyAdjuster()),
      tooling::getClangStripDependencyFileAdjuster());
  return Own ? tooling::combineAdjusters(ClangTools, std::move(Own)) : ClangTools;
}

void realPathsSorted(std::vector<std::string> &Files) {
  for (std::string &F : Files) {
    llvm::SmallString<256> Real;
    if (!llvm::sys::fs::real_path(F, Real))
      F = std::string(Real);
  }
  std::sort(Files.begin(), Files.end());
  Files.erase(std::unique(Files.begin(), Files.end()), Files.end());
}

std::vector<tooling::CompileCommand> UnitRunner::commandsOf(const std::string &File,
                                                            std::optional<ToolError> &Problem) const {
  // A FIFO, a device or a directory named as a source would hang or confuse the parse
  // (clang waits on a FIFO forever): a CI tool refuses what is not a regular file.
  llvm::sys::fs::file_status St;
  if (!llvm::sys::fs::status(File, St) && St.type() != llvm::sys::fs::file_type::regular_file) {
    Problem = ToolError{File, "is not a regular file (a FIFO, a device or a directory); it was not analyzed"};
    return {};
  }
  std::vector<tooling::CompileCommand> Commands = DB.getCompileCommands(File);
  if (Commands.empty()) {
    Problem = ToolError{File, "no compile command for this file in the compilation "
                              "database; it was not analyzed"};
    return {};
  }
  for (const tooling::CompileCommand &C : Commands)
    if (!llvm::sys::fs::is_directory(C.Directory)) {
      Problem = ToolError{File, "its compile command's directory '" + C.Directory +
                                    "' does not exist (a database from another machine? "
                                    "regenerate it, or create the build directory); it was not analyzed"};
      return {};
    }
  if (const auto *T = dynamic_cast<const TranslationErrors *>(&DB)) {
    std::string Why = T->translationError(File);
    if (!Why.empty()) {
      Problem = ToolError{File, Why + "; it was not analyzed"};
      return {};
    }
  }
  return Commands;
}

std::vector<std::string> UnitRunner::finalArgs(const tooling::CompileCommand &C) const {
  return withClangToolAdjusters(Options.Adjust)(C.CommandLine, C.Filename);
}

std::vector<std::string> preludePchKeys(const tooling::CompilationDatabase &DB, const std::vector<std::string> &Files,
                                        const tooling::ArgumentsAdjuster &Own) {
  tooling::ArgumentsAdjuster Final = withClangToolAdjusters(Own);
  std::vector<std::string> Keys;
  for (const std::string &F : Files) {
    std::vector<tooling::CompileCommand> C = DB.getCompileCommands(F);
    if (C.size() == 1)
      Keys.push_back(PreludePchCache::keyOf(Final(C[0].CommandLine, C[0].Filename), C[0].Filename, C[0].Directory));
  }
  return Keys;
}

UnitResult UnitRunner::analyze(const std::string &File, const std::vector<tooling::CompileCommand> &Commands,
                               const SummaryIndex *External, ParseHold *Hold) const {
  PreludePchCache *Pchs = Options.Pchs;
  PchUse Use;
  bool Preamble = false, PreambleNew = false;
  if (Pchs && Commands.size() == 1) {
    const tooling::CompileCommand &C = Commands[0];
    std::vector<std::string> Args = finalArgs(C);
    // An editor's buffer (syncwatch-lsp): the file's own preamble - its leading #includes
    // and #defines - precompiled once and reused while those lines stay as they are.
    if (Options.BufferPreamble)
      for (const auto &[Path, Text] : Options.Unsaved)
        if (Path == File) {
          Use.Path = Pchs->preamblePchFor(Args, C.Filename, C.Directory, Text, Use.PreambleBytes, &PreambleNew);
          Preamble = !Use.Path.empty();
        }
    if (!Preamble)
      Use.PreambleBytes.clear();
    if (Use.Path.empty())
      Use.Path = Pchs->pchFor(PreludePchCache::keyOf(Args, C.Filename, C.Directory), Args, C.Filename, C.Directory);
  }
  // (a new preamble: the headers' findings may have changed with it, the whole unit then)
  Use.MainFileOnly = Preamble && Options.MainFileScope && !PreambleNew;
  UnitResult Result = parseUnit(DB, File, Options, NoLint, Use, External, Hold);
  // (with the file's preamble in the PCH, an error anywhere may be the PCH's: a header
  // included twice that has no include guard)
  if (!Use.Path.empty() && Result.Error && !Result.Crashed && !Result.Cancelled &&
      (Preamble || !Result.ErrorInMainFile)) {
    // An error outside the file may come from the PCH (a header changed since it was
    // built, a flag it cannot take): the plain parse decides. Errors in the file itself
    // are the file's.
    Pchs->noteFallback();
    if (Preamble)
      Pchs->forgetPreamble(Commands[0].Filename);
    Result = parseUnit(DB, File, Options, NoLint, PchUse{}, External, Hold);
  }
  return Result;
}

} // namespace syncwatch
