// The order syncwatch-lint's first phase takes units in when they exchange summaries. A
// unit judged after the units it calls into, and after those that call it with work in
// flight, has its whole slice of their summaries at the end of its own parse
// (KnownSummaries.h) and needs no second parse. Which units those are shows only once they
// are parsed; the guess: first the units named as the headers that (at least two of) the
// units analyzed so far read - matrix.cu, where every AMGX unit reads matrix.h - then the
// database's order.
// The order changes how long a run takes, never what it finds.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace syncwatch {

class UnitOrder {
public:
  explicit UnitOrder(const std::vector<std::string> &Files);
  // The next unit to analyze (an index into Files): the one whose name the most finished
  // units (at least two) read as a header's, the first in Files among equals; nullopt when
  // none is left.
  std::optional<std::size_t> next();
  // A unit was analyzed and read these files (UnitResult::Deps).
  void done(const std::vector<std::string> &Deps);

private:
  std::mutex M;
  // Each file's name without directory and extension, numbered: next() compares counts,
  // not strings, over the units left (a database of 10,000 units asks 10,000 times).
  std::map<std::string, unsigned, std::less<>> NameIds;
  std::vector<unsigned> NameOf;    // by file
  std::vector<unsigned> Readers;   // by name: finished units that read a header of that name
  std::vector<bool> Taken;
  std::size_t FirstLeft = 0;       // no unit before it is left
};

} // namespace syncwatch
