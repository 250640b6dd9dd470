// What the passes write through their sink (WindowPass.h): one call site's record for one
// rule, accumulated over the run.
#pragma once

#include "../events/CaptureNote.h"

#include "syncwatch/catalogue.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace syncwatch::runtime {

// One call site's record for one rule: what syncwatch reports.
struct SiteAggregate {
  RuleId Rule;
  std::uint32_t Site = 0;
  std::string Api;
  std::uint64_t Count = 0, TotalNs = 0, MaxNs = 0;
  std::string Example;   // the cause of the longest occurrence
  // Copies that the same thread followed at once with a synchronization (PyTorch's
  // blocking .to("cpu"): a cudaMemcpyAsync then a cudaStreamSynchronize).
  std::uint64_t FollowedBySync = 0;
  std::string SyncApi;
  // Occurrences that waited for nothing but their own GPU work (a synchronous cudaMemcpy
  // of its own 16 MB): the cost of a synchronous API, not an implicit synchronization.
  std::uint64_t OwnWorkOnly = 0;
  // syncwatch-torch-current-stream (launches onto a default stream while PyTorch's current
  // stream was another): those whose kernel overlapped work queued on the current stream -
  // a race seen, not only possible - and the CUPTI ids of that stream and of the one the
  // kernels went to.
  std::uint64_t Unordered = 0;
  std::optional<std::uint32_t> CurrentStream, LaunchStream;
  // syncwatch-capture-breaking-call: the capture the first occurrence broke (its begin's
  // thread, site and mode), and the occurrences made on another thread than the capturing one.
  const CaptureNote *Capture = nullptr;
  std::uint64_t CaptureOtherThread = 0;
  // The cost by the thread that paid it (thread id): `syncwatch gate`'s allowlist scopes a
  // site by thread (a loader thread's pinned copies, not the training thread's).
  std::map<std::uint64_t, std::uint64_t> NsByThread;
};

} // namespace syncwatch::runtime
