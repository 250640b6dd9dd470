#include "ApiNames.h"

#include "syncwatch/catalogue.h"

#include <mutex>
#include <set>
#include <string>

namespace syncwatch::runtime {

std::string_view internApiName(std::string_view Name) {
  if (const ApiInfo *A = findApi(Name))
    return A->Name;
  // Never destroyed: capture may still name a call from its exit-time flush, after the
  // C++ runtime has begun destroying statics.
  static auto *M = new std::mutex;
  static auto *Names = new std::set<std::string, std::less<>>;
  std::lock_guard<std::mutex> L(*M);
  return *Names->emplace(Name).first;
}

std::string_view internKernelName(std::string_view Name) {
  if (Name.empty())
    return {};
  static auto *M = new std::mutex;  // never destroyed, as above
  static auto *Names = new std::set<std::string, std::less<>>;
  std::lock_guard<std::mutex> L(*M);
  auto It = Names->find(Name);
  if (It == Names->end())
    It = Names->emplace(Name).first;
  return *It;
}

} // namespace syncwatch::runtime
