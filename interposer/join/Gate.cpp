#include "Gate.h"

#include "RunSites.h"
#include "ToolFiles.h"

#include "syncwatch/catalogue.h"
#include "syncwatch/evidence_number.h"
#include "syncwatch/file_output.h"
#include "syncwatch/json_value.h"
#include "syncwatch/json_writer.h"
#include "syncwatch/report.h"
#include "syncwatch/thread_costs.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace syncwatch::runtime {

namespace {

int fail(const std::string &Why) {
  std::cerr << "syncwatch gate: error: " << Why << "\n";
  return 2;
}

std::string ms(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.2f ms", V);
  return Buf;
}

// One allowlist entry: the sites it covers and why they are accepted.
struct AllowEntry {
  unsigned Number = 0;  // 1-based, as the file lists them
  std::string File, Function, Thread, Rule, Api, Reason;
  unsigned Line = 0;
  double MaxMs = -1;  // >= 0: allowed up to this much a run; more fails
  bool Used = false;
  std::string scope() const {
    std::string S;
    if (!File.empty())
      S += "file '" + File + (Line ? ":" + std::to_string(Line) : "") + "'";
    if (!Function.empty())
      S += (S.empty() ? "" : ", ") + std::string("function '") + Function + "'";
    if (!Thread.empty())
      S += (S.empty() ? "" : ", ") + std::string("thread '") + Thread + "'";
    if (!Rule.empty())
      S += ", rule " + Rule;
    if (!Api.empty())
      S += ", api " + Api;
    return S;
  }
};

const char *const AllowKeys[] = {"file", "line", "function", "thread", "rule", "api", "reason", "maxMs"};

bool readAllowlist(const std::string &Path, std::vector<AllowEntry> &Out, std::string &Error) {
  std::string Text, Why;
  if (!readWholeFile(Path, Text, Why)) {
    Error = Path + ": " + Why;
    return false;
  }
  JsonValue Doc;
  if (!JsonValue::parse(Text, Doc, Why)) {
    Error = Path + ": is not JSON: " + Why;
    return false;
  }
  if (Doc["allow"].kind() != JsonValue::Kind::Array) {
    Error = Path + ": an allowlist is {\"allow\": [...]} (docs/ci.md, \"A gate on measured cost\")";
    return false;
  }
  unsigned N = 0;
  for (const JsonValue &E : Doc["allow"].array()) {
    ++N;
    std::string Where = Path + ": allow[" + std::to_string(N - 1) + "]";
    if (!E.isObject()) {
      Error = Where + " is not an object";
      return false;
    }
    // A misspelt key would widen an entry silently ("fucntion" dropped, the file's every
    // site allowed): refused.
    for (const auto &[K, V] : E.members())
      if (std::find(std::begin(AllowKeys), std::end(AllowKeys), K) == std::end(AllowKeys)) {
        Error = Where + " has '" + K + "', which an allowlist entry does not take (file, line, function, thread, rule, api, reason, maxMs)";
        return false;
      }
    AllowEntry A;
    A.Number = N;
    auto Str = [&](const char *K, std::string &Into) {
      const JsonValue &V = E[K];
      if (V.kind() == JsonValue::Kind::Null)
        return true;
      if (V.kind() != JsonValue::Kind::String)
        return false;
      Into = V.string();
      return true;
    };
    if (!Str("file", A.File) || !Str("function", A.Function) || !Str("thread", A.Thread) || !Str("rule", A.Rule) ||
        !Str("api", A.Api) || !Str("reason", A.Reason)) {
      Error = Where + ": file, function, thread, rule, api and reason are strings";
      return false;
    }
    if (E["line"].kind() != JsonValue::Kind::Null) {
      A.Line = E["line"].whole<unsigned>(0);
      if (!A.Line || A.File.empty()) {
        Error = Where + ": line is a line number (1 or more) of the entry's file";
        return false;
      }
    }
    if (E["maxMs"].kind() != JsonValue::Kind::Null) {
      // Typed and range-checked (evidence_number.h): 1e400 read as inf allowed any cost.
      if (std::string Why = readMsJson(Where + ".maxMs", E["maxMs"], A.MaxMs); !Why.empty()) {
        Error = Why + " (maxMs is a number of milliseconds, 0 or more)";
        return false;
      }
    }
    if (A.File.empty() && A.Function.empty() && A.Thread.empty()) {
      Error = Where + " names no scope: give a file, a function or a thread";
      return false;
    }
    if (A.Reason.find_first_not_of(" \t") == std::string::npos) {
      Error = Where + " has no reason: say why the cost is accepted (the next reader needs it)";
      return false;
    }
    if (!A.Rule.empty() && !findRule(A.Rule)) {
      Error = Where + ": '" + A.Rule + "' is not a syncwatch rule";
      return false;
    }
    Out.push_back(std::move(A));
  }
  return true;
}

bool glob(const std::string &Pattern, const std::string &Text) { return fnmatch(Pattern.c_str(), Text.c_str(), 0) == 0; }

// A file pattern: the path itself, a suffix of it at a '/' ("src/train.cu" matches
// "/home/ci/repo/src/train.cu"), or a glob of either.
bool fileMatches(const std::string &Pattern, const std::string &File) {
  if (File == Pattern || glob(Pattern, File) || glob("*/" + Pattern, File))
    return true;
  return File.size() > Pattern.size() && File.compare(File.size() - Pattern.size(), Pattern.size(), Pattern) == 0 &&
         File[File.size() - Pattern.size() - 1] == '/';
}

bool siteMatches(const AllowEntry &A, const SiteId &S) {
  if (!A.Rule.empty() && A.Rule != S.Rule)
    return false;
  if (!A.Api.empty() && !glob(A.Api, S.Api))
    return false;
  if (!A.File.empty() && (!fileMatches(A.File, S.File) || (A.Line && A.Line != S.Line)))
    return false;
  if (!A.Function.empty() && !glob(A.Function, S.Function))
    return false;
  return true;
}

// The baseline written by --write-baseline: this run's sites and what each cost.
const char *const BaselineTool = "syncwatch gate baseline";

// 1: Path is a gate baseline, read into Out; 0: it is not one (an earlier run's report or
// recording, for loadSide); -1: it is one, damaged (Error says how).
int readGateBaseline(const std::string &Path, Side &Out, std::string &Error) {
  std::string Text, Why;
  JsonValue Doc;
  if (!readWholeFile(Path, Text, Why) || !JsonValue::parse(Text, Doc, Why) || Doc["tool"].kind() != JsonValue::Kind::String ||
      Doc["tool"].string() != BaselineTool)
    return 0;
  if (Doc["sites"].kind() != JsonValue::Kind::Array) {
    Error = Path + ": a gate baseline has \"sites\": [...]";
    return false;
  }
  Out.BlockedMs.emplace_back();
  for (const JsonValue &E : Doc["sites"].array()) {
    SiteId S;
    S.Rule = E["rule"].kind() == JsonValue::Kind::String ? E["rule"].string() : "";
    S.File = E["file"].kind() == JsonValue::Kind::String ? E["file"].string() : "";
    S.Function = E["function"].kind() == JsonValue::Kind::String ? E["function"].string() : "";
    S.Api = E["api"].kind() == JsonValue::Kind::String ? E["api"].string() : "";
    S.Fingerprint = E["fingerprint"].kind() == JsonValue::Kind::String ? E["fingerprint"].string() : "";
    S.Line = E["line"].whole<unsigned>(0);
    std::string At = Path + ": sites[" + std::to_string(Out.Sites.size()) + "]";
    if (S.Rule.empty() || E["ms"].kind() != JsonValue::Kind::Number) {
      Error = At + " needs a rule and ms";
      return -1;
    }
    // What the next run is compared with: a negative or infinite cost would pass any run.
    if (std::string Why = readMsJson(At + ".ms", E["ms"], Out.BlockedMs.back()[Out.Sites.size()]); !Why.empty()) {
      Error = Why;
      return -1;
    }
    Out.Sites.push_back(S);
    Out.Levels.push_back(Severity::Warning);
    Out.ThreadMs.emplace_back();
  }
  return 1;
}

// What the gate says of one site.
struct SiteVerdict {
  std::size_t Site = 0;
  double Ms = 0, AllowedMs = 0, BaselineMs = -1;  // BaselineMs < 0: not in the baseline (or none)
  std::string Status;  // new | grown | known | measured | allowed | over-allowance | below-min
  bool Fails = false;
  std::vector<const AllowEntry *> Allowances;
  double remaining() const { return Ms - AllowedMs; }
};

int severityRank(const std::string &S) { return S == "note" ? 0 : S == "warning" ? 1 : 2; }
int severityRank(Severity S) { return S == Severity::Note ? 0 : S == Severity::Warning ? 1 : 2; }

std::string sentence(const SiteVerdict &V, const Side &Run) {
  std::string Level(severityName(Run.Levels[V.Site]));
  std::string S = ms(V.Ms) + " blocked, " + Level;
  if (V.AllowedMs > 0 && V.Status != "allowed")
    S += " (" + ms(V.AllowedMs) + " of it allowed)";
  if (V.Status == "new")
    return S + "; not in the baseline";
  if (V.Status == "grown")
    return S + "; the baseline had " + ms(V.BaselineMs) + " (+" + ms(V.remaining() - V.BaselineMs) + ")";
  if (V.Status == "known")
    return S + "; the baseline had " + ms(V.BaselineMs);
  if (V.Status == "over-allowance") {
    const AllowEntry *A = V.Allowances.front();
    return S + "; allowlist entry " + std::to_string(A->Number) + " allows " + ms(A->MaxMs) + " (" + A->Reason + ")";
  }
  if (V.Status == "allowed") {
    std::string Why;
    for (const AllowEntry *A : V.Allowances)
      Why += (Why.empty() ? "" : "; ") + std::string("entry ") + std::to_string(A->Number) + ": " + A->Reason;
    return S + "; allowed (" + Why + ")";
  }
  if (V.Status == "below-min")
    return S + "; under --min-cost-ms";
  return S;
}

// The run's sides (the run, the baseline) and the allowlist, or the exit code (said).
int loadGateInputs(const GateOptions &Opts, Side &Run, std::vector<AllowEntry> &Allow, Side &Base) {
  if (Opts.Inputs.empty())
    return fail("no report: give the run's reports (.json) or recordings (.swrec)");
  {
    std::vector<std::string> In = Opts.Inputs;
    In.insert(In.end(), Opts.Baseline.begin(), Opts.Baseline.end());
    if (!Opts.Allowlist.empty())
      In.push_back(Opts.Allowlist);
    for (const std::string *Out : {&Opts.Output, &Opts.WriteBaseline})
      if (std::string Same = outputThatIsAnInput(*Out, In); !Same.empty())
        return fail("the output '" + *Out + "' is the input '" + Same + "': refusing to overwrite it");
  }
  std::string Error;
  if (!loadSide({VerifyRun{Opts.Inputs, -1}}, Run, Error))
    return fail(Error);
  const Side::Steps &Steps = Run.StepsOfRun.front();
  if (Opts.BudgetMsPerStep >= 0 && !Steps.Count)
    return fail("--budget-ms-per-step: no report of the run marked steps (run it with SYNCWATCH_STEP=NAME, the "
                "NVTX range that is one step: docs/runtime.md)");
  if (!Opts.Allowlist.empty() && !readAllowlist(Opts.Allowlist, Allow, Error))
    return fail(Error);
  if (!Opts.Baseline.empty()) {
    int Own = Opts.Baseline.size() == 1 ? readGateBaseline(Opts.Baseline.front(), Base, Error) : 0;
    if (Own < 0 || (Own == 0 && !loadSide({VerifyRun{Opts.Baseline, -1}}, Base, Error)))
      return fail("the baseline: " + Error);
    // The baseline's paths as this run's (another checkout): matchSites compares the two.
    mapSitePaths(Base, Opts.PathMaps);
  }
  return 0;
}

// What the allowlist entries that match site I accept of its cost (V.AllowedMs, V.Allowances);
// true when an entry's maxMs is exceeded (that entry listed first).
bool applyAllowlist(std::size_t I, const Side &Run, std::vector<AllowEntry> &Allow, SiteVerdict &V) {
  bool OverAllowance = false;
  for (AllowEntry &A : Allow) {
    if (!siteMatches(A, Run.Sites[I]))
      continue;
    double Share = V.Ms;
    if (!A.Thread.empty()) {  // only what the named threads paid
      Share = 0;
      for (const auto &[Label, TMs] : Run.ThreadMs[I])
        if (glob(A.Thread, threadName(Label)) || glob(A.Thread, Label))
          Share += TMs;
      if (Share <= 0)
        continue;
    }
    A.Used = true;
    V.Allowances.push_back(&A);
    if (A.MaxMs >= 0 && Share > A.MaxMs) {
      OverAllowance = true;
      V.Allowances.erase(V.Allowances.end() - 1);
      V.Allowances.insert(V.Allowances.begin(), &A);  // the one that failed, first
      continue;
    }
    V.AllowedMs = std::min(V.Ms, V.AllowedMs + Share);
  }
  return OverAllowance;
}

// A site's status once its allowances and baseline cost are known, and whether it fails.
void setStatus(SiteVerdict &V, bool OverAllowance, bool HaveBaseline, bool Judged, const GateOptions &Opts) {
  if (OverAllowance) {
    V.Status = "over-allowance";
    V.Fails = true;
  } else if (V.remaining() < Opts.MinCostMs) {
    V.Status = V.AllowedMs > 0 ? "allowed" : "below-min";
  } else if (!HaveBaseline) {
    V.Status = "measured";
    V.Fails = Judged;
  } else if (V.BaselineMs < 0) {
    V.Status = "new";
    V.Fails = Judged;
  } else {
    double Growth = V.remaining() - V.BaselineMs;
    bool Grown = Growth > Opts.GrowMs && Growth > Opts.GrowPct / 100 * V.BaselineMs;
    V.Status = Grown ? "grown" : "known";
    V.Fails = Grown && Judged;
  }
}

// The gate's answer over the run: every site's verdict, the totals, the budgets.
struct GateVerdict {
  std::vector<SiteVerdict> Sites;
  double Blocked = 0, Allowed = 0, Counted = 0;
  bool OverBudget = false, StepOverBudget = false, Fails = false;
  std::map<std::string, unsigned> Counts;
  unsigned Failing = 0;
  std::vector<const AllowEntry *> Unused;
  std::string Budget;  // the budgets' sentence ("" when none)
};

// Each site: what its allowlist entries accept, then what is left of it against the
// baseline, or alone. Failing first, then the costliest.
void judgeSites(const GateOptions &Opts, const Side &Run, std::vector<AllowEntry> &Allow, const Side &Base,
                GateVerdict &G) {
  bool HaveBaseline = !Opts.Baseline.empty();
  std::vector<long> Known = HaveBaseline ? matchSites(Base, Run) : std::vector<long>(Run.Sites.size(), -1);
  for (std::size_t I = 0; I < Run.Sites.size(); ++I) {
    SiteVerdict V;
    V.Site = I;
    auto It = Run.BlockedMs[0].find(I);
    V.Ms = It == Run.BlockedMs[0].end() ? 0 : It->second;
    bool OverAllowance = applyAllowlist(I, Run, Allow, V);
    if (HaveBaseline && Known[I] >= 0) {
      auto B = Base.BlockedMs[0].find(static_cast<std::size_t>(Known[I]));
      V.BaselineMs = B == Base.BlockedMs[0].end() ? 0 : B->second;
    }
    bool Judged = severityRank(Run.Levels[I]) >= severityRank(Opts.FailOn);
    setStatus(V, OverAllowance, HaveBaseline, Judged, Opts);
    G.Blocked += V.Ms;
    G.Allowed += V.AllowedMs;
    G.Sites.push_back(std::move(V));
  }
  std::stable_sort(G.Sites.begin(), G.Sites.end(), [](const SiteVerdict &A, const SiteVerdict &B) {
    return A.Fails != B.Fails ? A.Fails : A.Ms > B.Ms;
  });
}

// The totals against the budgets, the failing sites counted, the allowlist entries unused.
void judgeRun(const GateOptions &Opts, const Side::Steps &Steps, const std::vector<AllowEntry> &Allow, GateVerdict &G) {
  G.Counted = G.Blocked - G.Allowed;
  G.OverBudget = Opts.BudgetMs >= 0 && G.Counted > Opts.BudgetMs;
  // (The per-step budget holds the steps' whole waits: an allowlist scopes sites, not steps.)
  G.StepOverBudget = Opts.BudgetMsPerStep >= 0 && Steps.WorstMs > Opts.BudgetMsPerStep;
  for (const SiteVerdict &V : G.Sites) {
    ++G.Counts[V.Status];
    G.Failing += V.Fails;
  }
  G.Fails = G.OverBudget || G.StepOverBudget || G.Failing;
  for (const AllowEntry &A : Allow)
    if (!A.Used)
      G.Unused.push_back(&A);
}

// --write-baseline: this run's sites and what is left of each after the allowlist.
int writeBaseline(const GateOptions &Opts, const Side &Run, const GateVerdict &G) {
  std::ostringstream B;
  JsonWriter J(B);
  J.beginObject();
  J.field("tool", BaselineTool).field("version", SYNCWATCH_VERSION);
  J.key("sites").beginArray();
  for (const SiteVerdict &V : G.Sites) {
    const SiteId &S = Run.Sites[V.Site];
    J.beginObject();
    J.field("rule", S.Rule).field("file", S.File).field("line", S.Line).field("function", S.Function);
    J.field("api", S.Api).field("fingerprint", S.Fingerprint).field("ms", V.remaining());
    J.endObject();
  }
  J.endArray();
  J.endObject();
  B << "\n";
  std::string Why;
  if (!writeFileAtomically(Opts.WriteBaseline, B.str(), Why))
    return fail("cannot write '" + Opts.WriteBaseline + "': " + Why + " (any old file is untouched)");
  std::cerr << "syncwatch gate: wrote " << G.Sites.size() << " site(s) to " << Opts.WriteBaseline
            << " as the baseline\n";
  return 0;
}

// The budgets' sentence: the run's, then the worst step's.
std::string budgetText(const GateOptions &Opts, const Side::Steps &Steps, const GateVerdict &G) {
  std::string Budget = Opts.BudgetMs < 0 ? "" : G.OverBudget ? "over the budget of " + ms(Opts.BudgetMs) + " by " + ms(G.Counted - Opts.BudgetMs)
                                                             : "within the budget of " + ms(Opts.BudgetMs);
  // "the worst of 500 'train_step' steps, #17 of 500 (main, ...), blocked 12.30 ms (mean
  // 3.10 ms), over the per-step budget of 5.00 ms by 7.30 ms"
  std::string StepBudget;
  if (Opts.BudgetMsPerStep >= 0)
    StepBudget = "the worst of " + std::to_string(Steps.Count) + " '" + Steps.Name + "' steps, " + Steps.Worst +
                 ", blocked " + ms(Steps.WorstMs) + " (mean " + ms(Steps.MeanMs) + "), " +
                 (G.StepOverBudget ? "over the per-step budget of " + ms(Opts.BudgetMsPerStep) + " by " +
                                         ms(Steps.WorstMs - Opts.BudgetMsPerStep)
                                   : "within the per-step budget of " + ms(Opts.BudgetMsPerStep));
  if (!StepBudget.empty())
    Budget += (Budget.empty() ? "" : "; ") + StepBudget;
  return Budget;
}

void writeGateJson(std::ostream &O, const GateOptions &Opts, const Side &Run, const Side::Steps &Steps,
                   const GateVerdict &G) {
  JsonWriter J(O);
  J.beginObject();
  J.field("tool", "syncwatch gate").field("version", SYNCWATCH_VERSION);
  J.field("verdict", G.Fails ? "fails" : "passes").field("failOn", Opts.FailOn);
  J.field("blockedMs", G.Blocked).field("allowedMs", G.Allowed).field("countedMs", G.Counted);
  if (Opts.BudgetMs >= 0)
    J.field("budgetMs", Opts.BudgetMs).field("overBudget", G.OverBudget);
  if (Opts.BudgetMsPerStep >= 0) {
    J.key("steps").beginObject().field("name", Steps.Name).field("count", static_cast<double>(Steps.Count));
    J.field("worstMs", Steps.WorstMs).field("meanMs", Steps.MeanMs).field("worst", Steps.Worst);
    J.field("budgetMs", Opts.BudgetMsPerStep).field("overBudget", G.StepOverBudget).endObject();
  }
  J.key("sites").beginArray();
  for (const SiteVerdict &V : G.Sites) {
    const SiteId &S = Run.Sites[V.Site];
    J.beginObject();
    J.field("rule", S.Rule).field("file", S.File).field("line", S.Line).field("function", S.Function).field("api", S.Api);
    J.field("level", std::string(severityName(Run.Levels[V.Site]))).field("ms", V.Ms).field("allowedMs", V.AllowedMs);
    if (V.BaselineMs >= 0)
      J.field("baselineMs", V.BaselineMs);
    J.field("status", V.Status).field("fails", V.Fails);
    if (!V.Allowances.empty()) {
      J.key("allowlist").beginArray();
      for (const AllowEntry *A : V.Allowances)
        J.beginObject().field("entry", A->Number).field("reason", A->Reason).endObject();
      J.endArray();
    }
    J.endObject();
  }
  J.endArray();
  J.key("unusedAllowlist").beginArray();
  for (const AllowEntry *A : G.Unused)
    J.beginObject().field("entry", A->Number).field("scope", A->scope()).endObject();
  J.endArray();
  J.endObject();
  O << "\n";
}

void writeGateMarkdown(std::ostream &O, const Side &Run, const GateVerdict &G) {
  O << "### syncwatch gate: " << (G.Fails ? "fails" : "passes") << "\n\n";
  O << ms(G.Blocked) << " blocked at " << G.Sites.size() << " call site(s), " << ms(G.Allowed) << " of it allowed"
    << (G.Budget.empty() ? "" : "; " + G.Budget) << ".\n\n";
  O << "| site | blocked | baseline | status | |\n|---|---|---|---|---|\n";
  for (const SiteVerdict &V : G.Sites)
    O << "| `" << Run.Sites[V.Site].label() << "` | " << ms(V.Ms) << " | " << (V.BaselineMs >= 0 ? ms(V.BaselineMs) : "-")
      << " | " << V.Status << " | " << (V.Fails ? "**fails**" : "") << " |\n";
  for (const AllowEntry *A : G.Unused)
    O << "\nAllowlist entry " << A->Number << " (" << A->scope() << ") matched no site.\n";
}

// SARIF: one result a site, its level the verdict's (a note when it passes).
void writeGateSarif(std::ostream &O, const GateOptions &Opts, const Side &Run, const Side::Steps &Steps,
                    const GateVerdict &G) {
  Report Out;
  Out.ToolName = "syncwatch gate";
  Out.ToolVersion = SYNCWATCH_VERSION;
  std::set<std::string> Rules;
  for (const SiteVerdict &V : G.Sites) {
    const SiteId &S = Run.Sites[V.Site];
    Finding F;
    F.Rule = S.Rule;
    F.Where.File = S.File;
    F.Where.Line = S.Line;
    F.Where.Column = S.Line ? 1 : 0;
    F.Function = S.Function;
    F.Fingerprint = S.Fingerprint;
    F.Level = V.Status == "over-allowance" ? Severity::Error : V.Fails ? Run.Levels[V.Site] : Severity::Note;
    F.Message = "'" + (S.Api.empty() ? std::string("the call") : S.Api) + "': " + sentence(V, Run) + " [gate: " + V.Status + "]";
    F.Evidence = {{"syncwatch.gate", V.Status},
                  {"syncwatch.blockedMs", evidenceNumber(V.Ms)},
                  {"syncwatch.allowedMs", evidenceNumber(V.AllowedMs)}};
    if (V.BaselineMs >= 0)
      F.Evidence.push_back({"syncwatch.baselineMs", evidenceNumber(V.BaselineMs)});
    Out.Findings.push_back(std::move(F));
    Rules.insert(S.Rule);
  }
  for (const std::string &Id : Rules)
    if (const RuleInfo *I = findRule(Id))
      Out.RulesRun.push_back(I->Rule);
  Out.Figures = {{"verdict", G.Fails ? "fails" : "passes"}, {"blockedMs", evidenceNumber(G.Blocked)},
                 {"allowedMs", evidenceNumber(G.Allowed)}};
  if (Opts.BudgetMs >= 0) {
    Out.Figures.push_back({"budgetMs", evidenceNumber(Opts.BudgetMs)});
    Out.Figures.push_back({"overBudget", G.OverBudget ? "true" : "false"});
  }
  if (Opts.BudgetMsPerStep >= 0) {
    Out.Figures.push_back({"stepBudgetMs", evidenceNumber(Opts.BudgetMsPerStep)});
    Out.Figures.push_back({"stepWorstMs", evidenceNumber(Steps.WorstMs)});
    Out.Figures.push_back({"stepWorst", Steps.Worst});
    Out.Figures.push_back({"stepOverBudget", G.StepOverBudget ? "true" : "false"});
  }
  writeSarif(O, Out);
}

void writeGateText(std::ostream &O, const GateOptions &Opts, const Side &Run, GateVerdict &G) {
  O << "syncwatch gate: " << ms(G.Blocked) << " blocked at " << G.Sites.size() << " call site(s), " << ms(G.Allowed)
    << " of it allowed" << (G.Budget.empty() ? "" : "; " + G.Budget) << "\n";
  for (const SiteVerdict &V : G.Sites)
    O << "  " << V.Status << std::string(15 - std::min<std::size_t>(14, V.Status.size()), ' ')
      << Run.Sites[V.Site].label() << ": " << sentence(V, Run) << (V.Fails ? "  <- fails" : "") << "\n";
  for (const AllowEntry *A : G.Unused)
    O << "syncwatch gate: allowlist entry " << A->Number << " (" << A->scope() << ") matched no site: remove it?\n";
  O << "syncwatch gate: " << (G.Fails ? "fails" : "passes") << ": " << G.Failing << " site(s) fail at --fail-on="
    << Opts.FailOn;
  if (!Opts.Baseline.empty())
    O << " (" << G.Counts["new"] << " new, " << G.Counts["grown"] << " grown, " << G.Counts["known"] << " known)";
  if (G.OverBudget)
    O << "; the run is over its budget";
  if (G.StepOverBudget)
    O << "; a step is over the per-step budget";
  O << "\n";
}

} // namespace

// Load the run (its baseline, its allowlist), judge each site and the run, then write the
// baseline or the verdict.
int gateRun(const GateOptions &Opts) {
  Side Run, Base;
  std::vector<AllowEntry> Allow;
  if (int Rc = loadGateInputs(Opts, Run, Allow, Base))
    return Rc;
  const Side::Steps &Steps = Run.StepsOfRun.front();
  GateVerdict G;
  judgeSites(Opts, Run, Allow, Base, G);
  judgeRun(Opts, Steps, Allow, G);
  if (!Opts.WriteBaseline.empty())
    return writeBaseline(Opts, Run, G);
  G.Budget = budgetText(Opts, Steps, G);
  std::ostringstream O;
  if (Opts.Format == "json")
    writeGateJson(O, Opts, Run, Steps, G);
  else if (Opts.Format == "markdown")
    writeGateMarkdown(O, Run, G);
  else if (Opts.Format == "sarif")
    writeGateSarif(O, Opts, Run, Steps, G);
  else
    writeGateText(O, Opts, Run, G);
  std::string Why;
  if (Opts.Output.empty() ? !writeStdout(O.str(), Why) : !writeFileAtomically(Opts.Output, O.str(), Why))
    return fail(Opts.Output.empty() ? Why : "cannot write '" + Opts.Output + "': " + Why + " (any old file is untouched)");
  return G.Fails ? 1 : 0;
}

} // namespace syncwatch::runtime
