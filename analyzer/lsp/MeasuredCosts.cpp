#include "MeasuredCosts.h"

#include "syncwatch/confirm_evidence.h"
#include "syncwatch/json_report_reader.h"
#include "syncwatch/path_suffix.h"
#include "syncwatch/report.h"

#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <ctime>

namespace syncwatch::lsp {
namespace {

std::string day(long long MTime) {
  std::time_t T = static_cast<std::time_t>(MTime);
  char Buf[16] = "";
  std::tm Tm;
  if (gmtime_r(&T, &Tm))
    std::strftime(Buf, sizeof Buf, "%Y-%m-%d", &Tm);
  return Buf;
}

std::string evidence(const Finding &F, const char *Key) {
  const std::string *V = evidenceOf(F, Key);
  return V ? *V : "";
}

// What the runtime said at the line, in words: "confirmed: 118.5 ms over 200 call(s)",
// "runtime-only: 9.8 ms over 3 call(s)", then Where (the GPU and the report's day).
std::string describe(const Finding &F, const RuntimeEvidence &E, const std::string &Where) {
  const std::string &Count = E.Count;
  if (E.Status == "not-observed")
    return "not observed: ran " + Count + " time(s), never stalled" + Where;
  if (E.Status == "not-measured")
    return (Count.empty() ? std::string("not measured: launches were not all counted")
                          : "not measured: ran " + Count + " time(s), untimed") +
           " (SYNCWATCH_MEASURE=all times it)" + Where;
  std::string Said = E.Status.empty() ? "measured" : E.Status;
  // A count finding (launches off PyTorch's current stream) is an ordering bug, not a time.
  if (const std::string *N = evidenceOf(F, "offStreamLaunches"); N && E.runtimeOnly())
    return Said + ": ran off PyTorch's current stream " + *N + " time(s)" + Where;
  return Said + ": " + formatMs(E.TotalMs.value_or(0)) + (Count.empty() ? "" : " over " + Count + " call(s)") + Where;
}

} // namespace

bool MeasuredCosts::refresh(std::vector<std::string> &Problems) {
  if (Folder.empty())
    return false;
  std::map<std::string, long long> Now;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Folder, EC), End; It != End && !EC; It.increment(EC)) {
    if (llvm::sys::path::extension(It->path()) != ".json")
      continue;
    llvm::sys::fs::file_status St;
    if (!llvm::sys::fs::status(It->path(), St) && St.type() == llvm::sys::fs::file_type::regular_file)
      Now[It->path()] = llvm::sys::toTimeT(St.getLastModificationTime());
  }
  if (Now == Stamp)
    return false;
  Stamp = Now;
  Entries.clear();
  for (const auto &[File, MTime] : Now) {
    auto Buf = llvm::MemoryBuffer::getFile(File);
    Report R;
    std::string Error;
    if (!Buf || !readJsonReport((*Buf)->getBuffer().str(), R, Error)) {
      if (!Said[File]) {
        Said[File] = true;
        Problems.push_back(File + ": " + (Buf ? Error : Buf.getError().message()));
      }
      continue;
    }
    for (const Finding &F : R.Findings) {
      RuntimeEvidence E = readRuntimeEvidence(F);
      if (E.Status == "not-exercised")
        continue;
      MeasuredAt M;
      M.Rule = F.Rule;
      M.Message = E.Message;
      M.RuntimeFinding = E.runtimeOnly();
      std::string Gpu = E.Gpu.empty() ? reportGpuOf(R, F) : E.Gpu;
      M.Text = describe(F, E, (Gpu.empty() ? "" : " on " + Gpu) + ", " + day(MTime));
      Entries.push_back({pathComponents(F.Where.File), F.Where.Line, M});
      // A Python process's finding is at the Python line; its C++ frame too.
      std::string Native = evidence(F, "nativeSite");
      Native = Native.substr(0, Native.find(' '));
      auto Colon = Native.rfind(':');
      if (Colon != std::string::npos && Colon + 1 < Native.size())
        Entries.push_back({pathComponents(Native.substr(0, Colon)),
                           static_cast<unsigned>(std::atoi(Native.c_str() + Colon + 1)), M});
    }
  }
  return true;
}

// The same file when the trailing components agree: two of them, or all of the shorter.
bool MeasuredCosts::matches(const Entry &E, const std::vector<std::string> &Path) const {
  std::size_t N = commonSuffix(E.Components, Path);
  return N >= 2 || (N >= 1 && (N == E.Components.size() || N == Path.size()));
}

std::vector<MeasuredAt> MeasuredCosts::at(const std::string &Path, unsigned Line) const {
  std::vector<MeasuredAt> Out;
  std::vector<std::string> P = pathComponents(Path);
  for (const Entry &E : Entries)
    if (E.Line == Line && matches(E, P))
      Out.push_back(E.What);
  return Out;
}

std::map<unsigned, std::vector<MeasuredAt>> MeasuredCosts::in(const std::string &Path) const {
  std::map<unsigned, std::vector<MeasuredAt>> Out;
  std::vector<std::string> P = pathComponents(Path);
  for (const Entry &E : Entries)
    if (E.Line && matches(E, P))
      Out[E.Line].push_back(E.What);
  return Out;
}

} // namespace syncwatch::lsp
