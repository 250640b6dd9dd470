#include "CudaCalls.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/IdentifierTable.h"
#include "clang/Lex/Lexer.h"

#include <string>
#include <vector>

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {

namespace {
// CUDA's C APIs are declared at global scope (or in an extern "C" block). A function of the
// same name in a namespace or a class is the program's own: AMGX's amgx::memory::cudaFreeHost
// and cudaMallocAsync are its pool's, and reporting them as CUDA's calls made 46 false
// warnings over its sources (docs/field-test.md).
bool declaredAtGlobalScope(const FunctionDecl &FD) {
  return FD.getDeclContext()->getRedeclContext()->isTranslationUnit();
}

// A catalogued API by any spelling, found with one hash lookup (hasAnyName over ~900
// spellings compares names one by one, for every call in every header).
AST_MATCHER(FunctionDecl, isCataloguedApi) {
  const IdentifierInfo *II = Node.getIdentifier();
  if (!II)
    return false;
  StringRef Name = II->getName();
  return Name.size() > 2 && Name[0] == 'c' && Name[1] == 'u' && findApi(Name) != nullptr &&
         declaredAtGlobalScope(Node);
}
} // namespace

StatementMatcher catalogedCallMatcher() {
  // Calls inside system headers (CUDA's own wrappers, thrust) are never reported: skip them
  // before looking at the callee.
  return callExpr(unless(isExpansionInSystemHeader()), callee(functionDecl(isCataloguedApi())),
                  unless(cudaKernelCallExpr()))
      .bind("api-call");
}

StatementMatcher kernelLaunchMatcher() {
  return cudaKernelCallExpr(unless(isExpansionInSystemHeader())).bind("launch");
}

const ApiInfo *catalogueEntry(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getIdentifier() || !declaredAtGlobalScope(*FD))
    return nullptr;
  return findApi(FD->getName());
}

bool isWritten(const Expr *Arg) { return Arg && !isa<CXXDefaultArgExpr>(Arg); }

static std::optional<llvm::APSInt> castIntegerValue(const Expr *E, ASTContext &Ctx) {
  // (cudaStream_t)0x1: an explicit cast of an integer constant to a pointer.
  E = E->IgnoreParenImpCasts();
  const auto *Cast = dyn_cast<ExplicitCastExpr>(E);
  if (!Cast || Cast->getCastKind() != CK_IntegralToPointer)
    return std::nullopt;
  const Expr *Sub = Cast->getSubExpr();
  if (Sub->isValueDependent())
    return std::nullopt;
  return Sub->getIntegerConstantExpr(Ctx);
}

// The innermost macro that produced the token at Loc, e.g. "cudaStreamLegacy".
static StringRef macroAt(SourceLocation Loc, ASTContext &Ctx) {
  if (!Loc.isMacroID())
    return {};
  return Lexer::getImmediateMacroName(Loc, Ctx.getSourceManager(), Ctx.getLangOpts());
}

StreamArgKind classifyStreamArg(const Expr *Arg, ASTContext &Ctx) {
  if (!isWritten(Arg))
    return StreamArgKind::Omitted;
  StringRef Macro = macroAt(Arg->getBeginLoc(), Ctx);
  if (Macro == "cudaStreamLegacy")
    return StreamArgKind::Legacy;
  if (Macro == "cudaStreamPerThread")
    return StreamArgKind::PerThread;
  if (!Arg->isValueDependent() &&
      Arg->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull)
    return (Macro == "cudaStreamDefault" || Macro == "CU_STREAM_DEFAULT") ? StreamArgKind::FlagAsStream
                                                                            : StreamArgKind::Null;
  if (auto V = castIntegerValue(Arg, Ctx)) {
    if (*V == 1)
      return StreamArgKind::Legacy;
    if (*V == 2)
      return StreamArgKind::PerThread;
    if (*V == 0)
      return StreamArgKind::Null;
  }
  return StreamArgKind::Explicit;
}

std::optional<StreamArg> streamArgOf(const CallExpr &Call, const ApiInfo *Api, ASTContext &Ctx) {
  const Expr *Arg = nullptr;
  if (const auto *Launch = dyn_cast<CUDAKernelCallExpr>(&Call)) {
    // <<<grid, block, shared, stream>>>: the configuration is a call whose 4th argument
    // is the stream, defaulted when not written.
    const CallExpr *Config = Launch->getConfig();
    // A launch from device code (dynamic parallelism, -fgpu-rdc) is configured by
    // cudaLaunchDevice(func, params, grid, block, shared, stream): it goes to a device-side
    // stream, never to one of the host's. (Read as a host launch, its block size was taken
    // for an explicit stream, and a file without streams got warnings: bench/corpus, Packt's
    // Chapter04 kernel_execution_overhead.)
    if (const FunctionDecl *C = Config ? Config->getDirectCallee() : nullptr;
        C && C->getIdentifier() && C->getName() == "cudaLaunchDevice")
      return std::nullopt;
    if (!Config || Config->getNumArgs() < 4)
      return StreamArg{};
    Arg = Config->getArg(3);
  } else {
    if (!Api || !Api->takesStream())
      return std::nullopt;
    if (static_cast<unsigned>(Api->StreamArg) >= Call.getNumArgs())
      return std::nullopt;
    Arg = Call.getArg(Api->StreamArg);
  }
  StreamArg S;
  S.Kind = classifyStreamArg(Arg, Ctx);
  S.Expr = S.Kind == StreamArgKind::Omitted ? nullptr : Arg;
  return S;
}

std::optional<std::int64_t> constantInt(const Expr *E, ASTContext &Ctx) {
  Expr::EvalResult R;
  if (!E || E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

bool isStreamType(QualType T) {
  T = T.getCanonicalType();
  if (const auto *P = T->getAs<PointerType>())
    if (const auto *R = P->getPointeeType()->getAsRecordDecl())
      return R->getName() == "CUstream_st";
  return false;
}

SourceLocation reportLoc(SourceLocation Loc, const SourceManager &SM) {
  return Loc.isValid() ? SM.getFileLoc(Loc) : Loc;
}

CharSourceRange reportRange(SourceRange R, const SourceManager &SM, const LangOptions &LO) {
  CharSourceRange File = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
  if (File.isValid())
    return File;
  // Part of a macro: highlight the token at the report location.
  SourceLocation B = reportLoc(R.getBegin(), SM);
  return CharSourceRange::getTokenRange(B, B);
}

bool isOutsideUserCode(SourceLocation Loc, const SourceManager &SM) {
  if (Loc.isInvalid())
    return true;
  // Only the file position counts: CUDA's own macros (cudaMemcpyAsync becomes
  // cudaMemcpyAsync_ptsz in per-thread builds, cuMemcpyHtoD becomes cuMemcpyHtoD_v2) are
  // system macros expanded in the user's code.
  return SM.isInSystemHeader(SM.getFileLoc(Loc));
}

static bool renamedPerThread(StringRef Name) {
  return Name.ends_with("_ptsz") || Name.ends_with("_ptds");
}

bool usesPerThreadDefaultStream(const CallExpr &Call, ASTContext &Ctx) {
  if (isa<CUDAKernelCallExpr>(Call))
    return Ctx.getLangOpts().GPUDefaultStream == LangOptions::GPUDefaultStreamKind::PerThread ||
           // The identifier table is the preprocessor's: at the end of the unit it shows
           // whether cuda_runtime_api.h turned cudaLaunchKernel into a macro.
           Ctx.Idents.get("cudaLaunchKernel").hasMacroDefinition();
  const FunctionDecl *FD = Call.getDirectCallee();
  return FD && FD->getIdentifier() && renamedPerThread(FD->getName());
}

bool perThreadMacroDefinedTooLate(ASTContext &Ctx) {
  return Ctx.Idents.get("CUDA_API_PER_THREAD_DEFAULT_STREAM").hasMacroDefinition() &&
         !Ctx.Idents.get("cudaLaunchKernel").hasMacroDefinition();
}

std::string calleeName(const CallExpr &Call) {
  if (const FunctionDecl *FD = Call.getDirectCallee())
    return FD->getNameAsString();
  // Inside an uninstantiated template the callee is still an unresolved name.
  const Expr *Callee = Call.getCallee() ? Call.getCallee()->IgnoreParenImpCasts() : nullptr;
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Callee))
    return DRE->getNameInfo().getAsString();
  if (const auto *OE = dyn_cast_or_null<OverloadExpr>(Callee))
    return OE->getName().getAsString();
  if (const auto *DSD = dyn_cast_or_null<DependentScopeDeclRefExpr>(Callee))
    return DSD->getNameInfo().getAsString();
  return "<kernel>";
}

const FunctionDecl *enclosingFunction(const Stmt &S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(S);
  for (int Depth = 0; !Parents.empty() && Depth < 256; ++Depth) {
    if (const auto *F = Parents[0].get<FunctionDecl>())
      return F;
    if (const auto *St = Parents[0].get<Stmt>())
      Parents = Ctx.getParents(*St);
    else if (const auto *D = Parents[0].get<Decl>())
      Parents = Ctx.getParents(*D);
    else
      break;
  }
  return nullptr;
}

} // namespace syncwatch
