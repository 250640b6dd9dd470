#include "syncwatch/baseline.h"
#include "syncwatch/cache_entry.h"
#include "syncwatch/unit_summary.h"
#include "syncwatch/json_report_reader.h"
#include "syncwatch/json_writer.h"
#include "syncwatch/sarif_reader.h"
#include "syncwatch/report.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace syncwatch;

namespace {

Finding sample() {
  Finding F;
  F.Rule = "syncwatch-default-stream";
  F.Level = Severity::Warning;
  F.Where = {"/src/train.cu", 12, 3, 12, 8};
  F.Message = "kernel 'scale' is launched without a stream";
  F.Notes.push_back({{"/src/train.cu", 4, 19, 0, 0}, "stream created here", {}});
  F.Fixes.push_back({{"/src/train.cu", 12, 20, 12, 21}, "s"});
  F.Evidence = {{"api", "<<<>>>"}};
  return F;
}

SourceLineReader fakeLines() {
  return [](const std::string &, unsigned Line) -> std::optional<std::string> {
    if (Line == 12)
      return std::string("  scale<<<1, 32>>>(d);");
    if (Line == 4)
      return std::string("  cudaStream_t s; cudaStreamCreate(&s);");
    return std::nullopt;
  };
}

} // namespace

TEST(TextWriter, ClangFormatWithSourceAndCaret) {
  std::ostringstream Out;
  writeText(Out, {sample()}, fakeLines());
  std::string S = Out.str();
  EXPECT_NE(S.find("/src/train.cu:12:3: warning: kernel 'scale' is launched without a stream "
                   "[syncwatch-default-stream]\n"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("   12 |   scale<<<1, 32>>>(d);\n      |   ^~~~~\n"), std::string::npos) << S;
  EXPECT_NE(S.find("/src/train.cu:4:19: note: stream created here\n"), std::string::npos) << S;
  EXPECT_NE(S.find("fix-it: 12:20-12:21 -> \"s\""), std::string::npos) << S;
}

TEST(TextWriter, MissingSourceFileStillPrintsTheDiagnostic) {
  std::ostringstream Out;
  Finding F = sample();
  F.Where.File = "/nonexistent/x.cu";
  writeText(Out, {F}, diskLineReader());
  EXPECT_NE(Out.str().find("/nonexistent/x.cu:12:3: warning:"), std::string::npos);
  EXPECT_EQ(Out.str().find(" | "), std::string::npos);
}

TEST(JsonWriter, EscapesStringsAndNestsCorrectly) {
  std::ostringstream Out;
  JsonWriter J(Out, /*Pretty=*/false);
  J.beginObject();
  J.field("s", "a\"b\\c\n\x01");
  J.key("a").beginArray().value(1).value(true).null().value(2.5).endArray();
  J.key("e").beginObject().endObject();
  J.endObject();
  EXPECT_EQ(Out.str(), R"({"s":"a\"b\\c\n\u0001","a":[1,true,null,2.5],"e":{}})");
}

TEST(JsonWriter, NonFiniteNumbersBecomeNull) {
  std::ostringstream Out;
  JsonWriter J(Out, false);
  J.beginArray().value(1.0 / 0.0).endArray();
  EXPECT_EQ(Out.str(), "[null]");
}

TEST(JsonReport, CarriesFindingsErrorsAndEvidence) {
  Report R;
  R.Findings = {sample()};
  R.Errors = {{"/src/broken.cu", "could not be parsed"}};
  std::ostringstream Out;
  writeJson(Out, R);
  std::string S = Out.str();
  EXPECT_NE(S.find("\"rule\": \"syncwatch-default-stream\""), std::string::npos) << S;
  EXPECT_NE(S.find("\"api\": \"<<<>>>\""), std::string::npos) << S;
  EXPECT_NE(S.find("\"file\": \"/src/broken.cu\""), std::string::npos) << S;
}

TEST(Sarif, DescribesRulesResultsFixesAndErrors) {
  Report R;
  R.ToolName = "syncwatch-lint";
  R.Findings = {sample()};
  R.Errors = {{"/src/broken.cu", "could not be parsed"}};
  R.RulesRun = {RuleId::DefaultStream, RuleId::BlockingStream};
  R.DocsBaseUri = "file:///docs/rules/";
  std::ostringstream Out;
  writeSarif(Out, R);
  std::string S = Out.str();
  EXPECT_NE(S.find("\"version\": \"2.1.0\""), std::string::npos);
  EXPECT_NE(S.find("\"helpUri\": \"file:///docs/rules/syncwatch-default-stream.md\""), std::string::npos);
  EXPECT_NE(S.find("\"ruleIndex\": 0"), std::string::npos);
  EXPECT_NE(S.find("\"startLine\": 12"), std::string::npos);
  EXPECT_NE(S.find("\"insertedContent\""), std::string::npos);
  EXPECT_NE(S.find("\"executionSuccessful\": false"), std::string::npos);
  EXPECT_NE(S.find("\"uri\": \"file:///src/broken.cu\""), std::string::npos);
}

TEST(Sarif, UrisArePercentEncoded) {
  EXPECT_EQ(pathToUri("/a b/c#.cu"), "file:///a%20b/c%23.cu");
  EXPECT_EQ(pathToUri("rel/x.cu"), "rel/x.cu");
}

namespace {

// Every field the two report formats carry, set to something that is not its default.
Report everyField(const std::string &Tool) {
  Report R;
  R.ToolName = Tool;
  R.ToolVersion = "0.1.0";
  R.SourceRoot = "/src";
  R.RulesRun = {RuleId::DefaultStream, RuleId::SyncInLoop};
  R.DocsBaseUri = "file:///docs/rules/";
  Finding F = sample();
  F.Level = Severity::Error;
  F.Notes[0].SuggestedFixes.push_back({{"/src/train.cu", 4, 19, 4, 20}, "cudaStreamCreateWithFlags(&s, 1)"});
  F.Fingerprint = "0123456789abcdef:1";
  F.Rank = 87.5;
  F.Function = "ns::Pool::drain";
  F.MangledFunction = "_ZN2ns4Pool5drainEv";
  F.ContextLine = 3;  // CUDA_CHECK(\n cudaMemcpyAsync(...)) on lines 3-4
  F.ContextEndLine = 4;
  setMeasured(F, {12, 3.5, 1.25});
  setEvidence(F, "pythonStack", "train.py:9 (step)");
  Finding G = sample();
  G.Where = {"/elsewhere/lib.cu", 3, 1, 0, 0};
  G.Fixes.clear();
  G.Notes.clear();
  G.Level = Severity::Note;
  R.Findings = {F, G};
  R.Errors = {{"/src/broken.cu", "could not be parsed (1 error; first: x)"}};
  R.Artifacts = {{"/src/train.cu", std::string(64, 'a')}, {"/src/util.h", ""}};
  return R;
}

} // namespace

// One codec: what a writer writes, its reader reads back whole, and writing that again gives
// the same bytes - for every field (tests/fuzz checks that no input crashes the readers).
TEST(ReportCodec, SarifRoundTripsEveryFieldByteForByte) {
  Report R = everyField("syncwatch-lint");
  std::ostringstream First;
  writeSarif(First, R);
  Report Back;
  std::string Error;
  ASSERT_TRUE(readSarifReport(First.str(), Back, Error)) << Error;
  ASSERT_EQ(Back.Findings.size(), 2u);
  const Finding &F = Back.Findings[0];
  EXPECT_EQ(F.Level, Severity::Error);
  EXPECT_EQ(F.Where.File, "/src/train.cu");
  EXPECT_EQ(F.Where.EndColumn, 8u);
  EXPECT_EQ(F.Fixes.size(), 1u);
  ASSERT_EQ(F.Notes.size(), 1u);
  EXPECT_EQ(F.Notes[0].SuggestedFixes.size(), 1u);
  EXPECT_EQ(F.Fingerprint, "0123456789abcdef:1");
  EXPECT_EQ(F.Rank, 87.5);
  EXPECT_EQ(F.Function, "ns::Pool::drain");
  EXPECT_EQ(F.MangledFunction, "_ZN2ns4Pool5drainEv");
  EXPECT_EQ(F.ContextLine, 3u);
  EXPECT_EQ(F.ContextEndLine, 4u);
  EXPECT_EQ(Back.Findings[1].ContextLine, 0u);
  ASSERT_TRUE(F.Measured);
  EXPECT_EQ(F.Measured->Count, 12u);
  EXPECT_EQ(F.Measured->TotalMs, 3.5);
  EXPECT_EQ(F.Measured->MaxMs, 1.25);
  EXPECT_EQ(Back.Findings[1].Where.File, "/elsewhere/lib.cu");  // outside %SRCROOT%: absolute
  EXPECT_EQ(Back.RulesRun, R.RulesRun);
  EXPECT_EQ(Back.DocsBaseUri, R.DocsBaseUri);
  EXPECT_EQ(Back.SourceRoot, "/src");
  ASSERT_EQ(Back.Errors.size(), 1u);
  EXPECT_EQ(Back.Errors[0].File, "/src/broken.cu");
  ASSERT_EQ(Back.Artifacts.size(), 2u);
  EXPECT_EQ(Back.Artifacts[0].Sha256, std::string(64, 'a'));
  sortEvidence(Back.Findings);  // SARIF properties are an object: the reader gives key order
  Report Sorted = R;
  sortEvidence(Sorted.Findings);
  std::ostringstream Expected, Again;
  writeSarif(Expected, Sorted);
  writeSarif(Again, Back);
  EXPECT_EQ(Again.str(), Expected.str());
}

TEST(ReportCodec, JsonRoundTripsEveryFieldByteForByte) {
  Report R = everyField("libsyncwatch");
  R.Coverage = {{"cudaStreamSynchronize", {"/src/train.cu", 12, 0, 0, 0}, "/src/ext.cpp", 20, 7, 1.5, 0.5, 5}};
  R.Process = {{"host", "gpu-node-3"}, {"rank", "1"}};
  R.Figures = {{"hostTimeLostMs", "3.500000"}};
  sortEvidence(R.Findings);
  std::ostringstream First;
  writeJson(First, R);
  Report Back;
  std::string Error;
  ASSERT_TRUE(readJsonReport(First.str(), Back, Error)) << Error;
  ASSERT_EQ(Back.Findings.size(), 2u);
  const Finding &F = Back.Findings[0];
  EXPECT_EQ(F.Fingerprint, "0123456789abcdef:1");
  EXPECT_EQ(F.Rank, 87.5);
  EXPECT_EQ(F.Function, "ns::Pool::drain");
  EXPECT_EQ(F.ContextLine, 3u);
  EXPECT_EQ(F.ContextEndLine, 4u);
  ASSERT_TRUE(F.Measured);
  EXPECT_EQ(F.Measured->Count, 12u);
  EXPECT_EQ(F.Notes[0].SuggestedFixes.size(), 1u);
  ASSERT_EQ(Back.Coverage.size(), 1u);
  EXPECT_EQ(Back.Coverage[0].NativeLine, 20u);
  ASSERT_EQ(Back.Artifacts.size(), 2u);
  std::ostringstream Again;
  writeJson(Again, Back);
  EXPECT_EQ(Again.str(), First.str());
}

TEST(ReportCodec, MeasurementsAreTypedAndWrittenAsEvidence) {
  Finding F = sample();
  EXPECT_EQ(measuredMs(F), 0);
  setMeasured(F, {200, 81.6, 4.0});
  EXPECT_EQ(*evidenceOf(F, "count"), "200");
  EXPECT_EQ(*evidenceOf(F, "totalMs"), "81.600000");
  EXPECT_EQ(measuredMs(F), 81.6);
  setMeasured(F, {201, 82.0, 4.0});  // set again: in place, not a second key
  std::size_t Totals = 0;
  for (const auto &[K, V] : F.Evidence)
    Totals += K == "totalMs";
  EXPECT_EQ(Totals, 1u);
}

TEST(ReportCodec, CacheEntryRoundTripsByteForByte) {
  CacheEntry E;
  E.Deps = {{"/src/train.cu", "0123456789abcdef"}, {"/usr/include/stdio.h", "fedcba9876543210"}};
  E.Findings = everyField("syncwatch-lint").Findings;
  sortEvidence(E.Findings);
  ExportedFunction F;
  F.Usr = "c:@F@scale_async#*f#I#*$@S@CUstream_st#";
  F.Name = "scale_async";
  F.Def = {"/src/ops.cu", 14, "'scale_async'"};
  F.LeftOn = ExportedFunction::Left::OnParam;
  F.LeftParam = 2;
  F.LeftBy = {"/src/ops.cu", 15, "kernel 'scale'"};
  F.DrainsParams = {1};
  F.Waits = SummaryPlace{"/src/ops.cu", 16, "'cudaStreamSynchronize'"};
  E.Summary.Functions.push_back(F);
  E.Summary.Calls.push_back({"c:@F@release#*f#", {"/src/train.cu", 28, "'release'"},
                             {{-1, {"/src/train.cu", 27, "'scale_async'"}, {}},
                              {-1, {"/src/main.cu", 9, "kernel 'scale'"}, {{"/src/main.cu", 10, "'train'"}}}}});
  std::string First = cacheEntryText(E);
  CacheEntry Back;
  std::string Error;
  ASSERT_TRUE(readCacheEntry(First, Back, Error)) << Error;
  EXPECT_EQ(Back.Deps, E.Deps);
  ASSERT_EQ(Back.Findings.size(), 2u);
  EXPECT_EQ(Back.Findings[0].Function, "ns::Pool::drain");
  EXPECT_EQ(Back.Findings[0].Notes[0].SuggestedFixes.size(), 1u);
  EXPECT_EQ(Back.Summary, E.Summary);
  EXPECT_EQ(cacheEntryText(Back), First);
  // Another version, or a dependency of the wrong shape, is not an entry (a miss).
  std::string Old = First;
  Old.replace(Old.find("\"version\": 5"), 12, "\"version\": 4");
  EXPECT_FALSE(readCacheEntry(Old, Back, Error));
  std::string BadDep = First;
  BadDep.replace(BadDep.find("\"0123456789abcdef\""), 18, "17");
  EXPECT_FALSE(readCacheEntry(BadDep, Back, Error));
}

// Cross-unit summaries (unit_summary.h): the index trusts one summary per function, a unit's
// slice holds only what changes its analysis, and the file format round-trips.
TEST(UnitSummaries, IndexSlicesAndFiles) {
  ExportedFunction Scale;
  Scale.Usr = "c:@F@scale";
  Scale.Name = "scale";
  Scale.Def = {"/src/ops.cu", 3, "'scale'"};
  Scale.LeftOn = ExportedFunction::Left::OnParam;
  Scale.LeftParam = 0;
  ExportedFunction Log = Scale;
  Log.Usr = "c:@F@log";
  Log.Name = "log";
  Log.LeftOn = ExportedFunction::Left::None;
  Log.LeftParam = -1;
  UnitSummary Ops{{Scale, Log}, {}};
  UnitSummary Train{{}, {{"c:@F@scale", {"/src/train.cu", 9, "'scale'"}, {}},
                         {"c:@F@log", {"/src/train.cu", 10, "'log'"}, {}}}};
  UnitSummary Other{{}, {{"c:@F@log", {"/src/other.cu", 4, "'log'"}, {}}}};
  SummaryIndex Index;
  Index.add(Ops);
  Index.add(Train);
  Index.add(Other);
  ASSERT_NE(Index.function("c:@F@scale"), nullptr);
  EXPECT_TRUE(Index.function("c:@F@log")->trivial());
  // train.cu calls a function that leaves work: it is analyzed again; other.cu calls only a
  // trivial one, and nobody calls ops.cu's functions with work in flight: they are not.
  EXPECT_NE(Index.sliceFor(Train), "");
  EXPECT_EQ(Index.sliceFor(Other), "");
  EXPECT_EQ(Index.sliceFor(Ops), "");
  UnitSummary Caller{{}, {{"c:@F@scale", {"/src/main.cu", 5, "'scale'"}, {{0, {"/src/main.cu", 4, "kernel 'k'"}}}}}};
  Index.add(Caller);
  EXPECT_NE(Index.sliceFor(Ops), "");
  EXPECT_EQ(Index.restrictedTo(Ops).callersOf("c:@F@scale").size(), 1u);
  // Two different summaries of one function (#ifdef'd per unit): neither is trusted.
  ExportedFunction Drains = Scale;
  Drains.LeftOn = ExportedFunction::Left::None;
  Drains.DrainsAll = true;
  Index.add(UnitSummary{{Drains}, {}});
  EXPECT_EQ(Index.function("c:@F@scale"), nullptr);
  // The file round-trips; a damaged one is refused with a reason.
  std::vector<std::pair<std::string, UnitSummary>> Units = {{"/src/ops.cu", Ops}, {"/src/train.cu", Train}}, Back;
  std::string Error;
  ASSERT_TRUE(readSummaryFile(summaryFileText(Units), Back, Error)) << Error;
  EXPECT_EQ(Back, Units);
  EXPECT_FALSE(readSummaryFile("{\"version\": 1, \"units\": [{\"file\": \"a\", \"summary\": 3}]}", Back, Error));
  EXPECT_FALSE(Error.empty());
  EXPECT_FALSE(readSummaryFile("{\"version\": 2, \"units\": []}", Back, Error));
}

TEST(ReportCodec, BaselineRoundTrips) {
  std::vector<Finding> Findings = everyField("syncwatch-lint").Findings;
  std::string Text = baselineText(Findings, {"aaaa:1", "bbbb:1"}, "/src");
  std::set<std::string> Known;
  std::string Error;
  ASSERT_TRUE(readBaselineText(Text, Known, Error)) << Error;
  EXPECT_EQ(Known, (std::set<std::string>{"aaaa:1", "bbbb:1"}));
  EXPECT_NE(Text.find("\"file\": \"train.cu\""), std::string::npos) << Text;  // relative to the base
  EXPECT_FALSE(readBaselineText("{\"version\": 1, \"findings\": [7]}", Known, Error));
  EXPECT_NE(Error.find("findings[0]"), std::string::npos) << Error;
  EXPECT_FALSE(readBaselineText("{\"version\": 2, \"findings\": []}", Known, Error));
}

// How both halves name a function (finding.h): the lint's Finding::Function, the runtime's
// release-build symbols, a torch op, confirm's join by function.
TEST(Finding, QualifiedFunctionName) {
  EXPECT_EQ(qualifiedFunctionName("void ns::f<int>(float)+0x5f"), "ns::f");
  EXPECT_EQ(qualifiedFunctionName("int at::Tensor::item<int>() const"), "at::Tensor::item");
  EXPECT_EQ(qualifiedFunctionName("count_item(at::Tensor)"), "count_item");
  EXPECT_EQ(qualifiedFunctionName("count_item+0x291"), "count_item");
  EXPECT_EQ(qualifiedFunctionName("void launch_scale<at::Half>(at::Tensor&, double)"), "launch_scale");
  EXPECT_EQ(qualifiedFunctionName("ns::Pool::drain"), "ns::Pool::drain");
  // An anonymous namespace is part of the name (it used to cut the name at its parenthesis).
  EXPECT_EQ(qualifiedFunctionName("(anonymous namespace)::upload(float*, int)"), "(anonymous namespace)::upload");
  EXPECT_EQ(qualifiedFunctionName("void (anonymous namespace)::run<2>(int)+0x10"), "(anonymous namespace)::run");
}

// Several units' findings into one report (finding.h's sortFindings): a header's legacy
// event record is a warning in a unit that uses streams and a note in one that does not.
// One place, one rule: the warning stands; two warnings with different messages both stay,
// and another rule at the same place is its own.
TEST(Finding, OnePlaceOneRuleKeepsTheMostSevere) {
  Finding Warn = sample();
  Warn.Where = {"/src/include/timer.h", 370, 9, 370, 24};
  Warn.Message = "'cudaEventRecord' ... serializes it with every blocking stream";
  Finding Note = Warn;
  Note.Level = Severity::Note;
  Note.Message = "'cudaEventRecord' ... before this code shares the GPU with other streams";
  Finding OtherWarn = Warn;
  OtherWarn.Message = "'cudaEventRecord' ... (from another unit's context)";
  Finding OtherRule = Note;
  OtherRule.Rule = "syncwatch-sync-memcpy";
  std::vector<Finding> Findings = {Note, OtherRule, Warn, Note, OtherWarn};
  sortFindings(Findings);
  ASSERT_EQ(Findings.size(), 3u);
  EXPECT_EQ(Findings[0].Rule, "syncwatch-default-stream");
  EXPECT_EQ(Findings[0].Level, Severity::Warning);
  EXPECT_EQ(Findings[1].Rule, "syncwatch-default-stream");
  EXPECT_EQ(Findings[1].Level, Severity::Warning);
  EXPECT_NE(Findings[0].Message, Findings[1].Message);
  EXPECT_EQ(Findings[2].Rule, "syncwatch-sync-memcpy");
  EXPECT_EQ(Findings[2].Level, Severity::Note);
  // The same in any order of the units.
  std::vector<Finding> Reversed = {OtherWarn, Note, Warn, OtherRule};
  sortFindings(Reversed);
  ASSERT_EQ(Reversed.size(), 3u);
  for (std::size_t I = 0; I < 3; ++I)
    EXPECT_EQ(Reversed[I].Message, Findings[I].Message);
}
