#include "TorchCalls.h"

#include "CudaCalls.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/CharInfo.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {

namespace {

// The outermost namespace's name: "at" for at::native::foo, "c10" for c10::cuda::...
StringRef rootNamespace(const Decl *D) {
  StringRef Root;
  for (const DeclContext *C = D->getDeclContext(); C; C = C->getParent())
    if (const auto *N = dyn_cast<NamespaceDecl>(C); N && !N->isInline() && N->getIdentifier())
      Root = N->getName();
  return Root;
}

bool inTorchNamespace(const Decl *D) {
  StringRef R = rootNamespace(D);
  return R == "at" || R == "torch" || R == "c10";
}

bool isTensorRecord(const CXXRecordDecl *R) {
  if (!R || !R->getIdentifier())
    return false;
  if ((R->getName() == "Tensor" || R->getName() == "TensorBase") && rootNamespace(R) == "at")
    return true;
  if (!R->hasDefinition())
    return false;
  for (const CXXBaseSpecifier &B : R->getDefinition()->bases())
    if (isTensorRecord(B.getType()->getAsCXXRecordDecl()))
      return true;
  return false;
}

const Expr *strip(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *W = dyn_cast<ExprWithCleanups>(E))
      E = W->getSubExpr();
    else if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E))
      E = F->getSubExpr();
    else if (const auto *S = dyn_cast<CXXStaticCastExpr>(E))
      E = S->getSubExpr();
    else if (const auto *C = dyn_cast<CXXConstructExpr>(E);
             C && C->getNumArgs() == 1 && C->getConstructor()->isCopyOrMoveConstructor())
      E = C->getArg(0);
    else
      return E;
  }
  return E;
}

const ValueDecl *declOf(const Expr *E) {
  E = strip(E);
  if (const auto *D = dyn_cast_or_null<DeclRefExpr>(E))
    return cast<ValueDecl>(D->getDecl()->getCanonicalDecl());
  if (const auto *M = dyn_cast_or_null<MemberExpr>(E))
    return cast<ValueDecl>(M->getMemberDecl()->getCanonicalDecl());
  return nullptr;
}

std::optional<std::string> methodName(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return std::nullopt;
  return FD->getName().str();
}

// The device an expression names: kCPU / DeviceType::CPU / "cpu", kCUDA / "cuda:0".
TensorDevice mergeDevice(std::optional<TensorDevice> &Acc, TensorDevice D) {
  if (!Acc)
    Acc = D;
  else if (*Acc != D)
    Acc = TensorDevice::Unknown;
  return *Acc;
}

struct DeviceQuery {
  ASTContext &Ctx;
  const FunctionDecl *Function;
  const Stmt *Use;
  unsigned Depth = 0;
};

TensorDevice deviceOf(const Expr *E, DeviceQuery &Q);

void mentioned(const Stmt *S, DeviceQuery &Q, std::optional<TensorDevice> &Acc) {
  if (!S)
    return;
  if (const auto *R = dyn_cast<DeclRefExpr>(S)) {
    const ValueDecl *D = R->getDecl();
    if (D->getIdentifier()) {
      StringRef N = D->getName();
      if (N == "kCPU" || (isa<EnumConstantDecl>(D) && N == "CPU"))
        mergeDevice(Acc, TensorDevice::Cpu);
      else if (N == "kCUDA" || (isa<EnumConstantDecl>(D) && N == "CUDA"))
        mergeDevice(Acc, TensorDevice::Cuda);
      else if (isTensorType(D->getType()))  // x.to(other): other's device
        mergeDevice(Acc, deviceOf(R, Q));
      else if (const auto *V = dyn_cast<VarDecl>(D); V && !V->getType()->isIntegralOrEnumerationType()) {
        // `auto opt = at::TensorOptions().device(at::kCUDA); at::zeros({n}, opt)`: what the
        // variable was made from; a parameter (TensorOptions options) says nothing.
        if (isa<ParmVarDecl>(V) || !V->isLocalVarDecl() || !V->getInit())
          mergeDevice(Acc, TensorDevice::Unknown);
        else if (Q.Depth < 12) {
          ++Q.Depth;
          mentioned(V->getInit(), Q, Acc);
          --Q.Depth;
        }
      }
    }
    return;
  }
  if (const auto *L = dyn_cast<StringLiteral>(S)) {
    if (L->getCharByteWidth() == 1) {
      StringRef V = L->getString();
      if (V == "cpu")
        mergeDevice(Acc, TensorDevice::Cpu);
      else if (V == "cuda" || V.starts_with("cuda:"))
        mergeDevice(Acc, TensorDevice::Cuda);
    }
    return;
  }
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(S)) {
    // x.options(), x.device(): where x lives.
    std::optional<std::string> N = methodName(*M);
    const Expr *Obj = M->getImplicitObjectArgument();
    if (N && (*N == "options" || *N == "device") && Obj && isTensorType(Obj->getType())) {
      mergeDevice(Acc, deviceOf(Obj, Q));
      return;
    }
  }
  for (const Stmt *C : S->children())
    mentioned(C, Q, Acc);
}

std::optional<TensorDevice> mentionedDevice(const Expr *E, DeviceQuery &Q) {
  std::optional<TensorDevice> Acc;
  mentioned(E, Q, Acc);
  return Acc;
}

// Ops whose output size is read on the host (member and at:: / torch:: free functions).
constexpr StringRef DataDependentOps[] = {"nonzero",    "masked_select", "unique_consecutive", "unique_dim",
                                          "unique_dim_consecutive", "_unique", "_unique2", "argwhere",
                                          "nonzero_numpy"};

bool isDataDependent(StringRef N) { return llvm::is_contained(DataDependentOps, N); }

bool isFactory(StringRef N) {
  return llvm::StringSwitch<bool>(N)
      .Cases({"zeros", "ones", "empty", "full", "arange", "rand", "randn", "randint"}, true)
      .Cases({"eye", "linspace", "logspace", "tensor", "from_blob", "empty_strided"}, true)
      .Cases({"scalar_tensor", "randperm", "range", "empty_like", "zeros_like"}, true)
      .Cases({"ones_like", "full_like", "rand_like", "randn_like", "randint_like"}, true)
      .Default(false);
}

// The first tensor among a call's arguments (a TensorList's first element too).
const Expr *firstTensorArg(const CallExpr &Call, unsigned From = 0) {
  for (unsigned I = From; I < Call.getNumArgs(); ++I) {
    const Expr *A = strip(Call.getArg(I));
    if (isTensorType(A->getType()))
      return A;
    if (const auto *L = dyn_cast<InitListExpr>(A))
      for (const Expr *Elt : L->inits())
        if (isTensorType(Elt->getType()))
          return Elt;
  }
  return nullptr;
}

// The object a chain of member calls starts from: x in x.device().is_cuda().
const ValueDecl *chainRoot(const Expr *E) {
  E = strip(E);
  while (const auto *M = dyn_cast_or_null<CXXMemberCallExpr>(E))
    E = strip(M->getImplicitObjectArgument());
  return declOf(E);
}

// What Cond being Want says about V's device: x.is_cuda(), x.device().is_cpu(),
// x.device().type() == kCUDA, !..., &&, || (TORCH_CHECK's `if (!(cond)) fail();` included).
std::optional<TensorDevice> conditionSays(const Expr *Cond, bool Want, const ValueDecl *V, DeviceQuery &Q) {
  if (!Cond)
    return std::nullopt;
  Cond = strip(Cond);
  if (const auto *U = dyn_cast<UnaryOperator>(Cond); U && U->getOpcode() == UO_LNot)
    return conditionSays(U->getSubExpr(), !Want, V, Q);
  if (const auto *B = dyn_cast<BinaryOperator>(Cond)) {
    if ((B->getOpcode() == BO_LAnd && Want) || (B->getOpcode() == BO_LOr && !Want)) {
      if (auto L = conditionSays(B->getLHS(), Want, V, Q))
        return L;
      return conditionSays(B->getRHS(), Want, V, Q);
    }
    if (B->getOpcode() == BO_EQ || B->getOpcode() == BO_NE) {
      bool Eq = (B->getOpcode() == BO_EQ) == Want;
      for (auto [Side, Other] : {std::pair{B->getLHS(), B->getRHS()}, std::pair{B->getRHS(), B->getLHS()}})
        if (chainRoot(Side) == V)
          if (std::optional<TensorDevice> D = mentionedDevice(Other, Q); D && *D != TensorDevice::Unknown)
            return Eq ? *D : (*D == TensorDevice::Cuda ? TensorDevice::Cpu : TensorDevice::Cuda);
    }
    return std::nullopt;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Cond);
      Op && (Op->getOperator() == OO_EqualEqual || Op->getOperator() == OO_ExclaimEqual) && Op->getNumArgs() == 2) {
    bool Eq = (Op->getOperator() == OO_EqualEqual) == Want;
    for (auto [Side, Other] : {std::pair{Op->getArg(0), Op->getArg(1)}, std::pair{Op->getArg(1), Op->getArg(0)}})
      if (chainRoot(Side) == V)
        if (std::optional<TensorDevice> D = mentionedDevice(Other, Q); D && *D != TensorDevice::Unknown)
          return Eq ? *D : (*D == TensorDevice::Cuda ? TensorDevice::Cpu : TensorDevice::Cuda);
    return std::nullopt;
  }
  if (const auto *Call = dyn_cast<CallExpr>(Cond)) {
    // C10_UNLIKELY(x) is __builtin_expect(static_cast<bool>(x), 0).
    if (Call->getBuiltinCallee() == Builtin::BI__builtin_expect && Call->getNumArgs() >= 1)
      return conditionSays(Call->getArg(0), Want, V, Q);
    if (const auto *M = dyn_cast<CXXMemberCallExpr>(Call)) {
      std::optional<std::string> N = methodName(*M);
      if (N && (*N == "is_cuda" || *N == "is_cpu") && chainRoot(M->getImplicitObjectArgument()) == V)
        return (*N == "is_cuda") == Want ? TensorDevice::Cuda : TensorDevice::Cpu;
    }
  }
  return std::nullopt;
}

bool contains(const Stmt *S, const Stmt *Target) {
  if (!S)
    return false;
  if (S == Target)
    return true;
  for (const Stmt *C : S->children())
    if (contains(C, Target))
      return true;
  return false;
}

// A branch that never falls through: it returns, throws, or calls a [[noreturn]] function
// (TORCH_CHECK's torchCheckFail).
bool exits(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ReturnStmt, CXXThrowExpr>(S))
    return true;
  if (const auto *C = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = C->getDirectCallee(); FD && FD->isNoReturn())
      return true;
  if (const auto *C = dyn_cast<CompoundStmt>(S))
    return !C->body_empty() && exits(C->body_back());
  if (const auto *E = dyn_cast<ExprWithCleanups>(S))
    return exits(E->getSubExpr());
  return false;
}

// What the branches around Use say about V's device: the nearest one wins.
std::optional<TensorDevice> branchesSay(const Stmt *S, const ValueDecl *V, DeviceQuery &Q) {
  if (!S)
    return std::nullopt;
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (contains(If->getThen(), Q.Use)) {
      if (auto In = branchesSay(If->getThen(), V, Q))
        return In;
      return conditionSays(If->getCond(), true, V, Q);
    }
    if (contains(If->getElse(), Q.Use)) {
      if (auto In = branchesSay(If->getElse(), V, Q))
        return In;
      return conditionSays(If->getCond(), false, V, Q);
    }
    return std::nullopt;
  }
  if (const auto *C = dyn_cast<ConditionalOperator>(S)) {
    if (contains(C->getTrueExpr(), Q.Use))
      return conditionSays(C->getCond(), true, V, Q);
    if (contains(C->getFalseExpr(), Q.Use))
      return conditionSays(C->getCond(), false, V, Q);
  }
  if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
    // `if (!x.is_cuda()) return cpu_impl(x);` and TORCH_CHECK(x.is_cuda()) before Use.
    std::optional<TensorDevice> Checked;
    for (const Stmt *Child : Block->body()) {
      if (contains(Child, Q.Use)) {
        if (auto In = branchesSay(Child, V, Q))
          return In;
        return Checked;
      }
      const Stmt *One = Child;
      if (const auto *Do = dyn_cast<DoStmt>(Child))  // do { TORCH_CHECK(...); } while (0)
        One = Do->getBody();
      auto Exiting = [&](const Stmt *X) {
        if (const auto *If = dyn_cast<IfStmt>(X); If && !If->getElse() && exits(If->getThen()))
          if (auto D = conditionSays(If->getCond(), false, V, Q))
            Checked = D;
      };
      if (const auto *Inner = dyn_cast<CompoundStmt>(One))
        for (const Stmt *X : Inner->body())
          Exiting(X);
      else
        Exiting(One);
    }
    return std::nullopt;
  }
  for (const Stmt *C : S->children())
    if (contains(C, Q.Use))
      return branchesSay(C, V, Q);
  return std::nullopt;
}

// Assignments `V = expr;` in the function.
void assignmentsTo(const Stmt *S, const ValueDecl *V, std::vector<const Expr *> &Out) {
  if (!S)
    return;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
      Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 && declOf(Op->getArg(0)) == V)
    Out.push_back(Op->getArg(1));
  for (const Stmt *C : S->children())
    assignmentsTo(C, V, Out);
}

// The function reads some tensor's elements on the host through accessor<T, N>() (not the
// packed_accessor a kernel gets): a CPU implementation, whose tensors are CPU tensors.
bool readsTensorsOnHost(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(S))
    if (std::optional<std::string> N = methodName(*M); N && *N == "accessor" && M->getImplicitObjectArgument() &&
                                                        isTensorType(M->getImplicitObjectArgument()->getType()))
      return true;
  for (const Stmt *C : S->children())
    if (readsTensorsOnHost(C))
      return true;
  return false;
}

TensorDevice variableDevice(const VarDecl *V, DeviceQuery &Q) {
  const Stmt *Body = Q.Function ? Q.Function->getBody() : nullptr;
  if (isa<ParmVarDecl>(V)) {
    if (auto D = branchesSay(Body, V, Q))
      return *D;
    if (!Q.Ctx.getLangOpts().CUDA && readsTensorsOnHost(Body))
      return TensorDevice::Cpu;
    return TensorDevice::Unknown;
  }
  if (!V->isLocalVarDecl())
    return TensorDevice::Unknown;
  // What the branches say first: `auto t = x; if (t.is_cuda()) ...`.
  if (auto D = branchesSay(Body, V, Q))
    return *D;
  std::optional<TensorDevice> Acc;
  if (const Expr *Init = V->getInit())
    mergeDevice(Acc, deviceOf(Init, Q));
  std::vector<const Expr *> Assigned;
  assignmentsTo(Body, V, Assigned);
  for (const Expr *A : Assigned)
    mergeDevice(Acc, deviceOf(A, Q));
  return Acc.value_or(TensorDevice::Unknown);
}

TensorDevice deviceOf(const Expr *E, DeviceQuery &Q) {
  if (!E || ++Q.Depth > 12) {
    if (E)
      --Q.Depth;
    return TensorDevice::Unknown;
  }
  struct Leave {
    unsigned &D;
    ~Leave() { --D; }
  } L{Q.Depth};
  E = strip(E);
  if (const auto *R = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
      return variableDevice(V, Q);
    return TensorDevice::Unknown;
  }
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(E)) {
    std::optional<std::string> N = methodName(*M);
    const Expr *Obj = M->getImplicitObjectArgument();
    if (!N || !Obj || !isTensorType(Obj->getType()))
      return TensorDevice::Unknown;
    if (*N == "cpu")
      return TensorDevice::Cpu;
    if (*N == "cuda")
      return TensorDevice::Cuda;
    if (*N == "to") {  // x.to(kCPU), x.to(y.options()), x.to(y): the arguments' device
      std::optional<TensorDevice> Args;
      for (const Expr *A : M->arguments())
        mentioned(A, Q, Args);
      if (Args)
        return *Args;
    }
    return deviceOf(Obj, Q);  // views, ops, copy_: the object's device
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (const Expr *T = firstTensorArg(*Op))
      return deviceOf(T, Q);
    return TensorDevice::Unknown;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !FD->getIdentifier())
      return TensorDevice::Unknown;
    StringRef N = FD->getName();
    if (N == "get" && rootNamespace(FD) == "std" && Call->getNumArgs() == 1)
      return deviceOf(Call->getArg(0), Q);  // std::get<0>(x.max(1))
    if (!inTorchNamespace(FD))
      return TensorDevice::Unknown;  // the user's own helpers: unknown
    if (isFactory(N)) {
      bool Like = N.ends_with("_like");
      std::optional<TensorDevice> Acc;
      for (unsigned I = Like ? 1 : 0; I < Call->getNumArgs(); ++I)
        mentioned(Call->getArg(I), Q, Acc);
      if (Acc)
        return *Acc;
      if (Like && Call->getNumArgs() > 0)
        return deviceOf(Call->getArg(0), Q);
      // No device: the default device, the CPU. (from_blob without options: host memory.)
      return TensorDevice::Cpu;
    }
    if (const Expr *T = firstTensorArg(*Call))
      return deviceOf(T, Q);
  }
  return TensorDevice::Unknown;
}

bool namesCuda(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(S))
    if (std::optional<std::string> N = methodName(*M); N && *N == "is_cuda")
      return true;
  if (const auto *R = dyn_cast<DeclRefExpr>(S))
    if (R->getDecl()->getIdentifier() && R->getDecl()->getName() == "kCUDA")
      return true;
  for (const Stmt *C : S->children())
    if (namesCuda(C))
      return true;
  return false;
}

} // namespace

bool mentionsCudaTensors(const FunctionDecl *Function) {
  return Function && namesCuda(Function->getBody());
}

bool usesAten(ASTContext &Ctx) {
  for (const NamedDecl *D : Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get("at")))
    if (const auto *N = dyn_cast<NamespaceDecl>(D))
      for (const NamedDecl *T : N->lookup(&Ctx.Idents.get("Tensor")))
        if (isa<CXXRecordDecl>(T))
          return true;
  return false;
}

bool isHostFunction(const Decl *Function) {
  const auto *FD = dyn_cast_or_null<FunctionDecl>(Function);
  if (!FD)
    return false;
  if (FD->hasAttr<CUDAGlobalAttr>())
    return false;
  return !FD->hasAttr<CUDADeviceAttr>() || FD->hasAttr<CUDAHostAttr>();
}

bool declaresCurrentStream(ASTContext &Ctx) {
  // at::cuda has `using namespace c10::cuda;` (torch/headeronly/macros/Macros.h).
  for (const NamedDecl *D : Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get("c10")))
    if (const auto *At = dyn_cast<NamespaceDecl>(D))
      for (const NamedDecl *C : At->lookup(&Ctx.Idents.get("cuda")))
        if (const auto *Cuda = dyn_cast<NamespaceDecl>(C))
          if (!Cuda->lookup(&Ctx.Idents.get("getCurrentCUDAStream")).empty())
            return true;
  return false;
}

bool isTensorType(QualType T) {
  if (T.isNull())
    return false;
  return isTensorRecord(T.getNonReferenceType()->getAsCXXRecordDecl());
}

static std::optional<TensorSync> sync(TensorSyncKind K, const Expr *T, std::string What) {
  return TensorSync{K, T, std::move(What)};
}

std::optional<TensorSync> tensorSyncOf(const CallExpr &Call, ASTContext &Ctx) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD)
    return std::nullopt;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    // pybind11: obj.attr("tolist")() - the accessor called.
    if (Op->getOperator() != OO_Call || Op->getNumArgs() < 1)
      return std::nullopt;
    const auto *Attr = dyn_cast<CXXMemberCallExpr>(strip(Op->getArg(0)));
    std::optional<std::string> N = Attr ? methodName(*Attr) : std::nullopt;
    if (!N || *N != "attr" || Attr->getNumArgs() < 1 || rootNamespace(Attr->getMethodDecl()) != "pybind11")
      return std::nullopt;
    const auto *Name = dyn_cast<StringLiteral>(strip(Attr->getArg(0)));
    if (!Name || Name->getCharByteWidth() != 1)
      return std::nullopt;
    StringRef S = Name->getString();
    if (S == "tolist" || S == "item" || S == "cpu")
      return sync(TensorSyncKind::PythonList, nullptr, "'attr(\"" + S.str() + "\")()'");
    return std::nullopt;
  }
  if (!FD->getIdentifier())
    return std::nullopt;
  StringRef N = FD->getName();
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXMethodDecl *MD = M->getMethodDecl();
    const Expr *Obj = M->getImplicitObjectArgument();
    if (!MD || !Obj)
      return std::nullopt;
    if (N == "synchronize") {
      const CXXRecordDecl *R = MD->getParent();
      if (R && R->getIdentifier() && (R->getName() == "CUDAStream" || R->getName() == "CUDAEvent") &&
          inTorchNamespace(R))
        return sync(TensorSyncKind::StreamSync, nullptr, "'" + R->getName().str() + "::synchronize'");
      return std::nullopt;
    }
    if (!isTensorRecord(MD->getParent()))
      return std::nullopt;
    if (N == "item" || N == "is_nonzero")
      return sync(TensorSyncKind::Item, Obj, "'" + N.str() + "'");
    if (N == "cpu")
      return sync(TensorSyncKind::ToHost, Obj, "'cpu'");
    if (N == "to") {
      std::optional<TensorDevice> Target;
      DeviceQuery Q{Ctx, nullptr, &Call};
      for (const Expr *A : M->arguments())
        mentioned(A, Q, Target);
      if (Target == TensorDevice::Cpu)
        return sync(TensorSyncKind::ToHost, Obj, "'to(kCPU)'");
      return std::nullopt;
    }
    if (isDataDependent(N))
      return sync(TensorSyncKind::DataDependent, Obj, "'" + N.str() + "'");
    if (N == "equal")
      return sync(TensorSyncKind::Equal, Obj, "'equal'");
    return std::nullopt;
  }
  if ((N == "device_synchronize" || N == "stream_synchronize") && inTorchNamespace(FD))
    return sync(N == "device_synchronize" ? TensorSyncKind::DeviceSync : TensorSyncKind::StreamSync, nullptr,
                "'" + N.str() + "'");
  bool DataDependent = isDataDependent(N);
  if ((DataDependent || N == "equal" || N == "_local_scalar_dense") && inTorchNamespace(FD)) {
    const Expr *T = Call.getNumArgs() ? Call.getArg(0) : nullptr;
    if (!T || !isTensorType(T->getType()))
      return std::nullopt;
    if (N == "equal")
      return sync(TensorSyncKind::Equal, T, "'equal'");
    if (N == "_local_scalar_dense")
      return sync(TensorSyncKind::Item, T, "'_local_scalar_dense'");
    return sync(TensorSyncKind::DataDependent, T, "'" + N.str() + "'");
  }
  return std::nullopt;
}

StatementMatcher tensorSyncMatcher() {
  return callExpr(unless(isExpansionInSystemHeader()),
                  callee(functionDecl(anyOf(hasAnyName(DataDependentOps),
                                            hasAnyName("item", "is_nonzero", "cpu", "to", "equal",
                                                       "_local_scalar_dense", "synchronize", "device_synchronize",
                                                       "stream_synchronize", "operator()")))))
      .bind("torch-sync");
}

TensorDevice tensorDeviceOf(const Expr *E, const Stmt *Use, const FunctionDecl *Function, ASTContext &Ctx) {
  DeviceQuery Q{Ctx, Function, Use};
  return deviceOf(E, Q);
}

// ---- library handles ----

namespace {
// A global function named cublas*, cublasLt*, cusparse*, cusolverDn* or cudnn* followed by a
// capital: what matchesName("^::(cublas|...)[A-Z]") said, without printing and matching the
// qualified name of every call's callee (profiled on syncwatch-lsp's re-diagnosis of a
// 5,578-line file: matchesName was the costliest matcher).
AST_MATCHER(FunctionDecl, isLibraryHandleApi) {
  const IdentifierInfo *Id = Node.getIdentifier();
  if (!Id || !Node.getDeclContext()->getRedeclContext()->isTranslationUnit())
    return false;
  StringRef N = Id->getName();
  for (StringRef Prefix : {"cublas", "cusparse", "cusolverDn", "cudnn"})  // (cublasLt* is cublas + 'L')
    if (N.size() > Prefix.size() && N.starts_with(Prefix) && isUppercase(N[Prefix.size()]))
      return true;
  return false;
}
} // namespace

StatementMatcher libraryHandleCallMatcher() {
  return callExpr(unless(isExpansionInSystemHeader()), callee(functionDecl(isLibraryHandleApi())))
      .bind("handle-call");
}

static bool isCreate(StringRef N) {
  N.consume_back("_v2");
  return N == "cublasCreate" || N == "cublasLtCreate" || N == "cusparseCreate" || N == "cusolverDnCreate" ||
         N == "cudnnCreate";
}

static bool isSetStream(StringRef N) {
  N.consume_back("_v2");
  return N == "cublasSetStream" || N == "cusparseSetStream" || N == "cusolverDnSetStream" || N == "cudnnSetStream";
}

// Calls that configure, query or destroy a handle: no GPU work.
static bool isBookkeeping(StringRef N) {
  N.consume_back("_v2");
  for (StringRef P : {"cublas", "cublasLt", "cusparse", "cusolverDn", "cudnn"})
    if (N.consume_front(P))
      break;
  return N.starts_with("Set") || N.starts_with("Get") || N.starts_with("Destroy") || N.starts_with("Create");
}

void LibraryHandles::observe(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getIdentifier() || Call.getNumArgs() == 0 || !Seen.insert(&Call).second)
    return;
  StringRef N = FD->getName();
  const Expr *First = strip(Call.getArg(0));
  if (isCreate(N)) {
    if (const auto *U = dyn_cast<UnaryOperator>(First); U && U->getOpcode() == UO_AddrOf)
      if (const ValueDecl *H = declOf(U->getSubExpr()))
        Created.emplace(H, &Call);
    return;
  }
  const ValueDecl *H = declOf(First);
  if (!H)
    return;
  if (isSetStream(N)) {
    Streamed.insert(H);
    return;
  }
  if (!isBookkeeping(N))
    Uses.push_back({&Call, H});
}

void LibraryHandles::reset() {
  Created.clear();
  Streamed.clear();
  Uses.clear();
  Seen.clear();
}

std::vector<LibraryHandles::Use> LibraryHandles::unstreamedUses() const {
  std::vector<Use> Out;
  for (const auto &[Call, H] : Uses)
    if (auto It = Created.find(H); It != Created.end() && !Streamed.count(H))
      Out.push_back({Call, H, It->second});
  return Out;
}

std::optional<bool> torchGraphCapture(const CallExpr &Call) {
  const auto *M = dyn_cast<CXXMemberCallExpr>(&Call);
  const CXXMethodDecl *Method = M ? M->getMethodDecl() : nullptr;
  if (!Method || !Method->getIdentifier() || !Method->getParent() || Method->getParent()->getName() != "CUDAGraph")
    return std::nullopt;
  if (Method->getName() == "capture_begin")
    return true;
  if (Method->getName() == "capture_end")
    return false;
  return std::nullopt;
}

bool isCaptureModeGuard(QualType T) {
  const auto *Class = T->getAsCXXRecordDecl();
  return Class && Class->getIdentifier() && Class->getName() == "CUDAStreamCaptureModeGuard";
}

} // namespace syncwatch
