// The CPython C API functions syncwatch calls, looked up at run time (no build dependency on
// a Python version; all exported by 3.10 to 3.13): one table for the call sites' Python
// frames and the watches (PythonStacks), torch.compile's graph hints (TorchGraphHints) and
// torch.profiler's steps (TorchProfilerSteps). Objects are void*; each user checks that the
// entries it needs were found.
#pragma once

namespace syncwatch::runtime {

struct PythonApi {
  int (*IsInitialized)() = nullptr;
  int (*AddPendingCall)(int (*)(void *), void *) = nullptr;
  void *(*ThisThreadState)() = nullptr;  // PyGILState_GetThisThreadState: no GIL needed
  int (*Addr2Line)(void *, int) = nullptr;
  int (*AddAuditHook)(int (*)(const char *, void *, void *), void *) = nullptr;
  const char *(*GetVersion)() = nullptr;
  const unsigned long *Version = nullptr;  // Py_Version (3.11+)
  const void *CodeType = nullptr;          // &PyCode_Type
  using TraceFn = int (*)(void *, void *, int, void *);
  void (*SetProfileAllThreads)(TraceFn, void *) = nullptr;  // 3.12+
  void (*SetProfile)(TraceFn, void *) = nullptr;
  void *(*ImportModule)(const char *) = nullptr;
  void *(*GetAttrString)(void *, const char *) = nullptr;
  void *(*CallNoArgs)(void *) = nullptr;
  void *(*CallMethod)(void *, const char *, const char *, ...) = nullptr;
  void *(*NewFunction)(void *Def, void *Self, void *Module) = nullptr;  // PyCFunction_NewEx
  void *(*DictNew)() = nullptr;
  int (*DictSetItemString)(void *, const char *, void *) = nullptr;
  void *(*RunString)(const char *, int, void *, void *) = nullptr;
  void *(*TupleGetItem)(void *, long) = nullptr;  // borrowed
  const char *(*Utf8)(void *) = nullptr;          // PyUnicode_AsUTF8
  const char *(*Utf8AndSize)(void *, long *) = nullptr;
  long (*AsLong)(void *) = nullptr;
  void *(*Bool)(long) = nullptr;                     // PyBool_FromLong
  void *(*BuildValue)(const char *, ...) = nullptr;  // BuildValue("") is a new reference to None
  void (*DecRef)(void *) = nullptr;
  void (*ErrClear)() = nullptr;
  void *None = nullptr;  // &_Py_NoneStruct
};

// The table, filled by loadPythonApi(); all null until then.
extern PythonApi Python;

// Looks the functions up, once, when Python is in the process (Py_IsInitialized is
// exported); true from then on. Safe from any thread.
bool loadPythonApi();

// PyMethodDef's layout (Include/methodobject.h), for a C function given to Python.
struct PythonMethodDef {
  const char *Name;
  void *(*Function)(void *Self, void *Arg);
  int Flags;
  const char *Doc;
};
constexpr int kPythonMethO = 0x0008;  // METH_O: the function gets its one argument itself

} // namespace syncwatch::runtime
