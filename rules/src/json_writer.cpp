#include "syncwatch/json_writer.h"

#include <cmath>
#include <cstdio>

namespace syncwatch {

void JsonWriter::escape(std::ostream &Out, std::string_view S) {
  Out << '"';
  for (unsigned char C : S) {
    switch (C) {
    case '"': Out << "\\\""; break;
    case '\\': Out << "\\\\"; break;
    case '\n': Out << "\\n"; break;
    case '\r': Out << "\\r"; break;
    case '\t': Out << "\\t"; break;
    case '\b': Out << "\\b"; break;
    case '\f': Out << "\\f"; break;
    default:
      if (C < 0x20) {
        char Buf[8];
        std::snprintf(Buf, sizeof Buf, "\\u%04x", C);
        Out << Buf;
      } else {
        Out << static_cast<char>(C); // UTF-8 passes through unchanged
      }
    }
  }
  Out << '"';
}

void JsonWriter::newline() {
  if (!Pretty)
    return;
  Out << '\n';
  for (std::size_t I = 0; I < Stack.size(); ++I)
    Out << "  ";
}

void JsonWriter::beforeValue() {
  if (AfterKey) {
    AfterKey = false;
    return;
  }
  if (!Stack.empty()) {
    if (!Stack.back().Empty)
      Out << ',';
    Stack.back().Empty = false;
    newline();
  }
}

JsonWriter &JsonWriter::beginObject() {
  beforeValue();
  Out << '{';
  Stack.push_back({true});
  return *this;
}

JsonWriter &JsonWriter::endObject() {
  bool Empty = Stack.back().Empty;
  Stack.pop_back();
  if (!Empty)
    newline();
  Out << '}';
  if (Stack.empty() && Pretty)
    Out << '\n';
  return *this;
}

JsonWriter &JsonWriter::beginArray() {
  beforeValue();
  Out << '[';
  Stack.push_back({false});
  return *this;
}

JsonWriter &JsonWriter::endArray() {
  bool Empty = Stack.back().Empty;
  Stack.pop_back();
  if (!Empty)
    newline();
  Out << ']';
  return *this;
}

JsonWriter &JsonWriter::key(std::string_view K) {
  beforeValue();
  escape(Out, K);
  Out << (Pretty ? ": " : ":");
  AfterKey = true;
  return *this;
}

JsonWriter &JsonWriter::value(std::string_view S) {
  beforeValue();
  escape(Out, S);
  return *this;
}

JsonWriter &JsonWriter::value(std::int64_t N) {
  beforeValue();
  Out << N;
  return *this;
}

JsonWriter &JsonWriter::value(std::uint64_t N) {
  beforeValue();
  Out << N;
  return *this;
}

JsonWriter &JsonWriter::value(double D) {
  beforeValue();
  if (!std::isfinite(D)) {
    Out << "null"; // JSON has no NaN or infinity
    return *this;
  }
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.17g", D);
  Out << Buf;
  return *this;
}

JsonWriter &JsonWriter::value(bool B) {
  beforeValue();
  Out << (B ? "true" : "false");
  return *this;
}

JsonWriter &JsonWriter::null() {
  beforeValue();
  Out << "null";
  return *this;
}

} // namespace syncwatch
