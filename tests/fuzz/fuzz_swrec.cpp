// A recording (.swrec), read and replayed through the engine, windowed as at run time.
#include "../../interposer/engine/Engine.h"
#include "../../interposer/engine/EventWindow.h"
#include "../../interposer/events/EventLog.h"
#include "FuzzInput.h"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  std::istringstream In(syncwatch::fuzz::text(Data, Size));
  syncwatch::runtime::ParseResult P = syncwatch::runtime::readEventLog(In);
  if (!P.Error.empty())
    return 0;
  syncwatch::runtime::Engine E;
  {
    syncwatch::runtime::EventWindow W(E, 64);
    for (const auto &S : P.Log.Streams)
      W.addStream(S);
    for (const auto &C : P.Log.Calls)
      W.addCall(C);
    for (const auto &G : P.Log.Work)
      W.addWork(G);
    W.flush();
  }
  E.consume(syncwatch::runtime::EventLog{});
  (void)E.findings();
  (void)E.coverage();
  std::ostringstream Out;
  syncwatch::runtime::writeEventLog(Out, P.Log);
  return 0;
}
