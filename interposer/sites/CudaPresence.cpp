#include "CudaPresence.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <vector>

namespace syncwatch::runtime {
namespace {

bool isCudaLibrary(const char *Path) {
  if (!Path || !*Path)
    return false;
  const char *Base = std::strrchr(Path, '/');
  Base = Base ? Base + 1 : Path;
  return std::strncmp(Base, "libcudart.so", 12) == 0 || std::strncmp(Base, "libcuda.so", 10) == 0;
}

// Whether the ELF file at Path has a section named .nv_fatbin (read from its section
// headers; 64-bit little-endian files only, as on every CUDA host).
bool hasFatbin(const char *Path) {
  int Fd = ::open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return false;
  bool Found = false;
  Elf64_Ehdr H;
  if (::pread(Fd, &H, sizeof H, 0) == static_cast<ssize_t>(sizeof H) && std::memcmp(H.e_ident, ELFMAG, SELFMAG) == 0 &&
      H.e_ident[EI_CLASS] == ELFCLASS64 && H.e_shentsize == sizeof(Elf64_Shdr) && H.e_shnum > 0 &&
      H.e_shstrndx < H.e_shnum && H.e_shnum < 4096) {
    std::vector<Elf64_Shdr> Sections(H.e_shnum);
    std::size_t Bytes = Sections.size() * sizeof(Elf64_Shdr);
    if (::pread(Fd, Sections.data(), Bytes, static_cast<off_t>(H.e_shoff)) == static_cast<ssize_t>(Bytes)) {
      const Elf64_Shdr &Names = Sections[H.e_shstrndx];
      std::vector<char> Strings(Names.sh_size + 1, '\0');
      if (Names.sh_size < (1u << 20) &&
          ::pread(Fd, Strings.data(), Names.sh_size, static_cast<off_t>(Names.sh_offset)) == static_cast<ssize_t>(Names.sh_size))
        for (const Elf64_Shdr &S : Sections)
          if (S.sh_name < Names.sh_size && std::strcmp(Strings.data() + S.sh_name, ".nv_fatbin") == 0) {
            Found = true;
            break;
          }
    }
  }
  ::close(Fd);
  return Found;
}

int anyCudaLibrary(dl_phdr_info *Info, size_t, void *) { return isCudaLibrary(Info->dlpi_name) ? 1 : 0; }

int anyGpuCode(dl_phdr_info *Info, size_t, void *) {
  if (isCudaLibrary(Info->dlpi_name))
    return 1;
  const char *Path = Info->dlpi_name && *Info->dlpi_name ? Info->dlpi_name : "/proc/self/exe";
  // The vDSO and the loader carry no GPU code.
  if (std::strstr(Path, "linux-vdso") || std::strstr(Path, "/ld-linux"))
    return 0;
  return hasFatbin(Path) ? 1 : 0;
}

int loadCount(dl_phdr_info *Info, size_t, void *Out) {
  *static_cast<unsigned long long *>(Out) = Info->dlpi_adds;
  return 1;  // the first object is enough: every entry carries the same count
}

std::atomic<unsigned long long> SeenLoads{0};

} // namespace

bool elfHasGpuCode(const char *Path) { return hasFatbin(Path); }

bool cudaLibraryPresent() { return dl_iterate_phdr(anyCudaLibrary, nullptr) != 0; }

bool cudaProgramAtLoad() { return dl_iterate_phdr(anyGpuCode, nullptr) != 0; }

bool cudaLibraryLoaded() {
  unsigned long long Loads = 0;
  dl_iterate_phdr(loadCount, &Loads);
  if (Loads == SeenLoads.load(std::memory_order_relaxed))
    return false;
  SeenLoads.store(Loads, std::memory_order_relaxed);
  return cudaLibraryPresent();
}

} // namespace syncwatch::runtime
