#include "UnitOrder.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <set>
#include <utility>

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
  Callers.assign(NameIds.size(), 0);
}

std::optional<std::size_t> UnitOrder::next() {
  std::lock_guard<std::mutex> Lock(M);
  while (FirstLeft < Taken.size() && Taken[FirstLeft])
    ++FirstLeft;
  if (FirstLeft == Taken.size())
    return std::nullopt;
  // What a unit has to go early: callers first (the direct sign that its summary is wanted),
  // then readers; nothing below the threshold counts.
  auto Rank = [&](std::size_t I) {
    unsigned C = Callers[NameOf[I]], R = Readers[NameOf[I]];
    return std::pair(C >= kReadersToJump ? C : 0u, R >= kReadersToJump ? R : 0u);
  };
  std::size_t Best = FirstLeft;
  std::pair<unsigned, unsigned> BestRank = Rank(Best);
  for (std::size_t I = FirstLeft + 1; I < Taken.size(); ++I)
    if (!Taken[I])
      if (std::pair<unsigned, unsigned> R = Rank(I); R > BestRank) {
        Best = I;
        BestRank = R;
      }
  Taken[Best] = true;
  return Best;
}

void UnitOrder::done(const std::vector<std::string> &Deps, const std::vector<std::string> &CalleeDecls) {
  auto NamesOf = [&](const std::vector<std::string> &Headers) {
    std::set<unsigned> Seen;  // a unit counts once per name
    for (const std::string &H : Headers)
      if (isHeader(H))
        if (auto It = NameIds.find(llvm::sys::path::stem(H)); It != NameIds.end())
          Seen.insert(It->second);
    return Seen;
  };
  std::set<unsigned> Read = NamesOf(Deps), Called = NamesOf(CalleeDecls);
  std::lock_guard<std::mutex> Lock(M);
  for (unsigned Name : Read)
    ++Readers[Name];
  for (unsigned Name : Called)
    ++Callers[Name];
}

} // namespace syncwatch
