#include "UnitOrder.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <set>

namespace syncwatch {

namespace {

bool isHeader(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Ext == ".h" || Ext == ".hpp" || Ext == ".hh" || Ext == ".hxx" || Ext == ".cuh" || Ext == ".inl";
}

// A unit goes before the database's order once this many finished units read a header of
// its name. One reader is too little to go on: on test_inputs/cmake_project (8 units,
// -j2) the one tool that reads stage.h moved stage.cu before reductions.cu, the longest
// unit, whose parse then ended the run alone - 1.11-1.15x of a single pass against 1.03x
// with two - and no unit was judged early for it. On AMGX the central headers have tens of
// readers within the first units, and the same 147 of 166 units were judged early.
constexpr unsigned kReadersToJump = 2;

} // namespace

UnitOrder::UnitOrder(const std::vector<std::string> &Files) : Taken(Files.size(), false) {
  for (const std::string &F : Files) {
    auto [It, New] = NameIds.try_emplace(llvm::sys::path::stem(F).str(), static_cast<unsigned>(NameIds.size()));
    NameOf.push_back(It->second);
  }
  Readers.assign(NameIds.size(), 0);
}

std::optional<std::size_t> UnitOrder::next() {
  std::lock_guard<std::mutex> Lock(M);
  while (FirstLeft < Taken.size() && Taken[FirstLeft])
    ++FirstLeft;
  if (FirstLeft == Taken.size())
    return std::nullopt;
  std::size_t Best = FirstLeft;
  for (std::size_t I = FirstLeft + 1; I < Taken.size(); ++I)
    if (!Taken[I] && Readers[NameOf[I]] >= kReadersToJump && Readers[NameOf[I]] > Readers[NameOf[Best]])
      Best = I;
  Taken[Best] = true;
  return Best;
}

void UnitOrder::done(const std::vector<std::string> &Deps) {
  std::set<unsigned> Seen;  // a unit counts once per name
  for (const std::string &D : Deps)
    if (isHeader(D))
      if (auto It = NameIds.find(llvm::sys::path::stem(D)); It != NameIds.end())
        Seen.insert(It->second);
  std::lock_guard<std::mutex> Lock(M);
  for (unsigned Name : Seen)
    ++Readers[Name];
}

} // namespace syncwatch
