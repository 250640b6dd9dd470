// Reading a compile_commands.json: checked before clang's reader (a YAML parser that
// recurses per nesting level) sees it, so an unreadable file says why and a hostile one is
// refused. syncwatch-lint and syncwatch-lsp read databases through this.
#pragma once

#include "clang/Tooling/CompilationDatabase.h"

#include <memory>
#include <string>

namespace syncwatch {

std::unique_ptr<clang::tooling::CompilationDatabase> loadDatabaseFile(const std::string &File, std::string &Error);

} // namespace syncwatch
