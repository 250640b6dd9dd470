#include "StepTracker.h"

#include <fnmatch.h>

namespace syncwatch::runtime {

bool StepTracker::isStep(const char *Message) const {
  return Message && !Pattern.empty() && ::fnmatch(Pattern.c_str(), Message, 0) == 0;
}

bool StepTracker::push(std::uint64_t Thread, const void *Domain, const char *Message, std::uint64_t Now) {
  bool Step = isStep(Message);
  std::lock_guard<std::mutex> L(M);
  std::vector<Range> &S = Stacks[{Thread, Domain}];
  if (S.size() >= kMaxDepth)
    return false;  // (its pop is then matched one level too deep: not a step either)
  S.push_back({Step, Now, Step ? std::string(Message) : std::string()});
  Open += Step;
  return Step;
}

std::optional<StepSpan> StepTracker::pop(std::uint64_t Thread, const void *Domain, std::uint64_t Now) {
  std::lock_guard<std::mutex> L(M);
  auto It = Stacks.find({Thread, Domain});
  if (It == Stacks.end() || It->second.empty())
    return std::nullopt;  // a pop without its push (pushed before syncwatch saw NVTX)
  Range R = std::move(It->second.back());
  It->second.pop_back();
  if (It->second.empty())
    Stacks.erase(It);
  if (!R.Step)
    return std::nullopt;
  --Open;
  return StepSpan{Thread, R.Start, Now >= R.Start ? Now : R.Start, std::move(R.Name)};
}

bool StepTracker::start(std::uint64_t Id, std::uint64_t Thread, const char *Message, std::uint64_t Now) {
  if (!isStep(Message))
    return false;
  std::lock_guard<std::mutex> L(M);
  if (Started.size() >= kMaxStarted)
    return false;
  auto [It, New] = Started.try_emplace(Id, StepSpan{Thread, Now, Now, Message});
  Open += New;
  return New;
}

std::optional<StepSpan> StepTracker::end(std::uint64_t Id, std::uint64_t Now) {
  std::lock_guard<std::mutex> L(M);
  auto It = Started.find(Id);
  if (It == Started.end())
    return std::nullopt;
  StepSpan S = std::move(It->second);
  Started.erase(It);
  --Open;
  S.End = Now >= S.Start ? Now : S.Start;
  return S;
}

unsigned StepTracker::open() const {
  std::lock_guard<std::mutex> L(M);
  return Open;
}

} // namespace syncwatch::runtime
