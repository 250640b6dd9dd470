// syncwatch confirm's matcher: a lint SARIF and a runtime report (the input split at the
// first line "----"), joined as `syncwatch confirm --static A --runtime B` joins them.
#include "../../interposer/join/Confirm.h"
#include "FuzzInput.h"


extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  std::string Text = syncwatch::fuzz::text(Data, Size);
  std::size_t Cut = Text.find("\n----\n");
  if (Cut == std::string::npos)
    return 0;
  syncwatch::runtime::ConfirmOptions O;
  O.Static = syncwatch::fuzz::scratchFile("static.sarif", Text.substr(0, Cut));
  O.Runtime = {syncwatch::fuzz::scratchFile("runtime.json", Text.substr(Cut + 6))};
  O.Format = "sarif";
  O.Output = syncwatch::fuzz::scratchDir() + "/confirmed.sarif";
  (void)syncwatch::runtime::confirmFindings(O);
  return 0;
}
