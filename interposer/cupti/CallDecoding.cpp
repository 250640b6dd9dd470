#include "CallDecoding.h"

#include <cstddef>

namespace syncwatch::runtime {

// ApiDomain's values are CUPTI's: a CallbackKey is the number CUPTI's ids always made.
static_assert(static_cast<std::uint32_t>(ApiDomain::Driver) == CUPTI_CB_DOMAIN_DRIVER_API);
static_assert(static_cast<std::uint32_t>(ApiDomain::Runtime) == CUPTI_CB_DOMAIN_RUNTIME_API);
static_assert(kCopyHostToDevice == cudaMemcpyHostToDevice && kCopyDeviceToHost == cudaMemcpyDeviceToHost);
static_assert(CUPTI_RUNTIME_TRACE_CBID_SIZE <= 0x10000 && CUPTI_DRIVER_TRACE_CBID_SIZE <= 0x10000,
              "a callback id must fit CallbackKey's 16 bits");

// decodeCaptureBegin and decodeExit read the driver's capture structs through the runtime's.
static_assert(offsetof(cuStreamBeginCapture_v2_params, mode) == offsetof(cudaStreamBeginCapture_v10000_params, mode));
static_assert(offsetof(cuStreamBeginCaptureToGraph_params, mode) ==
              offsetof(cudaStreamBeginCaptureToGraph_v12030_params, mode));
static_assert(offsetof(cuStreamEndCapture_params, phGraph) == offsetof(cudaStreamEndCapture_v10000_params, pGraph));
static_assert(sizeof(CUstreamCaptureMode) == sizeof(cudaStreamCaptureMode) && sizeof(CUresult) == sizeof(std::int32_t) &&
              sizeof(cudaError_t) == sizeof(std::int32_t));
static_assert(int{CU_STREAM_CAPTURE_MODE_GLOBAL} == int{cudaStreamCaptureModeGlobal} &&
              int{CU_STREAM_CAPTURE_MODE_RELAXED} == int{cudaStreamCaptureModeRelaxed});

CaptureCall captureCallOf(std::string_view Name, bool Begins, bool Ends) {
  if (Ends)
    return CaptureCall::End;
  if (!Begins)
    return CaptureCall::None;
  if (Name.find("ToGraph") != std::string_view::npos)
    return CaptureCall::BeginToGraph;
  // The driver's first cuStreamBeginCapture (and its _ptsz twin) takes no mode.
  if (Name == "cuStreamBeginCapture" || Name == "cuStreamBeginCapture_ptsz")
    return CaptureCall::BeginNoMode;
  return CaptureCall::Begin;
}

bool launchCallbackDeferrable(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return Id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 || Id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060;
  return Domain == CUPTI_CB_DOMAIN_DRIVER_API &&
         (Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
}

} // namespace syncwatch::runtime
