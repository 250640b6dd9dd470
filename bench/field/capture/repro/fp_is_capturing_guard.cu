// After eaa156d: the current syncwatch-lint is SILENT on this file (the cudaStreamCaptureStatusNone guard is read); the "reported" remarks below describe the first field run.
// FP class 1, variant (not among the field findings; found while checking them): a call guarded
// by cudaStreamIsCapturing on the captured stream is reported as well, as is a guard on a
// program-side counter. warp.cu:2926 has this shape
// (`if (status == cudaStreamCaptureStatusNone) cudaDeviceSynchronize();`) but is not reached from
// a capture the rule saw, so it was not reported in the field run.
#include <cuda_runtime.h>
__global__ void k() {}

static void maybe_sync(cudaStream_t s)
{
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(s, &st);
    if (st == cudaStreamCaptureStatusNone)
        cudaDeviceSynchronize();            // reported; never runs while s is captured
}

void f(cudaStream_t s)
{
    cudaGraph_t g;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    k<<<1, 1, 0, s>>>();
    maybe_sync(s);
    cudaStreamEndCapture(s, &g);
}
