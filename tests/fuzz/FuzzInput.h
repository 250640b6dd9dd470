// What every fuzz target shares: the input as text, and a scratch file for readers that
// take a path (each target process has its own directory).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace syncwatch::fuzz {

inline std::string text(const std::uint8_t *Data, std::size_t Size) {
  return std::string(reinterpret_cast<const char *>(Data), Size);
}

inline const std::string &scratchDir() {
  static const std::string Dir = [] {
    char Template[] = "/tmp/syncwatch-fuzz-XXXXXX";
    const char *D = mkdtemp(Template);
    return std::string(D ? D : "/tmp");
  }();
  return Dir;
}

// Writes Text to <scratch>/Name and returns the path.
inline std::string scratchFile(const std::string &Name, const std::string &Text) {
  std::string Path = scratchDir() + "/" + Name;
  if (FILE *F = std::fopen(Path.c_str(), "wb")) {
    std::fwrite(Text.data(), 1, Text.size(), F);
    std::fclose(F);
  }
  return Path;
}

} // namespace syncwatch::fuzz
