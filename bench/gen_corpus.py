#!/usr/bin/env python3
"""Generate a deterministic corpus of realistic CUDA host+device source files.

    bench/gen_corpus.py OUT_DIR [-n N] [--seed SEED]
    bench/gen_corpus.py OUT_DIR -n 2000 --database [--broken-every K] [--cpp-every M]

With --database the corpus is a build: it also writes OUT_DIR/compile_commands.json with
the commands nvcc (for .cu files, each with a flag profile of a real CMake target:
--default-stream per-thread, -rdc=true --extended-lambda, -Xcompiler=-fopenmp,
-gencode for two architectures, -std=c++20 -O3 --use_fast_math -lineinfo ...) and g++
(for the host-only .cpp files that call the CUDA runtime, every M-th file) would run.
--broken-every K makes every K-th file deliberately broken (syntax errors, undeclared
names, missing headers, truncation, binary garbage, runaway template recursion, an
include cycle, nesting beyond clang's limits, a wrong launch configuration); their names
start with "broken_" and robustness checks expect each to be reported as a tool error.

Writes N (default 200) .cu files of 250-450 lines each into OUT_DIR. The files
mix the host-code patterns syncwatch looks at (classes owning non-blocking
streams, async copy pipelines, events, launches with and without a stream,
stream 0, blocking streams with synchronous cudaMemcpy, templates, lambdas;
async copies from pageable host memory - malloc, new[], std::vector, C arrays,
helpers, parameters, struct members - and their pinned look-alikes; per-step
cudaMalloc/cudaFree in training loops and the cudaMallocAsync/cudaFreeAsync
look-alike; synchronous copies and memsets next to streams; synchronization
and cudaStreamQuery spins inside launch loops and the one-sync-after-the-loop
look-alike) with ordinary device code (elementwise kernels, shared-memory
reductions, stencils, histograms, transposes). Only <cuda_runtime.h> and
standard headers are included, and every file compiles with
`nvcc -arch=sm_90 -c`.

The same (N, seed) always gives byte-identical files: each file draws from its
own random.Random seeded with the string "SEED:INDEX".
"""

import argparse
import json
import os
import random
import shlex
import sys
from string import Template

MIN_LINES = 250
MAX_LINES = 450

DOMAINS = ["image", "signal", "tensor", "particle", "mesh", "audio", "sensor", "frame",
           "volume", "spectrum", "lattice", "field", "batch", "graph", "voxel", "ray"]
VERBS = ["scale", "blend", "damp", "shift", "mix", "gain", "warp", "fold", "clip", "smooth",
         "boost", "norm", "bias", "ramp", "tone", "fade"]
NOUNS = ["values", "samples", "cells", "pixels", "points", "weights", "bins", "coeffs",
         "rows", "taps", "lanes", "slots"]
KSUFFIX = ["kernel", "k", "op", "pass", "step", "impl"]
CLASS_PRE = ["Batch", "Frame", "Signal", "Image", "Tensor", "Particle", "Grid", "Sensor",
             "Audio", "Mesh", "Volume", "Spectrum", "Chunk", "Tile"]
CLASS_POST = ["Pipeline", "Engine", "Stage", "Worker", "Processor", "Executor", "Runner",
              "Streamer", "Scheduler", "Context"]
CHECK_MACROS = ["CUDA_CHECK", "CHECK_CUDA", "CUDA_CALL", "CUDA_TRY", "CK"]
EXPRS = [
    "a * x + 1.0f",
    "x > 0.0f ? x * a : 0.0f",
    "fminf(fmaxf(x * a, -1.0f), 1.0f)",
    "x * x * a",
    "a * x - 0.5f * x",
    "sqrtf(fabsf(x)) * a",
    "x / (1.0f + fabsf(x)) * a",
    "__expf(-x * x) * a",
    "a * (x - 0.25f) * (x + 0.25f)",
    "fmaf(a, x, 0.125f)",
]
OPT_HEADERS = ["<algorithm>", "<cmath>", "<memory>", "<numeric>", "<string>", "<chrono>",
               "<array>", "<functional>", "<cstdint>"]


def sub(text, **kw):
    return Template(text).substitute(**kw)


class Ctx:
    def __init__(self, rng):
        self.rng = rng
        self.used = set()
        self.ck = rng.choice(CHECK_MACROS)
        self.block_sizes = [128, 256, 512]

    def unique(self, base):
        name = base
        i = 2
        while name in self.used:
            name = f"{base}{i}"
            i += 1
        self.used.add(name)
        return name

    def kname(self):
        r = self.rng
        return self.unique(f"{r.choice(VERBS)}_{r.choice(NOUNS)}_{r.choice(KSUFFIX)}")

    def fname(self, what):
        r = self.rng
        return self.unique(f"run_{r.choice(DOMAINS)}_{what}")

    def cname(self):
        r = self.rng
        return self.unique(f"{r.choice(CLASS_PRE)}{r.choice(CLASS_POST)}")

    def n(self, lo=14, hi=21):
        return 1 << self.rng.randint(lo, hi)

    def block(self):
        return self.rng.choice(self.block_sizes)

    def flt(self):
        return f"{self.rng.choice([0.25, 0.5, 0.75, 1.5, 2.0, 0.125, 3.0, 0.01])}f"

    def expr(self):
        return self.rng.choice(EXPRS)


# --------------------------------------------------------------------------- blocks
# Each block returns (code, call) where call is an expression of type double that
# main() adds to its checksum.

def blk_elementwise_default(c):
    """Elementwise kernel, launch with no stream, synchronous cudaMemcpy."""
    k, f = c.kname(), c.fname("elementwise")
    code = sub("""
// Elementwise transform on the default stream, synchronous copies around it.
__global__ void $k(float* out, const float* in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    out[i] = $expr;
  }
}

static double $f() {
  const int n = $n;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>((i * $p) % $m) * $scale;
  float* d_in = nullptr;
  float* d_out = nullptr;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  $ck(cudaMalloc(&d_in, bytes));
  $ck(cudaMalloc(&d_out, bytes));
  $ck(cudaMemcpy(d_in, host.data(), bytes, cudaMemcpyHostToDevice));
  const int block = $b;
  const int grid = (n + block - 1) / block;
  $k<<<grid, block>>>(d_out, d_in, $a, n);
  $ck(cudaGetLastError());
  $ck(cudaDeviceSynchronize());
  $ck(cudaMemcpy(host.data(), d_out, bytes, cudaMemcpyDeviceToHost));
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += host[i];
  $ck(cudaFree(d_in));
  $ck(cudaFree(d_out));
  return sum;
}
""", k=k, f=f, ck=c.ck, expr=c.expr(), n=c.n(), p=c.rng.choice([3, 7, 13, 31]),
               m=c.rng.choice([97, 101, 255, 1021]), scale=c.flt(), b=c.block(), a=c.flt())
    return code, f"{f}()"


def blk_gridstride_stream0(c):
    """Grid-stride kernel launched on stream 0, async copies with 0 / omitted stream."""
    k, f = c.kname(), c.fname("axpy")
    omit = c.rng.random() < 0.5
    memset = "cudaMemsetAsync(d_y, 0, bytes)" if omit else "cudaMemsetAsync(d_y, 0, bytes, 0)"
    back = ("cudaMemcpyAsync(h_x, d_y, bytes, cudaMemcpyDeviceToHost)" if c.rng.random() < 0.5
            else "cudaMemcpyAsync(h_x, d_y, bytes, cudaMemcpyDeviceToHost, 0)")
    code = sub("""
// Grid-stride AXPY; everything is queued on stream 0.
__global__ void $k(float* y, const float* x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = a * x[i] + y[i];
  }
}

static double $f() {
  const int n = $n;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* h_x = nullptr;
  $ck(cudaMallocHost(&h_x, bytes));
  for (int i = 0; i < n; ++i) h_x[i] = 0.5f + static_cast<float>(i % $m) * $scale;
  float* d_x = nullptr;
  float* d_y = nullptr;
  $ck(cudaMalloc(&d_x, bytes));
  $ck(cudaMalloc(&d_y, bytes));
  $ck($memset);
  $ck(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, 0));
  for (int rep = 0; rep < $reps; ++rep) {
    $k<<<$grid, $b, 0, 0>>>(d_y, d_x, $a, n);
  }
  $ck(cudaGetLastError());
  $ck($back);
  $ck(cudaDeviceSynchronize());
  double acc = 0.0;
  for (int i = 0; i < n; i += $stride) acc += h_x[i];
  $ck(cudaFree(d_x));
  $ck(cudaFree(d_y));
  $ck(cudaFreeHost(h_x));
  return acc;
}
""", k=k, f=f, ck=c.ck, n=c.n(), m=c.rng.choice([61, 89, 127]), scale=c.flt(),
               memset=memset, back=back, reps=c.rng.randint(2, 8),
               grid=c.rng.choice([80, 132, 264, 528]), b=c.block(), a=c.flt(),
               stride=c.rng.choice([1, 4, 16]))
    return code, f"{f}()"


def blk_reduction(c):
    """Shared-memory tree reduction templated on the block size, own non-blocking stream."""
    k, f = c.kname(), c.fname("reduce")
    is_max = c.rng.random() < 0.4
    combine = ("smem[tid] = fmaxf(smem[tid], smem[tid + s]);" if is_max
               else "smem[tid] += smem[tid + s];")
    first = "v = fmaxf(v, in[i + BLOCK]);" if is_max else "v += in[i + BLOCK];"
    fold = "result = std::max(result, static_cast<double>(p));" if is_max else "result += p;"
    flags = c.rng.choice(["cudaStreamNonBlocking", "cudaStreamNonBlocking", "cudaStreamDefault"])
    code = sub("""
// Two-elements-per-thread tree reduction ($kind) in shared memory.
template <int BLOCK>
__global__ void $k(const float* in, float* partial, int n) {
  __shared__ float smem[BLOCK];
  const int tid = threadIdx.x;
  const int i = blockIdx.x * (BLOCK * 2) + tid;
  float v = 0.0f;
  if (i < n) v = in[i];
  if (i + BLOCK < n) $first
  smem[tid] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) $combine
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = smem[0];
}

static double $f() {
  const int n = $n;
  constexpr int kBlock = $b;
  const int grid = (n + kBlock * 2 - 1) / (kBlock * 2);
  std::vector<float> h_in(n);
  for (int i = 0; i < n; ++i) h_in[i] = static_cast<float>((i * $p) % $m) / $m.0f;
  cudaStream_t stream;
  $ck(cudaStreamCreateWithFlags(&stream, $flags));
  float* d_in = nullptr;
  float* d_partial = nullptr;
  $ck(cudaMalloc(&d_in, n * sizeof(float)));
  $ck(cudaMalloc(&d_partial, grid * sizeof(float)));
  $ck(cudaMemcpyAsync(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  $ck(cudaMemsetAsync(d_partial, 0, grid * sizeof(float), stream));
  $k<kBlock><<<grid, kBlock, 0, stream>>>(d_in, d_partial, n);
  $ck(cudaGetLastError());
  std::vector<float> h_partial(grid);
  $ck(cudaMemcpyAsync(h_partial.data(), d_partial, grid * sizeof(float),
                      cudaMemcpyDeviceToHost, stream));
  $ck(cudaStreamSynchronize(stream));
  double result = 0.0;
  for (float p : h_partial) {
    $fold
  }
  $ck(cudaFree(d_in));
  $ck(cudaFree(d_partial));
  $ck(cudaStreamDestroy(stream));
  return result;
}
""", k=k, f=f, ck=c.ck, kind="max" if is_max else "sum", combine=combine, first=first,
               fold=fold, n=c.n(), b=c.block(), p=c.rng.choice([5, 11, 17]),
               m=c.rng.choice([97, 211, 509]), flags=flags)
    return code, f"{f}()"


def blk_warp_reduce(c):
    """Warp-shuffle dot product with an atomicAdd, launched on a caller-provided stream."""
    k, f, h = c.kname(), c.fname("dot"), c.unique(f"warp_sum_{c.rng.choice(NOUNS)}")
    use_stream = c.rng.random() < 0.6
    create = ("cudaStream_t stream;\n  $ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));"
              if use_stream else "cudaStream_t stream = 0;")
    destroy = "$ck(cudaStreamDestroy(stream));" if use_stream else "(void)stream;"
    code = sub("""
// Dot product: warp shuffles inside a block, one atomicAdd per warp.
__device__ __forceinline__ float $h(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void $k(const float* a, const float* b, float* result, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    acc += a[i] * b[i];
  }
  acc = $h(acc);
  if ((threadIdx.x & 31) == 0) atomicAdd(result, acc);
}

static double $f() {
  const int n = $n;
  std::vector<float> h_a(n), h_b(n);
  for (int i = 0; i < n; ++i) {
    h_a[i] = 1.0f / static_cast<float>(1 + i % $m);
    h_b[i] = static_cast<float>(i % 7) * $scale;
  }
  """ + create + """
  float *d_a = nullptr, *d_b = nullptr, *d_r = nullptr;
  $ck(cudaMalloc(&d_a, n * sizeof(float)));
  $ck(cudaMalloc(&d_b, n * sizeof(float)));
  $ck(cudaMalloc(&d_r, sizeof(float)));
  $ck(cudaMemcpyAsync(d_a, h_a.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  $ck(cudaMemcpyAsync(d_b, h_b.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  $ck(cudaMemsetAsync(d_r, 0, sizeof(float), stream));
  $k<<<$grid, $b, 0, stream>>>(d_a, d_b, d_r, n);
  $ck(cudaGetLastError());
  float h_r = 0.0f;
  $ck(cudaMemcpyAsync(&h_r, d_r, sizeof(float), cudaMemcpyDeviceToHost, stream));
  $ck(cudaStreamSynchronize(stream));
  $ck(cudaFree(d_a));
  $ck(cudaFree(d_b));
  $ck(cudaFree(d_r));
  """ + destroy + """
  return static_cast<double>(h_r);
}
""", k=k, f=f, h=h, ck=c.ck, n=c.n(), m=c.rng.choice([13, 29, 64]), scale=c.flt(),
               grid=c.rng.choice([132, 264, 1024]), b=c.block())
    return code, f"{f}()"


def blk_stencil1d_blocking(c):
    """1D stencil with dynamic shared memory halo; blocking stream + synchronous copies."""
    k, f = c.kname(), c.fname("stencil")
    radius = c.rng.choice([1, 2, 3, 4, 8])
    code = sub("""
// 1D box filter of radius RADIUS; the halo is staged in dynamic shared memory.
template <int RADIUS>
__global__ void $k(const float* in, float* out, int n) {
  extern __shared__ float tile[];
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  const int l = threadIdx.x + RADIUS;
  tile[l] = (g < n) ? in[g] : 0.0f;
  if (threadIdx.x < RADIUS) {
    const int left = g - RADIUS;
    const int right = g + blockDim.x;
    tile[l - RADIUS] = (left >= 0 && left < n) ? in[left] : 0.0f;
    tile[l + blockDim.x] = (right < n) ? in[right] : 0.0f;
  }
  __syncthreads();
  if (g < n) {
    float acc = 0.0f;
    for (int d = -RADIUS; d <= RADIUS; ++d) acc += tile[l + d];
    out[g] = acc / static_cast<float>(2 * RADIUS + 1);
  }
}

static double $f() {
  constexpr int kRadius = $r;
  const int n = $n;
  const int block = $b;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  const size_t smem = (block + 2 * kRadius) * sizeof(float);
  std::vector<float> signal(n);
  for (int i = 0; i < n; ++i) signal[i] = (i % $period) < $half ? 1.0f : -1.0f;
  cudaStream_t stream;
  $ck(cudaStreamCreate(&stream));
  float* d_a = nullptr;
  float* d_b = nullptr;
  $ck(cudaMalloc(&d_a, bytes));
  $ck(cudaMalloc(&d_b, bytes));
  $ck(cudaMemcpy(d_a, signal.data(), bytes, cudaMemcpyHostToDevice));
  for (int iter = 0; iter < $iters; ++iter) {
    $k<kRadius><<<(n + block - 1) / block, block, smem, stream>>>(d_a, d_b, n);
    std::swap(d_a, d_b);
  }
  $ck(cudaGetLastError());
  $ck(cudaStreamSynchronize(stream));
  $ck(cudaMemcpy(signal.data(), d_a, bytes, cudaMemcpyDeviceToHost));
  double energy = 0.0;
  for (int i = 0; i < n; ++i) energy += signal[i] * signal[i];
  $ck(cudaFree(d_a));
  $ck(cudaFree(d_b));
  $ck(cudaStreamDestroy(stream));
  return energy;
}
""", k=k, f=f, ck=c.ck, r=radius, n=c.n(), b=c.block(), period=c.rng.choice([16, 64, 100]),
               half=c.rng.choice([5, 8, 12]), iters=c.rng.randint(2, 12))
    return code, f"{f}()"


def blk_stencil2d_events(c):
    """2D five-point heat stencil timed with events on a stream."""
    k, f = c.kname(), c.fname("heat")
    nx = c.rng.choice([256, 512, 1024, 2048])
    ny = c.rng.choice([256, 512, 1024])
    bx, by = c.rng.choice([(16, 16), (32, 8), (32, 4), (64, 4)])
    flags = c.rng.choice(["cudaStreamNonBlocking", "cudaStreamDefault"])
    code = sub("""
// Explicit heat-equation step on an nx x ny grid, five-point stencil.
__global__ void $k(const float* __restrict__ u, float* __restrict__ v, int nx, int ny, float c) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
  const int idx = y * nx + x;
  v[idx] = u[idx] + c * (u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx] - 4.0f * u[idx]);
}

static double $f() {
  const int nx = $nx, ny = $ny;
  const size_t bytes = static_cast<size_t>(nx) * ny * sizeof(float);
  std::vector<float> grid_h(static_cast<size_t>(nx) * ny, 0.0f);
  for (int y = ny / 4; y < 3 * ny / 4; ++y)
    for (int x = nx / 4; x < 3 * nx / 4; ++x) grid_h[static_cast<size_t>(y) * nx + x] = $hot;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  $ck(cudaStreamCreateWithFlags(&stream, $flags));
  $ck(cudaEventCreate(&start));
  $ck(cudaEventCreate(&stop));
  float *d_u = nullptr, *d_v = nullptr;
  $ck(cudaMalloc(&d_u, bytes));
  $ck(cudaMalloc(&d_v, bytes));
  $ck(cudaMemcpyAsync(d_u, grid_h.data(), bytes, cudaMemcpyHostToDevice, stream));
  $ck(cudaMemcpyAsync(d_v, d_u, bytes, cudaMemcpyDeviceToDevice, stream));
  const dim3 block($bx, $by);
  const dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
  $ck(cudaEventRecord(start, stream));
  for (int step = 0; step < $steps; ++step) {
    $k<<<grid, block, 0, stream>>>(d_u, d_v, nx, ny, $coef);
    std::swap(d_u, d_v);
  }
  $ck(cudaEventRecord(stop, stream));
  $ck(cudaEventSynchronize(stop));
  float ms = 0.0f;
  $ck(cudaEventElapsedTime(&ms, start, stop));
  std::printf("  heat %dx%d: %.3f ms\\n", nx, ny, ms);
  $ck(cudaMemcpyAsync(grid_h.data(), d_u, bytes, cudaMemcpyDeviceToHost, stream));
  $ck(cudaStreamSynchronize(stream));
  double total = 0.0;
  for (float t : grid_h) total += t;
  $ck(cudaEventDestroy(start));
  $ck(cudaEventDestroy(stop));
  $ck(cudaFree(d_u));
  $ck(cudaFree(d_v));
  $ck(cudaStreamDestroy(stream));
  return total;
}
""", k=k, f=f, ck=c.ck, nx=nx, ny=ny, bx=bx, by=by, flags=flags, hot=c.rng.choice(["100.0f", "1.0f", "42.0f"]),
               steps=c.rng.randint(4, 40), coef=c.rng.choice(["0.1f", "0.2f", "0.24f"]))
    return code, f"{f}()"


def blk_class_pipeline(c):
    """Class owning K non-blocking streams and events; chunked H2D / kernel / D2H."""
    k, cl, f = c.kname(), c.cname(), c.fname("pipeline")
    nstreams = c.rng.randint(2, 8)
    use_vector = c.rng.random() < 0.5
    if use_vector:
        members = "  std::vector<cudaStream_t> streams_;\n  std::vector<cudaEvent_t> events_;"
        init = ("streams_.resize(kStreams);\n    events_.resize(kStreams);\n    ")
    else:
        members = "  cudaStream_t streams_[kStreams];\n  cudaEvent_t events_[kStreams];"
        init = ""
    code = sub("""
__global__ void $k(float* out, const float* in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    out[i] = $expr;
  }
}

// Overlaps copies and compute: each chunk goes through its own non-blocking stream.
class $cl {
 public:
  explicit $cl(int n) : n_(n) {
    ${init}for (int s = 0; s < kStreams; ++s) {
      $ck(cudaStreamCreateWithFlags(&streams_[s], cudaStreamNonBlocking));
      $ck(cudaEventCreateWithFlags(&events_[s], cudaEventDisableTiming));
    }
    $ck(cudaMalloc(&d_in_, static_cast<size_t>(n_) * sizeof(float)));
    $ck(cudaMalloc(&d_out_, static_cast<size_t>(n_) * sizeof(float)));
  }

  ~$cl() {
    for (int s = 0; s < kStreams; ++s) {
      cudaEventDestroy(events_[s]);
      cudaStreamDestroy(streams_[s]);
    }
    cudaFree(d_in_);
    cudaFree(d_out_);
  }

  $cl(const $cl&) = delete;
  $cl& operator=(const $cl&) = delete;

  void submit(const float* h_in, float* h_out, float gain) {
    const int chunk = (n_ + kStreams - 1) / kStreams;
    for (int s = 0; s < kStreams; ++s) {
      const int offset = s * chunk;
      const int count = std::min(chunk, n_ - offset);
      if (count <= 0) break;
      const size_t bytes = static_cast<size_t>(count) * sizeof(float);
      cudaStream_t st = streams_[s];
      $ck(cudaMemcpyAsync(d_in_ + offset, h_in + offset, bytes, cudaMemcpyHostToDevice, st));
      $k<<<(count + $b - 1) / $b, $b, 0, st>>>(d_out_ + offset, d_in_ + offset, gain, count);
      $ck(cudaMemcpyAsync(h_out + offset, d_out_ + offset, bytes, cudaMemcpyDeviceToHost, st));
      $ck(cudaEventRecord(events_[s], st));
    }
  }

  void wait() {
    for (int s = 0; s < kStreams; ++s) $ck(cudaEventSynchronize(events_[s]));
  }

  int size() const { return n_; }

 private:
  static constexpr int kStreams = $ns;
  int n_;
$members
  float* d_in_ = nullptr;
  float* d_out_ = nullptr;
};

static double $f() {
  const int n = $n;
  float* h_in = nullptr;
  float* h_out = nullptr;
  $ck(cudaMallocHost(&h_in, n * sizeof(float)));
  $ck(cudaMallocHost(&h_out, n * sizeof(float)));
  for (int i = 0; i < n; ++i) h_in[i] = static_cast<float>(i % $m) * $scale;
  double acc = 0.0;
  {
    $cl pipe(n);
    for (int frame = 0; frame < $frames; ++frame) {
      pipe.submit(h_in, h_out, $a + 0.01f * frame);
      pipe.wait();
      acc += h_out[frame % pipe.size()];
    }
  }
  $ck(cudaFreeHost(h_in));
  $ck(cudaFreeHost(h_out));
  return acc;
}
""", k=k, cl=cl, f=f, ck=c.ck, expr=c.expr(), init=init, members=members, ns=nstreams,
               b=c.block(), n=c.n(), m=c.rng.choice([17, 33, 250]), scale=c.flt(),
               frames=c.rng.randint(2, 16), a=c.flt())
    return code, f"{f}()"


def blk_device_buffer(c):
    """RAII DeviceBuffer<T> template with default-stream arguments, templated kernel, lambda."""
    buf, k, f = c.unique(c.rng.choice(["DeviceBuffer", "DevArray", "GpuBuffer", "DeviceVec"])), c.kname(), c.fname("buffers")
    impl = c.unique(f + "_impl")
    up_b = c.rng.choice(["b.upload(h_b, stream);", "b.upload(h_b);"])
    zero = c.rng.choice(["out.zero(stream);", "out.zero();"])
    code = sub("""
// Owning device allocation; copies take a stream that defaults to 0.
template <typename T>
class $buf {
 public:
  explicit $buf(size_t n) : n_(n) { $ck(cudaMalloc(&ptr_, n_ * sizeof(T))); }
  ~$buf() { cudaFree(ptr_); }
  $buf(const $buf&) = delete;
  $buf& operator=(const $buf&) = delete;

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  size_t size() const { return n_; }

  void upload(const std::vector<T>& h, cudaStream_t s = 0) {
    $ck(cudaMemcpyAsync(ptr_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice, s));
  }
  void download(std::vector<T>& h, cudaStream_t s = 0) const {
    h.resize(n_);
    $ck(cudaMemcpyAsync(h.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost, s));
  }
  void zero(cudaStream_t s = 0) { $ck(cudaMemsetAsync(ptr_, 0, n_ * sizeof(T), s)); }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

template <typename T>
__global__ void $k(T* out, const T* a, const T* b, T alpha, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = alpha * a[i] + b[i] + out[i];
}

template <typename T>
static double $impl(size_t n, T alpha) {
  cudaStream_t stream;
  $ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  $buf<T> a(n), b(n), out(n);
  std::vector<T> h_a(n), h_b(n);
  for (size_t i = 0; i < n; ++i) {
    h_a[i] = static_cast<T>(i % $m);
    h_b[i] = static_cast<T>(1);
  }
  a.upload(h_a, stream);
  $up_b
  $zero
  auto launch = [&](T scale) {
    const int block = $b;
    const int grid = static_cast<int>((n + block - 1) / block);
    $k<T><<<grid, block, 0, stream>>>(out.data(), a.data(), b.data(), scale, n);
    $ck(cudaGetLastError());
  };
  for (int rep = 0; rep < $reps; ++rep) launch(alpha);
  std::vector<T> h_out;
  out.download(h_out, stream);
  $ck(cudaStreamSynchronize(stream));
  $ck(cudaStreamDestroy(stream));
  double s = 0.0;
  for (const T& v : h_out) s += static_cast<double>(v);
  return s;
}

static double $f() {
  return $impl<float>($n, $fa) + $impl<double>($n2, 0.5);
}
""", buf=buf, k=k, f=f, impl=impl, ck=c.ck, up_b=up_b, zero=zero, m=c.rng.choice([7, 17, 31]),
               b=c.block(), reps=c.rng.randint(1, 5), n=c.n(12, 20), n2=c.n(12, 18), fa=c.flt())
    return code, f"{f}()"


def blk_histogram(c):
    """Shared-memory histogram; stream is either own non-blocking or the legacy default."""
    k, f = c.kname(), c.fname("histogram")
    own = c.rng.random() < 0.5
    if own:
        setup = "cudaStream_t stream;\n  $ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));"
        launch = "$k<<<$grid, $b, 0, stream>>>(d_data, d_bins, n);"
        memset = "$ck(cudaMemsetAsync(d_bins, 0, kBins * sizeof(unsigned int), stream));"
        copyin = "$ck(cudaMemcpyAsync(d_data, data.data(), n, cudaMemcpyHostToDevice, stream));"
        copyout = ("$ck(cudaMemcpyAsync(bins, d_bins, sizeof(bins), cudaMemcpyDeviceToHost, stream));\n"
                   "  $ck(cudaStreamSynchronize(stream));\n  $ck(cudaStreamDestroy(stream));")
    else:
        setup = "// Runs entirely on the legacy default stream."
        launch = "$k<<<$grid, $b>>>(d_data, d_bins, n);"
        memset = "$ck(cudaMemset(d_bins, 0, kBins * sizeof(unsigned int)));"
        copyin = "$ck(cudaMemcpy(d_data, data.data(), n, cudaMemcpyHostToDevice));"
        copyout = "$ck(cudaMemcpy(bins, d_bins, sizeof(bins), cudaMemcpyDeviceToHost));"
    body = """
// 256-bin byte histogram: per-block privatized bins in shared memory.
__global__ void $k(const unsigned char* data, unsigned int* bins, int n) {
  __shared__ unsigned int local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&local[data[i]], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

static double $f() {
  constexpr int kBins = 256;
  const int n = $n;
  std::vector<unsigned char> data(n);
  unsigned int seed = $seed;
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    data[i] = static_cast<unsigned char>(seed >> 24);
  }
  unsigned int bins[kBins];
  std::memset(bins, 0, sizeof(bins));
  """ + setup + """
  unsigned char* d_data = nullptr;
  unsigned int* d_bins = nullptr;
  $ck(cudaMalloc(&d_data, n));
  $ck(cudaMalloc(&d_bins, kBins * sizeof(unsigned int)));
  """ + memset + """
  """ + copyin + """
  """ + launch + """
  $ck(cudaGetLastError());
  """ + copyout + """
  $ck(cudaFree(d_data));
  $ck(cudaFree(d_bins));
  double mean = 0.0;
  for (int b = 0; b < kBins; ++b) mean += static_cast<double>(b) * bins[b];
  return mean / n;
}
"""
    code = sub(body, k=k, f=f, ck=c.ck, n=c.n(), seed=c.rng.randint(1, 1 << 30),
               grid=c.rng.choice([64, 132, 256]), b=c.block())
    return code, f"{f}()"


def blk_transpose_worker(c):
    """Tiled transpose in a class that owns a blocking stream and uses cudaMemcpy."""
    k, cl, f = c.kname(), c.cname(), c.fname("transpose")
    tile = c.unique("kTile" + c.rng.choice(["", "Dim", "Size"]))
    rows = c.unique("kRows" + c.rng.choice(["", "PerPass", "Step"]))
    code = sub("""
constexpr int $tile = 32;
constexpr int $rows = $rv;

// Coalesced transpose through a padded shared-memory tile.
__global__ void $k(float* out, const float* in, int w, int h) {
  __shared__ float buf[$tile][$tile + 1];
  int x = blockIdx.x * $tile + threadIdx.x;
  int y = blockIdx.y * $tile + threadIdx.y;
  for (int j = 0; j < $tile; j += $rows) {
    if (x < w && y + j < h) buf[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  }
  __syncthreads();
  x = blockIdx.y * $tile + threadIdx.x;
  y = blockIdx.x * $tile + threadIdx.y;
  for (int j = 0; j < $tile; j += $rows) {
    if (x < h && y + j < w) out[(y + j) * h + x] = buf[threadIdx.x][threadIdx.y + j];
  }
}

class $cl {
 public:
  $cl(int w, int h) : w_(w), h_(h) {
    $ck(cudaStreamCreate(&stream_));
    $ck(cudaMalloc(&d_src_, bytes()));
    $ck(cudaMalloc(&d_dst_, bytes()));
  }
  ~$cl() {
    cudaFree(d_src_);
    cudaFree(d_dst_);
    cudaStreamDestroy(stream_);
  }

  double run(const std::vector<float>& img) {
    $ck(cudaMemcpy(d_src_, img.data(), bytes(), cudaMemcpyHostToDevice));
    const dim3 block($tile, $rows);
    const dim3 grid((w_ + $tile - 1) / $tile, (h_ + $tile - 1) / $tile);
    $k<<<grid, block, 0, stream_>>>(d_dst_, d_src_, w_, h_);
    $ck(cudaGetLastError());
    $ck(cudaStreamSynchronize(stream_));
    std::vector<float> out(img.size());
    $ck(cudaMemcpy(out.data(), d_dst_, bytes(), cudaMemcpyDeviceToHost));
    double diag = 0.0;
    for (int i = 0; i < std::min(w_, h_); ++i) diag += out[static_cast<size_t>(i) * h_ + i];
    return diag;
  }

 private:
  size_t bytes() const { return static_cast<size_t>(w_) * h_ * sizeof(float); }
  int w_, h_;
  cudaStream_t stream_ = nullptr;
  float* d_src_ = nullptr;
  float* d_dst_ = nullptr;
};

static double $f() {
  const int w = $w, h = $h;
  std::vector<float> img(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img[static_cast<size_t>(y) * w + x] = static_cast<float>(x - y);
  $cl worker(w, h);
  return worker.run(img);
}
""", k=k, cl=cl, f=f, ck=c.ck, tile=tile, rows=rows, rv=c.rng.choice([4, 8, 16]),
               w=c.rng.choice([256, 512, 1000, 2048]), h=c.rng.choice([256, 384, 1024]))
    return code, f"{f}()"


def blk_event_dag(c):
    """Producer/consumer on two streams joined by cudaStreamWaitEvent."""
    kp, kc, f = c.kname(), c.kname(), c.fname("dag")
    code = sub("""
// Producer writes on one stream; the consumer stream waits on an event before reading.
__global__ void $kp(float* buf, int n, float phase) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] = __sinf(0.001f * i + phase);
}

__global__ void $kc(const float* buf, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buf[i] * buf[i] + (i > 0 ? buf[i - 1] : 0.0f);
}

static double $f() {
  const int n = $n;
  const int block = $b;
  const int grid = (n + block - 1) / block;
  cudaStream_t producer, consumer;
  $ck(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
  $ck(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
  cudaEvent_t ready;
  $ck(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  float *d_buf = nullptr, *d_out = nullptr;
  $ck(cudaMalloc(&d_buf, n * sizeof(float)));
  $ck(cudaMalloc(&d_out, n * sizeof(float)));
  std::vector<float> h_out(n);
  double acc = 0.0;
  for (int round = 0; round < $rounds; ++round) {
    $kp<<<grid, block, 0, producer>>>(d_buf, n, 0.5f * round);
    $ck(cudaEventRecord(ready, producer));
    $ck(cudaStreamWaitEvent(consumer, ready, 0));
    $kc<<<grid, block, 0, consumer>>>(d_buf, d_out, n);
    $ck(cudaMemcpyAsync(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost, consumer));
    $ck(cudaStreamSynchronize(consumer));
    acc += h_out[round % n];
  }
  $ck(cudaEventDestroy(ready));
  $ck(cudaFree(d_buf));
  $ck(cudaFree(d_out));
  $ck(cudaStreamDestroy(producer));
  $ck(cudaStreamDestroy(consumer));
  return acc;
}
""", kp=kp, kc=kc, f=f, ck=c.ck, n=c.n(), b=c.block(), rounds=c.rng.randint(2, 10))
    return code, f"{f}()"


def blk_functor_apply(c):
    """Kernel templated on a functor, host template wrapper taking a stream."""
    k, f = c.kname(), c.fname("functors")
    op1 = c.unique(c.rng.choice(["Affine", "Scale", "Offset", "Gain"]) + "Op")
    op2 = c.unique(c.rng.choice(["Clamp", "Relu", "Square", "Soft"]) + "Op")
    apply = c.unique("apply_" + c.rng.choice(NOUNS))
    flags = c.rng.choice(["cudaStreamNonBlocking", "cudaStreamDefault"])
    tail_stream = c.rng.choice(["stream", "0"])
    code = sub("""
struct $op1 {
  float mul, add;
  __host__ __device__ float operator()(float x) const { return mul * x + add; }
};

struct $op2 {
  float limit;
  __host__ __device__ float operator()(float x) const { return x > limit ? limit : (x < 0.0f ? 0.0f : x); }
};

template <typename Op>
__global__ void $k(float* data, int n, Op op) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) data[i] = op(data[i]);
}

template <typename Op>
static void $apply(float* d, int n, Op op, cudaStream_t s) {
  const int block = $b;
  const int grid = std::min((n + block - 1) / block, $maxgrid);
  $k<Op><<<grid, block, 0, s>>>(d, n, op);
  $ck(cudaGetLastError());
}

static double $f() {
  const int n = $n;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % $m) - $off.0f;
  cudaStream_t stream;
  $ck(cudaStreamCreateWithFlags(&stream, $flags));
  float* d = nullptr;
  $ck(cudaMalloc(&d, n * sizeof(float)));
  $ck(cudaMemcpyAsync(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  $apply(d, n, $op1{$mul, $add}, stream);
  $apply(d, n, $op2{$lim}, $tail);
  $ck(cudaMemcpyAsync(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  $ck(cudaStreamSynchronize(stream));
  $ck(cudaFree(d));
  $ck(cudaStreamDestroy(stream));
  double s = 0.0;
  for (float v : h) s += v;
  return s;
}
""", k=k, f=f, ck=c.ck, op1=op1, op2=op2, apply=apply, flags=flags, tail=tail_stream, b=c.block(),
               maxgrid=c.rng.choice([256, 1024, 4096]), n=c.n(), m=c.rng.choice([50, 100, 300]),
               off=c.rng.choice([10, 25, 50]), mul=c.flt(), add=c.flt(), lim=c.rng.choice(["8.0f", "30.0f", "1.0f"]))
    return code, f"{f}()"


def blk_lambda_streams(c):
    """Round-robin over a std::vector of streams with a capturing lambda, loop of batches."""
    k, f = c.kname(), c.fname("batches")
    nst = c.rng.randint(2, 6)
    code = sub("""
__global__ void $k(float* out, const float* in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    out[i] = $expr;
  }
}

static double $f() {
  const int batches = $batches;
  const int per_batch = $per;
  std::vector<cudaStream_t> streams($nst);
  for (auto& s : streams) $ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *d_in = nullptr, *d_out = nullptr;
  const size_t total = static_cast<size_t>(batches) * per_batch;
  $ck(cudaMalloc(&d_in, total * sizeof(float)));
  $ck(cudaMalloc(&d_out, total * sizeof(float)));
  std::vector<float> h_in(total), h_out(total);
  for (size_t i = 0; i < total; ++i) h_in[i] = static_cast<float>(i % $m) * $scale;
  auto enqueue = [&](int batch) {
    cudaStream_t s = streams[batch % streams.size()];
    const size_t off = static_cast<size_t>(batch) * per_batch;
    $ck(cudaMemcpyAsync(d_in + off, h_in.data() + off, per_batch * sizeof(float), cudaMemcpyHostToDevice, s));
    $k<<<(per_batch + $b - 1) / $b, $b, 0, s>>>(d_out + off, d_in + off, $a, per_batch);
    $ck(cudaMemcpyAsync(h_out.data() + off, d_out + off, per_batch * sizeof(float), cudaMemcpyDeviceToHost, s));
  };
  for (int batch = 0; batch < batches; ++batch) enqueue(batch);
  for (auto& s : streams) $ck(cudaStreamSynchronize(s));
  double acc = 0.0;
  for (size_t i = 0; i < total; i += per_batch) acc += h_out[i];
  for (auto& s : streams) $ck(cudaStreamDestroy(s));
  $ck(cudaFree(d_in));
  $ck(cudaFree(d_out));
  return acc;
}
""", k=k, f=f, ck=c.ck, expr=c.expr(), batches=c.rng.randint(4, 32), per=c.n(12, 18), nst=nst,
               m=c.rng.choice([19, 77, 128]), scale=c.flt(), b=c.block(), a=c.flt())
    return code, f"{f}()"


# ----------------------------------------------------------------- newer-rule stages
# The stages below exercise syncwatch's newer rules: pageable async copies, implicit
# synchronization (cudaFree / cudaMalloc in loops and after stream work), synchronous
# copies in files that use streams, and synchronization inside launch loops. Each one
# also has a look-alike that the rules should leave alone (pinned buffers, the
# stream-ordered allocator, one sync after the loop).

def blk_pageable_staging(c):
    """Chunked upload/readback through malloc'd / new[] host buffers, an alias and a helper."""
    k, f = c.kname(), c.fname("staging")
    alloc = c.unique("alloc_host_" + c.rng.choice(NOUNS))
    src_alloc = c.rng.choice(["static_cast<float*>(std::malloc(bytes))", f"{alloc}(n)"])
    dst_kind = c.rng.choice(["new", "helper", "malloc"])
    if dst_kind == "new":
        dst_alloc, dst_free = "new float[n]", "delete[] h_dst;"
    elif dst_kind == "helper":
        dst_alloc, dst_free = f"{alloc}(n)", "std::free(h_dst);"
    else:
        dst_alloc, dst_free = "static_cast<float*>(std::malloc(bytes))", "std::free(h_dst);"
    if alloc not in src_alloc and alloc not in dst_alloc:
        src_alloc = f"{alloc}(n)"
    readback = c.rng.choice([
        "$ck(cudaMemcpyAsync(&h_dst[off], d_out + off, cnt * sizeof(float), cudaMemcpyDeviceToHost, stream));",
        "$ck(cudaMemcpyAsync(h_dst + off, d_out + off, cnt * sizeof(float), cudaMemcpyDeviceToHost, stream));",
    ])
    code = sub("""
// Host staging buffers come from malloc / new[]: the "async" copies below are staged by
// the host, so they do not overlap with the kernels.
static float* $alloc(size_t count) {
  float* p = static_cast<float*>(std::malloc(count * sizeof(float)));
  if (p == nullptr) {
    std::fprintf(stderr, "$alloc: out of host memory (%zu floats)\\n", count);
    std::exit(EXIT_FAILURE);
  }
  return p;
}

__global__ void $k(float* out, const float* in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    out[i] = $expr;
  }
}

static double $f() {
  const int n = $n;
  const int chunks = $chunks;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  cudaStream_t stream;
  $ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* h_src = $src_alloc;
  float* h_dst = $dst_alloc;
  for (int i = 0; i < n; ++i) h_src[i] = static_cast<float>(i % $m) * $scale;
  const float* src_view = h_src;
  float *d_in = nullptr, *d_out = nullptr;
  $ck(cudaMalloc(&d_in, bytes));
  $ck(cudaMalloc(&d_out, bytes));
  const int chunk = (n + chunks - 1) / chunks;
  for (int ci = 0; ci < chunks; ++ci) {
    const int off = ci * chunk;
    const int cnt = std::min(chunk, n - off);
    if (cnt <= 0) break;
    $ck(cudaMemcpyAsync(d_in + off, src_view + off, cnt * sizeof(float), cudaMemcpyHostToDevice, stream));
    $k<<<(cnt + $b - 1) / $b, $b, 0, stream>>>(d_out + off, d_in + off, $a, cnt);
    """ + readback + """
  }
  $ck(cudaGetLastError());
  $ck(cudaStreamSynchronize(stream));
  double acc = 0.0;
  for (int i = 0; i < n; i += $stride) acc += h_dst[i];
  $ck(cudaFree(d_in));
  $ck(cudaFree(d_out));
  $ck(cudaStreamDestroy(stream));
  std::free(h_src);
  $dst_free
  return acc;
}
""", k=k, f=f, ck=c.ck, alloc=alloc, src_alloc=src_alloc, dst_alloc=dst_alloc, dst_free=dst_free,
               expr=c.expr(), n=c.n(), chunks=c.rng.randint(2, 8), m=c.rng.choice([23, 97, 255]),
               scale=c.flt(), b=c.block(), a=c.flt(), stride=c.rng.choice([1, 8, 32]))
    return code, f"{f}()"


def blk_pageable_vector_param(c):
    """std::vector storage, a helper whose parameter always gets vector.data(), a C array."""
    k, f = c.kname(), c.fname("vectors")
    up = c.unique("upload_" + c.rng.choice(NOUNS))
    nsum = c.rng.choice([32, 64, 128])
    back = c.rng.choice([
        "$ck(cudaMemcpyAsync(&b[0], d_b, n * sizeof(float), cudaMemcpyDeviceToHost, stream));",
        "$ck(cudaMemcpyAsync(b.data(), d_b, n * sizeof(float), cudaMemcpyDeviceToHost, stream));",
    ])
    code = sub("""
// Every caller passes std::vector storage, so the copy in the helper is a pageable one.
static void $up(float* d_dst, const float* h_src, size_t count, cudaStream_t s) {
  $ck(cudaMemcpyAsync(d_dst, h_src, count * sizeof(float), cudaMemcpyHostToDevice, s));
}

// Combines two signals and writes per-block partial sums.
__global__ void $k(const float* a, float* b, float* partial, int n, int nsum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    b[i] = 0.5f * (a[i] + b[i]);
    atomicAdd(&partial[blockIdx.x % nsum], b[i]);
  }
}

static double $f() {
  const int n = $n;
  const int half = n / 2;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % $m) * $scale;
    b[i] = static_cast<float>((i * 7) % $m2);
  }
  float summary[$nsum];
  cudaStream_t stream;
  $ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *d_a = nullptr, *d_b = nullptr, *d_partial = nullptr;
  $ck(cudaMalloc(&d_a, n * sizeof(float)));
  $ck(cudaMalloc(&d_b, n * sizeof(float)));
  $ck(cudaMalloc(&d_partial, sizeof(summary)));
  $ck(cudaMemsetAsync(d_partial, 0, sizeof(summary), stream));
  $up(d_a, a.data(), static_cast<size_t>(n), stream);
  $up(d_b, b.data(), static_cast<size_t>(half), stream);
  $up(d_b + half, b.data() + half, static_cast<size_t>(n - half), stream);
  $k<<<(n + $b - 1) / $b, $b, 0, stream>>>(d_a, d_b, d_partial, n, $nsum);
  $ck(cudaGetLastError());
  $ck(cudaMemcpyAsync(summary, d_partial, sizeof(summary), cudaMemcpyDeviceToHost, stream));
  """ + back + """
  $ck(cudaStreamSynchronize(stream));
  double acc = 0.0;
  for (int i = 0; i < $nsum; ++i) acc += summary[i];
  acc += b[n - 1];
  $ck(cudaFree(d_a));
  $ck(cudaFree(d_b));
  $ck(cudaFree(d_partial));
  $ck(cudaStreamDestroy(stream));
  return acc;
}
""", k=k, f=f, ck=c.ck, up=up, nsum=nsum, n=c.n(), m=c.rng.choice([13, 50, 127]),
               m2=c.rng.choice([11, 31, 101]), scale=c.flt(), b=c.block())
    return code, f"{f}()"


def blk_pinned_copies(c):
    """Look-alike of the pageable stages: cudaMallocHost / cudaHostAlloc and a registered vector."""
    k, f = c.kname(), c.fname("pinned")
    alloc = c.rng.choice(["$ck(cudaMallocHost(&h_pinned, bytes));",
                          "$ck(cudaHostAlloc(&h_pinned, bytes, cudaHostAllocDefault));",
                          "$ck(cudaHostAlloc(reinterpret_cast<void**>(&h_pinned), bytes, cudaHostAllocPortable));"])
    code = sub("""
// Same copy pattern as the staging stages, but the host buffers are pinned: one from the
// pinned allocator, one std::vector registered with cudaHostRegister.
__global__ void $k(float* out, const float* in, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float x = in[i];
    out[i] = $expr;
  }
}

static double $f() {
  const int n = $n;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* h_pinned = nullptr;
  """ + alloc + """
  std::vector<float> results(n);
  $ck(cudaHostRegister(results.data(), bytes, cudaHostRegisterDefault));
  for (int i = 0; i < n; ++i) h_pinned[i] = static_cast<float>(i % $m) * $scale;
  cudaStream_t stream;
  $ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *d_in = nullptr, *d_out = nullptr;
  $ck(cudaMalloc(&d_in, bytes));
  $ck(cudaMalloc(&d_out, bytes));
  const float* upload_src = h_pinned;
  const int half = n / 2;
  $ck(cudaMemcpyAsync(d_in, upload_src, half * sizeof(float), cudaMemcpyHostToDevice, stream));
  $ck(cudaMemcpyAsync(d_in + half, upload_src + half, (n - half) * sizeof(float), cudaMemcpyHostToDevice, stream));
  $k<<<$grid, $b, 0, stream>>>(d_out, d_in, $a, n);
  $ck(cudaGetLastError());
  $ck(cudaMemcpyAsync(results.data(), d_out, half * sizeof(float), cudaMemcpyDeviceToHost, stream));
  $ck(cudaMemcpyAsync(results.data() + half, d_out + half, (n - half) * sizeof(float), cudaMemcpyDeviceToHost, stream));
  $ck(cudaStreamSynchronize(stream));
  double acc = 0.0;
  for (int i = 0; i < n; i += $stride) acc += results[i];
  $ck(cudaHostUnregister(results.data()));
  $ck(cudaFreeHost(h_pinned));
  $ck(cudaFree(d_in));
  $ck(cudaFree(d_out));
  $ck(cudaStreamDestroy(stream));
  return acc;
}
""", k=k, f=f, ck=c.ck, expr=c.expr(), n=c.n(), m=c.rng.choice([19, 64, 200]), scale=c.flt(),
               grid=c.rng.choice([132, 264, 528]), b=c.block(), a=c.flt(), stride=c.rng.choice([1, 4, 16]))
    return code, f"{f}()"


def blk_training_workspace(c):
    """Training loop that cudaMalloc's and cudaFree's a workspace each step; a free after launches."""
    kf, ku, f = c.kname(), c.kname(), c.fname("train")
    loop = c.rng.choice([
        ("for (int step = 0; step < steps; ++step) {", "const int batch = batch_sizes[step % batch_sizes.size()];"),
        ("for (int batch : batch_sizes) {", "const int step = batch % steps;"),
        ("int step = 0;\n  while (step < steps) {", "const int batch = batch_sizes[step++ % batch_sizes.size()];"),
    ])
    code = sub("""
// Forward pass into a per-step activation workspace, then an SGD update of the weights.
__global__ void $kf(const float* x, const float* w, float* act, int batch, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch * dim) act[i] = fmaxf(0.0f, x[i] * w[i % dim]);
}

__global__ void $ku(float* w, const float* act, int batch, int dim, float lr) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d >= dim) return;
  float g = 0.0f;
  for (int b = 0; b < batch; ++b) g += act[b * dim + d];
  w[d] -= lr * g / static_cast<float>(batch);
}

static double $f() {
  const int dim = $dim;
  const int max_batch = $maxb;
  const int steps = $steps;
  const std::vector<int> batch_sizes = {$b1, $b2, max_batch};
  cudaStream_t stream;
  $ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *d_x = nullptr, *d_w = nullptr;
  $ck(cudaMalloc(&d_x, static_cast<size_t>(max_batch) * dim * sizeof(float)));
  $ck(cudaMalloc(&d_w, dim * sizeof(float)));
  $ck(cudaMemsetAsync(d_x, 0, static_cast<size_t>(max_batch) * dim * sizeof(float), stream));
  $ck(cudaMemsetAsync(d_w, 0, dim * sizeof(float), stream));
  $loop_head
    $loop_batch
    float* d_act = nullptr;
    $ck(cudaMalloc(&d_act, static_cast<size_t>(batch) * dim * sizeof(float)));
    $kf<<<(batch * dim + $b - 1) / $b, $b, 0, stream>>>(d_x, d_w, d_act, batch, dim);
    $ku<<<(dim + $b - 1) / $b, $b, 0, stream>>>(d_w, d_act, batch, dim, $lr * (1.0f + step));
    $ck(cudaGetLastError());
    $ck(cudaFree(d_act));
  }
  // The input batch is no longer needed; it is released while the last update may still run.
  $ck(cudaFree(d_x));
  std::vector<float> w(dim);
  $ck(cudaStreamSynchronize(stream));
  $ck(cudaMemcpy(w.data(), d_w, dim * sizeof(float), cudaMemcpyDeviceToHost));
  double norm = 0.0;
  for (float v : w) norm += static_cast<double>(v) * v;
  $ck(cudaFree(d_w));
  $ck(cudaStreamDestroy(stream));
  return norm;
}
""", kf=kf, ku=ku, f=f, ck=c.ck, loop_head=loop[0], loop_batch=loop[1], dim=c.rng.choice([128, 256, 512, 1024]),
               maxb=c.rng.choice([32, 64, 128]), steps=c.rng.randint(3, 20), b1=c.rng.choice([8, 16]),
               b2=c.rng.choice([24, 32]), b=c.block(), lr=c.rng.choice(["0.01f", "0.001f", "0.05f"]))
    return code, f"{f}()"


def blk_stream_ordered_workspace(c):
    """Look-alike of the training loop: cudaMallocAsync / cudaFreeAsync on the stream."""
    k, f = c.kname(), c.fname("workspace")
    pool = c.rng.random() < 0.5
    pool_setup = ("""cudaMemPool_t pool;
  $ck(cudaDeviceGetDefaultMemPool(&pool, 0));
  unsigned long long threshold = ~0ull;
  $ck(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));"""
                  if pool else "// The default pool keeps freed blocks for the next step.")
    code = sub("""
// Per-step scratch from the stream-ordered allocator: no device-wide synchronization.
__global__ void $k(const float* in, float* scratch, float* out, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    scratch[i] = $expr;
    out[i] += scratch[i];
  }
}

static double $f() {
  const int n = $n;
  const int steps = $steps;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  cudaStream_t stream;
  $ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  """ + pool_setup + """
  float* h_probe = nullptr;
  $ck(cudaMallocHost(&h_probe, sizeof(float)));
  float *d_in = nullptr, *d_out = nullptr;
  $ck(cudaMallocAsync(&d_in, bytes, stream));
  $ck(cudaMallocAsync(&d_out, bytes, stream));
  $ck(cudaMemsetAsync(d_in, 0, bytes, stream));
  $ck(cudaMemsetAsync(d_out, 0, bytes, stream));
  for (int step = 0; step < steps; ++step) {
    float* d_scratch = nullptr;
    $ck(cudaMallocAsync(&d_scratch, bytes, stream));
    $k<<<(n + $b - 1) / $b, $b, 0, stream>>>(d_in, d_scratch, d_out, n, $a + step);
    $ck(cudaGetLastError());
    $ck(cudaFreeAsync(d_scratch, stream));
  }
  $ck(cudaMemcpyAsync(h_probe, d_out + n / 2, sizeof(float), cudaMemcpyDeviceToHost, stream));
  $ck(cudaFreeAsync(d_in, stream));
  $ck(cudaFreeAsync(d_out, stream));
  $ck(cudaStreamSynchronize(stream));
  const double probe = static_cast<double>(*h_probe);
  $ck(cudaFreeHost(h_probe));
  $ck(cudaStreamDestroy(stream));
  return probe;
}
""", k=k, f=f, ck=c.ck, expr=c.expr(), n=c.n(), steps=c.rng.randint(2, 24), b=c.block(), a=c.flt())
    return code, f"{f}()"


def blk_sync_copy_with_stream(c):
    """Synchronous cudaMemcpy / cudaMemset / cudaMemcpyToSymbol in a function that uses a stream."""
    k, f = c.kname(), c.fname("mixed")
    taps = c.unique("c_taps_" + c.rng.choice(NOUNS))
    ntaps = c.rng.choice([3, 5, 7, 9])
    create = c.rng.choice(["$ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));",
                           "$ck(cudaStreamCreate(&stream));"])
    dtod = c.rng.random() < 0.5
    dtod_line = ("$ck(cudaMemcpy(d_in, d_out, bytes, cudaMemcpyDeviceToDevice));" if dtod
                 else "$ck(cudaMemcpyAsync(d_in, d_out, bytes, cudaMemcpyDeviceToDevice, stream));")
    code = sub("""
__constant__ float $taps[$ntaps];

// FIR filter with constant-memory taps; the copies around it are synchronous although the
// kernels run on their own stream.
__global__ void $k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int t = 0; t < $ntaps; ++t) {
    int j = i - t;
    acc += $taps[t] * (j >= 0 ? in[j] : 0.0f);
  }
  out[i] = acc;
}

static double $f() {
  const int n = $n;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float taps[$ntaps];
  for (int t = 0; t < $ntaps; ++t) taps[t] = 1.0f / static_cast<float>($ntaps + t);
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = (i % $period) < $duty ? $scale : -$scale;
  cudaStream_t stream;
  """ + create + """
  float *d_in = nullptr, *d_out = nullptr;
  $ck(cudaMalloc(&d_in, bytes));
  $ck(cudaMalloc(&d_out, bytes));
  $ck(cudaMemcpyToSymbol($taps, taps, sizeof(taps)));
  $ck(cudaMemset(d_out, 0, bytes));
  $ck(cudaMemcpy(d_in, h.data(), bytes, cudaMemcpyHostToDevice));
  for (int pass = 0; pass < $passes; ++pass) {
    $k<<<(n + $b - 1) / $b, $b, 0, stream>>>(d_in, d_out, n);
    $ck(cudaStreamSynchronize(stream));
    """ + dtod_line + """
  }
  $ck(cudaGetLastError());
  $ck(cudaStreamSynchronize(stream));
  $ck(cudaMemcpy(h.data(), d_out, bytes, cudaMemcpyDeviceToHost));
  double acc = 0.0;
  for (int i = 0; i < n; i += $stride) acc += h[i];
  $ck(cudaFree(d_in));
  $ck(cudaFree(d_out));
  $ck(cudaStreamDestroy(stream));
  return acc;
}
""", k=k, f=f, ck=c.ck, taps=taps, ntaps=ntaps, n=c.n(), period=c.rng.choice([16, 40, 64]),
               duty=c.rng.choice([4, 8, 12]), scale=c.flt(), passes=c.rng.randint(1, 4), b=c.block(),
               stride=c.rng.choice([1, 8, 64]))
    return code, f"{f}()"


def blk_sync_in_loop(c):
    """Launch loops that synchronize every iteration: stream, device or event sync, a query spin."""
    k, f = c.kname(), c.fname("per_step")
    kind = c.rng.choice(["stream", "device", "event"])
    if kind == "stream":
        sync = "$ck(cudaStreamSynchronize(stream));"
    elif kind == "device":
        sync = "$ck(cudaDeviceSynchronize());"
    else:
        sync = "$ck(cudaEventRecord(done, stream));\n    $ck(cudaEventSynchronize(done));"
    spin = c.rng.random() < 0.6
    spin_code = ("""
  // Second phase: poll instead of blocking, but still once per launch.
  long long spins = 0;
  for (int rep = 0; rep < $reps; ++rep) {
    $k<<<grid, $b, 0, stream>>>(d_buf, n, 0.5f);
    while (cudaStreamQuery(stream) == cudaErrorNotReady) {
      ++spins;
    }
  }
  total += static_cast<double>(spins > 0 ? 1 : 0);""" if spin else "")
    code = sub("""
// Iterative relaxation that reads a convergence value back after every launch.
__global__ void $k(float* buf, int n, float w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) buf[i] = (1.0f - w) * buf[i] + 0.5f * w * (buf[i - 1] + buf[i + 1]);
}

static double $f() {
  const int n = $n;
  const int grid = (n + $b - 1) / $b;
  cudaStream_t stream;
  $ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t done;
  $ck(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  float* d_buf = nullptr;
  float* h_probe = nullptr;
  $ck(cudaMalloc(&d_buf, n * sizeof(float)));
  $ck(cudaMallocHost(&h_probe, sizeof(float)));
  $ck(cudaMemsetAsync(d_buf, 0, n * sizeof(float), stream));
  double total = 0.0;
  for (int iter = 0; iter < $iters; ++iter) {
    $k<<<grid, $b, 0, stream>>>(d_buf, n, $w);
    $ck(cudaMemcpyAsync(h_probe, d_buf + n / 2, sizeof(float), cudaMemcpyDeviceToHost, stream));
    """ + sync + """
    total += *h_probe;
    if (*h_probe > $tol) break;
  }""" + spin_code + """
  $ck(cudaStreamSynchronize(stream));
  $ck(cudaEventDestroy(done));
  $ck(cudaFreeHost(h_probe));
  $ck(cudaFree(d_buf));
  $ck(cudaStreamDestroy(stream));
  return total;
}
""", k=k, f=f, ck=c.ck, n=c.n(), b=c.block(), iters=c.rng.randint(4, 64), w=c.rng.choice(["0.5f", "0.8f", "1.2f"]),
               tol=c.rng.choice(["1e6f", "1e3f", "100.0f"]), reps=c.rng.randint(2, 8))
    return code, f"{f}()"


def blk_sync_after_loop(c):
    """Look-alike of the per-step sync: work queued in the loop, one sync after it."""
    k, f = c.kname(), c.fname("queued")
    wait = c.rng.choice([
        "$ck(cudaStreamSynchronize(stream));",
        "$ck(cudaEventRecord(done, stream));\n  $ck(cudaEventSynchronize(done));",
        ("$ck(cudaEventRecord(done, stream));\n  while (cudaEventQuery(done) == cudaErrorNotReady) {\n    ++polls;\n  }\n"
         "  $ck(cudaEventSynchronize(done));  // completed by now; reports any error of the queued work"),
    ])
    code = sub("""
// All iterations are queued back to back; the host waits once, after the loop.
__global__ void $k(float* out, const float* in, float a, int n, int iter) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i] + static_cast<float>(iter);
    out[i] = $expr;
  }
}

static double $f() {
  const int n = $n;
  const int iters = $iters;
  cudaStream_t stream;
  $ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t done;
  $ck(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  float *d_in = nullptr, *d_out = nullptr, *h_out = nullptr;
  $ck(cudaMalloc(&d_in, n * sizeof(float)));
  $ck(cudaMalloc(&d_out, iters * static_cast<size_t>(n) * sizeof(float)));
  $ck(cudaMallocHost(&h_out, iters * static_cast<size_t>(n) * sizeof(float)));
  $ck(cudaMemsetAsync(d_in, 0, n * sizeof(float), stream));
  long long polls = 0;
  for (int iter = 0; iter < iters; ++iter) {
    float* slot = d_out + static_cast<size_t>(iter) * n;
    $k<<<(n + $b - 1) / $b, $b, 0, stream>>>(slot, d_in, $a, n, iter);
    $ck(cudaMemcpyAsync(h_out + static_cast<size_t>(iter) * n, slot, n * sizeof(float),
                        cudaMemcpyDeviceToHost, stream));
  }
  $ck(cudaGetLastError());
  $wait
  if (polls > (1LL << 40)) std::printf("  $f: long wait\\n");
  double acc = 0.0;
  for (int iter = 0; iter < iters; ++iter) acc += h_out[static_cast<size_t>(iter) * n + iter % n];
  $ck(cudaFreeHost(h_out));
  $ck(cudaFree(d_in));
  $ck(cudaFree(d_out));
  $ck(cudaEventDestroy(done));
  $ck(cudaStreamDestroy(stream));
  return acc;
}
""", k=k, f=f, ck=c.ck, wait=sub(wait, ck=c.ck), expr=c.expr(), n=c.n(12, 18), iters=c.rng.randint(2, 16),
               b=c.block(), a=c.flt())
    return code, f"{f}()"


def blk_struct_host_member(c):
    """A job struct whose host pointer member is malloc'd in the same function, then copied async."""
    st, k, f = c.unique(c.rng.choice(["Loader", "Upload", "Batch", "Transfer"]) + "Job"), c.kname(), c.fname("jobs")
    code = sub("""
struct $st {
  float* host = nullptr;
  float* dev = nullptr;
  size_t count = 0;
  cudaStream_t stream = nullptr;
};

// Standardizes a batch in place on the job's own stream.
__global__ void $k(float* x, size_t n, float mean, float inv_std) {
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (x[i] - mean) * inv_std;
}

static double $f() {
  const int features = $feat;
  const int batch = $batch;
  $st job;
  job.count = static_cast<size_t>(batch) * features;
  job.host = static_cast<float*>(std::malloc(job.count * sizeof(float)));
  for (size_t i = 0; i < job.count; ++i) job.host[i] = static_cast<float>(i % $m);
  $ck(cudaStreamCreateWithFlags(&job.stream, cudaStreamNonBlocking));
  $ck(cudaMalloc(&job.dev, job.count * sizeof(float)));
  $ck(cudaMemcpyAsync(job.dev, job.host, job.count * sizeof(float), cudaMemcpyHostToDevice, job.stream));
  const unsigned blocks = static_cast<unsigned>((job.count + $b - 1) / $b);
  $k<<<blocks, $b, 0, job.stream>>>(job.dev, job.count, $mean, 1.0f / $std);
  $ck(cudaGetLastError());
  $ck(cudaMemcpyAsync(job.host, job.dev, job.count * sizeof(float), cudaMemcpyDeviceToHost, job.stream));
  $ck(cudaStreamSynchronize(job.stream));
  const double acc = job.host[job.count / 2];
  $ck(cudaFree(job.dev));
  $ck(cudaStreamDestroy(job.stream));
  std::free(job.host);
  return acc;
}
""", st=st, k=k, f=f, ck=c.ck, feat=c.rng.choice([64, 128, 784, 1024]),
               batch=c.rng.choice([32, 64, 256]), m=c.rng.choice([255, 100, 17]), b=c.block(),
               mean=c.rng.choice(["127.5f", "0.5f", "8.0f"]), std=c.rng.choice(["64.0f", "0.25f", "4.0f"]))
    return code, f"{f}()"


BLOCKS = [blk_elementwise_default, blk_gridstride_stream0, blk_reduction, blk_warp_reduce,
          blk_stencil1d_blocking, blk_stencil2d_events, blk_class_pipeline, blk_device_buffer,
          blk_histogram, blk_transpose_worker, blk_event_dag, blk_functor_apply,
          blk_lambda_streams,
          # newer rules: pageable async copies, implicit sync, sync copies, sync in loops
          blk_pageable_staging, blk_pageable_vector_param, blk_pinned_copies,
          blk_training_workspace, blk_stream_ordered_workspace, blk_sync_copy_with_stream,
          blk_sync_in_loop, blk_sync_after_loop, blk_struct_host_member]


def helper_fn(c):
    """A small host-only helper (used to pad files to MIN_LINES)."""
    f = c.unique(f"check_{c.rng.choice(NOUNS)}")
    code = sub("""
// Host-side sanity check used by the drivers below.
static bool $f(const std::vector<float>& v, float lo, float hi) {
  int bad = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] < lo || v[i] > hi) {
      if (bad < $report) std::fprintf(stderr, "  $f: v[%zu] = %f out of range\\n", i, v[i]);
      ++bad;
    }
  }
  return bad == 0;
}
""", f=f, report=c.rng.choice([3, 5, 10]))
    call = f"({f}(std::vector<float>({c.rng.randint(4, 64)}, 1.0f), 0.0f, 2.0f) ? 1.0 : 0.0)"
    return code, call


# --------------------------------------------------------------------------- file

def prelude(c, name, nblocks_hint):
    r = c.rng
    opt = r.sample(OPT_HEADERS, r.randint(1, 4))
    headers = ["<cuda_runtime.h>", "<cstdio>", "<cstdlib>", "<cstring>", "<vector>",
               "<algorithm>", "<utility>"]
    for h in opt:
        if h not in headers:
            headers.append(h)
    # cuda_runtime.h first or last, like real code does both.
    if r.random() < 0.3:
        headers = headers[1:] + headers[:1]
    lines = [f"// {name}: {r.choice(DOMAINS)} processing on the GPU.",
             f"// Generated benchmark input (syncwatch bench/gen_corpus.py); "
             f"{nblocks_hint} stages.",
             ""]
    lines += [f"#include {h}" for h in headers]
    lines.append("")
    ck = c.ck
    if r.random() < 0.6:
        lines += [
            f"#define {ck}(call)".ljust(75) + " \\",
            "  do {                                                                      \\",
            "    cudaError_t err_ = (call);                                              \\",
            "    if (err_ != cudaSuccess) {                                              \\",
            "      std::fprintf(stderr, \"CUDA error %s at %s:%d: %s\\n\", #call, __FILE__, \\",
            "                   __LINE__, cudaGetErrorString(err_));                     \\",
            "      std::exit(EXIT_FAILURE);                                              \\",
            "    }                                                                       \\",
            "  } while (0)",
        ]
    else:
        helper = c.unique("check_cuda_status")
        lines += [
            f"static void {helper}(cudaError_t err, const char* what, const char* file, int line) {{",
            "  if (err != cudaSuccess) {",
            "    std::fprintf(stderr, \"%s:%d: %s failed: %s\\n\", file, line, what, cudaGetErrorString(err));",
            "    std::exit(EXIT_FAILURE);",
            "  }",
            "}",
            f"#define {ck}(call) {helper}((call), #call, __FILE__, __LINE__)",
        ]
    return "\n".join(lines) + "\n"


def main_fn(c, calls):
    r = c.rng
    iters = r.randint(1, 3)
    body = ["", "int main(int argc, char** argv) {",
            "  int device = argc > 1 ? std::atoi(argv[1]) : 0;",
            f"  {c.ck}(cudaSetDevice(device));",
            "  cudaDeviceProp prop;",
            f"  {c.ck}(cudaGetDeviceProperties(&prop, device));",
            "  std::printf(\"device %d: %s (%d SMs)\\n\", device, prop.name, prop.multiProcessorCount);",
            "  double checksum = 0.0;"]
    if iters > 1:
        body.append(f"  for (int iter = 0; iter < {iters}; ++iter) {{")
        body += [f"    checksum += {call};" for call in calls]
        body.append("  }")
    else:
        body += [f"  checksum += {call};" for call in calls]
    body += ["  std::printf(\"checksum %.6f\\n\", checksum);"]
    if r.random() < 0.5:
        body.append(f"  {c.ck}(cudaDeviceSynchronize());")
    body += ["  return 0;", "}", ""]
    return "\n".join(body)


def count_lines(s):
    return s.count("\n")


def gen_file(seed, index):
    rng = random.Random(f"{seed}:{index}")
    c = Ctx(rng)
    name = f"{rng.choice(DOMAINS)}_{rng.choice(['app', 'tool', 'bench', 'demo', 'kernels', 'pipeline'])}_{index:03d}"
    target = rng.randint(MIN_LINES + 20, MAX_LINES - 10)
    parts, calls = [], []
    pre_est, main_est = 30, 16
    total = pre_est + main_est
    order = []
    attempts = 0
    while total < target and attempts < 60:
        attempts += 1
        if not order:  # every kind once, in a random order, before any repeats
            order = BLOCKS[:]
            rng.shuffle(order)
        fn = order.pop()
        code, call = fn(c)
        n = count_lines(code)
        if total + n > MAX_LINES - 12:
            continue
        parts.append(code)
        calls.append(call)
        total += n + 1
    while total < MIN_LINES + 5:
        code, call = helper_fn(c)
        parts.append(code)
        calls.append(call)
        total += count_lines(code) + 1
    src = prelude(c, name, len(parts)) + "".join(parts) + main_fn(c, calls)
    return name + ".cu", src


# --------------------------------------------------------------------------- builds

# nvcc flag profiles of real CMake CUDA targets (what CMake writes into compile_commands.json).
NVCC_PROFILES = [
    ["--generate-code=arch=compute_90,code=[compute_90,sm_90]"],
    ["--generate-code=arch=compute_90,code=[compute_90,sm_90]", "--default-stream", "per-thread"],
    ["--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-rdc=true", "--extended-lambda",
     "--expt-relaxed-constexpr"],
    ["--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-Xcompiler=-fopenmp", "-Xcompiler=-fPIC"],
    ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90", "-lineinfo"],
    ["-arch=sm_90", "-std=c++20", "--use_fast_math", "-Xcompiler", "-Wall,-Wextra", "-t", "2"],
    ["-arch=native", "--default-stream", "legacy", "-G", "-g", "-Xptxas", "-v",
     "-Xcudafe", "--diag_suppress=177"],
]


def host_cpp_file(seed, index):
    """A host-only .cpp (built by g++) that calls the CUDA runtime: a buffer pool class."""
    rng = random.Random(f"{seed}:cpp:{index}")
    cls = f"{rng.choice(CLASS_PRE)}{rng.choice(CLASS_POST)}"
    n = 1 << rng.randint(12, 20)
    pinned = rng.random() < 0.4
    alloc = ("cudaMallocHost(&host_, n * sizeof(float))" if pinned
             else "(host_ = static_cast<float*>(std::malloc(n * sizeof(float))), cudaSuccess)")
    free = "cudaFreeHost(host_)" if pinned else "(std::free(host_), cudaSuccess)"
    sync = rng.choice(["cudaStreamSynchronize(stream_)", "cudaDeviceSynchronize()"])
    src = sub("""// $cls: a host-side buffer pool (plain C++, built by g++, linked with cudart).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define HOST_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \\
  std::fprintf(stderr, "%s: %s\\n", #call, cudaGetErrorString(e_)); std::exit(1); } } while (0)

class $cls {
public:
  explicit $cls(size_t n) : n_(n) {
    HOST_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    HOST_CHECK(cudaMalloc(&device_, n * sizeof(float)));
    HOST_CHECK($alloc);
  }
  ~$cls() {
    HOST_CHECK($free);
    HOST_CHECK(cudaFree(device_));
    HOST_CHECK(cudaStreamDestroy(stream_));
  }
  double roundTrip(const std::vector<float>& values) {
    const size_t n = values.size() < n_ ? values.size() : n_;
    for (size_t i = 0; i < n; ++i) host_[i] = values[i];
    for (int rep = 0; rep < $reps; ++rep) {
      HOST_CHECK(cudaMemcpyAsync(device_, host_, n * sizeof(float), cudaMemcpyHostToDevice, stream_));
      HOST_CHECK(cudaMemsetAsync(device_, 0, sizeof(float), stream_));
      HOST_CHECK(cudaMemcpyAsync(host_, device_, n * sizeof(float), cudaMemcpyDeviceToHost, stream_));
      HOST_CHECK($sync);
    }
    HOST_CHECK(cudaMemcpyAsync(device_, values.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream_));
    HOST_CHECK(cudaStreamSynchronize(stream_));
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += host_[i];
    return s;
  }

private:
  size_t n_ = 0;
  float* device_ = nullptr;
  float* host_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

int main() {
  $cls pool($n);
  std::vector<float> v($n, 1.0f);
  std::printf("%f\\n", pool.roundTrip(v));
  return 0;
}
""", cls=cls, n=n, alloc=alloc, free=free, sync=sync, reps=rng.randint(2, 6))
    return f"host_{cls.lower()}_{index:04d}.cpp", src


BROKEN_KINDS = ["syntax", "undeclared", "missing_header", "truncated", "garbage", "recursion",
                "include_cycle", "nesting", "launch_config", "nul_bytes", "error_directive"]


def broken_file(seed, index):
    """A file that must be reported as a tool error (never crash or hang the tool)."""
    kind = BROKEN_KINDS[index % len(BROKEN_KINDS)]
    name, good = gen_file(seed, index)
    base = f"broken_{kind}_{index:04d}"
    if kind == "syntax":          # an unbalanced brace in the middle of the file
        cut = good.find("{", len(good) // 2)
        src = good[:cut] + "{ {" + good[cut:]
    elif kind == "undeclared":
        src = good.replace("int main(", "static void probe() { undeclared_stream_pool.flush(0); }\nint main(", 1)
    elif kind == "missing_header":
        src = '#include "generated/config_not_generated_yet.h"\n' + good
    elif kind == "truncated":     # a write cut short
        src = good[: len(good) * 2 // 3]
    elif kind == "garbage":       # an object file checked in under a .cu name
        rng = random.Random(f"{seed}:garbage:{index}")
        return base + ".cu", bytes(rng.randrange(256) for _ in range(4096))
    elif kind == "recursion":     # runaway template instantiation (clang stops at its depth limit)
        src = good + ("\ntemplate <int N> struct Unroll { static constexpr int value = Unroll<N + 1>::value; };\n"
                      "static int unrolled = Unroll<0>::value;\n")
    elif kind == "include_cycle":
        src = f'#include "{base}.cu"\n' + good
    elif kind == "nesting":       # parentheses nested beyond clang's bracket limit
        src = good + "\nstatic int nested = " + "(" * 5000 + "1" + ")" * 5000 + ";\n"
    elif kind == "launch_config":
        src = good.replace("<<<", "<<<1>>>(nullptr); // ", 1) if "<<<" in good else good + "\n#error no launch\n"
        src += "\n__global__ void lone_k(int) {}\nvoid bad_launch() { lone_k<<<>>>(1); }\n"
    elif kind == "nul_bytes":
        src = good[: len(good) // 2] + "\0\0\0 stray \0" + good[len(good) // 2:]
    else:                         # error_directive
        src = "#if !defined(PROJECT_CONFIGURED)\n#error \"run configure first\"\n#endif\n" + good
    return base + ".cu", src.encode("utf-8", "surrogateescape")


def write_build(out_dir, count, seed, broken_every, cpp_every):
    """The corpus as a build: sources plus the compile_commands.json nvcc and g++ write."""
    db = []
    nvcc = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
    obj = os.path.join(out_dir, "obj")
    for i in range(count):
        rng = random.Random(f"{seed}:flags:{i}")
        if broken_every and i % broken_every == broken_every - 1:
            fname, data = broken_file(seed, i)
        elif cpp_every and i % cpp_every == cpp_every - 1:
            fname, src = host_cpp_file(seed, i)
            data = src.encode()
        else:
            fname, src = gen_file(seed, i)
            data = src.encode()
        path = os.path.join(out_dir, fname)
        with open(path, "wb") as fh:
            fh.write(data)
        if fname.endswith(".cpp"):
            cmd = ["/usr/bin/c++", "-isystem", "/usr/local/cuda/targets/x86_64-linux/include",
                   "-O2", "-DNDEBUG", "-std=gnu++17", rng.choice(["-fPIC", "-fopenmp", "-Werror"]),
                   "-o", os.path.join(obj, fname + ".o"), "-c", path]
        else:
            cmd = [nvcc, "-forward-unknown-to-host-compiler", "-O3", "-DNDEBUG",
                   *rng.choice(NVCC_PROFILES), "-x", "cu", "-c", path, "-o", os.path.join(obj, fname + ".o")]
        db.append({"directory": out_dir, "command": " ".join(shlex.quote(a) for a in cmd), "file": path})
    with open(os.path.join(out_dir, "compile_commands.json"), "w") as fh:
        json.dump(db, fh, indent=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("-n", "--count", type=int, default=200, help="number of files (default 200)")
    ap.add_argument("--seed", default="1", help="corpus seed (default 1)")
    ap.add_argument("--database", action="store_true",
                    help="also write compile_commands.json (nvcc / g++ commands)")
    ap.add_argument("--broken-every", type=int, default=0, metavar="K",
                    help="with --database: every K-th file is deliberately broken")
    ap.add_argument("--cpp-every", type=int, default=0, metavar="M",
                    help="with --database: every M-th file is a host-only .cpp built by g++")
    args = ap.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    if args.database:
        write_build(os.path.abspath(args.out_dir), args.count, args.seed, args.broken_every, args.cpp_every)
        return 0
    for i in range(args.count):
        fname, src = gen_file(args.seed, i)
        n = count_lines(src)
        if not MIN_LINES <= n <= MAX_LINES:
            sys.exit(f"gen_corpus: internal error: {fname} has {n} lines")
        with open(os.path.join(args.out_dir, fname), "w") as fh:
            fh.write(src)
    return 0


if __name__ == "__main__":
    sys.exit(main())
