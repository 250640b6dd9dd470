// Which rank of which job a process is, from the variables launchers export, and how that
// travels in recordings (syncwatch merge's input).
#include "../../interposer/events/EventLog.h"
#include "../../interposer/events/ProcessIdentity.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

using namespace syncwatch::runtime;

namespace {
ProcessIdentity fromEnv(const std::map<std::string, std::string> &Vars) {
  return identityFromEnvironment([&](const char *Name) -> const char * {
    auto It = Vars.find(Name);
    return It == Vars.end() ? nullptr : It->second.c_str();
  });
}
} // namespace

TEST(ProcessIdentity, Torchrun) {
  ProcessIdentity P = fromEnv({{"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"},
                               {"TORCHELASTIC_RUN_ID", "abc"}, {"SLURM_PROCID", "0"}});
  EXPECT_EQ(P.Rank, 3);
  EXPECT_EQ(P.WorldSize, 8);
  EXPECT_EQ(P.LocalRank, 1);
  EXPECT_EQ(P.RankFrom, "RANK");  // torchrun's own variables win over the allocation's
  EXPECT_EQ(P.Job, "TORCHELASTIC_RUN_ID=abc");
  EXPECT_EQ(P.label(), "rank 3 of 8");
}

TEST(ProcessIdentity, MpiAndSlurm) {
  ProcessIdentity O = fromEnv({{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "16"},
                               {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}});
  EXPECT_EQ(O.Rank, 5);
  EXPECT_EQ(O.WorldSize, 16);
  EXPECT_EQ(O.RankFrom, "OMPI_COMM_WORLD_RANK");
  ProcessIdentity M = fromEnv({{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}});
  EXPECT_EQ(M.Rank, 2);
  EXPECT_EQ(M.WorldSize, 4);
  ProcessIdentity S = fromEnv({{"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "8"}, {"SLURM_JOB_ID", "991"}});
  EXPECT_EQ(S.Rank, 7);
  EXPECT_EQ(S.Job, "SLURM_JOB_ID=991");
}

TEST(ProcessIdentity, NotARankAndBadValues) {
  ProcessIdentity P = fromEnv({});
  EXPECT_FALSE(P.hasRank());
  EXPECT_EQ(P.WorldSize, -1);
  // A rank that is not a number, or a world size not above the rank, is not believed.
  ProcessIdentity B = fromEnv({{"RANK", "x1"}, {"PMI_RANK", "1"}, {"PMI_SIZE", "1"}});
  EXPECT_EQ(B.Rank, 1);
  EXPECT_EQ(B.RankFrom, "PMI_RANK");
  EXPECT_EQ(B.WorldSize, -1);
  // syncwatch run's job id wins; torchrun's "none" is no id
  EXPECT_EQ(fromEnv({{"SYNCWATCH_JOB", "42-1"}, {"TORCHELASTIC_RUN_ID", "r"}}).Job, "SYNCWATCH_JOB=42-1");
  EXPECT_EQ(fromEnv({{"TORCHELASTIC_RUN_ID", "none"}}).Job, "");
}

TEST(ProcessIdentity, ReportNamesSortByRank) {
  ProcessIdentity A, B, C;
  A.Rank = 2;
  A.Pid = 100;
  B.Rank = 10;
  B.Pid = 50;
  C.Pid = 77;
  EXPECT_EQ(reportBaseName(A), "syncwatch-r00002-100");
  EXPECT_LT(reportBaseName(A), reportBaseName(B));  // 2 before 10, whatever the pids
  EXPECT_EQ(reportBaseName(C), "syncwatch-77");
}

TEST(ProcessIdentity, TravelsInRecordings) {
  EventLog Log;
  Log.Process = fromEnv({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"SYNCWATCH_JOB", "j"}});
  Log.Process.Host = "node7";
  Log.Process.Gpu = "GPU-03b97b76-f68a-e37e-58b0-18efca215749";
  Log.Process.Pid = 4242;
  Log.Process.CommandLine = "python\ttrain.py --lr 3e-4";  // a tab must not break the record
  std::stringstream S;
  writeEventLog(S, Log);
  ParseResult R = readEventLog(S);
  ASSERT_EQ(R.Error, "");
  EXPECT_EQ(R.Log.Process.Rank, 1);
  EXPECT_EQ(R.Log.Process.WorldSize, 2);
  EXPECT_EQ(R.Log.Process.Job, "SYNCWATCH_JOB=j");
  EXPECT_EQ(R.Log.Process.Host, "node7");
  EXPECT_EQ(R.Log.Process.Gpu, Log.Process.Gpu);
  EXPECT_EQ(R.Log.Process.Pid, 4242u);
  EXPECT_EQ(R.Log.Process.CommandLine, "python train.py --lr 3e-4");
}

TEST(ProcessIdentity, RecordingCutShortIsAnError) {
  EventLog Log;
  Log.Process.Rank = 0;
  Log.Calls.push_back(ApiCall{1, 0, 7, "cudaFree", 10, 20, 0});
  std::stringstream S;
  writeEventLog(S, Log);
  std::string Text = S.str();
  std::string Cut = Text.substr(0, Text.rfind("E\t"));
  std::istringstream In(Cut);
  EXPECT_NE(readEventLog(In).Error.find("cut short"), std::string::npos);
  // Recordings from before process records have no end record and stay readable.
  std::istringstream Old("# syncwatch-events 1\nC\t1\t7\tcudaFree\t10\t20\t0\n");
  EXPECT_EQ(readEventLog(Old).Error, "");
}
