#include "CompileDatabase.h"

#include "syncwatch/json_limits.h"

#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Support/JSON.h"
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
  // clang's reader is a YAML parser: a truncated file would say only "Error while parsing
  // YAML". A database is JSON, so it is checked as JSON first, and the error names the file.
  if (llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse((*Buf)->getBuffer()); !Parsed) {
    Error = "'" + File + "' is not valid JSON (" + llvm::toString(Parsed.takeError()) +
            "): a truncated or hand-edited compile database? Regenerate it (CMake: "
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)";
    return nullptr;
  }
  return clang::tooling::JSONCompilationDatabase::loadFromFile(File, Error,
                                                               clang::tooling::JSONCommandLineSyntax::AutoDetect);
}

} // namespace syncwatch
