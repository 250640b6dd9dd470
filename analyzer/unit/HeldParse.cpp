#include "HeldParse.h"
#include "UnitParse.h"
#include "UnitRunner.h"

namespace syncwatch {

std::unique_ptr<HeldParse> HeldParse::start(const UnitRunner &Runner, const std::string &File,
                                            const std::vector<clang::tooling::CompileCommand> &Commands,
                                            const std::function<bool(const UnitResult &)> &Keep,
                                            std::optional<UnitResult> &First) {
  std::unique_ptr<HeldParse> Held(new HeldParse);
  Held->Hold = std::make_shared<ParseHold>();
  // The parse outlives this call: its arguments are copied. (pthread, not std::thread or
  // llvm::thread: the stack size is set, and a thread that cannot start is an answer, not
  // an abort.)
  auto *Parse = new std::function<void()>([&Runner, File, Commands, Hold = Held->Hold] {
    Hold->finish(Runner.analyze(File, Commands, nullptr, Hold.get()));
  });
  pthread_attr_t Attr;
  pthread_attr_init(&Attr);
  pthread_attr_setstacksize(&Attr, ParseStackSize);
  auto Run = [](void *Arg) -> void * {
    std::unique_ptr<std::function<void()>> Fn(static_cast<std::function<void()> *>(Arg));
    (*Fn)();
    return nullptr;
  };
  Held->Started = pthread_create(&Held->Thread, &Attr, Run, Parse) == 0;
  pthread_attr_destroy(&Attr);
  if (!Held->Started) {
    delete Parse;
    return nullptr;  // no thread (a thread limit): First stays empty
  }
  First.emplace();
  if (!Held->Hold->waitFirst(*First) || !Keep(*First))
    return nullptr;  // the destructor lets the parse go and joins its thread
  Held->Deps = First->Deps;
  return Held;
}

HeldParse::~HeldParse() {
  Hold->release();
  if (Started)
    pthread_join(Thread, nullptr);
}

std::optional<UnitResult> HeldParse::judgeAgain(const SummaryIndex *External) {
  std::optional<UnitResult> R = Hold->ask(External);
  if (R)
    R->Deps = Deps;
  return R;
}

} // namespace syncwatch
