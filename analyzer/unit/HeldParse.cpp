#include "HeldParse.h"
#include "UnitRunner.h"

#include <system_error>

namespace syncwatch {

void ParseHold::publish(UnitResult R) {
  std::lock_guard<std::mutex> Lock(M);
  First = std::move(R);
  Published = true;
  CV.notify_all();
}

std::optional<const SummaryIndex *> ParseHold::nextRequest() {
  std::unique_lock<std::mutex> Lock(M);
  CV.wait(Lock, [&] { return Asked || Released; });
  if (Released)
    return std::nullopt;
  Asked = false;
  return Request;
}

void ParseHold::answer(UnitResult R) {
  std::lock_guard<std::mutex> Lock(M);
  Again = std::move(R);
  Answered = true;
  CV.notify_all();
}

void ParseHold::finish(UnitResult R) {
  std::lock_guard<std::mutex> Lock(M);
  Final = std::move(R);
  Finished = true;
  CV.notify_all();
}

bool ParseHold::waitFirst(UnitResult &Out) {
  std::unique_lock<std::mutex> Lock(M);
  CV.wait(Lock, [&] { return Published || Finished; });
  if (Published) {
    Out = std::move(First);
    return true;
  }
  Out = std::move(Final);
  return false;
}

std::optional<UnitResult> ParseHold::ask(const SummaryIndex *External) {
  std::unique_lock<std::mutex> Lock(M);
  if (Finished || Released)
    return std::nullopt;
  Request = External;
  Asked = true;
  Answered = false;
  CV.notify_all();
  CV.wait(Lock, [&] { return Answered || Finished; });
  if (!Answered)
    return std::nullopt;  // the parse ended while judging: a crash, recovered on its thread
  Answered = false;
  return std::move(Again);
}

void ParseHold::release() {
  std::lock_guard<std::mutex> Lock(M);
  Released = true;
  CV.notify_all();
}

std::unique_ptr<HeldParse> HeldParse::start(const UnitRunner &Runner, const std::string &File,
                                            const std::vector<clang::tooling::CompileCommand> &Commands,
                                            const std::function<bool(const UnitResult &)> &Keep,
                                            UnitResult &First) {
  std::unique_ptr<HeldParse> Held(new HeldParse);
  Held->Hold = std::make_shared<ParseHold>();
  try {
    // The thread only waits for the parse's own (UnitParse.cpp runs each parse on a thread
    // with a large stack): its arguments are copied, it outlives this call.
    Held->Thread = std::thread([&Runner, File, Commands, Hold = Held->Hold] {
      Hold->finish(Runner.analyze(File, Commands, nullptr, Hold.get()));
    });
  } catch (const std::system_error &) {
    First = Runner.analyze(File, Commands);  // no thread (a thread limit): as without keeping
    return nullptr;
  }
  if (!Held->Hold->waitFirst(First) || !Keep(First))
    return nullptr;  // the destructor lets the parse go and joins its thread
  Held->Deps = First.Deps;
  return Held;
}

HeldParse::~HeldParse() {
  Hold->release();
  if (Thread.joinable())
    Thread.join();
}

std::optional<UnitResult> HeldParse::judgeAgain(const SummaryIndex *External) {
  std::optional<UnitResult> R = Hold->ask(External);
  if (R)
    R->Deps = Deps;
  return R;
}

} // namespace syncwatch
