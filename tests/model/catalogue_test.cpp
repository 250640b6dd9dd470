// The catalogue is data; these tests keep it consistent and prove the lookups that both
// halves depend on (the analyzer's matchers, CUPTI's versioned callback names).
#include "syncwatch/catalogue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

using namespace syncwatch;

TEST(Catalogue, CanonicalNamesStripPerThreadAndVersionSuffixes) {
  EXPECT_EQ(canonicalApiName("cudaMemcpyAsync"), "cudaMemcpyAsync");
  EXPECT_EQ(canonicalApiName("cudaMemcpyAsync_ptsz"), "cudaMemcpyAsync");
  EXPECT_EQ(canonicalApiName("cudaMemcpy_ptds"), "cudaMemcpy");
  EXPECT_EQ(canonicalApiName("cuMemcpyHtoD_v2"), "cuMemcpyHtoD");
  EXPECT_EQ(canonicalApiName("cuMemcpyHtoDAsync_v2_ptsz"), "cuMemcpyHtoDAsync");
  // CUPTI's runtime callback names carry the API version.
  EXPECT_EQ(canonicalApiName("cudaMemcpyAsync_v3020"), "cudaMemcpyAsync");
  EXPECT_EQ(canonicalApiName("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync");
  EXPECT_EQ(canonicalApiName("cudaStreamSynchronize_v3020"), "cudaStreamSynchronize");
}

TEST(Catalogue, UnknownNamesAreNotFound) {
  EXPECT_EQ(findApi("memcpy"), nullptr);
  EXPECT_EQ(findApi("cudaMemcpyAsyncWrapper"), nullptr);
  EXPECT_EQ(findApi("launch_v2"), nullptr);
  EXPECT_EQ(findApi(""), nullptr);
}

TEST(Catalogue, CoversTheApisTheRulesNeed) {
  for (const char *Name :
       {"cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemcpy3D",
        "cudaMemcpy3DAsync", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
        "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbolAsync", "cudaMemcpyPeer",
        "cudaMemcpyPeerAsync", "cudaMemset", "cudaMemsetAsync", "cudaMemset2D",
        "cudaMemset2DAsync", "cudaMemset3D", "cudaMemset3DAsync", "cudaMalloc", "cudaFree",
        "cudaMallocHost", "cudaHostAlloc", "cudaFreeHost", "cudaHostRegister",
        "cudaHostUnregister", "cudaMallocManaged", "cudaMallocAsync", "cudaFreeAsync",
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
        "cudaStreamWaitEvent", "cudaStreamQuery", "cudaEventQuery", "cudaStreamCreate",
        "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cudaDeviceSetLimit",
        "cudaDeviceSetCacheConfig", "cudaFuncSetCacheConfig", "cudaLaunchKernel",
        "cudaLaunchKernelEx", "cudaLaunchCooperativeKernel", "cuMemcpy", "cuMemcpyHtoD",
        "cuMemcpyDtoHAsync", "cuMemsetD32", "cuMemAlloc", "cuMemFree", "cuMemHostAlloc",
        "cuMemFreeHost", "cuMemHostRegister", "cuMemHostUnregister", "cuLaunchKernel",
        "cuLaunchKernelEx", "cuCtxSynchronize", "cuStreamSynchronize", "cuStreamCreate"})
    EXPECT_NE(findApi(Name), nullptr) << Name;
}

TEST(Catalogue, EntriesAreConsistent) {
  std::set<std::string_view> Names;
  for (const ApiInfo &A : allApis()) {
    EXPECT_TRUE(Names.insert(A.Name).second) << "listed twice: " << A.Name;
    EXPECT_TRUE(A.Name.starts_with(A.Layer == ApiLayer::Runtime ? "cuda" : "cu")) << A.Name;
    // Only the runtime's C++ declarations give streams a default argument.
    if (A.StreamDefaulted)
      EXPECT_EQ(A.Layer, ApiLayer::Runtime) << A.Name;
    if (A.StreamDefaulted)
      EXPECT_GE(A.StreamArg, 0) << A.Name;
    if (A.Family == ApiFamily::StreamCreate)
      EXPECT_EQ(A.Rule, RuleId::BlockingStream) << A.Name;
    if (A.KindArg >= 0)
      EXPECT_EQ(A.Direction, CopyDirection::ByKind) << A.Name;
    if (A.Direction == CopyDirection::HtoD)
      EXPECT_GE(A.SrcArg, 0) << A.Name;
    if (A.Direction == CopyDirection::DtoH)
      EXPECT_GE(A.DstArg, 0) << A.Name;
    EXPECT_FALSE(A.Fix.empty()) << A.Name;
    // A measured blocking call is a warning; a call measured not to block is never one
    // for the implicit-sync rule (it is documented-only).
    if (A.Rule == RuleId::ImplicitSync && A.Measured == MeasuredSync::BlocksDevice)
      EXPECT_EQ(A.RuleSeverity, Severity::Warning) << A.Name;
    if (A.Rule == RuleId::ImplicitSync && A.Measured == MeasuredSync::ReturnsAtOnce)
      EXPECT_EQ(A.RuleSeverity, Severity::Note) << A.Name;
  }
}

// What each call does to a CUDA graph capture (the Capture column): the Programming Guide's
// prohibited operations, by class (docs/rules/syncwatch-capture-breaking-call.md).
TEST(Catalogue, CaptureColumn) {
  for (const ApiInfo &A : allApis()) {
    bool Delimiter = A.Capture == CaptureUse::Begins || A.Capture == CaptureUse::Ends;
    EXPECT_EQ(Delimiter || A.Capture == CaptureUse::SetsMode, A.Family == ApiFamily::Capture) << A.Name;
    if (Delimiter)
      EXPECT_GE(A.StreamArg, 0) << A.Name;
    // Waits conflict with any capture; work a stream orders is recorded into it.
    if (A.Family == ApiFamily::DeviceSync || A.Family == ApiFamily::StreamSync || A.Family == ApiFamily::EventSync)
      EXPECT_EQ(A.Capture, CaptureUse::Conflicts) << A.Name;
    if (A.Family == ApiFamily::StreamOrderedAlloc || A.Family == ApiFamily::StreamOrderedFree ||
        A.Family == ApiFamily::Launch)
      EXPECT_EQ(A.Capture, CaptureUse::Recorded) << A.Name;
  }
  for (const char *Unsafe : {"cudaMalloc", "cudaFree", "cudaMallocHost", "cudaHostAlloc", "cuMemAlloc", "cuMemHostAlloc"})
    EXPECT_EQ(findApi(Unsafe)->Capture, CaptureUse::Unsafe) << Unsafe;
  for (const char *Conflicts : {"cudaMemcpy", "cudaMemset", "cudaDeviceSynchronize", "cudaStreamQuery", "cuCtxSynchronize"})
    EXPECT_EQ(findApi(Conflicts)->Capture, CaptureUse::Conflicts) << Conflicts;
  for (const char *Recorded : {"cudaMemcpyAsync", "cudaMemsetAsync", "cudaEventRecord", "cudaStreamWaitEvent", "cudaGraphLaunch"})
    EXPECT_EQ(findApi(Recorded)->Capture, CaptureUse::Recorded) << Recorded;
  EXPECT_EQ(findApi("cudaStreamBeginCapture")->Capture, CaptureUse::Begins);
  EXPECT_EQ(findApi("cuStreamBeginCapture_v2")->Capture, CaptureUse::Begins);
  EXPECT_EQ(findApi("cudaStreamEndCapture_ptsz")->Capture, CaptureUse::Ends);
  EXPECT_EQ(findApi("cudaThreadExchangeStreamCaptureMode")->Capture, CaptureUse::SetsMode);
}

// The Capture column against what the calls did on a GPU (tests/gpu/capture_truth_table.cu's
// table: docs/measured-behaviour.md, "Stream capture"). A call's measured class: it failed in
// every case (Conflicts), only where the capture's mode forbids it - global from any thread,
// thread-local from the capturing thread (Unsafe) - only while a blocking stream was captured
// (legacy-stream work: Conflicts for the synchronous copies), or never (Recorded or Allowed).
TEST(Catalogue, CaptureColumnAsMeasured) {
  std::ifstream In(std::string(SYNCWATCH_TEST_INPUTS) + "/runtime/capture_truth_table_h100.tsv");
  ASSERT_TRUE(In) << "the measured table is missing";
  std::map<std::string, std::set<std::string>> Failed;  // call -> "mode/stream/thread" where it failed
  std::set<std::string> Calls;
  std::string Line;
  std::getline(In, Line);  // the header
  while (std::getline(In, Line)) {
    std::vector<std::string> C;
    std::stringstream S(Line);
    for (std::string Cell; std::getline(S, Cell, '\t');)
      C.push_back(Cell);
    ASSERT_EQ(C.size(), 9u) << Line;
    Calls.insert(C[0]);
    if (C[5] != "cudaSuccess")
      Failed[C[0]].insert(C[2] + "/" + C[3] + "/" + C[4]);
  }
  ASSERT_EQ(Calls.size(), 25u);
  std::set<std::string> UnsafePattern;
  for (const char *Stream : {"non_blocking", "blocking"}) {
    UnsafePattern.insert(std::string("global/") + Stream + "/same");
    UnsafePattern.insert(std::string("global/") + Stream + "/other");
    UnsafePattern.insert(std::string("thread_local/") + Stream + "/same");
  }
  auto measured = [&](const std::string &Call) -> std::string {
    const std::set<std::string> &F = Failed[Call];
    if (F.empty())
      return "Never";
    if (F.size() == 12)
      return "Always";
    if (F == UnsafePattern)
      return "Unsafe";
    if (std::all_of(F.begin(), F.end(), [](const std::string &K) { return K.find("/blocking/") != std::string::npos; }) &&
        F.size() == 6)
      return "Blocking";
    return "Other";
  };
  struct Row { const char *Call, *Api; const char *Measured; CaptureUse Column; };
  for (const Row &R : std::initializer_list<Row>{
           {"cudaMalloc", "cudaMalloc", "Unsafe", CaptureUse::Unsafe},
           {"cudaFree", "cudaFree", "Unsafe", CaptureUse::Unsafe},
           {"cudaMallocHost", "cudaMallocHost", "Unsafe", CaptureUse::Unsafe},
           {"cudaFreeHost", "cudaFreeHost", "Unsafe", CaptureUse::Unsafe},
           {"cudaHostRegister", "cudaHostRegister", "Unsafe", CaptureUse::Unsafe},
           {"cudaMallocManaged", "cudaMallocManaged", "Unsafe", CaptureUse::Unsafe},
           {"cudaDeviceSetLimit", "cudaDeviceSetLimit", "Unsafe", CaptureUse::Unsafe},
           {"cudaDeviceSynchronize", "cudaDeviceSynchronize", "Always", CaptureUse::Conflicts},
           {"cudaStreamSynchronize(captured)", "cudaStreamSynchronize", "Always", CaptureUse::Conflicts},
           {"cudaStreamQuery(captured)", "cudaStreamQuery", "Always", CaptureUse::Conflicts},
           {"cudaMemcpy(DtoH)", "cudaMemcpy", "Blocking", CaptureUse::Conflicts},
           {"cudaMemset", "cudaMemset", "Blocking", CaptureUse::Conflicts},
           {"cudaMallocAsync", "cudaMallocAsync", "Never", CaptureUse::Recorded},
           {"cudaMemcpyAsync(pageable HtoD)", "cudaMemcpyAsync", "Never", CaptureUse::Recorded},
           {"cudaStreamCreate", "cudaStreamCreate", "Never", CaptureUse::Allowed},
       }) {
    EXPECT_EQ(measured(R.Call), R.Measured) << R.Call;
    EXPECT_EQ(findApi(R.Api)->Capture, R.Column) << R.Api;
  }
}

TEST(Catalogue, TruthTableRowsAreRecorded) {
  // docs/measured-behaviour.md: the frees and cudaDeviceSetLimit blocked the device;
  // cudaMalloc, cudaMallocHost, cudaMemset and cache-config switches did not.
  for (const char *Blocks : {"cudaFree", "cudaFreeHost", "cudaHostUnregister", "cudaDeviceSetLimit"}) {
    EXPECT_EQ(findApi(Blocks)->Measured, MeasuredSync::BlocksDevice) << Blocks;
    EXPECT_EQ(findApi(Blocks)->Proof, Evidence::Measured) << Blocks;
  }
  for (const char *Free : {"cudaMalloc", "cudaMallocHost", "cudaMemset", "cudaDeviceSetCacheConfig"})
    EXPECT_EQ(findApi(Free)->Measured, MeasuredSync::ReturnsAtOnce) << Free;
  EXPECT_EQ(findApi("cudaMemcpyAsync")->Measured, MeasuredSync::PageableNotAsync);
  EXPECT_EQ(findApi("cudaMemcpy")->Measured, MeasuredSync::BlocksBehindBlockingStreams);
}

// The columns both halves read (what a call issues, drains, can wait for) agree with each
// other and with the measurements: one answer per call, the measured one.
TEST(Catalogue, IssuesDrainsAndWaitsAgree) {
  for (const ApiInfo &A : allApis()) {
    // Device-wide drains are measured (or inferred from a measured twin), never only read.
    if (A.Drains == Drain::Device)
      EXPECT_TRUE(A.Measured == MeasuredSync::BlocksDevice || A.Measured == MeasuredSync::ExplicitWait) << A.Name;
    if (A.Measured == MeasuredSync::BlocksDevice)
      EXPECT_EQ(A.Drains, Drain::Device) << A.Name;
    // Documented as device-wide but measured to return at once: drains nothing, cannot wait.
    if (A.Documented == DocumentedSync::DeviceWide && A.Measured == MeasuredSync::ReturnsAtOnce) {
      EXPECT_EQ(A.Drains, Drain::None) << A.Name;
      EXPECT_FALSE(mayWait(A)) << A.Name;
    }
    // A synchronous copy waits for its own work and so for the legacy stream's.
    EXPECT_EQ(A.Issues == IssuedWork::GpuWaited, A.Drains == Drain::DefaultStream) << A.Name;
    if (A.Issues == IssuedWork::GpuWaited)
      EXPECT_FALSE(A.takesStream()) << A.Name;
    // Explicit waits drain what they name and wait by design.
    if (isExplicitSync(A)) {
      EXPECT_NE(A.Drains, Drain::None) << A.Name;
      EXPECT_TRUE(mayWait(A)) << A.Name;
    }
    // Whatever drains waits on the host (a poll waits in its loop, not in the call).
    if (A.Drains != Drain::None && A.Drains != Drain::StreamWhenPolled && A.Drains != Drain::EventWhenPolled)
      EXPECT_TRUE(mayWait(A)) << A.Name;
    // Stream drains and event marks name their stream.
    if (A.Drains == Drain::Stream || A.Drains == Drain::StreamWhenPolled || A.Issues == IssuedWork::EventMark ||
        A.Issues == IssuedWork::EventWait)
      EXPECT_TRUE(A.takesStream()) << A.Name;
    // Work with a GPU record is what issuesStreamWork calls stream work, given a stream.
    if (A.takesStream() && A.hasGpuRecord())
      EXPECT_TRUE(issuesStreamWork(A)) << A.Name;
  }
  EXPECT_FALSE(findApi("cudaMemcpy")->leavesWorkRunning());
  EXPECT_TRUE(findApi("cudaMemset")->leavesWorkRunning());  // legacy stream, returns at once
  EXPECT_TRUE(findApi("cuMemcpyDtoD")->leavesWorkRunning());
  EXPECT_FALSE(findApi("cudaEventRecord")->leavesWorkRunning());
  EXPECT_TRUE(findApi("cudaFreeAsync")->leavesWorkRunning());
  EXPECT_FALSE(findApi("cudaFreeAsync")->hasGpuRecord());
  EXPECT_EQ(findApi("cudaFree")->Drains, Drain::Device);
  EXPECT_EQ(findApi("cudaMalloc")->Drains, Drain::None);
  EXPECT_EQ(findApi("cudaStreamQuery")->Drains, Drain::StreamWhenPolled);
  EXPECT_FALSE(mayWait(*findApi("cudaMalloc")));
  EXPECT_TRUE(mayWait(*findApi("cudaFree")));
  EXPECT_TRUE(mayWait(*findApi("cudaMemcpyAsync")));  // pageable memory
}

TEST(Catalogue, StreamArgumentsMatchTheHeaders) {
  EXPECT_EQ(findApi("cudaMemcpyAsync")->StreamArg, 4);
  EXPECT_TRUE(findApi("cudaMemcpyAsync")->StreamDefaulted);
  EXPECT_EQ(findApi("cudaMemcpy2DAsync")->StreamArg, 7);
  EXPECT_EQ(findApi("cudaMallocAsync")->StreamArg, 2);
  EXPECT_FALSE(findApi("cudaMallocAsync")->StreamDefaulted);
  EXPECT_EQ(findApi("cuLaunchKernel")->StreamArg, 8);
  EXPECT_EQ(findApi("cudaStreamCreateWithFlags")->FlagsArg, 1);
  EXPECT_EQ(findApi("cudaMemcpy")->StreamArg, -1);
  EXPECT_TRUE(findApi("cudaMemcpy")->issuesOnLegacyStream());
  EXPECT_FALSE(findApi("cudaMemcpyAsync")->issuesOnLegacyStream());
  EXPECT_FALSE(findApi("cudaFree")->issuesOnLegacyStream());
}

TEST(Catalogue, EveryApiRuleIsARule) {
  for (const ApiInfo &A : allApis())
    EXPECT_EQ(ruleInfo(A.Rule).Rule, A.Rule);
  std::set<std::string_view> Ids;
  for (const RuleInfo &R : allRules()) {
    EXPECT_TRUE(R.Id.starts_with("syncwatch-"));
    EXPECT_TRUE(Ids.insert(R.Id).second);
    EXPECT_EQ(findRule(R.Id), &R);
  }
  EXPECT_EQ(findRule("syncwatch-nonexistent"), nullptr);
}

TEST(Catalogue, HeaderSpellingsFindTheirEntry) {
  // What CUDA 13's headers declare under per-thread and versioned names.
  EXPECT_EQ(findApi("cuMemcpyHtoDAsync_v2")->Name, "cuMemcpyHtoDAsync");
  EXPECT_EQ(findApi("cudaMemcpyAsync_ptsz")->Name, "cudaMemcpyAsync");
  EXPECT_EQ(findApi("cuStreamSynchronize_ptsz")->Name, "cuStreamSynchronize");
  EXPECT_EQ(findApi("cuMemsetD32_v2_ptds")->Name, "cuMemsetD32");
}

TEST(Severity, NamesRoundTrip) {
  for (Severity S : {Severity::Note, Severity::Warning, Severity::Error})
    EXPECT_EQ(parseSeverity(severityName(S)), S);
  EXPECT_FALSE(parseSeverity("fatal"));
}
