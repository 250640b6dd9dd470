#include "TorchProfilerSteps.h"

#include "PythonApi.h"
#include "PythonStacks.h"

#include <atomic>
#include <cstring>

namespace syncwatch::runtime {

namespace {

// The C API functions the wrapping needs (PythonApi.h).
bool haveWhatTheWrappingNeeds() {
  const PythonApi &P = Python;
  return P.AddPendingCall && P.NewFunction && P.DictNew && P.DictSetItemString && P.RunString && P.AsLong &&
         P.BuildValue && P.DecRef && P.ErrClear;
}

std::atomic<void (*)(ProfilerStepMark)> OnMark{nullptr};

// The wrapping, run once the class exists. It raises (and is tried again at a later import)
// while torch.profiler.profiler is still being executed and has no `profile` yet. Methods
// wrapped already (a second interpreter's run, a copy of syncwatch) are left alone.
constexpr const char *kWrap = R"PY(
import functools, sys
_cls = getattr(sys.modules.get("torch.profiler.profiler"), "profile", None)
if _cls is None or not all(hasattr(_cls, m) for m in ("start", "step", "stop")):
    raise LookupError("torch.profiler.profile is not defined yet")

def _wrap(method, before, after):
    if getattr(method, "__syncwatch_step__", False):
        return method
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        if before is not None:
            _syncwatch_mark(before)
        result = method(*args, **kwargs)
        if after is not None:
            _syncwatch_mark(after)
        return result
    wrapper.__syncwatch_step__ = True
    return wrapper

_cls.start = _wrap(_cls.start, None, 0)
_cls.step = _wrap(_cls.step, None, 0)
_cls.stop = _wrap(_cls.stop, 1, None)
)PY";

constexpr int kFileInput = 257;  // Py_file_input

void *mark(void *, void *Arg) {
  long Kind = Python.AsLong(Arg);
  Python.ErrClear();
  if (auto *F = OnMark.load(std::memory_order_relaxed); F && (Kind == 0 || Kind == 1))
    F(Kind == 0 ? ProfilerStepMark::Next : ProfilerStepMark::End);
  return Python.BuildValue("");
}
PythonMethodDef MarkDef{"_syncwatch_mark", mark, kPythonMethO, "syncwatch: a torch.profiler step began or ended"};

// 0 not imported yet, 1 pending, 2 wrapped, 3 try again at the next import.
// The import's audit event comes before the module runs, and the pending call runs at the
// interpreter's next check - mostly inside the module's body, before `class profile` is
// bound: the wrapping then waits for the next import, which torch makes at once
// (torch/profiler/__init__.py imports torch.profiler.itt right after; an H100 run with torch
// 2.11 had its steps). A pending call that added itself again would not wait: CPython runs
// the calls added while it runs the queue before any bytecode (tried: a million looks, none
// with the class bound).
std::atomic<int> State{0};

int wrapProfile(void *) {
  void *Globals = Python.DictNew();
  void *Mark = Globals ? Python.NewFunction(&MarkDef, nullptr, nullptr) : nullptr;
  void *Done = nullptr;
  if (Mark && Python.DictSetItemString(Globals, "_syncwatch_mark", Mark) == 0)
    Done = Python.RunString(kWrap, kFileInput, Globals, Globals);
  for (void *Ref : {Done, Mark, Globals})
    if (Ref)
      Python.DecRef(Ref);
  Python.ErrClear();  // never an exception into the program's bytecode
  State.store(Done ? 2 : 3);
  return 0;
}

void onImport(const char *Module) {
  int From = State.load(std::memory_order_relaxed);
  if (From == 2 || From == 1 || (From == 0 && std::strcmp(Module, "torch.profiler.profiler") != 0))
    return;
  if (State.compare_exchange_strong(From, 1) && Python.AddPendingCall(wrapProfile, nullptr) != 0)
    State.store(3);
}

} // namespace

bool followTorchProfilerSteps(void (*Listener)(ProfilerStepMark)) {
  if (!loadPythonApi() || !haveWhatTheWrappingNeeds())
    return false;
  OnMark.store(Listener);
  return watchPythonImports(onImport);
}

} // namespace syncwatch::runtime
