// Function symbols of a loaded module, read from its ELF .symtab (else .dynsym) with
// elfutils' libelf: the call site of a release build, which has no line tables
// (`nvcc -O3` without -g or -lineinfo), is still "function+offset in module".
// Read at report time only, once per module.
#pragma once

#include <cstdint>
#include <string>

namespace syncwatch::runtime {

struct ElfSymbol {
  std::string Name;          // demangled, without the parameter list
  std::uint64_t Offset = 0;  // of the address from the function's start
};

// Address: the module-relative address (a shared object's or PIE's file address; for a
// non-PIE executable the run-time address). False when the module cannot be read or no
// function symbol covers the address (or libelf.so.1 is not installed, or syncwatch was
// built without libelf's headers).
bool elfSymbolAt(const char *ModulePath, std::uint64_t Address, ElfSymbol &Out);

// Whether the module is a non-PIE executable (ET_EXEC), whose symbols carry run-time addresses.
bool elfIsFixedAddress(const char *ModulePath);

} // namespace syncwatch::runtime
