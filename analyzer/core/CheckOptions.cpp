#include "CheckOptions.h"

namespace syncwatch {

bool readBoolOption(const CheckOptionsView &View, llvm::StringRef Name, bool Default) {
  std::optional<std::string> V = View.get(Name);
  if (!V)
    return Default;
  llvm::StringRef S(*V);
  for (llvm::StringRef Yes : {"true", "1", "yes", "on"})
    if (S.equals_insensitive(Yes))
      return true;
  for (llvm::StringRef No : {"false", "0", "no", "off"})
    if (S.equals_insensitive(No))
      return false;
  View.invalid(Name, S, "a bool");
  return Default;
}

} // namespace syncwatch
