// Function summaries across translation units (syncwatch-lint's two phases, docs/ci.md).
//
// Phase one analyzes each unit alone and writes its UnitSummary: for every function it
// defines that other units can call, what a call of it does to the caller's GPU work (work
// it leaves running and on which stream parameter, what it drains, whether it waits on the
// host); and for every call it makes into another unit, the work it leaves in flight there.
// Phase two analyzes again the units that call a summarized function or are called with work
// in flight, each with the slice of the SummaryIndex it needs.
//
// Summaries are data, keyed by clang's USR of the function: they go into the result cache
// and into the file that --write-summaries writes and --summaries reads, so CI shards
// exchange them. No LLVM here: the analyzer fills them in (analyzer/core/CrossUnit.h).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace syncwatch {

class JsonValue;

// A place in another unit, with what is there ("kernel 'scale'", "'cudaStreamSynchronize'").
struct SummaryPlace {
  std::string File;
  unsigned Line = 0;
  std::string What;
  bool operator==(const SummaryPlace &O) const = default;
};

// What calling a function does to its caller's GPU work.
struct ExportedFunction {
  std::string Usr;   // clang's USR: the same function in every unit
  std::string Name;  // as the user writes it, for messages
  SummaryPlace Def;  // its definition
  enum class Left : unsigned char { None, OnParam, Legacy, PerThread, Unknown };
  Left LeftOn = Left::None;  // work that may run past its return, and on which queue
  int LeftParam = -1;        // OnParam: the stream parameter
  SummaryPlace LeftBy;       // the call inside it that issues that work
  bool DrainsAll = false;    // every path waits for all earlier work
  std::vector<unsigned> DrainsParams;  // every path waits for these stream parameters
  std::optional<SummaryPlace> Waits;   // a host wait inside it
  // Nothing a caller's analysis would treat differently from an unknown callee.
  bool trivial() const { return LeftOn == Left::None && !DrainsAll && DrainsParams.empty() && !Waits; }
  bool operator==(const ExportedFunction &O) const = default;
};

// A call of a function that this unit does not define, with this unit's work in flight.
struct ExternalCall {
  std::string Usr;     // the callee
  SummaryPlace Site;   // the call (What: the callee's name)
  struct Work {
    int Param = -1;      // the callee's stream parameter the work's stream goes to; -1: other
    SummaryPlace Issued; // the launch or call that issued it
    // The calls it came through, outermost first, when a caller further up left it: main()
    // in train.cu issues the kernel and calls stage() (Via), stage() in mid.cu calls
    // release() (the Site). At most kMaxVia, the nearest kept.
    std::vector<SummaryPlace> Via;
    bool operator==(const Work &O) const = default;
  };
  std::vector<Work> InFlight;  // may still be running at the call
  bool operator==(const ExternalCall &O) const = default;
};

constexpr std::size_t kMaxVia = 8;

struct UnitSummary {
  std::vector<ExportedFunction> Functions;
  std::vector<ExternalCall> Calls;
  bool operator==(const UnitSummary &O) const = default;
};

// Every unit's summaries, by USR.
class SummaryIndex {
public:
  void add(const UnitSummary &U);
  bool empty() const { return Functions.empty() && Callers.empty(); }
  // The summary of Usr, or nullptr: unknown, or defined differently in several units (an
  // ODR clash, or #ifdef'd per unit): then no summary is trusted.
  const ExportedFunction *function(std::string_view Usr) const;
  // The calls from other units of Usr that leave work in flight.
  const std::vector<ExternalCall> &callersOf(std::string_view Usr) const;
  // What a unit of this summary would be analyzed with in phase two: the non-trivial
  // summaries of the functions it calls and the calls into the functions it defines that
  // leave work in flight, as a canonical text (the cache key's part; "" when there is none,
  // so phase one's result stands).
  std::string sliceFor(const UnitSummary &U) const { return restrictedTo(U).text(); }
  // The same slice as an index, for the analysis.
  SummaryIndex restrictedTo(const UnitSummary &U) const;
  // The index as a canonical text ("" when empty).
  std::string text() const;

private:
  std::map<std::string, ExportedFunction, std::less<>> Functions;
  std::set<std::string, std::less<>> Clashes;
  std::map<std::string, std::vector<ExternalCall>, std::less<>> Callers;
};

// JSON: a unit's summary, and the file of --write-summaries / --summaries
// ({"version": 1, "tool": "syncwatch-lint", "units": [{"file": ..., "summary": ...}]}).
constexpr int kSummaryFileVersion = 1;
std::string unitSummaryJson(const UnitSummary &U);
bool readUnitSummary(const std::string &Text, UnitSummary &Out, std::string &Error);
bool readUnitSummaryValue(const JsonValue &V, UnitSummary &Out, std::string &Error);
std::string summaryFileText(const std::vector<std::pair<std::string, UnitSummary>> &Units);
bool readSummaryFile(const std::string &Text, std::vector<std::pair<std::string, UnitSummary>> &Out,
                     std::string &Error);

} // namespace syncwatch
