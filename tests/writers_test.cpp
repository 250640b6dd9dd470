#include "syncwatch/json_writer.h"
#include "syncwatch/report.h"

#include <gtest/gtest.h>

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
