#include "PythonStacks.h"

#include "CudaPresence.h"
#include "LearnedTable.h"
#include "PythonApi.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace syncwatch::runtime {
namespace {

// The running CPython's struct layout (x86_64/aarch64 LP64, release builds), from its own
// headers (Include/cpython/pystate.h, internal/pycore_frame.h, cpython/code.h,
// cpython/unicodeobject.h of 3.10.13, 3.11.7, 3.12.1 and 3.13.0, checked with offsetof and
// a live walk; 3.13's _PyRuntime.debug_offsets gives the same numbers).
struct Layout {
  int Minor = 0;
  // PyThreadState -> innermost frame: Thread[0], then (3.11/3.12) through _PyCFrame.
  int ThreadFrame = 0, CFrameCurrent = -1;
  // The frame: code object, previous frame, instruction position, owner (-1: none).
  int FrameCode = 0, FrameBack = 0, FramePosition = 0, FrameOwner = -1;
  bool PositionIsPointer = true;  // 3.11+: a _Py_CODEUNIT*; 3.10: int f_lasti (code units)
  int CodeFilename = 0, CodeName = 0, CodeQualname = -1, CodeAdaptive = -1;
  int AsciiSize = 0, CompactSize = 0;  // sizeof(PyASCIIObject), sizeof(PyCompactUnicodeObject)
  bool StrNeedsReady = false;           // 3.10/3.11: the 'ready' bit
};

constexpr int kOwnedByCStack = 3;  // FRAME_OWNED_BY_CSTACK: 3.12+'s shim frames

bool layoutFor(int Minor, Layout &L) {
  L.Minor = Minor;
  switch (Minor) {
  case 10:
    L = {10, 24, -1, 32, 24, 96, -1, false, 104, 112, -1, -1, 48, 72, true};
    return true;
  case 11:
    L = {11, 56, 8, 32, 48, 56, 69, true, 112, 120, 128, 184, 48, 72, true};
    return true;
  case 12:
    L = {12, 56, 0, 0, 8, 56, 70, true, 112, 120, 128, 192, 40, 56, false};
    return true;
  case 13:
    L = {13, 72, -1, 0, 8, 56, 70, true, 112, 120, 128, 200, 40, 56, false};
    return true;
  default:
    return false;
  }
}

// What the call sites' Python frames need of the C API (PythonApi.h); the watches check
// their own entries where they use them.
bool haveWhatStacksNeed() {
  const PythonApi &P = Python;
  return P.IsInitialized && P.ThisThreadState && P.Addr2Line && P.GetVersion && P.CodeType;
}
Layout L;

enum class State : int { Unknown, Off, Ready };
std::atomic<State> Status{State::Unknown};
std::atomic<bool> Disabled{false};   // SYNCWATCH_PYTHON=0
char Unavailable[160] = {};          // why not, for the report

// Debug builds add two pointers to every object header, free-threaded 3.13t changes
// them: neither matches the layouts above.
bool unusualBuild() {
  return dlsym(RTLD_DEFAULT, "_Py_NegativeRefcount") || dlsym(RTLD_DEFAULT, "_Py_RefTotal") ||
         dlsym(RTLD_DEFAULT, "_Py_MergeZeroLocalRefcount");
}

int runningMinor() {
  if (Python.Version)
    return (*Python.Version >> 24) == 3 ? static_cast<int>((*Python.Version >> 16) & 0xff) : 0;
  const char *V = Python.GetVersion();  // "3.10.13 (main, ...)"
  int Major = 0, Minor = 0;
  return V && std::sscanf(V, "%d.%d", &Major, &Minor) == 2 && Major == 3 ? Minor : 0;
}

bool detect() {
  State S = Status.load(std::memory_order_acquire);
  if (S != State::Unknown)
    return S == State::Ready;
  static std::mutex M;
  std::lock_guard<std::mutex> G(M);
  if (Status.load() != State::Unknown)
    return Status.load() == State::Ready;
  State Result = State::Off;
  if (!Disabled.load() && (loadPythonApi() && haveWhatStacksNeed())) {
    int Minor = runningMinor();
    if (unusualBuild())
      std::snprintf(Unavailable, sizeof Unavailable, "a debug or free-threaded CPython build");
    else if (!layoutFor(Minor, L))
      std::snprintf(Unavailable, sizeof Unavailable, "CPython 3.%d (3.10 to 3.13 are supported)", Minor);
    else
      Result = State::Ready;
  }
  Status.store(Result, std::memory_order_release);
  return Result == State::Ready;
}

template <typename T> T field(const void *Base, int Offset) {
  T V;
  std::memcpy(&V, static_cast<const char *>(Base) + Offset, sizeof V);
  return V;
}

// This thread's innermost frame (3.10: a PyFrameObject; 3.11+: a _PyInterpreterFrame).
const void *innermostFrame() {
  void *T = Python.ThisThreadState();
  if (!T)
    return nullptr;
  const void *F = field<const void *>(T, L.ThreadFrame);
  if (L.CFrameCurrent >= 0 && F)
    F = field<const void *>(F, L.CFrameCurrent);
  return F;
}

// A frame's code object, or null for frames that are not (yet) a user-visible frame:
// 3.12+'s shim frames, a frame whose code slot is not a code object (3.13: None).
const void *codeOf(const void *Frame) {
  if (L.FrameOwner >= 0 && field<char>(Frame, L.FrameOwner) == kOwnedByCStack)
    return nullptr;
  const void *Code = field<const void *>(Frame, L.FrameCode);
  if (!Code || field<const void *>(Code, 8) != Python.CodeType)  // ob_type
    return nullptr;
  return Code;
}

// The instruction position in code units (what PyCode_Addr2Line wants, halved).
int positionOf(const void *Frame, const void *Code) {
  if (!L.PositionIsPointer)
    return field<int>(Frame, L.FramePosition);
  const char *Instr = field<const char *>(Frame, L.FramePosition);
  const char *Start = static_cast<const char *>(Code) + L.CodeAdaptive;
  return static_cast<int>((Instr - Start) / 2);
}

const void *previousFrame(const void *Frame) { return field<const void *>(Frame, L.FrameBack); }

// A compact str's text as UTF-8, read from its memory (no C API: no GIL here).
std::string strText(const void *Str) {
  if (!Str)
    return "";
  std::uint32_t State = field<std::uint32_t>(Str, 32);
  auto Length = field<std::int64_t>(Str, 16);
  bool Compact = State & 0x20, Ascii = State & 0x40;
  unsigned Kind = (State >> 2) & 7;
  if (!Compact || (L.StrNeedsReady && !(State & 0x80)) || Length < 0 || Length > 4096)
    return "";
  const char *Data = static_cast<const char *>(Str) + (Ascii ? L.AsciiSize : L.CompactSize);
  std::string Out;
  Out.reserve(static_cast<std::size_t>(Length));
  for (std::int64_t I = 0; I < Length; ++I) {
    std::uint32_t C = Kind == 1 ? static_cast<unsigned char>(Data[I])
                      : Kind == 2 ? field<std::uint16_t>(Data, static_cast<int>(2 * I))
                                  : field<std::uint32_t>(Data, static_cast<int>(4 * I));
    if (C < 0x80) {
      Out += static_cast<char>(C);
    } else if (C < 0x800) {
      Out += static_cast<char>(0xc0 | C >> 6);
      Out += static_cast<char>(0x80 | (C & 0x3f));
    } else if (C < 0x10000) {
      Out += static_cast<char>(0xe0 | C >> 12);
      Out += static_cast<char>(0x80 | (C >> 6 & 0x3f));
      Out += static_cast<char>(0x80 | (C & 0x3f));
    } else {
      Out += static_cast<char>(0xf0 | C >> 18);
      Out += static_cast<char>(0x80 | (C >> 12 & 0x3f));
      Out += static_cast<char>(0x80 | (C >> 6 & 0x3f));
      Out += static_cast<char>(0x80 | (C & 0x3f));
    }
  }
  return Out;
}

// Python that torch.compile wrote: inductor's output code (the Runner.call that launches
// a compiled graph's kernels), kept in its cache folder, /tmp/torchinductor_<user>/ unless
// TORCHINDUCTOR_CACHE_DIR moves it. Not the user's, though it is outside site-packages.
bool isTorchGeneratedFile(const std::string &File) {
  if (File.find("/torchinductor_") != std::string::npos)
    return true;
  const char *Cache = std::getenv("TORCHINDUCTOR_CACHE_DIR");
  std::size_t N = Cache ? std::strlen(Cache) : 0;
  return N > 1 && File.compare(0, N, Cache) == 0 && (File.size() == N || File[N] == '/' || Cache[N - 1] == '/');
}

// Frames of installed packages, of the standard library and of frozen modules are not the
// user's: the report collapses them (torch/nn/modules/module.py is never the answer).
bool isUserFile(const std::string &File) {
  if (File.empty() || File[0] == '<' || isTorchGeneratedFile(File))
    return false;
  for (const char *Part : {"/site-packages/", "/dist-packages/", "/lib/python3", "/lib64/python3"})
    if (File.find(Part) != std::string::npos)
      return false;
  return true;
}

// torch.compile's machinery between a compiled function's caller and its kernels: dynamo,
// AOT autograd's runtime wrappers, inductor and its generated code.
bool isCompileMachineryFile(const std::string &File) {
  if (isTorchGeneratedFile(File))
    return true;
  for (const char *Part : {"/torch/_dynamo/", "/torch/_functorch/", "/torch/_inductor/"})
    if (File.find(Part) != std::string::npos)
      return true;
  return false;
}

// Code object -> class (1 | 2 if the user's | 4 if torch.compile's machinery), read by the
// fast path; names for the report.
// A code object stays alive while it executes; one freed later and whose address is reused
// by another code object keeps the first one's class and names (a limit: no reference is
// taken, since reference counts may not be touched without the GIL).
LearnedTable<14> CodeClass;
std::mutex CodesLock;  // trivially destructible in libstdc++
std::unordered_map<const void *, PyCodeName> *Codes = new std::unordered_map<const void *, PyCodeName>;

constexpr std::uint64_t kUserCode = 2, kCompileMachinery = 4;

std::uint64_t learnCode(const void *Code) {
  std::lock_guard<std::mutex> G(CodesLock);
  std::uint64_t Known = 0;
  if (CodeClass.find(reinterpret_cast<std::uintptr_t>(Code), Known))
    return Known;
  PyCodeName N;
  N.File = strText(field<const void *>(Code, L.CodeFilename));
  N.Function = strText(field<const void *>(Code, L.CodeQualname >= 0 ? L.CodeQualname : L.CodeName));
  std::uint64_t Class = 1 | (isUserFile(N.File) ? kUserCode : 0) |
                        (isCompileMachineryFile(N.File) ? kCompileMachinery : 0);
  (*Codes)[Code] = std::move(N);
  CodeClass.insert(reinterpret_cast<std::uintptr_t>(Code), Class);
  return Class;
}

// The frame of a torch.compile'd function itself: dynamo runs its transformed code in the
// function's frame, which calls the compiled graph "at" the function's first line (the def,
// or its decorator). The user's line is where the function was called, one user frame out.
// Told apart from a one-line function that calls into torch by what it called: compile
// machinery (torch/_dynamo, _functorch, _inductor or inductor's generated code). Rare (the
// frame inside is machinery), so the line-table decoding stays off the common path.
bool isCompiledFunctionFrame(const void *Code, int Position, bool InnerIsMachinery) {
  if (!InnerIsMachinery)
    return false;
  void *C = const_cast<void *>(Code);
  return Position >= 0 && Python.Addr2Line(C, Position * 2) == Python.Addr2Line(C, -1);
}

// How far out a call looks for user frames (torch's own Python layers, nn.Module's
// __call__ and _call_impl, are a few deep).
constexpr int kMaxHops = 32;

// Called once when a CUDA library appears in a Python process that had none at load.
std::atomic<void (*)()> OnCuda{nullptr};
void checkForCuda() {
  void (*F)() = OnCuda.load(std::memory_order_relaxed);
  if (F && cudaLibraryLoaded() && OnCuda.exchange(nullptr) == F)
    F();
}

// A C extension that links CUDA (`import my_cuda_ext`) can make its first CUDA call in the
// very next Python->C call, with no audited event in between. So until CUDA is loaded, a
// profile hook sees Python->C calls and checks for it; it removes itself when CUDA is
// there (or when syncwatch starts without it). Nothing of it remains in a CUDA program.
constexpr int PyTraceCCall = 4;
std::atomic<int> Watch{0};  // 0 not installed, 1 installed, 2 removed / never to be installed
std::atomic<bool> Hooked{false};  // the audit hook is on (it cannot be taken off)

void removeWatch() {
  if (Watch.exchange(2) != 1)
    return;
  if (Python.SetProfileAllThreads)
    Python.SetProfileAllThreads(nullptr, nullptr);
  else if (Python.SetProfile)
    Python.SetProfile(nullptr, nullptr);
}

int onPythonCall(void *, void *, int What, void *) {
  if (What == PyTraceCCall && OnCuda.load(std::memory_order_relaxed)) {
    checkForCuda();
    if (!OnCuda.load(std::memory_order_relaxed))
      removeWatch();
  }
  return 0;
}

// sys.getprofile(): a profiler the user installed (cProfile, torch's Python tracer) is never
// replaced; CUDA is then noticed at audited events only.
bool profilerInstalled() {
  if (!Python.ImportModule || !Python.GetAttrString || !Python.CallNoArgs || !Python.DecRef || !Python.ErrClear || !Python.None)
    return true;
  void *Sys = Python.ImportModule("sys");
  if (!Sys) {
    Python.ErrClear();
    return true;
  }
  void *Get = Python.GetAttrString(Sys, "getprofile");
  void *Current = Get ? Python.CallNoArgs(Get) : nullptr;
  bool Installed = !Current || Current != Python.None;
  if (!Current)
    Python.ErrClear();
  if (Current)
    Python.DecRef(Current);
  if (Get)
    Python.DecRef(Get);
  Python.DecRef(Sys);
  return Installed;
}

// watchPythonImports' listeners, each told of each audited import by module name (torch's
// CUDA-graph hints and torch.profiler's steps: a fixed few, set once each at load).
constexpr std::size_t kMaxImportListeners = 4;
std::atomic<void (*)(const char *)> OnImport[kMaxImportListeners];

void tellImport(void *Args) {
  if (!OnImport[0].load(std::memory_order_relaxed) || !Args || !Python.TupleGetItem || !Python.Utf8 || !Python.ErrClear)
    return;
  void *Module = Python.TupleGetItem(Args, 0);  // ("name", filename, path, meta_path, path_hooks)
  const char *Name = Module ? Python.Utf8(Module) : nullptr;
  if (!Name) {
    Python.ErrClear();
    return;
  }
  for (auto &Listener : OnImport)
    if (void (*F)(const char *) = Listener.load(std::memory_order_relaxed))
      F(Name);
}

int onAudit(const char *Event, void *Args, void *) {
  if (Event && Event[0] == 'i' && std::strcmp(Event, "import") == 0)
    tellImport(Args);
  if (!OnCuda.load(std::memory_order_relaxed))
    return 0;
  checkForCuda();
  if (!OnCuda.load(std::memory_order_relaxed)) {
    removeWatch();
    return 0;
  }
  // The first audited event once the interpreter is up (this thread holds the GIL).
  int Expected = 0;
  if (Python.IsInitialized() && Watch.compare_exchange_strong(Expected, 3)) {
    // (installing a profile function raises "sys.setprofile": 3 keeps us from recursing)
    if (!profilerInstalled() && (Python.SetProfileAllThreads || Python.SetProfile)) {
      if (Python.SetProfileAllThreads)
        Python.SetProfileAllThreads(onPythonCall, nullptr);
      else
        Python.SetProfile(onPythonCall, nullptr);
      Watch.store(1);
    } else {
      Watch.store(2);
    }
  }
  return 0;
}

} // namespace

bool preparePythonStacks() { return detect(); }

PySite currentPythonSite(PySiteKey &Key) {
  if (Status.load(std::memory_order_relaxed) != State::Ready && !detect())
    return PySite::None;
  const void *F = innermostFrame();
  bool InnerIsMachinery = false;
  for (int Hop = 0; F && Hop < kMaxHops; ++Hop, F = previousFrame(F)) {
    const void *Code = codeOf(F);
    if (!Code)
      continue;
    std::uint64_t Class = 0;
    if (!CodeClass.find(reinterpret_cast<std::uintptr_t>(Code), Class))
      return PySite::Unlearned;
    int Position = (Class & kUserCode) ? positionOf(F, Code) : 0;
    if ((Class & kUserCode) && !isCompiledFunctionFrame(Code, Position, InnerIsMachinery)) {
      Key = {Code, Position};
      return PySite::Found;
    }
    InnerIsMachinery = Class & kCompileMachinery;
  }
  return PySite::None;
}

int capturePythonFrames(PyFrameRef (&Out)[kMaxPyFrames]) {
  if (!detect())
    return 0;
  int N = 0;
  const void *F = innermostFrame();
  bool InnerIsMachinery = false;
  for (int Hop = 0; F && Hop < kMaxHops && N < kMaxPyFrames; ++Hop, F = previousFrame(F)) {
    const void *Code = codeOf(F);
    if (!Code)
      continue;
    std::uint64_t Class = learnCode(Code);
    bool Machinery = InnerIsMachinery;
    InnerIsMachinery = Class & kCompileMachinery;
    if (!(Class & kUserCode))
      continue;
    int Position = positionOf(F, Code);
    if (N == 0 && isCompiledFunctionFrame(Code, Position, Machinery))
      continue;  // (its caller is the line; the frame stays out of the stack too)
    // PyCode_Addr2Line only decodes the code's line table (no allocation, no GIL needed);
    // a frame that has not started gives its first line.
    Out[N++] = {Code, Python.Addr2Line(const_cast<void *>(Code), Position < 0 ? -1 : Position * 2)};
  }
  return N;
}

void watchForPython(bool Stacks, void (*OnCudaLoaded)()) {
  static std::atomic<bool> Watching{false};
  if (Watching.exchange(true) || !(loadPythonApi() && haveWhatStacksNeed()))
    return;
  if (!Stacks)
    Disabled.store(true);
  OnCuda = OnCudaLoaded;
  // Under LD_PRELOAD syncwatch loads before the interpreter is initialized: an audit hook
  // (PySys_AddAuditHook is documented safe before Py_Initialize) is told of every import
  // and open, and so of the one that loaded CUDA. Loaded into a running interpreter
  // (CUDA_INJECTION64_PATH at cuInit), CUDA is there already.
  if (OnCudaLoaded && !Python.IsInitialized() && Python.AddAuditHook)
    Hooked.store(Python.AddAuditHook(onAudit, nullptr) == 0);
}

bool watchPythonImports(void (*Listener)(const char *Module)) {
  for (auto &Slot : OnImport) {
    void (*Free)(const char *) = nullptr;
    if (Slot.compare_exchange_strong(Free, Listener) || Free == Listener)
      return Hooked.load();
  }
  return false;  // (more listeners than kMaxImportListeners: a programming error)
}

bool pythonCodeName(const void *Code, PyCodeName &Out) {
  std::lock_guard<std::mutex> G(CodesLock);
  auto It = Codes->find(Code);
  if (It == Codes->end())
    return false;
  Out = It->second;
  return true;
}

std::string pythonStacksUnavailable() {
  if (Status.load() != State::Off || Disabled.load())
    return "";
  return Unavailable;
}

} // namespace syncwatch::runtime
