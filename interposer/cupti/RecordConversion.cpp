// CUPTI's activity records, turned into what the engine reads: GPU work (copies, memsets,
// kernels) and streams, handed to the recorder a buffer at a time.
#include "CuptiSharing.h"
#include "GuestClock.h"
#include "Session.h"

#include "../recorder/Recorder.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace syncwatch::runtime {
namespace {

std::string demangle(const char *Name) {
  if (!Name)
    return "";
  int Status = 0;
  std::unique_ptr<char, void (*)(void *)> D(abi::__cxa_demangle(Name, nullptr, nullptr, &Status), std::free);
  std::string S = Status == 0 && D ? D.get() : Name;
  auto Paren = S.find('(');
  return Paren == std::string::npos ? S : S.substr(0, Paren);
}

// CUPTI shares one name string among all records of the same kernel, so a kernel is
// demangled once, not once per launch. Never destroyed: the exit-time flush (an atexit
// handler registered before this first use) runs after function-local statics are gone.
std::string_view kernelName(const char *Mangled) {
  static auto *M = new std::mutex;
  static auto *Names = new std::unordered_map<const char *, std::string_view>;
  std::lock_guard<std::mutex> L(*M);
  auto It = Names->find(Mangled);
  if (It == Names->end())
    It = Names->emplace(Mangled, internKernelName(demangle(Mangled))).first;
  return It->second;
}

StreamFlag flagOf(CUpti_ActivityStreamFlag F) {
  switch (F) {
  case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL: return StreamFlag::Legacy;
  case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT: return StreamFlag::Blocking;
  case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING: return StreamFlag::NonBlocking;
  default: return StreamFlag::Unknown;
  }
}

// syncwatch's clock when the buffer being read was handed over (its records' times are put
// into that clock when a profiler's own source replaced CUPTI's: GuestClock.h).
std::uint64_t BufferNow = 0;

// The fields every GPU record has, and its device noted.
template <typename Record> GpuWork workOf(GpuKind Kind, const Record &R, std::uint32_t Correlation) {
  GpuWork W;
  W.Kind = Kind;
  W.Correlation = Correlation;
  W.Stream = R.streamId;
  W.Start = guestClock().ownRecordTime(R.start, BufferNow);
  W.End = guestClock().ownRecordTime(R.end, BufferNow);
  noteDevice(R.deviceId);
  return W;
}

} // namespace

std::size_t convertActivityRecords(std::uint8_t *Buffer, std::size_t Valid) {
  std::size_t Records = 0;
  CUpti_Activity *Record = nullptr;
  // Handed over under one lock per buffer, not one per record; kept between buffers (this
  // runs on CUPTI's thread, and at exit's flush on the exiting one: a lock for that).
  static auto *WorkLock = new std::mutex;
  static auto *Work = new std::vector<GpuWork>;
  std::lock_guard<std::mutex> WorkGuard(*WorkLock);
  Work->clear();
  // With a profiler sharing CUPTI, the buffer also holds its kinds (kernels before
  // syncwatch traces them, runtime records...): read only syncwatch's own.
  const CuptiSharing &Sharing = cuptiSharing();
  bool Shared = Sharing.guestActive();
  if (guestClock().active())
    BufferNow = cuptiNow();
  while (cuptiActivityGetNextRecord(Buffer, Valid, &Record) == CUPTI_SUCCESS) {
    ++Records;
    if (Shared && !Sharing.ourKind(Record->kind))
      continue;
    switch (Record->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto *R = reinterpret_cast<const CUpti_ActivityMemcpy6 *>(Record);
      // Runtime calls are what the callbacks saw: link the copy to the runtime call.
      GpuWork W = workOf(GpuKind::Memcpy, *R, R->runtimeCorrelationId ? R->runtimeCorrelationId : R->correlationId);
      W.Bytes = R->bytes;
      W.CopyKind = R->copyKind;
      W.Src = static_cast<MemoryKind>(R->srcKind <= 3 ? R->srcKind : 0);
      W.Dst = static_cast<MemoryKind>(R->dstKind <= 3 ? R->dstKind : 0);
      W.Async = (R->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
      Work->push_back(std::move(W));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto *R = reinterpret_cast<const CUpti_ActivityMemset4 *>(Record);
      GpuWork W = workOf(GpuKind::Memset, *R, R->correlationId);
      W.Bytes = R->bytes;
      Work->push_back(std::move(W));
      break;
    }
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto *R = reinterpret_cast<const CUpti_ActivityKernel10 *>(Record);
      GpuWork W = workOf(GpuKind::Kernel, *R, R->correlationId);
      W.Name = kernelName(R->name);
      Work->push_back(std::move(W));
      break;
    }
    case CUPTI_ACTIVITY_KIND_STREAM: {
      const auto *R = reinterpret_cast<const CUpti_ActivityStream *>(Record);
      recorder().addStream({R->streamId, flagOf(R->flag), static_cast<std::int32_t>(R->priority)});
      break;
    }
    default:
      break;
    }
  }
  if (!Work->empty())
    recorder().addWork(*Work);
  return Records;
}

} // namespace syncwatch::runtime
