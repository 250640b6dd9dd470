// Summaries across translation units (syncwatch/unit_summary.h): what one unit's analysis
// tells the others. syncwatch-lint's first phase calls summarizeUnit() on every unit; its
// second phase hands each unit that needs them the summaries of the functions it calls
// (FunctionWork, WorkTransfer) and the work other units' calls leave running when its own
// functions start (WorkFlow's entry items). The clang-tidy plugin sees one file and has none.
//
// One level: a summary is computed with the other units' functions opaque, so the work that
// a.cu's call of b.cpp's function leaves through c.cpp's is not seen (docs/ci.md).
#pragma once

#include "syncwatch/unit_summary.h"

namespace syncwatch {

class UnitFacts;

// Phase one's result for the unit: the functions it defines that other units can call, and
// its calls into functions defined elsewhere, each with the work in flight there.
UnitSummary summarizeUnit(const UnitFacts &Facts);

} // namespace syncwatch
