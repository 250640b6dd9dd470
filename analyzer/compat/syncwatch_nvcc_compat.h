// syncwatch_nvcc_compat.h: what nvcc gives host code implicitly and clang's CUDA mode does
// not. syncwatch-lint (and syncwatch-clang-tidy) pre-include it, after clang's
// __clang_cuda_runtime_wrapper.h, into every CUDA file whose compile command was nvcc's.
// Each item names the construct that needed it; docs/nvcc-compat.md lists them with tests
// (test_inputs/nvcc_compat/). A system header: nothing here is ever reported.
#pragma clang system_header
#ifndef SYNCWATCH_NVCC_COMPAT_H
#define SYNCWATCH_NVCC_COMPAT_H

// 1. `#if __CUDACC__`: nvcc defines __CUDACC__ as 1 (-D__CUDACC__); clang's runtime wrapper
//    leaves it defined empty, and `#if` on an empty macro does not parse.
#undef __CUDACC__
#define __CUDACC__ 1

// 2. `clock()`, `time()`, `CLOCKS_PER_SEC`, `isnan(x)`, `isinf(x)` without an #include:
//    nvcc's implicit cuda_runtime.h reaches <time.h> (crt/common_functions.h) and <math.h>
//    (crt/math_functions.h); clang's wrapper includes <cmath> and <string.h> only.
#include <math.h>
#include <time.h>

// 3. `max(a, b)` / `min(a, b)` / `umin` ... in host code: CUDA's crt/math_functions.h
//    declares these overloads __host__ __device__ for nvcc; clang's wrapper provides the
//    __device__ ones only. The same overload set, so host calls resolve as under nvcc.
static inline __host__ int min(const int a, const int b) { return static_cast<int>(a) < static_cast<int>(b) ? static_cast<int>(a) : static_cast<int>(b); }
static inline __host__ unsigned int min(const unsigned int a, const unsigned int b) { return static_cast<unsigned int>(a) < static_cast<unsigned int>(b) ? static_cast<unsigned int>(a) : static_cast<unsigned int>(b); }
static inline __host__ unsigned int min(const int a, const unsigned int b) { return static_cast<unsigned int>(a) < static_cast<unsigned int>(b) ? static_cast<unsigned int>(a) : static_cast<unsigned int>(b); }
static inline __host__ unsigned int min(const unsigned int a, const int b) { return static_cast<unsigned int>(a) < static_cast<unsigned int>(b) ? static_cast<unsigned int>(a) : static_cast<unsigned int>(b); }
static inline __host__ long int min(const long int a, const long int b) { return static_cast<long int>(a) < static_cast<long int>(b) ? static_cast<long int>(a) : static_cast<long int>(b); }
static inline __host__ unsigned long int min(const unsigned long int a, const unsigned long int b) { return static_cast<unsigned long int>(a) < static_cast<unsigned long int>(b) ? static_cast<unsigned long int>(a) : static_cast<unsigned long int>(b); }
static inline __host__ unsigned long int min(const long int a, const unsigned long int b) { return static_cast<unsigned long int>(a) < static_cast<unsigned long int>(b) ? static_cast<unsigned long int>(a) : static_cast<unsigned long int>(b); }
static inline __host__ unsigned long int min(const unsigned long int a, const long int b) { return static_cast<unsigned long int>(a) < static_cast<unsigned long int>(b) ? static_cast<unsigned long int>(a) : static_cast<unsigned long int>(b); }
static inline __host__ long long int min(const long long int a, const long long int b) { return static_cast<long long int>(a) < static_cast<long long int>(b) ? static_cast<long long int>(a) : static_cast<long long int>(b); }
static inline __host__ unsigned long long int min(const unsigned long long int a, const unsigned long long int b) { return static_cast<unsigned long long int>(a) < static_cast<unsigned long long int>(b) ? static_cast<unsigned long long int>(a) : static_cast<unsigned long long int>(b); }
static inline __host__ unsigned long long int min(const long long int a, const unsigned long long int b) { return static_cast<unsigned long long int>(a) < static_cast<unsigned long long int>(b) ? static_cast<unsigned long long int>(a) : static_cast<unsigned long long int>(b); }
static inline __host__ unsigned long long int min(const unsigned long long int a, const long long int b) { return static_cast<unsigned long long int>(a) < static_cast<unsigned long long int>(b) ? static_cast<unsigned long long int>(a) : static_cast<unsigned long long int>(b); }
static inline __host__ float min(const float a, const float b) { return static_cast<float>(a) < static_cast<float>(b) ? static_cast<float>(a) : static_cast<float>(b); }
static inline __host__ double min(const double a, const double b) { return static_cast<double>(a) < static_cast<double>(b) ? static_cast<double>(a) : static_cast<double>(b); }
static inline __host__ double min(const float a, const double b) { return static_cast<double>(a) < static_cast<double>(b) ? static_cast<double>(a) : static_cast<double>(b); }
static inline __host__ double min(const double a, const float b) { return static_cast<double>(a) < static_cast<double>(b) ? static_cast<double>(a) : static_cast<double>(b); }
static inline __host__ int max(const int a, const int b) { return static_cast<int>(a) > static_cast<int>(b) ? static_cast<int>(a) : static_cast<int>(b); }
static inline __host__ unsigned int max(const unsigned int a, const unsigned int b) { return static_cast<unsigned int>(a) > static_cast<unsigned int>(b) ? static_cast<unsigned int>(a) : static_cast<unsigned int>(b); }
static inline __host__ unsigned int max(const int a, const unsigned int b) { return static_cast<unsigned int>(a) > static_cast<unsigned int>(b) ? static_cast<unsigned int>(a) : static_cast<unsigned int>(b); }
static inline __host__ unsigned int max(const unsigned int a, const int b) { return static_cast<unsigned int>(a) > static_cast<unsigned int>(b) ? static_cast<unsigned int>(a) : static_cast<unsigned int>(b); }
static inline __host__ long int max(const long int a, const long int b) { return static_cast<long int>(a) > static_cast<long int>(b) ? static_cast<long int>(a) : static_cast<long int>(b); }
static inline __host__ unsigned long int max(const unsigned long int a, const unsigned long int b) { return static_cast<unsigned long int>(a) > static_cast<unsigned long int>(b) ? static_cast<unsigned long int>(a) : static_cast<unsigned long int>(b); }
static inline __host__ unsigned long int max(const long int a, const unsigned long int b) { return static_cast<unsigned long int>(a) > static_cast<unsigned long int>(b) ? static_cast<unsigned long int>(a) : static_cast<unsigned long int>(b); }
static inline __host__ unsigned long int max(const unsigned long int a, const long int b) { return static_cast<unsigned long int>(a) > static_cast<unsigned long int>(b) ? static_cast<unsigned long int>(a) : static_cast<unsigned long int>(b); }
static inline __host__ long long int max(const long long int a, const long long int b) { return static_cast<long long int>(a) > static_cast<long long int>(b) ? static_cast<long long int>(a) : static_cast<long long int>(b); }
static inline __host__ unsigned long long int max(const unsigned long long int a, const unsigned long long int b) { return static_cast<unsigned long long int>(a) > static_cast<unsigned long long int>(b) ? static_cast<unsigned long long int>(a) : static_cast<unsigned long long int>(b); }
static inline __host__ unsigned long long int max(const long long int a, const unsigned long long int b) { return static_cast<unsigned long long int>(a) > static_cast<unsigned long long int>(b) ? static_cast<unsigned long long int>(a) : static_cast<unsigned long long int>(b); }
static inline __host__ unsigned long long int max(const unsigned long long int a, const long long int b) { return static_cast<unsigned long long int>(a) > static_cast<unsigned long long int>(b) ? static_cast<unsigned long long int>(a) : static_cast<unsigned long long int>(b); }
static inline __host__ float max(const float a, const float b) { return static_cast<float>(a) > static_cast<float>(b) ? static_cast<float>(a) : static_cast<float>(b); }
static inline __host__ double max(const double a, const double b) { return static_cast<double>(a) > static_cast<double>(b) ? static_cast<double>(a) : static_cast<double>(b); }
static inline __host__ double max(const float a, const double b) { return static_cast<double>(a) > static_cast<double>(b) ? static_cast<double>(a) : static_cast<double>(b); }
static inline __host__ double max(const double a, const float b) { return static_cast<double>(a) > static_cast<double>(b) ? static_cast<double>(a) : static_cast<double>(b); }
static inline __host__ unsigned int umin(const unsigned int a, const unsigned int b) { return a < b ? a : b; }
static inline __host__ unsigned int umax(const unsigned int a, const unsigned int b) { return a > b ? a : b; }
static inline __host__ long long int llmin(const long long int a, const long long int b) { return a < b ? a : b; }
static inline __host__ long long int llmax(const long long int a, const long long int b) { return a > b ? a : b; }
static inline __host__ unsigned long long int ullmin(const unsigned long long int a, const unsigned long long int b) { return a < b ? a : b; }
static inline __host__ unsigned long long int ullmax(const unsigned long long int a, const unsigned long long int b) { return a > b ? a : b; }

// 4. `__nv_is_extended_device_lambda_closure_type(T)` and friends: nvcc built-ins (with
//    --extended-lambda) that code asserts on. clang has no such trait; for host-side
//    analysis every closure type counts as one.
#ifndef __nv_is_extended_device_lambda_closure_type
#define __nv_is_extended_device_lambda_closure_type(...) true
#endif
#ifndef __nv_is_extended_host_device_lambda_closure_type
#define __nv_is_extended_host_device_lambda_closure_type(...) true
#endif
#ifndef __nv_is_extended_device_lambda_with_preserved_return_type
#define __nv_is_extended_device_lambda_with_preserved_return_type(...) true
#endif

// 5. `__ldcs(p)` / `__stcs(p, v)` and the other cache-hinted loads and stores (__ldcg,
//    __ldca, __ldlu, __ldcv, __stcg, __stwb, __stwt) on built-in and vector types, as in
//    llm.c's Packed128: CUDA's sm_32_intrinsics.h declares them for nvcc's host pass too;
//    clang defines them only when compiling for the device, and the host pass then finds
//    only cuda_fp16/cuda_bf16's overloads ("no matching function for call to '__stcs'").
//    Declarations suffice: device code is parsed, never run, on the host side.
#if !defined(__CUDA_ARCH__)
#define SYNCWATCH_CACHE_HINTS(T)                                                      \
  __device__ T __ldcs(const T *); __device__ T __ldcg(const T *);                      \
  __device__ T __ldca(const T *); __device__ T __ldlu(const T *);                      \
  __device__ T __ldcv(const T *); __device__ void __stcs(T *, T);                      \
  __device__ void __stcg(T *, T); __device__ void __stwb(T *, T);                      \
  __device__ void __stwt(T *, T);
SYNCWATCH_CACHE_HINTS(char)
SYNCWATCH_CACHE_HINTS(signed char)
SYNCWATCH_CACHE_HINTS(short)
SYNCWATCH_CACHE_HINTS(int)
SYNCWATCH_CACHE_HINTS(long)
SYNCWATCH_CACHE_HINTS(long long)
SYNCWATCH_CACHE_HINTS(unsigned char)
SYNCWATCH_CACHE_HINTS(unsigned short)
SYNCWATCH_CACHE_HINTS(unsigned int)
SYNCWATCH_CACHE_HINTS(unsigned long)
SYNCWATCH_CACHE_HINTS(unsigned long long)
SYNCWATCH_CACHE_HINTS(float)
SYNCWATCH_CACHE_HINTS(double)
SYNCWATCH_CACHE_HINTS(char2)
SYNCWATCH_CACHE_HINTS(char4)
SYNCWATCH_CACHE_HINTS(short2)
SYNCWATCH_CACHE_HINTS(short4)
SYNCWATCH_CACHE_HINTS(int2)
SYNCWATCH_CACHE_HINTS(int4)
SYNCWATCH_CACHE_HINTS(longlong2)
SYNCWATCH_CACHE_HINTS(uchar2)
SYNCWATCH_CACHE_HINTS(uchar4)
SYNCWATCH_CACHE_HINTS(ushort2)
SYNCWATCH_CACHE_HINTS(ushort4)
SYNCWATCH_CACHE_HINTS(uint2)
SYNCWATCH_CACHE_HINTS(uint4)
SYNCWATCH_CACHE_HINTS(ulonglong2)
SYNCWATCH_CACHE_HINTS(float2)
SYNCWATCH_CACHE_HINTS(float4)
SYNCWATCH_CACHE_HINTS(double2)
#undef SYNCWATCH_CACHE_HINTS
#endif

#endif // SYNCWATCH_NVCC_COMPAT_H
