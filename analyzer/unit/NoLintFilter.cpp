#include "NoLintFilter.h"

#include "GlobList.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"

namespace syncwatch {
namespace {

enum class Kind { ThisLine, NextLine, Begin, End };

struct Directive {
  Kind K;
  unsigned Line;         // 1-based line of the comment
  std::string Checks;    // "*" when no list was given
};

std::vector<Directive> scan(llvm::StringRef Text) {
  std::vector<Directive> Out;
  unsigned Line = 1;
  std::size_t Pos = 0;
  std::size_t LineStart = 0;
  while ((Pos = Text.find("NOLINT", Pos)) != llvm::StringRef::npos) {
    Line += Text.slice(LineStart, Pos).count('\n');
    LineStart = Pos;
    llvm::StringRef Rest = Text.substr(Pos + 6);
    Kind K = Kind::ThisLine;
    std::size_t Len = 6;
    if (Rest.starts_with("NEXTLINE")) {
      K = Kind::NextLine;
      Len += 8;
    } else if (Rest.starts_with("BEGIN")) {
      K = Kind::Begin;
      Len += 5;
    } else if (Rest.starts_with("END")) {
      K = Kind::End;
      Len += 3;
    }
    std::string Checks = "*";
    llvm::StringRef After = Text.substr(Pos + Len);
    if (After.starts_with("(")) {
      std::size_t Close = After.find(')');
      std::size_t Newline = After.find('\n');
      if (Close != llvm::StringRef::npos && Close < Newline) {
        Checks = After.slice(1, Close).str();
        Len += Close + 1;
      }
    }
    Out.push_back({K, Line, Checks});
    Pos += Len;
  }
  return Out;
}

bool listCovers(const std::string &Checks, llvm::StringRef Check) {
  return GlobList(Checks).contains(Check);
}

} // namespace

bool NoLintFilter::suppresses(llvm::StringRef Text, unsigned Line, llvm::StringRef Check,
                              std::vector<std::string> *Problems) {
  std::vector<Directive> Directives = scan(Text);
  // Regions: a stack of open NOLINTBEGINs; each NOLINTEND closes the latest BEGIN with
  // the same check list.
  struct Region {
    unsigned Begin, End;
    std::string Checks;
  };
  std::vector<Region> Regions;
  std::vector<Directive> Open;
  for (const Directive &D : Directives) {
    switch (D.K) {
    case Kind::ThisLine:
      if (D.Line == Line && listCovers(D.Checks, Check))
        return true;
      break;
    case Kind::NextLine:
      if (D.Line + 1 == Line && listCovers(D.Checks, Check))
        return true;
      break;
    case Kind::Begin:
      Open.push_back(D);
      break;
    case Kind::End: {
      auto It = std::find_if(Open.rbegin(), Open.rend(),
                             [&](const Directive &B) { return B.Checks == D.Checks; });
      if (It == Open.rend()) {
        if (Problems)
          Problems->push_back("unmatched 'NOLINTEND' at line " + std::to_string(D.Line));
        break;
      }
      Regions.push_back({It->Line, D.Line, D.Checks});
      Open.erase(std::next(It).base());
      break;
    }
    }
  }
  if (Problems)
    for (const Directive &B : Open)
      Problems->push_back("unmatched 'NOLINTBEGIN' at line " + std::to_string(B.Line));
  for (const Region &R : Regions)
    if (R.Begin <= Line && Line <= R.End && listCovers(R.Checks, Check))
      return true;
  return false;
}

bool NoLintFilter::suppressed(const std::string &File, unsigned Line, llvm::StringRef Check) {
  std::lock_guard<std::mutex> Lock(M);
  auto It = Cache.find(File);
  if (It == Cache.end()) {
    std::optional<std::string> Text;
    if (auto Buf = llvm::MemoryBuffer::getFile(File))
      Text = (*Buf)->getBuffer().str();
    It = Cache.emplace(File, std::move(Text)).first;
  }
  return It->second && suppresses(*It->second, Line, Check);
}

void NoLintFilter::preload(const std::string &File, std::string Text) {
  std::lock_guard<std::mutex> Lock(M);
  Cache[File] = std::move(Text);
}

} // namespace syncwatch
