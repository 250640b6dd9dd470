// A result-cache entry (--cache-dir), as a restored CI cache may hand it over: read through
// ResultCache::lookup, with its checks (file hashes, files the unit read).
#include "../../analyzer/lint/ResultCache.h"
#include "FuzzInput.h"

#include <filesystem>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  static const std::string Dir = syncwatch::fuzz::scratchDir() + "/cache";
  static syncwatch::ResultCache Cache(Dir);
  static const std::string Key = Cache.keyOf({{"clang++", "-c", "unit.cu"}}, {"/"}, "syncwatch-*");
  static const std::string Entry = [] {
    std::string Source = syncwatch::fuzz::scratchFile("unit.cu", "int main() {}\n");
    Cache.store(Key, {Source}, {});
    for (const auto &E : std::filesystem::recursive_directory_iterator(Dir))
      if (E.path().extension() == ".json")
        return E.path().string();
    return std::string();
  }();
  if (Entry.empty())
    return 0;
  if (FILE *F = std::fopen(Entry.c_str(), "wb")) {
    std::fwrite(Data, 1, Size, F);
    std::fclose(F);
  }
  (void)Cache.lookup(Key);
  return 0;
}
