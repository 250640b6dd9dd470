// Where a parse kept alive for the cross-unit phase (HeldParse.h) and its owner meet: the
// parse (UnitParse.cpp) publishes its first analysis, then judges the unit again for each
// request until it is let go.
#pragma once

#include "UnitRun.h"

#include <condition_variable>
#include <mutex>
#include <optional>

namespace syncwatch {

// Where a parse kept alive and its owner meet. The parse thread calls publish() once its
// first analysis is done, then nextRequest()/answer() until nextRequest() says it is let go.
class ParseHold {
public:
  // Parse thread: the first analysis (its findings, summary and the files it read).
  void publish(UnitResult First);
  // Parse thread: waits for the next slice to judge the unit with (nullptr: none); nullopt
  // when the owner has let the parse go.
  std::optional<const SummaryIndex *> nextRequest();
  // Parse thread: the findings and summary of the last request.
  void answer(UnitResult Again);
  // The thread that ran the parse: it ended, with Final (a parse that never published:
  // an error, a crash; or one that did, after it was let go or crashed while held).
  void finish(UnitResult Final);

  // Owner: waits for the first analysis or the end of the parse. True when it was
  // published (the parse is held); false when the parse ended first (Final is the result).
  bool waitFirst(UnitResult &Out);
  // Owner: judges the held unit again; nullopt when the parse ended instead (a crash).
  std::optional<UnitResult> ask(const SummaryIndex *External);
  // Owner: lets the parse go on to its end.
  void release();

private:
  std::mutex M;
  std::condition_variable CV;
  bool Published = false, Finished = false, Released = false;
  bool Asked = false, Answered = false;
  const SummaryIndex *Request = nullptr;
  UnitResult First, Again, Final;
};

} // namespace syncwatch
