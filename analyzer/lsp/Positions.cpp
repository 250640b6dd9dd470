#include "Positions.h"

#include "llvm/ADT/StringExtras.h"

namespace syncwatch::lsp {

std::optional<std::string> pathOfUri(llvm::StringRef Uri) {
  if (!Uri.consume_front("file://"))
    return std::nullopt;
  std::string Path;
  for (std::size_t I = 0; I < Uri.size(); ++I) {
    if (Uri[I] != '%') {
      Path += Uri[I];
      continue;
    }
    if (I + 2 >= Uri.size() || !llvm::isHexDigit(Uri[I + 1]) || !llvm::isHexDigit(Uri[I + 2]))
      return std::nullopt;
    Path += static_cast<char>(llvm::hexFromNibbles(Uri[I + 1], Uri[I + 2]));
    I += 2;
  }
  if (Path.empty() || Path[0] != '/')
    return std::nullopt;  // file://host/... is not a local path
  return Path;
}

std::string uriOfPath(llvm::StringRef Path) {
  std::string Uri = "file://";
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("-._~/").contains(C))
      Uri += static_cast<char>(C);
    else
      Uri += "%" + llvm::utohexstr(C, /*LowerCase=*/false, /*Width=*/2);
  }
  return Uri;
}

llvm::StringRef lineOf(llvm::StringRef Text, unsigned Line0) {
  for (unsigned I = 0; I < Line0; ++I) {
    std::size_t NL = Text.find('\n');
    if (NL == llvm::StringRef::npos)
      return "";
    Text = Text.drop_front(NL + 1);
  }
  return Text.take_until([](char C) { return C == '\n'; }).rtrim('\r');
}

// UTF-8's lead byte says how many bytes a code point takes; four-byte ones are two UTF-16
// units (a surrogate pair). A malformed byte counts as one unit.
static unsigned sequenceLength(unsigned char Lead) {
  return Lead < 0x80 ? 1 : (Lead >> 5) == 0x6 ? 2 : (Lead >> 4) == 0xE ? 3 : (Lead >> 3) == 0x1E ? 4 : 1;
}

unsigned utf16Column(llvm::StringRef Line, unsigned ByteColumn1) {
  unsigned Bytes = ByteColumn1 ? ByteColumn1 - 1 : 0, Units = 0;
  for (std::size_t I = 0; I < Bytes && I < Line.size();) {
    unsigned Len = sequenceLength(static_cast<unsigned char>(Line[I]));
    Units += Len == 4 ? 2 : 1;
    I += Len;
  }
  if (Bytes > Line.size())
    Units += Bytes - static_cast<unsigned>(Line.size());  // past the line's end: as bytes
  return Units;
}

unsigned byteColumn(llvm::StringRef Line, unsigned Utf16Column0) {
  unsigned Units = 0;
  std::size_t I = 0;
  while (I < Line.size() && Units < Utf16Column0) {
    unsigned Len = sequenceLength(static_cast<unsigned char>(Line[I]));
    Units += Len == 4 ? 2 : 1;
    I += Len;
  }
  return static_cast<unsigned>(std::min(I, Line.size())) + 1;
}

} // namespace syncwatch::lsp
