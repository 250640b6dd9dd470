#include "Server.h"

#include "Positions.h"

#include <algorithm>
#include <iterator>

#include "syncwatch/report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace syncwatch::lsp {
namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

// The path a request is about, from its textDocument.uri.
std::optional<std::string> documentPath(const Object &Params) {
  const Object *Doc = Params.getObject("textDocument");
  std::optional<llvm::StringRef> Uri = Doc ? Doc->getString("uri") : std::nullopt;
  return Uri ? pathOfUri(*Uri) : std::nullopt;
}

Object position(unsigned Line0, unsigned Character) { return Object{{"line", Line0}, {"character", Character}}; }

// A 1-based span of Text as an LSP range. A finding's unknown or empty end is its start + 1
// character (an editor draws an empty range as nothing); an edit's (Edit) is kept as it is:
// an empty range is an insertion.
Object rangeOf(const SourceSpan &S, llvm::StringRef Text, bool Edit = false) {
  unsigned L0 = S.Line ? S.Line - 1 : 0;
  llvm::StringRef Line = lineOf(Text, L0);
  unsigned C0 = S.Column ? utf16Column(Line, S.Column) : 0;
  unsigned EL0 = L0, EC0 = C0 + 1;
  if (S.EndLine && S.EndColumn &&
      (Edit || S.EndLine > S.Line || (S.EndLine == S.Line && S.EndColumn > S.Column))) {
    EL0 = S.EndLine - 1;
    EC0 = utf16Column(lineOf(Text, EL0), S.EndColumn);
  }
  return Object{{"start", position(L0, C0)}, {"end", position(EL0, EC0)}};
}

int lspSeverity(Severity S) { return S == Severity::Error ? 1 : S == Severity::Warning ? 2 : 3; }

std::string readDisk(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

// The LSP position's line (1-based) in a request's params.
std::optional<unsigned> lineOfPosition(const Object *P) {
  std::optional<int64_t> L = P ? P->getInteger("line") : std::nullopt;
  if (!L || *L < 0)
    return std::nullopt;
  return static_cast<unsigned>(*L + 1);
}

// The first and last lines (1-based) of a request's range.
std::optional<std::pair<unsigned, unsigned>> linesOfRange(const Object &Params) {
  const Object *Range = Params.getObject("range");
  std::optional<unsigned> First = lineOfPosition(Range ? Range->getObject("start") : nullptr),
                          Last = lineOfPosition(Range ? Range->getObject("end") : nullptr);
  if (!First || !Last)
    return std::nullopt;
  return std::make_pair(*First, *Last);
}

// Whether a document is C, C++ or CUDA, source or header: by its languageId ("c", "cpp",
// "cuda", VS Code's "cuda-cpp", eglot's "c++"), or else by its extension (an editor that
// knows no CUDA says "plaintext" of a .cu file). Anything else (a Python file, a binary)
// would be parsed as C++ and get a parse error for a diagnostic.
bool isCFamily(llvm::StringRef LanguageId, llvm::StringRef Path) {
  static const char *const Ids[] = {"c", "cpp", "c++", "cuda", "cuda-cpp", "cu"};
  for (const char *Id : Ids)
    if (LanguageId.equals_insensitive(Id))
      return true;
  static const char *const Extensions[] = {".c",  ".h",  ".cc",  ".cpp", ".cxx", ".c++", ".cp", ".hh", ".hpp",
                                           ".hxx", ".h++", ".ipp", ".inl", ".tcc", ".tpp", ".cu", ".cuh"};
  std::string Ext = llvm::sys::path::extension(Path).lower();
  for (const char *E : Extensions)
    if (Ext == E)
      return true;
  return false;
}

} // namespace

int Server::run() {
  Worker = std::thread([this] { work(); });
  int Code = 1;
  for (;;) {
    Incoming In = Out.read();
    if (In.What == Incoming::End)
      break;
    if (In.What == Incoming::BadFrame) {
      showMessage(1, "syncwatch-lsp: a malformed message was skipped (" + In.Error + ")");
      continue;
    }
    if (In.What == Incoming::BadJson) {
      Out.replyError(nullptr, ParseError, "the message is not JSON: " + In.Error);
      continue;
    }
    Object *Msg = In.Body.getAsObject();
    if (!Msg) {
      Out.replyError(nullptr, InvalidRequest, "a JSON-RPC message is an object");
      continue;
    }
    if (Msg->getString("method") == std::optional<llvm::StringRef>("exit")) {
      Code = ShutDown ? 0 : 1;
      break;
    }
    handle(*Msg);
  }
  {
    std::lock_guard<std::mutex> G(M);
    Stop = true;
  }
  Wake.notify_all();
  Worker.join();
  return Code;
}

void Server::handle(Object &Msg) {
  const Value *Id = Msg.get("id");
  std::optional<llvm::StringRef> Method = Msg.getString("method");
  if (!Method) {
    // A response to a request of ours (workspace/inlayHint/refresh) needs nothing. Anything
    // else is not JSON-RPC: its id, or null where it has none (JSON-RPC 2.0, section 5).
    bool Response = Id && (Msg.get("result") || Msg.get("error"));
    if (!Response)
      Out.replyError(Id ? *Id : Value(nullptr), InvalidRequest, "a request needs a method");
    return;
  }
  static const Object NoParams;
  const Object *Params = Msg.getObject("params");
  if (!Params)
    Params = &NoParams;
  if (!Initialized && *Method != "initialize") {
    if (Id)
      Out.replyError(*Id, ServerNotInitialized, "initialize first");
    return;
  }
  // After shutdown only exit is served (run() takes it); LSP: requests are refused with
  // InvalidRequest, notifications dropped.
  if (ShutDown) {
    if (Id)
      Out.replyError(*Id, InvalidRequest, "the server was shut down: only exit is served");
    return;
  }
  if (Id) {
    if (*Method == "initialize")
      Out.reply(*Id, initialize(*Params));
    else if (*Method == "shutdown") {
      ShutDown = true;
      Out.reply(*Id, nullptr);
    } else if (*Method == "textDocument/codeAction")
      Out.reply(*Id, codeActions(*Params));
    else if (*Method == "textDocument/hover")
      Out.reply(*Id, hover(*Params));
    else if (*Method == "textDocument/inlayHint")
      Out.reply(*Id, inlayHints(*Params));
    else
      Out.replyError(*Id, MethodNotFound, "syncwatch-lsp does not serve " + Method->str());
    return;
  }
  if (*Method == "textDocument/didOpen")
    opened(*Params);
  else if (*Method == "textDocument/didChange")
    changed(*Params);
  else if (*Method == "textDocument/didSave")
    saved(*Params);
  else if (*Method == "textDocument/didClose")
    closed(*Params);
  // (initialized, $/cancelRequest, workspace/didChangeConfiguration...: nothing to do)
}

Value Server::initialize(const Object &Params) {
  Initialized = true;
  std::string Root;
  if (std::optional<llvm::StringRef> Uri = Params.getString("rootUri"))
    Root = pathOfUri(*Uri).value_or("");
  else if (std::optional<llvm::StringRef> Path = Params.getString("rootPath"))
    Root = Path->str();
  if (const Object *Init = Params.getObject("initializationOptions")) {
    if (std::optional<llvm::StringRef> Db = Init->getString("compilationDatabase"))
      Options.Analysis.Database = Db->str();
    if (std::optional<llvm::StringRef> Checks = Init->getString("checks"))
      Options.Analysis.Checks = Checks->str();
    if (std::optional<llvm::StringRef> Reports = Init->getString("reports"))
      Options.Reports = Reports->str();
  }
  if (const Object *Caps = Params.getObject("capabilities"))
    if (const Object *Ws = Caps->getObject("workspace"))
      if (const Object *Hints = Ws->getObject("inlayHint"))
        ClientRefreshesHints = Hints->getBoolean("refreshSupport").value_or(false);
  std::string Reports = Options.Reports;
  if (Reports.empty() && !Root.empty())
    Reports = Root + "/.syncwatch";
  {
    std::lock_guard<std::mutex> G(M);
    Costs.setFolder(Reports);
  }
  return Object{
      {"capabilities",
       Object{{"textDocumentSync", Object{{"openClose", true}, {"change", 1}, {"save", Object{{"includeText", false}}}}},
              {"codeActionProvider", Object{{"codeActionKinds", Array{"quickfix"}}}},
              {"hoverProvider", true},
              {"inlayHintProvider", true}}},
      {"serverInfo", Object{{"name", "syncwatch-lsp"}, {"version", SYNCWATCH_VERSION}}}};
}

void Server::opened(const Object &Params) {
  std::optional<std::string> Path = documentPath(Params);
  const Object *Doc = Params.getObject("textDocument");
  std::optional<llvm::StringRef> Text = Doc ? Doc->getString("text") : std::nullopt;
  if (!Path || !Text)
    return showMessage(1, "syncwatch-lsp: didOpen without a file:// uri and text: ignored");
  std::optional<llvm::StringRef> Language = Doc->getString("languageId");
  if (!isCFamily(Language.value_or(""), *Path))  // not opened for us: no diagnostics, ever
    return logMessage("syncwatch-lsp: " + *Path + ": not C, C++ or CUDA (" + Language.value_or("no languageId").str() +
                      "): not analyzed");
  {
    std::lock_guard<std::mutex> G(M);
    Document &D = Docs[*Path];
    D.Text = Text->str();
    D.Version = Doc->getInteger("version").value_or(0);
    ++D.Generation;
    D.WholeDue = true;
    cancelLocked(*Path);
  }
  schedule(*Path, 0);
}

void Server::changed(const Object &Params) {
  std::optional<std::string> Path = documentPath(Params);
  const Array *Changes = Params.getArray("contentChanges");
  if (!Path || !Changes || Changes->empty())
    return;
  // Full synchronization (textDocumentSync.change = 1): the last change is the whole text.
  const Object *Last = Changes->back().getAsObject();
  std::optional<llvm::StringRef> Text = Last ? Last->getString("text") : std::nullopt;
  if (!Text || Last->get("range"))
    return showMessage(1, "syncwatch-lsp: an incremental change was sent to a full-sync server: ignored");
  {
    std::lock_guard<std::mutex> G(M);
    auto It = Docs.find(*Path);
    if (It == Docs.end())
      return;  // not open, or not C, C++ or CUDA (opened() left it out)
    Document &D = It->second;
    D.Text = Text->str();
    if (const Object *Doc = Params.getObject("textDocument"))
      D.Version = Doc->getInteger("version").value_or(D.Version + 1);
    ++D.Generation;
    cancelLocked(*Path);
  }
  schedule(*Path, Options.DebounceMs);
}

void Server::saved(const Object &Params) {
  std::optional<std::string> Path = documentPath(Params);
  if (!Path)
    return;
  // The saved file, and every open file whose unit read it (a header): whole-unit analyses,
  // the headers' findings with them.
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(*Path, Real))
    Real = *Path;
  std::vector<std::string> Again{*Path};
  {
    std::lock_guard<std::mutex> G(M);
    for (const auto &[File, R] : Results)
      if (File != *Path && std::binary_search(R.FilesRead.begin(), R.FilesRead.end(), std::string(Real)))
        Again.push_back(File);
    for (const std::string &File : Again)
      if (auto D = Docs.find(File); D != Docs.end())
        D->second.WholeDue = true;
  }
  for (const std::string &File : Again)
    schedule(File, 0);
}

void Server::cancelLocked(const std::string &Path) {
  if (Analyzing == Path)
    CancelAnalysis = true;
}

void Server::closed(const Object &Params) {
  std::optional<std::string> Path = documentPath(Params);
  if (!Path)
    return;
  std::lock_guard<std::mutex> G(M);
  if (!Docs.count(*Path))
    return;  // never analyzed: nothing was published to take back
  cancelLocked(*Path);
  Docs.erase(*Path);
  Due.erase(*Path);
  // Its diagnostics go, in it and in its headers (what other open files found there stays).
  Results.erase(*Path);
  publishLocked(*Path);
}

void Server::schedule(const std::string &Path, unsigned DelayMs) {
  {
    std::lock_guard<std::mutex> G(M);
    Due[Path] = Clock::now() + std::chrono::milliseconds(DelayMs);
  }
  Wake.notify_all();
}

void Server::work() {
  std::unique_lock<std::mutex> L(M);
  Clock::time_point NextPoll = Clock::now();
  while (!Stop) {
    // New runtime reports (a run landed in .syncwatch/): the hovers and runtime-only
    // diagnostics of every open file change with them.
    if (Clock::now() >= NextPoll) {
      refreshCostsLocked();
      NextPoll = Clock::now() + std::chrono::milliseconds(Options.ReportPollMs);
    }
    if (CostsChanged) {
      CostsChanged = false;
      for (const auto &[Path, R] : Results)
        publishLocked(Path);
      refreshInlayHints();
    }
    auto Next = std::min_element(Due.begin(), Due.end(), [](auto &A, auto &B) { return A.second < B.second; });
    Clock::time_point Until = Next == Due.end() ? NextPoll : std::min(NextPoll, Next->second);
    if (Next == Due.end() || Next->second > Clock::now()) {
      Wake.wait_until(L, Until);
      continue;
    }
    std::string Path = Next->first;
    Due.erase(Next);
    auto Doc = Docs.find(Path);
    if (Doc == Docs.end())
      continue;  // closed (a save of a file not open is not analyzed)
    std::string Text = Doc->second.Text;
    std::int64_t Version = Doc->second.Version;
    std::uint64_t Generation = Doc->second.Generation;
    AnalysisConfig Config = Options.Analysis;
    Config.Pchs = &Pchs;
    Config.Databases = &Databases;
    // An edit: the file's own code, when the headers' findings of a whole analysis are kept.
    Config.MainFileScope = !Doc->second.WholeDue && Results.count(Path);
    Config.Cancel = &CancelAnalysis;
    Analyzing = Path;
    CancelAnalysis = false;
    L.unlock();
    AnalysisResult R = analyzeBuffer(Path, Text, Config);
    if (!R.Log.empty())  // before its diagnostics: a client reads what the analysis was
      logMessage(R.Log);
    L.lock();
    Analyzing.clear();
    Doc = Docs.find(Path);
    if (R.Cancelled || Doc == Docs.end() || Doc->second.Generation != Generation)
      continue;  // edited (or closed) meanwhile: stale, and the new text is already due
    if (auto Old = Results.find(Path); R.MainFileOnly && Old != Results.end()) {
      // The headers' findings are the last result's, which has those of the last whole
      // analysis (this one did not walk the headers; MainFileScope needs a last result).
      R.Findings.erase(std::remove_if(R.Findings.begin(), R.Findings.end(),
                                      [&](const Finding &F) { return F.Where.File != Path; }),
                       R.Findings.end());
      for (const Finding &F : Old->second.Findings)
        if (F.Where.File != Path)
          R.Findings.push_back(F);
      // (a parse from the PCH opens fewer of the headers: the whole analysis's list stands)
      std::vector<std::string> Read;
      std::set_union(Old->second.FilesRead.begin(), Old->second.FilesRead.end(), R.FilesRead.begin(),
                     R.FilesRead.end(), std::back_inserter(Read));
      R.FilesRead = std::move(Read);
    } else if (!R.MainFileOnly && R.NoCommand.empty() && R.Errors.empty()) {
      Doc->second.WholeDue = false;
    }
    if (!R.NoCommand.empty() && Warned.insert(Path).second) {
      L.unlock();
      showMessage(2, "syncwatch-lsp: " + llvm::sys::path::filename(Path).str() + " is not analyzed: " + R.NoCommand);
      L.lock();
    }
    Results[Path] = std::move(R);
    Doc->second.AnalyzedText = std::move(Text);
    Doc->second.AnalyzedVersion = Version;
    publishLocked(Path);
  }
}

std::string Server::textOfLocked(const std::string &Path) const {
  auto It = Docs.find(Path);
  return It != Docs.end() ? It->second.Text : readDisk(Path);
}

Value Server::diagnostic(const Finding &F, llvm::StringRef Text) const {
  Object D{{"range", rangeOf(F.Where, Text)},
           {"severity", lspSeverity(F.Level)},
           {"code", F.Rule},
           {"source", "syncwatch"},
           {"message", F.Message}};
  if (!Options.RuleDocsDir.empty() && F.Rule.rfind("syncwatch-", 0) == 0)
    D["codeDescription"] = Object{{"href", uriOfPath(Options.RuleDocsDir + "/" + F.Rule + ".md")}};
  Array Related;
  for (const FindingNote &N : F.Notes)
    if (N.Where.known()) {
      std::string NoteText = N.Where.File == F.Where.File ? Text.str() : textOfLocked(N.Where.File);
      Related.push_back(Object{{"location", Object{{"uri", uriOfPath(N.Where.File)}, {"range", rangeOf(N.Where, NoteText)}}},
                               {"message", N.Message}});
    }
  if (!Related.empty())
    D["relatedInformation"] = std::move(Related);
  return D;
}

void Server::publishLocked(const std::string &Path) {
  // The files this analysis publishes to now, and those it published to before (a header
  // whose last finding went away gets its list again: empty, or another file's).
  std::set<std::string> Files = PublishedTo[Path];
  std::set<std::string> Now{Path};
  if (auto It = Results.find(Path); It != Results.end())
    for (const Finding &F : It->second.Findings)
      if (F.Where.known())
        Now.insert(F.Where.File);
  Files.insert(Now.begin(), Now.end());
  if (Results.count(Path))
    PublishedTo[Path] = std::move(Now);
  else
    PublishedTo.erase(Path);
  for (const std::string &File : Files)
    publishFileLocked(File);
}

void Server::publishFileLocked(const std::string &File) {
  // Publishing one file's analysis does not take away another's findings in a shared header.
  // A file's own analysis is of the text it read: its ranges are of that text, and the
  // version is that text's (LSP: the version the diagnostics were computed for), so a
  // client drops a republish that an edit has overtaken instead of showing it a line off.
  auto Doc = Docs.find(File);
  bool Own = Results.count(File) && Doc != Docs.end();
  std::string Text = Own ? Doc->second.AnalyzedText : textOfLocked(File);
  Array Diags;
  std::set<unsigned> StaticLines;
  for (const Finding &F : findingsInLocked(File)) {
    Diags.push_back(diagnostic(F, Text));
    StaticLines.insert(F.Where.Line);
  }
  if (auto It = Results.find(File); It != Results.end())
    for (const ToolError &E : It->second.Errors)
      Diags.push_back(Object{{"range", Object{{"start", position(0, 0)}, {"end", position(0, 1)}}},
                             {"severity", 1},
                             {"source", "syncwatch"},
                             {"message", "syncwatch could not analyze this file: " + E.Message}});
  // What the GPU measured where no static result is: runtime-only findings, as information.
  bool Reached = Results.count(File) || !Diags.empty();
  for (const auto &[Line, Measured] : Costs.in(File))
    for (const MeasuredAt &M : Measured)
      if (Reached && M.RuntimeFinding && !StaticLines.count(Line)) {
        SourceSpan S{File, Line, 0};
        Diags.push_back(Object{{"range", rangeOf(S, Text)},
                               {"severity", 3},
                               {"code", M.Rule},
                               {"source", "syncwatch (runtime)"},
                               {"message", M.Text + ": " + M.Message}});
      }
  Object Params{{"uri", uriOfPath(File)}, {"diagnostics", std::move(Diags)}};
  if (Own)
    Params["version"] = Doc->second.AnalyzedVersion;
  Out.notify("textDocument/publishDiagnostics", std::move(Params));
}

Value Server::codeActions(const Object &Params) {
  std::optional<std::string> Path = documentPath(Params);
  std::optional<std::pair<unsigned, unsigned>> Lines = linesOfRange(Params);
  if (!Path || !Lines)
    return Array{};
  auto [First, Last] = *Lines;
  std::lock_guard<std::mutex> G(M);
  Array Actions;
  // An edit not analyzed yet: the findings' offsets are of the older text, and an edit made
  // from them would land in the wrong place of the buffer. None until the new analysis (the
  // editor asks again when its diagnostics arrive).
  if (auto D = Docs.find(*Path); D != Docs.end() && Results.count(*Path) && D->second.Text != D->second.AnalyzedText)
    return Actions;
  std::string Text = textOfLocked(*Path);
  for (const Finding &F : findingsInLocked(*Path)) {
    if (F.Where.Line < First || F.Where.Line > Last)
      continue;
    Value Diag = diagnostic(F, Text);
    if (!F.Fixes.empty()) {
      Object Changes;
      for (const FixIt &X : F.Fixes) {
        std::string FixText = X.Where.File == *Path ? Text : textOfLocked(X.Where.File);
        std::string U = uriOfPath(X.Where.File);
        if (!Changes.getArray(U))
          Changes[U] = Array{};
        Changes.getArray(U)->push_back(Object{{"range", rangeOf(X.Where, FixText, /*Edit=*/true)}, {"newText", X.Text}});
      }
      Actions.push_back(Object{{"title", "syncwatch: " + F.Rule.substr(10) + ": apply the fix"},
                               {"kind", "quickfix"},
                               {"isPreferred", true},
                               {"diagnostics", Array{Diag}},
                               {"edit", Object{{"changes", std::move(Changes)}}}});
    }
    // NOLINT(rule) at the line's end; before a macro's line continuation, as a block
    // comment; added to a NOLINT(...) the line has.
    llvm::StringRef Line = lineOf(Text, F.Where.Line - 1);
    unsigned L0 = F.Where.Line - 1;
    std::string NewText;
    unsigned At = static_cast<unsigned>(Line.size());
    if (std::size_t Open = Line.find("NOLINT("); Open != llvm::StringRef::npos && Line.find(')', Open) != llvm::StringRef::npos) {
      At = static_cast<unsigned>(Line.find(')', Open));
      NewText = "," + F.Rule;
    } else if (Line.rtrim().ends_with("\\")) {
      At = static_cast<unsigned>(Line.rtrim().size() - 1);
      NewText = "/* NOLINT(" + F.Rule + ") */ ";
    } else {
      NewText = "  // NOLINT(" + F.Rule + ")";
    }
    Object Edit{{"range", Object{{"start", position(L0, utf16Column(Line, At + 1))}, {"end", position(L0, utf16Column(Line, At + 1))}}},
                {"newText", NewText}};
    Actions.push_back(Object{{"title", "syncwatch: NOLINT(" + F.Rule + ") on this line"},
                             {"kind", "quickfix"},
                             {"diagnostics", Array{Diag}},
                             {"edit", Object{{"changes", Object{{uriOfPath(*Path), Array{std::move(Edit)}}}}}}});
  }
  return Actions;
}

Value Server::hover(const Object &Params) {
  std::optional<std::string> Path = documentPath(Params);
  std::optional<unsigned> Line = lineOfPosition(Params.getObject("position"));
  if (!Path || !Line)
    return nullptr;
  std::lock_guard<std::mutex> G(M);
  refreshCostsLocked();
  std::string Md;
  for (const Finding &F : findingsInLocked(*Path))
    if (F.Where.Line == *Line)
      Md += "**" + F.Rule + "**: " + F.Message + "\n\n";
  std::vector<MeasuredAt> Measured = Costs.at(*Path, *Line);
  for (const MeasuredAt &M : Measured)
    Md += "*" + M.Text + "* (" + M.Rule + ")" + (M.Message.empty() ? std::string() : ": " + M.Message) + "\n\n";
  if (Md.empty())
    return nullptr;
  return Object{{"contents", Object{{"kind", "markdown"}, {"value", llvm::StringRef(Md).rtrim().str()}}}};
}

Value Server::inlayHints(const Object &Params) {
  std::optional<std::string> Path = documentPath(Params);
  std::optional<std::pair<unsigned, unsigned>> Lines = linesOfRange(Params);
  if (!Path || !Lines)
    return Array{};
  auto [First, Last] = *Lines;
  std::lock_guard<std::mutex> G(M);
  refreshCostsLocked();
  std::string Text = textOfLocked(*Path);
  Array Hints;
  // After the line's last character: the measured cost reads as the line's annotation.
  for (const auto &[Line, Measured] : Costs.in(*Path)) {
    if (Line < First || Line > Last)
      continue;
    std::string Label, Tooltip;
    for (const MeasuredAt &Mt : Measured) {
      Label += (Label.empty() ? "" : "; ") + Mt.Text;
      Tooltip += (Tooltip.empty() ? "" : "\n") + Mt.Rule + (Mt.Message.empty() ? std::string() : ": " + Mt.Message);
    }
    llvm::StringRef L = lineOf(Text, Line - 1);
    Hints.push_back(Object{{"position", position(Line - 1, utf16Column(L, static_cast<unsigned>(L.size()) + 1))},
                           {"label", Label},
                           {"paddingLeft", true},
                           {"tooltip", Tooltip}});
  }
  return Hints;
}

void Server::refreshCostsLocked() {
  std::vector<std::string> Problems;
  if (Costs.refresh(Problems)) {
    CostsChanged = true;
    Wake.notify_all();
  }
  for (const std::string &P : Problems)
    showMessage(2, "syncwatch-lsp: a runtime report could not be read: " + P);
}

std::vector<Finding> Server::findingsInLocked(const std::string &File) const {
  // A header two open files include has the findings of both analyses in it: each once, as
  // syncwatch-lint reports a header's finding once (sortFindings).
  std::vector<Finding> In;
  for (const auto &[Analyzed, R] : Results)
    for (const Finding &F : R.Findings)
      if (F.Where.File == File)
        In.push_back(F);
  sortFindings(In);
  return In;
}

void Server::refreshInlayHints() {
  // A request of the server's: the client asks for the open files' hints again. Its answer
  // (null) needs nothing done.
  if (ClientRefreshesHints)
    Out.send(Object{{"jsonrpc", "2.0"},
                    {"id", "syncwatch-" + std::to_string(++NextRequestId)},
                    {"method", "workspace/inlayHint/refresh"}});
}

void Server::showMessage(int Type, const std::string &Message) {
  Out.notify("window/showMessage", Object{{"type", Type}, {"message", Message}});
}

void Server::logMessage(const std::string &Message) {
  // Info (3): editors log a server's stderr as errors (Neovim: every line at [ERROR]).
  Out.notify("window/logMessage", Object{{"type", 3}, {"message", Message}});
}

} // namespace syncwatch::lsp
