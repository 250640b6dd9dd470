#include "ParseHold.h"

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

} // namespace syncwatch
