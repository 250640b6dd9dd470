// A long job's memory, simulated on a recorded stream (issue 40: "a 24-hour soak must not
// grow"). The recording's calls and GPU records are repeated, their times and correlations
// shifted, one repetition every GAP seconds of simulated time (the job idle in between),
// and fed, as CUPTI delivers them (records LAG_MS after their work ended), through what the
// library keeps for a whole run: its event window (EventWindow.h, grown as it would be), the
// engine and the overlap figures. Prints the peak RSS after each simulated hour; the last
// line is read by tests/runtime/CMakeLists.txt's runtime_soak and docs/benchmarks.md:
//   soak: H h simulated, N events: peak RSS A MiB after hour 1, B MiB after hour H (+D MiB); window W events, L late records, C calls judged, F findings
//
//   syncwatch-soak RECORDING [HOURS=24] [GAP_S=10] [LAG_MS=100]
#include "../../interposer/engine/Engine.h"
#include "../../interposer/engine/EventWindow.h"
#include "../../interposer/engine/Utilization.h"
#include "../../interposer/events/EventLog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

using namespace syncwatch::runtime;

static double peakRssMiB() {
  std::FILE *F = std::fopen("/proc/self/status", "r");
  char Line[256];
  long Kb = 0;
  while (F && std::fgets(Line, sizeof Line, F))
    if (std::strncmp(Line, "VmHWM:", 6) == 0)
      Kb = std::atol(Line + 6);
  if (F)
    std::fclose(F);
  return static_cast<double>(Kb) / 1024;
}

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::fprintf(stderr, "usage: syncwatch-soak RECORDING [HOURS=24] [GAP_S=10] [LAG_MS=100]\n");
    return 2;
  }
  double Hours = Argc > 2 ? std::atof(Argv[2]) : 24, GapS = Argc > 3 ? std::atof(Argv[3]) : 10;
  std::uint64_t LagNs = static_cast<std::uint64_t>((Argc > 4 ? std::atof(Argv[4]) : 100) * 1e6);
  std::ifstream In(Argv[1]);
  if (!In.is_open()) {
    std::fprintf(stderr, "syncwatch-soak: %s: cannot be read\n", Argv[1]);
    return 2;
  }
  ParseResult P = readEventLog(In);
  if (!P.Error.empty() || P.Log.Calls.empty()) {
    std::fprintf(stderr, "syncwatch-soak: %s: %s\n", Argv[1], P.Error.empty() ? "no calls in it" : P.Error.c_str());
    return 2;
  }
  // One repetition's arrivals, in the order the library would see them.
  struct Arrival {
    std::uint64_t At;
    const ApiCall *Call;
    const GpuWork *Work;
  };
  std::vector<Arrival> Order;
  std::uint64_t First = UINT64_MAX, Last = 0;
  std::uint32_t MaxCorrelation = 0;
  for (const ApiCall &C : P.Log.Calls) {
    Order.push_back({C.Exit, &C, nullptr});
    First = std::min(First, C.Enter);
    Last = std::max(Last, C.Exit);
    MaxCorrelation = std::max(MaxCorrelation, C.Correlation);
  }
  for (const GpuWork &G : P.Log.Work) {
    Order.push_back({G.End + LagNs, nullptr, &G});
    First = std::min(First, G.Start);
    Last = std::max(Last, G.End + LagNs);
    MaxCorrelation = std::max(MaxCorrelation, G.Correlation);
  }
  std::stable_sort(Order.begin(), Order.end(), [](const Arrival &A, const Arrival &B) { return A.At < B.At; });
  const std::uint64_t Period = std::max<std::uint64_t>(Last - First + 1, static_cast<std::uint64_t>(GapS * 1e9));
  const std::uint64_t HourNs = 3'600'000'000'000ull, EndNs = static_cast<std::uint64_t>(Hours * 3.6e12);

  EngineConfig Cfg;
  Engine E(Cfg);
  EventWindow W(E, 16384, Cfg, 65536);  // as the library's (Recorder.cpp, SYNCWATCH_WINDOW's default)
  Utilization Use;
  if (P.Log.KernelsTracedFrom)
    W.setKernelsTracedFrom(*P.Log.KernelsTracedFrom);
  for (const StreamInfo &S : P.Log.Streams)
    W.addStream(S);
  double AfterHourOne = 0, Peak = 0;
  std::uint64_t Events = 0, Rep = 0, NextHour = HourNs;
  for (; Rep * Period < EndNs; ++Rep) {
    std::uint64_t Shift = Rep * Period;
    std::uint32_t CorrShift = static_cast<std::uint32_t>(Rep * (MaxCorrelation + 1));
    for (const Arrival &A : Order) {
      if (A.Call) {
        ApiCall C = *A.Call;
        C.Correlation += CorrShift;
        C.Enter += Shift;
        C.Exit += Shift;
        W.addCall(C);
      } else {
        GpuWork G = *A.Work;
        G.Correlation += CorrShift;
        G.Start += Shift;
        G.End += Shift;
        Use.add(G);
        W.addWork(G);
      }
    }
    Events += Order.size();
    if ((Rep + 1) * Period >= NextHour) {
      Peak = peakRssMiB();
      std::printf("hour %llu: peak RSS %.1f MiB (%llu events)\n", static_cast<unsigned long long>(NextHour / HourNs),
                  Peak, static_cast<unsigned long long>(Events));
      if (NextHour == HourNs)
        AfterHourOne = Peak;
      NextHour += HourNs;
    }
  }
  W.flush();
  EventLog Sites;
  Sites.Sites = P.Log.Sites;
  E.consume(Sites);
  UtilizationFigures F = Use.figures();
  Peak = peakRssMiB();
  std::printf("soak: %.0f h simulated, %llu events: peak RSS %.1f MiB after hour 1, %.1f MiB after hour %.0f (%+.1f MiB); "
              "window %zu events, %llu late records, %llu calls judged, %zu findings, GPU busy %.0f s\n",
              Hours, static_cast<unsigned long long>(Events), AfterHourOne, Peak, Hours, Peak - AfterHourOne,
              W.capacity(), static_cast<unsigned long long>(W.lateRecords()),
              static_cast<unsigned long long>(E.callsSeen()), E.findings().size(), F.BusyNs / 1e9);
  return 0;
}
