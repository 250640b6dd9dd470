// What a native frame is, by its module and its function's name: the CUDA stack syncwatch
// sits in, other vendors' code, or the user's program. Shared by the slow path that learns
// site keys (SiteKeys.cpp) and the report-time symbolizer (CallSites.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace syncwatch::runtime {

// The real path of a module as dladdr names it (the main program by /proc/self/exe).
const char *modulePath(const char *DladdrName, const void *DladdrBase);

// The module an address is in: its real path (as modulePath gives it) and dladdr's base.
// dladdr itself scans the module's whole dynamic symbol table for the nearest symbol - about
// 0.1 ms an address in libtorch_cuda.so, which made a PyTorch site's first occurrence cost
// 170 us - so modules are found with glibc's _dl_find_object (2.35+, a binary search) and
// dladdr is asked once per module. Thread-safe.
struct LoadedModule {
  const char *Path = nullptr;
  const void *Base = nullptr;
};
bool moduleAt(std::uintptr_t Address, LoadedModule &Out);

// libsyncwatch, CUPTI, the CUDA runtime and driver: the frames between syncwatch's
// callback and the code that called CUDA.
bool isCudaModule(const char *Path);
// Those, and the C/C++ runtimes, PyTorch, cuBLAS, cuDNN, NCCL, libpython: frames that are
// never the user's call site.
bool isVendorModule(const char *Path);

// Static cudart lives inside the executable, and cuda_runtime.h's templates
// (cudaLaunchKernel<T>) are compiled into the user's objects: their frames are vendor frames.
bool isVendorName(const std::string &Function);
// cuda_runtime.h's templates (cudaMalloc<T>) inlined into the user's function; PyTorch's and
// pybind11's headers inlined into an extension.
bool isVendorHeader(const std::string &File);
// nvcc's generated launch code (<unit>.cudafe1.stub.c, written to a temporary directory and
// included into the host translation): inlined into the line that launched the kernel.
bool isKernelStubFile(const std::string &File);
// "__device_stub__Z4spinx(long long)" -> "spin": the kernel whose host wrapper comes next.
std::string kernelOfStub(const std::string &Stub);

} // namespace syncwatch::runtime
