// The runtime library hashes the sources a report names (model/src/source_hash.cpp) from an atexit
// handler. A Python process initializes OpenSSL after syncwatch started (hashlib is imported
// late), so OpenSSL's own clean-up ran first, and EVP_Digest crashed in the report: every
// preloaded PyTorch training script on the H200 died of SIGSEGV at exit. This program does
// what such a process does, in that order, and prints at exit what the report would get.
//   openssl_at_exit FILE             as libsyncwatch.so starts: prepareSourceHashing() first
//   openssl_at_exit FILE no-prepare  without it: the hash is missing, and nothing crashes
#include "syncwatch/source_hash.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
const char *File = nullptr;
char Before[80] = {};  // the hash taken while the program ran (no std::string at exit)

void reportAtExit() {
  std::string At = syncwatch::sha256OfFile(File);
  if (At.empty())
    std::printf("at exit: no hash\n");
  else
    std::printf("at exit: %s hash\n", At == Before ? "same" : "different");
  std::fflush(stdout);
}
} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return 2;
  File = Argv[1];
  bool Prepare = !(Argc > 2 && std::strcmp(Argv[2], "no-prepare") == 0);
  // syncwatch starts (the first CUDA event): libcrypto first, then its atexit handler.
  if (Prepare)
    syncwatch::prepareSourceHashing();
  std::atexit(reportAtExit);
  // The program then uses OpenSSL itself, as Python's hashlib does.
  void *H = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_GLOBAL);
  if (!H) {
    std::printf("no libcrypto.so.3: %s\n", dlerror());
    return 3;
  }
  auto Init = reinterpret_cast<int (*)(std::uint64_t, const void *)>(dlsym(H, "OPENSSL_init_crypto"));
  if (!Init || !Init(0, nullptr))
    return 4;
  std::string Now = syncwatch::sha256OfFile(File);
  std::snprintf(Before, sizeof Before, "%s", Now.c_str());
  std::printf("while running: %s\n", Now.empty() ? "no hash" : "hash");
  return 0;
}
