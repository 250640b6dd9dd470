// A runtime finding's "threads" evidence: who paid the site's cost, costliest first, in ms.
//   "main=120.500000; pt_autograd_0 (tid 812)=3.250000; tid 9031=0.100000"
// "main" is the process's main thread, a name is the thread's (/proc comm) with its id, "tid
// N" a thread that had ended before the report was written. The engine writes it, merge sums
// it by label over ranks, and `syncwatch gate`'s allowlist scopes a site by thread with it.
#pragma once

#include "syncwatch/evidence_number.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch {

using ThreadCosts = std::vector<std::pair<std::string, double>>;  // label, ms

inline ThreadCosts parseThreadCosts(const std::string &S) {
  ThreadCosts Out;
  std::size_t Start = 0;
  while (Start < S.size()) {
    std::size_t End = S.find("; ", Start);
    std::string Part = S.substr(Start, End == std::string::npos ? std::string::npos : End - Start);
    std::size_t Eq = Part.rfind('=');
    if (Eq != std::string::npos && Eq > 0)
      Out.emplace_back(Part.substr(0, Eq), std::atof(Part.c_str() + Eq + 1));
    if (End == std::string::npos)
      break;
    Start = End + 2;
  }
  return Out;
}

// Why S's costs are not times in ms (evidence_number.h), or "": what the readers check
// before merge sums them and the gate compares them with an allowlist's maxMs.
inline std::string threadCostsError(std::string_view Field, const std::string &S) {
  std::size_t Start = 0;
  while (Start < S.size()) {
    std::size_t End = S.find("; ", Start);
    std::string Part = S.substr(Start, End == std::string::npos ? std::string::npos : End - Start);
    std::size_t Eq = Part.rfind('=');
    double Ms;
    if (Eq != std::string::npos && Eq > 0)
      if (std::string Why = readMsText(std::string(Field) + "[" + Part.substr(0, Eq) + "]", Part.substr(Eq + 1), Ms);
          !Why.empty())
        return Why;
    if (End == std::string::npos)
      break;
    Start = End + 2;
  }
  return "";
}

inline std::string formatThreadCosts(ThreadCosts C) {
  std::stable_sort(C.begin(), C.end(), [](const auto &A, const auto &B) { return A.second > B.second; });
  std::string Out;
  for (const auto &[Label, Ms] : C)
    Out += (Out.empty() ? "" : "; ") + Label + "=" + std::to_string(Ms);
  return Out;
}

// The name a label matches in an allowlist: "main", or the thread's name without its id.
inline std::string threadName(const std::string &Label) {
  std::size_t Paren = Label.rfind(" (tid ");
  return Paren == std::string::npos ? Label : Label.substr(0, Paren);
}

} // namespace syncwatch
