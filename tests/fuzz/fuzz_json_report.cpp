// A runtime or lint JSON report, as `syncwatch merge` and `confirm` read it.
#include "FuzzInput.h"

#include "syncwatch/json_report_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  syncwatch::Report R;
  std::string Error;
  (void)syncwatch::readJsonReport(syncwatch::fuzz::text(Data, Size), R, Error);
  return 0;
}
