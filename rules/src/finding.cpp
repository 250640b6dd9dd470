#include "syncwatch/finding.h"

#include <tuple>

namespace syncwatch {

bool findingLess(const Finding &A, const Finding &B) {
  return std::tie(A.Where.File, A.Where.Line, A.Where.Column, A.Rule, A.Message) <
         std::tie(B.Where.File, B.Where.Line, B.Where.Column, B.Rule, B.Message);
}

const std::string *evidenceOf(const Finding &F, const std::string &Key) {
  for (const auto &[K, V] : F.Evidence)
    if (K == Key)
      return &V;
  return nullptr;
}

} // namespace syncwatch
