// The compilation database syncwatch-lint and syncwatch-lsp read: another database's
// commands, each translated into a clang command line (NvccTranslation.h).
#pragma once

#include "NvccTranslation.h"
#include "../unit/UnitRunner.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace syncwatch {

// A compilation database whose commands are translated (translateCommand). Commands that
// cannot be read keep their original form; translationError() says why, and the unit
// runner refuses those files with it (TranslationErrors).
class TranslatingDatabase : public clang::tooling::CompilationDatabase, public TranslationErrors {
public:
  TranslatingDatabase(const clang::tooling::CompilationDatabase &Base, TranslationConfig Config)
      : Base(Base), Config(std::move(Config)) {}
  std::vector<clang::tooling::CompileCommand> getCompileCommands(llvm::StringRef File) const override;
  std::vector<std::string> getAllFiles() const override { return Base.getAllFiles(); }
  std::vector<clang::tooling::CompileCommand> getAllCompileCommands() const override;

  // The error of the first command of File that could not be translated, or "".
  std::string translationError(llvm::StringRef File) const override;

private:
  const clang::tooling::CompilationDatabase &Base;
  TranslationConfig Config;
};

} // namespace syncwatch
