#include "syncwatch/library.h"

namespace syncwatch {

namespace {
constexpr LibraryApi Apis[] = {
#define SYNCWATCH_LIBRARY(Name, Shape, Waits) {Name, LibraryShape::Shape, Waits},
#include "../../rules/library_api.def"
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
    if (Name == Pattern)
      return &A;
  }
  return nullptr;
}

} // namespace syncwatch
