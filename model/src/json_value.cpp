#include "syncwatch/json_value.h"

#include <cstdlib>

namespace syncwatch {

namespace {
const std::string EmptyString;
const std::vector<JsonValue> EmptyArray;
const JsonValue NullValue;
constexpr int MaxDepth = 64;  // a profile is three levels deep; deeper input is rejected
} // namespace

const std::string &JsonValue::string() const { return K == Kind::String ? S : EmptyString; }
const std::vector<JsonValue> &JsonValue::array() const { return K == Kind::Array ? A : EmptyArray; }
const std::map<std::string, JsonValue> &JsonValue::members() const {
  static const auto *EmptyObject = new std::map<std::string, JsonValue>();  // never destroyed
  return K == Kind::Object ? O : *EmptyObject;
}
const JsonValue &JsonValue::operator[](const std::string &Key) const {
  if (K != Kind::Object)
    return NullValue;
  auto It = O.find(Key);
  return It == O.end() ? NullValue : It->second;
}

class JsonParser {
public:
  explicit JsonParser(const std::string &T) : T(T) {}

  bool document(JsonValue &Out, std::string &Error) {
    bool Ok = value(Out, 0);
    if (Ok) {
      space();
      if (P != T.size())
        Ok = fail("unexpected text after the JSON value");
    }
    if (!Ok)
      Error = Why + " at offset " + std::to_string(P);
    return Ok;
  }

private:
  const std::string &T;
  std::size_t P = 0;
  std::string Why;

  bool fail(const char *Message) {
    if (Why.empty())
      Why = Message;
    return false;
  }
  void space() {
    while (P < T.size() && (T[P] == ' ' || T[P] == '\t' || T[P] == '\n' || T[P] == '\r'))
      ++P;
  }
  bool literal(const char *Word) {
    std::size_t N = std::char_traits<char>::length(Word);
    if (T.compare(P, N, Word) != 0)
      return fail("invalid literal");
    P += N;
    return true;
  }

  bool value(JsonValue &V, int Depth) {
    if (Depth > MaxDepth)
      return fail("nested too deeply");
    space();
    if (P >= T.size())
      return fail("unexpected end of input");
    switch (T[P]) {
    case '{':
      return object(V, Depth);
    case '[':
      return array(V, Depth);
    case '"':
      V.K = JsonValue::Kind::String;
      return string(V.S);
    case 't':
      V.K = JsonValue::Kind::Bool;
      V.B = true;
      return literal("true");
    case 'f':
      V.K = JsonValue::Kind::Bool;
      V.B = false;
      return literal("false");
    case 'n':
      V.K = JsonValue::Kind::Null;
      return literal("null");
    default:
      return number(V);
    }
  }

  bool object(JsonValue &V, int Depth) {
    V.K = JsonValue::Kind::Object;
    ++P;  // {
    space();
    if (P < T.size() && T[P] == '}') {
      ++P;
      return true;
    }
    for (;;) {
      space();
      std::string Key;
      if (P >= T.size() || T[P] != '"' || !string(Key))
        return fail("expected a member name");
      space();
      if (P >= T.size() || T[P] != ':')
        return fail("expected ':'");
      ++P;
      if (!value(V.O[Key], Depth + 1))
        return false;
      space();
      if (P < T.size() && T[P] == ',') {
        ++P;
        continue;
      }
      if (P < T.size() && T[P] == '}') {
        ++P;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  bool array(JsonValue &V, int Depth) {
    V.K = JsonValue::Kind::Array;
    ++P;  // [
    space();
    if (P < T.size() && T[P] == ']') {
      ++P;
      return true;
    }
    for (;;) {
      V.A.emplace_back();
      if (!value(V.A.back(), Depth + 1))
        return false;
      space();
      if (P < T.size() && T[P] == ',') {
        ++P;
        continue;
      }
      if (P < T.size() && T[P] == ']') {
        ++P;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  static void utf8(std::string &Out, unsigned long C) {
    if (C < 0x80) {
      Out += static_cast<char>(C);
    } else if (C < 0x800) {
      Out += static_cast<char>(0xC0 | (C >> 6));
      Out += static_cast<char>(0x80 | (C & 0x3F));
    } else if (C < 0x10000) {
      Out += static_cast<char>(0xE0 | (C >> 12));
      Out += static_cast<char>(0x80 | ((C >> 6) & 0x3F));
      Out += static_cast<char>(0x80 | (C & 0x3F));
    } else {
      Out += static_cast<char>(0xF0 | (C >> 18));
      Out += static_cast<char>(0x80 | ((C >> 12) & 0x3F));
      Out += static_cast<char>(0x80 | ((C >> 6) & 0x3F));
      Out += static_cast<char>(0x80 | (C & 0x3F));
    }
  }
  bool hex4(unsigned long &C) {
    if (P + 4 > T.size())
      return fail("truncated \\u escape");
    C = 0;
    for (int I = 0; I < 4; ++I) {
      char H = T[P++];
      C <<= 4;
      if (H >= '0' && H <= '9')
        C |= static_cast<unsigned long>(H - '0');
      else if (H >= 'a' && H <= 'f')
        C |= static_cast<unsigned long>(H - 'a' + 10);
      else if (H >= 'A' && H <= 'F')
        C |= static_cast<unsigned long>(H - 'A' + 10);
      else
        return fail("invalid \\u escape");
    }
    return true;
  }

  bool string(std::string &Out) {
    ++P;  // "
    while (P < T.size()) {
      char Ch = T[P++];
      if (Ch == '"')
        return true;
      if (static_cast<unsigned char>(Ch) < 0x20)
        return fail("control character in a string");
      if (Ch != '\\') {
        Out += Ch;
        continue;
      }
      if (P >= T.size())
        break;
      char E = T[P++];
      switch (E) {
      case '"': Out += '"'; break;
      case '\\': Out += '\\'; break;
      case '/': Out += '/'; break;
      case 'b': Out += '\b'; break;
      case 'f': Out += '\f'; break;
      case 'n': Out += '\n'; break;
      case 'r': Out += '\r'; break;
      case 't': Out += '\t'; break;
      case 'u': {
        unsigned long C = 0;
        if (!hex4(C))
          return false;
        if (C >= 0xD800 && C < 0xDC00) {  // a surrogate pair
          unsigned long Low = 0;
          if (T.compare(P, 2, "\\u") != 0 || (P += 2, !hex4(Low)) || Low < 0xDC00 || Low > 0xDFFF)
            return fail("unpaired surrogate");
          C = 0x10000 + ((C - 0xD800) << 10) + (Low - 0xDC00);
        }
        utf8(Out, C);
        break;
      }
      default:
        return fail("invalid escape");
      }
    }
    return fail("unterminated string");
  }

  bool number(JsonValue &V) {
    // The grammar is checked here; strtod only converts what it accepted.
    std::size_t Start = P;
    if (P < T.size() && T[P] == '-')
      ++P;
    auto digits = [&] {
      std::size_t From = P;
      while (P < T.size() && T[P] >= '0' && T[P] <= '9')
        ++P;
      return P > From;
    };
    if (P < T.size() && T[P] == '0')
      ++P;
    else if (!digits())
      return fail("invalid value");
    if (P < T.size() && T[P] == '.') {
      ++P;
      if (!digits())
        return fail("invalid number");
    }
    if (P < T.size() && (T[P] == 'e' || T[P] == 'E')) {
      ++P;
      if (P < T.size() && (T[P] == '+' || T[P] == '-'))
        ++P;
      if (!digits())
        return fail("invalid number");
    }
    V.K = JsonValue::Kind::Number;
    V.N = std::strtod(T.substr(Start, P - Start).c_str(), nullptr);
    return true;
  }
};

bool JsonValue::parse(const std::string &Text, JsonValue &Out, std::string &Error) {
  Out = JsonValue();
  return JsonParser(Text).document(Out, Error);
}

} // namespace syncwatch
