// What libsyncwatch.so decides at a call's entry - record it or not, trace kernels from now
// or not - with a fake driver standing in for cuStreamGetFlags / cuStreamGetPriority /
// cuPointerGetAttribute. The parameter blocks are CUPTI's own, filled as the CUDA runtime
// fills them, for the programs the decisions were made for: a PyTorch training loop
// (legacy stream + non-blocking pool streams), a CUDA C++ program with cudaStreamCreate,
// a --default-stream per-thread build and the seed's priority streams.
#include "../../interposer/cupti/CallDecoding.h"
#include "../../interposer/filter/CallFilter.h"
#include "../../interposer/filter/TorchStreams.h"

#include "syncwatch/catalogue.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

using namespace syncwatch::runtime;

namespace {

struct FakeStream {
  unsigned Flags;
  int Priority;
};
std::map<const void *, FakeStream> Streams;
std::set<const void *> PinnedMemory;
int FlagQueries = 0;
// Streams being captured into a graph, and the queries other than cuStreamIsCapturing that
// reached one of them (each would have invalidated the user's capture).
std::set<const void *> Capturing;
int QueriesOfCapturedStreams = 0;

int fakeIsCapturing(const void *S, int *Status) {
  *Status = Capturing.count(S) ? 1 : 0;
  return 0;
}

int fakeGetFlags(const void *S, unsigned *Flags) {
  ++FlagQueries;
  QueriesOfCapturedStreams += Capturing.count(S) ? 1 : 0;
  auto It = Streams.find(S);
  if (It == Streams.end())
    return 400;  // CUDA_ERROR_INVALID_HANDLE
  *Flags = It->second.Flags;
  return 0;
}
int fakeGetPriority(const void *S, int *Priority) {
  QueriesOfCapturedStreams += Capturing.count(S) ? 1 : 0;
  auto It = Streams.find(S);
  if (It == Streams.end())
    return 400;
  *Priority = It->second.Priority;
  return 0;
}
int fakePointerAttribute(void *Value, int, unsigned long long P) {
  *static_cast<unsigned *>(Value) = PinnedMemory.count(reinterpret_cast<const void *>(P)) ? 1 : 0;
  return 0;
}

// PyTorch's current stream as c10 would return it for the calling thread.
C10Stream CurrentStream;        // Id 0: the default stream
std::uintptr_t CurrentHandle = 0;
int CurrentReads = 0, ReadDevice = -1;
bool CurrentThrows = false;
C10Stream fakeGetCurrent(std::int8_t Device) {
  ++CurrentReads;
  ReadDevice = Device;
  if (CurrentThrows)
    throw std::runtime_error("c10::Error: Device index out of range");  // as check_gpu does
  return CurrentStream;
}
void *fakeStreamOf(const C10Stream *) { return reinterpret_cast<void *>(CurrentHandle); }
int fakeCtxGetDevice(int *Device) {
  *Device = 3;
  return 0;
}
// torch.cuda.stream(s): the thread's current stream is s (a pool stream: a non-zero id).
void setCurrent(std::uintptr_t Handle) {
  CurrentStream.Id = Handle ? 0x1000 + static_cast<std::int64_t>(Handle) : 0;
  CurrentHandle = Handle;
}

const void *handle(std::uintptr_t H) { return reinterpret_cast<const void *>(H); }
cudaStream_t stream(std::uintptr_t H) { return reinterpret_cast<cudaStream_t>(H); }

class CallFilterTest : public ::testing::Test {
protected:
  void SetUp() override {
    Streams.clear();
    PinnedMemory.clear();
    FlagQueries = 0;
    Capturing.clear();
    QueriesOfCapturedStreams = 0;
    DriverQueries Q;
    Q.StreamIsCapturing = fakeIsCapturing;
    Q.StreamGetFlags = fakeGetFlags;
    Q.StreamGetPriority = fakeGetPriority;
    Q.PointerGetAttribute = fakePointerAttribute;
    Q.CtxGetDevice = fakeCtxGetDevice;
    bindDriverQueries(Q);
    bindTorchStreamApi({});  // no PyTorch unless a test loads it
    setTorchStreamChecks(true);
    setCurrent(0);
    CurrentReads = 0;
    ReadDevice = -1;
    CurrentThrows = false;
    resetCallFilter();
    Launch.Launch = true;
    Create.CreatesStream = true;
    FreeHost.ReleasesHostMemory = true;
  }

  EntryDecision call(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Params, const CallbackInfo &Info) {
    CUpti_CallbackData Cb{};
    Cb.callbackSite = CUPTI_API_ENTER;
    Cb.functionParams = Params;
    // As cupti/Subscriber.cpp does: CUPTI's data decoded into an ApiCallback, then judged.
    return decideAtEntry(decodeEntry(Domain, Id, &Cb, Info.Launch, Info.CreatesStream), Info);
  }
  EntryDecision launch(std::uintptr_t S, bool PerThread = false) {
    cudaLaunchKernel_v7000_params P{};
    P.stream = stream(S);
    return call(CUPTI_CB_DOMAIN_RUNTIME_API,
                PerThread ? CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 : CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                &P, Launch);
  }
  EntryDecision driverLaunch(std::uintptr_t S) {
    cuLaunchKernel_params P{};
    P.hStream = reinterpret_cast<CUstream>(S);
    return call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &P, Launch);
  }
  // cudaStreamCreateWithPriority as PyTorch's stream pools and the user call it; the fake
  // driver learns the stream so later launches onto it can be classified.
  EntryDecision create(std::uintptr_t S, unsigned Flags, int Priority) {
    cudaStream_t Out = nullptr;
    cudaStreamCreateWithPriority_v5050_params P{&Out, Flags, Priority};
    EntryDecision D = call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050, &P, Create);
    Streams[handle(S)] = {Flags, Priority};
    return D;
  }
  EntryDecision copyAsync(void *Dst, const void *Src, cudaMemcpyKind Kind, std::uintptr_t S) {
    cudaMemcpyAsync_v3020_params P{Dst, Src, 64, Kind, stream(S)};
    return call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, &P, Other);
  }

  CallbackInfo Launch, Create, FreeHost, Other;
  static constexpr unsigned NonBlocking = syncwatch::kNonBlockingStreamFlag;
};

// PyTorch: everything on the legacy stream, copies and side work on non-blocking pool
// streams of the default priority. Nothing can serialize: no launch is recorded and kernel
// tracing stays off (the training-loop benchmark's +60-88% came from recording them).
TEST_F(CallFilterTest, PyTorchLegacyAndNonBlockingLaunchesAreNotRecorded) {
  EXPECT_FALSE(launch(0).Record);
  EXPECT_FALSE(launch(0).TraceKernels);
  EXPECT_FALSE(create(0x1000, NonBlocking, 0).TraceKernels);
  EXPECT_FALSE(launch(0x1000).Record);
  EXPECT_FALSE(launch(0x1000).TraceKernels);
  EXPECT_FALSE(launch(0).Record);  // still nothing that could hold it
  // Handles are asked about once per thread, not once per launch.
  int Queries = FlagQueries;
  for (int I = 0; I < 100; ++I)
    launch(0x1000);
  EXPECT_EQ(FlagQueries, Queries);
}

// cuBLAS creates a blocking stream inside PyTorch's first matmul and never uses it
// (test_inputs/runtime/h200_train_item.swrec): creation alone changes nothing. The first
// work onto a blocking stream does: legacy launches can be held by it (or hold it) from
// then on, so they are recorded and kernels traced.
TEST_F(CallFilterTest, BlockingStreamWorkMakesLegacyLaunchesMatter) {
  EXPECT_FALSE(launch(0).Record);
  EntryDecision C = create(0x2000, 0, 0);
  EXPECT_TRUE(C.Record);
  EXPECT_FALSE(C.TraceKernels);
  EXPECT_FALSE(launch(0).Record);
  EntryDecision First = launch(0x2000);
  EXPECT_TRUE(First.Record);
  EXPECT_TRUE(First.TraceKernels);
  EXPECT_TRUE(launch(0).Record);
  EXPECT_TRUE(launch(0).TraceKernels);
  EXPECT_TRUE(launch(1).Record);  // cudaStreamLegacy spelled out
}

// An async copy onto a blocking stream is work a legacy launch can wait behind.
TEST_F(CallFilterTest, BlockingStreamCopyMakesLegacyLaunchesMatter) {
  create(0x2100, 0, 0);
  char Pinned[64];
  PinnedMemory.insert(Pinned);
  void *Device = reinterpret_cast<void *>(0x7f0000000000ull);
  EXPECT_TRUE(copyAsync(Device, Pinned, cudaMemcpyHostToDevice, 0x2100).Record);
  EXPECT_TRUE(launch(0).Record);
}

TEST_F(CallFilterTest, EveryCreationSpellingIsRead) {
  cudaStream_t Out = nullptr;
  cudaStreamCreate_v3020_params Plain{&Out};
  EXPECT_FALSE(call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020, &Plain, Create).TraceKernels);
  cudaStreamCreateWithFlags_v5000_params NB{&Out, NonBlocking};
  EXPECT_FALSE(call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000, &NB, Create).TraceKernels);
  cudaStreamCreateWithPriority_v5050_params Low{&Out, NonBlocking, 0}, High{&Out, NonBlocking, -1};
  EXPECT_FALSE(call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050, &Low, Create)
                   .TraceKernels);
  EXPECT_TRUE(call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050, &High, Create)
                  .TraceKernels);
  CUstream DOut = nullptr;
  cuStreamCreate_params Driver{&DOut, 0};
  EXPECT_FALSE(call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, &Driver, Create).TraceKernels);
  cuStreamCreateWithPriority_params DriverPriority{&DOut, NonBlocking, -1};
  EXPECT_TRUE(call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority, &DriverPriority, Create)
                  .TraceKernels);
  EXPECT_FALSE(launch(0).Record);  // no stream creation makes legacy launches matter
}

// A blocking stream made before syncwatch was loaded (or by a library it missed) is
// learned from its first launch.
TEST_F(CallFilterTest, FirstLaunchOntoAnUnseenBlockingStream) {
  Streams[handle(0x3000)] = {0, 0};
  EXPECT_FALSE(launch(0).Record);
  EntryDecision D = launch(0x3000);
  EXPECT_TRUE(D.Record);
  EXPECT_TRUE(D.TraceKernels);
  EXPECT_TRUE(launch(0).Record);
}

// --default-stream per-thread: cudaLaunchKernel_ptsz with the handle 0 is the thread's own
// default stream, blocking towards the legacy one; cudaStreamPerThread likewise.
TEST_F(CallFilterTest, PerThreadDefaultStreamIsBlocking) {
  EntryDecision D = launch(0, /*PerThread=*/true);
  EXPECT_TRUE(D.Record);
  EXPECT_TRUE(D.TraceKernels);
  EXPECT_TRUE(launch(0).Record);
  resetCallFilter();
  EXPECT_TRUE(launch(2).Record);  // cudaStreamPerThread
  EXPECT_TRUE(launch(0).Record);
}

// The seed's priority puzzle: the high-priority stream is created before the bulk work is
// issued; the bulk work must be traced to be named as what the urgent kernel waited behind.
TEST_F(CallFilterTest, HighPriorityStreamsAreTracedFromCreation) {
  EXPECT_FALSE(create(0x4000, NonBlocking, 0).TraceKernels);
  EntryDecision High = create(0x5000, NonBlocking, -1);
  EXPECT_TRUE(High.TraceKernels);
  EXPECT_FALSE(launch(0x4000).Record);  // the bulk work: its kernels traced, calls not needed
  EntryDecision Urgent = launch(0x5000);
  EXPECT_TRUE(Urgent.Record);
  EXPECT_TRUE(Urgent.TraceKernels);
}

// A launch whose stream cannot be read, and one syncwatch reads through the driver API
// (Triton, CUTLASS' driver launches).
TEST_F(CallFilterTest, DriverAndUnreadableLaunches) {
  create(0x6000, NonBlocking, 0);
  EXPECT_FALSE(driverLaunch(0x6000).Record);
  EXPECT_FALSE(driverLaunch(0).Record);
  cudaLaunchKernelExC_v11060_params NoConfig{};
  EntryDecision D = call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, &NoConfig, Launch);
  EXPECT_TRUE(D.Record);
  EXPECT_TRUE(D.TraceKernels);
  // cuLaunchKernelEx: what cudaLaunchKernelExC becomes in the driver, and the callback that
  // fires while the runtime's is off. Measured on the H200: PyTorch 2.11 launches 14 kernels
  // of each training step so, and each was recorded (and unwound) while it was unread.
  CUlaunchConfig Config{};
  Config.hStream = reinterpret_cast<CUstream>(std::uintptr_t{0x6000});
  cuLaunchKernelEx_params Ex{&Config, nullptr, nullptr, nullptr};
  EXPECT_FALSE(call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &Ex, Launch).Record);
  Config.hStream = nullptr;
  EXPECT_FALSE(call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &Ex, Launch).Record);
  cuLaunchKernelEx_params ExNoConfig{};
  EXPECT_TRUE(call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ExNoConfig, Launch).Record);
  EXPECT_TRUE(launchCallbackDeferrable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
  EXPECT_TRUE(launchCallbackDeferrable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  EXPECT_FALSE(launchCallbackDeferrable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel));
  // Without the driver's queries nothing is filtered.
  bindDriverQueries(DriverQueries{});
  resetCallFilter();
  EXPECT_TRUE(launch(0x6000).Record);
}

// Copies: only pinned<->device on a non-blocking stream can be left out; a pageable one is
// the pageable-async-copy rule's, and memory released is asked about again.
TEST_F(CallFilterTest, PinnedCopiesOnNonBlockingStreamsOnly) {
  create(0x7000, NonBlocking, 0);
  create(0x7100, NonBlocking, -1);
  char Pinned[64], Pageable[64];
  void *Device = reinterpret_cast<void *>(0x7f0000000000ull);
  PinnedMemory.insert(Pinned);
  EXPECT_FALSE(copyAsync(Device, Pinned, cudaMemcpyHostToDevice, 0x7000).Record);
  EXPECT_FALSE(copyAsync(Pinned, Device, cudaMemcpyDeviceToHost, 0x7000).Record);
  EXPECT_FALSE(copyAsync(Device, Pinned, cudaMemcpyHostToDevice, 0x7100).Record);
  EXPECT_TRUE(copyAsync(Device, Pageable, cudaMemcpyHostToDevice, 0x7000).Record);
  EXPECT_TRUE(copyAsync(Device, Pinned, cudaMemcpyHostToDevice, 0).Record);
  EXPECT_TRUE(copyAsync(Device, Pinned, cudaMemcpyDefault, 0x7000).Record);
  // cudaFreeHost / cudaHostUnregister: what was pinned may now be pageable.
  PinnedMemory.erase(Pinned);
  cudaFreeHost_v3020_params Free{Pinned};
  call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020, &Free, FreeHost);
  EXPECT_TRUE(copyAsync(Device, Pinned, cudaMemcpyHostToDevice, 0x7000).Record);
}

// A destroyed stream's handle can come back with other flags: creation forgets streams.
TEST_F(CallFilterTest, ReusedHandleIsAskedAgain) {
  create(0x8000, NonBlocking, 0);
  EXPECT_FALSE(launch(0x8000).Record);
  create(0x8000, 0, 0);  // destroyed, then the same handle created blocking
  EXPECT_TRUE(launch(0x8000).Record);
}


// cuBLAS's unused blocking stream turns launch callbacks on; a PyTorch loop that never
// sends work to a blocking stream turns them off again after kIdleLaunchesBeforeOff
// launches, once, and the next blocking stream's creation turns them on again.
TEST_F(CallFilterTest, LaunchCallbacksGoOffWhenNoBlockingStreamIsUsed) {
  Streams[handle(0x1000)] = {NonBlocking, 0};  // PyTorch's side streams
  EXPECT_TRUE(create(0x2000, 0, 0).EnableLaunches);
  unsigned Offs = 0;
  for (unsigned I = 0; I < 3 * kIdleLaunchesBeforeOff; ++I) {
    EntryDecision D = launch(I % 2 ? 0 : 0x1000);  // legacy, and a non-blocking stream
    EXPECT_FALSE(D.Record);
    Offs += D.DisableLaunches;
  }
  EXPECT_EQ(Offs, 3u);
  EXPECT_TRUE(create(0x2100, 0, 0).EnableLaunches);
}

TEST_F(CallFilterTest, LaunchCallbacksStayOnWhileTheyCanMatter) {
  create(0x2000, 0, 0);
  Streams[handle(0x1000)] = {NonBlocking, 0};
  EXPECT_TRUE(launch(0x2000).Record);  // work on the blocking stream
  for (unsigned I = 0; I < 2 * kIdleLaunchesBeforeOff; ++I)
    EXPECT_FALSE(launch(0x1000).DisableLaunches);
  resetCallFilter();
  create(0x5000, NonBlocking, -1);  // the seed's priority streams: the urgent launches matter
  for (unsigned I = 0; I < 2 * kIdleLaunchesBeforeOff; ++I)
    EXPECT_FALSE(launch(0x1000).DisableLaunches);
}

// --- PyTorch's current stream (TorchStreams.h) ------------------------------------------

void loadTorch() {
  TorchStreamApi Api;
  Api.GetCurrent = fakeGetCurrent;
  Api.Handle = fakeStreamOf;
  bindTorchStreamApi(Api);
}

// An extension's k<<<g, b>>> inside `with torch.cuda.stream(side)`: the kernel goes to the
// legacy stream, PyTorch's current stream is side. Recorded with side's handle, kernels
// traced; the device comes from the launch's context, so c10 is not made to ask CUDA.
TEST_F(CallFilterTest, LegacyLaunchWhileTorchCurrentStreamIsASideStream) {
  loadTorch();
  EntryDecision Pool = create(0x1000, NonBlocking, 0);  // torch.cuda.Stream(): a pool stream
  EXPECT_TRUE(Pool.EnableLaunches);
  setCurrent(0x1000);
  EntryDecision D = launch(0);
  EXPECT_TRUE(D.Record);
  EXPECT_TRUE(D.TraceKernels);
  EXPECT_TRUE(D.OffTorchStream);
  EXPECT_EQ(D.CurrentStream, handle(0x1000));
  EXPECT_EQ(ReadDevice, 3);
  EXPECT_TRUE(launch(1).OffTorchStream);  // cudaStreamLegacy spelled out
  // The op's own launches onto the current stream are not read at all.
  int Reads = CurrentReads;
  EXPECT_FALSE(launch(0x1000).Record);
  EXPECT_EQ(CurrentReads, Reads);
  // Outside the with-block the default stream is current: the legacy stream is right.
  setCurrent(0);
  EntryDecision Outside = launch(0);
  EXPECT_FALSE(Outside.OffTorchStream);
  EXPECT_FALSE(Outside.Record);
}

// A --default-stream per-thread extension: its no-stream launch goes to the thread's stream
// (cudaLaunchKernel_ptsz with 0, or cudaStreamPerThread), which is not the current one
// either. With the default stream current the two are ordered (per-thread is blocking).
TEST_F(CallFilterTest, PerThreadLaunchWhileTorchCurrentStreamIsASideStream) {
  loadTorch();
  create(0x1000, NonBlocking, 0);
  setCurrent(0x1000);
  EXPECT_TRUE(launch(0, /*PerThread=*/true).OffTorchStream);
  EXPECT_TRUE(launch(2).OffTorchStream);
  setCurrent(0);
  EXPECT_FALSE(launch(2).OffTorchStream);
  // torch.cuda.ExternalStream(cudaStreamPerThread) made current: the launch went there.
  CurrentStream.Id = 2;
  CurrentHandle = 2;
  EXPECT_FALSE(launch(2).OffTorchStream);
  EXPECT_TRUE(launch(0).OffTorchStream);  // the legacy stream is not the per-thread one
}

// PyTorch without side streams (every kernel on the legacy stream; cuBLAS's blocking stream
// created and never used): nothing is read, nothing recorded, launch callbacks go off.
TEST_F(CallFilterTest, TorchWithoutSideStreamsReadsNothing) {
  loadTorch();
  create(0x3000, 0, 0);  // cuBLAS's cudaStreamCreate
  bool Off = false;
  for (unsigned I = 0; I < kIdleLaunchesBeforeOff; ++I) {
    EntryDecision D = launch(0);
    EXPECT_FALSE(D.Record);
    Off = Off || D.DisableLaunches;
  }
  EXPECT_EQ(CurrentReads, 0);
  EXPECT_TRUE(Off);
}

// With side streams the current stream can change at any launch: callbacks stay on.
TEST_F(CallFilterTest, TorchSideStreamsKeepLaunchCallbacksOn) {
  loadTorch();
  create(0x1000, NonBlocking, 0);
  for (unsigned I = 0; I < 2 * kIdleLaunchesBeforeOff; ++I)
    ASSERT_FALSE(launch(0x1000).DisableLaunches);
}

// A process without libc10_cuda (a CUDA C++ program, CuPy): a non-blocking stream changes
// nothing and nothing is read.
TEST_F(CallFilterTest, NoTorchNoReads) {
  EntryDecision Pool = create(0x1000, NonBlocking, 0);
  EXPECT_FALSE(Pool.EnableLaunches);
  EXPECT_FALSE(torchStreamsBound());
  EXPECT_FALSE(launch(0).OffTorchStream);
  EXPECT_EQ(CurrentReads, 0);
}

// c10 throws for a device it does not know: caught inside the callback (never through
// CUPTI's frames), and the reader is off from then on.
TEST_F(CallFilterTest, C10ExceptionIsCaughtAndTheReaderUnbound) {
  loadTorch();
  create(0x1000, NonBlocking, 0);
  CurrentThrows = true;
  EXPECT_FALSE(launch(0).OffTorchStream);
  EXPECT_FALSE(torchStreamsBound());
  CurrentThrows = false;
  setCurrent(0x1000);
  EXPECT_FALSE(launch(0).OffTorchStream);
  EXPECT_EQ(CurrentReads, 1);
}

// SYNCWATCH_TORCH_STREAMS=0.
TEST_F(CallFilterTest, TorchStreamChecksCanBeTurnedOff) {
  loadTorch();
  setTorchStreamChecks(false);
  create(0x1000, NonBlocking, 0);
  setCurrent(0x1000);
  EXPECT_FALSE(launch(0).OffTorchStream);
  EXPECT_EQ(CurrentReads, 0);
}

} // namespace

// Issue 37: what the filter does not record it still counts, and says whether what it read
// decided the call harmless (judged) or left it untimed. A launch from a new site starts the
// idle count again, so launch callbacks stay on until every launch site has been seen.
TEST_F(CallFilterTest, UnrecordedCallsSayWhetherTheyWereJudged) {
  create(0x7000, NonBlocking, 0);
  EntryDecision Legacy = launch(0);
  EXPECT_FALSE(Legacy.Record);
  EXPECT_FALSE(Legacy.Judged);  // nothing to serialize with yet, but its kernel is untraced
  EntryDecision Side = launch(0x7000);
  EXPECT_FALSE(Side.Record);
  EXPECT_TRUE(Side.Judged);  // a non-blocking stream of the default priority
  char Pinned[64];
  PinnedMemory.insert(Pinned);
  void *Device = reinterpret_cast<void *>(0x7f0000000000ull);
  EntryDecision Copy = copyAsync(Device, Pinned, cudaMemcpyHostToDevice, 0x7000);
  EXPECT_FALSE(Copy.Record);
  EXPECT_TRUE(Copy.Judged);  // pinned memory: truly asynchronous
}

TEST_F(CallFilterTest, ANewLaunchSiteKeepsLaunchCallbacksOn) {
  unsigned Offs = 0;
  for (unsigned I = 0; I < 2 * kIdleLaunchesBeforeOff; ++I) {
    if (I % (kIdleLaunchesBeforeOff / 2) == 0)
      noteNewLaunchSite();  // a site not seen before, every half of the idle count
    Offs += launch(0).DisableLaunches;
  }
  EXPECT_EQ(Offs, 0u);
  for (unsigned I = 0; I < kIdleLaunchesBeforeOff; ++I)
    Offs += launch(0).DisableLaunches;
  EXPECT_EQ(Offs, 1u);  // all sites seen: off after the idle count
}

// SYNCWATCH_MEASURE=all: nothing is filtered, every launch's kernel is traced.
TEST_F(CallFilterTest, MeasureAllRecordsWhatTheFilterWouldSkip) {
  create(0x7000, NonBlocking, 0);
  char Pinned[64];
  PinnedMemory.insert(Pinned);
  void *Device = reinterpret_cast<void *>(0x7f0000000000ull);
  setMeasureAll(true);
  EXPECT_TRUE(launch(0).Record);
  EXPECT_TRUE(launch(0).TraceKernels);
  EXPECT_TRUE(launch(0x7000).Record);
  EXPECT_TRUE(copyAsync(Device, Pinned, cudaMemcpyHostToDevice, 0x7000).Record);
  unsigned Offs = 0;
  for (unsigned I = 0; I < 2 * kIdleLaunchesBeforeOff; ++I)
    Offs += launch(0).DisableLaunches;
  EXPECT_EQ(Offs, 0u);
  setMeasureAll(false);  // the end of an all:SECONDS window
  EXPECT_FALSE(launch(0).Record);
}

// A stream being captured (cudaStreamBeginCapture .. EndCapture) runs nothing now, and the
// driver must not be asked about it: olcf/cuda-training-series hw13's global-mode capture
// failed on the H200 only under syncwatch, at the first launch into a stream nothing had
// launched onto before, whose entry callback asked that stream's flags.
TEST_F(CallFilterTest, AStreamFirstSeenWhileCapturedIsNotQueried) {
  create(0x5000, NonBlocking, 0);
  Capturing.insert(handle(0x5000));
  EntryDecision D = launch(0x5000);
  EXPECT_FALSE(D.Record);
  EXPECT_FALSE(D.TraceKernels);
  EXPECT_TRUE(D.Judged);  // a graph node: it costs nothing until the graph is launched
  EXPECT_EQ(QueriesOfCapturedStreams, 0);
  char Pinned[64];
  void *Device = reinterpret_cast<void *>(0x7f0000000000ull);
  EXPECT_FALSE(copyAsync(Device, Pinned, cudaMemcpyHostToDevice, 0x5000).Record);
  EXPECT_EQ(QueriesOfCapturedStreams, 0);
  // After cudaStreamEndCapture the stream is asked once, and is the non-blocking one it is.
  Capturing.clear();
  EXPECT_FALSE(launch(0x5000).Record);
  EXPECT_EQ(FlagQueries, 1);
}

// A blocking stream's launches are recorded and turn kernel tracing on (cuptiActivityEnable)
// - but not while the stream is captured; once the capture ends they are again.
TEST_F(CallFilterTest, ABlockingStreamIsNotRecordedWhileCaptured) {
  create(0x5100, 0, 0);
  create(0x5200, NonBlocking, -1);  // high priority: recorded too, outside a capture
  EXPECT_TRUE(launch(0x5100).Record);
  Capturing = {handle(0x5100), handle(0x5200)};
  for (std::uintptr_t S : {0x5100, 0x5200}) {
    EntryDecision D = launch(S);
    EXPECT_FALSE(D.Record);
    EXPECT_FALSE(D.TraceKernels);
  }
  Capturing.clear();
  EXPECT_TRUE(launch(0x5100).Record);
  EXPECT_TRUE(launch(0x5200).Record);
}

// The per-thread default stream can be captured (a --default-stream per-thread build): its
// handle 0 from a _ptsz entry point is asked as CU_STREAM_PER_THREAD.
TEST_F(CallFilterTest, ThePerThreadStreamWhileCaptured) {
  EXPECT_TRUE(launch(0, /*PerThread=*/true).Record);
  Capturing.insert(handle(2));
  EXPECT_FALSE(launch(0, /*PerThread=*/true).Record);
  EXPECT_FALSE(launch(2).Record);
}
