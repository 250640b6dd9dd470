// The values WorkFlow's dataflow is made of, below the lattice (WorkState.h), the solver
// (FlowSolver.h) and the transfer (WorkTransfer.h): the queue a work item waits in, what a
// call of a helper does to its caller's work, and the lookup of a callee's summary. They
// live here, not in WorkFlow.h, so that the layers under WorkFlow include them without
// including the analysis that drives them (issue 39, item 7).
#pragma once

#include "FunctionWork.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncwatch {

// The queue GPU work waits in, as far as the source names it.
struct Queue {
  enum Kind : std::uint8_t { Legacy, PerThread, Named, Unknown };
  Kind K = Unknown;
  const clang::Decl *Stream = nullptr;  // Named: the variable, parameter, member or array
  std::string Index;                    // an array element's index as written ("k", "0")
  bool operator==(const Queue &O) const {
    return K == O.K && Stream == O.Stream && Index == O.Index;
  }
};

// What a call of a helper does to its caller's work.
struct FunctionSummary {
  const WorkCall *LeavesWork = nullptr;   // some work it issues may run past its return
  Queue LeftOn;                           // on which queue (Unknown when mixed)
  int LeftOnParam = -1;                   // or on the stream its parameter N names
  bool DrainsAll = false;                 // every path waits for all earlier work
  std::vector<unsigned> DrainsParams;     // every path waits for these stream parameters
  std::vector<Queue> DrainsNamed;         // member or global streams it synchronizes
  const WorkCall *Waits = nullptr;        // a host wait inside it (for sync-in-loop)
};

// The summaries of the unit's helpers, as far as they are known: what the transfer of one
// call asks of the analysis that runs the functions callees first (WorkFlow), and all it asks.
class SummaryLookup {
public:
  // nullptr when it has none: not analyzed yet (a recursive call) or not at all (no GPU
  // work, no body, or its analysis ran into the solver's limit).
  virtual const FunctionSummary *summary(const clang::Decl *Function) const = 0;

protected:
  ~SummaryLookup() = default;
};

} // namespace syncwatch
