#include "CaptureNote.h"

#include "ApiNames.h"

#include <charconv>
#include <deque>
#include <mutex>
#include <vector>

namespace syncwatch::runtime {

namespace {
// Never destroyed, as internApiName's names: the exit-time flush may still write them. A
// deque: its elements never move.
struct NoteTable {
  std::mutex M;
  std::deque<CaptureNote> Notes;
};
NoteTable &notes() {
  static auto *T = new NoteTable;
  return *T;
}
} // namespace

const CaptureNote *internCaptureNote(const CaptureNote &N) {
  NoteTable &T = notes();
  std::lock_guard<std::mutex> L(T.M);
  if (T.Notes.size() >= kMaxCaptureNotes)
    return nullptr;
  return &T.Notes.emplace_back(N);
}

std::uint32_t captureNoteNumber(const CaptureNote *N) {
  if (!N)
    return 0;
  NoteTable &T = notes();
  std::lock_guard<std::mutex> L(T.M);
  for (std::size_t I = T.Notes.size(); I-- > 0;)  // (the newest: a note is numbered as it is made)
    if (&T.Notes[I] == N)
      return static_cast<std::uint32_t>(I + 1);
  return 0;
}

const CaptureNote *captureNoteOf(std::uint32_t Number) {
  NoteTable &T = notes();
  std::lock_guard<std::mutex> L(T.M);
  return Number && Number <= T.Notes.size() ? &T.Notes[Number - 1] : nullptr;
}

std::string_view captureModeName(CaptureMode M) {
  switch (M) {
  case CaptureMode::Global: return "global";
  case CaptureMode::ThreadLocal: return "thread-local";
  case CaptureMode::Relaxed: return "relaxed";
  case CaptureMode::Unknown: break;
  }
  return "unknown";
}

namespace {

constexpr std::string_view RoleNames[] = {"begin", "end", "breaks", "after"};

std::vector<std::string_view> splitCommas(std::string_view S) {
  std::vector<std::string_view> Parts;
  for (std::size_t From = 0;;) {
    std::size_t Comma = S.find(',', From);
    Parts.push_back(S.substr(From, Comma == std::string_view::npos ? std::string_view::npos : Comma - From));
    if (Comma == std::string_view::npos)
      return Parts;
    From = Comma + 1;
  }
}

template <typename T> bool number(std::string_view S, T &Out) {
  auto [P, Ec] = std::from_chars(S.data(), S.data() + S.size(), Out);
  return Ec == std::errc() && P == S.data() + S.size() && !S.empty();
}

} // namespace

std::string captureNoteText(const CaptureNote &N) {
  std::string S(RoleNames[static_cast<int>(N.What)]);
  S += ',' + std::to_string(N.Thread) + ',';
  S += N.Stream == UINT32_MAX ? std::string("?") : std::to_string(N.Stream);
  S += ',';
  S += N.Mode == CaptureMode::Unknown ? std::string_view("?") : captureModeName(N.Mode);
  S += ',' + std::to_string(N.BeginSite) + ',' + std::to_string(N.Nodes) + ',' + std::to_string(N.BreakSite) + ',' +
       std::to_string(N.BreakThread) + ',';
  S += N.BreakApi.empty() ? std::string_view("-") : N.BreakApi;
  S += ',' + std::to_string(N.BreakError);
  return S;
}

std::optional<CaptureNote> readCaptureNote(std::string_view Text) {
  std::vector<std::string_view> F = splitCommas(Text);
  if (F.size() != 10)
    return std::nullopt;
  CaptureNote N;
  bool Role = false;
  for (int R = 0; R < 4; ++R)
    if (F[0] == RoleNames[R]) {
      N.What = static_cast<CaptureNote::Role>(R);
      Role = true;
    }
  if (!Role || !number(F[1], N.Thread) || (F[2] != "?" && !number(F[2], N.Stream)))
    return std::nullopt;
  if (F[3] == "global")
    N.Mode = CaptureMode::Global;
  else if (F[3] == "thread-local")
    N.Mode = CaptureMode::ThreadLocal;
  else if (F[3] == "relaxed")
    N.Mode = CaptureMode::Relaxed;
  else if (F[3] != "?")
    return std::nullopt;
  if (!number(F[4], N.BeginSite) || !number(F[5], N.Nodes) || !number(F[6], N.BreakSite) ||
      !number(F[7], N.BreakThread) || !number(F[9], N.BreakError))
    return std::nullopt;
  if (F[8] != "-")
    N.BreakApi = internApiName(F[8]);
  return N;
}

std::string cudaErrorName(std::int32_t E) {
  switch (E) {
  case 0: return "cudaSuccess";
  case 1: return "cudaErrorInvalidValue";
  case 2: return "cudaErrorMemoryAllocation";
  case 400: return "cudaErrorInvalidResourceHandle";
  case 600: return "cudaErrorNotReady";
  case 900: return "cudaErrorStreamCaptureUnsupported";
  case 901: return "cudaErrorStreamCaptureInvalidated";
  case 902: return "cudaErrorStreamCaptureMerge";
  case 903: return "cudaErrorStreamCaptureUnmatched";
  case 904: return "cudaErrorStreamCaptureUnjoined";
  case 905: return "cudaErrorStreamCaptureIsolation";
  case 906: return "cudaErrorStreamCaptureImplicit";
  case 907: return "cudaErrorCapturedEvent";
  case 908: return "cudaErrorStreamCaptureWrongThread";
  default: return "error " + std::to_string(E);
  }
}

} // namespace syncwatch::runtime
