#include "CheckOptionsFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

namespace syncwatch {
namespace {

// One CheckOptions entry: clang-tidy takes both a list of {key, value} and a mapping. Only
// syncwatch's checks' options are kept; each check reads its own (core/CheckOptions.h).
void readCheckOption(llvm::StringRef Key, llvm::StringRef Value, CheckOptionValues &Out) {
  if (Key.starts_with("syncwatch-"))
    Out[Key.str()] = Value.str();
}

std::string scalar(llvm::yaml::Node *N) {
  llvm::SmallString<64> Buf;
  auto *S = llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(N);
  return S ? S->getValue(Buf).str() : std::string();
}

std::string syncwatchChecks(llvm::StringRef List) {
  // clang-tidy's list may span lines and name other tools' checks: only ours run here.
  std::string Checks;
  llvm::SmallVector<llvm::StringRef, 16> Globs;
  List.split(Globs, ',', -1, false);
  for (llvm::StringRef G : Globs) {
    G = G.trim();
    llvm::StringRef Name = G.starts_with("-") ? G.drop_front() : G;
    if (Name == "*" || Name.starts_with("syncwatch-"))
      Checks += (Checks.empty() ? "" : ",") + G.str();
  }
  return Checks.find("syncwatch-") == std::string::npos ? "syncwatch-*" : Checks;
}

} // namespace

TidyConfig readNearestClangTidy(const std::string &SourcePath, std::string &Error) {
  TidyConfig C;
  llvm::SmallString<256> Dir(SourcePath);
  llvm::sys::path::remove_filename(Dir);
  for (llvm::StringRef D = Dir; !D.empty(); D = llvm::sys::path::parent_path(D)) {
    llvm::SmallString<256> File(D);
    llvm::sys::path::append(File, ".clang-tidy");
    auto Buf = llvm::MemoryBuffer::getFile(File);
    if (!Buf)
      continue;
    // The nearest .clang-tidy decides, as clang-tidy's does.
    llvm::SourceMgr SM;
    SM.setDiagHandler([](const llvm::SMDiagnostic &, void *) {});  // said below, once
    llvm::yaml::Stream Yaml((*Buf)->getBuffer(), SM, /*ShowColors=*/false);
    for (llvm::yaml::Document &Doc : Yaml) {
      auto *Map = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(Doc.getRoot());
      if (!Map)
        break;
      for (llvm::yaml::KeyValueNode &KV : *Map) {
        std::string Key = scalar(KV.getKey());
        if (Key == "Checks") {
          C.Checks = syncwatchChecks(scalar(KV.getValue()));
        } else if (Key == "CheckOptions") {
          if (auto *List = llvm::dyn_cast_or_null<llvm::yaml::SequenceNode>(KV.getValue())) {
            for (llvm::yaml::Node &Item : *List)
              if (auto *Entry = llvm::dyn_cast<llvm::yaml::MappingNode>(&Item)) {
                std::string K, V;
                for (llvm::yaml::KeyValueNode &E : *Entry)
                  (scalar(E.getKey()) == "key" ? K : V) = scalar(E.getValue());
                readCheckOption(K, V, C.Options);
              }
          } else if (auto *Opts = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(KV.getValue())) {
            for (llvm::yaml::KeyValueNode &E : *Opts)
              readCheckOption(scalar(E.getKey()), scalar(E.getValue()), C.Options);
          }
        }
      }
    }
    if (Yaml.failed())
      Error = std::string(File) + " is not valid YAML";
    return C;
  }
  return C;
}

bool parseCheckOption(llvm::StringRef Arg, CheckOptionValues &Out, std::string &Error) {
  auto [Key, Value] = Arg.split('=');
  auto [Check, Name] = Key.split('.');
  if (!Arg.contains('=') || !Check.starts_with("syncwatch-") || Name.empty()) {
    Error = "--check-option '" + Arg.str() + "': expected syncwatch-<rule>.<Option>=<value> "
            "(syncwatch-pageable-async-copy.ReportUnknown=true)";
    return false;
  }
  Out[Key.str()] = Value.str();
  return true;
}

} // namespace syncwatch
