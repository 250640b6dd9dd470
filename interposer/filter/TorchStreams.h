// PyTorch's current stream, read where a kernel goes to a default stream: a PyTorch
// extension that launches `k<<<g, b>>>` inside `with torch.cuda.stream(s)` sends its kernel to
// the legacy stream while every ATen op around it goes to s, which is created non-blocking -
// so nothing orders the kernel after the work it reads (syncwatch-torch-current-stream).
//
// c10 keeps the current stream per thread and device; it is read through the functions
// libc10_cuda.so exports (looked up with dlopen(RTLD_NOLOAD), never linked: a process without
// PyTorch pays nothing and loads nothing):
//   c10::cuda::getCurrentCUDAStream(DeviceIndex)   a CUDAStream by value
//   c10::cuda::CUDAStream::stream() const           its cudaStream_t
// With an explicit device index the read is a thread-local load (the device comes from the
// launch's context, cached per thread): passing -1 would make c10 call cudaGetDevice, which
// cost 80 ns a read on the H200 (tests/gpu/torch_ext, bench_current_stream).
#pragma once

#include <cstdint>

namespace syncwatch::runtime {

// c10::cuda::CUDAStream's layout (a c10::Stream: Device{type, index}, StreamId). Trivially
// copyable, 16 bytes: returned in two registers, as the real type is.
struct C10Stream {
  std::int8_t DeviceType = 0;
  std::int8_t DeviceIndex = 0;
  std::int64_t Id = 0;  // 0: the device's default stream (the NULL stream, i.e. the legacy one)
};

struct TorchStreamApi {
  C10Stream (*GetCurrent)(std::int8_t Device) = nullptr;    // DeviceIndex is int8_t (torch >= 2.2)
  C10Stream (*GetCurrent16)(std::int16_t Device) = nullptr; // int16_t in some 2.x releases
  void *(*Handle)(const C10Stream *Self) = nullptr;         // CUDAStream::stream() const
  bool bound() const { return (GetCurrent || GetCurrent16) && Handle; }
};

// Looks the functions up in an already loaded libc10_cuda.so; true once bound (now or by
// an earlier call). Cheap to call again: it only looks while unbound.
bool bindTorchStreams();
// Tests bind fakes (or {} to unbind).
void bindTorchStreamApi(const TorchStreamApi &Api);
bool torchStreamsBound();

// Whether a launch onto a default stream - the legacy one, or the per-thread one when
// PerThread - went elsewhere than PyTorch's current stream on this thread and Device; if so
// *Current is that stream's handle. False when it did not, or when it cannot be read (not
// bound, a device index c10 rejects: a c10 exception is caught and the reader unbound).
// The default stream as current is not a mismatch for either: the per-thread stream is
// blocking towards the legacy one, so the two are ordered.
bool launchOffTorchStream(bool PerThread, int Device, const void **Current);

} // namespace syncwatch::runtime
