// One parse of one unit, with the enabled checks judging its facts: ClangTool over the
// unit's own file system (an editor's buffers laid over the disk), a precompiled prelude or
// preamble when given, the editor's scope and cancel, and crash recovery on a thread with a
// large stack; with a ParseHold, the parse stays alive after its first analysis for the
// cross-unit phase (HeldParse.h). UnitRunner decides which PCH to give and what to do when the parse fails.
#pragma once

#include "NoLintFilter.h"
#include "UnitRun.h"

#include "clang/Tooling/CompilationDatabase.h"

#include <string>

namespace syncwatch {

class ParseHold;  // ParseHold.h

// The stack a parse runs on (reserved, not used: clang's recursive descent needs depth only
// for deeply nested code), so that a stack overflow is a crash recovered like another.
constexpr unsigned ParseStackSize = 64u << 20;

// The PCH a parse uses: "" none; PreambleBytes ("N,S") when it holds the file's own first
// bytes, which the parse then skips; MainFileOnly: analyze only the declarations after them.
struct PchUse {
  std::string Path;
  std::string PreambleBytes;
  bool MainFileOnly = false;
};

UnitResult parseUnit(const clang::tooling::CompilationDatabase &DB, const std::string &File,
                     const UnitOptions &Options, NoLintFilter &NoLint, const PchUse &Pch,
                     const SummaryIndex *External, ParseHold *Hold = nullptr);

// Turns a crash while analyzing one file (a signal, a stack overflow) into that file's
// tool error; call once, before the first parse.
void enableCrashRecovery();

} // namespace syncwatch
