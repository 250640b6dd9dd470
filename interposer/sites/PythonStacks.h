// Python call sites: when the process runs CPython, each recorded CUDA call also carries the
// user's Python frames (innermost first; frames of site-packages such as torch/ and of the
// standard library collapsed), so a report says train.py:42 instead of libtorch_cuda.so.
//
// PyTorch releases the GIL inside most of its bindings, so Python cannot be asked for its
// stack when a CUDA call starts, and a profile hook that notes the frames at every Python->C
// call costs every call of the program (+23% on a PyTorch training step on the H200). So
// the frames are read the way out-of-process samplers (py-spy, austin) read them, but from
// inside: the calling thread's own PyThreadState (PyGILState_GetThisThreadState, which
// needs no GIL) -> its innermost interpreter frame -> code object and instruction offset,
// at the struct offsets of the running CPython (3.10 to 3.13, release builds; any other
// version or build gets no Python call sites and one line saying so). The thread is inside
// a C call made from those frames, so they are alive and do not move while it reads them;
// no reference count is touched. Code objects' names are read from their str objects'
// memory at a site's first occurrence and cached; at report time (after Python has
// finalized) nothing of Python is touched.
#pragma once

#include <cstdint>
#include <string>

namespace syncwatch::runtime {

constexpr int kMaxPyFrames = 3;

struct PyFrameRef {
  const void *Code = nullptr;  // a code object seen executing (named in the cache)
  int Line = 0;
};

// The fast part of a site key: the thread's innermost user frame, as (code object,
// instruction offset). No lock, no allocation, no GIL.
struct PySiteKey {
  const void *Code = nullptr;
  int Offset = 0;
};
enum class PySite {
  None,      // no Python frame on this thread (or no Python call sites in this process)
  Found,     // Key is the innermost user frame
  Unlearned  // a frame's code object is not classified yet: capturePythonFrames learns it
};
PySite currentPythonSite(PySiteKey &Key);

// At a site's first occurrence: the user's Python frames of this thread, innermost first,
// classifying and naming the code objects met (the slow path). Returns how many were
// written (0 outside Python).
int capturePythonFrames(PyFrameRef (&Out)[kMaxPyFrames]);

// Reads the running CPython's version and checks that its layout is one syncwatch knows
// (once; cheap after that). False outside Python or for an unknown version or build.
bool preparePythonStacks();

// At library load: in a Python process, watches for a CUDA library to be loaded through
// an audit hook (no thread). Stacks=false (SYNCWATCH_PYTHON=0): no Python call sites at all.
// OnCudaLoaded, if given, is called once, on the thread that holds the GIL, at the first
// audited event (an import, an open) after a CUDA library was loaded (the process had none
// at load: python3 before `import torch`). Once per process.
void watchForPython(bool Stacks, void (*OnCudaLoaded)() = nullptr);

// Tells Listener the name of every module the interpreter imports from now on (as its audited
// "import" event, on the importing thread, with the GIL held: Listener may not import or run
// Python itself - it can ask for a pending call). Rides on the audit hook that watchForPython
// installs under LD_PRELOAD; false when there is none (loaded into a running interpreter, or
// not Python): Listener is then never called. Several listeners may watch (a few).
bool watchPythonImports(void (*Listener)(const char *Module));

struct PyCodeName {
  std::string Function, File;
};
// The names cached for a code object seen at a site's first occurrence.
bool pythonCodeName(const void *Code, PyCodeName &Out);

// Why Python call sites are off in this Python process ("" when they are on, or outside
// Python): said once in the report's summary.
std::string pythonStacksUnavailable();

} // namespace syncwatch::runtime
