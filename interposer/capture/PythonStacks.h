// Python call sites: when the process runs CPython, each recorded CUDA call also carries the
// user's Python frames (innermost first; frames of site-packages such as torch/ and of the
// standard library collapsed), so a report says train.py:42 instead of libtorch_cuda.so.
//
// CPython is found at run time (dlsym of its public C API: no build dependency on a Python
// version). PyTorch releases the GIL inside most of its bindings, so Python cannot be asked
// for its stack at the moment a CUDA call starts. Instead a C profile hook, installed by an
// audit hook at the first audited event once the interpreter is up (that thread holds the
// GIL; Py_AddPendingCall where the interpreter was already running), sees every call
// from Python into C ("c_call") with the GIL held and notes the calling user frames on a
// per-thread stack; a CUDA call made inside that C function reads the note. The frames it
// names are executing (suspended in that call), so they stay alive until its "c_return".
// Code objects' names are read under the GIL and cached; at report time (after Python has
// finalized) nothing of Python is touched.
#pragma once

#include <cstdint>
#include <string>

namespace syncwatch::runtime {

constexpr int kMaxPyFrames = 3;

struct PyFrameRef {
  const void *Code = nullptr;  // a code object syncwatch holds a reference to
  int Line = 0;
};

// At a CUDA call: the user's Python frames of this thread's innermost active Python->C
// call, innermost first (before the hook is installed: the frames of a thread that holds
// the GIL). Returns how many were written (0 outside Python).
int capturePythonFrames(PyFrameRef (&Out)[kMaxPyFrames]);

// Where Python is present and its interpreter is up: schedules the hook's installation
// with Py_AddPendingCall (once; cheap after that).
void preparePythonStacks();

// At library load: in a Python process, installs the hook as soon as the interpreter is up
// (through an audit hook: no thread). Stacks=false (SYNCWATCH_PYTHON=0): no Python call
// sites at all. OnCudaLoaded, if given, is called once, on the thread that holds the GIL,
// at the first Python->C call or audited event after a CUDA library was loaded (the
// process had none at load: python3 before `import torch`). Once per process.
void watchForPython(bool Stacks, void (*OnCudaLoaded)() = nullptr);

struct PyCodeName {
  std::string Function, File;
};
// The names cached for a code object seen by the hook.
bool pythonCodeName(const void *Code, PyCodeName &Out);

} // namespace syncwatch::runtime
