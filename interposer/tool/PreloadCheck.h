// Whether libsyncwatch.so can be loaded into a program, asked before `syncwatch run` starts
// one. A preloaded library whose own dependency is missing (CUPTI not installed, or not on
// the library path) does not load, and the dynamic loader then refuses to start the program
// at all (exit 127); `run` used to add "no process of the run made a CUDA call", which read as
// if the program had made none (issue 42).
#pragma once

#include <string>
#include <vector>

namespace syncwatch::runtime {

// The shared libraries Lib needs that the dynamic loader cannot find, as it resolves them
// for a program started with LD_PRELOAD=Lib and this process's environment: the loader's
// own trace (LD_TRACE_LOADED_OBJECTS, what ldd runs), which loads nothing and runs no code of
// Lib's. Empty when every one is found, or when the trace could not be taken.
std::vector<std::string> missingDependencies(const std::string &Lib);

// The loader's trace lines ("\tlibcupti.so.13 => not found") to the names not found.
std::vector<std::string> notFoundIn(const std::string &Trace);

// What `run` says when Missing is not empty: which library, and where CUPTI comes from.
std::string cannotPreloadMessage(const std::string &Lib, const std::vector<std::string> &Missing);

} // namespace syncwatch::runtime
