// The program's steps (SYNCWATCH_STEP, docs/runtime.md): which NVTX ranges are steps
// (StepTracker), how CUPTI's NVTX callback data reaches it (NvtxSteps), what each step lost
// (StepCosts, the report's steps.* figures) and the recording's W records.
#include "../../interposer/cupti/NvtxSteps.h"
#include "../../interposer/engine/StepCosts.h"
#include "../../interposer/events/EventLog.h"
#include "../../interposer/recorder/Config.h"
#include "../../interposer/recorder/StepTracker.h"

#include <generated_nvtx_meta.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>

using namespace syncwatch::runtime;

namespace {
constexpr std::uint64_t Main = 100, Loader = 200;
std::string figure(const std::vector<std::pair<std::string, std::string>> &F, const std::string &K) {
  for (const auto &[Key, V] : F)
    if (Key == K)
      return V;
  return "";
}
std::string label(std::uint64_t T) { return T == Main ? "main" : "tid " + std::to_string(T); }
} // namespace

TEST(StepTracker, ANamedRangeIsAStepAndItsInnerRangesAreNot) {
  StepTracker T("train_step");
  EXPECT_TRUE(T.push(Main, nullptr, "train_step", 10));
  EXPECT_FALSE(T.push(Main, nullptr, "forward", 11));  // torch.cuda.nvtx.range inside the step
  EXPECT_EQ(T.open(), 1u);
  EXPECT_FALSE(T.pop(Main, nullptr, 12));               // forward closes: not a step
  std::optional<StepSpan> S = T.pop(Main, nullptr, 20);
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Thread, Main);
  EXPECT_EQ(S->Start, 10u);
  EXPECT_EQ(S->End, 20u);
  EXPECT_EQ(S->Name, "train_step");
  EXPECT_EQ(T.open(), 0u);
  // A look-alike name, a range without an ASCII name, a pop with no push: no step.
  EXPECT_FALSE(T.push(Main, nullptr, "train_step_eval", 30));
  EXPECT_FALSE(T.pop(Main, nullptr, 31));
  EXPECT_FALSE(T.push(Main, nullptr, nullptr, 32));
  EXPECT_FALSE(T.pop(Main, nullptr, 33));
  EXPECT_FALSE(T.pop(Main, nullptr, 34));
}

TEST(StepTracker, ThreadsAndDomainsHaveStacksOfTheirOwn) {
  StepTracker T("step *");  // a glob
  int DomainA = 0;
  EXPECT_TRUE(T.push(Main, nullptr, "step 1", 10));
  EXPECT_FALSE(T.push(Loader, nullptr, "load", 11));
  EXPECT_FALSE(T.push(Main, &DomainA, "ops", 12));
  EXPECT_FALSE(T.pop(Loader, nullptr, 13));     // the loader's own range
  EXPECT_FALSE(T.pop(Main, &DomainA, 14));      // the domain's range, not the step
  std::optional<StepSpan> S = T.pop(Main, nullptr, 15);
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Name, "step 1");
}

TEST(StepTracker, StartedRangesEndByIdOnAnyThread) {
  StepTracker T("epoch");
  EXPECT_TRUE(T.start(7, Main, "epoch", 100));
  EXPECT_FALSE(T.start(8, Main, "other", 101));
  EXPECT_FALSE(T.end(8, 102));
  std::optional<StepSpan> S = T.end(7, 200);  // nvtxRangeEnd from another thread
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Thread, Main);  // the step is the thread that started it
  EXPECT_EQ(S->End, 200u);
  EXPECT_FALSE(T.end(7, 201));  // twice
}

TEST(StepTracker, APushWithoutPopIsBoundedAndStaysAStep) {
  StepTracker T("s");
  for (std::size_t I = 0; I < StepTracker::kMaxDepth + 10; ++I)
    T.push(Main, nullptr, "inner", I);
  EXPECT_FALSE(T.push(Main, nullptr, "s", 1000));  // too deep: not followed
  EXPECT_EQ(T.open(), 0u);
}

TEST(NvtxSteps, CuptisCallbackDataReachesTheTracker) {
  StepTracker T("train_step");
  std::vector<StepSpan> Ended;
  std::vector<bool> Open;
  followSteps(&T, [&](const StepSpan &S) { Ended.push_back(S); }, [&](bool O) { Open.push_back(O); });
  auto call = [](CUpti_CallbackId Id, const void *Params, const void *Return, std::uint64_t Now) {
    CUpti_NvtxData D{"nvtx", Params, Return};
    onNvtx(Id, &D, Main, Now);
  };
  nvtxRangePushA_params PushA{"train_step"};
  call(CUPTI_CBID_NVTX_nvtxRangePushA, &PushA, nullptr, 10);
  // torch.cuda.nvtx's and manual_nvtx.cu's form: an event attribute with an ASCII message
  nvtxEventAttributes_t A{};
  A.version = NVTX_VERSION;
  A.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  A.messageType = NVTX_MESSAGE_TYPE_ASCII;
  A.message.ascii = "forward";
  nvtxRangePushEx_params PushEx{&A};
  call(CUPTI_CBID_NVTX_nvtxRangePushEx, &PushEx, nullptr, 11);
  nvtxRangePop_params Pop{};
  call(CUPTI_CBID_NVTX_nvtxRangePop, &Pop, nullptr, 12);
  call(CUPTI_CBID_NVTX_nvtxRangePop, &Pop, nullptr, 20);
  ASSERT_EQ(Ended.size(), 1u);
  EXPECT_EQ(Ended[0].Start, 10u);
  EXPECT_EQ(Ended[0].End, 20u);
  EXPECT_EQ(Open, (std::vector<bool>{true, false}));  // SYNCWATCH_MEASURE=steps's switch
  // A domain's pushed step, and a started one whose id is the call's return value.
  A.message.ascii = "train_step";
  int Domain = 0;
  nvtxDomainRangePushEx_params DPush{reinterpret_cast<nvtxDomainHandle_t>(&Domain), {&A}};
  call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &DPush, nullptr, 30);
  nvtxDomainRangePop_params DPop{reinterpret_cast<nvtxDomainHandle_t>(&Domain)};
  call(CUPTI_CBID_NVTX_nvtxDomainRangePop, &DPop, nullptr, 40);
  nvtxRangeStartA_params StartA{"train_step"};
  nvtxRangeId_t Id = 77;
  call(CUPTI_CBID_NVTX_nvtxRangeStartA, &StartA, &Id, 50);
  nvtxRangeEnd_params End{77};
  call(CUPTI_CBID_NVTX_nvtxRangeEnd, &End, nullptr, 60);
  ASSERT_EQ(Ended.size(), 3u);
  EXPECT_EQ(Ended[1].Start, 30u);
  EXPECT_EQ(Ended[2].Start, 50u);
  EXPECT_EQ(Ended[2].End, 60u);
  followSteps(nullptr, [](const StepSpan &) {}, nullptr);  // (the tracker goes out of scope)
}

TEST(NvtxSteps, TheInjectionPathIsSetOnceAndAnotherToolsIsSaid) {
  ::unsetenv("NVTX_INJECTION64_PATH");
  EXPECT_EQ(prepareNvtxInjection("", reinterpret_cast<const void *>(&label)), "");  // no steps asked
  EXPECT_EQ(std::getenv("NVTX_INJECTION64_PATH"), nullptr);
  EXPECT_EQ(prepareNvtxInjection("step", reinterpret_cast<const void *>(&label)), "");
  ASSERT_NE(std::getenv("NVTX_INJECTION64_PATH"), nullptr);  // this test's own binary holds the symbol
  EXPECT_EQ(prepareNvtxInjection("step", reinterpret_cast<const void *>(&label)), "");  // ours already
  ::setenv("NVTX_INJECTION64_PATH", "/opt/nsight-systems/target-linux-x64/libToolsInjection64.so", 1);
  std::string Why = prepareNvtxInjection("step", reinterpret_cast<const void *>(&label));
  EXPECT_NE(Why.find("another tool's"), std::string::npos) << Why;
  EXPECT_STREQ(std::getenv("NVTX_INJECTION64_PATH"), "/opt/nsight-systems/target-linux-x64/libToolsInjection64.so");
  ::unsetenv("NVTX_INJECTION64_PATH");
}

TEST(StepCosts, AWaitCountsForTheStepItsThreadEnteredItIn) {
  StepCosts C;
  C.track();
  C.addWait(Main, 5, 1'000'000);     // before the first step
  C.addWait(Main, 15, 2'000'000);    // step 1
  C.addWait(Main, 18, 3'000'000);    // step 1
  C.addWait(Loader, 16, 9'000'000);  // another thread during step 1: not the step's
  C.addWait(Main, 35, 4'000'000);    // step 2
  C.addStep({Main, 30, 40, "train_step"});  // (steps arrive as they end: any order)
  C.addStep({Main, 10, 20, "train_step"});
  std::vector<StepCosts::Cost> All = C.costs();
  ASSERT_EQ(All.size(), 2u);
  EXPECT_EQ(All[0].Index, 1u);
  EXPECT_EQ(All[0].Span.Start, 10u);
  EXPECT_EQ(All[0].BlockedNs, 5'000'000u);
  EXPECT_EQ(All[0].Waits, 2u);
  EXPECT_EQ(All[1].BlockedNs, 4'000'000u);
  auto F = C.figures(0, label);
  EXPECT_EQ(figure(F, "steps.name"), "train_step");
  EXPECT_EQ(figure(F, "steps.count"), "2");
  EXPECT_DOUBLE_EQ(std::stod(figure(F, "steps.blockedWorstMs")), 5.0);
  EXPECT_DOUBLE_EQ(std::stod(figure(F, "steps.blockedMeanMs")), 4.5);
  EXPECT_EQ(figure(F, "steps.worstIndex"), "1");
  EXPECT_EQ(figure(F, "steps.worst").rfind("#1 of 2 (main, ", 0), 0u) << figure(F, "steps.worst");
  EXPECT_EQ(figure(F, "steps.partial"), "");
}

TEST(StepCosts, NothingIsKeptOrSaidWithoutSteps) {
  StepCosts C;
  C.addWait(Main, 15, 2'000'000);  // not tracking: a run without SYNCWATCH_STEP
  EXPECT_TRUE(C.figures(0, label).empty());
  C.addStep({Main, 10, 20, "s"});
  EXPECT_EQ(C.costs().front().BlockedNs, 0u);  // the wait came before steps were expected
}

TEST(StepCosts, PastItsBoundsTheFiguresSayPartial) {
  StepCosts C;
  for (std::size_t I = 0; I <= StepCosts::kMaxSteps; ++I)
    C.addStep({Main, I * 10, I * 10 + 5, "s"});
  auto F = C.figures(0, label);
  EXPECT_EQ(figure(F, "steps.count"), std::to_string(StepCosts::kMaxSteps));
  EXPECT_EQ(figure(F, "steps.partial"), "true");
}

TEST(StepRecords, ARecordingKeepsItsSteps) {
  EventLog L;
  L.Steps.push_back({Main, 10, 20, "train step"});  // a name with a space
  std::ostringstream Out;
  writeEventLog(Out, L);
  EXPECT_NE(Out.str().find("W\t100\t10\t20\t"), std::string::npos) << Out.str();
  std::istringstream In(Out.str());
  ParseResult P = readEventLog(In);
  ASSERT_EQ(P.Error, "");
  ASSERT_EQ(P.Log.Steps.size(), 1u);
  EXPECT_EQ(P.Log.Steps[0].Name, "train step");
  EXPECT_EQ(P.Log.Steps[0].End, 20u);
  std::istringstream Bad("# syncwatch-events 1\nW\t100\t30\t20\tx\n");  // ends before it starts
  EXPECT_NE(readEventLog(Bad).Error.find("malformed step record"), std::string::npos);
}

TEST(StepConfig, StepAndMeasureSteps) {
  ::setenv("SYNCWATCH_STEP", "train_step", 1);
  ::setenv("SYNCWATCH_MEASURE", "steps", 1);
  std::string Messages;
  Config C = readConfig(Messages);
  EXPECT_EQ(C.StepName, "train_step");
  EXPECT_TRUE(C.MeasureSteps);
  EXPECT_FALSE(C.MeasureAll);
  EXPECT_EQ(Messages, "");
  ::unsetenv("SYNCWATCH_STEP");
  C = readConfig(Messages);  // steps without a step name: said, and auto
  EXPECT_FALSE(C.MeasureSteps);
  EXPECT_NE(Messages.find("needs SYNCWATCH_STEP"), std::string::npos) << Messages;
  ::unsetenv("SYNCWATCH_MEASURE");
}
