#include "NvtxSteps.h"

#include "../recorder/StepTracker.h"
#include "../sites/TorchProfilerSteps.h"

#include <generated_nvtx_meta.h>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

namespace syncwatch::runtime {

namespace {

StepTracker *Tracker = nullptr;  // set once at start, never freed (callbacks may run at exit)
std::function<void(const StepSpan &)> *StepEnded = nullptr;
std::function<void(bool)> *OpenChanged = nullptr;

// An event attribute's name, when it is an ASCII string (a registered string is not read).
const char *messageOf(const nvtxEventAttributes_t *A) {
  return A && A->messageType == NVTX_MESSAGE_TYPE_ASCII ? A->message.ascii : nullptr;
}

void opened(bool Step) {
  if (Step && OpenChanged && Tracker->open() == 1)
    (*OpenChanged)(true);
}
void closed(const std::optional<StepSpan> &S) {
  if (!S)
    return;
  if (StepEnded)
    (*StepEnded)(*S);
  if (OpenChanged && Tracker->open() == 0)
    (*OpenChanged)(false);
}

} // namespace

std::string prepareNvtxInjection(const std::string &StepPattern, const void *CuptiSymbol) {
  if (StepPattern.empty())
    return "";
  Dl_info Info;
  if (!dladdr(CuptiSymbol, &Info) || !Info.dli_fname)
    return "syncwatch: SYNCWATCH_STEP: libcupti's path is unknown; steps are not seen\n";
  const char *Set = std::getenv("NVTX_INJECTION64_PATH");
  if (!Set || !*Set) {
    ::setenv("NVTX_INJECTION64_PATH", Info.dli_fname, 1);
    return "";
  }
  // Set already: ours (a child of a process that set it), CUPTI's own path, or another
  // tool's (Nsight Systems sets its own), which NVTX will load instead.
  if (std::strstr(Set, "libcupti") != nullptr || std::strcmp(Set, Info.dli_fname) == 0)
    return "";
  return std::string("syncwatch: SYNCWATCH_STEP: NVTX_INJECTION64_PATH is another tool's (") + Set +
         "); NVTX ranges go to it and syncwatch sees no steps\n";
}

void followSteps(StepTracker *T, std::function<void(const StepSpan &)> OnStep, std::function<void(bool)> OnOpen) {
  StepEnded = new std::function<void(const StepSpan &)>(std::move(OnStep));
  OpenChanged = OnOpen ? new std::function<void(bool)>(std::move(OnOpen)) : nullptr;
  Tracker = T;
}

void onProfilerStep(bool Next, std::uint64_t Thread, std::uint64_t Now) {
  static const char ProfilerDomain = 0;  // (its address is the level's domain)
  if (!Tracker)
    return;
  closed(Tracker->pop(Thread, &ProfilerDomain, Now));
  if (Next)
    opened(Tracker->push(Thread, &ProfilerDomain, kProfilerStepName, Now));
}

void onNvtx(CUpti_CallbackId Id, const void *Data, std::uint64_t Thread, std::uint64_t Now) {
  if (!Tracker || !Data)
    return;
  const auto *D = static_cast<const CUpti_NvtxData *>(Data);
  const void *P = D->functionParams;
  if (!P)
    return;
  switch (Id) {
  case CUPTI_CBID_NVTX_nvtxRangePushA:
    opened(Tracker->push(Thread, nullptr, static_cast<const nvtxRangePushA_params *>(P)->message, Now));
    break;
  case CUPTI_CBID_NVTX_nvtxRangePushEx:
    opened(Tracker->push(Thread, nullptr, messageOf(static_cast<const nvtxRangePushEx_params *>(P)->eventAttrib), Now));
    break;
  case CUPTI_CBID_NVTX_nvtxRangePushW:  // a wide name is never a step, but it is a level
    opened(Tracker->push(Thread, nullptr, nullptr, Now));
    break;
  case CUPTI_CBID_NVTX_nvtxRangePop:
    closed(Tracker->pop(Thread, nullptr, Now));
    break;
  case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
    const auto *Q = static_cast<const nvtxDomainRangePushEx_params *>(P);
    opened(Tracker->push(Thread, Q->domain, messageOf(Q->core.eventAttrib), Now));
    break;
  }
  case CUPTI_CBID_NVTX_nvtxDomainRangePop:
    closed(Tracker->pop(Thread, static_cast<const nvtxDomainRangePop_params *>(P)->domain, Now));
    break;
  // A started range's id is the call's return value.
  case CUPTI_CBID_NVTX_nvtxRangeStartA:
  case CUPTI_CBID_NVTX_nvtxRangeStartEx:
  case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
    if (!D->functionReturnValue)
      break;
    std::uint64_t RangeId = *static_cast<const nvtxRangeId_t *>(D->functionReturnValue);
    const char *Name = Id == CUPTI_CBID_NVTX_nvtxRangeStartA
                           ? static_cast<const nvtxRangeStartA_params *>(P)->message
                       : Id == CUPTI_CBID_NVTX_nvtxRangeStartEx
                           ? messageOf(static_cast<const nvtxRangeStartEx_params *>(P)->eventAttrib)
                           : messageOf(static_cast<const nvtxDomainRangeStartEx_params *>(P)->core.eventAttrib);
    opened(Tracker->start(RangeId, Thread, Name, Now));
    break;
  }
  case CUPTI_CBID_NVTX_nvtxRangeEnd:
    closed(Tracker->end(static_cast<const nvtxRangeEnd_params *>(P)->id, Now));
    break;
  case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
    closed(Tracker->end(static_cast<const nvtxDomainRangeEnd_params *>(P)->core.id, Now));
    break;
  default:
    break;
  }
}

} // namespace syncwatch::runtime
