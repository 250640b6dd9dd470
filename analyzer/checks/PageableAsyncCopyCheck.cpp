#include "PageableAsyncCopyCheck.h"

#include "../core/CudaCalls.h"
#include "../core/HostMemoryProvenance.h"

#include "clang/AST/ASTContext.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {
void PageableAsyncCopyCheck::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {
  if (!Facts.context())
    return;
  ASTContext &Ctx = *Facts.context();
  std::set<unsigned> Reported;
  for (const CallExpr *Call : Facts.apiCalls())
    judgeCall(*Call, Facts, Ctx, Reported, Sink);
}

void PageableAsyncCopyCheck::judgeCall(const CallExpr &TheCall, const UnitFacts &Facts, ASTContext &Ctx,
                                       std::set<unsigned> &Reported, DiagnosticSink &Sink) const {
  const CallExpr *Call = &TheCall;
  const SourceManager &SM = Ctx.getSourceManager();
  if (isOutsideUserCode(Call->getBeginLoc(), SM))
    return;
  const ApiInfo *Api = catalogueEntry(*Call);
  if (!Api || Api->Rule != RuleId::PageableAsyncCopy)
    return;
  SourceLocation Loc = reportLoc(Call->getBeginLoc(), SM);
  HostMemoryProvenance &Memory = Facts.hostMemory();
  for (const HostBuffer &Buf : hostBuffers(*Call, *Api, Ctx)) {
    Provenance P = Memory.of(Buf.Arg);
    bool ToDevice = Buf.Side == HostSide::ToDevice;
    if (P.Kind == HostMemory::Pageable && ToDevice && Api->BytesArg >= 0 &&
        static_cast<unsigned>(Api->BytesArg) < Call->getNumArgs()) {
      // Small pageable HtoD copies are staged by the driver and return at once.
      std::optional<std::int64_t> Bytes = constantInt(Call->getArg(Api->BytesArg), Ctx);
      if (Bytes && *Bytes >= 0 && static_cast<std::uint64_t>(*Bytes) <= kStagedCopyLimit)
        continue;
    }
    bool Unknown = P.Kind == HostMemory::Unknown;
    bool Maybe = P.Kind == HostMemory::MaybePageable;
    if (!(P.Kind == HostMemory::Pageable || Maybe || (Unknown && ReportUnknown)))
      continue;
    // One finding per call and side (template instantiations repeat the call).
    if (!Reported.insert(Loc.getRawEncoding() * 2 + (ToDevice ? 0 : 1)).second)
      continue;
    std::string Name = "'" + std::string(Api->Name) + "'";
    CheckDiagnostic D;
    D.Rule = RuleId::PageableAsyncCopy;
    D.Loc = Loc;
    D.Range = reportRange(Buf.Arg->getSourceRange(), SM, Ctx.getLangOpts());
    if (Maybe) {
      // A path decides: which one runs is not known here, so a note, not a warning.
      D.Level = Severity::Note;
      D.Message = Name + (ToDevice ? " may copy from" : " may copy to") + " pageable host memory: the buffer is " +
                  P.How + " on one path and " + P.PinnedHow + " on another; where it is pageable the copy " +
                  (ToDevice ? "is staged by the host before the call returns"
                            : "waits for the copy and all earlier work in its stream") +
                  "; pin it on every path (cudaMallocHost, cudaHostRegister)";
      if (P.Where.isValid())
        D.Notes.push_back({reportLoc(P.Where, SM), "the pageable path's memory comes from here", {}});
      if (P.PinnedWhere.isValid())
        D.Notes.push_back({reportLoc(P.PinnedWhere, SM), "the pinned path's memory comes from here", {}});
    } else if (Unknown) {
      D.Level = Severity::Note;
      D.Message = Name + (ToDevice ? " copies from" : " copies to") +
                  " host memory syncwatch cannot trace; if it is pageable the copy is not "
                  "asynchronous: use pinned memory (cudaMallocHost / cudaHostRegister)";
    } else {
      D.Level = Api->RuleSeverity;
      D.Message =
          ToDevice
              ? Name + " copies from pageable host memory (" + P.How +
                    "): the host does the staging copy before the call returns, so it is not "
                    "asynchronous (64 MB: 7.8 ms of host time on CUDA 13 / H200); use pinned "
                    "memory"
              : Name + " copies to pageable host memory (" + P.How +
                    "): the host waits for the copy and all earlier work in its stream (64 "
                    "MB: 3.9 ms on CUDA 13 / H200); use pinned memory";
      if (P.Where.isValid())
        D.Notes.push_back({reportLoc(P.Where, SM),
                           "pageable memory comes from here; allocate it with cudaMallocHost, "
                           "register it with cudaHostRegister, or take it from a pinned pool",
                           {}});
    }
    D.Evidence = {{"api", std::string(Api->Name)},
                  {"direction", ToDevice ? "host-to-device" : "device-to-host"},
                  {"hostMemory", Unknown ? "unknown"
                                 : Maybe ? "maybe pageable (" + P.How + "; pinned: " + P.PinnedHow + ")"
                                         : "pageable (" + P.How + ")"},
                  {"measured", std::string(measuredSyncText(Api->Measured))}};
    Sink.emit(D, SM);
  }
}

} // namespace syncwatch
