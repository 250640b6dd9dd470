// Each way a CUDA graph capture fails, once, in one process: the recording that
// tests/runtime/capture_pass_test.py holds syncwatch's capture pass to (each failure named at
// its line and thread; the other-thread case names both threads and the line that began the
// capture). Like a real program, it checks nothing it does not have to: the failing calls'
// errors are printed, not fatal, and the program goes on to the next capture.
//
// Usage: capture_failures [rounds]   (the good capture is replayed `rounds` times, default 20)
// Each line that should be named carries a marker comment (BREAKS: <class>); the test reads
// the lines from this file.
#include <cuda_runtime.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

__global__ void scale(float *x, int n, float by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= by;
}

namespace {

constexpr int N = 1 << 16;

void report(const char *what, cudaError_t e) { std::printf("%s: %s\n", what, cudaGetErrorName(e)); }

// Ends the capture of s and says what it gave; a graph that was made is freed.
void endCapture(const char *what, cudaStream_t s) {
  cudaGraph_t g = nullptr;
  cudaError_t e = cudaStreamEndCapture(s, &g);
  report(what, e);
  if (g)
    cudaGraphDestroy(g);
  cudaGetLastError();  // the next capture starts clean
}

// A stream synchronize inside the capture (same thread): cudaErrorStreamCaptureUnsupported.
void syncInCapture(cudaStream_t s, float *d) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<N / 256, 256, 0, s>>>(d, N, 2.f);
  report("sync", cudaStreamSynchronize(s));  // BREAKS: sync
  endCapture("sync end", s);
}

// A legacy-stream launch while a blocking stream is captured: cudaErrorStreamCaptureImplicit.
void legacyInCapture(cudaStream_t blocking, float *d) {
  cudaStreamBeginCapture(blocking, cudaStreamCaptureModeThreadLocal);
  scale<<<N / 256, 256, 0, blocking>>>(d, N, 2.f);
  scale<<<N / 256, 256>>>(d, N, 0.5f);  // BREAKS: legacy
  report("legacy", cudaGetLastError());
  endCapture("legacy end", blocking);
}

// cudaMalloc inside a thread-local capture: potentially unsafe, so not permitted.
void mallocInCapture(cudaStream_t s) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  float *tmp = nullptr;
  report("malloc", cudaMalloc(&tmp, 4096));  // BREAKS: malloc
  endCapture("malloc end", s);
}

// A query of an event recorded inside the capture: cudaErrorCapturedEvent (relaxed mode too).
void queryCapturedEvent(cudaStream_t s, cudaEvent_t ev, float *d) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  scale<<<N / 256, 256, 0, s>>>(d, N, 2.f);
  cudaEventRecord(ev, s);
  report("event query", cudaEventQuery(ev));  // BREAKS: event-query
  endCapture("event query end", s);
}

// A stream forked from the capture and never joined back: the end fails (Unjoined).
void unjoinedFork(cudaStream_t s, cudaStream_t side, cudaEvent_t fork, float *d) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaEventRecord(fork, s);
  cudaStreamWaitEvent(side, fork, 0);
  scale<<<N / 256, 256, 0, side>>>(d, N, 2.f);
  cudaGraph_t g = nullptr;
  report("unjoined end", cudaStreamEndCapture(s, &g));  // BREAKS: unjoined
  cudaGetLastError();
}

// Another thread allocates pinned memory while this one captures in global mode: the
// allocation fails, and this thread's capture is invalidated (the vLLM / TensorRT reports).
void otherThreadBreaks(cudaStream_t s, float *d) {
  std::mutex m;
  std::condition_variable cv;
  int stage = 0;  // 1: capturing; 2: the loader's allocation is done
  std::thread loader([&] {
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [&] { return stage == 1; });
    void *pinned = nullptr;
    report("loader pinned alloc", cudaMallocHost(&pinned, 1 << 20));  // BREAKS: other-thread
    if (pinned)
      cudaFreeHost(pinned);
    stage = 2;
    cv.notify_all();
  });
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);  // BEGINS: other-thread
  scale<<<N / 256, 256, 0, s>>>(d, N, 2.f);
  {
    std::unique_lock<std::mutex> l(m);
    stage = 1;
    cv.notify_all();
    cv.wait(l, [&] { return stage == 2; });
  }
  scale<<<N / 256, 256, 0, s>>>(d, N, 0.5f);
  endCapture("other thread end", s);
  loader.join();
}

// A capture that works: three kernels, instantiated and replayed.
void goodCapture(cudaStream_t s, float *d, int rounds) {
  cudaGraph_t g = nullptr;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  for (int k = 0; k < 3; ++k)
    scale<<<N / 256, 256, 0, s>>>(d, N, k % 2 ? 2.f : 0.5f);
  report("good end", cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec = nullptr;
  if (cudaGraphInstantiate(&exec, g, 0) == cudaSuccess) {
    for (int r = 0; r < rounds; ++r)
      cudaGraphLaunch(exec, s);
    cudaStreamSynchronize(s);
    cudaGraphExecDestroy(exec);
  }
  cudaGraphDestroy(g);
}

} // namespace

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  float *d = nullptr;
  if (cudaMalloc(&d, N * sizeof(float)) != cudaSuccess) {
    std::printf("no GPU\n");
    return 1;
  }
  cudaMemset(d, 0, N * sizeof(float));
  cudaStream_t s, blocking, side;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamCreate(&blocking);
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEvent_t ev, fork;
  cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaDeviceSynchronize();

  syncInCapture(s, d);
  legacyInCapture(blocking, d);
  mallocInCapture(s);
  queryCapturedEvent(s, ev, d);
  unjoinedFork(s, side, fork, d);
  otherThreadBreaks(s, d);
  goodCapture(s, d, rounds);

  cudaDeviceSynchronize();
  cudaEventDestroy(ev);
  cudaEventDestroy(fork);
  cudaStreamDestroy(s);
  cudaStreamDestroy(blocking);
  cudaStreamDestroy(side);
  cudaFree(d);
  std::printf("done\n");
  return 0;
}
