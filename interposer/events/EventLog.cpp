#include "EventLog.h"

#include <istream>
#include <limits>
#include <ostream>
#include <sstream>
#include <mutex>
#include <set>
#include <utility>

#include "syncwatch/catalogue.h"
#include "syncwatch/evidence_number.h"

namespace syncwatch::runtime {

std::string_view streamFlagName(StreamFlag F) {
  switch (F) {
  case StreamFlag::Legacy: return "legacy";
  case StreamFlag::Blocking: return "blocking";
  case StreamFlag::NonBlocking: return "nonblocking";
  case StreamFlag::Unknown: return "unknown";
  }
  return "unknown";
}


static std::string humanBytes(std::uint64_t B) {
  char Buf[32];
  if (B >= (1ull << 20))
    std::snprintf(Buf, sizeof Buf, "%.0f MB", B / 1048576.0);
  else if (B >= 1024)
    std::snprintf(Buf, sizeof Buf, "%.0f KB", B / 1024.0);
  else
    std::snprintf(Buf, sizeof Buf, "%llu B", static_cast<unsigned long long>(B));
  return Buf;
}

std::string GpuWork::describe() const {
  switch (Kind) {
  case GpuKind::Kernel: return "kernel '" + std::string(Name) + "'";
  case GpuKind::Memset: return "memset of " + humanBytes(Bytes);
  case GpuKind::Memcpy:
    return "memcpy " + std::string(copyKindName(CopyKind)) + " of " + humanBytes(Bytes);
  }
  return "";
}

std::string_view copyKindName(std::uint8_t CopyKind) {
  static const char *Kinds[] = {"", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  return CopyKind < sizeof(Kinds) / sizeof(*Kinds) ? Kinds[CopyKind] : "";
}

std::string_view memoryKindName(MemoryKind K) {
  switch (K) {
  case MemoryKind::Pageable: return "Pageable";
  case MemoryKind::Pinned: return "Pinned";
  case MemoryKind::Device: return "Device";
  default: return "Unknown";
  }
}

std::string streamLabel(std::uint32_t Id, const std::map<std::uint32_t, StreamInfo> &Streams) {
  auto It = Streams.find(Id);
  if (It == Streams.end())
    return "stream " + std::to_string(Id);
  return std::string(streamFlagName(It->second.Flag)) + " stream " + std::to_string(Id) + " (priority " +
         std::to_string(It->second.Priority) + ")";
}

const StreamInfo *EventLog::stream(std::uint32_t Id) const {
  for (const StreamInfo &S : Streams)
    if (S.Stream == Id)
      return &S;
  return nullptr;
}

// Tabs and newlines cannot appear in a field: kernel names and paths are sanitized.
static std::string field(std::string_view V) {
  std::string S(V);
  std::string Out = S;
  for (char &C : Out)
    if (C == '\t' || C == '\n' || C == '\r')
      C = ' ';
  return Out.empty() ? "-" : Out;
}

void writeEventLog(std::ostream &Out, const EventLog &Log) {
  Out << "# syncwatch-events 1\n";
  for (const auto &[K, V] : Log.Process.pairs())
    Out << "I\t" << field(K) << '\t' << field(V) << '\n';
  if (Log.KernelsTracedFrom)
    Out << "T\t" << *Log.KernelsTracedFrom << '\n';
  for (const StreamInfo &S : Log.Streams)
    Out << "S\t" << S.Stream << '\t' << streamFlagName(S.Flag) << '\t' << S.Priority << '\n';
  for (const ApiCall &C : Log.Calls) {
    Out << "C\t" << C.Correlation << '\t' << C.Thread << '\t' << field(C.Api) << '\t' << C.Enter
        << '\t' << C.Exit << '\t' << C.Site << (C.CreatedContext ? "\tctx" : "");
    if (C.OffTorchStream)
      Out << "\ttorch=" << (*C.OffTorchStream == ApiCall::kUnknownStream ? std::string("?") : std::to_string(*C.OffTorchStream));
    if (const CaptureNote *N = C.capture()) {
      if (N->Error)
        Out << "\terr=" << N->Error;
      if (N->knownCapture() || N->torch())
        Out << "\tcapture=" << captureNoteText(*N);
    }
    Out << '\n';
  }
  for (const GpuWork &W : Log.Work) {
    switch (W.Kind) {
    case GpuKind::Kernel:
      Out << "K\t" << W.Correlation << '\t' << W.Stream << '\t' << W.Start << '\t' << W.End << '\t'
          << field(W.Name) << '\n';
      break;
    case GpuKind::Memcpy:
      Out << "M\t" << W.Correlation << '\t' << W.Stream << '\t' << W.Start << '\t' << W.End << '\t'
          << W.Bytes << '\t' << unsigned(W.CopyKind) << '\t' << unsigned(W.Src) << '\t'
          << unsigned(W.Dst) << '\t' << (W.Async ? 1 : 0) << '\n';
      break;
    case GpuKind::Memset:
      Out << "Z\t" << W.Correlation << '\t' << W.Stream << '\t' << W.Start << '\t' << W.End << '\t'
          << W.Bytes << '\n';
      break;
    }
  }
  if (Log.CountsAllCalls)
    Out << "V\tcounts\n";
  for (const UnwatchedSpan &U : Log.LaunchesUnwatched)
    Out << "L\t" << U.From << '\t' << U.To << '\n';
  for (const CountedCalls &N : Log.Counted)
    Out << "N\t" << N.Site << '\t' << field(N.Api) << '\t' << N.Calls << '\t' << N.Judged << '\n';
  for (const StepSpan &W : Log.Steps)
    Out << "W\t" << W.Thread << '\t' << W.Start << '\t' << W.End << '\t' << field(W.Name) << '\n';
  for (const auto &[Tid, Name] : Log.ThreadNames)
    Out << "H\t" << Tid << '\t' << field(Name) << '\n';
  for (const auto &[Id, F] : Log.Sites) {
    Out << "F\t" << Id << '\t' << field(F.Function) << '\t' << field(F.File) << '\t' << F.Line << '\n';
    for (const SourceFrame &P : F.Python)
      Out << "P\t" << Id << '\t' << field(P.Function) << '\t' << field(P.File) << '\t' << P.Line << '\n';
  }
  Out << "E\t" << Log.Calls.size() + Log.Work.size() << '\n';
}

namespace {

std::vector<std::string> split(const std::string &Line) {
  std::vector<std::string> Out;
  std::size_t Start = 0;
  while (true) {
    std::size_t Tab = Line.find('\t', Start);
    Out.push_back(Line.substr(Start, Tab == std::string::npos ? std::string::npos : Tab - Start));
    if (Tab == std::string::npos)
      return Out;
    Start = Tab + 1;
  }
}

// A record's numbers, typed and range-checked by the readers' shared rules
// (syncwatch/evidence_number.h): a value past its type's range used to wrap (an exit time
// past 2^64 became "801505682.08 s"); it is refused with the field named.
class Fields {
public:
  Fields(const std::vector<std::string> &F, std::string Record) : F(F), Record(std::move(Record)) {}

  template <typename T> bool num(std::size_t I, const char *Name, T &V) {
    std::uint64_t X = 0;
    if (I >= F.size()) {
      Why = Record + ": no " + Name;
      return false;
    }
    if (std::string E = readCountText(Name, F[I], X, std::numeric_limits<T>::max()); !E.empty()) {
      Why = Record + ": " + E;
      return false;
    }
    V = static_cast<T>(X);
    return true;
  }

  // A signed field (a stream's priority, negative for the urgent ones).
  bool integer(std::size_t I, const char *Name, std::int32_t &V) {
    bool Negative = I < F.size() && F[I].size() > 1 && F[I][0] == '-';
    std::uint64_t X = 0;
    std::string Digits = I < F.size() ? F[I].substr(Negative) : "";
    std::uint64_t Max = Negative ? 1ull << 31 : (1ull << 31) - 1;
    if (I >= F.size() || !readCountText(Name, Digits, X, Max).empty()) {
      Why = Record + ": " + Name + " '" + (I < F.size() ? F[I] : "") + "' is not a 32-bit whole number";
      return false;
    }
    V = static_cast<std::int32_t>(Negative ? -static_cast<std::int64_t>(X) : static_cast<std::int64_t>(X));
    return true;
  }

  std::string Why;

private:
  const std::vector<std::string> &F;
  std::string Record;
};

std::string unfield(const std::string &S) { return S == "-" ? "" : S; }

// One record of each type read into Log; "" or why it is malformed.

std::string readStreamRecord(const std::vector<std::string> &F, EventLog &Log) {
  if (F.size() < 4)
    return "stream record needs 4 fields";
  StreamInfo S;
  Fields X(F, "stream record");
  if (!X.num(1, "stream", S.Stream) || !X.integer(3, "priority", S.Priority))
    return X.Why;
  S.Flag = F[2] == "legacy" ? StreamFlag::Legacy
           : F[2] == "blocking" ? StreamFlag::Blocking
           : F[2] == "nonblocking" ? StreamFlag::NonBlocking
                                   : StreamFlag::Unknown;
  Log.Streams.push_back(S);
  return "";
}

std::string readCallRecord(const std::vector<std::string> &F, EventLog &Log) {
  ApiCall C;
  Fields X(F, "malformed API call record");
  if (F.size() < 7)
    return "malformed API call record (7 fields or more)";
  if (!X.num(1, "correlation", C.Correlation) || !X.num(2, "thread", C.Thread) || !X.num(4, "enter_ns", C.Enter) ||
      !X.num(5, "exit_ns", C.Exit) || !X.num(6, "site", C.Site))
    return X.Why;
  C.Api = internApiName(unfield(F[3]));
  std::optional<CaptureNote> Note;
  std::int32_t Error = 0;
  // Optional flags after the site, in any order; unknown ones are a newer recorder's.
  for (std::size_t K = 7; K < F.size(); ++K) {
    if (F[K] == "ctx") {
      C.CreatedContext = true;
    } else if (F[K].compare(0, 6, "torch=") == 0) {
      std::uint64_t Stream = ApiCall::kUnknownStream;
      if (F[K] != "torch=?" && !readCountText("torch=", F[K].substr(6), Stream, UINT32_MAX).empty())
        return "malformed API call record (torch=)";
      C.OffTorchStream = static_cast<std::uint32_t>(Stream);
    } else if (F[K].compare(0, 4, "err=") == 0) {
      std::uint64_t E = 0;
      if (!readCountText("err=", F[K].substr(4), E, INT32_MAX).empty())
        return "malformed API call record (err=)";
      Error = static_cast<std::int32_t>(E);
    } else if (F[K].compare(0, 8, "capture=") == 0) {
      Note = readCaptureNote(std::string_view(F[K]).substr(8));
      if (!Note)
        return "malformed API call record (capture=)";
    }
  }
  if (Error && !Note) {  // a capture error with no capture known
    Note = CaptureNote();
    Note->What = CaptureNote::Role::Breaks;
  }
  if (Note) {
    Note->Error = Error;
    C.CaptureNumber = internCaptureNote(*Note);
  }
  Log.Calls.push_back(C);
  return "";
}

// K (kernel), M (copy) or Z (memset).
std::string readGpuWorkRecord(const std::vector<std::string> &F, EventLog &Log) {
  const std::string &T = F[0];
  GpuWork W;
  W.Kind = T == "K" ? GpuKind::Kernel : T == "M" ? GpuKind::Memcpy : GpuKind::Memset;
  std::size_t Need = T == "K" ? 6 : T == "M" ? 10 : 6;
  Fields X(F, "malformed GPU activity record");
  if (F.size() < Need)
    return "malformed GPU activity record (" + std::to_string(Need) + " fields or more)";
  if (!X.num(1, "correlation", W.Correlation) || !X.num(2, "stream", W.Stream) || !X.num(3, "start_ns", W.Start) ||
      !X.num(4, "end_ns", W.End))
    return X.Why;
  if (T == "K")
    W.Name = internKernelName(unfield(F[5]));
  else if (!X.num(5, "bytes", W.Bytes))
    return X.Why;
  if (T == "M") {
    unsigned S, D, A;
    if (!X.num(6, "copy_kind", W.CopyKind) || !X.num(7, "src_kind", S) || !X.num(8, "dst_kind", D) ||
        !X.num(9, "async", A))
      return X.Why;
    W.Src = static_cast<MemoryKind>(S <= 3 ? S : 0);
    W.Dst = static_cast<MemoryKind>(D <= 3 ? D : 0);
    W.Async = A != 0;
  }
  Log.Work.push_back(W);
  return "";
}

std::string readUnwatchedRecord(const std::vector<std::string> &F, EventLog &Log) {
  UnwatchedSpan U;
  Fields X(F, "malformed unwatched-launches record");
  if (!X.num(1, "off_ns", U.From) || !X.num(2, "on_ns", U.To))
    return X.Why;
  if (U.To < U.From)
    return "malformed unwatched-launches record (on_ns before off_ns)";
  Log.LaunchesUnwatched.push_back(U);
  return "";
}

std::string readStepRecord(const std::vector<std::string> &F, EventLog &Log) {
  StepSpan W;
  Fields X(F, "malformed step record");
  if (F.size() < 5)
    return "malformed step record (5 fields)";
  if (!X.num(1, "thread", W.Thread) || !X.num(2, "start_ns", W.Start) || !X.num(3, "end_ns", W.End))
    return X.Why;
  if (W.End < W.Start)
    return "malformed step record (end_ns before start_ns)";
  W.Name = unfield(F[4]);
  Log.Steps.push_back(W);
  return "";
}

std::string readThreadNameRecord(const std::vector<std::string> &F, EventLog &Log) {
  std::uint64_t Tid = 0;
  Fields X(F, "malformed thread-name record");
  if (F.size() < 3)
    return "malformed thread-name record (3 fields)";
  if (!X.num(1, "thread", Tid))
    return X.Why;
  Log.ThreadNames[Tid] = unfield(F[2]);
  return "";
}

std::string readCountedRecord(const std::vector<std::string> &F, EventLog &Log) {
  CountedCalls C;
  Fields X(F, "malformed counted-calls record");
  if (F.size() < 5)
    return "malformed counted-calls record (5 fields)";
  if (!X.num(1, "site", C.Site) || !X.num(3, "calls", C.Calls) || !X.num(4, "judged", C.Judged))
    return X.Why;
  if (C.Judged > C.Calls)
    return "malformed counted-calls record (more judged than calls)";
  C.Api = internApiName(unfield(F[2]));
  Log.Counted.push_back(C);
  return "";
}

// site function file line: the site's native frame (F) or one of its Python frames (P)
std::string readFrameRecord(const std::vector<std::string> &F, EventLog &Log) {
  const std::string &T = F[0];
  std::uint32_t Id;
  SourceFrame Frame;
  Fields X(F, T == "F" ? "malformed call-site record" : "malformed Python frame record");
  if (F.size() < 5)
    return T == "F" ? "malformed call-site record (5 fields)" : "malformed Python frame record (5 fields)";
  if (!X.num(1, "site", Id) || !X.num(4, "line", Frame.Line))
    return X.Why;
  Frame.Function = unfield(F[2]);
  Frame.File = unfield(F[3]);
  SiteFrame &Site = Log.Sites[Id];
  if (T == "F")
    static_cast<SourceFrame &>(Site) = Frame;  // its Python frames may have come first
  else
    Site.Python.push_back(Frame);
  return "";
}

// What the reader has seen so far, for the checks at the end.
struct ReadState {
  bool Header = false, HasIdentity = false, Ended = false, AnyRecord = false;
};

// One record (a line that is not a comment), by its type; "" or why it is malformed.
std::string readRecord(const std::vector<std::string> &F, EventLog &Log, ReadState &St) {
  const std::string &T = F[0];
  if (T == "I") {
    if (F.size() < 3)
      return "process record needs a key and a value";
    Log.Process.set(F[1], unfield(F[2]));
    St.HasIdentity = true;
  } else if (T == "E") {
    St.Ended = true;
  } else if (T == "T") {
    std::uint64_t From = 0;
    Fields X(F, "kernel-tracing record");
    if (!X.num(1, "since_ns", From))
      return X.Why;
    Log.KernelsTracedFrom = From;
  } else if (T == "S") {
    return readStreamRecord(F, Log);
  } else if (T == "C") {
    return readCallRecord(F, Log);
  } else if (T == "K" || T == "M" || T == "Z") {
    return readGpuWorkRecord(F, Log);
  } else if (T == "V") {
    Log.CountsAllCalls = F.size() >= 2 && F[1] == "counts";
  } else if (T == "L") {
    return readUnwatchedRecord(F, Log);
  } else if (T == "W") {
    return readStepRecord(F, Log);
  } else if (T == "H") {
    return readThreadNameRecord(F, Log);
  } else if (T == "N") {
    return readCountedRecord(F, Log);
  } else if (T == "F" || T == "P") {
    return readFrameRecord(F, Log);
  }
  // other record types: written by a newer recorder, skipped
  return "";
}

// A comment line; the header's says the format version: only versions this reader knows,
// a newer recorder's format is refused, not misread. "" or why it is refused.
std::string readComment(const std::string &Line, ReadState &St) {
  if (Line.rfind("# syncwatch-events ", 0) == 0) {
    std::string Version = Line.substr(19);
    while (!Version.empty() && Version.back() == ' ')
      Version.pop_back();
    if (Version != "1")
      return "recording format version '" + Version + "' is not one this syncwatch reads (1)";
    St.Header = true;
  }
  return "";
}

} // namespace

ParseResult readEventLog(std::istream &In) {
  ParseResult R;
  std::string Line;
  unsigned N = 0;
  ReadState St;
  auto Fail = [&](const std::string &Why) {
    R.Error = "line " + std::to_string(N) + ": " + Why;
    return R;
  };
  while (std::getline(In, Line)) {
    ++N;
    // The recorder writes '\n' alone. A CR at a line's end (an editor's or git's
    // core.autocrlf conversion) made the last field of every record unreadable, said as
    // "needs a time" and never named.
    if (!Line.empty() && Line.back() == '\r')
      return Fail("ends in a carriage return ('\\r'): the recording has Windows line ends (CRLF), from an "
                  "editor or git's core.autocrlf; syncwatch writes '\\n' alone (convert it back: dos2unix)");
    if (Line.empty())
      continue;
    if (Line[0] == '#') {
      if (std::string Why = readComment(Line, St); !Why.empty())
        return Fail(Why);
      continue;
    }
    if (!St.Header)
      return Fail("not a syncwatch event stream (no '# syncwatch-events 1' header)");
    St.AnyRecord = true;
    if (std::string Why = readRecord(split(Line), R.Log, St); !Why.empty())
      return Fail(Why);
  }
  if (!St.Header)
    R.Error = "empty or not a syncwatch event stream";
  else if ((St.HasIdentity || !St.AnyRecord) && !St.Ended)
    // Every recorder since process records writes them first and the end record last; the
    // older ones wrote a record for every call. A header alone is a recording cut at its
    // first line end, not an idle run.
    R.Error = "truncated: cut short after line " + std::to_string(N) +
              " (no end record, which the recorder writes last: the process was killed or the disk filled while "
              "writing it)";
  return R;
}

} // namespace syncwatch::runtime
