#include "PathMaps.h"

#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstring>

namespace syncwatch::runtime {

std::string mapPath(const std::string &Path, const PathMaps &Maps) {
  for (const auto &[From, To] : Maps)
    if (Path.rfind(From, 0) == 0)
      return To + Path.substr(From.size());
  return Path;
}

std::string mapPathsInText(const std::string &Text, const PathMaps &Maps) {
  auto PathChar = [](char C) { return std::isalnum(static_cast<unsigned char>(C)) || std::strchr("/._-~", C); };
  std::string Out;
  for (std::size_t I = 0; I < Text.size();) {
    bool Mapped = false;
    if (I == 0 || !PathChar(Text[I - 1]))
      for (const auto &[From, To] : Maps)
        if (Text.compare(I, From.size(), From) == 0) {
          Out += To;
          I += From.size();
          Mapped = true;
          break;
        }
    if (!Mapped)
      Out += Text[I++];
  }
  return Out;
}

void applyPathMaps(Report &R, const PathMaps &Maps, bool Absolute) {
  if (Maps.empty())
    return;
  char Cwd[PATH_MAX];
  std::string Here = Absolute && getcwd(Cwd, sizeof Cwd) ? std::string(Cwd) + "/" : "";
  auto File = [&](const std::string &P) {
    std::string M = mapPath(P, Maps);
    return !M.empty() && M != P && M[0] != '/' ? Here + M : M;
  };
  for (Finding &F : R.Findings) {
    F.Where.File = File(F.Where.File);
    F.Message = mapPathsInText(F.Message, Maps);
    for (FindingNote &N : F.Notes) {
      N.Where.File = File(N.Where.File);
      N.Message = mapPathsInText(N.Message, Maps);
    }
    for (auto &KV : F.Evidence)
      KV.second = mapPathsInText(KV.second, Maps);
  }
  for (CoveredCall &C : R.Coverage) {
    C.Where.File = File(C.Where.File);
    C.NativeFile = File(C.NativeFile);
  }
}

} // namespace syncwatch::runtime
