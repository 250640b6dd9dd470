#include "TorchGraphHints.h"

#include "PythonApi.h"
#include "PythonStacks.h"

#include <atomic>
#include <cstring>

namespace syncwatch::runtime {

TorchGraphHint torchGraphHintKind(std::string_view Message) {
  // cudagraph_utils.format_default_skip_message, and the re-record limit's "skipping cudagraph
  // due to function 0 exceeding max re-recording limit".
  return Message.substr(0, 18) == "skipping cudagraph" ? TorchGraphHint::Skipped : TorchGraphHint::Other;
}

namespace {

// The few C API functions the filter needs (PythonApi.h).
bool haveWhatTheFilterNeeds() {
  const PythonApi &P = Python;
  return P.AddPendingCall && P.ImportModule && P.CallMethod && P.NewFunction && P.Utf8AndSize && P.Bool &&
         P.DecRef && P.ErrClear;
}

std::atomic<void (*)(TorchGraphHint, std::string_view)> OnHint{nullptr};

// The loggers of each module, as torch._logging.getArtifactLogger(__name__, ARTIFACT) names
// them: "perf_hints" until torch 2.5 or so, "cudagraphs" in 2.11 (seen on the H100:
// "torch/_inductor/cudagraph_utils.py:207] [__cudagraphs] skipping cudagraphs due to ...").
// A logger that a torch version does not use is created and never logs.
struct Watched {
  const char *Module, *Logger;
  std::atomic<int> State{0};  // 0 not imported yet, 1 filter being added, 2 added, 3 retry
};
Watched Loggers[] = {
    {"torch._inductor.cudagraph_utils", "torch._inductor.cudagraph_utils.__cudagraphs"},
    {"torch._inductor.cudagraph_utils", "torch._inductor.cudagraph_utils.__perf_hints"},
    {"torch._inductor.cudagraph_trees", "torch._inductor.cudagraph_trees.__cudagraphs"},
    {"torch._inductor.cudagraph_trees", "torch._inductor.cudagraph_trees.__perf_hints"},
};


// logging calls it as filter(record) before any handler: tell the hint, keep the record.
void *filterRecord(void *, void *Record) {
  if (void *Message = Python.CallMethod(Record, "getMessage", nullptr)) {
    long Size = 0;
    if (const char *Text = Python.Utf8AndSize(Message, &Size)) {
      std::string_view M(Text, static_cast<std::size_t>(Size));
      if (auto *F = OnHint.load(std::memory_order_relaxed))
        F(torchGraphHintKind(M), M);
    }
    Python.DecRef(Message);
  }
  Python.ErrClear();  // never an exception out of a filter: torch's own log call would raise it
  return Python.Bool(1);
}
PythonMethodDef FilterDef{"syncwatch_cudagraph_hints", filterRecord, kPythonMethO,
                    "syncwatch: notes inductor's CUDA-graph perf hints; keeps every record"};

// A pending call (the main thread, between two bytecodes, with the GIL): a clean place to run
// Python, which the import's audit hook is not. Returns 0 always: -1 would raise in the program.
int addFilter(void *Which) {
  Watched &W = Loggers[reinterpret_cast<std::uintptr_t>(Which)];
  static void *Filter = nullptr;  // one function object for both loggers, never freed
  if (!Filter)
    Filter = Python.NewFunction(&FilterDef, nullptr, nullptr);
  void *Logging = Filter ? Python.ImportModule("logging") : nullptr;
  void *Logger = Logging ? Python.CallMethod(Logging, "getLogger", "s", W.Logger) : nullptr;
  void *Done = Logger ? Python.CallMethod(Logger, "addFilter", "O", Filter) : nullptr;
  for (void *Ref : {Done, Logger, Logging})
    if (Ref)
      Python.DecRef(Ref);
  Python.ErrClear();
  W.State.store(Done ? 2 : 0);
  return 0;
}

void onImport(const char *Module) {
  for (std::uintptr_t I = 0; I < std::size(Loggers); ++I) {
    Watched &W = Loggers[I];
    // 3: its import was seen but the pending-call queue was full; any later import retries.
    bool Retry = W.State.load(std::memory_order_relaxed) == 3;
    if (!Retry && std::strcmp(Module, W.Module) != 0)
      continue;
    int From = Retry ? 3 : 0;
    if (W.State.compare_exchange_strong(From, 1) && Python.AddPendingCall(addFilter, reinterpret_cast<void *>(I)) != 0)
      W.State.store(3);
  }
}

} // namespace

bool followTorchGraphHints(void (*Listener)(TorchGraphHint, std::string_view)) {
  if (!loadPythonApi() || !haveWhatTheFilterNeeds())
    return false;
  OnHint.store(Listener);
  return watchPythonImports(onImport);
}

} // namespace syncwatch::runtime
