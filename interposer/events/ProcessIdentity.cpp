#include "ProcessIdentity.h"

#include <cstdio>
#include <cstdlib>

namespace syncwatch::runtime {

namespace {

bool parseInt(const char *S, int &Out) {
  if (!S || !*S)
    return false;
  char *End = nullptr;
  long V = std::strtol(S, &End, 10);
  if (*End != '\0' || V < 0 || V > 1'000'000'000)
    return false;
  Out = static_cast<int>(V);
  return true;
}

// One launcher's variables: its rank, world size and local rank.
struct Launcher {
  const char *Rank, *WorldSize, *LocalRank;
};
constexpr Launcher kLaunchers[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK"},                                            // torchrun
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},  // Open MPI
    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},                                     // MPICH, Intel MPI
    {"PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK"},                                   // PMIx
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},                               // srun
};
constexpr const char *kJobVariables[] = {"SYNCWATCH_JOB", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID",
                                         "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"};

} // namespace

std::string ProcessIdentity::label() const {
  if (!hasRank())
    return "pid " + std::to_string(Pid);
  std::string L = "rank " + std::to_string(Rank);
  if (WorldSize > 0)
    L += " of " + std::to_string(WorldSize);
  return L;
}

std::vector<std::pair<std::string, std::string>> ProcessIdentity::pairs() const {
  std::vector<std::pair<std::string, std::string>> P;
  if (hasRank()) {
    P.emplace_back("rank", std::to_string(Rank));
    P.emplace_back("rankFrom", RankFrom);
  }
  if (WorldSize >= 0)
    P.emplace_back("worldSize", std::to_string(WorldSize));
  if (LocalRank >= 0)
    P.emplace_back("localRank", std::to_string(LocalRank));
  if (!Job.empty())
    P.emplace_back("job", Job);
  if (!Host.empty())
    P.emplace_back("host", Host);
  if (!Gpu.empty())
    P.emplace_back("gpu", Gpu);
  if (!Driver.empty())
    P.emplace_back("driver", Driver);
  if (Pid)
    P.emplace_back("pid", std::to_string(Pid));
  if (!CommandLine.empty())
    P.emplace_back("commandLine", CommandLine);
  if (!CuptiSharedWith.empty())
    P.emplace_back("cuptiSharedWith", CuptiSharedWith);
  return P;
}

void ProcessIdentity::set(const std::string &Key, const std::string &Value) {
  int N = -1;
  if (Key == "rank" && parseInt(Value.c_str(), N))
    Rank = N;
  else if (Key == "worldSize" && parseInt(Value.c_str(), N))
    WorldSize = N;
  else if (Key == "localRank" && parseInt(Value.c_str(), N))
    LocalRank = N;
  else if (Key == "rankFrom")
    RankFrom = Value;
  else if (Key == "job")
    Job = Value;
  else if (Key == "host")
    Host = Value;
  else if (Key == "gpu")
    Gpu = Value;
  else if (Key == "driver")
    Driver = Value;
  else if (Key == "pid")
    Pid = std::strtoull(Value.c_str(), nullptr, 10);
  else if (Key == "commandLine")
    CommandLine = Value;
  else if (Key == "cuptiSharedWith")
    CuptiSharedWith = Value;
}

ProcessIdentity identityFromEnvironment(const std::function<const char *(const char *)> &Env) {
  ProcessIdentity P;
  for (const Launcher &L : kLaunchers) {
    int Rank = -1;
    if (!parseInt(Env(L.Rank), Rank))
      continue;
    P.Rank = Rank;
    P.RankFrom = L.Rank;
    int N = -1;
    if (parseInt(Env(L.WorldSize), N) && N > Rank)
      P.WorldSize = N;
    if (parseInt(Env(L.LocalRank), N))
      P.LocalRank = N;
    break;
  }
  for (const char *V : kJobVariables)
    if (const char *J = Env(V); J && *J && std::string(J) != "none") {
      P.Job = std::string(V) + "=" + J;
      break;
    }
  return P;
}

std::string reportBaseName(const ProcessIdentity &P) {
  if (!P.hasRank())
    return "syncwatch-" + std::to_string(P.Pid);
  char Rank[16];
  std::snprintf(Rank, sizeof Rank, "r%05d", P.Rank);
  return std::string("syncwatch-") + Rank + "-" + std::to_string(P.Pid);
}

} // namespace syncwatch::runtime
