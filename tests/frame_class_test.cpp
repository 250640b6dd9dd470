// Which frames of a call's stack are never the user's call site (FrameClass.h): CUDA's and
// PyTorch's libraries, and the headers of CUDA, PyTorch and pybind11 whose inline functions
// and templates end up inside the user's own module (an extension's .so).
#include "../interposer/capture/FrameClass.h"

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
