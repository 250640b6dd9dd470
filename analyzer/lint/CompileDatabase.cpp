#include "CompileDatabase.h"

#include "syncwatch/json_limits.h"

#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Support/MemoryBuffer.h"

namespace syncwatch {

std::unique_ptr<clang::tooling::CompilationDatabase> loadDatabaseFile(const std::string &File, std::string &Error) {
  auto Buf = llvm::MemoryBuffer::getFile(File);
  if (!Buf) {
    Error = "cannot read '" + File + "': " + Buf.getError().message();
    return nullptr;
  }
  if (std::string Why = jsonLimitsError((*Buf)->getBuffer(), 64); !Why.empty()) {
    Error = "'" + File + "' is " + Why;
    return nullptr;
  }
  return clang::tooling::JSONCompilationDatabase::loadFromFile(File, Error,
                                                               clang::tooling::JSONCommandLineSyntax::AutoDetect);
}

} // namespace syncwatch
