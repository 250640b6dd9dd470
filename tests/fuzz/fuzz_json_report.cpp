// A runtime or lint JSON report, as `syncwatch merge` and `confirm` read it, and what
// syncwatch-lsp's hover takes of each finding (confirm_evidence.h).
#include "FuzzInput.h"

#include "syncwatch/confirm_evidence.h"
#include "syncwatch/json_report_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  syncwatch::Report R;
  std::string Error;
  if (!syncwatch::readJsonReport(syncwatch::fuzz::text(Data, Size), R, Error))
    return 0;
  for (const syncwatch::Finding &F : R.Findings) {
    (void)syncwatch::readRuntimeEvidence(F);
    (void)syncwatch::reportGpuOf(R, F);
  }
  return 0;
}
