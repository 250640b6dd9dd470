// What the GPU measured at source lines, for hover and runtime-only diagnostics: the JSON
// reports in a folder (libsyncwatch's per process, a job's merged one, or `syncwatch confirm
// --format=json` output), matched to the editor's files the way confirm matches paths (by
// trailing path components: the checkout that ran need not be this one). Re-read when a
// report in the folder is added, changed or removed.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace syncwatch::lsp {

struct MeasuredAt {
  std::string Rule;
  std::string Text;        // "confirmed: 1.64 s over 20 calls on GPU-..., 2026-12-02"
  std::string Message;     // the runtime finding's message ("" where no finding was joined)
  // A finding the runtime made that no static result names (a runtime report's own, or
  // confirm's runtime-only): an information diagnostic where the analysis has none.
  bool RuntimeFinding = false;
};

class MeasuredCosts {
public:
  void setFolder(std::string Dir) { Folder = std::move(Dir); Stamp.clear(); Entries.clear(); }
  const std::string &folder() const { return Folder; }
  // Re-reads the folder when its reports changed; true when they did. Problems: reports
  // that could not be read, each said once.
  bool refresh(std::vector<std::string> &Problems);
  std::vector<MeasuredAt> at(const std::string &Path, unsigned Line) const;
  // Every measured line of Path (for runtime-only diagnostics).
  std::map<unsigned, std::vector<MeasuredAt>> in(const std::string &Path) const;

private:
  struct Entry {
    std::vector<std::string> Components;  // the runtime's path, split
    unsigned Line = 0;
    MeasuredAt What;
  };
  bool matches(const Entry &E, const std::vector<std::string> &Path) const;
  std::string Folder;
  std::map<std::string, long long> Stamp;  // report -> mtime
  std::vector<Entry> Entries;
  std::map<std::string, bool> Said;
};

} // namespace syncwatch::lsp
