#include "TorchHostSyncCheck.h"
#include "FlowNotes.h"

#include "clang/AST/ASTContext.h"

using namespace clang;

namespace syncwatch {

namespace {

// What to do instead, by the kind of wait.
const char *remedy(TensorSyncKind K) {
  switch (K) {
  case TensorSyncKind::Item:
  case TensorSyncKind::Equal:
    return "keep the value on the GPU as a tensor (a 0-dim tensor, torch::where), or return it and let "
           "the caller decide when to read it";
  case TensorSyncKind::ToHost:
    return "return the CUDA tensor and let the caller copy it, or copy with non_blocking=true into "
           "pinned memory and synchronize once where the host needs it";
  case TensorSyncKind::DataDependent:
    return "its output size is read on the host: use a fixed-size form (nonzero_static, masked_fill, "
           "torch::where) or pass the size in";
  case TensorSyncKind::PythonList:
    return "return the tensor and call tolist() once in Python";
  case TensorSyncKind::StreamSync:
  case TensorSyncKind::DeviceSync:
    return "work on the current stream is ordered already: drop it, or record an event and wait for it "
           "where the host needs the result";
  }
  return "";
}

const char *apiRemedy(const ApiInfo &A) {
  if (A.Family == ApiFamily::Copy)
    return "use cudaMemcpyAsync on at::cuda::getCurrentCUDAStream() (into pinned memory for a readback), "
           "or copy tensors with .to() / copy_(..., non_blocking=true)";
  return "work on the current stream is ordered already: drop it, or record an event and wait for it where "
         "the host needs the result";
}

bool waitsForGpu(const WorkCall &C) {
  if (C.Tensor)
    return true;
  if (!C.Api || !C.HostWaits)
    return false;
  if (C.Api->Family == ApiFamily::Copy)
    return C.Api->Direction != CopyDirection::DtoD;
  return C.Api->Family != ApiFamily::Memset;
}

} // namespace

void TorchHostSyncCheck::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {
  ASTContext *Ctx = Facts.context();
  if (!Ctx || !Facts.usesAten())
    return;
  ReportedOnce Reported;  // template instantiations (AT_DISPATCH_*'s lambdas) repeat calls
  const SourceManager &SM = Ctx->getSourceManager();
  // An op in a .cu file works on CUDA tensors; a C++ file's op may be the CPU one.
  bool CudaUnit = Ctx->getLangOpts().CUDA;
  for (const FunctionCalls &F : Facts.functions()) {
    if (!isHostFunction(F.Function))
      continue;
    const auto *FD = dyn_cast<FunctionDecl>(F.Function);
    for (const WorkCall &C : F.Calls) {
      if (!waitsForGpu(C))
        continue;
      // An explicit sync inside a loop is sync-in-loop's finding.
      if (C.Api && C.Api->Rule == RuleId::SyncInLoop && !C.Loops.empty())
        continue;
      TensorDevice Device = TensorDevice::Cuda;
      if (C.Tensor && C.Tensor->Tensor)
        Device = tensorDeviceOf(C.Tensor->Tensor, C.Call, FD, *Ctx);
      else if (C.Tensor && C.Tensor->Kind == TensorSyncKind::PythonList)
        Device = TensorDevice::Unknown;
      if (Device == TensorDevice::Cpu)
        continue;  // a CPU tensor's value is on the host already
      const CallFlow *Flow = Facts.flow().at(C);
      const Pending *Own = Flow && !Flow->InFlight.empty() ? &Flow->InFlight.front() : nullptr;
      if (Flow)
        for (const Pending &P : Flow->InFlight)
          if (P.Must) {
            Own = &P;
            break;
          }
      bool Assumed = Device == TensorDevice::Unknown;
      // A C++ op's tensor may be a CPU one (a note), unless the op is a CUDA op: it checks
      // or names CUDA tensors (CHECK_CUDA(x)).
      bool CudaOp = CudaUnit || mentionsCudaTensors(FD);
      if (!Reported.first(C.Loc))
        continue;
      std::string Name = C.Tensor ? C.Tensor->What : "'" + std::string(C.Api->Name) + "'";
      std::string State = Own ? (Own->Must ? workName(*Own->Work) + " is still running"
                                           : workName(*Own->Work) + " may still be running")
                              : "the work queued before the op was called may still be running";
      CheckDiagnostic D;
      D.Rule = RuleId::TorchHostSync;
      D.Level = (Own || CudaOp || Device == TensorDevice::Cuda) ? Severity::Warning : Severity::Note;
      D.Loc = C.Loc;
      D.Range = reportRange(C.Call->getCallee()->getSourceRange(), SM, Ctx->getLangOpts());
      std::string OfWhat = C.Tensor && C.Tensor->Tensor
                               ? (Device == TensorDevice::Cuda && !Assumed ? " of a CUDA tensor"
                                  : D.Level == Severity::Note             ? " of a tensor that may be on the GPU"
                                                                          : " of the op's tensor")
                               : "";
      D.Message = Name + OfWhat + " makes the host wait for the GPU inside the op: " + State +
                  ", and the Python caller stalls until it is done; " +
                  (C.Tensor ? remedy(C.Tensor->Kind) : apiRemedy(*C.Api));
      if (Own)
        D.Notes.push_back(pendingNote(*Own, C, SM));
      else if (Flow)
        callerNotes(*Flow, D.Notes);
      D.Evidence = {{"api", C.Tensor ? C.Tensor->What.substr(1, C.Tensor->What.size() - 2) : std::string(C.Api->Name)},
                    {"inFlight", Own ? (Own->Must ? "must" : "may") : "caller"}};
      Sink.emit(D, SM);
    }
  }
}

} // namespace syncwatch
