#include <algorithm>
#include "Config.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <unistd.h>

namespace syncwatch::runtime {
namespace {

const char *env(const char *Name) {
  const char *V = std::getenv(Name);
  return V && *V ? V : nullptr;
}

bool parseBool(const char *Name, bool Default, std::string &Messages) {
  const char *V = env(Name);
  if (!V)
    return Default;
  std::string_view S(V);
  if (S == "1" || S == "true" || S == "yes" || S == "on")
    return true;
  if (S == "0" || S == "false" || S == "no" || S == "off")
    return false;
  Messages += std::string("syncwatch: ") + Name + "='" + V + "' is not 0 or 1; using " +
              (Default ? "1" : "0") + "\n";
  return Default;
}

// The default as a user writes it: `1`, `65536`, `0.5` (never `1.000000`). snprintf, not a
// stream: this runs at library load, before libstdc++'s streams may exist (Stderr.h).
std::string numberText(double D) {
  char Buf[32];
  if (D >= 0 && D < 1e19 && D == static_cast<double>(static_cast<unsigned long long>(D)))
    std::snprintf(Buf, sizeof Buf, "%llu", static_cast<unsigned long long>(D));
  else
    std::snprintf(Buf, sizeof Buf, "%.6g", D);
  return Buf;
}

std::uint64_t parsePositive(const char *Name, std::uint64_t Default, double Scale, std::string &Messages) {
  const char *V = env(Name);
  if (!V)
    return Default;
  char *End = nullptr;
  double D = std::strtod(V, &End);
  if (End == V || *End != '\0' || !(D > 0) || D > 1e12) {
    Messages += std::string("syncwatch: ") + Name + "='" + V + "' is not a positive number; using " +
                numberText(static_cast<double>(Default) / Scale) + "\n";
    return Default;
  }
  return static_cast<std::uint64_t>(D * Scale);
}

KernelTrace parseKernelTrace(const char *Name, KernelTrace Default, std::string &Messages) {
  const char *V = env(Name);
  if (!V)
    return Default;
  std::string_view S(V);
  if (S == "auto")
    return KernelTrace::Auto;
  if (S == "1" || S == "on" || S == "always")
    return KernelTrace::Always;
  if (S == "0" || S == "off" || S == "never")
    return KernelTrace::Off;
  Messages += std::string("syncwatch: ") + Name + "='" + V + "' is not auto, 1 or 0; using auto\n";
  return Default;
}

// auto | all | all:SECONDS
void parseMeasure(Config &C, std::string &Messages) {
  const char *V = env("SYNCWATCH_MEASURE");
  if (!V)
    return;
  std::string_view S(V);
  if (S == "auto")
    return;
  if (S == "all") {
    C.MeasureAll = true;
    return;
  }
  if (S == "steps") {
    if (!C.StepName.empty()) {
      C.MeasureSteps = true;
      return;
    }
    Messages += "syncwatch: SYNCWATCH_MEASURE=steps needs SYNCWATCH_STEP=NAME (the NVTX range that is a step); "
                "using auto\n";
    return;
  }
  if (S.substr(0, 4) == "all:") {
    char *End = nullptr;
    double Seconds = std::strtod(V + 4, &End);
    if (End != V + 4 && *End == '\0' && Seconds > 0 && Seconds < 1e7) {
      C.MeasureAll = true;
      C.MeasureForNs = static_cast<std::uint64_t>(Seconds * 1e9);
      return;
    }
  }
  Messages += std::string("syncwatch: SYNCWATCH_MEASURE='") + V +
              "' is not auto, all, all:SECONDS (a positive number) or steps; using auto\n";
}

} // namespace

Config readConfig(std::string &Messages) {
  Config C;
  char Cwd[PATH_MAX];
  if (::getcwd(Cwd, sizeof Cwd))
    C.StartDir = Cwd;
  else
    C.StartDir = ".";
  if (const char *Out = env("SYNCWATCH_OUT"))
    C.OutDir = Out[0] == '/' || C.StartDir == "." ? std::string(Out) : C.StartDir + "/" + Out;
  C.Disable = parseBool("SYNCWATCH_DISABLE", C.Disable, Messages);
  C.ThresholdNs = parsePositive("SYNCWATCH_THRESHOLD_MS", C.ThresholdNs, 1e6, Messages);
  C.Record = parseBool("SYNCWATCH_RECORD", C.Record, Messages);
  C.Kernels = parseKernelTrace("SYNCWATCH_KERNELS", C.Kernels, Messages);
  C.Quiet = parseBool("SYNCWATCH_QUIET", C.Quiet, Messages);
  C.Python = parseBool("SYNCWATCH_PYTHON", C.Python, Messages);
  C.IdleLaunches = parsePositive("SYNCWATCH_IDLE_LAUNCHES", C.IdleLaunches, 1, Messages);
  if (const char *Step = env("SYNCWATCH_STEP")) {
    if (std::string_view(Step) == "@loop")  // no marks: the loop the calls repeat (LoopSteps.h)
      C.DetectLoops = true;
    else
      C.StepName = Step;
  }
  parseMeasure(C, Messages);
  C.Stats = parseBool("SYNCWATCH_STATS", C.Stats, Messages);
  C.BenchToggle = parseBool("SYNCWATCH_BENCH_TOGGLE", C.BenchToggle, Messages);
  C.ShareCupti = parseBool("SYNCWATCH_SHARE_CUPTI", C.ShareCupti, Messages);
  C.TorchStreams = parseBool("SYNCWATCH_TORCH_STREAMS", C.TorchStreams, Messages);
  C.Trace = parseBool("SYNCWATCH_TRACE", C.Trace, Messages);
  C.TraceEvents = parsePositive("SYNCWATCH_TRACE_EVENTS", C.TraceEvents, 1, Messages);
  C.WindowEvents = parsePositive("SYNCWATCH_WINDOW", C.WindowEvents, 1, Messages);
  // (at least 64 KiB: CUPTI's largest record must fit, with room for many)
  C.ActivityBufferKb = std::max<std::size_t>(64, parsePositive("SYNCWATCH_ACTIVITY_BUFFER_KB", C.ActivityBufferKb, 1, Messages));
  C.CuptiDeviceBufferKb = parsePositive("SYNCWATCH_CUPTI_DEVICE_BUFFER_KB", C.CuptiDeviceBufferKb, 1, Messages);
  if (const char *P = std::getenv("SYNCWATCH_PROFILE"))
    C.ProfilePath = P;
  if (const char *R = env("SYNCWATCH_SOURCE_ROOT"))
    C.SourceRoot = R[0] == '/' || C.StartDir == "." ? std::string(R) : C.StartDir + "/" + R;
  return C;
}

} // namespace syncwatch::runtime
