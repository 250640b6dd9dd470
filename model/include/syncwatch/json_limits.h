// What every JSON reader checks before it parses: LLVM's json::parse and the YAML parser
// behind clang's compile-database reader recurse once per nesting level, so a baseline,
// SARIF log, cache entry or compile_commands.json nested 50,000 deep overflowed the stack
// (SIGSEGV). This scan is iterative and says no first.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace syncwatch {

constexpr int kMaxJsonDepth = 128;  // SARIF is about 12 levels deep, a compile database 3
constexpr std::size_t kMaxJsonBytes = std::size_t{1} << 30;

// "" when Text is within the limits, else why not ("nested too deeply: more than 128
// levels"). Brackets inside strings do not count.
std::string jsonLimitsError(std::string_view Text, int MaxDepth = kMaxJsonDepth, std::size_t MaxBytes = kMaxJsonBytes);

} // namespace syncwatch
