#include "FunctionWork.h"
#include "UnitScope.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Index/USRGeneration.h"

#include <algorithm>

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {

void FunctionWork::registerMatchers(MatchFinder &Finder, MatchFinder::MatchCallback *Callback) {
  // Any CUDA call tells us the unit is worth walking; the walk does the rest.
  Finder.addMatcher(kernelLaunchMatcher(), Callback);
  Finder.addMatcher(catalogedCallMatcher(), Callback);
}

void FunctionWork::reset() {
  Ctx = nullptr;
  Walked = false;
  Aten = false;
  FunctionOfCall.clear();
  ByFunction.clear();
  Order.clear();
  Seen.clear();
  Sorted.clear();
}

void FunctionWork::observe(const MatchFinder::MatchResult &Result) { Ctx = Result.Context; }

std::string usrOf(const Decl *D) {
  llvm::SmallString<128> Usr;
  if (!D || index::generateUSRForDecl(D, Usr))
    return "";
  return std::string(Usr);
}

// `do { ... } while (0)` is how macros like CUDA_CHECK make one statement, not a loop.
static bool isLoop(const Stmt *S, ASTContext &Ctx) {
  if (const auto *Do = dyn_cast<DoStmt>(S)) {
    bool Value = true;
    const Expr *Cond = Do->getCond();
    if (Cond && !Cond->isValueDependent() && Cond->EvaluateAsBooleanCondition(Value, Ctx))
      return Value;
    return true;
  }
  return isa<ForStmt, WhileStmt, CXXForRangeStmt>(S);
}

namespace {

class WorkWalker : public RecursiveASTVisitor<WorkWalker> {
public:
  WorkWalker(FunctionWork &Work, ASTContext &Ctx) : Work(Work), Ctx(Ctx) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBody() const { return false; } // lambdas are walked as functions

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody())
      return RecursiveASTVisitor::TraverseDecl(D);
    return inFunction(D, [&] { return RecursiveASTVisitor::TraverseDecl(D); });
  }

  bool TraverseLambdaExpr(LambdaExpr *L) {
    // The capture initializers belong to the enclosing function, the body to the lambda.
    for (Expr *Init : L->capture_inits())
      if (Init && !TraverseStmt(Init))
        return false;
    return inFunction(L->getCallOperator(), [&] { return TraverseStmt(L->getBody()); });
  }

  bool TraverseStmt(Stmt *S) {
    if (!S)
      return true;
    bool Loop = isLoop(S, Ctx);
    if (Loop)
      Loops.push_back(S);
    auto *Block = dyn_cast<CompoundStmt>(S);
    if (Block)
      Blocks.push_back(Block);
    bool Ok = RecursiveASTVisitor::TraverseStmt(S);
    if (Block)
      Blocks.pop_back();
    if (Loop)
      Loops.pop_back();
    return Ok;
  }

  bool VisitCallExpr(CallExpr *C) {
    if (Function)
      Work.add(Function, C, Loops);
    return true;
  }

  // A local object whose class has a destructor of the program's own: its destructor runs at
  // the end of the enclosing block, as a call there.
  bool VisitVarDecl(VarDecl *V) {
    if (!Function || Blocks.empty() || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
        V->getType()->isDependentType() || V->getType()->isReferenceType())
      return true;
    if (CXXDestructorDecl *Dtor = userDestructorOf(V->getType())) {
      SourceLocation End = Blocks.back()->getRBracLoc();
      auto *Ref = DeclRefExpr::Create(Ctx, NestedNameSpecifierLoc(), SourceLocation(), V, false, End,
                                      V->getType(), VK_LValue);
      Work.add(Function, destructorCall(Ref, false, Dtor, End), Loops, V);
    }
    return true;
  }

  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) {
    if (!Function || E->isArrayForm() || E->getDestroyedType().isNull() || E->getDestroyedType()->isDependentType())
      return true;
    if (CXXDestructorDecl *Dtor = userDestructorOf(E->getDestroyedType()))
      Work.add(Function, destructorCall(E->getArgument(), true, Dtor, E->getBeginLoc()), Loops, nullptr, E);
    return true;
  }

private:
  template <typename F> bool inFunction(const Decl *D, F Body) {
    const Decl *SavedFn = Function;
    std::vector<const Stmt *> SavedLoops;
    SavedLoops.swap(Loops);
    Function = D;
    bool Ok = Body();
    Function = SavedFn;
    Loops.swap(SavedLoops);
    return Ok;
  }

  // The destructor of T when the program wrote one (not a defaulted or trivial one).
  static CXXDestructorDecl *userDestructorOf(QualType T) {
    const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition() || RD->hasTrivialDestructor())
      return nullptr;
    CXXDestructorDecl *Dtor = RD->getDestructor();
    return Dtor && Dtor->isUserProvided() ? Dtor : nullptr;
  }
  // `object.~T()` / `pointer->~T()`, made up for the walk (allocated in the ASTContext).
  CallExpr *destructorCall(Expr *Object, bool Arrow, CXXDestructorDecl *Dtor, SourceLocation Loc) {
    auto *Member = MemberExpr::CreateImplicit(Ctx, Object, Arrow, Dtor, Ctx.BoundMemberTy, VK_PRValue, OK_Ordinary);
    return CXXMemberCallExpr::Create(Ctx, Member, {}, Ctx.VoidTy, VK_PRValue, Loc, FPOptionsOverride());
  }

  FunctionWork &Work;
  ASTContext &Ctx;
  const Decl *Function = nullptr;
  std::vector<const Stmt *> Loops; // outermost first
  std::vector<const CompoundStmt *> Blocks; // innermost last
};

} // namespace

// The definition a call runs when it is one of the user's functions or lambdas.
static const FunctionDecl *helperCallee(const CallExpr &Call, const SourceManager &SM) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return nullptr;
  const FunctionDecl *Def = nullptr;
  if (!Callee->hasBody(Def) || !Def || !Def->doesThisDeclarationHaveABody())
    return nullptr;
  if (SM.isInSystemHeader(SM.getFileLoc(Def->getLocation())))
    return nullptr;
  return Def;
}

// A call into the user's code of another unit: declared here, defined elsewhere.
static const FunctionDecl *externalCallee(const CallExpr &Call, const SourceManager &SM) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || Callee->hasBody() || Callee->getBuiltinID() ||
      SM.isInSystemHeader(SM.getFileLoc(Callee->getLocation())))
    return nullptr;
  return Callee;
}

static bool handedAStream(const CallExpr &Call) {
  for (const Expr *A : Call.arguments())
    if (isStreamType(A->getType()))
      return true;
  return false;
}

// A call into another unit: without the callee's summary, a callee handed a stream may
// synchronize it (WorkTransfer).
static bool opaqueCall(const FunctionDecl *External, const ExportedFunction *Summary, const CallExpr &Call) {
  return External && !Summary && handedAStream(Call);
}

// A call into another unit leaves stream work running only where its summary says so.
static bool leavesWork(const ExportedFunction *Summary) {
  return Summary && Summary->LeftOn != ExportedFunction::Left::None;
}

// The condition of the loop, when Call is part of it.
static bool inLoopCondition(const CallExpr &Call, const Stmt *Loop, const SourceManager &SM) {
  const Expr *Cond = nullptr;
  if (const auto *W = dyn_cast<WhileStmt>(Loop))
    Cond = W->getCond();
  else if (const auto *D = dyn_cast<DoStmt>(Loop))
    Cond = D->getCond();
  else if (const auto *F = dyn_cast<ForStmt>(Loop))
    Cond = F->getCond();
  if (!Cond)
    return false;
  SourceRange R = Cond->getSourceRange();
  SourceLocation L = Call.getBeginLoc();
  return SM.isPointWithin(SM.getExpansionLoc(L), SM.getExpansionLoc(R.getBegin()),
                          SM.getExpansionRange(R.getEnd()).getEnd());
}

void FunctionWork::add(const Decl *Function, const CallExpr *Call, const std::vector<const Stmt *> &Loops,
                       const VarDecl *Destroys, const Stmt *Trigger) {
  const SourceManager &SM = Ctx->getSourceManager();
  if (isOutsideUserCode(Call->getBeginLoc(), SM) || !Seen.insert({Function, Call}).second)
    return;
  const ApiInfo *Api = isa<CUDAKernelCallExpr>(Call) ? nullptr : catalogueEntry(*Call);
  const FunctionDecl *Helper = nullptr;
  const LibraryApi *Library = nullptr;
  bool Opaque = false;
  const FunctionDecl *External = nullptr;
  const ExportedFunction *Summary = nullptr;
  std::optional<TensorSync> Tensor;
  if (Aten && !isa<CUDAKernelCallExpr>(Call) && !Api)
    Tensor = tensorSyncOf(*Call, *Ctx);
  if (!isa<CUDAKernelCallExpr>(Call) && !Api && !Tensor) {
    Library = libraryEntry(*Call);
    if (Library) {
      LibraryStream LS = libraryStreamOf(*Call, *Library, *Ctx);
      if (LS.K == LibraryStream::NoGpuWork || LS.K == LibraryStream::Unknown)
        return;
    } else {
      Helper = helperCallee(*Call, SM);
      if (!Helper)
        External = externalCallee(*Call, SM);
      if (External && this->External)
        Summary = this->External->function(usrOf(External));
      Opaque = opaqueCall(External, Summary, *Call);
      if ((!Helper && !External) || Helper == Function)
        return;
    }
  }
  bool SyncCopy = Api && Api->Drains == Drain::DefaultStream && !usesPerThreadDefaultStream(*Call, *Ctx);
  WorkCall W{Call,
             Api,
             reportLoc(Call->getBeginLoc(), SM),
             std::vector<const Stmt *>(Loops.rbegin(), Loops.rend()), // innermost first
             Tensor                         ? false
             : !Api && !Helper && !External ? true
             : External                     ? leavesWork(Summary)
                                            : Api && issuesStreamWork(*Api),
             Tensor || (Api && (isExplicitSync(*Api) || SyncCopy)),
             Helper,
             false,
             Opaque,
             Library,
             External,
             Summary};
  bool Query = Api && (Api->Drains == Drain::StreamWhenPolled || Api->Drains == Drain::EventWhenPolled);
  W.Tensor = Tensor;
  W.Destroys = Destroys;
  W.Trigger = Trigger;
  W.PollsToCompletion = Query && !Loops.empty() && inLoopCondition(*Call, Loops.back(), SM);
  auto [It, New] = ByFunction.try_emplace(Function, FunctionCalls{Function, {}});
  if (New)
    Order.push_back(Function);
  It->second.Calls.push_back(W);
  FunctionOfCall.emplace(Call, Function);
}

const Decl *FunctionWork::functionOf(const CallExpr *Call) {
  functions();
  auto It = FunctionOfCall.find(Call);
  return It == FunctionOfCall.end() ? nullptr : It->second;
}

const std::vector<FunctionCalls> &FunctionWork::functions() {
  if (Walked || !Ctx)
    return Sorted;
  Walked = true;
  Aten = usesAten(*Ctx);
  const SourceManager &SM = Ctx->getSourceManager();
  WorkWalker Walker(*this, *Ctx);
  // Only the user's declarations: CUDA's and the standard library's headers hold no call
  // syncwatch reports.
  for (Decl *D : unitScopeDecls(*Ctx))
    if (D->getLocation().isValid() && !SM.isInSystemHeader(SM.getFileLoc(D->getLocation())))
      Walker.TraverseDecl(D);
  for (const Decl *D : Order) {
    FunctionCalls F = ByFunction.at(D);
    std::stable_sort(F.Calls.begin(), F.Calls.end(), [&](const WorkCall &A, const WorkCall &B) {
      return SM.isBeforeInTranslationUnit(A.Loc, B.Loc) ||
             (A.Loc == B.Loc && SM.isBeforeInTranslationUnit(A.Call->getBeginLoc(), B.Call->getBeginLoc()));
    });
    Sorted.push_back(std::move(F));
  }
  return Sorted;
}

void FunctionWork::refreshExternal() {
  for (FunctionCalls &F : Sorted)
    for (WorkCall &W : F.Calls) {
      if (!W.ExternalCallee)
        continue;
      W.External = External ? External->function(usrOf(W.ExternalCallee)) : nullptr;
      W.OpaqueWithStream = opaqueCall(W.ExternalCallee, W.External, *W.Call);
      W.StreamWork = leavesWork(W.External);
    }
}

} // namespace syncwatch
