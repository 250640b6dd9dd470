// SYNCWATCH_STEP: the program's steps, from its NVTX ranges (nvtxRangePush*/Pop,
// nvtxRangeStart*/End, their domain forms; torch.cuda.nvtx.range is nvtxRangePushA). CUPTI
// delivers them in its NVTX callback domain once NVTX loads CUPTI as its injection library,
// which NVTX does at the program's first NVTX call when NVTX_INJECTION64_PATH names it.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <functional>
#include <string>

namespace syncwatch::runtime {

struct StepSpan;
class StepTracker;

// At library load, before the program's first NVTX call: NVTX_INJECTION64_PATH set to
// libcupti's path (the library that holds CuptiSymbol) when it is unset. Returns "" or the
// one line that says why steps cannot be seen (another tool's injection library is set).
std::string prepareNvtxInjection(const std::string &StepPattern, const void *CuptiSymbol);

// The steps' consumer: OnStep gets each step as it ends; OnOpen(true) when the first of the
// open steps opens, OnOpen(false) when the last closes (SYNCWATCH_MEASURE=steps).
void followSteps(StepTracker *Tracker, std::function<void(const StepSpan &)> OnStep,
                 std::function<void(bool)> OnOpen);

// A torch.profiler step boundary on Thread at Now (sites/TorchProfilerSteps.h): the thread's
// profiler step, if one is open, ends; with Next a new one named ProfilerStep begins. A level
// of its own, apart from the thread's NVTX ranges.
void onProfilerStep(bool Next, std::uint64_t Thread, std::uint64_t Now);

// CUPTI_CB_DOMAIN_NVTX's callback data (CUpti_NvtxData) for one NVTX call, at time Now.
void onNvtx(CUpti_CallbackId Id, const void *Data, std::uint64_t Thread, std::uint64_t Now);

} // namespace syncwatch::runtime
