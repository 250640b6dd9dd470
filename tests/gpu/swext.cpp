// A C++ extension module as users write them (no PyTorch): Python calls roundtrip(), which
// copies pageable host memory with cudaMemcpyAsync and synchronizes its stream each time.
#include <Python.h>
#include <cuda_runtime.h>

#include <vector>

static PyObject *roundtrip(PyObject *, PyObject *Args) {
  int Times = 0;
  if (!PyArg_ParseTuple(Args, "i", &Times))
    return nullptr;
  const size_t Bytes = 16u << 20;
  std::vector<char> Host(Bytes, 1);
  char *Dev = nullptr;
  cudaStream_t S;
  cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
  cudaMalloc(&Dev, Bytes);
  Py_BEGIN_ALLOW_THREADS  // as PyTorch's bindings do: CUDA runs without the GIL
  for (int I = 0; I < Times; ++I) {
    cudaMemcpyAsync(Dev, Host.data(), Bytes, cudaMemcpyHostToDevice, S);  // EXT-COPY
    cudaStreamSynchronize(S);
  }
  Py_END_ALLOW_THREADS
  cudaFree(Dev);
  cudaStreamDestroy(S);
  return PyLong_FromLong(Times);
}

static PyMethodDef Methods[] = {{"roundtrip", roundtrip, METH_VARARGS, "pageable copies"}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef Module = {PyModuleDef_HEAD_INIT, "swext", nullptr, -1, Methods};
PyMODINIT_FUNC PyInit_swext() { return PyModule_Create(&Module); }
