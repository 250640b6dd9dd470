// Which process of which job a report or recording comes from: the rank and world size
// that launchers export (torchrun, MPI, Slurm), the host, the GPU and the command line.
// `syncwatch merge` joins per-rank reports on it. No CUDA here: the GPU's UUID is found by
// capture and handed in as text.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

struct ProcessIdentity {
  int Rank = -1, LocalRank = -1, WorldSize = -1;  // -1: not launched as a rank
  std::string RankFrom;     // the variable the rank came from: "RANK", "OMPI_COMM_WORLD_RANK", ...
  std::string Job;          // what ties a job's ranks together (SYNCWATCH_JOB, TORCHELASTIC_RUN_ID, SLURM_JOB_ID, ...)
  std::string Host;
  std::string Gpu;          // "GPU-<uuid>" of the device(s) its work ran on, ", "-separated
  std::string Driver;       // "CUDA 13.0 driver API" (cuDriverGetVersion)
  std::string CommandLine;  // argv, space-separated
  // A profiler that shared syncwatch's CUPTI subscription (cupti/CuptiSharing.h): who,
  // from when, what it was passed; "" when none.
  std::string CuptiSharedWith;
  std::uint64_t Pid = 0;

  bool hasRank() const { return Rank >= 0; }
  // "rank 1 of 2" / "pid 4242": how reports name the process.
  std::string label() const;
  // As key/value pairs (JSON "process", recordings' I records) and back; unknown keys are
  // ignored, so newer writers stay readable.
  std::vector<std::pair<std::string, std::string>> pairs() const;
  void set(const std::string &Key, const std::string &Value);
};

// Reads the launchers' variables through Env (getenv in the library; a map in tests):
//   rank:       RANK (torchrun), OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK (MPICH, Intel
//               MPI), PMIX_RANK, SLURM_PROCID;
//   world size: WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS;
//   local rank: LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID;
//   job:        SYNCWATCH_JOB (set by `syncwatch run`), TORCHELASTIC_RUN_ID, SLURM_JOB_ID,
//               PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid.
// The world size and local rank are taken from the same launcher's variables as the rank.
ProcessIdentity identityFromEnvironment(const std::function<const char *(const char *)> &Env);

// The report's base name: "syncwatch-r00001-4242" for a rank (names sort by rank),
// "syncwatch-4242" otherwise.
std::string reportBaseName(const ProcessIdentity &P);

} // namespace syncwatch::runtime
