// libsyncwatch-tidy.so: syncwatch's checks as a clang-tidy plugin.
//   clang-tidy-22 --load=libsyncwatch-tidy.so --checks='-*,syncwatch-*' file.cu -- ...
// Each check runs inside a ClangTidyCheck adapter that forwards matches and turns
// CheckDiagnostics into clang-tidy diagnostics. clang-tidy itself provides NOLINT,
// --fix, --export-fixes and the output format.
#include "../checks/CheckRegistry.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"

#include <map>
#include <memory>
#include <mutex>

using namespace clang;
using namespace clang::tidy;

namespace syncwatch {
namespace {

class TidyCheckAdapter : public ClangTidyCheck, private DiagnosticSink {
public:
  TidyCheckAdapter(StringRef Name, ClangTidyContext *Context, const CheckFactory &Factory,
                   std::shared_ptr<UnitFacts> Facts)
      : ClangTidyCheck(Name, Context), Impl(Factory.Create(TidyOptions(*this))), Facts(std::move(Facts)) {}

  // What the check read, with the values it uses (--dump-config).
  void storeOptions(ClangTidyOptions::OptionMap &Map) override {
    for (const auto &[Option, Value] : Impl->optionsRead())
      Options.store(Map, Option, Value);
  }

  // CUDA files, and C++ files that call the CUDA runtime (a .cpp built by g++).
  bool isLanguageVersionSupported(const LangOptions &LO) const override {
    return LO.CUDA || LO.CPlusPlus;
  }
  // clang-tidy runs each check as a callback of its own: every adapter registers the facts'
  // matchers and forwards their matches, and the facts keep each node once. All resets
  // come before the first match of a unit (MatchFinder starts every callback first), and
  // the facts are computed at the first judge that asks.
  void registerMatchers(ast_matchers::MatchFinder *Finder) override { Facts->registerMatchers(*Finder, this); }
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override { Facts->observe(Result); }
  void onStartOfTranslationUnit() override { Facts->reset(); }
  void onEndOfTranslationUnit() override { Impl->judge(*Facts, *this); }

private:
  // The check's options, from clang-tidy's OptionsView. Only its non-template members are
  // exported by the clang-tidy binary that loads this plugin (the templated get<bool> is
  // not): values are read as text and parsed by the check (readBoolOption). A value that is
  // no boolean is said as clang-tidy says it for its own checks, and the default is used.
  class TidyOptions final : public CheckOptionsView {
  public:
    explicit TidyOptions(TidyCheckAdapter &Check) : Check(Check) {}
    std::optional<std::string> get(StringRef Name) const override {
      std::optional<StringRef> V = Check.Options.get(Name);
      return V ? std::optional<std::string>(V->str()) : std::nullopt;
    }
    void invalid(StringRef Name, StringRef Value, StringRef Expected) const override {
      Check.configurationDiag("invalid configuration value '%0' for option '%1'; expected %2")
          << Value << (Check.getID() + "." + Name).str() << Expected;
    }

  private:
    TidyCheckAdapter &Check;
  };

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
      // A note in another unit (only syncwatch-lint has cross-unit summaries) names its place.
      std::string Text = N.Loc.isInvalid() && !N.File.empty()
                             ? N.Message + " (" + N.File + ":" + std::to_string(N.Line) + ")"
                             : N.Message;
      auto Builder = diag(N.Loc.isValid() ? N.Loc : D.Loc, "%0", DiagnosticIDs::Note) << Text;
      for (const FixItHint &F : N.Fixes)
        Builder << F;
    }
  }

  std::unique_ptr<SyncwatchCheck> Impl;
  std::shared_ptr<UnitFacts> Facts;  // shared with the other checks of this context
};

// One UnitFacts for the checks of one ClangTidyContext. The factories are shared more
// widely: clangd makes them once and builds several files at a time, each with a context
// of its own, so facts per module would be written by two threads at once.
std::shared_ptr<UnitFacts> factsFor(ClangTidyContext *Context) {
  static std::mutex Lock;
  static std::map<ClangTidyContext *, std::weak_ptr<UnitFacts>> ByContext;
  std::lock_guard<std::mutex> Guard(Lock);
  for (auto It = ByContext.begin(); It != ByContext.end();)
    It = It->second.expired() ? ByContext.erase(It) : std::next(It);
  std::shared_ptr<UnitFacts> Facts = ByContext[Context].lock();
  if (!Facts) {
    Facts = std::make_shared<UnitFacts>();
    ByContext[Context] = Facts;
  }
  return Facts;
}

class SyncwatchModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    for (const CheckFactory &F : registeredChecks()) {
      const CheckFactory *Factory = &F;
      Factories.registerCheckFactory(
          std::string(ruleInfo(F.Rule).Id),
          [Factory](StringRef Name, ClangTidyContext *Context) {
            return std::make_unique<TidyCheckAdapter>(Name, Context, *Factory, factsFor(Context));
          });
    }
  }
};

} // namespace
} // namespace syncwatch

static clang::tidy::ClangTidyModuleRegistry::Add<syncwatch::SyncwatchModule>
    X("syncwatch-module", "Checks for implicit synchronization in CUDA host code.");
