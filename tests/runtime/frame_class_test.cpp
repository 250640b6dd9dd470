// Which frames of a call's stack are never the user's call site (FrameClass.h): CUDA's and
// PyTorch's libraries, and the headers of CUDA, PyTorch and pybind11 whose inline functions
// and templates end up inside the user's own module (an extension's .so).
#include "../../interposer/sites/CallSites.h"
#include "../../interposer/sites/FrameClass.h"

#include <gtest/gtest.h>

using namespace syncwatch::runtime;

TEST(FrameClass, VendorModules) {
  EXPECT_TRUE(isVendorModule("/usr/lib/python3/site-packages/torch/lib/libtorch_cuda.so"));
  EXPECT_TRUE(isVendorModule("/usr/lib/python3/site-packages/torch/lib/libc10_cuda.so"));
  EXPECT_TRUE(isVendorModule("/usr/lib/x86_64-linux-gnu/libpython3.12.so.1.0"));
  // An extension that torch.utils.cpp_extension.load built is the user's own module.
  EXPECT_FALSE(isVendorModule("/root/.cache/torch_extensions/py312_cu130/swtorch_ops/swtorch_ops.so"));
  // Debian's and the GPU image's python3.12 link libpython in: the interpreter's C frames are
  // never the site (its Python frames are).
  EXPECT_TRUE(isVendorModule("/usr/bin/python3.12"));
  EXPECT_TRUE(isVendorModule("/opt/conda/bin/python3.11"));
}

TEST(FrameClass, HeadersInlinedIntoAnExtensionAreNotItsCallSite) {
  EXPECT_TRUE(isVendorHeader("/usr/local/lib/python3.12/dist-packages/torch/include/ATen/core/TensorBody.h"));
  EXPECT_TRUE(isVendorHeader("/opt/venv/lib/python3.12/site-packages/torch/include/c10/core/Scalar.h"));
  EXPECT_TRUE(isVendorHeader("/opt/venv/lib/python3.12/site-packages/torch/include/pybind11/pybind11.h"));
  EXPECT_TRUE(isVendorHeader("/usr/include/pybind11/detail/class.h"));
  EXPECT_TRUE(isVendorHeader("/usr/local/cuda/include/cuda_runtime.h"));
  EXPECT_FALSE(isVendorHeader("/work/ext/csrc/swtorch_ops.cu"));
  EXPECT_FALSE(isVendorHeader("/work/torch_ops/include/ops.h"));  // a user's folder named like torch
}

TEST(FrameClass, VendorNames) {
  EXPECT_TRUE(isVendorName("pybind11::cpp_function::dispatcher(_object*, _object*, _object*)"));
  EXPECT_TRUE(isVendorName("cudaLaunchKernel"));
  EXPECT_FALSE(isVendorName("count_item(at::Tensor)"));
  EXPECT_FALSE(isVendorName("scale_legacy(at::Tensor, double)"));
  // A release build's symbols: PyTorch's inline functions emitted into the extension (seen
  // on the H200: Tensor::item<int> inside swtorch_ops_release.so) are not the op.
  EXPECT_TRUE(isVendorName("int at::Tensor::item<int>() const"));
  EXPECT_TRUE(isVendorName("c10::Scalar::to<long>() const"));
  EXPECT_TRUE(isVendorName("torch::autograd::Function<MyFn>::apply(at::Tensor)"));
  // ...but an op templated on a torch type is the user's.
  EXPECT_FALSE(isVendorName("void launch_scale<at::Half>(at::Tensor&, double)"));
  EXPECT_FALSE(isVendorName("my::at::helper(int)"));
}

// A launch's frames as addr2line -i gives them for nvcc -O3 -Xcompiler -g1 (the code-samples
// coalescing.cu, read here from its build): the stub's code is inlined from nvcc's generated
// <unit>.cudafe1.stub.c, which addr2line names after the enclosing function, then the
// kernel's host wrapper at the kernel's declaration line, then the launch's line.
namespace {
std::vector<Symbolized> launchFromRunTest() {
  return {{"main", "/tmp/tmpxft_00000917_00000000-6_coalescing.cudafe1.stub.c", 21},
          {"offset<float>", "/src/coalescing.cu", 46},
          {"void runTest<float>(int, int)", "/src/coalescing.cu", 77},
          {"main", "/src/coalescing.cu", 136}};
}
} // namespace

TEST(FrameClass, LaunchThroughNvccsStubFileIsTheLaunchLine) {
  Symbolized U;
  ASSERT_TRUE(pickUserFrame({launchFromRunTest()}, U));
  EXPECT_EQ(U.Function, "void runTest<float>(int, int)");
  EXPECT_EQ(U.Line, 77u);
  // The stub not inlined: its own frame first (a device stub by name), then the caller's.
  std::vector<Symbolized> Stub = {
      {"__device_stub__Z6offsetIdEvPT_i(double*, int)", "/usr/local/cuda/include/crt/device_functions.h", 2963},
      {"__device_stub__Z6offsetIdEvPT_i", "/tmp/x.cudafe1.stub.c", 16}};
  ASSERT_TRUE(pickUserFrame({Stub, launchFromRunTest()}, U));
  EXPECT_EQ(U.Line, 77u);
  // The host wrapper as a frame of its own (not inlined), named by the kernel.
  std::vector<Symbolized> Wrapper = {{"void offset<double>(double*, int)", "/src/coalescing.cu", 46}};
  std::vector<Symbolized> Caller = {{"void runTest<double>(int, int)", "/src/coalescing.cu", 83}};
  ASSERT_TRUE(pickUserFrame({Stub, Wrapper, Caller}, U));
  EXPECT_EQ(U.Line, 83u);
  // A user's file named like a stub is not one (only nvcc's .cudafe1.stub.c is).
  EXPECT_FALSE(isKernelStubFile("/src/stub.c"));
  EXPECT_TRUE(isKernelStubFile("/tmp/tmpxft_0000_00000000-6_a.cudafe1.stub.c"));
  // A plain call (not a launch) is its first frame with a line.
  ASSERT_TRUE(pickUserFrame({{{"main", "/src/coalescing.cu", 70}}}, U));
  EXPECT_EQ(U.Line, 70u);
  EXPECT_FALSE(pickUserFrame({{{"cudaMemcpy", "", 0}}}, U));
}
