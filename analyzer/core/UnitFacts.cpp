#include "UnitFacts.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {

UnitFacts::UnitFacts() = default;
UnitFacts::~UnitFacts() = default;

void UnitFacts::registerMatchers(MatchFinder &Finder, MatchFinder::MatchCallback *Callback) {
  // StreamUsage's matchers are the facts' matchers: a launch or a catalogued call is also
  // what tells FunctionWork that the unit is worth walking.
  Streams.registerMatchers(Finder, Callback);
  // PyTorch's tensor syncs and cuBLAS/cuDNN calls: an extension's C++ file may have no
  // CUDA call of its own and still wait for the GPU.
  Finder.addMatcher(tensorSyncMatcher(), Callback);
  Finder.addMatcher(libraryHandleCallMatcher(), Callback);
}

void UnitFacts::registerUnitMatcher(MatchFinder &Finder, MatchFinder::MatchCallback *Callback) {
  Finder.addMatcher(translationUnitDecl(), Callback);
}

void UnitFacts::observe(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  Work.observe(Result);
  Streams.observe(Result);  // keeps one use per written location
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("api-call"); Call && SeenApiCalls.insert(Call).second)
    ApiCalls.push_back(Call);
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("handle-call"))
    Handles.observe(*Call);
}

bool UnitFacts::usesAten() const {
  if (!Aten)
    Aten = Ctx && syncwatch::usesAten(*Ctx);
  return *Aten;
}

void UnitFacts::reset() {
  Ctx = nullptr;
  ApiCalls.clear();
  SeenApiCalls.clear();
  Streams.reset();
  StreamsFinished = false;
  Work.reset();
  Flow.reset();
  Memory.reset();
  Aten.reset();
  Handles.reset();
}

const StreamUsage &UnitFacts::streams() const {
  if (!StreamsFinished) {
    Streams.finish();
    StreamsFinished = true;
  }
  return Streams;
}

const std::vector<FunctionCalls> &UnitFacts::functions() const { return Work.functions(); }

const WorkFlow &UnitFacts::flow() const {
  if (!Flow) {
    // Copies into pageable host memory return only when done: they drain their stream.
    std::set<const CallExpr *> DoneAtReturn;
    for (const FunctionCalls &F : Work.functions())
      for (const WorkCall &W : F.Calls) {
        if (!W.Api || W.Api->Rule != RuleId::PageableAsyncCopy)
          continue;
        for (const HostBuffer &B : hostBuffers(*W.Call, *W.Api, *Ctx))
          if (B.Side == HostSide::FromDevice && hostMemory().of(B.Arg).Kind == HostMemory::Pageable)
            DoneAtReturn.insert(W.Call);
      }
    Flow = std::make_unique<WorkFlow>(Work.functions(), *Ctx, FlowLimit, External, std::move(DoneAtReturn));
  }
  return *Flow;
}

const CaptureRegions &UnitFacts::captures() const {
  return flow().captures();
}

HostMemoryProvenance &UnitFacts::hostMemory() const {
  if (!Memory)
    Memory = std::make_unique<HostMemoryProvenance>(*Ctx);
  return *Memory;
}

} // namespace syncwatch
