#include "syncwatch/report.h"

#include <cstdio>

#include <fstream>
#include <map>
#include <memory>
#include <mutex>

namespace syncwatch {

std::string formatDuration(std::uint64_t Ns) {
  char Buf[32];
  if (Ns >= 1'000'000'000)
    std::snprintf(Buf, sizeof Buf, "%.2f s", Ns / 1e9);
  else if (Ns >= 1'000'000)
    std::snprintf(Buf, sizeof Buf, "%.1f ms", Ns / 1e6);
  else
    std::snprintf(Buf, sizeof Buf, "%.0f us", Ns / 1e3);
  return Buf;
}


SourceLineReader diskLineReader() {
  struct Cache {
    std::mutex M;
    std::map<std::string, std::vector<std::string>> Files;
  };
  auto C = std::make_shared<Cache>();
  return [C](const std::string &File, unsigned Line) -> std::optional<std::string> {
    std::lock_guard<std::mutex> Lock(C->M);
    auto It = C->Files.find(File);
    if (It == C->Files.end()) {
      std::vector<std::string> Lines;
      std::ifstream In(File);
      for (std::string L; std::getline(In, L);)
        Lines.push_back(L);
      It = C->Files.emplace(File, std::move(Lines)).first;
    }
    if (Line == 0 || Line > It->second.size())
      return std::nullopt;
    return It->second[Line - 1];
  };
}

namespace {

const char *colorOf(Severity S) {
  switch (S) {
  case Severity::Error: return "\033[1;31m";
  case Severity::Warning: return "\033[1;35m";
  case Severity::Note: return "\033[1;36m";
  }
  return "";
}

void writeHeader(std::ostream &Out, const SourceSpan &W, std::string_view Level,
                 Severity S, const std::string &Message, const std::string &Rule,
                 const TextOptions &Opts) {
  if (Opts.Color)
    Out << "\033[1m";
  if (W.known())
    Out << W.File << ':' << W.Line << ':' << W.Column << ": ";
  else if (!W.File.empty())
    Out << W.File << ": ";
  if (Opts.Color)
    Out << colorOf(S);
  Out << Level << ": ";
  if (Opts.Color)
    Out << "\033[0m\033[1m";
  Out << Message;
  if (!Rule.empty())
    Out << " [" << Rule << ']';
  if (Opts.Color)
    Out << "\033[0m";
  Out << '\n';
}

// Prints the line with a gutter, a caret at the column and tildes under the rest of the
// range when it stays on this line (clang's -fdiagnostics-show-line-numbers layout).
void writeSnippet(std::ostream &Out, const SourceSpan &W, const SourceLineReader &Lines,
                  const TextOptions &Opts) {
  if (!Opts.ShowSource || !W.known())
    return;
  auto Text = Lines(W.File, W.Line);
  if (!Text)
    return;
  std::string Num = std::to_string(W.Line);
  std::string Gutter(Num.size() < 5 ? 5 - Num.size() : 0, ' ');
  Out << Gutter << Num << " | " << *Text << '\n';
  std::string Marker;
  unsigned Col = W.Column ? W.Column : 1;
  for (unsigned I = 1; I < Col; ++I)
    Marker += (I - 1 < Text->size() && (*Text)[I - 1] == '\t') ? '\t' : ' ';
  Marker += '^';
  if (W.EndLine == W.Line && W.EndColumn > Col + 1)
    Marker.append(W.EndColumn - Col - 1, '~');
  Out << std::string(Gutter.size() + Num.size(), ' ') << " | ";
  if (Opts.Color)
    Out << "\033[1;32m";
  Out << Marker;
  if (Opts.Color)
    Out << "\033[0m";
  Out << '\n';
}

void writeFixes(std::ostream &Out, const std::vector<FixIt> &Fixes, const char *What) {
  for (const FixIt &Fix : Fixes)
    Out << "      " << What << ": " << Fix.Where.Line << ':' << Fix.Where.Column << '-'
        << Fix.Where.EndLine << ':' << Fix.Where.EndColumn << " -> \"" << Fix.Text << "\"\n";
}

} // namespace

void writeText(std::ostream &Out, const std::vector<Finding> &Findings,
               const SourceLineReader &Lines, const TextOptions &Opts) {
  for (const Finding &F : Findings) {
    writeHeader(Out, F.Where, severityName(F.Level), F.Level, F.Message, F.Rule, Opts);
    writeSnippet(Out, F.Where, Lines, Opts);
    writeFixes(Out, F.Fixes, "fix-it");
    for (const FindingNote &N : F.Notes) {
      writeHeader(Out, N.Where, "note", Severity::Note, N.Message, "", Opts);
      writeSnippet(Out, N.Where, Lines, Opts);
      writeFixes(Out, N.SuggestedFixes, "suggested edit");
    }
  }
}

void writeToolErrorsText(std::ostream &Out, const std::string &Tool,
                         const std::vector<ToolError> &Errors) {
  for (const ToolError &E : Errors)
    Out << Tool << ": error: " << (E.File.empty() ? "" : E.File + ": ") << E.Message << '\n';
}

} // namespace syncwatch
