// A small PyTorch extension with one planted bug per torch rule, for the GPU tests
// (tests/gpu/torch_ext/train_ext.py builds it with torch.utils.cpp_extension.load):
//   scale_legacy - launches with no stream: the legacy default stream, not the current one
//   count_item   - reads a count back with .item() right after its own kernel
//   scale_current - the right way, on at::cuda::getCurrentCUDAStream()
// and a measurement of what reading PyTorch's current stream costs (bench_current_stream).
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <dlfcn.h>

#include <chrono>

__global__ void scale_kernel(const float* x, float* y, float a, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

__global__ void count_positive_kernel(const float* x, int* count, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.f) atomicAdd(count, 1);
}

torch::Tensor scale_legacy(torch::Tensor x, double a) {
  auto y = torch::empty_like(x);
  const int64_t n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), a, n);  // EXT-LEGACY-LAUNCH
  return y;
}

torch::Tensor scale_current(torch::Tensor x, double a) {
  auto y = torch::empty_like(x);
  const int64_t n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(),
                                                                             y.data_ptr<float>(), a, n);
  return y;
}

int64_t count_item(torch::Tensor x) {
  auto count = torch::zeros({1}, x.options().dtype(torch::kInt));
  const int64_t n = x.numel();
  count_positive_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), count.data_ptr<int>(), n);
  return count.item<int>();  // EXT-ITEM
}

// ns per read of the current stream: through the C++ API, and through the exported symbol
// found with dlsym (what a preloaded library would call).
std::vector<double> bench_current_stream(int64_t reps) {
  using Clock = std::chrono::steady_clock;
  volatile uintptr_t sink = 0;
  auto t0 = Clock::now();
  for (int64_t i = 0; i < reps; ++i)
    sink = sink + reinterpret_cast<uintptr_t>(at::cuda::getCurrentCUDAStream().stream());
  auto t1 = Clock::now();
  struct Raw { int8_t type; int8_t index; int64_t id; };
  using GetFn = c10::cuda::CUDAStream (*)(c10::DeviceIndex);
  void* h = dlopen("libc10_cuda.so", RTLD_NOW | RTLD_NOLOAD);
  auto get = h ? reinterpret_cast<GetFn>(dlsym(h, "_ZN3c104cuda20getCurrentCUDAStreamEa")) : nullptr;
  // What libsyncwatch does: the device passed (from the launch's context), and the handle
  // asked for only when the stream is not the default one (its id alone says that).
  auto perRead = [&](auto &&Body) {
    auto a = Clock::now();
    for (int64_t i = 0; i < reps; ++i)
      Body();
    return std::chrono::duration<double, std::nano>(Clock::now() - a).count() / reps;
  };
  double viaDlsym = get ? perRead([&] { sink = sink + reinterpret_cast<uintptr_t>(get(-1).stream()); }) : -1;
  double apiDevice = perRead([&] { sink = sink + static_cast<uintptr_t>(at::cuda::getCurrentCUDAStream(0).id()); });
  double dlsymDevice = get ? perRead([&] { sink = sink + static_cast<uintptr_t>(get(0).id()); }) : -1;
  (void)sink;
  return {std::chrono::duration<double, std::nano>(t1 - t0).count() / reps, viaDlsym, apiDevice, dlsymDevice};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("scale_legacy", &scale_legacy);
  m.def("scale_current", &scale_current);
  m.def("count_item", &count_item);
  m.def("bench_current_stream", &bench_current_stream);
}
