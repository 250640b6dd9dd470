#!/usr/bin/env python3
"""syncwatch-lint over a PyTorch extension's own build: the build.ninja that
torch.utils.cpp_extension writes (load() and BuildExtension with ninja write the same file),
turned into compile_commands.json by `ninja -t compdb`, as docs/ci.md tells users to do.

Both of its compile commands are translated: the host compiler's (c++ -MMD -MF ... -fPIC
-DTORCH_EXTENSION_NAME=...) for the op's .cpp file and nvcc's
(--generate-dependencies-with-compile --dependency-output, -gencode, --compiler-options
''"'"'-fPIC'"'"'', --expt-relaxed-constexpr) for the kernels' .cu file.

  torch_extension_build_test.py <syncwatch-lint> <torch include dir>
"""
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish, skip  # noqa: E402

LINT, TORCH = (os.path.abspath(a) for a in sys.argv[1:3])
PY = sysconfig.get_paths()["include"]


OP_CPP = r"""#include <torch/extension.h>

torch::Tensor gate_forward_cuda(torch::Tensor x, torch::Tensor w);

#define CHECK_CUDA(x) TORCH_CHECK(x.device().is_cuda(), #x " must be a CUDA tensor")

torch::Tensor gate_forward(torch::Tensor x, torch::Tensor w) {
  CHECK_CUDA(x);
  CHECK_CUDA(w);
  auto y = gate_forward_cuda(x, w);
  auto active = (y > 0).sum().item<int64_t>();
  TORCH_CHECK(active >= 0);
  return y;
}

double cpu_mean(torch::Tensor t) {
  TORCH_CHECK(t.device().is_cpu(), "cpu_mean: a CPU tensor");
  return t.mean().item<double>();
}

// A CPU implementation: it reads its tensors' elements on the host through accessor<>.
int64_t cpu_first_index(torch::Tensor first_idx, torch::Tensor points) {
  auto p = points.accessor<float, 2>();
  float s = 0.f;
  for (int64_t i = 0; i < p.size(0); ++i) s += p[i][0];
  return first_idx[0].item<int64_t>() + static_cast<int64_t>(s);
}

// Nothing says where mask lives: a note.
int64_t count_true(torch::Tensor mask) {
  return mask.sum().item<int64_t>();
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &gate_forward, "gate forward (CUDA)");
  m.def("cpu_mean", &cpu_mean);
  m.def("cpu_first_index", &cpu_first_index);
  m.def("count_true", &count_true);
}
"""

KERNEL_CU = r"""#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

template <typename scalar_t>
__global__ void gate_kernel(const scalar_t* __restrict__ x, const scalar_t* __restrict__ w,
                            scalar_t* __restrict__ y, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * w[i] / (scalar_t(1) + exp(-x[i]));
}

torch::Tensor gate_forward_cuda(torch::Tensor x, torch::Tensor w) {
  auto y = torch::empty_like(x);
  const int64_t n = x.numel();
  const int threads = 256;
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "gate_forward_cuda", ([&] {
    gate_kernel<scalar_t><<<(n + threads - 1) / threads, threads>>>(
        x.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
  }));
  return y;
}
"""

# What torch/utils/cpp_extension.py's _write_ninja_file writes (torch 2.x), for
# load(name="gate_ext", sources=["gate.cpp", "gate_kernel.cu"]).
BUILD_NINJA = """ninja_required_version = 1.3
cxx = c++
nvcc = /usr/local/cuda/bin/nvcc

cflags = -DTORCH_EXTENSION_NAME=gate_ext -DTORCH_API_INCLUDE_EXTENSION_H -DPYBIND11_COMPILER_TYPE=\\"_gcc\\" -DPYBIND11_STDLIB=\\"_libstdcpp\\" -DPYBIND11_BUILD_ABI=\\"_cxxabi1016\\" -isystem {T} -isystem {T}/torch/csrc/api/include -isystem /usr/local/cuda/include -isystem {PY} -D_GLIBCXX_USE_CXX11_ABI=1 -fPIC -std=c++17
post_cflags =
cuda_cflags = -DTORCH_EXTENSION_NAME=gate_ext -DTORCH_API_INCLUDE_EXTENSION_H -DPYBIND11_COMPILER_TYPE=\\"_gcc\\" -DPYBIND11_STDLIB=\\"_libstdcpp\\" -DPYBIND11_BUILD_ABI=\\"_cxxabi1016\\" -isystem {T} -isystem {T}/torch/csrc/api/include -isystem /usr/local/cuda/include -isystem {PY} -D_GLIBCXX_USE_CXX11_ABI=1 -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr -gencode=arch=compute_90,code=compute_90 -gencode=arch=compute_90,code=sm_90 --compiler-options '-fPIC' -std=c++17
cuda_post_cflags =
cuda_dlink_post_cflags =
ldflags = -shared -L{T}/../lib -lc10 -lc10_cuda -ltorch_cpu -ltorch_cuda -ltorch -ltorch_python -L/usr/local/cuda/lib64 -lcudart

rule compile
  command = $cxx -MMD -MF $out.d $cflags -c $in -o $out $post_cflags
  depfile = $out.d
  deps = gcc

rule cuda_compile
  depfile = $out.d
  deps = gcc
  command = $nvcc --generate-dependencies-with-compile --dependency-output $out.d $cuda_cflags -c $in -o $out $cuda_post_cflags

rule link
  command = $cxx $in $ldflags -o $out

build gate.o: compile $$SRC/gate.cpp
build gate_kernel.cuda.o: cuda_compile $$SRC/gate_kernel.cu

build gate_ext.so: link gate.o gate_kernel.cuda.o

default gate_ext.so
"""


def main():
    ninja = shutil.which("ninja") or shutil.which("ninja-build")
    if not ninja:
        skip("ninja not found")
    tmp = tempfile.mkdtemp(prefix="sw-torch-ext.")
    try:
        src = os.path.join(tmp, "src")
        build = os.path.join(tmp, "build")
        os.makedirs(src)
        os.makedirs(build)
        open(os.path.join(src, "gate.cpp"), "w").write(OP_CPP)
        open(os.path.join(src, "gate_kernel.cu"), "w").write(KERNEL_CU)
        text = BUILD_NINJA.replace("{T}", TORCH).replace("{PY}", PY).replace("$$SRC", src)
        open(os.path.join(build, "build.ninja"), "w").write(text)
        db = subprocess.run([ninja, "-t", "compdb", "compile", "cuda_compile"], cwd=build,
                            capture_output=True, text=True, check=True).stdout
        entries = json.loads(db)
        check("ninja -t compdb gives both compile commands", len(entries) == 2, db[:400])
        open(os.path.join(build, "compile_commands.json"), "w").write(db)
        p = subprocess.run([LINT, "-p", build, "--format=json", "-j2"], cwd=build,
                           capture_output=True, text=True, timeout=900)
        # Exit 1: findings at the default --fail-on level (warnings); 2 would be a tool error.
        check("syncwatch-lint runs over the extension's database and fails the gate", p.returncode == 1,
              f"rc {p.returncode}\n" + p.stderr[-2000:])
        try:
            report = json.loads(p.stdout)
        except ValueError:
            check("a JSON report", False, p.stdout[-1000:])
            return
        findings = report.get("findings", report if isinstance(report, list) else [])
        def where(f):
            loc = f.get("location", f)
            return os.path.basename(loc["file"]), loc.get("line", loc.get("startLine"))
        got = sorted((*where(f), f["severity"], f["rule"]) for f in findings)
        want = sorted([
            ("gate.cpp", 11, "warning", "syncwatch-torch-host-sync"),        # item() of a CHECK_CUDA'd tensor
            ("gate.cpp", 31, "note", "syncwatch-torch-host-sync"),           # item() of a tensor of any device
            ("gate_kernel.cu", 16, "warning", "syncwatch-torch-current-stream"),  # <<<>>> without a stream
        ])
        check("the .cpp op's item() and the .cu file's launch are found, the CPU ops are silent, the unknown one a note", got == want,
              f"got {got}\nwant {want}\nstderr: {p.stderr[-1500:]}")
        check("no file is left unparsed", "could not be parsed" not in p.stderr, p.stderr[-1500:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    finish()
