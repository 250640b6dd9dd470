// A unit's parse kept alive after its first analysis, so that syncwatch-lint's cross-unit
// phase can judge it again with the other units' summaries without parsing it again (a
// second parse was what made that phase cost 1.5x a single pass: issue 41). The parse
// thread stops at the end of the unit, with its AST, and serves requests: "judge again
// with this slice of the summaries" - the checks start anew on the facts the matchers
// collected, the calls into other units taking the slice's summaries (UnitFacts::
// rejudgeWith), so the answer is the one a new parse would give - until its owner lets it
// go, and the parse ends as any other.
//
// The memory this holds is a unit's AST and compiler state (35 MiB for a small CUDA file,
// 300 MiB for one of AMGX's): the batch runner decides how many to keep
// (LintOptions::KeepParsesMiB).
#pragma once

#include "ParseHold.h"
#include "UnitRun.h"

#include "clang/Tooling/CompilationDatabase.h"

#include <pthread.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace syncwatch {

class UnitRunner;

// A kept parse with the thread it runs on. Destroying it lets the parse go and waits for
// the thread: the AST is freed then.
class HeldParse {
public:
  // Analyzes File (UnitRunner::analyze, no summaries) on a thread of its own and returns
  // once the first analysis is done, in First. That thread has the parse's large stack and
  // Runner must parse on it (UnitOptions::ParseOnCallingThread): a kept parse holds one
  // thread, as a parse does, which the batch runner's thread budget counts on. Keep decides
  // from that first result whether the parse is worth keeping; the result is null when it
  // is not, or when the parse ended without one (errors, a crash: First says so), or when no
  // thread could be started (First is empty: analyze the file as usual).
  static std::unique_ptr<HeldParse> start(const UnitRunner &Runner, const std::string &File,
                                          const std::vector<clang::tooling::CompileCommand> &Commands,
                                          const std::function<bool(const UnitResult &)> &Keep,
                                          std::optional<UnitResult> &First);
  ~HeldParse();
  // Lets the parse go on to its end without waiting for it (the destructor waits): letting
  // every kept parse go first frees their ASTs in parallel.
  void release() { Hold->release(); }
  // The unit judged again with External: findings and summary (Deps: the first parse's).
  // nullopt when the kept parse could not answer (it crashed): parse the unit again then.
  std::optional<UnitResult> judgeAgain(const SummaryIndex *External);

private:
  HeldParse() = default;
  std::shared_ptr<ParseHold> Hold;
  pthread_t Thread{};
  bool Started = false;
  std::vector<std::string> Deps;
};

} // namespace syncwatch
