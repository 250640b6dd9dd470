#include "syncwatch/json_limits.h"

namespace syncwatch {

std::string jsonLimitsError(std::string_view Text, int MaxDepth, std::size_t MaxBytes) {
  if (Text.size() > MaxBytes)
    return "larger than " + std::to_string(MaxBytes >> 20) + " MiB";
  int Depth = 0;
  bool InString = false, Escaped = false;
  for (char C : Text) {
    if (InString) {
      if (Escaped)
        Escaped = false;
      else if (C == '\\')
        Escaped = true;
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > MaxDepth)
        return "nested too deeply: more than " + std::to_string(MaxDepth) + " levels";
    } else if ((C == ']' || C == '}') && Depth > 0) {
      --Depth;
    }
  }
  return "";
}

} // namespace syncwatch
