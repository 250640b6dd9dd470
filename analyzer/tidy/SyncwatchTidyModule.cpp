// libsyncwatch-tidy.so: syncwatch's checks as a clang-tidy plugin.
//   clang-tidy-22 --load=libsyncwatch-tidy.so --checks='-*,syncwatch-*' file.cu -- ...
// Each check runs inside a ClangTidyCheck adapter that forwards matches and turns
// CheckDiagnostics into clang-tidy diagnostics. clang-tidy itself provides NOLINT,
// --fix, --export-fixes and the output format.
#include "../core/CheckRegistry.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"

using namespace clang;
using namespace clang::tidy;

namespace syncwatch {
namespace {

class TidyCheckAdapter : public ClangTidyCheck, private DiagnosticSink {
public:
  TidyCheckAdapter(StringRef Name, ClangTidyContext *Context, const CheckFactory &Factory)
      : ClangTidyCheck(Name, Context),
        Opts{boolOption("ReportUnknown")}, Impl(Factory.Create(*this, Opts)) {}

  void storeOptions(ClangTidyOptions::OptionMap &Map) override {
    Options.store(Map, "ReportUnknown", Opts.ReportUnknown ? "true" : "false");
  }

  // CUDA files, and C++ files that call the CUDA runtime (a .cpp built by g++).
  bool isLanguageVersionSupported(const LangOptions &LO) const override {
    return LO.CUDA || LO.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override {
    Impl->registerMatchers(*Finder, this);
  }
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override {
    Impl->check(Result);
  }
  void onStartOfTranslationUnit() override { Impl->onStartOfTranslationUnit(); }
  void onEndOfTranslationUnit() override { Impl->onEndOfTranslationUnit(); }

private:
  // Only OptionsView's non-template members are exported by the clang-tidy binary that
  // loads this plugin (the templated get<bool> is not), so booleans are parsed here.
  // A value that is no boolean is said, as clang-tidy says it for its own checks, and the
  // default (false) is used.
  bool boolOption(StringRef Name) const {
    std::optional<StringRef> V = Options.get(Name);
    if (!V)
      return false;
    for (StringRef Yes : {"true", "1", "yes", "on"})
      if (V->equals_insensitive(Yes))
        return true;
    for (StringRef No : {"false", "0", "no", "off"})
      if (V->equals_insensitive(No))
        return false;
    configurationDiag("invalid configuration value '%0' for option '%1'; expected a bool")
        << *V << (getID() + "." + Name).str();
    return false;
  }

  // Severity note has no clang-tidy level of its own: a standalone note is a remark
  // there (clang-tidy attaches "note:" lines to the diagnostic before them).
  static DiagnosticIDs::Level levelOf(Severity S) {
    switch (S) {
    case Severity::Error: return DiagnosticIDs::Error;
    case Severity::Warning: return DiagnosticIDs::Warning;
    case Severity::Note: return DiagnosticIDs::Remark;
    }
    return DiagnosticIDs::Warning;
  }

  void emit(const CheckDiagnostic &D, const SourceManager &) override {
    {
      auto Builder = diag(D.Loc, "%0", levelOf(D.Level)) << D.Message;
      if (D.Range.isValid())
        Builder << D.Range;
      for (const FixItHint &F : D.Fixes)
        Builder << F;
    }
    for (const CheckNote &N : D.Notes) {
      auto Builder = diag(N.Loc, "%0", DiagnosticIDs::Note) << N.Message;
      for (const FixItHint &F : N.Fixes)
        Builder << F;
    }
  }

  CheckOptions Opts;
  std::unique_ptr<SyncwatchCheck> Impl;
};

class SyncwatchModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    for (const CheckFactory &F : registeredChecks()) {
      const CheckFactory *Factory = &F;
      Factories.registerCheckFactory(
          std::string(ruleInfo(F.Rule).Id),
          [Factory](StringRef Name, ClangTidyContext *Context) {
            return std::make_unique<TidyCheckAdapter>(Name, Context, *Factory);
          });
    }
  }
};

} // namespace
} // namespace syncwatch

static clang::tidy::ClangTidyModuleRegistry::Add<syncwatch::SyncwatchModule>
    X("syncwatch-module", "Checks for implicit synchronization in CUDA host code.");
