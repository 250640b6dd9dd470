// The checks syncwatch ships, by rule id: the one list both front ends register from.
#pragma once

#include "SyncwatchCheck.h"

#include <functional>
#include <memory>
#include <span>

namespace syncwatch {

struct CheckFactory {
  RuleId Rule;
  std::function<std::unique_ptr<SyncwatchCheck>(DiagnosticSink &, const CheckOptions &)> Create;
};

std::span<const CheckFactory> registeredChecks();

} // namespace syncwatch
