// Call sites: a raw stack captured cheaply at API entry, and turned into the first user
// frame (function, file:line) once per distinct site, at report time.
#pragma once

#include "../events/EventLog.h"
#include "PythonStacks.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace syncwatch::runtime {

// Deep enough for a library's own call chain above the user's frame (cufftPlan1d's
// first copies were 24 frames deep on the H200 and lost their site).
constexpr int kMaxFrames = 64;

struct RawStack {
  void *Frames[kMaxFrames];
  int Depth = 0;
  PyFrameRef Python[kMaxPyFrames];  // the user's Python frames, innermost first
  int PythonDepth = 0;
  std::uint64_t hash() const;
};

void captureStack(RawStack &S);

// One frame of a stack as addr2line -i names it: each return address is a group, its
// inlined calls innermost first.
struct Symbolized {
  std::string Function, File;
  unsigned Line = 0;
};
// The user's frame among a stack's symbolized frames (outside vendor names and headers, not
// a kernel's device stub nor its host wrapper); false when none has a line.
bool pickUserFrame(const std::vector<std::vector<Symbolized>> &Groups, Symbolized &Out);

// Interns stacks: the same stack gets the same site id. Not thread-safe on its own; the
// recorder calls it under its lock.
class SiteTable {
public:
  std::uint32_t intern(const RawStack &S);
  // The first frame outside CUDA, CUPTI, syncwatch and the C/C++ runtimes, symbolized.
  SiteFrame resolve(std::uint32_t Site) const;
  std::size_t size() const { return Stacks.size(); }

private:
  std::unordered_map<std::uint64_t, std::uint32_t> Ids;
  std::vector<RawStack> Stacks; // index = site id - 1
};

} // namespace syncwatch::runtime
