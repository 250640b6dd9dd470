// The runtime engine on hand-built event streams: each case is a situation from
// docs/measured-behaviour.md, with times in microseconds for readability.
#include "../../interposer/engine/CalibrationEvidence.h"
#include "../../interposer/engine/Engine.h"
#include "../../interposer/engine/EventWindow.h"
#include "../../interposer/engine/TraceWriter.h"
#include "../../interposer/engine/Utilization.h"

#include "syncwatch/json_value.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

using namespace syncwatch;
using namespace syncwatch::runtime;

namespace {

constexpr std::uint64_t us = 1000;

// The memcpy record of an async copy between pageable host memory and the device, as CUPTI
// hands it over (CopyKind 1: HtoD, 2: DtoH).
GpuWork pageableCopyRecord(std::uint32_t Corr, std::uint32_t Stream, std::uint64_t Start, std::uint64_t End,
                           std::uint8_t CopyKind) {
  GpuWork G;
  G.Kind = GpuKind::Memcpy;
  G.Correlation = Corr;
  G.Stream = Stream;
  G.Start = Start;
  G.End = End;
  G.CopyKind = CopyKind;
  G.Src = CopyKind == 1 ? MemoryKind::Pageable : MemoryKind::Device;
  G.Dst = CopyKind == 1 ? MemoryKind::Device : MemoryKind::Pageable;
  G.Async = true;
  return G;
}

struct Stream {
  EventLog Log;
  Stream() {
    Log.Streams = {{7, StreamFlag::Legacy, 0}, {13, StreamFlag::NonBlocking, 0},
                   {14, StreamFlag::NonBlocking, -1}, {15, StreamFlag::Blocking, 0}};
    Log.Sites[1] = {"train_step", "/src/train.cu", 88};
    Log.Sites[2] = {"upload", "/src/io.cu", 12};
    Log.Sites[3] = {"main", "/src/main.cu", 40};
  }
  Stream &call(std::uint32_t Corr, const char *Api, std::uint64_t Enter, std::uint64_t Exit,
               std::uint32_t Site, std::uint64_t Thread = 1) {
    Log.Calls.push_back({Corr, 0, Thread, Api, Enter * us, Exit * us, Site});
    return *this;
  }
  Stream &kernel(std::uint32_t Corr, std::uint32_t S, std::uint64_t Start, std::uint64_t End,
                 const char *Name = "spin") {
    GpuWork W;
    W.Kind = GpuKind::Kernel;
    W.Correlation = Corr;
    W.Stream = S;
    W.Start = Start * us;
    W.End = End * us;
    W.Name = Name;
    Log.Work.push_back(W);
    return *this;
  }
  Stream &copy(std::uint32_t Corr, std::uint32_t S, std::uint64_t Start, std::uint64_t End,
               std::uint8_t Kind, MemoryKind Src, MemoryKind Dst, bool Async) {
    GpuWork W;
    W.Kind = GpuKind::Memcpy;
    W.Correlation = Corr;
    W.Stream = S;
    W.Start = Start * us;
    W.End = End * us;
    W.Bytes = 64u << 20;
    W.CopyKind = Kind;
    W.Src = Src;
    W.Dst = Dst;
    W.Async = Async;
    Log.Work.push_back(W);
    return *this;
  }
  std::vector<Finding> run(EngineConfig C = {}) {
    Engine E(C);
    E.consume(Log);
    return E.findings();
  }
};

} // namespace

TEST(Engine, FreeThatWaitsForAnotherStreamsKernelIsAnImplicitSync) {
  auto F = Stream()
               .call(1, "cudaLaunchKernel", 0, 10, 1)
               .kernel(1, 13, 15, 200'000)
               .call(2, "cudaFree", 20, 200'005, 1)
               .run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Rule, "syncwatch-implicit-sync");
  EXPECT_EQ(F[0].Where.File, "/src/train.cu");
  EXPECT_EQ(F[0].Where.Line, 88u);
  EXPECT_NE(F[0].Message.find("waiting for kernel 'spin' on nonblocking stream 13"), std::string::npos) << F[0].Message;
  EXPECT_NE(F[0].Message.find("device-wide implicit synchronization"), std::string::npos);
}

TEST(Engine, ShortCallsAndCallsThatWaitedForNothingAreSilent) {
  // cudaFree(nullptr) took 3 us; cudaMallocAsync's first call spent 8 ms creating its
  // pool while no GPU work ended.
  auto F = Stream()
               .call(1, "cudaFree", 0, 3, 1)
               .call(2, "cudaMallocAsync", 10, 8'010, 2)
               .kernel(3, 13, 9'000, 20'000)
               .run();
  EXPECT_TRUE(F.empty());
  // The threshold is configurable: a 0.5 ms wait counts at 0.1 ms.
  auto G = Stream().kernel(1, 13, 0, 500).call(2, "cudaFree", 1, 501, 1).run({100 * us});
  EXPECT_EQ(G.size(), 1u);
  EXPECT_TRUE(Stream().kernel(1, 13, 0, 500).call(2, "cudaFree", 1, 501, 1).run().empty());
}

TEST(Engine, PageableAsyncCopiesAreReportedWithTheirHostTime) {
  auto F = Stream()
               .call(1, "cudaMemcpyAsync", 0, 7'800, 2)
               .copy(1, 14, 7'700, 9'000, 1, MemoryKind::Pageable, MemoryKind::Device, true)
               .call(2, "cudaMemcpyAsync", 8'000, 8'020, 3)  // pinned: truly async
               .copy(2, 14, 9'000, 10'000, 1, MemoryKind::Pinned, MemoryKind::Device, true)
               .run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Rule, "syncwatch-pageable-async-copy");
  EXPECT_EQ(F[0].Where.Line, 12u);
  EXPECT_NE(F[0].Message.find("7.8 ms"), std::string::npos) << F[0].Message;
  EXPECT_NE(F[0].Message.find("pageable source"), std::string::npos);
}

TEST(Engine, LegacyKernelHeldByABlockingStreamIsSerialization) {
  // Launched at t=10 us, started 1.3 us after the blocking stream's 50 ms kernel ended.
  auto F = Stream()
               .call(1, "cudaLaunchKernel", 0, 5, 1)
               .kernel(1, 15, 6, 50'000, "produce")
               .call(2, "cudaLaunchKernel", 8, 10, 3)
               .kernel(2, 7, 50'001, 50'010, "consume")
               .run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Rule, "syncwatch-default-stream");
  EXPECT_EQ(F[0].Where.Line, 40u);
  EXPECT_NE(F[0].Message.find("held"), std::string::npos) << F[0].Message;
  EXPECT_NE(F[0].Message.find("kernel 'produce'"), std::string::npos);
}

TEST(Engine, LegacyWorkDoesNotWaitForNonBlockingStreams) {
  auto F = Stream()
               .call(1, "cudaLaunchKernel", 0, 5, 1)
               .kernel(1, 13, 6, 50'000)
               .call(2, "cudaLaunchKernel", 8, 10, 3)
               .kernel(2, 7, 50'001, 50'010)  // a coincidence in time, not a wait
               .run();
  EXPECT_TRUE(F.empty());
  // Work queued behind its own stream's earlier work is ordinary ordering.
  auto G = Stream()
               .call(1, "cudaLaunchKernel", 0, 5, 1)
               .kernel(1, 7, 6, 50'000)
               .kernel(9, 15, 100, 49'999)
               .call(2, "cudaLaunchKernel", 8, 10, 3)
               .kernel(2, 7, 50'001, 50'010)
               .run();
  EXPECT_TRUE(G.empty());
}

TEST(Engine, ExplicitSyncIsReportedOnlyWhenASiteWaitsRepeatedly) {
  Stream Once;
  Once.call(1, "cudaLaunchKernel", 0, 5, 1).kernel(1, 13, 6, 5'000).call(2, "cudaStreamSynchronize", 6, 5'002, 3);
  EXPECT_TRUE(Once.run().empty());
  Stream Loop;
  for (std::uint32_t I = 0; I < 4; ++I) {
    std::uint64_t T = I * 10'000;
    Loop.call(10 + I, "cudaLaunchKernel", T, T + 5, 1).kernel(10 + I, 13, T + 6, T + 5'000);
    Loop.call(20 + I, "cudaStreamSynchronize", T + 6, T + 5'002, 3);
  }
  auto F = Loop.run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Rule, "syncwatch-sync-in-loop");
  EXPECT_NE(F[0].Message.find("4 times"), std::string::npos) << F[0].Message;
  auto E = std::find_if(F[0].Evidence.begin(), F[0].Evidence.end(), [](auto &P) { return P.first == "count"; });
  ASSERT_NE(E, F[0].Evidence.end());
  EXPECT_EQ(E->second, "4");
}

TEST(Engine, AggregatesPerSiteAcrossWindowsAndThreads) {
  Engine E;
  for (std::uint32_t W = 0; W < 3; ++W) {
    Stream S;
    std::uint64_t T = W * 1'000'000;
    S.call(1, "cudaLaunchKernel", T, T + 5, 1, /*Thread=*/W + 1).kernel(1, 13, T + 6, T + 2'000 * (W + 1));
    S.call(2, "cudaFree", T + 10, T + 2'000 * (W + 1) + 2, 1, W + 1);
    E.consume(S.Log);
  }
  auto F = E.findings();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_NE(F[0].Message.find("3 times"), std::string::npos) << F[0].Message;
  EXPECT_NE(F[0].Message.find("max 6.0 ms"), std::string::npos) << F[0].Message;
}

TEST(Engine, MissingRecordsAndClockTiesDoNotBreakIt) {
  // A copy whose API call was never seen, a call with no activity, identical timestamps.
  auto F = Stream()
               .copy(99, 14, 0, 10, 1, MemoryKind::Pageable, MemoryKind::Device, true)
               .call(1, "cudaDeviceSynchronize", 100, 100, 3)
               .kernel(2, 13, 100, 100)
               .call(3, "cudaFree", 100, 2'100, 0)
               .kernel(4, 13, 100, 2'100)
               .run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Where.File, "<unknown call site>");
}

TEST(EventLog, RoundTripsAndRejectsMalformedInput) {
  Stream S;
  S.call(1, "cudaFree", 0, 10, 1).kernel(2, 13, 1, 9, "k\tname").copy(3, 14, 1, 2, 2, MemoryKind::Device, MemoryKind::Pageable, true);
  std::stringstream Text;
  writeEventLog(Text, S.Log);
  ParseResult P = readEventLog(Text);
  ASSERT_TRUE(P.Error.empty()) << P.Error;
  EXPECT_EQ(P.Log.Calls.size(), 1u);
  EXPECT_EQ(P.Log.Work.size(), 2u);
  EXPECT_EQ(P.Log.Work[0].Name, "k name");
  EXPECT_EQ(P.Log.Work[1].Dst, MemoryKind::Pageable);
  EXPECT_EQ(P.Log.Sites.at(2).File, "/src/io.cu");
  EXPECT_EQ(P.Log.stream(15)->Flag, StreamFlag::Blocking);

  std::stringstream Bad("# syncwatch-events 1\nC\t1\tx\n");
  EXPECT_NE(readEventLog(Bad).Error.find("line 2"), std::string::npos);
  std::stringstream NoHeader("C\t1\t1\tcudaFree\t0\t1\t0\n");
  EXPECT_NE(readEventLog(NoHeader).Error.find("not a syncwatch event stream"), std::string::npos);
  std::stringstream Future("# syncwatch-events 1\nX\tsomething new\n");
  EXPECT_TRUE(readEventLog(Future).Error.empty());
}

TEST(Engine, PageableCopyFollowedBySynchronizeIsABlockingCopyInTwoCalls) {
  // PyTorch's tensor.to("cpu"): cudaMemcpyAsync DtoH into pageable memory, then
  // cudaStreamSynchronize 20 us later on the same thread; a second thread's sync is not it.
  Stream S;
  for (std::uint32_t I = 0; I < 3; ++I) {
    std::uint64_t T = I * 10'000;
    S.call(10 + I, "cudaMemcpyAsync", T, T + 3'000, 2).copy(10 + I, 14, T + 10, T + 2'990, 2, MemoryKind::Device,
                                                             MemoryKind::Pageable, true);
    S.call(20 + I, "cudaStreamSynchronize", T + 3'020, T + 3'030, 3, /*Thread=*/I == 2 ? 2 : 1);
  }
  auto F = S.run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_NE(F[0].Message.find("2 followed at once by 'cudaStreamSynchronize'"), std::string::npos) << F[0].Message;
  auto E = std::find_if(F[0].Evidence.begin(), F[0].Evidence.end(), [](auto &P) { return P.first == "followedBySync"; });
  ASSERT_NE(E, F[0].Evidence.end());
  EXPECT_EQ(E->second, "2 x cudaStreamSynchronize");
}

// The window the interposer analyzes through: a copy's record that arrives after many
// later calls (CUPTI's buffering) is still paired with its call, each event is judged
// once, and memory stays bounded however long the run.
TEST(EventWindow, LateRecordsArePairedAndEachCallIsJudgedOnce) {
  Engine E;
  EventWindow W(E, /*Capacity=*/64);
  W.addStream({14, StreamFlag::NonBlocking, 0});
  std::vector<GpuWork> Late;
  std::size_t MaxBuffered = 0;
  for (std::uint32_t I = 1; I <= 10'000; ++I) {
    std::uint64_t T = I * 100 * us;
    W.addCall({I, 0, 1, "cudaMemcpyAsync", T, T + 2 * us, 1});
    Late.push_back(pageableCopyRecord(I, 14, T + us, T + 2 * us, 1));
    // Records come back in buffers of 8, lagging 8 calls behind.
    if (Late.size() == 16) {
      for (std::size_t K = 0; K < 8; ++K)
        W.addWork(Late[K]);
      Late.erase(Late.begin(), Late.begin() + 8);
    }
    MaxBuffered = std::max(MaxBuffered, W.buffered());
  }
  for (const GpuWork &G : Late)
    W.addWork(G);
  W.flush();
  EXPECT_LE(MaxBuffered, 65u);
  EXPECT_EQ(E.callsSeen(), 10'000u);
  auto F = E.findings();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_NE(F[0].Message.find("10000 times"), std::string::npos) << F[0].Message;
}

TEST(EventWindow, AWindowTooSmallForHowLateRecordsComeGrowsToWhatTheyNeed) {
  // Pageable copies whose records come back 400 calls late, through a window that starts
  // at 64 events (it holds a record's call for 16 calls) and may grow to 4096. The first
  // copies are judged without their records; the records that then arrive for them say the
  // window is too small, and it doubles until records meet their calls again: every copy
  // after that is a pageable copy, and the window stops growing at what the lag needs.
  Engine E;
  EventWindow W(E, /*Capacity=*/64, EngineConfig(), /*Largest=*/4096);
  W.addStream({14, StreamFlag::NonBlocking, 0});
  std::vector<GpuWork> Late;
  for (std::uint32_t I = 1; I <= 20'000; ++I) {
    std::uint64_t T = I * 100 * us;
    W.addCall({I, 0, 1, "cudaMemcpyAsync", T, T + 2 * us, 1});
    Late.push_back(pageableCopyRecord(I, 14, T + us, T + 2 * us, 1));
    if (Late.size() == 400) {
      for (const GpuWork &G : Late)
        W.addWork(G);
      Late.clear();
    }
  }
  for (const GpuWork &G : Late)
    W.addWork(G);
  W.flush();
  EXPECT_GT(W.lateRecords(), 0u);
  EXPECT_LT(W.lateRecords(), 2'000u);  // lost while it grew, not for the whole run
  EXPECT_GE(W.capacity(), 1024u);       // four times the 400-call lag and a buffer of records
  EXPECT_LE(W.capacity(), 4096u);
  auto F = E.findings();
  ASSERT_EQ(F.size(), 1u);
  std::size_t Times = F[0].Message.find(" times");
  ASSERT_NE(Times, std::string::npos) << F[0].Message;
  std::size_t From = F[0].Message.rfind(' ', Times - 1) + 1;
  EXPECT_GT(std::stoul(F[0].Message.substr(From, Times - From)), 18'000u) << F[0].Message;
}

TEST(EventWindow, RecordsThatComeInTimeNeverGrowIt) {
  Engine E;
  EventWindow W(E, /*Capacity=*/64, EngineConfig(), /*Largest=*/4096);
  W.addStream({14, StreamFlag::NonBlocking, 0});
  for (std::uint32_t I = 1; I <= 10'000; ++I) {
    std::uint64_t T = I * 100 * us;
    W.addCall({I, 0, 1, "cudaMemcpyAsync", T, T + 2 * us, 1});
    W.addWork(pageableCopyRecord(I, 14, T + us, T + 2 * us, 1));
  }
  W.flush();
  EXPECT_EQ(W.lateRecords(), 0u);
  EXPECT_EQ(W.capacity(), 64u);
}

TEST(JudgedWithoutRecords, RemembersTheNewestQuarterMillionCorrelations) {
  JudgedWithoutRecords J;
  EXPECT_FALSE(J.contains(1));
  J.mark(5);
  J.mark(3);  // out of order, as waiting calls are judged later
  EXPECT_TRUE(J.contains(5));
  EXPECT_TRUE(J.contains(3));
  EXPECT_FALSE(J.contains(4));
  EXPECT_FALSE(J.contains(6));
  J.mark(5 + (1u << 18) - 1);  // the slot of 4 is reused, 5's still remembered
  EXPECT_TRUE(J.contains(5));
  EXPECT_FALSE(J.contains(3));   // slid out
  J.mark(3'000'000);             // far ahead: everything older forgotten
  EXPECT_FALSE(J.contains(5));
  EXPECT_TRUE(J.contains(3'000'000));
  EXPECT_FALSE(J.contains(3'000'000 - (1u << 18)));  // same slot, older correlation
}

TEST(EventWindow, AWaitThatSpansWindowsStillNamesWhatItWaitedFor) {
  // A 30 ms cudaDeviceSynchronize while 200 kernels run on non-blocking streams: the
  // kernel that ended last is kept as context although the window filled many times.
  Engine E;
  EventWindow W(E, 32);
  W.addStream({13, StreamFlag::NonBlocking, 0});
  for (std::uint32_t I = 1; I <= 200; ++I) {
    GpuWork K;
    K.Correlation = 1000 + I;
    K.Stream = 13;
    K.Start = I * 150 * us;
    K.End = K.Start + 140 * us;
    K.Name = I == 200 ? "last_step" : "step";
    W.addWork(K);
  }
  W.addCall({1, 0, 1, "cudaDeviceSynchronize", 10 * us, 200 * 150 * us + 141 * us, 3});
  W.flush();
  auto F = E.findings();
  ASSERT_EQ(F.size(), 0u);  // one explicit sync is not a finding...
  ASSERT_EQ(E.aggregates().size(), 1u);  // ...but it was judged, with the right kernel
  EXPECT_NE(E.aggregates().begin()->second.Example.find("kernel 'last_step'"), std::string::npos)
      << E.aggregates().begin()->second.Example;
}

TEST(Engine, AWaitBeforeKernelTracingBeganIsReportedSayingSo) {
  // SYNCWATCH_KERNELS=auto: a program that only used non-blocking streams had no kernel
  // traced when its first cudaFree waited 50 ms; tracing began as that call returned.
  Stream S;
  S.Log.KernelsTracedFrom = 50'010 * us;
  S.call(1, "cudaFree", 10, 50'005, 1)
      .call(2, "cudaMalloc", 50'100, 53'100, 2)          // slow, but it never waits: silent
      .call(3, "cudaLaunchKernel", 60'000, 60'005, 3)
      .kernel(3, 13, 60'006, 90'000)
      .call(4, "cudaFree", 60'010, 90'002, 1);           // traced: names its kernel
  auto F = S.run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Rule, "syncwatch-implicit-sync");
  EXPECT_NE(F[0].Message.find("2 times"), std::string::npos) << F[0].Message;
  std::stringstream Text;
  writeEventLog(Text, S.Log);
  EXPECT_NE(Text.str().find("T\t50010000\n"), std::string::npos);
  ParseResult P = readEventLog(Text);
  ASSERT_TRUE(P.Error.empty()) << P.Error;
  EXPECT_EQ(P.Log.KernelsTracedFrom, 50'010 * us);
  // With everything traced (no T record) an unexplained slow cudaFree is not blamed.
  S.Log.KernelsTracedFrom.reset();
  EXPECT_EQ(S.run().size(), 1u);
  EXPECT_EQ(Stream().call(1, "cudaFree", 10, 50'005, 1).run().size(), 0u);
}

// The overlap figures, computed the way HTA states them.
TEST(Utilization, CopyTimeOverlappedByComputeAndStreamBusyTime) {
  Stream S;
  S.kernel(1, 13, 0, 100).kernel(2, 13, 150, 200)                                      // compute 0-100, 150-200
      .copy(3, 14, 50, 170, 2, MemoryKind::Device, MemoryKind::Pinned, true)          // copy 50-170
      .copy(4, 15, 300, 400, 1, MemoryKind::Pageable, MemoryKind::Device, true);      // copy alone
  Utilization U;
  for (const GpuWork &W : S.Log.Work)
    U.add(W);
  UtilizationFigures F = U.figures();
  EXPECT_EQ(F.SpanNs, 400 * us);
  EXPECT_EQ(F.BusyNs, 300 * us);     // 0-200 and 300-400
  EXPECT_EQ(F.ComputeNs, 150 * us);
  EXPECT_EQ(F.CopyNs, 220 * us);
  EXPECT_EQ(F.OverlapNs, 70 * us);   // 50-100 and 150-170
  EXPECT_NEAR(F.copyOverlapPercent(), 100.0 * 70 / 220, 1e-9);
  EXPECT_EQ(F.idleNs(), 100 * us);
  EXPECT_EQ(F.StreamBusyNs.at(13), 150 * us);
  EXPECT_EQ(F.StreamBusyNs.at(14), 120 * us);
}

TEST(Utilization, BoundedFoldingGivesTheSameFigures) {
  // 10,000 records through a 64-record buffer (records arrive in completion order, as
  // CUPTI delivers them) give exactly what one sweep over everything gives.
  Stream S;
  for (std::uint32_t I = 0; I < 5'000; ++I) {
    std::uint64_t T = I * 10;
    S.kernel(2 * I, 13, T, T + 7);
    S.copy(2 * I + 1, 14 + I % 2, T + 5, T + 12, 1, MemoryKind::Pinned, MemoryKind::Device, true);
  }
  Utilization Small(64), Whole(1'000'000);
  for (const GpuWork &W : S.Log.Work) {
    Small.add(W);
    Whole.add(W);
  }
  UtilizationFigures A = Small.figures(), B = Whole.figures();
  EXPECT_EQ(A.BusyNs, B.BusyNs);
  EXPECT_EQ(A.OverlapNs, B.OverlapNs);
  EXPECT_EQ(A.CopyNs, B.CopyNs);
  EXPECT_EQ(A.StreamBusyNs, B.StreamBusyNs);
  EXPECT_EQ(B.OverlapNs, (5'000 * 4 - 2) * us);  // 2 us inside each kernel, 2 us into the next one's
}

TEST(Trace, IsBoundedAndDrawsOnlyReportedSites) {
  TraceBuilder T(TraceOptions{100, 42, "app"});
  Stream S;
  for (std::uint32_t I = 1; I <= 500; ++I)
    S.call(I, "cudaLaunchKernel", I * 10, I * 10 + 2, 1).kernel(I, 13, I * 10 + 3, I * 10 + 8);
  for (const ApiCall &C : S.Log.Calls)
    T.addCall(C);
  for (const GpuWork &W : S.Log.Work)
    T.addWork(W);
  EXPECT_EQ(T.size(), 100u);
  std::string Cause = "waited";
  T.addOccurrence({RuleId::SyncInLoop, &S.Log.Calls[499], &S.Log.Work[499], 5 * us, &Cause});
  T.addOccurrence({RuleId::ImplicitSync, &S.Log.Calls[498], nullptr, 5 * us, &Cause});
  std::stringstream Out;
  T.write(Out, [](RuleId R, std::uint32_t) { return R == RuleId::ImplicitSync; });
  std::string J = Out.str();
  EXPECT_NE(J.find("\"name\":\"syncwatch-implicit-sync\""), std::string::npos);
  EXPECT_EQ(J.find("\"name\":\"syncwatch-sync-in-loop\""), std::string::npos);
  EXPECT_NE(J.find("\"cat\":\"ac2g\""), std::string::npos);
  EXPECT_EQ(J.find("\"correlation\":1}"), std::string::npos);  // the oldest were dropped
}

TEST(Engine, HighPriorityKernelHeldBehindLowPriorityWork) {
  // Stream 14 has priority -1 (high), stream 13 priority 0. A 30 ms GPU-filling kernel on 13
  // runs from t=0; the high-priority kernel, launched at t=1 ms, starts only at 30 ms.
  auto F = Stream()
               .call(1, "cudaLaunchKernel", 0, 5, 1)
               .kernel(1, 13, 6, 30'000, "matmul")
               .call(2, "cudaLaunchKernel", 1'000, 1'005, 2)
               .kernel(2, 14, 30'002, 30'100, "pow")
               .run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Rule, "syncwatch-priority-inversion");
  EXPECT_EQ(F[0].Where.Line, 12u);
  EXPECT_NE(F[0].Message.find("kernel 'pow' on the nonblocking stream 14 (priority -1) started 29.0 ms after it was issued, behind kernel 'matmul' on nonblocking stream 13 (priority 0)"),
            std::string::npos) << F[0].Message;
  // Look-alikes: the high-priority kernel waited for its own stream; it started at once;
  // the busy stream had the same (or higher) priority.
  EXPECT_TRUE(Stream()
                  .call(1, "cudaLaunchKernel", 0, 5, 1).kernel(1, 13, 6, 30'000)
                  .kernel(9, 14, 500, 30'001)
                  .call(2, "cudaLaunchKernel", 1'000, 1'005, 2).kernel(2, 14, 30'002, 30'100)
                  .run().empty());
  EXPECT_TRUE(Stream()
                  .call(1, "cudaLaunchKernel", 0, 5, 1).kernel(1, 13, 6, 30'000)
                  .call(2, "cudaLaunchKernel", 1'000, 1'005, 2).kernel(2, 14, 1'008, 1'100)
                  .run().empty());
  Stream Same;
  Same.Log.Streams.push_back({16, StreamFlag::NonBlocking, -1});
  EXPECT_TRUE(Same.call(1, "cudaLaunchKernel", 0, 5, 1).kernel(1, 16, 6, 30'000)
                  .call(2, "cudaLaunchKernel", 1'000, 1'005, 2).kernel(2, 14, 30'002, 30'100)
                  .run().empty());
}

// The JSON reader the runtime half uses for calibration profiles: strict, with a reason.
TEST(JsonValue, ReadsWhatCalibrateWritesAndRejectsWhatIsNotJson) {
  JsonValue V;
  std::string Error;
  ASSERT_TRUE(JsonValue::parse(R"( {"a": [1, -2.5e3, 0.25, true, false, null],
    "s": "tab\there \"q\" \u00e9 \ud83d\ude00 \/", "o": {"n": {}}, "e": []} )", V, Error)) << Error;
  EXPECT_EQ(V["a"].array().size(), 6u);
  EXPECT_DOUBLE_EQ(V["a"].array()[1].number(), -2500);
  EXPECT_TRUE(V["a"].array()[3].boolean());
  EXPECT_EQ(V["a"].array()[5].kind(), JsonValue::Kind::Null);
  EXPECT_EQ(V["s"].string(), "tab\there \"q\" \xc3\xa9 \xf0\x9f\x98\x80 /");
  EXPECT_TRUE(V["o"]["n"].isObject());
  EXPECT_EQ(V["missing"]["deeper"].kind(), JsonValue::Kind::Null);  // absent reads as null
  EXPECT_EQ(V["a"].string(), "");                                   // mistyped reads as default
  for (const char *Bad : {"", "{", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "01", "1.", "-", "\"abc", "\"a\\x\"",
                          "\"\\ud800\"", "tru", "{} x", "\"a\nb\"", "[1e]"}) {
    EXPECT_FALSE(JsonValue::parse(Bad, V, Error)) << Bad;
    EXPECT_NE(Error.find("at offset"), std::string::npos) << Bad << ": " << Error;
  }
  std::string Deep(100, '[');
  EXPECT_FALSE(JsonValue::parse(Deep + std::string(100, ']'), V, Error));
  EXPECT_NE(Error.find("nested too deeply"), std::string::npos);
}

TEST(CalibrationProfile, ReadsAProfileAndAnnotatesFindingsAboutCalibratedCalls) {
  CalibrationProfile P;
  std::string Error;
  ASSERT_TRUE(readCalibrationProfile(SYNCWATCH_TEST_INPUTS "/profiles/frees_do_not_block.json", P, Error)) << Error;
  EXPECT_EQ(P.Device, "Example GPU (9.0), driver 13000");
  EXPECT_FALSE(P.LegacyWaitsForBlockingStream);
  ASSERT_TRUE(P.Calls.count("cudaFree"));
  EXPECT_FALSE(P.Calls["cudaFree"].BlocksDevice);
  EXPECT_EQ(P.Calls["cudaFree"].Case, "1 MB");
  EXPECT_TRUE(P.Calls["cudaMalloc"].BlocksDevice);
  EXPECT_FALSE(P.Calls.count("cudaDeviceSetLimit"));  // "ok": false measured nothing

  std::vector<Finding> Findings(3);
  Findings[0].Rule = "syncwatch-implicit-sync";
  Findings[0].Evidence = {{"api", "cudaFree"}};
  Findings[1].Rule = "syncwatch-sync-in-loop";
  Findings[1].Evidence = {{"api", "cudaStreamSynchronize"}};  // not calibrated: left alone
  Findings[2].Rule = "syncwatch-default-stream";
  Findings[2].Evidence = {{"api", "cudaLaunchKernel"}};
  annotateWithCalibration(Findings, P);
  ASSERT_EQ(Findings[0].Evidence.size(), 2u);
  EXPECT_EQ(Findings[0].Evidence[1].second,
            "cudaFree did not block the host in calibration on Example GPU (9.0), driver 13000 (longest case '1 MB': 0.12 ms)");
  EXPECT_EQ(Findings[1].Evidence.size(), 1u);
  EXPECT_NE(Findings[2].Evidence.back().second.find("did not wait for a blocking stream"), std::string::npos);
  EXPECT_EQ(calibrationFigures(P).back().second, P.Device);
}

TEST(CalibrationProfile, SaysWhyAFileIsNoProfile) {
  CalibrationProfile P;
  std::string Error;
  EXPECT_FALSE(readCalibrationProfile("/nonexistent/profile.json", P, Error));
  EXPECT_EQ(Error, "cannot read profile '/nonexistent/profile.json': No such file or directory");
  // A SARIF file is JSON but no profile.
  std::string Sarif = ::testing::TempDir() + "/not_a_profile.json";
  std::ofstream(Sarif) << R"({"version": "2.1.0", "runs": []})";
  EXPECT_FALSE(readCalibrationProfile(Sarif, P, Error));
  EXPECT_NE(Error.find("is not a syncwatch profile"), std::string::npos) << Error;
  std::ofstream(Sarif) << R"({"schema": "syncwatch-profile-1", "device": {}})";
  EXPECT_FALSE(readCalibrationProfile(Sarif, P, Error));
  EXPECT_NE(Error.find("has no \"calls\""), std::string::npos) << Error;
  std::ofstream(Sarif) << R"({"schema": "syncwatch-profile-1", "calls": [)";
  EXPECT_FALSE(readCalibrationProfile(Sarif, P, Error));
  EXPECT_NE(Error.find("is not JSON"), std::string::npos) << Error;
}

// HeCBench streamCreateCopyDestroy's main.cu:75 came out as two findings, one per stack
// that ends at that line (the loop's copies, and one more copy reached another way, each
// followed by a synchronize): one finding, the stacks' shares as evidence.
TEST(Engine, StacksThatEndAtOneLineAreOneFinding) {
  Stream S;
  S.Log.Sites[4] = {"main", "/src/main.cu", 75};
  S.Log.Sites[5] = {"main", "/src/main.cu", 75};  // another stack, same line
  std::uint32_t Corr = 1;
  std::uint64_t T = 0;
  for (int I = 0; I < 6; ++I, T += 100)  // the loop's pageable copies
    S.call(Corr, "cudaMemcpyAsync", T, T + 50, 4).copy(Corr, 13, T + 10, T + 60, 1, MemoryKind::Pageable, MemoryKind::Device, true), ++Corr;
  for (int I = 0; I < 2; ++I, T += 100) {  // copies followed at once by a synchronize
    S.call(Corr, "cudaMemcpyAsync", T, T + 40, 5).copy(Corr, 13, T + 5, T + 45, 1, MemoryKind::Pageable, MemoryKind::Device, true), ++Corr;
    S.call(Corr++, "cudaStreamSynchronize", T + 41, T + 42, 3);
  }
  auto F = S.run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Where.Line, 75u);
  auto Ev = [&](const char *K) {
    for (auto &[Key, V] : F[0].Evidence)
      if (Key == K)
        return V;
    return std::string();
  };
  EXPECT_EQ(Ev("count"), "8");
  EXPECT_EQ(Ev("stacks"), "2");
  EXPECT_NE(Ev("variants").find("6 x 300 us"), std::string::npos) << Ev("variants");
  EXPECT_NE(Ev("variants").find("2 x 80 us, each followed at once by 'cudaStreamSynchronize'"), std::string::npos)
      << Ev("variants");
  EXPECT_EQ(F[0].Level, Severity::Warning);  // eight times: a hot path
}

// A release build has no line table: the site is module and function+offset (line 0), and
// the finding says so and how to get lines.
TEST(Engine, ReleaseBuildSitesNameModuleFunctionAndOffset) {
  Stream S;
  S.Log.Sites[6] = {"streamOrderedAllocation+0x1a4", "/opt/app/streamOrderedAllocation", 0};
  auto F = S.kernel(1, 13, 0, 20'000).call(2, "cudaFree", 10, 20'010, 6).run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Where.File, "/opt/app/streamOrderedAllocation");
  EXPECT_EQ(F[0].Where.Line, 0u);
  EXPECT_NE(F[0].Message.find("'cudaFree' in streamOrderedAllocation+0x1a4 cost"), std::string::npos) << F[0].Message;
  EXPECT_NE(F[0].Message.find("build with -Xcompiler -g1"), std::string::npos);
  bool Symbol = false;
  for (auto &[K, V] : F[0].Evidence)
    Symbol = Symbol || (K == "callSite" && V == "symbol");
  EXPECT_TRUE(Symbol);
}

// A synchronous cudaMemcpy at start-up that waited only for its own transfer (a HecBench
// benchmark's one 16 MB upload, 2.6 ms) is the cost of a synchronous API: a note with the
// time. Waiting for other work first, or repeating, makes it a warning.
TEST(Engine, WaitingForItsOwnWorkOnlyIsANoteUnlessHot) {
  Stream Upload;
  Upload.call(1, "cudaMemcpy", 0, 2'600, 3).copy(1, 7, 5, 2'590, 1, MemoryKind::Pageable, MemoryKind::Device, false);
  Upload.call(2, "cudaLaunchKernel", 2'700, 2'710, 3).call(3, "cudaDeviceSynchronize", 2'720, 100'000, 3);
  auto F = Upload.run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Rule, "syncwatch-sync-memcpy");
  EXPECT_EQ(F[0].Level, Severity::Note);
  EXPECT_NE(F[0].Message.find("waited for its own memcpy HtoD of 64 MB only"), std::string::npos) << F[0].Message;
  EXPECT_NE(F[0].Message.find("2.6 ms"), std::string::npos);

  // The same copy issued while a blocking stream's kernel ran: it waited for that first.
  Stream Held;
  Held.call(1, "cudaLaunchKernel", 0, 5, 1).kernel(1, 15, 6, 20'000);
  Held.call(2, "cudaMemcpy", 10, 22'600, 3).copy(2, 7, 20'005, 22'590, 1, MemoryKind::Pageable, MemoryKind::Device, false);
  Held.call(3, "cudaDeviceSynchronize", 22'700, 200'000, 2);
  auto G = Held.run();
  ASSERT_FALSE(G.empty());
  auto Copy = std::find_if(G.begin(), G.end(), [](const Finding &X) { return X.Rule == "syncwatch-sync-memcpy"; });
  ASSERT_NE(Copy, G.end());
  EXPECT_EQ(Copy->Level, Severity::Warning);

  // Two uploads from one line: a loop, a warning.
  Stream Twice;
  Twice.call(1, "cudaMemcpy", 0, 2'600, 3).copy(1, 7, 5, 2'590, 1, MemoryKind::Pageable, MemoryKind::Device, false);
  Twice.call(2, "cudaMemcpy", 3'000, 5'600, 3).copy(2, 7, 3'005, 5'590, 1, MemoryKind::Pageable, MemoryKind::Device, false);
  Twice.call(3, "cudaDeviceSynchronize", 5'700, 100'000, 2);
  auto H = Twice.run();
  ASSERT_EQ(H.size(), 1u);
  EXPECT_EQ(H[0].Level, Severity::Warning);

  // Three start-up uploads from one line that cost 114 us in all (under the 1 ms threshold),
  // in a longer run: a note (they were a warning on the H200's PyTorch script).
  Stream Startup;
  Startup.call(1, "cudaMemcpyAsync", 0, 38, 3).copy(1, 13, 2, 37, 1, MemoryKind::Pageable, MemoryKind::Device, true);
  Startup.call(2, "cudaMemcpyAsync", 40, 78, 3).copy(2, 13, 42, 77, 1, MemoryKind::Pageable, MemoryKind::Device, true);
  Startup.call(3, "cudaMemcpyAsync", 80, 118, 3).copy(3, 13, 82, 117, 1, MemoryKind::Pageable, MemoryKind::Device, true);
  Startup.call(4, "cudaLaunchKernel", 200, 210, 1).call(5, "cudaDeviceSynchronize", 220, 50'000, 1);
  auto S = Startup.run();
  auto Up = std::find_if(S.begin(), S.end(), [](const Finding &X) { return X.Rule == "syncwatch-pageable-async-copy"; });
  ASSERT_NE(Up, S.end());
  EXPECT_EQ(Up->Level, Severity::Note) << Up->Message;
  EXPECT_NE(Up->Message.find("under the 1.0 ms threshold"), std::string::npos) << Up->Message;

  // The same three copies at 400 us each (1.2 ms in all): past the threshold, a warning.
  Stream Costly;
  Costly.call(1, "cudaMemcpyAsync", 0, 400, 3).copy(1, 13, 2, 399, 1, MemoryKind::Pageable, MemoryKind::Device, true);
  Costly.call(2, "cudaMemcpyAsync", 410, 810, 3).copy(2, 13, 412, 809, 1, MemoryKind::Pageable, MemoryKind::Device, true);
  Costly.call(3, "cudaMemcpyAsync", 820, 1'220, 3).copy(3, 13, 822, 1'219, 1, MemoryKind::Pageable, MemoryKind::Device, true);
  Costly.call(4, "cudaLaunchKernel", 1'300, 1'310, 1).call(5, "cudaDeviceSynchronize", 1'320, 50'000, 1);
  auto C = Costly.run();
  auto Up2 = std::find_if(C.begin(), C.end(), [](const Finding &X) { return X.Rule == "syncwatch-pageable-async-copy"; });
  ASSERT_NE(Up2, C.end());
  EXPECT_EQ(Up2->Level, Severity::Warning) << Up2->Message;

  // A single upload that is most of the run: a warning.
  Stream Big;
  Big.call(1, "cudaMemcpy", 0, 2'600, 3).copy(1, 7, 5, 2'590, 1, MemoryKind::Pageable, MemoryKind::Device, false);
  auto B = Big.run();
  ASSERT_EQ(B.size(), 1u);
  EXPECT_EQ(B[0].Level, Severity::Warning);
}

// A launch that blocked the host (a kernel's first launch loads its module, which waits for
// the running kernels: 14.5 ms on the H200 in the seed's priority scenario) is an implicit
// synchronization; onto a high-priority stream it is the priority inversion instead.
TEST(Engine, LaunchThatBlockedTheHostIsAnImplicitSync) {
  auto F = Stream()
               .call(1, "cudaLaunchKernel", 0, 5, 1)
               .kernel(1, 15, 6, 14'500, "matmul")
               .call(2, "cudaLaunchKernel", 10, 14'510, 2)
               .kernel(2, 13, 14'512, 14'515, "pow")
               .run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Rule, "syncwatch-implicit-sync");
  EXPECT_EQ(F[0].Where.Line, 12u);
  EXPECT_NE(F[0].Message.find("waiting for kernel 'matmul'"), std::string::npos) << F[0].Message;
  EXPECT_NE(F[0].Message.find("first launch loads its module"), std::string::npos);

  auto G = Stream()
               .call(1, "cudaLaunchKernel", 0, 5, 1)
               .kernel(1, 13, 6, 14'500, "matmul")
               .call(2, "cudaLaunchKernel", 10, 14'510, 2)
               .kernel(2, 14, 14'512, 14'515, "pow")  // stream 14: priority -1
               .run();
  ASSERT_EQ(G.size(), 1u);
  EXPECT_EQ(G[0].Rule, "syncwatch-priority-inversion");
  EXPECT_NE(G[0].Message.find("its launch itself blocked the host 14.5 ms"), std::string::npos) << G[0].Message;
  EXPECT_NE(G[0].Message.find("started 14.5 ms after it was issued"), std::string::npos);

  // A fast launch is never a host wait, whatever ended while it ran.
  EXPECT_TRUE(Stream().call(1, "cudaLaunchKernel", 0, 5, 1).kernel(1, 15, 1, 4).call(2, "cudaLaunchKernel", 3, 8, 2)
                  .kernel(2, 13, 9, 20).run().empty());
}

// A launch-bound program makes more calls than a quarter window between two CUPTI buffer
// deliveries: calls still waiting for their own records are kept, and so is the call that
// followed each of them on its thread - PyTorch's blocking .to("cpu") is a pageable copy
// and a synchronize, judged together.
TEST(EventWindow, CallsWaitForTheirRecordsWithTheCallThatFollowed) {
  Engine E;
  EventWindow W(E, /*Capacity=*/64);  // 16 calls carried, up to 8 more waiting (and their followers)
  W.addStream({14, StreamFlag::NonBlocking, 0});
  std::vector<GpuWork> Late;
  for (std::uint32_t I = 1; I <= 200; I += 2) {
    std::uint64_t T = I * 100 * us;
    W.addCall({I, 0, 1, "cudaMemcpyAsync", T, T + 50 * us, 1});
    W.addCall({I + 1, 0, 1, "cudaStreamSynchronize", T + 51 * us, T + 52 * us, 2});
    Late.push_back(pageableCopyRecord(I, 14, T + us, T + 50 * us, 2));
    if (Late.size() == 14) {  // the records of 14 copies (28 calls) come back at once
      for (const GpuWork &L : Late)
        W.addWork(L);
      Late.clear();
    }
  }
  for (const GpuWork &G : Late)
    W.addWork(G);
  W.flush();
  auto F = E.findings();
  ASSERT_EQ(F.size(), 1u);
  std::string Followed;
  for (auto &[K, V] : F[0].Evidence)
    if (K == "followedBySync")
      Followed = V;
  EXPECT_NE(F[0].Message.find("100 times"), std::string::npos) << F[0].Message;
  EXPECT_EQ(Followed, "100 x cudaStreamSynchronize");
}

TEST(Engine, TheCallThatCreatedTheContextIsStartUpNotAWait) {
  // cublasCreate's cudaFree(0) took 155 ms on the H200 creating the context, with kernel
  // tracing not yet on: reported as a device-wide wait until the resource callback said so.
  Stream S;
  S.Log.KernelsTracedFrom = UINT64_MAX;
  S.call(1, "cudaFree", 10, 155'000, 1);
  ASSERT_EQ(S.run().size(), 1u);  // without the flag: what the H200 run reported
  S.Log.Calls[0].CreatedContext = true;
  EXPECT_EQ(S.run().size(), 0u);
  // A later cudaFree of the same run is judged as before.
  S.call(2, "cudaFree", 160'000, 210'000, 1);
  EXPECT_EQ(S.run().size(), 1u);
  // The flag survives a recording; recordings without it read as before.
  std::stringstream Text;
  writeEventLog(Text, S.Log);
  EXPECT_NE(Text.str().find("\t1\tctx\n"), std::string::npos) << Text.str();
  ParseResult P = readEventLog(Text);
  ASSERT_TRUE(P.Error.empty()) << P.Error;
  EXPECT_TRUE(P.Log.Calls[0].CreatedContext);
  EXPECT_FALSE(P.Log.Calls[1].CreatedContext);
}

// --- PyTorch extensions --------------------------------------------------------------------

// An extension's k<<<g, b>>> inside torch.cuda.stream(side), three steps: capture marked
// each launch with PyTorch's current stream (13). The op's next kernel on 13 started while
// the legacy kernel ran in two of them: a race seen. Reported at the launch line, as a
// count (no time), with the op and the Python line.
TEST(Engine, LaunchOffPyTorchsCurrentStreamIsReportedAtTheLaunchWithItsRaces) {
  Stream S;
  S.Log.Sites[4] = {"scale_legacy(at::Tensor, double)", "/ext/ops.cu", 26};
  S.Log.Sites[4].Python = {{"<module>", "/ext/train.py", 42}};
  for (std::uint32_t Step = 0; Step < 3; ++Step) {
    std::uint64_t T = Step * 10'000;
    S.call(100 + 2 * Step, "cudaLaunchKernel", T, T + 5, 4);
    S.Log.Calls.back().OffTorchStream = 13;
    S.kernel(100 + 2 * Step, 7, T + 10, T + 400, "scale_kernel");
    // The next op's kernel on the current stream: overlapping twice, after it once.
    std::uint64_t Next = Step < 2 ? T + 50 : T + 500;
    S.kernel(101 + 2 * Step, 13, Next, Next + 100, "add_kernel");
  }
  std::vector<Finding> F = S.run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Rule, "syncwatch-torch-current-stream");
  EXPECT_EQ(F[0].Where.File, "/ext/ops.cu");
  EXPECT_EQ(F[0].Where.Line, 26u);
  EXPECT_EQ(F[0].Level, Severity::Warning);
  auto Ev = [&](const char *K) {
    for (const auto &[Key, V] : F[0].Evidence)
      if (Key == K)
        return V;
    return std::string("<none>");
  };
  EXPECT_EQ(Ev("offStreamLaunches"), "3");
  EXPECT_EQ(Ev("racesSeen"), "2");
  EXPECT_EQ(Ev("op"), "scale_legacy");
  EXPECT_EQ(std::atof(Ev("totalMs").c_str()), 0.0);
  EXPECT_NE(Ev("currentStream").find("stream 13"), std::string::npos);
  EXPECT_NE(Ev("pythonStack").find("/ext/train.py:42"), std::string::npos);
  EXPECT_NE(F[0].Message.find("kernel 'add_kernel', queued after it there, started before it ended"), std::string::npos)
      << F[0].Message;
  EXPECT_NE(F[0].Message.find("at::cuda::getCurrentCUDAStream()"), std::string::npos);
  // Nothing of it is host time lost.
  Engine E;
  E.consume(S.Log);
  EXPECT_EQ(E.hostTimeLostNs(), 0u);
}

// A kernel of the current stream queued before the launch and still running when its kernel
// started is the other race; with no kernel records (SYNCWATCH_KERNELS=0) the launch is still
// counted, by its API.
TEST(Engine, LaunchOffPyTorchsCurrentStreamRacesWithEarlierWorkOrHasNoRecord) {
  Stream S;
  S.kernel(50, 13, 0, 1'000, "gemm");
  S.call(51, "cudaLaunchKernel", 10, 15, 1);
  S.Log.Calls.back().OffTorchStream = 13;
  S.kernel(51, 7, 20, 30, "scale_kernel");
  S.call(60, "cudaLaunchKernel", 2'000, 2'005, 1);
  S.Log.Calls.back().OffTorchStream = ApiCall::kUnknownStream;  // CUPTI could not name it
  std::vector<Finding> F = S.run();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Where.Line, 88u);
  EXPECT_NE(F[0].Message.find("it started while kernel 'gemm', queued before it there, was still running"),
            std::string::npos)
      << F[0].Message;
  EXPECT_NE(F[0].Message.find("2 times, 1 of them seen racing"), std::string::npos) << F[0].Message;
}

// The flag survives a recording (torch=<stream>, torch=? when unnamed); a bad one is an error.
TEST(EventLog, TorchCurrentStreamFlagRoundTrips) {
  Stream S;
  S.call(1, "cudaLaunchKernel", 0, 1, 1).call(2, "cudaLaunchKernel", 2, 3, 1).call(3, "cudaFree", 4, 5, 1);
  S.Log.Calls[0].OffTorchStream = 13;
  S.Log.Calls[1].OffTorchStream = ApiCall::kUnknownStream;
  S.Log.Calls[2].CreatedContext = true;
  std::stringstream Text;
  writeEventLog(Text, S.Log);
  EXPECT_NE(Text.str().find("\t1\ttorch=13\n"), std::string::npos) << Text.str();
  EXPECT_NE(Text.str().find("\t1\ttorch=?\n"), std::string::npos) << Text.str();
  ParseResult P = readEventLog(Text);
  ASSERT_TRUE(P.Error.empty()) << P.Error;
  EXPECT_EQ(P.Log.Calls[0].OffTorchStream, std::optional<std::uint32_t>(13));
  EXPECT_EQ(P.Log.Calls[1].OffTorchStream, std::optional<std::uint32_t>(ApiCall::kUnknownStream));
  EXPECT_FALSE(P.Log.Calls[2].OffTorchStream);
  EXPECT_TRUE(P.Log.Calls[2].CreatedContext);
  std::stringstream Bad("# syncwatch-events 1\nC\t1\t1\tcudaLaunchKernel\t0\t1\t0\ttorch=x\n");
  EXPECT_NE(readEventLog(Bad).Error.find("torch="), std::string::npos);
}

// A sync whose native frame, under Python, is an extension's C++ is a sync inside an op:
// torch-host-sync, at the Python line, naming the op and its line (or its symbol). The
// same wait from pure Python (no native frame: the interpreter and libtorch are vendor
// code) stays sync-in-loop.
TEST(Engine, ASyncInsideAnExtensionOpIsTorchHostSync) {
  Stream S;
  S.Log.Sites[4] = {"count_item(at::Tensor)", "/ext/ops.cu", 43};
  S.Log.Sites[4].Python = {{"<module>", "/ext/train.py", 45}};
  S.Log.Sites[5] = {"count_item+0x291", "/tmp/ext/ops_release.so", 0};
  S.Log.Sites[5].Python = {{"<module>", "/ext/train2.py", 9}};
  S.Log.Sites[6] = {"", "", 0};
  S.Log.Sites[6].Python = {{"step", "/ext/train.py", 60}};
  std::uint32_t Corr = 1;
  for (std::uint32_t Site : {4u, 5u, 6u})
    for (int Step = 0; Step < 2; ++Step) {
      std::uint64_t T = (Corr + 1) * 100'000;
      S.kernel(Corr, 7, T - 50'000, T + 20'000);
      S.call(Corr + 1, "cudaStreamSynchronize", T, T + 20'010, Site);
      Corr += 2;
    }
  std::vector<Finding> F = S.run();
  ASSERT_EQ(F.size(), 3u);
  std::map<std::string, const Finding *> ByFile;
  for (const Finding &X : F)
    ByFile[X.Where.File] = &X;
  ASSERT_TRUE(ByFile.count("/ext/train.py") && ByFile.count("/ext/train2.py"));
  std::vector<const Finding *> Op;
  for (const Finding &X : F)
    if (X.Rule == "syncwatch-torch-host-sync")
      Op.push_back(&X);
  ASSERT_EQ(Op.size(), 2u);
  for (const Finding *X : Op) {
    bool Release = X->Where.File == "/ext/train2.py";
    EXPECT_EQ(X->Where.Line, Release ? 9u : 45u);
    EXPECT_NE(X->Message.find(Release ? "[inside op count_item at /tmp/ext/ops_release.so]" : "[inside op count_item at /ext/ops.cu:43]"),
              std::string::npos)
        << X->Message;
    bool HasOp = false;
    for (const auto &[K, V] : X->Evidence)
      HasOp |= K == "op" && V == "count_item";
    EXPECT_TRUE(HasOp);
  }
  for (const Finding &X : F)
    if (X.Where.Line == 60)
      EXPECT_EQ(X.Rule, "syncwatch-sync-in-loop");
}

// Issue 37: the recording says what ran. Calls the fast path counted without recording them
// are coverage (each line that ran has a count), split into the calls whose cost the rules
// could judge and those that ran untimed; launches recorded before kernel records existed
// ran untimed too; and whether every launch was counted is said in the figures.
TEST(Engine, CountedCallsAreCoverageWithWhatWasTimed) {
  Stream S;
  S.Log.Sites[4] = {"blur", "/src/blur.cu", 31};
  S.Log.KernelsTracedFrom = 100 * us;
  S.call(1, "cudaLaunchKernel", 10, 11, 4)     // before kernels were traced: untimed
      .call(2, "cudaLaunchKernel", 200, 201, 4)  // traced: timed
      .call(3, "cudaFree", 300, 310, 1);         // a host wait: always timed
  S.Log.Counted = {{4, "cudaLaunchKernel", 40, 0},   // legacy launches before blocking work
                   {2, "cudaMemcpyAsync", 7, 7}};    // pinned copies on a non-blocking stream
  S.Log.CountsAllCalls = true;
  Engine E;
  E.consume(S.Log);
  std::map<std::string, CoveredCall> ByApi;
  for (const CoveredCall &C : E.coverage())
    ByApi[C.Api] = C;
  ASSERT_EQ(ByApi.size(), 3u);
  EXPECT_EQ(ByApi["cudaLaunchKernel"].Count, 42u);
  EXPECT_EQ(ByApi["cudaLaunchKernel"].Measured, 1u);
  EXPECT_EQ(ByApi["cudaLaunchKernel"].Where.Line, 31u);
  EXPECT_EQ(ByApi["cudaMemcpyAsync"].Count, 7u);
  EXPECT_EQ(ByApi["cudaMemcpyAsync"].Measured, 7u);
  EXPECT_EQ(ByApi["cudaFree"].Measured, 1u);
  EXPECT_EQ(E.callsSeen(), 50u);
  EXPECT_EQ(E.launchCoverage(), Engine::LaunchCoverage::Complete);
  auto Figures = E.coverageFigures();
  EXPECT_NE(std::find(Figures.begin(), Figures.end(), std::make_pair(std::string("coverage.launches"), std::string("complete"))),
            Figures.end());
}

TEST(Engine, LaunchesUncountedForAWhileMakeLaunchCoveragePartial) {
  Stream S;
  S.call(1, "cudaFree", 0, 1000, 1);
  S.Log.CountsAllCalls = true;
  S.Log.LaunchesUnwatched = {{200 * us, 500 * us}, {800 * us, UINT64_MAX}};
  Engine E;
  E.consume(S.Log);
  EXPECT_EQ(E.launchCoverage(), Engine::LaunchCoverage::Partial);
  std::map<std::string, std::string> F;
  for (auto &[K, V] : E.coverageFigures())
    F[K] = V;
  EXPECT_EQ(F["coverage.launches"], "partial");
  // 300 us, then from 800 us to the last call's return (1000 us): 0.5 ms.
  EXPECT_NEAR(std::atof(F["coverage.launchesUnwatchedMs"].c_str()), 0.5, 1e-9);

  // Deferred from the start (a Python process: the span begins at 0, CUPTI's clock is not):
  // counted from the first call's entry only.
  Stream D;
  D.call(1, "cudaFree", 5'000'000, 5'001'000, 1);
  D.Log.CountsAllCalls = true;
  D.Log.LaunchesUnwatched = {{0, 5'000'400 * us}};
  Engine Deferred;
  Deferred.consume(D.Log);
  for (auto &[K, V] : Deferred.coverageFigures())
    if (K == "coverage.launchesUnwatchedMs")
      EXPECT_NEAR(std::atof(V.c_str()), 0.4, 1e-9);

  Engine Old;  // a recording without the V record: an older recorder's
  Stream O;
  O.call(1, "cudaFree", 0, 10, 1);
  Old.consume(O.Log);
  EXPECT_EQ(Old.launchCoverage(), Engine::LaunchCoverage::Unknown);
}

TEST(EventLog, CountsAndUnwatchedLaunchesRoundTrip) {
  Stream S;
  S.call(1, "cudaFree", 0, 10, 1);
  S.Log.Counted = {{3, "cudaLaunchKernel", 12, 2}};
  S.Log.LaunchesUnwatched = {{5, UINT64_MAX}};
  S.Log.CountsAllCalls = true;
  std::stringstream Text;
  writeEventLog(Text, S.Log);
  ParseResult P = readEventLog(Text);
  ASSERT_TRUE(P.Error.empty()) << P.Error;
  ASSERT_EQ(P.Log.Counted.size(), 1u);
  EXPECT_EQ(P.Log.Counted[0].Api, "cudaLaunchKernel");
  EXPECT_EQ(P.Log.Counted[0].Calls, 12u);
  EXPECT_EQ(P.Log.Counted[0].Judged, 2u);
  ASSERT_EQ(P.Log.LaunchesUnwatched.size(), 1u);
  EXPECT_EQ(P.Log.LaunchesUnwatched[0].To, UINT64_MAX);
  EXPECT_TRUE(P.Log.CountsAllCalls);
  // More judged calls than calls, or a span that ends before it starts: malformed.
  std::stringstream Bad("# syncwatch-events 1\nN\t3\tcudaLaunchKernel\t2\t5\n");
  EXPECT_NE(readEventLog(Bad).Error.find("counted-calls"), std::string::npos);
  std::stringstream BadSpan("# syncwatch-events 1\nL\t9\t3\n");
  EXPECT_NE(readEventLog(BadSpan).Error.find("unwatched"), std::string::npos);
}
