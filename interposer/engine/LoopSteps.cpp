// LoopSteps.h: the repeated step of a program without step marks.
#include "LoopSteps.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace syncwatch::runtime {

void LoopSteps::add(const ApiCall &C) {
  if (!C.Site)
    return;
  if (Calls.size() >= kMaxCalls) {
    Partial = true;
    return;
  }
  Calls.push_back({C.Thread, C.Enter, C.Site, C.Api});
}

std::optional<LoopSteps::Loop>
LoopSteps::find(const std::function<std::string(std::uint32_t Site, std::string_view Api)> &Name,
                std::uint64_t Preferred) const {
  if (Preferred)
    if (std::optional<Loop> L = findOn(Preferred, Name))
      return L;
  std::unordered_map<std::uint64_t, std::size_t> PerThread;
  for (const Call &C : Calls)
    ++PerThread[C.Thread];
  if (PerThread.empty())
    return std::nullopt;
  std::uint64_t Busiest = std::max_element(PerThread.begin(), PerThread.end(), [](const auto &A, const auto &B) {
                            return A.second != B.second ? A.second < B.second : A.first > B.first;
                          })->first;
  return Busiest == Preferred ? std::nullopt : findOn(Busiest, Name);
}

std::optional<LoopSteps::Loop>
LoopSteps::findOn(std::uint64_t Thread,
                  const std::function<std::string(std::uint32_t Site, std::string_view Api)> &Name) const {
  // The thread's calls, in the order they were made.
  std::vector<const Call *> Mine;
  for (const Call &C : Calls)
    if (C.Thread == Thread)
      Mine.push_back(&C);
  std::stable_sort(Mine.begin(), Mine.end(), [](const Call *A, const Call *B) { return A->Enter < B->Enter; });
  // Each (site, API): where it occurs in that sequence.
  std::map<std::pair<std::uint32_t, const char *>, std::vector<std::size_t>> At;
  for (std::size_t I = 0; I < Mine.size(); ++I)
    At[{Mine[I]->Site, Mine[I]->Api.data()}].push_back(I);
  struct Best {
    std::size_t Covered = 0, Gap = 0, First = SIZE_MAX;
    const std::vector<std::size_t> *Positions = nullptr;
  } B;
  for (const auto &[Key, Positions] : At) {
    if (Positions.size() < 4)  // 3 steps at least, each from one occurrence to the next
      continue;
    std::vector<std::size_t> Gaps;
    for (std::size_t I = 1; I < Positions.size(); ++I)
      Gaps.push_back(Positions[I] - Positions[I - 1]);
    std::vector<std::size_t> Sorted = Gaps;
    std::nth_element(Sorted.begin(), Sorted.begin() + Sorted.size() / 2, Sorted.end());
    std::size_t Median = Sorted[Sorted.size() / 2];
    if (Median < 2)  // a call repeated back to back is no step
      continue;
    std::size_t Covered = 0;
    for (std::size_t G : Gaps)
      Covered += G * 10 >= Median * 9 && G * 10 <= Median * 11 ? G : 0;
    bool Better = Covered != B.Covered ? Covered > B.Covered
                  : Median != B.Gap    ? Median > B.Gap
                                       : Positions.front() < B.First;
    if (Better)
      B = {Covered, Median, Positions.front(), &Positions};
  }
  if (!B.Positions)
    return std::nullopt;
  Loop L;
  const Call &First = *Mine[B.First];
  L.Site = First.Site;
  L.Api = First.Api;
  L.Thread = Thread;
  L.CallsPerStep = B.Gap;
  std::string StepName = Name(L.Site, L.Api);
  const std::vector<std::size_t> &P = *B.Positions;
  for (std::size_t I = 1; I < P.size(); ++I) {
    std::size_t Gap = P[I] - P[I - 1];
    // An iteration may make a call or two more (a .item() every 10th): a step still. Half
    // the gap or less, or half again and more, is not one iteration (before the loop, after
    // it, or an iteration that skipped the call).
    if (Gap * 2 <= B.Gap || Gap * 2 >= B.Gap * 3)
      continue;
    std::uint64_t Next = Mine[P[I]]->Enter;
    L.Steps.push_back({Thread, Mine[P[I - 1]]->Enter, Next > 0 ? Next - 1 : 0, StepName});
  }
  if (L.Steps.size() < 3)
    return std::nullopt;
  return L;
}

} // namespace syncwatch::runtime
