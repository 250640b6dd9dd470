#include "TorchGraphHints.h"

#include "PythonStacks.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>

namespace syncwatch::runtime {

TorchGraphHint torchGraphHintKind(std::string_view Message) {
  // cudagraph_utils.format_default_skip_message, and the re-record limit's "skipping cudagraph
  // due to function 0 exceeding max re-recording limit".
  return Message.substr(0, 18) == "skipping cudagraph" ? TorchGraphHint::Skipped : TorchGraphHint::Other;
}

namespace {

// The few C API functions the filter needs, looked up at run time (no build dependency on a
// Python version; every one is in the stable ABI of 3.10 to 3.13).
struct CApi {
  int (*AddPendingCall)(int (*)(void *), void *) = nullptr;
  void *(*ImportModule)(const char *) = nullptr;
  void *(*CallMethod)(void *, const char *, const char *, ...) = nullptr;
  void *(*NewFunction)(void *Def, void *Self, void *Module) = nullptr;  // PyCFunction_NewEx
  const char *(*Utf8AndSize)(void *, long *) = nullptr;
  void *(*Bool)(long) = nullptr;
  void (*DecRef)(void *) = nullptr;
  void (*ErrClear)() = nullptr;

  bool load() {
    auto Get = [](const char *Name) { return dlsym(RTLD_DEFAULT, Name); };
#define SW_PY(Field, Name) Field = reinterpret_cast<decltype(Field)>(Get(Name))
    SW_PY(AddPendingCall, "Py_AddPendingCall");
    SW_PY(ImportModule, "PyImport_ImportModule");
    SW_PY(CallMethod, "PyObject_CallMethod");
    SW_PY(NewFunction, "PyCFunction_NewEx");
    SW_PY(Utf8AndSize, "PyUnicode_AsUTF8AndSize");
    SW_PY(Bool, "PyBool_FromLong");
    SW_PY(DecRef, "Py_DecRef");
    SW_PY(ErrClear, "PyErr_Clear");
#undef SW_PY
    return AddPendingCall && ImportModule && CallMethod && NewFunction && Utf8AndSize && Bool && DecRef && ErrClear;
  }
};
CApi Py;

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

// PyMethodDef's layout (Include/methodobject.h), METH_O: the function gets the record itself.
struct MethodDef {
  const char *Name;
  void *(*Function)(void *Self, void *Record);
  int Flags;
  const char *Doc;
};
constexpr int kMethO = 0x0008;

// logging calls it as filter(record) before any handler: tell the hint, keep the record.
void *filterRecord(void *, void *Record) {
  if (void *Message = Py.CallMethod(Record, "getMessage", nullptr)) {
    long Size = 0;
    if (const char *Text = Py.Utf8AndSize(Message, &Size)) {
      std::string_view M(Text, static_cast<std::size_t>(Size));
      if (auto *F = OnHint.load(std::memory_order_relaxed))
        F(torchGraphHintKind(M), M);
    }
    Py.DecRef(Message);
  }
  Py.ErrClear();  // never an exception out of a filter: torch's own log call would raise it
  return Py.Bool(1);
}
MethodDef FilterDef{"syncwatch_cudagraph_hints", filterRecord, kMethO,
                    "syncwatch: notes inductor's CUDA-graph perf hints; keeps every record"};

// A pending call (the main thread, between two bytecodes, with the GIL): a clean place to run
// Python, which the import's audit hook is not. Returns 0 always: -1 would raise in the program.
int addFilter(void *Which) {
  Watched &W = Loggers[reinterpret_cast<std::uintptr_t>(Which)];
  static void *Filter = nullptr;  // one function object for both loggers, never freed
  if (!Filter)
    Filter = Py.NewFunction(&FilterDef, nullptr, nullptr);
  void *Logging = Filter ? Py.ImportModule("logging") : nullptr;
  void *Logger = Logging ? Py.CallMethod(Logging, "getLogger", "s", W.Logger) : nullptr;
  void *Done = Logger ? Py.CallMethod(Logger, "addFilter", "O", Filter) : nullptr;
  for (void *Ref : {Done, Logger, Logging})
    if (Ref)
      Py.DecRef(Ref);
  Py.ErrClear();
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
    if (W.State.compare_exchange_strong(From, 1) && Py.AddPendingCall(addFilter, reinterpret_cast<void *>(I)) != 0)
      W.State.store(3);
  }
}

} // namespace

bool followTorchGraphHints(void (*Listener)(TorchGraphHint, std::string_view)) {
  if (!Py.load())
    return false;
  OnHint.store(Listener);
  return watchPythonImports(onImport);
}

} // namespace syncwatch::runtime
