#include "BlockingStreamCheck.h"

#include "clang/AST/ASTContext.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {


// The edit that makes the stream non-blocking: rename cudaStreamCreate(&s) to
// cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), or replace the flags argument.
// Offered on a note only: the legacy-stream work may rely on the implicit ordering the
// blocking stream gives it, so applying it blindly could introduce a race.
static std::vector<FixItHint> nonBlockingFix(const StreamCreation &C, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  bool Driver = C.Api->Layer == ApiLayer::Driver;
  std::string Flag = Driver ? "CU_STREAM_NON_BLOCKING" : "cudaStreamNonBlocking";
  if (C.FlagsArg) {
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(C.FlagsArg->getSourceRange()), SM, LO);
    if (R.isInvalid())
      return {};
    return {FixItHint::CreateReplacement(R, Flag)};
  }
  // cudaStreamCreate(&s): both the callee and ')' must map to plain file text (a macro
  // argument does, as in CUDA_CHECK(cudaStreamCreate(&s)); a macro body does not).
  SourceLocation Callee = C.Call->getCallee()->getBeginLoc();
  CharSourceRange Name =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Callee, Callee), SM, LO);
  CharSourceRange RParen = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(C.Call->getRParenLoc(), C.Call->getRParenLoc()), SM, LO);
  if (Name.isInvalid() || RParen.isInvalid())
    return {};
  return {FixItHint::CreateReplacement(Name, "cudaStreamCreateWithFlags"),
          FixItHint::CreateInsertion(RParen.getBegin(), ", " + Flag)};
}

void BlockingStreamCheck::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {
  const StreamUsage &Usage = Facts.streams();
  ASTContext *Ctx = Usage.context();
  if (!Ctx)
    return;
  SourceLocation LegacyLoc;
  const CallExpr *Legacy = Usage.firstLegacyWork(&LegacyLoc);
  const ContainerWork *Box = Usage.firstContainerWork();
  if (!Legacy && !Box)
    return; // a blocking stream costs nothing without legacy-stream work beside it
  const SourceManager &SM = Ctx->getSourceManager();
  std::string LegacyName;
  if (Box && (!Legacy || SM.isBeforeInTranslationUnit(Box->Loc, LegacyLoc))) {
    LegacyLoc = Box->Loc;
    LegacyName = "the thrust container's fill or copy";
  } else {
    LegacyName = isa<CUDAKernelCallExpr>(Legacy) ? "kernel '" + calleeName(*Legacy) + "' launched"
                                                 : "'" + calleeName(*Legacy) + "' issued";
  }
  for (const StreamCreation &C : Usage.creations()) {
    if (!C.Blocking)
      continue;
    CheckDiagnostic D;
    D.Rule = RuleId::BlockingStream;
    D.Level = Severity::Warning;
    D.Loc = C.Loc;
    D.Range = reportRange(C.Call->getCallee()->getSourceRange(), SM, Ctx->getLangOpts());
    D.Message = "'" + std::string(C.Api->Name) +
                "' creates a blocking stream, which serializes with the legacy default "
                "stream work in this file; create it with " +
                (C.Api->Layer == ApiLayer::Driver ? "CU_STREAM_NON_BLOCKING"
                                                  : "cudaStreamNonBlocking");
    D.Notes.push_back({LegacyLoc,
                       LegacyName + " on the legacy default stream here waits for this "
                                    "stream's work, and holds it back",
                       {}});
    std::vector<FixItHint> Fix = nonBlockingFix(C, *Ctx);
    if (!Fix.empty())
      D.Notes.push_back({C.Loc,
                         "make the stream non-blocking once the legacy-stream work does not "
                         "rely on this ordering",
                         Fix});
    D.Evidence = {{"api", std::string(C.Api->Name)},
                  {"documented", std::string(documentedSyncText(C.Api->Documented))},
                  {"measured", "with a blocking stream busy, a legacy-stream kernel started "
                               "1.3 us after it ended and a pageable cudaMemcpy blocked the "
                               "host (CUDA 13, H200)"}};
    Sink.emit(D, SM);
  }
}

} // namespace syncwatch
