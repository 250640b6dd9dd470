#include "EventLog.h"

#include <istream>
#include <ostream>
#include <sstream>
#include <mutex>
#include <set>

#include "syncwatch/catalogue.h"

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

std::string_view internApiName(std::string_view Name) {
  if (const ApiInfo *A = findApi(Name))
    return A->Name;
  // Never destroyed: capture may still name a call from its exit-time flush, after the
  // C++ runtime has begun destroying statics.
  static auto *M = new std::mutex;
  static auto *Names = new std::set<std::string, std::less<>>;
  std::lock_guard<std::mutex> L(*M);
  return *Names->emplace(Name).first;
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
  case GpuKind::Kernel: return "kernel '" + Name + "'";
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

bool toU64(const std::string &S, std::uint64_t &V) {
  if (S.empty())
    return false;
  V = 0;
  for (char C : S) {
    if (C < '0' || C > '9')
      return false;
    V = V * 10 + (C - '0');
  }
  return true;
}

template <typename T> bool toU(const std::string &S, T &V) {
  std::uint64_t X;
  if (!toU64(S, X))
    return false;
  V = static_cast<T>(X);
  return true;
}

std::string unfield(const std::string &S) { return S == "-" ? "" : S; }

} // namespace

ParseResult readEventLog(std::istream &In) {
  ParseResult R;
  std::string Line;
  unsigned N = 0;
  bool Header = false, HasIdentity = false, Ended = false;
  auto Fail = [&](const std::string &Why) {
    R.Error = "line " + std::to_string(N) + ": " + Why;
    return R;
  };
  while (std::getline(In, Line)) {
    ++N;
    if (Line.empty())
      continue;
    if (Line[0] == '#') {
      if (Line.rfind("# syncwatch-events ", 0) == 0) {
        // Only versions this reader knows: a newer recorder's format is refused, not misread.
        std::string Version = Line.substr(19);
        while (!Version.empty() && (Version.back() == ' ' || Version.back() == '\r'))
          Version.pop_back();
        if (Version != "1")
          return Fail("recording format version '" + Version + "' is not one this syncwatch reads (1)");
        Header = true;
      }
      continue;
    }
    if (!Header)
      return Fail("not a syncwatch event stream (no '# syncwatch-events 1' header)");
    std::vector<std::string> F = split(Line);
    const std::string &T = F[0];
    if (T == "I") {
      if (F.size() < 3)
        return Fail("process record needs a key and a value");
      R.Log.Process.set(F[1], unfield(F[2]));
      HasIdentity = true;
    } else if (T == "E") {
      Ended = true;
    } else if (T == "T") {
      std::uint64_t From = 0;
      if (F.size() < 2 || !toU64(F[1], From))
        return Fail("kernel-tracing record needs a time");
      R.Log.KernelsTracedFrom = From;
    } else if (T == "S") {
      if (F.size() < 4)
        return Fail("stream record needs 4 fields");
      StreamInfo S;
      if (!toU(F[1], S.Stream))
        return Fail("bad stream id");
      S.Flag = F[2] == "legacy" ? StreamFlag::Legacy
               : F[2] == "blocking" ? StreamFlag::Blocking
               : F[2] == "nonblocking" ? StreamFlag::NonBlocking
                                       : StreamFlag::Unknown;
      S.Priority = std::atoi(F[3].c_str());
      R.Log.Streams.push_back(S);
    } else if (T == "C") {
      ApiCall C;
      if (F.size() < 7 || !toU(F[1], C.Correlation) || !toU(F[2], C.Thread) ||
          !toU(F[4], C.Enter) || !toU(F[5], C.Exit) || !toU(F[6], C.Site))
        return Fail("malformed API call record");
      C.Api = internApiName(unfield(F[3]));
      // Optional flags after the site, in any order; unknown ones are a newer recorder's.
      for (std::size_t K = 7; K < F.size(); ++K) {
        if (F[K] == "ctx") {
          C.CreatedContext = true;
        } else if (F[K].compare(0, 6, "torch=") == 0) {
          std::uint32_t Stream = ApiCall::kUnknownStream;
          if (F[K] != "torch=?" && !toU(F[K].substr(6), Stream))
            return Fail("malformed API call record (torch=)");
          C.OffTorchStream = Stream;
        }
      }
      R.Log.Calls.push_back(C);
    } else if (T == "K" || T == "M" || T == "Z") {
      GpuWork W;
      W.Kind = T == "K" ? GpuKind::Kernel : T == "M" ? GpuKind::Memcpy : GpuKind::Memset;
      std::size_t Need = T == "K" ? 6 : T == "M" ? 10 : 6;
      if (F.size() < Need || !toU(F[1], W.Correlation) || !toU(F[2], W.Stream) ||
          !toU(F[3], W.Start) || !toU(F[4], W.End))
        return Fail("malformed GPU activity record");
      if (T == "K") {
        W.Name = unfield(F[5]);
      } else if (!toU(F[5], W.Bytes)) {
        return Fail("bad byte count");
      }
      if (T == "M") {
        unsigned K, S, D, A;
        if (!toU(F[6], K) || !toU(F[7], S) || !toU(F[8], D) || !toU(F[9], A))
          return Fail("malformed memcpy record");
        W.CopyKind = static_cast<std::uint8_t>(K);
        W.Src = static_cast<MemoryKind>(S <= 3 ? S : 0);
        W.Dst = static_cast<MemoryKind>(D <= 3 ? D : 0);
        W.Async = A != 0;
      }
      R.Log.Work.push_back(W);
    } else if (T == "V") {
      R.Log.CountsAllCalls = F.size() >= 2 && F[1] == "counts";
    } else if (T == "L") {
      UnwatchedSpan U;
      if (F.size() < 3 || !toU64(F[1], U.From) || !toU64(F[2], U.To) || U.To < U.From)
        return Fail("malformed unwatched-launches record");
      R.Log.LaunchesUnwatched.push_back(U);
    } else if (T == "W") {
      StepSpan W;
      if (F.size() < 5 || !toU64(F[1], W.Thread) || !toU64(F[2], W.Start) || !toU64(F[3], W.End) || W.End < W.Start)
        return Fail("malformed step record");
      W.Name = unfield(F[4]);
      R.Log.Steps.push_back(W);
    } else if (T == "H") {
      std::uint64_t Tid = 0;
      if (F.size() < 3 || !toU64(F[1], Tid))
        return Fail("malformed thread-name record");
      R.Log.ThreadNames[Tid] = unfield(F[2]);
    } else if (T == "N") {
      CountedCalls C;
      if (F.size() < 5 || !toU(F[1], C.Site) || !toU64(F[3], C.Calls) || !toU64(F[4], C.Judged) || C.Judged > C.Calls)
        return Fail("malformed counted-calls record");
      C.Api = internApiName(unfield(F[2]));
      R.Log.Counted.push_back(C);
    } else if (T == "F" || T == "P") {
      // site function file line: the site's native frame (F) or one of its Python frames (P)
      std::uint32_t Id;
      SourceFrame Frame;
      if (F.size() < 5 || !toU(F[1], Id) || !toU(F[4], Frame.Line))
        return Fail(T == "F" ? "malformed call-site record" : "malformed Python frame record");
      Frame.Function = unfield(F[2]);
      Frame.File = unfield(F[3]);
      SiteFrame &Site = R.Log.Sites[Id];
      if (T == "F")
        static_cast<SourceFrame &>(Site) = Frame;  // its Python frames may have come first
      else
        Site.Python.push_back(Frame);
    }
    // other record types: written by a newer recorder, skipped
  }
  if (!Header)
    R.Error = "empty or not a syncwatch event stream";
  else if (HasIdentity && !Ended)
    R.Error = "cut short after line " + std::to_string(N) +
              " (no end record: the process was killed or the disk filled while writing it)";
  return R;
}

} // namespace syncwatch::runtime
