// One command-line convention for the `syncwatch` command and its subcommands, the same as
// syncwatch-lint's (LLVM's): `--opt=value` and `--opt value` both work, `--help` prints the
// usage on stdout and exits 0, an unknown option is one line naming it and exit 2. No LLVM
// here: the runtime half builds on GPU machines that have none.
#pragma once

#include "../join/PathMaps.h"

#include <map>
#include <string>
#include <vector>

namespace syncwatch::runtime {

struct OptionSpec {
  const char *Name;  // without the dashes: "out"
  bool TakesValue;
};

struct ParsedArgs {
  std::map<std::string, std::string> Values;  // options given (flags map to ""), the last value
  std::map<std::string, std::vector<std::string>> AllValues;  // every value, in order (repeatable options)
  std::vector<std::string> Positional;        // the rest, in order
  std::vector<std::string> AfterDoubleDash;   // what follows "--" (the command to run)
  bool Help = false;
  std::string Error;  // one line, without the program name: "unknown option '--x'"

  bool has(const std::string &Name) const { return Values.count(Name) != 0; }
  std::string get(const std::string &Name, const std::string &Default = "") const {
    auto It = Values.find(Name);
    return It == Values.end() ? Default : It->second;
  }
  std::vector<std::string> all(const std::string &Name) const {
    auto It = AllValues.find(Name);
    return It == AllValues.end() ? std::vector<std::string>{} : It->second;
  }
};

ParsedArgs parseArgs(const std::vector<std::string> &Args, const std::vector<OptionSpec> &Specs);

// Every --path-map of P (join/PathMaps.h); false with Error for one that is not OLD=NEW.
bool pathMapOption(const ParsedArgs &P, PathMaps &Out, std::string &Error);

} // namespace syncwatch::runtime
