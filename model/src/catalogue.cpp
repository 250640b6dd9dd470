#include "syncwatch/catalogue.h"

#include <array>
#include <string>
#include <unordered_map>
#include <vector>

namespace syncwatch {
namespace {

constexpr RuleInfo kRules[] = {
#define SYNCWATCH_RULE(Enum, Id, Sev, Prefix, Runtime, Calibration, Confirm, Summary, Help) \
  {RuleId::Enum, Id, Severity::Sev, Summary, Help, Prefix, RuntimePass::Runtime, CalibrationUse::Calibration,    \
   ConfirmUse::Confirm},
#include "../../rules/rules.def"
#undef SYNCWATCH_RULE
};

constexpr RuntimePassInfo kRuntimePasses[] = {
#define SYNCWATCH_RUNTIME_PASS(Name, Summary) {RuntimePass::Name, #Name, Summary},
#include "../../rules/runtime_passes.def"
#undef SYNCWATCH_RUNTIME_PASS
};

constexpr ApiInfo kApis[] = {
#define SYNCWATCH_API(Name, Layer, Family, Issues, Drains, Stream, StreamDefault, Flags, Dst, \
                      Src, Kind, Bytes, Direction, Documented, Measured, Proof, Rule, Sev, Fix,  \
                      Capture)                                                                  \
  {Name, ApiLayer::Layer, ApiFamily::Family, IssuedWork::Issues, Drain::Drains, Stream,      \
   StreamDefault, Flags, Dst, Src, Kind, Bytes,                                              \
   CopyDirection::Direction, DocumentedSync::Documented, MeasuredSync::Measured,           \
   Evidence::Proof, RuleId::Rule, Severity::Sev, Fix, CaptureUse::Capture},
#include "../../rules/cuda_api.def"
#undef SYNCWATCH_API
};

bool endsWith(std::string_view S, std::string_view Suffix) {
  return S.size() >= Suffix.size() && S.substr(S.size() - Suffix.size()) == Suffix;
}

// Strips one trailing "_v<digits>" (driver ABI version or CUPTI's API version tag).
bool stripVersion(std::string_view &S) {
  auto Pos = S.rfind("_v");
  if (Pos == std::string_view::npos || Pos + 2 >= S.size())
    return false;
  for (char C : S.substr(Pos + 2))
    if (C < '0' || C > '9')
      return false;
  S = S.substr(0, Pos);
  return true;
}

const std::unordered_map<std::string_view, const ApiInfo *> &apiIndex() {
  static const auto *Index = [] {
    auto *M = new std::unordered_map<std::string_view, const ApiInfo *>();
    for (const ApiInfo &A : kApis)
      M->emplace(A.Name, &A);
    return M;
  }();
  return *Index;
}

} // namespace

std::string_view severityName(Severity S) {
  switch (S) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  }
  return "warning";
}

std::optional<Severity> parseSeverity(std::string_view Name) {
  for (Severity S : {Severity::Note, Severity::Warning, Severity::Error})
    if (severityName(S) == Name)
      return S;
  return std::nullopt;
}

std::span<const RuleInfo> allRules() { return kRules; }
std::span<const RuntimePassInfo> allRuntimePasses() { return kRuntimePasses; }
const RuleInfo &ruleInfo(RuleId Rule) { return kRules[static_cast<std::size_t>(Rule)]; }
const RuleInfo *findRule(std::string_view Id) {
  for (const RuleInfo &R : kRules)
    if (R.Id == Id)
      return &R;
  return nullptr;
}

CalibrationUse calibrationUse(std::string_view Id) {
  const RuleInfo *R = findRule(Id);
  return R ? R->Calibration : CalibrationUse::None;
}

ConfirmUse confirmUse(std::string_view Id) {
  const RuleInfo *R = findRule(Id);
  return R ? R->Confirm : ConfirmUse::Time;
}

std::span<const ApiInfo> allApis() { return kApis; }

std::string_view canonicalApiName(std::string_view S) {
  const auto &Index = apiIndex();
  if (Index.count(S))
    return S;
  // Peel suffixes in any order they appear: cuMemcpyHtoDAsync_v2_ptsz,
  // cudaMemcpyAsync_ptsz_v7000, cuMemcpyHtoD_v2.
  for (int Round = 0; Round < 3; ++Round) {
    bool Changed = stripVersion(S);
    for (std::string_view Suffix : {"_ptsz", "_ptds"})
      if (endsWith(S, Suffix)) {
        S.remove_suffix(Suffix.size());
        Changed = true;
      }
    if (Index.count(S) || !Changed)
      break;
  }
  return S;
}

const ApiInfo *findApi(std::string_view Spelled) {
  const auto &Index = apiIndex();
  auto It = Index.find(canonicalApiName(Spelled));
  return It == Index.end() ? nullptr : It->second;
}

bool issuesStreamWork(const ApiInfo &A) {
  // cudaLaunchKernelEx names its stream inside its config struct.
  return A.Issues != IssuedWork::None && (A.takesStream() || A.Family == ApiFamily::Launch);
}

bool isExplicitSync(const ApiInfo &A) { return A.Documented == DocumentedSync::ExplicitHostWait; }

CanWait documentedWait(const ApiInfo &A) {
  switch (A.Documented) {
  case DocumentedSync::NotDocumented:
    return CanWait::Unknown;
  case DocumentedSync::StreamOrdered:
  case DocumentedSync::LegacyStream:
  case DocumentedSync::CreatesBlockingStream:
    return CanWait::No;
  case DocumentedSync::AsyncUnlessPageable:
  case DocumentedSync::LegacyStreamHostWait:
  case DocumentedSync::DeviceWide:
  case DocumentedSync::ExplicitHostWait:
    return CanWait::Yes;
  }
  return CanWait::Unknown;
}

CanWait measuredWait(const ApiInfo &A) {
  switch (A.Measured) {
  case MeasuredSync::NotMeasured:
    return CanWait::Unknown;
  case MeasuredSync::ReturnsAtOnce:
    return CanWait::No;
  case MeasuredSync::BlocksDevice:
  case MeasuredSync::BlocksBehindBlockingStreams:
  case MeasuredSync::PageableNotAsync:
  case MeasuredSync::ExplicitWait:
    return CanWait::Yes;
  }
  return CanWait::Unknown;
}

bool mayWait(const ApiInfo &A) {
  if (CanWait M = measuredWait(A); M != CanWait::Unknown)
    return M == CanWait::Yes;
  return documentedWait(A) != CanWait::No;
}

const ApiInfo *asyncCounterpart(const ApiInfo &A) {
  if (A.takesStream())
    return nullptr;
  const ApiInfo *Async = findApi(std::string(A.Name) + "Async");
  return Async && Async->takesStream() ? Async : nullptr;
}

std::string_view documentedSyncText(DocumentedSync D) {
  switch (D) {
  case DocumentedSync::NotDocumented: return "no synchronization documented";
  case DocumentedSync::StreamOrdered: return "stream-ordered, asynchronous to the host";
  case DocumentedSync::AsyncUnlessPageable: return "asynchronous only for pinned host memory";
  case DocumentedSync::LegacyStream: return "runs on the legacy default stream";
  case DocumentedSync::LegacyStreamHostWait: return "runs on the legacy default stream and returns when done";
  case DocumentedSync::DeviceWide: return "documented as an implicit device-wide synchronization";
  case DocumentedSync::ExplicitHostWait: return "explicit host synchronization";
  case DocumentedSync::CreatesBlockingStream: return "creates a stream that synchronizes with the legacy default stream";
  }
  return "";
}

std::string_view measuredSyncText(MeasuredSync M) {
  switch (M) {
  case MeasuredSync::NotMeasured: return "not measured";
  case MeasuredSync::ReturnsAtOnce: return "did not wait for other GPU work (CUDA 13, H200)";
  case MeasuredSync::BlocksDevice: return "blocked the host until the whole device was idle (CUDA 13, H200)";
  case MeasuredSync::BlocksBehindBlockingStreams: return "waited for all work in blocking streams (CUDA 13, H200)";
  case MeasuredSync::PageableNotAsync: return "with pageable memory: HtoD costs the host the staging copy, DtoH waits for the copy (CUDA 13, H200)";
  case MeasuredSync::ExplicitWait: return "waits for the work it names";
  }
  return "";
}

std::string_view evidenceName(Evidence E) {
  switch (E) {
  case Evidence::None: return "none";
  case Evidence::Documented: return "documented";
  case Evidence::Inferred: return "inferred";
  case Evidence::Measured: return "measured";
  }
  return "none";
}

const char *captureModeName(CaptureMode M) {
  switch (M) {
  case CaptureMode::Global: return "global";
  case CaptureMode::ThreadLocal: return "thread-local";
  case CaptureMode::Relaxed: return "relaxed";
  case CaptureMode::Unknown: break;
  }
  return "unknown";
}

} // namespace syncwatch
