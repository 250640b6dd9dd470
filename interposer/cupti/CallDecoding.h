// CUPTI's callback data, decoded into syncwatch's own ApiCallback (filter/ApiCallback.h): the one
// place that knows which parameter struct holds a call's stream, flags or host pointers.
// Inline, because it runs on every recorded call's entry (bench/runtime_cost measures it
// with the handlers it feeds).
#pragma once

#include "../filter/ApiCallback.h"

#include <cupti.h>

#include <string_view>

namespace syncwatch::runtime {

inline CallbackKey keyOf(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  return callbackKey(static_cast<ApiDomain>(Domain), Id);
}

namespace detail {

// The stream a launch goes to, runtime or driver API; false when it cannot be read.
inline bool decodeLaunch(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Params, CallArgs &A) {
  if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (Id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
      A.Stream = static_cast<const cudaLaunchKernel_v7000_params *>(Params)->stream;
      A.PerThreadApi = Id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000;
      return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      const auto *P = static_cast<const cudaLaunchKernelExC_v11060_params *>(Params);
      if (!P->config)
        return false;
      A.Stream = P->config->stream;
      A.PerThreadApi = Id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060;
      return true;
    }
    default:
      return false;
    }
  }
  if (Domain != CUPTI_CB_DOMAIN_DRIVER_API)
    return false;
  if (Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
    A.Stream = static_cast<const cuLaunchKernel_params *>(Params)->hStream;
    A.PerThreadApi = Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz;
    return true;
  }
  // cudaLaunchKernelExC reaches the driver as cuLaunchKernelEx (PyTorch 2.11 launches about
  // a third of a training step's kernels so); with the runtime's callback off, the driver's
  // is the one that fires.
  if (Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
    const CUlaunchConfig *Config = static_cast<const cuLaunchKernelEx_params *>(Params)->config;
    if (!Config)
      return false;
    A.Stream = Config->hStream;
    A.PerThreadApi = Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
    return true;
  }
  return false;
}

// A stream creation's flags and priority (cudaStreamCreate and the rest: blocking, default).
inline void decodeStreamCreation(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Params, CallArgs &A) {
  if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (Id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000) {
      A.StreamFlags = static_cast<const cudaStreamCreateWithFlags_v5000_params *>(Params)->flags;
    } else if (Id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050) {
      const auto *P = static_cast<const cudaStreamCreateWithPriority_v5050_params *>(Params);
      A.StreamFlags = P->flags;
      A.StreamPriority = P->priority;
    }
    return;
  }
  if (Id == CUPTI_DRIVER_TRACE_CBID_cuStreamCreate) {
    A.StreamFlags = static_cast<const cuStreamCreate_params *>(Params)->Flags;
  } else if (Id == CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority) {
    const auto *P = static_cast<const cuStreamCreateWithPriority_params *>(Params);
    A.StreamFlags = P->flags;
    A.StreamPriority = P->priority;
  }
}

// A capture's begin: its stream (the first parameter of every entry point) and mode. The
// runtime's and the driver's structs lay them out alike (stream, mode) or (stream, graph,
// dependencies, edge data, count, mode).
inline void decodeCaptureBegin(CaptureCall Kind, const void *Params, CallArgs &A) {
  if (Kind == CaptureCall::Begin) {
    const auto *P = static_cast<const cudaStreamBeginCapture_v10000_params *>(Params);
    A.Stream = P->stream;
    A.CaptureMode = static_cast<std::uint8_t>(P->mode);
  } else if (Kind == CaptureCall::BeginToGraph) {
    const auto *P = static_cast<const cudaStreamBeginCaptureToGraph_v12030_params *>(Params);
    A.Stream = P->stream;
    A.CaptureMode = static_cast<std::uint8_t>(P->mode);
  } else {
    A.Stream = static_cast<const cuStreamBeginCapture_ptsz_params *>(Params)->hStream;
  }
  A.StreamKnown = true;
}

} // namespace detail

// At a call's exit: the call and what it returned; of a capture's end, the graph it made.
inline ApiReturn decodeExit(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const CUpti_CallbackData *Cb,
                            CaptureCall Capture = CaptureCall::None) {
  ApiReturn C;
  C.Key = keyOf(Domain, Id);
  C.Context = Cb->context;
  C.Correlation = Cb->correlationId;
  C.FunctionName = Cb->functionName;
  if (Cb->functionReturnValue)  // cudaError_t and CUresult are both an int-sized enum
    C.Result = *static_cast<const std::int32_t *>(Cb->functionReturnValue);
  if (Capture == CaptureCall::End && Cb->functionParams) [[unlikely]] {
    const auto *P = static_cast<const cudaStreamEndCapture_v10000_params *>(Cb->functionParams);
    C.Graph = P->pGraph ? *P->pGraph : nullptr;
  }
  return C;
}

// At its entry, with its arguments. Launch, CreatesStream: what the catalogue says of the id
// (CallbackInfo): only the parameters that the filter will read are decoded.
inline ApiCallback decodeEntry(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const CUpti_CallbackData *Cb,
                               bool Launch, bool CreatesStream, CaptureCall Capture = CaptureCall::None) {
  ApiCallback C;
  C.Key = keyOf(Domain, Id);
  C.Context = Cb->context;
  C.Correlation = Cb->correlationId;
  C.FunctionName = Cb->functionName;
  const void *Params = Cb->functionParams;
  if (!Params)
    return C;
  CallArgs &A = C.Args;
  A.HasParams = true;
  if (CreatesStream) {
    detail::decodeStreamCreation(Domain, Id, Params, A);
  } else if (Capture != CaptureCall::None) [[unlikely]] {
    if (Capture == CaptureCall::End) {
      A.Stream = static_cast<const cudaStreamEndCapture_v10000_params *>(Params)->stream;
      A.StreamKnown = true;
    } else {
      detail::decodeCaptureBegin(Capture, Params, A);
    }
  } else if (Launch) {
    A.StreamKnown = detail::decodeLaunch(Domain, Id, Params, A);
  } else if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API && (Id == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 ||
                                                       Id == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000)) {
    const auto *P = static_cast<const cudaMemcpyAsync_v3020_params *>(Params);
    A.AsyncCopy = true;
    A.Stream = P->stream;
    A.StreamKnown = true;
    A.PerThreadApi = Id == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000;
    A.CopyKind = P->kind;
    A.Src = P->src;
    A.Dst = P->dst;
  }
  return C;
}

// The launch entry points whose stream decideAtEntry can read (cudaLaunchKernel,
// cudaLaunchKernelExC, cuLaunchKernel, cuLaunchKernelEx): capture leaves their callbacks off until a call's
// EntryDecision says EnableLaunches - the creation of a blocking or high-priority stream,
// or work sent to a blocking stream (cudaStreamPerThread included) by another call. Until
// then each of them would be a launch onto the legacy stream or a non-blocking stream of
// the default priority, which no rule can use. Other launch APIs (graphs, cooperative launches,
// the _ptsz entry points of per-thread default stream builds) are always on.
// What this misses: launches onto cudaStreamPerThread through the plain entry points,
// before any other blocking-stream work, are not seen.
bool launchCallbackDeferrable(CUpti_CallbackDomain Domain, CUpti_CallbackId Id);

// Which capture entry point a callback is, from CUPTI's name for it ("cudaStreamBeginCapture_v10000",
// "cuStreamBeginCapture_v2_ptsz") and the catalogue's Capture column.
CaptureCall captureCallOf(std::string_view CallbackName, bool Begins, bool Ends);

} // namespace syncwatch::runtime
