// A stand-in for a CUDA call inside a Python process, for tests/runtime/python_stacks_test.py: the
// test loads it with ctypes and calls it the way PyTorch's bindings call CUDA (from C,
// inside a call from Python). It reports the Python frames libsyncwatch would attach.
#include "../../interposer/sites/PythonStacks.h"
#include "../../interposer/sites/TorchGraphHints.h"
#include "../../interposer/sites/TorchProfilerSteps.h"

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" __attribute__((visibility("default"))) int syncwatch_probe(char *Buf, int Len) {
  using namespace syncwatch::runtime;
  preparePythonStacks();
  PyFrameRef Frames[kMaxPyFrames];
  int N = capturePythonFrames(Frames);
  std::string Out;
  for (int I = 0; I < N; ++I) {
    PyCodeName Name;
    if (!pythonCodeName(Frames[I].Code, Name))
      Name.Function = "?";
    Out += Name.File + ":" + std::to_string(Frames[I].Line) + ":" + Name.Function + ";";
  }
  std::snprintf(Buf, static_cast<std::size_t>(Len), "%s", Out.c_str());
  return N;
}

// Preloaded (LD_PRELOAD=this module, SYNCWATCH_PROBE_PRELOAD=1), it starts the way
// libsyncwatch.so does in a Python process: before the interpreter is initialized, asking
// to be told when a CUDA library is loaded (libsyncwatch.so starts CUPTI then).
static int CudaStartedAt = 0;  // 1 once the watch said a CUDA library was loaded
// torch.compile's CUDA-graph hints heard (TorchGraphHints.h), each as
// "skip|other <message> @ <the Python frames a CUDA call there would get>\n".
static std::string Hints;
static bool HintsFollowed = false;
extern "C" __attribute__((visibility("default"))) int syncwatch_probe_hints(char *Buf, int Len) {
  std::snprintf(Buf, static_cast<std::size_t>(Len), "%s", Hints.c_str());
  return HintsFollowed;
}
static void onHint(syncwatch::runtime::TorchGraphHint Kind, std::string_view Message) {
  char Frames[1024];
  syncwatch_probe(Frames, sizeof Frames);
  Hints += Kind == syncwatch::runtime::TorchGraphHint::Skipped ? "skip " : "other ";
  Hints += std::string(Message) + " @ " + Frames + "\n";
}
// torch.profiler's step marks heard (TorchProfilerSteps.h), each as "next|end @ <frames>\n".
static std::string Marks;
static bool MarksFollowed = false;
extern "C" __attribute__((visibility("default"))) int syncwatch_probe_marks(char *Buf, int Len) {
  std::snprintf(Buf, static_cast<std::size_t>(Len), "%s", Marks.c_str());
  return MarksFollowed;
}
static void onMark(syncwatch::runtime::ProfilerStepMark Mark) {
  char Frames[1024];
  syncwatch_probe(Frames, sizeof Frames);
  Marks += Mark == syncwatch::runtime::ProfilerStepMark::Next ? "next @ " : "end @ ";
  Marks += std::string(Frames) + "\n";
}
extern "C" __attribute__((visibility("default"))) int syncwatch_cuda_started() { return CudaStartedAt; }
__attribute__((constructor)) static void startLikeThePreloadedLibrary() {
  if (const char *P = std::getenv("SYNCWATCH_PROBE_PRELOAD"); P && *P == '1') {
    syncwatch::runtime::watchForPython(true, [] { CudaStartedAt = 1; });
    HintsFollowed = syncwatch::runtime::followTorchGraphHints(onHint);
    if (const char *Steps = std::getenv("SYNCWATCH_PROBE_PROFILER"); Steps && *Steps == '1')
      MarksFollowed = syncwatch::runtime::followTorchProfilerSteps(onMark);
  }
}
