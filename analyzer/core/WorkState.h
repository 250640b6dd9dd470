// The lattice of WorkFlow: which work items may be in flight at a program point, which must,
// and what events and stream dependencies cover. A work item is an Origin: a launch, an
// async call or a helper call that leaves work running, with the queue it waits in, or one
// of the function's entry items (the work its callers may have left).
//
// Joins take the union for "may" and the intersection for "must", of event covers and of
// stream dependencies; every transfer only adds what a call issues and removes what it waits
// for, so the lattice is finite and the solver (FlowSolver.h) reaches its fixpoint.
#pragma once

#include "FlowTypes.h"

#include "llvm/ADT/BitVector.h"

#include <map>
#include <string>
#include <utility>

namespace syncwatch {

// An event as the source names it: its declaration and, for an element, the index as
// written (ev[b] and ev[(b + 1) % 2] are different events).
using EventKey = std::pair<const clang::Decl *, std::string>;

// One work item.
struct Origin {
  const WorkCall *Work = nullptr;  // nullptr for the callers' work (entry items)
  Queue Q;
  int Param = -1;                  // entry item of this stream parameter
  bool Entry = false;
  bool callersOther() const { return Entry && Param < 0; }
};

struct WorkState {
  bool Reached = false;             // bottom: no path reaches here (yet)
  llvm::BitVector May, Must;        // by Origin index
  std::map<EventKey, llvm::BitVector> Cover;  // must: what an event covers, recorded on every path
  // cudaStreamWaitEvent(s, e): the work e covers finishes before s's later work, so draining
  // s drains it too (must, like Cover). Key nullptr: the per-thread default stream, whose
  // launches wait for the legacy stream's earlier work (WorkTransfer::generate).
  std::map<const clang::Decl *, llvm::BitVector> Deps;

  // Joins O into this state; true when this state changed.
  bool join(const WorkState &O) {
    if (!O.Reached)
      return false;
    if (!Reached) {
      *this = O;
      return true;
    }
    WorkState Old = *this;
    May |= O.May;
    Must &= O.Must;
    intersect(Cover, O.Cover);
    intersect(Deps, O.Deps);
    return May != Old.May || Must != Old.Must || Cover != Old.Cover || Deps != Old.Deps;
  }

private:
  // A must-map's join: keys on both sides, bits on both sides.
  template <typename Key> static void intersect(std::map<Key, llvm::BitVector> &Mine,
                                                const std::map<Key, llvm::BitVector> &Theirs) {
    for (auto It = Mine.begin(); It != Mine.end();) {
      auto Other = Theirs.find(It->first);
      if (Other == Theirs.end()) {
        It = Mine.erase(It);
        continue;
      }
      It->second &= Other->second;
      ++It;
    }
  }
};

} // namespace syncwatch
