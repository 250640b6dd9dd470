// The pipeline's stages, defined in ops.cu: train.cu only sees these declarations, so what
// each one does to the work on its stream is known from ops.cu's summary alone.
#pragma once
#include <cuda_runtime.h>

// Launches the scaling kernel on `stream` and returns: the kernel is still running.
void scale_async(float *data, int n, cudaStream_t stream);
// Waits for everything queued on `stream`.
void finish(cudaStream_t stream);
// Frees a device buffer.
void release(float *data);
// Host-side bookkeeping only.
void log_step(int step);
// Copies on `stream` and waits for it.
void fetch(float *host, const float *dev, int n, cudaStream_t stream);
