// The program's steps, from the ranges it marks (SYNCWATCH_STEP, docs/runtime.md): which
// pushed or started range is a step, which pop or end closes one, and how many are open now
// (SYNCWATCH_MEASURE=steps measures everything while one is). No CUPTI here: capture's NVTX
// handler (cupti/NvtxSteps.cpp) reads the ranges' names and feeds them in.
#pragma once

#include "../events/EventLog.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

class StepTracker {
public:
  // Pattern: a range's name, or a glob of names ("step *").
  explicit StepTracker(std::string Pattern) : Pattern(std::move(Pattern)) {}
  const std::string &pattern() const { return Pattern; }
  bool isStep(const char *Message) const;

  // nvtxRangePush*: a range opened on Thread in an NVTX domain (nullptr: the default one).
  // Message is null when the range has no ASCII name (a registered string): never a step.
  // True when it opened a step.
  bool push(std::uint64_t Thread, const void *Domain, const char *Message, std::uint64_t Now);
  // nvtxRangePop: the innermost range of Thread's domain closed; the step, when it was one.
  std::optional<StepSpan> pop(std::uint64_t Thread, const void *Domain, std::uint64_t Now);
  // nvtxRangeStart*/nvtxRangeEnd: a range by id, which may end on another thread.
  bool start(std::uint64_t Id, std::uint64_t Thread, const char *Message, std::uint64_t Now);
  std::optional<StepSpan> end(std::uint64_t Id, std::uint64_t Now);
  // Steps open now, on all threads.
  unsigned open() const;

  // A thread that pushes without popping is not followed deeper than this; started steps
  // never ended are forgotten past kMaxStarted.
  static constexpr std::size_t kMaxDepth = 256, kMaxStarted = 4096;

private:
  struct Range {
    bool Step = false;
    std::uint64_t Start = 0;
    std::string Name;
  };
  std::string Pattern;
  mutable std::mutex M;
  std::map<std::pair<std::uint64_t, const void *>, std::vector<Range>> Stacks;
  std::unordered_map<std::uint64_t, StepSpan> Started;
  unsigned Open = 0;
};

} // namespace syncwatch::runtime
