#include "GlobList.h"

#include "llvm/ADT/SmallVector.h"

namespace syncwatch {

GlobList::GlobList(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef> Parts;
  Text.split(Parts, ',', -1, false);
  for (llvm::StringRef Part : Parts) {
    Part = Part.trim(" \t\r\n");
    if (Part.empty())
      continue;
    bool Positive = !Part.consume_front("-");
    Part = Part.trim(" \t");
    std::string Re = "^";
    for (char C : Part) {
      if (C == '*')
        Re += ".*";
      else if (llvm::StringRef("()^$|+?.[]\\{}").contains(C))
        Re += std::string("\\") + C;
      else
        Re += C;
    }
    Re += "$";
    Globs.push_back({Positive, std::make_shared<llvm::Regex>(Re)});
  }
}

bool GlobList::contains(llvm::StringRef Name) const {
  for (auto It = Globs.rbegin(); It != Globs.rend(); ++It)
    if (It->Pattern->match(Name))
      return It->Positive;
  return false;
}

} // namespace syncwatch
