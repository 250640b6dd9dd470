#include "LibraryCalls.h"

#include "CudaCalls.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <map>

#include <vector>

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {

std::string libraryName(const FunctionDecl &FD) {
  std::vector<std::string> Parts{FD.getNameAsString()};
  for (const DeclContext *DC = FD.getDeclContext(); DC; DC = DC->getParent()) {
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC)) {
      if (!NS->isInline())
        Parts.push_back(NS->getNameAsString());
    } else if (const auto *R = dyn_cast<RecordDecl>(DC)) {
      Parts.push_back(R->getNameAsString());
    }
  }
  std::string Name;
  for (auto It = Parts.rbegin(); It != Parts.rend(); ++It)
    Name += (Name.empty() ? "" : "::") + *It;
  return Name;
}

namespace {

// A C library's entry point: a function at namespace scope (extern "C"), named as the
// catalogue names it - cuBLASLt's matmul and NCCL's calls by name, the handle libraries by
// their prefix and the type of their first parameter (cublasLt's handle is not cuBLAS's).
const LibraryApi *cLibraryEntry(const FunctionDecl &FD) {
  StringRef N = FD.getName();
  if (!N.starts_with("cu") && !N.starts_with("nccl"))
    return nullptr;
  if (!FD.getDeclContext()->getRedeclContext()->isTranslationUnit())
    return nullptr;
  if (const LibraryApi *A = findLibraryApi(std::string_view(N.data(), N.size()));
      A && A->Shape == LibraryShape::StreamParameter)
    return A;
  if (FD.getNumParams() == 0)
    return nullptr;
  std::string Type = FD.getParamDecl(0)->getType().getAsString();
  return findHandleLibraryCall(std::string_view(N.data(), N.size()), Type);
}

} // namespace

const LibraryApi *libraryEntry(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return nullptr;
  // Cheap first: only thrust's, cub's and the C libraries' names can match.
  const DeclContext *Top = FD->getDeclContext();
  while (Top->getParent() && !Top->getParent()->isTranslationUnit())
    Top = Top->getParent();
  const auto *NS = dyn_cast<NamespaceDecl>(Top);
  if (!NS || (NS->getName() != "thrust" && NS->getName() != "cub"))
    return cLibraryEntry(*FD);
  return findLibraryApi(libraryName(*FD));
}

namespace {

AST_MATCHER(FunctionDecl, isLibraryEntryPoint) {
  if (!Node.getIdentifier())
    return false;
  const DeclContext *Top = Node.getDeclContext();
  while (Top->getParent() && !Top->getParent()->isTranslationUnit())
    Top = Top->getParent();
  const auto *NS = dyn_cast<NamespaceDecl>(Top);
  if (!NS || (NS->getName() != "thrust" && NS->getName() != "cub"))
    return cLibraryEntry(Node) != nullptr;
  return findLibraryApi(libraryName(Node)) != nullptr;
}

const CXXRecordDecl *recordOf(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  return T->getAsCXXRecordDecl();
}

// Whether R is a thrust execution policy: it derives from thrust's execution_policy.
bool isExecutionPolicy(const CXXRecordDecl *R, int Depth = 0) {
  if (!R || !R->hasDefinition() || Depth > 12)
    return false;
  if (R->getName() == "execution_policy" || R->getName() == "execution_policy_base")
    return true;
  for (const CXXBaseSpecifier &B : R->bases())
    if (isExecutionPolicy(recordOf(B.getType()), Depth + 1))
      return true;
  return false;
}

// Thrust's device iterators: device_ptr, device_vector's iterators, and iterator adaptors
// over them (their names carry the device system).
bool isDeviceIteratorType(QualType T) {
  std::string Name = T.getNonReferenceType().getCanonicalType().getAsString();
  return Name.find("device_ptr") != std::string::npos ||
         Name.find("device_reference") != std::string::npos ||
         Name.find("device_system_tag") != std::string::npos ||
         Name.find("cuda_cub::tag") != std::string::npos;
}

// The stream given to par.on(s) / par_nosync.on(s), looking through the policy expression.
const Expr *onStream(const Expr *Policy) {
  Policy = Policy->IgnoreParenImpCasts();
  if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(Policy))
    Policy = Temp->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(Policy))
    Policy = Bind->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Policy); Construct && Construct->getNumArgs() == 1)
    return onStream(Construct->getArg(0));
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(Policy))
    if (M->getMethodDecl() && M->getMethodDecl()->getName() == "on" && M->getNumArgs() >= 1)
      return M->getArg(0);
  return nullptr;
}

LibraryStream thrustStream(const CallExpr &Call) {
  LibraryStream S;
  if (Call.getNumArgs() == 0)
    return S;
  // The policy as written, not the execution_policy_base it converts to.
  const Expr *First = Call.getArg(0)->IgnoreParenImpCasts();
  if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(First))
    First = Temp->getSubExpr()->IgnoreParenImpCasts();
  const CXXRecordDecl *R = recordOf(First->getType());
  if (!isExecutionPolicy(R)) {
    // No policy: the iterators' system decides.
    if (isDeviceIteratorType(First->getType())) {
      S.K = LibraryStream::Default;
      S.Waits = true;
      S.How = "without an execution policy";
    } else {
      S.K = LibraryStream::NoGpuWork;
    }
    return S;
  }
  std::string Policy = R->getNameAsString();
  if (Policy.find("execute_on_stream") != std::string::npos) {
    S.Stream = onStream(First);
    S.K = S.Stream ? LibraryStream::Given : LibraryStream::Unknown;
    S.Waits = Policy.find("nosync") == std::string::npos;
    S.How = "on the stream of its execution policy";
    return S;
  }
  if (Policy == "par_t" || Policy == "device_t" || Policy.find("par_nosync") != std::string::npos) {
    S.K = LibraryStream::Default;
    S.Waits = Policy.find("nosync") == std::string::npos;
    S.How = Policy == "device_t" ? "with thrust::device" : "with an execution policy that names no stream";
    return S;
  }
  if (Policy == "host_t" || Policy == "seq_t" || Policy.find("cpp") != std::string::npos ||
      Policy.find("omp") != std::string::npos || Policy.find("tbb") != std::string::npos ||
      Policy.find("host") != std::string::npos || Policy.find("seq") != std::string::npos) {
    S.K = LibraryStream::NoGpuWork;
    return S;
  }
  // A policy with an allocator (thrust::cuda::par(alloc)) is par's: the legacy stream.
  if (Policy.find("execute_with_allocator") != std::string::npos) {
    S.K = LibraryStream::Default;
    S.Waits = true;
    S.How = "with an execution policy that names no stream";
  }
  return S;
}

bool isNullPointer(const Expr *E, ASTContext &Ctx) {
  return !E->isValueDependent() &&
         E->IgnoreParenImpCasts()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) !=
             Expr::NPCK_NotNull;
}

// A pointer's initializer that makes it null: = nullptr, = 0, {} or {nullptr}.
bool initializesToNull(const Expr *Init, ASTContext &Ctx) {
  if (!Init)
    return false;
  Init = Init->IgnoreParenImpCasts();
  if (isa<ImplicitValueInitExpr>(Init))
    return true;
  if (const auto *List = dyn_cast<InitListExpr>(Init))
    return List->getNumInits() == 0 || (List->getNumInits() == 1 && initializesToNull(List->getInit(0), Ctx));
  return isNullPointer(Init, Ctx);
}

// The temp-storage pointer is null at the call: the call only computes the size
// (void *d_temp = nullptr; cub::DeviceReduce::Sum(d_temp, bytes, ...)). Decided by the last
// write to the variable before the call in the function's source: `d_temp = nullptr;`
// before a second size query, or the null initializer when nothing wrote it since.
bool isSizeQuery(const CallExpr &Call, ASTContext &Ctx) {
  if (Call.getNumArgs() == 0)
    return false;
  if (isNullPointer(Call.getArg(0), Ctx))
    return true;
  const auto *Ref = dyn_cast<DeclRefExpr>(Call.getArg(0)->IgnoreParenImpCasts());
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!V || !V->isLocalVarDecl())
    return false;
  const auto *Fn = dyn_cast<FunctionDecl>(V->getDeclContext());
  if (!Fn || !Fn->getBody())
    return false;
  struct Writes : RecursiveASTVisitor<Writes> {
    const VarDecl *V;
    SourceLocation Before;
    const SourceManager &SM;
    ASTContext &Ctx;
    SourceLocation Last;     // the last write before the call...
    bool LastIsNull = false; // ...and whether it stores a null pointer
    Writes(const VarDecl *V, SourceLocation B, ASTContext &Ctx)
        : V(V), Before(B), SM(Ctx.getSourceManager()), Ctx(Ctx) {}
    bool refersToV(const Expr *E) {
      const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
      return R && R->getDecl() == V;
    }
    void note(const Stmt *S, bool Null) {
      SourceLocation L = SM.getExpansionLoc(S->getBeginLoc());
      if (!SM.isBeforeInTranslationUnit(L, Before))
        return;
      if (Last.isInvalid() || !SM.isBeforeInTranslationUnit(L, Last)) {
        Last = L;
        LastIsNull = Null;
      }
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->getOpcode() == UO_AddrOf && refersToV(U->getSubExpr()))
        note(U, false);  // cudaMalloc(&d_temp, bytes) and the like
      return true;
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (B->isAssignmentOp() && refersToV(B->getLHS()))
        note(B, B->getOpcode() == BO_Assign && isNullPointer(B->getRHS(), Ctx));
      return true;
    }
  } W(V, Ctx.getSourceManager().getExpansionLoc(Call.getBeginLoc()), Ctx);
  W.TraverseStmt(const_cast<Stmt *>(Fn->getBody()));
  if (W.Last.isValid())
    return W.LastIsNull;
  return initializesToNull(V->getInit(), Ctx);
}

LibraryStream cubStream(const CallExpr &Call, ASTContext &Ctx) {
  LibraryStream S;
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD)
    return S;
  if (isSizeQuery(Call, Ctx)) {
    S.K = LibraryStream::NoGpuWork; // sizes the temp storage only
    return S;
  }
  for (unsigned I = 0; I < FD->getNumParams() && I < Call.getNumArgs(); ++I) {
    if (FD->getParamDecl(I)->getName() != "stream")
      continue;
    const Expr *Arg = Call.getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg)) {
      S.K = LibraryStream::Default;
      S.How = "without its stream argument";
    } else {
      S.K = LibraryStream::Given;
      S.Stream = Arg;
      S.How = "on the stream it is given";
    }
    return S;
  }
  // No parameter named stream (an environment overload): unknown.
  return S;
}

// cuBLASLt's matmul and NCCL's calls: the parameter named "stream" (no default there).
LibraryStream streamParameter(const CallExpr &Call) {
  LibraryStream S;
  const FunctionDecl *FD = Call.getDirectCallee();
  for (unsigned I = 0; FD && I < FD->getNumParams() && I < Call.getNumArgs(); ++I)
    if (FD->getParamDecl(I)->getName() == "stream") {
      S.K = LibraryStream::Given;
      S.Stream = Call.getArg(I);
      S.How = "on the stream it is given";
    }
  return S;
}

// ---- handles and their streams (SYNCWATCH_LIBRARY_HANDLE) ----

// The handle a call names: a variable or a member (h, this->handle_, ctx.blas).
const ValueDecl *handleDeclOf(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *R = dyn_cast<DeclRefExpr>(E))
    return R->getDecl();
  if (const auto *M = dyn_cast<MemberExpr>(E))
    return M->getMemberDecl();
  return nullptr;
}

// What the unit does with each handle: where it is made, and where a stream is bound to it.
struct HandleFacts {
  bool Created = false, HostOnly = false;
  struct Bind {
    const CallExpr *Call;
    const FunctionDecl *In;
  };
  std::vector<Bind> Binds;
};

struct UnitHandles : RecursiveASTVisitor<UnitHandles> {
  std::map<const ValueDecl *, HandleFacts> Facts;
  std::vector<const FunctionDecl *> In;
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBodies() const { return true; }
  // The function each binding is in: any function definition (methods, constructors and
  // destructors too).
  bool TraverseDecl(Decl *D) {
    auto *F = dyn_cast_or_null<FunctionDecl>(D);
    if (F)
      In.push_back(F);
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    if (F)
      In.pop_back();
    return R;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD || !FD->getIdentifier() || C->getNumArgs() == 0)
      return true;
    StringRef N = FD->getName();
    if (!N.starts_with("cu"))
      return true;
    std::string_view Name(N.data(), N.size());
    for (const LibraryApi &A : allLibraryApis()) {
      if (A.Shape != LibraryShape::HandleStream || !N.starts_with(std::string_view(A.Name)))
        continue;
      if (namedIn(Name, A.Create, A.Name == "cufft")) {  // (cufftPlan1d/2d/3d/Many: prefixes)
        const auto *Addr = dyn_cast<UnaryOperator>(C->getArg(0)->IgnoreParenImpCasts());
        if (Addr && Addr->getOpcode() == UO_AddrOf)
          if (const ValueDecl *H = handleDeclOf(Addr->getSubExpr())) {
            Facts[H].Created = true;
            Facts[H].HostOnly |= N.ends_with("Host");  // curandCreateGeneratorHost
          }
      } else if (namedIn(Name, A.SetStream) && C->getNumArgs() >= 2) {
        if (const ValueDecl *H = handleDeclOf(C->getArg(0)))
          Facts[H].Binds.push_back({C, In.empty() ? nullptr : In.back()});
      }
    }
    return true;
  }
};

// Built once per unit (the lint runs units one after another on a thread).
const std::map<const ValueDecl *, HandleFacts> &unitHandles(ASTContext &Ctx) {
  thread_local const TranslationUnitDecl *For = nullptr;
  thread_local UnitHandles Index;
  if (For != Ctx.getTranslationUnitDecl()) {
    Index = UnitHandles();
    Index.TraverseDecl(Ctx.getTranslationUnitDecl());
    For = Ctx.getTranslationUnitDecl();
  }
  return Index.Facts;
}

// A stream expression that means the same in any function: a global or a member, a call
// (at::cuda::getCurrentCUDAStream()), a null or named constant (0, cudaStreamLegacy).
bool meansTheSameEverywhere(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (isa<CallExpr>(E) || isa<MemberExpr>(E) || isa<IntegerLiteral>(E) || isa<CXXNullPtrLiteralExpr>(E) ||
      isa<GNUNullExpr>(E))
    return true;
  if (const auto *R = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
      return !V->isLocalVarDeclOrParm();
    return isa<EnumConstantDecl>(R->getDecl());
  }
  if (const auto *C = dyn_cast<CStyleCastExpr>(E))
    return meansTheSameEverywhere(C->getSubExpr());
  return false;
}

// The stream a handle call's work runs on: the stream last bound to its handle earlier in
// the same function; else the one stream every binding in the unit gives it, where that
// stream means the same in this function; else, for a handle made in this unit and never
// bound, the legacy default stream. A handle from elsewhere, or bound to different streams
// in other functions: unknown, and nothing is said.
LibraryStream handleStream(const CallExpr &Call, const LibraryApi &Api, ASTContext &Ctx) {
  LibraryStream S;
  const ValueDecl *H = handleDeclOf(Call.getArg(0));
  if (!H)
    return S;
  const auto &Facts = unitHandles(Ctx);
  auto It = Facts.find(H);
  if (It == Facts.end())
    return S;
  const HandleFacts &F = It->second;
  if (F.HostOnly) {
    S.K = LibraryStream::NoGpuWork;
    return S;
  }
  std::string SetStream(Api.SetStream);
  const SourceManager &SM = Ctx.getSourceManager();
  const FunctionDecl *Here = enclosingFunction(Call, Ctx);
  const CallExpr *Last = nullptr;
  SourceLocation At = SM.getExpansionLoc(Call.getBeginLoc());
  for (const HandleFacts::Bind &B : F.Binds) {
    SourceLocation L = SM.getExpansionLoc(B.Call->getBeginLoc());
    if (Here && B.In == Here && SM.isBeforeInTranslationUnit(L, At) &&
        (!Last || SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Last->getBeginLoc()), L)))
      Last = B.Call;
  }
  if (!Last && !F.Binds.empty()) {
    const Expr *One = F.Binds.front().Call->getArg(1);
    for (const HandleFacts::Bind &B : F.Binds)
      if (!meansTheSameEverywhere(B.Call->getArg(1)) ||
          !Expr::isSameComparisonOperand(B.Call->getArg(1)->IgnoreParenImpCasts(), One->IgnoreParenImpCasts()))
        return S;
    Last = F.Binds.front().Call;
  }
  if (Last) {
    S.K = LibraryStream::Given;
    S.Stream = Last->getArg(1);
    S.How = "on the stream " + SetStream + " bound to its handle";
    return S;
  }
  if (!F.Created)
    return S;
  S.K = LibraryStream::Default;
  S.How = "on its handle, to which no " + SetStream + " binds a stream,";
  return S;
}

} // namespace

LibraryStream libraryStreamOf(const CallExpr &Call, const LibraryApi &Api, ASTContext &Ctx) {
  switch (Api.Shape) {
  case LibraryShape::ThrustAlgorithm: return thrustStream(Call);
  case LibraryShape::CubDevice: return cubStream(Call, Ctx);
  case LibraryShape::StreamParameter: return streamParameter(Call);
  case LibraryShape::HandleStream: return handleStream(Call, Api, Ctx);
  }
  return {};
}

StatementMatcher libraryCallMatcher() {
  return callExpr(callee(functionDecl(isLibraryEntryPoint()))).bind("library-call");
}

} // namespace syncwatch
