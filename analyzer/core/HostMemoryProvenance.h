// Where a host pointer's memory comes from: pageable (malloc, new, std::vector, C arrays),
// pinned (cudaMallocHost, cudaHostAlloc, registered with cudaHostRegister), managed or
// device memory, or unknown. Followed through local copies, pointer arithmetic, casts,
// references, members assigned in the same function, helpers of the same translation unit
// that return memory, and parameters whose every call site passes the same kind.
#pragma once

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace syncwatch {

// Null: no memory at all (a pointer initialized to nullptr before its allocation).
// MaybePageable: pageable on one path and pinned on another (a flag, a template or a function
// argument chooses): reported as a note, "may be pageable".
enum class HostMemory { Unknown, Null, Pageable, Pinned, Managed, Device, MaybePageable };

struct Provenance {
  HostMemory Kind = HostMemory::Unknown;
  clang::SourceLocation Where;   // the allocation or declaration that decides it
  std::string How;               // "malloc", "std::vector", "a C array", "cudaMallocHost"...
  // MaybePageable: the pinned path's allocation (Where and How are the pageable one's).
  clang::SourceLocation PinnedWhere;
  std::string PinnedHow;
};

class HostMemoryProvenance {
public:
  explicit HostMemoryProvenance(clang::ASTContext &Ctx);
  Provenance of(const clang::Expr *E);

private:
  Provenance resolve(const clang::Expr *E, int Depth);
  Provenance resolveVar(const clang::VarDecl *V, int Depth);
  Provenance resolveField(const clang::FieldDecl *F, const clang::Expr *Use, int Depth);
  Provenance resolveParam(const clang::ParmVarDecl *P, int Depth);
  Provenance resolveCall(const clang::CallExpr *C, int Depth);
  Provenance combine(const std::vector<Provenance> &Sources);
  // Allocations through an out-parameter: cudaMallocHost(&p, n) decides p.
  void outParamAllocations(const clang::ValueDecl *D, const clang::Stmt *Scope,
                           std::vector<Provenance> &Out);
  bool isRegistered(const clang::ValueDecl *D);
  // One walk over the unit: call sites by callee, and what cudaHostRegister pins.
  void indexCalls();

  clang::ASTContext &Ctx;
  bool Indexed = false;
  std::set<const clang::ValueDecl *> Registered;
  std::map<const clang::FunctionDecl *, std::vector<const clang::CallExpr *>> CallSites;
  std::set<const clang::Decl *> InProgress;   // cycles: p = q; q = p;
};

struct ApiInfo;

// The host-memory side of a copy: the argument, and whether the data goes to the device.
enum class HostSide { ToDevice, FromDevice };
struct HostBuffer {
  const clang::Expr *Arg;
  HostSide Side;
};

// Which arguments of this copy are host memory, from the API's fixed direction or its
// cudaMemcpyKind argument. With cudaMemcpyDefault either side may be host memory.
std::vector<HostBuffer> hostBuffers(const clang::CallExpr &Call, const ApiInfo &Api, clang::ASTContext &Ctx);

// The variable or member an expression's memory belongs to (v in v.data() + 4, p in
// (char *)p + off), or nullptr.
const clang::ValueDecl *memoryRoot(const clang::Expr *E);

} // namespace syncwatch
