#include "CommandLine.h"

namespace syncwatch::runtime {

ParsedArgs parseArgs(const std::vector<std::string> &Args, const std::vector<OptionSpec> &Specs) {
  ParsedArgs P;
  for (std::size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "--") {
      P.AfterDoubleDash.assign(Args.begin() + static_cast<std::ptrdiff_t>(I) + 1, Args.end());
      break;
    }
    if (A == "--help" || A == "-h") {
      P.Help = true;
      continue;
    }
    if (A.size() < 2 || A[0] != '-' || A == "-") {
      P.Positional.push_back(A);
      continue;
    }
    std::string Body = A.substr(A[1] == '-' ? 2 : 1);
    std::string Name = Body.substr(0, Body.find('='));
    bool Inline = Body.find('=') != std::string::npos;
    const OptionSpec *Spec = nullptr;
    for (const OptionSpec &S : Specs)
      if (Name == S.Name)
        Spec = &S;
    if (!Spec) {
      P.Error = "unknown option '" + A + "'";
      return P;
    }
    if (!Spec->TakesValue) {
      if (Inline) {
        P.Error = "option '--" + Name + "' takes no value";
        return P;
      }
      P.Values[Name] = "";
      continue;
    }
    if (Inline)
      P.Values[Name] = Body.substr(Name.size() + 1);
    else if (I + 1 < Args.size())
      P.Values[Name] = Args[++I];
    else {
      P.Error = "option '--" + Name + "' needs a value";
      return P;
    }
    P.AllValues[Name].push_back(P.Values[Name]);
  }
  return P;
}

bool pathMapOption(const ParsedArgs &P, PathMaps &Out, std::string &Error) {
  for (const std::string &V : P.all("path-map")) {
    auto Eq = V.find('=');
    if (Eq == std::string::npos || Eq == 0) {
      Error = "--path-map '" + V + "' is not OLD=NEW";
      return false;
    }
    Out.push_back({V.substr(0, Eq), V.substr(Eq + 1)});
  }
  return true;
}

} // namespace syncwatch::runtime
