#include "PythonApi.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

namespace syncwatch::runtime {

PythonApi Python;

namespace {

void fill(PythonApi &P) {
  auto Get = [](const char *Name) { return ::dlsym(RTLD_DEFAULT, Name); };
#define SW_PY(Field, Name) P.Field = reinterpret_cast<decltype(P.Field)>(Get(Name))
  SW_PY(IsInitialized, "Py_IsInitialized");
  SW_PY(AddPendingCall, "Py_AddPendingCall");
  SW_PY(ThisThreadState, "PyGILState_GetThisThreadState");
  SW_PY(Addr2Line, "PyCode_Addr2Line");
  SW_PY(AddAuditHook, "PySys_AddAuditHook");
  SW_PY(GetVersion, "Py_GetVersion");
  SW_PY(Version, "Py_Version");
  SW_PY(CodeType, "PyCode_Type");
  SW_PY(SetProfileAllThreads, "PyEval_SetProfileAllThreads");
  SW_PY(SetProfile, "PyEval_SetProfile");
  SW_PY(ImportModule, "PyImport_ImportModule");
  SW_PY(GetAttrString, "PyObject_GetAttrString");
  SW_PY(CallNoArgs, "PyObject_CallNoArgs");
  SW_PY(CallMethod, "PyObject_CallMethod");
  SW_PY(NewFunction, "PyCFunction_NewEx");
  SW_PY(DictNew, "PyDict_New");
  SW_PY(DictSetItemString, "PyDict_SetItemString");
  SW_PY(RunString, "PyRun_String");
  SW_PY(TupleGetItem, "PyTuple_GetItem");
  SW_PY(Utf8, "PyUnicode_AsUTF8");
  SW_PY(Utf8AndSize, "PyUnicode_AsUTF8AndSize");
  SW_PY(AsLong, "PyLong_AsLong");
  SW_PY(Bool, "PyBool_FromLong");
  SW_PY(BuildValue, "Py_BuildValue");
  SW_PY(DecRef, "Py_DecRef");
  SW_PY(ErrClear, "PyErr_Clear");
  SW_PY(None, "_Py_NoneStruct");
#undef SW_PY
}

} // namespace

bool loadPythonApi() {
  static std::atomic<bool> Loaded{false};
  if (Loaded.load(std::memory_order_acquire))
    return true;
  // (a C++ program may load libpython later: looked for again until it is there)
  if (!::dlsym(RTLD_DEFAULT, "Py_IsInitialized"))
    return false;
  static std::once_flag Once;
  std::call_once(Once, [] {
    fill(Python);
    Loaded.store(true, std::memory_order_release);
  });
  return true;
}

} // namespace syncwatch::runtime
