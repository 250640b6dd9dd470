#include "Engine.h"

#include "syncwatch/catalogue.h"
#include "syncwatch/thread_costs.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <unordered_map>

namespace syncwatch::runtime {

SiteAggregate &Engine::record(RuleId Rule, const ApiCall &Call, std::uint64_t Cost, const std::string &Cause,
                              const GpuWork *Waited, bool OwnWorkOnly) {
  if (Observer)
    Observer({Rule, &Call, Waited, Cost, &Cause});
  SiteAggregate &A = Aggregates[{Rule, Call.Site}];
  A.Rule = Rule;
  A.Site = Call.Site;
  A.Api = std::string(Call.Api);
  ++A.Count;
  A.OwnWorkOnly += OwnWorkOnly;
  A.TotalNs += Cost;
  A.NsByThread[Call.Thread] += Cost;
  if (Cost >= A.MaxNs) {
    A.MaxNs = Cost;
    A.Example = Cause;
  }
  return A;
}

// A call that blocked its thread: its host time is the cost, and it is what a step the
// thread marked lost (serialization and priority inversion cost GPU time, not the host's).
SiteAggregate &Engine::recordHostWait(RuleId Rule, const ApiCall &Call, const std::string &Cause,
                                      const GpuWork *Waited, bool OwnWorkOnly) {
  StepCost.addWait(Call.Thread, Call.Enter, Call.duration());
  return record(Rule, Call, Call.duration(), Cause, Waited, OwnWorkOnly);
}

// Why a call of this API waits, in the catalogue's words (cuda_api.def's Drains and Issues).
static std::string causeOf(const ApiInfo &Api) {
  if (isExplicitSync(Api) || Api.Drains == Drain::StreamWhenPolled || Api.Drains == Drain::EventWhenPolled)
    return "explicit synchronization";
  if (Api.Drains == Drain::Device)
    return "device-wide implicit synchronization";
  if (Api.hasGpuRecord() && Api.Family != ApiFamily::Launch)
    return Api.takesStream() ? "copy that waited on the host" : "synchronous copy on the legacy default stream";
  return std::string(documentedSyncText(Api.Documented));
}

struct Engine::WindowIndex {
  std::size_t InScope;        // W.Calls[0, InScope) are judged in this window
  std::unordered_map<std::uint32_t, const ApiCall *> ByCorrelation;  // in-scope calls only
  std::vector<const GpuWork *> ByEnd, ByStart;
  std::vector<const ApiCall *> NextOnThread;  // per call: the same thread's next call
  std::unordered_map<std::uint32_t, const GpuWork *> FirstOwn;  // a call's own work that started first
  WindowIndex(const EventLog &W, std::size_t Scope) : InScope(std::min(Scope, W.Calls.size())) {
    for (std::size_t I = 0; I < InScope; ++I)
      ByCorrelation[W.Calls[I].Correlation] = &W.Calls[I];
    for (const GpuWork &G : W.Work) {
      ByEnd.push_back(&G);
      auto [It, New] = FirstOwn.try_emplace(G.Correlation, &G);
      if (!New && G.Start < It->second->Start)
        It->second = &G;
    }
    ByStart = ByEnd;
    std::sort(ByEnd.begin(), ByEnd.end(), [](const GpuWork *A, const GpuWork *B) { return A->End < B->End; });
    std::sort(ByStart.begin(), ByStart.end(), [](const GpuWork *A, const GpuWork *B) { return A->Start < B->Start; });
    // Calls arrive in the order they returned, and one thread's calls do not overlap.
    NextOnThread.assign(W.Calls.size(), nullptr);
    std::unordered_map<std::uint64_t, std::size_t> Last;
    for (std::size_t I = 0; I < W.Calls.size(); ++I) {
      auto [It, New] = Last.try_emplace(W.Calls[I].Thread, I);
      if (!New) {
        NextOnThread[It->second] = &W.Calls[I];
        It->second = I;
      }
    }
  }
  const ApiCall *next(const EventLog &W, const ApiCall &C) const { return NextOnThread[&C - W.Calls.data()]; }

  // Whether C waited for nothing but its own GPU work: its work started as soon as it
  // was issued, or no other work ended between its entry and its work's start. False
  // when C issued no recorded work.
  bool ownWorkOnly(const ApiCall &C, std::uint64_t SlackNs) const {
    auto Own = FirstOwn.find(C.Correlation);
    if (Own == FirstOwn.end())
      return false;
    std::uint64_t Start = Own->second->Start;
    if (Start <= C.Enter + SlackNs)
      return true;
    auto It = std::lower_bound(ByEnd.begin(), ByEnd.end(), C.Enter,
                               [](const GpuWork *G, std::uint64_t T) { return G->End < T; });
    for (; It != ByEnd.end() && (*It)->End <= Start + SlackNs; ++It)
      if ((*It)->Correlation != C.Correlation)
        return false;
    return true;
  }
};

// The analyzer's answer too (cuda_api.def's Drains column): measured to wait for the whole
// device. A call only documented as device-wide (cudaMalloc) returned at once on the H200.
static bool isDeviceWide(const ApiInfo &Api) { return Api.Drains == Drain::Device; }

// Is any GPU work running at time T (started before it and ended after it, with slack)?
static bool runningAcross(const std::vector<const GpuWork *> &ByStart, std::uint64_t T, std::uint64_t Slack) {
  for (const GpuWork *G : ByStart) {
    if (G->Start + Slack >= T)
      break;
    if (G->End > T + Slack)
      return true;
  }
  return false;
}

void Engine::hostWaits(const EventLog &W, const WindowIndex &I) {
  // Work sorted by end time: what ended inside a call's window is a binary search away.
  const std::vector<const GpuWork *> &ByEnd = I.ByEnd;
  for (std::size_t N = 0; N < I.InScope; ++N) {
    const ApiCall &C = W.Calls[N];
    // A call that created the CUDA context spent its time starting CUDA up; no GPU work
    // can have been in flight (cublasCreate's cudaFree(0), a first cudaMalloc).
    if (C.duration() < Config.HostWaitThresholdNs || C.CreatedContext)
      continue;
    const ApiInfo *Api = findApi(C.Api);
    // Async copies are judged by their memcpy record (pageableCopies), not here. Calls the
    // truth table measured not to wait (cudaMalloc, cudaHostAlloc, cudaMemset...) are not
    // blamed for GPU work that happened to end while they ran: timing alone cannot tell a
    // wait from a coincidence on a busy GPU (seen: cudaHostAlloc in the seed's scenario).
    // A launch is the exception: one that blocked the host for milliseconds waited for
    // something (a kernel's first launch loads its module, which waits for the running
    // kernels under CUDA_MODULE_LOADING=LAZY). Onto a high-priority stream that is the
    // priority-inversion finding, with the time the urgent work lost.
    bool Launch = Api && Api->Family == ApiFamily::Launch;
    if (!Api || (Api->Family == ApiFamily::Copy && Api->takesStream()) ||
        (!mayWait(*Api) && !Launch))
      continue;
    if (Launch && launchedOntoHighPriority(C, I))
      continue;
    auto It = std::upper_bound(ByEnd.begin(), ByEnd.end(), C.Exit + Config.SlackNs,
                               [](std::uint64_t T, const GpuWork *G) { return T < G->End; });
    // (a launch waits for others' work only: its own kernel may have run before it returned)
    while (Launch && It != ByEnd.begin() && (*std::prev(It))->Correlation == C.Correlation)
      --It;
    const GpuWork *Last = It == ByEnd.begin() ? nullptr : *std::prev(It);
    // What the call waited for ended just before it returned; anything earlier finished
    // while the call was busy with its own work (cudaMallocAsync creating its pool).
    if (!Last || Last->End < C.Enter || Last->End + Config.WaitSlackNs < C.Exit) {
      // Before kernel tracing began, a wait has no kernel record to show. A call that
      // waits by design or is a device-wide implicit sync is still reported, saying so.
      if (C.Enter < KernelsTracedFrom && (isExplicitSync(*Api) || isDeviceWide(*Api)))
        recordHostWait(Api->Rule, C,
               "'" + std::string(C.Api) + "' blocked the host " + formatDuration(C.duration()) + " (" + causeOf(*Api) +
                   "; the kernels it waited for were not traced yet - SYNCWATCH_KERNELS=1 traces them from the start)");
      continue;
    }
    // A device-wide wait returns to an idle device: work still running across the return
    // means this call did not wait for the device (cudaHostAlloc while kernels ran on).
    if (isDeviceWide(*Api) && runningAcross(I.ByStart, C.Exit, Config.SlackNs))
      continue;
    std::string Cause = "'" + std::string(C.Api) + "' blocked the host " + formatDuration(C.duration()) +
                        " waiting for " + Last->describe() + " on " + streamLabel(Last->Stream, Streams) + " (" +
                        (Launch ? std::string("a kernel's first launch loads its module and waits for the running "
                                              "kernels under CUDA_MODULE_LOADING=LAZY, the default: warm the kernel up "
                                              "outside the hot path, or set CUDA_MODULE_LOADING=EAGER")
                                : causeOf(*Api)) +
                        ")";
    bool Own = Last->Correlation == C.Correlation && I.ownWorkOnly(C, Config.SlackNs);
    if (Own)
      Cause += "; it waited for its own " + Last->describe() + " only";
    recordHostWait(Launch ? RuleId::ImplicitSync : Api->Rule, C, Cause, Last, Own);
  }
}

// Whether a launch's kernel went to a stream of higher than default priority.
bool Engine::launchedOntoHighPriority(const ApiCall &C, const WindowIndex &I) const {
  auto Own = I.FirstOwn.find(C.Correlation);
  if (Own == I.FirstOwn.end())
    return false;
  auto It = Streams.find(Own->second->Stream);
  return It != Streams.end() && It->second.Priority < 0;
}

void Engine::pageableCopies(const EventLog &W, const WindowIndex &I) {
  const auto &ByCorrelation = I.ByCorrelation;
  for (const GpuWork &G : W.Work) {
    if (G.Kind != GpuKind::Memcpy || !G.Async ||
        (G.Src != MemoryKind::Pageable && G.Dst != MemoryKind::Pageable))
      continue;
    auto It = ByCorrelation.find(G.Correlation);
    if (It == ByCorrelation.end())
      continue;
    const ApiCall &C = *It->second;
    std::string Cause = "'" + std::string(C.Api) + "' took " + formatDuration(C.duration()) + " of host time for a " +
                        G.describe() + " with " +
                        (G.Src == MemoryKind::Pageable ? "a pageable source" : "a pageable destination") +
                        " on " + streamLabel(G.Stream, Streams);
    SiteAggregate &A = recordHostWait(RuleId::PageableAsyncCopy, C, Cause, &G, I.ownWorkOnly(C, Config.SlackNs));
    const ApiCall *Next = I.next(W, C);
    const ApiInfo *NextApi = Next ? findApi(Next->Api) : nullptr;
    if (NextApi && isExplicitSync(*NextApi) && Next->Enter < C.Exit + Config.WaitSlackNs) {
      ++A.FollowedBySync;
      A.SyncApi = std::string(Next->Api);
    }
  }
}

void Engine::serialization(const EventLog &W, const WindowIndex &I) {
  const auto &ByCorrelation = I.ByCorrelation;
  const std::vector<const GpuWork *> &ByEnd = I.ByEnd;
  auto FlagOf = [&](std::uint32_t S) {
    auto It = Streams.find(S);
    return It == Streams.end() ? StreamFlag::Unknown : It->second.Flag;
  };
  for (const GpuWork &A : W.Work) {
    StreamFlag Flag = FlagOf(A.Stream);
    if (Flag != StreamFlag::Legacy && Flag != StreamFlag::Blocking)
      continue;
    auto Issue = ByCorrelation.find(A.Correlation);
    if (Issue == ByCorrelation.end() || A.Start < Issue->second->Exit + Config.MinHeldNs)
      continue;
    const ApiCall &C = *Issue->second;
    // Work that ended just before A started: in A's own stream it is ordinary ordering;
    // in a stream A must synchronize with, it is what held A back.
    auto Lo = std::lower_bound(ByEnd.begin(), ByEnd.end(), A.Start > Config.SlackNs ? A.Start - Config.SlackNs : 0,
                               [](const GpuWork *G, std::uint64_t T) { return G->End < T; });
    const GpuWork *Blocker = nullptr;
    bool OwnStream = false;
    for (auto It = Lo; It != ByEnd.end() && (*It)->End <= A.Start; ++It) {
      const GpuWork *B = *It;
      if (B == &A || B->Start >= A.Start)
        continue;
      if (B->Stream == A.Stream) {
        OwnStream = true;
        continue;
      }
      StreamFlag BF = FlagOf(B->Stream);
      bool Serializes = Flag == StreamFlag::Legacy ? BF == StreamFlag::Blocking || BF == StreamFlag::Unknown
                                                   : BF == StreamFlag::Legacy;
      if (Serializes)
        Blocker = B;
    }
    if (!Blocker || OwnStream)
      continue;
    std::uint64_t Held = A.Start - std::max(C.Exit, Blocker->Start);
    std::string Cause = A.describe() + " on the " + streamLabel(A.Stream, Streams) + " was held " +
                        formatDuration(Held) + " until " + Blocker->describe() + " on " +
                        streamLabel(Blocker->Stream, Streams) + " ended";
    record(Flag == StreamFlag::Legacy ? RuleId::DefaultStream : RuleId::BlockingStream, C, Held, Cause, Blocker);
  }
}

void Engine::priorityInversion(const EventLog &W, const WindowIndex &I) {
  auto PriorityOf = [&](std::uint32_t S) -> std::optional<std::int32_t> {
    auto It = Streams.find(S);
    if (It == Streams.end())
      return std::nullopt;
    return It->second.Priority;
  };
  for (const GpuWork &A : W.Work) {
    std::optional<std::int32_t> PA = PriorityOf(A.Stream);
    if (A.Kind != GpuKind::Kernel || !PA || *PA >= 0)
      continue;
    auto Issue = I.ByCorrelation.find(A.Correlation);
    if (Issue == I.ByCorrelation.end())
      continue;
    const ApiCall &C = *Issue->second;
    // The urgent work was asked for when its launch was called. A launch that itself
    // blocked the host (seen on an H200: the first launch of a kernel, which loads its
    // module - CUDA_MODULE_LOADING=LAZY, the default - waited 14.5 ms and 1.03 s for the
    // low-priority matmuls to drain) holds the urgent work from its entry, not its return.
    bool LaunchBlocked = C.duration() >= Config.HostWaitThresholdNs;
    std::uint64_t Asked = LaunchBlocked ? C.Enter : C.Exit;
    if (A.Start < Asked + Config.MinHeldNs)
      continue;
    // What held it: a lower-priority kernel running across the middle of its delay - or,
    // when the launch blocked, the one that ended last before the launch returned (what the
    // launch waited for; EventWindow keeps that one for a call it carries, while the work
    // of a 1 s delay's middle may be long gone on a busy GPU).
    std::uint64_t Middle = Asked + (A.Start - Asked) / 2;
    const GpuWork *Holder = nullptr;
    bool OwnStream = false;
    for (const GpuWork *B : I.ByStart) {
      if (B->Start > A.Start)
        break;
      if (B == &A || B->End <= Asked)
        continue;
      if (B->Stream == A.Stream) {
        OwnStream = OwnStream || B->End + Config.SlackNs >= A.Start;
        continue;
      }
      std::optional<std::int32_t> PB = PriorityOf(B->Stream);
      if (B->Kind != GpuKind::Kernel || !PB || *PB <= *PA)
        continue;
      bool Held = LaunchBlocked ? B->End <= C.Exit + Config.SlackNs : B->Start <= Middle && B->End >= Middle;
      if (Held && (!Holder || B->End > Holder->End))
        Holder = B;
    }
    if (!Holder || OwnStream)
      continue;
    std::uint64_t Held = A.Start - Asked;
    std::string Cause = A.describe() + " on the " + streamLabel(A.Stream, Streams) + " started " +
                        formatDuration(Held) + " after it was issued, behind " + Holder->describe() + " on " +
                        streamLabel(Holder->Stream, Streams) +
                        (LaunchBlocked ? ": its launch itself blocked the host " + formatDuration(C.duration()) +
                                             " (a kernel's first launch loads its module and waits for the running "
                                             "kernels under CUDA_MODULE_LOADING=LAZY, the default: launch it once "
                                             "before the bulk work, or set CUDA_MODULE_LOADING=EAGER)"
                                       : std::string(" (priorities do not preempt running blocks)"));
    record(RuleId::PriorityInversion, C, Held, Cause, Holder);
  }
}

// A launch onto a default stream while PyTorch's current stream was another (capture reads
// it: TorchStreams.h). Reported every time - it is an ordering bug whatever it cost - and
// said to have raced when its kernel overlapped work on the current stream that was queued
// before it (still running when it started) or after it (started before it ended): nothing
// orders the two, PyTorch's streams being non-blocking.
void Engine::offTorchStream(const EventLog &W, const WindowIndex &I) {
  // Bounded scan for a kernel queued before and still running (ByEnd from the kernel's start).
  constexpr int kScan = 256;
  for (std::size_t N = 0; N < I.InScope; ++N) {
    const ApiCall &C = W.Calls[N];
    if (!C.OffTorchStream)
      continue;
    std::uint32_t Current = *C.OffTorchStream;
    auto Own = I.FirstOwn.find(C.Correlation);
    const GpuWork *K = Own == I.FirstOwn.end() ? nullptr : Own->second;
    const GpuWork *Raced = nullptr;
    bool Before = false;
    if (K && Current != ApiCall::kUnknownStream) {
      auto From = std::lower_bound(I.ByEnd.begin(), I.ByEnd.end(), K->Start,
                                   [](const GpuWork *G, std::uint64_t T) { return G->End <= T; });
      int Scanned = 0;
      for (auto It = From; It != I.ByEnd.end() && Scanned < kScan && !Raced; ++It, ++Scanned) {
        const GpuWork *G = *It;
        if (G->Stream == Current && G->Correlation < C.Correlation && G->Start < K->Start)
          Raced = G, Before = true;
      }
      auto After = std::lower_bound(I.ByStart.begin(), I.ByStart.end(), C.Enter,
                                    [](const GpuWork *G, std::uint64_t T) { return G->Start < T; });
      for (auto It = After; It != I.ByStart.end() && (*It)->Start < K->End && !Raced; ++It)
        if ((*It)->Stream == Current && (*It)->Correlation > C.Correlation)
          Raced = *It;
    }
    std::string CurrentName = Current == ApiCall::kUnknownStream ? "another stream" : streamLabel(Current, Streams);
    std::string What = K ? K->describe() + " went to the " + streamLabel(K->Stream, Streams)
                         : "'" + std::string(C.Api) + "' sent its kernel to a default stream";
    std::string Cause = What + " while PyTorch's current stream was " + CurrentName;
    if (Raced)
      Cause += Before ? "; it started while " + Raced->describe() + ", queued before it there, was still running"
                      : "; " + Raced->describe() + ", queued after it there, started before it ended";
    auto Known = Aggregates.find({RuleId::TorchCurrentStream, C.Site});
    std::string Kept = Known != Aggregates.end() && Known->second.Unordered ? Known->second.Example : "";
    SiteAggregate &A = record(RuleId::TorchCurrentStream, C, 0, Cause, Raced);
    if (Current != ApiCall::kUnknownStream)
      A.CurrentStream = Current;
    if (K)
      A.LaunchStream = K->Stream;
    A.Unordered += Raced != nullptr;
    if (!Raced && !Kept.empty())
      A.Example = Kept;  // a seen race is the example worth showing
  }
}

void Engine::consume(const EventLog &Window, std::size_t InScope) {
  for (const StreamInfo &S : Window.Streams)
    Streams[S.Stream] = S;
  for (const auto &[Id, F] : Window.Sites)
    Sites[Id] = F;
  for (const auto &[Tid, Name] : Window.ThreadNames)
    ThreadNames[Tid] = Name;
  for (const StepSpan &S : Window.Steps)  // (before the window's waits: a replay's are in it)
    StepCost.addStep(S);
  if (Window.Process.Pid)
    MainThread = Window.Process.Pid;
  if (Window.KernelsTracedFrom)
    KernelsTracedFrom = *Window.KernelsTracedFrom;
  CountsAllCalls |= Window.CountsAllCalls;
  LaunchesUnwatched.insert(LaunchesUnwatched.end(), Window.LaunchesUnwatched.begin(), Window.LaunchesUnwatched.end());
  for (const CountedCalls &C : Window.Counted)
    addCounted(C);
  WindowIndex Index(Window, InScope);
  MergedValid = false;
  CallsSeen += Index.InScope;
  for (std::size_t N = 0; N < Index.InScope; ++N) {
    const ApiCall &C = Window.Calls[N];
    FirstEnter = std::min(FirstEnter, C.Enter);
    LastExit = std::max(LastExit, C.Exit);
    if (C.Site) {
      CallCount &K = CallCounts[{C.Api, C.Site}];
      ++K.Count;
      // A launch is judged by its kernel's records (serialization, priority inversion):
      // one issued before they were traced ran untimed.
      const ApiInfo *Info = findApi(C.Api);
      K.Measured += !(Info && Info->Family == ApiFamily::Launch && C.Enter < KernelsTracedFrom);
      K.TotalNs += C.duration();
      K.MaxNs = std::max(K.MaxNs, C.duration());
    }
  }
  hostWaits(Window, Index);
  pageableCopies(Window, Index);
  serialization(Window, Index);
  priorityInversion(Window, Index);
  offTorchStream(Window, Index);
}

// The line a user would edit: in a Python process the innermost user Python line, else the
// native file:line, else (a release build) module and function+offset. Different stacks
// that end there - a loop's peeled first iteration, one helper inlined twice - are one
// finding.
// syncwatch-torch-current-stream is the launch's own line (the op's C++), where it has one.
std::string Engine::locationKey(std::uint32_t Site, RuleId Rule) const {
  auto It = Sites.find(Site);
  if (It == Sites.end())
    return "";
  const SiteFrame &F = It->second;
  if (Rule == RuleId::TorchCurrentStream && F.Line)
    return F.File + ":" + std::to_string(F.Line);
  if (!F.Python.empty())
    return "py:" + F.Python.front().File + ":" + std::to_string(F.Python.front().Line);
  if (F.Line)
    return F.File + ":" + std::to_string(F.Line);
  return F.File.empty() ? "" : F.File + "!" + F.Function;
}

void Engine::addCounted(const CountedCalls &C) {
  if (!C.Site || !C.Calls)
    return;
  CallCount &K = CallCounts[{C.Api, C.Site}];
  K.Count += C.Calls;
  K.Measured += C.Judged;
  CallsSeen += C.Calls;
}

Engine::LaunchCoverage Engine::launchCoverage() const {
  if (!CountsAllCalls)
    return LaunchCoverage::Unknown;
  return LaunchesUnwatched.empty() ? LaunchCoverage::Complete : LaunchCoverage::Partial;
}

std::vector<std::pair<std::string, std::string>> Engine::coverageFigures() const {
  std::vector<std::pair<std::string, std::string>> Out;
  Out.emplace_back("cudaSpanMs", evidenceNumber(runNs() / 1e6));  // first call to last return
  LaunchCoverage L = launchCoverage();
  Out.emplace_back("coverage.launches", L == LaunchCoverage::Complete ? "complete"
                                        : L == LaunchCoverage::Partial ? "partial"
                                                                       : "not counted");
  if (L == LaunchCoverage::Partial) {
    // The unwatched time inside the run, from the first call's entry (a span deferred from
    // the start begins at 0) to the last call's return (a span open at exit).
    std::uint64_t Ns = 0;
    for (const UnwatchedSpan &U : LaunchesUnwatched) {
      std::uint64_t From = std::max(U.From, FirstEnter), To = std::min(U.To, LastExit);
      Ns += To > From ? To - From : 0;
    }
    Out.emplace_back("coverage.launchesUnwatchedMs", evidenceNumber(Ns / 1e6));
  }
  return Out;
}

std::vector<std::pair<std::string, std::string>> Engine::stepFigures() const {
  return StepCost.figures(FirstEnter, [this](std::uint64_t Tid) { return threadLabel(Tid); });
}

std::vector<std::uint32_t> Engine::coverageSites() const {
  std::set<std::uint32_t> S;
  for (const auto &[Key, K] : CallCounts)
    S.insert(Key.second);
  return {S.begin(), S.end()};
}

// Stacks that end at one line are one entry, as findings are.
std::vector<CoveredCall> Engine::coverage() const {
  std::map<std::tuple<std::string_view, std::string, unsigned>, CoveredCall> ByLine;
  for (const auto &[Key, K] : CallCounts) {
    auto It = Sites.find(Key.second);
    if (It == Sites.end())
      continue;
    const SiteFrame &S = It->second;
    CoveredCall C;
    C.Api = std::string(Key.first);
    if (!S.Python.empty()) {
      C.Where.File = S.Python.front().File;
      C.Where.Line = S.Python.front().Line;
    } else {
      C.Where.File = S.File;
      C.Where.Line = S.Line;
    }
    if (C.Where.File.empty())
      continue;
    C.NativeFile = S.File;
    C.NativeLine = S.Line;
    CoveredCall &Into = ByLine.try_emplace({Key.first, C.Where.File, C.Where.Line}, C).first->second;
    Into.Count += K.Count;
    Into.Measured += K.Measured;
    Into.TotalMs += K.TotalNs / 1e6;
    Into.MaxMs = std::max(Into.MaxMs, K.MaxNs / 1e6);
  }
  std::vector<CoveredCall> Out;
  for (auto &[Key, C] : ByLine)
    Out.push_back(std::move(C));
  return Out;
}

// One explicit synchronization is by design; a site that waits again and again is the
// finding (sync-in-loop, and a sync inside an op, which is reported as torch-host-sync).
static bool isReported(const Engine::MergedSite &M) {
  return M.Parts.front()->Rule != RuleId::SyncInLoop || M.Total.Count > 1;
}

// A wait the static side calls a host sync inside an op: an explicit synchronization or a
// synchronous copy whose first native frame, under Python, is the extension's C++ (the
// Python line called an op, the op waited). Pure Python's waits have no such frame: the
// interpreter, libtorch and pybind11 are vendor code (FrameClass.h).
RuleId Engine::reportedRule(const SiteAggregate &A) const {
  if (A.Rule != RuleId::SyncInLoop && A.Rule != RuleId::SyncMemcpy)
    return A.Rule;
  auto It = Sites.find(A.Site);
  return It != Sites.end() && !It->second.Python.empty() && !It->second.File.empty() ? RuleId::TorchHostSync : A.Rule;
}

const std::vector<Engine::MergedSite> &Engine::merged() const {
  if (MergedValid)
    return Merged;
  std::map<std::tuple<RuleId, std::string>, std::size_t> Index;
  Merged.clear();
  for (const auto &[Key, A] : Aggregates) {
    RuleId Rule = reportedRule(A);
    auto [It, New] = Index.try_emplace({Rule, locationKey(A.Site, Rule)}, Merged.size());
    if (New) {
      Merged.push_back({A, {&A}});
      Merged.back().Total.Rule = Rule;
    }
    else {
      MergedSite &M = Merged[It->second];
      M.Parts.push_back(&A);
      M.Total.Count += A.Count;
      M.Total.TotalNs += A.TotalNs;
      M.Total.FollowedBySync += A.FollowedBySync;
      M.Total.OwnWorkOnly += A.OwnWorkOnly;
      for (const auto &[Tid, Ns] : A.NsByThread)
        M.Total.NsByThread[Tid] += Ns;
      if (A.Unordered && !M.Total.Unordered)
        M.Total.Example = A.Example;  // a seen race (offTorchStream)
      M.Total.Unordered += A.Unordered;
      if (!M.Total.CurrentStream)
        M.Total.CurrentStream = A.CurrentStream;
      if (!M.Total.LaunchStream)
        M.Total.LaunchStream = A.LaunchStream;
      if (!A.SyncApi.empty())
        M.Total.SyncApi = A.SyncApi;
      if (A.MaxNs > M.Total.MaxNs) {
        M.Total.MaxNs = A.MaxNs;
        M.Total.Example = A.Example;
      }
    }
  }
  for (MergedSite &M : Merged) {
    // Named by the costliest of its stacks.
    std::stable_sort(M.Parts.begin(), M.Parts.end(),
                     [](const SiteAggregate *A, const SiteAggregate *B) { return A->TotalNs > B->TotalNs; });
    M.Total.Site = M.Parts.front()->Site;
  }
  ReportedSites.clear();
  for (const MergedSite &M : Merged)
    if (isReported(M))
      for (const SiteAggregate *A : M.Parts)
        ReportedSites.insert({A->Rule, A->Site});
  MergedValid = true;
  return Merged;
}

bool Engine::reported(RuleId Rule, std::uint32_t Site) const {
  merged();
  return ReportedSites.count({Rule, Site}) != 0;
}

std::uint64_t Engine::hostTimeLostNs() const {
  std::uint64_t Ns = 0;
  for (const MergedSite &M : merged())
    if (isReported(M))
      Ns += M.Total.TotalNs;
  return Ns;
}

std::string Engine::threadLabel(std::uint64_t Tid) const {
  if (MainThread && Tid == MainThread)
    return "main";
  auto It = ThreadNames.find(Tid);
  std::string Name = It == ThreadNames.end() ? "" : It->second;
  for (char &C : Name)  // the separators of the threads evidence
    if (C == ';' || C == '=')
      C = '_';
  return Name.empty() ? "tid " + std::to_string(Tid) : Name + " (tid " + std::to_string(Tid) + ")";
}

std::string Engine::threadCosts(const std::map<std::uint64_t, std::uint64_t> &NsByThread) const {
  ThreadCosts C;
  for (const auto &[Tid, Ns] : NsByThread)
    C.emplace_back(threadLabel(Tid), Ns / 1e6);
  return formatThreadCosts(std::move(C));
}

namespace {

// Where a finding is (the user's Python line, the native line, or a release build's
// symbol) and the frames that go to its evidence.
struct FindingPlace {
  std::string PythonStack, NativeSite, SiteKind = "unknown", Symbol;
};

FindingPlace placeFinding(Finding &F, const SiteAggregate &A, const SiteFrame *S) {
  FindingPlace P;
  if (S) {
    // In a Python process the user's Python line is the answer; the native frame
    // (often inside libtorch, or the C++ extension the script called) goes to evidence.
    // A launch off PyTorch's current stream is the op's launch line, the Python line
    // beside it.
    if (!S->Python.empty() && !(A.Rule == RuleId::TorchCurrentStream && S->Line)) {
      F.Where.File = S->Python.front().File;
      F.Where.Line = S->Python.front().Line;
      P.SiteKind = "python";
    } else if (S->Line) {
      F.Where.File = S->File;
      F.Where.Line = S->Line;
      P.SiteKind = "line";
    } else if (!S->File.empty()) {
      // A release build: module and function+offset, no line.
      F.Where.File = S->File;
      P.Symbol = S->Function;
      P.SiteKind = "symbol";
    }
    F.Where.Column = F.Where.Line ? 1 : 0;
    for (const SourceFrame &Py : S->Python)
      P.PythonStack += (P.PythonStack.empty() ? "" : " <- ") + Py.File + ":" + std::to_string(Py.Line) + " (" + Py.Function + ")";
    if (!S->File.empty())
      P.NativeSite = S->Line ? S->File + ":" + std::to_string(S->Line) + " (" + S->Function + ")" : S->File + " (" + S->Function + ")";
  }
  if (F.Where.File.empty())
    F.Where.File = "<unknown call site>";
  return P;
}

// What the site did and cost, where (the op, the symbol, the Python stack), and the
// synchronize that followed it.
std::string findingHead(const SiteAggregate &A, const FindingPlace &P, const std::string &Op) {
  std::string Times = A.Count == 1 ? "once" : std::to_string(A.Count) + " times";
  std::string Message;
  if (A.Rule == RuleId::TorchCurrentStream) {
    Message = A.Example + " - " + Times + (A.Unordered ? ", " + std::to_string(A.Unordered) + " of them seen racing with it" : "") +
              ": PyTorch's streams are non-blocking, so nothing orders this kernel with the work the op's "
              "neighbours queue on the current stream (and under CUDA graph capture it breaks the capture)";
    if (!Op.empty())
      Message += " [op: " + Op + "]";
  } else {
    Message = "'" + A.Api + "' " + (P.Symbol.empty() ? "" : "in " + P.Symbol + " ") + "cost " +
              formatDuration(A.TotalNs) + " over " + Times + " (max " + formatDuration(A.MaxNs) + "): " + A.Example;
    if (A.Rule == RuleId::TorchHostSync && !Op.empty())
      Message += " [inside op " + Op + (P.NativeSite.empty() ? "" : " at " + P.NativeSite.substr(0, P.NativeSite.find(' '))) + "]";
  }
  if (!P.Symbol.empty())
    Message += " [no line table: build with -Xcompiler -g1 (host line tables; -lineinfo is device-only) for file:line]";
  if (!P.PythonStack.empty())
    Message += " [Python: " + P.PythonStack + "]";
  // Worth a word when it is the pattern (most copies), not when a final synchronize
  // happened to follow the last copy of a loop.
  if (A.FollowedBySync && 2 * A.FollowedBySync >= A.Count)
    Message += "; " + std::string(A.Count == 1 ? "" : A.FollowedBySync == A.Count ? "each " : std::to_string(A.FollowedBySync) + " ") +
               "followed at once by '" + A.SyncApi + "' on the same thread (a blocking copy in two calls)";
  return Message;
}

// Why a note is not a warning, then the fix: the rule's, else the API's.
std::string findingAdvice(const SiteAggregate &A, Severity Level, bool Once, double Share, std::uint64_t ThresholdNs) {
  std::string Message;
  if (Level == Severity::Note) {
    char Pct[16];
    std::snprintf(Pct, sizeof Pct, "%.1f%%", 100 * Share);
    Message += Once ? "; a note, not a warning: it ran once, waited for nothing but its own work, and took " +
                          std::string(Pct) + " of the run (the cost of a synchronous call, not an implicit synchronization)"
                    : "; a note, not a warning: its calls waited for nothing but their own work and took " +
                          formatDuration(A.TotalNs) + " in all, under the " + formatDuration(ThresholdNs) + " threshold";
  }
  if (A.Rule == RuleId::PriorityInversion)  // the launch API's own fix is not the point here
    Message += "; issue the urgent work before the bulk work, or split or shrink the lower-priority kernels";
  else if (A.Rule == RuleId::TorchCurrentStream)
    Message += "; launch on at::cuda::getCurrentCUDAStream() (k<<<grid, block, 0, stream>>>)";
  else if (A.Rule == RuleId::TorchHostSync)
    Message += "; keep the value on the GPU (a tensor, not a number), or move the read out of the op "
               "to where the caller can overlap it";
  else if (const ApiInfo *Api = findApi(A.Api))
    Message += "; " + std::string(Api->Fix);
  return Message;
}

// The finding's evidence up to who paid: the call, its counts, its frames, its op, and
// for a launch off PyTorch's current stream, the streams.
void addEvidence(Finding &F, const SiteAggregate &A, const std::string &Function, const FindingPlace &P,
                 const std::string &Op, const std::map<std::uint32_t, StreamInfo> &Streams) {
  F.Evidence = {{"api", A.Api},
                {"count", ""},
                {"totalMs", ""},
                {"maxMs", ""},
                {"example", A.Example},
                {"function", Function},
                {"callSite", P.SiteKind},
                {"ownWorkOnly", std::to_string(A.OwnWorkOnly) + " of " + std::to_string(A.Count)}};
  setMeasured(F, {A.Count, A.TotalNs / 1e6, A.MaxNs / 1e6});  // in the places reserved above
  if (!P.PythonStack.empty()) {
    F.Evidence.push_back({"pythonStack", P.PythonStack});
    F.Evidence.push_back({"nativeSite", P.NativeSite});
  }
  if (A.FollowedBySync)
    F.Evidence.push_back({"followedBySync", std::to_string(A.FollowedBySync) + " x " + A.SyncApi});
  if (!Op.empty())
    F.Evidence.push_back({"op", Op});
  if (A.Rule == RuleId::TorchCurrentStream) {
    // A count, not a time: what confirm says of it ("ran on the legacy stream N times").
    F.Evidence.push_back({"offStreamLaunches", std::to_string(A.Count)});
    F.Evidence.push_back({"racesSeen", std::to_string(A.Unordered)});
    if (A.CurrentStream)
      F.Evidence.push_back({"currentStream", streamLabel(*A.CurrentStream, Streams)});
    if (A.LaunchStream)
      F.Evidence.push_back({"launchStream", streamLabel(*A.LaunchStream, Streams)});
    if (P.PythonStack.empty() && !P.NativeSite.empty())
      F.Evidence.push_back({"nativeSite", P.NativeSite});
  }
}

// Stacks that end at the same line: one finding, each stack's share as evidence.
void addStackVariants(Finding &F, const Engine::MergedSite &MS) {
  if (MS.Parts.size() <= 1)
    return;
  std::string Variants;
  for (const SiteAggregate *P : MS.Parts) {
    Variants += (Variants.empty() ? "" : "; ") + std::to_string(P->Count) + " x " + formatDuration(P->TotalNs);
    if (P->FollowedBySync)
      Variants += std::string(P->FollowedBySync == P->Count ? ", each" : ", " + std::to_string(P->FollowedBySync)) +
                  " followed at once by '" + P->SyncApi + "'";
  }
  F.Evidence.push_back({"stacks", std::to_string(MS.Parts.size())});
  F.Evidence.push_back({"variants", Variants});
}

} // namespace

// The reported sites, costliest first, each a finding: its level, place, message and evidence.
std::vector<Finding> Engine::findings() const {
  std::vector<const MergedSite *> Order;
  for (const MergedSite &M : merged())
    if (isReported(M))
      Order.push_back(&M);
  std::stable_sort(Order.begin(), Order.end(),
                   [](const MergedSite *A, const MergedSite *B) { return A->Total.TotalNs > B->Total.TotalNs; });
  std::vector<Finding> Out;
  for (const MergedSite *MS : Order) {
    const SiteAggregate *A = &MS->Total;
    Finding F;
    F.Rule = std::string(ruleInfo(A->Rule).Id);
    F.Level = Severity::Warning;
    // A call that waited for its own work only, once, for a small share of the run, paid
    // what a synchronous API costs (a start-up upload): a note that gives the time. So is a
    // site whose calls all waited for their own work only and cost less than the host-wait
    // threshold in all (three start-up copies of 114 us on the H200 were a warning). A hot
    // path - more than once and past the threshold, or a large share - stays a warning.
    double Share = runNs() ? static_cast<double>(A->TotalNs) / runNs() : 1.0;
    bool OwnOnly = A->OwnWorkOnly == A->Count;
    bool Once = OwnOnly && A->Count == 1 && Share < Config.HotShare;
    bool Cheap = OwnOnly && A->Count > 1 && A->TotalNs < Config.HostWaitThresholdNs && Share < Config.HotShare;
    if (Once || Cheap)
      F.Level = Severity::Note;
    auto Site = Sites.find(A->Site);
    const std::string NoFunction;
    const std::string &Function = Site != Sites.end() ? Site->second.Function : NoFunction;
    FindingPlace Place = placeFinding(F, *A, Site != Sites.end() ? &Site->second : nullptr);
    // The op a torch rule's call was made in: the extension's function (its symbol in a
    // release build), and where.
    std::string Op = A->Rule == RuleId::TorchHostSync || A->Rule == RuleId::TorchCurrentStream
                         ? qualifiedFunctionName(Function)
                         : "";
    F.Message = findingHead(*A, Place, Op) + findingAdvice(*A, F.Level, Once, Share, Config.HostWaitThresholdNs);
    addEvidence(F, *A, Function, Place, Op, Streams);
    // Who paid: "main=120.5; pt_autograd_0 (tid 812)=3.25" (ms, costliest first).
    F.Evidence.push_back({"threads", threadCosts(A->NsByThread)});
    addStackVariants(F, *MS);
    Out.push_back(std::move(F));
  }
  return Out;
}

} // namespace syncwatch::runtime
