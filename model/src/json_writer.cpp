#include "syncwatch/json_writer.h"

#include <cmath>
#include <cstdio>

namespace syncwatch {

// The length of the valid UTF-8 sequence at S[I], or 0 (a stray or truncated byte, an
// overlong form, a surrogate).
static std::size_t utf8Sequence(std::string_view S, std::size_t I) {
  auto B = [&](std::size_t K) { return static_cast<unsigned char>(S[K]); };
  unsigned char C = B(I);
  std::size_t N = C >= 0xf0 && C <= 0xf4 ? 4 : C >= 0xe0 ? 3 : C >= 0xc2 && C <= 0xdf ? 2 : 0;
  if (N == 0 || I + N > S.size())
    return 0;
  for (std::size_t K = 1; K < N; ++K)
    if ((B(I + K) & 0xc0) != 0x80)
      return 0;
  if ((C == 0xe0 && B(I + 1) < 0xa0) || (C == 0xed && B(I + 1) >= 0xa0) || (C == 0xf0 && B(I + 1) < 0x90) ||
      (C == 0xf4 && B(I + 1) >= 0x90))
    return 0;
  return N;
}

void JsonWriter::escape(std::ostream &Out, std::string_view S) {
  Out << '"';
  for (std::size_t I = 0; I < S.size(); ++I) {
    unsigned char C = static_cast<unsigned char>(S[I]);
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
      } else if (C < 0x80) {
        Out << static_cast<char>(C);
      } else if (std::size_t N = utf8Sequence(S, I)) {
        Out << S.substr(I, N);  // valid UTF-8 passes through unchanged
        I += N - 1;
      } else {
        // A byte that is not UTF-8 (a Latin-1 file name): JSON must be UTF-8, so it
        // becomes U+FFFD, as Python's errors="replace" does.
        Out << "\\ufffd";
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
