#include "syncwatch/library.h"

#include <algorithm>
#include <cctype>

namespace syncwatch {

namespace {
constexpr LibraryApi Apis[] = {
#define SYNCWATCH_LIBRARY(Name, Shape, Waits) {Name, LibraryShape::Shape, Waits},
#define SYNCWATCH_LIBRARY_HANDLE(Prefix, HandleType, Create, SetStream, Work) \
  {Prefix, LibraryShape::HandleStream, false, HandleType, Create, SetStream, Work},
#include "../../rules/library_api.def"
#undef SYNCWATCH_LIBRARY_HANDLE
#undef SYNCWATCH_LIBRARY
};
} // namespace

std::span<const LibraryApi> allLibraryApis() { return Apis; }

const LibraryApi *findLibraryApi(std::string_view Name) {
  for (const LibraryApi &A : Apis) {
    std::string_view Pattern = A.Name;
    if (Pattern.ends_with("*")) {
      // "cub::Device*": cub::<class starting with Device>::<function>
      std::string_view Prefix = Pattern.substr(0, Pattern.size() - 1);
      if (Name.starts_with(Prefix) && Name.find("::", Prefix.size()) != std::string_view::npos &&
          Name.find("::", Name.find("::", Prefix.size()) + 2) == std::string_view::npos)
        return &A;
      continue;
    }
    if (A.Shape != LibraryShape::HandleStream && Name == Pattern)
      return &A;
  }
  return nullptr;
}

bool namedIn(std::string_view Name, std::string_view List, bool Prefixes) {
  if (Name.ends_with("_v2"))
    Name.remove_suffix(3);
  while (!List.empty()) {
    std::size_t Bar = List.find('|');
    std::string_view One = List.substr(0, Bar);
    if (Prefixes ? Name.starts_with(One) : Name == One)
      return true;
    if (Bar == std::string_view::npos)
      break;
    List.remove_prefix(Bar + 1);
  }
  return false;
}

static bool containsIgnoringCase(std::string_view Text, std::string_view Lower) {
  auto Eq = [](char A, char B) { return std::tolower(static_cast<unsigned char>(A)) == B; };
  return std::search(Text.begin(), Text.end(), Lower.begin(), Lower.end(), Eq) != Text.end();
}

const LibraryApi *findHandleLibraryCall(std::string_view Name, std::string_view FirstParamType) {
  for (const LibraryApi &A : Apis) {
    if (A.Shape != LibraryShape::HandleStream || FirstParamType != A.HandleType || !Name.starts_with(A.Name) ||
        Name.size() <= A.Name.size())
      continue;
    std::string_view Rest = Name.substr(A.Name.size());
    // A size query (cusparseXcsrsort_bufferSizeExt, cusolverDnSgetrf_bufferSize) only
    // computes a size: MAGMA's CSR sort had its cudaMalloc noted "while stream work is still
    // running" after one (docs/field-test.md).
    if (containsIgnoringCase(Rest, "buffersize") || containsIgnoringCase(Rest, "workspacesize"))
      return nullptr;
    if (A.Work.empty()) {
      // Configuring, querying, making or destroying the handle issues no work.
      for (std::string_view Bookkeeping : {"Set", "Get", "Create", "Destroy"})
        if (Rest.starts_with(Bookkeeping))
          return nullptr;
      return Rest[0] >= 'A' && Rest[0] <= 'Z' ? &A : nullptr;
    }
    return namedIn(Rest, A.Work, true) ? &A : nullptr;
  }
  return nullptr;
}

} // namespace syncwatch
