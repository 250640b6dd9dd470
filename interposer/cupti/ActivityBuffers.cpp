// CUPTI's activity buffers: where its records are written, and what happens to a full one.
#include "CuptiSharing.h"
#include "Session.h"

#include "../recorder/HostClock.h"
#include "../recorder/SelfStats.h"

#include <sys/mman.h>

#include <atomic>
#include <mutex>

namespace syncwatch::runtime {
namespace {

// Records reach the engine only when CUPTI hands a buffer back, and the engine can pair a
// record with its call only while that call is still in its window (EventWindow carries
// the newest quarter of it). Small buffers and a periodic flush keep that delay to a few
// thousand records or FlushPeriodMs: the window starts at 16,384 events and grows only if
// records come later than it holds (EventWindow.h).
// SYNCWATCH_ACTIVITY_BUFFER_KB (256 KiB by default: on an H100, 2 M copy records cost the
// same to read in 733 buffers as in 184 of 1 MiB, and peak RSS 2.2 MiB less), set once
// before CUPTI asks for a buffer.
std::size_t BufferSize = 256 << 10;
constexpr std::uint32_t FlushPeriodMs = 100;
// Records CUPTI dropped (a full device buffer, no host buffer in time): counted at each
// completed buffer, as CUPTI's documentation does, and said by SYNCWATCH_STATS.
std::atomic<std::uint64_t> DroppedRecords{0};

// Activity buffers come from a small pool of mmap'ed blocks. malloc'ed ones, freed
// by the hundred over a copy-heavy run, stayed in the heap (glibc raises its mmap threshold
// after the first free): peak RSS grew by the buffers CUPTI ever held at once.
constexpr int kPooledBuffers = 4;
std::mutex BufferPoolLock;  // trivially destructible in libstdc++
uint8_t *BufferPool[kPooledBuffers] = {};
int BuffersPooled = 0;

void CUPTIAPI bufferRequested(uint8_t **Buffer, size_t *Size, size_t *MaxRecords) {
  *Buffer = nullptr;
  {
    std::lock_guard<std::mutex> G(BufferPoolLock);
    if (BuffersPooled > 0)
      *Buffer = BufferPool[--BuffersPooled];
  }
  if (!*Buffer) {
    void *P = ::mmap(nullptr, BufferSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *Buffer = P == MAP_FAILED ? nullptr : static_cast<uint8_t *>(P);
  }
  *Size = *Buffer ? BufferSize : 0;
  *MaxRecords = 0;
}

void releaseBuffer(uint8_t *Buffer) {
  {
    std::lock_guard<std::mutex> G(BufferPoolLock);
    if (BuffersPooled < kPooledBuffers) {
      BufferPool[BuffersPooled++] = Buffer;
      return;
    }
  }
  ::munmap(Buffer, BufferSize);
}

void CUPTIAPI bufferCompleted(CUcontext Context, uint32_t StreamId, uint8_t *Buffer, size_t, size_t Valid) {
  std::uint64_t T0 = selfStatsOn() ? hostTicks() : 0;
  if (cuptiSharing().guestActive())  // a profiler sharing CUPTI: its kinds' records, copied
    cuptiSharing().forwardRecords(Context, StreamId, Buffer, Valid);
  std::size_t Records = convertActivityRecords(Buffer, Valid);
  releaseBuffer(Buffer);
  std::size_t Dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(Context, StreamId, &Dropped) == CUPTI_SUCCESS && Dropped)
    DroppedRecords.fetch_add(Dropped, std::memory_order_relaxed);
  if (selfStatsOn())
    countActivityBuffer(Records, hostTicks() - T0);
}

// SYNCWATCH_FLOOR=activity: buffers are handed back unread.
void CUPTIAPI bufferDropped(CUcontext Context, uint32_t StreamId, uint8_t *Buffer, size_t, size_t Valid) {
  if (cuptiSharing().guestActive())
    cuptiSharing().forwardRecords(Context, StreamId, Buffer, Valid);
  releaseBuffer(Buffer);
}

} // namespace

void registerActivityBuffers(bool DropRecords, std::size_t HostBufferKb, std::size_t DeviceBufferKb) {
  BufferSize = HostBufferKb * 1024;
  if (DeviceBufferKb) {
    std::size_t Bytes = DeviceBufferKb * 1024, Size = sizeof Bytes;
    cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &Size, &Bytes);
  }
  cuptiSharing().registerOurBuffers(bufferRequested, DropRecords ? bufferDropped : bufferCompleted);
  cuptiActivityFlushPeriod(FlushPeriodMs);
}

std::uint64_t activityRecordsDropped() { return DroppedRecords.load(std::memory_order_relaxed); }

} // namespace syncwatch::runtime
