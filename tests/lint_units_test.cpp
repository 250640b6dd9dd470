#include "../analyzer/lint/GlobList.h"
#include "../analyzer/lint/HostSideArgs.h"
#include "../analyzer/lint/NoLintFilter.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace syncwatch;

TEST(GlobList, LastMatchingGlobDecides) {
  GlobList G("-*,syncwatch-*,-syncwatch-blocking-stream");
  EXPECT_TRUE(G.contains("syncwatch-default-stream"));
  EXPECT_FALSE(G.contains("syncwatch-blocking-stream"));
  EXPECT_FALSE(G.contains("bugprone-foo"));
  EXPECT_TRUE(GlobList("syncwatch-default-stream").contains("syncwatch-default-stream"));
  EXPECT_FALSE(GlobList("").contains("syncwatch-default-stream"));
  EXPECT_TRUE(GlobList(" syncwatch-* , -x").contains("syncwatch-a"));
  // Glob characters other than '*' are literal.
  EXPECT_FALSE(GlobList("syncwatch.default").contains("syncwatchXdefault"));
}

TEST(NoLint, SameLineNextLineAndLists) {
  const char *Text = "a();  // NOLINT\n"
                     "b();  // NOLINT(syncwatch-default-stream)\n"
                     "c();  // NOLINT(bugprone-*)\n"
                     "// NOLINTNEXTLINE(syncwatch-*)\n"
                     "d();\n"
                     "e();\n";
  EXPECT_TRUE(NoLintFilter::suppresses(Text, 1, "syncwatch-default-stream"));
  EXPECT_TRUE(NoLintFilter::suppresses(Text, 2, "syncwatch-default-stream"));
  EXPECT_FALSE(NoLintFilter::suppresses(Text, 2, "syncwatch-blocking-stream"));
  EXPECT_FALSE(NoLintFilter::suppresses(Text, 3, "syncwatch-default-stream"));
  EXPECT_TRUE(NoLintFilter::suppresses(Text, 5, "syncwatch-blocking-stream"));
  EXPECT_FALSE(NoLintFilter::suppresses(Text, 6, "syncwatch-default-stream"));
  EXPECT_FALSE(NoLintFilter::suppresses(Text, 4, "syncwatch-default-stream"));
}

TEST(NoLint, BeginEndRegions) {
  const char *Text = "// NOLINTBEGIN(syncwatch-default-stream)\n"
                     "a();\n"
                     "// NOLINTBEGIN\n"
                     "b();\n"
                     "// NOLINTEND\n"
                     "c();\n"
                     "// NOLINTEND(syncwatch-default-stream)\n"
                     "d();\n";
  EXPECT_TRUE(NoLintFilter::suppresses(Text, 2, "syncwatch-default-stream"));
  EXPECT_FALSE(NoLintFilter::suppresses(Text, 2, "syncwatch-blocking-stream"));
  EXPECT_TRUE(NoLintFilter::suppresses(Text, 4, "syncwatch-blocking-stream"));
  EXPECT_FALSE(NoLintFilter::suppresses(Text, 6, "syncwatch-blocking-stream"));
  EXPECT_TRUE(NoLintFilter::suppresses(Text, 6, "syncwatch-default-stream"));
  EXPECT_FALSE(NoLintFilter::suppresses(Text, 8, "syncwatch-default-stream"));
}

TEST(NoLint, UnmatchedBeginSilencesNothingAndIsReported) {
  const char *Text = "// NOLINTBEGIN\n"
                     "a();\n";
  std::vector<std::string> Problems;
  EXPECT_FALSE(NoLintFilter::suppresses(Text, 2, "syncwatch-default-stream", &Problems));
  ASSERT_EQ(Problems.size(), 1u);
  EXPECT_NE(Problems[0].find("unmatched 'NOLINTBEGIN'"), std::string::npos);
}

TEST(HostSideArgs, CudaFilesAreParsedHostSide) {
  HostSideConfig C{"/rd", "/usr/local/cuda", "sm_90"};
  auto Adjust = hostSideAdjuster(C);
  auto Out = Adjust({"clang++", "-O2", "--cuda-device-only", "x.cu"}, "x.cu");
  std::vector<std::string> Want = {"clang++", "-resource-dir=/rd", "--cuda-host-only",
                                   "-Wno-unknown-cuda-version", "--cuda-path=/usr/local/cuda",
                                   "--cuda-gpu-arch=sm_90", "-isystem",
                                   "/usr/local/cuda/include/cccl", "-O2", "x.cu"};
  if (!std::filesystem::is_directory("/usr/local/cuda/include/cccl"))
    Want.erase(Want.begin() + 6, Want.begin() + 8);
  EXPECT_EQ(Out, Want);
  // A C++ file only gets the resource dir; given arch and CUDA path are kept.
  EXPECT_EQ(Adjust({"g++", "a.cpp"}, "a.cpp"),
            (std::vector<std::string>{"g++", "-resource-dir=/rd", "a.cpp"}));
  auto Kept = Adjust({"clang++", "--cuda-gpu-arch=sm_80", "--cuda-path=/opt/cuda", "y.cu"}, "y.cu");
  EXPECT_EQ(std::count(Kept.begin(), Kept.end(), "--cuda-gpu-arch=sm_90"), 0);
  EXPECT_EQ(std::count(Kept.begin(), Kept.end(), "--cuda-path=/usr/local/cuda"), 0);
}

TEST(HostSideArgs, PerThreadFlagReachesTheFrontEnd) {
  auto Adjust = hostSideAdjuster(HostSideConfig{"", "", "sm_90"});
  auto Out = Adjust({"clang++", "-fgpu-default-stream=per-thread", "x.cu"}, "x.cu");
  auto It = std::find(Out.begin(), Out.end(), "-fgpu-default-stream=per-thread");
  ASSERT_NE(It, Out.end());
  EXPECT_EQ(*(It - 1), "-Xclang");
  // Already passed to cc1: left alone.
  auto Kept = Adjust({"clang++", "-Xclang", "-fgpu-default-stream=per-thread", "x.cu"}, "x.cu");
  EXPECT_EQ(std::count(Kept.begin(), Kept.end(), "-Xclang"), 1);
}
