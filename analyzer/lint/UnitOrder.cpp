#include "UnitOrder.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

namespace syncwatch {

namespace {

bool isHeader(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Ext == ".h" || Ext == ".hpp" || Ext == ".hh" || Ext == ".hxx" || Ext == ".cuh" || Ext == ".inl";
}

} // namespace

UnitOrder::UnitOrder(const std::vector<std::string> &Files) : Taken(Files.size(), false) {
  for (const std::string &F : Files)
    Names.push_back(llvm::sys::path::stem(F).str());
}

std::optional<std::size_t> UnitOrder::next() {
  std::lock_guard<std::mutex> Lock(M);
  while (FirstLeft < Taken.size() && Taken[FirstLeft])
    ++FirstLeft;
  if (FirstLeft == Taken.size())
    return std::nullopt;
  std::size_t Best = FirstLeft;
  unsigned BestReaders = 0;
  if (!Readers.empty())
    for (std::size_t I = FirstLeft; I < Taken.size(); ++I) {
      if (Taken[I])
        continue;
      auto It = Readers.find(Names[I]);
      if (It != Readers.end() && It->second > BestReaders) {
        Best = I;
        BestReaders = It->second;
      }
    }
  Taken[Best] = true;
  return Best;
}

void UnitOrder::done(const std::vector<std::string> &Deps) {
  llvm::StringSet<> Seen;  // a unit counts once per name
  for (const std::string &D : Deps)
    if (isHeader(D))
      Seen.insert(llvm::sys::path::stem(D));
  std::lock_guard<std::mutex> Lock(M);
  for (const auto &Name : Seen)
    ++Readers[Name.getKey().str()];
}

} // namespace syncwatch
