// Recognizing PyTorch (ATen) in the AST: whether a unit is an extension, the calls that make
// the host wait for the GPU (Tensor::item, .cpu(), nonzero...), on which device a tensor
// lives, and the cuBLAS/cuDNN handles an extension creates itself. The torch rules judge
// these facts (syncwatch-torch-current-stream, syncwatch-torch-host-sync).
#pragma once

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace syncwatch {

// The unit declares at::Tensor: it includes ATen (torch/extension.h, ATen/ATen.h, ...).
bool usesAten(clang::ASTContext &Ctx);

// Host code: not a __global__ or __device__-only function (a device-side launch or a
// device function's call never runs in an op's host code).
bool isHostFunction(const clang::Decl *Function);

// c10::cuda::getCurrentCUDAStream (at::cuda's by a using-directive) is declared (ATen/cuda/CUDAContext.h, c10/cuda/CUDAStream.h
// were included): a fix-it that names it compiles.
bool declaresCurrentStream(clang::ASTContext &Ctx);

// at::Tensor, at::TensorBase and what derives from them (torch::autograd::Variable).
bool isTensorType(clang::QualType T);

// How a call waits for the GPU.
enum class TensorSyncKind : std::uint8_t {
  Item,          // Tensor::item(), item<T>(), at::_local_scalar_dense: one value to the host
  ToHost,        // .cpu(), .to(kCPU), .to("cpu"): the whole tensor to the host
  DataDependent, // nonzero, masked_select, unique...: the output's size is read on the host
  Equal,         // Tensor::equal / at::equal: a bool to the host
  PythonList,    // pybind11: obj.attr("tolist")(), attr("item")()
  StreamSync,    // c10::cuda::CUDAStream::synchronize, CUDAEvent::synchronize, stream_synchronize
  DeviceSync,    // c10::cuda::device_synchronize
};

struct TensorSync {
  TensorSyncKind Kind;
  const clang::Expr *Tensor = nullptr;  // the tensor it reads (nullptr for stream/device syncs)
  std::string What;                     // "'item'", "'nonzero'", "'to(kCPU)'"
};

// The call as a tensor sync, or nullopt. Cheap on any call (a name test first).
std::optional<TensorSync> tensorSyncOf(const clang::CallExpr &Call, clang::ASTContext &Ctx);

// Matches the calls tensorSyncOf may accept, outside system headers. Binds "torch-sync".
clang::ast_matchers::StatementMatcher tensorSyncMatcher();

// at::cuda::CUDAGraph::capture_begin (true) or capture_end (false): PyTorch's stream capture
// of the current stream; nullopt for any other call.
std::optional<bool> torchGraphCapture(const clang::CallExpr &Call);

// c10::cuda::CUDAStreamCaptureModeGuard: sets the thread's capture mode for its block.
bool isCaptureModeGuard(clang::QualType T);

// Where a tensor lives, as far as the function that uses it says.
enum class TensorDevice : std::uint8_t { Cpu, Cuda, Unknown };

// The device of tensor expression E evaluated at Use inside Function: factories without a
// device are CPU tensors, .cpu()/.cuda()/.to(device) say where, views and ops keep their
// input's device, a local follows its initializer and assignments, a parameter follows the
// function's checks (TORCH_CHECK(x.is_cuda()), CHECK_CUDA(x)) and the if-branches around Use
// (if (x.is_cuda()) ... else ...).
TensorDevice tensorDeviceOf(const clang::Expr *E, const clang::Stmt *Use,
                            const clang::FunctionDecl *Function, clang::ASTContext &Ctx);

// The function checks or names CUDA tensors (x.is_cuda(), CHECK_CUDA(x), kCUDA): an op of the
// CUDA backend, whose other tensors are on the GPU too.
bool mentionsCudaTensors(const clang::FunctionDecl *Function);

// A cuBLAS / cuSPARSE / cuSOLVER / cuDNN call of the user's code.
clang::ast_matchers::StatementMatcher libraryHandleCallMatcher();  // binds "handle-call"

// The handles an extension creates itself and whether it gives them a stream: a handle from
// cublasCreate that no cublasSetStream names runs its work on the legacy default stream. (A
// handle from at::cuda::getCurrentCUDABlasHandle() has the current stream already.)
class LibraryHandles {
public:
  void observe(const clang::CallExpr &Call);
  void reset();
  struct Use {
    const clang::CallExpr *Call;
    const clang::ValueDecl *Handle;
    const clang::CallExpr *Created;  // the cublasCreate
  };
  // The calls that issue work with a created handle that was never given a stream.
  std::vector<Use> unstreamedUses() const;

private:
  std::map<const clang::ValueDecl *, const clang::CallExpr *> Created;
  std::set<const clang::ValueDecl *> Streamed;
  std::vector<std::pair<const clang::CallExpr *, const clang::ValueDecl *>> Uses;
  std::set<const clang::CallExpr *> Seen;
};

} // namespace syncwatch
