// Call-site probe: captures its own stack the way libsyncwatch.so does inside a CUDA call,
// and prints what the report would name. Built twice by tests/CMakeLists.txt: with line
// tables (-g: file and line) and as a release build without them (function+offset from
// the ELF symbol table).
#include "../../interposer/sites/CallSites.h"

#include <cstdio>

using namespace syncwatch::runtime;

__attribute__((noinline)) std::uint32_t copyBatch(SiteTable &Table) {
  RawStack Stack;
  captureStack(Stack);  // CALL-SITE
  return Table.intern(Stack) + 0;
}

int main() {
  SiteTable Table;
  std::uint32_t Site = copyBatch(Table);
  SiteFrame F = Table.resolve(Site);
  std::printf("function=%s\nfile=%s\nline=%u\n", F.Function.c_str(), F.File.c_str(), F.Line);
  return 0;
}
