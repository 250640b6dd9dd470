// nvcc-flags:
// plain-clang-flags:
// Cache-hinted loads and stores (__ldcs, __stcs, __ldcg ...) on built-in and vector types,
// as in llm.c's Packed128: nvcc's host pass sees CUDA's declarations; clang's defines them
// only for the device, so the host pass finds only the half / bfloat16 overloads.
#include <cuda_bf16.h>

template <class T> struct alignas(16) Packed128 {
  Packed128() = default;
  __device__ explicit Packed128(int4 bits) { __builtin_memcpy(&payload, &bits, sizeof(bits)); }
  __device__ int4 get_bits() const {
    int4 bits;
    __builtin_memcpy(&bits, &payload, sizeof(bits));
    return bits;
  }
  T payload[16 / sizeof(T)];
};

template <class T> __device__ Packed128<T> load128cs(const T *p) {
  return Packed128<T>{__ldcs(reinterpret_cast<const int4 *>(p))};
}
template <class T> __device__ void store128cs(T *p, Packed128<T> v) {
  __stcs(reinterpret_cast<int4 *>(p), v.get_bits());
}

__global__ void residual_forward(__nv_bfloat16 *out, const __nv_bfloat16 *a, const float *b, float *c, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  if (i >= n) return;
  store128cs(out + i, load128cs(a + i));
  __stcs(c + i, __ldcs(b + i) + __ldcg(b + i) + __ldlu(b + i) + __ldcv(b + i));
  __stwt(c + i + 1, __ldca(b + i + 1));
}

void residual(__nv_bfloat16 *out, const __nv_bfloat16 *a, const float *b, float *c, int n, cudaStream_t s) {
  residual_forward<<<(n / 8 + 255) / 256, 256, 0, s>>>(out, a, b, c, n);
}
