// After eaa156d: the current syncwatch-lint is SILENT on this file (stage() ends and resumes the capture itself, so it begins none); warp's split form, pause and resume in two helpers, is still reported (see ../README.md).
// FP class: a helper that pauses and resumes a capture the caller may already have
// (cudaStreamEndCapture ... cudaStreamBeginCaptureToGraph with the saved mode) is taken as a
// helper that *begins* a capture: everything after its call is treated as captured, also on
// the path where no capture was active (and in "unknown mode", as the mode is a variable).
// Field origin: NVIDIA/warp warp/native/warp.cu:1432 capturable_tmp_alloc() (pause/resume via
// wp_cuda_graph_pause_capture / wp_cuda_graph_resume_capture) -> findings at warp.cu:382,383
// noted "the capture begins here" at 1432.
#include <cuda_runtime.h>

static cudaStreamCaptureMode g_mode = cudaStreamCaptureModeGlobal;

static void* stage(cudaStream_t s, size_t n)
{
    void* p = nullptr;
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(s, &st);
    if (st == cudaStreamCaptureStatusActive) {
        cudaGraph_t g = nullptr;
        cudaStreamEndCapture(s, &g);                                         // pause
        cudaMalloc(&p, n);                                                    // not captured
        cudaStreamBeginCaptureToGraph(s, g, nullptr, nullptr, 0, g_mode);     // resume
    } else {
        cudaMalloc(&p, n);
    }
    return p;
}

void eager_step(cudaStream_t s)        // never captured: no capture is active here
{
    void* p = stage(s, 256);
    cudaStreamSynchronize(s);          // reported as inside a capture begun at stage()
    cudaFree(p);
}
