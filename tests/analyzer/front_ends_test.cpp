// Runs BOTH front ends - the real clang-tidy-22 binary with libsyncwatch-tidy.so, and
// syncwatch-lint - over every annotated program in test_inputs/static/ and checks that
//  1. each reports exactly the findings annotated with "// expect: <severity> <rule>"
//     on the line where they are reported (missing and extra findings both fail);
//  2. both report the same findings (line, column, severity, rule, message).
// The annotation format is documented in test_inputs/static/README.md.
#include "syncwatch/catalogue.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Reported {
  unsigned Line = 0, Column = 0;
  std::string Severity, Rule, Message;
  auto key() const { return std::tie(Line, Severity, Rule); }
  bool operator<(const Reported &O) const {
    return std::tie(Line, Column, Severity, Rule, Message) <
           std::tie(O.Line, O.Column, O.Severity, O.Rule, O.Message);
  }
  bool operator==(const Reported &O) const { return !(*this < O) && !(O < *this); }
};

std::string runCommand(const std::string &Cmd, int *Status) {
  std::string Out;
  FILE *P = popen((Cmd + " 2>&1").c_str(), "r");
  if (!P)
    return Out;
  std::array<char, 4096> Buf;
  while (std::size_t N = fread(Buf.data(), 1, Buf.size(), P))
    Out.append(Buf.data(), N);
  int S = pclose(P);
  if (Status)
    *Status = WIFEXITED(S) ? WEXITSTATUS(S) : -1;
  return Out;
}

std::string directive(const std::string &Text, const std::string &Name) {
  std::smatch M;
  std::regex Re("//\\s*" + Name + ":\\s*(.*)");
  std::istringstream In(Text);
  std::string Line;
  for (int I = 0; I < 8 && std::getline(In, Line); ++I)
    if (std::regex_search(Line, M, Re))
      return M[1];
  return "";
}

// "// expect: warning syncwatch-default-stream; note syncwatch-blocking-stream"
std::multiset<std::tuple<unsigned, std::string, std::string>> expectations(const std::string &Text) {
  std::multiset<std::tuple<unsigned, std::string, std::string>> Out;
  std::istringstream In(Text);
  std::string Line;
  std::regex Item("(warning|note|error)\\s+(syncwatch-[a-z-]+)");
  for (unsigned N = 1; std::getline(In, Line); ++N) {
    auto Pos = Line.find("// expect:");
    if (Pos == std::string::npos)
      continue;
    std::string Rest = Line.substr(Pos + 10);
    for (std::sregex_iterator It(Rest.begin(), Rest.end(), Item), End; It != End; ++It)
      Out.insert({N, (*It)[1], (*It)[2]});
  }
  return Out;
}

// file:line:col: severity: message [syncwatch-rule]; notes (no rule) are not findings.
std::vector<Reported> parseDiagnostics(const std::string &Output, const std::string &File) {
  std::vector<Reported> Out;
  std::regex Re("^(.*):(\\d+):(\\d+): (warning|remark|note|error): (.*) \\[(syncwatch-[a-z-]+)\\]$");
  std::istringstream In(Output);
  std::string Line;
  while (std::getline(In, Line)) {
    std::smatch M;
    if (!std::regex_match(Line, M, Re) || fs::path(M[1].str()).filename() != fs::path(File).filename())
      continue;
    Reported R;
    R.Line = std::stoul(M[2]);
    R.Column = std::stoul(M[3]);
    // clang-tidy has no standalone note level: syncwatch's notes are its remarks.
    R.Severity = M[4] == "remark" ? "note" : M[4].str();
    R.Message = M[5];
    R.Rule = M[6];
    Out.push_back(R);
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string describe(const std::multiset<std::tuple<unsigned, std::string, std::string>> &S) {
  std::string Out;
  for (const auto &[L, Sev, Rule] : S)
    Out += "    line " + std::to_string(L) + ": " + Sev + " " + Rule + "\n";
  return Out.empty() ? "    (none)\n" : Out;
}

void compareWithAnnotations(const std::string &FrontEnd, const std::string &Path,
                            const std::vector<Reported> &Got, const std::string &RawOutput) {
  std::string Text = [&] {
    std::ifstream In(Path);
    return std::string(std::istreambuf_iterator<char>(In), {});
  }();
  auto Want = expectations(Text);
  std::multiset<std::tuple<unsigned, std::string, std::string>> Have;
  for (const Reported &R : Got)
    Have.insert({R.Line, R.Severity, R.Rule});
  std::multiset<std::tuple<unsigned, std::string, std::string>> Missing, Extra;
  std::set_difference(Want.begin(), Want.end(), Have.begin(), Have.end(),
                      std::inserter(Missing, Missing.end()));
  std::set_difference(Have.begin(), Have.end(), Want.begin(), Want.end(),
                      std::inserter(Extra, Extra.end()));
  EXPECT_TRUE(Missing.empty() && Extra.empty())
      << FrontEnd << " on " << Path << "\n  missing (annotated, not reported):\n"
      << describe(Missing) << "  extra (reported, not annotated):\n"
      << describe(Extra) << "  output was:\n"
      << RawOutput;
}

class FrontEnds : public ::testing::TestWithParam<std::string> {};

TEST_P(FrontEnds, ReportExactlyTheAnnotatedFindings) {
  const std::string Path = GetParam();
  std::ifstream In(Path);
  std::string Text((std::istreambuf_iterator<char>(In)), {});
  std::string ClangFlags = directive(Text, "clang-flags");
  // @TORCH@: the include folders of a torch wheel's headers (tests/CMakeLists.txt).
  if (auto At = ClangFlags.find("@TORCH@"); At != std::string::npos) {
    ASSERT_STRNE(SYNCWATCH_TORCH_FLAGS, "") << Path << " needs the torch headers: run tools/torch_headers.py "
                                               "and configure again (or set SYNCWATCH_TORCH_INCLUDE)";
    ClangFlags.replace(At, 7, SYNCWATCH_TORCH_FLAGS);
  }
  // clang's driver drops -fgpu-default-stream= under -fsyntax-only, as clang-tidy runs it;
  // syncwatch-lint passes it on by itself, clang-tidy users add -Xclang (docs/editor.md).
  std::string TidyFlags = std::regex_replace(
      ClangFlags, std::regex("(^| )(-fgpu-default-stream=)"), "$1-Xclang $2");

  std::string TidyCmd = std::string(SYNCWATCH_CLANG_TIDY) + " --load=" SYNCWATCH_TIDY_PLUGIN +
                        " --checks=-*,syncwatch-* --quiet '" + Path +
                        "' -- --cuda-host-only -Wno-unknown-cuda-version --cuda-path=" +
                        SYNCWATCH_CUDA_PATH + " --cuda-gpu-arch=sm_90 -isystem " +
                        SYNCWATCH_CUDA_PATH "/include/cccl " + TidyFlags;
  int TidyStatus = -1;
  std::string TidyOut = runCommand(TidyCmd, &TidyStatus);
  ASSERT_EQ(TidyStatus, 0) << TidyCmd << "\n" << TidyOut;
  std::vector<Reported> Tidy = parseDiagnostics(TidyOut, Path);

  std::string LintCmd = std::string(SYNCWATCH_LINT) + " --no-source --fail-on=error '" + Path +
                        "' -- " + ClangFlags;
  int LintStatus = -1;
  std::string LintOut = runCommand(LintCmd, &LintStatus);
  ASSERT_EQ(LintStatus, 0) << LintCmd << "\n" << LintOut;
  std::vector<Reported> Lint = parseDiagnostics(LintOut, Path);

  compareWithAnnotations("clang-tidy plugin", Path, Tidy, TidyOut);
  compareWithAnnotations("syncwatch-lint", Path, Lint, LintOut);
  EXPECT_EQ(Tidy, Lint) << "the two front ends disagree on " << Path << "\nclang-tidy:\n"
                        << TidyOut << "\nsyncwatch-lint:\n"
                        << LintOut;
}

std::vector<std::string> inputs() {
  std::vector<std::string> Files;
  for (const auto &E : fs::directory_iterator(SYNCWATCH_TEST_INPUTS "/static"))
    if (E.path().extension() == ".cu")
      Files.push_back(E.path().string());
  std::sort(Files.begin(), Files.end());
  return Files;
}

INSTANTIATE_TEST_SUITE_P(TestInputs, FrontEnds, ::testing::ValuesIn(inputs()),
                         [](const ::testing::TestParamInfo<std::string> &Info) {
                           std::string N = fs::path(Info.param).stem().string();
                           for (char &C : N)
                             if (!isalnum(static_cast<unsigned char>(C)))
                               C = '_';
                           return N;
                         });

// Files are named <rule prefix>_<pos|neg>_<what>.cu. A *_neg_* file is a look-alike for
// its rule: it must not expect that rule (other rules may fire on it, and are annotated).
TEST(FrontEndsCorpus, HasEnoughInputsAndLookAlikes) {
  std::map<std::string, std::string> RuleOfPrefix;  // rules.def's Prefix column
  for (const syncwatch::RuleInfo &R : syncwatch::allRules())
    if (!R.TestPrefix.empty())
      RuleOfPrefix[std::string(R.TestPrefix)] = std::string(R.Id);
  std::map<std::string, unsigned> Positives, Negatives;
  unsigned Total = 0;
  for (const std::string &F : inputs()) {
    ++Total;
    std::string Stem = fs::path(F).stem().string();
    auto Parts = Stem.find('_');
    std::string Prefix = Stem.substr(0, Parts);
    auto Rule = RuleOfPrefix.find(Prefix);
    if (Rule == RuleOfPrefix.end())
      continue;
    std::ifstream In(F);
    std::string Text((std::istreambuf_iterator<char>(In)), {});
    bool ExpectsOwnRule = false;
    for (const auto &[Line, Sev, R] : expectations(Text))
      ExpectsOwnRule = ExpectsOwnRule || R == Rule->second;
    if (Stem.compare(Parts, 5, "_neg_") == 0) {
      ++Negatives[Prefix];
      EXPECT_FALSE(ExpectsOwnRule) << F << " is a look-alike for " << Rule->second;
    } else {
      ++Positives[Prefix];
      EXPECT_TRUE(ExpectsOwnRule) << F << " must show " << Rule->second;
    }
  }
  EXPECT_GE(Total, 65u);
  for (const auto &[Prefix, Rule] : RuleOfPrefix) {
    EXPECT_GE(Positives[Prefix], 3u) << Rule;
    EXPECT_GE(Negatives[Prefix], 3u) << Rule;
    EXPECT_GE(Negatives[Prefix] * 4, Positives[Prefix]) << Rule << ": too few look-alikes";
  }
  unsigned AllNeg = 0, AllPos = 0;
  for (const auto &[P, N] : Negatives) AllNeg += N;
  for (const auto &[P, N] : Positives) AllPos += N;
  EXPECT_GE(AllNeg * 3, AllNeg + AllPos) << "at least a third of the inputs are look-alikes";
}

} // namespace
