#include "HostMemoryProvenance.h"
#include "UnitScope.h"
#include "CudaCalls.h"

#include <algorithm>

#include "syncwatch/catalogue.h"

#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {
namespace {

constexpr int MaxDepth = 6;

// The standard containers whose storage is ordinary (pageable) heap or stack memory.
bool isStdContainer(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->getDeclContext()->isStdNamespace())
    return false;
  StringRef N = RD->getName();
  return N == "vector" || N == "basic_string" || N == "array" || N == "valarray";
}

bool isUniquePtr(QualType T) {
  const auto *RD = T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return RD && RD->getDeclContext()->isStdNamespace() &&
         (RD->getName() == "unique_ptr" || RD->getName() == "shared_ptr");
}

StringRef calleeName(const CallExpr *C) {
  if (const FunctionDecl *FD = C->getDirectCallee())
    if (FD->getIdentifier())
      return FD->getName();
  return {};
}

bool isHeapAllocator(StringRef N) {
  return N == "malloc" || N == "calloc" || N == "realloc" || N == "aligned_alloc" ||
         N == "valloc" || N == "memalign" || N == "strdup";
}

Provenance pageable(SourceLocation Where, std::string How) {
  return {HostMemory::Pageable, Where, std::move(How)};
}

const Expr *strip(const Expr *E) {
  while (true) {
    E = E->IgnoreParenCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else
      return E;
  }
}

} // namespace

const ValueDecl *memoryRoot(const Expr *E) {
  for (int I = 0; I < 32 && E; ++I) {
    E = strip(E);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return DRE->getDecl();
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return ME->getMemberDecl();
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
      E = U->getSubExpr();
    else if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isAdditiveOp())
      E = B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS();
    else if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
      E = A->getBase();
    else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
      E = MC->getImplicitObjectArgument();
    else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E); OC && OC->getNumArgs() > 0)
      E = OC->getArg(0);
    else
      return nullptr;
  }
  return nullptr;
}

static Provenance registered(const ValueDecl *D);

HostMemoryProvenance::HostMemoryProvenance(ASTContext &Ctx) : Ctx(Ctx) {}

Provenance HostMemoryProvenance::of(const Expr *E) {
  InProgress.clear();
  Provenance P = resolve(E, 0);
  if (P.Kind == HostMemory::Null)
    return {};
  // Registration pins the whole object, whatever path led to it.
  if (P.Kind == HostMemory::Pageable)
    if (const ValueDecl *Root = memoryRoot(E); Root && isRegistered(Root))
      return registered(Root);
  return P;
}

void HostMemoryProvenance::indexCalls() {
  Indexed = true;
  // Only the user's declarations (of the traversal scope, UnitScope.h): walking CUDA's and
  // the standard library's headers too cost more than parsing the file (measured on the
  // benchmark corpus).
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<BoundNodes> Calls;
  for (const Decl *D : unitScopeDecls(Ctx)) {
    if (D->getLocation().isInvalid() || SM.isInSystemHeader(SM.getFileLoc(D->getLocation())))
      continue;
    auto Found = match(decl(forEachDescendant(callExpr(callee(functionDecl())).bind("c"))), *D, Ctx);
    Calls.insert(Calls.end(), Found.begin(), Found.end());
  }
  for (const BoundNodes &N : Calls) {
    const auto *C = N.getNodeAs<CallExpr>("c");
    if (const FunctionDecl *Callee = C->getDirectCallee())
      CallSites[Callee->getCanonicalDecl()].push_back(C);
    StringRef Name = calleeName(C);
    if (Name.empty() || !Name.starts_with("cu"))
      continue;
    const ApiInfo *Api = findApi(Name);
    if (Api && Api->Family == ApiFamily::HostRegister && C->getNumArgs() > 0)
      if (const ValueDecl *Root = memoryRoot(C->getArg(0)))
        Registered.insert(Root);
  }
}

bool HostMemoryProvenance::isRegistered(const ValueDecl *D) {
  if (!Indexed)
    indexCalls();
  return Registered.count(D) > 0;
}

Provenance HostMemoryProvenance::combine(const std::vector<Provenance> &Sources) {
  // Pageable only when every way the pointer can be set gives pageable memory; pageable on
  // some ways and pinned on others is "may be pageable" (a note); anything else is pinned
  // (a pinned source with unknown ones, as the copies in pinned pools are) or unknown.
  const Provenance *Pageable = nullptr, *Pinned = nullptr;
  bool Unknown = false;
  for (const Provenance &P : Sources) {
    switch (P.Kind) {
    case HostMemory::Null:
      continue;  // float *p = nullptr; p = (float *)malloc(n);
    case HostMemory::Managed:
    case HostMemory::Device:
      return P;
    case HostMemory::Pinned:
      Pinned = Pinned ? Pinned : &P;
      continue;
    case HostMemory::Pageable:
      Pageable = Pageable ? Pageable : &P;
      continue;
    case HostMemory::MaybePageable:
      return P;  // (a source that is itself mixed: as it says)
    case HostMemory::Unknown:
      Unknown = true;
      continue;
    }
  }
  if (Pinned && Pageable && !Unknown) {
    Provenance Mixed = *Pageable;
    Mixed.Kind = HostMemory::MaybePageable;
    Mixed.PinnedWhere = Pinned->Where;
    Mixed.PinnedHow = Pinned->How;
    return Mixed;
  }
  if (Pinned)
    return *Pinned;
  if (Pageable && !Unknown)
    return *Pageable;
  return Provenance{};
}

void HostMemoryProvenance::outParamAllocations(const ValueDecl *D, const Stmt *Scope,
                                               std::vector<Provenance> &Out) {
  if (!Scope)
    return;
  auto Calls = match(findAll(callExpr(callee(functionDecl())).bind("c")), *Scope, Ctx);
  for (const BoundNodes &N : Calls) {
    const auto *C = N.getNodeAs<CallExpr>("c");
    const ApiInfo *Api = findApi(calleeName(C));
    if (!Api || C->getNumArgs() == 0)
      continue;
    const Expr *Arg = strip(C->getArg(0));
    const auto *Addr = dyn_cast<UnaryOperator>(Arg);
    if (!Addr || Addr->getOpcode() != UO_AddrOf || memoryRoot(Addr->getSubExpr()) != D)
      continue;
    switch (Api->Family) {
    case ApiFamily::HostAlloc:
      Out.push_back({HostMemory::Pinned, C->getBeginLoc(), std::string(Api->Name)});
      break;
    case ApiFamily::ManagedAlloc:
      Out.push_back({HostMemory::Managed, C->getBeginLoc(), std::string(Api->Name)});
      break;
    case ApiFamily::DeviceAlloc:
    case ApiFamily::StreamOrderedAlloc:
      Out.push_back({HostMemory::Device, C->getBeginLoc(), std::string(Api->Name)});
      break;
    default:
      break;
    }
  }
}

Provenance HostMemoryProvenance::resolve(const Expr *E, int Depth) {
  if (!E || Depth > MaxDepth)
    return {};
  E = strip(E);
  if (E->isValueDependent() || E->isTypeDependent())
    return {};
  if (E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull)
    return {HostMemory::Null, E->getBeginLoc(), "null"};
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->getOpcode() == UO_AddrOf) {
      const Expr *Sub = strip(U->getSubExpr());
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(Sub))       // &p[k], &arr[0]
        return resolve(A->getBase(), Depth + 1);
      if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Sub);      // &v[0]
          OC && OC->getOperator() == OO_Subscript && OC->getNumArgs() > 0)
        return resolve(OC->getArg(0), Depth + 1);
      if (const auto *DRE = dyn_cast<DeclRefExpr>(Sub))             // &x: a host variable
        if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()); V && !V->getType()->isReferenceType())
          return pageable(V->getLocation(), "a host variable");
    }
    return {};
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->isAdditiveOp())
      return resolve(B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS(), Depth + 1);
    if (B->getOpcode() == BO_Comma)
      return resolve(B->getRHS(), Depth + 1);
    return {};
  }
  if (const auto *C = dyn_cast<ConditionalOperator>(E))
    return combine({resolve(C->getTrueExpr(), Depth + 1), resolve(C->getFalseExpr(), Depth + 1)});
  if (isa<CXXNewExpr>(E))
    return pageable(E->getBeginLoc(), "new");
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl()))
      return resolveParam(P, Depth);
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      return resolveVar(V, Depth);
    return {};
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl())) {
      if (F->getType()->isArrayType())
        return pageable(F->getLocation(), "an array member");
      return resolveField(F, ME, Depth);
    }
    return {};
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const Expr *Obj = MC->getImplicitObjectArgument();
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (!Obj || !M || !M->getIdentifier())
      return {};
    StringRef Method = M->getName();
    if (isStdContainer(Obj->getType()) && (Method == "data" || Method == "c_str")) {
      const ValueDecl *Root = memoryRoot(Obj);
      return pageable(Root ? Root->getLocation() : Obj->getBeginLoc(),
                      "a " + Obj->getType().getNonReferenceType().getUnqualifiedType()
                                 .getCanonicalType()->getAsCXXRecordDecl()->getQualifiedNameAsString());
    }
    if (isUniquePtr(Obj->getType()) && Method == "get")
      return resolve(Obj, Depth + 1);
    return {};
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    // std::unique_ptr<float[]> p(new float[n]);
    if (isUniquePtr(CE->getType()) && CE->getNumArgs() > 0)
      return resolve(CE->getArg(0), Depth + 1);
    return {};
  }
  if (const auto *C = dyn_cast<CallExpr>(E))
    return resolveCall(C, Depth);
  return {};
}

Provenance HostMemoryProvenance::resolveCall(const CallExpr *C, int Depth) {
  StringRef Name = calleeName(C);
  if (isHeapAllocator(Name))
    return pageable(C->getBeginLoc(), Name.str());
  if (Name == "make_unique" || Name == "make_shared" || Name == "make_unique_for_overwrite")
    return pageable(C->getBeginLoc(), "std::" + Name.str());
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD || !FD->hasBody() || !InProgress.insert(FD).second)
    return {};
  // A helper of this translation unit: what do its return statements give?
  std::vector<Provenance> Returns;
  for (const BoundNodes &N : match(findAll(returnStmt().bind("r")), *FD->getBody(), Ctx))
    if (const auto *R = N.getNodeAs<ReturnStmt>("r"); R && R->getRetValue())
      Returns.push_back(resolve(R->getRetValue(), Depth + 1));
  InProgress.erase(FD);
  return combine(Returns);
}

// Registration pins the whole object: checked at every variable and member the
// resolution passes through (const float *src = scene + off; with scene registered).
static Provenance registered(const ValueDecl *D) {
  return {HostMemory::Pinned, D->getLocation(), "cudaHostRegister"};
}

Provenance HostMemoryProvenance::resolveVar(const VarDecl *V, int Depth) {
  if (isRegistered(V))
    return registered(V);
  QualType T = V->getType();
  if (T->isArrayType())
    return pageable(V->getLocation(), V->hasGlobalStorage() ? "a static array" : "a C array");
  if (isStdContainer(T) && !T->isReferenceType())
    return pageable(V->getLocation(), "a std container");
  if (!InProgress.insert(V).second)
    return {};
  std::vector<Provenance> Sources;
  if (const Expr *Init = V->getInit())
    Sources.push_back(resolve(Init, Depth + 1));
  if (T->isReferenceType() || V->hasGlobalStorage()) {
    // A reference is its initializer; a global's other assignments are elsewhere.
    InProgress.erase(V);
    return Sources.empty() ? Provenance{} : (V->hasGlobalStorage() ? Provenance{} : Sources[0]);
  }
  // Every assignment in the function, and allocation through &V.
  const auto *Fn = dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  const Stmt *Body = Fn ? Fn->getBody() : nullptr;
  if (Body) {
    auto Assigns = match(
        findAll(binaryOperator(isAssignmentOperator(), hasLHS(ignoringParenImpCasts(
                                                           declRefExpr(to(equalsNode(V))))))
                    .bind("a")),
        *Body, Ctx);
    for (const BoundNodes &N : Assigns)
      if (const auto *A = N.getNodeAs<BinaryOperator>("a"))
        Sources.push_back(resolve(A->getRHS(), Depth + 1));
    outParamAllocations(V, Body, Sources);
  }
  InProgress.erase(V);
  // A local pointer malloc'd on one path and pinned on another (a flag chooses) may be
  // pageable: combine says so (issue 11 made it a warning; issue 41: a note, the path is not
  // certain).
  return combine(Sources);
}

Provenance HostMemoryProvenance::resolveField(const FieldDecl *F, const Expr *Use, int Depth) {
  if (isRegistered(F))
    return registered(F);
  // Members are followed only within the function that uses them: an assignment there
  // (job.host = malloc(n)) or an out-parameter allocation (cudaMallocHost(&job.host, n)).
  const auto *Fn = [&]() -> const FunctionDecl * {
    DynTypedNodeList Parents = Ctx.getParents(*Use);
    for (int I = 0; I < 256 && !Parents.empty(); ++I) {
      if (const auto *FD = Parents[0].get<FunctionDecl>())
        return FD;
      if (Parents[0].get<LambdaExpr>())
        return nullptr;
      Parents = Ctx.getParents(Parents[0]);
    }
    return nullptr;
  }();
  if (!Fn || !Fn->getBody() || !InProgress.insert(F).second)
    return {};
  std::vector<Provenance> Sources;
  auto Assigns = match(
      findAll(binaryOperator(isAssignmentOperator(),
                             hasLHS(ignoringParenImpCasts(memberExpr(member(equalsNode(F))))))
                  .bind("a")),
      *Fn->getBody(), Ctx);
  for (const BoundNodes &N : Assigns)
    if (const auto *A = N.getNodeAs<BinaryOperator>("a"))
      Sources.push_back(resolve(A->getRHS(), Depth + 1));
  outParamAllocations(F, Fn->getBody(), Sources);
  InProgress.erase(F);
  return combine(Sources);
}

Provenance HostMemoryProvenance::resolveParam(const ParmVarDecl *P, int Depth) {
  if (isRegistered(P))
    return registered(P);
  const auto *Fn = dyn_cast_or_null<FunctionDecl>(P->getDeclContext());
  if (!Fn || Depth > MaxDepth || !InProgress.insert(P).second)
    return {};
  // A parameter reassigned in its function is not just its arguments.
  if (Fn->getBody() &&
      !match(findAll(binaryOperator(isAssignmentOperator(),
                                    hasLHS(ignoringParenImpCasts(declRefExpr(to(equalsNode(P))))))),
             *Fn->getBody(), Ctx)
           .empty()) {
    InProgress.erase(P);
    return {};
  }
  unsigned Index = P->getFunctionScopeIndex();
  std::vector<Provenance> Sources;
  if (!Indexed)
    indexCalls();
  auto It = CallSites.find(Fn->getCanonicalDecl());
  if (It != CallSites.end())
    for (const CallExpr *C : It->second)
      if (Index < C->getNumArgs())
        Sources.push_back(resolve(C->getArg(Index), Depth + 1));
  if (Sources.empty()) { // never called here: nothing to say
    InProgress.erase(P);
    return {};
  }
  InProgress.erase(P);
  return combine(Sources); // no call site: unknown
}

std::vector<HostBuffer> hostBuffers(const CallExpr &Call, const ApiInfo &Api, ASTContext &Ctx) {
  auto Arg = [&](int I) -> const Expr * {
    return I >= 0 && static_cast<unsigned>(I) < Call.getNumArgs() ? Call.getArg(I) : nullptr;
  };
  std::vector<HostBuffer> Out;
  switch (Api.Direction) {
  case CopyDirection::HtoD:
    if (Arg(Api.SrcArg))
      Out.push_back({Arg(Api.SrcArg), HostSide::ToDevice});
    break;
  case CopyDirection::DtoH:
    if (Arg(Api.DstArg))
      Out.push_back({Arg(Api.DstArg), HostSide::FromDevice});
    break;
  case CopyDirection::ByPointer:
    if (Arg(Api.SrcArg))
      Out.push_back({Arg(Api.SrcArg), HostSide::ToDevice});
    if (Arg(Api.DstArg))
      Out.push_back({Arg(Api.DstArg), HostSide::FromDevice});
    break;
  case CopyDirection::ByKind: {
    std::optional<std::int64_t> Kind = constantInt(Arg(Api.KindArg), Ctx);
    if (!Kind)
      break;
    auto K = static_cast<MemcpyKind>(*Kind);
    if ((K == MemcpyKind::HostToDevice || K == MemcpyKind::Default) && Arg(Api.SrcArg))
      Out.push_back({Arg(Api.SrcArg), HostSide::ToDevice});
    if ((K == MemcpyKind::DeviceToHost || K == MemcpyKind::Default) && Arg(Api.DstArg))
      Out.push_back({Arg(Api.DstArg), HostSide::FromDevice});
    break;
  }
  default:
    break;
  }
  return Out;
}

} // namespace syncwatch
