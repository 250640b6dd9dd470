// The compilation database adapter (TranslatingDatabase.h): another database's commands,
// each translated by translateCommand.
#include "TranslatingDatabase.h"

using namespace llvm;

namespace syncwatch {

std::vector<clang::tooling::CompileCommand>
TranslatingDatabase::getCompileCommands(StringRef File) const {
  std::vector<clang::tooling::CompileCommand> Commands = Base.getCompileCommands(File);
  for (clang::tooling::CompileCommand &C : Commands) {
    TranslatedCommand T = translateCommand(C.CommandLine, C.Directory, C.Filename, Config);
    if (T.Error.empty())
      C.CommandLine = std::move(T.Args);
  }
  return Commands;
}

std::vector<clang::tooling::CompileCommand> TranslatingDatabase::getAllCompileCommands() const {
  std::vector<clang::tooling::CompileCommand> Out;
  for (const std::string &F : getAllFiles())
    for (clang::tooling::CompileCommand &C : getCompileCommands(F))
      Out.push_back(std::move(C));
  return Out;
}

std::string TranslatingDatabase::translationError(StringRef File) const {
  for (const clang::tooling::CompileCommand &C : Base.getCompileCommands(File)) {
    TranslatedCommand T = translateCommand(C.CommandLine, C.Directory, C.Filename, Config);
    if (!T.Error.empty())
      return T.Error;
  }
  return "";
}

} // namespace syncwatch
