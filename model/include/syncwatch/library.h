// The library catalogue (rules/library_api.def): thrust and cub entry points that issue
// GPU work, with where their stream comes from.
#pragma once

#include <span>
#include <string_view>

namespace syncwatch {

enum class LibraryShape : unsigned char { ThrustAlgorithm, CubDevice };

struct LibraryApi {
  std::string_view Name;   // "thrust::sort", "cub::Device*"
  LibraryShape Shape;
  bool Waits;              // the host waits for the work before the call returns
};

std::span<const LibraryApi> allLibraryApis();
// The entry for a qualified name without inline namespaces ("cub::DeviceReduce::Sum"
// matches "cub::Device*"), or nullptr.
const LibraryApi *findLibraryApi(std::string_view QualifiedName);

} // namespace syncwatch
