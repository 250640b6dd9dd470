// The checks syncwatch ships, by rule id: the one list both front ends register from. It
// sits above the checks: core (the facts, the dataflow) knows no rule's check.
#pragma once

#include "../core/SyncwatchCheck.h"

#include <functional>
#include <memory>
#include <span>

namespace syncwatch {

struct CheckFactory {
  RuleId Rule;
  std::function<std::unique_ptr<SyncwatchCheck>(const CheckOptionsView &)> Create;
};

std::span<const CheckFactory> registeredChecks();

} // namespace syncwatch
