// syncwatch-lsp's server: the Language Server Protocol 3.17 requests an editor sends beside
// clangd's, answered from syncwatch's analysis of the open buffers.
//   open / change (debounced) / save   -> textDocument/publishDiagnostics for the file and the
//                                         headers it includes (rule id as code, the rule's page
//                                         as codeDescription, notes as relatedInformation)
//   textDocument/codeAction            -> the certain fix-its (quickfix), "NOLINT this line"
//   textDocument/hover                 -> the finding, and what the GPU measured at the line
//                                         (MeasuredCosts.h); runtime-only findings are
//                                         diagnostics too
//   textDocument/inlayHint             -> what the GPU measured, at the end of the line
//                                         ("confirmed: 118.5 ms over 200 call(s) on GPU-...");
//                                         workspace/inlayHint/refresh when a new run lands
//   window/logMessage (Info)           <- the server's log: what each analysis took (editors
//                                         log a server's stderr as errors)
// Documents that are not C, C++ or CUDA (by languageId, else extension) are not analyzed.
// After shutdown, requests are refused with InvalidRequest, as LSP says.
// One analysis runs at a time, on a worker thread. An edit that arrives while one runs for
// the same file cancels it (the parse stops at its next top-level declaration, the checks do
// not run) and the new text is analyzed next; a result that is stale anyway is never published.
// Open, save and a changed preamble analyze the whole unit, findings in the file's headers
// included; an edit analyzes the file's own code after its precompiled preamble (as clangd
// does) and keeps the headers' findings of the last whole analysis. A save of a header
// analyzes again, whole, every open file that read it.
#pragma once

#include "JsonRpc.h"
#include "MeasuredCosts.h"
#include "UnitAnalysis.h"

#include "../unit/PreludePch.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace syncwatch::lsp {

struct ServerOptions {
  AnalysisConfig Analysis;
  std::string RuleDocsDir;    // <rule-id>.md pages: the diagnostics' codeDescription
  std::string Reports;        // runtime reports' folder; "" = <workspace root>/.syncwatch
  unsigned DebounceMs = 300;  // after a change, before analyzing
  unsigned ReportPollMs = 2000;
};

class Server {
public:
  Server(Channel &C, ServerOptions O) : Out(C), Options(std::move(O)) {}
  // Serves until "exit" (0 after "shutdown", else 1) or the end of input (1).
  int run();

private:
  using Clock = std::chrono::steady_clock;
  struct Document {
    std::string Text;
    std::int64_t Version = 0;
    std::uint64_t Generation = 0;  // bumped by every edit
    bool WholeDue = true;  // the next analysis covers the whole unit (open, save)
    // The text and version its last published analysis read: a republish (a new runtime
    // report) while an edit waits is of that text, its ranges and version, not the buffer's.
    std::string AnalyzedText;
    std::int64_t AnalyzedVersion = 0;
  };

  void handle(llvm::json::Object &Msg);
  llvm::json::Value initialize(const llvm::json::Object &Params);
  llvm::json::Value codeActions(const llvm::json::Object &Params);
  llvm::json::Value hover(const llvm::json::Object &Params);
  llvm::json::Value inlayHints(const llvm::json::Object &Params);
  void opened(const llvm::json::Object &Params);
  void changed(const llvm::json::Object &Params);
  void saved(const llvm::json::Object &Params);
  void closed(const llvm::json::Object &Params);

  void schedule(const std::string &Path, unsigned DelayMs);
  void cancelLocked(const std::string &Path);  // the worker's analysis of Path, if it runs
  void work();
  void publishLocked(const std::string &Path);      // an analysis's files, after it changed
  void publishFileLocked(const std::string &File);  // one file: every open analysis's findings in it
  llvm::json::Value diagnostic(const Finding &F, llvm::StringRef Text) const;
  std::string textOfLocked(const std::string &Path) const;  // open buffer, else the disk's
  void showMessage(int Type, const std::string &Message);
  void logMessage(const std::string &Message);  // the server's log: window/logMessage, Info
  void refreshInlayHints();
  // The reports as they are now; when they changed, every analysis is published again by
  // the worker (CostsChanged), whichever of the worker's poll, a hover or an inlay-hint
  // request read them first.
  void refreshCostsLocked();
  std::vector<Finding> findingsInLocked(const std::string &File) const;  // every open analysis's

  Channel &Out;
  ServerOptions Options;
  bool Initialized = false, ShutDown = false;

  std::mutex M;
  std::condition_variable Wake;
  bool Stop = false;
  std::map<std::string, Document> Docs;
  std::map<std::string, Clock::time_point> Due;
  // By analyzed file: its last published analysis, and the files its diagnostics went to.
  std::map<std::string, AnalysisResult> Results;
  std::map<std::string, std::set<std::string>> PublishedTo;
  std::string Analyzing;                 // the file the worker analyzes now, if any
  std::atomic<bool> CancelAnalysis{false};
  bool CostsChanged = false;             // the worker publishes again, and asks for new hints
  bool ClientRefreshesHints = false;     // workspace.inlayHint.refreshSupport
  unsigned NextRequestId = 0;
  std::set<std::string> Warned;  // files told once that they have no compile command
  MeasuredCosts Costs;
  PreludePchCache Pchs;  // the CUDA prelude, parsed once per command (the "preamble")
  DatabaseCache Databases;  // compile_commands.json, read again only when it changed
  std::thread Worker;
};

} // namespace syncwatch::lsp
