// LSP's coordinates against syncwatch's: file:// URIs against paths, and positions as
// (0-based line, UTF-16 code unit) against findings' (1-based line, 1-based byte column).
#pragma once

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace syncwatch::lsp {

// "file:///a%20b/c.cu" -> "/a b/c.cu"; nullopt for another scheme or a malformed escape.
std::optional<std::string> pathOfUri(llvm::StringRef Uri);
std::string uriOfPath(llvm::StringRef Path);

// Line Line0 (0-based) of Text, without its line break; empty past the end.
llvm::StringRef lineOf(llvm::StringRef Text, unsigned Line0);

// A 1-based byte column of a line as LSP's 0-based UTF-16 character offset, and back.
unsigned utf16Column(llvm::StringRef Line, unsigned ByteColumn1);
unsigned byteColumn(llvm::StringRef Line, unsigned Utf16Column0);

} // namespace syncwatch::lsp
