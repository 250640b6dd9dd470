// A --baseline file.
#include "../../analyzer/lint/BaselineFilter.h"
#include "FuzzInput.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  auto B = syncwatch::readBaseline(syncwatch::fuzz::scratchFile("baseline.json", syncwatch::fuzz::text(Data, Size)));
  if (!B)
    llvm::consumeError(B.takeError());
  return 0;
}
