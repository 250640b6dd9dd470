#include "syncwatch/finding.h"

#include <tuple>

namespace syncwatch {

bool findingLess(const Finding &A, const Finding &B) {
  return std::tie(A.Where.File, A.Where.Line, A.Where.Column, A.Rule, A.Message) <
         std::tie(B.Where.File, B.Where.Line, B.Where.Column, B.Rule, B.Message);
}

} // namespace syncwatch
