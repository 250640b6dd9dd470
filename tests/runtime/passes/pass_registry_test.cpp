// The passes the engine runs come from the catalogue: every pass some rule's Runtime column
// names (rules/rules.def), once, in rules/runtime_passes.def's order; a rule without a pass is
// one libsyncwatch does not report.
#include "../../../interposer/passes/PassRegistry.h"

#include "syncwatch/catalogue.h"

#include <gtest/gtest.h>

#include <set>

using namespace syncwatch;
using namespace syncwatch::runtime;

TEST(PassRegistry, EveryNamedPassRunsOnceInTheCataloguesOrder) {
  std::set<RuntimePass> Named;
  for (const RuleInfo &R : allRules())
    if (R.Pass != RuntimePass::None)
      Named.insert(R.Pass);
  std::vector<const WindowPass *> Expected;
  for (const RuntimePassInfo &P : allRuntimePasses())
    if (Named.count(P.Pass))
      Expected.push_back(&passOf(P.Pass));
  EXPECT_EQ(cataloguePasses(), Expected);
  EXPECT_EQ(std::set<const WindowPass *>(Expected.begin(), Expected.end()).size(), Expected.size());
}

TEST(PassRegistry, RuntimeReportsIsHavingAPass) {
  for (const RuleInfo &R : allRules())
    EXPECT_EQ(R.runtimeReports(), R.Pass != RuntimePass::None) << R.Id;
  // The two the seed starts from: the legacy stream's serialization, and a device-wide wait.
  EXPECT_EQ(ruleInfo(RuleId::DefaultStream).Pass, RuntimePass::Serialization);
  EXPECT_EQ(ruleInfo(RuleId::ImplicitSync).Pass, RuntimePass::HostWait);
  EXPECT_EQ(ruleInfo(RuleId::RedundantSync).Pass, RuntimePass::None);
}

TEST(PassRegistry, EveryRowHasANameAndSummary) {
  ASSERT_FALSE(allRuntimePasses().empty());
  for (const RuntimePassInfo &P : allRuntimePasses()) {
    EXPECT_FALSE(P.Name.empty());
    EXPECT_GT(P.Summary.size(), 20u) << P.Name;
  }
}
