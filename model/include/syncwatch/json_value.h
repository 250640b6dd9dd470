// A small strict JSON reader (RFC 8259) for the one JSON input both halves read: a
// calibration profile (syncwatch/profile.h). It lives here, beside the JSON writer, because
// the runtime half links neither LLVM (whose llvm::json the analyzer uses elsewhere) nor any
// other library beyond CUPTI: it is built on GPU machines that have no package manager.
#pragma once

#include <limits>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace syncwatch {

class JsonValue {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind() const { return K; }
  bool isObject() const { return K == Kind::Object; }
  // Accessors answer a default when the value is of another kind: a profile with a missing
  // or mistyped field reads as "not measured", never as a crash.
  bool boolean(bool Default = false) const { return K == Kind::Bool ? B : Default; }
  double number(double Default = 0) const { return K == Kind::Number ? N : Default; }
  // A number as an integer type, or Default when it is none or outside T's range (a cast of
  // -3 or 1e300 to unsigned is undefined behaviour: fuzz_json_report found it).
  template <typename T> T whole(T Default = 0) const {
    if (K != Kind::Number || !(N >= static_cast<double>(std::numeric_limits<T>::lowest())) ||
        !(N < static_cast<double>(std::numeric_limits<T>::max())))
      return Default;
    return static_cast<T>(N);
  }
  const std::string &string() const;
  const std::vector<JsonValue> &array() const;
  // A member of an object (a Null value when absent).
  const JsonValue &operator[](const std::string &Key) const;
  // An object's members, sorted by key (empty for other kinds).
  const std::map<std::string, JsonValue> &members() const;

  // Parses a whole document; on failure returns false and says where and why in Error.
  static bool parse(const std::string &Text, JsonValue &Out, std::string &Error);

private:
  friend class JsonParser;
  Kind K = Kind::Null;
  bool B = false;
  double N = 0;
  std::string S;
  std::vector<JsonValue> A;
  std::map<std::string, JsonValue> O;
};

} // namespace syncwatch
