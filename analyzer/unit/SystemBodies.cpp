#include "SystemBodies.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/MultiplexConsumer.h"

#include <cstdlib>
#include <string_view>

namespace syncwatch {
namespace {

const bool ParseAllBodies = [] {
  const char *E = std::getenv("SYNCWATCH_PARSE_ALL_BODIES");
  return E && *E && std::string_view(E) != "0";
}();

class SystemBodySkipper : public clang::MultiplexConsumer {
public:
  SystemBodySkipper(std::unique_ptr<clang::ASTConsumer> Inner, const clang::SourceManager &SM)
      : MultiplexConsumer(std::move(Inner)), SM(SM) {}
  bool shouldSkipFunctionBody(clang::Decl *D) override {
    return SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation()));
  }

private:
  const clang::SourceManager &SM;
};

} // namespace

std::unique_ptr<clang::ASTConsumer> skippingSystemBodies(std::unique_ptr<clang::ASTConsumer> Inner,
                                                         clang::CompilerInstance &CI) {
  if (!Inner || ParseAllBodies)
    return Inner;
  CI.getFrontendOpts().SkipFunctionBodies = true;  // read by ParseAST, after this
  return std::make_unique<SystemBodySkipper>(std::move(Inner), CI.getSourceManager());
}

} // namespace syncwatch
