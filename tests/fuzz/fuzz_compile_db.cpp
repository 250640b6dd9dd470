// compile_commands.json as clang's reader takes it, then every entry through the nvcc/g++
// translation (analyzer/lint/NvccTranslation), as syncwatch-lint -p does.
#include "../../analyzer/lint/NvccTranslation.h"
#include "FuzzInput.h"

#include "syncwatch/json_limits.h"

#include "clang/Tooling/JSONCompilationDatabase.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  std::string Text = syncwatch::fuzz::text(Data, Size);
  if (!syncwatch::jsonLimitsError(Text, 64).empty())
    return 0;  // what syncwatch-lint refuses before clang's reader sees it
  std::string Error;
  auto DB = clang::tooling::JSONCompilationDatabase::loadFromBuffer(Text, Error,
                                                                    clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!DB)
    return 0;
  syncwatch::TranslationConfig Config;
  Config.FallbackCudaPath = "/usr/local/cuda";
  for (const clang::tooling::CompileCommand &C : DB->getAllCompileCommands())
    (void)syncwatch::translateCommand(C.CommandLine, C.Directory, C.Filename, Config);
  return 0;
}
