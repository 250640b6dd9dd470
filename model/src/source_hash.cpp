#include "syncwatch/source_hash.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>

namespace syncwatch {
namespace {

// OpenSSL 3's one-shot digest: EVP_Digest(data, n, md, &mdlen, EVP_sha256(), NULL), and
// OPENSSL_init_crypto, which says whether the library is still usable.
struct Crypto {
  const void *(*Sha256)() = nullptr;
  int (*Digest)(const void *, std::size_t, unsigned char *, unsigned *, const void *, void *) = nullptr;
  int (*Init)(std::uint64_t, const void *) = nullptr;
};

// OpenSSL's flags (openssl/crypto.h; BASE_ONLY is listed there but not defined: it is the
// flag OpenSSL's own internal callers pass to ask "initialized and not cleaned up?" without
// raising an error, which after the clean-up would itself touch freed state).
constexpr std::uint64_t kInitNoAtExit = 0x00080000;
constexpr std::uint64_t kInitBaseOnly = 0x00040000;

const Crypto &crypto() {
  static Crypto C = [] {
    Crypto X;
    void *H = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!H)
      H = dlopen("libcrypto.so", RTLD_NOW | RTLD_LOCAL);
    if (!H)
      return X;
    X.Sha256 = reinterpret_cast<decltype(X.Sha256)>(dlsym(H, "EVP_sha256"));
    X.Digest = reinterpret_cast<decltype(X.Digest)>(dlsym(H, "EVP_Digest"));
    X.Init = reinterpret_cast<decltype(X.Init)>(dlsym(H, "OPENSSL_init_crypto"));
    if (!X.Sha256 || !X.Digest || !X.Init)
      X = Crypto();
    return X;
  }();
  return C;
}

} // namespace

void prepareSourceHashing() {
  const Crypto &C = crypto();
  if (C.Init)
    C.Init(kInitNoAtExit, nullptr);
}

std::string sha256OfFile(const std::string &Path) {
  struct stat St;
  if (Path.empty() || ::stat(Path.c_str(), &St) != 0 || !S_ISREG(St.st_mode) || St.st_size > (1 << 30))
    return "";
  const Crypto &C = crypto();
  // 0: OpenSSL was cleaned up (an atexit handler that ran before this one); no digest then.
  if (!C.Digest || !C.Init(kInitBaseOnly | kInitNoAtExit, nullptr))
    return "";
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return "";
  std::string Data((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  unsigned char Md[64];
  unsigned Len = 0;
  if (!C.Digest(Data.data(), Data.size(), Md, &Len, C.Sha256(), nullptr) || Len != 32)
    return "";
  std::string Hex;
  char B[3];
  for (unsigned I = 0; I < Len; ++I) {
    std::snprintf(B, sizeof B, "%02x", Md[I]);
    Hex += B;
  }
  return Hex;
}

std::vector<Artifact> sourceArtifacts(const Report &R) {
  std::set<std::string> Files;
  auto Add = [&](const std::string &F) {
    if (!F.empty() && F[0] == '/')
      Files.insert(F);
  };
  for (const Finding &F : R.Findings) {
    Add(F.Where.File);
    for (const FindingNote &N : F.Notes)
      Add(N.Where.File);
  }
  for (const CoveredCall &C : R.Coverage) {
    Add(C.Where.File);
    Add(C.NativeFile);
  }
  std::vector<Artifact> Out;
  for (const std::string &F : Files) {
    // A program's own binary (a release build's site) is no source to compare.
    struct stat St;
    if (::stat(F.c_str(), &St) != 0 || !S_ISREG(St.st_mode) || (St.st_mode & S_IXUSR))
      continue;
    Out.push_back({F, sha256OfFile(F)});
  }
  return Out;
}

} // namespace syncwatch
