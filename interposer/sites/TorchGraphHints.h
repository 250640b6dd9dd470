// torch.compile(mode="reduce-overhead") decides per compiled graph whether to run it as a CUDA
// graph (cudagraph trees), and when it does not - or records graphs again and again - it says
// why in one place: inductor's artifact loggers of torch/_inductor/cudagraph_utils.py and
// cudagraph_trees.py ("cudagraphs" in torch 2.11, "perf_hints" before): "skipping cudagraphs
// due to mutated inputs (1 instances)", "... cpu device (arg1_1)", "... exceeding max
// re-recording limit", "We have observed 9 distinct sizes". Torch 2.11 prints them among its
// compile warnings, with torch's own file and line; older versions only with
// TORCH_LOGS=perf_hints. Either way no user line, and the job is silently slower
// (pytorch/pytorch#117281).
//
// syncwatch puts one pass-through filter on each of the two loggers when its module is
// imported. A filter is called for every record the logger emits, before its handlers, on the
// thread that logs, with the GIL held - inside the user's call of the compiled function - so
// the hint is told with the user's Python line. It returns true: what torch prints does not
// change. No Python code of syncwatch's runs otherwise, and a process that never imports
// torch._inductor gets nothing.
#pragma once

#include <string_view>

namespace syncwatch::runtime {

enum class TorchGraphHint {
  Skipped,  // "skipping cudagraphs due to ...": the compiled graph runs without a CUDA graph
  Other,    // graphs are used, at a cost: re-recorded per input size, slow path, ...
};

// The kind of one message (its first words are torch's own wording).
TorchGraphHint torchGraphHintKind(std::string_view Message);

// From now on, each record of inductor's cudagraph loggers is told to OnHint, on the
// logging thread with the GIL held (it may read the thread's Python frames; it must not run
// Python). Needs the import watch (PythonStacks.h watchPythonImports); false without it.
bool followTorchGraphHints(void (*OnHint)(TorchGraphHint Kind, std::string_view Message));

} // namespace syncwatch::runtime
