// Markdown for a person reading a pull request: syncwatch confirm's join, a runtime report
// (syncwatch merge) or the lint's results as one table (report.h, writeMarkdown).
#include "syncwatch/report.h"

#include "syncwatch/confirm_evidence.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

namespace syncwatch {

namespace {

// A table cell: one line, nothing Markdown or HTML would take as its own.
std::string cell(const std::string &S, std::size_t Max = 240) {
  std::string Out;
  std::size_t Shown = 0;
  for (std::size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    // Past Max, cut at the next space (or 40 characters on, between two characters).
    if (Shown >= Max && (C == ' ' || (Shown >= Max + 40 && (static_cast<unsigned char>(C) & 0xC0) != 0x80))) {
      Out += " \xe2\x80\xa6";  // " ..." (an ellipsis), cut between characters
      break;
    }
    ++Shown;
    switch (C) {
    case '\n': case '\r': case '\t': Out += ' '; break;
    case '|': Out += "\\|"; break;
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '&': Out += "&amp;"; break;
    case '*': case '_': case '`': case '[': case ']': case '\\': case '#': Out += '\\'; Out += C; break;
    default: Out += C;
    }
  }
  return Out;
}

std::string ms(double Ms) { return formatMs(Ms); }

// A link target: percent-encodes what a URL may not hold as it is.
std::string urlPath(const std::string &P) {
  std::string Out;
  for (unsigned char C : P) {
    if (std::isalnum(C) || C == '/' || C == '.' || C == '-' || C == '_' || C == '~' || C == '+')
      Out += static_cast<char>(C);
    else {
      char B[4];
      std::snprintf(B, sizeof B, "%%%02X", C);
      Out += B;
    }
  }
  return Out;
}

struct Row {
  double Cost = 0;
  std::string Text;
};

// A place as a cell: under the source root, relative and linked (to LinkBase/<path>#L<line>).
std::string whereCell(const SourceSpan &S, const std::string &Root, const std::string &LinkBase) {
  bool Under = !Root.empty() && S.File.compare(0, Root.size(), Root) == 0;
  std::string Shown = Under ? S.File.substr(Root.size()) : S.File;
  std::string Label = cell(Shown, 400) + (S.Line ? ":" + std::to_string(S.Line) : "");
  if (!Under || Shown.empty())
    return Label;
  std::string Target = (LinkBase.empty() ? "" : LinkBase + "/") + urlPath(Shown) +
                       (S.Line ? "#L" + std::to_string(S.Line) : "");
  return "[" + Label + "](" + Target + ")";
}

// The findings as rows: confirm's join (statuses, runtime-only apart), a runtime report's
// (measured), or the lint's; each with what it is sorted by.
struct TableRows {
  bool Joined = false, Measured = false;
  std::vector<Row> Main, RuntimeOnly;
  std::map<std::string, unsigned> Statuses;
  double Total = 0;
};

// One row of confirm's join.
void addJoinedRow(const Finding &F, const std::string &WhereText, TableRows &T) {
  Row X;
  std::string Rule = "`" + F.Rule + "`";
  std::string Status = *evidenceOf(F, confirm_key::Status);
  ++T.Statuses[Status];
  std::string Cost = "", Calls = "";
  // (one vocabulary for every status: confirm_evidence.h; a runtime-only result of an
  // older confirm has its cost as the runtime's own evidence)
  RuntimeEvidence E = readRuntimeEvidence(F);
  if (Status == "confirmed" || Status == "runtime-only") {
    X.Cost = E.TotalMs.value_or(0);
    Cost = ms(X.Cost);
  } else if (Status == "not-observed") {
    Cost = "no stall";
  }
  if (!E.Count.empty())
    Calls = E.Count;
  T.Total += X.Cost;
  X.Text = "| " + Status + " | " + Cost + " | " + Calls + " | " + Rule + " | " + WhereText + " | " +
           cell(F.Message) + " |\n";
  (Status == "runtime-only" ? T.RuntimeOnly : T.Main).push_back(std::move(X));
}

TableRows tableRows(const Report &R, const std::string &Root, const MarkdownOptions &Opts) {
  TableRows T;
  T.Joined = std::any_of(R.Findings.begin(), R.Findings.end(),
                         [](const Finding &F) { return evidenceOf(F, confirm_key::Status); });
  T.Measured = !T.Joined && std::any_of(R.Findings.begin(), R.Findings.end(),
                                        [](const Finding &F) { return F.Measured.has_value(); });
  for (const Finding &F : R.Findings) {
    std::string Rule = "`" + F.Rule + "`";
    if (T.Joined) {
      addJoinedRow(F, whereCell(F.Where, Root, Opts.LinkBase), T);
    } else if (T.Measured) {
      Row X;
      X.Cost = measuredMs(F);
      T.Total += X.Cost;
      std::string Calls = F.Measured && F.Measured->Count ? std::to_string(F.Measured->Count) : "";
      X.Text = "| " + ms(X.Cost) + " | " + Calls + " | " + ms(F.Measured ? F.Measured->MaxMs : 0) + " | " + Rule + " | " +
               whereCell(F.Where, Root, Opts.LinkBase) + " | " + cell(F.Message) + " |\n";
      T.Main.push_back(std::move(X));
    } else {
      // The lint: errors first, then warnings, then notes (the report's order within each).
      Row X;
      X.Cost = static_cast<double>(F.Level);
      X.Text = std::string("| ") + std::string(severityName(F.Level)) + " | " + Rule + " | " +
               whereCell(F.Where, Root, Opts.LinkBase) + " | " + cell(F.Message) + " |\n";
      T.Main.push_back(std::move(X));
    }
  }
  auto Costliest = [](const Row &A, const Row &B) { return A.Cost > B.Cost; };
  std::stable_sort(T.Main.begin(), T.Main.end(), Costliest);
  std::stable_sort(T.RuntimeOnly.begin(), T.RuntimeOnly.end(), Costliest);
  return T;
}

// The title line with the counts, the sources that differ, or that nothing was found.
std::string markdownHead(const Report &R, const MarkdownOptions &Opts, TableRows &T) {
  std::string Title = Opts.Title.empty() ? R.ToolName : Opts.Title;
  std::ostringstream Head;
  Head << "### " << cell(Title, 200) << ": ";
  if (T.Joined) {
    Head << T.Statuses["confirmed"] << " confirmed, " << T.Statuses["not-observed"] << " not observed, "
         << T.Statuses["not-measured"] << " not measured, " << T.Statuses["not-exercised"] << " not exercised, " << T.Statuses["runtime-only"] << " runtime-only";
    if (!R.Findings.empty())
      if (const std::string *Gpu = evidenceOf(R.Findings.front(), confirm_key::Gpu))
        Head << " (" << cell(*Gpu, 200) << ")";
    Head << "\n\n";
  } else if (T.Measured) {
    Head << R.Findings.size() << " call site(s) stalled the host or serialized streams, " << ms(T.Total) << " in all\n\n";
  } else {
    Head << R.Findings.size() << " result(s)";
    if (R.FilesAnalyzed)
      Head << " in " << R.FilesAnalyzed << " file(s) analyzed";
    Head << (R.Errors.empty() ? "" : ", " + std::to_string(R.Errors.size()) + " file(s) not analyzed") << "\n\n";
  }
  for (const auto &[K, V] : R.Figures)
    if (K == "sourcesDiffer")
      Head << "**Warning:** these files differ between the checkout the lint analyzed and the one the program ran "
              "from, so their lines may not match: "
           << cell(V, 2000) << "\n\n";
  if (R.Findings.empty() && R.Errors.empty())
    Head << "Nothing found.\n";
  return Head.str();
}

// The text, table by table, within MaxBytes: rows that do not fit are counted (Left).
struct BoundedText {
  // What follows the rows: the count of rows left out, if any, must still fit.
  static constexpr std::size_t Reserve = 256;
  std::size_t MaxBytes;
  std::string Text;
  std::size_t Left = 0;

  void table(const std::string &Caption, const std::string &Header, const std::vector<Row> &Rows) {
    if (Rows.empty())
      return;
    std::string Start = (Caption.empty() ? "" : Caption + "\n\n") + Header;
    if (Text.size() + Start.size() + Reserve > MaxBytes) {
      Left += Rows.size();
      return;
    }
    Text += Start;
    for (const Row &X : Rows) {
      if (Left || Text.size() + X.Text.size() + Reserve > MaxBytes) {
        ++Left;
        continue;
      }
      Text += X.Text;
    }
    Text += "\n";
  }
};

} // namespace

void writeMarkdown(std::ostream &Out, const Report &R, const MarkdownOptions &Opts) {
  const std::string Root = R.SourceRoot.empty() || R.SourceRoot.back() == '/' ? R.SourceRoot : R.SourceRoot + "/";
  TableRows T = tableRows(R, Root, Opts);
  BoundedText B{Opts.MaxBytes, markdownHead(R, Opts, T)};
  if (T.Joined) {
    B.table("", "| Status | Cost | Calls | Rule | Where | What |\n|---|---|---|---|---|---|\n", T.Main);
    B.table("**Stalls no static warning names (runtime-only):**", "| Status | Cost | Calls | Rule | Where | What |\n|---|---|---|---|---|---|\n",
            T.RuntimeOnly);
  } else if (T.Measured) {
    B.table("", "| Cost | Calls | Max | Rule | Where | What |\n|---|---|---|---|---|---|\n", T.Main);
  } else {
    B.table("", "| Severity | Rule | Where | What |\n|---|---|---|---|\n", T.Main);
  }
  std::vector<Row> Errors;
  for (const ToolError &E : R.Errors)
    Errors.push_back({0, "| " + whereCell(SourceSpan{E.File, 0, 0, 0, 0}, Root, Opts.LinkBase) + " | " + cell(E.Message) + " |\n"});
  B.table("**Files that could not be analyzed:**", "| File | Why |\n|---|---|\n", Errors);
  if (B.Left)
    B.Text += "*" + std::to_string(B.Left) + " more row(s) not shown: this summary is kept within " +
              std::to_string(Opts.MaxBytes / 1024) + " KiB (GitHub's limit for a job summary is 1 MiB).*\n";
  Out << B.Text;
}

bool writeReportAs(std::ostream &Out, const Report &R, const std::string &Format, const MarkdownOptions &Opts) {
  if (Format == "json")
    writeJson(Out, R);
  else if (Format == "sarif")
    writeSarif(Out, R);
  else if (Format == "markdown")
    writeMarkdown(Out, R, Opts);
  else
    return false;
  return true;
}

} // namespace syncwatch
