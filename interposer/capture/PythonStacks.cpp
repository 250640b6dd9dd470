#include "PythonStacks.h"

#include "CudaPresence.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace syncwatch::runtime {
namespace {

// The stable public C API (its ABI is the same in every CPython 3.9+), looked up at run time.
using TraceFn = int (*)(void *Obj, void *Frame, int What, void *Arg);
struct CPython {
  int (*IsInitialized)() = nullptr;
  int (*AddPendingCall)(int (*)(void *), void *) = nullptr;
  void (*SetProfileAllThreads)(TraceFn, void *) = nullptr;  // 3.12+
  void (*SetProfile)(TraceFn, void *) = nullptr;
  void *(*FrameGetCode)(void *) = nullptr;
  void *(*FrameGetBack)(void *) = nullptr;
  int (*FrameGetLineNumber)(void *) = nullptr;
  void *(*GetAttrString)(void *, const char *) = nullptr;
  const char *(*UnicodeAsUTF8)(void *) = nullptr;
  void (*IncRef)(void *) = nullptr;
  void (*DecRef)(void *) = nullptr;
  void (*ErrClear)() = nullptr;
  void *(*ImportModule)(const char *) = nullptr;
  void *(*CallNoArgs)(void *) = nullptr;  // PyObject_CallNoArgs (3.9+)
  int (*GILStateCheck)() = nullptr;       // PyGILState_Check
  int (*AddAuditHook)(int (*)(const char *, void *, void *), void *) = nullptr;  // PySys_AddAuditHook (3.8+)
  void *(*EvalGetFrame)() = nullptr;      // PyEval_GetFrame: borrowed, needs the GIL
  void *None = nullptr;                   // &_Py_NoneStruct

  bool Loaded = false;

  // Looks the API up once; true when all of it is there (a CPython process).
  bool load() {
    if (Loaded)
      return true;
    auto Get = [](const char *Name) { return dlsym(RTLD_DEFAULT, Name); };
#define SW_PY(Field, Name) Field = reinterpret_cast<decltype(Field)>(Get(Name))
    SW_PY(IsInitialized, "Py_IsInitialized");
    SW_PY(AddPendingCall, "Py_AddPendingCall");
    SW_PY(SetProfileAllThreads, "PyEval_SetProfileAllThreads");
    SW_PY(SetProfile, "PyEval_SetProfile");
    SW_PY(FrameGetCode, "PyFrame_GetCode");
    SW_PY(FrameGetBack, "PyFrame_GetBack");
    SW_PY(FrameGetLineNumber, "PyFrame_GetLineNumber");
    SW_PY(GetAttrString, "PyObject_GetAttrString");
    SW_PY(UnicodeAsUTF8, "PyUnicode_AsUTF8");
    SW_PY(IncRef, "Py_IncRef");
    SW_PY(DecRef, "Py_DecRef");
    SW_PY(ErrClear, "PyErr_Clear");
    SW_PY(ImportModule, "PyImport_ImportModule");
    SW_PY(CallNoArgs, "PyObject_CallNoArgs");
    SW_PY(GILStateCheck, "PyGILState_Check");
    SW_PY(AddAuditHook, "PySys_AddAuditHook");
    SW_PY(EvalGetFrame, "PyEval_GetFrame");
    None = Get("_Py_NoneStruct");
#undef SW_PY
    Loaded = IsInitialized && AddPendingCall && (SetProfileAllThreads || SetProfile) && FrameGetCode && FrameGetBack &&
             FrameGetLineNumber && GetAttrString && UnicodeAsUTF8 && IncRef && DecRef && ErrClear;
    return Loaded;
  }
};
CPython Py;

// CPython's trace event kinds (Include/cpython/pystate.h; unchanged since 2.x).
constexpr int PyTraceCCall = 4, PyTraceCException = 5, PyTraceCReturn = 6;

enum class State { Unknown, NoPython, Scheduled, Installed };
std::atomic<State> Status{State::Unknown};

// Called once when a CUDA library appears in a Python process that had none at load.
std::atomic<void (*)()> OnCuda{nullptr};
void checkForCuda() {
  void (*F)() = OnCuda.load(std::memory_order_relaxed);
  if (F && cudaLibraryLoaded() && OnCuda.exchange(nullptr) == F)
    F();
}

struct CodeInfo {
  PyCodeName Name;
  bool User = false;
};
// Code object -> names. Entries hold a reference, so a pointer is never reused by another
// code object. Written under the GIL by the hook, read at report time.
std::mutex CodesLock;
std::unordered_map<const void *, CodeInfo> *Codes = new std::unordered_map<const void *, CodeInfo>;

std::string attrText(void *Obj, const char *Attr) {
  void *V = Py.GetAttrString(Obj, Attr);
  if (!V) {
    Py.ErrClear();
    return "";
  }
  const char *S = Py.UnicodeAsUTF8(V);
  std::string Out = S ? S : "";
  if (!S)
    Py.ErrClear();
  Py.DecRef(V);
  return Out;
}

// Frames of installed packages, of the standard library and of frozen modules are not the
// user's: the report collapses them (torch/nn/modules/module.py is never the answer).
bool isUserFile(const std::string &File) {
  if (File.empty() || File[0] == '<')
    return false;
  for (const char *Part : {"/site-packages/", "/dist-packages/", "/lib/python3", "/lib64/python3"})
    if (File.find(Part) != std::string::npos)
      return false;
  return true;
}

// Each Python thread keeps its own lookaside of the shared cache: the hook runs at every
// Python->C call, so the common case takes no lock.
thread_local std::unordered_map<const void *, const CodeInfo *> *LocalCodes = nullptr;

const CodeInfo &sharedCodeInfo(void *Code) {
  std::lock_guard<std::mutex> L(CodesLock);
  auto It = Codes->find(Code);
  if (It != Codes->end())
    return It->second;
  CodeInfo I;
  I.Name.File = attrText(Code, "co_filename");
  I.Name.Function = attrText(Code, "co_qualname");
  if (I.Name.Function.empty())
    I.Name.Function = attrText(Code, "co_name");
  I.User = isUserFile(I.Name.File);
  Py.IncRef(Code);
  return Codes->emplace(Code, std::move(I)).first->second;  // node-based: stays put
}

const CodeInfo &codeInfo(void *Code) {
  if (!LocalCodes)
    LocalCodes = new std::unordered_map<const void *, const CodeInfo *>;
  auto It = LocalCodes->find(Code);
  if (It != LocalCodes->end())
    return *It->second;
  const CodeInfo &I = sharedCodeInfo(Code);
  LocalCodes->emplace(Code, &I);
  return I;
}

// One active Python->C call of this thread: the user frames around it.
struct CCall {
  void *Frames[kMaxPyFrames];
  const void *Codes[kMaxPyFrames];
  int Depth = 0;
};
thread_local std::vector<CCall> *Calls = nullptr;

// How far up a c_call looks for user frames (torch's own Python layers, nn.Module's
// __call__ and _call_impl, are a few deep); each hop costs two C-API calls.
constexpr int kMaxHops = 10;

// The user frames from Frame outwards (the GIL held).
CCall userFramesFrom(void *Frame) {
  CCall C;
  void *F = Frame;
  Py.IncRef(F);
  for (int Hop = 0; F && Hop < kMaxHops && C.Depth < kMaxPyFrames; ++Hop) {
    void *Code = Py.FrameGetCode(F);
    if (Code) {
      if (codeInfo(Code).User) {
        C.Frames[C.Depth] = F;
        C.Codes[C.Depth++] = Code;
      }
      Py.DecRef(Code);  // the cache holds its own reference
    }
    void *Back = Py.FrameGetBack(F);
    Py.DecRef(F);  // an executing frame is kept alive by its interpreter frame
    F = Back;
  }
  if (F)
    Py.DecRef(F);
  return C;
}

int onPythonEvent(void *, void *Frame, int What, void *) {
  if (What == PyTraceCCall) {
    // torch's import, or `import my_cuda_ext`, loaded CUDA: start capture before this C
    // function makes its first CUDA call.
    if (OnCuda.load(std::memory_order_relaxed))
      checkForCuda();
    if (!Calls)
      Calls = new std::vector<CCall>;
    Calls->push_back(userFramesFrom(Frame));
  } else if (What == PyTraceCReturn || What == PyTraceCException) {
    if (Calls && !Calls->empty())
      Calls->pop_back();
  }
  return 0;
}

// sys.getprofile(): a profiler already installed (cProfile, torch's Python tracer) must not
// be replaced: syncwatch then goes without Python call sites and says so.
bool profilerInstalled() {
  if (!Py.ImportModule || !Py.CallNoArgs || !Py.None)
    return false;
  void *Sys = Py.ImportModule("sys");
  if (!Sys) {
    Py.ErrClear();
    return false;
  }
  void *Get = Py.GetAttrString(Sys, "getprofile");
  void *Current = Get ? Py.CallNoArgs(Get) : nullptr;
  bool Installed = Current && Current != Py.None;
  if (!Current)
    Py.ErrClear();
  if (Current)
    Py.DecRef(Current);
  if (Get)
    Py.DecRef(Get);
  Py.DecRef(Sys);
  return Installed;
}

int installHook(void *) {
  // Installing a profile function raises the audit event "sys.setprofile", and
  // profilerInstalled() imports sys: onAudit must not come back in here.
  Status = State::Scheduled;
  if (profilerInstalled()) {
    std::fprintf(stderr, "syncwatch: a Python profiler is already installed; findings get native call sites only\n");
    Status = State::NoPython;
    return 0;
  }
  if (Py.SetProfileAllThreads)
    Py.SetProfileAllThreads(onPythonEvent, nullptr);
  else
    Py.SetProfile(onPythonEvent, nullptr);
  Status = State::Installed;
  return 0;
}

// The first audit event after the interpreter is up (the main script's "open", "compile"
// or "exec", an import) installs the hook, on the thread that raised it, which holds the
// GIL: before any of the user's code runs, and without a thread of syncwatch's own.
int onAudit(const char *, void *, void *) {
  if (OnCuda.load(std::memory_order_relaxed))
    checkForCuda();
  // (SYNCWATCH_PYTHON=0: Status is NoPython from the start)
  if (Status.load(std::memory_order_relaxed) != State::Unknown || !Py.IsInitialized())
    return 0;
  installHook(nullptr);
  return 0;
}

} // namespace

void preparePythonStacks() {
  if (Status.load(std::memory_order_relaxed) != State::Unknown)
    return;
  if (!Py.load()) {
    Status = State::NoPython;
    return;
  }
  if (!Py.IsInitialized())
    return;
  State Expected = State::Unknown;
  if (Status.compare_exchange_strong(Expected, State::Scheduled) && Py.AddPendingCall(installHook, nullptr) != 0)
    Status = State::Unknown;  // the queue was full: try again later
}

void watchForPython(bool Stacks, void (*OnCudaLoaded)()) {
  static std::atomic<bool> Watching{false};
  if (Watching.exchange(true) || !Py.load()) {
    if (!Py.Loaded)
      Status = State::NoPython;
    return;
  }
  if (!Stacks)
    Status = State::NoPython;
  OnCuda = OnCudaLoaded;
  // Under LD_PRELOAD syncwatch loads before the interpreter is initialized: an audit hook
  // (PySys_AddAuditHook is documented safe before Py_Initialize) installs the profile hook
  // at the first audited event once it is up. Loaded into a running interpreter
  // (CUDA_INJECTION64_PATH at cuInit): a pending call does it at the next eval break.
  if (Py.IsInitialized()) {
    if (Stacks)
      preparePythonStacks();
  } else if (Py.AddAuditHook)
    Py.AddAuditHook(onAudit, nullptr);
}

int capturePythonFrames(PyFrameRef (&Out)[kMaxPyFrames]) {
  State St = Status.load(std::memory_order_relaxed);
  if (St == State::Installed && Calls && !Calls->empty()) {
    const CCall &C = Calls->back();
    // The frames are suspended in this very call, so their line numbers are stable; reading
    // them needs no GIL (PyFrame_GetLineNumber only decodes the code's line table).
    for (int I = 0; I < C.Depth; ++I)
      Out[I] = {C.Codes[I], Py.FrameGetLineNumber(C.Frames[I])};
    return C.Depth;
  }
  // Before the hook is in (CUDA calls made inside the Python->C call that was running when
  // it was scheduled), or on a thread it does not see: a thread that holds the GIL can walk
  // its own frames.
  if (St == State::NoPython || !Py.Loaded || !Py.GILStateCheck || !Py.EvalGetFrame || !Py.IsInitialized() ||
      !Py.GILStateCheck())
    return 0;
  void *Frame = Py.EvalGetFrame();
  if (!Frame)
    return 0;
  CCall C = userFramesFrom(Frame);
  for (int I = 0; I < C.Depth; ++I)
    Out[I] = {C.Codes[I], Py.FrameGetLineNumber(C.Frames[I])};
  return C.Depth;
}

bool pythonCodeName(const void *Code, PyCodeName &Out) {
  std::lock_guard<std::mutex> L(CodesLock);
  auto It = Codes->find(Code);
  if (It == Codes->end())
    return false;
  Out = It->second.Name;
  return true;
}

} // namespace syncwatch::runtime
