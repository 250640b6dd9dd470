#include "CallDecoding.h"

namespace syncwatch::runtime {

// ApiDomain's values are CUPTI's: a CallbackKey is the number CUPTI's ids always made.
static_assert(static_cast<std::uint32_t>(ApiDomain::Driver) == CUPTI_CB_DOMAIN_DRIVER_API);
static_assert(static_cast<std::uint32_t>(ApiDomain::Runtime) == CUPTI_CB_DOMAIN_RUNTIME_API);
static_assert(kCopyHostToDevice == cudaMemcpyHostToDevice && kCopyDeviceToHost == cudaMemcpyDeviceToHost);
static_assert(CUPTI_RUNTIME_TRACE_CBID_SIZE <= 0x10000 && CUPTI_DRIVER_TRACE_CBID_SIZE <= 0x10000,
              "a callback id must fit CallbackKey's 16 bits");

bool launchCallbackDeferrable(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return Id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 || Id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060;
  return Domain == CUPTI_CB_DOMAIN_DRIVER_API &&
         (Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
}

} // namespace syncwatch::runtime
