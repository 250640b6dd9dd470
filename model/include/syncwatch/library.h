// The library catalogue (rules/library_api.def): thrust and cub entry points that issue
// GPU work, with where their stream comes from; the C libraries whose calls run on the
// stream bound to a handle (cuBLAS, cuSOLVER, cuSPARSE, cuFFT, cuRAND, cuDNN); and those
// that take the stream as an argument (cuBLASLt's matmul, NCCL's collectives).
#pragma once

#include <span>
#include <string_view>

namespace syncwatch {

enum class LibraryShape : unsigned char { ThrustAlgorithm, CubDevice, HandleStream, StreamParameter };

struct LibraryApi {
  std::string_view Name;   // "thrust::sort", "cub::Device*"
  LibraryShape Shape;
  bool Waits;              // the host waits for the work before the call returns
  // HandleStream only (SYNCWATCH_LIBRARY_HANDLE): the handle's type, the calls that create
  // it and bind its stream, and which calls issue work ("" every call but the library's
  // Set*/Get*/Create*/Destroy*; else |-separated name prefixes after Name).
  std::string_view HandleType = {}, Create = {}, SetStream = {}, Work = {};
};

std::span<const LibraryApi> allLibraryApis();
// The entry for a qualified name without inline namespaces ("cub::DeviceReduce::Sum"
// matches "cub::Device*"), or nullptr.
const LibraryApi *findLibraryApi(std::string_view QualifiedName);
// The handle library whose work call this is ("cublasSgemm_v2" -> cuBLAS's entry), given
// the type of its first parameter as declared ("cublasHandle_t"), or nullptr.
const LibraryApi *findHandleLibraryCall(std::string_view Name, std::string_view FirstParamType);
// Whether Name ("cublasCreate_v2", "cufftPlan1d") is one of the |-separated names in List,
// a trailing _v2 ignored; Prefixes: each a prefix of Name rather than all of it.
bool namedIn(std::string_view Name, std::string_view List, bool Prefixes = false);

} // namespace syncwatch
