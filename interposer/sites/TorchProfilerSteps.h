// torch.profiler's steps as syncwatch's steps. A training loop profiled with torch.profiler
// already says where each step ends: `prof.step()` (torch names the spans "ProfilerStep#N" in
// its trace). With SYNCWATCH_STEP=ProfilerStep, those are the steps of step costs and capture
// readiness, with no NVTX range to add.
//
// torch gives no C-level hook for it (the step is a RecordFunction only while the profiler
// records, and it takes CUPTI for itself then), so when torch.profiler.profiler is imported
// syncwatch wraps three methods of its `profile` class, in a pending call (the main thread,
// between bytecodes, with the GIL): start() opens the first step, step() ends one and opens
// the next, stop() ends the last. Each wrapper calls torch's method with the same arguments
// and returns what it returns (functools.wraps keeps its name, doc and __wrapped__), so the
// profiler works as without syncwatch. Nothing is wrapped unless SYNCWATCH_STEP asks for the
// profiler's steps.
#pragma once

namespace syncwatch::runtime {

// What a wrapper tells: the profiler began a step (start, step: Next) or ended the last one
// (stop). Called on the thread that called the method, with the GIL held.
enum class ProfilerStepMark { Next, End };

// The name syncwatch gives these steps (what SYNCWATCH_STEP must match).
inline constexpr const char *kProfilerStepName = "ProfilerStep";

// From now on, torch.profiler.profile's start/step/stop are told to OnMark. Needs the import
// watch (PythonStacks.h watchPythonImports); false without it.
bool followTorchProfilerSteps(void (*OnMark)(ProfilerStepMark Mark));

} // namespace syncwatch::runtime
