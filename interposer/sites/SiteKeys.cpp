#include "SiteKeys.h"

#include "ElfSymbols.h"
#include "FrameClass.h"
#include "LearnedTable.h"
#include "PythonStacks.h"

#include <dlfcn.h>
#include <pthread.h>
#include <unwind.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace syncwatch::runtime {
namespace {

// What is known of a return address, packed in a table value: the frame size to the next
// return address's slot (low 32 bits, signed) and flags.
constexpr std::uint64_t kHasDelta = 1ull << 32;  // the next slot is this one + delta
constexpr std::uint64_t kStop = 1ull << 33;      // the key ends here: the user's frame
constexpr std::uint64_t kVendor = 1ull << 34;    // ends here too when the thread runs Python
constexpr std::uint64_t kStart = 1ull << 35;     // seen as the first frame above CUDA's libraries
constexpr std::uint64_t kUnstable = 1ull << 36;  // its frame size varied: no fast path through it
constexpr std::uint64_t kVendorEnd = 1ull << 37; // ends a key that has seen vendor frames only

// A chain longer than this gets no key (its calls take the slow path, each site by its whole
// stack). A key that stopped at the cap would not hold the user's frame: every call of an API
// through the same deep chain would be one site. Between CUPTI's callback and the user's line
// there may be a statically linked CUDA runtime's frames, named or (without libelf) not: none
// of them ends the key.
constexpr int kChainCap = 32;
// A stack of vendor frames only (a PyTorch autograd thread's launches, deep in libtorch, no
// Python frame, no program frame) has no user's frame to lose: its key ends after this many
// frames, at a frame learned with kVendorEnd, so that the walk stays as short as it was.
constexpr int kVendorChainCap = 12;
constexpr int kMaxUnwind = 128;

LearnedTable<15> ReturnAddresses;  // return address -> delta | flags
LearnedTable<15> Keys;             // site key -> site id

// Per callback: up to 4 offsets (from Base) of the first return address above CUDA's
// libraries; 0 = none. Several when a callback id is reached by several paths (a static
// cudart in the program and another in a plugin).
constexpr int kDomains = 8, kCallbackIds = 1024, kStarts = 8;
std::atomic<std::int32_t> StartOffsets[kDomains][kCallbackIds][kStarts];

std::mutex LearnLock;  // trivially destructible in libstdc++
std::atomic<std::uint32_t> LearnedCount{0}, UnkeyableCount{0}, UnstableCount{0};
// Why fast keys were not found (each a slow path, so counting them costs the fast path nothing).
std::atomic<std::uint64_t> Misses[4] = {};  // SiteKeyStats::Miss*
void miss(int Why) { Misses[Why].fetch_add(1, std::memory_order_relaxed); }

std::atomic<std::int32_t> *startsOf(std::uint32_t Callback) {
  std::uint32_t Domain = Callback >> 16, Id = Callback & 0xffff;
  return Domain < kDomains && Id < kCallbackIds ? StartOffsets[Domain][Id] : nullptr;
}

// The top of this thread's stack: no slot is read at or above it.
thread_local std::uintptr_t StackTop = 0;
thread_local bool StackTopAsked = false;
std::uintptr_t stackTop() {
  if (!StackTopAsked) {
    StackTopAsked = true;
    pthread_attr_t A;
    if (pthread_getattr_np(pthread_self(), &A) == 0) {
      void *Addr = nullptr;
      std::size_t Size = 0;
      if (pthread_attr_getstack(&A, &Addr, &Size) == 0)
        StackTop = reinterpret_cast<std::uintptr_t>(Addr) + Size;
      pthread_attr_destroy(&A);
    }
  }
  return StackTop;
}

bool readSlot(std::uintptr_t Slot, std::uintptr_t Top, std::uint64_t &Value) {
  if (Slot + 8 > Top || (Slot & 7))
    return false;
  std::memcpy(&Value, reinterpret_cast<const void *>(Slot), 8);
  return true;
}

std::uint64_t walk(std::uint32_t Callback, const char *Base, bool Python, const PySiteKey &Py) {
  std::atomic<std::int32_t> *Starts = startsOf(Callback);
  std::uintptr_t Top = stackTop();
  if (!Starts || !Top)
    return 0;
  bool Broken = false;
  for (int K = 0; K < kStarts; ++K) {
    std::int32_t Offset = Starts[K].load(std::memory_order_acquire);
    if (Offset <= 0)
      break;
    std::uintptr_t Slot = reinterpret_cast<std::uintptr_t>(Base) + static_cast<std::uint32_t>(Offset);
    std::uint64_t Ra = 0, Facts = 0;
    if (!readSlot(Slot, Top, Ra) || !ReturnAddresses.find(Ra, Facts) || !(Facts & kStart))
      continue;
    std::uint64_t H = mixKey(0x5357ull << 32 | Callback, Ra);
    bool Program = !(Facts & kVendor);  // a program frame seen: the longer cap
    for (int Level = 1;; ++Level) {
      if ((Facts & kStop) || ((Facts & kVendor) && Python) || ((Facts & kVendorEnd) && !Program) ||
          Level >= kChainCap || !(Facts & kHasDelta))
        break;
      // Only a frame whose size is followed must be stable: under Python the key ends at
      // the first vendor frame, whatever its size (libtorch's realign their stacks).
      if (Facts & kUnstable) {
        miss(SiteKeyStats::MissUnstable);
        return 0;
      }
      Slot += static_cast<std::int64_t>(static_cast<std::int32_t>(Facts & 0xffffffffu));
      if (!readSlot(Slot, Top, Ra) || !ReturnAddresses.find(Ra, Facts)) {
        Broken = true;
        break;
      }
      Program |= !(Facts & kVendor);
      H = mixKey(H, Ra);
    }
    if (Broken)
      break;
    if (Python)
      H = mixKey(mixKey(H, reinterpret_cast<std::uintptr_t>(Py.Code)), static_cast<std::uint32_t>(Py.Offset));
    return H ? H : 1;
  }
  miss(Broken ? SiteKeyStats::MissChain : SiteKeyStats::MissStart);
  return 0;
}

struct UnwoundFrame {
  std::uintptr_t Ip = 0, Cfa = 0;
};
struct Unwound {
  UnwoundFrame Frames[kMaxUnwind];
  int Depth = 0;
};

_Unwind_Reason_Code collect(struct _Unwind_Context *Ctx, void *Arg) {
  auto *U = static_cast<Unwound *>(Arg);
  auto Ip = static_cast<std::uintptr_t>(_Unwind_GetIP(Ctx));
  if (U->Depth >= kMaxUnwind || Ip == 0)  // the outermost frame's return address is 0
    return _URC_END_OF_STACK;
  U->Frames[U->Depth++] = {Ip, static_cast<std::uintptr_t>(_Unwind_GetCFA(Ctx))};
  return _URC_NO_REASON;
}

enum class FrameKind { Cuda, Vendor, Program, Unknown };

struct FrameFacts {
  FrameKind Kind = FrameKind::Unknown;
  bool Stop = false;  // the user's own frame
  std::string Kernel; // a device stub's kernel: its host wrapper is next
};

// Module and (for the program's own modules) function name of a return address.
FrameFacts factsOf(std::uintptr_t Ip, const std::string &PendingKernel) {
  FrameFacts F;
  LoadedModule M;
  if (!moduleAt(Ip - 1, M))
    return F;
  const char *Module = M.Path;
  if (isCudaModule(Module)) {
    F.Kind = FrameKind::Cuda;
    return F;
  }
  if (isVendorModule(Module)) {
    F.Kind = FrameKind::Vendor;
    return F;
  }
  F.Kind = FrameKind::Program;
  std::uintptr_t Pc = Ip - 1;
  std::uintptr_t Address = elfIsFixedAddress(Module) ? Pc : Pc - reinterpret_cast<std::uintptr_t>(M.Base);
  ElfSymbol Sym;
  // No symbol (libelf.so.1 absent, as on the H200 image, or a stripped module): the frame
  // may be the program's own or a statically linked runtime's, so the key goes on to the
  // frames above it (it ends at the outermost frame, or gets none at the cap). Stopping here
  // made every call of an API one site in a program that links cudart statically.
  if (!elfSymbolAt(Module, Address, Sym))
    return F;
  if (Sym.Name.find("__device_stub__") != std::string::npos) {
    F.Kernel = kernelOfStub(Sym.Name);
    return F;
  }
  if (!PendingKernel.empty() && Sym.Name == PendingKernel)
    return F;  // the kernel's host wrapper, which only calls its stub
  F.Stop = !isVendorName(Sym.Name);
  return F;
}

void learnReturnAddress(std::uint64_t Ra, std::uint64_t Facts) {
  std::uint64_t Old = 0;
  if (ReturnAddresses.find(Ra, Old)) {
    if ((Old & kHasDelta) && (Facts & kHasDelta) && (Old & 0xffffffffu) != (Facts & 0xffffffffu) && !(Old & kUnstable)) {
      Facts |= kUnstable;
      UnstableCount.fetch_add(1, std::memory_order_relaxed);
    }
    Facts |= Old & (kUnstable | kStart | kVendorEnd);  // (sticky: a vendor-only thread still walks it)
    if (!(Facts & kHasDelta))
      Facts |= Old & (kHasDelta | 0xffffffffu);
  }
  ReturnAddresses.insert(Ra, Facts);
}

void learnStart(std::uint32_t Callback, std::int64_t Offset) {
  std::atomic<std::int32_t> *Starts = startsOf(Callback);
  if (!Starts || Offset <= 0 || Offset >= (1 << 30))
    return;
  for (int K = 0; K < kStarts; ++K) {
    std::int32_t Have = Starts[K].load(std::memory_order_relaxed);
    if (Have == Offset)
      return;
    if (Have == 0) {
      Starts[K].store(static_cast<std::int32_t>(Offset), std::memory_order_release);
      return;
    }
  }
}

} // namespace

std::uint64_t fastSiteKey(std::uint32_t Callback, const char *Base) {
  PySiteKey Py;
  PySite P = currentPythonSite(Py);
  if (P == PySite::Unlearned) {
    miss(SiteKeyStats::MissPython);
    return 0;
  }
  return walk(Callback, Base, P == PySite::Found, Py);
}

std::uint64_t learnSiteKey(std::uint32_t Callback, const char *Base, RawStack &S) {
  // The Python frames first: naming them classifies their code objects for the walk.
  S.PythonDepth = capturePythonFrames(S.Python);
  auto *U = new Unwound;  // 2 KiB: not on the stack being described
  _Unwind_Backtrace(collect, U);
  // The report-time symbolizer gets the frames as backtrace() would give them.
  S.Depth = 0;
  for (int I = 0; I < U->Depth && S.Depth < kMaxFrames; ++I)
    S.Frames[S.Depth++] = reinterpret_cast<void *>(U->Frames[I].Ip);

  std::lock_guard<std::mutex> G(LearnLock);
  // Frame 0 is this function. The first frame above CUDA's libraries (and syncwatch):
  int First = 1;
  std::string Kernel;
  FrameFacts Facts;
  for (; First < U->Depth; ++First) {
    Facts = factsOf(U->Frames[First].Ip, Kernel);
    if (Facts.Kind != FrameKind::Cuda)
      break;
  }
  std::uint64_t Key = 0;
  if (First < U->Depth && Facts.Kind != FrameKind::Unknown) {
    // A frame's return address lives just below the CFA of the frame it called. libgcc's
    // backtrace callback for frame I reports that callee's CFA (the context's CFA is
    // updated after the callback): the slot is checked against the address it must hold.
    auto SlotOf = [&](int I) { return U->Frames[I].Cfa - 8; };
    bool SlotsHold = true;
    for (int I = First; I < U->Depth && I < First + kChainCap + 1; ++I) {
      std::uint64_t Held = 0;
      std::memcpy(&Held, reinterpret_cast<const void *>(SlotOf(I)), 8);
      SlotsHold = SlotsHold && Held == U->Frames[I].Ip;
    }
    // The chain must end at the user's frame, at a vendor frame under Python (where the
    // Python line names the site), or at the outermost frame; not at the cap. A stack of
    // vendor frames only ends after kVendorChainCap frames. Each frame is classified once (a
    // symbol lookup and a demangling: the slow path's cost), then learned.
    std::vector<FrameFacts> Above;  // frames First.. of the stack
    bool AllVendor = Facts.Kind == FrameKind::Vendor && S.PythonDepth == 0;
    for (int I = First; SlotsHold && I < U->Depth; ++I) {
      Above.push_back(I == First ? Facts : factsOf(U->Frames[I].Ip, Kernel));
      Kernel = Above.back().Kernel;
      AllVendor = AllVendor && Above.back().Kind == FrameKind::Vendor;
      if (!AllVendor && Above.size() > static_cast<std::size_t>(kChainCap))
        break;  // (enough: a program frame is there)
    }
    int Length = 0;
    bool Ends = false, VendorEnd = false;
    if (AllVendor) {
      Length = std::min<int>(static_cast<int>(Above.size()), kVendorChainCap);
      Ends = true;
      VendorEnd = Length < static_cast<int>(Above.size());
    } else {
      for (; Length < static_cast<int>(Above.size()) && Length < kChainCap && !Ends; ++Length) {
        const FrameFacts &F = Above[Length];
        Ends = F.Stop || (F.Kind == FrameKind::Vendor && S.PythonDepth > 0) || First + Length + 1 == U->Depth;
      }
    }
    if (SlotsHold && Ends) {
      for (int K = 0; K < Length; ++K) {
        int I = First + K;
        const FrameFacts &F = Above[K];
        std::uint64_t Value = 0;
        if (F.Stop)
          Value |= kStop;
        if (VendorEnd && K + 1 == Length)
          Value |= kVendorEnd;
        if (F.Kind == FrameKind::Vendor)
          Value |= kVendor;
        if (I == First)
          Value |= kStart;
        if (I + 1 < U->Depth) {
          std::int64_t Delta = static_cast<std::int64_t>(SlotOf(I + 1)) - static_cast<std::int64_t>(SlotOf(I));
          if (Delta > 0 && Delta < (1 << 30))
            Value |= kHasDelta | static_cast<std::uint32_t>(Delta);
        }
        learnReturnAddress(U->Frames[I].Ip, Value);
      }
      learnStart(Callback, static_cast<std::int64_t>(SlotOf(First)) - reinterpret_cast<std::intptr_t>(Base));
      Key = fastSiteKey(Callback, Base);
    }
  }
  delete U;
  (Key ? LearnedCount : UnkeyableCount).fetch_add(1, std::memory_order_relaxed);
  return Key;
}

std::uint32_t siteOfKey(std::uint64_t Key) {
  std::uint64_t Site = 0;
  return Key && Keys.find(Key, Site) ? static_cast<std::uint32_t>(Site) : 0;
}

void publishSiteKey(std::uint64_t Key, std::uint32_t Site) {
  std::lock_guard<std::mutex> G(LearnLock);
  Keys.insert(Key, Site);
}

SiteKeyStats siteKeyStats() {
  SiteKeyStats S;
  S.Learned = LearnedCount.load();
  S.Unkeyable = UnkeyableCount.load();
  S.UnstableFrames = UnstableCount.load();
  for (int I = 0; I < 4; ++I)
    S.Misses[I] = Misses[I].load();
  std::lock_guard<std::mutex> G(LearnLock);
  S.ReturnAddresses = ReturnAddresses.size();
  S.Keys = Keys.size();
  return S;
}

} // namespace syncwatch::runtime
