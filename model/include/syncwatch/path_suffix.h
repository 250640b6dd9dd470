// Matching a source path of one checkout to another's: checkouts differ in their prefixes
// (/home/ci/work/repo vs /workspace/repo), never in the repository's own layout, so two paths
// are compared by their trailing components. `syncwatch confirm` joins runtime sites to the
// lint's files so; syncwatch-lsp finds a runtime report's lines in the editor's files so.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace syncwatch {

// "/a/./b//c.cu" -> {"a", "b", "c.cu"}.
std::vector<std::string> pathComponents(const std::string &Path);

// How many trailing components two paths share.
std::size_t commonSuffix(const std::vector<std::string> &A, const std::vector<std::string> &B);

} // namespace syncwatch
