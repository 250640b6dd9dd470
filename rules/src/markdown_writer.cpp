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

} // namespace

void writeMarkdown(std::ostream &Out, const Report &R, const MarkdownOptions &Opts) {
  const std::string Root = R.SourceRoot.empty() || R.SourceRoot.back() == '/' ? R.SourceRoot : R.SourceRoot + "/";
  auto Where = [&](const SourceSpan &S) {
    bool Under = !Root.empty() && S.File.compare(0, Root.size(), Root) == 0;
    std::string Shown = Under ? S.File.substr(Root.size()) : S.File;
    std::string Label = cell(Shown, 400) + (S.Line ? ":" + std::to_string(S.Line) : "");
    if (!Under || Shown.empty())
      return Label;
    std::string Target = (Opts.LinkBase.empty() ? "" : Opts.LinkBase + "/") + urlPath(Shown) +
                         (S.Line ? "#L" + std::to_string(S.Line) : "");
    return "[" + Label + "](" + Target + ")";
  };
  const bool Joined = std::any_of(R.Findings.begin(), R.Findings.end(),
                                  [](const Finding &F) { return evidenceOf(F, confirm_key::Status); });
  const bool Measured = !Joined && std::any_of(R.Findings.begin(), R.Findings.end(),
                                               [](const Finding &F) { return F.Measured.has_value(); });
  std::string Title = Opts.Title.empty() ? R.ToolName : Opts.Title;

  std::vector<Row> Main, RuntimeOnly;
  std::map<std::string, unsigned> Statuses;
  double Total = 0;
  for (const Finding &F : R.Findings) {
    Row X;
    std::string Rule = "`" + F.Rule + "`";
    if (Joined) {
      std::string Status = *evidenceOf(F, confirm_key::Status);
      ++Statuses[Status];
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
      Total += X.Cost;
      X.Text = "| " + Status + " | " + Cost + " | " + Calls + " | " + Rule + " | " + Where(F.Where) + " | " +
               cell(F.Message) + " |\n";
      (Status == "runtime-only" ? RuntimeOnly : Main).push_back(std::move(X));
    } else if (Measured) {
      X.Cost = measuredMs(F);
      Total += X.Cost;
      std::string Calls = F.Measured && F.Measured->Count ? std::to_string(F.Measured->Count) : "";
      X.Text = "| " + ms(X.Cost) + " | " + Calls + " | " + ms(F.Measured ? F.Measured->MaxMs : 0) + " | " + Rule + " | " +
               Where(F.Where) + " | " + cell(F.Message) + " |\n";
      Main.push_back(std::move(X));
    } else {
      // The lint: errors first, then warnings, then notes (the report's order within each).
      X.Cost = static_cast<double>(F.Level);
      X.Text = std::string("| ") + std::string(severityName(F.Level)) + " | " + Rule + " | " + Where(F.Where) +
               " | " + cell(F.Message) + " |\n";
      Main.push_back(std::move(X));
    }
  }
  auto Costliest = [](const Row &A, const Row &B) { return A.Cost > B.Cost; };
  std::stable_sort(Main.begin(), Main.end(), Costliest);
  std::stable_sort(RuntimeOnly.begin(), RuntimeOnly.end(), Costliest);

  std::ostringstream Head;
  Head << "### " << cell(Title, 200) << ": ";
  if (Joined) {
    Head << Statuses["confirmed"] << " confirmed, " << Statuses["not-observed"] << " not observed, "
         << Statuses["not-measured"] << " not measured, " << Statuses["not-exercised"] << " not exercised, " << Statuses["runtime-only"] << " runtime-only";
    if (!R.Findings.empty())
      if (const std::string *Gpu = evidenceOf(R.Findings.front(), confirm_key::Gpu))
        Head << " (" << cell(*Gpu, 200) << ")";
    Head << "\n\n";
  } else if (Measured) {
    Head << R.Findings.size() << " call site(s) stalled the host or serialized streams, " << ms(Total) << " in all\n\n";
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

  // What follows the rows: the count of rows left out, if any, must still fit.
  constexpr std::size_t Reserve = 256;
  std::string Text = Head.str();
  std::size_t Left = 0;
  auto Table = [&](const std::string &Caption, const std::string &Header, const std::vector<Row> &Rows) {
    if (Rows.empty())
      return;
    std::string Start = (Caption.empty() ? "" : Caption + "\n\n") + Header;
    if (Text.size() + Start.size() + Reserve > Opts.MaxBytes) {
      Left += Rows.size();
      return;
    }
    Text += Start;
    for (const Row &X : Rows) {
      if (Left || Text.size() + X.Text.size() + Reserve > Opts.MaxBytes) {
        ++Left;
        continue;
      }
      Text += X.Text;
    }
    Text += "\n";
  };
  if (Joined) {
    Table("", "| Status | Cost | Calls | Rule | Where | What |\n|---|---|---|---|---|---|\n", Main);
    Table("**Stalls no static warning names (runtime-only):**", "| Status | Cost | Calls | Rule | Where | What |\n|---|---|---|---|---|---|\n",
          RuntimeOnly);
  } else if (Measured) {
    Table("", "| Cost | Calls | Max | Rule | Where | What |\n|---|---|---|---|---|---|\n", Main);
  } else {
    Table("", "| Severity | Rule | Where | What |\n|---|---|---|---|\n", Main);
  }
  std::vector<Row> Errors;
  for (const ToolError &E : R.Errors)
    Errors.push_back({0, "| " + Where(SourceSpan{E.File, 0, 0, 0, 0}) + " | " + cell(E.Message) + " |\n"});
  Table("**Files that could not be analyzed:**", "| File | Why |\n|---|---|\n", Errors);
  if (Left)
    Text += "*" + std::to_string(Left) + " more row(s) not shown: this summary is kept within " +
            std::to_string(Opts.MaxBytes / 1024) + " KiB (GitHub's limit for a job summary is 1 MiB).*\n";
  Out << Text;
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
