// Site keys: which call site a CUDA call comes from, in a few loads and table lookups
// instead of an unwind (libgcc's unwinder costs about 100 ns a frame, and a CUDA call is
// 10 to 60 frames deep under syncwatch's callback).
//
// A site's first occurrence takes the slow path: a full unwind, which also learns where
// the return addresses of that stack live. A function's frame size at a given return
// address is fixed by its compiler (no alloca there: checked, see below), so the slot of
// the caller's return address is "this slot + the frame size learned for this return
// address". Learned once per callback id: the slot of the first return address above the
// CUDA libraries, relative to the frame of the function asking (siteOfCall: always at the
// same depth under the callback); then per return address: its frame size and whether it
// is where the key stops - the first frame of the user's program that is not CUDA's own
// code compiled into it (static cudart, cuda_runtime.h's templates, a kernel's device stub
// and host wrapper), or in a Python process the first frame above CUDA's libraries.
// The key is the chain of return addresses up to that frame, plus the innermost user
// Python frame's code object and instruction offset (PythonStacks.h).
//
// What can go wrong, and what happens then: a slot read at a learned offset that holds no
// learned return address -> unknown -> slow path; a return address whose frame size was
// seen to differ (alloca, stack realignment) -> marked unstable -> slow path whenever it is
// met. A stale return address left in a slot by another call path that happens to be a
// learned one would give a wrong key; the walk checks every hop against the learned table,
// so that needs a whole chain of learned addresses at the learned offsets.
#pragma once

#include "CallSites.h"

#include <cstdint>

namespace syncwatch::runtime {

// Callback: (domain << 16) | callback id. Base: __builtin_frame_address(0) of the function
// that asks, which must be at the same depth under the callback each time.
// The key of the current call, or 0 when it is not known yet (take the slow path).
std::uint64_t fastSiteKey(std::uint32_t Callback, const char *Base);

// The slow path: unwinds into S (native frames and Python frames), learns the slots on the
// way, and returns the call's key, or 0 when this stack cannot be keyed (then every call
// from it takes the slow path).
std::uint64_t learnSiteKey(std::uint32_t Callback, const char *Base, RawStack &S);

// Key -> site id, once the slow path interned the stack; 0 for a key not published yet.
std::uint32_t siteOfKey(std::uint64_t Key);
void publishSiteKey(std::uint64_t Key, std::uint32_t Site);

// For the benchmark and tests: how the slow path went so far.
struct SiteKeyStats {
  std::uint32_t Learned = 0;       // slow paths that produced a key
  std::uint32_t Unkeyable = 0;     // slow paths that could not
  std::uint32_t UnstableFrames = 0;
  std::uint32_t ReturnAddresses = 0, Keys = 0;
  // Fast keys not found, by why: a Python code object not seen yet, no learned start slot
  // held a start, a frame on the chain changed size, a slot on the chain held an unknown
  // return address (a new caller).
  enum { MissPython, MissStart, MissUnstable, MissChain };
  std::uint64_t Misses[4] = {};
};
SiteKeyStats siteKeyStats();

} // namespace syncwatch::runtime
