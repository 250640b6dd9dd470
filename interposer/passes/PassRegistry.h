// The passes the engine runs: every pass that rules.def's Runtime column names, in
// runtime_passes.def's order.
#pragma once

#include "WindowPass.h"

#include <vector>

namespace syncwatch::runtime {

// Made once, never destroyed (the engine runs at exit, after static destructors may have).
const std::vector<const WindowPass *> &cataloguePasses();

// The pass of one row of runtime_passes.def.
const WindowPass &passOf(RuntimePass Pass);

} // namespace syncwatch::runtime
