// A SARIF log through both readers: the shared one (syncwatch merge, confirm) and the
// lint's own (syncwatch-lint merge).
#include "../../analyzer/lint/SarifMerge.h"
#include "FuzzInput.h"

#include "syncwatch/sarif_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  std::string Text = syncwatch::fuzz::text(Data, Size);
  syncwatch::Report R;
  std::string Error;
  (void)syncwatch::readSarifReport(Text, R, Error);
  auto L = syncwatch::readSarif(syncwatch::fuzz::scratchFile("in.sarif", Text));
  if (L) {
    std::vector<syncwatch::Report> Parts;
    Parts.push_back(std::move(*L));
    auto M = syncwatch::mergeReports(std::move(Parts));
    if (!M)
      llvm::consumeError(M.takeError());
  } else {
    llvm::consumeError(L.takeError());
  }
  return 0;
}
