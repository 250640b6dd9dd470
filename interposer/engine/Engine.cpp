#include "Engine.h"

#include "Utilization.h"

#include "../passes/PassRegistry.h"

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

const SiteAggregate *Engine::aggregate(RuleId Rule, std::uint32_t Site) const {
  auto It = Aggregates.find({Rule, Site});
  return It == Aggregates.end() ? nullptr : &It->second;
}

// A call that blocked its thread: its host time is the cost, and it is what a step the
// thread marked lost (serialization and priority inversion cost GPU time, not the host's).
SiteAggregate &Engine::recordHostWait(RuleId Rule, const ApiCall &Call, const std::string &Cause,
                                      const GpuWork *Waited, bool OwnWorkOnly) {
  StepCost.addWait(Call.Thread, Call.Enter, Call.duration());
  return record(Rule, Call, Call.duration(), Cause, Waited, OwnWorkOnly);
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
    if (DetectLoops)
      Loops.add(C);
    if (StepCost.tracking() || DetectLoops) {
      // Work on the legacy stream, by its GPU record: what a capture of a stream cannot hold.
      // (Streams has this window's streams already.)
      auto Own = Index.FirstOwn.find(C.Correlation);
      auto S = Own == Index.FirstOwn.end() ? Streams.end() : Streams.find(Own->second->Stream);
      if (std::optional<Blocker> B = blockerOf(C, S != Streams.end() && S->second.Flag == StreamFlag::Legacy))
        Readiness.add(C, *B);
      if (const ApiInfo *Info = findApi(C.Api); Info && Info->Family == ApiFamily::GraphLaunch)
        Readiness.addGraphLaunch(C);
    }
    if (C.CaptureNumber) [[unlikely]] {
      const CaptureNote *N = C.capture();
      if (N && N->What == CaptureNote::Role::End) {
        ++CapturesEnded;
        CapturesFailed += N->Error != 0;
        CaptureNodes += N->Error ? 0 : N->Nodes;
      }
      TorchSkips += N && N->What == CaptureNote::Role::TorchSkip;
      TorchHints += N && N->What == CaptureNote::Role::TorchHint;
    }
  }
  PassContext Context{Window, Index, Streams, Config, KernelsTracedFrom};
  for (const WindowPass *Pass : cataloguePasses())
    Pass->run(Context, *this);
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
  return (F.Python.empty() ? "" : "py:") + siteText(Site);
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

std::vector<std::pair<std::string, std::string>> Engine::reportFigures(const UtilizationFigures &Use) const {
  std::vector<std::pair<std::string, std::string>> Out = utilizationProperties(Use, hostTimeLostNs(), kernelsTracedFrom());
  for (auto Part : {&Engine::coverageFigures, &Engine::stepFigures, &Engine::captureFigures, &Engine::readinessFigures})
    for (auto &F : (this->*Part)())
      Out.push_back(std::move(F));
  return Out;
}

std::vector<std::pair<std::string, std::string>> Engine::captureFigures() const {
  std::vector<std::pair<std::string, std::string>> Out;
  if (CapturesEnded) {
    Out.emplace_back("captures.ended", std::to_string(CapturesEnded));
    Out.emplace_back("captures.failed", std::to_string(CapturesFailed));
    Out.emplace_back("captures.graphNodes", std::to_string(CaptureNodes));
  }
  if (TorchSkips || TorchHints) {
    Out.emplace_back("captures.torchSkipped", std::to_string(TorchSkips));
    Out.emplace_back("captures.torchHints", std::to_string(TorchHints));
  }
  return Out;
}

std::vector<std::pair<std::string, std::string>> Engine::readinessFigures() const {
  std::vector<StepSpan> Spans;
  for (const StepCosts::Cost &C : StepCost.costs())
    Spans.push_back(C.Span);
  // A Python line's launch onto the legacy stream is PyTorch's current stream at work (the
  // default stream is the legacy one): torch.cuda.graph captures it on its own stream. So
  // is the backward pass's, launched by autograd's device thread (pt_autograd_N, no Python
  // frames) on the streams of the forward ops: on the H100 each step of
  // tests/gpu/readiness_step.py had 22 such launches, none a blocker of the capture.
  auto CurrentStreamWork = [this](std::uint32_t Site, std::uint64_t Thread) {
    auto It = Sites.find(Site);
    if (It != Sites.end() && !It->second.Python.empty())
      return true;
    auto Name = ThreadNames.find(Thread);
    return Name != ThreadNames.end() && Name->second.rfind("pt_autograd_", 0) == 0;
  };
  std::optional<LoopSteps::Loop> Loop;
  if (DetectLoops && (Loop = findLoop()))  // (asked for: the loop, even where steps are marked)
    Spans = Loop->Steps;
  // The sites kept, each to the first site that reads the same (the same line, two stacks).
  std::map<std::string, std::uint32_t> FirstOfText;
  std::map<std::uint32_t, std::uint32_t> Canonical;
  for (std::uint32_t Site : Readiness.sites())
    Canonical[Site] = FirstOfText.try_emplace(siteText(Site), Site).first->second;
  auto SameLine = [&Canonical](std::uint32_t Site) {
    auto It = Canonical.find(Site);
    return It == Canonical.end() ? Site : It->second;
  };
  std::optional<CaptureReadiness::Verdict> V = Readiness.judge(Spans, CurrentStreamWork, SameLine);
  if (!V)
    return {};
  V->Detected = Loop.has_value();
  // A Python line that called an op: the op's native line too, where the blocker is.
  auto Where = [this](std::uint32_t Site) {
    std::string Text = siteText(Site);
    auto It = Sites.find(Site);
    if (It != Sites.end() && !It->second.Python.empty() && It->second.Line)
      Text += " (in " + qualifiedFunctionName(It->second.Function) + " at " + It->second.File + ":" +
              std::to_string(It->second.Line) + ")";
    return Text;
  };
  std::vector<std::pair<std::string, std::string>> Figures =
      runtime::readinessFigures(*V, Where, [this](std::uint64_t Tid) { return threadLabel(Tid); });
  if (Loop) {
    Figures.emplace_back("readiness.loopCallsPerStep", std::to_string(Loop->CallsPerStep));
    if (Loops.partial())
      Figures.emplace_back("readiness.loopPartial", "the loop was looked for in the first " +
                                                        std::to_string(LoopSteps::kMaxCalls) + " calls");
  }
  return Figures;
}

std::optional<LoopSteps::Loop> Engine::findLoop() const {
  return Loops.find([this](std::uint32_t Site, std::string_view Api) {
    std::string Where = siteText(Site);
    return "loop from " + std::string(Api) + (Where.empty() ? "" : " at " + Where);
  }, MainThread);
}

std::vector<std::uint32_t> Engine::readinessSites() const {
  std::vector<std::uint32_t> S = Readiness.sites();
  if (DetectLoops)
    if (std::optional<LoopSteps::Loop> L = findLoop())
      S.push_back(L->Site);  // (named by its first call's line)
  return S;
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
      if (!M.Total.Capture)
        M.Total.Capture = A.Capture;
      M.Total.CaptureOtherThread += A.CaptureOtherThread;
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

std::string Engine::siteText(std::uint32_t Site) const {
  auto It = Sites.find(Site);
  if (It == Sites.end())
    return "";
  const SiteFrame &F = It->second;
  if (!F.Python.empty())
    return F.Python.front().File + ":" + std::to_string(F.Python.front().Line);
  if (F.Line)
    return F.File + ":" + std::to_string(F.Line);
  return F.File.empty() ? "" : F.File + "!" + F.Function;
}

namespace {

// What to change for torch's reason (its wording, torch/_inductor/cudagraph_utils.py and
// cudagraph_trees.py), or "" where torch's own message says it.
std::string torchGraphAdvice(const std::string &Reason) {
  auto Has = [&](const char *Words) { return Reason.find(Words) != std::string::npos; };
  if (Has("mutated inputs"))
    return "mutate a copy (or a parameter or buffer, which stay static) rather than an input of the compiled "
           "function, or do the in-place update outside it";
  if (Has("cpu device"))
    return "move the CPU tensor to the GPU once, before the compiled function is called, not inside it";
  if (Has("multiple devices"))
    return "keep every input of the compiled function on one GPU";
  if (Has("re-recording limit"))
    return "keep the compiled function's static inputs (parameters, buffers) at the same storage between calls";
  if (Has("distinct sizes"))
    return "pad inputs to a few sizes, or set torch._inductor.config.triton.cudagraph_skip_dynamic_graphs=True";
  if (Has("incompatible op") || Has("skipping cudagraphs due to"))
    return "keep what torch names out of the compiled function (graph-break around it) so the rest can be captured";
  return "";
}

} // namespace

// "torch.compile(mode="reduce-overhead") ran the function called here without CUDA graphs:
// torch says 'skipping cudagraphs due to mutated inputs (1 instances)'; mutate a copy ..."
std::string Engine::torchGraphMessage(const CaptureNote &N, std::uint64_t Count, const std::string &Reason) const {
  std::string Message = "torch.compile(mode=\"reduce-overhead\") ";
  Message += N.What == CaptureNote::Role::TorchSkip ? "ran the function called here without CUDA graphs"
                                                    : "used CUDA graphs for the function called here, at a cost";
  Message += ": torch says '" + Reason + "'" + (Count > 1 ? " (" + std::to_string(Count) + " times)" : "");
  if (std::string Advice = torchGraphAdvice(N.Reason); !Advice.empty())
    Message += "; " + Advice;
  return Message;
}

// "'cudaMalloc' broke a CUDA graph capture once: it returned ... [the capture was begun at
// app.cu:40 on thread main; this call was made on thread loader (tid 812): ...]; keep ..."
std::string Engine::captureBreakMessage(const SiteAggregate &A) const {
  std::string Times = A.Count == 1 ? "once" : std::to_string(A.Count) + " times";
  const CaptureNote *N = A.Capture;
  if (N && N->torch())
    return torchGraphMessage(*N, A.Count, A.Example);
  bool Ends = N && N->What == CaptureNote::Role::End;  // a failure with no breaking call seen
  std::string Message = "'" + A.Api + (Ends ? "' ended a CUDA graph capture that failed " : "' broke a CUDA graph capture ") +
                        Times + ": " + A.Example;
  if (N) {
    std::string Began = siteText(N->BeginSite);
    Message += " [the capture was begun" + (Began.empty() ? "" : " at " + Began) + " on thread " + threadLabel(N->Thread);
    if (A.CaptureOtherThread)
      Message += "; this call was made on " +
                 std::string(A.NsByThread.size() == 1 ? "thread " + threadLabel(A.NsByThread.begin()->first)
                                                      : "other threads") +
                 (N->Mode == CaptureMode::Global ? ": in global mode any thread's unsafe call breaks the capture"
                                                 : ", not the capturing thread");
    Message += "]";
  }
  Message += "; keep waits, allocations and legacy-stream work out of the capture (before it begins or after its end)";
  if (N && A.CaptureOtherThread && N->Mode == CaptureMode::Global)
    Message += ", or begin it in cudaStreamCaptureModeThreadLocal so that other threads' calls cannot break it";
  return Message;
}

void Engine::addCaptureEvidence(Finding &F, const SiteAggregate &A) const {
  const CaptureNote *N = A.Capture;
  if (N && N->torch()) {
    F.Evidence.push_back({"torchSays", N->Reason});
    return;
  }
  if (!N)
    return;
  F.Evidence.push_back({"captureBegunAt", siteText(N->BeginSite)});
  F.Evidence.push_back({"captureThread", threadLabel(N->Thread)});
  F.Evidence.push_back({"captureMode", captureModeName(N->Mode)});
  F.Evidence.push_back({"fromOtherThread", std::to_string(A.CaptureOtherThread) + " of " + std::to_string(A.Count)});
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
    if (A->Rule == RuleId::CaptureBreakingCall)  // a count of broken captures, not a cost
      F.Message = captureBreakMessage(*A) + (Place.PythonStack.empty() ? "" : " [Python: " + Place.PythonStack + "]");
    else
      F.Message = findingHead(*A, Place, Op) + findingAdvice(*A, F.Level, Once, Share, Config.HostWaitThresholdNs);
    addEvidence(F, *A, Function, Place, Op, Streams);
    if (A->Rule == RuleId::CaptureBreakingCall)
      addCaptureEvidence(F, *A);
    // Who paid: "main=120.5; pt_autograd_0 (tid 812)=3.25" (ms, costliest first).
    F.Evidence.push_back({"threads", threadCosts(A->NsByThread)});
    addStackVariants(F, *MS);
    Out.push_back(std::move(F));
  }
  return Out;
}

std::string findingsHeadline(const std::vector<Finding> &Findings) {
  std::size_t Graphs = 0;
  for (const Finding &F : Findings)
    Graphs += F.Rule == ruleInfo(RuleId::CaptureBreakingCall).Id;
  std::string Text = std::to_string(Findings.size() - Graphs) + " call site(s) stalled the host or serialized streams";
  if (Graphs)
    Text += ", " + std::to_string(Graphs) + " stopped CUDA graphs";
  return Text;
}

std::string capturesText(const std::vector<std::pair<std::string, std::string>> &Figures) {
  std::map<std::string, std::string> F(Figures.begin(), Figures.end());
  std::string Text;
  if (F.count("captures.ended")) {
    std::uint64_t Ended = std::stoull(F["captures.ended"]), Failed = std::stoull(F["captures.failed"]);
    Text = F["captures.ended"] + " graph capture" + (Ended == 1 ? "" : "s") + " ended: ";
    Text += Failed ? std::to_string(Failed) + " failed (the findings say which call broke " + (Failed == 1 ? "it" : "them") + ")"
                   : "none failed";
    if (Ended > Failed)
      Text += "; the " + (Ended - Failed == 1 ? std::string("graph") : std::to_string(Ended - Failed) + " graphs") +
              " made " + (Ended - Failed == 1 ? "has " : "have ") + F["captures.graphNodes"] + " nodes";
    Text += "\n";
  }
  if (F.count("captures.torchSkipped")) {
    std::uint64_t Skipped = std::stoull(F["captures.torchSkipped"]), Hints = std::stoull(F["captures.torchHints"]);
    Text += "torch.compile(mode=\"reduce-overhead\"): " +
            (Skipped ? std::to_string(Skipped) + " compiled graph" + (Skipped == 1 ? "" : "s") + " ran without CUDA graphs"
                     : std::string("no compiled graph skipped CUDA graphs")) +
            (Hints ? ", " + std::to_string(Hints) + " CUDA-graph perf hint" + (Hints == 1 ? "" : "s") : "") +
            " (the findings give torch's reasons at their lines)\n";
  }
  return Text;
}

} // namespace syncwatch::runtime
