// The end of a recorded process: the report written once, at exit or on SIGINT/SIGTERM
// (from a thread of its own), with the GPUs named by UUID.
#include "CuptiSharing.h"
#include "Session.h"

#include "../recorder/Recorder.h"
#include "../recorder/SelfStats.h"
#include "../recorder/Stderr.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

namespace syncwatch::runtime {

std::atomic<bool> InForkedChild{false};

namespace {

// The devices GPU records came from (ordinals below 64), named by UUID in the report so
// that `syncwatch merge` can say which GPU each rank used.
std::atomic<std::uint64_t> DevicesSeen{0};

// Every device's UUID ("GPU-8c0a...", as nvidia-smi -L prints it), asked of the driver once.
// The driver's entry points are looked up in the loaded libcuda (PyTorch loads it
// RTLD_LOCAL), not linked. They need no context, but they must run before libcuda's own exit
// handlers: measured on the H200, they answer from an atexit handler registered after cuInit
// and not from syncwatch's own (registered at load, so it runs after libcuda's teardown).
// So this runs from an atexit handler that the first CUDA event registers.
// Plain arrays, constant-initialized and never destroyed: this runs at exit, when a
// std::vector of this library may already be destroyed (a preloaded C++ program aborted
// with std::length_error on the H200 when it was one).
std::mutex UuidLock;  // trivially destructible in libstdc++
constexpr int kMaxDevices = 64;
char DeviceUuids[kMaxDevices][48] = {};  // by ordinal; "" when the driver did not say
int DevicesNamed = 0;
int DriverVersion = 0;  // cuDriverGetVersion: 13000 is CUDA 13.0
bool UuidsAsked = false;

void nameDevices() {
  std::lock_guard<std::mutex> G(UuidLock);
  if (UuidsAsked)
    return;
  UuidsAsked = true;
  using CountFn = int (*)(int *);
  using GetFn = int (*)(int *, int);
  using UuidFn = int (*)(unsigned char *, int);
  void *Driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  void *Scope = Driver ? Driver : RTLD_DEFAULT;
  using VersionFn = int (*)(int *);
  if (auto Version = reinterpret_cast<VersionFn>(::dlsym(Scope, "cuDriverGetVersion")))
    Version(&DriverVersion);
  auto Count = reinterpret_cast<CountFn>(::dlsym(Scope, "cuDeviceGetCount"));
  auto Get = reinterpret_cast<GetFn>(::dlsym(Scope, "cuDeviceGet"));
  auto Uuid = reinterpret_cast<UuidFn>(::dlsym(Scope, "cuDeviceGetUuid_v2"));
  if (!Uuid)
    Uuid = reinterpret_cast<UuidFn>(::dlsym(Scope, "cuDeviceGetUuid"));
  int N = 0;
  if (Count && Get && Uuid && Count(&N) == 0)
    for (int Ordinal = 0; Ordinal < N && Ordinal < kMaxDevices; ++Ordinal) {
      int Device = 0;
      unsigned char Bytes[16];
      if (Get(&Device, Ordinal) == 0 && Uuid(Bytes, Device) == 0) {
        static const char *Hex = "0123456789abcdef";
        char *Out = DeviceUuids[Ordinal];
        std::memcpy(Out, "GPU-", 4);
        int At = 4;
        for (int I = 0; I < 16; ++I) {
          if (I == 4 || I == 6 || I == 8 || I == 10)
            Out[At++] = '-';
          Out[At++] = Hex[Bytes[I] >> 4];
          Out[At++] = Hex[Bytes[I] & 15];
        }
        Out[At] = '\0';
      }
      DevicesNamed = Ordinal + 1;
    }
  if (Driver)
    ::dlclose(Driver);  // drops the reference RTLD_NOLOAD took
}


// The devices seen, by UUID where the driver named them, else "device N".
std::string devicesSeenByUuid() {
  nameDevices();  // a no-op when the exit handler asked already
  std::lock_guard<std::mutex> G(UuidLock);
  std::string Out;
  std::uint64_t Seen = DevicesSeen.load();
  for (int Ordinal = 0; Ordinal < 64; ++Ordinal) {
    if (!(Seen >> Ordinal & 1))
      continue;
    bool Named = Ordinal < DevicesNamed && DeviceUuids[Ordinal][0] != '\0';
    Out += (Out.empty() ? "" : ", ") + (Named ? std::string(DeviceUuids[Ordinal]) : "device " + std::to_string(Ordinal));
  }
  return Out;
}

std::atomic<bool> Finishing{false};

std::string_view callbackName(CallbackKey Key) {
  const char *Name = nullptr;
  if (cuptiGetCallbackName(static_cast<CUpti_CallbackDomain>(domainOf(Key)), indexOf(Key), &Name) != CUPTI_SUCCESS ||
      !Name)
    return "?";
  return Name;
}

// SIGINT/SIGTERM: the report is written by a thread of its own, woken through a pipe - a
// signal handler may only make async-signal-safe calls, and the interrupted thread may
// hold any lock (malloc's, the Recorder's). The handler waits for that thread a bounded
// time, then lets the signal do what it would have done. Installed with the first CUDA
// call, and only where the program left the signal's default action: a program that
// handles or ignores the signal itself keeps doing so (it exits through atexit, where the
// report is written anyway).
int WakePipe[2] = {-1, -1}, DonePipe[2] = {-1, -1};
struct sigaction PreviousInt, PreviousTerm;
constexpr int kReportWaitMs = 10'000;

void onSignal(int Sig) {
  if (!InForkedChild.load() && WakePipe[1] >= 0) {
    unsigned char S = static_cast<unsigned char>(Sig);
    if (::write(WakePipe[1], &S, 1) == 1) {
      pollfd P{DonePipe[0], POLLIN, 0};
      if (::poll(&P, 1, kReportWaitMs) <= 0)
        writeStderr("syncwatch: the report could not be written in time after the signal; no report\n");
    }
  }
  sigaction(Sig, Sig == SIGINT ? &PreviousInt : &PreviousTerm, nullptr);
  raise(Sig);
}

void *reportOnSignal(void *) {
  unsigned char Sig = 0;
  while (::read(WakePipe[0], &Sig, 1) < 0 && errno == EINTR) {
  }
  finishOnce(Sig == SIGINT ? "interrupted by SIGINT" : "terminated by SIGTERM");
  unsigned char Done = 1;
  (void)!::write(DonePipe[1], &Done, 1);
  return nullptr;
}

} // namespace

void noteDevice(std::uint32_t Device) {
  // Read first: every record of a buffer names a device, almost always one already seen.
  std::uint64_t Bit = std::uint64_t{1} << (Device & 63);
  if (Device < 64 && !(DevicesSeen.load(std::memory_order_relaxed) & Bit))
    DevicesSeen.fetch_or(Bit, std::memory_order_relaxed);
}

void nameDevicesAtExit() {
  if (!InForkedChild.load())
    nameDevices();
}

void finishOnce(const char *Why) {
  if (InForkedChild.load() || Finishing.exchange(true))
    return;
  Recorder *TheRecorder = recorderIfMade();
  if (!TheRecorder) {
    // No CUDA event reached syncwatch. start() ran, so this is a CUDA program: say why.
    if (!Start->NotActive.empty())
      writeStderr(Start->ConfigMessages + Start->NotActive);
    return;
  }
  if (!Start->WithoutCupti.empty())  // said once, with what was still seen
    writeStderr("syncwatch: " + Start->WithoutCupti +
                "; host waits were timed at the CUDA runtime's and driver's entry points instead (no GPU records: "
                "what a wait waited for, pageable copies and serialized streams are not seen)\n");
  else if (realCupti().FlushAll)  // (CUPTI's own: the exported name is the guests')
    realCupti().FlushAll(1);
  TheRecorder->setGpu(devicesSeenByUuid());
  if (DriverVersion > 0)
    TheRecorder->setDriver("CUDA " + std::to_string(DriverVersion / 1000) + "." +
                           std::to_string(DriverVersion % 1000 / 10) + " driver API");
  std::string Shared = cuptiSharing().guestSummary();
  if (!Shared.empty()) {
    TheRecorder->setCuptiSharedWith(Shared);
    writeStderr("syncwatch: CUPTI shared with " + Shared + "\n");
  }
  TheRecorder->finish(Why);
  // A loss nothing else would show: a pageable copy or a serialized launch whose record
  // CUPTI dropped is not judged.
  if (std::uint64_t Dropped = activityRecordsDropped())
    writeStderr("syncwatch: CUPTI dropped " + std::to_string(Dropped) +
                " activity record(s) (its device buffer was full): calls judged by their records may be missing; "
                "raise SYNCWATCH_CUPTI_DEVICE_BUFFER_KB\n");
  if (selfStatsOn())
    writeStderr(selfStatsText(callbackName));
}

void installSignalHandlers() {
  sigaction(SIGINT, nullptr, &PreviousInt);
  sigaction(SIGTERM, nullptr, &PreviousTerm);
  bool Int = PreviousInt.sa_handler == SIG_DFL && !(PreviousInt.sa_flags & SA_SIGINFO);
  bool Term = PreviousTerm.sa_handler == SIG_DFL && !(PreviousTerm.sa_flags & SA_SIGINFO);
  if ((!Int && !Term) || ::pipe2(WakePipe, O_CLOEXEC) != 0)
    return;
  if (::pipe2(DonePipe, O_CLOEXEC) != 0) {
    ::close(WakePipe[0]);
    ::close(WakePipe[1]);
    WakePipe[0] = WakePipe[1] = -1;
    return;
  }
  // The reporting thread never takes the signals itself.
  sigset_t All, Old;
  sigfillset(&All);
  pthread_sigmask(SIG_SETMASK, &All, &Old);
  pthread_t T;
  bool Made = pthread_create(&T, nullptr, reportOnSignal, nullptr) == 0;
  pthread_sigmask(SIG_SETMASK, &Old, nullptr);
  if (!Made)
    return;
  pthread_detach(T);
  struct sigaction A;
  std::memset(&A, 0, sizeof A);
  A.sa_handler = onSignal;
  sigemptyset(&A.sa_mask);
  if (Int)
    sigaction(SIGINT, &A, nullptr);
  if (Term)
    sigaction(SIGTERM, &A, nullptr);
}

void forgetSignalPipe() { WakePipe[1] = -1; }

} // namespace syncwatch::runtime
