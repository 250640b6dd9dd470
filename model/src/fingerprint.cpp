#include "syncwatch/fingerprint.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <tuple>

namespace syncwatch {

std::string normalizedCode(const std::string &Line) {
  std::string Out;
  bool InString = false, Space = false;
  char Quote = 0;
  for (std::size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (InString) {
      Out += C;
      if (C == '\\' && I + 1 < Line.size())
        Out += Line[++I];
      else if (C == Quote)
        InString = false;
      continue;
    }
    if (C == '"' || C == '\'') {
      InString = true;
      Quote = C;
    } else if (C == '/' && I + 1 < Line.size() && (Line[I + 1] == '/' || Line[I + 1] == '*')) {
      break; // a trailing comment (NOLINT, notes to self) is not the code
    }
    if (C == ' ' || C == '\t' || C == '\r') {
      Space = !Out.empty();
      continue;
    }
    if (Space)
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

std::string fingerprintPath(const std::string &File, const std::string &Base) {
  if (Base.empty())
    return File;
  std::string Prefix = Base.back() == '/' ? Base : Base + "/";
  if (File.compare(0, Prefix.size(), Prefix) == 0)
    return File.substr(Prefix.size());
  return File;
}

static std::string fnv1a(const std::string &S) {
  std::uint64_t H = 1469598103934665603ull;
  for (unsigned char C : S) {
    H ^= C;
    H *= 1099511628211ull;
  }
  char Buf[17];
  std::snprintf(Buf, sizeof Buf, "%016llx", static_cast<unsigned long long>(H));
  return Buf;
}

std::vector<std::string> fingerprints(const std::vector<Finding> &Findings,
                                      const SourceLineReader &Lines, const std::string &Base) {
  std::vector<std::string> Out;
  std::map<std::tuple<std::string, std::string, std::string>, unsigned> Seen;
  for (const Finding &F : Findings) {
    std::string Path = fingerprintPath(F.Where.File, Base);
    std::string Code = normalizedCode(Lines(F.Where.File, F.Where.Line).value_or(F.Message));
    unsigned Occurrence = Seen[{F.Rule, Path, Code}]++;
    Out.push_back(fnv1a(F.Rule + '\n' + Path + '\n' + Code + '\n' + std::to_string(Occurrence)));
  }
  return Out;
}

void setFingerprints(Report &R) {
  std::vector<std::string> Prints = fingerprints(R.Findings, diskLineReader(), R.SourceRoot);
  for (std::size_t I = 0; I < Prints.size(); ++I)
    R.Findings[I].Fingerprint = Prints[I];
}

} // namespace syncwatch
