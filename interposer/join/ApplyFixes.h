// `syncwatch verify --apply-fixes`: a fix-it measured end to end. The lint's certain fix-its
// are applied in a scratch git worktree - never in the user's tree - which is then built; verify
// runs the program from the user's tree (before) and from the worktree (after).
//   1. `git worktree add --detach OUT/worktree HEAD`, then the user's uncommitted changes to
//      tracked files (`git diff HEAD`) applied there, and staged in the worktree's own index,
//      so that `git diff` there is the fix-its alone (OUT/fixes.diff);
//   2. the compile database (-p) with the checkout's paths moved to the worktree
//      (OUT/fix-db/compile_commands.json), and `syncwatch-lint -p OUT/fix-db --fix` over the
//      database's files inside the worktree only (a generated file in the user's build folder
//      is not edited);
//   3. the build command, run in the worktree (OUT/build.log).
// With FixesReport instead of a database, step 2 applies that report's certain fix-its (its
// paths under its source root, moved to the worktree's) and runs no lint.
// Untracked files are not in the worktree: the build command builds the worktree from
// scratch (cmake -S . -B build-fixed && cmake --build build-fixed).
#pragma once

#include <string>

namespace syncwatch::runtime {

struct ApplyFixesOptions {
  std::string Database;  // -p: the user's build folder or its compile_commands.json
  // Or: a lint report (SARIF or JSON) of this commit made elsewhere - a CI runner with LLVM
  // - whose certain fix-its are applied as they are (a GPU runner needs no syncwatch-lint).
  std::string FixesReport;
  std::string BuildCmd;  // run with /bin/sh -c in the worktree
  std::string OutDir;    // OUT: the worktree, the rewritten database, the logs
  std::string Lint;      // the syncwatch-lint to run
  std::string Checks;    // --checks for it; empty: its default (syncwatch-*)
};

// What the preparation made: the two trees, and the files the fix-its changed.
struct FixedTree {
  std::string Checkout;   // the user's git top level (the before side runs here)
  std::string Worktree;   // OUT/worktree (the after side runs here)
  unsigned FilesChanged = 0;
  std::string Summary;    // a few lines for the user: what was applied, where the logs are
};

// False with Error (one line: what failed and where its log is) when the checkout is not a
// git repository, the database cannot be read, the lint fails (exit 2) or the build fails.
bool prepareFixedTree(const ApplyFixesOptions &O, FixedTree &Out, std::string &Error);

} // namespace syncwatch::runtime
