// What the files of cupti/ share: the one CUPTI session of this process. Subscriber.cpp
// owns it (start(), the callbacks, the switches for launches and kernels), ActivityBuffers.cpp
// hands CUPTI its buffers, RecordConversion.cpp turns their records into GPU work, and
// ProcessExit.cpp writes the report at exit or on a signal.
//
// The library lives inside other people's processes, and starts from a load-time
// constructor: nothing here may depend on the order in which static objects of this or any
// other library are constructed or destroyed. So every global is either constant-initialized
// (pointers, atomics, PODs) or created on the heap by start() and never destroyed (callbacks
// on other threads, and the program's own static destructors freeing CUDA memory, can come
// after exit() began). Nothing runs at load but reading the environment, the Python audit
// hook in a Python process, and - in a CUDA program only - subscribing to CUPTI (see
// libsyncwatch.cpp); the Recorder and the signal handlers come with the first CUDA event (a
// shell or `ls` under LD_PRELOAD gets nothing else), and all output is write(2).
#pragma once

#include "../filter/CallFilter.h"
#include "../recorder/Config.h"

#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

class Recorder;

// What start() learned, kept for the whole process.
struct Startup {
  Config Cfg;
  std::string ConfigMessages;   // bad SYNCWATCH_* values: said at the first CUDA call
  std::string NotActive;        // why CUPTI could not be used ("" when it could)
  // Another tool holds CUPTI: why, when syncwatch times the blocking entry points itself
  // instead (entrypoints/HostWaitEntryPoints.cpp); "" otherwise.
  std::string WithoutCupti;
  CUpti_SubscriberHandle Subscriber = nullptr;
  // What syncwatch knows of each callback id; empty names for ids it does not enable.
  std::vector<CallbackInfo> RuntimeIds, DriverIds;
  // Launch callbacks are off until a launch can matter (see enableLaunchCallbacks).
  std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> DeferredLaunchIds;
  // Event queries: on only while a graph capture is open (see capturesOpen).
  std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> CaptureOnlyIds;
};
extern Startup *Start;  // made by start(), never freed

// Set in the child of a fork(): it inherits the parent's events but not its CUPTI state
// or threads, and must neither report them again nor call into CUPTI at exit.
extern std::atomic<bool> InForkedChild;

// Subscriber.cpp
Recorder &recorder();        // made at the first CUDA event, on the thread that made it
Recorder *recorderIfMade();  // null until then
std::uint64_t cuptiNow();

// ActivityBuffers.cpp: CUPTI's buffers, records read (or, DropRecords, handed back unread).
void registerActivityBuffers(bool DropRecords, std::size_t HostBufferKb, std::size_t DeviceBufferKb);
// Records CUPTI reported dropped so far (cuptiActivityGetNumDroppedRecords).
std::uint64_t activityRecordsDropped();

// RecordConversion.cpp: a completed buffer's records, handed to the recorder as GPU work
// and streams; returns how many records it held.
std::size_t convertActivityRecords(std::uint8_t *Buffer, std::size_t Valid);

// ProcessExit.cpp
void noteDevice(std::uint32_t Device);  // a GPU record came from this device ordinal
void nameDevicesAtExit();               // an atexit handler, registered at the first CUDA event
void installSignalHandlers();
void finishOnce(const char *Why);       // the report, once: at exit or on SIGINT/SIGTERM
void forgetSignalPipe();                // (a fork()ed child)

} // namespace syncwatch::runtime
