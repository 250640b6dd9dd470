// A small streaming JSON emitter. The runtime half must build without LLVM (the GPU
// machine has none), so the shared writers cannot use llvm::json; this is all they need:
// objects, arrays, strings with correct escaping, numbers, booleans.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch {

class JsonWriter {
public:
  explicit JsonWriter(std::ostream &Out, bool Pretty = true) : Out(Out), Pretty(Pretty) {}

  JsonWriter &beginObject();
  JsonWriter &endObject();
  JsonWriter &beginArray();
  JsonWriter &endArray();
  JsonWriter &key(std::string_view K);
  JsonWriter &value(std::string_view S);
  JsonWriter &value(const char *S) { return value(std::string_view(S)); }
  JsonWriter &value(std::int64_t N);
  JsonWriter &value(std::uint64_t N);
  JsonWriter &value(int N) { return value(static_cast<std::int64_t>(N)); }
  JsonWriter &value(unsigned N) { return value(static_cast<std::uint64_t>(N)); }
  JsonWriter &value(double D);
  JsonWriter &value(bool B);
  JsonWriter &null();

  // key + value in one call
  template <typename T> JsonWriter &field(std::string_view K, const T &V) {
    key(K);
    return value(V);
  }

  // "K": {"k1": "v1", ...}: a report's string maps (figures, process, evidence).
  JsonWriter &stringMap(std::string_view K, const std::vector<std::pair<std::string, std::string>> &Pairs) {
    key(K).beginObject();
    for (const auto &[Name, V] : Pairs)
      field(Name, V);
    return endObject();
  }

  static void escape(std::ostream &Out, std::string_view S);

private:
  void beforeValue();
  void newline();
  std::ostream &Out;
  bool Pretty;
  struct Level {
    bool IsObject;
    bool Empty = true;
  };
  std::vector<Level> Stack;
  bool AfterKey = false;
};

} // namespace syncwatch
