#include "../../analyzer/lint/CudaInstall.h"
#include "../../analyzer/unit/GlobList.h"
#include "../../analyzer/unit/HeldParse.h"
#include "../../analyzer/lint/HostSideArgs.h"
#include "../../analyzer/lint/KnownSummaries.h"
#include "../../analyzer/lint/LintRunner.h"
#include "../../analyzer/unit/NoLintFilter.h"
#include "../../analyzer/unit/PreludePch.h"
#include "../../analyzer/unit/UnitRunner.h"
#include "../../analyzer/lint/NvccTranslation.h"
#include "../../analyzer/lint/UnitOrder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <unistd.h>

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
                                   "-Wno-unknown-cuda-version", "-Wno-register",
                                   "--cuda-path=/usr/local/cuda", "--cuda-gpu-arch=sm_90", "-isystem",
                                   "/usr/local/cuda/include/cccl", "-O2", "x.cu"};
  if (!std::filesystem::is_directory("/usr/local/cuda/include/cccl"))
    Want.erase(Want.begin() + 7, Want.begin() + 9);
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

// ---- nvcc / g++ database entries (NvccTranslation.h) ----

namespace {
TranslationConfig translationConfig() {
  TranslationConfig C;
  C.ResourceDir = "/usr/lib/llvm-22/lib/clang/22";
  C.FallbackCudaPath = "/usr/local/cuda";
  C.CompatDir = SYNCWATCH_COMPAT_DIR;
  return C;
}
bool has(const std::vector<std::string> &V, const std::string &S) {
  return std::find(V.begin(), V.end(), S) != V.end();
}
bool hasPrefix(const std::vector<std::string> &V, const std::string &P) {
  return std::any_of(V.begin(), V.end(), [&](const std::string &S) { return S.rfind(P, 0) == 0; });
}
} // namespace

TEST(NvccTranslation, DetectsTheCompiler) {
  EXPECT_EQ(detectCompiler({"/usr/local/cuda/bin/nvcc", "-c", "a.cu"}, "a.cu"), CompilerKind::Nvcc);
  EXPECT_EQ(detectCompiler({"/usr/bin/ccache", "nvcc", "-c", "a.cu"}, "a.cu"), CompilerKind::Nvcc);
  EXPECT_EQ(detectCompiler({"clang++-22", "-x", "cuda", "a.cu"}, "a.cu"), CompilerKind::Clang);
  EXPECT_EQ(detectCompiler({"/usr/bin/c++", "-c", "a.cpp"}, "a.cpp"), CompilerKind::Gcc);
  EXPECT_EQ(detectCompiler({"x86_64-linux-gnu-g++-12", "-c", "a.cpp"}, "a.cpp"), CompilerKind::Gcc);
  // A wrapper script around nvcc: recognized by nvcc-only options on a .cu file.
  EXPECT_EQ(detectCompiler({"cudawrap", "-arch=sm_90", "-c", "a.cu"}, "a.cu"), CompilerKind::Nvcc);
  EXPECT_EQ(detectCompiler({"cudawrap", "-O2", "-c", "a.cu"}, "a.cu"), CompilerKind::Unknown);
}

TEST(NvccTranslation, CMakeCudaEntry) {
  // What CMake 3.25 writes for a CUDA target (compile_commands.json, one entry).
  std::vector<std::string> Cmd = {
      "/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler", "-DUSE_X", "-DNAME=\"v\"",
      "-I/src/include", "-isystem", "/usr/local/cuda/targets/x86_64-linux/include",
      "-I/usr/local/cuda/include", "-O3", "-DNDEBUG", "-std=c++17",
      "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-Xcompiler=-fPIC",
      "--default-stream", "per-thread", "-Xcompiler", "-fopenmp,-Wall", "--extended-lambda",
      "--expt-relaxed-constexpr", "-rdc=true", "--use_fast_math", "-lineinfo", "-t", "2",
      "-ccbin", "/usr/bin/g++", "-Werror", "all-warnings", "-MD", "-MT", "a.o", "-MF",
      "a.o.d", "-x", "cu", "-c", "/src/a.cu", "-o", "a.o"};
  TranslatedCommand T = translateCommand(Cmd, "/build", "/src/a.cu", translationConfig());
  ASSERT_TRUE(T.Error.empty()) << T.Error;
  EXPECT_EQ(T.Kind, CompilerKind::Nvcc);
  EXPECT_TRUE(T.Cuda);
  EXPECT_EQ(T.CudaPath, "/usr/local/cuda");
  const auto &A = T.Args;
  EXPECT_EQ(A.front(), "clang++");
  EXPECT_EQ(A.back(), "/src/a.cu");
  EXPECT_TRUE(has(A, "--cuda-gpu-arch=sm_90"));
  EXPECT_EQ(std::count_if(A.begin(), A.end(), [](const std::string &S) { return S.rfind("--cuda-gpu-arch", 0) == 0; }), 1);
  EXPECT_TRUE(has(A, "-fgpu-default-stream=per-thread"));
  EXPECT_TRUE(has(A, "-fgpu-rdc"));
  EXPECT_TRUE(has(A, "-D__CUDACC_RDC__"));
  EXPECT_TRUE(has(A, "-D__CUDACC_EXTENDED_LAMBDA__"));
  EXPECT_TRUE(has(A, "-D__CUDACC_RELAXED_CONSTEXPR__"));
  EXPECT_TRUE(hasPrefix(A, "-D__CUDACC_VER_MAJOR__="));
  EXPECT_TRUE(has(A, "-DUSE_X"));
  EXPECT_TRUE(has(A, "-DNAME=\"v\""));
  EXPECT_TRUE(has(A, "-I/src/include"));
  EXPECT_TRUE(has(A, "-O3"));
  EXPECT_TRUE(has(A, "-std=c++17"));
  EXPECT_TRUE(has(A, "-fPIC"));
  EXPECT_TRUE(has(A, "-fopenmp"));
  EXPECT_TRUE(has(A, "-Wall"));
  EXPECT_TRUE(has(A, "-x"));
  EXPECT_TRUE(has(A, "cuda"));
  EXPECT_TRUE(has(A, "--cuda-path=/usr/local/cuda"));
  EXPECT_TRUE(has(A, "-include"));
  // CUDA's include dirs, even given with -I, stay system headers.
  EXPECT_FALSE(has(A, "-I/usr/local/cuda/include"));
  for (const char *Gone : {"-forward-unknown-to-host-compiler", "--extended-lambda", "-lineinfo",
                           "--use_fast_math", "-ccbin", "/usr/bin/g++", "-t", "-Werror",
                           "all-warnings", "-MD", "-MF", "-rdc=true", "--default-stream", "cu",
                           "--generate-code=arch=compute_90,code=[compute_90,sm_90]",
                           "-Xcompiler", "-Xcompiler=-fPIC"})
    EXPECT_FALSE(has(A, Gone)) << Gone;
  EXPECT_TRUE(has(T.Dropped, "--extended-lambda"));
}

TEST(NvccTranslation, ArchitecturesAndSpellings) {
  auto Args = [](std::vector<std::string> Cmd) {
    return translateCommand(Cmd, "/b", "k.cu", translationConfig()).Args;
  };
  auto A = Args({"nvcc", "-arch=sm_80", "-gencode", "arch=compute_90a,code=sm_90a", "-c", "k.cu"});
  EXPECT_TRUE(has(A, "--cuda-gpu-arch=sm_80"));
  EXPECT_TRUE(has(A, "--cuda-gpu-arch=sm_90a"));
  // native/all have no meaning without a GPU here: the default architecture.
  A = Args({"nvcc", "-arch=native", "-c", "k.cu"});
  EXPECT_TRUE(has(A, "--cuda-gpu-arch=sm_90"));
  A = Args({"nvcc", "--gpu-architecture", "compute_100f", "-c", "k.cu"});
  EXPECT_TRUE(has(A, "--cuda-gpu-arch=sm_100"));
  // Short options with attached values, --long=value, and separate values.
  A = Args({"nvcc", "-Iinc", "-DA=1,B=2", "--include-path=x,y", "--std", "c++20", "--optimize", "2",
            "-default-stream=legacy", "--relocatable-device-code", "false", "-c", "k.cu"});
  EXPECT_TRUE(has(A, "-Iinc"));
  EXPECT_TRUE(has(A, "-DA=1"));
  EXPECT_TRUE(has(A, "-DB=2"));
  EXPECT_TRUE(has(A, "-Ix"));
  EXPECT_TRUE(has(A, "-Iy"));
  EXPECT_TRUE(has(A, "-std=c++20"));
  EXPECT_TRUE(has(A, "-O2"));
  EXPECT_TRUE(has(A, "-fgpu-default-stream=legacy"));
  EXPECT_FALSE(has(A, "-fgpu-rdc"));
  // -dc is -c plus relocatable device code.
  A = Args({"nvcc", "-dc", "k.cu"});
  EXPECT_TRUE(has(A, "-c"));
  EXPECT_TRUE(has(A, "-fgpu-rdc"));
  // A .cpp compiled by nvcc without -x cu is host C++ with CUDA's headers on the path.
  auto T = translateCommand(std::vector<std::string>{"nvcc", "-c", "h.cpp"}, "/b", "h.cpp", translationConfig());
  EXPECT_FALSE(T.Cuda);
  EXPECT_FALSE(has(T.Args, "cuda"));
  // Where "nvcc" resolves depends on PATH (/usr/local/bin/nvcc beside a CUDA tree linked
  // into /usr/local on some machines): the install it found, whichever that is.
  ASSERT_FALSE(T.CudaPath.empty());
  EXPECT_TRUE(has(T.Args, T.CudaPath + "/include"));
  T = translateCommand(std::vector<std::string>{"nvcc", "-x", "cu", "-c", "h.cpp"}, "/b", "h.cpp", translationConfig());
  EXPECT_TRUE(T.Cuda);
}

TEST(NvccTranslation, GccEntries) {
  std::vector<std::string> Cmd = {"/usr/bin/c++", "-DX", "-I/src", "-I/usr/local/cuda/include",
                                  "-O2", "-Werror", "-Werror=shadow", "-fopenmp",
                                  "-fconcepts-diagnostics-depth=3", "-o", "a.o", "-c", "/src/a.cpp"};
  TranslatedCommand T = translateCommand(Cmd, "/b", "/src/a.cpp", translationConfig());
  EXPECT_EQ(T.Kind, CompilerKind::Gcc);
  EXPECT_FALSE(T.Cuda);
  EXPECT_EQ(T.Args.front(), "clang++");
  EXPECT_TRUE(has(T.Args, "-DX"));
  EXPECT_TRUE(has(T.Args, "-I/src"));
  EXPECT_TRUE(has(T.Args, "-fopenmp"));
  EXPECT_FALSE(has(T.Args, "-Werror"));
  EXPECT_FALSE(has(T.Args, "-Werror=shadow"));
  EXPECT_FALSE(has(T.Args, "-fconcepts-diagnostics-depth=3"));  // unknown to clang's driver
  EXPECT_TRUE(has(T.Dropped, "-fconcepts-diagnostics-depth=3"));
  EXPECT_FALSE(has(T.Args, "-I/usr/local/cuda/include"));
  // -fopenmp without an omp.h in clang's resource dir: GCC's, through a forwarding header.
  if (!std::filesystem::exists("/usr/lib/llvm-22/lib/clang/22/include/omp.h") &&
      !findGccOmpHeader("g++").empty())
    EXPECT_TRUE(hasPrefix(T.Args, "-DSYNCWATCH_GCC_OMP_H="));
  // clang's own commands pass unchanged.
  std::vector<std::string> Clang = {"clang++", "-x", "cuda", "--cuda-gpu-arch=sm_80", "-c", "k.cu"};
  EXPECT_EQ(translateCommand(Clang, "/b", "k.cu", translationConfig()).Args, Clang);
}

TEST(NvccTranslation, ResponseFiles) {
  auto Dir = std::filesystem::temp_directory_path() / "syncwatch_rsp_test";
  std::filesystem::create_directories(Dir);
  {
    std::ofstream(Dir / "flags.rsp") << "-DFROM_RSP=1 -Iinc\n--default-stream per-thread\n";
    std::ofstream(Dir / "more.rsp") << "-DFROM_OPTF";
  }
  std::vector<std::string> Cmd = {"nvcc", "@flags.rsp", "--options-file", "more.rsp", "-c", "k.cu"};
  TranslatedCommand T = translateCommand(Cmd, Dir.string(), "k.cu", translationConfig());
  ASSERT_TRUE(T.Error.empty()) << T.Error;
  EXPECT_TRUE(has(T.Args, "-DFROM_RSP=1"));
  EXPECT_TRUE(has(T.Args, "-Iinc"));
  EXPECT_TRUE(has(T.Args, "-DFROM_OPTF"));
  EXPECT_TRUE(has(T.Args, "-fgpu-default-stream=per-thread"));
  // A missing response file is an error that names it, not a silent skip.
  Cmd = {"nvcc", "@missing.rsp", "-c", "k.cu"};
  T = translateCommand(Cmd, Dir.string(), "k.cu", translationConfig());
  EXPECT_NE(T.Error.find("missing.rsp"), std::string::npos) << T.Error;
  std::filesystem::remove_all(Dir);
}

TEST(NvccTranslation, CudaInstallAndVersion) {
  if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc"))
    GTEST_SKIP() << "no CUDA at /usr/local/cuda";
  EXPECT_EQ(cudaPathOfNvcc("/usr/local/cuda/bin/nvcc"), "/usr/local/cuda");
  EXPECT_EQ(cudaPathOfNvcc("/nonexistent/bin/nvcc"), "");
  CudaVersion V = cudaVersionOf("/usr/local/cuda");
  EXPECT_TRUE(V.known());
  EXPECT_GE(V.Major, 12u);
}

// A wrapper nvcc beside links to CUDA's headers (/usr/local/bin/nvcc next to
// /usr/local/include/cuda_runtime.h on our CI machines) is not a CUDA install.
TEST(NvccTranslation, WrapperScriptIsNotAnInstall) {
  namespace fs = std::filesystem;
  fs::path Root = fs::temp_directory_path() / ("syncwatch-wrapper-" + std::to_string(::getpid()));
  fs::create_directories(Root / "bin");
  fs::create_directories(Root / "include");
  std::ofstream(Root / "bin" / "nvcc") << "#!/bin/sh\nexec /usr/local/cuda/bin/nvcc \"$@\"\n";
  std::ofstream(Root / "include" / "cuda_runtime.h") << "\n";
  EXPECT_EQ(cudaPathOfNvcc((Root / "bin" / "nvcc").string()), "");
  auto T = translateCommand(std::vector<std::string>{(Root / "bin" / "nvcc").string(), "-c", "h.cpp"},
                            "/b", "h.cpp", translationConfig());
  EXPECT_EQ(T.CudaPath, "/usr/local/cuda");
  fs::create_directories(Root / "nvvm");
  EXPECT_EQ(cudaPathOfNvcc((Root / "bin" / "nvcc").string()), Root.string());
  fs::remove_all(Root);
}

// The first phase's order: the database's until units have ended; then first the unit named
// as the header the most finished units read (matrix.cu once units read matrix.h); every
// unit exactly once.
TEST(UnitOrder, NamesOfHeadersReadGoFirst) {
  std::vector<std::string> Files = {"/p/src/solver.cu", "/p/src/io.cpp", "/p/src/amg.cu",
                                    "/p/src/matrix.cu", "/p/src/handle.cu", "/p/src/util.cu"};
  syncwatch::UnitOrder Order(Files);
  EXPECT_EQ(Order.next(), 0u);  // nothing read yet: the database's order
  EXPECT_EQ(Order.next(), 1u);
  // solver.cu read matrix.h and handle.cuh; io.cpp read matrix.h (and its own io.cpp,
  // not a header, and <vector>, which has no extension).
  Order.done({"/p/include/matrix.h", "/p/include/handle.cuh", "/p/include/matrix.h"});
  Order.done({"/p/src/io.cpp", "/p/include/matrix.h", "/usr/include/c++/12/vector", "/p/src/util.cu"});
  EXPECT_EQ(Order.next(), 3u);  // matrix: read by 2 units
  EXPECT_EQ(Order.next(), 2u);  // handle, read by 1, is not enough to jump: the database's order
  // amg.cu read handle.cuh too: now 2 readers.
  Order.done({"/p/include/handle.cuh"});
  EXPECT_EQ(Order.next(), 4u);
  EXPECT_EQ(Order.next(), 5u);
  EXPECT_EQ(Order.next(), std::nullopt);
}

// What the first phase knows: a unit's slice of the summaries known so far, as the second
// phase would cut it; nothing when none of them concerns the unit.
TEST(KnownSummaries, SliceOfWhatIsKnown) {
  syncwatch::KnownSummaries Known;
  syncwatch::UnitSummary Caller;
  Caller.Calls.push_back({"c:@F@release#", {"/p/train.cu", 12, "'release'"},
                          {{-1, {"/p/train.cu", 11, "kernel 'scale'"}, {}}}});
  EXPECT_FALSE(Known.sliceFor(Caller));  // nothing known yet
  syncwatch::UnitSummary Unrelated;
  syncwatch::ExportedFunction Log;
  Log.Usr = "c:@F@log_step#";
  Log.Waits = syncwatch::SummaryPlace{"/p/log.cu", 3, "'cudaDeviceSynchronize'"};
  Unrelated.Functions.push_back(Log);
  Known.add(Unrelated);
  EXPECT_FALSE(Known.sliceFor(Caller));  // known, but not called by it
  syncwatch::UnitSummary Ops;
  syncwatch::ExportedFunction Release;
  Release.Usr = "c:@F@release#";
  Release.DrainsAll = true;
  Ops.Functions.push_back(Release);
  Known.add(Ops);
  std::optional<syncwatch::KnownSlice> S = Known.sliceFor(Caller);
  ASSERT_TRUE(S);
  EXPECT_TRUE(S->Index.function("c:@F@release#"));
  EXPECT_FALSE(S->Index.function("c:@F@log_step#"));
  EXPECT_EQ(S->Text, S->Index.text());
  // The unit that defines release() is given the caller's work in flight.
  Known.add(Caller);
  std::optional<syncwatch::KnownSlice> ForOps = Known.sliceFor(Ops);
  ASSERT_TRUE(ForOps);
  EXPECT_EQ(ForOps->Index.callersOf("c:@F@release#").size(), 1u);
}

TEST(Shards, DisjointCompleteAndDeterministic) {
  std::vector<std::string> Files = {"/e.cu", "/a.cu", "/c.cu", "/b.cu", "/d.cu", "/a.cu"};
  std::vector<std::string> All;
  for (unsigned K = 1; K <= 3; ++K) {
    auto S = selectShard(Files, K, 3);
    EXPECT_EQ(S, selectShard(std::vector<std::string>(Files.rbegin(), Files.rend()), K, 3));
    All.insert(All.end(), S.begin(), S.end());
  }
  std::sort(All.begin(), All.end());
  EXPECT_EQ(All, (std::vector<std::string>{"/a.cu", "/b.cu", "/c.cu", "/d.cu", "/e.cu"}));
  EXPECT_EQ(selectShard(Files, 1, 3), (std::vector<std::string>{"/a.cu", "/d.cu"}));
  EXPECT_TRUE(selectShard(Files, 4, 3).empty());
}

// A unit with one synchronous readback (line 10) after an async copy on its own stream.
const char *const kReadback = "typedef struct CUstream_st *cudaStream_t;\n"
                              "enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };\n"
                              "extern \"C\" int cudaStreamCreate(cudaStream_t *);\n"
                              "extern \"C\" int cudaMemcpy(void *, const void *, unsigned long, cudaMemcpyKind);\n"
                              "extern \"C\" int cudaMemcpyAsync(void *, const void *, unsigned long, cudaMemcpyKind, cudaStream_t);\n"
                              "void step(float *d, float *h, float *pinned, unsigned long n) {\n"
                              "  cudaStream_t s;\n"
                              "  cudaStreamCreate(&s);\n"
                              "  cudaMemcpyAsync(d, pinned, n, cudaMemcpyHostToDevice, s);\n"
                              "  cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost);\n"
                              "}\n";

// syncwatch-lsp cancels the analysis of a buffer when an edit makes it stale
// (UnitOptions::Cancel): the parse stops at its next top-level declaration and the checks do
// not run; the result says so and reports nothing - not an empty, clean file.
TEST(UnitRunner, CancelledRunReportsNothing) {
  namespace fs = std::filesystem;
  fs::path Dir = fs::temp_directory_path() / ("syncwatch-cancel-" + std::to_string(::getpid()));
  fs::create_directories(Dir);
  std::string File = (Dir / "readback.cpp").string();
  std::ofstream(File) << kReadback;
  clang::tooling::FixedCompilationDatabase DB(Dir.string(), {"-x", "c++"});
  UnitOptions Options;
  Options.Rules = enabledRules("syncwatch-*");
  std::atomic<bool> Cancel{false};
  Options.Cancel = &Cancel;
  NoLintFilter NoLint;
  UnitRunner Runner(DB, Options, NoLint);
  std::optional<ToolError> Problem;
  auto Commands = Runner.commandsOf(File, Problem);
  ASSERT_FALSE(Problem);

  UnitResult Whole = Runner.analyze(File, Commands);
  EXPECT_FALSE(Whole.Cancelled);
  EXPECT_FALSE(Whole.Error);
  EXPECT_TRUE(std::any_of(Whole.Findings.begin(), Whole.Findings.end(),
                          [](const Finding &F) { return F.Rule == "syncwatch-sync-memcpy" && F.Where.Line == 10; }));

  Cancel = true;
  UnitResult Stopped = Runner.analyze(File, Commands);
  EXPECT_TRUE(Stopped.Cancelled);
  EXPECT_TRUE(Stopped.Findings.empty());
  EXPECT_FALSE(Stopped.Error);
  fs::remove_all(Dir);
}

// An editor's buffer is analyzed as it reads, not as the disk has it (UnitOptions::Unsaved),
// and its NOLINT comments are the buffer's too.
TEST(UnitRunner, AnalyzesTheUnsavedBufferNotTheDisk) {
  namespace fs = std::filesystem;
  fs::path Dir = fs::temp_directory_path() / ("syncwatch-unsaved-" + std::to_string(::getpid()));
  fs::create_directories(Dir);
  std::string File = (Dir / "readback.cpp").string();
  std::string Disk = kReadback;
  Disk.replace(Disk.find("  cudaMemcpy(h, d"), 0, "  // a comment line\n");  // line 10 -> 11 on disk
  std::ofstream(File) << Disk;
  clang::tooling::FixedCompilationDatabase DB(Dir.string(), {"-x", "c++"});
  UnitOptions Options;
  Options.Rules = enabledRules("syncwatch-sync-memcpy");
  Options.Unsaved = {{File, kReadback}};
  NoLintFilter NoLint;
  NoLint.preload(File, kReadback);
  UnitRunner Runner(DB, Options, NoLint);
  std::optional<ToolError> Problem;
  auto Commands = Runner.commandsOf(File, Problem);
  ASSERT_FALSE(Problem);
  UnitResult Buffer = Runner.analyze(File, Commands);
  ASSERT_EQ(Buffer.Findings.size(), 1u);
  EXPECT_EQ(Buffer.Findings[0].Where.Line, 10u);

  std::string Silenced = kReadback;
  Silenced.replace(Silenced.find("DeviceToHost);\n") + 14, 0, "  // NOLINT(syncwatch-sync-memcpy)");
  Options.Unsaved = {{File, Silenced}};
  NoLintFilter NoLint2;
  NoLint2.preload(File, Silenced);
  UnitRunner Runner2(DB, Options, NoLint2);
  UnitResult Quiet = Runner2.analyze(File, Commands);
  EXPECT_FALSE(Quiet.Error);
  EXPECT_TRUE(Quiet.Findings.empty());

  // Not a regular file: refused before any parse, with why.
  Runner.commandsOf(Dir.string(), Problem);
  ASSERT_TRUE(Problem);
  EXPECT_NE(Problem->Message.find("is not a regular file"), std::string::npos);
  fs::remove_all(Dir);
}

// An editor's preamble PCH holds no function bodies of system headers, as the parse itself
// skips them (SystemBodies.h, PreludePch.cpp): a system header's template that the file calls is not
// instantiated from the PCH in full at every edit. This one cannot be instantiated for int:
// with its body in the PCH the parse from it failed, and the file was parsed again without it.
TEST(PreludePch, SystemBodiesStayOutOfThePreamble) {
  namespace fs = std::filesystem;
  fs::path Dir = fs::temp_directory_path() / ("syncwatch-pch-bodies-" + std::to_string(::getpid()));
  fs::create_directories(Dir / "vendor");
  std::ofstream(Dir / "vendor" / "vendor_fill.h")
      << "#pragma once\ntemplate <class T> int vendor_fill(T *p) { return p->not_a_member; }\n";
  std::string File = (Dir / "fill.cu").string();
  std::string Text = "#include <vendor_fill.h>\n#include <cuda_runtime.h>\n\n"
                     "int fill(int *p, cudaStream_t s) {\n"
                     "  cudaMemsetAsync(p, 0, 4, s);\n"
                     "  return vendor_fill(p);\n"
                     "}\n";
  std::ofstream(File) << Text;
  clang::tooling::FixedCompilationDatabase DB(
      Dir.string(), {"-x", "cuda", "--cuda-host-only", "-Wno-unknown-cuda-version", "--cuda-path=/usr/local/cuda",
                     "-std=c++17", "-isystem", (Dir / "vendor").string()});
  PreludePchCache Pchs;
  UnitOptions Options;
  Options.Rules = enabledRules("syncwatch-*");
  Options.Unsaved = {{File, Text}};
  Options.Pchs = &Pchs;
  Options.BufferPreamble = true;
  NoLintFilter NoLint;
  NoLint.preload(File, Text);
  UnitRunner Runner(DB, Options, NoLint);
  std::optional<ToolError> Problem;
  auto Commands = Runner.commandsOf(File, Problem);
  ASSERT_FALSE(Problem);
  UnitResult R = Runner.analyze(File, Commands);
  EXPECT_FALSE(R.Error) << R.Error->Message;
  EXPECT_EQ(Pchs.built(), 1u);      // the file's preamble was precompiled ...
  EXPECT_EQ(Pchs.fallbacks(), 0u);  // ... and the parse from it served
  fs::remove_all(Dir);
}

// The meeting point of a kept parse and its owner (unit/HeldParse.h), with a thread playing
// the parse: the first result, two judgements with different slices, the release.
TEST(ParseHold, PublishJudgeAgainRelease) {
  ParseHold Hold;
  SummaryIndex Slice;
  std::vector<const SummaryIndex *> Asked;
  std::thread Parse([&] {
    UnitResult First;
    First.Findings.resize(1);
    Hold.publish(std::move(First));
    while (std::optional<const SummaryIndex *> Next = Hold.nextRequest()) {
      Asked.push_back(*Next);
      UnitResult Again;
      Again.Findings.resize(Asked.size() + 1);
      Hold.answer(std::move(Again));
    }
    Hold.finish(UnitResult{});
  });
  UnitResult First;
  ASSERT_TRUE(Hold.waitFirst(First));
  EXPECT_EQ(First.Findings.size(), 1u);
  std::optional<UnitResult> A = Hold.ask(&Slice);
  std::optional<UnitResult> B = Hold.ask(nullptr);
  ASSERT_TRUE(A && B);
  EXPECT_EQ(A->Findings.size(), 2u);
  EXPECT_EQ(B->Findings.size(), 3u);
  Hold.release();
  Parse.join();
  EXPECT_EQ(Asked, (std::vector<const SummaryIndex *>{&Slice, nullptr}));
  EXPECT_FALSE(Hold.ask(&Slice)) << "a released parse answers nothing";
}

// A parse that ends without publishing (a parse error) gives its final result; one that
// ends while asked (a crash recovered on its thread) answers nothing, so the unit is parsed
// again instead of the owner waiting forever.
TEST(ParseHold, EndedParsesAnswerNothing) {
  ParseHold Failed;
  UnitResult Error;
  Error.Error = ToolError{"f.cu", "could not be parsed"};
  Failed.finish(std::move(Error));
  UnitResult Out;
  EXPECT_FALSE(Failed.waitFirst(Out));
  EXPECT_TRUE(Out.Error.has_value());
  EXPECT_FALSE(Failed.ask(nullptr));

  ParseHold Crashed;
  std::thread Parse([&] {
    Crashed.publish(UnitResult{});
    if (Crashed.nextRequest())  // judging again crashes: no answer, the parse ends
      Crashed.finish(UnitResult{});
  });
  ASSERT_TRUE(Crashed.waitFirst(Out));
  EXPECT_FALSE(Crashed.ask(nullptr));
  Parse.join();
}
