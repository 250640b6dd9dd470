#include "Profile.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace syncwatch {

llvm::Expected<MeasuredProfile> readProfile(const std::string &Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "cannot read profile '%s': %s", Path.c_str(),
                                   Buffer.getError().message().c_str());
  llvm::Expected<llvm::json::Value> Doc = llvm::json::parse((*Buffer)->getBuffer());
  if (!Doc)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "profile '%s' is not JSON: %s", Path.c_str(),
                                   llvm::toString(Doc.takeError()).c_str());
  const llvm::json::Object *Root = Doc->getAsObject();
  if (!Root || Root->getString("schema") != "syncwatch-profile-1")
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'%s' is not a syncwatch profile (schema syncwatch-profile-1; "
                                   "write one with `syncwatch calibrate`)",
                                   Path.c_str());
  MeasuredProfile P;
  if (const llvm::json::Object *Dev = Root->getObject("device")) {
    P.Device = Dev->getString("name").value_or("unknown GPU").str();
    if (auto CC = Dev->getString("computeCapability"))
      P.Device += " (" + CC->str() + ")";
    if (auto Drv = Dev->getInteger("driverVersion"))
      P.Device += ", driver " + std::to_string(*Drv);
  }
  if (const llvm::json::Object *Legacy = Root->getObject("legacyStream"))
    P.LegacyWaitsForBlockingStream = Legacy->getBoolean("waitsForBlockingStream").value_or(true);
  const llvm::json::Array *Calls = Root->getArray("calls");
  if (!Calls)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "profile '%s' has no \"calls\"", Path.c_str());
  for (const llvm::json::Value &V : *Calls) {
    const llvm::json::Object *C = V.getAsObject();
    if (!C || !C->getString("api") || C->getBoolean("ok") == false)
      continue;  // a call that failed to run measured nothing
    std::string Api = C->getString("api")->str();
    // An API blocks if any of its measured cases did (cudaFree(nullptr) does not, a real
    // cudaFree does: the finding is about the real one).
    P.BlocksDevice[Api] = P.BlocksDevice[Api] || C->getBoolean("blocksDevice").value_or(false);
    P.BlocksBehindBlockingStreams[Api] =
        P.BlocksBehindBlockingStreams[Api] || C->getBoolean("blocksBehindBlockingStreams").value_or(false);
  }
  return P;
}

namespace {

bool setLevel(Finding &F, Severity Level, const std::string &Why) {
  F.Evidence.push_back({"profile", Why});
  if (F.Level == Level)
    return false;
  F.Level = Level;
  return true;
}

} // namespace

unsigned applyProfile(std::vector<Finding> &Findings, const MeasuredProfile &P) {
  unsigned Changed = 0;
  for (Finding &F : Findings) {
    const std::string *Api = evidenceOf(F, "api");
    if (F.Rule == "syncwatch-default-stream" || F.Rule == "syncwatch-blocking-stream") {
      Changed += setLevel(F, P.LegacyWaitsForBlockingStream ? Severity::Warning : Severity::Note,
                          std::string("legacy-stream work ") +
                              (P.LegacyWaitsForBlockingStream ? "waited" : "did not wait") +
                              " for a blocking stream on " + P.Device);
      continue;
    }
    if (!Api || (F.Rule != "syncwatch-implicit-sync" && F.Rule != "syncwatch-sync-memcpy"))
      continue;
    auto Device = P.BlocksDevice.find(*Api);
    if (Device == P.BlocksDevice.end())
      continue;  // not measured: the catalogue's judgement stands
    bool Blocks = Device->second;
    if (F.Rule == "syncwatch-sync-memcpy")
      Blocks = Blocks || P.BlocksBehindBlockingStreams.at(*Api);
    Changed += setLevel(F, Blocks ? Severity::Warning : Severity::Note,
                        *Api + (Blocks ? " blocked the host" : " did not block the host") + " on " + P.Device);
  }
  return Changed;
}

} // namespace syncwatch
