// bench/runtime_cost.sh's C++ half: syncwatch's own cost per call from a C++ loop, per kind,
// and from 8 threads at once.
//   syncwatch-cost-bench cpp [ITERATIONS]      one line per kind, then "cpp mix N"
//   syncwatch-cost-bench threads [ITERATIONS]  8 threads running the mix: "threads mix N"
//   syncwatch-cost-bench rss [CALLS]           peak RSS growth over CALLS calls of the mix
//   syncwatch-cost-bench scaling [ITERATIONS]  the filtered launch from 1, 2, 4 and 8 threads:
//                                              own cost, its parts, and the loop without syncwatch
#include "../../interposer/recorder/ApiHandler.h"

#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

extern "C" double swcost_own_ns(int Kind, int Iterations, int Rounds, syncwatch::runtime::HandlerParts *Parts,
                                void (*Phase)());
extern "C" double swcost_ns_per_tick();
extern "C" double swcost_clock_pair_ns(int N);
extern "C" double swcost_full_stack_ns(int N);
extern "C" void swcost_summary(char *Buf, int Len);
extern "C" void swcost_feed_records(long Records);
extern "C" double swcost_last_off_ns();

static long peakRssKb() {
  std::FILE *F = std::fopen("/proc/self/status", "r");
  char Line[256];
  long Kb = 0;
  while (F && std::fgets(Line, sizeof Line, F))
    if (std::strncmp(Line, "VmHWM:", 6) == 0)
      Kb = std::atol(Line + 6);
  if (F)
    std::fclose(F);
  return Kb;
}

static void parts(const char *Label, const syncwatch::runtime::HandlerParts &P, double NsPerTick) {
  double C = P.Calls ? static_cast<double>(P.Calls) : 1;
  double Slow = P.SlowCalls ? static_cast<double>(P.SlowPath) * NsPerTick / static_cast<double>(P.SlowCalls) : 0;
  std::printf("%s parts filter=%.1f key=%.1f record=%.1f ns/call (slow path: %llu calls, %.0f ns each)\n", Label,
              static_cast<double>(P.Filter) * NsPerTick / C, static_cast<double>(P.Key) * NsPerTick / C,
              static_cast<double>(P.Record) * NsPerTick / C, static_cast<unsigned long long>(P.SlowCalls), Slow);
}

int main(int Argc, char **Argv) {
  const char *Mode = Argc > 1 ? Argv[1] : "cpp";
  int Iterations = Argc > 2 ? std::atoi(Argv[2]) : 200'000;
  const char *Kinds[] = {"launch", "async-copy", "event-record", "stream-sync", "mix", "filtered-launch"};
  if (std::strcmp(Mode, "cpp") == 0) {
    for (int K = 0; K < 6; ++K) {
      syncwatch::runtime::HandlerParts P;
      double Own = swcost_own_ns(K, K == 4 ? Iterations / 7 : Iterations, 5, &P, nullptr);
      std::printf("cpp %s %.1f\n", Kinds[K], Own);
      parts(Kinds[K], P, swcost_ns_per_tick());
    }
    std::printf("clock pair %.1f ns\n", swcost_clock_pair_ns(1'000'000));
    std::printf("full stack (the slow path's unwind) %.1f ns\n", swcost_full_stack_ns(20'000));
  } else if (std::strcmp(Mode, "rss") == 0) {
    // Peak RSS is bounded by the number of distinct sites, not the number of calls: the
    // same mix, Iterations calls in all, against the peak after its first 100,000 calls.
    // The process's own peak before syncwatch started is the base of the last line's figure.
    long Base = peakRssKb();
    swcost_own_ns(4, 100'000 / 7, 1, nullptr, nullptr);
    long Before = peakRssKb();
    swcost_own_ns(4, Iterations / 7, 1, nullptr, nullptr);
    long After = peakRssKb();
    std::printf("rss +%.1f MiB over %d calls (peak %.1f MiB after 100,000 calls, %.1f MiB after all)\n",
                static_cast<double>(After - Before) / 1024, Iterations, Before / 1024.0, After / 1024.0);
    // GPU records: a copy-heavy run's activity records, as many as the calls.
    swcost_feed_records(100'000);
    Before = peakRssKb();
    swcost_feed_records(Iterations);
    After = peakRssKb();
    std::printf("rss +%.1f MiB over %d GPU records (peak %.1f MiB after 100,000, %.1f MiB after all)\n",
                static_cast<double>(After - Before) / 1024, Iterations, Before / 1024.0, After / 1024.0);
    std::printf("syncwatch's own peak RSS: +%.1f MiB over the process before it started (%.1f MiB)\n",
                static_cast<double>(After - Base) / 1024, Base / 1024.0);
  } else if (std::strcmp(Mode, "scaling") == 0) {
    // Where a cost that grows with threads comes from: each thread's parts (filter, site key,
    // record) on its first bound round, and the unbound loop's own ns. If the unbound loop
    // slows down as much as syncwatch's part, the machine does (shared cores, clock); if the
    // site key or the filter alone grows, a line written by every thread is in that part.
    for (int Threads : {1, 2, 4, 8}) {
      std::barrier Together(Threads);
      std::vector<double> Own(Threads), Off(Threads);
      std::vector<syncwatch::runtime::HandlerParts> P(Threads);
      std::vector<std::thread> T;
      for (int I = 0; I < Threads; ++I)
        T.emplace_back([&, I] {
          Own[I] = swcost_own_ns(5, Iterations, 5, &P[I], nullptr);
          Off[I] = swcost_last_off_ns();
          Together.arrive_and_wait();
        });
      for (auto &Th : T)
        Th.join();
      double SumOwn = 0, SumOff = 0;
      syncwatch::runtime::HandlerParts All;
      for (int I = 0; I < Threads; ++I) {
        SumOwn += Own[I];
        SumOff += Off[I];
        All.Calls += P[I].Calls;
        All.Filter += P[I].Filter;
        All.Key += P[I].Key;
        All.Record += P[I].Record;
        All.SlowPath += P[I].SlowPath;
        All.SlowCalls += P[I].SlowCalls;
      }
      std::printf("scaling threads=%d own=%.1f ns unbound-loop=%.1f ns\n", Threads, SumOwn / Threads, SumOff / Threads);
      char Label[32];
      std::snprintf(Label, sizeof Label, "scaling threads=%d", Threads);
      parts(Label, All, swcost_ns_per_tick());
    }
  } else {
    // The mix (every call recorded), then a launch on a non-blocking stream (counted at its
    // site only: the fast path with no record to drain), each from 8 threads at once.
    constexpr int Threads = 8;
    static std::barrier Together(Threads);
    for (int Kind : {4, 5}) {
      std::vector<double> Own(Threads);
      std::vector<std::thread> T;
      for (int I = 0; I < Threads; ++I)
        T.emplace_back([&, I] {
          Own[I] = swcost_own_ns(Kind, Kind == 4 ? Iterations / 7 : Iterations, 5, nullptr,
                                 [] { Together.arrive_and_wait(); });
        });
      for (auto &Th : T)
        Th.join();
      double Sum = 0;
      for (double O : Own)
        Sum += O;
      std::printf("threads %s %.1f\n", Kinds[Kind], Sum / Threads);
    }
  }
  char Buf[512];
  swcost_summary(Buf, sizeof Buf);
  std::printf("summary %s\n", Buf);
  return 0;
}
