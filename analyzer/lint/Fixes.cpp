#include "Fixes.h"

#include "syncwatch/file_output.h"

#include "clang/Tooling/Core/Diagnostic.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>

namespace syncwatch {
namespace {

// Byte offset of a 1-based line:column (clang's columns count bytes).
std::optional<unsigned> offsetOf(llvm::StringRef Text, unsigned Line, unsigned Column) {
  unsigned Offset = 0;
  for (unsigned L = 1; L < Line; ++L) {
    std::size_t NL = Text.find('\n', Offset);
    if (NL == llvm::StringRef::npos)
      return std::nullopt;
    Offset = NL + 1;
  }
  Offset += Column - 1;
  return Offset <= Text.size() ? std::optional<unsigned>(Offset) : std::nullopt;
}

struct FileText {
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
};

llvm::Expected<clang::tooling::Replacement>
replacementOf(const FixIt &X, std::map<std::string, FileText> &Files) {
  auto &F = Files[X.Where.File];
  if (!F.Buffer) {
    auto Buf = llvm::MemoryBuffer::getFile(X.Where.File);
    if (!Buf)
      return llvm::createStringError("cannot read '" + X.Where.File + "'");
    F.Buffer = std::move(*Buf);
  }
  llvm::StringRef Text = F.Buffer->getBuffer();
  auto Begin = offsetOf(Text, X.Where.Line, X.Where.Column);
  auto End = offsetOf(Text, X.Where.EndLine, X.Where.EndColumn);
  if (!Begin || !End || *End < *Begin)
    return llvm::createStringError("a fix-it for '" + X.Where.File + "' is out of range");
  return clang::tooling::Replacement(X.Where.File, *Begin, *End - *Begin, X.Text);
}

} // namespace

llvm::Expected<FixSummary> applyFixes(const std::vector<Finding> &Findings) {
  std::map<std::string, FileText> Files;
  std::map<std::string, clang::tooling::Replacements> ByFile;
  FixSummary Summary;
  for (const Finding &F : Findings)
    for (const FixIt &X : F.Fixes) {
      llvm::Expected<clang::tooling::Replacement> R = replacementOf(X, Files);
      if (!R)
        return R.takeError();
      // The same finding from a header seen twice, or two checks fixing one place:
      // add() refuses overlaps; keep the first.
      if (llvm::Error E = ByFile[X.Where.File].add(*R))
        llvm::consumeError(std::move(E));
      else
        ++Summary.Applied;
    }
  for (auto &[File, Replaces] : ByFile) {
    llvm::Expected<std::string> Fixed =
        clang::tooling::applyAllReplacements(Files[File].Buffer->getBuffer(), Replaces);
    if (!Fixed)
      return Fixed.takeError();
    // All of a file's edits applied in memory, then written all or nothing: a full disk
    // leaves the source as it was.
    std::string Error;
    if (!writeFileAtomically(File, *Fixed, Error))
      return llvm::createStringError("cannot write '" + File + "': " + Error + " (the file is untouched)");
    ++Summary.Files;
  }
  return Summary;
}

llvm::Error exportFixes(const std::string &Path, const std::vector<Finding> &Findings) {
  std::map<std::string, FileText> Files;
  clang::tooling::TranslationUnitDiagnostics TU;
  for (const Finding &F : Findings) {
    if (F.Fixes.empty())
      continue;
    if (TU.MainSourceFile.empty())
      TU.MainSourceFile = F.Where.File;
    clang::tooling::DiagnosticMessage Message;
    Message.Message = F.Message;
    Message.FilePath = F.Where.File;
    for (const FixIt &X : F.Fixes) {
      llvm::Expected<clang::tooling::Replacement> R = replacementOf(X, Files);
      if (!R)
        return R.takeError();
      if (llvm::Error E = Message.Fix[X.Where.File].add(*R))
        return E;
    }
    if (auto It = Files.find(F.Where.File); It != Files.end())
      Message.FileOffset = offsetOf(It->second.Buffer->getBuffer(), F.Where.Line, F.Where.Column).value_or(0);
    TU.Diagnostics.emplace_back(F.Rule, Message, llvm::SmallVector<clang::tooling::DiagnosticMessage, 1>{},
                                F.Level == Severity::Note ? clang::tooling::Diagnostic::Remark
                                                          : clang::tooling::Diagnostic::Warning,
                                "");
  }
  std::string Text;
  {
    llvm::raw_string_ostream Out(Text);
    llvm::yaml::Output YAML(Out);
    YAML << TU;
  }
  std::string Error;
  if (!writeFileAtomically(Path, Text, Error))
    return llvm::createStringError("cannot write '" + Path + "': " + Error + " (any old file is untouched)");
  return llvm::Error::success();
}

} // namespace syncwatch
