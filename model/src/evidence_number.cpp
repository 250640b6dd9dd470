#include "syncwatch/evidence_number.h"

#include "syncwatch/json_value.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace syncwatch {

namespace {

// The value as a message quotes it: short, and a control character (a CR of a file with
// Windows line ends) spelt out, since a terminal shows it as nothing.
std::string quoted(std::string_view Text) {
  std::string Out = "'";
  for (std::size_t I = 0; I < Text.size() && I < 40; ++I) {
    char C = Text[I];
    if (C == '\r')
      Out += "\\r";
    else if (C == '\t')
      Out += "\\t";
    else if (static_cast<unsigned char>(C) < 0x20)
      Out += "\\x" + std::string(1, "0123456789abcdef"[C >> 4]) + "0123456789abcdef"[C & 15];
    else
      Out += C;
  }
  return Out + (Text.size() > 40 ? "...'" : "'");
}

std::string named(std::string_view Field, std::string_view Text, const std::string &Why) {
  return std::string(Field) + " " + quoted(Text) + " " + Why;
}

// What every time is checked for once it is a double: the same words for a string and a
// JSON number.
std::string msRangeError(std::string_view Field, std::string_view Shown, double D) {
  if (!std::isfinite(D))
    return named(Field, Shown, "is not a finite number (past what a double holds): not a measured time");
  if (D < 0)
    return named(Field, Shown, "is negative: a measured time never is");
  if (D > kMaxEvidenceMs)
    return named(Field, Shown, "is past 1e12 ms (about 31 years): not a measured time");
  return "";
}

std::string jsonKindName(const JsonValue &V) {
  switch (V.kind()) {
  case JsonValue::Kind::Null: return "null";
  case JsonValue::Kind::Bool: return "a boolean";
  case JsonValue::Kind::Number: return "a number";
  case JsonValue::Kind::String: return "a string";
  case JsonValue::Kind::Array: return "an array";
  case JsonValue::Kind::Object: return "an object";
  }
  return "another type";
}

std::string numberText(double D) {
  char B[64];
  std::snprintf(B, sizeof B, "%.17g", D);
  return B;
}

bool endsWith(std::string_view S, std::string_view Tail) {
  return S.size() >= Tail.size() && S.compare(S.size() - Tail.size(), Tail.size(), Tail) == 0;
}

} // namespace

std::string readMsText(std::string_view Field, std::string_view Text, double &Out) {
  // The tools write std::to_string's "81.600000"; strtod would also take " 5", "inf", "nan"
  // and "0x1p3", which no tool writes.
  if (Text.empty())
    return std::string(Field) + " is empty: a time in ms is a number";
  if (Text.find_first_not_of("0123456789.eE+-") != std::string_view::npos)
    return named(Field, Text, "is not a number of milliseconds");
  std::string S(Text);
  char *End = nullptr;
  errno = 0;
  double D = std::strtod(S.c_str(), &End);
  if (End != S.c_str() + S.size())
    return named(Field, Text, "is not a number of milliseconds");
  if (std::string Why = msRangeError(Field, Text, D); !Why.empty())
    return Why;
  Out = D;
  return "";
}

std::string readCountText(std::string_view Field, std::string_view Text, std::uint64_t &Out, std::uint64_t Max) {
  if (Text.empty())
    return std::string(Field) + " is empty: a count is a number";
  if (Text[0] == '-' && Text.size() > 1 && Text.find_first_not_of("0123456789", 1) == std::string_view::npos)
    return named(Field, Text, "is negative: a count never is");
  std::uint64_t V = 0;
  for (char C : Text) {
    if (C < '0' || C > '9')
      return named(Field, Text, "is not a whole number");
    unsigned Digit = C - '0';
    // Past Max (2^64-1 for most): it used to wrap around, silently.
    if (V > (Max - Digit) / 10)
      return named(Field, Text, "is past " + std::to_string(Max) + ", the largest it can be");
    V = V * 10 + Digit;
  }
  Out = V;
  return "";
}

std::string readMsJson(std::string_view Field, const JsonValue &V, double &Out) {
  if (V.kind() != JsonValue::Kind::Number)
    return std::string(Field) + " is " + jsonKindName(V) + ": syncwatch writes a number of milliseconds there";
  if (std::string Why = msRangeError(Field, numberText(V.number()), V.number()); !Why.empty())
    return Why;
  Out = V.number();
  return "";
}

std::string readCountJson(std::string_view Field, const JsonValue &V, std::uint64_t &Out) {
  if (V.kind() != JsonValue::Kind::Number)
    return std::string(Field) + " is " + jsonKindName(V) + ": syncwatch writes a count (a number) there";
  double D = V.number();
  std::string Shown = numberText(D);
  if (!std::isfinite(D))
    return named(Field, Shown, "is not a finite number (past what a double holds): not a count");
  if (D < 0)
    return named(Field, Shown, "is negative: a count never is");
  if (D != std::floor(D))
    return named(Field, Shown, "is not a whole number: not a count");
  if (D >= 18446744073709551616.0)  // 2^64: a cast of it to uint64_t is undefined
    return named(Field, Shown, "is past 2^64-1, the largest count");
  Out = static_cast<std::uint64_t>(D);
  return "";
}

std::string readStringJson(std::string_view Field, const JsonValue &V, std::string &Out) {
  if (V.kind() != JsonValue::Kind::String)
    return std::string(Field) + " is " + jsonKindName(V) + ": syncwatch writes a string there";
  Out = V.string();
  return "";
}

std::string figuresError(std::string_view Prefix, const std::vector<std::pair<std::string, std::string>> &Figures) {
  for (const auto &[K, V] : Figures) {
    std::string Field = std::string(Prefix) + K;
    double Ms;
    std::uint64_t N;
    if (endsWith(K, "Ms"))
      if (std::string Why = readMsText(Field, V, Ms); !Why.empty())
        return Why;
    if (K == "steps.count")
      if (std::string Why = readCountText(Field, V, N); !Why.empty())
        return Why;
  }
  return "";
}

} // namespace syncwatch
