#include "syncwatch/path_suffix.h"

#include <sstream>

namespace syncwatch {

std::vector<std::string> pathComponents(const std::string &Path) {
  std::vector<std::string> Out;
  std::stringstream S(Path);
  for (std::string C; std::getline(S, C, '/');)
    if (!C.empty() && C != ".")
      Out.push_back(C);
  return Out;
}

std::size_t commonSuffix(const std::vector<std::string> &A, const std::vector<std::string> &B) {
  std::size_t N = 0;
  while (N < A.size() && N < B.size() && A[A.size() - 1 - N] == B[B.size() - 1 - N])
    ++N;
  return N;
}

} // namespace syncwatch
