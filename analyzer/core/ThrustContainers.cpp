#include "ThrustContainers.h"
#include "CudaCalls.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {

namespace {

enum class Container { None, Device, Host };

// Whether a thrust allocator hands out device memory: by its own name
// (thrust::device_allocator, thrust::system::cuda::allocator, universal_allocator) or by the
// memory resource it is given (mr::stateless_resource_allocator<T, cuda::memory_resource>),
// never by the element type. In CCCL 3 thrust::pair is cuda::std::pair, so the spelled type
// std::allocator<cuda::std::pair<int, float>> names "cuda" and is host memory all the same
// (field class 5: host_vector(n)'s `Parent(n)` was reported as a device_vector).
bool allocatesOnDevice(QualType Alloc) {
  const CXXRecordDecl *A = Alloc->getAsCXXRecordDecl();
  if (!A)
    return false;
  std::string Names = A->getQualifiedNameAsString();
  if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(A))
    for (unsigned I = 1; I < S->getTemplateArgs().size(); ++I)  // 0 is the element type
      if (S->getTemplateArgs()[I].getKind() == TemplateArgument::Type)
        Names += " " + S->getTemplateArgs()[I].getAsType().getAsString();
  return Names.find("cuda") != std::string::npos || Names.find("device") != std::string::npos;
}

// thrust::device_vector / host_vector, through CCCL's inline namespaces and aliases.
Container containerOf(QualType T) {
  const CXXRecordDecl *R = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!R || !R->getIdentifier())
    return Container::None;
  Container C = R->getName() == "device_vector" ? Container::Device
                : R->getName() == "host_vector" ? Container::Host
                                                : Container::None;
  // thrust::cuda::vector<T> is an alias of thrust::detail::vector_base<T, a device allocator>;
  // host_vector's own constructors build the same base with std::allocator<T>.
  if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(R); S && R->getName() == "vector_base" &&
      S->getTemplateArgs().size() > 1 && S->getTemplateArgs()[1].getKind() == TemplateArgument::Type)
    C = allocatesOnDevice(S->getTemplateArgs()[1].getAsType()) ? Container::Device : Container::Host;
  if (C == Container::None)
    return C;
  for (const DeclContext *D = R->getDeclContext(); D; D = D->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(D); NS && NS->getIdentifier() && NS->getName() == "thrust")
      return C;
  return Container::None;
}

bool isNoInit(QualType T) {
  const CXXRecordDecl *R = T.getNonReferenceType()->getAsCXXRecordDecl();
  return R && R->getIdentifier() && R->getName() == "no_init_t";
}

// An argument that is a device_vector (anything else a container is built from is host data).
bool isDeviceSource(const Expr *Arg) { return containerOf(Arg->getType()) == Container::Device; }

} // namespace

StatementMatcher thrustContainerMatcher() {
  auto Vector = hasUnqualifiedDesugaredType(recordType(hasDeclaration(cxxRecordDecl(hasAnyName("device_vector", "host_vector", "vector_base")))));
  return expr(anyOf(cxxConstructExpr(hasType(Vector), argumentCountAtLeast(1)),
                    cxxOperatorCallExpr(hasOverloadedOperatorName("="), hasArgument(0, hasType(Vector)))))
      .bind("thrust-container");
}

std::optional<ContainerWork> containerWorkOf(const Expr &E, const SourceManager &SM) {
  if (isOutsideUserCode(E.getBeginLoc(), SM))
    return std::nullopt;
  ContainerWork W{&E, reportLoc(E.getBeginLoc(), SM), E.getSourceRange(), ""};
  if (const auto *C = dyn_cast<CXXConstructExpr>(&E)) {
    Container Made = containerOf(C->getType());
    const CXXConstructorDecl *Ctor = C->getConstructor();
    if (Made == Container::None || !Ctor || Ctor->isMoveConstructor() || C->getNumArgs() == 0 ||
        isa<CXXDefaultArgExpr>(C->getArg(0)))
      return std::nullopt;
    const Expr *First = C->getArg(0)->IgnoreParenImpCasts();
    for (const Expr *A : C->arguments())
      if (isNoInit(A->getType()))
        return std::nullopt;  // thrust::no_init: no fill
    if (Made == Container::Host) {
      if (!isDeviceSource(First))
        return std::nullopt;  // host to host
      W.What = "'thrust::host_vector' constructed from a device_vector copies to the host on the legacy "
               "default stream and waits";
      return W;
    }
    if (First->getType()->isIntegralOrEnumerationType())
      W.What = C->getNumArgs() > 1 && !isa<CXXDefaultArgExpr>(C->getArg(1))
                   ? "'thrust::device_vector' constructed with a size and a value fills it on the legacy default stream"
                   : "'thrust::device_vector' constructed with a size value-initializes it with a kernel on the legacy "
                     "default stream";
    else
      W.What = isDeviceSource(First) ? "'thrust::device_vector' copy-constructed copies on the legacy default stream"
                                     : "'thrust::device_vector' constructed from host data copies it to the device on "
                                       "the legacy default stream";
    return W;
  }
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(&E);
  if (!Op || Op->getNumArgs() != 2)
    return std::nullopt;
  Container To = containerOf(Op->getArg(0)->getType());
  Container From = containerOf(Op->getArg(1)->getType());
  if (To == Container::Host && From != Container::Device)
    return std::nullopt;
  if (To == Container::None)
    return std::nullopt;
  // A move assignment of a temporary device_vector swaps buffers (the temporary's own
  // construction is reported where it is made).
  if (const auto *M = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee()); M && M->isMoveAssignmentOperator())
    return std::nullopt;
  W.Loc = reportLoc(Op->getOperatorLoc(), SM);
  W.What = To == Container::Host ? "assigning a device_vector to a 'thrust::host_vector' copies to the host on the "
                                   "legacy default stream and waits"
                                 : "assigning to a 'thrust::device_vector' copies on the legacy default stream";
  return W;
}

} // namespace syncwatch
