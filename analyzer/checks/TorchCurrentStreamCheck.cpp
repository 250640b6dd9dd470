#include "TorchCurrentStreamCheck.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace syncwatch {

namespace {

constexpr const char *Current = "at::cuda::getCurrentCUDAStream()";

std::string subject(const StreamUse &U) {
  if (U.Library)
    return "'" + calleeName(*U.Call) + "' (" + std::string(U.Library->Name) + ")";
  if (!U.Api)
    return "kernel '" + calleeName(*U.Call) + "'";
  return "'" + std::string(U.Api->Name) + "'";
}

std::string where(const StreamUse &U) {
  bool PerThread = U.PerThreadDefault && U.Stream.Kind != StreamArgKind::Legacy;
  std::string Stream = PerThread ? "the per-thread default stream" : "the legacy default stream";
  switch (U.Stream.Kind) {
  case StreamArgKind::Omitted:
    if (U.Library)
      return " " + U.LibraryHow + " runs on " + Stream;
    return U.Api ? " without a stream argument runs on " + Stream : " is launched without a stream, on " + Stream;
  case StreamArgKind::Null:
    return " is issued on stream 0, " + Stream;
  case StreamArgKind::FlagAsStream:
    return " is issued on 'cudaStreamDefault', a stream-creation flag: " + Stream;
  case StreamArgKind::Legacy:
    return " is issued on cudaStreamLegacy, the legacy default stream";
  default:
    return "";
  }
}

const char *Why = ", not on PyTorch's current stream: inside torch.cuda.stream(s) it is not ordered "
                  "after the work it reads, and it breaks CUDA graph capture";

// A file range for a node that may be written in a macro argument (AT_DISPATCH_*'s lambda);
// invalid inside a macro's own body, where no fix can be placed.
CharSourceRange fileRange(SourceLocation B, SourceLocation E, ASTContext &Ctx) {
  return Lexer::makeFileCharRange(CharSourceRange::getTokenRange(B, E), Ctx.getSourceManager(),
                                  Ctx.getLangOpts());
}

unsigned writtenArgs(const CallExpr &Call) {
  unsigned N = 0;
  for (const Expr *A : Call.arguments())
    if (isWritten(A))
      ++N;
  return N;
}

// Passing at::cuda::getCurrentCUDAStream(): replace a written 0 / cudaStreamLegacy, or add the
// stream after the last written argument when the stream is the next one.
std::vector<FixItHint> currentStreamFix(const StreamUse &U, ASTContext &Ctx) {
  if (U.Library)
    return {};  // thrust needs a policy, cub a stream after optional arguments: say it in words
  if (U.Stream.Expr) {
    CharSourceRange R = fileRange(U.Stream.Expr->getBeginLoc(), U.Stream.Expr->getEndLoc(), Ctx);
    if (R.isInvalid())
      return {};
    return {FixItHint::CreateReplacement(R, Current)};
  }
  if (const auto *K = dyn_cast<CUDAKernelCallExpr>(U.Call)) {
    const CallExpr *Config = K->getConfig();
    if (!Config)
      return {};
    unsigned Written = writtenArgs(*Config);
    // <<<grid, block>>> or <<<grid, block, smem>>>; the fix goes before ">>>".
    CharSourceRange Close = fileRange(Config->getRParenLoc(), Config->getRParenLoc(), Ctx);
    if (Close.isInvalid() || (Written != 2 && Written != 3))
      return {};
    return {FixItHint::CreateInsertion(Close.getBegin(), std::string(Written == 2 ? ", 0, " : ", ") + Current)};
  }
  if (!U.Api || U.Api->StreamArg < 0 || writtenArgs(*U.Call) != static_cast<unsigned>(U.Api->StreamArg))
    return {};
  CharSourceRange Close = fileRange(U.Call->getRParenLoc(), U.Call->getRParenLoc(), Ctx);
  if (Close.isInvalid())
    return {};
  return {FixItHint::CreateInsertion(Close.getBegin(), std::string(", ") + Current)};
}

// cudaMemset(p, v, n) -> cudaMemsetAsync(p, v, n, at::cuda::getCurrentCUDAStream()).
std::vector<FixItHint> asyncMemsetFix(const CallExpr &Call, const ApiInfo &Async, ASTContext &Ctx) {
  SourceLocation Callee = Call.getCallee()->getBeginLoc();
  CharSourceRange Name = fileRange(Callee, Callee, Ctx);
  CharSourceRange Close = fileRange(Call.getRParenLoc(), Call.getRParenLoc(), Ctx);
  if (Name.isInvalid() || Close.isInvalid() || writtenArgs(Call) != Call.getNumArgs())
    return {};
  return {FixItHint::CreateReplacement(Name, Async.Name),
          FixItHint::CreateInsertion(Close.getBegin(), std::string(", ") + Current)};
}

// The fixes, applied by --fix where the unit declares the current stream; otherwise shown
// with a note that names the header.
void offer(CheckDiagnostic &D, std::vector<FixItHint> Fix, bool Declared) {
  if (Fix.empty())
    return;
  if (Declared) {
    D.Fixes = std::move(Fix);
    return;
  }
  D.Notes.push_back({D.Loc, "include <ATen/cuda/CUDAContext.h> for at::cuda::getCurrentCUDAStream()",
                     std::move(Fix)});
}

} // namespace

void TorchCurrentStreamCheck::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {
  ASTContext *Ctx = Facts.context();
  if (!Ctx || !Facts.usesAten())
    return;
  const SourceManager &SM = Ctx->getSourceManager();
  const StreamUsage &Usage = Facts.streams();
  bool Declared = declaresCurrentStream(*Ctx);
  for (const StreamUse &U : Usage.uses()) {
    // The per-thread default stream is not PyTorch's current stream either; an explicit
    // cudaStreamPerThread is a stream the author chose.
    bool OffCurrent = StreamUsage::isLegacyWork(U) ||
                      (U.PerThreadDefault && (U.Stream.Kind == StreamArgKind::Omitted ||
                                              U.Stream.Kind == StreamArgKind::Null));
    // (A handle library's call: the handle check below says which handle and what to bind.)
    if (!OffCurrent || !isHostFunction(Facts.functionOf(U.Call)) ||
        (U.Library && U.Library->Shape == LibraryShape::HandleStream))
      continue;
    CheckDiagnostic D;
    D.Rule = RuleId::TorchCurrentStream;
    D.Level = Severity::Warning;
    D.Loc = U.Loc;
    D.Range = reportRange(U.Range, SM, Ctx->getLangOpts());
    std::string Pass = U.Library && U.Library->Shape == LibraryShape::ThrustAlgorithm
                           ? "pass thrust::cuda::par_nosync.on(at::cuda::getCurrentCUDAStream())"
                           : "pass at::cuda::getCurrentCUDAStream()";
    D.Message = subject(U) + where(U) + Why + "; " + Pass;
    offer(D, currentStreamFix(U, *Ctx), Declared);
    D.Evidence = {{"api", U.Library ? std::string(U.Library->Name)
                          : U.Api ? std::string(U.Api->Name) : std::string("<<<>>>")},
                  {"stream", U.PerThreadDefault && U.Stream.Kind != StreamArgKind::Legacy ? "per-thread" : "legacy"}};
    Sink.emit(D, SM);
  }
  // cudaMemset runs on the legacy stream. (cudaMemcpy also waits for the GPU: the host-sync
  // rule reports it.)
  for (const CallExpr *Call : Usage.syncLegacyCalls()) {
    const ApiInfo *Api = catalogueEntry(*Call);
    if (!Api || Api->Family != ApiFamily::Memset || !isHostFunction(Facts.functionOf(Call)))
      continue;
    CheckDiagnostic D;
    D.Rule = RuleId::TorchCurrentStream;
    D.Level = Severity::Warning;
    D.Loc = reportLoc(Call->getBeginLoc(), SM);
    D.Range = reportRange(SourceRange(Call->getBeginLoc(), Call->getBeginLoc()), SM, Ctx->getLangOpts());
    const ApiInfo *Async = asyncCounterpart(*Api);
    D.Message = "'" + std::string(Api->Name) + "' runs on the legacy default stream" + Why + "; use " +
                (Async ? std::string(Async->Name) : std::string("the Async form")) +
                " on at::cuda::getCurrentCUDAStream() (or at::zero_ / fill_ on the tensor)";
    if (Async)
      offer(D, asyncMemsetFix(*Call, *Async, *Ctx), Declared);
    D.Evidence = {{"api", std::string(Api->Name)}, {"stream", "legacy"}};
    Sink.emit(D, SM);
  }
  // cuBLAS / cuDNN handles the extension created and never gave a stream.
  std::set<unsigned> Reported;
  for (const LibraryHandles::Use &H : Facts.handles().unstreamedUses()) {
    SourceLocation Loc = reportLoc(H.Call->getBeginLoc(), SM);
    if (!Reported.insert(Loc.getRawEncoding()).second)
      continue;
    CheckDiagnostic D;
    D.Rule = RuleId::TorchCurrentStream;
    D.Level = Severity::Warning;
    D.Loc = Loc;
    D.Range = reportRange(SourceRange(H.Call->getBeginLoc(), H.Call->getBeginLoc()), SM, Ctx->getLangOpts());
    std::string Name = calleeName(*H.Call);
    if (llvm::StringRef(Name).ends_with("_v2"))
      Name.resize(Name.size() - 3);
    std::string Handle = H.Handle->getNameAsString();
    std::string Library = llvm::StringRef(Name).starts_with("cudnn") ? "cudnn" : "cublas";
    D.Message = "'" + Name + "' runs on handle '" + Handle +
                "''s stream, the legacy default stream (no " + Library + "SetStream names it)" + Why +
                (Library == "cublas" ? "; use at::cuda::getCurrentCUDABlasHandle(), which is set to the current stream"
                                     : "; call " + Library + "SetStream(" + Handle + ", at::cuda::getCurrentCUDAStream()) first");
    D.Notes.push_back({reportLoc(H.Created->getBeginLoc(), SM), "'" + Handle + "' is created here", {}});
    D.Evidence = {{"api", Name}, {"stream", "legacy"}};
    Sink.emit(D, SM);
  }
}

} // namespace syncwatch
