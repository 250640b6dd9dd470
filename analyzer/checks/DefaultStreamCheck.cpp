#include "DefaultStreamCheck.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {

// "kernel 'scale'", "'cudaMemcpyAsync'"
static std::string subject(const StreamUse &U) {
  if (U.Library)
    return "'" + calleeName(*U.Call) + "' (" + std::string(U.Library->Name) + ")";
  if (!U.Api)
    return "kernel '" + calleeName(*U.Call) + "'";
  return "'" + std::string(U.Api->Name) + "'";
}

static std::string describe(const StreamUse &U) {
  std::string S = subject(U);
  switch (U.Stream.Kind) {
  case StreamArgKind::Omitted:
    if (U.Library)
      return S + " " + U.LibraryHow + " runs on the legacy default stream";
    return U.Api ? S + " without a stream argument runs on the legacy default stream"
                 : S + " is launched without a stream, on the legacy default stream";
  case StreamArgKind::Null:
    return S + " is issued on stream 0, the legacy default stream";
  case StreamArgKind::FlagAsStream:
    return "'cudaStreamDefault' is a stream-creation flag, not a stream: " + S +
           " runs on the legacy default stream";
  case StreamArgKind::Legacy:
    return S + " is issued on cudaStreamLegacy, the legacy default stream";
  default:
    return S;
  }
}

void DefaultStreamCheck::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {
  const StreamUsage &Usage = Facts.streams();
  ASTContext *Ctx = Usage.context();
  if (!Ctx)
    return;
  const SourceManager &SM = Ctx->getSourceManager();
  // Legacy-stream work only costs something when there are other streams to serialize
  // with; alone in a unit it is a note for the day streams are added.
  bool Others = Usage.usesOtherStreams();
  // In a PyTorch extension the question is PyTorch's current stream, not the legacy one:
  // syncwatch-torch-current-stream reports that work (one finding per launch).
  bool Torch = Facts.usesAten();
  for (const StreamUse &U : Usage.uses()) {
    if (!Usage.isLegacyWork(U) || (Torch && isHostFunction(Facts.functionOf(U.Call))))
      continue;
    CheckDiagnostic D;
    D.Rule = RuleId::DefaultStream;
    D.Level = Others ? Severity::Warning : Severity::Note;
    D.Loc = U.Loc;
    D.Range = reportRange(U.Range, SM, Ctx->getLangOpts());
    std::string Pass = !U.Library ? "pass an explicit stream"
                       : U.Library->Shape == LibraryShape::ThrustAlgorithm
                           ? "pass thrust::cuda::par_nosync.on(stream) (or par.on(stream))"
                       : U.Library->Shape == LibraryShape::HandleStream
                           ? "bind the handle to a stream with " + std::string(U.Library->SetStream)
                           : "pass the stream argument";
    D.Message = describe(U) + (Others ? ", which serializes it with every blocking stream; " + Pass
                                      : "; " + Pass + " before this code shares the GPU with "
                                                      "other streams");
    if (Usage.perThreadDefineTooLate() && U.Stream.Kind != StreamArgKind::Legacy)
      D.Notes.push_back({U.Loc,
                         "CUDA_API_PER_THREAD_DEFAULT_STREAM is defined after CUDA's headers "
                         "were included (nvcc and clang include cuda_runtime.h first), so it "
                         "has no effect; define it on the command line or build with "
                         "--default-stream per-thread",
                         {}});
    D.Evidence = {{"api", U.Library ? std::string(U.Library->Name)
                          : U.Api ? std::string(U.Api->Name) : std::string("<<<>>>")},
                  {"documented", std::string(documentedSyncText(DocumentedSync::LegacyStream))},
                  {"measured", "a legacy-stream kernel started only after a blocking "
                               "stream's work ended (CUDA 13, H200)"}};
    Sink.emit(D, SM);
  }
  // thrust's containers take no stream: their fills and copies go to the legacy stream.
  for (const ContainerWork &W : Usage.containerWork()) {
    CheckDiagnostic D;
    D.Rule = RuleId::DefaultStream;
    D.Level = Others ? Severity::Warning : Severity::Note;
    D.Loc = W.Loc;
    D.Range = reportRange(W.Range, SM, Ctx->getLangOpts());
    std::string Fix = "thrust's containers take no stream: construct them empty (or with thrust::no_init where your CCCL has it) and fill or copy with "
                      "thrust::fill / thrust::copy(thrust::cuda::par_nosync.on(stream), ...) or cudaMemcpyAsync "
                      "on your stream";
    D.Message = W.What + (Others ? ", which serializes it with every blocking stream; " + Fix
                                 : "; " + Fix + ", before this code shares the GPU with other streams");
    D.Evidence = {{"api", "thrust container"},
                  {"documented", std::string(documentedSyncText(DocumentedSync::LegacyStream))}};
    Sink.emit(D, SM);
  }
}

} // namespace syncwatch
