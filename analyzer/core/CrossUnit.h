// Summaries across translation units (syncwatch/unit_summary.h): what one unit's analysis
// tells the others. syncwatch-lint's first phase calls summarizeUnit() on every unit; its
// second phase hands each unit that needs them the summaries of the functions it calls
// (FunctionWork, WorkTransfer) and the work other units' calls leave running when its own
// functions start (WorkFlow's entry items). The clang-tidy plugin sees one file and has none.
//
// Chains: a unit analyzed again passes its callers' work on, in its own calls' summaries,
// with the calls it came through (ExternalCall::Work::Via); the rounds follow a chain through
// a.cu -> b.cpp -> c.cu -> d.cu (docs/ci.md). A unit with no CUDA call of its own is
// summarized too (UnitFacts::registerUnitMatcher).
#pragma once

#include "syncwatch/unit_summary.h"

namespace syncwatch {

class UnitFacts;

// Phase one's result for the unit: the functions it defines that other units can call, and
// its calls into functions defined elsewhere, each with the work in flight there.
UnitSummary summarizeUnit(const UnitFacts &Facts);

} // namespace syncwatch
