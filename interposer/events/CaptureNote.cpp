#include "CaptureNote.h"

#include "ApiNames.h"

#include <algorithm>
#include <charconv>
#include <iterator>
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

std::uint32_t internCaptureNote(const CaptureNote &N) {
  NoteTable &T = notes();
  std::lock_guard<std::mutex> L(T.M);
  if (T.Notes.size() >= kMaxCaptureNotes)
    return 0;
  T.Notes.push_back(N);
  return static_cast<std::uint32_t>(T.Notes.size());
}

const CaptureNote *captureNoteOf(std::uint32_t Number) {
  NoteTable &T = notes();
  std::lock_guard<std::mutex> L(T.M);
  return Number && Number <= T.Notes.size() ? &T.Notes[Number - 1] : nullptr;
}

namespace {

constexpr std::string_view RoleNames[] = {"begin", "end", "breaks", "after", "torch-skip", "torch-hint"};
constexpr int kRoles = static_cast<int>(std::size(RoleNames));

// A reason's text inside a record's field (tab-separated, its parts comma-separated).
std::string escape(std::string_view S) {
  static const char Hex[] = "0123456789ABCDEF";
  std::string Out;
  for (unsigned char C : S) {
    if (C == '%' || C == ',' || C < 0x20 || C == 0x7f)
      Out += {'%', Hex[C >> 4], Hex[C & 15]};
    else
      Out += static_cast<char>(C);
  }
  return Out;
}

std::optional<std::string> unescape(std::string_view S) {
  std::string Out;
  for (std::size_t I = 0; I < S.size(); ++I) {
    if (S[I] != '%') {
      Out += S[I];
      continue;
    }
    unsigned V = 0;
    if (I + 2 >= S.size())
      return std::nullopt;
    auto [P, Ec] = std::from_chars(S.data() + I + 1, S.data() + I + 3, V, 16);
    if (Ec != std::errc() || P != S.data() + I + 3)
      return std::nullopt;
    Out += static_cast<char>(V);
    I += 2;
  }
  return Out;
}

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
  if (N.torch())
    S += ',' + escape(N.Reason);
  return S;
}

std::optional<CaptureNote> readCaptureNote(std::string_view Text) {
  std::vector<std::string_view> F = splitCommas(Text);
  if (F.size() != 10 && F.size() != 11)
    return std::nullopt;
  CaptureNote N;
  bool Role = false;
  for (int R = 0; R < kRoles; ++R)
    if (F[0] == RoleNames[R]) {
      N.What = static_cast<CaptureNote::Role>(R);
      Role = true;
    }
  if (!Role || !number(F[1], N.Thread) || (F[2] != "?" && !number(F[2], N.Stream)))
    return std::nullopt;
  if (F[3] != "?") {
    auto Named = [&](CaptureMode M) { return F[3] == captureModeName(M); };
    CaptureMode Modes[] = {CaptureMode::Global, CaptureMode::ThreadLocal, CaptureMode::Relaxed};
    const CaptureMode *M = std::find_if(std::begin(Modes), std::end(Modes), Named);
    if (M == std::end(Modes))
      return std::nullopt;
    N.Mode = *M;
  }
  if (!number(F[4], N.BeginSite) || !number(F[5], N.Nodes) || !number(F[6], N.BreakSite) ||
      !number(F[7], N.BreakThread) || !number(F[9], N.BreakError))
    return std::nullopt;
  if (F[8] != "-")
    N.BreakApi = internApiName(F[8]);
  if (N.torch() != (F.size() == 11))
    return std::nullopt;
  if (N.torch()) {
    std::optional<std::string> Reason = unescape(F[10]);
    if (!Reason)
      return std::nullopt;
    N.Reason = std::move(*Reason);
  }
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
