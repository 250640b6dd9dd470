// After eaa156d: the current syncwatch-lint is SILENT on this file (the guard on g_active_captures is read; warp.cu:1039, where the guarded call is a variable's initializer, is still reported: see ../README.md); the "reported" remarks below describe the first field run.
// FP class: a call guarded by the program's own record of active captures.
// Field origin: NVIDIA/warp warp/native/warp.cu:912,1039 (cudaFreeAsync(ptr, NULL) under
// `if (g_captures.empty())`, else deferred_free) and :794 (cudaFree, same guard);
// ggml's `use_cuda_graph = false` (ggml-cuda.cu:1972/1993) is the same pattern with a flag.
// release() frees only when no capture is registered, so the cudaFree never runs inside one.
#include <cuda_runtime.h>
#include <vector>

__global__ void k(float* p) { p[0] = 1.f; }

static int g_active_captures = 0;          // the program's registry of its captures
static std::vector<void*> g_deferred;

static void release(void* p)
{
    if (g_active_captures == 0) {
        cudaFree(p);                       // reported: 'cudaFree' ... while a stream is captured
    } else {
        g_deferred.push_back(p);           // the path taken during a capture
    }
}

void step(cudaStream_t s, float* buf, void* scratch)
{
    cudaGraph_t g;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    ++g_active_captures;
    k<<<1, 1, 0, s>>>(buf);
    release(scratch);
    cudaStreamEndCapture(s, &g);
    --g_active_captures;
}
